/* Visual diff of two animations: the strip. Both versions are rendered at
 * the frames chosen (visdiff_anim.c) through rlottie in child processes,
 * compared pixel for pixel, and laid out as one PNG (old over new over
 * their difference, labelled in pixel digits so that no font is needed)
 * or as an HTML page with the change list. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "ensemble/lottie.h"
#include "visdiff_int.h"

#define S_VERMILLION 0xffd55e00u
#define S_WHITE 0xffffffffu
#define S_BORDER 0xffb0b0b0u
#define S_INK 0xff222222u

static uint32_t *s_row(const ens_image *img, int y) { return (uint32_t *)(img->pixels + (size_t)y * img->stride); }

static int s_image_new(ens_image *img, int w, int h, uint32_t fill) {
  memset(img, 0, sizeof *img);
  if (w < 1 || h < 1 || w > ENS_RENDER_MAX_SIDE || h > ENS_RENDER_MAX_SIDE ||
      (double)w * h > (double)ENS_RENDER_MAX_PIXELS)
    return ens__error(ENS_ELIMIT, "visual diff: a strip of %d x %d pixels is past the renderer's limits", w, h);
  img->pixels = malloc((size_t)w * (size_t)h * 4);
  if (!img->pixels) return ens__error(ENS_ENOMEM, "out of memory drawing the strip");
  img->width = w;
  img->height = h;
  img->stride = (size_t)w * 4;
  for (int y = 0; y < h; y++) {
    uint32_t *r = s_row(img, y);
    for (int x = 0; x < w; x++) r[x] = fill;
  }
  return 0;
}

/* A premultiplied ARGB pixel over white. */
static uint32_t s_over_white(uint32_t p) {
  unsigned a = p >> 24, out = 0xff000000u;
  for (int sh = 0; sh < 24; sh += 8) {
    unsigned c = (p >> sh) & 0xff, v = c + (255 - a);
    out |= (v > 255 ? 255 : v) << sh;
  }
  return out;
}

/* --- rendering ------------------------------------------------------------------------- */

/* NEW's own size ("w", "h", as rlottie reads them) scaled down to
 * ENS_VISDIFF_FRAME_SIDE pixels a side. */
static ens_render_size s_cell(const ens_doc *doc, ens_render_size size) {
  if (size.width && size.height) return size;
  const ens_obj *root = ens_doc_root(doc);
  double w = ens__vd_num(root, "w", 256), h = ens__vd_num(root, "h", 256);
  if (!(w >= 1 && w <= ENS_RENDER_MAX_SIDE)) w = 256;
  if (!(h >= 1 && h <= ENS_RENDER_MAX_SIDE)) h = 256;
  /* one side given: the other at NEW's aspect, the same for both versions */
  double s = size.width ? size.width / w : size.height ? size.height / h : ENS_VISDIFF_FRAME_SIDE / (w > h ? w : h);
  if (s > 1 && !size.width && !size.height) s = 1;
  if (s * w > ENS_RENDER_MAX_SIDE || s * h > ENS_RENDER_MAX_SIDE) s = ENS_RENDER_MAX_SIDE / (w > h ? w : h);
  size.width = (int)(w * s + 0.5);
  size.height = (int)(h * s + 0.5);
  if (size.width < 1) size.width = 1;
  if (size.height < 1) size.height = 1;
  return size;
}

/* The first frame of a version, with its frame range: one child process
 * gives both, so that the range costs no load of its own. */
typedef struct {
  ens_lottie_info info;
  ens_image img;
} s_first;

static int s_keep_first(void *user, const ens_lottie_info *info, long frame, ens_image *img) {
  (void)frame;
  s_first *f = user;
  f->info = *info;
  f->img = *img;
  img->pixels = NULL; /* ours now */
  return 0;
}

