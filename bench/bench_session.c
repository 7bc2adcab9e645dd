/* Sessions beside plain ZeroMQ on loopback, each figure with and without
 * CurveZMQ, every Ensemble figure next to the plain-transport figure of the
 * same shape measured in the same run (the floor any protocol on this
 * transport sits on):
 *
 *   rtt      K clients (K = 1, 4, 16), each on its own thread with its own
 *            ZeroMQ context, commit one single-property transaction and wait
 *            for its ack, over and over; beside it K DEALERs echoed by a
 *            ROUTER thread with messages of the same size as the encoded
 *            transaction message. p50/p99 of every round of every client.
 *            The log is on tmpfs, so that the figure is the protocol's and
 *            not the disk's; at K = 1 also on disk ("ensemble_disk").
 *            Also the echo committing each drained batch to SQLite on
 *            tmpfs before answering ("zmq_sqlite"): the floor of anything
 *            that acknowledges after its log is durable. At K = 1 also
 *            the echo whose client pauses 5 µs (busy, untimed) between an
 *            answer and its next send ("zmq_pause"): ZeroMQ's I/O thread
 *            has gone to sleep by then and the send must wake it, which
 *            the plain echo's client, sending at once, never pays and any
 *            client that does work between rounds always does. All systems of
 *            one K are up at once and take turns in blocks of 20 rounds,
 *            so that the host's slow patches fall on all of them alike.
 *   durable  one client keeps its window full; acknowledged transactions per
 *            second with the log on disk (fsync per group commit) and on
 *            tmpfs; beside it plain SQLite (WAL, synchronous=FULL) commits
 *            of one row per second in the same directory.
 *   fanout   one writer keeps its window full while K = 16 receivers apply
 *            every transaction: deliveries (transactions x receivers) per
 *            second; beside it a ROUTER forwarding each message of a writer
 *            to 16 DEALERs.
 *   join     a client joins a session on DejaVuSansMono.sfd: from
 *            ens_session_new to CONNECTED with the document. The font is
 *            $ENSEMBLE_CORPUS/sfd/dejavu/ (default ../shared/corpus); the
 *            figure is skipped, with a line saying so, without it.
 *
 *   bench_session [--quick] [--only rtt|rtt1|rtt16|durable|fanout|join] [--system NAME] [--font SFD]
 *   (--font: the font join opens instead of the corpus's DejaVuSansMono)
 *
 * --system runs only that system's round trips (for a profiler).
 *
 * prints one JSON object per line (bench/report_session.mjs reads them). */
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "ensemble.h"
#include "sync/msg.h"
#include "sync/net.h"

#define MAXK 16

static int s_quick;
static const char *s_system; /* --system: the one rtt system to run (profiling) */

static int s_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int64_t s_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void s_die(const char *what) {
  fprintf(stderr, "bench_session: %s: %s\n", what, ens_error_last());
  exit(1);
}

/* Keys for one run: the server's pair and the clients' pair, listed. */
typedef struct {
  ens_keypair server, client;
  ens_authorized_keys *list;
} s_keys;

static void s_keys_make(s_keys *k) {
  ens_keypair_generate(&k->server);
  ens_keypair_generate(&k->client);
  k->list = ens_authorized_keys_new();
  ens_authorized_keys_add(k->list, k->client.public_key, "bench");
}

static void s_curve_client(void *sock, const s_keys *k) {
  zmq_setsockopt(sock, ZMQ_CURVE_SERVERKEY, k->server.public_key, ENS_KEY_LEN + 1);
  zmq_setsockopt(sock, ZMQ_CURVE_PUBLICKEY, k->client.public_key, ENS_KEY_LEN + 1);
  zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, k->client.secret_key, ENS_KEY_LEN + 1);
}

/* The bytes of a txn message carrying a single-property set, as a client
 * sends it: what the plain echo sends in its place. */
static size_t s_txn_message_size(void) {
  ens_txn *t = ens_txn_new("Set", NULL);
  ens_txn_set(t, 2, "x", ens_int(123456));
  unsigned char *b;
  size_t n;
  ens_txn_encode(t, &b, &n);
  static ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = ENS_MSG_TXN;
  m.ctn = 1000;
  m.bytes = b;
  m.nbytes = n;
  ens_buf out = ENS_BUF_INIT;
  ens__msg_encode(&m, &out);
  size_t len = out.len;
  ens__buf_free(&out);
  ens_free(b);
  ens_txn_free(t);
  return len;
}

