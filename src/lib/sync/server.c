/* The session server (docs/design.md, "Concurrency"; docs/protocol.md): one ROUTER
 * socket, the document, the durable log. Each poll round drains what has
 * arrived, applies every transaction to the server's own copy (a refused
 * one is rejected whole), commits the round's accepted ones and decisions
 * in one SQLite transaction, and only then sends acks, rejects and entries.
 * A hello first commits what is open, so the catch-up it sends ends
 * exactly where live traffic on that connection begins. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "../txn/ops.h"
#include "../util/error.h"
#include "../util/random.h"
#include "ensemble/format.h"
#include "ensemble/session.h"
#include "keys.h"
#include "net.h"
#include "hello_limit.h"
#include "server_int.h"
#include "store.h"
#include "ws.h"

/* In the draft part of zmq.h, but accepted by libzmq 4.3's stable builds. */
#ifndef ZMQ_ZAP_ENFORCE_DOMAIN
#define ZMQ_ZAP_ENFORCE_DOMAIN 93
#endif

/* Messages being built or read live in thread-local statics: each carries
 * an 8 KiB selection buffer, too much for a stack frame in a host's event
 * loop, and servers on several threads must never share one. */
#define MAX_PEERS 1024
#define DRAIN_MAX 1024      /* messages per poll round, so one round stays short */
#define SNDHWM 200000       /* messages queued per peer before it counts as stuck */
/* An entries message stops growing at this size (one entry alone may be
 * larger, up to the message limit); each item costs its bytes plus at
 * most ITEM_OVERHEAD. */
#define ENTRIES_BYTES (256u * 1024u)
#define ITEM_OVERHEAD 32
/* A version 2 peer gets collaborators' entries at most once per
 * HOLD_US: those of a group that come sooner after the last message it
 * was sent wait, and go with its next ack or when the time is up. Its
 * own acks never wait. Under load this makes one message per client per
 * round rather than one per group; an idle session sends at once. */
#define HOLD_US 1000
/* Messages waiting to be read from one peer beyond its window of
 * transactions in flight: pings and presence; more waits in TCP. */
#define RCVHWM_EXTRA 64
/* Hellos one source (a key, or a connection without keys) may say at
 * once, then one per HELLO_EVERY_MS: enough for a client that reconnects
 * after every fault, not for one that makes the server send snapshots in
 * a loop. And client ids one key may open sessions with. */
#define HELLO_BURST 32
#define HELLO_EVERY_MS 100
#define CLIENTS_PER_KEY 64
/* Sites (docs/protocol.md, "Sites"). A client id that has had nothing
 * accepted and has no connection is idle, and its site can be taken back:
 * it made no object the document holds or held, and the ids it may still
 * hold unsent lie below its floor + SITE_GAP, where the next owner's
 * begin. At most IDLE_CLIENTS idle ones keep their sites; past that, or
 * once no fresh site is left, a newcomer takes the site of the idle one
 * seen least recently. So hellos alone never use sites up, and the
 * clients table stays within the clients that made something, those
 * connected and IDLE_CLIENTS. */
#define IDLE_CLIENTS 4096
#define SITE_GAP ((uint64_t)1 << 28) /* more ids than one client makes without ever committing */
#define COUNTER_END ((uint64_t)1 << ENS_COUNTER_BITS)
/* Proof of reading: each pong carries a mark, a random number, and a ping
 * echoes the latest one its client read; the server counts a connection
 * as having read up to the end of the first pong that carried the mark
 * it echoes. A claimed count of bytes read proves nothing. MARKS pongs'
 * marks are outstanding at most; later pongs repeat the newest. */
#define MARKS 8
/* Forgotten connections whose counts are kept (s_gone), the oldest
 * replaced first. */
#define GONE_MAX MAX_PEERS

typedef struct {
  unsigned char id[ENS_CLIENT_ID_LEN];
  uint32_t site;
  uint64_t last_ctn; /* decided: accepted or rejected, durable or in the open group */
  uint64_t floor;    /* its ids' counters lie above this */
  int made;          /* a transaction of it was accepted: its site is its own for good */
  int connected;     /* a peer is this client */
  int64_t seen;      /* when it last said hello or left (ms; 0: not since the server started) */
  int dirty;         /* its record changed in the open group: a new site, or last_ctn */
  char owner[65];    /* the key name that first said hello with this id (since the server started) */
} s_client;

/* What one connection holds in our queues: bytes sent to it, bytes it
 * has proven it read (MARKS), and its latest catch-up (snapshot or log
 * entries): where it ended and its size. Until the client has read past
 * it, the catch-up may wait whole on top of the budget (max_unread). */
typedef struct {
  uint64_t sent, read;
  uint64_t caught, catchup;
  uint64_t mark[MARKS], mark_at[MARKS]; /* outstanding marks, oldest first, and where each pong ended */
  int nmarks;
} s_unread;

/* A connection whose peer was forgotten (dropped, silent, or replaced)
 * with bytes it never proved it read: ZeroMQ may still hold them, and
 * cannot be told to close it. A hello on it again goes on from these
 * counts, and one already over its budget is not answered at all, so
 * that saying hello again never buys a connection a fresh budget. */
typedef struct {
  unsigned char rid[256];
  size_t rid_len;
  s_unread u;
  int over; /* beyond its budget: nothing more is sent to it */
} s_gone;

typedef struct {
  unsigned char rid[256];
  size_t rid_len;
  char user[65];    /* the name of its key, "" without CURVE */
  s_client *client; /* NULL until hello */
  int64_t last_recv;
  unsigned char *presence; /* the latest presence, encoded with the site, for joiners */
  size_t presence_len;
  uint32_t group_txns; /* transactions in the open group */
  int version;         /* the protocol version chosen at its hello */
  /* version 2: entries held back (HOLD_US), an entries message being
   * built in held, and when a message last went to it */
  ens_buf held;
  ens__entries_writer held_w;
  int held_open;
  int64_t last_send_us;
  int dead;
  s_unread u;
  int in_catchup; /* its catch-up is being sent: no budget applies */
} s_peer;

/* Something to send once the open group is durable, in order. */
typedef struct {
  int reject;
  s_client *client;
  uint64_t ctn, seq;
  uint64_t time_us; /* accepted: the author's commit time, 0 when it did not say */
  unsigned char *txn; /* accepted: the bytes, owned */
  size_t len;
  int code;
  char *reason; /* rejected: owned */
} s_out;

struct ens_server {
  ens_server_opts opts;
  void *ctx, *sock;
  void *zap; /* the ZAP handler's socket, polled with sock (CURVE only) */
  ens_authorized_keys *keys;
  char endpoint[256];
  ens__store *store;
  ens_doc *doc;
  uint64_t head;        /* durable */
  uint64_t applied;     /* applied to doc: head plus the open group */
  uint64_t checkpoint_seq;
  s_client **clients; /* each allocated alone: peers and replies point at them */
  size_t nclients, capclients;
  uint32_t next_site;
  uint32_t site_max; /* ENS_SITE_MAX, smaller in tests */
  size_t idle_max;   /* IDLE_CLIENTS, smaller in tests */
  /* clients forgotten in the open group, their sites handed on: their
   * records go in the same commit as the new owners' */
  unsigned char (*forget)[ENS_CLIENT_ID_LEN];
  size_t nforget, capforget;
  int64_t now; /* the latest time handed to the server (ms) */
  s_peer *peers[MAX_PEERS];
  size_t npeers;
  s_gone *gone; /* GONE_MAX, allocated when the first is kept */
  size_t ngone, gone_next;
  s_out *out;
  size_t nout, capout;
  size_t ndirty; /* clients whose record the open group must write */
  /* The latest snapshot encoded (at a checkpoint, a load or a join) and
   * its seq: joiners at the same head are sent it as it is, as encoding a
   * large document (a 4.9 MB font) costs tens of milliseconds per join. */
  unsigned char *snap;
  size_t snap_len;
  uint64_t snap_seq;
  ens_buf scratch, scratch2;
  pthread_t thread;
  int running;
  atomic_int stop;
  int thread_rc;
  size_t sent; /* detached: messages that would have gone out */
  size_t nheld; /* peers holding entries back */
  ens__hello_limit *hellos;
  int shut; /* ens_server_shutdown ran: the last checkpoint is taken */
  /* browsers (ws.h), and what GET /status was last told */
  ens__ws *ws;
  uint64_t status_head, status_hash;
  size_t status_clients;
  int64_t status_at;
  int status_set;
};

/* --- clients and peers --------------------------------------------------------- */

/* The host's own changes (ens_server_commit) go in the name of a client
 * whose id is all zeros: no client draws that from its random source,
 * and a hello with it is refused, so nobody can speak for the host. */
static const unsigned char s_host_id[ENS_CLIENT_ID_LEN];

static int s_is_host_id(const unsigned char *id) { return memcmp(id, s_host_id, ENS_CLIENT_ID_LEN) == 0; }

static s_client *s_client_find(ens_server *s, const unsigned char *id) {
  for (size_t i = 0; i < s->nclients; i++)
    if (memcmp(s->clients[i]->id, id, ENS_CLIENT_ID_LEN) == 0) return s->clients[i];
  return NULL;
}

