/* A session server refuses what its document's format could not write
 * faithfully. Real servers on loopback, one hosting a font and one a
 * drawing, each writing its file back at every change as `ensemble serve`
 * does, each with a well-behaved client mirroring it into a file of its
 * own. A raw client sends each change that used to corrupt every file of a
 * session (a line break inside an SFD value, an object kind the SFD writer
 * refuses, a string where SFD has a number, SVG attribute names with a
 * blank or a quote, text before <svg>, "?> inside the XML declaration):
 * each is rejected with its code and a reason, the document is unchanged,
 * and the server's and the mirror's files are well-formed and read back as
 * the document. A well-behaved client's own such change is refused before
 * it is sent.
 *
 * Each case runs twice: against a server in this process, and against the
 * `ensemble serve` process of this build ($ENS_BUILD_DIR/ensemble), whose
 * FILE is checked once it stopped. ENS_SERVE_BIN=/path/to/ensemble runs
 * only the second, against that binary. Bounded in time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include "ensemble.h"
#include "testutil.h"
#include "sync/msg.h"
#include "sync/net.h"
#include "../fuzz/fuzzlib.h"

static const char s_font[] =
    "SplineFontDB: 3.2\n"
    "FontName: Test\n"
    "Ascent: 800\n"
    "Descent: 200\n"
    "LayerCount: 2\n"
    "Encoding: UnicodeBmp\n"
    "BeginChars: 65536 2\n"
    "\n"
    "StartChar: a\n"
    "Encoding: 97 97 0\n"
    "Width: 640\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "Fore\n"
    "SplineSet\n"
    "10 0 m 1\n"
    " 300 700 l 1\n"
    " 10 0 l 1\n"
    "EndSplineSet\n"
    "EndChar\n"
    "\n"
    "StartChar: b\n"
    "Encoding: 98 98 1\n"
    "Width: 640\n"
    "Flags: W\n"
    "LayerCount: 2\n"
    "EndChar\n"
    "EndChars\n"
    "EndSplineFont\n";

static const char s_drawing[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">\n"
                                "  <rect id=\"r\" x=\"1\" y=\"2\" width=\"3\" height=\"4\"/>\n"
                                "</svg>\n";

/* --- one hosted document --------------------------------------------------------- */

typedef struct {
  int sfd;
  char file[160];   /* what the server writes back at each checkpoint */
  char mirror[160]; /* what the mirroring client writes */
  char store[160];
  ens_server *srv;  /* the server in this process, or NULL: */
  pid_t pid;        /* an `ensemble serve` process (0 once stopped) */
  int serve_status; /* its exit status */
  uint64_t head;    /* the server's head as the raw client heard it */
  ens_session *client;
  void *raw;
  uint64_t ctn;
  uint32_t site;
  int writes;
} s_host;

typedef struct {
  char dir[64];
  void *zctx;
  const char *serve_bin; /* NULL: servers in this process */
  s_host font, drawing;
} s_world;

static s_world w;

/* Where the case runs, given to each test as its state. */
typedef struct s_case s_case;
typedef struct {
  const s_case *c;
  const char *serve_bin;
} s_run;

/* The document as the server holds it: the server's own in this process,
 * else the mirror's, which has every transaction the server accepted. */
static const ens_doc *s_doc(s_host *h) { return h->srv ? ens_server_doc(h->srv) : ens_session_doc(h->client); }

/* serve's write-back: the whole document to FILE, atomically */
static void s_write_back(const ens_doc *doc, uint64_t seq, void *user) {
  (void)seq;
  s_host *h = user;
  int rc = h->sfd ? ens_sfd_write_path(doc, h->file) : ens_svg_write_path(doc, h->file);
  if (rc) fprintf(stderr, "write-back of %s failed: %s\n", h->file, ens_error_last());
  else h->writes++;
}

static void s_pump_one(s_host *h) {
  if (!h->client) return; /* not started */
  if (h->srv) assert_int_equal(ens_server_poll(h->srv, 1), 0);
  assert_int_equal(ens_session_poll(h->client, h->srv ? 0 : 1), 0);
}