/* A barrier for the client threads, so that all of them start a block
 * together; reusable, each round of waiting being one generation. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int waiting, total;
  unsigned generation;
} s_barrier;

static void s_barrier_wait(s_barrier *b) {
  pthread_mutex_lock(&b->mu);
  unsigned gen = b->generation;
  if (++b->waiting == b->total) {
    b->waiting = 0;
    b->generation++;
    pthread_cond_broadcast(&b->cv);
  } else {
    while (gen == b->generation) pthread_cond_wait(&b->cv, &b->mu);
  }
  pthread_mutex_unlock(&b->mu);
}

/* --- plain ZeroMQ: an echo thread and a forwarding thread ------------------------- */

typedef struct {
  void *ctx, *router;
  char endpoint[256];
  atomic_int stop;
  /* 0: echo to the sender; K: forward the writer's messages to the K
   * others; -1: relay every message to every client that has sent one */
  int fanout;
  /* The echo with a durable log: each drained batch is inserted and
   * committed (WAL, synchronous=FULL) before the echoes go out, as a
   * group commit does. The floor of any protocol that answers after its
   * log is durable, on this transport and this disk. */
  sqlite3 *db;
  sqlite3_stmt *ins;
  char db_path[512];
  pthread_t thread;
} s_zserver;

static void s_floor_db_open(s_zserver *z, const char *dir) {
  snprintf(z->db_path, sizeof z->db_path, "%s/bench-echo-%d.db", dir, (int)getpid());
  unlink(z->db_path);
  sqlite3_open(z->db_path, &z->db);
  sqlite3_exec(z->db, "PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                      "CREATE TABLE log(seq INTEGER PRIMARY KEY, txn BLOB NOT NULL);",
               NULL, NULL, NULL);
  sqlite3_prepare_v2(z->db, "INSERT INTO log(txn) VALUES (?1)", -1, &z->ins, NULL);
}

static void s_floor_db_close(s_zserver *z) {
  if (!z->db) return;
  sqlite3_finalize(z->ins);
  sqlite3_close(z->db);
  char p[600];
  unlink(z->db_path);
  snprintf(p, sizeof p, "%s-wal", z->db_path);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", z->db_path);
  unlink(p);
}

