/* The XML scanner: cuts text that libxml2 has accepted into tokens with
 * their exact byte spans (the reader keeps them, the writer re-reads them
 * to see whether a node still says what its properties say). It never
 * reads past `end`, whatever the bytes. */
#define _GNU_SOURCE
#include <string.h>

#include "svg_int.h"

static int s_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Name characters as bytes: libxml2 has checked the names, so anything
 * that cannot end a name is part of it (UTF-8 bytes included). */
static int s_namec(unsigned char c) {
  return !(s_blank((char)c) || c == '=' || c == '/' || c == '>' || c == '<' || c == ';' || c == '?' || c == '"' ||
           c == '\'' || c == '&' || c == '[' || c == ']' || c == '%' || c == '!');
}

static const char *s_name_end(const char *p, const char *end) {
  while (p < end && s_namec((unsigned char)*p)) p++;
  return p;
}

static const char *s_skip_blanks(const char *p, const char *end) {
  while (p < end && s_blank(*p)) p++;
  return p;
}

static const char *s_find(const char *p, const char *end, const char *what, size_t wn) {
  if (p >= end) return NULL;
  return memmem(p, (size_t)(end - p), what, wn);
}

int ens__svg_predefined(const char *name, size_t n) {
  switch (n) {
  case 2: return (name[0] == 'l' || name[0] == 'g') && name[1] == 't';
  case 3: return memcmp(name, "amp", 3) == 0;
  case 4: return memcmp(name, "apos", 4) == 0 || memcmp(name, "quot", 4) == 0;
  default: return 0;
  }
}

/* At '&': the length of a reference to a declared entity (&name;), or 0
 * when this is a character or predefined reference (part of text). */
static size_t s_entref(const char *p, const char *end) {
  if (p + 1 >= end || p[1] == '#') return 0;
  const char *ne = s_name_end(p + 1, end);
  if (ne >= end || *ne != ';' || ne == p + 1) return 0;
  if (ens__svg_predefined(p + 1, (size_t)(ne - p - 1))) return 0;
  return (size_t)(ne + 1 - p);
}

static void s_tok(ens__svg_tok *t, ens__svg_tt type, const char *s, const char *e) {
  memset(t, 0, sizeof *t);
  t->type = type;
  t->s = s;
  t->n = (size_t)(e - s);
}

/* <!DOCTYPE name ... [ internal subset ] > : quoted strings, comments and
 * PIs inside the subset may hold ']' and '>'. */
static const char *s_doctype_end(const char *p, const char *end) {
  int in_subset = 0;
  while (p < end) {
    char c = *p;
    if (c == '"' || c == '\'') {
      const char *q = memchr(p + 1, c, (size_t)(end - p - 1));
      if (!q) return NULL;
      p = q + 1;
    } else if (in_subset && c == '<' && end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
      const char *q = s_find(p + 4, end, "-->", 3);
      if (!q) return NULL;
      p = q + 3;
    } else if (in_subset && c == '<' && end - p >= 2 && p[1] == '?') {
      const char *q = s_find(p + 2, end, "?>", 2);
      if (!q) return NULL;
      p = q + 2;
    } else if (c == '[' && !in_subset) {
      in_subset = 1;
      p++;
    } else if (c == ']' && in_subset) {
      in_subset = 0;
      p++;
    } else if (c == '>' && !in_subset) {
      return p + 1;
    } else {
      p++;
    }
  }
  return NULL;
}

int ens__svg_attrs_begin(const char *s, size_t n, ens__svg_attrs *it, const char **name, size_t *name_n) {
  const char *end = s + n;
  if (n < 2 || s[0] != '<') return -1;
  const char *ne = s_name_end(s + 1, end);
  if (ne == s + 1) return -1;
  *name = s + 1;
  *name_n = (size_t)(ne - s - 1);
  it->p = ne;
  it->end = end;
  return 0;
}

int ens__svg_attr_next(ens__svg_attrs *it, ens__svg_attr *a, const char **tail) {
  const char *p = it->p, *end = it->end;
  const char *b = s_skip_blanks(p, end);
  if (b >= end) return -1;
  if (*b == '>' || *b == '/') {
    *tail = p;
    return 0;
  }
  if (b == p) return -1; /* attributes are separated by blanks */
  a->lead = p;
  a->name = b;
  const char *ne = s_name_end(b, end);
  if (ne == b) return -1;
  a->name_n = (size_t)(ne - b);
  const char *q = s_skip_blanks(ne, end);
  if (q >= end || *q != '=') return -1;
  q = s_skip_blanks(q + 1, end);
  if (q >= end || (*q != '"' && *q != '\'')) return -1;
  a->eq = ne;
  a->eq_n = (size_t)(q - ne);
  a->quote = *q;
  const char *close = memchr(q + 1, *q, (size_t)(end - q - 1));
  if (!close) return -1;
  a->val = q + 1;
  a->val_n = (size_t)(close - q - 1);
  a->end = close + 1;
  it->p = close + 1;
  return 1;
}

