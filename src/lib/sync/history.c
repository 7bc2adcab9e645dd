/* Session history (ensemble/history.h): the server's store opened
 * read-only, its log listed, and the document at any seq rebuilt from a
 * checkpoint and the entries after it. */
#include "ensemble/history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "ensemble/format.h"
#include "ensemble/model.h"
#include "store.h"

#define MAX_CHECKPOINTS 64 /* the store keeps a handful: the latest, the log's start, the file's records */

struct ens_history {
  ens__store *store;
  uint64_t head, oldest;
  uint64_t cps[MAX_CHECKPOINTS]; /* the usable ones, ascending */
  size_t ncps;
  char kind[64];
};

static int s_decode_checkpoint(ens_history *h, uint64_t seq, ens_doc **out) {
  unsigned char *snap;
  size_t len;
  *out = NULL;
  int rc = ens__store_checkpoint_at(h->store, seq, &snap, &len);
  if (rc) return rc;
  rc = ens_snapshot_decode(snap, len, out);
  free(snap);
  if (rc) return ens__error_prefix(rc, "store: the checkpoint at seq %llu: ", (unsigned long long)seq);
  if ((rc = ens_format_attach(*out))) {
    ens_doc_free(*out);
    *out = NULL;
  }
  return rc;
}

int ens_history_open(const char *path, ens_history **out) {
  if (!out) return ens__error(ENS_EINVAL, "no place for the history");
  *out = NULL;
  if (!path) return ens__error(ENS_EINVAL, "no store path");
  ens_history *h = calloc(1, sizeof *h);
  if (!h) return ens__error(ENS_ENOMEM, "out of memory opening a history");
  int rc = ens__store_open_readonly(path, &h->store);
  if (rc) goto fail;
  h->head = ens__store_head(h->store);
  uint64_t first = ens__store_first(h->store), all[MAX_CHECKPOINTS];
  int n = ens__store_checkpoints(h->store, all, MAX_CHECKPOINTS);
  if (n < 0) {
    rc = n;
    goto fail;
  }
  /* a checkpoint rebuilds the seqs after it only while the log holds
   * every entry from it on */
  for (int i = 0; i < n; i++)
    if (all[i] <= h->head && all[i] + 1 >= first) h->cps[h->ncps++] = all[i];
  if (!h->ncps) {
    rc = ens__error(ENS_EDECODE, "store: %s holds no checkpoint to rebuild the document from", path);
    goto fail;
  }
  h->oldest = h->cps[0];
  ens_doc *d;
  if ((rc = s_decode_checkpoint(h, h->oldest, &d))) goto fail;
  snprintf(h->kind, sizeof h->kind, "%s", ens_doc_kind(d));
  ens_doc_free(d);
  *out = h;
  return 0;
fail:
  ens_history_free(h);
  return rc;
}

void ens_history_free(ens_history *h) {
  if (!h) return;
  ens__store_close(h->store);
  free(h);
}

uint64_t ens_history_head(const ens_history *h) { return h->head; }
uint64_t ens_history_oldest(const ens_history *h) { return h->oldest; }
const char *ens_history_doc_kind(const ens_history *h) { return h->kind; }

/* --- the log replayed ------------------------------------------------------------------ */

/* The distinct objects of one transaction: an open-addressing set beside
 * the list in first-touched order. */
typedef struct {
  ens_id *list, *set;
  size_t n, cap, setcap;
} s_objs;

static int s_objs_add(s_objs *o, ens_id id) {
  if (o->n * 2 + 2 > o->setcap) {
    size_t cap = o->setcap ? o->setcap * 2 : 64;
    ens_id *set = calloc(cap, sizeof *set);
    if (!set) return ENS_ENOMEM;
    for (size_t i = 0; i < o->n; i++) {
      size_t j = (size_t)(o->list[i] * 0x9E3779B97F4A7C15ULL) & (cap - 1);
      while (set[j]) j = (j + 1) & (cap - 1);
      set[j] = o->list[i];
    }
    free(o->set);
    o->set = set;
    o->setcap = cap;
  }
  size_t j = (size_t)(id * 0x9E3779B97F4A7C15ULL) & (o->setcap - 1);
  while (o->set[j]) {
    if (o->set[j] == id) return 0;
    j = (j + 1) & (o->setcap - 1);
  }
  if (o->n == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 32;
    ens_id *list = realloc(o->list, cap * sizeof *list);
    if (!list) return ENS_ENOMEM;
    o->list = list;
    o->cap = cap;
  }
  o->set[j] = id;
  o->list[o->n++] = id;
  return 0;
}

