/* The host's file in the store (session.h, "the host's file") and the
 * host's own changes: which checkpoints a record of the file keeps, what
 * ens_server_file_check says of the file's bytes (the same, changed, a
 * write under way found done, nothing known), a store without a document
 * completed from the host's callback, and ens_server_commit logged under
 * the host's site with its client id refused to anyone who says hello
 * with it. Servers here are detached (no socket). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "sync/msg.h"
#include "sync/server_int.h"
#include "sync/store.h"
#include "util/buf.h"

static char s_dir[64];
static char s_path[128];

static int s_setup(void **state) {
  (void)state;
  snprintf(s_dir, sizeof s_dir, "/tmp/ens-hostfile-XXXXXX");
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

static void s_append(ens__store *st, uint64_t from, uint64_t to) {
  assert_int_equal(ens__store_begin(st), 0);
  for (uint64_t q = from; q <= to; q++) {
    ens__entry e = {q, 1, q, s_client, (const unsigned char *)"x", 1, 0};
    assert_int_equal(ens__store_append(st, &e), 0);
  }
  assert_int_equal(ens__store_commit(st), 0);
}

static int s_has_checkpoint(ens__store *st, uint64_t seq) {
  unsigned char *snap;
  size_t len;
  int rc = ens__store_checkpoint_at(st, seq, &snap, &len);
  if (rc == 0) free(snap);
  else assert_int_equal(rc, ENS_ENOTFOUND);
  return rc == 0;
}

static void test_store_keeps_the_checkpoints_the_file_was_written_from(void **state) {
  (void)state;
  ens__store *st;
  assert_int_equal(ens__store_open(s_path, &st), 0);
  ens__written w;
  assert_int_equal(ens__store_written_get(st, ENS__WRITTEN, &w), ENS_ENOTFOUND);
  ens__written_of("zero", 4, 0, &w);
  assert_int_equal(ens__store_checkpoint_written(st, 0, "s0", 2, 0, &w), 0);
  s_append(st, 1, 15);
  assert_int_equal(ens__store_checkpoint(st, 5, "s5", 2, 0), 0);
  assert_true(s_has_checkpoint(st, 0)); /* the file holds seq 0 */
  assert_true(s_has_checkpoint(st, 5));
  /* a write of seq 5 under way: both kept through a newer checkpoint */
  ens__written_of("five", 4, 5, &w);
  assert_int_equal(ens__store_written_set(st, ENS__WRITING, &w), 0);
  assert_int_equal(ens__store_checkpoint(st, 10, "s10", 3, 0), 0);
  assert_true(s_has_checkpoint(st, 0) && s_has_checkpoint(st, 5) && s_has_checkpoint(st, 10));
  /* done: seq 0 is no longer needed */
  assert_int_equal(ens__store_written_set(st, ENS__WRITTEN, &w), 0);
  assert_false(s_has_checkpoint(st, 0));
  assert_true(s_has_checkpoint(st, 5) && s_has_checkpoint(st, 10));
  assert_int_equal(ens__store_written_get(st, ENS__WRITING, &w), ENS_ENOTFOUND);
  assert_int_equal(ens__store_checkpoint(st, 15, "s15", 3, 0), 0);
  assert_true(s_has_checkpoint(st, 5) && s_has_checkpoint(st, 15));
  assert_false(s_has_checkpoint(st, 10));
  /* the latest checkpoint is still the one a restart loads */
  uint64_t cp;
  unsigned char *snap;
  size_t len;
  assert_int_equal(ens__store_checkpoint_get(st, &cp, &snap, &len), 0);
  assert_int_equal(cp, 15);
  assert_memory_equal(snap, "s15", 3);
  free(snap);
  /* a record needs its checkpoint */
  ens__written_of("twelve", 6, 12, &w);
  assert_int_equal(ens__store_written_set(st, ENS__WRITING, &w), ENS_ENOTFOUND);
  ens__store_close(st);
  /* and all of it survives a reopen */
  assert_int_equal(ens__store_open(s_path, &st), 0);
  assert_int_equal(ens__store_written_get(st, ENS__WRITTEN, &w), 0);
  assert_int_equal(w.seq, 5);
  assert_int_equal(w.size, 4);
  assert_true(s_has_checkpoint(st, 5));
  ens__store_close(st);
}

