/* Visual diff of two animations: the semantic diff's changes told in an
 * animator's words (the layer, the shapes, the property, the keyframe's
 * time) and the frames where they show, from which the strip is drawn
 * (visdiff_strip.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "ensemble/changes.h"
#include "ensemble/lottie.h"
#include "visdiff_int.h"

/* Longest value shown whole; longer ones are cut with "…". */
#define S_SHOW_MAX 60

/* --- names ------------------------------------------------------------------------------ */

static const char *s_key(const ens_obj *o) { return ens__vd_str(o, ENS_LOTTIE_KEY, NULL); }

static int s_is(const ens_obj *o, const char *kind) { return o && strcmp(ens_obj_kind(o), kind) == 0; }

/* What people call a shape without a name: its type. */
static const char *s_shape_type(const char *ty) {
  static const char *const t[][2] = {
      {"gr", "group"},   {"tr", "transform"}, {"fl", "fill"},     {"st", "stroke"},  {"gf", "gradient fill"},
      {"gs", "gradient stroke"}, {"el", "ellipse"}, {"rc", "rectangle"}, {"sr", "star"}, {"sh", "path"},
      {"tm", "trim path"}, {"rp", "repeater"}, {"rd", "rounded corners"}, {"mm", "merge paths"},
      {"pb", "pucker/bloat"}, {"op", "offset path"}, {"zz", "zig zag"}, {"tw", "twist"}};
  for (size_t i = 0; ty && i < sizeof t / sizeof t[0]; i++)
    if (strcmp(ty, t[i][0]) == 0) return t[i][1];
  return NULL;
}

/* An animatable property's name, from its member name and what holds it
 * (a layer's or a group's transform, a shape of type ty). */
static const char *s_prop_name(const char *key, int in_transform, const char *ty) {
  static const char *const tr[][2] = {{"a", "anchor"},     {"p", "position"},    {"s", "scale"},
                                      {"r", "rotation"},   {"o", "opacity"},     {"sk", "skew"},
                                      {"sa", "skew axis"}, {"px", "position x"}, {"py", "position y"},
                                      {"pz", "position z"}, {"rx", "rotation x"}, {"ry", "rotation y"},
                                      {"rz", "rotation z"}, {"or", "orientation"}};
  static const char *const sh[][2] = {{"c", "colour"},   {"o", "opacity"},    {"w", "stroke width"},
                                      {"p", "position"}, {"s", "size"},       {"r", "roundness"},
                                      {"ks", "path"},    {"e", "end"},        {"g", "gradient"},
                                      {"ir", "inner radius"}, {"or", "outer radius"}, {"pt", "points"}};
  if (!key) return NULL;
  if (in_transform) {
    for (size_t i = 0; i < sizeof tr / sizeof tr[0]; i++)
      if (strcmp(key, tr[i][0]) == 0) return tr[i][1];
    return NULL;
  }
  if (ty && (!strcmp(ty, "gf") || !strcmp(ty, "gs")) && !strcmp(key, "s")) return "start";
  if (ty && !strcmp(ty, "sr") && !strcmp(key, "r")) return "rotation";
  if (ty && !strcmp(ty, "tm") && !strcmp(key, "s")) return "start";
  for (size_t i = 0; ty && i < sizeof sh / sizeof sh[0]; i++)
    if (strcmp(key, sh[i][0]) == 0) return sh[i][1];
  return NULL;
}

/* A layer's own members, for "layer 3: in point (ip) 0 → 10". */
static const char *s_layer_key_name(const char *key) {
  static const char *const t[][2] = {{"ip", "in point"}, {"op", "out point"}, {"st", "start time"},
                                     {"nm", "name"},     {"parent", "parent"}, {"sr", "stretch"},
                                     {"hd", "hidden"},   {"sc", "colour"},    {"tt", "matte"}};
  for (size_t i = 0; key && i < sizeof t / sizeof t[0]; i++)
    if (strcmp(key, t[i][0]) == 0) return t[i][1];
  return NULL;
}

