/* The session client against a scripted server, without a socket
 * (client_int.h): what it sends is captured, the server's messages are
 * handed in one by one. Each test is a case the client once got wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "sync/client_int.h"
#include "sync/msg.h"

/* --- a scripted server ---------------------------------------------------- */

#define MAX_SENT 64
#define MAX_EVENTS 64

typedef struct {
  unsigned char *sent[MAX_SENT]; /* what the client sent, each message's bytes */
  size_t sent_len[MAX_SENT], nsent;
  ens_session_event_kind events[MAX_EVENTS];
  int codes[MAX_EVENTS];
  char messages[MAX_EVENTS][128];
  size_t nevents;
  int64_t now;
} s_server;

static int s_wire(const void *bytes, size_t len, void *user) {
  s_server *sv = user;
  assert_true(sv->nsent < MAX_SENT);
  sv->sent[sv->nsent] = malloc(len ? len : 1);
  assert_non_null(sv->sent[sv->nsent]);
  memcpy(sv->sent[sv->nsent], bytes, len);
  sv->sent_len[sv->nsent++] = len;
  return 0;
}

static void s_on_event(ens_session *s, const ens_session_event *ev, void *user) {
  (void)s;
  s_server *sv = user;
  assert_true(sv->nevents < MAX_EVENTS);
  sv->events[sv->nevents] = ev->kind;
  sv->codes[sv->nevents] = ev->code;
  snprintf(sv->messages[sv->nevents], sizeof sv->messages[0], "%s", ev->message ? ev->message : "");
  sv->nevents++;
}

static ens_session *s_client(s_server *sv) {
  memset(sv, 0, sizeof *sv);
  sv->now = 1000;
  ens_session_opts o;
  memset(&o, 0, sizeof o);
  o.name = "test";
  o.on_event = s_on_event;
  o.user = sv;
  ens_session *s = NULL;
  assert_int_equal(ens__session_new_detached(&o, s_wire, sv, &s), 0);
  return s;
}

static void s_finish(ens_session *s, s_server *sv) {
  ens_session_free(s);
  for (size_t i = 0; i < sv->nsent; i++) free(sv->sent[i]);
}

/* The i-th message the client sent, decoded (it borrows sv's bytes). */
static void s_sent(s_server *sv, size_t i, ens__msg *m) {
  assert_true(i < sv->nsent);
  assert_int_equal(ens__msg_decode(sv->sent[i], sv->sent_len[i], m), 0);
}

static void s_deliver(ens_session *s, s_server *sv, const ens__msg *m) {
  ens_buf b = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(m, &b), 0);
  assert_int_equal(ens__session_handle(s, b.data, b.len, sv->now), 0);
  ens__buf_free(&b);
}

static ens__msg *s_new_msg(ens__msg_type type) {
  static ens__msg m;
  memset(&m, 0, sizeof m);
  m.type = type;
  return &m;
}

static void s_welcome(ens_session *s, s_server *sv, uint64_t epoch, uint64_t head, int mode) {
  ens__msg *m = s_new_msg(ENS_MSG_WELCOME);
  m->version = 2;
  m->epoch = epoch;
  m->site = 5;
  m->seq = head;
  m->mode = (uint64_t)mode;
  m->window = 8;
  m->heartbeat_ms = 500;
  m->max_message = ENS_MAX_MESSAGE;
  s_deliver(s, sv, m);
}

/* root > 2 (layer, v=0) */
static ens_doc *s_doc(void) {
  ens_doc *d = ens_doc_new("doc", 1);
  ens_txn *t = ens_txn_new("init", NULL);
  ens_node *l = ens_txn_insert(t, ENS_ROOT_ID, "V", 2, "layer");
  assert_int_equal(ens_node_set(l, "v", ens_int(0)), 0);
  assert_int_equal(ens_doc_apply(d, t, ENS_ORIGIN_REMOTE, NULL), 0);
  ens_txn_free(t);
  return d;
}

