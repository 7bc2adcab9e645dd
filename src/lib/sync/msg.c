/* Session messages to and from MessagePack (docs/protocol.md). The layouts
 * live in one table so the encoder and the decoder cannot disagree: each
 * type lists its fields in wire order. */
#include "msg.h"

#include <math.h>
#include <string.h>

#include "../util/error.h"
#include "../util/mpack.h"

typedef enum {
  F_END = 0,
  F_VMIN, F_VMAX, F_VERSION, F_EPOCH, F_SEQ, F_SITE, F_CTN, F_MODE, F_WINDOW, F_HEARTBEAT, F_MAXMSG,
  F_INDEX, F_COUNT, F_CODE, F_COLOUR, F_TOKEN,
  F_RECEIVED, F_TIME, F_MARK, F_FLOOR, /* optional, after a type's layout */
  F_CLIENT, /* bin 16 */
  F_BYTES,  /* bin */
  F_NAME,   /* str <= ENS_MAX_NAME */
  F_TEXT,   /* str <= ENS_MAX_TEXT */
  F_SEL,    /* array of ids */
  F_ITEMS   /* entries: an array of items, kept encoded in bytes/count */
} s_field;

#define MAXF 10
static const s_field s_layout[ENS_MSG_LAST + 1][MAXF] = {
    [ENS_MSG_HELLO] = {F_VMIN, F_VMAX, F_CLIENT, F_EPOCH, F_SEQ},
    [ENS_MSG_WELCOME] = {F_VERSION, F_EPOCH, F_SITE, F_SEQ, F_CTN, F_MODE, F_WINDOW, F_HEARTBEAT, F_MAXMSG},
    [ENS_MSG_SNAPSHOT] = {F_SEQ, F_INDEX, F_COUNT, F_BYTES},
    [ENS_MSG_ENTRY] = {F_SEQ, F_SITE, F_CTN, F_BYTES},
    [ENS_MSG_TXN] = {F_CTN, F_BYTES},
    [ENS_MSG_ACK] = {F_CTN, F_SEQ},
    [ENS_MSG_REJECT] = {F_CTN, F_CODE, F_TEXT},
    [ENS_MSG_PRESENCE] = {F_SITE, F_NAME, F_COLOUR, F_SEL},
    [ENS_MSG_BYE] = {F_SITE},
    [ENS_MSG_PING] = {F_TOKEN},
    [ENS_MSG_PONG] = {F_TOKEN, F_SEQ},
    [ENS_MSG_ERROR] = {F_CODE, F_TEXT},
    [ENS_MSG_ENTRIES] = {F_SEQ, F_ITEMS},
    [ENS_MSG_AUTH] = {F_TEXT},
};

/* Fields added within version 1, after a type's layout and in this order.
 * Each may be absent (older peers): a writer leaves out those after the
 * last it has, and writes 0 for one it lacks before that. */
#define MAXOPT 2
#define MAXOPT_WELCOME 1 /* floor; then the name (a str, so not in this table) */
static const s_field s_optional[ENS_MSG_LAST + 1][MAXOPT] = {
    [ENS_MSG_WELCOME] = {F_FLOOR},
    [ENS_MSG_TXN] = {F_TIME},
    [ENS_MSG_ENTRY] = {F_TIME},
    [ENS_MSG_PING] = {F_RECEIVED, F_MARK},
    [ENS_MSG_PONG] = {F_MARK},
};

const char *ens__msg_name(int type) {
  static const char *names[] = {"?",    "hello",    "welcome", "snapshot", "entry", "txn", "ack",
                                "reject", "presence", "bye",     "ping",     "pong",  "error", "entries", "auth"};
  return type > 0 && type <= ENS_MSG_LAST ? names[type] : "?";
}

