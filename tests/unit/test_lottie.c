/* The Lottie format: every corpus animation (and the bundled seeds) back
 * byte for byte, directly and through a snapshot; the spec's schema-invalid
 * animations kept as they are; errors with line and column; the model's
 * tree where the file says; edits that rewrite only what they change;
 * diff and three-way merge matching by identity keys; the schema's
 * refusals. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "ensemble.h"
#include "testutil.h"

static void s_roundtrip(const char *path, const char *data, size_t len) {
  ens_doc *doc = NULL;
  if (ens_lottie_read(data, len, &doc) != 0) fail_msg("%s: %s", path, ens_error_last());
  unsigned char *out;
  size_t n;
  assert_int_equal(ens_lottie_write(doc, &out, &n), 0);
  if (n != len || memcmp(out, data, len) != 0) fail_msg("%s: written back with other bytes", path);
  ens_free(out);
  unsigned char *snap;
  size_t sn;
  ens_doc *copy = NULL;
  assert_int_equal(ens_snapshot_encode(doc, &snap, &sn), 0);
  assert_int_equal(ens_snapshot_decode(snap, sn, &copy), 0);
  ens_free(snap);
  assert_int_equal(ens_lottie_write(copy, &out, &n), 0);
  if (n != len || memcmp(out, data, len) != 0) fail_msg("%s: through a snapshot, written back with other bytes", path);
  ens_free(out);
  ens_doc_free(copy);
  ens_doc_free(doc);
}

/* Every .json below dir round-trips; returns how many. */
static size_t s_roundtrip_dir(const char *dir, int skip_bad) {
  size_t count = 0, done = 0;
  char **files = tu_list_files(dir, ".json", &count);
  for (size_t i = 0; i < count; i++) {
    if (skip_bad && strstr(files[i], "/bad-")) continue;
    size_t len;
    char *data = tu_read_file(files[i], &len);
    assert_non_null(data);
    s_roundtrip(files[i], data, len);
    free(data);
    done++;
  }
  tu_files_free(files, count);
  return done;
}

static void test_seeds_roundtrip(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/fuzz_lottie", tu_source_dir());
  size_t n = s_roundtrip_dir(dir, 1);
  printf("bundled: %zu animations byte-identical, directly and through a snapshot\n", n);
  assert_true(n >= 7);
}

static void test_corpus_roundtrip(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/lottie", corpus);
  size_t n = s_roundtrip_dir(dir, 0);
  if (!n) TU_SKIP("no Lottie files in the corpus");
  printf("corpus: %zu animations byte-identical, directly and through a snapshot\n", n);
  assert_true(n >= 80);
}

/* The spec's invalid animations are JSON whose content breaks the schema
 * (an animated value that is not an array, an image with bad data): they
 * are kept as they are, as any member we do not interpret. */
static void test_schema_invalid_kept(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/lottie/spec/tests/animations/invalid", corpus);
  size_t n = s_roundtrip_dir(dir, 0);
  if (!n) TU_SKIP("no invalid set in the corpus");
  assert_int_equal(n, 2);
}

static void s_refused(const char *text, int code, const char *msg) {
  ens_doc *doc = (ens_doc *)1;
  int rc = ens_lottie_read(text, strlen(text), &doc);
  if (rc != code || strcmp(ens_error_last(), msg) != 0)
    fail_msg("%s: got %d \"%s\", want %d \"%s\"", text, rc, ens_error_last(), code, msg);
  assert_null(doc);
}

