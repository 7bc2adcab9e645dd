/* Document hashes. ens_doc_hash sums one hash per object, so it depends on
 * what the document holds and not on the order of the edits that built it;
 * ens_doc_content_hash folds children in order and replaces ids by paths,
 * so documents that differ only by ids hash alike. */
#include <stdlib.h>
#include <string.h>

#include "../util/hash.h"
#include "doc.h"

static uint64_t s_value_hash(const ens__prop *p, uint64_t ref_hash) {
  uint64_t h = ens__mix64(p->type * 0x100000001b3ULL);
  switch (p->type) {
  case ENS_INT: return ens__hash_combine(h, (uint64_t)p->u.i);
  case ENS_REAL: {
    uint64_t bits;
    memcpy(&bits, &p->u.r, 8);
    return ens__hash_combine(h, bits);
  }
  case ENS_BOOL: return ens__hash_combine(h, (uint64_t)p->u.b);
  case ENS_REF: return ens__hash_combine(h, ref_hash);
  case ENS_STR:
  case ENS_BYTES: return ens__hash_combine(h, ens__hash_bytes(p->u.s, p->len, 7));
  default: return h;
  }
}

static uint64_t s_str_hash(const char *s) { return ens__hash_bytes(s, strlen(s), 3); }

/* Order-free sum over an object's content properties. refmap maps a
 * referenced id to what stands for it in this hash. */
static uint64_t s_props_hash(const ens_obj *o, uint64_t (*refmap)(ens_id, void *), void *user) {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL) continue;
    const char *key = ens__prop_key(o, p);
    if (ens__key_is_local(key)) continue;
    uint64_t ref = p->type == ENS_REF ? refmap(p->u.ref, user) : 0;
    sum += ens__hash_combine(s_str_hash(key), s_value_hash(p, ref));
  }
  return sum;
}

static uint64_t s_ref_as_id(ens_id id, void *user) {
  (void)user;
  return id;
}

typedef struct {
  uint64_t sum;
} s_sum;

static int s_add_object(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_sum *acc = user;
  uint64_t h = ens__mix64(o->id);
  h = ens__hash_combine(h, s_str_hash(o->kind));
  h = ens__hash_combine(h, o->parent ? o->parent->id : 0);
  h = ens__hash_combine(h, o->parent ? s_str_hash(ens__obj_pos(o)) : 0);
  h = ens__hash_combine(h, s_props_hash(o, s_ref_as_id, NULL));
  acc->sum += h;
  return 0;
}

uint64_t ens_doc_hash(const ens_doc *doc) {
  s_sum acc = {0};
  ens_obj_walk(doc->root, s_add_object, &acc);
  return ens__mix64(acc.sum ^ s_str_hash(doc->kind));
}

/* --- content hash -------------------------------------------------------- */

typedef struct {
  ens_id *ids;
  uint64_t *paths;
  size_t cap; /* power of two */
} s_pathmap;

static uint64_t s_path_of(ens_id id, void *user) {
  const s_pathmap *m = user;
  size_t i = (size_t)ens__mix64(id) & (m->cap - 1);
  while (m->ids[i]) {
    if (m->ids[i] == id) return m->paths[i];
    i = (i + 1) & (m->cap - 1);
  }
  return 0xdeadULL; /* a dangling reference: all dangling ones hash alike */
}

static void s_path_put(s_pathmap *m, ens_id id, uint64_t path) {
  size_t i = (size_t)ens__mix64(id) & (m->cap - 1);
  while (m->ids[i]) i = (i + 1) & (m->cap - 1);
  m->ids[i] = id;
  m->paths[i] = path;
}

typedef struct {
  const ens_obj *obj;
  uint32_t next; /* next child to visit */
  uint64_t acc;  /* children folded so far */
  uint64_t path;
} s_frame;

uint64_t ens_doc_content_hash(const ens_doc *doc) {
  size_t n = doc->ids.count, cap = 16;
  while (cap < n * 2) cap *= 2;
  s_pathmap map = {calloc(cap, sizeof(ens_id)), malloc(cap * sizeof(uint64_t)), cap};
  size_t scap = 64;
  s_frame *stack = malloc(scap * sizeof *stack);
  uint64_t result = 0;
  if (!map.ids || !map.paths || !stack) goto out;

  /* pass 1: the path of every object (hash of child indexes from the root) */
  size_t top = 0;
  stack[top++] = (s_frame){doc->root, 0, 0, 0x1234};
  s_path_put(&map, doc->root->id, 0x1234);
  while (top) {
    s_frame *f = &stack[top - 1];
    if (f->next < f->obj->nkids) {
      const ens_obj *kid = f->obj->kids[f->next];
      uint64_t path = ens__hash_combine(f->path, f->next);
      f->next++;
      s_path_put(&map, kid->id, path);
      if (top == scap) {
        s_frame *s2 = realloc(stack, (scap *= 2) * sizeof *stack);
        if (!s2) goto out;
        stack = s2;
      }
      stack[top++] = (s_frame){kid, 0, 0, path};
    } else {
      top--;
    }
  }

  /* pass 2: post-order fold of kind, properties and children in order */
  top = 0;
  stack[top++] = (s_frame){doc->root, 0, 0x9e37, 0};
  while (top) {
    s_frame *f = &stack[top - 1];
    if (f->next < f->obj->nkids) {
      const ens_obj *kid = f->obj->kids[f->next++];
      if (top == scap) {
        s_frame *s2 = realloc(stack, (scap *= 2) * sizeof *stack);
        if (!s2) goto out;
        stack = s2;
      }
      stack[top++] = (s_frame){kid, 0, 0x9e37, 0};
      continue;
    }
    uint64_t h = ens__hash_combine(s_str_hash(f->obj->kind), s_props_hash(f->obj, s_path_of, &map));
    h = ens__hash_combine(h, f->acc);
    h = ens__hash_combine(h, f->obj->nkids);
    top--;
    if (top) stack[top - 1].acc = ens__hash_combine(stack[top - 1].acc, h);
    else result = h;
  }
out:
  free(map.ids);
  free(map.paths);
  free(stack);
  return result;
}
