/* Session messages to and from MessagePack (docs/protocol.md). The layouts
 * live in one table so the encoder and the decoder cannot disagree: each
 * type lists its fields in wire order. */
#include "msg.h"

#include <string.h>

#include "../util/error.h"
#include "../util/mpack.h"

typedef enum {
  F_END = 0,
  F_VMIN, F_VMAX, F_VERSION, F_EPOCH, F_SEQ, F_SITE, F_CTN, F_MODE, F_WINDOW, F_HEARTBEAT, F_MAXMSG,
  F_INDEX, F_COUNT, F_CODE, F_COLOUR, F_TOKEN,
  F_CLIENT, /* bin 16 */
  F_BYTES,  /* bin */
  F_NAME,   /* str <= ENS_MAX_NAME */
  F_TEXT,   /* str <= ENS_MAX_TEXT */
  F_SEL     /* array of ids */
} s_field;

#define MAXF 10
static const s_field s_layout[13][MAXF] = {
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
};

const char *ens__msg_name(int type) {
  static const char *names[] = {"?",    "hello",    "welcome", "snapshot", "entry", "txn", "ack",
                                "reject", "presence", "bye",     "ping",     "pong",  "error"};
  return type > 0 && type <= ENS_MSG_ERROR ? names[type] : "?";
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
  default: return NULL;
  }
}

static int s_nfields(int type) {
  int n = 0;
  while (n < MAXF && s_layout[type][n] != F_END) n++;
  return n;
}

int ens__msg_encode(const ens__msg *m, ens_buf *out) {
  int type = (int)m->type;
  if (type < ENS_MSG_HELLO || type > ENS_MSG_ERROR) return ens__error(ENS_EINVAL, "unknown message type %d", type);
  int n = s_nfields(type);
  /* optional additions within version 1: ping's received, a change's time */
  int extra = (type == ENS_MSG_PING && m->has_received) ||
              ((type == ENS_MSG_TXN || type == ENS_MSG_ENTRY) && m->has_time);
  ens__mp_array(out, (uint32_t)(n + 1 + extra));
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
    default: ens__mp_uint(out, *s_num((ens__msg *)m, f)); break;
    }
  }
  if (extra) ens__mp_uint(out, type == ENS_MSG_PING ? m->received : m->time_us);
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
  if (type < ENS_MSG_HELLO || type > ENS_MSG_ERROR) {
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
    default: *s_num(m, f) = ens__mp_read_uint(&r); break;
    }
  }
  /* additions within version 1, optional: ping's received, a change's time */
  uint32_t i = (uint32_t)nf + 1;
  if (type == ENS_MSG_PING && i < n && !r.err) {
    m->received = ens__mp_read_uint(&r);
    m->has_received = !r.err;
    i++;
  } else if ((type == ENS_MSG_TXN || type == ENS_MSG_ENTRY) && i < n && !r.err) {
    m->time_us = ens__mp_read_uint(&r);
    m->has_time = !r.err;
    i++;
  }
  /* later minor additions: extra fields are skipped, not understood */
  for (; i < n && !r.err; i++) ens__mp_skip(&r, 8);
  if (!r.err && r.p != r.end) ens__mp_fail(&r, "trailing bytes");
  if (r.err) return s_fail(base, &r, (int)type);
  return s_check(m);
}
