/* Three-way merge, first part: the public functions, and the nodes: every
 * object of the three documents that is one object of the merge becomes one
 * node, found by id (a side that shares ids with base), by identity keys
 * top-down like the diff (a side read from a file), and for objects both
 * sides inserted under one parent, by name, then by content at one place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../txn/match.h"
#include "../util/error.h"
#include "../util/hash.h"
#include "merge_int.h"

/* --- id -> node map ---------------------------------------------------------------- */

int ens__idx_put(ens__idx *m, ens_id key, uint32_t val) { return ens__idtab_put(m, key, val); }

uint32_t ens__idx_get(const ens__idx *m, ens_id key) {
  uint64_t v;
  return ens__idtab_find(m, key, &v) ? (uint32_t)v : S_NONE;
}

void ens__idx_free(ens__idx *m) { ens__idtab_free(m); }

/* --- nodes ------------------------------------------------------------------------- */

static int s_by_id(const ens_merge *m, int side) {
  return side == ENS__BASE || (side == ENS__OURS ? m->opts.ours_match : m->opts.theirs_match) == ENS_MERGE_BY_ID;
}

static uint32_t s_new_node(ens_merge *m) {
  if (m->nnodes == m->capnodes) {
    size_t cap = m->capnodes ? m->capnodes * 2 : 256;
    ens__mnode *n = realloc(m->nodes, cap * sizeof *n);
    if (!n) {
      ens__error(ENS_ENOMEM, "out of memory merging");
      return S_NONE;
    }
    m->nodes = n;
    m->capnodes = cap;
  }
  if (m->nnodes >= S_NONE - 1) {
    ens__error(ENS_ELIMIT, "too many objects to merge");
    return S_NONE;
  }
  ens__mnode *n = &m->nodes[m->nnodes];
  memset(n, 0, sizeof *n);
  for (int s = 0; s < 3; s++) n->par[s] = n->grp[s] = S_NONE;
  n->merged = S_NONE;
  return (uint32_t)m->nnodes++;
}

uint32_t ens__merge_node_of(const ens_merge *m, int side, const ens_obj *o) {
  if (!o) return S_NONE;
  if (s_by_id(m, side)) {
    uint32_t i = ens__idx_get(&m->map[ENS__BASE], o->id);
    if (i != S_NONE && m->nodes[i].obj[side] == o) return i;
    if (side == ENS__BASE) return S_NONE;
  }
  return ens__idx_get(&m->map[side], o->id);
}

uint32_t ens__merge_ref_node(const ens_merge *m, int side, ens_id ref) {
  const ens_obj *o = ens__doc_lookup(m->doc[side], ref);
  if (o) return ens__merge_node_of(m, side, o);
  return s_by_id(m, side) ? ens__idx_get(&m->map[ENS__BASE], ref) : S_NONE;
}

static int s_fresh_push(ens_merge *m, int side, const ens_obj *o) {
  if (m->nfresh[side] == m->capfresh[side]) {
    size_t cap = m->capfresh[side] ? m->capfresh[side] * 2 : 64;
    const ens_obj **f = realloc(m->fresh[side], cap * sizeof *f);
    if (!f) return ens__error(ENS_ENOMEM, "out of memory merging");
    m->fresh[side] = f;
    m->capfresh[side] = cap;
  }
  m->fresh[side][m->nfresh[side]++] = o;
  return 0;
}

typedef struct {
  ens_merge *m;
  int side;
  uint32_t *stack; /* node of the last object seen at each depth */
  size_t cap;
} s_walk;

static int s_stack_at(s_walk *w, size_t depth, uint32_t v) {
  if (depth >= w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 64;
    while (cap <= depth) cap *= 2;
    uint32_t *s = realloc(w->stack, cap * sizeof *s);
    if (!s) return ens__error(ENS_ENOMEM, "out of memory merging");
    w->stack = s;
    w->cap = cap;
  }
  w->stack[depth] = v;
  return 0;
}

