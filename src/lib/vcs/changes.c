/* Semantic diff: the change list between two versions of a document. The
 * model's matching by identity keys pairs most objects (src/lib/txn/match.c,
 * as ens_doc_diff does); what it leaves over is paired again by name
 * anywhere in the tree (a move to another parent) and by content (a rename,
 * a move of something without a name), so that people see moves and
 * renames rather than a delete and an insert. */
#include <stdlib.h>
#include <string.h>

#include "../txn/match.h"
#include "../util/error.h"
#include "../util/hash.h"
#include "changes_int.h"

/* --- id -> object maps (open addressing) ---------------------------------- */

static int s_map_put(s_map *m, ens_id id, const ens_obj *o) { return ens__idtab_put(m, id, (uintptr_t)o); }

const ens_obj *ens__changes_map_get(const s_map *m, ens_id id) {
  uint64_t v;
  return ens__idtab_find(m, id, &v) ? (const ens_obj *)(uintptr_t)v : NULL;
}
#define s_map_get ens__changes_map_get

static void s_map_free(s_map *m) { ens__idtab_free(m); }

/* --- strings the list owns --------------------------------------------------- */

static char *s_keep(ens_changes *c, char *s) {
  if (!s) return NULL;
  if (c->nstrings == c->capstrings) {
    size_t cap = c->capstrings ? c->capstrings * 2 : 64;
    char **p = realloc(c->strings, cap * sizeof *p);
    if (!p) {
      free(s);
      return NULL;
    }
    c->strings = p;
    c->capstrings = cap;
  }
  return c->strings[c->nstrings++] = s;
}

static char *s_keep_copy(ens_changes *c, const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return s_keep(c, d);
}

/* --- keys and paths --------------------------------------------------------------- */

/* The identity key of o (0 none, 1 place, 2 name); by id mode: none. */
static int s_key(const s_ctx *x, const ens_obj *o, char *key, size_t size) {
  key[0] = '\0';
  if (!x->opts.identity || !o->parent) return 0;
  int r = x->opts.identity(o, key, size, x->opts.identity_user);
  key[size - 1] = '\0';
  return r < 0 ? 0 : r;
}

/* One step of a path: "glyph a", "layer 1", "point 5", "rect#logo",
 * "rect[2]". */
static void s_step(const s_ctx *x, const ens_obj *o, char *step, size_t size) {
  char key[ENS__KEY_MAX];
  size_t kl = strlen(o->kind);
  int r = s_key(x, o, key, sizeof key);
  if (r <= 0) {
    snprintf(step, size, "%.255s[%zu]", o->kind, ens_obj_index(o));
  } else if (strncmp(key, o->kind, kl) == 0 && (key[kl] == ' ' || key[kl] == '[')) {
    snprintf(step, size, "%s", key);
  } else if (key[0] == '#' && key[1] && strspn(key + 1, "0123456789") == strlen(key + 1)) {
    snprintf(step, size, "%.255s %s", o->kind, key + 1);
  } else if (key[0] == '#' && o->kind[0] != '#') {
    snprintf(step, size, "%.255s%s", o->kind, key);
  } else {
    snprintf(step, size, "%.255s %s", o->kind, key);
  }
}

static char *s_path_to(const s_ctx *x, const ens_obj *o, size_t upto_depth) {
  const ens_obj *chain[ENS_MAX_DEPTH + 1];
  size_t depth = 0;
  for (; o && o->parent && depth < ENS_MAX_DEPTH; o = o->parent) chain[depth++] = o;
  /* the last upto_depth steps (a group's label: its own step) */
  size_t top = depth < upto_depth ? depth : upto_depth;
  char *buf = malloc(64);
  size_t len = 0, cap = 64;
  if (!buf) return NULL;
  buf[0] = '\0';
  while (top--) {
    char step[ENS__KEY_MAX + 300];
    s_step(x, chain[top], step, sizeof step);
    size_t n = strlen(step);
    if (len + n + 2 > cap) {
      while (len + n + 2 > cap) cap *= 2;
      char *b = realloc(buf, cap);
      if (!b) {
        free(buf);
        return NULL;
      }
      buf = b;
    }
    if (len) buf[len++] = '/';
    memcpy(buf + len, step, n + 1);
    len += n;
  }
  return buf;
}

