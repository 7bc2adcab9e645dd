/* Document diff: match B's objects to A's top-down (same kind, same
 * identity key, under matched parents, duplicates in order), then emit
 * per matched pair: property sets, deletes of A's unmatched children, moves
 * for the children whose order changed (all but a longest run already in
 * order) and inserts of B's unmatched subtrees under fresh ids of A. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/hash.h"
#include "ensemble/diff.h"
#include "ops.h"

#define KEY_MAX 256

/* B id -> A id */
typedef struct {
  ens_id *from, *to;
  size_t cap, count;
} s_map;

static int s_map_put(s_map *m, ens_id from, ens_id to) {
  if ((m->count + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 256;
    ens_id *f = calloc(cap, sizeof *f), *t = malloc(cap * sizeof *t);
    if (!f || !t) {
      free(f);
      free(t);
      return ens__error(ENS_ENOMEM, "out of memory diffing");
    }
    for (size_t j = 0; j < m->cap; j++) {
      if (!m->from[j]) continue;
      size_t i = (size_t)ens__mix64(m->from[j]) & (cap - 1);
      while (f[i]) i = (i + 1) & (cap - 1);
      f[i] = m->from[j];
      t[i] = m->to[j];
    }
    free(m->from);
    free(m->to);
    m->from = f;
    m->to = t;
    m->cap = cap;
  }
  size_t i = (size_t)ens__mix64(from) & (m->cap - 1);
  while (m->from[i] && m->from[i] != from) i = (i + 1) & (m->cap - 1);
  if (!m->from[i]) m->count++;
  m->from[i] = from;
  m->to[i] = to;
  return 0;
}

static ens_id s_map_get(const s_map *m, ens_id from) {
  if (!m->cap) return ENS_ID_NONE;
  size_t i = (size_t)ens__mix64(from) & (m->cap - 1);
  while (m->from[i]) {
    if (m->from[i] == from) return m->to[i];
    i = (i + 1) & (m->cap - 1);
  }
  return ENS_ID_NONE;
}

typedef struct {
  ens_doc *a;
  const ens_doc *b;
  ens_identity_fn identity;
  void *user;
  s_map b2a;     /* every B object -> its A object or fresh id */
  s_map matched; /* A ids that matched something (value unused) */
  ens_txn *txn;
} s_diff;

/* --- phase 1: matching -------------------------------------------------------- */

typedef struct {
  char *key;
  const char *kind;
  const ens_obj *obj;
  int used;
} s_keyed;

static int s_keyed_cmp(const void *x, const void *y) {
  const s_keyed *p = x, *q = y;
  int c = strcmp(p->key, q->key);
  if (c) return c;
  c = strcmp(p->kind, q->kind);
  if (c) return c;
  return (p->obj->id > q->obj->id) - (p->obj->id < q->obj->id); /* never equal */
}

static int s_assign_fresh(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_diff *d = user;
  return s_map_put(&d->b2a, o->id, ens_doc_new_id(d->a));
}

static char *s_key_of(s_diff *d, const ens_obj *o) {
  char buf[KEY_MAX];
  if (!d->identity(o, buf, sizeof buf, d->user)) return NULL;
  buf[KEY_MAX - 1] = '\0';
  return strdup(buf);
}

static int s_match(s_diff *d, const ens_obj *pa, const ens_obj *pb) {
  int rc = s_map_put(&d->b2a, pb->id, pa->id);
  if (!rc) rc = s_map_put(&d->matched, pa->id, 1);
  if (rc) return rc;
  if (!pb->nkids) return 0;
  s_keyed *as = calloc(pa->nkids ? pa->nkids : 1, sizeof *as);
  if (!as) return ens__error(ENS_ENOMEM, "out of memory diffing");
  size_t na = 0;
  for (uint32_t i = 0; i < pa->nkids; i++) {
    char *k = s_key_of(d, pa->kids[i]);
    if (!k) continue;
    as[na++] = (s_keyed){k, pa->kids[i]->kind, pa->kids[i], 0};
  }
  qsort(as, na, sizeof *as, s_keyed_cmp);
  for (uint32_t i = 0; i < pb->nkids && !rc; i++) {
    const ens_obj *kb = pb->kids[i];
    char *k = s_key_of(d, kb);
    const ens_obj *ka = NULL;
    if (k) {
      /* first unused A child with this key and kind, in A's order by id */
      size_t lo = 0, hi = na;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(as[mid].key, k);
        if (!c) c = strcmp(as[mid].kind, kb->kind);
        if (c < 0) lo = mid + 1;
        else hi = mid;
      }
      for (; lo < na && !strcmp(as[lo].key, k) && !strcmp(as[lo].kind, kb->kind); lo++)
        if (!as[lo].used) {
          as[lo].used = 1;
          ka = as[lo].obj;
          break;
        }
      free(k);
    }
    rc = ka ? s_match(d, ka, kb) : ens_obj_walk(kb, s_assign_fresh, d);
  }
  for (size_t i = 0; i < na; i++) free(as[i].key);
  free(as);
  return rc;
}

