/* The history of one file: the commits reachable from HEAD that changed
 * it, newest first (ensemble/repo.h, ens_repo_log). */
#include <stdio.h>
#include <string.h>

#include "repo_int.h"
#include "util/error.h"

static void s_fill(git_commit *c, ens_repo_commit_info *info, char *who, size_t who_size) {
  memset(info, 0, sizeof *info);
  git_oid_tostr(info->id, sizeof info->id, git_commit_id(c));
  info->summary = git_commit_summary(c);
  if (!info->summary) info->summary = "";
  info->message = git_commit_message(c);
  if (!info->message) info->message = "";
  const git_signature *a = git_commit_author(c);
  snprintf(who, who_size, "%s <%s>", a && a->name ? a->name : "", a && a->email ? a->email : "");
  info->author = who;
  info->time = a ? (int64_t)a->when.time : (int64_t)git_commit_time(c);
  info->time_offset = a ? a->when.offset : git_commit_time_offset(c);
  if (git_commit_parentcount(c) > 0) git_oid_tostr(info->parent, sizeof info->parent, git_commit_parent_id(c, 0));
}

int ens_repo_log(ens_repo *repo, const char *path, ens_repo_log_fn fn, void *user) {
  if (!repo || !path || !fn) return ens__error(ENS_EINVAL, "ens_repo_log: NULL argument");
  git_revwalk *walk = NULL;
  git_oid oid;
  if (git_repository_head_unborn(repo->git) == 1) return ens__error(ENS_ENOTFOUND, "the repository has no commits yet");
  int rc = 0, g = git_revwalk_new(&walk, repo->git);
  if (g == 0) g = git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  if (g == 0) g = git_revwalk_push_head(walk);
  if (g == GIT_EUNBORNBRANCH || g == GIT_ENOTFOUND) {
    rc = ens__error(ENS_ENOTFOUND, "the repository has no commits yet");
    goto done;
  }
  if (g < 0) {
    rc = ens__repo_error(g, "walking the history");
    goto done;
  }
  while ((g = git_revwalk_next(&oid, walk)) == 0) {
    git_commit *c = NULL;
    if ((g = git_commit_lookup(&c, repo->git, &oid)) < 0) break;
    ens_repo_commit_info info;
    char who[512];
    s_fill(c, &info, who, sizeof who);
    rc = ens__repo_blob_in(c, path, info.blob);
    unsigned np = git_commit_parentcount(c);
    int changed = np == 0 ? info.blob[0] != 0 : 1;
    for (unsigned i = 0; rc == 0 && i < np; i++) {
      git_commit *p = NULL;
      char hex[41];
      if ((g = git_commit_parent(&p, c, i)) < 0) {
        rc = ens__repo_error(g, "reading a parent commit");
        break;
      }
      rc = ens__repo_blob_in(p, path, hex);
      git_commit_free(p);
      if (i == 0) memcpy(info.parent_blob, hex, sizeof hex);
      if (strcmp(hex, info.blob) == 0) changed = 0;
    }
    if (rc == 0 && changed) rc = fn(&info, user);
    git_commit_free(c);
    if (rc) goto done;
  }
  if (g != GIT_ITEROVER) rc = ens__repo_error(g, "walking the history");
done:
  git_revwalk_free(walk);
  return rc;
}