static int s_add_base(const ens_obj *o, size_t depth, void *user) {
  s_walk *w = user;
  ens_merge *m = w->m;
  uint32_t i = s_new_node(m);
  if (i == S_NONE) return ENS_ENOMEM;
  m->nodes[i].obj[ENS__BASE] = o;
  m->nodes[i].par[ENS__BASE] = depth ? w->stack[depth - 1] : S_NONE;
  int rc = ens__idx_put(&m->map[ENS__BASE], o->id, i);
  return rc ? rc : s_stack_at(w, depth, i);
}

/* A side that shares ids with base: an object is base's object of the same
 * id and kind, or new. */
static int s_add_by_id(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_walk *w = user;
  ens_merge *m = w->m;
  uint32_t i = ens__idx_get(&m->map[ENS__BASE], o->id);
  if (i != S_NONE && strcmp(m->nodes[i].obj[ENS__BASE]->kind, o->kind) == 0 &&
      (o->parent != NULL) == (m->nodes[i].obj[ENS__BASE]->parent != NULL)) {
    m->nodes[i].obj[w->side] = o;
    return 0;
  }
  return s_fresh_push(m, w->side, o);
}

static int s_push_fresh(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_walk *w = user;
  return s_fresh_push(w->m, w->side, o);
}

/* A side read from a file: the diff's top-down matching. */
static int s_add_by_key(const ens_obj *b, const ens_obj *o, void *user) {
  s_walk *w = user;
  ens_merge *m = w->m;
  if (!b) return ens_obj_walk(o, s_push_fresh, w);
  uint32_t i = ens__idx_get(&m->map[ENS__BASE], b->id);
  m->nodes[i].obj[w->side] = o;
  return ens__idx_put(&m->map[w->side], o->id, i);
}

static int s_node_for(ens_merge *m, int side, const ens_obj *o, uint32_t parent, uint32_t *out) {
  uint32_t i = s_new_node(m);
  if (i == S_NONE) return ENS_ENOMEM;
  m->nodes[i].obj[side] = o;
  m->nodes[i].par[side] = parent;
  *out = i;
  return ens__idx_put(&m->map[side], o->id, i);
}

/* 1 when objects o (ours) and t (theirs) hold the same: kind, properties
 * (references by what they name) and children, in order. */
static int s_same_content(const ens_merge *m, const ens_obj *o, const ens_obj *t, int depth) {
  if (strcmp(o->kind, t->kind) != 0 || o->nkids != t->nkids) return 0;
  if (depth > ENS_MAX_DEPTH) return 0;
  size_t no = 0, nt = 0;
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL) continue;
    no++;
    ens_value a = ens__prop_value(p), b;
    if (ens_obj_get(t, ens__prop_key(o, p), &b) != 0 || !ens__merge_value_eq(m, ENS__OURS, &a, ENS__THEIRS, &b))
      return 0;
  }
  for (uint32_t i = 0; i < t->nprops; i++) nt += t->props[i].type != ENS_NIL;
  if (no != nt) return 0;
  for (uint32_t i = 0; i < o->nkids; i++)
    if (!s_same_content(m, o->kids[i], t->kids[i], depth + 1)) return 0;
  return 1;
}

/* A new child not matched by key, with the node of the nearest sibling
 * before it that is one (S_NONE at the start of the list). */
typedef struct {
  uint32_t anchor;
  uint32_t at; /* index among the parent's children */
  const ens_obj *obj;
} s_loose;

static int s_loose_cmp(const void *x, const void *y) {
  const s_loose *a = x, *b = y;
  if (a->anchor != b->anchor) return a->anchor < b->anchor ? -1 : 1;
  return (a->at > b->at) - (a->at < b->at);
}

static size_t s_loose_list(const ens_merge *m, int side, const ens_obj *parent, s_loose *out) {
  size_t n = 0;
  uint32_t anchor = S_NONE;
  for (uint32_t k = 0; k < parent->nkids; k++) {
    uint32_t i = ens__merge_node_of(m, side, parent->kids[k]);
    if (i != S_NONE) anchor = i;
    else out[n++] = (s_loose){anchor, k, parent->kids[k]};
  }
  return n;
}

/* New children both sides inserted at one place with the same content are
 * one insert, taken once, as diff3 takes a change both sides made: under
 * each anchor (the sibling before them that both sides hold), ours' run is
 * matched in order to theirs' run by content. These are children the keys
 * left over (no key, or a place under an object of base). Two sessions'
 * documents (both matched by id) keep both: there each insert is someone's
 * own edit. */
