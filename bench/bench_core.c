/* Core benchmarks W1-W4 (the same workloads as bench/peers/peers.mjs runs
 * on Yjs, Automerge and Loro): transactions local and remote, a drag of
 * alternating overwrites, snapshots of 100,100 objects, undo and redo.
 * Prints progress to stderr and one JSON object to stdout. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ensemble.h"

static double s_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t s_heap(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

static void s_die(const char *what) {
  fprintf(stderr, "bench: %s: %s\n", what, ens_error_last());
  exit(1);
}

static const char *s_keys[10] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"};

/* W1's document: objects 0..n-1 under the root, each with p0..p9 = i*10+k. */
static ens_doc *s_w1_doc(int n, ens_id *ids) {
  ens_doc *doc = ens_doc_new("bench", 1);
  ens_txn *t = ens_txn_new("build", NULL);
  for (int i = 0; i < n; i++) {
    char *pos = ens_pos_seq((size_t)i, (size_t)n);
    ids[i] = ens_doc_new_id(doc);
    ens_node *node = ens_txn_insert(t, ENS_ROOT_ID, pos, ids[i], "object");
    for (int k = 0; k < 10; k++) ens_node_set(node, s_keys[k], ens_int((int64_t)i * 10 + k));
    ens_free(pos);
  }
  if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL)) s_die("build W1");
  ens_txn_free(t);
  return doc;
}

static ens_doc *s_copy(const ens_doc *doc, uint32_t site) {
  unsigned char *bytes;
  size_t len;
  ens_doc *copy;
  if (ens_snapshot_encode(doc, &bytes, &len) || ens_snapshot_decode(bytes, len, &copy)) s_die("copy");
  ens_free(bytes);
  ens_doc_set_site(copy, site);
  return copy;
}

typedef struct {
  unsigned char **msgs;
  size_t *lens;
  size_t n;
} s_outbox;

static void s_send(ens_doc *doc, const ens_event *ev, void *user) {
  (void)doc;
  s_outbox *o = user;
  if (!ev->sendable) return;
  if (ens_txn_encode(ev->txn, &o->msgs[o->n], &o->lens[o->n])) s_die("encode");
  o->n++;
}

static void s_w1(int n, int count) {
  ens_id *ids = malloc(n * sizeof *ids);
  ens_doc *a = s_w1_doc(n, ids), *b = s_copy(a, 2);
  ens_undo *undo = ens_undo_new(a, 0);
  s_outbox out = {calloc(count, sizeof(unsigned char *)), calloc(count, sizeof(size_t)), 0};
  ens_doc_observe(a, s_send, &out);
  /* local: what an editor does per user action: build the transaction,
   * commit it through its undo manager, encode it for the session */
  double t0 = s_now();
  for (int j = 0; j < count; j++) {
    ens_txn *t = ens_txn_new(NULL, NULL);
    ens_txn_set(t, ids[(int64_t)j * 7919 % n], s_keys[j % 10], ens_int(j));
    if (ens_undo_commit(undo, t)) s_die("W1 local");
    ens_txn_free(t);
  }
  double local = s_now() - t0;
  size_t bytes = 0;
  for (size_t j = 0; j < out.n; j++) bytes += out.lens[j];
  /* remote: decode and apply each on the second replica */
  t0 = s_now();
  for (size_t j = 0; j < out.n; j++) {
    ens_txn *t;
    if (ens_txn_decode(out.msgs[j], out.lens[j], &t) || ens_doc_apply(b, t, ENS_ORIGIN_REMOTE, NULL)) s_die("W1 remote");
    ens_txn_free(t);
  }
  double remote = s_now() - t0;
  if (ens_doc_hash(a) != ens_doc_hash(b)) s_die("W1 replicas differ");
  printf("\"W1\": {\"local_tps\": %.0f, \"remote_tps\": %.0f, \"bytes_per_txn\": %.2f, \"count\": %d}", count / local,
         (double)out.n / remote, (double)bytes / (double)out.n, count);
  fprintf(stderr, "W1: local %.0f txn/s, remote %.0f txn/s, %.2f B/txn\n", count / local, out.n / remote,
          (double)bytes / (double)out.n);
  for (size_t j = 0; j < out.n; j++) ens_free(out.msgs[j]);
  free(out.msgs);
  free(out.lens);
  ens_undo_free(undo);
  ens_doc_free(a);
  ens_doc_free(b);
  free(ids);
}

