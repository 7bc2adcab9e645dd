/* The SVG editing commands on a small drawing: each builds one
 * transaction whose output is exactly the input with the edited
 * elements' text changed (compared as whole files), whose inverse gives
 * back the same bytes, and which refuses bad arguments with a clear
 * error and no transaction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

static const char s_drawing[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"\n"
    "     xmlns:inkscape=\"http://www.inkscape.org/namespaces/inkscape\" width=\"100\" height=\"100\">\n"
    "  <defs>\n"
    "    <linearGradient id=\"grad\"><stop offset=\"0\" stop-color=\"red\"/></linearGradient>\n"
    "  </defs>\n"
    "  <g id=\"layer1\" inkscape:label=\"Layer 1\" transform=\"translate(5,5)\">\n"
    "    <rect id=\"r1\" x=\"1\" y=\"2\" width=\"10\" height=\"10\" style=\"fill:red;stroke:blue\" />\n"
    "    <circle id=\"c1\" cx=\"50\" cy=\"50\" r=\"5\" transform=\"rotate(5)\"/>\n"
    "    <g id=\"icon\">\n"
    "      <clipPath id=\"clip\"><rect width=\"5\" height=\"5\"/></clipPath>\n"
    "      <path id=\"p1\" d=\"M0 0 L10 10\" clip-path=\"url(#clip)\" fill=\"url( '#grad' )\"/>\n"
    "      <use xlink:href=\"#p1\" x=\"3\"/>\n"
    "    </g>\n"
    "  </g>\n"
    "  <g id=\"faded\" opacity=\"0.5\"><rect width=\"1\" height=\"1\"/></g>\n"
    "</svg>\n";

static ens_doc *s_read(const char *text) {
  ens_doc *doc = NULL;
  int rc = ens_svg_read(text, strlen(text), &doc);
  if (rc) fprintf(stderr, "read: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  return doc;
}

static char *s_write(const ens_doc *doc) {
  unsigned char *out;
  size_t n;
  int rc = ens_svg_write(doc, &out, &n);
  if (rc) fprintf(stderr, "write: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  return (char *)out;
}

/* text with each (from, to) pair replaced once, in order. */
static char *s_edit(const char *text, const char *const *pairs) {
  char *out = tu_replaced(text, pairs);
  assert_non_null(out);
  return out;
}

/* Applies txn to a drawing read from text, checks the output is text with
 * the pairs replaced, then that the inverse gives text back exactly. */
static void s_check(ens_doc *doc, const char *text, ens_txn *txn, const char *const *pairs) {
  ens_txn *inv = NULL;
  if (ens_doc_apply(doc, txn, ENS_ORIGIN_LOCAL, &inv)) fail_msg("apply: %s", ens_error_last());
  char *got = s_write(doc), *want = s_edit(text, pairs);
  if (strcmp(got, want) != 0) fail_msg("got:\n%s\nwant:\n%s", got, want);
  ens_free(got);
  free(want);
  ens_svg_write(doc, (unsigned char **)&got, NULL);
  /* the result reads back as a drawing */
  ens_doc *again = s_read(got);
  ens_doc_free(again);
  ens_free(got);
  assert_int_equal(ens_doc_apply(doc, inv, ENS_ORIGIN_UNDO, NULL), 0);
  got = s_write(doc);
  assert_string_equal(got, text);
  ens_free(got);
  ens_txn_free(inv);
  ens_txn_free(txn);
}

#define PAIRS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* An edit (building into t) that must fail with code, a message containing
 * what, and no transaction. */
