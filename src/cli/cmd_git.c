/* `ensemble git setup|init|diff`: the repository set up so that plain git
 * diffs and merges fonts and drawings through Ensemble: .gitattributes
 * names the "ensemble" diff and merge drivers for *.sfd and *.svg, and the
 * repository's configuration defines them (docs/vcs.md). `git diff` runs
 * `ensemble git diff` with git's seven arguments (an external diff: the
 * change list needs both versions, which a textconv never sees at once);
 * `git merge` runs `ensemble merge --driver %O %A %B %P`. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vcs.h"

static const char *const s_patterns[] = {"*.sfd", "*.svg"};
#define S_ATTRS "diff=ensemble merge=ensemble"

char *cli_git_self(void) {
  char *self = realpath("/proc/self/exe", NULL);
  if (!self) return strdup("ensemble");
  const char *path = getenv("PATH");
  while (path && *path) {
    const char *end = strchr(path, ':');
    size_t n = end ? (size_t)(end - path) : strlen(path);
    char cand[PATH_MAX];
    if (n && n + 10 < sizeof cand) {
      memcpy(cand, path, n);
      memcpy(cand + n, "/ensemble", 10);
      char *real = access(cand, X_OK) == 0 ? realpath(cand, NULL) : NULL;
      if (real) { /* the first "ensemble" on PATH is what the shell runs */
        int same = strcmp(real, self) == 0;
        free(real);
        if (same) {
          free(self);
          return strdup("ensemble");
        }
        break;
      }
    }
    path = end ? end + 1 : NULL;
  }
  /* single quotes, each ' written '\'' */
  size_t len = strlen(self), q = 0;
  for (size_t i = 0; i < len; i++) q += self[i] == '\'';
  char *out = malloc(len + 3 * q + 3), *o = out;
  if (out) {
    *o++ = '\'';
    for (size_t i = 0; i < len; i++) {
      if (self[i] == '\'') {
        memcpy(o, "'\\''", 4);
        o += 4;
      } else {
        *o++ = self[i];
      }
    }
    *o++ = '\'';
    *o = 0;
  }
  free(self);
  return out;
}

/* Whether text holds line (whole, surrounding blanks aside). */
static int s_has_line(const char *text, const char *line) {
  size_t n = strlen(line);
  for (const char *p = text; p && *p;) {
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, line, n) == 0) {
      const char *q = p + n;
      while (*q == ' ' || *q == '\t' || *q == '\r') q++;
      if (*q == '\n' || *q == 0) return 1;
    }
    p = strchr(p, '\n');
    if (p) p++;
  }
  return 0;
}

static int s_attributes(const char *cmd, ens_repo *repo, int quiet) {
  char path[PATH_MAX], *text = NULL;
  size_t len = 0;
  snprintf(path, sizeof path, "%s.gitattributes", ens_repo_workdir(repo));
  if (access(path, F_OK) == 0 && ens_file_read(path, 1 << 20, &text, &len) != 0)
    return cli_fail(cmd, "%s: %s", path, ens_error_last());
  size_t cap = len + 256;
  char *out = malloc(cap);
  if (!out) {
    ens_free(text);
    return cli_fail(cmd, "out of memory");
  }
  memcpy(out, text ? text : "", len);
  size_t n = len, added = 0;
  for (size_t i = 0; i < sizeof s_patterns / sizeof *s_patterns; i++) {
    char line[64];
    snprintf(line, sizeof line, "%s " S_ATTRS, s_patterns[i]);
    if (text && s_has_line(text, line)) continue;
    if (n && out[n - 1] != '\n') out[n++] = '\n';
    if (n == len && added == 0 && len == 0)
      n += (size_t)snprintf(out + n, cap - n, "# Fonts and drawings: diff and merge by Ensemble (ensemble git setup)\n");
    n += (size_t)snprintf(out + n, cap - n, "%s\n", line);
    added++;
  }
  int rc = CLI_OK;
  if (added) {
    ens_file_write_opts o = {-1, 0, NULL, NULL};
    if (ens_file_write_atomic(path, out, n, &o) != 0)
      rc = cli_fail(cmd, "%s", ens_error_last());
    else if (!quiet)
      printf(".gitattributes: %zu line%s added (*.sfd and *.svg diff and merge with Ensemble)\n", added,
             added == 1 ? "" : "s");
  } else if (!quiet) {
    printf(".gitattributes: already names Ensemble for *.sfd and *.svg\n");
  }
  free(out);
  ens_free(text);
  return rc;
}

