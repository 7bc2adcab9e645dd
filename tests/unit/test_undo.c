/* The undo rules of docs/design.md ("Undo"), one test each,
 * named after the rule. Remote transactions are applied the way a session
 * applies a collaborator's: ens_doc_apply with ENS_ORIGIN_REMOTE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

typedef struct {
  int events, sendable, local_only, remote, undo, redo;
  size_t ops;
} s_seen;

static void s_observer(ens_doc *doc, const ens_event *ev, void *user) {
  (void)doc;
  s_seen *s = user;
  s->events++;
  s->sendable += ev->sendable;
  s->ops += ens_txn_op_count(ev->txn);
  switch (ev->origin) {
  case ENS_ORIGIN_LOCAL_ONLY: s->local_only++; break;
  case ENS_ORIGIN_REMOTE: s->remote++; break;
  case ENS_ORIGIN_UNDO: s->undo++; break;
  case ENS_ORIGIN_REDO: s->redo++; break;
  default: break;
  }
}

/* A glyph with a width and one point, as a font reader would make it. */
typedef struct {
  ens_doc *doc;
  ens_undo *undo;
  ens_id glyph, point;
} s_fixture;

static s_fixture s_setup(void) {
  s_fixture f;
  f.doc = ens_doc_new("font", 1);
  f.undo = ens_undo_new(f.doc, 0);
  f.glyph = ens_id_make(0, 100);
  f.point = ens_id_make(0, 101);
  ens_txn *t = ens_txn_new("load", NULL);
  ens_node *g = ens_txn_insert(t, ENS_ROOT_ID, "V", f.glyph, "glyph");
  ens_node_set(g, "name", ens_str("A"));
  ens_node_set(g, "width", ens_int(500));
  ens_node_set(g, "lsb", ens_int(20));
  ens_node *p = ens_node_add_child(g, "V", f.point, "point");
  ens_node_set(p, "x", ens_int(20));
  ens_node_set(p, "y", ens_int(0));
  /* loading the file is not a user action: applied without the manager */
  assert_int_equal(ens_doc_apply(f.doc, t, ENS_ORIGIN_REMOTE, NULL), 0);
  ens_txn_free(t);
  return f;
}

static void s_teardown(s_fixture *f) {
  ens_undo_free(f->undo);
  ens_doc_free(f->doc);
}

static int64_t s_int(const ens_doc *doc, ens_id id, const char *key) {
  ens_value v;
  if (ens_obj_get(ens_doc_get(doc, id), key, &v) != 0 || v.type != ENS_INT) return -999999;
  return v.u.i;
}

static void s_remote_set(ens_doc *doc, ens_id id, const char *key, int64_t value) {
  ens_txn *t = ens_txn_new("collaborator", "bob");
  ens_txn_set(t, id, key, ens_int(value));
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_REMOTE, NULL), 0);
  ens_txn_free(t);
}

static void test_one_user_action_is_one_undo_step(void **state) {
  (void)state;
  s_fixture f = s_setup();
  uint64_t before = ens_doc_hash(f.doc);
  /* moving the point changes the side bearing and the width: one action */
  ens_txn *t = ens_txn_new("Move point", "alice");
  ens_txn_set(t, f.point, "x", ens_int(30));
  ens_txn_set(t, f.glyph, "lsb", ens_int(30));
  ens_txn_set(t, f.glyph, "width", ens_int(510));
  assert_int_equal(ens_undo_commit(f.undo, t), 0);
  ens_txn_free(t);
  assert_int_equal(ens_undo_undo_count(f.undo), 1);
  assert_string_equal(ens_undo_next_label(f.undo), "Move point");
  ens_undo_report rep;
  assert_int_equal(ens_undo_undo(f.undo, &rep), 0);
  assert_int_equal(rep.applied, 3);
  assert_int_equal(rep.skipped, 0);
  assert_string_equal(rep.label, "Move point");
  ens_undo_report_clear(&rep);
  assert_true(ens_doc_hash(f.doc) == before);
  assert_int_equal(ens_undo_undo_count(f.undo), 0);
  assert_int_equal(ens_undo_undo(f.undo, NULL), ENS_EEMPTY);
  s_teardown(&f);
}

