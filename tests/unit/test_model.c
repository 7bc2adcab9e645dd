/* Model: ids, fractional positions, child order, properties, schemas,
 * snapshots and the two document hashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

static ens_id s_insert(ens_doc *doc, ens_id parent, size_t index, const char *kind) {
  char *pos = NULL;
  assert_int_equal(ens_doc_pos_at(doc, parent, index, &pos), 0);
  ens_txn *t = ens_txn_new("insert", NULL);
  ens_id id = ens_doc_new_id(doc);
  assert_non_null(ens_txn_insert(t, parent, pos, id, kind));
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  ens_free(pos);
  return id;
}

static void test_ids_are_site_and_counter(void **state) {
  (void)state;
  ens_doc *doc = ens_doc_new("test", 42);
  ens_id a = ens_doc_new_id(doc), b = ens_doc_new_id(doc);
  assert_int_equal(ens_id_site(a), 42);
  assert_true(ens_id_counter(b) == ens_id_counter(a) + 1);
  assert_true(ens_doc_get(doc, ENS_ROOT_ID) == ens_doc_root(doc));
  assert_null(ens_doc_get(doc, a));
  ens_doc_free(doc);
  assert_null(ens_doc_new("test", ENS_SITE_MAX + 1));
  /* a site that used all its counters gets no id, never 0 or a reused one */
  doc = ens_doc_new("test", 0);
  ens_txn *t = ens_txn_new(NULL, NULL);
  ens_txn_insert(t, ENS_ROOT_ID, "V", ens_id_make(0, (((ens_id)1) << ENS_COUNTER_BITS) - 1), "x");
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_REMOTE, NULL), 0);
  assert_true(ens_doc_new_id(doc) == ENS_ID_NONE);
  assert_non_null(strstr(ens_error_last(), "used all its ids"));
  ens_txn_free(t);
  ens_doc_free(doc);
}

static void test_positions_sort_between_neighbours(void **state) {
  (void)state;
  tu_rng r = {tu_seed("positions", 7)};
  /* insert 2000 times at random places in a list of positions and check
   * each new one lands strictly between its neighbours and stays valid */
  enum { N = 2000 };
  char **list = calloc(N, sizeof *list);
  size_t n = 0;
  for (int i = 0; i < N; i++) {
    size_t at = tu_below(&r, (uint32_t)n + 1);
    const char *lo = at ? list[at - 1] : NULL, *hi = at < n ? list[at] : NULL;
    char *p = ens_pos_between(lo, hi);
    assert_non_null(p);
    assert_true(ens_pos_valid(p, strlen(p)));
    if (lo) assert_true(strcmp(lo, p) < 0);
    if (hi) assert_true(strcmp(p, hi) < 0);
    memmove(list + at + 1, list + at, (n - at) * sizeof *list);
    list[at] = p;
    n++;
  }
  /* always-at-front and always-at-back grow logarithmically */
  char *front = NULL, *back = NULL;
  for (int i = 0; i < 100000; i++) {
    char *f = ens_pos_between(NULL, front), *b = ens_pos_between(back, NULL);
    assert_true(f && b);
    if (front) assert_true(strcmp(f, front) < 0 && ens_pos_valid(f, strlen(f)));
    if (back) assert_true(strcmp(back, b) < 0 && ens_pos_valid(b, strlen(b)));
    ens_free(front);
    ens_free(back);
    front = f;
    back = b;
  }
  assert_true(strlen(front) <= 8 && strlen(back) <= 8);
  ens_free(front);
  ens_free(back);
  for (size_t i = 0; i < n; i++) ens_free(list[i]);
  free(list);
  assert_null(ens_pos_between("V", "V"));
  assert_null(ens_pos_between("k", "V"));
  assert_false(ens_pos_valid("V0", 2));
  assert_false(ens_pos_valid("V-", 2));
  assert_false(ens_pos_valid("", 0));
}

