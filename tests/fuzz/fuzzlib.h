/* Helpers shared by the fuzz targets and the seed generator (make_seeds.c):
 * a seeded PRNG, the fixed document transactions are applied to, and the
 * invariant checks. Everything here uses only the public API; a violated
 * invariant prints what broke and aborts, so libFuzzer (or the replay
 * driver) records the input. */
#ifndef ENS_FUZZLIB_H
#define ENS_FUZZLIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"

#define FZ_CHECK(cond, ...)                                                  \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: invariant failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                          \
      fprintf(stderr, " (last error: %s)\n", ens_error_last());              \
      abort();                                                               \
    }                                                                        \
  } while (0)

/* Where folds of what the checks read go, so that no read is optimised
 * away (the point of reading is that ASan sees it). */
static volatile uint64_t fz_sink;

/* Deepest nesting the library accepts (src/lib/model/doc.h, ENS_MAX_DEPTH). */
#define FZ_MAX_DEPTH 1000

/* --- PRNG: splitmix64, seeded from the input so a run is reproducible --- */

typedef struct {
  uint64_t s;
} fz_rng;

static inline uint64_t fz_next(fz_rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static inline uint32_t fz_below(fz_rng *r, uint32_t n) { return n ? (uint32_t)(fz_next(r) % n) : 0; }

static inline uint64_t fz_hash_bytes(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

/* --- the fixed document ----------------------------------------------------
 *
 *   1 drawing   title="fixture" version=3
 *   +- 2 layer  pos V   name="bg" visible=true opacity=0.5
 *   |  +- 4 rect   pos V  x=10 y=-3 fill=<01 02 03> link=->5
 *   |  +- 5 path   pos k  d="M0 0 L10 10" closed=false
 *   +- 3 layer  pos k   name="fg"
 *      +- 6 group  pos V
 *         +- 7 text   pos V  s="hello" size=12.5 anchor=->1
 *
 * Small ids on purpose: one MessagePack byte each, easy for a fuzzer to
 * aim at. The seeds in corpus/fuzz_txn_decode are written against it. */

#define FZ_FIXTURE_KIND "drawing"
#define FZ_FIXTURE_SITE 7u

/* The schema some applies run under, as data so that a target can also
 * tell whether a document conforms to it (fz_conforms). */
static const struct {
  const char *kind, *parents;
} fz_schema_kinds[] = {
    {"drawing", "*"},         {"layer", "drawing"},     {"group", "layer group"},
    {"rect", "layer group"},  {"path", "layer group"},  {"text", "layer group"},
};
static const struct {
  const char *kind, *key;
  ens_type type;
} fz_schema_props[] = {
    {"layer", "name", ENS_STR}, {"layer", "visible", ENS_BOOL}, {"layer", "opacity", ENS_REAL},
    {"rect", "x", ENS_INT},     {"rect", "y", ENS_INT},         {"rect", "fill", ENS_BYTES},
    {"rect", "link", ENS_REF},  {"path", "d", ENS_STR},         {"text", "size", ENS_REAL},
};
#define FZ_COUNT(a) (sizeof(a) / sizeof *(a))

static inline ens_schema *fz_fixture_schema(void) {
  ens_schema *s = ens_schema_new();
  int rc = s ? 0 : -1;
  for (size_t i = 0; i < FZ_COUNT(fz_schema_kinds) && !rc; i++)
    rc = ens_schema_add_kind(s, fz_schema_kinds[i].kind, fz_schema_kinds[i].parents);
  for (size_t i = 0; i < FZ_COUNT(fz_schema_props) && !rc; i++)
    rc = ens_schema_add_prop(s, fz_schema_props[i].kind, fz_schema_props[i].key, fz_schema_props[i].type);
  if (rc) {
    ens_schema_free(s);
    return NULL;
  }
  return s;
}

/* 1 when every object of doc, the root included, has a kind the schema
 * declares, sits under a parent kind it allows (whole words of the parents
 * list), and holds declared properties with their declared types. */
static inline int fz_conforms(const ens_doc *doc) {
  size_t cap = ens_doc_count(doc), top = 0;
  const ens_obj **stack = malloc((cap ? cap : 1) * sizeof *stack);
  int ok = 1;
  FZ_CHECK(stack, "out of memory");
  stack[top++] = ens_doc_root(doc);
  while (top && ok) {
    const ens_obj *o = stack[--top];
    const char *kind = ens_obj_kind(o), *parents = NULL;
    for (size_t i = 0; i < FZ_COUNT(fz_schema_kinds); i++)
      if (strcmp(fz_schema_kinds[i].kind, kind) == 0) parents = fz_schema_kinds[i].parents;
    if (!parents) { ok = 0; break; }
    const ens_obj *p = ens_obj_parent(o);
    if (p && strcmp(parents, "*") != 0) {
      const char *pk = ens_obj_kind(p), *w = parents;
      size_t n = strlen(pk);
      int found = 0;
      while (*w && !found) {
        size_t len = strcspn(w, " ");
        found = len == n && strncmp(w, pk, n) == 0;
        w += len;
        w += strspn(w, " ");
      }
      if (!found) { ok = 0; break; }
    }
    for (size_t i = 0; i < FZ_COUNT(fz_schema_props); i++) {
      ens_value v;
      if (strcmp(fz_schema_props[i].kind, kind) == 0 && ens_obj_get(o, fz_schema_props[i].key, &v) == 0 &&
          v.type != fz_schema_props[i].type)
        ok = 0;
    }
    for (size_t i = 0; i < ens_obj_child_count(o); i++) {
      FZ_CHECK(top < cap, "more objects than ens_doc_count");
      stack[top++] = ens_obj_child(o, i);
    }
  }
  free(stack);
  return ok;
}

static inline ens_doc *fz_fixture_doc(void) {
  static const unsigned char fill[] = {1, 2, 3};
  ens_doc *doc = ens_doc_new(FZ_FIXTURE_KIND, FZ_FIXTURE_SITE);
  ens_txn *t = ens_txn_new("fixture", NULL);
  FZ_CHECK(doc && t, "fixture allocation");
  int rc = 0;
  rc |= ens_txn_set(t, ENS_ROOT_ID, "title", ens_str("fixture"));
  rc |= ens_txn_set(t, ENS_ROOT_ID, "version", ens_int(3));
  ens_node *l1 = ens_txn_insert(t, ENS_ROOT_ID, "V", 2, "layer");
  ens_node *l2 = ens_txn_insert(t, ENS_ROOT_ID, "k", 3, "layer");
  FZ_CHECK(l1 && l2, "fixture insert");
  rc |= ens_node_set(l1, "name", ens_str("bg"));
  rc |= ens_node_set(l1, "visible", ens_bool(1));
  rc |= ens_node_set(l1, "opacity", ens_real(0.5));
  ens_node *r = ens_node_add_child(l1, "V", 4, "rect");
  ens_node *p = ens_node_add_child(l1, "k", 5, "path");
  FZ_CHECK(r && p, "fixture children");
  rc |= ens_node_set(r, "x", ens_int(10));
  rc |= ens_node_set(r, "y", ens_int(-3));
  rc |= ens_node_set(r, "fill", ens_bytes(fill, sizeof fill));
  rc |= ens_node_set(r, "link", ens_ref(5));
  rc |= ens_node_set(p, "d", ens_str("M0 0 L10 10"));
  rc |= ens_node_set(p, "closed", ens_bool(0));
  rc |= ens_node_set(l2, "name", ens_str("fg"));
  ens_node *g = ens_node_add_child(l2, "V", 6, "group");
  FZ_CHECK(g, "fixture group");
  ens_node *tx = ens_node_add_child(g, "V", 7, "text");
  FZ_CHECK(tx, "fixture text");
  rc |= ens_node_set(tx, "s", ens_str("hello"));
  rc |= ens_node_set(tx, "size", ens_real(12.5));
  rc |= ens_node_set(tx, "anchor", ens_ref(ENS_ROOT_ID));
  FZ_CHECK(rc == 0, "fixture builders");
  rc = ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL);
  FZ_CHECK(rc == 0, "fixture apply");
  ens_txn_free(t);
  return doc;
}

/* --- invariants ------------------------------------------------------------ */

/* Folds a value's bytes so that every byte of a string is read (ASan sees
 * an overread); callers add the result to fz_sink. */
static inline uint64_t fz_touch_value(const ens_value *v) {
  switch (v->type) {
  case ENS_NIL: return 0;
  case ENS_INT: return (uint64_t)v->u.i;
  case ENS_REAL: {
    uint64_t b;
    memcpy(&b, &v->u.r, 8);
    return b;
  }
  case ENS_BOOL:
    FZ_CHECK(v->u.b == 0 || v->u.b == 1, "bool value %d", v->u.b);
    return (uint64_t)v->u.b;
  case ENS_REF: return v->u.ref;
  case ENS_STR:
  case ENS_BYTES:
    FZ_CHECK(v->u.s.len == 0 || v->u.s.ptr, "string without bytes");
    return fz_hash_bytes((const uint8_t *)v->u.s.ptr, v->u.s.len);
  }
  FZ_CHECK(0, "value of unknown type %d", (int)v->type);
  return 0;
}

/* Walks every object through the public readers only (ens_obj_child,
 * ens_obj_get, ens_obj_prop_at, ...) and checks the tree is consistent:
 * parent links, child order by (position, id), indexes, id lookups, valid
 * positions, property reads, the depth limit and ens_doc_count. Returns a
 * fold of everything read. allow_local: local ("@") keys may appear. */
static inline uint64_t fz_check_doc(const ens_doc *doc, int allow_local) {
  typedef struct {
    const ens_obj *obj;
    size_t next;
  } frame;
  static frame stack[FZ_MAX_DEPTH + 2];
  uint64_t fold = 0;
  size_t seen = 0, top = 0;
  const ens_obj *root = ens_doc_root(doc);
  FZ_CHECK(root != NULL, "no root");
  FZ_CHECK(ens_obj_id(root) == ENS_ROOT_ID, "root id %llx", (unsigned long long)ens_obj_id(root));
  FZ_CHECK(ens_obj_parent(root) == NULL, "root has a parent");
  FZ_CHECK(strcmp(ens_obj_pos(root), "") == 0, "root has a position");
  FZ_CHECK(ens_obj_kind(root) == ens_doc_kind(doc) || strcmp(ens_obj_kind(root), ens_doc_kind(doc)) == 0,
           "root kind differs from the document kind");
  FZ_CHECK(ens_doc_get(doc, ENS_ROOT_ID) == root, "root lookup");
  FZ_CHECK(ens_doc_get(doc, ENS_ID_NONE) == NULL, "id 0 resolves");
  stack[top++] = (frame){root, 0};
  for (;;) {
    const ens_obj *o = stack[top - 1].obj;
    if (stack[top - 1].next == 0) {
      /* first visit: the object itself */
      seen++;
      const char *kind = ens_obj_kind(o);
      FZ_CHECK(kind && *kind, "object without a kind");
      fold += fz_hash_bytes((const uint8_t *)kind, strlen(kind));
      size_t np = ens_obj_prop_count(o);
      for (size_t i = 0; i < np; i++) {
        const char *key = NULL;
        ens_value v, w;
        FZ_CHECK(ens_obj_prop_at(o, i, &key, &v) == 0, "prop_at %zu of %zu", i, np);
        FZ_CHECK(key && *key, "empty property key");
        FZ_CHECK(allow_local || key[0] != '@', "local key '%s'", key);
        FZ_CHECK(v.type != ENS_NIL, "prop_at gave a NIL value");
        FZ_CHECK(ens_obj_get(o, key, &w) == 0, "get '%s' after prop_at", key);
        FZ_CHECK(ens_value_equal(&v, &w), "get and prop_at disagree on '%s'", key);
        fold += fz_touch_value(&v) ^ fz_touch_value(&w);
      }
      const char *key = NULL;
      ens_value v;
      FZ_CHECK(ens_obj_prop_at(o, np, &key, &v) == ENS_ENOTFOUND, "prop_at past the end");
      FZ_CHECK(ens_obj_get(o, "\x01no such key", &v) == ENS_ENOTFOUND && v.type == ENS_NIL, "get of a missing key");
      FZ_CHECK(ens_obj_child(o, ens_obj_child_count(o)) == NULL, "child past the end");
    }
    size_t i = stack[top - 1].next;
    if (i == ens_obj_child_count(o)) {
      if (--top == 0) break;
      continue;
    }
    stack[top - 1].next++;
    const ens_obj *c = ens_obj_child(o, i);
    FZ_CHECK(c != NULL, "child %zu of %zu is NULL", i, ens_obj_child_count(o));
    FZ_CHECK(ens_obj_parent(c) == o, "child's parent link");
    FZ_CHECK(ens_obj_index(c) == i, "index %zu of child %zu", ens_obj_index(c), i);
    FZ_CHECK(ens_obj_id(c) != ENS_ID_NONE && ens_obj_id(c) != ENS_ROOT_ID, "child id %llx",
             (unsigned long long)ens_obj_id(c));
    FZ_CHECK(ens_doc_get(doc, ens_obj_id(c)) == c, "lookup of %llx", (unsigned long long)ens_obj_id(c));
    const char *pos = ens_obj_pos(c);
    FZ_CHECK(pos && ens_pos_valid(pos, strlen(pos)), "bad position '%.40s'", pos ? pos : "(null)");
    if (i) {
      const ens_obj *prev = ens_obj_child(o, i - 1);
      int cmp = strcmp(ens_obj_pos(prev), pos);
      FZ_CHECK(cmp < 0 || (cmp == 0 && ens_obj_id(prev) < ens_obj_id(c)), "children %zu and %zu out of order", i - 1,
               i);
    }
    fold += ens_obj_id(c) * 31 + strlen(pos);
    FZ_CHECK(top <= FZ_MAX_DEPTH, "objects nested deeper than %d", FZ_MAX_DEPTH);
    stack[top++] = (frame){c, 0};
  }
  FZ_CHECK(seen == ens_doc_count(doc), "walked %zu objects, ens_doc_count says %zu", seen, ens_doc_count(doc));
  fz_sink += fold;
  return fold;
}

/* Snapshot round trip of any document: it must encode, decode, and come
 * back with the same hash, content hash and object count. *enc (when not
 * NULL) receives the first encoding, *back the decoded copy. */
static inline void fz_snapshot_roundtrip(const ens_doc *doc, unsigned char **enc, size_t *enc_len, ens_doc **back) {
  unsigned char *b = NULL;
  size_t n = 0;
  ens_doc *d = NULL;
  int rc = ens_snapshot_encode(doc, &b, &n);
  FZ_CHECK(rc == 0 && b, "snapshot encode failed: %d", rc);
  rc = ens_snapshot_decode(b, n, &d);
  FZ_CHECK(rc == 0 && d, "the library's own snapshot does not decode: %d", rc);
  FZ_CHECK(ens_doc_hash(d) == ens_doc_hash(doc), "hash changed over a snapshot round trip");
  FZ_CHECK(ens_doc_content_hash(d) == ens_doc_content_hash(doc), "content hash changed over a snapshot round trip");
  FZ_CHECK(ens_doc_count(d) == ens_doc_count(doc), "object count changed over a snapshot round trip");
  FZ_CHECK(strcmp(ens_doc_kind(d), ens_doc_kind(doc)) == 0, "document kind changed over a snapshot round trip");
  if (enc) {
    *enc = b;
    *enc_len = n;
  } else {
    ens_free(b);
  }
  if (back) *back = d;
  else ens_doc_free(d);
}

/* --- files written read back as the same document ---------------------------
 *
 * What a document says in its file format, hashed: kinds, the modelled
 * properties (not kept source text, '~' keys, nor local '@' ones) in key
 * order, children in order, references as the path of what they name.
 * Left out, as the formats' readers cannot see them: SFD's raw text
 * objects, contours and layers with nothing modelled in them, references
 * and kerning pairs to a glyph no longer there (the writer drops them, as
 * FontForge does); in SVG, empty text nodes, and neighbouring text nodes
 * count as one (XML has no boundary between them). A document and what
 * its written file reads back as hash alike. */

typedef struct {
  int sfd, svg;
} fz_model;

static inline int fz_is(const ens_obj *o, const char *kind) { return strcmp(ens_obj_kind(o), kind) == 0; }

/* Whether o counts in the model (see above). */
static inline int fz_modelled(const ens_doc *doc, const fz_model *m, const ens_obj *o) {
  ens_value v;
  if (m->sfd) {
    if (fz_is(o, ENS_SFD_RAW)) return 0;
    if ((fz_is(o, ENS_SFD_REF) || fz_is(o, ENS_SFD_KERN)) && ens_obj_get(o, "glyph", &v) == 0 && v.type == ENS_REF &&
        !ens_doc_get(doc, v.u.ref))
      return 0;
    if (fz_is(o, ENS_SFD_CONTOUR) || (fz_is(o, ENS_SFD_LAYER) && ens_obj_get(o, "index", &v) != 0)) {
      for (size_t i = 0; i < ens_obj_child_count(o); i++)
        if (fz_modelled(doc, m, ens_obj_child(o, i))) return 1;
      return 0;
    }
  }
  if (m->svg && fz_is(o, ENS_SVG_TEXT)) return ens_obj_get(o, "text", &v) == 0 && v.type == ENS_STR && v.u.s.len;
  return 1;
}

/* Path of o among modelled siblings, folded. */
static inline uint64_t fz_model_path(const ens_doc *doc, const fz_model *m, const ens_obj *o) {
  uint64_t h = 0x811c9dc5u;
  for (; o && ens_obj_parent(o); o = ens_obj_parent(o)) {
    const ens_obj *p = ens_obj_parent(o);
    size_t rank = 0;
    for (size_t i = 0; i < ens_obj_child_count(p); i++) {
      const ens_obj *k = ens_obj_child(p, i);
      if (k == o) break;
      rank += (size_t)fz_modelled(doc, m, k);
    }
    h = (h ^ (rank + 1)) * 0x100000001b3ULL;
  }
  return h;
}

static inline uint64_t fz_model_value(const ens_doc *doc, const fz_model *m, const ens_value *v) {
  if (v->type == ENS_REF) {
    const ens_obj *t = ens_doc_get(doc, v->u.ref);
    return t ? fz_model_path(doc, m, t) * 7 + 6 : 0xdead;
  }
  return fz_touch_value(v) * 8 + (uint64_t)v->type;
}

static int fz_key_cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static inline uint64_t fz_model_obj(const ens_doc *doc, const fz_model *m, const ens_obj *o, size_t depth) {
  uint64_t h = fz_hash_bytes((const uint8_t *)ens_obj_kind(o), strlen(ens_obj_kind(o))) ^ (depth * 0x9e3779b97f4a7c15ULL);
  size_t np = ens_obj_prop_count(o), nk = 0;
  const char **keys = malloc((np ? np : 1) * sizeof *keys);
  FZ_CHECK(keys, "out of memory");
  for (size_t i = 0; i < np; i++) {
    const char *key;
    ens_value v;
    if (ens_obj_prop_at(o, i, &key, &v) == 0 && key[0] != '~' && key[0] != '@') keys[nk++] = key;
  }
  qsort(keys, nk, sizeof *keys, fz_key_cmp);
  for (size_t i = 0; i < nk; i++) {
    ens_value v;
    ens_obj_get(o, keys[i], &v);
    h = (h ^ fz_hash_bytes((const uint8_t *)keys[i], strlen(keys[i]))) * 0x100000001b3ULL;
    h = (h ^ fz_model_value(doc, m, &v)) * 0x100000001b3ULL;
  }
  free(keys);
  /* children in order; neighbouring SVG text as one */
  const char *run = NULL;
  size_t run_n = 0, run_cap = 0;
  char *buf = NULL;
  for (size_t i = 0; i <= ens_obj_child_count(o); i++) {
    const ens_obj *k = i < ens_obj_child_count(o) ? ens_obj_child(o, i) : NULL;
    if (k && !fz_modelled(doc, m, k)) continue;
    if (k && m->svg && fz_is(k, ENS_SVG_TEXT)) {
      ens_value v;
      ens_obj_get(k, "text", &v);
      if (run_n + v.u.s.len > run_cap) {
        run_cap = (run_n + v.u.s.len) * 2;
        buf = realloc(buf, run_cap);
        FZ_CHECK(buf, "out of memory");
      }
      memcpy(buf + run_n, v.u.s.ptr, v.u.s.len);
      run_n += v.u.s.len;
      run = buf;
      continue;
    }
    if (run) {
      h = (h ^ (fz_hash_bytes((const uint8_t *)run, run_n) * 31 + 0x7e47)) * 0x100000001b3ULL;
      run = NULL;
      run_n = 0;
    }
    if (k) h = (h ^ fz_model_obj(doc, m, k, depth + 1)) * 0x100000001b3ULL;
  }
  free(buf);
  return h;
}

static inline uint64_t fz_model_hash(const ens_doc *doc) {
  fz_model m = {strcmp(ens_doc_kind(doc), ENS_SFD_KIND) == 0, strcmp(ens_doc_kind(doc), ENS_SVG_KIND) == 0};
  return fz_model_obj(doc, &m, ens_doc_root(doc), 0);
}

/* The file doc writes in its format (SFD, SVG or Lottie) reads back as the same
 * document (fz_model_hash), and writing that again gives the same bytes.
 * what names the moment for the message. Documents of other kinds are
 * not checked. Returns 1 when checked. */
static inline int fz_check_written(const ens_doc *doc, const char *what) {
  int sfd = strcmp(ens_doc_kind(doc), ENS_SFD_KIND) == 0, svg = strcmp(ens_doc_kind(doc), ENS_SVG_KIND) == 0;
  int lottie = strcmp(ens_doc_kind(doc), ENS_LOTTIE_KIND) == 0;
  if (!sfd && !svg && !lottie) return 0;
  unsigned char *out = NULL, *again = NULL;
  size_t n = 0, n2 = 0;
  int rc = sfd ? ens_sfd_write(doc, &out, &n) : svg ? ens_svg_write(doc, &out, &n) : ens_lottie_write(doc, &out, &n);
  FZ_CHECK(rc == 0, "%s: the document does not write: %s", what, ens_error_last());
  ens_doc *back = NULL;
  rc = sfd ? ens_sfd_read(out, n, &back) : svg ? ens_svg_read(out, n, &back) : ens_lottie_read(out, n, &back);
  if (rc) fprintf(stderr, "%s: written:\n%.*s\n", what, (int)(n > 4000 ? 4000 : n), (const char *)out);
  FZ_CHECK(rc == 0, "%s: the written file does not read: %s", what, ens_error_last());
  uint64_t want = fz_model_hash(doc), got = fz_model_hash(back);
  if (want != got) fprintf(stderr, "%s: written:\n%.*s\n", what, (int)(n > 4000 ? 4000 : n), (const char *)out);
  FZ_CHECK(want == got, "%s: the written file reads back as another document", what);
  rc = sfd ? ens_sfd_write(back, &again, &n2) : svg ? ens_svg_write(back, &again, &n2) : ens_lottie_write(back, &again, &n2);
  FZ_CHECK(rc == 0 && n2 == n && memcmp(out, again, n) == 0, "%s: the file read back does not write the same bytes", what);
  ens_free(again);
  ens_free(out);
  ens_doc_free(back);
  return 1;
}

/* --- a font and a drawing, for the targets that edit files --------------------
 *
 * Small, with a piece of everything each format models and some of what
 * it keeps as text; read, their objects have ids 1, 2, 3 ... in file
 * order (one MessagePack byte each for the first 127). */

static const char fz_font_text[] =
    "SplineFontDB: 3.2\n"
    "FontName: Fuzz\n"
    "FullName: Fuzz Sans\n"
    "ItalicAngle: -12.5\n"
    "Ascent: 800\n"
    "Descent: 200\n"
    "LayerCount: 2\n"
    "Layer: 0 0 \"Back\" 1\n"
    "Layer: 1 0 \"Fore\" 0\n"
    "Encoding: UnicodeBmp\n"
    "BeginChars: 65536 4\n"
    "\n"
    "StartChar: A\n"
    "Encoding: 65 65 0\n"
    "Width: 600\n"
    "Flags: W\n"
    "TtInstrs:\n"
    "NPUSHB\n"
    "EndTTInstrs\n"
    "AnchorPoint: \"top\" 300 700 basechar 0\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "10 0 m 1\n"
    " 300 700 l 1,0,-1\n"
    "NamedP: \"apex\"\n"
    " 400 350 500 200.25 590 0 c 0x80\n"
    " 10 0 l 1\n"
    "EndSplineSet\n"
    "Kerns2: 1 -40 \"kern1\" 2 -20 \"kern1\" {12-13 -1,-1}\n"
    "Comment: \"caf+AOk-\"\n"
    "EndChar\n"
    "\n"
    "StartChar: B\n"
    "Encoding: 66 66 1\n"
    "Width: 500\n"
    "LayerCount: 2\n"
    "Back\n"
    "SplineSet\n"
    "0 0 m 1\n"
    " 100 0 l 1\n"
    " 0 0 l 1\n"
    "EndSplineSet\n"
    "Fore\n"
    "Refer: 0 65 N 1 0 0 1 50 0 2\n"
    "Validated: 1\n"
    "EndChar\n"
    "\n"
    "StartChar: C\n"
    "Encoding: 67 67 2\n"
    "Width: 400\n"
    "VKerns2: 1 25 \"vkern\"\n"
    "EndChar\n"
    "\n"
    "StartChar: D\n"
    "Encoding: 68 68 3\n"
    "Width: 400\n"
    "LayerCount: 2\n"
    "Fore\n"
    "Refer: 9 68 N 1 0 0 1 0 0 2\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

static const char fz_drawing_text[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<!DOCTYPE svg [\n<!ENTITY red \"#f00\">\n]>\n"
    "<!-- a drawing -->\n"
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">\n"
    "  <g id=\"layer\" transform=\"translate(1 2)\">\n"
    "    <rect id=\"r\" x=\"1\" y = '2' fill=\"&red;\"/>\n"
    "    <text>hi &amp; <![CDATA[raw]]>&red;<?tool data?></text>\n"
    "  </g>\n"
    "</svg>\n";

/* The fixture of kind "sfd" or "svg", read afresh (the caller frees it). */
static inline ens_doc *fz_format_fixture(int svg) {
  ens_doc *doc = NULL;
  int rc = svg ? ens_svg_read(fz_drawing_text, sizeof fz_drawing_text - 1, &doc)
               : ens_sfd_read(fz_font_text, sizeof fz_font_text - 1, &doc);
  FZ_CHECK(rc == 0 && doc, "the %s fixture does not read", svg ? "drawing" : "font");
  return doc;
}

static inline void fz_print_txn(const ens_txn *txn) {
  char *json = ens_txn_to_json(txn);
  fprintf(stderr, "transaction: %.4000s\n", json ? json : "(no JSON)");
  ens_free(json);
}

/* FZ_CHECK that also prints the transaction involved. */
#define FZ_CHECK_TXN(txn, cond, ...)                                         \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fz_print_txn(txn);                                                     \
      FZ_CHECK(cond, __VA_ARGS__);                                           \
    }                                                                        \
  } while (0)

/* Apply txn to doc and check atomicity and the inverse: on failure the
 * hash, count and content hash are unchanged and no inverse is given
 * (checked only when check_atomic); on success the inverse (applied with
 * origin undo, or local-only for a local-only txn, under undo_schema)
 * restores them, and applying txn again
 * reaches the same hash as the first time. The document is left with txn
 * applied. Returns apply's result. */
static inline int fz_apply_checked(ens_doc *doc, const ens_txn *txn, ens_origin origin, const ens_schema *schema,
                                   const ens_schema *undo_schema, int check_atomic) {
  uint64_t h0 = ens_doc_hash(doc), ch0 = ens_doc_content_hash(doc);
  size_t c0 = ens_doc_count(doc);
  ens_txn *inv = (ens_txn *)(uintptr_t)1; /* apply must overwrite it */
  ens_doc_set_schema(doc, schema);
  int rc = ens_doc_apply(doc, txn, origin, &inv);
  if (rc != 0) {
    FZ_CHECK_TXN(txn, rc < 0 && rc >= ENS_EFORMAT, "apply returned %d", rc);
    FZ_CHECK_TXN(txn, inv == NULL, "failed apply gave an inverse");
    if (check_atomic) {
      FZ_CHECK_TXN(txn, ens_doc_hash(doc) == h0, "failed apply (%s) changed the hash", ens_error_name(rc));
      FZ_CHECK_TXN(txn, ens_doc_count(doc) == c0, "failed apply (%s) changed the object count", ens_error_name(rc));
      FZ_CHECK_TXN(txn, ens_doc_content_hash(doc) == ch0, "failed apply (%s) changed the content hash",
                   ens_error_name(rc));
    }
    ens_doc_set_schema(doc, NULL);
    return rc;
  }
  FZ_CHECK_TXN(txn, inv != NULL, "successful apply gave no inverse");
  uint64_t h1 = ens_doc_hash(doc);
  size_t c1 = ens_doc_count(doc);
  ens_doc_set_schema(doc, undo_schema);
  rc = ens_doc_apply(doc, inv, origin == ENS_ORIGIN_LOCAL_ONLY ? ENS_ORIGIN_LOCAL_ONLY : ENS_ORIGIN_UNDO, NULL);
  FZ_CHECK_TXN(txn, rc == 0, "the inverse of a successful apply failed: %s", ens_error_name(rc));
  FZ_CHECK_TXN(txn, ens_doc_hash(doc) == h0, "the inverse did not restore the hash");
  FZ_CHECK_TXN(txn, ens_doc_count(doc) == c0, "the inverse did not restore the object count");
  FZ_CHECK_TXN(txn, ens_doc_content_hash(doc) == ch0, "the inverse did not restore the content hash");
  ens_txn_free(inv);
  ens_doc_set_schema(doc, schema);
  rc = ens_doc_apply(doc, txn, origin, NULL);
  FZ_CHECK_TXN(txn, rc == 0, "applying again after the inverse failed: %s", ens_error_name(rc));
  FZ_CHECK_TXN(txn, ens_doc_hash(doc) == h1, "applying again reached another hash");
  FZ_CHECK_TXN(txn, ens_doc_count(doc) == c1, "applying again reached another object count");
  ens_doc_set_schema(doc, NULL);
  return 0;
}

#endif
