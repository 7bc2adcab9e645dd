/* Session security on loopback (docs/protocol.md, "Security"): a CurveZMQ
 * server with three authorised keys. A client whose key is not listed,
 * one without encryption, and one that names the wrong server key never
 * receive anything and never get a change in; an authorised client that
 * sends garbage, truncated, out-of-order, oversized or multipart messages
 * gets an error and is dropped, while two others go on converging without
 * a single reconnect. Clients of protocol versions 1 and 2 read the same
 * log, each in its own messages, and rebuild the server's document.
 * A client learns the key's name it is shown by. One key's new client ids
 * that made nothing take each other's sites past its limit of 64; 64 that
 * made something hold it there. Bounded in time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>
#include <zmq.h>

#include "ensemble.h"
#include "sync/msg.h"
#include "sync/net.h"
#include "testutil.h"

enum { GOOD = 2 };

typedef struct {
  ens_session *s;
  tu_rng r;
  size_t connected, reconnecting, failed, acked;
  int fail_code;
  char fail_message[256];
  char seen_name[128]; /* the last collaborator name it was shown */
} s_peer;

static void s_on_event(ens_session *s, const ens_session_event *ev, void *user) {
  (void)s;
  s_peer *p = user;
  switch (ev->kind) {
  case ENS_SESSION_CONNECTED: p->connected++; break;
  case ENS_SESSION_RECONNECTING: p->reconnecting++; break;
  case ENS_SESSION_ACKED: p->acked++; break;
  case ENS_SESSION_FAILED:
    p->failed++;
    p->fail_code = ev->code;
    snprintf(p->fail_message, sizeof p->fail_message, "%s", ev->message ? ev->message : "");
    break;
  case ENS_SESSION_JOINED:
  case ENS_SESSION_PRESENCE: snprintf(p->seen_name, sizeof p->seen_name, "%s", ev->name); break;
  default: break;
  }
}

typedef struct {
  char dir[64], store[128];
  ens_server *srv;
  ens_doc *initial;
  void *zctx;
  ens_keypair server_keys, alice, bob, mallory, eve; /* eve is not listed */
  ens_authorized_keys *keys;
  s_peer good[GOOD];
  char log[64][256];
  size_t nlog;
} s_world;

static s_world w;
static int s_committing = 1; /* the good clients commit while others misbehave */

static void s_on_log(const char *line, void *user) {
  s_world *x = user;
  if (x->nlog < 64) snprintf(x->log[x->nlog++], sizeof x->log[0], "%s", line);
}

static size_t s_log_count(const char *needle) {
  size_t n = 0;
  for (size_t i = 0; i < w.nlog; i++) n += strstr(w.log[i], needle) != NULL;
  return n;
}

/* One round: the server, then the good clients, each of which commits a
 * random change now and then. */
static void s_pump(int commit) {
  assert_int_equal(ens_server_poll(w.srv, 1), 0);
  for (int k = 0; k < GOOD; k++) {
    s_peer *g = &w.good[k];
    if (ens_session_poll(g->s, 0)) fail_msg("good client %d: %s", k, ens_error_last());
    ens_doc *doc = ens_session_doc(g->s);
    if (commit && doc && ens_session_is_live(g->s) && tu_below(&g->r, 4) == 0) {
      ens_txn *t = tu_random_txn(&g->r, doc, 2);
      ens_session_commit(g->s, t);
      ens_txn_free(t);
    }
  }
}

static ens_session *s_session(const char *name, const ens_keypair *me, const char *server_key, s_peer *p) {
  ens_session_opts so;
  memset(&so, 0, sizeof so);
  so.endpoint = ens_server_endpoint(w.srv);
  so.name = name;
  so.colour = 0x336699;
  so.on_event = s_on_event;
  so.user = p;
  so.zmq_context = w.zctx;
  if (me) {
    so.server_key = server_key;
    so.secret_key = me->secret_key;
  }
  ens_session *s;
  assert_int_equal(ens_session_new(&so, &s), 0);
  return s;
}

static int s_setup(void **state) {
  (void)state;
  memset(&w, 0, sizeof w);
  snprintf(w.dir, sizeof w.dir, "/tmp/ens-security-XXXXXX");
  assert_non_null(mkdtemp(w.dir));
  snprintf(w.store, sizeof w.store, "%s/log.db", w.dir);
  tu_rng r = {tu_seed("session-security", 20261203)};
  w.initial = tu_random_doc(&r, 0xfff0, 100);
  assert_int_equal(ens_keypair_generate(&w.server_keys), 0);
  assert_int_equal(ens_keypair_generate(&w.alice), 0);
  assert_int_equal(ens_keypair_generate(&w.bob), 0);
  assert_int_equal(ens_keypair_generate(&w.mallory), 0);
  assert_int_equal(ens_keypair_generate(&w.eve), 0);
  w.keys = ens_authorized_keys_new();
  assert_int_equal(ens_authorized_keys_add(w.keys, w.alice.public_key, "alice"), 0);
  assert_int_equal(ens_authorized_keys_add(w.keys, w.bob.public_key, "bob"), 0);
  assert_int_equal(ens_authorized_keys_add(w.keys, w.mallory.public_key, "mallory"), 0);

  ens_server_opts o;
  memset(&o, 0, sizeof o);
  o.endpoint = "tcp://127.0.0.1:*";
  o.store_path = w.store;
  o.initial = w.initial;
  o.heartbeat_ms = 200;
  o.secret_key = w.server_keys.secret_key;
  o.authorized_keys = w.keys;
  o.on_log = s_on_log;
  o.user = &w;
  o.max_unread = 2u << 20; /* small, so that a stalled reader is found quickly */
  assert_int_equal(ens_server_new(&o, &w.srv), 0);
  w.zctx = zmq_ctx_new();
  /* the good ones ask to be shown as someone else: the key's name wins */
  for (int k = 0; k < GOOD; k++) {
    w.good[k].r.s = r.s + 77u * (uint64_t)(k + 1);
    w.good[k].s = s_session("impostor", k ? &w.bob : &w.alice, w.server_keys.public_key, &w.good[k]);
  }
  int64_t deadline = ens__now_ms() + 10000;
  while (!ens_session_is_live(w.good[0].s) || !ens_session_is_live(w.good[1].s)) {
    s_pump(0);
    if (ens__now_ms() > deadline) fail_msg("the authorised clients did not join");
  }
  return 0;
}

