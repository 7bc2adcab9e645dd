/* The session client (docs/design.md, "Concurrency"; docs/protocol.md): one DEALER
 * connection at a time; hello with what it holds; catch-up from a snapshot
 * or the log; the user's changes applied at once and queued (pending.c);
 * acks, rejects and collaborators' changes in the server's order; a gap,
 * a silence or an error means a new connection and a new hello, never a
 * skip. */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "../model/doc.h"
#include "../util/error.h"
#include "../util/random.h"
#include "ensemble/format.h"
#include "ensemble/session.h"
#include "client_int.h"
#include "net.h"
#include "pending.h"

#define BACKOFF_MIN 100
#define BACKOFF_MAX 5000
#define MAX_SNAPSHOT (512u << 20)
#define REPORT_EVERY (256u << 10) /* bytes read between pings that say so, beside the heartbeat */
#define POLL_BUDGET 4096 /* entries (or other messages) one ens_session_poll handles at most */

typedef enum { S_DOWN, S_HELLO, S_SNAPSHOT, S_CATCHUP, S_LIVE, S_FAILED } s_state;

struct ens_session {
  ens_session_opts opts;
  char *endpoint, *name;
  void *ctx, *sock;
  void *monitor; /* events of sock's connection: handshake refused, disconnected */
  int rcvtimeo;  /* sock's ZMQ_RCVTIMEO as last set (-1, ZeroMQ's default, when new) */
  int own_ctx;
  int curve;
  char server_key[ENS_KEY_LEN + 1], public_key[ENS_KEY_LEN + 1], secret_key[ENS_KEY_LEN + 1];
  unsigned char client[ENS_CLIENT_ID_LEN];
  ens_doc *doc;
  ens_undo *undo;
  int observer;
  ens__pending pend;
  uint64_t next_ctn;
  uint32_t site;
  uint64_t floor;       /* our ids' counters lie above it (the welcome's, or known_floor's) */
  uint32_t known_site;  /* ens__session_id_floor: ids of this site we may have made before... */
  uint64_t known_floor; /* ...have counters up to this */
  char shown[ENS_MAX_NAME + 1]; /* the welcome's name: the server shows us by it */
  int has_shown;
  uint64_t epoch, seq;  /* what the document holds (0, 0 asks for a snapshot) */
  uint64_t server_epoch; /* the history our transaction numbers belong to */
  s_state state;
  uint64_t welcome_head, welcome_ctn;
  uint32_t window, heartbeat_ms;
  int64_t last_recv, last_send, last_ping, next_attempt;
  uint64_t received, reported; /* bytes received on this connection; the last count a ping told */
  uint64_t mark;               /* the latest pong's mark, echoed by pings: the server's proof we read */
  uint32_t backoff;
  ens_buf snap;
  uint64_t snap_seq, snap_count, snap_next;
  struct s_run *run; /* entries waiting to be applied together (s_on_entries), allocated when first needed */
  int budget;        /* entries and messages one poll may still handle */
  ens_id *sel;
  size_t nsel;
  int presence_dirty;
  int has_pointer; /* where our user points: px, py in pctx */
  double px, py;
  ens_id pctx;
  uint32_t *sites; /* collaborators seen */
  size_t nsites;
  uint64_t token;
  ens_buf scratch;
  int err; /* an error inside the observer, reported by the next call */
  /* detached (client_int.h): no socket; what is sent goes to wire, and
   * the clock is the caller's */
  ens__session_wire_fn wire;
  void *wire_user;
  int linked;  /* detached: the connection is open */
  int64_t now; /* detached: the caller's last time */
};

static int64_t s_now(const ens_session *s) { return s->wire ? s->now : ens__now_ms(); }

/* A connection is open (a socket, or a detached session's link). */
static int s_open(const ens_session *s) { return s->sock != NULL || s->linked; }

static void s_event(ens_session *s, ens_session_event *ev) {
  if (s->opts.on_event) s->opts.on_event(s, ev, s->opts.user);
}

static void s_event_simple(ens_session *s, ens_session_event_kind kind, const char *message) {
  ens_session_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = kind;
  ev.message = message;
  s_event(s, &ev);
}

/* --- connection ----------------------------------------------------------------- */

static int s_send(ens_session *s, const ens__msg *m) {
  if (!s_open(s)) return ENS_EIO;
  int rc;
  if (s->wire) {
    s->scratch.len = 0;
    rc = ens__msg_encode(m, &s->scratch);
    if (rc == 0 && s->wire(s->scratch.data, s->scratch.len, s->wire_user))
      rc = ens__error(ENS_EIO, "send: the connection takes nothing now");
  } else {
    rc = ens__net_send_msg(s->sock, NULL, 0, m, &s->scratch);
  }
  if (rc == 0) s->last_send = s_now(s);
  return rc;
}

static ens__msg *s_msg(ens__msg_type type) {
  static _Thread_local ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = type;
  return &m;
}

static void s_close(ens_session *s) {
  /* the monitor stops before its reader goes: libzmq sends its events
   * from the context's I/O thread with a blocking send, so an event after
   * the reader is closed (the server closing the connection just as we
   * drop it) would stop every socket of the context for good (libzmq
   * issue 3575) */
  if (s->sock) zmq_socket_monitor(s->sock, NULL, 0);
  if (s->sock) zmq_close(s->sock);
  if (s->monitor) zmq_close(s->monitor);
  s->sock = s->monitor = NULL;
  s->linked = 0;
}

static void s_drop(ens_session *s, const char *why);