#define REFUSED(call, code, what)                                                 \
  do {                                                                            \
    t = (ens_txn *)&t;                                                            \
    int rc_ = (call);                                                             \
    if (rc_ != (code)) fail_msg("%s: got %d (%s)", #call, rc_, ens_error_last()); \
    if (!strstr(ens_error_last(), what))                                          \
      fail_msg("%s: message \"%s\" lacks \"%s\"", #call, ens_error_last(), what); \
    assert_null(t);                                                               \
  } while (0)

/* The transaction an edit built (into *t). */
static ens_txn *s_ok(int rc, ens_txn **t) {
  if (rc) fail_msg("edit failed: %s", ens_error_last());
  assert_non_null(*t);
  return *t;
}

static void test_addresses(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_drawing);
  const ens_obj *r1 = ens_svg_find(doc, "#r1");
  assert_non_null(r1);
  assert_ptr_equal(ens_svg_find(doc, "/svg/g[0]/rect[0]"), r1);
  assert_ptr_equal(ens_svg_find(doc, "/svg/g/rect"), r1);
  assert_ptr_equal(ens_svg_find(doc, "#layer1/rect[0]"), r1);
  const ens_obj *sq = ens_svg_find(doc, "#faded/rect[0]");
  assert_non_null(sq);
  char buf[256];
  assert_int_equal(ens_svg_address(sq, buf, sizeof buf), 0);
  assert_string_equal(buf, "#faded/rect[0]");
  assert_int_equal(ens_svg_address(r1, buf, sizeof buf), 0);
  assert_string_equal(buf, "#r1");
  assert_int_equal(ens_svg_address(ens_svg_find(doc, "/svg"), buf, sizeof buf), 0);
  assert_string_equal(buf, "/svg[0]");
  assert_ptr_equal(ens_svg_find(doc, buf), ens_svg_find(doc, "/svg"));
  assert_null(ens_svg_find(doc, "#nope"));
  assert_string_equal(ens_error_last(), "no element has the id \"nope\"");
  assert_null(ens_svg_find(doc, "/svg/g[7]"));
  assert_non_null(strstr(ens_error_last(), "no g[7] there (2 such elements)"));
  assert_null(ens_svg_find(doc, "rect"));
  assert_null(ens_svg_find(doc, "/svg/g[x]"));
  assert_null(ens_svg_find(doc, "#"));
  ens_doc_free(doc);
}

static void test_set_and_remove_attr(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_drawing);
  ens_txn *t = NULL;
  s_check(doc, s_drawing, s_ok(ens_svg_set_attr(doc, "#r1", "x", "7", &t), &t), PAIRS("x=\"1\"", "x=\"7\""));
  s_check(doc, s_drawing, s_ok(ens_svg_set_attr(doc, "#r1", "inkscape:label", "a<\"b\"", &t), &t),
          PAIRS("style=\"fill:red;stroke:blue\" />", "style=\"fill:red;stroke:blue\" inkscape:label=\"a&lt;&quot;b&quot;\" />"));
  s_check(doc, s_drawing, s_ok(ens_svg_set_attr(doc, "#r1", "id", "r1", &t), &t), PAIRS("", ""));
  s_check(doc, s_drawing, s_ok(ens_svg_remove_attr(doc, "#r1", "y", &t), &t), PAIRS(" y=\"2\"", ""));
  assert_string_equal(ens_txn_label(t = s_ok(ens_svg_remove_attr(doc, "#c1", "r", &t), &t)), "Remove attribute");
  ens_txn_free(t);
  REFUSED(ens_svg_set_attr(doc, "#r1", "1x", "0", &t), ENS_EINVAL, "not an attribute name");
  REFUSED(ens_svg_set_attr(doc, "#r1", "a b", "0", &t), ENS_EINVAL, "not an attribute name");
  REFUSED(ens_svg_set_attr(doc, "#r1", "foo:bar", "0", &t), ENS_EINVAL, "prefix of \"foo:bar\" is not declared");
  REFUSED(ens_svg_set_attr(doc, "#r1", "xmlns:foo", "urn:x", &t), ENS_EINVAL, "namespace declarations");
  REFUSED(ens_svg_set_attr(doc, "#r1", "id", "c1", &t), ENS_EEXISTS, "already has the id \"c1\"");
  REFUSED(ens_svg_set_attr(doc, "#r1", "x", "a\001b", &t), ENS_EINVAL, "U+0001");
  REFUSED(ens_svg_set_attr(doc, "#r1", "x", "\xff", &t), ENS_EINVAL, "not valid UTF-8");
  REFUSED(ens_svg_set_attr(doc, "#zz", "x", "1", &t), ENS_ENOTFOUND, "set-attr: no element has the id \"zz\"");
  assert_null(t);
  REFUSED(ens_svg_remove_attr(doc, "#r1", "rx", &t), ENS_ENOTFOUND, "has no attribute rx");
  REFUSED(ens_svg_remove_attr(doc, "/svg", "xmlns", &t), ENS_EINVAL, "namespace declarations");
  ens_doc_free(doc);
}

