/* UTF-8 as the formats need it judged: strictly valid, and which code
 * points are characters of XML. */
#ifndef ENS_UTIL_UTF8_H
#define ENS_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The code point at s[*i] (advancing *i), or -1 when the bytes there are
 * not strict UTF-8 (an overlong form, a surrogate, beyond U+10FFFF, cut
 * short). i < n. */
int32_t ens__utf8_next(const char *s, size_t n, size_t *i);

/* 1 when (s, n) is strict UTF-8 throughout. */
int ens__utf8_valid(const char *s, size_t n);

/* 1 when c is a Char of XML 1.0: tab, line feed, carriage return, and
 * U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF. */
static inline int ens__xml_char(int32_t c) {
  return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) ||
         (c >= 0x10000 && c <= 0x10ffff);
}

#endif
