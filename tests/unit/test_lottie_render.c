/* Rendering Lottie animations through rlottie (ensemble/render.h): pixels
 * where the keyframes put them, frame numbers as the file gives them, .tgs,
 * the animated PNG writer, every corpus animation at three frames, and
 * hostile files (huge, deeply nested, endless copies) ending in an error
 * within the time and memory limits while this process goes on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

/* A 20 x 20 blue square over a red solid layer, its position keyframed
 * linearly from (20, 50) at frame 0 to (80, 50) at frame 10. */
static const char s_square[] =
    "{\"v\":\"5.7.0\",\"nm\":\"moving square\",\"fr\":10,\"ip\":0,\"op\":11,\"w\":100,\"h\":100,\"layers\":["
    "{\"ty\":4,\"ind\":2,\"nm\":\"square\",\"ip\":0,\"op\":11,\"st\":0,\"ks\":{"
    "\"a\":{\"a\":0,\"k\":[0,0]},"
    "\"p\":{\"a\":1,\"k\":[{\"t\":0,\"s\":[20,50],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},"
    "{\"t\":10,\"s\":[80,50]}]},"
    "\"s\":{\"a\":0,\"k\":[100,100]},\"r\":{\"a\":0,\"k\":0},\"o\":{\"a\":0,\"k\":100}},"
    "\"shapes\":[{\"ty\":\"rc\",\"nm\":\"box\",\"p\":{\"a\":0,\"k\":[0,0]},\"s\":{\"a\":0,\"k\":[20,20]},"
    "\"r\":{\"a\":0,\"k\":0}},"
    "{\"ty\":\"fl\",\"nm\":\"blue\",\"c\":{\"a\":0,\"k\":[0,0,1,1]},\"o\":{\"a\":0,\"k\":100},\"r\":1}]},"
    "{\"ty\":1,\"ind\":1,\"nm\":\"background\",\"ip\":0,\"op\":11,\"st\":0,\"sc\":\"#ff0000\",\"sw\":100,"
    "\"sh\":100,\"ks\":{\"a\":{\"a\":0,\"k\":[0,0]},\"p\":{\"a\":0,\"k\":[0,0]},\"s\":{\"a\":0,\"k\":[100,100]},"
    "\"r\":{\"a\":0,\"k\":0},\"o\":{\"a\":0,\"k\":100}}}]}";

#define S_RED 0xffff0000u
#define S_BLUE 0xff0000ffu

static uint32_t s_px(const ens_image *img, int x, int y) {
  return ((const uint32_t *)(img->pixels + (size_t)y * img->stride))[x];
}

static double s_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The bytes gzipped, as a .tgs holds them (malloc'd). */
static unsigned char *s_gzip(const void *data, size_t len, size_t *out_len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  size_t cap = deflateBound(&z, (uLong)len) + 32;
  unsigned char *out = malloc(cap);
  assert_non_null(out);
  z.next_in = (Bytef *)data;
  z.avail_in = (uInt)len;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
  *out_len = z.total_out;
  deflateEnd(&z);
  return out;
}

static void test_square_where_its_keyframes_put_it(void **state) {
  (void)state;
  ens_render_size size = {0, 0, 0};
  ens_image f0, f5, f10;
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 0, size, &f0), 0);
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 5, size, &f5), 0);
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 10, size, &f10), 0);
  assert_int_equal(f0.width, 100);
  assert_int_equal(f0.height, 100);
  /* the solid layer everywhere the square is not */
  assert_int_equal(s_px(&f0, 2, 2), S_RED);
  assert_int_equal(s_px(&f10, 97, 97), S_RED);
  /* frame 0: centred on x = 20 (10..30); frame 5 on 50; frame 10 on 80 */
  assert_int_equal(s_px(&f0, 20, 50), S_BLUE);
  assert_int_equal(s_px(&f0, 11, 41), S_BLUE);
  assert_int_equal(s_px(&f0, 31, 50), S_RED);
  assert_int_equal(s_px(&f0, 50, 50), S_RED);
  assert_int_equal(s_px(&f5, 50, 50), S_BLUE);
  assert_int_equal(s_px(&f5, 20, 50), S_RED);
  assert_int_equal(s_px(&f5, 80, 50), S_RED);
  assert_int_equal(s_px(&f10, 80, 50), S_BLUE);
  assert_int_equal(s_px(&f10, 20, 50), S_RED);
  assert_int_equal(s_px(&f10, 50, 50), S_RED);
  /* above and below the square: red in every frame */
  assert_int_equal(s_px(&f5, 50, 35), S_RED);
  assert_int_equal(s_px(&f5, 50, 65), S_RED);
  /* the square moved, and only the pixels it covers changed: 2 x 400 */
  long d = ens_image_diff_count(&f0, &f10);
  assert_true(d >= 760 && d <= 840);
  ens_image_free(&f0);
  ens_image_free(&f5);
  ens_image_free(&f10);
}