static int s_match_same_inserts(ens_merge *m, uint32_t p) {
  if (s_by_id(m, ENS__OURS) && s_by_id(m, ENS__THEIRS)) return 0;
  const ens_obj *po = m->nodes[p].obj[ENS__OURS], *pt = m->nodes[p].obj[ENS__THEIRS];
  s_loose *lo = malloc(po->nkids * sizeof *lo), *lt = malloc(pt->nkids * sizeof *lt);
  int rc = 0;
  if (!lo || !lt) {
    rc = ens__error(ENS_ENOMEM, "out of memory merging");
    goto done;
  }
  size_t no = s_loose_list(m, ENS__OURS, po, lo), nt = s_loose_list(m, ENS__THEIRS, pt, lt);
  if (!no || !nt) goto done;
  qsort(lt, nt, sizeof *lt, s_loose_cmp);
  for (size_t a = 0; a < no && !rc;) {
    size_t b = a;
    while (b < no && lo[b].anchor == lo[a].anchor) b++; /* ours' run [a, b) */
    size_t j = 0, hi = nt;
    while (j < hi) { /* first of theirs' run with the same anchor */
      size_t mid = j + (hi - j) / 2;
      if (lt[mid].anchor < lo[a].anchor) j = mid + 1;
      else hi = mid;
    }
    for (size_t k = a; k < b && !rc; k++) {
      for (size_t q = j; q < nt && lt[q].anchor == lo[a].anchor; q++) {
        if (!s_same_content(m, lo[k].obj, lt[q].obj, 0)) continue;
        uint32_t i;
        if ((rc = s_node_for(m, ENS__OURS, lo[k].obj, p, &i))) break;
        m->nodes[i].obj[ENS__THEIRS] = lt[q].obj;
        m->nodes[i].par[ENS__THEIRS] = p;
        rc = ens__idx_put(&m->map[ENS__THEIRS], lt[q].obj->id, i);
        j = q + 1; /* in order: the next match comes after this one */
        break;
      }
    }
    a = b;
  }
done:
  free(lo);
  free(lt);
  return rc;
}

/* The new children of both sides under node p, matched by key: each pair
 * becomes one node. Under an object of base, only names match; then equal
 * inserts at one place (s_match_same_inserts). */
static int s_match_new_kids(ens_merge *m, uint32_t p) {
  ens__mnode *pn = &m->nodes[p];
  pn->flags |= ENS__N_BATCHED;
  const ens_obj *po = pn->obj[ENS__OURS], *pt = pn->obj[ENS__THEIRS];
  int names_only = pn->obj[ENS__BASE] != NULL;
  if (!m->opts.identity || !po->nkids || !pt->nkids) return 0;
  const ens_obj **os = malloc(po->nkids * sizeof *os), **ts = malloc(pt->nkids * sizeof *ts);
  const ens_obj **match = malloc(po->nkids * sizeof *match);
  size_t no = 0, nt = 0;
  int rc = 0;
  if (!os || !ts || !match) {
    rc = ens__error(ENS_ENOMEM, "out of memory merging");
    goto done;
  }
  for (uint32_t k = 0; k < po->nkids; k++)
    if (ens__merge_node_of(m, ENS__OURS, po->kids[k]) == S_NONE) os[no++] = po->kids[k];
  for (uint32_t k = 0; k < pt->nkids; k++)
    if (ens__merge_node_of(m, ENS__THEIRS, pt->kids[k]) == S_NONE) ts[nt++] = pt->kids[k];
  if (!no || !nt) goto done;
  rc = ens__match_list(ts, nt, os, no, m->opts.identity, m->opts.identity_user, names_only, match);
  for (size_t k = 0; k < no && !rc; k++) {
    if (!match[k]) continue;
    uint32_t i;
    if ((rc = s_node_for(m, ENS__OURS, os[k], p, &i))) break;
    m->nodes[i].obj[ENS__THEIRS] = match[k];
    m->nodes[i].par[ENS__THEIRS] = p;
    rc = ens__idx_put(&m->map[ENS__THEIRS], match[k]->id, i);
  }
  if (!rc) rc = s_match_same_inserts(m, p);
done:
  free(os);
  free(ts);
  free(match);
  return rc;
}

