/* `ensemble merge` on a drawing: an element with a conflict is put in a
 * group that holds both versions, the kept one drawn and the other hidden,
 * each in a group whose class (and Inkscape label) says which it is. The
 * hidden copy's ids are prefixed so that ids stay unique, and references
 * inside it to elements inside it follow, so it draws as its side drew it
 * when shown. A conflict on the root element, which no group can hold, is
 * noted in a comment before it. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "merge_mark.h"

#define S_PREFIX "theirs-"
/* two positions in order (ens_pos_seq(0, 2) and (1, 2)) */
#define S_FIRST "K"
#define S_SECOND "f"

/* Elements a <g> may stand in without changing what they mean. */
static int s_container(const char *kind) {
  const char *k = strncmp(kind, "svg:", 4) == 0 ? kind + 4 : kind;
  static const char *const ok[] = {"svg", "g", "a", "defs", "symbol", "marker", "mask", "pattern", NULL};
  for (size_t i = 0; ok[i]; i++)
    if (strcmp(k, ok[i]) == 0) return 1;
  return 0;
}

static int s_is_element(const ens_obj *o) { return ens_obj_kind(o)[0] != '#'; }

/* The root element: the element child of the document root. */
static const ens_obj *s_root_element(const ens_doc *doc) {
  const ens_obj *r = ens_doc_root(doc);
  for (size_t i = 0; i < ens_obj_child_count(r); i++)
    if (s_is_element(ens_obj_child(r, i))) return ens_obj_child(r, i);
  return NULL;
}

/* The element a conflict on o is shown by: the nearest element at or
 * above o whose parent may hold a group; NULL when that is the root
 * element (or above). */
static const ens_obj *s_wrappable(const ens_obj *o) {
  while (o && !s_is_element(o)) o = ens_obj_parent(o);
  for (; o; o = ens_obj_parent(o)) {
    const ens_obj *p = ens_obj_parent(o);
    if (!p || !ens_obj_parent(p)) return NULL; /* the root element, or the document */
    if (s_is_element(o) && s_container(ens_obj_kind(p))) return o;
  }
  return NULL;
}

static int s_is_ancestor(const ens_obj *a, const ens_obj *o) {
  for (o = o ? ens_obj_parent(o) : NULL; o; o = ens_obj_parent(o))
    if (o == a) return 1;
  return 0;
}

/* --- ids ---------------------------------------------------------------------------- */

typedef struct {
  char **v;
  size_t n, cap;
} s_strs;

static int s_push(s_strs *s, const char *p, size_t n) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    char **v = realloc(s->v, cap * sizeof *v);
    if (!v) return -1;
    s->v = v;
    s->cap = cap;
  }
  char *c = malloc(n + 1);
  if (!c) return -1;
  memcpy(c, p, n);
  c[n] = '\0';
  s->v[s->n++] = c;
  return 0;
}

static void s_strs_free(s_strs *s) {
  for (size_t i = 0; i < s->n; i++) free(s->v[i]);
  free(s->v);
}

static int s_has(const s_strs *s, const char *p, size_t n) {
  for (size_t i = 0; i < s->n; i++)
    if (strlen(s->v[i]) == n && memcmp(s->v[i], p, n) == 0) return 1;
  return 0;
}

typedef struct {
  s_strs *ids;
} s_idwalk;

static int s_collect_id(const ens_obj *o, size_t depth, void *user) {
  s_strs *ids = user;
  ens_value v;
  if (s_is_element(o) && ens_obj_get(o, "id", &v) == 0 && v.type == ENS_STR)
    return s_push(ids, v.u.s.ptr, v.u.s.len) ? 1 : 0;
  return 0;
}

/* Every id used in the merged document, and those given to copies so far. */
typedef struct {
  s_strs used;
  s_strs from, to; /* the copy being made: old id -> new id */
} s_ctx;

static int s_new_id(s_ctx *cx, const char *id, size_t n, const char *prefix) {
  char buf[1200];
  for (int k = 1; k < 1000000; k++) {
    int len = k == 1 ? snprintf(buf, sizeof buf, "%s%.*s", prefix, (int)n, id)
                     : snprintf(buf, sizeof buf, "%s%.*s-%d", prefix, (int)n, id, k);
    if (len < 0 || (size_t)len >= sizeof buf) return -1;
    if (!s_has(&cx->used, buf, (size_t)len)) {
      if (s_push(&cx->used, buf, (size_t)len) || s_push(&cx->from, id, n) || s_push(&cx->to, buf, (size_t)len))
        return -1;
      return 0;
    }
  }
  return -1;
}

