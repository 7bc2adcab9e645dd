/* Three-way merge on real files, the way git's merge driver runs it: a font
 * (the bundled LibertinusMono, and a corpus font with composites and
 * kerning) and a corpus drawing are each edited two ways with the glyph and
 * drawing edit commands; each side is written to its format and read back
 * (so both are matched to base by identity key), merged, applied, written
 * and read back. Checked property by property: each side's edits that do
 * not conflict are in the file, every conflict carries the values base and
 * the two sides hold, the file reads back to the merged document, and the
 * text of every glyph or element only one side changed is that side's text
 * byte for byte (base's where neither did). Corpus cases skip without the
 * corpus. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

#define S_FONT_BUNDLED "examples/LibertinusMono-Regular.sfd"
#define S_FONT_CORPUS "sfd/liberation/LiberationSans-Regular.sfd"
#define S_DRAWING_CORPUS "svg/librsvg/rsvg/tests/fixtures/reftests/adwaita/address-book-new-symbolic.svg"

typedef struct {
  unsigned char *p;
  size_t n;
} s_buf;

/* One merge: base and the two editors' documents, then everything the
 * merge made. */
typedef struct {
  int svg;
  const char *name;
  s_buf base_text;
  ens_doc *base, *a, *b;               /* a edits become ours, b's theirs */
  s_buf ours_text, theirs_text, out_text; /* the sides as saved, the merged file */
  ens_doc *ours, *theirs0, *theirs, *back; /* theirs0: theirs before the merge; back: the merged file read */
  ens_merge *m;
  int layout_differs; /* the merged document may hold layout the file reads back otherwise */
} s_case;

static ens_identity_fn s_identity(const s_case *c) { return c->svg ? ens_svg_identity : ens_sfd_identity; }

static ens_doc *s_read(const s_case *c, const s_buf *b) {
  ens_doc *doc = NULL;
  int rc = c->svg ? ens_svg_read(b->p, b->n, &doc) : ens_sfd_read(b->p, b->n, &doc);
  if (rc) fail_msg("%s: does not read: %s", c->name, ens_error_last());
  return doc;
}

static s_buf s_write(const s_case *c, const ens_doc *doc) {
  s_buf b = {NULL, 0};
  int rc = c->svg ? ens_svg_write(doc, &b.p, &b.n) : ens_sfd_write(doc, &b.p, &b.n);
  if (rc) fail_msg("%s: does not write: %s", c->name, ens_error_last());
  return b;
}

/* Opens base from the source tree (bundled) or the corpus; 0 when the
 * corpus is absent. */
static int s_open(s_case *c, const char *rel, int bundled, int svg) {
  char path[4096];
  memset(c, 0, sizeof *c);
  c->svg = svg;
  c->name = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
  if (bundled) {
    const char *src = getenv("ENS_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/%s", src ? src : ".", rel);
  } else {
    const char *corpus = tu_corpus_dir();
    if (!corpus) return 0;
    snprintf(path, sizeof path, "%s/%s", corpus, rel);
  }
  char *text = tu_read_file(path, &c->base_text.n);
  if (!text) fail_msg("cannot read %s", path);
  c->base_text.p = (unsigned char *)text;
  c->base = s_read(c, &c->base_text);
  c->a = s_read(c, &c->base_text);
  c->b = s_read(c, &c->base_text);
  return 1;
}

static void s_close(s_case *c) {
  free(c->base_text.p);
  ens_free(c->ours_text.p);
  ens_free(c->theirs_text.p);
  ens_free(c->out_text.p);
  ens_doc_free(c->base);
  ens_doc_free(c->a);
  ens_doc_free(c->b);
  ens_doc_free(c->ours);
  ens_doc_free(c->theirs0);
  ens_doc_free(c->theirs);
  ens_doc_free(c->back);
  ens_merge_free(c->m);
  memset(c, 0, sizeof *c);
}

