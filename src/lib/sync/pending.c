/* The pending queue and how remote changes go beneath it (see pending.h). */
#include "pending.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/doc.h"
#include "../txn/ops.h"
#include "../txn/undo_int.h"
#include "../util/error.h"

void ens__pending_init(ens__pending *q, ens_doc *doc, ens_undo *undo) {
  memset(q, 0, sizeof *q);
  q->doc = doc;
  q->undo = undo;
}

static void s_free_item(ens__pend *p) {
  ens_txn_free(p->txn);
  ens_txn_free(p->inv);
  free(p->bytes);
  free(p->inv_bytes);
}

void ens__pending_clear(ens__pending *q) {
  for (size_t i = 0; i < q->n; i++) s_free_item(&q->items[i]);
  free(q->mem);
  q->items = q->mem = NULL;
  q->n = q->off = q->cap = 0;
}

/* The transaction as objects, decoded from its wire form the first time
 * it is needed; NULL (with the error) when that fails. */
static ens_txn *s_txn(ens__pend *p) {
  if (!p->txn && ens_txn_decode(p->bytes, p->len, &p->txn)) p->txn = NULL;
  return p->txn;
}

const char *ens__pending_label(ens__pending *q, size_t i) {
  const ens_txn *t = i < q->n ? s_txn(&q->items[i]) : NULL;
  return t ? ens_txn_label(t) : "";
}

int ens__pending_push(ens__pending *q, uint64_t ctn, const ens_txn *txn, const ens_txn *inverse) {
  if (q->off && q->off + q->n == q->cap && q->off >= q->n) {
    /* at least half the room is the gap before the head: close it, at a
     * cost of at most one move per item taken off since the last one */
    memmove(q->mem, q->items, q->n * sizeof *q->items);
    q->items = q->mem;
    q->off = 0;
  }
  if (q->off + q->n == q->cap) {
    size_t cap = q->cap ? q->cap * 2 : 32;
    ens__pend *n = realloc(q->mem, cap * sizeof *n);
    if (!n) return ens__error(ENS_ENOMEM, "out of memory queueing a transaction");
    q->mem = n;
    q->items = n + q->off;
    q->cap = cap;
  }
  ens__pend p;
  memset(&p, 0, sizeof p);
  p.ctn = ctn;
  p.stamp = q->doc ? q->doc->clock : 0;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  p.time_us = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
  p.on = 1;
  int rc = ens_txn_encode(txn, &p.bytes, &p.len);
  if (rc == 0 && inverse) rc = ens_txn_encode(inverse, &p.inv_bytes, &p.inv_len);
  if (rc == 0 && !inverse) rc = ens__error(ENS_EINVAL, "a pending change needs its inverse");
  if (rc) {
    s_free_item(&p);
    return rc;
  }
  q->items[q->n++] = p;
  return 0;
}

/* Takes items [from, n) off the document, newest first. */
static int s_off(ens__pending *q, size_t from) {
  int rc = 0;
  q->rebasing++;
  for (size_t i = q->n; i-- > from;) {
    ens__pend *p = &q->items[i];
    if (!p->on) continue;
    int r = 0;
    if (!p->inv) r = ens_txn_decode(p->inv_bytes, p->inv_len, &p->inv);
    if (r == 0) r = ens__doc_apply_unchecked(q->doc, p->inv, ENS_ORIGIN_LOCAL, NULL);
    if (r && !rc) rc = ens__error_prefix(r, "taking pending %llu off: ", (unsigned long long)p->ctn);
    ens_txn_free(p->inv);
    p->inv = NULL;
    free(p->inv_bytes);
    p->inv_bytes = NULL;
    p->on = 0;
  }
  q->rebasing--;
  return rc;
}

/* Applies p as the server will when its turn comes: whole, or without
 * its operations on what a collaborator deleted (p->dropped says how
 * many). Always from p->txn, the transaction as its user made it: a
 * deleted object may come back (an undone delete) before the server
 * decides. inverse may be NULL. judged: under the document's rules, as
 * the server will judge it (not for one it has accepted). */
static int s_apply(ens__pending *q, ens__pend *p, ens_txn **inverse, int judged) {
  int (*apply)(ens_doc *, const ens_txn *, ens_origin, ens_txn **) = judged ? ens_doc_apply : ens__doc_apply_unchecked;
  p->dropped = 0;
  const ens_txn *txn = s_txn(p);
  if (!txn) return ens__error(ENS_EDECODE, "pending %llu does not decode", (unsigned long long)p->ctn);
  int rc = apply(q->doc, txn, ENS_ORIGIN_LOCAL, inverse);
  if (rc != ENS_ENOTFOUND) return rc;
  ens_txn *kept;
  size_t dropped;
  if ((rc = ens__txn_drop_missing(q->doc, txn, &kept, &dropped)) != 0) return rc;
  rc = dropped && ens_txn_op_count(kept) ? apply(q->doc, kept, ENS_ORIGIN_LOCAL, inverse) : ENS_ENOTFOUND;
  ens_txn_free(kept);
  if (rc == 0) p->dropped = dropped;
  return rc;
}

/* Puts items [from, n) back on, oldest first; those that no longer apply
 * stay off. */
static void s_on(ens__pending *q, size_t from) {
  q->rebasing++;
  for (size_t i = from; i < q->n; i++) {
    ens__pend *p = &q->items[i];
    if (s_apply(q, p, &p->inv, 1) != 0) {
      p->inv = NULL;
      continue;
    }
    p->on = 1;
    /* its undo step now sits on top of what came beneath it */
    if (q->undo) ens__undo_restamp(q->undo, p->stamp, q->doc->clock, p->inv);
    p->stamp = q->doc->clock;
  }
  q->rebasing--;
}