/* --- phase 2: emitting ---------------------------------------------------------- */

static ens_value s_mapped(s_diff *d, ens_value v) {
  if (v.type != ENS_REF) return v;
  ens_id to = s_map_get(&d->b2a, v.u.ref);
  if (!to && ens__doc_lookup(d->a, v.u.ref)) {
    /* dangling in B but naming a live object of A: it must dangle in A too,
     * so it gets an id A never used (the same one for every such reference) */
    to = ens_doc_new_id(d->a);
    if (s_map_put(&d->b2a, v.u.ref, to) != 0) to = ENS_ID_NONE;
  }
  if (to) v.u.ref = to;
  return v;
}

static int s_emit_props(s_diff *d, const ens_obj *pa, const ens_obj *pb) {
  int rc = 0;
  for (uint32_t i = 0; i < pb->nprops && !rc; i++) {
    const ens__prop *p = &pb->props[i];
    if (p->type == ENS_NIL) continue;
    const char *key = ens__prop_key(pb, p);
    if (ens__key_is_local(key)) continue;
    ens_value want = ens__prop_value(p), have;
    int has = ens_obj_get(pa, key, &have) == 0;
    /* references that dangle on both sides are equal, whatever id they name */
    if (has && want.type == ENS_REF && have.type == ENS_REF && !ens__doc_lookup(d->b, want.u.ref) &&
        !ens__doc_lookup(d->a, have.u.ref))
      continue;
    want = s_mapped(d, want);
    if (has && ens_value_equal(&have, &want)) continue;
    rc = ens_txn_set(d->txn, pa->id, key, want);
  }
  for (uint32_t i = 0; i < pa->nprops && !rc; i++) {
    const ens__prop *p = &pa->props[i];
    ens_value ignored;
    if (p->type == ENS_NIL) continue;
    const char *key = ens__prop_key(pa, p);
    if (ens__key_is_local(key)) continue;
    if (ens_obj_get(pb, key, &ignored) != 0) rc = ens_txn_set(d->txn, pa->id, key, ens_nil());
  }
  return rc;
}

static int s_fill_node(s_diff *d, ens_node *n, const ens_obj *ob, int depth) {
  int rc = 0;
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "objects nested too deeply");
  for (uint32_t i = 0; i < ob->nprops && !rc; i++) {
    const ens__prop *p = &ob->props[i];
    if (p->type == ENS_NIL || ens__prop_is_local(ob, p)) continue;
    rc = ens_node_set(n, ens__prop_key(ob, p), s_mapped(d, ens__prop_value(p)));
  }
  for (uint32_t i = 0; i < ob->nkids && !rc; i++) {
    const ens_obj *kb = ob->kids[i];
    ens_node *kid = ens_node_add_child(n, ens__obj_pos(kb), s_map_get(&d->b2a, kb->id), kb->kind);
    rc = kid ? s_fill_node(d, kid, kb, depth + 1) : ENS_ENOMEM;
  }
  return rc;
}

/* Marks in stable[] the longest run of matched children (in B's order)
 * that are already in order in A: they stay where they are. */
