/* Metrics edits: a glyph's bounding box as FontForge measures it (curve
 * extrema and references included), set width (with the glyphs bound to
 * it by "use my metrics") and set left side bearing, the compound edit
 * that shifts outlines, references, anchors and hints, widens the glyph
 * and moves the composites bound to it, in one transaction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/buf.h"
#include "../../util/error.h"
#include "glyph_int.h"
#include "sfd_int.h"

/* --- bounds ------------------------------------------------------------------------------- */

typedef struct {
  double xmin, ymin, xmax, ymax;
  int any;
} s_box;

static void s_add(s_box *b, double x, double y) {
  if (!b->any) {
    b->xmin = b->xmax = x;
    b->ymin = b->ymax = y;
    b->any = 1;
    return;
  }
  if (x < b->xmin) b->xmin = x;
  if (x > b->xmax) b->xmax = x;
  if (y < b->ymin) b->ymin = y;
  if (y > b->ymax) b->ymax = y;
}

/* Zeros in (0, 1) of the derivative of one coordinate of the cubic Bezier
 * p0 c1 c2 p1: where that coordinate may have an extremum. */
static int s_cubic_t(double p0, double c1, double c2, double p1, double t[2]) {
  double a = -p0 + 3 * c1 - 3 * c2 + p1, b = 2 * (p0 - 2 * c1 + c2), c = c1 - p0;
  int n = 0;
  if (fabs(a) < 1e-12) {
    if (fabs(b) > 1e-12) {
      double r = -c / b;
      if (r > 0 && r < 1) t[n++] = r;
    }
    return n;
  }
  double disc = b * b - 4 * a * c;
  if (disc < 0) return 0;
  double sq = sqrt(disc);
  double r1 = (-b + sq) / (2 * a), r2 = (-b - sq) / (2 * a);
  if (r1 > 0 && r1 < 1) t[n++] = r1;
  if (r2 > 0 && r2 < 1) t[n++] = r2;
  return n;
}

static double s_cubic_at(double p0, double c1, double c2, double p1, double t) {
  double u = 1 - t;
  return u * u * u * p0 + 3 * u * u * t * c1 + 3 * u * t * t * c2 + t * t * t * p1;
}

/* x' = m0 x + m2 y + m4, y' = m1 x + m3 y + m5 (FontForge's order). */
static void s_tf(const double m[6], double x, double y, double *ox, double *oy) {
  *ox = m[0] * x + m[2] * y + m[4];
  *oy = m[1] * x + m[3] * y + m[5];
}

/* One segment, transformed: an affine map of a Bezier is the Bezier of
 * the mapped points, so extrema are found after mapping. */
static void s_segment(s_box *b, const double m[6], const ens__gpt *a, const ens__gpt *p, int order2) {
  double x0, y0, x1, y1;
  s_tf(m, a->x, a->y, &x0, &y0);
  s_tf(m, p->x, p->y, &x1, &y1);
  s_add(b, x1, y1);
  if (!p->has_c) return;
  double ax, ay, bx, by;
  s_tf(m, p->c1x, p->c1y, &ax, &ay);
  s_tf(m, p->c2x, p->c2y, &bx, &by);
  if (order2) { /* p0 q p1 as the cubic p0, p0+2/3(q-p0), p1+2/3(q-p1) */
    double qx = ax, qy = ay;
    ax = x0 + 2.0 / 3.0 * (qx - x0), ay = y0 + 2.0 / 3.0 * (qy - y0);
    bx = x1 + 2.0 / 3.0 * (qx - x1), by = y1 + 2.0 / 3.0 * (qy - y1);
  }
  double t[2];
  int n = s_cubic_t(x0, ax, bx, x1, t);
  for (int i = 0; i < n; i++) s_add(b, s_cubic_at(x0, ax, bx, x1, t[i]), s_cubic_at(y0, ay, by, y1, t[i]));
  n = s_cubic_t(y0, ay, by, y1, t);
  for (int i = 0; i < n; i++) s_add(b, s_cubic_at(x0, ax, bx, x1, t[i]), s_cubic_at(y0, ay, by, y1, t[i]));
}

