/* Fuzz target: ens_sfd_read on untrusted text; what reads must write back byte for
 * byte and take small edits that touch only the edited glyph. See docs/fuzzing.md. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

/* --- small readers ----------------------------------------------------------- */

static int s_is(const ens_obj *o, const char *kind) { return strcmp(ens_obj_kind(o), kind) == 0; }

static size_t s_textlen_of(const ens_obj *o, const char *key) {
  ens_value v;
  if (ens_obj_get(o, key, &v) != 0) return 0;
  FZ_CHECK(v.type == ENS_BYTES || v.type == ENS_STR, "%s of a %s is not text", key, ens_obj_kind(o));
  return v.u.s.len;
}

/* Bytes of the input an object's subtree came from. docs/sfd.md: an
 * object's own text is its ~head, ~tail or ~text, and a point's line is in
 * its contour's ~text; so over the whole tree the text kept partitions the
 * input, and a glyph's bytes are the sum over its subtree. */
static size_t s_textlen(const ens_obj *o) {
  size_t n = s_textlen_of(o, "~head") + s_textlen_of(o, "~tail") + s_textlen_of(o, "~text");
  for (size_t i = 0; i < ens_obj_child_count(o); i++) n += s_textlen(ens_obj_child(o, i));
  return n;
}

/* A growable list of objects; the static ones below are reused from input
 * to input (freed never: libFuzzer does not mind, LeakSanitizer sees them
 * reachable). */
typedef struct {
  const ens_obj **o;
  size_t n, cap;
} s_list;

static void s_push(s_list *l, const ens_obj *o) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 256;
    l->o = realloc(l->o, l->cap * sizeof *l->o);
    FZ_CHECK(l->o, "out of memory");
  }
  l->o[l->n++] = o;
}

/* Glyphs of a document in order (root children of kind glyph). */
static void s_list_glyphs(const ens_doc *doc, s_list *gl) {
  const ens_obj *root = ens_doc_root(doc);
  gl->n = 0;
  for (size_t i = 0; i < ens_obj_child_count(root); i++)
    if (s_is(ens_obj_child(root, i), ENS_SFD_GLYPH)) s_push(gl, ens_obj_child(root, i));
}

/* Index of a glyph among the glyphs (-1: not a glyph of the list). */
static long s_glyph_index(const s_list *gl, ens_id id) {
  for (size_t i = 0; i < gl->n; i++)
    if (ens_obj_id(gl->o[i]) == id) return (long)i;
  return -1;
}

/* A reference or kerning pair whose glyph the document no longer has: the
 * writer drops its line. */
static int s_dangling(const ens_doc *doc, const ens_obj *o) {
  ens_value v;
  if (!(s_is(o, ENS_SFD_REF) || s_is(o, ENS_SFD_KERN))) return 0;
  return ens_obj_get(o, "glyph", &v) == 0 && v.type == ENS_REF && !ens_doc_get(doc, v.u.ref);
}

/* Modelled objects of a glyph, flattened in pre-order: what a reader of the
 * written text must find again. Contours and layers count only when they
 * hold something modelled (an emptied one has no text left to find);
 * dangling references and kerning pairs not at all (the writer drops
 * them). */
static size_t s_flatten(const ens_doc *doc, const ens_obj *o, s_list *f) {
  size_t added = 0;
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    if (s_is(k, ENS_SFD_RAW) || s_dangling(doc, k)) continue;
    int container = s_is(k, ENS_SFD_LAYER) || s_is(k, ENS_SFD_CONTOUR);
    size_t at = f->n;
    s_push(f, k);
    size_t inner = s_flatten(doc, k, f);
    if (container && inner == 0) f->n = at; /* empty: drop it again */
    else added += 1 + inner;
  }
  return added;
}

/* Non-'~' properties of a and b are equal; references compare by the index
 * of the glyph they name (ids differ between two reads). */