/* Runs an edit command's transaction on doc. */
static void s_do(ens_doc *doc, int rc, ens_txn *t, const char *what) {
  if (rc) fail_msg("%s: %s", what, ens_error_last());
  if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) != 0) fail_msg("%s: apply: %s", what, ens_error_last());
  ens_txn_free(t);
}
#define S_DO(doc, call)       \
  do {                        \
    ens_txn *t_ = NULL;       \
    int rc_ = (call);         \
    s_do(doc, rc_, t_, #call); \
  } while (0)

/* --- the same object in another document ------------------------------------------------ */

/* The object of doc that o is, found as the merge finds it for a side
 * matched by key: from the root down, each step the child of the same kind
 * and identity key (the n-th of its siblings sharing them). NULL when doc
 * has none. */
static const ens_obj *s_like(const ens_obj *o, const ens_doc *doc, ens_identity_fn identity) {
  const ens_obj *chain[300];
  size_t depth = 0;
  for (; ens_obj_parent(o); o = ens_obj_parent(o)) {
    assert_true(depth < 300);
    chain[depth++] = o;
  }
  const ens_obj *at = ens_doc_root(doc);
  while (depth-- && at) {
    const ens_obj *x = chain[depth], *p = ens_obj_parent(x);
    char key[512], k2[512];
    int r = identity(x, key, sizeof key, NULL);
    if (r <= 0) key[0] = '\0';
    size_t rank = 0;
    for (size_t k = 0; k < ens_obj_child_count(p) && ens_obj_child(p, k) != x; k++) {
      const ens_obj *s = ens_obj_child(p, k);
      int r2 = identity(s, k2, sizeof k2, NULL);
      if (r2 <= 0) k2[0] = '\0';
      rank += !strcmp(ens_obj_kind(s), ens_obj_kind(x)) && !strcmp(k2, key);
    }
    const ens_obj *next = NULL;
    for (size_t k = 0; k < ens_obj_child_count(at) && !next; k++) {
      const ens_obj *s = ens_obj_child(at, k);
      if (strcmp(ens_obj_kind(s), ens_obj_kind(x)) != 0) continue;
      int r2 = identity(s, k2, sizeof k2, NULL);
      if (r2 <= 0) k2[0] = '\0';
      if (strcmp(k2, key) == 0 && rank-- == 0) next = s;
    }
    at = next;
  }
  return at;
}

/* --- the file reads back to the merged document -------------------------------------------- */

/* A reference by the path of child indices of what it names. */
static void s_ref_path(const ens_doc *doc, ens_id id, char *buf, size_t size) {
  const ens_obj *o = ens_doc_get(doc, id);
  size_t len = 0;
  buf[0] = '\0';
  if (!o) {
    snprintf(buf, size, "(dangling)");
    return;
  }
  for (; ens_obj_parent(o) && len + 24 < size; o = ens_obj_parent(o))
    len += (size_t)snprintf(buf + len, size - len, "%zu/", ens_obj_index(o));
}

static void s_same_model(const s_case *c, const ens_doc *da, const ens_obj *a, const ens_doc *db, const ens_obj *b) {
  if (strcmp(ens_obj_kind(a), ens_obj_kind(b)) != 0)
    fail_msg("%s: the file reads back a %s where the merge made a %s", c->name, ens_obj_kind(b), ens_obj_kind(a));
  for (int pass = 0; pass < 2; pass++) {
    const ens_obj *x = pass ? b : a, *y = pass ? a : b;
    const ens_doc *dx = pass ? db : da, *dy = pass ? da : db;
    for (size_t k = 0; k < ens_obj_prop_count(x); k++) {
      const char *key;
      ens_value vx, vy;
      ens_obj_prop_at(x, k, &key, &vx);
      if (key[0] == '~' || key[0] == '@') continue;
      if (ens_obj_get(y, key, &vy) != 0)
        fail_msg("%s: %s %s: '%s' is only in the %s", c->name, ens_obj_kind(a), pass ? "read back" : "merged", key,
                 pass ? "file read back" : "merged document");
      if (vx.type == ENS_REF && vy.type == ENS_REF) {
        char px[256], py[256];
        s_ref_path(dx, vx.u.ref, px, sizeof px);
        s_ref_path(dy, vy.u.ref, py, sizeof py);
        if (strcmp(px, py) != 0) fail_msg("%s: %s '%s' names %s, read back %s", c->name, ens_obj_kind(a), key, px, py);
      } else if (!ens_value_equal(&vx, &vy)) {
        fail_msg("%s: %s '%s' reads back otherwise", c->name, ens_obj_kind(a), key);
      }
    }
  }
  if (ens_obj_child_count(a) != ens_obj_child_count(b))
    fail_msg("%s: %s with %zu children reads back with %zu", c->name, ens_obj_kind(a), ens_obj_child_count(a),
             ens_obj_child_count(b));
  for (size_t k = 0; k < ens_obj_child_count(a); k++) s_same_model(c, da, ens_obj_child(a, k), db, ens_obj_child(b, k));
}

/* --- the merge ------------------------------------------------------------------------------ */

/* Writes a and b as the two sides' files, reads them back, merges ours'
 * changes into theirs, applies the result, writes it and reads that back:
 * the file must read, write again to the same bytes, and read back to the
 * merged document. */
static void s_merge(s_case *c, ens_merge_prefer prefer) {
  c->ours_text = s_write(c, c->a);
  c->theirs_text = s_write(c, c->b);
  c->ours = s_read(c, &c->ours_text);
  c->theirs = s_read(c, &c->theirs_text);
  c->theirs0 = s_read(c, &c->theirs_text);
  ens_merge_opts opts = {s_identity(c), NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_KEY, prefer, c->svg ? ens_svg_refs : NULL, NULL};
  if (ens_merge3(c->base, c->ours, c->theirs, &opts, &c->m) != 0) fail_msg("%s: merge: %s", c->name, ens_error_last());
  if (ens_doc_apply(c->theirs, ens_merge_txn(c->m), ENS_ORIGIN_LOCAL, NULL) != 0)
    fail_msg("%s: the merge does not apply: %s", c->name, ens_error_last());
  c->out_text = s_write(c, c->theirs);
  c->back = s_read(c, &c->out_text);
  s_buf again = s_write(c, c->back);
  if (again.n != c->out_text.n || memcmp(again.p, c->out_text.p, again.n) != 0)
    fail_msg("%s: the merged file, read and written again, changes", c->name);
  ens_free(again.p);
  if (!c->layout_differs) s_same_model(c, c->theirs, ens_doc_root(c->theirs), c->back, ens_doc_root(c->back));
}

static void s_print_conflicts(const s_case *c) {
  for (size_t k = 0; k < ens_merge_conflict_count(c->m); k++) {
    const ens_merge_conflict *x = ens_merge_conflict_at(c->m, k);
    fprintf(stderr, "  conflict %zu: kind %d at %s key %s ours_kept %d\n", k, (int)x->kind, x->path,
            x->key ? x->key : "-", x->ours_kept);
  }
}

static void s_want_conflicts(const s_case *c, size_t n) {
  if (ens_merge_conflict_count(c->m) != n) {
    s_print_conflicts(c);
    fail_msg("%s: %zu conflicts, want %zu", c->name, ens_merge_conflict_count(c->m), n);
  }
}

/* The conflict of kind at path (and key), or a failure. */
static const ens_merge_conflict *s_conflict(const s_case *c, ens_conflict_kind kind, const char *path, const char *key) {
  for (size_t k = 0; k < ens_merge_conflict_count(c->m); k++) {
    const ens_merge_conflict *x = ens_merge_conflict_at(c->m, k);
    if (x->kind == kind && strcmp(x->path, path) == 0 && (!key || (x->key && strcmp(x->key, key) == 0))) return x;
  }
  s_print_conflicts(c);
  fail_msg("%s: no conflict of kind %d at %s %s", c->name, (int)kind, path, key ? key : "");
  return NULL;
}

static void s_value_is(const s_case *c, const char *what, const ens_value *got, const ens_obj *o, const char *key) {
  ens_value want = ens_nil();
  if (o) ens_obj_get(o, key, &want);
  if (got->type == ENS_REF || want.type == ENS_REF) return; /* ids differ per side: the merged file says it */
  if (!ens_value_equal(got, &want)) fail_msg("%s: the conflict's %s value of '%s' is not that side's", c->name, what, key);
}

/* Every property conflict holds base's, ours' and theirs' values of that
 * property, and the merged file holds the preferred side's. */
static void s_check_conflict_values(const s_case *c, ens_merge_prefer prefer) {
  ens_identity_fn id = s_identity(c);
  for (size_t k = 0; k < ens_merge_conflict_count(c->m); k++) {
    const ens_merge_conflict *x = ens_merge_conflict_at(c->m, k);
    if (x->kind != ENS_CONFLICT_SET && x->kind != ENS_CONFLICT_INSERT) continue;
    const ens_obj *t = ens_doc_get(c->theirs0, x->id);
    if (!t) fail_msg("%s: conflict at %s names no object of theirs", c->name, x->path);
    const ens_obj *o = s_like(t, c->ours, id), *b = s_like(t, c->base, id), *mo = s_like(t, c->back, id);
    assert_non_null(o);
    assert_non_null(mo);
    if (x->kind == ENS_CONFLICT_INSERT) {
      assert_null(b);
      assert_int_equal(x->base.type, ENS_NIL);
    } else {
      assert_non_null(b);
      s_value_is(c, "base", &x->base, b, x->key);
    }
    s_value_is(c, "ours", &x->ours, o, x->key);
    s_value_is(c, "theirs", &x->theirs, t, x->key);
    assert_int_equal(x->ours_kept, prefer == ENS_MERGE_PREFER_OURS);
    s_value_is(c, "kept", prefer == ENS_MERGE_PREFER_OURS ? &x->ours : &x->theirs, mo, x->key);
  }
}

/* --- each glyph's or element's text --------------------------------------------------------- */

/* The text of glyph name in an SFD file, "StartChar: name" to EndChar's line. */
static int s_glyph_span(const s_buf *b, const char *name, const unsigned char **p, size_t *n) {
  char head[600];
  int hl = snprintf(head, sizeof head, "StartChar: %s\n", name);
  const unsigned char *s = b->p, *end = b->p + b->n;
  for (;;) {
    s = memmem(s, (size_t)(end - s), head, (size_t)hl);
    if (!s) return 0;
    if (s == b->p || s[-1] == '\n') break;
    s++;
  }
  const unsigned char *e = memmem(s, (size_t)(end - s), "\nEndChar", 8);
  if (!e) fail_msg("glyph %s has no EndChar", name);
  e += 8;
  while (e < end && *e != '\n') e++;
  *p = s;
  *n = (size_t)(e - s) + (e < end);
  return 1;
}

/* The font's header: the text before its first glyph. */
static int s_head_span(const s_buf *b, const unsigned char **p, size_t *n) {
  const unsigned char *s = memmem(b->p, b->n, "\nStartChar: ", 12);
  *p = b->p;
  *n = s ? (size_t)(s - b->p) + 1 : b->n;
  return 1;
}

/* Skips a tag or markup from '<' at s: past its '>' (quotes respected). */
static const unsigned char *s_past_tag(const unsigned char *s, const unsigned char *end) {
  static const struct {
    const char *open, *close;
  } blocks[] = {{"<!--", "-->"}, {"<![CDATA[", "]]>"}, {"<?", "?>"}};
  for (size_t k = 0; k < 3; k++) {
    size_t ol = strlen(blocks[k].open);
    if ((size_t)(end - s) >= ol && memcmp(s, blocks[k].open, ol) == 0) {
      const unsigned char *e = memmem(s + ol, (size_t)(end - s - ol), blocks[k].close, strlen(blocks[k].close));
      return e ? e + strlen(blocks[k].close) : end;
    }
  }
  char q = 0;
  for (; s < end; s++) {
    if (q) {
      if (*s == q) q = 0;
    } else if (*s == '"' || *s == '\'') {
      q = (char)*s;
    } else if (*s == '>') {
      return s + 1;
    }
  }
  return end;
}

/* The text of the element whose id attribute is id, start tag to end tag. */
static int s_elem_span(const s_buf *b, const char *id, const unsigned char **p, size_t *n) {
  const unsigned char *end = b->p + b->n;
  for (int quote = 0; quote < 2; quote++) {
    char attr[600];
    int al = snprintf(attr, sizeof attr, "id=%c%s%c", quote ? '"' : '\'', id, quote ? '"' : '\'');
    for (const unsigned char *s = b->p; (s = memmem(s, (size_t)(end - s), attr, (size_t)al)); s++) {
      if (s == b->p || (s[-1] != ' ' && s[-1] != '\t' && s[-1] != '\n' && s[-1] != '\r')) continue;
      const unsigned char *lt = s;
      while (lt > b->p && *lt != '<') lt--;
      const unsigned char *e = s_past_tag(lt, end);
      int depth = e[-2] == '/' ? 0 : 1;
      while (depth && e < end) {
        const unsigned char *nx = memchr(e, '<', (size_t)(end - e));
        if (!nx) break;
        int closing = nx + 1 < end && nx[1] == '/', other = nx + 1 < end && (nx[1] == '!' || nx[1] == '?');
        e = s_past_tag(nx, end);
        if (closing) depth--;
        else if (!other && e[-2] != '/') depth++;
      }
      *p = lt;
      *n = (size_t)(e - lt);
      return 1;
    }
  }
  return 0;
}

static int s_span_eq(int ha, const unsigned char *a, size_t na, int hb, const unsigned char *b, size_t nb) {
  return ha == hb && (!ha || (na == nb && memcmp(a, b, na) == 0));
}

typedef struct {
  size_t as_base, as_ours, as_theirs, alike, both;
} s_tally;

/* One glyph or element, by name (NULL name: the font's header): unchanged
 * by both sides, its merged text is base's; changed by one side only
 * (deleted too), that side's; changed by both to the same text, that
 * text; changed by both otherwise, not judged here. */
static void s_check_span(const s_case *c, const char *name, s_tally *tally) {
  const unsigned char *p[4] = {NULL, NULL, NULL, NULL};
  size_t n[4] = {0, 0, 0, 0};
  int h[4];
  const s_buf *bufs[4] = {&c->base_text, &c->ours_text, &c->theirs_text, &c->out_text};
  for (int k = 0; k < 4; k++)
    h[k] = !name ? s_head_span(bufs[k], &p[k], &n[k])
           : c->svg ? s_elem_span(bufs[k], name, &p[k], &n[k])
                    : s_glyph_span(bufs[k], name, &p[k], &n[k]);
  int ours_same = s_span_eq(h[0], p[0], n[0], h[1], p[1], n[1]);
  int theirs_same = s_span_eq(h[0], p[0], n[0], h[2], p[2], n[2]);
  int alike = s_span_eq(h[1], p[1], n[1], h[2], p[2], n[2]);
  int want = ours_same ? (theirs_same ? 0 : 2) : theirs_same || alike ? 1 : -1;
  if (want < 0) {
    tally->both++;
    return;
  }
  if (!s_span_eq(h[want], p[want], n[want], h[3], p[3], n[3])) {
    static const char *const who[] = {"base's", "ours'", "theirs'"};
    fprintf(stderr, "--- want (%s)\n%.*s\n--- merged\n%.*s\n", who[want], h[want] ? (int)n[want] : 0,
            h[want] ? (const char *)p[want] : "", h[3] ? (int)n[3] : 0, h[3] ? (const char *)p[3] : "");
    fail_msg("%s: the merged text of %s %s is not %s", c->name, c->svg ? "element" : "glyph", name ? name : "(header)",
             who[want]);
  }
  if (want == 0) tally->as_base++;
  else if (alike) tally->alike++;
  else if (want == 1) tally->as_ours++;
  else tally->as_theirs++;
}

typedef struct {
  char **names;
  size_t n, cap;
} s_names;

static void s_names_add(s_names *s, const char *p, size_t len) {
  for (size_t k = 0; k < s->n; k++)
    if (strlen(s->names[k]) == len && memcmp(s->names[k], p, len) == 0) return;
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 256;
    s->names = realloc(s->names, s->cap * sizeof *s->names);
    assert_non_null(s->names);
  }
  s->names[s->n] = strndup(p, len);
  assert_non_null(s->names[s->n]);
  s->n++;
}

