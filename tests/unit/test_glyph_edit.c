/* The glyph editing commands (ensemble/glyph.h) on small inline fonts:
 * each changes the right objects and properties, is one undo step (undo
 * gives back the document's hash, redo the edited one), and written back
 * changes the lines of the glyphs it edited and no others. Errors leave
 * the font as it was. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

static const char s_font[] =
    "SplineFontDB: 3.2\n"
    "FontName: Edit\n"
    "FullName: Edit Test\n"
    "Ascent: 800\n"
    "Descent: 200\n"
    "LayerCount: 2\n"
    "Layer: 0 0 \"Back\" 1\n"
    "Layer: 1 0 \"Fore\" 0\n"
    "Lookup: 1 0 0 \"ss01\" { \"ss01-1\" } ['ss01' ('latn' <'dflt' > ) ]\n"
    "Lookup: 258 0 0 \"kern\" { \"kern1\" \"kernc\" } ['kern' ('latn' <'dflt' > ) ]\n"
    "KernClass2: 2 2 \"kernc\"\n"
    " 3 A D\n"
    " 1 C\n"
    " 0 {} 0 {} 0 {} -30 {}\n"
    "MarkAttachClasses: 1\n"
    "\"MarkClass1\" 3 D E\n"
    "Encoding: UnicodeBmp\n"
    "BeginChars: 65536 6\n"
    "\n"
    "StartChar: A\n"
    "Encoding: 65 65 0\n"
    "Width: 600\n"
    "Flags: W\n"
    "HStem: 0 20<10 590>\n"
    "VStem: 10 30<0 700>\n"
    "AnchorPoint: \"top\" 300 700 basechar 0\n"
    "LayerCount: 2\n"
    "Back\n"
    "SplineSet\n"
    "0 0 m 1\n"
    " 100 0 l 1\n"
    " 0 0 l 1\n"
    "EndSplineSet\n"
    "Fore\n"
    "SplineSet\n"
    "10 0 m 1\n"
    " 300 700 l 1\n"
    " 400 350 500 200 590 0 c 0\n"
    " 10 0 l 1\n"
    "200 100 m 1\n"
    " 300 100 l 1\n"
    " 250 200 l 1\n"
    " 200 100 l 1\n"
    "EndSplineSet\n"
    "Kerns2: 2 -40 \"kern1\" 3 -20 \"kern1\"\n"
    "EndChar\n"
    "\n"
    "StartChar: B\n"
    "Encoding: 66 66 1\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "Refer: 0 65 N 1 0 0 1 0 0 3\n"
    "EndChar\n"
    "\n"
    "StartChar: C\n"
    "Encoding: 67 67 2\n"
    "Width: 400\n"
    "Flags: W\n"
    "Substitution2: \"ss01-1\" A\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "100 100 m 0\n"
    " 50 100 20 150 20 200 c 0\n"
    " 20 250 50 300 100 300 c 0\n"
    " 150 300 180 250 180 200 c 0\n"
    " 180 150 150 100 100 100 c 0\n"
    "EndSplineSet\n"
    "EndChar\n"
    "\n"
    "StartChar: D\n"
    "Encoding: 68 68 3\n"
    "Width: 500\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "0 0 m 1\n"
    " 100 100 l 1\n"
    " 200 0 l 1\n"
    " 300 100 l 1\n"
    "EndSplineSet\n"
    "Kerns2: 0 -10 \"kern1\"\n"
    "EndChar\n"
    "\n"
    "StartChar: E\n"
    "Encoding: 69 69 4\n"
    "Width: 300\n"
    "Flags: W\n"
    "EndChar\n"
    "\n"
    "StartChar: F\n"
    "Encoding: 70 70 5\n"
    "Width: 400\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "100 0 m 1\n"
    " -50 100 -50 200 100 300 c 0\n"
    " 100 0 l 1\n"
    "EndSplineSet\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

/* A TrueType (quadratic) font: its points carry ",ttf,nextcp" numbers. */
static const char s_quad[] =
    "SplineFontDB: 3.2\n"
    "FontName: Quad\n"
    "LayerCount: 2\n"
    "Layer: 0 1 \"Back\" 1\n"
    "Layer: 1 1 \"Fore\" 0\n"
    "Encoding: UnicodeBmp\n"
    "BeginChars: 65536 1\n"
    "\n"
    "StartChar: O\n"
    "Encoding: 79 79 0\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "300 0 m 1,0,-1\n"
    " 500 0 l 1,1,2\n"
    " 600 0 600 0 600 100 c 1,3,-1\n"
    " 600 300 l 1,4,-1\n"
    " 300 300 l 1,5,-1\n"
    " 300 0 l 1,0,-1\n"
    "EndSplineSet\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

/* Glyph names in lookup text, with CRLF line ends. */
static const char s_names_font[] =
    "SplineFontDB: 3.2\r\n"
    "FontName: Names\r\n"
    "LayerCount: 2\r\n"
    "ChainPos2: coverage \"ctx\" 0 0 0 1\r\n"
    " 1 1 0\r\n"
    "  Coverage: 5 f f.a\r\n"
    "  BCoverage: 3 f.a\r\n"
    " 1\r\n"
    "  SeqLookup: 0 \"kern\"\r\n"
    "EndFPST\r\n"
    "Encoding: Custom\r\n"
    "BeginChars: 4 4\r\n"
    "\r\n"
    "StartChar: f\r\n"
    "Encoding: 0 102 0\r\n"
    "Width: 300\r\n"
    "Flags: W\r\n"
    "LayerCount: 2\r\n"
    "EndChar\r\n"
    "\r\n"
    "StartChar: f.a\r\n"
    "Encoding: 1 -1 1\r\n"
    "Width: 300\r\n"
    "Flags: W\r\n"
    "LayerCount: 2\r\n"
    "EndChar\r\n"
    "\r\n"
    "StartChar: f_f\r\n"
    "Encoding: 2 -1 2\r\n"
    "Width: 600\r\n"
    "Flags: W\r\n"
    "LayerCount: 2\r\n"
    "Fore\r\n"
    "SplineSet\r\n"
    "0 0 m 1\r\n"
    " 10 0 l 1\r\n"
    "EndSplineSet\r\n"
    "Ligature2: \"liga\" f f\r\n"
    "AlternateSubs2: \"aalt\" f.a  f\r\n"
    "PairPos2: \"pair\" f dx=0 dy=0 dh=-20 dv=0\r\n"
    "GlyphCompositionVertical: 2  f%0,0,10,20 f.a%1,5,5,30\r\n"
    "EndChar\r\n"
    "\r\n"
    "StartChar: paren\r\n"
    "Encoding: 3 40 3\r\n"
    "Width: 300\r\n"
    "Flags: W\r\n"
    "GlyphVariantsVertical: paren paren.size1\r\n"
    "Kerns2: 3 -5 \"kern\"\r\n"
    "EndChar\r\n"
    "EndChars\r\n"
    "EndSplineFont\r\n";