static int s_build_nodes(ens_merge *m) {
  s_walk w = {m, ENS__BASE, NULL, 0};
  int rc = ens__idtab_reserve(&m->map[ENS__BASE], ens_doc_count(m->doc[ENS__BASE])); /* room for all of base at once */
  if (!rc) rc = ens_obj_walk(m->doc[ENS__BASE]->root, s_add_base, &w);
  m->nbase = m->nnodes;
  for (int side = ENS__OURS; side <= ENS__THEIRS && !rc; side++) {
    w.side = side;
    if (s_by_id(m, side)) {
      rc = ens_obj_walk(m->doc[side]->root, s_add_by_id, &w);
    } else {
      rc = ens__tree_match(m->doc[ENS__BASE]->root, m->doc[side]->root, m->opts.identity, m->opts.identity_user,
                           s_add_by_key, &w);
    }
  }
  free(w.stack);
  if (rc) return rc;
  /* the new objects: ours' first (matching theirs' under each parent that
   * holds new ones on both sides), then theirs' left */
  for (size_t k = 0; k < m->nfresh[ENS__OURS] && !rc; k++) {
    const ens_obj *o = m->fresh[ENS__OURS][k];
    if (ens__merge_node_of(m, ENS__OURS, o) != S_NONE) continue;
    uint32_t p = ens__merge_node_of(m, ENS__OURS, o->parent), i;
    if (p == S_NONE) return ens__error(ENS_EINVAL, "ours: an object without a parent");
    if (m->nodes[p].obj[ENS__THEIRS] && !(m->nodes[p].flags & ENS__N_BATCHED) && (rc = s_match_new_kids(m, p)))
      break;
    if (ens__merge_node_of(m, ENS__OURS, o) == S_NONE) rc = s_node_for(m, ENS__OURS, o, p, &i);
  }
  for (size_t k = 0; k < m->nfresh[ENS__THEIRS] && !rc; k++) {
    const ens_obj *o = m->fresh[ENS__THEIRS][k];
    if (ens__merge_node_of(m, ENS__THEIRS, o) != S_NONE) continue;
    uint32_t p = ens__merge_node_of(m, ENS__THEIRS, o->parent), i;
    if (p == S_NONE) return ens__error(ENS_EINVAL, "theirs: an object without a parent");
    rc = s_node_for(m, ENS__THEIRS, o, p, &i);
  }
  if (rc) return rc;
  /* parents on each side of the objects base has */
  for (size_t i = 0; i < m->nbase; i++) {
    ens__mnode *n = &m->nodes[i];
    for (int side = ENS__OURS; side <= ENS__THEIRS; side++) {
      const ens_obj *o = n->obj[side];
      if (!o || !o->parent) continue;
      /* matched by key: under the match of its base parent, always */
      n->par[side] = s_by_id(m, side) ? ens__merge_node_of(m, side, o->parent) : n->par[ENS__BASE];
    }
  }
  return 0;
}

/* --- values -------------------------------------------------------------------------- */

int ens__merge_value_eq(const ens_merge *m, int sa, const ens_value *a, int sb, const ens_value *b) {
  if (a->type != ENS_REF || b->type != ENS_REF) return ens_value_equal(a, b);
  if (a->u.ref == b->u.ref && s_by_id(m, sa) && s_by_id(m, sb)) return 1;
  uint32_t na = ens__merge_ref_node(m, sa, a->u.ref), nb = ens__merge_ref_node(m, sb, b->u.ref);
  if (na != S_NONE || nb != S_NONE) return na == nb;
  /* both dangle: the same id where ids are shared, alike otherwise (as the
   * diff has it) */
  return a->u.ref == b->u.ref || !s_by_id(m, sa) || !s_by_id(m, sb);
}

