/* What every glyph editing command shares: finding a glyph by name, its
 * foreground layer and contours, reading points into structs and writing
 * the changed ones back as operations of one transaction. */
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "glyph_int.h"
#include "sfd_int.h"

static int s_kind_is(const ens_obj *o, const char *kind) { return strcmp(ens_obj_kind(o), kind) == 0; }

int ens__glyph_name_is(const ens_obj *glyph, const char *name, size_t len) {
  ens_value v;
  if (!s_kind_is(glyph, ENS_SFD_GLYPH) || ens_obj_get(glyph, "name", &v) || v.type != ENS_STR) return 0;
  return v.u.s.len == len && memcmp(v.u.s.ptr, name, len) == 0;
}

const ens_obj *ens_glyph_find(const ens_doc *doc, const char *name) {
  if (!doc || !name) return NULL;
  const ens_obj *root = ens_doc_root(doc);
  size_t len = strlen(name), n = ens_obj_child_count(root);
  for (size_t i = 0; i < n; i++) {
    const ens_obj *g = ens_obj_child(root, i);
    if (ens__glyph_name_is(g, name, len)) return g;
  }
  return NULL;
}

int ens__glyph_get(const ens_doc *doc, const char *name, const ens_obj **out) {
  *out = NULL;
  if (!doc || !name) return ens__error(ENS_EINVAL, "a glyph edit needs a document and a glyph name");
  if (strcmp(ens_doc_kind(doc), ENS_SFD_KIND) != 0)
    return ens__error(ENS_EINVAL, "glyph edits work on fonts read from SFD, not on a \"%s\" document",
                      ens_doc_kind(doc));
  *out = ens_glyph_find(doc, name);
  if (!*out) return ens__error(ENS_ENOTFOUND, "no glyph named \"%s\" in this font", name);
  return 0;
}

const ens_obj *ens__glyph_fore(const ens_obj *glyph) {
  const ens_obj *unmarked = NULL;
  size_t n = ens_obj_child_count(glyph);
  for (size_t i = 0; i < n; i++) {
    const ens_obj *k = ens_obj_child(glyph, i);
    if (!s_kind_is(k, ENS_SFD_LAYER)) continue;
    ens_value v;
    if (ens_obj_get(k, "index", &v) == 0 && v.type == ENS_INT) {
      if (v.u.i == 1) return k;
    } else if (!unmarked) {
      unmarked = k; /* layer content without a marker is the foreground */
    }
  }
  return unmarked;
}

/* The quadratic flag of "Layer: index quadratic "name" background" lines
 * of the font header; -1 when the header has none for this index. */
static int s_layer_line_order2(const char *t, size_t n, int64_t index) {
  const char *p = t, *e = t + n;
  while (p < e) {
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    const char *le = nl ? nl : e;
    if (le - p > 7 && memcmp(p, "Layer: ", 7) == 0) {
      const char *q = p + 7;
      int64_t idx, quad;
      int used = ens__sfd_parse_int(q, le, &idx);
      if (used > 0 && idx == index) {
        q += used;
        while (q < le && *q == ' ') q++;
        used = ens__sfd_parse_int(q, le, &quad);
        if (used > 0) return quad != 0;
      }
    }
    if (le - p >= 10 && memcmp(p, "BeginChars", 10) == 0) break; /* the header ends there */
    p = nl ? nl + 1 : e;
  }
  return -1;
}

int ens__glyph_layer_order2(const ens_doc *doc, const ens_obj *layer) {
  const ens_obj *root = ens_doc_root(doc);
  ens_value v;
  int64_t index = layer ? ens__glyph_int(layer, "index", 1) : 1;
  if (ens_obj_get(root, "~head", &v) == 0 && (v.type == ENS_STR || v.type == ENS_BYTES)) {
    int q = s_layer_line_order2(v.u.s.ptr, v.u.s.len, index);
    if (q >= 0) return q;
  }
  return ens__glyph_int(root, "Order2", 0) != 0;
}

const ens_obj *ens__glyph_contour_at(const ens_obj *layer, size_t contour, size_t *count) {
  const ens_obj *found = NULL;
  size_t k = 0, n = layer ? ens_obj_child_count(layer) : 0;
  for (size_t i = 0; i < n; i++) {
    const ens_obj *c = ens_obj_child(layer, i);
    if (!s_kind_is(c, ENS_SFD_CONTOUR)) continue;
    if (k == contour) found = c;
    k++;
  }
  if (count) *count = k;
  return found;
}

