/* Writes the seed corpora of the fuzz targets: real encodings made by the
 * library itself, so that fuzzing starts from valid snapshots and
 * transactions rather than having to discover the format. Deterministic:
 * running it again rewrites the same bytes. Not part of the build; see
 * docs/fuzzing.md for how to build and run it:
 *
 *   cc -std=gnu11 -Iinclude tests/fuzz/make_seeds.c build/libensemble.a -lm -o /tmp/make_seeds
 *   /tmp/make_seeds tests/fuzz/corpus
 *
 * The transactions are written against the fixed document of fuzzlib.h
 * (ids 1..7), so most of them apply in fuzz_txn_decode; a few are meant to
 * fail (cycles, missing objects, the root) to seed the rollback paths. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ensemble.h"
#include "fuzzlib.h"

#define MAX_SEED 4096

static const char *s_root;
static int s_count[2];

static void s_die(const char *what) {
  fprintf(stderr, "make_seeds: %s: %s\n", what, ens_error_last());
  exit(1);
}

static void s_write(const char *dir, const char *name, const unsigned char *p, size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s/%s", s_root, dir, name);
  if (n > MAX_SEED) {
    fprintf(stderr, "make_seeds: %s is %zu bytes, over %d\n", path, n, MAX_SEED);
    exit(1);
  }
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "make_seeds: %s: %s\n", path, strerror(errno));
    exit(1);
  }
  printf("%6zu  %s\n", n, path);
}

/* --- snapshots ----------------------------------------------------------- */

static void s_snap(ens_doc *doc, const char *name) {
  unsigned char *b;
  size_t n;
  if (ens_snapshot_encode(doc, &b, &n)) s_die(name);
  ens_doc *back = NULL;
  if (ens_snapshot_decode(b, n, &back)) s_die("a seed snapshot does not decode");
  ens_doc_free(back);
  char file[256];
  snprintf(file, sizeof file, "snap-%s.bin", name);
  s_write("fuzz_snapshot_decode", file, b, n);
  ens_free(b);
  s_count[0]++;
  ens_doc_free(doc);
}

static void s_apply(ens_doc *doc, ens_txn *t) {
  if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL)) s_die("apply");
  ens_txn_free(t);
}

/* Insert a child of kind under parent at the end, through a transaction;
 * returns its id. */
static ens_id s_add(ens_doc *doc, ens_id parent, const char *kind) {
  const ens_obj *p = ens_doc_get(doc, parent);
  char *pos = NULL;
  if (!p || ens_doc_pos_at(doc, parent, ens_obj_child_count(p), &pos)) s_die("pos_at");
  ens_id id = ens_doc_new_id(doc);
  ens_txn *t = ens_txn_new("add", NULL);
  if (!ens_txn_insert(t, parent, pos, id, kind)) s_die("insert");
  s_apply(doc, t);
  ens_free(pos);
  return id;
}

static void s_set(ens_doc *doc, ens_id id, const char *key, ens_value v) {
  ens_txn *t = ens_txn_new(NULL, NULL);
  if (ens_txn_set(t, id, key, v)) s_die("set");
  s_apply(doc, t);
}