static int s_bounds(const ens_doc *doc, const ens_obj *glyph, const double m[6], int depth, s_box *b) {
  if (depth > ENS__GLYPH_MAX_REF_DEPTH)
    return ens__error(ENS_EINVAL, "references nest deeper than %d levels", depth - 1);
  const ens_obj *fore = ens__glyph_fore(glyph);
  size_t n = fore ? ens_obj_child_count(fore) : 0;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    const ens_obj *k = ens_obj_child(fore, i);
    const char *kind = ens_obj_kind(k);
    if (strcmp(kind, ENS_SFD_CONTOUR) == 0) {
      ens__gcontour c;
      if ((rc = ens__gcontour_load(doc, k, &c))) break;
      for (size_t j = 0; j < c.n; j++) {
        if (j == 0) {
          double x, y;
          s_tf(m, c.pts[0].x, c.pts[0].y, &x, &y);
          s_add(b, x, y);
        } else {
          s_segment(b, m, &c.pts[j - 1], &c.pts[j], c.order2);
        }
      }
      ens__gcontour_free(&c);
    } else if (strcmp(kind, ENS_SFD_REF) == 0) {
      const ens_obj *t = ens_doc_get(doc, ens__glyph_target(k));
      if (!t) continue;
      double r[6] = {ens__glyph_num(k, "xx", NULL), ens__glyph_num(k, "xy", NULL), ens__glyph_num(k, "yx", NULL),
                     ens__glyph_num(k, "yy", NULL), ens__glyph_num(k, "dx", NULL), ens__glyph_num(k, "dy", NULL)};
      /* the reference's map, then ours */
      double c[6] = {r[0] * m[0] + r[1] * m[2], r[0] * m[1] + r[1] * m[3], r[2] * m[0] + r[3] * m[2],
                     r[2] * m[1] + r[3] * m[3], r[4] * m[0] + r[5] * m[2] + m[4], r[4] * m[1] + r[5] * m[3] + m[5]};
      rc = s_bounds(doc, t, c, depth + 1, b);
    }
  }
  return rc;
}

int ens_glyph_bounds(const ens_doc *doc, const char *glyph, double *xmin, double *ymin, double *xmax, double *ymax) {
  const ens_obj *g;
  int rc = ens__glyph_get(doc, glyph, &g);
  if (rc) return rc;
  static const double id[6] = {1, 0, 0, 1, 0, 0};
  s_box b = {0};
  if ((rc = s_bounds(doc, g, id, 0, &b))) return rc;
  if (!b.any) return ens__error(ENS_EINVAL, "glyph \"%s\" has no outline and no reference: it has no bounds", glyph);
  if (xmin) *xmin = b.xmin;
  if (ymin) *ymin = b.ymin;
  if (xmax) *xmax = b.xmax;
  if (ymax) *ymax = b.ymax;
  return 0;
}

/* --- width ---------------------------------------------------------------------------------- */

/* The glyph whose metrics this glyph uses (its first foreground
 * reference flagged "use my metrics", as FontForge picks it), or NONE. */
static ens_id s_metrics_of(const ens_obj *glyph) {
  const ens_obj *fore = ens__glyph_fore(glyph);
  size_t n = fore ? ens_obj_child_count(fore) : 0;
  for (size_t i = 0; i < n; i++) {
    const ens_obj *k = ens_obj_child(fore, i);
    if (strcmp(ens_obj_kind(k), ENS_SFD_REF) == 0 && (ens__glyph_int(k, "flags", 0) & 1)) return ens__glyph_target(k);
  }
  return ENS_ID_NONE;
}

/* Sets g's width and, as FontForge's SCSynchronizeWidth does, that of
 * every glyph bound to g's metrics that had g's old width, recursively
 * (a breadth-first walk with a visited list: a cycle cannot loop). */
