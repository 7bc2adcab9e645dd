/* Every SVG editing command on real drawings: the drawings bundled in
 * tests/resources always, and a spread of each set of the shared corpus
 * when it is there (skipped otherwise). The output differs from the input only in the
 * lines of the edited elements (a line diff against the byte spans those
 * elements had in the input), reads back, and undoes to the same bytes.
 * Where an edit must not change the picture (group, ungroup, duplicate
 * then delete of the copy, translate by 0), librsvg renders input and
 * output to the same pixels; where it must (translate by 10 of an element
 * whose removal changes the picture), it does not. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

/* Sets and how many files of each (evenly spread over the sorted list). */
static const struct {
  const char *dir;
  size_t take;
} s_sets[] = {
    {"resvg-tests", 40}, {"librsvg/rsvg/tests/fixtures/reftests/svg1.1", 25},
    {"librsvg/rsvg/tests/fixtures/reftests/adwaita", 10}, {"mdi", 25}, {"history", 4}, {"large", 7},
};

/* Files larger than this are checked by line diff but not rendered. */
#define S_RENDER_MAX ((size_t)600 << 10)
static const ens_render_size s_size = {160, 0, 0};


static char *s_write(const ens_doc *doc, size_t *n) {
  unsigned char *out = NULL;
  if (ens_svg_write(doc, &out, n)) fail_msg("write: %s", ens_error_last());
  return (char *)out;
}

/* --- which elements to edit ---------------------------------------------------------------- */

static int s_drawn(const char *kind) {
  static const char *const k[] = {"path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "use", "text",
                                  "image", "g"};
  for (size_t i = 0; i < sizeof k / sizeof *k; i++)
    if (strcmp(kind, k[i]) == 0) return 1;
  return 0;
}

/* Inside something that is not drawn where it stands (defs, a clip path,
 * a pattern, ...)? */
static int s_in_definition(const ens_obj *o) {
  for (const ens_obj *p = ens_obj_parent(o); p; p = ens_obj_parent(p)) {
    const char *k = ens_obj_kind(p);
    if (!ens_obj_parent(p)) break;
    if (!s_drawn(k) && strcmp(k, "svg") != 0 && strcmp(k, "a") != 0 && strcmp(k, "switch") != 0) return 1;
  }
  return 0;
}

typedef struct {
  const ens_obj *target, *group;
} s_pick;

static int s_pick_fn(const ens_obj *o, size_t depth, void *user) {
  s_pick *p = user;
  const ens_obj *parent = ens_obj_parent(o);
  if (!parent || !ens_obj_parent(parent) || !s_drawn(ens_obj_kind(o)) || s_in_definition(o)) return 0;
  if (!p->target && strcmp(ens_obj_kind(o), "g") != 0) p->target = o;
  if (!p->group && strcmp(ens_obj_kind(o), "g") == 0) p->group = o;
  return p->target && p->group;
}

static const ens_obj *s_next_elem(const ens_obj *o) {
  const ens_obj *parent = ens_obj_parent(o);
  for (size_t i = ens_obj_index(o) + 1; i < ens_obj_child_count(parent); i++) {
    const ens_obj *k = ens_obj_child(parent, i);
    if (ens_obj_kind(k)[0] != '#') return k;
  }
  return NULL;
}

/* --- line spans ------------------------------------------------------------------------------ */

static size_t s_line_of(const char *t, size_t off) {
  size_t l = 0;
  for (size_t i = 0; i < off; i++) l += t[i] == '\n';
  return l;
}

/* Lines [lo, hi] that element o spans in text (the writing of doc): the
 * bytes that go when o alone is deleted. */
static void s_span(ens_doc *doc, const ens_obj *o, const char *text, size_t n, size_t *lo, size_t *hi) {
  ens_txn *t = ens_txn_new("span", NULL), *inv = NULL;
  ens_txn_delete(t, ens_obj_id(o));
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, &inv), 0);
  size_t m;
  char *w = s_write(doc, &m);
  assert_int_equal(ens_doc_apply(doc, inv, ENS_ORIGIN_UNDO, NULL), 0);
  ens_txn_free(t);
  ens_txn_free(inv);
  size_t a = 0, b = 0;
  while (a < m && a < n && w[a] == text[a]) a++;
  while (b < m - a && b < n - a && w[m - 1 - b] == text[n - 1 - b]) b++;
  *lo = s_line_of(text, a);
  *hi = s_line_of(text, n - b > a ? n - b - 1 : a);
  ens_free(w);
}