static void test_size_info_and_frame_range(void **state) {
  (void)state;
  ens_lottie_info info;
  assert_int_equal(ens_render_lottie_info(s_square, strlen(s_square), 0, &info), 0);
  assert_int_equal(info.width, 100);
  assert_int_equal(info.height, 100);
  assert_true(info.fps == 10.0);
  assert_int_equal(info.first, 0);
  assert_int_equal(info.end, 11);
  /* one side given: the other follows; the animation scales to fit */
  ens_render_size size = {50, 0, 0};
  ens_image img;
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 10, size, &img), 0);
  assert_int_equal(img.width, 50);
  assert_int_equal(img.height, 50);
  assert_int_equal(s_px(&img, 40, 25), S_BLUE);
  assert_int_equal(s_px(&img, 10, 25), S_RED);
  ens_image_free(&img);
  /* frames outside ip..op-1 are refused, naming the range */
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 11, size, &img), ENS_EINVAL);
  assert_non_null(strstr(ens_error_last(), "0..10"));
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), -1, size, &img), ENS_EINVAL);
  assert_null(img.pixels);
  /* frames keep the file's numbers when "ip" is not 0 */
  char *shifted = strdup(s_square);
  char *ip = strstr(shifted, "\"ip\":0,\"op\":11,\"w\"");
  assert_non_null(ip);
  memcpy(ip, "\"ip\":5,\"op\":11,\"w\"", 18);
  assert_int_equal(ens_render_lottie_info(shifted, strlen(shifted), 0, &info), 0);
  assert_int_equal(info.first, 5);
  assert_int_equal(info.end, 11);
  assert_int_equal(ens_render_lottie_frame(shifted, strlen(shifted), 4, size, &img), ENS_EINVAL);
  assert_int_equal(ens_render_lottie_frame(shifted, strlen(shifted), 10, size, &img), 0);
  assert_int_equal(s_px(&img, 40, 25), S_BLUE);
  ens_image_free(&img);
  free(shifted);
}

/* rlottie hands back a cached model for a key it has seen, whatever the
 * new text: two animations that differ in one colour, one after the other,
 * must each render as themselves. */
static void test_each_animation_its_own_pixels(void **state) {
  (void)state;
  char *green = strdup(s_square);
  char *c = strstr(green, "[0,0,1,1]");
  assert_non_null(c);
  memcpy(c, "[0,1,0,1]", 9);
  ens_render_size size = {0, 0, 0};
  ens_image a, b, a2;
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 0, size, &a), 0);
  assert_int_equal(ens_render_lottie_frame(green, strlen(green), 0, size, &b), 0);
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 0, size, &a2), 0);
  assert_int_equal(s_px(&a, 20, 50), S_BLUE);
  assert_int_equal(s_px(&b, 20, 50), 0xff00ff00u);
  assert_int_equal(ens_image_diff_count(&a, &a2), 0);
  assert_int_equal(ens_image_diff_count(&a, &b), 400);
  ens_image_free(&a);
  ens_image_free(&b);
  ens_image_free(&a2);
  free(green);
}

typedef struct {
  long frames[16];
  int n;
  long diff_first_last;
  ens_image first;
} s_seen;

static int s_collect(void *user, const ens_lottie_info *info, long frame, ens_image *img) {
  s_seen *s = user;
  assert_int_equal(info->end, 11);
  if (s->n < 16) s->frames[s->n++] = frame;
  if (!s->first.pixels) {
    s->first = *img;
    img->pixels = NULL; /* taken */
  } else {
    s->diff_first_last = ens_image_diff_count(&s->first, img);
  }
  return frame == 7 ? 42 : 0;
}

