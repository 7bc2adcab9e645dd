/* Ensemble sessions: a server that orders every change to one document and
 * keeps it durable, and a client that joins it, applies its user's changes
 * at once and converges on the server's order (docs/protocol.md,
 * "Sessions"). Both run in the caller's thread through a poll function
 * with a timeout, so an editor can drive them from its event loop; the
 * server can also run on a thread of its own. Neither is thread-safe: one
 * thread uses one object. */
#ifndef ENSEMBLE_SESSION_H
#define ENSEMBLE_SESSION_H

#include "invite.h"
#include "undo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- keys (CurveZMQ) --------------------------------------------------------- */

/* Sessions are encrypted and authenticated with CurveZMQ when the server
 * has a key pair and a list of the client keys it lets in (docs/protocol.md,
 * "Security"). Keys travel as Z85 text: 40 characters for 32 bytes. */
#define ENS_KEY_LEN 40

typedef struct {
  char public_key[ENS_KEY_LEN + 1];
  char secret_key[ENS_KEY_LEN + 1];
} ens_keypair;

/* A new key pair (ENS_EIO when this libzmq has no CURVE). */
int ens_keypair_generate(ens_keypair *out);
/* Writes dir/ensemble.key (the secret key, mode 0600, atomically) and
 * dir/ensemble.pub (the public key). ENS_EEXISTS when either exists and
 * replace is 0. */
int ens_keypair_write(const char *dir, const ens_keypair *keys, int replace);
/* Reads dir/ensemble.key and derives the public key from it; refuses a key
 * file readable by others than its owner, and a dir/ensemble.pub that does
 * not match. */
int ens_keypair_read(const char *dir, ens_keypair *out);
/* A public key from a file holding one (an ensemble.pub) or, when arg is
 * 40 characters of Z85 and no such file exists, arg itself. */
int ens_public_key_read(const char *arg, char out[ENS_KEY_LEN + 1]);
/* 1 when text is a well-formed Z85 key of 40 characters. */
int ens_key_is_valid(const char *text);

/* The client keys a server lets in, each with the name it is known by.
 * File format: one "PUBLICKEY NAME" per line (the name is the rest of the
 * line, 1..64 bytes); '#' starts a comment line; blank lines are skipped. */
typedef struct ens_authorized_keys ens_authorized_keys;

ens_authorized_keys *ens_authorized_keys_new(void);
/* Parses a file's text; errors name the source and the line. */
int ens_authorized_keys_parse(const char *text, size_t len, const char *source, ens_authorized_keys **out);
int ens_authorized_keys_load(const char *path, ens_authorized_keys **out);
/* ENS_EEXISTS for a key already listed. */
int ens_authorized_keys_add(ens_authorized_keys *keys, const char *public_key, const char *name);
size_t ens_authorized_keys_count(const ens_authorized_keys *keys);
/* The name of a Z85 public key, or NULL when it is not listed. */
const char *ens_authorized_keys_find(const ens_authorized_keys *keys, const char *public_key);
void ens_authorized_keys_free(ens_authorized_keys *keys);

/* 1 for an endpoint only this machine can reach: tcp on 127.x.x.x, [::1]
 * or localhost; ipc; inproc. */
int ens_endpoint_is_local(const char *endpoint);

/* --- server ----------------------------------------------------------------- */

typedef struct ens_server ens_server;

/* Called after each checkpoint (and at ens_server_free) with the document
 * at seq, for instance to write it back to its file. */
typedef void (*ens_server_checkpoint_fn)(const ens_doc *doc, uint64_t seq, void *user);
/* One line about a client: joined, left, or dropped and why. */
typedef void (*ens_server_log_fn)(const char *line, void *user);

