/* Matching objects of two documents by the identity keys their format
 * gives: the first half of the document diff, shared with the three-way
 * merge (src/lib/vcs), which matches a file read from disk to its base the
 * same way the diff does. */
#ifndef ENS_TXN_MATCH_H
#define ENS_TXN_MATCH_H

#include "../model/doc.h"
#include "ensemble/diff.h"

/* Longest identity key kept; longer ones are cut (and still compared). */
#define ENS__KEY_MAX 256

/* For each of the nb objects bs[i], out[i] receives the object of as[] it
 * matches, or NULL: same kind, same identity key, the first unused one in
 * as[]'s order (so siblings sharing a key match in order). Objects without
 * a key never match; with names_only, neither do objects whose key is only
 * their place (the identity function returned 1 rather than 2). The as[]
 * and bs[] objects may belong to different documents. */
int ens__match_list(const ens_obj *const *as, size_t na, const ens_obj *const *bs, size_t nb,
                    ens_identity_fn identity, void *user, int names_only, const ens_obj **out);

/* Called for each pair of the top-down matching: (a, b) when b matched a,
 * before b's children; (NULL, b) for each child b that matched nothing, whose
 * subtree is then not visited. Calls follow b's pre-order. A nonzero
 * return stops the matching and is returned. */
typedef int (*ens__match_fn)(const ens_obj *a, const ens_obj *b, void *user);

/* Matches the tree under b to the tree under a top-down: a and b match
 * (whatever their keys: they are the roots), then the children of every
 * matched pair by ens__match_list. Under two document roots, the one
 * child of a kind on each side that the keys left over matches too (an
 * SVG file's <svg> element whose id changed). */
int ens__tree_match(const ens_obj *a, const ens_obj *b, ens_identity_fn identity, void *iuser, ens__match_fn fn,
                    void *user);

#endif