static void s_same_props(const s_list *ga, const ens_obj *a, const s_list *gb, const ens_obj *b, const char *what) {
  size_t na = 0, nb = 0;
  for (size_t i = 0; i < ens_obj_prop_count(a); i++) {
    const char *key;
    ens_value va, vb;
    FZ_CHECK(ens_obj_prop_at(a, i, &key, &va) == 0, "prop_at");
    if (key[0] == '~') continue;
    na++;
    FZ_CHECK(ens_obj_get(b, key, &vb) == 0, "%s: a %s lost its '%s' when written and read again", what,
             ens_obj_kind(a), key);
    if (va.type == ENS_REF && vb.type == ENS_REF) {
      long ia = s_glyph_index(ga, va.u.ref), ib = s_glyph_index(gb, vb.u.ref);
      FZ_CHECK(ia == ib && ia >= 0, "%s: a %s names glyph %ld, read back %ld", what, ens_obj_kind(a), ia, ib);
      continue;
    }
    FZ_CHECK(ens_value_equal(&va, &vb), "%s: a %s's '%s' changed when written and read again", what,
             ens_obj_kind(a), key);
  }
  for (size_t i = 0; i < ens_obj_prop_count(b); i++) {
    const char *key;
    ens_value vb;
    FZ_CHECK(ens_obj_prop_at(b, i, &key, &vb) == 0, "prop_at");
    if (key[0] != '~') nb++;
  }
  FZ_CHECK(na == nb, "%s: a %s has %zu modelled properties, %zu when written and read again", what,
           ens_obj_kind(a), na, nb);
}

/* b (a fresh read of what a was written as) models the same font as a:
 * the same glyphs in order, each with the same properties and the same
 * layers, contours, points, references, anchors and kerning pairs. */
static void s_same_model(const ens_doc *a, const ens_doc *b, const char *what) {
  static s_list ga, gb;
  static s_list fa, fb;
  s_list_glyphs(a, &ga);
  s_list_glyphs(b, &gb);
  FZ_CHECK(ga.n == gb.n, "%s: %zu glyphs, %zu when written and read again", what, ga.n, gb.n);
  for (size_t i = 0; i < ga.n; i++) {
    s_same_props(&ga, ga.o[i], &gb, gb.o[i], what);
    fa.n = fb.n = 0;
    s_flatten(a, ga.o[i], &fa);
    s_flatten(b, gb.o[i], &fb);
    FZ_CHECK(fa.n == fb.n, "%s: glyph %zu has %zu modelled objects, %zu when written and read again", what, i, fa.n,
             fb.n);
    for (size_t j = 0; j < fa.n; j++) {
      FZ_CHECK(s_is(fa.o[j], ens_obj_kind(fb.o[j])), "%s: glyph %zu: object %zu is a %s, read back a %s", what, i, j,
               ens_obj_kind(fa.o[j]), ens_obj_kind(fb.o[j]));
      s_same_props(&ga, fa.o[j], &gb, fb.o[j], what);
    }
  }
}

/* --- write and read ---------------------------------------------------------- */

static unsigned char *s_write(const ens_doc *doc, size_t *len, const char *what) {
  unsigned char *out = (unsigned char *)(uintptr_t)1;
  int rc = ens_sfd_write(doc, &out, len);
  FZ_CHECK(rc == 0 && out, "%s: ens_sfd_write failed: %s", what, ens_error_name(rc));
  FZ_CHECK(out[*len] == '\0', "%s: no NUL after the written text", what);
  return out;
}

static void s_same_bytes(const uint8_t *want, size_t wn, const unsigned char *got, size_t gn, const char *what) {
  if (wn == gn && memcmp(want, got, wn) == 0) return;
  size_t i = 0;
  while (i < wn && i < gn && want[i] == got[i]) i++;
  size_t from = i > 40 ? i - 40 : 0;
  fprintf(stderr, "%s: %zu bytes, want %zu; first difference at byte %zu\n  want: %.80s\n  got:  %.80s\n", what, gn,
          wn, i, (const char *)want + from, (const char *)got + from);
  FZ_CHECK(0, "%s: the text differs", what);
}

/* A failed read: a documented code, no document, and for ENS_EDECODE a
 * "line N:" with N within the text, or one past its last line (the reader
 * names the end of the text so when the text stops early). */
static void s_check_refusal(int rc, const ens_doc *doc, const uint8_t *data, size_t size) {
  FZ_CHECK(rc == ENS_EDECODE || rc == ENS_ELIMIT || rc == ENS_ENOMEM, "read returned %d", rc);
  FZ_CHECK(doc == NULL, "failed read left a document");
  if (rc != ENS_EDECODE) return;
  const char *msg = ens_error_last(), *at = strstr(msg, "line ");
  FZ_CHECK(at, "ENS_EDECODE without a line number: %s", msg);
  unsigned long line = strtoul(at + 5, NULL, 10);
  size_t lines = size && data[size - 1] != '\n';
  for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
  FZ_CHECK(line >= 1 && line <= lines + 1, "error names line %lu of %zu: %s", line, lines, msg);
}

/* Everything the public readers say about an SFD document: identity keys
 * are NUL-terminated and fit, contours answer closed or not. */
