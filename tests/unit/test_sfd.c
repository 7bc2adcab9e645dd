/* The SFD reader and writer on small inline fonts: each modelled piece
 * read into the expected objects, byte-identical round trips of the
 * format's corners, edits that change only their own lines, SFDir, and
 * malformed input refused with a line number. */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

static const char s_font[] =
    "SplineFontDB: 3.2\n"
    "FontName: Test\n"
    "FullName: Test Font\n"
    "ItalicAngle: -12.5\n"
    "Ascent: 800\n"
    "Descent: 200\n"
    "LayerCount: 2\n"
    "Layer: 0 0 \"Back\" 1\n"
    "Layer: 1 0 \"Fore\" 0\n"
    "Lookup: 258 0 0 \"kern\" { \"kern1\" } ['kern' ('latn' <'dflt' > ) ]\n"
    "Encoding: UnicodeBmp\n"
    "BeginChars: 65536 3\n"
    "\n"
    "StartChar: A\n"
    "Encoding: 65 65 0\n"
    "Width: 600\n"
    "Flags: W\n"
    "HStem: 0 20<10 590>\n"
    "TtInstrs:\n"
    "NPUSHB\n"
    " 2\n"
    "EndChar\n"
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
    "Colour: ff0000\n"
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
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

/* --- helpers ------------------------------------------------------------------------ */

