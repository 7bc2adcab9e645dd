/* Private to the git layer (repo_*.c): the repository handle and the
 * translation of libgit2's errors into Ensemble's. */
#ifndef ENS_VCS_REPO_INT_H
#define ENS_VCS_REPO_INT_H

#include <git2.h>

#include "ensemble/repo.h"

struct ens_repo {
  git_repository *git;
  char *workdir; /* real path, ending in '/' */
  char *gitdir;
};

/* Sets the thread's message to "what: libgit2's last message" and returns
 * the Ensemble code for libgit2's code gerr. */
int ens__repo_error(int gerr, const char *what);
/* The commit rev names (peeled through tags), with a clear message when it
 * names none. The caller frees *out (git_commit_free). */
int ens__repo_commit_at(ens_repo *repo, const char *rev, git_commit **out);
/* Hex id of path's blob in commit's tree into hex (41 bytes), "" when the
 * tree has no such file (or it is not a blob). */
int ens__repo_blob_in(git_commit *commit, const char *path, char *hex);

#endif
