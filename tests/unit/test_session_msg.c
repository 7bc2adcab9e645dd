/* Session message codec: every type round-trips field for field, the
 * decoder refuses every truncation, wrong types and out-of-range numbers,
 * and skips fields a later version may add. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sync/msg.h"
#include "util/mpack.h"

static const ens_id s_sel[] = {5, ens_id_make(3, 9), 0xffffffffffffffffULL};

/* One filled message of each type. */
static ens__msg s_sample(int type) {
  ens__msg m;
  memset(&m, 0, sizeof m);
  m.type = (ens__msg_type)type;
  static const unsigned char bytes[] = {0x94, 0x01, 0xa0, 0xa0, 0x90};
  /* two items: [2, 5, txn, time] and the ack [3, 9] */
  static const unsigned char items[] = {0x94, 0x02, 0x05, 0xc4, 0x01, 0x90, 0xcc, 0xc8, 0x92, 0x03, 0x09};
  switch (type) {
  case ENS_MSG_HELLO: m.vmin = 1; m.vmax = 3; memset(m.client, 0xab, sizeof m.client); m.epoch = 0x1234567890abcdefULL; m.seq = 77; break;
  case ENS_MSG_WELCOME: m.version = 1; m.epoch = 9; m.site = ENS_SITE_MAX; m.seq = 1u << 20; m.ctn = 4; m.mode = 1; m.window = 64; m.heartbeat_ms = 500; m.max_message = ENS_MAX_MESSAGE; m.floor = 3ULL << 28; m.has_name = 1; m.text = "Ada Lovelace"; m.ntext = 12; break;
  case ENS_MSG_SNAPSHOT: m.seq = 10; m.index = 2; m.count = 3; m.bytes = bytes; m.nbytes = sizeof bytes; break;
  case ENS_MSG_ENTRY: m.seq = 11; m.site = 2; m.ctn = 5; m.bytes = bytes; m.nbytes = sizeof bytes; m.time_us = 1796300000123456ULL; m.has_time = 1; break;
  case ENS_MSG_TXN: m.ctn = 6; m.bytes = bytes; m.nbytes = sizeof bytes; m.time_us = 1796300000654321ULL; m.has_time = 1; break;
  case ENS_MSG_ACK: m.ctn = 6; m.seq = 12; break;
  case ENS_MSG_REJECT: m.ctn = 7; m.code = 4; m.text = "op 0 (move 0x5): cycle"; m.ntext = strlen(m.text); break;
  case ENS_MSG_PRESENCE: m.site = 3; m.text = "Ada"; m.ntext = 3; m.colour = 0xff8800; m.sel = s_sel; m.nsel = 3; m.has_pointer = 1; m.px = -12.5; m.py = 1e6; m.pctx = 0x300000007ULL; break;
  case ENS_MSG_BYE: m.site = 3; break;
  case ENS_MSG_PING: m.token = 42; m.received = 1u << 20; m.has_received = 1; m.mark = 0xfedcba9876543210ULL; break;
  case ENS_MSG_PONG: m.token = 42; m.seq = 100; m.mark = 0x0123456789abcdefULL; break;
  case ENS_MSG_ERROR: m.code = ENS_PERR_VERSION; m.text = "server speaks 1..1"; m.ntext = strlen(m.text); break;
  case ENS_MSG_ENTRIES: m.seq = 40; m.count = 2; m.bytes = items; m.nbytes = sizeof items; break;
  case ENS_MSG_AUTH: m.text = "q8tR-token_x"; m.ntext = strlen(m.text); break;
  }
  return m;
}

static void s_assert_same(const ens__msg *a, const ens__msg *b) {
  assert_int_equal(a->type, b->type);
  assert_true(a->received == b->received && a->has_received == b->has_received);
  assert_true(a->time_us == b->time_us && a->has_time == b->has_time);
  assert_true(a->mark == b->mark && a->floor == b->floor && a->has_name == b->has_name);
  assert_true(a->vmin == b->vmin && a->vmax == b->vmax && a->version == b->version && a->epoch == b->epoch);
  assert_true(a->seq == b->seq && a->site == b->site && a->ctn == b->ctn && a->mode == b->mode);
  assert_true(a->window == b->window && a->heartbeat_ms == b->heartbeat_ms && a->max_message == b->max_message);
  assert_true(a->index == b->index && a->count == b->count && a->code == b->code && a->colour == b->colour);
  assert_true(a->token == b->token);
  assert_true(a->has_pointer == b->has_pointer && a->px == b->px && a->py == b->py && a->pctx == b->pctx);
  assert_memory_equal(a->client, b->client, ENS_CLIENT_ID_LEN);
  assert_int_equal(a->nbytes, b->nbytes);
  if (a->nbytes) assert_memory_equal(a->bytes, b->bytes, a->nbytes);
  assert_int_equal(a->ntext, b->ntext);
  if (a->ntext) assert_memory_equal(a->text, b->text, a->ntext);
  assert_int_equal(a->nsel, b->nsel);
  for (size_t i = 0; i < a->nsel; i++) assert_true(a->sel[i] == b->sel[i]);
}

