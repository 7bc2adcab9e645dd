/* Three-way merge (ensemble/merge.h), one test per rule of docs/merge.md on
 * small hand-built documents whose objects are named by a "name" property,
 * then on real files: a font (the one bundled in tests/resources, and one
 * of the shared corpus when it is there) and a corpus drawing edited two
 * ways with the glyph and drawing edit commands, merged, written and read
 * back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

/* --- small documents ------------------------------------------------------------ */

/* Named objects are known by name (a name: 2); the rest by nothing. */
static int s_by_name(const ens_obj *obj, char *key, size_t size, void *user) {
  (void)user;
  ens_value v;
  if (ens_obj_get(obj, "name", &v) != 0 || v.type != ENS_STR) return 0;
  snprintf(key, size, "%.*s", (int)v.u.s.len, v.u.s.ptr);
  return 2;
}

static ens_doc *s_copy(const ens_doc *doc, uint32_t site) {
  unsigned char *bytes;
  size_t len;
  ens_doc *copy;
  assert_int_equal(ens_snapshot_encode(doc, &bytes, &len), 0);
  assert_int_equal(ens_snapshot_decode(bytes, len, &copy), 0);
  ens_free(bytes);
  ens_doc_set_site(copy, site);
  return copy;
}

typedef struct {
  const char *name;
  const ens_obj *found;
} s_find_ctx;

static int s_find_one(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_find_ctx *c = user;
  ens_value v;
  if (ens_obj_get(o, "name", &v) == 0 && v.type == ENS_STR && strlen(c->name) == v.u.s.len &&
      memcmp(v.u.s.ptr, c->name, v.u.s.len) == 0) {
    c->found = o;
    return 1;
  }
  return 0;
}

/* The object named name ("" is the root), or NULL. */
static const ens_obj *s_obj(const ens_doc *doc, const char *name) {
  if (!*name) return ens_doc_root(doc);
  s_find_ctx c = {name, NULL};
  ens_obj_walk(ens_doc_root(doc), s_find_one, &c);
  return c.found;
}

static ens_id s_id(const ens_doc *doc, const char *name) {
  const ens_obj *o = s_obj(doc, name);
  assert_non_null(o);
  return ens_obj_id(o);
}

static void s_apply(ens_doc *doc, ens_txn *t) {
  if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) != 0) fail_msg("apply: %s", ens_error_last());
  ens_txn_free(t);
}

/* Adds an object named name of kind under parent at index (SIZE_MAX: last). */
static void s_add(ens_doc *doc, const char *parent, size_t index, const char *kind, const char *name) {
  ens_id p = s_id(doc, parent);
  size_t n = ens_obj_child_count(ens_doc_get(doc, p));
  char *pos = NULL;
  assert_int_equal(ens_doc_pos_at(doc, p, index > n ? n : index, &pos), 0);
  ens_txn *t = ens_txn_new("add", NULL);
  ens_node *node = ens_txn_insert(t, p, pos, ens_doc_new_id(doc), kind);
  ens_node_set(node, "name", ens_str(name));
  ens_free(pos);
  s_apply(doc, t);
}

static void s_set(ens_doc *doc, const char *name, const char *key, ens_value v) {
  ens_txn *t = ens_txn_new("set", NULL);
  ens_txn_set(t, s_id(doc, name), key, v);
  s_apply(doc, t);
}

static void s_del(ens_doc *doc, const char *name) {
  ens_txn *t = ens_txn_new("delete", NULL);
  ens_txn_delete(t, s_id(doc, name));
  s_apply(doc, t);
}

/* Moves name under parent to index (among the parent's children without it). */
static void s_move(ens_doc *doc, const char *name, const char *parent, size_t index) {
  ens_id id = s_id(doc, name), p = s_id(doc, parent);
  const ens_obj *po = ens_doc_get(doc, p);
  /* the position among the other children */
  const char *before = NULL, *after = NULL;
  size_t seen = 0;
  for (size_t k = 0; k < ens_obj_child_count(po); k++) {
    const ens_obj *c = ens_obj_child(po, k);
    if (ens_obj_id(c) == id) continue;
    if (seen == index) {
      after = ens_obj_pos(c);
      break;
    }
    before = ens_obj_pos(c);
    seen++;
  }
  char *pos = ens_pos_between(before, after);
  assert_non_null(pos);
  ens_txn *t = ens_txn_new("move", NULL);
  ens_txn_move(t, id, p, pos);
  ens_free(pos);
  s_apply(doc, t);
}

/* Names of parent's children joined by spaces. */
static const char *s_order(const ens_doc *doc, const char *parent) {
  static char buf[1024];
  const ens_obj *p = s_obj(doc, parent);
  size_t len = 0;
  buf[0] = '\0';
  assert_non_null(p);
  for (size_t k = 0; k < ens_obj_child_count(p); k++) {
    ens_value v;
    ens_obj_get(ens_obj_child(p, k), "name", &v);
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%.*s", k ? " " : "", v.type == ENS_STR ? (int)v.u.s.len : 1,
                            v.type == ENS_STR ? v.u.s.ptr : "?");
  }
  return buf;
}

static int64_t s_int(const ens_doc *doc, const char *name, const char *key) {
  ens_value v;
  const ens_obj *o = s_obj(doc, name);
  assert_non_null(o);
  if (ens_obj_get(o, key, &v) != 0) return -1;
  assert_int_equal(v.type, ENS_INT);
  return v.u.i;
}

/* base: root { a{w=1} b{w=2} c{w=3} d{w=4} e{w=5} g{ x y } }, every object
 * an "item" but the group g */
static ens_doc *s_base(void) {
  ens_doc *doc = ens_doc_new("test", 1);
  const char *names = "abcde";
  for (int k = 0; names[k]; k++) {
    char n[2] = {names[k], 0};
    s_add(doc, "", SIZE_MAX, "item", n);
    s_set(doc, n, "w", ens_int(k + 1));
  }
  s_add(doc, "", SIZE_MAX, "group", "g");
  s_add(doc, "g", SIZE_MAX, "item", "x");
  s_add(doc, "g", SIZE_MAX, "item", "y");
  return doc;
}

typedef struct {
  ens_doc *base, *ours, *theirs;
  ens_merge *m;
} s_three;

static s_three s_start(void) {
  s_three s;
  s.base = s_base();
  s.ours = s_copy(s.base, 2);
  s.theirs = s_copy(s.base, 3);
  s.m = NULL;
  return s;
}

/* Merges, checks the conflicts' count and applies the result to theirs. */
static void s_merge(s_three *s, ens_merge_prefer prefer, ens_merge_match om, size_t conflicts) {
  ens_merge_opts opts = {s_by_name, NULL, om, ENS_MERGE_BY_ID, prefer, NULL, NULL};
  if (ens_merge3(s->base, s->ours, s->theirs, &opts, &s->m) != 0) fail_msg("merge: %s", ens_error_last());
  if (ens_merge_conflict_count(s->m) != conflicts) {
    for (size_t k = 0; k < ens_merge_conflict_count(s->m); k++) {
      const ens_merge_conflict *c = ens_merge_conflict_at(s->m, k);
      fprintf(stderr, "conflict %zu: kind %d at %s key %s ours_kept %d\n", k, (int)c->kind, c->path,
              c->key ? c->key : "-", c->ours_kept);
    }
    fail_msg("%zu conflicts, want %zu", ens_merge_conflict_count(s->m), conflicts);
  }
  if (ens_doc_apply(s->theirs, ens_merge_txn(s->m), ENS_ORIGIN_LOCAL, NULL) != 0)
    fail_msg("the merge does not apply to theirs: %s", ens_error_last());
}

static void s_done(s_three *s) {
  ens_merge_free(s->m);
  ens_doc_free(s->base);
  ens_doc_free(s->ours);
  ens_doc_free(s->theirs);
}

/* --- rules ------------------------------------------------------------------------- */

