/* Schema rules and the limits of ensemble/limits.h: a rule sees each
 * object a transaction touched once, as the transaction leaves it, with
 * what happened and the keys set; its refusal rolls everything back with
 * its code and reason; changes judged elsewhere apply unjudged. The
 * limits hold alike where transactions are built, applied and decoded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "txn/ops.h"

typedef struct {
  int calls;
  ens_id ids[16];
  unsigned what[16];
  size_t nkeys[16];
  int keys_listed[16];
  int refuse_odd; /* refuse an object whose "n" is odd */
} s_seen;

static int s_rule(const ens_doc *doc, const ens_obj *obj, const ens_touch *t, char *why, size_t n, void *user) {
  (void)doc;
  s_seen *s = user;
  if (s->calls < 16) {
    s->ids[s->calls] = ens_obj_id(obj);
    s->what[s->calls] = t->what;
    s->nkeys[s->calls] = t->nkeys;
    s->keys_listed[s->calls] = t->keys != NULL;
  }
  s->calls++;
  ens_value v;
  if (s->refuse_odd && ens_obj_get(obj, "n", &v) == 0 && v.type == ENS_INT && (v.u.i & 1)) {
    snprintf(why, n, "n is odd");
    return ENS_EFORMAT;
  }
  return 0;
}

typedef struct {
  ens_doc *doc;
  ens_schema *schema;
  s_seen seen;
  ens_id a, b;
} s_fix;

