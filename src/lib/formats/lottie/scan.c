/* The strict JSON scanner of the Lottie reader (RFC 8259: UTF-8, no
 * trailing commas, no lone surrogate escapes) that cuts the text into
 * values with their exact byte spans, and the decoding of one value that
 * the reader and the writer share, so that "unchanged" means exactly
 * "reads back as the same value". */
#define _GNU_SOURCE
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "../../util/utf8.h"
#include "lottie_int.h"

void ens__lj_where(const char *text, const char *p, uint32_t *line, uint32_t *col) {
  uint32_t l = 1, c = 1;
  for (const char *q = text; q < p; q++) {
    if (*q == '\n') {
      l++;
      c = 1;
    } else if (((unsigned char)*q & 0xc0) != 0x80) {
      c++;
    }
  }
  *line = l;
  *col = c;
}

typedef struct {
  const char *text, *p, *end;
  int tmpl;
  ens__lj_nodes *nodes;
} s_scan;

static int s_err(s_scan *s, const char *at, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int s_err(s_scan *s, const char *at, int code, const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  uint32_t line, col;
  ens__lj_where(s->text, at, &line, &col);
  return ens__error(code, "line %u, column %u: %s", line, col, msg);
}

static int s_hex4(const char *p, const char *end, uint32_t *v) {
  if (end - p < 4) return -1;
  uint32_t x = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    x <<= 4;
    if (c >= '0' && c <= '9') x |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f') x |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') x |= (uint32_t)(c - 'A' + 10);
    else return -1;
  }
  *v = x;
  return 0;
}