static void test_unchanged_ours_gives_an_empty_transaction(void **state) {
  (void)state;
  s_three s = s_start();
  s_set(s.theirs, "a", "w", ens_int(10));
  s_del(s.theirs, "b");
  s_move(s.theirs, "c", "g", 0);
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_ID, 0);
  assert_int_equal(ens_txn_op_count(ens_merge_txn(s.m)), 0);
  s_done(&s);
}

static void test_unchanged_theirs_gives_ours(void **state) {
  (void)state;
  s_three s = s_start();
  s_set(s.ours, "a", "w", ens_int(10));
  s_set(s.ours, "b", "w", ens_nil());
  s_del(s.ours, "c");
  s_move(s.ours, "d", "g", 1);
  s_move(s.ours, "e", "", 0);
  s_add(s.ours, "g", 0, "item", "new");
  s_merge(&s, ENS_MERGE_PREFER_THEIRS, ENS_MERGE_BY_ID, 0);
  assert_true(ens_doc_content_hash(s.theirs) == ens_doc_content_hash(s.ours));
  assert_string_equal(s_order(s.theirs, ""), "e a b g");
  assert_string_equal(s_order(s.theirs, "g"), "new x d y");
  s_done(&s);
}

static void test_changes_of_different_properties_are_both_kept(void **state) {
  (void)state;
  s_three s = s_start();
  s_set(s.ours, "a", "w", ens_int(10));
  s_set(s.ours, "b", "h", ens_int(7));
  s_set(s.theirs, "a", "h", ens_int(20));
  s_set(s.theirs, "c", "w", ens_int(30));
  s_merge(&s, ENS_MERGE_PREFER_THEIRS, ENS_MERGE_BY_ID, 0);
  assert_int_equal(s_int(s.theirs, "a", "w"), 10);
  assert_int_equal(s_int(s.theirs, "a", "h"), 20);
  assert_int_equal(s_int(s.theirs, "b", "h"), 7);
  assert_int_equal(s_int(s.theirs, "c", "w"), 30);
  s_done(&s);
}

static void test_one_property_changed_two_ways_is_a_conflict_resolved_by_prefer(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_set(s.ours, "a", "w", ens_int(10));
    s_set(s.theirs, "a", "w", ens_int(20));
    s_set(s.ours, "b", "w", ens_int(5)); /* the same change on both sides: no conflict */
    s_set(s.theirs, "b", "w", ens_int(5));
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 1);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_SET);
    assert_true(c->id == s_id(s.theirs, "a"));
    assert_string_equal(c->key, "w");
    assert_string_equal(c->path, "item a");
    assert_int_equal(c->base.u.i, 1);
    assert_int_equal(c->ours.u.i, 10);
    assert_int_equal(c->theirs.u.i, 20);
    assert_int_equal(c->ours_kept, prefer == ENS_MERGE_PREFER_OURS);
    assert_int_equal(s_int(s.theirs, "a", "w"), prefer == ENS_MERGE_PREFER_OURS ? 10 : 20);
    assert_int_equal(s_int(s.theirs, "b", "w"), 5);
    s_done(&s);
  }
}

static void test_an_edit_of_what_theirs_deleted_is_dropped_and_reported(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_set(s.ours, "x", "w", ens_int(10)); /* inside g, which theirs deletes */
    s_add(s.ours, "g", 0, "item", "z");   /* and an insert under it */
    s_set(s.ours, "a", "w", ens_int(11)); /* not in conflict */
    s_del(s.theirs, "g");
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 1);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
    assert_string_equal(c->path, "group g");
    assert_true(c->id == s_id(s.base, "g")); /* theirs shares base's ids */
    assert_int_equal(c->ours_kept, 0);
    assert_null(s_obj(s.theirs, "g"));
    assert_null(s_obj(s.theirs, "z"));
    assert_int_equal(s_int(s.theirs, "a", "w"), 11);
    s_done(&s);
  }
}

static void test_a_delete_of_what_theirs_edited_is_resolved_by_prefer(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_del(s.ours, "g");
    s_set(s.theirs, "y", "w", ens_int(10));
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 1);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
    assert_string_equal(c->path, "group g");
    assert_int_equal(c->ours_kept, prefer == ENS_MERGE_PREFER_OURS);
    if (prefer == ENS_MERGE_PREFER_OURS) {
      assert_null(s_obj(s.theirs, "g"));
      assert_null(s_obj(s.theirs, "y"));
    } else {
      assert_int_equal(s_int(s.theirs, "y", "w"), 10);
      assert_string_equal(s_order(s.theirs, "g"), "x y");
    }
    s_done(&s);
  }
}

static void test_deletes_on_both_sides_agree(void **state) {
  (void)state;
  s_three s = s_start();
  s_del(s.ours, "x");
  s_del(s.theirs, "g");
  s_del(s.ours, "a");
  s_del(s.theirs, "a");
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_ID, 0);
  assert_null(s_obj(s.theirs, "g"));
  assert_string_equal(s_order(s.theirs, ""), "b c d e");
  s_done(&s);
}

static void test_objects_both_sides_inserted_with_one_name_are_one_object(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_add(s.ours, "", SIZE_MAX, "item", "n");
    s_set(s.ours, "n", "w", ens_int(1));
    s_set(s.ours, "n", "h", ens_int(2));
    s_add(s.ours, "n", 0, "item", "n1");
    s_add(s.theirs, "", 0, "item", "n");
    s_set(s.theirs, "n", "w", ens_int(3));
    s_set(s.theirs, "n", "k", ens_int(4));
    s_add(s.theirs, "n", 0, "item", "n2");
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 1);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_INSERT);
    assert_string_equal(c->key, "w");
    assert_int_equal(c->base.type, ENS_NIL);
    /* where the preferred side put it */
    assert_string_equal(s_order(s.theirs, ""), prefer == ENS_MERGE_PREFER_OURS ? "a b c d e g n" : "n a b c d e g");
    assert_int_equal(s_int(s.theirs, "n", "w"), prefer == ENS_MERGE_PREFER_OURS ? 1 : 3);
    assert_int_equal(s_int(s.theirs, "n", "h"), 2);
    assert_int_equal(s_int(s.theirs, "n", "k"), 4);
    assert_string_equal(s_order(s.theirs, "n"), prefer == ENS_MERGE_PREFER_OURS ? "n1 n2" : "n2 n1");
    s_done(&s);
  }
}

static void test_unnamed_objects_both_sides_inserted_are_both_kept(void **state) {
  (void)state;
  s_three s = s_start();
  s_add(s.ours, "g", SIZE_MAX, "item", "p");
  s_add(s.theirs, "g", SIZE_MAX, "item", "q");
  ens_doc *docs[2] = {s.ours, s.theirs};
  for (int k = 0; k < 2; k++) { /* unnamed: known only by their place */
    ens_txn *t = ens_txn_new("unname", NULL);
    ens_txn_set(t, s_id(docs[k], k ? "q" : "p"), "name", ens_nil());
    ens_txn_set(t, s_id(docs[k], k ? "q" : "p"), "w", ens_int(k));
    s_apply(docs[k], t);
  }
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_ID, 0);
  assert_int_equal(ens_obj_child_count(s_obj(s.theirs, "g")), 4);
  s_done(&s);
}

static void test_reorders_that_do_not_overlap_are_both_kept(void **state) {
  (void)state;
  s_three s = s_start();
  s_move(s.ours, "a", "", 1);   /* b a c d e g */
  s_move(s.theirs, "e", "", 3); /* a b c e d g */
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_ID, 0);
  assert_string_equal(s_order(s.theirs, ""), "b a c e d g");
  s_done(&s);
}

static void test_reorders_that_overlap_are_a_conflict_resolved_by_prefer(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_move(s.ours, "c", "", 0);   /* c a b d e g */
    s_move(s.theirs, "c", "", 5); /* a b d e g c */
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 1);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_MOVE);
    assert_int_equal(c->ours_kept, prefer == ENS_MERGE_PREFER_OURS);
    assert_string_equal(s_order(s.theirs, ""), prefer == ENS_MERGE_PREFER_OURS ? "c a b d e g" : "a b d e g c");
    s_done(&s);
  }
}

