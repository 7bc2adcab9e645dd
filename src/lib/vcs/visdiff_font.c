/* Visual diff of fonts: the glyphs the diff touches, each drawn in a cell
 * of a grid with its old outline as a ghost beneath the new one, the
 * points and contours added, removed and moved marked, and its metrics
 * (baseline, origin, advance width old and new). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../formats/sfd/glyph_int.h"
#include "ensemble/sfd.h"
#include "visdiff_int.h"

/* --- marks ------------------------------------------------------------------------------ */

typedef struct {
  ens_id glyph;
  size_t pts_added, pts_removed, pts_moved, contours_added, contours_removed;
  ens_buf keys;
} s_gl;

typedef struct {
  ens_visdiff *vd;
  s_gl *g;
  size_t ng, capg;
} s_ctx;

static const ens_obj *s_glyph_of(const ens_obj *o) {
  for (; o; o = ens_obj_parent(o))
    if (strcmp(ens_obj_kind(o), "glyph") == 0) return o;
  return NULL;
}

static s_gl *s_gl_get(s_ctx *c, ens_id glyph) {
  int rc = ens__vd_map_add(&c->vd->marks, glyph, 0);
  if (rc) return NULL;
  int32_t *slot = ens__vd_map_item(&c->vd->marks, glyph);
  if (*slot >= 0) return &c->g[*slot];
  if (c->ng == c->capg) {
    size_t cap = c->capg ? c->capg * 2 : 64;
    s_gl *n = realloc(c->g, cap * sizeof *n);
    if (!n) return NULL;
    c->g = n;
    c->capg = cap;
  }
  memset(&c->g[c->ng], 0, sizeof c->g[c->ng]);
  c->g[c->ng].glyph = glyph;
  *slot = (int32_t)c->ng;
  return &c->g[c->ng++];
}

static void s_key(s_gl *g, const char *what) {
  ens_buf *t = &g->keys;
  size_t wl = strlen(what);
  for (size_t i = 0; i + wl <= t->len; i++)
    if ((i == 0 || t->data[i - 1] == ' ') && memcmp(t->data + i, what, wl) == 0 &&
        (i + wl == t->len || t->data[i + wl] == ','))
      return;
  if (t->len) ens__buf_puts(t, ", ");
  ens__buf_puts(t, what);
}

static size_t s_count_kind(const ens_obj *o, const char *kind) {
  size_t n = strcmp(ens_obj_kind(o), kind) == 0;
  for (size_t i = 0; i < ens_obj_child_count(o); i++) n += s_count_kind(ens_obj_child(o, i), kind);
  return n;
}

static int s_same_without_o(ens_value a, ens_value b) {
  size_t i = 0, j = 0;
  for (;;) {
    while (i < a.u.s.len && (a.u.s.ptr[i] == 'O' || a.u.s.ptr[i] == ' ')) i++;
    while (j < b.u.s.len && (b.u.s.ptr[j] == 'O' || b.u.s.ptr[j] == ' ')) j++;
    if (i == a.u.s.len || j == b.u.s.len) return i == a.u.s.len && j == b.u.s.len;
    if (a.u.s.ptr[i++] != b.u.s.ptr[j++]) return 0;
  }
}