static void test_frames_in_order_and_a_stop(void **state) {
  (void)state;
  ens_render_size size = {0, 0, 0};
  s_seen seen;
  memset(&seen, 0, sizeof seen);
  assert_int_equal(ens_render_lottie(s_square, strlen(s_square), 2, 4, size, s_collect, &seen), 0);
  assert_int_equal(seen.n, 3);
  assert_int_equal(seen.frames[0], 2);
  assert_int_equal(seen.frames[2], 4);
  assert_true(seen.diff_first_last > 0);
  ens_image_free(&seen.first);
  /* the callee's nonzero stops it and comes back */
  memset(&seen, 0, sizeof seen);
  assert_int_equal(ens_render_lottie(s_square, strlen(s_square), ENS_LOTTIE_FIRST, ENS_LOTTIE_LAST, size, s_collect,
                                     &seen),
                   42);
  assert_int_equal(seen.n, 8);
  assert_int_equal(seen.frames[0], 0);
  ens_image_free(&seen.first);
}

static void test_tgs_renders_as_its_json(void **state) {
  (void)state;
  size_t glen;
  unsigned char *tgs = s_gzip(s_square, strlen(s_square), &glen);
  assert_true(ens_render_is_lottie(tgs, glen));
  assert_true(ens_render_is_lottie(s_square, strlen(s_square)));
  ens_render_size size = {0, 0, 0};
  ens_image a, b;
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 3, size, &a), 0);
  assert_int_equal(ens_render_lottie_frame(tgs, glen, 3, size, &b), 0);
  assert_int_equal(ens_image_diff_count(&a, &b), 0);
  ens_image_free(&a);
  ens_image_free(&b);
  /* cut short: an error, not a crash */
  assert_int_equal(ens_render_lottie_frame(tgs, glen / 2, 3, size, &a), ENS_EDECODE);
  assert_non_null(strstr(ens_error_last(), "gzip"));
  free(tgs);
  /* what is not an animation */
  static const char *nots[] = {"", "[]", "{}", "{\"layers\":[],\"fr\":1,\"ip\":0}", "<svg/>",
                               "{\"layers\":[],\"fr\":1,\"ip\":0,\"op\":1", "\x1f\x8b"};
  for (size_t i = 0; i < sizeof nots / sizeof *nots; i++) {
    assert_false(ens_render_is_lottie(nots[i], strlen(nots[i])));
    assert_true(ens_render_lottie_frame(nots[i], strlen(nots[i]), 0, size, &a) < 0);
    assert_true(ens_error_last()[0] != '\0');
  }
}

/* The APNG's chunks in order, with their CRCs checked. */
static void test_apng_chunks(void **state) {
  (void)state;
  ens_render_size size = {0, 0, 0};
  ens_image f0, f1;
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 0, size, &f0), 0);
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 10, size, &f1), 0);
  ens_apng *a = ens_image_apng_new(100, 100, 1, 10);
  assert_non_null(a);
  assert_int_equal(ens_image_apng_add(a, &f0), 0);
  assert_int_equal(ens_image_apng_add(a, &f1), 0);
  ens_image small = {10, 10, 40, f0.pixels};
  assert_int_equal(ens_image_apng_add(a, &small), ENS_EINVAL);
  unsigned char *png;
  size_t n;
  assert_int_equal(ens_image_apng_finish(a, &png, &n), 0);
  unsigned char *again;
  assert_int_equal(ens_image_apng_finish(a, &again, NULL), ENS_EINVAL);
  assert_null(again);
  ens_image_apng_free(a);
  assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
  const char *want[] = {"IHDR", "acTL", "fcTL", "IDAT", "fcTL", "fdAT", "IEND"};
  size_t at = 8, k = 0;
  while (at + 12 <= n) {
    uint32_t len = (uint32_t)png[at] << 24 | (uint32_t)png[at + 1] << 16 | (uint32_t)png[at + 2] << 8 | png[at + 3];
    assert_true(at + 12 + len <= n);
    assert_true(k < 7);
    assert_memory_equal(png + at + 4, want[k], 4);
    uint32_t crc = (uint32_t)png[at + 8 + len] << 24 | (uint32_t)png[at + 9 + len] << 16 |
                   (uint32_t)png[at + 10 + len] << 8 | png[at + 11 + len];
    assert_int_equal(crc, (uint32_t)crc32(0, png + at + 4, len + 4));
    if (k == 1) assert_int_equal(png[at + 11], 2); /* acTL: two frames */
    if (k == 4) assert_int_equal(png[at + 11], 1); /* the second fcTL: sequence 1 */
    if (k == 5) assert_int_equal(png[at + 11], 2); /* fdAT: sequence 2 */
    at += 12 + len;
    k++;
  }
  assert_int_equal(k, 7);
  assert_int_equal(at, n);
  ens_free(png);
  ens_image_free(&f0);
  ens_image_free(&f1);
}

