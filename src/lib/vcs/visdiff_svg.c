/* Visual diff of drawings: the composite SVG. NEW is written element by
 * element with a class each; removed elements and the old geometry of
 * changed ones are copied from OLD into NEW's tree at their old place
 * (under the same parent, so under the same transforms and inherited
 * style), with their ids prefixed and their references pointing at the
 * prefixed copies; what those copies reference from OLD follows in one
 * <defs> at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/error.h"
#include "../util/hash.h"
#include "ensemble/limits.h"
#include "visdiff_int.h"


static const ens_obj *s_root_el(const ens_doc *d);

/* --- OLD's ids ----------------------------------------------------------------------- */

typedef struct {
  const ens_obj **objs;
  size_t cap, count;
} s_ids;

static int s_ids_eq(const ens_obj *o, const char *s, size_t n) {
  size_t m;
  const char *v = ens__vd_str(o, "id", &m);
  return v && m == n && memcmp(v, s, n) == 0;
}

static const ens_obj *s_ids_get(const s_ids *t, const char *s, size_t n) {
  if (!t->cap) return NULL;
  size_t i = (size_t)ens__hash_bytes(s, n, 7) & (t->cap - 1);
  while (t->objs[i]) {
    if (s_ids_eq(t->objs[i], s, n)) return t->objs[i];
    i = (i + 1) & (t->cap - 1);
  }
  return NULL;
}

static int s_ids_fill(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_ids *t = user;
  size_t n;
  const char *v = ens__vd_str(o, "id", &n);
  if (!v || ens_obj_kind(o)[0] == '#') return 0;
  if ((t->count + 1) * 2 > t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    const ens_obj **objs = calloc(cap, sizeof *objs);
    if (!objs) return ens__error(ENS_ENOMEM, "out of memory");
    for (size_t j = 0; j < t->cap; j++) {
      if (!t->objs[j]) continue;
      size_t m;
      const char *w = ens__vd_str(t->objs[j], "id", &m);
      size_t i = (size_t)ens__hash_bytes(w, m, 7) & (cap - 1);
      while (objs[i]) i = (i + 1) & (cap - 1);
      objs[i] = t->objs[j];
    }
    free(t->objs);
    t->objs = objs;
    t->cap = cap;
  }
  size_t i = (size_t)ens__hash_bytes(v, n, 7) & (t->cap - 1);
  while (t->objs[i]) {
    if (s_ids_eq(t->objs[i], v, n)) return 0; /* the first in document order names it, as SVG resolves it */
    i = (i + 1) & (t->cap - 1);
  }
  t->objs[i] = o;
  t->count++;
  return 0;
}

/* --- the pieces of OLD drawn into NEW ------------------------------------------------ */

typedef struct {
  ens_id parent;        /* the element of NEW (OLD's id) it goes under */
  ens_id anchor;        /* drawn right before this child of parent; NONE: after the last */
  const ens_obj *old;   /* the element of OLD, drawn with its subtree */
  int removed;          /* ens-removed, else ens-ghost */
  int done;
} s_piece;

typedef struct {
  ens_visdiff *vd;
  ens_buf *out;
  s_ids ids;
  char prefix[32];
  s_piece *pieces;
  size_t npieces, cappieces;
  vd_map pmap;     /* parent id -> (item: first piece index) ; also piece roots (flag 1) */
  int32_t *pnext;  /* next piece of the same parent */
  vd_map emitted;  /* OLD elements written in pieces or defs */
  const ens_obj **refs; /* OLD elements the copies reference */
  size_t nrefs, caprefs;
  double stroke;
  char add_vb[80]; /* a viewBox the root element gets */
  int rc;
} s_w;

enum { S_PIECE = 1, S_HASMARK = 2 };

static int s_is_text_el(const ens_obj *o) {
  const char *k = ens_obj_kind(o);
  if (strncmp(k, "svg:", 4) == 0) k += 4;
  return strcmp(k, "text") == 0;
}

/* Elements whose content is not drawn where it stands but used by
 * reference (a clip, a mask, paint, a filter, a marker): their content is
 * not marked in place (an outline in a mask would change what it masks:
 * class ens-def, which the rules skip), and OLD's pieces never go into
 * them (a removed stop put back would change NEW's gradient). */
