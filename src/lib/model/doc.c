/* Documents and objects: the id map, interned names, properties and
 * ordered children. Everything here trusts its caller; validation of
 * untrusted operations happens in the transaction engine. */
#include "doc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/hash.h"
#include "fracindex.h"

/* --- id map: open addressing, linear probing, backward-shift delete ----- */

/* Ids made one after another by one site land in neighbouring slots, eight
 * to a run (two cache lines), the runs scattered: loading a document touches
 * memory mostly in order, and probe runs stay short. */
static size_t s_slot(ens_id id, size_t cap) {
  return (size_t)((ens__mix64(id >> 3) << 3) + (id & 7)) & (cap - 1);
}

ens_obj *ens__idmap_get(const ens__idmap *m, ens_id id) {
  if (!m->cap || id == ENS_ID_NONE) return NULL;
  size_t i = s_slot(id, m->cap);
  for (;;) {
    const ens__idslot *sl = &m->slots[i];
    if (sl->key == id) return sl->obj;
    if (sl->key == ENS_ID_NONE) return NULL;
    i = (i + 1) & (m->cap - 1);
  }
}

static int s_idmap_grow(ens__idmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  ens__idslot *slots = calloc(cap, sizeof *slots);
  if (!slots) return ens__error(ENS_ENOMEM, "out of memory growing the id map");
  for (size_t j = 0; j < m->cap; j++) {
    if (m->slots[j].key == ENS_ID_NONE) continue;
    size_t i = s_slot(m->slots[j].key, cap);
    while (slots[i].key != ENS_ID_NONE) i = (i + 1) & (cap - 1);
    slots[i] = m->slots[j];
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
  return 0;
}

static int s_idmap_put(ens__idmap *m, ens_id id, ens_obj *obj) {
  if ((m->count + 1) * 4 > m->cap * 3) {
    int rc = s_idmap_grow(m);
    if (rc) return rc;
  }
  size_t i = s_slot(id, m->cap);
  while (m->slots[i].key != ENS_ID_NONE) {
    if (m->slots[i].key == id) return ens__error(ENS_EEXISTS, "id %#llx already in use", (unsigned long long)id);
    i = (i + 1) & (m->cap - 1);
  }
  m->slots[i].key = id;
  m->slots[i].obj = obj;
  m->count++;
  return 0;
}

static void s_idmap_del(ens__idmap *m, ens_id id) {
  if (!m->cap) return;
  size_t mask = m->cap - 1, i = s_slot(id, m->cap);
  while (m->slots[i].key != id) {
    if (m->slots[i].key == ENS_ID_NONE) return;
    i = (i + 1) & mask;
  }
  /* shift later members of the probe run back so lookups need no tombstones */
  size_t j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (m->slots[j].key == ENS_ID_NONE) break;
    size_t home = s_slot(m->slots[j].key, m->cap);
    int between = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
    if (between) continue;
    m->slots[i] = m->slots[j];
    i = j;
  }
  m->slots[i].key = ENS_ID_NONE;
  m->count--;
}

/* --- object pool ---------------------------------------------------------- */

/* Under AddressSanitizer every object is its own allocation, so that a use
 * after a delete is caught instead of landing in a recycled object. */
#if defined(__SANITIZE_ADDRESS__)
#define ENS_POOLED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ENS_POOLED 0
#endif
#endif
#ifndef ENS_POOLED
#define ENS_POOLED 1
#endif

static ens_obj *s_obj_alloc(ens_doc *doc) {
  if (!ENS_POOLED) return calloc(1, sizeof(ens_obj));
  ens__pool *p = &doc->pool;
  ens_obj *obj;
  if (p->free) {
    obj = p->free;
    p->free = obj->parent;
  } else {
    if (!p->blocks || p->used == ENS_POOL_BLOCK) {
      ens__pool_block *b = malloc(sizeof *b);
      if (!b) return NULL;
      b->next = p->blocks;
      p->blocks = b;
      p->used = 0;
    }
    obj = &p->blocks->objs[p->used++];
  }
  memset(obj, 0, sizeof *obj);
  return obj;
}

static void s_obj_release(ens_doc *doc, ens_obj *obj) {
  if (!ENS_POOLED) {
    free(obj);
    return;
  }
  obj->parent = doc->pool.free;
  doc->pool.free = obj;
}

/* --- atoms -------------------------------------------------------------- */

