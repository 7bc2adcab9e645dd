/* The visual diff on real histories: consecutive Inkscape revisions of one
 * drawing and FontForge revisions of one font. For every pair the page is
 * produced and the overlay marks exactly the objects that changed: the
 * elements (glyphs) carrying a change class are counted in the composite
 * and compared with what this test reads itself from the model's diff
 * transaction, by the rules of docs/vcs.md ("Visual diff"); the ids of the
 * marked elements are compared too. PNGs are rendered for the fonts and
 * one drawing pair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <cairo.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>

#include "ensemble.h"
#include "testutil.h"

static double s_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* --- what the diff's transaction says changed (this test's own reading) ------------- */

typedef struct {
  ens_id *ids;
  int *mark; /* 1 added, 2 removed, 3 changed */
  size_t n, cap;
} s_set;

static void s_put(s_set *s, ens_id id, int mark) {
  for (size_t i = 0; i < s->n; i++)
    if (s->ids[i] == id) {
      if (mark != 3) s->mark[i] = mark; /* added and removed win over changed */
      return;
    }
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->ids = realloc(s->ids, s->cap * sizeof *s->ids);
    s->mark = realloc(s->mark, s->cap * sizeof *s->mark);
    assert_non_null(s->ids);
    assert_non_null(s->mark);
  }
  s->ids[s->n] = id;
  s->mark[s->n++] = mark;
}

static int s_is(const ens_obj *o, const char *kind) { return o && strcmp(ens_obj_kind(o), kind) == 0; }

/* Rendered elements of the drawing: inside the root element, not an
 * editor's (a prefix other than svg:) nor metadata, title, desc. */
static int s_drawn(const ens_obj *o) {
  if (!o || ens_obj_kind(o)[0] == '#') return 0;
  for (; ens_obj_parent(o) && ens_obj_parent(ens_obj_parent(o)); o = ens_obj_parent(o)) {
    const char *k = ens_obj_kind(o);
    if (strncmp(k, "svg:", 4) == 0) k += 4;
    if (strchr(k, ':') || !strcmp(k, "metadata") || !strcmp(k, "title") || !strcmp(k, "desc")) return 0;
  }
  return ens_obj_parent(o) != NULL;
}

static int s_blank_text(const ens_obj *o) {
  ens_value v;
  if (!o || ens_obj_get(o, "text", &v) != 0 || v.type != ENS_STR) return 1;
  for (size_t i = 0; i < v.u.s.len; i++)
    if (!strchr(" \t\r\n", v.u.s.ptr[i])) return 0;
  return 1;
}

static int s_textnode(const ens_obj *o) { return s_is(o, "#text") || s_is(o, "#cdata"); }

static void s_expect_svg(const ens_doc *old_doc, const ens_doc *cur, const ens_txn *t, s_set *out) {
  for (size_t i = 0; i < ens_txn_op_count(t); i++) {
    ens_id id = ens_txn_op_target(t, i);
    ens_op_kind k = ens_txn_op_kind(t, i);
    const ens_obj *o = ens_doc_get(k == ENS_OP_DELETE ? old_doc : cur, id);
    if (!o) continue;
    if (s_textnode(o)) {
      const ens_obj *before = ens_doc_get(old_doc, id);
      if (s_blank_text(o) && (k != ENS_OP_SET || s_blank_text(before))) continue;
      const ens_obj *p = ens_obj_parent(o);
      if (s_drawn(p) && ens_doc_get(cur, ens_obj_id(p))) s_put(out, ens_obj_id(p), 3);
      continue;
    }
    if (!s_drawn(o)) continue;
    if (k == ENS_OP_SET) {
      const char *key;
      ens_value v;
      ens_txn_op_set(t, i, &key, &v);
      if (strchr("~&@", key[0]) || !strncmp(key, "inkscape:", 9) || !strncmp(key, "sodipodi:", 9) ||
          !strcmp(key, "xmlns") || !strncmp(key, "xmlns:", 6))
        continue;
    }
    s_put(out, id, k == ENS_OP_INSERT ? 1 : k == ENS_OP_DELETE ? 2 : 3);
  }
}