static void s_readers_close(void);
typedef struct s_raw s_raw;
static s_raw *s_raw_left; /* a raw connection a failed test left open (the context waits for it) */
static void s_raw_close(s_raw *r);

static int s_teardown(void **state) {
  (void)state;
  s_readers_close();
  if (s_raw_left) s_raw_close(s_raw_left);
  for (int k = 0; k < GOOD; k++) ens_session_free(w.good[k].s);
  zmq_ctx_term(w.zctx);
  ens_server_free(w.srv);
  ens_authorized_keys_free(w.keys);
  ens_doc_free(w.initial);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", w.dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* The good clients settle on the server's head with nothing pending, have
 * never lost their connection, and hold the server's document. */
static void s_good_converge(void) {
  int64_t deadline = ens__now_ms() + 20000;
  for (;;) {
    s_pump(0);
    int done = 0;
    for (int k = 0; k < GOOD; k++) {
      ens_session *s = w.good[k].s;
      done += ens_session_is_live(s) && ens_session_pending(s) == 0 && ens_session_seq(s) == ens_server_head(w.srv);
    }
    if (done == GOOD) break;
    if (ens__now_ms() > deadline) fail_msg("the good clients did not settle");
  }
  uint64_t h = ens_doc_hash(ens_server_doc(w.srv));
  for (int k = 0; k < GOOD; k++) {
    assert_true(ens_doc_hash(ens_session_doc(w.good[k].s)) == h);
    assert_int_equal(w.good[k].reconnecting, 0);
    assert_int_equal(w.good[k].connected, 1);
    assert_int_equal(w.good[k].failed, 0);
  }
}

/* --- a raw connection, to send what no well-behaved client would -------------------- */

struct s_raw {
  void *sock, *mon;
};

static s_raw s_raw_open_at(const char *endpoint, const ens_keypair *me, const char *server_key) {
  static unsigned n;
  s_raw r;
  r.sock = zmq_socket(w.zctx, ZMQ_DEALER);
  assert_non_null(r.sock);
  int zero = 0;
  zmq_setsockopt(r.sock, ZMQ_LINGER, &zero, sizeof zero);
  if (me) {
    assert_int_equal(zmq_setsockopt(r.sock, ZMQ_CURVE_SERVERKEY, server_key, ENS_KEY_LEN + 1), 0);
    assert_int_equal(zmq_setsockopt(r.sock, ZMQ_CURVE_PUBLICKEY, me->public_key, ENS_KEY_LEN + 1), 0);
    assert_int_equal(zmq_setsockopt(r.sock, ZMQ_CURVE_SECRETKEY, me->secret_key, ENS_KEY_LEN + 1), 0);
  }
  char ep[64];
  snprintf(ep, sizeof ep, "inproc://security-test-monitor-%u", n++);
  assert_int_equal(zmq_socket_monitor(r.sock, ep, ZMQ_EVENT_DISCONNECTED), 0);
  r.mon = zmq_socket(w.zctx, ZMQ_PAIR);
  zmq_setsockopt(r.mon, ZMQ_LINGER, &zero, sizeof zero);
  assert_int_equal(zmq_connect(r.mon, ep), 0);
  assert_int_equal(zmq_connect(r.sock, endpoint), 0);
  return r;
}

static s_raw s_raw_open(const ens_keypair *me, const char *server_key) {
  return s_raw_open_at(ens_server_endpoint(w.srv), me, server_key);
}

/* The monitor stops first: an event sent after its reader is closed would
 * block the shared context's I/O thread for good (see s_close, client.c). */
static void s_raw_close(s_raw *r) {
  if (r == s_raw_left) s_raw_left = NULL;
  zmq_socket_monitor(r->sock, NULL, 0);
  zmq_close(r->sock);
  zmq_close(r->mon);
}

static void s_raw_send(s_raw *r, const void *data, size_t len) {
  assert_true(zmq_send(r->sock, data, len, ZMQ_DONTWAIT) == (int)len);
}

static void s_raw_send_msg(s_raw *r, const ens__msg *m) {
  ens_buf b = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(m, &b), 0);
  s_raw_send(r, b.data, b.len);
  ens__buf_free(&b);
}

static ens__msg *s_msg(ens__msg_type type) {
  static ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = type;
  return &m;
}

static void s_raw_hello(s_raw *r) {
  ens__msg *m = s_msg(ENS_MSG_HELLO);
  m->vmin = m->vmax = ENS_PROTO_VERSION;
  memset(m->client, 0x5a, sizeof m->client);
  s_raw_send_msg(r, m);
}

/* Waits up to ms (pumping the others, who keep committing) for a message
 * of the given type; counts every message received. 1 when it came. */