static void *s_zserver_run(void *arg) {
  s_zserver *z = arg;
  enum { BATCH = 1024 };
  static _Thread_local unsigned char rids[BATCH][256], bufs[BATCH][512];
  static _Thread_local int rid_len[BATCH], buf_len[BATCH];
  unsigned char rid[256], buf[4096];
  unsigned char peers[MAXK][256];
  size_t npeers = 0, peer_len[MAXK];
  zmq_pollitem_t it = {z->router, 0, ZMQ_POLLIN, 0};
  while (!atomic_load(&z->stop)) {
    if (zmq_poll(&it, 1, 20) <= 0) continue;
    if (z->db) { /* drain, commit the batch, then answer it */
      int nb = 0;
      while (nb < BATCH) {
        int n = zmq_recv(z->router, rids[nb], sizeof rids[nb], ZMQ_DONTWAIT);
        if (n < 0) break;
        int len = zmq_recv(z->router, bufs[nb], sizeof bufs[nb], 0);
        if (len < 0) break;
        rid_len[nb] = n;
        buf_len[nb++] = len;
      }
      sqlite3_exec(z->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
      for (int i = 0; i < nb; i++) {
        sqlite3_bind_blob(z->ins, 1, bufs[i], buf_len[i], SQLITE_STATIC);
        sqlite3_step(z->ins);
        sqlite3_reset(z->ins);
      }
      sqlite3_exec(z->db, "COMMIT", NULL, NULL, NULL);
      for (int i = 0; i < nb; i++) {
        zmq_send(z->router, rids[i], (size_t)rid_len[i], ZMQ_SNDMORE);
        zmq_send(z->router, bufs[i], (size_t)buf_len[i], 0);
      }
      continue;
    }
    for (;;) { /* drain, as the session server does */
      int n = zmq_recv(z->router, rid, sizeof rid, ZMQ_DONTWAIT);
      if (n < 0) break;
      int len = zmq_recv(z->router, buf, sizeof buf, 0);
      if (len < 0) break;
      if (z->fanout < 0) {
        size_t i = 0;
        while (i < npeers && !(peer_len[i] == (size_t)n && memcmp(peers[i], rid, (size_t)n) == 0)) i++;
        if (i == npeers && npeers < MAXK) {
          memcpy(peers[npeers], rid, (size_t)n);
          peer_len[npeers++] = (size_t)n;
        }
        for (i = 0; i < npeers; i++) {
          zmq_send(z->router, peers[i], peer_len[i], ZMQ_SNDMORE);
          zmq_send(z->router, buf, (size_t)len, 0);
        }
      } else if (!z->fanout) {
        zmq_send(z->router, rid, (size_t)n, ZMQ_SNDMORE);
        zmq_send(z->router, buf, (size_t)len, 0);
      } else if (len == 1 && buf[0] == 'R' && npeers < MAXK) { /* a receiver says hello */
        memcpy(peers[npeers], rid, (size_t)n);
        peer_len[npeers++] = (size_t)n;
      } else {
        for (size_t i = 0; i < npeers; i++) {
          zmq_send(z->router, peers[i], peer_len[i], ZMQ_SNDMORE);
          zmq_send(z->router, buf, (size_t)len, 0);
        }
      }
    }
  }
  return NULL;
}

static void s_zserver_start(s_zserver *z, const s_keys *k, int fanout, const char *db_dir) {
  memset(z, 0, sizeof *z);
  z->fanout = fanout;
  if (db_dir) s_floor_db_open(z, db_dir);
  z->ctx = zmq_ctx_new();
  z->router = zmq_socket(z->ctx, ZMQ_ROUTER);
  int hwm = 0, one = 1;
  zmq_setsockopt(z->router, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(z->router, ZMQ_RCVHWM, &hwm, sizeof hwm);
  if (k) { /* no ZAP handler: any client key, as the cost is the cipher's */
    zmq_setsockopt(z->router, ZMQ_CURVE_SERVER, &one, sizeof one);
    zmq_setsockopt(z->router, ZMQ_CURVE_SECRETKEY, k->server.secret_key, ENS_KEY_LEN + 1);
  }
  zmq_bind(z->router, "tcp://127.0.0.1:*");
  size_t len = sizeof z->endpoint;
  zmq_getsockopt(z->router, ZMQ_LAST_ENDPOINT, z->endpoint, &len);
  pthread_create(&z->thread, NULL, s_zserver_run, z);
}

static void s_zserver_stop(s_zserver *z) {
  atomic_store(&z->stop, 1);
  pthread_join(z->thread, NULL);
  zmq_close(z->router);
  zmq_ctx_term(z->ctx);
  s_floor_db_close(z);
}

/* A DEALER that queues whatever comes, connected (with CURVE when keys). */
static void *s_receiver(void *ctx, const char *endpoint, const s_keys *keys) {
  void *d = zmq_socket(ctx, ZMQ_DEALER);
  int hwm = 0;
  zmq_setsockopt(d, ZMQ_RCVHWM, &hwm, sizeof hwm);
  if (keys) s_curve_client(d, keys);
  zmq_connect(d, endpoint);
  return d;
}

/* A server for Ensemble runs: its log in dir, an initial document of
 * nobj objects (ids 2..nobj+1, each with x = 0), or the given document. */
typedef struct {
  ens_server *srv;
  ens_doc *initial;
  char store[512];
} s_eserver;

static void s_eserver_start(s_eserver *e, const char *dir, const s_keys *k, size_t nobj, const ens_doc *doc) {
  memset(e, 0, sizeof *e);
  static atomic_int counter;
  snprintf(e->store, sizeof e->store, "%s/bench-session-%d-%d.db", dir, (int)getpid(), atomic_fetch_add(&counter, 1));
  unlink(e->store);
  if (!doc) {
    e->initial = ens_doc_new("bench", 0);
    ens_txn *t = ens_txn_new("init", NULL);
    for (size_t i = 0; i < nobj; i++) {
      char pos[16];
      snprintf(pos, sizeof pos, "V%03zu1", i); /* a position may not end in 0 */
      ens_node *n = ens_txn_insert(t, ENS_ROOT_ID, pos, (ens_id)(2 + i), "obj");
      ens_node_set(n, "x", ens_int(0));
    }
    if (ens_doc_apply(e->initial, t, ENS_ORIGIN_LOCAL, NULL)) s_die("initial document");
    ens_txn_free(t);
    doc = e->initial;
  }
  ens_server_opts so;
  memset(&so, 0, sizeof so);
  so.endpoint = "tcp://127.0.0.1:*";
  so.store_path = e->store;
  so.initial = doc;
  so.checkpoint_every = 1000000; /* a checkpoint is its own cost, not this one */
  if (k) {
    so.secret_key = k->server.secret_key;
    so.authorized_keys = k->list;
  }
  if (ens_server_new(&so, &e->srv) || ens_server_start(e->srv)) s_die("server");
}

static void s_eserver_stop(s_eserver *e) {
  ens_server_free(e->srv);
  ens_doc_free(e->initial);
  char p[600];
  unlink(e->store);
  snprintf(p, sizeof p, "%s-wal", e->store);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", e->store);
  unlink(p);
}

static ens_session *s_join(const char *endpoint, const s_keys *k, ens_session_event_fn fn, void *user) {
  ens_session_opts co;
  memset(&co, 0, sizeof co);
  co.endpoint = endpoint;
  co.undo_depth = 100;
  co.on_event = fn;
  co.user = user;
  if (k) {
    co.server_key = k->server.public_key;
    co.secret_key = k->client.secret_key;
  }
  ens_session *s;
  if (ens_session_new(&co, &s)) s_die("session");
  int64_t deadline = s_now_us() + 30000000;
  while (!ens_session_is_live(s)) {
    if (ens_session_poll(s, 10) || s_now_us() > deadline) s_die("join");
  }
  return s;
}

static void s_commit_set(ens_session *s, ens_id obj, int64_t v) {
  ens_txn *t = ens_txn_new("Set", NULL);
  ens_txn_set(t, obj, "x", ens_int(v));
  if (ens_session_commit(s, t)) s_die("commit");
  ens_txn_free(t);
}

/* --- round trips ----------------------------------------------------------------- */

/* The systems of a round-trip group, all up at once. The rounds go in
 * short blocks, every client on the same system at a time, the systems
 * taking turns block by block (the first one moving on each cycle), so
 * that a slow patch of a noisy host falls on all of them alike rather than
 * on whichever happened to run then. */
enum { RTT_ZMQ, RTT_ENSEMBLE, RTT_ENSEMBLE_DISK, RTT_ZMQ_SQLITE, RTT_ZMQ_RELAY, RTT_ZMQ_PAUSE, RTT_NSYS };
enum { RTT_PAUSE_US = 5 }; /* zmq_pause: the echo client's pause between an answer and its next send */
enum { RTT_BLOCK = 20 }; /* rounds per client per block; the disk's a fifth of it */

static const char *s_rtt_name(int sys) {
  static const char *names[] = {"zmq", "ensemble", "ensemble_disk", "zmq_sqlite", "zmq_relay", "zmq_pause"};
  return names[sys];
}

static int s_rtt_is_ensemble(int sys) {
  return sys == RTT_ENSEMBLE || sys == RTT_ENSEMBLE_DISK;
}

static size_t s_rtt_block(int sys) {
  return sys == RTT_ENSEMBLE_DISK ? RTT_BLOCK / 5 : RTT_BLOCK;
}

typedef struct {
  int sys[RTT_NSYS], nsys;
  const char *endpoint[RTT_NSYS];
  const s_keys *keys;
  s_barrier *bar;
  size_t cycles, msg_bytes;
  int64_t *lat[RTT_NSYS]; /* every round of each system, client by client */
} s_rtt_group;

typedef struct {
  const s_rtt_group *g;
  int index;  /* which of the K clients */
  ens_id obj; /* Ensemble: the object it sets; the relay: its tag */
} s_rtt_arg;

/* One client's link to one system. */
typedef struct {
  void *ctx, *sock;
  ens_session *s;
  unsigned round; /* the relay: which of its own messages comes back next */
} s_rtt_link;

static void s_rtt_link_open(s_rtt_link *l, int sys, const char *endpoint, const s_keys *keys, ens_id tag,
                            size_t msg_bytes) {
  memset(l, 0, sizeof *l);
  if (s_rtt_is_ensemble(sys)) {
    l->s = s_join(endpoint, keys, NULL, NULL);
    return;
  }
  l->ctx = zmq_ctx_new();
  l->sock = s_receiver(l->ctx, endpoint, keys);
  /* the connection (and CURVE handshake) first, outside the timing; the
   * relay takes this first message as the client joining it */
  unsigned char msg[512] = {(unsigned char)tag, 0xff}, buf[512];
  zmq_send(l->sock, msg, msg_bytes, 0);
  while (zmq_recv(l->sock, buf, sizeof buf, 0) >= 0 && !(buf[0] == msg[0] && buf[1] == 0xff)) {
  }
}

static void s_rtt_link_close(s_rtt_link *l, int sys) {
  if (s_rtt_is_ensemble(sys)) {
    ens_session_free(l->s);
    return;
  }
  if (sys == RTT_ZMQ_RELAY) { /* the others may still be sending: read on until the relay stops */
    unsigned char buf[512];
    int stop_ms = 200;
    zmq_setsockopt(l->sock, ZMQ_RCVTIMEO, &stop_ms, sizeof stop_ms);
    while (zmq_recv(l->sock, buf, sizeof buf, 0) >= 0) {
    }
  }
  zmq_close(l->sock);
  zmq_ctx_term(l->ctx);
}

/* One round: from sending (or committing) to the client's own message
 * back (or its ack). Against the relay the others' messages come in
 * between; the first byte says whose a message is, the second which round. */
static int64_t s_rtt_round(s_rtt_link *l, int sys, ens_id tag, size_t msg_bytes) {
  if (sys == RTT_ZMQ_PAUSE) { /* busy, untimed: what a client does between rounds */
    int64_t until = s_now_us() + RTT_PAUSE_US;
    while (s_now_us() < until) {
    }
  }
  int64_t t0 = s_now_us();
  if (s_rtt_is_ensemble(sys)) {
    s_commit_set(l->s, tag, (int64_t)l->round++);
    while (ens_session_pending(l->s))
      if (ens_session_poll(l->s, 1)) s_die("poll");
    return s_now_us() - t0;
  }
  unsigned char msg[512] = {(unsigned char)tag, (unsigned char)(l->round++ % 0xff)}, buf[512];
  zmq_send(l->sock, msg, msg_bytes, 0);
  while (zmq_recv(l->sock, buf, sizeof buf, 0) >= 0 && !(buf[0] == msg[0] && buf[1] == msg[1])) {
  }
  return s_now_us() - t0;
}

static void *s_rtt_client(void *arg) {
  s_rtt_arg *a = arg;
  const s_rtt_group *g = a->g;
  s_rtt_link links[RTT_NSYS];
  for (int j = 0; j < g->nsys; j++)
    s_rtt_link_open(&links[j], g->sys[j], g->endpoint[j], g->keys, a->obj, g->msg_bytes);
  size_t done[RTT_NSYS]; /* where this client's next round of each system goes */
  for (int j = 0; j < g->nsys; j++) done[j] = (size_t)a->index * g->cycles * s_rtt_block(g->sys[j]);
  for (size_t c = 0; c < g->cycles; c++)
    for (int t = 0; t < g->nsys; t++) {
      int j = (int)((c + (size_t)t) % (size_t)g->nsys);
      s_barrier_wait(g->bar);
      for (size_t r = 0; r < s_rtt_block(g->sys[j]); r++)
        g->lat[j][done[j]++] = s_rtt_round(&links[j], g->sys[j], a->obj, g->msg_bytes);
    }
  for (int j = 0; j < g->nsys; j++) s_rtt_link_close(&links[j], g->sys[j]);
  return NULL;
}

/* K clients against every system of the group, interleaved; one JSON line
 * per system, as if each had run alone. */
static void s_rtt(int curve, int k, size_t cycles, size_t msg_bytes) {
  s_keys keys;
  if (curve) s_keys_make(&keys);
  const s_keys *kp = curve ? &keys : NULL;
  s_barrier bar = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, k, 0};
  s_rtt_group g = {.keys = kp, .bar = &bar, .cycles = cycles, .msg_bytes = msg_bytes};
  static const int order[] = {RTT_ZMQ, RTT_ZMQ_PAUSE, RTT_ZMQ_SQLITE, RTT_ZMQ_RELAY, RTT_ENSEMBLE, RTT_ENSEMBLE_DISK};
  for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
    int sys = order[i];
    if (sys == RTT_ZMQ_RELAY && k == 1) continue;       /* the echo, at K = 1 */
    if (sys == RTT_ZMQ_PAUSE && k != 1) continue;       /* at K > 1 the others keep it busy */
    if (sys == RTT_ENSEMBLE_DISK && k != 1) continue;   /* what the fsync adds, once */
    if (s_system && strcmp(s_system, s_rtt_name(sys)) != 0) continue;
    g.sys[g.nsys++] = sys;
  }
  if (!g.nsys) return;
  s_zserver z[RTT_NSYS];
  s_eserver e[RTT_NSYS];
  for (int j = 0; j < g.nsys; j++) {
    int sys = g.sys[j];
    if (s_rtt_is_ensemble(sys)) {
      s_eserver_start(&e[j], sys == RTT_ENSEMBLE_DISK ? "/tmp" : "/dev/shm", kp, (size_t)k, NULL);
      g.endpoint[j] = ens_server_endpoint(e[j].srv);
    } else {
      s_zserver_start(&z[j], kp, sys == RTT_ZMQ_RELAY ? -1 : 0, sys == RTT_ZMQ_SQLITE ? "/dev/shm" : NULL);
      g.endpoint[j] = z[j].endpoint;
    }
    g.lat[j] = malloc((size_t)k * cycles * s_rtt_block(sys) * sizeof(int64_t));
  }
  s_rtt_arg args[MAXK];
  pthread_t th[MAXK];
  for (int i = 0; i < k; i++) {
    args[i] = (s_rtt_arg){&g, i, (ens_id)(2 + i)};
    pthread_create(&th[i], NULL, s_rtt_client, &args[i]);
  }
  for (int i = 0; i < k; i++) pthread_join(th[i], NULL);
  for (int j = 0; j < g.nsys; j++) {
    size_t n = (size_t)k * cycles * s_rtt_block(g.sys[j]);
    int64_t *all = g.lat[j];
    qsort(all, n, sizeof *all, s_cmp);
    printf("{\"bench\": \"rtt\", \"system\": \"%s\", \"curve\": %d, \"k\": %d, \"msg_bytes\": %zu, \"n\": %zu, "
           "\"interleaved_with\": %d, \"p50_us\": %lld, \"p99_us\": %lld}\n",
           s_rtt_name(g.sys[j]), curve, k, msg_bytes, n, g.nsys - 1, (long long)all[n / 2],
           (long long)all[n * 99 / 100]);
    free(all);
    if (s_rtt_is_ensemble(g.sys[j])) s_eserver_stop(&e[j]);
    else s_zserver_stop(&z[j]);
  }
  fflush(stdout);
  if (curve) ens_authorized_keys_free(keys.list);
}