static void test_every_type_round_trips(void **state) {
  (void)state;
  static ens__msg back;
  for (int t = ENS_MSG_HELLO; t <= ENS_MSG_LAST; t++) {
    ens__msg m = s_sample(t);
    ens_buf b = ENS_BUF_INIT;
    assert_int_equal(ens__msg_encode(&m, &b), 0);
    assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
    s_assert_same(&m, &back);
    /* every proper prefix is refused */
    for (size_t cut = 0; cut < b.len; cut++) assert_int_equal(ens__msg_decode(b.data, cut, &back), ENS_EDECODE);
    /* and a trailing byte too */
    ens__buf_putc(&b, 0xc0);
    assert_int_equal(ens__msg_decode(b.data, b.len, &back), ENS_EDECODE);
    ens__buf_free(&b);
  }
}

static void test_a_small_ack_is_a_few_bytes(void **state) {
  (void)state;
  ens__msg m = s_sample(ENS_MSG_ACK);
  ens_buf b = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(&m, &b), 0);
  static const unsigned char want[] = {0x93, 0x06, 0x06, 0x0c};
  assert_int_equal(b.len, sizeof want);
  assert_memory_equal(b.data, want, sizeof want);
  ens__buf_free(&b);
}

static void test_extra_fields_are_skipped(void **state) {
  (void)state;
  static ens__msg back;
  ens_buf b = ENS_BUF_INIT;
  ens__mp_array(&b, 5);
  ens__mp_uint(&b, ENS_MSG_ACK);
  ens__mp_uint(&b, 3);
  ens__mp_uint(&b, 4);
  ens__mp_str(&b, "later", 5);
  ens__mp_array(&b, 1);
  ens__mp_map(&b, 0);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_true(back.ctn == 3 && back.seq == 4);
  ens__buf_free(&b);
}

/* welcome's name comes after floor, both optional: without a floor the
 * name still goes (floor written as 0); an older welcome has no name; a
 * name over 64 bytes or not a string is refused. */
static void test_welcome_name_is_optional(void **state) {
  (void)state;
  static ens__msg back;
  ens__msg m = s_sample(ENS_MSG_WELCOME);
  m.floor = 0;
  m.text = "alice";
  m.ntext = 5;
  ens_buf b = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(&m, &b), 0);
  assert_int_equal(b.data[0], 0x90 | 12); /* type, nine fields, floor 0, name */
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_true(back.has_name && back.floor == 0 && back.ntext == 5 && memcmp(back.text, "alice", 5) == 0);
  /* the same without a name: ten fields, or eleven with a floor */
  m.has_name = 0;
  b.len = 0;
  assert_int_equal(ens__msg_encode(&m, &b), 0);
  assert_int_equal(b.data[0], 0x90 | 10);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_true(!back.has_name && back.ntext == 0);
  /* a name too long, and one that is a number */
  static const char long_name[] = "0123456789012345678901234567890123456789012345678901234567890123456789";
  m.has_name = 1;
  m.text = long_name;
  m.ntext = 65;
  b.len = 0;
  assert_int_equal(ens__msg_encode(&m, &b), ENS_EINVAL);
  ens__msg ok = s_sample(ENS_MSG_WELCOME);
  b.len = 0;
  ens__mp_array(&b, 12);
  ens__mp_uint(&b, ENS_MSG_WELCOME);
  ens__mp_uint(&b, ok.version); ens__mp_uint(&b, ok.epoch); ens__mp_uint(&b, ok.site); ens__mp_uint(&b, ok.seq);
  ens__mp_uint(&b, ok.ctn); ens__mp_uint(&b, ok.mode); ens__mp_uint(&b, ok.window); ens__mp_uint(&b, ok.heartbeat_ms);
  ens__mp_uint(&b, ok.max_message); ens__mp_uint(&b, 0);
  size_t at = b.len;
  ens__mp_str(&b, long_name, 65);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), ENS_EDECODE);
  b.len = at;
  ens__mp_uint(&b, 7);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), ENS_EDECODE);
  b.len = at;
  ens__mp_str(&b, long_name, 64);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_true(back.has_name && back.ntext == 64);
  ens__buf_free(&b);
}