static int s_raw_wait(s_raw *r, int type, int ms, ens__msg *out, size_t *received) {
  static unsigned char copy[ENS_MAX_MESSAGE + ENS_SNAPSHOT_CHUNK];
  int64_t deadline = ens__now_ms() + ms;
  while (ens__now_ms() < deadline) {
    s_pump(s_committing);
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while (zmq_msg_recv(&msg, r->sock, ZMQ_DONTWAIT) >= 0) {
      if (received) ++*received;
      size_t len = zmq_msg_size(&msg);
      assert_true(len <= sizeof copy);
      memcpy(copy, zmq_msg_data(&msg), len);
      int ok = ens__msg_decode(copy, len, out) == 0 && (int)out->type == type;
      if (ok) {
        zmq_msg_close(&msg);
        return 1;
      }
    }
    zmq_msg_close(&msg);
  }
  return 0;
}

/* The server answers with an error of this code, naming why. */
static void s_expect_error(s_raw *r, int code, const char *why) {
  static ens__msg m;
  if (!s_raw_wait(r, ENS_MSG_ERROR, 3000, &m, NULL)) fail_msg("no error for: %s", why);
  if ((int)m.code != code) fail_msg("error %d, not %d, for %s: %.*s", (int)m.code, code, why, (int)m.ntext, m.text);
  print_message("%s: error %d \"%.*s\"\n", why, (int)m.code, (int)m.ntext, m.text);
}

/* Hello with a new client id (pattern, n) on r, retried while the server
 * says to wait; the welcome, or NULL for another error (in s_join_m). */
static ens__msg s_join_m;
static ens__msg *s_raw_join(s_raw *r, unsigned char pattern, int n) {
  for (;;) {
    ens__msg *h = s_msg(ENS_MSG_HELLO);
    h->vmin = h->vmax = ENS_PROTO_VERSION;
    memset(h->client, pattern, sizeof h->client);
    memcpy(h->client, &n, sizeof n);
    s_raw_send_msg(r, h);
    int64_t until = ens__now_ms() + 3000;
    int answered = 0;
    while (!answered && ens__now_ms() < until) {
      s_pump(1);
      zmq_msg_t msg;
      zmq_msg_init(&msg);
      while (!answered && zmq_msg_recv(&msg, r->sock, ZMQ_DONTWAIT) >= 0) {
        static unsigned char copy[ENS_MAX_MESSAGE + ENS_SNAPSHOT_CHUNK];
        size_t len = zmq_msg_size(&msg);
        assert_true(len <= sizeof copy);
        memcpy(copy, zmq_msg_data(&msg), len);
        if (ens__msg_decode(copy, len, &s_join_m) != 0) continue;
        if (s_join_m.type == ENS_MSG_WELCOME) answered = 1;
        else if (s_join_m.type == ENS_MSG_ERROR) answered = 2;
      }
      zmq_msg_close(&msg);
    }
    if (!answered) fail_msg("no answer to hello %d", n);
    if (answered == 1) return &s_join_m;
    if (s_join_m.ntext >= 9 && memcmp(s_join_m.text, "too many ", 9) == 0 &&
        !(s_join_m.ntext >= 16 && memcmp(s_join_m.text, "too many client ", 16) == 0))
      continue; /* too many hellos: told to wait, the same id again */
    return NULL;
  }
}

/* Sends ctn 1 of the client just welcomed (a set on the root) and waits
 * for its ack: the client id has made something. */
static void s_raw_commit_one(s_raw *r, int n) {
  ens_txn *t = ens_txn_new("made", NULL);
  char key[32];
  snprintf(key, sizeof key, "made%d", n);
  assert_int_equal(ens_txn_set(t, ENS_ROOT_ID, key, ens_int(n)), 0);
  unsigned char *bytes;
  size_t len;
  assert_int_equal(ens_txn_encode(t, &bytes, &len), 0);
  ens_txn_free(t);
  ens__msg *m = s_msg(ENS_MSG_TXN);
  m->ctn = 1;
  m->bytes = bytes;
  m->nbytes = len;
  s_raw_send_msg(r, m);
  ens_free(bytes);
  static ens__msg a;
  int64_t deadline = ens__now_ms() + 3000;
  for (;;) { /* version 2: the ack is an item of an entries message */
    if (ens__now_ms() > deadline || !s_raw_wait(r, ENS_MSG_ENTRIES, 3000, &a, NULL))
      fail_msg("client id %d: its change was not acknowledged", n);
    ens__entries_reader er;
    ens__entry_item it;
    ens__entries_begin(&a, &er);
    while (ens__entries_next(&er, &it))
      if (it.is_ack && it.ctn == 1) return;
  }
}

static void s_expect_joined(s_raw *r) {
  static ens__msg m;
  s_raw_hello(r);
  assert_true(s_raw_wait(r, ENS_MSG_WELCOME, 3000, &m, NULL));
}

/* --- the tests -------------------------------------------------------------------------- */

static void test_authorised_clients_shown_by_key_name(void **state) {
  (void)state;
  for (int i = 0; i < 300; i++) s_pump(1);
  s_good_converge();
  assert_string_equal(w.good[0].seen_name, "bob");
  assert_string_equal(w.good[1].seen_name, "alice");
  /* and each learns the name it is shown by, not the one it asked for */
  assert_string_equal(ens_session_name(w.good[0].s), "alice");
  assert_string_equal(ens_session_name(w.good[1].s), "bob");
  assert_true(w.good[0].acked + w.good[1].acked > 0);
  assert_int_equal(s_log_count("(alice) joined"), 1);
  assert_int_equal(s_log_count("(bob) joined"), 1);
}

