/* What the SVG editing commands share: blank text, positions for new
 * children, the set of ids in use, the reference syntax, namespace scope,
 * numbers, and copying a subtree (with its kept source text, so a copy is
 * written as its original was) into a transaction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/buf.h"
#include "../../util/error.h"
#include "../../util/hash.h"
#include "edit_int.h"

static int s_is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int ens__svge_is_blank(const ens_obj *o) {
  const char *s;
  size_t n;
  if (!o || strcmp(ens_obj_kind(o), ENS_SVG_TEXT) != 0 || ens__svge_attr(o, "text", &s, &n)) return 0;
  for (size_t i = 0; i < n; i++)
    if (!s_is_blank_char(s[i])) return 0;
  return 1;
}

const ens_obj *ens__svge_blank_before(const ens_obj *o) {
  size_t i = ens_obj_index(o);
  if (!i) return NULL;
  const ens_obj *prev = ens_obj_child(ens_obj_parent(o), i - 1);
  return ens__svge_is_blank(prev) ? prev : NULL;
}

const char *ens__svge_local(const char *kind) {
  const char *c = strchr(kind, ':');
  return c ? c + 1 : kind;
}

int ens__svge_txn(const char *label, ens_txn **out) {
  *out = ens_txn_new(label, NULL);
  return *out ? 0 : ens__error(ENS_ENOMEM, "out of memory making a transaction");
}

int ens__svge_new_id(ens_doc *doc, ens_id *out) {
  *out = ens_doc_new_id(doc);
  return *out == ENS_ID_NONE ? ENS_ELIMIT : 0;
}

void ens__svge_pos_free(char **pos, size_t k) {
  for (size_t i = 0; i < k; i++) {
    ens_free(pos[i]);
    pos[i] = NULL;
  }
}

int ens__svge_positions(const ens_doc *doc, const ens_obj *parent, size_t index, size_t k, char **pos) {
  memset(pos, 0, k * sizeof *pos);
  size_t nkids = ens_obj_child_count(parent);
  const char *hi = index < nkids ? ens_obj_pos(ens_obj_child(parent, index)) : NULL;
  for (size_t i = 0; i < k; i++) {
    if (i == 0) {
      int rc = ens_doc_pos_at(doc, ens_obj_id(parent), index, &pos[0]);
      if (rc) return rc;
    } else {
      /* each after the one before it, all before the child at index */
      pos[i] = ens_pos_between(pos[i - 1], hi && strcmp(hi, pos[i - 1]) > 0 ? hi : NULL);
      if (!pos[i]) {
        ens__svge_pos_free(pos, i);
        return ens__error(ENS_ENOMEM, "out of memory placing new nodes");
      }
    }
  }
  return 0;
}

/* --- a set of strings ------------------------------------------------------------------ */

static size_t s_slot(const ens__svge_set *s, const char *v, size_t n) {
  size_t mask = s->cap - 1, i = (size_t)ens__hash_bytes(v, n, 7) & mask;
  while (s->slot[i] && !(strlen(s->slot[i]) == n && memcmp(s->slot[i], v, n) == 0)) i = (i + 1) & mask;
  return i;
}

int ens__svge_set_has(const ens__svge_set *s, const char *v, size_t n) {
  return s->cap && s->slot[s_slot(s, v, n)] != NULL;
}

int ens__svge_set_add(ens__svge_set *s, const char *v, size_t n) {
  if ((s->n + 1) * 2 > s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 64;
    ens__svge_set big = {calloc(nc, sizeof(char *)), nc, 0};
    if (!big.slot) return ens__error(ENS_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->cap; i++)
      if (s->slot[i]) big.slot[s_slot(&big, s->slot[i], strlen(s->slot[i]))] = s->slot[i];
    big.n = s->n;
    free(s->slot);
    *s = big;
  }
  size_t i = s_slot(s, v, n);
  if (s->slot[i]) return 0;
  char *c = malloc(n + 1);
  if (!c) return ens__error(ENS_ENOMEM, "out of memory");
  memcpy(c, v, n);
  c[n] = '\0';
  s->slot[i] = c;
  s->n++;
  return 0;
}

