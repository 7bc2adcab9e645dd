/* Telegram's .tgs container: a Lottie animation compressed with gzip.
 * The reader inflates it and marks the document so that the writer
 * compresses again; the JSON inside comes back byte for byte, the gzip
 * bytes are zlib's (docs/lottie.md, "Containers"). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../util/error.h"
#include "lottie_int.h"

int ens__lj_gunzip(const void *data, size_t len, char **out, size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return ens__error(ENS_ENOMEM, "out of memory inflating .tgs");
  size_t cap = len * 4 + 1024, n = 0;
  char *buf = NULL;
  int rc = 0, zr = Z_OK;
  const unsigned char *in = data;
  size_t left = len;
  while (zr != Z_STREAM_END) {
    if (cap > ENS_LOTTIE_MAX_FILE + 1) cap = ENS_LOTTIE_MAX_FILE + 1;
    if (!buf || n == cap) {
      if (buf && cap == ENS_LOTTIE_MAX_FILE + 1) {
        rc = ens__error(ENS_ELIMIT, "line 1, column 1: the .tgs inflates to more than %zu bytes", ENS_LOTTIE_MAX_FILE);
        break;
      }
      if (buf) cap *= 2;
      if (cap > ENS_LOTTIE_MAX_FILE + 1) cap = ENS_LOTTIE_MAX_FILE + 1;
      char *nb = realloc(buf, cap);
      if (!nb) {
        rc = ens__error(ENS_ENOMEM, "out of memory inflating .tgs");
        break;
      }
      buf = nb;
    }
    uInt chunk = left > (1u << 30) ? (1u << 30) : (uInt)left;
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = chunk;
    size_t room = cap - n;
    z.next_out = (Bytef *)buf + n;
    z.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
    uInt before_out = z.avail_out;
    zr = inflate(&z, Z_NO_FLUSH);
    n += before_out - z.avail_out;
    in += chunk - z.avail_in;
    left -= chunk - z.avail_in;
    if (zr == Z_STREAM_END) break;
    if (zr == Z_BUF_ERROR && !left) zr = Z_DATA_ERROR; /* cut short */
    if (zr != Z_OK && zr != Z_BUF_ERROR) {
      rc = ens__error(ENS_EDECODE, "line 1, column 1: a .tgs (gzip) stream that does not inflate: %s",
                      z.msg ? z.msg : "cut short");
      break;
    }
  }
  /* what follows the gzip member: another member (concatenated gzip) or
   * junk the writer would drop, so the file would not come back whole */
  if (!rc && left)
    rc = ens__error(ENS_EDECODE, "line 1, column 1: %zu bytes after the end of the .tgs (gzip) stream", left);
  inflateEnd(&z);
  if (rc) {
    free(buf);
    return rc;
  }
  *out = buf;
  *out_len = n;
  return 0;
}

int ens__lj_gzip(const unsigned char *in, size_t n, unsigned char **out, size_t *out_len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return ens__error(ENS_ENOMEM, "out of memory compressing .tgs");
  size_t cap = deflateBound(&z, (uLong)n) + 64;
  unsigned char *buf = malloc(cap + 1);
  if (!buf || n > (1u << 30)) {
    deflateEnd(&z);
    free(buf);
    return ens__error(n > (1u << 30) ? ENS_ELIMIT : ENS_ENOMEM, "cannot compress %zu bytes as .tgs", n);
  }
  z.next_in = (Bytef *)(uintptr_t)in;
  z.avail_in = (uInt)n;
  z.next_out = buf;
  z.avail_out = (uInt)cap;
  int zr = deflate(&z, Z_FINISH);
  size_t got = cap - z.avail_out;
  deflateEnd(&z);
  if (zr != Z_STREAM_END) {
    free(buf);
    return ens__error(ENS_ENOMEM, "compressing .tgs failed");
  }
  buf[got] = 0;
  *out = buf;
  *out_len = got;
  return 0;
}
