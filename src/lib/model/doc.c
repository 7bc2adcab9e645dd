/* Documents and objects: the id map, interned names, properties, ordered
 * children, remote stamps and the arena that bulk loads fill. Everything
 * here trusts its caller; validation of untrusted operations happens in
 * the transaction engine. */
#include "doc.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/hash.h"
#include "../util/pages.h"
#include "fracindex.h"

/* --- arena ------------------------------------------------------------------ */

/* Blocks of 64 KiB; a larger request gets a block of its own. */
#define S_ARENA_BLOCK ((size_t)64 << 10)

static ens__arena_block *s_block_new(size_t cap, int pages) {
  ens__arena_block *b = pages ? ens__pages_alloc(sizeof *b + cap) : malloc(sizeof *b + cap);
  if (!b) return NULL;
  b->next = NULL;
  b->used = 0;
  b->cap = cap;
  b->pages = (uint8_t)pages;
  return b;
}

static void s_block_free(ens__arena_block *b) {
  if (b->pages) ens__pages_free(b, sizeof *b + b->cap);
  else free(b);
}

void *ens__doc_arena_alloc(ens_doc *doc, size_t n, size_t align) {
  ens__arena_block *b = doc->arena;
  if (b) {
    size_t at = (b->used + align - 1) & ~(align - 1);
    if (at <= b->cap && b->cap - at >= n) {
      b->used = at + n;
      return (char *)b->data + at;
    }
  }
  int own = n > S_ARENA_BLOCK / 4;
  ens__arena_block *nb = s_block_new(own ? n : S_ARENA_BLOCK, 0);
  if (!nb) return NULL;
  if (b && own) { /* keep filling the current block */
    nb->next = b->next;
    b->next = nb;
  } else {
    nb->next = b;
    doc->arena = nb;
  }
  nb->used = n;
  return nb->data;
}

size_t ens__doc_pages_used(const ens_doc *doc) {
  size_t n = 0;
  for (const ens__arena_block *b = doc->arena; b; b = b->next)
    if (b->pages) n += b->used;
  return n;
}

void *ens__doc_arena_room(ens_doc *doc, size_t align, size_t *avail) {
  ens__arena_block *b = doc->arena;
  size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
  if (!b || at > b->cap) {
    *avail = 0;
    return NULL;
  }
  *avail = b->cap - at;
  return (char *)b->data + at;
}

int ens__doc_reserve_arena(ens_doc *doc, size_t bytes) {
  ens__arena_block *b = doc->arena;
  if (b && b->cap - b->used >= bytes) return 0;
  ens__arena_block *nb = s_block_new(bytes < S_ARENA_BLOCK ? S_ARENA_BLOCK : bytes, bytes >= ENS__HUGE_PAGE);
  if (!nb) return ens__error(ENS_ENOMEM, "out of memory making room for a document");
  nb->next = b;
  doc->arena = nb;
  return 0;
}

/* --- id map: site 0 by counter, the rest hashed ------------------------------ */

/* Ids made one after another by one site land in neighbouring slots, eight
 * to a run (two cache lines), the runs scattered: probe runs stay short. */
static size_t s_slot(ens_id id, size_t cap) {
  return (size_t)((ens__mix64(id >> 3) << 3) + (id & 7)) & (cap - 1);
}

static int s_dense(ens_id id) { return ens_id_site(id) == 0; } /* then id is its counter */

ens_obj *ens__idmap_get(const ens__idmap *m, ens_id id) {
  if (id == ENS_ID_NONE) return NULL;
  if (s_dense(id) && id < m->ndense) return m->dense[id];
  if (!m->cap) return NULL;
  size_t i = s_slot(id, m->cap);
  for (;;) {
    const ens__idslot *sl = &m->slots[i];
    if (sl->key == id) return sl->obj;
    if (sl->key == ENS_ID_NONE) return NULL;
    i = (i + 1) & (m->cap - 1);
  }
}

size_t ens__idmap_span(const ens__idmap *m) { return m->ndense + m->cap; }

ens_id ens__idmap_at(const ens__idmap *m, size_t i) {
  if (i < m->ndense) return m->dense[i] ? m->dense[i]->id : ENS_ID_NONE;
  i -= m->ndense;
  return i < m->cap ? m->slots[i].key : ENS_ID_NONE;
}