static void test_moves_to_two_parents_are_a_conflict(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_move(s.ours, "a", "g", 0);
    s_move(s.theirs, "a", "b", 0);
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 1);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_MOVE);
    assert_int_equal(c->ours_kept, prefer == ENS_MERGE_PREFER_OURS);
    assert_true(ens_obj_id(ens_obj_parent(s_obj(s.theirs, "a"))) ==
                s_id(s.theirs, prefer == ENS_MERGE_PREFER_OURS ? "g" : "b"));
    s_done(&s);
  }
}

static void test_moves_that_make_a_cycle_give_way(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_move(s.ours, "a", "b", 0);
    s_move(s.theirs, "b", "a", 0);
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 1);
    assert_int_equal(ens_merge_conflict_at(s.m, 0)->kind, ENS_CONFLICT_MOVE);
    if (prefer == ENS_MERGE_PREFER_OURS) {
      assert_string_equal(s_order(s.theirs, "b"), "a");
      assert_int_equal(ens_obj_child_count(s_obj(s.theirs, "a")), 0);
    } else {
      assert_string_equal(s_order(s.theirs, "a"), "b");
      assert_int_equal(ens_obj_child_count(s_obj(s.theirs, "b")), 0);
    }
    s_done(&s);
  }
}

static void test_kept_text_is_merged_but_never_a_conflict_nor_an_edit(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    /* a format's kept text changes with the values it stands for */
    s_set(s.ours, "a", "~src", ens_str("<a w='10'>"));
    s_set(s.ours, "a", "w", ens_int(10));
    s_set(s.theirs, "a", "~src", ens_str("<a h='5'>"));
    s_set(s.theirs, "a", "h", ens_int(5));
    s_set(s.ours, "b", "~src", ens_str("<b >")); /* saved again in another layout */
    s_del(s.theirs, "b");
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 0);
    assert_int_equal(s_int(s.theirs, "a", "w"), 10);
    assert_int_equal(s_int(s.theirs, "a", "h"), 5);
    ens_value v;
    assert_int_equal(ens_obj_get(s_obj(s.theirs, "a"), "~src", &v), 0);
    assert_memory_equal(v.u.s.ptr, prefer == ENS_MERGE_PREFER_OURS ? "<a w='10'>" : "<a h='5'>", v.u.s.len);
    assert_null(s_obj(s.theirs, "b"));
    s_done(&s);
  }
}

static void test_inserts_where_both_removed_what_was_there_are_both_kept(void **state) {
  (void)state;
  s_three s = s_start();
  s_del(s.ours, "c");
  s_add(s.ours, "", 2, "item", "p");
  s_del(s.theirs, "c");
  s_add(s.theirs, "", 2, "item", "q");
  s_merge(&s, ENS_MERGE_PREFER_THEIRS, ENS_MERGE_BY_ID, 0);
  assert_string_equal(s_order(s.theirs, ""), "a b q p d e g");
  s_done(&s);
}

static void test_references_are_rewritten_to_theirs_ids(void **state) {
  (void)state;
  s_three s = s_start();
  s_add(s.ours, "", SIZE_MAX, "item", "n");
  s_set(s.ours, "a", "link", ens_ref(s_id(s.ours, "n"))); /* to a new object */
  s_set(s.ours, "n", "link", ens_ref(s_id(s.ours, "b")));  /* from one */
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_ID, 0);
  ens_value v;
  assert_int_equal(ens_obj_get(s_obj(s.theirs, "a"), "link", &v), 0);
  assert_true(v.type == ENS_REF && v.u.ref == s_id(s.theirs, "n"));
  assert_int_equal(ens_id_site(v.u.ref), 3); /* a fresh id of theirs' site */
  assert_int_equal(ens_obj_get(s_obj(s.theirs, "n"), "link", &v), 0);
  assert_true(v.type == ENS_REF && v.u.ref == s_id(s.theirs, "b"));
  s_done(&s);
}

/* 1 when obj has a property key that is a reference. */
static int s_has_ref(const ens_doc *doc, const char *name, const char *key) {
  ens_value v;
  const ens_obj *o = s_obj(doc, name);
  assert_non_null(o);
  return ens_obj_get(o, key, &v) == 0 && v.type == ENS_REF;
}

/* Every reference of doc names an object of doc. */
static int s_check_ref(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  const ens_doc *doc = user;
  for (size_t k = 0; k < ens_obj_prop_count(o); k++) {
    const char *key;
    ens_value v;
    ens_obj_prop_at(o, k, &key, &v);
    if (v.type == ENS_REF && !ens_doc_get(doc, v.u.ref)) fail_msg("%s of object %#llx dangles", key, (unsigned long long)ens_obj_id(o));
  }
  return 0;
}

static void s_no_dangling(const ens_doc *doc) { ens_obj_walk(ens_doc_root(doc), s_check_ref, (void *)doc); }

/* A reference one side makes to what the other deleted is an edit of it:
 * a DELETE conflict, resolved as any other. Where theirs deleted, the
 * delete holds and the reference goes with what it names: a property of
 * an object both have keeps theirs' value, a new object holding it is not
 * inserted (as an insert under what was deleted would not be). */
static void test_a_reference_to_what_theirs_deleted_goes_with_it(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_set(s.ours, "a", "link", ens_ref(s_id(s.ours, "b")));
    s_set(s.ours, "a", "w", ens_int(7)); /* the rest of the edit stands */
    s_add(s.ours, "", SIZE_MAX, "item", "n"); /* a new object's reference too */
    s_set(s.ours, "n", "link", ens_ref(s_id(s.ours, "y")));
    s_add(s.ours, "", SIZE_MAX, "item", "n2"); /* and one to that new object */
    s_set(s.ours, "n2", "link", ens_ref(s_id(s.ours, "n")));
    s_add(s.ours, "", SIZE_MAX, "item", "n3"); /* a new object naming what stays */
    s_set(s.ours, "n3", "link", ens_ref(s_id(s.ours, "c")));
    s_del(s.theirs, "b");
    s_del(s.theirs, "g");
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 2);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
    assert_string_equal(c->path, "item b");
    assert_true(c->id == s_id(s.base, "b"));
    assert_int_equal(c->ours_kept, 0);
    c = ens_merge_conflict_at(s.m, 1);
    assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
    assert_string_equal(c->path, "group g"); /* the top of what theirs deleted */
    assert_int_equal(c->ours_kept, 0);
    assert_null(s_obj(s.theirs, "b"));
    assert_null(s_obj(s.theirs, "g"));
    assert_false(s_has_ref(s.theirs, "a", "link"));
    assert_int_equal(s_int(s.theirs, "a", "w"), 7);
    assert_null(s_obj(s.theirs, "n"));
    assert_null(s_obj(s.theirs, "n2"));
    assert_true(s_has_ref(s.theirs, "n3", "link"));
    assert_string_equal(s_order(s.theirs, ""), "a c d e n3");
    s_no_dangling(s.theirs);
    s_done(&s);
  }
}

/* The same made by theirs against ours' delete: prefer decides; where
 * ours' delete holds, theirs' property takes ours' value again and theirs'
 * new object holding such a reference goes. */
