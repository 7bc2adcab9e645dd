/* Private state of the three-way merge, shared by its files: merge.c
 * (matching the three documents into nodes), merge_tree.c (deletes,
 * parents, conflicts), merge_refs.c (references to what the merge
 * deletes), merge_order.c (diff3 of child lists) and merge_emit.c (the
 * transaction). docs/merge.md describes the rules. */
#ifndef ENS_VCS_MERGE_INT_H
#define ENS_VCS_MERGE_INT_H

#include "../txn/ops.h"
#include "../util/idtab.h"
#include "ensemble/merge.h"

#define S_NONE UINT32_MAX

/* The three sides; base is matched by both others. */
enum { ENS__BASE = 0, ENS__OURS = 1, ENS__THEIRS = 2 };

/* Node flags. */
enum {
  ENS__N_OWN = 1,      /* alive by its own rules (not deleted, or kept by a conflict) */
  ENS__N_ALIVE = 2,    /* in the merged document */
  ENS__N_BATCHED = 4,  /* the new children of both sides under it have been matched */
  ENS__N_FLIPPED = 8,  /* its parent was switched to break a cycle */
  ENS__N_TOUCHED = 16, /* (<< side) top of a group side deleted, which the other side edited */
  ENS__N_DANGLES = 128, /* it names what the merge deletes, and goes with it */
  ENS__N_REFKEPT = 256  /* a property of it keeps one side's value (see kept) */
};

/* One object of the merge: what it is in base, ours and theirs (NULL where
 * that side does not hold it), and node indices of its parent in each. */
typedef struct {
  const ens_obj *obj[3];
  uint32_t par[3];
  uint32_t merged;     /* parent in the merged document */
  uint32_t grp[3];     /* ours/theirs: top of the group of base objects that side deleted */
  ens_id tid;          /* its id in theirs when theirs does not hold it (new, or for references) */
  uint16_t flags;
} ens__mnode;

/* id -> node index. */
typedef ens__idtab ens__idx;

/* name (an identity key that is a name) -> node, for references a format
 * keeps in text: hashes, open addressing, checked against the key. */
typedef struct {
  uint64_t *hash;
  uint32_t *node;
  size_t cap, count;
  int built;
} ens__names;

int ens__idx_put(ens__idx *m, ens_id key, uint32_t val);
uint32_t ens__idx_get(const ens__idx *m, ens_id key);
void ens__idx_free(ens__idx *m);

struct ens_merge {
  /* inputs */
  const ens_doc *doc[3];
  ens_doc *theirs;
  ens_merge_opts opts;
  /* nodes: base's first, in base's pre-order (so a base parent's index is
   * below its children's, and siblings are in order) */
  ens__mnode *nodes;
  size_t nnodes, capnodes, nbase;
  ens__idx map[3]; /* per side: id -> node (a side matched by id maps only its new objects) */
  ens__idx dangling; /* raw id of a dangling reference -> index in dids */
  ens_id *dids;      /* the ids theirs never used that such references get */
  size_t ndids, capdids;
  /* new objects of ours and theirs, each in its document's pre-order */
  const ens_obj **fresh[3];
  size_t nfresh[3], capfresh[3];
  /* references (merge_refs.c): per side, the names references use */
  ens__names names[3];
  /* properties whose merged value would name what the merge deletes: they
   * keep side use's value instead */
  struct {
    uint32_t node;
    int use;
    const char *key;
  } *kept;
  size_t nkept, capkept;
  /* scratch indexed by node */
  uint32_t *scratch;
  /* output */
  ens_txn *txn;
  ens_merge_conflict *conflicts;
  size_t nconflicts, capconflicts;
  char **strings; /* owned: paths, keys, conflict values' bytes */
  size_t nstrings, capstrings;
};

/* merge.c */
/* The node an object of side s is, or S_NONE. */
uint32_t ens__merge_node_of(const ens_merge *m, int side, const ens_obj *o);
/* The node a reference of side s names (also an object that side deleted,
 * when it shares ids with base), or S_NONE when it dangles. */
uint32_t ens__merge_ref_node(const ens_merge *m, int side, ens_id ref);
/* 1 when two values of sides sa and sb say the same (references compared
 * by the object they name). */
int ens__merge_value_eq(const ens_merge *m, int sa, const ens_value *a, int sb, const ens_value *b);
/* A value of side s as theirs must hold it (references in theirs' ids). */
int ens__merge_value_out(ens_merge *m, int side, ens_value v, ens_value *out);
/* Theirs' id for node i (its own, a fresh one for a new or gone object). */
ens_id ens__merge_tid(ens_merge *m, uint32_t i);
int ens__merge_conflict(ens_merge *m, ens_conflict_kind kind, uint32_t node, const char *key, const ens_value *base,
                        const ens_value *ours, const ens_value *theirs, int ours_kept);
/* Properties whose key starts with '~' hold the text a format's reader
 * kept so that writing gives the file back byte for byte (docs/sfd.md,
 * docs/svg.md): they follow the properties they stand for, and a writer
 * checks them against those. They are merged like the others, but they
 * are never a conflict of their own nor an edit. */
static inline int ens__key_is_kept_text(const char *key) { return key[0] == '~'; }

/* 1 when a property differs between the objects of node i on sides sa, sb
 * (kept text counted only with kept). */
int ens__merge_props_differ(const ens_merge *m, uint32_t i, int sa, int sb, int kept);

/* merge_tree.c: deleted groups, what is alive, merged parents. */
int ens__merge_tree(ens_merge *m);
/* The nodes that can be alive (ENS__N_ALIVE): reachable from the root
 * through either side's parent, each alive by its own rules (ENS__N_OWN). */
int ens__merge_reach(ens_merge *m);
#define S_TOUCHED(side) ((uint16_t)(ENS__N_TOUCHED << (side)))

/* merge_refs.c: references to what a side deleted. A side's new reference
 * to what the other deleted is an edit of it (marks the deleted group
 * touched, so that the delete is a conflict). */
int ens__merge_ref_touches(ens_merge *m);
/* Once ENS__N_ALIVE is known: every merged value that would name what the
 * merged document lost, where its side held it, takes the other side's
 * value (m->kept), or its object goes too (ENS__N_DANGLES); alive again. */
int ens__merge_ref_drops(ens_merge *m);
/* The side whose value node i's property key keeps (ENS__OURS or
 * ENS__THEIRS; ENS__BASE: the root's property goes), or -1 when none is
 * kept that way. */
int ens__merge_kept_side(const ens_merge *m, uint32_t i, const char *key);
void ens__merge_refs_free(ens_merge *m);

/* merge_order.c: the merged order of one parent's children. base may be
 * NULL (the parent is new on both sides: the common run of ours and theirs
 * stands for it). out must hold no + nt entries; *nout gets the count.
 * src[k] says where out[k] came from (0 all, 1 ours, 2 theirs). *conflict is
 * set when the two sides changed one stretch differently. pos is scratch
 * indexed by node, all S_NONE, left so. */
int ens__merge_order(const uint32_t *base, size_t nb, const uint32_t *ours, size_t no, const uint32_t *theirs,
                     size_t nt, int prefer_ours, uint32_t *pos, uint32_t *out, uint8_t *src, size_t *nout,
                     int *conflict);

/* merge_emit.c: the transaction. */
int ens__merge_emit(ens_merge *m);

#endif
