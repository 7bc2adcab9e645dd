/* Invites (include/ensemble/invite.h): tokens made from the library's
 * random source, kept only as SHA-256 (libsodium, which libzmq's CURVE
 * already brings) with a name, in a file written atomically with mode
 * 0600. A stolen file lets nobody in: a token cannot be had from its hash. */
#include "invites.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/buf.h"
#include "../util/error.h"
#include "../util/file.h"
#include "../util/random.h"

#define INVITES_MAX (4u << 20)

typedef struct {
  unsigned char hash[ENS__HASH_LEN];
  char name[ENS_INVITE_NAME_MAX + 1];
} s_invite;

struct ens__invites {
  s_invite *v;
  size_t n, cap;
};

void ens__invites_hash(const void *token, size_t len, unsigned char out[ENS__HASH_LEN]) {
  crypto_hash_sha256(out, token, len);
}

static int s_name_ok(const char *name, size_t n) {
  if (n == 0 || n > ENS_INVITE_NAME_MAX) return 0;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f) return 0;
  return name[0] != ' ' && name[n - 1] != ' '; /* a line's name is trimmed when read */
}

static int s_hex(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

static int s_push(ens__invites *inv, const unsigned char *hash, const char *name, size_t nlen) {
  if (inv->n == inv->cap) {
    size_t cap = inv->cap ? inv->cap * 2 : 16;
    s_invite *v = realloc(inv->v, cap * sizeof *v);
    if (!v) return ens__error(ENS_ENOMEM, "out of memory reading invites");
    inv->v = v;
    inv->cap = cap;
  }
  memcpy(inv->v[inv->n].hash, hash, ENS__HASH_LEN);
  memcpy(inv->v[inv->n].name, name, nlen);
  inv->v[inv->n].name[nlen] = '\0';
  inv->n++;
  return 0;
}

static int s_parse(const char *path, const char *text, size_t len, ens__invites *inv) {
  unsigned line = 0;
  for (size_t a = 0; a < len;) {
    size_t b = a;
    while (b < len && text[b] != '\n') b++;
    line++;
    size_t e = b;
    while (e > a && (text[e - 1] == '\r' || text[e - 1] == ' ' || text[e - 1] == '\t')) e--;
    size_t s = a;
    while (s < e && (text[s] == ' ' || text[s] == '\t')) s++;
    if (s < e && text[s] != '#') {
      unsigned char hash[ENS__HASH_LEN];
      int ok = e - s > 2 * ENS__HASH_LEN + 1 && text[s + 2 * ENS__HASH_LEN] == ' ';
      for (size_t i = 0; ok && i < ENS__HASH_LEN; i++) {
        int hi = s_hex(text[s + 2 * i]), lo = s_hex(text[s + 2 * i + 1]);
        if (hi < 0 || lo < 0) ok = 0;
        else hash[i] = (unsigned char)(hi << 4 | lo);
      }
      size_t ns = s + 2 * ENS__HASH_LEN + 1;
      while (ok && ns < e && text[ns] == ' ') ns++;
      if (!ok || !s_name_ok(text + ns, e - ns))
        return ens__error(ENS_EDECODE, "%s:%u: not \"HASH name\" (64 hex digits, a name of 1..%d bytes)", path, line,
                          ENS_INVITE_NAME_MAX);
      for (size_t i = 0; i < inv->n; i++)
        if (strlen(inv->v[i].name) == e - ns && memcmp(inv->v[i].name, text + ns, e - ns) == 0)
          return ens__error(ENS_EDECODE, "%s:%u: %.*s is invited twice", path, line, (int)(e - ns), text + ns);
      int rc = s_push(inv, hash, text + ns, e - ns);
      if (rc) return rc;
    }
    a = b + 1;
  }
  return 0;
}

int ens__invites_load(const char *path, ens__invites **out) {
  *out = NULL;
  if (sodium_init() < 0) return ens__error(ENS_EIO, "libsodium does not start");
  ens__invites *inv = calloc(1, sizeof *inv);
  if (!inv) return ens__error(ENS_ENOMEM, "out of memory reading invites");
  struct stat st;
  if (stat(path, &st) != 0 && errno == ENOENT) {
    *out = inv;
    return 0;
  }
  char *text = NULL;
  size_t len = 0;
  int rc = ens__file_read_all(path, INVITES_MAX, &text, &len);
  if (rc == 0) rc = s_parse(path, text, len, inv);
  free(text);
  if (rc) {
    ens__invites_free(inv);
    return rc;
  }
  *out = inv;
  return 0;
}

size_t ens__invites_count(const ens__invites *inv) { return inv ? inv->n : 0; }

const char *ens__invites_find(const ens__invites *inv, const unsigned char hash[ENS__HASH_LEN]) {
  const char *found = NULL;
  for (size_t i = 0; inv && i < inv->n; i++)
    if (sodium_memcmp(inv->v[i].hash, hash, ENS__HASH_LEN) == 0) found = inv->v[i].name;
  return found;
}

void ens__invites_free(ens__invites *inv) {
  if (!inv) return;
  free(inv->v);
  free(inv);
}

static int s_find_name(const ens__invites *inv, const char *name) {
  for (size_t i = 0; i < inv->n; i++)
    if (strcmp(inv->v[i].name, name) == 0) return (int)i;
  return -1;
}

static int s_save(const char *path, const ens__invites *inv) {
  ens_buf b = ENS_BUF_INIT;
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < inv->n; i++) {
    char h[2 * ENS__HASH_LEN + 1];
    for (size_t k = 0; k < ENS__HASH_LEN; k++) {
      h[2 * k] = hex[inv->v[i].hash[k] >> 4];
      h[2 * k + 1] = hex[inv->v[i].hash[k] & 15];
    }
    h[2 * ENS__HASH_LEN] = ' ';
    ens__buf_append(&b, h, sizeof h);
    ens__buf_append(&b, inv->v[i].name, strlen(inv->v[i].name));
    ens__buf_putc(&b, '\n');
  }
  int rc = b.oom ? ens__error(ENS_ENOMEM, "out of memory writing invites")
                 : ens__file_write_atomic_ex(path, b.data ? (const void *)b.data : "", b.len, 0600, 1);
  ens__buf_free(&b);
  if (rc == 0) chmod(path, 0600); /* an existing file keeps its mode otherwise: this one holds secrets' hashes */
  return rc;
}