static int s_hash_grow(ens__idmap *m) {
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

static void s_hash_del(ens__idmap *m, ens_id id) {
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
  m->nslots_used--;
}

/* The dense array covers counters below n (n > ndense): from the arena when
 * a load made room there, else from the heap. Site-0 ids the hash held
 * below n move over, so that an id is always in one place. */
static int s_dense_grow(ens_doc *doc, ens__idmap *m, size_t n) {
  ens_obj **d = NULL;
  int arena = 0;
  ens__arena_block *b = doc->arena;
  if (b && b->pages && b->cap - b->used >= n * sizeof *d + 64) {
    d = ens__doc_arena_alloc(doc, n * sizeof *d, alignof(ens_obj *));
    arena = d != NULL;
    if (d) memset(d, 0, n * sizeof *d); /* it may be memory the arena handed out and took back: never, but cheap */
  }
  if (!d) d = calloc(n, sizeof *d);
  if (!d) return ens__error(ENS_ENOMEM, "out of memory growing the id map");
  if (m->ndense) memcpy(d, m->dense, m->ndense * sizeof *d);
  if (!m->dense_arena) free(m->dense);
  m->dense = d;
  m->ndense = n;
  m->dense_arena = (uint8_t)arena;
  for (size_t i = 0; i < m->cap;) {
    ens_id id = m->slots[i].key;
    if (id == ENS_ID_NONE || !s_dense(id) || id >= n) {
      i++;
      continue;
    }
    d[id] = m->slots[i].obj;
    m->ndense_used++;
    s_hash_del(m, id); /* may shift another entry into slot i: look at it again */
  }
  return 0;
}

static int s_idmap_put(ens_doc *doc, ens__idmap *m, ens_id id, ens_obj *obj) {
  if (s_dense(id)) {
    if (id >= m->ndense) {
      /* grow while site-0 ids stay dense enough that the array costs no
       * more than a few words per object */
      size_t want = m->ndense ? m->ndense * 2 : 64;
      if (want <= id) want = (size_t)id + 1;
      if (want <= 4 * (m->count + 1) + 1024) {
        int rc = s_dense_grow(doc, m, want);
        if (rc) return rc;
      }
    }
    if (id < m->ndense) {
      if (m->dense[id]) return ens__error(ENS_EEXISTS, "id %#llx already in use", (unsigned long long)id);
      m->dense[id] = obj;
      m->ndense_used++;
      m->count++;
      return 0;
    }
  }
  if ((m->nslots_used + 1) * 4 > m->cap * 3) {
    int rc = s_hash_grow(m);
    if (rc) return rc;
  }
  size_t i = s_slot(id, m->cap);
  while (m->slots[i].key != ENS_ID_NONE) {
    if (m->slots[i].key == id) return ens__error(ENS_EEXISTS, "id %#llx already in use", (unsigned long long)id);
    i = (i + 1) & (m->cap - 1);
  }
  m->slots[i].key = id;
  m->slots[i].obj = obj;
  m->nslots_used++;
  m->count++;
  return 0;
}

static void s_idmap_del(ens__idmap *m, ens_id id) {
  if (s_dense(id) && id < m->ndense) {
    if (m->dense[id]) {
      m->dense[id] = NULL;
      m->ndense_used--;
      m->count--;
    }
    return;
  }
  size_t before = m->nslots_used;
  s_hash_del(m, id);
  m->count -= before - m->nslots_used;
}

int ens__doc_reserve(ens_doc *doc, size_t n) {
  ens__idmap *m = &doc->ids;
  if (doc->site == 0) { /* a reader's or a snapshot's: counters from here on */
    size_t want = (size_t)doc->counter + n + 2;
    return want > m->ndense ? s_dense_grow(doc, m, want) : 0;
  }
  while (m->cap * 3 < (m->nslots_used + n) * 4) {
    int rc = s_hash_grow(m);
    if (rc) return rc;
  }
  return 0;
}

/* --- remote stamps -------------------------------------------------------------- */

static size_t s_stamp_home(ens_id id, uint32_t which, size_t cap) {
  return (size_t)ens__mix64(id ^ ((uint64_t)which << 40) ^ which) & (cap - 1);
}

static ens__stampslot *s_stamp_find(const ens__stamps *t, ens_id id, uint32_t which) {
  if (!t->cap) return NULL;
  size_t i = s_stamp_home(id, which, t->cap);
  for (;;) {
    ens__stampslot *sl = &t->slots[i];
    if (sl->id == ENS_ID_NONE) return NULL;
    if (sl->id == id && sl->which == which) return sl;
    i = (i + 1) & (t->cap - 1);
  }
}

uint64_t ens__stamp(const ens_doc *doc, const ens_obj *obj, uint32_t which) {
  if (!obj->stamped) return 0;
  const ens__stampslot *sl = s_stamp_find(&doc->stamps, obj->id, which);
  return sl ? sl->stamp : 0;
}

static void s_stamp_put(ens__stamps *t, ens_id id, uint32_t which, uint64_t stamp) {
  size_t i = s_stamp_home(id, which, t->cap);
  while (t->slots[i].id != ENS_ID_NONE) i = (i + 1) & (t->cap - 1);
  t->slots[i] = (ens__stampslot){id, which, stamp};
  t->count++;
}

int ens__stamp_reserve(ens_doc *doc, size_t n) {
  ens__stamps *t = &doc->stamps;
  if ((t->count + n) * 4 <= t->cap * 3) return 0;
  size_t cap = t->cap ? t->cap : 64;
  while ((t->count + n) * 4 > cap * 3) cap *= 2;
  ens__stampslot *slots = calloc(cap, sizeof *slots);
  if (!slots) return ens__error(ENS_ENOMEM, "out of memory stamping a remote change");
  ens__stamps nt = {slots, cap, 0};
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i].id != ENS_ID_NONE) s_stamp_put(&nt, t->slots[i].id, t->slots[i].which, t->slots[i].stamp);
  free(t->slots);
  *t = nt;
  return 0;
}

