/* The change list written for people (one line per glyph or element, in
 * the format's words) and for tools (JSON, schema in docs/vcs.md). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/hash.h"
#include "../util/utf8.h"
#include "changes_int.h"

/* --- text ----------------------------------------------------------------------------------- */

/* Longest value shown whole; longer ones are cut with "…". */
#define S_SHOW_MAX 60

/* skip: bytes of a string left out at its start (shown as "…"), so that
 * two long values show where they differ */
static void s_put_value_from(FILE *out, ens_value v, const char *ref_path, size_t skip) {
  switch (v.type) {
  case ENS_NIL: fputs("(none)", out); break;
  case ENS_INT: fprintf(out, "%" PRId64, v.u.i); break;
  case ENS_REAL: fprintf(out, "%g", v.u.r); break;
  case ENS_BOOL: fputs(v.u.b ? "true" : "false", out); break;
  case ENS_REF: fputs(ref_path ? ref_path : "(nothing)", out); break;
  case ENS_BYTES: fprintf(out, "(%zu bytes)", v.u.s.len); break;
  case ENS_STR: {
    if (skip && skip < v.u.s.len) {
      fputs("…", out);
      v.u.s.ptr += skip;
      v.u.s.len -= skip;
    }
    size_t n = v.u.s.len, cut = n > S_SHOW_MAX ? S_SHOW_MAX : n;
    /* cut on a character boundary, and show line ends as spaces */
    while (cut < n && cut && ((unsigned char)v.u.s.ptr[cut] & 0xc0) == 0x80) cut--;
    if (!n) fputs("\"\"", out);
    for (size_t i = 0; i < cut; i++) {
      char ch = v.u.s.ptr[i];
      fputc(ch == '\n' || ch == '\r' || ch == '\t' ? ' ' : ch, out);
    }
    if (cut < n) fputs("…", out);
    break;
  }
  }
}

static void s_put_value(FILE *out, ens_value v, const char *ref_path) { s_put_value_from(out, v, ref_path, 0); }

/* Where two long strings' shown parts start: some context before their
 * first difference, on a character boundary. */
static size_t s_skip(ens_value a, ens_value b) {
  if (a.type != ENS_STR || b.type != ENS_STR) return 0;
  size_t n = a.u.s.len < b.u.s.len ? a.u.s.len : b.u.s.len, cp = 0;
  while (cp < n && a.u.s.ptr[cp] == b.u.s.ptr[cp]) cp++;
  if (cp < S_SHOW_MAX - 10) return 0;
  size_t k = cp - 20;
  while (k && ((unsigned char)a.u.s.ptr[k] & 0xc0) == 0x80) k--;
  return k;
}

static double s_num(ens_value v) {
  return v.type == ENS_INT ? (double)v.u.i : v.type == ENS_REAL ? v.u.r : 0;
}
static int s_is_num(ens_value v) { return v.type == ENS_INT || v.type == ENS_REAL; }

/* The path of r's object below its group, without a font's foreground
 * layer, which is where outlines are unless said otherwise. */
static const char *s_rel(const ens__change_rec *r, int sfd) {
  const char *p = r->c.path, *g = r->c.group;
  size_t gl = strlen(g);
  if (gl && strncmp(p, g, gl) == 0 && (p[gl] == '/' || !p[gl])) p += gl + (p[gl] == '/');
  if (sfd && strncmp(p, "layer 1", 7) == 0 && (p[7] == '/' || !p[7])) p += 7 + (p[7] == '/');
  return p;
}

