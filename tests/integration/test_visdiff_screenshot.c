/* The visual diff's page as a person sees it: headless Chromium takes a
 * screenshot of the HTML page (its overlay view) and of the plain new
 * drawing. The overlay's is not blank, differs from the plain drawing's,
 * and shows the colours of the marks the diff made. On a bundled drawing
 * edited here (always) and on a real pair of revisions of the corpus.
 * Skipped when Chromium is not installed (Debian's `chromium`; or
 * $ENS_CHROMIUM). Each browser run is bounded by `timeout`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <cairo.h>

#include "ensemble.h"
#include "testutil.h"

#define S_WIDTH 1400
#define S_HEIGHT 1000
#define S_SECONDS 150

static const char *s_chromium(void) {
  const char *env = getenv("ENS_CHROMIUM");
  if (env && *env) return access(env, X_OK) == 0 ? env : NULL;
  static const char *const where[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"};
  for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
    if (access(where[i], X_OK) == 0) return where[i];
  return NULL;
}

static char s_dir[256];

static void s_write(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

/* A screenshot of url into png; the browser's own profile lives in the
 * test's directory and is thrown away with it. */
static void s_shot(const char *url, const char *png) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "timeout -k 5 %d '%s' --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "
           "--disable-extensions --user-data-dir='%s/profile' --window-size=%d,%d --screenshot='%s' '%s' "
           ">'%s/chromium.log' 2>&1",
           S_SECONDS, s_chromium(), s_dir, S_WIDTH, S_HEIGHT, png, url, s_dir);
  int rc = system(cmd);
  if (rc != 0 || access(png, R_OK) != 0) {
    snprintf(cmd, sizeof cmd, "tail -5 '%s/chromium.log'", s_dir);
    (void)system(cmd);
  }
  assert_int_equal(rc, 0);
  assert_int_equal(access(png, R_OK), 0);
}

typedef struct {
  cairo_surface_t *s;
  int w, h, stride;
  const unsigned char *d;
} s_img;

static void s_load(const char *path, s_img *im) {
  im->s = cairo_image_surface_create_from_png(path);
  assert_int_equal(cairo_surface_status(im->s), CAIRO_STATUS_SUCCESS);
  im->w = cairo_image_surface_get_width(im->s);
  im->h = cairo_image_surface_get_height(im->s);
  im->stride = cairo_image_surface_get_stride(im->s);
  im->d = cairo_image_surface_get_data(im->s);
}

static uint32_t s_px(const s_img *im, int x, int y) {
  return ((const uint32_t *)(im->d + (size_t)y * (size_t)im->stride))[x] & 0xffffffu;
}

/* Pixels within a small distance of colour rgb, in the part of the image
 * left of x1 and below y0 (the page's overlay, not its list). */
static long s_near(const s_img *im, uint32_t rgb, int tol, int x1, int y0) {
  long n = 0;
  for (int y = y0; y < im->h; y++)
    for (int x = 0; x < im->w && x < x1; x++) {
      uint32_t p = s_px(im, x, y);
      int dr = (int)((p >> 16) & 255) - (int)((rgb >> 16) & 255), dg = (int)((p >> 8) & 255) - (int)((rgb >> 8) & 255),
          db = (int)(p & 255) - (int)(rgb & 255);
      if (abs(dr) <= tol && abs(dg) <= tol && abs(db) <= tol) n++;
    }
  return n;
}

/* Pixels that differ from the most common colour of the image (its
 * background). */
static long s_not_background(const s_img *im) {
  uint32_t bg = s_px(im, 0, 0);
  long n = 0;
  for (int y = 0; y < im->h; y++)
    for (int x = 0; x < im->w; x++)
      if (s_px(im, x, y) != bg) n++;
  return n;
}