static int s_op(s_ctx *c, size_t i) {
  ens_visdiff *vd = c->vd;
  const ens_txn *t = vd->txn;
  ens_id id = ens_txn_op_target(t, i);
  ens_op_kind k = ens_txn_op_kind(t, i);
  const ens_obj *o = ens_doc_get(k == ENS_OP_DELETE ? vd->old_doc : vd->cur, id);
  const ens_obj *g = s_glyph_of(o);
  if (!o || !g) return 0; /* the font's own header: not drawn */
  const char *kind = ens_obj_kind(o);
  if (g == o && (k == ENS_OP_INSERT || k == ENS_OP_DELETE))
    return ens__vd_map_add(&vd->marks, id, k == ENS_OP_INSERT ? VD_ADDED : VD_REMOVED);
  if (k == ENS_OP_SET) {
    const char *key;
    ens_value v, was;
    ens_txn_op_set(t, i, &key, &v);
    if (key[0] == '~' || key[0] == '@') return 0;
    const ens_obj *before = ens_doc_get(vd->old_doc, id);
    /* FontForge's selection of a point is editor state */
    if (strcmp(key, "flags") == 0 && strcmp(kind, "point") == 0 && v.type == ENS_INT &&
        ens_obj_get(before, key, &was) == 0 && was.type == ENS_INT && ((v.u.i ^ was.u.i) & ~(int64_t)4) == 0)
      return 0;
    if (strcmp(key, "selected") == 0 && strcmp(kind, "ref") == 0) return 0;
    /* and the O of a glyph's Flags: the glyph was open in a window */
    if (g == o && strcmp(key, "flags") == 0 && v.type == ENS_STR && ens_obj_get(before, key, &was) == 0 &&
        was.type == ENS_STR && s_same_without_o(v, was))
      return 0;
    s_gl *gl = s_gl_get(c, ens_obj_id(g));
    if (!gl) return ens__error(ENS_ENOMEM, "out of memory");
    if (strcmp(kind, "point") == 0) {
      if (!(ens__vd_map_flags(&vd->marks, id) & VD_ATTRS)) gl->pts_moved++;
      int rc = ens__vd_map_add(&vd->marks, id, VD_ATTRS);
      if (rc) return rc;
    } else if (g == o && strcmp(key, "width") == 0) {
      char buf[96];
      snprintf(buf, sizeof buf, "width %g -> %g", ens__vd_num(before, "width", 0), ens__vd_num(o, "width", 0));
      s_key(gl, buf);
    } else {
      char buf[160];
      snprintf(buf, sizeof buf, "%s%s%.100s", g == o ? "" : kind, g == o ? "" : " ", key);
      s_key(gl, buf);
    }
    return ens__vd_map_add(&vd->marks, ens_obj_id(g), VD_CHANGED);
  }
  s_gl *gl = s_gl_get(c, ens_obj_id(g));
  if (!gl) return ens__error(ENS_ENOMEM, "out of memory");
  int rc = 0;
  if (k == ENS_OP_INSERT) {
    rc = ens__vd_map_add(&vd->marks, id, VD_INSERTED);
    gl->pts_added += s_count_kind(o, "point");
    gl->contours_added += s_count_kind(o, "contour");
    if (!gl->pts_added && !gl->contours_added) s_key(gl, kind);
  } else if (k == ENS_OP_DELETE) {
    rc = ens__vd_map_add(&vd->marks, id, VD_REMOVED);
    gl->pts_removed += s_count_kind(o, "point");
    gl->contours_removed += s_count_kind(o, "contour");
    if (!s_count_kind(o, "point")) s_key(gl, kind);
  } else {
    rc = ens__vd_map_add(&vd->marks, id, VD_MOVED);
    s_key(gl, "order");
  }
  return rc ? rc : ens__vd_map_add(&vd->marks, ens_obj_id(g), VD_CHANGED);
}

typedef struct {
  s_ctx *c;
  uint32_t want;
  int rc;
} s_walk;

