/* Growable byte buffer used by every encoder. Owns its bytes; a failed
 * growth leaves the buffer as it was and sets its oom flag, so encoders
 * write freely and check once at the end. */
#ifndef ENS_UTIL_BUF_H
#define ENS_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  unsigned char *data;
  size_t len;
  size_t cap;
  int oom;
} ens_buf;

#define ENS_BUF_INIT {NULL, 0, 0, 0}

int ens__buf_reserve(ens_buf *b, size_t extra);
void ens__buf_append(ens_buf *b, const void *p, size_t n);
void ens__buf_putc(ens_buf *b, unsigned char c);
void ens__buf_puts(ens_buf *b, const char *s);
void ens__buf_printf(ens_buf *b, const char *fmt, ...);
/* The n bytes at s as a JSON string, quotes included: '"' and '\\'
 * escaped, control characters as \u00XX, other bytes as they are. */
void ens__buf_json_str(ens_buf *b, const char *s, size_t n);
/* Hands the bytes to the caller (NUL-terminated one past len). */
unsigned char *ens__buf_detach(ens_buf *b, size_t *len);
void ens__buf_free(ens_buf *b);

static inline int ens__buf_room(ens_buf *b, size_t n) {
  return (b->cap - b->len >= n) ? 1 : ens__buf_reserve(b, n) == 0;
}

#endif
