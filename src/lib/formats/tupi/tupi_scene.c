/* One Tupi scene as Lottie layers: each Tupi layer's frames become a shape
 * layer per run of frames drawn alike (in and out points from the frame
 * numbers), each tweened object a layer of its own whose transform and
 * colours carry the tween's steps as keyframes, and the scene's static
 * background and foreground a layer each for the whole scene. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tupi_int.h"

#define S_PI 3.14159265358979323846

/* --- tweens -------------------------------------------------------------------- */

enum { T_POS, T_ROT, T_SCALE, T_SHEAR, T_OPAC, T_COLOR, T_N };

typedef struct {
  int k, seq; /* step index, and order read */
  double v[3];
} s_key;

typedef struct {
  s_key *k;
  size_t n, cap;
} s_track;

typedef struct {
  s_track tr[T_N];
  int frames;           /* the longest tween's length */
  int has_origin;       /* of the first rotation, scale or shear tween */
  double ox, oy;
  int has_pos_origin;   /* of the position tween, where Tupi puts the item */
  double px, py;
  int fill_type;        /* colouring: 0 pen, 1 brush, 2 both */
  char names[256];
} s_tween;

static void s_tween_free(s_tween *t) {
  for (int i = 0; i < T_N; i++) free(t->tr[i].k);
}

static int s_key_add(ens__tupi_ctx *ctx, s_track *t, int k, double a, double b, double c) {
  if (t->n >= ENS_TUPI_MAX_FRAMES)
    return ens__error(ENS_ELIMIT, "%s: a tween of more than %d steps", ctx->where, ENS_TUPI_MAX_FRAMES);
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 16;
    s_key *v = realloc(t->k, cap * sizeof *v);
    if (!v) return ens__error(ENS_ENOMEM, "out of memory");
    t->k = v;
    t->cap = cap;
  }
  t->k[t->n] = (s_key){k, (int)t->n, {a, b, c}};
  t->n++;
  return 0;
}