static int s_list(const ens_obj *o, size_t depth, void *user) {
  s_walk *w = user;
  if (depth > 1 || strcmp(ens_obj_kind(o), "glyph") != 0) return 0;
  uint32_t f = ens__vd_map_flags(&w->c->vd->marks, ens_obj_id(o));
  if (!(f & w->want)) return 0;
  ens_vis_mark m = (f & VD_ADDED) ? ENS_VIS_ADDED : (f & VD_REMOVED) ? ENS_VIS_REMOVED : ENS_VIS_CHANGED;
  ens_buf d = ENS_BUF_INIT;
  int32_t *slot = ens__vd_map_item(&w->c->vd->marks, ens_obj_id(o));
  if (m == ENS_VIS_CHANGED && slot && *slot >= 0) {
    s_gl *g = &w->c->g[*slot];
    if (g->keys.len) ens__buf_append(&d, g->keys.data, g->keys.len);
#define S_COUNT(n, what)                                 \
  if (n) ens__buf_printf(&d, "%s%zu " what, d.len ? ", " : "", (size_t)(n));
    S_COUNT(g->pts_moved, "points moved")
    S_COUNT(g->pts_added, "points added")
    S_COUNT(g->pts_removed, "points removed")
    S_COUNT(g->contours_added, "contours added")
    S_COUNT(g->contours_removed, "contours removed")
#undef S_COUNT
  }
  ens__buf_putc(&d, 0);
  size_t n;
  const char *name = ens__vd_str(o, "name", &n);
  char label[300];
  snprintf(label, sizeof label, "glyph %.*s", name ? (int)(n > 256 ? 256 : n) : 1, name ? name : "?");
  w->rc = d.oom ? ens__error(ENS_ENOMEM, "out of memory") : ens__vd_item_add(w->c->vd, m, ens_obj_id(o), label,
                                                                              (const char *)d.data);
  ens__buf_free(&d);
  return w->rc;
}

int ens__vd_mark_font(ens_visdiff *vd) {
  s_ctx c = {vd, NULL, 0, 0};
  int rc = 0;
  size_t n = ens_txn_op_count(vd->txn);
  for (size_t i = 0; i < n && !rc; i++) rc = s_op(&c, i);
  s_walk w = {&c, VD_ADDED | VD_CHANGED, 0};
  if (!rc) rc = ens_obj_walk(ens_doc_root(vd->cur), s_list, &w);
  w.want = VD_REMOVED;
  if (!rc) rc = ens_obj_walk(ens_doc_root(vd->old_doc), s_list, &w);
  for (size_t i = 0; i < c.ng; i++) ens__buf_free(&c.g[i].keys);
  free(c.g);
  return rc;
}

/* --- drawing ------------------------------------------------------------------------------ */

typedef struct {
  double a, b, c, d, e, f;
} s_mat;

static void s_xy(ens_buf *b, const s_mat *m, double x, double y) {
  ens__buf_printf(b, "%g %g", m->a * x + m->c * y + m->e, m->b * x + m->d * y + m->f);
}

static const ens_obj *s_fore(const ens_obj *glyph) {
  const ens_obj *first = NULL;
  for (size_t i = 0; i < ens_obj_child_count(glyph); i++) {
    const ens_obj *l = ens_obj_child(glyph, i);
    if (strcmp(ens_obj_kind(l), "layer") != 0) continue;
    ens_value v;
    if (ens_obj_get(l, "index", &v) == 0) {
      if (v.type == ENS_INT && v.u.i == 1) return l;
    } else if (!first) {
      first = l;
    }
  }
  return first;
}

static void s_contour(ens_buf *b, const ens_obj *contour, const s_mat *m) {
  size_t n = ens_obj_child_count(contour);
  for (size_t i = 0; i < n; i++) {
    const ens_obj *p = ens_obj_child(contour, i);
    double x = ens__vd_num(p, "x", 0), y = ens__vd_num(p, "y", 0);
    ens_value v;
    if (i == 0) {
      ens__buf_puts(b, "M");
    } else if (ens_obj_get(p, "c1x", &v) == 0) {
      double c1x = ens__vd_num(p, "c1x", 0), c1y = ens__vd_num(p, "c1y", 0);
      double c2x = ens__vd_num(p, "c2x", 0), c2y = ens__vd_num(p, "c2y", 0);
      /* a quadratic (TrueType) font's curve carries its one control point
       * twice; a cubic one whose two control points meet is the same curve
       * within a hair */
      if (c1x == c2x && c1y == c2y) {
        ens__buf_puts(b, "Q");
      } else {
        ens__buf_puts(b, "C");
        s_xy(b, m, c1x, c1y);
        ens__buf_putc(b, ' ');
      }
      s_xy(b, m, c2x, c2y);
      ens__buf_putc(b, ' ');
    } else {
      ens__buf_puts(b, "L");
    }
    s_xy(b, m, x, y);
  }
  if (n && ens_sfd_contour_closed(contour)) ens__buf_puts(b, "Z");
}

