/* MessagePack writer and reader (see mpack.h). Multi-byte numbers are
 * big-endian as the specification demands. */
#include "mpack.h"

#include <math.h>
#include <string.h>

static void s_put_be(ens_buf *b, unsigned char tag, uint64_t v, int bytes) {
  unsigned char tmp[9];
  tmp[0] = tag;
  for (int i = 0; i < bytes; i++) tmp[1 + i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
  ens__buf_append(b, tmp, (size_t)bytes + 1);
}

void ens__mp_nil(ens_buf *b) { ens__buf_putc(b, 0xc0); }
void ens__mp_bool(ens_buf *b, int v) { ens__buf_putc(b, v ? 0xc3 : 0xc2); }

void ens__mp_uint(ens_buf *b, uint64_t v) {
  if (v < 128) ens__buf_putc(b, (unsigned char)v);
  else if (v <= 0xff) s_put_be(b, 0xcc, v, 1);
  else if (v <= 0xffff) s_put_be(b, 0xcd, v, 2);
  else if (v <= 0xffffffffULL) s_put_be(b, 0xce, v, 4);
  else s_put_be(b, 0xcf, v, 8);
}

void ens__mp_int(ens_buf *b, int64_t v) {
  if (v >= 0) { ens__mp_uint(b, (uint64_t)v); return; }
  if (v >= -32) ens__buf_putc(b, (unsigned char)(0xe0 | (v + 32)));
  else if (v >= INT8_MIN) s_put_be(b, 0xd0, (uint64_t)v & 0xff, 1);
  else if (v >= INT16_MIN) s_put_be(b, 0xd1, (uint64_t)v & 0xffff, 2);
  else if (v >= INT32_MIN) s_put_be(b, 0xd2, (uint64_t)v & 0xffffffffULL, 4);
  else s_put_be(b, 0xd3, (uint64_t)v, 8);
}

void ens__mp_double(ens_buf *b, double v) {
  /* a float32 when it holds the value exactly: half the bytes, same value */
  float f = (float)v;
  if ((double)f == v && (v != 0.0 || !signbit(v)) && f == f) {
    uint32_t fb;
    memcpy(&fb, &f, 4);
    s_put_be(b, 0xca, fb, 4);
    return;
  }
  uint64_t bits;
  memcpy(&bits, &v, 8);
  s_put_be(b, 0xcb, bits, 8);
}

static void s_put_len(ens_buf *b, uint32_t n, unsigned char fix, unsigned char fixmax,
                      unsigned char t8, unsigned char t16, unsigned char t32) {
  if (fix && n <= fixmax) ens__buf_putc(b, (unsigned char)(fix | n));
  else if (t8 && n <= 0xff) s_put_be(b, t8, n, 1);
  else if (n <= 0xffff) s_put_be(b, t16, n, 2);
  else s_put_be(b, t32, n, 4);
}

void ens__mp_str(ens_buf *b, const char *s, size_t n) {
  s_put_len(b, (uint32_t)n, 0xa0, 31, 0xd9, 0xda, 0xdb);
  ens__buf_append(b, s, n);
}

void ens__mp_bin(ens_buf *b, const void *p, size_t n) {
  s_put_len(b, (uint32_t)n, 0, 0, 0xc4, 0xc5, 0xc6);
  ens__buf_append(b, p, n);
}

void ens__mp_array(ens_buf *b, uint32_t n) { s_put_len(b, n, 0x90, 15, 0, 0xdc, 0xdd); }
void ens__mp_map(ens_buf *b, uint32_t n) { s_put_len(b, n, 0x80, 15, 0, 0xde, 0xdf); }

void ens__mp_ext(ens_buf *b, int8_t type, const void *p, uint32_t n) {
  switch (n) {
  case 1: ens__buf_putc(b, 0xd4); break;
  case 2: ens__buf_putc(b, 0xd5); break;
  case 4: ens__buf_putc(b, 0xd6); break;
  case 8: ens__buf_putc(b, 0xd7); break;
  case 16: ens__buf_putc(b, 0xd8); break;
  default: s_put_len(b, n, 0, 0, 0xc7, 0xc8, 0xc9); break;
  }
  ens__buf_putc(b, (unsigned char)type);
  ens__buf_append(b, p, n);
}

void ens__mp_fail(ens_mp_reader *r, const char *why) {
  if (!r->err) {
    r->why = why;
    r->fail_at = r->item;
  }
  r->err = 1;
  r->p = r->end; /* every later read fails at once */
}

static int s_need(ens_mp_reader *r, size_t n) {
  if ((size_t)(r->end - r->p) < n) {
    ens__mp_fail(r, "truncated");
    return 0;
  }
  return 1;
}

static uint64_t s_be(ens_mp_reader *r, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v = (v << 8) | r->p[i];
  r->p += bytes;
  return v;
}

static ens_mp_type s_payload(ens_mp_reader *r, ens_mp_item *it, ens_mp_type t, uint64_t len) {
  if (!s_need(r, len)) return it->type = ENS_MP_ERROR;
  it->data = r->p;
  it->len = (uint32_t)len;
  r->p += len;
  return it->type = t;
}

ens_mp_type ens__mp_read(ens_mp_reader *r, ens_mp_item *it) {
  it->data = NULL;
  it->len = 0;
  if (!r->err) r->item = r->p;
  if (r->err || !s_need(r, 1)) return it->type = ENS_MP_ERROR;
  unsigned char c = *r->p++;
  if (c <= 0x7f) { it->v.i = c; return it->type = ENS_MP_INT; }
  if (c >= 0xe0) { it->v.i = (int8_t)c; return it->type = ENS_MP_INT; }
  if ((c & 0xf0) == 0x80) { it->v.n = c & 0x0f; return it->type = ENS_MP_MAP; }
  if ((c & 0xf0) == 0x90) { it->v.n = c & 0x0f; return it->type = ENS_MP_ARRAY; }
  if ((c & 0xe0) == 0xa0) return s_payload(r, it, ENS_MP_STR, c & 0x1f);
  int w;
  switch (c) {
  case 0xc0: return it->type = ENS_MP_NIL;
  case 0xc2: it->v.b = 0; return it->type = ENS_MP_BOOL;
  case 0xc3: it->v.b = 1; return it->type = ENS_MP_BOOL;
  case 0xc4: case 0xc5: case 0xc6:
    w = c == 0xc4 ? 1 : c == 0xc5 ? 2 : 4;
    if (!s_need(r, (size_t)w)) break;
    return s_payload(r, it, ENS_MP_BIN, s_be(r, w));
  case 0xd9: case 0xda: case 0xdb:
    w = c == 0xd9 ? 1 : c == 0xda ? 2 : 4;
    if (!s_need(r, (size_t)w)) break;
    return s_payload(r, it, ENS_MP_STR, s_be(r, w));
  case 0xc7: case 0xc8: case 0xc9: {
    w = c == 0xc7 ? 1 : c == 0xc8 ? 2 : 4;
    if (!s_need(r, (size_t)w + 1)) break;
    uint64_t n = s_be(r, w);
    it->ext_type = (int8_t)*r->p++;
    return s_payload(r, it, ENS_MP_EXT, n);
  }
  case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
    if (!s_need(r, 1)) break;
    it->ext_type = (int8_t)*r->p++;
    return s_payload(r, it, ENS_MP_EXT, 1u << (c - 0xd4));
  case 0xca: {
    if (!s_need(r, 4)) break;
    uint32_t bits = (uint32_t)s_be(r, 4);
    float f;
    memcpy(&f, &bits, 4);
    it->v.f = f;
    return it->type = ENS_MP_FLOAT;
  }
  case 0xcb: {
    if (!s_need(r, 8)) break;
    uint64_t bits = s_be(r, 8);
    memcpy(&it->v.f, &bits, 8);
    return it->type = ENS_MP_FLOAT;
  }
  case 0xcc: case 0xcd: case 0xce: case 0xcf: {
    w = 1 << (c - 0xcc);
    if (!s_need(r, (size_t)w)) break;
    uint64_t u = s_be(r, w);
    if (u > (uint64_t)INT64_MAX) { it->v.u = u; return it->type = ENS_MP_UINT; }
    it->v.i = (int64_t)u;
    return it->type = ENS_MP_INT;
  }
  case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
    w = 1 << (c - 0xd0);
    if (!s_need(r, (size_t)w)) break;
    uint64_t u = s_be(r, w);
    /* sign-extend through unsigned arithmetic (no UB on shifts) */
    uint64_t sign = (uint64_t)1 << (8 * w - 1);
    int64_t v = (int64_t)((u ^ sign) - sign);
    it->v.i = v;
    return it->type = ENS_MP_INT;
  }
  case 0xdc: case 0xdd:
    w = c == 0xdc ? 2 : 4;
    if (!s_need(r, (size_t)w)) break;
    it->v.n = (uint32_t)s_be(r, w);
    return it->type = ENS_MP_ARRAY;
  case 0xde: case 0xdf:
    w = c == 0xde ? 2 : 4;
    if (!s_need(r, (size_t)w)) break;
    it->v.n = (uint32_t)s_be(r, w);
    return it->type = ENS_MP_MAP;
  default:
    ens__mp_fail(r, "reserved type byte");
    break;
  }
  return it->type = ENS_MP_ERROR;
}

