/* What a session needs from the undo manager beyond its public API: its
 * pending steps are taken off and put back on beneath collaborators'
 * changes, or refused by the server, and the stacks must follow. A step
 * is named by its stamp, the document clock right after it applied, which
 * no other apply shares. */
#ifndef ENS_TXN_UNDO_INT_H
#define ENS_TXN_UNDO_INT_H

#include "ensemble/undo.h"

/* The step stamped `stamp` (on either stack) was put back on at new_stamp
 * with a new inverse (copied): it now undoes to the state beneath it,
 * collaborators' changes included, and changes made beneath it no longer
 * count as newer than it. 0, or ENS_ENOTFOUND when no step has that stamp. */
int ens__undo_restamp(ens_undo *undo, uint64_t stamp, uint64_t new_stamp, const ens_txn *inverse);

/* The step stamped `stamp` never happened (the server refused it): it
 * leaves whichever stack holds it. */
void ens__undo_forget(ens_undo *undo, uint64_t stamp);

#endif
