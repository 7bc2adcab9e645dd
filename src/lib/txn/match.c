/* Matching by identity keys: the candidates' keys go into one buffer and
 * are sorted once, then each object to match is looked up by binary search,
 * so a list of n siblings costs O(n log n) and one allocation or two, not
 * one per key. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "match.h"

typedef struct {
  const char *kind;
  const ens_obj *obj;
  size_t off, len; /* the key, in the shared buffer */
  size_t index;    /* place in the candidate list: ties match in order */
  int used;
} s_entry;

typedef struct {
  char *buf;
  size_t len, cap;
} s_keys;

/* the key buffer, for qsort's comparator (one sort at a time per thread) */
static _Thread_local const char *s_sort_buf;

static int s_entry_cmp(const void *x, const void *y) {
  const s_entry *p = x, *q = y;
  size_t n = p->len < q->len ? p->len : q->len;
  int c = memcmp(s_sort_buf + p->off, s_sort_buf + q->off, n);
  if (c) return c;
  if (p->len != q->len) return p->len < q->len ? -1 : 1;
  c = p->kind == q->kind ? 0 : strcmp(p->kind, q->kind);
  if (c) return c;
  return (p->index > q->index) - (p->index < q->index);
}

/* The key of o appended to k; returns the identity function's answer (0
 * none, 1 a place, 2 a name) and the key's place in *off / *len. */
static int s_key(s_keys *k, const ens_obj *o, ens_identity_fn identity, void *user, size_t *off, size_t *len) {
  char tmp[ENS__KEY_MAX];
  int r = identity(o, tmp, sizeof tmp, user);
  if (r <= 0) return 0;
  tmp[ENS__KEY_MAX - 1] = '\0';
  size_t n = strlen(tmp);
  if (k->len + n > k->cap) {
    size_t cap = k->cap ? k->cap * 2 : 1024;
    while (cap < k->len + n) cap *= 2;
    char *b = realloc(k->buf, cap);
    if (!b) return -1;
    k->buf = b;
    k->cap = cap;
  }
  memcpy(k->buf + k->len, tmp, n);
  *off = k->len;
  *len = n;
  k->len += n;
  return r;
}

static int s_cmp_key(const s_keys *k, const s_entry *e, size_t off, size_t len, const char *kind) {
  size_t n = e->len < len ? e->len : len;
  int c = memcmp(k->buf + e->off, k->buf + off, n);
  if (c) return c;
  if (e->len != len) return e->len < len ? -1 : 1;
  return e->kind == kind ? 0 : strcmp(e->kind, kind);
}

int ens__match_list(const ens_obj *const *as, size_t na, const ens_obj *const *bs, size_t nb,
                    ens_identity_fn identity, void *user, int names_only, const ens_obj **out) {
  for (size_t i = 0; i < nb; i++) out[i] = NULL;
  if (!na || !nb) return 0;
  s_keys k = {0};
  s_entry *es = malloc(na * sizeof *es);
  size_t ne = 0;
  int rc = 0;
  if (!es) goto oom;
  for (size_t i = 0; i < na; i++) {
    size_t off = 0, len = 0;
    int r = s_key(&k, as[i], identity, user, &off, &len);
    if (r < 0) goto oom;
    if (!r || (names_only && r != 2)) continue;
    es[ne++] = (s_entry){as[i]->kind, as[i], off, len, i, 0};
  }
  s_sort_buf = k.buf;
  qsort(es, ne, sizeof *es, s_entry_cmp);
  for (size_t i = 0; i < nb && ne; i++) {
    size_t off = 0, len = 0, mark = k.len;
    int r = s_key(&k, bs[i], identity, user, &off, &len);
    if (r < 0) goto oom;
    k.len = mark; /* the probe's key is not kept */
    if (!r || (names_only && r != 2)) continue;
    size_t lo = 0, hi = ne;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (s_cmp_key(&k, &es[mid], off, len, bs[i]->kind) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (; lo < ne && s_cmp_key(&k, &es[lo], off, len, bs[i]->kind) == 0; lo++)
      if (!es[lo].used) {
        es[lo].used = 1;
        out[i] = es[lo].obj;
        break;
      }
  }
  goto done;
oom:
  rc = ens__error(ENS_ENOMEM, "out of memory matching objects");
done:
  free(es);
  free(k.buf);
  return rc;
}

static size_t s_kind_count(const ens_obj *p, const char *kind, const ens_obj **only) {
  size_t n = 0;
  for (uint32_t i = 0; i < p->nkids; i++)
    if (strcmp(p->kids[i]->kind, kind) == 0) {
      n++;
      *only = p->kids[i];
    }
  return n;
}

/* Under the roots, the one object of a kind on each side is one object
 * whatever its key: a document's element (an SVG file's <svg>) whose id
 * another program changed is the same drawing, not a removed one and an
 * added one with every element moved between them. Only a few children
 * left over are looked at (each costs a pass over the lists). */
static void s_match_sole_kinds(const ens_obj *a, const ens_obj *b, const ens_obj **m) {
  size_t left = 0;
  for (uint32_t i = 0; i < b->nkids; i++) left += m[i] == NULL;
  if (!left || left > 8) return;
  for (uint32_t i = 0; i < b->nkids; i++) {
    if (m[i]) continue;
    const ens_obj *in_a = NULL, *in_b = NULL;
    if (s_kind_count(b, b->kids[i]->kind, &in_b) != 1 || s_kind_count(a, b->kids[i]->kind, &in_a) != 1) continue;
    int used = 0;
    for (uint32_t j = 0; j < b->nkids && !used; j++) used = m[j] == in_a;
    if (!used) m[i] = in_a;
  }
}

static int s_tree_match(const ens_obj *a, const ens_obj *b, ens_identity_fn identity, void *iuser, ens__match_fn fn,
                        void *user, int depth) {
  int rc = fn(a, b, user);
  if (rc || !b->nkids) return rc;
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "objects nested too deeply");
  const ens_obj **m = malloc(b->nkids * sizeof *m);
  if (!m) return ens__error(ENS_ENOMEM, "out of memory matching objects");
  rc = ens__match_list((const ens_obj *const *)a->kids, a->nkids, (const ens_obj *const *)b->kids, b->nkids,
                       identity, iuser, 0, m);
  if (!rc && !a->parent && !b->parent) s_match_sole_kinds(a, b, m);
  for (uint32_t i = 0; i < b->nkids && !rc; i++)
    rc = m[i] ? s_tree_match(m[i], b->kids[i], identity, iuser, fn, user, depth + 1) : fn(NULL, b->kids[i], user);
  free(m);
  return rc;
}

int ens__tree_match(const ens_obj *a, const ens_obj *b, ens_identity_fn identity, void *iuser, ens__match_fn fn,
                    void *user) {
  return s_tree_match(a, b, identity, iuser, fn, user, 0);
}
