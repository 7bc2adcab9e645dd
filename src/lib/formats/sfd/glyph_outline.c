/* Outline edits of a glyph's foreground layer: move points (with their
 * control points, as FontForge does), add and remove contours and points,
 * reverse a contour. Each builds one transaction; see ensemble/glyph.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "glyph_int.h"
#include "sfd_int.h"

/* The glyph, its foreground layer and one contour's points, or an error
 * that names what is missing. */
static int s_contour(const ens_doc *doc, const char *glyph, size_t contour, ens__gcontour *c) {
  const ens_obj *g;
  int rc = ens__glyph_get(doc, glyph, &g);
  if (rc) return rc;
  size_t count = 0;
  const ens_obj *obj = ens__glyph_contour_at(ens__glyph_fore(g), contour, &count);
  if (!obj)
    return ens__error(ENS_EINVAL, "glyph \"%s\" has %zu contour%s in its foreground: no contour %zu", glyph, count,
                      count == 1 ? "" : "s", contour);
  return ens__gcontour_load(doc, obj, c);
}

/* A closed contour's repeat of its first point names that point. */
static size_t s_norm(const ens__gcontour *c, size_t i) { return c->closed && i == c->n - 1 ? 0 : i; }

/* --- move ---------------------------------------------------------------------------- */

enum { S_MV_XY = 1, S_MV_C1 = 2, S_MV_C2 = 4 };

/* Marks what moves with point i: the point, its incoming control (c2 of
 * its own line) and its outgoing one (c1 of the next line); in a
 * quadratic layer both halves of each adjacent segment's control. */
static void s_mark(const ens__gcontour *c, size_t i, unsigned char *mv) {
  size_t last = c->n - 1;
  i = s_norm(c, i);
  mv[i] |= S_MV_XY;
  if (c->closed && i == 0) mv[last] |= S_MV_XY;
  size_t in = i > 0 ? i : c->closed ? last : SIZE_MAX; /* the line of the segment ending here */
  size_t out = i < last ? i + 1 : SIZE_MAX;            /* the line of the segment leaving */
  if (in != SIZE_MAX) mv[in] |= c->order2 ? S_MV_C1 | S_MV_C2 : S_MV_C2;
  if (out != SIZE_MAX) mv[out] |= c->order2 ? S_MV_C1 | S_MV_C2 : S_MV_C1;
}

static int s_cmp_contour(const void *a, const void *b) {
  const ens_glyph_pt *x = a, *y = b;
  return x->contour < y->contour ? -1 : x->contour > y->contour;
}

int ens_glyph_move_points(ens_doc *doc, const char *glyph, const ens_glyph_pt *pts, size_t npts, double dx,
                          double dy, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_move_points needs an output");
  *out = NULL;
  if (!pts || !npts) return ens__error(ENS_EINVAL, "a move needs at least one point");
  if (!isfinite(dx) || !isfinite(dy)) return ens__error(ENS_EINVAL, "a move needs finite deltas");
  const ens_obj *g;
  int rc = ens__glyph_get(doc, glyph, &g);
  if (rc) return rc;
  ens_txn *txn = NULL;
  ens__gcontour c = {0};
  unsigned char *mv = NULL;
  /* one contour at a time: sort a copy by contour */
  ens_glyph_pt *sorted = malloc((npts ? npts : 1) * sizeof *sorted);
  if (!sorted) {
    rc = ens__error(ENS_ENOMEM, "out of memory moving points");
    goto done;
  }
  if (npts) memcpy(sorted, pts, npts * sizeof *sorted);
  qsort(sorted, npts, sizeof *sorted, s_cmp_contour);
  const ens_obj *fore = ens__glyph_fore(g);
  if ((rc = ens__glyph_txn("Move points", &txn))) goto done;
  for (size_t a = 0; a < npts;) {
    size_t b = a, count = 0;
    while (b < npts && sorted[b].contour == sorted[a].contour) b++;
    const ens_obj *obj = ens__glyph_contour_at(fore, sorted[a].contour, &count);
    if (!obj) {
      rc = ens__error(ENS_EINVAL, "glyph \"%s\" has %zu contour%s in its foreground: no contour %zu", glyph, count,
                      count == 1 ? "" : "s", sorted[a].contour);
      goto done;
    }
    if ((rc = ens__gcontour_load(doc, obj, &c))) goto done;
    free(mv);
    mv = calloc(c.n ? c.n : 1, 1);
    if (!mv) {
      rc = ens__error(ENS_ENOMEM, "out of memory moving points");
      goto done;
    }
    for (size_t k = a; k < b; k++) {
      if (sorted[k].point >= c.n) {
        rc = ens__error(ENS_EINVAL, "contour %zu of glyph \"%s\" has %zu points: no point %zu", sorted[k].contour,
                        glyph, c.n, sorted[k].point);
        goto done;
      }
      s_mark(&c, sorted[k].point, mv);
    }
    for (size_t i = 0; i < c.n; i++) {
      if (!mv[i]) continue;
      ens__gpt now = c.pts[i];
      if (mv[i] & S_MV_XY) {
        now.x += dx;
        now.y += dy;
      }
      if (now.has_c && (mv[i] & S_MV_C1)) {
        now.c1x += dx;
        now.c1y += dy;
      }
      if (now.has_c && (mv[i] & S_MV_C2)) {
        now.c2x += dx;
        now.c2y += dy;
      }
      if ((rc = ens__gpt_update(txn, &c.pts[i], &now))) goto done;
    }
    ens__gcontour_free(&c);
    a = b;
  }
done:
  ens__gcontour_free(&c);
  free(mv);
  free(sorted);
  if (rc) {
    ens_txn_free(txn);
    return rc;
  }
  *out = txn;
  return 0;
}