void ens__stamp_set(ens_doc *doc, ens_obj *obj, uint32_t which, uint64_t stamp) {
  ens__stamps *t = &doc->stamps;
  ens__stampslot *sl = obj->stamped ? s_stamp_find(t, obj->id, which) : NULL;
  if (sl) {
    sl->stamp = stamp;
    return;
  }
  /* callers make room first (ens__stamp_reserve); past the load factor
   * the table grows if it can, and a full one loses the stamp rather
   * than the operation (undo may then overwrite a newer remote value) */
  if ((t->count + 1) * 4 > t->cap * 3) ens__stamp_reserve(doc, 1);
  if (t->count + 1 >= t->cap) return;
  s_stamp_put(t, obj->id, which, stamp);
  obj->stamped = 1;
}

static void s_stamp_del(ens__stamps *t, ens_id id, uint32_t which) {
  if (!t->cap) return;
  size_t mask = t->cap - 1, i = s_stamp_home(id, which, t->cap);
  for (;;) {
    if (t->slots[i].id == ENS_ID_NONE) return;
    if (t->slots[i].id == id && t->slots[i].which == which) break;
    i = (i + 1) & mask;
  }
  size_t j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (t->slots[j].id == ENS_ID_NONE) break;
    size_t home = s_stamp_home(t->slots[j].id, t->slots[j].which, t->cap);
    int between = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
    if (between) continue;
    t->slots[i] = t->slots[j];
    i = j;
  }
  t->slots[i].id = ENS_ID_NONE;
  t->count--;
}

/* An object going away takes its stamps along: an undo that inserts the
 * same id again starts from none, as a fresh object does. */
static void s_stamps_drop(ens_doc *doc, ens_obj *obj) {
  if (!obj->stamped) return;
  s_stamp_del(&doc->stamps, obj->id, ENS__STAMP_OBJ);
  s_stamp_del(&doc->stamps, obj->id, ENS__STAMP_MOVE);
  for (uint32_t i = 0; i < obj->nprops; i++) s_stamp_del(&doc->stamps, obj->id, i);
  obj->stamped = 0;
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
      ens__pool_block *b = ens__doc_arena_alloc(doc, sizeof *b, alignof(ens__pool_block));
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
  obj->id = ENS_ID_NONE;
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
    const char *t = a->names[a->slots[i] - 1];
    if (ens__atom_rec(t)->len == n && memcmp(t, s, n) == 0) return t;
    i = (i + 1) & (a->cap - 1);
  }
  return NULL;
}