typedef struct {
  s_names *names;
  int svg;
} s_collect_ctx;

static int s_collect_name(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_collect_ctx *x = user;
  ens_value v;
  if (x->svg ? ens_obj_get(o, "id", &v) == 0 && v.type == ENS_STR
             : !strcmp(ens_obj_kind(o), ENS_SFD_GLYPH) && ens_obj_get(o, "name", &v) == 0 && v.type == ENS_STR)
    s_names_add(x->names, v.u.s.ptr, v.u.s.len);
  return 0;
}

/* s_check_span for the header (fonts) and every glyph or element with an
 * id of base and both sides, but those in skip (NULL-terminated). */
static s_tally s_check_texts(const s_case *c, const char *const *skip) {
  s_names names = {NULL, 0, 0};
  s_collect_ctx x = {&names, c->svg};
  const ens_doc *docs[3] = {c->base, c->ours, c->theirs0};
  for (int k = 0; k < 3; k++) ens_obj_walk(ens_doc_root(docs[k]), s_collect_name, &x);
  s_tally t = {0, 0, 0, 0, 0};
  if (!c->svg) s_check_span(c, NULL, &t);
  for (size_t k = 0; k < names.n; k++) {
    int skipped = 0;
    for (size_t j = 0; skip && skip[j]; j++) skipped |= strcmp(skip[j], names.names[k]) == 0;
    if (!skipped) s_check_span(c, names.names[k], &t);
    free(names.names[k]);
  }
  free(names.names);
  fprintf(stderr, "%s: %zu %s as base's, %zu as ours', %zu as theirs', %zu changed alike, %zu changed by both\n",
          c->name, t.as_base, c->svg ? "elements" : "glyphs (and the header)", t.as_ours, t.as_theirs, t.alike, t.both);
  return t;
}

/* --- fonts ---------------------------------------------------------------------------------- */

static const ens_obj *s_glyph(const ens_doc *doc, const char *name) { return ens_glyph_find(doc, name); }

static int64_t s_gint(const ens_doc *doc, const char *glyph, const char *key) {
  const ens_obj *g = s_glyph(doc, glyph);
  ens_value v;
  if (!g) fail_msg("no glyph %s", glyph);
  if (ens_obj_get(g, key, &v) != 0) return INT64_MIN;
  assert_int_equal(v.type, ENS_INT);
  return v.u.i;
}