static void test_set_style(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_drawing);
  ens_txn *t = NULL;
  s_check(doc, s_drawing, s_ok(ens_svg_set_style(doc, "#r1", "fill", "#0f0", &t), &t),
          PAIRS("fill:red;stroke:blue", "fill:#0f0;stroke:blue"));
  s_check(doc, s_drawing, s_ok(ens_svg_set_style(doc, "#r1", "opacity", "0.5", &t), &t),
          PAIRS("fill:red;stroke:blue", "fill:red;stroke:blue;opacity:0.5"));
  s_check(doc, s_drawing, s_ok(ens_svg_set_style(doc, "#r1", "fill", NULL, &t), &t),
          PAIRS("fill:red;stroke:blue", "stroke:blue"));
  s_check(doc, s_drawing, s_ok(ens_svg_set_style(doc, "#r1", "stroke", NULL, &t), &t),
          PAIRS("fill:red;stroke:blue", "fill:red"));
  s_check(doc, s_drawing, s_ok(ens_svg_set_style(doc, "#c1", "fill", "none", &t), &t),
          PAIRS("transform=\"rotate(5)\"/>", "transform=\"rotate(5)\" style=\"fill:none\"/>"));
  REFUSED(ens_svg_set_style(doc, "#r1", "opacity", NULL, &t), ENS_ENOTFOUND, "no opacity declaration");
  REFUSED(ens_svg_set_style(doc, "#r1", "fill", "red;x:y", &t), ENS_EINVAL, "not a declaration value");
  REFUSED(ens_svg_set_style(doc, "#r1", "fi ll", "red", &t), ENS_EINVAL, "not a CSS property name");
  ens_doc_free(doc);

  /* spacing, a trailing ';', strings and comments with ';' inside, and the last of two */
  static const char spaced[] =
      "<svg xmlns=\"http://www.w3.org/2000/svg\"><text id=\"t\" style=\"font-family: 'a;b'; /* x;y */ fill: red; "
      "fill: blue !important;\">x</text></svg>";
  doc = s_read(spaced);
  s_check(doc, spaced, s_ok(ens_svg_set_style(doc, "#t", "fill", "green", &t), &t),
          PAIRS(" /* x;y */ fill: red; fill: blue !important;", " fill: green;"));
  s_check(doc, spaced, s_ok(ens_svg_set_style(doc, "#t", "stroke", "none", &t), &t),
          PAIRS("!important;\"", "!important; stroke: none;\""));
  s_check(doc, spaced, s_ok(ens_svg_set_style(doc, "#t", "font-family", NULL, &t), &t),
          PAIRS("font-family: 'a;b'; ", ""));
  ens_doc_free(doc);
  static const char one[] = "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect id=\"r\" style=\"fill:red\"/></svg>";
  doc = s_read(one);
  s_check(doc, one, s_ok(ens_svg_set_style(doc, "#r", "fill", NULL, &t), &t), PAIRS(" style=\"fill:red\"", ""));
  ens_doc_free(doc);
}

