/* Glyph names inside text the reader keeps verbatim: a glyph's
 * substitutions, ligatures, pair positioning and math variants, and the
 * font's kerning classes, mark classes and contextual lookups all name
 * glyphs by name. Renaming or removing a glyph rewrites those names, as
 * FontForge does, so the file never names a glyph that is gone. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/buf.h"
#include "../../util/error.h"
#include "glyph_int.h"
#include "sfd_int.h"

typedef struct {
  const char *old;
  size_t old_n;
  const char *now; /* NULL: remove */
  size_t now_n;
  int changed;
} s_ren;

static int s_starts(const char *s, size_t n, const char *w) {
  size_t k = strlen(w);
  return n >= k && memcmp(s, w, k) == 0;
}

/* Appends the space-separated names of [p, e) with old replaced (or
 * dropped with the blanks before it); in a composition only the part of
 * a token before '%' is a name ("name%a,b,c,d"). Returns how many names
 * remain. Blanks are kept as they were. */
static size_t s_names(s_ren *r, const char *p, const char *e, int composition, ens_buf *out) {
  const char *start = p;
  size_t kept = 0;
  while (p < e) {
    const char *sep = p;
    while (p < e && *p == ' ') p++;
    if (p >= e) { /* trailing blanks */
      ens__buf_append(out, sep, (size_t)(p - sep));
      break;
    }
    const char *t = p;
    while (p < e && *p != ' ') p++;
    size_t tn = (size_t)(p - t), nn = tn;
    if (composition) {
      const char *pc = memchr(t, '%', tn);
      if (pc) nn = (size_t)(pc - t);
    }
    int hit = nn == r->old_n && memcmp(t, r->old, nn) == 0;
    if (hit) r->changed = 1;
    if (hit && !r->now) continue;
    if (kept || sep == start) ens__buf_append(out, sep, (size_t)(t - sep));
    if (hit) {
      ens__buf_append(out, r->now, r->now_n);
      ens__buf_append(out, t + nn, tn - nn);
    } else {
      ens__buf_append(out, t, tn);
    }
    kept++;
  }
  return kept;
}

/* "len names" where len is the byte length of the names: class lists of
 * kerning classes, mark classes and contextual lookups. p points at len.
 * Returns 1 when [p, e) is such a list (then it is written to out with
 * its new length), 0 otherwise. */
static int s_len_list(s_ren *r, const char *p, const char *e, ens_buf *out) {
  size_t len = 0;
  const char *q = p;
  if (q >= e || *q < '0' || *q > '9') return 0;
  while (q < e && *q >= '0' && *q <= '9' && len < (SIZE_MAX - 9) / 10) len = len * 10 + (size_t)(*q++ - '0');
  if (q < e && *q != ' ') return 0;
  const char *names = q < e ? q + 1 : e;
  if ((size_t)(e - names) != len) return 0;
  ens_buf nb = ENS_BUF_INIT;
  s_names(r, names, e, 0, &nb);
  char b[32];
  int k = snprintf(b, sizeof b, "%zu", nb.len);
  ens__buf_append(out, b, (size_t)k);
  ens__buf_putc(out, ' ');
  if (nb.len) ens__buf_append(out, nb.data, nb.len);
  if (nb.oom) out->oom = 1;
  ens__buf_free(&nb);
  return 1;
}

/* Past the quoted (UTF-7) subtable name that starts at p, or NULL. */
static const char *s_past_quote(const char *p, const char *e) {
  if (p >= e || *p != '"') return NULL;
  for (p++; p < e; p++) {
    if (*p == '\\' && p + 1 < e) p++;
    else if (*p == '"') return p + 1;
  }
  return NULL;
}

enum { S_IN_NONE, S_IN_KERNCLASS, S_IN_MARKCLASSES };

static size_t s_count(const char **q, const char *e) {
  size_t v = 0;
  while (*q < e && **q >= '0' && **q <= '9' && v < 100000000) v = v * 10 + (size_t)(*(*q)++ - '0');
  return v;
}

