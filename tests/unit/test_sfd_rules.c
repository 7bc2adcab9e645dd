/* The SFD format's rules (ens_sfd_schema), one test per rule: a change
 * the writer could not write so that the font reads back the same is
 * refused with its code and a reason that names the problem, leaves the
 * font as it was, and the font still writes a file that reads back as
 * itself; the nearest change that SFD can hold is accepted and reads
 * back as it is. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "../fuzz/fuzzlib.h"

static const char s_font[] =
    "SplineFontDB: 3.2\n"
    "FontName: Test\n"
    "FullName: Test Font\n"
    "ItalicAngle: -12.5\n"
    "Ascent: 800\n"
    "Descent: 200\n"
    "LayerCount: 2\n"
    "Encoding: UnicodeBmp\n"
    "BeginChars: 65536 3\n"
    "\n"
    "StartChar: A\n"
    "Encoding: 65 65 0\n"
    "Width: 600\n"
    "Flags: W\n"
    "AnchorPoint: \"top\" 300 700 basechar 0\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "10 0 m 1\n"
    " 300 700 l 1,0,-1\n"
    " 400 350 500 200.25 590 0 c 0\n"
    " 10 0 l 1\n"
    "EndSplineSet\n"
    "Kerns2: 1 -40 \"kern1\"\n"
    "EndChar\n"
    "\n"
    "StartChar: B\n"
    "Encoding: 66 66 1\n"
    "Width: 500\n"
    "LayerCount: 2\n"
    "Fore\n"
    "Refer: 0 65 N 1 0 0 1 50 0 2\n"
    "EndChar\n"
    "\n"
    "StartChar: C\n"
    "Encoding: 67 67 2\n"
    "Width: 400\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

/* --- helpers ------------------------------------------------------------------------ */

static ens_doc *s_font_doc(void) {
  ens_doc *doc = NULL;
  assert_int_equal(ens_sfd_read(s_font, sizeof s_font - 1, &doc), 0);
  assert_ptr_equal(ens_doc_schema(doc), ens_sfd_schema());
  return doc;
}

static const ens_obj *s_kind_at(const ens_obj *o, const char *kind, size_t nth) {
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    if (strcmp(ens_obj_kind(k), kind) == 0 && nth-- == 0) return k;
  }
  return NULL;
}

static const ens_obj *s_glyph(const ens_doc *doc, const char *name) {
  const ens_obj *g = ens_glyph_find(doc, name);
  assert_non_null(g);
  return g;
}

/* The first point of glyph A's outline, and its neighbours. */
static const ens_obj *s_point(const ens_doc *doc, size_t i) {
  const ens_obj *layer = s_kind_at(s_glyph(doc, "A"), ENS_SFD_LAYER, 0);
  const ens_obj *contour = s_kind_at(layer, ENS_SFD_CONTOUR, 0);
  assert_non_null(contour);
  assert_true(i < ens_obj_child_count(contour));
  return ens_obj_child(contour, i);
}

/* txn is refused with code and a reason holding why; the font is as it
 * was and still writes a file that reads back as itself. */
static void s_refused(ens_doc *doc, ens_txn *txn, int code, const char *why) {
  uint64_t h = ens_doc_hash(doc), ch = ens_doc_content_hash(doc);
  size_t count = ens_doc_count(doc);
  int rc = ens_doc_apply(doc, txn, ENS_ORIGIN_LOCAL, NULL);
  if (rc != code || !strstr(ens_error_last(), why))
    fail_msg("wanted %s with \"%s\", got %s: %s", ens_error_name(code), why, ens_error_name(rc), ens_error_last());
  print_message("refused: %s\n", ens_error_last());
  assert_int_equal(ens_doc_hash(doc), h);
  assert_int_equal(ens_doc_content_hash(doc), ch);
  assert_int_equal(ens_doc_count(doc), count);
  fz_check_written(doc, "after a refusal");
  ens_txn_free(txn);
}

/* txn applies, and the file written reads back as the document. */
static void s_accepted(ens_doc *doc, ens_txn *txn) {
  int rc = ens_doc_apply(doc, txn, ENS_ORIGIN_LOCAL, NULL);
  if (rc) fail_msg("refused: %s", ens_error_last());
  fz_check_written(doc, "after an accepted change");
  ens_txn_free(txn);
}

/* Kept text, as the reader keeps it: bytes. */
static ens_value s_text(const char *s) { return ens_bytes(s, strlen(s)); }