typedef struct {
  const char *endpoint;   /* where to bind, e.g. "tcp://127.0.0.1:7890" ("...:*" picks a port) */
  const char *store_path; /* the SQLite log; created when missing */
  /* The document a new store starts from (copied; may be NULL for an empty
   * document of kind doc_kind). Ignored when the store already holds one:
   * a restart continues the same document and sequence. */
  const ens_doc *initial;
  /* When initial is NULL and the store holds no document (it is new, or
   * its first start stopped before the first checkpoint): called with
   * user for the document to start from, which the server takes (NULL
   * in *doc: an empty one of doc_kind). A nonzero return is
   * ens_server_new's error. So a host reads its file only when the store
   * does not already hold the document. */
  int (*load_initial)(ens_doc **doc, void *user);
  /* The bytes of the file the first document was read from (borrowed for
   * ens_server_new): recorded as written at seq 0 in the same commit as
   * the first checkpoint (ens_server_file_check). */
  const void *initial_file;
  size_t initial_file_len;
  const char *doc_kind;        /* for an empty start; default "document" */
  uint32_t checkpoint_every;   /* entries between checkpoints; default 1000 */
  uint32_t log_keep;           /* entries kept before a checkpoint for catch-up; default 10000 */
  uint32_t heartbeat_ms;       /* clients ping this often; default 500 */
  uint32_t window;             /* unacknowledged transactions per client; default 256 */
  /* Bytes sent to one client and not yet read by it (it says in its pings)
   * beyond the snapshot it joined with; a client further behind is told
   * (error 5) and dropped. Default 64 MiB. */
  size_t max_unread;
  ens_server_checkpoint_fn on_checkpoint;
  void *user;
  /* Security (docs/protocol.md, "Security"). With secret_key (Z85) and
   * authorized_keys (copied; not empty), connections are CurveZMQ and only
   * the listed client keys get in; the key's name is the client's
   * presence name. Without them the server binds only endpoints local to
   * the machine (ens_endpoint_is_local) unless insecure is set. */
  const char *secret_key;
  const ens_authorized_keys *authorized_keys;
  int insecure;
  ens_server_log_fn on_log; /* may be NULL; called with user */
} ens_server_opts;

/* Opens the store, loads the document (last checkpoint plus the log after
 * it) and binds. The caller owns *out: ens_server_free. */
int ens_server_new(const ens_server_opts *opts, ens_server **out);

/* Waits up to timeout_ms (0: do not wait, -1: forever) for messages, then
 * handles every message that has arrived: one group commit for all the
 * transactions among them, then the acks and broadcasts. Returns 0, or a
 * negative error after which the server must be freed (its store failed:
 * nothing unacknowledged was promised, and a new server continues from the
 * store). A collaborator's change may wait up to a millisecond for a
 * client that was just sent something (docs/protocol.md, entries), and
 * goes out in a later poll: a host polls at least that often while
 * changes flow (the wait is capped to 1 ms while something waits). */
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

/* The host's own change, made outside any client (for instance what its
 * file was edited with while the server was down): applied to the
 * server's document, made durable and sent to the clients like theirs,
 * as a change of the host's site. Objects it inserts take ids of that
 * site (ens_server_host_site). txn is borrowed. Returns 0; the error that
 * refused it, the document unchanged; or a failure of the store, after
 * which the server must be freed (as for ens_server_poll). Not while the
 * server runs on its thread. */
int ens_server_commit(ens_server *server, const ens_txn *txn);
/* The host's site: taken (durably) the first time it is asked for, then
 * kept in the store. */
int ens_server_host_site(ens_server *server, uint32_t *site);

/* --- the host's file ---------------------------------------------------------
 * A host that keeps the document in a file (`ensemble serve FILE`) writes it
 * at checkpoints and records each write in the store: the checkpoint's seq,
 * the file's size and a hash of its bytes. A restart then tells whether the
 * file was edited while the server was down and, if so, what it held before
 * (the base of a three-way merge): the checkpoint a recorded write was made
 * from is kept in the store as long as the record names it. */

