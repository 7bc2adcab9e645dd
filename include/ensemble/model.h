/* Ensemble document model: a tree of objects with stable ids, kinds, typed
 * properties and children ordered by fractional positions. Documents change
 * only through transactions (ensemble/txn.h); this header reads them. */
#ifndef ENSEMBLE_MODEL_H
#define ENSEMBLE_MODEL_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ENS_NIL = 0, /* absent: setting NIL removes a property */
  ENS_INT = 1,
  ENS_REAL = 2,
  ENS_STR = 3,
  ENS_BYTES = 4,
  ENS_BOOL = 5,
  ENS_REF = 6 /* reference to another object by id */
} ens_type;

/* A property value. Strings and bytes are borrowed views: a value read from
 * a document stays valid until that property is next changed. Strings need
 * not be NUL-terminated; len counts bytes. */
typedef struct {
  ens_type type;
  union {
    int64_t i;
    double r;
    int b;
    ens_id ref;
    struct {
      const char *ptr;
      size_t len;
    } s;
  } u;
} ens_value;

static inline ens_value ens_nil(void) { ens_value v; v.type = ENS_NIL; v.u.i = 0; return v; }
static inline ens_value ens_int(int64_t i) { ens_value v; v.type = ENS_INT; v.u.i = i; return v; }
static inline ens_value ens_real(double r) { ens_value v; v.type = ENS_REAL; v.u.r = r; return v; }
static inline ens_value ens_bool(int b) { ens_value v; v.type = ENS_BOOL; v.u.i = 0; v.u.b = b ? 1 : 0; return v; }
static inline ens_value ens_ref(ens_id id) { ens_value v; v.type = ENS_REF; v.u.ref = id; return v; }
static inline ens_value ens_strn(const char *p, size_t n) { ens_value v; v.type = ENS_STR; v.u.s.ptr = p; v.u.s.len = n; return v; }
static inline ens_value ens_bytes(const void *p, size_t n) { ens_value v; v.type = ENS_BYTES; v.u.s.ptr = (const char *)p; v.u.s.len = n; return v; }
ens_value ens_str(const char *nul_terminated);

/* 1 when a and b hold the same type and content (reals compared bitwise). */
int ens_value_equal(const ens_value *a, const ens_value *b);

typedef struct ens_doc ens_doc;
typedef struct ens_obj ens_obj;
typedef struct ens_schema ens_schema;

/* A new empty document holding only its root (kind doc_kind, id
 * ENS_ROOT_ID). site is this replica's site (1..ENS_SITE_MAX; 0 is for
 * objects made by file readers). The caller owns the result: ens_doc_free. */
ens_doc *ens_doc_new(const char *doc_kind, uint32_t site);
void ens_doc_free(ens_doc *doc);

const char *ens_doc_kind(const ens_doc *doc);
uint32_t ens_doc_site(const ens_doc *doc);
void ens_doc_set_site(ens_doc *doc, uint32_t site);

/* A fresh id of this document's site, never used in it before, or
 * ENS_ID_NONE (with ENS_ELIMIT in ens_error_last) once the site has used
 * all 2^40 counters: a replica then needs a new site. */
ens_id ens_doc_new_id(ens_doc *doc);

/* Attach a schema checked by every apply; the document borrows it (it must
 * outlive the document). NULL removes it. */
void ens_doc_set_schema(ens_doc *doc, const ens_schema *schema);
/* The schema attached to doc, or NULL (borrowed). */
const ens_schema *ens_doc_schema(const ens_doc *doc);

/* Objects are owned by the document; a pointer stays valid until a
 * transaction deletes that object or the document is freed. */
const ens_obj *ens_doc_root(const ens_doc *doc);
const ens_obj *ens_doc_get(const ens_doc *doc, ens_id id); /* NULL if none */
size_t ens_doc_count(const ens_doc *doc); /* objects including the root */

/* Hash of the content: ids, kinds, parents, positions, properties. Two
 * replicas that hold the same content have the same hash whatever the order
 * of the edits that produced it. Local-only properties ("@...") are not
 * content. */
uint64_t ens_doc_hash(const ens_doc *doc);

/* Hash of the content without ids and positions: kinds, properties, child
 * order, references as paths. Equal for documents that differ only by ids,
 * such as a document and the one a diff turned into its likeness. */
uint64_t ens_doc_content_hash(const ens_doc *doc);

ens_id ens_obj_id(const ens_obj *obj);
const char *ens_obj_kind(const ens_obj *obj);
const ens_obj *ens_obj_parent(const ens_obj *obj); /* NULL for the root */
const char *ens_obj_pos(const ens_obj *obj);       /* "" for the root */
size_t ens_obj_child_count(const ens_obj *obj);
const ens_obj *ens_obj_child(const ens_obj *obj, size_t index); /* in order */
/* Index of obj among its parent's children. */
size_t ens_obj_index(const ens_obj *obj);

/* Calls fn on obj and every descendant in pre-order (children in order),
 * with each one's depth below obj (obj itself: 0). Iterative, so any
 * nesting is safe. Stops at the first nonzero return of fn and returns it;
 * fn must not change the document. */
