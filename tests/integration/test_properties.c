/* Randomised, seeded property tests over documents of 1,000+ objects and
 * 10,000+ random transactions: apply then inverse, atomic failure, undo n /
 * redo n, snapshot round trip, diff, and two replicas exchanging encoded
 * transactions with undo and redo interleaved. Replay a failure with
 * ENS_SEED=<seed printed>. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "model/doc.h"
#include "testutil.h"

enum { DOC_OBJECTS = 1000, TXNS = 10000 };

/* Structure invariants: parent links, sorted children, id map size. */
static int s_check_obj(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  size_t *count = user;
  (*count)++;
  for (uint32_t i = 0; i < o->nkids; i++) {
    if (o->kids[i]->parent != o) fail_msg("child %u of %#llx has another parent", i, (unsigned long long)o->id);
    if (i && ens__place_cmp(ens_obj_pos(o->kids[i - 1]), o->kids[i - 1]->id, ens_obj_pos(o->kids[i]), o->kids[i]->id) >= 0)
      fail_msg("children of %#llx out of order at %u", (unsigned long long)o->id, i);
  }
  return 0;
}

static void s_check_invariants(const ens_doc *doc) {
  size_t count = 0;
  ens_obj_walk(ens_doc_root(doc), s_check_obj, &count);
  assert_int_equal(count, ens_doc_count(doc));
}

static void s_check_snapshot(const ens_doc *doc) {
  unsigned char *bytes;
  size_t len;
  ens_doc *copy;
  assert_int_equal(ens_snapshot_encode(doc, &bytes, &len), 0);
  assert_int_equal(ens_snapshot_decode(bytes, len, &copy), 0);
  assert_true(ens_doc_hash(copy) == ens_doc_hash(doc));
  assert_true(ens_doc_content_hash(copy) == ens_doc_content_hash(doc));
  ens_free(bytes);
  ens_doc_free(copy);
}

static void test_apply_then_inverse_gives_the_same_hash(void **state) {
  (void)state;
  tu_rng r = {tu_seed("apply-inverse", 20261203)};
  ens_doc *doc = tu_random_doc(&r, 1, DOC_OBJECTS);
  size_t applied = 0, rejected = 0, cycles = 0, missing = 0;
  for (int i = 0; i < TXNS; i++) {
    ens_txn *t = tu_random_txn(&r, doc, 5), *inv = NULL;
    uint64_t before = ens_doc_hash(doc);
    size_t count = ens_doc_count(doc);
    int rc = ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, &inv);
    if (rc) {
      /* rejected whole: nothing changed */
      rejected++;
      cycles += rc == ENS_ECYCLE;
      missing += rc == ENS_ENOTFOUND; /* edits of deleted or unknown objects */
      assert_null(inv);
      assert_true(ens_doc_hash(doc) == before);
      assert_int_equal(ens_doc_count(doc), count);
    } else {
      applied++;
      ens_txn *redo = NULL;
      assert_int_equal(ens_doc_apply(doc, inv, ENS_ORIGIN_LOCAL, &redo), 0);
      assert_true(ens_doc_hash(doc) == before);
      /* keep the document evolving: do it again through the inverse's inverse */
      assert_int_equal(ens_doc_apply(doc, redo, ENS_ORIGIN_LOCAL, NULL), 0);
      ens_txn_free(redo);
    }
    /* the wire form of every transaction decodes to the same bytes */
    unsigned char *b1, *b2;
    size_t l1, l2;
    ens_txn *d;
    assert_int_equal(ens_txn_encode(t, &b1, &l1), 0);
    assert_int_equal(ens_txn_decode(b1, l1, &d), 0);
    assert_int_equal(ens_txn_encode(d, &b2, &l2), 0);
    assert_true(l1 == l2 && memcmp(b1, b2, l1) == 0);
    ens_free(b1);
    ens_free(b2);
    ens_txn_free(d);
    ens_txn_free(inv);
    ens_txn_free(t);
    if (i % 1000 == 999) {
      s_check_invariants(doc);
      s_check_snapshot(doc);
    }
  }
  fprintf(stderr, "apply-inverse: %zu applied, %zu rejected (%zu cycles, %zu edits of missing objects), %zu objects at the end\n",
          applied, rejected, cycles, missing, ens_doc_count(doc));
  assert_true(applied > TXNS / 4 && rejected > TXNS / 20 && cycles > 10 && missing > 100);
  assert_true(ens_doc_count(doc) >= 500);
  ens_doc_free(doc);
}