static const char *s_path(s_ctx *x, const ens_obj *o) { return s_keep(x->c, s_path_to(x, o, (size_t)-1)); }

/* The object a change is shown under: a font's glyph (or the font), a
 * drawing's element (a text node's element). */
static const ens_obj *s_group_obj(const s_ctx *x, const ens_obj *o) {
  if (x->svg) {
    while (o->parent && o->kind[0] == '#') o = o->parent;
    return o;
  }
  while (o->parent && o->parent->parent) o = o->parent;
  return o;
}

/* How many steps name an element for people: from the nearest
 * ancestor-or-self with a name ("rect#logo"; "g#layer1/rect[2]"), else
 * from the root, at most three (the JSON has the whole path). */
static size_t s_label_depth(const s_ctx *x, const ens_obj *o) {
  size_t n = 1;
  char key[ENS__KEY_MAX];
  for (; n < 3 && o->parent && o->parent->parent && s_key(x, o, key, sizeof key) != 2; o = o->parent) n++;
  return n;
}

/* --- what counts ------------------------------------------------------------------------ */

/* Kept text ('~') counts only on text a reader kept without modelling it
 * (an SFD raw line): elsewhere it changes with the values it stands for. */
static int s_text_only(const ens_obj *o) { return strcmp(o->kind, "raw") == 0; }

static int s_counts(const s_ctx *x, const ens_obj *o, const char *key, int text_only) {
  (void)x;
  if (key[0] == '@') return 0;
  if (key[0] == '~' && !text_only) return 0;
  return 1;
}

static int s_noise(const s_ctx *x, const ens_obj *o, const char *key, ens_value a, ens_value b) {
  return x->opts.noise && x->opts.noise(o, key, a, b, x->opts.noise_user) == 1;
}

/* --- content hashes, for pairing what the keys left over ----------------------------- */

static uint64_t s_value_hash(const s_ctx *x, const ens_doc *doc, ens_value v) {
  uint64_t h = ens__mix64((uint64_t)v.type + 77);
  switch (v.type) {
  case ENS_INT: return ens__hash_combine(h, (uint64_t)v.u.i);
  case ENS_BOOL: return ens__hash_combine(h, (uint64_t)v.u.b);
  case ENS_REAL: {
    uint64_t bits;
    memcpy(&bits, &v.u.r, sizeof bits);
    return ens__hash_combine(h, bits);
  }
  case ENS_STR:
  case ENS_BYTES: return ens__hash_combine(h, ens__hash_bytes(v.u.s.ptr, v.u.s.len, 5));
  case ENS_REF: {
    /* by what it names, which has another id on the other side */
    const ens_obj *t = ens__doc_lookup(doc, v.u.ref);
    if (!t) return h;
    char key[ENS__KEY_MAX];
    s_key(x, t, key, sizeof key);
    return ens__hash_combine(ens__hash_combine(h, ens__hash_bytes(t->kind, strlen(t->kind), 9)),
                             ens__hash_bytes(key, strlen(key), 11));
  }
  default: return h;
  }
}

/* Kind and properties (without the ones skip says), then the children
 * in order; skip_key leaves out one property (the name, for renames). */
static uint64_t s_content_hash(const s_ctx *x, const ens_doc *doc, const ens_obj *o, const char *skip_key,
                               int depth) {
  uint64_t h = ens__hash_bytes(o->kind, strlen(o->kind), 1), props = 0;
  int text_only = s_text_only(o);
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL) continue;
    const char *k = ens__prop_key(o, p);
    ens_value v = ens__prop_value(p);
    if (!s_counts(x, o, k, text_only) || s_noise(x, o, k, v, v)) continue;
    if (skip_key && strcmp(k, skip_key) == 0) continue;
    /* a sum: properties in any order */
    props += ens__hash_combine(ens__hash_bytes(k, strlen(k), 3), s_value_hash(x, doc, v));
  }
  h = ens__hash_combine(h, props);
  if (depth < ENS_MAX_DEPTH)
    for (uint32_t i = 0; i < o->nkids; i++) h = ens__hash_combine(h, s_content_hash(x, doc, o->kids[i], NULL, depth + 1));
  return h;
}

