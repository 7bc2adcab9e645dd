/* Sessions across processes: `ensemble serve` in a child process, eight
 * clients in this one committing 2,000 random transactions each (every
 * operation kind, moves that would make cycles, edits of deleted
 * objects) with undo and redo, random disconnects, one client's traffic
 * paused for 5 s (past the server's heartbeat timeout), and the server
 * SIGKILLed and restarted from its store twice. In the end every
 * replica's hash equals the document the store holds and the file the
 * server wrote back, and every acknowledged transaction is in the log.
 * Bounded to 2 minutes; ENS_SEED replays. ENS_SESSION_CLIENTS and
 * ENS_SESSION_ROUNDS change the scale. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ensemble.h"
#include "sync/net.h"
#include "sync/store.h"
#include "testutil.h"

enum { MAX_CLIENTS = 64 };
static int CLIENTS = 8, ROUNDS = 2000;
enum { PAUSE_MS = 5000, BOUND_MS = 120000 };

typedef struct {
  ens_session *s;
  tu_rng r;
  uint64_t (*acked)[2];
  size_t nacked, cap;
  size_t rejected, dropped; /* refused whole; applied without edits of what others deleted */
} s_client;

static char s_dir[64], s_file[128], s_store[128], s_endpoint[256], s_bin[512];
static pid_t s_server = -1;

static void s_on_event(ens_session *s, const ens_session_event *ev, void *user) {
  (void)s;
  s_client *c = user;
  if (ev->kind == ENS_SESSION_REJECTED) c->rejected++;
  if (ev->kind == ENS_SESSION_DROPPED) c->dropped++;
  if (ev->kind != ENS_SESSION_ACKED) return;
  if (c->nacked == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 256;
    c->acked = realloc(c->acked, c->cap * sizeof *c->acked);
    assert_non_null(c->acked);
  }
  c->acked[c->nacked][0] = ev->ctn;
  c->acked[c->nacked][1] = ev->seq;
  c->nacked++;
}

/* Starts `ensemble serve` and reads the endpoint from its first line. */
static void s_start_server(void) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execl(s_bin, s_bin, "serve", "--bind", s_endpoint[0] ? s_endpoint : "tcp://127.0.0.1:*", "--store", s_store,
          "--checkpoint-every", "300", "--log-keep", "1000000", s_file, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  FILE *f = fdopen(fds[0], "r");
  char line[512];
  if (!fgets(line, sizeof line, f)) fail_msg("ensemble serve printed nothing");
  fclose(f);
  char *on = strstr(line, " on "), *end = on ? strchr(on + 4, ' ') : NULL;
  if (!on || !end) fail_msg("unexpected first line: %s", line);
  *end = '\0';
  snprintf(s_endpoint, sizeof s_endpoint, "%s", on + 4);
  s_server = pid;
}

static void s_kill_server(int sig) {
  kill(s_server, sig);
  int status;
  waitpid(s_server, &status, 0);
  if (sig == SIGTERM) assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  s_server = -1;
}

static int s_poll_all(s_client *c, int paused) {
  for (int k = 0; k < CLIENTS; k++)
    if (k != paused && ens_session_poll(c[k].s, 0)) fail_msg("client %d: %s", k, ens_error_last());
  return 0;
}

static size_t s_refused_locally; /* cycles, edits of what the same transaction deleted */

static void s_act(s_client *c) {
  ens_doc *doc = ens_session_doc(c->s);
  if (!doc) return;
  uint32_t dice = tu_below(&c->r, 100);
  if (dice < 15) ens_session_undo(c->s, NULL);
  else if (dice < 25) ens_session_redo(c->s, NULL);
  else {
    ens_txn *t = tu_random_txn(&c->r, doc, 3);
    if (ens_session_commit(c->s, t)) s_refused_locally++;
    ens_txn_free(t);
  }
}

typedef struct {
  ens_doc *doc;
  int bad;
} s_rebuild;

