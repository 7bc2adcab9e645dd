/* Ensemble session history: a server's store read back, read-only and
 * beside the running server, as the list of the transactions it accepted
 * (who, when, what) and the document as it was after any of them
 * (docs/vcs.md, "Session history"). */
#ifndef ENSEMBLE_HISTORY_H
#define ENSEMBLE_HISTORY_H

#include "txn.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ENS_HISTORY_CLIENT_LEN 16

typedef struct ens_history ens_history;

/* One accepted transaction, as the store recorded it. */
typedef struct {
  uint64_t seq;                                  /* its place in the session, from 1 */
  uint32_t site;                                 /* the site of the client that made it */
  unsigned char client[ENS_HISTORY_CLIENT_LEN];  /* that client's id */
  uint64_t ctn;                                  /* the client's own number for it */
  int64_t time_ms;                               /* when the server accepted it, unix ms; 0 when the store did not record it */
  size_t sets, inserts, deletes, moves;          /* its operations by kind */
  size_t nobjects;                               /* distinct objects it touched */
  const ens_id *objects;                         /* those objects, in the order first touched */
} ens_history_entry;

/* Opens the store at path read-only: it sees the store as it is at this
 * moment (a running server goes on meanwhile, undisturbed) and never
 * writes it. ENS_EIO for a missing or unreadable file, ENS_EDECODE for a
 * file that is not a store. The caller owns *out (ens_history_free). */
int ens_history_open(const char *path, ens_history **out);
void ens_history_free(ens_history *h);

/* The last seq of the session (0 when nothing was accepted). */
uint64_t ens_history_head(const ens_history *h);
/* The oldest seq whose document the store can still rebuild (the store
 * keeps a checkpoint and the log after it; older transactions are gone). */
uint64_t ens_history_oldest(const ens_history *h);
/* The kind of the session's document ("sfd", "svg", ...). Borrowed, valid
 * while h lives. */
const char *ens_history_doc_kind(const ens_history *h);

/* Calls fn for each transaction the store still holds, in order up to the
 * head, with the entry, its transaction and the document after it (all
 * borrowed for the call; the document is NULL for a transaction at or
 * before ens_history_oldest(), which the log still holds but no checkpoint
 * rebuilds).
 * Stops at fn's first nonzero return and returns it; 0, or a negative
 * error (a transaction that does not decode or apply: ENS_EDECODE). */
typedef int (*ens_history_fn)(const ens_history_entry *e, const ens_txn *txn, const ens_doc *after, void *user);
int ens_history_list(ens_history *h, ens_history_fn fn, void *user);

/* The document after the transaction of seq (seq 0 or the oldest: the
 * checkpoint), rebuilt from the latest checkpoint at or before seq and the
 * log after it, with its format's rules attached. ENS_ENOTFOUND when seq
 * lies past the head or before ens_history_oldest(). The caller owns
 * *out. */
int ens_history_doc_at(ens_history *h, uint64_t seq, ens_doc **out);

#ifdef __cplusplus
}
#endif
#endif