static void test_collaborators_changes_never_enter_my_stacks(void **state) {
  (void)state;
  s_fixture f = s_setup();
  ens_txn *t = ens_txn_new("Set width", "alice");
  ens_txn_set(t, f.glyph, "width", ens_int(600));
  assert_int_equal(ens_undo_commit(f.undo, t), 0);
  ens_txn_free(t);
  s_remote_set(f.doc, f.point, "y", 77);
  s_remote_set(f.doc, f.glyph, "lsb", 5);
  assert_int_equal(ens_undo_undo_count(f.undo), 1);
  assert_int_equal(ens_undo_undo(f.undo, NULL), 0);
  /* my undo restored my width and left both of bob's edits alone */
  assert_int_equal(s_int(f.doc, f.glyph, "width"), 500);
  assert_int_equal(s_int(f.doc, f.point, "y"), 77);
  assert_int_equal(s_int(f.doc, f.glyph, "lsb"), 5);
  assert_int_equal(ens_undo_undo(f.undo, NULL), ENS_EEMPTY);
  s_teardown(&f);
}

static void test_local_only_entries_never_reach_an_observer_as_sendable(void **state) {
  (void)state;
  s_fixture f = s_setup();
  s_seen seen = {0};
  ens_doc_observe(f.doc, s_observer, &seen);
  uint64_t content = ens_doc_hash(f.doc);
  ens_txn *sel = ens_txn_new("Select point", "alice");
  ens_txn_set_local_only(sel, 1);
  ens_txn_set(sel, f.point, "@selected", ens_bool(1));
  assert_int_equal(ens_undo_commit(f.undo, sel), 0);
  /* it is an undo step, it changed nothing of the content */
  assert_int_equal(ens_undo_undo_count(f.undo), 1);
  assert_true(ens_doc_hash(f.doc) == content);
  ens_value v;
  assert_int_equal(ens_obj_get(ens_doc_get(f.doc, f.point), "@selected", &v), 0);
  assert_int_equal(ens_undo_undo(f.undo, NULL), 0);
  assert_int_equal(ens_undo_redo(f.undo, NULL), 0);
  assert_int_equal(seen.events, 3);
  assert_int_equal(seen.local_only, 3);
  assert_int_equal(seen.sendable, 0);
  /* and it can never be encoded for the wire */
  unsigned char *bytes;
  size_t len;
  assert_int_equal(ens_txn_encode(sel, &bytes, &len), ENS_EINVAL);
  /* nor may an ordinary transaction touch a local property, or the reverse */
  ens_txn *mixed = ens_txn_new("mixed", NULL);
  ens_txn_set(mixed, f.point, "@selected", ens_bool(0));
  assert_int_equal(ens_undo_commit(f.undo, mixed), ENS_EINVAL);
  ens_txn_set_local_only(mixed, 1);
  ens_txn_set(mixed, f.point, "x", ens_int(1));
  assert_int_equal(ens_undo_commit(f.undo, mixed), ENS_EINVAL);
  ens_txn_free(mixed);
  ens_txn_free(sel);
  s_teardown(&f);
}

static void test_undo_applies_the_inverse_as_a_new_transaction(void **state) {
  (void)state;
  s_fixture f = s_setup();
  s_seen seen = {0};
  ens_txn *t = ens_txn_new("Set width", "alice");
  ens_txn_set(t, f.glyph, "width", ens_int(600));
  assert_int_equal(ens_undo_commit(f.undo, t), 0);
  ens_txn_free(t);
  ens_doc_observe(f.doc, s_observer, &seen);
  assert_int_equal(ens_undo_undo(f.undo, NULL), 0);
  assert_int_equal(ens_undo_redo(f.undo, NULL), 0);
  /* both went out as transactions a session sends to everyone */
  assert_int_equal(seen.undo, 1);
  assert_int_equal(seen.redo, 1);
  assert_int_equal(seen.sendable, 2);
  assert_int_equal(s_int(f.doc, f.glyph, "width"), 600);
  s_teardown(&f);
}

static void test_undo_never_overwrites_a_collaborators_newer_value(void **state) {
  (void)state;
  s_fixture f = s_setup();
  ens_txn *t = ens_txn_new("Move point", "alice");
  ens_txn_set(t, f.point, "x", ens_int(30));
  ens_txn_set(t, f.glyph, "width", ens_int(510));
  assert_int_equal(ens_undo_commit(f.undo, t), 0);
  ens_txn_free(t);
  s_remote_set(f.doc, f.glyph, "width", 700); /* bob, after me */
  ens_undo_report rep;
  assert_int_equal(ens_undo_undo(f.undo, &rep), 0);
  /* my x is undone, bob's width survives, and the skip is reported */
  assert_int_equal(s_int(f.doc, f.point, "x"), 20);
  assert_int_equal(s_int(f.doc, f.glyph, "width"), 700);
  assert_int_equal(rep.applied, 1);
  assert_int_equal(rep.skipped, 1);
  assert_int_equal(rep.skips[0].op, ENS_OP_SET);
  assert_true(rep.skips[0].obj == f.glyph);
  assert_string_equal(rep.skips[0].key, "width");
  assert_int_equal(rep.skips[0].reason, ENS_SKIP_NEWER_REMOTE);
  ens_undo_report_clear(&rep);
  /* redo brings back my x only */
  assert_int_equal(ens_undo_redo(f.undo, &rep), 0);
  assert_int_equal(s_int(f.doc, f.point, "x"), 30);
  assert_int_equal(s_int(f.doc, f.glyph, "width"), 700);
  ens_undo_report_clear(&rep);
  s_teardown(&f);
}