static ens_doc *s_read(const char *text, size_t len) {
  ens_doc *doc = NULL;
  int rc = ens_sfd_read(text, len, &doc);
  if (rc) fprintf(stderr, "read: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  return doc;
}

static char *s_write(const ens_doc *doc, size_t *len) {
  unsigned char *out;
  int rc = ens_sfd_write(doc, &out, len);
  if (rc) fprintf(stderr, "write: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  return (char *)out;
}

static void s_roundtrip(const char *text, size_t len) {
  ens_doc *doc = s_read(text, len);
  size_t n;
  char *out = s_write(doc, &n);
  assert_int_equal(n, len);
  assert_memory_equal(out, text, len);
  ens_free(out);
  ens_doc_free(doc);
}

static const ens_obj *s_child(const ens_obj *o, const char *kind, size_t nth) {
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    if (strcmp(ens_obj_kind(k), kind) == 0 && nth-- == 0) return k;
  }
  return NULL;
}

static const ens_obj *s_glyph(const ens_doc *doc, const char *name) {
  const ens_obj *root = ens_doc_root(doc);
  for (size_t i = 0; i < ens_obj_child_count(root); i++) {
    const ens_obj *g = ens_obj_child(root, i);
    ens_value v;
    if (strcmp(ens_obj_kind(g), "glyph") == 0 && ens_obj_get(g, "name", &v) == 0 && v.u.s.len == strlen(name) &&
        memcmp(v.u.s.ptr, name, v.u.s.len) == 0)
      return g;
  }
  return NULL;
}

static int64_t s_int(const ens_obj *o, const char *key) {
  ens_value v;
  assert_int_equal(ens_obj_get(o, key, &v), 0);
  assert_int_equal(v.type, ENS_INT);
  return v.u.i;
}

static double s_real(const ens_obj *o, const char *key) {
  ens_value v;
  assert_int_equal(ens_obj_get(o, key, &v), 0);
  assert_int_equal(v.type, ENS_REAL);
  return v.u.r;
}

static void s_str(const ens_obj *o, const char *key, const char *want) {
  ens_value v;
  assert_int_equal(ens_obj_get(o, key, &v), 0);
  assert_int_equal(v.type, ENS_STR);
  assert_int_equal(v.u.s.len, strlen(want));
  assert_memory_equal(v.u.s.ptr, want, v.u.s.len);
}

static int s_has(const ens_obj *o, const char *key) {
  ens_value v;
  return ens_obj_get(o, key, &v) == 0;
}

static void s_apply(ens_doc *doc, ens_txn *t) {
  int rc = ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL);
  if (rc) fprintf(stderr, "apply: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  ens_txn_free(t);
}

/* Lines of a and b that differ, when both have the same count (else -1). */
static int s_diff_lines(const char *a, size_t an, const char *b, size_t bn, char *first_a, char *first_b, size_t sz) {
  int diffs = 0;
  const char *pa = a, *pb = b, *ea = a + an, *eb = b + bn;
  while (pa < ea && pb < eb) {
    const char *na = memchr(pa, '\n', (size_t)(ea - pa)), *nb = memchr(pb, '\n', (size_t)(eb - pb));
    size_t la = na ? (size_t)(na - pa) : (size_t)(ea - pa), lb = nb ? (size_t)(nb - pb) : (size_t)(eb - pb);
    if (la != lb || memcmp(pa, pb, la) != 0) {
      if (diffs == 0) {
        snprintf(first_a, sz, "%.*s", (int)la, pa);
        snprintf(first_b, sz, "%.*s", (int)lb, pb);
      }
      diffs++;
    }
    pa += la + (na != NULL);
    pb += lb + (nb != NULL);
  }
  return pa < ea || pb < eb ? -1 : diffs;
}

/* --- reading the modelled pieces ------------------------------------------------------- */

static void test_header_is_root_properties(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  const ens_obj *root = ens_doc_root(doc);
  assert_string_equal(ens_doc_kind(doc), "sfd");
  s_str(root, "SplineFontDB", "3.2");
  s_str(root, "FontName", "Test");
  s_str(root, "FullName", "Test Font");
  assert_int_equal(s_int(root, "Ascent"), 800);
  assert_true(s_real(root, "ItalicAngle") == -12.5);
  s_str(root, "Encoding", "UnicodeBmp");
  assert_false(s_has(root, "Lookup")); /* not modelled: kept as text */
  assert_int_equal(ens_id_site(ens_obj_id(s_glyph(doc, "A"))), 0);
  ens_doc_free(doc);
}

static void test_glyph_properties(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  const ens_obj *a = s_glyph(doc, "A");
  assert_non_null(a);
  assert_int_equal(s_int(a, "encoding"), 65);
  assert_int_equal(s_int(a, "unicode"), 65);
  assert_int_equal(s_int(a, "gid"), 0);
  assert_int_equal(s_int(a, "width"), 600);
  s_str(a, "flags", "W");
  s_str(a, "hstem", "0 20<10 590>");
  s_str(a, "comment", "caf\xc3\xa9"); /* UTF-7 decoded */
  assert_int_equal(s_int(a, "colour"), 0xff0000);
  const ens_obj *c = s_glyph(doc, "C");
  assert_int_equal(s_int(c, "width"), 400);
  assert_int_equal(ens_obj_child_count(c), 0);
  ens_doc_free(doc);
}

static void test_layers_contours_points(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  const ens_obj *a = s_glyph(doc, "A");
  const ens_obj *fore = s_child(a, "layer", 0);
  assert_int_equal(s_int(fore, "index"), 1);
  const ens_obj *contour = s_child(fore, "contour", 0);
  assert_int_equal(ens_obj_child_count(contour), 4);
  const ens_obj *p0 = ens_obj_child(contour, 0), *p1 = ens_obj_child(contour, 1), *p2 = ens_obj_child(contour, 2);
  assert_true(s_real(p0, "x") == 10 && s_real(p0, "y") == 0);
  assert_int_equal(s_int(p0, "type"), 1);
  assert_int_equal(s_int(p0, "flags"), 0);
  assert_false(s_has(p0, "c1x"));
  assert_int_equal(s_int(p1, "ttf"), 0); /* ",0,-1": TrueType point numbers */
  assert_int_equal(s_int(p1, "nextcp"), -1);
  assert_false(s_has(p1, "extra"));
  assert_true(s_real(p2, "c1x") == 400 && s_real(p2, "c1y") == 350);
  assert_true(s_real(p2, "c2x") == 500 && s_real(p2, "c2y") == 200.25);
  assert_true(s_real(p2, "x") == 590 && s_real(p2, "y") == 0);
  s_str(p2, "extra", "x80");
  assert_true(ens_sfd_contour_closed(contour));
  const ens_obj *b = s_glyph(doc, "B");
  assert_int_equal(s_int(s_child(b, "layer", 0), "index"), 0);
  assert_int_equal(s_int(s_child(b, "layer", 1), "index"), 1);
  ens_doc_free(doc);
}

static void test_reference_resolves_to_glyph(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  const ens_obj *b = s_glyph(doc, "B");
  const ens_obj *ref = s_child(s_child(b, "layer", 1), "ref", 0);
  assert_non_null(ref);
  ens_value v;
  assert_int_equal(ens_obj_get(ref, "glyph", &v), 0);
  assert_int_equal(v.type, ENS_REF);
  assert_true(v.u.ref == ens_obj_id(s_glyph(doc, "A")));
  assert_true(s_real(ref, "xx") == 1 && s_real(ref, "dx") == 50 && s_real(ref, "dy") == 0);
  assert_int_equal(s_int(ref, "flags"), 2);
  ens_doc_free(doc);
}

static void test_anchors_and_kerning(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  const ens_obj *a = s_glyph(doc, "A");
  const ens_obj *an = s_child(a, "anchor", 0);
  s_str(an, "class", "top");
  assert_true(s_real(an, "x") == 300 && s_real(an, "y") == 700);
  s_str(an, "type", "basechar");
  assert_int_equal(s_int(an, "lig"), 0);
  const ens_obj *k0 = s_child(a, "kern", 0), *k1 = s_child(a, "kern", 1);
  ens_value v;
  assert_int_equal(ens_obj_get(k0, "glyph", &v), 0);
  assert_true(v.u.ref == ens_obj_id(s_glyph(doc, "B")));
  assert_int_equal(s_int(k0, "offset"), -40);
  s_str(k0, "subtable", "kern1");
  assert_int_equal(ens_obj_get(k1, "glyph", &v), 0);
  assert_true(v.u.ref == ens_obj_id(s_glyph(doc, "C")));
  s_str(k1, "device", "{12-13 -1,-1}");
  ens_doc_free(doc);
}

/* --- byte-identical round trips ------------------------------------------------------- */

static void test_roundtrip_fixture(void **state) {
  (void)state;
  s_roundtrip(s_font, sizeof s_font - 1);
}

static char *s_crlf(const char *s, size_t *len) {
  size_t n = strlen(s), k = 0;
  char *out = malloc(2 * n + 1);
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\n') out[k++] = '\r';
    out[k++] = s[i];
  }
  out[k] = '\0';
  *len = k;
  return out;
}

static void test_roundtrip_crlf_and_no_final_newline(void **state) {
  (void)state;
  size_t n;
  char *crlf = s_crlf(s_font, &n);
  s_roundtrip(crlf, n);
  s_roundtrip(crlf, n - 2); /* no final newline */
  s_roundtrip(s_font, sizeof s_font - 2);
  /* a regenerated line keeps its CRLF */
  ens_doc *doc = s_read(crlf, n);
  ens_txn *t = ens_txn_new("width", NULL);
  ens_txn_set(t, ens_obj_id(s_glyph(doc, "A")), "width", ens_int(610));
  s_apply(doc, t);
  size_t on;
  char *out = s_write(doc, &on);
  assert_int_equal(on, n);
  assert_non_null(memmem(out, on, "Width: 610\r\n", 12));
  ens_free(out);
  ens_doc_free(doc);
  free(crlf);
}

