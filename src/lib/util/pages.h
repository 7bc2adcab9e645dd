/* Memory for bulk loads straight from the kernel, in regions that start on
 * a huge-page boundary and ask for transparent huge pages: a document of
 * tens of megabytes then costs a few dozen page faults instead of
 * thousands, and the first touch of fresh memory is most of what a first
 * load in a fresh process pays (docs/performance.md). */
#ifndef ENS_UTIL_PAGES_H
#define ENS_UTIL_PAGES_H

#include <stddef.h>

/* Size of a transparent huge page on the platforms this is tuned for. */
#define ENS__HUGE_PAGE ((size_t)2 << 20)

/* A zeroed region of at least size bytes (rounded up to whole huge pages,
 * which cost nothing until touched), or NULL. Free with ens__pages_free
 * and the same size. */
void *ens__pages_alloc(size_t size);
void ens__pages_free(void *p, size_t size);

#endif
