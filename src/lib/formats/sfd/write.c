/* The SFD writer: each object's own text goes back as it was while the
 * properties it models still equal what that text reads as; a line whose
 * properties changed is printed again in FontForge's style, and nothing
 * else moves. Verification re-reads the kept text with the reader's own
 * parsers, so "unchanged" means exactly "reads back to these values". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "sfd_int.h"

#define S_MAXK 160

/* Key and value side by side: one cache line per probe. */
typedef struct {
  uint64_t key; /* key + 1; 0 marks an empty slot */
  int64_t val;
} s_islot;

typedef struct {
  s_islot *slots;
  size_t cap, count; /* cap is a power of two */
} s_imap;

struct ens__sfd_wctx {
  const ens_doc *doc;
  const char *atoms[S_MAXK];
  uint32_t aidx[S_MAXK]; /* atom index of each key, UINT32_MAX when the document has none */
  int16_t *kid;          /* key id of each atom index of the document, -1 for others */
  uint32_t nkid;
  const char *kinds[S_NKINDS];
  int nk;
  const char *eol;
  size_t eol_n;
  ens_buf scratch;
  ens__sfd_kernpair *kp;
  size_t kpcap;
  /* glyph numbers, as the reader assigned them */
  s_imap num;  /* (section, gid) -> id */
  s_imap enc;  /* (section, encoding) -> id */
  s_imap rgid; /* id -> gid */
  s_imap renc; /* id -> encoding */
  /* id -> how its Encoding line carries its gid: PIN_HIDE, a line of two
   * numbers that the running count still numbers right; PIN_FORCE, a
   * line of two numbers that must now say the gid (s_number_glyphs) */
  s_imap pin;
  uint32_t section;
  /* nothing in the font changed since reading (its root is still marked
   * as read): no glyph was added, removed or renumbered, so every number
   * in a reference or kerning line still names the glyph it named, and
   * the glyphs are not numbered at all */
  int unchanged;
  ens__sfd_sink sink; /* NULL: all of the text stays in the buffer */
  void *sink_user;
  int err;
};

/* Properties of one object by key id. */
typedef struct {
  ens_value val[S_MAXK];
  uint8_t has[S_MAXK];
} s_props;

/* --- maps ------------------------------------------------------------------------- */

static uint64_t s_mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

/* Room for n entries at most half full, so that filling it never rehashes. */
static int s_imap_grow(s_imap *m, size_t n) {
  size_t nc = m->cap ? m->cap : 1024;
  while (nc < 2 * n) nc *= 2;
  if (nc == m->cap) return 0;
  s_islot *ns = calloc(nc, sizeof *ns);
  if (!ns) return ens__error(ENS_ENOMEM, "out of memory writing SFD");
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].key) continue;
    size_t j = s_mix(m->slots[i].key) & (nc - 1);
    while (ns[j].key) j = (j + 1) & (nc - 1);
    ns[j] = m->slots[i];
  }
  free(m->slots);
  m->slots = ns;
  m->cap = nc;
  return 0;
}

static int s_imap_put(s_imap *m, uint64_t key, int64_t val) {
  if ((m->count + 1) * 2 > m->cap && s_imap_grow(m, m->count + 1)) return ENS_ENOMEM;
  key++;
  size_t j = s_mix(key) & (m->cap - 1);
  while (m->slots[j].key) {
    if (m->slots[j].key == key) return 0;
    j = (j + 1) & (m->cap - 1);
  }
  m->slots[j].key = key;
  m->slots[j].val = val;
  m->count++;
  return 0;
}

static int s_imap_get(const s_imap *m, uint64_t key, int64_t *val) {
  if (!m->cap) return 0;
  key++;
  size_t j = s_mix(key) & (m->cap - 1);
  while (m->slots[j].key) {
    if (m->slots[j].key == key) {
      *val = m->slots[j].val;
      return 1;
    }
    j = (j + 1) & (m->cap - 1);
  }
  return 0;
}

static uint64_t s_mkey(uint32_t section, int64_t v) { return ((uint64_t)section << 40) ^ (uint64_t)(uint32_t)v; }

/* --- context ---------------------------------------------------------------------- */

static int s_kid(const ens__sfd_wctx *w, uint32_t key) { return key < w->nkid ? w->kid[key] : -1; }

ens__sfd_wctx *ens__sfd_wctx_new(const ens_doc *doc) {
  ens__sfd_wctx *w = calloc(1, sizeof *w);
  if (!w) {
    ens__error(ENS_ENOMEM, "out of memory writing SFD");
    return NULL;
  }
  w->doc = doc;
  /* scratch strings are addressed as data + offset: data must never be NULL */
  if (ens__buf_reserve(&w->scratch, 64)) {
    free(w);
    ens__error(ENS_ENOMEM, "out of memory writing SFD");
    return NULL;
  }
  w->nk = ens__sfd_key_count();
  w->nkid = doc->atoms.count;
  w->kid = malloc((w->nkid ? w->nkid : 1) * sizeof *w->kid);
  if (!w->kid) {
    ens__buf_free(&w->scratch);
    free(w);
    ens__error(ENS_ENOMEM, "out of memory writing SFD");
    return NULL;
  }
  for (uint32_t i = 0; i < w->nkid; i++) w->kid[i] = -1;
  for (int k = 0; k < S_MAXK; k++) w->aidx[k] = UINT32_MAX;
  for (int k = 0; k < w->nk && k < S_MAXK; k++) {
    const char *name = ens__sfd_key_name(k);
    w->atoms[k] = ens__atom_find(doc, name, strlen(name));
    if (!w->atoms[k]) continue;
    w->aidx[k] = ens__atom_index(w->atoms[k]);
    w->kid[w->aidx[k]] = (int16_t)k;
  }
  for (int k = 0; k < S_NKINDS; k++)
    w->kinds[k] = ens__atom_find(doc, ens__sfd_kind_names[k], strlen(ens__sfd_kind_names[k]));
  w->eol = "\n";
  w->eol_n = 1;
  /* new lines end the way the file's first line does */
  const ens__prop *head = w->atoms[S_K_HEAD] ? ens__obj_find_prop(doc->root, w->atoms[S_K_HEAD]) : NULL;
  if (head && (head->type == ENS_BYTES || head->type == ENS_STR)) {
    const char *nl = memchr(head->u.s, '\n', head->len);
    if (nl && nl > head->u.s && nl[-1] == '\r') {
      w->eol = "\r\n";
      w->eol_n = 2;
    }
  }
  return w;
}

void ens__sfd_wctx_free(ens__sfd_wctx *w) {
  if (!w) return;
  ens__buf_free(&w->scratch);
  free(w->kid);
  free(w->kp);
  s_imap *maps[5] = {&w->num, &w->enc, &w->rgid, &w->renc, &w->pin};
  for (int i = 0; i < 5; i++) free(maps[i]->slots);
  free(w);
}

static void s_load(const ens__sfd_wctx *w, const ens_obj *o, s_props *P) {
  memset(P->has, 0, (size_t)w->nk);
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL) continue;
    int k = s_kid(w, p->key);
    if (k < 0) continue;
    P->val[k] = ens__prop_value(p);
    P->has[k] = 1;
  }
}

static int s_kind(const ens__sfd_wctx *w, const ens_obj *o) {
  for (int k = 0; k < S_NKINDS; k++)
    if (o->kind == w->kinds[k]) return k;
  return -1;
}

static const ens__prop *s_prop(const ens__sfd_wctx *w, const ens_obj *o, int k) {
  if (!w->atoms[k]) return NULL;
  const ens__prop *p = ens__obj_find_prop(o, w->atoms[k]);
  return p && p->type != ENS_NIL ? p : NULL;
}

/* The text property k of o; 0 when absent, and then *s is "" (never NULL,
 * so that s + n is defined arithmetic for every caller). */
static int s_text(const ens__sfd_wctx *w, const ens_obj *o, int k, const char **s, size_t *n) {
  const ens__prop *p = s_prop(w, o, k);
  if (!p || (p->type != ENS_BYTES && p->type != ENS_STR)) {
    *s = "";
    *n = 0;
    return 0;
  }
  *s = p->u.s;
  *n = p->len;
  return 1;
}

static int s_num(const ens_value *v, double *d) {
  if (v->type == ENS_REAL) *d = v->u.r;
  else if (v->type == ENS_INT) *d = (double)v->u.i;
  else return 0;
  return 1;
}