/* Glyph's foreground layer. */
static const ens_obj *s_fore(const ens_doc *doc, const char *glyph) {
  const ens_obj *g = s_glyph(doc, glyph);
  if (!g) fail_msg("no glyph %s", glyph);
  for (size_t k = 0; k < ens_obj_child_count(g); k++) {
    const ens_obj *l = ens_obj_child(g, k);
    ens_value v;
    if (!strcmp(ens_obj_kind(l), ENS_SFD_LAYER) && ens_obj_get(l, "index", &v) == 0 && v.u.i == 1) return l;
  }
  return NULL;
}

static size_t s_count_kind(const ens_obj *o, const char *kind) {
  size_t n = 0;
  for (size_t k = 0; o && k < ens_obj_child_count(o); k++) n += !strcmp(ens_obj_kind(ens_obj_child(o, k)), kind);
  return n;
}

/* Point p of contour c of glyph's foreground. */
static const ens_obj *s_point(const ens_doc *doc, const char *glyph, size_t c, size_t p) {
  const ens_obj *l = s_fore(doc, glyph);
  size_t seen = 0;
  for (size_t k = 0; l && k < ens_obj_child_count(l); k++) {
    const ens_obj *x = ens_obj_child(l, k);
    if (strcmp(ens_obj_kind(x), ENS_SFD_CONTOUR) != 0) continue;
    if (seen++ == c) return p < ens_obj_child_count(x) ? ens_obj_child(x, p) : NULL;
  }
  return NULL;
}

static double s_preal(const ens_obj *o, const char *key) {
  ens_value v;
  assert_non_null(o);
  assert_int_equal(ens_obj_get(o, key, &v), 0);
  return v.type == ENS_INT ? (double)v.u.i : v.u.r;
}

static size_t s_count_text(const s_buf *b, const char *needle) {
  size_t n = 0, nl = strlen(needle);
  for (size_t i = 0; i + nl <= b->n; i++) n += memcmp(b->p + i, needle, nl) == 0;
  return n;
}

/* Each font case runs on the bundled font, and on the corpus font in a
 * test of its own that skips without the corpus. */
#define S_FONT_TESTS(name, fn)                   \
  static void name(void **state) {              \
    (void)state;                                \
    fn(S_FONT_BUNDLED, 1);                      \
  }                                             \
  static void name##_corpus(void **state) {     \
    (void)state;                                \
    if (!tu_corpus_dir()) skip();               \
    fn(S_FONT_CORPUS, 0);                       \
  }

static const ens_glyph_node s_tri[3] = {{10, 10, 0, 0, 0, 0, 0}, {110, 10, 0, 0, 0, 0, 0}, {60, 90, 0, 0, 0, 0, 0}};

/* Edits of different glyphs on the two sides: every one arrives, no
 * conflict, and each glyph's text is the text of the side that changed it. */
static void s_font_different_glyphs(const char *rel, int bundled) {
  s_case c;
  if (!s_open(&c, rel, bundled, 0)) return;
  int64_t w_one = s_gint(c.base, "one", "width"), w_six = s_gint(c.base, "six", "width");
  size_t contours_three = s_count_kind(s_fore(c.base, "three"), ENS_SFD_CONTOUR);
  size_t points_seven = ens_obj_child_count(ens_obj_parent(s_point(c.base, "seven", 0, 0)));
  double x_two = s_preal(s_point(c.base, "two", 0, 1), "x");
  ens_glyph_pt p01 = {0, 1};
  /* ours: a width, a point moved, a contour added, a code point, a rename, a new glyph */
  S_DO(c.a, ens_glyph_set_width(c.a, "one", (int)w_one + 10, &t_));
  S_DO(c.a, ens_glyph_move_points(c.a, "two", &p01, 1, 7, -3, &t_));
  S_DO(c.a, ens_glyph_add_contour(c.a, "three", s_tri, 3, 1, &t_));
  S_DO(c.a, ens_glyph_set_unicode(c.a, "four", 0xF0123, &t_));
  S_DO(c.a, ens_glyph_rename(c.a, "five", "five.ours", &t_));
  S_DO(c.a, ens_glyph_add(c.a, "ours.new", 0xF0001, 500, &t_));
  /* theirs: a width, a point removed, a contour reversed, a new glyph */
  S_DO(c.b, ens_glyph_set_width(c.b, "six", (int)w_six + 20, &t_));
  S_DO(c.b, ens_glyph_remove_point(c.b, "seven", 0, 1, &t_));
  S_DO(c.b, ens_glyph_reverse_contour(c.b, "nine", 0, &t_));
  S_DO(c.b, ens_glyph_add(c.b, "theirs.new", 0xF0002, 600, &t_));
  s_merge(&c, ENS_MERGE_PREFER_OURS);
  s_want_conflicts(&c, 0);
  assert_int_equal(s_gint(c.back, "one", "width"), w_one + 10);
  assert_true(s_preal(s_point(c.back, "two", 0, 1), "x") == x_two + 7);
  assert_int_equal(s_count_kind(s_fore(c.back, "three"), ENS_SFD_CONTOUR), contours_three + 1);
  assert_int_equal(s_gint(c.back, "four", "unicode"), 0xF0123);
  assert_null(s_glyph(c.back, "five"));
  assert_non_null(s_glyph(c.back, "five.ours"));
  assert_int_equal(s_gint(c.back, "ours.new", "width"), 500);
  assert_int_equal(s_gint(c.back, "six", "width"), w_six + 20);
  assert_int_equal(ens_obj_child_count(ens_obj_parent(s_point(c.back, "seven", 0, 0))), points_seven - 1);
  assert_int_equal(s_gint(c.back, "theirs.new", "width"), 600);
  s_tally t = s_check_texts(&c, NULL);
  /* one, two, three, four, five.ours, ours.new (and five gone); six, seven,
   * nine, theirs.new: at least these, more where an edit reaches others */
  assert_true(t.as_ours >= 7);
  assert_true(t.as_theirs >= 4);
  assert_int_equal(t.both, 0);
  assert_true(t.as_base > 500);
  s_close(&c);
}

S_FONT_TESTS(test_edits_of_different_glyphs_are_all_kept, s_font_different_glyphs)

/* Both sides change one property: a SET conflict with the three values,
 * and the file holds the preferred side's value; where every change both
 * sides made to a glyph conflicts, the glyph is the preferred side's, byte
 * for byte. */
