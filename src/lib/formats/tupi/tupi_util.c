/* The Tupi import's small shared pieces: notes of what does not map, JSON
 * numbers and strings, affine maps, and numbers read from Tupi's text. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tupi_int.h"

int ens__tupi_note_add(ens__tupi_ctx *ctx, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  for (size_t i = 0; i < ctx->nnotes; i++)
    if (strcmp(ctx->notes[i].what, what) == 0) {
      ctx->notes[i].count++;
      return 0;
    }
  if (ctx->nnotes == ENS__TUPI_MAX_NOTES) {
    /* the last slot says that more were left out, and counts them */
    ctx->notes[ctx->nnotes - 1].count++;
    return 0;
  }
  if (ctx->nnotes == ctx->cap) {
    size_t cap = ctx->cap ? ctx->cap * 2 : 16;
    ens__tupi_note *v = realloc(ctx->notes, cap * sizeof *v);
    if (!v) return ens__error(ENS_ENOMEM, "out of memory");
    ctx->notes = v;
    ctx->cap = cap;
  }
  const char *text = ctx->nnotes == ENS__TUPI_MAX_NOTES - 1 ? "more kinds of things not mapped than are listed" : what;
  char *w = strdup(text), *p = strdup(ctx->where);
  if (!w || !p) {
    free(w);
    free(p);
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  ctx->notes[ctx->nnotes++] = (ens__tupi_note){w, p, 1};
  return 0;
}

void ens__tupi_jnum(ens_buf *b, double v) {
  double r = round(v * 1000.0) / 1000.0;
  if (r == 0) r = 0; /* no "-0" */
  char s[64];
  snprintf(s, sizeof s, "%.3f", r);
  char *dot = strchr(s, '.');
  if (dot) {
    char *z = s + strlen(s) - 1;
    while (z > dot && *z == '0') *z-- = '\0';
    if (z == dot) *z = '\0';
  }
  ens__buf_puts(b, s);
}

void ens__tupi_jstr(ens_buf *b, const char *s) { ens__buf_json_str(b, s, strlen(s)); }

const ens__tupi_mat ens__tupi_identity = {1, 0, 0, 1, 0, 0};

ens__tupi_mat ens__tupi_mul(ens__tupi_mat A, ens__tupi_mat B) {
  ens__tupi_mat r;
  r.a = A.a * B.a + A.c * B.b;
  r.b = A.b * B.a + A.d * B.b;
  r.c = A.a * B.c + A.c * B.d;
  r.d = A.b * B.c + A.d * B.d;
  r.e = A.a * B.e + A.c * B.f + A.e;
  r.f = A.b * B.e + A.d * B.f + A.f;
  return r;
}

void ens__tupi_apply(const ens__tupi_mat *m, double *x, double *y) {
  double X = *x, Y = *y;
  *x = m->a * X + m->c * Y + m->e;
  *y = m->b * X + m->d * Y + m->f;
}

int ens__tupi_num(ens__tupi_ctx *ctx, const char *s, const char **end, const char *what, double *out) {
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',') s++;
  char *e;
  double v = strtod(s, &e);
  if (e == s) return ens__error(ENS_EDECODE, "%s: %s: a number was expected", ctx->where, what);
  if (!isfinite(v) || fabs(v) > 1e7)
    return ens__error(ENS_EDECODE, "%s: %s: the number %.*s is not finite or out of range (at most 1e7)", ctx->where, what, (int)(e - s > 40 ? 40 : e - s), s);
  *out = v;
  if (end) *end = e;
  return 0;
}

int ens__tupi_attr_num(ens__tupi_ctx *ctx, xmlNode *n, const char *name, double def, double *out) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  if (!v) {
    *out = def;
    return 0;
  }
  char what[128];
  snprintf(what, sizeof what, "<%s %s>", (const char *)n->name, name);
  const char *end;
  int rc = ens__tupi_num(ctx, (const char *)v, &end, what, out);
  xmlFree(v);
  return rc;
}

/* Reads k numbers from s after skipping what is not part of a number
 * ("matrix(", "(", ")"). */
static int s_numbers(ens__tupi_ctx *ctx, const char *s, double *v, int k, const char *what) {
  const char *p = s;
  for (int i = 0; i < k; i++) {
    while (*p && !(*p == '-' || *p == '+' || *p == '.' || (*p >= '0' && *p <= '9'))) p++;
    if (ens__tupi_num(ctx, p, &p, what, &v[i]) != 0) return ENS_EDECODE;
  }
  return 0;
}

int ens__tupi_item_matrix(ens__tupi_ctx *ctx, xmlNode *item, ens__tupi_mat *out) {
  *out = ens__tupi_identity;
  xmlNode *pr = ens__tupi_child(item, "properties");
  if (!pr) return 0;
  double m[6] = {1, 0, 0, 1, 0, 0}, pos[2] = {0, 0};
  xmlChar *t = xmlGetProp(pr, (const xmlChar *)"transform");
  int rc = 0;
  if (t) {
    rc = s_numbers(ctx, (const char *)t, m, 6, "<properties transform>");
    xmlFree(t);
    if (rc) return rc;
  }
  xmlChar *p = xmlGetProp(pr, (const xmlChar *)"pos");
  if (p) {
    rc = s_numbers(ctx, (const char *)p, pos, 2, "<properties pos>");
    xmlFree(p);
    if (rc) return rc;
  }
  ens__tupi_mat own = {m[0], m[1], m[2], m[3], m[4], m[5]};
  ens__tupi_mat move = {1, 0, 0, 1, pos[0], pos[1]};
  *out = ens__tupi_mul(move, own);
  return 0;
}

xmlNode *ens__tupi_child(xmlNode *n, const char *name) {
  for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
    if (ens__tupi_is(c, name)) return c;
  return NULL;
}

int ens__tupi_is(const xmlNode *n, const char *name) {
  return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}
