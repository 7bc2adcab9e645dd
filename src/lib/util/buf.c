/* Growable byte buffer (see buf.h). */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ens__buf_reserve(ens_buf *b, size_t extra) {
  if (b->oom) return -1;
  if (b->cap - b->len >= extra + 1) return 0;
  if (extra > SIZE_MAX / 2 - b->len) { b->oom = 1; return -1; }
  size_t want = b->len + extra + 1;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < want) cap *= 2;
  unsigned char *p = realloc(b->data, cap);
  if (!p) { b->oom = 1; return -1; }
  b->data = p;
  b->cap = cap;
  return 0;
}

void ens__buf_append(ens_buf *b, const void *p, size_t n) {
  if (n == 0 || ens__buf_reserve(b, n) != 0) return;
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

void ens__buf_putc(ens_buf *b, unsigned char c) {
  if (ens__buf_reserve(b, 1) != 0) return;
  b->data[b->len++] = c;
}

void ens__buf_puts(ens_buf *b, const char *s) { ens__buf_append(b, s, strlen(s)); }

void ens__buf_printf(ens_buf *b, const char *fmt, ...) {
  char small[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) { b->oom = 1; return; }
  if ((size_t)n < sizeof small) { ens__buf_append(b, small, (size_t)n); return; }
  if (ens__buf_reserve(b, (size_t)n + 1) != 0) return;
  va_start(ap, fmt);
  vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

unsigned char *ens__buf_detach(ens_buf *b, size_t *len) {
  if (b->oom) { ens__buf_free(b); return NULL; }
  if (ens__buf_reserve(b, 0) != 0) return NULL;
  b->data[b->len] = 0;
  unsigned char *p = b->data;
  if (len) *len = b->len;
  b->data = NULL;
  b->len = b->cap = 0;
  return p;
}

void ens__buf_free(ens_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

void ens__buf_json_str(ens_buf *b, const char *s, size_t n) {
  ens__buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s, *end = p + n; p < end; p++) {
    if (*p == '"' || *p == '\\') {
      ens__buf_putc(b, '\\');
      ens__buf_putc(b, *p);
    } else if (*p < 0x20) {
      ens__buf_printf(b, "\\u%04x", *p);
    } else {
      ens__buf_putc(b, *p);
    }
  }
  ens__buf_putc(b, '"');
}