static void test_transforms(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_drawing);
  ens_txn *t = NULL;
  s_check(doc, s_drawing, s_ok(ens_svg_translate(doc, "#c1", 3, -4.5, &t), &t),
          PAIRS("transform=\"rotate(5)\"", "transform=\"translate(3,-4.5) rotate(5)\""));
  s_check(doc, s_drawing, s_ok(ens_svg_translate(doc, "#r1", 0.1, 0, &t), &t),
          PAIRS("blue\" />", "blue\" transform=\"translate(0.1,0)\" />"));
  s_check(doc, s_drawing, s_ok(ens_svg_rotate(doc, "#c1", 90, 10, 20, &t), &t),
          PAIRS("\"rotate(5)\"", "\"rotate(90,10,20) rotate(5)\""));
  s_check(doc, s_drawing, s_ok(ens_svg_rotate(doc, "#c1", -45, 0, 0, &t), &t),
          PAIRS("\"rotate(5)\"", "\"rotate(-45) rotate(5)\""));
  s_check(doc, s_drawing, s_ok(ens_svg_scale(doc, "#layer1", 2, 2, 0, 0, &t), &t),
          PAIRS("\"translate(5,5)\"", "\"scale(2) translate(5,5)\""));
  s_check(doc, s_drawing, s_ok(ens_svg_scale(doc, "#layer1", 2, 3, 1, -1, &t), &t),
          PAIRS("\"translate(5,5)\"", "\"translate(1,-1) scale(2,3) translate(-1,1) translate(5,5)\""));
  /* nothing moves: an empty transaction */
  t = s_ok(ens_svg_translate(doc, "#c1", 0, 0, &t), &t);
  assert_int_equal(ens_txn_op_count(t), 0);
  ens_txn_free(t);
  REFUSED(ens_svg_translate(doc, "/svg", 1, 1, &t), ENS_EINVAL, "root <svg>");
  REFUSED(ens_svg_scale(doc, "#r1", 0, 1, 0, 0, &t), ENS_EINVAL, "factor of 0");
  REFUSED(ens_svg_rotate(doc, "#r1", 1.0 / 0.0, 0, 0, &t), ENS_EINVAL, "finite");
  ens_doc_free(doc);
}

static void test_raise_lower(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_drawing);
  ens_txn *t = NULL;
  const char *rect = "<rect id=\"r1\" x=\"1\" y=\"2\" width=\"10\" height=\"10\" style=\"fill:red;stroke:blue\" />";
  const char *circle = "<circle id=\"c1\" cx=\"50\" cy=\"50\" r=\"5\" transform=\"rotate(5)\"/>";
  char a[300], b[300];
  snprintf(a, sizeof a, "%s\n    %s", rect, circle);
  snprintf(b, sizeof b, "%s\n    %s", circle, rect);
  s_check(doc, s_drawing, s_ok(ens_svg_raise(doc, "#r1", &t), &t), PAIRS(a, b));
  s_check(doc, s_drawing, s_ok(ens_svg_lower(doc, "#c1", &t), &t), PAIRS(a, b));
  REFUSED(ens_svg_raise(doc, "#icon", &t), ENS_EINVAL, "already the last (topmost)");
  REFUSED(ens_svg_lower(doc, "#r1", &t), ENS_EINVAL, "already the first (bottommost)");
  REFUSED(ens_svg_raise(doc, "/svg", &t), ENS_EINVAL, "already the last");
  ens_doc_free(doc);
}

