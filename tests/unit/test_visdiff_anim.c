/* The visual diff of two animations (ensemble/visdiff.h): the change list
 * names the layer, the property and the keyframe's time; the frames chosen
 * are where the changes are; the strip's new frame differs from the old one
 * exactly where an edit shows, and nowhere for identical versions. On a
 * hand-made animation and on edited corpus animations. */
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

/* A 20 x 20 blue square over a red solid layer, fr 10, frames 0..30; its
 * position keyframed linearly (20, 50) at 0, KF10 at 10, (20, 50) at 20, with
 * room for one more keyframe after the first. The square's fill colour and
 * out point are parameters too. */
#define S_ANIM                                                                                                         \
  "{\"v\":\"5.7.0\",\"nm\":\"square\",\"fr\":10,\"ip\":0,\"op\":31,\"w\":100,\"h\":100,\"layers\":["                    \
  "{\"ty\":4,\"ind\":2,\"nm\":\"square\",\"ip\":0,\"op\":%s,\"st\":0,\"ks\":{"                                          \
  "\"a\":{\"a\":0,\"k\":[0,0]},"                                                                                       \
  "\"p\":{\"a\":1,\"k\":[{\"t\":0,\"s\":[20,50],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},%s"            \
  "{\"t\":10,\"s\":%s,\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},"                                     \
  "{\"t\":20,\"s\":[20,50]}]},"                                                                                        \
  "\"s\":{\"a\":0,\"k\":[100,100]},\"r\":{\"a\":0,\"k\":0},\"o\":{\"a\":0,\"k\":100}},"                                \
  "\"shapes\":[{\"ty\":\"rc\",\"nm\":\"box\",\"p\":{\"a\":0,\"k\":[0,0]},\"s\":{\"a\":0,\"k\":[20,20]},"                \
  "\"r\":{\"a\":0,\"k\":0}},"                                                                                          \
  "{\"ty\":\"fl\",\"nm\":\"paint\",\"c\":{\"a\":0,\"k\":%s},\"o\":{\"a\":0,\"k\":100},\"r\":1}]},"                     \
  "{\"ty\":1,\"ind\":1,\"nm\":\"background\",\"ip\":0,\"op\":31,\"st\":0,\"sc\":\"#ff0000\",\"sw\":100,"                \
  "\"sh\":100,\"ks\":{\"a\":{\"a\":0,\"k\":[0,0]},\"p\":{\"a\":0,\"k\":[0,0]},\"s\":{\"a\":0,\"k\":[100,100]},"          \
  "\"r\":{\"a\":0,\"k\":0},\"o\":{\"a\":0,\"k\":100}}}]}"

#define S_KF10 "[80,50]"
#define S_BLUE "[0,0,1,1]"
#define S_OP "31"

#define S_PX_RED 0xffff0000u
#define S_PX_BLUE 0xff0000ffu
#define S_PX_VERMILLION 0xffd55e00u

static ens_doc *s_anim(const char *op, const char *kf10, const char *extra_kf, const char *colour) {
  char text[4096];
  int n = snprintf(text, sizeof text, S_ANIM, op, extra_kf, kf10, colour);
  assert_true(n > 0 && (size_t)n < sizeof text);
  ens_doc *doc = NULL;
  int rc = ens_lottie_read(text, (size_t)n, &doc);
  if (rc) fail_msg("%s", ens_error_last());
  return doc;
}

static uint32_t s_px(const ens_image *img, int x, int y) {
  return ((const uint32_t *)(img->pixels + (size_t)y * img->stride))[x];
}

/* The items as the text diff writes them. */
static char *s_text(const ens_visdiff *vd) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(ens_visdiff_write_text(vd, f), 0);
  fclose(f);
  return buf;
}

static long s_column(const ens_visdiff_strip *s, long frame) {
  for (size_t i = 0; i < s->count; i++)
    if (s->frames[i] == frame) return (long)i;
  return -1;
}

static int s_has_vermillion(const ens_image *img) {
  for (int y = 0; y < img->height; y++)
    for (int x = 0; x < img->width; x++)
      if (s_px(img, x, y) == S_PX_VERMILLION) return 1;
  return 0;
}

/* s with its one occurrence of from replaced by to (malloc'd). */
static char *s_replace(const char *s, const char *from, const char *to) {
  const char *at = strstr(s, from);
  assert_non_null(at);
  assert_null(strstr(at + 1, from)); /* one place only */
  size_t n = strlen(s), f = strlen(from), t = strlen(to);
  char *out = malloc(n - f + t + 1);
  assert_non_null(out);
  memcpy(out, s, (size_t)(at - s));
  memcpy(out + (at - s), to, t);
  memcpy(out + (at - s) + t, at + f, n - (size_t)(at - s) - f + 1);
  return out;
}