static const char s_old[] =
    "SplineFontDB: 1.0\n"
    "FontName: Old\n"
    "Encoding: iso8859_1\n"
    "BeginChars: 256 2\n"
    "StartChar: a\n"
    "Encoding: 97 97\n"
    "Width: 500\n"
    "Flags: HW\n"
    "Fore\n"
    "421 826 m 1\n"
    " 442.333 814 459.333 803.667 472 795 c 1\n"
    " 421 826 l 1\n"
    "EndSplineSet\n"
    "MinimumDistance: x8,-1 \n"
    "EndChar\n"
    "StartChar: b\n"
    "Encoding: 98 98\n"
    "Width: 500\n"
    "Fore\n"
    "Ref: 97 N 1 0 0 1 10 0\n"
    "KernsSLIFO: 97 -73 0 0\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

static void test_roundtrip_old_format(void **state) {
  (void)state;
  s_roundtrip(s_old, sizeof s_old - 1);
  ens_doc *doc = s_read(s_old, sizeof s_old - 1);
  const ens_obj *a = s_glyph(doc, "a");
  assert_int_equal(s_int(a, "gid"), 0); /* two numbers on Encoding: numbered by the running count */
  const ens_obj *contour = s_child(s_child(a, "layer", 0), "contour", 0);
  assert_int_equal(ens_obj_child_count(contour), 3); /* points right after Fore */
  const ens_obj *ref = s_child(s_child(s_glyph(doc, "b"), "layer", 0), "ref", 0);
  ens_value v;
  assert_int_equal(ens_obj_get(ref, "glyph", &v), 0); /* Ref: names an encoding */
  assert_true(v.u.ref == ens_obj_id(a));
  ens_doc_free(doc);
}

static const char s_blocks[] =
    "SplineFontDB: 3.0\n"
    "FontName: Blocks\n"
    "UComments: \"+ACIA-quoted+ACIA- and +AOk-\"\n"
    "BeginPrivate: 1\n"
    "BlueValues 23 [-19 0 502 517 750 768]\n"
    "EndPrivate\n"
    "TtTable: prep\n"
    "PUSHW_1\n"
    " 640\n"
    "EndTTInstrs\n"
    "ShortTable: cvt  2\n"
    "  184\n"
    "  203\n"
    "EndShort\n"
    "BeginChars: 256 1\n"
    "\n"
    "StartChar: \"+AOk-\"\n"
    "Encoding: 233 233 0\n"
    "Width: 500\n"
    "TtfInstrs: 3\n"
    "5Xtqo\n"
    "EndTtf\n"
    "LayerCount: 2\n"
    "UndoRedoHistory\n"
    "Layer: 1\n"
    "Undoes\n"
    "UndoOperation\n"
    "SplineSet\n"
    "1 1 m 1\n"
    "EndSplineSet\n"
    "EndUndoOperation\n"
    "EndUndoes\n"
    "Redoes\n"
    "EndRedoes\n"
    "EndUndoRedoHistory\n"
    "Back\n"
    "Image: 2 2 0 1 2 1 0 2 1 1\n"
    "StartChar: not a glyph, image data\n"
    "EndImage\n"
    "Fore\n"
    "SplineSet\n"
    "115 467 m 1\n"
    " 134.212 486.845 157.062 503.125 182 515 c 0\n"
    " 115 467 l 1\n"
    "  Spiro\n"
    "    115 467 v\n"
    "    0 0 z\n"
    "  EndSpiro\n"
    "  Named: \"bowl\"\n"
    "EndSplineSet\n"
    "PickledData: \"I3\n"
    ".\\\"x\"\n"
    "EndChar\n"
    "EndChars\n"
    "BitmapFont: 12 285 10 2 1\n"
    "BDFChar: 0 17 0 0 0 0\n"
    "z\n"
    "EndBitmapFont\n"
    "EndSplineFont\n";

static void test_roundtrip_blocks_history_images_utf7(void **state) {
  (void)state;
  s_roundtrip(s_blocks, sizeof s_blocks - 1);
  ens_doc *doc = s_read(s_blocks, sizeof s_blocks - 1);
  const ens_obj *g = s_glyph(doc, "\xc3\xa9");
  assert_non_null(g); /* a UTF-7 name, decoded */
  const ens_obj *fore = s_child(g, "layer", 1);
  assert_int_equal(s_int(fore, "index"), 1);
  assert_int_equal(ens_obj_child_count(s_child(fore, "contour", 0)), 3);
  ens_doc_free(doc);
}

static const char s_mm[] =
    "SplineFontDB: 1.0\n"
    "MMCounts: 2 1 0 0\n"
    "BeginMMFonts: 2 1\n"
    "FontName: One\n"
    "BeginChars: 10 1\n"
    "StartChar: a\n"
    "Encoding: 0 97 0\n"
    "Width: 1\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n"
    "FontName: Two\n"
    "BeginChars: 10 2\n"
    "StartChar: a\n"
    "Encoding: 0 97 0\n"
    "Width: 2\n"
    "EndChar\n"
    "StartChar: b\n"
    "Encoding: 1 98 1\n"
    "Width: 2\n"
    "Fore\n"
    "Refer: 0 97 N 1 0 0 1 0 0 0\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n"
    "EndMMFonts\n";

static void test_roundtrip_sub_fonts(void **state) {
  (void)state;
  s_roundtrip(s_mm, sizeof s_mm - 1);
  ens_doc *doc = s_read(s_mm, sizeof s_mm - 1);
  /* the reference resolves within its own sub-font: to the second "a" */
  const ens_obj *root = ens_doc_root(doc);
  const ens_obj *a2 = s_child(root, "glyph", 1), *b = s_child(root, "glyph", 2);
  ens_value v;
  assert_int_equal(ens_obj_get(s_child(s_child(b, "layer", 0), "ref", 0), "glyph", &v), 0);
  assert_true(v.u.ref == ens_obj_id(a2));
  ens_doc_free(doc);
}

