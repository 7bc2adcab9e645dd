/* Private view of documents and objects, shared by the model, the
 * transaction engine, the snapshot codec and the format readers. The
 * ownership rule: a document owns its objects, their property values and
 * position strings; kinds and property keys are interned per document and
 * live as long as it does, so they compare by pointer (and a property
 * holds its key as the atom's index). */
#ifndef ENS_MODEL_DOC_H
#define ENS_MODEL_DOC_H

#include "ensemble/limits.h"
#include "ensemble/model.h"
#include "ensemble/txn.h"

#include <stddef.h>

/* ENS_MAX_DEPTH, ENS_MAX_POS and the other limits: ensemble/limits.h. */

/* The layout below is what a loaded document costs in memory, and the
 * memory a first load touches is most of its time (docs/performance.md):
 * a property is 16 bytes, an object 56, and a file's text is kept once,
 * in the document's arena, with the properties that hold pieces of it
 * pointing into it. */

/* Longest string or byte value a property holds. */
#define ENS__MAX_VALUE ((size_t)0x7fffffff)
/* Most properties on one object (set beyond it: ENS_ELIMIT). */
#define ENS__MAX_PROPS ((1u << 24) - 1)
/* Most distinct kinds and keys in one document. */
#define ENS__MAX_ATOMS ((1u << 24) - 1)

typedef struct {
  uint32_t key : 24;  /* index of the interned key: ens__prop_key */
  uint32_t type : 8;  /* ens_type; NIL marks a removed property (kept: its stamp may matter) */
  uint32_t len : 31;  /* for STR / BYTES */
  uint32_t arena : 1; /* u.s is the document's (arena or kept text): never free()d alone */
  union {
    int64_t i;
    double r;
    int b;
    ens_id ref;
    char *s; /* STR: NUL-terminated one past len; BYTES: kept text is not */
  } u;
} ens__prop;

/* Positions shorter than this live inside the object: no allocation. */
#define ENS_POS_INLINE 8

struct ens_obj {
  ens_id id;        /* ENS_ID_NONE once released to the free list */
  const char *kind; /* interned: its atom leads back to the document (ens__obj_doc) */
  struct ens_obj *parent;
  union {
    char in[ENS_POS_INLINE]; /* pos_heap == 0: NUL-terminated here ("" for the root) */
    char *heap;              /* pos_heap == 1: owned */
  } pos;
  ens__prop *props;
  struct ens_obj **kids;
  uint32_t nprops : 24;
  /* Set by a format reader once it has built the document: this object and
   * everything under it are exactly as read, so a writer may copy the text
   * it kept instead of checking it against the properties. Any change
   * below clears it up to the root (ens__obj_touch); whatever is created
   * later, or decoded from a snapshot, starts without it. Invariant: an
   * object that has it has it on every descendant. */
  uint32_t as_read : 1;
  uint32_t props_arena : 1; /* props is in the arena: exactly nprops long, copied out to grow */
  uint32_t kids_arena : 1;  /* the same for kids */
  uint32_t pos_heap : 1;
  uint32_t stamped : 1; /* has entries in the document's stamp table */
  uint32_t nkids;
};
/* Arrays on the heap hold ens__cap(n) entries (a power of two, at least
 * 4): the counts are all an object keeps. */
static inline uint32_t ens__cap(uint32_t n) {
  uint32_t c = 4;
  while (c < n) c *= 2;
  return c;
}

typedef struct {
  ens_observer_fn fn;
  void *user;
  int handle;
} ens__observer;

/* Key and value side by side: one cache line per probe. */
typedef struct {
  ens_id key; /* 0 marks an empty slot */
  ens_obj *obj;
} ens__idslot;

/* Ids of site 0 (what readers and snapshots of read files make, counted
 * up from the root) index an array; every other id goes to a hash table,
 * open addressing with linear probing and backward-shift deletion. */
typedef struct {
  ens_obj **dense; /* by counter of a site-0 id, below ndense */
  size_t ndense, ndense_used;
  uint8_t dense_arena; /* dense is in the arena, not the heap */
  ens__idslot *slots;
  size_t cap, nslots_used; /* cap is a power of two */
  size_t count;            /* objects in all */
} ens__idmap;

