/* Randomised, seeded property tests of the semantic diff: random documents
 * and random edits of a copy. The transaction the diff writes turns the
 * old document into the new one's content; the change list is empty
 * exactly when the content is equal once noise is left out; and every
 * property that changed on an object kept with its id appears once.
 * Replay a failure with ENS_SEED=<seed printed>. */
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

enum { ROUNDS = 300, DOC_OBJECTS = 200 };

static int s_by_name(const ens_obj *obj, char *key, size_t size, void *user) {
  (void)user;
  ens_value v;
  if (ens_obj_get(obj, "name", &v) != 0 || v.type != ENS_STR) return 0;
  snprintf(key, size, "%.*s", (int)v.u.s.len, v.u.s.ptr);
  return 2;
}

/* "w" plays the editor's window state: never a change. */
static int s_noise(const ens_obj *obj, const char *key, ens_value a, ens_value b, void *user) {
  (void)obj;
  (void)a;
  (void)b;
  (void)user;
  return strcmp(key, "w") == 0;
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

/* The content hash of doc without its noise. */
static int s_strip(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  ens_value v;
  if (ens_obj_get(o, "w", &v) == 0) ens_txn_set(user, ens_obj_id(o), "w", ens_nil());
  return 0;
}

static uint64_t s_hash_without_noise(const ens_doc *doc) {
  ens_doc *c = s_copy(doc, 9);
  ens_txn *t = ens_txn_new("strip", NULL);
  ens_obj_walk(ens_doc_root(c), s_strip, t);
  assert_int_equal(ens_doc_apply(c, t, ENS_ORIGIN_LOCAL, NULL), 0);
  uint64_t h = ens_doc_content_hash(c);
  ens_txn_free(t);
  ens_doc_free(c);
  return h;
}

typedef struct {
  const ens_doc *a, *b;
  const ens_changes *c;
  size_t checked;
} s_check;

static size_t s_count_records(const ens_changes *c, ens_id id, const char *key) {
  size_t n = 0;
  for (size_t i = 0; i < ens_changes_count(c); i++) {
    const ens_change *ch = ens_changes_at(c, i);
    if ((ch->kind == ENS_CHANGE_SET || ch->kind == ENS_CHANGE_RENAMED) && ch->old_id == id && ch->new_id == id &&
        ch->key && strcmp(ch->key, key) == 0)
      n++;
  }
  return n;
}

/* Whether the change list pairs old id with new id (some record says so,
 * or the object has no record at all and so was kept as it was). */
static int s_paired_to_itself(const ens_changes *c, ens_id id) {
  for (size_t i = 0; i < ens_changes_count(c); i++) {
    const ens_change *ch = ens_changes_at(c, i);
    if ((ch->old_id == id) != (ch->new_id == id)) return 0;
  }
  return 1;
}

static int s_check_obj(const ens_obj *ob, size_t depth, void *user) {
  (void)depth;
  s_check *k = user;
  ens_id id = ens_obj_id(ob);
  const ens_obj *oa = ens_doc_get(k->a, id);
  if (!oa || strcmp(ens_obj_kind(oa), ens_obj_kind(ob)) != 0 || !s_paired_to_itself(k->c, id)) return 0;
  /* both sides' keys: each changed property once, unchanged ones never */
  for (int side = 0; side < 2; side++) {
    const ens_obj *o = side ? oa : ob;
    for (size_t i = 0; i < ens_obj_prop_count(o); i++) {
      const char *key;
      ens_value v, va, vb;
      ens_obj_prop_at(o, i, &key, &v);
      if (v.type == ENS_NIL || key[0] == '@' || strcmp(key, "w") == 0) continue;
      if (ens_obj_get(oa, key, &va) != 0) va = ens_nil();
      if (ens_obj_get(ob, key, &vb) != 0) vb = ens_nil();
      if (side && vb.type != ENS_NIL) continue; /* seen from b's side */
      size_t n = s_count_records(k->c, id, key);
      int changed = !ens_value_equal(&va, &vb);
      if (va.type == ENS_REF && vb.type == ENS_REF) continue; /* references: by what they name */
      if (n != (size_t)changed)
        fail_msg("object %llx key %s changed %d but reported %zu times", (unsigned long long)id, key, changed, n);
      k->checked++;
    }
  }
  return 0;
}

static void test_changes_properties(void **state) {
  (void)state;
  uint64_t seed = tu_seed("changes-properties", 1313);
  tu_rng r = {seed};
  size_t empty = 0, checked = 0, records = 0;
  for (int round = 0; round < ROUNDS; round++) {
    ens_doc *a = tu_random_doc(&r, 1, DOC_OBJECTS), *b = s_copy(a, 2);
    /* some rounds change nothing, some only noise, the rest anything */
    int mode = (int)tu_below(&r, 4);
    int edits = mode == 0 ? 0 : 1 + (int)tu_below(&r, 12);
    for (int e = 0; e < edits; e++) {
      ens_txn *t;
      if (mode == 1) {
        t = ens_txn_new("noise", NULL);
        ens_txn_set(t, tu_pick(&r, b, 1), "w", ens_int((int64_t)tu_below(&r, 1000)));
      } else {
        t = tu_random_txn(&r, b, 6);
      }
      ens_doc_apply(b, t, ENS_ORIGIN_LOCAL, NULL);
      ens_txn_free(t);
    }
    ens_changes_opts o = {s_by_name, NULL, s_noise, NULL};
    ens_changes *c = NULL;
    assert_int_equal(ens_changes_compute(a, b, &o, &c), 0);
    /* empty exactly when equal but for noise */
    int same = s_hash_without_noise(a) == s_hash_without_noise(b);
    if (same != (ens_changes_count(c) == 0))
      fail_msg("seed %llu round %d: content %s but %zu changes", (unsigned long long)seed, round,
               same ? "equal" : "differs", ens_changes_count(c));
    empty += same;
    records += ens_changes_count(c);
    /* the transaction, encoded and read back as `ensemble diff --txn`
     * writes it, turns a into b's content */
    ens_txn *t = NULL, *back = NULL;
    unsigned char *bytes;
    size_t len;
    assert_int_equal(ens_doc_diff(a, b, s_by_name, NULL, &t), 0);
    assert_int_equal(ens_txn_encode(t, &bytes, &len), 0);
    assert_int_equal(ens_txn_decode(bytes, len, &back), 0);
    ens_free(bytes);
    ens_txn_free(t);
    t = back;
    assert_int_equal(ens_doc_apply(a, t, ENS_ORIGIN_LOCAL, NULL), 0);
    assert_true(ens_doc_content_hash(a) == ens_doc_content_hash(b));
    ens_txn_free(t);
    ens_doc_free(a);
    ens_changes_free(c);
    ens_doc_free(b);
  }
  /* the per-property check runs on its own documents: a keeps its ids */
  for (int round = 0; round < ROUNDS; round++) {
    ens_doc *a = tu_random_doc(&r, 1, DOC_OBJECTS), *b = s_copy(a, 2);
    for (int e = 0; e < 8; e++) {
      ens_txn *t = tu_random_txn(&r, b, 6);
      ens_doc_apply(b, t, ENS_ORIGIN_LOCAL, NULL);
      ens_txn_free(t);
    }
    ens_changes_opts o = {s_by_name, NULL, s_noise, NULL};
    ens_changes *c = NULL;
    assert_int_equal(ens_changes_compute(a, b, &o, &c), 0);
    s_check k = {a, b, c, 0};
    ens_obj_walk(ens_doc_root(b), s_check_obj, &k);
    checked += k.checked;
    ens_changes_free(c);
    ens_doc_free(a);
    ens_doc_free(b);
  }
  printf("changes properties: seed %llu, %d rounds twice, %zu without changes, %zu records, %zu properties checked\n",
         (unsigned long long)seed, ROUNDS, empty, records, checked);
  assert_true(empty > 0 && empty < (size_t)ROUNDS);
  assert_true(checked > 1000);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_changes_properties)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