static int s_config(const char *cmd, ens_repo *repo, const char *key, const char *value, int quiet, int *changed) {
  char *have = NULL;
  int same = ens_repo_config_get(repo, key, &have) == 0 && strcmp(have, value) == 0;
  ens_free(have);
  if (same) return CLI_OK;
  if (ens_repo_config_set(repo, key, value) != 0) return cli_fail(cmd, "%s", ens_error_last());
  if (!quiet) printf("git config %s = %s\n", key, value);
  (*changed)++;
  return CLI_OK;
}

int cli_git_setup(const char *cmd, ens_repo *repo, const char *command, int quiet) {
  size_t n = strlen(command) + 64;
  char *diff = malloc(n), *merge = malloc(n);
  int rc = CLI_FAIL, changed = 0;
  if (!diff || !merge) {
    cli_fail(cmd, "out of memory");
    goto done;
  }
  snprintf(diff, n, "%s git diff", command);
  snprintf(merge, n, "%s merge --driver %%O %%A %%B %%P", command);
  if (s_attributes(cmd, repo, quiet) != CLI_OK) goto done;
  if (s_config(cmd, repo, "diff.ensemble.command", diff, quiet, &changed) ||
      s_config(cmd, repo, "merge.ensemble.name", "Ensemble: three-way merge of fonts and drawings", quiet,
               &changed) ||
      s_config(cmd, repo, "merge.ensemble.driver", merge, quiet, &changed))
    goto done;
  if (!quiet && !changed) printf("git config: already set up\n");
  rc = CLI_OK;
done:
  free(diff);
  free(merge);
  return rc;
}

/* --- ensemble git setup ---------------------------------------------------- */

static const cli_option s_setup_options[] = {
    {"command", 0, "CMD", "how git should run ensemble (default: 'ensemble' if PATH finds this one, else its path)"},
    {"quiet", 'q', NULL, "say nothing"},
    {0}};
static const cli_spec s_setup_spec = {
    "git setup", "[--command CMD] [-q]",
    "Sets up the git repository of the current directory so that plain git\n"
    "uses Ensemble for fonts (*.sfd) and drawings (*.svg): .gitattributes\n"
    "gets '*.sfd diff=ensemble merge=ensemble' (and the same for *.svg), and\n"
    "the repository's configuration (.git/config) defines the drivers:\n"
    "  diff.ensemble.command = ensemble git diff     (git diff: the changes\n"
    "                                                 object by object)\n"
    "  merge.ensemble.driver = ensemble merge --driver %O %A %B %P\n"
    "  merge.ensemble.name\n"
    "Running it again changes nothing. Commit .gitattributes so that every\n"
    "clone has it; the configuration stays in this clone (run setup in each).\n"
    "Outside a repository it refuses: 'ensemble init' makes one, set up.",
    s_setup_options, 0, 0};

static int s_setup(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_setup_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  ens_repo *repo = NULL;
  if (ens_repo_open(".", &repo) != 0)
    return cli_fail("git setup", "%s", ens_error_last());
  const char *given = cli_opt(&s_setup_spec, &args, "command");
  char *self = given ? strdup(given) : cli_git_self();
  rc = self ? cli_git_setup("git setup", repo, self, cli_opt(&s_setup_spec, &args, "quiet") != NULL)
            : cli_fail("git setup", "out of memory");
  free(self);
  ens_repo_free(repo);
  return rc;
}

