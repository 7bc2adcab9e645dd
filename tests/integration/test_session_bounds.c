/* What one client can make a server hold, on a real socket (ipc, so that
 * a restarted server is found at the same address): a client that claims
 * in its pings to have read what it never read is dropped once its budget
 * is spent, and saying hello again gets it nothing more; hellos with
 * new client ids in a loop never use the sites up, across a restart, and a
 * site handed on comes with a floor its new owner's ids stay above. The
 * host's own site is never handed on. The
 * site space is made small (16 sites, 8 idle clients) so that the loop
 * hands every site on dozens of times in a few seconds. Bounded in time. */
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
#include "sync/server_int.h"
#include "testutil.h"

enum { SITES = 16, IDLE = 8, MAX_UNREAD = 2 << 20 };
#define SITE_GAP ((uint64_t)1 << 28)

typedef struct {
  ens_session *s;
  size_t connected, reconnecting, failed;
} s_peer;

static struct {
  char dir[64], store[128], endpoint[160];
  ens_server *srv;
  ens_doc *initial;
  void *zctx;
  s_peer alice, bob;
  char log[256][256];
  size_t nlog;
} w;

/* Raw sockets open, closed by the teardown if a test fails midway (a
 * context does not end while one is open). */
static void *s_open_raw[8];

static void s_on_event(ens_session *s, const ens_session_event *ev, void *user) {
  (void)s;
  s_peer *p = user;
  if (ev->kind == ENS_SESSION_CONNECTED) p->connected++;
  if (ev->kind == ENS_SESSION_RECONNECTING) p->reconnecting++;
  if (ev->kind == ENS_SESSION_FAILED) p->failed++;
}

static void s_on_log(const char *line, void *user) {
  (void)user;
  if (w.nlog < 256) snprintf(w.log[w.nlog++], sizeof w.log[0], "%s", line);
}

static const char *s_log_find(const char *needle) {
  for (size_t i = 0; i < w.nlog; i++)
    if (strstr(w.log[i], needle)) return w.log[i];
  return NULL;
}

static size_t s_log_count(const char *needle) {
  size_t n = 0;
  for (size_t i = 0; i < w.nlog; i++) n += strstr(w.log[i], needle) != NULL;
  return n;
}

static void s_server_start(void) {
  ens_server_opts o;
  memset(&o, 0, sizeof o);
  o.endpoint = w.endpoint;
  o.store_path = w.store;
  o.initial = w.initial;
  o.heartbeat_ms = 200;
  o.max_unread = MAX_UNREAD;
  o.on_log = s_on_log;
  assert_int_equal(ens_server_new(&o, &w.srv), 0);
  ens__server_set_sites(w.srv, SITES, IDLE);
}

static void s_pump(void) {
  assert_int_equal(ens_server_poll(w.srv, 1), 0);
  if (w.alice.s && ens_session_poll(w.alice.s, 0)) fail_msg("alice: %s", ens_error_last());
  if (w.bob.s && ens_session_poll(w.bob.s, 0)) fail_msg("bob: %s", ens_error_last());
}

static ens_session *s_session(s_peer *p) {
  ens_session_opts so;
  memset(&so, 0, sizeof so);
  so.endpoint = w.endpoint;
  so.name = "x";
  so.on_event = s_on_event;
  so.user = p;
  so.zmq_context = w.zctx;
  ens_session *s;
  assert_int_equal(ens_session_new(&so, &s), 0);
  return s;
}

static void s_wait_live(ens_session *s) {
  int64_t deadline = ens__now_ms() + 10000;
  while (!ens_session_is_live(s)) {
    s_pump();
    if (ens__now_ms() > deadline) fail_msg("a session did not join");
  }
}

static int s_setup(void **state) {
  (void)state;
  memset(&w, 0, sizeof w);
  snprintf(w.dir, sizeof w.dir, "/tmp/ens-bounds-XXXXXX");
  assert_non_null(mkdtemp(w.dir));
  snprintf(w.store, sizeof w.store, "%s/log.db", w.dir);
  snprintf(w.endpoint, sizeof w.endpoint, "ipc://%s/sock", w.dir);
  tu_rng r = {tu_seed("session-bounds", 20261207)};
  w.initial = tu_random_doc(&r, 0xfff0, 100);
  s_server_start();
  w.zctx = zmq_ctx_new();
  w.alice.s = s_session(&w.alice);
  w.bob.s = s_session(&w.bob);
  s_wait_live(w.alice.s);
  s_wait_live(w.bob.s);
  return 0;
}

