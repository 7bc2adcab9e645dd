/* Every kind of bad SFD input issue 3 names: refused with ENS_EDECODE/ENS_ELIMIT
 * naming the right line, or read with the odd line kept and written back as it was. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

/* A small font with a piece of everything the reader models or cuts as a
 * block: a backslash-continued header line, TrueType instructions (with a
 * line that looks like EndChar), anchors, quadratic and cubic points,
 * NamedP, kerning, a UTF-7 comment, a background layer with an image,
 * multi-line PickledData, and references. */
static const char s_font[] =
    "SplineFontDB: 3.2\n"
    "FontName: Bad\n"
    "FullName: Bad Input\n"
    "ItalicAngle: -12.5\n"
    "Ascent: 800\n"
    "Descent: 200\n"
    "UComments: \"+AOk-t+AOk-\"\n"
    "LangName: 1033 \"\" \"\" \"Regular\" \"Bad\\\n"
    " Input\"\n"
    "LayerCount: 2\n"
    "Layer: 0 0 \"Back\" 1\n"
    "Layer: 1 0 \"Fore\" 0\n"
    "Encoding: UnicodeBmp\n"
    "BeginChars: 65536 3\n"
    "\n"
    "StartChar: A\n"
    "Encoding: 65 65 0\n"
    "Width: 600\n"
    "Flags: W\n"
    "TtInstrs:\n"
    "NPUSHB\n"
    " 2\n"
    "EndChar\n"
    "EndTTInstrs\n"
    "AnchorPoint: \"top\" 300 700 basechar 0\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "10 0 m 1,0,-1\n"
    " 300 700 l 1,1,-1\n"
    "NamedP: \"apex\"\n"
    " 400 350 500 200.25 590 0 c 0x80\n"
    " 10 0 l 1,0,-1\n"
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
    "Image: 2 2 0 1 1 0 0 0 1 1\n"
    "8W9\n"
    "EndImage\n"
    "SplineSet\n"
    "0 0 m 1\n"
    " 100 0 l 1\n"
    " 0 0 l 1\n"
    "EndSplineSet\n"
    "Fore\n"
    "Refer: 0 65 N 1 0 0 1 50 0 2\n"
    "PickledData: \"(lp0\\\n"
    "I1\n"
    "a.\"\n"
    "EndChar\n"
    "\n"
    "StartChar: C\n"
    "Encoding: 67 67 2\n"
    "Width: 400\n"
    "Fore\n"
    "Refer: 1 66 N 1 0 0 1 0 0 2\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

#define S_FONT_LEN (sizeof s_font - 1)

/* --- helpers ----------------------------------------------------------------------------- */

/* 1-based number of the line where `needle` first starts in text. */
static int s_line_of(const char *text, const char *needle) {
  const char *at = strstr(text, needle);
  assert_non_null(at);
  int line = 1;
  for (const char *p = text; p < at; p++) line += *p == '\n';
  return line;
}

/* Lines of text (a last line without a newline counts). */
static size_t s_lines(const char *text, size_t len) {
  size_t n = len && text[len - 1] != '\n';
  for (size_t i = 0; i < len; i++) n += text[i] == '\n';
  return n;
}

/* s_font (or base) with the first `from` replaced by `to`; malloc'd, NUL-terminated. */
static char *s_subst_in(const char *base, const char *from, const char *to, size_t *len) {
  const char *at = strstr(base, from);
  if (!at) fprintf(stderr, "'%s' is not in the font\n", from);
  assert_non_null(at);
  size_t bl = strlen(base), pre = (size_t)(at - base), fl = strlen(from), tl = strlen(to);
  *len = bl - fl + tl;
  char *text = malloc(*len + 1);
  assert_non_null(text);
  memcpy(text, base, pre);
  memcpy(text + pre, to, tl);
  memcpy(text + pre + tl, at + fl, bl - pre - fl + 1);
  return text;
}

static char *s_subst(const char *from, const char *to, size_t *len) { return s_subst_in(s_font, from, to, len); }

/* The error names line `line`: "line N:" (also as "...: line N: ..."). */
static int s_names_line(int line) {
  char want[32];
  snprintf(want, sizeof want, "line %d:", line);
  return strstr(ens_error_last(), want) != NULL;
}

/* Reading text must fail with `code` naming `line` (and leave no document). */
static void s_refused(const char *text, size_t len, int code, int line, const char *what) {
  ens_doc *doc = (ens_doc *)(uintptr_t)1;
  int rc = ens_sfd_read(text, len, &doc);
  if (rc != code || !s_names_line(line))
    fprintf(stderr, "%s: rc %s, '%s' (wanted %s at line %d)\n", what, ens_error_name(rc), ens_error_last(),
            ens_error_name(code), line);
  assert_int_equal(rc, code);
  assert_true(s_names_line(line));
  assert_null(doc);
}

/* Reading text must succeed, and writing must give the same bytes back. */
static ens_doc *s_kept(const char *text, size_t len, const char *what) {
  ens_doc *doc = NULL;
  int rc = ens_sfd_read(text, len, &doc);
  if (rc) fprintf(stderr, "%s: %s\n", what, ens_error_last());
  assert_int_equal(rc, 0);
  unsigned char *out = NULL;
  size_t n = 0;
  assert_int_equal(ens_sfd_write(doc, &out, &n), 0);
  if (n != len || memcmp(out, text, len) != 0) fprintf(stderr, "%s: written back differently\n", what);
  assert_int_equal(n, len);
  assert_memory_equal(out, text, len);
  ens_free(out);
  return doc;
}

/* Either: refused naming `line`, or read and written back byte for byte. */
static void s_refused_or_kept(const char *text, size_t len, int line, const char *what) {
  ens_doc *doc = NULL;
  int rc = ens_sfd_read(text, len, &doc);
  if (rc == 0) {
    ens_doc_free(doc);
    ens_doc_free(s_kept(text, len, what));
    return;
  }
  s_refused(text, len, rc == ENS_ELIMIT ? ENS_ELIMIT : ENS_EDECODE, line, what);
}

static const ens_obj *s_child(const ens_obj *o, const char *kind, size_t nth) {
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    if (strcmp(ens_obj_kind(k), kind) == 0 && nth-- == 0) return k;
  }
  return NULL;
}

static size_t s_count(const ens_obj *o, const char *kind) {
  size_t n = strcmp(ens_obj_kind(o), kind) == 0;
  for (size_t i = 0; i < ens_obj_child_count(o); i++) n += s_count(ens_obj_child(o, i), kind);
  return n;
}

static long s_maxrss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static double s_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* --- the fixture itself ------------------------------------------------------------------ */

static void test_fixture_reads_and_round_trips(void **state) {
  (void)state;
  ens_doc *doc = s_kept(s_font, S_FONT_LEN, "fixture");
  /* the pieces the cases below damage are all modelled */
  const ens_obj *root = ens_doc_root(doc);
  assert_int_equal(s_count(root, "glyph"), 3);
  assert_int_equal(s_count(root, "point"), 7);
  assert_int_equal(s_count(root, "ref"), 2);
  assert_int_equal(s_count(root, "anchor"), 1);
  assert_int_equal(s_count(root, "kern"), 2);
  ens_doc_free(doc);
}

/* --- truncated files --------------------------------------------------------------------- */