static void s_pop(ens__pending *q) {
  s_free_item(&q->items[0]);
  q->items++;
  q->off++;
  q->n--;
  if (!q->n) {
    q->items = q->mem;
    q->off = 0;
  }
}

int ens__pending_accept_head(ens__pending *q, size_t *dropped, char *label, size_t label_size) {
  if (!q->n) return ens__error(ENS_EINVAL, "no pending transaction to accept");
  int rc = 0;
  if (!q->items[0].on) {
    /* it was off: it goes on beneath the others, as the server applied it */
    rc = s_off(q, 1);
    q->rebasing++;
    if (!rc && s_apply(q, &q->items[0], NULL, 0) != 0)
      rc = ens__error(ENS_EDECODE, "an accepted transaction does not apply here: %s", ens_error_last());
    q->rebasing--;
    s_on(q, 1);
  }
  if (dropped) *dropped = q->items[0].dropped;
  if (q->items[0].dropped && label && label_size) snprintf(label, label_size, "%s", ens__pending_label(q, 0));
  s_pop(q);
  return rc;
}

int ens__pending_reject_head(ens__pending *q) {
  if (!q->n) return ens__error(ENS_EINVAL, "no pending transaction to reject");
  int rc = s_off(q, 0);
  if (q->undo) ens__undo_forget(q->undo, q->items[0].stamp);
  s_pop(q);
  s_on(q, 0);
  return rc;
}

/* 1 when txn only sets properties and none of them is one remote sets. */
static int s_sets_apart(const ens_txn *txn, const ens_txn *remote) {
  for (size_t i = 0; i < txn->nops; i++) {
    const ens__op *a = &txn->ops[i];
    if (a->kind != ENS_OP_SET) return 0;
    for (size_t j = 0; j < remote->nops; j++) {
      const ens__op *b = &remote->ops[j];
      if (a->target == b->target && strcmp(a->str, b->str) == 0) return 0;
    }
  }
  return 1;
}

/* 1 when the remote change and every pending one are property sets on
 * different properties, all pending ones being on the document: then the
 * remote change beneath them gives the same document, the same inverses
 * and the same undo decisions (a step's skips look only at its own
 * properties) as on top of them, and it goes on top. Taking them off and
 * putting them back costs three applies per pending transaction for each
 * remote one, which with sixteen collaborators was most of a client's
 * time. Not under a format's rules: they judge an object as a whole and
 * may look at others (an SVG attribute that names an entity the doctype
 * declares), so a pending change the server will refuse after the remote
 * one can pass on top of it; put back beneath, it is judged as the server
 * will judge it and stays off. */
static int s_commutes(const ens__pending *q, const ens_txn *remote) {
  if (ens__schema_has_rules(q->doc->schema)) return 0;
  for (size_t j = 0; j < remote->nops; j++)
    if (remote->ops[j].kind != ENS_OP_SET) return 0;
  for (size_t i = 0; i < q->n; i++) {
    const ens_txn *txn = q->items[i].on ? s_txn(&q->items[i]) : NULL;
    if (!txn || !s_sets_apart(txn, remote)) return 0;
  }
  return 1;
}

int ens__pending_remote(ens__pending *q, const ens_txn *remote) {
  return ens__pending_remote_run(q, &remote, 1, NULL);
}

int ens__pending_remote_on_top(ens__pending *q, const ens_txn *remote, int *applied) {
  *applied = 0;
  if (q->n && !s_commutes(q, remote)) return 0;
  int rc = ens__doc_apply_unchecked(q->doc, remote, ENS_ORIGIN_REMOTE, NULL); /* the server judged it */
  if (rc == 0) *applied = 1;
  return rc;
}

int ens__pending_remote_run(ens__pending *q, const ens_txn *const *remote, size_t count, size_t *applied) {
  size_t i = 0;
  int rc = 0;
  /* on top while they commute: nothing comes off */
  for (int on_top = 1; i < count && on_top && rc == 0;)
    if ((rc = ens__pending_remote_on_top(q, remote[i], &on_top)) == 0 && on_top) i++;
  if (i < count && rc == 0) {
    /* the rest beneath, with the pending ones off once for all of them */
    rc = s_off(q, 0);
    q->rebasing++;
    while (i < count && rc == 0)
      if ((rc = ens__doc_apply_unchecked(q->doc, remote[i], ENS_ORIGIN_REMOTE, NULL)) == 0) i++;
    q->rebasing--;
    s_on(q, 0);
  }
  if (applied) *applied = i;
  return rc;
}

void ens__pending_rebase_onto(ens__pending *q, ens_doc *doc, ens_undo *undo, uint64_t upto) {
  size_t keep = 0;
  for (size_t i = 0; i < q->n; i++) {
    ens__pend *p = &q->items[i];
    ens_txn_free(p->inv); /* inverses and stamps of the old document mean nothing on the new one */
    p->inv = NULL;
    free(p->inv_bytes);
    p->inv_bytes = NULL;
    p->on = 0;
    p->stamp = 0;
    if (p->ctn <= upto) s_free_item(p);
    else q->items[keep++] = *p;
  }
  q->n = keep;
  q->doc = doc;
  q->undo = undo;
  s_on(q, 0);
}
