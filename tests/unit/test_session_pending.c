/* The client's pending queue without a network: a collaborator's change
 * goes beneath pending ones and is not shown until they are decided; a
 * refused one comes off and shows what was beneath; a pending change that
 * no longer applies waits off the document and comes back when it applies
 * again; undo steps follow their changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "sync/pending.h"

typedef struct {
  ens__pending q;
  uint64_t ctn;
} s_client;

/* What the session's observer does: queue each sendable change. */
static void s_observe(ens_doc *doc, const ens_event *ev, void *user) {
  (void)doc;
  s_client *c = user;
  if (c->q.rebasing || !ev->sendable) return;
  assert_non_null(ev->inverse);
  assert_int_equal(ens__pending_push(&c->q, ++c->ctn, ev->txn, ev->inverse), 0);
}

static ens_txn *s_set(ens_id id, const char *key, int64_t v) {
  ens_txn *t = ens_txn_new("Set", NULL);
  assert_int_equal(ens_txn_set(t, id, key, ens_int(v)), 0);
  return t;
}

static int64_t s_get(const ens_doc *doc, ens_id id, const char *key) {
  ens_value v;
  const ens_obj *o = ens_doc_get(doc, id);
  assert_non_null(o);
  assert_int_equal(ens_obj_get(o, key, &v), 0);
  return v.u.i;
}

/* root > 2 (layer) > 3 (item v=0) */
static ens_doc *s_doc(void) {
  ens_doc *d = ens_doc_new("doc", 5);
  ens_txn *t = ens_txn_new("init", NULL);
  ens_node *l = ens_txn_insert(t, ENS_ROOT_ID, "V", 2, "layer");
  ens_node *i = ens_node_add_child(l, "V", 3, "item");
  ens_node_set(i, "v", ens_int(0));
  assert_int_equal(ens_doc_apply(d, t, ENS_ORIGIN_REMOTE, NULL), 0);
  ens_txn_free(t);
  return d;
}

/* A client's queue on a fresh document with an undo manager, observed
 * as the session observes it; s_finish frees the three. */
static void s_start(s_client *c, ens_doc **d, ens_undo **u) {
  *d = s_doc();
  *u = ens_undo_new(*d, 0);
  memset(c, 0, sizeof *c);
  ens__pending_init(&c->q, *d, *u);
  ens_doc_observe(*d, s_observe, c);
}

static void s_finish(s_client *c, ens_doc *d, ens_undo *u) {
  ens__pending_clear(&c->q);
  ens_undo_free(u);
  ens_doc_free(d);
}

static void test_remote_beneath_pending_shows_after_reject(void **state) {
  (void)state;
  static s_client c;
  ens_doc *d;
  ens_undo *u;
  s_start(&c, &d, &u);
  ens_txn *mine = s_set(3, "v", 1), *theirs = s_set(3, "v", 2);
  assert_int_equal(ens_undo_commit(u, mine), 0);
  assert_int_equal(c.q.n, 1);
  assert_int_equal(ens__pending_remote(&c.q, theirs), 0);
  assert_int_equal(s_get(d, 3, "v"), 1); /* recorded beneath, not shown */
  assert_int_equal(ens_undo_undo_count(u), 1);
  assert_int_equal(ens__pending_reject_head(&c.q), 0);
  assert_int_equal(s_get(d, 3, "v"), 2);  /* now it shows */
  assert_int_equal(ens_undo_undo_count(u), 0); /* the refused step is gone */
  assert_int_equal(c.q.n, 0);
  ens_txn_free(mine);
  ens_txn_free(theirs);
  s_finish(&c, d, u);
}

/* A collaborator's change to another property goes on top of the pending
 * ones (the same document as beneath them): a refusal takes only ours
 * off, and undo of ours is not skipped for it. */
