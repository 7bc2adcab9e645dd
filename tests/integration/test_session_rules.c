/* A session server refuses what its document's format could not write
 * faithfully. Two real servers on loopback, one hosting a font and one a
 * drawing, each writing its file back at every checkpoint as `ensemble
 * serve` does, each with a well-behaved client mirroring it into a file of
 * its own. A raw client sends each change that used to corrupt every file
 * of a session (a line break inside an SFD value, an object kind the SFD
 * writer refuses, a string where SFD has a number, SVG attribute names
 * with a blank or a quote, text before <svg>, "?> inside the XML
 * declaration): each is rejected with its code and a reason, the server's
 * document is unchanged, and the server's and the mirror's files are
 * well-formed and read back as the server's document. A well-behaved
 * client's own such change is refused before it is sent. Bounded in
 * time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>
#include <zmq.h>

#include "ensemble.h"
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
  ens_server *srv;
  ens_session *client;
  void *raw;
  uint64_t ctn;
  uint32_t site;
  int writes;
} s_host;

typedef struct {
  char dir[64];
  void *zctx;
  s_host font, drawing;
} s_world;

static s_world w;

/* serve's write-back: the whole document to FILE, atomically */
static void s_write_back(const ens_doc *doc, uint64_t seq, void *user) {
  (void)seq;
  s_host *h = user;
  int rc = h->sfd ? ens_sfd_write_path(doc, h->file) : ens_svg_write_path(doc, h->file);
  if (rc) fprintf(stderr, "write-back of %s failed: %s\n", h->file, ens_error_last());
  else h->writes++;
}

static void s_pump_one(s_host *h) {
  if (!h->srv) return; /* not started yet */
  assert_int_equal(ens_server_poll(h->srv, 1), 0);
  assert_int_equal(ens_session_poll(h->client, 0), 0);
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
 * an ack, the entries or ack message carrying our ctn. */
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
      if (type == ENS_MSG_ACK && out->type == ENS_MSG_ENTRIES) {
        ens__entries_reader r;
        ens__entry_item it;
        ens__entries_begin(out, &r);
        while (ens__entries_next(&r, &it))
          if (it.is_ack && it.ctn == ctn) {
            zmq_msg_close(&msg);
            return 1;
          }
        continue;
      }
      if ((int)out->type == type && (!ctn || out->ctn == ctn)) {
        zmq_msg_close(&msg);
        return 1;
      }
      if (type == ENS_MSG_REJECT && (out->type == ENS_MSG_ACK) && out->ctn == ctn) {
        zmq_msg_close(&msg);
        return 0; /* accepted instead */
      }
      if (type == ENS_MSG_REJECT && out->type == ENS_MSG_ENTRIES) {
        ens__entries_reader r;
        ens__entry_item it;
        ens__entries_begin(out, &r);
        while (ens__entries_next(&r, &it))
          if (it.is_ack && it.ctn == ctn) {
            zmq_msg_close(&msg);
            return 0;
          }
      }
    }
    zmq_msg_close(&msg);
  }
  return 0;
}

static void s_host_start(s_host *h, int sfd) {
  memset(h, 0, sizeof *h);
  h->sfd = sfd;
  snprintf(h->file, sizeof h->file, "%s/hosted.%s", w.dir, sfd ? "sfd" : "svg");
  snprintf(h->mirror, sizeof h->mirror, "%s/mirror.%s", w.dir, sfd ? "sfd" : "svg");
  snprintf(h->store, sizeof h->store, "%s/%s.db", w.dir, sfd ? "font" : "drawing");
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

  ens_session_opts so;
  memset(&so, 0, sizeof so);
  so.endpoint = ens_server_endpoint(h->srv);
  so.name = "mirror";
  so.zmq_context = w.zctx;
  assert_int_equal(ens_session_new(&so, &h->client), 0);

  h->raw = zmq_socket(w.zctx, ZMQ_DEALER);
  int zero = 0;
  zmq_setsockopt(h->raw, ZMQ_LINGER, &zero, sizeof zero);
  assert_int_equal(zmq_connect(h->raw, ens_server_endpoint(h->srv)), 0);
  static ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = ENS_MSG_HELLO;
  m.vmin = m.vmax = ENS_PROTO_VERSION;
  memset(m.client, sfd ? 0x5a : 0x5b, sizeof m.client);
  s_raw_send(h->raw, &m);
  assert_true(s_raw_wait(h, ENS_MSG_WELCOME, 0, &m));
  h->site = (uint32_t)m.site;
  int64_t deadline = ens__now_ms() + 5000;
  while (!ens_session_is_live(h->client) && ens__now_ms() < deadline) s_pump_one(h);
  assert_true(ens_session_is_live(h->client));
}

