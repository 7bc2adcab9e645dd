/* Semantic diff (ensemble/changes.h) on small fonts and drawings written
 * by hand: one test per kind of change, renames, moves, and the editor
 * noise that is not a change. */
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

/* A font of two glyphs; %s fills in: ModificationTime, a's width, a's
 * second point, the flags of a's third point, b's name, b's Flags. */
static char *s_font(const char *mtime, const char *width, const char *p2, const char *f3, const char *bname,
                    const char *bflags) {
  static char buf[4096];
  snprintf(buf, sizeof buf,
           "SplineFontDB: 3.2\n"
           "FontName: T\n"
           "ModificationTime: %s\n"
           "WinInfo: 0 19 8\n"
           "LayerCount: 2\n"
           "BeginChars: 256 2\n"
           "\n"
           "StartChar: a\n"
           "Encoding: 97 97 0\n"
           "Width: %s\n"
           "Flags: W\n"
           "LayerCount: 2\n"
           "Fore\n"
           "SplineSet\n"
           "0 0 m 1\n"
           " %s l 1\n"
           " 100 100 l %s\n"
           " 0 0 l 1\n"
           "EndSplineSet\n"
           "EndChar\n"
           "\n"
           "StartChar: %s\n"
           "Encoding: 98 98 1\n"
           "Width: 600\n"
           "Flags: %s\n"
           "LayerCount: 2\n"
           "Fore\n"
           "SplineSet\n"
           "10 10 m 1\n"
           " 20 400 l 1\n"
           " 300 300 l 1\n"
           " 10 10 l 1\n"
           "EndSplineSet\n"
           "EndChar\n"
           "EndChars\n"
           "EndSplineFont\n",
           mtime, width, p2, f3, bname, bflags);
  return buf;
}

static ens_doc *s_read_sfd(const char *text) {
  ens_doc *d = NULL;
  assert_int_equal(ens_sfd_read(text, strlen(text), &d), 0);
  return d;
}

static ens_doc *s_read_svg(const char *text) {
  ens_doc *d = NULL;
  assert_int_equal(ens_svg_read(text, strlen(text), &d), 0);
  return d;
}

static ens_changes *s_changes(const ens_doc *a, const ens_doc *b) {
  ens_changes_opts o = {ens_format_identity(ens_doc_kind(a)), NULL, ens_format_noise(ens_doc_kind(a)), NULL};
  ens_changes *c = NULL;
  assert_int_equal(ens_changes_compute(a, b, &o, &c), 0);
  assert_non_null(c);
  return c;
}

/* The text for people, in a buffer the test owns. */
static char *s_text(const ens_changes *c, const char *kind) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(ens_changes_write_text(c, kind, f), 0);
  fclose(f);
  return buf;
}

static const ens_change *s_find(const ens_changes *c, ens_change_kind kind, const char *path, const char *key) {
  for (size_t i = 0; i < ens_changes_count(c); i++) {
    const ens_change *ch = ens_changes_at(c, i);
    if (ch->kind == kind && strcmp(ch->path, path) == 0 && (!key || (ch->key && strcmp(ch->key, key) == 0)))
      return ch;
  }
  return NULL;
}

