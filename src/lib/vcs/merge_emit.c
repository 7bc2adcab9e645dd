/* Three-way merge, last part: the transaction, top-down over the merged
 * tree. For each object theirs holds: ours' property changes (three ways),
 * then its children in merged order (what is already in order stays; the
 * rest moves or is inserted, a new subtree in one operation); deletes come
 * last, once whatever survives has been moved out of what goes. */
#include <stdlib.h>
#include <string.h>

#include "../txn/place.h"
#include "../util/error.h"
#include "merge_int.h"

static int s_set(ens_merge *m, const ens_obj *t, const char *key, const ens_value *vo) {
  ens_value v;
  int rc = ens__merge_value_out(m, ENS__OURS, *vo, &v);
  return rc ? rc : ens_txn_set(m->txn, t->id, key, v);
}

/* A property whose merged value would name what the merge deletes: it
 * keeps side use's value, or with ENS__BASE goes (merge_refs.c); a
 * conflict if both changed it. */
static int s_kept(ens_merge *m, uint32_t i, const char *key, int use) {
  const ens_obj *b = m->nodes[i].obj[ENS__BASE], *o = m->nodes[i].obj[ENS__OURS], *t = m->nodes[i].obj[ENS__THEIRS];
  ens_value vb = ens_nil(), vo, vt;
  if (b) ens_obj_get(b, key, &vb);
  ens_obj_get(o, key, &vo);
  ens_obj_get(t, key, &vt);
  int rc = 0;
  if (!ens__key_is_kept_text(key) && !ens__merge_value_eq(m, ENS__BASE, &vb, ENS__OURS, &vo) &&
      !ens__merge_value_eq(m, ENS__BASE, &vb, ENS__THEIRS, &vt) && !ens__merge_value_eq(m, ENS__OURS, &vo, ENS__THEIRS, &vt))
    rc = ens__merge_conflict(m, b ? ENS_CONFLICT_SET : ENS_CONFLICT_INSERT, i, key, &vb, &vo, &vt, use == ENS__OURS);
  if (rc || use == ENS__THEIRS) return rc;
  if (use == ENS__BASE) return vt.type == ENS_NIL ? 0 : ens_txn_set(m->txn, t->id, key, ens_nil());
  if (ens__merge_value_eq(m, ENS__OURS, &vo, ENS__THEIRS, &vt)) return 0;
  return vo.type == ENS_NIL ? ens_txn_set(m->txn, t->id, key, vo) : s_set(m, t, key, &vo);
}

