/* Writes the seed corpus of fuzz_session_msg: one real encoding of every
 * session message type, some at their limits, with transactions that apply
 * to the fixture of fuzzlib.h. Deterministic; not part of the build:
 *
 *   cc -std=gnu11 -Iinclude -Isrc/lib tests/fuzz/make_session_seeds.c build/libensemble.a -lm \
 *      $(pkg-config --libs libzmq sqlite3 libxml-2.0 librsvg-2.0) -o /tmp/make_session_seeds
 *   /tmp/make_session_seeds tests/fuzz/corpus/fuzz_session_msg tests/fuzz/corpus/fuzz_session_server \
 *      tests/fuzz/corpus/fuzz_session_client
 *
 * The second directory gets scripts for fuzz_session_server: messages of
 * several connections in the record format its header describes; the
 * third, scripts of steps for fuzz_session_client (ops as its s_step
 * reads them). */
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

/* --- scripts for fuzz_session_client ----------------------------------------- */

enum {
  C_DELIVER, C_WELCOME, C_DECIDE, C_COLLAB, C_COMMIT, C_UNDO, C_REDO, C_TICK, C_RECONNECT, C_REPLACE, C_TRIM,
  C_MISBEHAVE, C_SELECT, C_RAW, C_FLUSH, C_DELIVER_ALL
};
/* welcome argument: bits 0-1 = 3 for version 1, bit 2 a snapshot even when the log would do, bits 3-4 the
 * window (1, 3, 8, 256), bits 5-6 chunks - 1, bit 7 a broken snapshot (one more byte: 0 empty, 1 cut, 2 junk) */
#define W_V1 3
#define W_SNAP 4
#define W_WIN(i) ((i) << 3)
#define W_CHUNKS(n) (((n)-1) << 5)
#define W_BROKEN 0x80

static void c_op(int op) { ens__buf_putc(&s_script, (unsigned char)op); }
static void c_op1(int op, int a) {
  c_op(op);
  ens__buf_putc(&s_script, (unsigned char)a);
}
static void c_seed(int op, uint32_t seed) {
  c_op(op);
  for (int i = 3; i >= 0; i--) ens__buf_putc(&s_script, (unsigned char)(seed >> (8 * i)));
}
static void c_commits(int n, uint32_t seed) {
  for (int i = 0; i < n; i++) c_seed(C_COMMIT, seed + (uint32_t)i);
}
static void c_collab(uint32_t seed, int a) {
  c_seed(C_COLLAB, seed);
  ens__buf_putc(&s_script, (unsigned char)a);
}

