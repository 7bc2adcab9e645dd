/* Strict UTF-8 decoding, for the rules that judge values a file format
 * must be able to write and read back unchanged. */
#include "utf8.h"

int32_t ens__utf8_next(const char *s, size_t n, size_t *i) {
  const unsigned char *u = (const unsigned char *)s;
  unsigned c = u[*i];
  if (c < 0x80) {
    (*i)++;
    return (int32_t)c;
  }
  size_t k = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
  if (!k || k >= n - *i) return -1;
  uint32_t cp = c & (0x3fu >> k);
  for (size_t j = 1; j <= k; j++) {
    if ((u[*i + j] & 0xc0) != 0x80) return -1;
    cp = (cp << 6) | (u[*i + j] & 0x3f);
  }
  if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
    return -1;
  *i += k + 1;
  return (int32_t)cp;
}

int ens__utf8_valid(const char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    if ((unsigned char)s[i] < 0x80) {
      i++;
      continue;
    }
    if (ens__utf8_next(s, n, &i) < 0) return 0;
  }
  return 1;
}