/* Ours' property changes on node i, which theirs holds. */
static int s_props(ens_merge *m, uint32_t i) {
  const ens__mnode *n = &m->nodes[i];
  const ens_obj *b = n->obj[ENS__BASE], *o = n->obj[ENS__OURS], *t = n->obj[ENS__THEIRS];
  int prefer_ours = m->opts.prefer == ENS_MERGE_PREFER_OURS, rc = 0;
  int kept = (n->flags & ENS__N_REFKEPT) != 0;
  if (!o || !t) return 0;
  /* the properties kept whole: each once, in the order of the side that has them */
  for (int s = ENS__OURS; s <= ENS__THEIRS && kept && !rc; s++) {
    const ens_obj *x = n->obj[s];
    for (uint32_t k = 0; k < x->nprops && !rc; k++) {
      const ens__prop *p = &x->props[k];
      const char *key = ens__prop_key(x, p);
      int use = p->type == ENS_NIL ? -1 : ens__merge_kept_side(m, i, key);
      ens_value ignored;
      if (use < 0 || (s == ENS__THEIRS && ens_obj_get(o, key, &ignored) == 0)) continue;
      rc = s_kept(m, i, key, use);
    }
  }
  if (rc || (b && !kept && !ens__merge_props_differ(m, i, ENS__BASE, ENS__OURS, 1))) return rc;
  for (uint32_t k = 0; k < o->nprops && !rc; k++) {
    const ens__prop *p = &o->props[k];
    const char *key = ens__prop_key(o, p);
    if (p->type == ENS_NIL || ens__key_is_local(key)) continue;
    if (kept && ens__merge_kept_side(m, i, key) >= 0) continue;
    ens_value vo = ens__prop_value(p), vb = ens_nil(), vt;
    if (b) {
      ens_obj_get(b, key, &vb);
      if (ens__merge_value_eq(m, ENS__BASE, &vb, ENS__OURS, &vo)) continue;
    }
    ens_obj_get(t, key, &vt);
    if (ens__merge_value_eq(m, ENS__BASE, &vb, ENS__THEIRS, &vt)) {
      rc = s_set(m, t, key, &vo);
    } else if (!ens__merge_value_eq(m, ENS__OURS, &vo, ENS__THEIRS, &vt)) {
      if (!ens__key_is_kept_text(key))
        rc = ens__merge_conflict(m, b ? ENS_CONFLICT_SET : ENS_CONFLICT_INSERT, i, key, &vb, &vo, &vt, prefer_ours);
      if (!rc && prefer_ours) rc = s_set(m, t, key, &vo);
    }
  }
  /* what ours removed */
  for (uint32_t k = 0; b && k < b->nprops && !rc; k++) {
    const ens__prop *p = &b->props[k];
    const char *key = ens__prop_key(b, p);
    if (p->type == ENS_NIL || ens__key_is_local(key)) continue;
    if (kept && ens__merge_kept_side(m, i, key) >= 0) continue;
    ens_value vo, vb = ens__prop_value(p), vt;
    if (ens_obj_get(o, key, &vo) == 0) continue;
    ens_obj_get(t, key, &vt);
    if (ens__merge_value_eq(m, ENS__BASE, &vb, ENS__THEIRS, &vt)) {
      rc = ens_txn_set(m->txn, t->id, key, vo);
    } else if (vt.type != ENS_NIL) {
      if (!ens__key_is_kept_text(key))
        rc = ens__merge_conflict(m, ENS_CONFLICT_SET, i, key, &vb, &vo, &vt, prefer_ours);
      if (!rc && prefer_ours) rc = ens_txn_set(m->txn, t->id, key, vo);
    }
  }
  return rc;
}

/* The children of side s's object of node i that the merged document puts
 * under i, in that side's order. */
static size_t s_kids(const ens_merge *m, uint32_t i, int s, uint32_t *out) {
  const ens_obj *o = m->nodes[i].obj[s];
  size_t n = 0;
  if (!o) return 0;
  for (uint32_t k = 0; k < o->nkids; k++) {
    uint32_t x = ens__merge_node_of(m, s, o->kids[k]);
    if (x != S_NONE && (m->nodes[x].flags & ENS__N_ALIVE) && m->nodes[x].merged == i) out[n++] = x;
  }
  return n;
}

typedef struct {
  uint32_t *list;
  size_t n;
} s_list_t;