static void s_num_text(ens_buf *b, const ens_obj *o, const char *key) {
  ens_value v;
  if (ens_obj_get(o, key, &v) != 0) return;
  if (v.type == ENS_INT) ens__buf_printf(b, "%lld", (long long)v.u.i);
  else if (v.type == ENS_REAL) ens__buf_printf(b, "%g", v.u.r);
}

/* A string shown quoted, cut at S_SHOW_MAX bytes on a character boundary. */
static void s_quoted(ens_buf *b, const char *s, size_t n) {
  size_t cut = n > S_SHOW_MAX ? S_SHOW_MAX : n;
  while (cut < n && cut && ((unsigned char)s[cut] & 0xc0) == 0x80) cut--;
  ens__buf_putc(b, '"');
  for (size_t i = 0; i < cut; i++) ens__buf_putc(b, s[i] == '\n' || s[i] == '\r' || s[i] == '\t' ? ' ' : s[i]);
  if (cut < n) ens__buf_puts(b, "…");
  ens__buf_putc(b, '"');
}

static void s_value(ens_buf *b, ens_value v) {
  switch (v.type) {
  case ENS_NIL: ens__buf_puts(b, "(none)"); break;
  case ENS_INT: ens__buf_printf(b, "%lld", (long long)v.u.i); break;
  case ENS_REAL: ens__buf_printf(b, "%g", v.u.r); break;
  case ENS_BOOL: ens__buf_puts(b, v.u.b ? "true" : "false"); break;
  case ENS_STR: s_quoted(b, v.u.s.ptr, v.u.s.len); break;
  case ENS_REF: ens__buf_puts(b, "(reference)"); break;
  case ENS_BYTES: {
    /* an array's canonical JSON text, or null */
    size_t n = v.u.s.len, cut = n > S_SHOW_MAX ? S_SHOW_MAX : n;
    ens__buf_append(b, v.u.s.ptr, cut);
    if (cut < n) ens__buf_puts(b, "…");
    break;
  }
  }
}

/* The label of a layer: 'layer 3 "Ball"', in a precomposition
 * 'precomposition "comp_1" layer 3 "Ball"'. */
static void s_layer_label(ens_buf *b, const ens_obj *layer) {
  for (const ens_obj *p = ens_obj_parent(layer); p; p = ens_obj_parent(p))
    if (s_is(p, ENS_LOTTIE_ASSET)) {
      size_t n;
      const char *id = ens__vd_str(p, "id", &n);
      ens__buf_puts(b, "precomposition ");
      if (id) s_quoted(b, id, n);
      else ens__buf_printf(b, "#%zu", ens_obj_index(p) + 1);
      ens__buf_putc(b, ' ');
      break;
    }
  ens__buf_puts(b, "layer");
  ens_value v;
  int any = 0;
  if (ens_obj_get(layer, "ind", &v) == 0 && (v.type == ENS_INT || v.type == ENS_REAL)) {
    ens__buf_putc(b, ' ');
    s_num_text(b, layer, "ind");
    any = 1;
  }
  size_t n;
  const char *nm = ens__vd_str(layer, "nm", &n);
  if (nm) {
    ens__buf_putc(b, ' ');
    s_quoted(b, nm, n);
    any = 1;
  }
  if (!any) ens__buf_printf(b, " #%zu", ens_obj_index(layer) + 1);
}

/* --- one change ----------------------------------------------------------------------- */

typedef struct {
  const ens_obj *layer, *asset, *keyframe, *property, *owner; /* owner: what holds the property */
  int in_transform;
  const char *ty; /* the shape type holding the property */
} s_where;

#define S_CHAIN_MAX 1024

/* The subject below the label: 'shape "Group"/fill colour keyframe t=30
 * easing out'. Returns the number of steps written. */
