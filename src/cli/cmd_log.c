/* One file through its history: `ensemble log FILE` (each version that
 * changed it, with a summary of what changed, object by object), `ensemble
 * show REV:FILE` (the file as it was) and `ensemble restore FILE --at REV`
 * (one file rolled back, uncommitted work kept). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vcs.h"

/* --- log ------------------------------------------------------------------- */

static const cli_option s_log_options[] = {
    {"changes", 'c', NULL, "list each version's changes, object by object"},
    {"max", 'n', "N", "show at most N versions"},
    {0}};
static const cli_spec s_log_spec = {
    "log", "[-c] [-n N] FILE",
    "The history of FILE on the current branch, newest first: each commit\n"
    "that changed it (id, date, author, message) with a summary of what it\n"
    "changed against the version before ('3 glyphs changed, 1 added (12\n"
    "changes)'; editor noise does not count), or with -c the whole list.",
    s_log_options, 1, 1};

typedef struct {
  ens_repo *repo;
  const char *path;
  int changes;
  long max, shown;
} s_log_state;

static int s_log_one(const ens_repo_commit_info *c, void *user) {
  s_log_state *st = user;
  if (st->max >= 0 && st->shown >= st->max) return 1;
  st->shown++;
  char when[32];
  time_t t = (time_t)(c->time + (int64_t)c->time_offset * 60);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
  printf("%.10s %s %c%02d%02d %s\n    %s\n", c->id, when, c->time_offset < 0 ? '-' : '+',
         abs(c->time_offset) / 60, abs(c->time_offset) % 60, c->author, c->summary);
  unsigned char *a = NULL, *b = NULL;
  size_t alen = 0, blen = 0;
  char err[1024], kind[16], line[256];
  ens_changes *changes = NULL;
  if (!c->blob[0]) {
    printf("    file removed\n");
  } else if (!c->parent_blob[0]) {
    printf("    file added\n");
  } else if (ens_repo_blob(st->repo, c->parent_blob, &a, &alen) || ens_repo_blob(st->repo, c->blob, &b, &blen)) {
    printf("    (cannot read this version: %s)\n", ens_error_last());
  } else if (cli_vcs_changes(st->path, a, alen, b, blen, &changes, kind, err, sizeof err)) {
    printf("    (does not read: %s)\n", err);
  } else {
    cli_vcs_summary(changes, kind, line, sizeof line);
    printf("    %s\n", line);
    if (st->changes && ens_changes_count(changes)) {
      fflush(stdout);
      ens_changes_write_text(changes, kind, stdout);
    }
  }
  printf("\n");
  ens_changes_free(changes);
  ens_free(a);
  ens_free(b);
  return 0;
}

int cli_cmd_log(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_log_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  s_log_state st = {NULL, NULL, cli_opt(&s_log_spec, &args, "changes") != NULL, -1, 0};
  const char *max = cli_opt(&s_log_spec, &args, "max");
  if (max) {
    char *end;
    st.max = strtol(max, &end, 10);
    if (*end || st.max < 0) return cli_usage_error(&s_log_spec, "-n wants a number of versions, not '%s'", max);
  }
  if ((rc = cli_repo_open("log", &st.repo)) != CLI_RUN) return rc;
  char *path = cli_repo_path("log", st.repo, args.args[0]);
  rc = CLI_FAIL;
  if (path) {
    st.path = path;
    int r = ens_repo_log(st.repo, path, s_log_one, &st);
    if (r < 0)
      cli_fail("log", "%s", ens_error_last());
    else if (st.shown == 0 && st.max != 0)
      cli_fail("log", "no commit on this branch holds %s", path);
    else
      rc = CLI_OK;
  }
  ens_free(path);
  ens_repo_free(st.repo);
  return rc;
}

/* --- show -------------------------------------------------------------------- */

static const cli_option s_show_options[] = {
    {"output", 'o', "OUT", "write to OUT (atomically) rather than to the standard output"},
    {"visual", 0, NULL, "draw what REV changed in FILE against the version before it (-o OUT: .svg, .png, .html)"},
    {0}};
static const cli_spec s_show_spec = {
    "show", "REV:FILE [-o OUT] | --visual REV:FILE -o OUT",
    "The file FILE as it was at REV (a branch, a tag, HEAD~2, a commit id;\n"
    "FILE relative to the current directory, or to the repository's top when\n"
    "that does not name it), to the standard output or OUT. With --visual,\n"
    "the visual diff of FILE at REV's first parent and at REV.",
    s_show_options, 1, 1};

/* REV:FILE split, FILE made a path in the work tree. */
static int s_spec_split(ens_repo *repo, const char *spec, char **rev, char **path) {
  const char *colon = strchr(spec, ':');
  *rev = *path = NULL;
  if (!colon || colon == spec || !colon[1]) return -1;
  *rev = strndup(spec, (size_t)(colon - spec));
  if (ens_repo_relpath(repo, colon + 1, path) != 0) *path = strdup(colon + 1);
  return *rev && *path ? 0 : -1;
}

/* Writes a version to DIR/BASENAME so that its name says its format. */
static char *s_temp_version(const char *dir, const char *tag, const char *path, const void *data, size_t len) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(dir) + strlen(tag) + strlen(base) + 4;
  char *p = malloc(n);
  if (!p) return NULL;
  snprintf(p, n, "%s/%s-%s", dir, tag, base);
  ens_file_write_opts o = {0600, 0, NULL, NULL};
  if (ens_file_write_atomic(p, data, len, &o) != 0) {
    free(p);
    return NULL;
  }
  return p;
}