/* The server refused us for good: no retry. */
static void s_fail(ens_session *s, int code, const char *why) {
  s_close(s);
  s->state = S_FAILED;
  ens_session_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ENS_SESSION_FAILED;
  ev.code = code;
  ev.message = why;
  s_event(s, &ev);
}

/* Watches the connection's life through a socket monitor: libzmq keeps a
 * refused handshake or a closed connection to itself otherwise, and the
 * client would learn of it only from the silence. */
static int s_monitor_start(ens_session *s) {
  /* unique in the process: a closed socket's monitor endpoint is released
   * later, by ZeroMQ's reaper, and a session may share its context */
  static atomic_uint counter;
  char ep[96];
  snprintf(ep, sizeof ep, "inproc://ensemble-session-monitor-%u", atomic_fetch_add(&counter, 1));
  int events = ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
               ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
  if (zmq_socket_monitor(s->sock, ep, events) != 0) return ens__error(ENS_EIO, "zmq monitor: %s", zmq_strerror(errno));
  s->monitor = zmq_socket(s->ctx, ZMQ_PAIR);
  int zero = 0;
  if (!s->monitor || zmq_setsockopt(s->monitor, ZMQ_LINGER, &zero, sizeof zero) || zmq_connect(s->monitor, ep) != 0)
    return ens__error(ENS_EIO, "zmq monitor: %s", zmq_strerror(errno));
  return 0;
}

/* Handles the monitor's events; the session may be down or failed after. */
static void s_monitor_read(ens_session *s) {
  while (s->monitor) {
    zmq_msg_t head, addr;
    zmq_msg_init(&head);
    if (zmq_msg_recv(&head, s->monitor, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&head);
      return;
    }
    uint16_t event = 0;
    uint32_t value = 0;
    if (zmq_msg_size(&head) >= 6) {
      memcpy(&event, zmq_msg_data(&head), 2);
      memcpy(&value, (char *)zmq_msg_data(&head) + 2, 4);
    }
    int more = zmq_msg_more(&head);
    zmq_msg_close(&head);
    if (more) {
      zmq_msg_init(&addr);
      zmq_msg_recv(&addr, s->monitor, 0);
      zmq_msg_close(&addr);
    }
    switch (event) {
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: s_fail(s, ENS_PERR_DENIED, "refused by the server (unknown key?)"); return;
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
      if (value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH) {
        s_fail(s, ENS_PERR_DENIED, s->curve ? "the server does not use encryption, this client does"
                                            : "the server wants encryption: its public key and a key pair are needed");
        return;
      }
      s_drop(s, "the handshake with the server failed (a wrong server key?)");
      return;
    case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL: s_drop(s, "the handshake with the server failed"); return;
    case ZMQ_EVENT_DISCONNECTED: s_drop(s, "the server closed the connection"); return;
    default: break;
    }
  }
}

/* Drops the connection; the next attempt comes after the backoff. */
static void s_drop(ens_session *s, const char *why) {
  if (s->state == S_FAILED) return;
  s_close(s);
  s->state = S_DOWN;
  /* detached, no jitter: the caller's script of calls always does the same */
  uint32_t jitter = s->wire ? 0 : (uint32_t)(ens__random_u64() % (s->backoff / 2 + 1));
  s->next_attempt = s_now(s) + s->backoff / 2 + jitter;
  s->backoff = s->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : s->backoff * 2;
  s_event_simple(s, ENS_SESSION_RECONNECTING, why);
}