static int s_mark_stable(const ens_obj **amatch, size_t n, char *stable) {
  size_t *tails = malloc((n + 1) * sizeof *tails), *prev = malloc((n + 1) * sizeof *prev), len = 0;
  size_t *rank = malloc((n + 1) * sizeof *rank);
  if (!tails || !prev || !rank) {
    free(tails);
    free(prev);
    free(rank);
    return ens__error(ENS_ENOMEM, "out of memory diffing");
  }
  for (size_t i = 0; i < n; i++) rank[i] = amatch[i] ? ens_obj_index(amatch[i]) : 0;
  for (size_t i = 0; i < n; i++) {
    if (!amatch[i]) continue;
    size_t lo = 0, hi = len;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (rank[tails[mid]] < rank[i]) lo = mid + 1;
      else hi = mid;
    }
    prev[i] = lo ? tails[lo - 1] : (size_t)-1;
    tails[lo] = i;
    if (lo == len) len++;
  }
  for (size_t i = len ? tails[len - 1] : (size_t)-1; i != (size_t)-1; i = prev[i]) stable[i] = 1;
  /* Two stable neighbours with equal positions (a tie broken by id) leave
   * no position between them: when something must go there, the right one
   * moves too. */
  size_t last = (size_t)-1;
  int gap = 0;
  for (size_t i = 0; i < n; i++) {
    if (!stable[i]) {
      gap = 1;
      continue;
    }
    if (gap && last != (size_t)-1 && strcmp(ens__obj_pos(amatch[last]), ens__obj_pos(amatch[i])) >= 0) {
      stable[i] = 0;
      continue;
    }
    last = i;
    gap = 0;
  }
  free(tails);
  free(prev);
  free(rank);
  return 0;
}

static int s_emit(s_diff *d, const ens_obj *pa, const ens_obj *pb) {
  int rc = s_emit_props(d, pa, pb);
  if (rc) return rc;
  for (uint32_t i = 0; i < pa->nkids && !rc; i++)
    if (!s_map_get(&d->matched, pa->kids[i]->id)) rc = ens_txn_delete(d->txn, pa->kids[i]->id);
  size_t n = pb->nkids;
  if (rc || !n) return rc;
  const ens_obj **amatch = calloc(n, sizeof *amatch);
  char *stable = calloc(n, 1);
  if (!amatch || !stable) {
    rc = ens__error(ENS_ENOMEM, "out of memory diffing");
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    const ens_obj *ka = ens__doc_lookup(d->a, s_map_get(&d->b2a, pb->kids[i]->id));
    amatch[i] = ka && ka->parent == pa ? ka : NULL;
  }
  if ((rc = s_mark_stable(amatch, n, stable))) goto done;
  const char *prev_pos = NULL;
  char *owned_prev = NULL;
  for (size_t i = 0; i < n && !rc; i++) {
    if (stable[i]) {
      prev_pos = ens__obj_pos(amatch[i]);
      continue;
    }
    const char *next_pos = NULL;
    for (size_t j = i + 1; j < n; j++)
      if (stable[j]) {
        next_pos = ens__obj_pos(amatch[j]);
        break;
      }
    char *pos = ens_pos_between(prev_pos, next_pos);
    if (!pos) {
      rc = ens__error(ENS_ENOMEM, "out of memory diffing");
      break;
    }
    const ens_obj *kb = pb->kids[i];
    if (amatch[i]) {
      rc = ens_txn_move(d->txn, amatch[i]->id, pa->id, pos);
    } else {
      ens_node *node = ens_txn_insert(d->txn, pa->id, pos, s_map_get(&d->b2a, kb->id), kb->kind);
      rc = node ? s_fill_node(d, node, kb, 1) : ENS_ENOMEM;
    }
    free(owned_prev);
    owned_prev = pos;
    prev_pos = pos;
  }
  free(owned_prev);
  for (size_t i = 0; i < n && !rc; i++)
    if (amatch[i]) rc = s_emit(d, amatch[i], pb->kids[i]);
done:
  free(amatch);
  free(stable);
  return rc;
}

int ens_doc_diff(ens_doc *a, const ens_doc *b, ens_identity_fn identity, void *user, ens_txn **out) {
  *out = NULL;
  if (!a || !b || !identity) return ens__error(ENS_EINVAL, "diff needs two documents and an identity function");
  if (strcmp(a->kind, b->kind) != 0)
    return ens__error(ENS_EKIND, "cannot diff a '%s' document against a '%s' one", a->kind, b->kind);
  s_diff d;
  memset(&d, 0, sizeof d);
  d.a = a;
  d.b = b;
  d.identity = identity;
  d.user = user;
  d.txn = ens_txn_new("Diff", NULL);
  int rc = d.txn ? 0 : ENS_ENOMEM;
  if (!rc) rc = s_match(&d, a->root, b->root);
  if (!rc) rc = s_emit(&d, a->root, b->root);
  free(d.b2a.from);
  free(d.b2a.to);
  free(d.matched.from);
  free(d.matched.to);
  if (rc) {
    ens_txn_free(d.txn);
    return rc;
  }
  *out = d.txn;
  return 0;
}
