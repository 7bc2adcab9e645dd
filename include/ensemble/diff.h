/* Ensemble document diff: the small transaction that turns document A into
 * document B, matching objects by the identity keys their format gives. */
#ifndef ENSEMBLE_DIFF_H
#define ENSEMBLE_DIFF_H

#include "txn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Identity key of obj among its siblings, written into key (NUL-terminated,
 * at most key_size bytes including the NUL). Return 0 when the object has
 * no key (it is then never matched: deleted in A, inserted from B), 2 when
 * the key is a name (it says which object this is wherever it stands: a
 * glyph's name, an element's id), 1 when it is only a place (the third
 * contour). The diff matches both alike; the three-way merge matches
 * objects two sides inserted concurrently only by names (ensemble/merge.h).
 * Two siblings may share a key; they are then matched in order. */
typedef int (*ens_identity_fn)(const ens_obj *obj, char *key, size_t key_size, void *user);

/* A transaction that turns a into b's content (ens_doc_content_hash of a
 * after applying it equals b's). Matched objects (same kind, same key,
 * under matched parents; the roots always match) get set and move
 * operations; the others delete and insert. Inserted objects get fresh ids
 * of a's site (a's id counter advances; nothing else of a changes) and
 * references into b are rewritten to the matching objects of a. The caller
 * owns *out. */
int ens_doc_diff(ens_doc *a, const ens_doc *b, ens_identity_fn identity, void *user, ens_txn **out);

#ifdef __cplusplus
}
#endif
#endif
