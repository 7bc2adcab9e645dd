/* Making history: commits of the work tree's files, branches, switching
 * between them, tags (ensemble/repo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repo_int.h"
#include "util/error.h"

static int s_signature(ens_repo *repo, git_signature **sig) {
  int g = git_signature_default(sig, repo->git);
  if (g == GIT_ENOTFOUND)
    return ens__error(ENS_EINVAL, "who is committing is not known: set it once with "
                                  "git config --global user.name \"Your Name\" and "
                                  "git config --global user.email you@example.org");
  if (g < 0) return ens__repo_error(g, "the committer's name");
  return 0;
}

static int s_merge_head(const git_oid *oid, void *payload) {
  git_oid *ids = payload;
  for (int i = 0; i < 8; i++)
    if (git_oid_is_zero(&ids[i])) {
      git_oid_cpy(&ids[i], oid);
      return 0;
    }
  return 0;
}

static int s_stage(ens_repo *repo, git_index *index, const char *const *paths, size_t n) {
  int g;
  if (n == 0) {
    char *all[] = {"*"};
    git_strarray spec = {all, 1};
    g = git_index_add_all(index, &spec, GIT_INDEX_ADD_DEFAULT, NULL, NULL);
    if (g == 0) g = git_index_update_all(index, &spec, NULL, NULL);
    return g < 0 ? ens__repo_error(g, "staging the work tree") : 0;
  }
  for (size_t i = 0; i < n; i++) {
    size_t wl = strlen(repo->workdir), pl = strlen(paths[i]);
    char *abs = malloc(wl + pl + 1);
    if (!abs) return ens__error(ENS_ENOMEM, "out of memory");
    memcpy(abs, repo->workdir, wl);
    memcpy(abs + wl, paths[i], pl + 1);
    FILE *f = fopen(abs, "rb");
    free(abs);
    if (f) {
      fclose(f);
      g = git_index_add_bypath(index, paths[i]);
    } else if (git_index_get_bypath(index, paths[i], 0)) {
      g = git_index_remove_bypath(index, paths[i]);
    } else {
      return ens__error(ENS_ENOTFOUND, "%s: no such file in the work tree or the repository", paths[i]);
    }
    if (g < 0) return ens__repo_error(g, paths[i]);
  }
  return 0;
}

int ens_repo_commit(ens_repo *repo, const char *const *paths, size_t n, const char *message, char *id) {
  if (!repo || !message || (n && !paths)) return ens__error(ENS_EINVAL, "ens_repo_commit: NULL argument");
  if (!*message) return ens__error(ENS_EINVAL, "a commit needs a message");
  git_index *index = NULL;
  git_signature *sig = NULL;
  git_commit *head = NULL, *parents[9] = {0};
  git_tree *tree = NULL, *head_tree = NULL;
  git_oid tree_id, commit_id, merge_ids[8];
  size_t np = 0;
  int rc = s_signature(repo, &sig);
  if (rc) goto done;
  int g = git_repository_index(&index, repo->git);
  if (g < 0) {
    rc = ens__repo_error(g, "opening the index");
    goto done;
  }
  if ((rc = s_stage(repo, index, paths, n))) goto done;
  if (git_index_has_conflicts(index)) {
    rc = ens__error(ENS_EEXISTS, "some files still have merge conflicts: name them to commit them as they are now");
    goto done;
  }
  if ((g = git_index_write_tree(&tree_id, index)) < 0 || (g = git_index_write(index)) < 0) {
    rc = ens__repo_error(g, "writing the index");
    goto done;
  }
  g = git_repository_head_unborn(repo->git);
  if (g == 0) {
    git_object *obj = NULL;
    if ((g = git_revparse_single(&obj, repo->git, "HEAD^{commit}")) < 0) {
      rc = ens__repo_error(g, "HEAD");
      goto done;
    }
    head = (git_commit *)obj;
    parents[np++] = head;
  } else if (g < 0) {
    rc = ens__repo_error(g, "HEAD");
    goto done;
  }
  memset(merge_ids, 0, sizeof merge_ids);
  int merging = git_repository_state(repo->git) == GIT_REPOSITORY_STATE_MERGE;
  if (merging) {
    git_repository_mergehead_foreach(repo->git, s_merge_head, merge_ids);
    for (int i = 0; i < 8 && !git_oid_is_zero(&merge_ids[i]); i++)
      if (git_commit_lookup(&parents[np], repo->git, &merge_ids[i]) == 0) np++;
  }
  if (head && np == 1) {
    if ((g = git_commit_tree(&head_tree, head)) < 0) {
      rc = ens__repo_error(g, "HEAD's tree");
      goto done;
    }
    if (git_oid_equal(git_tree_id(head_tree), &tree_id)) {
      rc = ens__error(ENS_EEMPTY, "nothing to commit: the files are as the last commit has them");
      goto done;
    }
  }
  if ((g = git_tree_lookup(&tree, repo->git, &tree_id)) < 0 ||
      (g = git_commit_create(&commit_id, repo->git, "HEAD", sig, sig, NULL, message, tree, np,
                             (const git_commit **)parents)) < 0) {
    rc = ens__repo_error(g, "committing");
    goto done;
  }
  if (merging) git_repository_state_cleanup(repo->git);
  if (id) git_oid_tostr(id, 41, &commit_id);
done:
  for (size_t i = 0; i < np; i++) git_commit_free(parents[i]);
  git_tree_free(tree);
  git_tree_free(head_tree);
  git_signature_free(sig);
  git_index_free(index);
  return rc;
}

int ens_repo_current_branch(ens_repo *repo, char **name) {
  *name = NULL;
  git_reference *head = NULL;
  int g = git_repository_head(&head, repo->git);
  if (g == GIT_EUNBORNBRANCH) {
    /* no commit yet: the branch HEAD points at */
    git_reference *sym = NULL;
    if (git_reference_lookup(&sym, repo->git, "HEAD") < 0) return ens__repo_error(g, "HEAD");
    const char *t = git_reference_symbolic_target(sym);
    const char *s = t && strncmp(t, "refs/heads/", 11) == 0 ? t + 11 : t;
    *name = s ? strdup(s) : NULL;
    git_reference_free(sym);
    return *name ? 0 : ens__error(ENS_ENOMEM, "out of memory");
  }
  if (g < 0) return ens__repo_error(g, "HEAD");
  int rc = 0;
  if (!git_reference_is_branch(head))
    rc = ens__error(ENS_ENOTFOUND, "HEAD is detached: no branch is current");
  else if (!(*name = strdup(git_reference_shorthand(head))))
    rc = ens__error(ENS_ENOMEM, "out of memory");
  git_reference_free(head);
  return rc;
}