static void s_font_same_property(const char *rel, int bundled) {
  for (int pr = 0; pr < 2; pr++) {
    ens_merge_prefer prefer = pr ? ENS_MERGE_PREFER_THEIRS : ENS_MERGE_PREFER_OURS;
    s_case c;
    if (!s_open(&c, rel, bundled, 0)) return;
    int64_t w = s_gint(c.base, "one", "width");
    ens_glyph_pt p01 = {0, 1};
    S_DO(c.a, ens_glyph_set_width(c.a, "one", (int)w + 10, &t_));
    S_DO(c.b, ens_glyph_set_width(c.b, "one", (int)w + 20, &t_));
    S_DO(c.a, ens_glyph_move_points(c.a, "two", &p01, 1, 5, 0, &t_));
    S_DO(c.b, ens_glyph_move_points(c.b, "two", &p01, 1, -5, 0, &t_));
    S_DO(c.a, ens_glyph_set_unicode(c.a, "four", 0xF0011, &t_));
    S_DO(c.b, ens_glyph_set_unicode(c.b, "four", 0xF0012, &t_));
    s_merge(&c, prefer);
    const ens_merge_conflict *x = s_conflict(&c, ENS_CONFLICT_SET, "glyph one", "width");
    assert_int_equal(x->base.u.i, w);
    assert_int_equal(x->ours.u.i, w + 10);
    assert_int_equal(x->theirs.u.i, w + 20);
    x = s_conflict(&c, ENS_CONFLICT_SET, "glyph four", "unicode");
    assert_int_equal(x->ours.u.i, 0xF0011);
    assert_int_equal(x->theirs.u.i, 0xF0012);
    x = s_conflict(&c, ENS_CONFLICT_SET, "glyph two/layer 1/contour 0/point 1", "x");
    assert_true(x->ours.u.r == s_preal(s_point(c.base, "two", 0, 1), "x") + 5);
    assert_true(x->theirs.u.r == s_preal(s_point(c.base, "two", 0, 1), "x") - 5);
    for (size_t k = 0; k < ens_merge_conflict_count(c.m); k++) {
      /* the point's own control points move with it: conflicts too, and nothing else */
      x = ens_merge_conflict_at(c.m, k);
      assert_int_equal(x->kind, ENS_CONFLICT_SET);
      assert_true(!strcmp(x->path, "glyph one") || !strcmp(x->path, "glyph four") ||
                  !strncmp(x->path, "glyph two/layer 1/contour 0/point ", 34));
    }
    s_check_conflict_values(&c, prefer);
    assert_int_equal(s_gint(c.back, "one", "width"), w + (pr ? 20 : 10));
    assert_int_equal(s_gint(c.back, "four", "unicode"), pr ? 0xF0012 : 0xF0011);
    s_tally t = s_check_texts(&c, NULL);
    assert_int_equal(t.both, 3);
    /* every change to these glyphs conflicted: the preferred side's text */
    static const char *const glyphs[] = {"one", "two", "four"};
    for (int g = 0; g < 3; g++) {
      const unsigned char *pm, *ps;
      size_t nm, ns;
      assert_true(s_glyph_span(&c.out_text, glyphs[g], &pm, &nm));
      assert_true(s_glyph_span(pr ? &c.theirs_text : &c.ours_text, glyphs[g], &ps, &ns));
      if (nm != ns || memcmp(pm, ps, nm) != 0) fail_msg("%s: glyph %s is not the preferred side's", c.name, glyphs[g]);
    }
    s_close(&c);
  }
}

S_FONT_TESTS(test_one_property_changed_two_ways_is_a_conflict_with_its_three_values, s_font_same_property)

/* A glyph one side removed and the other edited: a DELETE conflict. When
 * ours removed it, prefer decides (gone, or theirs' glyph byte for byte);
 * when theirs removed it, it stays removed. */
static void s_font_delete_against_edit(const char *rel, int bundled) {
  for (int pr = 0; pr < 2; pr++) {
    ens_merge_prefer prefer = pr ? ENS_MERGE_PREFER_THEIRS : ENS_MERGE_PREFER_OURS;
    s_case c;
    if (!s_open(&c, rel, bundled, 0)) return;
    ens_glyph_pt p01 = {0, 1};
    S_DO(c.a, ens_glyph_remove(c.a, "percent", &t_));
    S_DO(c.b, ens_glyph_set_width(c.b, "percent", 777, &t_));
    S_DO(c.b, ens_glyph_move_points(c.b, "percent", &p01, 1, 3, 3, &t_));
    S_DO(c.b, ens_glyph_remove(c.b, "numbersign", &t_));
    S_DO(c.a, ens_glyph_set_width(c.a, "numbersign", 555, &t_));
    s_merge(&c, prefer);
    s_want_conflicts(&c, 2);
    const ens_merge_conflict *x = s_conflict(&c, ENS_CONFLICT_DELETE, "glyph percent", NULL);
    assert_int_equal(x->ours_kept, !pr);
    x = s_conflict(&c, ENS_CONFLICT_DELETE, "glyph numbersign", NULL);
    assert_int_equal(x->ours_kept, 0);
    assert_int_equal(x->id, ENS_ID_NONE); /* theirs no longer has it */
    assert_null(s_glyph(c.back, "numbersign"));
    assert_int_equal(s_count_text(&c.out_text, "StartChar: numbersign\n"), 0);
    const unsigned char *pm, *pt;
    size_t nm, nt;
    if (pr) {
      assert_int_equal(s_gint(c.back, "percent", "width"), 777);
      assert_true(s_glyph_span(&c.out_text, "percent", &pm, &nm));
      assert_true(s_glyph_span(&c.theirs_text, "percent", &pt, &nt));
      assert_true(nm == nt && memcmp(pm, pt, nm) == 0);
    } else {
      assert_null(s_glyph(c.back, "percent"));
      assert_false(s_glyph_span(&c.out_text, "percent", &pm, &nm));
    }
    s_tally t = s_check_texts(&c, NULL);
    assert_int_equal(t.both, 2);
    s_close(&c);
  }
}

S_FONT_TESTS(test_a_delete_against_an_edit_is_a_conflict, s_font_delete_against_edit)

/* Both sides add a glyph of one name: one glyph in the file. Alike, no
 * conflict; with two widths, an INSERT conflict (no base value), and what
 * only one side put in it (a contour) is merged in. */
static void s_font_both_add(const char *rel, int bundled) {
  for (int variant = 0; variant < 2; variant++) {
    s_case c;
    if (!s_open(&c, rel, bundled, 0)) return;
    S_DO(c.a, ens_glyph_add(c.a, "both.new", 0xF0020, 500, &t_));
    S_DO(c.b, ens_glyph_add(c.b, "both.new", 0xF0020, variant ? 600 : 500, &t_));
    if (variant) S_DO(c.a, ens_glyph_add_contour(c.a, "both.new", s_tri, 3, 1, &t_));
    s_merge(&c, ENS_MERGE_PREFER_THEIRS);
    assert_int_equal(s_count_text(&c.out_text, "StartChar: both.new\n"), 1);
    if (!variant) {
      s_want_conflicts(&c, 0);
      const unsigned char *pm, *po;
      size_t nm, no;
      assert_true(s_glyph_span(&c.out_text, "both.new", &pm, &nm));
      assert_true(s_glyph_span(&c.ours_text, "both.new", &po, &no));
      assert_true(nm == no && memcmp(pm, po, nm) == 0);
    } else {
      s_want_conflicts(&c, 1);
      const ens_merge_conflict *x = s_conflict(&c, ENS_CONFLICT_INSERT, "glyph both.new", "width");
      assert_int_equal(x->base.type, ENS_NIL);
      assert_int_equal(x->ours.u.i, 500);
      assert_int_equal(x->theirs.u.i, 600);
      assert_int_equal(x->ours_kept, 0);
      s_check_conflict_values(&c, ENS_MERGE_PREFER_THEIRS);
      assert_int_equal(s_gint(c.back, "both.new", "width"), 600);
      assert_int_equal(s_count_kind(s_fore(c.back, "both.new"), ENS_SFD_CONTOUR), 1);
      assert_int_equal(s_gint(c.back, "both.new", "unicode"), 0xF0020);
    }
    s_tally t = s_check_texts(&c, NULL);
    assert_int_equal(t.both, variant);
    assert_int_equal(t.alike, !variant);
    s_close(&c);
  }
}

S_FONT_TESTS(test_both_sides_adding_a_glyph_of_one_name_give_one_glyph, s_font_both_add)

/* Contours reversed (their points put in the other order) on both sides:
 * different contours of one glyph both arrive; the same contour reversed
 * by both is reversed once. The merged glyph's text is that of one copy
 * that had both edits. */