static void s_w2(int count) {
  ens_doc *doc = ens_doc_new("bench", 1);
  ens_id id = ens_doc_new_id(doc);
  ens_txn *t = ens_txn_new(NULL, NULL);
  ens_node *node = ens_txn_insert(t, ENS_ROOT_ID, "V", id, "object");
  ens_node_set(node, "x", ens_int(0));
  ens_node_set(node, "y", ens_int(0));
  if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL)) s_die("W2 build");
  ens_txn_free(t);
  /* warm: one of each so both properties exist before measuring */
  size_t before = s_heap();
  double t0 = s_now();
  for (int i = 0; i < count; i++) {
    t = ens_txn_new(NULL, NULL);
    ens_txn_set(t, id, (i & 1) ? "y" : "x", ens_int(i));
    if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL)) s_die("W2");
    ens_txn_free(t);
  }
  double secs = s_now() - t0;
  long long growth = (long long)s_heap() - (long long)before;
  /* the same drag through an undo manager keeping its last 100 steps */
  ens_undo *undo = ens_undo_new(doc, 100);
  size_t before_undo = s_heap();
  for (int i = 0; i < count; i++) {
    t = ens_txn_new(NULL, NULL);
    ens_txn_set(t, id, (i & 1) ? "y" : "x", ens_int(i));
    if (ens_undo_commit(undo, t)) s_die("W2 undo");
    ens_txn_free(t);
  }
  long long growth_undo = (long long)s_heap() - (long long)before_undo;
  printf("\"W2\": {\"seconds\": %.4f, \"mem_growth_bytes\": %lld, \"mem_growth_with_undo100_bytes\": %lld, "
         "\"count\": %d, \"mem_note\": \"glibc heap in use (mallinfo2)\"}",
         secs, growth, growth_undo, count);
  fprintf(stderr, "W2: %d overwrites in %.3f s, heap growth %lld B (with a 100-step undo manager: %lld B)\n", count,
          secs, growth, growth_undo);
  ens_undo_free(undo);
  ens_doc_free(doc);
}

/* Reads every property of every object through the public API, as the
 * peers' "decode + read all" does: a sum that must come out exact. */
static double s_read_all(const ens_obj *o, size_t *count) {
  double sum = 0;
  for (size_t i = 0; i < ens_obj_prop_count(o); i++) {
    const char *key;
    ens_value v;
    ens_obj_prop_at(o, i, &key, &v);
    if (v.type == ENS_INT) sum += (double)v.u.i;
    else if (v.type == ENS_REAL) sum += v.u.r;
  }
  if (strcmp(ens_obj_kind(o), "object") == 0) (*count)++;
  for (size_t i = 0; i < ens_obj_child_count(o); i++) sum += s_read_all(ens_obj_child(o, i), count);
  return sum;
}