static void test_a_reference_to_what_ours_deleted_is_resolved_by_prefer(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_del(s.ours, "b");
    s_set(s.theirs, "a", "link", ens_ref(s_id(s.theirs, "b")));
    s_add(s.theirs, "", SIZE_MAX, "item", "t");
    s_set(s.theirs, "t", "link", ens_ref(s_id(s.theirs, "b")));
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 1);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
    assert_string_equal(c->path, "item b");
    assert_int_equal(c->ours_kept, prefer == ENS_MERGE_PREFER_OURS);
    if (prefer == ENS_MERGE_PREFER_OURS) {
      assert_null(s_obj(s.theirs, "b"));
      assert_false(s_has_ref(s.theirs, "a", "link"));
      assert_null(s_obj(s.theirs, "t"));
    } else {
      ens_value v;
      assert_int_equal(s_int(s.theirs, "b", "w"), 2);
      assert_int_equal(ens_obj_get(s_obj(s.theirs, "a"), "link", &v), 0);
      assert_true(v.type == ENS_REF && v.u.ref == s_id(s.theirs, "b"));
      assert_non_null(s_obj(s.theirs, "t"));
    }
    s_no_dangling(s.theirs);
    s_done(&s);
  }
}

/* A reference base already had is no one's new use of what was deleted;
 * and one the deleting side's own objects make is its own business. */
static void test_a_reference_base_had_to_what_one_side_deleted_is_no_conflict(void **state) {
  (void)state;
  ens_doc *b = s_base();
  s_set(b, "a", "link", ens_ref(s_id(b, "b")));
  s_three s = {b, s_copy(b, 2), s_copy(b, 3), NULL};
  s_set(s.theirs, "a", "w", ens_int(9)); /* an edit of a, not of its reference */
  s_del(s.ours, "b");
  s_add(s.theirs, "", SIZE_MAX, "item", "t"); /* theirs refers to c and deletes it itself */
  s_set(s.theirs, "t", "link", ens_ref(s_id(s.theirs, "c")));
  s_del(s.theirs, "c");
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_ID, 0);
  assert_null(s_obj(s.theirs, "b"));
  assert_int_equal(s_int(s.theirs, "a", "w"), 9);
  assert_non_null(s_obj(s.theirs, "t"));
  s_done(&s);
}

/* Both sides changed one reference, to two objects: where the preferred
 * side's names what the merge deletes, the other side's value stands, and
 * the SET conflict says so (ours_kept). */
static void test_a_conflicting_reference_to_what_is_deleted_keeps_the_other_value(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_set(s.ours, "a", "link", ens_ref(s_id(s.ours, "b")));
    s_set(s.theirs, "a", "link", ens_ref(s_id(s.theirs, "c")));
    s_del(s.theirs, "b");
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 2);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
    assert_string_equal(c->path, "item b");
    c = ens_merge_conflict_at(s.m, 1);
    assert_int_equal(c->kind, ENS_CONFLICT_SET);
    assert_string_equal(c->key, "link");
    assert_int_equal(c->ours_kept, 0);
    ens_value v;
    assert_int_equal(ens_obj_get(s_obj(s.theirs, "a"), "link", &v), 0);
    assert_true(v.type == ENS_REF && v.u.ref == s_id(s.theirs, "c"));
    s_no_dangling(s.theirs);
    s_done(&s);
  }
}

/* What ours inserts under what theirs deleted goes, and so does a
 * reference to it. */
static void test_a_reference_to_an_insert_that_goes_goes_too(void **state) {
  (void)state;
  s_three s = s_start();
  s_add(s.ours, "g", 0, "item", "new");
  s_set(s.ours, "a", "link", ens_ref(s_id(s.ours, "new")));
  s_set(s.ours, "d", "link", ens_ref(s_id(s.ours, "e"))); /* stands */
  s_del(s.theirs, "g");
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_ID, 1);
  assert_string_equal(ens_merge_conflict_at(s.m, 0)->path, "group g");
  assert_null(s_obj(s.theirs, "new"));
  assert_false(s_has_ref(s.theirs, "a", "link"));
  assert_true(s_has_ref(s.theirs, "d", "link"));
  s_no_dangling(s.theirs);
  s_done(&s);
}

/* Preferring theirs keeps what ours deleted and theirs edited; what it
 * names stays with it, even what theirs did not edit (a composite glyph
 * kept with the glyphs it is built from), and a conflict says so. */
static void test_what_a_kept_object_names_is_kept_with_it(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    ens_doc *b = s_base();
    s_set(b, "a", "link", ens_ref(s_id(b, "b")));
    s_set(b, "b", "link", ens_ref(s_id(b, "c")));
    s_three s = {b, s_copy(b, 2), s_copy(b, 3), NULL};
    s_del(s.ours, "a");
    s_del(s.ours, "b");
    s_del(s.ours, "c");
    s_set(s.theirs, "a", "w", ens_int(9));
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, prefer == ENS_MERGE_PREFER_THEIRS ? 3 : 1);
    for (size_t k = 0; k < ens_merge_conflict_count(s.m); k++) {
      const ens_merge_conflict *c = ens_merge_conflict_at(s.m, k);
      assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
      assert_string_equal(c->path, k == 0 ? "item a" : k == 1 ? "item b" : "item c");
      assert_int_equal(c->ours_kept, prefer == ENS_MERGE_PREFER_OURS);
    }
    if (prefer == ENS_MERGE_PREFER_OURS) {
      assert_string_equal(s_order(s.theirs, ""), "d e g");
    } else {
      assert_string_equal(s_order(s.theirs, ""), "a b c d e g");
      assert_int_equal(s_int(s.theirs, "a", "w"), 9);
      assert_true(s_has_ref(s.theirs, "a", "link") && s_has_ref(s.theirs, "b", "link"));
    }
    s_no_dangling(s.theirs);
    s_done(&s);
  }
}

/* Moves into what the other side deleted: the moved object is not part of
 * the delete; where theirs deleted the new parent, it stays where theirs
 * has it; where ours did, prefer decides whether the parent goes (and the
 * object stays in its place of ours) or stays with the object in it. */
static void test_a_move_into_what_theirs_deleted_leaves_the_object_where_theirs_has_it(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_move(s.ours, "a", "g", 1);
    s_move(s.theirs, "b", "", 4); /* theirs moves b after e */
    s_move(s.ours, "b", "g", 0);  /* ours moves b into g too */
    s_del(s.theirs, "g");
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 2);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_DELETE); /* ours moved in what theirs deleted */
    assert_string_equal(c->path, "group g");
    assert_int_equal(c->ours_kept, 0);
    c = ens_merge_conflict_at(s.m, 1);
    assert_int_equal(c->kind, ENS_CONFLICT_MOVE); /* b, moved by both: the root's order, two ways */
    assert_string_equal(c->path, "");
    assert_null(s_obj(s.theirs, "g"));
    assert_string_equal(s_order(s.theirs, ""), "a c d e b");
    s_done(&s);
  }
}

static void test_a_move_into_what_ours_deleted_is_resolved_by_prefer(void **state) {
  (void)state;
  for (int prefer = 0; prefer < 2; prefer++) {
    s_three s = s_start();
    s_del(s.ours, "g");
    s_move(s.theirs, "a", "g", 2);
    s_merge(&s, (ens_merge_prefer)prefer, ENS_MERGE_BY_ID, 1);
    const ens_merge_conflict *c = ens_merge_conflict_at(s.m, 0);
    assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
    assert_string_equal(c->path, "group g");
    assert_int_equal(c->ours_kept, prefer == ENS_MERGE_PREFER_OURS);
    if (prefer == ENS_MERGE_PREFER_OURS) {
      assert_null(s_obj(s.theirs, "g"));
      assert_string_equal(s_order(s.theirs, ""), "a b c d e");
    } else {
      assert_string_equal(s_order(s.theirs, "g"), "x y a");
      assert_string_equal(s_order(s.theirs, ""), "b c d e g");
    }
    s_done(&s);
  }
}

/* What ours inserts under an object theirs moved goes with it, and what
 * ours moves under it too; theirs' own inserts there stay, after ours'
 * (both only inserted there: the preferred side's first). */