static void s_font_reorders(const char *rel, int bundled) {
  s_case c;
  if (!s_open(&c, rel, bundled, 0)) return;
  /* a glyph with two contours or more ("eight" and "percent" have them) */
  const char *g = s_count_kind(s_fore(c.base, "eight"), ENS_SFD_CONTOUR) >= 2 ? "eight" : "percent";
  assert_true(s_count_kind(s_fore(c.base, g), ENS_SFD_CONTOUR) >= 2);
  ens_doc *both = s_read(&c, &c.base_text);
  S_DO(c.a, ens_glyph_reverse_contour(c.a, g, 0, &t_));
  S_DO(c.b, ens_glyph_reverse_contour(c.b, g, 1, &t_));
  S_DO(c.a, ens_glyph_reverse_contour(c.a, "zero", 0, &t_));
  S_DO(c.b, ens_glyph_reverse_contour(c.b, "zero", 0, &t_));
  S_DO(both, ens_glyph_reverse_contour(both, g, 0, &t_));
  S_DO(both, ens_glyph_reverse_contour(both, g, 1, &t_));
  S_DO(both, ens_glyph_reverse_contour(both, "zero", 0, &t_));
  s_merge(&c, ENS_MERGE_PREFER_OURS);
  s_want_conflicts(&c, 0);
  s_buf want = s_write(&c, both);
  static const char *const glyphs[2] = {NULL, "zero"};
  for (int k = 0; k < 2; k++) {
    const char *name = k ? glyphs[k] : g;
    const unsigned char *pm, *pw;
    size_t nm, nw;
    assert_true(s_glyph_span(&c.out_text, name, &pm, &nm));
    assert_true(s_glyph_span(&want, name, &pw, &nw));
    if (nm != nw || memcmp(pm, pw, nm) != 0)
      fail_msg("%s: glyph %s is not what both edits on one copy give:\n%.*s\n---\n%.*s", c.name, name, (int)nm,
               (const char *)pm, (int)nw, (const char *)pw);
  }
  s_tally t = s_check_texts(&c, NULL);
  assert_int_equal(t.both, 1);
  assert_int_equal(t.alike, 1);
  ens_free(want.p);
  ens_doc_free(both);
  s_close(&c);
}

S_FONT_TESTS(test_contours_reversed_on_both_sides_are_all_kept, s_font_reorders)

/* doc with glyph made a component of glyph: the reference line FontForge
 * writes for it (after the outline's EndSplineSet), put into doc's text,
 * read again. Returns the new document; doc is freed. */
static ens_doc *s_add_component(const s_case *c, ens_doc *doc, const char *glyph, const char *component) {
  s_buf text = s_write(c, doc);
  const unsigned char *p;
  size_t n;
  assert_true(s_glyph_span(&text, glyph, &p, &n));
  const unsigned char *at = memmem(p, n, "\nEndSplineSet\n", 14);
  assert_non_null(at);
  size_t cut = (size_t)(at + 14 - text.p);
  char line[128];
  int ll = snprintf(line, sizeof line, "Refer: %lld %lld N 1 0 0 1 300 0 2\n", (long long)s_gint(doc, component, "gid"),
                    (long long)s_gint(doc, component, "unicode"));
  s_buf edited = {malloc(text.n + (size_t)ll), text.n + (size_t)ll};
  assert_non_null(edited.p);
  memcpy(edited.p, text.p, cut);
  memcpy(edited.p + cut, line, (size_t)ll);
  memcpy(edited.p + cut + ll, text.p + cut, text.n - cut);
  ens_doc *out = s_read(c, &edited);
  free(edited.p);
  ens_free(text.p);
  ens_doc_free(doc);
  return out;
}

/* One side makes a glyph a component of another while the other side
 * removes that glyph: the new use is an edit of what was removed, a DELETE
 * conflict. When theirs removed it, it stays removed and the reference goes
 * with it (the merged font could not hold it: FontForge drops such a
 * reference, and a session refuses it); when ours did, prefer decides, and
 * preferring theirs keeps the glyph and the component. */
static void s_font_reference_to_removed(const char *rel, int bundled) {
  for (int side = 0; side < 2; side++) {
    for (int pr = 0; pr < 2; pr++) {
      ens_merge_prefer prefer = pr ? ENS_MERGE_PREFER_THEIRS : ENS_MERGE_PREFER_OURS;
      s_case c;
      if (!s_open(&c, rel, bundled, 0)) return;
      size_t refs = s_count_kind(s_fore(c.base, "one"), ENS_SFD_REF);
      ens_doc **user = side ? &c.b : &c.a, *remover = side ? c.a : c.b;
      *user = s_add_component(&c, *user, "one", "percent");
      assert_int_equal(s_count_kind(s_fore(*user, "one"), ENS_SFD_REF), refs + 1);
      S_DO(remover, ens_glyph_remove(remover, "percent", &t_));
      int kept = side == 1 && pr == 1; /* ours removed it, theirs preferred */
      /* the reference's line comes after an EndSplineSet that the editor
       * wrote as text of its own before it: without the reference, the
       * file reads that line back as the layer's end again */
      c.layout_differs = !kept;
      s_merge(&c, prefer);
      s_want_conflicts(&c, 1);
      const ens_merge_conflict *x = s_conflict(&c, ENS_CONFLICT_DELETE, "glyph percent", NULL);
      assert_int_equal(x->ours_kept, side == 1 && pr == 0);
      if (kept) {
        assert_non_null(s_glyph(c.back, "percent"));
        assert_int_equal(s_count_kind(s_fore(c.back, "one"), ENS_SFD_REF), refs + 1);
        assert_int_equal(s_count_kind(s_fore(c.theirs, "one"), ENS_SFD_REF), refs + 1);
      } else {
        assert_null(s_glyph(c.back, "percent"));
        /* in the merged document too, not only in the file: the session
         * holds no reference its font cannot write */
        assert_int_equal(s_count_kind(s_fore(c.theirs, "one"), ENS_SFD_REF), refs);
        assert_int_equal(s_count_kind(s_fore(c.back, "one"), ENS_SFD_REF), refs);
        /* and glyph one is written as it was */
        const unsigned char *pb, *pm;
        size_t nb, nm;
        assert_true(s_glyph_span(&c.base_text, "one", &pb, &nb));
        assert_true(s_glyph_span(&c.out_text, "one", &pm, &nm));
        assert_true(nb == nm && memcmp(pb, pm, nb) == 0);
      }
      /* checked above: the text checks know no reference as an edit */
      static const char *const skip[] = {"one", "percent", NULL};
      s_check_texts(&c, skip);
      s_close(&c);
    }
  }
}

S_FONT_TESTS(test_a_reference_to_a_removed_glyph_is_a_conflict, s_font_reference_to_removed)

/* --- a drawing ------------------------------------------------------------------------------- */

#define S_L12 "#layer12"
#define S_P0 "#rect10788-4-8"
#define S_P1 "#path3601-2-3-3-9-34-9"
#define S_P2 "#path3601-2-3-3-9-3-0-1"
#define S_P3 "#path3601-2-3-3-9-3-3-4-5"
#define S_P4 "#path3601-2-3-3-9-3-3-7-0-8"
#define S_P5 "#path35635-8"
#define S_P6 "#path35642-5"
#define S_P7 "#path13075-5"

static const char *s_attr(const ens_doc *doc, const char *address, const char *name) {
  static char buf[4][4096];
  static int turn;
  const ens_obj *o = ens_svg_find(doc, address);
  ens_value v;
  if (!o || ens_obj_get(o, name, &v) != 0 || v.type != ENS_STR) return NULL;
  char *b = buf[turn++ & 3];
  snprintf(b, sizeof buf[0], "%.*s", (int)v.u.s.len, v.u.s.ptr);
  return b;
}