/* The glyph's outline: its foreground's contours and, transformed, those
 * of the glyphs it references, as the font format draws it
 * (ens_glyph_outline_get: nesting, cycles and the work done bounded, so a
 * hostile font cannot hang the diff). */
static void s_path(ens_buf *b, const ens_doc *doc, const ens_obj *glyph, const char *cls) {
  ens_glyph_outline o;
  if (ens__glyph_outline_of(doc, glyph, 0, &o) || !o.ncontours) {
    ens_glyph_outline_free(&o); /* an empty glyph (or one that cannot be drawn): nothing to draw */
    return;
  }
  ens__buf_printf(b, "<path class=\"%s\" d=\"", cls);
  for (size_t c = 0; c < o.ncontours; c++) {
    const ens_glyph_opoint *p = o.points + o.contours[c].first;
    size_t n = o.contours[c].count, i = 1;
    ens__buf_printf(b, "M%g %g", p[0].x, p[0].y);
    /* a segment: its controls (0, 1 or 2), then its end; a closed
     * contour's last segment ends at its first point */
    while (i < n) {
      size_t k = 0;
      while (i + k < n && !p[i + k].on) k++;
      const ens_glyph_opoint *end = i + k < n ? &p[i + k] : &p[0];
      if (k == 0) ens__buf_printf(b, "L%g %g", end->x, end->y);
      else if (k == 1) ens__buf_printf(b, "Q%g %g %g %g", p[i].x, p[i].y, end->x, end->y);
      else ens__buf_printf(b, "C%g %g %g %g %g %g", p[i].x, p[i].y, p[i + k - 1].x, p[i + k - 1].y, end->x, end->y);
      i += k + 1;
    }
    if (o.contours[c].closed) ens__buf_puts(b, "Z");
  }
  ens__buf_puts(b, "\"/>");
  ens_glyph_outline_free(&o);
}

static const s_mat s_id = {1, 0, 0, 1, 0, 0};

static void s_dot(ens_buf *b, const char *cls, double x, double y, double r) {
  ens__buf_printf(b, "<circle class=\"%s\" cx=\"%g\" cy=\"%g\" r=\"%g\"/>", cls, x, y, r);
}

/* Markers of what changed inside a glyph: contours and points added
 * (inserted in NEW), removed (drawn from OLD), and points moved (a line
 * from where they were). */
static void s_markers(ens_visdiff *vd, ens_buf *b, const ens_obj *gnew, const ens_obj *gold, double r) {
  const ens_obj *ln = gnew ? s_fore(gnew) : NULL, *lo = gold ? s_fore(gold) : NULL;
  for (size_t i = 0; lo && i < ens_obj_child_count(lo); i++) {
    const ens_obj *c = ens_obj_child(lo, i);
    if (strcmp(ens_obj_kind(c), "contour") != 0) continue;
    int gone = (ens__vd_map_flags(&vd->marks, ens_obj_id(c)) & VD_REMOVED) != 0;
    if (gone) {
      ens__buf_puts(b, "<path class=\"ens-contour-removed\" d=\"");
      s_contour(b, c, &s_id);
      ens__buf_puts(b, "\"/>");
    }
    for (size_t j = 0; j < ens_obj_child_count(c); j++) {
      const ens_obj *p = ens_obj_child(c, j);
      if (gone || (ens__vd_map_flags(&vd->marks, ens_obj_id(p)) & VD_REMOVED))
        s_dot(b, "ens-pt-removed", ens__vd_num(p, "x", 0), ens__vd_num(p, "y", 0), r);
    }
  }
  for (size_t i = 0; ln && i < ens_obj_child_count(ln); i++) {
    const ens_obj *c = ens_obj_child(ln, i);
    if (strcmp(ens_obj_kind(c), "contour") != 0) continue;
    int added = (ens__vd_map_flags(&vd->marks, ens_obj_id(c)) & VD_INSERTED) != 0 ||
                (ens__vd_map_flags(&vd->marks, ens_obj_id(ln)) & VD_INSERTED) != 0;
    if (added) {
      ens__buf_puts(b, "<path class=\"ens-contour-added\" d=\"");
      s_contour(b, c, &s_id);
      ens__buf_puts(b, "\"/>");
    }
    for (size_t j = 0; j < ens_obj_child_count(c); j++) {
      const ens_obj *p = ens_obj_child(c, j);
      uint32_t f = ens__vd_map_flags(&vd->marks, ens_obj_id(p));
      double x = ens__vd_num(p, "x", 0), y = ens__vd_num(p, "y", 0);
      if (added || (f & VD_INSERTED)) {
        s_dot(b, "ens-pt-added", x, y, r);
      } else if (f & VD_ATTRS) {
        const ens_obj *was = ens_doc_get(vd->old_doc, ens_obj_id(p));
        double ox = ens__vd_num(was, "x", x), oy = ens__vd_num(was, "y", y);
        if (ox != x || oy != y)
          ens__buf_printf(b, "<line class=\"ens-pt-path\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>", ox, oy, x, y);
        s_dot(b, "ens-pt-moved", x, y, r);
      }
    }
  }
}

