/* What one client can make `ensemble serve` hold, against the tool in a
 * child process (ENS_SERVE_BIN, to show what another build does, else
 * ENS_BUILD_DIR/ensemble): the store is
 * created readable by its owner only and an existing one keeps its mode;
 * a client that claims in its pings to have read 2^62 bytes and reads
 * nothing is dropped once 64 MiB went to it; 5,000 hellos with new client
 * ids take no more than the 4,096 sites idle clients keep, plus those
 * connected. Every wait is bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include "ensemble.h"
#include "sync/msg.h"
#include "sync/net.h"
#include "testutil.h"

static struct {
  char bin[512], dir[64], file[128], store[128], err[128], endpoint[256];
  pid_t pid;
  void *zctx;
  void *raw[8];
  ens_session *sess; /* freed before the context is ended, even after a failure */
} w;

static int s_setup(void **state) {
  (void)state;
  memset(&w, 0, sizeof w);
  w.pid = -1;
  const char *bin = getenv("ENS_SERVE_BIN"), *build = getenv("ENS_BUILD_DIR");
  if (bin) snprintf(w.bin, sizeof w.bin, "%s", bin);
  else if (build) snprintf(w.bin, sizeof w.bin, "%s/ensemble", build);
  else return 0; /* each test skips */
  snprintf(w.dir, sizeof w.dir, "/tmp/ens-serve-bounds-XXXXXX");
  assert_non_null(mkdtemp(w.dir));
  snprintf(w.file, sizeof w.file, "%s/doc.snap", w.dir);
  snprintf(w.store, sizeof w.store, "%s/doc.log", w.dir);
  snprintf(w.err, sizeof w.err, "%s/serve.err", w.dir);
  tu_rng r = {tu_seed("serve-bounds", 20261208)};
  ens_doc *initial = tu_random_doc(&r, 0xfff0, 100);
  unsigned char *snap;
  size_t len;
  assert_int_equal(ens_snapshot_encode(initial, &snap, &len), 0);
  FILE *f = fopen(w.file, "wb");
  assert_true(f && fwrite(snap, 1, len, f) == len && fclose(f) == 0);
  ens_free(snap);
  ens_doc_free(initial);
  w.zctx = zmq_ctx_new();
  return 0;
}

static void s_stop(void) {
  if (w.pid <= 0) return;
  kill(w.pid, SIGTERM);
  int status;
  waitpid(w.pid, &status, 0);
  w.pid = -1;
}