/* Lottie files below dir, recursively. */
static void s_corpus_files(const char *corpus, const char *sub, char ***files, size_t *count) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/lottie/%s", corpus, sub);
  *files = tu_list_files(dir, ".json", count);
}

static void test_corpus_three_frames_each(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): its Lottie files");
  static const char *subs[] = {"spec", "docs"};
  int files = 0, frames_ok = 0, frames_blank = 0, refused = 0, crashed = 0;
  double slowest = 0;
  for (size_t s = 0; s < 2; s++) {
    char **list;
    size_t count;
    s_corpus_files(corpus, subs[s], &list, &count);
    for (size_t i = 0; i < count; i++) {
      size_t len;
      char *data = tu_read_file(list[i], &len);
      assert_non_null(data);
      files++;
      ens_lottie_info info;
      int rc = ens_render_lottie_info(data, len, 10000, &info);
      if (rc) {
        assert_true(rc == ENS_EDECODE || rc == ENS_ELIMIT);
        assert_true(ens_error_last()[0] != '\0');
        printf("  %s: %s\n", list[i] + strlen(corpus) + 1, ens_error_last());
        refused++;
        crashed += strstr(ens_error_last(), "crashed") != NULL;
        free(data);
        continue;
      }
      assert_true(info.end > info.first);
      long at[3] = {info.first, info.first + (info.end - info.first) / 2, info.end - 1};
      for (int k = 0; k < 3; k++) {
        ens_image img;
        ens_render_size size = {0, 0, 10000};
        double t0 = s_now();
        rc = ens_render_lottie_frame(data, len, at[k], size, &img);
        if (s_now() - t0 > slowest) slowest = s_now() - t0;
        if (rc) {
          assert_true(rc == ENS_EDECODE || rc == ENS_ELIMIT);
          printf("  %s frame %ld: %s\n", list[i] + strlen(corpus) + 1, at[k], ens_error_last());
          refused++;
          crashed += strstr(ens_error_last(), "crashed") != NULL;
          continue;
        }
        assert_int_equal(img.width, info.width);
        assert_int_equal(img.height, info.height);
        unsigned char *png;
        size_t n;
        assert_int_equal(ens_image_png(&img, &png, &n), 0);
        assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
        ens_free(png);
        int blank = 1;
        for (int y = 0; y < img.height && blank; y++)
          for (int x = 0; x < img.width; x++)
            if (s_px(&img, x, y)) {
              blank = 0;
              break;
            }
        if (blank) printf("  %s frame %ld: blank\n", list[i] + strlen(corpus) + 1, at[k]);
        frames_blank += blank;
        frames_ok++;
        ens_image_free(&img);
      }
      free(data);
    }
    tu_files_free(list, count);
  }
  if (!files) TU_SKIP("the corpus at %s has no Lottie files", corpus);
  printf("lottie corpus: %d files, %d frames rendered (%d blank), %d errors (%d where rlottie crashed); "
         "slowest frame %.2f s\n",
         files, frames_ok, frames_blank, refused, crashed, slowest);
  /* rlottie loads nearly all of them; a sweeping failure is a defect here.
   * Blank frames are the files' or rlottie's (docs/lottie.md): no layers,
   * images that are paths on the spec's web site, text, an empty path the
   * spec's page fills in, a dash with no gap. */
  assert_true(frames_ok >= files * 3 * 9 / 10);
  assert_true(frames_blank * 2 < frames_ok);
}