/* ping's received and mark are optional: a ping without them still
 * decodes, and encodes back as it came; fields after them are skipped. */
static void test_ping_received_is_optional(void **state) {
  (void)state;
  static ens__msg back;
  ens_buf b = ENS_BUF_INIT, again = ENS_BUF_INIT;
  ens__mp_array(&b, 2);
  ens__mp_uint(&b, ENS_MSG_PING);
  ens__mp_uint(&b, 7);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_true(back.token == 7 && !back.has_received && back.received == 0);
  assert_int_equal(ens__msg_encode(&back, &again), 0);
  assert_true(again.len == b.len && memcmp(again.data, b.data, b.len) == 0);
  b.len = again.len = 0;
  ens__mp_array(&b, 3);
  ens__mp_uint(&b, ENS_MSG_PING);
  ens__mp_uint(&b, 8);
  ens__mp_uint(&b, 123456);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_true(back.token == 8 && back.has_received && back.received == 123456 && back.mark == 0);
  assert_int_equal(ens__msg_encode(&back, &again), 0);
  assert_true(again.len == b.len && memcmp(again.data, b.data, b.len) == 0);
  b.len = again.len = 0;
  ens__mp_array(&b, 5);
  ens__mp_uint(&b, ENS_MSG_PING);
  ens__mp_uint(&b, 8);
  ens__mp_uint(&b, 123456);
  ens__mp_uint(&b, 99);
  ens__mp_str(&b, "later", 5);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_true(back.token == 8 && back.has_received && back.received == 123456 && back.mark == 99);
  /* a mark without a count read: the count goes as 0 before it */
  memset(&back, 0, offsetof(ens__msg, sel_buf));
  back.type = ENS_MSG_PING;
  back.token = 9;
  back.mark = 5;
  assert_int_equal(ens__msg_encode(&back, &again), 0);
  assert_int_equal(ens__msg_decode(again.data, again.len, &back), 0);
  assert_true(back.token == 9 && back.received == 0 && back.mark == 5);
  b.len = 0;
  ens__mp_array(&b, 3);
  ens__mp_uint(&b, ENS_MSG_PING);
  ens__mp_uint(&b, 8);
  ens__mp_str(&b, "x", 1);
  assert_int_not_equal(ens__msg_decode(b.data, b.len, &back), 0); /* received is a uint */
  ens__buf_free(&b);
  ens__buf_free(&again);
}

static int s_decode_built(void (*build)(ens_buf *b)) {
  static ens__msg back;
  ens_buf b = ENS_BUF_INIT;
  build(&b);
  int rc = ens__msg_decode(b.data, b.len, &back);
  ens__buf_free(&b);
  return rc;
}

