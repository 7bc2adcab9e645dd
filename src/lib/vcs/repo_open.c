/* The git layer's handle: opening and making repositories, their
 * configuration, paths inside the work tree, and files read at a revision
 * (ensemble/repo.h). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "repo_int.h"
#include "util/error.h"

int ens__repo_error(int gerr, const char *what) {
  const git_error *e = git_error_last();
  const char *msg = e && e->message ? e->message : "unknown libgit2 error";
  int code = ENS_EIO;
  switch (gerr) {
  case GIT_ENOTFOUND: code = ENS_ENOTFOUND; break;
  case GIT_EEXISTS: code = ENS_EEXISTS; break;
  case GIT_EINVALIDSPEC:
  case GIT_EAMBIGUOUS: code = ENS_EINVAL; break;
  case GIT_ECONFLICT:
  case GIT_EUNMERGED:
  case GIT_EUNCOMMITTED: code = ENS_EEXISTS; break;
  default: break;
  }
  return ens__error(code, "%s: %s", what, msg);
}

/* libgit2 keeps global state (its allocator, TLS); init once per process,
 * never shut down, since other repositories of the process may still be
 * open. */
static int s_init_rc;
static void s_init_once(void) { s_init_rc = git_libgit2_init(); }
static int s_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, s_init_once);
  return s_init_rc < 0 ? ens__error(ENS_EIO, "libgit2 does not start") : 0;
}

static char *s_with_slash(const char *path) {
  char *real = realpath(path, NULL);
  const char *p = real ? real : path;
  size_t n = strlen(p);
  char *out = malloc(n + 2);
  if (out) {
    memcpy(out, p, n);
    if (n == 0 || out[n - 1] != '/') out[n++] = '/';
    out[n] = 0;
  }
  free(real);
  return out;
}