static void s_client_scripts(const char *dir) {
  mkdir(dir, 0755);
  /* join by snapshot (version 2), commits, acks, a reject with code 0,
   * collaborators, undo and redo, a reconnection resumed from the log in
   * version 1 */
  c_op1(C_WELCOME, W_WIN(2));
  c_op(C_DELIVER_ALL);
  c_commits(3, 1);
  c_op1(C_TICK, 0);
  c_op1(C_DECIDE, 0);
  c_op1(C_DECIDE, 0);
  c_op1(C_DECIDE, 1);
  c_collab(7, 0);
  c_collab(8, 1 | 2 | 4);
  c_op(C_DELIVER_ALL);
  c_op(C_UNDO);
  c_op(C_REDO);
  c_op1(C_TICK, 0);
  c_op1(C_DECIDE, 0);
  c_op(C_DELIVER_ALL);
  c_op(C_RECONNECT);
  c_op1(C_WELCOME, W_V1);
  c_op(C_DELIVER_ALL);
  c_commits(1, 9);
  c_op1(C_TICK, 0);
  c_op1(C_DECIDE, 0);
  c_op(C_DELIVER_ALL);
  s_script_write(dir, "join-commit-undo-resume");

  /* collaborators' changes beneath pending ones, in one entries message
   * and one by one; deletes and moves under edits; window 1 */
  c_op1(C_WELCOME, W_WIN(0) | W_CHUNKS(3));
  c_op(C_DELIVER_ALL);
  c_commits(4, 100);
  c_op1(C_TICK, 0);
  for (uint32_t i = 0; i < 6; i++) c_collab(200 + i, (int)(i & 1));
  c_op(C_FLUSH);
  c_op1(C_DELIVER, 0);
  c_op1(C_DECIDE, 0);
  c_op(C_DELIVER_ALL);
  c_op1(C_TICK, 0);
  c_op1(C_DECIDE, 0);
  c_op(C_UNDO);
  c_op(C_UNDO);
  c_op(C_DELIVER_ALL);
  c_op1(C_TICK, 0);
  for (int i = 0; i < 4; i++) c_op1(C_DECIDE, 0);
  c_op(C_DELIVER_ALL);
  s_script_write(dir, "beneath-pending");

  /* the client bugs the target found, one script each (docs/fuzzing.md):
   * a snapshot of one empty chunk (NULL + 0 in the MessagePack reader) */
  c_op1(C_WELCOME, W_BROKEN);
  ens__buf_putc(&s_script, 0);
  c_op(C_DELIVER_ALL);
  s_script_write(dir, "regress-empty-snapshot-chunk");
  /* undo and redo before the first snapshot (the report left uncleared) */
  c_op(C_UNDO);
  c_op(C_REDO);
  s_script_write(dir, "regress-undo-before-snapshot");
  /* a reject with code 0 (the user told 0) */
  c_op1(C_WELCOME, 0);
  c_op(C_DELIVER_ALL);
  c_commits(1, 1);
  c_op1(C_DECIDE, 1);
  c_op(C_DELIVER_ALL);
  s_script_write(dir, "regress-reject-code-0");
  /* a new history's welcome, then the connection lost before its snapshot
   * (the epoch taken at the welcome, and the old seq resumed in it) */
  c_op1(C_WELCOME, 0);
  c_op(C_DELIVER_ALL);
  c_collab(1, 0);
  c_op(C_DELIVER_ALL);
  c_op1(C_REPLACE, 0x20);
  c_op(C_RECONNECT);
  c_op1(C_WELCOME, W_CHUNKS(2));
  c_op1(C_DELIVER, 0);
  c_op(C_RECONNECT);
  s_script_write(dir, "regress-new-history-mid-snapshot");

  /* the drawing: a comment's text taken away, a CDATA section inserted
   * without one (written <!----> and <![CDATA[]]>, they read back with a
   * text of "") */
  ens__buf_putc(&s_script, 'V');
  c_op1(C_WELCOME, 0);
  c_op(C_DELIVER_ALL);
  c_seed(C_COMMIT, 314);
  c_seed(C_COMMIT, 373);
  s_script_write(dir, "regress-svg-literal-without-text");

  /* the font: its text made empty by the user's commit, after three
   * deletes (written without BeginChars, its glyphs did not read) */
  ens__buf_putc(&s_script, 'S');
  c_op1(C_WELCOME, W_WIN(2) | W_CHUNKS(2));
  c_op(C_DELIVER_ALL);
  c_seed(C_COMMIT, 0x07);
  c_seed(C_COMMIT, 0x42);
  c_seed(C_COMMIT, 0x49);
  c_seed(C_COMMIT, 0x44000000);
  s_script_write(dir, "regress-sfd-empty-font-text");
  /* a collaborator's empty 'extra' on a point, before the client joins
   * (accepted, it read back as no 'extra' at all) */
  ens__buf_putc(&s_script, 'S');
  c_collab(0x723a4400, 0);
  s_script_write(dir, "regress-sfd-empty-extra");
  /* the font's SplineFontDB property removed by the user's commit (its
   * line dropped from the font's text, the file did not read) */
  ens__buf_putc(&s_script, 'S');
  c_op1(C_WELCOME, 0);
  c_op(C_DELIVER_ALL);
  c_seed(C_COMMIT, 0x00ffff5b);
  s_script_write(dir, "regress-sfd-first-line-removed");

  /* a snapshot of one empty chunk, then a good one; undo and redo before
   * the first snapshot; a commit before it */
  c_op(C_UNDO);
  c_op(C_REDO);
  c_commits(1, 5);
  c_op1(C_WELCOME, W_BROKEN);
  ens__buf_putc(&s_script, 0);
  c_op(C_DELIVER_ALL);
  c_op(C_UNDO);
  c_op1(C_TICK, 6);
  c_op1(C_WELCOME, W_CHUNKS(2));
  c_op(C_DELIVER_ALL);
  c_commits(1, 6);
  s_script_write(dir, "empty-snapshot-chunk");

  /* a replaced store: the client is told of a new history, loses the
   * connection before its snapshot, and resumes */
  c_op1(C_WELCOME, 0);
  c_op(C_DELIVER_ALL);
  c_commits(2, 300);
  c_op1(C_TICK, 0);
  c_op1(C_DECIDE, 0);
  c_op(C_DELIVER_ALL);
  c_op1(C_REPLACE, 0);
  c_op(C_RECONNECT);
  c_op1(C_WELCOME, W_CHUNKS(2));
  c_op1(C_DELIVER, 1);
  c_op(C_RECONNECT);
  c_op1(C_WELCOME, 0);
  c_op(C_DELIVER_ALL);
  c_op1(C_TICK, 0);
  c_op1(C_DECIDE, 0);
  c_op(C_DELIVER_ALL);
  s_script_write(dir, "new-history-mid-snapshot");

  /* decided while away: acks and rejects lost with the connection, a
   * trimmed log, the server silent, a send that fails */
  c_op1(C_WELCOME, 0);
  c_op(C_DELIVER_ALL);
  c_commits(3, 400);
  c_op1(C_TICK, 0);
  c_op1(C_DECIDE, 0);
  c_op1(C_DECIDE, 1 | (1 << 1));
  c_op1(C_TICK, 7); /* silence: the client drops the connection */
  c_op1(C_DECIDE, 0);
  c_op(C_TRIM);
  c_op1(C_TICK, 7);
  c_op1(C_WELCOME, 0);
  c_op(C_DELIVER_ALL);
  c_op1(C_MISBEHAVE, 7);
  c_commits(1, 410);
  c_op1(C_TICK, 7);
  c_op1(C_TICK, 7);
  c_op1(C_WELCOME, W_V1);
  c_op(C_DELIVER_ALL);
  s_script_write(dir, "decided-while-away");

  /* a server in breach: gaps, an entry that is not a transaction, acks
   * and rejects of what was not sent, a message only a server takes, an
   * error, presence, and raw bytes */
  c_op1(C_WELCOME, 0);
  c_op(C_DELIVER_ALL);
  c_commits(1, 500);
  c_op1(C_TICK, 0);
  static const int bad[] = {0, 0x10, 1, 8, 0x18 | 0x40, 6, 0x16, 5, 0x15, 4, 9, 2, 3 | 0x30, 3 | 0x10};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    c_op1(C_MISBEHAVE, bad[i]);
    c_op1(C_TICK, 6);
    c_op1(C_WELCOME, (int)i & 3);
    c_op(C_DELIVER_ALL);
  }
  c_op1(C_RAW, 3);
  ens__buf_putc(&s_script, 0x92);
  ens__buf_putc(&s_script, 0x0b);
  ens__buf_putc(&s_script, 0x01);
  c_op1(C_SELECT, 2);
  c_op1(C_SELECT, 0x83);
  s_script_write(dir, "server-in-breach");

  /* the font and the drawing (first byte 'S' or 'V'): the user's changes
   * and collaborators' under the format's rules, some refused by the
   * client and some by the server, undo and redo, a resume in version 1,
   * a replaced store that starts from the file again */
  /* seeds whose changes apply to the fixtures, many of them */
  static const uint32_t mine[] = {7, 16, 53, 60, 66, 68, 73, 600, 74, 78, 82, 87, 91, 122};
  static const uint32_t theirs[] = {6, 13, 28, 37, 42, 47, 700, 701};
  for (int svg = 0; svg < 2; svg++) {
    ens__buf_putc(&s_script, svg ? 'V' : 'S');
    c_op1(C_WELCOME, W_WIN(2) | W_CHUNKS(2));
    c_op(C_DELIVER_ALL);
    for (int i = 0; i < 8; i++) c_seed(C_COMMIT, mine[i]);
    c_op1(C_TICK, 0);
    for (int i = 0; i < 4; i++) c_op1(C_DECIDE, 0);
    for (int i = 0; i < 8; i++) c_collab(theirs[i], i & 7);
    c_op(C_DELIVER_ALL);
    c_op(C_UNDO);
    c_op(C_UNDO);
    c_op(C_REDO);
    c_op1(C_TICK, 0);
    for (int i = 0; i < 6; i++) c_op1(C_DECIDE, 0);
    c_op(C_DELIVER_ALL);
    c_op(C_RECONNECT);
    c_op1(C_WELCOME, W_V1);
    c_op(C_DELIVER_ALL);
    for (int i = 8; i < 12; i++) c_seed(C_COMMIT, mine[i]);
    c_op1(C_TICK, 0);
    c_op1(C_DECIDE, 1);
    c_op1(C_REPLACE, 1);
    c_op(C_RECONNECT);
    c_op1(C_WELCOME, W_SNAP);
    c_op(C_DELIVER_ALL);
    for (int i = 12; i < 14; i++) c_seed(C_COMMIT, mine[i]);
    c_op1(C_TICK, 0);
    c_op1(C_DECIDE, 0);
    c_op1(C_DECIDE, 0);
    c_op(C_DELIVER_ALL);
    s_script_write(dir, svg ? "drawing" : "font");
  }
}

