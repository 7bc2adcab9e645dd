/* A table from object ids to 64-bit values (an id, an index, a pointer),
 * open addressing, for the diff, the semantic diff and the merge, which
 * each keep several per comparison. Id 0 (ENS_ID_NONE) is never a key. */
#ifndef ENS_UTIL_IDTAB_H
#define ENS_UTIL_IDTAB_H

#include <stddef.h>
#include <stdint.h>

#include "ensemble/common.h"

typedef struct {
  ens_id *keys; /* 0: an empty slot */
  uint64_t *vals;
  size_t cap, count; /* cap: a power of two, at least twice count */
} ens__idtab;

/* Room for n entries in all, so that many puts do not grow the table one
 * doubling at a time. 0 or ENS_ENOMEM. */
int ens__idtab_reserve(ens__idtab *m, size_t n);
/* Sets key's value (key != 0). 0 or ENS_ENOMEM (the map unchanged). */
int ens__idtab_put(ens__idtab *m, ens_id key, uint64_t val);
/* 1 with *val set when key is in the map, else 0. */
int ens__idtab_find(const ens__idtab *m, ens_id key, uint64_t *val);
/* Frees the tables; the map is empty and usable again. */
void ens__idtab_free(ens__idtab *m);

#endif
