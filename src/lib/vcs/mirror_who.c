/* Who changed what in a mirrored session (mirror_int.h): the last site to
 * set each property, and to insert, move or delete each object, as the
 * session's entries land, so that a save replacing a collaborator's value
 * can name them. Bounded: what is older than every kept version of the
 * file is forgotten. */
#include <stdlib.h>
#include <string.h>

#include "../txn/ops.h"
#include "../util/error.h"
#include "../util/hash.h"
#include "mirror_int.h"

#define WHO_MAX_NAMES 4096

static uint64_t s_key_hash(const char *key) {
  if (!key) return 0;
  uint64_t h = ens__hash_bytes(key, strlen(key), 0x77686f);
  return h ? h : 1;
}

static size_t s_slot(const ens__who *w, ens_id id, uint64_t key) {
  size_t i = (size_t)ens__hash_combine(ens__mix64(id), key) & (w->cap - 1);
  while (w->e[i].id && (w->e[i].id != id || w->e[i].key != key)) i = (i + 1) & (w->cap - 1);
  return i;
}

/* Rebuilds the table at cap slots, leaving out what was pruned. */
static int s_rebuild(ens__who *w, size_t cap) {
  ens__who_entry *e = calloc(cap, sizeof *e);
  if (!e) return ens__error(ENS_ENOMEM, "out of memory noting who changed what");
  ens__who_entry *old = w->e;
  size_t oldcap = w->cap;
  w->e = e;
  w->cap = cap;
  w->count = 0;
  for (size_t i = 0; i < oldcap; i++)
    if (old[i].id && old[i].seq > w->pruned_below) {
      w->e[s_slot(w, old[i].id, old[i].key)] = old[i];
      w->count++;
    }
  free(old);
  return 0;
}

static int s_put(ens__who *w, ens_id id, uint64_t key, uint32_t site, uint64_t seq) {
  if ((w->count + 1) * 4 > w->cap * 3) {
    size_t live = 0;
    for (size_t i = 0; i < w->cap; i++) live += w->e[i].id && w->e[i].seq > w->pruned_below;
    size_t cap = w->cap ? w->cap : 1024;
    if ((live + 1) * 2 > cap) cap *= 2;
    int rc = s_rebuild(w, cap);
    if (rc) return rc;
  }
  size_t i = s_slot(w, id, key);
  if (!w->e[i].id) w->count++;
  w->e[i].id = id;
  w->e[i].key = key;
  w->e[i].site = site;
  w->e[i].seq = seq;
  return 0;
}

int ens__who_note(ens__who *w, const ens_txn *txn, uint32_t site, uint64_t seq) {
  for (size_t i = 0; i < txn->nops; i++) {
    const ens__op *op = &txn->ops[i];
    ens_id id = op->kind == ENS_OP_INSERT ? (op->node ? op->node->id : ENS_ID_NONE) : op->target;
    if (!id) continue;
    int rc = s_put(w, id, op->kind == ENS_OP_SET ? s_key_hash(op->str) : 0, site, seq);
    if (rc) return rc;
  }
  return 0;
}

static int s_get(const ens__who *w, ens_id id, uint64_t key, uint32_t *site, uint64_t *seq) {
  if (!w->cap) return 0;
  const ens__who_entry *e = &w->e[s_slot(w, id, key)];
  if (!e->id || e->seq <= w->pruned_below) return 0;
  *site = e->site;
  *seq = e->seq;
  return 1;
}

int ens__who_find(const ens__who *w, const ens_doc *doc, ens_id obj, const char *key, uint32_t *site, uint64_t *seq) {
  if (key && s_get(w, obj, s_key_hash(key), site, seq)) return 1;
  if (s_get(w, obj, 0, site, seq)) return 1;
  const ens_obj *o = doc ? ens_doc_get(doc, obj) : NULL;
  for (o = o ? ens_obj_parent(o) : NULL; o; o = ens_obj_parent(o))
    if (s_get(w, ens_obj_id(o), 0, site, seq)) return 1;
  return 0;
}

typedef struct {
  const ens__who *w;
  uint32_t site;
  uint64_t seq;
  int found;
} s_within;

static void s_better(s_within *x, uint32_t site, uint64_t seq) {
  if (!x->found || seq > x->seq) {
    x->site = site;
    x->seq = seq;
    x->found = 1;
  }
}

static int s_within_fn(const ens_obj *obj, size_t depth, void *user) {
  (void)depth;
  s_within *x = user;
  uint32_t site;
  uint64_t seq;
  ens_id id = ens_obj_id(obj);
  if (s_get(x->w, id, 0, &site, &seq)) s_better(x, site, seq);
  for (size_t i = 0; i < ens_obj_prop_count(obj); i++) {
    const char *key;
    ens_value v;
    if (ens_obj_prop_at(obj, i, &key, &v) == 0 && s_get(x->w, id, s_key_hash(key), &site, &seq)) s_better(x, site, seq);
  }
  return 0;
}

int ens__who_find_within(const ens__who *w, const ens_doc *doc, ens_id obj, uint32_t *site, uint64_t *seq) {
  const ens_obj *o = doc ? ens_doc_get(doc, obj) : NULL;
  if (!o || !w->cap) return 0;
  s_within x = {w, 0, 0, 0};
  ens_obj_walk(o, s_within_fn, &x);
  if (!x.found) return 0;
  *site = x.site;
  *seq = x.seq;
  return 1;
}

void ens__who_prune(ens__who *w, uint64_t seq) {
  if (seq > w->pruned_below) w->pruned_below = seq;
}

int ens__who_set_name(ens__who *w, uint32_t site, const char *name, int replace) {
  if (!name || !*name) return 0;
  for (size_t i = 0; i < w->nnames; i++)
    if (w->names[i].site == site) {
      if (!replace || strcmp(w->names[i].name, name) == 0) return 0;
      char *c = strdup(name);
      if (!c) return ens__error(ENS_ENOMEM, "out of memory");
      free(w->names[i].name);
      w->names[i].name = c;
      return 0;
    }
  if (w->nnames >= WHO_MAX_NAMES) return 0; /* shown by site alone */
  ens__who_name *n = realloc(w->names, (w->nnames + 1) * sizeof *n);
  if (!n) return ens__error(ENS_ENOMEM, "out of memory");
  w->names = n;
  if (!(n[w->nnames].name = strdup(name))) return ens__error(ENS_ENOMEM, "out of memory");
  n[w->nnames++].site = site;
  return 0;
}

const char *ens__who_name_of(const ens__who *w, uint32_t site) {
  for (size_t i = 0; i < w->nnames; i++)
    if (w->names[i].site == site) return w->names[i].name;
  return NULL;
}

void ens__who_clear(ens__who *w) {
  free(w->e);
  for (size_t i = 0; i < w->nnames; i++) free(w->names[i].name);
  free(w->names);
  memset(w, 0, sizeof *w);
}
