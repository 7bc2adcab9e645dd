/* A glyph's outline as drawn (ens_glyph_outline_get): a composite's
 * references bring their glyphs' contours, transformed, nested ones too;
 * a quadratic segment has one control point; a font made to hang a
 * renderer (a reference cycle, references multiplying at every level)
 * is drawn in bounded time with what is left out reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"

#define S_OK(x)                                                                                                       \
  do {                                                                                                                \
    int rc_ = (x);                                                                                                    \
    if (rc_) fprintf(stderr, "%s: %s\n", #x, ens_error_last());                                                      \
    assert_int_equal(rc_, 0);                                                                                         \
  } while (0)

#define HEAD                                                                                                          \
  "SplineFontDB: 3.2\n"                                                                                               \
  "FontName: Draw\n"                                                                                                  \
  "Ascent: 800\n"                                                                                                     \
  "Descent: 200\n"                                                                                                    \
  "LayerCount: 2\n"                                                                                                   \
  "Layer: 0 0 \"Back\" 1\n"                                                                                           \
  "Layer: 1 0 \"Fore\" 0\n"                                                                                           \
  "Encoding: UnicodeBmp\n"

/* A, an accent (one cubic contour), a composite of both (the accent
 * scaled by 2 and moved), and one that references the composite. */
static const char s_font[] = HEAD
    "BeginChars: 65536 4\n"
    "\n"
    "StartChar: A\n"
    "Encoding: 65 65 0\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "10 0 m 1\n"
    " 300 700 l 1\n"
    " 590 0 l 1\n"
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
    " 10 20 30 40 50 50 c 0\n"
    " 0 0 l 1\n"
    "EndSplineSet\n"
    "EndChar\n"
    "\n"
    "StartChar: Aacute\n"
    "Encoding: 193 193 2\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "0 -10 m 1\n"
    " 5 -10 l 1\n"
    "EndSplineSet\n"
    "Refer: 0 65 N 1 0 0 1 0 0 3\n"
    "Refer: 1 180 N 2 0 0 2 200 800 2\n"
    "EndChar\n"
    "\n"
    "StartChar: Aacute.alt\n"
    "Encoding: 65536 -1 3\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "Refer: 2 193 N -1 0 0 1 600 0 2\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

static ens_doc *s_read(const char *text) {
  ens_doc *doc = NULL;
  int rc = ens_sfd_read(text, strlen(text), &doc);
  if (rc) fprintf(stderr, "read: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  return doc;
}

static void s_pt(const ens_glyph_outline *o, size_t c, size_t i, double x, double y, int on) {
  assert_true(c < o->ncontours && i < o->contours[c].count);
  const ens_glyph_opoint *p = &o->points[o->contours[c].first + i];
  if (p->x != x || p->y != y || p->on != on)
    fail_msg("contour %zu point %zu: (%g, %g, %d), expected (%g, %g, %d)", c, i, p->x, p->y, p->on, x, y, on);
}

static void test_composite_draws_its_references_transformed(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font);
  ens_glyph_outline o;
  S_OK(ens_glyph_outline_get(doc, "Aacute", 0, &o));
  assert_int_equal(o.ncontours, 3);
  assert_false(o.cut);
  /* its own open contour first, then A's (closed: the repeat left out) */
  assert_int_equal(o.contours[0].count, 2);
  assert_false(o.contours[0].closed);
  s_pt(&o, 0, 1, 5, -10, 1);
  assert_int_equal(o.contours[1].count, 3);
  assert_true(o.contours[1].closed);
  s_pt(&o, 1, 0, 10, 0, 1);
  s_pt(&o, 1, 1, 300, 700, 1);
  s_pt(&o, 1, 2, 590, 0, 1);
  /* the accent: x 2 + (200, 800); the curve's two controls, in order */
  assert_int_equal(o.contours[2].count, 4);
  s_pt(&o, 2, 0, 200, 800, 1);
  s_pt(&o, 2, 1, 220, 840, 0);
  s_pt(&o, 2, 2, 260, 880, 0);
  s_pt(&o, 2, 3, 300, 900, 1);
  assert_int_equal(o.nglyphs, 3); /* itself, A, acute */
  assert_true(o.glyphs[0] == ens_obj_id(ens_glyph_find(doc, "Aacute")));
  assert_true(o.glyphs[1] == ens_obj_id(ens_glyph_find(doc, "A")));
  assert_true(o.glyphs[2] == ens_obj_id(ens_glyph_find(doc, "acute")));
  ens_glyph_outline_free(&o);

  /* the references alone: what an editor draws besides the glyph's points */
  S_OK(ens_glyph_outline_get(doc, "Aacute", ENS_GLYPH_OUTLINE_REFS_ONLY, &o));
  assert_int_equal(o.ncontours, 2);
  s_pt(&o, 0, 1, 300, 700, 1);
  ens_glyph_outline_free(&o);

  /* nested: mirrored (x -> 600 - x) around the composite's own maps */
  S_OK(ens_glyph_outline_get(doc, "Aacute.alt", 0, &o));
  assert_int_equal(o.ncontours, 3);
  s_pt(&o, 0, 1, 595, -10, 1);
  s_pt(&o, 1, 0, 590, 0, 1);
  s_pt(&o, 2, 1, 380, 840, 0);
  s_pt(&o, 2, 3, 300, 900, 1);
  assert_int_equal(o.nglyphs, 4);
  ens_glyph_outline_free(&o);

  /* a glyph of plain contours is itself; a missing name is refused */
  S_OK(ens_glyph_outline_get(doc, "A", 0, &o));
  assert_int_equal(o.ncontours, 1);
  assert_int_equal(o.nglyphs, 1);
  ens_glyph_outline_free(&o);
  assert_int_equal(ens_glyph_outline_get(doc, "nope", 0, &o), ENS_ENOTFOUND);
  assert_null(o.points);
  ens_glyph_outline_free(NULL);
  ens_doc_free(doc);
}

