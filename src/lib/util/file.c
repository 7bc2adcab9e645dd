/* Whole-file reads within a limit and atomic file replacement, for the
 * format layers (the SVG reader and writer use them). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
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

/* --- names ----------------------------------------------------------------------- */

/* At most this much of a file's name goes into its temporary files' names,
 * so that they stay within NAME_MAX. */
#define TEMP_BASE_MAX 200
#define TEMP_TAG ".tmp.ensemble-"

char *ens__file_resolve(const char *path) {
  char *cur = strdup(path);
  for (int hops = 0; cur && hops <= 40; hops++) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
    char link[PATH_MAX];
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0) return cur; /* gone meanwhile: the name is what there is */
    link[n] = '\0';
    char *next;
    const char *slash = strrchr(cur, '/');
    if (link[0] == '/' || !slash) {
      next = strdup(link);
    } else { /* relative to the link's own directory */
      size_t dl = (size_t)(slash - cur) + 1;
      next = malloc(dl + (size_t)n + 1);
      if (next) {
        memcpy(next, cur, dl);
        memcpy(next + dl, link, (size_t)n + 1);
      }
    }
    free(cur);
    cur = next;
  }
  if (cur) {
    free(cur);
    errno = ELOOP;
    return NULL;
  }
  errno = ENOMEM;
  return NULL;
}

/* The directory of path ("." when it has none) and its last component. */
static void s_split(const char *path, char *dir, size_t dcap, const char **base) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dir, dcap, ".");
    *base = path;
  } else {
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    snprintf(dir, dcap, "%.*s", (int)n, path);
    *base = slash + 1;
  }
}

/* 1 when name is a temporary file of base's (any base when NULL) made by
 * a process that is gone: ".BASE.tmp.ensemble-PID.XXXXXX". */
static int s_stale_temp(const char *name, const char *base) {
  if (name[0] != '.') return 0;
  const char *p = name + 1, *tag;
  if (base) {
    size_t bl = strlen(base);
    if (bl > TEMP_BASE_MAX) bl = TEMP_BASE_MAX;
    if (strncmp(p, base, bl) != 0) return 0;
    tag = p + bl;
    if (strncmp(tag, TEMP_TAG, sizeof TEMP_TAG - 1) != 0) return 0;
  } else if (!(tag = strstr(p, TEMP_TAG))) {
    return 0;
  }
  const char *d = tag + sizeof TEMP_TAG - 1;
  char *end;
  errno = 0;
  long pid = strtol(d, &end, 10);
  if (end == d || errno || pid <= 0 || pid > INT_MAX || *end != '.' || strlen(end + 1) != 6) return 0;
  for (const char *c = end + 1; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))) return 0;
  if (pid == (long)getpid()) return 0;
  /* EPERM: alive, another user's */
  return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static int s_clean(const char *dir, const char *base) {
  DIR *d = opendir(dir);
  if (!d) return 0; /* nothing to clean where nothing can be listed */
  int removed = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!s_stale_temp(e->d_name, base)) continue;
    char fp[PATH_MAX];
    if (snprintf(fp, sizeof fp, "%s/%s", dir, e->d_name) >= (int)sizeof fp) continue;
    struct stat st;
    if (lstat(fp, &st) == 0 && S_ISREG(st.st_mode) && unlink(fp) == 0) removed++;
  }
  closedir(d);
  return removed;
}

int ens__file_clean_temps(const char *path) {
  char *target = ens__file_resolve(path);
  if (!target) return 0;
  char dir[PATH_MAX];
  const char *base;
  s_split(target, dir, sizeof dir, &base);
  int n = s_clean(dir, base);
  free(target);
  return n;
}

int ens__file_clean_dir_temps(const char *dir) { return s_clean(dir, NULL); }

/* --- writing --------------------------------------------------------------------- */