static void test_ours_inserting_under_what_theirs_moved_follows_the_move(void **state) {
  (void)state;
  s_three s = s_start();
  s_add(s.ours, "x", 0, "item", "new");
  s_move(s.ours, "a", "x", 1);
  s_add(s.theirs, "x", 0, "item", "theirs");
  s_move(s.theirs, "x", "", 0);
  s_move(s.theirs, "g", "d", 0);
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_ID, 0);
  assert_string_equal(s_order(s.theirs, ""), "x b c d e");
  assert_string_equal(s_order(s.theirs, "x"), "new a theirs");
  assert_string_equal(s_order(s.theirs, "d"), "g");
  assert_string_equal(s_order(s.theirs, "g"), "y");
  s_done(&s);
}

static void test_local_properties_are_never_content(void **state) {
  (void)state;
  s_three s = s_start();
  ens_txn *t = ens_txn_new("select", NULL);
  ens_txn_set_local_only(t, 1);
  ens_txn_set(t, s_id(s.ours, "a"), "@selected", ens_bool(1));
  assert_int_equal(ens_doc_apply(s.ours, t, ENS_ORIGIN_LOCAL_ONLY, NULL), 0);
  ens_txn_free(t);
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_ID, 0);
  assert_int_equal(ens_txn_op_count(ens_merge_txn(s.m)), 0);
  s_done(&s);
}

static void test_ours_matched_by_key_merges_like_ours_by_id(void **state) {
  (void)state;
  /* ours rebuilt independently: other ids, same names */
  s_three s = s_start();
  ens_doc *fresh = ens_doc_new("test", 9);
  const ens_obj *root = ens_doc_root(s.ours);
  for (size_t k = 0; k < ens_obj_child_count(root); k++) {
    const ens_obj *c = ens_obj_child(root, k);
    ens_value name, w;
    ens_obj_get(c, "name", &name);
    char n[8];
    snprintf(n, sizeof n, "%.*s", (int)name.u.s.len, name.u.s.ptr);
    s_add(fresh, "", SIZE_MAX, ens_obj_kind(c), n);
    if (ens_obj_get(c, "w", &w) == 0) s_set(fresh, n, "w", w);
  }
  s_add(fresh, "g", SIZE_MAX, "item", "x");
  s_add(fresh, "g", SIZE_MAX, "item", "y");
  ens_doc_free(s.ours);
  s.ours = fresh;
  s_set(s.ours, "b", "w", ens_int(22));
  s_move(s.ours, "a", "", 2);
  s_set(s.theirs, "c", "w", ens_int(33));
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_KEY, 0);
  assert_int_equal(s_int(s.theirs, "b", "w"), 22);
  assert_int_equal(s_int(s.theirs, "c", "w"), 33);
  assert_string_equal(s_order(s.theirs, ""), "b c a d e g");
  s_done(&s);
}

static void test_merging_is_deterministic(void **state) {
  (void)state;
  s_three s = s_start();
  s_add(s.ours, "g", 1, "item", "n");
  s_set(s.ours, "a", "w", ens_int(10));
  s_set(s.theirs, "a", "w", ens_int(20));
  s_move(s.ours, "e", "", 0);
  ens_doc *theirs2 = s_copy(s.theirs, 3);
  ens_merge_opts opts = {s_by_name, NULL, ENS_MERGE_BY_ID, ENS_MERGE_BY_ID, ENS_MERGE_PREFER_OURS, NULL, NULL};
  ens_merge *m2;
  assert_int_equal(ens_merge3(s.base, s.ours, theirs2, &opts, &m2), 0);
  s_merge(&s, ENS_MERGE_PREFER_OURS, ENS_MERGE_BY_ID, 1);
  unsigned char *b1, *b2;
  size_t n1, n2;
  assert_int_equal(ens_txn_encode(ens_merge_txn(s.m), &b1, &n1), 0);
  assert_int_equal(ens_txn_encode(ens_merge_txn(m2), &b2, &n2), 0);
  assert_int_equal(n1, n2);
  assert_memory_equal(b1, b2, n1);
  ens_free(b1);
  ens_free(b2);
  ens_merge_free(m2);
  ens_doc_free(theirs2);
  s_done(&s);
}

static void test_bad_arguments_are_refused(void **state) {
  (void)state;
  ens_doc *a = ens_doc_new("test", 1), *b = ens_doc_new("other", 2);
  ens_merge *m = (ens_merge *)1;
  ens_merge_opts opts = {NULL, NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_ID, ENS_MERGE_PREFER_OURS, NULL, NULL};
  assert_int_equal(ens_merge3(a, a, b, &opts, &m), ENS_EINVAL); /* by key without keys */
  assert_null(m);
  opts.ours_match = ENS_MERGE_BY_ID;
  assert_int_equal(ens_merge3(a, a, b, &opts, &m), ENS_EKIND);
  assert_int_equal(ens_merge3(a, a, a, &opts, &m), ENS_EINVAL); /* theirs changes: it cannot be base */
  ens_merge_free(NULL);
  ens_doc_free(a);
  ens_doc_free(b);
}

/* --- real files ------------------------------------------------------------------- */

/* A file of the shared corpus, or NULL (the case reports itself skipped). */
static ens_doc *s_read_corpus(const char *rel, int svg) {
  const char *corpus = tu_corpus_dir();
  if (!corpus) {
    TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): %s", rel);
    return NULL;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", corpus, rel);
  ens_doc *doc;
  int rc = svg ? ens_svg_read_path(path, &doc) : ens_sfd_read_path(path, &doc);
  if (rc) fail_msg("%s: %s", path, ens_error_last());
  return doc;
}

/* doc written to its format and read back, as a file saved by an editor is. */
static ens_doc *s_saved(const ens_doc *doc, int svg) {
  unsigned char *bytes;
  size_t len;
  ens_doc *back;
  assert_int_equal(svg ? ens_svg_write(doc, &bytes, &len) : ens_sfd_write(doc, &bytes, &len), 0);
  if ((svg ? ens_svg_read(bytes, len, &back) : ens_sfd_read(bytes, len, &back)) != 0)
    fail_msg("does not read back: %s", ens_error_last());
  ens_free(bytes);
  return back;
}

static void s_do(ens_doc *doc, int rc, ens_txn *t) {
  if (rc) fail_msg("edit: %s", ens_error_last());
  s_apply(doc, t);
}
#define S_DO(doc, call)    \
  do {                     \
    ens_txn *t_ = NULL;    \
    int rc_ = (call);      \
    s_do(doc, rc_, t_);    \
  } while (0)

static int64_t s_width(const ens_doc *doc, const char *glyph) {
  ens_value v;
  const ens_obj *g = ens_glyph_find(doc, glyph);
  assert_non_null(g);
  assert_int_equal(ens_obj_get(g, "width", &v), 0);
  return v.u.i;
}

static size_t s_contours(const ens_doc *doc, const char *glyph) {
  const ens_obj *g = ens_glyph_find(doc, glyph);
  assert_non_null(g);
  for (size_t k = 0; k < ens_obj_child_count(g); k++) {
    const ens_obj *l = ens_obj_child(g, k);
    ens_value idx;
    if (!strcmp(ens_obj_kind(l), ENS_SFD_LAYER) && ens_obj_get(l, "index", &idx) == 0 && idx.u.i == 1) {
      size_t n = 0;
      for (size_t c = 0; c < ens_obj_child_count(l); c++) n += !strcmp(ens_obj_kind(ens_obj_child(l, c)), ENS_SFD_CONTOUR);
      return n;
    }
  }
  return 0;
}

/* The point that ens_glyph_pt {0, 1} names: contour 0, point 1 of the
 * foreground layer. */
static const ens_obj *s_point(const ens_doc *doc, const char *glyph) {
  const ens_obj *g = ens_glyph_find(doc, glyph);
  assert_non_null(g);
  for (size_t k = 0; k < ens_obj_child_count(g); k++) {
    const ens_obj *l = ens_obj_child(g, k);
    ens_value idx;
    if (strcmp(ens_obj_kind(l), ENS_SFD_LAYER) || ens_obj_get(l, "index", &idx) || idx.u.i != 1) continue;
    for (size_t c = 0; c < ens_obj_child_count(l); c++)
      if (!strcmp(ens_obj_kind(ens_obj_child(l, c)), ENS_SFD_CONTOUR)) return ens_obj_child(ens_obj_child(l, c), 1);
  }
  fail_msg("glyph %s has no contour", glyph);
  return NULL;
}

