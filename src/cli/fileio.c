/* Whole-file reads and atomic writes for the commands that take and make
 * files: a crash or a full disk must never leave a half-written output. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_read_file(const char *path, size_t max, char **data, size_t *len, char *err, size_t err_size) {
  *data = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno));
    return -1;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  int rc = -1;
  if (!buf) {
    snprintf(err, err_size, "out of memory reading %s", path);
    goto done;
  }
  /* read in chunks rather than trusting a size from stat: pipes and
   * /proc files have none, and a file may grow while we read */
  for (;;) {
    if (n == cap) {
      if (cap >= max) {
        snprintf(err, err_size, "%s is larger than the limit of %zu bytes", path, max);
        goto done;
      }
      size_t ncap = cap * 2 > max ? max : cap * 2;
      char *nbuf = realloc(buf, ncap + 1);
      if (!nbuf) {
        snprintf(err, err_size, "out of memory reading %s", path);
        goto done;
      }
      buf = nbuf;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    snprintf(err, err_size, "cannot read %s: %s", path, strerror(errno));
    goto done;
  }
  buf[n] = '\0';
  *data = buf;
  *len = n;
  buf = NULL;
  rc = 0;
done:
  free(buf);
  fclose(f);
  return rc;
}

/* The directory part of path ("." when it has none), malloc'd. */
static char *s_dirname(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  size_t n = (size_t)(slash - path);
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, path, n);
    d[n] = '\0';
  }
  return d;
}

int cli_write_atomic(const char *path, const void *data, size_t len, char *err, size_t err_size) {
  return cli_write_atomic_check(path, data, len, NULL, NULL, err, err_size) == 0 ? 0 : -1;
}

int cli_write_atomic_check(const char *path, const void *data, size_t len, cli_before_rename_fn check, void *user,
                           char *err, size_t err_size) {
  size_t plen = strlen(path);
  char *tmp = malloc(plen + sizeof ".tmp.XXXXXX");
  char *dir = s_dirname(path);
  FILE *f = NULL;
  int fd = -1, rc = -1;
  if (!tmp || !dir) {
    snprintf(err, err_size, "out of memory writing %s", path);
    goto done;
  }
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
  /* same directory as the target, so that rename stays on one file system */
  if ((fd = mkstemp(tmp)) < 0) {
    snprintf(err, err_size, "cannot create a temporary file next to %s: %s", path, strerror(errno));
    free(tmp);
    tmp = NULL;
    goto done;
  }
  /* mkstemp makes the file 0600; give it the mode a plain create would */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) goto io_error;
  if (!(f = fdopen(fd, "wb"))) goto io_error;
  fd = -1; /* the stream owns it now */
  if ((len && fwrite(data, 1, len, f) != len) || fflush(f) != 0 || fsync(fileno(f)) != 0) goto io_error;
  if (fclose(f) != 0) {
    f = NULL;
    goto io_error;
  }
  f = NULL;
  if (check && check(path, tmp, user) != 0) {
    rc = 1; /* the temporary file is removed below; path is untouched */
    goto done;
  }
  if (rename(tmp, path) != 0) goto io_error;
  free(tmp);
  tmp = NULL;
  /* make the rename itself durable; some file systems refuse fsync on a
   * directory, which costs only durability, not correctness */
  int dfd = open(dir, O_RDONLY);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  rc = 0;
  goto done;
io_error:
  snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
done:
  if (f) fclose(f);
  if (fd >= 0) close(fd);
  if (tmp) unlink(tmp);
  free(tmp);
  free(dir);
  return rc;
}