/* A string at s->p ('"'); s->p ends past its closing quote. */
static int s_string(s_scan *s) {
  const char *start = s->p, *p = s->p + 1, *end = s->end;
  for (;;) {
    while (p < end && (unsigned char)*p >= 0x20 && *p != '"' && *p != '\\' && (unsigned char)*p < 0x80) p++;
    if (p >= end) return s_err(s, start, ENS_EDECODE, "the text ends inside this string");
    unsigned char c = (unsigned char)*p;
    if (c == '"') break;
    if (c < 0x20)
      return s_err(s, p, ENS_EDECODE, "a control character (U+%04X) inside a string, which JSON writes as an escape", c);
    if (c == '\\') {
      if (p + 1 >= end) return s_err(s, start, ENS_EDECODE, "the text ends inside this string");
      char e = p[1];
      if (e == 'u') {
        uint32_t u, u2;
        if (s_hex4(p + 2, end, &u)) return s_err(s, p, ENS_EDECODE, "\\u must be followed by four hex digits");
        if (u >= 0xdc00 && u <= 0xdfff)
          return s_err(s, p, ENS_EDECODE, "\\u%04X is the second half of a surrogate pair, alone: no UTF-8 text holds it", u);
        if (u >= 0xd800 && u <= 0xdbff) {
          if (end - p < 12 || p[6] != '\\' || p[7] != 'u' || s_hex4(p + 8, end, &u2) || u2 < 0xdc00 || u2 > 0xdfff)
            return s_err(s, p, ENS_EDECODE, "\\u%04X is the first half of a surrogate pair, alone: no UTF-8 text holds it", u);
          p += 12;
        } else {
          p += 6;
        }
        continue;
      }
      if (!strchr("\"\\/bfnrt", e) || !e)
        return s_err(s, p, ENS_EDECODE, "'\\%c' is no escape of JSON (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                     e >= 0x20 && e < 0x7f ? e : '?');
      p += 2;
      continue;
    }
    size_t i = 0;
    if (ens__utf8_next(p, (size_t)(end - p), &i) < 0)
      return s_err(s, p, ENS_EDECODE, "bytes that are not UTF-8, which JSON text is written in");
    p += i;
  }
  s->p = p + 1;
  return 0;
}

static double s_strtod(const char *s, size_t n);

static int s_digits(const char *p, const char *end) {
  const char *q = p;
  while (q < end && *q >= '0' && *q <= '9') q++;
  return (int)(q - p);
}

static int s_number(s_scan *s) {
  const char *start = s->p, *p = s->p, *end = s->end;
  if (*p == '-') p++;
  int d = s_digits(p, end);
  if (!d) return s_err(s, p, ENS_EDECODE, "a digit expected in this number");
  if (d > 1 && *p == '0') return s_err(s, p, ENS_EDECODE, "a number with a leading zero, which JSON does not allow");
  p += d;
  if (p < end && *p == '.') {
    p++;
    if (!(d = s_digits(p, end))) return s_err(s, p, ENS_EDECODE, "a digit expected after the decimal point");
    p += d;
  }
  int exp = p < end && (*p == 'e' || *p == 'E');
  if (exp) {
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (!(d = s_digits(p, end))) return s_err(s, p, ENS_EDECODE, "a digit expected in this number's exponent");
    p += d;
  }
  if (p - start > ENS_LOTTIE_MAX_NUMBER)
    return s_err(s, start, ENS_ELIMIT, "a number of %zu characters, over the limit of %d", (size_t)(p - start),
                 ENS_LOTTIE_MAX_NUMBER);
  /* only an exponent or over 300 digits can go past a double's range;
   * such a number could be kept but never edited, so it is refused */
  if ((exp || p - start > 300) && !isfinite(s_strtod(start, (size_t)(p - start))))
    return s_err(s, start, ENS_ELIMIT, "a number beyond the range of a double (about 1.8e308)");
  s->p = p;
  return 0;
}

static void s_skip_ws(s_scan *s) {
  while (s->p < s->end && ens__lj_ws(*s->p)) s->p++;
}

static int s_node(s_scan *s, uint8_t type, uint32_t parent, uint32_t *last_kid, const char *key, size_t key_n,
                  uint32_t *idx) {
  ens__lj_nodes *ns = s->nodes;
  *idx = ENS__LJ_NONE;
  if (!ns) return 0;
  if (ns->n >= UINT32_MAX - 2) return s_err(s, s->p, ENS_ELIMIT, "too many values");
  if (ns->n == ns->cap) {
    size_t nc = ns->cap ? ns->cap * 2 : 256;
    ens__lj_node *nv = realloc(ns->v, nc * sizeof *nv);
    if (!nv) return ens__error(ENS_ENOMEM, "out of memory reading JSON");
    ns->v = nv;
    ns->cap = nc;
  }
  uint32_t i = (uint32_t)ns->n++;
  ens__lj_node *n = &ns->v[i];
  memset(n, 0, sizeof *n);
  n->parent = parent;
  n->next = n->first = ENS__LJ_NONE;
  n->type = type;
  n->s = s->p;
  n->key = key;
  n->key_n = key_n;
  if (parent != ENS__LJ_NONE) {
    ens__lj_node *pn = &ns->v[parent];
    if (*last_kid != ENS__LJ_NONE) ns->v[*last_kid].next = i;
    else pn->first = i;
    pn->nkids++;
    if (type == LJ_OBJ) pn->nobjs++;
  }
  *last_kid = i;
  *idx = i;
  return 0;
}

typedef struct {
  uint32_t node, last;
  uint8_t obj;
  const char *at;
} s_open;

int ens__lj_scan(const char *text, size_t len, int template_, ens__lj_nodes *nodes) {
  s_scan s = {text, text, text + len, template_, nodes};
  s_open *stack = malloc(sizeof(s_open) * (ENS_LOTTIE_MAX_DEPTH + 1));
  if (!stack) return ens__error(ENS_ENOMEM, "out of memory reading JSON");
  size_t depth = 0;
  int rc = 0;
  uint32_t top_last = ENS__LJ_NONE;
  const char *key = NULL;
  size_t key_n = 0;
  if (len >= 3 && (unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb && (unsigned char)text[2] == 0xbf) {
    rc = s_err(&s, text, ENS_EDECODE, "a byte order mark, which JSON text does not begin with (RFC 8259)");
    goto done;
  }
  for (;;) {
    /* a value */
    s_skip_ws(&s);
    if (s.p >= s.end) {
      rc = s_err(&s, s.p, ENS_EDECODE, depth ? "the text ends where a value should be" : "no JSON value (the text is empty)");
      goto done;
    }
    char c = *s.p;
    uint32_t parent = depth ? stack[depth - 1].node : ENS__LJ_NONE;
    uint32_t *last = depth ? &stack[depth - 1].last : &top_last;
    uint32_t idx;
    uint8_t type = c == '{' ? LJ_OBJ : c == '[' ? LJ_ARR : c == '"' ? LJ_STR : (c == '-' || (c >= '0' && c <= '9')) ? LJ_NUM
                 : c == 't' ? LJ_TRUE : c == 'f' ? LJ_FALSE : LJ_NULL;
    if (c == '@' && s.tmpl) type = LJ_NULL;
    if ((rc = s_node(&s, type, parent, last, key, key_n, &idx))) goto done;
    key = NULL;
    if (c == '{' || c == '[') {
      if (depth >= ENS_LOTTIE_MAX_DEPTH) {
        rc = s_err(&s, s.p, ENS_ELIMIT, "arrays and objects nested deeper than %d", ENS_LOTTIE_MAX_DEPTH);
        goto done;
      }
      stack[depth++] = (s_open){idx, ENS__LJ_NONE, (uint8_t)(c == '{'), s.p};
      s.p++;
      s_skip_ws(&s);
      if (s.p < s.end && *s.p == (c == '{' ? '}' : ']')) goto close;
      if (c == '[') continue;
      goto member;
    }
    if (c == '"') rc = s_string(&s);
    else if (type == LJ_NUM) rc = s_number(&s);
    else if (c == '@' && s.tmpl) s.p++;
    else {
      const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
      size_t wn = strlen(w);
      if ((c != 't' && c != 'f' && c != 'n') || (size_t)(s.end - s.p) < wn || memcmp(s.p, w, wn) != 0) {
        if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
          rc = s_err(&s, s.p, ENS_EDECODE, "byte 0x%02X where a value should be", (unsigned char)c);
        else
          rc = s_err(&s, s.p, ENS_EDECODE, "'%c' where a value should be (a string, number, object, array, true, false "
                                          "or null)", c);
      } else {
        s.p += wn;
      }
    }
    if (rc) goto done;
    if (idx != ENS__LJ_NONE) nodes->v[idx].n = (size_t)(s.p - nodes->v[idx].s);
  after:
    /* after a value: the end, a comma, or the end of its container */
    s_skip_ws(&s);
    if (!depth) {
      if (s.p < s.end) rc = s_err(&s, s.p, ENS_EDECODE, "text after the end of the JSON value");
      goto done;
    }
    if (s.p >= s.end) {
      rc = s_err(&s, stack[depth - 1].at, ENS_EDECODE, "this %s is never closed (the text ends inside it)",
                 stack[depth - 1].obj ? "object" : "array");
      goto done;
    }
    if (*s.p == ',') {
      s.p++;
      if (!stack[depth - 1].obj) continue;
      goto member;
    }
    if (*s.p != (stack[depth - 1].obj ? '}' : ']')) {
      rc = s_err(&s, s.p, ENS_EDECODE, "',' or '%c' expected after a %s", stack[depth - 1].obj ? '}' : ']',
                 stack[depth - 1].obj ? "member" : "value in an array");
      goto done;
    }
  close:
    s.p++;
    depth--;
    if (nodes) nodes->v[stack[depth].node].n = (size_t)(s.p - nodes->v[stack[depth].node].s);
    goto after;
  member:
    s_skip_ws(&s);
    if (s.p >= s.end || *s.p != '"') {
      rc = s.p >= s.end ? s_err(&s, stack[depth - 1].at, ENS_EDECODE, "this object is never closed (the text ends inside it)")
                        : s_err(&s, s.p, ENS_EDECODE, "a member name (a string in double quotes) expected");
      goto done;
    }
    key = s.p;
    if ((rc = s_string(&s))) goto done;
    key_n = (size_t)(s.p - key);
    s_skip_ws(&s);
    if (s.p >= s.end || *s.p != ':') {
      rc = s_err(&s, s.p, ENS_EDECODE, "':' expected after the member name");
      goto done;
    }
    s.p++;
  }
done:
  free(stack);
  return rc;
}

const char *ens__lj_skip(const char *p, const char *end) {
  if (p >= end) return NULL;
  if (*p == '@') return p + 1;
  size_t depth = 0;
  do {
    if (p >= end) return NULL;
    char c = *p;
    if (c == '"') {
      for (p++; p < end && *p != '"'; p++)
        if (*p == '\\') p++;
      if (p >= end) return NULL;
      p++;
    } else if (c == '{' || c == '[') {
      depth++;
      p++;
    } else if (c == '}' || c == ']') {
      if (!depth) return NULL;
      depth--;
      p++;
    } else if (depth) {
      p++;
    } else {
      const char *q = p;
      while (q < end && !ens__lj_ws(*q) && *q != ',' && *q != '}' && *q != ']' && *q != ':') q++;
      return q == p ? NULL : q;
    }
  } while (depth);
  return p;
}

static void s_put_utf8(ens_buf *b, uint32_t u) {
  unsigned char t[4];
  size_t n;
  if (u < 0x80) t[0] = (unsigned char)u, n = 1;
  else if (u < 0x800) t[0] = (unsigned char)(0xc0 | (u >> 6)), t[1] = (unsigned char)(0x80 | (u & 0x3f)), n = 2;
  else if (u < 0x10000)
    t[0] = (unsigned char)(0xe0 | (u >> 12)), t[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3f)),
    t[2] = (unsigned char)(0x80 | (u & 0x3f)), n = 3;
  else
    t[0] = (unsigned char)(0xf0 | (u >> 18)), t[1] = (unsigned char)(0x80 | ((u >> 12) & 0x3f)),
    t[2] = (unsigned char)(0x80 | ((u >> 6) & 0x3f)), t[3] = (unsigned char)(0x80 | (u & 0x3f)), n = 4;
  ens__buf_append(b, t, n);
}

int ens__lj_unescape(const char *s, size_t n, ens_buf *out) {
  const char *p = s + 1, *end = s + (n ? n - 1 : 0);
  while (p < end) {
    const char *q = p;
    while (q < end && *q != '\\') q++;
    if (q > p) ens__buf_append(out, p, (size_t)(q - p));
    p = q;
    if (p >= end) break;
    if (p + 1 >= end) break;
    char e = p[1];
    uint32_t u = 0, u2 = 0;
    switch (e) {
    case 'b': ens__buf_putc(out, '\b'); p += 2; break;
    case 'f': ens__buf_putc(out, '\f'); p += 2; break;
    case 'n': ens__buf_putc(out, '\n'); p += 2; break;
    case 'r': ens__buf_putc(out, '\r'); p += 2; break;
    case 't': ens__buf_putc(out, '\t'); p += 2; break;
    case 'u':
      if (s_hex4(p + 2, end, &u)) return ens__error(ENS_EDECODE, "a bad \\u escape");
      p += 6;
      if (u >= 0xd800 && u <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u' && !s_hex4(p + 2, end, &u2) &&
          u2 >= 0xdc00 && u2 <= 0xdfff) {
        u = 0x10000 + ((u - 0xd800) << 10) + (u2 - 0xdc00);
        p += 6;
      }
      s_put_utf8(out, u);
      break;
    default: ens__buf_putc(out, (unsigned char)e); p += 2; break;
    }
  }
  return out->oom ? ens__error(ENS_ENOMEM, "out of memory reading JSON") : 0;
}

static locale_t s_c_locale;
static pthread_once_t s_c_once = PTHREAD_ONCE_INIT;
static void s_c_init(void) { s_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static double s_strtod(const char *s, size_t n) {
  char tmp[ENS_LOTTIE_MAX_NUMBER + 64];
  if (n >= sizeof tmp) n = sizeof tmp - 1;
  memcpy(tmp, s, n);
  tmp[n] = 0;
  pthread_once(&s_c_once, s_c_init);
  return s_c_locale ? strtod_l(tmp, NULL, s_c_locale) : strtod(tmp, NULL);
}

int ens__lj_value(const char *s, size_t n, ens_buf *scratch, ens_value *out) {
  if (!n) {
    *out = ens_bytes(s, 0);
    return 0;
  }
  char c = s[0];
  if (c == '"') {
    scratch->len = 0;
    int rc = ens__lj_unescape(s, n, scratch);
    if (rc) return rc;
    if (!ens__buf_room(scratch, 1)) return ens__error(ENS_ENOMEM, "out of memory reading JSON");
    scratch->data[scratch->len] = 0;
    *out = ens_strn((const char *)scratch->data, scratch->len);
    return 0;
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    int integral = !memchr(s, '.', n) && !memchr(s, 'e', n) && !memchr(s, 'E', n);
    if (integral) {
      size_t i = c == '-';
      uint64_t v = 0;
      int over = 0;
      for (; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) over = 1;
        v = v * 10 + d;
      }
      uint64_t lim = c == '-' ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
      if (!over && v <= lim) {
        *out = ens_int(c == '-' ? (int64_t)(0 - v) : (int64_t)v);
        return 0;
      }
    }
    *out = ens_real(s_strtod(s, n));
    return 0;
  }
  if (n == 4 && memcmp(s, "true", 4) == 0) {
    *out = ens_bool(1);
    return 0;
  }
  if (n == 5 && memcmp(s, "false", 5) == 0) {
    *out = ens_bool(0);
    return 0;
  }
  *out = ens_bytes(s, n);
  return 0;
}

int ens__lj_canon(const char *s, size_t n, ens_buf *out) {
  const char *p = s, *end = s + n;
  ens_buf tmp = ENS_BUF_INIT;
  int rc = 0;
  while (p < end && !rc) {
    char c = *p;
    if (ens__lj_ws(c)) {
      p++;
    } else if (c == '"') {
      const char *q = ens__lj_skip(p, end);
      if (!q) {
        rc = ens__error(ENS_EDECODE, "a string cut short");
        break;
      }
      tmp.len = 0;
      rc = ens__lj_unescape(p, (size_t)(q - p), &tmp);
      if (!rc) ens__lj_put_string(out, (const char *)tmp.data, tmp.len);
      p = q;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const char *q = p;
      while (q < end && !ens__lj_ws(*q) && *q != ',' && *q != ']' && *q != '}') q++;
      ens_value v;
      rc = ens__lj_value(p, (size_t)(q - p), &tmp, &v);
      if (!rc) rc = ens__lj_put_value(out, &v);
      p = q;
    } else {
      ens__buf_putc(out, (unsigned char)c);
      p++;
    }
  }
  ens__buf_free(&tmp);
  if (!rc && out->oom) rc = ens__error(ENS_ENOMEM, "out of memory reading JSON");
  return rc;
}

int ens__lj_same(const char *s, size_t n, const ens_value *v, ens_buf *scratch) {
  ens_value w;
  if (n && s[0] == '[') {
    /* an array's value is its canonical text */
    if (v->type != ENS_BYTES) return 0;
    scratch->len = 0;
    if (ens__lj_canon(s, n, scratch)) return 0;
    return scratch->len == v->u.s.len && memcmp(scratch->data, v->u.s.ptr, scratch->len) == 0;
  }
  if (ens__lj_value(s, n, scratch, &w)) return 0;
  if (w.type != v->type) return 0;
  switch (w.type) {
  case ENS_INT: return w.u.i == v->u.i;
  case ENS_REAL: return memcmp(&w.u.r, &v->u.r, sizeof w.u.r) == 0;
  case ENS_BOOL: return !w.u.b == !v->u.b;
  case ENS_STR:
  case ENS_BYTES: return w.u.s.len == v->u.s.len && (!w.u.s.len || memcmp(w.u.s.ptr, v->u.s.ptr, w.u.s.len) == 0);
  default: return 0;
  }
}

void ens__lj_put_string(ens_buf *out, const char *s, size_t n) {
  ens__buf_putc(out, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    if (i > run) ens__buf_append(out, s + run, i - run);
    run = i + 1;
    switch (c) {
    case '"': ens__buf_puts(out, "\\\""); break;
    case '\\': ens__buf_puts(out, "\\\\"); break;
    case '\n': ens__buf_puts(out, "\\n"); break;
    case '\r': ens__buf_puts(out, "\\r"); break;
    case '\t': ens__buf_puts(out, "\\t"); break;
    case '\b': ens__buf_puts(out, "\\b"); break;
    case '\f': ens__buf_puts(out, "\\f"); break;
    default: ens__buf_printf(out, "\\u%04x", c); break;
    }
  }
  if (n > run) ens__buf_append(out, s + run, n - run);
  ens__buf_putc(out, '"');
}

int ens__lj_put_value(ens_buf *out, const ens_value *v) {
  switch (v->type) {
  case ENS_INT: ens__buf_printf(out, "%lld", (long long)v->u.i); return 0;
  case ENS_REAL: {
    if (!isfinite(v->u.r)) return ens__error(ENS_EFORMAT, "JSON has no number %g", v->u.r);
    char b[64];
    for (int prec = 15; prec <= 17; prec++) {
      snprintf(b, sizeof b, "%.*g", prec, v->u.r);
      if (s_strtod(b, strlen(b)) == v->u.r) break;
    }
    /* the writer's locale must not put a comma in a number */
    for (char *q = b; *q; q++)
      if (*q == ',') *q = '.';
    ens__buf_puts(out, b);
    return 0;
  }
  case ENS_BOOL: ens__buf_puts(out, v->u.b ? "true" : "false"); return 0;
  case ENS_STR: ens__lj_put_string(out, v->u.s.ptr, v->u.s.len); return 0;
  case ENS_BYTES: ens__buf_append(out, v->u.s.ptr, v->u.s.len); return 0;
  default: return ens__error(ENS_EFORMAT, "JSON cannot hold a value of type %d", (int)v->type);
  }
}

size_t ens__lj_prop_key(const char *s, size_t n, char *buf) {
  int esc = !n || s[0] == '~' || s[0] == '@' || s[0] == '%';
  if (n + (size_t)esc >= ENS_MAX_KEY || memchr(s, 0, n)) return 0;
  size_t k = 0;
  if (esc) buf[k++] = '%';
  memcpy(buf + k, s, n);
  buf[k + n] = 0;
  return k + n;
}

const char *ens__lj_member_name(const char *key) {
  if (key[0] == '~') return NULL;
  if (key[0] != '%') return key;
  /* only a name that needs it is held so, or two keys would name one member */
  if (key[1] == 0 || key[1] == '~' || key[1] == '@' || key[1] == '%') return key + 1;
  return NULL;
}

int ens__lj_promote_array(const char *key, size_t key_n, uint32_t nkids, uint32_t nobjs) {
  if (nkids) return nobjs == nkids;
  static const char *const lists[] = {"layers", "assets", "markers", "shapes", "it", "ef", "masksProperties"};
  if (!key) return 0;
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    if (strlen(lists[i]) == key_n && memcmp(lists[i], key, key_n) == 0) return 1;
  return 0;
}