/* The spec's rectangle: a 256 x 256 square centred on (256, 256), stroked
 * 30 wide in (1, 0.98, 0.28), nothing filled. */
static void test_corpus_rectangle_stroke_where_the_file_says(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS)");
  char path[4096];
  snprintf(path, sizeof path, "%s/lottie/docs/docs_static_examples_rectangle.json", corpus);
  size_t len;
  char *data = tu_read_file(path, &len);
  if (!data) TU_SKIP("%s absent", path);
  ens_render_size size = {0, 0, 0};
  ens_image img;
  assert_int_equal(ens_render_lottie_frame(data, len, 90, size, &img), 0);
  uint32_t on = s_px(&img, 128, 256); /* the left side's centre line */
  assert_int_equal(on >> 24, 0xff);
  assert_int_equal((on >> 16) & 0xff, 0xff);
  assert_true(((on >> 8) & 0xff) >= 0xf8);
  assert_true((on & 0xff) >= 0x46 && (on & 0xff) <= 0x49);
  assert_int_equal(s_px(&img, 256, 256), 0u); /* inside: transparent */
  assert_int_equal(s_px(&img, 100, 256), 0u); /* outside the stroke */
  assert_int_equal(s_px(&img, 256, 384) >> 24, 0xff);
  ens_image_free(&img);
  free(data);
}

/* The spec's solid layer: "sc" #ff0000 over all of its 512 x 512 ("sw",
 * "sh"); the file has no "v", which rlottie alone refuses. */
static void test_corpus_solid_layer_its_colour(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS)");
  char path[4096];
  snprintf(path, sizeof path, "%s/lottie/docs/docs_static_examples_layers-solid.json", corpus);
  size_t len;
  char *data = tu_read_file(path, &len);
  if (!data) TU_SKIP("%s absent", path);
  ens_render_size size = {0, 0, 0};
  ens_image img;
  assert_int_equal(ens_render_lottie_frame(data, len, 30, size, &img), 0);
  assert_int_equal(img.width, 512);
  for (int y = 0; y < 512; y += 37)
    for (int x = 0; x < 512; x += 41) assert_int_equal(s_px(&img, x, y), S_RED);
  assert_int_equal(s_px(&img, 511, 511), S_RED);
  ens_image_free(&img);
  free(data);
}

/* A 40 x 40 opaque red PNG, made here (zlib for its one IDAT). */
static unsigned char *s_red_png(size_t *len) {
  unsigned char raw[40 * (1 + 40 * 4)];
  for (int y = 0; y < 40; y++) {
    unsigned char *r = raw + y * (1 + 160);
    r[0] = 0;
    for (int x = 0; x < 40; x++) memcpy(r + 1 + 4 * x, "\xff\x00\x00\xff", 4);
  }
  uLongf zlen = compressBound(sizeof raw);
  unsigned char *z = malloc(zlen), *png = malloc(zlen + 64), *p = png;
  assert_int_equal(compress(z, &zlen, raw, sizeof raw), Z_OK);
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  memcpy(p, sig, 8);
  p += 8;
  unsigned char ihdr[13] = {0, 0, 0, 40, 0, 0, 0, 40, 8, 6, 0, 0, 0};
  const struct {
    const char *type;
    const unsigned char *data;
    size_t n;
  } chunks[3] = {{"IHDR", ihdr, 13}, {"IDAT", z, zlen}, {"IEND", NULL, 0}};
  for (int c = 0; c < 3; c++) {
    size_t n = chunks[c].n;
    p[0] = (unsigned char)(n >> 24), p[1] = (unsigned char)(n >> 16), p[2] = (unsigned char)(n >> 8),
    p[3] = (unsigned char)n;
    memcpy(p + 4, chunks[c].type, 4);
    if (n) memcpy(p + 8, chunks[c].data, n);
    uint32_t crc = (uint32_t)crc32(0, p + 4, (uInt)(n + 4));
    p[8 + n] = (unsigned char)(crc >> 24), p[9 + n] = (unsigned char)(crc >> 16), p[10 + n] = (unsigned char)(crc >> 8),
    p[11 + n] = (unsigned char)crc;
    p += 12 + n;
  }
  free(z);
  *len = (size_t)(p - png);
  return png;
}