static void test_undo_after_my_own_later_change_is_not_a_skip(void **state) {
  (void)state;
  s_fixture f = s_setup();
  for (int w = 510; w <= 530; w += 10) {
    ens_txn *t = ens_txn_new("Set width", "alice");
    ens_txn_set(t, f.glyph, "width", ens_int(w));
    assert_int_equal(ens_undo_commit(f.undo, t), 0);
    ens_txn_free(t);
  }
  ens_undo_report rep;
  for (int i = 0; i < 3; i++) {
    assert_int_equal(ens_undo_undo(f.undo, &rep), 0);
    assert_int_equal(rep.skipped, 0);
    ens_undo_report_clear(&rep);
  }
  assert_int_equal(s_int(f.doc, f.glyph, "width"), 500);
  s_teardown(&f);
}

static void test_undo_n_times_then_redo_n_times_gives_back_the_document(void **state) {
  (void)state;
  tu_rng r = {tu_seed("undo-n-redo-n", 5)};
  ens_doc *doc = tu_random_doc(&r, 1, 300);
  ens_undo *undo = ens_undo_new(doc, 0);
  uint64_t start = ens_doc_hash(doc);
  int committed = 0;
  while (committed < 200) {
    ens_txn *t = tu_random_txn(&r, doc, 4);
    if (ens_undo_commit(undo, t) == 0) committed++;
    ens_txn_free(t);
  }
  uint64_t end = ens_doc_hash(doc);
  for (int i = 0; i < committed; i++) assert_int_equal(ens_undo_undo(undo, NULL), 0);
  assert_true(ens_doc_hash(doc) == start);
  for (int i = 0; i < committed; i++) assert_int_equal(ens_undo_redo(undo, NULL), 0);
  assert_true(ens_doc_hash(doc) == end);
  ens_undo_free(undo);
  ens_doc_free(doc);
}

static void test_undo_of_a_delete_reinserts_the_same_ids(void **state) {
  (void)state;
  s_fixture f = s_setup();
  uint64_t before = ens_doc_hash(f.doc);
  ens_txn *t = ens_txn_new("Delete glyph", "alice");
  ens_txn_delete(t, f.glyph);
  assert_int_equal(ens_undo_commit(f.undo, t), 0);
  ens_txn_free(t);
  assert_null(ens_doc_get(f.doc, f.point));
  assert_int_equal(ens_undo_undo(f.undo, NULL), 0);
  assert_non_null(ens_doc_get(f.doc, f.glyph));
  assert_non_null(ens_doc_get(f.doc, f.point));
  assert_true(ens_obj_parent(ens_doc_get(f.doc, f.point)) == ens_doc_get(f.doc, f.glyph));
  assert_true(ens_doc_hash(f.doc) == before);
  s_teardown(&f);
}

static void test_undo_skips_what_a_collaborator_deleted(void **state) {
  (void)state;
  s_fixture f = s_setup();
  ens_txn *t = ens_txn_new("Move point", "alice");
  ens_txn_set(t, f.point, "x", ens_int(99));
  assert_int_equal(ens_undo_commit(f.undo, t), 0);
  ens_txn_free(t);
  t = ens_txn_new("Delete point", "bob");
  ens_txn_delete(t, f.point);
  assert_int_equal(ens_doc_apply(f.doc, t, ENS_ORIGIN_REMOTE, NULL), 0);
  ens_txn_free(t);
  ens_undo_report rep;
  assert_int_equal(ens_undo_undo(f.undo, &rep), 0);
  assert_int_equal(rep.skipped, 1);
  assert_int_equal(rep.skips[0].reason, ENS_SKIP_GONE);
  assert_null(ens_doc_get(f.doc, f.point)); /* bob's delete stands */
  ens_undo_report_clear(&rep);
  s_teardown(&f);
}