/* The merged children of node i, in order; conflicts of order reported. */
static int s_list(ens_merge *m, uint32_t i, s_list_t *out) {
  const ens__mnode *n = &m->nodes[i];
  size_t cb = n->obj[ENS__BASE] ? n->obj[ENS__BASE]->nkids : 0;
  size_t co = n->obj[ENS__OURS] ? n->obj[ENS__OURS]->nkids : 0;
  size_t ct = n->obj[ENS__THEIRS] ? n->obj[ENS__THEIRS]->nkids : 0;
  out->list = NULL;
  out->n = 0;
  if (!co && !ct) return 0;
  uint32_t *seq = malloc((cb + 2 * (co + ct) + 1) * sizeof *seq);
  uint8_t *src = malloc(co + ct + 1);
  if (!seq || !src) {
    free(seq);
    free(src);
    return ens__error(ENS_ENOMEM, "out of memory merging");
  }
  uint32_t *sb = seq, *so = sb + cb, *st = so + co, *list = st + ct;
  size_t nb = s_kids(m, i, ENS__BASE, sb), no = s_kids(m, i, ENS__OURS, so), nt = s_kids(m, i, ENS__THEIRS, st);
  size_t nl = 0;
  int rc = 0, prefer_ours = m->opts.prefer == ENS_MERGE_PREFER_OURS;
  if (!n->obj[ENS__OURS] || (n->obj[ENS__BASE] && nb == no && !memcmp(sb, so, nb * sizeof *sb))) {
    memcpy(list, st, nt * sizeof *list);
    nl = nt;
  } else if (!n->obj[ENS__THEIRS] || (n->obj[ENS__BASE] && nb == nt && !memcmp(sb, st, nb * sizeof *sb))) {
    memcpy(list, so, no * sizeof *list);
    nl = no;
  } else {
    int conflict = 0;
    rc = ens__merge_order(n->obj[ENS__BASE] ? sb : NULL, nb, so, no, st, nt, prefer_ours, m->scratch, list, src, &nl,
                          &conflict);
    if (!rc && conflict) rc = ens__merge_conflict(m, ENS_CONFLICT_MOVE, i, NULL, NULL, NULL, NULL, prefer_ours);
    /* an object both moved to two places; one both inserted is placed where
     * the preferred side put it, part of its insert */
    for (size_t k = 0; k < nl && !rc; k++)
      if ((src[k] & 4) && m->nodes[list[k]].obj[ENS__BASE])
        rc = ens__merge_conflict(m, ENS_CONFLICT_MOVE, list[k], NULL, NULL, NULL, NULL, (src[k] & 3) == 1);
  }
  /* what the merge puts here but neither stretch kept (a conflict went the
   * other way): after its neighbour on its own side */
  uint32_t *pos = m->scratch;
  for (size_t k = 0; k < nl; k++) pos[list[k]] = (uint32_t)k;
  for (int s = 0; s < 2 && !rc; s++) {
    const uint32_t *q = s ? st : so;
    size_t nq = s ? nt : no;
    for (size_t j = 0; j < nq; j++) {
      if (pos[q[j]] != S_NONE) continue;
      size_t at = 0;
      for (size_t p = j; p-- > 0;)
        if (pos[q[p]] != S_NONE) {
          at = pos[q[p]] + 1;
          break;
        }
      memmove(list + at + 1, list + at, (nl - at) * sizeof *list);
      list[at] = q[j];
      nl++;
      for (size_t k = at; k < nl; k++) pos[list[k]] = (uint32_t)k;
    }
  }
  for (size_t k = 0; k < nl; k++) pos[list[k]] = S_NONE;
  free(src);
  if (rc) {
    free(seq);
    return rc;
  }
  memmove(seq, list, nl * sizeof *seq);
  out->list = seq;
  out->n = nl;
  return 0;
}

/* A new object of ours and the new objects the merge puts under it, as one
 * insert (under parent_node when given, else under theirs' parent). */
static int s_insert(ens_merge *m, uint32_t x, ens_id parent, ens_node *parent_node, const char *pos, int depth) {
  const ens_obj *o = m->nodes[x].obj[ENS__OURS];
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "the merged document would nest deeper than %d", ENS_MAX_DEPTH);
  ens_node *node = parent_node ? ens_node_add_child(parent_node, pos, m->nodes[x].tid, o->kind)
                               : ens_txn_insert(m->txn, parent, pos, m->nodes[x].tid, o->kind);
  if (!node) return ens__error(ENS_ENOMEM, "out of memory merging");
  int rc = 0;
  for (uint32_t k = 0; k < o->nprops && !rc; k++) {
    const ens__prop *p = &o->props[k];
    const char *key = ens__prop_key(o, p);
    if (p->type == ENS_NIL || ens__key_is_local(key)) continue;
    ens_value v;
    rc = ens__merge_value_out(m, ENS__OURS, ens__prop_value(p), &v);
    if (!rc) rc = ens_node_set(node, key, v);
  }
  s_list_t l = {NULL, 0};
  if (!rc) rc = s_list(m, x, &l);
  for (size_t k = 0; k < l.n && !rc; k++) {
    if (m->nodes[l.list[k]].obj[ENS__THEIRS]) continue; /* moved in afterwards */
    char *cpos = ens_pos_seq(k, l.n);
    rc = cpos ? s_insert(m, l.list[k], 0, node, cpos, depth + 1) : ens__error(ENS_ENOMEM, "out of memory merging");
    free(cpos);
  }
  free(l.list);
  return rc;
}

