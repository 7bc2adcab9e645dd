/* Rendering SVG through librsvg (ensemble/render.h): pixels where the
 * drawing puts them, sizes, limits, nothing loaded from outside the
 * drawing, and a crash or a hang of librsvg turned into an error. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

static const char s_red_square[] =
    "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'>"
    "<rect x='0' y='0' width='20' height='20' fill='#ff0000'/></svg>";

static uint32_t s_px(const ens_image *img, int x, int y) {
  return ((const uint32_t *)(img->pixels + (size_t)y * img->stride))[x];
}

static void test_pixels_where_the_drawing_puts_them(void **state) {
  (void)state;
  ens_image img;
  ens_render_size size = {0, 0, 0};
  assert_int_equal(ens_render_svg(s_red_square, strlen(s_red_square), size, &img), 0);
  assert_int_equal(img.width, 40);
  assert_int_equal(img.height, 20);
  assert_int_equal(s_px(&img, 5, 5), 0xffff0000u); /* opaque red, ARGB */
  assert_int_equal(s_px(&img, 30, 5), 0u);         /* transparent */
  unsigned char *png;
  size_t n;
  assert_int_equal(ens_image_png(&img, &png, &n), 0);
  assert_true(n > 8 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
  ens_free(png);
  ens_image_free(&img);
}

static void test_one_side_follows_the_other(void **state) {
  (void)state;
  ens_image img;
  ens_render_size size = {400, 0, 0};
  assert_int_equal(ens_render_svg(s_red_square, strlen(s_red_square), size, &img), 0);
  assert_int_equal(img.width, 400);
  assert_int_equal(img.height, 200);
  assert_int_equal(s_px(&img, 150, 150), 0xffff0000u);
  ens_image_free(&img);
}

static void test_same_drawing_same_pixels_and_diff_counts(void **state) {
  (void)state;
  ens_image a, b, c;
  ens_render_size size = {0, 0, 0};
  const char *moved = "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'>"
                      "<rect x='1' y='0' width='20' height='20' fill='#ff0000'/></svg>";
  assert_int_equal(ens_render_svg(s_red_square, strlen(s_red_square), size, &a), 0);
  assert_int_equal(ens_render_svg(s_red_square, strlen(s_red_square), size, &b), 0);
  assert_int_equal(ens_render_svg(moved, strlen(moved), size, &c), 0);
  assert_int_equal(ens_image_diff_count(&a, &b), 0);
  assert_int_equal(ens_image_diff_count(&a, &c), 40); /* a column of 20 appears, one goes */
  ens_image_free(&a);
  ens_image_free(&b);
  ens_image_free(&c);
}

static void test_bad_input_and_limits(void **state) {
  (void)state;
  ens_image img;
  ens_render_size size = {0, 0, 0};
  assert_int_equal(ens_render_svg("<svg", 4, size, &img), ENS_EDECODE);
  assert_non_null(strstr(ens_error_last(), "does not render"));
  assert_null(img.pixels);
  ens_render_size huge = {100000, 10, 0};
  assert_int_equal(ens_render_svg(s_red_square, strlen(s_red_square), huge, &img), ENS_ELIMIT);
  ens_render_size neg = {-1, 0, 0};
  assert_int_equal(ens_render_svg(s_red_square, strlen(s_red_square), neg, &img), ENS_EINVAL);
  const char *vast = "<svg xmlns='http://www.w3.org/2000/svg' width='1e30' height='10'/>";
  assert_int_equal(ens_render_svg(vast, strlen(vast), size, &img), ENS_ELIMIT);
}

/* An image the drawing names by file is not loaded: the area stays clear. */
static void test_nothing_loaded_from_outside(void **state) {
  (void)state;
  char png_path[] = "/tmp/ens-render-XXXXXX";
  int fd = mkstemp(png_path);
  assert_true(fd >= 0);
  ens_image red;
  ens_render_size size = {0, 0, 0};
  assert_int_equal(ens_render_svg(s_red_square, strlen(s_red_square), size, &red), 0);
  unsigned char *png;
  size_t n;
  assert_int_equal(ens_image_png(&red, &png, &n), 0);
  assert_int_equal(write(fd, png, n), (ssize_t)n);
  close(fd);
  ens_free(png);
  ens_image_free(&red);
  char svg[1024];
  for (int form = 0; form < 2; form++) {
    snprintf(svg, sizeof svg,
             "<svg xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink' width='40' "
             "height='20'><image x='0' y='0' width='40' height='20' xlink:href='%s%s'/></svg>",
             form ? "file://" : "", png_path);
    ens_image img;
    assert_int_equal(ens_render_svg(svg, strlen(svg), size, &img), 0);
    assert_int_equal(s_px(&img, 5, 5), 0u);
    ens_image_free(&img);
  }
  unlink(png_path);
}

