/* Document fingerprints (fingerprint.h). An object's place is the hash of
 * its parent's place, its kind and its rank among its siblings of that
 * kind, so that the fingerprint does not depend on ids or position
 * strings; references hash as their target's place. Entries are 32 bits:
 * a rare collision only blurs a distance, which is all they are for. */
#include <stdlib.h>
#include <string.h>

#include "../model/doc.h"
#include "../util/error.h"
#include "../util/hash.h"
#include "fingerprint.h"

/* id -> place, open addressing */
typedef struct {
  ens_id *id;
  uint64_t *place;
  size_t cap;
} s_places;

static uint64_t s_place_get(const s_places *p, ens_id id) {
  size_t i = (size_t)ens__mix64(id) & (p->cap - 1);
  while (p->id[i]) {
    if (p->id[i] == id) return p->place[i];
    i = (i + 1) & (p->cap - 1);
  }
  return 0;
}

static void s_place_put(s_places *p, ens_id id, uint64_t place) {
  size_t i = (size_t)ens__mix64(id) & (p->cap - 1);
  while (p->id[i] && p->id[i] != id) i = (i + 1) & (p->cap - 1);
  p->id[i] = id;
  p->place[i] = place;
}

static uint64_t s_str_hash(const char *s) { return ens__hash_bytes(s, strlen(s), 0x6b6579); }

/* Kinds and keys are interned per document: their hashes by pointer. */
typedef struct {
  const char **p;
  uint64_t *h;
  size_t cap, n;
  int oom;
} s_atoms;

static uint64_t s_atom_hash(s_atoms *a, const char *s) {
  size_t i = (size_t)ens__mix64((uint64_t)(uintptr_t)s) & (a->cap - 1);
  while (a->p[i]) {
    if (a->p[i] == s) return a->h[i];
    i = (i + 1) & (a->cap - 1);
  }
  uint64_t h = s_str_hash(s);
  if ((a->n + 1) * 2 > a->cap) { /* full enough: hash without keeping (documents have few kinds and keys) */
    const char **p = calloc(a->cap * 2, sizeof *p);
    uint64_t *hh = malloc(a->cap * 2 * sizeof *hh);
    if (!p || !hh) {
      free(p);
      free(hh);
      return h;
    }
    for (size_t j = 0; j < a->cap; j++)
      if (a->p[j]) {
        size_t k = (size_t)ens__mix64((uint64_t)(uintptr_t)a->p[j]) & (a->cap * 2 - 1);
        while (p[k]) k = (k + 1) & (a->cap * 2 - 1);
        p[k] = a->p[j];
        hh[k] = a->h[j];
      }
    free(a->p);
    free(a->h);
    a->p = p;
    a->h = hh;
    a->cap *= 2;
    i = (size_t)ens__mix64((uint64_t)(uintptr_t)s) & (a->cap - 1);
    while (a->p[i]) i = (i + 1) & (a->cap - 1);
  }
  a->p[i] = s;
  a->h[i] = h;
  a->n++;
  return h;
}

static uint64_t s_value_hash(const s_places *places, const ens_value *v) {
  uint64_t h = ens__mix64((uint64_t)v->type + 1);
  switch (v->type) {
  case ENS_INT: return ens__hash_combine(h, (uint64_t)v->u.i);
  case ENS_REAL: {
    uint64_t bits;
    memcpy(&bits, &v->u.r, sizeof bits);
    return ens__hash_combine(h, bits);
  }
  case ENS_BOOL: return ens__hash_combine(h, (uint64_t)v->u.b);
  case ENS_STR:
  case ENS_BYTES: return ens__hash_combine(h, ens__hash_bytes(v->u.s.ptr, v->u.s.len, 0x737472));
  case ENS_REF: return ens__hash_combine(h, s_place_get(places, v->u.ref));
  default: return h;
  }
}

/* Places of every object, pre-order, iteratively (any depth). */
typedef struct {
  const ens_obj *obj;
  size_t next; /* next child to visit */
  uint64_t place;
  /* ranks of the children seen so far, by kind (interned: compared by pointer) */
  const char **kinds;
  uint32_t *counts;
  size_t nkinds, capkinds;
} s_frame;

static uint32_t s_rank(s_frame *f, const char *kind, int *oom) {
  for (size_t i = 0; i < f->nkinds; i++)
    if (f->kinds[i] == kind) return f->counts[i]++;
  if (f->nkinds == f->capkinds) {
    size_t cap = f->capkinds ? f->capkinds * 2 : 4;
    const char **k = realloc(f->kinds, cap * sizeof *k);
    if (k) f->kinds = k;
    uint32_t *c = realloc(f->counts, cap * sizeof *c);
    if (c) f->counts = c;
    if (!k || !c) {
      *oom = 1;
      return 0;
    }
    f->capkinds = cap;
  }
  f->kinds[f->nkinds] = kind;
  f->counts[f->nkinds++] = 1;
  return 0;
}

static void s_radix_sort(uint32_t *a, uint32_t *tmp, size_t *count, size_t n) {
  for (int shift = 0; shift < 32; shift += 16) {
    memset(count, 0, 65537 * sizeof *count);
    for (size_t i = 0; i < n; i++) count[((a[i] >> shift) & 0xffff) + 1]++;
    for (size_t i = 1; i <= 65536; i++) count[i] += count[i - 1];
    for (size_t i = 0; i < n; i++) tmp[count[(a[i] >> shift) & 0xffff]++] = a[i];
    memcpy(a, tmp, n * sizeof *a);
  }
}