static void test_outsiders_read_nothing_and_change_nothing(void **state) {
  (void)state;
  s_pump(0);
  uint64_t head = ens_server_head(w.srv);
  s_committing = 0;

  /* a session whose key is not listed: refused for good, no document */
  s_peer eve = {0};
  ens_session *s = s_session("eve", &w.eve, w.server_keys.public_key, &eve);
  int64_t deadline = ens__now_ms() + 5000;
  while (!eve.failed && ens__now_ms() < deadline) {
    s_pump(0);
    ens_session_poll(s, 0);
  }
  print_message("unknown key: \"%s\"\n", eve.fail_message);
  assert_int_equal(eve.failed, 1);
  assert_int_equal(eve.fail_code, 9);
  assert_non_null(strstr(eve.fail_message, "unknown key"));
  assert_int_equal(eve.connected, 0);
  assert_null(ens_session_doc(s));
  assert_int_equal(ens_session_poll(s, 0), ENS_EIO);
  ens_session_free(s);

  /* a session without encryption */
  s_peer plain = {0};
  s = s_session("plain", NULL, NULL, &plain);
  deadline = ens__now_ms() + 2000;
  while (!plain.failed && ens__now_ms() < deadline) {
    s_pump(0);
    ens_session_poll(s, 0);
  }
  print_message("no encryption: \"%s\"\n", plain.fail_message);
  assert_int_equal(plain.connected, 0);
  assert_null(ens_session_doc(s));
  ens_session_free(s);

  /* a listed key, but the wrong server key */
  s_peer lost = {0};
  s = s_session("lost", &w.alice, w.eve.public_key, &lost);
  deadline = ens__now_ms() + 1500;
  while (ens__now_ms() < deadline) {
    s_pump(0);
    ens_session_poll(s, 0);
  }
  assert_int_equal(lost.connected, 0);
  assert_null(ens_session_doc(s));
  ens_session_free(s);

  /* raw connections that say hello and send a change anyway */
  s_raw outsiders[2] = {s_raw_open(&w.eve, w.server_keys.public_key), s_raw_open(NULL, NULL)};
  for (int i = 0; i < 2; i++) {
    s_raw_hello(&outsiders[i]);
    ens__msg *m = s_msg(ENS_MSG_TXN);
    m->ctn = 1;
    m->bytes = (const unsigned char *)"\x94\x01\xa0\xa0\x90";
    m->nbytes = 5;
    s_raw_send_msg(&outsiders[i], m);
  }
  size_t received = 0;
  static ens__msg any;
  for (int i = 0; i < 2; i++) assert_false(s_raw_wait(&outsiders[i], ENS_MSG_WELCOME, 1500, &any, &received));
  assert_int_equal(received, 0);
  for (int i = 0; i < 2; i++) s_raw_close(&outsiders[i]);

  /* none of them got in: no join, no change; the refusals are logged */
  assert_int_equal(s_log_count("joined"), 2);
  assert_true(s_log_count("refused a connection") >= 2);
  assert_int_equal(s_log_count("eve"), 0);
  assert_int_equal(ens_server_client_count(w.srv), GOOD);
  assert_true(ens_server_head(w.srv) == head);
  s_committing = 1;
  s_good_converge();
}

static void test_misbehaving_client_dropped_others_go_on(void **state) {
  (void)state;
  s_raw r = s_raw_open(&w.mallory, w.server_keys.public_key);

  /* garbage, before any hello */
  s_raw_send(&r, "\xc1\xc1\xc1 garbage", 10);
  s_expect_error(&r, ENS_PERR_MALFORMED, "garbage");

  /* a change before hello */
  ens__msg *m = s_msg(ENS_MSG_TXN);
  m->ctn = 1;
  m->bytes = (const unsigned char *)"\x90";
  m->nbytes = 1;
  s_raw_send_msg(&r, m);
  s_expect_error(&r, ENS_PERR_NO_SESSION, "a change before hello");

  /* truncated: a hello cut short, after joining */
  s_expect_joined(&r);
  m = s_msg(ENS_MSG_HELLO);
  m->vmin = m->vmax = 1;
  ens_buf b = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(m, &b), 0);
  s_raw_send(&r, b.data, b.len - 3);
  ens__buf_free(&b);
  s_expect_error(&r, ENS_PERR_MALFORMED, "truncated");

  /* out of order: ctn 5 after 1 (with nothing decided a client may start
   * anywhere: one whose record was forgotten goes on with its numbering) */
  s_expect_joined(&r);
  m = s_msg(ENS_MSG_TXN);
  m->ctn = 1;
  m->bytes = (const unsigned char *)"\x90";
  m->nbytes = 1;
  s_raw_send_msg(&r, m);
  static ens__msg rej;
  assert_true(s_raw_wait(&r, ENS_MSG_REJECT, 3000, &rej, NULL));
  m = s_msg(ENS_MSG_TXN);
  m->ctn = 5;
  m->bytes = (const unsigned char *)"\x90";
  m->nbytes = 1;
  s_raw_send_msg(&r, m);
  s_expect_error(&r, ENS_PERR_MALFORMED, "ctn out of order");

  /* a server's message sent to the server */
  s_expect_joined(&r);
  m = s_msg(ENS_MSG_WELCOME);
  m->version = m->epoch = m->site = m->window = 1;
  m->heartbeat_ms = 100;
  s_raw_send_msg(&r, m);
  s_expect_error(&r, ENS_PERR_MALFORMED, "a welcome from a client");

  /* a presence with a name over its limit */
  s_expect_joined(&r);
  unsigned char big_name[] = {0x95, 0x08, 0x00, 0xd9, 100};
  unsigned char pres[sizeof big_name + 100 + 2];
  memcpy(pres, big_name, sizeof big_name);
  memset(pres + sizeof big_name, 'x', 100);
  pres[sizeof big_name + 100] = 0x00;
  pres[sizeof big_name + 101] = 0x90;
  s_raw_send(&r, pres, sizeof pres);
  s_expect_error(&r, ENS_PERR_MALFORMED, "a name over 64 bytes");

  /* two frames in one message */
  s_expect_joined(&r);
  assert_true(zmq_send(r.sock, "\x92\x0a\x01", 3, ZMQ_SNDMORE) == 3);
  assert_true(zmq_send(r.sock, "\x92\x0a\x02", 3, 0) == 3);
  s_expect_error(&r, ENS_PERR_MALFORMED, "multipart");

  /* oversized: the transport closes the connection itself */
  s_expect_joined(&r);
  size_t big = 2u << 20;
  unsigned char *huge = malloc(big);
  assert_non_null(huge);
  memset(huge, 0xc1, big);
  s_raw_send(&r, huge, big);
  free(huge);
  int64_t deadline = ens__now_ms() + 5000;
  int closed = 0;
  while (!closed && ens__now_ms() < deadline) {
    s_pump(1);
    zmq_msg_t ev;
    zmq_msg_init(&ev);
    if (zmq_msg_recv(&ev, r.mon, ZMQ_DONTWAIT) >= 0) {
      uint16_t e;
      memcpy(&e, zmq_msg_data(&ev), 2);
      closed = e == ZMQ_EVENT_DISCONNECTED;
    }
    zmq_msg_close(&ev);
  }
  assert_true(closed);
  print_message("oversized: the connection was closed\n");
  s_raw_close(&r);

  /* another key cannot take over mallory's session by its client id */
  s_raw other = s_raw_open(&w.bob, w.server_keys.public_key);
  s_raw_hello(&other);
  s_expect_error(&other, ENS_PERR_DENIED, "another key's client id");
  s_raw_close(&other);
  assert_int_equal(s_log_count("bob refused: site 3 belongs to another key"), 1);

  /* its joined connections were dropped and logged with the reason */
  assert_true(s_log_count("(mallory) dropped: ") >= 4);
  assert_true(s_log_count("mallory dropped: ") >= 1); /* before it joined */
  for (size_t i = 0; i < w.nlog; i++) print_message("server: %s\n", w.log[i]);
  assert_true(s_log_count("ctn out of order") == 1);
  /* the others never noticed: no reconnect, same document as the server */
  for (int i = 0; i < 100; i++) s_pump(1);
  s_good_converge();
  assert_true(ens_server_client_count(w.srv) >= GOOD);
}

