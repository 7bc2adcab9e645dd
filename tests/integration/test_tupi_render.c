/* Tupi projects imported to Lottie and drawn by rlottie (linked to this
 * test only): every project loads, its frame count is the import's, and
 * frames are drawn (pixels other than the canvas colour), moving where the
 * tweens say. Bad projects get an error code and a message, never a
 * crash. The bundled samples always; the corpus's project when it is
 * there (skipped otherwise). What the import maps is checked value by
 * value against the Tupi source in tupi_import.sh. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <rlottie_capi.h>
#include <zip.h>

#include "ensemble.h"
#include "testutil.h"

typedef struct {
  Lottie_Animation *anim;
  size_t w, h, frames;
  uint32_t *px;
} s_render;

static void s_load(const char *path, ens_tupi_result **r, s_render *out) {
  int rc = ens_tupi_import_path(path, r);
  if (rc != 0) fail_msg("%s: %s", path, ens_error_last());
  size_t len;
  const char *json = ens_tupi_result_json(*r, &len);
  assert_non_null(json);
  assert_int_equal(strlen(json), len);
  out->anim = lottie_animation_from_data(json, path, "");
  if (!out->anim) fail_msg("%s: rlottie does not load the import", path);
  lottie_animation_get_size(out->anim, &out->w, &out->h);
  out->frames = lottie_animation_get_totalframe(out->anim);
  out->px = malloc(out->w * out->h * 4);
  assert_non_null(out->px);
}

static void s_free(s_render *r) {
  if (r->anim) lottie_animation_destroy(r->anim);
  free(r->px);
}

/* Pixels of frame f not of colour bg (ARGB, opaque). */
static size_t s_drawn(s_render *r, size_t f, uint32_t bg) {
  lottie_animation_render(r->anim, f, r->px, r->w, r->h, r->w * 4);
  size_t n = 0;
  for (size_t i = 0; i < r->w * r->h; i++) n += r->px[i] != bg;
  return n;
}

static uint32_t s_at(s_render *r, size_t x, size_t y) { return r->px[y * r->w + x]; }

/* The image's magenta, give or take rlottie's resampling. */
static int s_magenta(uint32_t p) {
  return (p >> 16 & 0xff) > 0xf0 && (p >> 8 & 0xff) < 0x10 && (p & 0xff) > 0xf0;
}

static void s_corpus(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  char path[4096];
  if (!corpus) TU_SKIP("the corpus is not here");
  snprintf(path, sizeof path, "%s/tupi/example.tup", corpus);
  if (access(path, R_OK) != 0) TU_SKIP("%s is not here", path);
  ens_tupi_result *res = NULL;
  s_render r = {0};
  s_load(path, &res, &r);
  assert_int_equal(r.w, 520);
  assert_int_equal(r.h, 380);
  assert_int_equal(r.frames, 89); /* the longest layer's 89 frames */
  size_t prev = 0, changed = 0;
  for (size_t f = 0; f < r.frames; f += 11) {
    size_t n = s_drawn(&r, f, 0xffdcfffa); /* the project's #dcfffa */
    printf("example.tup frame %zu: %zu pixels drawn\n", f, n);
    assert_true(n > 1000); /* the static landscape at least */
    changed += n != prev;
    prev = n;
  }
  assert_true(changed > 2); /* the layer's frames differ */
  /* the sound, the storyboard and the library SVG are listed */
  size_t notes = ens_tupi_result_note_count(res);
  int sound = 0, svg = 0;
  for (size_t i = 0; i < notes; i++) {
    const char *what, *where;
    size_t count;
    assert_int_equal(ens_tupi_result_note(res, i, &what, &where, &count), 0);
    sound += strstr(what, "sound") != NULL;
    svg += strstr(what, "SVG image") != NULL;
  }
  assert_int_equal(sound, 1);
  assert_int_equal(svg, 1);
  s_free(&r);
  ens_tupi_result_free(res);
}