static void s_w3(void) {
  ens_doc *doc = ens_doc_new("bench", 1);
  char name[32];
  ens_txn *t = ens_txn_new("build", NULL);
  for (int g = 0; g < 100; g++) {
    char *gpos = ens_pos_seq((size_t)g, 100);
    ens_node *group = ens_txn_insert(t, ENS_ROOT_ID, gpos, ens_doc_new_id(doc), "group");
    snprintf(name, sizeof name, "g%d", g);
    ens_node_set(group, "n", ens_str(name));
    ens_free(gpos);
    for (int c = 0; c < 1000; c++) {
      int idx = g * 1000 + c;
      char *pos = ens_pos_seq((size_t)c, 1000);
      ens_node *kid = ens_node_add_child(group, pos, ens_doc_new_id(doc), "object");
      snprintf(name, sizeof name, "o%d", idx);
      ens_node_set(kid, "n", ens_str(name));
      ens_node_set(kid, "x", ens_int(idx));
      ens_node_set(kid, "y", ens_real(idx * 0.5));
      ens_free(pos);
    }
  }
  if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL)) s_die("W3 build");
  ens_txn_free(t);
  double enc = 1e9, dec = 1e9;
  size_t len = 0;
  for (int round = 0; round < 10; round++) {
    unsigned char *bytes;
    double t0 = s_now();
    if (ens_snapshot_encode(doc, &bytes, &len)) s_die("W3 encode");
    double t1 = s_now();
    ens_doc *copy;
    if (ens_snapshot_decode(bytes, len, &copy)) s_die("W3 decode");
    double t2 = s_now();
    ens_value v;
    if (ens_doc_count(copy) != 100101 || ens_obj_get(ens_obj_child(ens_obj_child(ens_doc_root(copy), 99), 999), "x", &v) ||
        v.u.i != 99999)
      s_die("W3 decoded document is wrong");
    if (t1 - t0 < enc) enc = t1 - t0;
    if (t2 - t1 < dec) dec = t2 - t1;
    ens_doc_free(copy);
    ens_free(bytes);
  }
  /* decode, then read every property of every object */
  unsigned char *bytes;
  ens_doc *copy;
  size_t count = 0;
  double t0 = s_now();
  if (ens_snapshot_encode(doc, &bytes, &len) != 0) s_die("W3 encode");
  double t1 = s_now();
  if (ens_snapshot_decode(bytes, len, &copy) != 0) s_die("W3 decode");
  double sum = s_read_all(ens_doc_root(copy), &count);
  double all = s_now() - t1;
  (void)t0;
  double n = 100000.0;
  if (count != 100000 || sum != (n * (n - 1) / 2) * 1.5) s_die("W3 full read is wrong");
  ens_doc_free(copy);
  ens_free(bytes);
  printf("\"W3\": {\"encode_s\": %.5f, \"decode_s\": %.5f, \"decode_read_all_s\": %.5f, \"bytes\": %zu, "
         "\"objects\": %zu}",
         enc, dec, all, len, ens_doc_count(doc) - 1);
  fprintf(stderr, "W3: %zu objects, encode %.2f ms, decode %.2f ms (and read all: %.2f ms), %zu bytes\n",
          ens_doc_count(doc) - 1, enc * 1e3, dec * 1e3, all * 1e3, len);
  ens_doc_free(doc);
}

static void s_w4(int n, int count) {
  ens_id *ids = malloc(n * sizeof *ids);
  ens_doc *doc = s_w1_doc(n, ids);
  uint64_t initial = ens_doc_hash(doc);
  ens_undo *undo = ens_undo_new(doc, 0);
  for (int j = 0; j < count; j++) {
    ens_txn *t = ens_txn_new(NULL, NULL);
    ens_txn_set(t, ids[(int64_t)j * 7919 % n], s_keys[j % 10], ens_int(j));
    if (ens_undo_commit(undo, t)) s_die("W4 commit");
    ens_txn_free(t);
  }
  uint64_t final = ens_doc_hash(doc);
  double t0 = s_now();
  for (int j = 0; j < count; j++)
    if (ens_undo_undo(undo, NULL)) s_die("W4 undo");
  double t1 = s_now();
  if (ens_doc_hash(doc) != initial) s_die("W4 undo did not restore the document");
  for (int j = 0; j < count; j++)
    if (ens_undo_redo(undo, NULL)) s_die("W4 redo");
  double t2 = s_now();
  if (ens_doc_hash(doc) != final) s_die("W4 redo did not restore the document");
  printf("\"W4\": {\"undo_tps\": %.0f, \"redo_tps\": %.0f, \"count\": %d}", count / (t1 - t0), count / (t2 - t1), count);
  fprintf(stderr, "W4: undo %.0f/s, redo %.0f/s\n", count / (t1 - t0), count / (t2 - t1));
  ens_undo_free(undo);
  ens_doc_free(doc);
  free(ids);
}

int main(int argc, char **argv) {
  int quick = 0;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) quick = 1;
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else {
      fprintf(stderr, "usage: bench_core [--quick] [--only W1|W2|W3|W4]\n"
                      "  the workloads of bench/README.md; JSON on stdout, progress on stderr\n");
      return 2;
    }
  }
  int div = quick ? 10 : 1, first = 1;
  printf("{\"ensemble\": {");
#define RUN(name, call)                          \
  if (!only || strcmp(only, name) == 0) {        \
    if (!first) printf(", ");                   \
    first = 0;                                   \
    call;                                        \
  }
  RUN("W1", s_w1(10000, 10000 / div));
  RUN("W2", s_w2(1000000 / div));
  RUN("W3", s_w3());
  RUN("W4", s_w4(10000, 10000 / div));
  printf("}}\n");
  return 0;
}