/* The property that holds o's name: a string whose value is its key
 * ("name" of a glyph, "id" of an SVG element, whose key is "#id"). */
static const char *s_name_prop(const ens_obj *o, const char *key) {
  size_t kl = strlen(key);
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type != ENS_STR || !p->len) continue;
    const char *k = ens__prop_key(o, p);
    if (k[0] == '~' || k[0] == '@') continue;
    if ((p->len == kl && memcmp(p->u.s, key, kl) == 0) ||
        (kl == (size_t)p->len + 1 && key[0] == '#' && memcmp(p->u.s, key + 1, p->len) == 0))
      return k;
  }
  return NULL;
}

/* --- matching ----------------------------------------------------------------------------- */

static int s_pair(s_ctx *x, const ens_obj *a, const ens_obj *b) {
  int rc = s_map_put(&x->n2o, b->id, a);
  return rc ? rc : s_map_put(&x->o2n, a->id, b);
}

static int s_matched(const ens_obj *a, const ens_obj *b, void *user) {
  s_ctx *x = user;
  if (!a) return 0;
  /* under a pair made by name or content, children already paired stay */
  if (s_map_get(&x->n2o, b->id) || s_map_get(&x->o2n, a->id)) return 0;
  return s_pair(x, a, b);
}

/* A pair made otherwise than by equal keys under paired parents: its keys
 * may differ (a rename) and its parents too (a move). */
static int s_pair_other(s_ctx *x, const ens_obj *a, const ens_obj *b) {
  int rc = s_pair(x, a, b);
  return rc ? rc : s_map_put(&x->rekeyed, b->id, a);
}

static int s_match_by_id(s_ctx *x, const ens_obj *b, int depth) {
  const ens_obj *a = ens__doc_lookup(x->old, b->id);
  if (a && a->kind != b->kind && strcmp(a->kind, b->kind) != 0) a = NULL;
  if (!b->parent) a = x->old->root;
  int rc = a ? s_pair(x, a, b) : 0;
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "objects nested too deeply");
  for (uint32_t i = 0; i < b->nkids && !rc; i++) rc = s_match_by_id(x, b->kids[i], depth + 1);
  return rc;
}

typedef struct {
  const ens_obj *o;
  uint64_t h;
  int used;
} s_cand;

typedef struct {
  s_cand *v;
  size_t n, cap;
} s_cands;

static int s_cands_add(s_cands *c, const ens_obj *o, uint64_t h) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    s_cand *p = realloc(c->v, cap * sizeof *p);
    if (!p) return ens__error(ENS_ENOMEM, "out of memory comparing documents");
    c->v = p;
    c->cap = cap;
  }
  c->v[c->n++] = (s_cand){o, h, 0};
  return 0;
}

static int s_cand_cmp(const void *p, const void *q) {
  const s_cand *a = p, *b = q;
  if (a->h != b->h) return a->h < b->h ? -1 : 1;
  return (a->o->id > b->o->id) - (a->o->id < b->o->id);
}

/* Objects of one side worth pairing by name or content. by_name 1: every
 * object with a name, paired or not (a name pairs across parents only
 * when it is the document's one object of that kind and name: an SVG id,
 * a glyph's name, not a glyph's "layer 1"); 0: unpaired tops of what
 * went or came (under a paired parent) with a name or children (a glyph,
 * a group: not a lone point or a blank between elements, which would
 * pair with any look-alike); 2: unpaired objects with a name, hashed
 * without it. */
