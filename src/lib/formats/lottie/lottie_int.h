/* Private to the Lottie reader, writer and rules: the strict JSON scanner
 * that cuts text into values with their exact byte spans, value decoding
 * shared by reader and writer, and the keys every file here shares. */
#ifndef ENS_FORMATS_LOTTIE_INT_H
#define ENS_FORMATS_LOTTIE_INT_H

#include <stddef.h>
#include <string.h>
#include <stdint.h>

#include "../../model/doc.h"
#include "../../util/buf.h"
#include "ensemble/lottie.h"

#define ENS__LJ_NONE UINT32_MAX

enum { LJ_OBJ, LJ_ARR, LJ_STR, LJ_NUM, LJ_TRUE, LJ_FALSE, LJ_NULL };

/* One JSON value of the text, in document order. */
typedef struct {
  uint32_t parent, next, first; /* node indices, ENS__LJ_NONE when absent */
  uint32_t nkids, nobjs;        /* elements or members; how many are objects */
  uint32_t npromoted;           /* kids that become objects of the model */
  uint8_t type;
  uint8_t promoted; /* becomes an object of the model */
  const char *s;    /* the value's text */
  size_t n;
  const char *key; /* a member's key string, quotes included; NULL in an array */
  size_t key_n;
  ens_obj *obj;
} ens__lj_node;

typedef struct {
  ens__lj_node *v;
  size_t n, cap;
} ens__lj_nodes;

/* Scans text (well-formed JSON, strictly RFC 8259: UTF-8, no lone
 * surrogate escape) into nodes (when nodes is not NULL). template != 0
 * also accepts '@' as a value (kept text with its children cut out) and
 * blanks around the top value are always allowed. Errors: ENS_EDECODE or
 * ENS_ELIMIT with "line L, column C: ..." counted in text. */
int ens__lj_scan(const char *text, size_t n, int template_, ens__lj_nodes *nodes);

/* The end of the value at p (p at its first byte), in text already
 * scanned; NULL when it is not one. '@' is a value of its own. */
const char *ens__lj_skip(const char *p, const char *end);
static inline int ens__lj_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The model's value for the scalar text (s, n) (scanned): a string decoded
 * (into scratch, which the value then points into), a number as INT when
 * written as an integer that fits, else REAL, true/false as BOOL, anything
 * else (null) as BYTES of its own text. Arrays are the reader's (their
 * canonical text, ens__lj_canon). 0 or ENS_ENOMEM. */
int ens__lj_value(const char *s, size_t n, ens_buf *scratch, ens_value *out);
/* The canonical text of a scanned value (an array of values): no blanks,
 * strings escaped as the writer escapes them, numbers written as the
 * writer writes them (integers as integers, others the shortest that
 * reads back the same), appended to out. An array's property holds this,
 * so that a file written again by another program with other blanks or
 * number spellings holds the same values. 0, or an error. */
int ens__lj_canon(const char *s, size_t n, ens_buf *out);
/* Decodes a string token (quotes included) into out. 0 or ENS_ENOMEM. */
int ens__lj_unescape(const char *s, size_t n, ens_buf *out);
/* 1 when the text (s, n) reads back as exactly v. */
int ens__lj_same(const char *s, size_t n, const ens_value *v, ens_buf *scratch);
/* Writes v as JSON; ENS_EFORMAT for what JSON cannot hold (a non-finite
 * number, a reference). */
int ens__lj_put_value(ens_buf *out, const ens_value *v);
void ens__lj_put_string(ens_buf *out, const char *s, size_t n);

/* The property key of a member named (s, n) (decoded) written into buf
 * (ENS_MAX_KEY bytes): the name, or '%' and the name when it is empty or
 * starts with '~' (the reader's own keys), '@' (the model's local-only
 * keys) or '%'. Its length, or 0 when too long or holds NUL. */
size_t ens__lj_prop_key(const char *s, size_t n, char *buf);
/* The member name of a property key (NULL for the reader's own '~' keys
 * and for '%' keys that no member maps to). */
const char *ens__lj_member_name(const char *key);

/* Whether an array whose member name is (key, key_n) (decoded; NULL in an
 * array) with nkids elements, nobjs of them objects, becomes a list. */
int ens__lj_promote_array(const char *key, size_t key_n, uint32_t nkids, uint32_t nobjs);

/* "line L, column C" of p in text, for messages. */
void ens__lj_where(const char *text, const char *p, uint32_t *line, uint32_t *col);

int ens__lj_build(ens_doc *doc, const char *text, size_t n);

/* .tgs (tgs.c): whether data starts as gzip does; inflate (malloc'd, at
 * most ENS_LOTTIE_MAX_FILE bytes, nothing after the stream); deflate at
 * level 9 (malloc'd, NUL after). Errors with "line 1, column 1: ". */
#define ENS__LJ_CONTAINER "~container" /* root: "gzip" for a .tgs */
/* gzip's first bytes (inline, as ens__lj_is_zip). */
static inline int ens__lj_is_gzip(const void *data, size_t len) {
  const unsigned char *p = data;
  return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}
int ens__lj_gunzip(const void *data, size_t len, char **out, size_t *out_len);
int ens__lj_gzip(const unsigned char *in, size_t n, unsigned char **out, size_t *out_len);

/* dotLottie (dotlottie.c): whether data starts as a zip does; the
 * manifest's first animation's JSON (malloc'd) and its entry's name; the
 * archive zip with that entry's text made json (the archive itself, byte
 * for byte, when json is what it holds; malloc'd, NUL after). */
#define ENS__LJ_ZIP "~zip"     /* root: the whole .lottie archive as read */
#define ENS__LJ_ENTRY "~entry" /* root: the animation's entry in it */
/* A zip archive's first bytes (inline: the browser build has no libzip,
 * and its rules still tell an archive from other bytes). */
static inline int ens__lj_is_zip(const void *data, size_t len) {
  return len >= 4 && memcmp(data, "PK\x03\x04", 4) == 0;
}
int ens__lj_unzip(const void *data, size_t len, char **json, size_t *json_len, char *entry, size_t entry_size);
int ens__lj_rezip(const char *zip, size_t zn, const char *entry, const unsigned char *json, size_t jn,
                  unsigned char **out, size_t *out_len);
int ens__lj_write_doc(const ens_doc *doc, ens_buf *out);

/* Sets doc's container keys (ENS__LJ_CONTAINER, ENS__LJ_ZIP,
 * ENS__LJ_ENTRY) to from's, removing those from lacks (container.c). */
int ens__lj_container_from(ens_doc *doc, const ens_doc *from);

#endif
