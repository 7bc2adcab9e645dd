/* Ensemble three-way merge: the changes one version of a document made since
 * a common base, carried onto another version, per object and property,
 * with every conflict reported (docs/merge.md). */
#ifndef ENSEMBLE_MERGE_H
#define ENSEMBLE_MERGE_H

#include "diff.h" /* ens_identity_fn */

#ifdef __cplusplus
extern "C" {
#endif

/* How a side's objects are found in base. */
typedef enum {
  ENS_MERGE_BY_ID = 0, /* this side shares ids with base (a later version of the same replica/session) */
  ENS_MERGE_BY_KEY = 1 /* this side was read from a file: match its objects to base's by identity keys */
} ens_merge_match;

/* Which side a conflict is resolved for. */
typedef enum {
  ENS_MERGE_PREFER_OURS = 0,  /* a conflicting property takes ours' value (the file mirror: the save is ordered after) */
  ENS_MERGE_PREFER_THEIRS = 1
} ens_merge_prefer;

/* Where a format keeps references in text (SVG's href="#id" and
 * url(#id)): calls found once for each object that value, obj's property
 * key, names, by the name the identity function gives that object ("#id").
 * Returns 0, or found's nonzero return. ens_svg_refs is SVG's. */
typedef int (*ens_refs_found_fn)(const char *name, size_t len, void *ctx);
typedef int (*ens_refs_fn)(const ens_obj *obj, const char *key, ens_value value, ens_refs_found_fn found, void *ctx,
                           void *user);

typedef struct {
  /* The format's keys (ens_sfd_identity, ens_svg_identity). Needed when a
   * side is matched by key, and to match objects both sides inserted; may
   * be NULL when both sides are ENS_MERGE_BY_ID (concurrent inserts are then
   * never matched). Objects both sides inserted under an object of base are
   * matched only by keys the function marks as names (it returns 2, see
   * diff.h): two new contours that are each "the third one" are two
   * contours, but two new glyphs named "a" are one glyph. Under an object
   * both sides inserted, every key matches. */
  ens_identity_fn identity;
  void *identity_user;
  ens_merge_match ours_match, theirs_match;
  ens_merge_prefer prefer;
  /* The format's references held in text (ens_svg_refs), besides ENS_REF
   * values, which are always references; may be NULL. The merge never
   * lets a reference dangle (docs/merge.md, "References"), so it needs to
   * see every reference the format's writer would need to resolve. */
  ens_refs_fn refs;
  void *refs_user;
} ens_merge_opts;

typedef enum {
  ENS_CONFLICT_SET,    /* both sides changed one property to different values */
  ENS_CONFLICT_DELETE, /* one side deleted (a subtree holding) what the other edited, moved or inserted under */
  ENS_CONFLICT_MOVE,   /* both moved one object, to different parents or places */
  ENS_CONFLICT_INSERT  /* both inserted, under one parent, objects with one identity key but different content */
} ens_conflict_kind;

typedef struct {
  ens_conflict_kind kind;
  /* The object in theirs' ids; for DELETE the deleted object (the top of
   * the deleted subtree, reported once for the whole subtree), which theirs
   * may no longer hold: when theirs deleted it, its id there if theirs
   * shares ids with base, else ENS_ID_NONE; for an order conflict (MOVE
   * with key NULL and the parent as id), the parent. ENS_ID_NONE when the
   * object exists only in ours. */
  ens_id id;
  const char *path; /* for people: identity keys from the root, e.g. "glyph a/layer 1/contour 2/point 5" */
  /* SET and INSERT: the property (INSERT conflicts are per property of two
   * objects both sides inserted: their other properties merged); else NULL. */
  const char *key;
  /* SET and INSERT: the three values (NIL when absent; base is always NIL
   * for INSERT), references given in theirs' ids; borrowed from the merge. */
  ens_value base, ours, theirs;
  int ours_kept; /* 1 when the merged result holds ours' side */
} ens_merge_conflict;

typedef struct ens_merge ens_merge;

/* Merges ours' changes since base into theirs. The result is a transaction
 * that turns theirs into the merged document: every change of ours relative
 * to base that does not conflict, and each conflict resolved by
 * opts->prefer (or dropped where it cannot apply, e.g. an edit of an object
 * theirs deleted), reported in the conflict list. New objects get fresh ids
 * of theirs' site (theirs' id counter advances; nothing else of theirs
 * changes). Deterministic: same inputs, same transaction and conflicts.
 * Merging with ours == base gives an empty transaction; with theirs ==
 * base, a transaction that turns theirs into ours' content. Child order:
 * diff3 of the child lists by matched identity. Local-only properties
 * ("@...") are never content. base and ours are only read. *out is the
 * caller's (ens_merge_free); on error *out is NULL. */
int ens_merge3(const ens_doc *base, const ens_doc *ours, ens_doc *theirs, const ens_merge_opts *opts,
               ens_merge **out);

const ens_txn *ens_merge_txn(const ens_merge *m); /* borrowed; may have 0 operations */
ens_txn *ens_merge_take_txn(ens_merge *m);         /* the caller then owns it; later calls give NULL */
size_t ens_merge_conflict_count(const ens_merge *m);
const ens_merge_conflict *ens_merge_conflict_at(const ens_merge *m, size_t i); /* borrowed; NULL past the end */
void ens_merge_free(ens_merge *m);                                             /* accepts NULL */

#ifdef __cplusplus
}
#endif
#endif