static int s_collect(s_ctx *x, const ens_doc *doc, const s_map *paired, const ens_obj *o, int by_name, s_cands *out,
                     int depth) {
  int rc = 0;
  if (o->parent) {
    int is_paired = s_map_get(paired, o->id) != NULL;
    char key[ENS__KEY_MAX];
    int r = s_key(x, o, key, sizeof key);
    if (by_name == 1 && r == 2) {
      uint64_t h = ens__hash_combine(ens__hash_bytes(o->kind, strlen(o->kind), 1), ens__hash_bytes(key, strlen(key), 2));
      rc = s_cands_add(out, o, h);
      if (!rc && is_paired) out->v[out->n - 1].used = 2;
    } else if (is_paired) {
      /* nothing */
    } else if (by_name == 0 && (r == 2 || o->nkids) && s_map_get(paired, o->parent->id)) {
      rc = s_cands_add(out, o, s_content_hash(x, doc, o, NULL, 0));
    } else if (by_name == 2 && r == 2) {
      const char *np = s_name_prop(o, key);
      if (np) rc = s_cands_add(out, o, ens__hash_combine(s_content_hash(x, doc, o, np, 0), 0x5eed));
    }
  }
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "objects nested too deeply");
  for (uint32_t i = 0; i < o->nkids && !rc; i++) rc = s_collect(x, doc, paired, o->kids[i], by_name, out, depth + 1);
  return rc;
}

/* For by_name 1: keeps only the unpaired objects whose hash no other
 * object of their side has. */
static void s_only_unique(s_cands *c) {
  qsort(c->v, c->n, sizeof *c->v, s_cand_cmp);
  size_t n = 0;
  for (size_t i = 0; i < c->n;) {
    size_t j = i;
    while (j < c->n && c->v[j].h == c->v[i].h) j++;
    if (j == i + 1 && c->v[i].used != 2) c->v[n++] = c->v[i];
    i = j;
  }
  c->n = n;
}

/* Pairs unpaired objects of new with unpaired ones of old that hash
 * alike (same kind: the hashes include it), in new's order, each old one
 * once; then matches their subtrees by keys. by_name: 1 a name anywhere,
 * 0 the same content, 2 the same content but for the name, under paired
 * parents (a rename). */
static int s_pair_leftovers(s_ctx *x, int by_name) {
  s_cands olds = {0}, news = {0};
  int rc = s_collect(x, x->old, &x->o2n, x->old->root, by_name, &olds, 0);
  if (!rc) rc = s_collect(x, x->new, &x->n2o, x->new->root, by_name, &news, 0);
  if (rc) goto done;
  if (by_name == 1) {
    s_only_unique(&olds);
    s_only_unique(&news);
  }
  if (!olds.n || !news.n) goto done;
  qsort(olds.v, olds.n, sizeof *olds.v, s_cand_cmp);
  for (size_t i = 0; i < news.n && !rc; i++) {
    const ens_obj *b = news.v[i].o;
    if (s_map_get(&x->n2o, b->id)) continue; /* paired inside an earlier pair's subtree */
    size_t lo = 0, hi = olds.n;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (olds.v[mid].h < news.v[i].h) lo = mid + 1;
      else hi = mid;
    }
    for (; lo < olds.n && olds.v[lo].h == news.v[i].h; lo++) {
      const ens_obj *a = olds.v[lo].o;
      if (olds.v[lo].used || s_map_get(&x->o2n, a->id) || strcmp(a->kind, b->kind) != 0) continue;
      if (by_name == 2) {
        /* a rename stays where it was */
        const ens_obj *pa = s_map_get(&x->n2o, b->parent->id);
        if (pa != a->parent) continue;
      }
      olds.v[lo].used = 1;
      rc = s_pair_other(x, a, b);
      if (!rc) rc = ens__tree_match(a, b, x->opts.identity, x->opts.identity_user, s_matched, x);
      break;
    }
  }
done:
  free(olds.v);
  free(news.v);
  return rc;
}

/* Unpaired children of each pair that hold the same content, in order:
 * what a key names only by its neighbour (an SVG blank after an element
 * whose id changed) stays itself. */