ens_id ens__merge_tid(ens_merge *m, uint32_t i) {
  ens__mnode *n = &m->nodes[i];
  if (n->obj[ENS__THEIRS]) return n->obj[ENS__THEIRS]->id;
  if (n->tid) return n->tid;
  /* gone from theirs (or never there): in theirs' lineage it had base's
   * id; else an id theirs never used, so that it dangles there too */
  if (n->obj[ENS__BASE] && s_by_id(m, ENS__THEIRS)) return n->tid = n->obj[ENS__BASE]->id;
  return n->tid = ens_doc_new_id(m->theirs);
}

int ens__merge_value_out(ens_merge *m, int side, ens_value v, ens_value *out) {
  *out = v;
  if (v.type != ENS_REF) return 0;
  uint32_t i = ens__merge_ref_node(m, side, v.u.ref);
  if (i != S_NONE) {
    out->u.ref = ens__merge_tid(m, i);
  } else if (ens__doc_lookup(m->theirs, v.u.ref) || ens__idx_get(&m->dangling, v.u.ref) != S_NONE) {
    /* dangling on its side but naming a live object of theirs: an id theirs
     * never used instead, the same for every such reference */
    uint32_t k = ens__idx_get(&m->dangling, v.u.ref);
    if (k == S_NONE) {
      if (m->ndids == m->capdids) {
        size_t cap = m->capdids ? m->capdids * 2 : 8;
        ens_id *d = realloc(m->dids, cap * sizeof *d);
        if (!d) return ens__error(ENS_ENOMEM, "out of memory merging");
        m->dids = d;
        m->capdids = cap;
      }
      k = (uint32_t)m->ndids;
      m->dids[m->ndids++] = ens_doc_new_id(m->theirs);
      int rc = ens__idx_put(&m->dangling, v.u.ref, k);
      if (rc) return rc;
    }
    out->u.ref = m->dids[k];
  }
  if (!out->u.ref) return ens__error(ENS_ELIMIT, "theirs has no ids left");
  return 0;
}

static int s_visible(const ens_obj *o, const ens__prop *p, int kept) {
  if (p->type == ENS_NIL) return 0;
  const char *key = ens__prop_key(o, p);
  return !ens__key_is_local(key) && (kept || !ens__key_is_kept_text(key));
}

int ens__merge_props_differ(const ens_merge *m, uint32_t i, int sa, int sb, int kept) {
  const ens_obj *a = m->nodes[i].obj[sa], *b = m->nodes[i].obj[sb];
  size_t na = 0, nb = 0;
  for (uint32_t k = 0; k < a->nprops; k++) na += s_visible(a, &a->props[k], kept);
  for (uint32_t k = 0; k < b->nprops; k++) nb += s_visible(b, &b->props[k], kept);
  if (na != nb) return 1;
  for (uint32_t k = 0; k < a->nprops; k++) {
    const ens__prop *p = &a->props[k];
    if (!s_visible(a, p, kept)) continue;
    const char *key = ens__prop_key(a, p);
    ens_value va = ens__prop_value(p), vb;
    /* the same reader or replica keeps keys in the same order */
    if (k < b->nprops && b->props[k].type != ENS_NIL && strcmp(ens__prop_key(b, &b->props[k]), key) == 0) {
      vb = ens__prop_value(&b->props[k]);
    } else if (ens_obj_get(b, key, &vb) != 0) {
      return 1;
    }
    if (!ens__merge_value_eq(m, sa, &va, sb, &vb)) return 1;
  }
  return 0;
}

/* --- conflicts ------------------------------------------------------------------------ */

static char *s_keep(ens_merge *m, char *s) {
  if (!s) return NULL;
  if (m->nstrings == m->capstrings) {
    size_t cap = m->capstrings ? m->capstrings * 2 : 16;
    char **v = realloc(m->strings, cap * sizeof *v);
    if (!v) {
      free(s);
      return NULL;
    }
    m->strings = v;
    m->capstrings = cap;
  }
  return m->strings[m->nstrings++] = s;
}

static int s_path_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n) {
  if (*len + n + 1 > *cap) {
    size_t c = *cap ? *cap * 2 : 128;
    while (c < *len + n + 1) c *= 2;
    char *b = realloc(*buf, c);
    if (!b) return ENS_ENOMEM;
    *buf = b;
    *cap = c;
  }
  memcpy(*buf + *len, s, n);
  *len += n;
  (*buf)[*len] = '\0';
  return 0;
}

