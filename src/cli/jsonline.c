/* One JSON value per line, for command scripts: a small strict parser
 * (objects, arrays, strings with escapes, numbers, true, false, null),
 * bounded in depth, that says where it stopped. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonline.h"

#define S_DEPTH 8

/* The whole of s as a finite real. */
static int s_real(const char *s, size_t n, double *out) {
  char b[64];
  if (n == 0 || n >= sizeof b) return -1;
  memcpy(b, s, n);
  b[n] = '\0';
  char *end;
  errno = 0;
  double v = strtod(b, &end);
  if (*end || errno || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

void cli_json_free(cli_json *j) {
  if (!j) return;
  for (size_t i = 0; i < j->n; i++) cli_json_free(&j->kids[i]);
  free(j->kids);
  free(j->str);
  free(j->key);
}

typedef struct {
  const char *p, *e;
  const char *why;
} s_jp;

static void s_ws(s_jp *jp) {
  while (jp->p < jp->e && (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\r' || *jp->p == '\n')) jp->p++;
}

/* Appends code point u as UTF-8. */
static size_t s_put_utf8(char *o, uint32_t u) {
  if (u < 0x80) return o[0] = (char)u, 1;
  if (u < 0x800) return o[0] = (char)(0xC0 | u >> 6), o[1] = (char)(0x80 | (u & 63)), 2;
  if (u < 0x10000)
    return o[0] = (char)(0xE0 | u >> 12), o[1] = (char)(0x80 | (u >> 6 & 63)), o[2] = (char)(0x80 | (u & 63)), 3;
  o[0] = (char)(0xF0 | u >> 18), o[1] = (char)(0x80 | (u >> 12 & 63)), o[2] = (char)(0x80 | (u >> 6 & 63));
  o[3] = (char)(0x80 | (u & 63));
  return 4;
}

static int s_hex4(const char *p, const char *e, uint32_t *u) {
  if (e - p < 4) return -1;
  *u = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return -1;
    *u = *u << 4 | (uint32_t)d;
  }
  return 0;
}

static char *s_jstring(s_jp *jp) {
  if (jp->p >= jp->e || *jp->p != '"') return jp->why = "a string was expected", NULL;
  jp->p++;
  /* the decoded text is never longer than the quoted one */
  char *o = malloc((size_t)(jp->e - jp->p) + 1);
  size_t n = 0;
  if (!o) return jp->why = "out of memory", NULL;
  while (jp->p < jp->e && *jp->p != '"') {
    unsigned char ch = (unsigned char)*jp->p++;
    if (ch < 0x20) break;
    if (ch != '\\') {
      o[n++] = (char)ch;
      continue;
    }
    if (jp->p >= jp->e) break;
    char esc = *jp->p++;
    switch (esc) {
    case '"': case '\\': case '/': o[n++] = esc; break;
    case 'b': o[n++] = '\b'; break;
    case 'f': o[n++] = '\f'; break;
    case 'n': o[n++] = '\n'; break;
    case 'r': o[n++] = '\r'; break;
    case 't': o[n++] = '\t'; break;
    case 'u': {
      uint32_t u, lo;
      if (s_hex4(jp->p, jp->e, &u)) goto bad;
      jp->p += 4;
      if (u >= 0xD800 && u < 0xDC00) { /* a surrogate pair */
        if (jp->e - jp->p < 6 || jp->p[0] != '\\' || jp->p[1] != 'u' || s_hex4(jp->p + 2, jp->e, &lo) || lo < 0xDC00 ||
            lo > 0xDFFF)
          goto bad;
        jp->p += 6;
        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
      } else if (u >= 0xDC00 && u < 0xE000) {
        goto bad;
      }
      n += s_put_utf8(o + n, u); /* \uXXXX is 6 bytes, UTF-8 at most 4 */
      break;
    }
    default:
      goto bad;
    }
  }
  if (jp->p >= jp->e || *jp->p != '"') goto bad;
  jp->p++;
  o[n] = '\0';
  return o;
bad:
  free(o);
  jp->why = "a string is malformed (unterminated, a control character or a bad escape)";
  return NULL;
}

static int s_jvalue(s_jp *jp, cli_json *out, int depth) {
  memset(out, 0, sizeof *out);
  s_ws(jp);
  if (depth > S_DEPTH) return jp->why = "nested too deeply", -1;
  if (jp->p >= jp->e) return jp->why = "the line ends inside the object", -1;
  char ch = *jp->p;
  if (ch == '"') {
    out->type = CLI_J_STR;
    return (out->str = s_jstring(jp)) ? 0 : -1;
  }
  if (ch == '{' || ch == '[') {
    int obj = ch == '{';
    char close = obj ? '}' : ']';
    out->type = obj ? CLI_J_OBJ : CLI_J_ARR;
    jp->p++;
    s_ws(jp);
    if (jp->p < jp->e && *jp->p == close) {
      jp->p++;
      return 0;
    }
    for (;;) {
      cli_json *nk = realloc(out->kids, (out->n + 1) * sizeof *nk);
      if (!nk) return jp->why = "out of memory", -1;
      out->kids = nk;
      cli_json *k = &out->kids[out->n];
      memset(k, 0, sizeof *k);
      char *key = NULL;
      if (obj) {
        s_ws(jp);
        if (!(key = s_jstring(jp))) return -1;
        s_ws(jp);
        if (jp->p >= jp->e || *jp->p != ':') return free(key), jp->why = "':' expected after a key", -1;
        jp->p++;
      }
      int rc = s_jvalue(jp, k, depth + 1);
      k->key = key;
      out->n++;
      if (rc) return -1;
      s_ws(jp);
      if (jp->p < jp->e && *jp->p == ',') {
        jp->p++;
        continue;
      }
      if (jp->p < jp->e && *jp->p == close) {
        jp->p++;
        return 0;
      }
      return jp->why = obj ? "',' or '}' expected" : "',' or ']' expected", -1;
    }
  }
  static const struct {
    const char *w;
    cli_jtype t;
    int b;
  } lits[] = {{"true", CLI_J_BOOL, 1}, {"false", CLI_J_BOOL, 0}, {"null", CLI_J_NULL, 0}};
  for (size_t i = 0; i < 3; i++) {
    size_t l = strlen(lits[i].w);
    if ((size_t)(jp->e - jp->p) >= l && memcmp(jp->p, lits[i].w, l) == 0) {
      jp->p += l;
      out->type = lits[i].t;
      out->b = lits[i].b;
      return 0;
    }
  }
  const char *t = jp->p;
  while (jp->p < jp->e && strchr("+-0123456789.eE", *jp->p)) jp->p++;
  if (jp->p == t || s_real(t, (size_t)(jp->p - t), &out->num)) return jp->why = "a value was expected", -1;
  out->type = CLI_J_NUM;
  return 0;
}

const cli_json *cli_json_get(const cli_json *o, const char *key) {
  for (size_t i = 0; i < o->n; i++)
    if (o->kids[i].key && strcmp(o->kids[i].key, key) == 0) return &o->kids[i];
  return NULL;
}

int cli_json_parse(const char *line, size_t len, cli_json *out, char *err, size_t esz) {
  s_jp jp = {line, line + len, NULL};
  if (s_jvalue(&jp, out, 0)) {
    snprintf(err, esz, "bad JSON: %s (at byte %zu)", jp.why, (size_t)(jp.p - line) + 1);
    cli_json_free(out);
    return -1;
  }
  s_ws(&jp);
  if (jp.p < jp.e) {
    snprintf(err, esz, "bad JSON: one value per line, nothing after it");
    cli_json_free(out);
    return -1;
  }
  return 0;
}

int cli_json_get_str(const cli_json *o, const char *key, const char *alt, char **v, char *err, size_t esz) {
  const cli_json *j = cli_json_get(o, key);
  if (!j && alt) j = cli_json_get(o, alt);
  if (!j || j->type != CLI_J_STR) {
    snprintf(err, esz, "\"%s\" must be a string", key);
    return -1;
  }
  size_t n = strlen(j->str);
  if (!(*v = malloc(n + 1))) {
    snprintf(err, esz, "out of memory");
    return -1;
  }
  memcpy(*v, j->str, n + 1);
  return 0;
}
