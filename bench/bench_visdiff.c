/* The visual diff of two versions of a drawing (or a font): the first run
 * in a fresh process, then the best of the warm runs, phase by phase
 * (reading both files, the diff and its marks, the composite SVG, the HTML
 * page), and the PNG beside the floor it sits on: librsvg rendering the
 * plain new drawing at the same size, the two renders alternating run by
 * run so that a noisy moment hits both. One JSON line on stdout, a table
 * on stderr.
 *
 *   bench_visdiff [--runs N] [--renders N] OLD NEW */
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

static int s_is_font(const char *path) {
  size_t n = strlen(path);
  return n > 4 && (strcmp(path + n - 4, ".sfd") == 0 || strcmp(path + n - 6, ".sfdir") == 0);
}

static int s_read(const char *path, ens_doc **out) {
  return s_is_font(path) ? ens_sfd_read_path(path, out) : ens_svg_read_path(path, out);
}

typedef struct {
  double read, diff, svg, html, total;
  size_t svg_len, html_len, changes;
} s_run;

static int s_once(const char *old_path, const char *new_path, s_run *r) {
  ens_doc *a = NULL, *b = NULL;
  ens_visdiff *vd = NULL;
  char *svg = NULL, *html = NULL;
  int rc;
  double t0 = s_now();
  if ((rc = s_read(old_path, &a)) || (rc = s_read(new_path, &b))) goto done;
  double t1 = s_now();
  if ((rc = ens_visdiff_new(a, b, &vd))) goto done;
  double t2 = s_now();
  if ((rc = ens_visdiff_svg(vd, &svg, &r->svg_len))) goto done;
  double t3 = s_now();
  if ((rc = ens_visdiff_html(vd, NULL, &html, &r->html_len))) goto done;
  double t4 = s_now();
  r->read = t1 - t0;
  r->diff = t2 - t1;
  r->svg = t3 - t2;
  r->html = t4 - t3;
  r->total = t4 - t0;
  r->changes = ens_visdiff_count(vd);
done:
  if (rc) fprintf(stderr, "bench_visdiff: %s\n", ens_error_last());
  ens_free(svg);
  ens_free(html);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
  return rc;
}

static double s_min(double a, double b) { return a < b ? a : b; }

int main(int argc, char **argv) {
  int runs = 5, renders = 2, i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (strcmp(argv[i], "--renders") == 0 && i + 1 < argc)
      renders = atoi(argv[++i]);
    else
      break;
  }
  if (argc - i != 2 || runs < 1 || renders < 0) {
    fprintf(stderr, "usage: bench_visdiff [--runs N] [--renders N] OLD NEW\n");
    return 2;
  }
  const char *old_path = argv[i], *new_path = argv[i + 1];
  s_run first, best, r;
  if (s_once(old_path, new_path, &first)) return 1;
  best = first;
  best.read = best.diff = best.svg = best.html = best.total = 1e300;
  for (int k = 0; k < runs; k++) {
    if (s_once(old_path, new_path, &r)) return 1;
    best.read = s_min(best.read, r.read);
    best.diff = s_min(best.diff, r.diff);
    best.svg = s_min(best.svg, r.svg);
    best.html = s_min(best.html, r.html);
    best.total = s_min(best.total, r.total);
  }

  /* the PNG against the plain render of NEW at the same size */
  double png = 1e300, floor_ms = 1e300;
  int w = 0, h = 0;
  if (renders > 0) {
    ens_doc *a, *b;
    ens_visdiff *vd;
    if (s_read(old_path, &a) || s_read(new_path, &b) || ens_visdiff_new(a, b, &vd)) {
      fprintf(stderr, "bench_visdiff: %s\n", ens_error_last());
      return 1;
    }
    unsigned char *plain = NULL;
    size_t plain_len = 0;
    if (!s_is_font(new_path) && ens_svg_write(b, &plain, &plain_len)) return 1;
    for (int k = 0; k < renders; k++) {
      unsigned char *p;
      size_t n;
      ens_render_size size = {0, 0, 600000};
      double t0 = s_now();
      if (ens_visdiff_png(vd, size, &p, &n)) {
        fprintf(stderr, "bench_visdiff: png: %s\n", ens_error_last());
        return 1;
      }
      png = s_min(png, s_now() - t0);
      ens_free(p);
      if (plain) {
        /* at the drawing's own size, as the composite is rendered */
        ens_image img;
        ens_render_size same = {0, 0, 600000};
        double t1 = s_now();
        if (ens_render_svg(plain, plain_len, same, &img)) {
          fprintf(stderr, "bench_visdiff: render: %s\n", ens_error_last());
          return 1;
        }
        floor_ms = s_min(floor_ms, s_now() - t1);
        w = img.width;
        h = img.height;
        ens_image_free(&img);
      }
    }
    ens_free(plain);
    ens_visdiff_free(vd);
    ens_doc_free(a);
    ens_doc_free(b);
  }
  const char *bn = strrchr(new_path, '/'), *bo = strrchr(old_path, '/');
  bn = bn ? bn + 1 : new_path;
  bo = bo ? bo + 1 : old_path;
  fprintf(stderr,
          "visual diff %s -> %s: %zu changes, composite %zu bytes, page %zu bytes\n"
          "  %-28s %10s %10s\n"
          "  %-28s %10.1f %10.1f\n  %-28s %10.1f %10.1f\n  %-28s %10.1f %10.1f\n  %-28s %10.1f %10.1f\n"
          "  %-28s %10.1f %10.1f\n",
          bo, bn, first.changes, first.svg_len, first.html_len, "ms", "first", "warm (best)", "read both files",
          first.read, best.read, "diff and marks", first.diff, best.diff, "composite SVG", first.svg, best.svg,
          "HTML page", first.html, best.html, "total", first.total, best.total);
  if (renders > 0 && floor_ms < 1e300)
    fprintf(stderr, "  PNG %d x %d: composite %.0f ms, plain render of NEW (the floor) %.0f ms, ratio %.2f (best of %d)\n",
            w, h, png, floor_ms, png / floor_ms, renders);
  else if (renders > 0)
    fprintf(stderr, "  PNG: composite %.0f ms (best of %d)\n", png, renders);
  printf("{\"old\":\"%s\",\"new\":\"%s\",\"changes\":%zu,\"first_ms\":{\"read\":%.3f,\"diff\":%.3f,\"svg\":%.3f,"
         "\"html\":%.3f,\"total\":%.3f},\"warm_ms\":{\"read\":%.3f,\"diff\":%.3f,\"svg\":%.3f,\"html\":%.3f,"
         "\"total\":%.3f},\"png_ms\":%.1f,\"plain_render_ms\":%.1f,\"width\":%d,\"height\":%d}\n",
         bo, bn, first.changes, first.read, first.diff, first.svg, first.html, first.total, best.read, best.diff,
         best.svg, best.html, best.total, renders ? png : 0.0, floor_ms < 1e300 ? floor_ms : 0.0, w, h);
  return 0;
}