static int s_socket(ens_session *s) {
  s->sock = zmq_socket(s->ctx, ZMQ_DEALER);
  if (!s->sock) return ens__error(ENS_EIO, "zmq socket: %s", zmq_strerror(errno));
  s->rcvtimeo = -1;
  int zero = 0, hwm = 200000;
  int64_t maxmsg = ENS_MAX_MESSAGE + ENS_SNAPSHOT_CHUNK;
  zmq_setsockopt(s->sock, ZMQ_LINGER, &zero, sizeof zero);
  zmq_setsockopt(s->sock, ZMQ_RCVHWM, &hwm, sizeof hwm);
  zmq_setsockopt(s->sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(s->sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
  if (s->curve && (zmq_setsockopt(s->sock, ZMQ_CURVE_SERVERKEY, s->server_key, ENS_KEY_LEN + 1) ||
                   zmq_setsockopt(s->sock, ZMQ_CURVE_PUBLICKEY, s->public_key, ENS_KEY_LEN + 1) ||
                   zmq_setsockopt(s->sock, ZMQ_CURVE_SECRETKEY, s->secret_key, ENS_KEY_LEN + 1))) {
    int rc = ens__error(ENS_EIO, "cannot turn encryption on: %s", zmq_strerror(errno));
    s_close(s);
    return rc;
  }
  int rc = s_monitor_start(s);
  if (rc) {
    s_close(s);
    return rc;
  }
  if (zmq_connect(s->sock, s->endpoint) != 0) {
    rc = ens__error(ENS_EIO, "connect %s: %s", s->endpoint, zmq_strerror(errno));
    s_close(s);
    return rc;
  }
  return 0;
}

static int s_connect(ens_session *s) {
  if (s->wire) {
    s->linked = 1;
  } else {
    int rc = s_socket(s);
    if (rc) return rc;
  }
  ens__msg *m = s_msg(ENS_MSG_HELLO);
  m->vmin = ENS_PROTO_VERSION_MIN;
  m->vmax = ENS_PROTO_VERSION;
  memcpy(m->client, s->client, ENS_CLIENT_ID_LEN);
  m->epoch = s->doc ? s->epoch : 0;
  m->seq = s->doc ? s->seq : 0;
  s->state = S_HELLO;
  s->last_recv = s_now(s);
  s->received = s->reported = 0;
  s->mark = 0;
  s->snap.len = 0;
  return s_send(s, m);
}

static void s_ping(ens_session *s) {
  ens__msg *m = s_msg(ENS_MSG_PING);
  m->token = ++s->token;
  m->received = s->received;
  m->has_received = 1;
  m->mark = s->mark;
  if (s_send(s, m) == 0) {
    s->last_ping = s_now(s);
    s->reported = s->received;
  }
}

/* --- the document and its observer ------------------------------------------------- */

static void s_observe(ens_doc *doc, const ens_event *ev, void *user) {
  (void)doc;
  ens_session *s = user;
  if (s->pend.rebasing || !ev->sendable || ens_txn_op_count(ev->txn) == 0) return;
  int rc = ens__pending_push(&s->pend, s->next_ctn, ev->txn, ev->inverse);
  if (rc == 0 && !ev->inverse) rc = ens__error(ENS_EINVAL, "a change without its inverse cannot be rebased");
  if (rc) s->err = rc;
  else s->next_ctn++;
}

static int s_adopt(ens_session *s, ens_doc *doc) {
  ens_undo *undo = ens_undo_new(doc, s->opts.undo_depth);
  if (!undo) return ENS_ENOMEM;
  int h = ens_doc_observe(doc, s_observe, s);
  if (h < 0) {
    ens_undo_free(undo);
    return h;
  }
  ens_undo_free(s->undo);
  ens_doc_free(s->doc);
  s->doc = doc;
  s->undo = undo;
  s->observer = h;
  return 0;
}

/* The document no longer matches the server's (a remote change does not
 * apply): start over from a snapshot. */
static void s_diverged(ens_session *s, const char *why) {
  s->epoch = 0; /* asks for a snapshot */
  s->seq = 0;
  s_drop(s, why);
}

/* --- pending: sending, acks, rejects ------------------------------------------------- */

static void s_send_pending(ens_session *s) {
  if (s->state != S_CATCHUP && s->state != S_LIVE) return;
  /* The sent ones are a prefix of the queue: they go out in order, leave
   * it from the head, and a welcome marks sent exactly those up to its
   * last_ctn. So the first unsent one is found by bisection rather than
   * by walking a whole window on every commit. */
  size_t lo = 0, hi = s->pend.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->pend.items[mid].sent) lo = mid + 1;
    else hi = mid;
  }
  size_t inflight = lo;
  for (size_t i = lo; i < s->pend.n; i++) {
    ens__pend *p = &s->pend.items[i];
    if (inflight >= s->window) break;
    ens__msg *m = s_msg(ENS_MSG_TXN);
    m->ctn = p->ctn;
    m->bytes = p->bytes;
    m->nbytes = p->len;
    m->time_us = p->time_us;
    m->has_time = 1;
    if (s_send(s, m)) {
      s_drop(s, "send failed");
      return;
    }
    p->sent = 1;
    inflight++;
  }
}

static void s_reject_head(ens_session *s, int code, const char *why) {
  ens__pend *p = &s->pend.items[0];
  char label[128];
  snprintf(label, sizeof label, "%s", ens__pending_label(&s->pend, 0));
  uint64_t ctn = p->ctn;
  int rc = ens__pending_reject_head(&s->pend);
  ens_session_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ENS_SESSION_REJECTED;
  ev.ctn = ctn;
  ev.code = code;
  ev.message = why;
  ev.label = label;
  s_event(s, &ev);
  if (rc) s_diverged(s, "a rejected change did not come off");
}

/* Pending ones the server decided on while we were away and that are not
 * in the catch-up were rejected then (protocol.md, resume). */
static void s_drop_stale(ens_session *s, uint64_t before) {
  while (s->pend.n && s->pend.items[0].ctn < before && s->pend.items[0].ctn <= s->welcome_ctn &&
         s->state != S_FAILED && s->state != S_DOWN)
    s_reject_head(s, ENS_EINVAL, "rejected while disconnected");
}

static void s_caught_up(ens_session *s) {
  if (s->state != S_CATCHUP || s->seq < s->welcome_head) return;
  s_drop_stale(s, s->welcome_ctn + 1);
  if (s->state != S_CATCHUP) return;
  s->state = S_LIVE;
  s->backoff = BACKOFF_MIN;
  s->presence_dirty = 1;
  s_event_simple(s, ENS_SESSION_CONNECTED, NULL);
}