/* A client that stops reading (while it pings, claiming what it read) is
 * told it is too far behind and dropped once 2 MiB wait for it; the ones
 * that read, and say so, are never affected. */
static void test_a_client_that_stops_reading_is_dropped(void **state) {
  (void)state;
  s_raw r = s_raw_open(&w.mallory, w.server_keys.public_key);
  static ens__msg m;
  s_raw_hello(&r);
  size_t got = 0;
  assert_true(s_raw_wait(&r, ENS_MSG_WELCOME, 3000, &m, &got));
  uint64_t head = m.seq;
  /* read the snapshot, then stop */
  uint64_t read = 0;
  int64_t deadline = ens__now_ms() + 3000;
  while (ens__now_ms() < deadline) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    int n = zmq_msg_recv(&msg, r.sock, ZMQ_DONTWAIT);
    if (n >= 0) {
      read += (uint64_t)n;
      if (ens__msg_decode(zmq_msg_data(&msg), zmq_msg_size(&msg), &m) == 0 && m.type == ENS_MSG_SNAPSHOT &&
          m.index + 1 == m.count) {
        zmq_msg_close(&msg);
        break;
      }
    }
    zmq_msg_close(&msg);
    s_pump(0);
  }
  (void)head;
  /* big changes from alice, while mallory only pings */
  static char blob[48 << 10];
  memset(blob, 'b', sizeof blob);
  ens_id target = ens_obj_id(ens_doc_root(ens_session_doc(w.good[0].s)));
  for (int i = 0; i < 100; i++) {
    ens_txn *t = ens_txn_new("Blob", NULL);
    assert_int_equal(ens_txn_set(t, target, "blob", ens_strn(blob, sizeof blob - (size_t)i)), 0);
    assert_int_equal(ens_session_commit(w.good[0].s, t), 0);
    ens_txn_free(t);
    ens__msg *p = s_msg(ENS_MSG_PING);
    p->token = (uint64_t)i + 1;
    p->received = read;
    p->has_received = 1;
    s_raw_send_msg(&r, p);
    for (int k = 0; k < 5; k++) s_pump(0);
  }
  int dropped = 0;
  deadline = ens__now_ms() + 5000;
  while (!dropped && ens__now_ms() < deadline) {
    s_pump(0);
    dropped = s_log_count("(mallory) dropped: too far behind") == 1;
  }
  assert_true(dropped);
  /* its queue ends with the reason */
  assert_true(s_raw_wait(&r, ENS_MSG_ERROR, 5000, &m, NULL));
  assert_int_equal((int)m.code, ENS_PERR_LIMIT);
  print_message("stalled reader: error %d \"%.*s\"\n", (int)m.code, (int)m.ntext, m.text);
  s_raw_close(&r);
  s_good_converge();
}

/* A client with a valid key that says hello in a loop (each hello costs
 * the server a catch-up to send) is told to wait and dropped; so is one
 * that opens session after session with new client ids (each takes a
 * site for good). The others go on. */