/* Both hosts afresh for each test, so that each case is judged alone. */
static int s_setup(void **state) {
  (void)state;
  memset(&w, 0, sizeof w);
  snprintf(w.dir, sizeof w.dir, "/tmp/ens-rules-XXXXXX");
  assert_non_null(mkdtemp(w.dir));
  w.zctx = zmq_ctx_new();
  s_host_start(&w.font, 1);
  s_host_start(&w.drawing, 0);
  return 0;
}

static void s_host_stop(s_host *h) {
  zmq_close(h->raw);
  ens_session_free(h->client);
  ens_server_free(h->srv);
  unlink(h->file);
  unlink(h->mirror);
  char p[200];
  const char *ext[] = {"", "-wal", "-shm"};
  for (int i = 0; i < 3; i++) {
    snprintf(p, sizeof p, "%s%s", h->store, ext[i]);
    unlink(p);
  }
}

static int s_teardown(void **state) {
  (void)state;
  s_host_stop(&w.font);
  s_host_stop(&w.drawing);
  zmq_ctx_term(w.zctx);
  rmdir(w.dir);
  return 0;
}

/* --- the checks ---------------------------------------------------------------------- */

/* The file at path reads back as the document doc (what it says in its
 * format: fz_model_hash), and doc writes a file that does. Fails the test
 * rather than aborting, so that every case is told on code that accepts
 * what it should not. */
static void s_file_is(const s_host *h, const char *path, const ens_doc *doc) {
  unsigned char *bytes = NULL;
  size_t n = 0;
  int rc = h->sfd ? ens_sfd_write(doc, &bytes, &n) : ens_svg_write(doc, &bytes, &n);
  if (rc) fail_msg("the server's document does not write: %s", ens_error_last());
  ens_doc *back = NULL;
  rc = h->sfd ? ens_sfd_read(bytes, n, &back) : ens_svg_read(bytes, n, &back);
  if (rc) print_message("written:\n%.*s\n", (int)(n > 3000 ? 3000 : n), (const char *)bytes);
  ens_free(bytes);
  if (rc) fail_msg("what the server's document writes does not read: %s", ens_error_last());
  uint64_t want = fz_model_hash(doc), got = fz_model_hash(back);
  ens_doc_free(back);
  if (want != got) fail_msg("what the server's document writes reads back as another document");
  rc = h->sfd ? ens_sfd_read_path(path, &back) : ens_svg_read_path(path, &back);
  if (rc) fail_msg("%s does not read: %s", path, ens_error_last());
  got = fz_model_hash(back);
  ens_doc_free(back);
  if (got != want) fail_msg("%s reads back as another document", path);
}

/* The mirror has what the server has, and writes it to its file. */
static void s_mirror_written(s_host *h) {
  int64_t deadline = ens__now_ms() + 5000;
  while (ens__now_ms() < deadline &&
         (ens_session_seq(h->client) != ens_server_head(h->srv) || ens_session_pending(h->client)))
    s_pump();
  assert_int_equal(ens_session_seq(h->client), ens_server_head(h->srv));
  const ens_doc *doc = ens_session_doc(h->client);
  assert_int_equal(ens_doc_hash(doc), ens_doc_hash(ens_server_doc(h->srv)));
  int rc = h->sfd ? ens_sfd_write_path(doc, h->mirror) : ens_svg_write_path(doc, h->mirror);
  if (rc) fail_msg("the mirror cannot write %s: %s", h->mirror, ens_error_last());
  s_file_is(h, h->mirror, ens_server_doc(h->srv));
}