/* --- contours ---------------------------------------------------------------------------- */

/* Where a new contour goes in the layer: after its last contour, else
 * first (the SplineSet lines precede references). */
static size_t s_contour_slot(const ens_obj *layer) {
  size_t slot = 0, n = ens_obj_child_count(layer);
  for (size_t i = 0; i < n; i++)
    if (strcmp(ens_obj_kind(ens_obj_child(layer, i)), ENS_SFD_CONTOUR) == 0) slot = i + 1;
  return slot;
}

/* Where a new foreground layer goes in a glyph that has none: after its
 * anchors and layers, before kerning. */
static size_t s_layer_slot(const ens_obj *glyph) {
  size_t slot = 0, n = ens_obj_child_count(glyph);
  for (size_t i = 0; i < n; i++) {
    const char *kind = ens_obj_kind(ens_obj_child(glyph, i));
    if (strcmp(kind, ENS_SFD_KERN) == 0) break;
    if (strcmp(kind, ENS_SFD_LAYER) == 0 || strcmp(kind, ENS_SFD_ANCHOR) == 0) slot = i + 1;
  }
  return slot;
}

/* An object without children keeps all its own text in its head, its
 * closing line (EndChar, EndSplineSet) included, and the writer puts new
 * children after the head. Before the first child arrives, the closing
 * line and what follows it move to the tail, where they belong. */
int ens__glyph_open_for_children(ens_txn *txn, const ens_obj *obj, const char *word) {
  ens_value h, t;
  if (ens_obj_child_count(obj) || ens_obj_get(obj, "~head", &h) || (h.type != ENS_STR && h.type != ENS_BYTES))
    return 0;
  size_t wl = strlen(word);
  const char *p = h.u.s.ptr, *e = p + h.u.s.len, *at = NULL;
  while (p < e && !at) { /* by entries: "EndChar" inside TtInstrs is an instruction */
    uint32_t nl;
    size_t len = ens__sfd_entry(p, e, &nl);
    if (!len) len = (size_t)(e - p);
    ens__sfd_line ln;
    ens__sfd_line_at(p, e, &ln);
    const char *tok;
    size_t tn = ens__sfd_token(ln.s, ln.n, &tok);
    if (nl == 1 && tn == wl && memcmp(tok, word, wl) == 0) at = p;
    p += len;
  }
  if (!at) return 0;
  size_t head_n = (size_t)(at - h.u.s.ptr), rest = h.u.s.len - head_n, tail_n = 0;
  const char *old_tail = NULL;
  if (ens_obj_get(obj, "~tail", &t) == 0 && (t.type == ENS_STR || t.type == ENS_BYTES)) {
    old_tail = t.u.s.ptr;
    tail_n = t.u.s.len;
  }
  char *tail = malloc(rest + tail_n + 1);
  if (!tail) return ens__error(ENS_ENOMEM, "out of memory editing a glyph");
  memcpy(tail, at, rest);
  if (tail_n) memcpy(tail + rest, old_tail, tail_n);
  ens_id id = ens_obj_id(obj);
  int rc =
      ens_txn_set(txn, id, "~head", h.type == ENS_STR ? ens_strn(h.u.s.ptr, head_n) : ens_bytes(h.u.s.ptr, head_n));
  if (!rc)
    rc = ens_txn_set(txn, id, "~tail",
                     h.type == ENS_STR ? ens_strn(tail, rest + tail_n) : ens_bytes(tail, rest + tail_n));
  free(tail);
  return rc;
}

