/* Character data as XML means it: line ends normalised, references
 * replaced, attribute blanks turned into spaces, internal entities
 * expanded in attribute values within a budget. And the way back, for
 * values that changed. */
#include <stdlib.h>
#include <string.h>

#include "svg_int.h"

#define S_MAX_ENT_DEPTH 32

const ens__svg_ent *ens__svg_ent_find(const ens__svg_ents *t, const char *name, size_t n) {
  if (!t) return NULL;
  for (size_t i = 0; i < t->n; i++)
    if (t->v[i].name_n == n && memcmp(t->v[i].name, name, n) == 0) return &t->v[i];
  return NULL;
}

static void s_utf8(ens_buf *out, uint32_t c) {
  unsigned char b[4];
  size_t k;
  if (c < 0x80) {
    b[0] = (unsigned char)c;
    k = 1;
  } else if (c < 0x800) {
    b[0] = (unsigned char)(0xc0 | (c >> 6));
    b[1] = (unsigned char)(0x80 | (c & 0x3f));
    k = 2;
  } else if (c < 0x10000) {
    b[0] = (unsigned char)(0xe0 | (c >> 12));
    b[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
    b[2] = (unsigned char)(0x80 | (c & 0x3f));
    k = 3;
  } else {
    b[0] = (unsigned char)(0xf0 | (c >> 18));
    b[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
    b[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
    b[3] = (unsigned char)(0x80 | (c & 0x3f));
    k = 4;
  }
  ens__buf_append(out, b, k);
}

/* &#N; or &#xN; at p (p[0] == '&', p[1] == '#'): the code point and the
 * bytes used, or 0 when it is not a valid XML character reference. */
static size_t s_charref(const char *p, const char *end, uint32_t *cp) {
  const char *q = p + 2;
  int hex = q < end && *q == 'x';
  if (hex) q++;
  uint32_t v = 0;
  const char *d = q;
  while (q < end && *q != ';') {
    char c = *q;
    int x = c >= '0' && c <= '9' ? c - '0'
            : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
            : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                          : -1;
    if (x < 0) return 0;
    v = v * (hex ? 16u : 10u) + (uint32_t)x;
    if (v > 0x10ffff) return 0;
    q++;
  }
  if (q >= end || q == d) return 0;
  if (!(v == 0x9 || v == 0xa || v == 0xd || (v >= 0x20 && v <= 0xd7ff) || (v >= 0xe000 && v <= 0xfffd) ||
        (v >= 0x10000 && v <= 0x10ffff)))
    return 0;
  *cp = v;
  return (size_t)(q + 1 - p);
}

static int s_decode(const char *s, size_t n, int mode, ens__svg_ents *t, ens_buf *out, const char **why, int depth,
                    int expanding) {
  const char *p = s, *end = s + n, *run = s;
  int attr = mode == ENS__SVG_ATTR, literal = mode == ENS__SVG_LITERAL;
  while (p < end) {
    char c = *p;
    if ((c != '&' || literal) && c != '\r' && !(attr && (c == '\t' || c == '\n'))) {
      p++;
      continue;
    }
    ens__buf_append(out, run, (size_t)(p - run));
    if (c == '\r') {
      ens__buf_putc(out, attr ? ' ' : '\n');
      p += (p + 1 < end && p[1] == '\n') ? 2 : 1;
    } else if (c != '&') {
      ens__buf_putc(out, ' ');
      p++;
    } else if (p + 1 < end && p[1] == '#') {
      uint32_t cp;
      size_t k = s_charref(p, end, &cp);
      if (!k) {
        *why = "a bad character reference";
        return -1;
      }
      s_utf8(out, cp);
      p += k;
    } else {
      const char *semi = memchr(p, ';', (size_t)(end - p));
      if (!semi) {
        *why = "a '&' that starts no reference";
        return -1;
      }
      const char *name = p + 1;
      size_t nn = (size_t)(semi - name);
      static const char *const pre[] = {"lt", "gt", "amp", "apos", "quot"};
      static const char chars[] = {'<', '>', '&', '\'', '"'};
      int done = 0;
      for (int i = 0; i < 5 && !done; i++)
        if (strlen(pre[i]) == nn && memcmp(pre[i], name, nn) == 0) {
          ens__buf_putc(out, (unsigned char)chars[i]);
          done = 1;
        }
      if (!done) {
        const ens__svg_ent *e = attr ? ens__svg_ent_find(t, name, nn) : NULL;
        if (!e) {
          *why = attr ? "a reference to an undeclared entity" : "an entity reference inside text";
          return -1;
        }
        if (!e->text) {
          *why = "a reference to an external entity (refused)";
          return -1;
        }
        if (depth >= S_MAX_ENT_DEPTH) {
          *why = "entities nested too deep";
          return -1;
        }
        size_t before = out->len;
        if (s_decode(e->text, e->text_n, mode, t, out, why, depth + 1, 1)) return -1;
        size_t grew = out->len - before;
        if (!expanding) {
          if (grew > t->budget) {
            *why = "entity expansion exceeds its limit";
            return -1;
          }
          t->budget -= grew;
        }
      }
      p = semi + 1;
    }
    run = p;
    if (out->oom) {
      *why = "out of memory";
      return -1;
    }
    if (expanding && out->len > t->budget) {
      *why = "entity expansion exceeds its limit";
      return -1;
    }
  }
  ens__buf_append(out, run, (size_t)(p - run));
  if (out->oom) {
    *why = "out of memory";
    return -1;
  }
  return 0;
}

int ens__svg_decode(const char *s, size_t n, int mode, ens__svg_ents *t, ens_buf *out, const char **why) {
  *why = NULL;
  return s_decode(s, n, mode, t, out, why, 0, 0);
}

/* Most values have nothing to decode: then they are their own text. One
 * table lookup per byte: bit 0 stops text, bit 1 attributes, bit 2
 * literal text (comments, CDATA, PIs). */
static const uint8_t s_stop[256] = {['&'] = 3, ['\r'] = 7, ['\t'] = 2, ['\n'] = 2};

int ens__svg_plain(const char *s, size_t n, int mode) {
  uint8_t bit = mode == ENS__SVG_ATTR ? 2 : mode == ENS__SVG_LITERAL ? 4 : 1;
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < n; i++)
    if (s_stop[p[i]] & bit) return 0;
  return 1;
}

int ens__svg_decodes_to(const char *s, size_t n, int mode, ens__svg_ents *t, const char *v, size_t vn) {
  if (ens__svg_plain(s, n, mode)) return n == vn && memcmp(s, v, n) == 0;
  ens_buf b = ENS_BUF_INIT;
  const char *why;
  size_t budget = t ? t->budget : 0;
  int same = ens__svg_decode(s, n, mode, t, &b, &why) == 0 && b.len == vn && memcmp(b.data, v, vn) == 0;
  if (t) t->budget = budget;
  ens__buf_free(&b);
  return same;
}

void ens__svg_escape_text(const char *s, size_t n, ens_buf *out) {
  const char *run = s, *end = s + n;
  for (const char *p = s; p < end; p++) {
    const char *rep;
    switch (*p) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '\r': rep = "&#13;"; break;
    default: continue;
    }
    ens__buf_append(out, run, (size_t)(p - run));
    ens__buf_puts(out, rep);
    run = p + 1;
  }
  ens__buf_append(out, run, (size_t)(end - run));
}

void ens__svg_escape_attr(const char *s, size_t n, char quote, ens_buf *out) {
  const char *run = s, *end = s + n;
  for (const char *p = s; p < end; p++) {
    const char *rep;
    switch (*p) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '\t': rep = "&#9;"; break;
    case '\n': rep = "&#10;"; break;
    case '\r': rep = "&#13;"; break;
    case '"': if (quote != '"') continue; rep = "&quot;"; break;
    case '\'': if (quote != '\'') continue; rep = "&apos;"; break;
    default: continue;
    }
    ens__buf_append(out, run, (size_t)(p - run));
    ens__buf_puts(out, rep);
    run = p + 1;
  }
  ens__buf_append(out, run, (size_t)(end - run));
}