static void test_remote_on_other_properties_goes_on_top(void **state) {
  (void)state;
  static s_client c;
  ens_doc *d;
  ens_undo *u;
  s_start(&c, &d, &u);
  ens_txn *mine = s_set(3, "v", 1), *theirs = s_set(3, "w", 2), *more = s_set(2, "v", 3);
  assert_int_equal(ens_undo_commit(u, mine), 0);
  uint64_t stamp = c.q.items[0].stamp;
  assert_int_equal(ens__pending_remote(&c.q, theirs), 0);
  assert_true(c.q.items[0].stamp == stamp); /* not taken off and put back */
  assert_int_equal(s_get(d, 3, "v"), 1);
  assert_int_equal(s_get(d, 3, "w"), 2);
  assert_int_equal(ens__pending_reject_head(&c.q), 0);
  ens_value v;
  assert_int_equal(ens_obj_get(ens_doc_get(d, 3), "v", &v), 0);
  assert_int_equal(v.u.i, 0); /* ours came off */
  assert_int_equal(s_get(d, 3, "w"), 2);
  /* again, accepted this time, then undone after another remote change */
  assert_int_equal(ens_undo_commit(u, mine), 0);
  assert_int_equal(ens__pending_remote(&c.q, more), 0);
  assert_int_equal(ens__pending_accept_head(&c.q, NULL, NULL, 0), 0);
  ens_undo_report rep;
  assert_int_equal(ens_undo_undo(u, &rep), 0);
  assert_int_equal(rep.skipped, 0);
  ens_undo_report_clear(&rep);
  assert_int_equal(s_get(d, 3, "v"), 0);
  assert_int_equal(s_get(d, 3, "w"), 2);
  assert_int_equal(s_get(d, 2, "v"), 3);
  ens_txn_free(mine);
  ens_txn_free(theirs);
  ens_txn_free(more);
  s_finish(&c, d, u);
}

static void test_undo_after_ack_restores_what_was_beneath(void **state) {
  (void)state;
  static s_client c;
  ens_doc *d;
  ens_undo *u;
  s_start(&c, &d, &u);
  ens_txn *mine = s_set(3, "v", 1), *theirs = s_set(3, "v", 2);
  assert_int_equal(ens_undo_commit(u, mine), 0);
  assert_int_equal(ens__pending_remote(&c.q, theirs), 0);
  assert_int_equal(ens__pending_accept_head(&c.q, NULL, NULL, 0), 0);
  assert_int_equal(s_get(d, 3, "v"), 1);
  ens_undo_report rep;
  assert_int_equal(ens_undo_undo(u, &rep), 0);
  assert_int_equal(rep.skipped, 0);
  ens_undo_report_clear(&rep);
  assert_int_equal(s_get(d, 3, "v"), 2); /* the state beneath, in the server's order */
  assert_int_equal(c.q.n, 1);             /* the undo is itself pending */
  /* a collaborator's change after the step is newer: undo skips it */
  ens_txn *later = s_set(3, "v", 7);
  assert_int_equal(ens__pending_accept_head(&c.q, NULL, NULL, 0), 0);
  assert_int_equal(ens__pending_remote(&c.q, later), 0);
  assert_int_equal(ens_undo_redo(u, &rep), 0);
  assert_int_equal(rep.skipped, 1);
  ens_undo_report_clear(&rep);
  assert_int_equal(s_get(d, 3, "v"), 7);
  ens_txn_free(mine);
  ens_txn_free(theirs);
  ens_txn_free(later);
  s_finish(&c, d, u);
}

static void test_pending_off_while_its_object_is_gone_comes_back(void **state) {
  (void)state;
  ens_doc *d = s_doc();
  static s_client c;
  memset(&c, 0, sizeof c);
  ens__pending_init(&c.q, d, NULL);
  ens_doc_observe(d, s_observe, &c);
  ens_txn *mine = s_set(3, "v", 1);
  assert_int_equal(ens_doc_apply(d, mine, ENS_ORIGIN_LOCAL, NULL), 0);
  /* a collaborator deletes the layer, then undoes that (same ids back) */
  ens_txn *del = ens_txn_new("Delete", NULL), *back = NULL;
  ens_doc *other = s_doc();
  assert_int_equal(ens_txn_delete(del, 2), 0);
  assert_int_equal(ens_doc_apply(other, del, ENS_ORIGIN_LOCAL, &back), 0);
  assert_int_equal(ens__pending_remote(&c.q, del), 0);
  assert_null(ens_doc_get(d, 3));
  assert_false(c.q.items[0].on); /* off the document, still queued */
  assert_int_equal(ens__pending_remote(&c.q, back), 0);
  assert_true(c.q.items[0].on); /* back on */
  assert_int_equal(s_get(d, 3, "v"), 1);
  assert_int_equal(ens__pending_accept_head(&c.q, NULL, NULL, 0), 0);
  assert_int_equal(s_get(d, 3, "v"), 1);
  ens_txn_free(mine);
  ens_txn_free(del);
  ens_txn_free(back);
  ens_doc_free(other);
  ens__pending_clear(&c.q);
  ens_doc_free(d);
}

/* An ack for a change that cannot apply here means this replica and the
 * server disagree: reported, so the session starts over from a snapshot.
 * The change after it stays on. */