static int s_check_node(const ens_glyph_node *nd, int order2, size_t i) {
  if (!isfinite(nd->x) || !isfinite(nd->y))
    return ens__error(ENS_EINVAL, "point %zu of the new contour is not a finite position", i);
  if (!nd->curve) return 0;
  if (!isfinite(nd->c1x) || !isfinite(nd->c1y) || !isfinite(nd->c2x) || !isfinite(nd->c2y))
    return ens__error(ENS_EINVAL, "point %zu of the new contour has control points that are not finite", i);
  if (order2 && (nd->c1x != nd->c2x || nd->c1y != nd->c2y))
    return ens__error(ENS_EINVAL,
                      "point %zu: this layer is quadratic, so a curve has one control point (give c1 equal to c2)", i);
  return 0;
}

static void s_node_gpt(const ens_glyph_node *nd, ens__gpt *p) {
  memset(p, 0, sizeof *p);
  p->x = nd->x;
  p->y = nd->y;
  p->has_c = nd->curve != 0;
  if (p->has_c) {
    p->c1x = nd->c1x;
    p->c1y = nd->c1y;
    p->c2x = nd->c2x;
    p->c2y = nd->c2y;
  }
  p->has_type = p->has_flags = 1;
  p->type = 1; /* corner: FontForge's type for a point placed by coordinates */
  p->flags = 0;
}

int ens_glyph_add_contour(ens_doc *doc, const char *glyph, const ens_glyph_node *nodes, size_t n, int closed,
                          ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_add_contour needs an output");
  *out = NULL;
  const ens_obj *g;
  int rc = ens__glyph_get(doc, glyph, &g);
  if (rc) return rc;
  if (!nodes || n < 1 || (closed && n < 2))
    return ens__error(ENS_EINVAL, "a new %s contour needs at least %d point%s", closed ? "closed" : "open",
                      closed ? 2 : 1, closed ? "s" : "");
  const ens_obj *fore = ens__glyph_fore(g);
  int order2 = ens__glyph_layer_order2(doc, fore);
  for (size_t i = 0; i < n; i++)
    if ((rc = s_check_node(&nodes[i], order2, i))) return rc;
  if (!closed && nodes[0].curve)
    return ens__error(ENS_EINVAL, "point 0 of an open contour starts it: it has no segment to curve");
  ens_txn *txn = NULL;
  char *pos = NULL;
  ens_node *layer_node = NULL, *contour = NULL;
  ens_id cid, lid;
  if ((rc = ens__glyph_txn("Add contour", &txn))) goto done;
  if (fore) {
    if ((rc = ens__glyph_open_for_children(txn, fore, "EndSplineSet"))) goto done;
    if ((rc = ens_doc_pos_at(doc, ens_obj_id(fore), s_contour_slot(fore), &pos))) goto done;
    if ((rc = ens__glyph_new_id(doc, &cid))) goto done;
    contour = ens_txn_insert(txn, ens_obj_id(fore), pos, cid, ENS_SFD_CONTOUR);
  } else {
    if ((rc = ens__glyph_open_for_children(txn, g, "EndChar"))) goto done;
    if ((rc = ens_doc_pos_at(doc, ens_obj_id(g), s_layer_slot(g), &pos))) goto done;
    if ((rc = ens__glyph_new_id(doc, &lid)) || (rc = ens__glyph_new_id(doc, &cid))) goto done;
    layer_node = ens_txn_insert(txn, ens_obj_id(g), pos, lid, ENS_SFD_LAYER);
    if (!layer_node || ens_node_set(layer_node, "index", ens_int(1))) {
      rc = ENS_ENOMEM;
      goto done;
    }
    contour = ens_node_add_child(layer_node, "V", cid, ENS_SFD_CONTOUR);
  }
  if (!contour) {
    rc = ENS_ENOMEM;
    goto done;
  }
  size_t total = n + (closed ? 1 : 0);
  for (size_t i = 0; i < total && !rc; i++) {
    ens__gpt p;
    ens_id pid;
    /* a closed contour ends with its first point again, carrying the
     * segment that closes it */
    s_node_gpt(&nodes[i < n ? i : 0], &p);
    if (i == 0) p.has_c = 0;
    char *pp = ens_pos_seq(i, total);
    if (!pp) rc = ENS_ENOMEM;
    if (!rc) rc = ens__glyph_new_id(doc, &pid);
    if (!rc) rc = ens__gpt_insert_node(contour, pp, pid, &p);
    ens_free(pp);
  }
done:
  ens_free(pos);
  if (rc) {
    if (rc == ENS_ENOMEM) ens__error(ENS_ENOMEM, "out of memory adding a contour");
    ens_txn_free(txn);
    return rc;
  }
  *out = txn;
  return 0;
}