static int s_client_add(ens_server *s, const ens__client_rec *rec, s_client **out) {
  if (s->nclients == s->capclients) {
    size_t cap = s->capclients ? s->capclients * 2 : 64;
    s_client **n = realloc(s->clients, cap * sizeof *n);
    if (!n) return ens__error(ENS_ENOMEM, "out of memory adding a client");
    s->clients = n;
    s->capclients = cap;
  }
  s_client *c = calloc(1, sizeof *c);
  if (!c) return ens__error(ENS_ENOMEM, "out of memory adding a client");
  s->clients[s->nclients++] = c;
  memcpy(c->id, rec->id, ENS_CLIENT_ID_LEN);
  c->site = rec->site;
  c->last_ctn = rec->last_ctn;
  c->floor = rec->floor;
  c->made = rec->made || s_is_host_id(rec->id); /* the host's site is never handed on */
  c->dirty = 0;
  if (rec->site >= s->next_site) s->next_site = rec->site + 1;
  if (out) *out = c;
  return 0;
}

static int s_load_client(const ens__client_rec *rec, void *user) { return s_client_add(user, rec, NULL); }

static ens__client_rec s_rec(const s_client *c) {
  ens__client_rec r = {c->id, c->site, c->last_ctn, c->floor, c->made};
  return r;
}

/* A site for a new client id, and the floor of its ids: a fresh site
 * while there are some and fewer than idle_max clients are idle, else the
 * site of the idle client seen least recently, which is forgotten (in the
 * open group). A site is handed on while its floor leaves a new owner
 * SITE_GAP ids. ENS_ELIMIT when every site is taken. */
/* The idle client seen least recently whose site can still be handed on,
 * among those first said hello with by owner (NULL: among all); its index
 * in *at. *idle counts the idle ones looked at. */
static s_client *s_idle_lru(ens_server *s, const char *owner, size_t *at, size_t *idle) {
  s_client *old = NULL;
  *idle = 0;
  for (size_t i = 0; i < s->nclients; i++) {
    s_client *c = s->clients[i];
    if (c->made || c->connected || c->dirty) continue; /* dirty: the open group names it */
    if (owner && strcmp(c->owner, owner) != 0) continue;
    (*idle)++;
    if (c->floor >= COUNTER_END - 2 * SITE_GAP) continue;
    if (!old || c->seen < old->seen) {
      old = c;
      *at = i;
    }
  }
  return old;
}

static int s_hand_on(ens_server *s, s_client *old, size_t at, uint32_t *site, uint64_t *floor);

static int s_site_for(ens_server *s, uint32_t *site, uint64_t *floor) {
  size_t idle, lru = 0;
  s_client *old = s_idle_lru(s, NULL, &lru, &idle);
  if (s->next_site <= s->site_max && (idle < s->idle_max || !old)) {
    *site = s->next_site;
    *floor = 0;
    return 0;
  }
  if (!old) return ens__error(ENS_ELIMIT, "no sites left");
  return s_hand_on(s, old, lru, site, floor);
}

/* The site of idle client old (at index at) goes to a newcomer, with a
 * floor above every id old could have made; old is forgotten in the open
 * group. */
static int s_hand_on(ens_server *s, s_client *old, size_t at, uint32_t *site, uint64_t *floor) {
  if (s->nforget == s->capforget) {
    size_t cap = s->capforget ? s->capforget * 2 : 4;
    void *n = realloc(s->forget, cap * sizeof *s->forget);
    if (!n) return ens__error(ENS_ENOMEM, "out of memory handing a site on");
    s->forget = n;
    s->capforget = cap;
  }
  memcpy(s->forget[s->nforget++], old->id, ENS_CLIENT_ID_LEN);
  *site = old->site;
  *floor = old->floor + SITE_GAP;
  free(old);
  s->clients[at] = s->clients[--s->nclients];
  return 0;
}

static void s_dirty(ens_server *s, s_client *c) {
  if (!c->dirty) s->ndirty++;
  c->dirty = 1;
}

static s_peer *s_peer_find(ens_server *s, const void *rid, size_t len) {
  for (size_t i = 0; i < s->npeers; i++)
    if (s->peers[i]->rid_len == len && memcmp(s->peers[i]->rid, rid, len) == 0) return s->peers[i];
  return NULL;
}