/* Quadratic: a c line carries its one control twice; drawn once. */
static void test_quadratic_segment_has_one_control(void **state) {
  (void)state;
  static const char quad[] = "SplineFontDB: 3.2\n"
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
                             " 300 0 l 1,0,-1\n"
                             "EndSplineSet\n"
                             "EndChar\n"
                             "EndChars\n"
                             "EndSplineFont\n";
  ens_doc *doc = s_read(quad);
  ens_glyph_outline o;
  S_OK(ens_glyph_outline_get(doc, "O", 0, &o));
  assert_int_equal(o.ncontours, 1);
  assert_int_equal(o.contours[0].count, 5); /* 300,0 500,0 (600,0) 600,100 600,300 */
  s_pt(&o, 0, 2, 600, 0, 0);
  s_pt(&o, 0, 3, 600, 100, 1);
  ens_glyph_outline_free(&o);
  ens_doc_free(doc);
}

/* X draws itself and Y; Y references X back; Z references itself. */
static const char s_cycle[] = HEAD
    "BeginChars: 65536 3\n"
    "\n"
    "StartChar: X\n"
    "Encoding: 88 88 0\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "0 0 m 1\n"
    " 10 0 l 1\n"
    " 0 0 l 1\n"
    "EndSplineSet\n"
    "Refer: 1 89 N 1 0 0 1 100 0 2\n"
    "EndChar\n"
    "\n"
    "StartChar: Y\n"
    "Encoding: 89 89 1\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "0 0 m 1\n"
    " 20 0 l 1\n"
    " 0 0 l 1\n"
    "EndSplineSet\n"
    "Refer: 0 88 N 1 0 0 1 100 0 2\n"
    "EndChar\n"
    "\n"
    "StartChar: Z\n"
    "Encoding: 90 90 2\n"
    "Width: 600\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "0 0 m 1\n"
    " 30 0 l 1\n"
    " 0 0 l 1\n"
    "EndSplineSet\n"
    "Refer: 2 90 N 1 0 0 1 5 5 2\n"
    "Refer: 2 90 N 1 0 0 1 5 5 2\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

static void test_cycle_is_cut(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_cycle);
  ens_glyph_outline o;
  S_OK(ens_glyph_outline_get(doc, "X", 0, &o));
  assert_int_equal(o.ncontours, 2); /* X, then Y moved by 100; Y's way back to X left out */
  s_pt(&o, 1, 1, 120, 0, 1);
  assert_true(o.cut);
  ens_glyph_outline_free(&o);
  S_OK(ens_glyph_outline_get(doc, "Z", 0, &o));
  assert_int_equal(o.ncontours, 1);
  assert_true(o.cut);
  ens_glyph_outline_free(&o);
  ens_doc_free(doc);
}

/* G0 holds 40 references to G1, which holds 40 to G2, ... to G6: 40^6
 * copies of G6's contour if nothing stopped it. */
