/* Session history (ensemble/history.h, `ensemble history`, STORE@SEQ):
 * a real `ensemble serve` on loopback, two clients of this process taking
 * turns at editing its drawing; the store, read beside the running server
 * and after it stopped, lists exactly their transactions in order with
 * the right sites, and the document it rebuilds at each seq is the one
 * the clients held after that transaction. Missing, corrupt and
 * out-of-range operands fail with clear errors and exit 1. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ensemble.h"
#include "proc.h"
#include "sync/net.h"

enum { WAIT_MS = 60000 }; /* any one wait, generous for a sanitizer build */

static const char s_drawing[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">\n"
    "  <rect id=\"a\" x=\"0\" y=\"0\" width=\"10\" height=\"10\" fill=\"red\"/>\n"
    "  <rect id=\"b\" x=\"20\" y=\"0\" width=\"10\" height=\"10\" fill=\"red\" stroke=\"none\"/>\n"
    "  <rect id=\"c\" x=\"40\" y=\"0\" width=\"10\" height=\"10\" fill=\"red\"/>\n"
    "</svg>\n";

static char s_bin[512];
/* A server a failed test leaves is ended by the teardown. */
static pid_t s_live = -1;

typedef struct {
  pid_t pid;
  char endpoint[256];
  char err[600]; /* its stderr, a file */
} s_srv;

static int s_setup(void **state) {
  (void)state;
  const char *build = getenv("ENS_BUILD_DIR");
  if (build) snprintf(s_bin, sizeof s_bin, "%s/ensemble", build);
  else s_bin[0] = '\0';
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

static void s_mkdtemp(char *dir, size_t size) { assert_int_equal(tu_temp_dir(dir, size, "ens-history"), 0); }

static void s_rm_rf(const char *dir) { assert_int_equal(tu_rm_rf(dir), 0); }

static void s_write(const char *path, const char *text) { assert_int_equal(tu_write_text(path, text), 0); }



/* Starts `ensemble serve [--store STORE] FILE`: 0 once it printed its
 * endpoint, or the exit status it ended with before that (negative for a
 * signal). */
static int s_serve(s_srv *v, const char *file, const char *store) {
  snprintf(v->err, sizeof v->err, "%s.serve-err", store ? store : file); /* beside the store: FILE's directory may become read-only */
  int r = tu_serve_start(s_bin, file, store, v->err, WAIT_MS, &v->pid, v->endpoint, sizeof v->endpoint);
  if (r == 1000) fail_msg("serve printed no line within %d ms", WAIT_MS);
  assert_int_not_equal(r, -1000);
  s_live = r == 0 ? v->pid : -1;
  if (r != 0) v->pid = -1;
  return r;
}

/* Sends sig and waits: the exit status, or minus the signal that ended it. */
static int s_stop(s_srv *v, int sig) {
  int r = tu_proc_stop(v->pid, sig);
  assert_int_not_equal(r, -1000);
  v->pid = s_live = -1;
  return r;
}



/* --- a client --------------------------------------------------------------------------- */

typedef struct {
  ens_session *s;
  int connected;
  size_t acked, rejected;
} s_cli;

static void s_on_event(ens_session *s, const ens_session_event *ev, void *user) {
  (void)s;
  s_cli *c = user;
  if (ev->kind == ENS_SESSION_CONNECTED) c->connected = 1;
  if (ev->kind == ENS_SESSION_ACKED) c->acked++;
  if (ev->kind == ENS_SESSION_REJECTED) c->rejected++;
}

static void s_connect(s_cli *c, const s_srv *v) {
  memset(c, 0, sizeof *c);
  ens_session_opts o;
  memset(&o, 0, sizeof o);
  o.endpoint = v->endpoint;
  o.name = "tester";
  o.on_event = s_on_event;
  o.user = c;
  assert_int_equal(ens_session_new(&o, &c->s), 0);
  int64_t deadline = ens__now_ms() + WAIT_MS;
  while (!c->connected) {
    assert_int_equal(ens_session_poll(c->s, 20), 0);
    if (ens__now_ms() > deadline) fail_msg("no connection to %s", v->endpoint);
  }
}

/* One attribute set through the session, waited for until acknowledged. */
static void s_set(s_cli *c, const char *elem, const char *name, const char *value) {
  ens_txn *t;
  assert_int_equal(ens_svg_set_attr(ens_session_doc(c->s), elem, name, value, &t), 0);
  size_t want = c->acked + 1;
  assert_int_equal(ens_session_commit(c->s, t), 0);
  ens_txn_free(t);
  int64_t deadline = ens__now_ms() + WAIT_MS;
  while (c->acked < want) {
    assert_int_equal(ens_session_poll(c->s, 20), 0);
    assert_int_equal(c->rejected, 0);
    if (ens__now_ms() > deadline) fail_msg("no ack for %s %s=%s", elem, name, value);
  }
}


enum { EDITS = 6 };

typedef struct {
  uint64_t seq;
  uint32_t site;
  uint64_t hash; /* ens_doc_hash of the editing client's document after the ack */
} s_seen;

/* Waits until the client has applied everything up to seq. */
static void s_catch_up(s_cli *c, uint64_t seq) {
  int64_t deadline = ens__now_ms() + WAIT_MS;
  while (ens_session_seq(c->s) < seq) {
    assert_int_equal(ens_session_poll(c->s, 20), 0);
    if (ens__now_ms() > deadline) fail_msg("client stuck at seq %llu", (unsigned long long)ens_session_seq(c->s));
  }
}

typedef struct {
  const s_seen *want;
  size_t n, bad;
  uint64_t first_seq;
} s_check;

static int s_check_entry(const ens_history_entry *e, const ens_txn *txn, const ens_doc *after, void *user) {
  s_check *k = user;
  (void)txn;
  if (k->n >= EDITS) {
    k->bad++;
    return 0;
  }
  const s_seen *w = &k->want[k->n++];
  if (e->seq != w->seq || e->site != w->site || e->sets != 1 || e->inserts || e->deletes || e->moves ||
      e->nobjects != 1 || !after || ens_doc_hash(after) != w->hash || e->time_ms <= 0) {
    print_message("entry %llu: site %u (want %u), sets %zu, objects %zu, after %p\n", (unsigned long long)e->seq,
                  e->site, w->site, e->sets, e->nobjects, (const void *)after);
    k->bad++;
  }
  return 0;
}

/* The store lists exactly the edits seen, and rebuilds each moment. */
static void s_verify_store(const char *store, const s_seen *seen, uint64_t hash0) {
  ens_history *h;
  if (ens_history_open(store, &h)) fail_msg("%s: %s", store, ens_error_last());
  assert_true(ens_history_head(h) == EDITS);
  assert_true(ens_history_oldest(h) == 0);
  assert_string_equal(ens_history_doc_kind(h), "svg");
  s_check k = {seen, 0, 0, 0};
  assert_int_equal(ens_history_list(h, s_check_entry, &k), 0);
  assert_int_equal(k.n, EDITS);
  assert_int_equal(k.bad, 0);
  for (uint64_t seq = 0; seq <= EDITS; seq++) {
    ens_doc *d;
    if (ens_history_doc_at(h, seq, &d)) fail_msg("seq %llu: %s", (unsigned long long)seq, ens_error_last());
    uint64_t want = seq ? seen[seq - 1].hash : hash0;
    if (ens_doc_hash(d) != want) fail_msg("seq %llu: the rebuilt document differs", (unsigned long long)seq);
    ens_doc_free(d);
  }
  ens_doc *none = (ens_doc *)1;
  assert_int_equal(ens_history_doc_at(h, EDITS + 1, &none), ENS_ENOTFOUND);
  assert_null(none);
  assert_non_null(strstr(ens_error_last(), "past the end"));
  ens_history_free(h);
}

/* Runs the ensemble binary with args; its exit status, its stdout in out
 * and stderr in err (each up to size bytes). */
static int s_run(char *out, char *err, size_t size, const char *a1, const char *a2, const char *a3, const char *a4,
                 const char *a5) {
  char of[] = "/tmp/ens-history-out-XXXXXX", ef[] = "/tmp/ens-history-err-XXXXXX";
  int ofd = mkstemp(of), efd = mkstemp(ef);
  assert_true(ofd >= 0 && efd >= 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(ofd, 1);
    dup2(efd, 2);
    execl(s_bin, s_bin, a1, a2, a3, a4, a5, (char *)NULL);
    _exit(127);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  char *files[2] = {of, ef}, *bufs[2] = {out, err};
  for (int i = 0; i < 2; i++) {
    FILE *f = fopen(files[i], "rb");
    size_t n = f ? fread(bufs[i], 1, size - 1, f) : 0;
    bufs[i][n] = '\0';
    if (f) fclose(f);
    unlink(files[i]);
  }
  close(ofd);
  close(efd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static size_t s_count(const char *text, const char *what) {
  size_t n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
  return n;
}

/* The CLI's view: --json lists the edits in order with their sites, and
 * STORE@SEQ -o writes the document of that moment. */
static void s_verify_cli(const char *dir, const char *store, const s_seen *seen) {
  static char out[1 << 16], err[4096];
  int st = s_run(out, err, sizeof out, "history", "--json", store, NULL, NULL);
  if (st != 0) fail_msg("history: status %d: %s", st, err);
  assert_int_equal(s_count(out, "\n"), EDITS);
  const char *p = out;
  for (int i = 0; i < EDITS; i++) {
    char want[96];
    snprintf(want, sizeof want, "{\"seq\":%llu,\"time\":\"", (unsigned long long)seen[i].seq);
    if (strncmp(p, want, strlen(want)) != 0) fail_msg("line %d: %.200s", i + 1, p);
    snprintf(want, sizeof want, "\"site\":%u,", seen[i].site);
    const char *eol = strchr(p, '\n');
    char *site = strstr(p, want);
    if (!site || site > eol) fail_msg("line %d lacks %s: %.300s", i + 1, want, p);
    if (!strstr(p, "\"ops\":{\"set\":1,\"insert\":0,\"delete\":0,\"move\":0}")) fail_msg("line %d: %.300s", i + 1, p);
    p = eol + 1;
  }
  st = s_run(out, err, sizeof out, "history", store, NULL, NULL, NULL);
  if (st != 0 || !strstr(out, "1 set: rect #a") || !strstr(out, "1 set: rect #b"))
    fail_msg("history: status %d:\n%s%s", st, out, err);
  print_message("%s", out);
  for (uint64_t seq = 1; seq <= EDITS; seq += EDITS - 1) {
    char at[600], file[600];
    snprintf(at, sizeof at, "%s@%llu", store, (unsigned long long)seq);
    snprintf(file, sizeof file, "%s/at%llu.svg", dir, (unsigned long long)seq);
    st = s_run(out, err, sizeof out, "history", at, "-o", file, NULL);
    if (st != 0) fail_msg("history %s: status %d: %s", at, st, err);
    /* the file holds that moment's drawing, byte for byte as written */
    ens_doc *rebuilt;
    ens_history *h;
    assert_int_equal(ens_history_open(store, &h), 0);
    assert_int_equal(ens_history_doc_at(h, seq, &rebuilt), 0);
    assert_true(ens_doc_hash(rebuilt) == seen[seq - 1].hash);
    unsigned char *bytes;
    size_t len;
    assert_int_equal(ens_svg_write(rebuilt, &bytes, &len), 0);
    FILE *f = fopen(file, "rb");
    assert_non_null(f);
    char *got = malloc(len + 2);
    assert_non_null(got);
    size_t n = fread(got, 1, len + 1, f);
    fclose(f);
    assert_true(n == len && memcmp(got, bytes, len) == 0);
    free(got);
    ens_free(bytes);
    ens_doc_free(rebuilt);
    ens_history_free(h);
  }
}

static void test_history_of_a_served_drawing(void **state) {
  (void)state;
  if (!s_bin[0]) skip();
  char dir[64], file[128], store[160];
  s_mkdtemp(dir, sizeof dir);
  snprintf(file, sizeof file, "%s/d.svg", dir);
  snprintf(store, sizeof store, "%s.ensemble", file);
  s_write(file, s_drawing);
  s_srv v;
  assert_int_equal(s_serve(&v, file, NULL), 0);
  s_cli a, b;
  s_connect(&a, &v);
  s_connect(&b, &v);
  uint64_t hash0 = ens_doc_hash(ens_session_doc(a.s));
  static const char *fills[EDITS] = {"green", "blue", "cyan", "black", "white", "gray"};
  s_seen seen[EDITS];
  for (int i = 0; i < EDITS; i++) {
    /* the two take turns, each first catching up with the other */
    s_cli *c = i % 2 ? &b : &a;
    s_catch_up(c, (uint64_t)i);
    s_set(c, i % 2 ? "#b" : "#a", "fill", fills[i]);
    seen[i].seq = ens_session_seq(c->s);
    seen[i].site = ens_session_site(c->s);
    seen[i].hash = ens_doc_hash(ens_session_doc(c->s));
    assert_true(seen[i].seq == (uint64_t)i + 1);
  }
  assert_true(seen[0].site != seen[1].site);
  /* beside the live server, through the library and the CLI */
  s_verify_store(store, seen, hash0);
  s_verify_cli(dir, store, seen);
  /* the server still works after being read */
  s_set(&a, "#c", "fill", "olive");
  ens_session_free(a.s);
  ens_session_free(b.s);
  assert_int_equal(s_stop(&v, SIGTERM), 0);
  /* after the stop (which checkpoints): the first EDITS moments unchanged */
  ens_history *h;
  assert_int_equal(ens_history_open(store, &h), 0);
  assert_true(ens_history_head(h) == EDITS + 1);
  ens_history_free(h);
  for (int i = 0; i < EDITS; i++) {
    ens_doc *d;
    assert_int_equal(ens_history_open(store, &h), 0);
    if (ens_history_doc_at(h, (uint64_t)i + 1, &d)) fail_msg("%s", ens_error_last());
    assert_true(ens_doc_hash(d) == seen[i].hash);
    ens_doc_free(d);
    ens_history_free(h);
  }
  s_rm_rf(dir);
}

static void test_bad_stores_and_seqs(void **state) {
  (void)state;
  if (!s_bin[0]) skip();
  static char out[8192], err[4096];
  char dir[64], path[160], at[200];
  s_mkdtemp(dir, sizeof dir);
  ens_history *h = (ens_history *)1;
  /* missing */
  snprintf(path, sizeof path, "%s/missing.ensemble", dir);
  assert_int_equal(ens_history_open(path, &h), ENS_EIO);
  assert_null(h);
  assert_int_equal(s_run(out, err, sizeof out, "history", path, NULL, NULL, NULL), 1);
  assert_non_null(strstr(err, "missing.ensemble"));
  snprintf(at, sizeof at, "%s@3", path);
  assert_int_equal(s_run(out, err, sizeof out, "history", at, "-o", "/dev/null", NULL), 1);
  assert_non_null(strstr(err, "no such file, nor a store"));
  /* not a database */
  snprintf(path, sizeof path, "%s/corrupt.ensemble", dir);
  s_write(path, "SQLite format 3\nthis is not a database at all, only its first line looks like one\n");
  assert_true(ens_history_open(path, &h) < 0);
  assert_null(h);
  assert_int_equal(s_run(out, err, sizeof out, "history", path, NULL, NULL, NULL), 1);
  assert_non_null(strstr(err, "corrupt.ensemble"));
  /* a real store: a seq past its end; then its bytes cut in the middle */
  s_srv v;
  char file[160], store[200];
  snprintf(file, sizeof file, "%s/d.svg", dir);
  s_write(file, s_drawing);
  snprintf(store, sizeof store, "%s.ensemble", file);
  assert_int_equal(s_serve(&v, file, NULL), 0);
  s_cli a;
  s_connect(&a, &v);
  s_set(&a, "#a", "fill", "green");
  ens_session_free(a.s);
  assert_int_equal(s_stop(&v, SIGTERM), 0);
  snprintf(at, sizeof at, "%s@2", store);
  assert_int_equal(s_run(out, err, sizeof out, "history", at, "-o", "/dev/null", NULL), 1);
  assert_non_null(strstr(err, "seq 2 is past the end of the session (its last is 1)"));
  snprintf(at, sizeof at, "%s@1", store);
  snprintf(path, sizeof path, "%s/out.svg", dir);
  assert_int_equal(s_run(out, err, sizeof out, "history", at, "-o", path, NULL), 0);
  /* a real file named with @ is that file */
  char named[300];
  snprintf(named, sizeof named, "%s@1", store);
  s_write(named, "not a snapshot");
  assert_int_equal(s_run(out, err, sizeof out, "history", at, "-o", path, NULL), 2);
  unlink(named);
  /* the usage */
  assert_int_equal(s_run(out, err, sizeof out, "history", store, "-o", path, NULL), 2);
  assert_int_equal(s_run(out, err, sizeof out, "history", "--help", NULL, NULL, NULL), 0);
  assert_non_null(strstr(out, "STORE@SEQ"));
  /* truncated */
  struct stat st;
  assert_int_equal(stat(store, &st), 0);
  assert_int_equal(truncate(store, st.st_size / 2), 0);
  int rc = ens_history_open(store, &h);
  if (rc == 0) {
    /* what remains may still read; rebuilding must fail cleanly or succeed */
    ens_doc *d = NULL;
    (void)ens_history_doc_at(h, 1, &d);
    ens_doc_free(d);
    ens_history_free(h);
  }
  int code = s_run(out, err, sizeof out, "history", store, NULL, NULL, NULL);
  assert_true(code == 0 || code == 1);
  s_rm_rf(dir);
}

static int s_teardown(void **state) {
  (void)state;
  if (s_live > 0) {
    kill(s_live, SIGKILL);
    waitpid(s_live, NULL, 0);
    s_live = -1;
  }
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_history_of_a_served_drawing, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_bad_stores_and_seqs, s_setup, s_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