static int s_inum(const ens_value *v, int64_t *i) {
  if (v->type == ENS_INT) *i = v->u.i;
  else if (v->type == ENS_BOOL) *i = v->u.b;
  else if (v->type == ENS_REAL) *i = (int64_t)v->u.r;
  else return 0;
  return 1;
}

static int s_streq(const ens_value *v, const char *s, size_t n) {
  if (v->type != ENS_STR && v->type != ENS_BYTES) return 0;
  return v->u.s.len == n && (n == 0 || memcmp(v->u.s.ptr, s, n) == 0);
}

/* The terminator of the line that ends at s + n (within the text end). */
static void s_put_eol_of(ens__sfd_wctx *w, const char *line_end, const char *text_end, ens_buf *out) {
  if (line_end < text_end && *line_end == '\r') ens__buf_append(out, "\r\n", 2);
  else if (line_end < text_end && *line_end == '\n') ens__buf_putc(out, '\n');
  else if (line_end >= text_end) { /* the text's last line had none: keep it so */
  } else ens__buf_append(out, w->eol, w->eol_n);
}

/* --- keyed own text ------------------------------------------------------------- */

typedef struct {
  const ens__sfd_keyspec *table;
  size_t nkeys;
  int root; /* key ids are S_K_ROOT + index */
  uint8_t seen[128];
  uint8_t done[128];
  int saw_endchar;
  int saw_set;
  int sections; /* BeginChars entries seen */
} s_merge;

static int s_spec_key(const s_merge *M, const ens__sfd_keyspec *ks) {
  return M->root ? S_K_ROOT + (int)(ks - M->table) : ks->key;
}

static int s_spec_nkeys(const ens__sfd_keyspec *ks) { return ks->vt == S_V_ENC ? 3 : 1; }

/* Values of spec's properties from P; 0 when its first is absent. */
static int s_spec_vals(const s_merge *M, const ens__sfd_keyspec *ks, const s_props *P, ens_value *vals, int *nv) {
  int k = s_spec_key(M, ks);
  if (!P->has[k]) return 0;
  *nv = 0;
  for (int i = 0; i < s_spec_nkeys(ks); i++) {
    if (!P->has[k + i]) break;
    vals[(*nv)++] = P->val[k + i];
  }
  return 1;
}

static void s_fix_scratch(ens__sfd_wctx *w, ens__sfd_val *v, int nv) {
  for (int i = 0; i < nv; i++)
    if (v[i].in_scratch) v[i].v.u.s.ptr = (const char *)w->scratch.data + (uintptr_t)v[i].v.u.s.ptr;
}

static int s_vals_equal(const ens__sfd_val *a, int na, const ens_value *b, int nb) {
  if (na != nb) return 0;
  for (int i = 0; i < na; i++) {
    const ens_value *x = &a[i].v, *y = &b[i];
    double dx, dy;
    if ((x->type == ENS_STR || x->type == ENS_BYTES) && (y->type == ENS_STR || y->type == ENS_BYTES)) {
      if (!s_streq(y, x->u.s.ptr, x->u.s.len)) return 0;
    } else if (x->type == ENS_INT && y->type == ENS_INT) {
      if (x->u.i != y->u.i) return 0;
    } else if (x->type == ENS_REAL && y->type == ENS_REAL) {
      if (x->u.r != y->u.r) return 0;
    } else if (s_num(x, &dx) && s_num(y, &dy) && x->type != y->type) {
      return 0; /* a type change is a change */
    } else {
      return 0;
    }
  }
  return 1;
}

/* First pass over an own-text segment: which keyed lines it has. */
static void s_prescan(s_merge *M, const char *t, size_t n, size_t *last_keyed_end) {
  const char *p = t, *e = t ? t + n : t; /* no text: t is NULL, and NULL + 0 is undefined */
  while (p < e) {
    uint32_t nl;
    size_t len = ens__sfd_entry(p, e, &nl);
    if (!len) len = (size_t)(e - p);
    if (nl == 1) {
      ens__sfd_line ln;
      ens__sfd_line_at(p, e, &ln);
      const ens__sfd_keyspec *ks = ens__sfd_find_key(M->table, M->nkeys, ln.s, ln.n);
      if (ks) {
        M->seen[ks - M->table] = 1;
        if (last_keyed_end) *last_keyed_end = (size_t)(p + len - t);
      }
    }
    p += len;
  }
}

static void s_missing(ens__sfd_wctx *w, s_merge *M, const s_props *P, ens_buf *out) {
  for (size_t i = 0; i < M->nkeys; i++) {
    if (M->seen[i]) continue;
    ens_value vals[3];
    int nv;
    if (!s_spec_vals(M, &M->table[i], P, vals, &nv)) continue;
    ens__sfd_key_format(&M->table[i], vals, nv, out);
    ens__buf_append(out, w->eol, w->eol_n);
    M->seen[i] = 1;
  }
}

/* Writes an own-text segment, line by line: keyed lines compared with the
 * properties, everything else as it is. insert_at is where lines for
 * properties without a line go (SIZE_MAX: nowhere in this segment). */
static void s_merge_text(ens__sfd_wctx *w, s_merge *M, const s_props *P, const char *t, size_t n, size_t insert_at,
                         ens_buf *out) {
  const char *p = t, *e = t ? t + n : t;
  while (p < e) {
    if ((size_t)(p - t) == insert_at) {
      s_missing(w, M, P, out);
      insert_at = SIZE_MAX;
    }
    uint32_t nl;
    size_t len = ens__sfd_entry(p, e, &nl);
    if (!len) len = (size_t)(e - p);
    ens__sfd_line ln;
    ens__sfd_line_at(p, e, &ln);
    int word = ens__sfd_word(ln.s, ln.n);
    if (word == S_W_ENDCHAR) M->saw_endchar = 1;
    if (word == S_W_SPLINESET || word == S_W_ENDSPLINESET) M->saw_set = 1;
    if (word == S_W_BEGINCHARS) M->sections++;
    const ens__sfd_keyspec *ks = nl == 1 ? ens__sfd_find_key(M->table, M->nkeys, ln.s, ln.n) : NULL;
    if (ks && !M->done[ks - M->table]) {
      M->done[ks - M->table] = 1;
      ens_value cur[3];
      int ncur = 0;
      int present = s_spec_vals(M, ks, P, cur, &ncur);
      ens__sfd_val got[3];
      int ngot;
      const char *why = NULL;
      size_t mark = w->scratch.len;
      int ok = ens__sfd_key_parse(ks, ln.s, ln.n, got, &ngot, &w->scratch, &why) == 0;
      if (ok) s_fix_scratch(w, got, ngot);
      if (ok && !present) { /* the property was removed: so is its line */
        w->scratch.len = mark;
        p += len;
        continue;
      }
      if (present && (!ok || !s_vals_equal(got, ngot, cur, ncur))) {
        ens__sfd_key_format(ks, cur, ncur, out);
        s_put_eol_of(w, ln.s + ln.n, e, out);
        w->scratch.len = mark;
        p += len;
        continue;
      }
      w->scratch.len = mark;
    }
    ens__buf_append(out, p, len);
    p += len;
  }
  if (insert_at != SIZE_MAX) s_missing(w, M, P, out);
}

/* --- glyph numbers --------------------------------------------------------------- */

static int s_count_beginchars(const char *t, size_t n) {
  int k = 0;
  const char *p = t, *e = t + n;
  while (p < e) {
    uint32_t nl;
    size_t len = ens__sfd_entry(p, e, &nl);
    if (!len) break;
    ens__sfd_line ln;
    ens__sfd_line_at(p, e, &ln);
    if (ens__sfd_word(ln.s, ln.n) == S_W_BEGINCHARS) k++;
    p += len;
  }
  return k;
}

enum { PIN_HIDE = 1, PIN_FORCE = 2 };

/* 1 when the glyph's own text has an Encoding: line with a third number
 * of 0 or more (its gid), or no text at all (a new glyph: its line is
 * printed from its properties). A negative third number, which the reader
 * takes for none, goes to *negative (left alone otherwise). */
/* The glyph's Encoding: line in one segment of its own text: 1 with a
 * third number of 0 or more, 0 without one (a negative one goes to
 * *negative), -1 when the segment has no such line. */