static int s_map_ids(const ens_obj *o, size_t depth, void *user) {
  s_ctx *cx = user;
  ens_value v;
  if (s_is_element(o) && ens_obj_get(o, "id", &v) == 0 && v.type == ENS_STR && v.u.s.len &&
      !s_has(&cx->from, v.u.s.ptr, v.u.s.len))
    return s_new_id(cx, v.u.s.ptr, v.u.s.len, S_PREFIX) ? 1 : 0;
  return 0;
}

static const char *s_mapped(const s_ctx *cx, const char *p, size_t n) {
  for (size_t i = 0; i < cx->from.n; i++)
    if (strlen(cx->from.v[i]) == n && memcmp(cx->from.v[i], p, n) == 0) return cx->to.v[i];
  return NULL;
}

/* value with url(#ID) and a whole "#ID" of an href rewritten where ID is a
 * copied id; NULL when nothing changes (or out of memory: *oom). */
static char *s_rewrite(const s_ctx *cx, const char *key, ens_value v, int *oom) {
  if (v.type != ENS_STR) return NULL;
  const char *s = v.u.s.ptr;
  size_t n = v.u.s.len;
  size_t kl = strlen(key);
  int href = strcmp(key, "href") == 0 || (kl > 5 && strcmp(key + kl - 5, ":href") == 0);
  if (href) {
    const char *to = n > 1 && s[0] == '#' ? s_mapped(cx, s + 1, n - 1) : NULL;
    if (!to) return NULL;
    char *r = malloc(strlen(to) + 2);
    if (!r) {
      *oom = 1;
      return NULL;
    }
    r[0] = '#';
    strcpy(r + 1, to);
    return r;
  }
  if (!memmem(s, n, "url(#", 5)) return NULL;
  size_t cap = n + 64, len = 0;
  char *r = malloc(cap);
  int changed = 0;
  if (!r) {
    *oom = 1;
    return NULL;
  }
  for (size_t i = 0; i < n;) {
    const char *to = NULL;
    size_t idl = 0;
    if (i + 5 <= n && memcmp(s + i, "url(#", 5) == 0) {
      while (i + 5 + idl < n && s[i + 5 + idl] != ')' && s[i + 5 + idl] != ' ' && s[i + 5 + idl] != '"' &&
             s[i + 5 + idl] != '\'')
        idl++;
      to = s_mapped(cx, s + i + 5, idl);
    }
    size_t need = to ? 5 + strlen(to) : 1;
    if (len + need + 1 > cap) {
      cap = (len + need + 1) * 2;
      char *g = realloc(r, cap);
      if (!g) {
        free(r);
        *oom = 1;
        return NULL;
      }
      r = g;
    }
    if (to) {
      memcpy(r + len, "url(#", 5);
      memcpy(r + len + 5, to, strlen(to));
      len += need;
      i += 5 + idl;
      changed = 1;
    } else {
      r[len++] = s[i++];
    }
  }
  r[len] = '\0';
  if (!changed) {
    free(r);
    return NULL;
  }
  return r;
}

/* Copies o (of another document) under node: properties with ids and
 * references renamed, then its children. */
static int s_copy(ens_doc *merged, s_ctx *cx, ens_node *node, const ens_obj *o) {
  for (size_t i = 0; i < ens_obj_prop_count(o); i++) {
    const char *key;
    ens_value v;
    ens_obj_prop_at(o, i, &key, &v);
    if (v.type == ENS_REF) continue;
    int oom = 0;
    char *nv = NULL;
    if (strcmp(key, "id") == 0 && v.type == ENS_STR) {
      const char *to = s_mapped(cx, v.u.s.ptr, v.u.s.len);
      if (to && !(nv = strdup(to))) return -1;
    } else {
      nv = s_rewrite(cx, key, v, &oom);
      if (oom) return -1;
    }
    int rc = ens_node_set(node, key, nv ? ens_str(nv) : v);
    free(nv);
    if (rc) return -1;
  }
  size_t n = ens_obj_child_count(o);
  for (size_t i = 0; i < n; i++) {
    const ens_obj *k = ens_obj_child(o, i);
    char *pos = ens_pos_seq(i, n);
    ens_id id = ens_doc_new_id(merged);
    ens_node *kn = pos && id ? ens_node_add_child(node, pos, id, ens_obj_kind(k)) : NULL;
    ens_free(pos);
    if (!kn || s_copy(merged, cx, kn, k)) return -1;
  }
  return 0;
}