static void s_check(const char *name, ens_doc *a, ens_doc *b) {
  ens_visdiff *vd;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  size_t counts[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < ens_visdiff_count(vd); i++) {
    ens_visdiff_item it;
    assert_int_equal(ens_visdiff_item_at(vd, i, &it), 0);
    counts[it.mark]++;
  }
  char *html;
  size_t html_len;
  assert_int_equal(ens_visdiff_html(vd, name, &html, &html_len), 0);
  unsigned char *plain;
  size_t plain_len;
  assert_int_equal(ens_svg_write(b, &plain, &plain_len), 0);
  char html_path[512], svg_path[512], shot_html[512], shot_svg[512], url[600];
  snprintf(html_path, sizeof html_path, "%s/%s.html", s_dir, name);
  snprintf(svg_path, sizeof svg_path, "%s/%s-new.svg", s_dir, name);
  snprintf(shot_html, sizeof shot_html, "%s/%s-overlay.png", s_dir, name);
  snprintf(shot_svg, sizeof shot_svg, "%s/%s-plain.png", s_dir, name);
  s_write(html_path, html, html_len);
  s_write(svg_path, plain, plain_len);
  snprintf(url, sizeof url, "file://%s", html_path);
  s_shot(url, shot_html);
  snprintf(url, sizeof url, "file://%s", svg_path);
  s_shot(url, shot_svg);
  s_img o, p;
  s_load(shot_html, &o);
  s_load(shot_svg, &p);
  assert_int_equal(o.w, S_WIDTH);
  assert_int_equal(p.w, S_WIDTH);
  long o_ink = s_not_background(&o), p_ink = s_not_background(&p), differ = 0;
  for (int y = 0; y < o.h && y < p.h; y++)
    for (int x = 0; x < o.w; x++)
      if (s_px(&o, x, y) != s_px(&p, x, y)) differ++;
  long total = (long)o.w * o.h;
  /* the marks' colours in the overlay (left of the list of changes, below
   * the header), against the whole plain drawing */
  int x1 = S_WIDTH - 340, y0 = 90;
  long green = s_near(&o, 0x009e73, 30, x1, y0), green_p = s_near(&p, 0x009e73, 30, S_WIDTH, 0);
  long blue = s_near(&o, 0x0072b2, 30, x1, y0), blue_p = s_near(&p, 0x0072b2, 30, S_WIDTH, 0);
  long red = s_near(&o, 0xd55e00, 30, x1, y0), red_p = s_near(&p, 0xd55e00, 30, S_WIDTH, 0);
  printf("%s: +%zu -%zu ~%zu; overlay %ld of %ld pixels drawn, plain %ld; %ld differ; "
         "mark colours in the overlay (plain drawing): green %ld (%ld), vermillion %ld (%ld), blue %ld (%ld)\n",
         name, counts[1], counts[2], counts[3], o_ink, total, p_ink, differ, green, green_p, red, red_p, blue, blue_p);
  assert_true(o_ink > total / 10);  /* not blank */
  assert_true(differ > total / 20); /* not the plain drawing */
  if (counts[ENS_VIS_ADDED]) assert_true(green > 50 && green > green_p);
  if (counts[ENS_VIS_CHANGED]) assert_true(blue > 50 && blue > blue_p);
  /* an orange drawing has vermillion of its own: the removed mark is
   * checked by its frame below */
  if (counts[ENS_VIS_REMOVED] && red_p < 1000) assert_true(red > 50);

  /* a click on a change (here through the page's #ens=N) frames its
   * object in magenta, which neither the drawing nor the page has otherwise */
  size_t pick = 0;
  for (size_t i = 0; i < ens_visdiff_count(vd); i++) {
    ens_visdiff_item it;
    ens_visdiff_item_at(vd, i, &it);
    if (it.mark == ENS_VIS_REMOVED) {
      pick = i;
      break;
    }
  }
  char shot_sel[512];
  snprintf(shot_sel, sizeof shot_sel, "%s/%s-selected.png", s_dir, name);
  snprintf(url, sizeof url, "file://%s#ens=%zu", html_path, pick);
  s_shot(url, shot_sel);
  s_img sel;
  s_load(shot_sel, &sel);
  long frame = s_near(&sel, 0xff00ff, 8, x1, y0), frame0 = s_near(&o, 0xff00ff, 8, x1, y0);
  printf("%s: change %zu selected: %ld magenta pixels (%ld before)\n", name, pick, frame, frame0);
  assert_true(frame > 60);
  assert_true(frame0 < 10);
  cairo_surface_destroy(sel.s);
  cairo_surface_destroy(o.s);
  cairo_surface_destroy(p.s);
  ens_free(plain);
  ens_free(html);
  ens_visdiff_free(vd);
}