/* Marks column i: NEW greyed, the pixels that differ from OLD in vermillion. */
static int s_mark(ens_visdiff_strip *s, size_t i) {
  const ens_image *a = &s->old_frames[i], *b = &s->new_frames[i];
  if (a->width != b->width || a->height != b->height)
    return ens__error(ENS_EINVAL, "visual diff: frame %ld came out in two sizes", s->frames[i]);
  int rc = s_image_new(&s->marked[i], b->width, b->height, S_WHITE);
  if (rc) return rc;
  int *box = s->box[i];
  box[0] = box[1] = box[2] = box[3] = -1;
  long n = 0;
  for (int y = 0; y < b->height; y++) {
    const uint32_t *ra = s_row(a, y), *rb = s_row(b, y);
    uint32_t *rm = s_row(&s->marked[i], y);
    for (int x = 0; x < b->width; x++) {
      if (ra[x] != rb[x]) {
        rm[x] = S_VERMILLION;
        if (!n++) box[0] = box[2] = x, box[1] = box[3] = y;
        if (x < box[0]) box[0] = x;
        if (x > box[2]) box[2] = x;
        if (y > box[3]) box[3] = y;
        continue;
      }
      /* light grey: what did not change, faint enough for the marks to stand out */
      uint32_t p = s_over_white(rb[x]);
      unsigned l = (((p >> 16) & 0xff) * 30 + ((p >> 8) & 0xff) * 59 + (p & 0xff) * 11) / 100;
      unsigned v = 255 - (255 - l) / 3;
      rm[x] = 0xff000000u | v << 16 | v << 8 | v;
    }
  }
  s->differing[i] = n;
  return 0;
}

static int s_json(const ens_doc *doc, unsigned char **json, size_t *len) {
  return ens_lottie_write_as(doc, ENS_LOTTIE_AS_JSON, json, len);
}

int ens_visdiff_strip_render(const ens_visdiff *vd, ens_render_size size, ens_visdiff_strip *out) {
  if (!out) return ens__error(ENS_EINVAL, "visual diff: no strip");
  memset(out, 0, sizeof *out);
  if (!vd || !vd->anim) return ens__error(ENS_EINVAL, "visual diff: a strip of frames is an animation's");
  if (size.width < 0 || size.height < 0) return ens__error(ENS_EINVAL, "visual diff: a negative frame size");
  unsigned char *json[2] = {NULL, NULL};
  size_t len[2] = {0, 0};
  s_first head[2];
  memset(head, 0, sizeof head);
  static const char *const side[2] = {"the old version", "the new version"};
  size = s_cell(vd->new_doc, size);
  int rc = 0;
  for (int k = 0; k < 2 && !rc; k++) {
    rc = s_json(k ? vd->new_doc : vd->old_doc, &json[k], &len[k]);
    if (!rc) rc = ens_render_lottie(json[k], len[k], ENS_LOTTIE_FIRST, ENS_LOTTIE_FIRST, size, s_keep_first, &head[k]);
    if (rc) rc = ens__error_prefix(rc, "%s: ", side[k]);
  }
  if (rc) goto done;
  /* the frames both have, as rlottie counts them */
  long first = head[0].info.first > head[1].info.first ? head[0].info.first : head[1].info.first;
  long last = (head[0].info.end < head[1].info.end ? head[0].info.end : head[1].info.end) - 1;
  if (last < first) {
    rc = ens__error(ENS_EINVAL, "visual diff: the two versions share no frame (%ld..%ld and %ld..%ld)",
                    head[0].info.first, head[0].info.end - 1, head[1].info.first, head[1].info.end - 1);
    goto done;
  }
  out->count = ens__vd_anim_choose(vd, first, last, out->frames, ENS_VISDIFF_MAX_FRAMES);
  for (size_t i = 0; i < out->count && !rc; i++)
    for (int k = 0; k < 2 && !rc; k++) {
      ens_image *img = k ? &out->new_frames[i] : &out->old_frames[i];
      if (out->frames[i] == head[k].info.first && head[k].img.pixels) {
        *img = head[k].img; /* rendered already */
        memset(&head[k].img, 0, sizeof head[k].img);
        continue;
      }
      rc = ens_render_lottie_frame(json[k], len[k], out->frames[i], size, img);
      if (rc) rc = ens__error_prefix(rc, "%s, frame %ld: ", side[k], out->frames[i]);
    }
  for (size_t i = 0; i < out->count && !rc; i++) rc = s_mark(out, i);
done:
  ens_image_free(&head[0].img);
  ens_image_free(&head[1].img);
  ens_free(json[0]);
  ens_free(json[1]);
  if (rc) ens_visdiff_strip_free(out);
  return rc;
}