static int s_pair_siblings(s_ctx *x, const ens_obj *b, int depth) {
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "objects nested too deeply");
  const ens_obj *a = s_map_get(&x->n2o, b->id);
  int rc = 0;
  if (a && a->nkids && b->nkids) {
    size_t na = 0;
    uint64_t *ha = malloc(a->nkids * sizeof *ha);
    uint32_t *ia = malloc(a->nkids * sizeof *ia);
    if (!ha || !ia) rc = ens__error(ENS_ENOMEM, "out of memory comparing documents");
    for (uint32_t i = 0; i < a->nkids && !rc; i++)
      if (!s_map_get(&x->o2n, a->kids[i]->id)) {
        ha[na] = s_content_hash(x, x->old, a->kids[i], NULL, 0);
        ia[na++] = i;
      }
    size_t from = 0;
    for (uint32_t i = 0; i < b->nkids && !rc && from < na; i++) {
      const ens_obj *k = b->kids[i];
      if (s_map_get(&x->n2o, k->id)) continue;
      uint64_t h = s_content_hash(x, x->new, k, NULL, 0);
      for (size_t j = from; j < na; j++)
        if (ha[j] == h && strcmp(a->kids[ia[j]]->kind, k->kind) == 0) {
          rc = s_pair_other(x, a->kids[ia[j]], k);
          if (!rc) rc = ens__tree_match(a->kids[ia[j]], k, x->opts.identity, x->opts.identity_user, s_matched, x);
          from = j + 1;
          break;
        }
    }
    free(ha);
    free(ia);
  }
  for (uint32_t i = 0; i < b->nkids && !rc; i++) rc = s_pair_siblings(x, b->kids[i], depth + 1);
  return rc;
}

/* --- records ---------------------------------------------------------------------------------- */

static ens__change_rec *s_rec(s_ctx *x, ens_change_kind kind, const ens_obj *a, const ens_obj *b) {
  ens_changes *c = x->c;
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    ens__change_rec *p = realloc(c->recs, cap * sizeof *p);
    if (!p) return NULL;
    c->recs = p;
    c->cap = cap;
  }
  ens__change_rec *r = &c->recs[c->n];
  memset(r, 0, sizeof *r);
  const ens_obj *o = b ? b : a;
  r->c.kind = kind;
  r->c.old_id = a ? a->id : ENS_ID_NONE;
  r->c.new_id = b ? b->id : ENS_ID_NONE;
  r->c.old_value = r->c.new_value = ens_nil();
  if (!(r->c.obj_kind = s_keep_copy(c, o->kind, strlen(o->kind)))) return NULL;
  if (!(r->c.path = s_path(x, o))) return NULL;
  const ens_obj *g = s_group_obj(x, o);
  if (!(r->c.group = g == o ? r->c.path : s_path(x, g))) return NULL;
  if (!(r->group_label = x->svg ? s_keep(c, s_path_to(x, g, s_label_depth(x, g))) : r->c.group)) return NULL;
  if (o->kind[0] == '#' && x->svg) {
    ens_value t;
    if (ens_obj_get(o, "text", &t) == 0 && t.type == ENS_STR) {
      size_t i = 0;
      while (i < t.u.s.len && strchr(" \t\r\n", t.u.s.ptr[i])) i++;
      r->blank = i == t.u.s.len;
    }
  }
  c->n++;
  return r;
}

/* A value kept by the list, with the text people see for a reference. */
static int s_value(s_ctx *x, const ens_doc *doc, ens_value v, ens_value *out, const char **ref_path) {
  *out = v;
  *ref_path = NULL;
  if (v.type == ENS_STR || v.type == ENS_BYTES) {
    char *s = s_keep_copy(x->c, v.u.s.ptr, v.u.s.len);
    if (!s) return ENS_ENOMEM;
    out->u.s.ptr = s;
  } else if (v.type == ENS_REF) {
    const ens_obj *t = ens__doc_lookup(doc, v.u.ref);
    if (t && !(*ref_path = s_path(x, t))) return ENS_ENOMEM;
  }
  return 0;
}