const char *ens__atom(ens_doc *doc, const char *s, size_t n) {
  const char *found = ens__atom_find(doc, s, n);
  if (found) return found;
  ens__atoms *a = &doc->atoms;
  if (a->count >= ENS__MAX_ATOMS || n > UINT32_MAX - 1) {
    ens__error(ENS_ELIMIT, "more than %u distinct names in one document", ENS__MAX_ATOMS);
    return NULL;
  }
  if (((size_t)a->count + 1) * 2 > a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 64;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) goto oom;
    for (uint32_t j = 0; j < a->count; j++) {
      size_t i = s_atom_slot(a->names[j], ens__atom_rec(a->names[j])->len, cap);
      while (slots[i]) i = (i + 1) & (cap - 1);
      slots[i] = j + 1;
    }
    free(a->slots);
    a->slots = slots;
    a->cap = cap;
  }
  if (a->count == a->capnames) {
    uint32_t capn = a->capnames ? a->capnames * 2 : 64;
    const char **names = realloc(a->names, capn * sizeof *names);
    if (!names) goto oom;
    a->names = names;
    a->capnames = capn;
  }
  ens__atomrec *rec = malloc(sizeof *rec + n + 1);
  if (!rec) goto oom;
  rec->doc = doc;
  rec->index = a->count;
  rec->len = (uint32_t)n;
  memcpy(rec->s, s, n);
  rec->s[n] = '\0';
  size_t i = s_atom_slot(s, n, a->cap);
  while (a->slots[i]) i = (i + 1) & (a->cap - 1);
  a->slots[i] = a->count + 1;
  a->names[a->count++] = rec->s;
  return rec->s;
oom:
  ens__error(ENS_ENOMEM, "out of memory interning a name");
  return NULL;
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
  if (ENS_POOLED) {
    /* every object lives in a pool block: walking the blocks in memory
     * order is several times faster than walking the tree, and released
     * objects (id 0) own nothing any more */
    for (ens__pool_block *b = doc->pool.blocks; b; b = b->next) {
      size_t n = b == doc->pool.blocks ? doc->pool.used : ENS_POOL_BLOCK;
      for (size_t i = 0; i < n; i++)
        if (b->objs[i].id != ENS_ID_NONE) s_obj_clear(&b->objs[i]);
    }
  } else {
    /* post-order through the tree, without unlinking each from the id map
     * that goes next anyway */
    ens_obj *cur = doc->root;
    while (cur) {
      if (cur->nkids) {
        cur = cur->kids[--cur->nkids];
        continue;
      }
      ens_obj *parent = cur->parent;
      s_obj_clear(cur);
      free(cur);
      cur = parent;
    }
  }
  for (ens__arena_block *b = doc->arena, *next; b; b = next) {
    next = b->next;
    s_block_free(b);
  }
  for (uint32_t i = 0; i < doc->atoms.count; i++) free((void *)ens__atom_rec(doc->atoms.names[i]));
  free(doc->atoms.slots);
  free(doc->atoms.names);
  if (!doc->ids.dense_arena) free(doc->ids.dense);
  free(doc->ids.slots);
  free(doc->stamps.slots);
  free(doc->observers);
  free(doc);
}

const char *ens_doc_kind(const ens_doc *doc) { return doc->kind; }
uint32_t ens_doc_site(const ens_doc *doc) { return doc->site; }

void ens_doc_set_site(ens_doc *doc, uint32_t site) {
  doc->site = site & ENS_SITE_MAX;
  doc->counter = 0;
  /* never hand out an id this site already used in the document */
  const ens__idmap *m = &doc->ids;
  for (size_t i = 0; i < m->cap; i++) {
    ens_id id = m->slots[i].key;
    if (id != ENS_ID_NONE && ens_id_site(id) == doc->site && ens_id_counter(id) > doc->counter)
      doc->counter = ens_id_counter(id);
  }
  if (doc->site == 0)
    for (size_t i = m->ndense; i-- > 0;)
      if (m->dense[i]) {
        if (i > doc->counter) doc->counter = i;
        break;
      }
}