static int s_show_visual(ens_repo *repo, const char *rev, const char *path, const char *out) {
  size_t n = strlen(rev) + 3;
  char *parent = malloc(n), dir[] = "/tmp/ensemble-show.XXXXXX", *a_path = NULL, *b_path = NULL;
  unsigned char *a = NULL, *b = NULL;
  size_t alen = 0, blen = 0;
  int rc = CLI_FAIL, made = 0;
  if (!parent) return cli_fail("show", "out of memory");
  snprintf(parent, n, "%s^", rev);
  if (ens_repo_read(repo, rev, path, &b, &blen) != 0) {
    cli_fail("show", "%s", ens_error_last());
    goto done;
  }
  if (ens_repo_read(repo, parent, path, &a, &alen) != 0) {
    cli_fail("show", "nothing to compare %s:%s with: %s", rev, path, ens_error_last());
    goto done;
  }
  if (!mkdtemp(dir)) {
    cli_fail("show", "a temporary directory: %s", strerror(errno));
    goto done;
  }
  made = 1;
  if (!(a_path = s_temp_version(dir, "old", path, a, alen)) || !(b_path = s_temp_version(dir, "new", path, b, blen))) {
    cli_fail("show", "writing the versions: %s", ens_error_last());
    goto done;
  }
  rc = cli_show_visual("show", a_path, b_path, out);
done:
  if (a_path) unlink(a_path);
  if (b_path) unlink(b_path);
  if (made) rmdir(dir);
  free(a_path);
  free(b_path);
  free(parent);
  ens_free(a);
  ens_free(b);
  return rc;
}

int cli_cmd_show(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_show_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *out = cli_opt(&s_show_spec, &args, "output");
  int visual = cli_opt(&s_show_spec, &args, "visual") != NULL;
  if (visual && !out) return cli_usage_error(&s_show_spec, "--visual needs -o OUT (.svg, .png or .html)");
  if (!strchr(args.args[0], ':'))
    return cli_usage_error(&s_show_spec, "'%s' is not REV:FILE (e.g. HEAD~1:font.sfd)", args.args[0]);
  ens_repo *repo = NULL;
  if ((rc = cli_repo_open("show", &repo)) != CLI_RUN) return rc;
  char *rev = NULL, *path = NULL;
  unsigned char *data = NULL;
  size_t len = 0;
  rc = CLI_FAIL;
  if (s_spec_split(repo, args.args[0], &rev, &path) != 0) {
    rc = cli_usage_error(&s_show_spec, "'%s' is not REV:FILE (e.g. HEAD~1:font.sfd)", args.args[0]);
  } else if (visual) {
    rc = s_show_visual(repo, rev, path, out);
  } else if (ens_repo_read(repo, rev, path, &data, &len) != 0) {
    cli_fail("show", "%s", ens_error_last());
  } else if (out) {
    ens_file_write_opts o = {-1, 0, NULL, NULL};
    rc = ens_file_write_atomic(out, data, len, &o) == 0 ? CLI_OK : cli_fail("show", "%s", ens_error_last());
  } else {
    rc = fwrite(data, 1, len, stdout) == len ? CLI_OK : cli_fail("show", "writing the file: %s", strerror(errno));
  }
  free(rev);
  free(path);
  ens_free(data);
  ens_repo_free(repo);
  return rc;
}

/* --- restore --------------------------------------------------------------------- */

static const cli_option s_restore_options[] = {
    {"at", 0, "REV", "the revision to roll back to (required): a branch, a tag, HEAD~2, a commit id"},
    {"force", 'f', NULL, "even when FILE has changes not committed (a backup of it is kept, and named)"},
    {0}};
static const cli_spec s_restore_spec = {
    "restore", "FILE --at REV [--force]",
    "Rolls one file back: FILE becomes what it was at REV, written atomically\n"
    "(a temporary file, synced, renamed over it), the other files untouched.\n"
    "The roll-back is a change like any other: commit it to keep it. When\n"
    "FILE has changes no commit holds, it refuses and changes nothing; with\n"
    "--force it first copies FILE to FILE.ensemble-backup-DATE-TIME and says\n"
    "so. Exit status: 0 restored (or already so), 1 refused or failed, 2\n"
    "bad command line.",
    s_restore_options, 1, 1};

int cli_cmd_restore(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_restore_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *at = cli_opt(&s_restore_spec, &args, "at");
  if (!at) return cli_usage_error(&s_restore_spec, "which version? --at REV");
  ens_repo *repo = NULL;
  if ((rc = cli_repo_open("restore", &repo)) != CLI_RUN) return rc;
  char *path = cli_repo_path("restore", repo, args.args[0]), *backup = NULL;
  rc = CLI_FAIL;
  if (path) {
    if (ens_repo_restore(repo, path, at, cli_opt(&s_restore_spec, &args, "force") != NULL, &backup) != 0) {
      cli_fail("restore", "%s", ens_error_last());
    } else {
      if (backup) printf("kept your uncommitted version as %s\n", backup);
      printf("%s is now as it was at %s\n", args.args[0], at);
      rc = CLI_OK;
    }
  }
  ens_free(backup);
  ens_free(path);
  ens_repo_free(repo);
  return rc;
}
