/* A client's pending transactions (docs/design.md, "Concurrency"): its own
 * changes, applied to the document at once and kept, in order, with their
 * inverses until the server acknowledges or rejects them. The document is
 * always the server's state as far as the client knows it, with the
 * pending ones on top; a collaborator's change therefore goes beneath
 * them: the pending ones come off (their inverses, newest first), the
 * change applies, they go back on. That is what keeps a remote value of a
 * property with a pending local change recorded but not shown: it is
 * applied beneath and overwritten by the local one until the ack, and
 * shown if the local one is rejected. (A change that only sets properties
 * none of the pending ones sets, when they too only set properties, gives
 * the same result on top of them, and goes there.) A pending transaction
 * that edits what a collaborator deleted goes back on without those
 * operations, as the server will apply it; one that does not go back on at
 * all stays in
 * the queue, off the document, until the server decides on it. */
#ifndef ENS_SESSION_PENDING_H
#define ENS_SESSION_PENDING_H

#include "ensemble/undo.h"

/* A pending transaction is kept in its wire form, and its inverse
 * encoded too: most are acknowledged without a collaborator's change
 * beneath them, and then neither is ever needed as objects. They are
 * decoded the first time a rebase needs them (s_txn, s_off). */
typedef struct {
  uint64_t ctn;
  ens_txn *txn;        /* owned; decoded from bytes when first needed, NULL until then */
  unsigned char *bytes; /* wire form, owned */
  size_t len;
  int on;              /* on the document (its effect is there) */
  ens_txn *inv;        /* owned: what takes it off, from its last apply in a rebase; or NULL and */
  unsigned char *inv_bytes; /* ... its inverse as committed, encoded (owned) */
  size_t inv_len;
  int sent;
  uint64_t stamp; /* document clock after its last apply: names its undo step */
  size_t dropped; /* operations its last apply left out (edits of what a collaborator deleted) */
  uint64_t time_us; /* when it was committed: microseconds since 1970 (sent with it) */
} ens__pend;

typedef struct {
  ens_doc *doc;   /* borrowed */
  ens_undo *undo; /* borrowed; its steps follow the queue's (undo_int.h) */
  ens__pend *items; /* the queue: items[0] is the oldest; points into mem */
  size_t n;
  /* items starts off entries into mem: taking the head off only moves the
   * pointer, as a memmove of the whole queue per ack cost more than the
   * rest of the ack when many are pending; the gap is closed on push */
  ens__pend *mem;
  size_t off, cap;
  int rebasing; /* applies made by the queue itself: not new local changes */
} ens__pending;

void ens__pending_init(ens__pending *q, ens_doc *doc, ens_undo *undo);
void ens__pending_clear(ens__pending *q);

/* Records a transaction just applied locally (copies txn and inverse);
 * called from the document's observer, so the clock names its step. */
int ens__pending_push(ens__pending *q, uint64_t ctn, const ens_txn *txn, const ens_txn *inverse);

/* The head was accepted by the server: it is now part of the server's
 * state. *dropped (may be NULL) gets how many of its operations were left
 * out, as the server left them out, and then label (may be NULL) its
 * label. ENS_EDECODE when it no longer applies there (the document has
 * diverged: the caller resynchronises). */
int ens__pending_accept_head(ens__pending *q, size_t *dropped, char *label, size_t label_size);
/* The label of pending item i, decoding it when needed ("" when it cannot
 * be decoded); borrowed until the item goes. */
const char *ens__pending_label(ens__pending *q, size_t i);
/* The head was refused: it comes off the document and the queue. */
int ens__pending_reject_head(ens__pending *q);
/* A collaborator's transaction goes beneath the pending ones. An error
 * means it does not apply to the server's state as known here: the
 * document has diverged and the caller resynchronises. */
int ens__pending_remote(ens__pending *q, const ens_txn *remote);
/* Consecutive collaborators' transactions, in order, as count calls of
 * ens__pending_remote would leave the document, but with the pending
 * ones taken off and put back once rather than for each: what makes a
 * long catch-up under many pending changes linear. *applied (may be
 * NULL) gets how many applied before an error. */
int ens__pending_remote_run(ens__pending *q, const ens_txn *const *remote, size_t count, size_t *applied);
/* A collaborator's transaction on top of the pending ones, when it
 * commutes with all of them (it only sets properties none of them sets,
 * or none is pending): the document ends as ens__pending_remote would
 * leave it. *applied says whether it went; when it does not commute,
 * nothing is done and the caller puts it beneath. An error is as for
 * ens__pending_remote. */
int ens__pending_remote_on_top(ens__pending *q, const ens_txn *remote, int *applied);
/* Moves the queue onto another document (after a snapshot), dropping the
 * items with ctn <= upto and putting the others on it. The undo manager
 * is the new document's (its steps start afresh). */
void ens__pending_rebase_onto(ens__pending *q, ens_doc *doc, ens_undo *undo, uint64_t upto);

#endif