int ens_glyph_remove_contour(ens_doc *doc, const char *glyph, size_t contour, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_remove_contour needs an output");
  *out = NULL;
  ens__gcontour c;
  int rc = s_contour(doc, glyph, contour, &c);
  if (rc) return rc;
  ens_txn *txn = NULL;
  if (!(rc = ens__glyph_txn("Remove contour", &txn))) rc = ens_txn_delete(txn, ens_obj_id(c.obj));
  ens__gcontour_free(&c);
  if (rc) {
    ens_txn_free(txn);
    return rc;
  }
  *out = txn;
  return 0;
}

/* --- points -------------------------------------------------------------------------------- */

/* The original point with this id, or NULL. */
static const ens__gpt *s_orig(const ens__gcontour *c, ens_id id) {
  for (size_t i = 0; i < c->n; i++)
    if (c->pts[i].id == id) return &c->pts[i];
  return NULL;
}

/* Emits the change from contour c to fin[0..nf), its points in their new
 * order: deletes of the points fin lacks, sets on the points it keeps,
 * inserts of new points (id NONE) between their neighbours, and with
 * reorder, moves of every point into one fresh sequence of positions. */
static int s_emit(ens_doc *doc, ens_txn *txn, const ens__gcontour *c, ens__gpt *fin, size_t nf, int reorder) {
  int rc = 0;
  ens_id cid = ens_obj_id(c->obj);
  ens__gpt_fix_numbers(fin, nf, c->closed);
  for (size_t i = 0; i < c->n && !rc; i++) {
    int kept = 0;
    for (size_t k = 0; k < nf && !kept; k++) kept = fin[k].id == c->pts[i].id;
    if (!kept) rc = ens_txn_delete(txn, c->pts[i].id);
  }
  for (size_t k = 0; k < nf && !rc; k++) {
    char *pos = NULL;
    if (reorder) {
      if (!(pos = ens_pos_seq(k, nf))) return ens__error(ENS_ENOMEM, "out of memory placing points");
    }
    if (fin[k].id != ENS_ID_NONE) {
      rc = ens__gpt_update(txn, s_orig(c, fin[k].id), &fin[k]);
      const ens_obj *o = ens_doc_get(doc, fin[k].id);
      if (!rc && pos && (!o || strcmp(ens_obj_pos(o), pos) != 0)) rc = ens_txn_move(txn, fin[k].id, cid, pos);
    } else {
      ens_id id;
      if (!pos) { /* before the next point that stays, among the old children */
        size_t at = c->n;
        for (size_t j = k + 1; j < nf && at == c->n; j++)
          for (size_t i = 0; i < c->n; i++)
            if (fin[j].id != ENS_ID_NONE && c->pts[i].id == fin[j].id) at = i;
        rc = ens_doc_pos_at(doc, cid, at, &pos);
      }
      if (!rc) rc = ens__glyph_new_id(doc, &id);
      if (!rc) rc = ens__gpt_insert(txn, cid, pos, id, &fin[k]);
    }
    ens_free(pos);
  }
  return rc;
}