void ens__svge_set_free(ens__svge_set *s) {
  for (size_t i = 0; i < s->cap; i++) free(s->slot[i]);
  free(s->slot);
  memset(s, 0, sizeof *s);
}

static int s_ids_fn(const ens_obj *o, size_t depth, void *user) {
  const char *s;
  size_t n;
  (void)depth;
  if (ens__svge_is_elem(o) && ens__svge_attr(o, "id", &s, &n) == 0) return ens__svge_set_add(user, s, n);
  return 0;
}

int ens__svge_ids(const ens_obj *top, ens__svge_set *s) { return ens_obj_walk(top, s_ids_fn, s); }

void ens__svge_idmap_free(ens__svge_idmap *m) {
  for (size_t i = 0; i < m->n; i++) {
    free(m->from[i]);
    free(m->to[i]);
  }
  free(m->from);
  free(m->to);
  memset(m, 0, sizeof *m);
}

/* --- references ------------------------------------------------------------------------- */

static int s_is_href(const char *key) {
  size_t n = strlen(key);
  return strcmp(key, "href") == 0 || (n > 5 && memcmp(key + n - 5, ":href", 5) == 0);
}

int ens__svge_refs(const char *key, const char *v, size_t vn, ens__svge_ref_fn fn, void *user) {
  if (key[0] == '~' || key[0] == '&') return 0;
  if (s_is_href(key)) {
    size_t a = 0, b = vn;
    while (a < b && s_is_blank_char(v[a])) a++;
    while (b > a && s_is_blank_char(v[b - 1])) b--;
    if (b - a > 1 && v[a] == '#') return fn(v + a + 1, b - a - 1, user);
    return 0;
  }
  for (size_t i = 0; i + 4 <= vn; i++) {
    if (memcmp(v + i, "url(", 4) != 0) continue;
    size_t j = i + 4;
    while (j < vn && s_is_blank_char(v[j])) j++;
    char q = j < vn && (v[j] == '"' || v[j] == '\'') ? v[j] : 0;
    if (q) j++;
    if (j >= vn || v[j] != '#') continue;
    size_t s = ++j;
    while (j < vn && v[j] != ')' && v[j] != q && !s_is_blank_char(v[j])) j++;
    if (j > s) {
      int rc = fn(v + s, j - s, user);
      if (rc) return rc;
    }
    i = j - 1;
  }
  return 0;
}

typedef struct {
  int (*found)(const char *name, size_t len, void *ctx);
  void *ctx;
} s_named;

static int s_named_fn(const char *at, size_t n, void *user) {
  s_named *c = user;
  char name[256]; /* longer names are no key of ens_svg_identity */
  if (n + 1 >= sizeof name) return 0;
  name[0] = '#';
  memcpy(name + 1, at, n);
  name[n + 1] = '\0';
  return c->found(name, n + 1, c->ctx);
}

int ens_svg_refs(const ens_obj *obj, const char *key, ens_value value, int (*found)(const char *name, size_t len, void *ctx),
                 void *ctx, void *user) {
  (void)user;
  /* attributes are an element's; text, comments and the rest say nothing */
  if (!obj || !key || !found || ens_obj_kind(obj)[0] == '#' || (value.type != ENS_STR && value.type != ENS_BYTES)) return 0;
  s_named c = {found, ctx};
  return ens__svge_refs(key, value.u.s.ptr, value.u.s.len, s_named_fn, &c);
}

/* --- copying --------------------------------------------------------------------------- */

static const char *s_map(const ens__svge_idmap *m, const char *s, size_t n) {
  for (size_t i = 0; m && i < m->n; i++)
    if (strlen(m->from[i]) == n && memcmp(m->from[i], s, n) == 0) return m->to[i];
  return NULL;
}

typedef struct {
  const ens__svge_idmap *map;
  const char *v;
  ens_buf *out;
  size_t done; /* bytes of v already copied to out */
} s_rewrite;

static int s_rewrite_fn(const char *at, size_t n, void *user) {
  s_rewrite *r = user;
  const char *to = s_map(r->map, at, n);
  if (!to) return 0;
  size_t off = (size_t)(at - r->v);
  ens__buf_append(r->out, r->v + r->done, off - r->done);
  ens__buf_puts(r->out, to);
  r->done = off + n;
  return 0;
}