/* A kerning class block read as FontForge reads it: "KernClass2: N[+] M
 * name", then the first classes (class 0 only with the '+') and the
 * second classes 1..M-1, each "len names" where len counts bytes, blanks
 * and line breaks before it skipped. A class may run over its line
 * (DejaVu has a class whose names end with a line break and a blank, and
 * FontForge reads the next line as part of it), so line by line would
 * lose track. Writes the header and classes to out with the names
 * rewritten and their lengths recomputed; returns the bytes read, or 0
 * (out as it was) when the text is not such a block. */
static size_t s_kernclass(s_ren *r, const char *p, const char *e, ens_buf *out) {
  ens__sfd_line ln;
  ens__sfd_line_at(p, e, &ln);
  const char *q = memchr(ln.s, ':', ln.n), *le = ln.s + ln.n;
  if (!q) return 0;
  for (q++; q < le && *q == ' '; q++) {}
  const char *d = q;
  size_t first = s_count(&q, le);
  if (q == d || !first) return 0;
  int plus = q < le && *q == '+';
  q += plus;
  for (; q < le && *q == ' '; q++) {}
  d = q;
  size_t second = s_count(&q, le);
  if (q == d || !second) return 0;
  size_t mark = out->len, classes = (plus ? first : first - 1) + second - 1;
  ens__buf_append(out, p, (size_t)(ln.next - p));
  q = ln.next;
  for (size_t k = 0; k < classes; k++) {
    const char *w = q;
    while (q < e && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
    ens__buf_append(out, w, (size_t)(q - w));
    d = q;
    size_t len = s_count(&q, e);
    if (q == d || q >= e || (size_t)(e - q - 1) < len) {
      out->len = mark;
      return 0;
    }
    const char *names = q + 1;
    ens_buf nb = ENS_BUF_INIT;
    s_names(r, names, names + len, 0, &nb);
    char b[32];
    int bn = snprintf(b, sizeof b, "%zu", nb.len);
    ens__buf_append(out, b, (size_t)bn);
    ens__buf_putc(out, *q); /* the separator FontForge skips, as it was */
    if (nb.len) ens__buf_append(out, nb.data, nb.len);
    if (nb.oom) out->oom = 1;
    ens__buf_free(&nb);
    q = names + len;
  }
  return (size_t)(q - p);
}

/* One line (without its terminator). Writes it, changed or not, to out;
 * returns 0 to keep it, 1 when a removal leaves it meaningless (drop). */
static int s_line(s_ren *r, const char *s, size_t n, int *state, ens_buf *out) {
  const char *e = s + n;
  size_t mark = out->len;
  if (!memmem(s, n, r->old, r->old_n)) { /* the common case: nothing to do */
    if (*state == S_IN_KERNCLASS || *state == S_IN_MARKCLASSES) {
      /* still inside the block while lines read as class lists */
      const char *p = s;
      if (*state == S_IN_MARKCLASSES) p = s_past_quote(p, e);
      while (p && p < e && *p == ' ') p++;
      ens_buf tmp = ENS_BUF_INIT;
      if (!p || !s_len_list(r, p, e, &tmp)) *state = S_IN_NONE;
      ens__buf_free(&tmp);
    }
    ens__buf_append(out, s, n);
    if (s_starts(s, n, "KernClass2:") || s_starts(s, n, "VKernClass2:")) *state = S_IN_KERNCLASS;
    else if (s_starts(s, n, "MarkAttachClasses:") || s_starts(s, n, "MarkAttachSets:")) *state = S_IN_MARKCLASSES;
    return 0;
  }
  /* glyph lines: Word: "subtable" names */
  static const char *const pst[] = {"Substitution2:", "AlternateSubs2:", "MultipleSubs2:", "Ligature2:", "PairPos2:"};
  for (size_t i = 0; i < sizeof pst / sizeof pst[0]; i++) {
    if (!s_starts(s, n, pst[i])) continue;
    const char *p = s + strlen(pst[i]);
    while (p < e && *p == ' ') p++;
    const char *q = s_past_quote(p, e);
    if (!q) break;
    while (q < e && *q == ' ') q++;
    ens__buf_append(out, s, (size_t)(q - s));
    int was = r->changed;
    r->changed = 0;
    size_t kept;
    if (i == 4) { /* PairPos2: "sub" name dx=.. dy=..: only the first token names */
      const char *t = q;
      while (t < e && *t != ' ') t++;
      kept = s_names(r, q, t, 0, out);
      ens__buf_append(out, t, (size_t)(e - t));
    } else {
      kept = s_names(r, q, e, 0, out);
    }
    int hit = r->changed;
    r->changed |= was;
    /* without the glyph, a single substitution, a ligature, a multiple
     * substitution or a pair means nothing: the line goes */
    if (hit && !r->now && (i != 1 || kept == 0)) {
      out->len = mark;
      return 1;
    }
    return 0;
  }
  static const char *const math[] = {"GlyphVariantsVertical:", "GlyphVariantsHorizontal:", "GlyphCompositionVertical:",
                                     "GlyphCompositionHorizontal:"};
  for (size_t i = 0; i < 4; i++) {
    if (!s_starts(s, n, math[i])) continue;
    const char *q = s + strlen(math[i]);
    while (q < e && *q == ' ') q++;
    if (i >= 2) { /* the part count first */
      while (q < e && *q != ' ') q++;
      while (q < e && *q == ' ') q++;
    }
    ens__buf_append(out, s, (size_t)(q - s));
    int was = r->changed;
    r->changed = 0;
    size_t kept = s_names(r, q, e, i >= 2, out);
    int hit = r->changed;
    r->changed |= was;
    if (hit && !r->now && (i >= 2 || kept == 0)) { /* a composition missing a part is wrong */
      out->len = mark;
      return 1;
    }
    return 0;
  }
  /* class lists: contextual lookups ("  Coverage: len names"), kerning
   * classes (" len names") and mark classes ("\"name\" len names") */
  static const char *const fpst[] = {"Coverage:", "BCoverage:", "FCoverage:", "Class:", "BClass:", "FClass:",
                                     "String:",   "BString:",   "FString:",   "Replace:"};
  const char *p = s;
  while (p < e && *p == ' ') p++;
  for (size_t i = 0; i < sizeof fpst / sizeof fpst[0]; i++) {
    if (!s_starts(p, (size_t)(e - p), fpst[i])) continue;
    const char *q = p + strlen(fpst[i]);
    while (q < e && *q == ' ') q++;
    ens__buf_append(out, s, (size_t)(q - s));
    if (s_len_list(r, q, e, out)) return 0;
    out->len = mark;
    break;
  }
  if (*state == S_IN_KERNCLASS || *state == S_IN_MARKCLASSES) {
    const char *q = *state == S_IN_MARKCLASSES ? s_past_quote(s, e) : s;
    while (q && q < e && *q == ' ') q++;
    if (q) {
      ens__buf_append(out, s, (size_t)(q - s));
      if (s_len_list(r, q, e, out)) return 0;
      out->len = mark;
    }
    *state = S_IN_NONE;
  }
  ens__buf_append(out, s, n);
  if (s_starts(s, n, "KernClass2:") || s_starts(s, n, "VKernClass2:")) *state = S_IN_KERNCLASS;
  else if (s_starts(s, n, "MarkAttachClasses:") || s_starts(s, n, "MarkAttachSets:")) *state = S_IN_MARKCLASSES;
  return 0;
}

/* Rewrites one text property of obj when it names the glyph. */
static int s_text(s_ren *r, const ens_obj *obj, const char *key, ens_txn *txn) {
  ens_value v;
  if (ens_obj_get(obj, key, &v) || (v.type != ENS_STR && v.type != ENS_BYTES)) return 0;
  if (!memmem(v.u.s.ptr, v.u.s.len, r->old, r->old_n)) return 0;
  ens_buf out = ENS_BUF_INIT;
  const char *p = v.u.s.ptr, *e = p + v.u.s.len;
  int state = S_IN_NONE, rc = 0;
  r->changed = 0;
  while (p < e) {
    /* multi-line entries (instructions, images, pickled data) hold no
     * names and are copied as they are; contextual lookups (ChainPos2:
     * .. EndFPST) are read line by line */
    uint32_t nl;
    size_t len = ens__sfd_entry(p, e, &nl);
    if (!len) len = (size_t)(e - p);
    ens__sfd_line first;
    ens__sfd_line_at(p, e, &first);
    const char *t;
    size_t tn = ens__sfd_token(first.s, first.n, &t);
    int fpst = tn && (s_starts(t, tn, "Chain") || s_starts(t, tn, "Context") || s_starts(t, tn, "ReverseChain"));
    if (tn && (s_starts(t, tn, "KernClass2:") || s_starts(t, tn, "VKernClass2:"))) {
      size_t used = s_kernclass(r, p, e, &out);
      if (used) {
        p += used;
        state = S_IN_NONE;
        continue;
      }
    }
    if (nl > 1 && !fpst) {
      ens__buf_append(&out, p, len);
      p += len;
      state = S_IN_NONE;
      continue;
    }
    const char *ee = p + len;
    while (p < ee) {
      const char *lnl = memchr(p, '\n', (size_t)(ee - p));
      const char *le = lnl ? lnl : ee, *next = lnl ? lnl + 1 : ee;
      const char *ce = le > p && le[-1] == '\r' ? le - 1 : le;
      if (s_line(r, p, (size_t)(ce - p), &state, &out) == 0) ens__buf_append(&out, ce, (size_t)(next - ce));
      p = next;
    }
  }
  if (out.oom) rc = ens__error(ENS_ENOMEM, "out of memory renaming a glyph");
  else if (r->changed) {
    ens_value nv = v.type == ENS_STR ? ens_strn((const char *)out.data, out.len) : ens_bytes(out.data, out.len);
    rc = ens_txn_set(txn, ens_obj_id(obj), key, nv);
  }
  ens__buf_free(&out);
  return rc;
}

typedef struct {
  s_ren *r;
  ens_txn *txn;
  const ens_obj *skip; /* the glyph being removed: its text goes with it */
  int rc;
} s_walk;

static int s_walk_fn(const ens_obj *o, size_t depth, void *user) {
  s_walk *w = user;
  const char *kind = ens_obj_kind(o);
  if (w->skip && (o == w->skip || ens_obj_parent(o) == w->skip)) return 0;
  /* names live in the own text of the font and of glyphs, and in raw
   * text between their children; outlines and kerning pairs hold none */
  if (depth == 0 || strcmp(kind, ENS_SFD_GLYPH) == 0) {
    if ((w->rc = s_text(w->r, o, "~head", w->txn)) || (w->rc = s_text(w->r, o, "~tail", w->txn))) return 1;
  } else if (strcmp(kind, ENS_SFD_RAW) == 0 && depth <= 2) {
    const ens_obj *parent = ens_obj_parent(o);
    if (!ens_obj_parent(parent) || strcmp(ens_obj_kind(parent), ENS_SFD_GLYPH) == 0)
      if ((w->rc = s_text(w->r, o, "~text", w->txn))) return 1;
  }
  return 0;
}

int ens__glyph_names_fix(const ens_doc *doc, const char *old_name, const char *new_name, ens_txn *txn) {
  s_ren r = {old_name, strlen(old_name), new_name, new_name ? strlen(new_name) : 0, 0};
  if (!r.old_n) return 0;
  s_walk w = {&r, txn, new_name ? NULL : ens_glyph_find(doc, old_name), 0};
  ens_obj_walk(ens_doc_root(doc), s_walk_fn, &w);
  return w.rc;
}