static int s_subject(ens_buf *b, const ens_obj *o, s_where *w) {
  const ens_obj *chain[S_CHAIN_MAX];
  size_t n = 0;
  for (const ens_obj *p = o; p && n < S_CHAIN_MAX; p = ens_obj_parent(p)) chain[n++] = p;
  /* from the top: the layer (a precomposition's layers are below its
   * asset), else the asset, names the change; the steps below it follow */
  size_t from = n;
  for (size_t i = n; i-- > 0;) {
    if (s_is(chain[i], ENS_LOTTIE_LAYER)) {
      w->layer = chain[i];
      from = i;
    } else if (s_is(chain[i], ENS_LOTTIE_ASSET)) {
      w->asset = chain[i];
      from = i;
    }
  }
  int steps = 0, shapes = 0;
  for (size_t i = from == n ? n : from; i-- > 0;) {
    const ens_obj *c = chain[i];
    const char *kind = ens_obj_kind(c), *key = s_key(c);
    const ens_obj *parent = ens_obj_parent(c);
    if (!parent) continue; /* the root */
    if (s_is(c, ENS_LOTTIE_LIST)) continue;
    /* an animated path's value ("k" of a property, an element of a
     * keyframe's "s"): its members are named below it */
    if (s_is(c, ENS_LOTTIE_OBJECT) && (!key || (!strcmp(key, "k") && s_is(parent, ENS_LOTTIE_PROPERTY)))) continue;
    if (steps) ens__buf_putc(b, shapes && s_is(c, ENS_LOTTIE_SHAPE) ? '/' : ' ');
    if (s_is(c, ENS_LOTTIE_SHAPE)) {
      size_t nl;
      const char *nm = ens__vd_str(c, "nm", &nl), *ty = ens__vd_str(c, "ty", NULL);
      if (!shapes) ens__buf_puts(b, "shape ");
      if (nm) s_quoted(b, nm, nl);
      else ens__buf_puts(b, s_shape_type(ty) ? s_shape_type(ty) : ty ? ty : "?");
      shapes = 1;
      w->ty = ty;
      w->in_transform = ty && !strcmp(ty, "tr");
      w->owner = c;
    } else {
      shapes = 0;
      if (s_is(c, ENS_LOTTIE_TRANSFORM)) {
        ens__buf_puts(b, "transform");
        w->in_transform = 1;
        w->ty = NULL;
        w->owner = c;
      } else if (s_is(c, ENS_LOTTIE_PROPERTY)) {
        const char *name = s_prop_name(key, w->in_transform, w->ty);
        if (name) ens__buf_printf(b, "%s", name);
        else ens__buf_printf(b, "'%s'", key ? key : "?");
        w->property = c;
      } else if (s_is(c, ENS_LOTTIE_KEYFRAME)) {
        ens__buf_puts(b, "keyframe t=");
        s_num_text(b, c, "t");
        w->keyframe = c;
      } else if (!strcmp(kind, ENS_LOTTIE_EFFECT) || !strcmp(kind, ENS_LOTTIE_MASK) ||
                 !strcmp(kind, ENS_LOTTIE_MARKER)) {
        size_t nl;
        const char *nm = ens__vd_str(c, !strcmp(kind, ENS_LOTTIE_MARKER) ? "cm" : "nm", &nl);
        ens__buf_printf(b, "%s ", kind);
        if (nm) s_quoted(b, nm, nl);
        else ens__buf_printf(b, "#%zu", ens_obj_index(c) + 1);
      } else if (w->keyframe && key && (!strcmp(key, "i") || !strcmp(key, "o"))) {
        ens__buf_puts(b, !strcmp(key, "i") ? "easing in" : "easing out");
      } else if (s_is(c, ENS_LOTTIE_ASSET)) {
        size_t nl;
        const char *id = ens__vd_str(c, "id", &nl);
        ens__buf_puts(b, "asset ");
        if (id) s_quoted(b, id, nl);
      } else {
        ens__buf_printf(b, "'%s'", key ? key : kind);
      }
    }
    steps++;
  }
  return steps;
}