static int s_template_kind(const char *k) {
  static const char *const kinds[] = {"clipPath", "mask", "pattern", "marker", "linearGradient",
                                      "radialGradient", "filter"};
  if (strncmp(k, "svg:", 4) == 0) k += 4;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(k, kinds[i]) == 0) return 1;
  return 0;
}

static int s_in_template(const ens_obj *o) {
  for (; o && ens_obj_parent(o); o = ens_obj_parent(o))
    if (s_template_kind(ens_obj_kind(o))) return 1;
  return 0;
}

/* Where pieces go that have no place in NEW's tree: the copied
 * definitions at the end (not drawn). No object has this id. */
#define S_TO_DEFS (~(ens_id)0)

static int s_add_piece(s_w *w, const ens_obj *x, int removed) {
  ens_visdiff *vd = w->vd;
  const ens_obj *p = ens_obj_parent(x);
  if (!p) return 0;
  const char *pk = ens_obj_kind(p);
  if (strncmp(pk, "svg:", 4) == 0) pk += 4;
  /* in a switch, a piece put before an element could be the one drawn */
  int to_defs = s_in_template(p) || strcmp(pk, "switch") == 0;
  if (!to_defs && !ens_doc_get(vd->cur, ens_obj_id(p))) return 0;
  ens_id pid = to_defs ? S_TO_DEFS : ens_obj_id(p), xid = ens_obj_id(x), anchor = ENS_ID_NONE;
  const ens_obj *now = ens_doc_get(vd->cur, xid);
  if (to_defs) {
    /* after the definitions OLD's copies reference */
  } else if (now && ens_obj_parent(now) && ens_obj_id(ens_obj_parent(now)) == pid &&
      !(ens__vd_map_flags(&vd->marks, xid) & VD_MOVED)) {
    anchor = xid; /* beneath the element as it is now */
  } else {
    size_t n = ens_obj_child_count(p);
    for (size_t i = ens_obj_index(x) + 1; i < n; i++) {
      const ens_obj *s = ens_obj_child(p, i), *sn = ens_doc_get(vd->cur, ens_obj_id(s));
      if (sn && ens_obj_parent(sn) && ens_obj_id(ens_obj_parent(sn)) == pid &&
          !(ens__vd_map_flags(&vd->marks, ens_obj_id(s)) & VD_MOVED)) {
        anchor = ens_obj_id(s);
        break;
      }
    }
  }
  if (w->npieces == w->cappieces) {
    size_t cap = w->cappieces ? w->cappieces * 2 : 64;
    s_piece *np = realloc(w->pieces, cap * sizeof *np);
    int32_t *nn = realloc(w->pnext, cap * sizeof *nn);
    if (np) w->pieces = np;
    if (nn) w->pnext = nn;
    if (!np || !nn) return ens__error(ENS_ENOMEM, "out of memory");
    w->cappieces = cap;
  }
  size_t k = w->npieces++;
  w->pieces[k] = (s_piece){pid, anchor, x, removed, 0};
  w->pnext[k] = -1;
  int rc = ens__vd_map_add(&w->pmap, pid, 0);
  if (rc) return rc;
  int32_t *head = ens__vd_map_item(&w->pmap, pid);
  if (*head < 0) {
    *head = (int32_t)k;
  } else {
    int32_t j = *head;
    while (w->pnext[j] >= 0) j = w->pnext[j];
    w->pnext[j] = (int32_t)k;
  }
  rc = ens__vd_map_add(&w->emitted, xid, S_PIECE);
  /* the element of NEW that will hold it, and its ancestors, hold a mark */
  for (const ens_obj *a = ens_doc_get(vd->cur, pid); a && !rc; a = ens_obj_parent(a)) {
    if (ens__vd_map_flags(&w->pmap, ens_obj_id(a)) & S_HASMARK) break;
    rc = ens__vd_map_add(&w->pmap, ens_obj_id(a), S_HASMARK);
  }
  return rc;
}

static int s_collect(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_w *w = user;
  uint32_t f = ens__vd_map_flags(&w->vd->marks, ens_obj_id(o));
  if (!(f & (VD_REMOVED | VD_CHANGED)) || !ens__vd_svg_counted(o)) return 0;
  const ens_obj *p = ens_obj_parent(o);
  if (!p || !ens_obj_parent(p)) return 0; /* the root element: NEW's is the canvas */
  /* inside a text, a copy of a part would flow into the text: the old text whole */
  const ens_obj *x = o;
  for (const ens_obj *a = p; a && ens_obj_parent(a); a = ens_obj_parent(a))
    if (s_is_text_el(a)) x = a;
  for (const ens_obj *a = x; a; a = ens_obj_parent(a))
    if (ens__vd_map_flags(&w->emitted, ens_obj_id(a)) & S_PIECE) return 0; /* drawn with an ancestor */
  return s_add_piece(w, x, (ens__vd_map_flags(&w->vd->marks, ens_obj_id(x)) & VD_REMOVED) != 0);
}

