/* Tupi's graphic items (path, rect, ellipse, line, group, with their pen and
 * brush) as Lottie shape groups. Coordinates are mapped to the scene here
 * (item matrix and position baked in), so a layer's own transform is left
 * for the tweens. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tupi_int.h"

/* --- outlines ---------------------------------------------------------------- */

typedef struct {
  double x, y, ix, iy, ox, oy; /* the point and its control points, absolute */
} s_vtx;

typedef struct {
  s_vtx *v;
  size_t n, cap;
  int closed;
} s_sub;

static int s_push(ens__tupi_ctx *ctx, s_sub *s, double x, double y) {
  if (++ctx->points > ENS_TUPI_MAX_POINTS)
    return ens__error(ENS_ELIMIT, "%s: more than %u path points in one scene", ctx->where, ENS_TUPI_MAX_POINTS);
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    s_vtx *v = realloc(s->v, cap * sizeof *v);
    if (!v) return ens__error(ENS_ENOMEM, "out of memory");
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = (s_vtx){x, y, x, y, x, y};
  return 0;
}

/* Writes one outline as a Lottie "sh" item. An outline of one point, or of
 * points all in one place, is a dot in Tupi (its pen's cap drawn there);
 * Lottie draws nothing for it, so it gets a second point 1/100 away. */
static void s_emit_sub(s_sub *s, const ens__tupi_mat *m, ens_buf *b, int *first) {
  if (s->n == 0) return;
  if (s->closed && s->n > 1 && fabs(s->v[0].x - s->v[s->n - 1].x) < 1e-9 && fabs(s->v[0].y - s->v[s->n - 1].y) < 1e-9) {
    s->v[0].ix = s->v[s->n - 1].ix;
    s->v[0].iy = s->v[s->n - 1].iy;
    s->n--;
  }
  int dot = 1;
  for (size_t i = 1; i < s->n; i++)
    if (s->v[i].x != s->v[0].x || s->v[i].y != s->v[0].y || s->v[i].ix != s->v[i].x || s->v[i].iy != s->v[i].y) dot = 0;
  s_vtx extra;
  size_t n = s->n;
  if (dot) {
    extra = (s_vtx){s->v[0].x + 0.01, s->v[0].y, s->v[0].x + 0.01, s->v[0].y, s->v[0].x + 0.01, s->v[0].y};
    n = 2;
  }
  if (!*first) ens__buf_putc(b, ',');
  *first = 0;
  ens__buf_puts(b, "{\"ty\":\"sh\",\"ks\":{\"a\":0,\"k\":{\"c\":");
  ens__buf_puts(b, s->closed && !dot ? "true" : "false");
  static const char *const keys[3] = {",\"v\":[", "],\"i\":[", "],\"o\":["};
  for (int part = 0; part < 3; part++) {
    ens__buf_puts(b, keys[part]);
    for (size_t i = 0; i < n; i++) {
      const s_vtx *v = dot && i == 1 ? &extra : dot ? &s->v[0] : &s->v[i];
      double x = v->x, y = v->y, cx = part == 1 ? v->ix : v->ox, cy = part == 1 ? v->iy : v->oy;
      ens__tupi_apply(m, &x, &y);
      ens__tupi_apply(m, &cx, &cy);
      if (i) ens__buf_putc(b, ',');
      ens__buf_putc(b, '[');
      ens__tupi_jnum(b, part == 0 ? x : cx - x);
      ens__buf_putc(b, ',');
      ens__tupi_jnum(b, part == 0 ? y : cy - y);
      ens__buf_putc(b, ']');
    }
  }
  ens__buf_puts(b, "]}}}");
  s->n = 0;
  s->closed = 0;
}

static int s_is_cmd(char c) { return c && strchr("MmLlHhVvCcSsQqTtAaZz", c) != NULL; }

/* SVG path data (what Tupi writes in coords: M, L, C and Z; the rest of
 * SVG's commands are read too) as Lottie outlines. An elliptical arc is
 * drawn as a straight line, with a note. */
