/* CurveZMQ keys for sessions: key pairs in a directory (ensemble.key,
 * secret, mode 0600; ensemble.pub) and the authorised-keys list a server
 * lets in (docs/protocol.md, "Security"). A secret key is never printed,
 * not even in an error message. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zmq.h>

#include "../util/error.h"
#include "../util/file.h"
#include "ensemble/session.h"
#include "keys.h"

#define NAME_MAX_LEN 64
#define KEYFILE_MAX 4096
#define AUTHFILE_MAX (16u << 20)

static const char s_z85[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

int ens_key_is_valid(const char *text) {
  if (!text || strlen(text) != ENS_KEY_LEN) return 0;
  for (size_t i = 0; i < ENS_KEY_LEN; i++)
    if (!strchr(s_z85, text[i]) || !text[i]) return 0;
  unsigned char raw[32];
  return zmq_z85_decode(raw, text) != NULL; /* also refuses 5-character groups over 2^32 */
}

int ens_keypair_generate(ens_keypair *out) {
  memset(out, 0, sizeof *out);
  if (!zmq_has("curve")) return ens__error(ENS_EIO, "this libzmq has no CURVE encryption");
  if (zmq_curve_keypair(out->public_key, out->secret_key) != 0)
    return ens__error(ENS_EIO, "cannot make a key pair: %s", zmq_strerror(errno));
  return 0;
}