/* --- durable throughput ---------------------------------------------------------------- */

static void s_durable(const char *store, const char *dir, int curve, size_t txns) {
  s_keys keys;
  if (curve) s_keys_make(&keys);
  s_eserver e;
  s_eserver_start(&e, dir, curve ? &keys : NULL, 1, NULL);
  ens_session *s = s_join(ens_server_endpoint(e.srv), curve ? &keys : NULL, NULL, NULL);
  uint64_t seq0 = ens_session_seq(s);
  int64_t t0 = s_now_us();
  size_t i = 0;
  /* keep a little more than a window queued: what an editor committing
   * faster than the server answers would hold */
  while (i < txns || ens_session_pending(s)) {
    while (i < txns && ens_session_pending(s) < 2048) s_commit_set(s, 2, (int64_t)i++);
    if (ens_session_poll(s, 1)) s_die("poll");
  }
  double secs = (double)(s_now_us() - t0) / 1e6;
  uint64_t acked = ens_session_seq(s) - seq0;
  printf("{\"bench\": \"durable\", \"store\": \"%s\", \"curve\": %d, \"txns\": %llu, \"secs\": %.3f, "
         "\"per_sec\": %.0f}\n",
         store, curve, (unsigned long long)acked, secs, (double)acked / secs);
  fflush(stdout);
  ens_session_free(s);
  s_eserver_stop(&e);
  if (curve) ens_authorized_keys_free(keys.list);
}

