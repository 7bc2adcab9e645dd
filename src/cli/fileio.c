/* Whole-file reads and atomic writes for the commands that take and make
 * files: a crash or a full disk must never leave a half-written output, a
 * rewrite keeps the file's mode and owner and writes through a symbolic
 * link, and what a killed writer left is removed by the next one. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
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

/* At most this much of a file's name goes into its temporary files' names,
 * so that they stay within NAME_MAX. */
#define TEMP_BASE_MAX 200
#define TEMP_TAG ".tmp.ensemble-"

char *cli_temp_prefix(const char *base) {
  size_t bl = strlen(base);
  if (bl > TEMP_BASE_MAX) bl = TEMP_BASE_MAX;
  char *p = malloc(bl + sizeof TEMP_TAG + 1);
  if (p) sprintf(p, ".%.*s" TEMP_TAG, (int)bl, base);
  return p;
}

char *cli_resolve_links(const char *path) {
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
  } else {
    errno = ENOMEM;
  }
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

/* 1 when name is one of base's temporary files, ".BASE.tmp.ensemble-PID.XXXXXX",
 * made by a process that is gone. */
static int s_stale_temp(const char *name, const char *base) {
  size_t bl = strlen(base);
  if (bl > TEMP_BASE_MAX) bl = TEMP_BASE_MAX;
  if (name[0] != '.' || strncmp(name + 1, base, bl) != 0) return 0;
  const char *tag = name + 1 + bl;
  if (strncmp(tag, TEMP_TAG, sizeof TEMP_TAG - 1) != 0) return 0;
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

int cli_clean_temps(const char *path) {
  char *target = cli_resolve_links(path);
  if (!target) return 0;
  char dir[PATH_MAX];
  const char *base;
  s_split(target, dir, sizeof dir, &base);
  int removed = 0;
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (!s_stale_temp(e->d_name, base)) continue;
      char fp[PATH_MAX];
      if (snprintf(fp, sizeof fp, "%s/%s", dir, e->d_name) >= (int)sizeof fp) continue;
      struct stat st;
      if (lstat(fp, &st) == 0 && S_ISREG(st.st_mode) && unlink(fp) == 0) removed++;
    }
    closedir(d);
  }
  free(target);
  return removed;
}

int cli_write_atomic(const char *path, const void *data, size_t len, char *err, size_t err_size) {
  return cli_write_atomic_check(path, data, len, NULL, NULL, err, err_size) == 0 ? 0 : -1;
}

/* The new file keeps an existing one's owner (where this process may give
 * it: root can, others only a group of theirs) and mode: a 0600 font
 * stays private. A new file gets what a plain create would give. */
static int s_keep_attributes(int fd, const struct stat *old) {
  mode_t mode;
  if (old) {
    if ((old->st_uid != geteuid() || old->st_gid != getegid()) && fchown(fd, old->st_uid, old->st_gid) != 0)
      (void)!fchown(fd, (uid_t)-1, old->st_gid);
    mode = old->st_mode & 07777; /* after the owner: a chown may clear set-id bits */
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  return fchmod(fd, mode);
}

int cli_write_atomic_check(const char *path, const void *data, size_t len, cli_before_rename_fn check, void *user,
                           char *err, size_t err_size) {
  /* through a symbolic link to the file it names, in that file's
   * directory: replacing the link would cut it from its target */
  char *target = cli_resolve_links(path), *tmp = NULL;
  FILE *f = NULL;
  int fd = -1, rc = -1;
  char dir[PATH_MAX];
  const char *base;
  struct stat old;
  int exists;
  if (!target) {
    snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  s_split(target, dir, sizeof dir, &base);
  exists = stat(target, &old) == 0;
  if (exists && !S_ISREG(old.st_mode)) {
    snprintf(err, err_size, "cannot write %s: not a regular file", path);
    goto done;
  }
  cli_clean_temps(target); /* what a killed writer left */
  size_t cap = strlen(dir) + TEMP_BASE_MAX + 64;
  if (!(tmp = malloc(cap))) {
    snprintf(err, err_size, "out of memory writing %s", path);
    goto done;
  }
  /* same directory as the target, so that rename stays on one file system;
   * named after the file and this process, so that one left by a writer
   * that was killed is known for what it is (cli_clean_temps) */
  snprintf(tmp, cap, "%s/.%.*s" TEMP_TAG "%ld.XXXXXX", dir, TEMP_BASE_MAX, base, (long)getpid());
  if ((fd = mkstemp(tmp)) < 0) {
    snprintf(err, err_size, "cannot create a temporary file next to %s: %s", target, strerror(errno));
    free(tmp);
    tmp = NULL;
    goto done;
  }
  if (s_keep_attributes(fd, exists ? &old : NULL) != 0) goto io_error;
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
  if (rename(tmp, target) != 0) goto io_error;
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
  free(target);
  return rc;
}