static int s_path_data(ens__tupi_ctx *ctx, const char *d, const ens__tupi_mat *m, ens_buf *b, int *first) {
  s_sub s = {0};
  double cx = 0, cy = 0, sx = 0, sy = 0, lcx = 0, lcy = 0; /* current, start, last control */
  char cmd = 0, prev = 0;
  int rc = 0;
  const char *p = d;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',') p++;
    if (!*p) break;
    if (s_is_cmd(*p)) {
      cmd = *p++;
    } else if (!cmd) {
      rc = ens__error(ENS_EDECODE, "%s: <path coords>: it does not start with a command", ctx->where);
      goto done;
    } else if (cmd == 'M') {
      cmd = 'L'; /* pairs after a move are lines */
    } else if (cmd == 'm') {
      cmd = 'l';
    } else if (cmd == 'Z' || cmd == 'z') {
      rc = ens__error(ENS_EDECODE, "%s: <path coords>: a number after Z", ctx->where);
      goto done;
    }
    int rel = cmd >= 'a';
    char up = (char)(rel ? cmd - 32 : cmd);
    double a[7];
    int k = up == 'M' || up == 'L' || up == 'T' ? 2 : up == 'H' || up == 'V' ? 1 : up == 'C' ? 6 : up == 'S' || up == 'Q' ? 4 : up == 'A' ? 7 : 0;
    for (int i = 0; i < k; i++)
      if ((rc = ens__tupi_num(ctx, p, &p, "<path coords>", &a[i])) != 0) goto done;
    if (up == 'Z') {
      s.closed = 1;
      s_emit_sub(&s, m, b, first);
      cx = sx;
      cy = sy;
      prev = 'Z';
      continue;
    }
    if (up == 'M') {
      s_emit_sub(&s, m, b, first);
      cx = rel ? cx + a[0] : a[0];
      cy = rel ? cy + a[1] : a[1];
      sx = cx;
      sy = cy;
      if ((rc = s_push(ctx, &s, cx, cy)) != 0) goto done;
      prev = 'M';
      continue;
    }
    if (s.n == 0 && (rc = s_push(ctx, &s, cx, cy)) != 0) goto done; /* drawing on after Z */
    double ox = rel ? cx : 0, oy = rel ? cy : 0, c1x = cx, c1y = cy, c2x, c2y, nx, ny;
    switch (up) {
    case 'L': nx = ox + a[0]; ny = oy + a[1]; c2x = nx; c2y = ny; break;
    case 'H': nx = ox + a[0]; ny = cy; c2x = nx; c2y = ny; break;
    case 'V': nx = cx; ny = oy + a[0]; c2x = nx; c2y = ny; break;
    case 'C':
      c1x = ox + a[0]; c1y = oy + a[1]; c2x = ox + a[2]; c2y = oy + a[3]; nx = ox + a[4]; ny = oy + a[5];
      break;
    case 'S':
      if (prev == 'C' || prev == 'S') { c1x = 2 * cx - lcx; c1y = 2 * cy - lcy; }
      c2x = ox + a[0]; c2y = oy + a[1]; nx = ox + a[2]; ny = oy + a[3];
      break;
    case 'Q':
    case 'T': {
      double qx, qy;
      if (up == 'Q') { qx = ox + a[0]; qy = oy + a[1]; nx = ox + a[2]; ny = oy + a[3]; }
      else {
        qx = prev == 'Q' || prev == 'T' ? 2 * cx - lcx : cx;
        qy = prev == 'Q' || prev == 'T' ? 2 * cy - lcy : cy;
        nx = ox + a[0]; ny = oy + a[1];
      }
      c1x = cx + 2.0 / 3 * (qx - cx); c1y = cy + 2.0 / 3 * (qy - cy);
      c2x = nx + 2.0 / 3 * (qx - nx); c2y = ny + 2.0 / 3 * (qy - ny);
      lcx = qx; lcy = qy; /* T reflects the quadratic control */
      break;
    }
    default: /* A */
      if ((rc = ens__tupi_note_add(ctx, "an elliptical arc in a path is drawn as a straight line")) != 0) goto done;
      nx = ox + a[5]; ny = oy + a[6]; c2x = nx; c2y = ny;
      break;
    }
    s.v[s.n - 1].ox = c1x;
    s.v[s.n - 1].oy = c1y;
    if ((rc = s_push(ctx, &s, nx, ny)) != 0) goto done;
    s.v[s.n - 1].ix = c2x;
    s.v[s.n - 1].iy = c2y;
    if (up == 'C' || up == 'S') { lcx = c2x; lcy = c2y; }
    cx = nx;
    cy = ny;
    prev = up;
  }
  s_emit_sub(&s, m, b, first);
done:
  free(s.v);
  return rc;
}