static void test_every_prefix_reads_back_or_names_a_line(void **state) {
  (void)state;
  /* every cut, at every byte: refused naming a line of the cut text (or the
   * one just past it, when the text ends early), or read and written back */
  for (size_t n = 0; n < S_FONT_LEN; n++) {
    ens_doc *doc = NULL;
    int rc = ens_sfd_read(s_font, n, &doc);
    if (rc == 0) {
      ens_doc_free(doc);
      ens_doc_free(s_kept(s_font, n, "prefix"));
      continue;
    }
    assert_int_equal(rc, ENS_EDECODE);
    assert_null(doc);
    const char *at = strstr(ens_error_last(), "line ");
    assert_non_null(at);
    unsigned long line = strtoul(at + 5, NULL, 10);
    if (line < 1 || line > s_lines(s_font, n) + 1)
      fprintf(stderr, "prefix of %zu bytes: '%s' names no line of it\n", n, ens_error_last());
    assert_true(line >= 1 && line <= s_lines(s_font, n) + 1);
  }
}

/* The font cut just before `needle` (plus `keep` bytes of it). */
static size_t s_cut_at(const char *needle, size_t keep) {
  const char *at = strstr(s_font, needle);
  assert_non_null(at);
  return (size_t)(at - s_font) + keep;
}

static void test_truncated_inside_a_glyph(void **state) {
  (void)state;
  /* after a point line, and after EndSplineSet: the glyph has no EndChar;
   * the error names where the glyph starts, the blank line before its
   * StartChar: (blank lines before a glyph belong to it, docs/sfd.md) */
  int a = s_line_of(s_font, "StartChar: A") - 1;
  s_refused(s_font, s_cut_at(" 300 700 l", 0), ENS_EDECODE, a, "cut after a point line");
  assert_non_null(strstr(ens_error_last(), "EndChar"));
  s_refused(s_font, s_cut_at("Kerns2:", 0), ENS_EDECODE, a, "cut after EndSplineSet");
  /* cut right after a glyph's EndChar: the glyph is whole, the font is not */
  size_t n = s_cut_at("EndChar\n\nStartChar: B", 7);
  s_refused(s_font, n, ENS_EDECODE, (int)s_lines(s_font, n) + 1, "cut after EndChar");
  /* in the middle of a point line: that line */
  s_refused(s_font, s_cut_at(" 300 700 l", 6), ENS_EDECODE, s_line_of(s_font, " 300 700 l"), "cut in a point");
  s_refused(s_font, s_cut_at(" 400 350 500", 12), ENS_EDECODE, s_line_of(s_font, " 400 350 500"),
            "cut in a curve point");
  /* in the middle of a reference: that line */
  s_refused(s_font, s_cut_at("Refer: 0 65 N", 13), ENS_EDECODE, s_line_of(s_font, "Refer: 0 65 N"),
            "cut in a reference");
  /* after EndChars: the text ends before EndSplineFont */
  n = s_cut_at("EndSplineFont", 0);
  s_refused(s_font, n, ENS_EDECODE, (int)s_lines(s_font, n) + 1, "cut before EndSplineFont");
  assert_non_null(strstr(ens_error_last(), "EndSplineFont"));
  n = s_cut_at("EndSplineFont", 8);
  s_refused(s_font, n, ENS_EDECODE, (int)s_lines(s_font, n) + 1, "cut inside EndSplineFont");
}

static void test_truncated_inside_blocks(void **state) {
  (void)state;
  /* a block cut before its end line is refused at the line that opened it,
   * whatever comes after (nothing inside a block is read as a keyword) */
  int tt = s_line_of(s_font, "TtInstrs:");
  s_refused(s_font, s_cut_at("NPUSHB", 3), ENS_EDECODE, tt, "cut in TtInstrs");
  assert_non_null(strstr(ens_error_last(), "TtInstrs:"));
  s_refused(s_font, s_cut_at("EndChar\nEndTTInstrs", 7), ENS_EDECODE, tt, "cut at the EndChar inside TtInstrs");
  s_refused(s_font, s_cut_at("EndTTInstrs", 6), ENS_EDECODE, tt, "cut in EndTTInstrs");
  int image = s_line_of(s_font, "Image:");
  s_refused(s_font, s_cut_at("8W9", 2), ENS_EDECODE, image, "cut in Image data");
  assert_non_null(strstr(ens_error_last(), "Image:"));
  s_refused(s_font, s_cut_at("EndImage", 3), ENS_EDECODE, image, "cut in EndImage");

  /* the same block without its end, the rest of the font intact */
  size_t len;
  char *text = s_subst("EndTTInstrs\n", "", &len);
  s_refused(text, len, ENS_EDECODE, tt, "TtInstrs without EndTTInstrs");
  free(text);
  text = s_subst("EndImage\n", "", &len);
  s_refused(text, len, ENS_EDECODE, image, "Image without EndImage");
  free(text);
}

static void test_truncated_inside_quoted_strings(void **state) {
  (void)state;
  /* a quoted value over several lines (PickledData) cut before its closing
   * quote: refused at its first line */
  int pickled = s_line_of(s_font, "PickledData:");
  s_refused(s_font, s_cut_at("I1\n", 1), ENS_EDECODE, pickled, "cut in PickledData");
  s_refused(s_font, s_cut_at("a.\"", 2), ENS_EDECODE, pickled, "cut just before the closing quote");
  size_t len;
  char *text = s_subst("a.\"\n", "a.\n", &len);
  s_refused(text, len, ENS_EDECODE, pickled, "PickledData never closed");
  free(text);

  /* a quoted name cut inside the quotes: that line */
  s_refused(s_font, s_cut_at("AnchorPoint: \"top\"", 16), ENS_EDECODE, s_line_of(s_font, "AnchorPoint:"),
            "cut in an anchor class");
  s_refused(s_font, s_cut_at("Kerns2: 1 -40 \"kern1\"", 18), ENS_EDECODE, s_line_of(s_font, "Kerns2:"),
            "cut in a kerning subtable name");
  text = s_subst("StartChar: A\n", "StartChar: \"caf+AOk-\"\n", &len);
  const char *at = strstr(text, "StartChar: \"caf");
  s_refused(text, (size_t)(at - text) + 16, ENS_EDECODE, s_line_of(text, "StartChar: \"caf"), "cut in a name");
  free(text);

  /* a comment cut inside its quotes is not UTF-7: it stays text, and the
   * glyph then has no EndChar */
  s_refused(s_font, s_cut_at("Comment: \"caf+AO", 16), ENS_EDECODE, s_line_of(s_font, "StartChar: A") - 1,
            "cut in a comment");
}

/* --- garbage lines where numbers belong ---------------------------------------------------- */

