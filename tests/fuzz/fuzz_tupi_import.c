/* Fuzz target: ens_tupi_import on untrusted projects. An input that starts
 * with "PK" is taken as the .tup itself (zip structure fuzzed); any other
 * is split at lines "----" into project.tpp, scene0.tps, library.tpl,
 * scene1.tps, ... and stored in a zip here, so that mutations reach the
 * XML and the mapping rather than dying at a CRC. A refused project gives
 * a message and no result; an imported one gives well-formed JSON (checked
 * here by a strict reader) and notes each with a sentence, a place and a
 * count. See docs/tupi.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

/* --- a stored (uncompressed) zip -------------------------------------------- */

typedef struct {
  uint8_t *p;
  size_t n, cap;
} s_out;

static void s_put(s_out *o, const void *p, size_t n) {
  if (o->n + n > o->cap) {
    o->cap = (o->n + n) * 2 + 64;
    o->p = realloc(o->p, o->cap);
    FZ_CHECK(o->p != NULL, "out of memory");
  }
  memcpy(o->p + o->n, p, n);
  o->n += n;
}

static void s_u16(s_out *o, uint32_t v) {
  uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  s_put(o, b, 2);
}

static void s_u32(s_out *o, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  s_put(o, b, 4);
}

static uint32_t s_crc(const uint8_t *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

#define S_MAX_PARTS 8

static uint8_t *s_zip(const uint8_t *data, size_t size, size_t *len) {
  const char *names[S_MAX_PARTS] = {"p/project.tpp", "p/scene0.tps", "p/library.tpl", "p/scene1.tps",
                                    "p/scene2.tps",  "p/scene3.tps", "p/scene4.tps",  "p/scene5.tps"};
  const uint8_t *part[S_MAX_PARTS];
  size_t plen[S_MAX_PARTS], nparts = 0, start = 0;
  static const char sep[] = "\n----\n";
  for (size_t i = 0; i <= size && nparts < S_MAX_PARTS; i++) {
    if (i == size || (nparts < S_MAX_PARTS - 1 && size - i >= 6 && memcmp(data + i, sep, 6) == 0)) {
      part[nparts] = data + start;
      plen[nparts++] = (i == size ? size : i) - start;
      start = i + 6;
      if (i == size) break;
      i += 5;
    }
  }
  s_out z = {0}, cd = {0};
  uint32_t offs[S_MAX_PARTS];
  for (size_t i = 0; i < nparts; i++) {
    uint32_t crc = s_crc(part[i], plen[i]);
    size_t nl = strlen(names[i]);
    offs[i] = (uint32_t)z.n;
    s_u32(&z, 0x04034b50);
    s_u16(&z, 20), s_u16(&z, 0), s_u16(&z, 0), s_u16(&z, 0), s_u16(&z, 0);
    s_u32(&z, crc), s_u32(&z, (uint32_t)plen[i]), s_u32(&z, (uint32_t)plen[i]);
    s_u16(&z, (uint32_t)nl), s_u16(&z, 0);
    s_put(&z, names[i], nl);
    if (plen[i]) s_put(&z, part[i], plen[i]);
    s_u32(&cd, 0x02014b50);
    s_u16(&cd, 20), s_u16(&cd, 20), s_u16(&cd, 0), s_u16(&cd, 0), s_u16(&cd, 0), s_u16(&cd, 0);
    s_u32(&cd, crc), s_u32(&cd, (uint32_t)plen[i]), s_u32(&cd, (uint32_t)plen[i]);
    s_u16(&cd, (uint32_t)nl), s_u16(&cd, 0), s_u16(&cd, 0), s_u16(&cd, 0), s_u16(&cd, 0);
    s_u32(&cd, 0), s_u32(&cd, offs[i]);
    s_put(&cd, names[i], nl);
  }
  uint32_t cdoff = (uint32_t)z.n;
  s_put(&z, cd.p, cd.n);
  s_u32(&z, 0x06054b50);
  s_u16(&z, 0), s_u16(&z, 0), s_u16(&z, (uint32_t)nparts), s_u16(&z, (uint32_t)nparts);
  s_u32(&z, (uint32_t)cd.n), s_u32(&z, cdoff), s_u16(&z, 0);
  free(cd.p);
  *len = z.n;
  return z.p;
}

/* --- a strict JSON reader (RFC 8259), for the output ------------------------ */

typedef struct {
  const char *p, *end;
} s_js;

static void s_ws(s_js *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t')) j->p++;
}

static int s_value(s_js *j, int depth);

static int s_string(s_js *j) {
  if (j->p >= j->end || *j->p != '"') return 0;
  for (j->p++; j->p < j->end; j->p++) {
    unsigned char c = (unsigned char)*j->p;
    if (c == '"') {
      j->p++;
      return 1;
    }
    if (c < 0x20) return 0;
    if (c == '\\') {
      if (++j->p >= j->end) return 0;
      if (*j->p == 'u') {
        for (int k = 0; k < 4; k++)
          if (++j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p)) return 0;
      } else if (!strchr("\"\\/bfnrt", *j->p)) {
        return 0;
      }
    }
  }
  return 0;
}

