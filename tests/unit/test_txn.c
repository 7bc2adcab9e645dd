/* Transactions: validation with the failing operation named, atomicity,
 * inverses, the wire encoding and the JSON dump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

/* root -> a -> b -> c, root -> d */
static ens_doc *s_chain(void) {
  ens_doc *doc = ens_doc_new("test", 1);
  ens_txn *t = ens_txn_new("build", NULL);
  ens_node *a = ens_txn_insert(t, ENS_ROOT_ID, "F", ens_id_make(1, 10), "group");
  ens_node *b = ens_node_add_child(a, "V", ens_id_make(1, 11), "group");
  ens_node_add_child(b, "V", ens_id_make(1, 12), "shape");
  ens_node_set(ens_txn_insert(t, ENS_ROOT_ID, "k", ens_id_make(1, 13), "shape"), "fill", ens_str("red"));
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  return doc;
}

static void s_expect_rejected(ens_doc *doc, ens_txn *t, int code, const char *names) {
  uint64_t before = ens_doc_hash(doc);
  size_t count = ens_doc_count(doc);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), code);
  if (!strstr(ens_error_last(), names)) fail_msg("error '%s' lacks '%s'", ens_error_last(), names);
  assert_true(ens_doc_hash(doc) == before);
  assert_int_equal(ens_doc_count(doc), count);
  ens_txn_free(t);
}

static void test_invalid_operations_leave_the_document_untouched(void **state) {
  (void)state;
  ens_doc *doc = s_chain();
  ens_txn *t;

  t = ens_txn_new("cycle", NULL); /* a under its own grandchild */
  ens_txn_set(t, ens_id_make(1, 13), "fill", ens_str("blue"));
  ens_txn_move(t, ens_id_make(1, 10), ens_id_make(1, 12), "V");
  s_expect_rejected(doc, t, ENS_ECYCLE, "op 1 (move");

  t = ens_txn_new("self parent", NULL);
  ens_txn_move(t, ens_id_make(1, 10), ens_id_make(1, 10), "V");
  s_expect_rejected(doc, t, ENS_ECYCLE, "op 0 (move");

  t = ens_txn_new("unknown id", NULL);
  ens_txn_set(t, ens_id_make(1, 13), "fill", ens_str("blue"));
  ens_txn_delete(t, ens_id_make(1, 11));
  ens_txn_set(t, ens_id_make(1, 12), "x", ens_int(1)); /* deleted just before */
  s_expect_rejected(doc, t, ENS_ENOTFOUND, "op 2 (set");

  t = ens_txn_new("duplicate id", NULL);
  ens_txn_insert(t, ENS_ROOT_ID, "V", ens_id_make(1, 12), "shape");
  s_expect_rejected(doc, t, ENS_EEXISTS, "op 0 (insert");

  t = ens_txn_new("bad position", NULL);
  ens_txn_move(t, ens_id_make(1, 13), ENS_ROOT_ID, "V0");
  s_expect_rejected(doc, t, ENS_EINVAL, "bad position");

  t = ens_txn_new("delete root", NULL);
  ens_txn_delete(t, ENS_ROOT_ID);
  s_expect_rejected(doc, t, ENS_EINVAL, "root");

  t = ens_txn_new("insert with a duplicate inside", NULL);
  ens_node *n = ens_txn_insert(t, ENS_ROOT_ID, "z", ens_id_make(1, 50), "group");
  ens_node_add_child(n, "V", ens_id_make(1, 51), "shape");
  ens_node_add_child(n, "k", ens_id_make(1, 51), "shape");
  s_expect_rejected(doc, t, ENS_EEXISTS, "op 0 (insert");
  assert_null(ens_doc_get(doc, ens_id_make(1, 50)));

  ens_doc_free(doc);
}