static void test_errors(void **state) {
  (void)state;
  s_refused("", ENS_EDECODE, "line 1, column 1: no JSON value (the text is empty)");
  s_refused("{\"fr\":1,\"ip\":0,\"op\":1,\n  \"layers\":[1,]}", ENS_EDECODE,
            "line 2, column 15: ']' where a value should be (a string, number, object, array, true, false or null)");
  s_refused("{\"fr\":1,\"ip\":0,\"op\":1,\"layers\":[]", ENS_EDECODE,
            "line 1, column 1: this object is never closed (the text ends inside it)");
  s_refused("{\"fr\":1,\"ip\":0,\"op\":1,\"layers\":[]}\n}", ENS_EDECODE, "line 2, column 1: text after the end of the JSON value");
  s_refused("{\"fr\":01,\"ip\":0,\"op\":1,\"layers\":[]}", ENS_EDECODE,
            "line 1, column 7: a number with a leading zero, which JSON does not allow");
  s_refused("{\"fr\":1.,\"ip\":0,\"op\":1,\"layers\":[]}", ENS_EDECODE, "line 1, column 9: a digit expected after the decimal point");
  s_refused("{\"fr\":1e999,\"ip\":0,\"op\":1,\"layers\":[]}", ENS_ELIMIT,
            "line 1, column 7: a number beyond the range of a double (about 1.8e308)");
  s_refused("{\"nm\":\"\xc3\xa9\xc3\",\"fr\":1}", ENS_EDECODE,
            "line 1, column 9: bytes that are not UTF-8, which JSON text is written in");
  s_refused("{\"nm\":\"a\tb\"}", ENS_EDECODE,
            "line 1, column 9: a control character (U+0009) inside a string, which JSON writes as an escape");
  s_refused("{\"nm\":\"\\x\"}", ENS_EDECODE, "line 1, column 8: '\\x' is no escape of JSON (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
  s_refused("{\"nm\":\"\\udc00\"}", ENS_EDECODE,
            "line 1, column 8: \\uDC00 is the second half of a surrogate pair, alone: no UTF-8 text holds it");
  s_refused("{\"fr\" 1}", ENS_EDECODE, "line 1, column 7: ':' expected after the member name");
  s_refused("{\"fr\":1 \"ip\":0}", ENS_EDECODE, "line 1, column 9: ',' or '}' expected after a member");
  s_refused("{'fr':1}", ENS_EDECODE, "line 1, column 2: a member name (a string in double quotes) expected");
  s_refused("\xef\xbb\xbf{}", ENS_EDECODE, "line 1, column 1: a byte order mark, which JSON text does not begin with (RFC 8259)");
  s_refused("[]", ENS_EFORMAT,
            "line 1, column 1: not a Lottie animation: the JSON value is an array, where Lottie is an object with \"fr\", "
            "\"ip\", \"op\" and \"layers\"");
  s_refused("\n {\"fr\":1,\"ip\":0,\"op\":1}", ENS_EFORMAT,
            "line 2, column 2: not a Lottie animation: the top object has no \"layers\" (a Lottie animation has \"fr\", "
            "\"ip\", \"op\" and \"layers\")");
  s_refused("{\"fr\":1,\"ip\":0,\"op\":1,\"layers\":[{\"ind\":1,\n\"ind\":2}]}", ENS_EFORMAT,
            "line 2, column 1: this object has a second member named \"ind\"");
  /* nesting beyond the limit */
  size_t depth = ENS_LOTTIE_MAX_DEPTH + 1;
  char *deep = malloc(2 * depth + 64);
  assert_non_null(deep);
  size_t k = (size_t)sprintf(deep, "{\"fr\":1,\"ip\":0,\"op\":1,\"layers\":[],\"x\":");
  for (size_t i = 0; i < depth; i++) deep[k++] = '[';
  for (size_t i = 0; i < depth; i++) deep[k++] = ']';
  deep[k++] = '}';
  deep[k] = 0;
  char want[128];
  snprintf(want, sizeof want, "line 1, column %zu: arrays and objects nested deeper than %d", (size_t)38 + ENS_LOTTIE_MAX_DEPTH, /* the top object is a level */
           ENS_LOTTIE_MAX_DEPTH);
  s_refused(deep, ENS_ELIMIT, want);
  free(deep);
}

static const char s_anim[] =
    "{\n"
    "  \"v\": \"5.7.1\", \"fr\": 30, \"ip\": 0, \"op\": 60, \"w\": 100, \"h\": 100,\n"
    "  \"layers\": [\n"
    "    {\n"
    "      \"ind\": 1, \"ty\": 4, \"nm\": \"Ball\",\n"
    "      \"ks\": {\n"
    "        \"o\": {\"a\": 0, \"k\": 100},\n"
    "        \"p\": {\"a\": 1, \"k\": [\n"
    "          {\"t\": 0, \"s\": [10, 10], \"i\": {\"x\": [0.5], \"y\": [1]}, \"o\": {\"x\": [0.5], \"y\": [0]}},\n"
    "          {\"t\": 30, \"s\": [90, 10], \"h\": 1},\n"
    "          {\"t\": 60, \"s\": [10, 10]}\n"
    "        ]}\n"
    "      },\n"
    "      \"shapes\": [{\"ty\": \"gr\", \"nm\": \"Group\", \"it\": [{\"ty\": \"el\", \"nm\": \"Circle\", \"s\": {\"a\": 0, \"k\": [20, 20]}}]}],\n"
    "      \"ip\": 0, \"op\": 60, \"st\": 0\n"
    "    },\n"
    "    {\"ind\": 2, \"ty\": 3, \"nm\": \"Null\", \"parent\": 1, \"ks\": {}, \"ip\": 0, \"op\": 60}\n"
    "  ],\n"
    "  \"assets\": [{\"id\": \"comp_1\", \"layers\": []}],\n"
    "  \"markers\": [{\"cm\": \"intro\", \"tm\": 0, \"dr\": 10}]\n"
    "}\n";

static const ens_obj *s_member(const ens_obj *o, const char *name) {
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    ens_value v;
    const ens_obj *k = ens_obj_child(o, i);
    if (ens_obj_get(k, ENS_LOTTIE_KEY, &v) == 0 && v.type == ENS_STR && strlen(name) == v.u.s.len &&
        memcmp(v.u.s.ptr, name, v.u.s.len) == 0)
      return k;
  }
  return NULL;
}