/* hello, welcome (a snapshot), the snapshot in one chunk: live at head. */
static void s_join(ens_session *s, s_server *sv, uint64_t epoch, uint64_t head) {
  assert_int_equal(ens__session_tick(s, sv->now), 0);
  ens__msg hello;
  s_sent(sv, sv->nsent - 1, &hello);
  assert_int_equal(hello.type, ENS_MSG_HELLO);
  s_welcome(s, sv, epoch, head, 1);
  ens_doc *d = s_doc();
  unsigned char *snap;
  size_t n;
  assert_int_equal(ens_snapshot_encode(d, &snap, &n), 0);
  ens__msg *m = s_new_msg(ENS_MSG_SNAPSHOT);
  m->seq = head;
  m->count = 1;
  m->bytes = snap;
  m->nbytes = n;
  s_deliver(s, sv, m);
  ens_free(snap);
  ens_doc_free(d);
  assert_true(ens_session_is_live(s));
}

static int64_t s_get_v(ens_session *s) {
  ens_value v;
  assert_int_equal(ens_obj_get(ens_doc_get(ens_session_doc(s), 2), "v", &v), 0);
  return v.u.i;
}

/* --- the cases ---------------------------------------------------------------- */

/* A snapshot of one chunk holding nothing: the client's buffer was never
 * grown, and the MessagePack reader computed NULL + 0 (UBSan: applying
 * zero offset to null pointer). It must be refused as any snapshot that
 * does not decode: a new connection, no document. */
static void test_an_empty_snapshot_chunk_is_refused(void **state) {
  (void)state;
  s_server sv;
  ens_session *s = s_client(&sv);
  assert_int_equal(ens__session_tick(s, sv.now), 0);
  ens__msg hello;
  s_sent(&sv, 0, &hello);
  assert_int_equal(hello.type, ENS_MSG_HELLO);
  assert_true(hello.epoch == 0 && hello.seq == 0);
  s_welcome(s, &sv, 77, 3, 1);
  ens__msg *m = s_new_msg(ENS_MSG_SNAPSHOT);
  m->seq = 3;
  m->count = 1;
  m->bytes = (const unsigned char *)"";
  m->nbytes = 0;
  s_deliver(s, &sv, m);
  assert_null(ens_session_doc(s));
  assert_false(ens_session_is_live(s));
  assert_true(sv.nevents >= 1);
  assert_int_equal(sv.events[sv.nevents - 1], ENS_SESSION_RECONNECTING);
  assert_string_equal(sv.messages[sv.nevents - 1], "the snapshot does not decode");
  s_finish(s, &sv);
}

/* The decoders themselves, given no bytes at all (NULL, 0). */
static void test_decoders_refuse_no_bytes(void **state) {
  (void)state;
  ens_doc *d = (ens_doc *)1;
  assert_int_equal(ens_snapshot_decode(NULL, 0, &d), ENS_EDECODE);
  assert_null(d);
  ens_txn *t = (ens_txn *)1;
  assert_int_equal(ens_txn_decode(NULL, 0, &t), ENS_EDECODE);
  assert_null(t);
  static ens__msg m;
  assert_int_equal(ens__msg_decode(NULL, 0, &m), ENS_EDECODE);
}

static void s_check_nothing_happened(int rc, const ens_undo_report *r) {
  assert_int_equal(r->applied, 0);
  assert_int_equal(r->skipped, 0);
  assert_null(r->skips);
  assert_int_equal(r->label[0], '\0');
  assert_int_equal(rc, ENS_EEMPTY);
}

/* Undo and redo before the session has a document: nothing to do, said
 * as the undo manager says it (ENS_EEMPTY), with the report cleared
 * rather than left as the caller's memory held it. */
static void test_undo_redo_before_the_first_snapshot(void **state) {
  (void)state;
  s_server sv;
  ens_session *s = s_client(&sv);
  ens_undo_report r;
  memset(&r, 0xa5, sizeof r);
  s_check_nothing_happened(ens_session_undo(s, &r), &r);
  ens_undo_report_clear(&r);
  memset(&r, 0xa5, sizeof r);
  s_check_nothing_happened(ens_session_redo(s, &r), &r);
  ens_undo_report_clear(&r);
  /* connected, a snapshot announced but not arrived: still none */
  assert_int_equal(ens__session_tick(s, sv.now), 0);
  s_welcome(s, &sv, 77, 3, 1);
  memset(&r, 0xa5, sizeof r);
  s_check_nothing_happened(ens_session_undo(s, &r), &r);
  ens_undo_report_clear(&r);
  memset(&r, 0xa5, sizeof r);
  s_check_nothing_happened(ens_session_redo(s, &r), &r);
  ens_undo_report_clear(&r);
  assert_int_equal(ens_session_undo(s, NULL), ENS_EEMPTY);
  assert_int_equal(ens_session_redo(s, NULL), ENS_EEMPTY);
  s_finish(s, &sv);
}