static int s_key_cmp(const void *x, const void *y) {
  const s_key *a = x, *b = y;
  if (a->k != b->k) return a->k < b->k ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Steps in order; the same step given twice keeps the last one. */
static void s_track_sort(s_track *t) {
  if (t->n < 2) return;
  qsort(t->k, t->n, sizeof *t->k, s_key_cmp);
  size_t w = 0;
  for (size_t i = 0; i < t->n; i++) {
    if (i + 1 < t->n && t->k[i + 1].k == t->k[i].k) continue;
    t->k[w++] = t->k[i];
  }
  t->n = w;
}

static int s_pair(ens__tupi_ctx *ctx, xmlNode *n, const char *x, const char *y, double *a, double *b) {
  int rc = ens__tupi_attr_num(ctx, n, x, 0, a);
  return rc ? rc : ens__tupi_attr_num(ctx, n, y, 0, b);
}

static int s_step(ens__tupi_ctx *ctx, xmlNode *step, s_tween *t) {
  double kd;
  int rc = ens__tupi_attr_num(ctx, step, "value", -1, &kd);
  if (rc) return rc;
  if (kd < 0 || kd >= ENS_TUPI_MAX_FRAMES || kd != floor(kd))
    return ens__error(ENS_EDECODE, "%s: a tween step without a valid value (its index)", ctx->where);
  int k = (int)kd;
  for (xmlNode *c = step->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    double a = 0, b = 0, d = 0;
    int tr;
    if (ens__tupi_is(c, "position")) { tr = T_POS; rc = s_pair(ctx, c, "x", "y", &a, &b); }
    else if (ens__tupi_is(c, "rotation")) { tr = T_ROT; rc = ens__tupi_attr_num(ctx, c, "angle", 0, &a); }
    else if (ens__tupi_is(c, "scale")) { tr = T_SCALE; rc = s_pair(ctx, c, "sx", "sy", &a, &b); }
    else if (ens__tupi_is(c, "shear")) { tr = T_SHEAR; rc = s_pair(ctx, c, "sh", "sv", &a, &b); }
    else if (ens__tupi_is(c, "opacity")) { tr = T_OPAC; rc = ens__tupi_attr_num(ctx, c, "opacity", 1, &a); }
    else if (ens__tupi_is(c, "color")) {
      tr = T_COLOR;
      if (!(rc = s_pair(ctx, c, "red", "green", &a, &b))) rc = ens__tupi_attr_num(ctx, c, "blue", 0, &d);
    } else {
      if ((rc = ens__tupi_note_add(ctx, "a tween step's <%s> is not mapped", (const char *)c->name)) != 0) return rc;
      continue;
    }
    if (rc || (rc = s_key_add(ctx, &t->tr[tr], k, a, b, d)) != 0) return rc;
  }
  return 0;
}

static int s_origin(ens__tupi_ctx *ctx, xmlNode *tw, double *x, double *y) {
  xmlChar *o = xmlGetProp(tw, (const xmlChar *)"origin");
  *x = *y = 0;
  if (!o) return 0;
  const char *p = (const char *)o;
  int rc = ens__tupi_num(ctx, p, &p, "<tweening origin>", x);
  if (!rc) rc = ens__tupi_num(ctx, p, &p, "<tweening origin>", y);
  xmlFree(o);
  return rc;
}

/* Reads the <tweening> children of an object. Returns how many. */
static int s_tweens(ens__tupi_ctx *ctx, xmlNode *obj, s_tween *t) {
  int count = 0, rc;
  for (xmlNode *c = obj->children; c; c = c->next) {
    if (!ens__tupi_is(c, "tweening")) continue;
    count++;
    double type, frames;
    if ((rc = ens__tupi_attr_num(ctx, c, "type", -1, &type)) || (rc = ens__tupi_attr_num(ctx, c, "frames", 1, &frames)))
      return rc;
    if (frames < 0 || frames > ENS_TUPI_MAX_FRAMES)
      return ens__error(ENS_ELIMIT, "%s: a tween of %g frames (at most %d)", ctx->where, frames, ENS_TUPI_MAX_FRAMES);
    xmlChar *name = xmlGetProp(c, (const xmlChar *)"name");
    size_t used = strlen(t->names);
    snprintf(t->names + used, sizeof t->names - used, "%s%s", used ? ", " : "", name ? (const char *)name : "tween");
    if (name) xmlFree(name);
    int ty = (int)type;
    if (ty == 6) {
      if ((rc = ens__tupi_note_add(ctx, "a lip-sync (Papagayo) tween is not mapped")) != 0) return rc;
      continue;
    }
    if (ty < 0 || ty > 5) {
      if ((rc = ens__tupi_note_add(ctx, "a tween of unknown type %d is not mapped", ty)) != 0) return rc;
      continue;
    }
    double ox, oy;
    if ((rc = s_origin(ctx, c, &ox, &oy)) != 0) return rc;
    if (ty == 0) {
      t->has_pos_origin = 1;
      t->px = ox;
      t->py = oy;
    } else if (ty <= 3 && !t->has_origin) {
      t->has_origin = 1;
      t->ox = ox;
      t->oy = oy;
    }
    if (ty == 5) {
      double ft;
      if ((rc = ens__tupi_attr_num(ctx, c, "fillType", 0, &ft)) != 0) return rc;
      t->fill_type = ft == 1 ? 1 : ft == 2 ? 2 : 0;
    }
    if ((int)frames > t->frames) t->frames = (int)frames;
    for (xmlNode *s = c->children; s; s = s->next)
      if (ens__tupi_is(s, "step") && (rc = s_step(ctx, s, t)) != 0) return rc;
  }
  for (int i = 0; i < T_N; i++) s_track_sort(&t->tr[i]);
  return count;
}

/* Keyframe values of one track, as Lottie wants them. */
typedef struct {
  int kind;
  double ax, ay;  /* position: where step 0 puts the layer's anchor */
  double opacity; /* the Tupi layer's, multiplied in */
} s_map;

static int s_values(const s_map *m, const s_key *k, const s_key *k0, double *out) {
  switch (m->kind) {
  case T_POS: out[0] = m->ax + k->v[0] - k0->v[0]; out[1] = m->ay + k->v[1] - k0->v[1]; return 2;
  case T_ROT: out[0] = k->v[0]; return 1;
  case T_SCALE: out[0] = k->v[0] * 100; out[1] = k->v[1] * 100; return 2;
  case T_SHEAR: out[0] = k->v[1] == 0 ? -atan(k->v[0]) * 180 / S_PI : atan(k->v[1]) * 180 / S_PI; return 1;
  case T_OPAC: out[0] = k->v[0] * 100 * m->opacity; return 1;
  default:
    for (int i = 0; i < 3; i++) out[i] = (k->v[i] < 0 ? 0 : k->v[i] > 255 ? 255 : k->v[i]) / 255.0;
    out[3] = 1;
    return 4;
  }
}

static void s_value(ens_buf *b, const double *v, int n, int scalar) {
  if (scalar) {
    ens__tupi_jnum(b, v[0]);
    return;
  }
  ens__buf_putc(b, '[');
  for (int i = 0; i < n; i++) {
    if (i) ens__buf_putc(b, ',');
    ens__tupi_jnum(b, v[i]);
  }
  ens__buf_putc(b, ']');
}

/* An animated Lottie property: a keyframe per step at frame t0 + step,
 * linear in between (Tupi computed every frame's value itself). */
static void s_anim(ens_buf *b, const s_track *t, int t0, const s_map *m) {
  double v[4];
  if (t->n == 1) {
    int n = s_values(m, &t->k[0], &t->k[0], v);
    ens__buf_puts(b, "{\"a\":0,\"k\":");
    s_value(b, v, n, n == 1);
    ens__buf_putc(b, '}');
    return;
  }
  ens__buf_puts(b, "{\"a\":1,\"k\":[");
  for (size_t i = 0; i < t->n; i++) {
    int n = s_values(m, &t->k[i], &t->k[0], v);
    ens__buf_printf(b, "%s{\"t\":%d,\"s\":", i ? "," : "", t0 + t->k[i].k);
    s_value(b, v, n, 0);
    if (i + 1 < t->n) ens__buf_puts(b, ",\"i\":{\"x\":1,\"y\":1},\"o\":{\"x\":0,\"y\":0}");
    ens__buf_putc(b, '}');
  }
  ens__buf_puts(b, "]}");
}

/* --- layers -------------------------------------------------------------------- */

static void s_layer_head(ens_buf *b, int *first, int *ind, const char *name, int ip, int op, int hidden) {
  if (!*first) ens__buf_putc(b, ',');
  *first = 0;
  ens__buf_printf(b, "{\"ddd\":0,\"ind\":%d,\"ty\":4,\"nm\":", ++*ind);
  ens__tupi_jstr(b, name);
  ens__buf_printf(b, ",\"sr\":1,%s\"ip\":%d,\"op\":%d,\"st\":0,\"bm\":0,\"ao\":0,\"ks\":", hidden ? "\"hd\":true," : "",
                  ip, op);
}

static void s_static_ks(ens_buf *b, double opacity) {
  ens__buf_puts(b, "{\"o\":{\"a\":0,\"k\":");
  ens__tupi_jnum(b, opacity * 100);
  ens__buf_puts(b, "},\"r\":{\"a\":0,\"k\":0},\"p\":{\"a\":0,\"k\":[0,0,0]},\"a\":{\"a\":0,\"k\":[0,0,0]},"
                   "\"s\":{\"a\":0,\"k\":[100,100,100]}}");
}

static int s_check(ens__tupi_ctx *ctx, const ens_buf *b) {
  if (b->oom) return ens__error(ENS_ENOMEM, "out of memory");
  if (b->len > ENS_TUPI_MAX_OUTPUT)
    return ens__error(ENS_ELIMIT, "%s: the Lottie text would pass %u bytes", ctx->where, ENS_TUPI_MAX_OUTPUT);
  return 0;
}

/* The items of an <object> or frame child (all but its tweens). */
static int s_object_items(ens__tupi_ctx *ctx, xmlNode *obj, const ens__tupi_paint *paint, ens_buf *b, int *first) {
  for (xmlNode *c = obj->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || ens__tupi_is(c, "tweening")) continue;
    int rc = ens__tupi_item_shapes(ctx, c, &ens__tupi_identity, paint, 0, b, first);
    if (rc < 0) return rc;
  }
  return 0;
}