static void test_multiplying_references_are_bounded(void **state) {
  (void)state;
  enum { LEVELS = 7, FAN = 40 };
  size_t cap = 64 * 1024;
  char *text = malloc(cap);
  assert_non_null(text);
  size_t n = (size_t)snprintf(text, cap, "%sBeginChars: 65536 %d\n", HEAD, LEVELS);
  for (int g = 0; g < LEVELS; g++) {
    n += (size_t)snprintf(text + n, cap - n,
                          "\nStartChar: G%d\nEncoding: %d -1 %d\nWidth: 600\nFlags: W\nLayerCount: 2\nFore\n", g,
                          65536 + g, g);
    if (g == LEVELS - 1) n += (size_t)snprintf(text + n, cap - n, "SplineSet\n0 0 m 1\n 1 0 l 1\n 0 0 l 1\nEndSplineSet\n");
    else
      for (int k = 0; k < FAN; k++) n += (size_t)snprintf(text + n, cap - n, "Refer: %d -1 N 1 0 0 1 %d 0 2\n", g + 1, k);
    n += (size_t)snprintf(text + n, cap - n, "EndChar\n");
  }
  n += (size_t)snprintf(text + n, cap - n, "EndChars\nEndSplineFont\n");
  assert_true(n < cap);
  ens_doc *doc = s_read(text);
  free(text);
  ens_glyph_outline o;
  S_OK(ens_glyph_outline_get(doc, "G0", 0, &o));
  assert_true(o.cut);
  assert_true(o.npoints <= 100000);
  assert_true(o.ncontours > 1000); /* it drew what fitted */
  assert_int_equal(o.nglyphs, LEVELS);
  ens_glyph_outline_free(&o);
  /* two levels fit whole */
  S_OK(ens_glyph_outline_get(doc, "G5", 0, &o));
  assert_false(o.cut);
  assert_int_equal(o.ncontours, FAN);
  ens_glyph_outline_free(&o);
  ens_doc_free(doc);
}

/* One glyph of 3,000 references, each to a glyph of its own: every one
 * drawn and listed once. */
static void test_many_glyphs_listed_once(void **state) {
  (void)state;
  enum { N = 3000 };
  size_t cap = 512 * 1024;
  char *text = malloc(cap);
  assert_non_null(text);
  size_t n = (size_t)snprintf(text, cap, "%sBeginChars: 65536 %d\n\nStartChar: all\nEncoding: 65536 -1 0\nWidth: 600\n"
                                         "Flags: W\nLayerCount: 2\nFore\n", HEAD, N + 1);
  for (int k = 0; k < N; k++) n += (size_t)snprintf(text + n, cap - n, "Refer: %d -1 N 1 0 0 1 %d 0 2\n", k + 1, k);
  n += (size_t)snprintf(text + n, cap - n, "Refer: 1 -1 N 1 0 0 1 0 9 2\nEndChar\n"); /* the first one twice */
  for (int k = 0; k < N; k++)
    n += (size_t)snprintf(text + n, cap - n,
                          "\nStartChar: g%d\nEncoding: %d -1 %d\nWidth: 600\nFlags: W\nLayerCount: 2\nFore\n"
                          "SplineSet\n0 0 m 1\n 1 0 l 1\n 0 0 l 1\nEndSplineSet\nEndChar\n",
                          k, 65537 + k, k + 1);
  n += (size_t)snprintf(text + n, cap - n, "EndChars\nEndSplineFont\n");
  assert_true(n < cap);
  ens_doc *doc = s_read(text);
  free(text);
  ens_glyph_outline o;
  S_OK(ens_glyph_outline_get(doc, "all", 0, &o));
  assert_false(o.cut);
  assert_int_equal(o.ncontours, N + 1);
  assert_int_equal(o.nglyphs, N + 1);
  assert_true(o.glyphs[1] == ens_obj_id(ens_glyph_find(doc, "g0")));
  char name[16];
  snprintf(name, sizeof name, "g%d", N - 1);
  assert_true(o.glyphs[N] == ens_obj_id(ens_glyph_find(doc, name)));
  s_pt(&o, N, 0, 0, 9, 1); /* the first glyph again, moved by (0, 9) */
  ens_glyph_outline_free(&o);
  ens_doc_free(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_composite_draws_its_references_transformed),
      cmocka_unit_test(test_quadratic_segment_has_one_control),
      cmocka_unit_test(test_cycle_is_cut),
      cmocka_unit_test(test_multiplying_references_are_bounded),
      cmocka_unit_test(test_many_glyphs_listed_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