static void s_log(ens_server *s, const char *fmt, ...) ENS_PRINTF(2, 3);
static void s_log(ens_server *s, const char *fmt, ...) {
  if (!s->opts.on_log) return;
  char line[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  s->opts.on_log(line, s->opts.user);
}

/* Who a peer is, for the log: "site 3 (alice)". */
static const char *s_who(const s_peer *p, char *buf, size_t cap) {
  if (p && p->client && p->user[0]) snprintf(buf, cap, "site %u (%s)", p->client->site, p->user);
  else if (p && p->client) snprintf(buf, cap, "site %u", p->client->site);
  else if (p && p->user[0]) snprintf(buf, cap, "%s", p->user);
  else snprintf(buf, cap, "a connection");
  return buf;
}

static void s_fault(ens_server *s, s_peer *p, const void *rid, size_t rid_len, const char *user, int code,
                    const char *why);

/* The catch-up counts on top of the budget until the client has read
 * past it; what an earlier catch-up on this connection left unread counts
 * against it. */
static uint64_t s_budget(const ens_server *s, const s_peer *p) {
  return s->opts.max_unread + (p->u.read < p->u.caught ? p->u.catchup : 0);
}

/* One message to a connection, ZeroMQ's or a browser's. */
static int s_wire(ens_server *s, const void *rid, size_t rid_len, const void *bytes, size_t len) {
  if (ens__ws_is_rid(rid, rid_len)) return s->ws ? ens__ws_send(s->ws, rid, rid_len, bytes, len) : ENS_EIO;
  return ens__net_send(s->sock, rid, rid_len, bytes, len);
}

static int s_send(ens_server *s, s_peer *p, const void *bytes, size_t len) {
  if (p->dead) return ENS_EIO;
  p->last_send_us = ens__now_us();
  p->u.sent += len;
  if (!p->in_catchup && p->u.sent - p->u.read > s_budget(s, p)) {
    char why[128];
    snprintf(why, sizeof why, "too far behind: %llu bytes sent and not yet read",
             (unsigned long long)(p->u.sent - p->u.read));
    s_fault(s, p, p->rid, p->rid_len, NULL, ENS_PERR_LIMIT, why);
    return ENS_EIO;
  }
  if (!s->sock) {
    s->sent++;
    return 0;
  }
  if (s_wire(s, p->rid, p->rid_len, bytes, len)) {
    p->dead = 1; /* full or gone: it will say hello again */
    char who[128];
    s_log(s, "%s dropped: its connection is gone or its queue full", s_who(p, who, sizeof who));
    return ENS_EIO;
  }
  return 0;
}

static int s_send_msg(ens_server *s, s_peer *p, const ens__msg *m) {
  s->scratch.len = 0;
  if (ens__msg_encode(m, &s->scratch)) return ENS_ENOMEM;
  return s_send(s, p, s->scratch.data, s->scratch.len);
}

static void s_send_error_rid(ens_server *s, const void *rid, size_t len, int code, const char *text) {
  static _Thread_local ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = ENS_MSG_ERROR;
  m.code = (uint64_t)code;
  m.text = text;
  m.ntext = strlen(text);
  if (!s->sock) {
    s->sent++;
    return;
  }
  s->scratch.len = 0;
  if (ens__msg_encode(&m, &s->scratch) == 0) s_wire(s, rid, len, s->scratch.data, s->scratch.len);
  /* a browser's connection ends with an error, as its client would end it */
  if (s->ws && ens__ws_is_rid(rid, len)) ens__ws_close(s->ws, rid, len);
}

/* A fault in what a peer sent: it is told why, logged and forgotten. */
static void s_fault(ens_server *s, s_peer *p, const void *rid, size_t rid_len, const char *user, int code,
                    const char *why) {
  s_send_error_rid(s, rid, rid_len, code, why);
  char who[128];
  if (p) s_who(p, who, sizeof who);
  else snprintf(who, sizeof who, "%s", user && user[0] ? user : "a connection");
  s_log(s, "%s dropped: %s", who, why);
  if (p) p->dead = 1;
}

/* Tell the others that p's site left, if p had joined. */
static void s_peer_bye(ens_server *s, s_peer *p) {
  if (!p->client) return;
  static _Thread_local ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = ENS_MSG_BYE;
  m.site = p->client->site;
  ens_buf b = ENS_BUF_INIT;
  if (ens__msg_encode(&m, &b) == 0)
    for (size_t i = 0; i < s->npeers; i++)
      if (s->peers[i] != p && s->peers[i]->client) s_send(s, s->peers[i], b.data, b.len);
  ens__buf_free(&b);
}

static s_gone *s_gone_find(ens_server *s, const void *rid, size_t len) {
  for (size_t i = 0; i < s->ngone; i++)
    if (s->gone[i].rid_len == len && memcmp(s->gone[i].rid, rid, len) == 0) return &s->gone[i];
  return NULL;
}

/* Keeps a forgotten peer's counts while it has bytes it never proved it
 * read (a connection that read everything has nothing to answer for). */
static void s_gone_keep(ens_server *s, const s_peer *p) {
  if (p->u.sent == p->u.read) return;
  if (!s->gone && !(s->gone = calloc(GONE_MAX, sizeof *s->gone))) return; /* out of memory: counts lost, not the server */
  s_gone *g = s_gone_find(s, p->rid, p->rid_len);
  if (!g) {
    if (s->ngone < GONE_MAX) g = &s->gone[s->ngone++];
    else {
      g = &s->gone[s->gone_next];
      s->gone_next = (s->gone_next + 1) % GONE_MAX;
    }
  }
  memcpy(g->rid, p->rid, p->rid_len);
  g->rid_len = p->rid_len;
  g->u = p->u;
  g->over = p->u.sent - p->u.read > s->opts.max_unread + (p->u.read < p->u.caught ? p->u.catchup : 0);
}

static void s_peer_remove(ens_server *s, size_t i, int tell) {
  s_peer *p = s->peers[i];
  if (tell) s_peer_bye(s, p);
  if (ens__ws_is_rid(p->rid, p->rid_len)) {
    if (s->ws) ens__ws_close(s->ws, p->rid, p->rid_len);
  } else {
    s_gone_keep(s, p); /* a browser's connection number is never used again */
  }
  if (p->client) {
    p->client->connected = 0;
    p->client->seen = s->now;
  }
  if (p->held_open) s->nheld--;
  ens__buf_free(&p->held);
  free(p->presence);
  free(p);
  s->peers[i] = s->peers[--s->npeers];
}

/* Forget peers whose sends failed or that stopped talking. */
static void s_sweep(ens_server *s, int64_t now) {
  int64_t timeout = 3 * (int64_t)s->opts.heartbeat_ms + 500;
  for (size_t i = s->npeers; i-- > 0;) {
    s_peer *p = s->peers[i];
    if (!p->dead && now - p->last_recv > timeout) {
      char who[128];
      s_log(s, "%s dropped: silent for %lld ms", s_who(p, who, sizeof who), (long long)(now - p->last_recv));
    }
    if (p->dead || now - p->last_recv > timeout) s_peer_remove(s, i, 1);
  }
}

/* --- the group: apply now, commit once, then tell --------------------------------- */

static int s_out_push(ens_server *s, const s_out *o) {
  if (s->nout == s->capout) {
    size_t cap = s->capout ? s->capout * 2 : 256;
    s_out *n = realloc(s->out, cap * sizeof *n);
    if (!n) return ens__error(ENS_ENOMEM, "out of memory queueing a reply");
    s->out = n;
    s->capout = cap;
  }
  s->out[s->nout++] = *o;
  return 0;
}

static s_peer *s_peer_of(ens_server *s, const s_client *c) {
  for (size_t i = 0; i < s->npeers; i++)
    if (s->peers[i]->client == c && !s->peers[i]->dead) return s->peers[i];
  return NULL;
}

static void s_out_clear(ens_server *s) {
  for (size_t i = 0; i < s->nout; i++) {
    free(s->out[i].txn);
    free(s->out[i].reason);
  }
  s->nout = 0;
}

static void s_held_send(ens_server *s, s_peer *p);

static void s_send_reject(ens_server *s, const s_out *o) {
  s_peer *author = s_peer_of(s, o->client);
  if (!author) return; /* it learns at its next hello (protocol.md, resume) */
  s_held_send(s, author); /* the acks before it first */
  static _Thread_local ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = ENS_MSG_REJECT;
  m.ctn = o->ctn;
  m.code = (uint64_t)-o->code;
  m.text = o->reason;
  m.ntext = strlen(o->reason);
  s_send_msg(s, author, &m);
}

/* Version 1 peers: an ack to the author, the entry to everyone else, one
 * message each. */
static void s_send_accepted_v1(ens_server *s, size_t a, size_t b) {
  static _Thread_local ens__msg m;
  for (size_t i = a; i < b; i++) {
    s_out *o = &s->out[i];
    s_peer *author = s_peer_of(s, o->client);
    memset(&m, 0, offsetof(ens__msg, sel_buf));
    if (author && author->version < 2) {
      m.type = ENS_MSG_ACK;
      m.ctn = o->ctn;
      m.seq = o->seq;
      s_send_msg(s, author, &m);
    }
    m.type = ENS_MSG_ENTRY;
    m.seq = o->seq;
    m.site = o->client->site;
    m.ctn = o->ctn;
    m.bytes = o->txn;
    m.nbytes = o->len;
    m.time_us = o->time_us;
    m.has_time = o->time_us != 0;
    s->scratch2.len = 0;
    if (ens__msg_encode(&m, &s->scratch2)) continue;
    for (size_t k = 0; k < s->npeers; k++) {
      s_peer *p = s->peers[k];
      if (p != author && p->client && p->version < 2) s_send(s, p, s->scratch2.data, s->scratch2.len);
    }
  }
}

/* Sends what p holds back, if anything. */
static void s_held_send(ens_server *s, s_peer *p) {
  if (!p->held_open) return;
  p->held_open = 0;
  s->nheld--;
  if (ens__entries_finish(&p->held_w) == 0) s_send(s, p, p->held.data, p->held.len);
  p->held.len = 0;
}

/* Adds one item to what p holds back (txn NULL: an ack); a full message
 * goes out first. */
static void s_held_item(ens_server *s, s_peer *p, uint64_t seq, uint32_t site, uint64_t ctn, const void *txn,
                        size_t len, uint64_t time_us) {
  if (p->held_open && ens__entries_size(&p->held_w) + len + ITEM_OVERHEAD > ENTRIES_BYTES) s_held_send(s, p);
  if (!p->held_open) {
    p->held.len = 0;
    ens__entries_start(&p->held_w, &p->held, seq);
    p->held_open = 1;
    s->nheld++;
  }
  ens__entries_add(&p->held_w, site, ctn, txn, len, time_us != 0, time_us);
}

/* Adds one accepted transaction to what p holds back: as an ack when it
 * is p's own. */
static void s_held_add(ens_server *s, s_peer *p, const s_out *o) {
  int own = o->client == p->client;
  s_held_item(s, p, o->seq, o->client->site, o->ctn, own ? NULL : o->txn, o->len, own ? 0 : o->time_us);
}

/* Sends every held-back message whose time is up. */
static void s_held_send_due(ens_server *s) {
  if (!s->nheld) return;
  int64_t now = ens__now_us();
  for (size_t k = 0; k < s->npeers && s->nheld; k++) {
    s_peer *p = s->peers[k];
    if (p->held_open && (p->dead || now - p->last_send_us >= HOLD_US)) s_held_send(s, p);
  }
}

/* Version 2 peers: outs [a, b) go into each one's entries message; an
 * author's goes out now, with its acks; the others' wait (HOLD_US). */
static void s_send_entries(ens_server *s, size_t a, size_t b) {
  for (size_t k = 0; k < s->npeers; k++) {
    s_peer *p = s->peers[k];
    if (!p->client || p->dead || p->version < 2) continue;
    int authored = 0;
    for (size_t i = a; i < b; i++) {
      s_held_add(s, p, &s->out[i]);
      authored |= s->out[i].client == p->client;
    }
    if (authored) s_held_send(s, p);
  }
}

/* Sends the accepted outs [a, b), whose seqs follow one another, to every
 * peer in its protocol version. */
static void s_send_accepted(ens_server *s, size_t a, size_t b) {
  if (a >= b) return;
  int v1 = 0, v2 = 0;
  for (size_t k = 0; k < s->npeers; k++) {
    const s_peer *p = s->peers[k];
    if (!p->client || p->dead) continue;
    if (p->version < 2) v1 = 1;
    else v2 = 1;
  }
  if (v1) s_send_accepted_v1(s, a, b);
  if (v2) s_send_entries(s, a, b);
}

/* Commits the open group, then sends its acks, rejects and entries. A
 * failed commit is fatal: the document holds changes the store does not. */
static int s_flush(ens_server *s) {
  for (size_t i = 0; i < s->npeers; i++) s->peers[i]->group_txns = 0;
  if (!s->nout && !s->ndirty && !s->nforget) return 0;
  int rc = ens__store_begin(s->store);
  uint64_t seq = s->head;
  /* before the new owners' records: a site is unique in the table */
  for (size_t i = 0; i < s->nforget && !rc; i++) rc = ens__store_forget_client(s->store, s->forget[i]);
  for (size_t i = 0; i < s->nout && !rc; i++) {
    s_out *o = &s->out[i];
    if (o->reject) continue;
    ens__entry e = {o->seq, o->client->site, o->ctn, o->client->id, o->txn, o->len, 0};
    rc = ens__store_append(s->store, &e);
    seq = o->seq;
  }
  for (size_t i = 0; i < s->nclients && s->ndirty && !rc; i++)
    if (s->clients[i]->dirty) {
      ens__client_rec r = s_rec(s->clients[i]);
      rc = ens__store_set_client(s->store, &r);
    }
  if (!rc) rc = ens__store_commit(s->store);
  else ens__store_rollback(s->store);
  if (rc) return ens__error_prefix(rc, "the log could not be written; the server stops: ");
  s->head = seq;
  for (size_t i = 0; i < s->nclients && s->ndirty; i++) s->clients[i]->dirty = 0;
  s->ndirty = 0;
  s->nforget = 0;

  /* in order; a reject splits the run of accepted ones, so that its
   * author reads it after the acks before it and before those after */
  size_t run = 0;
  for (size_t i = 0; i < s->nout; i++) {
    if (!s->out[i].reject) continue;
    s_send_accepted(s, run, i);
    s_send_reject(s, &s->out[i]);
    run = i + 1;
  }
  s_send_accepted(s, run, s->nout);
  s_out_clear(s);
  return 0;
}

static int s_reject(ens_server *s, s_client *c, uint64_t ctn, int code, const char *why) {
  s_out o = {0};
  o.reject = 1;
  o.client = c;
  o.ctn = ctn;
  o.code = code;
  o.reason = strdup(why);
  if (!o.reason) return ens__error(ENS_ENOMEM, "out of memory rejecting");
  c->last_ctn = ctn;
  s_dirty(s, c);
  return s_out_push(s, &o);
}

/* A transaction that edits what a collaborator deleted: those operations
 * are left out and the rest applies (docs/design.md, "Concurrency"); the log and
 * the others get what applied, in *bytes (malloc'd). Its author's client
 * leaves out the same operations when it puts the transaction back on
 * top of the delete, and tells its user. Nothing left: ENS_ENOTFOUND. */
static int s_apply_without_missing(ens_server *s, const ens_txn *t, unsigned char **bytes, size_t *len) {
  ens_txn *kept = NULL;
  size_t dropped = 0;
  int rc = ens__txn_drop_missing(s->doc, t, &kept, &dropped);
  if (rc) return rc;
  if (!dropped || !ens_txn_op_count(kept)) {
    ens_txn_free(kept);
    return ens__error(ENS_ENOTFOUND, "%s", dropped ? "every operation edits what a collaborator deleted"
                                                   : "an object it names is not in the document");
  }
  rc = ens_doc_apply(s->doc, kept, ENS_ORIGIN_REMOTE, NULL);
  unsigned char *b = NULL;
  size_t n = 0;
  /* applied but not encoded (out of memory): the error stops the server,
   * which a restart brings back from the log, without this transaction */
  if (rc == 0) rc = ens_txn_encode(kept, &b, &n);
  ens_txn_free(kept);
  if (rc) return rc;
  *bytes = malloc(n ? n : 1);
  if (!*bytes) {
    ens_free(b);
    return ens__error(ENS_ENOMEM, "out of memory keeping a transaction");
  }
  memcpy(*bytes, b, n);
  ens_free(b);
  *len = n;
  return 0;
}

static int s_on_txn(ens_server *s, s_peer *p, const ens__msg *m) {
  s_client *c = p->client;
  if (m->ctn <= c->last_ctn) return 0; /* a resend of something decided */
  /* with nothing decided, a client may start anywhere: one whose record
   * was forgotten with its site (only rejects decided) goes on with its
   * own numbering */
  if (c->last_ctn && m->ctn != c->last_ctn + 1) {
    s_fault(s, p, p->rid, p->rid_len, NULL, ENS_PERR_MALFORMED, "ctn out of order");
    return 0;
  }
  if (++p->group_txns > s->opts.window) {
    s_fault(s, p, p->rid, p->rid_len, NULL, ENS_PERR_LIMIT, "window overrun");
    return 0;
  }
  if (m->nbytes > ENS_MAX_TXN_BYTES) return s_reject(s, c, m->ctn, ENS_ELIMIT, "transaction too large");
  ens_txn *t = NULL;
  unsigned char *kept_bytes = NULL; /* what applied, when it is less than what came */
  size_t kept_len = 0;
  int rc = ens_txn_decode(m->bytes, m->nbytes, &t);
  if (rc == 0) rc = ens_doc_apply(s->doc, t, ENS_ORIGIN_REMOTE, NULL);
  if (rc == ENS_ENOTFOUND) rc = s_apply_without_missing(s, t, &kept_bytes, &kept_len);
  ens_txn_free(t);
  if (rc == ENS_ENOMEM) return rc;
  if (rc) return s_reject(s, c, m->ctn, rc, ens_error_last());
  s_out o = {0};
  o.client = c;
  o.ctn = m->ctn;
  o.seq = ++s->applied;
  o.time_us = m->has_time ? m->time_us : 0;
  if (kept_bytes) {
    o.len = kept_len;
    o.txn = kept_bytes;
  } else {
    o.len = m->nbytes;
    o.txn = malloc(o.len ? o.len : 1);
    if (!o.txn) return ens__error(ENS_ENOMEM, "out of memory keeping a transaction");
    memcpy(o.txn, m->bytes, o.len);
  }
  /* not written to the clients table: the log entry holds the ctn, and a
   * restart takes the highest from the log (s_replay_entry); one table
   * less in each group commit is a WAL page less per commit */
  c->last_ctn = m->ctn;
  c->made = 1;
  return s_out_push(s, &o);
}

/* --- hello: welcome, then the snapshot or the missing entries ----------------------- */

/* A catch-up from the log: to a version 2 peer through what it holds
 * back (in entries messages, its own as entries too), else one entry
 * each. */
typedef struct {
  ens_server *s;
  s_peer *p;
} s_catchup;

static int s_send_entry(const ens__entry *e, void *user) {
  s_catchup *c = user;
  if (c->p->version >= 2) {
    s_held_item(c->s, c->p, e->seq, e->site, e->ctn, e->txn, e->len, 0);
    return c->p->dead ? 1 : 0;
  }
  static _Thread_local ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = ENS_MSG_ENTRY;
  m.seq = e->seq;
  m.site = e->site;
  m.ctn = e->ctn;
  m.bytes = e->txn;
  m.nbytes = e->len;
  return s_send_msg(c->s, c->p, &m) ? 1 : 0;
}

static void s_snap_keep(ens_server *s, unsigned char *snap, size_t len, uint64_t seq) {
  ens_free(s->snap);
  s->snap = snap;
  s->snap_len = len;
  s->snap_seq = seq;
}

static int s_send_snapshot(ens_server *s, s_peer *p) {
  /* the document is the head's (a hello commits the open group first),
   * so a snapshot kept at the head's seq is this document's */
  if (!s->snap || s->snap_seq != s->head) {
    unsigned char *fresh;
    size_t n;
    int rc = ens_snapshot_encode(s->doc, &fresh, &n);
    if (rc) return rc;
    s_snap_keep(s, fresh, n, s->head);
  }
  const unsigned char *snap = s->snap;
  size_t len = s->snap_len;
  size_t count = len ? (len + ENS_SNAPSHOT_CHUNK - 1) / ENS_SNAPSHOT_CHUNK : 1;
  static _Thread_local ens__msg m;
  for (size_t i = 0; i < count && !p->dead; i++) {
    memset(&m, 0, offsetof(ens__msg, sel_buf));
    m.type = ENS_MSG_SNAPSHOT;
    m.seq = s->head;
    m.index = i;
    m.count = count;
    m.bytes = snap + i * ENS_SNAPSHOT_CHUNK;
    m.nbytes = i + 1 < count ? ENS_SNAPSHOT_CHUNK : len - i * ENS_SNAPSHOT_CHUNK;
    s_send_msg(s, p, &m);
  }
  return 0;
}

static int s_on_hello(ens_server *s, const void *rid, size_t rid_len, const char *user, const ens__msg *m,
                      int64_t now) {
  if (m->vmin > ENS_PROTO_VERSION || m->vmax < ENS_PROTO_VERSION_MIN) {
    char why[64];
    snprintf(why, sizeof why, "server speaks %d..%d", ENS_PROTO_VERSION_MIN, ENS_PROTO_VERSION);
    s_send_error_rid(s, rid, rid_len, ENS_PERR_VERSION, why);
    return 0;
  }
  int rc;
  if (s_is_host_id(m->client)) {
    s_send_error_rid(s, rid, rid_len, ENS_PERR_DENIED, "that client id is the host's");
    s_log(s, "%s refused: it used the host's client id", user && user[0] ? user : "a connection");
    return 0;
  }
  s_client *c = s_client_find(s, m->client);
  ens__client_rec rec = {m->client, 0, 0, 0, 0};
  int sited = 0; /* rec has its site already */
  if (!c && user && user[0]) { /* a key's new ids: at most CLIENTS_PER_KEY of them */
    size_t owned = 0;
    for (size_t i = 0; i < s->nclients; i++) owned += strcmp(s->clients[i]->owner, user) == 0;
    if (owned >= CLIENTS_PER_KEY) {
      /* one of its own idle ids (nothing made, no connection: a page
       * reloaded, say) gives its site up to the new one; only ids that
       * made something or are connected hold the key to its limit */
      size_t at = 0, idle;
      s_client *old = s_idle_lru(s, user, &at, &idle);
      if (!old) {
        s_fault(s, s_peer_find(s, rid, rid_len), rid, rid_len, user, ENS_PERR_LIMIT, "too many client ids for one key");
        return 0;
      }
      if ((rc = s_hand_on(s, old, at, &rec.site, &rec.floor))) return rc;
      sited = 1;
    }
  }
  if (!c) {
    if (!sited && (rc = s_site_for(s, &rec.site, &rec.floor)) == ENS_ELIMIT) {
      s_send_error_rid(s, rid, rid_len, ENS_PERR_LIMIT, "no sites left");
      s_log(s, "%s refused: no sites left", user && user[0] ? user : "a connection");
      return 0;
    }
    if (rc || (rc = s_client_add(s, &rec, &c))) return rc;
    /* the site must outlive a crash before the client's first change: it
     * goes into the group committed just below, so that a join costs one
     * fsync, not two */
    s_dirty(s, c);
  }
  /* the open group is committed (and its replies sent) before the
   * catch-up, so that the catch-up ends where live traffic begins */
  if ((rc = s_flush(s))) return rc;
  /* with keys, a client id belongs to the key that used it first: another
   * key cannot take over its session (or its site and numbering) */
  if (user && user[0]) {
    if (c->owner[0] && strcmp(c->owner, user) != 0) {
      char why[160];
      snprintf(why, sizeof why, "site %u belongs to another key", c->site);
      s_send_error_rid(s, rid, rid_len, ENS_PERR_DENIED, why);
      s_log(s, "%s refused: %s (%s)", user, why, c->owner);
      return 0;
    }
    snprintf(c->owner, sizeof c->owner, "%s", user);
  }
  /* a client has one connection: a new hello replaces the old one; what
   * the same connection has not read yet stays counted (s_gone) */
  for (size_t i = s->npeers; i-- > 0;) {
    s_peer *q = s->peers[i];
    int same = q->rid_len == rid_len && memcmp(q->rid, rid, rid_len) == 0;
    if (q->client == c || same) s_peer_remove(s, i, q->client != c);
  }
  s_unread was = {0};
  s_gone *g = s_gone_find(s, rid, rid_len);
  if (g) {
    was = g->u;
    *g = s->gone[--s->ngone]; /* taken back: the peer holds the counts now */
    if (s->gone_next > s->ngone) s->gone_next = 0;
  }
  if (s->npeers == MAX_PEERS) {
    s_send_error_rid(s, rid, rid_len, ENS_PERR_LIMIT, "too many clients");
    return 0;
  }
  s_peer *p = calloc(1, sizeof *p);
  if (!p) return ens__error(ENS_ENOMEM, "out of memory adding a peer");
  memcpy(p->rid, rid, rid_len);
  p->rid_len = rid_len;
  p->client = c;
  p->version = m->vmax < ENS_PROTO_VERSION ? (int)m->vmax : ENS_PROTO_VERSION; /* the highest both speak */
  p->last_recv = now;
  p->u = was;
  if (user) snprintf(p->user, sizeof p->user, "%s", user);
  s->peers[s->npeers++] = p;
  c->connected = 1;
  c->seen = now;
  char who[128];
  s_log(s, "%s joined", s_who(p, who, sizeof who));

  int from_log = m->epoch == ens__store_epoch(s->store) && m->seq + 1 >= ens__store_first(s->store) &&
                 m->seq <= s->head;
  static _Thread_local ens__msg w;
  memset(&w, 0, offsetof(ens__msg, sel_buf));
  w.type = ENS_MSG_WELCOME;
  w.version = (uint64_t)p->version;
  w.epoch = ens__store_epoch(s->store);
  w.site = c->site;
  w.seq = s->head;
  w.ctn = c->last_ctn;
  w.mode = from_log ? 0 : 1;
  w.window = s->opts.window;
  w.heartbeat_ms = s->opts.heartbeat_ms;
  w.max_message = ENS_MAX_MESSAGE;
  w.floor = c->floor;
  if (user && user[0]) { /* shown to the others by it: the client shows it to its user */
    w.has_name = 1;
    w.text = user;
    w.ntext = strlen(user);
  }
  /* the catch-up may wait in the queue whole, on top of the budget; not
   * on top of what the connection already failed to read */
  if (p->u.sent - p->u.read > s_budget(s, p)) {
    char why[128];
    snprintf(why, sizeof why, "too far behind: %llu bytes sent and not yet read",
             (unsigned long long)(p->u.sent - p->u.read));
    s_fault(s, p, p->rid, p->rid_len, NULL, ENS_PERR_LIMIT, why);
    return 0;
  }
  p->in_catchup = 1;
  uint64_t before = p->u.sent;
  if (s_send_msg(s, p, &w)) return 0;
  if (from_log) {
    s_catchup cu = {s, p};
    if (m->seq < s->head && (rc = ens__store_read(s->store, m->seq + 1, s->head, s_send_entry, &cu)) < 0) return rc;
    s_held_send(s, p); /* the catch-up goes at once */
  } else if ((rc = s_send_snapshot(s, p))) {
    return rc;
  }
  p->in_catchup = 0;
  p->u.caught = p->u.sent;
  p->u.catchup = p->u.sent - before;
  for (size_t i = 0; i < s->npeers; i++)
    if (s->peers[i] != p && s->peers[i]->presence) s_send(s, p, s->peers[i]->presence, s->peers[i]->presence_len);
  return 0;
}

static void s_on_presence(ens_server *s, s_peer *p, ens__msg *m) {
  m->site = p->client->site;
  if (p->user[0]) { /* an authenticated client is shown by its key's name */
    m->text = p->user;
    m->ntext = strlen(p->user);
  }
  ens_buf b = ENS_BUF_INIT;
  if (ens__msg_encode(m, &b)) {
    ens__buf_free(&b);
    return;
  }
  free(p->presence);
  p->presence_len = b.len;
  p->presence = ens__buf_detach(&b, &p->presence_len);
  for (size_t i = 0; i < s->npeers; i++)
    if (s->peers[i] != p && s->peers[i]->client) s_send(s, s->peers[i], p->presence, p->presence_len);
}

/* --- proof of reading ------------------------------------------------------------------ */

/* A ping echoed mark: the client read the first pong that carried it, and
 * everything sent before. An unknown mark (forged, or older than the
 * outstanding ones) proves nothing. */
static void s_mark_read(s_peer *p, uint64_t mark) {
  for (int j = 0; j < p->u.nmarks; j++) {
    if (p->u.mark[j] != mark) continue;
    if (p->u.mark_at[j] > p->u.read) p->u.read = p->u.mark_at[j];
    p->u.nmarks -= j + 1;
    memmove(p->u.mark, p->u.mark + j + 1, (size_t)p->u.nmarks * sizeof *p->u.mark);
    memmove(p->u.mark_at, p->u.mark_at + j + 1, (size_t)p->u.nmarks * sizeof *p->u.mark_at);
    return;
  }
}

/* A pong with a new mark, or with the newest again when MARKS are
 * outstanding (that mark then proves no more than where it first went). */
static void s_send_pong(ens_server *s, s_peer *p, uint64_t token) {
  static _Thread_local ens__msg r;
  memset(&r, 0, offsetof(ens__msg, sel_buf));
  r.type = ENS_MSG_PONG;
  r.token = token;
  r.seq = s->head;
  int fresh = p->u.nmarks < MARKS;
  r.mark = fresh ? ens__random_u64() : p->u.mark[p->u.nmarks - 1];
  s->scratch.len = 0;
  if (ens__msg_encode(&r, &s->scratch)) return;
  if (fresh) {
    p->u.mark[p->u.nmarks] = r.mark;
    p->u.mark_at[p->u.nmarks] = p->u.sent + s->scratch.len;
    p->u.nmarks++;
  }
  s_send(s, p, s->scratch.data, s->scratch.len);
}

/* --- one message ----------------------------------------------------------------------- */

static int s_handle(ens_server *s, const unsigned char *rid, size_t rid_len, const char *user,
                    const unsigned char *data, size_t len, int64_t now) {
  static _Thread_local ens__msg m;
  s->now = now;
  s_peer *p = s_peer_find(s, rid, rid_len);
  if (!p && s->ngone) {
    s_gone *g = s_gone_find(s, rid, rid_len);
    if (g && g->over) return 0; /* what it did not read stays the last it is sent */
  }
  if (ens__msg_decode(data, len, &m)) {
    s_fault(s, p && !p->dead ? p : NULL, rid, rid_len, user, ENS_PERR_MALFORMED, ens_error_last());
    return 0;
  }
  if (m.type == ENS_MSG_HELLO) {
    int keyed = user && user[0];
    if (!ens__hello_limit_take(s->hellos, keyed ? (const void *)user : rid, keyed ? strlen(user) : rid_len, now)) {
      s_fault(s, p && !p->dead ? p : NULL, rid, rid_len, user, ENS_PERR_LIMIT, "too many hellos: wait and retry");
      return 0;
    }
    return s_on_hello(s, rid, rid_len, user, &m, now);
  }
  if (!p || p->dead) {
    if (m.type != ENS_MSG_BYE) s_send_error_rid(s, rid, rid_len, ENS_PERR_NO_SESSION, "hello first");
    return 0;
  }
  p->last_recv = now;
  switch (m.type) {
  case ENS_MSG_TXN: return s_on_txn(s, p, &m);
  case ENS_MSG_PRESENCE: s_on_presence(s, p, &m); return 0;
  case ENS_MSG_BYE: {
    char who[128];
    s_log(s, "%s left", s_who(p, who, sizeof who));
    for (size_t i = 0; i < s->npeers; i++)
      if (s->peers[i] == p) {
        s_peer_remove(s, i, 1);
        break;
      }
    return 0;
  }
  case ENS_MSG_PING:
    if (m.mark) s_mark_read(p, m.mark);
    s_send_pong(s, p, m.token);
    return 0;
  default: s_fault(s, p, rid, rid_len, user, ENS_PERR_MALFORMED, "a server does not take that message"); return 0;
  }
}

/* Receives one whole message; 1 when one was handled, 0 when none was
 * waiting, or an error. */
static int s_recv_one(ens_server *s, int64_t now) {
  zmq_msg_t rid, body;
  zmq_msg_init(&rid);
  if (zmq_msg_recv(&rid, s->sock, ZMQ_DONTWAIT) < 0) {
    zmq_msg_close(&rid);
    return 0;
  }
  int rc = 0, frames = 0;
  zmq_msg_init(&body);
  while (zmq_msg_more(frames ? &body : &rid)) {
    /* one payload frame only: the rest of a multipart message is read and
     * dropped, so a peer cannot make us hold it (docs/protocol.md, "Limits") */
    zmq_msg_close(&body);
    zmq_msg_init(&body);
    if (zmq_msg_recv(&body, s->sock, 0) < 0) break;
    frames++;
  }
  size_t rid_len = zmq_msg_size(&rid);
  if (rid_len > 255) rid_len = 255;
  /* the ZAP handler's name for the key this connection proved it holds */
  const char *user = s->zap && frames >= 1 ? zmq_msg_gets(&body, "User-Id") : NULL;
  if (frames == 1) {
    rc = s_handle(s, zmq_msg_data(&rid), rid_len, user, zmq_msg_data(&body), zmq_msg_size(&body), now);
  } else {
    s_peer *p = s_peer_find(s, zmq_msg_data(&rid), rid_len);
    s_fault(s, p && !p->dead ? p : NULL, zmq_msg_data(&rid), rid_len, user, ENS_PERR_MALFORMED, "one frame per message");
  }
  zmq_msg_close(&rid);
  zmq_msg_close(&body);
  return rc ? rc : 1;
}

/* --- checkpoints ------------------------------------------------------------------------- */

/* Writes every client's last decided ctn to the clients table: the log
 * entries that also hold them are about to be trimmed. */
static int s_store_clients(ens_server *s) {
  int rc = ens__store_begin(s->store);
  for (size_t i = 0; i < s->nclients && !rc; i++) {
    ens__client_rec r = s_rec(s->clients[i]);
    rc = ens__store_set_client(s->store, &r);
  }
  if (!rc) rc = ens__store_commit(s->store);
  else ens__store_rollback(s->store);
  return rc;
}

int ens_server_checkpoint(ens_server *s) {
  int rc = s_flush(s);
  if (!rc) rc = s_store_clients(s);
  if (rc) return rc;
  unsigned char *snap;
  size_t len;
  if ((rc = ens_snapshot_encode(s->doc, &snap, &len))) return rc;
  rc = ens__store_checkpoint(s->store, s->head, snap, len, s->opts.log_keep);
  if (rc) {
    ens_free(snap);
    return rc;
  }
  s_snap_keep(s, snap, len, s->head);
  s->checkpoint_seq = s->head;
  if (s->opts.on_checkpoint) s->opts.on_checkpoint(s->doc, s->head, s->opts.user);
  return 0;
}

/* --- ZAP: who may connect --------------------------------------------------------------- */

/* The ZAP handler (RFC 27) runs in the server's own poll loop rather than on
 * a thread: the server is single-threaded, so the key list needs no lock,
 * and a handshake waits at most one poll round. It lets in the CURVE
 * mechanism with a listed client key, and names the connection by the
 * key's name (the User-Id of every message that comes on it). */
static void s_zap_one(ens_server *s) {
  enum { FRAMES = 7 };
  zmq_msg_t f[FRAMES];
  int n = 0, more = 1;
  while (more) {
    zmq_msg_t t;
    zmq_msg_init(&t);
    if (zmq_msg_recv(&t, s->zap, n ? 0 : ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&t);
      if (n == 0) return;
      break;
    }
    more = zmq_msg_more(&t);
    if (n < FRAMES) f[n++] = t;
    else zmq_msg_close(&t);
  }
  /* version, request id, domain, address, routing id, mechanism, key */
  const char *status = "400", *text = "unknown key", *name = "";
  char key[ENS_KEY_LEN + 1] = "", addr[64] = "?";
  if (n >= 4 && zmq_msg_size(&f[3]) < sizeof addr) {
    memcpy(addr, zmq_msg_data(&f[3]), zmq_msg_size(&f[3]));
    addr[zmq_msg_size(&f[3])] = '\0';
  }
  if (n < 6 || zmq_msg_size(&f[0]) != 3 || memcmp(zmq_msg_data(&f[0]), "1.0", 3) != 0) {
    status = "400";
    text = "bad request";
  } else if (zmq_msg_size(&f[5]) != 5 || memcmp(zmq_msg_data(&f[5]), "CURVE", 5) != 0 || n < 7 ||
             zmq_msg_size(&f[6]) != 32) {
    text = "CURVE only";
  } else {
    zmq_z85_encode(key, zmq_msg_data(&f[6]), 32);
    const char *found = ens_authorized_keys_find(s->keys, key);
    if (found) {
      status = "200";
      text = "OK";
      name = found;
    }
  }
  if (strcmp(status, "200") != 0) s_log(s, "refused a connection from %s: %s%s%s", addr, text, key[0] ? " " : "", key);
  /* the reply: version, request id, status, text, user id, metadata */
  zmq_send(s->zap, "1.0", 3, ZMQ_SNDMORE);
  if (n >= 2) zmq_send(s->zap, zmq_msg_data(&f[1]), zmq_msg_size(&f[1]), ZMQ_SNDMORE);
  else zmq_send(s->zap, "", 0, ZMQ_SNDMORE);
  zmq_send(s->zap, status, 3, ZMQ_SNDMORE);
  zmq_send(s->zap, text, strlen(text), ZMQ_SNDMORE);
  zmq_send(s->zap, name, strlen(name), ZMQ_SNDMORE);
  zmq_send(s->zap, "", 0, 0);
  for (int i = 0; i < n; i++) zmq_msg_close(&f[i]);
}

/* What browsers sent, and their connections gone, handled as ZeroMQ's. */
static int s_ws_drain(ens_server *s, int64_t now) {
  ens__ws_event ev;
  int rc = 0;
  for (int i = 0; i < DRAIN_MAX && rc >= 0 && ens__ws_next(s->ws, &ev); i++) {
    if (ev.kind == ENS__WS_MESSAGE) {
      rc = s_handle(s, ev.rid, ENS__WS_RID_LEN, ev.user[0] ? ev.user : NULL, ev.data, ev.len, now);
    } else if (ev.kind == ENS__WS_CLOSED) {
      for (size_t k = 0; k < s->npeers; k++)
        if (s->peers[k]->rid_len == ENS__WS_RID_LEN && memcmp(s->peers[k]->rid, ev.rid, ENS__WS_RID_LEN) == 0) {
          char who[128];
          if (!s->peers[k]->dead) s_log(s, "%s left: its WebSocket closed", s_who(s->peers[k], who, sizeof who));
          s_peer_remove(s, k, 1);
          break;
        }
    } else if (ev.kind == ENS__WS_LOG) {
      s_log(s, "%s", (const char *)ev.data);
    }
    free(ev.data);
  }
  return rc < 0 ? rc : 0;
}

/* GET /status: the head and the document's hash when the head moved
 * (hashing a large font costs milliseconds: at most every 50 ms, the
 * last one within 50 ms of the last change), the number of peers always. */
static void s_ws_status(ens_server *s, int64_t now) {
  int moved = !s->status_set || s->status_head != s->head;
  if (!moved && s->status_clients == s->npeers) return;
  if (moved && s->status_set && now - s->status_at < 50) return; /* the poll's timeout brings it back soon */
  if (moved) {
    s->status_hash = ens_doc_hash(s->doc);
    s->status_at = now;
  }
  s->status_head = s->head;
  s->status_clients = s->npeers;
  s->status_set = 1;
  ens__ws_set_status(s->ws, s->head, s->status_hash, ens_doc_kind(s->doc), s->npeers);
}

int ens_server_poll(ens_server *s, int timeout_ms) {
  zmq_pollitem_t items[3] = {{s->sock, 0, ZMQ_POLLIN, 0}, {s->zap, 0, ZMQ_POLLIN, 0}, {NULL, -1, ZMQ_POLLIN, 0}};
  int nitems = s->zap ? 2 : 1;
  if (s->ws) { /* the browsers' queue, polled as a raw fd beside the sockets */
    items[nitems].socket = NULL;
    items[nitems].fd = ens__ws_fd(s->ws);
    items[nitems].events = ZMQ_POLLIN;
    nitems++;
  }
  if (s->nheld && (timeout_ms < 0 || timeout_ms > 1)) timeout_ms = 1; /* held entries wait HOLD_US at most */
  if (s->ws && s->status_head != s->head && (timeout_ms < 0 || timeout_ms > 50)) timeout_ms = 50; /* /status catches up */
  if (zmq_poll(items, nitems, timeout_ms) < 0 && errno != EINTR)
    return ens__error(ENS_EIO, "poll: %s", zmq_strerror(errno));
  if (s->zap)
    for (int i = 0; i < 256 && (items[1].revents & ZMQ_POLLIN); i++) {
      s_zap_one(s);
      size_t ev_len = sizeof(int);
      int ev = 0;
      zmq_getsockopt(s->zap, ZMQ_EVENTS, &ev, &ev_len);
      if (!(ev & ZMQ_POLLIN)) break;
    }
  int64_t now = ens__now_ms();
  int rc = 0;
  for (int i = 0; i < DRAIN_MAX; i++) {
    rc = s_recv_one(s, now);
    if (rc <= 0) break;
  }
  if (rc < 0) return rc;
  if (s->ws && (rc = s_ws_drain(s, now)) < 0) return rc;
  rc = ens__server_flush(s, now);
  if (rc == 0 && s->ws) s_ws_status(s, now);
  return rc;
}

/* --- life ---------------------------------------------------------------------------------- */

typedef struct {
  ens_server *s;
  int rc;
} s_replay;

/* Applies a log entry to the document and takes its ctn as its client's
 * last decided one: the clients table has them only as of the latest
 * checkpoint (and rejects). */
static int s_replay_entry(const ens__entry *e, void *user) {
  s_replay *r = user;
  s_client *c = s_client_find(r->s, e->client);
  ens__client_rec rec = {e->client, e->site, 0, 0, 1};
  if (!c && s_client_add(r->s, &rec, &c)) {
    r->rc = ENS_ENOMEM;
    return 1;
  }
  if (e->ctn > c->last_ctn) c->last_ctn = e->ctn;
  c->made = 1;
  ens_txn *t = NULL;
  int rc = ens_txn_decode(e->txn, e->len, &t);
  if (rc == 0) rc = ens_doc_apply(r->s->doc, t, ENS_ORIGIN_REMOTE, NULL);
  ens_txn_free(t);
  if (rc) r->rc = ens__error_prefix(rc, "log entry %llu does not apply: ", (unsigned long long)e->seq);
  return rc ? 1 : 0;
}

/* The document a store without one starts from: the host's, the one its
 * callback reads (a file, read only now that it is needed), or an empty
 * one. */
static int s_initial(ens_server *s, unsigned char **snap, size_t *len) {
  if (s->opts.initial) {
    int rc = ens_snapshot_encode(s->opts.initial, snap, len);
    return rc ? rc : ens_snapshot_decode(*snap, *len, &s->doc);
  }
  if (s->opts.load_initial) {
    ens_doc *d = NULL;
    int rc = s->opts.load_initial(&d, s->opts.user);
    if (rc) {
      ens_doc_free(d);
      return rc < 0 ? rc : ens__error(ENS_EIO, "the host gave no document to start from");
    }
    s->doc = d;
  }
  if (!s->doc && !(s->doc = ens_doc_new(s->opts.doc_kind ? s->opts.doc_kind : "document", 0)))
    return ENS_ENOMEM;
  return ens_snapshot_encode(s->doc, snap, len);
}

static int s_load(ens_server *s) {
  unsigned char *snap = NULL;
  size_t len = 0;
  uint64_t cp = 0;
  int rc = ens__store_checkpoint_get(s->store, &cp, &snap, &len);
  if (rc == ENS_ENOTFOUND) {
    /* a new store, or one whose first start stopped before its first
     * checkpoint (nothing was ever accepted then: the server binds after
     * this): it starts from the given document, checkpointed at 0 in the
     * same commit as the record of the file it was read from */
    if (ens__store_head(s->store) != 0) return ens__error(ENS_EDECODE, "store has a log but no checkpoint");
    rc = s_initial(s, &snap, &len);
    ens__written w;
    if (rc == 0 && s->opts.initial_file) ens__written_of(s->opts.initial_file, s->opts.initial_file_len, 0, &w);
    if (rc == 0) rc = ens__store_checkpoint_written(s->store, 0, snap, len, 0, s->opts.initial_file ? &w : NULL);
    if (rc == 0) s_snap_keep(s, snap, len, 0);
    else ens_free(snap);
    return rc;
  }
  if (rc) return rc;
  rc = ens_snapshot_decode(snap, len, &s->doc);
  if (rc) {
    ens_free(snap);
    return ens__error_prefix(rc, "store checkpoint: ");
  }
  s_snap_keep(s, snap, len, cp);
  s->checkpoint_seq = cp;
  s_replay r = {s, 0};
  rc = ens__store_read(s->store, cp + 1, ens__store_head(s->store), s_replay_entry, &r);
  return r.rc ? r.rc : rc;
}

static int s_new(const ens_server_opts *opts, int detached, ens_server **out) {
  *out = NULL;
  if (!opts || (!opts->endpoint && !detached) || !opts->store_path)
    return ens__error(ENS_EINVAL, "a server needs an endpoint and a store");
  if (!detached) {
    int curve = opts->secret_key || opts->authorized_keys;
    if (curve && (!opts->secret_key || !ens_authorized_keys_count(opts->authorized_keys)))
      return ens__error(ENS_EINVAL, "encryption needs the server's secret key and at least one authorised client key");
    if (curve && !ens_key_is_valid(opts->secret_key))
      return ens__error(ENS_EINVAL, "the server's secret key is not 40 characters of Z85");
    if (curve && !zmq_has("curve")) return ens__error(ENS_EIO, "this libzmq has no CURVE encryption");
    if (!curve && !opts->insecure && !ens_endpoint_is_local(opts->endpoint))
      return ens__error(ENS_EINVAL,
                        "without keys a server binds only to endpoints local to this machine, not %s", opts->endpoint);
  }
  ens_server *s = calloc(1, sizeof *s);
  if (!s) return ens__error(ENS_ENOMEM, "out of memory creating a server");
  s->opts = *opts;
  if (!s->opts.checkpoint_every) s->opts.checkpoint_every = 1000;
  if (!s->opts.log_keep) s->opts.log_keep = 10000;
  if (!s->opts.heartbeat_ms) s->opts.heartbeat_ms = 500;
  /* A group holds at most a window per client, and a client waits for its
   * acks, so one client's rate is at most a window per fsync: 64 capped it
   * near 40k/s on a disk doing a few thousand fsyncs a second. */
  if (!s->opts.window) s->opts.window = 256;
  if (!s->opts.max_unread) s->opts.max_unread = 64u << 20;
  s->next_site = 1;
  s->site_max = ENS_SITE_MAX;
  s->idle_max = IDLE_CLIENTS;
  int rc;
  if (!(s->hellos = ens__hello_limit_new(HELLO_BURST, HELLO_EVERY_MS))) {
    rc = ens__error(ENS_ENOMEM, "out of memory creating a server");
    goto fail;
  }
  if ((rc = ens__store_open(opts->store_path, &s->store))) goto fail;
  if ((rc = ens__store_clients(s->store, s_load_client, s))) goto fail;
  if ((rc = s_load(s))) goto fail;
  /* from here on, its format's rules judge what clients send; the log
   * replayed above was judged when it was accepted */
  if ((rc = ens_format_attach(s->doc))) goto fail;
  s->head = s->applied = ens__store_head(s->store);
  if (detached) {
    *out = s;
    return 0;
  }
  s->ctx = zmq_ctx_new();
  s->sock = s->ctx ? zmq_socket(s->ctx, ZMQ_ROUTER) : NULL;
  if (!s->sock) {
    rc = ens__error(ENS_EIO, "zmq: %s", zmq_strerror(errno));
    goto fail;
  }
  int one = 1, zero = 0, hwm = SNDHWM, rcvhwm = (int)s->opts.window + RCVHWM_EXTRA;
  int64_t maxmsg = ENS_MAX_MESSAGE;
  zmq_setsockopt(s->sock, ZMQ_ROUTER_MANDATORY, &one, sizeof one);
  zmq_setsockopt(s->sock, ZMQ_LINGER, &zero, sizeof zero);
  zmq_setsockopt(s->sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(s->sock, ZMQ_RCVHWM, &rcvhwm, sizeof rcvhwm);
  zmq_setsockopt(s->sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
  if (opts->secret_key) {
    /* the ZAP socket is bound before the ROUTER so that no handshake can
     * find it missing; ZAP_ENFORCE_DOMAIN makes a missing handler refuse
     * rather than let every key in: CURVE without a handler accepts any
     * client key */
    s->keys = ens__authorized_keys_copy(opts->authorized_keys);
    s->zap = s->keys ? zmq_socket(s->ctx, ZMQ_REP) : NULL;
    if (!s->zap || zmq_setsockopt(s->zap, ZMQ_LINGER, &zero, sizeof zero) ||
        zmq_bind(s->zap, "inproc://zeromq.zap.01") != 0) {
      rc = ens__error(ENS_EIO, "cannot start the key check: %s", zmq_strerror(errno));
      goto fail;
    }
    if (zmq_setsockopt(s->sock, ZMQ_CURVE_SERVER, &one, sizeof one) ||
        zmq_setsockopt(s->sock, ZMQ_CURVE_SECRETKEY, opts->secret_key, ENS_KEY_LEN + 1) ||
        zmq_setsockopt(s->sock, ZMQ_ZAP_DOMAIN, "ensemble", 8)) {
      rc = ens__error(ENS_EIO, "cannot turn encryption on: %s", zmq_strerror(errno));
      goto fail;
    }
    zmq_setsockopt(s->sock, ZMQ_ZAP_ENFORCE_DOMAIN, &one, sizeof one); /* our handler is there anyway */
  }
  s->opts.secret_key = NULL; /* not kept: libzmq holds it */
  s->opts.authorized_keys = NULL;
  if (zmq_bind(s->sock, opts->endpoint) != 0) {
    rc = ens__error(ENS_EIO, "bind %s: %s", opts->endpoint, zmq_strerror(errno));
    goto fail;
  }
  size_t elen = sizeof s->endpoint;
  zmq_getsockopt(s->sock, ZMQ_LAST_ENDPOINT, s->endpoint, &elen);
  *out = s;
  return 0;
fail:
  ens_server_free(s);
  return rc;
}

int ens_server_new(const ens_server_opts *opts, ens_server **out) { return s_new(opts, 0, out); }

int ens__server_new_detached(const ens_server_opts *opts, ens_server **out) { return s_new(opts, 1, out); }

int ens__server_handle(ens_server *s, const void *rid, size_t rid_len, const void *data, size_t len, int64_t now_ms) {
  if (rid_len == 0 || rid_len > 255) return ens__error(ENS_EINVAL, "a routing id is 1..255 bytes");
  return s_handle(s, rid, rid_len, NULL, data, len, now_ms);
}

int ens__server_flush(ens_server *s, int64_t now_ms) {
  s->now = now_ms;
  int rc = s_flush(s);
  if (rc) return rc;
  s_held_send_due(s);
  s_sweep(s, now_ms);
  if (s->opts.checkpoint_every && s->head - s->checkpoint_seq >= s->opts.checkpoint_every)
    return ens_server_checkpoint(s);
  return 0;
}

size_t ens__server_sent(const ens_server *s) { return s->sent; }

void ens__server_set_sites(ens_server *s, uint32_t site_max, size_t idle_max) {
  s->site_max = site_max && site_max < ENS_SITE_MAX ? site_max : ENS_SITE_MAX;
  s->idle_max = idle_max;
}

size_t ens__server_clients(const ens_server *s) { return s->nclients; }

int ens__server_client_at(const ens_server *s, size_t i, ens__client_rec *out) {
  if (i >= s->nclients) return ENS_ENOTFOUND;
  *out = s_rec(s->clients[i]);
  return 0;
}
size_t ens__server_held(const ens_server *s) { return s->nheld; }
struct ens__store *ens__server_store(ens_server *s) { return s->store; }

/* --- the host's own changes ------------------------------------------------------------ */

static int s_host(ens_server *s, s_client **out) {
  s_client *c = s_client_find(s, s_host_id);
  if (!c) {
    /* a fresh site, never handed on: the host counts as having made
     * something from the start */
    if (s->next_site > s->site_max) return ens__error(ENS_ELIMIT, "no sites left for the host");
    ens__client_rec rec = {s_host_id, s->next_site, 0, 0, 1};
    int rc = s_client_add(s, &rec, &c);
    if (rc) return rc;
    s_dirty(s, c);
    if ((rc = s_flush(s))) return rc; /* the site outlives a crash before its first change */
  }
  *out = c;
  return 0;
}

int ens_server_host_site(ens_server *s, uint32_t *site) {
  *site = 0;
  if (s->running) return ens__error(ENS_EINVAL, "the server runs on its thread");
  s_client *c;
  int rc = s_host(s, &c);
  if (rc == 0) *site = c->site;
  return rc;
}

int ens_server_commit(ens_server *s, const ens_txn *txn) {
  if (s->running) return ens__error(ENS_EINVAL, "the server runs on its thread");
  if (!txn) return ens__error(ENS_EINVAL, "no transaction");
  s_client *c;
  int rc = s_host(s, &c);
  if (rc) return rc;
  unsigned char *b = NULL;
  size_t n = 0;
  /* encoded before it applies, so that a failure leaves the document as
   * the log has it */
  if ((rc = ens_txn_encode(txn, &b, &n))) return rc;
  if (n > ENS_MAX_TXN_BYTES) {
    ens_free(b);
    return ens__error(ENS_ELIMIT, "transaction too large (%zu bytes, at most %u)", n, (unsigned)ENS_MAX_TXN_BYTES);
  }
  s_out o = {0};
  o.client = c;
  o.len = n;
  o.time_us = ens__now_us();
  o.txn = malloc(n ? n : 1);
  if (!o.txn) {
    ens_free(b);
    return ens__error(ENS_ENOMEM, "out of memory keeping a transaction");
  }
  memcpy(o.txn, b, n);
  ens_free(b);
  if ((rc = ens_doc_apply(s->doc, txn, ENS_ORIGIN_REMOTE, NULL))) {
    free(o.txn);
    return rc;
  }
  o.ctn = ++c->last_ctn;
  o.seq = ++s->applied;
  if ((rc = s_out_push(s, &o))) {
    free(o.txn);
    return rc;
  }
  return s_flush(s);
}

static void *s_thread(void *arg) {
  ens_server *s = arg;
  while (!atomic_load(&s->stop)) {
    int rc = ens_server_poll(s, 50);
    if (rc) {
      s->thread_rc = rc;
      break;
    }
  }
  return NULL;
}

int ens_server_start(ens_server *s) {
  if (s->running) return ens__error(ENS_EINVAL, "the server already runs");
  atomic_store(&s->stop, 0);
  s->thread_rc = 0;
  if (pthread_create(&s->thread, NULL, s_thread, s) != 0) return ens__error(ENS_EIO, "could not start a thread");
  s->running = 1;
  return 0;
}

int ens_server_stop(ens_server *s) {
  if (!s->running) return 0;
  atomic_store(&s->stop, 1);
  pthread_join(s->thread, NULL);
  s->running = 0;
  return s->thread_rc;
}

const ens_doc *ens_server_doc(const ens_server *s) { return s->doc; }
uint64_t ens_server_head(const ens_server *s) { return s->head; }
uint64_t ens_server_epoch(const ens_server *s) { return ens__store_epoch(s->store); }
const char *ens_server_endpoint(const ens_server *s) { return s->endpoint; }
size_t ens_server_client_count(const ens_server *s) { return s->npeers; }

int ens_server_http(ens_server *s, const ens_server_http_opts *opts) {
  if (!opts) return ens__error(ENS_EINVAL, "no HTTP options");
  if (s->ws) return ens__error(ENS_EINVAL, "the server already listens on HTTP");
  if (s->running) return ens__error(ENS_EINVAL, "HTTP is started before the server's thread");
  if (!s->sock) return ens__error(ENS_EINVAL, "a detached server has no HTTP");
  int rc = ens__ws_start(opts, &s->ws);
  /* /status holds the document from the first request on, not only after
   * the server's first poll */
  if (rc == 0) s_ws_status(s, ens__now_ms());
  return rc;
}

int ens_server_http_port(const ens_server *s) { return s->ws ? ens__ws_port(s->ws) : 0; }

int ens_server_shutdown(ens_server *s) {
  if (s->shut) return 0;
  s->shut = 1;
  int rc = ens_server_stop(s);
  if (!(s->store && s->doc && s->sock)) return rc;
  int cp = ens_server_checkpoint(s);
  if (cp == 0)
    for (size_t i = 0; i < s->npeers; i++)
      s_send_error_rid(s, s->peers[i]->rid, s->peers[i]->rid_len, ENS_PERR_SHUTDOWN, "server shutting down");
  return cp ? cp : rc;
}

void ens_server_free(ens_server *s) {
  if (!s) return;
  ens_server_shutdown(s);
  if (s->npeers && s->sock) {
    int linger = 200; /* long enough for "shutting down" to leave */
    zmq_setsockopt(s->sock, ZMQ_LINGER, &linger, sizeof linger);
  }
  ens__ws_free(s->ws); /* its thread first: nothing is queued for it after this */
  s->ws = NULL;
  while (s->npeers) s_peer_remove(s, s->npeers - 1, 0);
  s_out_clear(s);
  free(s->out);
  if (s->sock) zmq_close(s->sock);
  if (s->zap) zmq_close(s->zap);
  if (s->ctx) zmq_ctx_term(s->ctx);
  ens_authorized_keys_free(s->keys);
  ens__store_close(s->store);
  ens_doc_free(s->doc);
  ens__hello_limit_free(s->hellos);
  for (size_t i = 0; i < s->nclients; i++) free(s->clients[i]);
  free(s->clients);
  free(s->forget);
  free(s->gone);
  ens__buf_free(&s->scratch);
  ens__buf_free(&s->scratch2);
  ens_free(s->snap);
  free(s);
}