/* Line starts of t (n bytes): lines[i], and lines[count] = n. */
static size_t *s_lines(const char *t, size_t n, size_t *count) {
  size_t k = 1;
  for (size_t i = 0; i < n; i++) k += t[i] == '\n';
  size_t *l = malloc((k + 1) * sizeof *l);
  size_t c = 0;
  l[c++] = 0;
  for (size_t i = 0; i < n; i++)
    if (t[i] == '\n' && i + 1 < n) l[c++] = i + 1;
  l[c] = n;
  *count = c;
  return l;
}

static int s_line_eq(const char *a, const size_t *la, size_t i, const char *b, const size_t *lb, size_t j) {
  size_t x = la[i + 1] - la[i], y = lb[j + 1] - lb[j];
  return x == y && memcmp(a + la[i], b + lb[j], x) == 0;
}

static int s_blank_line(const char *t, const size_t *l, size_t i) {
  for (size_t k = l[i]; k < l[i + 1]; k++)
    if (t[k] != ' ' && t[k] != '\t' && t[k] != '\r' && t[k] != '\n') return 0;
  return 1;
}

/* The lines of a that differ from b, after their common first and last
 * lines: a's lines [lo, hi]; *ins is 1 when b only adds lines (at lo),
 * *del when it only removes them. */
static void s_changed(const char *a, size_t an, const char *b, size_t bn, size_t *lo, size_t *hi, int *ins, int *del) {
  size_t na, nb;
  size_t *la = s_lines(a, an, &na), *lb = s_lines(b, bn, &nb);
  size_t p = 0, q = 0;
  while (p < na && p < nb && s_line_eq(a, la, p, b, lb, p)) p++;
  while (q < na - p && q < nb - p && s_line_eq(a, la, na - 1 - q, b, lb, nb - 1 - q)) q++;
  *ins = na - q == p;
  *del = nb - q == p;
  *lo = p;
  *hi = na - q > p ? na - q - 1 : p;
  free(la);
  free(lb);
}

/* --- running one edit ------------------------------------------------------------------------ */

typedef struct {
  size_t edits, refused, renders, same_picture, moved, hidden, dup_bytes, css;
  char first_refusal[300];
} s_stats;

typedef struct {
  const char *path;
  const char *text;
  size_t n;
  ens_image base;
  int rendered;
} s_file;

/* Applies txn to doc, checks the changed lines of the output lie in
 * [lo, hi] of the input (an insertion in [lo, hi + 1]), that it reads
 * back, and that undo gives the input's bytes; with picture 1/-1 checks
 * the rendering is the same / differs. Returns the output (caller frees). */
static char *s_run(ens_doc *doc, const s_file *f, const char *what, ens_txn *txn, size_t lo, size_t hi, int picture,
                   s_stats *st, size_t *out_n, int keep) {
  ens_txn *inv = NULL;
  if (ens_doc_apply(doc, txn, ENS_ORIGIN_LOCAL, &inv)) fail_msg("%s: %s: apply: %s", f->path, what, ens_error_last());
  size_t n;
  char *out = s_write(doc, &n);
  size_t clo, chi;
  int ins, del;
  s_changed(f->text, f->n, out, n, &clo, &chi, &ins, &del);
  int same = n == f->n && memcmp(out, f->text, n) == 0;
  /* blank lines next to the element go with it: a diff may align an
     added or removed blank line on either side of it */
  size_t nl, *ls = s_lines(f->text, f->n, &nl);
  while (lo > 0 && s_blank_line(f->text, ls, lo - 1)) lo--;
  while (hi + 1 < nl && s_blank_line(f->text, ls, hi + 1)) hi++;
  if (!same && ins && clo > hi + 1) {
    /* an added block may be shown lower than where it went when its last
       lines equal the lines before it: slide it up as far as it goes */
    size_t no, *lo_out = s_lines(out, n, &no), m = no - nl;
    while (clo > hi + 1 && s_line_eq(f->text, ls, clo - 1, out, lo_out, clo - 1 + m)) clo--;
    free(lo_out);
  }
  /* so may a removed block, when its last lines equal the lines before it */
  while (!same && del && !ins && chi > hi && clo > 0 && s_line_eq(f->text, ls, clo - 1, f->text, ls, chi)) clo--, chi--;
  free(ls);
  if (!same && (ins ? (clo < lo || clo > hi + 1) : (clo < lo || chi > hi)))
    fail_msg("%s: %s changed input lines %zu..%zu (%s), outside the edited element's lines %zu..%zu", f->path, what,
             clo + 1, chi + 1, ins ? "an insertion" : "a change", lo + 1, hi + 1);
  ens_doc *again = NULL;
  if (ens_svg_read(out, n, &again)) fail_msg("%s: %s: the output does not read back: %s", f->path, what, ens_error_last());
  ens_doc_free(again);
  if (picture && f->rendered) {
    ens_image img;
    if (ens_render_svg(out, n, s_size, &img)) fail_msg("%s: %s: render: %s", f->path, what, ens_error_last());
    long d = ens_image_diff_count(&f->base, &img);
    st->renders++;
    if (picture > 0 && d != 0) fail_msg("%s: %s changed %ld pixels of the picture", f->path, what, d);
    if (picture > 0) st->same_picture++;
    if (picture < 0 && d == 0) fail_msg("%s: %s did not change the picture", f->path, what);
    if (picture < 0) st->moved++;
    ens_image_free(&img);
  }
  if (!keep) {
    assert_int_equal(ens_doc_apply(doc, inv, ENS_ORIGIN_UNDO, NULL), 0);
    size_t m;
    char *back = s_write(doc, &m);
    if (m != f->n || memcmp(back, f->text, m) != 0) fail_msg("%s: %s: undo does not give the input back", f->path, what);
    ens_free(back);
  }
  ens_txn_free(inv);
  ens_txn_free(txn);
  st->edits++;
  if (out_n) *out_n = n;
  return out;
}

