/* The formats' rules on real files: whatever the readers make of a corpus
 * font or drawing, the rules accept (everything under the root removed
 * and put back in one transaction each, every object judged as new), and
 * the changes between successive versions of a file (a diff, as a mirror
 * sends an editor's save) are accepted and write files that read back as
 * the later version. A rule that refused any of these would refuse real
 * users' work. Skipped without the shared corpus. */
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
#include "../fuzz/fuzzlib.h"

static int s_read(int svg, const char *path, ens_doc **doc) {
  int rc = svg ? ens_svg_read_path(path, doc) : ens_sfd_read_path(path, doc);
  return rc;
}

/* Everything under the root (SVG: under the root element, which a drawing
 * cannot be without) removed, then put back by the inverse: each object
 * of the file judged as a new one. */
static void s_all_back(ens_doc *doc, const char *path) {
  const ens_obj *root = ens_doc_root(doc);
  int svg = strcmp(ens_doc_kind(doc), ENS_SVG_KIND) == 0;
  if (svg)
    for (size_t i = 0; i < ens_obj_child_count(root); i++)
      if (ens_obj_kind(ens_obj_child(root, i))[0] != '#') root = ens_obj_child(root, i);
  uint64_t h = ens_doc_hash(doc);
  ens_txn *t = ens_txn_new("all out", NULL), *inv = NULL;
  for (size_t i = 0; i < ens_obj_child_count(root); i++) ens_txn_delete(t, ens_obj_id(ens_obj_child(root, i)));
  int rc = ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, &inv);
  if (rc) fail_msg("%s: removing everything was refused: %s", path, ens_error_last());
  rc = ens_doc_apply(doc, inv, ENS_ORIGIN_UNDO, NULL);
  if (rc) fail_msg("%s: putting everything back was refused: %s", path, ens_error_last());
  assert_int_equal(ens_doc_hash(doc), h);
  ens_txn_free(t);
  ens_txn_free(inv);
}

static size_t s_files(const char *set, const char *ext, int svg, size_t max) {
  const char *corpus = tu_corpus_dir();
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", corpus, set);
  size_t n = 0, done = 0;
  char **files = tu_list_files(dir, ext, &n);
  for (size_t i = 0; i < n && done < max; i++) {
    ens_doc *doc = NULL;
    if (s_read(svg, files[i], &doc)) continue; /* files the reader refuses are its tests' business */
    assert_non_null(ens_doc_schema(doc));
    s_all_back(doc, files[i]);
    ens_doc_free(doc);
    done++;
  }
  tu_files_free(files, n);
  print_message("%s: %zu files, every object accepted as new\n", set, done);
  return done;
}

static void test_every_corpus_font_passes_its_rules(void **state) {
  (void)state;
  if (!tu_corpus_dir()) skip();
  static const char *const sets[] = {"sfd/dejavu", "sfd/dejavu-history", "sfd/libertinus", "sfd/liberation",
                                     "sfd/freefont", "sfd/fontforge-tests"};
  size_t n = 0;
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) n += s_files(sets[i], ".sfd", 0, 1000);
  assert_true(n > 0);
}

static void test_every_corpus_drawing_passes_its_rules(void **state) {
  (void)state;
  if (!tu_corpus_dir()) skip();
  size_t n = s_files("svg/large", ".svg", 1, 1000) + s_files("svg/history", ".svg", 1, 1000) +
             s_files("svg/librsvg", ".svg", 1, 1000) + s_files("svg/resvg-tests", ".svg", 1, 2000) +
             s_files("svg/mdi", ".svg", 1, 300);
  assert_true(n > 0);
}

/* diff(a, b) applied to a is accepted, and a then writes a file that
 * reads back as b. */
static void s_versions(const char *set, const char *ext, int svg) {
  const char *corpus = tu_corpus_dir();
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", corpus, set);
  size_t n = 0;
  char **files = tu_list_files(dir, ext, &n);
  for (size_t i = 0; i + 1 < n; i++) {
    ens_doc *a = NULL, *b = NULL;
    assert_int_equal(s_read(svg, files[i], &a), 0);
    assert_int_equal(s_read(svg, files[i + 1], &b), 0);
    ens_txn *t = NULL;
    assert_int_equal(ens_doc_diff(a, b, svg ? ens_svg_identity : ens_sfd_identity, NULL, &t), 0);
    int rc = ens_doc_apply(a, t, ENS_ORIGIN_LOCAL, NULL);
    if (rc) fail_msg("%s -> %s: the change was refused: %s", files[i], files[i + 1], ens_error_last());
    if (fz_model_hash(a) != fz_model_hash(b)) fail_msg("%s -> %s: the diff did not give the later version", files[i], files[i + 1]);
    unsigned char *out;
    size_t len;
    ens_doc *back = NULL;
    assert_int_equal(svg ? ens_svg_write(a, &out, &len) : ens_sfd_write(a, &out, &len), 0);
    assert_int_equal(svg ? ens_svg_read(out, len, &back) : ens_sfd_read(out, len, &back), 0);
    if (fz_model_hash(back) != fz_model_hash(b)) fail_msg("%s -> %s: the file written reads back as another document", files[i], files[i + 1]);
    print_message("%s -> %s: %zu operations accepted\n", strrchr(files[i], '/') + 1, strrchr(files[i + 1], '/') + 1,
                  ens_txn_op_count(t));
    ens_free(out);
    ens_doc_free(back);
    ens_txn_free(t);
    ens_doc_free(a);
    ens_doc_free(b);
  }
  tu_files_free(files, n);
}

static void test_successive_versions_are_accepted(void **state) {
  (void)state;
  if (!tu_corpus_dir()) skip();
  s_versions("sfd/dejavu-history", ".sfd", 0);
  s_versions("svg/history/adwaita-faces", ".svg", 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_corpus_font_passes_its_rules),
      cmocka_unit_test(test_every_corpus_drawing_passes_its_rules),
      cmocka_unit_test(test_successive_versions_are_accepted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