static int s_svg_note(ens__tupi_ctx *ctx, xmlNode *svg) {
  (void)svg;
  return ens__tupi_note_add(ctx, "an SVG image from the library is not mapped (Lottie has no vector image asset)");
}

/* A tweened object's own layer, from its frame to the tween's end. */
static int s_tween_layer(ens__tupi_ctx *ctx, xmlNode *obj, s_tween *t, int frame, const char *lname, const char *fname,
                         double lop, int hidden, ens_buf *b, int *first, int *ind, int *end) {
  int rc = 0;
  xmlNode *item = NULL;
  for (xmlNode *c = obj->children; c && !item; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !ens__tupi_is(c, "tweening")) item = c;
  ens__tupi_mat own = ens__tupi_identity;
  if (item && (rc = ens__tupi_item_matrix(ctx, item, &own)) != 0) return rc;
  if ((t->tr[T_SCALE].n || t->tr[T_SHEAR].n) && (own.a != 1 || own.b != 0 || own.c != 0 || own.d != 1) &&
      (rc = ens__tupi_note_add(ctx, "under a scale or shear tween the item keeps its own transform matrix "
                                    "(Tupi replaces it with the tween's)")) != 0)
    return rc;
  if (t->tr[T_SHEAR].n) {
    for (size_t i = 0; i < t->tr[T_SHEAR].n; i++)
      if (t->tr[T_SHEAR].k[i].v[0] != 0 && t->tr[T_SHEAR].k[i].v[1] != 0) {
        if ((rc = ens__tupi_note_add(ctx, "a shear on both axes at once keeps only its vertical part")) != 0) return rc;
        break;
      }
  }
  /* Qt turns and scales about pos + origin (the origin is in the item's
   * coordinates before its matrix); shapes are baked with pos already */
  double ax = t->has_origin ? own.e + t->ox : 0, ay = t->has_origin ? own.f + t->oy : 0;
  int op = frame + (t->frames > 1 ? t->frames : 1);
  if (op > *end) *end = op;
  char name[1024];
  snprintf(name, sizeof name, "%s / %s / tween %s", lname, fname, t->names);
  s_layer_head(b, first, ind, name, frame, op, hidden);
  ens__buf_puts(b, "{\"o\":");
  s_map m = {T_OPAC, 0, 0, lop};
  if (t->tr[T_OPAC].n) s_anim(b, &t->tr[T_OPAC], frame, &m);
  else {
    ens__buf_puts(b, "{\"a\":0,\"k\":");
    ens__tupi_jnum(b, lop * 100);
    ens__buf_putc(b, '}');
  }
  ens__buf_puts(b, ",\"r\":");
  m.kind = T_ROT;
  if (t->tr[T_ROT].n) s_anim(b, &t->tr[T_ROT], frame, &m);
  else ens__buf_puts(b, "{\"a\":0,\"k\":0}");
  ens__buf_puts(b, ",\"p\":");
  /* a position tween puts the item at its origin, then moves it by the
   * steps' differences from the first step */
  m.kind = T_POS;
  m.ax = ax + (t->has_pos_origin ? t->px - own.e : 0);
  m.ay = ay + (t->has_pos_origin ? t->py - own.f : 0);
  if (t->tr[T_POS].n) s_anim(b, &t->tr[T_POS], frame, &m);
  else {
    ens__buf_puts(b, "{\"a\":0,\"k\":[");
    ens__tupi_jnum(b, m.ax);
    ens__buf_putc(b, ',');
    ens__tupi_jnum(b, m.ay);
    ens__buf_puts(b, ",0]}");
  }
  ens__buf_puts(b, ",\"a\":{\"a\":0,\"k\":[");
  ens__tupi_jnum(b, ax);
  ens__buf_putc(b, ',');
  ens__tupi_jnum(b, ay);
  ens__buf_puts(b, ",0]},\"s\":");
  m.kind = T_SCALE;
  if (t->tr[T_SCALE].n) s_anim(b, &t->tr[T_SCALE], frame, &m);
  else ens__buf_puts(b, "{\"a\":0,\"k\":[100,100,100]}");
  if (t->tr[T_SHEAR].n) {
    /* Lottie skews along one axis: sa 0 is Qt's horizontal shear, 90 its vertical */
    int vertical = 0;
    for (size_t i = 0; i < t->tr[T_SHEAR].n; i++)
      if (t->tr[T_SHEAR].k[i].v[1] != 0) vertical = 1;
    if (vertical)
      for (size_t i = 0; i < t->tr[T_SHEAR].n; i++) t->tr[T_SHEAR].k[i].v[0] = 0;
    ens__buf_puts(b, ",\"sk\":");
    m.kind = T_SHEAR;
    s_anim(b, &t->tr[T_SHEAR], frame, &m);
    ens__buf_printf(b, ",\"sa\":{\"a\":0,\"k\":%d}", vertical ? 90 : 0);
  }
  ens__buf_puts(b, "},\"shapes\":[");
  ens_buf color = ENS_BUF_INIT;
  ens__tupi_paint paint = {NULL, NULL};
  if (t->tr[T_COLOR].n) {
    m.kind = T_COLOR;
    s_anim(&color, &t->tr[T_COLOR], frame, &m);
    ens__buf_putc(&color, '\0');
    if (color.oom) return ens__error(ENS_ENOMEM, "out of memory");
    if (t->fill_type != 1) paint.stroke = (const char *)color.data;
    if (t->fill_type != 0) paint.fill = (const char *)color.data;
  }
  int inner = 1;
  rc = s_object_items(ctx, obj, &paint, b, &inner);
  ens__buf_free(&color);
  if (rc) return rc;
  ens__buf_puts(b, "]}");
  return s_check(ctx, b);
}