/* Objects come from blocks of the document's arena and go back to a free
 * list: released objects are reused by the next ones created. */
#define ENS_POOL_BLOCK 256
typedef struct ens__pool_block {
  struct ens__pool_block *next;
  ens_obj objs[ENS_POOL_BLOCK];
} ens__pool_block;

typedef struct {
  ens__pool_block *blocks;
  size_t used;   /* objects handed out of the newest block */
  ens_obj *free; /* released objects, linked through their parent field */
} ens__pool;

/* An interned name: the string, led by its document and index. */
typedef struct {
  struct ens_doc *doc;
  uint32_t index;
  uint32_t len;
  char s[];
} ens__atomrec;

typedef struct {
  uint32_t *slots; /* open addressing: index + 1, 0 = empty */
  size_t cap;
  const char **names; /* by index */
  uint32_t count, capnames;
} ens__atoms;

/* Clocks of the last remote change, kept aside because few objects ever
 * have one: per property (by its index in the object) and per object. */
#define ENS__STAMP_OBJ UINT32_MAX        /* the object or its child list */
#define ENS__STAMP_MOVE (UINT32_MAX - 1) /* the object's place */
typedef struct {
  ens_id id; /* 0 = empty */
  uint32_t which;
  uint64_t stamp;
} ens__stampslot;

typedef struct {
  ens__stampslot *slots;
  size_t cap, count;
} ens__stamps;

/* Bump allocation for what readers make in bulk: objects, property
 * arrays, strings, child arrays and the text of the file. One region for
 * a whole load, in huge pages when it is large. Whatever lives here is
 * flagged (ens__prop.arena, ens_obj.props_arena, kids_arena) so that it is
 * never free()d or realloc()ed alone; a change copies it out first. The
 * rule for long sessions: the arena only grows while a reader fills it
 * (and by pool blocks, whose objects are reused through the free list),
 * so what a deleted object leaves in it is bounded by what was loaded. */
typedef struct ens__arena_block {
  struct ens__arena_block *next;
  size_t used, cap;
  uint8_t pages; /* from ens__pages_alloc, not malloc */
  max_align_t data[];
} ens__arena_block;

struct ens_doc {
  const char *kind; /* interned */
  uint32_t site;
  uint64_t counter; /* last counter handed out for site */
  ens_obj *root;
  ens__idmap ids;
  ens__pool pool;
  ens__atoms atoms;
  ens__stamps stamps;
  ens__arena_block *arena;
  const ens_schema *schema;
  uint64_t clock; /* one tick per applied transaction */
  ens__observer *observers;
  size_t nobservers;
  int next_handle;
};

static inline const ens__atomrec *ens__atom_rec(const char *interned) {
  return (const ens__atomrec *)(const void *)(interned - offsetof(ens__atomrec, s));
}
/* The document an object belongs to (its kind is one of its atoms). */
static inline ens_doc *ens__obj_doc(const ens_obj *obj) { return ens__atom_rec(obj->kind)->doc; }
/* Index of an interned name (a key or kind of this document). */
static inline uint32_t ens__atom_index(const char *interned) { return ens__atom_rec(interned)->index; }
/* The name of the key of property p of obj. */
static inline const char *ens__prop_key(const ens_obj *obj, const ens__prop *p) {
  return ens__obj_doc(obj)->atoms.names[p->key];
}
/* The position of obj among its siblings ("" for the root). */
static inline const char *ens__obj_pos(const ens_obj *obj) { return obj->pos_heap ? obj->pos.heap : obj->pos.in; }

/* Interned string for (s, n), created when missing; NULL on ENOMEM (or
 * ENS_ELIMIT past ENS__MAX_ATOMS). */
const char *ens__atom(ens_doc *doc, const char *s, size_t n);
/* Interned string if it exists, else NULL (no allocation). */
const char *ens__atom_find(const ens_doc *doc, const char *s, size_t n);

/* Create an object under parent at pos (copied), registering its id and
 * placing it among the siblings. Checks: id free and nonzero. Not the
 * schema nor the depth: callers do. Returns NULL with the error set. */
ens_obj *ens__obj_create(ens_doc *doc, ens_id id, const char *kind, ens_obj *parent,
                         const char *pos, size_t pos_len);