static int s_on_welcome(ens_session *s, const ens__msg *m) {
  if (s->state != S_HELLO) {
    s_drop(s, "unexpected welcome");
    return 0;
  }
  s->site = (uint32_t)m->site;
  s->floor = m->floor;
  /* ids this client id made under this site before (a reloaded page):
   * the document may no longer hold them, but a collaborator's undo may
   * bring them back, so they are never made again */
  if (s->known_site && s->known_site == s->site && s->known_floor > s->floor) s->floor = s->known_floor;
  s->has_shown = m->has_name;
  if (m->has_name) {
    memcpy(s->shown, m->text, m->ntext);
    s->shown[m->ntext] = '\0';
  }
  s->welcome_head = m->seq;
  s->welcome_ctn = m->ctn;
  s->window = m->window > 4096 ? 4096 : (uint32_t)m->window;
  s->heartbeat_ms = m->heartbeat_ms < 50 ? 50 : m->heartbeat_ms > 60000 ? 60000 : (uint32_t)m->heartbeat_ms;
  if (s->server_epoch && m->epoch != s->server_epoch) {
    /* another history (the server's store was replaced): it has seen none
     * of ours, so they are numbered again after what it knows of us */
    for (size_t i = 0; i < s->pend.n; i++) s->pend.items[i].ctn = m->ctn + 1 + i;
    s->next_ctn = m->ctn + 1 + s->pend.n;
  }
  for (size_t i = 0; i < s->pend.n; i++) s->pend.items[i].sent = s->pend.items[i].ctn <= m->ctn;
  if (s->next_ctn <= m->ctn) s->next_ctn = m->ctn + 1; /* never reuse a number the server has seen */
  s->server_epoch = m->epoch;
  if (m->mode == 1) {
    /* the epoch goes with the snapshot: until it has come whole, the
     * document and what a hello says are still the old history's */
    s->state = S_SNAPSHOT;
    s->snap.len = 0;
    s->snap_next = 0;
    return 0;
  }
  if (!s->doc || m->epoch != s->epoch || m->seq < s->seq) {
    s_diverged(s, "the server answered with a log we cannot continue");
    return 0;
  }
  if (ens_doc_site(s->doc) != s->site) ens_doc_set_site(s->doc, s->site);
  ens__doc_id_floor(s->doc, s->floor);
  s->state = S_CATCHUP;
  s_caught_up(s);
  return 0;
}

static int s_on_snapshot(ens_session *s, const ens__msg *m) {
  if (s->state != S_SNAPSHOT || m->index != s->snap_next || (m->index && (m->seq != s->snap_seq || m->count != s->snap_count)) ||
      s->snap.len + m->nbytes > MAX_SNAPSHOT) {
    s_drop(s, "snapshot chunks out of order");
    return 0;
  }
  s->snap_seq = m->seq;
  s->snap_count = m->count;
  s->snap_next++;
  ens__buf_append(&s->snap, m->bytes, m->nbytes);
  if (s->snap.oom) return ens__error(ENS_ENOMEM, "out of memory receiving a snapshot");
  if (s->snap_next < s->snap_count) return 0;
  ens_doc *doc;
  int rc = ens_snapshot_decode(s->snap.data, s->snap.len, &doc);
  if (rc == 0 && (rc = ens_format_attach(doc))) ens_doc_free(doc); /* our changes meet the server's rules here first */
  s->snap.len = 0;
  if (rc) {
    s_drop(s, "the snapshot does not decode");
    return 0;
  }
  ens_doc_set_site(doc, s->site);
  ens__doc_id_floor(doc, s->floor);
  int had = s->doc != NULL;
  ens__pending_rebase_onto(&s->pend, doc, NULL, s->welcome_ctn);
  if ((rc = s_adopt(s, doc))) {
    ens_doc_free(doc);
    return rc;
  }
  s->pend.undo = s->undo;
  s->epoch = s->server_epoch; /* the welcome's, on this connection */
  s->seq = s->snap_seq;
  s->state = S_CATCHUP;
  if (had) s_event_simple(s, ENS_SESSION_RESET, NULL);
  s_caught_up(s);
  return 0;
}

/* The next seq must follow the last: anything else is a gap. */
static int s_in_order(ens_session *s, uint64_t seq) {
  if ((s->state != S_CATCHUP && s->state != S_LIVE) || seq != s->seq + 1) {
    s_drop(s, "gap in the sequence");
    return 0;
  }
  return 1;
}

static void s_accept(ens_session *s, uint64_t ctn) {
  s_drop_stale(s, ctn);
  if (!s->pend.n || s->pend.items[0].ctn != ctn || !s->pend.items[0].sent) {
    s_drop(s, "an ack for a transaction not sent");
    return;
  }
  s->seq++;
  char label[128] = "";
  size_t dropped = 0;
  if (ens__pending_accept_head(&s->pend, &dropped, label, sizeof label)) {
    s_diverged(s, ens_error_last());
    return;
  }
  ens_session_event ev;
  if (dropped) { /* an edit of a deleted object is dropped and reported to its author (docs/design.md) */
    memset(&ev, 0, sizeof ev);
    ev.kind = ENS_SESSION_DROPPED;
    ev.ctn = ctn;
    ev.seq = s->seq;
    ev.dropped = dropped;
    ev.label = label;
    ev.message = "a collaborator deleted what they edit";
    s_event(s, &ev);
  }
  memset(&ev, 0, sizeof ev);
  ev.kind = ENS_SESSION_ACKED;
  ev.ctn = ctn;
  ev.seq = s->seq;
  s_event(s, &ev);
}

/* Tells the user that a collaborator's transaction t (entry e) landed. */
static void s_landed(ens_session *s, const ens__entry_item *e, const ens_txn *t) {
  if (!s->opts.on_event) return;
  ens_session_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ENS_SESSION_LANDED;
  ev.site = (uint32_t)e->site;
  ev.ctn = e->ctn;
  ev.seq = e->seq;
  ev.label = ens_txn_label(t);
  ev.ops = ens_txn_op_count(t);
  ev.committed_us = e->has_time ? e->time_us : 0;
  ev.txn = t;
  s_event(s, &ev);
}

/* One entry in the server's order: a collaborator's transaction, or in
 * catch-up (or as an item of an entries message) our own, which acks it. */