typedef struct {
  ens_buf shapes; /* the run's shapes */
  int start, end;
  char fname[256];
} s_run;

static void s_run_flush(s_run *r, const char *lname, double lop, int hidden, ens_buf *b, int *first, int *ind) {
  if (r->shapes.len == 0) return;
  char name[1024];
  snprintf(name, sizeof name, "%s / %s", lname, r->fname);
  s_layer_head(b, first, ind, name, r->start, r->end, hidden);
  s_static_ks(b, lop);
  ens__buf_puts(b, ",\"shapes\":[");
  ens__buf_append(b, r->shapes.data, r->shapes.len);
  ens__buf_puts(b, "]}");
  r->shapes.len = 0;
}

/* A library image placed in consecutive frames alike: one image layer. */
typedef struct {
  char *key; /* the placing <object> as XML text */
  int asset, start, end;
  ens__tupi_mat m;
  char fname[256], id[256];
} s_img;

typedef struct {
  s_img *v;
  size_t n, cap;
  /* runs that reached the frame before (act) and this frame (next): only
   * those can go on, and looking at them only keeps a long layer linear */
  size_t *act, nact, *next, nnext;
} s_imgs;

static void s_imgs_free(s_imgs *s) {
  for (size_t i = 0; i < s->n; i++) free(s->v[i].key);
  free(s->v);
  free(s->act);
  free(s->next);
}