static ens_txn *s_set(const ens_obj *o, const char *key, ens_value v) {
  ens_txn *t = ens_txn_new("test", NULL);
  assert_non_null(t);
  assert_int_equal(ens_txn_set(t, ens_obj_id(o), key, v), 0);
  return t;
}

/* --- one-line values ------------------------------------------------------------------- */

static void test_line_break_in_a_value_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  const ens_obj *a = s_glyph(doc, "A");
  /* the issue's own case: it would be a second glyph in every file */
  s_refused(doc, s_set(a, "flags", ens_str("HW\nEndChar\nStartChar: injected")), ENS_EFORMAT, "line break");
  s_refused(doc, s_set(a, "flags", ens_str("HW\r")), ENS_EFORMAT, "line break");
  s_refused(doc, s_set(ens_doc_root(doc), "FontName", ens_str("X\nStartChar: y")), ENS_EFORMAT, "line break");
  /* a final backslash continues the line into the next one */
  s_refused(doc, s_set(a, "hstem", ens_str("0 20\\")), ENS_EFORMAT, "backslash");
  s_accepted(doc, s_set(a, "flags", ens_str("HW")));
  s_accepted(doc, s_set(ens_doc_root(doc), "FontName", ens_str("Test \\ Bold")));
  ens_doc_free(doc);
}

/* --- kinds and types ------------------------------------------------------------------- */

static void test_kinds_the_writer_cannot_write_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  const ens_obj *a = s_glyph(doc, "A");
  char *pos = NULL;
  assert_int_equal(ens_doc_pos_at(doc, ens_obj_id(a), 0, &pos), 0);
  ens_txn *t = ens_txn_new("test", NULL);
  assert_non_null(ens_txn_insert(t, ens_obj_id(a), pos, ens_doc_new_id(doc), "widget"));
  s_refused(doc, t, ENS_EKIND, "widget");
  /* a point straight under a glyph: SFD has it only in a contour */
  t = ens_txn_new("test", NULL);
  ens_node *n = ens_txn_insert(t, ens_obj_id(a), pos, ens_doc_new_id(doc), ENS_SFD_POINT);
  ens_node_set(n, "x", ens_real(1));
  ens_node_set(n, "y", ens_real(2));
  s_refused(doc, t, ENS_EKIND, "may not be placed under a 'glyph'");
  ens_free(pos);
  ens_doc_free(doc);
}

static void test_a_string_where_sfd_has_a_number_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  const ens_obj *a = s_glyph(doc, "A");
  s_refused(doc, s_set(a, "width", ens_str("wide")), ENS_ETYPE, "'width' must be an integer, not a string");
  s_refused(doc, s_set(a, "width", ens_real(600.5)), ENS_ETYPE, "'width' must be an integer");
  s_refused(doc, s_set(s_point(doc, 1), "x", ens_int(300)), ENS_ETYPE, "'x' must be a real");
  s_refused(doc, s_set(ens_doc_root(doc), "Ascent", ens_str("800")), ENS_ETYPE, "'Ascent' must be an integer");
  s_accepted(doc, s_set(a, "width", ens_int(610)));
  ens_doc_free(doc);
}

static void test_numbers_beyond_what_sfd_reads_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  const ens_obj *a = s_glyph(doc, "A");
  s_refused(doc, s_set(a, "width", ens_int((int64_t)1 << 40)), ENS_EFORMAT, "beyond a C int");
  s_refused(doc, s_set(s_point(doc, 1), "x", ens_real(1e300)), ENS_EFORMAT, "within a float");
  s_refused(doc, s_set(s_point(doc, 1), "x", ens_real(NAN)), ENS_EFORMAT, "finite");
  s_refused(doc, s_set(s_point(doc, 1), "type", ens_int(5)), ENS_EFORMAT, "point type");
  s_refused(doc, s_set(s_point(doc, 1), "flags", ens_int(6)), ENS_EFORMAT, "type bits");
  s_refused(doc, s_set(a, "colour", ens_int(-1)), ENS_EFORMAT, "0xffffffff");
  s_refused(doc, s_set(a, "gid", ens_int(-3)), ENS_EFORMAT, "glyph number");
  s_accepted(doc, s_set(s_point(doc, 1), "x", ens_real(300.25)));
  s_accepted(doc, s_set(a, "colour", ens_int(0xffffffffLL)));
  ens_doc_free(doc);
}

static void test_properties_sfd_does_not_have_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  s_refused(doc, s_set(s_glyph(doc, "A"), "owner", ens_str("me")), ENS_EFORMAT, "no property 'owner'");
  s_refused(doc, s_set(ens_doc_root(doc), "~dir", ens_bool(1)), ENS_EFORMAT, "the reader's to set");
  s_refused(doc, s_set(s_point(doc, 1), "x", ens_nil()), ENS_EFORMAT, "may not be removed");
  ens_doc_free(doc);
}