double ens__glyph_num(const ens_obj *obj, const char *key, int *present) {
  ens_value v;
  int ok = ens_obj_get(obj, key, &v) == 0 && (v.type == ENS_REAL || v.type == ENS_INT);
  if (present) *present = ok;
  if (!ok) return 0;
  return v.type == ENS_REAL ? v.u.r : (double)v.u.i;
}

int64_t ens__glyph_int(const ens_obj *obj, const char *key, int64_t fallback) {
  ens_value v;
  if (ens_obj_get(obj, key, &v) == 0 && v.type == ENS_INT) return v.u.i;
  return fallback;
}

ens_id ens__glyph_target(const ens_obj *obj) {
  ens_value v;
  if (ens_obj_get(obj, "glyph", &v) == 0 && v.type == ENS_REF) return v.u.ref;
  return ENS_ID_NONE;
}

void ens__gpt_read(const ens_obj *point, ens__gpt *p) {
  memset(p, 0, sizeof *p);
  p->id = ens_obj_id(point);
  p->x = ens__glyph_num(point, "x", NULL);
  p->y = ens__glyph_num(point, "y", NULL);
  int a, b, c, d;
  p->c1x = ens__glyph_num(point, "c1x", &a);
  p->c1y = ens__glyph_num(point, "c1y", &b);
  p->c2x = ens__glyph_num(point, "c2x", &c);
  p->c2y = ens__glyph_num(point, "c2y", &d);
  p->has_c = a || b || c || d; /* the writer makes a c line of any of them */
  ens_value v;
  if (ens_obj_get(point, "type", &v) == 0 && v.type == ENS_INT) {
    p->has_type = 1;
    p->type = v.u.i;
  }
  if (ens_obj_get(point, "flags", &v) == 0 && v.type == ENS_INT) {
    p->has_flags = 1;
    p->flags = v.u.i;
  }
  if (ens_obj_get(point, "ttf", &v) == 0 && v.type == ENS_INT) {
    p->has_ttf = 1;
    p->ttf = v.u.i;
  }
  if (ens_obj_get(point, "nextcp", &v) == 0 && v.type == ENS_INT) {
    p->has_nextcp = 1;
    p->nextcp = v.u.i;
  }
}

void ens__gpt_fix_numbers(ens__gpt *pts, size_t n, int closed) {
  for (size_t i = 0; i < n; i++) {
    if (!pts[i].has_nextcp || pts[i].nextcp == -1) continue;
    /* the segment leaving point i; a closed contour's repeat leaves as its first */
    int curve = i + 1 < n ? pts[i + 1].has_c : closed && n > 1 ? pts[1].has_c : 0;
    if (!curve) pts[i].nextcp = -1;
  }
}

int ens__gcontour_load(const ens_doc *doc, const ens_obj *contour, ens__gcontour *c) {
  memset(c, 0, sizeof *c);
  c->obj = contour;
  size_t n = ens_obj_child_count(contour);
  c->pts = calloc(n ? n : 1, sizeof *c->pts);
  if (!c->pts) return ens__error(ENS_ENOMEM, "out of memory reading a contour");
  for (size_t i = 0; i < n; i++) {
    const ens_obj *k = ens_obj_child(contour, i);
    if (!s_kind_is(k, ENS_SFD_POINT)) {
      free(c->pts);
      c->pts = NULL;
      return ens__error(ENS_EINVAL, "contour %#llx holds a %s, not only points",
                        (unsigned long long)ens_obj_id(contour), ens_obj_kind(k));
    }
    ens__gpt_read(k, &c->pts[i]);
  }
  c->n = n;
  c->closed = ens_sfd_contour_closed(contour);
  c->order2 = ens__glyph_layer_order2(doc, ens_obj_parent(contour));
  return 0;
}

void ens__gcontour_free(ens__gcontour *c) {
  if (!c) return;
  free(c->pts);
  c->pts = NULL;
  c->n = 0;
}

/* Sets key to a real when it changed (bitwise: -0 and 0 are different
 * text, and the writer prints what the model holds). */