/* At the start of a frame: the runs that reached the last one. */
static void s_imgs_frame(s_imgs *s) {
  size_t *t = s->act;
  s->act = s->next;
  s->nact = s->nnext;
  s->next = t;
  s->nnext = 0;
}

/* An <object><symbol id> of frame fi: lengthens the run placed alike in
 * the frame before, or starts one. */
static int s_symbol(ens__tupi_ctx *ctx, xmlNode *obj, xmlNode *sym, int fi, const char *fname, s_imgs *imgs) {
  int rc, asset, w, h;
  xmlChar *id = xmlGetProp(sym, (const xmlChar *)"id");
  char ids[256];
  snprintf(ids, sizeof ids, "%s", id ? (const char *)id : "");
  if (id) xmlFree(id);
  if (ens__tupi_child(obj, "tweening") &&
      (rc = ens__tupi_note_add(ctx, "a tween on a library image is not mapped (the image stays still)")) != 0)
    return rc;
  if ((rc = ens__tupi_image(ctx, ids, &asset, &w, &h)) != 0) return rc < 0 ? rc : 0;
  ens__tupi_mat m;
  if ((rc = ens__tupi_item_matrix(ctx, sym, &m)) != 0) return rc;
  if ((m.b != 0 || m.c != 0) &&
      (rc = ens__tupi_note_add(ctx, "a library image's rotation or shear is not mapped (its scale and place are)")))
    return rc;
  xmlBufferPtr xb = xmlBufferCreate();
  if (!xb) return ens__error(ENS_ENOMEM, "out of memory");
  xmlNodeDump(xb, obj->doc, obj, 0, 0);
  const char *key = (const char *)xmlBufferContent(xb);
  if (imgs->n == imgs->cap) {
    size_t cap = imgs->cap ? imgs->cap * 2 : 8;
    s_img *v = realloc(imgs->v, cap * sizeof *v);
    size_t *a = v ? realloc(imgs->act, cap * sizeof *a) : NULL;
    if (a) imgs->act = a;
    size_t *nx = a ? realloc(imgs->next, cap * sizeof *nx) : NULL;
    if (nx) imgs->next = nx;
    if (v) imgs->v = v;
    if (!v || !a || !nx) {
      xmlBufferFree(xb);
      return ens__error(ENS_ENOMEM, "out of memory");
    }
    imgs->cap = cap;
  }
  for (size_t j = 0; j < imgs->nact; j++) {
    s_img *g = &imgs->v[imgs->act[j]];
    if (g->end == fi && strcmp(g->key, key) == 0) {
      g->end = fi + 1;
      imgs->next[imgs->nnext++] = imgs->act[j];
      xmlBufferFree(xb);
      return 0;
    }
  }
  s_img *g = &imgs->v[imgs->n];
  memset(g, 0, sizeof *g);
  g->key = strdup(key);
  xmlBufferFree(xb);
  if (!g->key) return ens__error(ENS_ENOMEM, "out of memory");
  imgs->next[imgs->nnext++] = imgs->n++;
  g->asset = asset;
  g->start = fi;
  g->end = fi + 1;
  g->m = m;
  snprintf(g->fname, sizeof g->fname, "%s", fname);
  snprintf(g->id, sizeof g->id, "%s", ids);
  return 0;
}