static void test_hello_floods_are_bounded(void **state) {
  (void)state;
  static s_raw r;
  r = s_raw_open(&w.mallory, w.server_keys.public_key);
  for (int i = 0; i < 200; i++) s_raw_hello(&r);
  static ens__msg m;
  size_t welcomes = 0, errors = 0, limit_errors = 0;
  int64_t deadline = ens__now_ms() + 5000;
  while (ens__now_ms() < deadline) {
    s_pump(1);
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while (zmq_msg_recv(&msg, r.sock, ZMQ_DONTWAIT) >= 0) {
      if (ens__msg_decode(zmq_msg_data(&msg), zmq_msg_size(&msg), &m) != 0) continue;
      if (m.type == ENS_MSG_WELCOME) welcomes++;
      if (m.type == ENS_MSG_ERROR) {
        errors++;
        limit_errors += m.code == ENS_PERR_LIMIT;
      }
    }
    zmq_msg_close(&msg);
    if (welcomes + errors == 200) break;
  }
  print_message("200 hellos at once: %zu welcomed, %zu refused with error 5\n", welcomes, limit_errors);
  assert_true(welcomes >= 1 && welcomes < 60);
  assert_true(limit_errors > 100);
  assert_true(s_log_count("(mallory) dropped: too many hellos") > 0);
  s_raw_close(&r);

  /* new client ids, one after the other, each waiting for its welcome:
   * each leaves the one before it idle (nothing made, no connection),
   * whose site the next takes once the key is at its limit of ids */
  r = s_raw_open(&w.mallory, w.server_keys.public_key);
  s_raw_left = &r;
  uint64_t first_site = 0;
  for (int i = 0; i < 70; i++) {
    ens__msg *wm = s_raw_join(&r, 0x33, i);
    if (!wm) fail_msg("new client id %d refused: %.*s", i, (int)s_join_m.ntext, s_join_m.text);
    assert_true(wm->has_name);
    assert_int_equal(wm->ntext, 7);
    assert_memory_equal(wm->text, "mallory", 7); /* the name the others see it by */
    if (i == 0) first_site = wm->site;
    if (i == 64) { /* the 65th takes the site of the one seen least recently: the first */
      print_message("id 65 of one key: site %llu (the first id's: %llu), floor %llu\n", (unsigned long long)wm->site,
                    (unsigned long long)first_site, (unsigned long long)wm->floor);
      assert_int_equal(wm->site, first_site);
      assert_true(wm->floor == (uint64_t)1 << 28);
    }
  }
  print_message("70 new client ids from one key that made nothing: all welcomed\n");
  s_raw_close(&r);
  s_good_converge();
}


/* Ids that made something keep a key at its limit: 64 new ids of one key
 * each get a change accepted, and the 65th is refused with error 5, as
 * ids taking a site for good. */
static void test_ids_that_made_something_hold_the_limit(void **state) {
  (void)state;
  static s_raw r;
  r = s_raw_open(&w.mallory, w.server_keys.public_key);
  s_raw_left = &r;
  for (int i = 0; i < 64; i++) {
    ens__msg *wm = s_raw_join(&r, 0x44, i);
    if (!wm) fail_msg("client id %d refused: %.*s", i, (int)s_join_m.ntext, s_join_m.text);
    assert_int_equal(wm->ctn, 0);
    s_raw_commit_one(&r, i);
  }
  ens__msg *wm = s_raw_join(&r, 0x44, 64);
  assert_null(wm);
  print_message("64 client ids that made something, then a new one: error %d \"%.*s\"\n", (int)s_join_m.code,
                (int)s_join_m.ntext, s_join_m.text);
  assert_int_equal(s_join_m.code, ENS_PERR_LIMIT);
  assert_true(s_join_m.ntext >= 16 && memcmp(s_join_m.text, "too many client ", 16) == 0);
  /* one of the 64 is still welcome, with what it made */
  wm = s_raw_join(&r, 0x44, 3);
  assert_non_null(wm);
  assert_int_equal(wm->ctn, 1);
  s_raw_close(&r);
  s_good_converge();
}

/* --- protocol versions: two raw readers rebuild the document ------------------------- */

/* A reader of the raw protocol: it rebuilds the document from the snapshot
 * and the entries, applying its own transactions where their acks say,
 * and counts the kinds of message that came. */
typedef struct {
  s_raw r;
  int version;
  uint64_t site, seq, ctn;
  ens_buf snap;
  ens_doc *doc;
  ens_txn *own[8]; /* by ctn - 1 */
  size_t entry, ack, entries, items, item_acks, rejects;
  int64_t last_ping;
} s_reader;

static void s_reader_hello(s_reader *d, unsigned char id, uint64_t vmin, uint64_t vmax) {
  memset(d, 0, sizeof *d);
  d->r = s_raw_open(&w.mallory, w.server_keys.public_key);
  ens__msg *m = s_msg(ENS_MSG_HELLO);
  m->vmin = vmin;
  m->vmax = vmax;
  memset(m->client, id, sizeof m->client);
  s_raw_send_msg(&d->r, m);
}

static void s_reader_apply(s_reader *d, const unsigned char *bytes, size_t len) {
  ens_txn *t = NULL;
  assert_int_equal(ens_txn_decode(bytes, len, &t), 0);
  assert_int_equal(ens_doc_apply(d->doc, t, ENS_ORIGIN_REMOTE, NULL), 0);
  ens_txn_free(t);
}

static void s_reader_next(s_reader *d, uint64_t seq) {
  if (seq != d->seq + 1) fail_msg("version %d reader: seq %llu after %llu", d->version, (unsigned long long)seq,
                                  (unsigned long long)d->seq);
  d->seq = seq;
}

static void s_reader_own(s_reader *d, uint64_t site, uint64_t ctn, uint64_t seq) {
  assert_true(site == d->site && ctn >= 1 && ctn <= d->ctn);
  s_reader_next(d, seq);
  assert_int_equal(ens_doc_apply(d->doc, d->own[ctn - 1], ENS_ORIGIN_REMOTE, NULL), 0);
}

