/* Placing a parent's children in a wanted order with few operations: the
 * second half of the document diff, shared with the three-way merge. */
#ifndef ENS_TXN_PLACE_H
#define ENS_TXN_PLACE_H

#include "../model/doc.h"

/* Called for an entry that must be placed: at index i of the wanted list,
 * at position pos (borrowed for the call), strictly between the staying
 * entries around it and after the entry placed before it. */
typedef int (*ens__place_fn)(size_t i, const char *pos, void *user);

/* The wanted children of one parent, in order: have[i] is the object that
 * entry i already is among the parent's children, or NULL (an object to
 * insert, or one to move in from elsewhere). The longest run of have[]
 * already in order stays where it is; place() is called for every other
 * entry, in order. Returns 0, ENS_ENOMEM or place()'s nonzero return. */
int ens__place_children(const ens_obj *const *have, size_t n, ens__place_fn place, void *user);

#endif