static void s_imgs_emit(const s_imgs *imgs, const char *lname, double lop, int hidden, ens_buf *b, int *first, int *ind) {
  for (size_t i = imgs->n; i-- > 0;) {
    const s_img *g = &imgs->v[i];
    char name[1024];
    snprintf(name, sizeof name, "%s / %s / image %s", lname, g->fname, g->id);
    if (!*first) ens__buf_putc(b, ',');
    *first = 0;
    ens__buf_printf(b, "{\"ddd\":0,\"ind\":%d,\"ty\":2,\"nm\":", ++*ind);
    ens__tupi_jstr(b, name);
    ens__buf_printf(b, ",\"refId\":\"image_%d\",\"sr\":1,%s\"ip\":%d,\"op\":%d,\"st\":0,\"bm\":0,\"ao\":0,"
                       "\"ks\":{\"o\":{\"a\":0,\"k\":", g->asset, hidden ? "\"hd\":true," : "", g->start, g->end);
    ens__tupi_jnum(b, lop * 100);
    ens__buf_puts(b, "},\"r\":{\"a\":0,\"k\":0},\"p\":{\"a\":0,\"k\":[");
    ens__tupi_jnum(b, g->m.e);
    ens__buf_putc(b, ',');
    ens__tupi_jnum(b, g->m.f);
    ens__buf_puts(b, ",0]},\"a\":{\"a\":0,\"k\":[0,0,0]},\"s\":{\"a\":0,\"k\":[");
    ens__tupi_jnum(b, g->m.a * 100);
    ens__buf_putc(b, ',');
    ens__tupi_jnum(b, g->m.d * 100);
    ens__buf_puts(b, ",100]}}}");
  }
}

static char *s_attr(xmlNode *n, const char *name, const char *def) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  char *s = strdup(v ? (const char *)v : def);
  if (v) xmlFree(v);
  return s;
}

/* One Tupi layer: tween layers above the runs of frames, both appended
 * to b. *len gets its frame count, *end the end of its last tween. */
static int s_layer(ens__tupi_ctx *ctx, xmlNode *layer, const char *where, ens_buf *b, int *first, int *ind, int *len,
                   int *end) {
  int rc = 0;
  char *lname = s_attr(layer, "name", "layer");
  double lop, vis;
  s_run run = {ENS_BUF_INIT, 0, 0, ""};
  ens_buf frame = ENS_BUF_INIT, tweens = ENS_BUF_INIT, runs = ENS_BUF_INIT;
  xmlNode **objs = NULL;
  int tfirst = 1, rfirst = 1, nframes = 0;
  s_imgs imgs = {0};
  if (!lname) return ens__error(ENS_ENOMEM, "out of memory");
  if ((rc = ens__tupi_attr_num(ctx, layer, "opacity", 1, &lop)) || (rc = ens__tupi_attr_num(ctx, layer, "visible", 1, &vis)))
    goto done;
  if (lop < 0) lop = 0;
  if (lop > 1) lop = 1;
  int hidden = vis == 0;
  for (xmlNode *f = layer->children; f; f = f->next) {
    if (f->type != XML_ELEMENT_NODE) continue;
    snprintf(ctx->where, sizeof ctx->where, "%s, layer \"%s\"", where, lname);
    if (!ens__tupi_is(f, "frame")) {
      if ((rc = ens__tupi_note_add(ctx, "a layer's <%s> is not mapped", (const char *)f->name)) != 0) goto done;
      continue;
    }
    if (++nframes > ENS_TUPI_MAX_FRAMES) {
      rc = ens__error(ENS_ELIMIT, "%s: more than %d frames", ctx->where, ENS_TUPI_MAX_FRAMES);
      goto done;
    }
    int fi = nframes - 1;
    s_imgs_frame(&imgs);
    char *fname = s_attr(f, "name", "frame");
    if (!fname) { rc = ens__error(ENS_ENOMEM, "out of memory"); goto done; }
    snprintf(ctx->where, sizeof ctx->where, "%s, layer \"%s\", frame %d", where, lname, nframes);
    /* children top first, as Lottie lists them */
    size_t n = 0;
    for (xmlNode *c = f->children; c; c = c->next)
      if (c->type == XML_ELEMENT_NODE) n++;
    free(objs);
    objs = n ? malloc(n * sizeof *objs) : NULL;
    if (n && !objs) { free(fname); rc = ens__error(ENS_ENOMEM, "out of memory"); goto done; }
    size_t i = 0;
    for (xmlNode *c = f->children; c; c = c->next)
      if (c->type == XML_ELEMENT_NODE) objs[i++] = c;
    frame.len = 0;
    int ffirst = 1;
    while (i-- > 0 && rc == 0) {
      xmlNode *o = objs[i];
      if (ens__tupi_is(o, "svg")) {
        rc = s_svg_note(ctx, o);
      } else if (ens__tupi_is(o, "object") && ens__tupi_child(o, "symbol")) {
        rc = s_symbol(ctx, o, ens__tupi_child(o, "symbol"), fi, fname, &imgs);
      } else if (ens__tupi_is(o, "object")) {
        s_tween t;
        memset(&t, 0, sizeof t);
        int nt = s_tweens(ctx, o, &t);
        if (nt < 0) rc = nt;
        else if (nt > 0) rc = s_tween_layer(ctx, o, &t, fi, lname, fname, lop, hidden, &tweens, &tfirst, ind, end);
        else rc = s_object_items(ctx, o, NULL, &frame, &ffirst);
        s_tween_free(&t);
      } else {
        rc = ens__tupi_note_add(ctx, "a frame's <%s> is not mapped", (const char *)o->name);
      }
    }
    if (rc == 0 && frame.oom) rc = ens__error(ENS_ENOMEM, "out of memory");
    if (rc) { free(fname); goto done; }
    /* a frame drawn like the one before it lengthens that one's layer */
    if (frame.len && run.shapes.len && run.end == fi && frame.len == run.shapes.len &&
        memcmp(frame.data, run.shapes.data, frame.len) == 0) {
      run.end = fi + 1;
    } else {
      s_run_flush(&run, lname, lop, hidden, &runs, &rfirst, ind);
      if (frame.len) {
        ens__buf_append(&run.shapes, frame.data, frame.len);
        run.start = fi;
        run.end = fi + 1;
        snprintf(run.fname, sizeof run.fname, "%s", fname);
      }
    }
    free(fname);
    if ((rc = s_check(ctx, &runs)) != 0 || (rc = s_check(ctx, &tweens)) != 0 || (rc = s_check(ctx, &run.shapes)) != 0)
      goto done;
  }
  s_run_flush(&run, lname, lop, hidden, &runs, &rfirst, ind);
  s_imgs_emit(&imgs, lname, lop, hidden, &tweens, &tfirst, ind);
  /* tween and image layers go above the runs they were drawn among */
  ens_buf *parts[2] = {&tweens, &runs};
  for (int k = 0; k < 2; k++) {
    if (!parts[k]->len) continue;
    if (!*first) ens__buf_putc(b, ',');
    *first = 0;
    ens__buf_append(b, parts[k]->data, parts[k]->len);
  }
  if ((rc = s_check(ctx, b)) != 0) goto done;
  *len = nframes;
done:
  free(lname);
  free(objs);
  ens__buf_free(&run.shapes);
  ens__buf_free(&frame);
  ens__buf_free(&tweens);
  ens__buf_free(&runs);
  s_imgs_free(&imgs);
  return rc;
}