static const char s_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* An image layer showing one asset: "u" and "p" as given, "e" 1 or 0. */
static char *s_image_anim(const char *u, const char *p, int embedded) {
  char *s = malloc(strlen(u) + strlen(p) + 512);
  sprintf(s,
          "{\"v\":\"5.7.0\",\"fr\":10,\"ip\":0,\"op\":10,\"w\":40,\"h\":40,\"assets\":[{\"id\":\"img\",\"w\":40,"
          "\"h\":40,\"u\":\"%s\",\"p\":\"%s\",\"e\":%d}],\"layers\":[{\"ty\":2,\"ind\":1,\"refId\":\"img\","
          "\"ip\":0,\"op\":10,\"st\":0,\"ks\":{\"o\":{\"a\":0,\"k\":100}}}]}",
          u, p, embedded);
  return s;
}

/* An image embedded as a data: URL is drawn; the same image as a file the
 * animation names (absolute, or relative to the working directory) is
 * never read. */
static void test_embedded_images_drawn_files_never_read(void **state) {
  (void)state;
  size_t n;
  unsigned char *png = s_red_png(&n);
  char *url = malloc(32 + n * 4 / 3 + 4), *o = url + sprintf(url, "data:image/png;base64,");
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)png[i] << 16 | (i + 1 < n ? (uint32_t)png[i + 1] << 8 : 0) | (i + 2 < n ? png[i + 2] : 0);
    *o++ = s_b64[v >> 18 & 63];
    *o++ = s_b64[v >> 12 & 63];
    *o++ = i + 1 < n ? s_b64[v >> 6 & 63] : '=';
    *o++ = i + 2 < n ? s_b64[v & 63] : '=';
  }
  *o = '\0';
  ens_render_size size = {0, 0, 0};
  ens_image img;
  char *anim = s_image_anim("", url, 1);
  assert_int_equal(ens_render_lottie_frame(anim, strlen(anim), 0, size, &img), 0);
  uint32_t px = s_px(&img, 20, 20);
  printf("embedded red image at (20, 20): %08x\n", px);
  assert_true((px >> 24) >= 0xf0 && ((px >> 16) & 0xff) >= 0xf0 && (px & 0xffff) == 0);
  ens_image_free(&img);
  free(anim);
  /* the same PNG as a file, named absolutely and relative to here */
  char dir[] = "/tmp/ens_lottie_img.XXXXXX", path[256], cwd[4096];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/images", dir);
  assert_int_equal(mkdir(path, 0700), 0);
  snprintf(path, sizeof path, "%s/images/red.png", dir);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(png, 1, n, f), n);
  fclose(f);
  char u[256];
  snprintf(u, sizeof u, "%s/images/", dir);
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(dir), 0);
  const char *us[] = {u, "images/", "./images/"};
  for (int e = 0; e < 2; e++)
    for (size_t k = 0; k < 3; k++) {
      anim = s_image_anim(us[k], "red.png", e);
      assert_int_equal(ens_render_lottie_frame(anim, strlen(anim), 0, size, &img), 0);
      assert_int_equal(s_px(&img, 20, 20), 0u);
      ens_image_free(&img);
      free(anim);
    }
  assert_int_equal(chdir(cwd), 0);
  unlink(path);
  snprintf(path, sizeof path, "%s/images", dir);
  rmdir(path);
  rmdir(dir);
  free(url);
  free(png);
}

/* --- hostile files ------------------------------------------------------------- */

static char *s_with_shapes(const char *head, const char *shapes_open, size_t depth, const char *shapes_close) {
  size_t n = strlen(head) + depth * (strlen(shapes_open) + strlen(shapes_close)) + 64;
  char *s = malloc(n), *p = s;
  assert_non_null(s);
  p += sprintf(p, "%s", head);
  for (size_t i = 0; i < depth; i++) p += sprintf(p, "%s", shapes_open);
  p += sprintf(p, "[]");
  for (size_t i = 0; i < depth; i++) p += sprintf(p, "%s", shapes_close);
  sprintf(p, "}]}");
  return s;
}