static void s_reader_handle(s_reader *d, const ens__msg *m) {
  switch (m->type) {
  case ENS_MSG_WELCOME:
    d->version = (int)m->version;
    d->site = m->site;
    assert_int_equal(m->mode, 1);
    break;
  case ENS_MSG_SNAPSHOT:
    ens__buf_append(&d->snap, m->bytes, m->nbytes);
    if (m->index + 1 == m->count) {
      assert_int_equal(ens_snapshot_decode(d->snap.data, d->snap.len, &d->doc), 0);
      d->seq = m->seq;
    }
    break;
  case ENS_MSG_ENTRY:
    d->entry++;
    s_reader_next(d, m->seq);
    s_reader_apply(d, m->bytes, m->nbytes);
    break;
  case ENS_MSG_ACK:
    d->ack++;
    s_reader_own(d, d->site, m->ctn, m->seq);
    break;
  case ENS_MSG_REJECT: d->rejects++; break;
  case ENS_MSG_ENTRIES: {
    d->entries++;
    ens__entries_reader er;
    ens__entry_item it;
    ens__entries_begin(m, &er);
    while (ens__entries_next(&er, &it)) {
      d->items++;
      if (it.is_ack) {
        d->item_acks++;
        s_reader_own(d, it.site, it.ctn, it.seq);
      } else {
        s_reader_next(d, it.seq);
        s_reader_apply(d, it.txn, it.len);
      }
    }
    break;
  }
  case ENS_MSG_PRESENCE:
  case ENS_MSG_BYE:
  case ENS_MSG_PONG: break;
  default: fail_msg("version %d reader: a %s message", d->version, ens__msg_name(m->type));
  }
}

/* Reads what has come, without waiting; pings as a client must, or the
 * server takes its silence for a lost connection. */
static void s_reader_read(s_reader *d) {
  if (ens__now_ms() - d->last_ping >= 50) {
    ens__msg *p = s_msg(ENS_MSG_PING);
    p->token = 1;
    s_raw_send_msg(&d->r, p);
    d->last_ping = ens__now_ms();
  }
  static unsigned char copy[ENS_MAX_MESSAGE + ENS_SNAPSHOT_CHUNK];
  static ens__msg m;
  zmq_msg_t msg;
  zmq_msg_init(&msg);
  while (zmq_msg_recv(&msg, d->r.sock, ZMQ_DONTWAIT) >= 0) {
    size_t len = zmq_msg_size(&msg);
    assert_true(len <= sizeof copy);
    memcpy(copy, zmq_msg_data(&msg), len);
    assert_int_equal(ens__msg_decode(copy, len, &m), 0);
    s_reader_handle(d, &m);
  }
  zmq_msg_close(&msg);
}

/* Sends a change of the first object the reader's document holds. */
static void s_reader_commit(s_reader *d, int64_t v) {
  assert_true(d->doc && d->ctn < 8);
  const ens_obj *root = ens_doc_root(d->doc);
  assert_true(ens_obj_child_count(root) > 0);
  ens_txn *t = ens_txn_new("raw", NULL);
  assert_int_equal(ens_txn_set(t, ens_obj_id(ens_obj_child(root, 0)), "raw", ens_int(v)), 0);
  unsigned char *bytes;
  size_t len;
  assert_int_equal(ens_txn_encode(t, &bytes, &len), 0);
  d->own[d->ctn++] = t;
  ens__msg *m = s_msg(ENS_MSG_TXN);
  m->ctn = d->ctn;
  m->bytes = bytes;
  m->nbytes = len;
  s_raw_send_msg(&d->r, m);
  ens_free(bytes);
}

static void s_reader_close(s_reader *d) {
  if (!d->r.sock) return;
  s_raw_close(&d->r);
  d->r.sock = NULL;
  for (size_t i = 0; i < d->ctn; i++) ens_txn_free(d->own[i]);
  ens_doc_free(d->doc);
  ens__buf_free(&d->snap);
}

static s_reader s_readers[2];

static void s_readers_close(void) {
  for (int k = 0; k < 2; k++) s_reader_close(&s_readers[k]);
}

static void test_versions_1_and_2_read_the_same_log(void **state) {
  (void)state;
  /* a client speaking only later versions is told which the server speaks */
  s_raw r = s_raw_open(&w.mallory, w.server_keys.public_key);
  ens__msg *h = s_msg(ENS_MSG_HELLO);
  h->vmin = 3;
  h->vmax = 4;
  memset(h->client, 0x33, sizeof h->client);
  s_raw_send_msg(&r, h);
  s_expect_error(&r, ENS_PERR_VERSION, "versions 3..4");
  s_raw_close(&r);

  s_reader *d = s_readers; /* closed by the teardown if an assertion fails */
  s_reader_hello(&d[0], 0x11, 1, 1);
  s_reader_hello(&d[1], 0x22, 1, ENS_PROTO_VERSION);
  /* both read while the good clients commit, and each sends its own */
  int64_t deadline = ens__now_ms() + 3000;
  for (int round = 0; ens__now_ms() < deadline; round++) {
    s_pump(1);
    for (int k = 0; k < 2; k++) {
      s_reader_read(&d[k]);
      if (d[k].doc && round % 50 == 49 && d[k].ctn < 3) s_reader_commit(&d[k], round);
    }
  }
  s_good_converge();
  uint64_t head = ens_server_head(w.srv);
  deadline = ens__now_ms() + 5000;
  while ((d[0].seq < head || d[1].seq < head) && ens__now_ms() < deadline) {
    s_pump(0);
    for (int k = 0; k < 2; k++) s_reader_read(&d[k]);
  }
  uint64_t hash = ens_doc_hash(ens_server_doc(w.srv));
  for (int k = 0; k < 2; k++) {
    print_message("version %d: %zu entry, %zu ack, %zu entries messages holding %zu items (%zu acks), %zu rejects; "
                  "seq %llu of %llu\n",
                  d[k].version, d[k].entry, d[k].ack, d[k].entries, d[k].items, d[k].item_acks, d[k].rejects,
                  (unsigned long long)d[k].seq, (unsigned long long)head);
    assert_true(d[k].seq == head);
    assert_true(d[k].doc && ens_doc_hash(d[k].doc) == hash);
    assert_int_equal(d[k].ctn, 3);
  }
  assert_int_equal(d[0].version, 1);
  assert_true(d[0].entry > 0 && d[0].entries == 0);
  assert_int_equal(d[0].ack + d[0].rejects, 3);
  assert_int_equal(d[1].version, ENS_PROTO_VERSION);
  assert_true(d[1].entries > 0 && d[1].entry == 0 && d[1].ack == 0);
  assert_true(d[1].items > d[1].entries); /* more than one entry in a message */
  assert_int_equal(d[1].item_acks + d[1].rejects, 3);
  s_readers_close();
}

