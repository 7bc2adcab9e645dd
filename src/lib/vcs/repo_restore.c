/* Rolling one file back to a revision in the work tree, atomically, never
 * losing changes not committed (ensemble/repo.h, ens_repo_restore). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "ensemble/file.h"
#include "repo_int.h"
#include "util/error.h"

/* NAME.ensemble-backup-YYYYMMDD-HHMMSS[-N], written without replacing any
 * existing file. */
static int s_backup(const char *abs, const char *data, size_t len, char **backup) {
  char stamp[32];
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  size_t n = strlen(abs) + 64;
  char *name = malloc(n);
  if (!name) return ens__error(ENS_ENOMEM, "out of memory");
  ens_file_write_opts o = {-1, 1, NULL, NULL};
  for (int i = 0; i < 1000; i++) {
    if (i == 0)
      snprintf(name, n, "%s.ensemble-backup-%s", abs, stamp);
    else
      snprintf(name, n, "%s.ensemble-backup-%s-%d", abs, stamp, i);
    int rc = ens_file_write_atomic(name, data, len, &o);
    if (rc == 0) {
      *backup = name;
      return 0;
    }
    if (rc != ENS_EEXISTS) {
      free(name);
      return ens__error_prefix(rc, "keeping a backup of %s: ", abs);
    }
  }
  free(name);
  return ens__error(ENS_EEXISTS, "keeping a backup of %s: too many backups made this second", abs);
}

/* Whether path stays inside the work tree and out of .git whatever a
 * repository's trees hold: no absolute path, no empty, "." or ".."
 * component, no ".git" (any case). */
static int s_safe_path(const char *path) {
  if (!*path || *path == '/') return 0;
  for (const char *p = path; *p;) {
    const char *e = strchr(p, '/');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && memcmp(p, "..", 2) == 0) ||
        (n == 4 && strncasecmp(p, ".git", 4) == 0))
      return 0;
    p += n + (e ? 1 : 0);
    if (e && !*p) return 0;
  }
  return 1;
}

int ens_repo_restore(ens_repo *repo, const char *path, const char *rev, int force, char **backup) {
  if (!repo || !path || !rev) return ens__error(ENS_EINVAL, "ens_repo_restore: NULL argument");
  if (backup) *backup = NULL;
  if (!s_safe_path(path)) return ens__error(ENS_EINVAL, "'%s' is not a file's path inside the work tree", path);
  unsigned char *want = NULL;
  char *have = NULL, *abs = NULL, *kept = NULL;
  size_t want_len = 0, have_len = 0;
  int rc = ens_repo_read(repo, rev, path, &want, &want_len);
  if (rc) return rc;
  size_t wl = strlen(repo->workdir), pl = strlen(path);
  if (!(abs = malloc(wl + pl + 1))) {
    rc = ens__error(ENS_ENOMEM, "out of memory");
    goto done;
  }
  memcpy(abs, repo->workdir, wl);
  memcpy(abs + wl, path, pl + 1);

  struct stat st;
  int exists = lstat(abs, &st) == 0;
  if (exists) {
    if ((rc = ens_file_read(abs, (size_t)-1, &have, &have_len))) goto done;
    if (have_len == want_len && memcmp(have, want, want_len) == 0) goto done; /* already so */
    unsigned flags = 0;
    int g = git_status_file(&flags, repo->git, path);
    if (g < 0 && g != GIT_ENOTFOUND) {
      rc = ens__repo_error(g, path);
      goto done;
    }
    /* Anything but a file as HEAD has it is work that no commit holds. */
    int uncommitted = g == GIT_ENOTFOUND || flags != GIT_STATUS_CURRENT;
    if (uncommitted && !force) {
      rc = ens__error(ENS_EEXISTS,
                      "%s has changes that are not committed: commit them first, or restore with --force "
                      "(which keeps a backup of the file as it is)",
                      path);
      goto done;
    }
    if (uncommitted && (rc = s_backup(abs, have, have_len, &kept))) goto done;
  }
  ens_file_write_opts o = {-1, 0, NULL, NULL};
  if ((rc = ens_file_write_atomic(abs, want, want_len, &o))) {
    ens__error_prefix(rc, "restoring %s: ", path);
    goto done;
  }
  if (backup) {
    *backup = kept;
    kept = NULL;
  }
done:
  free(kept);
  free(want);
  free(have);
  free(abs);
  return rc;
}