static const ens_obj *s_glyph_of(const ens_obj *o) {
  while (o && !s_is(o, "glyph")) o = ens_obj_parent(o);
  return o;
}

static void s_expect_font(const ens_doc *old_doc, const ens_doc *cur, const ens_txn *t, s_set *out) {
  for (size_t i = 0; i < ens_txn_op_count(t); i++) {
    ens_id id = ens_txn_op_target(t, i);
    ens_op_kind k = ens_txn_op_kind(t, i);
    const ens_obj *o = ens_doc_get(k == ENS_OP_DELETE ? old_doc : cur, id), *g = s_glyph_of(o);
    if (!g) continue;
    if (k == ENS_OP_SET) {
      const char *key;
      ens_value v, was;
      ens_txn_op_set(t, i, &key, &v);
      if (key[0] == '~' || key[0] == '@') continue;
      if (s_is(o, "ref") && !strcmp(key, "selected")) continue;
      if (g == o && !strcmp(key, "flags") && v.type == ENS_STR &&
          ens_obj_get(ens_doc_get(old_doc, id), key, &was) == 0 && was.type == ENS_STR) {
        char x[64] = "", y[64] = "";
        size_t nx = 0, ny = 0;
        for (size_t q = 0; q < v.u.s.len && nx < 63; q++)
          if (v.u.s.ptr[q] != 'O' && v.u.s.ptr[q] != ' ') x[nx++] = v.u.s.ptr[q];
        for (size_t q = 0; q < was.u.s.len && ny < 63; q++)
          if (was.u.s.ptr[q] != 'O' && was.u.s.ptr[q] != ' ') y[ny++] = was.u.s.ptr[q];
        x[nx] = y[ny] = 0;
        if (!strcmp(x, y)) continue;
      }
      if (s_is(o, "point") && !strcmp(key, "flags") && ens_obj_get(ens_doc_get(old_doc, id), key, &was) == 0 &&
          ((was.u.i ^ v.u.i) & ~(int64_t)4) == 0)
        continue;
    }
    s_put(out, ens_obj_id(g), g == o && k == ENS_OP_INSERT ? 1 : g == o && k == ENS_OP_DELETE ? 2 : 3);
  }
}

/* --- what the composite marks ------------------------------------------------------ */

static int s_count(xmlXPathContextPtr ctx, const char *xp) {
  xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)xp, ctx);
  assert_non_null(o);
  int n = o->nodesetval ? o->nodesetval->nodeNr : 0;
  xmlXPathFreeObject(o);
  return n;
}

#define CLS(c) "contains(concat(' ',@class,' '),' " c " ')"

static int s_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The ids (prefix taken off) of the composite's elements with class cls,
 * sorted and joined by spaces. */
static char *s_marked_ids(xmlXPathContextPtr ctx, const char *cls, const char *prefix) {
  char xp[160];
  snprintf(xp, sizeof xp, "//*[contains(concat(' ',@class,' '),' %s ') and @id]/@id", cls);
  xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)xp, ctx);
  assert_non_null(o);
  int n = o->nodesetval ? o->nodesetval->nodeNr : 0;
  char **v = calloc((size_t)n + 1, sizeof *v);
  size_t total = 1;
  for (int i = 0; i < n; i++) {
    char *s = (char *)xmlNodeGetContent(o->nodesetval->nodeTab[i]);
    size_t pl = strlen(prefix);
    v[i] = strdup(pl && !strncmp(s, prefix, pl) ? s + pl : s);
    total += strlen(v[i]) + 1;
    xmlFree(s);
  }
  xmlXPathFreeObject(o);
  qsort(v, (size_t)n, sizeof *v, s_cmp_str);
  char *out = calloc(1, total);
  for (int i = 0; i < n; i++) {
    if (i) strcat(out, " ");
    strcat(out, v[i]);
    free(v[i]);
  }
  free(v);
  return out;
}