static int s_hasmark(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_w *w = user;
  if (!(ens__vd_map_flags(&w->vd->marks, ens_obj_id(o)) & (VD_ADDED | VD_CHANGED))) return 0;
  for (const ens_obj *a = ens_obj_parent(o); a; a = ens_obj_parent(a)) {
    if (ens__vd_map_flags(&w->pmap, ens_obj_id(a)) & S_HASMARK) break;
    int rc = ens__vd_map_add(&w->pmap, ens_obj_id(a), S_HASMARK);
    if (rc) return rc;
  }
  return 0;
}

/* --- writing -------------------------------------------------------------------------- */

static int s_skip_key(const char *key) { return key[0] == '~' || key[0] == '&' || key[0] == '@'; }

/* What the composite leaves out so that neither the renderer nor a
 * browser showing the page fetches or runs anything: a reference to a
 * file or URL (href of anything but a link, src), a link to javascript:,
 * and event handlers (onclick, onload, ...). */
static int s_left_out(const ens_obj *o, const char *key, const char *s, size_t n) {
  if ((key[0] == 'o' || key[0] == 'O') && (key[1] == 'n' || key[1] == 'N')) return 1;
  size_t kl = strlen(key);
  int href = strcmp(key, "href") == 0 || (kl > 5 && strcmp(key + kl - 5, ":href") == 0);
  if (!href && strcmp(key, "src") != 0) return 0;
  while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) s++, n--;
  const char *k = ens_obj_kind(o);
  if (href && (strcmp(k, "a") == 0 || strcmp(k, "svg:a") == 0)) return n >= 11 && strncasecmp(s, "javascript:", 11) == 0;
  return !(n && s[0] == '#') && !(n >= 5 && strncmp(s, "data:", 5) == 0);
}

static int s_note_ref(s_w *w, const ens_obj *t) {
  if (w->nrefs == w->caprefs) {
    size_t cap = w->caprefs ? w->caprefs * 2 : 32;
    const ens_obj **n = realloc(w->refs, cap * sizeof *n);
    if (!n) return ens__error(ENS_ENOMEM, "out of memory");
    w->refs = n;
    w->caprefs = cap;
  }
  w->refs[w->nrefs++] = t;
  return 0;
}

/* An attribute value (attr) or a style sheet's text: in a copy from OLD
 * (old), ids prefixed where it names one of OLD; everywhere, a url() to
 * a file or URL becomes an empty data: URL and @import goes, so that
 * nothing is fetched. */
static void s_value(s_w *w, const char *key, const char *s, size_t n, int old, int attr) {
  ens_buf *b = w->out;
  if (old && key && strcmp(key, "id") == 0) {
    ens__buf_puts(b, w->prefix);
    ens__vd_escape(b, s, n, attr);
    return;
  }
  if (old && n > 1 && s[0] == '#') {
    const ens_obj *t = s_ids_get(&w->ids, s + 1, n - 1);
    if (t) {
      ens__buf_putc(b, '#');
      ens__buf_puts(b, w->prefix);
      ens__vd_escape(b, s + 1, n - 1, attr);
      if (!w->rc) w->rc = s_note_ref(w, t);
      return;
    }
  }
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '@' && n - i >= 7 && memcmp(s + i, "@import", 7) == 0) {
      ens__vd_escape(b, s + run, i - run, attr);
      ens__buf_puts(b, "@ens-left-out-import");
      run = i + 7;
      i += 6;
      continue;
    }
    if (n - i < 5 || (s[i] != 'u' && s[i] != 'U') || strncasecmp(s + i, "url(", 4) != 0) continue;
    size_t j = i + 4;
    while (j < n && (s[j] == ' ' || s[j] == '\'' || s[j] == '"')) j++;
    size_t e = j;
    while (e < n && s[e] != ')' && s[e] != '\'' && s[e] != '"') e++;
    if (j < n && s[j] == '#') {
      if (!old) continue;
      size_t a = j + 1, end = a;
      while (end < e && s[end] != ' ') end++;
      const ens_obj *t = s_ids_get(&w->ids, s + a, end - a);
      if (!t) continue;
      ens__vd_escape(b, s + run, a - run, attr);
      ens__buf_puts(b, w->prefix);
      run = a;
      if (!w->rc) w->rc = s_note_ref(w, t);
      i = end - 1;
    } else if (!(e - j >= 5 && strncmp(s + j, "data:", 5) == 0)) {
      ens__vd_escape(b, s + run, j - run, attr);
      ens__buf_puts(b, "data:,");
      run = e;
      i = e > i ? e - 1 : i;
    }
  }
  ens__vd_escape(b, s + run, n - run, attr);
}