static const char s_head[] =
    "{\"v\":\"5.7.0\",\"fr\":10,\"ip\":0,\"op\":11,\"w\":100,\"h\":100,\"layers\":[{\"ty\":4,\"ind\":1,\"ip\":0,"
    "\"op\":11,\"st\":0,\"ks\":{},\"shapes\":";

static void test_hostile_huge_size(void **state) {
  (void)state;
  char *big = malloc(strlen(s_square) + 64);
  const char *w = strstr(s_square, "\"w\":100,\"h\":100");
  assert_non_null(w);
  sprintf(big, "%.*s\"w\":999999999999,\"h\":999999999999%s", (int)(w - s_square), s_square,
          w + strlen("\"w\":100,\"h\":100"));
  ens_render_size size = {0, 0, 0};
  ens_image img;
  double t0 = s_now();
  assert_int_equal(ens_render_lottie_frame(big, strlen(big), 0, size, &img), ENS_ELIMIT);
  assert_non_null(strstr(ens_error_last(), "beyond the render limit"));
  /* a size asked for beyond the limits */
  ens_render_size huge = {100000, 100000, 0};
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 0, huge, &img), ENS_ELIMIT);
  assert_true(s_now() - t0 < 5);
  free(big);
}

static void test_hostile_deep_nesting(void **state) {
  (void)state;
  /* 100,000 groups one inside the other: rlottie recurses through them */
  char *deep = s_with_shapes(s_head, "[{\"ty\":\"gr\",\"it\":", 100000, "}]");
  ens_render_size size = {0, 0, 10000};
  ens_image img;
  int rc = ens_render_lottie_frame(deep, strlen(deep), 0, size, &img);
  printf("100000 nested groups: %s\n", rc ? ens_error_last() : "rendered");
  assert_true(rc == 0 || rc == ENS_EDECODE || rc == ENS_ELIMIT);
  if (rc) assert_true(ens_error_last()[0] != '\0');
  ens_image_free(&img);
  free(deep);
  /* 200,000 nested arrays as a property's value */
  deep = s_with_shapes(s_head, "[", 200000, "]");
  rc = ens_render_lottie_frame(deep, strlen(deep), 0, size, &img);
  printf("200000 nested arrays: %s\n", rc ? ens_error_last() : "rendered");
  assert_true(rc == 0 || rc == ENS_EDECODE || rc == ENS_ELIMIT);
  ens_image_free(&img);
  free(deep);
  /* this process is still here to render */
  assert_int_equal(ens_render_lottie_frame(s_square, strlen(s_square), 0, size, &img), 0);
  ens_image_free(&img);
}

/* A repeater of n copies of the square (rlottie builds each copy). */
static char *s_repeater(const char *copies) {
  const char *rep = ",{\"ty\":\"rp\",\"nm\":\"rep\",\"c\":{\"a\":0,\"k\":%s},\"o\":{\"a\":0,\"k\":0},\"m\":1,"
                    "\"tr\":{\"ty\":\"tr\",\"p\":{\"a\":0,\"k\":[0.001,0]},\"a\":{\"a\":0,\"k\":[0,0]},"
                    "\"s\":{\"a\":0,\"k\":[100,100]},\"r\":{\"a\":0,\"k\":0},\"so\":{\"a\":0,\"k\":100},"
                    "\"eo\":{\"a\":0,\"k\":100}}}";
  char piece[1024];
  snprintf(piece, sizeof piece, rep, copies);
  const char *at = strstr(s_square, "\"r\":1}]}"); /* the end of the square's shapes */
  assert_non_null(at);
  at += strlen("\"r\":1}");
  size_t head = (size_t)(at - s_square);
  char *s = malloc(strlen(s_square) + strlen(piece) + 1);
  memcpy(s, s_square, head);
  strcpy(s + head, piece);
  strcat(s, at);
  return s;
}

static void test_hostile_endless_copies_stop_at_the_time_limit(void **state) {
  (void)state;
  char *rep = s_repeater("1000000");
  ens_render_size size = {0, 0, 500};
  ens_image img;
  double t0 = s_now();
  int rc = ens_render_lottie_frame(rep, strlen(rep), 0, size, &img);
  double took = s_now() - t0;
  printf("a million copies, 0.5 s allowed: %s after %.2f s\n", rc ? ens_error_last() : "rendered", took);
  assert_int_equal(rc, ENS_ELIMIT);
  assert_non_null(strstr(ens_error_last(), "longer than 500 ms"));
  assert_true(took < 3);
  free(rep);
}