static void test_keyframe_value(void **state) {
  (void)state;
  ens_doc *a = s_anim(S_OP, S_KF10, "", S_BLUE), *b = s_anim(S_OP, "[50,20]", "", S_BLUE);
  ens_visdiff *vd = NULL;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  assert_true(ens_visdiff_is_animation(vd));
  assert_false(ens_visdiff_is_font(vd));
  char *text = s_text(vd);
  assert_string_equal(text, "layer 2 \"square\": transform position keyframe t=10: s [80,50] → [50,20]\n");
  free(text);
  ens_visdiff_item it;
  assert_int_equal(ens_visdiff_count(vd), 1);
  assert_int_equal(ens_visdiff_item_at(vd, 0, &it), 0);
  assert_int_equal(it.mark, ENS_VIS_CHANGED);
  /* the keyframe's frame, between the first and the last */
  long frames[ENS_VISDIFF_MAX_FRAMES];
  size_t n = 0;
  assert_int_equal(ens_visdiff_frames(vd, frames, ENS_VISDIFF_MAX_FRAMES, &n), 0);
  assert_int_equal(n, 3);
  assert_int_equal(frames[0], 0);
  assert_int_equal(frames[1], 10);
  assert_int_equal(frames[2], 30);
  /* an animation has no composite SVG */
  char *svg = NULL;
  assert_int_equal(ens_visdiff_svg(vd, &svg, NULL), ENS_EINVAL);
  assert_null(svg);

  ens_visdiff_strip s;
  ens_render_size size = {0, 0, 0};
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), 0);
  assert_int_equal(s.count, 3);
  assert_int_equal(s.new_frames[1].width, 100); /* its own size: under the limit */
  /* frame 10: the square moved from (80, 50) to (50, 20) */
  assert_int_equal(s_px(&s.old_frames[1], 80, 50), S_PX_BLUE);
  assert_int_equal(s_px(&s.new_frames[1], 80, 50), S_PX_RED);
  assert_int_equal(s_px(&s.new_frames[1], 50, 20), S_PX_BLUE);
  assert_int_equal(s_px(&s.old_frames[1], 50, 20), S_PX_RED);
  assert_true(ens_image_diff_count(&s.old_frames[1], &s.new_frames[1]) > 0);
  assert_int_equal(s.differing[1], ens_image_diff_count(&s.old_frames[1], &s.new_frames[1]));
  /* two 20 x 20 squares that do not overlap: 800 pixels, give or take
   * their antialiased edges */
  assert_in_range(s.differing[1], 700, 1000);
  assert_int_equal(s_px(&s.marked[1], 80, 50), S_PX_VERMILLION);
  assert_int_equal(s_px(&s.marked[1], 50, 20), S_PX_VERMILLION);
  assert_int_not_equal(s_px(&s.marked[1], 5, 5), S_PX_VERMILLION);
  assert_in_range(s.box[1][0], 38, 42);
  assert_in_range(s.box[1][2], 88, 92);
  /* frames 0 and 30 are where the other keyframes hold: the same */
  assert_int_equal(s.differing[0], 0);
  assert_int_equal(s.differing[2], 0);
  assert_int_equal(ens_image_diff_count(&s.old_frames[0], &s.new_frames[0]), 0);
  assert_int_equal(ens_image_diff_count(&s.old_frames[2], &s.new_frames[2]), 0);
  assert_false(s_has_vermillion(&s.marked[0]));
  assert_int_equal(s.box[0][0], -1);

  /* the PNG: three rows of three frames, labels above and left */
  unsigned char *png = NULL;
  size_t len = 0;
  assert_int_equal(ens_visdiff_strip_png(&s, &png, &len), 0);
  assert_true(len > 8 && memcmp(png, "\x89PNG", 4) == 0);
  uint32_t w = (uint32_t)png[16] << 24 | (uint32_t)png[17] << 16 | (uint32_t)png[18] << 8 | png[19];
  uint32_t h = (uint32_t)png[20] << 24 | (uint32_t)png[21] << 16 | (uint32_t)png[22] << 8 | png[23];
  assert_true(w >= 3 * 102 && w < 3 * 102 + 100);
  assert_true(h >= 3 * 102 && h < 3 * 102 + 60);
  ens_free(png);

  char *html = NULL;
  assert_int_equal(ens_visdiff_strip_html(vd, &s, "t", &html, &len), 0);
  assert_non_null(strstr(html, "transform position keyframe t=10: s [80,50] → [50,20]"));
  assert_non_null(strstr(html, "<th>frame 10</th>"));
  assert_non_null(strstr(html, "src=\"data:image/png;base64,"));
  assert_null(strstr(html, "http"));
  ens_free(html);
  ens_visdiff_strip_free(&s);
  ens_visdiff_strip_free(&s); /* twice: it was left empty */
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_colour_everywhere(void **state) {
  (void)state;
  ens_doc *a = s_anim(S_OP, S_KF10, "", S_BLUE), *b = s_anim(S_OP, S_KF10, "", "[0,1,0,1]");
  ens_visdiff *vd = NULL;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  char *text = s_text(vd);
  assert_string_equal(text, "layer 2 \"square\": shape \"paint\" colour: [0,0,1,1] → [0,1,0,1]\n");
  free(text);
  /* a static value shows at no time of its own: frames evenly spaced */
  ens_visdiff_strip s;
  ens_render_size size = {50, 50, 0};
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), 0);
  assert_int_equal(s.count, ENS_VISDIFF_MAX_FRAMES);
  assert_int_equal(s.frames[0], 0);
  assert_int_equal(s.frames[s.count - 1], 30);
  for (size_t i = 0; i < s.count; i++) {
    assert_int_equal(s.new_frames[i].width, 50);
    if (i) assert_true(s.frames[i] > s.frames[i - 1]);
    /* the square is green in every frame: about 10 x 10 pixels at this size */
    assert_in_range(s.differing[i], 80, 130);
  }
  ens_visdiff_strip_free(&s);
  /* one side given: the other at the animation's aspect, for both versions */
  ens_render_size tall = {0, 30, 0};
  assert_int_equal(ens_visdiff_strip_render(vd, tall, &s), 0);
  assert_int_equal(s.old_frames[0].width, 30);
  assert_int_equal(s.new_frames[0].height, 30);
  ens_visdiff_strip_free(&s);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_out_point_and_added_keyframe(void **state) {
  (void)state;
  ens_doc *a = s_anim(S_OP, S_KF10, "", S_BLUE), *b = s_anim("15", S_KF10, "{\"t\":5,\"s\":[50,80],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},", S_BLUE);
  ens_visdiff *vd = NULL;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  char *text = s_text(vd);
  assert_string_equal(text,
                      "layer 2 \"square\": out point (op) 31 → 15\n"
                      "layer 2 \"square\": transform position keyframe t=5 added: s [50,80]\n");
  free(text);
  ens_visdiff_item it;
  assert_int_equal(ens_visdiff_item_at(vd, 1, &it), 0);
  assert_int_equal(it.mark, ENS_VIS_ADDED);
  ens_visdiff_strip s;
  ens_render_size size = {0, 0, 0};
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), 0);
  /* first, the new keyframe, the new last frame of the layer, the old one */
  assert_int_equal(s.count, 4);
  assert_int_equal(s.frames[1], 5);
  assert_int_equal(s.frames[2], 14);
  assert_int_equal(s.frames[3], 30);
  assert_int_equal(s.differing[0], 0);
  assert_true(s.differing[1] > 0);
  assert_int_equal(s_px(&s.new_frames[1], 50, 80), S_PX_BLUE);
  /* at 14 both show the square where the same keyframes put it */
  assert_int_equal(s.differing[2], 0);
  /* at 30 the square is gone from the new version */
  assert_true(s.differing[3] > 0);
  assert_int_equal(s_px(&s.old_frames[3], 20, 50), S_PX_BLUE);
  assert_int_equal(s_px(&s.new_frames[3], 20, 50), S_PX_RED);
  ens_visdiff_strip_free(&s);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_keyframe_retimed(void **state) {
  (void)state;
  char text[4096];
  int len = snprintf(text, sizeof text, S_ANIM, S_OP, "", S_KF10, S_BLUE);
  char *later = s_replace(text, "{\"t\":10,", "{\"t\":12,");
  ens_doc *a = NULL, *b = NULL;
  assert_int_equal(ens_lottie_read(text, (size_t)len, &a), 0);
  assert_int_equal(ens_lottie_read(later, strlen(later), &b), 0);
  free(later);
  ens_visdiff *vd = NULL;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  char *t = s_text(vd);
  /* one move in time, not a keyframe removed and another added */
  assert_string_equal(t, "layer 2 \"square\": transform position keyframe t=12 moved from t=10\n");
  free(t);
  ens_visdiff_strip s;
  ens_render_size size = {0, 0, 0};
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), 0);
  assert_int_equal(s.count, 4);
  assert_int_equal(s.frames[1], 10);
  assert_int_equal(s.frames[2], 12);
  /* at 10 the old square is at (80, 50), the new one still on its way */
  assert_int_equal(s_px(&s.old_frames[1], 85, 50), S_PX_BLUE);
  assert_int_equal(s_px(&s.new_frames[1], 85, 50), S_PX_RED);
  assert_int_equal(s_px(&s.new_frames[2], 85, 50), S_PX_BLUE);
  assert_true(s.differing[1] > 0);
  assert_true(s.differing[2] > 0);
  assert_int_equal(s.differing[0], 0);
  assert_int_equal(s.differing[3], 0);
  ens_visdiff_strip_free(&s);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_layers_reordered(void **state) {
  (void)state;
  char text[4096], swapped[4096];
  int len = snprintf(text, sizeof text, S_ANIM, S_OP, "", S_KF10, S_BLUE);
  /* the background solid first: drawn over the square */
  const char *layers = strstr(text, "\"layers\":[") + 10, *bg = strstr(text, ",{\"ty\":1,");
  assert_non_null(bg);
  const char *end = text + len - 2;
  assert_string_equal(end, "]}");
  int n = snprintf(swapped, sizeof swapped, "%.*s%.*s,%.*s]}", (int)(layers - text), text, (int)(end - bg - 1),
                   bg + 1, (int)(bg - layers), layers);
  assert_int_equal(n, len);
  ens_doc *a = NULL, *b = NULL;
  assert_int_equal(ens_lottie_read(text, (size_t)len, &a), 0);
  assert_int_equal(ens_lottie_read(swapped, (size_t)n, &b), 0);
  ens_visdiff *vd = NULL;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  char *t = s_text(vd);
  assert_string_equal(t, "layer 1 \"background\": moved in the stacking order: now on top\n");
  free(t);
  ens_visdiff_strip s;
  ens_render_size size = {0, 0, 0};
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), 0);
  /* a change at no time of its own: frames evenly spaced, the square gone
   * under the background in every one */
  assert_int_equal(s.count, ENS_VISDIFF_MAX_FRAMES);
  for (size_t i = 0; i < s.count; i++) {
    assert_in_range(s.differing[i], 300, 500);
    assert_int_equal(s_px(&s.new_frames[i], 20, 50), S_PX_RED);
  }
  assert_int_equal(s_px(&s.old_frames[0], 20, 50), S_PX_BLUE);
  ens_visdiff_strip_free(&s);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_identical(void **state) {
  (void)state;
  ens_doc *a = s_anim(S_OP, S_KF10, "", S_BLUE), *b = s_anim(S_OP, S_KF10, "", S_BLUE);
  ens_visdiff *vd = NULL;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  assert_int_equal(ens_visdiff_count(vd), 0);
  char *text = s_text(vd);
  assert_string_equal(text, "");
  free(text);
  ens_visdiff_strip s;
  ens_render_size size = {0, 0, 0};
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), 0);
  assert_int_equal(s.count, ENS_VISDIFF_MAX_FRAMES);
  for (size_t i = 0; i < s.count; i++) {
    assert_int_equal(s.differing[i], 0);
    assert_false(s_has_vermillion(&s.marked[i]));
    assert_int_equal(s.box[i][0], -1);
  }
  char *html = NULL;
  size_t len;
  assert_int_equal(ens_visdiff_strip_html(vd, &s, NULL, &html, &len), 0);
  assert_non_null(strstr(html, "No changes."));
  assert_null(strstr(html, "pixels differ"));
  ens_free(html);
  ens_visdiff_strip_free(&s);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
}