static ens__msg s_new(int type) {
  ens__msg m;
  memset(&m, 0, sizeof m);
  m.type = (ens__msg_type)type;
  return m;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4) {
    fprintf(stderr, "usage: make_session_seeds MSG_DIR [SERVER_DIR [CLIENT_DIR]]\n");
    return 2;
  }
  if (argc >= 3) s_server_scripts(argv[2]);
  if (argc == 4) s_client_scripts(argv[3]);
  s_dir = argv[1];
  mkdir(s_dir, 0755);
  static ens__msg m;

  m = s_new(ENS_MSG_HELLO); m.vmin = m.vmax = 1; memset(m.client, 0x5a, 16); s_write("hello-new", &m);
  m.epoch = 0x0123456789abcdefULL; m.seq = 1000; m.vmax = 7; s_write("hello-resume", &m);

  m = s_new(ENS_MSG_WELCOME); m.version = 1; m.epoch = 99; m.site = 2; m.seq = 10; m.ctn = 3; m.window = 64;
  m.heartbeat_ms = 500; m.max_message = ENS_MAX_MESSAGE; s_write("welcome-log", &m);
  m.mode = 1; m.site = ENS_SITE_MAX; s_write("welcome-snapshot", &m);
  m.has_name = 1; m.text = "Ada Lovelace"; m.ntext = 12; s_write("welcome-name", &m); /* floor 0, then the name */
  m.floor = 1ULL << 28; s_write("welcome-floor-name", &m);
  m.has_name = 0; m.text = NULL; m.ntext = 0; m.floor = 0;

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