void ens_visdiff_strip_free(ens_visdiff_strip *s) {
  if (!s) return;
  for (size_t i = 0; i < ENS_VISDIFF_MAX_FRAMES; i++) {
    ens_image_free(&s->old_frames[i]);
    ens_image_free(&s->new_frames[i]);
    ens_image_free(&s->marked[i]);
  }
  memset(s, 0, sizeof *s);
}

/* --- the PNG ----------------------------------------------------------------------------- */

/* Characters 3 pixels wide and 5 high, drawn twice the size: rows top to
 * bottom, bit 2 the left pixel. */
static const struct {
  char ch;
  unsigned char rows[5];
} s_font[] = {{'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}}, {'3', {7, 1, 7, 1, 7}},
              {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}}, {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 1, 1}},
              {'8', {7, 5, 7, 5, 7}}, {'9', {7, 5, 7, 1, 7}}, {'-', {0, 0, 7, 0, 0}}, {'O', {7, 5, 5, 5, 7}},
              {'L', {4, 4, 4, 4, 7}}, {'D', {6, 5, 5, 5, 6}}, {'N', {5, 7, 7, 7, 5}}, {'E', {7, 4, 6, 4, 7}},
              {'W', {5, 5, 7, 7, 5}}, {'I', {7, 2, 2, 2, 7}}, {'F', {7, 4, 6, 4, 4}}};
#define S_SCALE 2
#define S_ADVANCE (4 * S_SCALE)
#define S_GLYPH_H (5 * S_SCALE)

static void s_fill(ens_image *img, int x0, int y0, int w, int h, uint32_t c) {
  for (int y = y0 < 0 ? 0 : y0; y < y0 + h && y < img->height; y++) {
    uint32_t *r = s_row(img, y);
    for (int x = x0 < 0 ? 0 : x0; x < x0 + w && x < img->width; x++) r[x] = c;
  }
}

static void s_text(ens_image *img, int x, int y, const char *t) {
  for (; *t; t++, x += S_ADVANCE)
    for (size_t g = 0; g < sizeof s_font / sizeof s_font[0]; g++) {
      if (s_font[g].ch != *t) continue;
      for (int r = 0; r < 5; r++)
        for (int c = 0; c < 3; c++)
          if (s_font[g].rows[r] & (4 >> c)) s_fill(img, x + c * S_SCALE, y + r * S_SCALE, S_SCALE, S_SCALE, S_INK);
    }
}

static int s_text_width(const char *t) { return (int)strlen(t) * S_ADVANCE - S_SCALE; }

/* A frame over white, framed by a 1-pixel border, its top left at x, y. */
static void s_put(ens_image *dst, const ens_image *src, int x, int y) {
  s_fill(dst, x - 1, y - 1, src->width + 2, src->height + 2, S_BORDER);
  for (int r = 0; r < src->height; r++) {
    const uint32_t *sr = s_row(src, r);
    uint32_t *dr = s_row(dst, y + r) + x;
    for (int c = 0; c < src->width; c++) dr[c] = s_over_white(sr[c]);
  }
}

static void s_box(ens_image *img, int x0, int y0, int x1, int y1, int clip_w, int clip_h, int ox, int oy) {
  /* 2 pixels wide, just outside the differing pixels, within the cell */
  x0 = x0 - 2 < 0 ? 0 : x0 - 2;
  y0 = y0 - 2 < 0 ? 0 : y0 - 2;
  x1 = x1 + 2 >= clip_w ? clip_w - 1 : x1 + 2;
  y1 = y1 + 2 >= clip_h ? clip_h - 1 : y1 + 2;
  s_fill(img, ox + x0, oy + y0, x1 - x0 + 1, 2, S_VERMILLION);
  s_fill(img, ox + x0, oy + y1 - 1, x1 - x0 + 1, 2, S_VERMILLION);
  s_fill(img, ox + x0, oy + y0, 2, y1 - y0 + 1, S_VERMILLION);
  s_fill(img, ox + x1 - 1, oy + y0, 2, y1 - y0 + 1, S_VERMILLION);
}

