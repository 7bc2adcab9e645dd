/* In-process replicas (replica.h): the observer encodes what a session
 * would send; delivery decodes and applies it on the other side. */
#include "replica.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void s_observe(ens_doc *doc, const ens_event *ev, void *user) {
  cli_replica *r = user;
  (void)doc;
  /* remote and local-only transactions are never sent on */
  if (!ev->sendable || r->broken) return;
  if (r->nout == r->capout) {
    size_t cap = r->capout ? r->capout * 2 : 8;
    cli_msg *out = realloc(r->outbox, cap * sizeof *out);
    if (!out) {
      r->broken = 1;
      snprintf(r->error, sizeof r->error, "out of memory queueing a transaction");
      return;
    }
    r->outbox = out;
    r->capout = cap;
  }
  cli_msg *m = &r->outbox[r->nout];
  if (ens_txn_encode(ev->txn, &m->bytes, &m->len)) {
    r->broken = 1;
    snprintf(r->error, sizeof r->error, "encoding \"%s\": %s", ens_txn_label(ev->txn), ens_error_last());
    return;
  }
  r->nout++;
}

int cli_replica_init(cli_replica *r, const char *name, uint32_t site, ens_doc *doc) {
  memset(r, 0, sizeof *r);
  r->name = name;
  r->doc = doc;
  ens_doc_set_site(doc, site);
  if (!(r->undo = ens_undo_new(doc, 0))) return ENS_ENOMEM;
  int h = ens_doc_observe(doc, s_observe, r);
  if (h < 0) return h;
  r->observer = h;
  return 0;
}

static void s_drop(cli_replica *r) {
  for (size_t i = 0; i < r->nout; i++) ens_free(r->outbox[i].bytes);
  r->nout = 0;
}

void cli_replica_free(cli_replica *r) {
  s_drop(r);
  free(r->outbox);
  ens_undo_free(r->undo); /* before the document it borrows */
  ens_doc_free(r->doc);
  memset(r, 0, sizeof *r);
}

size_t cli_replica_pending(const cli_replica *r) {
  size_t n = 0;
  for (size_t i = 0; i < r->nout; i++) n += r->outbox[i].len;
  return n;
}

int cli_replica_deliver(cli_replica *from, cli_replica *to, size_t *msgs, size_t *bytes) {
  int rc = 0;
  for (size_t i = 0; i < from->nout && rc == 0; i++) {
    ens_txn *txn;
    const cli_msg *m = &from->outbox[i];
    if ((rc = ens_txn_decode(m->bytes, m->len, &txn))) break;
    rc = ens_doc_apply(to->doc, txn, ENS_ORIGIN_REMOTE, NULL);
    ens_txn_free(txn);
    if (rc) break;
    *msgs += 1;
    *bytes += m->len;
  }
  s_drop(from);
  return rc;
}