static void s_unknown_type(ens_buf *b) { ens__mp_array(b, 1); ens__mp_uint(b, ENS_MSG_LAST + 1); }
static void s_type_zero(ens_buf *b) { ens__mp_array(b, 1); ens__mp_uint(b, 0); }
static void s_empty(ens_buf *b) { ens__mp_array(b, 0); }
static void s_not_array(ens_buf *b) { ens__mp_map(b, 0); }
static void s_too_few(ens_buf *b) { ens__mp_array(b, 2); ens__mp_uint(b, ENS_MSG_ACK); ens__mp_uint(b, 1); }
static void s_ack_ctn0(ens_buf *b) { ens__mp_array(b, 3); ens__mp_uint(b, ENS_MSG_ACK); ens__mp_uint(b, 0); ens__mp_uint(b, 1); }
static void s_negative(ens_buf *b) { ens__mp_array(b, 3); ens__mp_uint(b, ENS_MSG_ACK); ens__mp_int(b, -1); ens__mp_uint(b, 1); }
static void s_short_client(ens_buf *b) {
  ens__mp_array(b, 6); ens__mp_uint(b, ENS_MSG_HELLO); ens__mp_uint(b, 1); ens__mp_uint(b, 1);
  ens__mp_bin(b, "0123456789abcde", 15); ens__mp_uint(b, 0); ens__mp_uint(b, 0);
}
static void s_bad_range(ens_buf *b) {
  ens__mp_array(b, 6); ens__mp_uint(b, ENS_MSG_HELLO); ens__mp_uint(b, 2); ens__mp_uint(b, 1);
  ens__mp_bin(b, "0123456789abcdef", 16); ens__mp_uint(b, 0); ens__mp_uint(b, 0);
}
static void s_long_name(ens_buf *b) {
  char name[ENS_MAX_NAME + 1];
  memset(name, 'x', sizeof name);
  ens__mp_array(b, 5); ens__mp_uint(b, ENS_MSG_PRESENCE); ens__mp_uint(b, 0); ens__mp_str(b, name, sizeof name);
  ens__mp_uint(b, 0); ens__mp_array(b, 0);
}
static void s_sel_zero(ens_buf *b) {
  ens__mp_array(b, 5); ens__mp_uint(b, ENS_MSG_PRESENCE); ens__mp_uint(b, 0); ens__mp_str(b, "a", 1);
  ens__mp_uint(b, 0); ens__mp_array(b, 1); ens__mp_uint(b, 0);
}
static void s_sel_lies(ens_buf *b) {
  ens__mp_array(b, 5); ens__mp_uint(b, ENS_MSG_PRESENCE); ens__mp_uint(b, 0); ens__mp_str(b, "a", 1);
  ens__mp_uint(b, 0); ens__mp_array(b, 100000);
}
static void s_txn_as_str(ens_buf *b) { ens__mp_array(b, 3); ens__mp_uint(b, ENS_MSG_TXN); ens__mp_uint(b, 1); ens__mp_str(b, "x", 1); }
static void s_chunk_past(ens_buf *b) {
  ens__mp_array(b, 5); ens__mp_uint(b, ENS_MSG_SNAPSHOT); ens__mp_uint(b, 1); ens__mp_uint(b, 3); ens__mp_uint(b, 3); ens__mp_bin(b, "", 0);
}
static void s_deep_extra(ens_buf *b) {
  ens__mp_array(b, 4); ens__mp_uint(b, ENS_MSG_ACK); ens__mp_uint(b, 1); ens__mp_uint(b, 1);
  for (int i = 0; i < 20; i++) ens__mp_array(b, 1);
  ens__mp_nil(b);
}

/* entries messages with one item wrong */
static void s_entries_head(ens_buf *b, uint32_t count) {
  ens__mp_array(b, 3); ens__mp_uint(b, ENS_MSG_ENTRIES); ens__mp_uint(b, 1); ens__mp_array(b, count);
}
static void s_entries_none(ens_buf *b) { s_entries_head(b, 0); }
static void s_entries_site0(ens_buf *b) { s_entries_head(b, 1); ens__mp_array(b, 2); ens__mp_uint(b, 0); ens__mp_uint(b, 1); }
static void s_entries_ctn0(ens_buf *b) { s_entries_head(b, 1); ens__mp_array(b, 2); ens__mp_uint(b, 1); ens__mp_uint(b, 0); }
static void s_entries_short(ens_buf *b) { s_entries_head(b, 1); ens__mp_array(b, 1); ens__mp_uint(b, 1); }
static void s_entries_str(ens_buf *b) {
  s_entries_head(b, 1); ens__mp_array(b, 3); ens__mp_uint(b, 1); ens__mp_uint(b, 1); ens__mp_str(b, "x", 1);
}
static void s_entries_lies(ens_buf *b) { s_entries_head(b, 3); ens__mp_array(b, 2); ens__mp_uint(b, 1); ens__mp_uint(b, 1); }
static void s_entries_seq0(ens_buf *b) {
  ens__mp_array(b, 3); ens__mp_uint(b, ENS_MSG_ENTRIES); ens__mp_uint(b, 0); ens__mp_array(b, 1);
  ens__mp_array(b, 2); ens__mp_uint(b, 1); ens__mp_uint(b, 1);
}
static void s_entries_not_array(ens_buf *b) { s_entries_head(b, 1); ens__mp_uint(b, 1); }