static int s_replay(const ens__entry *e, void *user) {
  s_rebuild *r = user;
  ens_txn *t;
  if (ens_txn_decode(e->txn, e->len, &t) || ens_doc_apply(r->doc, t, ENS_ORIGIN_REMOTE, NULL)) r->bad++;
  ens_txn_free(t);
  return 0;
}

typedef struct {
  uint64_t seq, ctn;
  uint32_t site;
  int found;
} s_probe;

static int s_find(const ens__entry *e, void *user) {
  s_probe *p = user;
  p->found = e->seq == p->seq && e->site == p->site && e->ctn == p->ctn;
  return 0;
}

static void test_server_killed_twice_nothing_lost(void **state) {
  (void)state;
  const char *build = getenv("ENS_BUILD_DIR");
  if (!build) TU_SKIP("ENS_BUILD_DIR is not set: no ensemble binary to run");
  if (getenv("ENS_SESSION_CLIENTS")) CLIENTS = atoi(getenv("ENS_SESSION_CLIENTS"));
  if (getenv("ENS_SESSION_ROUNDS")) ROUNDS = atoi(getenv("ENS_SESSION_ROUNDS"));
  assert_true(CLIENTS >= 2 && CLIENTS <= MAX_CLIENTS && ROUNDS >= 10);
  snprintf(s_bin, sizeof s_bin, "%s/ensemble", build);
  snprintf(s_dir, sizeof s_dir, "/tmp/ens-kill-XXXXXX");
  assert_non_null(mkdtemp(s_dir));
  snprintf(s_file, sizeof s_file, "%s/doc.snap", s_dir);
  snprintf(s_store, sizeof s_store, "%s/doc.log", s_dir);
  s_endpoint[0] = '\0';
  tu_rng r = {tu_seed("session-kill", 20261203)};
  ens_doc *initial = tu_random_doc(&r, 0xfff0, 200);
  unsigned char *snap;
  size_t len;
  assert_int_equal(ens_snapshot_encode(initial, &snap, &len), 0);
  FILE *f = fopen(s_file, "wb");
  assert_true(f && fwrite(snap, 1, len, f) == len && fclose(f) == 0);
  ens_free(snap);
  ens_doc_free(initial);
  s_start_server();

  static s_client c[MAX_CLIENTS];
  memset(c, 0, sizeof c);
  for (int k = 0; k < CLIENTS; k++) {
    c[k].r.s = r.s + 7919u * (uint64_t)(k + 1);
    ens_session_opts o;
    memset(&o, 0, sizeof o);
    o.endpoint = s_endpoint;
    o.name = "tester";
    o.on_event = s_on_event;
    o.user = &c[k];
    assert_int_equal(ens_session_new(&o, &c[k].s), 0);
  }
  /* the whole run, settling and checks included, within BOUND_MS */
  int64_t started = ens__now_ms(), deadline = started + BOUND_MS - 20000;
  int kills = 0, paused = -1;
  int64_t pause_until = 0;
  size_t drops = 0;
  for (int i = 0; i < ROUNDS; i++) {
    for (int k = 0; k < CLIENTS; k++) {
      if (k == paused) continue;
      s_act(&c[k]);
      if (tu_below(&c[k].r, 100) < 2) {
        ens_session_reconnect(c[k].s);
        drops++;
      }
    }
    s_poll_all(c, paused);
    usleep(2000);
    if (i == ROUNDS / 3 || i == 2 * ROUNDS / 3) {
      s_kill_server(SIGKILL);
      kills++;
      s_start_server();
    }
    if (i == ROUNDS / 2) {
      paused = CLIENTS - 1; /* past the server's 3 heartbeats: it is dropped and comes back */
      pause_until = ens__now_ms() + PAUSE_MS;
    }
    if (paused >= 0 && ens__now_ms() > pause_until) paused = -1;
    if (ens__now_ms() > deadline) fail_msg("too slow");
  }
  /* settle: everyone live, nothing pending, the same seq for a while */
  int64_t settle_deadline = started + BOUND_MS - 5000, stable_since = 0;
  for (;;) {
    s_poll_all(c, -1);
    usleep(1000);
    int ok = 1;
    for (int k = 0; k < CLIENTS; k++)
      ok &= ens_session_is_live(c[k].s) && ens_session_pending(c[k].s) == 0 &&
            ens_session_seq(c[k].s) == ens_session_seq(c[0].s);
    int64_t now = ens__now_ms();
    if (!ok) stable_since = 0;
    else if (!stable_since) stable_since = now;
    else if (now - stable_since > 1500) break;
    if (now > settle_deadline) fail_msg("clients did not settle");
  }
  uint64_t seq = ens_session_seq(c[0].s), h = ens_doc_hash(ens_session_doc(c[0].s));
  for (int k = 1; k < CLIENTS; k++) assert_true(ens_doc_hash(ens_session_doc(c[k].s)) == h);
  s_kill_server(SIGTERM);

  /* the store's document is the clients' */
  ens__store *st;
  assert_int_equal(ens__store_open(s_store, &st), 0);
  assert_true(ens__store_head(st) == seq);
  uint64_t cp;
  assert_int_equal(ens__store_checkpoint_get(st, &cp, &snap, &len), 0);
  s_rebuild rb = {NULL, 0};
  assert_int_equal(ens_snapshot_decode(snap, len, &rb.doc), 0);
  ens_free(snap);
  assert_int_equal(ens__store_read(st, cp + 1, seq, s_replay, &rb), 0);
  assert_int_equal(rb.bad, 0);
  assert_true(ens_doc_hash(rb.doc) == h);
  ens_doc_free(rb.doc);
  /* every ack is in the log, as its author's */
  size_t acked = 0;
  for (int k = 0; k < CLIENTS; k++) {
    for (size_t i = 0; i < c[k].nacked; i++) {
      s_probe p = {c[k].acked[i][1], c[k].acked[i][0], ens_session_site(c[k].s), 0};
      assert_true(p.seq >= ens__store_first(st));
      assert_int_equal(ens__store_read(st, p.seq, p.seq, s_find, &p), 0);
      if (!p.found) fail_msg("client %d: ack of ctn %llu as seq %llu not in the log", k, (unsigned long long)p.ctn,
                             (unsigned long long)p.seq);
      acked++;
    }
  }
  ens__store_close(st);
  /* and the file written back at the stop is that document too */
  ens_doc *back;
  char *data;
  size_t dlen;
  f = fopen(s_file, "rb");
  assert_non_null(f);
  data = malloc(1 << 24);
  dlen = fread(data, 1, 1 << 24, f);
  fclose(f);
  assert_int_equal(ens_snapshot_decode(data, dlen, &back), 0);
  free(data);
  assert_true(ens_doc_hash(back) == h);
  ens_doc_free(back);
  size_t rejected = 0, dropped = 0;
  for (int k = 0; k < CLIENTS; k++) {
    rejected += c[k].rejected;
    dropped += c[k].dropped;
  }
  int64_t took = ens__now_ms() - started;
  assert_true(took < BOUND_MS);
  print_message("%d clients x %d rounds: seq %llu, %zu acks all in the log, %zu applied without their edits of "
                "objects a collaborator had deleted, %zu rejected by the server (nothing left, or a cycle with a "
                "collaborator's move), %zu refused locally, %d kills, %zu dropped connections, %.1f s\n",
                CLIENTS, ROUNDS, (unsigned long long)seq, acked, dropped, rejected, s_refused_locally, kills, drops,
                took / 1000.0);
  for (int k = 0; k < CLIENTS; k++) {
    ens_session_free(c[k].s);
    free(c[k].acked);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_server_killed_twice_nothing_lost),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
