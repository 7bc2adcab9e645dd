/* Random bytes from the kernel, for identities that must not collide
 * across processes and restarts: session epochs and client ids. */
#ifndef ENS_UTIL_RANDOM_H
#define ENS_UTIL_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/* Fills buf; 0 or ENS_EIO. */
int ens__random(void *buf, size_t len);
/* A random nonzero 64-bit number (falls back to time and pid mixing if the
 * kernel source fails, which is good enough for an epoch). */
uint64_t ens__random_u64(void);

#endif