/* The name of what a sibling path ends with, for "moved above rect#a". */
static const char *s_last_step(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* "contour 2 point 5 ": the steps below the group, spaced for reading */
static void s_subject(FILE *out, const char *rel) {
  if (!*rel) return;
  for (; *rel; rel++) fputc(*rel == '/' ? ' ' : *rel, out);
  fputc(' ', out);
}

/* Writes one part of a group's line; returns how many records it used
 * (a point's x and y changes together are one "moved (dx, dy)"). */
static size_t s_part(FILE *out, const ens__change_rec *r, size_t left, int sfd, int svg) {
  const ens_change *c = &r->c;
  const char *rel = s_rel(r, sfd);
  switch (c->kind) {
  case ENS_CHANGE_ADDED: s_subject(out, rel); fputs("added", out); return 1;
  case ENS_CHANGE_REMOVED: s_subject(out, rel); fputs("removed", out); return 1;
  case ENS_CHANGE_RENAMED:
    s_subject(out, rel);
    fputs("renamed from ", out);
    s_put_value(out, c->old_value, NULL);
    return 1;
  case ENS_CHANGE_MOVED:
    s_subject(out, rel);
    if (!r->reorder) {
      fputs("moved from ", out);
      fputs(c->old_path ? c->old_path : "?", out);
    } else if (svg) {
      if (c->after) fprintf(out, "moved above %s", s_last_step(c->after));
      else fputs("moved to the bottom", out);
    } else {
      if (c->after) fprintf(out, "moved after %s", s_last_step(c->after));
      else fputs("moved to the start", out);
    }
    return 1;
  case ENS_CHANGE_SET: break;
  }
  /* x and y of one object: "moved (dx, dy)" */
  if ((!strcmp(c->key, "x") || !strcmp(c->key, "y")) && s_is_num(c->old_value) && s_is_num(c->new_value)) {
    double dx = 0, dy = 0;
    size_t used = 1;
    if (!strcmp(c->key, "x")) dx = s_num(c->new_value) - s_num(c->old_value);
    else dy = s_num(c->new_value) - s_num(c->old_value);
    const ens__change_rec *n = r + 1;
    if (!strcmp(c->key, "x") && left > 1 && n->c.kind == ENS_CHANGE_SET && n->c.new_id == c->new_id &&
        !strcmp(n->c.key, "y") && s_is_num(n->c.old_value) && s_is_num(n->c.new_value)) {
      dy = s_num(n->c.new_value) - s_num(n->c.old_value);
      used = 2;
    }
    s_subject(out, rel);
    fprintf(out, "moved (%g, %g)", dx, dy);
    return used;
  }
  s_subject(out, rel);
  fputs(c->key, out);
  if (c->old_value.type == ENS_NIL) {
    fputs(" set to ", out);
    s_put_value(out, c->new_value, r->new_ref);
  } else if (c->new_value.type == ENS_NIL) {
    fputc(' ', out);
    s_put_value(out, c->old_value, r->old_ref);
    fputs(" removed", out);
  } else {
    size_t skip = s_skip(c->old_value, c->new_value);
    fputc(' ', out);
    s_put_value_from(out, c->old_value, r->old_ref, skip);
    fputs(" → ", out);
    s_put_value_from(out, c->new_value, r->new_ref, skip);
  }
  return 1;
}

/* Layout only: blank text between elements, which people do not see. */
static int s_blank(ens_value v) {
  if (v.type != ENS_STR) return 0;
  for (size_t i = 0; i < v.u.s.len; i++)
    if (!strchr(" \t\r\n", v.u.s.ptr[i])) return 0;
  return 1;
}

static int s_shown(const ens__change_rec *r) {
  if (!r->blank) return 1;
  return r->c.kind == ENS_CHANGE_SET && !(s_blank(r->c.old_value) && s_blank(r->c.new_value));
}

typedef struct {
  const char *group;
  size_t first;
} s_group;

static int s_group_cmp(const void *p, const void *q) {
  const s_group *a = p, *b = q;
  int c = strcmp(a->group, b->group);
  return c ? c : (a->first > b->first) - (a->first < b->first);
}

int ens_changes_write_text(const ens_changes *c, const char *doc_kind, FILE *out) {
  if (!c || !out) return ens__error(ENS_EINVAL, "ens_changes_write_text needs a change list and a stream");
  int sfd = doc_kind && !strcmp(doc_kind, "sfd"), svg = doc_kind && !strcmp(doc_kind, "svg");
  if (!c->n) return 0;
  /* each record's group, numbered by its first appearance */
  s_group *gs = malloc(c->n * sizeof *gs);
  size_t *gid = malloc(c->n * sizeof *gid), *order = malloc(c->n * sizeof *order), *start = NULL;
  if (!gs || !gid || !order) goto oom;
  for (size_t i = 0; i < c->n; i++) gs[i] = (s_group){c->recs[i].c.group, i};
  qsort(gs, c->n, sizeof *gs, s_group_cmp);
  for (size_t i = 0; i < c->n;) {
    size_t j = i;
    while (j < c->n && !strcmp(gs[j].group, gs[i].group)) gid[gs[j++].first] = gs[i].first;
    i = j;
  }
  /* records ordered by (their group's first record, their own place) */
  start = calloc(c->n + 1, sizeof *start);
  if (!start) goto oom;
  for (size_t i = 0; i < c->n; i++) start[gid[i] + 1]++;
  for (size_t i = 0; i < c->n; i++) start[i + 1] += start[i];
  for (size_t i = 0; i < c->n; i++) order[start[gid[i]]++] = i;
  for (size_t k = 0; k < c->n;) {
    size_t g = gid[order[k]], end = k;
    while (end < c->n && gid[order[end]] == g) end++;
    /* a group's records are consecutive in order[]; those of one object
     * kept consecutive too, so x and y pair up */
    int any = 0;
    for (size_t i = k; i < end;) {
      const ens__change_rec *r = &c->recs[order[i]];
      if (!s_shown(r)) {
        i++;
        continue;
      }
      if (!any) {
        const char *label = r->group_label && *r->group_label ? r->group_label : sfd ? "font" : "document";
        fprintf(out, "%s: ", label);
        any = 1;
      } else {
        fputs("; ", out);
      }
      size_t left = 1;
      while (i + left < end && order[i + left] == order[i] + left) left++;
      i += s_part(out, r, left, sfd, svg);
    }
    if (any) fputc('\n', out);
    k = end;
  }
  free(gs);
  free(gid);
  free(order);
  free(start);
  return ferror(out) ? ens__error(ENS_EIO, "cannot write the changes") : 0;
oom:
  free(gs);
  free(gid);
  free(order);
  free(start);
  return ens__error(ENS_ENOMEM, "out of memory writing the changes");
}

/* --- JSON ----------------------------------------------------------------------------------- */

static void s_json_str(FILE *out, const char *s, size_t n) {
  fputc('"', out);
  for (size_t i = 0; i < n;) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') {
      fputc('\\', out);
      fputc(ch, out);
      i++;
    } else if (ch < 0x20 || ch == 0x7f) {
      fprintf(out, "\\u%04x", ch);
      i++;
    } else if (ch < 0x80) {
      fputc(ch, out);
      i++;
    } else {
      size_t j = i;
      int32_t cp = ens__utf8_next(s, n, &j);
      if (cp < 0 || j <= i) {
        /* not UTF-8: the byte as the code point of its value */
        fprintf(out, "\\u%04x", ch);
        i++;
      } else {
        fwrite(s + i, 1, j - i, out);
        i = j;
      }
    }
  }
  fputc('"', out);
}