static void test_snapshot_roundtrip_writes_same_bytes(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1), *copy;
  unsigned char *snap;
  size_t sn, n;
  assert_int_equal(ens_snapshot_encode(doc, &snap, &sn), 0);
  assert_int_equal(ens_snapshot_decode(snap, sn, &copy), 0);
  char *out = s_write(copy, &n);
  assert_int_equal(n, sizeof s_font - 1);
  assert_memory_equal(out, s_font, n);
  ens_free(out);
  ens_free(snap);
  ens_doc_free(copy);
  ens_doc_free(doc);
}

/* --- edits change only their lines ----------------------------------------------------- */

static void test_width_edit_changes_only_the_width_line(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  ens_txn *t = ens_txn_new("Set width", NULL);
  assert_int_equal(ens_txn_set(t, ens_obj_id(s_glyph(doc, "A")), "width", ens_int(610)), 0);
  s_apply(doc, t);
  size_t n;
  char *out = s_write(doc, &n);
  char la[128], lb[128];
  assert_int_equal(s_diff_lines(s_font, sizeof s_font - 1, out, n, la, lb, sizeof la), 1);
  assert_string_equal(la, "Width: 600");
  assert_string_equal(lb, "Width: 610");
  ens_free(out);
  ens_doc_free(doc);
}

/* A changed number is printed as FontForge prints it, %g, or with the
 * fewest digits that read back: short fractions, values near the bounds
 * of %g's plain form, and ones that need more than six digits. */
static void test_changed_numbers_print_as_g(void **state) {
  (void)state;
  static const struct {
    double x;
    const char *text;
  } cases[] = {{0.25, "0.25"},           {-0.001, "-0.001"},        {0.1, "0.1"},
               {12345.6, "12345.6"},     {999999.9, "999999.9"},   {123456.5, "123456.5"},
               {0.0005, "0.0005"},       {2.675, "2.675"},         {-403.5, "-403.5"},
               {0.000123, "0.000123"},   {1e-5, "1e-05"},          {1234567.5, "1234567.5"},
               {1.0 / 3.0, "0.3333333333333333"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ens_doc *doc = s_read(s_font, sizeof s_font - 1);
    const ens_obj *contour = s_child(s_child(s_glyph(doc, "A"), "layer", 0), "contour", 0);
    ens_txn *t = ens_txn_new("Move point", NULL);
    ens_txn_set(t, ens_obj_id(ens_obj_child(contour, 2)), "x", ens_real(cases[i].x));
    s_apply(doc, t);
    size_t n;
    char *out = s_write(doc, &n);
    char la[128], lb[128], want[128];
    assert_int_equal(s_diff_lines(s_font, sizeof s_font - 1, out, n, la, lb, sizeof la), 1);
    snprintf(want, sizeof want, " 400 350 500 200.25 %s 0 c 0x80", cases[i].text);
    assert_string_equal(lb, want);
    ens_free(out);
    ens_doc_free(doc);
  }
}

static void test_point_edit_changes_only_its_line(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  const ens_obj *contour = s_child(s_child(s_glyph(doc, "A"), "layer", 0), "contour", 0);
  const ens_obj *p2 = ens_obj_child(contour, 2);
  ens_txn *t = ens_txn_new("Move point", NULL);
  ens_txn_set(t, ens_obj_id(p2), "x", ens_real(590.5));
  ens_txn_set(t, ens_obj_id(p2), "c2y", ens_real(1.0 / 3.0));
  s_apply(doc, t);
  size_t n;
  char *out = s_write(doc, &n);
  char la[128], lb[128];
  assert_int_equal(s_diff_lines(s_font, sizeof s_font - 1, out, n, la, lb, sizeof la), 1);
  assert_string_equal(lb, " 400 350 500 0.3333333333333333 590.5 0 c 0x80");
  ens_free(out);
  /* what was written reads back to the same values */
  ens_doc *back = s_read(out = s_write(doc, &n), n);
  const ens_obj *q = ens_obj_child(s_child(s_child(s_glyph(back, "A"), "layer", 0), "contour", 0), 2);
  assert_true(s_real(q, "c2y") == 1.0 / 3.0 && s_real(q, "x") == 590.5);
  ens_free(out);
  ens_doc_free(back);
  ens_doc_free(doc);
}

/* "-0" reads as -0.0; a 0 set since is another value, so a point,
 * reference or anchor line saying "-0" is printed again, and the file
 * reads back to the 0 that was set (a fuzz finding). */
static void test_a_zero_set_over_minus_zero_is_written(void **state) {
  (void)state;
  static const char text[] = "SplineFontDB: 3.2\n"
                             "BeginChars: 2 2\n"
                             "\n"
                             "StartChar: a\n"
                             "Encoding: 0 97 0\n"
                             "Width: 500\n"
                             "Fore\n"
                             "SplineSet\n"
                             "-0 0 m 1\n"
                             " 10 -0 l 1\n"
                             "EndSplineSet\n"
                             "AnchorPoint: \"top\" -0 700 basechar 0\n"
                             "EndChar\n"
                             "\n"
                             "StartChar: b\n"
                             "Encoding: 1 98 1\n"
                             "Width: 500\n"
                             "Fore\n"
                             "Refer: 0 97 N 1 0 0 1 -0 0 2\n"
                             "EndChar\n"
                             "EndChars\n"
                             "EndSplineFont\n";
  s_roundtrip(text, sizeof text - 1);
  ens_doc *doc = s_read(text, sizeof text - 1);
  const ens_obj *layer = s_child(s_glyph(doc, "a"), "layer", 0);
  const ens_obj *contour = s_child(layer, "contour", 0);
  const ens_obj *anchor = s_child(s_glyph(doc, "a"), "anchor", 0);
  const ens_obj *ref = s_child(s_child(s_glyph(doc, "b"), "layer", 0), "ref", 0);
  assert_true(contour && anchor && ref);
  assert_true(signbit(s_real(ens_obj_child(contour, 0), "x")));
  ens_txn *t = ens_txn_new("Zero", NULL);
  ens_txn_set(t, ens_obj_id(ens_obj_child(contour, 0)), "x", ens_real(0.0));
  ens_txn_set(t, ens_obj_id(ens_obj_child(contour, 1)), "y", ens_real(0.0));
  ens_txn_set(t, ens_obj_id(anchor), "x", ens_real(0.0));
  ens_txn_set(t, ens_obj_id(ref), "dx", ens_real(0.0));
  s_apply(doc, t);
  size_t n;
  char *out = s_write(doc, &n);
  assert_non_null(strstr(out, "\n0 0 m 1\n 10 0 l 1\n"));
  assert_non_null(strstr(out, "AnchorPoint: \"top\" 0 700 basechar 0\n"));
  assert_non_null(strstr(out, "Refer: 0 97 N 1 0 0 1 0 0 2\n"));
  ens_doc *back = s_read(out, n);
  const ens_obj *bc = s_child(s_child(s_glyph(back, "a"), "layer", 0), "contour", 0);
  assert_false(signbit(s_real(ens_obj_child(bc, 0), "x")));
  assert_false(signbit(s_real(s_child(s_child(s_glyph(back, "b"), "layer", 0), "ref", 0), "dx")));
  ens_free(out);
  ens_doc_free(back);
  ens_doc_free(doc);
}

/* The writer copies a contour's kept text only while nothing in the
 * contour changed since reading; a copy made from a snapshot of an edited
 * font carries that text stale, and must still write the edit. */
static void test_edit_survives_snapshot_and_text_copy(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1), *copy;
  const ens_obj *contour = s_child(s_child(s_glyph(doc, "A"), "layer", 0), "contour", 0);
  ens_txn *t = ens_txn_new("Move point", NULL);
  ens_txn_set(t, ens_obj_id(ens_obj_child(contour, 1)), "y", ens_real(77));
  s_apply(doc, t);
  unsigned char *snap;
  size_t sn, n, cn;
  assert_int_equal(ens_snapshot_encode(doc, &snap, &sn), 0);
  assert_int_equal(ens_snapshot_decode(snap, sn, &copy), 0);
  char *out = s_write(doc, &n), *cout = s_write(copy, &cn);
  char la[128], lb[128];
  assert_int_equal(s_diff_lines(s_font, sizeof s_font - 1, out, n, la, lb, sizeof la), 1);
  assert_non_null(strstr(lb, " 77 "));
  assert_int_equal(cn, n);
  assert_memory_equal(cout, out, n);
  ens_free(out);
  ens_free(cout);
  ens_free(snap);
  ens_doc_free(copy);
  ens_doc_free(doc);
}