/* --- lines of several values ----------------------------------------------------------- */

static void test_points_that_would_not_read_back_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  const ens_obj *p1 = s_point(doc, 1);
  s_refused(doc, s_set(p1, "c1x", ens_real(5)), ENS_EFORMAT, "all four of c1x, c1y, c2x, c2y");
  /* the first point is an m line: no control points */
  ens_txn *t = ens_txn_new("test", NULL);
  const char *c[4] = {"c1x", "c1y", "c2x", "c2y"};
  for (int i = 0; i < 4; i++) ens_txn_set(t, ens_obj_id(s_point(doc, 0)), c[i], ens_real(i));
  s_refused(doc, t, ENS_EFORMAT, "first point of a contour");
  /* deleting the first point leaves the curve point first */
  t = ens_txn_new("test", NULL);
  ens_txn_delete(t, ens_obj_id(s_point(doc, 0)));
  ens_txn_delete(t, ens_obj_id(s_point(doc, 1)));
  s_refused(doc, t, ENS_EFORMAT, "first point of a contour");
  /* undoing the refused deletes made the points anew: look them up again */
  p1 = s_point(doc, 1);
  s_refused(doc, s_set(p1, "type", ens_nil()), ENS_EFORMAT, "'type' and 'flags'");
  s_refused(doc, s_set(p1, "nextcp", ens_nil()), ENS_EFORMAT, "'ttf' and 'nextcp'");
  /* text after the flags that would read as part of them */
  s_refused(doc, s_set(p1, "extra", ens_str("5")), ENS_EFORMAT, "'extra' would not read back");
  /* a whole curve at once is fine: the rules judge the end of a transaction */
  t = ens_txn_new("test", NULL);
  for (int i = 0; i < 4; i++) ens_txn_set(t, ens_obj_id(p1), c[i], ens_real(10 * i));
  s_accepted(doc, t);
  /* a hint mask after the flags; not after TrueType numbers, which must end the line */
  s_refused(doc, s_set(p1, "extra", ens_str("x80")), ENS_EFORMAT, "'extra' would not read back");
  s_accepted(doc, s_set(s_point(doc, 2), "extra", ens_str("x80")));
  /* nothing after the flags reads back as no 'extra' at all */
  s_refused(doc, s_set(s_point(doc, 2), "extra", ens_str("")), ENS_EFORMAT, "empty 'extra'");
  s_refused(doc, s_set(p1, "extra", ens_str("")), ENS_EFORMAT, "empty 'extra'");
  s_accepted(doc, s_set(s_point(doc, 2), "extra", ens_nil()));
  ens_doc_free(doc);
}

static void test_references_anchors_and_kerning_that_would_not_read_back_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  const ens_obj *a = s_glyph(doc, "A"), *b = s_glyph(doc, "B");
  const ens_obj *ref = s_kind_at(s_kind_at(b, ENS_SFD_LAYER, 0), ENS_SFD_REF, 0);
  const ens_obj *anchor = s_kind_at(a, ENS_SFD_ANCHOR, 0), *kern = s_kind_at(a, ENS_SFD_KERN, 0);
  assert_non_null(ref);
  assert_non_null(anchor);
  assert_non_null(kern);
  s_refused(doc, s_set(ref, "glyph", ens_ref(ens_obj_id(s_kind_at(a, ENS_SFD_LAYER, 0)))), ENS_EFORMAT,
            "does not name a glyph");
  s_refused(doc, s_set(ref, "flags", ens_int(70000)), ENS_EFORMAT, "0..65535");
  s_refused(doc, s_set(ref, "selected", ens_int(1)), ENS_ETYPE, "boolean");
  s_refused(doc, s_set(anchor, "type", ens_str("base char")), ENS_EFORMAT, "one word");
  s_refused(doc, s_set(anchor, "class", ens_str("top\xff")), ENS_EFORMAT, "UTF-8");
  s_refused(doc, s_set(anchor, "lig", ens_int(40000)), ENS_EFORMAT, "-32768..32767");
  s_refused(doc, s_set(kern, "device", ens_str("{1} 2")), ENS_EFORMAT, "device table");
  s_refused(doc, s_set(kern, "vertical", ens_bool(0)), ENS_EFORMAT, "leaving it out");
  s_refused(doc, s_set(kern, "offset", ens_real(3)), ENS_ETYPE, "integer");
  s_accepted(doc, s_set(ref, "glyph", ens_ref(ens_obj_id(s_glyph(doc, "C")))));
  s_accepted(doc, s_set(anchor, "class", ens_str("top\xc3\xa9")));
  s_accepted(doc, s_set(kern, "device", ens_str("{12-13 -1,-1}")));
  /* an empty 'extra' is nothing after the line's last field: it reads back as none */
  s_refused(doc, s_set(ref, "extra", ens_str("")), ENS_EFORMAT, "empty 'extra'");
  s_refused(doc, s_set(anchor, "extra", ens_str("")), ENS_EFORMAT, "empty 'extra'");
  s_accepted(doc, s_set(kern, "subtable", ens_str("")));
  ens_doc_free(doc);
}

