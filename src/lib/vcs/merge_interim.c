/* Three-way merge (merge.h), interim form: ours' changes since base come
 * from the document diff of base and ours, then each operation is checked
 * against theirs (sharing base's ids): a property both changed is a
 * conflict, an edit of what theirs deleted is dropped. Deletes of subtrees
 * theirs edited, concurrent moves and duplicate inserts are not detected
 * here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/doc.h"
#include "../txn/ops.h"
#include "../util/error.h"
#include "ensemble/merge.h"

#define PATH_KEY_MAX 256

struct ens_merge {
  ens_txn *txn;
  ens_merge_conflict *c;
  size_t n, cap;
};

static char *s_path(const ens_doc *doc, ens_id id, const ens_merge_opts *o) {
  const ens_obj *obj = ens_doc_get(doc, id);
  if (!obj) return strdup("?");
  const ens_obj *chain[ENS_MAX_DEPTH + 1];
  size_t n = 0;
  for (const ens_obj *p = obj; p && ens_obj_parent(p) && n < ENS_MAX_DEPTH; p = ens_obj_parent(p)) chain[n++] = p;
  size_t cap = 64, len = 0;
  char *out = malloc(cap);
  if (!out) return NULL;
  out[0] = '\0';
  for (size_t i = n; i-- > 0;) {
    char key[PATH_KEY_MAX];
    if (!o->identity || !o->identity(chain[i], key, sizeof key, o->identity_user)) snprintf(key, sizeof key, "?");
    const char *kind = ens_obj_kind(chain[i]);
    size_t need = len + strlen(kind) + strlen(key) + 3;
    if (need > cap) {
      while (cap < need) cap *= 2;
      char *grown = realloc(out, cap);
      if (!grown) {
        free(out);
        return NULL;
      }
      out = grown;
    }
    len += (size_t)sprintf(out + len, "%s%s %s", len ? "/" : "", kind, key);
  }
  return out;
}

static int s_conflict(ens_merge *m, ens_conflict_kind kind, ens_id id, const ens_doc *where, const char *key,
                      const ens_value *base, const ens_value *ours, const ens_value *theirs, int kept,
                      const ens_merge_opts *o) {
  if (m->n == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 8;
    ens_merge_conflict *c = realloc(m->c, cap * sizeof *c);
    if (!c) return ens__error(ENS_ENOMEM, "out of memory merging");
    m->c = c;
    m->cap = cap;
  }
  ens_merge_conflict *c = &m->c[m->n];
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->id = id;
  c->ours_kept = kept;
  c->path = s_path(where, id, o);
  c->key = key ? strdup(key) : NULL;
  ens_value nil = ens_nil();
  if (ens__value_dup(base ? base : &nil, &c->base) || ens__value_dup(ours ? ours : &nil, &c->ours) ||
      ens__value_dup(theirs ? theirs : &nil, &c->theirs) || !c->path || (key && !c->key)) {
    m->n++;
    return ens__error(ENS_ENOMEM, "out of memory merging");
  }
  m->n++;
  return 0;
}

static int s_copy(const ens_doc *doc, ens_doc **out) {
  unsigned char *snap;
  size_t len;
  int rc = ens_snapshot_encode(doc, &snap, &len);
  if (rc) return rc;
  rc = ens_snapshot_decode(snap, len, out);
  ens_free(snap);
  return rc;
}

static ens_value s_get(const ens_obj *obj, const char *key) {
  ens_value v;
  if (ens_obj_get(obj, key, &v)) v = ens_nil();
  return v;
}

int ens_merge3(const ens_doc *base, const ens_doc *ours, ens_doc *theirs, const ens_merge_opts *opts, ens_merge **out) {
  *out = NULL;
  if (!base || !ours || !theirs || !opts) return ens__error(ENS_EINVAL, "merge: missing document or options");
  if (opts->theirs_match != ENS_MERGE_BY_ID)
    return ens__error(ENS_EINVAL, "merge: theirs must share ids with base in this version");
  ens_merge *m = calloc(1, sizeof *m);
  ens_doc *copy = NULL;
  ens_txn *d = NULL;
  int rc = ENS_ENOMEM;
  if (!m || !(m->txn = ens_txn_new(NULL, NULL))) goto fail;
  if ((rc = s_copy(base, &copy))) goto fail;
  ens_doc_set_site(copy, theirs->site);
  if (copy->counter < theirs->counter) copy->counter = theirs->counter;
  if ((rc = ens_doc_diff(copy, ours, opts->identity, opts->identity_user, &d))) goto fail;
  if (theirs->counter < copy->counter) theirs->counter = copy->counter;
  int prefer_ours = opts->prefer == ENS_MERGE_PREFER_OURS;
  for (size_t i = 0; i < d->nops; i++) {
    ens__op *op = &d->ops[i];
    const ens_obj *t = ens_doc_get(theirs, op->target);
    int keep = 1;
    switch (op->kind) {
    case ENS_OP_SET: {
      if (!t) {
        ens_value bv = s_get(ens_doc_get(copy, op->target), op->str);
        if ((rc = s_conflict(m, ENS_CONFLICT_DELETE, op->target, copy, op->str, &bv, &op->value, NULL, 0, opts)))
          goto fail;
        keep = 0;
        break;
      }
      ens_value tv = s_get(t, op->str), bv = s_get(ens_doc_get(copy, op->target), op->str);
      if (ens_value_equal(&tv, &op->value)) keep = 0;
      else if (!ens_value_equal(&tv, &bv)) {
        if ((rc = s_conflict(m, ENS_CONFLICT_SET, op->target, theirs, op->str, &bv, &op->value, &tv, prefer_ours,
                             opts)))
          goto fail;
        keep = prefer_ours;
      }
      break;
    }
    case ENS_OP_DELETE: keep = t != NULL; break;
    case ENS_OP_MOVE:
    case ENS_OP_INSERT: {
      ens_id parent = op->kind == ENS_OP_MOVE ? op->parent : op->target;
      if ((op->kind == ENS_OP_MOVE && !t) || !ens_doc_get(theirs, parent)) {
        ens_id id = op->kind == ENS_OP_MOVE ? op->target : parent;
        if ((rc = s_conflict(m, ENS_CONFLICT_DELETE, id, copy, NULL, NULL, NULL, NULL, 0, opts))) goto fail;
        keep = 0;
      }
      break;
    }
    }
    if (!keep) continue;
    if ((rc = ens__txn_push(m->txn, op))) goto fail;
    memset(op, 0, sizeof *op); /* taken over */
  }
  ens_txn_free(d);
  ens_doc_free(copy);
  *out = m;
  return 0;
fail:
  ens_txn_free(d);
  ens_doc_free(copy);
  ens_merge_free(m);
  return rc == ENS_ENOMEM ? ens__error(ENS_ENOMEM, "out of memory merging") : rc;
}

const ens_txn *ens_merge_txn(const ens_merge *m) { return m->txn; }
ens_txn *ens_merge_take_txn(ens_merge *m) {
  ens_txn *t = m->txn;
  m->txn = NULL;
  return t;
}
size_t ens_merge_conflict_count(const ens_merge *m) { return m->n; }
const ens_merge_conflict *ens_merge_conflict_at(const ens_merge *m, size_t i) { return i < m->n ? &m->c[i] : NULL; }

void ens_merge_free(ens_merge *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n; i++) {
    free((char *)m->c[i].path);
    free((char *)m->c[i].key);
    ens__value_release(&m->c[i].base);
    ens__value_release(&m->c[i].ours);
    ens__value_release(&m->c[i].theirs);
  }
  free(m->c);
  ens_txn_free(m->txn);
  free(m);
}
