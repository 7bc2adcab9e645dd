/* An in-process replica: a document, its own undo manager, and an outbox
 * that its observer fills with every sendable transaction, encoded for the
 * wire. The demo delivers outboxes by hand where a session would send. */
#ifndef ENS_CLI_REPLICA_H
#define ENS_CLI_REPLICA_H

#include <stddef.h>

#include "ensemble.h"

typedef struct {
  unsigned char *bytes; /* ens_txn_encode output, freed with ens_free */
  size_t len;
} cli_msg;

typedef struct {
  const char *name;
  ens_doc *doc;
  ens_undo *undo;
  int observer; /* handle, 0 when not registered */
  cli_msg *outbox;
  size_t nout, capout;
  /* observers cannot return errors: one that fails to queue says so here */
  int broken;
  char error[256];
} cli_replica;

/* Takes ownership of doc (freed by cli_replica_free, even when init fails),
 * gives it site `site`, an undo manager and the outbox observer. The
 * replica must not move in memory afterwards: the observer points at it.
 * Returns 0, or a negative ENS_E... code with ens_error_last(). */
int cli_replica_init(cli_replica *r, const char *name, uint32_t site, ens_doc *doc);
void cli_replica_free(cli_replica *r);

/* Bytes waiting in the outbox. */
size_t cli_replica_pending(const cli_replica *r);

/* Sends from's outbox to `to` in order, as a session would: decode each
 * message and apply it with origin remote. The outbox ends empty, even on
 * failure (the rest is dropped). Adds to *msgs and *bytes. Returns 0 or a
 * negative ENS_E... code with ens_error_last(). */
int cli_replica_deliver(cli_replica *from, cli_replica *to, size_t *msgs, size_t *bytes);

#endif