/* Plain SQLite in the same directory and mode as the log: one row per
 * COMMIT, each COMMIT an fsync. Its rate times the rows per group is the
 * ceiling of any log that acknowledges after fsync. */
static void s_sqlite_floor(const char *store, const char *dir, size_t commits) {
  char path[512];
  snprintf(path, sizeof path, "%s/bench-sqlite-%d.db", dir, (int)getpid());
  unlink(path);
  sqlite3 *db;
  sqlite3_open(path, &db);
  sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                   "CREATE TABLE log(seq INTEGER PRIMARY KEY, txn BLOB NOT NULL);",
               NULL, NULL, NULL);
  sqlite3_stmt *ins;
  sqlite3_prepare_v2(db, "INSERT INTO log(seq, txn) VALUES (?1, ?2)", -1, &ins, NULL);
  unsigned char blob[24] = {0};
  int64_t t0 = s_now_us();
  for (size_t i = 0; i < commits; i++) {
    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    sqlite3_bind_int64(ins, 1, (sqlite3_int64)i + 1);
    sqlite3_bind_blob(ins, 2, blob, sizeof blob, SQLITE_STATIC);
    sqlite3_step(ins);
    sqlite3_reset(ins);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  }
  double secs = (double)(s_now_us() - t0) / 1e6;
  sqlite3_finalize(ins);
  sqlite3_close(db);
  printf("{\"bench\": \"sqlite_commit\", \"store\": \"%s\", \"commits\": %zu, \"per_sec\": %.0f}\n", store, commits,
         (double)commits / secs);
  fflush(stdout);
  char p[600];
  unlink(path);
  snprintf(p, sizeof p, "%s-wal", path);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", path);
  unlink(p);
}

