/* 64-bit byte hash: eight bytes at a time through the splitmix finaliser. */
#include "hash.h"

#include <string.h>

uint64_t ens__hash_bytes(const void *p, size_t n, uint64_t seed) {
  const unsigned char *s = p;
  uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = ens__mix64(h ^ w) + 0x632be59bd9b4e019ULL;
    s += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  for (size_t i = 0; i < n; i++) tail |= (uint64_t)s[i] << (8 * i);
  return ens__mix64(h ^ tail ^ ((uint64_t)n << 56));
}