static size_t s_atom_slot(const char *s, size_t n, size_t cap) {
  return (size_t)ens__hash_bytes(s, n, 0x5eed) & (cap - 1);
}

const char *ens__atom_find(const ens_doc *doc, const char *s, size_t n) {
  const ens__atoms *a = &doc->atoms;
  if (!a->cap) return NULL;
  size_t i = s_atom_slot(s, n, a->cap);
  while (a->slots[i]) {
    const char *t = a->slots[i];
    if (strncmp(t, s, n) == 0 && t[n] == '\0') return t;
    i = (i + 1) & (a->cap - 1);
  }
  return NULL;
}

const char *ens__atom(ens_doc *doc, const char *s, size_t n) {
  const char *found = ens__atom_find(doc, s, n);
  if (found) return found;
  ens__atoms *a = &doc->atoms;
  if ((a->count + 1) * 2 > a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 32;
    char **slots = calloc(cap, sizeof *slots);
    if (!slots) { ens__error(ENS_ENOMEM, "out of memory interning a name"); return NULL; }
    for (size_t j = 0; j < a->cap; j++) {
      if (!a->slots[j]) continue;
      size_t i = s_atom_slot(a->slots[j], strlen(a->slots[j]), cap);
      while (slots[i]) i = (i + 1) & (cap - 1);
      slots[i] = a->slots[j];
    }
    free(a->slots);
    a->slots = slots;
    a->cap = cap;
  }
  char *copy = malloc(n + 1);
  if (!copy) { ens__error(ENS_ENOMEM, "out of memory interning a name"); return NULL; }
  memcpy(copy, s, n);
  copy[n] = '\0';
  size_t i = s_atom_slot(s, n, a->cap);
  while (a->slots[i]) i = (i + 1) & (a->cap - 1);
  a->slots[i] = copy;
  a->count++;
  return copy;
}

/* --- documents ---------------------------------------------------------- */

static void s_obj_clear(ens_obj *obj);

ens_doc *ens_doc_new(const char *doc_kind, uint32_t site) {
  if (!doc_kind || !*doc_kind || site > ENS_SITE_MAX) {
    ens__error(ENS_EINVAL, "ens_doc_new: need a kind and a site <= %u", ENS_SITE_MAX);
    return NULL;
  }
  if (strlen(doc_kind) > ENS_MAX_KIND) {
    ens__error(ENS_ELIMIT, "ens_doc_new: a document kind is at most %d bytes", ENS_MAX_KIND);
    return NULL;
  }
  ens_doc *doc = calloc(1, sizeof *doc);
  if (!doc) goto oom;
  doc->site = site;
  doc->next_handle = 1;
  doc->kind = ens__atom(doc, doc_kind, strlen(doc_kind));
  if (!doc->kind) goto oom;
  doc->root = ens__obj_create(doc, ENS_ROOT_ID, doc->kind, NULL, NULL, 0);
  if (!doc->root) goto oom;
  return doc;
oom:
  ens_doc_free(doc);
  ens__error(ENS_ENOMEM, "out of memory creating a document");
  return NULL;
}