/* Sends txn from the raw client: it must be rejected with code and a
 * reason holding why, leave the server's document as it was, and every
 * file of the session must read back as that document. */
static void s_rejected(s_host *h, ens_txn *txn, int code, const char *why) {
  uint64_t hash = ens_doc_hash(ens_server_doc(h->srv)), head = ens_server_head(h->srv);
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
  int rejected = s_raw_wait(h, ENS_MSG_REJECT, h->ctn, &m);
  /* the files, whatever the answer */
  assert_int_equal(ens_server_checkpoint(h->srv), 0);
  s_file_is(h, h->file, ens_server_doc(h->srv));
  s_mirror_written(h);
  if (!rejected) fail_msg("accepted: the server now holds what its file cannot say (wanted %s: %s)", ens_error_name(code), why);
  /* the code on the wire is the library's made positive (docs/protocol.md) */
  print_message("rejected (%s): %.*s\n", ens_error_name(-(int)m.code), (int)m.ntext, m.text);
  if (-(int)m.code != code) fail_msg("rejected with %d, not %s", -(int)m.code, ens_error_name(code));
  char text[ENS_MAX_TEXT + 1];
  snprintf(text, sizeof text, "%.*s", (int)m.ntext, m.text);
  if (!strstr(text, why)) fail_msg("the reason \"%s\" does not say \"%s\"", text, why);
  assert_int_equal(ens_doc_hash(ens_server_doc(h->srv)), hash);
  assert_int_equal(ens_server_head(h->srv), head);
}

static const ens_obj *s_glyph(const char *name) {
  const ens_obj *g = ens_glyph_find(ens_server_doc(w.font.srv), name);
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
  assert_int_equal(ens_doc_pos_at(ens_server_doc(h->srv), ens_obj_id(parent), index, &pos), 0);
  static uint64_t counter = 1000;
  ens_txn *t = ens_txn_new("raw", NULL);
  ens_node *n = ens_txn_insert(t, ens_obj_id(parent), pos, ens_id_make(h->site, ++counter), kind);
  assert_non_null(n);
  if (key) assert_int_equal(ens_node_set(n, key, v), 0);
  ens_free(pos);
  return t;
}

/* --- the font ---------------------------------------------------------------------------- */

static void test_sfd_a_line_break_inside_a_value(void **state) {
  (void)state;
  /* would be a second glyph in every file of the session */
  s_rejected(&w.font, s_set(s_glyph("a"), "flags", ens_str("HW\nEndChar\nStartChar: injected")), ENS_EFORMAT,
             "line break");
}

static void test_sfd_a_kind_the_writer_refuses(void **state) {
  (void)state;
  /* every join would exit and every write-back fail */
  s_rejected(&w.font, s_insert(&w.font, s_glyph("a"), 0, "widget", NULL, ens_nil()), ENS_EKIND, "widget");
  s_rejected(&w.font, s_insert(&w.font, s_glyph("a"), 0, ENS_SFD_CONTOUR, NULL, ens_nil()), ENS_EKIND,
             "may not be placed under a 'glyph'");
}

static void test_sfd_a_string_where_sfd_has_a_number(void **state) {
  (void)state;
  /* would be written as Width: 0 */
  s_rejected(&w.font, s_set(s_glyph("b"), "width", ens_str("751")), ENS_ETYPE, "'width' must be an integer");
  const ens_obj *point = ens_obj_child(s_child(s_child(s_glyph("a"), ENS_SFD_LAYER), ENS_SFD_CONTOUR), 1);
  s_rejected(&w.font, s_set(point, "x", ens_str("300")), ENS_ETYPE, "'x' must be a real");
}