/* The same, for readers that create children in order (snapshots): the
 * new object must sort after its parent's last child, or ENS_EDECODE. */
ens_obj *ens__obj_append(ens_doc *doc, ens_id id, const char *kind, ens_obj *parent, const char *pos,
                         size_t pos_len);
/* The same for format readers, which make every position themselves in
 * order (ens_pos_seq) and have made room in parent->kids: no checks. */
ens_obj *ens__obj_append_read(ens_doc *doc, ens_id id, const char *kind, ens_obj *parent, const char *pos,
                              size_t pos_len);
/* Make room for n more objects at once (the id map). */
int ens__doc_reserve(ens_doc *doc, size_t n);
/* Ids of this document's site handed out from now on have counters above
 * floor (a session's server gives it with the site: a site taken back from
 * an idle client comes with a floor above every id that client may have
 * made). ens_doc_set_site starts again from the document's own ids. */
void ens__doc_id_floor(ens_doc *doc, uint64_t floor);
/* Make room for a load of about bytes bytes in the arena, in one region
 * (huge pages when large); what is not used is never touched. */
int ens__doc_reserve_arena(ens_doc *doc, size_t bytes);
/* Remove obj and its subtree from the document and free them. */
void ens__obj_destroy(ens_doc *doc, ens_obj *obj);
/* Reparent / reposition (no checks). */
int ens__obj_move(ens_doc *doc, ens_obj *obj, ens_obj *parent, const char *pos, size_t pos_len);

/* n bytes from the document's arena, aligned to align (a power of two up
 * to alignof(max_align_t)); NULL when out of memory. Freed only with the
 * document. */
void *ens__doc_arena_alloc(ens_doc *doc, size_t n, size_t align);
/* Bytes of the arena in regions from the kernel (ens__pages_alloc), used
 * so far: memory the document holds that malloc's statistics do not see. */
size_t ens__doc_pages_used(const ens_doc *doc);
/* The free room at the end of the arena's newest block, aligned to align:
 * a reader may write there, then take what it wrote with
 * ens__doc_arena_alloc(doc, n, align), which returns this same place when
 * nothing else was taken from the arena in between. *avail receives the
 * bytes there (0, and NULL returned, when there is no block). */
void *ens__doc_arena_room(ens_doc *doc, size_t align, size_t *avail);
/* A property array of n slots (nprops 0, room for exactly n) from the
 * arena, for a reader to fill with ens__obj_fill_prop or directly. */
int ens__obj_arena_props(ens_doc *doc, ens_obj *obj, uint32_t n);
/* A child array of room for n (nkids 0) from the arena. */
int ens__obj_arena_kids(ens_doc *doc, ens_obj *obj, uint32_t n);
/* A copy of (s, n) with a NUL after it, in the arena, as the string of
 * property slot p (whose type the caller sets). */
int ens__prop_arena_str(ens_doc *doc, ens__prop *p, const char *s, size_t n);
/* Sets key to the bytes (s, n), which the document owns already (text a
 * reader put in its arena) and which are not copied. */
int ens__obj_set_kept(ens_doc *doc, ens_obj *obj, const char *interned_key, const char *s, size_t n);
/* Adds (key, v) to an object whose array came from ens__obj_arena_props
 * and has room, or replaces the value of a property with the same key;
 * strings are copied into the arena. For decoders filling fresh objects. */
int ens__obj_fill_prop(ens_doc *doc, ens_obj *obj, const char *interned_key, const ens_value *v);

/* Mark obj and its ancestors as no longer as read (see ens_obj.as_read). */
static inline void ens__obj_touch(ens_obj *obj) {
  while (obj && obj->as_read) {
    obj->as_read = 0;
    obj = obj->parent;
  }
}
/* Mark every object of the document as read (format readers, when done).
 * A reader may mark each object as it creates it (as_read = 1, under a
 * parent it then fills likewise): changes made since cleared the marks
 * they invalidated, and this walk visits only those. */
void ens__doc_mark_as_read(ens_doc *doc);

/* The property of obj with this key (interned in obj's document), NIL
 * entries included, or NULL. */