static int s_sync_width(const ens_doc *doc, const ens_obj *g, int64_t now, int64_t was, ens_txn *txn) {
  const ens_obj *root = ens_doc_root(doc);
  size_t nglyphs = ens_obj_child_count(root), head = 0, tail = 0;
  const ens_obj **queue = malloc((nglyphs + 1) * sizeof *queue);
  if (!queue) return ens__error(ENS_ENOMEM, "out of memory setting a width");
  int rc = 0;
  queue[tail++] = g;
  while (head < tail && !rc) {
    const ens_obj *cur = queue[head++];
    rc = ens_txn_set(txn, ens_obj_id(cur), "width", ens_int(now));
    for (size_t i = 0; i < nglyphs && !rc; i++) {
      const ens_obj *d = ens_obj_child(root, i);
      if (strcmp(ens_obj_kind(d), ENS_SFD_GLYPH) != 0 || s_metrics_of(d) != ens_obj_id(cur)) continue;
      if (ens__glyph_int(d, "width", INT64_MIN) != was) continue;
      int seen = 0;
      for (size_t q = 0; q < tail; q++) seen |= queue[q] == d;
      if (!seen && tail < nglyphs + 1) queue[tail++] = d;
    }
  }
  free(queue);
  return rc;
}

static int s_check_width(int64_t w) {
  if (w < -32768 || w > 32767)
    return ens__error(ENS_EINVAL, "width %lld is beyond what FontForge keeps (-32768..32767)", (long long)w);
  return 0;
}

int ens_glyph_set_width(ens_doc *doc, const char *glyph, int width, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_set_width needs an output");
  *out = NULL;
  const ens_obj *g;
  int rc = ens__glyph_get(doc, glyph, &g);
  if (rc) return rc;
  if ((rc = s_check_width(width))) return rc;
  ens_id bound = s_metrics_of(g);
  if (bound) {
    const ens_obj *t = ens_doc_get(doc, bound);
    ens_value v;
    const char *tn = t && ens_obj_get(t, "name", &v) == 0 && v.type == ENS_STR ? v.u.s.ptr : "?";
    int tl = t && v.type == ENS_STR ? (int)v.u.s.len : 1;
    return ens__error(ENS_EINVAL,
                      "glyph \"%s\" uses the metrics of \"%.*s\" (a reference flagged so): set that glyph's width",
                      glyph, tl, tn);
  }
  ens_txn *txn;
  if ((rc = ens__glyph_txn("Set width", &txn))) return rc;
  rc = s_sync_width(doc, g, width, ens__glyph_int(g, "width", 0), txn);
  if (rc) {
    ens_txn_free(txn);
    return rc;
  }
  *out = txn;
  return 0;
}

/* --- left side bearing -------------------------------------------------------------------------- */

/* Hint text: "pos width[G][<a b ...>] ..." per stem. Shifts by d the
 * stem positions (which = 1: the first number of each stem, as for
 * VStem), the ranges inside <> (which = 2: HStem), or the first and third
 * numbers (which = 3: DStem2's left and right x). Numbers are printed as
 * FontForge prints hints, %g. Text that does not read so stays as is. */
static int s_shift_hints(const char *s, size_t n, double d, int which, ens_buf *out) {
  const char *p = s, *e = s + n;
  int per_stem = which == 3 ? 6 : 2, nth = 0, in_range = 0;
  while (p < e) {
    char ch = *p;
    if (ch == '<' || ch == '>') in_range = ch == '<';
    if (ch == '-' || ch == '+' || ch == '.' || (ch >= '0' && ch <= '9')) {
      double v;
      int used = ens__sfd_parse_real(p, e, &v);
      if (used <= 0) return -1;
      int shift = which == 2 ? in_range : !in_range && (nth == 0 || (which == 3 && nth == 2));
      if (!in_range) nth = (nth + 1) % per_stem;
      if (shift) {
        char b[48];
        int k = snprintf(b, sizeof b, "%g", v + d);
        for (int i = 0; i < k; i++)
          if (b[i] == ',') b[i] = '.'; /* %g in a locale with a decimal comma */
        ens__buf_append(out, b, (size_t)k);
      } else {
        ens__buf_append(out, p, (size_t)used);
      }
      p += used;
      continue;
    }
    ens__buf_putc(out, (unsigned char)ch);
    p++;
  }
  return out->oom ? ENS_ENOMEM : 0;
}

