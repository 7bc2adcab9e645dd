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
  ens__file_atomic f;
  int rc = ens__file_atomic_open(&f, path);
  if (rc) return rc;
  rc = ens__file_atomic_write(&f, data, len);
  return ens__file_atomic_finish(&f, rc, mode, replace);
}

int ens__file_atomic_open(ens__file_atomic *f, const char *path) {
  size_t plen = strlen(path);
  f->path = path;
  f->written = 0;
  f->fd = -1;
  f->tmp = malloc(plen + 16);
  if (!f->tmp) return ens__error(ENS_ENOMEM, "out of memory writing %s", path);
  snprintf(f->tmp, plen + 16, "%s.tmp.XXXXXX", path);
  f->fd = mkstemp(f->tmp);
  if (f->fd < 0) {
    int rc = ens__error(ENS_EIO, "cannot create a temporary file beside %s: %s", path, strerror(errno));
    free(f->tmp);
    f->tmp = NULL;
    return rc;
  }
  return 0;
}

int ens__file_atomic_write(ens__file_atomic *f, const void *data, size_t len) {
  const char *p = data;
  size_t left = len;
  while (left) {
    ssize_t k = write(f->fd, p, left);
    if (k < 0) {
      if (errno == EINTR) continue;
      return ens__error(ENS_EIO, "cannot write %s: %s", f->tmp, strerror(errno));
    }
    p += k;
    left -= (size_t)k;
  }
  f->written += len;
  return 0;
}

void ens__file_atomic_start_writeback(ens__file_atomic *f, size_t from) {
#ifdef SYNC_FILE_RANGE_WRITE
  /* only starts the device write of what is written so far, so that the
   * fsync at the end waits for less; durability still rests on that fsync.
   * A failure here is no failure of the save: the fsync does it all. */
  if (f->written > from) (void)sync_file_range(f->fd, (off_t)from, (off_t)(f->written - from), SYNC_FILE_RANGE_WRITE);
#else
  (void)f;
  (void)from;
#endif
}

int ens__file_atomic_finish(ens__file_atomic *f, int rc, int mode, int replace) {
  const char *path = f->path;
  char *tmp = f->tmp;
  int fd = f->fd;
  f->tmp = NULL;
  f->fd = -1;
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