int ens__fp_make(const ens_doc *doc, ens__fp *out) {
  out->h = NULL;
  out->n = 0;
  size_t nobj = ens_doc_count(doc), cap = 16;
  while (cap < nobj * 2) cap *= 2;
  s_places places = {calloc(cap, sizeof(ens_id)), malloc(cap * sizeof(uint64_t)), cap};
  s_frame *stack = calloc(ENS_MAX_DEPTH + 2, sizeof *stack);
  size_t nentries = 0, capentries = nobj * 8 + 16, norder = 0;
  uint32_t *h = malloc(capentries * sizeof *h);
  uint64_t *order = malloc((nobj ? nobj : 1) * sizeof *order); /* places in pre-order, for pass 2 */
  s_atoms atoms = {calloc(64, sizeof(const char *)), malloc(64 * sizeof(uint64_t)), 64, 0, 0};
  int oom = !places.id || !places.place || !stack || !h || !order || !atoms.p || !atoms.h;
  /* pass 1: places */
  size_t depth = 0;
  if (!oom) {
    stack[0].obj = ens_doc_root(doc);
    stack[0].place = s_str_hash(ens_obj_kind(stack[0].obj));
    s_place_put(&places, ens_obj_id(stack[0].obj), stack[0].place);
    order[norder++] = stack[0].place;
  }
  while (!oom) {
    s_frame *f = &stack[depth];
    if (f->next == ens_obj_child_count(f->obj) || depth > ENS_MAX_DEPTH) {
      f->nkinds = 0;
      if (!depth) break;
      depth--;
      continue;
    }
    const ens_obj *kid = ens_obj_child(f->obj, f->next++);
    const char *kind = ens_obj_kind(kid);
    uint32_t rank = s_rank(f, kind, &oom);
    s_frame *k = &stack[++depth];
    k->obj = kid;
    k->next = 0;
    k->nkinds = 0;
    k->place = ens__hash_combine(ens__hash_combine(f->place, s_atom_hash(&atoms, kind)), rank);
    s_place_put(&places, ens_obj_id(kid), k->place);
    if (norder < nobj) order[norder++] = k->place;
  }
  /* pass 2: one entry per object, one per property */
  depth = 0;
  size_t at = 0;
  if (!oom) stack[0].next = 0;
  while (!oom) {
    s_frame *f = &stack[depth];
    if (f->next == 0) {
      const ens_obj *o = f->obj;
      uint64_t place = at < norder ? order[at++] : 0;
      size_t np = o->nprops;
      if (nentries + np + 1 > capentries) {
        while (capentries < nentries + np + 1) capentries *= 2;
        uint32_t *g = realloc(h, capentries * sizeof *h);
        if (!g) {
          oom = 1;
          break;
        }
        h = g;
      }
      h[nentries++] = (uint32_t)ens__hash_combine(place, 0x6f626a);
      /* text kept for writing the object back ("~" keys) counts only on an
       * object that has nothing else: elsewhere it repeats the values, and
       * a copy of the session's document keeps the text it was read with
       * while its values moved on */
      int modelled = 0;
      for (size_t i = 0; i < np && !modelled; i++) {
        const ens__prop *p = &o->props[i];
        const char *pk = ens__prop_key(o, p);
        modelled = p->type != ENS_NIL && pk[0] != '~' && pk[0] != '@';
      }
      for (size_t i = 0; i < np; i++) {
        const ens__prop *p = &o->props[i];
        const char *pk = ens__prop_key(o, p);
        if (p->type == ENS_NIL || pk[0] == '@' || (modelled && pk[0] == '~')) continue;
        ens_value v = ens__prop_value(p);
        h[nentries++] =
            (uint32_t)ens__hash_combine(ens__hash_combine(place, s_atom_hash(&atoms, pk)), s_value_hash(&places, &v));
      }
    }
    if (f->next == ens_obj_child_count(f->obj) || depth > ENS_MAX_DEPTH) {
      if (!depth) break;
      depth--;
      continue;
    }
    const ens_obj *kid = ens_obj_child(f->obj, f->next++);
    s_frame *k = &stack[++depth];
    k->obj = kid;
    k->next = 0;
  }
  if (stack)
    for (size_t i = 0; i < ENS_MAX_DEPTH + 2; i++) {
      free(stack[i].kinds);
      free(stack[i].counts);
    }
  free(stack);
  free(places.id);
  free(places.place);
  free(order);
  free(atoms.p);
  free(atoms.h);
  uint32_t *tmp = oom ? NULL : malloc((nentries ? nentries : 1) * sizeof *tmp);
  size_t *count = oom ? NULL : malloc(65537 * sizeof *count);
  if (oom || !tmp || !count) {
    free(h);
    free(tmp);
    free(count);
    return ens__error(ENS_ENOMEM, "out of memory fingerprinting a document");
  }
  s_radix_sort(h, tmp, count, nentries);
  free(tmp);
  free(count);
  out->h = h;
  out->n = nentries;
  return 0;
}

size_t ens__fp_distance(const ens__fp *a, const ens__fp *b) {
  size_t i = 0, j = 0, common = 0;
  while (i < a->n && j < b->n) {
    if (a->h[i] == b->h[j]) {
      common++;
      i++;
      j++;
    } else if (a->h[i] < b->h[j]) {
      i++;
    } else {
      j++;
    }
  }
  return a->n + b->n - 2 * common;
}

void ens__fp_free(ens__fp *fp) {
  if (!fp) return;
  free(fp->h);
  fp->h = NULL;
  fp->n = 0;
}