/* A property key as people read it: 'in point (ip)', 'colour (sc)'. */
static void s_key_text(ens_buf *b, const s_where *w, const ens_obj *o, const char *key) {
  const char *name = o == w->layer ? s_layer_key_name(key) : NULL;
  if (name) ens__buf_printf(b, "%s (%s)", name, key);
  else ens__buf_puts(b, key);
}

/* A time of the composition that holds the change, as frames of the
 * strip: directly for the main composition; for a precomposition, through
 * each layer of the main composition that shows it (its "refId"), shifted
 * by that layer's start time and only while that layer is shown. A layer
 * with time remapping ("tm") or stretch ("sr" other than 1) has no such
 * simple mapping and is left out. */
static void s_want(ens_visdiff *vd, const s_where *w, double t) {
  if (!isfinite(t)) return;
  if (!w->asset) {
    ens__vd_anim_want(vd, t);
    return;
  }
  const char *id = ens__vd_str(w->asset, "id", NULL);
  const ens_obj *root = ens_doc_root(vd->new_doc), *layers = NULL;
  for (size_t i = 0; id && i < ens_obj_child_count(root) && !layers; i++) {
    const ens_obj *c = ens_obj_child(root, i);
    const char *key = s_key(c);
    if (s_is(c, ENS_LOTTIE_LIST) && key && !strcmp(key, "layers")) layers = c;
  }
  for (size_t i = 0; layers && i < ens_obj_child_count(layers); i++) {
    const ens_obj *l = ens_obj_child(layers, i);
    const char *ref = ens__vd_str(l, "refId", NULL);
    ens_value v;
    if (!ref || strcmp(ref, id) || ens_obj_get(l, "tm", &v) == 0 || ens__vd_num(l, "sr", 1) != 1) continue;
    for (size_t k = 0; k < ens_obj_child_count(l); k++) {
      const char *key = s_key(ens_obj_child(l, k));
      if (key && !strcmp(key, "tm")) goto next; /* an animated time remap */
    }
    double f = t + ens__vd_num(l, "st", 0);
    if (f >= ens__vd_num(l, "ip", -INFINITY) && f < ens__vd_num(l, "op", INFINITY)) ens__vd_anim_want(vd, f);
  next:;
  }
}

/* Frames the change shows at: a keyframe's time (plus its layer's start
 * time), a changed layer's in and out points (s_want maps them from a
 * precomposition's time). */
static void s_times(ens_visdiff *vd, const s_where *w, const ens_obj *o, const ens_change *c) {
  double st = w->layer ? ens__vd_num(w->layer, "st", 0) : 0;
  if (w->keyframe) {
    s_want(vd, w, ens__vd_num(w->keyframe, "t", NAN) + st);
    return;
  }
  if (!w->layer) return;
  s_want(vd, w, ens__vd_num(w->layer, "ip", NAN));
  s_want(vd, w, ens__vd_num(w->layer, "op", NAN) - 1);
  /* an in or out point moved: where it was too */
  if (o == w->layer && c->kind == ENS_CHANGE_SET && (!strcmp(c->key, "ip") || !strcmp(c->key, "op"))) {
    ens_value v = c->old_value;
    double t = v.type == ENS_INT ? (double)v.u.i : v.type == ENS_REAL ? v.u.r : NAN;
    s_want(vd, w, !strcmp(c->key, "op") ? t - 1 : t);
  }
}

/* " moved from t=30", and its members that changed besides its time
 * (its easing's objects are not compared). */