static int s_segment_gid(ens__sfd_wctx *w, const char *t, size_t n, int64_t *negative) {
  const char *p = t, *e = t + n;
  while (p < e) { /* entry by entry, as s_merge_text goes: a keyed line is an entry of one line */
    uint32_t nl;
    size_t len = ens__sfd_entry(p, e, &nl);
    if (!len) len = (size_t)(e - p);
    ens__sfd_line ln;
    ens__sfd_line_at(p, e, &ln);
    p += len;
    if (nl != 1) continue;
    const ens__sfd_keyspec *ks = ens__sfd_find_key(ens__sfd_glyph_keys, ens__sfd_glyph_nkeys, ln.s, ln.n);
    if (!ks || ks->vt != S_V_ENC) continue;
    ens__sfd_val got[3];
    int ngot = 0;
    const char *why = NULL;
    size_t mark = w->scratch.len;
    int ok = ens__sfd_key_parse(ks, ln.s, ln.n, got, &ngot, &w->scratch, &why) == 0;
    w->scratch.len = mark;
    if (!ok || ngot != 3) return 0;
    if (got[2].v.u.i >= 0) return 1;
    if (negative) *negative = got[2].v.u.i;
    return 0;
  }
  return -1;
}

/* 1 when the glyph's own text has an Encoding: line with a third number
 * of 0 or more (its gid), or no text at all (a new glyph: its line is
 * printed from its properties). A negative third number, which the reader
 * takes for none, goes to *negative (left alone otherwise). The line is
 * the first of the glyph's segments, in the order the writer merges them:
 * its head, its raw lines, its tail. */
static int s_text_says_gid(ens__sfd_wctx *w, const ens_obj *g, int64_t *negative) {
  const char *t;
  size_t n;
  int has_head = s_text(w, g, S_K_HEAD, &t, &n);
  if (has_head) {
    int r = s_segment_gid(w, t, n, negative);
    if (r >= 0) return r;
  }
  int any = has_head;
  for (uint32_t i = 0; i < g->nkids; i++) {
    if (g->kids[i]->kind != w->kinds[S_RAW] || !s_text(w, g->kids[i], S_K_TEXT, &t, &n)) continue;
    any = 1;
    int r = s_segment_gid(w, t, n, negative);
    if (r >= 0) return r;
  }
  if (s_text(w, g, S_K_TAIL, &t, &n)) {
    any = 1;
    int r = s_segment_gid(w, t, n, negative);
    if (r >= 0) return r;
  }
  return any ? 0 : 1;
}

/* s_prop of a glyph's gid and encoding, in one pass over its properties
 * (a glyph's properties are cold in the cache when numbering them). */
static void s_gid_and_encoding(const ens__sfd_wctx *w, const ens_obj *g, const ens__prop **gp, const ens__prop **ep) {
  uint32_t gk = w->aidx[S_K_GID], ek = w->aidx[S_K_ENCODING];
  *gp = *ep = NULL;
  for (uint32_t i = 0; i < g->nprops && (!*gp || !*ep); i++) {
    const ens__prop *p = &g->props[i];
    if (p->key == gk) *gp = p;
    else if (p->key == ek) *ep = p;
  }
  if (*gp && (*gp)->type == ENS_NIL) *gp = NULL;
  if (*ep && (*ep)->type == ENS_NIL) *ep = NULL;
}

/* Numbers every glyph the way the reader will number the text written:
 * its gid when its Encoding line says one, the running count otherwise;
 * per sub-font section. A glyph the reader numbered by the running count
 * has that number as its gid: where removed glyphs have moved the count,
 * its line gets the gid as a third number (PIN_FORCE), so that a
 * reference or kerning pair by that number still means it. */
static int s_number_glyphs(ens__sfd_wctx *w, int dir) {
  const ens_obj *root = w->doc->root;
  const char *t;
  size_t n;
  uint32_t section = dir ? 1 : 0;
  if (!dir && s_text(w, root, S_K_HEAD, &t, &n)) section += (uint32_t)s_count_beginchars(t, n);
  int64_t next = 0;
  /* sized once for every glyph: no rehash while numbering them */
  if (s_imap_grow(&w->num, root->nkids) || s_imap_grow(&w->rgid, root->nkids) || s_imap_grow(&w->enc, root->nkids) ||
      s_imap_grow(&w->renc, root->nkids))
    return ENS_ENOMEM;
  for (uint32_t i = 0; i < root->nkids; i++) {
    const ens_obj *k = root->kids[i];
    int kind = s_kind(w, k);
    if (kind == S_RAW && !dir && s_text(w, k, S_K_TEXT, &t, &n)) {
      int b = s_count_beginchars(t, n);
      if (b) {
        section += (uint32_t)b;
        next = 0;
      }
      continue;
    }
    if (kind != S_GLYPH) continue;
    const ens__prop *gp, *ep;
    s_gid_and_encoding(w, k, &gp, &ep);
    int64_t gid = gp && gp->type == ENS_INT && gp->u.i >= 0 ? gp->u.i : next; /* as the reader numbers it */
    int pin = 0;
    if (gp && gp->type == ENS_INT && gp->u.i >= 0) {
      /* only edited glyphs are printed from their properties, and a gid
       * that is not the running count needs a third number anyway: the
       * text is read only where it can matter */
      if (gid == next) pin = !k->as_read && !s_text_says_gid(w, k, NULL) ? PIN_HIDE : 0;
      else pin = s_text_says_gid(w, k, NULL) ? 0 : PIN_FORCE;
    }
    if (pin) {
      if (pin == PIN_FORCE && !ep)
        return ens__error(ENS_EINVAL,
                          "glyph %#llx has no Encoding: line to say its number %lld, which the glyphs removed "
                          "before it would change",
                          (unsigned long long)k->id, (long long)gid);
      if (s_imap_put(&w->pin, k->id, pin)) return ENS_ENOMEM;
    }
    if (gid + 1 > next) next = gid + 1;
    if (s_imap_put(&w->num, s_mkey(section, gid), (int64_t)k->id) || s_imap_put(&w->rgid, k->id, gid)) return ENS_ENOMEM;
    if (ep && ep->type == ENS_INT &&
        (s_imap_put(&w->enc, s_mkey(section, ep->u.i), (int64_t)k->id) || s_imap_put(&w->renc, k->id, ep->u.i)))
      return ENS_ENOMEM;
  }
  return 0;
}

/* The glyph a reference line names, as the reader resolved it. */
static ens_id s_target(const ens__sfd_wctx *w, int by_enc, int64_t number) {
  int64_t id;
  return s_imap_get(by_enc ? &w->enc : &w->num, s_mkey(w->section, number), &id) ? (ens_id)id : ENS_ID_NONE;
}

/* --- points and contours ----------------------------------------------------------- */

typedef struct {
  double x, y, c[4];
  int has_c, has_type, has_flags, has_extra, has_ttf, has_nextcp;
  int64_t type, flags, ttf, nextcp;
  const char *extra;
  size_t extra_len;
  int64_t ln;
  int has_ln;
} s_pprops;

static void s_point_props(const ens__sfd_wctx *w, const ens_obj *o, s_pprops *pp) {
  memset(pp, 0, sizeof *pp);
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL) continue;
    uint32_t k = p->key;
    /* x and y first, read straight from the slot: the hot path of saving */
    if (k == w->aidx[S_K_X] && p->type == ENS_REAL) {
      pp->x = p->u.r;
      continue;
    }
    if (k == w->aidx[S_K_Y] && p->type == ENS_REAL) {
      pp->y = p->u.r;
      continue;
    }
    ens_value v = ens__prop_value(p);
    double d;
    int64_t iv;
    if (k == w->aidx[S_K_X]) {
      if (s_num(&v, &d)) pp->x = d;
    } else if (k == w->aidx[S_K_Y]) {
      if (s_num(&v, &d)) pp->y = d;
    } else if (k == w->aidx[S_K_LN] && p->type == ENS_INT) {
      pp->ln = p->u.i;
      pp->has_ln = 1;
    } else if (k == w->aidx[S_K_TTF] && p->type == ENS_INT) {
      pp->ttf = p->u.i;
      pp->has_ttf = 1;
    } else if (k == w->aidx[S_K_NEXTCP] && p->type == ENS_INT) {
      pp->nextcp = p->u.i;
      pp->has_nextcp = 1;
    } else if ((k == w->aidx[S_K_TYPE] || k == w->aidx[S_K_FLAGS]) && p->type == ENS_INT) {
      if (k == w->aidx[S_K_TYPE]) {
        pp->type = p->u.i;
        pp->has_type = 1;
      } else {
        pp->flags = p->u.i;
        pp->has_flags = 1;
      }
    } else if (k == w->aidx[S_K_C1X] || k == w->aidx[S_K_C1Y] || k == w->aidx[S_K_C2X] || k == w->aidx[S_K_C2Y]) {
      int j = k == w->aidx[S_K_C1X] ? 0 : k == w->aidx[S_K_C1Y] ? 1 : k == w->aidx[S_K_C2X] ? 2 : 3;
      if (s_num(&v, &d)) pp->c[j] = d;
      pp->has_c = 1;
    } else if (k == w->aidx[S_K_TYPE]) {
      if (s_inum(&v, &iv)) pp->type = iv;
      pp->has_type = 1;
    } else if (k == w->aidx[S_K_FLAGS]) {
      if (s_inum(&v, &iv)) pp->flags = iv;
      pp->has_flags = 1;
    } else if (k == w->aidx[S_K_EXTRA]) {
      if (v.type == ENS_STR || v.type == ENS_BYTES) {
        pp->extra = v.u.s.ptr;
        pp->extra_len = v.u.s.len;
        pp->has_extra = 1;
      }
    } else if (k == w->aidx[S_K_LN]) {
      if (v.type == ENS_INT) {
        pp->ln = v.u.i;
        pp->has_ln = 1;
      }
    }
  }
}