static int64_t s_int(const ens_obj *o, const char *key) {
  ens_value v;
  assert_int_equal(ens_obj_get(o, key, &v), 0);
  assert_int_equal(v.type, ENS_INT);
  return v.u.i;
}

static void s_key_is(const ens_obj *o, int strength, const char *want) {
  char key[256];
  assert_int_equal(ens_lottie_identity(o, key, sizeof key, NULL), strength);
  assert_string_equal(key, want);
}

static void test_model(void **state) {
  (void)state;
  ens_doc *doc;
  assert_int_equal(ens_lottie_read(s_anim, strlen(s_anim), &doc), 0);
  assert_string_equal(ens_doc_kind(doc), ENS_LOTTIE_KIND);
  const ens_obj *root = ens_doc_root(doc);
  assert_int_equal(s_int(root, "fr"), 30);
  assert_int_equal(s_int(root, "op"), 60);
  const ens_obj *layers = s_member(root, "layers");
  assert_non_null(layers);
  assert_string_equal(ens_obj_kind(layers), ENS_LOTTIE_LIST);
  assert_int_equal(ens_obj_child_count(layers), 2);
  const ens_obj *ball = ens_obj_child(layers, 0), *null = ens_obj_child(layers, 1);
  assert_string_equal(ens_obj_kind(ball), ENS_LOTTIE_LAYER);
  assert_int_equal(s_int(ball, "ind"), 1);
  assert_int_equal(s_int(null, "parent"), 1);
  s_key_is(ball, 2, "layer ind=1");
  s_key_is(layers, 2, ".layers");
  const ens_obj *ks = s_member(ball, "ks");
  assert_string_equal(ens_obj_kind(ks), ENS_LOTTIE_TRANSFORM);
  const ens_obj *o = s_member(ks, "o"), *p = s_member(ks, "p");
  assert_string_equal(ens_obj_kind(o), ENS_LOTTIE_PROPERTY);
  assert_int_equal(s_int(o, "k"), 100);
  const ens_obj *kfs = s_member(p, "k");
  assert_int_equal(ens_obj_child_count(kfs), 3);
  const ens_obj *kf1 = ens_obj_child(kfs, 1);
  assert_string_equal(ens_obj_kind(kf1), ENS_LOTTIE_KEYFRAME);
  assert_int_equal(s_int(kf1, "t"), 30);
  assert_int_equal(s_int(kf1, "h"), 1);
  s_key_is(kf1, 2, "keyframe t=30");
  ens_value v;
  assert_int_equal(ens_obj_get(kf1, "s", &v), 0);
  assert_int_equal(v.type, ENS_BYTES);
  assert_int_equal(v.u.s.len, 7); /* an array's canonical text */
  assert_memory_equal(v.u.s.ptr, "[90,10]", 7);
  const ens_obj *ease = s_member(ens_obj_child(kfs, 0), "i");
  assert_string_equal(ens_obj_kind(ease), ENS_LOTTIE_OBJECT);
  const ens_obj *group = ens_obj_child(s_member(ball, "shapes"), 0);
  assert_string_equal(ens_obj_kind(group), ENS_LOTTIE_SHAPE);
  s_key_is(group, 2, "shape nm=\"Group\"");
  const ens_obj *circle = ens_obj_child(s_member(group, "it"), 0);
  s_key_is(circle, 2, "shape nm=\"Circle\"");
  const ens_obj *asset = ens_obj_child(s_member(root, "assets"), 0);
  s_key_is(asset, 2, "asset id=\"comp_1\"");
  assert_non_null(s_member(asset, "layers")); /* an empty layers list is a list */
  const ens_obj *marker = ens_obj_child(s_member(root, "markers"), 0);
  s_key_is(marker, 2, "marker cm=\"intro\"");
  ens_doc_free(doc);
}