static void s_retimed(ens_buf *b, const ens_obj *old_kf, const ens_obj *new_kf) {
  ens__buf_puts(b, " moved from t=");
  s_num_text(b, old_kf, "t");
  const char *sep = ": ";
  for (int side = 0; side < 2; side++) {
    const ens_obj *here = side ? old_kf : new_kf, *there = side ? new_kf : old_kf;
    for (size_t i = 0; i < ens_obj_prop_count(here); i++) {
      const char *key;
      ens_value v, w;
      if (ens_obj_prop_at(here, i, &key, &v) != 0 || !strcmp(key, "t") || key[0] == '~' || key[0] == '@') continue;
      int has = ens_obj_get(there, key, &w) == 0;
      if (side && has) continue; /* told from the new side */
      if (has && ens_value_equal(&v, &w)) continue;
      ens__buf_puts(b, sep);
      sep = ", ";
      ens__buf_printf(b, "%s ", key);
      if (side) {
        s_value(b, v);
        ens__buf_puts(b, " removed");
      } else if (!has) {
        ens__buf_puts(b, "set to ");
        s_value(b, v);
      } else {
        s_value(b, w);
        ens__buf_puts(b, " → ");
        s_value(b, v);
      }
    }
  }
}

/* 1 when two paths differ in their last step only. */
static int s_same_parent(const char *a, const char *b) {
  if (!a || !b) return 0;
  const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
  size_t la = sa ? (size_t)(sa - a) : 0, lb = sb ? (size_t)(sb - b) : 0;
  return la == lb && strncmp(a, b, la) == 0;
}

/* One item from the change at *i (and the settings of the same object
 * after it); renamed_from: for an addition that is a rename, the object
 * it was in OLD. */