/* A property of the copy: id attributes and references through map. */
static int s_copy_prop(ens_node *nd, const char *key, ens_value v, const ens__svge_idmap *map) {
  if (!map || v.type != ENS_STR) return ens_node_set(nd, key, v);
  if (strcmp(key, "id") == 0) {
    const char *to = s_map(map, v.u.s.ptr, v.u.s.len);
    return ens_node_set(nd, key, to ? ens_str(to) : v);
  }
  ens_buf out = ENS_BUF_INIT;
  s_rewrite r = {map, v.u.s.ptr, &out, 0};
  ens__svge_refs(key, v.u.s.ptr, v.u.s.len, s_rewrite_fn, &r);
  if (!r.done) return ens_node_set(nd, key, v);
  ens__buf_append(&out, v.u.s.ptr + r.done, v.u.s.len - r.done);
  int rc = out.oom ? ens__error(ENS_ENOMEM, "out of memory") : ens_node_set(nd, key, ens_strn((char *)out.data, out.len));
  ens__buf_free(&out);
  return rc;
}

int ens__svge_copy(ens_doc *doc, ens_txn *txn, ens_id parent, const char *pos, ens_node *parent_node,
                   const ens_obj *src, const ens__svge_idmap *map, size_t depth) {
  if (depth > 1000) return ens__error(ENS_ELIMIT, "the copy is nested deeper than 1000 levels");
  ens_id id;
  int rc = ens__svge_new_id(doc, &id);
  if (rc) return rc;
  ens_node *nd = parent_node ? ens_node_add_child(parent_node, pos, id, ens_obj_kind(src))
                             : ens_txn_insert(txn, parent, pos, id, ens_obj_kind(src));
  if (!nd) return ens__error(ENS_ENOMEM, "out of memory copying nodes");
  size_t np = ens_obj_prop_count(src);
  for (size_t i = 0; i < np && !rc; i++) {
    const char *key;
    ens_value v;
    if (ens_obj_prop_at(src, i, &key, &v) == 0) rc = s_copy_prop(nd, key, v, map);
  }
  size_t nk = ens_obj_child_count(src);
  for (size_t i = 0; i < nk && !rc; i++) {
    const ens_obj *k = ens_obj_child(src, i);
    rc = ens__svge_copy(doc, txn, ENS_ID_NONE, ens_obj_pos(k), nd, k, map, depth + 1);
  }
  return rc;
}

/* --- namespaces -------------------------------------------------------------------------- */

size_t ens__svge_ns_scope(const ens_obj *o, const char **keys, const char **vals, size_t *vlens, size_t max) {
  size_t n = 0;
  for (; o && ens_obj_parent(o); o = ens_obj_parent(o)) {
    size_t np = ens_obj_prop_count(o);
    for (size_t i = 0; i < np; i++) {
      const char *key;
      ens_value v;
      if (ens_obj_prop_at(o, i, &key, &v) || v.type != ENS_STR) continue;
      if (strncmp(key, "xmlns", 5) != 0 || (key[5] && key[5] != ':')) continue;
      size_t j = 0;
      while (j < n && strcmp(keys[j], key) != 0) j++;
      if (j < n || n == max) continue; /* a nearer declaration wins */
      keys[n] = key;
      vals[n] = v.u.s.ptr;
      vlens[n++] = v.u.s.len;
    }
  }
  return n;
}

int ens__svge_ns_declared(const ens_obj *o, const char *prefix, size_t n) {
  if (n == 3 && memcmp(prefix, "xml", 3) == 0) return 1;
  for (; o && ens_obj_parent(o); o = ens_obj_parent(o)) {
    ens_value v;
    char key[300];
    if (n > 256) return 0;
    snprintf(key, sizeof key, "xmlns:%.*s", (int)n, prefix);
    if (ens_obj_get(o, key, &v) == 0) return 1;
  }
  return 0;
}

void ens__svge_num(double v, char *buf, size_t size) {
  if (v == 0) v = 0; /* -0 reads as 0 and should be written so */
  if (v == floor(v) && fabs(v) < 1e15) { /* 90, not 9e+01 */
    snprintf(buf, size, "%.0f", v);
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
}