static void test_glyph_lines_that_would_not_read_back_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  const ens_obj *a = s_glyph(doc, "A");
  s_refused(doc, s_set(a, "unicode", ens_nil()), ENS_EFORMAT, "'encoding' and 'unicode'");
  s_refused(doc, s_set(a, "name", ens_str("A\xc0")), ENS_EFORMAT, "UTF-8");
  /* a new glyph has its StartChar: line printed from its name (found by fuzz_format_edit) */
  char *pos = NULL;
  assert_int_equal(ens_doc_pos_at(doc, ENS_ROOT_ID, ens_obj_child_count(ens_doc_root(doc)), &pos), 0);
  ens_txn *t = ens_txn_new("test", NULL);
  ens_node *g = ens_txn_insert(t, ENS_ROOT_ID, pos, ens_doc_new_id(doc), ENS_SFD_GLYPH);
  ens_node_set(g, "name", ens_str("\xc5"));
  ens_node_set(g, "gid", ens_int(3));
  s_refused(doc, t, ENS_EFORMAT, "UTF-8");
  ens_free(pos);
  /* a name ending in a backslash is written quoted, so that it does not continue its line */
  s_accepted(doc, s_set(a, "name", ens_str("A\\")));
  s_accepted(doc, s_set(a, "name", ens_str("A acute")));
  ens_doc_free(doc);
}

/* A glyph's file in an SFDir: a .glyph file inside the font's directory.
 * FontForge names the files of .notdef and .null .notdef.glyph and
 * .null.glyph, so a leading dot is one it writes. */
static void test_a_glyph_file_outside_the_directory_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  const ens_obj *a = s_glyph(doc, "A");
  s_refused(doc, s_set(a, "~file", ens_str("../A.glyph")), ENS_EFORMAT, "not the name of a .glyph file");
  s_refused(doc, s_set(a, "~file", ens_str("A.sfd")), ENS_EFORMAT, "not the name of a .glyph file");
  s_refused(doc, s_set(a, "~file", ens_str(".glyph")), ENS_EFORMAT, "not the name of a .glyph file");
  s_accepted(doc, s_set(a, "~file", ens_str(".notdef.glyph")));
  s_accepted(doc, s_set(a, "~file", ens_str("_A.glyph")));
  ens_doc_free(doc);
}

/* --- text kept as read ---------------------------------------------------------------------- */

static void test_kept_text_that_would_read_as_more_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  const ens_obj *c = s_glyph(doc, "C");
  const ens_obj *layer = s_kind_at(s_glyph(doc, "A"), ENS_SFD_LAYER, 0);
  s_refused(doc, s_set(c, "~head", s_text("\nStartChar: C\nEncoding: 67 67 2\nEndChar\nStartChar: D\n")),
            ENS_EFORMAT, "follows its EndChar");
  s_refused(doc, s_set(c, "~head", s_text("StartChar: C\nFore\nSplineSet\n")), ENS_EFORMAT,
            "part of the outline");
  /* a keyed line whose property is there is printed again from it; one without must read */
  s_accepted(doc, s_set(c, "~head", s_text("StartChar: C\nWidth: lots\n")));
  s_refused(doc, s_set(c, "~head", s_text("StartChar: C\nVWidth: lots\n")), ENS_EFORMAT, "does not read");
  s_refused(doc, s_set(layer, "~tail", s_text("EndSplineSet\nAnchorPoint: \"x\" 1 2 mark 0\n")), ENS_EFORMAT,
            "would end the layer");
  s_refused(doc, s_set(layer, "~tail", s_text("EndSplineSet")), ENS_EFORMAT, "does not end its last line");
  s_refused(doc, s_set(ens_doc_root(doc), "~tail", s_text("EndChars\n")), ENS_EFORMAT, "EndSplineFont");
  /* its first line, kept in its text but written from the property */
  s_refused(doc, s_set(ens_doc_root(doc), "SplineFontDB", ens_nil()), ENS_EFORMAT, "'SplineFontDB', its first line");
  s_accepted(doc, s_set(ens_doc_root(doc), "SplineFontDB", ens_str("3.0")));
  /* a font's text taken away, or made empty: the writer frames its glyphs */
  s_accepted(doc, s_set(ens_doc_root(doc), "~head", s_text("")));
  s_accepted(doc, s_set(ens_doc_root(doc), "~head", ens_nil()));
  s_accepted(doc, s_set(c, "~head", s_text("\nStartChar: C\nEncoding: 67 67 2\nWidth: 400\nFlags: W\n")));
  ens_doc_free(doc);
}