static void s_json_cstr(FILE *out, const char *s) {
  if (s) s_json_str(out, s, strlen(s));
  else fputs("null", out);
}

static void s_json_id(FILE *out, ens_id id) {
  if (!id) fputs("null", out);
  else fprintf(out, "\"%" PRIu32 ":%" PRIu64 "\"", ens_id_site(id), (uint64_t)ens_id_counter(id));
}

static void s_json_value(FILE *out, ens_value v, const char *ref_path) {
  switch (v.type) {
  case ENS_NIL: fputs("null", out); break;
  case ENS_INT: fprintf(out, "%" PRId64, v.u.i); break;
  case ENS_REAL:
    if (isfinite(v.u.r)) fprintf(out, "%.17g", v.u.r);
    else fprintf(out, "{\"real\":\"%s\"}", isnan(v.u.r) ? "nan" : v.u.r > 0 ? "inf" : "-inf");
    break;
  case ENS_BOOL: fputs(v.u.b ? "true" : "false", out); break;
  case ENS_STR: s_json_str(out, v.u.s.ptr, v.u.s.len); break;
  case ENS_BYTES:
    fputs("{\"bytes\":\"", out);
    for (size_t i = 0; i < v.u.s.len; i++) fprintf(out, "%02x", (unsigned char)v.u.s.ptr[i]);
    fputs("\"}", out);
    break;
  case ENS_REF:
    fputs("{\"ref\":", out);
    s_json_id(out, v.u.ref);
    fputs(",\"path\":", out);
    s_json_cstr(out, ref_path);
    fputc('}', out);
    break;
  }
}

int ens_changes_write_json(const ens_changes *c, const char *doc_kind, FILE *out) {
  if (!c || !out) return ens__error(ENS_EINVAL, "ens_changes_write_json needs a change list and a stream");
  fputs("{\"version\":1,\"kind\":", out);
  s_json_cstr(out, doc_kind);
  fprintf(out, ",\"count\":%zu,\"changes\":[", c->n);
  for (size_t i = 0; i < c->n; i++) {
    const ens__change_rec *r = &c->recs[i];
    const ens_change *ch = &r->c;
    fputs(i ? ",\n{" : "\n{", out);
    fprintf(out, "\"change\":\"%s\",\"object\":", ens_change_kind_name(ch->kind));
    s_json_cstr(out, ch->obj_kind);
    fputs(",\"path\":", out);
    s_json_cstr(out, ch->path);
    fputs(",\"group\":", out);
    s_json_cstr(out, ch->group);
    fputs(",\"old_id\":", out);
    s_json_id(out, ch->old_id);
    fputs(",\"new_id\":", out);
    s_json_id(out, ch->new_id);
    if (ch->kind == ENS_CHANGE_SET || ch->kind == ENS_CHANGE_RENAMED) {
      fputs(",\"key\":", out);
      s_json_cstr(out, ch->key);
      fputs(",\"old\":", out);
      s_json_value(out, ch->old_value, r->old_ref);
      fputs(",\"new\":", out);
      s_json_value(out, ch->new_value, r->new_ref);
    }
    if (ch->kind == ENS_CHANGE_MOVED || ch->kind == ENS_CHANGE_RENAMED) {
      fputs(",\"old_path\":", out);
      s_json_cstr(out, ch->old_path);
    }
    if (ch->kind == ENS_CHANGE_MOVED) {
      fprintf(out, ",\"within\":%s,\"after\":", r->reorder ? "true" : "false");
      s_json_cstr(out, ch->after);
    }
    fputc('}', out);
  }
  fputs(c->n ? "\n]}\n" : "]}\n", out);
  return ferror(out) ? ens__error(ENS_EIO, "cannot write the changes") : 0;
}