/* Sets or removes an integer key when it changed. */
static int s_set_int(ens_txn *txn, ens_id id, const char *key, int64_t was, int had, int64_t now, int has) {
  if (!has) return had ? ens_txn_set(txn, id, key, ens_nil()) : 0;
  if (had && was == now) return 0;
  return ens_txn_set(txn, id, key, ens_int(now));
}

static int s_set_real(ens_txn *txn, ens_id id, const char *key, double was, int had, double now, int has) {
  if (!has) return had ? ens_txn_set(txn, id, key, ens_nil()) : 0;
  if (had && memcmp(&was, &now, sizeof now) == 0) return 0;
  return ens_txn_set(txn, id, key, ens_real(now));
}

int ens__gpt_update(ens_txn *txn, const ens__gpt *was, const ens__gpt *now) {
  ens_id id = was->id;
  int rc = 0;
  if (!rc) rc = s_set_real(txn, id, "x", was->x, 1, now->x, 1);
  if (!rc) rc = s_set_real(txn, id, "y", was->y, 1, now->y, 1);
  if (!rc) rc = s_set_real(txn, id, "c1x", was->c1x, was->has_c, now->c1x, now->has_c);
  if (!rc) rc = s_set_real(txn, id, "c1y", was->c1y, was->has_c, now->c1y, now->has_c);
  if (!rc) rc = s_set_real(txn, id, "c2x", was->c2x, was->has_c, now->c2x, now->has_c);
  if (!rc) rc = s_set_real(txn, id, "c2y", was->c2y, was->has_c, now->c2y, now->has_c);
  if (!rc && now->has_type && (!was->has_type || was->type != now->type))
    rc = ens_txn_set(txn, id, "type", ens_int(now->type));
  if (!rc && now->has_flags && (!was->has_flags || was->flags != now->flags))
    rc = ens_txn_set(txn, id, "flags", ens_int(now->flags));
  if (!rc) rc = s_set_int(txn, id, "ttf", was->ttf, was->has_ttf, now->ttf, now->has_ttf);
  if (!rc) rc = s_set_int(txn, id, "nextcp", was->nextcp, was->has_nextcp, now->nextcp, now->has_nextcp);
  return rc;
}

static int s_node_point(ens_node *pt, const ens__gpt *p) {
  int rc = ens_node_set(pt, "x", ens_real(p->x));
  if (!rc) rc = ens_node_set(pt, "y", ens_real(p->y));
  if (!rc && p->has_c) {
    rc = ens_node_set(pt, "c1x", ens_real(p->c1x));
    if (!rc) rc = ens_node_set(pt, "c1y", ens_real(p->c1y));
    if (!rc) rc = ens_node_set(pt, "c2x", ens_real(p->c2x));
    if (!rc) rc = ens_node_set(pt, "c2y", ens_real(p->c2y));
  }
  if (!rc) rc = ens_node_set(pt, "type", ens_int(p->has_type ? p->type : 1));
  if (!rc) rc = ens_node_set(pt, "flags", ens_int(p->has_flags ? p->flags : 0));
  if (!rc && p->has_ttf) rc = ens_node_set(pt, "ttf", ens_int(p->ttf));
  if (!rc && p->has_nextcp) rc = ens_node_set(pt, "nextcp", ens_int(p->nextcp));
  return rc;
}

int ens__gpt_insert_node(ens_node *parent, const char *pos, ens_id id, const ens__gpt *p) {
  ens_node *pt = ens_node_add_child(parent, pos, id, ENS_SFD_POINT);
  if (!pt) return ENS_ENOMEM;
  return s_node_point(pt, p);
}

int ens__gpt_insert(ens_txn *txn, ens_id contour, const char *pos, ens_id id, const ens__gpt *p) {
  ens_node *pt = ens_txn_insert(txn, contour, pos, id, ENS_SFD_POINT);
  if (!pt) return ENS_ENOMEM;
  return s_node_point(pt, p);
}

int ens__glyph_new_id(ens_doc *doc, ens_id *out) {
  *out = ens_doc_new_id(doc);
  return *out == ENS_ID_NONE ? ENS_ELIMIT : 0;
}

int ens__glyph_txn(const char *label, ens_txn **out) {
  *out = ens_txn_new(label, NULL);
  return *out ? 0 : ens__error(ENS_ENOMEM, "out of memory making a transaction");
}
