/* Document diff on a synthetic kind: objects are identified among their
 * siblings by their "name" property. */
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

static int s_by_name(const ens_obj *obj, char *key, size_t size, void *user) {
  (void)user;
  ens_value v;
  if (ens_obj_get(obj, "name", &v) != 0 || v.type != ENS_STR) return 0;
  snprintf(key, size, "%.*s", (int)v.u.s.len, v.u.s.ptr);
  return 1;
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

static void test_identical_documents_diff_to_nothing(void **state) {
  (void)state;
  tu_rng r = {tu_seed("diff-identical", 3)};
  ens_doc *a = tu_random_doc(&r, 1, 500), *b = s_copy(a, 2);
  ens_txn *t;
  assert_int_equal(ens_doc_diff(a, b, s_by_name, NULL, &t), 0);
  assert_int_equal(ens_txn_op_count(t), 0);
  ens_txn_free(t);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_one_change_diffs_to_one_operation(void **state) {
  (void)state;
  tu_rng r = {tu_seed("diff-one", 4)};
  ens_doc *a = tu_random_doc(&r, 1, 500), *b = s_copy(a, 2);
  ens_id target = tu_pick(&r, b, 0);
  ens_txn *edit = ens_txn_new("edit", NULL), *t;
  ens_txn_set(edit, target, "width", ens_int(510));
  assert_int_equal(ens_doc_apply(b, edit, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_int_equal(ens_doc_diff(a, b, s_by_name, NULL, &t), 0);
  assert_int_equal(ens_txn_op_count(t), 1);
  assert_int_equal(ens_txn_op_kind(t, 0), ENS_OP_SET);
  assert_true(ens_txn_op_target(t, 0) == target);
  ens_txn_free(t);
  ens_txn_free(edit);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_reorder_moves_only_what_moved(void **state) {
  (void)state;
  ens_doc *a = ens_doc_new("test", 1), *b;
  ens_txn *t = ens_txn_new("build", NULL);
  char *pos = NULL, name[8];
  for (int i = 0; i < 10; i++) {
    char *next = ens_pos_between(pos, NULL);
    ens_free(pos);
    pos = next;
    snprintf(name, sizeof name, "n%d", i);
    ens_node_set(ens_txn_insert(t, ENS_ROOT_ID, pos, ens_doc_new_id(a), "item"), "name", ens_str(name));
  }
  ens_free(pos);
  assert_int_equal(ens_doc_apply(a, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  b = s_copy(a, 2);
  /* move the last item to the front in b */
  const ens_obj *last = ens_obj_child(ens_doc_root(b), 9);
  t = ens_txn_new("move", NULL);
  ens_txn_move(t, ens_obj_id(last), ENS_ROOT_ID, "0V");
  assert_int_equal(ens_doc_apply(b, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  assert_int_equal(ens_doc_diff(a, b, s_by_name, NULL, &t), 0);
  assert_int_equal(ens_txn_op_count(t), 1);
  assert_int_equal(ens_txn_op_kind(t, 0), ENS_OP_MOVE);
  assert_int_equal(ens_doc_apply(a, t, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_true(ens_doc_content_hash(a) == ens_doc_content_hash(b));
  ens_txn_free(t);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_unkeyed_documents_from_separate_loads(void **state) {
  (void)state;
  /* two documents built independently (different ids for the same
   * content) diff to nothing when keyed, and converge when not */
  tu_rng r1 = {99}, r2 = {99};
  ens_doc *a = tu_random_doc(&r1, 1, 300), *b = tu_random_doc(&r2, 5, 300);
  assert_true(ens_doc_hash(a) != ens_doc_hash(b));
  ens_txn *t;
  assert_int_equal(ens_doc_diff(a, b, s_by_name, NULL, &t), 0);
  assert_int_equal(ens_doc_apply(a, t, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_true(ens_doc_content_hash(a) == ens_doc_content_hash(b));
  ens_txn_free(t);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_kinds_must_match(void **state) {
  (void)state;
  ens_doc *a = ens_doc_new("font", 1), *b = ens_doc_new("svg", 1);
  ens_txn *t = NULL;
  assert_int_equal(ens_doc_diff(a, b, s_by_name, NULL, &t), ENS_EKIND);
  assert_null(t);
  ens_doc_free(a);
  ens_doc_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identical_documents_diff_to_nothing),
      cmocka_unit_test(test_one_change_diffs_to_one_operation),
      cmocka_unit_test(test_reorder_moves_only_what_moved),
      cmocka_unit_test(test_unkeyed_documents_from_separate_loads),
      cmocka_unit_test(test_kinds_must_match),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