static void test_deep_nesting_is_bounded(void **state) {
  (void)state;
  ens_doc *doc = ens_doc_new("test", 1);
  ens_txn *t = ens_txn_new("deep", NULL);
  ens_node *n = ens_txn_insert(t, ENS_ROOT_ID, "V", ens_doc_new_id(doc), "g");
  for (int i = 0; i < 1200; i++) n = ens_node_add_child(n, "V", ens_doc_new_id(doc), "g");
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_ELIMIT);
  assert_int_equal(ens_doc_count(doc), 1);
  ens_txn_free(t);
  ens_doc_free(doc);
}

static void test_apply_then_inverse_restores(void **state) {
  (void)state;
  ens_doc *doc = s_chain();
  uint64_t before = ens_doc_hash(doc);
  ens_txn *t = ens_txn_new("mixed", "alice"), *inv;
  ens_txn_set(t, ens_id_make(1, 13), "fill", ens_str("blue"));
  ens_txn_set(t, ens_id_make(1, 13), "stroke", ens_real(1.5));
  ens_txn_move(t, ens_id_make(1, 12), ENS_ROOT_ID, "s");
  ens_txn_delete(t, ens_id_make(1, 10));
  ens_node_set(ens_txn_insert(t, ens_id_make(1, 13), "V", ens_id_make(1, 60), "point"), "x", ens_int(3));
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, &inv), 0);
  assert_int_equal(ens_txn_op_count(inv), 5);
  assert_string_equal(ens_txn_label(inv), "mixed");
  assert_null(ens_doc_get(doc, ens_id_make(1, 11)));
  assert_true(ens_doc_hash(doc) != before);
  ens_txn *again;
  assert_int_equal(ens_doc_apply(doc, inv, ENS_ORIGIN_LOCAL, &again), 0);
  assert_true(ens_doc_hash(doc) == before);
  /* the inverse of the inverse does the edit again */
  assert_int_equal(ens_doc_apply(doc, again, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_null(ens_doc_get(doc, ens_id_make(1, 10)));
  assert_non_null(ens_doc_get(doc, ens_id_make(1, 60)));
  ens_txn_free(again);
  ens_txn_free(inv);
  ens_txn_free(t);
  ens_doc_free(doc);
}

static void test_encode_decode_round_trip(void **state) {
  (void)state;
  ens_txn *t = ens_txn_new("Everything", "alice");
  ens_txn_set(t, ens_id_make(3, 1), "i", ens_int(-123456789012LL));
  ens_txn_set(t, ens_id_make(3, 1), "r", ens_real(-0.25));
  ens_txn_set(t, ens_id_make(3, 1), "s", ens_str("ünïcode \"quoted\""));
  ens_txn_set(t, ens_id_make(3, 1), "b", ens_bytes("\x00\xff", 2));
  ens_txn_set(t, ens_id_make(3, 1), "t", ens_bool(0));
  ens_txn_set(t, ens_id_make(3, 1), "ref", ens_ref(ens_id_make(ENS_SITE_MAX, 99)));
  ens_txn_set(t, ens_id_make(3, 1), "gone", ens_nil());
  ens_node *n = ens_txn_insert(t, ENS_ROOT_ID, "V", ens_id_make(3, 2), "contour");
  ens_node_set(n, "closed", ens_bool(1));
  ens_node_set(ens_node_add_child(n, "V", ens_id_make(3, 3), "point"), "x", ens_real(1e300));
  ens_txn_delete(t, ens_id_make(3, 9));
  ens_txn_move(t, ens_id_make(3, 2), ens_id_make(3, 8), "Vk");
  unsigned char *bytes, *bytes2;
  size_t len, len2;
  assert_int_equal(ens_txn_encode(t, &bytes, &len), 0);
  ens_txn *d;
  assert_int_equal(ens_txn_decode(bytes, len, &d), 0);
  assert_int_equal(ens_txn_encode(d, &bytes2, &len2), 0);
  assert_int_equal(len, len2);
  assert_memory_equal(bytes, bytes2, len);
  char *j1 = ens_txn_to_json(t), *j2 = ens_txn_to_json(d);
  assert_string_equal(j1, j2);
  assert_non_null(strstr(j1, "\"op\":\"move\""));
  assert_non_null(strstr(j1, "\\\"quoted\\\""));
  assert_non_null(strstr(j1, "{\"ref\":\"16777215:99\"}"));
  /* a single-property transaction is small on the wire */
  ens_txn *small = ens_txn_new(NULL, NULL);
  unsigned char *sb;
  size_t sl;
  ens_txn_set(small, ens_id_make(1, 5000), "p3", ens_int(1234));
  assert_int_equal(ens_txn_encode(small, &sb, &sl), 0);
  assert_true(sl <= 24);
  /* every truncation and a bad version are errors */
  for (size_t cut = 0; cut < len; cut++) {
    ens_txn *bad = NULL;
    assert_int_equal(ens_txn_decode(bytes, cut, &bad), ENS_EDECODE);
    assert_null(bad);
  }
  bytes[1] = 9;
  ens_txn *bad = NULL;
  assert_int_equal(ens_txn_decode(bytes, len, &bad), ENS_EDECODE);
  assert_non_null(strstr(ens_error_last(), "version"));
  ens_free(sb);
  ens_txn_free(small);
  ens_free(j1);
  ens_free(j2);
  ens_free(bytes);
  ens_free(bytes2);
  ens_txn_free(d);
  ens_txn_free(t);
}

static void test_decode_refuses_hostile_shapes(void **state) {
  (void)state;
  /* [1, "", "", [[0, 0, "k", 1]]]: object id 0 */
  const unsigned char zero_id[] = {0x94, 0x01, 0xa0, 0xa0, 0x91, 0x94, 0x00, 0x00, 0xa1, 'k', 0x01};
  /* [1, "", "", [[0, 5, "@sel", true]]]: a local-only key on the wire */
  const unsigned char local[] = {0x94, 0x01, 0xa0, 0xa0, 0x91, 0x94, 0x00, 0x05, 0xa4, '@', 's', 'e', 'l', 0xc3};
  /* an array claiming 2^32-1 operations in a few bytes */
  const unsigned char huge[] = {0x94, 0x01, 0xa0, 0xa0, 0xdd, 0xff, 0xff, 0xff, 0xff, 0x90};
  /* [1, "", "", [[7, 5]]]: unknown operation */
  const unsigned char unknown[] = {0x94, 0x01, 0xa0, 0xa0, 0x91, 0x92, 0x07, 0x05};
  const struct {
    const unsigned char *p;
    size_t n;
  } cases[] = {{zero_id, sizeof zero_id}, {local, sizeof local}, {huge, sizeof huge}, {unknown, sizeof unknown}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ens_txn *t = NULL;
    assert_int_equal(ens_txn_decode(cases[i].p, cases[i].n, &t), ENS_EDECODE);
    assert_null(t);
  }
}

static void test_failed_apply_restores_a_document_its_schema_refuses(void **state) {
  (void)state;
  /* a document loaded before the schema was attached holds a kind the
   * schema does not know; a failed transaction must still leave it whole */
  ens_doc *doc = s_chain();
  ens_schema *schema = ens_schema_new();
  ens_schema_add_kind(schema, "group", "test group");
  ens_doc_set_schema(doc, schema);
  uint64_t before = ens_doc_hash(doc);
  ens_txn *t = ens_txn_new("delete then fail", NULL);
  ens_txn_delete(t, ens_id_make(1, 13)); /* a "shape": not in the schema */
  ens_txn_delete(t, ENS_ROOT_ID);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_REMOTE, NULL), ENS_EINVAL);
  assert_non_null(ens_doc_get(doc, ens_id_make(1, 13)));
  assert_true(ens_doc_hash(doc) == before);
  ens_txn_free(t);
  ens_doc_free(doc);
  ens_schema_free(schema);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_invalid_operations_leave_the_document_untouched),
      cmocka_unit_test(test_deep_nesting_is_bounded),
      cmocka_unit_test(test_apply_then_inverse_restores),
      cmocka_unit_test(test_encode_decode_round_trip),
      cmocka_unit_test(test_decode_refuses_hostile_shapes),
      cmocka_unit_test(test_failed_apply_restores_a_document_its_schema_refuses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