static int s_digits(s_js *j) {
  const char *s = j->p;
  while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
  return j->p > s;
}

static int s_number(s_js *j) {
  if (j->p < j->end && *j->p == '-') j->p++;
  if (j->p < j->end && *j->p == '0') j->p++;
  else if (!s_digits(j)) return 0;
  if (j->p < j->end && *j->p == '.') {
    j->p++;
    if (!s_digits(j)) return 0;
  }
  if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
    j->p++;
    if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
    if (!s_digits(j)) return 0;
  }
  return 1;
}

static int s_seq(s_js *j, int depth, char close, int members) {
  j->p++;
  s_ws(j);
  if (j->p < j->end && *j->p == close) {
    j->p++;
    return 1;
  }
  for (;;) {
    if (members) {
      if (!s_string(j)) return 0;
      s_ws(j);
      if (j->p >= j->end || *j->p++ != ':') return 0;
    }
    if (!s_value(j, depth + 1)) return 0;
    s_ws(j);
    if (j->p >= j->end) return 0;
    if (*j->p == close) {
      j->p++;
      return 1;
    }
    if (*j->p++ != ',') return 0;
    s_ws(j);
  }
}

static int s_value(s_js *j, int depth) {
  if (depth > 200) return 0;
  s_ws(j);
  if (j->p >= j->end) return 0;
  switch (*j->p) {
  case '{': return s_seq(j, depth, '}', 1);
  case '[': return s_seq(j, depth, ']', 0);
  case '"': return s_string(j);
  case 't': return j->end - j->p >= 4 && memcmp(j->p, "true", 4) == 0 && (j->p += 4);
  case 'f': return j->end - j->p >= 5 && memcmp(j->p, "false", 5) == 0 && (j->p += 5);
  case 'n': return j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0 && (j->p += 4);
  default: return s_number(j);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *zip = NULL;
  size_t len = size;
  const uint8_t *in = data;
  if (!(size >= 2 && data[0] == 'P' && data[1] == 'K')) {
    zip = s_zip(data, size, &len);
    in = zip;
  }
  ens_tupi_result *r = (ens_tupi_result *)&len;
  int rc = ens_tupi_import(in, len, &r);
  if (rc != 0) {
    FZ_CHECK(r == NULL, "a refused project gave a result");
    FZ_CHECK(ens_error_last()[0] != '\0', "a refusal without a message");
  } else {
    size_t n;
    const char *json = ens_tupi_result_json(r, &n);
    FZ_CHECK(json && strlen(json) == n, "the JSON's length");
    s_js j = {json, json + n};
    FZ_CHECK(s_value(&j, 0), "the Lottie text is not well-formed JSON near byte %zu", (size_t)(j.p - json));
    s_ws(&j);
    FZ_CHECK(j.p == j.end, "bytes after the JSON value");
    for (size_t i = 0; i < ens_tupi_result_note_count(r); i++) {
      const char *what, *where;
      size_t count;
      FZ_CHECK(ens_tupi_result_note(r, i, &what, &where, &count) == 0, "a note");
      FZ_CHECK(what[0] && count >= 1, "an empty note");
      fz_sink += strlen(where);
    }
    ens_tupi_result_free(r);
  }
  free(zip);
  return 0;
}