/* An ellipse as four cubic arcs (the usual 0.5523 handles). */
static int s_ellipse(ens__tupi_ctx *ctx, double cx, double cy, double rx, double ry, const ens__tupi_mat *m, ens_buf *b,
                     int *first) {
  const double k = 0.5522847498;
  s_sub s = {0};
  const double px[4] = {cx + rx, cx, cx - rx, cx}, py[4] = {cy, cy + ry, cy, cy - ry};
  const double tx[4] = {0, -rx * k, 0, rx * k}, ty[4] = {ry * k, 0, -ry * k, 0}; /* direction of travel */
  int rc = 0;
  for (int i = 0; i < 4; i++) {
    if ((rc = s_push(ctx, &s, px[i], py[i])) != 0) goto done;
    s.v[i].ix = px[i] - tx[i];
    s.v[i].iy = py[i] - ty[i];
    s.v[i].ox = px[i] + tx[i];
    s.v[i].oy = py[i] + ty[i];
  }
  s.closed = 1;
  s_emit_sub(&s, m, b, first);
done:
  free(s.v);
  return rc;
}

static int s_polygon(ens__tupi_ctx *ctx, const double *xy, int n, int closed, const ens__tupi_mat *m, ens_buf *b,
                     int *first) {
  s_sub s = {0};
  int rc = 0;
  for (int i = 0; i < n; i++)
    if ((rc = s_push(ctx, &s, xy[2 * i], xy[2 * i + 1])) != 0) goto done;
  s.closed = closed;
  s_emit_sub(&s, m, b, first);
done:
  free(s.v);
  return rc;
}

/* --- pen and brush ------------------------------------------------------------ */