static void test_garbage_where_numbers_belong(void **state) {
  (void)state;
  static const struct {
    const char *from, *to;
  } cases[] = {
      /* point lines */
      {" 300 700 l 1,1,-1", " 300 abc l 1,1,-1"},
      {" 300 700 l 1,1,-1", " 300 700 q 1,1,-1"},
      {" 300 700 l 1,1,-1", " 300 700 700 l 1"},
      {" 300 700 l 1,1,-1", " 300 l 1"},
      {" 300 700 l 1,1,-1", " 300 700"},
      {" 300 700 l 1,1,-1", " 300 700 l 99999"},
      {" 300 700 l 1,1,-1", " 300,700 l 1"},
      {" 300 700 l 1,1,-1", " 300 700l 1"},
      {" 300 700 l 1,1,-1", " 300 700 lx 1"},
      {" 400 350 500 200.25 590 0 c 0x80", " 400 350 500 200.25 590 c 0x80"},
      {" 400 350 500 200.25 590 0 c 0x80", " 400 350 500 200.25 590 0 l 0x80"},
      {"10 0 m 1,0,-1", "10 zero m 1,0,-1"},
      {"10 0 m 1,0,-1", " 10 0 l 1,0,-1"}, /* a contour must start with m */
      /* Width: */
      {"Width: 600", "Width: lots"},
      {"Width: 600", "Width: 600 and more"},
      {"Width: 600", "Width: 600.5"},
      {"Width: 600", "Width:"},
      {"Width: 600", "Width: "},
      {"Width: 600", "Width: --600"},
      {"Width: 600", "Width: 6OO"},
      /* Encoding: */
      {"Encoding: 66 66 1", "Encoding: 66 x 1"},
      {"Encoding: 66 66 1", "Encoding: x 66 1"},
      {"Encoding: 66 66 1", "Encoding: 66 66 1 1"},
      {"Encoding: 66 66 1", "Encoding: 66"},
      {"Encoding: 66 66 1", "Encoding:"},
      {"Encoding: 66 66 1", "Encoding: 66,66,1"},
      /* Refer: */
      {"Refer: 0 65 N 1 0 0 1 50 0 2", "Refer: zero 65 N 1 0 0 1 50 0 2"},
      {"Refer: 0 65 N 1 0 0 1 50 0 2", "Refer: 0 65 X 1 0 0 1 50 0 2"},
      {"Refer: 0 65 N 1 0 0 1 50 0 2", "Refer: 0 65 N 1 0 zero 1 50 0 2"},
      {"Refer: 0 65 N 1 0 0 1 50 0 2", "Refer: 0 65 N 1 0 0 1 50"},
      {"Refer: 0 65 N 1 0 0 1 50 0 2", "Refer: 0 65 N 1 0 0 1 50 0 -2"},
      {"Refer: 0 65 N 1 0 0 1 50 0 2", "Refer:"},
      {"Refer: 0 65 N 1 0 0 1 50 0 2", "Refer: 0x0 65 N 1 0 0 1 50 0 2"},
      /* and the other numbered lines */
      {"AnchorPoint: \"top\" 300 700 basechar 0", "AnchorPoint: \"top\" 300 high basechar 0"},
      {"AnchorPoint: \"top\" 300 700 basechar 0", "AnchorPoint: \"top\" 300 700 basechar"},
      {"Kerns2: 1 -40", "Kerns2: 1 -4x0"},
      {"Kerns2: 1 -40", "Kerns2: one -40"},
      {"Ascent: 800", "Ascent: high"},
      {"ItalicAngle: -12.5", "ItalicAngle: -12.5x"},
      {"Fore\nRefer: 1", "Layer: x\nRefer: 1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t len;
    char *text = s_subst(cases[i].from, cases[i].to, &len);
    char what[160];
    snprintf(what, sizeof what, "'%s'", cases[i].to);
    /* the damaged line is where the good one was */
    s_refused(text, len, ENS_EDECODE, s_line_of(s_font, cases[i].from), what);
    free(text);
  }
}

static void test_garbage_lines_elsewhere_are_kept(void **state) {
  (void)state;
  /* lines the reader does not model stay as they are, wherever they are */
  static const struct {
    const char *from, *to;
  } cases[] = {
      {"FontName: Bad\n", "FontName: Bad\nNot a keyword at all\n"},
      {"Width: 600\n", "Width: 600\nGarbage: 1 2 3 x y z\n"},
      {"Width: 600\n", "Width: 600\nwidth: lots\n"},                 /* not the keyword (case) */
      {"Width: 600\n", "Width: 600\nWidth: lots\n"},                 /* only the first Width: counts */
      {"Flags: W\n", "Flags: ???\n"},                                /* a string property */
      {"SplineSet\n0 0 m 1", "SplineSet\nnonsense in a spline set\n0 0 m 1"},
      /* in a spline set, a line that does not start with a digit or a sign
       * is not a point line: text of the contour, the point not read */
      {" 300 700 l 1,1,-1", " abc 700 l 1,1,-1"},
      {" 300 700 l 1,1,-1", " nan 700 l 1,1,-1"},
      {" 300 700 l 1,1,-1", " inf 700 l 1,1,-1"},
      {" 300 700 l 1,1,-1", " 300 700 l 1,1,-1 trailing words"},      /* kept as the point's extra */
      {" 300 700 l 1,1,-1", " 300 700 l"},                           /* no flags at all */
      {"Refer: 0 65 N 1 0 0 1 50 0 2", "Refer: 0 65 N 1 0 0 1 50 0 2 extra words"},
      {"EndChars\n", "EndChars\nAfter the glyphs\n"},
      {"EndSplineFont\n", "EndSplineFont\nAfter the end\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t len;
    char *text = s_subst(cases[i].from, cases[i].to, &len);
    ens_doc_free(s_kept(text, len, cases[i].to));
    free(text);
  }
}

static void test_line_numbers_count_every_physical_line(void **state) {
  (void)state;
  /* the right N after continued lines, blocks, multi-line quotes and CRLF */
  size_t len;
  char *text = s_subst("Descent: 200", "Descent: low", &len);
  s_refused(text, len, ENS_EDECODE, 6, "before the continued line");
  free(text);
  text = s_subst("LayerCount: 2\nLayer: 0", "LayerCount: 2\nAscent: 1\nUnderlineWidth: thin\nLayer: 0", &len);
  s_refused(text, len, ENS_EDECODE, 12, "after the continued line");
  free(text);
  text = s_subst("AnchorPoint: \"top\" 300", "AnchorPoint: \"top\" x300", &len);
  s_refused(text, len, ENS_EDECODE, 25, "after the TtInstrs block");
  free(text);
  text = s_subst("Width: 400", "Width: four hundred", &len);
  s_refused(text, len, ENS_EDECODE, s_line_of(s_font, "Width: 400"), "after multi-line PickledData");
  free(text);

  /* CRLF: the same lines */
  char *crlf = malloc(2 * S_FONT_LEN + 1);
  size_t n = 0;
  for (size_t i = 0; i < S_FONT_LEN; i++) {
    if (s_font[i] == '\n') crlf[n++] = '\r';
    crlf[n++] = s_font[i];
  }
  crlf[n] = '\0';
  ens_doc_free(s_kept(crlf, n, "CRLF fixture"));
  text = s_subst_in(crlf, "Width: 500", "Width: 5OO", &len);
  s_refused(text, len, ENS_EDECODE, s_line_of(s_font, "Width: 500"), "CRLF");
  free(text);
  free(crlf);
}

/* --- huge and non-numeric numbers ----------------------------------------------------------- */

static void test_huge_and_non_numbers(void **state) {
  (void)state;
  /* every odd number at every kind of numbered place: refused at its line,
   * or read and written back unchanged */
  static const char *const numbers[] = {
      "1e400", "-1e400", "1e-400", "3.5e38", "-3.5e38", "3.4e38", "99999999999999999999", "-99999999999999999999",
      "2147483647", "2147483648", "-2147483649", "9223372036854775807", "9223372036854775808", "nan", "NaN",
      "inf", "-inf", "Infinity", "-", "+", ".", "-.", "+-1", "0x10", "0X1F", "1e", "1e+", "1.5.5", "1,5", "١٢",
      "0000000000000000000000000000000000000000000000000000000000000000001", "1e99999999999", "-0", "+0", ".5",
      "5.", "1E5",
  };
  static const struct {
    const char *from, *tmpl; /* tmpl: the line with %s for the number */
  } sites[] = {
      {" 300 700 l 1,1,-1", " %s 700 l 1,1,-1"},
      {" 400 350 500 200.25 590 0 c 0x80", " 400 350 500 %s 590 0 c 0x80"},
      {" 300 700 l 1,1,-1", " 300 700 l %s"},
      {"Width: 600", "Width: %s"},
      {"Encoding: 66 66 1", "Encoding: %s 66 1"},
      {"Encoding: 66 66 1", "Encoding: 66 66 %s"},
      {"Refer: 0 65 N 1 0 0 1 50 0 2", "Refer: %s 65 N 1 0 0 1 50 0 2"},
      {"Refer: 0 65 N 1 0 0 1 50 0 2", "Refer: 0 65 N 1 0 0 1 %s 0 2"},
      {"AnchorPoint: \"top\" 300 700", "AnchorPoint: \"top\" %s 700"},
      {"Kerns2: 1 -40", "Kerns2: 1 %s"},
      {"Ascent: 800", "Ascent: %s"},
      {"ItalicAngle: -12.5", "ItalicAngle: %s"},
      {"Encoding: UnicodeBmp\n", "Encoding: UnicodeBmp\nCreationTime: %s\n"},
  };
  int refused = 0, kept = 0;
  for (size_t s = 0; s < sizeof sites / sizeof sites[0]; s++) {
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
      char line[256], what[300];
      snprintf(line, sizeof line, sites[s].tmpl, numbers[i]);
      snprintf(what, sizeof what, "'%s'", line);
      size_t len;
      char *text = s_subst(sites[s].from, line, &len);
      const char *bad = strstr(line, "CreationTime");
      int at = bad ? s_line_of(s_font, "Encoding: UnicodeBmp") + 1 : s_line_of(s_font, sites[s].from);
      ens_doc *doc = NULL;
      int rc = ens_sfd_read(text, len, &doc);
      ens_doc_free(doc);
      if (rc) refused++;
      else kept++;
      s_refused_or_kept(text, len, at, what);
      free(text);
    }
  }
  /* both happen: the point is that nothing else does */
  assert_true(refused > 0 && kept > 0);

  /* and the ones that are no number of a font are refused, wherever a
   * number must be (a point line starts with a digit or a sign) */
  static const char *const never[] = {"1e400", "-1e400", "3.5e38", "-", "99999999999999999999x", "1e", "0x10"};
  for (size_t i = 0; i < sizeof never / sizeof never[0]; i++) {
    char line[128];
    size_t len;
    snprintf(line, sizeof line, " %s 700 l 1,1,-1", never[i]);
    char *text = s_subst(" 300 700 l 1,1,-1", line, &len);
    s_refused(text, len, ENS_EDECODE, s_line_of(text, line), line);
    free(text);
    snprintf(line, sizeof line, " 300 %s l 1,1,-1", never[i]);
    text = s_subst(" 300 700 l 1,1,-1", line, &len);
    s_refused(text, len, ENS_EDECODE, s_line_of(text, line), line);
    free(text);
  }
  static const char *const never_int[] = {"1e400", "nan", "inf", "-", "99999999999999999999", "0x10", "1e5"};
  for (size_t i = 0; i < sizeof never_int / sizeof never_int[0]; i++) {
    char line[128];
    size_t len;
    snprintf(line, sizeof line, "Width: %s", never_int[i]);
    char *text = s_subst("Width: 600", line, &len);
    s_refused(text, len, ENS_EDECODE, s_line_of(text, line), line);
    free(text);
  }
  /* integers past a C int where SFD has C ints */
  static const char *const wide[] = {"2147483648", "-2147483649", "99999999999999999999", "9223372036854775808"};
  for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
    char line[128];
    size_t len;
    snprintf(line, sizeof line, "Width: %s", wide[i]);
    char *text = s_subst("Width: 600", line, &len);
    s_refused(text, len, ENS_EDECODE, s_line_of(text, line), line);
    free(text);
  }
}