/* --- fan-out ------------------------------------------------------------------------------- */

typedef struct {
  const char *endpoint;
  const s_keys *keys;
  s_barrier *ready;
  uint64_t target; /* Ensemble: the seq to reach; plain: messages to receive */
  atomic_uint_fast64_t *goal; /* Ensemble: set once the writer knows the last seq */
  int64_t done_us;
  size_t msg_bytes;
} s_fan_arg;

static void *s_fan_ens(void *arg) {
  s_fan_arg *a = arg;
  ens_session *s = s_join(a->endpoint, a->keys, NULL, NULL);
  s_barrier_wait(a->ready);
  for (;;) {
    uint64_t goal = atomic_load(a->goal);
    if (goal && ens_session_seq(s) >= goal) break;
    if (ens_session_poll(s, 5)) s_die("poll");
  }
  a->done_us = s_now_us();
  ens_session_free(s);
  return NULL;
}

static void *s_fan_zmq(void *arg) {
  s_fan_arg *a = arg;
  void *ctx = zmq_ctx_new(), *d = s_receiver(ctx, a->endpoint, a->keys);
  zmq_send(d, "R", 1, 0);
  unsigned char buf[512];
  s_barrier_wait(a->ready);
  for (uint64_t i = 0; i < a->target; i++) zmq_recv(d, buf, sizeof buf, 0);
  a->done_us = s_now_us();
  zmq_close(d);
  zmq_ctx_term(ctx);
  return NULL;
}

