/* Observers: every applied transaction, local or remote, reaches each
 * registered callback with its origin and whether a session should send
 * it. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "ops.h"

int ens_doc_observe(ens_doc *doc, ens_observer_fn fn, void *user) {
  if (!doc || !fn) return ens__error(ENS_EINVAL, "observe needs a document and a callback");
  ens__observer *obs = realloc(doc->observers, (doc->nobservers + 1) * sizeof *obs);
  if (!obs) return ens__error(ENS_ENOMEM, "out of memory adding an observer");
  doc->observers = obs;
  obs[doc->nobservers].fn = fn;
  obs[doc->nobservers].user = user;
  obs[doc->nobservers].handle = doc->next_handle++;
  return obs[doc->nobservers++].handle;
}

void ens_doc_unobserve(ens_doc *doc, int handle) {
  for (size_t i = 0; i < doc->nobservers; i++) {
    if (doc->observers[i].handle != handle) continue;
    /* keep registration order: observers are called in it */
    memmove(doc->observers + i, doc->observers + i + 1, (doc->nobservers - i - 1) * sizeof *doc->observers);
    doc->nobservers--;
    return;
  }
}

void ens__doc_notify(ens_doc *doc, const ens_txn *txn, const ens_txn *inverse, ens_origin origin) {
  if (!doc->nobservers) return;
  ens_event ev;
  ev.origin = origin;
  ev.sendable = !txn->local_only &&
                (origin == ENS_ORIGIN_LOCAL || origin == ENS_ORIGIN_UNDO || origin == ENS_ORIGIN_REDO);
  ev.txn = txn;
  ev.inverse = inverse;
  for (size_t i = 0; i < doc->nobservers; i++) doc->observers[i].fn(doc, &ev, doc->observers[i].user);
}