/* The client's change, sent; the server rejects it with code. The user
 * is told a negative ENS_E code; the change is off the document. */
static int s_reject_with(uint64_t code) {
  s_server sv;
  ens_session *s = s_client(&sv);
  s_join(s, &sv, 77, 3);
  ens_txn *t = ens_txn_new("Set v", NULL);
  assert_int_equal(ens_txn_set(t, 2, "v", ens_int(9)), 0);
  assert_int_equal(ens_session_commit(s, t), 0);
  ens_txn_free(t);
  assert_int_equal(s_get_v(s), 9);
  ens__msg sent;
  s_sent(&sv, sv.nsent - 1, &sent);
  assert_int_equal(sent.type, ENS_MSG_TXN);
  assert_int_equal(sent.ctn, 1);
  ens__msg *m = s_new_msg(ENS_MSG_REJECT);
  m->ctn = 1;
  m->code = code;
  m->text = "refused";
  m->ntext = 7;
  size_t before = sv.nevents;
  s_deliver(s, &sv, m);
  assert_int_equal(sv.nevents, before + 1);
  assert_int_equal(sv.events[before], ENS_SESSION_REJECTED);
  assert_string_equal(sv.messages[before], "refused");
  assert_int_equal(s_get_v(s), 0);
  assert_int_equal(ens_session_pending(s), 0);
  assert_true(ens_session_is_live(s));
  int got = sv.codes[before];
  s_finish(s, &sv);
  return got;
}

/* Code 0 is no error at all: it reached the user as 0, which reads as
 * success. It, and codes beyond any error the library has, become
 * ENS_EINVAL; known ones keep their meaning. */
static void test_a_reject_gives_a_negative_code(void **state) {
  (void)state;
  assert_int_equal(s_reject_with(0), ENS_EINVAL);
  assert_int_equal(s_reject_with(65), ENS_EINVAL);
  assert_int_equal(s_reject_with(1ull << 40), ENS_EINVAL);
  assert_int_equal(s_reject_with((uint64_t)-ENS_ECYCLE), ENS_ECYCLE);
  assert_int_equal(s_reject_with((uint64_t)-ENS_ENOTFOUND), ENS_ENOTFOUND);
}

/* A replaced store (another epoch) sends a snapshot; until it has come
 * whole, the client's document is still the old history's, and so is
 * what it says in a hello. It took the new epoch at the welcome: a
 * connection lost before the snapshot made it resume the new history from
 * the old one's seq, and a server holding that seq sent entries of one
 * history onto the document of another. */
static void test_a_new_history_is_taken_with_its_snapshot(void **state) {
  (void)state;
  s_server sv;
  ens_session *s = s_client(&sv);
  s_join(s, &sv, 77, 3);
  ens_session_reconnect(s);
  assert_int_equal(ens__session_tick(s, sv.now), 0);
  s_welcome(s, &sv, 88, 5, 1); /* the store was replaced: a snapshot follows */
  ens_session_reconnect(s);    /* ... but the connection is lost first */
  assert_int_equal(ens__session_tick(s, sv.now), 0);
  ens__msg hello;
  s_sent(&sv, sv.nsent - 1, &hello);
  assert_int_equal(hello.type, ENS_MSG_HELLO);
  assert_true(hello.epoch == 77 && hello.seq == 3);
  /* a server answering from epoch 88's log is refused, not applied */
  s_welcome(s, &sv, 88, 4, 0);
  ens_txn *t = ens_txn_new("Set v", NULL);
  assert_int_equal(ens_txn_set(t, 2, "v", ens_int(4)), 0);
  unsigned char *b;
  size_t n;
  assert_int_equal(ens_txn_encode(t, &b, &n), 0);
  ens_txn_free(t);
  ens__msg *m = s_new_msg(ENS_MSG_ENTRY);
  m->seq = 4;
  m->site = 2;
  m->ctn = 1;
  m->bytes = b;
  m->nbytes = n;
  s_deliver(s, &sv, m);
  ens_free(b);
  assert_int_equal(s_get_v(s), 0);
  assert_false(ens_session_is_live(s));
  /* and the next hello asks for a snapshot */
  sv.now += 10000;
  assert_int_equal(ens__session_tick(s, sv.now), 0);
  s_sent(&sv, sv.nsent - 1, &hello);
  assert_int_equal(hello.type, ENS_MSG_HELLO);
  assert_true(hello.epoch == 0 && hello.seq == 0);
  s_finish(s, &sv);
}