static int s_set_values(s_ctx *x, ens__change_rec *r, ens_value a, ens_value b) {
  int rc = s_value(x, x->old, a, &r->c.old_value, &r->old_ref);
  return rc ? rc : s_value(x, x->new, b, &r->c.new_value, &r->new_ref);
}

/* References are equal when they name paired objects (or both nothing). */
static int s_same(s_ctx *x, ens_value a, ens_value b) {
  if (a.type == ENS_REF && b.type == ENS_REF) {
    const ens_obj *ta = ens__doc_lookup(x->old, a.u.ref), *tb = ens__doc_lookup(x->new, b.u.ref);
    if (!ta || !tb) return !ta && !tb;
    return s_map_get(&x->n2o, tb->id) == ta;
  }
  return ens_value_equal(&a, &b);
}

static int s_emit_props(s_ctx *x, const ens_obj *a, const ens_obj *b, const char *rename_key) {
  int ta = s_text_only(a), tb = s_text_only(b);
  for (uint32_t i = 0; i < b->nprops; i++) {
    const ens__prop *p = &b->props[i];
    if (p->type == ENS_NIL) continue;
    const char *k = ens__prop_key(b, p);
    if (!s_counts(x, b, k, ta && tb)) continue;
    ens_value nv = ens__prop_value(p), ov;
    if (ens_obj_get(a, k, &ov) != 0) ov = ens_nil();
    if (s_same(x, ov, nv) || s_noise(x, b, k, ov, nv)) continue;
    int ren = rename_key && strcmp(k, rename_key) == 0;
    ens__change_rec *r = s_rec(x, ren ? ENS_CHANGE_RENAMED : ENS_CHANGE_SET, a, b);
    if (!r || !(r->c.key = s_keep_copy(x->c, k, strlen(k))) || s_set_values(x, r, ov, nv))
      return ens__error(ENS_ENOMEM, "out of memory comparing documents");
    if (ren && !(r->c.old_path = s_path(x, a))) return ens__error(ENS_ENOMEM, "out of memory comparing documents");
  }
  for (uint32_t i = 0; i < a->nprops; i++) {
    const ens__prop *p = &a->props[i];
    if (p->type == ENS_NIL) continue;
    const char *k = ens__prop_key(a, p);
    if (!s_counts(x, a, k, ta && tb)) continue;
    ens_value ov = ens__prop_value(p), nv;
    if (ens_obj_get(b, k, &nv) == 0) continue;
    if (s_noise(x, b, k, ov, ens_nil())) continue;
    ens__change_rec *r = s_rec(x, ENS_CHANGE_SET, a, b);
    if (!r || !(r->c.key = s_keep_copy(x->c, k, strlen(k))) || s_set_values(x, r, ov, ens_nil()))
      return ens__error(ENS_ENOMEM, "out of memory comparing documents");
  }
  return 0;
}

/* Which of b's children that stay under the same parent moved among
 * their siblings: all but a longest run whose old places increase. */
static int s_reordered(s_ctx *x, const ens_obj *a, const ens_obj *b, unsigned char *moved) {
  size_t n = b->nkids, m = 0;
  size_t *idx = malloc((n + 1) * sizeof *idx), *at = malloc((n + 1) * sizeof *at);
  size_t *tail = malloc((n + 1) * sizeof *tail), *prev = malloc((n + 1) * sizeof *prev);
  int rc = 0;
  if (!idx || !at || !tail || !prev) {
    rc = ens__error(ENS_ENOMEM, "out of memory comparing documents");
    goto done;
  }
  /* most lists kept their order: one walk through both says so */
  size_t j = 0;
  int in_order = 1;
  for (size_t i = 0; i < n && in_order; i++) {
    const ens_obj *k = s_map_get(&x->n2o, b->kids[i]->id);
    if (!k || k->parent != a) continue;
    while (j < a->nkids && a->kids[j] != k) j++;
    in_order = j < a->nkids;
  }
  if (in_order) goto done;
  for (size_t i = 0; i < n; i++) {
    const ens_obj *k = s_map_get(&x->n2o, b->kids[i]->id);
    if (k && k->parent == a) {
      idx[m] = ens_obj_index(k);
      at[m++] = i;
      moved[i] = 1;
    }
  }
  /* longest increasing subsequence of idx[0..m) (patience, O(m log m)) */
  size_t len = 0;
  for (size_t i = 0; i < m; i++) {
    size_t lo = 0, hi = len;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (idx[tail[mid]] < idx[i]) lo = mid + 1;
      else hi = mid;
    }
    prev[i] = lo ? tail[lo - 1] : (size_t)-1;
    tail[lo] = i;
    if (lo == len) len++;
  }
  for (size_t i = len ? tail[len - 1] : (size_t)-1; i != (size_t)-1; i = prev[i]) moved[at[i]] = 0;
