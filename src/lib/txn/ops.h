/* Private representation of transactions: an array of operations, each
 * owning its strings, values and (for inserts) a tree of nodes. The apply
 * engine, the codec, the undo manager and the diff all build and read this
 * directly. */
#ifndef ENS_TXN_OPS_H
#define ENS_TXN_OPS_H

#include "../model/doc.h"
#include "ensemble/txn.h"

typedef struct {
  char *key;
  ens_value value; /* STR / BYTES point to owned copies */
} ens__kv;

struct ens_node {
  ens_id id;
  char *kind;
  char *pos;
  ens__kv *props;
  uint32_t nprops, capprops;
  struct ens_node **kids;
  uint32_t nkids, capkids;
};

typedef struct {
  uint8_t kind;   /* ens_op_kind */
  ens_id target;  /* set, delete, move: the object; insert: the parent */
  ens_id parent;  /* move: the new parent */
  char *str;      /* set: the key; move: the position */
  ens_value value; /* set */
  struct ens_node *node; /* insert */
} ens__op;

struct ens_txn {
  char *label;
  char *author;
  int local_only;
  ens__op *ops;
  size_t nops, capops;
};

/* Append an operation (its owned members are taken over); 0 or ENOMEM. */
int ens__txn_push(ens_txn *txn, const ens__op *op);
void ens__op_release(ens__op *op);
void ens__node_free(struct ens_node *node);
/* Copy of a value whose STR/BYTES payload is freshly allocated. */
int ens__value_dup(const ens_value *in, ens_value *out);
void ens__value_release(ens_value *v);
/* Reverse the order of operations (an inverse is recorded forwards). */
void ens__txn_reverse(ens_txn *txn);

/* Filter consulted by the lenient apply before each operation: return 0 to
 * apply it, or a skip reason (ens_skip_reason of undo.h). */
typedef int (*ens__op_filter)(ens_doc *doc, const ens__op *op, void *user);

/* Apply what applies, skipping operations the filter refuses or that fail
 * validation; calls on_skip for each skipped one. *applied receives a new
 * transaction of the operations applied (what observers saw) and *inverse
 * its inverse. Used by undo and redo. */
int ens__doc_apply_lenient(ens_doc *doc, const ens_txn *txn, ens_origin origin, ens__op_filter filter,
                           void (*on_skip)(const ens__op *op, int reason, void *user), void *user,
                           ens_txn **applied, ens_txn **inverse);

/* ens_doc_apply without the rules of doc's schema (its kinds and types
 * neither): for transactions already judged elsewhere, which must apply
 * as they were accepted (a session's log, its collaborators' changes, a
 * pending change taken off). */
int ens__doc_apply_unchecked(ens_doc *doc, const ens_txn *txn, ens_origin origin, ens_txn **inverse);

/* A copy of txn without its operations on objects that doc does not hold
 * and that txn does not insert first: the edits of what a collaborator
 * deleted (DESIGN.md, "Sessions": dropped, the rest stands). *dropped
 * says how many were left out. An object txn itself deletes still counts
 * as there: an edit after its own delete is the author's mistake, which
 * apply refuses as ever. The caller owns *out. */
int ens__txn_drop_missing(const ens_doc *doc, const ens_txn *txn, ens_txn **out, size_t *dropped);

/* Tell every observer of doc; inverse is what undoes txn (may be NULL). */
void ens__doc_notify(ens_doc *doc, const ens_txn *txn, const ens_txn *inverse, ens_origin origin);

#endif