static void s_check_sfd_readers(const ens_obj *o) {
  char key[64];
  memset(key, 'x', sizeof key);
  int k = ens_sfd_identity(o, key, sizeof key, NULL);
  FZ_CHECK(k >= 0 && k <= 2, "ens_sfd_identity returned %d", k);
  if (k) FZ_CHECK(memchr(key, '\0', sizeof key), "identity key not terminated");
  if (k) FZ_CHECK(ens_sfd_identity(o, key, 1, NULL) >= 0 && key[0] == '\0', "identity key in a 1-byte buffer");
  if (s_is(o, ENS_SFD_CONTOUR)) fz_sink += (uint64_t)ens_sfd_contour_closed(o);
  for (size_t i = 0; i < ens_obj_child_count(o); i++) s_check_sfd_readers(ens_obj_child(o, i));
}

/* --- edits ---------------------------------------------------------------------- */

/* Objects under o of one of the kinds in `kinds` (space-separated). */
static void s_collect(const ens_obj *o, const char *kinds, s_list *f) {
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    const char *kind = ens_obj_kind(k);
    const char *hit = strstr(kinds, kind);
    size_t kl = strlen(kind);
    if (hit && (hit[kl] == ' ' || hit[kl] == '\0') && (hit == kinds || hit[-1] == ' ')) s_push(f, k);
    s_collect(k, kinds, f);
  }
}

/* A real near v, away from it by one of a few awkward steps, within a float
 * (FontForge keeps coordinates in floats; the reader refuses beyond). */
static double s_nudge(fz_rng *r, double v) {
  static const double steps[] = {1, -1, 0.5, -0.25, 0.1, 1.0 / 3, 1e-7, 100, -1000.5, 12345.678};
  double d = steps[fz_below(r, sizeof steps / sizeof steps[0])];
  double n = v + d;
  if (!isfinite(n) || fabs(n) > FLT_MAX) n = d;
  return n;
}

typedef struct {
  ens_id target; /* the edited object */
  const char *key;
  ens_value want; /* what it must read back as (ENS_NIL: deleted) */
} s_edit;

/* One small edit inside glyph g: its width, a point (or an anchor or a
 * reference offset) moved, or a modelled object deleted. */
static ens_txn *s_make_edit(fz_rng *r, const ens_obj *g, s_edit *e) {
  static s_list f;
  ens_txn *t = ens_txn_new("fuzz edit", NULL);
  FZ_CHECK(t, "txn");
  ens_value v;
  e->key = NULL;
  e->want = ens_nil();
  switch (fz_below(r, 4)) {
  case 0: { /* width, within a C int as SFD has it */
    static const int64_t widths[] = {0, 1, -1, 600, 1233, 65535, -32768, 2147483647, -2147483647 - 1};
    int64_t w = fz_below(r, 2) ? widths[fz_below(r, sizeof widths / sizeof widths[0])] : (int64_t)fz_below(r, 3000);
    e->target = ens_obj_id(g);
    e->key = "width";
    e->want = ens_int(w);
    break;
  }
  case 1: { /* a point, a control point of it, an anchor or a reference moves */
    f.n = 0;
    s_collect(g, "point anchor ref", &f);
    if (!f.n) break;
    const ens_obj *o = f.o[fz_below(r, (uint32_t)f.n)];
    static const char *const point_keys[] = {"x", "y", "c1x", "c1y", "c2x", "c2y"};
    const char *key = s_is(o, ENS_SFD_REF) ? (fz_below(r, 2) ? "dx" : "dy")
                                            : s_is(o, ENS_SFD_ANCHOR) ? (fz_below(r, 2) ? "x" : "y")
                                                                      : point_keys[fz_below(r, 6)];
    if (ens_obj_get(o, key, &v) != 0 || v.type != ENS_REAL) key = s_is(o, ENS_SFD_REF) ? "dx" : "x";
    if (ens_obj_get(o, key, &v) != 0 || v.type != ENS_REAL) break;
    e->target = ens_obj_id(o);
    e->key = key;
    e->want = ens_real(s_nudge(r, v.u.r));
    break;
  }
  default: { /* delete a modelled object */
    f.n = 0;
    s_collect(g, "point contour ref anchor kern layer", &f);
    if (!f.n) break;
    e->target = ens_obj_id(f.o[fz_below(r, (uint32_t)f.n)]);
    FZ_CHECK(ens_txn_delete(t, e->target) == 0, "txn delete");
    return t;
  }
  }
  if (!e->key) { /* nothing of that kind here: set the width instead */
    e->target = ens_obj_id(g);
    e->key = "width";
    e->want = ens_int(500);
  }
  FZ_CHECK(ens_txn_set(t, e->target, e->key, e->want) == 0, "txn set");
  return t;
}