done:
  free(idx);
  free(at);
  free(tail);
  free(prev);
  return rc;
}

static int s_emit(s_ctx *x, const ens_obj *b, int depth);

static int s_emit_removed(s_ctx *x, const ens_obj *a) {
  for (uint32_t i = 0; i < a->nkids; i++) {
    const ens_obj *k = a->kids[i];
    if (s_map_get(&x->o2n, k->id)) continue;
    if (!s_rec(x, ENS_CHANGE_REMOVED, k, NULL)) return ens__error(ENS_ENOMEM, "out of memory comparing documents");
  }
  return 0;
}

/* A pair: renamed, moved to another parent, its properties, the children
 * of the old one that went, then its children in order (those moved
 * among their siblings said so first). */
static int s_emit_pair(s_ctx *x, const ens_obj *a, const ens_obj *b, int depth) {
  int rc = 0;
  if (b->parent) {
    const ens_obj *pa = s_map_get(&x->n2o, b->parent->id);
    char ka[ENS__KEY_MAX], kb[ENS__KEY_MAX];
    const char *rename_key = NULL;
    int other = s_map_get(&x->rekeyed, b->id) != NULL;
    int ra = other ? s_key(x, a, ka, sizeof ka) : 0, rb = other ? s_key(x, b, kb, sizeof kb) : 0;
    if (ra == 2 && rb == 2 && strcmp(ka, kb) != 0) {
      rename_key = s_name_prop(b, kb);
      if (!rename_key) {
        ens__change_rec *r = s_rec(x, ENS_CHANGE_RENAMED, a, b);
        if (!r || !(r->c.old_path = s_path(x, a)) || s_set_values(x, r, ens_str(ka), ens_str(kb)))
          return ens__error(ENS_ENOMEM, "out of memory comparing documents");
      }
    }
    if (pa != a->parent) {
      ens__change_rec *r = s_rec(x, ENS_CHANGE_MOVED, a, b);
      if (!r || !(r->c.old_path = s_path(x, a))) return ens__error(ENS_ENOMEM, "out of memory comparing documents");
    }
    rc = s_emit_props(x, a, b, rename_key);
  } else {
    rc = s_emit_props(x, a, b, NULL);
  }
  if (!rc) rc = s_emit_removed(x, a);
  if (rc || !b->nkids) return rc;
  unsigned char *moved = calloc(b->nkids, 1);
  if (!moved) return ens__error(ENS_ENOMEM, "out of memory comparing documents");
  rc = s_reordered(x, a, b, moved);
  for (uint32_t i = 0; i < b->nkids && !rc; i++) {
    if (moved[i]) {
      const ens_obj *k = b->kids[i], *ka = s_map_get(&x->n2o, k->id);
      ens__change_rec *r = s_rec(x, ENS_CHANGE_MOVED, ka, k);
      /* in a drawing, the element it now lies above (not the blank between) */
      size_t p = i;
      while (x->svg && p && b->kids[p - 1]->kind[0] == '#') p--;
      if (!x->svg) p = i;
      if (!r || !(r->c.old_path = s_path(x, ka)) || (p && !(r->c.after = s_path(x, b->kids[p - 1])))) {
        rc = ens__error(ENS_ENOMEM, "out of memory comparing documents");
        break;
      }
      r->reorder = 1;
    }
    rc = s_emit(x, b->kids[i], depth + 1);
  }
  free(moved);
  return rc;
}

