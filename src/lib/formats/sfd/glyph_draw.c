/* A glyph's outline as it is drawn: its own contours and those its
 * references bring, transformed, flattened into one list of points for
 * a renderer (the web client's glyph grid and editor). */
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "../../util/hash.h"
#include "glyph_int.h"
#include "sfd_int.h"

/* Points and references visited for one glyph at most: references nested
 * and repeated (a glyph of 100 references to one of 100 references...)
 * would otherwise multiply without end. */
#define S_BUDGET 100000

typedef struct {
  const ens_doc *doc;
  ens_glyph_outline *out;
  size_t pcap, ccap, gcap;
  ens_id *seen; /* the glyphs listed in out->glyphs, as an open-addressed set (a power of two; 0 free) */
  size_t scap;
  const ens_obj *path[ENS__GLYPH_MAX_REF_DEPTH + 1]; /* the glyphs being drawn, outermost first */
  size_t budget;
} s_walk;

/* x' = m0 x + m2 y + m4, y' = m1 x + m3 y + m5 (FontForge's order). */
static void s_tf(const double m[6], double x, double y, double *ox, double *oy) {
  *ox = m[0] * x + m[2] * y + m[4];
  *oy = m[1] * x + m[3] * y + m[5];
}

static int s_grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap * 2 : 64;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * size);
  if (!q) return ens__error(ENS_ENOMEM, "out of memory drawing a glyph");
  *p = q;
  *cap = n;
  return 0;
}

static int s_point(s_walk *w, const double m[6], double x, double y, int on) {
  ens_glyph_outline *o = w->out;
  int rc = s_grow((void **)&o->points, &w->pcap, o->npoints + 1, sizeof *o->points);
  if (rc) return rc;
  ens_glyph_opoint *p = &o->points[o->npoints++];
  s_tf(m, x, y, &p->x, &p->y);
  p->on = on;
  return 0;
}

/* A set, not a scan of the list: a hostile glyph may reach thousands of
 * glyphs through the 100,000 references the budget allows. */
static int s_note_glyph(s_walk *w, ens_id id) {
  ens_glyph_outline *o = w->out;
  if (2 * (o->nglyphs + 1) > w->scap) {
    size_t cap = w->scap ? w->scap * 2 : 64;
    ens_id *set = calloc(cap, sizeof *set);
    if (!set) return ens__error(ENS_ENOMEM, "out of memory drawing a glyph");
    for (size_t i = 0; i < o->nglyphs; i++) {
      size_t h = (size_t)ens__mix64(o->glyphs[i]) & (cap - 1);
      while (set[h]) h = (h + 1) & (cap - 1);
      set[h] = o->glyphs[i];
    }
    free(w->seen);
    w->seen = set;
    w->scap = cap;
  }
  size_t h = (size_t)ens__mix64(id) & (w->scap - 1);
  while (w->seen[h]) {
    if (w->seen[h] == id) return 0;
    h = (h + 1) & (w->scap - 1);
  }
  int rc = s_grow((void **)&o->glyphs, &w->gcap, o->nglyphs + 1, sizeof *o->glyphs);
  if (rc) return rc;
  w->seen[h] = id;
  o->glyphs[o->nglyphs++] = id;
  return 0;
}

/* One contour in drawing order: point 0, then for each later point the
 * controls of the segment ending at it and the point itself (but not a
 * closed contour's repeat of point 0). A quadratic segment's control is
 * on its line twice (c1 and c2): drawn once. */
static int s_contour(s_walk *w, const ens_obj *contour, const double m[6]) {
  ens__gcontour c;
  int rc = ens__gcontour_load(w->doc, contour, &c);
  if (rc) return rc;
  if (c.n > w->budget) {
    w->out->cut = 1;
    w->budget = 0;
    goto done;
  }
  w->budget -= c.n;
  if (!c.n) goto done;
  ens_glyph_outline *o = w->out;
  if ((rc = s_grow((void **)&o->contours, &w->ccap, o->ncontours + 1, sizeof *o->contours))) goto done;
  size_t first = o->npoints;
  size_t last = c.closed && c.n > 1 ? c.n - 1 : c.n; /* points [0, last) besides the closing segment */
  rc = s_point(w, m, c.pts[0].x, c.pts[0].y, 1);
  for (size_t i = 1; i < c.n && !rc; i++) {
    const ens__gpt *p = &c.pts[i];
    if (p->has_c) {
      rc = s_point(w, m, p->c1x, p->c1y, 0);
      if (!rc && !(c.order2 && p->c1x == p->c2x && p->c1y == p->c2y)) rc = s_point(w, m, p->c2x, p->c2y, 0);
    }
    if (!rc && i < last) rc = s_point(w, m, p->x, p->y, 1);
  }
  if (!rc) o->contours[o->ncontours++] = (ens_glyph_ocontour){first, o->npoints - first, c.closed};
done:
  ens__gcontour_free(&c);
  return rc;
}