/* Lines of b that differ from a's, when both have as many lines; -1 when
 * the count differs. */
static int s_lines_changed(const char *a, const char *b) {
  int changed = 0;
  while (*a || *b) {
    const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    if (!ea || !eb) return (!ea && !eb) ? changed + (strcmp(a, b) != 0) : -1;
    if (ea - a != eb - b || memcmp(a, b, (size_t)(ea - a)) != 0) changed++;
    a = ea + 1;
    b = eb + 1;
  }
  return changed;
}

static char *s_write(const ens_doc *doc) {
  unsigned char *out;
  size_t n;
  if (ens_lottie_write(doc, &out, &n) != 0) fail_msg("write: %s", ens_error_last());
  return (char *)out;
}

static void s_apply(ens_doc *doc, ens_txn *t) {
  if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) != 0) fail_msg("apply: %s", ens_error_last());
  ens_txn_free(t);
}

static void test_edits(void **state) {
  (void)state;
  ens_doc *doc;
  assert_int_equal(ens_lottie_read(s_anim, strlen(s_anim), &doc), 0);
  const ens_obj *root = ens_doc_root(doc);
  const ens_obj *layers = s_member(root, "layers"), *ball = ens_obj_child(layers, 0);
  const ens_obj *kfs = s_member(s_member(s_member(ball, "ks"), "p"), "k");
  const ens_obj *kf1 = ens_obj_child(kfs, 1);

  /* a keyframe's value and time: that keyframe's line only, the rest of it as it was */
  ens_txn *t = ens_txn_new("Move keyframe", NULL);
  ens_txn_set(t, ens_obj_id(kf1), "t", ens_real(32.5));
  ens_txn_set(t, ens_obj_id(kf1), "s", ens_bytes("[80,20]", 7));
  s_apply(doc, t);
  char *out = s_write(doc);
  assert_int_equal(s_lines_changed(s_anim, out), 1);
  assert_non_null(strstr(out, "          {\"t\": 32.5, \"s\": [80,20], \"h\": 1},\n"));
  free(out);

  /* a new member on a layer goes after its last, in its style; a removed one goes with its blanks */
  t = ens_txn_new("Rename", NULL);
  ens_txn_set(t, ens_obj_id(ball), "nm", ens_str("Bal\"l"));
  ens_txn_set(t, ens_obj_id(ball), "st", ens_nil());
  ens_txn_set(t, ens_obj_id(ball), "sr", ens_int(1));
  s_apply(doc, t);
  out = s_write(doc);
  assert_non_null(strstr(out, "\"nm\": \"Bal\\\"l\",\n"));
  assert_non_null(strstr(out, "      \"ip\": 0, \"op\": 60, \"sr\": 1\n    },\n"));
  free(out);

  /* a keyframe added between two: written compactly, in its place */
  char *pos = ens_pos_between(ens_obj_pos(ens_obj_child(kfs, 1)), ens_obj_pos(ens_obj_child(kfs, 2)));
  t = ens_txn_new("Add keyframe", NULL);
  ens_node *n = ens_txn_insert(t, ens_obj_id(kfs), pos, ens_doc_new_id(doc), ENS_LOTTIE_KEYFRAME);
  ens_node_set(n, "t", ens_int(45));
  ens_node_set(n, "s", ens_bytes("[50,50]", 7));
  ens_free(pos);
  s_apply(doc, t);
  out = s_write(doc);
  assert_non_null(strstr(out, "\"h\": 1},\n          {\"t\":45,\"s\":[50,50]},\n          {\"t\": 60,"));
  /* it reads back: three layers' worth of text, four keyframes */
  ens_doc *back;
  assert_int_equal(ens_lottie_read(out, strlen(out), &back), 0);
  const ens_obj *bk = s_member(s_member(s_member(ens_obj_child(s_member(ens_doc_root(back), "layers"), 0), "ks"), "p"), "k");
  assert_int_equal(ens_obj_child_count(bk), 4);
  assert_int_equal(s_int(ens_obj_child(bk, 2), "t"), 45);
  ens_doc_free(back);
  free(out);

  ens_doc_free(doc);
  assert_int_equal(ens_lottie_read(s_anim, strlen(s_anim), &doc), 0);
  /* a layer deleted: its lines go, the other layer's stay */
  layers = s_member(ens_doc_root(doc), "layers");
  t = ens_txn_new("Delete layer", NULL);
  ens_txn_delete(t, ens_obj_id(ens_obj_child(layers, 0)));
  s_apply(doc, t);
  out = s_write(doc);
  assert_non_null(strstr(out, "  \"layers\": [\n    {\"ind\": 2, \"ty\": 3, \"nm\": \"Null\""));
  assert_null(strstr(out, "Ball"));
  free(out);
  ens_doc_free(doc);
}