static void test_refusals(void **state) {
  (void)state;
  ens_doc *a = s_anim(S_OP, S_KF10, "", S_BLUE), *svg = NULL;
  const char *text = "<svg xmlns='http://www.w3.org/2000/svg'/>";
  assert_int_equal(ens_svg_read(text, strlen(text), &svg), 0);
  ens_visdiff *vd = (ens_visdiff *)1;
  assert_int_equal(ens_visdiff_new(a, svg, &vd), ENS_EINVAL);
  assert_null(vd);
  assert_non_null(strstr(ens_error_last(), "cannot be compared"));
  /* frames and strips are an animation's */
  assert_int_equal(ens_visdiff_new(svg, svg, &vd), 0);
  long frames[ENS_VISDIFF_MAX_FRAMES];
  size_t n = 7;
  assert_int_equal(ens_visdiff_frames(vd, frames, ENS_VISDIFF_MAX_FRAMES, &n), ENS_EINVAL);
  assert_int_equal(n, 0);
  ens_visdiff_strip s;
  ens_render_size size = {0, 0, 0};
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), ENS_EINVAL);
  assert_int_equal(s.count, 0);
  ens_visdiff_free(vd);
  /* two versions that share no frame */
  char text2[4096];
  snprintf(text2, sizeof text2, S_ANIM, S_OP, "", S_KF10, S_BLUE);
  char *late = s_replace(text2, "\"ip\":0,\"op\":31,\"w\"", "\"ip\":40,\"op\":71,\"w\"");
  ens_doc *b = NULL;
  assert_int_equal(ens_lottie_read(late, strlen(late), &b), 0);
  free(late);
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  assert_int_equal(ens_visdiff_frames(vd, frames, ENS_VISDIFF_MAX_FRAMES, &n), ENS_EINVAL);
  assert_non_null(strstr(ens_error_last(), "share no frame"));
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), ENS_EINVAL);
  ens_visdiff_free(vd);
  ens_doc_free(b);
  ens_doc_free(a);
  ens_doc_free(svg);
}