static int s_on_entry(ens_session *s, const ens__entry_item *e) {
  if (!s_in_order(s, e->seq)) return 0;
  if (e->site == s->site && s->pend.n && e->ctn >= s->pend.items[0].ctn) {
    s_accept(s, e->ctn);
  } else if (e->is_ack) {
    s_drop(s, "an ack for a transaction not sent");
    return 0;
  } else {
    ens_txn *t;
    if (ens_txn_decode(e->txn, e->len, &t)) {
      s_diverged(s, "an entry does not decode");
      return 0;
    }
    s->seq++;
    int rc = ens__pending_remote(&s->pend, t);
    if (rc == 0) s_landed(s, e, t);
    ens_txn_free(t);
    if (rc == ENS_ENOMEM) return rc;
    if (rc) s_diverged(s, "a collaborator's change does not apply here");
  }
  s_caught_up(s);
  return 0;
}

/* A run of collaborators' entries from one entries message, decoded and
 * waiting to go beneath the pending ones together. */
#define RUN_MAX 256
typedef struct s_run {
  ens_txn *txn[RUN_MAX];
  ens__entry_item item[RUN_MAX];
  size_t n;
} s_run;

static void s_run_free(s_run *run) {
  for (size_t i = 0; i < run->n; i++) ens_txn_free(run->txn[i]);
  run->n = 0;
}

/* Applies the run beneath the pending ones in one pass, then tells the
 * user of each as if it had come alone. */
static int s_run_apply(ens_session *s, s_run *run) {
  if (!run->n) return 0;
  size_t applied = 0;
  int rc = ens__pending_remote_run(&s->pend, (const ens_txn *const *)run->txn, run->n, &applied);
  s->seq += applied;
  for (size_t i = 0; i < applied; i++) s_landed(s, &run->item[i], run->txn[i]);
  s_run_free(run);
  if (rc == ENS_ENOMEM) return rc;
  if (rc) {
    s_diverged(s, "a collaborator's change does not apply here");
    return 0;
  }
  s_caught_up(s);
  return 0;
}

/* Entries and acks of one server group in one message (version 2), each
 * as if it had come alone, until one of them ends the connection; runs
 * of collaborators' entries between our own go beneath the pending ones
 * together. */
static int s_on_entries(ens_session *s, const ens__msg *m) {
  if (!s->run && !(s->run = calloc(1, sizeof *s->run))) return ens__error(ENS_ENOMEM, "out of memory reading entries");
  s_run *run = s->run;
  ens__entries_reader r;
  ens__entry_item e;
  int rc = 0;
  ens__entries_begin(m, &r);
  while (rc == 0 && (s->state == S_CATCHUP || s->state == S_LIVE) && ens__entries_next(&r, &e)) {
    s->budget--;
    int ours = e.is_ack || (e.site == s->site && s->pend.n && e.ctn >= s->pend.items[0].ctn);
    if (ours || run->n == RUN_MAX) {
      rc = s_run_apply(s, run);
      if (rc || (s->state != S_CATCHUP && s->state != S_LIVE)) break;
    }
    if (ours) {
      rc = s_on_entry(s, &e);
      continue;
    }
    if (e.seq != s->seq + run->n + 1 || (s->state != S_CATCHUP && s->state != S_LIVE)) {
      s_drop(s, "gap in the sequence");
      break;
    }
    ens_txn *t;
    if (ens_txn_decode(e.txn, e.len, &t)) {
      s_diverged(s, "an entry does not decode");
      break;
    }
    if (run->n == 0) {
      /* on top at once when nothing waits beneath and it commutes with
       * the pending ones: applied and freed before the next one is
       * decoded, whose allocations then reuse its memory (decoding a whole
       * run first spent more in malloc than in decoding) */
      int on_top = 0;
      rc = ens__pending_remote_on_top(&s->pend, t, &on_top);
      if (rc == 0 && on_top) {
        s->seq++;
        s_landed(s, &e, t);
        ens_txn_free(t);
        s_caught_up(s);
        continue;
      }
      if (rc) {
        ens_txn_free(t);
        if (rc != ENS_ENOMEM) {
          s_diverged(s, "a collaborator's change does not apply here");
          rc = 0;
        }
        break;
      }
    }
    run->txn[run->n] = t;
    run->item[run->n++] = e;
  }
  if (rc == 0 && (s->state == S_CATCHUP || s->state == S_LIVE)) rc = s_run_apply(s, run);
  s_run_free(run);
  return rc;
}

static void s_on_presence(ens_session *s, const ens__msg *m) {
  int known = 0;
  for (size_t i = 0; i < s->nsites; i++) known |= s->sites[i] == m->site;
  if (!known) {
    uint32_t *n = realloc(s->sites, (s->nsites + 1) * sizeof *n);
    if (n) {
      s->sites = n;
      s->sites[s->nsites++] = (uint32_t)m->site;
    }
  }
  char name[ENS_MAX_NAME + 1];
  memcpy(name, m->text, m->ntext);
  name[m->ntext] = '\0';
  ens_session_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = known ? ENS_SESSION_PRESENCE : ENS_SESSION_JOINED;
  ev.site = (uint32_t)m->site;
  ev.name = name;
  ev.colour = (uint32_t)m->colour;
  ev.selection = m->sel;
  ev.selection_count = m->nsel;
  ev.has_pointer = m->has_pointer;
  ev.pointer_x = m->px;
  ev.pointer_y = m->py;
  ev.pointer_ctx = m->pctx;
  s_event(s, &ev);
}

