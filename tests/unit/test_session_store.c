/* The server's durable log: group commit, read back, clients, checkpoints
 * and trimming, reopen, and a writer SIGKILLed mid-write losing nothing it
 * had reported committed. */
#include <errno.h>
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

#include "sync/store.h"

static char s_dir[64];
static char s_path[128];

static int s_setup(void **state) {
  (void)state;
  snprintf(s_dir, sizeof s_dir, "/tmp/ens-store-XXXXXX");
  if (!mkdtemp(s_dir)) return -1;
  snprintf(s_path, sizeof s_path, "%s/log.db", s_dir);
  return 0;
}

static int s_teardown(void **state) {
  (void)state;
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static const unsigned char s_client[ENS_CLIENT_ID_LEN] = "client-abcdefghi";

/* Bytes of entry seq: a function of seq, so a reader can check them. */
static size_t s_payload(uint64_t seq, unsigned char *buf) {
  size_t n = 1 + seq % 200;
  for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)(seq * 31 + i);
  return n;
}

static int s_append_range(ens__store *st, uint64_t from, uint64_t to) {
  unsigned char buf[256];
  for (uint64_t q = from; q <= to; q++) {
    ens__entry e = {q, (uint32_t)(q % 5 + 1), q, s_client, buf, s_payload(q, buf), 0};
    int rc = ens__store_append(st, &e);
    if (rc) return rc;
  }
  return 0;
}

typedef struct {
  uint64_t next;
  int bad;
} s_reader;

static int s_check_entry(const ens__entry *e, void *user) {
  s_reader *r = user;
  unsigned char buf[256];
  size_t n = s_payload(e->seq, buf);
  if (e->seq != r->next || e->len != n || memcmp(e->txn, buf, n) || e->ctn != e->seq ||
      e->site != e->seq % 5 + 1 || memcmp(e->client, s_client, ENS_CLIENT_ID_LEN))
    r->bad++;
  r->next++;
  return 0;
}

static int s_count_client(const ens__client_rec *c, void *user) {
  uint64_t *sum = user;
  *sum += c->site * 1000 + c->last_ctn + (memcmp(c->id, s_client, ENS_CLIENT_ID_LEN) == 0);
  return 0;
}

static int s_set_client(ens__store *st, uint32_t site, uint64_t last_ctn) {
  ens__client_rec c = {s_client, site, last_ctn, 0, 1};
  return ens__store_set_client(st, &c);
}

static void test_group_commit_read_back_and_reopen(void **state) {
  (void)state;
  ens__store *st;
  assert_int_equal(ens__store_open(s_path, &st), 0);
  uint64_t epoch = ens__store_epoch(st);
  assert_true(epoch != 0);
  assert_true(ens__store_head(st) == 0 && ens__store_first(st) == 1);
  assert_int_equal(ens__store_begin(st), 0);
  assert_int_equal(s_append_range(st, 1, 100), 0);
  assert_int_equal(s_set_client(st, 7, 100), 0);
  assert_true(ens__store_head(st) == 0); /* nothing counts before commit */
  assert_int_equal(ens__store_commit(st), 0);
  assert_true(ens__store_head(st) == 100);
  /* an append out of order is refused, and rollback leaves nothing */
  assert_int_equal(ens__store_begin(st), 0);
  assert_int_equal(s_append_range(st, 101, 101), 0);
  assert_int_equal(s_append_range(st, 103, 103), ENS_EINVAL);
  ens__store_rollback(st);
  assert_true(ens__store_head(st) == 100);
  ens__store_close(st);

  assert_int_equal(ens__store_open(s_path, &st), 0);
  assert_true(ens__store_epoch(st) == epoch);
  assert_true(ens__store_head(st) == 100 && ens__store_first(st) == 1);
  s_reader r = {1, 0};
  assert_int_equal(ens__store_read(st, 1, 100, s_check_entry, &r), 0);
  assert_true(r.next == 101 && r.bad == 0);
  uint64_t sum = 0;
  assert_int_equal(ens__store_clients(st, s_count_client, &sum), 0);
  assert_true(sum == 7 * 1000 + 100 + 1);
  unsigned char *snap;
  size_t len;
  uint64_t cp;
  assert_int_equal(ens__store_checkpoint_get(st, &cp, &snap, &len), ENS_ENOTFOUND);
  ens__store_close(st);
}