static int s_emit_unpaired(s_ctx *x, const ens_obj *b, int depth) {
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "objects nested too deeply");
  for (uint32_t i = 0; i < b->nkids; i++) {
    int rc = s_emit(x, b->kids[i], depth + 1);
    if (rc) return rc;
  }
  return 0;
}

static int s_emit(s_ctx *x, const ens_obj *b, int depth) {
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "objects nested too deeply");
  const ens_obj *a = s_map_get(&x->n2o, b->id);
  if (a) return s_emit_pair(x, a, b, depth);
  /* added: reported at its top; what is paired beneath it moved in */
  if (b->parent && s_map_get(&x->n2o, b->parent->id) && !s_rec(x, ENS_CHANGE_ADDED, NULL, b))
    return ens__error(ENS_ENOMEM, "out of memory comparing documents");
  return s_emit_unpaired(x, b, depth);
}

static int s_leftovers(const s_ctx *x) {
  return x->n2o.count < ens_doc_count(x->new) && x->o2n.count < ens_doc_count(x->old);
}

/* --- public -------------------------------------------------------------------------------------- */

int ens_changes_compute(const ens_doc *old_doc, const ens_doc *new_doc, const ens_changes_opts *opts,
                        ens_changes **out) {
  if (out) *out = NULL;
  if (!old_doc || !new_doc || !out) return ens__error(ENS_EINVAL, "ens_changes_compute needs two documents");
  if (strcmp(old_doc->kind, new_doc->kind) != 0)
    return ens__error(ENS_EKIND, "cannot compare a '%s' document with a '%s' one", old_doc->kind, new_doc->kind);
  s_ctx x;
  memset(&x, 0, sizeof x);
  x.old = old_doc;
  x.new = new_doc;
  if (opts) x.opts = *opts;
  x.svg = strcmp(new_doc->kind, "svg") == 0;
  x.c = calloc(1, sizeof *x.c);
  if (!x.c) return ens__error(ENS_ENOMEM, "out of memory comparing documents");
  int rc;
  if (x.opts.identity) {
    rc = ens__tree_match(old_doc->root, new_doc->root, x.opts.identity, x.opts.identity_user, s_matched, &x);
    /* pairing what is left costs a walk of both documents per pass: only
     * while both sides still have something unpaired */
    for (int pass = 0; pass < 4 && !rc && s_leftovers(&x); pass++)
      rc = pass < 3 ? s_pair_leftovers(&x, pass == 0 ? 1 : pass == 1 ? 2 : 0) : s_pair_siblings(&x, new_doc->root, 0);
  } else {
    rc = s_match_by_id(&x, new_doc->root, 0);
  }
  if (!rc) rc = s_emit(&x, new_doc->root, 0);
  s_map_free(&x.n2o);
  s_map_free(&x.o2n);
  s_map_free(&x.rekeyed);
  if (rc) {
    ens_changes_free(x.c);
    return rc;
  }
  *out = x.c;
  return 0;
}

size_t ens_changes_count(const ens_changes *c) { return c ? c->n : 0; }

const ens_change *ens_changes_at(const ens_changes *c, size_t i) { return c && i < c->n ? &c->recs[i].c : NULL; }

void ens_changes_free(ens_changes *c) {
  if (!c) return;
  for (size_t i = 0; i < c->nstrings; i++) free(c->strings[i]);
  free(c->strings);
  free(c->recs);
  free(c);
}

const char *ens_change_kind_name(ens_change_kind kind) {
  switch (kind) {
  case ENS_CHANGE_ADDED: return "added";
  case ENS_CHANGE_REMOVED: return "removed";
  case ENS_CHANGE_SET: return "set";
  case ENS_CHANGE_MOVED: return "moved";
  case ENS_CHANGE_RENAMED: return "renamed";
  }
  return "?";
}
