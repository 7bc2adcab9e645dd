/* Document diff: match B's objects to A's top-down (same kind, same
 * identity key, under matched parents, duplicates in order: match.c), then emit
 * per matched pair: property sets, deletes of A's unmatched children, moves
 * for the children whose order changed (all but a longest run already in
 * order: place.c) and inserts of B's unmatched subtrees under fresh ids of A. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/hash.h"
#include "../util/idtab.h"
#include "ensemble/diff.h"
#include "match.h"
#include "ops.h"
#include "place.h"

/* B id -> A id */
typedef ens__idtab s_map;

static int s_map_put(s_map *m, ens_id from, ens_id to) { return ens__idtab_put(m, from, to); }

static ens_id s_map_get(const s_map *m, ens_id from) {
  uint64_t v;
  return ens__idtab_find(m, from, &v) ? (ens_id)v : ENS_ID_NONE;
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

static int s_assign_fresh(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_diff *d = user;
  return s_map_put(&d->b2a, o->id, ens_doc_new_id(d->a));
}

/* A matched pair maps B's id to A's; an unmatched subtree of B gets fresh
 * ids of A, in pre-order. */
static int s_matched(const ens_obj *pa, const ens_obj *pb, void *user) {
  s_diff *d = user;
  if (!pa) return ens_obj_walk(pb, s_assign_fresh, d);
  int rc = s_map_put(&d->b2a, pb->id, pa->id);
  return rc ? rc : s_map_put(&d->matched, pa->id, 1);
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

typedef struct {
  s_diff *d;
  const ens_obj *pa, *pb;
  const ens_obj **amatch;
} s_place_ctx;

static int s_place(size_t i, const char *pos, void *user) {
  s_place_ctx *c = user;
  if (c->amatch[i]) return ens_txn_move(c->d->txn, c->amatch[i]->id, c->pa->id, pos);
  const ens_obj *kb = c->pb->kids[i];
  ens_node *node = ens_txn_insert(c->d->txn, c->pa->id, pos, s_map_get(&c->d->b2a, kb->id), kb->kind);
  return node ? s_fill_node(c->d, node, kb, 1) : ENS_ENOMEM;
}

static int s_emit(s_diff *d, const ens_obj *pa, const ens_obj *pb) {
  int rc = s_emit_props(d, pa, pb);
  if (rc) return rc;
  for (uint32_t i = 0; i < pa->nkids && !rc; i++)
    if (!s_map_get(&d->matched, pa->kids[i]->id)) rc = ens_txn_delete(d->txn, pa->kids[i]->id);
  size_t n = pb->nkids;
  if (rc || !n) return rc;
  const ens_obj **amatch = calloc(n, sizeof *amatch);
  if (!amatch) return ens__error(ENS_ENOMEM, "out of memory diffing");
  for (size_t i = 0; i < n; i++) {
    const ens_obj *ka = ens__doc_lookup(d->a, s_map_get(&d->b2a, pb->kids[i]->id));
    amatch[i] = ka && ka->parent == pa ? ka : NULL;
  }
  s_place_ctx c = {d, pa, pb, amatch};
  rc = ens__place_children(amatch, n, s_place, &c);
  for (size_t i = 0; i < n && !rc; i++)
    if (amatch[i]) rc = s_emit(d, amatch[i], pb->kids[i]);
  free(amatch);
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
  if (!rc) rc = ens__tree_match(a->root, b->root, identity, user, s_matched, &d);
  if (!rc) rc = s_emit(&d, a->root, b->root);
  ens__idtab_free(&d.b2a);
  ens__idtab_free(&d.matched);
  if (rc) {
    ens_txn_free(d.txn);
    return rc;
  }
  *out = d.txn;
  return 0;
}