static int s_point_matches(const s_pprops *pp, const char *s, size_t n, int first) {
  ens__sfd_point pt;
  const char *why;
  if (ens__sfd_parse_point(s, n, &pt, &why)) return 0;
  char seg = first ? 'm' : pp->has_c ? 'c' : 'l';
  if (pt.seg != seg || !ens__sfd_same_real(pt.x, pp->x) || !ens__sfd_same_real(pt.y, pp->y)) return 0;
  if (seg == 'c')
    for (int j = 0; j < 4; j++)
      if (!ens__sfd_same_real(pt.c[j], pp->c[j])) return 0;
  int has = pp->has_type || pp->has_flags;
  if (pt.has_flags != has) return 0;
  if (has && ((pt.flags & 3) != (pp->type & 3) || (pt.flags & ~(int64_t)3) != pp->flags)) return 0;
  int ttf = pp->has_ttf || pp->has_nextcp;
  if (pt.has_ttf != ttf || (ttf && (pt.ttf != (pp->has_ttf ? pp->ttf : -1) || pt.nextcp != (pp->has_nextcp ? pp->nextcp : -1))))
    return 0;
  if ((pt.extra_len != 0) != (pp->has_extra && pp->extra_len)) return 0;
  if (pt.extra_len && memcmp(pt.extra, pp->extra, pt.extra_len) != 0) return 0;
  return 1;
}

static void s_point_line(const s_pprops *pp, int first, ens_buf *out) {
  ens__sfd_point pt;
  memset(&pt, 0, sizeof pt);
  pt.x = pp->x;
  pt.y = pp->y;
  pt.seg = first ? 'm' : pp->has_c ? 'c' : 'l';
  memcpy(pt.c, pp->c, sizeof pt.c);
  pt.has_flags = pp->has_type || pp->has_flags;
  pt.flags = (pp->type & 3) | (pp->flags & ~(int64_t)3);
  pt.has_ttf = pt.has_flags && (pp->has_ttf || pp->has_nextcp);
  pt.ttf = pp->has_ttf ? pp->ttf : -1;
  pt.nextcp = pp->has_nextcp ? pp->nextcp : -1;
  pt.extra = pp->extra ? pp->extra : "";
  pt.extra_len = pp->has_extra ? pp->extra_len : 0;
  ens__sfd_format_point(&pt, first, out);
}

/* Lines of a contour's text: point lines (each with the lines that follow
 * it up to the next point line) and the tail (Spiro, Named, PathFlags
 * after the last point). */
typedef struct {
  const char *s; /* point line */
  size_t n;      /* its content */
  const char *group_end; /* end of its following lines */
} s_pline;

static int s_write_contour(ens__sfd_wctx *w, const ens_obj *c, ens_buf *out) {
  const char *t = NULL;
  size_t tn = 0;
  s_text(w, c, S_K_TEXT, &t, &tn);
  if (c->as_read) { /* nothing in it changed since it was read: its text says it all */
    if (tn) ens__buf_append(out, t, tn);
    return 0;
  }
  const char *e = t + tn;
  s_pline small[64], *pl = small;
  size_t npl = 0, cap = 64;
  const char *tail = e;
  int rc = 0;
  /* cut the text (the reader's cut: point lines, blocks for Spiro) */
  const char *p = t;
  while (p && p < e) {
    ens__sfd_line ln;
    ens__sfd_line_at(p, e, &ln);
    int word = ens__sfd_word(ln.s, ln.n);
    size_t len = (size_t)(ln.next - p);
    if (word != S_W_NUMBER && word != S_W_BLANK && word != S_W_NAMEDP) {
      /* the reader's cut: a block (Spiro, TtInstrs, a quoted string over
       * lines) is one entry, whatever its lines start with */
      uint32_t nl;
      len = ens__sfd_entry(p, e, &nl);
      if (!len) len = (size_t)(e - p);
    }
    if (word == S_W_NUMBER) {
      if (npl == cap) {
        s_pline *np = malloc(2 * cap * sizeof *np);
        if (!np) {
          rc = ens__error(ENS_ENOMEM, "out of memory writing SFD");
          goto done;
        }
        memcpy(np, pl, npl * sizeof *np);
        if (pl != small) free(pl);
        pl = np;
        cap *= 2;
      }
      pl[npl].s = ln.s;
      pl[npl].n = ln.n;
      pl[npl].group_end = p + len;
      npl++;
      tail = e;
    } else if (npl) {
      if (word == S_W_CONTOURTAIL && tail == e) tail = p;
      if (tail == e) pl[npl - 1].group_end = p + len;
    }
    p += len;
  }
  /* fast path: every point still reads from its own line, in order */
  int all = c->nkids == npl;
  s_pprops pp;
  for (uint32_t i = 0; all && i < c->nkids; i++) {
    s_point_props(w, c->kids[i], &pp);
    if (c->kids[i]->kind != w->kinds[S_POINT] || !pp.has_ln || pp.ln != (int64_t)i ||
        !s_point_matches(&pp, pl[i].s, pl[i].n, i == 0))
      all = 0;
  }
  if (all) {
    ens__buf_append(out, t, tn);
    goto done;
  }
  for (uint32_t i = 0; i < c->nkids; i++) {
    const ens_obj *k = c->kids[i];
    if (k->kind != w->kinds[S_POINT]) {
      rc = ens__error(ENS_EINVAL, "a contour may hold only points (object %#llx is a %s)",
                      (unsigned long long)k->id, k->kind);
      goto done;
    }
    s_point_props(w, k, &pp);
    const s_pline *own = pp.has_ln && pp.ln >= 0 && (size_t)pp.ln < npl ? &pl[pp.ln] : NULL;
    if (own && s_point_matches(&pp, own->s, own->n, i == 0)) {
      ens__buf_append(out, own->s, (size_t)(own->group_end - own->s));
      continue;
    }
    s_point_line(&pp, i == 0, out);
    if (own) { /* a changed point keeps the lines that followed it (NamedP) */
      s_put_eol_of(w, own->s + own->n, e, out);
      const char *after = own->s + own->n;
      while (after < own->group_end && *after != '\n') after++;
      if (after < own->group_end) after++;
      ens__buf_append(out, after, (size_t)(own->group_end - after));
    } else {
      ens__buf_append(out, w->eol, w->eol_n);
    }
  }
  if (tail < e) ens__buf_append(out, tail, (size_t)(e - tail));
done:
  if (pl != small) free(pl);
  return rc;
}

/* --- references, anchors, kerning ------------------------------------------------------ */

static void s_put_rest_of(const char *head, size_t hn, const char *line_end, ens_buf *out) {
  /* lines of a head after its first (rare: a NamedP after an anchor) */
  const char *e = head + hn;
  const char *q = memchr(line_end, '\n', (size_t)(e - line_end));
  if (q && q + 1 < e) ens__buf_append(out, q + 1, (size_t)(e - q - 1));
}

/* A reference unchanged since reading: its line still says what it did,
 * except which glyph its number names now (glyphs added or removed
 * elsewhere renumber them), so only the number is read. */