static void test_undo_n_then_redo_n_gives_the_same_hash(void **state) {
  (void)state;
  tu_rng r = {tu_seed("undo-redo", 777)};
  ens_doc *doc = tu_random_doc(&r, 1, DOC_OBJECTS);
  ens_undo *undo = ens_undo_new(doc, 0);
  int attempts = 0;
  /* commits interleaved with undos and redos, then unwind completely */
  while (attempts < TXNS) {
    uint32_t dice = tu_below(&r, 10);
    if (dice < 2 && ens_undo_undo_count(undo)) {
      assert_int_equal(ens_undo_undo(undo, NULL), 0);
    } else if (dice < 3 && ens_undo_redo_count(undo)) {
      assert_int_equal(ens_undo_redo(undo, NULL), 0);
    } else {
      ens_txn *t = tu_random_txn(&r, doc, 4);
      ens_undo_commit(undo, t); /* rejected ones are not steps */
      ens_txn_free(t);
      attempts++;
    }
  }
  size_t n = ens_undo_undo_count(undo);
  uint64_t top = ens_doc_hash(doc);
  ens_undo_report rep;
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(ens_undo_undo(undo, &rep), 0);
    assert_int_equal(rep.skipped, 0); /* nobody else edited: nothing skipped */
    ens_undo_report_clear(&rep);
  }
  s_check_invariants(doc);
  for (size_t i = 0; i < n; i++) assert_int_equal(ens_undo_redo(undo, NULL), 0);
  assert_true(ens_doc_hash(doc) == top);
  fprintf(stderr, "undo-redo: %zu steps undone and redone\n", n);
  assert_true(n > 1000);
  ens_undo_free(undo);
  ens_doc_free(doc);
}

/* --- two replicas ------------------------------------------------------------- */

typedef struct {
  ens_doc *doc;
  ens_undo *undo;
  unsigned char *out; /* the last sendable transaction, encoded */
  size_t out_len;
  int sent;
} s_replica;

static void s_outbox(ens_doc *doc, const ens_event *ev, void *user) {
  (void)doc;
  s_replica *rep = user;
  if (!ev->sendable) return;
  assert_null(rep->out);
  assert_int_equal(ens_txn_encode(ev->txn, &rep->out, &rep->out_len), 0);
}

static void s_deliver(s_replica *from, s_replica *to) {
  if (!from->out) return;
  ens_txn *t;
  assert_int_equal(ens_txn_decode(from->out, from->out_len, &t), 0);
  if (ens_doc_apply(to->doc, t, ENS_ORIGIN_REMOTE, NULL) != 0)
    fail_msg("remote apply failed: %s", ens_error_last());
  ens_txn_free(t);
  ens_free(from->out);
  from->out = NULL;
  from->sent++;
}

static void test_two_replicas_with_undo_converge(void **state) {
  (void)state;
  tu_rng r = {tu_seed("two-replicas", 4242)};
  ens_doc *origin = tu_random_doc(&r, 9, DOC_OBJECTS);
  unsigned char *snap;
  size_t snap_len;
  assert_int_equal(ens_snapshot_encode(origin, &snap, &snap_len), 0);
  s_replica rep[2];
  memset(rep, 0, sizeof rep);
  for (int k = 0; k < 2; k++) {
    assert_int_equal(ens_snapshot_decode(snap, snap_len, &rep[k].doc), 0);
    ens_doc_set_site(rep[k].doc, (uint32_t)k + 1);
    rep[k].undo = ens_undo_new(rep[k].doc, 0);
    ens_doc_observe(rep[k].doc, s_outbox, &rep[k]);
  }
  size_t skipped = 0, undos = 0, nids;
  ens_id *ids = tu_all_ids(origin, &nids), hot[16];
  for (int k = 0; k < 16; k++) hot[k] = ids[1 + (size_t)k * (nids - 1) / 16];
  free(ids);
  for (int i = 0; i < TXNS; i++) {
    int k = (int)tu_below(&r, 2);
    s_replica *me = &rep[k], *other = &rep[1 - k];
    uint32_t dice = tu_below(&r, 10);
    ens_undo_report report;
    if (dice < 2 && ens_undo_undo_count(me->undo)) {
      assert_int_equal(ens_undo_undo(me->undo, &report), 0);
      skipped += report.skipped;
      undos++;
      ens_undo_report_clear(&report);
    } else if (dice < 3 && ens_undo_redo_count(me->undo)) {
      assert_int_equal(ens_undo_redo(me->undo, &report), 0);
      skipped += report.skipped;
      ens_undo_report_clear(&report);
    } else if (dice < 5) {
      /* both edit a few hot objects, so undo meets newer remote values */
      ens_txn *t = ens_txn_new("hot", NULL);
      static const char *keys[] = {"a", "b", "c"};
      ens_txn_set(t, hot[tu_below(&r, 16)], keys[tu_below(&r, 3)], ens_int(i));
      ens_undo_commit(me->undo, t); /* fails only if a hot object was deleted */
      ens_txn_free(t);
    } else {
      ens_txn *t = tu_random_txn(&r, me->doc, 4);
      ens_undo_commit(me->undo, t);
      ens_txn_free(t);
    }
    s_deliver(me, other);
    if (i % 100 == 0) assert_true(ens_doc_hash(rep[0].doc) == ens_doc_hash(rep[1].doc));
  }
  assert_true(ens_doc_hash(rep[0].doc) == ens_doc_hash(rep[1].doc));
  s_check_invariants(rep[0].doc);
  s_check_snapshot(rep[1].doc);
  fprintf(stderr, "two-replicas: sent %d + %d, %zu undos, %zu operations skipped by undo/redo\n", rep[0].sent,
          rep[1].sent, undos, skipped);
  assert_true(skipped > 0); /* the collaborator-wins rule was exercised */
  for (int k = 0; k < 2; k++) {
    ens_undo_free(rep[k].undo);
    ens_doc_free(rep[k].doc);
  }
  ens_free(snap);
  ens_doc_free(origin);
}