/* The ids of the child elements of address, joined by spaces. */
static const char *s_ids(const ens_doc *doc, const char *address) {
  static char buf[2048];
  const ens_obj *p = ens_svg_find(doc, address);
  size_t len = 0;
  buf[0] = '\0';
  assert_non_null(p);
  for (size_t k = 0; k < ens_obj_child_count(p); k++) {
    ens_value v;
    if (ens_obj_get(ens_obj_child(p, k), "id", &v) != 0) continue;
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%.*s", len ? " " : "", (int)v.u.s.len, v.u.s.ptr);
  }
  return buf;
}

static int s_open_drawing(s_case *c) { return s_open(c, S_DRAWING_CORPUS, 0, 1); }

static void test_edits_of_different_elements_are_all_kept(void **state) {
  (void)state;
  s_case c;
  if (!s_open_drawing(&c)) skip();
  static const char rect[] = "<rect id='ours-rect' width='2' height='2'/>";
  static const char circle[] = "<circle id='theirs-circle' r='1'/>";
  S_DO(c.a, ens_svg_set_style(c.a, S_P0, "fill", "#ff0000", &t_));
  S_DO(c.a, ens_svg_translate(c.a, S_P7, 1, 2, &t_));
  S_DO(c.a, ens_svg_delete(c.a, S_P6, &t_));
  S_DO(c.a, ens_svg_insert(c.a, "#layer11", -1, rect, strlen(rect), &t_));
  S_DO(c.a, ens_svg_set_attr(c.a, "#layer9", "inkscape:label", "status (ours)", &t_));
  S_DO(c.b, ens_svg_set_attr(c.b, "#grid4866", "spacingx", "2px", &t_));
  S_DO(c.b, ens_svg_raise(c.b, S_P2, &t_));
  S_DO(c.b, ens_svg_insert(c.b, S_L12, -1, circle, strlen(circle), &t_));
  S_DO(c.b, ens_svg_delete(c.b, "#metadata90", &t_));
  S_DO(c.b, ens_svg_set_style(c.b, S_P5, "opacity", "0.5", &t_));
  s_merge(&c, ENS_MERGE_PREFER_OURS);
  s_want_conflicts(&c, 0);
  assert_non_null(strstr(s_attr(c.back, S_P0, "style"), "fill:#ff0000"));
  assert_string_equal(s_attr(c.back, S_P7, "transform"), "translate(1,2)");
  assert_null(ens_svg_find(c.back, S_P6));
  assert_non_null(ens_svg_find(c.back, "#ours-rect"));
  assert_string_equal(s_attr(c.back, "#layer9", "inkscape:label"), "status (ours)");
  assert_string_equal(s_attr(c.back, "#grid4866", "spacingx"), "2px");
  assert_null(ens_svg_find(c.back, "#metadata90"));
  assert_non_null(strstr(s_attr(c.back, S_P5, "style"), "opacity:0.5"));
  assert_string_equal(s_ids(c.back, S_L12),
                      "rect10788-4-8 path3601-2-3-3-9-34-9 path3601-2-3-3-9-3-3-4-5 path3601-2-3-3-9-3-0-1 "
                      "path3601-2-3-3-9-3-3-7-0-8 path35635-8 path13075-5 theirs-circle");
  s_tally t = s_check_texts(&c, NULL);
  /* layer12 and the root element hold edits of both */
  assert_int_equal(t.both, 2);
  assert_true(t.as_ours >= 5 && t.as_theirs >= 4 && t.as_base >= 10);
  s_close(&c);
}

static void test_an_attribute_changed_two_ways_is_a_conflict_with_its_three_values(void **state) {
  (void)state;
  for (int pr = 0; pr < 2; pr++) {
    ens_merge_prefer prefer = pr ? ENS_MERGE_PREFER_THEIRS : ENS_MERGE_PREFER_OURS;
    s_case c;
    if (!s_open_drawing(&c)) skip();
    const char *style = s_attr(c.base, S_P5, "style");
    char base_style[4096];
    snprintf(base_style, sizeof base_style, "%s", style);
    S_DO(c.a, ens_svg_set_style(c.a, S_P5, "fill", "#ff0000", &t_));
    S_DO(c.b, ens_svg_set_style(c.b, S_P5, "fill", "#0000ff", &t_));
    S_DO(c.a, ens_svg_set_attr(c.a, "#layer9", "inkscape:label", "ours", &t_));
    S_DO(c.b, ens_svg_set_attr(c.b, "#layer9", "inkscape:label", "theirs", &t_));
    s_merge(&c, prefer);
    s_want_conflicts(&c, 2);
    const ens_merge_conflict *x = s_conflict(&c, ENS_CONFLICT_SET, "svg #svg7384/g #layer9", "inkscape:label");
    assert_int_equal(x->ours_kept, !pr);
    assert_string_equal(x->ours.u.s.ptr, "ours");
    assert_string_equal(x->theirs.u.s.ptr, "theirs");
    assert_string_equal(x->base.u.s.ptr, "status");
    x = s_conflict(&c, ENS_CONFLICT_SET, "svg #svg7384/g #layer12/path #path35635-8", "style");
    assert_string_equal(x->base.u.s.ptr, base_style);
    assert_non_null(strstr(x->ours.u.s.ptr, "fill:#ff0000"));
    assert_non_null(strstr(x->theirs.u.s.ptr, "fill:#0000ff"));
    s_check_conflict_values(&c, prefer);
    assert_string_equal(s_attr(c.back, "#layer9", "inkscape:label"), pr ? "theirs" : "ours");
    assert_non_null(strstr(s_attr(c.back, S_P5, "style"), pr ? "fill:#0000ff" : "fill:#ff0000"));
    s_tally t = s_check_texts(&c, NULL);
    assert_true(t.both >= 3); /* the two elements, and the root element and layer holding them */
    /* the preferred side's element, byte for byte */
    const unsigned char *pm, *ps;
    size_t nm, ns;
    assert_true(s_elem_span(&c.out_text, S_P5 + 1, &pm, &nm));
    assert_true(s_elem_span(pr ? &c.theirs_text : &c.ours_text, S_P5 + 1, &ps, &ns));
    assert_true(nm == ns && memcmp(pm, ps, nm) == 0);
    s_close(&c);
  }
}

static void test_an_element_deleted_and_edited_is_a_conflict(void **state) {
  (void)state;
  for (int pr = 0; pr < 2; pr++) {
    ens_merge_prefer prefer = pr ? ENS_MERGE_PREFER_THEIRS : ENS_MERGE_PREFER_OURS;
    s_case c;
    if (!s_open_drawing(&c)) skip();
    S_DO(c.a, ens_svg_delete(c.a, S_P7, &t_));
    S_DO(c.b, ens_svg_translate(c.b, S_P7, 4, 4, &t_));
    S_DO(c.b, ens_svg_delete(c.b, "#layer10", &t_));
    S_DO(c.a, ens_svg_set_attr(c.a, "#layer10", "inkscape:label", "devices (ours)", &t_));
    s_merge(&c, prefer);
    s_want_conflicts(&c, 2);
    const ens_merge_conflict *x = s_conflict(&c, ENS_CONFLICT_DELETE, "svg #svg7384/g #layer12/path #path13075-5", NULL);
    assert_int_equal(x->ours_kept, !pr);
    x = s_conflict(&c, ENS_CONFLICT_DELETE, "svg #svg7384/g #layer10", NULL);
    assert_int_equal(x->ours_kept, 0);
    assert_null(ens_svg_find(c.back, "#layer10"));
    if (pr) {
      assert_string_equal(s_attr(c.back, S_P7, "transform"), "translate(4,4)");
      const unsigned char *pm, *pt;
      size_t nm, nt;
      assert_true(s_elem_span(&c.out_text, S_P7 + 1, &pm, &nm));
      assert_true(s_elem_span(&c.theirs_text, S_P7 + 1, &pt, &nt));
      assert_true(nm == nt && memcmp(pm, pt, nm) == 0);
    } else {
      assert_null(ens_svg_find(c.back, S_P7));
    }
    s_check_texts(&c, NULL);
    s_close(&c);
  }
}