/* --- ensemble git diff (git's external diff) --------------------------------- */

static const cli_option s_diff_options[] = {{0}};
static const cli_spec s_diff_spec = {
    "git diff", "PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE [NEW-PATH INFO]",
    "git's external diff for fonts and drawings (diff.ensemble.command, set by\n"
    "'ensemble git setup'): git runs it with these seven arguments (nine for a\n"
    "rename) for each changed .sfd or .svg file, and it prints what changed\n"
    "object by object, as 'ensemble diff' does. A version that does not read\n"
    "is said so. It exits 0 whenever it could say something, since git stops\n"
    "the whole diff at any other status. For a plain line diff, run\n"
    "'git diff --no-ext-diff'.",
    s_diff_options, 7, 9};

static int s_read(const char *file, char **data, size_t *len) {
  if (strcmp(file, "/dev/null") == 0) {
    *data = NULL;
    *len = 0;
    return 1;
  }
  return ens_file_read(file, (size_t)1 << 31, data, len) == 0 ? 0 : -1;
}

static int s_diff(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_diff_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  if (args.nargs == 8) return cli_usage_error(&s_diff_spec, "seven or nine arguments, as git gives them");
  const char *path = args.args[0], *new_path = args.nargs == 9 ? args.args[7] : path;
  char *a = NULL, *b = NULL, err[1024], kind[16];
  size_t alen = 0, blen = 0;
  ens_changes *changes = NULL;
  printf("ensemble diff a/%s b/%s\n", path, new_path);
  int ra = s_read(args.args[1], &a, &alen), rb = s_read(args.args[4], &b, &blen);
  if (ra < 0 || rb < 0) {
    printf("  cannot read %s: %s\n", ra < 0 ? args.args[1] : args.args[4], ens_error_last());
  } else if (ra == 1 || rb == 1) {
    printf("  %s file\n", ra == 1 ? "new" : "deleted");
  } else if (cli_vcs_changes(new_path, a, alen, b, blen, &changes, kind, err, sizeof err) != 0) {
    printf("  does not read as a font or drawing, so no changes object by object: %s\n", err);
  } else if (ens_changes_count(changes) == 0) {
    printf("  no changes (editor noise only)\n");
  } else if (ens_changes_write_text(changes, kind, stdout) != 0) {
    rc = cli_fail("git diff", "writing the changes: %s", ens_error_last());
  }
  if (rc == CLI_RUN) rc = CLI_OK;
  ens_changes_free(changes);
  ens_free(a);
  ens_free(b);
  return rc;
}

/* --- ensemble git ------------------------------------------------------------- */

static const cli_option s_git_options[] = {{0}};
static const cli_spec s_git_spec = {
    "git", "setup|init|diff [options]",
    "git for designers. Subcommands:\n"
    "  setup   make plain git diff and git merge use Ensemble for *.sfd and *.svg\n"
    "  init    make the current directory (or DIR) a repository, set up (= ensemble init)\n"
    "  diff    git's external diff driver (git runs it; see 'ensemble git diff --help')\n"
    "The everyday commands are top-level: ensemble init, commit, log, show,\n"
    "restore, branch, switch, tag (docs/cli.md).",
    s_git_options, 1, 1};

int cli_cmd_git(int argc, char **argv) {
  if (argc >= 2 && argv[1][0] != '-') {
    if (strcmp(argv[1], "setup") == 0) return s_setup(argc - 1, argv + 1);
    if (strcmp(argv[1], "diff") == 0) return s_diff(argc - 1, argv + 1);
    if (strcmp(argv[1], "init") == 0) return cli_cmd_init(argc - 1, argv + 1);
    return cli_usage_error(&s_git_spec, "unknown subcommand '%s'", argv[1]);
  }
  cli_args args;
  int rc = cli_parse(&s_git_spec, argc, argv, &args);
  return rc != CLI_RUN ? rc : cli_usage_error(&s_git_spec, "which subcommand?");
}