static int s_ref_as_read_holds(const ens__sfd_wctx *w, const ens_obj *o, const char *h, size_t hn) {
  /* a number that names a glyph names one of the font's glyphs now (the
   * maps hold only those): no need to look the target up as well */
  const ens__prop *gp = s_prop(w, o, S_K_GLYPH);
  if (!gp || gp->type != ENS_REF || gp->u.ref == ENS_ID_NONE) return 0;
  ens__sfd_line ln;
  ens__sfd_line_at(h, h + hn, &ln);
  int is_ref;
  int64_t number;
  return ens__sfd_parse_ref_target(ln.s, ln.n, &is_ref, &number) == 0 && s_target(w, is_ref, number) == gp->u.ref;
}

static int s_write_ref(ens__sfd_wctx *w, const ens_obj *o, ens_buf *out) {
  if (o->as_read) {
    const char *h;
    size_t hn;
    if (s_text(w, o, S_K_HEAD, &h, &hn) && hn && (w->unchanged || s_ref_as_read_holds(w, o, h, hn))) {
      ens__buf_append(out, h, hn);
      return 0;
    }
  }
  s_props *P = malloc(sizeof *P);
  if (!P) return ens__error(ENS_ENOMEM, "out of memory writing SFD");
  s_load(w, o, P);
  const char *h = NULL;
  size_t hn = 0;
  int has_head = s_text(w, o, S_K_HEAD, &h, &hn);
  ens__sfd_ref rf;
  const char *why;
  ens__sfd_line ln = {0};
  int parsed = 0;
  if (has_head && hn) {
    ens__sfd_line_at(h, h + hn, &ln);
    parsed = ens__sfd_parse_ref(ln.s, ln.n, &rf, &why) == 0;
  }
  ens_id target = P->has[S_K_GLYPH] && P->val[S_K_GLYPH].type == ENS_REF ? P->val[S_K_GLYPH].u.ref : ENS_ID_NONE;
  const ens_obj *tg = target ? ens_doc_get(w->doc, target) : NULL;
  if (!tg) { /* the glyph it named is gone: so is the reference (FontForge drops them too) */
    free(P);
    return 0;
  }
  static const int mk[6] = {S_K_XX, S_K_XY, S_K_YX, S_K_YY, S_K_DX, S_K_DY};
  double m[6];
  for (int i = 0; i < 6; i++) {
    m[i] = i == 0 || i == 3 ? 1 : 0;
    if (P->has[mk[i]]) s_num(&P->val[mk[i]], &m[i]);
  }
  int64_t flags = 0, selected = 0;
  int has_flags = P->has[S_K_FLAGS] && s_inum(&P->val[S_K_FLAGS], &flags);
  if (P->has[S_K_SELECTED]) s_inum(&P->val[S_K_SELECTED], &selected);
  const char *extra = "";
  size_t extra_len = 0;
  if (P->has[S_K_EXTRA] && (P->val[S_K_EXTRA].type == ENS_STR || P->val[S_K_EXTRA].type == ENS_BYTES)) {
    extra = P->val[S_K_EXTRA].u.s.ptr;
    extra_len = P->val[S_K_EXTRA].u.s.len;
  }
  if (parsed && s_target(w, rf.is_ref, rf.target) == target && rf.selected == !!selected &&
      rf.has_flags == has_flags && (!has_flags || rf.flags == flags) && rf.extra_len == extra_len &&
      (!extra_len || memcmp(rf.extra, extra, extra_len) == 0)) {
    int same = 1;
    for (int i = 0; i < 6; i++) same &= ens__sfd_same_real(rf.m[i], m[i]);
    if (same) {
      ens__buf_append(out, h, hn);
      free(P);
      return 0;
    }
  }
  ens__sfd_ref nr;
  memset(&nr, 0, sizeof nr);
  int64_t num;
  nr.is_ref = parsed ? rf.is_ref : 0;
  if (!nr.is_ref && !s_imap_get(&w->rgid, tg->id, &num)) nr.is_ref = 1;
  if (nr.is_ref && !s_imap_get(&w->renc, tg->id, &num)) {
    free(P);
    return ens__error(ENS_EINVAL, "reference %#llx: its glyph has neither a gid nor an encoding",
                      (unsigned long long)o->id);
  }
  nr.target = num;
  const ens__prop *up = s_prop(w, tg, S_K_UNICODE);
  nr.has_uni = 1;
  nr.uni = up && up->type == ENS_INT ? up->u.i : -1;
  nr.selected = (int)selected;
  memcpy(nr.m, m, sizeof m);
  nr.has_flags = has_flags;
  nr.flags = flags;
  nr.extra = extra;
  nr.extra_len = extra_len;
  ens__sfd_format_ref(&nr, out);
  if (has_head && hn) {
    s_put_eol_of(w, ln.s + ln.n, h + hn, out);
    s_put_rest_of(h, hn, ln.s + ln.n, out);
  } else {
    ens__buf_append(out, w->eol, w->eol_n);
  }
  free(P);
  return 0;
}

static int s_write_anchor(ens__sfd_wctx *w, const ens_obj *o, ens_buf *out) {
  if (o->as_read) { /* names no other glyph: its text still says it all */
    const char *h;
    size_t hn;
    if (s_text(w, o, S_K_HEAD, &h, &hn) && hn) {
      ens__buf_append(out, h, hn);
      return 0;
    }
  }
  s_props *P = malloc(sizeof *P);
  if (!P) return ens__error(ENS_ENOMEM, "out of memory writing SFD");
  s_load(w, o, P);
  const char *h = NULL;
  size_t hn = 0;
  int has_head = s_text(w, o, S_K_HEAD, &h, &hn);
  const char *cls = "", *type = "basechar", *extra = "";
  size_t cls_len = 0, type_len = 8, extra_len = 0;
  double x = 0, y = 0;
  int64_t lig = 0;
  if (P->has[S_K_CLASS] && P->val[S_K_CLASS].type == ENS_STR) {
    cls = P->val[S_K_CLASS].u.s.ptr;
    cls_len = P->val[S_K_CLASS].u.s.len;
  }
  if (P->has[S_K_TYPE] && P->val[S_K_TYPE].type == ENS_STR) {
    type = P->val[S_K_TYPE].u.s.ptr;
    type_len = P->val[S_K_TYPE].u.s.len;
  }
  if (P->has[S_K_EXTRA] && P->val[S_K_EXTRA].type == ENS_STR) {
    extra = P->val[S_K_EXTRA].u.s.ptr;
    extra_len = P->val[S_K_EXTRA].u.s.len;
  }
  if (P->has[S_K_X]) s_num(&P->val[S_K_X], &x);
  if (P->has[S_K_Y]) s_num(&P->val[S_K_Y], &y);
  if (P->has[S_K_LIG]) s_inum(&P->val[S_K_LIG], &lig);
  ens__sfd_line ln = {0};
  if (has_head && hn) {
    ens__sfd_line_at(h, h + hn, &ln);
    ens__sfd_anchor ap;
    const char *why;
    size_t mark = w->scratch.len;
    if (ens__sfd_parse_anchor(ln.s, ln.n, &ap, &w->scratch, &why) == 0 && ens__sfd_same_real(ap.x, x) &&
        ens__sfd_same_real(ap.y, y) && ap.lig == lig &&
        ap.cls_len == cls_len && memcmp(w->scratch.data + ap.cls_off, cls, cls_len) == 0 && ap.type_len == type_len &&
        memcmp(ap.type, type, type_len) == 0 && ap.extra_len == extra_len &&
        (!extra_len || memcmp(ap.extra, extra, extra_len) == 0)) {
      w->scratch.len = mark;
      ens__buf_append(out, h, hn);
      free(P);
      return 0;
    }
    w->scratch.len = mark;
  }
  ens__sfd_format_anchor(cls, cls_len, x, y, type, type_len, lig, extra, extra_len, out);
  if (has_head && hn) {
    s_put_eol_of(w, ln.s + ln.n, h + hn, out);
    s_put_rest_of(h, hn, ln.s + ln.n, out);
  } else {
    ens__buf_append(out, w->eol, w->eol_n);
  }
  free(P);
  return 0;
}

typedef struct {
  ens_id target;
  int64_t offset;
  const char *sub, *dev;
  size_t sub_len, dev_len;
  int vertical;
} s_kprops;