/* "glyph a/layer 1/contour 2/point 5": each step the kind and the identity
 * key (a place as a number), from the side that holds the object. */
static char *s_path(const ens_merge *m, uint32_t i) {
  const ens__mnode *n = &m->nodes[i];
  const ens_obj *o = n->obj[ENS__THEIRS] ? n->obj[ENS__THEIRS] : n->obj[ENS__OURS] ? n->obj[ENS__OURS] : n->obj[ENS__BASE];
  const ens_obj *chain[ENS_MAX_DEPTH + 1];
  size_t depth = 0;
  for (; o && o->parent && depth < ENS_MAX_DEPTH; o = o->parent) chain[depth++] = o;
  char *buf = NULL;
  size_t len = 0, cap = 0;
  if (s_path_append(&buf, &len, &cap, "", 0)) return NULL;
  while (depth--) {
    const ens_obj *x = chain[depth];
    char key[ENS__KEY_MAX], step[ENS__KEY_MAX + 300];
    size_t kl = strlen(x->kind);
    int r = m->opts.identity ? m->opts.identity(x, key, sizeof key, m->opts.identity_user) : 0;
    key[sizeof key - 1] = '\0';
    if (r <= 0) {
      snprintf(step, sizeof step, "%.255s[%zu]", x->kind, ens_obj_index(x));
    } else if (strncmp(key, x->kind, kl) == 0 && (key[kl] == ' ' || key[kl] == '[')) {
      snprintf(step, sizeof step, "%s", key);
    } else if (key[0] == '#' && key[1] && strspn(key + 1, "0123456789") == strlen(key + 1)) {
      snprintf(step, sizeof step, "%.255s %s", x->kind, key + 1);
    } else {
      snprintf(step, sizeof step, "%.255s %s", x->kind, key);
    }
    if ((len && s_path_append(&buf, &len, &cap, "/", 1)) || s_path_append(&buf, &len, &cap, step, strlen(step))) {
      free(buf);
      return NULL;
    }
  }
  return buf;
}

static int s_keep_value(ens_merge *m, int side, const ens_value *in, ens_value *out) {
  *out = ens_nil();
  if (!in) return 0;
  int rc = ens__merge_value_out(m, side, *in, out);
  if (rc) return rc;
  if (out->type == ENS_STR || out->type == ENS_BYTES) {
    char *c = malloc(out->u.s.len + 1);
    if (!c || !s_keep(m, c)) return ens__error(ENS_ENOMEM, "out of memory merging");
    memcpy(c, out->u.s.ptr, out->u.s.len);
    c[out->u.s.len] = '\0';
    out->u.s.ptr = c;
  }
  return 0;
}

int ens__merge_conflict(ens_merge *m, ens_conflict_kind kind, uint32_t node, const char *key, const ens_value *base,
                        const ens_value *ours, const ens_value *theirs, int ours_kept) {
  if (m->nconflicts == m->capconflicts) {
    size_t cap = m->capconflicts ? m->capconflicts * 2 : 8;
    ens_merge_conflict *c = realloc(m->conflicts, cap * sizeof *c);
    if (!c) return ens__error(ENS_ENOMEM, "out of memory merging");
    m->conflicts = c;
    m->capconflicts = cap;
  }
  ens_merge_conflict c;
  memset(&c, 0, sizeof c);
  c.kind = kind;
  const ens__mnode *n = &m->nodes[node];
  c.id = n->obj[ENS__THEIRS]               ? n->obj[ENS__THEIRS]->id
         : n->obj[ENS__BASE] && s_by_id(m, ENS__THEIRS) ? n->obj[ENS__BASE]->id
                                                        : ENS_ID_NONE;
  if (!(c.path = s_keep(m, s_path(m, node)))) return ens__error(ENS_ENOMEM, "out of memory merging");
  if (key && !(c.key = s_keep(m, strdup(key)))) return ens__error(ENS_ENOMEM, "out of memory merging");
  int rc = s_keep_value(m, ENS__BASE, base, &c.base);
  if (!rc) rc = s_keep_value(m, ENS__OURS, ours, &c.ours);
  if (!rc) rc = s_keep_value(m, ENS__THEIRS, theirs, &c.theirs);
  if (rc) return rc;
  c.ours_kept = ours_kept ? 1 : 0;
  m->conflicts[m->nconflicts++] = c;
  return 0;
}