/* For triage: with SFD_FUZZ_DUMP=FILE in the environment, the edited text
 * goes to FILE and the edits' inverses to standard error before any check
 * of them can fail. */
static void s_dump(const unsigned char *text, size_t n, ens_txn *const *inv, int ninv) {
  static const char *path;
  static int looked;
  if (!looked) {
    path = getenv("SFD_FUZZ_DUMP");
    looked = 1;
  }
  if (!path) return;
  FILE *f = fopen(path, "wb");
  if (f) {
    fwrite(text, 1, n, f);
    fclose(f);
  }
  for (int i = 0; i < ninv; i++) {
    fprintf(stderr, "inverse of edit %d: ", i);
    fz_print_txn(inv[i]);
  }
}

/* Edits one glyph (or deletes it), writes, reads back; checks the text
 * outside the glyph, the model read back, and that undoing every edit
 * gives the input back. */
static void s_edit_and_check(ens_doc *doc, const uint8_t *data, size_t size) {
  static s_list gl;
  s_list_glyphs(doc, &gl);
  if (!gl.n) return;
  fz_rng r = {fz_hash_bytes(data, size) ^ 0x5fd5fd};
  size_t gi = fz_below(&r, (uint32_t)gl.n);
  const ens_obj *g = gl.o[gi];
  ens_id gid = ens_obj_id(g);

  /* where the glyph's text lies in the input: after the root's head and the
   * root's children before it */
  const ens_obj *root = ens_doc_root(doc);
  size_t gs = s_textlen_of(root, "~head");
  for (size_t i = 0; i < ens_obj_index(g); i++) gs += s_textlen(ens_obj_child(root, i));
  size_t ge = gs + s_textlen(g);
  FZ_CHECK(ge <= size, "glyph text runs past the input");

  uint64_t h0 = ens_doc_hash(doc);
  ens_txn *inv[2] = {NULL, NULL};
  s_edit ed[2];
  int nedits = 1 + (int)fz_below(&r, 2), deleted_glyph = 0;
  for (int i = 0; i < nedits; i++) {
    ens_txn *t;
    if (i == 0 && fz_below(&r, 16) == 0) { /* now and then the whole glyph goes */
      t = ens_txn_new("fuzz delete glyph", NULL);
      FZ_CHECK(t && ens_txn_delete(t, gid) == 0, "txn");
      ed[i].target = gid;
      ed[i].key = NULL;
      deleted_glyph = 1;
      nedits = 1;
    } else {
      t = s_make_edit(&r, g, &ed[i]);
    }
    uint64_t before = ens_doc_hash(doc);
    int rc = ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, &inv[i]);
    if (deleted_glyph && rc == ENS_EFORMAT && strstr(ens_error_last(), "has no Encoding: line to say its number")) {
      /* the one refusal a removal may meet: a glyph after it, numbered by
       * its place, has no Encoding: line to keep its number on, and the
       * font's rules refuse what the writer could not write (docs/sfd.md) */
      FZ_CHECK(ens_doc_hash(doc) == h0, "a refused removal changed the font");
      ens_txn_free(t);
      nedits = 0;
      goto undo;
    }
    if (rc == ENS_EFORMAT && !ed[i].key) {
      /* a removal may leave what SFD cannot say (a contour whose first
       * point has control points, a layer without its Fore line after
       * another): the font's rules refuse it whole, with a reason */
      FZ_CHECK(ens_error_last()[0] != '\0', "a refusal without a reason");
      FZ_CHECK(ens_doc_hash(doc) == before, "a refused removal changed the font");
      ens_txn_free(t);
      nedits = i;
      if (deleted_glyph) goto undo;
      break;
    }
    FZ_CHECK_TXN(t, rc == 0 && inv[i], "an edit of a read font failed: %s: %s", ens_error_name(rc), ens_error_last());
    ens_txn_free(t);
    fz_check_written(doc, "an accepted edit");
  }
  fz_check_doc(doc, 0);

  size_t n2;
  unsigned char *out2 = s_write(doc, &n2, "edited");
  s_dump(out2, n2, inv, nedits);
  if (!deleted_glyph) {
    /* only the glyph's own lines may change */
    FZ_CHECK(n2 >= gs + (size - ge), "edited text is shorter than the text around the glyph");
    s_same_bytes(data, gs, out2, gs, "text before the edited glyph");
    s_same_bytes(data + ge, size - ge, out2 + n2 - (size - ge), size - ge, "text after the edited glyph");
  }
  ens_doc *back = NULL;
  int rc = ens_sfd_read(out2, n2, &back);
  FZ_CHECK(rc == 0, "the edited font, written, does not read: %s", ens_error_last());
  s_same_model(doc, back, "edited");
  if (!deleted_glyph) {
    static s_list gb;
    s_list_glyphs(back, &gb);
    for (int i = 0; i < nedits; i++) {
      if (!ed[i].key) continue;
      if (i + 1 < nedits && ed[i + 1].key && ed[i + 1].target == ed[i].target && !strcmp(ed[i + 1].key, ed[i].key))
        continue; /* set again by the next edit */
      /* the edited value is there, at the same place */
      const ens_obj *o = ens_doc_get(doc, ed[i].target);
      if (!o) continue; /* deleted */
      FZ_CHECK(gb.n == gl.n, "glyph count");
      const ens_obj *bg = gb.o[gi];
      if (o != g) {
        static s_list fa, fb;
        fa.n = fb.n = 0;
        s_flatten(doc, g, &fa);
        s_flatten(back, bg, &fb);
        size_t j = 0;
        while (j < fa.n && fa.o[j] != o) j++;
        if (j == fa.n || j >= fb.n) continue; /* s_same_model checked the shape */
        o = fa.o[j];
        bg = fb.o[j];
      }
      ens_value got;
      FZ_CHECK(ens_obj_get(bg, ed[i].key, &got) == 0 && ens_value_equal(&got, &ed[i].want),
               "edit %d: '%s' does not read back as set", i, ed[i].key);
    }
  }
  /* what the writer wrote, it writes again */
  size_t n3;
  unsigned char *out3 = s_write(back, &n3, "edited, read again");
  s_same_bytes(out2, n2, out3, n3, "writing the edited font again");
  ens_free(out3);
  ens_doc_free(back);
  ens_free(out2);

  /* undo, newest first: the input comes back */