static int s_teardown(void **state) {
  (void)state;
  ens_session_free(w.alice.s);
  ens_session_free(w.bob.s);
  for (size_t i = 0; i < sizeof s_open_raw / sizeof *s_open_raw; i++)
    if (s_open_raw[i]) {
      zmq_close(s_open_raw[i]);
      s_open_raw[i] = NULL;
    }
  zmq_ctx_term(w.zctx);
  ens_server_free(w.srv);
  ens_doc_free(w.initial);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", w.dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* --- raw connections ---------------------------------------------------------------- */

typedef struct {
  void *sock;
} s_raw;

/* rcvhwm > 0: a connection that holds little on its side, so that what
 * it does not read stays in the server's queue and socket. */
static s_raw s_raw_open(int rcvhwm) {
  s_raw r;
  r.sock = zmq_socket(w.zctx, ZMQ_DEALER);
  assert_non_null(r.sock);
  int zero = 0;
  zmq_setsockopt(r.sock, ZMQ_LINGER, &zero, sizeof zero);
  if (rcvhwm > 0) {
    int buf = 4096;
    zmq_setsockopt(r.sock, ZMQ_RCVHWM, &rcvhwm, sizeof rcvhwm);
    zmq_setsockopt(r.sock, ZMQ_RCVBUF, &buf, sizeof buf);
  }
  assert_int_equal(zmq_connect(r.sock, w.endpoint), 0);
  for (size_t i = 0; i < sizeof s_open_raw / sizeof *s_open_raw; i++)
    if (!s_open_raw[i]) {
      s_open_raw[i] = r.sock;
      break;
    }
  return r;
}

static void s_raw_close(s_raw *r) {
  for (size_t i = 0; i < sizeof s_open_raw / sizeof *s_open_raw; i++)
    if (s_open_raw[i] == r->sock) s_open_raw[i] = NULL;
  zmq_close(r->sock);
  r->sock = NULL;
}

static void s_raw_send(s_raw *r, const ens__msg *m) {
  ens_buf b = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(m, &b), 0);
  assert_true(zmq_send(r->sock, b.data, b.len, ZMQ_DONTWAIT) == (int)b.len);
  ens__buf_free(&b);
}

static ens__msg *s_msg(ens__msg_type type) {
  static ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = type;
  return &m;
}

static void s_hello(s_raw *r, const unsigned char *id) {
  ens__msg *m = s_msg(ENS_MSG_HELLO);
  m->vmin = 1;
  m->vmax = ENS_PROTO_VERSION;
  memcpy(m->client, id, ENS_CLIENT_ID_LEN);
  s_raw_send(r, m);
}

/* Says bye (the server forgets the connection at once) and closes. */
static void s_raw_leave(s_raw *r) {
  s_raw_send(r, s_msg(ENS_MSG_BYE));
  for (int i = 0; i < 3; i++) s_pump();
  s_raw_close(r);
}

/* Waits (pumping) for a welcome or an error; skips the rest. */
static int s_answer(s_raw *r, ens__msg *out) {
  static unsigned char buf[ENS_MAX_MESSAGE + ENS_SNAPSHOT_CHUNK];
  int64_t deadline = ens__now_ms() + 5000;
  while (ens__now_ms() < deadline) {
    s_pump();
    int n;
    while ((n = zmq_recv(r->sock, buf, sizeof buf, ZMQ_DONTWAIT)) >= 0) {
      assert_true((size_t)n <= sizeof buf);
      static unsigned char copy[sizeof buf];
      memcpy(copy, buf, (size_t)n);
      if (ens__msg_decode(copy, (size_t)n, out) == 0 && (out->type == ENS_MSG_WELCOME || out->type == ENS_MSG_ERROR))
        return 1;
    }
  }
  return 0;
}