static void test_undo_of_an_insert_keeps_a_collaborators_work_inside_it(void **state) {
  (void)state;
  s_fixture f = s_setup();
  ens_id contour = ens_doc_new_id(f.doc);
  ens_txn *t = ens_txn_new("Add contour", "alice");
  ens_txn_insert(t, f.glyph, "k", contour, "contour");
  assert_int_equal(ens_undo_commit(f.undo, t), 0);
  ens_txn_free(t);
  t = ens_txn_new("Add point", "bob");
  ens_txn_insert(t, contour, "V", ens_id_make(2, 1), "point");
  assert_int_equal(ens_doc_apply(f.doc, t, ENS_ORIGIN_REMOTE, NULL), 0);
  ens_txn_free(t);
  ens_undo_report rep;
  assert_int_equal(ens_undo_undo(f.undo, &rep), 0);
  assert_int_equal(rep.skipped, 1);
  assert_int_equal(rep.skips[0].op, ENS_OP_DELETE);
  assert_int_equal(rep.skips[0].reason, ENS_SKIP_NEWER_REMOTE);
  assert_non_null(ens_doc_get(f.doc, ens_id_make(2, 1)));
  ens_undo_report_clear(&rep);
  s_teardown(&f);
}

static void test_a_new_action_clears_redo(void **state) {
  (void)state;
  s_fixture f = s_setup();
  ens_txn *t = ens_txn_new("Set width", "alice");
  ens_txn_set(t, f.glyph, "width", ens_int(600));
  assert_int_equal(ens_undo_commit(f.undo, t), 0);
  assert_int_equal(ens_undo_undo(f.undo, NULL), 0);
  assert_int_equal(ens_undo_redo_count(f.undo), 1);
  assert_int_equal(ens_undo_commit(f.undo, t), 0);
  assert_int_equal(ens_undo_redo_count(f.undo), 0);
  assert_int_equal(ens_undo_redo(f.undo, NULL), ENS_EEMPTY);
  ens_txn_free(t);
  s_teardown(&f);
}

static void test_depth_is_configurable(void **state) {
  (void)state;
  s_fixture f = s_setup();
  ens_undo_set_depth(f.undo, 3);
  for (int w = 1; w <= 5; w++) {
    ens_txn *t = ens_txn_new("Set width", "alice");
    ens_txn_set(t, f.glyph, "width", ens_int(w));
    assert_int_equal(ens_undo_commit(f.undo, t), 0);
    ens_txn_free(t);
  }
  assert_int_equal(ens_undo_undo_count(f.undo), 3);
  while (ens_undo_undo(f.undo, NULL) == 0) {
  }
  assert_int_equal(s_int(f.doc, f.glyph, "width"), 2); /* the oldest steps were dropped */
  s_teardown(&f);
}

static void test_observers_see_every_applied_transaction(void **state) {
  (void)state;
  s_fixture f = s_setup();
  s_seen seen = {0};
  int h = ens_doc_observe(f.doc, s_observer, &seen);
  assert_true(h > 0);
  ens_txn *t = ens_txn_new("Set width", "alice");
  ens_txn_set(t, f.glyph, "width", ens_int(600));
  assert_int_equal(ens_undo_commit(f.undo, t), 0);
  s_remote_set(f.doc, f.glyph, "lsb", 3);
  /* a failed apply is no event */
  ens_txn *bad = ens_txn_new("bad", NULL);
  ens_txn_delete(bad, ens_id_make(5, 5));
  assert_int_equal(ens_doc_apply(f.doc, bad, ENS_ORIGIN_LOCAL, NULL), ENS_ENOTFOUND);
  assert_int_equal(seen.events, 2);
  assert_int_equal(seen.remote, 1);
  assert_int_equal(seen.sendable, 1);
  ens_doc_unobserve(f.doc, h);
  assert_int_equal(ens_undo_undo(f.undo, NULL), 0);
  assert_int_equal(seen.events, 2);
  ens_txn_free(bad);
  ens_txn_free(t);
  s_teardown(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_user_action_is_one_undo_step),
      cmocka_unit_test(test_collaborators_changes_never_enter_my_stacks),
      cmocka_unit_test(test_local_only_entries_never_reach_an_observer_as_sendable),
      cmocka_unit_test(test_undo_applies_the_inverse_as_a_new_transaction),
      cmocka_unit_test(test_undo_never_overwrites_a_collaborators_newer_value),
      cmocka_unit_test(test_undo_after_my_own_later_change_is_not_a_skip),
      cmocka_unit_test(test_undo_n_times_then_redo_n_times_gives_back_the_document),
      cmocka_unit_test(test_undo_of_a_delete_reinserts_the_same_ids),
      cmocka_unit_test(test_undo_skips_what_a_collaborator_deleted),
      cmocka_unit_test(test_undo_of_an_insert_keeps_a_collaborators_work_inside_it),
      cmocka_unit_test(test_a_new_action_clears_redo),
      cmocka_unit_test(test_depth_is_configurable),
      cmocka_unit_test(test_observers_see_every_applied_transaction),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