int ens_repo_branches(ens_repo *repo, ens_repo_name_fn fn, void *user) {
  git_branch_iterator *it = NULL;
  git_reference *ref = NULL;
  git_branch_t type;
  int g = git_branch_iterator_new(&it, repo->git, GIT_BRANCH_LOCAL), rc = 0;
  if (g < 0) return ens__repo_error(g, "listing branches");
  while (rc == 0 && (g = git_branch_next(&ref, &type, it)) == 0) {
    const char *name = NULL;
    git_branch_name(&name, ref);
    rc = fn(name ? name : "", git_branch_is_head(ref) == 1, user);
    git_reference_free(ref);
  }
  git_branch_iterator_free(it);
  if (rc == 0 && g != GIT_ITEROVER) rc = ens__repo_error(g, "listing branches");
  return rc;
}

int ens_repo_branch_create(ens_repo *repo, const char *name, const char *rev) {
  git_commit *at = NULL;
  git_reference *ref = NULL;
  int valid = 0;
  if (git_branch_name_is_valid(&valid, name) < 0 || !valid)
    return ens__error(ENS_EINVAL, "'%s' cannot be a branch's name", name);
  int rc = ens__repo_commit_at(repo, rev ? rev : "HEAD", &at);
  if (rc) {
    if (!rev) return ens__error(rc, "a branch needs a commit to start from: commit something first");
    return rc;
  }
  int g = git_branch_create(&ref, repo->git, name, at, 0);
  if (g == GIT_EEXISTS)
    rc = ens__error(ENS_EEXISTS, "a branch named '%s' already exists", name);
  else if (g < 0)
    rc = ens__repo_error(g, name);
  git_reference_free(ref);
  git_commit_free(at);
  return rc;
}