static void s_kern_props(const ens__sfd_wctx *w, const ens_obj *o, s_kprops *k) {
  memset(k, 0, sizeof *k);
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL) continue;
    ens_value v = ens__prop_value(p);
    if (p->key == w->aidx[S_K_GLYPH] && v.type == ENS_REF) k->target = v.u.ref;
    else if (p->key == w->aidx[S_K_OFFSET]) s_inum(&v, &k->offset);
    else if (p->key == w->aidx[S_K_SUBTABLE] && v.type == ENS_STR) {
      k->sub = v.u.s.ptr;
      k->sub_len = v.u.s.len;
    } else if (p->key == w->aidx[S_K_DEVICE] && v.type == ENS_STR) {
      k->dev = v.u.s.ptr;
      k->dev_len = v.u.s.len;
    } else if (p->key == w->aidx[S_K_VERTICAL]) {
      int64_t b = 0;
      s_inum(&v, &b);
      k->vertical = b != 0;
    }
  }
}

/* A run of kerning pairs from one Kerns2: line: the first holds the line. */
static int s_write_kerns(ens__sfd_wctx *w, const ens_obj *glyph, uint32_t *i, ens_buf *out) {
  const ens_obj *lead = glyph->kids[*i];
  const char *h = NULL;
  size_t hn = 0;
  int has_head = s_text(w, lead, S_K_HEAD, &h, &hn);
  s_kprops lk;
  s_kern_props(w, lead, &lk);
  uint32_t j = *i + 1;
  while (j < glyph->nkids && glyph->kids[j]->kind == w->kinds[S_KERN] && !s_prop(w, glyph->kids[j], S_K_HEAD)) {
    s_kprops k;
    s_kern_props(w, glyph->kids[j], &k);
    if (k.vertical != lk.vertical) break;
    j++;
  }
  uint32_t count = j - *i;
  if (w->unchanged && has_head && hn) { /* the run is the line it was read from */
    ens__buf_append(out, h, hn);
    *i = j;
    return 0;
  }
  ens__sfd_line ln = {0};
  size_t mark = w->scratch.len;
  if (has_head && hn) {
    ens__sfd_line_at(h, h + hn, &ln);
    const char *why;
    long np = ens__sfd_parse_kerns(ln.s, ln.n, &w->kp, &w->kpcap, &w->scratch, &why);
    const char *t;
    size_t tn = ens__sfd_token(ln.s, ln.n, &t);
    int vline = tn == 8;
    int same = np == (long)count && vline == lk.vertical;
    for (uint32_t q = 0; same && q < count; q++) {
      s_kprops k;
      s_kern_props(w, glyph->kids[*i + q], &k);
      const ens__sfd_kernpair *kp = &w->kp[q];
      same = s_target(w, 0, kp->target) == k.target && kp->offset == k.offset && kp->sub_len == k.sub_len &&
             memcmp(w->scratch.data + kp->sub_off, k.sub, k.sub_len) == 0 && (kp->device != NULL) == (k.dev != NULL) &&
             (!kp->device || (kp->device_len == k.dev_len && memcmp(kp->device, k.dev, k.dev_len) == 0));
    }
    w->scratch.len = mark;
    if (same) {
      ens__buf_append(out, h, hn);
      *i = j;
      return 0;
    }
  }
  ens__buf_puts(out, lk.vertical ? "VKerns2:" : "Kerns2:");
  for (uint32_t q = 0; q < count; q++) {
    s_kprops k;
    s_kern_props(w, glyph->kids[*i + q], &k);
    int64_t gid;
    if (!k.target || !ens_doc_get(w->doc, k.target) || !s_imap_get(&w->rgid, k.target, &gid)) continue;
    char b[32];
    ens__buf_putc(out, ' ');
    ens__buf_append(out, b, ens__sfd_fmt_int(b, gid));
    ens__buf_putc(out, ' ');
    ens__buf_append(out, b, ens__sfd_fmt_int(b, k.offset));
    ens__buf_putc(out, ' ');
    ens__sfd_utf7_encode(k.sub ? k.sub : "", k.sub_len, out);
    if (k.dev) {
      ens__buf_putc(out, ' ');
      ens__buf_append(out, k.dev, k.dev_len);
    }
  }
  if (has_head && hn) {
    s_put_eol_of(w, ln.s + ln.n, h + hn, out);
    s_put_rest_of(h, hn, ln.s + ln.n, out);
  } else {
    ens__buf_append(out, w->eol, w->eol_n);
  }
  *i = j;
  return 0;
}

/* A reference or kerning line the reader kept as text because its glyph
 * number named no glyph. An edit elsewhere can renumber glyphs (in files
 * where glyphs without a gid are numbered by their order), and then the
 * same number names a glyph: written as it is, the line would gain a
 * reference nobody made. Such a line is dropped instead, as FontForge drops
 * a reference to a missing glyph when it opens a font. */
static int s_dangling_now_resolves(ens__sfd_wctx *w, const char *t, size_t tn) {
  if (w->unchanged) return 0; /* it named no glyph when read, and numbers have not moved */
  ens__sfd_line ln;
  ens__sfd_line_at(t, t + tn, &ln);
  int word = ens__sfd_word(ln.s, ln.n);
  const char *why;
  if (word == S_W_REFER || word == S_W_REF) {
    ens__sfd_ref rf;
    return ens__sfd_parse_ref(ln.s, ln.n, &rf, &why) == 0 && s_target(w, rf.is_ref, rf.target) != ENS_ID_NONE;
  }
  if (word != S_W_KERNS2 && word != S_W_VKERNS2) return 0;
  size_t mark = w->scratch.len;
  long np = ens__sfd_parse_kerns(ln.s, ln.n, &w->kp, &w->kpcap, &w->scratch, &why);
  w->scratch.len = mark;
  if (np <= 0) return 0;
  for (long i = 0; i < np; i++) /* the reader models the line only when every pair resolves */
    if (s_target(w, 0, w->kp[i].target) == ENS_ID_NONE) return 0;
  return 1;
}

/* Raw text of a layer or glyph, unless it is such a line. */
static void s_put_raw(ens__sfd_wctx *w, const char *t, size_t tn, ens_buf *out) {
  if (tn && !s_dangling_now_resolves(w, t, tn)) ens__buf_append(out, t, tn);
}

/* --- layers and glyphs ------------------------------------------------------------ */

static const ens__sfd_keyspec s_marker_spec[] = {{"Fore", 4, S_V_MARK, S_K_INDEX}};

/* A layer or glyph nothing in which changed since reading: its own texts
 * and its children's go out as they are; only references and kerning are
 * still checked, since they name other glyphs by number and those numbers
 * move when glyphs are added or removed elsewhere. */
static int s_write_kids_as_read(ens__sfd_wctx *w, const ens_obj *o, ens_buf *out);

static int s_write_as_read(ens__sfd_wctx *w, const ens_obj *o, ens_buf *out) {
  const char *t;
  size_t tn;
  if (s_text(w, o, S_K_HEAD, &t, &tn)) ens__buf_append(out, t, tn);
  int rc = s_write_kids_as_read(w, o, out);
  if (!rc && s_text(w, o, S_K_TAIL, &t, &tn)) ens__buf_append(out, t, tn);
  return rc;
}