static uint64_t *s_num(ens__msg *m, s_field f) {
  switch (f) {
  case F_VMIN: return &m->vmin;
  case F_VMAX: return &m->vmax;
  case F_VERSION: return &m->version;
  case F_EPOCH: return &m->epoch;
  case F_SEQ: return &m->seq;
  case F_SITE: return &m->site;
  case F_CTN: return &m->ctn;
  case F_MODE: return &m->mode;
  case F_WINDOW: return &m->window;
  case F_HEARTBEAT: return &m->heartbeat_ms;
  case F_MAXMSG: return &m->max_message;
  case F_INDEX: return &m->index;
  case F_COUNT: return &m->count;
  case F_CODE: return &m->code;
  case F_COLOUR: return &m->colour;
  case F_TOKEN: return &m->token;
  case F_RECEIVED: return &m->received;
  case F_TIME: return &m->time_us;
  case F_MARK: return &m->mark;
  case F_FLOOR: return &m->floor;
  default: return NULL;
  }
}

static int s_nfields(int type) {
  int n = 0;
  while (n < MAXF && s_layout[type][n] != F_END) n++;
  return n;
}

static int s_has(const ens__msg *m, s_field f) {
  switch (f) {
  case F_RECEIVED: return m->has_received;
  case F_TIME: return m->has_time;
  case F_MARK: return m->mark != 0;
  case F_FLOOR: return m->floor != 0;
  default: return 0;
  }
}

/* How many of type's optional fields m writes: up to the last it has. */
static int s_noptional(const ens__msg *m, int type) {
  int n = 0;
  for (int i = 0; i < MAXOPT && s_optional[type][i] != F_END; i++)
    if (s_has(m, s_optional[type][i])) n = i + 1;
  return n;
}

int ens__msg_encode(const ens__msg *m, ens_buf *out) {
  int type = (int)m->type;
  if (type < ENS_MSG_HELLO || type > ENS_MSG_LAST) return ens__error(ENS_EINVAL, "unknown message type %d", type);
  int n = s_nfields(type);
  int extra = s_noptional(m, type);
  int pointer = type == ENS_MSG_PRESENCE && m->has_pointer;
  int name = type == ENS_MSG_WELCOME && m->has_name;
  if (name) extra = MAXOPT_WELCOME; /* the name follows floor, written even when 0 */
  ens__mp_array(out, (uint32_t)(n + 1 + extra + pointer + name));
  ens__mp_uint(out, (uint64_t)type);
  for (int i = 0; i < n; i++) {
    s_field f = s_layout[type][i];
    switch (f) {
    case F_CLIENT: ens__mp_bin(out, m->client, ENS_CLIENT_ID_LEN); break;
    case F_BYTES:
      if (m->nbytes > UINT32_MAX) return ens__error(ENS_EINVAL, "%s: %zu bytes is too many", ens__msg_name(type), m->nbytes);
      ens__mp_bin(out, m->bytes, m->nbytes);
      break;
    case F_NAME:
    case F_TEXT: {
      size_t max = f == F_NAME ? ENS_MAX_NAME : ENS_MAX_TEXT, len = m->ntext;
      if (len > max) {
        if (f == F_NAME) return ens__error(ENS_EINVAL, "name of %zu bytes, over %zu", len, max);
        len = max; /* a reason or message is cut, never refused */
      }
      ens__mp_str(out, m->text ? m->text : "", m->text ? len : 0);
      break;
    }
    case F_SEL:
      if (m->nsel > ENS_MAX_SELECTION) return ens__error(ENS_EINVAL, "selection of %zu ids, over %d", m->nsel, ENS_MAX_SELECTION);
      ens__mp_array(out, (uint32_t)m->nsel);
      for (size_t k = 0; k < m->nsel; k++) {
        if (m->sel[k] == ENS_ID_NONE) return ens__error(ENS_EINVAL, "selection holds id 0");
        ens__mp_uint(out, m->sel[k]);
      }
      break;
    case F_ITEMS: /* items were checked when decoded, or built by the writer */
      if (m->count > UINT32_MAX) return ens__error(ENS_EINVAL, "entries: too many items");
      ens__mp_array(out, (uint32_t)m->count);
      ens__buf_append(out, m->bytes, m->nbytes);
      break;
    default: ens__mp_uint(out, *s_num((ens__msg *)m, f)); break;
    }
  }
  for (int i = 0; i < extra; i++) ens__mp_uint(out, *s_num((ens__msg *)m, s_optional[type][i]));
  if (type == ENS_MSG_PRESENCE && m->has_pointer) {
    if (!isfinite(m->px) || !isfinite(m->py)) return ens__error(ENS_EINVAL, "a pointer that is not a finite point");
    ens__mp_array(out, 3);
    ens__mp_double(out, m->px);
    ens__mp_double(out, m->py);
    ens__mp_uint(out, m->pctx);
  }
  if (name) {
    if (m->ntext > ENS_MAX_NAME) return ens__error(ENS_EINVAL, "name of %zu bytes, over %d", m->ntext, ENS_MAX_NAME);
    ens__mp_str(out, m->text ? m->text : "", m->text ? m->ntext : 0);
  }
  if (out->oom) return ens__error(ENS_ENOMEM, "out of memory encoding a %s message", ens__msg_name(type));
  return 0;
}