static int s_item(ens_visdiff *vd, const ens_changes *cs, size_t *i, const ens_obj *renamed_from) {
  const ens_change *c = ens_changes_at(cs, *i);
  const ens_doc *doc = c->kind == ENS_CHANGE_REMOVED ? vd->old_doc : vd->new_doc;
  const ens_obj *o = ens_doc_get(doc, c->kind == ENS_CHANGE_REMOVED ? c->old_id : c->new_id);
  if (!o) return ens__error(ENS_EINVAL, "a change names an object the animation does not hold");
  ens_buf label = ENS_BUF_INIT, detail = ENS_BUF_INIT;
  s_where w;
  memset(&w, 0, sizeof w);
  int steps = s_subject(&detail, o, &w);
  if (w.layer) s_layer_label(&label, w.layer);
  else if (w.asset) {
    size_t nl;
    const char *id = ens__vd_str(w.asset, "id", &nl);
    ens__buf_puts(&label, "asset ");
    if (id) s_quoted(&label, id, nl);
    else ens__buf_printf(&label, "#%zu", ens_obj_index(w.asset) + 1);
  } else {
    ens__buf_puts(&label, "composition");
  }
  ens_vis_mark mark = ENS_VIS_CHANGED;
  size_t used = 1;
  switch (c->kind) {
  case ENS_CHANGE_ADDED:
    if (renamed_from && s_is(o, ENS_LOTTIE_KEYFRAME)) {
      s_retimed(&detail, renamed_from, o);
      s_want(vd, &w, ens__vd_num(renamed_from, "t", NAN) + (w.layer ? ens__vd_num(w.layer, "st", 0) : 0));
      break;
    }
    if (renamed_from) {
      size_t nl;
      const char *nm = ens__vd_str(renamed_from, "nm", &nl);
      ens__buf_puts(&detail, steps ? " renamed from " : "renamed from ");
      if (nm) s_quoted(&detail, nm, nl);
      else ens__buf_puts(&detail, "another name");
      break;
    }
    /* fall through */
  case ENS_CHANGE_REMOVED:
    mark = c->kind == ENS_CHANGE_ADDED ? ENS_VIS_ADDED : ENS_VIS_REMOVED;
    ens__buf_puts(&detail, steps ? " " : "");
    ens__buf_puts(&detail, c->kind == ENS_CHANGE_ADDED ? "added" : "removed");
    if (s_is(o, ENS_LOTTIE_KEYFRAME)) {
      ens_value v;
      if (ens_obj_get(o, "s", &v) == 0) {
        ens__buf_puts(&detail, ": s ");
        s_value(&detail, v);
      }
    } else if (o == w.layer) {
      ens__buf_puts(&detail, ": in point ");
      s_num_text(&detail, o, "ip");
      ens__buf_puts(&detail, ", out point ");
      s_num_text(&detail, o, "op");
    }
    break;
  case ENS_CHANGE_MOVED:
    ens__buf_puts(&detail, steps ? " " : "");
    if (s_same_parent(c->old_path, c->path) && (s_is(o, ENS_LOTTIE_LAYER) || s_is(o, ENS_LOTTIE_SHAPE))) {
      /* what comes first in a list is drawn on top */
      size_t at = ens_obj_index(o);
      const ens_obj *above = at ? ens_obj_child(ens_obj_parent(o), at - 1) : NULL;
      ens__buf_puts(&detail, "moved in the stacking order: now ");
      if (!above) {
        ens__buf_puts(&detail, "on top");
      } else if (s_is(above, ENS_LOTTIE_LAYER)) {
        ens__buf_puts(&detail, "below ");
        s_layer_label(&detail, above);
      } else {
        size_t nl;
        const char *nm = ens__vd_str(above, "nm", &nl), *ty = ens__vd_str(above, "ty", NULL);
        ens__buf_puts(&detail, "below ");
        if (nm) s_quoted(&detail, nm, nl);
        else ens__buf_puts(&detail, s_shape_type(ty) ? s_shape_type(ty) : "a shape");
      }
    } else if (s_same_parent(c->old_path, c->path))
      ens__buf_puts(&detail, "moved in order");
    else
      ens__buf_puts(&detail, "moved from elsewhere");
    break;
  case ENS_CHANGE_RENAMED:
    ens__buf_puts(&detail, steps ? " " : "");
    ens__buf_puts(&detail, "renamed from ");
    s_value(&detail, c->old_value);
    break;
  case ENS_CHANGE_SET: {
    /* every property of one object set together is one item:
     * "keyframe t=30: s [90,10] → [80,20], h 0 → 1" */
    const ens_change *n = c;
    size_t k = 0;
    do {
      ens__buf_puts(&detail, k ? ", " : steps ? ": " : "");
      int bare = s_is(o, ENS_LOTTIE_PROPERTY) && !strcmp(n->key, "k") && steps;
      if (bare && k == 0) {
        /* a static property's value: "colour: [1,0,0] → [0,0,1]" */
      } else {
        s_key_text(&detail, &w, o, n->key);
        ens__buf_putc(&detail, ' ');
      }
      if (n->old_value.type == ENS_NIL) {
        ens__buf_puts(&detail, "set to ");
        s_value(&detail, n->new_value);
      } else if (n->new_value.type == ENS_NIL) {
        s_value(&detail, n->old_value);
        ens__buf_puts(&detail, " removed");
      } else {
        s_value(&detail, n->old_value);
        ens__buf_puts(&detail, " → ");
        s_value(&detail, n->new_value);
      }
      k++;
      n = ens_changes_at(cs, *i + k);
    } while (n && n->kind == ENS_CHANGE_SET && n->new_id == c->new_id);
    used = k;
    break;
  }
  }
  s_times(vd, &w, o, c);
  if (c->kind == ENS_CHANGE_SET && used > 1)
    for (size_t k = 1; k < used; k++) s_times(vd, &w, o, ens_changes_at(cs, *i + k));
  int rc = label.oom || detail.oom ? ens__error(ENS_ENOMEM, "out of memory listing changes") : 0;
  ens__buf_putc(&label, 0);
  ens__buf_putc(&detail, 0);
  if (!rc) rc = ens__vd_item_add(vd, mark, c->kind == ENS_CHANGE_ADDED ? c->new_id : c->old_id,
                                 (const char *)label.data, (const char *)detail.data);
  ens__buf_free(&label);
  ens__buf_free(&detail);
  *i += used;
  return rc;
}

/* --- the frames ---------------------------------------------------------------------- */