static int s_write_layer(ens__sfd_wctx *w, const ens_obj *l, ens_buf *out) {
  if (l->as_read) return s_write_as_read(w, l, out);
  const char *h = NULL, *tl = NULL;
  size_t hn = 0, tln = 0;
  s_text(w, l, S_K_HEAD, &h, &hn);
  s_text(w, l, S_K_TAIL, &tl, &tln);
  const ens__prop *ip = s_prop(w, l, S_K_INDEX);
  int64_t index = 1;
  int has_index = ip && ip->type == ENS_INT;
  if (has_index) index = ip->u.i;
  /* the marker: the first entry of the head when it is Fore, Back or Layer: */
  const char *p = h, *e = h + hn;
  int saw_set = 0;
  uint32_t ncontours = 0;
  for (uint32_t i = 0; i < l->nkids; i++) ncontours += l->kids[i]->kind == w->kinds[S_CONTOUR];
  /* does its own text hold the SplineSet lines already? */
  for (int pass = 0; pass < 2 && !saw_set; pass++) {
    const char *t = pass ? tl : h;
    size_t tn = pass ? tln : hn;
    for (const char *q = t; q && q < t + tn;) {
      ens__sfd_line ln;
      ens__sfd_line_at(q, t + tn, &ln);
      int wd = ens__sfd_word(ln.s, ln.n);
      if (wd == S_W_SPLINESET || wd == S_W_ENDSPLINESET) saw_set = 1;
      uint32_t nl;
      size_t len = wd == S_W_NUMBER ? (size_t)(ln.next - q) : ens__sfd_entry(q, t + tn, &nl);
      q += len ? len : (size_t)(t + tn - q);
    }
  }
  for (uint32_t i = 0; i < l->nkids && !saw_set; i++) {
    const char *t;
    size_t tn;
    if (l->kids[i]->kind == w->kinds[S_RAW] && s_text(w, l->kids[i], S_K_TEXT, &t, &tn)) {
      for (const char *q = t; q < t + tn;) {
        ens__sfd_line ln;
        ens__sfd_line_at(q, t + tn, &ln);
        int wd = ens__sfd_word(ln.s, ln.n);
        if (wd == S_W_SPLINESET || wd == S_W_ENDSPLINESET) saw_set = 1;
        q = ln.next;
      }
    }
  }
  int have_marker = 0;
  if (p < e) {
    ens__sfd_line ln;
    ens__sfd_line_at(p, e, &ln);
    int wd = ens__sfd_word(ln.s, ln.n);
    if (wd == S_W_FORE || wd == S_W_BACK || wd == S_W_LAYER) {
      have_marker = 1;
      ens__sfd_val v[3];
      int nv;
      const char *why;
      int ok = ens__sfd_key_parse(s_marker_spec, ln.s, ln.n, v, &nv, &w->scratch, &why) == 0;
      if (has_index && (!ok || v[0].v.u.i != index)) {
        ens_value iv = ens_int(index);
        ens__sfd_key_format(s_marker_spec, &iv, 1, out);
        s_put_eol_of(w, ln.s + ln.n, e, out);
      } else {
        ens__buf_append(out, p, (size_t)(ln.next - p));
      }
      p = ln.next;
    }
  }
  if (!have_marker && has_index) {
    ens_value iv = ens_int(index);
    ens__sfd_key_format(s_marker_spec, &iv, 1, out);
    ens__buf_append(out, w->eol, w->eol_n);
  }
  if (p < e) ens__buf_append(out, p, (size_t)(e - p));
  uint32_t seen_contours = 0;
  int wrap = ncontours && !saw_set;
  for (uint32_t i = 0; i < l->nkids; i++) {
    const ens_obj *k = l->kids[i];
    int kind = s_kind(w, k);
    int rc = 0;
    if (kind == S_CONTOUR) {
      if (wrap && seen_contours == 0) {
        ens__buf_puts(out, "SplineSet");
        ens__buf_append(out, w->eol, w->eol_n);
      }
      rc = s_write_contour(w, k, out);
      if (wrap && ++seen_contours == ncontours) {
        ens__buf_puts(out, "EndSplineSet");
        ens__buf_append(out, w->eol, w->eol_n);
      }
    } else if (kind == S_REFK) {
      rc = s_write_ref(w, k, out);
    } else if (kind == S_RAW) {
      const char *t;
      size_t tn;
      if (s_text(w, k, S_K_TEXT, &t, &tn)) s_put_raw(w, t, tn, out);
    } else {
      rc = ens__error(ENS_EINVAL, "a layer may hold contours, references and raw text, not a %s", k->kind);
    }
    if (rc) return rc;
  }
  if (tln) ens__buf_append(out, tl, tln);
  return 0;
}

static int s_write_kids_as_read(ens__sfd_wctx *w, const ens_obj *o, ens_buf *out) {
  for (uint32_t i = 0; i < o->nkids;) {
    const ens_obj *k = o->kids[i];
    int kind = s_kind(w, k), rc = 0;
    const char *t;
    size_t tn;
    switch (kind) {
    case S_KERN:
      if ((rc = s_write_kerns(w, o, &i, out))) return rc;
      continue;
    case S_REFK: rc = s_write_ref(w, k, out); break;
    case S_LAYER: rc = s_write_as_read(w, k, out); break;
    case S_ANCHOR: rc = s_write_anchor(w, k, out); break;
    case S_CONTOUR:
      if (s_text(w, k, S_K_TEXT, &t, &tn)) ens__buf_append(out, t, tn);
      break;
    case S_RAW:
      if (s_text(w, k, S_K_TEXT, &t, &tn)) s_put_raw(w, t, tn, out);
      break;
    default:
      rc = ens__error(ENS_EINVAL, "a %s may not hold a %s", o->kind, k->kind);
    }
    if (rc) return rc;
    i++;
  }
  return 0;
}

/* Where new keyed lines go in a glyph whose head has none: after its
 * first line that is not blank, the StartChar: line the reader requires
 * first (the end of the head may be past EndChar, outside the glyph). */
static size_t s_after_first_line(const char *h, size_t hn) {
  const char *p = h, *e = h + hn;
  while (p < e) {
    ens__sfd_line ln;
    ens__sfd_line_at(p, e, &ln);
    p = ln.next;
    if (ens__sfd_word(ln.s, ln.n) != S_W_BLANK) break;
  }
  return (size_t)(p - h);
}

static int s_write_glyph_obj(ens__sfd_wctx *w, const ens_obj *g, ens_buf *out) {
  int64_t pin = 0;
  s_imap_get(&w->pin, g->id, &pin);
  if (g->as_read && pin != PIN_FORCE) return s_write_as_read(w, g, out);
  s_props *P = malloc(sizeof *P);
  s_merge *M = calloc(1, sizeof *M);
  int rc = 0;
  if (!P || !M) {
    rc = ens__error(ENS_ENOMEM, "out of memory writing SFD");
    goto done;
  }
  s_load(w, g, P);
  if (pin == PIN_HIDE) { /* the running count says it: the line keeps what it has */
    int64_t negative = 0;
    s_text_says_gid(w, g, &negative);
    if (negative < 0) P->val[S_K_GID] = ens_int(negative);
    else P->has[S_K_GID] = 0;
  }
  M->table = ens__sfd_glyph_keys;
  M->nkeys = ens__sfd_glyph_nkeys;
  const char *h = NULL, *tl = NULL;
  size_t hn = 0, tln = 0, last = SIZE_MAX;
  s_text(w, g, S_K_HEAD, &h, &hn);
  s_text(w, g, S_K_TAIL, &tl, &tln);
  s_prescan(M, h, hn, &last);
  for (uint32_t i = 0; i < g->nkids; i++) {
    const char *t;
    size_t tn;
    if (g->kids[i]->kind == w->kinds[S_RAW] && s_text(w, g->kids[i], S_K_TEXT, &t, &tn)) s_prescan(M, t, tn, NULL);
  }
  s_prescan(M, tl, tln, NULL);
  if (last == SIZE_MAX) last = s_after_first_line(h, hn);
  s_merge_text(w, M, P, h, hn, last, out);
  for (uint32_t i = 0; i < g->nkids;) {
    const ens_obj *k = g->kids[i];
    int kind = s_kind(w, k);
    if (kind == S_KERN) {
      if ((rc = s_write_kerns(w, g, &i, out))) goto done;
      continue;
    }
    if (kind == S_LAYER) rc = s_write_layer(w, k, out);
    else if (kind == S_ANCHOR) rc = s_write_anchor(w, k, out);
    else if (kind == S_RAW) {
      const char *t;
      size_t tn;
      if (s_text(w, k, S_K_TEXT, &t, &tn) && !s_dangling_now_resolves(w, t, tn))
        s_merge_text(w, M, P, t, tn, SIZE_MAX, out);
    } else {
      rc = ens__error(ENS_EINVAL, "a glyph may hold layers, anchors, kerning and raw text, not a %s", k->kind);
    }
    if (rc) goto done;
    i++;
  }
  s_merge_text(w, M, P, tl, tln, SIZE_MAX, out);
  if (!M->saw_endchar) {
    ens__buf_puts(out, "EndChar");
    ens__buf_append(out, w->eol, w->eol_n);
  }
done:
  free(P);
  free(M);
  return rc;
}

/* --- the font ----------------------------------------------------------------------- */