/* A client id given (one a web page kept across a reload) is the hello's;
 * the host's all-zero id is refused. Ids of the site the page had before
 * lie below its stored counter: after the welcome gives that site again
 * (and a snapshot holding none of them), the next id is above it; for
 * another site the counter does not apply. The welcome's name is the
 * one the session is shown by. */
static void test_a_kept_client_id_and_its_id_floor(void **state) {
  (void)state;
  static const unsigned char id[ENS_CLIENT_ID_LEN] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  static const unsigned char zero[ENS_CLIENT_ID_LEN];
  for (int k = 0; k < 2; k++) {
    s_server sv;
    memset(&sv, 0, sizeof sv);
    sv.now = 1000;
    ens_session_opts o;
    memset(&o, 0, sizeof o);
    o.name = "a name it chose";
    o.on_event = s_on_event;
    o.user = &sv;
    o.client_id = id;
    ens_session *s = NULL;
    assert_int_equal(ens__session_new_detached(&o, s_wire, &sv, &s), 0);
    ens__session_id_floor(s, k == 0 ? 5 : 6, 1000); /* s_welcome gives site 5 */
    assert_string_equal(ens_session_name(s), "a name it chose");
    s_join(s, &sv, 7, 3);
    ens__msg hello;
    s_sent(&sv, 0, &hello);
    assert_int_equal(hello.type, ENS_MSG_HELLO);
    assert_memory_equal(hello.client, id, ENS_CLIENT_ID_LEN);
    ens_id next = ens_doc_new_id(ens_session_doc(s));
    assert_int_equal(ens_id_site(next), 5);
    if (k == 0) {
      assert_true(ens__session_id_mark(s) >= 1000);
      assert_int_equal(ens_id_counter(next), 1001);
    } else {
      assert_int_equal(ens_id_counter(next), 1);
    }
    assert_true(ens__session_id_mark(s) == ens_id_counter(next)); /* what the page stores after a commit */
    assert_string_equal(ens_session_name(s), "a name it chose"); /* the welcome named none */
    s_finish(s, &sv);
  }
  /* a welcome that names the client */
  s_server sv;
  ens_session *s = s_client(&sv);
  assert_int_equal(ens__session_tick(s, sv.now), 0);
  ens__msg *w = s_new_msg(ENS_MSG_WELCOME);
  w->version = 2;
  w->epoch = 7;
  w->site = 5;
  w->mode = 1;
  w->window = 8;
  w->heartbeat_ms = 500;
  w->max_message = ENS_MAX_MESSAGE;
  w->has_name = 1;
  w->text = "alice";
  w->ntext = 5;
  s_deliver(s, &sv, w);
  assert_string_equal(ens_session_name(s), "alice");
  s_finish(s, &sv);
  /* the host's id */
  ens_session_opts o;
  memset(&o, 0, sizeof o);
  o.client_id = zero;
  ens_session *h = NULL;
  assert_int_equal(ens__session_new_detached(&o, s_wire, &sv, &h), ENS_EINVAL);
  assert_null(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_an_empty_snapshot_chunk_is_refused),
      cmocka_unit_test(test_decoders_refuse_no_bytes),
      cmocka_unit_test(test_undo_redo_before_the_first_snapshot),
      cmocka_unit_test(test_a_reject_gives_a_negative_code),
      cmocka_unit_test(test_a_new_history_is_taken_with_its_snapshot),
      cmocka_unit_test(test_a_kept_client_id_and_its_id_floor),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