/* URL-safe base64 without padding: a token fits a URL fragment as it is. */
static void s_token_text(const unsigned char raw[32], char out[ENS_TOKEN_LEN + 1]) {
  static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  size_t o = 0;
  for (size_t i = 0; i < 32; i += 3) {
    uint32_t v = (uint32_t)raw[i] << 16 | (i + 1 < 32 ? (uint32_t)raw[i + 1] << 8 : 0) | (i + 2 < 32 ? raw[i + 2] : 0);
    size_t chars = i + 2 < 32 ? 4 : 3; /* 32 = 10 * 3 + 2: the last group has 2 bytes, 3 characters */
    for (size_t k = 0; k < chars; k++) out[o++] = a[(v >> (18 - 6 * k)) & 63];
  }
  out[o] = '\0';
}

int ens_invite_add(const char *path, const char *name, char token[ENS_TOKEN_LEN + 1]) {
  token[0] = '\0';
  if (!name || !s_name_ok(name, strlen(name)))
    return ens__error(ENS_EINVAL, "a name is 1..%d bytes without control characters or spaces at its ends",
                      ENS_INVITE_NAME_MAX);
  ens__invites *inv;
  int rc = ens__invites_load(path, &inv);
  if (rc) return rc;
  if (s_find_name(inv, name) >= 0) {
    ens__invites_free(inv);
    return ens__error(ENS_EEXISTS, "%s is already invited (revoke the invite first)", name);
  }
  unsigned char raw[32], hash[ENS__HASH_LEN];
  char text[ENS_TOKEN_LEN + 1];
  if ((rc = ens__random(raw, sizeof raw)) == 0) {
    s_token_text(raw, text);
    ens__invites_hash(text, ENS_TOKEN_LEN, hash);
    rc = s_push(inv, hash, name, strlen(name));
  }
  if (rc == 0) rc = s_save(path, inv);
  if (rc == 0) memcpy(token, text, sizeof text);
  sodium_memzero(raw, sizeof raw);
  sodium_memzero(text, sizeof text);
  ens__invites_free(inv);
  return rc;
}

int ens_invite_revoke(const char *path, const char *name) {
  ens__invites *inv;
  int rc = ens__invites_load(path, &inv);
  if (rc) return rc;
  int i = name ? s_find_name(inv, name) : -1;
  if (i < 0) rc = ens__error(ENS_ENOTFOUND, "%s is not invited", name ? name : "(null)");
  else {
    memmove(&inv->v[i], &inv->v[i + 1], (inv->n - (size_t)i - 1) * sizeof *inv->v);
    inv->n--;
    rc = s_save(path, inv);
  }
  ens__invites_free(inv);
  return rc;
}

int ens_invite_list(const char *path, char ***names, size_t *count) {
  *names = NULL;
  *count = 0;
  ens__invites *inv;
  int rc = ens__invites_load(path, &inv);
  if (rc) return rc;
  char **v = calloc(inv->n ? inv->n : 1, sizeof *v);
  if (!v) rc = ens__error(ENS_ENOMEM, "out of memory listing invites");
  for (size_t i = 0; rc == 0 && i < inv->n; i++)
    if (!(v[i] = strdup(inv->v[i].name))) {
      ens_invite_names_free(v, i);
      v = NULL;
      rc = ens__error(ENS_ENOMEM, "out of memory listing invites");
    }
  if (rc == 0) {
    *names = v;
    *count = inv->n;
  }
  ens__invites_free(inv);
  return rc;
}

void ens_invite_names_free(char **names, size_t count) {
  if (!names) return;
  for (size_t i = 0; i < count; i++) free(names[i]);
  free(names);
}