/* In a file without gids glyphs are numbered by their order, and
 * references name those numbers: removing an earlier glyph must not
 * renumber the others. The glyph whose running number would change says
 * its number on its Encoding line; the reference stays as it was. */
static void test_removing_a_glyph_keeps_the_numbers_of_the_others(void **state) {
  (void)state;
  const char *text = "SplineFontDB: 3.2\nBeginChars: 3 3\n"
                     "StartChar: a\nEncoding: 97 97\nWidth: 500\nEndChar\n"
                     "StartChar: b\nEncoding: 98 98\nWidth: 500\nFore\nSplineSet\n0 0 m 1\n 10 0 l 1\n 0 0 l 1\n"
                     "EndSplineSet\nEndChar\n"
                     "StartChar: c\nEncoding: 99 99\nWidth: 500\nFore\nRefer: 1 98 N 1 0 0 1 0 0 2\nEndChar\n"
                     "EndChars\nEndSplineFont\n";
  ens_doc *doc = s_read(text, strlen(text));
  ens_txn *t = ens_txn_new("Remove a", NULL);
  assert_int_equal(ens_txn_delete(t, ens_obj_id(s_glyph(doc, "a"))), 0);
  s_apply(doc, t);
  size_t n;
  char *out = s_write(doc, &n);
  assert_non_null(memmem(out, n, "Encoding: 98 98 1\n", 18));
  assert_non_null(memmem(out, n, "Encoding: 99 99\n", 16)); /* 2 again: the running count still says it */
  assert_non_null(memmem(out, n, "Refer: 1 98 N", 13));
  ens_doc *back = s_read(out, n);
  const ens_obj *ref = s_child(s_child(s_glyph(back, "c"), "layer", 0), "ref", 0);
  ens_value g;
  assert_int_equal(ens_obj_get(ref, "glyph", &g), 0);
  assert_int_equal(g.type, ENS_REF);
  assert_true(g.u.ref == ens_obj_id(s_glyph(back, "b")));
  ens_free(out);
  ens_doc_free(back);
  ens_doc_free(doc);
}

static void test_deleting_a_point_keeps_the_other_lines(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  const ens_obj *contour = s_child(s_child(s_glyph(doc, "A"), "layer", 0), "contour", 0);
  ens_txn *t = ens_txn_new("Delete point", NULL);
  ens_txn_delete(t, ens_obj_id(ens_obj_child(contour, 1)));
  s_apply(doc, t);
  size_t n;
  char *out = s_write(doc, &n);
  /* the point line and its NamedP go; nothing else changes */
  const char *gone = " 300 700 l 1,0,-1\nNamedP: \"apex\"\n";
  const char *at = strstr(s_font, gone);
  assert_non_null(at);
  size_t pre = (size_t)(at - s_font), cut = strlen(gone);
  assert_int_equal(n, sizeof s_font - 1 - cut);
  assert_memory_equal(out, s_font, pre);
  assert_memory_equal(out + pre, at + cut, n - pre);
  ens_free(out);
  ens_doc_free(doc);
}