static int s_hex(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "#rrggbb" as a Lottie colour property; anything else is black with a note. */
static int s_color(ens__tupi_ctx *ctx, xmlNode *n, ens_buf *b) {
  xmlChar *c = xmlGetProp(n, (const xmlChar *)"color");
  double rgb[3] = {0, 0, 0};
  int ok = c && strlen((const char *)c) == 7 && c[0] == '#';
  for (int i = 0; ok && i < 3; i++) {
    int h = s_hex((char)c[1 + 2 * i]), l = s_hex((char)c[2 + 2 * i]);
    if (h < 0 || l < 0) ok = 0;
    else rgb[i] = (h * 16 + l) / 255.0;
  }
  if (c) xmlFree(c);
  if (!ok && ens__tupi_note_add(ctx, "a colour that is not #rrggbb is drawn black") != 0) return ENS_ENOMEM;
  ens__buf_puts(b, "{\"a\":0,\"k\":[");
  for (int i = 0; i < 3; i++) {
    ens__tupi_jnum(b, rgb[i]);
    ens__buf_putc(b, ',');
  }
  ens__buf_puts(b, "1]}");
  return 0;
}

static int s_opacity(ens__tupi_ctx *ctx, xmlNode *n, ens_buf *b) {
  double alpha;
  int rc = ens__tupi_attr_num(ctx, n, "alpha", 255, &alpha);
  if (rc) return rc;
  if (alpha < 0) alpha = 0;
  if (alpha > 255) alpha = 255;
  ens__buf_puts(b, "\"o\":{\"a\":0,\"k\":");
  ens__tupi_jnum(b, alpha / 255.0 * 100.0);
  ens__buf_putc(b, '}');
  return 0;
}

/* Qt's pen dash patterns, in pen widths. */
static const double s_dash[6][7] = {{0}, {0}, {2, 4, 2}, {2, 1, 2}, {4, 4, 2, 1, 2}, {6, 4, 2, 1, 2, 1, 2}};

static int s_stroke(ens__tupi_ctx *ctx, xmlNode *pen, double scale, const char *anim, ens_buf *b, int *first) {
  double style, width, cap, join, miter;
  int rc;
  if ((rc = ens__tupi_attr_num(ctx, pen, "style", 1, &style)) || (rc = ens__tupi_attr_num(ctx, pen, "width", 1, &width)) ||
      (rc = ens__tupi_attr_num(ctx, pen, "capStyle", 0x10, &cap)) ||
      (rc = ens__tupi_attr_num(ctx, pen, "joinStyle", 0x40, &join)) ||
      (rc = ens__tupi_attr_num(ctx, pen, "miterLimit", 2, &miter)))
    return rc;
  if (style == 0) return 0; /* no pen */
  if (style > 5 && (rc = ens__tupi_note_add(ctx, "a custom pen dash pattern is drawn solid")) != 0) return rc;
  if (!*first) ens__buf_putc(b, ',');
  *first = 0;
  ens__buf_puts(b, "{\"ty\":\"st\",\"c\":");
  if (anim) ens__buf_puts(b, anim);
  else if ((rc = s_color(ctx, pen, b)) != 0) return rc;
  ens__buf_putc(b, ',');
  if ((rc = s_opacity(ctx, pen, b)) != 0) return rc;
  /* Qt's cosmetic width 0 is one pixel */
  double w = (width <= 0 ? 1 : width) * scale;
  ens__buf_puts(b, ",\"w\":{\"a\":0,\"k\":");
  ens__tupi_jnum(b, w);
  ens__buf_printf(b, "},\"lc\":%d,\"lj\":%d,\"ml\":", cap == 0x20 ? 2 : cap == 0x10 ? 3 : 1,
                  join == 0x80 ? 2 : join == 0x40 ? 3 : 1);
  ens__tupi_jnum(b, miter);
  int st = (int)style;
  if (st >= 2 && st <= 5) {
    ens__buf_puts(b, ",\"d\":[");
    const double *pat = s_dash[st];
    for (int i = 0; i < (int)pat[0]; i++) {
      ens__buf_printf(b, "%s{\"n\":\"%s\",\"nm\":\"%s%d\",\"v\":{\"a\":0,\"k\":", i ? "," : "", i % 2 ? "g" : "d",
                      i % 2 ? "gap" : "dash", i / 2 + 1);
      ens__tupi_jnum(b, pat[1 + i] * w);
      ens__buf_puts(b, "}}");
    }
    ens__buf_puts(b, "]");
  }
  ens__buf_putc(b, '}');
  return 0;
}

static int s_fill(ens__tupi_ctx *ctx, xmlNode *brush, const char *anim, ens_buf *b, int *first) {
  double style;
  int rc;
  if ((rc = ens__tupi_attr_num(ctx, brush, "style", 0, &style)) != 0) return rc;
  if (style == 0) return 0; /* no brush */
  if (style != 1 &&
      (rc = ens__tupi_note_add(ctx, "a brush pattern or gradient (style %d) is filled with its plain colour", (int)style)))
    return rc;
  if (!*first) ens__buf_putc(b, ',');
  *first = 0;
  ens__buf_puts(b, "{\"ty\":\"fl\",\"c\":");
  if (anim) ens__buf_puts(b, anim);
  else if ((rc = s_color(ctx, brush, b)) != 0) return rc;
  ens__buf_putc(b, ',');
  if ((rc = s_opacity(ctx, brush, b)) != 0) return rc;
  ens__buf_puts(b, ",\"r\":2}"); /* Qt paths fill even-odd */
  return 0;
}

/* --- items ------------------------------------------------------------------- */

static const char s_tr[] = "{\"ty\":\"tr\",\"p\":{\"a\":0,\"k\":[0,0]},\"a\":{\"a\":0,\"k\":[0,0]},\"s\":{\"a\":0,\"k\":[100,100]},"
                           "\"r\":{\"a\":0,\"k\":0},\"o\":{\"a\":0,\"k\":100},\"sk\":{\"a\":0,\"k\":0},\"sa\":{\"a\":0,\"k\":0}}";

static int s_outline(ens__tupi_ctx *ctx, xmlNode *item, const ens__tupi_mat *m, ens_buf *b, int *first) {
  const char *name = (const char *)item->name;
  int rc;
  if (strcmp(name, "path") == 0) {
    xmlChar *d = xmlGetProp(item, (const xmlChar *)"coords");
    if (!d) return ens__error(ENS_EDECODE, "%s: a <path> without coords", ctx->where);
    rc = s_path_data(ctx, (const char *)d, m, b, first);
    xmlFree(d);
    return rc;
  }
  if (strcmp(name, "ellipse") == 0) {
    double v[4];
    if ((rc = ens__tupi_attr_num(ctx, item, "cx", 0, &v[0])) || (rc = ens__tupi_attr_num(ctx, item, "cy", 0, &v[1])) ||
        (rc = ens__tupi_attr_num(ctx, item, "rx", 0, &v[2])) || (rc = ens__tupi_attr_num(ctx, item, "ry", 0, &v[3])))
      return rc;
    return s_ellipse(ctx, v[0], v[1], v[2], v[3], m, b, first);
  }
  if (strcmp(name, "rect") == 0) {
    double x, y, w, h;
    if ((rc = ens__tupi_attr_num(ctx, item, "x", 0, &x)) || (rc = ens__tupi_attr_num(ctx, item, "y", 0, &y)) ||
        (rc = ens__tupi_attr_num(ctx, item, "width", 0, &w)) || (rc = ens__tupi_attr_num(ctx, item, "height", 0, &h)))
      return rc;
    double xy[8] = {x, y, x + w, y, x + w, y + h, x, y + h};
    return s_polygon(ctx, xy, 4, 1, m, b, first);
  }
  /* line */
  double xy[4];
  if ((rc = ens__tupi_attr_num(ctx, item, "x1", 0, &xy[0])) || (rc = ens__tupi_attr_num(ctx, item, "y1", 0, &xy[1])) ||
      (rc = ens__tupi_attr_num(ctx, item, "x2", 0, &xy[2])) || (rc = ens__tupi_attr_num(ctx, item, "y2", 0, &xy[3])))
    return rc;
  return s_polygon(ctx, xy, 2, 0, m, b, first);
}

int ens__tupi_item_shapes(ens__tupi_ctx *ctx, xmlNode *item, const ens__tupi_mat *parent, const ens__tupi_paint *paint,
                          int depth, ens_buf *b, int *first) {
  const char *name = (const char *)item->name;
  int rc;
  int shape = !strcmp(name, "path") || !strcmp(name, "ellipse") || !strcmp(name, "rect") || !strcmp(name, "line");
  int group = !strcmp(name, "group");
  if (!shape && !group) {
    if (!strcmp(name, "text"))
      rc = ens__tupi_note_add(ctx, "a text item is not mapped (Lottie text needs its fonts embedded)");
    else
      rc = ens__tupi_note_add(ctx, "an item <%s> is not mapped", name);
    return rc ? rc : 1;
  }
  if (depth >= ENS_TUPI_MAX_DEPTH)
    return ens__error(ENS_ELIMIT, "%s: groups nested deeper than %d", ctx->where, ENS_TUPI_MAX_DEPTH);
  ens__tupi_mat own, m;
  if ((rc = ens__tupi_item_matrix(ctx, item, &own)) != 0) return rc;
  m = ens__tupi_mul(*parent, own);
  if (!*first) ens__buf_putc(b, ',');
  *first = 0;
  ens__buf_puts(b, "{\"ty\":\"gr\",\"nm\":");
  ens__tupi_jstr(b, name);
  ens__buf_puts(b, ",\"it\":[");
  int inner = 1;
  if (group) {
    /* Lottie draws the first item on top, Tupi the last */
    size_t n = 0;
    for (xmlNode *c = item->children; c; c = c->next)
      if (c->type == XML_ELEMENT_NODE && !ens__tupi_is(c, "properties")) n++;
    xmlNode **kids = n ? malloc(n * sizeof *kids) : NULL;
    if (n && !kids) return ens__error(ENS_ENOMEM, "out of memory");
    size_t i = 0;
    for (xmlNode *c = item->children; c; c = c->next)
      if (c->type == XML_ELEMENT_NODE && !ens__tupi_is(c, "properties")) kids[i++] = c;
    rc = 0;
    while (i-- > 0 && rc >= 0) rc = ens__tupi_item_shapes(ctx, kids[i], &m, paint, depth + 1, b, &inner);
    free(kids);
    if (rc < 0) return rc;
  } else {
    if ((rc = s_outline(ctx, item, &m, b, &inner)) != 0) return rc;
    /* stroke before fill: Lottie draws it on top, as Qt does */
    xmlNode *pen = ens__tupi_child(item, "pen"), *brush = ens__tupi_child(item, "brush");
    double scale = sqrt(fabs(m.a * m.d - m.b * m.c));
    if (pen && (rc = s_stroke(ctx, pen, scale, paint ? paint->stroke : NULL, b, &inner)) != 0) return rc;
    if (brush && (rc = s_fill(ctx, brush, paint ? paint->fill : NULL, b, &inner)) != 0) return rc;
  }
  if (!inner) ens__buf_putc(b, ',');
  ens__buf_puts(b, s_tr);
  ens__buf_puts(b, "]}");
  return 0;
}