static void test_same_font_has_no_changes(void **state) {
  (void)state;
  ens_doc *a = s_read_sfd(s_font("100", "500", "100 0", "1", "b", "W"));
  ens_doc *b = s_read_sfd(s_font("100", "500", "100 0", "1", "b", "W"));
  ens_changes *c = s_changes(a, b);
  assert_int_equal(ens_changes_count(c), 0);
  char *t = s_text(c, "sfd");
  assert_string_equal(t, "");
  free(t);
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_editor_noise_is_not_a_change(void **state) {
  (void)state;
  /* a new save time, the third point selected (0x4), glyph b's window
   * opened (O): FontForge's own state */
  ens_doc *a = s_read_sfd(s_font("100", "500", "100 0", "1", "b", "W"));
  ens_doc *b = s_read_sfd(s_font("999", "500", "100 0", "5", "b", "WO"));
  ens_changes *c = s_changes(a, b);
  assert_int_equal(ens_changes_count(c), 0);
  ens_changes_free(c);
  /* without the noise function, the same three are changes */
  ens_changes_opts o = {ens_sfd_identity, NULL, NULL, NULL};
  assert_int_equal(ens_changes_compute(a, b, &o, &c), 0);
  assert_int_equal(ens_changes_count(c), 3);
  assert_non_null(s_find(c, ENS_CHANGE_SET, "", "ModificationTime"));
  assert_non_null(s_find(c, ENS_CHANGE_SET, "glyph a/layer 1/contour 0/point 2", "flags"));
  assert_non_null(s_find(c, ENS_CHANGE_SET, "glyph b", "flags"));
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_noise_functions_answer_per_property(void **state) {
  (void)state;
  ens_doc *a = s_read_sfd(s_font("100", "500", "100 0", "1", "b", "W"));
  const ens_obj *root = ens_doc_root(a);
  const ens_obj *glyph = ens_obj_child(root, 0);
  assert_int_equal(ens_sfd_noise(root, "WinInfo", ens_str("0 19 8"), ens_str("0 1 2"), NULL), 1);
  assert_int_equal(ens_sfd_noise(root, "FontName", ens_str("T"), ens_str("U"), NULL), 0);
  assert_int_equal(ens_sfd_noise(glyph, "flags", ens_str("W"), ens_str("WO"), NULL), 1);
  assert_int_equal(ens_sfd_noise(glyph, "flags", ens_str("W"), ens_str("HW"), NULL), 0);
  assert_int_equal(ens_sfd_noise(glyph, "width", ens_int(1), ens_int(2), NULL), 0);
  assert_true(ens_format_noise("sfd") == ens_sfd_noise);
  assert_true(ens_format_noise("svg") == ens_svg_noise);
  assert_null(ens_format_noise("tree"));
  ens_doc_free(a);
}

static void test_width_and_point_changes_are_reported_once_each(void **state) {
  (void)state;
  ens_doc *a = s_read_sfd(s_font("100", "500", "100 0", "1", "b", "W"));
  ens_doc *b = s_read_sfd(s_font("100", "510", "110 0", "1", "b", "W"));
  ens_changes *c = s_changes(a, b);
  assert_int_equal(ens_changes_count(c), 2);
  const ens_change *w = s_find(c, ENS_CHANGE_SET, "glyph a", "width");
  assert_non_null(w);
  assert_int_equal(w->old_value.u.i, 500);
  assert_int_equal(w->new_value.u.i, 510);
  assert_string_equal(w->group, "glyph a");
  const ens_change *x = s_find(c, ENS_CHANGE_SET, "glyph a/layer 1/contour 0/point 1", "x");
  assert_non_null(x);
  assert_true(x->old_id != ENS_ID_NONE && x->new_id != ENS_ID_NONE);
  char *t = s_text(c, "sfd");
  assert_string_equal(t, "glyph a: width 500 → 510; contour 0 point 1 moved (10, 0)\n");
  free(t);
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_glyph_renamed_with_its_outline_is_a_rename(void **state) {
  (void)state;
  ens_doc *a = s_read_sfd(s_font("100", "500", "100 0", "1", "b", "W"));
  ens_doc *b = s_read_sfd(s_font("100", "500", "100 0", "1", "bee", "W"));
  ens_changes *c = s_changes(a, b);
  assert_int_equal(ens_changes_count(c), 1);
  const ens_change *r = ens_changes_at(c, 0);
  assert_int_equal(r->kind, ENS_CHANGE_RENAMED);
  assert_string_equal(r->path, "glyph bee");
  assert_string_equal(r->old_path, "glyph b");
  assert_string_equal(r->key, "name");
  assert_int_equal(r->old_value.type, ENS_STR);
  assert_memory_equal(r->old_value.u.s.ptr, "b", 1);
  char *t = s_text(c, "sfd");
  assert_string_equal(t, "glyph bee: renamed from b\n");
  free(t);
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_glyph_added_and_removed(void **state) {
  (void)state;
  ens_doc *a = s_read_sfd(s_font("100", "500", "100 0", "1", "b", "W"));
  /* b renamed and its outline changed: not the same glyph any more */
  char *text = strdup(s_font("100", "500", "100 0", "1", "c", "W"));
  char *p = strstr(text, "20 400 l 1");
  assert_non_null(p);
  memcpy(p, "25 444", 6);
  ens_doc *b = s_read_sfd(text);
  free(text);
  ens_changes *c = s_changes(a, b);
  assert_int_equal(ens_changes_count(c), 2);
  assert_non_null(s_find(c, ENS_CHANGE_REMOVED, "glyph b", NULL));
  const ens_change *add = s_find(c, ENS_CHANGE_ADDED, "glyph c", NULL);
  assert_non_null(add);
  assert_true(add->old_id == ENS_ID_NONE);
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

static const char s_svg_a[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                              "xmlns:sodipodi=\"http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd\" "
                              "xmlns:inkscape=\"http://www.inkscape.org/namespaces/inkscape\">\n"
                              "<sodipodi:namedview id=\"nv\" inkscape:zoom=\"1\" inkscape:cx=\"10\" pagecolor=\"#fff\"/>\n"
                              "<g id=\"text\"><text>hi</text></g>\n"
                              "<rect id=\"logo\" fill=\"#000\" width=\"10\"/>\n"
                              "<circle id=\"dot\" r=\"4\"/>\n"
                              "<g id=\"box\"/>\n"
                              "</svg>\n";

static void test_svg_noise_function_answers_per_key(void **state) {
  (void)state;
  ens_doc *d = s_read_svg(s_svg_a);
  const ens_obj *svg = NULL;
  for (size_t i = 0; i < ens_obj_child_count(ens_doc_root(d)) && !svg; i++)
    if (!strcmp(ens_obj_kind(ens_obj_child(ens_doc_root(d), i)), "svg")) svg = ens_obj_child(ens_doc_root(d), i);
  assert_non_null(svg);
  const ens_obj *nv = ens_obj_child(svg, 1);
  assert_string_equal(ens_obj_kind(nv), "sodipodi:namedview");
  assert_int_equal(ens_svg_noise(svg, "inkscape:version", ens_str("0.46"), ens_str("0.47"), NULL), 1);
  assert_int_equal(ens_svg_noise(svg, "width", ens_str("1"), ens_str("2"), NULL), 0);
  assert_int_equal(ens_svg_noise(nv, "inkscape:zoom", ens_str("1"), ens_str("2"), NULL), 1);
  assert_int_equal(ens_svg_noise(nv, "pagecolor", ens_str("#fff"), ens_str("#000"), NULL), 0);
  assert_int_equal(ens_svg_noise(svg, "inkscape:zoom", ens_str("1"), ens_str("2"), NULL), 0);
  ens_doc_free(d);
}

static void test_svg_fill_changed_and_view_noise_ignored(void **state) {
  (void)state;
  ens_doc *a = s_read_svg(s_svg_a);
  char *t2 = strdup(s_svg_a);
  memcpy(strstr(t2, "fill=\"#000\""), "fill=\"#f00\"", 11);
  memcpy(strstr(t2, "inkscape:zoom=\"1\""), "inkscape:zoom=\"3\"", 17);
  ens_doc *b = s_read_svg(t2);
  free(t2);
  ens_changes *c = s_changes(a, b);
  assert_int_equal(ens_changes_count(c), 1);
  const ens_change *f = ens_changes_at(c, 0);
  assert_int_equal(f->kind, ENS_CHANGE_SET);
  assert_string_equal(f->key, "fill");
  char *t = s_text(c, "svg");
  assert_string_equal(t, "rect#logo: fill #000 → #f00\n");
  free(t);
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

/* Another program gave the drawing's <svg> element a new id: one change
 * of that element, not a removed drawing and an added one with every
 * element moved between them. The model's diff agrees (one operation). */
static void test_svg_root_id_changed_is_one_change(void **state) {
  (void)state;
  const char *old_text = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"svg2\">\n<rect id=\"r\"/>\n<g id=\"g\"/>\n</svg>\n";
  const char *new_text = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"svg8\">\n<rect id=\"r\"/>\n<g id=\"g\"/>\n</svg>\n";
  ens_doc *a = s_read_svg(old_text), *b = s_read_svg(new_text);
  ens_changes *c = s_changes(a, b);
  char *t = s_text(c, "svg");
  assert_string_equal(t, "svg#svg8: id svg2 → svg8\n");
  free(t);
  ens_changes_free(c);
  ens_txn *d = NULL;
  assert_int_equal(ens_doc_diff(a, b, ens_svg_identity, NULL, &d), 0);
  for (size_t i = 0; i < ens_txn_op_count(d); i++) assert_int_equal(ens_txn_op_kind(d, i), ENS_OP_SET);
  assert_int_equal(ens_doc_apply(a, d, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_true(ens_doc_content_hash(a) == ens_doc_content_hash(b));
  ens_txn_free(d);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_svg_page_colour_is_not_noise(void **state) {
  (void)state;
  ens_doc *a = s_read_svg(s_svg_a);
  char *t2 = strdup(s_svg_a);
  memcpy(strstr(t2, "pagecolor=\"#fff\""), "pagecolor=\"#eee\"", 16);
  ens_doc *b = s_read_svg(t2);
  free(t2);
  ens_changes *c = s_changes(a, b);
  assert_int_equal(ens_changes_count(c), 1);
  assert_string_equal(ens_changes_at(c, 0)->key, "pagecolor");
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_svg_reorder_is_a_move_above(void **state) {
  (void)state;
  ens_doc *a = s_read_svg(s_svg_a);
  /* the rect goes to the top of the drawing: after the circle */
  ens_doc *b = s_read_svg("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                          "xmlns:sodipodi=\"http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd\" "
                          "xmlns:inkscape=\"http://www.inkscape.org/namespaces/inkscape\">\n"
                          "<sodipodi:namedview id=\"nv\" inkscape:zoom=\"1\" inkscape:cx=\"10\" pagecolor=\"#fff\"/>\n"
                          "<g id=\"text\"><text>hi</text></g>\n"
                          "<circle id=\"dot\" r=\"4\"/>\n"
                          "<rect id=\"logo\" fill=\"#000\" width=\"10\"/>\n"
                          "<g id=\"box\"/>\n"
                          "</svg>\n");
  ens_changes *c = s_changes(a, b);
  const ens_change *m = NULL;
  for (size_t i = 0; i < ens_changes_count(c); i++)
    if (ens_changes_at(c, i)->kind == ENS_CHANGE_MOVED && ens_changes_at(c, i)->obj_kind[0] != '#') {
      assert_null(m);
      m = ens_changes_at(c, i);
    }
  assert_non_null(m);
  assert_non_null(m->after);
  char *t = s_text(c, "svg");
  /* one of the two moved past the other; blanks between them are layout */
  assert_true(strstr(t, "rect#logo: moved above circle#dot") || strstr(t, "circle#dot: moved above g#text"));
  assert_null(strstr(t, "added"));
  assert_null(strstr(t, "removed"));
  free(t);
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_svg_element_moved_into_a_group_is_a_move(void **state) {
  (void)state;
  ens_doc *a = s_read_svg(s_svg_a);
  ens_doc *b = s_read_svg("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                          "xmlns:sodipodi=\"http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd\" "
                          "xmlns:inkscape=\"http://www.inkscape.org/namespaces/inkscape\">\n"
                          "<sodipodi:namedview id=\"nv\" inkscape:zoom=\"1\" inkscape:cx=\"10\" pagecolor=\"#fff\"/>\n"
                          "<g id=\"text\"><text>hi</text></g>\n"
                          "<rect id=\"logo\" fill=\"#000\" width=\"10\"/>\n"
                          "\n"
                          "<g id=\"box\"><circle id=\"dot\" r=\"5\"/></g>\n"
                          "</svg>\n");
  ens_changes *c = s_changes(a, b);
  const ens_change *m = s_find(c, ENS_CHANGE_MOVED, "svg[0]/g#box/circle#dot", NULL);
  assert_non_null(m);
  assert_string_equal(m->old_path, "svg[0]/circle#dot");
  const ens_change *r = s_find(c, ENS_CHANGE_SET, "svg[0]/g#box/circle#dot", "r");
  assert_non_null(r);
  assert_null(s_find(c, ENS_CHANGE_ADDED, "svg[0]/g#box/circle#dot", NULL));
  assert_null(s_find(c, ENS_CHANGE_REMOVED, "svg[0]/circle#dot", NULL));
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_svg_id_changed_same_content_is_a_rename(void **state) {
  (void)state;
  ens_doc *a = s_read_svg(s_svg_a);
  char *t2 = strdup(s_svg_a);
  memcpy(strstr(t2, "id=\"logo\""), "id=\"lego\"", 9);
  ens_doc *b = s_read_svg(t2);
  free(t2);
  ens_changes *c = s_changes(a, b);
  assert_int_equal(ens_changes_count(c), 1);
  const ens_change *r = ens_changes_at(c, 0);
  assert_int_equal(r->kind, ENS_CHANGE_RENAMED);
  assert_string_equal(r->key, "id");
  assert_string_equal(r->old_path, "svg[0]/rect#logo");
  assert_string_equal(r->path, "svg[0]/rect#lego");
  char *t = s_text(c, "svg");
  assert_string_equal(t, "rect#lego: renamed from logo\n");
  free(t);
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_json_is_one_object_with_every_change(void **state) {
  (void)state;
  ens_doc *a = s_read_sfd(s_font("100", "500", "100 0", "1", "b", "W"));
  ens_doc *b = s_read_sfd(s_font("100", "510", "110 0", "1", "bee", "W"));
  ens_changes *c = s_changes(a, b);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(ens_changes_write_json(c, "sfd", f), 0);
  fclose(f);
  assert_non_null(strstr(buf, "{\"version\":1,\"kind\":\"sfd\",\"count\":3,\"changes\":["));
  const ens_change *w = s_find(c, ENS_CHANGE_SET, "glyph a", "width");
  assert_non_null(w);
  char want[512];
  snprintf(want, sizeof want,
           "{\"change\":\"set\",\"object\":\"glyph\",\"path\":\"glyph a\",\"group\":\"glyph a\","
           "\"old_id\":\"0:%llu\",\"new_id\":\"0:%llu\",\"key\":\"width\",\"old\":500,\"new\":510}",
           (unsigned long long)ens_id_counter(w->old_id), (unsigned long long)ens_id_counter(w->new_id));
  assert_non_null(strstr(buf, want));
  assert_non_null(strstr(buf, "\"change\":\"renamed\""));
  assert_non_null(strstr(buf, "\"old\":100,\"new\":110"));
  free(buf);
  ens_changes_free(c);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_bad_arguments_are_refused(void **state) {
  (void)state;
  ens_doc *a = s_read_sfd(s_font("100", "500", "100 0", "1", "b", "W"));
  ens_doc *b = s_read_svg(s_svg_a);
  ens_changes *c = (ens_changes *)1;
  assert_int_equal(ens_changes_compute(a, b, NULL, &c), ENS_EKIND);
  assert_null(c);
  assert_int_equal(ens_changes_compute(NULL, b, NULL, &c), ENS_EINVAL);
  ens_changes_free(NULL);
  ens_doc_free(a);
  ens_doc_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_font_has_no_changes),
      cmocka_unit_test(test_editor_noise_is_not_a_change),
      cmocka_unit_test(test_noise_functions_answer_per_property),
      cmocka_unit_test(test_width_and_point_changes_are_reported_once_each),
      cmocka_unit_test(test_glyph_renamed_with_its_outline_is_a_rename),
      cmocka_unit_test(test_glyph_added_and_removed),
      cmocka_unit_test(test_svg_noise_function_answers_per_key),
      cmocka_unit_test(test_svg_fill_changed_and_view_noise_ignored),
      cmocka_unit_test(test_svg_root_id_changed_is_one_change),
      cmocka_unit_test(test_svg_page_colour_is_not_noise),
      cmocka_unit_test(test_svg_reorder_is_a_move_above),
      cmocka_unit_test(test_svg_element_moved_into_a_group_is_a_move),
      cmocka_unit_test(test_svg_id_changed_same_content_is_a_rename),
      cmocka_unit_test(test_json_is_one_object_with_every_change),
      cmocka_unit_test(test_bad_arguments_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