/* The start tag's attributes with class extended by cls. */
static void s_attrs(s_w *w, const ens_obj *o, int old, const char *cls, long num, const char *num_attr) {
  ens_buf *b = w->out;
  char with_def[64];
  if (cls && s_in_template(o)) {
    snprintf(with_def, sizeof with_def, "%s ens-def", cls);
    cls = with_def;
  }
  int had_class = 0;
  size_t np = ens_obj_prop_count(o);
  for (size_t i = 0; i < np; i++) {
    const char *key;
    ens_value v;
    if (ens_obj_prop_at(o, i, &key, &v) != 0 || v.type != ENS_STR || s_skip_key(key)) continue;
    if (s_left_out(o, key, v.u.s.ptr, v.u.s.len)) continue;
    ens__buf_putc(b, ' ');
    ens__buf_puts(b, key);
    ens__buf_puts(b, "=\"");
    s_value(w, key, v.u.s.ptr, v.u.s.len, old, 1);
    if (strcmp(key, "class") == 0 && cls) {
      had_class = 1;
      if (v.u.s.len) ens__buf_putc(b, ' ');
      ens__buf_puts(b, cls);
    }
    ens__buf_putc(b, '"');
  }
  if (cls && !had_class) ens__buf_printf(b, " class=\"%s\"", cls);
  if (num >= 0) ens__buf_printf(b, " %s=\"%ld\"", num_attr, num);
}

static void s_text(s_w *w, const ens_obj *o) {
  const char *k = ens_obj_kind(o);
  size_t n;
  const char *s = ens__vd_str(o, "text", &n);
  if (!s) return;
  const ens_obj *p = ens_obj_parent(o);
  const char *pk = p ? ens_obj_kind(p) : "";
  if (strncmp(pk, "svg:", 4) == 0) pk += 4;
  if (strcmp(k, "#text") != 0 && strcmp(k, "#cdata") != 0) return;
  /* CDATA as text: the same characters */
  if (strcmp(pk, "style") == 0)
    s_value(w, NULL, s, n, 0, 0);
  else
    ens__vd_escape(w->out, s, n, 0);
}

static long s_item(s_w *w, ens_id id) {
  int32_t *it = ens__vd_map_item(&w->vd->marks, id);
  return it ? *it : -1;
}

/* inside: 0 the top of a piece, 1 inside a removed copy, 2 inside a ghost */
static void s_write_old(s_w *w, const ens_obj *o, int removed, int inside, int depth) {
  if (w->rc) return;
  if (depth > ENS_MAX_DEPTH) {
    w->rc = ens__error(ENS_ELIMIT, "elements nested too deeply");
    return;
  }
  const char *k = ens_obj_kind(o);
  if (k[0] == '#') {
    s_text(w, o);
    return;
  }
  ens_id id = ens_obj_id(o);
  uint32_t f = ens__vd_map_flags(&w->vd->marks, id);
  const char *cls;
  long num = -1;
  const char *num_attr = "data-ens";
  int in_next = inside;
  if (inside == 0) {
    cls = removed ? "ens-removed" : "ens-ghost";
    num = s_item(w, id);
    if (!removed) num_attr = "data-ens-ghost";
    in_next = removed ? 1 : 2;
    if (num < 0) num_attr = NULL;
  } else if (inside == 2 && (f & VD_REMOVED) && ens__vd_svg_counted(o)) {
    cls = "ens-removed"; /* removed from a changed element: drawn inside its ghost */
    num = s_item(w, id);
    in_next = 1;
  } else if (inside == 3) {
    cls = NULL; /* a definition a copy references */
  } else {
    cls = inside == 1 ? "ens-in-removed" : "ens-in-ghost";
  }
  if (!w->rc) w->rc = ens__vd_map_add(&w->emitted, id, 0);
  ens_buf *b = w->out;
  ens__buf_putc(b, '<');
  ens__buf_puts(b, k);
  s_attrs(w, o, 1, cls, num_attr ? num : -1, num_attr ? num_attr : "");
  /* an old style sheet or script would act on the whole composite */
  const char *bare = strncmp(k, "svg:", 4) == 0 ? k + 4 : k;
  size_t n = ens_obj_child_count(o);
  if (!n || strcmp(bare, "style") == 0 || strcmp(bare, "script") == 0) {
    ens__buf_puts(b, "/>");
    return;
  }
  ens__buf_putc(b, '>');
  for (size_t i = 0; i < n; i++) s_write_old(w, ens_obj_child(o, i), removed, in_next, depth + 1);
  ens__buf_puts(b, "</");
  ens__buf_puts(b, k);
  ens__buf_putc(b, '>');
}