/* An edit that may be refused for a reason of the file (ungroup of a
 * group with opacity, group inside a <switch>): counted, its message kept. */
static int s_built(int rc, const char *path, const char *what, s_stats *st) {
  if (!rc) return 1;
  if (rc != ENS_EINVAL) fail_msg("%s: %s: %s", path, what, ens_error_last());
  if (!st->refused++) snprintf(st->first_refusal, sizeof st->first_refusal, "%s", ens_error_last());
  return 0;
}

/* Does a <style> sheet of the drawing have a selector that depends on
 * where elements stand (a combinator, a pseudo-class): docs/svg.md says
 * that group and ungroup may then change what it matches, so their
 * picture is not compared there. */
static int s_selector_structural(const char *sel, size_t n) {
  size_t a = 0, b = n;
  while (a < b && strchr(" \t\r\n", sel[a])) a++;
  while (b > a && strchr(" \t\r\n", sel[b - 1])) b--;
  for (size_t i = a; i < b; i++)
    if (strchr(" \t\r\n>+~:[", sel[i])) return 1;
  return 0;
}

static int s_sheet_structural(const char *css, size_t n) {
  size_t i = 0;
  while (i < n) {
    const char *open = memchr(css + i, '{', n - i);
    if (!open) break;
    size_t start = i, end = (size_t)(open - css);
    for (size_t k = start; k < end; k++) {
      if (css[k] == '@') return 1; /* @media and the like: not looked into */
      if (css[k] == ',' || k + 1 == end) {
        size_t e = css[k] == ',' ? k : end;
        if (s_selector_structural(css + start, e - start)) return 1;
        start = k + 1;
      }
    }
    const char *close = memchr(open, '}', n - (size_t)(open - css));
    if (!close) break;
    i = (size_t)(close - css) + 1;
  }
  return 0;
}

static int s_css_fn(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  const ens_obj *p = ens_obj_parent(o);
  ens_value v;
  if (!p || strcmp(ens_obj_kind(p), "style") != 0 || ens_obj_get(o, "text", &v) || v.type != ENS_STR) return 0;
  if (strcmp(ens_obj_kind(o), ENS_SVG_TEXT) != 0 && strcmp(ens_obj_kind(o), ENS_SVG_CDATA) != 0) return 0;
  if (!s_sheet_structural(v.u.s.ptr, v.u.s.len)) return 0;
  *(int *)user = 1;
  return 1;
}