static void test_group_ungroup(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_drawing);
  ens_txn *t = NULL;
  const char *both[] = {"#c1", "#r1"};
  s_check(doc, s_drawing, s_ok(ens_svg_group(doc, both, 2, NULL, &t), &t),
          PAIRS("    <rect id=\"r1\"", "    <g id=\"g1\"><rect id=\"r1\"", "rotate(5)\"/>", "rotate(5)\"/></g>"));
  const char *one[] = {"#faded"};
  s_check(doc, s_drawing, s_ok(ens_svg_group(doc, one, 1, "wrap", &t), &t),
          PAIRS("<g id=\"faded\"", "<g id=\"wrap\"><g id=\"faded\"", "</g>\n</svg>", "</g></g>\n</svg>"));
  const char *apart[] = {"#r1", "#faded"};
  REFUSED(ens_svg_group(doc, apart, 2, NULL, &t), ENS_EINVAL, "not siblings");
  const char *twice[] = {"#r1", "#r1"};
  REFUSED(ens_svg_group(doc, twice, 2, NULL, &t), ENS_EINVAL, "named twice");
  REFUSED(ens_svg_group(doc, both, 2, "icon", &t), ENS_EEXISTS, "already has the id \"icon\"");

  /* the group's transform goes in front of each child's own */
  s_check(doc, s_drawing, s_ok(ens_svg_ungroup(doc, "#layer1", &t), &t),
          PAIRS("  <g id=\"layer1\" inkscape:label=\"Layer 1\" transform=\"translate(5,5)\">\n", "",
                "blue\" />", "blue\" transform=\"translate(5,5)\" />", "\"rotate(5)\"", "\"translate(5,5) rotate(5)\"",
                "<g id=\"icon\">", "<g id=\"icon\" transform=\"translate(5,5)\">", "    </g>\n  </g>\n", "    </g>\n"));
  /* definitions and what is not drawn keep their own space */
  s_check(doc, s_drawing, s_ok(ens_svg_ungroup(doc, "#icon", &t), &t),
          PAIRS("    <g id=\"icon\">\n", "", "      <use xlink:href=\"#p1\" x=\"3\"/>\n    </g>\n",
                "      <use xlink:href=\"#p1\" x=\"3\"/>\n"));
  REFUSED(ens_svg_ungroup(doc, "#faded", &t), ENS_EINVAL, "has opacity=\"0.5\", which applies to the group");
  REFUSED(ens_svg_ungroup(doc, "#r1", &t), ENS_EINVAL, "is a <rect>, not a group");
  ens_doc_free(doc);

  static const char refd[] =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">"
      "<g id=\"a\"><rect/></g><use xlink:href=\"#a\"/><g id=\"b\" class=\"x\"/></svg>";
  doc = s_read(refd);
  REFUSED(ens_svg_ungroup(doc, "#a", &t), ENS_EINVAL, "#a is referenced by /svg[0]/use[0]");
  REFUSED(ens_svg_ungroup(doc, "#b", &t), ENS_EINVAL, "has class=\"x\"");
  ens_doc_free(doc);

  /* a <switch> draws its first child that applies: grouping its children
     (or spilling a group's into it) would change which that is */
  static const char sw[] = "<svg xmlns=\"http://www.w3.org/2000/svg\"><switch><rect id=\"a\" fill=\"green\"/>"
                           "<rect id=\"b\" fill=\"red\"/><g id=\"c\"><rect/></g></switch></svg>";
  doc = s_read(sw);
  const char *ab[] = {"#a", "#b"};
  REFUSED(ens_svg_group(doc, ab, 2, NULL, &t), ENS_EINVAL, "#a is a child of a <switch>");
  REFUSED(ens_svg_ungroup(doc, "#c", &t), ENS_EINVAL, "#c is a child of a <switch>");
  ens_doc_free(doc);
}

static void test_duplicate(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_drawing);
  ens_txn *t = NULL;
  const char *icon_end = "      <use xlink:href=\"#p1\" x=\"3\"/>\n    </g>\n";
  char copy[1024];
  snprintf(copy, sizeof copy,
           "%s    <g id=\"icon-1\">\n"
           "      <clipPath id=\"clip-1\"><rect width=\"5\" height=\"5\"/></clipPath>\n"
           "      <path id=\"p1-1\" d=\"M0 0 L10 10\" clip-path=\"url(#clip-1)\" fill=\"url( '#grad' )\"/>\n"
           "      <use xlink:href=\"#p1-1\" x=\"3\"/>\n"
           "    </g>\n",
           icon_end);
  s_check(doc, s_drawing, s_ok(ens_svg_duplicate(doc, "#icon", &t), &t), PAIRS(icon_end, copy));
  /* a second copy takes the next free ids */
  t = s_ok(ens_svg_duplicate(doc, "#icon", &t), &t);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  t = s_ok(ens_svg_duplicate(doc, "#icon", &t), &t);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  assert_non_null(ens_svg_find(doc, "#icon-2"));
  assert_non_null(ens_svg_find(doc, "#p1-2"));
  REFUSED(ens_svg_duplicate(doc, "/svg", &t), ENS_EINVAL, "root element");
  ens_doc_free(doc);
}