/* A start tag from '<' to its '>': attribute values may hold '>'. */
static int s_start_tag(const char *p, const char *end, ens__svg_tok *t) {
  ens__svg_attrs it;
  const char *name, *tail;
  size_t name_n;
  if (ens__svg_attrs_begin(p, (size_t)(end - p), &it, &name, &name_n)) return -1;
  ens__svg_attr a;
  int rc;
  while ((rc = ens__svg_attr_next(&it, &a, &tail)) == 1) {
  }
  if (rc < 0) return -1;
  const char *q = s_skip_blanks(tail, end);
  ens__svg_tt type = T_START;
  if (q < end && *q == '/') {
    type = T_EMPTY;
    q++;
  }
  if (q >= end || *q != '>') return -1;
  s_tok(t, type, p, q + 1);
  t->name = name;
  t->name_n = name_n;
  return 0;
}

int ens__svg_next(const char **pp, const char *end, int at_start, ens__svg_tok *t) {
  const char *p = *pp;
  if (p >= end) {
    s_tok(t, T_EOF, p, p);
    return 0;
  }
  if (*p == '&') {
    size_t k = s_entref(p, end);
    if (k) {
      s_tok(t, T_ENTREF, p, p + k);
      t->name = p + 1;
      t->name_n = k - 2;
      *pp = p + k;
      return 0;
    }
  }
  if (*p != '<') {
    const char *q = p;
    while (q < end && *q != '<') {
      if (*q == '&' && q > p && s_entref(q, end)) break;
      q++;
    }
    s_tok(t, T_TEXT, p, q);
    t->body = p;
    t->body_n = (size_t)(q - p);
    *pp = q;
    return 0;
  }
  size_t left = (size_t)(end - p);
  if (left >= 2 && p[1] == '?') {
    const char *q = s_find(p + 2, end, "?>", 2);
    if (!q) return -1;
    const char *ne = s_name_end(p + 2, q);
    s_tok(t, T_PI, p, q + 2);
    t->name = p + 2;
    t->name_n = (size_t)(ne - p - 2);
    if (t->name_n == 0) return -1;
    if (at_start && t->name_n == 3 && memcmp(t->name, "xml", 3) == 0) t->type = T_XMLDECL;
    const char *b = s_skip_blanks(ne, q);
    t->body = b;
    t->body_n = (size_t)(q - b);
    *pp = q + 2;
    return 0;
  }
  if (left >= 4 && memcmp(p, "<!--", 4) == 0) {
    const char *q = s_find(p + 4, end, "-->", 3);
    if (!q) return -1;
    s_tok(t, T_COMMENT, p, q + 3);
    t->body = p + 4;
    t->body_n = (size_t)(q - p - 4);
    *pp = q + 3;
    return 0;
  }
  if (left >= 9 && memcmp(p, "<![CDATA[", 9) == 0) {
    const char *q = s_find(p + 9, end, "]]>", 3);
    if (!q) return -1;
    s_tok(t, T_CDATA, p, q + 3);
    t->body = p + 9;
    t->body_n = (size_t)(q - p - 9);
    *pp = q + 3;
    return 0;
  }
  if (left >= 9 && memcmp(p, "<!DOCTYPE", 9) == 0) {
    const char *q = s_doctype_end(p + 9, end);
    if (!q) return -1;
    s_tok(t, T_DOCTYPE, p, q);
    const char *b = s_skip_blanks(p + 9, q);
    t->name = b;
    t->name_n = (size_t)(s_name_end(b, q) - b);
    *pp = q;
    return 0;
  }
  if (left >= 2 && p[1] == '/') {
    const char *ne = s_name_end(p + 2, end);
    const char *q = s_skip_blanks(ne, end);
    if (ne == p + 2 || q >= end || *q != '>') return -1;
    s_tok(t, T_ENDTAG, p, q + 1);
    t->name = p + 2;
    t->name_n = (size_t)(ne - p - 2);
    *pp = q + 1;
    return 0;
  }
  if (s_start_tag(p, end, t)) return -1;
  *pp = t->s + t->n;
  return 0;
}

uint32_t ens__svg_line_of(const char *text, const char *p) {
  uint32_t line = 1;
  for (const char *q = text; q < p; q++)
    if (*q == '\n') line++;
  return line;
}
