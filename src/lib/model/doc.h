/* Private view of documents and objects, shared by the model, the
 * transaction engine, the snapshot codec and the format readers. The
 * ownership rule: a document owns its objects, their property values and
 * position strings; kinds and property keys are interned per document and
 * live as long as it does, so they compare by pointer. */
#ifndef ENS_MODEL_DOC_H
#define ENS_MODEL_DOC_H

#include "ensemble/limits.h"
#include "ensemble/model.h"
#include "ensemble/txn.h"

#include <stddef.h>

/* ENS_MAX_DEPTH, ENS_MAX_POS and the other limits: ensemble/limits.h. */

typedef struct {
  const char *key; /* interned */
  uint8_t type;    /* ens_type; NIL marks a removed property (kept for its stamp) */
  uint8_t arena;   /* u.s lives in the document's arena: never free()d alone */
  uint32_t len;    /* for STR / BYTES */
  uint64_t rstamp; /* clock of the last remote write, 0 if none */
  union {
    int64_t i;
    double r;
    int b;
    ens_id ref;
    char *s; /* owned, NUL-terminated one past len */
  } u;
} ens__prop;

/* Positions shorter than this live inside the object: no allocation. */
#define ENS_POS_INLINE 16

struct ens_obj {
  ens_id id;
  const char *kind; /* interned */
  struct ens_obj *parent;
  char *pos; /* pos_inline or owned heap copy; NULL for the root */
  char pos_inline[ENS_POS_INLINE];
  ens__prop *props;
  uint32_t nprops, capprops;
  struct ens_obj **kids;
  uint32_t nkids, capkids;
  uint64_t rstamp; /* last remote change to this object or its child list */
  uint64_t mstamp; /* last remote move of this object */
  /* Set by a format reader once it has built the document: this object and
   * everything under it are exactly as read, so a writer may copy the text
   * it kept instead of checking it against the properties. Any change
   * below clears it up to the root (ens__obj_touch); whatever is created
   * later, or decoded from a snapshot, starts without it. Invariant: an
   * object that has it has it on every descendant. */
  uint8_t as_read;
  uint8_t props_arena; /* props lives in the document's arena (a reader put it there) */
};

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

typedef struct {
  ens__idslot *slots;
  size_t cap, count; /* cap is a power of two */
} ens__idmap;

/* Objects come from per-document blocks and go back to a free list: one
 * allocation per ENS_POOL_BLOCK objects instead of one each. */
#define ENS_POOL_BLOCK 256
typedef struct ens__pool_block {
  struct ens__pool_block *next;
  ens_obj objs[ENS_POOL_BLOCK];
} ens__pool_block;

typedef struct {
  ens__pool_block *blocks;
  size_t used;   /* objects handed out of the newest block */
  ens_obj *free; /* freed objects, linked through their parent field */
} ens__pool;

typedef struct {
  char **slots; /* open addressing, NULL = empty */
  size_t cap, count;
} ens__atoms;

/* Bump allocation for what readers make in bulk (property arrays and
 * strings of a loaded file): one malloc per block instead of one per
 * string, and all of it freed with the document. Whatever lives here is
 * flagged (ens__prop.arena, ens_obj.props_arena) so that it is never
 * free()d or realloc()ed alone; a change copies it out first. */
typedef struct ens__arena_block {
  struct ens__arena_block *next;
  size_t used, cap;
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
  ens__arena_block *arena;
  const ens_schema *schema;
  uint64_t clock; /* one tick per applied transaction */
  ens__observer *observers;
  size_t nobservers;
  int next_handle;
};

/* Interned string for (s, n), created when missing; NULL on ENOMEM. */
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
/* Make room for n objects in the id map at once. */
int ens__doc_reserve(ens_doc *doc, size_t n);
/* Remove obj and its subtree from the document and free them. */
void ens__obj_destroy(ens_doc *doc, ens_obj *obj);
/* Reparent / reposition (no checks). */
int ens__obj_move(ens_doc *doc, ens_obj *obj, ens_obj *parent, const char *pos, size_t pos_len);

/* n bytes from the document's arena, aligned for any type; NULL when out
 * of memory. Freed only with the document. */
void *ens__doc_arena_alloc(ens_doc *doc, size_t n);
/* A property array of n slots (nprops 0, capacity n) from the arena. */
int ens__obj_arena_props(ens_doc *doc, ens_obj *obj, uint32_t n);
/* A copy of (s, n) with a NUL after it, in the arena, as the string of
 * property slot p (whose type the caller sets). */
int ens__prop_arena_str(ens_doc *doc, ens__prop *p, const char *s, size_t n);

/* Mark obj and its ancestors as no longer as read (see ens_obj.as_read). */
static inline void ens__obj_touch(ens_obj *obj) {
  while (obj && obj->as_read) {
    obj->as_read = 0;
    obj = obj->parent;
  }
}
/* Mark every object of the document as read (format readers, when done). */
void ens__doc_mark_as_read(ens_doc *doc);

ens__prop *ens__obj_find_prop(const ens_obj *obj, const char *interned_key);
/* Set (or with NIL remove) a property; old value copied into *old when not
 * NULL (strings in *old are then owned by the caller: free old->u.s.ptr). */
int ens__obj_set_prop(ens_doc *doc, ens_obj *obj, const char *interned_key, const ens_value *v,
                      ens__prop **slot);
ens_value ens__prop_value(const ens__prop *p);

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

static inline ens_obj *ens__doc_lookup(const ens_doc *doc, ens_id id) {
  return ens__idmap_get(&doc->ids, id);
}

#endif
