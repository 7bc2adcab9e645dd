/* The record of one version of a mirrored file that a host keeps beside
 * the file (mirror_int.h): fixed little-endian fields, the version's
 * snapshot and a checksum of everything before it, so that a damaged or
 * foreign file is refused rather than trusted as a base. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/hash.h"
#include "mirror_int.h"

#define MAGIC "ENSMIRR1"
#define MAGIC_LEN 8
#define FIXED (MAGIC_LEN + 5 * 8 + 1 + 1 + 8) /* magic, five numbers, origin, format length, snapshot length */
#define CHECK_SEED 0x6d6972726f72ULL

uint64_t ens__mirror_bytes_hash(const void *data, size_t len) { return ens__hash_bytes(data, len, 0x66696c65ULL); }

static void s_put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t s_get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

int ens__mirror_state_write(const ens__mirror_state *st, unsigned char **out, size_t *len) {
  *out = NULL;
  *len = 0;
  size_t flen = strnlen(st->format, sizeof st->format);
  if (flen >= sizeof st->format) return ens__error(ENS_EINVAL, "mirror state: format name too long");
  size_t n = FIXED + flen + st->snap_len + 8;
  unsigned char *b = malloc(n), *p = b;
  if (!b) return ens__error(ENS_ENOMEM, "out of memory encoding a mirror state");
  memcpy(p, MAGIC, MAGIC_LEN);
  p += MAGIC_LEN;
  const uint64_t nums[5] = {st->epoch, st->seq, st->file_hash, st->file_len, st->doc_hash};
  for (int i = 0; i < 5; i++, p += 8) s_put64(p, nums[i]);
  *p++ = st->origin;
  *p++ = (unsigned char)flen;
  memcpy(p, st->format, flen);
  p += flen;
  s_put64(p, st->snap_len);
  p += 8;
  if (st->snap_len) memcpy(p, st->snap, st->snap_len);
  p += st->snap_len;
  s_put64(p, ens__hash_bytes(b, (size_t)(p - b), CHECK_SEED));
  *out = b;
  *len = n;
  return 0;
}

int ens__mirror_state_read(const void *data, size_t len, ens__mirror_state *st) {
  const unsigned char *b = data, *p = b;
  memset(st, 0, sizeof *st);
  if (!data || len < FIXED + 8 || memcmp(p, MAGIC, MAGIC_LEN) != 0)
    return ens__error(ENS_EDECODE, "not a mirror state (no \"" MAGIC "\" header)");
  p += MAGIC_LEN;
  uint64_t nums[5];
  for (int i = 0; i < 5; i++, p += 8) nums[i] = s_get64(p);
  uint8_t origin = *p++;
  size_t flen = *p++;
  if (flen >= sizeof st->format || (size_t)(p - b) + flen + 8 + 8 > len)
    return ens__error(ENS_EDECODE, "mirror state: bad format name");
  memcpy(st->format, p, flen);
  st->format[flen] = '\0';
  p += flen;
  uint64_t snap_len = s_get64(p);
  p += 8;
  size_t left = len - (size_t)(p - b);
  if (snap_len != left - 8) return ens__error(ENS_EDECODE, "mirror state: truncated or too long");
  if (s_get64(p + snap_len) != ens__hash_bytes(b, (size_t)(p - b) + snap_len, CHECK_SEED))
    return ens__error(ENS_EDECODE, "mirror state: checksum mismatch (the file is damaged)");
  st->epoch = nums[0];
  st->seq = nums[1];
  st->file_hash = nums[2];
  st->file_len = nums[3];
  st->doc_hash = nums[4];
  st->origin = origin;
  st->snap = p;
  st->snap_len = (size_t)snap_len;
  return 0;
}