static void test_checkpoint_trims_the_log(void **state) {
  (void)state;
  ens__store *st;
  assert_int_equal(ens__store_open(s_path, &st), 0);
  assert_int_equal(ens__store_begin(st), 0);
  assert_int_equal(s_append_range(st, 1, 100), 0);
  assert_int_equal(ens__store_commit(st), 0);
  /* no checkpoint at or before 80 - 10 to rebuild from: the log keeps all */
  assert_int_equal(ens__store_checkpoint(st, 80, "snapshot-80", 11, 10), 0);
  assert_true(ens__store_first(st) == 1 && ens__store_head(st) == 100);
  assert_int_equal(ens__store_checkpoint(st, 101, "x", 1, 0), ENS_EINVAL);
  ens__store_close(st);
  assert_int_equal(ens__store_open(s_path, &st), 0);
  assert_true(ens__store_first(st) == 1 && ens__store_head(st) == 100);
  s_reader r = {1, 0};
  assert_int_equal(ens__store_read(st, 1, 1000, s_check_entry, &r), 0);
  assert_true(r.next == 101 && r.bad == 0);
  unsigned char *snap;
  size_t len;
  uint64_t cp;
  assert_int_equal(ens__store_checkpoint_get(st, &cp, &snap, &len), 0);
  assert_true(cp == 80 && len == 11 && memcmp(snap, "snapshot-80", 11) == 0);
  free(snap);
  /* a checkpoint at the head with nothing kept empties the log */
  assert_int_equal(ens__store_checkpoint(st, 100, "snapshot-100", 12, 0), 0);
  assert_true(ens__store_first(st) == 101 && ens__store_head(st) == 100);
  ens__store_close(st);
  assert_int_equal(ens__store_open(s_path, &st), 0);
  assert_true(ens__store_first(st) == 101 && ens__store_head(st) == 100);
  assert_int_equal(ens__store_begin(st), 0);
  assert_int_equal(s_append_range(st, 101, 105), 0);
  assert_int_equal(ens__store_commit(st), 0);
  assert_true(ens__store_first(st) == 101 && ens__store_head(st) == 105);
  ens__store_close(st);
}

/* Reads exactly n bytes unless the pipe ends first; what was read. */
static ssize_t s_read_full(int fd, void *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, (char *)buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

/* The child appends groups of 1..50 entries forever and writes each
 * committed head to the pipe; the parent SIGKILLs it mid-stream. */
static void s_writer(int fd) {
  ens__store *st;
  if (ens__store_open(s_path, &st)) _exit(3);
  uint64_t head = ens__store_head(st);
  for (unsigned g = 0;; g++) {
    uint64_t n = 1 + (g * 7919u) % 50;
    if (ens__store_begin(st) || s_append_range(st, head + 1, head + n) ||
        s_set_client(st, 1, head + n) || ens__store_commit(st))
      _exit(4);
    head += n;
    if (write(fd, &head, sizeof head) != sizeof head) _exit(5);
  }
}

static void test_sigkill_mid_write_loses_nothing_committed(void **state) {
  (void)state;
  for (int round = 0; round < 3; round++) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      s_writer(fds[1]);
    }
    close(fds[1]);
    /* killed after its first reports, however slow the machine (a fixed
     * sleep found nothing committed yet under the sanitizers): a few more
     * each round, so the kill lands at another point of its stream */
    uint64_t reported = 0, h;
    for (int n = 0; n < 1 + round * 3; n++) {
      assert_int_equal(s_read_full(fds[0], &h, sizeof h), (ssize_t)sizeof h);
      reported = h;
    }
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status));
    while (s_read_full(fds[0], &h, sizeof h) == (ssize_t)sizeof h) reported = h;
    close(fds[0]);
    ens__store *st;
    assert_int_equal(ens__store_open(s_path, &st), 0);
    uint64_t head = ens__store_head(st);
    print_message("round %d: writer reported %llu committed, store holds %llu\n", round,
                  (unsigned long long)reported, (unsigned long long)head);
    assert_true(reported > 0);
    assert_true(head >= reported);
    s_reader r = {1, 0};
    assert_int_equal(ens__store_read(st, 1, head, s_check_entry, &r), 0);
    assert_true(r.next == head + 1 && r.bad == 0);
    uint64_t sum = 0;
    assert_int_equal(ens__store_clients(st, s_count_client, &sum), 0);
    assert_true(sum == 1000 + head + 1); /* the client row committed with the entries */
    ens__store_close(st);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_group_commit_read_back_and_reopen, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_checkpoint_trims_the_log, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_sigkill_mid_write_loses_nothing_committed, s_setup, s_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
