/* Ensemble undo manager: one replica's own undo and redo stacks. It holds
 * only this replica's transactions, one step per transaction, and never
 * overwrites a collaborator's newer change: such an operation is skipped
 * and reported. */
#ifndef ENSEMBLE_UNDO_H
#define ENSEMBLE_UNDO_H

#include "txn.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ens_undo ens_undo;

/* Why an operation of an undo or redo was skipped. */
typedef enum {
  ENS_SKIP_NEWER_REMOTE = 1, /* a collaborator changed it since */
  ENS_SKIP_GONE = 2,         /* the object (or its new parent) no longer exists */
  ENS_SKIP_INVALID = 3       /* it no longer applies (cycle, id taken, schema) */
} ens_skip_reason;

typedef struct {
  ens_op_kind op;
  ens_id obj;
  char key[64]; /* the property for SET, "" otherwise; truncated if longer */
  ens_skip_reason reason;
} ens_skip;

/* What one undo or redo did. Owned by the caller; ens_undo_report_clear
 * releases what the manager filled in. */
typedef struct {
  size_t applied; /* operations applied */
  size_t skipped; /* operations skipped; details in skips[0..skipped) */
  ens_skip *skips;
  char label[128];
} ens_undo_report;

void ens_undo_report_clear(ens_undo_report *report);

/* A manager for doc keeping at most depth steps (0 = unlimited). The
 * manager borrows doc, which must outlive it. */
ens_undo *ens_undo_new(ens_doc *doc, size_t depth);
void ens_undo_free(ens_undo *undo);
void ens_undo_set_depth(ens_undo *undo, size_t depth);

/* Apply one user action (origin local, or local-only when txn is flagged
 * so) and record it as one undo step; clears the redo stack. The
 * transaction is borrowed. */
int ens_undo_commit(ens_undo *undo, const ens_txn *txn);

/* Undo or redo one step as a new transaction (origin UNDO / REDO). report
 * may be NULL. Returns ENS_EEMPTY when there is nothing to do. A step whose
 * every operation was skipped still counts as done. */
int ens_undo_undo(ens_undo *undo, ens_undo_report *report);
int ens_undo_redo(ens_undo *undo, ens_undo_report *report);

size_t ens_undo_undo_count(const ens_undo *undo);
size_t ens_undo_redo_count(const ens_undo *undo);
/* Label of the step the next undo / redo would take, or NULL. */
const char *ens_undo_next_label(const ens_undo *undo);
const char *ens_undo_next_redo_label(const ens_undo *undo);
void ens_undo_clear(ens_undo *undo);

#ifdef __cplusplus
}
#endif
#endif