static void s_snapshots(void) {
  static const unsigned char bytes[] = {0x00, 0xff, 0xc0, 0xc1, 0x92, 0xde, 0xad, 0xbe, 0xef};
  char big[1200];
  for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('a' + i % 26);

  /* the root alone, in a few document kinds */
  s_snap(ens_doc_new("drawing", 1), "empty");
  s_snap(ens_doc_new("g", 0), "empty-short-kind");
  {
    char kind[256];
    memset(kind, 'K', 255);
    kind[255] = '\0';
    s_snap(ens_doc_new(kind, 3), "empty-longest-kind");
  }

  /* the fixture transactions are written against */
  s_snap(fz_fixture_doc(), "fixture");

  /* every value type on the root */
  {
    ens_doc *d = ens_doc_new("drawing", 2);
    s_set(d, ENS_ROOT_ID, "int", ens_int(42));
    s_set(d, ENS_ROOT_ID, "neg", ens_int(-7));
    s_set(d, ENS_ROOT_ID, "min", ens_int(INT64_MIN));
    s_set(d, ENS_ROOT_ID, "max", ens_int(INT64_MAX));
    s_set(d, ENS_ROOT_ID, "i16", ens_int(-300));
    s_set(d, ENS_ROOT_ID, "u32", ens_int(4000000000LL));
    s_set(d, ENS_ROOT_ID, "real", ens_real(3.25));
    s_set(d, ENS_ROOT_ID, "str", ens_str("hello"));
    s_set(d, ENS_ROOT_ID, "empty", ens_str(""));
    s_set(d, ENS_ROOT_ID, "bytes", ens_bytes(bytes, sizeof bytes));
    s_set(d, ENS_ROOT_ID, "nobytes", ens_bytes("", 0));
    s_set(d, ENS_ROOT_ID, "yes", ens_bool(1));
    s_set(d, ENS_ROOT_ID, "no", ens_bool(0));
    s_set(d, ENS_ROOT_ID, "self", ens_ref(ENS_ROOT_ID));
    s_set(d, ENS_ROOT_ID, "dangling", ens_ref(ens_id_make(99, 12345)));
    s_snap(d, "root-every-type");
  }

  /* reals on the edges */
  {
    ens_doc *d = ens_doc_new("drawing", 2);
    ens_id o = s_add(d, ENS_ROOT_ID, "num");
    s_set(d, o, "zero", ens_real(0.0));
    s_set(d, o, "negzero", ens_real(-0.0));
    s_set(d, o, "huge", ens_real(1e308));
    s_set(d, o, "tiny", ens_real(5e-324));
    s_set(d, o, "inf", ens_real(INFINITY));
    s_set(d, o, "ninf", ens_real(-INFINITY));
    s_set(d, o, "nan", ens_real(NAN));
    s_snap(d, "reals");
  }

  /* long strings and bytes (str8/str16, bin8/bin16) */
  {
    ens_doc *d = ens_doc_new("drawing", 2);
    ens_id o = s_add(d, ENS_ROOT_ID, "text");
    s_set(d, o, "s31", ens_strn(big, 31));
    s_set(d, o, "s32", ens_strn(big, 32));
    s_set(d, o, "s255", ens_strn(big, 255));
    s_set(d, o, "s256", ens_strn(big, 256));
    s_set(d, o, "b300", ens_bytes(big, 300));
    s_snap(d, "long-strings");
  }
  {
    ens_doc *d = ens_doc_new("drawing", 2);
    ens_id o = s_add(d, ENS_ROOT_ID, "text");
    s_set(d, o, "s", ens_strn(big, sizeof big));
    s_set(d, o, "utf8", ens_str("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"));
    s_set(d, o, "nul", ens_strn("a\0b", 3));
    s_set(d, o, "ctl", ens_str("tab\tnl\n\"q\"\\"));
    s_snap(d, "strings-odd");
  }

  /* nested objects with properties, refs between them */
  {
    ens_doc *d = ens_doc_new("drawing", 5);
    ens_id l = s_add(d, ENS_ROOT_ID, "layer");
    ens_id g = s_add(d, l, "group");
    ens_id r = s_add(d, g, "rect");
    ens_id t = s_add(d, g, "text");
    ens_id l2 = s_add(d, ENS_ROOT_ID, "layer");
    s_set(d, l, "name", ens_str("one"));
    s_set(d, l2, "name", ens_str("two"));
    s_set(d, r, "x", ens_int(1));
    s_set(d, r, "y", ens_int(2));
    s_set(d, r, "link", ens_ref(t));
    s_set(d, t, "s", ens_str("label"));
    s_set(d, t, "size", ens_real(9.5));
    s_set(d, t, "owner", ens_ref(l2));
    s_snap(d, "nested");
  }

  /* deep-ish chains */
  {
    ens_doc *d = ens_doc_new("drawing", 1);
    ens_id p = ENS_ROOT_ID;
    for (int i = 0; i < 40; i++) p = s_add(d, p, "g");
    s_set(d, p, "leaf", ens_bool(1));
    s_snap(d, "chain-40");
  }
  {
    ens_doc *d = ens_doc_new("d", 0);
    ens_id p = ENS_ROOT_ID;
    for (int i = 0; i < 300; i++) p = s_add(d, p, "g");
    s_snap(d, "chain-300");
  }

  /* wide: many children, positions growing at the front and the back */
  {
    ens_doc *d = ens_doc_new("drawing", 1);
    for (int i = 0; i < 60; i++) s_add(d, ENS_ROOT_ID, i % 3 ? "rect" : "path");
    s_snap(d, "wide-60");
  }
  {
    ens_doc *d = ens_doc_new("drawing", 1);
    for (int i = 0; i < 40; i++) {
      char *pos = NULL;
      if (ens_doc_pos_at(d, ENS_ROOT_ID, 0, &pos)) s_die("pos_at");
      ens_txn *t = ens_txn_new(NULL, NULL);
      ens_txn_insert(t, ENS_ROOT_ID, pos, ens_doc_new_id(d), "p");
      s_apply(d, t);
      ens_free(pos);
    }
    s_snap(d, "front-inserts");
  }

  /* siblings with equal positions (ordered by id), long positions */
  {
    ens_doc *d = ens_doc_new("drawing", 4);
    ens_txn *t = ens_txn_new("ties", NULL);
    ens_txn_insert(t, ENS_ROOT_ID, "V", ens_id_make(4, 9), "a");
    ens_txn_insert(t, ENS_ROOT_ID, "V", ens_id_make(4, 3), "a");
    ens_txn_insert(t, ENS_ROOT_ID, "V", ens_id_make(2, 100), "a");
    ens_txn_insert(t, ENS_ROOT_ID, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz1",
                   ens_id_make(4, 10), "a");
    ens_txn_insert(t, ENS_ROOT_ID, "00000000000000000000000000000001", ens_id_make(4, 11), "a");
    s_apply(d, t);
    s_snap(d, "equal-and-long-positions");
  }

  /* ids at the edges of sites and counters */
  {
    ens_doc *d = ens_doc_new("drawing", ENS_SITE_MAX);
    ens_txn *t = ens_txn_new(NULL, NULL);
    ens_txn_insert(t, ENS_ROOT_ID, "1", ens_id_make(ENS_SITE_MAX, (1ULL << 40) - 1), "big");
    ens_txn_insert(t, ENS_ROOT_ID, "2", ens_id_make(0, 2), "small");
    ens_txn_insert(t, ENS_ROOT_ID, "3", ens_id_make(1, 0), "counter0");
    ens_txn_insert(t, ENS_ROOT_ID, "4", ens_id_make(0, (1ULL << 40) - 2), "site0");
    ens_txn_insert(t, ENS_ROOT_ID, "5", ens_id_make(ENS_SITE_MAX, 1), "sitemax");
    s_apply(d, t);
    s_set(d, ENS_ROOT_ID, "ref", ens_ref(UINT64_MAX));
    s_snap(d, "edge-ids");
  }

  /* many kinds and keys: tables longer than 15 (array16) */
  {
    ens_doc *d = ens_doc_new("drawing", 1);
    for (int i = 0; i < 20; i++) {
      char kind[16], key[16];
      snprintf(kind, sizeof kind, "k%d", i);
      snprintf(key, sizeof key, "p%d", i);
      ens_id o = s_add(d, ENS_ROOT_ID, kind);
      s_set(d, o, key, ens_int(i));
    }
    s_snap(d, "many-names");
  }
  /* an object with more than 15 properties (map16) */
  {
    ens_doc *d = ens_doc_new("drawing", 1);
    ens_id o = s_add(d, ENS_ROOT_ID, "bag");
    for (int i = 0; i < 18; i++) {
      char key[16];
      snprintf(key, sizeof key, "q%02d", i);
      s_set(d, o, key, i % 2 ? ens_int(i) : ens_bool(i % 4 == 0));
    }
    s_snap(d, "many-props");
  }

  /* a document that went through deletes, moves and removed properties */
  {
    ens_doc *d = fz_fixture_doc();
    ens_txn *t = ens_txn_new("edit", NULL);
    ens_txn_delete(t, 5);
    ens_txn_move(t, 4, 3, "z");
    ens_txn_set(t, 2, "name", ens_nil());
    ens_txn_set(t, 7, "s", ens_str("moved"));
    s_apply(d, t);
    s_snap(d, "after-edits");
  }
  /* the same kind for the root and its children; kinds with odd bytes */
  {
    ens_doc *d = ens_doc_new("drawing", 1);
    ens_id a = s_add(d, ENS_ROOT_ID, "drawing");
    s_add(d, a, "drawing");
    s_add(d, ENS_ROOT_ID, "kind with spaces");
    s_add(d, ENS_ROOT_ID, " ");
    s_add(d, ENS_ROOT_ID, "@local-looking-kind");
    s_add(d, ENS_ROOT_ID, "\xc3\xa9t\xc3\xa9");
    s_snap(d, "odd-kinds");
  }
  /* mixed: a small realistic drawing */
  {
    ens_doc *d = ens_doc_new("svg", 11);
    s_set(d, ENS_ROOT_ID, "width", ens_real(640));
    s_set(d, ENS_ROOT_ID, "height", ens_real(480));
    ens_id defs = s_add(d, ENS_ROOT_ID, "defs");
    ens_id grad = s_add(d, defs, "linearGradient");
    s_set(d, grad, "id", ens_str("g1"));
    ens_id layer = s_add(d, ENS_ROOT_ID, "g");
    s_set(d, layer, "label", ens_str("Layer 1"));
    for (int i = 0; i < 6; i++) {
      ens_id r = s_add(d, layer, i % 2 ? "rect" : "circle");
      s_set(d, r, "x", ens_int(i * 10));
      s_set(d, r, "fill", ens_ref(grad));
      s_set(d, r, "opacity", ens_real(i / 6.0));
    }
    s_snap(d, "svg-like");
  }
  /* every MessagePack integer width, on both sides of each boundary */
  {
    static const int64_t ints[] = {0, 127, 128, 255, 256, 65535, 65536, 4294967295LL, 4294967296LL,
                                   -1, -32, -33, -128, -129, -32768, -32769, INT32_MIN, (int64_t)INT32_MIN - 1};
    ens_doc *d = ens_doc_new("drawing", 1);
    ens_id o = s_add(d, ENS_ROOT_ID, "ints");
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
      char key[16];
      snprintf(key, sizeof key, "i%zu", i);
      s_set(d, o, key, ens_int(ints[i]));
    }
    s_snap(d, "int-widths");
  }
  /* bytes on the bin8 / bin16 boundary */
  {
    ens_doc *d = ens_doc_new("drawing", 1);
    ens_id o = s_add(d, ENS_ROOT_ID, "blob");
    s_set(d, o, "b255", ens_bytes(big, 255));
    s_set(d, o, "b256", ens_bytes(big, 256));
    s_set(d, o, "b1", ens_bytes(big, 1));
    s_snap(d, "bytes-widths");
  }
  /* one child; many children (array16 object list) */
  {
    ens_doc *d = ens_doc_new("drawing", 1);
    s_add(d, ENS_ROOT_ID, "only");
    s_snap(d, "single-child");
  }
  {
    ens_doc *d = ens_doc_new("d", 1);
    for (int i = 0; i < 200; i++) s_add(d, ENS_ROOT_ID, "p");
    s_snap(d, "wide-200");
  }
  /* two siblings subtrees with many refs across them */
  {
    ens_doc *d = ens_doc_new("graph", 6);
    ens_id nodes[12];
    for (int i = 0; i < 12; i++) nodes[i] = s_add(d, i < 6 ? ENS_ROOT_ID : nodes[i - 6], "node");
    for (int i = 0; i < 12; i++) s_set(d, nodes[i], "next", ens_ref(nodes[(i + 5) % 12]));
    s_snap(d, "refs");
  }
}