typedef enum {
  ENS_FILE_UNKNOWN = 0, /* nothing recorded: never written, or a store of an older version */
  ENS_FILE_SAME = 1,    /* the bytes are what was last written */
  ENS_FILE_CHANGED = 2  /* the bytes differ from what was last written: edited since */
} ens_file_state;

/* Right before the host replaces its file with bytes made from the
 * document of checkpoint seq (the seq on_checkpoint was given): records,
 * durably, that this write is under way. ENS_ENOTFOUND when the store
 * keeps no checkpoint of seq. */
int ens_server_file_writing(ens_server *server, uint64_t seq, const void *bytes, size_t len);
/* Right after: the write under way is what the file holds. */
int ens_server_file_written(ens_server *server);
/* Compares bytes (the file as it is now) with the last write recorded:
 * *state, *seq (the checkpoint it was written from; may be NULL) and,
 * when base is not NULL and the state is not UNKNOWN, *base: the document
 * written (the caller's). A write under way whose bytes the file holds
 * counts as done (the host stopped before ens_server_file_written). */
int ens_server_file_check(ens_server *server, const void *bytes, size_t len, ens_file_state *state, uint64_t *seq,
                          ens_doc **base);

/* Stops the thread if running, takes a last checkpoint (on_checkpoint is
 * told) and tells the clients it is going away. Returns 0, or why the
 * checkpoint failed: every acknowledged change is still in the store's
 * log, but on_checkpoint was not called. Then only ens_server_free may
 * be called, and takes no second checkpoint. */
int ens_server_shutdown(ens_server *server);

/* ens_server_shutdown unless it ran (its result is lost: call it first to
 * know), then frees everything and closes the store. */
void ens_server_free(ens_server *server);

/* Browsers (docs/protocol.md, "WebSocket"): HTTP on listen serves the web
 * client's files from web_root at /, the session at /ws (WebSocket,
 * subprotocol "ensemble", one binary message per protocol message) and
 * GET /status. With an invites file that lists anyone, a browser's first
 * message must carry a valid token (ens_invite_add), whose name becomes
 * the browser's; the file is read again when it changes, and connections
 * of a revoked token are dropped. Without invites, listen must be local to
 * the machine unless insecure is set. */
typedef struct {
  const char *listen;     /* "ADDR:PORT" or "[ADDR]:PORT"; port 0: the kernel chooses */
  const char *cert, *key; /* PEM files: TLS (https, wss); both or neither */
  const char *web_root;   /* the web client's files; NULL: only /ws and /status */
  const char *invites;    /* the invites file; NULL: none */
  int insecure;
} ens_server_http_opts;

/* Starts the HTTP endpoint beside the server's ZeroMQ one (once, before
 * the server's first poll; its own thread). 0 or ENS_EINVAL (bad
 * options), ENS_EIO (cannot bind, certificate unreadable), ENS_EDECODE (a
 * malformed invites file). */