static void s_apply(ens_doc *d, int rc, ens_txn **t) {
  if (rc) fprintf(stderr, "edit: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  assert_int_equal(ens_doc_apply(d, *t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(*t);
}

static int s_first_path(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  if (strcmp(ens_obj_kind(o), "path") != 0) return 0;
  *(const ens_obj **)user = o;
  return 1;
}

static void test_bundled_drawing_edited(void **state) {
  (void)state;
  if (!s_chromium()) {
    TU_SKIP("Chromium is not installed (Debian package chromium, or ENS_CHROMIUM)");
    return;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/drawings/adwaita/go-home-symbolic.svg", tu_resources_dir());
  ens_doc *a, *b;
  assert_int_equal(ens_svg_read_path(path, &a), 0);
  assert_int_equal(ens_svg_read_path(path, &b), 0);
  const ens_obj *p = NULL;
  assert_int_equal(ens_obj_walk(ens_doc_root(b), s_first_path, &p), 1);
  ens_txn *t;
  char addr[ENS_SVG_ADDRESS_MAX];
  assert_int_equal(ens_svg_address(p, addr, sizeof addr), 0);
  s_apply(b, ens_svg_set_attr(b, addr, "transform", "translate(3,0)", &t), &t);
  const char *dot = "<circle id='added-dot' cx='4' cy='4' r='3' fill='#888'/>";
  s_apply(b, ens_svg_insert(b, "/svg", -1, dot, strlen(dot), &t), &t);
  s_check("bundled", a, b);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_corpus_revisions(void **state) {
  (void)state;
  if (!s_chromium()) {
    TU_SKIP("Chromium is not installed (Debian package chromium, or ENS_CHROMIUM)");
    return;
  }
  const char *corpus = tu_corpus_dir();
  if (!corpus) {
    TU_SKIP("no corpus (ENSEMBLE_CORPUS)");
    return;
  }
  char pa[1024], pb[1024];
  snprintf(pa, sizeof pa, "%s/svg/history/adwaita-faces/04_3503542.svg", corpus);
  snprintf(pb, sizeof pb, "%s/svg/history/adwaita-faces/05_7aa2400.svg", corpus);
  ens_doc *a, *b;
  if (ens_svg_read_path(pa, &a) != 0) {
    TU_SKIP("%s: %s", pa, ens_error_last());
    return;
  }
  assert_int_equal(ens_svg_read_path(pb, &b), 0);
  s_check("adwaita-faces-04-05", a, b);
  ens_doc_free(a);
  ens_doc_free(b);
}

static int s_setup(void **state) {
  (void)state;
  snprintf(s_dir, sizeof s_dir, "/tmp/ens-visdiff-shot.XXXXXX");
  return mkdtemp(s_dir) ? 0 : -1;
}

static int s_teardown(void **state) {
  (void)state;
  char cmd[300];
  if (!getenv("ENS_KEEP")) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
    (void)system(cmd);
  } else {
    printf("kept %s\n", s_dir);
  }
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bundled_drawing_edited),
      cmocka_unit_test(test_corpus_revisions),
  };
  return tu_exit(cmocka_run_group_tests(tests, s_setup, s_teardown), sizeof tests / sizeof tests[0]);
}