/* --- the server ------------------------------------------------------------------ */

static ens_doc *s_doc(const char *width) {
  ens_doc *d = ens_doc_new("font", 0);
  ens_txn *t = ens_txn_new("make", NULL);
  ens_node *g = ens_txn_insert(t, ENS_ROOT_ID, "V", ens_doc_new_id(d), "glyph");
  ens_node_set(g, "name", ens_str("a"));
  ens_node_set(g, "width", ens_str(width));
  assert_int_equal(ens_doc_apply(d, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  return d;
}

typedef struct {
  ens_doc *give;
  int calls;
} s_loader;

static int s_load(ens_doc **doc, void *user) {
  s_loader *l = user;
  l->calls++;
  *doc = l->give;
  l->give = NULL;
  return *doc ? 0 : 1;
}

static ens_server *s_server(s_loader *l, const char *file) {
  ens_server_opts o;
  memset(&o, 0, sizeof o);
  o.store_path = s_path;
  o.load_initial = s_load;
  o.user = l;
  o.initial_file = file;
  o.initial_file_len = file ? strlen(file) : 0;
  ens_server *s;
  assert_int_equal(ens__server_new_detached(&o, &s), 0);
  return s;
}

static void test_file_check(void **state) {
  (void)state;
  ens_doc *want = s_doc("640");
  s_loader l = {s_doc("640"), 0};
  ens_server *s = s_server(&l, "file bytes 0");
  assert_int_equal(l.calls, 1); /* the store held no document */
  ens_file_state fs;
  uint64_t seq = 99;
  ens_doc *base = NULL;
  assert_int_equal(ens_server_file_check(s, "file bytes 0", 12, &fs, &seq, &base), 0);
  assert_int_equal(fs, ENS_FILE_SAME);
  assert_int_equal(seq, 0);
  assert_non_null(base);
  assert_true(ens_doc_content_hash(base) == ens_doc_content_hash(want));
  ens_doc_free(base);
  assert_int_equal(ens_server_file_check(s, "file bytes 1", 12, &fs, &seq, NULL), 0);
  assert_int_equal(fs, ENS_FILE_CHANGED);
  assert_int_equal(ens_server_file_check(s, "file bytes 0 ", 13, &fs, &seq, NULL), 0);
  assert_int_equal(fs, ENS_FILE_CHANGED);
  /* a write under way that the file holds counts as done */
  assert_int_equal(ens_server_file_writing(s, 0, "file bytes 2", 12), 0);
  assert_int_equal(ens_server_file_check(s, "file bytes 0", 12, &fs, &seq, NULL), 0);
  assert_int_equal(fs, ENS_FILE_SAME); /* not renamed yet: the old one is still what it holds */
  assert_int_equal(ens_server_file_check(s, "file bytes 2", 12, &fs, &seq, NULL), 0);
  assert_int_equal(fs, ENS_FILE_SAME);
  assert_int_equal(ens_server_file_check(s, "file bytes 0", 12, &fs, &seq, NULL), 0);
  assert_int_equal(fs, ENS_FILE_CHANGED); /* the record moved on */
  assert_int_equal(ens_server_file_written(s), ENS_EINVAL); /* nothing under way now */
  ens_server_free(s);

  /* a restart does not read the file again, and remembers */
  l.give = s_doc("1");
  s = s_server(&l, NULL);
  assert_int_equal(l.calls, 1);
  assert_int_equal(ens_server_file_check(s, "file bytes 2", 12, &fs, &seq, NULL), 0);
  assert_int_equal(fs, ENS_FILE_SAME);
  assert_true(ens_doc_content_hash(ens_server_doc(s)) == ens_doc_content_hash(want));
  ens_server_free(s);
  ens_doc_free(l.give);
  ens_doc_free(want);
}

static void test_a_store_without_a_record_knows_nothing(void **state) {
  (void)state;
  s_loader l = {s_doc("640"), 0};
  ens_server *s = s_server(&l, NULL); /* no file bytes given */
  ens_file_state fs;
  ens_doc *base = (ens_doc *)1;
  assert_int_equal(ens_server_file_check(s, "anything", 8, &fs, NULL, &base), 0);
  assert_int_equal(fs, ENS_FILE_UNKNOWN);
  assert_null(base);
  ens_server_free(s);
}

static void test_a_refusing_loader_refuses_the_start(void **state) {
  (void)state;
  s_loader l = {NULL, 0};
  ens_server_opts o;
  memset(&o, 0, sizeof o);
  o.store_path = s_path;
  o.load_initial = s_load;
  o.user = &l;
  ens_server *s = (ens_server *)1;
  assert_int_equal(ens__server_new_detached(&o, &s), ENS_EIO);
  assert_null(s);
  assert_int_equal(l.calls, 1);
  /* the store holds no document still: the next start asks again */
  l.give = s_doc("640");
  s = s_server(&l, "f");
  assert_int_equal(l.calls, 2);
  ens_server_free(s);
}

static size_t s_hello(ens_server *s, const unsigned char *client, unsigned char rid) {
  ens__msg m;
  memset(&m, 0, sizeof m);
  m.type = ENS_MSG_HELLO;
  m.vmin = ENS_PROTO_VERSION_MIN;
  m.vmax = ENS_PROTO_VERSION;
  memcpy(m.client, client, ENS_CLIENT_ID_LEN);
  ens_buf b = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(&m, &b), 0);
  assert_int_equal(ens__server_handle(s, &rid, 1, b.data, b.len, 1000), 0);
  ens__buf_free(&b);
  return ens_server_client_count(s);
}

typedef struct {
  uint32_t site;
  int host;
  size_t n;
} s_seen;

static int s_entry(const ens__entry *e, void *user) {
  s_seen *v = user;
  static const unsigned char zero[ENS_CLIENT_ID_LEN];
  v->site = e->site;
  v->host = memcmp(e->client, zero, ENS_CLIENT_ID_LEN) == 0;
  v->n++;
  return 0;
}

static void test_host_commit(void **state) {
  (void)state;
  s_loader l = {s_doc("640"), 0};
  ens_server *s = s_server(&l, "f");
  assert_int_equal(s_hello(s, s_client, 1), 1); /* a client takes site 1 */
  uint32_t site;
  assert_int_equal(ens_server_host_site(s, &site), 0);
  assert_true(site >= 2);
  ens_txn *t = ens_txn_new("Edited while the server was stopped", NULL);
  ens_node *g = ens_txn_insert(t, ENS_ROOT_ID, "W", ens_id_make(site, 1), "glyph");
  ens_node_set(g, "name", ens_str("b"));
  assert_int_equal(ens_server_commit(s, t), 0);
  ens_txn_free(t);
  assert_int_equal(ens_server_head(s), 1);
  assert_non_null(ens_doc_get(ens_server_doc(s), ens_id_make(site, 1)));
  assert_true(ens__server_sent(s) > 0); /* the client was sent it */
  /* one that does not apply changes nothing */
  t = ens_txn_new(NULL, NULL);
  ens_txn_delete(t, ens_id_make(site, 99));
  assert_int_equal(ens_server_commit(s, t), ENS_ENOTFOUND);
  ens_txn_free(t);
  assert_int_equal(ens_server_head(s), 1);
  s_seen v = {0, 0, 0};
  assert_int_equal(ens__store_read(ens__server_store(s), 1, 1, s_entry, &v), 0);
  assert_int_equal(v.n, 1);
  assert_int_equal(v.site, site);
  assert_true(v.host);
  /* nobody says hello as the host */
  static const unsigned char zero[ENS_CLIENT_ID_LEN];
  assert_int_equal(s_hello(s, zero, 2), 1);
  ens_server_free(s);
  /* the site is the host's for good */
  s = s_server(&l, NULL);
  uint32_t again;
  assert_int_equal(ens_server_host_site(s, &again), 0);
  assert_int_equal(again, site);
  assert_non_null(ens_doc_get(ens_server_doc(s), ens_id_make(site, 1)));
  ens_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_store_keeps_the_checkpoints_the_file_was_written_from, s_setup,
                                      s_teardown),
      cmocka_unit_test_setup_teardown(test_file_check, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_a_store_without_a_record_knows_nothing, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_a_refusing_loader_refuses_the_start, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_host_commit, s_setup, s_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
