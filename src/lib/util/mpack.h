/* A small MessagePack writer and a bounds-checked, allocation-free reader.
 * Ensemble writes its own instead of using msgpack-c's unpacker because the
 * decoders want to read straight into the model without building an object
 * tree first, and every read must stop cleanly on hostile input: the reader
 * keeps a sticky error flag, so a decoder checks once at the end. */
#ifndef ENS_UTIL_MPACK_H
#define ENS_UTIL_MPACK_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

void ens__mp_nil(ens_buf *b);
void ens__mp_bool(ens_buf *b, int v);
void ens__mp_int(ens_buf *b, int64_t v);
void ens__mp_uint(ens_buf *b, uint64_t v);
void ens__mp_double(ens_buf *b, double v);
void ens__mp_str(ens_buf *b, const char *s, size_t n);
void ens__mp_bin(ens_buf *b, const void *p, size_t n);
void ens__mp_array(ens_buf *b, uint32_t n);
void ens__mp_map(ens_buf *b, uint32_t n);
void ens__mp_ext(ens_buf *b, int8_t type, const void *p, uint32_t n);

typedef enum {
  ENS_MP_NIL,
  ENS_MP_BOOL,
  ENS_MP_INT,  /* fits int64 */
  ENS_MP_UINT, /* above INT64_MAX */
  ENS_MP_FLOAT,
  ENS_MP_STR,
  ENS_MP_BIN,
  ENS_MP_ARRAY,
  ENS_MP_MAP,
  ENS_MP_EXT,
  ENS_MP_ERROR
} ens_mp_type;

typedef struct {
  ens_mp_type type;
  union {
    int b;
    int64_t i;
    uint64_t u;
    double f;
    uint32_t n; /* array / map element count */
  } v;
  const unsigned char *data; /* str, bin, ext payload */
  uint32_t len;
  int8_t ext_type;
} ens_mp_item;

typedef struct {
  const unsigned char *p;
  const unsigned char *end;
  int err;
  const char *why;             /* first failure */
  const unsigned char *fail_at; /* start of the item that failed */
  const unsigned char *item;    /* start of the item being read */
} ens_mp_reader;

static inline void ens__mp_reader_init(ens_mp_reader *r, const void *data, size_t len) {
  r->p = (const unsigned char *)data;
  r->end = len ? r->p + len : r->p; /* no bytes may come as NULL, and NULL + 0 is undefined */
  r->err = 0;
  r->why = NULL;
  r->fail_at = r->item = r->p;
}

/* Reads the next item's header (and the payload pointer for str/bin/ext);
 * containers are entered: their elements follow. On error returns
 * ENS_MP_ERROR and every later read fails too. */
ens_mp_type ens__mp_read(ens_mp_reader *r, ens_mp_item *it);
/* Skip one whole item, containers included, up to depth levels deep. */
void ens__mp_skip(ens_mp_reader *r, int depth);
void ens__mp_fail(ens_mp_reader *r, const char *why);

/* Typed reads: fail (sticky) when the next item has another type. */
uint32_t ens__mp_read_array(ens_mp_reader *r);
uint32_t ens__mp_read_map(ens_mp_reader *r);
int64_t ens__mp_read_int(ens_mp_reader *r);
uint64_t ens__mp_read_uint(ens_mp_reader *r); /* any non-negative integer */
/* A string; *len gets its length, the result points into the input. */
const char *ens__mp_read_str(ens_mp_reader *r, uint32_t *len);

#endif