static void s_pieces_at(s_w *w, ens_id parent, ens_id anchor, int depth) {
  int32_t *head = ens__vd_map_item(&w->pmap, parent);
  if (!head) return;
  for (int32_t j = *head; j >= 0; j = w->pnext[j]) {
    s_piece *p = &w->pieces[j];
    if (p->done || p->anchor != anchor) continue;
    p->done = 1;
    s_write_old(w, p->old, p->removed, 0, depth);
  }
}

static void s_style(s_w *w) {
  static const char *const leaves[] = {"path", "rect", "circle", "ellipse", "line", "polyline", "polygon",
                                       "text", "image", "use", "foreignObject"};
  ens_buf *b = w->out;
  double sw = w->stroke;
  ens__buf_puts(b, "<style id=\"ens-visdiff-style\" type=\"text/css\">\n");
  struct {
    const char *classes[2];
    const char *rule;
  } rules[] = {
      {{"ens-unchanged", NULL}, "opacity:0.3"},
      {{"ens-added", "ens-in-added"}, "stroke:" VD_COLOR_ADDED "!important;stroke-opacity:1!important;"
                                      "stroke-dasharray:none!important;stroke-width:%g!important"},
      {{"ens-changed", "ens-in-changed"}, "stroke:" VD_COLOR_CHANGED "!important;stroke-opacity:1!important;"
                                          "stroke-dasharray:none!important;stroke-width:%g!important"},
      {{"ens-removed", "ens-in-removed"}, "stroke:" VD_COLOR_REMOVED "!important;stroke-opacity:1!important;"
                                          "stroke-dasharray:%g,%g!important;stroke-width:%g!important;"
                                          "fill-opacity:0.35!important"},
      {{"ens-ghost", "ens-in-ghost"}, "fill:none!important;stroke:" VD_COLOR_GHOST "!important;"
                                      "stroke-opacity:1!important;stroke-dasharray:%g,%g!important;"
                                      "stroke-width:%g!important;opacity:0.8!important"},
  };
  for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
    int first = 1;
    for (int c = 0; c < 2; c++) {
      if (!rules[r].classes[c]) continue;
      for (size_t l = 0; l < sizeof leaves / sizeof leaves[0]; l++) {
        ens__buf_printf(b, "%s%s.%s:not(.ens-def)", first ? "" : ",", leaves[l], rules[r].classes[c]);
        first = 0;
      }
    }
    ens__buf_puts(b, "{");
    if (r == 0)
      ens__buf_puts(b, rules[r].rule);
    else if (r <= 2)
      ens__buf_printf(b, rules[r].rule, sw);
    else
      ens__buf_printf(b, rules[r].rule, sw * 3, sw * 2, sw);
    ens__buf_puts(b, "}\n");
  }
  ens__buf_puts(b, "</style>");
}

/* The namespace prefixes OLD's root element declares and NEW's does not:
 * the copies from OLD may use them. */
