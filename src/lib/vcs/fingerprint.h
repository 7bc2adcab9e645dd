/* Fingerprints of documents for telling how far apart two versions of one
 * file are, whatever their ids: one small hash per object and one per
 * property, keyed by the object's place (kinds and ranks from the root).
 * The file mirror picks an editor's base with them. */
#ifndef ENS_VCS_FINGERPRINT_H
#define ENS_VCS_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "ensemble/model.h"

typedef struct {
  uint32_t *h; /* sorted */
  size_t n;
} ens__fp;

/* The fingerprint of doc (local-only properties left out). 0 or ENS_ENOMEM. */
int ens__fp_make(const ens_doc *doc, ens__fp *out);
/* How many entries one has and the other has not (a multiset difference):
 * 0 for documents that look alike, about the number of objects and
 * properties that differ otherwise. */
size_t ens__fp_distance(const ens__fp *a, const ens__fp *b);
void ens__fp_free(ens__fp *fp);

#endif