/* The glyph an object belongs to. */
static const ens_obj *s_glyph_of(const ens_obj *o) {
  while (o && strcmp(ens_obj_kind(o), ENS_SFD_GLYPH) != 0) o = ens_obj_parent(o);
  return o;
}

static size_t s_count_text(const unsigned char *text, size_t len, const char *needle) {
  size_t n = 0, nl = strlen(needle);
  for (size_t i = 0; i + nl <= len; i++) n += memcmp(text + i, needle, nl) == 0;
  return n;
}

/* The font bundled in tests/resources (a DejaVu subset). */
static ens_doc *s_read_bundled_font(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/fonts/DejaVuSans-ExtraLight-subset.sfd", tu_resources_dir());
  ens_doc *doc;
  if (ens_sfd_read_path(path, &doc)) fail_msg("%s: %s", path, ens_error_last());
  return doc;
}

/* References SVG keeps in text (href="#id", url(#id)) are references to
 * the merge when given ens_svg_refs: a use of a gradient the other side
 * deleted is a DELETE conflict, and the use goes with the gradient: the
 * attribute keeps the other side's value, a new <use> is not inserted. */
#define S_SVG_HEAD "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
#define S_SVG_DEFS(g1) "  <defs>\n" g1 "    <linearGradient id=\"g2\"/>\n  </defs>\n"
#define S_G1 "    <linearGradient id=\"g1\"/>\n"

static ens_doc *s_svg(const char *text) {
  ens_doc *doc;
  if (ens_svg_read(text, strlen(text), &doc) != 0) fail_msg("svg: %s", ens_error_last());
  return doc;
}

static void test_svg_references_in_text_go_with_what_they_name(void **state) {
  (void)state;
  const char *base_text = S_SVG_HEAD S_SVG_DEFS(S_G1) "  <rect id=\"r\" style=\"fill:red\"/>\n"
                          "  <rect id=\"s\" fill=\"blue\"/>\n</svg>\n";
  const char *ours_text = S_SVG_HEAD S_SVG_DEFS(S_G1) "  <rect id=\"r\" style=\"fill:url(#g1)\"/>\n"
                          "  <rect id=\"s\" fill=\"url(#g2)\"/>\n  <use id=\"u\" xlink:href=\"#g1\"/>\n"
                          "  <use id=\"v\" href=\"#s\"/>\n</svg>\n";
  const char *theirs_text = S_SVG_HEAD S_SVG_DEFS("") "  <rect id=\"r\" style=\"fill:red\"/>\n"
                            "  <rect id=\"s\" fill=\"blue\"/>\n</svg>\n";
  /* (the blank text ours wrote before the first <use> is an object of its
   * own, and names nothing: it stays) */
  const char *want = S_SVG_HEAD S_SVG_DEFS("") "  <rect id=\"r\" style=\"fill:red\"/>\n"
                     "  <rect id=\"s\" fill=\"url(#g2)\"/>\n  \n  <use id=\"v\" href=\"#s\"/>\n</svg>\n";
  for (int refs = 0; refs < 2; refs++) {
    for (int prefer = 0; prefer < 2; prefer++) {
      ens_doc *base = s_svg(base_text), *ours = s_svg(ours_text), *theirs = s_svg(theirs_text);
      ens_merge_opts opts = {ens_svg_identity, NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_KEY, (ens_merge_prefer)prefer,
                             refs ? ens_svg_refs : NULL, NULL};
      ens_merge *m;
      if (ens_merge3(base, ours, theirs, &opts, &m) != 0) fail_msg("merge: %s", ens_error_last());
      assert_int_equal(ens_doc_apply(theirs, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL), 0);
      unsigned char *text;
      size_t len;
      assert_int_equal(ens_svg_write(theirs, &text, &len), 0);
      if (refs) {
        assert_int_equal(ens_merge_conflict_count(m), 1);
        const ens_merge_conflict *c = ens_merge_conflict_at(m, 0);
        assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
        assert_string_equal(c->path, "svg[0]/defs[0]/linearGradient #g1");
        assert_int_equal(c->ours_kept, 0);
        if (len != strlen(want) || memcmp(text, want, len) != 0) fail_msg("merged:\n%.*s\nwant:\n%s", (int)len, text, want);
      } else {
        /* without the format's references, the merge cannot see them */
        assert_int_equal(ens_merge_conflict_count(m), 0);
        assert_int_equal(s_count_text(text, len, "#g1"), 2);
      }
      ens_free(text);
      ens_merge_free(m);
      ens_doc_free(base);
      ens_doc_free(ours);
      ens_doc_free(theirs);
    }
  }
}

/* Merges three SVG texts read from files (matched by keys) and returns the
 * merged text; *conflicts gets the count. */
static char *s_svg_merge(const char *b, const char *o, const char *t, size_t *conflicts) {
  ens_doc *base = s_svg(b), *ours = s_svg(o), *theirs = s_svg(t);
  ens_merge_opts opts = {ens_svg_identity, NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_KEY, ENS_MERGE_PREFER_OURS,
                         ens_svg_refs, NULL};
  ens_merge *m;
  if (ens_merge3(base, ours, theirs, &opts, &m) != 0) fail_msg("merge: %s", ens_error_last());
  assert_int_equal(ens_doc_apply(theirs, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL), 0);
  unsigned char *text;
  size_t len;
  assert_int_equal(ens_svg_write(theirs, &text, &len), 0);
  char *out = malloc(len + 1);
  assert_non_null(out);
  memcpy(out, text, len);
  out[len] = '\0';
  *conflicts = ens_merge_conflict_count(m);
  ens_free(text);
  ens_merge_free(m);
  ens_doc_free(base);
  ens_doc_free(ours);
  ens_doc_free(theirs);
  return out;
}

/* Both sides inserting the same unnamed objects (text, a rect without id)
 * at one place is one insert: taken once, as diff3 takes a change both
 * sides made. The same content at two different places is two inserts. */
static void test_same_insert_on_both_sides_is_taken_once(void **state) {
  (void)state;
  const char *base = S_SVG_HEAD "  <rect id=\"a\"/>\n  <rect id=\"b\"/>\n</svg>\n";
  const char *both = S_SVG_HEAD "  <rect id=\"a\"/>\n  <rect x=\"1\"/>\n  <rect id=\"b\"/>\n  <g><rect x=\"2\"/></g>\n</svg>\n";
  size_t conflicts;
  char *out = s_svg_merge(base, both, both, &conflicts);
  assert_int_equal(conflicts, 0);
  if (strcmp(out, both) != 0) fail_msg("merged:\n%s\nwant:\n%s", out, both);
  free(out);
  /* the same rect, after a on one side and after b on the other: both stay */
  const char *ours = S_SVG_HEAD "  <rect id=\"a\"/>\n  <rect x=\"1\"/>\n  <rect id=\"b\"/>\n</svg>\n";
  const char *theirs = S_SVG_HEAD "  <rect id=\"a\"/>\n  <rect id=\"b\"/>\n  <rect x=\"1\"/>\n</svg>\n";
  out = s_svg_merge(base, ours, theirs, &conflicts);
  assert_int_equal(s_count_text((unsigned char *)out, strlen(out), "<rect x=\"1\"/>"), 2);
  free(out);
  /* at one place but different: both stay, ours first */
  theirs = S_SVG_HEAD "  <rect id=\"a\"/>\n  <rect x=\"3\"/>\n  <rect id=\"b\"/>\n</svg>\n";
  out = s_svg_merge(base, ours, theirs, &conflicts);
  assert_int_equal(s_count_text((unsigned char *)out, strlen(out), "<rect x=\"1\"/>"), 1);
  assert_int_equal(s_count_text((unsigned char *)out, strlen(out), "<rect x=\"3\"/>"), 1);
  free(out);
}