/* A static background or foreground frame as one layer for the whole
 * scene; tweens in it are not played (Tupi plays none there either). */
static int s_backdrop(ens__tupi_ctx *ctx, xmlNode *f, const char *name, int length, ens_buf *b, int *first, int *ind) {
  ens_buf shapes = ENS_BUF_INIT;
  s_imgs imgs = {0};
  int sfirst = 1, rc = 0;
  double op;
  if ((rc = ens__tupi_attr_num(ctx, f, "opacity", 1, &op)) != 0) return rc;
  size_t n = 0;
  for (xmlNode *c = f->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE) n++;
  xmlNode **objs = n ? malloc(n * sizeof *objs) : NULL;
  if (n && !objs) return ens__error(ENS_ENOMEM, "out of memory");
  size_t i = 0;
  for (xmlNode *c = f->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE) objs[i++] = c;
  while (i-- > 0 && rc == 0) {
    if (ens__tupi_is(objs[i], "svg")) rc = s_svg_note(ctx, objs[i]);
    else if (ens__tupi_is(objs[i], "object") && ens__tupi_child(objs[i], "symbol"))
      rc = s_symbol(ctx, objs[i], ens__tupi_child(objs[i], "symbol"), 0, name, &imgs);
    else if (!ens__tupi_is(objs[i], "object")) rc = ens__tupi_note_add(ctx, "a frame's <%s> is not mapped", (const char *)objs[i]->name);
    else {
      if (ens__tupi_child(objs[i], "tweening")) rc = ens__tupi_note_add(ctx, "a tween in a background is not mapped");
      if (!rc) rc = s_object_items(ctx, objs[i], NULL, &shapes, &sfirst);
    }
  }
  free(objs);
  /* images in front of the backdrop's shapes, as Tupi draws its items in order */
  for (size_t k = 0; k < imgs.n; k++) {
    imgs.v[k].start = 0;
    imgs.v[k].end = length;
  }
  if (!rc) s_imgs_emit(&imgs, name, op < 0 ? 0 : op > 1 ? 1 : op, 0, b, first, ind);
  if (!rc && shapes.len) {
    s_layer_head(b, first, ind, name, 0, length, 0);
    s_static_ks(b, op < 0 ? 0 : op > 1 ? 1 : op);
    ens__buf_puts(b, ",\"shapes\":[");
    ens__buf_append(b, shapes.data, shapes.len);
    ens__buf_puts(b, "]}");
    rc = s_check(ctx, b);
  }
  ens__buf_free(&shapes);
  s_imgs_free(&imgs);
  return rc;
}