static void test_undo_gives_input(void **state) {
  (void)state;
  ens_doc *doc;
  assert_int_equal(ens_lottie_read(s_anim, strlen(s_anim), &doc), 0);
  ens_undo *u = ens_undo_new(doc, 0);
  assert_non_null(u);
  const ens_obj *ball = ens_obj_child(s_member(ens_doc_root(doc), "layers"), 0);
  ens_txn *t = ens_txn_new("Rename", NULL);
  ens_txn_set(t, ens_obj_id(ball), "nm", ens_str("Other"));
  ens_txn_set(t, ens_obj_id(ball), "ip", ens_real(2.5));
  assert_int_equal(ens_undo_commit(u, t), 0);
  ens_txn_free(t);
  char *out = s_write(doc);
  assert_int_equal(s_lines_changed(s_anim, out), 2);
  free(out);
  assert_int_equal(ens_undo_undo(u, NULL), 0);
  out = s_write(doc);
  assert_string_equal(out, s_anim);
  free(out);
  ens_undo_free(u);
  ens_doc_free(doc);
}

/* Replaces the one occurrence of what in text by with (malloc'd). */
static char *s_replace(const char *text, const char *what, const char *with) {
  const char *at = strstr(text, what);
  assert_non_null(at);
  assert_null(strstr(at + 1, what));
  size_t n = strlen(text) - strlen(what) + strlen(with);
  char *out = malloc(n + 1);
  assert_non_null(out);
  size_t k = (size_t)(at - text);
  memcpy(out, text, k);
  strcpy(out + k, with);
  strcat(out, at + strlen(what));
  return out;
}