static void test_children_in_position_order(void **state) {
  (void)state;
  ens_doc *doc = ens_doc_new("test", 1);
  ens_id first = s_insert(doc, ENS_ROOT_ID, 0, "a");
  ens_id last = s_insert(doc, ENS_ROOT_ID, 1, "b");
  ens_id middle = s_insert(doc, ENS_ROOT_ID, 1, "c");
  const ens_obj *root = ens_doc_root(doc);
  assert_int_equal(ens_obj_child_count(root), 3);
  assert_true(ens_obj_id(ens_obj_child(root, 0)) == first);
  assert_true(ens_obj_id(ens_obj_child(root, 1)) == middle);
  assert_true(ens_obj_id(ens_obj_child(root, 2)) == last);
  assert_int_equal(ens_obj_index(ens_doc_get(doc, last)), 2);
  ens_doc_free(doc);
}

static void test_equal_positions_break_ties_by_id(void **state) {
  (void)state;
  ens_doc *doc = ens_doc_new("test", 1);
  ens_txn *t = ens_txn_new("concurrent inserts", NULL);
  ens_txn_insert(t, ENS_ROOT_ID, "V", ens_id_make(9, 1), "x");
  ens_txn_insert(t, ENS_ROOT_ID, "V", ens_id_make(3, 1), "x");
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_REMOTE, NULL), 0);
  const ens_obj *root = ens_doc_root(doc);
  assert_true(ens_obj_id(ens_obj_child(root, 0)) == ens_id_make(3, 1));
  assert_true(ens_obj_id(ens_obj_child(root, 1)) == ens_id_make(9, 1));
  /* between two tied siblings there is no position: a new one goes after
   * the tied run, and before what follows it */
  ens_txn_free(t);
  t = ens_txn_new(NULL, NULL);
  ens_txn_insert(t, ENS_ROOT_ID, "k", ens_id_make(3, 2), "x");
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_REMOTE, NULL), 0);
  char *pos = NULL;
  assert_int_equal(ens_doc_pos_at(doc, ENS_ROOT_ID, 1, &pos), 0);
  assert_true(strcmp(pos, "V") > 0 && strcmp(pos, "k") < 0);
  ens_free(pos);
  ens_txn_free(t);
  ens_doc_free(doc);
}

static void test_properties_typed(void **state) {
  (void)state;
  ens_doc *doc = ens_doc_new("test", 1);
  ens_id id = s_insert(doc, ENS_ROOT_ID, 0, "shape");
  ens_txn *t = ens_txn_new("props", NULL);
  ens_txn_set(t, id, "i", ens_int(-5));
  ens_txn_set(t, id, "r", ens_real(2.5));
  ens_txn_set(t, id, "s", ens_str("hello"));
  ens_txn_set(t, id, "b", ens_bytes("\0\1\2", 3));
  ens_txn_set(t, id, "t", ens_bool(1));
  ens_txn_set(t, id, "ref", ens_ref(ENS_ROOT_ID));
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  const ens_obj *o = ens_doc_get(doc, id);
  ens_value v;
  assert_int_equal(ens_obj_get(o, "i", &v), 0);
  assert_int_equal(v.type, ENS_INT);
  assert_int_equal(v.u.i, -5);
  assert_int_equal(ens_obj_get(o, "r", &v), 0);
  assert_true(v.type == ENS_REAL && v.u.r == 2.5);
  assert_int_equal(ens_obj_get(o, "s", &v), 0);
  assert_true(v.type == ENS_STR && v.u.s.len == 5 && memcmp(v.u.s.ptr, "hello", 5) == 0);
  assert_int_equal(ens_obj_get(o, "b", &v), 0);
  assert_true(v.type == ENS_BYTES && v.u.s.len == 3 && v.u.s.ptr[2] == 2);
  assert_int_equal(ens_obj_get(o, "t", &v), 0);
  assert_true(v.type == ENS_BOOL && v.u.b == 1);
  assert_int_equal(ens_obj_get(o, "ref", &v), 0);
  assert_true(v.type == ENS_REF && v.u.ref == ENS_ROOT_ID);
  assert_int_equal(ens_obj_prop_count(o), 6);
  assert_int_equal(ens_obj_get(o, "missing", &v), ENS_ENOTFOUND);
  /* removing a property: NIL */
  t = ens_txn_new("remove", NULL);
  ens_txn_set(t, id, "s", ens_nil());
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  assert_int_equal(ens_obj_get(o, "s", &v), ENS_ENOTFOUND);
  assert_int_equal(ens_obj_prop_count(o), 5);
  ens_doc_free(doc);
}