/* Rules beyond the shapes: numbers that may not be 0, ranges. */
static int s_check(const ens__msg *m) {
  const char *why = NULL;
  switch (m->type) {
  case ENS_MSG_HELLO:
    if (m->vmin == 0 || m->vmin > m->vmax) why = "bad version range";
    break;
  case ENS_MSG_WELCOME:
    if (m->epoch == 0) why = "epoch 0";
    else if (m->site == 0 || m->site > ENS_SITE_MAX) why = "site out of range";
    else if (m->mode > 1) why = "unknown mode";
    else if (m->window == 0) why = "window 0";
    else if (m->floor >> ENS_COUNTER_BITS) why = "floor out of range";
    break;
  case ENS_MSG_SNAPSHOT:
    if (m->count == 0 || m->index >= m->count) why = "chunk index out of range";
    break;
  case ENS_MSG_ENTRY:
    if (m->seq == 0 || m->ctn == 0) why = "seq or ctn 0";
    else if (m->site == 0 || m->site > ENS_SITE_MAX) why = "site out of range";
    break;
  case ENS_MSG_TXN:
  case ENS_MSG_REJECT:
    if (m->ctn == 0) why = "ctn 0";
    break;
  case ENS_MSG_ACK:
    if (m->ctn == 0 || m->seq == 0) why = "seq or ctn 0";
    break;
  case ENS_MSG_ENTRIES:
    if (m->seq == 0) why = "seq 0";
    else if (m->count == 0) why = "no items";
    else if (m->count > UINT64_MAX - m->seq) why = "seq overflows";
    break;
  case ENS_MSG_PRESENCE:
  case ENS_MSG_BYE:
    if (m->site > ENS_SITE_MAX) why = "site out of range";
    if (m->colour > 0xffffff) why = "colour out of range";
    break;
  default: break;
  }
  if (why) return ens__error(ENS_EDECODE, "%s message: %s", ens__msg_name(m->type), why);
  return 0;
}

/* One item of an entries message: [site, ctn] (an ack) or [site, ctn, txn,
 * time?], later fields skipped. Into it when not NULL. */
static void s_read_item(ens_mp_reader *r, ens__entry_item *it) {
  ens__entry_item tmp;
  if (!it) it = &tmp;
  memset(it, 0, sizeof *it);
  uint32_t n = ens__mp_read_array(r);
  if (r->err) return;
  if (n < 2) {
    ens__mp_fail(r, "an item has fewer than 2 fields");
    return;
  }
  it->site = ens__mp_read_uint(r);
  it->ctn = ens__mp_read_uint(r);
  if (r->err) return;
  if (it->site == 0 || it->site > ENS_SITE_MAX) ens__mp_fail(r, "an item's site is out of range");
  else if (it->ctn == 0) ens__mp_fail(r, "an item's ctn is 0");
  if (r->err) return;
  it->is_ack = n == 2;
  if (n >= 3) {
    ens_mp_item b;
    if (ens__mp_read(r, &b) != ENS_MP_BIN) {
      ens__mp_fail(r, "an item's transaction is not bytes");
      return;
    }
    it->txn = b.data;
    it->len = b.len;
  }
  if (n >= 4) {
    it->time_us = ens__mp_read_uint(r);
    it->has_time = !r->err;
  }
  for (uint32_t i = 4; i < n && !r->err; i++) ens__mp_skip(r, 8);
}