/* --- a client that lies about what it read -------------------------------------------- */

/* Sends alice's changes of 48 KiB, pinging from the liar after each with
 * a claim of 2^62 bytes read and a made-up mark, until the log says
 * "needle" or n changes went. */
static const char *s_flood(s_raw *liar, int from, int n, const char *needle) {
  static char blob[48 << 10];
  memset(blob, 'b', sizeof blob);
  ens_id target = ens_obj_id(ens_doc_root(ens_session_doc(w.alice.s)));
  const char *found = NULL;
  for (int i = from; i < from + n && !found; i++) {
    ens_txn *t = ens_txn_new("Blob", NULL);
    assert_int_equal(ens_txn_set(t, target, "blob", ens_strn(blob, sizeof blob - (size_t)i)), 0);
    assert_int_equal(ens_session_commit(w.alice.s, t), 0);
    ens_txn_free(t);
    ens__msg *p = s_msg(ENS_MSG_PING);
    p->token = (uint64_t)i + 1;
    p->received = (uint64_t)1 << 62;
    p->has_received = 1;
    p->mark = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1) | 1;
    s_raw_send(liar, p);
    for (int k = 0; k < 5; k++) s_pump();
    if (needle) found = s_log_find(needle);
  }
  return found;
}

/* Reads everything that waits for r, until nothing came for 1 s. */
static uint64_t s_drain(s_raw *r) {
  static unsigned char buf[ENS_MAX_MESSAGE + ENS_SNAPSHOT_CHUNK];
  uint64_t total = 0;
  int64_t quiet = ens__now_ms() + 1000, deadline = ens__now_ms() + 30000;
  while (ens__now_ms() < quiet && ens__now_ms() < deadline) {
    s_pump();
    int n;
    while ((n = zmq_recv(r->sock, buf, sizeof buf, ZMQ_DONTWAIT)) >= 0) {
      total += (uint64_t)n;
      quiet = ens__now_ms() + 1000;

    }
  }
  return total;
}

/* It says hello and never reads a byte, and pings all along claiming to
 * have read 2^62 bytes, with made-up marks. Alice sends changes of 48
 * KiB. The server drops it once what it sent to it exceeds the budget (2
 * MiB) plus its catch-up; bob, who reads and proves it with the marks of
 * the pongs he read, is never dropped. Saying hello again on the same
 * connection buys it nothing: alice sends 2.4 MB more, and when the liar
 * at last reads all that waits for it, it is no more than the budget,
 * the catch-up and the error that told it why. */
static void test_a_client_that_lies_about_reading_is_dropped(void **state) {
  (void)state;
  unsigned char *snap;
  size_t snap_len;
  assert_int_equal(ens_snapshot_encode(ens_server_doc(w.srv), &snap, &snap_len), 0);
  ens_free(snap);
  s_raw liar = s_raw_open(1);
  unsigned char id[ENS_CLIENT_ID_LEN];
  memset(id, 0x6c, sizeof id);
  int64_t deadline;
  size_t joined = s_log_count(" joined");
  s_hello(&liar, id);
  /* joined before alice's first change: its catch-up is the snapshot above */
  deadline = ens__now_ms() + 5000;
  while (s_log_count(" joined") == joined) {
    s_pump();
    if (ens__now_ms() > deadline) fail_msg("the liar's hello was not answered");
  }
  const char *dropped = s_flood(&liar, 0, 100, "dropped: too far behind");
  deadline = ens__now_ms() + 5000;
  while (!dropped && ens__now_ms() < deadline) {
    s_pump();
    dropped = s_log_find("dropped: too far behind");
  }
  if (!dropped) fail_msg("a client that claims to read everything and reads nothing was never dropped");
  unsigned long long sent = 0;
  const char *at = strstr(dropped, "behind: ");
  assert_non_null(at);
  assert_int_equal(sscanf(at, "behind: %llu", &sent), 1);
  print_message("liar dropped: \"%s\" (catch-up %zu bytes, budget %d)\n", dropped, snap_len, MAX_UNREAD);
  /* counted: the budget, its catch-up, and the message that crossed the line */
  assert_true(sent <= (unsigned long long)MAX_UNREAD + snap_len + ENS_MAX_MESSAGE);
  assert_true(sent > MAX_UNREAD);

  /* hello again, on the same connection, while alice goes on */
  for (int k = 0; k < 5; k++) {
    s_hello(&liar, id);
    for (int j = 0; j < 5; j++) s_pump();
  }
  s_flood(&liar, 100, 50, NULL);
  s_hello(&liar, id);
  uint64_t got = s_drain(&liar);
  print_message("all the liar was ever sent, read at last: %llu bytes\n", (unsigned long long)got);
  assert_true(got <= (uint64_t)MAX_UNREAD + snap_len + 4096);
  assert_true(got > MAX_UNREAD / 2);
  s_raw_close(&liar);

  /* bob read it all, proved it, and was never dropped */
  deadline = ens__now_ms() + 20000;
  while (ens_session_seq(w.bob.s) != ens_server_head(w.srv) || ens_session_pending(w.alice.s)) {
    s_pump();
    if (ens__now_ms() > deadline) fail_msg("bob and alice did not settle");
  }
  assert_true(ens_doc_hash(ens_session_doc(w.bob.s)) == ens_doc_hash(ens_server_doc(w.srv)));
  assert_int_equal(w.bob.reconnecting, 0);
  assert_int_equal(w.bob.connected, 1);
  assert_int_equal(w.alice.reconnecting, 0);
}