/* A <g> node with the class, an Inkscape label where the drawing declares
 * Inkscape's namespace, and a style. */
static ens_node *s_group(ens_txn *txn, ens_node *parent, ens_id under, const char *pos, ens_id id, const char *cls,
                         const char *label, const char *style, int inkscape) {
  ens_node *g = parent ? ens_node_add_child(parent, pos, id, "g") : ens_txn_insert(txn, under, pos, id, "g");
  if (!g) return NULL;
  if (ens_node_set(g, "class", ens_str(cls))) return NULL;
  if (inkscape && ens_node_set(g, "inkscape:label", ens_str(label))) return NULL;
  if (style && ens_node_set(g, "style", ens_str(style))) return NULL;
  return g;
}

/* One conflict group: the kept element W (in merged, may be absent: its
 * side deleted it) and the other version X (in from), placed where W is,
 * else where X stands in its own document. */
static int s_wrap(ens_doc *merged, ens_txn *txn, s_ctx *cx, const ens_obj *w, const ens_obj *x, int inkscape,
                  const char *kept, const char *other) {
  ens_id parent;
  size_t at;
  if (w) {
    parent = ens_obj_id(ens_obj_parent(w));
    at = ens_obj_index(w);
  } else {
    /* where x's parent is in merged (same ids: merged is theirs) */
    const ens_obj *xp = ens_obj_parent(x);
    const ens_obj *mp = xp ? ens_doc_get(merged, ens_obj_id(xp)) : NULL;
    if (!mp || strcmp(ens_obj_kind(mp), ens_obj_kind(xp)) != 0) return 0;
    parent = ens_obj_id(mp);
    at = ens_obj_index(x) < ens_obj_child_count(mp) ? ens_obj_index(x) : ens_obj_child_count(mp);
  }
  char *pos = NULL;
  ens_id gid = ens_doc_new_id(merged), kid = ens_doc_new_id(merged), oid = ens_doc_new_id(merged);
  if (!gid || !kid || !oid || ens_doc_pos_at(merged, parent, at, &pos)) return -1;
  char label[64], kcls[64], ocls[64];
  ens_node *g = ens_txn_insert(txn, parent, pos, gid, "g");
  ens_free(pos);
  if (!g || ens_node_set(g, "class", ens_str("ensemble-conflict"))) return -1;
  if (inkscape && ens_node_set(g, "inkscape:label", ens_str("merge conflict"))) return -1;
  snprintf(kcls, sizeof kcls, "ensemble-%s", kept);
  snprintf(label, sizeof label, "%s (kept)", kept);
  ens_node *kg = s_group(txn, g, 0, S_FIRST, kid, kcls, label, NULL, inkscape);
  snprintf(ocls, sizeof ocls, "ensemble-%s", other);
  snprintf(label, sizeof label, "%s (hidden)", other);
  ens_node *og = kg ? s_group(txn, g, 0, S_SECOND, oid, ocls, label, "display:none", inkscape) : NULL;
  if (!og) return -1;
  if (w && ens_txn_move(txn, ens_obj_id(w), kid, S_FIRST)) return -1;
  if (x) {
    /* x's ids, prefixed, then the copy */
    for (size_t i = 0; i < cx->from.n; i++) {
      free(cx->from.v[i]);
      free(cx->to.v[i]);
    }
    cx->from.n = cx->to.n = 0;
    if (ens_obj_walk(x, s_map_ids, cx)) return -1;
    ens_id xid = ens_doc_new_id(merged);
    ens_node *xn = xid ? ens_node_add_child(og, S_FIRST, xid, ens_obj_kind(x)) : NULL;
    if (!xn || s_copy(merged, cx, xn, x)) return -1;
  }
  return 1;
}