ens__prop *ens__obj_find_prop(const ens_obj *obj, const char *interned_key);
/* Set a property of obj to *v, or with NIL remove it (an existing entry
 * stays, holding NIL, so that its clock in the document's stamp table
 * survives; removing an absent key adds nothing). interned_key must be one
 * of doc's atoms. The object keeps its own copy of a string or bytes
 * value; the old value is released, not returned: a caller that needs it
 * (an inverse) copies it first (ens__prop_value, then ens__value_dup).
 * When slot is not NULL, *slot is the entry now holding the value (NULL
 * when nothing was added), for the caller to stamp; it stays valid until
 * the next property set on obj. Marks obj changed since reading unless the
 * key is local-only. ENS_ELIMIT (a value over 2 GiB, ENS__MAX_VALUE, or
 * more than ENS__MAX_PROPS properties) or ENS_ENOMEM leave the property as
 * it was. */
int ens__obj_set_prop(ens_doc *doc, ens_obj *obj, const char *interned_key, const ens_value *v,
                      ens__prop **slot);
ens_value ens__prop_value(const ens__prop *p);
/* 1 when property p of obj is local-only ('@' key). */
static inline int ens__prop_is_local(const ens_obj *obj, const ens__prop *p) {
  return ens__prop_key(obj, p)[0] == '@';
}

/* Remote stamps (ens__stamps): which is a property index of obj,
 * ENS__STAMP_OBJ or ENS__STAMP_MOVE; 0 when never stamped. Setting one
 * needs room made first (ens__stamp_reserve), so that it cannot fail in
 * the middle of an operation. */
uint64_t ens__stamp(const ens_doc *doc, const ens_obj *obj, uint32_t which);
int ens__stamp_reserve(ens_doc *doc, size_t n);
void ens__stamp_set(ens_doc *doc, ens_obj *obj, uint32_t which, uint64_t stamp);
/* The stamp of property p of obj. */
static inline uint64_t ens__prop_stamp(const ens_doc *doc, const ens_obj *obj, const ens__prop *p) {
  return obj->stamped ? ens__stamp(doc, obj, (uint32_t)(p - obj->props)) : 0;
}

static inline ens_obj *ens__doc_lookup(const ens_doc *doc, ens_id id);

/* Depth of obj (root = 0) and height of its subtree (leaf = 1). */
size_t ens__obj_depth(const ens_obj *obj);
size_t ens__obj_height(const ens_obj *obj);

/* Compare two sibling places: position, then id. */
int ens__place_cmp(const char *pos_a, ens_id id_a, const char *pos_b, ens_id id_b);


/* Schema checks used by apply (schema may be NULL: everything allowed). */
int ens__schema_check_place(const ens_schema *schema, const char *kind, const char *parent_kind);
int ens__schema_check_prop(const ens_schema *schema, const char *kind, const char *key, ens_type type);
/* 1 when the schema has rules, which judge objects after a transaction. */
int ens__schema_has_rules(const ens_schema *schema);
/* The schema's rules for obj; 0, or the rule's code with its reason as
 * the error. */
int ens__schema_check_obj(const ens_schema *schema, const ens_doc *doc, const ens_obj *obj, const ens_touch *touch);
/* The schema's final rule, when the rules asked for it (later != 0). */
int ens__schema_check_final(const ens_schema *schema, const ens_doc *doc, unsigned later);

/* Local-only keys start with '@': never content, never sent. */
static inline int ens__key_is_local(const char *key) { return key[0] == '@'; }

/* --- id map ------------------------------------------------------------ */
ens_obj *ens__idmap_get(const ens__idmap *m, ens_id id);
/* Entry i of the id map's storage (dense array, then hash slots), for
 * picking objects at random: ENS_ID_NONE when empty; i < ens__idmap_span. */
size_t ens__idmap_span(const ens__idmap *m);
ens_id ens__idmap_at(const ens__idmap *m, size_t i);

static inline ens_obj *ens__doc_lookup(const ens_doc *doc, ens_id id) {
  const ens__idmap *m = &doc->ids;
  if (id < m->ndense) return m->dense[id]; /* a site-0 id (site 0 ids are their counters) */
  return ens__idmap_get(m, id);
}

#endif