static int s_hint(ens_txn *txn, const ens_obj *g, const char *key, double d, int which) {
  ens_value v;
  if (ens_obj_get(g, key, &v) || v.type != ENS_STR) return 0;
  ens_buf b = ENS_BUF_INIT;
  int rc = 0;
  if (s_shift_hints(v.u.s.ptr, v.u.s.len, d, which, &b) == 0 && !b.oom)
    rc = ens_txn_set(txn, ens_obj_id(g), key, ens_strn((const char *)b.data, b.len));
  else if (b.oom)
    rc = ens__error(ENS_ENOMEM, "out of memory shifting hints");
  ens__buf_free(&b);
  return rc;
}

/* FontForge moves a glyph with its transform functions, which compute in
 * its `real` (float) and snap every coordinate they touch, x and y, to
 * 1/1024 of a unit (BpTransform: rint(1024 * v) / 1024). A bearing change
 * here lands on exactly the same coordinates. */
static double s_ff_shift(double v, double d) {
  float f = (float)((float)v + (float)d);
  return rint((double)(float)(1024.0f * f)) / 1024.0;
}

/* Shifts every contour and reference of one layer by d, but for the
 * references to `keep` (ENS_ID_NONE: none), which stay where they are. */
static int s_shift_layer(const ens_doc *doc, const ens_obj *layer, double d, ens_id keep, ens_txn *txn) {
  size_t n = ens_obj_child_count(layer);
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    const ens_obj *k = ens_obj_child(layer, i);
    const char *kind = ens_obj_kind(k);
    if (strcmp(kind, ENS_SFD_CONTOUR) == 0) {
      ens__gcontour c;
      if ((rc = ens__gcontour_load(doc, k, &c))) break;
      for (size_t j = 0; j < c.n && !rc; j++) {
        ens__gpt now = c.pts[j];
        now.x = s_ff_shift(now.x, d);
        now.y = s_ff_shift(now.y, 0);
        if (now.has_c) {
          now.c1x = s_ff_shift(now.c1x, d);
          now.c1y = s_ff_shift(now.c1y, 0);
          now.c2x = s_ff_shift(now.c2x, d);
          now.c2y = s_ff_shift(now.c2y, 0);
        }
        rc = ens__gpt_update(txn, &c.pts[j], &now);
      }
      ens__gcontour_free(&c);
    } else if (strcmp(kind, ENS_SFD_REF) == 0 && (keep == ENS_ID_NONE || ens__glyph_target(k) != keep)) {
      /* offsets are not snapped */
      rc = ens_txn_set(txn, ens_obj_id(k), "dx", ens_real(ens__glyph_num(k, "dx", NULL) + d));
    }
  }
  return rc;
}

static int s_shift_anchor(ens_txn *txn, const ens_obj *a, double d) {
  int has_y;
  double x = ens__glyph_num(a, "x", NULL), y = ens__glyph_num(a, "y", &has_y);
  int rc = ens_txn_set(txn, ens_obj_id(a), "x", ens_real(s_ff_shift(x, d)));
  if (!rc && has_y && s_ff_shift(y, 0) != y) rc = ens_txn_set(txn, ens_obj_id(a), "y", ens_real(s_ff_shift(y, 0)));
  return rc;
}

/* The composites bound to g by "use my metrics" follow a change of its
 * left side bearing, as FontForge's SCSynchronizeLBearing moves them: g's
 * outline moved by d inside each of them, so their own contours and their
 * other references (the accents) move by d too, with their stem hints,
 * and the same again for the composites bound to those (breadth first,
 * with a visited list: a cycle cannot loop). Only the foreground layer,
 * the one the binding is in. Their widths are s_sync_width's. */