static void test_schema_rejects_wrong_kind_and_type(void **state) {
  (void)state;
  ens_schema *s = ens_schema_new();
  assert_int_equal(ens_schema_add_kind(s, "glyph", "font"), 0);
  assert_int_equal(ens_schema_add_kind(s, "point", "glyph"), 0);
  assert_int_equal(ens_schema_add_prop(s, "glyph", "width", ENS_INT), 0);
  ens_doc *doc = ens_doc_new("font", 1);
  ens_doc_set_schema(doc, s);
  uint64_t before = ens_doc_hash(doc);
  ens_txn *t = ens_txn_new("bad kind", NULL);
  ens_txn_insert(t, ENS_ROOT_ID, "V", ens_doc_new_id(doc), "point"); /* points live in glyphs */
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_EKIND);
  assert_non_null(strstr(ens_error_last(), "op 0 (insert"));
  ens_txn_free(t);
  ens_id g = ens_doc_new_id(doc);
  t = ens_txn_new("bad type", NULL);
  ens_node_set(ens_txn_insert(t, ENS_ROOT_ID, "V", g, "glyph"), "width", ens_int(500));
  ens_txn_set(t, g, "width", ens_str("wide"));
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_ETYPE);
  assert_non_null(strstr(ens_error_last(), "op 1 (set"));
  assert_true(ens_doc_hash(doc) == before);
  assert_int_equal(ens_doc_count(doc), 1);
  ens_txn_free(t);
  ens_doc_free(doc);
  ens_schema_free(s);
}

static void test_snapshot_round_trip(void **state) {
  (void)state;
  tu_rng r = {tu_seed("snapshot", 11)};
  ens_doc *doc = tu_random_doc(&r, 3, 1500);
  unsigned char *bytes;
  size_t len;
  assert_int_equal(ens_snapshot_encode(doc, &bytes, &len), 0);
  ens_doc *copy;
  assert_int_equal(ens_snapshot_decode(bytes, len, &copy), 0);
  assert_true(ens_doc_hash(copy) == ens_doc_hash(doc));
  assert_true(ens_doc_content_hash(copy) == ens_doc_content_hash(doc));
  assert_int_equal(ens_doc_count(copy), ens_doc_count(doc));
  /* every truncation is an error, never a crash */
  for (size_t cut = 0; cut < len; cut += 1 + cut / 3) {
    ens_doc *bad = NULL;
    assert_int_equal(ens_snapshot_decode(bytes, cut, &bad), ENS_EDECODE);
    assert_null(bad);
  }
  /* a joining replica takes its own site and never reuses an id */
  ens_doc_set_site(copy, 3);
  ens_id fresh = ens_doc_new_id(copy);
  assert_null(ens_doc_get(doc, fresh));
  ens_free(bytes);
  ens_doc_free(copy);
  ens_doc_free(doc);
}

