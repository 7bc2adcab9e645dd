/* Hashing primitives: a fast 64-bit hash of bytes and a 64-bit mixer, used
 * for hash tables and content hashes (not for security). */
#ifndef ENS_UTIL_HASH_H
#define ENS_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t ens__mix64(uint64_t x) {
  /* splitmix64 finaliser: every input bit affects every output bit. */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

static inline uint64_t ens__hash_combine(uint64_t h, uint64_t v) {
  return ens__mix64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

uint64_t ens__hash_bytes(const void *p, size_t n, uint64_t seed);

#endif