int ens_visdiff_strip_png(const ens_visdiff_strip *s, unsigned char **png, size_t *len) {
  if (!s || !png || !s->count) return ens__error(ENS_EINVAL, "visual diff: no strip to draw");
  enum { M = 8, GAP = 6, LABEL_W = 4 * S_ADVANCE + 8, HEAD_H = S_GLYPH_H + 6 };
  int cw = s->new_frames[0].width, ch = s->new_frames[0].height;
  double w = M + LABEL_W + (double)s->count * (cw + 2) + (double)(s->count - 1) * GAP + M;
  double h = M + HEAD_H + 3.0 * (ch + 2) + 2.0 * GAP + M;
  ens_image img;
  int rc = w > ENS_RENDER_MAX_SIDE || h > ENS_RENDER_MAX_SIDE
               ? ens__error(ENS_ELIMIT, "visual diff: a strip of %.0f x %.0f pixels is past the limits", w, h)
               : s_image_new(&img, (int)w, (int)h, S_WHITE);
  if (rc) return rc;
  static const char *const names[3] = {"OLD", "NEW", "DIFF"};
  for (int row = 0; row < 3; row++) {
    int y = M + HEAD_H + row * (ch + 2 + GAP) + 1;
    s_text(&img, M, y + (ch - S_GLYPH_H) / 2, names[row]);
  }
  for (size_t i = 0; i < s->count; i++) {
    int x = M + LABEL_W + (int)i * (cw + 2 + GAP) + 1;
    char num[32];
    snprintf(num, sizeof num, "%ld", s->frames[i]);
    s_text(&img, x + (cw - s_text_width(num)) / 2, M, num);
    const ens_image *cells[3] = {&s->old_frames[i], &s->new_frames[i], &s->marked[i]};
    for (int row = 0; row < 3; row++) {
      int y = M + HEAD_H + row * (ch + 2 + GAP) + 1;
      if (cells[row]->width != cw || cells[row]->height != ch) {
        ens_image_free(&img);
        return ens__error(ENS_EINVAL, "visual diff: the strip's frames differ in size");
      }
      s_put(&img, cells[row], x, y);
      if (row == 1 && s->differing[i])
        s_box(&img, s->box[i][0], s->box[i][1], s->box[i][2], s->box[i][3], cw, ch, x, y);
    }
  }
  rc = ens_image_png(&img, png, len);
  ens_image_free(&img);
  return rc;
}

/* --- the page ------------------------------------------------------------------------------ */

static const char s_css[] =
    "body{font-family:sans-serif;margin:0;color:#222;background:#f4f4f4}\n"
    "header{padding:8px 14px;background:#fff;border-bottom:1px solid #ccc}\n"
    "h1{font-size:17px;margin:0 0 6px}h2{font-size:15px;margin:14px 0 6px}\n"
    "header .counts span{margin-right:12px}\n"
    ".sw{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:middle}\n"
    "main{padding:4px 14px 14px}\n"
    "table.strip{border-collapse:separate;border-spacing:6px;background:#fff;border:1px solid #ccc}\n"
    "table.strip th{font-size:12px;font-weight:normal;color:#555;text-align:center}\n"
    "table.strip th.row{text-align:right;padding-right:4px}\n"
    "table.strip img{display:block;border:1px solid #bbb;background:#fff}\n"
    "td.same{color:#777;font-size:12px;text-align:center}td.diff{color:#d55e00;font-size:12px;text-align:center}\n"
    "ul.changes{background:#fff;border:1px solid #ccc;padding:6px 6px 6px 28px;font-size:13px}\n"
    "ul.changes ul{padding-left:18px}\n"
    "li.added{color:" VD_COLOR_ADDED "}li.removed{color:" VD_COLOR_REMOVED "}li.changed{color:" VD_COLOR_CHANGED "}\n"
    "li.layer{color:#222;margin-top:3px}\n";

static int s_img(ens_buf *b, const ens_image *img, const char *alt) {
  unsigned char *png = NULL;
  size_t n = 0;
  int rc = ens_image_png(img, &png, &n);
  if (rc) return rc;
  ens__buf_printf(b, "<img alt=\"%s\" width=\"%d\" height=\"%d\" src=\"data:image/png;base64,", alt, img->width,
                  img->height);
  ens__vd_base64(b, png, n);
  ens__buf_puts(b, "\">");
  ens_free(png);
  return 0;
}