undo:
  for (int i = nedits - 1; i >= 0; i--) {
    rc = ens_doc_apply(doc, inv[i], ENS_ORIGIN_UNDO, NULL);
    FZ_CHECK(rc == 0, "undo of edit %d failed: %s", i, ens_error_name(rc));
    ens_txn_free(inv[i]);
  }
  FZ_CHECK(ens_doc_hash(doc) == h0, "undo did not restore the hash");
  size_t n4;
  unsigned char *out4 = s_write(doc, &n4, "edited and undone");
  s_same_bytes(data, size, out4, n4, "edited and undone");
  ens_free(out4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ens_doc *doc = (ens_doc *)(uintptr_t)1; /* read must overwrite it */
  int rc = ens_sfd_read(data, size, &doc);
  if (rc != 0) {
    s_check_refusal(rc, doc, data, size);
    return 0;
  }
  FZ_CHECK(doc != NULL, "read succeeded without a document");
  FZ_CHECK(strcmp(ens_doc_kind(doc), ENS_SFD_KIND) == 0, "document kind %s", ens_doc_kind(doc));
  FZ_CHECK(!ens_sfd_is_dir(doc), "a text read as an SFDir");
  fz_check_doc(doc, 0);
  s_check_sfd_readers(ens_doc_root(doc));
  FZ_CHECK(s_textlen(ens_doc_root(doc)) == size, "the kept text is %zu bytes, the input %zu",
           s_textlen(ens_doc_root(doc)), size);

  /* lossless: the same bytes back, and they read to the same document */
  size_t n;
  unsigned char *out = s_write(doc, &n, "round trip");
  s_same_bytes(data, size, out, n, "round trip");
  ens_doc *again = NULL;
  rc = ens_sfd_read(out, n, &again);
  FZ_CHECK(rc == 0 && again, "the written text does not read: %s", ens_error_last());
  FZ_CHECK(ens_doc_hash(again) == ens_doc_hash(doc), "reading the written text gives another hash");
  FZ_CHECK(ens_doc_count(again) == ens_doc_count(doc), "reading the written text gives another object count");
  ens_doc_free(again);
  ens_free(out);

  /* a snapshot keeps everything the writer needs */
  ens_doc *snap = NULL;
  fz_snapshot_roundtrip(doc, NULL, NULL, &snap);
  out = s_write(snap, &n, "after a snapshot");
  s_same_bytes(data, size, out, n, "after a snapshot");
  ens_free(out);
  ens_doc_free(snap);

  s_edit_and_check(doc, data, size);
  ens_doc_free(doc);
  return 0;
}