static int s_write_root(ens__sfd_wctx *w, int dir, ens_buf *out) {
  const ens_obj *root = w->doc->root;
  s_props *P = malloc(sizeof *P);
  s_merge *M = calloc(1, sizeof *M);
  int rc = 0;
  if (!P || !M) {
    rc = ens__error(ENS_ENOMEM, "out of memory writing SFD");
    goto done;
  }
  s_load(w, root, P);
  M->table = ens__sfd_root_keys;
  M->nkeys = ens__sfd_root_nkeys;
  M->root = 1;
  const char *h = NULL, *tl = NULL;
  size_t hn = 0, tln = 0, last = SIZE_MAX;
  /* an empty head is none, as for the rules: the font gets its frame */
  int has_head = s_text(w, root, S_K_HEAD, &h, &hn) && hn;
  s_text(w, root, S_K_TAIL, &tl, &tln);
  s_prescan(M, h, hn, &last);
  for (uint32_t i = 0; i < root->nkids; i++) {
    const char *t;
    size_t tn;
    if (root->kids[i]->kind == w->kinds[S_RAW] && s_text(w, root->kids[i], S_K_TEXT, &t, &tn)) s_prescan(M, t, tn, NULL);
  }
  s_prescan(M, tl, tln, NULL);
  uint32_t nglyphs = 0;
  for (uint32_t i = 0; i < root->nkids; i++) nglyphs += root->kids[i]->kind == w->kinds[S_GLYPH];
  if (!has_head && !dir) { /* a font made from nothing: FontForge's frame around it */
    char b[80];
    s_missing(w, M, P, out);
    snprintf(b, sizeof b, "BeginChars: %u %u", nglyphs, nglyphs);
    ens__buf_puts(out, b);
    ens__buf_append(out, w->eol, w->eol_n);
  } else {
    s_merge_text(w, M, P, h, hn, last == SIZE_MAX ? hn : last, out);
  }
  w->section = dir ? 1 : (uint32_t)M->sections;
  for (uint32_t i = 0; i < root->nkids && !dir; i++) {
    const ens_obj *k = root->kids[i];
    int kind = s_kind(w, k);
    if (kind == S_GLYPH) {
      if ((rc = s_write_glyph_obj(w, k, out))) goto done;
      if (w->sink && out->len >= ENS__SFD_SINK_AT && (rc = w->sink(w->sink_user, out))) goto done;
    } else if (kind == S_RAW) {
      const char *t;
      size_t tn;
      int before = M->sections;
      if (s_text(w, k, S_K_TEXT, &t, &tn)) s_merge_text(w, M, P, t, tn, SIZE_MAX, out);
      if (M->sections != before) w->section = (uint32_t)M->sections;
    } else {
      rc = ens__error(ENS_EINVAL, "a font may hold glyphs and raw text, not a %s", k->kind);
      goto done;
    }
  }
  s_merge_text(w, M, P, tl, tln, SIZE_MAX, out);
  if (!has_head && !dir) {
    ens__buf_puts(out, "EndChars");
    ens__buf_append(out, w->eol, w->eol_n);
    ens__buf_puts(out, "EndSplineFont");
    ens__buf_append(out, w->eol, w->eol_n);
  }
done:
  free(P);
  free(M);
  return rc;
}

static int s_prepare(ens__sfd_wctx *w, int dir) {
  w->unchanged = w->doc->root->as_read;
  return w->unchanged ? 0 : s_number_glyphs(w, dir);
}

int ens__sfd_write_doc(const ens_doc *doc, ens_buf *out) { return ens__sfd_write_doc_to(doc, out, NULL, NULL); }

int ens__sfd_write_doc_to(const ens_doc *doc, ens_buf *out, ens__sfd_sink sink, void *user) {
  ens__sfd_wctx *w = ens__sfd_wctx_new(doc);
  if (!w) return ENS_ENOMEM;
  w->sink = sink;
  w->sink_user = user;
  int rc = s_prepare(w, 0);
  if (!rc) rc = s_write_root(w, 0, out);
  if (!rc && out->oom) rc = ens__error(ENS_ENOMEM, "out of memory writing SFD");
  ens__sfd_wctx_free(w);
  return rc;
}

int ens__sfd_write_root_only(ens__sfd_wctx *w, ens_buf *out) {
  int rc = s_prepare(w, 1);
  if (!rc) rc = s_write_root(w, 1, out);
  if (!rc && out->oom) rc = ens__error(ENS_ENOMEM, "out of memory writing SFD");
  return rc;
}

int ens__sfd_write_glyph(ens__sfd_wctx *w, const ens_obj *glyph, ens_buf *out) {
  w->section = 1;
  int rc = s_write_glyph_obj(w, glyph, out);
  if (!rc && out->oom) rc = ens__error(ENS_ENOMEM, "out of memory writing SFD");
  return rc;
}

/* --- numbers, for the schema's rules ------------------------------------------------ */

/* Section by section as the writer numbers them: the section a root child
 * starting at index i is in (the count of BeginChars before it). */
static void s_check_glyph_refs(ens__sfd_wctx *w, const ens_obj *g, const ens_obj *o, char *why, size_t why_size,
                               int *bad) {
  for (uint32_t i = 0; i < o->nkids && !*bad; i++) {
    const ens_obj *k = o->kids[i];
    int kind = s_kind(w, k);
    if (kind == S_LAYER) {
      s_check_glyph_refs(w, g, k, why, why_size, bad);
      continue;
    }
    if (kind != S_REFK && kind != S_KERN) continue;
    const ens__prop *gp = s_prop(w, k, S_K_GLYPH);
    const ens_obj *t = gp && gp->type == ENS_REF && gp->u.ref ? ens_doc_get(w->doc, gp->u.ref) : NULL;
    if (!t) continue; /* dropped, as FontForge drops them */
    int by_enc = 0;
    const char *h;
    size_t hn;
    if (kind == S_REFK && s_text(w, k, S_K_HEAD, &h, &hn) && hn) {
      ens__sfd_line ln;
      int64_t number;
      ens__sfd_line_at(h, h + hn, &ln);
      if (ens__sfd_parse_ref_target(ln.s, ln.n, &by_enc, &number) != 0) by_enc = 0;
    }
    int64_t num;
    if (!by_enc && !s_imap_get(&w->rgid, t->id, &num)) by_enc = 1;
    if (by_enc && !s_imap_get(&w->renc, t->id, &num)) {
      snprintf(why, why_size, "a reference names a glyph that has neither a number nor an encoding");
      *bad = 1;
      return;
    }
    if (s_target(w, by_enc, num) != t->id) {
      const ens__prop *np = s_prop(w, t, S_K_NAME);
      snprintf(why, why_size,
               "a %s names glyph \"%.60s\" by %s %lld, which %s, so it would read back as another glyph",
               kind == S_KERN ? "kerning pair" : "reference", np && np->type == ENS_STR ? np->u.s : "?",
               by_enc ? "encoding" : "number", (long long)num,
               w->section ? "another glyph before it in its sub-font also has" : "another glyph also has");
      *bad = 1;
    }
  }
}

int ens__sfd_check_numbers(const ens_doc *doc, char *why, size_t why_size) {
  ens__sfd_wctx *w = ens__sfd_wctx_new(doc);
  if (!w) return ENS_ENOMEM;
  int dir = ens_sfd_is_dir(doc);
  int rc = s_number_glyphs(w, dir);
  if (rc) {
    if (rc != ENS_ENOMEM) snprintf(why, why_size, "%s", ens_error_last());
    ens__sfd_wctx_free(w);
    return rc;
  }
  /* every number names one glyph of one sub-font: then every reference
   * reads back as the glyph it names, and nothing more is to be checked */
  const ens_obj *root = doc->root;
  size_t nglyphs = 0, nenc = 0;
  for (uint32_t i = 0; i < root->nkids; i++) {
    const ens_obj *k = root->kids[i];
    if (s_kind(w, k) != S_GLYPH) continue;
    nglyphs++;
    const ens__prop *gp, *ep;
    s_gid_and_encoding(w, k, &gp, &ep);
    nenc += ep && ep->type == ENS_INT;
  }
  const char *t;
  size_t n;
  uint32_t section = dir ? 1 : 0;
  if (!dir && s_text(w, root, S_K_HEAD, &t, &n)) section += (uint32_t)s_count_beginchars(t, n);
  int more_sections = 0;
  for (uint32_t i = 0; i < root->nkids && !dir; i++)
    if (s_kind(w, root->kids[i]) == S_RAW && s_text(w, root->kids[i], S_K_TEXT, &t, &n) && s_count_beginchars(t, n))
      more_sections = 1;
  int bad = 0;
  if (w->num.count < nglyphs || w->enc.count < nenc || more_sections) {
    for (uint32_t i = 0; i < root->nkids && !bad; i++) {
      const ens_obj *k = root->kids[i];
      int kind = s_kind(w, k);
      if (kind == S_RAW && !dir && s_text(w, k, S_K_TEXT, &t, &n)) section += (uint32_t)s_count_beginchars(t, n);
      if (kind != S_GLYPH) continue;
      w->section = section;
      s_check_glyph_refs(w, k, k, why, why_size, &bad);
    }
  }
  ens__sfd_wctx_free(w);
  return bad ? ENS_EFORMAT : 0;
}