/* Collects the paths a safe checkout refuses to overwrite. */
typedef struct {
  char names[512];
  size_t len;
} s_conflicts;

static int s_notify(git_checkout_notify_t why, const char *path, const git_diff_file *b, const git_diff_file *t,
                    const git_diff_file *w, void *payload) {
  s_conflicts *c = payload;
  if (why == GIT_CHECKOUT_NOTIFY_CONFLICT && c->len + strlen(path) + 3 < sizeof c->names) {
    c->len += (size_t)snprintf(c->names + c->len, sizeof c->names - c->len, "%s%s", c->len ? ", " : "", path);
  }
  return 0;
}

int ens_repo_switch(ens_repo *repo, const char *name) {
  git_reference *ref = NULL;
  git_commit *target = NULL;
  char refname[1024];
  int rc = 0;
  int g = git_branch_lookup(&ref, repo->git, name, GIT_BRANCH_LOCAL);
  if (g == GIT_ENOTFOUND) return ens__error(ENS_ENOTFOUND, "there is no branch named '%s' (ensemble branch lists them)", name);
  if (g < 0) return ens__repo_error(g, name);
  snprintf(refname, sizeof refname, "%s", git_reference_name(ref));
  if ((g = git_reference_peel((git_object **)&target, ref, GIT_OBJECT_COMMIT)) < 0) {
    rc = ens__repo_error(g, name);
    goto done;
  }
  s_conflicts conflicts = {{0}, 0};
  git_checkout_options o;
  git_checkout_options_init(&o, GIT_CHECKOUT_OPTIONS_VERSION);
  o.checkout_strategy = GIT_CHECKOUT_SAFE;
  o.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
  o.notify_cb = s_notify;
  o.notify_payload = &conflicts;
  g = git_checkout_tree(repo->git, (git_object *)target, &o);
  if (g == GIT_ECONFLICT || conflicts.len) {
    rc = ens__error(ENS_EEXISTS, "switching to '%s' would overwrite changes not committed in %s: commit them first", name,
                    conflicts.len ? conflicts.names : "some files");
    goto done;
  }
  if (g < 0) {
    rc = ens__repo_error(g, "switching");
    goto done;
  }
  if ((g = git_repository_set_head(repo->git, refname)) < 0) rc = ens__repo_error(g, "switching");
done:
  git_commit_free(target);
  git_reference_free(ref);
  return rc;
}

int ens_repo_tag(ens_repo *repo, const char *name, const char *rev, const char *message) {
  git_object *at = NULL;
  git_signature *sig = NULL;
  git_oid oid;
  char ref[1024];
  snprintf(ref, sizeof ref, "refs/tags/%s", name);
  if (!*name || !git_reference_is_valid_name(ref)) return ens__error(ENS_EINVAL, "'%s' cannot be a tag's name", name);
  int rc = ens__repo_commit_at(repo, rev ? rev : "HEAD", (git_commit **)&at);
  if (rc) return rc;
  int g;
  if (message) {
    if ((rc = s_signature(repo, &sig))) goto done;
    g = git_tag_create(&oid, repo->git, name, at, sig, message, 0);
  } else {
    g = git_tag_create_lightweight(&oid, repo->git, name, at, 0);
  }
  if (g == GIT_EEXISTS)
    rc = ens__error(ENS_EEXISTS, "a tag named '%s' already exists", name);
  else if (g < 0)
    rc = ens__repo_error(g, name);
done:
  git_signature_free(sig);
  git_object_free(at);
  return rc;
}

int ens_repo_tags(ens_repo *repo, ens_repo_name_fn fn, void *user) {
  git_strarray names = {0};
  int g = git_tag_list(&names, repo->git), rc = 0;
  if (g < 0) return ens__repo_error(g, "listing tags");
  for (size_t i = 0; rc == 0 && i < names.count; i++) rc = fn(names.strings[i], 0, user);
  git_strarray_dispose(&names);
  return rc;
}