void ens__entries_begin(const ens__msg *m, ens__entries_reader *r) {
  r->p = m->bytes;
  r->end = m->bytes + m->nbytes;
  r->next_seq = m->seq;
  r->left = m->count;
}

int ens__entries_next(ens__entries_reader *r, ens__entry_item *item) {
  if (!r->left) return 0;
  ens_mp_reader mr;
  ens__mp_reader_init(&mr, r->p, (size_t)(r->end - r->p));
  s_read_item(&mr, item);
  if (mr.err) { /* not from the decoder: stop rather than read garbage */
    r->left = 0;
    return 0;
  }
  item->seq = r->next_seq++;
  r->p = mr.p;
  r->left--;
  return 1;
}

void ens__entries_start(ens__entries_writer *w, ens_buf *out, uint64_t first_seq) {
  w->out = out;
  w->start = out->len;
  w->count = 0;
  ens__mp_array(out, 3);
  ens__mp_uint(out, ENS_MSG_ENTRIES);
  ens__mp_uint(out, first_seq);
  /* array 32 with its count written at the end */
  ens__buf_putc(out, 0xdd);
  w->count_at = out->len;
  ens__buf_append(out, "\0\0\0\0", 4);
}

void ens__entries_add(ens__entries_writer *w, uint64_t site, uint64_t ctn, const void *txn, size_t len, int has_time,
                      uint64_t time_us) {
  ens__mp_array(w->out, txn ? (has_time ? 4 : 3) : 2);
  ens__mp_uint(w->out, site);
  ens__mp_uint(w->out, ctn);
  if (txn) {
    ens__mp_bin(w->out, txn, len);
    if (has_time) ens__mp_uint(w->out, time_us);
  }
  w->count++;
}

int ens__entries_finish(ens__entries_writer *w) {
  if (w->out->oom) return ens__error(ENS_ENOMEM, "out of memory encoding an entries message");
  unsigned char *c = w->out->data + w->count_at;
  c[0] = (unsigned char)(w->count >> 24);
  c[1] = (unsigned char)(w->count >> 16);
  c[2] = (unsigned char)(w->count >> 8);
  c[3] = (unsigned char)w->count;
  return 0;
}

/* A number as a double: JSON-minded encoders write 3.0 as an integer. */
static double s_read_number(ens_mp_reader *r) {
  ens_mp_item it;
  switch (ens__mp_read(r, &it)) {
  case ENS_MP_FLOAT: return it.v.f;
  case ENS_MP_INT: return (double)it.v.i;
  case ENS_MP_UINT: return (double)it.v.u;
  default: ens__mp_fail(r, "a pointer coordinate is not a number"); return 0;
  }
}

/* presence's pointer: nil, or [x, y, ctx] (later fields skipped). */
static void s_read_pointer(ens_mp_reader *r, ens__msg *m) {
  if (r->p < r->end && *r->p == 0xc0) { /* nil: no pointer */
    r->p++;
    return;
  }
  uint32_t k = ens__mp_read_array(r);
  if (r->err) return;
  if (k < 3) {
    ens__mp_fail(r, "a pointer has fewer than 3 fields");
    return;
  }
  m->px = s_read_number(r);
  m->py = s_read_number(r);
  m->pctx = ens__mp_read_uint(r);
  if (!r->err && (!isfinite(m->px) || !isfinite(m->py))) ens__mp_fail(r, "a pointer that is not a finite point");
  for (uint32_t j = 3; j < k && !r->err; j++) ens__mp_skip(r, 8);
  m->has_pointer = !r->err;
}

static int s_fail(const unsigned char *base, ens_mp_reader *r, int type) {
  return ens__error(ENS_EDECODE, "%s message: %s at byte %zu", ens__msg_name(type), r->why ? r->why : "malformed",
                    (size_t)(r->fail_at - base));
}