/* presence with a pointer that is wrong */
static void s_presence_head(ens_buf *b) {
  ens__mp_array(b, 6); ens__mp_uint(b, ENS_MSG_PRESENCE); ens__mp_uint(b, 0); ens__mp_str(b, "a", 1);
  ens__mp_uint(b, 0); ens__mp_array(b, 0);
}
static void s_pointer_short(ens_buf *b) { s_presence_head(b); ens__mp_array(b, 2); ens__mp_double(b, 1); ens__mp_double(b, 2); }
static void s_pointer_nan(ens_buf *b) {
  s_presence_head(b); ens__mp_array(b, 3); ens__mp_double(b, 0.0 / 0.0); ens__mp_double(b, 2); ens__mp_uint(b, 0);
}
static void s_pointer_str(ens_buf *b) {
  s_presence_head(b); ens__mp_array(b, 3); ens__mp_str(b, "1", 1); ens__mp_double(b, 2); ens__mp_uint(b, 0);
}
static void s_pointer_ctx_neg(ens_buf *b) {
  s_presence_head(b); ens__mp_array(b, 3); ens__mp_double(b, 1); ens__mp_double(b, 2); ens__mp_int(b, -1);
}
static void s_pointer_not_array(ens_buf *b) { s_presence_head(b); ens__mp_uint(b, 1); }

static void test_bad_messages_are_refused(void **state) {
  (void)state;
  void (*bad[])(ens_buf *) = {s_unknown_type, s_type_zero, s_empty,   s_not_array, s_too_few,   s_ack_ctn0,
                              s_negative,     s_short_client, s_bad_range, s_long_name, s_sel_zero, s_sel_lies,
                              s_txn_as_str,   s_chunk_past, s_deep_extra, s_entries_none, s_entries_site0,
                              s_entries_ctn0, s_entries_short, s_entries_str, s_entries_lies, s_entries_seq0,
                              s_entries_not_array, s_pointer_short, s_pointer_nan, s_pointer_str, s_pointer_ctx_neg,
                              s_pointer_not_array};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (s_decode_built(bad[i]) != ENS_EDECODE) fail_msg("bad message %zu accepted", i);
  }
}

/* presence's pointer is optional: absent or nil is no pointer (and
 * encodes back absent); integer coordinates, as a JSON-minded encoder
 * writes 3.0, are numbers too; fields after it are skipped. */
static void test_pointer_is_optional(void **state) {
  (void)state;
  static ens__msg back;
  ens_buf b = ENS_BUF_INIT, again = ENS_BUF_INIT;
  ens__mp_array(&b, 5); ens__mp_uint(&b, ENS_MSG_PRESENCE); ens__mp_uint(&b, 2); ens__mp_str(&b, "a", 1);
  ens__mp_uint(&b, 0x112233); ens__mp_array(&b, 0);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_false(back.has_pointer);
  assert_int_equal(ens__msg_encode(&back, &again), 0);
  assert_true(again.len == b.len && memcmp(again.data, b.data, b.len) == 0);
  b.len = 0;
  s_presence_head(&b);
  ens__mp_nil(&b);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_false(back.has_pointer);
  b.len = 0;
  ens__mp_array(&b, 7); ens__mp_uint(&b, ENS_MSG_PRESENCE); ens__mp_uint(&b, 0); ens__mp_str(&b, "a", 1);
  ens__mp_uint(&b, 0); ens__mp_array(&b, 0);
  ens__mp_array(&b, 4); ens__mp_int(&b, -3); ens__mp_uint(&b, 40); ens__mp_uint(&b, 9); ens__mp_str(&b, "later", 5);
  ens__mp_str(&b, "later still", 11);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_true(back.has_pointer && back.px == -3.0 && back.py == 40.0 && back.pctx == 9);
  ens__msg m = s_sample(ENS_MSG_PRESENCE);
  m.px = 1.0 / 0.0;
  again.len = 0;
  assert_int_equal(ens__msg_encode(&m, &again), ENS_EINVAL);
  ens__buf_free(&b);
  ens__buf_free(&again);
}

static void test_encoder_refuses_what_decoder_would(void **state) {
  (void)state;
  ens__msg m = s_sample(ENS_MSG_PRESENCE);
  char name[ENS_MAX_NAME + 1];
  memset(name, 'y', sizeof name);
  m.text = name;
  m.ntext = sizeof name;
  ens_buf b = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(&m, &b), ENS_EINVAL);
  ens__buf_free(&b);
  /* a long reason is cut rather than refused: a reject must always go out */
  static char reason[ENS_MAX_TEXT * 2];
  memset(reason, 'r', sizeof reason);
  m = s_sample(ENS_MSG_REJECT);
  m.text = reason;
  m.ntext = sizeof reason;
  static ens__msg back;
  ens_buf b2 = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(&m, &b2), 0);
  assert_int_equal(ens__msg_decode(b2.data, b2.len, &back), 0);
  assert_int_equal(back.ntext, ENS_MAX_TEXT);
  ens__buf_free(&b2);
}

/* A change's time is optional too: a txn or entry without it (an older
 * peer, a catch-up entry) decodes and encodes back as it came. */
