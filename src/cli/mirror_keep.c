/* The directory `join` keeps beside its file, and backups (mirror_keep.h).
 * Every file here is written the safe way (temporary file, fsync, rename),
 * and a version is kept before the file it describes is renamed into
 * place, so that whatever instant the process dies at, the file holds
 * something a kept version or the mark describes. */
#define _POSIX_C_SOURCE 200809L
#include "mirror_keep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEEP_MAX_BYTES ((size_t)1 << 31)
#define VERSION_SUFFIX ".version"

uint64_t cli_keep_hash(const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

/* The serial in a version file's name, or 0 for any other name. */
static uint64_t s_serial_of(const char *name) {
  size_t n = strlen(name), s = strlen(VERSION_SUFFIX);
  if (n != 20 + s || strcmp(name + 20, VERSION_SUFFIX) != 0) return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < 20; i++) {
    if (name[i] < '0' || name[i] > '9') return 0;
    v = v * 10 + (uint64_t)(name[i] - '0');
  }
  return v;
}

/* The serials of the version files, newest first (malloc'd). */
static size_t s_list(const cli_keep *k, uint64_t **out) {
  *out = NULL;
  DIR *d = opendir(k->dir);
  if (!d) return 0;
  size_t n = 0, cap = 0;
  uint64_t *v = NULL;
  struct dirent *e;
  while ((e = readdir(d))) {
    uint64_t s = s_serial_of(e->d_name);
    if (!s) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      uint64_t *g = realloc(v, cap * sizeof *g);
      if (!g) break;
      v = g;
    }
    v[n++] = s;
  }
  closedir(d);
  for (size_t i = 1; i < n; i++) /* few files: insertion sort, newest first */
    for (size_t j = i; j > 0 && v[j] > v[j - 1]; j--) {
      uint64_t t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  *out = v;
  return n;
}

int cli_keep_open(cli_keep *k, const char *path, char *err, size_t err_size) {
  memset(k, 0, sizeof *k);
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
  k->dir = malloc(dlen + strlen(base) + sizeof "..join");
  if (!k->dir) {
    snprintf(err, err_size, "out of memory");
    return -1;
  }
  memcpy(k->dir, path, dlen);
  sprintf(k->dir + dlen, ".%s.join", base);
  /* temporary files of a join that was killed while keeping something */
  DIR *d = opendir(k->dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)))
      if (strstr(e->d_name, ".tmp.")) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s/%s", k->dir, e->d_name);
        unlink(tmp);
      }
    closedir(d);
  }
  uint64_t *v;
  size_t n = s_list(k, &v);
  k->serial = n ? v[0] : 0;
  free(v);
  return 0;
}

void cli_keep_close(cli_keep *k) {
  free(k->dir);
  k->dir = NULL;
}

static void s_name(const cli_keep *k, uint64_t serial, char *out, size_t size) {
  snprintf(out, size, "%s/%020" PRIu64 VERSION_SUFFIX, k->dir, serial);
}

size_t cli_keep_load(cli_keep *k, size_t max, cli_keep_fn fn, void *user) {
  uint64_t *v;
  size_t n = s_list(k, &v);
  for (size_t i = 0; i < n && i < max; i++) {
    char path[4096], err[512];
    s_name(k, v[i], path, sizeof path);
    char *data;
    size_t len;
    if (cli_read_file(path, KEEP_MAX_BYTES, &data, &len, err, sizeof err)) {
      fn(NULL, 0, path, err, user);
      continue;
    }
    fn(data, len, path, NULL, user);
    free(data);
  }
  free(v);
  return n;
}

static int s_mkdir(const cli_keep *k, char *err, size_t err_size) {
  /* the kept versions hold the whole document: as private as it gets */
  if (mkdir(k->dir, 0700) == 0 || errno == EEXIST) return 0;
  snprintf(err, err_size, "cannot create %s: %s", k->dir, strerror(errno));
  return -1;
}

int cli_keep_put(cli_keep *k, const void *data, size_t len, char *name, size_t name_size, char *err,
                 size_t err_size) {
  if (s_mkdir(k, err, err_size)) return -1;
  s_name(k, k->serial + 1, name, name_size);
  if (cli_write_atomic(name, data, len, err, err_size)) return -1;
  k->serial++;
  return 0;
}

void cli_keep_drop(cli_keep *k, const char *name) {
  (void)k;
  unlink(name);
}

void cli_keep_prune(cli_keep *k, size_t n) {
  uint64_t *v;
  size_t count = s_list(k, &v);
  for (size_t i = n; i < count; i++) {
    char path[4096];
    s_name(k, v[i], path, sizeof path);
    unlink(path);
  }
  free(v);
}

int cli_keep_mark(cli_keep *k, uint64_t hash, uint64_t len, char *err, size_t err_size) {
  if (s_mkdir(k, err, err_size)) return -1;
  char path[4096], text[64];
  snprintf(path, sizeof path, "%s/sending", k->dir);
  int n = snprintf(text, sizeof text, "%016" PRIx64 " %" PRIu64 "\n", hash, len);
  return cli_write_atomic(path, text, (size_t)n, err, err_size);
}

int cli_keep_marked(const cli_keep *k, uint64_t hash, uint64_t len) {
  char path[4096], err[256], *data;
  size_t n;
  snprintf(path, sizeof path, "%s/sending", k->dir);
  if (cli_read_file(path, 256, &data, &n, err, sizeof err)) return 0;
  uint64_t h = 0, l = 0;
  int ok = sscanf(data, "%" SCNx64 " %" SCNu64, &h, &l) == 2 && h == hash && l == len;
  free(data);
  return ok;
}

int cli_backup(const char *path, char *backup, size_t backup_size, char *err, size_t err_size) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  size_t stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
  const char *ext = dot && dot != base ? dot : "";
  for (int i = 1; i < 1000; i++) {
    char num[16] = "";
    if (i > 1) snprintf(num, sizeof num, "-%d", i);
    int w = snprintf(backup, backup_size, "%.*s-before-join%s%s", (int)stem, path, num, ext);
    if (w < 0 || (size_t)w >= backup_size) break;
    if (link(path, backup) == 0) {
      /* the new name durable before path is ever replaced */
      char dir[4096];
      snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path + (slash == path)) : 1, slash ? path : ".");
      int dfd = open(dir, O_RDONLY);
      if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
      }
      return 0;
    }
    if (errno == EEXIST) continue;
    if (errno != EPERM && errno != EXDEV && errno != ENOTSUP && errno != EOPNOTSUPP && errno != EMLINK) {
      snprintf(err, err_size, "cannot keep %s as %s: %s", path, backup, strerror(errno));
      return -1;
    }
    /* no hard links here: a copy, made durable before anything replaces path */
    char *data;
    size_t len;
    if (cli_read_file(path, KEEP_MAX_BYTES, &data, &len, err, err_size)) return -1;
    int fd = open(backup, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
      free(data);
      if (errno == EEXIST) continue;
      snprintf(err, err_size, "cannot create %s: %s", backup, strerror(errno));
      return -1;
    }
    size_t off = 0;
    while (off < len) {
      ssize_t n = write(fd, data + off, len - off);
      if (n <= 0) break;
      off += (size_t)n;
    }
    int ok = off == len && fsync(fd) == 0;
    close(fd);
    free(data);
    if (!ok) {
      snprintf(err, err_size, "cannot write %s: %s", backup, strerror(errno));
      unlink(backup);
      return -1;
    }
    return 0;
  }
  snprintf(err, err_size, "no free name for a backup of %s", path);
  return -1;
}