/* The corpus's bouncing ball edited as text (one keyframe's value, then
 * the fill colour): the change list names them, the strip differs at the
 * keyframe and not at the first frame. */
static void test_corpus_bouncy_ball(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus");
  char path[4096];
  snprintf(path, sizeof path, "%s/lottie/docs/docs_static_examples_bouncy_ball.json", corpus);
  size_t len;
  char *text = tu_read_file(path, &len);
  if (!text) TU_SKIP("no %s in the corpus", path);
  /* the keyframe at 60: the ball lands at (265, 441); make it (265, 300) */
  char *moved = s_replace(text, "441", "300");
  char *painted = s_replace(text, "0.710", "0.100");
  ens_doc *a = NULL, *b = NULL, *c = NULL;
  assert_int_equal(ens_lottie_read(text, len, &a), 0);
  assert_int_equal(ens_lottie_read(moved, strlen(moved), &b), 0);
  assert_int_equal(ens_lottie_read(painted, strlen(painted), &c), 0);

  ens_visdiff *vd = NULL;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  char *t = s_text(vd);
  assert_string_equal(t, "layer 0 \"Layer\": shape \"Ellipse Group\"/transform position keyframe t=60: s [265,441] → "
                         "[265,300]\n");
  free(t);
  ens_visdiff_strip s;
  ens_render_size size = {0, 0, 0};
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), 0);
  long k = s_column(&s, 60), f = s_column(&s, 0);
  assert_true(k > 0);
  assert_int_equal(f, 0);
  assert_int_equal(s.new_frames[0].width, ENS_VISDIFF_FRAME_SIDE); /* 512 x 512 scaled down */
  assert_true(s.differing[k] > 500);
  assert_true(ens_image_diff_count(&s.old_frames[k], &s.new_frames[k]) > 500);
  assert_int_equal(s.differing[f], 0);
  assert_int_equal(ens_image_diff_count(&s.old_frames[f], &s.new_frames[f]), 0);
  /* the ball is higher in the new frame: what differs reaches above the
   * old ball's place */
  ens_visdiff_strip_free(&s);
  ens_visdiff_free(vd);

  assert_int_equal(ens_visdiff_new(a, c, &vd), 0);
  t = s_text(vd);
  assert_string_equal(t, "layer 0 \"Layer\": shape \"Ellipse Group\"/\"Fill\" colour: [0.71,0.192,0.278] → "
                         "[0.1,0.192,0.278]\n");
  free(t);
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), 0);
  for (size_t i = 0; i < s.count; i++) assert_true(s.differing[i] > 500);
  ens_visdiff_strip_free(&s);
  ens_visdiff_free(vd);

  /* and a version with itself: nothing */
  assert_int_equal(ens_visdiff_new(a, a, &vd), 0);
  assert_int_equal(ens_visdiff_count(vd), 0);
  assert_int_equal(ens_visdiff_strip_render(vd, size, &s), 0);
  for (size_t i = 0; i < s.count; i++) assert_int_equal(s.differing[i], 0);
  ens_visdiff_strip_free(&s);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
  ens_doc_free(c);
  free(text);
  free(moved);
  free(painted);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_keyframe_value), cmocka_unit_test(test_colour_everywhere),
      cmocka_unit_test(test_out_point_and_added_keyframe), cmocka_unit_test(test_keyframe_retimed),
      cmocka_unit_test(test_layers_reordered), cmocka_unit_test(test_identical),
      cmocka_unit_test(test_refusals), cmocka_unit_test(test_corpus_bouncy_ball),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