static void s_on_bye(ens_session *s, const ens__msg *m) {
  for (size_t i = 0; i < s->nsites; i++)
    if (s->sites[i] == m->site) {
      s->sites[i] = s->sites[--s->nsites];
      ens_session_event ev;
      memset(&ev, 0, sizeof ev);
      ev.kind = ENS_SESSION_LEFT;
      ev.site = (uint32_t)m->site;
      s_event(s, &ev);
      return;
    }
}

static int s_handle(ens_session *s, const void *data, size_t len) {
  static _Thread_local ens__msg m;
  if (ens__msg_decode(data, len, &m)) {
    s_drop(s, "a malformed message from the server");
    return 0;
  }
  s->last_recv = s_now(s);
  switch (m.type) {
  case ENS_MSG_WELCOME: return s_on_welcome(s, &m);
  case ENS_MSG_SNAPSHOT: return s_on_snapshot(s, &m);
  case ENS_MSG_ENTRY: {
    ens__entry_item e = {m.seq, m.site, m.ctn, m.time_us, m.has_time, 0, m.bytes, m.nbytes};
    return s_on_entry(s, &e);
  }
  case ENS_MSG_ENTRIES: return s_on_entries(s, &m);
  case ENS_MSG_ACK:
    if (s_in_order(s, m.seq)) {
      s_accept(s, m.ctn);
      s_caught_up(s);
    }
    return 0;
  case ENS_MSG_REJECT: {
    if (s->state != S_CATCHUP && s->state != S_LIVE) return 0;
    s_drop_stale(s, m.ctn);
    if (!s->pend.n || s->pend.items[0].ctn != m.ctn) {
      s_drop(s, "a reject for a transaction not sent");
      return 0;
    }
    char why[ENS_MAX_TEXT + 1];
    memcpy(why, m.text, m.ntext);
    why[m.ntext] = '\0';
    /* the library's code made positive (docs/protocol.md); 0 is no error
     * and must not reach the user as one that reads as success */
    s_reject_head(s, m.code >= 1 && m.code <= 64 ? -(int)m.code : ENS_EINVAL, why);
    return 0;
  }
  case ENS_MSG_PRESENCE: s_on_presence(s, &m); return 0;
  case ENS_MSG_BYE: s_on_bye(s, &m); return 0;
  case ENS_MSG_PONG:
    if (m.mark) s->mark = m.mark;
    return 0;
  case ENS_MSG_ERROR: {
    char why[ENS_MAX_TEXT + 1];
    memcpy(why, m.text, m.ntext);
    why[m.ntext] = '\0';
    if (m.code == ENS_PERR_VERSION || m.code == ENS_PERR_DENIED) {
      s_fail(s, (int)m.code, why);
      return 0;
    }
    s_drop(s, why);
    return 0;
  }
  default: s_drop(s, "a message a client does not take"); return 0;
  }
}

/* --- poll ----------------------------------------------------------------------- */

static void s_send_presence(ens_session *s) {
  if (!s->presence_dirty || s->state != S_LIVE) return;
  ens__msg *m = s_msg(ENS_MSG_PRESENCE);
  m->text = s->name;
  m->ntext = strlen(s->name);
  m->colour = s->opts.colour & 0xffffff;
  m->sel = s->sel;
  m->nsel = s->nsel;
  m->has_pointer = s->has_pointer;
  m->px = s->px;
  m->py = s->py;
  m->pctx = s->pctx;
  if (s_send(s, m) == 0) s->presence_dirty = 0;
}

/* Down, and the backoff has passed: a new connection and its hello. */
static void s_redial(ens_session *s, int64_t now) {
  if (s->state != S_DOWN || now < s->next_attempt) return;
  int rc = s_connect(s);
  if (rc) s_drop(s, ens_error_last());
}

/* One message read from the connection, and a ping when enough has been
 * read since the last one said so. */
static int s_receive(ens_session *s, const void *data, size_t len) {
  s->received += len;
  int rc = s_handle(s, data, len);
  if (rc) return rc;
  if (s_open(s) && s->state != S_HELLO && s->received - s->reported >= REPORT_EVERY) s_ping(s);
  return 0;
}

/* After reading: a silent server means a new connection; otherwise what
 * waits goes out. */
static void s_after_read(ens_session *s) {
  if (!s_open(s)) return;
  int64_t now = s_now(s);
  int64_t hb = s->heartbeat_ms ? s->heartbeat_ms : 500;
  if (now - s->last_recv > 3 * hb + 500) {
    s_drop(s, "the server is silent");
    return;
  }
  s_send_pending(s);
  s_send_presence(s);
  /* a ping every heartbeat, busy or not: it tells the server how much
   * we have read, which bounds what it queues for us */
  if (s_open(s) && s->state != S_HELLO && now - s->last_ping >= hb) s_ping(s);
}

static int s_take_err(ens_session *s) {
  int rc = s->err;
  s->err = 0;
  return rc;
}