static void s_pump(void) {
  s_pump_one(&w.font);
  s_pump_one(&w.drawing);
}

static void s_raw_send(void *sock, const ens__msg *m) {
  ens_buf b = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(m, &b), 0);
  assert_true(zmq_send(sock, b.data, b.len, ZMQ_DONTWAIT) == (int)b.len);
  ens__buf_free(&b);
}

/* Waits (pumping everything) for a message of type on the raw socket; for
 * an ack, the entries or ack message carrying our ctn. Waiting for a
 * reject, an ack of ctn instead returns 0. An ack sets h->head to its
 * seq. */
static int s_raw_wait(s_host *h, int type, uint64_t ctn, ens__msg *out) {
  static unsigned char copy[ENS_MAX_MESSAGE + ENS_SNAPSHOT_CHUNK];
  int64_t deadline = ens__now_ms() + 5000;
  while (ens__now_ms() < deadline) {
    s_pump();
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while (zmq_msg_recv(&msg, h->raw, ZMQ_DONTWAIT) >= 0) {
      size_t len = zmq_msg_size(&msg);
      assert_true(len <= sizeof copy);
      memcpy(copy, zmq_msg_data(&msg), len);
      if (ens__msg_decode(copy, len, out) != 0) continue;
      int acked = 0;
      if (out->type == ENS_MSG_ACK && ctn && out->ctn == ctn) {
        h->head = out->seq;
        acked = 1;
      } else if (out->type == ENS_MSG_ENTRIES) {
        ens__entries_reader r;
        ens__entry_item it;
        ens__entries_begin(out, &r);
        while (ens__entries_next(&r, &it)) {
          if (it.seq > h->head) h->head = it.seq;
          if (it.is_ack && ctn && it.ctn == ctn) acked = 1;
        }
      }
      if (acked) {
        zmq_msg_close(&msg);
        return type == ENS_MSG_ACK;
      }
      if ((int)out->type == type && type != ENS_MSG_ACK && (!ctn || out->ctn == ctn)) {
        zmq_msg_close(&msg);
        return 1;
      }
    }
    zmq_msg_close(&msg);
  }
  return 0;
}

/* `serve_bin serve FILE` on a free loopback port, writing FILE back after
 * every change; its endpoint, from the first line it prints. */
