/* `ensemble serve FILE` and FILE across stops, with the real binary in a
 * child process and clients of this process changing the drawing: edits
 * made to FILE while the server was down are taken in, merged with what
 * the session did after FILE was last written (the server killed), the
 * conflicts told; an edit made to FILE while the server runs is never
 * overwritten; and a stop that cannot write FILE or its last checkpoint
 * (a full disk, a read-only directory) exits 1 and says what was not
 * written, with nothing acknowledged lost at the next start. The disk
 * cases mount a small tmpfs and skip where that is not permitted.
 * ENS_SERVE_BIN runs another build of `ensemble` (to show what an older
 * one did). */
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ensemble.h"
#include "proc.h"
#include "sync/net.h"
#include "testutil.h"

enum { WAIT_MS = 60000 }; /* any one wait, generous for a sanitizer build */

static const char s_drawing[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">\n"
    "  <rect id=\"a\" x=\"0\" y=\"0\" width=\"10\" height=\"10\" fill=\"red\"/>\n"
    "  <rect id=\"b\" x=\"20\" y=\"0\" width=\"10\" height=\"10\" fill=\"red\" stroke=\"none\"/>\n"
    "  <rect id=\"c\" x=\"40\" y=\"0\" width=\"10\" height=\"10\" fill=\"red\"/>\n"
    "</svg>\n";

static char s_bin[512];
/* What a failed test leaves is undone by its teardown: the server it ran
 * and the tmpfs it mounted. */
static pid_t s_live = -1;
static char s_mounted[160];

typedef struct {
  pid_t pid;
  char endpoint[256];
  char err[600]; /* its stderr, a file */
} s_srv;

static int s_setup(void **state) {
  (void)state;
  const char *bin = getenv("ENS_SERVE_BIN"), *build = getenv("ENS_BUILD_DIR");
  if (bin) snprintf(s_bin, sizeof s_bin, "%s", bin);
  else if (build) snprintf(s_bin, sizeof s_bin, "%s/ensemble", build);
  else s_bin[0] = '\0';
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

static void s_mkdtemp(char *dir, size_t size) { assert_int_equal(tu_temp_dir(dir, size, "ens-serve"), 0); }

static void s_rm_rf(const char *dir) { assert_int_equal(tu_rm_rf(dir), 0); }

static void s_write(const char *path, const char *text) { assert_int_equal(tu_write_text(path, text), 0); }

static char *s_read(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *b = malloc(cap + 1);
  assert_non_null(b);
  for (size_t k; (k = fread(b + n, 1, cap - n, f)) > 0;) {
    n += k;
    if (n == cap) {
      cap *= 2;
      b = realloc(b, cap + 1);
      assert_non_null(b);
    }
  }
  fclose(f);
  b[n] = '\0';
  return b;
}

/* An editor's save: FILE with `from` replaced by `to`, written in place. */
static void s_edit(const char *path, const char *from, const char *to) {
  char *text = s_read(path);
  assert_non_null(text);
  char *at = strstr(text, from);
  if (!at) fail_msg("%s does not hold %s:\n%s", path, from, text);
  size_t head = (size_t)(at - text), fl = strlen(from), tl = strlen(to), rest = strlen(at + fl);
  char *out = malloc(head + tl + rest + 1);
  assert_non_null(out);
  memcpy(out, text, head);
  memcpy(out + head, to, tl);
  memcpy(out + head + tl, at + fl, rest + 1);
  s_write(path, out);
  free(out);
  free(text);
}

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

static int s_has(const char *path, const char *text) {
  char *all = s_read(path);
  int has = all && strstr(all, text) != NULL;
  free(all);
  return has;
}

static void s_show(const char *path) {
  char *all = s_read(path);
  print_message("%s:\n%s\n", path, all ? all : "(none)");
  free(all);
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

/* The value of an attribute in doc, or "" when it has none. */
static const char *s_attr(const ens_doc *doc, const char *elem, const char *name, char *buf, size_t size) {
  const ens_obj *o = ens_svg_find(doc, elem);
  ens_value v;
  buf[0] = '\0';
  if (o && ens_obj_get(o, name, &v) == 0 && v.type == ENS_STR)
    snprintf(buf, size, "%.*s", (int)v.u.s.len, v.u.s.ptr);
  return buf;
}

static void s_expect(const ens_doc *doc, const char *where, const char *elem, const char *name, const char *want) {
  char got[128];
  s_attr(doc, elem, name, got, sizeof got);
  if (strcmp(got, want) != 0) fail_msg("%s: %s %s is \"%s\", expected \"%s\"", where, elem, name, got, want);
}

static void s_expect_file(const char *file, const char *elem, const char *name, const char *want) {
  ens_doc *d = NULL;
  if (ens_svg_read_path(file, &d)) fail_msg("%s does not read: %s", file, ens_error_last());
  s_expect(d, file, elem, name, want);
  ens_doc_free(d);
}

/* --- edits while the server was down ------------------------------------------------------ */

static void test_file_edited_while_stopped_is_taken_in(void **state) {
  (void)state;
  if (!s_bin[0]) TU_SKIP("the ensemble binary was not found (ENS_SERVE_BIN / ENS_BUILD_DIR)");
  char dir[64], file[128];
  s_mkdtemp(dir, sizeof dir);
  snprintf(file, sizeof file, "%s/d.svg", dir);
  s_write(file, s_drawing);
  s_srv v;
  assert_int_equal(s_serve(&v, file, NULL), 0);
  assert_int_equal(s_stop(&v, SIGTERM), 0);
  s_edit(file, "stroke=\"none\"", "stroke=\"black\""); /* edited while nobody ran */

  assert_int_equal(s_serve(&v, file, NULL), 0);
  s_cli c;
  s_connect(&c, &v);
  s_expect(ens_session_doc(c.s), "the session", "#b", "stroke", "black");
  s_expect(ens_session_doc(c.s), "the session", "#a", "fill", "red");
  ens_session_free(c.s);
  int st = s_stop(&v, SIGTERM);
  if (st != 0 || !s_has(v.err, "d.svg was changed since the server last wrote it (seq 0): its edits are taken in "
                                "as seq 1")) {
    s_show(v.err);
    fail_msg("serve: status %d", st);
  }
  s_expect_file(file, "#b", "stroke", "black");
  s_rm_rf(dir);
}

static void test_file_edited_after_a_crash_is_merged(void **state) {
  (void)state;
  if (!s_bin[0]) TU_SKIP("the ensemble binary was not found (ENS_SERVE_BIN / ENS_BUILD_DIR)");
  char dir[64], file[128];
  s_mkdtemp(dir, sizeof dir);
  snprintf(file, sizeof file, "%s/d.svg", dir);
  s_write(file, s_drawing);
  s_srv v;
  assert_int_equal(s_serve(&v, file, NULL), 0);
  s_cli c;
  s_connect(&c, &v);
  s_set(&c, "#a", "fill", "green"); /* seq 1 */
  s_set(&c, "#c", "fill", "cyan");  /* seq 2 */
  ens_session_free(c.s);
  /* killed: the file still holds seq 0, the store is at 2 */
  assert_int_equal(s_stop(&v, SIGKILL), -SIGKILL);
  s_expect_file(file, "#a", "fill", "red");
  s_edit(file, "stroke=\"none\"", "stroke=\"black\"");
  s_edit(file, "x=\"40\" y=\"0\" width=\"10\" height=\"10\" fill=\"red\"",
         "x=\"40\" y=\"0\" width=\"10\" height=\"10\" fill=\"magenta\"");

  assert_int_equal(s_serve(&v, file, NULL), 0);
  s_connect(&c, &v);
  const ens_doc *d = ens_session_doc(c.s);
  s_expect(d, "the session", "#a", "fill", "green");   /* the session's, untouched in the file */
  s_expect(d, "the session", "#b", "stroke", "black"); /* the file's */
  s_expect(d, "the session", "#c", "fill", "magenta"); /* both: the file, edited after, wins */
  assert_int_equal(ens_session_seq(c.s), 3);
  ens_session_free(c.s);
  int st = s_stop(&v, SIGTERM);
  if (st != 0 || !s_has(v.err, "its edits, merged with the session's changes up to seq 2, are taken in as seq 3") ||
      !s_has(v.err, "#c, fill: changed in both from \"red\": ") || !s_has(v.err, "\"magenta\"") ||
      !s_has(v.err, "the session had \"cyan\"")) {
    s_show(v.err);
    fail_msg("serve: status %d", st);
  }
  s_expect_file(file, "#a", "fill", "green");
  s_expect_file(file, "#b", "stroke", "black");
  s_expect_file(file, "#c", "fill", "magenta");
  s_rm_rf(dir);
}

static void test_file_edited_while_serving_is_not_overwritten(void **state) {
  (void)state;
  if (!s_bin[0]) TU_SKIP("the ensemble binary was not found (ENS_SERVE_BIN / ENS_BUILD_DIR)");
  char dir[64], file[128];
  s_mkdtemp(dir, sizeof dir);
  snprintf(file, sizeof file, "%s/d.svg", dir);
  s_write(file, s_drawing);
  s_srv v;
  assert_int_equal(s_serve(&v, file, NULL), 0);
  s_cli c;
  s_connect(&c, &v);
  s_edit(file, "stroke=\"none\"", "stroke=\"black\""); /* an editor saves the served file */
  s_set(&c, "#a", "fill", "green");
  ens_session_free(c.s);
  int st = s_stop(&v, SIGTERM);
  if (st != 1 || !s_has(v.err, "d.svg was changed while the server ran: not overwritten")) {
    s_show(v.err);
    fail_msg("serve: status %d", st);
  }
  s_expect_file(file, "#b", "stroke", "black");
  s_expect_file(file, "#a", "fill", "red");

  assert_int_equal(s_serve(&v, file, NULL), 0); /* the save is merged in now */
  s_connect(&c, &v);
  s_expect(ens_session_doc(c.s), "the session", "#a", "fill", "green");
  s_expect(ens_session_doc(c.s), "the session", "#b", "stroke", "black");
  ens_session_free(c.s);
  assert_int_equal(s_stop(&v, SIGTERM), 0);
  s_expect_file(file, "#a", "fill", "green");
  s_expect_file(file, "#b", "stroke", "black");
  s_rm_rf(dir);
}

/* --- stops that cannot write ----------------------------------------------------------------- */

static int s_mount_tmpfs(const char *dir, const char *opts) {
  if (mount("tmpfs", dir, "tmpfs", 0, opts) != 0) return -1;
  snprintf(s_mounted, sizeof s_mounted, "%s", dir);
  return 0;
}

static int s_teardown(void **state) {
  (void)state;
  if (s_live > 0) {
    kill(s_live, SIGKILL);
    waitpid(s_live, NULL, 0);
    s_live = -1;
  }
  if (s_mounted[0]) {
    umount(s_mounted);
    s_mounted[0] = '\0';
  }
  return 0;
}

/* Fills the file system of dir: a file of zeros until it is full. */
static void s_fill(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(fd >= 0);
  static char zero[65536];
  while (write(fd, zero, sizeof zero) > 0) {
  }
  while (write(fd, zero, 512) > 0) {
  }
  close(fd);
}

/* After a stop that could not write: room again, a new start, and the
 * client's last value is in the session and, after the stop, in FILE. */
static void s_recover(const char *file, const char *store, const char *want) {
  s_srv v;
  assert_int_equal(s_serve(&v, file, store), 0);
  s_cli c;
  s_connect(&c, &v);
  s_expect(ens_session_doc(c.s), "the session after the failed stop", "#a", "x", want);
  ens_session_free(c.s);
  int st = s_stop(&v, SIGTERM);
  if (st != 0) {
    s_show(v.err);
    fail_msg("serve after the failed stop: status %d", st);
  }
  s_expect_file(file, "#a", "x", want);
}

static void test_full_disk_at_stop_fails_and_says_so(void **state) {
  (void)state;
  if (!s_bin[0]) TU_SKIP("the ensemble binary was not found (ENS_SERVE_BIN / ENS_BUILD_DIR)");
  char dir[64], file[128], filler[128];
  s_mkdtemp(dir, sizeof dir);
  if (s_mount_tmpfs(dir, "size=4m")) {
    s_rm_rf(dir);
    TU_SKIP("mounting a tmpfs is not permitted here (%s)", strerror(errno));
  }
  snprintf(file, sizeof file, "%s/d.svg", dir);
  snprintf(filler, sizeof filler, "%s/filler", dir);
  s_write(file, s_drawing);
  s_srv v;
  assert_int_equal(s_serve(&v, file, NULL), 0);
  s_cli c;
  s_connect(&c, &v);
  char x[32];
  for (int i = 1; i <= 200; i++) { /* the log grows past what the store's first checkpoint took */
    snprintf(x, sizeof x, "%d", i);
    s_set(&c, "#a", "x", x);
  }
  ens_session_free(c.s);
  s_fill(filler);
  int st = s_stop(&v, SIGTERM);
  char *err = s_read(v.err);
  int ok = st == 1 && err && strstr(err, "d.svg was not written") && !strstr(err, "d.svg written");
  if (!ok) {
    s_show(v.err);
    fail_msg("a stop on a full disk: status %d", st);
  }
  print_message("a stop on a full disk says: %s", err);
  free(err);
  s_expect_file(file, "#a", "x", "0"); /* as it was: never half written */
  unlink(filler);
  s_recover(file, NULL, "200");
  assert_int_equal(umount(dir), 0);
  s_mounted[0] = '\0';
  s_rm_rf(dir);
}

static void test_read_only_directory_at_stop_fails_and_says_so(void **state) {
  (void)state;
  if (!s_bin[0]) TU_SKIP("the ensemble binary was not found (ENS_SERVE_BIN / ENS_BUILD_DIR)");
  char dir[64], ro[128], file[160], store[128];
  s_mkdtemp(dir, sizeof dir);
  snprintf(ro, sizeof ro, "%s/ro", dir);
  assert_int_equal(mkdir(ro, 0755), 0);
  if (s_mount_tmpfs(ro, "size=1m")) {
    s_rm_rf(dir);
    TU_SKIP("mounting a tmpfs is not permitted here (%s)", strerror(errno));
  }
  snprintf(file, sizeof file, "%s/d.svg", ro);
  snprintf(store, sizeof store, "%s/d.log", dir);
  s_write(file, s_drawing);
  s_srv v;
  assert_int_equal(s_serve(&v, file, store), 0);
  s_cli c;
  s_connect(&c, &v);
  s_set(&c, "#a", "x", "7");
  ens_session_free(c.s);
  assert_int_equal(mount(NULL, ro, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
  int st = s_stop(&v, SIGTERM);
  char *err = s_read(v.err);
  int ok = st == 1 && err && strstr(err, "d.svg was not written") && !strstr(err, "d.svg written");
  if (!ok) {
    s_show(v.err);
    fail_msg("a stop with a read-only directory: status %d", st);
  }
  print_message("a stop with a read-only directory says: %s", err);
  free(err);
  assert_int_equal(mount(NULL, ro, NULL, MS_REMOUNT, NULL), 0);
  s_recover(file, store, "7");
  assert_int_equal(umount(ro), 0);
  s_mounted[0] = '\0';
  s_rm_rf(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_file_edited_while_stopped_is_taken_in, s_teardown),
      cmocka_unit_test_teardown(test_file_edited_after_a_crash_is_merged, s_teardown),
      cmocka_unit_test_teardown(test_file_edited_while_serving_is_not_overwritten, s_teardown),
      cmocka_unit_test_teardown(test_full_disk_at_stop_fails_and_says_so, s_teardown),
      cmocka_unit_test_teardown(test_read_only_directory_at_stop_fails_and_says_so, s_teardown),
  };
  return tu_exit(cmocka_run_group_tests(tests, s_setup, NULL), sizeof tests / sizeof tests[0]);
}
