/* Visual diff of drawings: which elements are marked added, removed or
 * changed, from the operations of the diff's transaction (docs/vcs.md,
 * "Visual diff": the rules, and what is left out as editor state). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "visdiff_int.h"

/* Elements that draw nothing a person sees as the drawing: an editor's
 * own elements (any prefix but svg:, as sodipodi:namedview) and the
 * drawing's metadata. */
static int s_noise_kind(const char *kind) {
  const char *colon = strchr(kind, ':');
  if (colon) {
    if (colon - kind != 3 || strncmp(kind, "svg", 3) != 0) return 1;
    kind = colon + 1;
  }
  return strcmp(kind, "metadata") == 0 || strcmp(kind, "title") == 0 || strcmp(kind, "desc") == 0;
}

/* Attributes of an editor (labels, node types, export hints) and namespace
 * declarations: they change nothing drawn. */
static int s_noise_key(const char *key) {
  return key[0] == '~' || key[0] == '&' || key[0] == '@' || strncmp(key, "inkscape:", 9) == 0 ||
         strncmp(key, "sodipodi:", 9) == 0 || strcmp(key, "xmlns") == 0 || strncmp(key, "xmlns:", 6) == 0;
}

int ens__vd_svg_counted(const ens_obj *obj) {
  if (!obj || ens_obj_kind(obj)[0] == '#') return 0;
  for (const ens_obj *o = obj;;) {
    const ens_obj *p = ens_obj_parent(o);
    if (!p) return 0;
    if (!ens_obj_parent(p)) return ens_obj_kind(o)[0] != '#'; /* o is the root element */
    if (s_noise_kind(ens_obj_kind(o))) return 0;
    o = p;
  }
}