static int s_teardown(void **state) {
  (void)state;
  s_stop();
  ens_session_free(w.sess);
  for (size_t i = 0; i < sizeof w.raw / sizeof *w.raw; i++)
    if (w.raw[i]) zmq_close(w.raw[i]);
  if (w.zctx) zmq_ctx_term(w.zctx);
  if (!w.dir[0] || getenv("ENS_KEEP_TMP")) return 0;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", w.dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Starts `ensemble serve` on an ipc endpoint in the test's directory, its
 * log on stderr to a file; returns when it printed its first line. */
static void s_serve(void) {
  snprintf(w.endpoint, sizeof w.endpoint, "ipc://%s/sock", w.dir);
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    FILE *err = freopen(w.err, "a", stderr);
    (void)err;
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    umask(022);
    execl(w.bin, w.bin, "serve", "--bind", w.endpoint, "--store", w.store, w.file, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  FILE *f = fdopen(fds[0], "r");
  char line[512];
  if (!fgets(line, sizeof line, f)) fail_msg("ensemble serve printed nothing");
  fclose(f);
  w.pid = pid;
}

/* How many lines of the server's log hold needle. */
static size_t s_log_count(const char *needle) {
  size_t len, n = 0;
  char *text = tu_read_file(w.err, &len);
  for (char *at = text; at && (at = strstr(at, needle)); at += strlen(needle)) n++;
  free(text);
  return n;
}

static long s_rss_kib(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib;
}

/* --- the store's mode ------------------------------------------------------------------ */

static void s_assert_mode(const char *path, unsigned want) {
  struct stat st;
  if (stat(path, &st) != 0) fail_msg("%s: missing", path);
  unsigned mode = (unsigned)st.st_mode & 0777;
  print_message("%s: %03o\n", strrchr(path, '/') + 1, mode);
  if (mode != want) fail_msg("%s has mode %03o, not %03o", path, mode, want);
}

/* The store holds the whole document and its history: created 0600 with
 * its -wal (and -shm, if SQLite makes one) under a umask of 022, and one
 * the user made 0640 stays 0640. */
static void test_store_is_created_owner_only(void **state) {
  (void)state;
  if (!w.bin[0]) skip();
  s_serve();
  char wal[160], shm[160];
  snprintf(wal, sizeof wal, "%s-wal", w.store);
  snprintf(shm, sizeof shm, "%s-shm", w.store);
  s_assert_mode(w.store, 0600);
  s_assert_mode(wal, 0600);
  if (access(shm, F_OK) == 0) s_assert_mode(shm, 0600); /* none in exclusive locking mode */
  s_stop();
  assert_int_equal(chmod(w.store, 0640), 0);
  s_serve();
  s_assert_mode(w.store, 0640);
  s_stop();
}

/* --- raw connections ------------------------------------------------------------------ */

static void *s_raw(int rcvhwm) {
  void *sock = zmq_socket(w.zctx, ZMQ_DEALER);
  assert_non_null(sock);
  int zero = 0;
  zmq_setsockopt(sock, ZMQ_LINGER, &zero, sizeof zero);
  if (rcvhwm > 0) {
    int buf = 4096;
    zmq_setsockopt(sock, ZMQ_RCVHWM, &rcvhwm, sizeof rcvhwm);
    zmq_setsockopt(sock, ZMQ_RCVBUF, &buf, sizeof buf);
  }
  assert_int_equal(zmq_connect(sock, w.endpoint), 0);
  for (size_t i = 0; i < sizeof w.raw / sizeof *w.raw; i++)
    if (!w.raw[i]) {
      w.raw[i] = sock;
      break;
    }
  return sock;
}

static void s_raw_close(void *sock) {
  for (size_t i = 0; i < sizeof w.raw / sizeof *w.raw; i++)
    if (w.raw[i] == sock) w.raw[i] = NULL;
  zmq_close(sock);
}

static void s_raw_send(void *sock, const ens__msg *m) {
  ens_buf b = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(m, &b), 0);
  assert_true(zmq_send(sock, b.data, b.len, 0) == (int)b.len);
  ens__buf_free(&b);
}

static ens__msg *s_msg(ens__msg_type type) {
  static ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = type;
  return &m;
}

static void s_hello(void *sock, const unsigned char *id) {
  ens__msg *m = s_msg(ENS_MSG_HELLO);
  m->vmin = 1;
  m->vmax = ENS_PROTO_VERSION;
  memcpy(m->client, id, ENS_CLIENT_ID_LEN);
  s_raw_send(sock, m);
}

/* --- a client that lies about what it read ---------------------------------------------- */

/* The liar says hello, never reads, and every 100 ms pings claiming to
 * have read 2^62 bytes (with a made-up mark). A session commits changes
 * of 1,000,000 bytes, 100 MB in all, reading everything it is sent. The
 * server must drop the liar ("too far behind") before the end, having
 * sent it little more than 64 MiB. */
static void test_a_client_that_lies_about_reading_is_dropped(void **state) {
  (void)state;
  if (!w.bin[0]) skip();
  s_serve();
  ens_session_opts o;
  memset(&o, 0, sizeof o);
  o.endpoint = w.endpoint;
  o.name = "writer";
  o.zmq_context = w.zctx;
  ens_session *s;
  assert_int_equal(ens_session_new(&o, &s), 0);
  w.sess = s;
  int64_t deadline = ens__now_ms() + 20000;
  while (!ens_session_is_live(s)) {
    if (ens_session_poll(s, 10)) fail_msg("writer: %s", ens_error_last());
    if (ens__now_ms() > deadline) fail_msg("the writer did not join");
  }
  void *liar = s_raw(1);
  unsigned char id[ENS_CLIENT_ID_LEN];
  memset(id, 0x6c, sizeof id);
  s_hello(liar, id);
  deadline = ens__now_ms() + 20000;
  while (s_log_count(" joined") < 2) {
    if (ens_session_poll(s, 10)) fail_msg("writer: %s", ens_error_last());
    if (ens__now_ms() > deadline) fail_msg("the liar's hello was not answered");
  }
  static char blob[1000000];
  memset(blob, 'b', sizeof blob);
  ens_id target = ens_obj_id(ens_doc_root(ens_session_doc(s)));
  long rss0 = s_rss_kib(w.pid), rss_max = rss0;
  int64_t last_ping = 0;
  uint64_t token = 0;
  int i, dropped = 0;
  deadline = ens__now_ms() + 240000;
  for (i = 0; i < 100 && !dropped; i++) {
    ens_txn *t = ens_txn_new("Blob", NULL);
    blob[i] = 'a';
    assert_int_equal(ens_txn_set(t, target, "blob", ens_strn(blob, sizeof blob)), 0);
    assert_int_equal(ens_session_commit(s, t), 0);
    ens_txn_free(t);
    /* the writer keeps at most 4 in flight, and the liar pings all along */
    while (ens_session_pending(s) > 4 || (i == 99 && ens_session_pending(s))) {
      if (ens_session_poll(s, 5)) fail_msg("writer: %s", ens_error_last());
      if (ens__now_ms() - last_ping >= 100) {
        ens__msg *p = s_msg(ENS_MSG_PING);
        p->token = ++token;
        p->received = (uint64_t)1 << 62;
        p->has_received = 1;
        p->mark = 0x9e3779b97f4a7c15ULL * token | 1;
        s_raw_send(liar, p);
        last_ping = ens__now_ms();
      }
      if (ens__now_ms() > deadline) fail_msg("the writer's changes were not acknowledged in time");
    }
    long rss = s_rss_kib(w.pid);
    if (rss > rss_max) rss_max = rss;
    dropped = s_log_count("dropped: too far behind") > 0;
  }
  print_message("after %d changes of 1 MB: liar %s; server RSS %ld -> %ld KiB (at most)\n", i,
                dropped ? "dropped" : "never dropped", rss0, rss_max);
  if (!dropped) fail_msg("a client that claims to read everything and reads nothing was never dropped");
  /* the budget is 64 MiB: it is crossed after 67 changes of 1 MB, not before */
  assert_true(i >= 60);
  ens_session_free(s);
  w.sess = NULL;
  s_raw_close(liar);
  s_stop();
}

/* --- hellos with new client ids ---------------------------------------------------------- */

/* 5,000 hellos, each with a new client id, from connections of 25 hellos
 * each that say bye and close (a connection may say hello 32 times at
 * once). Every one is welcomed; past the 4,096 idle client ids the server
 * keeps, sites are handed on, so that no site above 4,096 plus those
 * connected is ever given. The server does not keep more than that: the
 * same holds for the next 5,000, and the next, up to the floors' end
 * (docs/protocol.md, "Sites"). */
static void test_hellos_with_new_ids_take_bounded_sites(void **state) {
  (void)state;
  if (!w.bin[0]) skip();
  s_serve();
  enum { N = 5000, IDLE = 4096 };
  static unsigned char buf[ENS_MAX_MESSAGE + ENS_SNAPSHOT_CHUNK];
  static ens__msg m;
  void *sock = NULL;
  uint64_t max_site = 0, handed_on = 0;
  int64_t t0 = ens__now_ms();
  for (unsigned k = 0; k < N; k++) {
    if (k % 25 == 0) {
      if (sock) {
        s_raw_send(sock, s_msg(ENS_MSG_BYE));
        s_raw_close(sock);
      }
      sock = s_raw(0);
      int timeout = 20000;
      zmq_setsockopt(sock, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    }
    unsigned char id[ENS_CLIENT_ID_LEN];
    memset(id, 0xc1, sizeof id);
    memcpy(id, &k, sizeof k);
    s_hello(sock, id);
    for (;;) {
      int n = zmq_recv(sock, buf, sizeof buf, 0);
      if (n < 0) fail_msg("no answer to newcomer %u", k);
      assert_true((size_t)n <= sizeof buf);
      if (ens__msg_decode(buf, (size_t)n, &m) != 0) continue;
      if (m.type == ENS_MSG_ERROR) fail_msg("newcomer %u refused: %.*s", k, (int)m.ntext, m.text);
      if (m.type == ENS_MSG_WELCOME) break;
    }
    if (m.site > max_site) max_site = m.site;
    handed_on += m.floor != 0;
  }
  s_raw_send(sock, s_msg(ENS_MSG_BYE));
  s_raw_close(sock);
  print_message("%d newcomers in %lld ms: highest site %llu, %llu welcomed on a site handed on\n", N,
                (long long)(ens__now_ms() - t0), (unsigned long long)max_site, (unsigned long long)handed_on);
  if (max_site > IDLE + 2)
    fail_msg("site %llu given: each new client id takes a site for good", (unsigned long long)max_site);
  assert_true(handed_on >= N - IDLE - 2);
  s_stop();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_store_is_created_owner_only, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_a_client_that_lies_about_reading_is_dropped, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_hellos_with_new_ids_take_bounded_sites, s_setup, s_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