int ens__vd_anim_want(ens_visdiff *vd, double t) {
  if (!isfinite(t) || fabs(t) > 1e15) return 0;
  long f = (long)floor(t + 0.5);
  for (size_t i = 0; i < vd->nwant; i++)
    if (vd->want[i] == f) return 0;
  if (vd->nwant == VD_WANT_MAX) return 0; /* enough to choose from */
  vd->want[vd->nwant++] = f;
  return 0;
}

static int s_long_cmp(const void *p, const void *q) {
  long a = *(const long *)p, b = *(const long *)q;
  return (a > b) - (a < b);
}

size_t ens__vd_anim_choose(const ens_visdiff *vd, long first, long last, long *out, size_t max) {
  if (max > ENS_VISDIFF_MAX_FRAMES) max = ENS_VISDIFF_MAX_FRAMES;
  if (last < first || !max) return 0;
  long inner[VD_WANT_MAX];
  size_t ni = 0;
  for (size_t i = 0; i < vd->nwant; i++) {
    long f = vd->want[i];
    if (f > first && f < last) inner[ni++] = f;
  }
  qsort(inner, ni, sizeof *inner, s_long_cmp);
  size_t n = 0;
  out[n++] = first;
  if (last == first || max == 1) return n;
  size_t room = max - 2;
  if (ni) {
    /* the changes' own frames; when there are more, evenly sampled from
     * the first to the last of them */
    for (size_t k = 0; k < ni && k < room; k++)
      out[n++] = inner[ni <= room ? k : room == 1 ? 0 : k * (ni - 1) / (room - 1)];
  } else {
    /* nothing at a time of its own: evenly spaced */
    long span = last - first;
    size_t cols = (size_t)(span - 1 < (long)room ? span - 1 : (long)room);
    for (size_t k = 1; k <= cols; k++) out[n++] = first + (long)((double)span * (double)k / (double)(cols + 1) + 0.5);
  }
  out[n++] = last;
  return n;
}

/* The frames both versions have, as their numbers are read: from the
 * later "ip" to the earlier "op", less one. */
static int s_range(const ens_visdiff *vd, long *first, long *last) {
  const ens_obj *a = ens_doc_root(vd->old_doc), *b = ens_doc_root(vd->new_doc);
  double ia = ens__vd_num(a, "ip", NAN), ib = ens__vd_num(b, "ip", NAN);
  double oa = ens__vd_num(a, "op", NAN), ob = ens__vd_num(b, "op", NAN);
  if (!isfinite(ia) || !isfinite(ib) || !isfinite(oa) || !isfinite(ob) || fabs(ia) > 1e9 || fabs(ib) > 1e9 ||
      fabs(oa) > 1e9 || fabs(ob) > 1e9)
    return ens__error(ENS_EINVAL, "visual diff: an animation without a frame range (ip, op)");
  double lo = floor(ia > ib ? ia : ib), hi = ceil((oa < ob ? oa : ob)) - 1;
  if (hi < lo)
    return ens__error(ENS_EINVAL, "visual diff: the two versions share no frame (%g..%g and %g..%g)", ia, oa - 1, ib,
                      ob - 1);
  *first = (long)lo;
  *last = (long)hi;
  return 0;
}

/* 1 when path is parent's path and one step more. */
static int s_child_of(const char *path, const char *parent) {
  size_t n = strlen(parent);
  return path && !strncmp(path, parent, n) && path[n] == '/' && !strchr(path + n + 1, '/');
}

/* A named object renamed (a shape's nm: its identity key) comes out of the
 * diff as itself removed, a new one added and its children moved from
 * the one to the other; told as one rename. Sets skip[] for the removal
 * and the moves, and from[a] to the removal's index + 1 for the addition. */