static void s_old_namespaces(s_w *w, const ens_obj *root) {
  const ens_obj *old_root = s_root_el(w->vd->old_doc);
  size_t np = old_root ? ens_obj_prop_count(old_root) : 0;
  for (size_t i = 0; i < np; i++) {
    const char *key;
    ens_value v, have;
    if (ens_obj_prop_at(old_root, i, &key, &v) != 0 || v.type != ENS_STR || strncmp(key, "xmlns:", 6) != 0) continue;
    if (ens_obj_get(root, key, &have) == 0) continue;
    ens__buf_printf(w->out, " %s=\"", key);
    ens__vd_escape(w->out, v.u.s.ptr, v.u.s.len, 1);
    ens__buf_putc(w->out, '"');
  }
}

static void s_write_new(s_w *w, const ens_obj *o, int inside, int depth) {
  if (w->rc) return;
  if (depth > ENS_MAX_DEPTH) {
    w->rc = ens__error(ENS_ELIMIT, "elements nested too deeply");
    return;
  }
  const char *k = ens_obj_kind(o);
  if (k[0] == '#') {
    s_text(w, o);
    return;
  }
  ens_id id = ens_obj_id(o);
  uint32_t f = ens__vd_map_flags(&w->vd->marks, id);
  int counted = ens__vd_svg_counted(o);
  int root_el = ens_obj_parent(o) && !ens_obj_parent(ens_obj_parent(o));
  const char *cls = NULL;
  long num = -1;
  int in_next = inside;
  if (counted) {
    if (inside == 1) {
      cls = "ens-in-added";
    } else if (f & VD_ADDED) {
      cls = "ens-added";
      num = s_item(w, id);
      in_next = 1;
    } else if (f & VD_CHANGED) {
      cls = "ens-changed";
      num = s_item(w, id);
      if (!root_el) in_next = 2;
    } else if (inside == 2) {
      cls = "ens-in-changed";
    } else if (!(ens__vd_map_flags(&w->pmap, id) & S_HASMARK)) {
      cls = "ens-unchanged";
    }
  }
  ens_buf *b = w->out;
  ens__buf_putc(b, '<');
  ens__buf_puts(b, k);
  s_attrs(w, o, 0, cls, num, "data-ens");
  if (root_el && w->add_vb[0]) ens__buf_printf(b, " viewBox=\"%s\"", w->add_vb);
  if (root_el) s_old_namespaces(w, o);
  size_t n = ens_obj_child_count(o);
  const char *bare = strncmp(k, "svg:", 4) == 0 ? k + 4 : k;
  if (strcmp(bare, "script") == 0) n = 0; /* the page would run it */
  int has_pieces = ens__vd_map_item(&w->pmap, id) && *ens__vd_map_item(&w->pmap, id) >= 0;
  if (!n && !root_el && !has_pieces) {
    ens__buf_puts(b, "/>");
    return;
  }
  ens__buf_putc(b, '>');
  if (root_el) s_style(w);
  for (size_t i = 0; i < n && !w->rc; i++) {
    const ens_obj *c = ens_obj_child(o, i);
    if (has_pieces) s_pieces_at(w, id, ens_obj_id(c), depth + 1);
    s_write_new(w, c, in_next, depth + 1);
  }
  if (has_pieces) s_pieces_at(w, id, ENS_ID_NONE, depth + 1);
  if (root_el && !w->rc) {
    /* what the copies reference from OLD, copied once */
    ens__buf_puts(b, "<defs class=\"ens-old-defs\">");
    s_pieces_at(w, S_TO_DEFS, ENS_ID_NONE, depth + 1);
    for (size_t i = 0; i < w->nrefs && !w->rc; i++) {
      const ens_obj *t = w->refs[i];
      if (ens__vd_map_item(&w->emitted, ens_obj_id(t))) continue;
      int covered = 0;
      for (const ens_obj *a = ens_obj_parent(t); a && !covered; a = ens_obj_parent(a))
        for (size_t j = 0; j < w->nrefs; j++)
          if (w->refs[j] == a) covered = 1;
      if (covered) continue;
      s_write_old(w, t, 0, 3, depth + 1);
    }
    ens__buf_puts(b, "</defs>");
  }
  ens__buf_puts(b, "</");
  ens__buf_puts(b, k);
  ens__buf_putc(b, '>');
}

/* A length attribute in pixels (CSS units: px, in, cm, mm, pt, pc); 0
 * when absent, a percentage or not a length. */