int ens_visdiff_strip_html(const ens_visdiff *vd, const ens_visdiff_strip *s, const char *title, char **html,
                           size_t *len) {
  if (!vd || !vd->anim || !s || !html) return ens__error(ENS_EINVAL, "visual diff: no animation or no strip");
  *html = NULL;
  if (!title) title = "Animation changes";
  size_t counts[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < vd->nitems; i++) counts[vd->items[i].mark]++;
  ens_buf b = ENS_BUF_INIT;
  ens__buf_puts(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
  ens__vd_escape(&b, title, strlen(title), 0);
  ens__buf_puts(&b, "</title>\n<style>\n");
  ens__buf_puts(&b, s_css);
  ens__buf_puts(&b, "</style></head>\n<body>\n<header><h1>");
  ens__vd_escape(&b, title, strlen(title), 0);
  ens__buf_printf(&b,
                  "</h1><div class=\"counts\"><span><i class=\"sw\" style=\"background:" VD_COLOR_ADDED
                  "\"></i>%zu added</span><span><i class=\"sw\" style=\"background:" VD_COLOR_REMOVED
                  "\"></i>%zu removed</span><span><i class=\"sw\" style=\"background:" VD_COLOR_CHANGED
                  "\"></i>%zu changed</span></div></header>\n<main>\n",
                  counts[ENS_VIS_ADDED], counts[ENS_VIS_REMOVED], counts[ENS_VIS_CHANGED]);
  /* the change list, one entry per layer with its changes below */
  ens__buf_puts(&b, "<h2>Changes</h2>\n");
  if (!vd->nitems) ens__buf_puts(&b, "<p>No changes.</p>\n");
  else ens__buf_puts(&b, "<ul class=\"changes\">\n");
  static const char *const cls[4] = {"", "added", "removed", "changed"};
  for (size_t i = 0; i < vd->nitems;) {
    const char *label = vd->items[i].label;
    ens__buf_puts(&b, "<li class=\"layer\">");
    ens__vd_escape(&b, label, strlen(label), 0);
    ens__buf_puts(&b, "<ul>\n");
    for (; i < vd->nitems && !strcmp(vd->items[i].label, label); i++) {
      ens__buf_printf(&b, "<li class=\"%s\">", cls[vd->items[i].mark]);
      const char *d = *vd->items[i].detail ? vd->items[i].detail : "changed";
      ens__vd_escape(&b, d, strlen(d), 0);
      ens__buf_puts(&b, "</li>\n");
    }
    ens__buf_puts(&b, "</ul></li>\n");
  }
  if (vd->nitems) ens__buf_puts(&b, "</ul>\n");
  /* the strip: a column per frame, rows old, new, difference */
  ens__buf_puts(&b, "<h2>Frames</h2>\n<table class=\"strip\">\n<tr><th></th>");
  for (size_t i = 0; i < s->count; i++) ens__buf_printf(&b, "<th>frame %ld</th>", s->frames[i]);
  ens__buf_puts(&b, "</tr>\n");
  static const char *const rows[3] = {"old", "new", "difference"};
  int rc = 0;
  for (int r = 0; r < 3 && !rc; r++) {
    ens__buf_printf(&b, "<tr class=\"%s\"><th class=\"row\">%s</th>", rows[r], rows[r]);
    for (size_t i = 0; i < s->count && !rc; i++) {
      char alt[64];
      snprintf(alt, sizeof alt, "%s, frame %ld", rows[r], s->frames[i]);
      ens__buf_puts(&b, "<td>");
      rc = s_img(&b, r == 0 ? &s->old_frames[i] : r == 1 ? &s->new_frames[i] : &s->marked[i], alt);
      ens__buf_puts(&b, "</td>");
    }
    ens__buf_puts(&b, "</tr>\n");
  }
  ens__buf_puts(&b, "<tr><th></th>");
  for (size_t i = 0; i < s->count; i++) {
    if (s->differing[i])
      ens__buf_printf(&b, "<td class=\"diff\">%ld pixels differ</td>", s->differing[i]);
    else
      ens__buf_puts(&b, "<td class=\"same\">the same</td>");
  }
  ens__buf_puts(&b, "</tr>\n</table>\n");
  ens__buf_puts(&b, "</main>\n</body></html>\n");
  if (!rc && b.oom) rc = ens__error(ENS_ENOMEM, "out of memory writing the page");
  if (rc) {
    ens__buf_free(&b);
    return rc;
  }
  size_t n;
  *html = (char *)ens__buf_detach(&b, &n);
  if (!*html) return ens__error(ENS_ENOMEM, "out of memory writing the page");
  if (len) *len = n;
  return 0;
}