static void test_hash_ignores_edit_order(void **state) {
  (void)state;
  ens_doc *a = ens_doc_new("test", 1), *b = ens_doc_new("test", 1);
  ens_txn *t1 = ens_txn_new(NULL, NULL), *t2 = ens_txn_new(NULL, NULL);
  ens_txn_insert(t1, ENS_ROOT_ID, "F", ens_id_make(1, 10), "x");
  ens_txn_insert(t2, ENS_ROOT_ID, "k", ens_id_make(1, 11), "y");
  ens_txn_set(t2, ENS_ROOT_ID, "title", ens_str("t"));
  assert_int_equal(ens_doc_apply(a, t1, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_int_equal(ens_doc_apply(a, t2, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_int_equal(ens_doc_apply(b, t2, ENS_ORIGIN_REMOTE, NULL), 0);
  assert_int_equal(ens_doc_apply(b, t1, ENS_ORIGIN_REMOTE, NULL), 0);
  assert_true(ens_doc_hash(a) == ens_doc_hash(b));
  /* a different value changes it */
  ens_txn *t3 = ens_txn_new(NULL, NULL);
  ens_txn_set(t3, ENS_ROOT_ID, "title", ens_str("u"));
  assert_int_equal(ens_doc_apply(b, t3, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_true(ens_doc_hash(a) != ens_doc_hash(b));
  ens_txn_free(t1);
  ens_txn_free(t2);
  ens_txn_free(t3);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_snapshot_leaves_local_only_properties_out(void **state) {
  (void)state;
  ens_doc *doc = ens_doc_new("test", 1);
  ens_id id = s_insert(doc, ENS_ROOT_ID, 0, "shape");
  ens_txn *sel = ens_txn_new("Select", NULL);
  ens_txn_set_local_only(sel, 1);
  ens_txn_set(sel, id, "@selected", ens_bool(1));
  assert_int_equal(ens_doc_apply(doc, sel, ENS_ORIGIN_LOCAL_ONLY, NULL), 0);
  ens_txn_free(sel);
  unsigned char *bytes;
  size_t len;
  ens_doc *copy;
  assert_int_equal(ens_snapshot_encode(doc, &bytes, &len), 0);
  /* a late joiner can still decode it, and gets no selection */
  assert_int_equal(ens_snapshot_decode(bytes, len, &copy), 0);
  ens_value v;
  assert_int_equal(ens_obj_get(ens_doc_get(copy, id), "@selected", &v), ENS_ENOTFOUND);
  assert_true(ens_doc_hash(copy) == ens_doc_hash(doc));
  ens_free(bytes);
  ens_doc_free(copy);
  ens_doc_free(doc);
}

static void test_decode_errors_point_at_the_bad_byte(void **state) {
  (void)state;
  unsigned char junk[100];
  memset(junk, 0xc1, sizeof junk); /* 0xc1 is never valid MessagePack */
  ens_doc *doc = NULL;
  assert_int_equal(ens_snapshot_decode(junk, sizeof junk, &doc), ENS_EDECODE);
  assert_non_null(strstr(ens_error_last(), "near byte 0"));
}

static void test_schema_parents_are_whole_names(void **state) {
  (void)state;
  ens_schema *s = ens_schema_new();
  assert_int_equal(ens_schema_add_kind(s, "glyph", "font"), 0);
  assert_int_equal(ens_schema_add_kind(s, "point", "contour glyph"), 0);
  ens_doc *doc = ens_doc_new("fon", 1); /* a prefix of an allowed parent is not one */
  ens_doc_set_schema(doc, s);
  ens_txn *t = ens_txn_new(NULL, NULL);
  ens_txn_insert(t, ENS_ROOT_ID, "V", ens_doc_new_id(doc), "glyph");
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_EKIND);
  ens_txn_free(t);
  ens_doc_free(doc);
  doc = ens_doc_new(" font", 1); /* odd kinds from a snapshot must not confuse the check */
  ens_doc_set_schema(doc, s);
  t = ens_txn_new(NULL, NULL);
  ens_txn_insert(t, ENS_ROOT_ID, "V", ens_doc_new_id(doc), "glyph");
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_EKIND);
  ens_txn_free(t);
  ens_doc_free(doc);
  ens_schema_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ids_are_site_and_counter),
      cmocka_unit_test(test_positions_sort_between_neighbours),
      cmocka_unit_test(test_children_in_position_order),
      cmocka_unit_test(test_equal_positions_break_ties_by_id),
      cmocka_unit_test(test_properties_typed),
      cmocka_unit_test(test_schema_rejects_wrong_kind_and_type),
      cmocka_unit_test(test_snapshot_round_trip),
      cmocka_unit_test(test_hash_ignores_edit_order),
      cmocka_unit_test(test_snapshot_leaves_local_only_properties_out),
      cmocka_unit_test(test_decode_errors_point_at_the_bad_byte),
      cmocka_unit_test(test_schema_parents_are_whole_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