int ens_server_http(ens_server *server, const ens_server_http_opts *opts);
/* The HTTP port bound, 0 without HTTP. */
int ens_server_http_port(const ens_server *server);

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
  ENS_SESSION_FAILED = 8,       /* the server refused us for good (code, message): another
                                   protocol version (1), or our key (9) */
  ENS_SESSION_ACKED = 9,        /* one of ours is durable on the server: ctn, seq */
  ENS_SESSION_DROPPED = 10,     /* one of ours (ctn, seq, label) was applied without `dropped`
                                   of its operations: they edit what a collaborator had deleted
                                   by then; the rest stands (its ACKED follows) */
  ENS_SESSION_LANDED = 11       /* a collaborator's transaction was applied here: seq, site,
                                   ctn, label, ops, and committed_us when its author said when */
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
  int code;            /* REJECTED: a negative ENS_E code (ENS_EINVAL when the server's names
                          none); FAILED: the protocol's code */
  const char *message; /* why */
  const char *label;   /* REJECTED, DROPPED, LANDED: the transaction's label */
  size_t dropped;      /* DROPPED: how many operations were left out */
  size_t ops;          /* LANDED: its operations */
  /* LANDED: when its author committed it, microseconds since 1970 on the
   * author's clock (so a latency across machines is only as good as their
   * clocks agree); 0 when unknown (a catch-up entry, an older client) */
  uint64_t committed_us;
  /* LANDED: the transaction as it applied here (borrowed for the callback),
   * so that a host can tell who changed what */
  const ens_txn *txn;
  /* JOINED, PRESENCE: where the collaborator points, when has_pointer:
   * pointer_x, pointer_y in the coordinates of pointer_ctx, the object
   * they are in (a glyph, say; 0: the document) */
  int has_pointer;
  double pointer_x, pointer_y;
  ens_id pointer_ctx;
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
  /* CurveZMQ: the server's public key and this client's key pair (Z85).
   * With server_key set, secret_key is required (public_key is derived
   * when NULL). A server that does not list our key refuses the
   * handshake: FAILED, code 9, and nothing is ever received. */
  const char *server_key;
  const char *public_key;
  const char *secret_key;
  /* The client id (16 bytes, copied; docs/protocol.md, "client") to say
   * hello with, as one kept from an earlier session so that its site and
   * transaction numbers stay its own; NULL draws a random one. Sixteen
   * zero bytes are the host's: ENS_EINVAL. Two live sessions must never
   * share one (each hello replaces the other's connection). */
  const unsigned char *client_id;
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
 * put back as ordinary applies (not when all of them only set properties
 * and it sets others only: it then applies on top, to the same result). */
ens_doc *ens_session_doc(ens_session *session);
ens_undo *ens_session_undo_manager(ens_session *session);

/* One user action: applied at once through the undo manager, sent when
 * the window allows. The transaction is borrowed. ENS_EINVAL before the
 * session has a document. */
int ens_session_commit(ens_session *session, const ens_txn *txn);
/* As ens_undo_undo and ens_undo_redo on the session's undo manager, the
 * step sent as a change of its own. Before the session has a document:
 * ENS_EEMPTY, with report (when not NULL) cleared. */
int ens_session_undo(ens_session *session, ens_undo_report *report);
int ens_session_redo(ens_session *session, ens_undo_report *report);

/* This user's selection, relayed to the others. */
int ens_session_set_selection(ens_session *session, const ens_id *ids, size_t count);
/* Where this user points (x, y in the coordinates of ctx, an object such
 * as a glyph, or 0 for the document), relayed to the others with the
 * selection. Pointers move often: the latest point goes out at the next
 * poll, not every one. ENS_EINVAL for a coordinate that is not finite.
 * Clearing says the pointer left (the others see none). */
int ens_session_set_pointer(ens_session *session, double x, double y, ens_id ctx);
void ens_session_clear_pointer(ens_session *session);

int ens_session_is_live(const ens_session *session); /* joined and caught up */
uint64_t ens_session_seq(const ens_session *session); /* last seq applied */
uint32_t ens_session_site(const ens_session *session);
/* The name the others see this session by: the server's, given in the
 * welcome when it names its clients itself (the key's name with CurveZMQ,
 * the invite's on a WebSocket), else opts->name. Borrowed until the next
 * call that handles a message. */
const char *ens_session_name(const ens_session *session);
/* Gives doc (a copy of the session's document, say; not owned) the
 * session's site and the floor of its ids, so that the ids doc hands out
 * are ones the site never made: ens_doc_set_site alone starts above the
 * document's own ids, and a site the server takes back from an idle
 * client and hands on comes with a floor (docs/protocol.md, "Sites"). */
void ens_session_set_doc_site(const ens_session *session, ens_doc *doc);
/* The history the document belongs to (0 before the first CONNECTED): the
 * server's store chooses it when it is created, so two sessions with one
 * epoch hold one document whose ids mean the same objects. A new history
 * (a replaced store) is taken with its snapshot, at RESET. */
uint64_t ens_session_epoch(const ens_session *session);
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