/* --- sites ----------------------------------------------------------------------------- */

typedef struct {
  uint64_t floor[SITES + 1];
  int seen[SITES + 1];
  size_t welcomed, handed_on;
} s_sites;

/* n hellos, each with a new client id, through connections of 25 hellos
 * each (a connection may say hello 32 times at once); every one must be
 * welcomed with a site of the small space, and a site seen before must
 * come with a higher floor. */
static void s_newcomers(s_sites *st, unsigned from, unsigned n, uint32_t not_site) {
  s_raw r = {0};
  static ens__msg m;
  for (unsigned i = 0; i < n; i++) {
    if (i % 25 == 0) {
      if (r.sock) s_raw_leave(&r);
      r = s_raw_open(0);
    }
    unsigned char id[ENS_CLIENT_ID_LEN];
    memset(id, 0xc1, sizeof id);
    unsigned k = from + i;
    memcpy(id, &k, sizeof k);
    s_hello(&r, id);
    if (!s_answer(&r, &m)) fail_msg("no answer to newcomer %u", k);
    if (m.type == ENS_MSG_ERROR) fail_msg("newcomer %u refused: %.*s", k, (int)m.ntext, m.text);
    if (m.site < 1 || m.site > SITES) fail_msg("newcomer %u: site %llu outside 1..%d", k, (unsigned long long)m.site, SITES);
    assert_true(m.site != not_site);
    assert_true(m.floor % SITE_GAP == 0);
    if (st->seen[m.site]) {
      if (m.floor <= st->floor[m.site])
        fail_msg("site %llu handed on with floor %llu, not above %llu", (unsigned long long)m.site,
                 (unsigned long long)m.floor, (unsigned long long)st->floor[m.site]);
      st->handed_on++;
    }
    st->seen[m.site] = 1;
    st->floor[m.site] = m.floor;
    st->welcomed++;
  }
  if (r.sock) s_raw_leave(&r);
}

/* A client that made something keeps its site; a client that made
 * nothing and left, and 600 newcomers after it, share the rest; the
 * floors survive a restart; a session on a site handed on makes ids above
 * its floor. */