int ens__file_atomic_open(ens__file_atomic *f, const char *path) {
  f->path = path;
  f->written = 0;
  f->fd = -1;
  f->tmp = NULL;
  f->check = NULL;
  f->check_user = NULL;
  /* through a symbolic link to the file it names, in that file's
   * directory: replacing the link would cut it from its target */
  f->target = ens__file_resolve(path);
  if (!f->target)
    return ens__error(errno == ELOOP ? ENS_EIO : ENS_ENOMEM, "cannot write %s: %s", path, strerror(errno));
  struct stat st;
  if (stat(f->target, &st) == 0 && !S_ISREG(st.st_mode)) {
    int rc = ens__error(ENS_EIO, "cannot write %s: not a regular file", path);
    free(f->target);
    f->target = NULL;
    return rc;
  }
  char dir[PATH_MAX];
  const char *base;
  s_split(f->target, dir, sizeof dir, &base);
  size_t cap = strlen(dir) + TEMP_BASE_MAX + 64;
  f->tmp = malloc(cap);
  if (!f->tmp) {
    free(f->target);
    f->target = NULL;
    return ens__error(ENS_ENOMEM, "out of memory writing %s", path);
  }
  /* named after the file and this process, so that one left by a writer
   * that was killed is known for what it is and removed later
   * (ens__file_clean_temps) */
  snprintf(f->tmp, cap, "%s/.%.*s" TEMP_TAG "%ld.XXXXXX", dir, TEMP_BASE_MAX, base, (long)getpid());
  f->fd = mkstemp(f->tmp);
  if (f->fd < 0) {
    int rc = ens__error(ENS_EIO, "cannot create a temporary file beside %s: %s", f->target, strerror(errno));
    free(f->tmp);
    free(f->target);
    f->tmp = f->target = NULL;
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

/* The file that replaces an existing one keeps its owner (where this
 * process may give it) and its mode: a 0600 font stays private. A new
 * file gets `mode`, or what a plain create would give. */
static int s_keep_attributes(const char *target, int fd, const char *tmp, int mode) {
  struct stat st;
  int exists = stat(target, &st) == 0;
  if (exists && (st.st_uid != geteuid() || st.st_gid != getegid())) {
    /* before the mode: a change of owner may clear set-id bits */
    if (fchown(fd, st.st_uid, st.st_gid) != 0) (void)!fchown(fd, (uid_t)-1, st.st_gid);
  }
  mode_t m;
  if (mode >= 0) {
    m = (mode_t)mode;
  } else if (exists) {
    m = st.st_mode & 07777;
  } else {
    mode_t um = umask(0);
    umask(um);
    m = 0666 & ~um;
  }
  if (fchmod(fd, m) != 0) return ens__error(ENS_EIO, "cannot set the mode of %s: %s", tmp, strerror(errno));
  return 0;
}

int ens__file_atomic_finish(ens__file_atomic *f, int rc, int mode, int replace) {
  const char *path = f->target;
  char *tmp = f->tmp, *target = f->target;
  int fd = f->fd;
  f->tmp = f->target = NULL;
  f->fd = -1;
  if (!rc) rc = s_keep_attributes(target, fd, tmp, mode);
  if (!rc && fsync(fd) != 0) rc = ens__error(ENS_EIO, "cannot sync %s: %s", tmp, strerror(errno));
  if (close(fd) != 0 && !rc) rc = ens__error(ENS_EIO, "cannot close %s: %s", tmp, strerror(errno));
  if (!rc && f->check && f->check(f->path, tmp, f->check_user) != 0) {
    unlink(tmp); /* refused: path stays as it is */
    free(tmp);
    free(target);
    return 1;
  }
  if (!rc && replace && rename(tmp, path) != 0)
    rc = ens__error(ENS_EIO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
  if (!rc && !replace) { /* link() refuses an existing name: no window to lose one */
    if (link(tmp, path) != 0)
      rc = errno == EEXIST ? ens__error(ENS_EEXISTS, "%s exists", f->path)
                           : ens__error(ENS_EIO, "cannot create %s: %s", f->path, strerror(errno));
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
  free(target);
  return rc;
}

/* --- the public face (ensemble/file.h) -------------------------------------------- */

int ens_file_read(const char *path, size_t max, char **data, size_t *len) {
  if (!path || !data || !len) return ens__error(ENS_EINVAL, "ens_file_read: NULL argument");
  return ens__file_read_all(path, max, data, len);
}

int ens_file_write_atomic(const char *path, const void *data, size_t len, const ens_file_write_opts *opts) {
  if (!path || (!data && len)) return ens__error(ENS_EINVAL, "ens_file_write_atomic: NULL argument");
  ens__file_clean_temps(path); /* what a killed writer left */
  ens__file_atomic f;
  int rc = ens__file_atomic_open(&f, path);
  if (rc) return rc;
  if (opts) {
    f.check = opts->check;
    f.check_user = opts->check_user;
  }
  rc = ens__file_atomic_write(&f, data, len);
  return ens__file_atomic_finish(&f, rc, opts ? opts->mode : -1, opts ? !opts->no_replace : 1);
}

char *ens_file_resolve(const char *path) {
  if (!path) {
    errno = EINVAL;
    return NULL;
  }
  return ens__file_resolve(path);
}

char *ens_file_temp_prefix(const char *base) {
  size_t bl = strlen(base);
  if (bl > TEMP_BASE_MAX) bl = TEMP_BASE_MAX;
  char *p = malloc(bl + sizeof TEMP_TAG + 1);
  if (p) snprintf(p, bl + sizeof TEMP_TAG + 1, ".%.*s" TEMP_TAG, (int)bl, base);
  return p;
}

int ens_file_clean_temps(const char *path) { return path ? ens__file_clean_temps(path) : 0; }