typedef struct {
  ens_merge *m;
  const uint32_t *list;
  const ens_obj *t;
  int depth;
} s_place_ctx;

static int s_place(size_t k, const char *pos, void *user) {
  s_place_ctx *c = user;
  const ens_obj *x = c->m->nodes[c->list[k]].obj[ENS__THEIRS];
  if (x) return ens_txn_move(c->m->txn, x->id, c->t->id, pos);
  return s_insert(c->m, c->list[k], c->t->id, NULL, pos, c->depth + 1);
}

static int s_emit(ens_merge *m, uint32_t i, int depth) {
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "the merged document would nest deeper than %d", ENS_MAX_DEPTH);
  int rc = s_props(m, i);
  s_list_t l = {NULL, 0};
  if (!rc) rc = s_list(m, i, &l);
  if (rc) return rc;
  const ens_obj *t = m->nodes[i].obj[ENS__THEIRS];
  if (t) {
    int same = l.n == t->nkids;
    for (size_t k = 0; k < l.n && same; k++) same = m->nodes[l.list[k]].obj[ENS__THEIRS] == t->kids[k];
    if (!same) {
      const ens_obj **have = malloc((l.n + 1) * sizeof *have);
      if (!have) {
        free(l.list);
        return ens__error(ENS_ENOMEM, "out of memory merging");
      }
      for (size_t k = 0; k < l.n; k++) {
        const ens_obj *x = m->nodes[l.list[k]].obj[ENS__THEIRS];
        have[k] = x && x->parent == t ? x : NULL;
      }
      s_place_ctx c = {m, l.list, t, depth};
      rc = ens__place_children(have, l.n, s_place, &c);
      free(have);
    }
  } else {
    /* a new object, inserted with its new children: the others move in */
    for (size_t k = 0; k < l.n && !rc; k++) {
      const ens_obj *x = m->nodes[l.list[k]].obj[ENS__THEIRS];
      if (!x) continue;
      char *pos = ens_pos_seq(k, l.n);
      rc = pos ? ens_txn_move(m->txn, x->id, m->nodes[i].tid, pos) : ens__error(ENS_ENOMEM, "out of memory merging");
      free(pos);
    }
  }
  for (size_t k = 0; k < l.n && !rc; k++) rc = s_emit(m, l.list[k], depth + 1);
  free(l.list);
  return rc;
}

int ens__merge_emit(ens_merge *m) {
  int rc = 0;
  for (size_t i = 0; i < m->nnodes; i++) m->scratch[i] = S_NONE;
  /* ids for ours' new objects, in ours' order */
  for (size_t k = 0; k < m->nfresh[ENS__OURS]; k++) {
    uint32_t i = ens__merge_node_of(m, ENS__OURS, m->fresh[ENS__OURS][k]);
    if (i == S_NONE || m->nodes[i].obj[ENS__THEIRS] || !(m->nodes[i].flags & ENS__N_ALIVE) || m->nodes[i].tid) continue;
    if (!(m->nodes[i].tid = ens_doc_new_id(m->theirs))) return ens__error(ENS_ELIMIT, "theirs has no ids left");
  }
  rc = s_emit(m, 0, 0);
  /* what the merged document no longer holds, topmost first */
  for (uint32_t i = 0; i < m->nnodes && !rc; i++) {
    const ens__mnode *n = &m->nodes[i];
    if ((n->flags & ENS__N_ALIVE) || !n->obj[ENS__THEIRS] || n->par[ENS__THEIRS] == S_NONE) continue;
    if (m->nodes[n->par[ENS__THEIRS]].flags & ENS__N_ALIVE) rc = ens_txn_delete(m->txn, n->obj[ENS__THEIRS]->id);
  }
  return rc;
}