static void s_spawn_serve(s_host *h, char *endpoint, size_t cap) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execl(w.serve_bin, w.serve_bin, "serve", "-q", "--bind", "tcp://127.0.0.1:*", "--store", h->store,
          "--checkpoint-every", "1", h->file, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  h->pid = pid;
  char line[512];
  size_t n = 0;
  int64_t deadline = ens__now_ms() + 10000;
  while (n < sizeof line - 1 && !memchr(line, '\n', n) && ens__now_ms() < deadline) {
    struct pollfd p = {fds[0], POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    ssize_t got = read(fds[0], line + n, sizeof line - 1 - n);
    if (got <= 0) break;
    n += (size_t)got;
  }
  close(fds[0]);
  line[n] = '\0';
  /* "serving FILE on ENDPOINT (store ...)" */
  const char *on = strstr(line, " on tcp://");
  const char *end = on ? strstr(on, " (") : NULL;
  if (!on || !end) fail_msg("%s serve printed no endpoint: \"%s\"", w.serve_bin, line);
  on += 4;
  assert_true((size_t)(end - on) < cap);
  memcpy(endpoint, on, (size_t)(end - on));
  endpoint[end - on] = '\0';
}

/* SIGINT, as Ctrl-C: the server writes FILE a last time and exits. */
static void s_stop_serve(s_host *h) {
  if (!h->pid) return;
  kill(h->pid, SIGINT);
  int status = 0;
  int64_t deadline = ens__now_ms() + 20000;
  while (waitpid(h->pid, &status, WNOHANG) == 0) {
    if (ens__now_ms() > deadline) {
      kill(h->pid, SIGKILL);
      waitpid(h->pid, &status, 0);
      h->pid = 0;
      fail_msg("serve did not stop within 20 s of SIGINT");
    }
    usleep(10000);
  }
  h->pid = 0;
  h->serve_status = status;
}

static void s_host_start(s_host *h, int sfd) {
  memset(h, 0, sizeof *h);
  h->sfd = sfd;
  snprintf(h->file, sizeof h->file, "%s/hosted.%s", w.dir, sfd ? "sfd" : "svg");
  snprintf(h->mirror, sizeof h->mirror, "%s/mirror.%s", w.dir, sfd ? "sfd" : "svg");
  snprintf(h->store, sizeof h->store, "%s/%s.db", w.dir, sfd ? "font" : "drawing");
  char endpoint[256];
  if (w.serve_bin) {
    FILE *f = fopen(h->file, "wb");
    assert_non_null(f);
    const char *text = sfd ? s_font : s_drawing;
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
    s_spawn_serve(h, endpoint, sizeof endpoint);
  } else {
    ens_doc *initial = NULL;
    if (sfd) assert_int_equal(ens_sfd_read(s_font, sizeof s_font - 1, &initial), 0);
    else assert_int_equal(ens_svg_read(s_drawing, sizeof s_drawing - 1, &initial), 0);
    ens_server_opts o;
    memset(&o, 0, sizeof o);
    o.endpoint = "tcp://127.0.0.1:*";
    o.store_path = h->store;
    o.initial = initial;
    o.checkpoint_every = 1; /* a write-back after every change accepted */
    o.heartbeat_ms = 200;
    o.on_checkpoint = s_write_back;
    o.user = h;
    assert_int_equal(ens_server_new(&o, &h->srv), 0);
    ens_doc_free(initial);
    snprintf(endpoint, sizeof endpoint, "%s", ens_server_endpoint(h->srv));
  }

  ens_session_opts so;
  memset(&so, 0, sizeof so);
  so.endpoint = endpoint;
  so.name = "mirror";
  so.zmq_context = w.zctx;
  assert_int_equal(ens_session_new(&so, &h->client), 0);

  h->raw = zmq_socket(w.zctx, ZMQ_DEALER);
  int zero = 0;
  zmq_setsockopt(h->raw, ZMQ_LINGER, &zero, sizeof zero);
  assert_int_equal(zmq_connect(h->raw, endpoint), 0);
  static ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = ENS_MSG_HELLO;
  m.vmin = m.vmax = ENS_PROTO_VERSION;
  memset(m.client, sfd ? 0x5a : 0x5b, sizeof m.client);
  s_raw_send(h->raw, &m);
  assert_true(s_raw_wait(h, ENS_MSG_WELCOME, 0, &m));
  h->site = (uint32_t)m.site;
  h->head = m.seq;
  int64_t deadline = ens__now_ms() + 5000;
  while (!ens_session_is_live(h->client) && ens__now_ms() < deadline) s_pump_one(h);
  assert_true(ens_session_is_live(h->client));
}

static void s_host_stop(s_host *h) {
  if (h->raw) zmq_close(h->raw);
  ens_session_free(h->client);
  ens_server_free(h->srv);
  if (h->pid) {
    kill(h->pid, SIGKILL);
    waitpid(h->pid, NULL, 0);
  }
  memset(h, 0, sizeof *h);
}

/* The hosts a test needs, afresh, so that each case is judged alone. */
static int s_setup_for(void **state, int font, int drawing) {
  s_run *run = *state;
  memset(&w, 0, sizeof w);
  w.serve_bin = run ? run->serve_bin : NULL;
  snprintf(w.dir, sizeof w.dir, "/tmp/ens-rules-XXXXXX");
  assert_non_null(mkdtemp(w.dir));
  w.zctx = zmq_ctx_new();
  if (font) s_host_start(&w.font, 1);
  if (drawing) s_host_start(&w.drawing, 0);
  return 0;
}

static int s_setup_both(void **state) { return s_setup_for(state, 1, 1); }

static int s_teardown(void **state) {
  (void)state;
  s_host_stop(&w.font);
  s_host_stop(&w.drawing);
  zmq_ctx_term(w.zctx);
  DIR *d = opendir(w.dir);
  if (d) {
    struct dirent *e;
    char p[400];
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) continue;
      snprintf(p, sizeof p, "%s/%s", w.dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(w.dir);
  return 0;
}

/* --- the checks ---------------------------------------------------------------------- */

/* The file at path reads back as the document doc (what it says in its
 * format: fz_model_hash), and doc writes a file that does. Fails the test
 * rather than aborting, showing the file, so that every case is told on
 * code that accepts what it should not. */
static void s_file_is(const s_host *h, const char *path, const ens_doc *doc) {
  uint64_t want = fz_model_hash(doc);
  ens_doc *back = NULL;
  int rc = h->sfd ? ens_sfd_read_path(path, &back) : ens_svg_read_path(path, &back);
  uint64_t got = rc ? 0 : fz_model_hash(back);
  ens_doc_free(back);
  if (rc || got != want) {
    size_t n = 0;
    char *text = tu_read_file(path, &n);
    print_message("%s:\n%.*s\n", path, (int)(n > 1500 ? 1500 : n), text ? text : "");
    free(text);
    if (rc) fail_msg("%s does not read: %s", path, ens_error_last());
    fail_msg("%s reads back as another document than the session's", path);
  }
  unsigned char *bytes = NULL;
  size_t n = 0;
  rc = h->sfd ? ens_sfd_write(doc, &bytes, &n) : ens_svg_write(doc, &bytes, &n);
  if (rc) fail_msg("the session's document does not write: %s", ens_error_last());
  rc = h->sfd ? ens_sfd_read(bytes, n, &back) : ens_svg_read(bytes, n, &back);
  ens_free(bytes);
  if (rc) fail_msg("what the session's document writes does not read: %s", ens_error_last());
  got = fz_model_hash(back);
  ens_doc_free(back);
  if (want != got) fail_msg("what the session's document writes reads back as another document");
}

/* The mirror has everything the server accepted. */
static void s_mirror_synced(s_host *h) {
  int64_t deadline = ens__now_ms() + 5000;
  uint64_t head = h->srv ? ens_server_head(h->srv) : h->head;
  while (ens__now_ms() < deadline && (ens_session_seq(h->client) != head || ens_session_pending(h->client))) {
    s_pump();
    if (h->srv) head = ens_server_head(h->srv);
  }
  assert_int_equal(ens_session_seq(h->client), head);
  if (h->srv) assert_int_equal(ens_doc_hash(ens_session_doc(h->client)), ens_doc_hash(ens_server_doc(h->srv)));
}

/* The mirror writes its document to its file, which reads back as it. */
static void s_mirror_written(s_host *h) {
  const ens_doc *doc = ens_session_doc(h->client);
  int rc = h->sfd ? ens_sfd_write_path(doc, h->mirror) : ens_svg_write_path(doc, h->mirror);
  if (rc) fail_msg("the mirror cannot write %s: %s", h->mirror, ens_error_last());
  s_file_is(h, h->mirror, s_doc(h));
}

/* Every file of the session reads back as its document: the server's
 * FILE (a serve process's once it stopped, as Ctrl-C stops it, so its
 * last write-back is on disk), and the mirror's. */
static void s_files_checked(s_host *h) {
  s_mirror_synced(h);
  if (h->srv) {
    assert_int_equal(ens_server_checkpoint(h->srv), 0);
  } else {
    s_stop_serve(h);
  }
  s_file_is(h, h->file, s_doc(h));
  s_mirror_written(h);
  if (!h->srv && !(WIFEXITED(h->serve_status) && WEXITSTATUS(h->serve_status) == 0))
    fail_msg("serve stopped with status %d", h->serve_status);
}

static void s_raw_txn(s_host *h, ens_txn *txn) {
  unsigned char *bytes;
  size_t len;
  assert_int_equal(ens_txn_encode(txn, &bytes, &len), 0);
  ens_txn_free(txn);
  static ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = ENS_MSG_TXN;
  m.ctn = ++h->ctn;
  m.bytes = bytes;
  m.nbytes = len;
  s_raw_send(h->raw, &m);
  ens_free(bytes);
}

/* Sends txn from the raw client: it must be rejected with code and a
 * reason holding why, leave the document as it was, and every file of the
 * session must read back as that document. */
static void s_rejected(s_host *h, ens_txn *txn, int code, const char *why) {
  uint64_t hash = ens_doc_hash(s_doc(h)), head = h->srv ? ens_server_head(h->srv) : h->head;
  s_raw_txn(h, txn);
  static ens__msg m;
  int rejected = s_raw_wait(h, ENS_MSG_REJECT, h->ctn, &m);
  uint64_t now = h->srv ? ens_server_head(h->srv) : h->head;
  if (!rejected && now > head)
    print_message("accepted as seq %llu: the session now holds what its files cannot say\n", (unsigned long long)now);
  /* the files, whatever the answer */
  s_files_checked(h);
  if (!rejected) fail_msg("not rejected (wanted %s: %s)", ens_error_name(code), why);
  /* the code on the wire is the library's made positive (docs/protocol.md) */
  print_message("rejected (%s): %.*s\n", ens_error_name(-(int)m.code), (int)m.ntext, m.text);
  if (-(int)m.code != code) fail_msg("rejected with %d, not %s", -(int)m.code, ens_error_name(code));
  char text[ENS_MAX_TEXT + 1];
  snprintf(text, sizeof text, "%.*s", (int)m.ntext, m.text);
  if (!strstr(text, why)) fail_msg("the reason \"%s\" does not say \"%s\"", text, why);
  assert_int_equal(ens_doc_hash(s_doc(h)), hash);
  assert_int_equal(now, head);
}

static const ens_obj *s_glyph(const char *name) {
  const ens_obj *g = ens_glyph_find(s_doc(&w.font), name);
  assert_non_null(g);
  return g;
}

static const ens_obj *s_child(const ens_obj *o, const char *kind) {
  for (size_t i = 0; i < ens_obj_child_count(o); i++)
    if (strcmp(ens_obj_kind(ens_obj_child(o, i)), kind) == 0) return ens_obj_child(o, i);
  fail_msg("no %s", kind);
  return NULL;
}

static ens_txn *s_set(const ens_obj *o, const char *key, ens_value v) {
  ens_txn *t = ens_txn_new("raw", NULL);
  assert_int_equal(ens_txn_set(t, ens_obj_id(o), key, v), 0);
  return t;
}

/* An object of kind (with one property) under parent at its index. */
static ens_txn *s_insert(s_host *h, const ens_obj *parent, size_t index, const char *kind, const char *key, ens_value v) {
  char *pos = NULL;
  assert_int_equal(ens_doc_pos_at(s_doc(h), ens_obj_id(parent), index, &pos), 0);
  static uint64_t counter = 1000;
  ens_txn *t = ens_txn_new("raw", NULL);
  ens_node *n = ens_txn_insert(t, ens_obj_id(parent), pos, ens_id_make(h->site, ++counter), kind);
  assert_non_null(n);
  if (key) assert_int_equal(ens_node_set(n, key, v), 0);
  ens_free(pos);
  return t;
}

static const ens_obj *s_elem(const char *kind) {
  const ens_obj *root = ens_doc_root(s_doc(&w.drawing));
  const ens_obj *svg = s_child(root, "svg");
  return strcmp(kind, "svg") == 0 ? svg : s_child(svg, kind);
}

/* --- the changes that corrupted every file of a session ------------------------------ */

struct s_case {
  const char *name;
  int sfd;
  ens_txn *(*build)(void);
  int code;
  const char *why;
};

/* would be a second glyph in every file of the session */
static ens_txn *s_line_break(void) { return s_set(s_glyph("a"), "flags", ens_str("HW\nEndChar\nStartChar: injected")); }
/* every join would exit and every write-back fail */
static ens_txn *s_unknown_kind(void) { return s_insert(&w.font, s_glyph("a"), 0, "widget", NULL, ens_nil()); }
static ens_txn *s_misplaced_kind(void) { return s_insert(&w.font, s_glyph("a"), 0, ENS_SFD_CONTOUR, NULL, ens_nil()); }
/* would be written as Width: 0 */
static ens_txn *s_string_width(void) { return s_set(s_glyph("b"), "width", ens_str("751")); }
static ens_txn *s_string_x(void) {
  const ens_obj *point = ens_obj_child(s_child(s_child(s_glyph("a"), ENS_SFD_LAYER), ENS_SFD_CONTOUR), 1);
  return s_set(point, "x", ens_str("300"));
}
static ens_txn *s_name_blank(void) { return s_set(s_elem("rect"), "fill opacity", ens_str("0.5")); }
static ens_txn *s_name_quote(void) { return s_set(s_elem("rect"), "x\"", ens_str("1")); }
static ens_txn *s_name_markup(void) { return s_set(s_elem("rect"), "x=\"9\" onload", ens_str("alert(1)")); }
static ens_txn *s_text_before_root(void) {
  return s_insert(&w.drawing, ens_doc_root(s_doc(&w.drawing)), 1, ENS_SVG_TEXT, "text", ens_str("hello "));
}
static ens_txn *s_decl_encoding(void) {
  const ens_obj *decl = s_child(ens_doc_root(s_doc(&w.drawing)), ENS_SVG_XMLDECL);
  return s_set(decl, "encoding", ens_str("UTF-8\"?><evil/><?x \""));
}
static ens_txn *s_decl_version(void) {
  const ens_obj *decl = s_child(ens_doc_root(s_doc(&w.drawing)), ENS_SVG_XMLDECL);
  return s_set(decl, "version", ens_str("1.0\"?>"));
}

static const s_case s_cases[] = {
    {"sfd: a line break inside a value", 1, s_line_break, ENS_EFORMAT, "line break"},
    {"sfd: a kind the writer refuses", 1, s_unknown_kind, ENS_EKIND, "widget"},
    {"sfd: a kind where the writer does not put it", 1, s_misplaced_kind, ENS_EKIND, "may not be placed under a 'glyph'"},
    {"sfd: a string for a glyph's width", 1, s_string_width, ENS_ETYPE, "'width' must be an integer"},
    {"sfd: a string for a point's x", 1, s_string_x, ENS_ETYPE, "'x' must be a real"},
    {"svg: an attribute name with a blank", 0, s_name_blank, ENS_EFORMAT, "has a blank"},
    {"svg: an attribute name with a quote", 0, s_name_quote, ENS_EFORMAT, "has a quote"},
    {"svg: an attribute name with markup", 0, s_name_markup, ENS_EFORMAT, "attribute name"},
    {"svg: text before the root element", 0, s_text_before_root, ENS_EFORMAT, "outside the root element"},
    {"svg: \"?> inside the declaration's encoding", 0, s_decl_encoding, ENS_EFORMAT, "encoding"},
    {"svg: \"?> inside the declaration's version", 0, s_decl_version, ENS_EFORMAT, "version"},
};
#define S_NCASES (sizeof s_cases / sizeof s_cases[0])

static int s_setup_case(void **state) {
  s_run *run = *state;
  return s_setup_for(state, run->c->sfd, !run->c->sfd);
}

static void test_rejected(void **state) {
  s_run *run = *state;
  s_rejected(run->c->sfd ? &w.font : &w.drawing, run->c->build(), run->c->code, run->c->why);
}

/* --- what is faithful still goes through, and a client refuses its own ----------------------- */

static void s_accepted(s_host *h, ens_txn *txn) {
  uint64_t head = h->srv ? ens_server_head(h->srv) : h->head;
  s_raw_txn(h, txn);
  static ens__msg m;
  if (!s_raw_wait(h, ENS_MSG_ACK, h->ctn, &m)) fail_msg("a faithful change was not acknowledged");
  assert_int_equal(h->srv ? ens_server_head(h->srv) : h->head, head + 1);
  s_mirror_synced(h);
}

static void test_faithful_changes_go_through_and_every_file_follows(void **state) {
  (void)state;
  s_accepted(&w.font, s_set(s_glyph("b"), "width", ens_int(751)));
  s_accepted(&w.font, s_set(s_glyph("a"), "flags", ens_str("HW")));
  s_accepted(&w.drawing, s_set(s_elem("rect"), "fill-opacity", ens_str("0.5 \"quoted\" <&>")));
  const ens_obj *root = ens_doc_root(s_doc(&w.drawing));
  s_accepted(&w.drawing, s_insert(&w.drawing, root, ens_obj_child_count(root), ENS_SVG_COMMENT, "text", ens_str(" end ")));
  s_files_checked(&w.font);
  s_files_checked(&w.drawing);
  ens_value width;
  assert_int_equal(ens_obj_get(s_glyph("b"), "width", &width), 0);
  assert_int_equal(width.u.i, 751);
  if (!w.serve_bin) assert_true(w.font.writes > 0 && w.drawing.writes > 0);
}

static void test_a_client_refuses_its_own_change_before_sending_it(void **state) {
  (void)state;
  s_host *h = &w.font;
  ens_doc *doc = ens_session_doc(h->client);
  const ens_obj *a = ens_glyph_find(doc, "a");
  assert_non_null(a);
  uint64_t hash = ens_doc_hash(doc);
  ens_txn *t = ens_txn_new("mine", NULL);
  ens_txn_set(t, ens_obj_id(a), "flags", ens_str("W\nEndChar"));
  assert_int_equal(ens_session_commit(h->client, t), ENS_EFORMAT);
  ens_txn_free(t);
  assert_int_equal(ens_doc_hash(doc), hash);
  assert_int_equal(ens_session_pending(h->client), 0);
}

int main(void) {
  static char bin[600];
  const char *only = getenv("ENS_SERVE_BIN");
  const char *build = getenv("ENS_BUILD_DIR");
  const char *serve_bin = only;
  if (!serve_bin && build) {
    snprintf(bin, sizeof bin, "%s/ensemble", build);
    if (access(bin, X_OK) == 0) serve_bin = bin;
  }
  static s_run runs[2][S_NCASES + 1];
  static char names[2][S_NCASES + 1][160];
  static struct CMUnitTest tests[2 * (S_NCASES + 1) + 1];
  size_t n = 0;
  for (int mode = only ? 1 : 0; mode < 2; mode++) {
    const char *where = mode ? "ensemble serve" : "in this process";
    if (mode && !serve_bin) {
      print_message("no ensemble binary (ENS_BUILD_DIR or ENS_SERVE_BIN): the cases against serve are not run\n");
      break;
    }
    for (size_t i = 0; i <= S_NCASES; i++) {
      s_run *run = &runs[mode][i];
      run->serve_bin = mode ? serve_bin : NULL;
      run->c = i < S_NCASES ? &s_cases[i] : NULL;
      snprintf(names[mode][i], sizeof names[mode][i], "%s (%s)",
               run->c ? run->c->name : "faithful changes go through and every file follows", where);
      tests[n++] = (struct CMUnitTest){names[mode][i], run->c ? test_rejected : test_faithful_changes_go_through_and_every_file_follows,
                                       run->c ? s_setup_case : s_setup_both, s_teardown, run};
    }
  }
  static s_run local;
  if (!only)
    tests[n++] = (struct CMUnitTest){"a client refuses its own change before sending it",
                                     test_a_client_refuses_its_own_change_before_sending_it, s_setup_both, s_teardown, &local};
  return _cmocka_run_group_tests("test_session_rules", tests, n, NULL, NULL);
}
