/* Ensemble's git layer: the few repository operations that version control
 * for designers needs (open, commit, history of one file, branches, tags,
 * one file read or restored at a revision), through libgit2, never by
 * running git (docs/vcs.md, "git for designers"). */
#ifndef ENSEMBLE_REPO_H
#define ENSEMBLE_REPO_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ens_repo ens_repo;

/* Opens the repository holding path (a file or directory inside its work
 * tree; parents are searched). ENS_ENOTFOUND when there is none. *out is
 * the caller's (ens_repo_free). */
int ens_repo_open(const char *path, ens_repo **out);
/* Makes dir a new repository (its first branch "main") and opens it; an
 * existing repository at dir is opened as is. */
int ens_repo_init(const char *dir, ens_repo **out);
void ens_repo_free(ens_repo *repo); /* accepts NULL */

/* The work tree's directory, ending in '/'; borrowed from repo. */
const char *ens_repo_workdir(const ens_repo *repo);
/* The repository's own directory (".git/"), ending in '/'; borrowed. */
const char *ens_repo_gitdir(const ens_repo *repo);
/* file (relative to the current directory, or absolute) as a path inside
 * the work tree ("fonts/a.sfd"), malloc'd into *rel (ens_free).
 * ENS_EINVAL when it lies outside the work tree. */
int ens_repo_relpath(const ens_repo *repo, const char *file, char **rel);

/* The local configuration (.git/config): key ("merge.ensemble.driver")
 * set to value. */
int ens_repo_config_set(ens_repo *repo, const char *key, const char *value);
/* The value key has (any level of configuration), malloc'd into *value
 * (ens_free); ENS_ENOTFOUND when unset. */
int ens_repo_config_get(ens_repo *repo, const char *key, char **value);

/* The bytes of path (inside the work tree) at revision rev ("HEAD",
 * "main~2", a tag, a commit id), malloc'd into *data (ens_free) with a NUL
 * after the last byte. ENS_ENOTFOUND when rev names no commit or the
 * commit has no such file, with a message that says which. */
int ens_repo_read(ens_repo *repo, const char *rev, const char *path, unsigned char **data, size_t *len);
/* The same with "REV:PATH" in one string (as `git show` takes it). */
int ens_repo_read_spec(ens_repo *repo, const char *spec, unsigned char **data, size_t *len);

/* One commit, as the history walk and the commit call give it. Strings
 * are borrowed for the duration of the callback. */
typedef struct {
  char id[41];         /* full hex id */
  const char *summary; /* first line of the message */
  const char *message; /* whole message */
  const char *author;  /* "Name <email>" */
  int64_t time;        /* author time, seconds since the epoch */
  int time_offset;     /* minutes east of UTC */
  /* The file's blob in this commit and in its first parent (ens_repo_log):
   * hex ids, "" where it is absent. */
  char blob[41], parent_blob[41];
  char parent[41];     /* first parent's id, "" for a root commit */
} ens_repo_commit_info;

/* Calls fn for each commit reachable from HEAD that changed path, newest
 * first (by commit time, parents after their children): a commit whose
 * file differs from every parent's (so a merge that only took one side's
 * version is skipped, as git log does), or a root commit holding it. A
 * nonzero return from fn stops the walk and is returned. */
typedef int (*ens_repo_log_fn)(const ens_repo_commit_info *commit, void *user);
int ens_repo_log(ens_repo *repo, const char *path, ens_repo_log_fn fn, void *user);
/* The bytes of a blob by hex id, as ens_repo_read gives them. */
int ens_repo_blob(ens_repo *repo, const char *hex, unsigned char **data, size_t *len);

/* Commits on the current branch. paths (n of them, inside the work tree)
 * are staged first as they are on disk (a deleted one is removed); with
 * n == 0 every change of the work tree is staged, new files included,
 * ignored ones not. An unborn branch gets its first commit; a merge in
 * progress (MERGE_HEAD) becomes a merge commit and is finished. Author and
 * committer from the configuration (user.name, user.email): ENS_EINVAL
 * with a message saying how to set them when missing. ENS_EEMPTY when the
 * commit would change nothing. id (41 bytes) gets the new commit's hex id;
 * may be NULL. */
int ens_repo_commit(ens_repo *repo, const char *const *paths, size_t n, const char *message, char *id);

/* The current branch's short name, malloc'd (ens_free); ENS_ENOTFOUND when
 * HEAD is detached. */
int ens_repo_current_branch(ens_repo *repo, char **name);
/* Calls fn with each local branch's short name (is_current 1 for HEAD's). */
typedef int (*ens_repo_name_fn)(const char *name, int is_current, void *user);
int ens_repo_branches(ens_repo *repo, ens_repo_name_fn fn, void *user);
/* A new branch named name at rev (NULL: HEAD). ENS_EEXISTS when it exists,
 * ENS_EINVAL for a name git does not allow. */
int ens_repo_branch_create(ens_repo *repo, const char *name, const char *rev);
/* Makes branch name the current one and its files the work tree's. Safe:
 * ENS_EEXISTS (nothing changed) when a file with uncommitted changes
 * would be overwritten, naming it. ENS_ENOTFOUND for an unknown branch. */
int ens_repo_switch(ens_repo *repo, const char *name);

/* A tag named name at rev (NULL: HEAD): annotated when message is given,
 * lightweight otherwise. ENS_EEXISTS when the tag exists. */
int ens_repo_tag(ens_repo *repo, const char *name, const char *rev, const char *message);
/* Calls fn with each tag's name (is_current 0). */
int ens_repo_tags(ens_repo *repo, ens_repo_name_fn fn, void *user);

/* Replaces path in the work tree with its content at rev, atomically
 * (temporary file, fsync, rename; the file's mode kept), and leaves the
 * index as it is, so the roll-back shows as a change to commit. When the
 * file has changes not committed (against HEAD, staged or not, or it is
 * not tracked) they are never lost: without force, ENS_EEXISTS and nothing
 * changes; with force, the file is first copied to a backup beside it
 * ("NAME.ensemble-backup-YYYYMMDD-HHMMSS[-N]", never replacing one) whose
 * path is malloc'd into *backup (ens_free; NULL when none was needed).
 * backup may be NULL. ENS_ENOTFOUND when rev or the file at rev is not
 * there. A file equal to rev's content is left alone (0). */
int ens_repo_restore(ens_repo *repo, const char *path, const char *rev, int force, char **backup);

#ifdef __cplusplus
}
#endif
#endif