/* --- the public functions ------------------------------------------------------------ */

int ens_merge3(const ens_doc *base, const ens_doc *ours, ens_doc *theirs, const ens_merge_opts *opts, ens_merge **out) {
  if (out) *out = NULL;
  if (!base || !ours || !theirs || !opts || !out) return ens__error(ENS_EINVAL, "merge needs three documents and options");
  if ((opts->ours_match != ENS_MERGE_BY_ID && opts->ours_match != ENS_MERGE_BY_KEY) ||
      (opts->theirs_match != ENS_MERGE_BY_ID && opts->theirs_match != ENS_MERGE_BY_KEY) ||
      (opts->prefer != ENS_MERGE_PREFER_OURS && opts->prefer != ENS_MERGE_PREFER_THEIRS))
    return ens__error(ENS_EINVAL, "merge options out of range");
  if (!opts->identity && (opts->ours_match == ENS_MERGE_BY_KEY || opts->theirs_match == ENS_MERGE_BY_KEY))
    return ens__error(ENS_EINVAL, "a side matched by key needs an identity function");
  if (strcmp(base->kind, ours->kind) != 0 || strcmp(base->kind, theirs->kind) != 0)
    return ens__error(ENS_EKIND, "cannot merge documents of kinds '%s', '%s' and '%s'", base->kind, ours->kind,
                      theirs->kind);
  if ((const ens_doc *)theirs == base || (const ens_doc *)theirs == ours)
    return ens__error(ENS_EINVAL, "theirs must be a document of its own");
  ens_merge *m = calloc(1, sizeof *m);
  if (!m) return ens__error(ENS_ENOMEM, "out of memory merging");
  m->doc[ENS__BASE] = base;
  m->doc[ENS__OURS] = ours;
  m->doc[ENS__THEIRS] = theirs;
  m->theirs = theirs;
  m->opts = *opts;
  m->txn = ens_txn_new("Merge", NULL);
  int rc = m->txn ? 0 : ens__error(ENS_ENOMEM, "out of memory merging");
  if (!rc) rc = s_build_nodes(m);
  if (!rc) rc = ens__merge_tree(m);
  if (!rc) rc = ens__merge_emit(m);
  /* what only the work needed */
  for (int s = 0; s < 3; s++) {
    ens__idx_free(&m->map[s]);
    free(m->fresh[s]);
    m->fresh[s] = NULL;
  }
  ens__idx_free(&m->dangling);
  free(m->dids);
  m->dids = NULL;
  ens__merge_refs_free(m);
  free(m->nodes);
  m->nodes = NULL;
  free(m->scratch);
  m->scratch = NULL;
  if (rc) {
    ens_merge_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

const ens_txn *ens_merge_txn(const ens_merge *m) { return m ? m->txn : NULL; }

ens_txn *ens_merge_take_txn(ens_merge *m) {
  if (!m) return NULL;
  ens_txn *t = m->txn;
  m->txn = NULL;
  return t;
}

size_t ens_merge_conflict_count(const ens_merge *m) { return m ? m->nconflicts : 0; }

const ens_merge_conflict *ens_merge_conflict_at(const ens_merge *m, size_t i) {
  return m && i < m->nconflicts ? &m->conflicts[i] : NULL;
}

void ens_merge_free(ens_merge *m) {
  if (!m) return;
  for (int s = 0; s < 3; s++) {
    ens__idx_free(&m->map[s]);
    free(m->fresh[s]);
  }
  ens__idx_free(&m->dangling);
  free(m->dids);
  ens__merge_refs_free(m);
  free(m->nodes);
  free(m->scratch);
  ens_txn_free(m->txn);
  for (size_t i = 0; i < m->nstrings; i++) free(m->strings[i]);
  free(m->strings);
  free(m->conflicts);
  free(m);
}