/* The file mirror's case on a real font: the session (theirs, sharing
 * base's ids) changed some glyphs while the editor, holding base, changed
 * others and saved (ours, read from the saved file). Frees base. */
static void s_font_edited_two_ways(ens_doc *base) {
  ens_doc *editor = s_copy(base, 2), *theirs = s_copy(base, 3);
  int64_t wa = s_width(base, "A"), wb = s_width(base, "B"), we = s_width(base, "E");
  size_t cd = s_contours(base, "D");
  ens_glyph_node tri[3] = {{10, 10, 0, 0, 0, 0, 0}, {110, 10, 0, 0, 0, 0, 0}, {60, 90, 0, 0, 0, 0, 0}};
  ens_glyph_pt p0 = {0, 1};
  /* the editor: A wider, a contour in D, E to 600, G gone, a new glyph */
  S_DO(editor, ens_glyph_set_width(editor, "A", (int)wa + 10, &t_));
  S_DO(editor, ens_glyph_add_contour(editor, "D", tri, 3, 1, &t_));
  S_DO(editor, ens_glyph_set_width(editor, "E", 600, &t_));
  S_DO(editor, ens_glyph_remove(editor, "G", &t_));
  S_DO(editor, ens_glyph_add(editor, "merged", -1, 300, &t_));
  /* the session: B wider, a point of C moved, E to 700, a point of G moved,
   * the same new glyph with another width */
  S_DO(theirs, ens_glyph_set_width(theirs, "B", (int)wb + 20, &t_));
  S_DO(theirs, ens_glyph_move_points(theirs, "C", &p0, 1, 5, -5, &t_));
  S_DO(theirs, ens_glyph_set_width(theirs, "E", 700, &t_));
  S_DO(theirs, ens_glyph_move_points(theirs, "G", &p0, 1, 1, 1, &t_));
  S_DO(theirs, ens_glyph_add(theirs, "merged", -1, 350, &t_));
  ens_doc *ours = s_saved(editor, 0);
  ens_doc *c_theirs = s_copy(theirs, 3);
  ens_merge_opts opts = {ens_sfd_identity, NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_ID, ENS_MERGE_PREFER_OURS, NULL, NULL};
  ens_merge *m;
  if (ens_merge3(base, ours, theirs, &opts, &m) != 0) fail_msg("merge: %s", ens_error_last());
  assert_int_equal(ens_doc_apply(theirs, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL), 0);
  /* each side's own changes arrived */
  assert_int_equal(s_width(theirs, "A"), wa + 10);
  assert_int_equal(s_width(theirs, "B"), wb + 20);
  assert_int_equal(s_contours(theirs, "D"), cd + 1);
  ens_value x, x0;
  ens_obj_get(s_point(theirs, "C"), "x", &x);
  ens_obj_get(s_point(c_theirs, "C"), "x", &x0);
  assert_true(ens_value_equal(&x, &x0)); /* theirs' move of C's point stays */
  /* the conflicts: G deleted by ours and edited by theirs, E's width (and
   * the width of each composite bound to E by "use my metrics", which
   * follows E's on both sides), the new glyph's width; ours preferred */
  size_t nc = ens_merge_conflict_count(m), bound = 0;
  assert_true(nc >= 3);
  const ens_merge_conflict *c = ens_merge_conflict_at(m, 0);
  assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
  assert_string_equal(c->path, "glyph G");
  assert_int_equal(c->ours_kept, 1);
  assert_null(ens_glyph_find(theirs, "G"));
  for (size_t k = 1; k + 1 < nc; k++, bound++) {
    c = ens_merge_conflict_at(m, k);
    assert_int_equal(c->kind, ENS_CONFLICT_SET);
    assert_true(strncmp(c->path, "glyph ", 6) == 0);
    if (k == 1) assert_string_equal(c->path, "glyph E");
    assert_string_equal(c->key, "width");
    assert_int_equal(c->base.u.i, we);
    assert_int_equal(c->ours.u.i, 600);
    assert_int_equal(c->theirs.u.i, 700);
    assert_int_equal(s_width(theirs, c->path + 6), 600);
  }
  assert_true(bound >= 1);
  printf("%zu composite(s) bound to E by \"use my metrics\"\n", bound - 1);
  c = ens_merge_conflict_at(m, nc - 1);
  assert_int_equal(c->kind, ENS_CONFLICT_INSERT);
  assert_string_equal(c->path, "glyph merged");
  assert_string_equal(c->key, "width");
  assert_int_equal(s_width(theirs, "merged"), 300);
  /* the merged font writes, with one glyph named "merged", and reads back */
  unsigned char *text;
  size_t len;
  assert_int_equal(ens_sfd_write(theirs, &text, &len), 0);
  assert_int_equal(s_count_text(text, len, "StartChar: merged\n"), 1);
  assert_int_equal(s_count_text(text, len, "StartChar: G\n"), 0);
  ens_doc *back;
  assert_int_equal(ens_sfd_read(text, len, &back), 0);
  assert_int_equal(s_width(back, "A"), wa + 10);
  assert_int_equal(s_width(back, "B"), wb + 20);
  assert_int_equal(s_contours(back, "D"), cd + 1);
  ens_free(text);
  ens_doc_free(back);
  ens_merge_free(m);
  ens_doc_free(c_theirs);
  ens_doc_free(ours);
  ens_doc_free(editor);
  ens_doc_free(theirs);
  ens_doc_free(base);
}

static void test_a_font_edited_two_ways(void **state) {
  (void)state;
  s_font_edited_two_ways(s_read_bundled_font());
}

static void test_a_corpus_font_edited_two_ways(void **state) {
  (void)state;
  ens_doc *base = s_read_corpus("sfd/fontforge-tests/Ambrosia.sfd", 0);
  if (base) s_font_edited_two_ways(base);
}

/* An editor that does not reload saves its stale copy: diffing the save
 * against the session (what a mirror did) reverts the collaborator's
 * change; the merge with the editor's own version as base keeps it.
 * Frees base. */
static void s_stale_save_keeps_a_collaborators_change(ens_doc *base) {
  ens_doc *editor = s_copy(base, 2), *session = s_copy(base, 3);
  int64_t wa = s_width(base, "a"), wb = s_width(base, "b");
  S_DO(session, ens_glyph_set_width(session, "b", 751, &t_)); /* the collaborator */
  S_DO(editor, ens_glyph_set_width(editor, "a", (int)wa + 1, &t_));
  ens_doc *save = s_saved(editor, 0);
  /* the diff of the save against the session: b goes back */
  ens_doc *by_diff = s_copy(session, 3);
  ens_txn *t;
  assert_int_equal(ens_doc_diff(by_diff, save, ens_sfd_identity, NULL, &t), 0);
  s_apply(by_diff, t);
  assert_int_equal(s_width(by_diff, "b"), wb);
  /* the merge: both stay, no conflict */
  ens_merge_opts opts = {ens_sfd_identity, NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_ID, ENS_MERGE_PREFER_OURS, NULL, NULL};
  ens_merge *m;
  assert_int_equal(ens_merge3(base, save, session, &opts, &m), 0);
  assert_int_equal(ens_merge_conflict_count(m), 0);
  /* only what the editor's width edit changed: glyph a (its width and the
   * text kept for its head) and, where the font binds composites to a by
   * "use my metrics", their widths */
  assert_true(ens_txn_op_count(ens_merge_txn(m)) >= 1);
  int a_changed = 0;
  for (size_t k = 0; k < ens_txn_op_count(ens_merge_txn(m)); k++) {
    const ens_obj *g = s_glyph_of(ens_doc_get(session, ens_txn_op_target(ens_merge_txn(m), k)));
    assert_non_null(g);
    ens_value nv;
    assert_int_equal(ens_obj_get(g, "name", &nv), 0);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)nv.u.s.len, nv.u.s.ptr);
    a_changed |= !strcmp(name, "a");
    if (s_width(editor, name) == s_width(base, name)) fail_msg("the merge changes glyph %s, which the editor did not", name);
  }
  assert_true(a_changed);
  assert_int_equal(ens_doc_apply(session, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL), 0);
  assert_int_equal(s_width(session, "a"), wa + 1);
  assert_int_equal(s_width(session, "b"), 751);
  ens_merge_free(m);
  ens_doc_free(by_diff);
  ens_doc_free(save);
  ens_doc_free(editor);
  ens_doc_free(session);
  ens_doc_free(base);
}