static void test_property_removed_and_added(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  ens_id a = ens_obj_id(s_glyph(doc, "A"));
  ens_txn *t = ens_txn_new("Flags and vwidth", NULL);
  ens_txn_set(t, a, "flags", ens_nil());
  ens_txn_set(t, a, "vwidth", ens_int(900));
  ens_txn_set(t, ENS_ROOT_ID, "FontName", ens_str("Renamed"));
  s_apply(doc, t);
  size_t n;
  char *out = s_write(doc, &n);
  assert_null(memmem(out, n, "Flags: W\n", 9));
  assert_non_null(memmem(out, n, "FontName: Renamed\n", 18));
  /* a new line goes after the last keyed line of the glyph's head */
  assert_non_null(memmem(out, n, "HStem: 0 20<10 590>\nVWidth: 900\nTtInstrs:", 41));
  ens_doc *back = s_read(out, n);
  assert_int_equal(s_int(s_glyph(back, "A"), "vwidth"), 900);
  ens_doc_free(back);
  ens_free(out);
  ens_doc_free(doc);
}

static void test_new_glyph_is_written_in_fontforge_style(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  char *pos;
  assert_int_equal(ens_doc_pos_at(doc, ENS_ROOT_ID, ens_obj_child_count(ens_doc_root(doc)), &pos), 0);
  ens_txn *t = ens_txn_new("Add glyph", NULL);
  ens_id gid = ens_doc_new_id(doc), lid = ens_doc_new_id(doc), cid = ens_doc_new_id(doc);
  ens_node *g = ens_txn_insert(t, ENS_ROOT_ID, pos, gid, "glyph");
  ens_node_set(g, "name", ens_str("D"));
  ens_node_set(g, "encoding", ens_int(68));
  ens_node_set(g, "unicode", ens_int(68));
  ens_node_set(g, "gid", ens_int(3));
  ens_node_set(g, "width", ens_int(700));
  ens_node *l = ens_node_add_child(g, "V", lid, "layer");
  ens_node_set(l, "index", ens_int(1));
  ens_node *c = ens_node_add_child(l, "V", cid, "contour");
  static const double xy[3][2] = {{0, 0}, {100, 0}, {0, 0}};
  for (int i = 0; i < 3; i++) {
    char *pp = ens_pos_seq((size_t)i, 3);
    ens_node *p = ens_node_add_child(c, pp, ens_doc_new_id(doc), "point");
    ens_node_set(p, "x", ens_real(xy[i][0]));
    ens_node_set(p, "y", ens_real(xy[i][1]));
    ens_node_set(p, "type", ens_int(1));
    ens_node_set(p, "flags", ens_int(0));
    ens_free(pp);
  }
  ens_free(pos);
  s_apply(doc, t);
  size_t n;
  char *out = s_write(doc, &n);
  const char *want = "StartChar: D\nEncoding: 68 68 3\nWidth: 700\nFore\nSplineSet\n0 0 m 1\n 100 0 l 1\n 0 0 l 1\n"
                     "EndSplineSet\nEndChar\nEndChars\n";
  assert_non_null(memmem(out, n, want, strlen(want)));
  ens_doc *back = s_read(out, n);
  assert_non_null(s_glyph(back, "D"));
  ens_doc_free(back);
  ens_free(out);
  ens_doc_free(doc);
}

static void test_rename_keeps_references(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  ens_txn *t = ens_txn_new("Rename", NULL);
  ens_txn_set(t, ens_obj_id(s_glyph(doc, "A")), "name", ens_str("Aa"));
  s_apply(doc, t);
  size_t n;
  char *out = s_write(doc, &n);
  char la[128], lb[128];
  /* references and kerning name glyphs by number: only StartChar changes */
  assert_int_equal(s_diff_lines(s_font, sizeof s_font - 1, out, n, la, lb, sizeof la), 1);
  assert_string_equal(lb, "StartChar: Aa");
  ens_free(out);
  ens_doc_free(doc);
}