static void test_hellos_with_new_ids_never_use_sites_up(void **state) {
  (void)state;
  uint32_t alice_site = ens_session_site(w.alice.s);
  ens_txn *t = ens_txn_new("Made", NULL);
  ens_id made = ens_doc_new_id(ens_session_doc(w.alice.s));
  char *pos = NULL;
  ens_id root = ens_obj_id(ens_doc_root(ens_session_doc(w.alice.s)));
  assert_int_equal(ens_doc_pos_at(ens_session_doc(w.alice.s), root, 0, &pos), 0);
  assert_non_null(ens_txn_insert(t, root, pos, made, "thing"));
  ens_free(pos);
  assert_int_equal(ens_session_commit(w.alice.s, t), 0);
  ens_txn_free(t);
  int64_t deadline = ens__now_ms() + 5000;
  while (ens_session_pending(w.alice.s)) {
    s_pump();
    if (ens__now_ms() > deadline) fail_msg("alice's change was not acknowledged");
  }
  ens_session_free(w.bob.s); /* made nothing, and left */
  w.bob.s = NULL;

  static s_sites st;
  memset(&st, 0, sizeof st);
  int64_t t0 = ens__now_ms();
  s_newcomers(&st, 0, 600, alice_site);
  print_message("600 newcomers in %lld ms: all welcomed, sites handed on %zu times\n", (long long)(ens__now_ms() - t0),
                st.handed_on);
  assert_int_equal(st.welcomed, 600);
  assert_true(st.handed_on >= 600 - SITES);
  /* the server holds alice, and at most IDLE others plus those connected */
  assert_true(ens__server_clients(w.srv) <= 1 + IDLE + 1);
  assert_int_equal(ens_session_site(w.alice.s), alice_site);

  /* a restart: the floors come back from the store */
  ens_server_free(w.srv);
  s_server_start();
  s_newcomers(&st, 600, 100, alice_site);
  assert_int_equal(st.welcomed, 700);
  s_wait_live(w.alice.s);
  assert_int_equal(ens_session_site(w.alice.s), alice_site);
  assert_non_null(ens_doc_get(ens_session_doc(w.alice.s), made));

  /* a session on a handed-on site makes ids above its floor */
  s_peer carol = {0};
  w.bob.s = s_session(&carol);
  s_wait_live(w.bob.s);
  uint32_t site = ens_session_site(w.bob.s);
  assert_true(site != alice_site && site >= 1 && site <= SITES);
  assert_true(st.seen[site]); /* every site of the space was handed out before */
  ens_id fresh = ens_doc_new_id(ens_session_doc(w.bob.s));
  print_message("a session on site %u, handed on above floor %llu: its first id is %u:%llu\n", site,
                (unsigned long long)(st.floor[site] + SITE_GAP), ens_id_site(fresh), (unsigned long long)ens_id_counter(fresh));
  assert_true(ens_id_site(fresh) == site);
  /* its site was handed on from the last newcomer that had it */
  assert_true(ens_id_counter(fresh) > st.floor[site] + SITE_GAP);
  /* a copy made through the public call hands out the same */
  unsigned char *snap;
  size_t len;
  ens_doc *copy = NULL;
  assert_int_equal(ens_snapshot_encode(ens_session_doc(w.bob.s), &snap, &len), 0);
  assert_int_equal(ens_snapshot_decode(snap, len, &copy), 0);
  ens_free(snap);
  ens_session_set_doc_site(w.bob.s, copy);
  assert_true(ens_doc_new_id(copy) == fresh);
  ens_doc_free(copy);
}

/* The host's site (ens_server_host_site: the server's own edits, as of a
 * file edited while it was down) is never handed on, though the host made
 * nothing yet and has no connection; nor after a restart. */
static void test_the_hosts_site_is_never_handed_on(void **state) {
  (void)state;
  uint32_t host = 0, again = 0;
  assert_int_equal(ens_server_host_site(w.srv, &host), 0);
  assert_true(host >= 1 && host <= SITES);
  ens_session_free(w.bob.s); /* made nothing, and left */
  w.bob.s = NULL;
  static s_sites st;
  memset(&st, 0, sizeof st);
  s_newcomers(&st, 0, 200, host);
  assert_int_equal(st.welcomed, 200);
  assert_true(st.handed_on >= 200 - SITES);
  ens_server_free(w.srv);
  s_server_start();
  s_newcomers(&st, 200, 100, host);
  assert_int_equal(ens_server_host_site(w.srv, &again), 0);
  assert_int_equal(again, host);
  print_message("host on site %u; 300 newcomers welcomed, sites handed on %zu times, never the host's\n", host,
                st.handed_on);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_a_client_that_lies_about_reading_is_dropped, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_hellos_with_new_ids_never_use_sites_up, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_the_hosts_site_is_never_handed_on, s_setup, s_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