/* Cheap to load, slow to draw: a stroke dashed every 0.0001 units along an
 * 800 x 800 square (32 million dashes, computed when the frame is drawn). */
static void test_hostile_endless_dashes_stop_at_the_time_limit(void **state) {
  (void)state;
  static const char dashes[] =
      "{\"v\":\"5.7.0\",\"fr\":10,\"ip\":0,\"op\":11,\"w\":100,\"h\":100,\"layers\":[{\"ty\":4,\"ind\":1,"
      "\"ip\":0,\"op\":11,\"st\":0,\"ks\":{},\"shapes\":["
      "{\"ty\":\"rc\",\"p\":{\"a\":0,\"k\":[50,50]},\"s\":{\"a\":0,\"k\":[800,800]},\"r\":{\"a\":0,\"k\":0}},"
      "{\"ty\":\"st\",\"c\":{\"a\":0,\"k\":[0,0,1,1]},\"o\":{\"a\":0,\"k\":100},\"w\":{\"a\":0,\"k\":2},"
      "\"lc\":1,\"lj\":1,\"d\":[{\"n\":\"d\",\"v\":{\"a\":0,\"k\":0.0001}},{\"n\":\"g\",\"v\":{\"a\":0,"
      "\"k\":0.0001}}]}]}]}";
  ens_lottie_info info;
  double t0 = s_now();
  assert_int_equal(ens_render_lottie_info(dashes, strlen(dashes), 2000, &info), 0); /* it loads */
  ens_render_size size = {0, 0, 500};
  ens_image img;
  t0 = s_now();
  int rc = ens_render_lottie_frame(dashes, strlen(dashes), 0, size, &img);
  double took = s_now() - t0;
  printf("32 million dashes, 0.5 s a frame: %s after %.2f s\n", rc ? ens_error_last() : "rendered", took);
  assert_int_equal(rc, ENS_ELIMIT);
  assert_non_null(strstr(ens_error_last(), "rendering frame 0 took longer than 500 ms"));
  assert_true(took < 3);
}

static void test_hostile_memory_limit(void **state) {
  (void)state;
#if defined(__SANITIZE_ADDRESS__)
  TU_SKIP("the memory limit is off under AddressSanitizer");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  TU_SKIP("the memory limit is off under AddressSanitizer");
#endif
#endif
  /* a hundred million copies: gigabytes, unless the limit ends it first */
  char *rep = s_repeater("100000000");
  ens_render_size size = {0, 0, 60000};
  ens_image img;
  double t0 = s_now();
  int rc = ens_render_lottie_frame(rep, strlen(rep), 0, size, &img);
  printf("a hundred million copies: %s after %.2f s\n", rc ? ens_error_last() : "rendered", s_now() - t0);
  assert_int_equal(rc, ENS_ELIMIT);
  assert_non_null(strstr(ens_error_last(), "more memory than allowed"));
  free(rep);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_square_where_its_keyframes_put_it),
      cmocka_unit_test(test_size_info_and_frame_range),
      cmocka_unit_test(test_each_animation_its_own_pixels),
      cmocka_unit_test(test_frames_in_order_and_a_stop),
      cmocka_unit_test(test_tgs_renders_as_its_json),
      cmocka_unit_test(test_apng_chunks),
      cmocka_unit_test(test_corpus_three_frames_each),
      cmocka_unit_test(test_corpus_rectangle_stroke_where_the_file_says),
      cmocka_unit_test(test_corpus_solid_layer_its_colour),
      cmocka_unit_test(test_embedded_images_drawn_files_never_read),
      cmocka_unit_test(test_hostile_huge_size),
      cmocka_unit_test(test_hostile_deep_nesting),
      cmocka_unit_test(test_hostile_endless_copies_stop_at_the_time_limit),
      cmocka_unit_test(test_hostile_endless_dashes_stop_at_the_time_limit),
      cmocka_unit_test(test_hostile_memory_limit),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof *tests);
}