static void test_a_stale_save_keeps_a_collaborators_change(void **state) {
  (void)state;
  s_stale_save_keeps_a_collaborators_change(s_read_bundled_font());
}

static void test_a_stale_save_of_a_corpus_font(void **state) {
  (void)state;
  ens_doc *base = s_read_corpus("sfd/fontforge-tests/Ambrosia.sfd", 0);
  if (base) s_stale_save_keeps_a_collaborators_change(base);
}

static const char *s_attr(const ens_doc *doc, const char *address, const char *name) {
  static char buf[256];
  const ens_obj *o = ens_svg_find(doc, address);
  ens_value v;
  if (!o || ens_obj_get(o, name, &v) != 0 || v.type != ENS_STR) return NULL;
  snprintf(buf, sizeof buf, "%.*s", (int)v.u.s.len, v.u.s.ptr);
  return buf;
}

/* Two drawings saved from one (the merge driver's case): both read from
 * files, matched by key. */
static void test_a_drawing_edited_two_ways(void **state) {
  (void)state;
  ens_doc *base = s_read_corpus("svg/librsvg/rsvg/tests/fixtures/reftests/svg1.1/struct-group-03-t.svg", 1);
  if (!base) return;
  ens_doc *a = s_copy(base, 2), *b = s_copy(base, 3);
  static const char rect[] = "<rect id=\"added\" width=\"5\" height=\"5\"/>";
  static const char circle[] = "<circle id=\"theirs-only\" r=\"3\"/>";
  S_DO(a, ens_svg_set_attr(a, "#propertyCell", "fill", "red", &t_));
  S_DO(a, ens_svg_set_attr(a, "#sampleCell", "fill", "blue", &t_));
  S_DO(a, ens_svg_insert(a, "#test-body-content", 0, rect, strlen(rect), &t_));
  S_DO(a, ens_svg_delete(a, "#revision", &t_));
  S_DO(b, ens_svg_translate(b, "#grid", 4, 2, &t_));
  S_DO(b, ens_svg_set_attr(b, "#sampleCell", "fill", "green", &t_));
  S_DO(b, ens_svg_insert(b, "#test-body-content", 0, rect, strlen(rect), &t_));
  S_DO(b, ens_svg_insert(b, "#test-body-content", -1, circle, strlen(circle), &t_));
  ens_doc *ours = s_saved(a, 1), *theirs = s_saved(b, 1);
  ens_merge_opts opts = {ens_svg_identity, NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_KEY, ENS_MERGE_PREFER_THEIRS, ens_svg_refs, NULL};
  ens_merge *m;
  if (ens_merge3(base, ours, theirs, &opts, &m) != 0) fail_msg("merge: %s", ens_error_last());
  assert_int_equal(ens_doc_apply(theirs, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL), 0);
  assert_int_equal(ens_merge_conflict_count(m), 1);
  const ens_merge_conflict *c = ens_merge_conflict_at(m, 0);
  assert_int_equal(c->kind, ENS_CONFLICT_SET);
  assert_string_equal(c->key, "fill");
  assert_int_equal(c->ours_kept, 0);
  assert_string_equal(s_attr(theirs, "#propertyCell", "fill"), "red");
  assert_string_equal(s_attr(theirs, "#sampleCell", "fill"), "green");
  assert_non_null(s_attr(theirs, "#grid", "transform"));
  assert_null(ens_svg_find(theirs, "#revision"));
  assert_non_null(ens_svg_find(theirs, "#theirs-only"));
  unsigned char *text;
  size_t len;
  assert_int_equal(ens_svg_write(theirs, &text, &len), 0);
  assert_int_equal(s_count_text(text, len, "id=\"added\""), 1); /* inserted by both: once */
  ens_doc *back;
  assert_int_equal(ens_svg_read(text, len, &back), 0);
  assert_string_equal(s_attr(back, "#propertyCell", "fill"), "red");
  ens_free(text);
  ens_doc_free(back);
  ens_merge_free(m);
  ens_doc_free(ours);
  ens_doc_free(theirs);
  ens_doc_free(a);
  ens_doc_free(b);
  ens_doc_free(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unchanged_ours_gives_an_empty_transaction),
      cmocka_unit_test(test_unchanged_theirs_gives_ours),
      cmocka_unit_test(test_changes_of_different_properties_are_both_kept),
      cmocka_unit_test(test_one_property_changed_two_ways_is_a_conflict_resolved_by_prefer),
      cmocka_unit_test(test_an_edit_of_what_theirs_deleted_is_dropped_and_reported),
      cmocka_unit_test(test_a_delete_of_what_theirs_edited_is_resolved_by_prefer),
      cmocka_unit_test(test_deletes_on_both_sides_agree),
      cmocka_unit_test(test_objects_both_sides_inserted_with_one_name_are_one_object),
      cmocka_unit_test(test_unnamed_objects_both_sides_inserted_are_both_kept),
      cmocka_unit_test(test_reorders_that_do_not_overlap_are_both_kept),
      cmocka_unit_test(test_reorders_that_overlap_are_a_conflict_resolved_by_prefer),
      cmocka_unit_test(test_moves_to_two_parents_are_a_conflict),
      cmocka_unit_test(test_moves_that_make_a_cycle_give_way),
      cmocka_unit_test(test_kept_text_is_merged_but_never_a_conflict_nor_an_edit),
      cmocka_unit_test(test_inserts_where_both_removed_what_was_there_are_both_kept),
      cmocka_unit_test(test_references_are_rewritten_to_theirs_ids),
      cmocka_unit_test(test_a_reference_to_what_theirs_deleted_goes_with_it),
      cmocka_unit_test(test_a_reference_to_what_ours_deleted_is_resolved_by_prefer),
      cmocka_unit_test(test_a_reference_base_had_to_what_one_side_deleted_is_no_conflict),
      cmocka_unit_test(test_a_conflicting_reference_to_what_is_deleted_keeps_the_other_value),
      cmocka_unit_test(test_a_reference_to_an_insert_that_goes_goes_too),
      cmocka_unit_test(test_what_a_kept_object_names_is_kept_with_it),
      cmocka_unit_test(test_svg_references_in_text_go_with_what_they_name),
      cmocka_unit_test(test_same_insert_on_both_sides_is_taken_once),
      cmocka_unit_test(test_a_move_into_what_theirs_deleted_leaves_the_object_where_theirs_has_it),
      cmocka_unit_test(test_a_move_into_what_ours_deleted_is_resolved_by_prefer),
      cmocka_unit_test(test_ours_inserting_under_what_theirs_moved_follows_the_move),
      cmocka_unit_test(test_local_properties_are_never_content),
      cmocka_unit_test(test_ours_matched_by_key_merges_like_ours_by_id),
      cmocka_unit_test(test_merging_is_deterministic),
      cmocka_unit_test(test_bad_arguments_are_refused),
      cmocka_unit_test(test_a_stale_save_keeps_a_collaborators_change),
      cmocka_unit_test(test_a_stale_save_of_a_corpus_font),
      cmocka_unit_test(test_a_font_edited_two_ways),
      cmocka_unit_test(test_a_corpus_font_edited_two_ways),
      cmocka_unit_test(test_a_drawing_edited_two_ways),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