static void test_numbers_longer_than_the_limit(void **state) {
  (void)state;
  /* a number of thousands of digits is refused, not parsed */
  char digits[5000];
  memset(digits, '1', sizeof digits - 1);
  digits[sizeof digits - 1] = '\0';
  char *line = malloc(sizeof digits + 64);
  snprintf(line, sizeof digits + 64, " %s 700 l 1", digits);
  size_t len;
  char *text = s_subst(" 300 700 l 1,1,-1", line, &len);
  s_refused(text, len, ENS_EDECODE, s_line_of(s_font, " 300 700 l"), "a 4999-digit coordinate");
  free(text);
  snprintf(line, sizeof digits + 64, "Width: %s", digits);
  text = s_subst("Width: 600", line, &len);
  s_refused(text, len, ENS_EDECODE, s_line_of(s_font, "Width: 600"), "a 4999-digit width");
  free(text);
  free(line);
}

/* --- bad UTF-7 ------------------------------------------------------------------------------ */

static void test_bad_utf7_in_names_is_refused(void **state) {
  (void)state;
  static const char *const names[] = {
      "\"+2D3\"",      /* a high surrogate, cut */
      "\"+2D3-\"",     /* a high surrogate alone */
      "\"+3gE-\"",     /* a low surrogate alone */
      "\"+2D3YAA-\"",  /* a high surrogate, then no low one */
      "\"caf+AOk-",    /* no closing quote */
      "\"",            /* just a quote */
      "\"A\" B",       /* text after the closing quote */
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char line[64];
    snprintf(line, sizeof line, "StartChar: %s", names[i]);
    size_t len;
    char *text = s_subst("StartChar: B", line, &len);
    s_refused(text, len, ENS_EDECODE, s_line_of(s_font, "StartChar: B"), line);
    free(text);
  }
  /* anchor classes and kerning subtables are names too */
  size_t len;
  char *text = s_subst("AnchorPoint: \"top\"", "AnchorPoint: \"t+2D3-op\"", &len);
  s_refused(text, len, ENS_EDECODE, s_line_of(s_font, "AnchorPoint:"), "bad UTF-7 anchor class");
  free(text);
  text = s_subst("-20 \"kern1\"", "-20 \"kern+3gE-1\"", &len);
  s_refused(text, len, ENS_EDECODE, s_line_of(s_font, "Kerns2:"), "bad UTF-7 kerning subtable");
  free(text);
}