/* --- numbers that name glyphs ------------------------------------------------------------- */

static void test_a_reference_that_would_name_another_glyph_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  const ens_obj *a = s_glyph(doc, "A"), *c = s_glyph(doc, "C");
  const ens_obj *ref = s_kind_at(s_kind_at(s_glyph(doc, "B"), ENS_SFD_LAYER, 0), ENS_SFD_REF, 0);
  ens_txn *t = s_set(ref, "glyph", ens_ref(ens_obj_id(c)));
  assert_int_equal(ens_txn_set(t, ens_obj_id(c), "gid", ens_int(0)), 0); /* C now says A's number */
  s_refused(doc, t, ENS_EFORMAT, "read back as another glyph");
  (void)a;
  ens_doc_free(doc);
}

/* --- the glyph commands still work under the rules ------------------------------------------- */

static void test_glyph_commands_meet_the_rules(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  ens_txn *t = NULL;
  assert_int_equal(ens_glyph_add(doc, "D", 68, 300, &t), 0);
  s_accepted(doc, t);
  ens_doc_free(doc);
  /* in a font without glyphs, too: the new glyph gets its number */
  static const char empty[] = "SplineFontDB: 3.2\nFontName: E\nBeginChars: 65536 0\nEndChars\nEndSplineFont\n";
  assert_int_equal(ens_sfd_read(empty, sizeof empty - 1, &doc), 0);
  assert_int_equal(ens_glyph_add(doc, "a", 97, 500, &t), 0);
  s_accepted(doc, t);
  ens_doc_free(doc);
}

/* --- undo is judged too ---------------------------------------------------------------------- */

static void test_an_undo_that_would_not_read_back_is_refused(void **state) {
  (void)state;
  ens_doc *doc = s_font_doc();
  ens_undo *u = ens_undo_new(doc, 0);
  const ens_obj *p1 = s_point(doc, 1);
  /* the user makes a line point a curve; a collaborator then sets one
   * control; undo would leave three of four controls: refused whole */
  ens_txn *t = ens_txn_new("curve", NULL);
  const char *c[4] = {"c1x", "c1y", "c2x", "c2y"};
  for (int i = 0; i < 4; i++) ens_txn_set(t, ens_obj_id(p1), c[i], ens_real(i));
  assert_int_equal(ens_undo_commit(u, t), 0);
  ens_txn_free(t);
  t = s_set(p1, "c1x", ens_real(9));
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_REMOTE, NULL), 0);
  ens_txn_free(t);
  uint64_t h = ens_doc_hash(doc);
  assert_int_equal(ens_undo_undo(u, NULL), ENS_EFORMAT);
  assert_non_null(strstr(ens_error_last(), "all four"));
  assert_int_equal(ens_doc_hash(doc), h);
  fz_check_written(doc, "after a refused undo");
  ens_undo_free(u);
  ens_doc_free(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_line_break_in_a_value_refused),
      cmocka_unit_test(test_kinds_the_writer_cannot_write_refused),
      cmocka_unit_test(test_a_string_where_sfd_has_a_number_refused),
      cmocka_unit_test(test_numbers_beyond_what_sfd_reads_refused),
      cmocka_unit_test(test_properties_sfd_does_not_have_refused),
      cmocka_unit_test(test_points_that_would_not_read_back_refused),
      cmocka_unit_test(test_references_anchors_and_kerning_that_would_not_read_back_refused),
      cmocka_unit_test(test_glyph_lines_that_would_not_read_back_refused),
      cmocka_unit_test(test_a_glyph_file_outside_the_directory_refused),
      cmocka_unit_test(test_kept_text_that_would_read_as_more_refused),
      cmocka_unit_test(test_a_reference_that_would_name_another_glyph_refused),
      cmocka_unit_test(test_glyph_commands_meet_the_rules),
      cmocka_unit_test(test_an_undo_that_would_not_read_back_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
