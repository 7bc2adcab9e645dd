/* The id map of idtab.h: linear probing over a table at most half full. */
#include "idtab.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hash.h"

int ens__idtab_reserve(ens__idtab *m, size_t n) {
  size_t cap = m->cap ? m->cap : 64;
  while (cap < n * 2) {
    if (cap > SIZE_MAX / 4 / sizeof(uint64_t)) return ens__error(ENS_ENOMEM, "out of memory: too many objects");
    cap *= 2;
  }
  if (cap == m->cap) return 0;
  ens_id *k = calloc(cap, sizeof *k);
  uint64_t *v = malloc(cap * sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return ens__error(ENS_ENOMEM, "out of memory mapping objects");
  }
  for (size_t j = 0; j < m->cap; j++) {
    if (!m->keys[j]) continue;
    size_t i = (size_t)ens__mix64(m->keys[j]) & (cap - 1);
    while (k[i]) i = (i + 1) & (cap - 1);
    k[i] = m->keys[j];
    v[i] = m->vals[j];
  }
  free(m->keys);
  free(m->vals);
  m->keys = k;
  m->vals = v;
  m->cap = cap;
  return 0;
}

int ens__idtab_put(ens__idtab *m, ens_id key, uint64_t val) {
  if ((m->count + 1) * 2 > m->cap) {
    int rc = ens__idtab_reserve(m, m->count + 1);
    if (rc) return rc;
  }
  size_t i = (size_t)ens__mix64(key) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) m->count++;
  m->keys[i] = key;
  m->vals[i] = val;
  return 0;
}

int ens__idtab_find(const ens__idtab *m, ens_id key, uint64_t *val) {
  if (!m->cap || !key) return 0;
  size_t i = (size_t)ens__mix64(key) & (m->cap - 1);
  while (m->keys[i]) {
    if (m->keys[i] == key) {
      *val = m->vals[i];
      return 1;
    }
    i = (i + 1) & (m->cap - 1);
  }
  return 0;
}

void ens__idtab_free(ens__idtab *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}