static void s_fanout(int ensemble, int curve, int k, size_t txns, size_t msg_bytes) {
  s_keys keys;
  if (curve) s_keys_make(&keys);
  s_zserver z;
  s_eserver e;
  const char *endpoint;
  if (ensemble) {
    s_eserver_start(&e, "/dev/shm", curve ? &keys : NULL, 1, NULL);
    endpoint = ens_server_endpoint(e.srv);
  } else {
    s_zserver_start(&z, curve ? &keys : NULL, k, NULL);
    endpoint = z.endpoint;
  }
  s_barrier ready = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, k + 1, 0};
  atomic_uint_fast64_t goal = 0;
  s_fan_arg args[MAXK];
  pthread_t th[MAXK];
  for (int i = 0; i < k; i++) {
    args[i] = (s_fan_arg){endpoint, curve ? &keys : NULL, &ready, txns, &goal, 0, msg_bytes};
    pthread_create(&th[i], NULL, ensemble ? s_fan_ens : s_fan_zmq, &args[i]);
  }
  int64_t t0, written = 0;
  if (ensemble) {
    ens_session *w = s_join(endpoint, curve ? &keys : NULL, NULL, NULL);
    s_barrier_wait(&ready);
    uint64_t seq0 = ens_session_seq(w);
    t0 = s_now_us();
    size_t i = 0;
    while (i < txns || ens_session_pending(w)) {
      while (i < txns && ens_session_pending(w) < 2048) s_commit_set(w, 2, (int64_t)i++);
      if (ens_session_poll(w, 1)) s_die("poll");
    }
    written = s_now_us();
    atomic_store(&goal, seq0 + txns);
    for (int j = 0; j < k; j++) pthread_join(th[j], NULL);
    ens_session_free(w);
  } else {
    void *ctx = zmq_ctx_new(), *d = zmq_socket(ctx, ZMQ_DEALER);
    int hwm = 0;
    zmq_setsockopt(d, ZMQ_SNDHWM, &hwm, sizeof hwm);
    if (curve) s_curve_client(d, &keys);
    zmq_connect(d, endpoint);
    usleep(200000); /* the receivers' hellos reach the forwarder first */
    s_barrier_wait(&ready);
    usleep(100000);
    unsigned char msg[512] = {1};
    t0 = s_now_us();
    for (size_t i = 0; i < txns; i++) zmq_send(d, msg, msg_bytes, 0);
    written = s_now_us();
    for (int j = 0; j < k; j++) pthread_join(th[j], NULL);
    zmq_close(d);
    zmq_ctx_term(ctx);
  }
  int64_t end = 0;
  for (int i = 0; i < k; i++)
    if (args[i].done_us > end) end = args[i].done_us;
  double secs = (double)(end - t0) / 1e6;
  printf("{\"bench\": \"fanout\", \"system\": \"%s\", \"curve\": %d, \"k\": %d, \"txns\": %zu, \"msg_bytes\": %zu, "
         "\"secs\": %.3f, \"written_secs\": %.3f, \"per_sec\": %.0f}\n",
         ensemble ? "ensemble" : "zmq", curve, k, txns, msg_bytes, secs, (double)(written - t0) / 1e6,
         (double)txns * k / secs);
  fflush(stdout);
  if (ensemble) s_eserver_stop(&e);
  else s_zserver_stop(&z);
  if (curve) ens_authorized_keys_free(keys.list);
}