/* --- the drawing ------------------------------------------------------------------------------ */

static const ens_obj *s_elem(const char *kind) {
  const ens_obj *root = ens_doc_root(ens_server_doc(w.drawing.srv));
  const ens_obj *svg = s_child(root, "svg");
  return strcmp(kind, "svg") == 0 ? svg : s_child(svg, kind);
}

static void test_svg_attribute_names_with_a_blank_or_a_quote(void **state) {
  (void)state;
  s_rejected(&w.drawing, s_set(s_elem("rect"), "fill opacity", ens_str("0.5")), ENS_EFORMAT, "has a blank");
  s_rejected(&w.drawing, s_set(s_elem("rect"), "x\"", ens_str("1")), ENS_EFORMAT, "has a quote");
  s_rejected(&w.drawing, s_set(s_elem("rect"), "x=\"9\" onload", ens_str("alert(1)")), ENS_EFORMAT, "attribute name");
}

static void test_svg_text_before_the_root_element(void **state) {
  (void)state;
  const ens_obj *root = ens_doc_root(ens_server_doc(w.drawing.srv));
  s_rejected(&w.drawing, s_insert(&w.drawing, root, 1, ENS_SVG_TEXT, "text", ens_str("hello ")), ENS_EFORMAT,
             "outside the root element");
}

static void test_svg_question_mark_inside_the_declaration(void **state) {
  (void)state;
  const ens_obj *decl = s_child(ens_doc_root(ens_server_doc(w.drawing.srv)), ENS_SVG_XMLDECL);
  s_rejected(&w.drawing, s_set(decl, "encoding", ens_str("UTF-8\"?><evil/><?x \"")), ENS_EFORMAT, "encoding");
  s_rejected(&w.drawing, s_set(decl, "version", ens_str("1.0\"?>")), ENS_EFORMAT, "version");
}

/* --- what is faithful still goes through, and a client refuses its own ----------------------- */

static void s_accepted(s_host *h, ens_txn *txn) {
  uint64_t head = ens_server_head(h->srv);
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
  if (!s_raw_wait(h, ENS_MSG_ACK, h->ctn, &m)) fail_msg("a faithful change was not acknowledged");
  assert_int_equal(ens_server_head(h->srv), head + 1);
  assert_int_equal(ens_server_checkpoint(h->srv), 0);
  s_file_is(h, h->file, ens_server_doc(h->srv));
  s_mirror_written(h);
}

static void test_faithful_changes_go_through_and_every_file_follows(void **state) {
  (void)state;
  s_accepted(&w.font, s_set(s_glyph("b"), "width", ens_int(751)));
  s_accepted(&w.font, s_set(s_glyph("a"), "flags", ens_str("HW")));
  s_accepted(&w.drawing, s_set(s_elem("rect"), "fill-opacity", ens_str("0.5 \"quoted\" <&>")));
  const ens_obj *root = ens_doc_root(ens_server_doc(w.drawing.srv));
  s_accepted(&w.drawing, s_insert(&w.drawing, root, ens_obj_child_count(root), ENS_SVG_COMMENT, "text", ens_str(" end ")));
  assert_true(w.font.writes > 0 && w.drawing.writes > 0);
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

#define T(f) cmocka_unit_test_setup_teardown(f, s_setup, s_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_sfd_a_line_break_inside_a_value),
      T(test_sfd_a_kind_the_writer_refuses),
      T(test_sfd_a_string_where_sfd_has_a_number),
      T(test_svg_attribute_names_with_a_blank_or_a_quote),
      T(test_svg_text_before_the_root_element),
      T(test_svg_question_mark_inside_the_declaration),
      T(test_faithful_changes_go_through_and_every_file_follows),
      T(test_a_client_refuses_its_own_change_before_sending_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