static void test_good_but_odd_utf7_names_read(void **state) {
  (void)state;
  /* valid UTF-7 of every shape reads, decodes, and writes back unchanged */
  static const struct {
    const char *name, *utf8;
  } cases[] = {
      {"\"+2D3eAQ-\"", "\xf0\x9f\x98\x81"}, /* a surrogate pair */
      {"\"caf+AOk\"", "caf\xc3\xa9"},        /* base64 ended by the quote */
      {"\"a+-b\"", "a+b"},                   /* an escaped plus */
      {"\"+AOkA6QDp-\"", "\xc3\xa9\xc3\xa9\xc3\xa9"},
      {"\"\xe9\"", "\xc3\xa9"}, /* a stray Latin-1 byte, as FontForge reads it */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char line[64];
    snprintf(line, sizeof line, "StartChar: %s", cases[i].name);
    size_t len;
    char *text = s_subst("StartChar: B", line, &len);
    ens_doc *doc = s_kept(text, len, line);
    ens_value v;
    const ens_obj *g = s_child(ens_doc_root(doc), "glyph", 1);
    assert_int_equal(ens_obj_get(g, "name", &v), 0);
    assert_int_equal(v.u.s.len, strlen(cases[i].utf8));
    assert_memory_equal(v.u.s.ptr, cases[i].utf8, v.u.s.len);
    ens_doc_free(doc);
    free(text);
  }
}

static void test_bad_utf7_in_comments_stays_text(void **state) {
  (void)state;
  /* a comment that is not UTF-7 is kept as text: no comment property, the
   * line written back as it was */
  static const char *const comments[] = {"\"+2D3\"", "\"+3gE-\"", "\"unterminated", "no quotes at all",
                                         "\"two\" \"strings\"", "\"+2D3-\"\"\""};
  for (size_t i = 0; i < sizeof comments / sizeof comments[0]; i++) {
    char line[64];
    snprintf(line, sizeof line, "Comment: %s", comments[i]);
    size_t len;
    char *text = s_subst("Comment: \"caf+AOk-\"", line, &len);
    ens_doc *doc = s_kept(text, len, line);
    ens_value v;
    assert_int_equal(ens_obj_get(s_child(ens_doc_root(doc), "glyph", 0), "comment", &v), ENS_ENOTFOUND);
    ens_doc_free(doc);
    free(text);
  }
  /* header strings are kept as they are, UTF-7 or not */
  size_t len;
  char *text = s_subst("UComments: \"+AOk-t+AOk-\"", "UComments: \"+2D3 broken", &len);
  ens_doc_free(s_kept(text, len, "UComments"));
  free(text);
}

/* --- references to missing glyphs ------------------------------------------------------------- */

static void test_references_to_missing_glyphs_stay_text(void **state) {
  (void)state;
  static const char *const refs[] = {
      "Refer: 9 65 N 1 0 0 1 50 0 2",          /* no glyph 9 */
      "Refer: -1 65 N 1 0 0 1 50 0 2",         /* a negative number */
      "Refer: 2147483647 65 N 1 0 0 1 50 0 2", /* the largest */
      "Ref: 999 N 1 0 0 1 50 0",               /* by encoding: no slot 999 */
  };
  for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
    size_t len;
    char *text = s_subst("Refer: 0 65 N 1 0 0 1 50 0 2", refs[i], &len);
    ens_doc *doc = s_kept(text, len, refs[i]);
    const ens_obj *fore = s_child(s_child(ens_doc_root(doc), "glyph", 1), "layer", 1);
    assert_null(s_child(fore, "ref", 0)); /* FontForge drops it; the text stays */
    assert_non_null(s_child(fore, "raw", 0));
    assert_int_equal(s_count(ens_doc_root(doc), "ref"), 1); /* C's reference to B still resolves */

    /* an edit elsewhere in the glyph leaves the line alone */
    ens_txn *t = ens_txn_new("width", NULL);
    ens_txn_set(t, ens_obj_id(s_child(ens_doc_root(doc), "glyph", 1)), "width", ens_int(510));
    assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
    ens_txn_free(t);
    unsigned char *out;
    size_t n;
    assert_int_equal(ens_sfd_write(doc, &out, &n), 0);
    assert_non_null(memmem(out, n, refs[i], strlen(refs[i])));
    assert_non_null(memmem(out, n, "Width: 510\n", 11));
    ens_free(out);
    ens_doc_free(doc);
    free(text);
  }

  /* kerning with a missing glyph: the whole Kerns2: line stays text */
  size_t len;
  char *text = s_subst("Kerns2: 1 -40", "Kerns2: 77 -40", &len);
  ens_doc *doc = s_kept(text, len, "kerning with glyph 77");
  assert_int_equal(s_count(ens_doc_root(doc), "kern"), 0);
  ens_doc_free(doc);
  free(text);

  /* a glyph that refers to itself, and two that refer to each other:
   * read, kept, and nothing follows the cycle */
  text = s_subst("Refer: 1 66 N 1 0 0 1 0 0 2", "Refer: 2 67 N 1 0 0 1 0 0 2", &len);
  ens_doc_free(s_kept(text, len, "a glyph referring to itself"));
  free(text);
  text = s_subst("Refer: 0 65 N", "Refer: 2 67 N", &len); /* B to C, and C to B */
  ens_doc_free(s_kept(text, len, "glyphs referring to each other"));
  free(text);
  /* two glyphs with the same number: the first keeps it */
  text = s_subst("Encoding: 67 67 2", "Encoding: 67 67 1", &len);
  ens_doc_free(s_kept(text, len, "two glyphs numbered 1"));
  free(text);
}

/* --- a 2 GB line ------------------------------------------------------------------------------ */

/* A sparse file: `head`, a hole up to `hole_end` (reads as NUL bytes: one
 * long line), then `tail`. Returns its path (caller unlinks and frees). */