static void test_delete(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_drawing);
  ens_txn *t = NULL;
  s_check(doc, s_drawing, s_ok(ens_svg_delete(doc, "#c1", &t), &t),
          PAIRS("    <circle id=\"c1\" cx=\"50\" cy=\"50\" r=\"5\" transform=\"rotate(5)\"/>\n", ""));
  s_check(doc, s_drawing, s_ok(ens_svg_delete(doc, "#faded/rect", &t), &t),
          PAIRS("<g id=\"faded\" opacity=\"0.5\"><rect width=\"1\" height=\"1\"/></g>",
                "<g id=\"faded\" opacity=\"0.5\" />"));
  REFUSED(ens_svg_delete(doc, "/svg", &t), ENS_EINVAL, "root element");
  ens_doc_free(doc);
}

static void test_insert(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_drawing);
  ens_txn *t = NULL;
  const char *frag = "<ellipse id=\"e1\" rx='1' ry=\"2\"/><!-- new -->";
  s_check(doc, s_drawing, s_ok(ens_svg_insert(doc, "#layer1", 0, frag, strlen(frag), &t), &t),
          PAIRS("    <rect id=\"r1\"", "    <ellipse id=\"e1\" rx='1' ry=\"2\"/><!-- new -->\n    <rect id=\"r1\""));
  s_check(doc, s_drawing, s_ok(ens_svg_insert(doc, "#layer1", -1, frag, strlen(frag), &t), &t),
          PAIRS("    </g>\n  </g>", "    </g>\n    <ellipse id=\"e1\" rx='1' ry=\"2\"/><!-- new -->\n  </g>"));
  s_check(doc, s_drawing, s_ok(ens_svg_insert(doc, "#layer1", 3, frag, strlen(frag), &t), &t),
          PAIRS("    </g>\n  </g>", "    </g>\n    <ellipse id=\"e1\" rx='1' ry=\"2\"/><!-- new -->\n  </g>"));
  const char *ns = "<use xlink:href=\"#r1\" inkscape:label=\"x\"/>";
  s_check(doc, s_drawing, s_ok(ens_svg_insert(doc, "#faded", 1, ns, strlen(ns), &t), &t),
          PAIRS("height=\"1\"/></g>", "height=\"1\"/><use xlink:href=\"#r1\" inkscape:label=\"x\"/></g>"));
  const char *undeclared = "<rect/>\n<foo:x/>";
  REFUSED(ens_svg_insert(doc, "#faded", 0, undeclared, strlen(undeclared), &t), ENS_EDECODE,
          "insert: the fragment's foo:x uses the prefix \"foo\", which is not declared");
  REFUSED(ens_svg_insert(doc, "#faded", 0, "<rect foo:a='1'/>", 17, &t), ENS_EDECODE, "prefix \"foo\"");
  REFUSED(ens_svg_insert(doc, "#faded", 0, "\n<rect>\n</g>", 13, &t), ENS_EDECODE, "the fragment, line 3:");
  REFUSED(ens_svg_insert(doc, "#faded", 0, "<a>", 3, &t), ENS_EDECODE, "the fragment, line 1:");
  REFUSED(ens_svg_insert(doc, "#faded", 0, "<rect id='c1'/>", 15, &t), ENS_EEXISTS, "\"c1\" is already used");
  REFUSED(ens_svg_insert(doc, "#faded", 2, "<rect/>", 7, &t), ENS_EINVAL, "index 2 is not 0..1");
  REFUSED(ens_svg_insert(doc, "#faded", 0, "", 0, &t), ENS_EINVAL, "nothing to insert");
  REFUSED(ens_svg_insert(doc, "#faded", 0, "</ens-fragment><x/><ens-fragment>", 33, &t), ENS_EDECODE, "fragment");
  ens_doc_free(doc);
}