/* --- transactions ---------------------------------------------------------- */

static void s_tx(ens_txn *t, const char *name) {
  unsigned char *b;
  size_t n;
  if (ens_txn_encode(t, &b, &n)) s_die(name);
  ens_txn *back = NULL;
  if (ens_txn_decode(b, n, &back)) s_die("a seed transaction does not decode");
  ens_txn_free(back);
  char file[256];
  snprintf(file, sizeof file, "txn-%s.bin", name);
  s_write("fuzz_txn_decode", file, b, n);
  ens_free(b);
  s_count[1]++;
  ens_txn_free(t);
}

static ens_txn *s_set1(ens_id id, const char *key, ens_value v) {
  ens_txn *t = ens_txn_new("set", NULL);
  if (ens_txn_set(t, id, key, v)) s_die("set");
  return t;
}

static void s_transactions(void) {
  static const unsigned char bytes[] = {0xc1, 0x00, 0xff, 0x7f};
  char big[600];
  for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('A' + i % 26);

  /* set: every value type, including nil (removal) */
  s_tx(s_set1(4, "x", ens_int(11)), "set-int");
  s_tx(s_set1(4, "y", ens_int(INT64_MIN)), "set-int-min");
  s_tx(s_set1(4, "opacity", ens_real(0.25)), "set-real");
  s_tx(s_set1(7, "size", ens_real(NAN)), "set-real-nan");
  s_tx(s_set1(5, "d", ens_str("M1 1 L2 2 Z")), "set-str");
  s_tx(s_set1(5, "d", ens_strn(big, sizeof big)), "set-str-long");
  s_tx(s_set1(2, "name", ens_str("")), "set-str-empty");
  s_tx(s_set1(4, "fill", ens_bytes(bytes, sizeof bytes)), "set-bytes");
  s_tx(s_set1(2, "visible", ens_bool(0)), "set-bool");
  s_tx(s_set1(4, "link", ens_ref(7)), "set-ref");
  s_tx(s_set1(4, "link", ens_ref(ens_id_make(3, 77))), "set-ref-dangling");
  s_tx(s_set1(4, "x", ens_nil()), "set-nil");
  s_tx(s_set1(ENS_ROOT_ID, "title", ens_str("renamed")), "set-root");
  s_tx(s_set1(2, "visible", ens_int(1)), "set-wrong-type"); /* fails with the schema */

  /* insert: a leaf, one with every type, nested children */
  {
    ens_txn *t = ens_txn_new("insert", "alice");
    ens_txn_insert(t, 2, "z", 8, "rect");
    s_tx(t, "insert-leaf");
  }
  {
    ens_txn *t = ens_txn_new("insert", NULL);
    ens_node *n = ens_txn_insert(t, 3, "1", ens_id_make(7, 100), "rect");
    ens_node_set(n, "x", ens_int(-1));
    ens_node_set(n, "y", ens_int(70000));
    ens_node_set(n, "fill", ens_bytes(bytes, sizeof bytes));
    ens_node_set(n, "link", ens_ref(4));
    ens_node_set(n, "name", ens_str("box"));
    ens_node_set(n, "w", ens_real(2.5));
    ens_node_set(n, "on", ens_bool(1));
    ens_node_set(n, "gone", ens_nil());
    s_tx(t, "insert-every-type");
  }
  {
    ens_txn *t = ens_txn_new("group", NULL);
    ens_node *g = ens_txn_insert(t, 3, "z", 20, "group");
    ens_node_set(g, "name", ens_str("g"));
    ens_node *g2 = ens_node_add_child(g, "V", 21, "group");
    ens_node *r = ens_node_add_child(g2, "V", 22, "rect");
    ens_node_set(r, "x", ens_int(5));
    ens_node_set(r, "link", ens_ref(20));
    ens_node *p = ens_node_add_child(g2, "k", 23, "path");
    ens_node_set(p, "d", ens_str("M0 0"));
    ens_node_add_child(g, "k", 24, "text");
    s_tx(t, "insert-nested");
  }
  {
    ens_txn *t = ens_txn_new("deep", NULL);
    ens_node *n = ens_txn_insert(t, 6, "z", 100, "group");
    for (int i = 1; i < 60; i++) n = ens_node_add_child(n, "V", 100 + i, "group");
    s_tx(t, "insert-deep-60");
  }
  {
    ens_txn *t = ens_txn_new("wide", NULL);
    ens_node *n = ens_txn_insert(t, 2, "U", 200, "group");
    for (int i = 0; i < 20; i++) {
      char pos[8];
      snprintf(pos, sizeof pos, "%c", "123456789ABCDEFGHIJKLMN"[i]);
      ens_node_add_child(n, pos, 201 + i, i % 2 ? "rect" : "path");
    }
    s_tx(t, "insert-wide-20");
  }
  {
    ens_txn *t = ens_txn_new("dup", NULL);
    ens_txn_insert(t, 2, "z", 4, "rect"); /* id in use: fails */
    s_tx(t, "insert-existing-id");
  }
  {
    ens_txn *t = ens_txn_new("kind", NULL);
    ens_txn_insert(t, ENS_ROOT_ID, "z", 30, "rect"); /* not under the root with the schema */
    s_tx(t, "insert-schema-place");
  }

  /* delete: a leaf, a subtree, the root (fails), a missing object (fails) */
  {
    ens_txn *t = ens_txn_new("delete", NULL);
    ens_txn_delete(t, 5);
    s_tx(t, "delete-leaf");
  }
  {
    ens_txn *t = ens_txn_new("delete", NULL);
    ens_txn_delete(t, 3);
    s_tx(t, "delete-subtree");
  }
  {
    ens_txn *t = ens_txn_new(NULL, NULL);
    ens_txn_delete(t, ENS_ROOT_ID);
    s_tx(t, "delete-root");
  }
  {
    ens_txn *t = ens_txn_new(NULL, NULL);
    ens_txn_delete(t, ens_id_make(9, 9));
    s_tx(t, "delete-missing");
  }

  /* move: across parents, within a parent, into its own subtree (fails) */
  {
    ens_txn *t = ens_txn_new("move", NULL);
    ens_txn_move(t, 4, 6, "k");
    s_tx(t, "move-across");
  }
  {
    ens_txn *t = ens_txn_new("move", NULL);
    ens_txn_move(t, 5, 2, "0V");
    s_tx(t, "move-reorder");
  }
  {
    ens_txn *t = ens_txn_new("move", NULL);
    ens_txn_move(t, 3, 7, "V");
    s_tx(t, "move-cycle");
  }
  {
    ens_txn *t = ens_txn_new("move", NULL);
    ens_txn_move(t, 6, 2, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz");
    s_tx(t, "move-long-pos");
  }

  /* several operations, one failing at the end: all roll back */
  {
    ens_txn *t = ens_txn_new("mixed", "bob");
    ens_node *n = ens_txn_insert(t, 2, "s", 40, "rect");
    ens_node_set(n, "x", ens_int(3));
    ens_txn_set(t, 40, "y", ens_int(4));
    ens_txn_move(t, 40, 3, "V");
    ens_txn_set(t, 2, "name", ens_nil());
    ens_txn_delete(t, 5);
    ens_txn_move(t, 7, 3, "z");
    s_tx(t, "mixed");
  }
  {
    ens_txn *t = ens_txn_new("mixed", NULL);
    ens_txn_set(t, 4, "x", ens_int(99));
    ens_txn_delete(t, 6);
    ens_txn_insert(t, 3, "V", 41, "group");
    ens_txn_move(t, 2, 41, "V"); /* a layer under a group: refused with the schema */
    ens_txn_delete(t, ENS_ROOT_ID); /* fails: everything before rolls back */
    s_tx(t, "mixed-failing");
  }
  {
    ens_txn *t = ens_txn_new("reinsert", NULL);
    ens_txn_delete(t, 4);
    ens_node *n = ens_txn_insert(t, 3, "V", 4, "rect"); /* the same id again */
    ens_node_set(n, "x", ens_int(0));
    s_tx(t, "delete-reinsert");
  }
  {
    /* labels and authors at their lengths; no operations */
    char label[300];
    memset(label, 'L', sizeof label - 1);
    label[sizeof label - 1] = '\0';
    s_tx(ens_txn_new(label, "\xe2\x9c\x93 author"), "empty-long-label");
  }
  s_tx(ens_txn_new(NULL, NULL), "empty");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_seeds CORPUS_DIR (tests/fuzz/corpus)\n");
    return 2;
  }
  s_root = argv[1];
  char path[1024];
  snprintf(path, sizeof path, "%s/fuzz_snapshot_decode", s_root);
  mkdir(s_root, 0755);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/fuzz_txn_decode", s_root);
  mkdir(path, 0755);
  s_snapshots();
  s_transactions();
  printf("%d snapshots, %d transactions\n", s_count[0], s_count[1]);
  return 0;
}