/* --- join ------------------------------------------------------------------------------------ */

static void s_join_font(const char *path, int curve, int times) {
  ens_doc *doc;
  if (ens_sfd_read_path(path, &doc)) s_die(path);
  s_keys keys;
  if (curve) s_keys_make(&keys);
  s_eserver e;
  s_eserver_start(&e, "/dev/shm", curve ? &keys : NULL, 0, doc);
  int64_t *ms = malloc((size_t)times * sizeof *ms);
  for (int i = 0; i < times; i++) {
    int64_t t0 = s_now_us();
    ens_session *s = s_join(ens_server_endpoint(e.srv), curve ? &keys : NULL, NULL, NULL);
    ms[i] = s_now_us() - t0;
    if (ens_doc_hash(ens_session_doc(s)) != ens_doc_hash(doc)) s_die("the joined document differs");
    ens_session_free(s);
  }
  qsort(ms, (size_t)times, sizeof *ms, s_cmp);
  unsigned char *snap;
  size_t len;
  ens_snapshot_encode(doc, &snap, &len);
  const char *base = strrchr(path, '/');
  printf("{\"bench\": \"join\", \"font\": \"%s\", \"curve\": %d, \"objects\": %zu, \"snapshot_bytes\": %zu, "
         "\"n\": %d, \"p50_ms\": %.1f, \"max_ms\": %.1f}\n",
         base ? base + 1 : path, curve, ens_doc_count(doc), len, times, (double)ms[times / 2] / 1e3,
         (double)ms[times - 1] / 1e3);
  fflush(stdout);
  ens_free(snap);
  free(ms);
  s_eserver_stop(&e);
  ens_doc_free(doc);
  if (curve) ens_authorized_keys_free(keys.list);
}

int main(int argc, char **argv) {
  const char *only = NULL, *font = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) s_quick = 1;
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else if (strcmp(argv[i], "--system") == 0 && i + 1 < argc) s_system = argv[++i];
    else if (strcmp(argv[i], "--font") == 0 && i + 1 < argc) font = argv[++i];
    else {
      fprintf(stderr, "usage: bench_session [--quick] [--only rtt|rtt1|rtt16|durable|fanout|join]\n"
                      "                     [--system zmq|zmq_pause|zmq_sqlite|zmq_relay|ensemble|ensemble_disk]\n"
                      "                     [--font SFD]\n");
      return 2;
    }
  }
  size_t q = s_quick ? 10 : 1;
  size_t msg_bytes = s_txn_message_size();
  static const int ks[] = {1, 4, 16};
  /* K = 1 or K = 16 alone, for quick comparisons */
  int k1 = only && strcmp(only, "rtt1") == 0, k16 = only && strcmp(only, "rtt16") == 0;
  if (!only || strcmp(only, "rtt") == 0 || k1 || k16)
    for (int curve = 0; curve <= 1; curve++)
      for (size_t i = k16 ? 2 : 0; i < (k1 ? 1 : sizeof ks / sizeof *ks); i++) {
        size_t rounds = (ks[i] == 1 ? 5000 : ks[i] == 4 ? 2000 : 600) / q; /* per client and system */
        s_rtt(curve, ks[i], rounds / RTT_BLOCK, msg_bytes);
      }
  if (!only || strcmp(only, "durable") == 0) {
    s_sqlite_floor("disk", "/tmp", 2000 / q);
    s_sqlite_floor("tmpfs", "/dev/shm", 20000 / q);
    for (int curve = 0; curve <= 1; curve++) {
      s_durable("disk", "/tmp", curve, 200000 / q);
      s_durable("tmpfs", "/dev/shm", curve, 200000 / q);
    }
  }
  if (!only || strcmp(only, "fanout") == 0)
    for (int curve = 0; curve <= 1; curve++) {
      s_fanout(0, curve, MAXK, 50000 / q, msg_bytes);
      s_fanout(1, curve, MAXK, 50000 / q, msg_bytes);
    }
  if (!only || strcmp(only, "join") == 0) {
    const char *corpus = getenv("ENSEMBLE_CORPUS");
    char path[1024];
    if (font) snprintf(path, sizeof path, "%s", font);
    else snprintf(path, sizeof path, "%s/sfd/dejavu/DejaVuSansMono.sfd", corpus ? corpus : "../shared/corpus");
    if (access(path, R_OK) != 0) {
      printf("{\"bench\": \"join\", \"skipped\": \"no corpus font at %s\"}\n", path);
    } else {
      for (int curve = 0; curve <= 1; curve++) s_join_font(path, curve, s_quick ? 3 : 11);
    }
  }
  return 0;
}