static void test_merge(void **state) {
  (void)state;
  /* ours renames a layer and reorders nothing; theirs moves a keyframe
   * and swaps the two layers: the merge keeps both, text as written */
  char *ours_t = s_replace(s_anim, "\"nm\": \"Ball\"", "\"nm\": \"Red ball\"");
  char *theirs_t = s_replace(s_anim, "{\"t\": 30, \"s\": [90, 10]", "{\"t\": 30, \"s\": [95, 12]");
  char *want = s_replace(theirs_t, "\"nm\": \"Ball\"", "\"nm\": \"Red ball\"");
  ens_doc *base, *ours, *theirs;
  assert_int_equal(ens_lottie_read(s_anim, strlen(s_anim), &base), 0);
  assert_int_equal(ens_lottie_read(ours_t, strlen(ours_t), &ours), 0);
  assert_int_equal(ens_lottie_read(theirs_t, strlen(theirs_t), &theirs), 0);

  /* the diff of base and ours: one property of one layer */
  ens_txn *d;
  ens_doc *copy;
  assert_int_equal(ens_lottie_read(s_anim, strlen(s_anim), &copy), 0);
  assert_int_equal(ens_doc_diff(copy, ours, ens_lottie_identity, NULL, &d), 0);
  size_t content = 0;
  for (size_t i = 0; i < ens_txn_op_count(d); i++) {
    const char *key;
    ens_value v;
    if (ens_txn_op_set(d, i, &key, &v) == 0 && key[0] != '~') {
      content++;
      assert_string_equal(key, "nm");
    }
  }
  assert_int_equal(content, 1);
  ens_txn_free(d);
  ens_doc_free(copy);

  ens_merge_opts opts = {ens_lottie_identity, NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_KEY, ENS_MERGE_PREFER_OURS, NULL, NULL};
  ens_merge *m;
  assert_int_equal(ens_merge3(base, ours, theirs, &opts, &m), 0);
  assert_int_equal(ens_merge_conflict_count(m), 0);
  if (ens_doc_apply(theirs, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL) != 0) fail_msg("apply: %s", ens_error_last());
  char *out = s_write(theirs);
  assert_string_equal(out, want);
  free(out);
  ens_merge_free(m);
  ens_doc_free(base);
  ens_doc_free(ours);
  ens_doc_free(theirs);
  free(ours_t);
  free(theirs_t);
  free(want);
}

static void s_refuse(ens_doc *doc, ens_txn *t, int code, const char *part) {
  int rc = ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL);
  if (rc != code || !strstr(ens_error_last(), part)) fail_msg("got %d \"%s\", want %d \"...%s...\"", rc, ens_error_last(), code, part);
  ens_txn_free(t);
}