typedef int (*ens_walk_fn)(const ens_obj *obj, size_t depth, void *user);
int ens_obj_walk(const ens_obj *obj, ens_walk_fn fn, void *user);

/* Property lookup; returns 0, or ENS_ENOTFOUND with out set to NIL. */
int ens_obj_get(const ens_obj *obj, const char *key, ens_value *out);
/* Properties in a stable order; i < ens_obj_prop_count. */
size_t ens_obj_prop_count(const ens_obj *obj);
int ens_obj_prop_at(const ens_obj *obj, size_t i, const char **key, ens_value *out);

/* A position string that places a new child of parent at index (0 =
 * first, child_count = last), between its would-be neighbours. Where the
 * neighbours tie on position (two collaborators inserted at one place), it
 * lands after the tied run. The caller frees it with ens_free. */
int ens_doc_pos_at(const ens_doc *doc, ens_id parent, size_t index, char **out);

/* Fractional positions: a string strictly between a and b (either may be
 * NULL or "" for the open end). Caller frees with ens_free. Returns NULL
 * when a >= b, when either is not a valid position, or on allocation
 * failure. Repeated appends (or prepends) grow the result
 * logarithmically: 100,000 appends give 8 characters. */
char *ens_pos_between(const char *a, const char *b);
/* The i-th (0-based) of n evenly spaced positions, all of the same short
 * length (log62 n digits): what a reader uses to place n children at once.
 * Caller frees with ens_free; NULL when i >= n or on allocation failure. */
char *ens_pos_seq(size_t i, size_t n);
/* 1 when s is a well-formed position (base-62 digits, not ending in '0'). */
int ens_pos_valid(const char *s, size_t len);

/* Schemas: which kinds may live under which, and property types. An object
 * whose kind the schema lacks, under a parent kind not allowed for it, or a
 * declared property given another type, makes an apply fail with
 * ENS_EKIND or ENS_ETYPE. */
ens_schema *ens_schema_new(void);
void ens_schema_free(ens_schema *schema);
/* parents: space-separated kinds this kind may be a child of ("*" = any). */
int ens_schema_add_kind(ens_schema *schema, const char *kind, const char *parents);
int ens_schema_add_prop(ens_schema *schema, const char *kind, const char *key, ens_type type);
/* Kinds the schema does not declare are allowed anywhere, for formats
 * whose kinds are open (SVG's element names): its rules judge them. */
void ens_schema_allow_other_kinds(ens_schema *schema, int allow);

/* What a transaction did to an object that a rule is asked about. */
enum {
  ENS_TOUCH_PROPS = 1, /* properties set or removed */
  ENS_TOUCH_KIDS = 2,  /* children inserted, deleted, or moved in, out or among themselves */
  ENS_TOUCH_NEW = 4,   /* inserted by the transaction (with its properties and children) */
  ENS_TOUCH_MOVED = 8  /* given a new parent or position */
};
typedef struct {
  unsigned what; /* ENS_TOUCH_* bits */
  /* The keys set or removed (ENS_TOUCH_PROPS), interned by the document,
   * each once; NULL when not listed (a new object: all of them; or more
   * than were kept), and then a rule assumes any. */
  const char *const *keys;
  size_t nkeys;
  /* Bits a rule may set for the schema's final rule, which runs once
   * after every touched object was judged (a check of the whole document
   * that many objects of one transaction may each call for). */
  unsigned *later;
} ens_touch;
/* A rule judges an object as the transaction leaves it: after all of a
 * transaction's operations applied, each object it touched (still in the
 * document) is given to the rules of its kind with what happened to it. A
 * rule returns 0 to accept; or a negative ENS_E* code (ENS_EFORMAT,
 * ENS_EKIND, ENS_ETYPE) after writing into why a NUL-terminated reason
 * for the transaction's author, and then the transaction is rolled back
 * and fails with that code and reason. A rule may read the whole document
 * but must not change it; it runs on the thread that applies.
 * Transactions already judged elsewhere (a session's collaborators'
 * changes, as its server accepted them) are not given to the rules again;
 * local-only ones never are. */
typedef int (*ens_schema_rule_fn)(const ens_doc *doc, const ens_obj *obj, const ens_touch *touch, char *why,
                                  size_t why_size, void *user);
/* Adds a rule for objects of kind (NULL: of every kind); user is passed
 * back to it. */
int ens_schema_add_rule(ens_schema *schema, const char *kind, ens_schema_rule_fn fn, void *user);
/* The final rule: run once per transaction after its objects were judged,
 * when a rule set bits in touch->later (given to it), with the same
 * contract as a rule. One per schema; NULL removes it. */
typedef int (*ens_schema_final_fn)(const ens_doc *doc, unsigned later, char *why, size_t why_size, void *user);
void ens_schema_set_final_rule(ens_schema *schema, ens_schema_final_fn fn, void *user);

/* Snapshots: the whole document as versioned MessagePack (docs/snapshot.md).
 * encode: *out is malloc'd, caller frees with ens_free. decode: a new
 * document owned by the caller, or an error with nothing allocated. */
int ens_snapshot_encode(const ens_doc *doc, unsigned char **out, size_t *out_len);
int ens_snapshot_decode(const void *data, size_t len, ens_doc **out);

#ifdef __cplusplus
}
#endif
#endif
