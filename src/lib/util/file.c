/* Whole-file reads within a limit and atomic file replacement, for the
 * format layers (the SVG reader and writer use them). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "file.h"

int ens__file_read_all(const char *path, size_t max, char **data, size_t *len) {
  *data = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ens__error(ENS_EIO, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  int rc = 0;
  char *buf = NULL;
  size_t n = 0;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    rc = ens__error(ENS_EIO, "cannot read %s: %s", path, S_ISDIR(st.st_mode) ? "a directory" : strerror(errno));
    goto done;
  }
  if ((uint64_t)st.st_size > max) {
    rc = ens__error(ENS_ELIMIT, "%s is larger than the limit of %zu bytes", path, max);
    goto done;
  }
  size_t cap = (size_t)st.st_size + 1;
  if (!(buf = malloc(cap + 1))) {
    rc = ens__error(ENS_ENOMEM, "out of memory reading %s", path);
    goto done;
  }
  for (;;) { /* the file may still grow: read to its end, within the limit */
    if (n == cap) {
      if (cap > max) {
        rc = ens__error(ENS_ELIMIT, "%s is larger than the limit of %zu bytes", path, max);
        goto done;
      }
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        rc = ens__error(ENS_ENOMEM, "out of memory reading %s", path);
        goto done;
      }
      buf = nb;
      cap *= 2;
    }
    ssize_t k = read(fd, buf + n, cap - n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      rc = ens__error(ENS_EIO, "cannot read %s: %s", path, strerror(errno));
      goto done;
    }
    if (k == 0) break;
    n += (size_t)k;
  }
  if (n > max) rc = ens__error(ENS_ELIMIT, "%s is larger than the limit of %zu bytes", path, max);
done:
  close(fd);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[n] = '\0';
  *data = buf;
  *len = n;
  return 0;
}

int ens__file_write_atomic(const char *path, const void *data, size_t len) {
  return ens__file_write_atomic_ex(path, data, len, -1, 1);
}

int ens__file_write_atomic_ex(const char *path, const void *data, size_t len, int mode, int replace) {
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (!tmp) return ens__error(ENS_ENOMEM, "out of memory writing %s", path);
  snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  int rc = 0;
  if (fd < 0) {
    rc = ens__error(ENS_EIO, "cannot create a temporary file beside %s: %s", path, strerror(errno));
    free(tmp);
    return rc;
  }
  const char *p = data;
  size_t left = len;
  while (left) {
    ssize_t k = write(fd, p, left);
    if (k < 0) {
      if (errno == EINTR) continue;
      rc = ens__error(ENS_EIO, "cannot write %s: %s", tmp, strerror(errno));
      break;
    }
    p += k;
    left -= (size_t)k;
  }
  if (!rc && fsync(fd) != 0) rc = ens__error(ENS_EIO, "cannot sync %s: %s", tmp, strerror(errno));
  if (close(fd) != 0 && !rc) rc = ens__error(ENS_EIO, "cannot close %s: %s", tmp, strerror(errno));
  if (!rc && mode < 0) { /* mkstemp makes 0600; the result is an ordinary file */
    mode_t um = umask(0);
    umask(um);
    chmod(tmp, 0666 & ~um);
  } else if (!rc && chmod(tmp, (mode_t)mode) != 0) {
    rc = ens__error(ENS_EIO, "cannot set the mode of %s: %s", tmp, strerror(errno));
  }
  if (!rc && replace && rename(tmp, path) != 0)
    rc = ens__error(ENS_EIO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
  if (!rc && !replace) { /* link() refuses an existing name: no window to lose one */
    if (link(tmp, path) != 0)
      rc = errno == EEXIST ? ens__error(ENS_EEXISTS, "%s exists", path)
                           : ens__error(ENS_EIO, "cannot create %s: %s", path, strerror(errno));
    unlink(tmp);
  }
  if (rc) {
    unlink(tmp);
  } else { /* the rename is durable once the directory is synced */
    char *slash = strrchr(tmp, '/');
    const char *dname = ".";
    if (slash) {
      *slash = '\0';
      dname = slash == tmp ? "/" : tmp;
    }
    int dfd = open(dname, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      fsync(dfd);
      close(dfd);
    }
  }
  free(tmp);
  return rc;
}