int ens_session_poll(ens_session *s, int timeout_ms) {
  if (s->state == S_FAILED) return ens__error(ENS_EIO, "the server refused this session");
  int64_t now = s_now(s);
  if (s->state == S_DOWN) {
    if (now >= s->next_attempt) {
      s_redial(s, now);
    } else {
      int64_t wait = s->next_attempt - now;
      if (timeout_ms < 0 || wait < timeout_ms) timeout_ms = (int)wait;
    }
  }
  if (s->sock) {
    int64_t hb = s->heartbeat_ms ? s->heartbeat_ms : 500;
    if (timeout_ms < 0 || timeout_ms > hb) timeout_ms = (int)hb;
    /* The wait is a receive with a timeout on sock alone, not a zmq_poll
     * of sock and monitor: zmq_poll asks every socket for its events after
     * waking, a syscall each, before the first message is read, and under
     * load every client pays that on every message. */
    if (timeout_ms != s->rcvtimeo && zmq_setsockopt(s->sock, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms) == 0)
      s->rcvtimeo = timeout_ms;
    /* a bounded amount of work per poll, counted in entries: one message
     * may hold thousands, and an editor polls from its UI thread */
    s->budget = POLL_BUDGET;
    int handled = 0;
    while (s->budget > 0 && s->sock) {
      s->budget--;
      zmq_msg_t msg;
      zmq_msg_init(&msg);
      if (zmq_msg_recv(&msg, s->sock, handled || timeout_ms == 0 ? ZMQ_DONTWAIT : 0) < 0) {
        zmq_msg_close(&msg);
        break;
      }
      handled++;
      int rc = s_receive(s, zmq_msg_data(&msg), zmq_msg_size(&msg));
      zmq_msg_close(&msg);
      if (rc) return rc;
    }
    /* The monitor when nothing came: a refused handshake or a closed
     * connection means silence on sock, so it is seen within one wait;
     * and after the messages, so that an error the server sent before
     * closing comes first. While messages flow it is not read: an empty
     * read costs a syscall. */
    if (!handled) s_monitor_read(s);
  } else if (timeout_ms > 0) {
    zmq_poll(NULL, 0, timeout_ms);
  }
  int rc = s_take_err(s);
  if (rc) return rc;
  s_after_read(s);
  return 0;
}

/* --- detached (client_int.h) --------------------------------------------------------- */

int ens__session_handle(ens_session *s, const void *data, size_t len, int64_t now_ms) {
  s->now = now_ms;
  if (!s->linked) return 0;
  s->budget = POLL_BUDGET;
  int rc = s_receive(s, data, len);
  return rc ? rc : s_take_err(s);
}

int ens__session_tick(ens_session *s, int64_t now_ms) {
  s->now = now_ms;
  if (s->state == S_FAILED) return ens__error(ENS_EIO, "the server refused this session");
  s_redial(s, now_ms);
  int rc = s_take_err(s);
  if (rc) return rc;
  s_after_read(s);
  return 0;
}

void ens__session_link_lost(ens_session *s, const char *why, int64_t now_ms) {
  s->now = now_ms;
  if (s->linked) s_drop(s, why);
}

const ens__pending *ens__session_queue(const ens_session *s) { return &s->pend; }

void ens__session_id_floor(ens_session *s, uint32_t site, uint64_t counter) {
  s->known_site = site;
  s->known_floor = counter;
}

uint64_t ens__session_id_mark(const ens_session *s) {
  uint64_t mark = s->floor;
  if (s->doc && s->site && ens_doc_site(s->doc) == s->site && s->doc->counter > mark) mark = s->doc->counter;
  return mark;
}

/* --- the user's side -------------------------------------------------------------- */

static int s_after_local(ens_session *s, int rc) {
  if (s->err && !rc) rc = s->err;
  s->err = 0;
  if (rc == 0 && s_open(s)) s_send_pending(s);
  return rc;
}

int ens_session_commit(ens_session *s, const ens_txn *txn) {
  if (!s->doc) return ens__error(ENS_EINVAL, "the session has no document yet");
  return s_after_local(s, ens_undo_commit(s->undo, txn));
}

/* Before the first snapshot there is nothing to undo or redo: said as the
 * undo manager says it, with the report cleared as it clears it. */
static int s_nothing_yet(ens_undo_report *report) {
  if (report) memset(report, 0, sizeof *report);
  return ens__error(ENS_EEMPTY, "the session has no document yet");
}

int ens_session_undo(ens_session *s, ens_undo_report *report) {
  if (!s->doc) return s_nothing_yet(report);
  return s_after_local(s, ens_undo_undo(s->undo, report));
}

int ens_session_redo(ens_session *s, ens_undo_report *report) {
  if (!s->doc) return s_nothing_yet(report);
  return s_after_local(s, ens_undo_redo(s->undo, report));
}

int ens_session_set_selection(ens_session *s, const ens_id *ids, size_t count) {
  if (count > ENS_MAX_SELECTION) return ens__error(ENS_ELIMIT, "a selection of %zu objects, over %d", count, ENS_MAX_SELECTION);
  ens_id *n = malloc((count ? count : 1) * sizeof *n);
  if (!n) return ens__error(ENS_ENOMEM, "out of memory keeping a selection");
  for (size_t i = 0; i < count; i++) {
    if (!ids[i]) {
      free(n);
      return ens__error(ENS_EINVAL, "a selection holds id 0");
    }
    n[i] = ids[i];
  }
  free(s->sel);
  s->sel = n;
  s->nsel = count;
  s->presence_dirty = 1;
  s_send_presence(s);
  return 0;
}

int ens_session_set_pointer(ens_session *s, double x, double y, ens_id ctx) {
  if (!isfinite(x) || !isfinite(y)) return ens__error(ENS_EINVAL, "a pointer that is not a finite point");
  s->has_pointer = 1;
  s->px = x;
  s->py = y;
  s->pctx = ctx;
  s->presence_dirty = 1; /* sent by the next poll: one message for many moves */
  return 0;
}

void ens_session_clear_pointer(ens_session *s) {
  if (!s->has_pointer) return;
  s->has_pointer = 0;
  s->presence_dirty = 1;
}