void ens__doc_id_floor(ens_doc *doc, uint64_t floor) {
  if (floor > doc->counter) doc->counter = floor;
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
  if (hi && ens__place_cmp(ens__obj_pos(parent->kids[hi - 1]), parent->kids[hi - 1]->id, pos, id) < 0) return hi;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const ens_obj *k = parent->kids[mid];
    if (ens__place_cmp(ens__obj_pos(k), k->id, pos, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Room for one more child: an array in the arena moves out to the heap
 * the first time it grows; one on the heap holds ens__cap(nkids). */
static int s_make_room(ens_obj *parent) {
  uint32_t n = parent->nkids;
  if (parent->kids_arena) {
    ens_obj **kids = malloc(ens__cap(n + 1) * sizeof *kids);
    if (!kids) return ens__error(ENS_ENOMEM, "out of memory adding a child");
    if (n) memcpy(kids, parent->kids, n * sizeof *kids);
    parent->kids = kids;
    parent->kids_arena = 0;
    return 0;
  }
  if (parent->kids && n < ens__cap(n)) return 0;
  ens_obj **kids = realloc(parent->kids, ens__cap(n + 1) * sizeof *kids);
  if (!kids) return ens__error(ENS_ENOMEM, "out of memory adding a child");
  parent->kids = kids;
  return 0;
}

/* Place obj among parent's children; room was made (s_make_room). */
static void s_attach(ens_obj *parent, ens_obj *obj) {
  uint32_t at = s_child_slot(parent, ens__obj_pos(obj), obj->id);
  memmove(parent->kids + at + 1, parent->kids + at, (parent->nkids - at) * sizeof *parent->kids);
  parent->kids[at] = obj;
  parent->nkids++;
  obj->parent = parent;
}

static uint32_t s_index_in_parent(const ens_obj *obj) {
  const ens_obj *p = obj->parent;
  uint32_t at = s_child_slot(p, ens__obj_pos(obj), obj->id);
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

/* obj's position becomes (pos, n): inline when short, else the heap copy
 * given (made beforehand, so that nothing fails half way). */
static void s_pos_put(ens_obj *obj, const char *pos, size_t n, char *heap) {
  if (heap) {
    memcpy(heap, pos, n);
    heap[n] = '\0';
    if (obj->pos_heap) free(obj->pos.heap);
    obj->pos.heap = heap;
    obj->pos_heap = 1;
    return;
  }
  char in[ENS_POS_INLINE];
  memcpy(in, pos, n); /* pos may be obj's own */
  in[n] = '\0';
  if (obj->pos_heap) free(obj->pos.heap);
  memcpy(obj->pos.in, in, n + 1);
  obj->pos_heap = 0;
}

static ens_obj *s_create(ens_doc *doc, ens_id id, const char *kind, ens_obj *parent, const char *pos,
                         size_t pos_len, int append) {
  if (id == ENS_ID_NONE) { ens__error(ENS_EINVAL, "object id 0 is reserved"); return NULL; }
  char *heap = NULL;
  ens_obj *obj = s_obj_alloc(doc);
  if (!obj) goto oom;
  obj->id = id;
  obj->kind = kind;
  if (parent) {
    if (pos_len >= ENS_POS_INLINE && !(heap = malloc(pos_len + 1))) goto oom;
    s_pos_put(obj, pos, pos_len, heap);
    if (append && parent->nkids) {
      const ens_obj *last = parent->kids[parent->nkids - 1];
      if (ens__place_cmp(ens__obj_pos(last), last->id, ens__obj_pos(obj), id) >= 0) {
        ens__error(ENS_EDECODE, "children out of order");
        goto fail;
      }
    }
    if (s_make_room(parent) != 0) goto fail;
  }
  if (s_idmap_put(doc, &doc->ids, id, obj) != 0) goto fail; /* refuses a used id */
  if (parent) {
    ens__obj_touch(parent);
    if (append) {
      parent->kids[parent->nkids++] = obj;
      obj->parent = parent;
    } else {
      s_attach(parent, obj);
    }
  }
  if (ens_id_site(id) == doc->site && ens_id_counter(id) > doc->counter) doc->counter = ens_id_counter(id);
  return obj;
oom:
  ens__error(ENS_ENOMEM, "out of memory creating an object");
fail:
  if (obj) {
    if (obj->pos_heap) free(obj->pos.heap);
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

ens_obj *ens__obj_append_read(ens_doc *doc, ens_id id, const char *kind, ens_obj *parent, const char *pos,
                              size_t pos_len) {
  if (pos_len >= ENS_POS_INLINE || id == ENS_ID_NONE) return s_create(doc, id, kind, parent, pos, pos_len, 1);
  ens_obj *obj = s_obj_alloc(doc);
  if (!obj) {
    ens__error(ENS_ENOMEM, "out of memory creating an object");
    return NULL;
  }
  obj->id = id;
  obj->kind = kind;
  memcpy(obj->pos.in, pos, pos_len);
  obj->pos.in[pos_len] = '\0';
  if (s_idmap_put(doc, &doc->ids, id, obj) != 0) {
    s_obj_release(doc, obj);
    return NULL;
  }
  parent->kids[parent->nkids++] = obj;
  obj->parent = parent;
  if (ens_id_site(id) == doc->site && ens_id_counter(id) > doc->counter) doc->counter = ens_id_counter(id);
  return obj;
}

static void s_prop_release(ens__prop *p) {
  if ((p->type == ENS_STR || p->type == ENS_BYTES) && !p->arena) free(p->u.s);
  p->type = ENS_NIL;
  p->arena = 0;
}

int ens__obj_arena_props(ens_doc *doc, ens_obj *obj, uint32_t n) {
  ens__prop *props = ens__doc_arena_alloc(doc, (size_t)n * sizeof *props, alignof(ens__prop));
  if (!props) return ens__error(ENS_ENOMEM, "out of memory for properties");
  if (obj->props && !obj->props_arena) free(obj->props);
  obj->props = props;
  obj->nprops = 0;
  obj->props_arena = 1;
  return 0;
}

int ens__obj_arena_kids(ens_doc *doc, ens_obj *obj, uint32_t n) {
  ens_obj **kids = ens__doc_arena_alloc(doc, (size_t)n * sizeof *kids, alignof(ens_obj *));
  if (!kids) return ens__error(ENS_ENOMEM, "out of memory for children");
  if (obj->kids && !obj->kids_arena) free(obj->kids);
  obj->kids = kids;
  obj->nkids = 0;
  obj->kids_arena = 1;
  return 0;
}

int ens__prop_arena_str(ens_doc *doc, ens__prop *p, const char *s, size_t n) {
  if (n > ENS__MAX_VALUE) return ens__error(ENS_ELIMIT, "property value over 2 GiB");
  char *copy = ens__doc_arena_alloc(doc, n + 1, 1);
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
  if (!obj->kids_arena) free(obj->kids);
  if (obj->pos_heap) free(obj->pos.heap);
  obj->pos_heap = 0;
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
    s_stamps_drop(doc, cur);
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
  s_detach(obj); /* finds obj by its old position */
  s_pos_put(obj, pos, pos_len, heap);
  s_attach(parent, obj);
  return 0;
}

/* Objects already marked have every descendant marked (the invariant of
 * ens_obj.as_read), so the walk goes only where a mark is missing: a
 * reader that marks what it creates pays here only for what it changed
 * after creating it. */
static void s_mark_subtree(ens_obj *obj) {
  /* recursion stays within ENS_MAX_DEPTH levels */
  obj->as_read = 1;
  for (uint32_t i = 0; i < obj->nkids; i++)
    if (!obj->kids[i]->as_read) s_mark_subtree(obj->kids[i]);
}

void ens__doc_mark_as_read(ens_doc *doc) {
  if (doc->root) s_mark_subtree(doc->root);
}

ens__prop *ens__obj_find_prop(const ens_obj *obj, const char *interned_key) {
  if (!interned_key) return NULL;
  uint32_t k = ens__atom_index(interned_key);
  for (uint32_t i = 0; i < obj->nprops; i++)
    if (obj->props[i].key == k) return &obj->props[i];
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

/* The value of v into the (released) slot p; s is its string's copy. */
static void s_prop_put(ens__prop *p, const ens_value *v, char *s, int arena) {
  p->type = (uint8_t)v->type;
  p->arena = 0;
  switch (v->type) {
  case ENS_INT: p->u.i = v->u.i; break;
  case ENS_REAL: p->u.r = v->u.r; break;
  case ENS_BOOL: p->u.b = v->u.b ? 1 : 0; break;
  case ENS_REF: p->u.ref = v->u.ref; break;
  case ENS_STR:
  case ENS_BYTES:
    p->u.s = s;
    p->len = (uint32_t)v->u.s.len;
    p->arena = (uint32_t)arena;
    break;
  default: p->u.i = 0; break;
  }
}

int ens__obj_set_prop(ens_doc *doc, ens_obj *obj, const char *key, const ens_value *v,
                      ens__prop **slot) {
  (void)doc;
  if (!ens__key_is_local(key)) ens__obj_touch(obj);
  ens__prop *p = ens__obj_find_prop(obj, key);
  char *copy = NULL;
  if (v->type == ENS_STR || v->type == ENS_BYTES) {
    if (v->u.s.len > ENS__MAX_VALUE) return ens__error(ENS_ELIMIT, "property value over 2 GiB");
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
    uint32_t n = obj->nprops;
    if (n >= ENS__MAX_PROPS) {
      free(copy);
      return ens__error(ENS_ELIMIT, "more than %u properties on one object", ENS__MAX_PROPS);
    }
    if (obj->props_arena || !obj->props || n == ens__cap(n)) {
      /* an array in the arena moves out to the heap the first time it grows */
      size_t bytes = ens__cap(n + 1) * sizeof(ens__prop);
      ens__prop *props = obj->props_arena ? malloc(bytes) : realloc(obj->props, bytes);
      if (!props) {
        free(copy);
        return ens__error(ENS_ENOMEM, "out of memory setting a property");
      }
      if (obj->props_arena && n) memcpy(props, obj->props, n * sizeof *props);
      obj->props = props;
      obj->props_arena = 0;
    }
    p = &obj->props[obj->nprops++];
    memset(p, 0, sizeof *p);
    p->key = ens__atom_index(key);
  } else {
    s_prop_release(p);
  }
  s_prop_put(p, v, copy, 0);
  if (slot) *slot = p;
  return 0;
}

int ens__obj_set_kept(ens_doc *doc, ens_obj *obj, const char *key, const char *s, size_t n) {
  if (n > ENS__MAX_VALUE) return ens__error(ENS_ELIMIT, "property value over 2 GiB");
  ens_value placeholder = ens_bool(0);
  ens__prop *p;
  int rc = ens__obj_set_prop(doc, obj, key, &placeholder, &p);
  if (rc) return rc;
  p->type = ENS_BYTES;
  p->u.s = (char *)s;
  p->len = (uint32_t)n;
  p->arena = 1;
  return 0;
}

int ens__obj_fill_prop(ens_doc *doc, ens_obj *obj, const char *key, const ens_value *v) {
  char *copy = NULL;
  if (v->type == ENS_STR || v->type == ENS_BYTES) {
    if (v->u.s.len > ENS__MAX_VALUE) return ens__error(ENS_ELIMIT, "property value over 2 GiB");
    if (!(copy = ens__doc_arena_alloc(doc, v->u.s.len + 1, 1)))
      return ens__error(ENS_ENOMEM, "out of memory for a property");
    if (v->u.s.len) memcpy(copy, v->u.s.ptr, v->u.s.len);
    copy[v->u.s.len] = '\0';
  }
  ens__prop *p = ens__obj_find_prop(obj, key);
  if (!p) {
    p = &obj->props[obj->nprops++];
    memset(p, 0, sizeof *p);
    p->key = ens__atom_index(key);
  } else {
    s_prop_release(p);
  }
  s_prop_put(p, v, copy, 1);
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
const char *ens_obj_pos(const ens_obj *obj) { return ens__obj_pos(obj); }
size_t ens_obj_child_count(const ens_obj *obj) { return obj->nkids; }
const ens_obj *ens_obj_child(const ens_obj *obj, size_t i) { return i < obj->nkids ? obj->kids[i] : NULL; }
size_t ens_obj_index(const ens_obj *obj) { return obj->parent ? s_index_in_parent(obj) : 0; }

int ens_obj_get(const ens_obj *obj, const char *key, ens_value *out) {
  /* a key the document never interned is on none of its objects */
  const char *k = ens__atom_find(ens__obj_doc(obj), key, strlen(key));
  const ens__prop *p = k ? ens__obj_find_prop(obj, k) : NULL;
  if (p && p->type != ENS_NIL) {
    *out = ens__prop_value(p);
    return 0;
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
      *key = ens__prop_key(obj, &obj->props[j]);
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
  const char *lo = index ? ens__obj_pos(parent->kids[index - 1]) : NULL;
  const char *hi = index < parent->nkids ? ens__obj_pos(parent->kids[index]) : NULL;
  /* equal neighbours (a tie broken by id) leave no room between: go after
   * the run of ties, before the next distinct position */
  for (size_t j = index; lo && hi && strcmp(lo, hi) >= 0;) {
    j++;
    hi = j < parent->nkids ? ens__obj_pos(parent->kids[j]) : NULL;
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
