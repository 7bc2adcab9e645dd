/* Ensemble transactions: ordered lists of set / insert / delete / move
 * operations that apply whole or not at all, yield their inverse, encode to
 * MessagePack for the wire, dump to JSON for people, and notify observers. */
#ifndef ENSEMBLE_TXN_H
#define ENSEMBLE_TXN_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ENS_OP_SET = 0,    /* set (or with NIL remove) one property */
  ENS_OP_INSERT = 1, /* insert an object with its properties and children */
  ENS_OP_DELETE = 2, /* delete an object and its subtree */
  ENS_OP_MOVE = 3    /* new parent and position */
} ens_op_kind;

/* Where an applied transaction came from, as observers see it. */
typedef enum {
  ENS_ORIGIN_LOCAL = 0,      /* this replica's user */
  ENS_ORIGIN_REMOTE = 1,     /* a collaborator, through a session */
  ENS_ORIGIN_UNDO = 2,       /* this replica's undo */
  ENS_ORIGIN_REDO = 3,       /* this replica's redo */
  ENS_ORIGIN_LOCAL_ONLY = 4  /* selection, view: never sent */
} ens_origin;

typedef struct ens_txn ens_txn;
/* An object being inserted: owned by its transaction. */
typedef struct ens_node ens_node;

/* A new empty transaction. label ("Move point") and author may be NULL.
 * The caller owns it: ens_txn_free. */
ens_txn *ens_txn_new(const char *label, const char *author);
void ens_txn_free(ens_txn *txn);

const char *ens_txn_label(const ens_txn *txn);
const char *ens_txn_author(const ens_txn *txn);
int ens_txn_set_label(ens_txn *txn, const char *label);

/* A local-only transaction may set only local properties (keys starting
 * with '@'); every other transaction may not touch them. Local-only
 * transactions are never encoded for the wire. */
void ens_txn_set_local_only(ens_txn *txn, int local_only);
int ens_txn_is_local_only(const ens_txn *txn);

/* Builders. Values and strings are copied. They return 0 or ENS_ENOMEM /
 * ENS_EINVAL; nothing is checked against a document until apply. */
int ens_txn_set(ens_txn *txn, ens_id obj, const char *key, ens_value value);
int ens_txn_delete(ens_txn *txn, ens_id obj);
int ens_txn_move(ens_txn *txn, ens_id obj, ens_id new_parent, const char *pos);
/* Insert object id of kind under parent at pos; returns the node to fill
 * with properties and children (NULL on error). */
ens_node *ens_txn_insert(ens_txn *txn, ens_id parent, const char *pos, ens_id id, const char *kind);
int ens_node_set(ens_node *node, const char *key, ens_value value);
ens_node *ens_node_add_child(ens_node *node, const char *pos, ens_id id, const char *kind);

/* Reading a transaction. */
size_t ens_txn_op_count(const ens_txn *txn);
ens_op_kind ens_txn_op_kind(const ens_txn *txn, size_t i);
ens_id ens_txn_op_target(const ens_txn *txn, size_t i); /* the object set/inserted/deleted/moved */
/* For SET: key and value (borrowed from the transaction). */
int ens_txn_op_set(const ens_txn *txn, size_t i, const char **key, ens_value *value);
/* For MOVE and INSERT: the parent and position. */
int ens_txn_op_place(const ens_txn *txn, size_t i, ens_id *parent, const char **pos);

/* Apply txn to doc atomically: either every operation applies or the
 * document is left exactly as it was and the error names the operation
 * ("op 3 (move): ..."). When inverse is not NULL, *inverse receives the
 * transaction that undoes this one (caller frees). Observers are told. */
int ens_doc_apply(ens_doc *doc, const ens_txn *txn, ens_origin origin, ens_txn **inverse);

/* Encoding for the wire (docs/protocol.md): *out malloc'd, free with
 * ens_free. Local-only transactions are refused (ENS_EINVAL). decode makes a
 * new transaction owned by the caller, validating every byte. */
int ens_txn_encode(const ens_txn *txn, unsigned char **out, size_t *out_len);
int ens_txn_decode(const void *data, size_t len, ens_txn **out);

/* A JSON dump for people and tests; caller frees with ens_free. */
char *ens_txn_to_json(const ens_txn *txn);

/* Observers see every applied transaction. sendable is 1 for transactions
 * that a session should send (local, undo, redo), 0 for remote and
 * local-only ones. */
typedef struct {
  ens_origin origin;
  int sendable;
  const ens_txn *txn; /* borrowed for the duration of the callback */
  /* What undoes txn from the state it left, borrowed likewise; a session
   * uses it to take its pending transactions off and put them back when a
   * collaborator's change arrives beneath them. Always given for local,
   * undo, redo and local-only transactions; may be NULL for remote ones. */
  const ens_txn *inverse;
} ens_event;
typedef void (*ens_observer_fn)(ens_doc *doc, const ens_event *event, void *user);

/* Returns a handle > 0, or a negative error. Observers must not apply
 * transactions to the same document from inside the callback. */
int ens_doc_observe(ens_doc *doc, ens_observer_fn fn, void *user);
void ens_doc_unobserve(ens_doc *doc, int handle);

#ifdef __cplusplus
}
#endif
#endif