/* A group in a drawing whose SVG elements are prefixed is prefixed too. */
static void test_group_prefixed(void **state) {
  (void)state;
  static const char pre[] = "<svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\"><svg:rect id=\"a\"/></svg:svg>";
  ens_doc *doc = s_read(pre);
  ens_txn *t = NULL;
  const char *a[] = {"#a"};
  s_check(doc, pre, s_ok(ens_svg_group(doc, a, 1, NULL, &t), &t),
          PAIRS("<svg:rect id=\"a\"/>", "<svg:g id=\"g1\"><svg:rect id=\"a\"/></svg:g>"));
  ens_doc_free(doc);
}

/* Each command is one undo step: undo gives the bytes before, redo after. */
static void test_one_undo_step_each(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_drawing);
  ens_undo *u = ens_undo_new(doc, 0);
  const char *both[] = {"#r1", "#c1"};
  char *steps[16];
  size_t n = 0;
  steps[n++] = s_write(doc);
  for (int k = 0; k < 11; k++) {
    ens_txn *t = NULL;
    int rc = k == 0   ? ens_svg_set_attr(doc, "#r1", "x", "9", &t)
             : k == 1 ? ens_svg_set_style(doc, "#r1", "fill", "blue", &t)
             : k == 2 ? ens_svg_translate(doc, "#r1", 1, 2, &t)
             : k == 3 ? ens_svg_raise(doc, "#r1", &t)
             : k == 4 ? ens_svg_group(doc, both, 2, "gg", &t)
             : k == 5 ? ens_svg_duplicate(doc, "#gg", &t)
             : k == 6 ? ens_svg_ungroup(doc, "#gg", &t)
             : k == 7 ? ens_svg_insert(doc, "#layer1", 0, "<rect id='n'/>", 14, &t)
             : k == 8 ? ens_svg_delete(doc, "#n", &t)
             : k == 9 ? ens_svg_remove_attr(doc, "#r1", "y", &t)
                      : ens_svg_ungroup(doc, "#layer1", &t);
    if (rc) fail_msg("step %d: %s", k, ens_error_last());
    assert_int_equal(ens_undo_commit(u, t), 0);
    ens_txn_free(t);
    steps[n++] = s_write(doc);
  }
  for (size_t i = n - 1; i > 0; i--) {
    assert_int_equal(ens_undo_undo(u, NULL), 0);
    char *now = s_write(doc);
    assert_string_equal(now, steps[i - 1]);
    ens_free(now);
  }
  for (size_t i = 1; i < n; i++) {
    assert_int_equal(ens_undo_redo(u, NULL), 0);
    char *now = s_write(doc);
    assert_string_equal(now, steps[i]);
    ens_free(now);
  }
  for (size_t i = 0; i < n; i++) ens_free(steps[i]);
  ens_undo_free(u);
  ens_doc_free(doc);
}

/* Edits refuse a font and other documents. */
static void test_not_a_drawing(void **state) {
  (void)state;
  ens_doc *doc = ens_doc_new("sfd", 1);
  ens_txn *t = NULL;
  REFUSED(ens_svg_delete(doc, "#a", &t), ENS_EINVAL, "not on a \"sfd\" document");
  ens_doc_free(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_addresses),      cmocka_unit_test(test_set_and_remove_attr),
      cmocka_unit_test(test_set_style),      cmocka_unit_test(test_transforms),
      cmocka_unit_test(test_raise_lower),    cmocka_unit_test(test_group_ungroup),
      cmocka_unit_test(test_duplicate),      cmocka_unit_test(test_delete),
      cmocka_unit_test(test_insert),         cmocka_unit_test(test_one_undo_step_each),
      cmocka_unit_test(test_not_a_drawing),  cmocka_unit_test(test_group_prefixed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
