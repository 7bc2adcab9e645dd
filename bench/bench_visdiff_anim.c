/* The visual diff of two versions of an animation, phase by phase, best of
 * N runs: both files read, ens_visdiff_new (the change list and the frames
 * chosen), the strip rendered (two child processes for the frame ranges,
 * then one per frame and version), the strip's PNG and its HTML page.
 * Beside the floor the strip sits on: ens_render_lottie_frame of the same
 * frames of both versions at the same size, the two alternating run by run.
 * With one file it is compared with itself: no change, so the most frames
 * (eight, evenly spaced). One JSON line on stdout, a table on stderr.
 *
 *   bench_visdiff_anim [--runs N] OLD [NEW] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ensemble.h"

static double s_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

typedef struct {
  double read, diff, strip, png, html, floor;
  size_t frames, changes, png_len, html_len;
  int width, height;
} s_run;

static double s_min(double a, double b) { return a < b ? a : b; }

static int s_once(const char *old_path, const char *new_path, s_run *r) {
  ens_doc *a = NULL, *b = NULL;
  ens_visdiff *vd = NULL;
  ens_visdiff_strip strip;
  memset(&strip, 0, sizeof strip);
  unsigned char *png = NULL, *json[2] = {NULL, NULL};
  size_t len[2] = {0, 0};
  char *html = NULL;
  int rc;
  ens_render_size size = {0, 0, 0};
  double t0 = s_now();
  if ((rc = ens_lottie_read_path(old_path, &a)) || (rc = ens_lottie_read_path(new_path, &b))) goto done;
  double t1 = s_now();
  if ((rc = ens_visdiff_new(a, b, &vd))) goto done;
  double t2 = s_now();
  if ((rc = ens_visdiff_strip_render(vd, size, &strip))) goto done;
  double t3 = s_now();
  if ((rc = ens_visdiff_strip_png(&strip, &png, &r->png_len))) goto done;
  double t4 = s_now();
  if ((rc = ens_visdiff_strip_html(vd, &strip, NULL, &html, &r->html_len))) goto done;
  double t5 = s_now();
  /* the floor: the same frames of both versions, at the same size, and
   * nothing else */
  size.width = strip.new_frames[0].width;
  size.height = strip.new_frames[0].height;
  if ((rc = ens_lottie_write_as(a, ENS_LOTTIE_AS_JSON, &json[0], &len[0])) ||
      (rc = ens_lottie_write_as(b, ENS_LOTTIE_AS_JSON, &json[1], &len[1])))
    goto done;
  double t6 = s_now();
  for (size_t i = 0; i < strip.count && !rc; i++)
    for (int k = 0; k < 2 && !rc; k++) {
      ens_image img;
      rc = ens_render_lottie_frame(json[k], len[k], strip.frames[i], size, &img);
      if (!rc) ens_image_free(&img);
    }
  double t7 = s_now();
  if (rc) goto done;
  r->read = t1 - t0;
  r->diff = t2 - t1;
  r->strip = t3 - t2;
  r->png = t4 - t3;
  r->html = t5 - t4;
  r->floor = t7 - t6;
  r->frames = strip.count;
  r->changes = ens_visdiff_count(vd);
  r->width = size.width;
  r->height = size.height;
done:
  ens_free(json[0]);
  ens_free(json[1]);
  ens_free(png);
  ens_free(html);
  ens_visdiff_strip_free(&strip);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
  if (rc) fprintf(stderr, "bench_visdiff_anim: %s\n", ens_error_last());
  return rc;
}

int main(int argc, char **argv) {
  int runs = 5, i = 1;
  if (i + 1 < argc && !strcmp(argv[i], "--runs")) {
    runs = atoi(argv[i + 1]);
    i += 2;
  }
  if (runs < 1 || i >= argc || argc - i > 2) {
    fprintf(stderr, "usage: bench_visdiff_anim [--runs N] OLD [NEW]\n");
    return 2;
  }
  const char *old_path = argv[i], *new_path = i + 1 < argc ? argv[i + 1] : argv[i];
  s_run best, r;
  for (int k = 0; k < runs; k++) {
    memset(&r, 0, sizeof r);
    if (s_once(old_path, new_path, &r)) return 1;
    if (!k) {
      best = r;
      continue;
    }
    best.read = s_min(best.read, r.read);
    best.diff = s_min(best.diff, r.diff);
    best.strip = s_min(best.strip, r.strip);
    best.png = s_min(best.png, r.png);
    best.html = s_min(best.html, r.html);
    best.floor = s_min(best.floor, r.floor);
  }
  double total = best.read + best.diff + best.strip + best.png + best.html;
  fprintf(stderr,
          "%s%s%s: %zu changes, %zu frames of %d x %d, best of %d runs\n"
          "  read both       %8.2f ms\n"
          "  change list     %8.2f ms\n"
          "  strip rendered  %8.2f ms   (floor: the same %zu renders alone %.2f ms, ratio %.2f)\n"
          "  strip PNG       %8.2f ms   (%zu bytes)\n"
          "  HTML page       %8.2f ms   (%zu bytes)\n"
          "  total           %8.2f ms\n",
          old_path, new_path == old_path ? "" : " -> ", new_path == old_path ? "" : new_path, best.changes,
          best.frames, best.width, best.height, runs, best.read, best.diff, best.strip, 2 * best.frames, best.floor,
          best.floor > 0 ? best.strip / best.floor : 0, best.png, best.png_len, best.html, best.html_len, total);
  printf("{\"old\":\"%s\",\"new\":\"%s\",\"runs\":%d,\"changes\":%zu,\"frames\":%zu,\"width\":%d,\"height\":%d,"
         "\"read_ms\":%.3f,\"diff_ms\":%.3f,\"strip_ms\":%.3f,\"floor_ms\":%.3f,\"png_ms\":%.3f,\"html_ms\":%.3f,"
         "\"total_ms\":%.3f}\n",
         old_path, new_path, runs, best.changes, best.frames, best.width, best.height, best.read, best.diff,
         best.strip, best.floor, best.png, best.html, total);
  return 0;
}