void ens_doc_free(ens_doc *doc) {
  if (!doc) return;
  /* post-order through the tree (the order objects were allocated in),
   * without unlinking each from the id map that goes next anyway */
  ens_obj *cur = doc->root;
  while (cur) {
    if (cur->nkids) {
      cur = cur->kids[--cur->nkids];
      continue;
    }
    ens_obj *parent = cur->parent;
    s_obj_clear(cur);
    if (!ENS_POOLED) free(cur);
    cur = parent;
  }
  for (ens__pool_block *b = doc->pool.blocks, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  for (ens__arena_block *b = doc->arena, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  for (size_t i = 0; i < doc->atoms.cap; i++) free(doc->atoms.slots[i]);
  free(doc->atoms.slots);
  free(doc->ids.slots);
  free(doc->observers);
  free(doc);
}

const char *ens_doc_kind(const ens_doc *doc) { return doc->kind; }
uint32_t ens_doc_site(const ens_doc *doc) { return doc->site; }

void ens_doc_set_site(ens_doc *doc, uint32_t site) {
  doc->site = site & ENS_SITE_MAX;
  doc->counter = 0;
  /* never hand out an id this site already used in the document */
  for (size_t i = 0; i < doc->ids.cap; i++) {
    ens_id id = doc->ids.slots[i].key;
    if (id != ENS_ID_NONE && ens_id_site(id) == doc->site && ens_id_counter(id) > doc->counter)
      doc->counter = ens_id_counter(id);
  }
}

ens_id ens_doc_new_id(ens_doc *doc) {
  const uint64_t last = (((uint64_t)1) << ENS_COUNTER_BITS) - 1;
  ens_id id;
  do {
    if (doc->counter >= last) {
      /* wrapping would hand out id 0 or ids already given away */
      ens__error(ENS_ELIMIT, "site %u has used all its ids", doc->site);
      return ENS_ID_NONE;
    }
    id = ens_id_make(doc->site, ++doc->counter);
    /* no lookup needed: creating an object of this site raises counter to
     * its counter, so nothing of the site lies above it */
  } while (id == ENS_ROOT_ID);
  return id;
}

void ens_doc_set_schema(ens_doc *doc, const ens_schema *schema) { doc->schema = schema; }
const ens_schema *ens_doc_schema(const ens_doc *doc) { return doc->schema; }
const ens_obj *ens_doc_root(const ens_doc *doc) { return doc->root; }
const ens_obj *ens_doc_get(const ens_doc *doc, ens_id id) { return ens__doc_lookup(doc, id); }
size_t ens_doc_count(const ens_doc *doc) { return doc->ids.count; }

/* --- objects ------------------------------------------------------------ */

int ens__place_cmp(const char *pos_a, ens_id id_a, const char *pos_b, ens_id id_b) {
  int c = strcmp(pos_a, pos_b);
  if (c) return c;
  return (id_a > id_b) - (id_a < id_b);
}

/* Index where a child with (pos, id) belongs among parent's children. */
static uint32_t s_child_slot(const ens_obj *parent, const char *pos, ens_id id) {
  uint32_t lo = 0, hi = parent->nkids;
  /* appending in order is the common case (readers, snapshots) */
  if (hi && ens__place_cmp(parent->kids[hi - 1]->pos, parent->kids[hi - 1]->id, pos, id) < 0) return hi;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const ens_obj *k = parent->kids[mid];
    if (ens__place_cmp(k->pos, k->id, pos, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int s_attach(ens_obj *parent, ens_obj *obj) {
  if (parent->nkids == parent->capkids) {
    uint32_t cap = parent->capkids ? parent->capkids * 2 : 4;
    ens_obj **kids = realloc(parent->kids, cap * sizeof *kids);
    if (!kids) return ens__error(ENS_ENOMEM, "out of memory adding a child");
    parent->kids = kids;
    parent->capkids = cap;
  }
  uint32_t at = s_child_slot(parent, obj->pos, obj->id);
  memmove(parent->kids + at + 1, parent->kids + at, (parent->nkids - at) * sizeof *parent->kids);
  parent->kids[at] = obj;
  parent->nkids++;
  obj->parent = parent;
  return 0;
}

static uint32_t s_index_in_parent(const ens_obj *obj) {
  const ens_obj *p = obj->parent;
  uint32_t at = s_child_slot(p, obj->pos, obj->id);
  if (at < p->nkids && p->kids[at] == obj) return at;
  for (uint32_t i = 0; i < p->nkids; i++) /* defensive: never expected */
    if (p->kids[i] == obj) return i;
  return p->nkids;
}

static void s_detach(ens_obj *obj) {
  ens_obj *p = obj->parent;
  if (!p) return;
  uint32_t at = s_index_in_parent(obj);
  if (at < p->nkids) {
    memmove(p->kids + at, p->kids + at + 1, (p->nkids - at - 1) * sizeof *p->kids);
    p->nkids--;
  }
  obj->parent = NULL;
}

/* Point obj->pos at a copy of (pos, n): inline when short. */
static int s_pos_set(ens_obj *obj, const char *pos, size_t n) {
  char *dst = n < ENS_POS_INLINE ? obj->pos_inline : malloc(n + 1);
  if (!dst) return ens__error(ENS_ENOMEM, "out of memory storing a position");
  if (dst == obj->pos) { /* overlapping: both inline */
    memmove(dst, pos, n);
  } else {
    memcpy(dst, pos, n);
  }
  dst[n] = '\0';
  if (obj->pos && obj->pos != obj->pos_inline && obj->pos != dst) free(obj->pos);
  obj->pos = dst;
  return 0;
}

static void s_pos_release(ens_obj *obj) {
  if (obj->pos != obj->pos_inline) free(obj->pos);
  obj->pos = NULL;
}

static int s_make_room(ens_obj *parent) {
  if (parent->nkids < parent->capkids) return 0;
  uint32_t cap = parent->capkids ? parent->capkids * 2 : 4;
  ens_obj **kids = realloc(parent->kids, cap * sizeof *kids);
  if (!kids) return ens__error(ENS_ENOMEM, "out of memory adding a child");
  parent->kids = kids;
  parent->capkids = cap;
  return 0;
}

int ens__doc_reserve(ens_doc *doc, size_t n) {
  while (doc->ids.cap * 3 < (doc->ids.count + n) * 4) {
    int rc = s_idmap_grow(&doc->ids);
    if (rc) return rc;
  }
  return 0;
}

static ens_obj *s_create(ens_doc *doc, ens_id id, const char *kind, ens_obj *parent, const char *pos,
                         size_t pos_len, int append) {
  if (id == ENS_ID_NONE) { ens__error(ENS_EINVAL, "object id 0 is reserved"); return NULL; }
  ens_obj *obj = s_obj_alloc(doc);
  if (!obj) goto oom;
  obj->id = id;
  obj->kind = kind;
  if (parent) {
    if (s_pos_set(obj, pos, pos_len) != 0) goto fail;
    if (append && parent->nkids) {
      const ens_obj *last = parent->kids[parent->nkids - 1];
      if (ens__place_cmp(last->pos, last->id, obj->pos, id) >= 0) {
        ens__error(ENS_EDECODE, "children out of order");
        goto fail;
      }
    }
    if (s_make_room(parent) != 0) goto fail;
  }
  if (s_idmap_put(&doc->ids, id, obj) != 0) goto fail; /* refuses a used id */
  if (parent) {
    ens__obj_touch(parent);
    if (append) {
      parent->kids[parent->nkids++] = obj;
      obj->parent = parent;
    } else {
      s_attach(parent, obj); /* cannot fail: room was made */
    }
  }
  if (ens_id_site(id) == doc->site && ens_id_counter(id) > doc->counter) doc->counter = ens_id_counter(id);
  return obj;
oom:
  ens__error(ENS_ENOMEM, "out of memory creating an object");
fail:
  if (obj) {
    s_pos_release(obj);
    s_obj_release(doc, obj);
  }
  return NULL;
}

ens_obj *ens__obj_create(ens_doc *doc, ens_id id, const char *kind, ens_obj *parent, const char *pos,
                         size_t pos_len) {
  return s_create(doc, id, kind, parent, pos, pos_len, 0);
}

ens_obj *ens__obj_append(ens_doc *doc, ens_id id, const char *kind, ens_obj *parent, const char *pos,
                         size_t pos_len) {
  return s_create(doc, id, kind, parent, pos, pos_len, 1);
}

static void s_prop_release(ens__prop *p) {
  if ((p->type == ENS_STR || p->type == ENS_BYTES) && !p->arena) free(p->u.s);
  p->type = ENS_NIL;
  p->arena = 0;
}

/* Blocks of 64 KiB; a larger request gets a block of its own. */
#define S_ARENA_BLOCK ((size_t)64 << 10)

void *ens__doc_arena_alloc(ens_doc *doc, size_t n) {
  const size_t align = sizeof(max_align_t);
  n = (n + align - 1) & ~(align - 1);
  ens__arena_block *b = doc->arena;
  if (!b || b->cap - b->used < n) {
    size_t cap = n > S_ARENA_BLOCK / 4 ? n : S_ARENA_BLOCK;
    ens__arena_block *nb = malloc(sizeof *nb + cap);
    if (!nb) return NULL;
    nb->used = 0;
    nb->cap = cap;
    if (b && n > S_ARENA_BLOCK / 4) { /* keep filling the current block */
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      doc->arena = nb;
    }
    b = nb;
  }
  void *p = (char *)b->data + b->used;
  b->used += n;
  return p;
}

int ens__obj_arena_props(ens_doc *doc, ens_obj *obj, uint32_t n) {
  ens__prop *props = ens__doc_arena_alloc(doc, (size_t)n * sizeof *props);
  if (!props) return ens__error(ENS_ENOMEM, "out of memory for properties");
  if (obj->props && !obj->props_arena) free(obj->props);
  obj->props = props;
  obj->nprops = 0;
  obj->capprops = n;
  obj->props_arena = 1;
  return 0;
}

int ens__prop_arena_str(ens_doc *doc, ens__prop *p, const char *s, size_t n) {
  if (n > UINT32_MAX - 1) return ens__error(ENS_ELIMIT, "property value over 4 GiB");
  char *copy = ens__doc_arena_alloc(doc, n + 1);
  if (!copy) return ens__error(ENS_ENOMEM, "out of memory for a property");
  if (n) memcpy(copy, s, n);
  copy[n] = '\0';
  p->u.s = copy;
  p->len = (uint32_t)n;
  p->arena = 1;
  return 0;
}

/* Frees what the object owns; the object itself goes back to the pool
 * (or, when the whole document goes, with its block). */
static void s_obj_clear(ens_obj *obj) {
  for (uint32_t i = 0; i < obj->nprops; i++) s_prop_release(&obj->props[i]);
  if (!obj->props_arena) free(obj->props);
  free(obj->kids);
  s_pos_release(obj);
}

void ens__obj_destroy(ens_doc *doc, ens_obj *obj) {
  ens__obj_touch(obj->parent);
  s_detach(obj);
  /* iterative post-order: children are freed before their parent, and the
   * walk needs no stack because each freed child is unlinked from its parent */
  ens_obj *cur = obj;
  while (cur) {
    if (cur->nkids) {
      cur = cur->kids[cur->nkids - 1];
      continue;
    }
    ens_obj *parent = cur == obj ? NULL : cur->parent;
    if (parent) parent->nkids--;
    s_idmap_del(&doc->ids, cur->id);
    if (cur == doc->root) doc->root = NULL;
    s_obj_clear(cur);
    s_obj_release(doc, cur);
    cur = parent;
  }
}

int ens__obj_move(ens_doc *doc, ens_obj *obj, ens_obj *parent, const char *pos, size_t pos_len) {
  (void)doc;
  /* make room and copy first so that a failure leaves the object where it was */
  char *heap = NULL;
  if (pos_len >= ENS_POS_INLINE && !(heap = malloc(pos_len + 1)))
    return ens__error(ENS_ENOMEM, "out of memory moving an object");
  if (s_make_room(parent) != 0) {
    free(heap);
    return ENS_ENOMEM;
  }
  ens__obj_touch(obj);
  ens__obj_touch(parent);
  s_detach(obj);
  if (obj->pos != obj->pos_inline) free(obj->pos);
  obj->pos = heap ? heap : obj->pos_inline;
  memcpy(obj->pos, pos, pos_len);
  obj->pos[pos_len] = '\0';
  return s_attach(parent, obj); /* cannot fail: room was made */
}

static void s_mark_subtree(ens_obj *obj) {
  /* recursion stays within ENS_MAX_DEPTH levels */
  obj->as_read = 1;
  for (uint32_t i = 0; i < obj->nkids; i++) s_mark_subtree(obj->kids[i]);
}

void ens__doc_mark_as_read(ens_doc *doc) {
  if (!ENS_POOLED) {
    if (doc->root) s_mark_subtree(doc->root);
    return;
  }
  /* every object lives in a pool block: walking the blocks in memory order
   * is several times faster than walking the tree (objects on the free
   * list get the mark too, and lose it when handed out again) */
  for (ens__pool_block *b = doc->pool.blocks; b; b = b->next) {
    size_t n = b == doc->pool.blocks ? doc->pool.used : ENS_POOL_BLOCK;
    for (size_t i = 0; i < n; i++) b->objs[i].as_read = 1;
  }
}

ens__prop *ens__obj_find_prop(const ens_obj *obj, const char *interned_key) {
  for (uint32_t i = 0; i < obj->nprops; i++)
    if (obj->props[i].key == interned_key) return &obj->props[i];
  return NULL;
}

ens_value ens__prop_value(const ens__prop *p) {
  ens_value v;
  v.type = (ens_type)p->type;
  switch (p->type) {
  case ENS_INT: v.u.i = p->u.i; break;
  case ENS_REAL: v.u.r = p->u.r; break;
  case ENS_BOOL: v.u.i = 0; v.u.b = p->u.b; break;
  case ENS_REF: v.u.ref = p->u.ref; break;
  case ENS_STR:
  case ENS_BYTES: v.u.s.ptr = p->u.s; v.u.s.len = p->len; break;
  default: v.u.i = 0; break;
  }
  return v;
}

int ens__obj_set_prop(ens_doc *doc, ens_obj *obj, const char *key, const ens_value *v,
                      ens__prop **slot) {
  (void)doc;
  if (!ens__key_is_local(key)) ens__obj_touch(obj);
  ens__prop *p = ens__obj_find_prop(obj, key);
  char *copy = NULL;
  if (v->type == ENS_STR || v->type == ENS_BYTES) {
    if (v->u.s.len > UINT32_MAX - 1) return ens__error(ENS_ELIMIT, "property value over 4 GiB");
    copy = malloc(v->u.s.len + 1);
    if (!copy) return ens__error(ENS_ENOMEM, "out of memory setting a property");
    if (v->u.s.len) memcpy(copy, v->u.s.ptr, v->u.s.len);
    copy[v->u.s.len] = '\0';
  }
  if (!p) {
    if (v->type == ENS_NIL) {
      if (slot) *slot = NULL;
      return 0; /* removing what is absent: nothing to keep */
    }
    if (obj->nprops == obj->capprops) {
      uint32_t cap = obj->capprops ? obj->capprops * 2 : 4;
      /* an array in the arena moves out to the heap the first time it grows */
      ens__prop *props = obj->props_arena ? malloc(cap * sizeof *props) : realloc(obj->props, cap * sizeof *props);
      if (!props) {
        free(copy);
        return ens__error(ENS_ENOMEM, "out of memory setting a property");
      }
      if (obj->props_arena && obj->nprops) memcpy(props, obj->props, obj->nprops * sizeof *props);
      obj->props = props;
      obj->capprops = cap;
      obj->props_arena = 0;
    }
    p = &obj->props[obj->nprops++];
    memset(p, 0, sizeof *p);
    p->key = key;
  } else {
    s_prop_release(p);
  }
  p->type = (uint8_t)v->type;
  switch (v->type) {
  case ENS_INT: p->u.i = v->u.i; break;
  case ENS_REAL: p->u.r = v->u.r; break;
  case ENS_BOOL: p->u.b = v->u.b ? 1 : 0; break;
  case ENS_REF: p->u.ref = v->u.ref; break;
  case ENS_STR:
  case ENS_BYTES: p->u.s = copy; p->len = (uint32_t)v->u.s.len; break;
  default: p->u.i = 0; break;
  }
  if (slot) *slot = p;
  return 0;
}

size_t ens__obj_depth(const ens_obj *obj) {
  size_t d = 0;
  while (obj->parent) {
    obj = obj->parent;
    d++;
  }
  return d;
}

size_t ens__obj_height(const ens_obj *obj) {
  /* iterative depth-first walk; depth relative to obj */
  size_t best = 1;
  const ens_obj *cur = obj;
  size_t depth = 1;
  if (!obj->nkids) return 1;
  /* stack of child indexes along the current path */
  size_t cap = 64, top = 0;
  uint32_t *stack = malloc(cap * sizeof *stack);
  if (!stack) return ENS_MAX_DEPTH + 1; /* pessimistic: refuse the move */
  stack[top++] = 0;
  while (top) {
    uint32_t i = stack[top - 1];
    if (i < cur->nkids) {
      stack[top - 1] = i + 1;
      cur = cur->kids[i];
      depth++;
      if (depth > best) best = depth;
      if (cur->nkids) {
        if (top == cap) {
          cap *= 2;
          uint32_t *s2 = realloc(stack, cap * sizeof *stack);
          if (!s2) { free(stack); return ENS_MAX_DEPTH + 1; }
          stack = s2;
        }
        stack[top++] = 0;
      } else {
        cur = cur->parent;
        depth--;
      }
    } else {
      top--;
      if (top) {
        cur = cur->parent;
        depth--;
      }
    }
  }
  free(stack);
  return best;
}

int ens_obj_walk(const ens_obj *obj, ens_walk_fn fn, void *user) {
  /* pre-order with a stack of next-child indexes along the current path;
   * nesting is bounded (ENS_MAX_DEPTH), so the stack is too */
  uint32_t small[64], *next = small;
  size_t cap = 64, top = 0;
  const ens_obj *cur = obj;
  int rc = fn(cur, 0, user);
  if (rc) return rc;
  next[top++] = 0;
  while (top) {
    uint32_t i = next[top - 1];
    if (i >= cur->nkids) {
      top--;
      cur = cur->parent;
      continue;
    }
    next[top - 1] = i + 1;
    cur = cur->kids[i];
    if ((rc = fn(cur, top, user))) break;
    if (top == cap) {
      uint32_t *grown = malloc(cap * 2 * sizeof *grown);
      if (!grown) { rc = ens__error(ENS_ENOMEM, "out of memory walking a document"); break; }
      memcpy(grown, next, top * sizeof *grown);
      if (next != small) free(next);
      next = grown;
      cap *= 2;
    }
    next[top++] = 0;
  }
  if (next != small) free(next);
  return rc;
}

/* --- public readers ------------------------------------------------------ */

ens_id ens_obj_id(const ens_obj *obj) { return obj->id; }
const char *ens_obj_kind(const ens_obj *obj) { return obj->kind; }
const ens_obj *ens_obj_parent(const ens_obj *obj) { return obj->parent; }
const char *ens_obj_pos(const ens_obj *obj) { return obj->pos ? obj->pos : ""; }
size_t ens_obj_child_count(const ens_obj *obj) { return obj->nkids; }
const ens_obj *ens_obj_child(const ens_obj *obj, size_t i) { return i < obj->nkids ? obj->kids[i] : NULL; }
size_t ens_obj_index(const ens_obj *obj) { return obj->parent ? s_index_in_parent(obj) : 0; }

int ens_obj_get(const ens_obj *obj, const char *key, ens_value *out) {
  for (uint32_t i = 0; i < obj->nprops; i++) {
    const ens__prop *p = &obj->props[i];
    if (p->type != ENS_NIL && strcmp(p->key, key) == 0) {
      *out = ens__prop_value(p);
      return 0;
    }
  }
  *out = ens_nil();
  return ENS_ENOTFOUND;
}

size_t ens_obj_prop_count(const ens_obj *obj) {
  size_t n = 0;
  for (uint32_t i = 0; i < obj->nprops; i++) n += obj->props[i].type != ENS_NIL;
  return n;
}

int ens_obj_prop_at(const ens_obj *obj, size_t i, const char **key, ens_value *out) {
  for (uint32_t j = 0; j < obj->nprops; j++) {
    if (obj->props[j].type == ENS_NIL) continue;
    if (i-- == 0) {
      *key = obj->props[j].key;
      *out = ens__prop_value(&obj->props[j]);
      return 0;
    }
  }
  return ens__error(ENS_ENOTFOUND, "property index out of range");
}

int ens_doc_pos_at(const ens_doc *doc, ens_id parent_id, size_t index, char **out) {
  const ens_obj *parent = ens__doc_lookup(doc, parent_id);
  if (!parent) return ens__error(ENS_ENOTFOUND, "no object %#llx", (unsigned long long)parent_id);
  if (index > parent->nkids) return ens__error(ENS_EINVAL, "index %zu beyond %u children", index, parent->nkids);
  const char *lo = index ? parent->kids[index - 1]->pos : NULL;
  const char *hi = index < parent->nkids ? parent->kids[index]->pos : NULL;
  /* equal neighbours (a tie broken by id) leave no room between: go after
   * the run of ties, before the next distinct position */
  for (size_t j = index; lo && hi && strcmp(lo, hi) >= 0;) {
    j++;
    hi = j < parent->nkids ? parent->kids[j]->pos : NULL;
  }
  *out = ens_pos_between(lo, hi);
  if (!*out) return ens__error(ENS_ENOMEM, "out of memory making a position");
  return 0;
}

ens_value ens_str(const char *s) { return ens_strn(s, strlen(s)); }

int ens_value_equal(const ens_value *a, const ens_value *b) {
  if (a->type != b->type) return 0;
  switch (a->type) {
  case ENS_NIL: return 1;
  case ENS_INT: return a->u.i == b->u.i;
  case ENS_REAL: return memcmp(&a->u.r, &b->u.r, sizeof(double)) == 0;
  case ENS_BOOL: return !a->u.b == !b->u.b;
  case ENS_REF: return a->u.ref == b->u.ref;
  case ENS_STR:
  case ENS_BYTES:
    return a->u.s.len == b->u.s.len && (a->u.s.len == 0 || memcmp(a->u.s.ptr, b->u.s.ptr, a->u.s.len) == 0);
  }
  return 0;
}
