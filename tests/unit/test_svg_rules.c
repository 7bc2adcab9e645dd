/* The SVG format's rules (ens_svg_schema), one test per rule: a change
 * the writer would write as malformed XML, or as XML that reads back as
 * another document, is refused with its code and a reason, leaves the
 * drawing as it was, and the drawing still writes a file that reads back
 * as itself; the nearest change XML can hold is accepted. */
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

static const char s_drawing[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<!DOCTYPE svg [\n<!ENTITY red \"#f00\">\n]>\n"
    "<!-- a comment -->\n"
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\">\n"
    "  <rect id=\"r1\" x=\"1\" fill=\"&red;\"/>\n"
    "  <text>hi<![CDATA[raw]]><?tool data?></text>\n"
    "</svg>\n";

static ens_doc *s_doc(void) {
  ens_doc *doc = NULL;
  assert_int_equal(ens_svg_read(s_drawing, sizeof s_drawing - 1, &doc), 0);
  assert_ptr_equal(ens_doc_schema(doc), ens_svg_schema());
  return doc;
}

/* The first object of kind under o, depth first. */
static const ens_obj *s_find(const ens_obj *o, const char *kind) {
  if (strcmp(ens_obj_kind(o), kind) == 0 && ens_obj_parent(o)) return o;
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *f = s_find(ens_obj_child(o, i), kind);
    if (f) return f;
  }
  return NULL;
}

static const ens_obj *s_get(const ens_doc *doc, const char *kind) {
  const ens_obj *o = s_find(ens_doc_root(doc), kind);
  assert_non_null(o);
  return o;
}

static void s_refused(ens_doc *doc, ens_txn *txn, int code, const char *why) {
  uint64_t h = ens_doc_hash(doc), ch = ens_doc_content_hash(doc);
  int rc = ens_doc_apply(doc, txn, ENS_ORIGIN_LOCAL, NULL);
  if (rc != code || !strstr(ens_error_last(), why))
    fail_msg("wanted %s with \"%s\", got %s: %s", ens_error_name(code), why, ens_error_name(rc), ens_error_last());
  print_message("refused: %s\n", ens_error_last());
  assert_int_equal(ens_doc_hash(doc), h);
  assert_int_equal(ens_doc_content_hash(doc), ch);
  fz_check_written(doc, "after a refusal");
  ens_txn_free(txn);
}

static void s_accepted(ens_doc *doc, ens_txn *txn) {
  int rc = ens_doc_apply(doc, txn, ENS_ORIGIN_LOCAL, NULL);
  if (rc) fail_msg("refused: %s", ens_error_last());
  fz_check_written(doc, "after an accepted change");
  ens_txn_free(txn);
}

static ens_txn *s_set(const ens_obj *o, const char *key, ens_value v) {
  ens_txn *t = ens_txn_new("test", NULL);
  assert_int_equal(ens_txn_set(t, ens_obj_id(o), key, v), 0);
  return t;
}

/* An insert of kind under parent at index, with one property. */
static ens_txn *s_insert(ens_doc *doc, const ens_obj *parent, size_t index, const char *kind, const char *key,
                         ens_value v) {
  char *pos = NULL;
  assert_int_equal(ens_doc_pos_at(doc, ens_obj_id(parent), index, &pos), 0);
  ens_txn *t = ens_txn_new("test", NULL);
  ens_node *n = ens_txn_insert(t, ens_obj_id(parent), pos, ens_doc_new_id(doc), kind);
  assert_non_null(n);
  if (key) assert_int_equal(ens_node_set(n, key, v), 0);
  ens_free(pos);
  return t;
}

/* --- names ------------------------------------------------------------------------------ */

static void test_attribute_names_that_are_not_xml_names_refused(void **state) {
  (void)state;
  ens_doc *doc = s_doc();
  const ens_obj *rect = s_get(doc, "rect");
  s_refused(doc, s_set(rect, "on click", ens_str("x")), ENS_EFORMAT, "has a blank");
  s_refused(doc, s_set(rect, "a\"b", ens_str("x")), ENS_EFORMAT, "has a quote");
  s_refused(doc, s_set(rect, "x=\"1\" onload", ens_str("alert(1)")), ENS_EFORMAT, "attribute name");
  s_refused(doc, s_set(rect, "1st", ens_str("x")), ENS_EFORMAT, "does not start as an XML name");
  s_refused(doc, s_set(rect, "~mine", ens_str("x")), ENS_EFORMAT, "no attribute");
  s_accepted(doc, s_set(rect, "inkscape:label", ens_str("box")));
  s_accepted(doc, s_set(rect, "data-\xc3\xa9t\xc3\xa9", ens_str("summer")));
  ens_doc_free(doc);
}

static void test_element_names_that_are_not_xml_names_refused(void **state) {
  (void)state;
  ens_doc *doc = s_doc();
  const ens_obj *svg = s_get(doc, "svg");
  s_refused(doc, s_insert(doc, svg, 0, "g id", NULL, ens_nil()), ENS_EKIND, "element name");
  s_refused(doc, s_insert(doc, svg, 0, "#widget", NULL, ens_nil()), ENS_EKIND, "no node of XML");
  s_accepted(doc, s_insert(doc, svg, 0, "g", "id", ens_str("new")));
  ens_doc_free(doc);
}

/* --- values --------------------------------------------------------------------------------- */

static void test_values_xml_cannot_hold_refused(void **state) {
  (void)state;
  ens_doc *doc = s_doc();
  const ens_obj *rect = s_get(doc, "rect"), *text = s_find(s_get(doc, "text"), ENS_SVG_TEXT);
  s_refused(doc, s_set(rect, "x", ens_int(2)), ENS_ETYPE, "must be a string");
  s_refused(doc, s_set(rect, "x", ens_strn("1\0", 2)), ENS_EFORMAT, "NUL");
  s_refused(doc, s_set(rect, "x", ens_str("\x01")), ENS_EFORMAT, "control character");
  s_refused(doc, s_set(rect, "x", ens_str("\xff")), ENS_EFORMAT, "UTF-8");
  s_refused(doc, s_set(text, "text", ens_str("bell\x07")), ENS_EFORMAT, "control character");
  /* what the writer escapes is fine */
  s_accepted(doc, s_set(rect, "x", ens_str("\"<&>\t\n\r'")));
  s_accepted(doc, s_set(text, "text", ens_str("a < b & ]]> \r")));
  ens_doc_free(doc);
}

static void test_comments_cdata_and_instructions_that_would_end_early_refused(void **state) {
  (void)state;
  ens_doc *doc = s_doc();
  const ens_obj *comment = s_get(doc, ENS_SVG_COMMENT), *cdata = s_get(doc, ENS_SVG_CDATA), *pi = s_get(doc, ENS_SVG_PI);
  s_refused(doc, s_set(comment, "text", ens_str(" a -- b ")), ENS_EFORMAT, "'--'");
  s_refused(doc, s_set(comment, "text", ens_str(" a -")), ENS_EFORMAT, "end with '-'");
  s_refused(doc, s_set(cdata, "text", ens_str("a]]>b")), ENS_EFORMAT, "']]>'");
  s_refused(doc, s_set(cdata, "text", ens_str("a\rb")), ENS_EFORMAT, "carriage return");
  s_refused(doc, s_set(pi, "data", ens_str("a?>b")), ENS_EFORMAT, "'?>'");
  s_refused(doc, s_set(pi, "data", ens_str(" lead")), ENS_EFORMAT, "starts with a blank");
  s_refused(doc, s_set(pi, "target", ens_str("XmL")), ENS_EFORMAT, "'xml'");
  s_refused(doc, s_set(pi, "target", ens_str("a b")), ENS_EFORMAT, "blank");
  /* written as <!---->, <![CDATA[]]> and <?t?>, they would read back
   * with a text (a data) of "" */
  s_refused(doc, s_set(comment, "text", ens_nil()), ENS_EFORMAT, "needs a 'text'");
  s_refused(doc, s_set(cdata, "text", ens_nil()), ENS_EFORMAT, "needs a 'text'");
  s_refused(doc, s_set(pi, "data", ens_nil()), ENS_EFORMAT, "needs a 'data'");
  const ens_obj *text = s_get(doc, "text");
  s_refused(doc, s_insert(doc, text, 0, ENS_SVG_COMMENT, NULL, ens_nil()), ENS_EFORMAT, "needs a 'text'");
  s_refused(doc, s_insert(doc, text, 0, ENS_SVG_CDATA, NULL, ens_nil()), ENS_EFORMAT, "needs a 'text'");
  s_refused(doc, s_insert(doc, text, 0, ENS_SVG_PI, "target", ens_str("tool")), ENS_EFORMAT, "needs a 'data'");
  s_accepted(doc, s_insert(doc, text, 0, ENS_SVG_COMMENT, "text", ens_str("")));
  s_accepted(doc, s_set(comment, "text", ens_str("")));
  s_accepted(doc, s_set(pi, "data", ens_str("")));
  s_accepted(doc, s_set(comment, "text", ens_str(" a - b ")));
  s_accepted(doc, s_set(cdata, "text", ens_str("a]]b>")));
  s_accepted(doc, s_set(pi, "data", ens_str("a ? > b")));
  ens_doc_free(doc);
}

/* --- the shape of the document -------------------------------------------------------------- */

static void test_content_outside_the_root_element_refused(void **state) {
  (void)state;
  ens_doc *doc = s_doc();
  const ens_obj *root = ens_doc_root(doc);
  size_t n = ens_obj_child_count(root);
  /* the case: text before <svg> */
  s_refused(doc, s_insert(doc, root, 1, ENS_SVG_TEXT, "text", ens_str("hello")), ENS_EFORMAT, "outside the root element");
  s_refused(doc, s_insert(doc, root, n, ENS_SVG_CDATA, "text", ens_str("x")), ENS_EKIND, "outside the root element");
  s_refused(doc, s_insert(doc, root, n, "g", NULL, ens_nil()), ENS_EFORMAT, "exactly one root element");
  ens_txn *t = ens_txn_new("test", NULL);
  ens_txn_delete(t, ens_obj_id(s_get(doc, "svg")));
  s_refused(doc, t, ENS_EFORMAT, "exactly one root element");
  s_refused(doc, s_insert(doc, root, 0, ENS_SVG_COMMENT, "text", ens_str("x")), ENS_EFORMAT, "declaration must come first");
  s_refused(doc, s_insert(doc, s_get(doc, "rect"), 0, ENS_SVG_DOCTYPE, "name", ens_str("svg")), ENS_EKIND,
            "before the root element");
  s_refused(doc, s_set(root, "~encoding", ens_str("ISO-8859-1")), ENS_EFORMAT, "the reader's");
  s_accepted(doc, s_insert(doc, root, n, ENS_SVG_TEXT, "text", ens_str("\n\t ")));
  s_accepted(doc, s_insert(doc, root, n, ENS_SVG_COMMENT, "text", ens_str(" after ")));
  ens_doc_free(doc);
}

static void test_a_declaration_that_is_not_well_formed_refused(void **state) {
  (void)state;
  ens_doc *doc = s_doc();
  const ens_obj *decl = s_get(doc, ENS_SVG_XMLDECL);
  /* the issue's case: "?> inside the declaration */
  s_refused(doc, s_set(decl, "encoding", ens_str("UTF-8\"?><x/><?y \"")), ENS_EFORMAT, "encoding");
  s_refused(doc, s_set(decl, "version", ens_str("1.0\"?>")), ENS_EFORMAT, "version 1.n");
  s_refused(doc, s_set(decl, "standalone", ens_str("maybe")), ENS_EFORMAT, "yes or no");
  s_refused(doc, s_set(decl, "encoding", ens_str("ISO-8859-1")), ENS_EFORMAT, "written in");
  s_refused(doc, s_set(decl, "~src", ens_str("<?xml version=\"1.0\" encoding=\"UTF-8\" junk?>")), ENS_EFORMAT,
            "well-formed declaration");
  s_refused(doc, s_set(decl, "comment", ens_str("x")), ENS_EFORMAT, "nothing it has");
  s_accepted(doc, s_set(decl, "standalone", ens_str("yes")));
  ens_doc_free(doc);
}

static void test_kept_tags_and_the_doctype_must_parse(void **state) {
  (void)state;
  ens_doc *doc = s_doc();
  const ens_obj *rect = s_get(doc, "rect"), *dt = s_get(doc, ENS_SVG_DOCTYPE), *svg = s_get(doc, "svg");
  s_refused(doc, s_set(rect, "~src", ens_str("<rect id=\"r1\" x=\"1\" fill=\"&red;\"/><script/>")), ENS_EFORMAT,
            "kept tag");
  s_refused(doc, s_set(rect, "~src", ens_str("<rect id=\"r1\" id=\"r1\"/>")), ENS_EFORMAT, "kept tag");
  s_refused(doc, s_set(svg, "~end", ens_str("</svg><x>")), ENS_EFORMAT, "kept end tag");
  /* an entity changed without its doctype's text: the file would say the old one */
  s_refused(doc, s_set(dt, "&red", ens_str("#0f0")), ENS_EFORMAT, "entities");
  s_refused(doc, s_set(dt, "~src", ens_str("<!DOCTYPE svg [<!ENTITY red \"#f00\">]><x/><!DOCTYPE svg>")), ENS_EFORMAT,
            "doctype");
  s_refused(doc, s_insert(doc, s_get(doc, "text"), 0, ENS_SVG_ENTITY, "name", ens_str("blue")), ENS_EFORMAT,
            "does not declare");
  /* the doctype's text with it: the rect kept as read says fill="&red;",
   * which would now read as another colour */
  ens_txn *t = s_set(dt, "&red", ens_str("#0f0"));
  ens_txn_set(t, ens_obj_id(dt), "~src", ens_str("<!DOCTYPE svg [\n<!ENTITY red \"#0f0\">\n]>"));
  s_refused(doc, t, ENS_EFORMAT, "'fill' refers to an entity");
  /* all three, as a save of the edited file gives them */
  t = s_set(dt, "&red", ens_str("#0f0"));
  ens_txn_set(t, ens_obj_id(dt), "~src", ens_str("<!DOCTYPE svg [\n<!ENTITY red \"#0f0\">\n]>"));
  ens_txn_set(t, ens_obj_id(rect), "fill", ens_str("#0f0"));
  s_accepted(doc, t);
  /* the doctype gone, the references to it would not read */
  t = ens_txn_new("test", NULL);
  ens_txn_delete(t, ens_obj_id(dt));
  s_refused(doc, t, ENS_EFORMAT, "refers to an entity");
  s_accepted(doc, s_insert(doc, s_get(doc, "text"), 0, ENS_SVG_ENTITY, "name", ens_str("red")));
  ens_doc_free(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_attribute_names_that_are_not_xml_names_refused),
      cmocka_unit_test(test_element_names_that_are_not_xml_names_refused),
      cmocka_unit_test(test_values_xml_cannot_hold_refused),
      cmocka_unit_test(test_comments_cdata_and_instructions_that_would_end_early_refused),
      cmocka_unit_test(test_content_outside_the_root_element_refused),
      cmocka_unit_test(test_a_declaration_that_is_not_well_formed_refused),
      cmocka_unit_test(test_kept_tags_and_the_doctype_must_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
