/* Recognising a Lottie animation by its bytes, and the top-level numbers
 * the renderer needs that rlottie's C interface does not give (its first
 * frame, "ip"). Bounded and non-recursive: it reads untrusted files. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../util/error.h"
#include "ensemble/render.h"
#include "render_int.h"

static size_t s_ws(const char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
  return i;
}

/* Past a string whose opening quote is at i; n when unterminated. */
static size_t s_string_end(const char *s, size_t n, size_t i) {
  for (i++; i < n; i++) {
    if (s[i] == '\\')
      i++;
    else if (s[i] == '"')
      return i + 1;
  }
  return n;
}

/* Past the value starting at i; 0 when it does not end. */
static size_t s_skip_value(const char *s, size_t n, size_t i) {
  if (i >= n) return 0;
  if (s[i] == '"') {
    size_t e = s_string_end(s, n, i);
    return e < n || (e == n && s[n - 1] == '"') ? e : 0;
  }
  if (s[i] != '{' && s[i] != '[') {
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n' && s[i] != '\r' &&
           s[i] != '\t')
      i++;
    return i;
  }
  size_t depth = 0;
  while (i < n) {
    char c = s[i];
    if (c == '"') {
      i = s_string_end(s, n, i);
      continue;
    }
    if (c == '{' || c == '[') depth++;
    if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
    i++;
  }
  return 0;
}

static int s_number(const char *s, size_t a, size_t b, double *out) {
  char buf[64];
  if (b <= a || b - a >= sizeof buf) return -1;
  memcpy(buf, s + a, b - a);
  buf[b - a] = '\0';
  char *end;
  double v = strtod(buf, &end);
  if (*end || end == buf) return -1;
  *out = v;
  return 0;
}

static int s_key_is(const char *s, size_t a, size_t b, const char *k) {
  size_t kl = strlen(k);
  return b - a == kl + 2 && memcmp(s + a + 1, k, kl) == 0;
}

int ens__lottie_scan_top(const char *s, size_t n, ens__lottie_top *t) {
  memset(t, 0, sizeof *t);
  size_t i = 0;
  if (n >= 3 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF) i = 3;
  i = s_ws(s, n, i);
  if (i >= n || s[i] != '{') return -1;
  t->open = i;
  i = s_ws(s, n, i + 1);
  if (i < n && s[i] == '}') return 0;
  for (;;) {
    if (i >= n || s[i] != '"') return -1;
    size_t ka = i, kb = s_string_end(s, n, i);
    if (kb >= n) return -1;
    i = s_ws(s, n, kb);
    if (i >= n || s[i] != ':') return -1;
    size_t va = s_ws(s, n, i + 1), vb = s_skip_value(s, n, va);
    if (!vb) return -1;
    double v;
    int num = s_number(s, va, vb, &v) == 0;
    if (s_key_is(s, ka, kb, "layers")) t->has_layers = s[va] == '[';
    if (s_key_is(s, ka, kb, "v")) t->has_v = 1;
    if (num && s_key_is(s, ka, kb, "fr")) t->has_fr = 1, t->fr = v;
    if (num && s_key_is(s, ka, kb, "ip")) t->has_ip = 1, t->ip = v;
    if (num && s_key_is(s, ka, kb, "op")) t->has_op = 1, t->op = v;
    if (num && s_key_is(s, ka, kb, "w")) t->w = v;
    if (num && s_key_is(s, ka, kb, "h")) t->h = v;
    i = s_ws(s, n, vb);
    if (i < n && s[i] == '}') return 0;
    if (i >= n || s[i] != ',') return -1;
    i = s_ws(s, n, i + 1);
  }
}

int ens__lottie_is_gzip(const void *data, size_t len) {
  const unsigned char *p = data;
  return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

int ens__lottie_gunzip(const void *data, size_t len, size_t max, int partial, char **out, size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return ens__error(ENS_ENOMEM, "cannot start inflating");
  size_t cap = len * 4 < 65536 ? 65536 : len * 4, got = 0;
  if (cap > max) cap = max;
  char *buf = malloc(cap + 1);
  int rc = 0;
  if (!buf) {
    rc = ens__error(ENS_ENOMEM, "out of memory inflating %zu bytes", len);
    goto done;
  }
  z.next_in = (Bytef *)data;
  /* zlib counts in uInt: inputs past 4 GiB are beyond any limit here anyway */
  z.avail_in = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
  for (;;) {
    if (got == cap) {
      if (cap >= max) {
        if (partial) break;
        rc = ens__error(ENS_ELIMIT, "the animation inflates past %zu bytes", max);
        goto done;
      }
      size_t ncap = cap * 2 > max ? max : cap * 2;
      char *nb = realloc(buf, ncap + 1);
      if (!nb) {
        rc = ens__error(ENS_ENOMEM, "out of memory inflating to %zu bytes", ncap);
        goto done;
      }
      buf = nb;
      cap = ncap;
    }
    size_t room = cap - got;
    z.next_out = (Bytef *)buf + got;
    z.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
    int zr = inflate(&z, Z_NO_FLUSH);
    got = (size_t)((char *)z.next_out - buf);
    if (zr == Z_STREAM_END) break;
    if (zr == Z_OK) continue;
    if (zr == Z_BUF_ERROR && z.avail_out == 0) continue;
    if (partial && got) break;
    rc = ens__error(ENS_EDECODE, "the gzip data is damaged (%s)", z.msg ? z.msg : "truncated");
    goto done;
  }
  buf[got] = '\0';
  *out = buf;
  *out_len = got;
  buf = NULL;
done:
  free(buf);
  inflateEnd(&z);
  return rc;
}

int ens_render_is_lottie(const void *data, size_t len) {
  if (!data) return 0;
  if (ens__lottie_is_gzip(data, len)) {
    char *text;
    size_t n;
    if (ens__lottie_gunzip(data, len, 4096, 1, &text, &n) != 0) return 0;
    size_t i = s_ws(text, n, 0);
    int yes = i < n && text[i] == '{';
    free(text);
    return yes;
  }
  ens__lottie_top t;
  if (ens__lottie_scan_top(data, len, &t) != 0) return 0;
  return t.has_layers && t.has_fr && t.has_ip && t.has_op;
}