static void s_tweens(void **state) {
  (void)state;
  char path[4096];
  snprintf(path, sizeof path, "%s/tupi/tweens.tup", tu_resources_dir());
  ens_tupi_result *res = NULL;
  s_render r = {0};
  s_load(path, &res, &r);
  assert_int_equal(r.w, 200);
  assert_int_equal(r.frames, 11);
  const uint32_t white = 0xffffffff;
  /* the position tween: a 20x20 square at (20,30) in frame 0 moves 20
   * right and 5 down a frame */
  s_drawn(&r, 0, white);
  assert_int_not_equal(s_at(&r, 30, 45), white);
  assert_int_equal(s_at(&r, 130, 70), white);
  s_drawn(&r, 5, white);
  assert_int_equal(s_at(&r, 30, 45), white);
  assert_int_not_equal(s_at(&r, 130, 70), white);
  /* the opacity tween (frame 5 on, 1 - 0.15 a step): the black disc at
   * (40,100) pales, times the layer's 0.8 */
  s_drawn(&r, 4, white);
  uint32_t a = s_at(&r, 40, 100);
  s_drawn(&r, 9, white);
  uint32_t b = s_at(&r, 40, 100);
  printf("disc: %08x at frame 4, %08x at frame 9\n", a, b);
  assert_true((a & 0xff) < (b & 0xff)); /* lighter */
  assert_true((b & 0xff) < 0xff);       /* still there */
  /* the colouring tween: the brush goes from blue to red */
  s_drawn(&r, 5, white);
  uint32_t c0 = s_at(&r, 165, 110);
  s_drawn(&r, 10, white);
  uint32_t c1 = s_at(&r, 165, 110);
  printf("coloured box: %08x at frame 5, %08x at frame 10\n", c0, c1);
  assert_true((c0 & 0xff) > ((c0 >> 16) & 0xff));
  assert_true((c1 & 0xff) < ((c1 >> 16) & 0xff));
  /* the library image (10x10 magenta PNG, embedded): at (160,10) scaled
   * twice in frames 1-3, at (170,20) unscaled in frame 4 */
  s_drawn(&r, 0, white);
  assert_true(s_magenta(s_at(&r, 165, 15)));
  assert_true(s_magenta(s_at(&r, 178, 28)));
  s_drawn(&r, 3, white);
  assert_false(s_magenta(s_at(&r, 165, 15)));
  assert_true(s_magenta(s_at(&r, 175, 25)));
  assert_false(s_magenta(s_at(&r, 182, 32)));
  /* the rotation tween turns the ellipse: its drawn width changes */
  size_t n1 = s_drawn(&r, 1, white), n3 = s_drawn(&r, 3, white);
  assert_true(n1 > 0 && n3 > 0);
  s_free(&r);
  /* the text item is listed, at its frame */
  int text = 0;
  for (size_t i = 0; i < ens_tupi_result_note_count(res); i++) {
    const char *what, *where;
    ens_tupi_result_note(res, i, &what, &where, NULL);
    if (strstr(what, "text item")) {
      text = 1;
      assert_non_null(strstr(where, "layer \"back\", frame 7"));
    }
  }
  assert_true(text);
  ens_tupi_result_free(res);
}

static void s_scenes(void **state) {
  (void)state;
  char path[4096];
  snprintf(path, sizeof path, "%s/tupi/scenes.tup", tu_resources_dir());
  ens_tupi_result *res = NULL;
  s_render r = {0};
  s_load(path, &res, &r);
  assert_int_equal(r.frames, 5); /* 2 frames, then the second scene's 3 */
  s_drawn(&r, 0, 0xffffffff);
  assert_int_equal(s_at(&r, 30, 30) & 0xffffff, 0xff0000);
  assert_int_equal(s_at(&r, 100, 75), 0xffffffff);
  s_drawn(&r, 3, 0xffffffff); /* the second scene, through its precomposition */
  assert_int_equal(s_at(&r, 30, 30), 0xffffffff);
  assert_int_equal(s_at(&r, 100, 75) & 0xffffff, 0x00ff00);
  s_free(&r);
  ens_tupi_result_free(res);
}

/* A zip of the given parts (name, text, ...; NULL ends), as bytes. */
static char *s_zip(size_t *len, ...) {
  char tmpl[] = "/tmp/test_tupi_XXXXXX";
  int fd = mkstemp(tmpl);
  assert_true(fd >= 0);
  close(fd);
  int err;
  zip_t *z = zip_open(tmpl, ZIP_TRUNCATE, &err);
  assert_non_null(z);
  va_list ap;
  va_start(ap, len);
  const char *name;
  while ((name = va_arg(ap, const char *)) != NULL) {
    const char *text = va_arg(ap, const char *);
    zip_source_t *s = zip_source_buffer(z, text, strlen(text), 0);
    assert_true(zip_file_add(z, name, s, ZIP_FL_OVERWRITE) >= 0);
  }
  va_end(ap);
  assert_int_equal(zip_close(z), 0);
  char *data = tu_read_file(tmpl, len);
  unlink(tmpl);
  assert_non_null(data);
  return data;
}