static void test_schema(void **state) {
  (void)state;
  ens_doc *doc;
  assert_int_equal(ens_lottie_read(s_anim, strlen(s_anim), &doc), 0);
  const ens_obj *root = ens_doc_root(doc), *layers = s_member(root, "layers");
  /* ids, not pointers: a refused transaction is rolled back, and a
   * deleted subtree comes back as new objects with the same ids */
  const ens_id root_id = ens_obj_id(root), layers_id = ens_obj_id(layers),
               ball_id = ens_obj_id(ens_obj_child(layers, 0));
  ens_txn *t = ens_txn_new(NULL, NULL);
  ens_txn_set(t, ball_id, "ip", ens_real(1.0 / 0.0));
  s_refuse(doc, t, ENS_ETYPE, "'ip' is not a finite number");
  t = ens_txn_new(NULL, NULL);
  ens_txn_set(t, ball_id, "~x", ens_int(1));
  s_refuse(doc, t, ENS_EFORMAT, "'~x' names no member");
  t = ens_txn_new(NULL, NULL);
  ens_txn_set(t, ball_id, "s", ens_bytes("{\"a\":1}", 7));
  s_refuse(doc, t, ENS_ETYPE, "neither null nor an array");
  t = ens_txn_new(NULL, NULL);
  ens_txn_set(t, ball_id, "s", ens_bytes("[1, 2]", 6));
  s_refuse(doc, t, ENS_ETYPE, "neither null nor an array");
  t = ens_txn_new(NULL, NULL);
  ens_txn_set(t, ball_id, "s", ens_bytes("[1,", 3));
  s_refuse(doc, t, ENS_ETYPE, "neither null nor an array");
  t = ens_txn_new(NULL, NULL);
  ens_txn_delete(t, layers_id);
  s_refuse(doc, t, ENS_EFORMAT, "keeps its \"layers\"");
  t = ens_txn_new(NULL, NULL);
  ens_txn_set(t, root_id, "fr", ens_nil());
  s_refuse(doc, t, ENS_EFORMAT, "keeps its \"fr\"");
  t = ens_txn_new(NULL, NULL);
  ens_node *n = ens_txn_insert(t, ball_id, "z", ens_doc_new_id(doc), ENS_LOTTIE_OBJECT);
  ens_node_set(n, "a", ens_int(1));
  s_refuse(doc, t, ENS_EFORMAT, "needs its name");
  t = ens_txn_new(NULL, NULL);
  n = ens_txn_insert(t, ball_id, "z", ens_doc_new_id(doc), ENS_LOTTIE_OBJECT);
  ens_node_set(n, ENS_LOTTIE_KEY, ens_str("ks"));
  s_refuse(doc, t, ENS_EFORMAT, "already has a member \"ks\"");
  t = ens_txn_new(NULL, NULL);
  n = ens_txn_insert(t, ball_id, "z", ens_doc_new_id(doc), ENS_LOTTIE_OBJECT);
  ens_node_set(n, ENS_LOTTIE_KEY, ens_str("nm"));
  s_refuse(doc, t, ENS_EFORMAT, "already has a member \"nm\"");
  t = ens_txn_new(NULL, NULL);
  n = ens_txn_insert(t, layers_id, "z", ens_doc_new_id(doc), "rect");
  s_refuse(doc, t, ENS_EKIND, "no kind of the Lottie mapping");
  /* what it refused left the animation as it was */
  char *out = s_write(doc);
  assert_string_equal(out, s_anim);
  free(out);
  /* a member named with '~', '@', '%' or nothing is held with '%' */
  static const char odd[] = "{\"fr\":1,\"ip\":0,\"op\":1,\"layers\":[],\"~a\":1,\"@b\":2,\"%c\":3,\"\":4,\"d\":5}";
  ens_doc *o;
  assert_int_equal(ens_lottie_read(odd, strlen(odd), &o), 0);
  assert_int_equal(s_int(ens_doc_root(o), "%~a"), 1);
  assert_int_equal(s_int(ens_doc_root(o), "%@b"), 2);
  assert_int_equal(s_int(ens_doc_root(o), "%%c"), 3);
  assert_int_equal(s_int(ens_doc_root(o), "%"), 4);
  t = ens_txn_new(NULL, NULL);
  ens_txn_set(t, ens_obj_id(ens_doc_root(o)), "%@b", ens_int(7));
  ens_txn_set(t, ens_obj_id(ens_doc_root(o)), "%", ens_nil());
  s_apply(o, t);
  out = s_write(o);
  assert_string_equal(out, "{\"fr\":1,\"ip\":0,\"op\":1,\"layers\":[],\"~a\":1,\"@b\":7,\"%c\":3,\"d\":5}");
  free(out);
  ens_doc_free(o);
  ens_doc_free(doc);
}