/* --- diff ------------------------------------------------------------------------- */

/* The name where there is one, else the position among the siblings (as a
 * format keys contours and points). */
static int s_by_name(const ens_obj *obj, char *key, size_t size, void *user) {
  (void)user;
  ens_value v;
  if (ens_obj_get(obj, "name", &v) == 0 && v.type == ENS_STR)
    snprintf(key, size, "n:%.*s", (int)v.u.s.len, v.u.s.ptr);
  else
    snprintf(key, size, "#%zu", ens_obj_index(obj));
  return 1;
}

static void test_applying_diff_a_b_to_a_gives_b(void **state) {
  (void)state;
  tu_rng r = {tu_seed("diff", 31337)};
  ens_doc *a = tu_random_doc(&r, 1, DOC_OBJECTS);
  size_t total_ops = 0, edits = 0;
  for (int round = 0; round < 100; round++) {
    /* b: a copy edited by another site with 100 random transactions */
    unsigned char *snap;
    size_t len;
    ens_doc *b;
    assert_int_equal(ens_snapshot_encode(a, &snap, &len), 0);
    assert_int_equal(ens_snapshot_decode(snap, len, &b), 0);
    ens_free(snap);
    ens_doc_set_site(b, 2);
    for (int i = 0; i < 100; i++) {
      ens_txn *t = tu_random_txn(&r, b, 3);
      edits += ens_doc_apply(b, t, ENS_ORIGIN_LOCAL, NULL) == 0;
      ens_txn_free(t);
    }
    ens_txn *diff;
    assert_int_equal(ens_doc_diff(a, b, s_by_name, NULL, &diff), 0);
    total_ops += ens_txn_op_count(diff);
    if (ens_doc_apply(a, diff, ENS_ORIGIN_LOCAL, NULL) != 0) fail_msg("diff did not apply: %s", ens_error_last());
    assert_true(ens_doc_content_hash(a) == ens_doc_content_hash(b));
    /* and now nothing is left to change */
    ens_txn *again;
    assert_int_equal(ens_doc_diff(a, b, s_by_name, NULL, &again), 0);
    if (ens_txn_op_count(again) != 0) {
      char *json = ens_txn_to_json(again);
      fail_msg("round %d: a second diff is not empty: %.400s", round, json);
    }
    ens_txn_free(again);
    ens_txn_free(diff);
    ens_doc_free(b);
  }
  s_check_invariants(a);
  fprintf(stderr, "diff: 100 rounds, %zu edits, %zu diff operations\n", edits, total_ops);
  ens_doc_free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_apply_then_inverse_gives_the_same_hash),
      cmocka_unit_test(test_undo_n_then_redo_n_gives_the_same_hash),
      cmocka_unit_test(test_two_replicas_with_undo_converge),
      cmocka_unit_test(test_applying_diff_a_b_to_a_gives_b),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
