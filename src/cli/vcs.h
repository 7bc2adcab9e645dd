/* Private to the git commands (cmd_git.c, cmd_repo.c, cmd_log.c): the
 * repository of the current directory, the semantic summary of a file's
 * two versions, and the setup that makes git use Ensemble. */
#ifndef ENS_CLI_VCS_H
#define ENS_CLI_VCS_H

#include "cli.h"

/* The repository holding the current directory; CLI_RUN, or CLI_FAIL after
 * saying why (none here: how to make one). */
int cli_repo_open(const char *cmd, ens_repo **out);
/* file (as the user typed it) as a path inside repo's work tree, malloc'd;
 * NULL after saying why. */
char *cli_repo_path(const char *cmd, ens_repo *repo, const char *file);

/* The changes between two versions (bytes) of the file named path (its
 * name picks the format). 0, or -1 with the reason in err. *out is the
 * caller's (ens_changes_free); kind gets "sfd" or "svg" (16 bytes). */
int cli_vcs_changes(const char *path, const void *old_data, size_t old_len, const void *new_data, size_t new_len,
                    ens_changes **out, char *kind, char *err, size_t err_size);
/* One line for people: "2 glyphs changed, 1 added (7 changes)"; "no
 * changes (editor noise only)" when the list is empty. */
void cli_vcs_summary(const ens_changes *changes, const char *kind, char *out, size_t size);

/* Writes .gitattributes and the repository's configuration so that git's
 * diff and merge of .sfd and .svg files go through `command` (the
 * ensemble program as the shell should run it). Changes only what is not
 * so already; prints what it did unless quiet. CLI_OK or CLI_FAIL. */
int cli_git_setup(const char *cmd, ens_repo *repo, const char *command, int quiet);
/* How git should run this ensemble program: "ensemble" when that name on
 * PATH is this program, else its absolute path quoted for the shell;
 * malloc'd. */
char *cli_git_self(void);

/* `ensemble show --visual`: the visual diff of two versions of one file
 * (old_path, new_path: files named like the original) into out. */
int cli_show_visual(const char *cmd, const char *old_path, const char *new_path, const char *out);

#endif