/* A comment before the root element for a conflict no group can hold. */
static int s_comment(ens_doc *merged, ens_txn *txn, const char *text) {
  const ens_obj *root = ens_doc_root(merged), *re = s_root_element(merged);
  if (!re) return 0;
  char *pos = NULL;
  ens_id id = ens_doc_new_id(merged);
  if (!id || ens_doc_pos_at(merged, ens_obj_id(root), ens_obj_index(re), &pos)) return -1;
  ens_node *n = ens_txn_insert(txn, ens_obj_id(root), pos, id, "#comment");
  ens_free(pos);
  if (!n) return -1;
  /* "--" may not stand in a comment */
  char *t = strdup(text);
  if (!t) return -1;
  for (char *p = t; (p = strstr(p, "--"));) p[1] = '=';
  int rc = ens_node_set(n, "text", ens_str(t));
  free(t);
  return rc ? -1 : 1;
}

int cli_merge_mark_svg(ens_doc *merged, const ens_doc *ours, const ens_doc *theirs0,
                       const ens_merge_conflict *const *c, size_t n, ens_txn **out, cli_merge_marks *marks,
                       char *err, size_t esz) {
  s_ctx cx;
  memset(&cx, 0, sizeof cx);
  const ens_obj **tops = NULL; /* in theirs0: the element to show both versions of */
  int *kept_ours = NULL;
  size_t ntops = 0;
  int rc = -1;
  ens_txn *txn = ens_txn_new("Mark merge conflicts", NULL);
  *out = NULL;
  if (!txn || !(tops = calloc(n + 1, sizeof *tops)) || !(kept_ours = calloc(n + 1, sizeof *kept_ours))) goto oom;
  const ens_obj *re = s_root_element(merged);
  ens_value xv;
  int inkscape = re && ens_obj_get(re, "xmlns:inkscape", &xv) == 0;
  for (size_t i = 0; i < n; i++) {
    const ens_merge_conflict *x = c[i];
    const ens_obj *t0 = x->id ? ens_doc_get(theirs0, x->id) : NULL;
    if (!t0) continue; /* only ours holds it (theirs deleted it): reported, not marked */
    const ens_obj *w = s_wrappable(t0);
    if (!w) {
      char line[1400], vo[300], vt[300];
      cli_merge_value_str(theirs0, 1, x->ours, vo, sizeof vo, 200);
      cli_merge_value_str(theirs0, 1, x->theirs, vt, sizeof vt, 200);
      snprintf(line, sizeof line, " Ensemble merge conflict: %s %s: ours %s, theirs %s; %s kept ", x->path,
               x->key ? x->key : "", vo, vt, x->ours_kept ? "ours" : "theirs");
      int r = s_comment(merged, txn, line);
      if (r < 0) goto oom;
      marks->comments += (size_t)r;
      continue;
    }
    tops[ntops] = w;
    kept_ours[ntops++] = x->ours_kept;
  }
  /* only the outermost of nested ones */
  for (size_t i = 0; i < ntops; i++)
    for (size_t j = 0; j < ntops && tops[i]; j++)
      if (i != j && tops[j] && (s_is_ancestor(tops[j], tops[i]) || (tops[j] == tops[i] && j < i))) tops[i] = NULL;
  if (ntops && ens_obj_walk(ens_doc_root(merged), s_collect_id, &cx.used)) goto oom;
  for (size_t i = 0; i < ntops; i++) {
    if (!tops[i]) continue;
    const ens_obj *t0 = tops[i];
    const ens_obj *w = ens_doc_get(merged, ens_obj_id(t0));
    if (w && strcmp(ens_obj_kind(w), ens_obj_kind(t0)) != 0) w = NULL;
    /* the version not kept: theirs' as read when ours' stands, else ours' */
    const ens_obj *other = t0;
    if (!kept_ours[i]) continue; /* theirs kept: its version is the drawn one, ours' is in ours only */
    int r = s_wrap(merged, txn, &cx, w, other, inkscape, "ours", "theirs");
    if (r < 0) goto oom;
    marks->groups += (size_t)r;
  }
  (void)ours;
  *out = txn;
  txn = NULL;
  rc = 0;
  goto done;
oom:
  snprintf(err, esz, "marking the conflicts: %s", ens_error_last());
done:
  s_strs_free(&cx.used);
  s_strs_free(&cx.from);
  s_strs_free(&cx.to);
  free(tops);
  free(kept_ours);
  ens_txn_free(txn);
  return rc;
}
