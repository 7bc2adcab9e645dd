/* Placing children: a longest increasing run of the objects already there
 * (O(n log n)) stays, the rest get positions between their staying
 * neighbours. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "place.h"

/* Marks in stable[] the longest run of have[] (in the wanted order) that is
 * already in order among the parent's children. */
static int s_mark_stable(const ens_obj *const *have, size_t n, char *stable) {
  size_t *tails = malloc((n + 1) * sizeof *tails), *prev = malloc((n + 1) * sizeof *prev), len = 0;
  size_t *rank = malloc((n + 1) * sizeof *rank);
  if (!tails || !prev || !rank) {
    free(tails);
    free(prev);
    free(rank);
    return ens__error(ENS_ENOMEM, "out of memory placing children");
  }
  for (size_t i = 0; i < n; i++) rank[i] = have[i] ? ens_obj_index(have[i]) : 0;
  for (size_t i = 0; i < n; i++) {
    if (!have[i]) continue;
    size_t lo = 0, hi = len;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (rank[tails[mid]] < rank[i]) lo = mid + 1;
      else hi = mid;
    }
    prev[i] = lo ? tails[lo - 1] : (size_t)-1;
    tails[lo] = i;
    if (lo == len) len++;
  }
  for (size_t i = len ? tails[len - 1] : (size_t)-1; i != (size_t)-1; i = prev[i]) stable[i] = 1;
  /* Two stable neighbours with equal positions (a tie broken by id) leave
   * no position between them: when something must go there, the right one
   * moves too. */
  size_t last = (size_t)-1;
  int gap = 0;
  for (size_t i = 0; i < n; i++) {
    if (!stable[i]) {
      gap = 1;
      continue;
    }
    if (gap && last != (size_t)-1 && strcmp(ens__obj_pos(have[last]), ens__obj_pos(have[i])) >= 0) {
      stable[i] = 0;
      continue;
    }
    last = i;
    gap = 0;
  }
  free(tails);
  free(prev);
  free(rank);
  return 0;
}

int ens__place_children(const ens_obj *const *have, size_t n, ens__place_fn place, void *user) {
  if (!n) return 0;
  char *stable = calloc(n, 1);
  size_t *next = malloc(n * sizeof *next);
  int rc = stable && next ? s_mark_stable(have, n, stable) : ens__error(ENS_ENOMEM, "out of memory placing children");
  if (rc) goto done;
  /* next[i]: the first stable entry after i, or n */
  for (size_t i = n, after = n; i-- > 0;) {
    next[i] = after;
    if (stable[i]) after = i;
  }
  const char *prev_pos = NULL;
  char *owned_prev = NULL;
  for (size_t i = 0; i < n && !rc; i++) {
    if (stable[i]) {
      prev_pos = ens__obj_pos(have[i]);
      continue;
    }
    char *pos = ens_pos_between(prev_pos, next[i] < n ? ens__obj_pos(have[next[i]]) : NULL);
    if (!pos) {
      rc = ens__error(ENS_ENOMEM, "out of memory placing children");
      break;
    }
    rc = place(i, pos, user);
    free(owned_prev);
    owned_prev = pos;
    prev_pos = pos;
  }
  free(owned_prev);
done:
  free(stable);
  free(next);
  return rc;
}
