/* The .tree writer: the inverse of treefile.c, so that a snapshot can be
 * read as text and a round trip file -> snapshot -> file can be checked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "treefile.h"

static int s_is_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > CLI_TREE_MAX_NAME) return 0;
  if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return 0;
  for (size_t i = 1; i < n; i++)
    if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:", s[i])) return 0;
  return 1;
}

/* The shortest %g form that reads back to exactly r, with a '.' or an
 * exponent so that it reads back as a real and not an integer. */
static void s_real(char *buf, size_t size, double r) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, r);
    if (strtod(buf, NULL) == r) break;
  }
  if (!strpbrk(buf, ".eE")) strncat(buf, ".0", size - strlen(buf) - 1);
}

static void s_string(FILE *out, const char *s, size_t n) {
  fputc('"', out);
  for (size_t i = 0; i < n; i++) {
    switch (s[i]) {
    case '"': fputs("\\\"", out); break;
    case '\\': fputs("\\\\", out); break;
    case '\n': fputs("\\n", out); break;
    case '\r': fputs("\\r", out); break;
    case '\t': fputs("\\t", out); break;
    default: fputc(s[i], out);
    }
  }
  fputc('"', out);
}

/* One object's line; with out NULL only checks that it can be written. */
static int s_object(FILE *out, const ens_obj *o, size_t depth, char *err, size_t err_size) {
  char ids[32], num[64];
  cli_id_str(ens_obj_id(o), ids, sizeof ids);
  if (!s_is_name(ens_obj_kind(o))) {
    snprintf(err, err_size, "object %s: its kind is not a .tree name", ids);
    return -1;
  }
  if (out) fprintf(out, "%*s%s", (int)(2 * depth), "", ens_obj_kind(o));
  for (size_t i = 0; i < ens_obj_prop_count(o); i++) {
    const char *key;
    ens_value v;
    if (ens_obj_prop_at(o, i, &key, &v)) continue;
    const char *bad = !s_is_name(key) ? "its name"
                      : v.type == ENS_BYTES || v.type == ENS_REF ? "its type (bytes and references have no .tree form)"
                      : v.type == ENS_REAL && !isfinite(v.u.r) ? "an infinite or NaN value"
                      : v.type == ENS_STR && memchr(v.u.s.ptr, '\0', v.u.s.len) ? "a NUL byte in its value"
                                                                               : NULL;
    if (bad) {
      snprintf(err, err_size, "object %s, property '%.64s': .tree cannot hold %s", ids, key, bad);
      return -1;
    }
    if (!out) continue;
    fprintf(out, " %s=", key);
    switch (v.type) {
    case ENS_INT: fprintf(out, "%lld", (long long)v.u.i); break;
    case ENS_REAL: s_real(num, sizeof num, v.u.r); fputs(num, out); break;
    case ENS_BOOL: fputs(v.u.b ? "true" : "false", out); break;
    case ENS_STR: s_string(out, v.u.s.ptr, v.u.s.len); break;
    default: break;
    }
  }
  if (out) fputc('\n', out);
  return 0;
}

typedef struct {
  FILE *out; /* NULL: only check that everything can be written */
  char *err;
  size_t err_size;
} s_writer;

static int s_visit(const ens_obj *o, size_t depth, void *user) {
  s_writer *w = user;
  if (depth == 0) return 0; /* the root is the document itself */
  return s_object(w->out, o, depth - 1, w->err, w->err_size) ? -1 : 0;
}

static int s_walk(FILE *out, const ens_doc *doc, char *err, size_t err_size) {
  s_writer w = {out, err, err_size};
  return ens_obj_walk(ens_doc_root(doc), s_visit, &w) ? -1 : 0;
}

int cli_tree_write(FILE *out, const ens_doc *doc, char *err, size_t err_size) {
  if (s_walk(NULL, doc, err, err_size)) return -1;
  fprintf(out, "# %s document written by ensemble %s\n", ens_doc_kind(doc), ENS_VERSION_STRING);
  return s_walk(out, doc, err, err_size);
}