static int s_wrap(git_repository *git, ens_repo **out) {
  ens_repo *r = calloc(1, sizeof *r);
  if (!r) {
    git_repository_free(git);
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  r->git = git;
  const char *wd = git_repository_workdir(git);
  if (!wd) {
    ens_repo_free(r);
    return ens__error(ENS_EINVAL, "%s is a bare repository: it has no work tree", git_repository_path(git));
  }
  r->workdir = s_with_slash(wd);
  r->gitdir = s_with_slash(git_repository_path(git));
  if (!r->workdir || !r->gitdir) {
    ens_repo_free(r);
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  *out = r;
  return 0;
}

int ens_repo_open(const char *path, ens_repo **out) {
  if (!path || !out) return ens__error(ENS_EINVAL, "ens_repo_open: NULL argument");
  *out = NULL;
  int rc = s_init();
  if (rc) return rc;
  git_repository *git = NULL;
  int g = git_repository_open_ext(&git, path, 0, NULL);
  if (g == GIT_ENOTFOUND)
    return ens__error(ENS_ENOTFOUND, "%s is not inside a git repository (ensemble init makes one)", path);
  if (g < 0) return ens__repo_error(g, path);
  return s_wrap(git, out);
}

int ens_repo_init(const char *dir, ens_repo **out) {
  if (!dir || !out) return ens__error(ENS_EINVAL, "ens_repo_init: NULL argument");
  *out = NULL;
  int rc = s_init();
  if (rc) return rc;
  git_repository *git = NULL;
  if (git_repository_open_ext(&git, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0) return s_wrap(git, out);
  git_repository_init_options o;
  git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
  o.flags = GIT_REPOSITORY_INIT_MKPATH;
  o.initial_head = "main";
  int g = git_repository_init_ext(&git, dir, &o);
  if (g < 0) return ens__repo_error(g, dir);
  return s_wrap(git, out);
}

void ens_repo_free(ens_repo *repo) {
  if (!repo) return;
  git_repository_free(repo->git);
  free(repo->workdir);
  free(repo->gitdir);
  free(repo);
}

const char *ens_repo_workdir(const ens_repo *repo) { return repo->workdir; }
const char *ens_repo_gitdir(const ens_repo *repo) { return repo->gitdir; }

int ens_repo_relpath(const ens_repo *repo, const char *file, char **rel) {
  if (!repo || !file || !rel || !*file) return ens__error(ENS_EINVAL, "ens_repo_relpath: no file named");
  *rel = NULL;
  char *abs = NULL, *real = NULL;
  int rc = 0;
  if (file[0] == '/') {
    abs = strdup(file);
  } else {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return ens__error(ENS_EIO, "the current directory: %s", strerror(errno));
    size_t a = strlen(cwd), b = strlen(file);
    abs = malloc(a + b + 2);
    if (abs) {
      memcpy(abs, cwd, a);
      abs[a] = '/';
      memcpy(abs + a + 1, file, b + 1);
    }
  }
  if (!abs) return ens__error(ENS_ENOMEM, "out of memory");
  /* The file itself may be gone (restoring a deleted file): resolve its
   * directory and keep its name. */
  real = realpath(abs, NULL);
  if (!real) {
    char *slash = strrchr(abs, '/');
    *slash = 0;
    char *dir = realpath(abs[0] ? abs : "/", NULL);
    *slash = '/';
    if (!dir) {
      rc = ens__error(ENS_ENOTFOUND, "%s: %s", file, strerror(errno));
      goto done;
    }
    size_t a = strlen(dir), b = strlen(slash);
    real = malloc(a + b + 1);
    if (!real) {
      free(dir);
      rc = ens__error(ENS_ENOMEM, "out of memory");
      goto done;
    }
    memcpy(real, dir, a);
    memcpy(real + a, slash, b + 1);
    free(dir);
  }
  size_t w = strlen(repo->workdir);
  if (strncmp(real, repo->workdir, w) != 0 || real[w] == 0) {
    rc = ens__error(ENS_EINVAL, "%s is outside the repository's work tree %s", file, repo->workdir);
    goto done;
  }
  *rel = strdup(real + w);
  if (!*rel) rc = ens__error(ENS_ENOMEM, "out of memory");
done:
  free(abs);
  free(real);
  return rc;
}

int ens_repo_config_set(ens_repo *repo, const char *key, const char *value) {
  git_config *all = NULL, *local = NULL;
  int g = git_repository_config(&all, repo->git);
  if (g == 0) g = git_config_open_level(&local, all, GIT_CONFIG_LEVEL_LOCAL);
  if (g == 0) g = git_config_set_string(local, key, value);
  int rc = g < 0 ? ens__repo_error(g, key) : 0;
  git_config_free(local);
  git_config_free(all);
  return rc;
}

int ens_repo_config_get(ens_repo *repo, const char *key, char **value) {
  *value = NULL;
  git_config *snap = NULL;
  git_buf buf = {0};
  int g = git_repository_config_snapshot(&snap, repo->git);
  if (g == 0) g = git_config_get_string_buf(&buf, snap, key);
  int rc = 0;
  if (g == GIT_ENOTFOUND)
    rc = ens__error(ENS_ENOTFOUND, "%s is not set", key);
  else if (g < 0)
    rc = ens__repo_error(g, key);
  else if (!(*value = strdup(buf.ptr)))
    rc = ens__error(ENS_ENOMEM, "out of memory");
  git_buf_dispose(&buf);
  git_config_free(snap);
  return rc;
}

int ens__repo_commit_at(ens_repo *repo, const char *rev, git_commit **out) {
  *out = NULL;
  git_object *obj = NULL, *peeled = NULL;
  int g = git_revparse_single(&obj, repo->git, rev);
  if (g == GIT_ENOTFOUND || g == GIT_EINVALIDSPEC)
    return ens__error(g == GIT_ENOTFOUND ? ENS_ENOTFOUND : ENS_EINVAL,
                      "'%s' names no revision of this repository (a branch, a tag, HEAD~N or a commit id)", rev);
  if (g == GIT_EAMBIGUOUS) return ens__error(ENS_EINVAL, "'%s' is ambiguous: give more of the commit id", rev);
  if (g < 0) return ens__repo_error(g, rev);
  g = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
  git_object_free(obj);
  if (g < 0) return ens__error(ENS_EINVAL, "'%s' is not a commit", rev);
  *out = (git_commit *)peeled;
  return 0;
}

int ens__repo_blob_in(git_commit *commit, const char *path, char *hex) {
  hex[0] = 0;
  git_tree *tree = NULL;
  git_tree_entry *e = NULL;
  int g = git_commit_tree(&tree, commit);
  if (g < 0) return ens__repo_error(g, "reading a commit's tree");
  if (git_tree_entry_bypath(&e, tree, path) == 0 && git_tree_entry_type(e) == GIT_OBJECT_BLOB)
    git_oid_tostr(hex, 41, git_tree_entry_id(e));
  git_tree_entry_free(e);
  git_tree_free(tree);
  return 0;
}

static int s_blob_bytes(git_blob *blob, unsigned char **data, size_t *len) {
  size_t n = (size_t)git_blob_rawsize(blob);
  unsigned char *p = malloc(n + 1);
  if (!p) return ens__error(ENS_ENOMEM, "out of memory (%zu bytes)", n);
  if (n) memcpy(p, git_blob_rawcontent(blob), n);
  p[n] = 0;
  *data = p;
  *len = n;
  return 0;
}

int ens_repo_blob(ens_repo *repo, const char *hex, unsigned char **data, size_t *len) {
  *data = NULL;
  *len = 0;
  git_oid oid;
  git_blob *blob = NULL;
  if (git_oid_fromstr(&oid, hex) < 0) return ens__error(ENS_EINVAL, "'%s' is not a blob id", hex);
  int g = git_blob_lookup(&blob, repo->git, &oid);
  if (g < 0) return ens__repo_error(g, hex);
  int rc = s_blob_bytes(blob, data, len);
  git_blob_free(blob);
  return rc;
}

int ens_repo_read(ens_repo *repo, const char *rev, const char *path, unsigned char **data, size_t *len) {
  if (!repo || !rev || !path || !data || !len) return ens__error(ENS_EINVAL, "ens_repo_read: NULL argument");
  *data = NULL;
  *len = 0;
  git_commit *c = NULL;
  int rc = ens__repo_commit_at(repo, rev, &c);
  if (rc) return rc;
  char hex[41];
  rc = ens__repo_blob_in(c, path, hex);
  git_commit_free(c);
  if (rc) return rc;
  if (!hex[0]) return ens__error(ENS_ENOTFOUND, "%s has no file %s", rev, path);
  return ens_repo_blob(repo, hex, data, len);
}

int ens_repo_read_spec(ens_repo *repo, const char *spec, unsigned char **data, size_t *len) {
  const char *colon = spec ? strchr(spec, ':') : NULL;
  if (!colon || colon == spec || !colon[1])
    return ens__error(ENS_EINVAL, "'%s' is not REV:FILE (e.g. HEAD~1:font.sfd)", spec ? spec : "");
  char *rev = strndup(spec, (size_t)(colon - spec));
  if (!rev) return ens__error(ENS_ENOMEM, "out of memory");
  int rc = ens_repo_read(repo, rev, colon + 1, data, len);
  free(rev);
  return rc;
}