static void test_accepting_one_that_cannot_apply_is_a_divergence(void **state) {
  (void)state;
  ens_doc *d = s_doc();
  static s_client c;
  memset(&c, 0, sizeof c);
  ens__pending_init(&c.q, d, NULL);
  ens_doc_observe(d, s_observe, &c);
  ens_txn *a = s_set(3, "v", 1), *b = s_set(2, "w", 5), *del = ens_txn_new("Delete", NULL);
  assert_int_equal(ens_doc_apply(d, a, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_int_equal(ens_doc_apply(d, b, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_int_equal(ens_txn_delete(del, 3), 0);
  assert_int_equal(ens__pending_remote(&c.q, del), 0);
  assert_false(c.q.items[0].on);
  assert_true(c.q.items[1].on);
  assert_int_equal(ens__pending_accept_head(&c.q, NULL, NULL, 0), ENS_EDECODE);
  assert_int_equal(c.q.n, 1);
  assert_int_equal(s_get(d, 2, "w"), 5);
  ens_txn_free(a);
  ens_txn_free(b);
  ens_txn_free(del);
  ens__pending_clear(&c.q);
  ens_doc_free(d);
}

/* docs/design.md, "Concurrency": an edit of an object a collaborator deleted is dropped, the
 * rest of the change stands. A pending change that also edits a deleted
 * object goes back on without that edit, and its undo step undoes what
 * stayed; the ack says how much was left out. When the delete is undone
 * before the server decides, the change goes back on whole. */
static void test_edits_of_what_a_collaborator_deleted_are_left_out(void **state) {
  (void)state;
  static s_client c;
  ens_doc *d;
  ens_undo *u;
  s_start(&c, &d, &u);
  ens_txn *both = ens_txn_new("Both", NULL);
  assert_int_equal(ens_txn_set(both, 3, "v", ens_int(7)), 0);
  assert_int_equal(ens_txn_set(both, 2, "w", ens_int(9)), 0);
  assert_int_equal(ens_undo_commit(u, both), 0);
  assert_int_equal(c.q.n, 1);

  /* a collaborator deletes 3 */
  ens_txn *del = ens_txn_new("Delete", NULL), *undel = NULL;
  assert_int_equal(ens_txn_delete(del, 3), 0);
  ens_doc *shadow = s_doc(); /* the collaborator's view, to make the undo of the delete */
  assert_int_equal(ens_doc_apply(shadow, del, ENS_ORIGIN_LOCAL, &undel), 0);
  assert_int_equal(ens__pending_remote(&c.q, del), 0);
  assert_null(ens_doc_get(d, 3));
  assert_true(c.q.items[0].on);      /* back on, without the edit of 3 */
  assert_int_equal(c.q.items[0].dropped, 1);
  assert_int_equal(s_get(d, 2, "w"), 9);

  /* the delete is undone: the change applies whole again */
  assert_int_equal(ens__pending_remote(&c.q, undel), 0);
  assert_int_equal(c.q.items[0].dropped, 0);
  assert_int_equal(s_get(d, 3, "v"), 7);

  /* deleted again, then the server accepts it as it then applies */
  assert_int_equal(ens__pending_remote(&c.q, del), 0);
  size_t dropped = 99;
  assert_int_equal(ens__pending_accept_head(&c.q, &dropped, NULL, 0), 0);
  assert_int_equal(dropped, 1);
  assert_int_equal(c.q.n, 0);

  /* undo takes back what stayed */
  ens_undo_report rep;
  assert_int_equal(ens_undo_undo(u, &rep), 0);
  ens_value v;
  assert_int_equal(ens_obj_get(ens_doc_get(d, 2), "w", &v), ENS_ENOTFOUND);
  assert_null(ens_doc_get(d, 3));
  ens_undo_report_clear(&rep);

  ens_txn_free(both);
  ens_txn_free(del);
  ens_txn_free(undel);
  ens_doc_free(shadow);
  s_finish(&c, d, u);
}

/* A run of collaborators' changes leaves the document and the queue as
 * the same changes one by one do: on top while they commute, beneath
 * from the first that does not; then the pending one is refused and
 * what was beneath shows, the same on both. */
static void test_a_run_of_remote_changes_equals_them_one_by_one(void **state) {
  (void)state;
  ens_doc *d[2];
  ens_undo *u[2];
  static s_client c[2];
  ens_txn *mine = s_set(3, "v", 1);
  const ens_txn *run[4] = {s_set(3, "w", 7), s_set(3, "v", 2), s_set(2, "v", 3), s_set(3, "w", 8)};
  for (int k = 0; k < 2; k++) {
    d[k] = s_doc();
    u[k] = ens_undo_new(d[k], 0);
    memset(&c[k], 0, sizeof c[k]);
    ens__pending_init(&c[k].q, d[k], u[k]);
    ens_doc_observe(d[k], s_observe, &c[k]);
    assert_int_equal(ens_undo_commit(u[k], mine), 0);
  }
  for (int i = 0; i < 4; i++) assert_int_equal(ens__pending_remote(&c[0].q, run[i]), 0);
  size_t applied = 0;
  assert_int_equal(ens__pending_remote_run(&c[1].q, run, 4, &applied), 0);
  assert_int_equal(applied, 4);
  for (int k = 0; k < 2; k++) {
    assert_int_equal(s_get(d[k], 3, "v"), 1); /* ours still shows */
    assert_int_equal(s_get(d[k], 3, "w"), 8);
    assert_int_equal(s_get(d[k], 2, "v"), 3);
    assert_int_equal(c[k].q.n, 1);
  }
  assert_true(ens_doc_hash(d[0]) == ens_doc_hash(d[1]));
  for (int k = 0; k < 2; k++) {
    assert_int_equal(ens__pending_reject_head(&c[k].q), 0);
    assert_int_equal(s_get(d[k], 3, "v"), 2); /* theirs, from beneath */
    assert_int_equal(ens_undo_undo_count(u[k]), 0);
  }
  assert_true(ens_doc_hash(d[0]) == ens_doc_hash(d[1]));
  /* one that does not apply stops the run where it is */
  ens_txn *bad = ens_txn_new("Gone", NULL);
  assert_int_equal(ens_txn_set(bad, 99, "v", ens_int(1)), 0);
  const ens_txn *broken[3] = {run[0], bad, run[2]};
  assert_int_not_equal(ens__pending_remote_run(&c[1].q, broken, 3, &applied), 0);
  assert_int_equal(applied, 1);
  ens_txn_free(bad);
  for (int i = 0; i < 4; i++) ens_txn_free((ens_txn *)run[i]);
  ens_txn_free(mine);
  for (int k = 0; k < 2; k++) {
    ens__pending_clear(&c[k].q);
    ens_undo_free(u[k]);
    ens_doc_free(d[k]);
  }
}

/* On top only when it commutes: a change of another property goes on at
 * once with nothing taken off; one of the pending property is left for
 * the caller to put beneath, the document untouched. */
static void test_on_top_only_when_it_commutes(void **state) {
  (void)state;
  static s_client c;
  ens_doc *d;
  ens_undo *u;
  s_start(&c, &d, &u);
  ens_txn *mine = s_set(3, "v", 1), *other = s_set(3, "w", 2), *same = s_set(3, "v", 5);
  int applied = -1;
  assert_int_equal(ens__pending_remote_on_top(&c.q, other, &applied), 0); /* nothing pending */
  assert_int_equal(applied, 1);
  assert_int_equal(ens_undo_commit(u, mine), 0);
  uint64_t stamp = c.q.items[0].stamp, hash = ens_doc_hash(d);
  assert_int_equal(ens__pending_remote_on_top(&c.q, same, &applied), 0);
  assert_int_equal(applied, 0);
  assert_true(ens_doc_hash(d) == hash);
  assert_true(c.q.items[0].stamp == stamp);
  ens_txn *other2 = s_set(3, "w", 4);
  assert_int_equal(ens__pending_remote_on_top(&c.q, other2, &applied), 0);
  assert_int_equal(applied, 1);
  assert_true(c.q.items[0].stamp == stamp); /* not taken off and put back */
  assert_int_equal(s_get(d, 3, "v"), 1);
  assert_int_equal(s_get(d, 3, "w"), 4);
  /* the one left out goes beneath as usual, and shows once ours is refused */
  assert_int_equal(ens__pending_remote(&c.q, same), 0);
  assert_int_equal(s_get(d, 3, "v"), 1);
  assert_int_equal(ens__pending_reject_head(&c.q), 0);
  assert_int_equal(s_get(d, 3, "v"), 5);
  ens_txn_free(mine);
  ens_txn_free(other);
  ens_txn_free(other2);
  ens_txn_free(same);
  s_finish(&c, d, u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_edits_of_what_a_collaborator_deleted_are_left_out),
      cmocka_unit_test(test_remote_beneath_pending_shows_after_reject),
      cmocka_unit_test(test_remote_on_other_properties_goes_on_top),
      cmocka_unit_test(test_a_run_of_remote_changes_equals_them_one_by_one),
      cmocka_unit_test(test_on_top_only_when_it_commutes),
      cmocka_unit_test(test_undo_after_ack_restores_what_was_beneath),
      cmocka_unit_test(test_pending_off_while_its_object_is_gone_comes_back),
      cmocka_unit_test(test_accepting_one_that_cannot_apply_is_a_divergence),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