int ens_glyph_add_point(ens_doc *doc, const char *glyph, size_t contour, size_t index, double x, double y,
                        ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_add_point needs an output");
  *out = NULL;
  if (!isfinite(x) || !isfinite(y)) return ens__error(ENS_EINVAL, "a new point needs a finite position");
  ens__gcontour c;
  int rc = s_contour(doc, glyph, contour, &c);
  if (rc) return rc;
  ens_txn *txn = NULL;
  ens__gpt *fin = NULL;
  size_t last = c.n - 1;
  if (c.closed && index == 0) index = last; /* between the last point and the first */
  if (c.closed ? index < 1 || index > last : index > c.n) {
    rc = ens__error(ENS_EINVAL, "contour %zu of glyph \"%s\" takes a new point at %s%zu, not at %zu", contour, glyph,
                    c.closed ? "1.." : "0..", c.closed ? last : c.n, index);
    goto done;
  }
  if (!(fin = calloc(c.n + 1, sizeof *fin))) {
    rc = ens__error(ENS_ENOMEM, "out of memory adding a point");
    goto done;
  }
  ens__gpt p;
  memset(&p, 0, sizeof p);
  p.x = x;
  p.y = y;
  p.has_type = p.has_flags = 1;
  p.type = 1; /* a corner */
  memcpy(fin, c.pts, index * sizeof *fin);
  memcpy(fin + index + 1, c.pts + index, (c.n - index) * sizeof *fin);
  if (index > 0 && index < c.n && c.pts[index].has_c) {
    /* the segment into the old point now ends at the new one */
    p.has_c = 1;
    p.c1x = c.pts[index].c1x, p.c1y = c.pts[index].c1y;
    p.c2x = c.pts[index].c2x, p.c2y = c.pts[index].c2y;
    fin[index + 1].has_c = 0;
  }
  fin[index] = p;
  if (!(rc = ens__glyph_txn("Add point", &txn))) rc = s_emit(doc, txn, &c, fin, c.n + 1, 0);
done:
  free(fin);
  ens__gcontour_free(&c);
  if (rc) {
    ens_txn_free(txn);
    return rc;
  }
  *out = txn;
  return 0;
}

/* The segment from a to b once the point between them is gone: the
 * outgoing control of a (c1 of the removed point's line, when it was a
 * curve) and the incoming control of b (c2 of b's line). */
static void s_join(const ens__gcontour *c, const ens__gpt *a, const ens__gpt *removed, ens__gpt *b) {
  int has1 = removed->has_c, has2 = b->has_c;
  double q1x = removed->c1x, q1y = removed->c1y;
  if (c->order2) { /* one control point per segment: keep one of the two */
    if (has1 || has2) {
      double qx = has1 ? q1x : b->c2x, qy = has1 ? q1y : b->c2y;
      b->c1x = b->c2x = qx;
      b->c1y = b->c2y = qy;
    }
    b->has_c = has1 || has2;
    return;
  }
  if (!has1 && !has2) {
    b->has_c = 0;
    return;
  }
  b->c1x = has1 ? q1x : a->x; /* a side without a control point is the point itself */
  b->c1y = has1 ? q1y : a->y;
  if (!has2) {
    b->c2x = b->x;
    b->c2y = b->y;
  }
  b->has_c = 1;
}

/* A closed contour's repeat takes the extra text of its new first point
 * (a hint mask), as FontForge writes the same point twice. */
static int s_copy_extra(const ens_doc *doc, ens_txn *txn, ens_id from, ens_id to) {
  ens_value v, w;
  int has_v = ens_obj_get(ens_doc_get(doc, from), "extra", &v) == 0;
  int has_w = ens_obj_get(ens_doc_get(doc, to), "extra", &w) == 0;
  if (has_v && (!has_w || !ens_value_equal(&v, &w))) return ens_txn_set(txn, to, "extra", v);
  if (!has_v && has_w) return ens_txn_set(txn, to, "extra", ens_nil());
  return 0;
}