int ens__tupi_scene(ens__tupi_ctx *ctx, xmlNode *scene, int number, const ens__tupi_project *proj, ens_buf *b,
                    int *first, int *ind, int *length) {
  (void)proj;
  char where[400];
  char *sname = s_attr(scene, "name", "");
  if (!sname) return ens__error(ENS_ENOMEM, "out of memory");
  snprintf(where, sizeof where, "scene %d \"%s\"", number, sname);
  free(sname);
  snprintf(ctx->where, sizeof ctx->where, "%s", where);
  int rc = 0, len = 0, end = 0, nlayers = 0;
  xmlNode *bg = NULL, **layers = NULL;
  ens_buf mid = ENS_BUF_INIT;
  int mfirst = 1;
  for (xmlNode *c = scene->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (ens__tupi_is(c, "layer")) {
      if (nlayers == ENS_TUPI_MAX_LAYERS) {
        rc = ens__error(ENS_ELIMIT, "%s: more than %d layers", where, ENS_TUPI_MAX_LAYERS);
        goto done;
      }
      xmlNode **v = realloc(layers, (size_t)(nlayers + 1) * sizeof *v);
      if (!v) { rc = ens__error(ENS_ENOMEM, "out of memory"); goto done; }
      layers = v;
      layers[nlayers++] = c;
    } else if (ens__tupi_is(c, "background")) {
      bg = c;
    } else {
      snprintf(ctx->where, sizeof ctx->where, "%s", where);
      if (ens__tupi_is(c, "storyboard")) rc = ens__tupi_note_add(ctx, "the storyboard (titles, notes, durations for "
                                                                       "presentations) is not mapped");
      else rc = ens__tupi_note_add(ctx, "a scene's <%s> is not mapped", (const char *)c->name);
      if (rc) goto done;
    }
  }
  /* Tupi draws later layers above earlier ones; Lottie lists the top first */
  for (int i = nlayers - 1; i >= 0; i--) {
    int l = 0;
    if ((rc = s_layer(ctx, layers[i], where, &mid, &mfirst, ind, &l, &end)) != 0) goto done;
    if (l > len) len = l;
  }
  if (end > len) len = end;
  if (len < 1) len = 1;
  xmlNode *fore = NULL, *back = NULL;
  for (xmlNode *f = bg ? bg->children : NULL; f; f = f->next) {
    if (f->type != XML_ELEMENT_NODE) continue;
    xmlChar *nm = xmlGetProp(f, (const xmlChar *)"name");
    const char *name = nm ? (const char *)nm : "";
    snprintf(ctx->where, sizeof ctx->where, "%s, background \"%s\"", where, name);
    int has = ens__tupi_child(f, "object") || ens__tupi_child(f, "svg");
    if (!ens__tupi_is(f, "frame")) rc = ens__tupi_note_add(ctx, "a background's <%s> is not mapped", (const char *)f->name);
    else if (strstr(name, "dynamic")) {
      if (has) rc = ens__tupi_note_add(ctx, "a dynamic (scrolling) background is not mapped");
    } else if (strstr(name, "foreground")) {
      if (!fore) fore = f;
    } else if (!back && has) {
      back = f;
    } else if (has) {
      rc = ens__tupi_note_add(ctx, "a second static background is not mapped");
    }
    if (nm) xmlFree(nm);
    if (rc) goto done;
  }
  if (fore) {
    snprintf(ctx->where, sizeof ctx->where, "%s, foreground", where);
    if ((rc = s_backdrop(ctx, fore, "foreground", len, b, first, ind)) != 0) goto done;
  }
  if (mid.len) {
    if (!*first) ens__buf_putc(b, ',');
    *first = 0;
    ens__buf_append(b, mid.data, mid.len);
  }
  if (back) {
    snprintf(ctx->where, sizeof ctx->where, "%s, background", where);
    if ((rc = s_backdrop(ctx, back, "background", len, b, first, ind)) != 0) goto done;
  }
  rc = s_check(ctx, b);
  *length = len;
done:
  free(layers);
  ens__buf_free(&mid);
  return rc;
}