static void s_file_edits(const char *path, s_stats *st) {
  s_file f = {path, NULL, 0, {0}, 0};
  char *text = tu_read_file(path, &f.n);
  f.text = text;
  ens_doc *doc = NULL;
  if (!text || ens_svg_read(text, f.n, &doc)) {
    free(text);
    return; /* the round-trip test reports what does not read */
  }
  s_pick pick = {NULL, NULL};
  ens_obj_walk(ens_doc_root(doc), s_pick_fn, &pick);
  int css = 0;
  ens_obj_walk(ens_doc_root(doc), s_css_fn, &css);
  st->css += css;
  if (!pick.target) goto done;
  f.rendered = f.n <= S_RENDER_MAX && ens_render_svg(text, f.n, s_size, &f.base) == 0;
  char e[ENS_SVG_ADDRESS_MAX], nx[ENS_SVG_ADDRESS_MAX], parent[ENS_SVG_ADDRESS_MAX];
  assert_int_equal(ens_svg_address(pick.target, e, sizeof e), 0);
  assert_ptr_equal(ens_svg_find(doc, e), pick.target);
  assert_int_equal(ens_svg_address(ens_obj_parent(pick.target), parent, sizeof parent), 0);
  const ens_obj *next = s_next_elem(pick.target);
  if (next) assert_int_equal(ens_svg_address(next, nx, sizeof nx), 0);
  /* objects are looked up by id after each edit: undoing a delete
     re-inserts the same id as a new object */
  const ens_id tid = ens_obj_id(pick.target), nid = next ? ens_obj_id(next) : ENS_ID_NONE;
  const ens_id gid = pick.group ? ens_obj_id(pick.group) : ENS_ID_NONE;
#define T ens_doc_get(doc, tid)
  size_t lo, hi, nlo = 0, nhi = 0;
  s_span(doc, T, text, f.n, &lo, &hi);
  if (next) s_span(doc, ens_doc_get(doc, nid), text, f.n, &nlo, &nhi);
  ens_txn *t = NULL;
  size_t n;

  /* attribute edits */
  assert_int_equal(ens_svg_set_attr(doc, e, "opacity", "0.5", &t), 0);
  ens_free(s_run(doc, &f, "set-attr", t, lo, hi, 0, st, NULL, 0));
  assert_int_equal(ens_svg_set_style(doc, e, "fill-opacity", "0.5", &t), 0);
  ens_free(s_run(doc, &f, "set-style", t, lo, hi, 0, st, NULL, 0));
  for (size_t i = 0; i < ens_obj_prop_count(T); i++) {
    const char *key;
    ens_value v;
    ens_obj_prop_at(T, i, &key, &v);
    if (key[0] == '~' || strncmp(key, "xmlns", 5) == 0 || strcmp(key, "id") == 0) continue;
    assert_int_equal(ens_svg_remove_attr(doc, e, key, &t), 0);
    ens_free(s_run(doc, &f, "remove-attr", t, lo, hi, 0, st, NULL, 0));
    break;
  }
  /* transforms */
  assert_int_equal(ens_svg_translate(doc, e, 0, 0, &t), 0);
  ens_free(s_run(doc, &f, "translate 0", t, lo, hi, 1, st, NULL, 0));
  assert_int_equal(ens_svg_rotate(doc, e, 30, 5, 5, &t), 0);
  ens_free(s_run(doc, &f, "rotate", t, lo, hi, 0, st, NULL, 0));
  assert_int_equal(ens_svg_scale(doc, e, 2, 2, 0, 0, &t), 0);
  ens_free(s_run(doc, &f, "scale", t, lo, hi, 0, st, NULL, 0));
  int visible = 0;
  if (f.rendered) {
    /* the element shows when the picture without it differs */
    ens_txn *del = ens_txn_new("probe", NULL), *inv = NULL;
    ens_txn_delete(del, ens_obj_id(T));
    assert_int_equal(ens_doc_apply(doc, del, ENS_ORIGIN_LOCAL, &inv), 0);
    char *w = s_write(doc, &n);
    ens_image img;
    visible = ens_render_svg(w, n, s_size, &img) == 0 && ens_image_diff_count(&f.base, &img) != 0;
    if (img.pixels) ens_image_free(&img);
    ens_free(w);
    assert_int_equal(ens_doc_apply(doc, inv, ENS_ORIGIN_UNDO, NULL), 0);
    ens_txn_free(del);
    ens_txn_free(inv);
    if (!visible) st->hidden++;
  }
  assert_int_equal(ens_svg_translate(doc, e, 10, 10, &t), 0);
  ens_free(s_run(doc, &f, "translate 10", t, lo, hi, visible ? -1 : 0, st, NULL, 0));

  /* z-order and grouping, with the next element */
  if (next) {
    size_t a = lo < nlo ? lo : nlo, b = hi > nhi ? hi : nhi;
    assert_int_equal(ens_svg_raise(doc, e, &t), 0);
    ens_free(s_run(doc, &f, "raise", t, a, b, 0, st, NULL, 0));
    assert_int_equal(ens_svg_lower(doc, nx, &t), 0);
    ens_free(s_run(doc, &f, "lower", t, a, b, 0, st, NULL, 0));
    const char *both[2] = {e, nx};
    if (s_built(ens_svg_group(doc, both, 2, NULL, &t), path, "group", st))
      ens_free(s_run(doc, &f, "group", t, a, b, css ? 0 : 1, st, NULL, 0));
  }
  if (pick.group) {
    char g[ENS_SVG_ADDRESS_MAX];
    size_t glo, ghi;
    assert_int_equal(ens_svg_address(ens_doc_get(doc, gid), g, sizeof g), 0);
    s_span(doc, ens_doc_get(doc, gid), text, f.n, &glo, &ghi);
    if (s_built(ens_svg_ungroup(doc, g, &t), path, "ungroup", st))
      ens_free(s_run(doc, &f, "ungroup", t, glo, ghi, css ? 0 : 1, st, NULL, 0));
  }

  /* duplicate, then delete the copy: the input's bytes again */
  assert_int_equal(ens_svg_duplicate(doc, e, &t), 0);
  char *dup = s_run(doc, &f, "duplicate", t, lo, hi, 0, st, &n, 1);
  const ens_obj *copy = s_next_elem(T);
  char c[ENS_SVG_ADDRESS_MAX];
  assert_int_equal(ens_svg_address(copy, c, sizeof c), 0);
  assert_int_equal(ens_svg_delete(doc, c, &t), 0);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  size_t m;
  char *back = s_write(doc, &m);
  if (m != f.n || memcmp(back, text, m) != 0) fail_msg("%s: duplicate then delete of the copy changed the file", path);
  st->dup_bytes++;
  ens_free(back);
  ens_free(dup);
  /* delete and insert */
  assert_int_equal(ens_svg_delete(doc, e, &t), 0);
  ens_free(s_run(doc, &f, "delete", t, lo, hi, 0, st, NULL, 0));
  long index = 0;
  for (size_t i = 0; i < ens_obj_index(T); i++)
    index += ens_obj_kind(ens_obj_child(ens_obj_parent(T), i))[0] != '#';
  const char *frag = "<rect width=\"3\" height=\"3\" fill=\"#123456\"/>";
  assert_int_equal(ens_svg_insert(doc, parent, index, frag, strlen(frag), &t), 0);
  ens_free(s_run(doc, &f, "insert", t, lo, hi, 0, st, NULL, 0));
#undef T
done:
  if (f.rendered) ens_image_free(&f.base);
  ens_doc_free(doc);
  free(text);
}