static void s_path(char *buf, size_t cap, const char *dir, const char *name) {
  size_t n = strlen(dir);
  snprintf(buf, cap, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

int ens_keypair_write(const char *dir, const ens_keypair *keys, int replace) {
  char key[4096], pub[4096];
  s_path(key, sizeof key, dir, "ensemble.key");
  s_path(pub, sizeof pub, dir, "ensemble.pub");
  if (!ens_key_is_valid(keys->public_key) || !ens_key_is_valid(keys->secret_key))
    return ens__error(ENS_EINVAL, "not a key pair");
  struct stat st;
  if (!replace && (stat(key, &st) == 0 || stat(pub, &st) == 0))
    return ens__error(ENS_EEXISTS, "%s holds keys already", dir);
  char text[ENS_KEY_LEN + 2];
  snprintf(text, sizeof text, "%s\n", keys->secret_key);
  int rc = ens__file_write_atomic_ex(key, text, ENS_KEY_LEN + 1, 0600, replace);
  memset(text, 0, sizeof text);
  if (rc) return rc;
  snprintf(text, sizeof text, "%s\n", keys->public_key);
  return ens__file_write_atomic_ex(pub, text, ENS_KEY_LEN + 1, 0644, replace);
}

/* The first line of a small file, without its end of line and blanks. */
static int s_read_line(const char *path, char *out, size_t cap) {
  char *data;
  size_t len;
  int rc = ens__file_read_all(path, KEYFILE_MAX, &data, &len);
  if (rc) return rc;
  size_t a = 0, b;
  while (a < len && isspace((unsigned char)data[a])) a++;
  b = a;
  while (b < len && !isspace((unsigned char)data[b])) b++;
  size_t n = b - a;
  if (n >= cap) n = cap - 1;
  memcpy(out, data + a, n);
  out[n] = '\0';
  memset(data, 0, len);
  free(data);
  return 0;
}

int ens_keypair_read(const char *dir, ens_keypair *out) {
  memset(out, 0, sizeof *out);
  char key[4096], pub[4096];
  s_path(key, sizeof key, dir, "ensemble.key");
  s_path(pub, sizeof pub, dir, "ensemble.pub");
  struct stat st;
  if (stat(key, &st) != 0) return ens__error(ENS_EIO, "cannot read %s: %s", key, strerror(errno));
  if (st.st_mode & 077)
    return ens__error(ENS_EINVAL, "%s is readable by others (mode %03o): chmod 600 it", key, (unsigned)(st.st_mode & 0777));
  int rc = s_read_line(key, out->secret_key, sizeof out->secret_key);
  if (rc) return rc;
  if (!ens_key_is_valid(out->secret_key)) {
    memset(out, 0, sizeof *out);
    return ens__error(ENS_EDECODE, "%s does not hold a key (40 characters of Z85)", key);
  }
  if (zmq_curve_public(out->public_key, out->secret_key) != 0) {
    memset(out, 0, sizeof *out);
    return ens__error(ENS_EIO, "cannot derive the public key of %s: %s", key, zmq_strerror(errno));
  }
  if (stat(pub, &st) == 0) {
    char p[ENS_KEY_LEN + 8];
    if ((rc = s_read_line(pub, p, sizeof p))) return rc;
    if (strcmp(p, out->public_key) != 0) {
      memset(out, 0, sizeof *out);
      return ens__error(ENS_EINVAL, "%s is not the public key of %s", pub, key);
    }
  }
  return 0;
}

int ens_public_key_read(const char *arg, char out[ENS_KEY_LEN + 1]) {
  out[0] = '\0';
  struct stat st;
  if (stat(arg, &st) != 0) {
    if (ens_key_is_valid(arg)) {
      memcpy(out, arg, ENS_KEY_LEN + 1);
      return 0;
    }
    return ens__error(ENS_EINVAL, "%s is neither a key file nor a key", arg);
  }
  char p[ENS_KEY_LEN + 8];
  int rc = s_read_line(arg, p, sizeof p);
  if (rc) return rc;
  if (!ens_key_is_valid(p)) return ens__error(ENS_EDECODE, "%s does not hold a public key (40 characters of Z85)", arg);
  memcpy(out, p, ENS_KEY_LEN + 1);
  return 0;
}

/* --- authorised keys ------------------------------------------------------------- */

typedef struct {
  char key[ENS_KEY_LEN + 1];
  char name[NAME_MAX_LEN + 1];
} s_entry;

struct ens_authorized_keys {
  s_entry *v;
  size_t n, cap;
};

ens_authorized_keys *ens_authorized_keys_new(void) { return calloc(1, sizeof(ens_authorized_keys)); }

ens_authorized_keys *ens__authorized_keys_copy(const ens_authorized_keys *k) {
  ens_authorized_keys *c = ens_authorized_keys_new();
  if (!c || !k || !k->n) return c;
  c->v = malloc(k->n * sizeof *c->v);
  if (!c->v) {
    free(c);
    return NULL;
  }
  memcpy(c->v, k->v, k->n * sizeof *c->v);
  c->n = c->cap = k->n;
  return c;
}

size_t ens_authorized_keys_count(const ens_authorized_keys *k) { return k ? k->n : 0; }

const char *ens_authorized_keys_find(const ens_authorized_keys *k, const char *public_key) {
  if (!k || !public_key) return NULL;
  for (size_t i = 0; i < k->n; i++)
    if (strcmp(k->v[i].key, public_key) == 0) return k->v[i].name;
  return NULL;
}

/* A name: 1..64 bytes, no control characters. */
static int s_name_ok(const char *name, size_t n) {
  if (n == 0 || n > NAME_MAX_LEN) return 0;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f) return 0;
  return 1;
}

int ens_authorized_keys_add(ens_authorized_keys *k, const char *public_key, const char *name) {
  if (!ens_key_is_valid(public_key)) return ens__error(ENS_EINVAL, "not a public key (40 characters of Z85)");
  if (!name || !s_name_ok(name, strlen(name)))
    return ens__error(ENS_EINVAL, "a key's name is 1..%d bytes without control characters", NAME_MAX_LEN);
  if (ens_authorized_keys_find(k, public_key)) return ens__error(ENS_EEXISTS, "key listed twice");
  if (k->n == k->cap) {
    size_t cap = k->cap ? k->cap * 2 : 16;
    s_entry *v = realloc(k->v, cap * sizeof *v);
    if (!v) return ens__error(ENS_ENOMEM, "out of memory listing keys");
    k->v = v;
    k->cap = cap;
  }
  memcpy(k->v[k->n].key, public_key, ENS_KEY_LEN + 1);
  snprintf(k->v[k->n].name, sizeof k->v[k->n].name, "%s", name);
  k->n++;
  return 0;
}

int ens_authorized_keys_parse(const char *text, size_t len, const char *source, ens_authorized_keys **out) {
  *out = NULL;
  if (!source) source = "authorized keys";
  ens_authorized_keys *k = ens_authorized_keys_new();
  if (!k) return ens__error(ENS_ENOMEM, "out of memory listing keys");
  size_t pos = 0;
  int rc = 0;
  for (unsigned line = 1; pos < len && !rc; line++) {
    size_t end = pos;
    while (end < len && text[end] != '\n') end++;
    size_t a = pos, b = end;
    pos = end + 1;
    while (a < b && (text[a] == ' ' || text[a] == '\t')) a++;
    while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\r')) b--;
    if (a == b || text[a] == '#') continue;
    size_t kend = a;
    while (kend < b && text[kend] != ' ' && text[kend] != '\t') kend++;
    size_t nstart = kend;
    while (nstart < b && (text[nstart] == ' ' || text[nstart] == '\t')) nstart++;
    char key[ENS_KEY_LEN + 1], name[NAME_MAX_LEN + 1];
    if (kend - a != ENS_KEY_LEN) {
      rc = ens__error(ENS_EDECODE, "%s:%u: a key is %d characters of Z85, this one has %zu", source, line, ENS_KEY_LEN,
                      kend - a);
      break;
    }
    memcpy(key, text + a, ENS_KEY_LEN);
    key[ENS_KEY_LEN] = '\0';
    if (!ens_key_is_valid(key)) {
      rc = ens__error(ENS_EDECODE, "%s:%u: the key is not Z85", source, line);
      break;
    }
    if (nstart == b) {
      rc = ens__error(ENS_EDECODE, "%s:%u: the key has no name after it", source, line);
      break;
    }
    if (!s_name_ok(text + nstart, b - nstart)) {
      rc = ens__error(ENS_EDECODE, "%s:%u: a name is 1..%d bytes without control characters", source, line,
                      NAME_MAX_LEN);
      break;
    }
    memcpy(name, text + nstart, b - nstart);
    name[b - nstart] = '\0';
    if (ens_authorized_keys_find(k, key)) {
      rc = ens__error(ENS_EDECODE, "%s:%u: the key of %s is listed twice", source, line, name);
      break;
    }
    rc = ens_authorized_keys_add(k, key, name);
    if (rc) rc = ens__error_prefix(rc, "%s:%u: ", source, line);
  }
  if (rc) {
    ens_authorized_keys_free(k);
    return rc;
  }
  *out = k;
  return 0;
}

int ens_authorized_keys_load(const char *path, ens_authorized_keys **out) {
  *out = NULL;
  char *data;
  size_t len;
  int rc = ens__file_read_all(path, AUTHFILE_MAX, &data, &len);
  if (rc) return rc;
  rc = ens_authorized_keys_parse(data, len, path, out);
  free(data);
  return rc;
}

void ens_authorized_keys_free(ens_authorized_keys *k) {
  if (!k) return;
  free(k->v);
  free(k);
}

int ens_endpoint_is_local(const char *ep) {
  if (!ep) return 0;
  if (strncmp(ep, "ipc://", 6) == 0 || strncmp(ep, "inproc://", 9) == 0) return 1;
  if (strncmp(ep, "tcp://", 6) != 0) return 0;
  const char *host = ep + 6, *colon = strrchr(host, ':');
  if (!colon || (size_t)(colon - host) >= 64) return 0;
  char h[64];
  memcpy(h, host, (size_t)(colon - host));
  h[colon - host] = '\0';
  if (strcmp(h, "localhost") == 0 || strcmp(h, "[::1]") == 0) return 1;
  struct in_addr a;
  return inet_pton(AF_INET, h, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}
