/* Writes the seed corpus of fuzz_session_msg: one real encoding of every
 * session message type, some at their limits, with transactions that apply
 * to the fixture of fuzzlib.h. Deterministic; not part of the build:
 *
 *   cc -std=gnu11 -Iinclude -Isrc/lib tests/fuzz/make_session_seeds.c build/libensemble.a -lm \
 *      $(pkg-config --libs libzmq sqlite3) -o /tmp/make_session_seeds
 *   /tmp/make_session_seeds tests/fuzz/corpus/fuzz_session_msg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ensemble.h"
#include "fuzzlib.h"
#include "session/msg.h"

static const char *s_dir;

static void s_write(const char *name, const ens__msg *m) {
  ens_buf b = ENS_BUF_INIT;
  if (ens__msg_encode(m, &b)) {
    fprintf(stderr, "make_session_seeds: %s: %s\n", name, ens_error_last());
    exit(1);
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.bin", s_dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f)) {
    perror(path);
    exit(1);
  }
  printf("%6zu  %s\n", b.len, path);
  ens__buf_free(&b);
}

static ens__msg s_new(int type) {
  ens__msg m;
  memset(&m, 0, sizeof m);
  m.type = (ens__msg_type)type;
  return m;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_session_seeds DIR\n");
    return 2;
  }
  s_dir = argv[1];
  mkdir(s_dir, 0755);
  static ens__msg m;

  m = s_new(ENS_MSG_HELLO); m.vmin = m.vmax = 1; memset(m.client, 0x5a, 16); s_write("hello-new", &m);
  m.epoch = 0x0123456789abcdefULL; m.seq = 1000; m.vmax = 7; s_write("hello-resume", &m);

  m = s_new(ENS_MSG_WELCOME); m.version = 1; m.epoch = 99; m.site = 2; m.seq = 10; m.ctn = 3; m.window = 64;
  m.heartbeat_ms = 500; m.max_message = ENS_MAX_MESSAGE; s_write("welcome-log", &m);
  m.mode = 1; m.site = ENS_SITE_MAX; s_write("welcome-snapshot", &m);

  /* a snapshot of the fixture in one chunk, and the same cut in two */
  ens_doc *doc = fz_fixture_doc();
  unsigned char *snap;
  size_t nsnap;
  if (ens_snapshot_encode(doc, &snap, &nsnap)) return 1;
  m = s_new(ENS_MSG_SNAPSHOT); m.seq = 5; m.count = 1; m.bytes = snap; m.nbytes = nsnap; s_write("snapshot-whole", &m);
  m.count = 2; m.nbytes = nsnap / 2; s_write("snapshot-chunk0", &m);
  m.index = 1; m.bytes = snap + nsnap / 2; m.nbytes = nsnap - nsnap / 2; s_write("snapshot-chunk1", &m);

  /* transactions against the fixture: a set, an insert, a move, a delete */
  ens_txn *t[4];
  t[0] = ens_txn_new("Set x", "ada");
  ens_txn_set(t[0], 4, "x", ens_int(12));
  t[1] = ens_txn_new("Add", NULL);
  ens_node *n = ens_txn_insert(t[1], 2, "z", ens_id_make(2, 1), "rect");
  ens_node_set(n, "x", ens_int(1));
  ens_node_set(n, "link", ens_ref(5));
  t[2] = ens_txn_new("Move", NULL);
  ens_txn_move(t[2], 6, 2, "a");
  t[3] = ens_txn_new("Delete", NULL);
  ens_txn_delete(t[3], 3);
  static const char *names[] = {"set", "insert", "move", "delete"};
  for (int i = 0; i < 4; i++) {
    unsigned char *b;
    size_t nb;
    if (ens_txn_encode(t[i], &b, &nb)) return 1;
    char name[64];
    m = s_new(ENS_MSG_TXN); m.ctn = (uint64_t)i + 1; m.bytes = b; m.nbytes = nb;
    snprintf(name, sizeof name, "txn-%s", names[i]);
    s_write(name, &m);
    m = s_new(ENS_MSG_ENTRY); m.seq = (uint64_t)i + 100; m.site = 3; m.ctn = (uint64_t)i + 1; m.bytes = b; m.nbytes = nb;
    snprintf(name, sizeof name, "entry-%s", names[i]);
    s_write(name, &m);
    ens_free(b);
    ens_txn_free(t[i]);
  }

  m = s_new(ENS_MSG_ACK); m.ctn = 4; m.seq = 103; s_write("ack", &m);
  m.ctn = 0xffffffffffULL; m.seq = 0xffffffffffffffffULL; s_write("ack-large", &m);
  m = s_new(ENS_MSG_REJECT); m.ctn = 3; m.code = 4; m.text = "op 0 (move 0x6): cycle"; m.ntext = strlen(m.text);
  s_write("reject", &m);
  static const ens_id sel[] = {4, 5, 7};
  m = s_new(ENS_MSG_PRESENCE); m.text = "Ada"; m.ntext = 3; m.colour = 0x3366ff; m.sel = sel; m.nsel = 3;
  s_write("presence-client", &m);
  m.site = 4; m.nsel = 0; s_write("presence-relayed", &m);
  m = s_new(ENS_MSG_BYE); s_write("bye-client", &m);
  m.site = 4; s_write("bye-relayed", &m);
  m = s_new(ENS_MSG_PING); m.token = 7; s_write("ping", &m);
  m = s_new(ENS_MSG_PONG); m.token = 7; m.seq = 103; s_write("pong", &m);
  m = s_new(ENS_MSG_ERROR); m.code = ENS_PERR_VERSION; m.text = "server speaks 1..1"; m.ntext = strlen(m.text);
  s_write("error-version", &m);
  ens_free(snap);
  ens_doc_free(doc);
  return 0;
}