ens_doc *ens_session_doc(ens_session *s) { return s->doc; }
ens_undo *ens_session_undo_manager(ens_session *s) { return s->undo; }
int ens_session_is_live(const ens_session *s) { return s->state == S_LIVE; }
uint64_t ens_session_seq(const ens_session *s) { return s->seq; }
uint32_t ens_session_site(const ens_session *s) { return s->site; }
const char *ens_session_name(const ens_session *s) { return s->has_shown ? s->shown : s->name; }

void ens_session_set_doc_site(const ens_session *s, ens_doc *doc) {
  ens_doc_set_site(doc, s->site);
  ens__doc_id_floor(doc, s->floor);
}
uint64_t ens_session_epoch(const ens_session *s) { return s->epoch; }
size_t ens_session_pending(const ens_session *s) { return s->pend.n; }

void ens_session_reconnect(ens_session *s) {
  if (s->state == S_FAILED) return;
  s_close(s);
  s->state = S_DOWN;
  s->next_attempt = 0;
}

/* A session with a socket (wire NULL), or a detached one. */
static int s_new(const ens_session_opts *opts, ens__session_wire_fn wire, void *user, ens_session **out) {
  *out = NULL;
  if (!opts || (!wire && !opts->endpoint)) return ens__error(ENS_EINVAL, "a session needs an endpoint");
  if (!wire && (opts->server_key || opts->secret_key || opts->public_key)) {
    if (!opts->server_key || !opts->secret_key)
      return ens__error(ENS_EINVAL, "encryption needs the server's public key and this client's secret key");
    if (!ens_key_is_valid(opts->server_key) || !ens_key_is_valid(opts->secret_key) ||
        (opts->public_key && !ens_key_is_valid(opts->public_key)))
      return ens__error(ENS_EINVAL, "a key is not 40 characters of Z85");
    if (!zmq_has("curve")) return ens__error(ENS_EIO, "this libzmq has no CURVE encryption");
  }
  ens_session *s = calloc(1, sizeof *s);
  if (!s) return ens__error(ENS_ENOMEM, "out of memory creating a session");
  s->opts = *opts;
  s->opts.server_key = s->opts.public_key = s->opts.secret_key = NULL; /* kept below, not borrowed */
  s->wire = wire;
  s->wire_user = user;
  if (!wire && opts->server_key) {
    s->curve = 1;
    memcpy(s->server_key, opts->server_key, ENS_KEY_LEN + 1);
    memcpy(s->secret_key, opts->secret_key, ENS_KEY_LEN + 1);
    if (opts->public_key) memcpy(s->public_key, opts->public_key, ENS_KEY_LEN + 1);
    else zmq_curve_public(s->public_key, s->secret_key);
  }
  s->endpoint = strdup(opts->endpoint ? opts->endpoint : "");
  s->name = strdup(opts->name ? opts->name : "");
  int rc = 0;
  if (!s->endpoint || !s->name) rc = ens__error(ENS_ENOMEM, "out of memory creating a session");
  else if (strlen(s->name) > ENS_MAX_NAME) rc = ens__error(ENS_ELIMIT, "a name longer than %d bytes", ENS_MAX_NAME);
  else if (opts->client_id) memcpy(s->client, opts->client_id, sizeof s->client);
  else rc = ens__random(s->client, sizeof s->client);
  if (!rc && opts->client_id) {
    static const unsigned char zero[ENS_CLIENT_ID_LEN];
    if (memcmp(s->client, zero, sizeof zero) == 0)
      rc = ens__error(ENS_EINVAL, "a client id of sixteen zero bytes is the host's");
  }
  if (!rc && wire) {
    /* no socket, no context */
  } else if (!rc && opts->zmq_context) {
    s->ctx = opts->zmq_context;
  } else if (!rc) {
    s->ctx = zmq_ctx_new();
    s->own_ctx = 1;
    if (!s->ctx) rc = ens__error(ENS_EIO, "zmq: %s", zmq_strerror(errno));
  }
  if (rc) {
    ens_session_free(s);
    return rc;
  }
  ens__pending_init(&s->pend, NULL, NULL);
  s->next_ctn = 1;
  s->backoff = BACKOFF_MIN;
  s->state = S_DOWN;
  *out = s;
  return 0;
}

int ens_session_new(const ens_session_opts *opts, ens_session **out) { return s_new(opts, NULL, NULL, out); }

int ens__session_new_detached(const ens_session_opts *opts, ens__session_wire_fn wire, void *user,
                              ens_session **out) {
  if (!wire) {
    *out = NULL;
    return ens__error(ENS_EINVAL, "a detached session needs a function that takes what it sends");
  }
  return s_new(opts, wire, user, out);
}

void ens_session_free(ens_session *s) {
  if (!s) return;
  if (s_open(s) && (s->state == S_LIVE || s->state == S_CATCHUP)) {
    ens__msg *m = s_msg(ENS_MSG_BYE);
    s_send(s, m);
    int linger = 100; /* long enough for the bye to leave */
    if (s->sock) zmq_setsockopt(s->sock, ZMQ_LINGER, &linger, sizeof linger);
  }
  s_close(s);
  if (s->ctx && s->own_ctx) zmq_ctx_term(s->ctx);
  ens__pending_clear(&s->pend);
  ens_undo_free(s->undo);
  ens_doc_free(s->doc);
  ens__buf_free(&s->snap);
  free(s->run);
  ens__buf_free(&s->scratch);
  free(s->sel);
  free(s->sites);
  free(s->endpoint);
  free(s->name);
  memset(s->secret_key, 0, sizeof s->secret_key);
  free(s);
}