static double s_num(const ens_obj *o, const char *key, double fallback) {
  int present = 0;
  double v = ens__glyph_num(o, key, &present);
  return present ? v : fallback;
}

static int s_glyph(s_walk *w, const ens_obj *glyph, const double m[6], size_t depth, int own) {
  w->path[depth] = glyph;
  int rc = s_note_glyph(w, ens_obj_id(glyph));
  const ens_obj *fore = ens__glyph_fore(glyph);
  size_t n = fore ? ens_obj_child_count(fore) : 0;
  for (size_t i = 0; i < n && !rc; i++) {
    const ens_obj *k = ens_obj_child(fore, i);
    const char *kind = ens_obj_kind(k);
    if (strcmp(kind, ENS_SFD_CONTOUR) == 0) {
      if (own) rc = s_contour(w, k, m);
      continue;
    }
    if (strcmp(kind, ENS_SFD_REF) != 0) continue;
    const ens_obj *t = ens_doc_get(w->doc, ens__glyph_target(k));
    if (!t || strcmp(ens_obj_kind(t), ENS_SFD_GLYPH) != 0) continue;
    int cycle = 0;
    for (size_t d = 0; d <= depth; d++) cycle |= w->path[d] == t;
    if (cycle || depth + 1 > ENS__GLYPH_MAX_REF_DEPTH || w->budget == 0) {
      w->out->cut = 1;
      continue;
    }
    w->budget--;
    double r[6] = {s_num(k, "xx", 1), s_num(k, "xy", 0), s_num(k, "yx", 0),
                   s_num(k, "yy", 1), s_num(k, "dx", 0), s_num(k, "dy", 0)};
    /* the reference's map, then ours */
    double c[6] = {r[0] * m[0] + r[1] * m[2], r[0] * m[1] + r[1] * m[3], r[2] * m[0] + r[3] * m[2],
                   r[2] * m[1] + r[3] * m[3], r[4] * m[0] + r[5] * m[2] + m[4], r[4] * m[1] + r[5] * m[3] + m[5]};
    rc = s_glyph(w, t, c, depth + 1, 1);
  }
  return rc;
}

int ens__glyph_outline_of(const ens_doc *doc, const ens_obj *glyph, unsigned flags, ens_glyph_outline *out) {
  if (!out) return ens__error(ENS_EINVAL, "no outline to fill");
  memset(out, 0, sizeof *out);
  if (!doc || !glyph || strcmp(ens_obj_kind(glyph), ENS_SFD_GLYPH) != 0)
    return ens__error(ENS_EINVAL, "no font or no glyph to draw");
  static const double id[6] = {1, 0, 0, 1, 0, 0};
  s_walk w = {.doc = doc, .out = out, .budget = S_BUDGET};
  int rc = s_glyph(&w, glyph, id, 0, !(flags & ENS_GLYPH_OUTLINE_REFS_ONLY));
  free(w.seen);
  if (rc) ens_glyph_outline_free(out);
  return rc;
}

int ens_glyph_outline_get(const ens_doc *doc, const char *glyph, unsigned flags, ens_glyph_outline *out) {
  if (!out) return ens__error(ENS_EINVAL, "no outline to fill");
  memset(out, 0, sizeof *out);
  const ens_obj *g;
  int rc = doc && glyph ? ens__glyph_get(doc, glyph, &g) : ens__error(ENS_EINVAL, "no font or no glyph name");
  return rc ? rc : ens__glyph_outline_of(doc, g, flags, out);
}

void ens_glyph_outline_free(ens_glyph_outline *out) {
  if (!out) return;
  free(out->points);
  free(out->contours);
  free(out->glyphs);
  memset(out, 0, sizeof *out);
}