static void s_expect(const char *data, size_t len, int code, const char *msg) {
  ens_tupi_result *r = (ens_tupi_result *)1;
  int rc = ens_tupi_import(data, len, &r);
  if (rc != code) fail_msg("expected %s, got %s: %s", ens_error_name(code), ens_error_name(rc), ens_error_last());
  assert_null(r);
  if (!strstr(ens_error_last(), msg)) fail_msg("message \"%s\" lacks \"%s\"", ens_error_last(), msg);
}

static void s_bad(void **state) {
  (void)state;
  s_expect("PK\3\4 not really", 15, ENS_EDECODE, "not a zip file");
  s_expect("", 0, ENS_EDECODE, "not a zip file");
  size_t n;
  char *z = s_zip(&n, "a/scene0.tps", "<scene/>", NULL);
  s_expect(z, n, ENS_ENOTFOUND, "no project.tpp");
  free(z);
  const char *proj = "<Tupi><project name='p'><meta><dimension>100,100</dimension></meta></project></Tupi>";
  z = s_zip(&n, "a/project.tpp", proj, NULL);
  s_expect(z, n, ENS_ENOTFOUND, "no scene");
  free(z);
  z = s_zip(&n, "a/project.tpp", proj, "a/scene0.tps", "<scene>\n<layer>\n</scene>", NULL);
  s_expect(z, n, ENS_EDECODE, "scene0.tps: line 3");
  free(z);
  z = s_zip(&n, "a/project.tpp", "<Tupi", "a/scene0.tps", "<scene/>", NULL);
  s_expect(z, n, ENS_EDECODE, "project.tpp: line 1");
  free(z);
  z = s_zip(&n, "a/project.tpp", proj, "a/scene0.tps", "<layer/>", NULL);
  s_expect(z, n, ENS_EDECODE, "not <scene>");
  free(z);
  z = s_zip(&n, "a/project.tpp", proj, "a/scene0.tps",
            "<scene><layer><frame><object><path coords='M 0 0 L nan 1'/></object></frame></layer></scene>", NULL);
  s_expect(z, n, ENS_EDECODE, "the number nan is not finite");
  free(z);
  z = s_zip(&n, "a/project.tpp", proj, "a/scene0.tps",
            "<scene><layer><frame><object><path coords='M 0 0 L x 1'/></object></frame></layer></scene>", NULL);
  s_expect(z, n, ENS_EDECODE, "a number was expected");
  free(z);
  /* groups nested past the limit */
  size_t depth = ENS_TUPI_MAX_DEPTH + 2, cap = depth * 16 + 200;
  char *deep = malloc(cap), *p = deep;
  p += sprintf(p, "<scene><layer><frame><object>");
  for (size_t i = 0; i < depth; i++) p += sprintf(p, "<group>");
  for (size_t i = 0; i < depth; i++) p += sprintf(p, "</group>");
  sprintf(p, "</object></frame></layer></scene>");
  z = s_zip(&n, "a/project.tpp", proj, "a/scene0.tps", deep, NULL);
  s_expect(z, n, ENS_ELIMIT, "nested deeper");
  free(z);
  free(deep);
  /* a tween longer than the limit */
  z = s_zip(&n, "a/project.tpp", proj, "a/scene0.tps",
            "<scene><layer><frame><object><rect/><tweening type='1' frames='200000'/></object></frame></layer></scene>",
            NULL);
  s_expect(z, n, ENS_ELIMIT, "frames");
  free(z);
  ens_tupi_result *r = NULL;
  assert_int_equal(ens_tupi_import(NULL, 0, NULL), ENS_EINVAL);
  assert_int_equal(ens_tupi_import_path("/nonexistent/x.tup", &r), ENS_EIO);
  assert_null(r);
  ens_tupi_result_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(s_tweens),
      cmocka_unit_test(s_scenes),
      cmocka_unit_test(s_bad),
      cmocka_unit_test(s_corpus),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