void ens__mp_skip(ens_mp_reader *r, int depth) {
  ens_mp_item it;
  ens_mp_type t = ens__mp_read(r, &it);
  if (t != ENS_MP_ARRAY && t != ENS_MP_MAP) return;
  if (depth <= 0) { ens__mp_fail(r, "nested too deeply"); return; }
  uint64_t n = t == ENS_MP_MAP ? 2ull * it.v.n : it.v.n;
  /* each element takes at least one byte: a count beyond the input is a lie */
  if (n > (uint64_t)(r->end - r->p)) { ens__mp_fail(r, "count exceeds input"); return; }
  for (uint64_t i = 0; i < n && !r->err; i++) ens__mp_skip(r, depth - 1);
}

static uint32_t s_read_count(ens_mp_reader *r, ens_mp_type want, const char *why) {
  ens_mp_item it;
  if (ens__mp_read(r, &it) != want) { ens__mp_fail(r, why); return 0; }
  uint64_t min_bytes = want == ENS_MP_MAP ? 2ull * it.v.n : it.v.n;
  if (min_bytes > (uint64_t)(r->end - r->p)) { ens__mp_fail(r, "count exceeds input"); return 0; }
  return it.v.n;
}

uint32_t ens__mp_read_array(ens_mp_reader *r) { return s_read_count(r, ENS_MP_ARRAY, "expected an array"); }
uint32_t ens__mp_read_map(ens_mp_reader *r) { return s_read_count(r, ENS_MP_MAP, "expected a map"); }

int64_t ens__mp_read_int(ens_mp_reader *r) {
  ens_mp_item it;
  if (ens__mp_read(r, &it) != ENS_MP_INT) { ens__mp_fail(r, "expected an integer"); return 0; }
  return it.v.i;
}

uint64_t ens__mp_read_uint(ens_mp_reader *r) {
  ens_mp_item it;
  ens_mp_type t = ens__mp_read(r, &it);
  if (t == ENS_MP_UINT) return it.v.u;
  if (t != ENS_MP_INT || it.v.i < 0) { ens__mp_fail(r, "expected a non-negative integer"); return 0; }
  return (uint64_t)it.v.i;
}

const char *ens__mp_read_str(ens_mp_reader *r, uint32_t *len) {
  ens_mp_item it;
  if (ens__mp_read(r, &it) != ENS_MP_STR) { ens__mp_fail(r, "expected a string"); *len = 0; return NULL; }
  *len = it.len;
  return (const char *)it.data;
}
