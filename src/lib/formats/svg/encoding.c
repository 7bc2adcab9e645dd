/* Encodings other than UTF-8: the model holds UTF-8, so a file in
 * ISO-8859-1, windows-1251 or UTF-16 is converted on the way in and back
 * on the way out (iconv, as libxml2 itself uses on Debian). */
#define _GNU_SOURCE
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../util/error.h"
#include "svg_int.h"

const char *ens__svg_declared_encoding(const char *data, size_t len, char *buf, size_t size) {
  if (len < 6 || memcmp(data, "<?xml", 5) != 0) return NULL;
  size_t lim = len < 4096 ? len : 4096;
  const char *end = memmem(data, lim, "?>", 2);
  if (!end) return NULL;
  const char *p = memmem(data, (size_t)(end - data), "encoding", 8);
  if (!p) return NULL;
  p += 8;
  while (p < end && (*p == ' ' || *p == '=' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  if (p >= end || (*p != '"' && *p != '\'')) return NULL;
  const char *q = memchr(p + 1, *p, (size_t)(end - p - 1));
  if (!q || (size_t)(q - p - 1) >= size || q == p + 1) return NULL;
  size_t n = (size_t)(q - p - 1);
  memcpy(buf, p + 1, n);
  buf[n] = '\0';
  static const char *const utf8[] = {"UTF-8", "UTF8", "US-ASCII", "ASCII", "UTF-16", "UTF16"};
  for (size_t i = 0; i < sizeof utf8 / sizeof utf8[0]; i++)
    if (strcasecmp(buf, utf8[i]) == 0) return NULL; /* UTF-16 is known by its byte order mark */
  return buf;
}

int ens__svg_iconv(const char *from, const char *to, const char *in, size_t n, char **out, size_t *out_n) {
  *out = NULL;
  *out_n = 0;
  iconv_t cd = iconv_open(to, from);
  if (cd == (iconv_t)-1) return ens__error(ENS_EDECODE, "line 1: unknown encoding %s", strcmp(to, "UTF-8") ? to : from);
  size_t cap = n * 2 + 16, used = 0;
  char *buf = malloc(cap);
  int rc = 0;
  char *ip = (char *)in;
  size_t il = n;
  while (buf) {
    char *op = buf + used;
    size_t ol = cap - used;
    size_t k = iconv(cd, &ip, &il, &op, &ol);
    used = (size_t)(op - buf);
    if (k != (size_t)-1) break;
    if (errno == E2BIG) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) break;
      buf = nb;
      cap *= 2;
      continue;
    }
    rc = ens__error(ENS_EDECODE, "byte %zu: text that %s cannot hold", (size_t)(ip - in), strcmp(to, "UTF-8") ? to : from);
    break;
  }
  iconv_close(cd);
  if (!buf) return ens__error(ENS_ENOMEM, "out of memory converting %s", from);
  if (rc) {
    free(buf);
    return rc;
  }
  *out = buf;
  *out_n = used;
  return 0;
}
