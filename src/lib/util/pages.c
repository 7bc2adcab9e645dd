/* Huge-page regions for bulk loads (pages.h). Where the kernel has no
 * transparent huge pages, or has none free, the same region is served in
 * ordinary pages: slower to fault in, never wrong. */
#define _GNU_SOURCE
#include "pages.h"

#include <stdint.h>
#include <sys/mman.h>

static size_t s_round(size_t size) { return (size + ENS__HUGE_PAGE - 1) & ~(ENS__HUGE_PAGE - 1); }

void *ens__pages_alloc(size_t size) {
  if (!size || size > SIZE_MAX / 2) return NULL;
  size_t n = s_round(size);
  /* map one huge page more and trim, so that the region starts on a
   * huge-page boundary: only aligned 2 MiB ranges can be huge pages */
  char *raw = mmap(NULL, n + ENS__HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  char *p = (char *)(((uintptr_t)raw + ENS__HUGE_PAGE - 1) & ~(uintptr_t)(ENS__HUGE_PAGE - 1));
  if (p > raw) munmap(raw, (size_t)(p - raw));
  size_t tail = (size_t)(raw + n + ENS__HUGE_PAGE - (p + n));
  if (tail) munmap(p + n, tail);
#ifdef MADV_HUGEPAGE
  madvise(p, n, MADV_HUGEPAGE); /* advice only: a refusal leaves ordinary pages */
#endif
  return p;
}

void ens__pages_free(void *p, size_t size) {
  if (p) munmap(p, s_round(size));
}