/* A drawing that takes far longer than its time limit. */
static void test_slow_drawing_is_stopped(void **state) {
  (void)state;
  const char *slow = "<svg xmlns='http://www.w3.org/2000/svg' width='4000' height='4000'>"
                     "<filter id='t'><feTurbulence baseFrequency='0.9' numOctaves='1000000'/></filter>"
                     "<rect width='4000' height='4000' filter='url(#t)'/></svg>";
  ens_image img;
  ens_render_size size = {0, 0, 300};
  assert_int_equal(ens_render_svg(slow, strlen(slow), size, &img), ENS_ELIMIT);
  assert_non_null(strstr(ens_error_last(), "longer than 300 ms"));
  assert_null(img.pixels);
}

/* librsvg aborts its process on these (a Rust panic); here, an error.
 * The two files are librsvg's own fuzz cases, bundled in tests/resources. */
static void test_renderer_crash_is_an_error(void **state) {
  (void)state;
  static const char *files[] = {
      "crash/bug1064-private-lang-tag-in-lang-selector.svg",
      "render-crash/bug928-empty-feTile-bounds.svg",
  };
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/drawings/librsvg-crash/%s", tu_resources_dir(), files[i]);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ens_image img;
    ens_render_size size = {0, 0, 0};
    int rc = ens_render_svg(buf, n, size, &img);
    printf("%s: %s\n", files[i], rc ? ens_error_last() : "rendered");
    assert_int_equal(rc, ENS_EDECODE);
    assert_non_null(strstr(ens_error_last(), "crashed"));
  }
}

/* Every .svg of dir renders or gives an error with a message, and this
 * process never goes down with it; returns how many files there were. */
static int s_crash_set(const char *dir, const char *name) {
  DIR *d = opendir(dir);
  if (!d) {
    printf("%s absent, skipped\n", name);
    return 0;
  }
  int rendered = 0, refused = 0, crashed = 0, slow = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    size_t nl = strlen(de->d_name);
    if (nl < 4 || strcmp(de->d_name + nl - 4, ".svg") != 0) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ens_image img;
    ens_render_size size = {0, 0, 5000};
    int rc = ens_render_svg(buf, n, size, &img);
    if (rc == 0) {
      assert_true(img.width > 0 && img.height > 0 && img.pixels);
      ens_image_free(&img);
      rendered++;
      continue;
    }
    assert_true(ens_error_last()[0] != '\0');
    refused++;
    crashed += strstr(ens_error_last(), "crashed") != NULL;
    slow += strstr(ens_error_last(), "longer than") != NULL;
  }
  closedir(d);
  printf("%s: %d rendered, %d errors (%d where librsvg crashed, %d stopped at 5 s)\n", name, rendered, refused, crashed,
         slow);
  return rendered + refused;
}

/* librsvg's own crash set (all of it) and one render-crash case, bundled. */
static void test_bundled_crash_files_render_or_give_an_error(void **state) {
  (void)state;
  static const char *sets[] = {"crash", "render-crash"};
  for (size_t s = 0; s < sizeof sets / sizeof *sets; s++) {
    char dir[4096], name[64];
    snprintf(dir, sizeof dir, "%s/drawings/librsvg-crash/%s", tu_resources_dir(), sets[s]);
    snprintf(name, sizeof name, "bundled %s", sets[s]);
    assert_true(s_crash_set(dir, name) > 0);
  }
}

/* librsvg's crash and render-crash sets as the corpus holds them. */
static void test_corpus_crash_sets_render_or_give_an_error(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): librsvg's crash sets");
  static const char *sets[] = {"svg/librsvg/rsvg/tests/fixtures/crash", "svg/librsvg/rsvg/tests/fixtures/render-crash"};
  int files = 0;
  for (size_t s = 0; s < sizeof sets / sizeof *sets; s++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", corpus, sets[s]);
    files += s_crash_set(dir, sets[s]);
  }
  if (!files) TU_SKIP("the corpus at %s has no librsvg crash set", corpus);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pixels_where_the_drawing_puts_them),
      cmocka_unit_test(test_one_side_follows_the_other),
      cmocka_unit_test(test_same_drawing_same_pixels_and_diff_counts),
      cmocka_unit_test(test_bad_input_and_limits),
      cmocka_unit_test(test_nothing_loaded_from_outside),
      cmocka_unit_test(test_slow_drawing_is_stopped),
      cmocka_unit_test(test_renderer_crash_is_an_error),
      cmocka_unit_test(test_bundled_crash_files_render_or_give_an_error),
      cmocka_unit_test(test_corpus_crash_sets_render_or_give_an_error),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