/* --- helpers ------------------------------------------------------------------------------ */

static ens_doc *s_read(const char *text) {
  ens_doc *doc = NULL;
  int rc = ens_sfd_read(text, strlen(text), &doc);
  if (rc) fprintf(stderr, "read: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  ens_doc_set_site(doc, 7); /* an editor's replica, as a session would have */
  return doc;
}

static char *s_write(const ens_doc *doc) {
  unsigned char *out;
  size_t n;
  int rc = ens_sfd_write(doc, &out, &n);
  if (rc) fprintf(stderr, "write: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  return (char *)out;
}

/* Applies txn as one undo step and checks that it is one: undo gives back
 * the hash from before, redo the hash from after. Frees txn. */
static void s_commit(ens_doc *doc, ens_txn *txn) {
  assert_non_null(txn);
  ens_undo *u = ens_undo_new(doc, 0);
  uint64_t before = ens_doc_hash(doc);
  int rc = ens_undo_commit(u, txn);
  if (rc) fprintf(stderr, "commit: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  assert_int_equal(ens_undo_undo_count(u), 1);
  uint64_t after = ens_doc_hash(doc);
  assert_int_equal(ens_undo_undo(u, NULL), 0);
  assert_true(ens_doc_hash(doc) == before);
  assert_int_equal(ens_undo_redo(u, NULL), 0);
  assert_true(ens_doc_hash(doc) == after);
  ens_undo_free(u);
  ens_txn_free(txn);
}

/* Builds with rc checked. */
#define S_OK(call)                                              \
  do {                                                          \
    int rc_ = (call);                                           \
    if (rc_) fprintf(stderr, "%s: %s\n", #call, ens_error_last()); \
    assert_int_equal(rc_, 0);                                   \
  } while (0)

/* A failing build: the expected code, no transaction, an unchanged font. */
static void s_refused(ens_doc *doc, int want, int rc, ens_txn *txn) {
  uint64_t h = ens_doc_hash(doc);
  assert_int_equal(rc, want);
  assert_null(txn);
  assert_true(ens_error_last()[0] != '\0');
  assert_true(ens_doc_hash(doc) == h);
}

/* The text of glyph `name` (StartChar: to EndChar), or NULL. */
static const char *s_block(const char *text, const char *name, size_t *len) {
  char key[128];
  snprintf(key, sizeof key, "\nStartChar: %s\n", name);
  const char *a = strstr(text, key);
  if (!a) return NULL;
  a++;
  const char *e = strstr(a, "\nEndChar\n");
  *len = (size_t)(e + 9 - a);
  return a;
}

/* Every glyph of the original but those named in `edited` (NULL-ended)
 * is written byte for byte, and so is all text outside glyphs. */
static void s_only_glyphs_changed(const char *orig, const char *out, const char *const *edited) {
  static const char *const all[] = {"A", "B", "C", "D", "E", "F", "O"};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    int skip = 0;
    for (size_t k = 0; edited[k]; k++) skip |= strcmp(edited[k], all[i]) == 0;
    size_t la = 0, lb = 0;
    const char *a = s_block(orig, all[i], &la), *b = s_block(out, all[i], &lb);
    if (skip || !a) continue;
    if (!b || la != lb || memcmp(a, b, la) != 0)
      fprintf(stderr, "glyph %s changed:\n%.*s\n", all[i], (int)lb, b ? b : "");
    assert_non_null(b);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
  }
  /* the header up to the first glyph */
  const char *ha = strstr(orig, "\nStartChar:"), *hb = strstr(out, "\nStartChar:");
  int header_edited = 0;
  for (size_t k = 0; edited[k]; k++) header_edited |= strcmp(edited[k], "<header>") == 0;
  if (!header_edited) {
    assert_int_equal(ha - orig, hb - out);
    assert_memory_equal(orig, out, (size_t)(ha - orig));
  }
}

static const ens_obj *s_child(const ens_obj *o, const char *kind, size_t nth) {
  for (size_t i = 0; o && i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    if (strcmp(ens_obj_kind(k), kind) == 0 && nth-- == 0) return k;
  }
  return NULL;
}

static const ens_obj *s_fore(const ens_doc *doc, const char *glyph) {
  const ens_obj *g = ens_glyph_find(doc, glyph);
  for (size_t i = 0; g && i < ens_obj_child_count(g); i++) {
    const ens_obj *k = ens_obj_child(g, i);
    ens_value v;
    if (strcmp(ens_obj_kind(k), "layer") == 0 && ens_obj_get(k, "index", &v) == 0 && v.u.i == 1) return k;
  }
  return NULL;
}

static const ens_obj *s_pt(const ens_doc *doc, const char *glyph, size_t contour, size_t point) {
  return ens_obj_child(s_child(s_fore(doc, glyph), "contour", contour), point);
}

static double s_num(const ens_obj *o, const char *key) {
  ens_value v;
  assert_int_equal(ens_obj_get(o, key, &v), 0);
  return v.type == ENS_REAL ? v.u.r : (double)v.u.i;
}

static int64_t s_int(const ens_obj *o, const char *key) {
  ens_value v;
  assert_int_equal(ens_obj_get(o, key, &v), 0);
  assert_int_equal(v.type, ENS_INT);
  return v.u.i;
}

static void s_contains(const char *text, const char *want) {
  if (!strstr(text, want)) fprintf(stderr, "missing in the output:\n%s\n", want);
  assert_non_null(strstr(text, want));
}

/* --- metrics -------------------------------------------------------------------------------- */

static void test_width_and_its_bound_glyph(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_txn *t;
  S_OK(ens_glyph_set_width(doc, "A", 610, &t));
  s_commit(doc, t);
  assert_int_equal(s_int(ens_glyph_find(doc, "A"), "width"), 610);
  /* B uses A's metrics (Refer flag 1) and had its width: it follows */
  assert_int_equal(s_int(ens_glyph_find(doc, "B"), "width"), 610);
  char *out = s_write(doc);
  s_contains(out, "StartChar: A\nEncoding: 65 65 0\nWidth: 610\n");
  s_contains(out, "StartChar: B\nEncoding: 66 66 1\nWidth: 610\n");
  s_only_glyphs_changed(s_font, out, (const char *const[]){"A", "B", NULL});
  ens_free(out);
  /* B's own width is A's: refused */
  t = NULL;
  s_refused(doc, ENS_EINVAL, ens_glyph_set_width(doc, "B", 500, &t), t);
  s_refused(doc, ENS_EINVAL, ens_glyph_set_width(doc, "A", 40000, &t), t);
  s_refused(doc, ENS_ENOTFOUND, ens_glyph_set_width(doc, "nope", 500, &t), t);
  ens_doc_free(doc);
}

static void test_bounds_follow_curves_and_references(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  double x0, y0, x1, y1;
  S_OK(ens_glyph_bounds(doc, "F", &x0, &y0, &x1, &y1));
  assert_true(x0 == -12.5); /* the curve's extreme, between its points */
  assert_true(x1 == 100 && y0 == 0 && y1 == 300);
  S_OK(ens_glyph_bounds(doc, "B", &x0, &y0, &x1, &y1)); /* through its reference to A */
  assert_true(x0 == 10 && x1 == 590 && y1 == 700);
  assert_int_equal(ens_glyph_bounds(doc, "E", &x0, NULL, NULL, NULL), ENS_EINVAL);
  ens_doc_free(doc);
}

static void test_lsb_moves_everything_together(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_txn *t;
  S_OK(ens_glyph_set_lsb(doc, "A", 40, &t)); /* xmin 10: everything moves by 30 */
  s_commit(doc, t);
  const ens_obj *a = ens_glyph_find(doc, "A");
  assert_int_equal(s_int(a, "width"), 630);
  assert_true(s_num(s_pt(doc, "A", 0, 0), "x") == 40);
  assert_true(s_num(s_pt(doc, "A", 0, 2), "c1x") == 430 && s_num(s_pt(doc, "A", 0, 2), "c2x") == 530);
  assert_true(s_num(s_child(a, "anchor", 0), "x") == 330);
  char *out = s_write(doc);
  s_contains(
      out, "Width: 630\nFlags: W\nHStem: 0 20<40 620>\nVStem: 40 30<0 700>\nAnchorPoint: \"top\" 330 700 basechar 0\n");
  s_contains(out, "Back\nSplineSet\n30 0 m 1\n 130 0 l 1\n 30 0 l 1\n"); /* every layer, as FontForge */
  s_contains(out, " 430 350 530 200 620 0 c 0\n");
  s_contains(out, "StartChar: B\nEncoding: 66 66 1\nWidth: 630\n"); /* bound to A's metrics */
  s_only_glyphs_changed(s_font, out, (const char *const[]){"A", "B", NULL});
  ens_free(out);
  /* B: its reference moves; its width is A's and stays */
  S_OK(ens_glyph_set_lsb(doc, "B", 0, &t));
  s_commit(doc, t);
  const ens_obj *ref = s_child(s_fore(doc, "B"), "ref", 0);
  assert_true(s_num(ref, "dx") == -40);
  assert_int_equal(s_int(ens_glyph_find(doc, "B"), "width"), 630);
  /* a curve's extreme sets the bearing; coordinates land on 1/1024 */
  S_OK(ens_glyph_set_lsb(doc, "F", 10.3, &t));
  s_commit(doc, t);
  double x0;
  S_OK(ens_glyph_bounds(doc, "F", &x0, NULL, NULL, NULL));
  assert_true(x0 > 10.29 && x0 < 10.31);
  double x = s_num(s_pt(doc, "F", 0, 0), "x");
  assert_true(x * 1024 == (double)(long)(x * 1024));
  assert_int_equal(s_int(ens_glyph_find(doc, "F"), "width"), 422); /* 400 + 22.8, truncated */
  ens_txn *none = NULL;
  s_refused(doc, ENS_EINVAL, ens_glyph_set_lsb(doc, "E", 10, &none), none); /* no outline */
  ens_doc_free(doc);
}

/* Composites bound to a glyph by "use my metrics" (flag 1 of Refer:). */
static const char s_bound_font[] =
    "SplineFontDB: 3.2\n"
    "FontName: Bound\n"
    "Ascent: 800\n"
    "Descent: 200\n"
    "LayerCount: 2\n"
    "Layer: 0 0 \"Back\" 1\n"
    "Layer: 1 0 \"Fore\" 0\n"
    "Encoding: UnicodeBmp\n"
    "BeginChars: 65536 7\n"
    "\n"
    "StartChar: A\n"
    "Encoding: 65 65 0\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "10 0 m 1\n"
    " 10 700 l 1\n"
    " 300 700 l 1\n"
    " 300 0 l 1\n"
    " 10 0 l 1\n"
    "EndSplineSet\n"
    "EndChar\n"
    "\n"
    "StartChar: acute\n"
    "Encoding: 180 180 1\n"
    "Width: 300\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "0 0 m 1\n"
    " 50 100 l 1\n"
    " 0 0 l 1\n"
    "EndSplineSet\n"
    "EndChar\n"
    "\n"
    "StartChar: Aacute\n"
    "Encoding: 193 193 2\n"
    "Width: 600\n"
    "Flags: W\n"
    "VStem: 10 30<0 700>\n"
    "LayerCount: 2\n"
    "Fore\n"
    "Refer: 0 65 N 1 0 0 1 0 0 1\n"
    "Refer: 1 180 N 1 0 0 1 200 700 2\n"
    "EndChar\n"
    "\n"
    "StartChar: Aacute.ss01\n"
    "Encoding: 65536 -1 3\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "Refer: 2 193 N 1 0 0 1 0 0 1\n"
    "Refer: 1 180 N 1 0 0 1 50 0 0\n"
    "EndChar\n"
    "\n"
    "StartChar: Aplain\n"
    "Encoding: 65537 -1 4\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "Refer: 0 65 N 1 0 0 1 0 0 0\n"
    "Refer: 1 180 N 1 0 0 1 200 700 0\n"
    "EndChar\n"
    "\n"
    "StartChar: one\n"
    "Encoding: 49 49 5\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "10 0 m 1\n"
    " 10 700 l 1\n"
    " 100 700 l 1\n"
    " 10 0 l 1\n"
    "EndSplineSet\n"
    "EndChar\n"
    "\n"
    "StartChar: onesuperior\n"
    "Encoding: 185 185 6\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "Refer: 5 49 N 1 0 0 1 0 0 1\n"
    "Refer: 1 180 N 1 0 0 1 100 0 0\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

/* A letter's bearing moves the composites bound to it as FontForge's
 * SCSynchronizeLBearing does: the letter's outline moved inside them, so
 * their other references (the accents) and stem hints move too, and so on
 * for the composites bound to those; the reference to the letter stays.
 * A composite that only refers to it is left alone, and a non-letter's
 * composites (FontForge moves them only for letters) keep their accents
 * where they are; bound widths follow in both cases. */
static void test_lsb_moves_the_accents_of_bound_composites(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_bound_font);
  ens_txn *t;
  S_OK(ens_glyph_set_lsb(doc, "A", 40, &t)); /* xmin 10: by 30 */
  s_commit(doc, t);
  char *out = s_write(doc);
  s_contains(out, "StartChar: A\nEncoding: 65 65 0\nWidth: 630\n");
  s_contains(out, "StartChar: Aacute\nEncoding: 193 193 2\nWidth: 630\nFlags: W\nVStem: 40 30<0 700>\nLayerCount: 2\n"
                  "Fore\nRefer: 0 65 N 1 0 0 1 0 0 1\nRefer: 1 180 N 1 0 0 1 230 700 2\n");
  s_contains(out, "StartChar: Aacute.ss01\nEncoding: 65536 -1 3\nWidth: 630\nFlags: W\nLayerCount: 2\n"
                  "Fore\nRefer: 2 193 N 1 0 0 1 0 0 1\nRefer: 1 180 N 1 0 0 1 80 0 0\n");
  s_only_glyphs_changed(s_bound_font, out, (const char *const[]){"A", "Aacute", "Aacute.ss01", NULL});
  ens_free(out);
  S_OK(ens_glyph_set_lsb(doc, "one", 40, &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "StartChar: onesuperior\nEncoding: 185 185 6\nWidth: 630\nFlags: W\nLayerCount: 2\n"
                  "Fore\nRefer: 5 49 N 1 0 0 1 0 0 1\nRefer: 1 180 N 1 0 0 1 100 0 0\n");
  ens_free(out);
  ens_doc_free(doc);
}

/* --- outlines ---------------------------------------------------------------------------------- */

static void test_move_takes_control_points_along(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_txn *t;
  /* point 1 of A: its outgoing control is c1 of line 2 */
  ens_glyph_pt p1 = {0, 1};
  S_OK(ens_glyph_move_points(doc, "A", &p1, 1, 10, -5, &t));
  s_commit(doc, t);
  assert_true(s_num(s_pt(doc, "A", 0, 1), "x") == 310 && s_num(s_pt(doc, "A", 0, 1), "y") == 695);
  assert_true(s_num(s_pt(doc, "A", 0, 2), "c1x") == 410 && s_num(s_pt(doc, "A", 0, 2), "c1y") == 345);
  assert_true(s_num(s_pt(doc, "A", 0, 2), "c2x") == 500 && s_num(s_pt(doc, "A", 0, 2), "x") == 590);
  /* C's first point: the repeat moves, and both its controls (c2 of the
   * last line, c1 of line 1); named by the repeat's index, each moves once */
  ens_glyph_pt c0[2] = {{0, 4}, {0, 0}};
  S_OK(ens_glyph_move_points(doc, "C", c0, 2, 1, 2, &t));
  s_commit(doc, t);
  assert_true(s_num(s_pt(doc, "C", 0, 0), "x") == 101 && s_num(s_pt(doc, "C", 0, 4), "y") == 102);
  assert_true(s_num(s_pt(doc, "C", 0, 1), "c1x") == 51 && s_num(s_pt(doc, "C", 0, 1), "c2x") == 20);
  assert_true(s_num(s_pt(doc, "C", 0, 4), "c2x") == 151 && s_num(s_pt(doc, "C", 0, 4), "c1x") == 180);
  char *out = s_write(doc);
  s_contains(out, "101 102 m 0\n 51 102 20 150 20 200 c 0\n");
  s_contains(out, " 180 150 151 102 101 102 c 0\n");
  s_only_glyphs_changed(s_font, out, (const char *const[]){"A", "C", NULL});
  ens_free(out);
  ens_glyph_pt bad = {0, 9}, badc = {5, 0};
  ens_txn *none = NULL;
  s_refused(doc, ENS_EINVAL, ens_glyph_move_points(doc, "A", &bad, 1, 1, 1, &none), none);
  s_refused(doc, ENS_EINVAL, ens_glyph_move_points(doc, "A", &badc, 1, 1, 1, &none), none);
  s_refused(doc, ENS_ENOTFOUND, ens_glyph_move_points(doc, "Z", &p1, 1, 1, 1, &none), none);
  ens_doc_free(doc);
}

static void test_add_and_remove_contours(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_txn *t;
  ens_glyph_node tri[3] = {{100, 0, 0, 0, 0, 0, 0}, {200, 0, 0, 0, 0, 0, 0}, {200, 100, 1, 210, 30, 210, 70}};
  S_OK(ens_glyph_add_contour(doc, "A", tri, 3, 1, &t));
  s_commit(doc, t);
  const ens_obj *c = s_child(s_fore(doc, "A"), "contour", 2);
  assert_non_null(c);
  assert_int_equal(ens_obj_child_count(c), 4); /* closed: the first point again */
  assert_true(ens_sfd_contour_closed(c));
  /* E has no layer at all: the foreground comes with the contour */
  ens_glyph_node line[2] = {{0, 0, 0, 0, 0, 0, 0}, {50, 50, 0, 0, 0, 0, 0}};
  S_OK(ens_glyph_add_contour(doc, "E", line, 2, 0, &t));
  s_commit(doc, t);
  assert_int_equal(ens_obj_child_count(s_child(s_fore(doc, "E"), "contour", 0)), 2);
  char *out = s_write(doc);
  s_contains(out, " 300 100 l 1\n 250 200 l 1\n 200 100 l 1\n100 0 m 1\n 200 0 l 1\n 210 30 210 70 200 100 c 1\n"
                  " 100 0 l 1\nEndSplineSet\nKerns2:");
  s_contains(out, "StartChar: E\nEncoding: 69 69 4\nWidth: 300\nFlags: W\nFore\nSplineSet\n0 0 m 1\n 50 50 l "
                  "1\nEndSplineSet\nEndChar\n");
  s_only_glyphs_changed(s_font, out, (const char *const[]){"A", "E", NULL});
  /* what was written reads back to the same outlines, and writes the same */
  ens_doc *back = s_read(out);
  assert_int_equal(ens_obj_child_count(s_child(s_fore(back, "A"), "contour", 2)), 4);
  assert_true(s_num(s_pt(back, "A", 2, 2), "c1x") == 210 && s_num(s_pt(back, "E", 0, 1), "x") == 50);
  char *again = s_write(back);
  assert_string_equal(again, out);
  ens_free(again);
  ens_doc_free(back);
  ens_free(out);
  S_OK(ens_glyph_remove_contour(doc, "A", 1, &t));
  s_commit(doc, t);
  assert_null(s_child(s_fore(doc, "A"), "contour", 2));
  out = s_write(doc);
  s_contains(out, " 10 0 l 1\n100 0 m 1\n");
  ens_free(out);
  ens_txn *none = NULL;
  s_refused(doc, ENS_EINVAL, ens_glyph_remove_contour(doc, "A", 2, &none), none);
  s_refused(doc, ENS_EINVAL, ens_glyph_add_contour(doc, "A", tri, 1, 1, &none), none);
  ens_glyph_node nan_node = {0.0 / 0.0, 0, 0, 0, 0, 0, 0};
  s_refused(doc, ENS_EINVAL, ens_glyph_add_contour(doc, "A", &nan_node, 1, 0, &none), none);
  s_refused(doc, ENS_ENOTFOUND, ens_glyph_remove_contour(doc, "Z", 0, &none), none);
  ens_doc_free(doc);
}

static void test_add_point_splits_a_segment(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_txn *t;
  /* into A's curve (line 2): the new point takes the curve, 590 0 becomes a line */
  S_OK(ens_glyph_add_point(doc, "A", 0, 2, 450, 300, &t));
  s_commit(doc, t);
  char *out = s_write(doc);
  s_contains(out, "10 0 m 1\n 300 700 l 1\n 400 350 500 200 450 300 c 1\n 590 0 l 0\n 10 0 l 1\n");
  s_only_glyphs_changed(s_font, out, (const char *const[]){"A", NULL});
  ens_free(out);
  /* a closed contour: the last index inserts before the repeat; 0 means the same */
  S_OK(ens_glyph_add_point(doc, "A", 1, 3, 220, 150, &t));
  s_commit(doc, t);
  S_OK(ens_glyph_add_point(doc, "A", 1, 0, 210, 125, &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "200 100 m 1\n 300 100 l 1\n 250 200 l 1\n 220 150 l 1\n 210 125 l 1\n 200 100 l 1\n");
  ens_free(out);
  /* an open contour: 0 makes the new point the start, count appends */
  S_OK(ens_glyph_add_point(doc, "D", 0, 0, -100, 0, &t));
  s_commit(doc, t);
  S_OK(ens_glyph_add_point(doc, "D", 0, 5, 400, 0, &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "-100 0 m 1\n 0 0 l 1\n 100 100 l 1\n 200 0 l 1\n 300 100 l 1\n 400 0 l 1\n");
  ens_free(out);
  ens_txn *none = NULL;
  s_refused(doc, ENS_EINVAL, ens_glyph_add_point(doc, "D", 0, 7, 1, 1, &none), none);
  s_refused(doc, ENS_EINVAL, ens_glyph_add_point(doc, "A", 1, 7, 1, 1, &none), none); /* the repeat is 6 */
  s_refused(doc, ENS_EINVAL, ens_glyph_add_point(doc, "A", 3, 1, 1, 1, &none), none);
  s_refused(doc, ENS_ENOTFOUND, ens_glyph_add_point(doc, "Z", 0, 1, 1, 1, &none), none);
  ens_doc_free(doc);
}

static void test_remove_point_joins_its_neighbours(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_txn *t;
  /* C's point 2 (100 300): the segment from 1 to 3 keeps 1's outgoing
   * control (c1 of line 2) and 3's incoming one (c2 of line 3) */
  S_OK(ens_glyph_remove_point(doc, "C", 0, 2, &t));
  s_commit(doc, t);
  char *out = s_write(doc);
  s_contains(out,
             "100 100 m 0\n 50 100 20 150 20 200 c 0\n 20 250 180 250 180 200 c 0\n 180 150 150 100 100 100 c 0\n");
  s_only_glyphs_changed(s_font, out, (const char *const[]){"C", NULL});
  ens_free(out);
  /* the first point of a closed contour: the next one starts it, the repeat follows */
  S_OK(ens_glyph_remove_point(doc, "C", 0, 0, &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "20 200 m 0\n 20 250 180 250 180 200 c 0\n 180 150 20 150 20 200 c 0\nEndSplineSet");
  ens_free(out);
  /* a curve joined to a line: the missing control is the point itself */
  S_OK(ens_glyph_remove_point(doc, "A", 0, 2, &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "10 0 m 1\n 300 700 l 1\n 400 350 10 0 10 0 c 1\n");
  ens_free(out);
  /* an open contour's ends */
  S_OK(ens_glyph_remove_point(doc, "D", 0, 3, &t));
  s_commit(doc, t);
  S_OK(ens_glyph_remove_point(doc, "D", 0, 0, &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "Fore\nSplineSet\n100 100 m 1\n 200 0 l 1\nEndSplineSet\n");
  ens_free(out);
  ens_txn *none = NULL;
  s_refused(doc, ENS_EINVAL, ens_glyph_remove_point(doc, "D", 0, 0, &none), none); /* two points left */
  s_refused(doc, ENS_EINVAL, ens_glyph_remove_point(doc, "A", 1, 9, &none), none);
  s_refused(doc, ENS_ENOTFOUND, ens_glyph_remove_point(doc, "Z", 0, 0, &none), none);
  ens_doc_free(doc);
}

static void test_reverse_keeps_the_start_and_the_shape(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  uint64_t content = ens_doc_content_hash(doc);
  ens_id first = ens_obj_id(s_pt(doc, "C", 0, 1));
  ens_txn *t;
  S_OK(ens_glyph_reverse_contour(doc, "C", 0, &t));
  s_commit(doc, t);
  char *out = s_write(doc);
  s_contains(out, "100 100 m 0\n 150 100 180 150 180 200 c 0\n 180 250 150 300 100 300 c 0\n"
                  " 50 300 20 250 20 200 c 0\n 20 150 50 100 100 100 c 0\n");
  s_only_glyphs_changed(s_font, out, (const char *const[]){"C", NULL});
  ens_free(out);
  /* points keep their ids: the one that was second is now last but one */
  assert_true(ens_obj_id(s_pt(doc, "C", 0, 3)) == first);
  S_OK(ens_glyph_reverse_contour(doc, "D", 0, &t)); /* open: the last point starts */
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "300 100 m 1\n 200 0 l 1\n 100 100 l 1\n 0 0 l 1\n");
  ens_free(out);
  /* twice is the same shape again */
  S_OK(ens_glyph_reverse_contour(doc, "C", 0, &t));
  s_commit(doc, t);
  S_OK(ens_glyph_reverse_contour(doc, "D", 0, &t));
  s_commit(doc, t);
  assert_true(ens_doc_content_hash(doc) == content);
  ens_txn *none = NULL;
  s_refused(doc, ENS_EINVAL, ens_glyph_reverse_contour(doc, "C", 1, &none), none);
  s_refused(doc, ENS_ENOTFOUND, ens_glyph_reverse_contour(doc, "Z", 0, &none), none);
  ens_doc_free(doc);
}

/* --- quadratic outlines ------------------------------------------------------------------------- */

static void test_quadratic_controls_and_point_numbers(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_quad);
  ens_txn *t;
  /* the control of a quadratic segment is both halves of the c line */
  ens_glyph_pt p2 = {0, 2};
  S_OK(ens_glyph_move_points(doc, "O", &p2, 1, 10, 0, &t));
  s_commit(doc, t);
  char *out = s_write(doc);
  s_contains(out, " 500 0 l 1,1,2\n 610 0 610 0 610 100 c 1,3,-1\n 600 300 l 1,4,-1\n");
  ens_free(out);
  /* reversed, 500 0 leaves by a line: its outgoing control number goes
   * (FontForge would read one as an outgoing control point) */
  S_OK(ens_glyph_reverse_contour(doc, "O", 0, &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "300 0 m 1,0,-1\n 300 300 l 1,5,-1\n 600 300 l 1,4,-1\n 610 100 l 1,3,-1\n"
                  " 610 0 610 0 500 0 c 1,1,-1\n 300 0 l 1,0,-1\n");
  ens_free(out);
  /* removing 500 0 keeps the one control point of the joined segment */
  S_OK(ens_glyph_remove_point(doc, "O", 0, 4, &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, " 610 100 l 1,3,-1\n 610 0 610 0 300 0 c 1,0,-1\n");
  ens_free(out);
  ens_glyph_node bent = {0, 0, 1, 10, 10, 20, 20};
  ens_glyph_node pts[2] = {{0, 0, 0, 0, 0, 0, 0}, bent};
  ens_txn *none = NULL;
  s_refused(doc, ENS_EINVAL, ens_glyph_add_contour(doc, "O", pts, 2, 0, &none), none); /* c1 != c2 */
  ens_doc_free(doc);
}

/* --- identity -------------------------------------------------------------------------------------- */

static void test_rename_follows_everywhere(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_id a = ens_obj_id(ens_glyph_find(doc, "A"));
  ens_txn *t;
  S_OK(ens_glyph_rename(doc, "A", "Aalt", &t));
  s_commit(doc, t);
  assert_null(ens_glyph_find(doc, "A"));
  assert_true(ens_obj_id(ens_glyph_find(doc, "Aalt")) == a);
  char *out = s_write(doc);
  s_contains(out, "StartChar: Aalt\n");
  s_contains(out, "Refer: 0 65 N 1 0 0 1 0 0 3\n"); /* by number: unchanged */
  s_contains(out, "Substitution2: \"ss01-1\" Aalt\n");
  s_contains(out, "KernClass2: 2 2 \"kernc\"\n 6 Aalt D\n");
  /* only the renamed glyph, the one whose lookup names it, and the class */
  s_only_glyphs_changed(s_font, out, (const char *const[]){"A", "C", "<header>", NULL});
  ens_doc *back = s_read(out);
  assert_non_null(ens_glyph_find(back, "Aalt"));
  ens_doc_free(back);
  ens_free(out);
  ens_txn *none = NULL;
  s_refused(doc, ENS_EEXISTS, ens_glyph_rename(doc, "Aalt", "C", &none), none);
  s_refused(doc, ENS_EINVAL, ens_glyph_rename(doc, "Aalt", "A b", &none), none);
  s_refused(doc, ENS_EINVAL, ens_glyph_rename(doc, "Aalt", "", &none), none);
  s_refused(doc, ENS_ENOTFOUND, ens_glyph_rename(doc, "A", "X", &none), none);
  ens_doc_free(doc);
}

/* FontForge reads a kerning class as "len names" with len in bytes,
 * across line breaks: DejaVu has a class ending in a line break and a
 * blank, so a line holding only a blank follows it. The classes after it
 * are still renamed, with their lengths, and the one that runs over its
 * line is kept as it was. */
static void test_rename_in_a_kerning_class_that_runs_over_its_line(void **state) {
  (void)state;
  static const char old_block[] = "KernClass2: 2 2 \"kernc\"\n 3 A D\n 1 C\n 0 {} 0 {} 0 {} -30 {}\n";
  static const char new_block[] = "KernClass2: 3+ 3 \"kernc\"\n 1 F\n 5 E C\n \n 3 A D\n 1 C\n 3 D A\n"
                                  " 0 {} 0 {} 0 {} 0 {} 0 {} 0 {} 0 {} 0 {} -30 {}\n";
  const char *at = strstr(s_font, old_block);
  assert_non_null(at);
  char font[sizeof s_font + sizeof new_block];
  snprintf(font, sizeof font, "%.*s%s%s", (int)(at - s_font), s_font, new_block, at + strlen(old_block));
  ens_doc *doc = s_read(font);
  ens_txn *t;
  S_OK(ens_glyph_rename(doc, "A", "Aalt", &t));
  s_commit(doc, t);
  char *out = s_write(doc);
  s_contains(out, "KernClass2: 3+ 3 \"kernc\"\n 1 F\n 5 E C\n \n 6 Aalt D\n 1 C\n 6 D Aalt\n 0 {} 0 {}");
  ens_free(out);
  /* a removal drops the name from the classes after it too */
  S_OK(ens_glyph_rename(doc, "Aalt", "A", &t));
  s_commit(doc, t);
  S_OK(ens_glyph_remove(doc, "D", &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "KernClass2: 3+ 3 \"kernc\"\n 1 F\n 5 E C\n \n 1 A\n 1 C\n 1 A\n 0 {} 0 {}");
  ens_free(out);
  ens_doc_free(doc);
}

static void test_unicode(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_txn *t;
  S_OK(ens_glyph_set_unicode(doc, "E", 0x391, &t));
  s_commit(doc, t);
  char *out = s_write(doc);
  s_contains(out, "StartChar: E\nEncoding: 69 913 4\n");
  s_only_glyphs_changed(s_font, out, (const char *const[]){"E", NULL});
  ens_free(out);
  S_OK(ens_glyph_set_unicode(doc, "E", -1, &t));
  s_commit(doc, t);
  assert_int_equal(s_int(ens_glyph_find(doc, "E"), "unicode"), -1);
  ens_txn *none = NULL;
  s_refused(doc, ENS_EEXISTS, ens_glyph_set_unicode(doc, "E", 'A', &none), none);
  s_refused(doc, ENS_EINVAL, ens_glyph_set_unicode(doc, "E", 0x110000, &none), none);
  s_refused(doc, ENS_ENOTFOUND, ens_glyph_set_unicode(doc, "Z", 1, &none), none);
  ens_doc_free(doc);
}

static void test_add_glyph(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_txn *t;
  S_OK(ens_glyph_add(doc, "foo", 0xE000, 500, &t));
  s_commit(doc, t);
  const ens_obj *g = ens_glyph_find(doc, "foo");
  assert_non_null(g);
  assert_int_equal(s_int(g, "encoding"), 0xE000); /* its code point's slot */
  assert_int_equal(s_int(g, "gid"), 6);
  assert_non_null(s_fore(doc, "foo"));
  S_OK(ens_glyph_add(doc, "bar", -1, 0, &t)); /* unencoded: after the code points */
  s_commit(doc, t);
  assert_int_equal(s_int(ens_glyph_find(doc, "bar"), "encoding"), 0x10000);
  char *out = s_write(doc);
  s_contains(out, "StartChar: foo\nEncoding: 57344 57344 6\nWidth: 500\nFlags: W\nFore\nEndChar\n");
  s_contains(out, "StartChar: bar\nEncoding: 65536 -1 7\nWidth: 0\nFlags: W\nFore\nEndChar\nEndChars\n");
  s_only_glyphs_changed(s_font, out, (const char *const[]){NULL});
  ens_doc *back = s_read(out);
  assert_non_null(ens_glyph_find(back, "bar"));
  ens_doc_free(back);
  ens_free(out);
  ens_txn *none = NULL;
  s_refused(doc, ENS_EEXISTS, ens_glyph_add(doc, "foo", -1, 0, &none), none);
  s_refused(doc, ENS_EEXISTS, ens_glyph_add(doc, "baz", 'A', 0, &none), none);
  s_refused(doc, ENS_EINVAL, ens_glyph_add(doc, "baz", -1, 99999, &none), none);
  ens_doc_free(doc);
}

static void test_remove_glyph(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_txn *t = NULL;
  /* A is B's reference: refused, naming B */
  s_refused(doc, ENS_EINVAL, ens_glyph_remove(doc, "A", &t), t);
  assert_non_null(strstr(ens_error_last(), "\"B\""));
  /* D: A's kerning pair with it goes, so does its place in the classes */
  size_t before = ens_doc_count(doc);
  S_OK(ens_glyph_remove(doc, "D", &t));
  s_commit(doc, t);
  assert_null(ens_glyph_find(doc, "D"));
  assert_true(ens_doc_count(doc) < before);
  char *out = s_write(doc);
  assert_null(strstr(out, "StartChar: D\n"));
  s_contains(out, "Kerns2: 2 -40 \"kern1\"\nEndChar\n"); /* the pair with D (gid 3) is gone */
  s_contains(out, "KernClass2: 2 2 \"kernc\"\n 1 A\n");
  s_contains(out, "\"MarkClass1\" 1 E\n");
  s_only_glyphs_changed(s_font, out, (const char *const[]){"A", "D", "<header>", NULL});
  ens_free(out);
  /* C names A in a substitution: removing C is fine, removing... E: its
   * mark class empties */
  S_OK(ens_glyph_remove(doc, "E", &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "\"MarkClass1\" 0 \n");
  ens_free(out);
  ens_txn *none = NULL;
  s_refused(doc, ENS_ENOTFOUND, ens_glyph_remove(doc, "D", &none), none);
  ens_doc_free(doc);
}

static void test_removing_a_named_glyph_drops_its_lookup_lines(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_txn *t;
  /* B referenced A: remove B first, then A; C's substitution to A goes */
  S_OK(ens_glyph_remove(doc, "B", &t));
  s_commit(doc, t);
  S_OK(ens_glyph_remove(doc, "A", &t));
  s_commit(doc, t);
  char *out = s_write(doc);
  assert_null(strstr(out, "Substitution2:"));
  s_contains(out, "KernClass2: 2 2 \"kernc\"\n 1 D\n");
  s_contains(out, "StartChar: D\nEncoding: 68 68 3\nWidth: 500\nFlags: W\nLayerCount: 2\nFore\nSplineSet\n");
  ens_free(out);
  ens_doc_free(doc);
}

static void test_names_in_lookups_follow(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_names_font);
  ens_txn *t;
  S_OK(ens_glyph_rename(doc, "f", "f.alt", &t));
  s_commit(doc, t);
  char *out = s_write(doc);
  s_contains(out, "  Coverage: 9 f.alt f.a\r\n  BCoverage: 3 f.a\r\n");
  s_contains(out, "Ligature2: \"liga\" f.alt f.alt\r\n"
                  "AlternateSubs2: \"aalt\" f.a  f.alt\r\n"
                  "PairPos2: \"pair\" f.alt dx=0 dy=0 dh=-20 dv=0\r\n"
                  "GlyphCompositionVertical: 2  f.alt%0,0,10,20 f.a%1,5,5,30\r\n");
  s_contains(out, "StartChar: f.alt\r\n");
  ens_free(out);
  /* removed: out of lists; a ligature, pair or composition with it goes */
  S_OK(ens_glyph_remove(doc, "f.alt", &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "  Coverage: 3 f.a\r\n");
  s_contains(out, "EndSplineSet\r\nAlternateSubs2: \"aalt\" f.a\r\nEndChar\r\n");
  ens_free(out);
  S_OK(ens_glyph_remove(doc, "f.a", &t));
  s_commit(doc, t);
  out = s_write(doc);
  s_contains(out, "  Coverage: 0 \r\n  BCoverage: 0 \r\n");
  s_contains(out, "EndSplineSet\r\nEndChar\r\n"); /* no alternates left */
  ens_free(out);
  /* a glyph naming itself (its own variants, a pair with itself) goes whole */
  S_OK(ens_glyph_remove(doc, "paren", &t));
  s_commit(doc, t);
  out = s_write(doc);
  assert_null(strstr(out, "paren"));
  ens_free(out);
  ens_doc_free(doc);
}

/* Random edits, many invalid: every build either fails and leaves the
 * font as it was, or is one undo step; the font written after each edit
 * reads back, and writes the same bytes again. */
static void test_random_edits_keep_the_font_whole(void **state) {
  (void)state;
  tu_rng r = {tu_seed("test_random_edits_keep_the_font_whole", 20240611)};
  static const char *const names[] = {"A", "B", "C", "D", "E", "F", "O", "Z", "n1", "n2"};
  for (int round = 0; round < 2; round++) {
    ens_doc *doc = s_read(round ? s_quad : s_font);
    int applied = 0;
    for (int step = 0; step < 600; step++) {
      const char *g = names[tu_below(&r, 10)];
      size_t c = tu_below(&r, 3), p = tu_below(&r, 8);
      double dx = (double)tu_below(&r, 41) - 20, dy = (double)tu_below(&r, 41) - 20;
      ens_txn *t = NULL;
      int rc;
      switch (tu_below(&r, 12)) {
      case 0: rc = ens_glyph_set_width(doc, g, (int)tu_below(&r, 1200), &t); break;
      case 1: rc = ens_glyph_set_lsb(doc, g, dx * 3.3, &t); break;
      case 2: {
        ens_glyph_pt pts[3] = {{c, p}, {c, tu_below(&r, 8)}, {tu_below(&r, 2), tu_below(&r, 6)}};
        rc = ens_glyph_move_points(doc, g, pts, 1 + tu_below(&r, 3), dx, dy, &t);
        break;
      }
      case 3: {
        ens_glyph_node nd[3] = {{dx, dy, 0, 0, 0, 0, 0}, {dx + 50, dy, 0, 0, 0, 0, 0}, {dx, dy + 50, 1, 5, 5, 5, 5}};
        rc = ens_glyph_add_contour(doc, g, nd, 2 + tu_below(&r, 2), (int)tu_below(&r, 2), &t);
        break;
      }
      case 4: rc = ens_glyph_remove_contour(doc, g, c, &t); break;
      case 5: rc = ens_glyph_add_point(doc, g, c, p, dx, dy, &t); break;
      case 6: rc = ens_glyph_remove_point(doc, g, c, p, &t); break;
      case 7: rc = ens_glyph_reverse_contour(doc, g, c, &t); break;
      case 8: rc = ens_glyph_rename(doc, g, names[tu_below(&r, 10)], &t); break;
      case 9: rc = ens_glyph_set_unicode(doc, g, (int64_t)tu_below(&r, 80) - 1, &t); break;
      case 10: rc = ens_glyph_add(doc, g, (int64_t)tu_below(&r, 100) - 1, (int)tu_below(&r, 900), &t); break;
      default: rc = ens_glyph_remove(doc, g, &t); break;
      }
      if (rc) {
        s_refused(doc, rc, rc, t);
        continue;
      }
      s_commit(doc, t);
      applied++;
      char *out = s_write(doc);
      ens_doc *back = s_read(out);
      char *again = s_write(back);
      assert_string_equal(again, out);
      ens_free(again);
      ens_doc_free(back);
      ens_free(out);
    }
    assert_true(applied > 50);
    ens_doc_free(doc);
  }
}

/* A glyph with nothing but text: a contour added to it lands before its
 * EndChar, not before the "EndChar" that is an instruction. */
static void test_first_contour_of_a_glyph_without_layers(void **state) {
  (void)state;
  static const char font[] = "SplineFontDB: 3.2\nFontName: T\nLayerCount: 2\nBeginChars: 1 1\n\n"
                             "StartChar: G\nEncoding: 0 -1 0\nWidth: 100\nTtInstrs:\nNPUSHB\n 2\nEndChar\nEndTTInstrs\n"
                             "EndChar\nEndChars\nEndSplineFont\n";
  ens_doc *doc = s_read(font);
  ens_glyph_node nd[2] = {{0, 0, 0, 0, 0, 0, 0}, {10, 10, 0, 0, 0, 0, 0}};
  ens_txn *t;
  S_OK(ens_glyph_add_contour(doc, "G", nd, 2, 1, &t));
  s_commit(doc, t);
  char *out = s_write(doc);
  s_contains(out, "TtInstrs:\nNPUSHB\n 2\nEndChar\nEndTTInstrs\nFore\nSplineSet\n0 0 m 1\n 10 10 l 1\n 0 0 l 1\n"
                  "EndSplineSet\nEndChar\nEndChars\n");
  ens_free(out);
  ens_doc_free(doc);
}

static void s_put(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int s_exists(const char *dir, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

static void test_rename_in_an_sfdir_renames_the_file(void **state) {
  (void)state;
  char dir[] = "/tmp/ens-glyph-edit-XXXXXX";
  assert_non_null(mkdtemp(dir));
  s_put(dir, "font.props", "SplineFontDB: 3.2\nFontName: Dir\nLayerCount: 2\nEncoding: UnicodeBmp\nEndSplineFont\n");
  s_put(dir, "_A.glyph", "StartChar: A\nEncoding: 65 65 0\nWidth: 500\nFlags: W\nEndChar\n");
  s_put(dir, "_B.glyph",
        "StartChar: B\nEncoding: 66 66 1\nWidth: 500\nFlags: W\nFore\nRefer: 0 65 N 1 0 0 1 0 0 2\nEndChar\n");
  ens_doc *doc = NULL;
  S_OK(ens_sfd_read_path(dir, &doc));
  ens_txn *t;
  S_OK(ens_glyph_rename(doc, "A", "Aalt", &t));
  s_commit(doc, t);
  S_OK(ens_sfd_write_path(doc, dir));
  /* FontForge names a glyph's file after the glyph: so does the rename */
  assert_true(s_exists(dir, "Aalt.glyph") || s_exists(dir, "_Aalt.glyph"));
  assert_false(s_exists(dir, "_A.glyph"));
  assert_true(s_exists(dir, "_B.glyph")); /* its reference is by number: untouched */
  ens_doc_free(doc);
  S_OK(ens_sfd_read_path(dir, &doc));
  assert_non_null(ens_glyph_find(doc, "Aalt"));
  const ens_obj *ref = s_child(s_fore(doc, "B"), "ref", 0);
  ens_value v;
  assert_int_equal(ens_obj_get(ref, "glyph", &v), 0);
  assert_true(v.u.ref == ens_obj_id(ens_glyph_find(doc, "Aalt")));
  ens_doc_free(doc);
  DIR *d = opendir(dir);
  struct dirent *de;
  while (d && (de = readdir(d)) != NULL) {
    char path[600];
    if (de->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    unlink(path);
  }
  if (d) closedir(d);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_width_and_its_bound_glyph),
      cmocka_unit_test(test_bounds_follow_curves_and_references),
      cmocka_unit_test(test_lsb_moves_everything_together),
      cmocka_unit_test(test_lsb_moves_the_accents_of_bound_composites),
      cmocka_unit_test(test_move_takes_control_points_along),
      cmocka_unit_test(test_add_and_remove_contours),
      cmocka_unit_test(test_add_point_splits_a_segment),
      cmocka_unit_test(test_remove_point_joins_its_neighbours),
      cmocka_unit_test(test_reverse_keeps_the_start_and_the_shape),
      cmocka_unit_test(test_quadratic_controls_and_point_numbers),
      cmocka_unit_test(test_rename_follows_everywhere),
      cmocka_unit_test(test_rename_in_a_kerning_class_that_runs_over_its_line),
      cmocka_unit_test(test_unicode),
      cmocka_unit_test(test_add_glyph),
      cmocka_unit_test(test_remove_glyph),
      cmocka_unit_test(test_removing_a_named_glyph_drops_its_lookup_lines),
      cmocka_unit_test(test_first_contour_of_a_glyph_without_layers),
      cmocka_unit_test(test_names_in_lookups_follow),
      cmocka_unit_test(test_random_edits_keep_the_font_whole),
      cmocka_unit_test(test_rename_in_an_sfdir_renames_the_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