static int s_setup(void **state) {
  s_fix *f = calloc(1, sizeof *f);
  f->doc = ens_doc_new("test", 1);
  f->schema = ens_schema_new();
  ens_schema_allow_other_kinds(f->schema, 1);
  assert_int_equal(ens_schema_add_rule(f->schema, "item", s_rule, &f->seen), 0);
  ens_txn *t = ens_txn_new("build", NULL);
  f->a = ens_doc_new_id(f->doc);
  f->b = ens_doc_new_id(f->doc);
  ens_node_set(ens_txn_insert(t, ENS_ROOT_ID, "V", f->a, "item"), "n", ens_int(2));
  ens_node_set(ens_txn_insert(t, ENS_ROOT_ID, "k", f->b, "item"), "n", ens_int(4));
  assert_int_equal(ens_doc_apply(f->doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  ens_doc_set_schema(f->doc, f->schema);
  *state = f;
  return 0;
}

static int s_teardown(void **state) {
  s_fix *f = *state;
  ens_doc_free(f->doc);
  ens_schema_free(f->schema);
  free(f);
  return 0;
}

static void test_a_rule_sees_each_touched_object_once_with_its_keys(void **state) {
  s_fix *f = *state;
  ens_txn *t = ens_txn_new("t", NULL);
  ens_txn_set(t, f->a, "n", ens_int(6));
  ens_txn_set(t, f->a, "m", ens_int(1));
  ens_txn_set(t, f->a, "n", ens_int(8));
  ens_txn_set(t, f->b, "n", ens_int(10));
  assert_int_equal(ens_doc_apply(f->doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  assert_int_equal(f->seen.calls, 2);
  assert_int_equal(f->seen.ids[0], f->a);
  assert_int_equal(f->seen.what[0], ENS_TOUCH_PROPS);
  assert_true(f->seen.keys_listed[0]);
  assert_int_equal(f->seen.nkeys[0], 2); /* n once, m once */
  assert_int_equal(f->seen.ids[1], f->b);
  assert_int_equal(f->seen.nkeys[1], 1);
}

static void test_a_refusal_rolls_back_every_operation(void **state) {
  s_fix *f = *state;
  f->seen.refuse_odd = 1;
  uint64_t h = ens_doc_hash(f->doc);
  ens_txn *t = ens_txn_new("t", NULL);
  ens_txn_set(t, f->a, "n", ens_int(12));
  ens_txn_delete(t, f->b);
  ens_node_set(ens_txn_insert(t, ENS_ROOT_ID, "z", ens_doc_new_id(f->doc), "item"), "n", ens_int(3));
  assert_int_equal(ens_doc_apply(f->doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_EFORMAT);
  assert_string_equal(ens_error_last(), "n is odd");
  assert_int_equal(ens_doc_hash(f->doc), h);
  assert_int_equal(ens_doc_count(f->doc), 3);
  /* a single operation is rolled back too */
  f->seen.calls = 0;
  ens_txn_free(t);
  t = ens_txn_new("t", NULL);
  ens_txn_set(t, f->a, "n", ens_int(7));
  assert_int_equal(ens_doc_apply(f->doc, t, ENS_ORIGIN_REMOTE, NULL), ENS_EFORMAT);
  assert_int_equal(ens_doc_hash(f->doc), h);
  /* judged elsewhere: applies as it is */
  assert_int_equal(ens__doc_apply_unchecked(f->doc, t, ENS_ORIGIN_REMOTE, NULL), 0);
  assert_int_not_equal(ens_doc_hash(f->doc), h);
  ens_txn_free(t);
}

static void test_the_state_at_the_end_is_judged_not_each_step(void **state) {
  s_fix *f = *state;
  f->seen.refuse_odd = 1;
  ens_txn *t = ens_txn_new("t", NULL);
  ens_txn_set(t, f->a, "n", ens_int(1)); /* odd on the way */
  ens_txn_set(t, f->a, "n", ens_int(14));
  assert_int_equal(ens_doc_apply(f->doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  /* an object inserted then deleted in one transaction is not asked about */
  f->seen.calls = 0;
  ens_id c = ens_doc_new_id(f->doc);
  t = ens_txn_new("t", NULL);
  ens_node_set(ens_txn_insert(t, ENS_ROOT_ID, "z", c, "item"), "n", ens_int(5));
  ens_txn_delete(t, c);
  assert_int_equal(ens_doc_apply(f->doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_int_equal(f->seen.calls, 0);
  ens_txn_free(t);
}

static void test_an_undo_is_judged_as_a_whole(void **state) {
  s_fix *f = *state;
  ens_undo *u = ens_undo_new(f->doc, 0);
  ens_txn *t = ens_txn_new("t", NULL);
  ens_txn_set(t, f->a, "n", ens_int(3)); /* odd, while allowed */
  assert_int_equal(ens_undo_commit(u, t), 0);
  ens_txn_free(t);
  t = ens_txn_new("t", NULL);
  ens_txn_set(t, f->a, "n", ens_int(16));
  assert_int_equal(ens_undo_commit(u, t), 0);
  ens_txn_free(t);
  f->seen.refuse_odd = 1;
  uint64_t h = ens_doc_hash(f->doc);
  assert_int_equal(ens_undo_undo(u, NULL), ENS_EFORMAT); /* back to 3: refused */
  assert_int_equal(ens_doc_hash(f->doc), h);
  f->seen.refuse_odd = 0;
  assert_int_equal(ens_undo_undo(u, NULL), 0);
  ens_undo_free(u);
}

/* --- limits ------------------------------------------------------------------------------ */

static char *s_long(size_t n) {
  char *s = malloc(n + 1);
  memset(s, 'k', n);
  s[n] = '\0';
  return s;
}

static char *s_dup_long(const char *s) {
  char *c = malloc(strlen(s) + 1);
  strcpy(c, s);
  return c;
}

static void test_builders_refuse_what_is_over_the_limits(void **state) {
  (void)state;
  char *key = s_long(ENS_MAX_KEY + 1), *kind = s_long(ENS_MAX_KIND + 1), *label = s_long(ENS_MAX_LABEL + 1);
  char *pos = s_long(ENS_MAX_POS + 1);
  pos[ENS_MAX_POS] = 'V';
  assert_null(ens_txn_new(label, NULL));
  assert_null(ens_txn_new(NULL, label));
  ens_txn *t = ens_txn_new("ok", NULL);
  assert_int_equal(ens_txn_set_label(t, label), ENS_ELIMIT);
  assert_int_equal(ens_txn_set(t, 1, key, ens_int(1)), ENS_ELIMIT);
  assert_int_equal(ens_txn_move(t, 2, 1, pos), ENS_ELIMIT);
  assert_null(ens_txn_insert(t, 1, "V", 2, kind));
  assert_null(ens_txn_insert(t, 1, pos, 2, "k"));
  ens_node *n = ens_txn_insert(t, 1, "V", 2, "k");
  assert_int_equal(ens_node_set(n, key, ens_int(1)), ENS_ELIMIT);
  assert_null(ens_node_add_child(n, "V", 3, kind));
  assert_null(ens_doc_new(kind, 1));
  /* at the limits exactly: accepted */
  key[ENS_MAX_KEY] = '\0';
  kind[ENS_MAX_KIND] = '\0';
  assert_int_equal(ens_txn_set(t, 1, key, ens_int(1)), 0);
  assert_non_null(ens_node_add_child(n, "V", 3, kind));
  ens_txn_free(t);
  free(key);
  free(kind);
  free(label);
  free(pos);
}

/* A transaction made past the builders (as a decoder of another make
 * could): apply refuses it, and its encoding does not decode. */
static void test_apply_and_the_decoder_hold_the_same_limits(void **state) {
  (void)state;
  ens_doc *doc = ens_doc_new("test", 1);
  ens_txn *t = ens_txn_new("t", NULL);
  assert_int_equal(ens_txn_set(t, ENS_ROOT_ID, "k", ens_int(1)), 0);
  free(t->ops[0].str);
  t->ops[0].str = s_long(ENS_MAX_KEY + 1);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_ELIMIT);
  unsigned char *bytes;
  size_t len;
  assert_int_equal(ens_txn_encode(t, &bytes, &len), 0);
  ens_txn *back = NULL;
  assert_int_equal(ens_txn_decode(bytes, len, &back), ENS_EDECODE);
  ens_free(bytes);
  ens_txn_free(t);
  t = ens_txn_new("t", NULL);
  ens_node *n = ens_txn_insert(t, ENS_ROOT_ID, "V", ens_doc_new_id(doc), "k");
  free(n->kind);
  n->kind = s_long(ENS_MAX_KIND + 1);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_ELIMIT);
  assert_int_equal(ens_txn_encode(t, &bytes, &len), 0);
  assert_int_equal(ens_txn_decode(bytes, len, &back), ENS_EDECODE);
  ens_free(bytes);
  ens_txn_free(t);
  /* a position over the limit, in an insert and in a move */
  char *pos = s_long(ENS_MAX_POS + 1);
  pos[ENS_MAX_POS] = 'V';
  t = ens_txn_new("t", NULL);
  n = ens_txn_insert(t, ENS_ROOT_ID, "V", ens_doc_new_id(doc), "k");
  free(n->pos);
  n->pos = s_dup_long(pos);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_ELIMIT);
  assert_int_equal(ens_txn_encode(t, &bytes, &len), 0);
  assert_int_equal(ens_txn_decode(bytes, len, &back), ENS_EDECODE);
  ens_free(bytes);
  ens_txn_free(t);
  ens_id child = ens_doc_new_id(doc);
  t = ens_txn_new("t", NULL);
  assert_non_null(ens_txn_insert(t, ENS_ROOT_ID, "V", child, "k"));
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  t = ens_txn_new("t", NULL);
  assert_int_equal(ens_txn_move(t, child, ENS_ROOT_ID, "W"), 0);
  free(t->ops[0].str);
  t->ops[0].str = s_dup_long(pos);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_ELIMIT);
  ens_txn_free(t);
  free(pos);
  /* a label and an author over the limits */
  for (int author = 0; author < 2; author++) {
    t = ens_txn_new("t", NULL);
    assert_int_equal(ens_txn_set(t, ENS_ROOT_ID, "k", ens_int(2)), 0);
    char **text = author ? &t->author : &t->label;
    free(*text);
    *text = s_long(author ? ENS_MAX_AUTHOR + 1 : ENS_MAX_LABEL + 1);
    assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), ENS_ELIMIT);
    assert_int_equal(ens_txn_encode(t, &bytes, &len), 0);
    assert_int_equal(ens_txn_decode(bytes, len, &back), ENS_EDECODE);
    ens_free(bytes);
    ens_txn_free(t);
  }
  assert_int_equal(ens_doc_count(doc), 2);
  ens_value v;
  assert_int_equal(ens_obj_get(ens_doc_root(doc), "k", &v), ENS_ENOTFOUND);
  ens_doc_free(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_a_rule_sees_each_touched_object_once_with_its_keys, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_a_refusal_rolls_back_every_operation, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_the_state_at_the_end_is_judged_not_each_step, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_an_undo_is_judged_as_a_whole, s_setup, s_teardown),
      cmocka_unit_test(test_builders_refuse_what_is_over_the_limits),
      cmocka_unit_test(test_apply_and_the_decoder_hold_the_same_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
