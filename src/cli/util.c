/* Small helpers shared by the commands: error messages in one style, ids
 * written the way the JSON dumps write them, JSON indented for people. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_fail(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fflush(stdout); /* keep the order of what was printed before the error */
  fprintf(stderr, "ensemble %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return CLI_FAIL;
}

const char *cli_id_str(ens_id id, char *buf, size_t size) {
  snprintf(buf, size, "%u:%llu", (unsigned)ens_id_site(id), (unsigned long long)ens_id_counter(id));
  return buf;
}

static void s_newline(FILE *out, int depth, int indent) {
  fputc('\n', out);
  for (int i = 0; i < depth * 2 + indent; i++) fputc(' ', out);
}

/* Length of the object or array at p when it nests nothing and is short,
 * else 0. */
static size_t s_flat_len(const char *p) {
  int in_str = 0, escaped = 0;
  for (size_t i = 1; p[i] && i < 72; i++) {
    char c = p[i];
    if (in_str) {
      if (escaped) escaped = 0;
      else if (c == '\\') escaped = 1;
      else if (c == '"') in_str = 0;
    } else if (c == '"') {
      in_str = 1;
    } else if (c == '{' || c == '[') {
      return 0;
    } else if (c == '}' || c == ']') {
      return i + 1;
    }
  }
  return 0;
}

static void s_print_flat(FILE *out, const char *p, size_t n) {
  int in_str = 0, escaped = 0;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    fputc(c, out);
    if (in_str) {
      if (escaped) escaped = 0;
      else if (c == '\\') escaped = 1;
      else if (c == '"') in_str = 0;
    } else if (c == '"') {
      in_str = 1;
    } else if (c == ':' || c == ',') {
      fputc(' ', out);
    }
  }
}

void cli_json_pretty(FILE *out, const char *json, int indent) {
  int depth = 0, in_str = 0, escaped = 0;
  for (int i = 0; i < indent; i++) fputc(' ', out);
  for (const char *p = json; *p; p++) {
    char c = *p;
    if (in_str) {
      fputc(c, out);
      if (escaped) escaped = 0;
      else if (c == '\\') escaped = 1;
      else if (c == '"') in_str = 0;
      continue;
    }
    switch (c) {
    case '"':
      in_str = 1;
      fputc(c, out);
      break;
    case '{':
    case '[': {
      size_t n = s_flat_len(p);
      if (n) { /* short and flat, like {"real": 1.5}: keep it on one line */
        s_print_flat(out, p, n);
        p += n - 1;
        break;
      }
      fputc(c, out);
      s_newline(out, ++depth, indent);
      break;
    }
    case '}':
    case ']':
      s_newline(out, depth > 0 ? --depth : 0, indent);
      fputc(c, out);
      break;
    case ',':
      fputc(c, out);
      s_newline(out, depth, indent);
      break;
    case ':':
      fputs(": ", out);
      break;
    default:
      fputc(c, out);
    }
  }
  fputc('\n', out);
}

int cli_parse_real(const char *s, size_t n, double *out) {
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

char *cli_strndup(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}
