/* Writes the seed corpus of fuzz_session_msg: one real encoding of every
 * session message type, some at their limits, with transactions that apply
 * to the fixture of fuzzlib.h. Deterministic; not part of the build:
 *
 *   cc -std=gnu11 -Iinclude -Isrc/lib tests/fuzz/make_session_seeds.c build/libensemble.a -lm \
 *      $(pkg-config --libs libzmq sqlite3) -o /tmp/make_session_seeds
 *   /tmp/make_session_seeds tests/fuzz/corpus/fuzz_session_msg tests/fuzz/corpus/fuzz_session_server
 *
 * The second directory gets scripts for fuzz_session_server: messages of
 * several connections in the record format its header describes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ensemble.h"
#include "fuzzlib.h"
#include "sync/msg.h"

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

/* --- scripts for fuzz_session_server ----------------------------------------- */

static ens_buf s_script = ENS_BUF_INIT;

static void s_rec(int peer, const ens__msg *m) {
  ens_buf b = ENS_BUF_INIT;
  if (ens__msg_encode(m, &b)) exit(1);
  ens__buf_putc(&s_script, (unsigned char)peer);
  ens__buf_putc(&s_script, (unsigned char)(b.len >> 8));
  ens__buf_putc(&s_script, (unsigned char)b.len);
  ens__buf_append(&s_script, b.data, b.len);
  ens__buf_free(&b);
}

static void s_script_write(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(s_script.data, 1, s_script.len, f) != s_script.len || fclose(f)) {
    perror(path);
    exit(1);
  }
  printf("%6zu  %s\n", s_script.len, path);
  s_script.len = 0;
}

static ens__msg s_new(int type);

static ens__msg s_hello(unsigned char who, uint64_t epoch, uint64_t seq) {
  ens__msg m = s_new(ENS_MSG_HELLO);
  /* odd peers speak version 1 only, even ones up to the latest */
  m.vmin = 1;
  m.vmax = (who & 1) ? 1 : ENS_PROTO_VERSION;
  memset(m.client, who, 16);
  m.epoch = epoch;
  m.seq = seq;
  return m;
}

static ens__msg s_txn(uint64_t ctn, const ens_txn *t, unsigned char **keep) {
  size_t n;
  if (ens_txn_encode(t, keep, &n)) exit(1);
  ens__msg m = s_new(ENS_MSG_TXN);
  m.ctn = ctn;
  m.bytes = *keep;
  m.nbytes = n;
  return m;
}

static void s_server_scripts(const char *dir) {
  mkdir(dir, 0755);
  unsigned char *b[8] = {0};
  ens_txn *set = ens_txn_new("Set x", NULL), *move = ens_txn_new("Move", NULL), *del = ens_txn_new("Delete", NULL);
  ens_txn *ins = ens_txn_new("Add", NULL), *bad = ens_txn_new("Cycle", NULL);
  ens_txn_set(set, 4, "x", ens_int(12));
  ens_txn_move(move, 6, 2, "a");
  ens_txn_delete(del, 3);
  ens_node *n = ens_txn_insert(ins, 2, "z", ens_id_make(1, 1), "rect");
  ens_node_set(n, "x", ens_int(1));
  ens_txn_move(bad, 2, 6, "b");
  ens__msg m;
  static const ens_id sel[] = {4, 5};

  /* one client: join, four changes (one refused), presence, ping, bye */
  m = s_hello(0x11, 0, 0); s_rec(0, &m);
  m = s_txn(1, set, &b[0]); s_rec(0, &m);
  m = s_txn(2, ins, &b[1]); s_rec(0, &m);
  m = s_txn(3, bad, &b[2]); s_rec(0x80, &m);
  m = s_txn(4, move, &b[3]); s_rec(0x80, &m);
  m = s_new(ENS_MSG_PRESENCE); m.text = "Ada"; m.ntext = 3; m.colour = 0x3366ff; m.sel = sel; m.nsel = 2; s_rec(0, &m);
  m = s_new(ENS_MSG_PING); m.token = 1; s_rec(0, &m);
  m = s_new(ENS_MSG_BYE); s_rec(0x80, &m);
  s_script_write(dir, "one-client");

  /* two clients, interleaved, a duplicate, a resume with a stale seq */
  m = s_hello(0x11, 0, 0); s_rec(0, &m);
  m = s_hello(0x22, 0, 0); s_rec(1, &m);
  m = s_txn(1, set, &b[4]); s_rec(0, &m);
  m = s_txn(1, del, &b[5]); s_rec(1, &m);
  m = s_txn(1, set, &b[6]); s_rec(0x80, &m); /* duplicate */
  m = s_txn(2, move, &b[7]); s_rec(0x81, &m);
  m = s_hello(0x22, 1, 1); s_rec(2, &m);     /* the second client again, on a new connection */
  m = s_new(ENS_MSG_PING); m.token = 2; s_rec(0xc2, &m);
  m = s_new(ENS_MSG_PING); m.token = 3; s_rec(0x80, &m); /* a connection swept away */
  s_script_write(dir, "two-clients");

  /* messages before hello, out-of-order ctn, a server-only message */
  m = s_txn(1, set, &b[0]); s_rec(3, &m);
  m = s_hello(0x33, 0, 0); s_rec(3, &m);
  m = s_txn(5, set, &b[0]); s_rec(0x83, &m);
  m = s_hello(0x44, 0, 0); s_rec(2, &m);
  m = s_new(ENS_MSG_ACK); m.ctn = 1; m.seq = 1; s_rec(0x82, &m);
  s_script_write(dir, "misbehaving");
  for (int i = 0; i < 8; i++) ens_free(b[i]);
  ens_txn_free(set); ens_txn_free(move); ens_txn_free(del); ens_txn_free(ins); ens_txn_free(bad);
}

static ens__msg s_new(int type) {
  ens__msg m;
  memset(&m, 0, sizeof m);
  m.type = (ens__msg_type)type;
  return m;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: make_session_seeds MSG_DIR [SERVER_DIR]\n");
    return 2;
  }
  if (argc == 3) s_server_scripts(argv[2]);
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
  /* and all four in one entries message, with an ack among them */
  ens_buf batch = ENS_BUF_INIT;
  ens__entries_writer w;
  ens__entries_start(&w, &batch, 100);
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
    ens__entries_add(&w, 3, (uint64_t)i + 1, b, nb, i == 0, 1796300000000000ULL);
    ens_free(b);
    ens_txn_free(t[i]);
  }
  ens__entries_add(&w, 2, 7, NULL, 0, 0, 0);
  if (ens__entries_finish(&w) || ens__msg_decode(batch.data, batch.len, &m)) return 1;
  s_write("entries", &m);
  ens__buf_free(&batch);

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
  m.received = 1u << 20; m.has_received = 1; s_write("ping-received", &m);
  m = s_new(ENS_MSG_PONG); m.token = 7; m.seq = 103; s_write("pong", &m);
  m = s_new(ENS_MSG_ERROR); m.code = ENS_PERR_VERSION; m.text = "server speaks 1..1"; m.ntext = strlen(m.text);
  s_write("error-version", &m);
  ens_free(snap);
  ens_doc_free(doc);
  return 0;
}