/* The server's store copied just after two acks, as a crash would leave
 * it (no checkpoint since), opens as a new server that still knows both
 * ctns decided: the welcome says so, a resent one is dropped, and the
 * next one is accepted after them. */
static void test_decided_ctns_survive_a_crash(void **state) {
  (void)state;
  s_reader *d = s_readers;
  s_reader_hello(&d[0], 0x44, 1, ENS_PROTO_VERSION);
  int64_t deadline = ens__now_ms() + 5000;
  while (!d[0].doc && ens__now_ms() < deadline) {
    s_pump(0);
    s_reader_read(&d[0]);
  }
  assert_non_null(d[0].doc);
  s_reader_commit(&d[0], 1);
  s_reader_commit(&d[0], 2);
  while (d[0].item_acks < 2 && ens__now_ms() < deadline) {
    s_pump(0);
    s_reader_read(&d[0]);
  }
  assert_int_equal(d[0].item_acks, 2);
  uint64_t head = ens_server_head(w.srv);
  char cmd[512], copy[160];
  snprintf(copy, sizeof copy, "%s/crash.db", w.dir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s' && cp '%s-wal' '%s-wal'", w.store, copy, w.store, copy);
  assert_int_equal(system(cmd), 0);

  ens_server_opts o;
  memset(&o, 0, sizeof o);
  o.endpoint = "tcp://127.0.0.1:*";
  o.store_path = copy;
  o.heartbeat_ms = 200;
  ens_server *after;
  assert_int_equal(ens_server_new(&o, &after), 0);
  assert_true(ens_server_head(after) == head);
  s_raw r = s_raw_open_at(ens_server_endpoint(after), NULL, NULL);
  ens__msg *m = s_msg(ENS_MSG_HELLO);
  m->vmin = 1;
  m->vmax = ENS_PROTO_VERSION;
  memset(m->client, 0x44, sizeof m->client);
  s_raw_send_msg(&r, m);
  static ens__msg got;
  static unsigned char buf[ENS_MAX_MESSAGE + ENS_SNAPSHOT_CHUNK];
  int welcomed = 0;
  size_t acks = 0, entries = 0, rejects = 0;
  uint64_t last_seq = 0;
  deadline = ens__now_ms() + 5000;
  int sent_again = 0;
  while (ens__now_ms() < deadline && acks == 0) {
    assert_int_equal(ens_server_poll(after, 1), 0);
    int n;
    while ((n = zmq_recv(r.sock, buf, sizeof buf, ZMQ_DONTWAIT)) >= 0) {
      assert_int_equal(ens__msg_decode(buf, (size_t)n, &got), 0);
      if (got.type == ENS_MSG_WELCOME) {
        welcomed = 1;
        assert_true(got.ctn == 2); /* both decided, though only the log says so */
        assert_true(got.seq == head);
      } else if (got.type == ENS_MSG_REJECT) {
        rejects++;
      } else if (got.type == ENS_MSG_ENTRIES) {
        ens__entries_reader er;
        ens__entry_item it;
        ens__entries_begin(&got, &er);
        while (ens__entries_next(&er, &it)) {
          if (it.is_ack) {
            acks++;
            assert_true(it.ctn == 3);
            last_seq = it.seq;
          } else {
            entries++;
          }
        }
      }
    }
    if (welcomed && !sent_again) {
      /* ctn 2 again (its ack lost, say), then ctn 3 */
      for (uint64_t ctn = 2; ctn <= 3; ctn++) {
        unsigned char *bytes;
        size_t len;
        assert_int_equal(ens_txn_encode(d[0].own[1], &bytes, &len), 0);
        m = s_msg(ENS_MSG_TXN);
        m->ctn = ctn;
        m->bytes = bytes;
        m->nbytes = len;
        s_raw_send_msg(&r, m);
        ens_free(bytes);
      }
      sent_again = 1;
    }
  }
  print_message("after the crash: welcome with last ctn 2 at head %llu; ctn 2 again dropped, ctn 3 acked as seq %llu\n",
                (unsigned long long)head, (unsigned long long)last_seq);
  assert_true(welcomed);
  assert_int_equal(rejects, 0);
  assert_int_equal(entries, 0); /* the resent ctn 2 was not applied again */
  assert_int_equal(acks, 1);
  assert_true(last_seq == head + 1);
  s_raw_close(&r);
  ens_server_free(after);
  s_readers_close();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_authorised_clients_shown_by_key_name, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_outsiders_read_nothing_and_change_nothing, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_misbehaving_client_dropped_others_go_on, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_a_client_that_stops_reading_is_dropped, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_hello_floods_are_bounded, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_ids_that_made_something_hold_the_limit, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_versions_1_and_2_read_the_same_log, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_decided_ctns_survive_a_crash, s_setup, s_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