static int s_blank(const ens_obj *text) {
  size_t n = 0;
  const char *s = ens__vd_str(text, "text", &n);
  for (size_t i = 0; s && i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r') return 0;
  return 1;
}

static int s_texty(const ens_obj *o) {
  const char *k = ens_obj_kind(o);
  return strcmp(k, "#text") == 0 || strcmp(k, "#cdata") == 0;
}

/* What changed in each marked element, for the list of changes. */
typedef struct {
  ens_id id;
  ens_buf text;
} s_detail;

typedef struct {
  ens_visdiff *vd;
  s_detail *d;
  size_t nd, capd;
} s_ctx;

static int s_note(s_ctx *c, ens_id id, uint32_t flags, const char *what) {
  int rc = ens__vd_map_add(&c->vd->marks, id, flags);
  if (rc || !what) return rc;
  int32_t *slot = ens__vd_map_item(&c->vd->marks, id);
  if (*slot < 0) {
    if (c->nd == c->capd) {
      size_t cap = c->capd ? c->capd * 2 : 64;
      s_detail *n = realloc(c->d, cap * sizeof *n);
      if (!n) return ens__error(ENS_ENOMEM, "out of memory");
      c->d = n;
      c->capd = cap;
    }
    c->d[c->nd].id = id;
    memset(&c->d[c->nd].text, 0, sizeof c->d[c->nd].text);
    *slot = (int32_t)c->nd++;
  }
  ens_buf *t = &c->d[*slot].text;
  /* each word once */
  size_t wl = strlen(what);
  for (size_t i = 0; i + wl <= t->len; i++)
    if ((i == 0 || t->data[i - 1] == ' ') && memcmp(t->data + i, what, wl) == 0 &&
        (i + wl == t->len || t->data[i + wl] == ','))
      return 0;
  if (t->len) ens__buf_puts(t, ", ");
  ens__buf_puts(t, what);
  return t->oom ? ens__error(ENS_ENOMEM, "out of memory") : 0;
}

/* A text node's change marks the element that holds it. */
static int s_text_parent(s_ctx *c, const ens_obj *text) {
  const ens_obj *p = ens_obj_parent(text);
  if (!p || !ens__vd_svg_counted(p) || !ens_doc_get(c->vd->cur, ens_obj_id(p))) return 0;
  return s_note(c, ens_obj_id(p), VD_CHANGED, "text");
}

static int s_op(s_ctx *c, size_t i) {
  ens_visdiff *vd = c->vd;
  const ens_txn *t = vd->txn;
  ens_id id = ens_txn_op_target(t, i);
  switch (ens_txn_op_kind(t, i)) {
    case ENS_OP_SET: {
      const char *key;
      ens_value v;
      ens_txn_op_set(t, i, &key, &v);
      const ens_obj *o = ens_doc_get(vd->cur, id), *was = ens_doc_get(vd->old_doc, id);
      if (!o) return 0;
      if (s_texty(o)) return (s_blank(o) && s_blank(was)) ? 0 : s_text_parent(c, o);
      if (s_noise_key(key) || !ens__vd_svg_counted(o)) return 0;
      return s_note(c, id, VD_CHANGED | VD_ATTRS, key);
    }
    case ENS_OP_DELETE: {
      const ens_obj *was = ens_doc_get(vd->old_doc, id);
      if (!was) return 0;
      if (s_texty(was)) return s_blank(was) ? 0 : s_text_parent(c, was);
      return ens__vd_svg_counted(was) ? s_note(c, id, VD_REMOVED, NULL) : 0;
    }
    case ENS_OP_MOVE: {
      const ens_obj *o = ens_doc_get(vd->cur, id);
      if (!o) return 0;
      if (s_texty(o)) return s_blank(o) ? 0 : s_text_parent(c, o);
      return ens__vd_svg_counted(o) ? s_note(c, id, VD_CHANGED | VD_MOVED, "moved") : 0;
    }
    case ENS_OP_INSERT: {
      const ens_obj *o = ens_doc_get(vd->cur, id);
      if (!o) return 0;
      if (s_texty(o)) return s_blank(o) ? 0 : s_text_parent(c, o);
      return ens__vd_svg_counted(o) ? s_note(c, id, VD_ADDED, NULL) : 0;
    }
  }
  return 0;
}

/* "path #eye", "rect in #layer1", "g in svg". */
static void s_label(const ens_obj *o, char *buf, size_t size) {
  size_t n = 0;
  const char *idv = ens__vd_str(o, "id", &n);
  if (idv) {
    snprintf(buf, size, "%s #%.*s", ens_obj_kind(o), (int)(n > 200 ? 200 : n), idv);
    return;
  }
  for (const ens_obj *p = ens_obj_parent(o); p && ens_obj_parent(p); p = ens_obj_parent(p)) {
    idv = ens__vd_str(p, "id", &n);
    if (idv) {
      snprintf(buf, size, "%s in #%.*s", ens_obj_kind(o), (int)(n > 200 ? 200 : n), idv);
      return;
    }
  }
  snprintf(buf, size, "%s", ens_obj_kind(o));
}

typedef struct {
  s_ctx *c;
  uint32_t want;
  int defs; /* list definitions (1) or what is drawn (0) */
  int rc;
} s_walk;

/* Elements that are drawn only where something references them. */
static int s_definition(const ens_obj *o) {
  static const char *const kinds[] = {"defs", "linearGradient", "radialGradient", "pattern", "filter",
                                      "clipPath", "mask", "marker", "symbol"};
  for (; o && ens_obj_parent(o); o = ens_obj_parent(o)) {
    const char *k = ens_obj_kind(o);
    if (strncmp(k, "svg:", 4) == 0) k += 4;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
      if (strcmp(k, kinds[i]) == 0) return 1;
  }
  return 0;
}

static const char *s_detail_of(s_ctx *c, ens_id id) {
  int32_t *slot = ens__vd_map_item(&c->vd->marks, id);
  if (!slot || *slot < 0) return "";
  ens_buf *t = &c->d[*slot].text;
  ens__buf_putc(t, 0);
  t->len--;
  return t->oom ? "" : (const char *)t->data;
}

static int s_list(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_walk *w = user;
  uint32_t f = ens__vd_map_flags(&w->c->vd->marks, ens_obj_id(o));
  if (!(f & w->want) || s_definition(o) != w->defs) return 0;
  char label[512];
  s_label(o, label, sizeof label);
  ens_vis_mark m = (f & VD_ADDED) ? ENS_VIS_ADDED : (f & VD_REMOVED) ? ENS_VIS_REMOVED : ENS_VIS_CHANGED;
  const char *detail = s_detail_of(w->c, ens_obj_id(o));
  char *copy = strdup(detail);
  if (!copy) return w->rc = ens__error(ENS_ENOMEM, "out of memory");
  w->rc = ens__vd_item_add(w->c->vd, m, ens_obj_id(o), label, copy);
  free(copy);
  return w->rc;
}

int ens__vd_mark_svg(ens_visdiff *vd) {
  s_ctx c = {vd, NULL, 0, 0};
  int rc = 0;
  size_t n = ens_txn_op_count(vd->txn);
  for (size_t i = 0; i < n && !rc; i++) rc = s_op(&c, i);
  /* the list: added and changed in NEW's order, then removed in OLD's;
   * what is drawn before the definitions (gradients, filters, ...) */
  for (int defs = 0; defs < 2 && !rc; defs++) {
    s_walk w = {&c, VD_ADDED | VD_CHANGED, defs, 0};
    rc = ens_obj_walk(ens_doc_root(vd->cur), s_list, &w);
    w.want = VD_REMOVED;
    if (!rc) rc = ens_obj_walk(ens_doc_root(vd->old_doc), s_list, &w);
  }
  for (size_t i = 0; i < c.nd; i++) ens__buf_free(&c.d[i].text);
  free(c.d);
  return rc;
}