static void test_diff_by_identity_keys(void **state) {
  (void)state;
  ens_doc *a = s_read(s_font, sizeof s_font - 1), *b = s_read(s_font, sizeof s_font - 1);
  ens_doc_set_site(a, 1);
  const ens_obj *gb = s_glyph(b, "A");
  const ens_obj *pb = ens_obj_child(s_child(s_child(gb, "layer", 0), "contour", 0), 1);
  ens_txn *t = ens_txn_new("edit", NULL);
  ens_txn_set(t, ens_obj_id(gb), "width", ens_int(650));
  ens_txn_set(t, ens_obj_id(pb), "y", ens_real(710));
  s_apply(b, t);
  ens_txn *d;
  assert_int_equal(ens_doc_diff(a, b, ens_sfd_identity, NULL, &d), 0);
  assert_int_equal(ens_txn_op_count(d), 2);
  for (size_t i = 0; i < 2; i++) assert_int_equal(ens_txn_op_kind(d, i), ENS_OP_SET);
  assert_int_equal(ens_doc_apply(a, d, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_true(ens_doc_content_hash(a) == ens_doc_content_hash(b));
  char key[64];
  assert_int_equal(ens_sfd_identity(s_glyph(a, "B"), key, sizeof key, NULL), 2);
  assert_string_equal(key, "B");
  assert_int_equal(ens_sfd_identity(s_child(s_glyph(a, "B"), "layer", 1), key, sizeof key, NULL), 2);
  assert_string_equal(key, "layer 1");
  ens_txn_free(d);
  ens_doc_free(a);
  ens_doc_free(b);
}

/* --- SFDir ------------------------------------------------------------------------------ */

static void s_put(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static char *s_get(const char *dir, const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *d = malloc((size_t)n + 1);
  size_t got = fread(d, 1, (size_t)n, f);
  fclose(f);
  d[got] = '\0';
  *len = got;
  return d;
}

static void s_rmdir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *de;
  char path[512];
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

static const char *s_props = "SplineFontDB: 3.2\nFontName: Dir\nEncoding: UnicodeBmp\nEndSplineFont\n";
static const char *s_ga = "StartChar: A\nEncoding: 65 65 0\nWidth: 600\nLayerCount: 2\nFore\nSplineSet\n0 0 m 1\n"
                          " 10 0 l 1\n 0 0 l 1\nEndSplineSet\nEndChar\n";
static const char *s_gb = "StartChar: b\nEncoding: 98 98 1\nWidth: 500\nLayerCount: 2\nFore\n"
                          "Refer: 0 65 N 1 0 0 1 0 0 2\nEndChar\n";

static void test_sfdir_roundtrip_and_edits(void **state) {
  (void)state;
  char src[] = "/tmp/ens-sfdir-XXXXXX", dst[] = "/tmp/ens-sfdir-out-XXXXXX";
  assert_non_null(mkdtemp(src));
  assert_non_null(mkdtemp(dst));
  s_put(src, "font.props", s_props);
  s_put(src, "_A.glyph", s_ga);
  s_put(src, "b.glyph", s_gb);
  ens_doc *doc;
  assert_int_equal(ens_sfd_read_path(src, &doc), 0);
  assert_true(ens_sfd_is_dir(doc));
  assert_int_equal(ens_obj_child_count(ens_doc_root(doc)), 2);
  ens_value v;
  const ens_obj *ref = s_child(s_child(s_glyph(doc, "b"), "layer", 0), "ref", 0);
  assert_int_equal(ens_obj_get(ref, "glyph", &v), 0);
  assert_true(v.u.ref == ens_obj_id(s_glyph(doc, "A")));
  unsigned char *mem;
  size_t n;
  assert_int_equal(ens_sfd_write(doc, &mem, &n), ENS_EINVAL);
  /* to another directory: the same three files */
  assert_int_equal(ens_sfd_write_path(doc, dst), 0);
  const char *names[3] = {"font.props", "_A.glyph", "b.glyph"}, *texts[3] = {s_props, s_ga, s_gb};
  for (int i = 0; i < 3; i++) {
    char *got = s_get(dst, names[i], &n);
    assert_non_null(got);
    assert_int_equal(n, strlen(texts[i]));
    assert_memory_equal(got, texts[i], n);
    free(got);
  }
  /* an edit rewrites only its glyph's file; a deleted glyph's file goes */
  ens_txn *t = ens_txn_new("edit", NULL);
  ens_txn_set(t, ens_obj_id(s_glyph(doc, "A")), "width", ens_int(610));
  ens_txn_delete(t, ens_obj_id(s_glyph(doc, "b")));
  s_apply(doc, t);
  assert_int_equal(ens_sfd_write_path(doc, dst), 0);
  char *ga = s_get(dst, "_A.glyph", &n);
  assert_non_null(strstr(ga, "Width: 610\n"));
  free(ga);
  assert_null(s_get(dst, "b.glyph", &n));
  ens_doc_free(doc);
  s_rmdir(src);
  s_rmdir(dst);
}

static void test_write_path_is_a_complete_file(void **state) {
  (void)state;
  char dir[] = "/tmp/ens-sfd-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/font.sfd", dir);
  ens_doc *doc = s_read(s_font, sizeof s_font - 1), *back;
  assert_int_equal(ens_sfd_write_path(doc, path), 0);
  assert_int_equal(ens_sfd_read_path(path, &back), 0);
  size_t n;
  char *got = s_get(dir, "font.sfd", &n);
  assert_int_equal(n, sizeof s_font - 1);
  assert_memory_equal(got, s_font, n);
  free(got);
  ens_doc_free(back);
  ens_doc_free(doc);
  s_rmdir(dir);
}

/* --- malformed input -------------------------------------------------------------------- */

/* The fixture with `from` replaced by `to`, read: must fail with
 * ENS_EDECODE naming line `line`. */
static void s_bad(const char *from, const char *to, int line) {
  const char *at = strstr(s_font, from);
  assert_non_null(at);
  size_t pre = (size_t)(at - s_font), fl = strlen(from), tl = strlen(to), n = sizeof s_font - 1 - fl + tl;
  char *text = malloc(n + 1);
  memcpy(text, s_font, pre);
  memcpy(text + pre, to, tl);
  memcpy(text + pre + tl, at + fl, sizeof s_font - 1 - pre - fl);
  ens_doc *doc = NULL;
  int rc = ens_sfd_read(text, n, &doc);
  char want[32];
  snprintf(want, sizeof want, "line %d:", line);
  if (rc != ENS_EDECODE || !strstr(ens_error_last(), want))
    fprintf(stderr, "replacing '%s': rc %d, message '%s' (wanted %s)\n", from, rc, ens_error_last(), want);
  assert_int_equal(rc, ENS_EDECODE);
  assert_non_null(strstr(ens_error_last(), want));
  assert_null(doc);
  free(text);
}

static void test_malformed_input_names_its_line(void **state) {
  (void)state;
  s_bad(" 300 700 l 1,0,-1", " 300 abc l 1,0,-1", 29);        /* garbage where a number must be */
  s_bad(" 300 700 l 1,0,-1", " 1e999 700 l 1,0,-1", 29);      /* huge */
  s_bad(" 300 700 l 1,0,-1", " 300 700 700 l 1", 29);         /* wrong count */
  s_bad("Width: 600", "Width: lots", 16);                     /* non-numeric */
  s_bad("Width: 600", "Width: 99999999999999999999999", 16);  /* huge integer */
  s_bad("Width: 600", "Width: 600 and more", 16);
  s_bad("Encoding: 66 66 1", "Encoding: 66 x 1", 40);
  s_bad("Refer: 0 65 N 1 0 0 1 50 0 2", "Refer: 0 65 N 1 0 zero 1 50 0 2", 50);
  s_bad("AnchorPoint: \"top\" 300 700 basechar 0", "AnchorPoint: \"top\" 300", 24);
  s_bad("Kerns2: 1 -40", "Kerns2: 1 -4x0", 34);
  s_bad("StartChar: A", "StartChar: \"+2D3\"", 14);            /* bad UTF-7 name */
  s_bad("EndTTInstrs\n", "", 19);                              /* block without its end */
  s_bad("EndSplineSet\nKerns2", "Kerns2", 36);                 /* SplineSet without its end */
  s_bad("Colour: ff0000\nEndChar\n", "Colour: ff0000\n", 38);  /* glyph without EndChar */
  s_bad("SplineFontDB: 3.2", "Hello: world", 1);               /* not SFD */
  s_bad("EndChars\nEndSplineFont\n", "EndChars\n", 59);        /* truncated after the glyphs */
}

static void test_truncated_anywhere_never_crashes(void **state) {
  (void)state;
  /* every prefix either reads (and writes back the same bytes) or is
   * refused with a line number */
  for (size_t n = 0; n < sizeof s_font - 1; n++) {
    ens_doc *doc = NULL;
    int rc = ens_sfd_read(s_font, n, &doc);
    if (rc == 0) {
      size_t on;
      char *out = s_write(doc, &on);
      assert_int_equal(on, n);
      assert_memory_equal(out, s_font, n);
      ens_free(out);
      ens_doc_free(doc);
    } else {
      assert_int_equal(rc, ENS_EDECODE);
      assert_non_null(strstr(ens_error_last(), "line "));
    }
  }
}

static void test_reference_to_missing_glyph_stays_text(void **state) {
  (void)state;
  const char *at = strstr(s_font, "Refer: 0 65");
  size_t n = sizeof s_font - 1;
  char *text = malloc(n + 1);
  memcpy(text, s_font, n + 1);
  text[at - s_font + 7] = '9'; /* Refer: 9 ...: no glyph 9 */
  ens_doc *doc = s_read(text, n);
  const ens_obj *fore = s_child(s_glyph(doc, "B"), "layer", 1);
  assert_null(s_child(fore, "ref", 0));
  assert_non_null(s_child(fore, "raw", 0));
  size_t on;
  char *out = s_write(doc, &on);
  assert_int_equal(on, n);
  assert_memory_equal(out, text, n);
  ens_free(out);
  ens_doc_free(doc);
  free(text);
}

static void test_line_longer_than_the_limit(void **state) {
  (void)state;
  size_t big = ENS_SFD_MAX_LINE + 16, pre = 40;
  char *text = malloc(big + 64);
  memcpy(text, "SplineFontDB: 3.2\nFontName: X\nComments: ", pre);
  memset(text + pre, 'a', big);
  memcpy(text + pre + big, "\nEndSplineFont\n", 15);
  ens_doc *doc = NULL;
  assert_int_equal(ens_sfd_read(text, pre + big + 15, &doc), ENS_EDECODE);
  assert_non_null(strstr(ens_error_last(), "line 3:"));
  free(text);
}

static void test_number_printing_is_fontforge_style(void **state) {
  (void)state;
  /* a glyph with points at awkward values reads back exactly */
  static const double vals[] = {0.5, -0.25, 1e-7, 123456.789, 1234567, -0.0, 3.4e38, 0.1 + 0.2};
  ens_doc *doc = s_read(s_font, sizeof s_font - 1);
  const ens_obj *contour = s_child(s_child(s_glyph(doc, "A"), "layer", 0), "contour", 0);
  ens_id p1 = ens_obj_id(ens_obj_child(contour, 1));
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    ens_txn *t = ens_txn_new("x", NULL);
    ens_txn_set(t, p1, "x", ens_real(vals[i]));
    s_apply(doc, t);
    size_t n;
    char *out = s_write(doc, &n);
    ens_doc *back = s_read(out, n);
    const ens_obj *q = ens_obj_child(s_child(s_child(s_glyph(back, "A"), "layer", 0), "contour", 0), 1);
    double x = s_real(q, "x");
    assert_memory_equal(&x, &vals[i], sizeof x);
    if (vals[i] == 0.5) assert_non_null(memmem(out, n, "\n 0.5 700 l", 11));
    ens_doc_free(back);
    ens_free(out);
  }
  ens_doc_free(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_header_is_root_properties),
      cmocka_unit_test(test_glyph_properties),
      cmocka_unit_test(test_layers_contours_points),
      cmocka_unit_test(test_reference_resolves_to_glyph),
      cmocka_unit_test(test_anchors_and_kerning),
      cmocka_unit_test(test_roundtrip_fixture),
      cmocka_unit_test(test_roundtrip_crlf_and_no_final_newline),
      cmocka_unit_test(test_roundtrip_old_format),
      cmocka_unit_test(test_roundtrip_blocks_history_images_utf7),
      cmocka_unit_test(test_roundtrip_sub_fonts),
      cmocka_unit_test(test_snapshot_roundtrip_writes_same_bytes),
      cmocka_unit_test(test_width_edit_changes_only_the_width_line),
      cmocka_unit_test(test_changed_numbers_print_as_g),
      cmocka_unit_test(test_point_edit_changes_only_its_line),
      cmocka_unit_test(test_a_zero_set_over_minus_zero_is_written),
      cmocka_unit_test(test_edit_survives_snapshot_and_text_copy),
      cmocka_unit_test(test_removing_a_glyph_keeps_the_numbers_of_the_others),
      cmocka_unit_test(test_deleting_a_point_keeps_the_other_lines),
      cmocka_unit_test(test_property_removed_and_added),
      cmocka_unit_test(test_new_glyph_is_written_in_fontforge_style),
      cmocka_unit_test(test_rename_keeps_references),
      cmocka_unit_test(test_diff_by_identity_keys),
      cmocka_unit_test(test_sfdir_roundtrip_and_edits),
      cmocka_unit_test(test_write_path_is_a_complete_file),
      cmocka_unit_test(test_malformed_input_names_its_line),
      cmocka_unit_test(test_truncated_anywhere_never_crashes),
      cmocka_unit_test(test_reference_to_missing_glyph_stays_text),
      cmocka_unit_test(test_line_longer_than_the_limit),
      cmocka_unit_test(test_number_printing_is_fontforge_style),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