typedef struct {
  ens_history *h;
  ens_doc *doc;     /* NULL until the replay reaches the checkpoint it starts from */
  uint64_t start;   /* that checkpoint's seq */
  ens_history_fn fn; /* NULL: only apply */
  void *user;
  s_objs objs;
  int rc;
} s_replay;

static int s_summarise(s_replay *r, const ens__entry *e, const ens_txn *t, ens_history_entry *out) {
  memset(out, 0, sizeof *out);
  out->seq = e->seq;
  out->site = e->site;
  memcpy(out->client, e->client, ENS_HISTORY_CLIENT_LEN);
  out->ctn = e->ctn;
  out->time_ms = e->at_ms;
  r->objs.n = 0;
  if (r->objs.set) memset(r->objs.set, 0, r->objs.setcap * sizeof *r->objs.set);
  size_t n = ens_txn_op_count(t);
  for (size_t i = 0; i < n; i++) {
    switch (ens_txn_op_kind(t, i)) {
    case ENS_OP_SET: out->sets++; break;
    case ENS_OP_INSERT: out->inserts++; break;
    case ENS_OP_DELETE: out->deletes++; break;
    case ENS_OP_MOVE: out->moves++; break;
    }
    if (s_objs_add(&r->objs, ens_txn_op_target(t, i))) return ens__error(ENS_ENOMEM, "out of memory listing a history");
  }
  out->nobjects = r->objs.n;
  out->objects = r->objs.list;
  return 0;
}

static int s_entry(const ens__entry *e, void *user) {
  s_replay *r = user;
  ens_txn *t = NULL;
  int rc = ens_txn_decode(e->txn, e->len, &t);
  if (rc) {
    r->rc = ens__error_prefix(ENS_EDECODE, "store: the transaction at seq %llu: ", (unsigned long long)e->seq);
    return 1;
  }
  if (r->doc && e->seq > r->start && (rc = ens_doc_apply(r->doc, t, ENS_ORIGIN_REMOTE, NULL))) {
    r->rc = ens__error_prefix(ENS_EDECODE, "store: the transaction at seq %llu does not apply: ",
                              (unsigned long long)e->seq);
    ens_txn_free(t);
    return 1;
  }
  if (r->fn) {
    ens_history_entry he;
    if ((rc = s_summarise(r, e, t, &he))) {
      r->rc = rc;
      ens_txn_free(t);
      return 1;
    }
    rc = r->fn(&he, t, r->doc && e->seq > r->start ? r->doc : NULL, r->user);
    if (rc) r->rc = rc;
  }
  ens_txn_free(t);
  return r->rc ? 1 : 0;
}

static int s_run(ens_history *h, uint64_t start, uint64_t from, uint64_t to, s_replay *r) {
  int rc = s_decode_checkpoint(h, start, &r->doc);
  r->h = h;
  r->start = start;
  if (rc) return rc;
  rc = from <= to ? ens__store_read(h->store, from, to, s_entry, r) : 0;
  free(r->objs.list);
  free(r->objs.set);
  if (r->rc) return r->rc;
  return rc;
}

int ens_history_list(ens_history *h, ens_history_fn fn, void *user) {
  if (!h || !fn) return ens__error(ENS_EINVAL, "no history or no function");
  s_replay r = {0};
  r.fn = fn;
  r.user = user;
  int rc = s_run(h, h->oldest, ens__store_first(h->store), h->head, &r);
  ens_doc_free(r.doc);
  return rc;
}

int ens_history_doc_at(ens_history *h, uint64_t seq, ens_doc **out) {
  if (!out) return ens__error(ENS_EINVAL, "no place for the document");
  *out = NULL;
  if (!h) return ens__error(ENS_EINVAL, "no history");
  if (seq > h->head)
    return ens__error(ENS_ENOTFOUND, "seq %llu is past the end of the session (its last is %llu)",
                      (unsigned long long)seq, (unsigned long long)h->head);
  if (seq < h->oldest)
    return ens__error(ENS_ENOTFOUND, "seq %llu is older than the store keeps (it rebuilds from seq %llu on)",
                      (unsigned long long)seq, (unsigned long long)h->oldest);
  uint64_t start = h->cps[0];
  for (size_t i = 0; i < h->ncps && h->cps[i] <= seq; i++) start = h->cps[i];
  s_replay r = {0};
  int rc = s_run(h, start, start + 1, seq, &r);
  if (rc) {
    ens_doc_free(r.doc);
    return rc;
  }
  *out = r.doc;
  return 0;
}