static void s_header(void) {
  printf("%-46s %5s %6s %7s %6s %7s %6s %8s\n", "set", "files", "edits", "renders", "same", "moved", "hidden",
         "refused");
}

/* take files evenly spread over the set's sorted list (all for 0);
 * returns how many edits were made. */
static size_t s_set_edits(const char *dir, const char *name, size_t take) {
  struct {
    char **v;
    size_t n;
  } l;
  l.v = tu_list_files(dir, ".svg", &l.n);
  if (!l.n) {
    printf("%-46s (absent)\n", name);
    return 0;
  }
  s_stats st;
  memset(&st, 0, sizeof st);
  if (!take || take > l.n) take = l.n;
  size_t files = 0;
  clock_t t0 = clock();
  for (size_t i = 0; i < take; i++) {
    s_file_edits(l.v[i * l.n / take], &st);
    files++;
  }
  printf("%-46s %5zu %6zu %7zu %6zu %7zu %6zu %8zu  %.1f s\n", name, files, st.edits, st.renders, st.same_picture,
         st.moved, st.hidden, st.refused, (double)(clock() - t0) / CLOCKS_PER_SEC);
  if (st.refused) printf("    first refusal: %s\n", st.first_refusal);
  if (st.css)
    printf("    %zu with a style sheet whose selectors depend on structure: group and ungroup pictures not compared\n",
           st.css);
  tu_files_free(l.v, l.n);
  return st.edits;
}

static void test_bundled_edits(void **state) {
  (void)state;
  static const char *const sets[] = {"resvg", "adwaita", "mdi"};
  s_header();
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    char dir[4096], name[64];
    snprintf(dir, sizeof dir, "%s/drawings/%s", tu_resources_dir(), sets[k]);
    snprintf(name, sizeof name, "bundled/%s", sets[k]);
    /* a missing bundle is a failure, not an empty pass */
    assert_true(s_set_edits(dir, name, 0) > 0);
  }
}

static void test_corpus_edits(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): edits of its drawings");
  s_header();
  size_t edits = 0;
  for (size_t k = 0; k < sizeof s_sets / sizeof *s_sets; k++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/svg/%s", corpus, s_sets[k].dir);
    edits += s_set_edits(dir, s_sets[k].dir, s_sets[k].take);
  }
  if (!edits) TU_SKIP("the corpus at %s has no SVG set", corpus);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bundled_edits), cmocka_unit_test(test_corpus_edits)};
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
