/* Ensemble sessions: a server that orders every change to one document and
 * keeps it durable, and a client that joins it, applies its user's changes
 * at once and converges on the server's order (docs/protocol.md,
 * "Sessions"). Both run in the caller's thread through a poll function
 * with a timeout, so an editor can drive them from its event loop; the
 * server can also run on a thread of its own. Neither is thread-safe: one
 * thread uses one object. */
#ifndef ENSEMBLE_SESSION_H
#define ENSEMBLE_SESSION_H

#include "undo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- server ----------------------------------------------------------------- */

typedef struct ens_server ens_server;

/* Called after each checkpoint (and at ens_server_free) with the document
 * at seq, for instance to write it back to its file. */
typedef void (*ens_server_checkpoint_fn)(const ens_doc *doc, uint64_t seq, void *user);

typedef struct {
  const char *endpoint;   /* where to bind, e.g. "tcp://127.0.0.1:7890" ("...:*" picks a port) */
  const char *store_path; /* the SQLite log; created when missing */
  /* The document a new store starts from (copied; may be NULL for an empty
   * document of kind doc_kind). Ignored when the store already holds one:
   * a restart continues the same document and sequence. */
  const ens_doc *initial;
  const char *doc_kind;        /* for an empty start; default "document" */
  uint32_t checkpoint_every;   /* entries between checkpoints; default 1000 */
  uint32_t log_keep;           /* entries kept before a checkpoint for catch-up; default 10000 */
  uint32_t heartbeat_ms;       /* clients ping this often; default 500 */
  uint32_t window;             /* unacknowledged transactions per client; default 64 */
  ens_server_checkpoint_fn on_checkpoint;
  void *user;
} ens_server_opts;

/* Opens the store, loads the document (last checkpoint plus the log after
 * it) and binds. The caller owns *out: ens_server_free. */
int ens_server_new(const ens_server_opts *opts, ens_server **out);

/* Waits up to timeout_ms (0: do not wait, -1: forever) for messages, then
 * handles every message that has arrived: one group commit for all the
 * transactions among them, then the acks and broadcasts. Returns 0, or a
 * negative error after which the server must be freed (its store failed:
 * nothing unacknowledged was promised, and a new server continues from the
 * store). */
int ens_server_poll(ens_server *server, int timeout_ms);

/* Runs ens_server_poll on a thread of its own until ens_server_stop. While
 * it runs, only ens_server_stop and ens_server_free may be called. */
int ens_server_start(ens_server *server);
/* Stops the thread; returns the error that stopped it early, if any. */
int ens_server_stop(ens_server *server);

/* A checkpoint now: snapshot at the head, log trimmed, on_checkpoint told. */
int ens_server_checkpoint(ens_server *server);

/* The server's copy of the document (borrowed; changes as it polls). */
const ens_doc *ens_server_doc(const ens_server *server);
uint64_t ens_server_head(const ens_server *server);  /* last durable seq */
uint64_t ens_server_epoch(const ens_server *server);
/* The bound endpoint with its real port ("tcp://127.0.0.1:40123"). */
const char *ens_server_endpoint(const ens_server *server);
/* Connected clients. */
size_t ens_server_client_count(const ens_server *server);

/* Stops the thread if running, takes a last checkpoint (on_checkpoint is
 * told), tells the clients it is going away, closes the store. */
void ens_server_free(ens_server *server);

/* --- client ----------------------------------------------------------------- */

typedef struct ens_session ens_session;

typedef enum {
  ENS_SESSION_CONNECTED = 1,    /* joined and caught up */
  ENS_SESSION_RECONNECTING = 2, /* the connection was lost; message says why */
  ENS_SESSION_RESET = 3,        /* the document was replaced by a snapshot:
                                   ens_session_doc and the undo manager are new */
  ENS_SESSION_JOINED = 4,       /* a collaborator appeared (site, name, colour) */
  ENS_SESSION_PRESENCE = 5,     /* a collaborator's presence changed */
  ENS_SESSION_LEFT = 6,         /* a collaborator left (site) */
  ENS_SESSION_REJECTED = 7,     /* the server refused one of ours: ctn, code, message, label;
                                   its effect has been taken off the document */
  ENS_SESSION_FAILED = 8,       /* the server refused us for good (code, message) */
  ENS_SESSION_ACKED = 9         /* one of ours is durable on the server: ctn, seq */
} ens_session_event_kind;

typedef struct {
  ens_session_event_kind kind;
  uint32_t site;
  const char *name; /* borrowed for the callback */
  uint32_t colour;
  const ens_id *selection;
  size_t selection_count;
  uint64_t ctn;
  uint64_t seq;        /* ACKED: its place in the server's order */
  int code;            /* REJECTED: a negative ENS_E code; FAILED: the protocol's code */
  const char *message; /* why */
  const char *label;   /* REJECTED: the transaction's label */
} ens_session_event;

typedef void (*ens_session_event_fn)(ens_session *session, const ens_session_event *event, void *user);

typedef struct {
  const char *endpoint; /* the server's, e.g. "tcp://127.0.0.1:7890" */
  const char *name;     /* shown to collaborators; may be NULL */
  uint32_t colour;      /* 0xRRGGBB */
  size_t undo_depth;    /* 0 = unlimited */
  ens_session_event_fn on_event;
  void *user;
  /* A ZeroMQ context to share (one I/O thread for many sessions, or the
   * host's own); NULL makes one for this session. A shared context is
   * borrowed and must outlive the session. */
  void *zmq_context;
} ens_session_opts;

/* A session that starts connecting at once; its document exists after the
 * first CONNECTED event. The caller owns *out: ens_session_free. */
int ens_session_new(const ens_session_opts *opts, ens_session **out);

/* Waits up to timeout_ms for the server and handles what arrived:
 * snapshot, entries, acks, rejects, presence; sends what waits; pings;
 * reconnects with backoff. Returns 0 or a negative error (ENS_EIO when the
 * server refused us for good). */
int ens_session_poll(ens_session *session, int timeout_ms);

/* The session's document (NULL before the first CONNECTED). Borrowed, and
 * replaced on RESET. Change it only through ens_session_commit, undo and
 * redo; observers may watch it. While a collaborator's change is put
 * beneath pending local ones, observers see the local ones taken off and
 * put back as ordinary applies. */
ens_doc *ens_session_doc(ens_session *session);
ens_undo *ens_session_undo_manager(ens_session *session);

/* One user action: applied at once through the undo manager, sent when
 * the window allows. The transaction is borrowed. */
int ens_session_commit(ens_session *session, const ens_txn *txn);
int ens_session_undo(ens_session *session, ens_undo_report *report);
int ens_session_redo(ens_session *session, ens_undo_report *report);

/* This user's selection, relayed to the others. */
int ens_session_set_selection(ens_session *session, const ens_id *ids, size_t count);

int ens_session_is_live(const ens_session *session); /* joined and caught up */
uint64_t ens_session_seq(const ens_session *session); /* last seq applied */
uint32_t ens_session_site(const ens_session *session);
size_t ens_session_pending(const ens_session *session); /* local transactions not yet acknowledged */

/* Drops the connection and starts over with hello, as after a fault
 * (tests, and an editor that knows its network changed). */
void ens_session_reconnect(ens_session *session);

/* Says bye and frees. Unacknowledged transactions are lost. */
void ens_session_free(ens_session *session);

#ifdef __cplusplus
}
#endif
#endif