static void s_find_renames(const ens_changes *cs, unsigned char *skip, size_t *from) {
  size_t n = ens_changes_count(cs);
  for (size_t m = 0; m < n; m++) {
    const ens_change *mv = ens_changes_at(cs, m);
    if (mv->kind != ENS_CHANGE_MOVED || s_same_parent(mv->old_path, mv->path)) continue;
    size_t r = n, a = n;
    for (size_t k = 0; k < n; k++) {
      const ens_change *c = ens_changes_at(cs, k);
      if (c->kind == ENS_CHANGE_REMOVED && s_child_of(mv->old_path, c->path)) r = k;
      if (c->kind == ENS_CHANGE_ADDED && s_child_of(mv->path, c->path)) a = k;
    }
    if (r == n || a == n || strcmp(ens_changes_at(cs, r)->obj_kind, ens_changes_at(cs, a)->obj_kind) ||
        (from[a] && from[a] != r + 1))
      continue;
    skip[r] = skip[m] = 1;
    from[a] = r + 1;
  }
}

/* The path without its last step (borrowed length). */
static size_t s_parent_len(const char *path) {
  const char *sl = path ? strrchr(path, '/') : NULL;
  return sl ? (size_t)(sl - path) : 0;
}

/* A keyframe retimed (its time is its identity key) comes out as one
 * keyframe removed and another added in the same list; when a list has
 * exactly one of each, they are told as one move in time. */
static void s_find_retimes(const ens_changes *cs, unsigned char *skip, size_t *from) {
  size_t n = ens_changes_count(cs);
  for (size_t r = 0; r < n; r++) {
    const ens_change *rm = ens_changes_at(cs, r);
    if (rm->kind != ENS_CHANGE_REMOVED || strcmp(rm->obj_kind, ENS_LOTTIE_KEYFRAME) || skip[r]) continue;
    size_t pl = s_parent_len(rm->path), removed = 0, added = 0, a = n;
    for (size_t k = 0; k < n; k++) {
      const ens_change *c = ens_changes_at(cs, k);
      if ((c->kind != ENS_CHANGE_REMOVED && c->kind != ENS_CHANGE_ADDED) || strcmp(c->obj_kind, ENS_LOTTIE_KEYFRAME) ||
          s_parent_len(c->path) != pl || strncmp(c->path, rm->path, pl))
        continue;
      if (c->kind == ENS_CHANGE_REMOVED) removed++;
      else added++, a = k;
    }
    if (removed != 1 || added != 1 || from[a]) continue;
    skip[r] = 1;
    from[a] = r + 1;
  }
}

int ens__vd_mark_anim(ens_visdiff *vd) {
  ens_changes_opts opts = {ens_lottie_identity, NULL, NULL, NULL};
  ens_changes *cs = NULL;
  int rc = ens_changes_compute(vd->old_doc, vd->new_doc, &opts, &cs);
  size_t n = ens_changes_count(cs);
  unsigned char *skip = rc ? NULL : calloc(n + 1, 1);
  size_t *from = rc ? NULL : calloc(n + 1, sizeof *from);
  if (!rc && (!skip || !from)) rc = ens__error(ENS_ENOMEM, "out of memory listing changes");
  if (!rc) s_find_renames(cs, skip, from);
  if (!rc) s_find_retimes(cs, skip, from);
  for (size_t i = 0; !rc && i < n;) {
    if (skip[i]) {
      i++;
      continue;
    }
    rc = s_item(vd, cs, &i, from[i] ? ens_doc_get(vd->old_doc, ens_changes_at(cs, from[i] - 1)->old_id) : NULL);
  }
  free(skip);
  free(from);
  ens_changes_free(cs);
  return rc;
}

int ens_visdiff_frames(const ens_visdiff *vd, long *frames, size_t max, size_t *n) {
  if (n) *n = 0;
  if (!vd || !vd->anim || !frames || !n) return ens__error(ENS_EINVAL, "visual diff: frames are an animation's");
  long first = 0, last = -1;
  int rc = s_range(vd, &first, &last);
  if (rc) return rc;
  *n = ens__vd_anim_choose(vd, first, last, frames, max);
  return 0;
}