int ens__vd_font_write(ens_visdiff *vd, ens_buf *b, int side) {
  const ens_obj *root = ens_doc_root(vd->cur);
  double asc = ens__vd_num(root, "Ascent", 800), desc = ens__vd_num(root, "Descent", 200);
  if (asc <= 0) asc = 800;
  if (desc < 0) desc = -desc;
  double em = asc + desc;
  /* the widest glyph shown sets the cells' width */
  double maxw = em;
  for (size_t i = 0; i < vd->nitems; i++) {
    const ens_obj *gn = ens_doc_get(vd->cur, vd->items[i].id), *go = ens_doc_get(vd->old_doc, vd->items[i].id);
    double wn = ens__vd_num(gn, "width", 0), wo = ens__vd_num(go, "width", 0);
    if (wn > maxw && wn < 100 * em) maxw = wn;
    if (wo > maxw && wo < 100 * em) maxw = wo;
  }
  double pad = em * 0.15, label = em * 0.22;
  double cw = maxw + 2 * pad, ch = em + 2 * pad + label;
  size_t n = vd->nitems, cols = n < 6 ? (n ? n : 1) : 6, rows = n ? (n + cols - 1) / cols : 1;
  double W = cw * (double)cols, H = ch * (double)rows;
  vd->width = 240.0 * (double)cols * cw / ch;
  vd->height = 240.0 * (double)rows;
  double sw = em / 400, r = em / 70;
  ens__buf_printf(b,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %g %g\" width=\"%g\" height=\"%g\">\n",
                  W, H, vd->width, vd->height);
  ens__buf_printf(b,
                  "<style id=\"ens-visdiff-style\" type=\"text/css\">\n"
                  ".ens-cell{fill:#ffffff;stroke:#dddddd;stroke-width:%g}\n"
                  ".ens-label{font-family:sans-serif;font-size:%gpx;fill:#333333}\n"
                  ".ens-metric{stroke:#bbbbbb;stroke-width:%g;fill:none}\n"
                  ".ens-advance-new{stroke:" VD_COLOR_CHANGED "}\n"
                  ".ens-advance-old{stroke:" VD_COLOR_REMOVED ";stroke-dasharray:%g,%g}\n"
                  ".ens-outline{fill:#222222;fill-opacity:0.4;stroke:none}\n"
                  ".ens-added .ens-outline{fill:" VD_COLOR_ADDED "}\n"
                  ".ens-removed .ens-outline{fill:" VD_COLOR_REMOVED ";fill-opacity:0.25;stroke:" VD_COLOR_REMOVED
                  ";stroke-width:%g;stroke-dasharray:%g,%g}\n"
                  ".ens-changed .ens-outline{stroke:" VD_COLOR_CHANGED ";stroke-width:%g}\n"
                  ".ens-ghost{fill:none;stroke:#444444;stroke-width:%g;stroke-dasharray:%g,%g}\n"
                  ".ens-contour-added{fill:none;stroke:" VD_COLOR_ADDED ";stroke-width:%g}\n"
                  ".ens-contour-removed{fill:none;stroke:" VD_COLOR_REMOVED ";stroke-width:%g;stroke-dasharray:%g,%g}\n"
                  ".ens-pt-added{fill:" VD_COLOR_ADDED "}\n"
                  ".ens-pt-removed{fill:none;stroke:" VD_COLOR_REMOVED ";stroke-width:%g}\n"
                  ".ens-pt-moved{fill:" VD_COLOR_CHANGED "}\n"
                  ".ens-pt-path{stroke:" VD_COLOR_CHANGED ";stroke-width:%g}\n"
                  "</style>\n",
                  sw, label * 0.6, sw, 4 * sw, 3 * sw, 2 * sw, 4 * sw, 3 * sw, 2 * sw, 2 * sw, 4 * sw, 3 * sw,
                  3 * sw, 3 * sw, 4 * sw, 3 * sw, 2 * sw, sw);
  for (size_t i = 0; i < n; i++) {
    const vd_item *it = &vd->items[i];
    const ens_obj *gn = it->mark == ENS_VIS_REMOVED ? NULL : ens_doc_get(vd->cur, it->id);
    const ens_obj *go = it->mark == ENS_VIS_ADDED ? NULL : ens_doc_get(vd->old_doc, it->id);
    double x0 = cw * (double)(i % cols), y0 = ch * (double)(i / cols);
    const char *cls = it->mark == ENS_VIS_ADDED ? "ens-added" : it->mark == ENS_VIS_REMOVED ? "ens-removed" : "ens-changed";
    ens__buf_printf(b, "<g class=\"ens-glyph %s\" data-ens=\"%zu\">", cls, i);
    ens__buf_printf(b, "<rect class=\"ens-cell\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>", x0, y0, cw, ch);
    ens__buf_printf(b, "<text class=\"ens-label\" x=\"%g\" y=\"%g\">", x0 + pad, y0 + label * 0.8);
    ens__vd_escape(b, it->label + 6, strlen(it->label + 6), 0);
    ens__buf_puts(b, "</text>");
    ens__buf_printf(b, "<g transform=\"translate(%g %g) scale(1 -1)\">", x0 + pad, y0 + label + pad + asc);
    double wn = ens__vd_num(gn, "width", 0), wo = ens__vd_num(go, "width", 0);
    ens__buf_printf(b, "<line class=\"ens-metric ens-baseline\" x1=\"%g\" y1=\"0\" x2=\"%g\" y2=\"0\"/>", -pad * 0.6,
                    maxw + pad * 0.6);
    ens__buf_printf(b, "<line class=\"ens-metric ens-origin\" x1=\"0\" y1=\"%g\" x2=\"0\" y2=\"%g\"/>", -desc, asc);
    if (gn && side != 1)
      ens__buf_printf(b, "<line class=\"ens-metric ens-advance-new\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>", wn,
                      -desc, wn, asc);
    if (go && (side == 1 || (side == 0 && (!gn || wo != wn))))
      ens__buf_printf(b, "<line class=\"ens-metric ens-advance-old\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>", wo,
                      -desc, wo, asc);
    if (side == 0) {
      /* the old outline over the new one's fill, as a dashed line: where
       * the two part is where the glyph changed */
      if (gn) s_path(b, vd->cur, gn, "ens-outline");
      else if (go) s_path(b, vd->old_doc, go, "ens-outline");
      if (go && gn) s_path(b, vd->old_doc, go, "ens-ghost");
      if (gn && go) s_markers(vd, b, gn, go, r);
    } else if (side == 1 && go) {
      s_path(b, vd->old_doc, go, "ens-outline");
    } else if (side == 2 && gn) {
      s_path(b, vd->cur, gn, "ens-outline");
    }
    ens__buf_puts(b, "</g></g>\n");
  }
  ens__buf_puts(b, "</svg>\n");
  return b->oom ? ens__error(ENS_ENOMEM, "out of memory writing the visual diff") : 0;
}