static int s_sync_lbearing(const ens_doc *doc, const ens_obj *g, double d, ens_txn *txn) {
  const ens_obj *root = ens_doc_root(doc);
  size_t nglyphs = ens_obj_child_count(root), head = 0, tail = 0;
  const ens_obj **queue = malloc((nglyphs + 1) * sizeof *queue);
  if (!queue) return ens__error(ENS_ENOMEM, "out of memory moving the composites of a glyph");
  int rc = 0;
  queue[tail++] = g;
  while (head < tail && !rc) {
    const ens_obj *cur = queue[head++];
    for (size_t i = 0; i < nglyphs && !rc; i++) {
      const ens_obj *dep = ens_obj_child(root, i);
      if (strcmp(ens_obj_kind(dep), ENS_SFD_GLYPH) != 0 || s_metrics_of(dep) != ens_obj_id(cur)) continue;
      int seen = 0;
      for (size_t q = 0; q < tail; q++) seen |= queue[q] == dep;
      if (seen || tail >= nglyphs + 1) continue;
      queue[tail++] = dep;
      const ens_obj *fore = ens__glyph_fore(dep);
      if (fore) rc = s_shift_layer(doc, fore, d, ens_obj_id(cur), txn);
      if (!rc) rc = s_hint(txn, dep, "vstem", d, 1);
      if (!rc) rc = s_hint(txn, dep, "hstem", d, 2);
      if (!rc) rc = s_hint(txn, dep, "dstem2", d, 3);
    }
  }
  free(queue);
  return rc;
}

int ens_glyph_set_lsb(ens_doc *doc, const char *glyph, double lsb, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_set_lsb needs an output");
  *out = NULL;
  if (!isfinite(lsb)) return ens__error(ENS_EINVAL, "a left side bearing must be a finite number");
  const ens_obj *g;
  int rc = ens__glyph_get(doc, glyph, &g);
  if (rc) return rc;
  double xmin;
  if ((rc = ens_glyph_bounds(doc, glyph, &xmin, NULL, NULL, NULL))) return rc;
  double d = lsb - xmin;
  int64_t was = ens__glyph_int(g, "width", 0);
  /* FontForge keeps the width in 16 bits and truncates the sum */
  double wide = (double)was + d;
  if (wide < -32768 || wide >= 32768)
    return ens__error(ENS_EINVAL, "moving glyph \"%s\" by %g makes its width %g, beyond -32768..32767", glyph, d, wide);
  ens_txn *txn;
  if ((rc = ens__glyph_txn("Set left side bearing", &txn))) return rc;
  if (d != 0) {
    size_t n = ens_obj_child_count(g);
    for (size_t i = 0; i < n && !rc; i++) {
      const ens_obj *k = ens_obj_child(g, i);
      const char *kind = ens_obj_kind(k);
      if (strcmp(kind, ENS_SFD_LAYER) == 0) rc = s_shift_layer(doc, k, d, ENS_ID_NONE, txn); /* every layer, as FontForge */
      else if (strcmp(kind, ENS_SFD_ANCHOR) == 0)
        rc = s_shift_anchor(txn, k, d);
    }
    if (!rc) rc = s_hint(txn, g, "vstem", d, 1);
    if (!rc) rc = s_hint(txn, g, "hstem", d, 2);
    if (!rc) rc = s_hint(txn, g, "dstem2", d, 3);
    /* FontForge moves the bound composites only when the glyph is a letter */
    if (!rc && ens__glyph_is_letter(ens__glyph_int(g, "unicode", -1))) rc = s_sync_lbearing(doc, g, d, txn);
    int64_t now = (int64_t)wide;
    /* a glyph bound to another's metrics keeps that width */
    if (!rc && now != was && !s_metrics_of(g)) rc = s_sync_width(doc, g, now, was, txn);
  }
  if (rc) {
    ens_txn_free(txn);
    return rc;
  }
  *out = txn;
  return 0;
}