/* gzip as Telegram's tools write it, by zlib itself. */
static unsigned char *s_gzip(const char *text, size_t n, size_t *out_n) {
  z_stream z;
  memset(&z, 0, sizeof z);
  assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  size_t cap = deflateBound(&z, (uLong)n) + 64;
  unsigned char *buf = malloc(cap);
  assert_non_null(buf);
  z.next_in = (Bytef *)(uintptr_t)text;
  z.avail_in = (uInt)n;
  z.next_out = buf;
  z.avail_out = (uInt)cap;
  assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
  *out_n = cap - z.avail_out;
  deflateEnd(&z);
  return buf;
}

static void test_tgs(void **state) {
  (void)state;
  size_t gn;
  unsigned char *gz = s_gzip(s_anim, strlen(s_anim), &gn);
  ens_doc *doc;
  if (ens_lottie_read(gz, gn, &doc) != 0) fail_msg("%s", ens_error_last());
  assert_int_equal(s_int(ens_obj_child(s_member(ens_doc_root(doc), "layers"), 0), "ind"), 1);
  /* written as it came: the same bytes (zlib, level 9, no name, no time) */
  unsigned char *out;
  size_t n;
  assert_int_equal(ens_lottie_write(doc, &out, &n), 0);
  assert_int_equal(n, gn);
  assert_memory_equal(out, gz, gn);
  ens_free(out);
  /* as plain JSON: the text inside, byte for byte */
  assert_int_equal(ens_lottie_write_as(doc, 0, &out, &n), 0);
  assert_int_equal(n, strlen(s_anim));
  assert_memory_equal(out, s_anim, n);
  ens_free(out);
  /* an edit, and the .tgs still holds it */
  ens_txn *t = ens_txn_new(NULL, NULL);
  ens_txn_set(t, ens_obj_id(ens_doc_root(doc)), "fr", ens_int(60));
  s_apply(doc, t);
  assert_int_equal(ens_lottie_write(doc, &out, &n), 0);
  ens_doc *back;
  assert_int_equal(ens_lottie_read(out, n, &back), 0);
  assert_int_equal(s_int(ens_doc_root(back), "fr"), 60);
  ens_doc_free(back);
  ens_free(out);
  ens_doc_free(doc);
  /* cut short, or followed by more: refused with a message, no document */
  doc = (ens_doc *)1;
  assert_int_equal(ens_lottie_read(gz, gn / 2, &doc), ENS_EDECODE);
  assert_null(doc);
  assert_string_equal(ens_error_last(), "line 1, column 1: a .tgs (gzip) stream that does not inflate: cut short");
  unsigned char *two = malloc(gn + 3);
  memcpy(two, gz, gn);
  memcpy(two + gn, "abc", 3);
  assert_int_equal(ens_lottie_read(two, gn + 3, &doc), ENS_EDECODE);
  assert_string_equal(ens_error_last(), "line 1, column 1: 3 bytes after the end of the .tgs (gzip) stream");
  free(two);
  free(gz);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seeds_roundtrip), cmocka_unit_test(test_corpus_roundtrip),
      cmocka_unit_test(test_schema_invalid_kept), cmocka_unit_test(test_errors),
      cmocka_unit_test(test_model), cmocka_unit_test(test_edits),
      cmocka_unit_test(test_undo_gives_input), cmocka_unit_test(test_merge),
      cmocka_unit_test(test_schema), cmocka_unit_test(test_tgs),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