int ens__msg_decode(const void *data, size_t len, ens__msg *m) {
  const unsigned char *base = data;
  memset(m, 0, offsetof(ens__msg, sel_buf));
  ens_mp_reader r;
  ens__mp_reader_init(&r, data, len);
  uint32_t n = ens__mp_read_array(&r);
  if (r.err || n == 0) {
    if (!r.err) ens__mp_fail(&r, "empty array");
    return s_fail(base, &r, 0);
  }
  uint64_t type = ens__mp_read_uint(&r);
  if (r.err) return s_fail(base, &r, 0);
  if (type < ENS_MSG_HELLO || type > ENS_MSG_LAST) {
    ens__mp_fail(&r, "unknown message type");
    return s_fail(base, &r, 0);
  }
  m->type = (ens__msg_type)type;
  int nf = s_nfields((int)type);
  if (n < (uint32_t)nf + 1) {
    ens__mp_fail(&r, "too few fields");
    return s_fail(base, &r, (int)type);
  }
  for (int i = 0; i < nf && !r.err; i++) {
    s_field f = s_layout[type][i];
    ens_mp_item it;
    switch (f) {
    case F_CLIENT:
      if (ens__mp_read(&r, &it) != ENS_MP_BIN || it.len != ENS_CLIENT_ID_LEN) ens__mp_fail(&r, "client id is not 16 bytes");
      else memcpy(m->client, it.data, ENS_CLIENT_ID_LEN);
      break;
    case F_BYTES:
      if (ens__mp_read(&r, &it) != ENS_MP_BIN) ens__mp_fail(&r, "expected bytes");
      m->bytes = it.data;
      m->nbytes = it.len;
      break;
    case F_NAME:
    case F_TEXT: {
      uint32_t sl;
      const char *s = ens__mp_read_str(&r, &sl);
      if (!r.err && sl > (f == F_NAME ? ENS_MAX_NAME : ENS_MAX_TEXT)) ens__mp_fail(&r, "string too long");
      m->text = s;
      m->ntext = sl;
      break;
    }
    case F_SEL: {
      uint32_t k = ens__mp_read_array(&r);
      if (!r.err && k > ENS_MAX_SELECTION) ens__mp_fail(&r, "selection too long");
      for (uint32_t j = 0; j < k && !r.err; j++) {
        m->sel_buf[j] = ens__mp_read_uint(&r);
        if (!r.err && m->sel_buf[j] == ENS_ID_NONE) ens__mp_fail(&r, "object id 0");
      }
      m->sel = m->sel_buf;
      m->nsel = r.err ? 0 : k;
      break;
    }
    case F_ITEMS: {
      uint32_t k = ens__mp_read_array(&r);
      const unsigned char *start = r.p;
      for (uint32_t j = 0; j < k && !r.err; j++) s_read_item(&r, NULL);
      m->count = r.err ? 0 : k;
      m->bytes = start;
      m->nbytes = r.err ? 0 : (size_t)(r.p - start);
      break;
    }
    default: *s_num(m, f) = ens__mp_read_uint(&r); break;
    }
  }
  /* additions within version 1, optional */
  uint32_t i = (uint32_t)nf + 1;
  for (int k = 0; k < MAXOPT && s_optional[type][k] != F_END && i < n && !r.err; k++, i++) {
    s_field f = s_optional[type][k];
    *s_num(m, f) = ens__mp_read_uint(&r);
    if (f == F_RECEIVED) m->has_received = !r.err;
    if (f == F_TIME) m->has_time = !r.err;
  }
  if (type == ENS_MSG_PRESENCE && i < n && !r.err) {
    s_read_pointer(&r, m);
    i++;
  }
  if (type == ENS_MSG_WELCOME && i < n && !r.err) { /* the name the server shows this client by */
    uint32_t sl;
    const char *str = ens__mp_read_str(&r, &sl);
    if (!r.err && sl > ENS_MAX_NAME) ens__mp_fail(&r, "name too long");
    m->text = str;
    m->ntext = r.err ? 0 : sl;
    m->has_name = !r.err;
    i++;
  }
  /* later minor additions: extra fields are skipped, not understood */
  for (; i < n && !r.err; i++) ens__mp_skip(&r, 8);
  if (!r.err && r.p != r.end) ens__mp_fail(&r, "trailing bytes");
  if (r.err) return s_fail(base, &r, (int)type);
  return s_check(m);
}