static char *s_sparse_file(const char *head, off_t hole_end, const char *tail) {
  const char *dir = getenv("TMPDIR");
  char *path = malloc(4096);
  snprintf(path, 4096, "%s/ens-sfd-bad-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, head, strlen(head)), (ssize_t)strlen(head));
  assert_int_equal(ftruncate(fd, hole_end), 0);
  assert_int_equal(pwrite(fd, tail, strlen(tail), hole_end), (ssize_t)strlen(tail));
  close(fd);
  return path;
}

static void test_two_gb_line_is_refused_quickly(void **state) {
  (void)state;
  /* a 2 GB line in a file (sparse: no disk, no memory): refused before it
   * is read, at once, without the process growing */
  off_t two_gb = (off_t)2 << 30;
  char *path = s_sparse_file("SplineFontDB: 3.2\nComments: ", two_gb, "\nEndSplineFont\n");
  long rss0 = s_maxrss_kb();
  double t0 = s_now();
  ens_doc *doc = (ens_doc *)(uintptr_t)1;
  int rc = ens_sfd_read_path(path, &doc);
  double took = s_now() - t0;
  long grew_kb = s_maxrss_kb() - rss0;
  fprintf(stderr, "2 GB line from a file: %s, '%s', %.3f s, peak RSS +%ld KB\n", ens_error_name(rc),
          ens_error_last(), took, grew_kb);
  assert_int_equal(rc, ENS_ELIMIT);
  assert_null(doc);
  assert_non_null(strstr(ens_error_last(), "limit")); /* a clear error: which file, which limit */
  assert_non_null(strstr(ens_error_last(), path));
  assert_true(took < 1.0);
  assert_true(grew_kb < 16 * 1024);

  /* the same bytes mapped into memory: ens_sfd_read refuses them unread
   * (not one page of the mapping is touched) */
  int fd = open(path, O_RDONLY);
  assert_true(fd >= 0);
  size_t size = (size_t)two_gb + 15;
  void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  assert_true(map != MAP_FAILED);
  rss0 = s_maxrss_kb();
  t0 = s_now();
  doc = (ens_doc *)(uintptr_t)1;
  rc = ens_sfd_read(map, size, &doc);
  took = s_now() - t0;
  grew_kb = s_maxrss_kb() - rss0;
  fprintf(stderr, "2 GB line in memory: %s, '%s', %.3f s, peak RSS +%ld KB\n", ens_error_name(rc), ens_error_last(),
          took, grew_kb);
  assert_int_equal(rc, ENS_ELIMIT);
  assert_null(doc);
  assert_true(took < 1.0);
  assert_true(grew_kb < 16 * 1024);
  munmap(map, size);
  close(fd);
  unlink(path);
  free(path);
}

static void test_line_over_the_line_limit_names_its_line(void **state) {
  (void)state;
  /* a file within the size limit whose second line is longer than
   * ENS_SFD_MAX_LINE: ENS_EDECODE at line 2, memory about the file's size */
  off_t end = (off_t)(ENS_SFD_MAX_LINE + (1u << 20));
  char *path = s_sparse_file("SplineFontDB: 3.2\nComments: ", end, "\nEndSplineFont\n");
  long rss0 = s_maxrss_kb();
  double t0 = s_now();
  ens_doc *doc = (ens_doc *)(uintptr_t)1;
  int rc = ens_sfd_read_path(path, &doc);
  double took = s_now() - t0;
  long grew_kb = s_maxrss_kb() - rss0;
  fprintf(stderr, "17 MB line from a file: %s, '%s', %.3f s, peak RSS +%ld KB\n", ens_error_name(rc),
          ens_error_last(), took, grew_kb);
  assert_int_equal(rc, ENS_EDECODE);
  assert_null(doc);
  assert_true(s_names_line(2));
  assert_non_null(strstr(ens_error_last(), "longer than"));
  assert_true(took < 5.0);
  assert_true(grew_kb < (long)(end / 1024) + 32 * 1024); /* the file once, and a little */

  /* mapped: the same answer, and nothing allocated for the line */
  int fd = open(path, O_RDONLY);
  size_t size = (size_t)end + 15;
  void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  assert_true(map != MAP_FAILED);
  doc = (ens_doc *)(uintptr_t)1;
  assert_int_equal(ens_sfd_read(map, size, &doc), ENS_EDECODE);
  assert_true(s_names_line(2));
  assert_null(doc);
  munmap(map, size);
  close(fd);
  unlink(path);
  free(path);

  /* at the limit exactly, the line is read (and kept) */
  size_t pre = 28, body = ENS_SFD_MAX_LINE - 10;
  char *text = malloc(pre + body + 32);
  memcpy(text, "SplineFontDB: 3.2\nComments: ", pre);
  memset(text + pre, 'a', body);
  memcpy(text + pre + body, "\nEndSplineFont\n", 15);
  ens_doc_free(s_kept(text, pre + body + 15, "a line of 16 MiB"));
  free(text);
}

/* --- not SFD, binary junk, empty ---------------------------------------------------------------- */

static void test_text_that_is_not_sfd(void **state) {
  (void)state;
  static const char *const texts[] = {
      "Hello, world\n",
      "{\"SplineFontDB\": 3.2}\n",
      "<?xml version=\"1.0\"?>\n<glyph name=\"A\" format=\"2\"/>\n",
      "splinefontdb: 3.2\nEndSplineFont\n",
      " SplineFontDB: 3.2\nEndSplineFont\n",
      "\xef\xbb\xbfSplineFontDB: 3.2\nEndSplineFont\n", /* a byte-order mark first */
      "SplineFontDB\nEndSplineFont\n",
      "StartChar: A\nEncoding: 65 65 0\nEndChar\n", /* a .glyph file of an SFDir */
      "\n\n\nSplineFontDB: 3.2\nEndSplineFont\n",
      "%!PS-AdobeFont-1.0: Bad 001.000\n",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    s_refused(texts[i], strlen(texts[i]), ENS_EDECODE, 1, texts[i]);
    assert_non_null(strstr(ens_error_last(), "SplineFontDB"));
  }
  /* SFD structure gone wrong */
  static const struct {
    const char *text;
    int line;
  } cases[] = {
      {"SplineFontDB: 3.2\nStartChar: A\nEndChar\nEndSplineFont\n", 2},      /* a glyph outside BeginChars */
      {"SplineFontDB: 3.2\nBeginChars: 1 1\nEndChar\nEndSplineFont\n", 4}, /* no StartChar: ends at ... */
      {"SplineFontDB: 3.2\nBeginChars: 1 1\nStartChar: A\nStartChar: B\nEndChar\nEndChars\nEndSplineFont\n", 4},
      {"SplineFontDB: 3.2\nBeginChars: 1 1\nStartChar: A\nSplineSet\n0 0 m 1\nEndChar\nEndChars\nEndSplineFont\n",
       6},
      {"SplineFontDB:", 2},
      {"SplineFontDB: 3.2\n", 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ens_doc *doc = NULL;
    int rc = ens_sfd_read(cases[i].text, strlen(cases[i].text), &doc);
    if (rc == 0) { /* a stray EndChar between glyphs is only text */
      ens_doc_free(doc);
      ens_doc_free(s_kept(cases[i].text, strlen(cases[i].text), cases[i].text));
      continue;
    }
    s_refused(cases[i].text, strlen(cases[i].text), ENS_EDECODE, cases[i].line, cases[i].text);
  }
}

static void test_binary_junk(void **state) {
  (void)state;
  tu_rng r = {tu_seed("test_binary_junk", 0x6a756e6b)};
  char *buf = malloc(S_FONT_LEN + 4200);
  for (int round = 0; round < 600; round++) {
    size_t n = tu_below(&r, 4000), pre = 0;
    /* a third of the rounds are junk after a real first line, a third junk
     * spliced into the fixture, a third junk alone */
    int kind = round % 3;
    if (kind == 0) {
      memcpy(buf, "SplineFontDB: 3.2\n", 18);
      pre = 18;
    } else if (kind == 1) {
      pre = tu_below(&r, (uint32_t)S_FONT_LEN);
      memcpy(buf, s_font, pre);
    }
    for (size_t i = 0; i < n; i++) {
      uint64_t x = tu_next(&r);
      /* mostly printable, some newlines, some anything (NUL included, but
       * never right after a word: see docs/fuzzing.md, known bugs) */
      size_t j = pre + i;
      buf[j] = (char)(x % 7 == 0 ? '\n' : x % 5 == 0 ? (char)(x >> 8) : ' ' + (char)((x >> 16) % 95));
      if (buf[j] == '\0' && j && buf[j - 1] != ' ' && buf[j - 1] != '\n') buf[j] = ' ';
    }
    if (kind == 1) { /* and the rest of the font after the junk */
      size_t rest = S_FONT_LEN - pre < 100 ? S_FONT_LEN - pre : 100;
      memcpy(buf + pre + n, s_font + S_FONT_LEN - rest, rest);
      n += rest;
    }
    size_t len = pre + n;
    ens_doc *doc = NULL;
    int rc = ens_sfd_read(buf, len, &doc);
    if (rc == 0) {
      ens_doc_free(doc);
      ens_doc_free(s_kept(buf, len, "junk"));
      continue;
    }
    assert_int_equal(rc, ENS_EDECODE);
    assert_null(doc);
    const char *at = strstr(ens_error_last(), "line ");
    assert_non_null(at);
    unsigned long line = strtoul(at + 5, NULL, 10);
    assert_true(line >= 1 && line <= s_lines(buf, len) + 1);
    if (kind == 2 && (len < 13 || memcmp(buf, "SplineFontDB:", 13) != 0)) assert_int_equal(line, 1);
  }
  free(buf);
}

/* --- found by fuzzing: each once broke a round trip or an edit ---------------------------- */

/* Reads text, applies one transaction from make (or none), writes, and
 * checks the result reads back; returns the written text. */
typedef void (*s_edit_fn)(ens_doc *doc, ens_txn *t);

static char *s_edit_and_reread(const char *text, s_edit_fn make, size_t *len) {
  ens_doc *doc = NULL, *back = NULL;
  assert_int_equal(ens_sfd_read(text, strlen(text), &doc), 0);
  ens_txn *t = ens_txn_new("edit", NULL);
  make(doc, t);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  unsigned char *out = NULL;
  assert_int_equal(ens_sfd_write(doc, &out, len), 0);
  int rc = ens_sfd_read(out, *len, &back);
  if (rc) fprintf(stderr, "written text does not read: %s\n%.*s", ens_error_last(), (int)*len, out);
  assert_int_equal(rc, 0);
  ens_doc_free(back);
  ens_doc_free(doc);
  return (char *)out;
}

static const ens_obj *s_nth_of_kind(const ens_obj *o, const char *kind, size_t *nth) {
  if (strcmp(ens_obj_kind(o), kind) == 0 && (*nth)-- == 0) return o;
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *f = s_nth_of_kind(ens_obj_child(o, i), kind, nth);
    if (f) return f;
  }
  return NULL;
}

static ens_id s_first(ens_doc *doc, const char *kind) {
  size_t nth = 0;
  const ens_obj *o = s_nth_of_kind(ens_doc_root(doc), kind, &nth);
  assert_non_null(o);
  return ens_obj_id(o);
}

static void s_move_first_point(ens_doc *doc, ens_txn *t) {
  assert_int_equal(ens_txn_set(t, s_first(doc, ENS_SFD_POINT), "x", ens_real(50)), 0);
}

static void s_delete_first_ref(ens_doc *doc, ens_txn *t) {
  assert_int_equal(ens_txn_delete(t, s_first(doc, ENS_SFD_REF)), 0);
}

static void s_widen_first_glyph(ens_doc *doc, ens_txn *t) {
  assert_int_equal(ens_txn_set(t, s_first(doc, ENS_SFD_GLYPH), "width", ens_int(5)), 0);
}

static void test_blocks_inside_a_spline_set_survive_a_point_edit(void **state) {
  (void)state;
  static const char *texts[] = {
      "SplineFontDB: 3.2\nBeginChars: 1 1\nStartChar: e\nFore\nSplineSet\n49 3 m 1\nTtInstrs:\n1\nEndTTInstrs\n"
      " 50 3 l 1\nEndSplineSet\nEndChar\nEndChars\nEndSplineFont\n",
      "SplineFontDB: 3.2\nBeginChars: 1 1\nStartChar: e\nFore\nSplineSet\n49 3 m 1\nPickledData: \"a\n1 2\n\"\n"
      " 50 3 l 1\nEndSplineSet\nEndChar\nEndChars\nEndSplineFont\n",
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    ens_doc_free(s_kept(texts[i], strlen(texts[i]), "block in a spline set"));
    size_t n;
    char *out = s_edit_and_reread(texts[i], s_move_first_point, &n);
    /* only the moved point's line differs */
    size_t want_len;
    char *want = s_subst_in(texts[i], "49 3 m 1", "50 3 m 1", &want_len);
    assert_int_equal(n, want_len);
    assert_memory_equal(out, want, n);
    free(want);
    ens_free(out);
  }
}

static void test_stray_number_line_stays_text_when_its_reference_goes(void **state) {
  (void)state;
  const char *text = "SplineFontDB: 3.2\nBeginChars: 2 2\nStartChar: a\nEncoding: 0 0 0\nEndChar\n"
                     "StartChar: t\nEncoding: 1 1 1\nFore\nRefer: 0 0 N 1 0 0 1 455 7 2\n1\n\nEndChar\n"
                     "EndChars\nEndSplineFont\n";
  ens_doc_free(s_kept(text, strlen(text), "stray number line"));
  size_t n;
  char *out = s_edit_and_reread(text, s_delete_first_ref, &n);
  assert_non_null(strstr(out, "Fore\n1\n\nEndChar\n"));
  ens_free(out);
}

static void test_negative_gid_is_numbered_alike_on_both_sides(void **state) {
  (void)state;
  const char *text = "SplineFontDB: 3.2\nBeginChars: 2 2\nStartChar: a\nEncoding: 0 0 0\nEndChar\n"
                     "StartChar: b\nEncoding: 1 1 -7\nKerns2: 1 -5 \"k\"\nFore\nRefer: 0 0 N 1 0 0 1 0 0 2\nEndChar\n"
                     "StartChar: c\nEncoding: 2 2 2\nFore\nRefer: 1 1 N 1 0 0 1 0 0 2\nEndChar\nEndChars\nEndSplineFont\n";
  ens_doc_free(s_kept(text, strlen(text), "negative gid"));
  size_t n;
  char *out = s_edit_and_reread(text, s_widen_first_glyph, &n);
  assert_non_null(strstr(out, "Kerns2: 1 -5 \"k\"\n"));
  assert_non_null(strstr(out, "Refer: 1 1 N 1 0 0 1 0 0 2\n"));
  ens_free(out);
}

static void s_delete_first_glyph(ens_doc *doc, ens_txn *t) {
  assert_int_equal(ens_txn_delete(t, s_first(doc, ENS_SFD_GLYPH)), 0);
}

/* A dangling reference kept as text must not come to name a glyph when a
 * deletion would renumber the glyphs numbered by their order: c keeps its
 * number (its Encoding line says it), and the lines stay as they were. */
static void test_dangling_reference_stays_dangling_after_renumbering(void **state) {
  (void)state;
  const char *text = "SplineFontDB: 3.2\nBeginChars: 4 4\n"
                     "StartChar: a\nEncoding: 97 97 808\nEndChar\n"
                     "StartChar: b\nEncoding: 98 98 45\nEndChar\n"
                     "StartChar: c\nEncoding: 99 99\nEndChar\n"
                     "StartChar: d\nEncoding: 100 100 10\nKerns2: 46 -20 \"k\"\nFore\nRefer: 46 99 N 1 0 0 1 0 0 2\n"
                     "EndChar\nEndChars\nEndSplineFont\n";
  ens_doc_free(s_kept(text, strlen(text), "dangling reference"));
  size_t n;
  char *out = s_edit_and_reread(text, s_delete_first_glyph, &n);
  assert_non_null(strstr(out, "Encoding: 99 99 809\n"));
  assert_non_null(strstr(out, "Refer: 46 99 N 1 0 0 1 0 0 2\n"));
  assert_non_null(strstr(out, "Kerns2: 46 -20 \"k\"\n"));
  ens_doc *back = NULL;
  assert_int_equal(ens_sfd_read(out, n, &back), 0);
  size_t refs = 0, kerns = 0;
  const ens_obj *d = ens_obj_child(ens_doc_root(back), 2);
  refs = s_count(s_child(d, ENS_SFD_LAYER, 0), ENS_SFD_REF);
  kerns = s_count(d, ENS_SFD_KERN);
  assert_int_equal(refs, 0);
  assert_int_equal(kerns, 0);
  ens_doc_free(back);
  ens_free(out);
}

static void s_set_width(ens_doc *doc, ens_txn *t) {
  assert_int_equal(ens_txn_set(t, s_first(doc, ENS_SFD_GLYPH), "width", ens_int(500)), 0);
}

/* A glyph whose head holds no keyed line (its StartChar: indented, so not
 * read as a key) gets a new Width: line inside it, not after its EndChar. */
static void test_new_key_line_stays_inside_its_glyph(void **state) {
  (void)state;
  const char *text = "SplineFontDB: 3.2\nBeginChars: 1 1\n\n StartChar: x\n 1 2 l 1\nEndChar\nEndChars\nEndSplineFont\n";
  ens_doc_free(s_kept(text, strlen(text), "glyph without keyed lines"));
  size_t n;
  char *out = s_edit_and_reread(text, s_set_width, &n);
  assert_non_null(strstr(out, " StartChar: x\nWidth: 500\n 1 2 l 1\nEndChar\n"));
  ens_doc *back = NULL;
  assert_int_equal(ens_sfd_read(out, n, &back), 0);
  ens_value w;
  assert_int_equal(ens_obj_get(ens_obj_child(ens_doc_root(back), 0), "width", &w), 0);
  assert_int_equal(w.u.i, 500);
  ens_doc_free(back);
  ens_free(out);
}

static void test_continued_or_empty_glyph_names(void **state) {
  (void)state;
  const char *cont = "SplineFontDB:\nBeginChars:\nStartChar: \\\n\nEndChar\nEndSplineFont";
  s_refused(cont, strlen(cont), ENS_EDECODE, 3, "StartChar: ending in a backslash");
  /* glyphs that start after blanks count as glyphs everywhere */
  const char *indented = "SplineFontDB:\nBeginChars: 2\n StartChar: a\nEndChar\nx\n StartChar: b\nEndChar\nx\n"
                         " StartChar: c\nEndChar\nEndChars\nEndSplineFont\n";
  ens_doc_free(s_kept(indented, strlen(indented), "indented StartChar lines"));
  const char *empty = "SplineFontDB:\nBeginChars: 1\nStartChar: \"\"\nEndChar\nEndSplineFont\n";
  s_refused_or_kept(empty, strlen(empty), 3, "empty quoted name");
}

static void test_empty_input(void **state) {
  (void)state;
  s_refused("", 0, ENS_EDECODE, 1, "empty");
  s_refused(NULL, 0, ENS_EDECODE, 1, "NULL, 0");
  s_refused("\n", 1, ENS_EDECODE, 1, "a newline");
  s_refused("\r\n\r\n", 4, ENS_EDECODE, 1, "blank CRLF lines");
  s_refused("\0\0\0\0", 4, ENS_EDECODE, 1, "NUL bytes");

  /* an empty file on disk, an SFDir without font.props, no file at all
   * (an SFDir with no .glyph file at all is a known bug, docs/fuzzing.md) */
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/ens-sfd-empty-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  ens_doc *doc = (ens_doc *)(uintptr_t)1;
  assert_int_equal(ens_sfd_read_path(path, &doc), ENS_EDECODE);
  assert_true(s_names_line(1));
  assert_null(doc);
  unlink(path);
  snprintf(path, sizeof path, "%s/ens-sfd-emptydir-XXXXXX", dir && *dir ? dir : "/tmp");
  assert_non_null(mkdtemp(path));
  char glyph[4200];
  snprintf(glyph, sizeof glyph, "%s/A.glyph", path);
  FILE *f = fopen(glyph, "w");
  assert_non_null(f);
  fputs("StartChar: A\nEncoding: 65 65 0\nEndChar\n", f);
  fclose(f);
  doc = (ens_doc *)(uintptr_t)1;
  int rc = ens_sfd_read_path(path, &doc);
  assert_int_equal(rc, ENS_EIO);
  assert_non_null(strstr(ens_error_last(), "font.props"));
  assert_null(doc);
  unlink(glyph);
  rmdir(path);
  doc = (ens_doc *)(uintptr_t)1;
  assert_int_equal(ens_sfd_read_path(path, &doc), ENS_EIO);
  assert_null(doc);
}

/* A first line whose value does not read as a version (NUL bytes, a word)
 * gives a font no edit could keep (the format's rules want the version):
 * refused at once, naming line 1, not at the first edit. "SplineFontDB:"
 * with no value reads as an empty version and is kept. */
static void test_first_line_without_a_version(void **state) {
  (void)state;
  static const char with_nul[] = "SplineFontDB:\0\0 3.2\n";
  size_t rest = strlen(s_font) - strlen("SplineFontDB: 3.2\n"), n = sizeof with_nul - 1;
  char *text = malloc(n + rest);
  assert_non_null(text);
  memcpy(text, with_nul, n);
  memcpy(text + n, s_font + strlen("SplineFontDB: 3.2\n"), rest);
  s_refused(text, n + rest, ENS_EDECODE, 1, "NUL bytes in the version");
  free(text);
  size_t len;
  text = s_subst("SplineFontDB: 3.2\n", "SplineFontDB:x\n", &len);
  s_refused(text, len, ENS_EDECODE, 1, "a word for a version");
  free(text);
  text = s_subst("SplineFontDB: 3.2\n", "SplineFontDB:\n", &len);
  ens_doc_free(s_kept(text, len, "no version at all"));
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fixture_reads_and_round_trips),
      cmocka_unit_test(test_first_line_without_a_version),
      cmocka_unit_test(test_blocks_inside_a_spline_set_survive_a_point_edit),
      cmocka_unit_test(test_stray_number_line_stays_text_when_its_reference_goes),
      cmocka_unit_test(test_negative_gid_is_numbered_alike_on_both_sides),
      cmocka_unit_test(test_continued_or_empty_glyph_names),
      cmocka_unit_test(test_new_key_line_stays_inside_its_glyph),
      cmocka_unit_test(test_dangling_reference_stays_dangling_after_renumbering),
      cmocka_unit_test(test_every_prefix_reads_back_or_names_a_line),
      cmocka_unit_test(test_truncated_inside_a_glyph),
      cmocka_unit_test(test_truncated_inside_blocks),
      cmocka_unit_test(test_truncated_inside_quoted_strings),
      cmocka_unit_test(test_garbage_where_numbers_belong),
      cmocka_unit_test(test_garbage_lines_elsewhere_are_kept),
      cmocka_unit_test(test_line_numbers_count_every_physical_line),
      cmocka_unit_test(test_huge_and_non_numbers),
      cmocka_unit_test(test_numbers_longer_than_the_limit),
      cmocka_unit_test(test_bad_utf7_in_names_is_refused),
      cmocka_unit_test(test_good_but_odd_utf7_names_read),
      cmocka_unit_test(test_bad_utf7_in_comments_stays_text),
      cmocka_unit_test(test_references_to_missing_glyphs_stay_text),
      cmocka_unit_test(test_two_gb_line_is_refused_quickly),
      cmocka_unit_test(test_line_over_the_line_limit_names_its_line),
      cmocka_unit_test(test_text_that_is_not_sfd),
      cmocka_unit_test(test_binary_junk),
      cmocka_unit_test(test_empty_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