/* The same from the expected set: ids of the objects marked m. */
static char *s_expected_ids(const ens_doc *old_doc, const ens_doc *cur, const s_set *e, int m) {
  char **v = calloc(e->n + 1, sizeof *v);
  size_t n = 0, total = 1;
  for (size_t i = 0; i < e->n; i++) {
    if (e->mark[i] != m) continue;
    const ens_obj *o = ens_doc_get(m == 2 ? old_doc : cur, e->ids[i]);
    ens_value idv;
    if (!o || ens_obj_get(o, "id", &idv) != 0 || idv.type != ENS_STR) continue;
    v[n] = strndup(idv.u.s.ptr, idv.u.s.len);
    total += strlen(v[n++]) + 1;
  }
  qsort(v, n, sizeof *v, s_cmp_str);
  char *out = calloc(1, total);
  for (size_t i = 0; i < n; i++) {
    if (i) strcat(out, " ");
    strcat(out, v[i]);
    free(v[i]);
  }
  free(v);
  return out;
}

/* Pixels of a PNG that are not transparent. */
typedef struct {
  const unsigned char *p;
  size_t n, at;
} s_png_src;

static cairo_status_t s_png_read(void *closure, unsigned char *data, unsigned int len) {
  s_png_src *s = closure;
  if (s->at + len > s->n) return CAIRO_STATUS_READ_ERROR;
  memcpy(data, s->p + s->at, len);
  s->at += len;
  return CAIRO_STATUS_SUCCESS;
}

static long s_painted(const unsigned char *png, size_t n, int *w, int *h) {
  s_png_src src = {png, n, 0};
  cairo_surface_t *s = cairo_image_surface_create_from_png_stream(s_png_read, &src);
  assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
  *w = cairo_image_surface_get_width(s);
  *h = cairo_image_surface_get_height(s);
  int stride = cairo_image_surface_get_stride(s);
  const unsigned char *d = cairo_image_surface_get_data(s);
  long painted = 0;
  for (int y = 0; y < *h; y++)
    for (int x = 0; x < *w; x++)
      if (((const uint32_t *)(d + (size_t)y * (size_t)stride))[x] >> 24) painted++;
  cairo_surface_destroy(s);
  return painted;
}