static double s_len(const ens_obj *o, const char *key) {
  size_t n;
  const char *s = ens__vd_str(o, key, &n);
  if (!s || n >= 64) return 0;
  char tmp[64], *end;
  memcpy(tmp, s, n);
  tmp[n] = 0;
  double v = strtod(tmp, &end);
  while (*end == ' ') end++;
  static const struct {
    const char *unit;
    double px;
  } units[] = {{"", 1}, {"px", 1}, {"in", 96}, {"cm", 96 / 2.54}, {"mm", 96 / 25.4}, {"pt", 96.0 / 72}, {"pc", 16}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(end, units[i].unit) == 0) return v > 0 ? v * units[i].px : 0;
  return 0;
}

/* The drawing's size in user units (*uw, *uh: its viewBox, else its width
 * and height) and in pixels (*pw, *ph); *has_vb when it has a viewBox. */
static void s_size(const ens_obj *root, double *uw, double *uh, double *pw, double *ph, int *has_vb) {
  *uw = *uh = 0;
  *has_vb = 0;
  size_t n;
  const char *vb = ens__vd_str(root, "viewBox", &n);
  if (vb && n < 200) {
    char tmp[200];
    memcpy(tmp, vb, n);
    tmp[n] = 0;
    for (char *c = tmp; *c; c++)
      if (*c == ',') *c = ' ';
    double x, y, vw, vh;
    if (sscanf(tmp, "%lf %lf %lf %lf", &x, &y, &vw, &vh) == 4 && vw > 0 && vh > 0) {
      *uw = vw;
      *uh = vh;
      *has_vb = 1;
    }
  }
  double aw = s_len(root, "width"), ah = s_len(root, "height");
  if (!*has_vb) {
    *uw = aw > 0 ? aw : 256;
    *uh = ah > 0 ? ah : 256;
  }
  *pw = aw > 0 ? aw : *uw;
  *ph = ah > 0 ? ah : *uh;
}

static const ens_obj *s_root_el(const ens_doc *d) {
  const ens_obj *r = ens_doc_root(d);
  for (size_t i = 0; i < ens_obj_child_count(r); i++)
    if (ens_obj_kind(ens_obj_child(r, i))[0] != '#') return ens_obj_child(r, i);
  return NULL;
}

typedef struct {
  const char *prefix;
  size_t len;
  int clash;
} s_clash;

static int s_clash_fn(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_clash *c = user;
  size_t n;
  const char *v = ens__vd_str(o, "id", &n);
  if (v && n >= c->len && memcmp(v, c->prefix, c->len) == 0) c->clash = 1;
  return c->clash;
}

int ens__vd_svg_write(ens_visdiff *vd, ens_buf *out) {
  const ens_obj *root = s_root_el(vd->cur);
  if (!root) return ens__error(ENS_EINVAL, "the drawing has no root element");
  s_w w;
  memset(&w, 0, sizeof w);
  w.vd = vd;
  w.out = out;
  /* a prefix no id of either version starts with */
  for (int k = 0; k < 1000; k++) {
    snprintf(w.prefix, sizeof w.prefix, k ? "ensold%d-" : "ensold-", k);
    s_clash c = {w.prefix, strlen(w.prefix), 0};
    ens_obj_walk(ens_doc_root(vd->old_doc), s_clash_fn, &c);
    if (!c.clash) ens_obj_walk(ens_doc_root(vd->cur), s_clash_fn, &c);
    if (!c.clash) break;
  }
  int rc = ens_obj_walk(ens_doc_root(vd->old_doc), s_ids_fill, &w.ids);
  if (!rc) rc = ens_obj_walk(ens_doc_root(vd->old_doc), s_collect, &w);
  if (!rc) rc = ens_obj_walk(ens_doc_root(vd->cur), s_hasmark, &w);
  double dw, dh;
  int has_vb;
  s_size(root, &dw, &dh, &vd->width, &vd->height, &has_vb);
  /* without a viewBox the drawing would not scale to a page or an image */
  if (!has_vb && !ens__vd_str(root, "viewBox", NULL)) snprintf(w.add_vb, sizeof w.add_vb, "0 0 %g %g", dw, dh);
  w.stroke = (dw > dh ? dw : dh) / 500.0;
  if (!rc) {
    ens__buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s_write_new(&w, root, 0, 0);
    ens__buf_putc(out, '\n');
    rc = w.rc;
  }
  free(w.ids.objs);
  free(w.pieces);
  free(w.pnext);
  free(w.refs);
  ens__vd_map_free(&w.pmap);
  ens__vd_map_free(&w.emitted);
  return rc;
}