static void test_elements_of_one_id_both_sides_inserted_are_one(void **state) {
  (void)state;
  for (int variant = 0; variant < 2; variant++) {
    s_case c;
    if (!s_open_drawing(&c)) skip();
    static const char r5[] = "<rect id='both' width='5' height='3'/>", r6[] = "<rect id='both' width='6' height='3'/>";
    S_DO(c.a, ens_svg_insert(c.a, "#layer14", -1, r5, strlen(r5), &t_));
    S_DO(c.b, ens_svg_insert(c.b, "#layer14", -1, variant ? r6 : r5, strlen(r5), &t_));
    s_merge(&c, ENS_MERGE_PREFER_OURS);
    assert_int_equal(s_count_text(&c.out_text, "id='both'"), 1);
    if (variant) {
      s_want_conflicts(&c, 1);
      const ens_merge_conflict *x = s_conflict(&c, ENS_CONFLICT_INSERT, "svg #svg7384/g #layer14/rect #both", "width");
      assert_int_equal(x->base.type, ENS_NIL);
      assert_string_equal(x->ours.u.s.ptr, "5");
      assert_string_equal(x->theirs.u.s.ptr, "6");
      s_check_conflict_values(&c, ENS_MERGE_PREFER_OURS);
      assert_string_equal(s_attr(c.back, "#both", "width"), "5");
    } else {
      s_want_conflicts(&c, 0);
    }
    s_tally t = s_check_texts(&c, NULL);
    if (!variant) assert_int_equal(t.both, 0); /* the same on both sides: as either, byte for byte */
    if (!variant) assert_true(t.alike >= 3);     /* the rect, its layer and the root element */
    s_close(&c);
  }
}

/* Raise and lower on both sides. Reorders of separate stretches of one
 * list both arrive; the same swap made by both is made once; two swaps
 * that overlap otherwise are a MOVE conflict on the layer, the preferred
 * side's order standing (and, where diff3's stretches put it twice, one on
 * the path both sides moved and one on the blank that moves with it). */
static void test_reorders_on_both_sides(void **state) {
  (void)state;
  static const struct {
    int ours_raise, theirs_raise; /* which path each side raises (lowers when negative) */
    size_t conflicts;
    const char *order[2]; /* prefer ours, prefer theirs */
  } cases[] = {
      {0, -7, 0, {"P1 P0 P2 P3 P4 P5 P7 P6", "P1 P0 P2 P3 P4 P5 P7 P6"}},
      {2, -3, 0, {"P0 P1 P3 P2 P4 P5 P6 P7", "P0 P1 P3 P2 P4 P5 P6 P7"}},
      {2, 3, 1, {"P0 P1 P3 P2 P4 P5 P6 P7", "P0 P1 P2 P4 P3 P5 P6 P7"}},
  };
  static const char *const paths[] = {S_P0, S_P1, S_P2, S_P3, S_P4, S_P5, S_P6, S_P7};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    for (int pr = 0; pr < 2; pr++) {
      s_case c;
      if (!s_open_drawing(&c)) skip();
      int o = cases[k].ours_raise, t = cases[k].theirs_raise;
      if (o >= 0) S_DO(c.a, ens_svg_raise(c.a, paths[o], &t_));
      else S_DO(c.a, ens_svg_lower(c.a, paths[-o], &t_));
      if (t >= 0) S_DO(c.b, ens_svg_raise(c.b, paths[t], &t_));
      else S_DO(c.b, ens_svg_lower(c.b, paths[-t], &t_));
      s_merge(&c, pr ? ENS_MERGE_PREFER_THEIRS : ENS_MERGE_PREFER_OURS);
      if (!cases[k].conflicts) s_want_conflicts(&c, 0);
      if (cases[k].conflicts) {
        const ens_merge_conflict *x = s_conflict(&c, ENS_CONFLICT_MOVE, "svg #svg7384/g #layer12", NULL);
        assert_int_equal(x->ours_kept, !pr);
        for (size_t j = 0; j < ens_merge_conflict_count(c.m); j++) {
          x = ens_merge_conflict_at(c.m, j);
          assert_int_equal(x->kind, ENS_CONFLICT_MOVE);
          assert_int_equal(x->ours_kept, !pr);
          assert_true(!strcmp(x->path, "svg #svg7384/g #layer12") ||
                      !strcmp(x->path, "svg #svg7384/g #layer12/path #path3601-2-3-3-9-3-3-4-5") ||
                      !strcmp(x->path, "svg #svg7384/g #layer12/#text[0] after #path3601-2-3-3-9-3-3-4-5"));
        }
      }
      char want[2048];
      size_t len = 0;
      for (const char *s = cases[k].order[pr]; *s;) {
        int i = s[1] - '0';
        len += (size_t)snprintf(want + len, sizeof want - len, "%s%s", len ? " " : "", paths[i] + 1);
        s += 2;
        while (*s == ' ') s++;
      }
      assert_string_equal(s_ids(c.back, S_L12), want);
      /* the paths themselves are untouched: base's text, byte for byte */
      for (size_t p = 0; p < 8; p++) {
        const unsigned char *pm, *pb;
        size_t nm, nb;
        assert_true(s_elem_span(&c.out_text, paths[p] + 1, &pm, &nm));
        assert_true(s_elem_span(&c.base_text, paths[p] + 1, &pb, &nb));
        assert_true(nm == nb && memcmp(pm, pb, nm) == 0);
      }
      s_check_texts(&c, NULL);
      s_close(&c);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_edits_of_different_glyphs_are_all_kept),
      cmocka_unit_test(test_edits_of_different_glyphs_are_all_kept_corpus),
      cmocka_unit_test(test_one_property_changed_two_ways_is_a_conflict_with_its_three_values),
      cmocka_unit_test(test_one_property_changed_two_ways_is_a_conflict_with_its_three_values_corpus),
      cmocka_unit_test(test_a_delete_against_an_edit_is_a_conflict),
      cmocka_unit_test(test_a_delete_against_an_edit_is_a_conflict_corpus),
      cmocka_unit_test(test_both_sides_adding_a_glyph_of_one_name_give_one_glyph),
      cmocka_unit_test(test_both_sides_adding_a_glyph_of_one_name_give_one_glyph_corpus),
      cmocka_unit_test(test_contours_reversed_on_both_sides_are_all_kept),
      cmocka_unit_test(test_contours_reversed_on_both_sides_are_all_kept_corpus),
      cmocka_unit_test(test_a_reference_to_a_removed_glyph_is_a_conflict),
      cmocka_unit_test(test_a_reference_to_a_removed_glyph_is_a_conflict_corpus),
      cmocka_unit_test(test_edits_of_different_elements_are_all_kept),
      cmocka_unit_test(test_an_attribute_changed_two_ways_is_a_conflict_with_its_three_values),
      cmocka_unit_test(test_an_element_deleted_and_edited_is_a_conflict),
      cmocka_unit_test(test_elements_of_one_id_both_sides_inserted_are_one),
      cmocka_unit_test(test_reorders_on_both_sides),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