static void s_pair(const char *old_path, const char *new_path, int font, int png) {
  ens_doc *a, *b;
  double t0 = s_now();
  assert_int_equal(font ? ens_sfd_read_path(old_path, &a) : ens_svg_read_path(old_path, &a), 0);
  assert_int_equal(font ? ens_sfd_read_path(new_path, &b) : ens_svg_read_path(new_path, &b), 0);
  double t1 = s_now();
  ens_visdiff *vd;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  char *svg, *html;
  size_t svg_len, html_len;
  assert_int_equal(ens_visdiff_svg(vd, &svg, &svg_len), 0);
  double t2 = s_now();
  assert_int_equal(ens_visdiff_html(vd, NULL, &html, &html_len), 0);
  assert_true(html_len > svg_len);
  assert_non_null(strstr(html, "id=\"slider\""));

  /* the test's own reading of the model's diff */
  unsigned char *snap;
  size_t snap_len;
  ens_doc *cur;
  ens_txn *t;
  assert_int_equal(ens_snapshot_encode(a, &snap, &snap_len), 0);
  assert_int_equal(ens_snapshot_decode(snap, snap_len, &cur), 0);
  ens_free(snap);
  assert_int_equal(ens_doc_diff(cur, b, font ? ens_sfd_identity : ens_svg_identity, NULL, &t), 0);
  assert_int_equal(ens_doc_apply(cur, t, ENS_ORIGIN_LOCAL, NULL), 0);
  assert_int_equal(ens_doc_content_hash(cur), ens_doc_content_hash(b));
  s_set e = {0};
  if (font)
    s_expect_font(a, cur, t, &e);
  else
    s_expect_svg(a, cur, t, &e);
  int want[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < e.n; i++) want[e.mark[i]]++;

  xmlDocPtr x = xmlReadMemory(svg, (int)svg_len, NULL, NULL, XML_PARSE_NONET);
  assert_non_null(x);
  xmlXPathContextPtr ctx = xmlXPathNewContext(x);
  const char *cell = font ? " and " CLS("ens-glyph") : "";
  char xp[200];
  int got[4];
  static const char *const cls[4] = {"", "ens-added", "ens-removed", "ens-changed"};
  for (int m = 1; m <= 3; m++) {
    snprintf(xp, sizeof xp, "//*[contains(concat(' ',@class,' '),' %s ')%s]", cls[m], cell);
    got[m] = s_count(ctx, xp);
  }
  const char *base = strrchr(new_path, '/');
  printf("%-44s ops %5zu  expected +%d -%d ~%d  marked +%d -%d ~%d  diff %.2f s\n", base ? base + 1 : new_path,
         ens_txn_op_count(t), want[1], want[2], want[3], got[1], got[2], got[3], t2 - t1);
  (void)t0;
  for (int m = 1; m <= 3; m++) assert_int_equal(got[m], want[m]);
  assert_int_equal(ens_visdiff_count(vd), (size_t)(want[1] + want[2] + want[3]));
  if (!font) {
    for (int m = 1; m <= 3; m++) {
      char *g = s_marked_ids(ctx, cls[m], m == 2 ? "ensold-" : "");
      char *w = s_expected_ids(a, cur, &e, m);
      if (strcmp(g, w) != 0) printf("%s: marked [%s]\n  expected [%s]\n", cls[m], g, w);
      assert_string_equal(g, w);
      free(g);
      free(w);
    }
  }
  if (png) {
    unsigned char *p;
    size_t pn;
    /* fonts at their own size; a drawing at 800 pixels wide: librsvg
     * takes tens of seconds on these drawings' blurs at their own size */
    ens_render_size size = {font ? 0 : 800, 0, 400000};
    double r0 = s_now();
    assert_int_equal(ens_visdiff_png(vd, size, &p, &pn), 0);
    int w, h;
    long painted = s_painted(p, pn, &w, &h);
    printf("  png %d x %d, %ld pixels painted, %.1f s\n", w, h, painted, s_now() - r0);
    assert_true(painted > (long)w * h / 20);
    ens_free(p);
  }
  xmlXPathFreeContext(ctx);
  xmlFreeDoc(x);
  free(e.ids);
  free(e.mark);
  ens_txn_free(t);
  ens_doc_free(cur);
  ens_free(svg);
  ens_free(html);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_drawing_history(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) {
    TU_SKIP("no corpus (ENSEMBLE_CORPUS)");
    return;
  }
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/svg/history/adwaita-faces", corpus);
  size_t n;
  char **files = tu_list_files(dir, ".svg", &n);
  if (n < 2) {
    tu_files_free(files, n);
    TU_SKIP("no drawing history in %s", dir);
    return;
  }
  for (size_t i = 0; i + 1 < n; i++) s_pair(files[i], files[i + 1], 0, strstr(files[i + 1], "08_") != NULL);
  tu_files_free(files, n);
}

static void test_font_history(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) {
    TU_SKIP("no corpus (ENSEMBLE_CORPUS)");
    return;
  }
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/sfd/dejavu-history", corpus);
  size_t n;
  char **files = tu_list_files(dir, ".sfd", &n);
  if (n < 2) {
    tu_files_free(files, n);
    TU_SKIP("no font history in %s", dir);
    return;
  }
  /* the revisions in the order of history, as the file names do not sort so */
  static const char *const order[] = {"358190f", "9a517dc", "ae12ffe"};
  char paths[3][1100];
  size_t found = 0;
  for (size_t k = 0; k < 3; k++)
    for (size_t i = 0; i < n; i++)
      if (strstr(files[i], order[k])) snprintf(paths[found++], sizeof paths[0], "%s", files[i]);
  for (size_t k = 0; k + 1 < found; k++) s_pair(paths[k], paths[k + 1], 1, 1);
  tu_files_free(files, n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_drawing_history),
      cmocka_unit_test(test_font_history),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