static void test_change_time_is_optional(void **state) {
  (void)state;
  static ens__msg back;
  ens_buf b = ENS_BUF_INIT, again = ENS_BUF_INIT;
  ens__mp_array(&b, 3);
  ens__mp_uint(&b, ENS_MSG_TXN);
  ens__mp_uint(&b, 9);
  ens__mp_bin(&b, "\x90", 1);
  assert_int_equal(ens__msg_decode(b.data, b.len, &back), 0);
  assert_true(back.ctn == 9 && !back.has_time && back.time_us == 0);
  assert_int_equal(ens__msg_encode(&back, &again), 0);
  assert_true(again.len == b.len && memcmp(again.data, b.data, b.len) == 0);
  b.len = 0;
  ens__mp_array(&b, 6);
  ens__mp_uint(&b, ENS_MSG_ENTRY);
  ens__mp_uint(&b, 3);
  ens__mp_uint(&b, 2);
  ens__mp_uint(&b, 1);
  ens__mp_bin(&b, "\x90", 1);
  ens__mp_str(&b, "x", 1);
  assert_int_not_equal(ens__msg_decode(b.data, b.len, &back), 0); /* the time is a uint */
  ens__buf_free(&b);
  ens__buf_free(&again);
}

/* The writer's message reads back item for item, seqs counted from the
 * first; a later item field is skipped. */
static void test_entries_write_and_read(void **state) {
  (void)state;
  ens_buf b = ENS_BUF_INIT;
  ens__mp_uint(&b, 7); /* the writer appends */
  ens__entries_writer w;
  ens__entries_start(&w, &b, 100);
  ens__entries_add(&w, 4, 8, "\x90", 1, 1, 1796300000000001ULL);
  ens__entries_add(&w, 5, 9, NULL, 0, 0, 0);
  ens__entries_add(&w, ENS_SITE_MAX, 10, "", 0, 0, 0);
  assert_int_equal(ens__entries_finish(&w), 0);
  assert_int_equal(ens__entries_size(&w), b.len - 1);
  static ens__msg m;
  assert_int_equal(ens__msg_decode(b.data + 1, b.len - 1, &m), 0);
  assert_true(m.type == ENS_MSG_ENTRIES && m.seq == 100 && m.count == 3);
  ens__entries_reader r;
  ens__entry_item it;
  ens__entries_begin(&m, &r);
  assert_int_equal(ens__entries_next(&r, &it), 1);
  assert_true(it.seq == 100 && it.site == 4 && it.ctn == 8 && !it.is_ack && it.len == 1 && it.txn[0] == 0x90);
  assert_true(it.has_time && it.time_us == 1796300000000001ULL);
  assert_int_equal(ens__entries_next(&r, &it), 1);
  assert_true(it.seq == 101 && it.site == 5 && it.ctn == 9 && it.is_ack && it.len == 0);
  assert_int_equal(ens__entries_next(&r, &it), 1);
  assert_true(it.seq == 102 && it.site == ENS_SITE_MAX && !it.is_ack && !it.has_time && it.len == 0);
  assert_int_equal(ens__entries_next(&r, &it), 0);
  ens__buf_free(&b);

  /* an item with a field from a later version */
  s_entries_head(&b, 1);
  ens__mp_array(&b, 5);
  ens__mp_uint(&b, 1);
  ens__mp_uint(&b, 2);
  ens__mp_bin(&b, "\x90", 1);
  ens__mp_uint(&b, 3);
  ens__mp_str(&b, "later", 5);
  assert_int_equal(ens__msg_decode(b.data, b.len, &m), 0);
  ens__entries_begin(&m, &r);
  assert_int_equal(ens__entries_next(&r, &it), 1);
  assert_true(it.seq == 1 && it.ctn == 2 && it.has_time && it.time_us == 3);
  assert_int_equal(ens__entries_next(&r, &it), 0);
  ens__buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_type_round_trips),
      cmocka_unit_test(test_a_small_ack_is_a_few_bytes),
      cmocka_unit_test(test_extra_fields_are_skipped),
      cmocka_unit_test(test_ping_received_is_optional),
      cmocka_unit_test(test_welcome_name_is_optional),
      cmocka_unit_test(test_change_time_is_optional),
      cmocka_unit_test(test_bad_messages_are_refused),
      cmocka_unit_test(test_encoder_refuses_what_decoder_would),
      cmocka_unit_test(test_pointer_is_optional),
      cmocka_unit_test(test_entries_write_and_read),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