int ens_glyph_remove_point(ens_doc *doc, const char *glyph, size_t contour, size_t index, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_remove_point needs an output");
  *out = NULL;
  ens__gcontour c;
  int rc = s_contour(doc, glyph, contour, &c);
  if (rc) return rc;
  ens_txn *txn = NULL;
  ens__gpt *fin = NULL;
  size_t last = c.n - 1, distinct = c.closed ? c.n - 1 : c.n, nf = 0;
  if (index >= c.n) {
    rc = ens__error(ENS_EINVAL, "contour %zu of glyph \"%s\" has %zu points: no point %zu", contour, glyph, c.n, index);
    goto done;
  }
  if (distinct <= 2) {
    rc = ens__error(ENS_EINVAL, "contour %zu of glyph \"%s\" has %zu points left: remove the contour instead", contour,
                    glyph, distinct);
    goto done;
  }
  if (!(fin = calloc(c.n, sizeof *fin))) {
    rc = ens__error(ENS_ENOMEM, "out of memory removing a point");
    goto done;
  }
  index = s_norm(&c, index);
  for (size_t i = 0; i < c.n; i++)
    if (i != index) fin[nf++] = c.pts[i];
  if (index == 0) {
    fin[0].has_c = 0; /* the next point starts the contour */
    if (c.closed) {   /* and the repeat at the end becomes that point's */
      ens__gpt b = c.pts[1];
      s_join(&c, &c.pts[last - 1], &c.pts[last], &b);
      b.id = c.pts[last].id;
      fin[nf - 1] = b;
    }
  } else if (index < last) {
    s_join(&c, &c.pts[index - 1], &c.pts[index], &fin[index]);
  } /* the last point of an open contour goes with its segment */
  if ((rc = ens__glyph_txn("Remove point", &txn))) goto done;
  if ((rc = s_emit(doc, txn, &c, fin, nf, 0))) goto done;
  if (index == 0 && c.closed) rc = s_copy_extra(doc, txn, c.pts[1].id, c.pts[last].id);
done:
  free(fin);
  ens__gcontour_free(&c);
  if (rc) {
    ens_txn_free(txn);
    return rc;
  }
  *out = txn;
  return 0;
}

/* --- reverse -------------------------------------------------------------------------------- */

int ens_glyph_reverse_contour(ens_doc *doc, const char *glyph, size_t contour, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_reverse_contour needs an output");
  *out = NULL;
  ens__gcontour c;
  int rc = s_contour(doc, glyph, contour, &c);
  if (rc) return rc;
  ens_txn *txn = NULL;
  size_t n = c.n;
  ens__gpt *fin = calloc(n ? n : 1, sizeof *fin);
  if (!fin) {
    rc = ens__error(ENS_ENOMEM, "out of memory reversing a contour");
    goto done;
  }
  /* point i goes to slot; the segment now ending at it is the old one
   * that left it (old line i + 1), its control points swapped. A closed
   * contour keeps its first point first and its repeat last. */
  for (size_t i = 0; i < n; i++) {
    size_t slot;
    const ens__gpt *seg = NULL;
    if (c.closed) {
      if (i == 0) slot = 0;
      else if (i == n - 1) slot = n - 1, seg = &c.pts[1];
      else slot = n - 1 - i, seg = &c.pts[i + 1];
    } else {
      slot = n - 1 - i;
      if (i + 1 < n) seg = &c.pts[i + 1];
    }
    ens__gpt now = c.pts[i];
    now.has_c = seg && seg->has_c;
    if (now.has_c) {
      now.c1x = seg->c2x, now.c1y = seg->c2y;
      now.c2x = seg->c1x, now.c2y = seg->c1y;
    }
    fin[slot] = now;
  }
  if (!(rc = ens__glyph_txn("Reverse contour", &txn))) rc = s_emit(doc, txn, &c, fin, n, 1);
done:
  free(fin);
  ens__gcontour_free(&c);
  if (rc) {
    ens_txn_free(txn);
    return rc;
  }
  *out = txn;
  return 0;
}
