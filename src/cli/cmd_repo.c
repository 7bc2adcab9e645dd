/* The everyday git commands for people who never learned git: init,
 * commit, branch, switch, tag, all through the library's git layer
 * (ensemble/repo.h), never by running git. */
#include <stdlib.h>
#include <string.h>

#include "vcs.h"

/* --- init --------------------------------------------------------------------- */

static const cli_option s_init_options[] = {
    {"command", 0, "CMD", "how git should run ensemble (as for 'ensemble git setup')"}, {0}};
static const cli_spec s_init_spec = {
    "init", "[--command CMD] [DIR]",
    "Makes DIR (default: the current directory) a git repository whose first\n"
    "branch is 'main', set up for fonts and drawings as 'ensemble git setup'\n"
    "does. An existing repository is only set up.",
    s_init_options, 0, 1};

int cli_cmd_init(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_init_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *dir = args.nargs ? args.args[0] : ".";
  ens_repo *repo = NULL;
  if (ens_repo_init(dir, &repo) != 0) return cli_fail("init", "%s", ens_error_last());
  printf("repository: %s\n", ens_repo_workdir(repo));
  const char *given = cli_opt(&s_init_spec, &args, "command");
  char *self = given ? strdup(given) : cli_git_self();
  rc = self ? cli_git_setup("init", repo, self, 0) : cli_fail("init", "out of memory");
  free(self);
  ens_repo_free(repo);
  return rc;
}

/* --- commit ------------------------------------------------------------------ */

static const cli_option s_commit_options[] = {{"message", 'm', "MSG", "what this version is (required)"}, {0}};
static const cli_spec s_commit_spec = {
    "commit", "-m MSG [FILE...]",
    "Records a new version on the current branch: the FILEs named as they are\n"
    "now (a deleted one as deleted), or, with none named, every change of the\n"
    "work tree, new files included (those .gitignore names left out). Ends a\n"
    "merge that stopped on conflicts once its files are as they should be.\n"
    "Exit status: 0 committed, 1 nothing to commit or failure, 2 bad command\n"
    "line. The name and email recorded are git's user.name and user.email.",
    s_commit_options, 0, CLI_MAX_ARGS};

int cli_cmd_commit(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_commit_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *msg = cli_opt(&s_commit_spec, &args, "message");
  if (!msg) return cli_usage_error(&s_commit_spec, "a commit needs a message: -m MSG");
  ens_repo *repo = NULL;
  if ((rc = cli_repo_open("commit", &repo)) != CLI_RUN) return rc;
  char *paths[CLI_MAX_ARGS] = {0}, id[41], *branch = NULL;
  rc = CLI_FAIL;
  for (int i = 0; i < args.nargs; i++)
    if (!(paths[i] = cli_repo_path("commit", repo, args.args[i]))) goto done;
  if (ens_repo_commit(repo, (const char *const *)paths, (size_t)args.nargs, msg, id) != 0) {
    cli_fail("commit", "%s", ens_error_last());
    goto done;
  }
  ens_repo_current_branch(repo, &branch);
  printf("[%s %.7s] %s\n", branch ? branch : "detached", id, msg);
  rc = CLI_OK;
done:
  for (int i = 0; i < args.nargs; i++) ens_free(paths[i]);
  ens_free(branch);
  ens_repo_free(repo);
  return rc;
}

/* --- branch -------------------------------------------------------------------- */

static const cli_option s_branch_options[] = {{"at", 0, "REV", "start the new branch at REV (default: HEAD)"}, {0}};
static const cli_spec s_branch_spec = {
    "branch", "[NAME [--at REV]]",
    "With no NAME, lists the branches, the current one marked '*'. With NAME,\n"
    "starts a new branch there (it does not switch to it: 'ensemble switch\n"
    "NAME' does, 'ensemble switch -c NAME' does both).",
    s_branch_options, 0, 1};

static int s_print_name(const char *name, int current, void *user) {
  (void)user;
  printf("%c %s\n", current ? '*' : ' ', name);
  return 0;
}

int cli_cmd_branch(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_branch_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *at = cli_opt(&s_branch_spec, &args, "at");
  if (at && !args.nargs) return cli_usage_error(&s_branch_spec, "--at is for a new branch: give its NAME");
  ens_repo *repo = NULL;
  if ((rc = cli_repo_open("branch", &repo)) != CLI_RUN) return rc;
  if (args.nargs)
    rc = ens_repo_branch_create(repo, args.args[0], at) == 0 ? CLI_OK : cli_fail("branch", "%s", ens_error_last());
  else
    rc = ens_repo_branches(repo, s_print_name, NULL) == 0 ? CLI_OK : cli_fail("branch", "%s", ens_error_last());
  ens_repo_free(repo);
  return rc;
}

/* --- switch --------------------------------------------------------------------- */

static const cli_option s_switch_options[] = {{"create", 'c', NULL, "start the branch here first"}, {0}};
static const cli_spec s_switch_spec = {
    "switch", "[-c] NAME",
    "Makes NAME the current branch and puts its versions of the files in the\n"
    "work tree. Refuses, changing nothing, when that would overwrite a file\n"
    "with changes not committed (commit them first).",
    s_switch_options, 1, 1};

int cli_cmd_switch(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_switch_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  ens_repo *repo = NULL;
  if ((rc = cli_repo_open("switch", &repo)) != CLI_RUN) return rc;
  rc = CLI_FAIL;
  if (cli_opt(&s_switch_spec, &args, "create") && ens_repo_branch_create(repo, args.args[0], NULL) != 0)
    cli_fail("switch", "%s", ens_error_last());
  else if (ens_repo_switch(repo, args.args[0]) != 0)
    cli_fail("switch", "%s", ens_error_last());
  else
    printf("on branch %s\n", args.args[0]), rc = CLI_OK;
  ens_repo_free(repo);
  return rc;
}

/* --- tag -------------------------------------------------------------------------- */

static const cli_option s_tag_options[] = {{"message", 'm', "MSG", "an annotated tag with this message"},
                                           {"at", 0, "REV", "tag REV (default: HEAD)"},
                                           {0}};
static const cli_spec s_tag_spec = {
    "tag", "[NAME [-m MSG] [--at REV]]",
    "With no NAME, lists the tags. With NAME, names the current version (or\n"
    "REV) so that it can be found again: 'ensemble show NAME:font.sfd',\n"
    "'ensemble restore font.sfd --at NAME'.",
    s_tag_options, 0, 1};

int cli_cmd_tag(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_tag_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *msg = cli_opt(&s_tag_spec, &args, "message"), *at = cli_opt(&s_tag_spec, &args, "at");
  if ((msg || at) && !args.nargs) return cli_usage_error(&s_tag_spec, "-m and --at are for a new tag: give its NAME");
  ens_repo *repo = NULL;
  if ((rc = cli_repo_open("tag", &repo)) != CLI_RUN) return rc;
  if (args.nargs)
    rc = ens_repo_tag(repo, args.args[0], at, msg) == 0 ? CLI_OK : cli_fail("tag", "%s", ens_error_last());
  else
    rc = ens_repo_tags(repo, s_print_name, NULL) == 0 ? CLI_OK : cli_fail("tag", "%s", ens_error_last());
  ens_repo_free(repo);
  return rc;
}
