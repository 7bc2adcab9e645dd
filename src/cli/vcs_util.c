/* The git commands' shared pieces (vcs.h): the current repository, paths
 * inside it, and the semantic summary of two versions of a file. */
#include <stdlib.h>
#include <string.h>

#include "docfile.h"
#include "vcs.h"

int cli_repo_open(const char *cmd, ens_repo **out) {
  if (ens_repo_open(".", out) != 0) {
    cli_fail(cmd, "%s", ens_error_last());
    return CLI_FAIL;
  }
  return CLI_RUN;
}

char *cli_repo_path(const char *cmd, ens_repo *repo, const char *file) {
  char *rel = NULL;
  if (ens_repo_relpath(repo, file, &rel) != 0) {
    cli_fail(cmd, "%s", ens_error_last());
    return NULL;
  }
  return rel;
}

int cli_vcs_changes(const char *path, const void *old_data, size_t old_len, const void *new_data, size_t new_len,
                    ens_changes **out, char *kind, char *err, size_t err_size) {
  ens_doc *a = NULL, *b = NULL;
  int rc = -1;
  *out = NULL;
  if (cli_doc_parse(path, old_data, old_len, &a, err, err_size) ||
      cli_doc_parse(path, new_data, new_len, &b, err, err_size))
    goto done;
  snprintf(kind, 16, "%s", ens_doc_kind(a));
  ens_changes_opts o = {ens_format_identity(kind), NULL, ens_format_noise(kind), NULL};
  if (ens_changes_compute(a, b, &o, out) != 0) {
    snprintf(err, err_size, "%s: %s", path, ens_error_last());
    goto done;
  }
  rc = 0;
done:
  ens_doc_free(a);
  ens_doc_free(b);
  return rc;
}

/* One top object (glyph, element) and what happened to it as a whole. */
typedef struct {
  const char *group;
  int added, removed;
} s_group;

static int s_group_cmp(const void *x, const void *y) {
  return strcmp(((const s_group *)x)->group, ((const s_group *)y)->group);
}

void cli_vcs_summary(const ens_changes *changes, const char *kind, char *out, size_t size) {
  size_t n = ens_changes_count(changes);
  if (n == 0) {
    snprintf(out, size, "no changes (editor noise only)");
    return;
  }
  s_group *g = malloc(n * sizeof *g);
  if (!g) {
    snprintf(out, size, "%zu changes", n);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    const ens_change *c = ens_changes_at(changes, i);
    g[i].group = c->group ? c->group : "";
    /* the change is the group's object itself coming or going */
    int whole = c->path && strcmp(c->path, g[i].group) == 0;
    g[i].added = whole && c->kind == ENS_CHANGE_ADDED;
    g[i].removed = whole && c->kind == ENS_CHANGE_REMOVED;
  }
  qsort(g, n, sizeof *g, s_group_cmp);
  size_t added = 0, removed = 0, changed = 0, own = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    int a = 0, r = 0;
    for (; j < n && strcmp(g[j].group, g[i].group) == 0; j++) a |= g[j].added, r |= g[j].removed;
    if (!g[i].group[0])
      own = 1;
    else if (a && r) /* one object gone, another of that name come */
      changed++;
    else
      added += a, removed += r, changed += !a && !r;
    i = j;
  }
  free(g);
  const char *noun = strcmp(kind, "sfd") == 0 ? "glyph" : strcmp(kind, "svg") == 0 ? "element" : "object";
  size_t len = 0;
  const size_t counts[3] = {changed, added, removed};
  const char *verbs[3] = {"changed", "added", "removed"};
  int first = 1;
  for (int k = 0; k < 3; k++) {
    if (!counts[k]) continue;
    if (first)
      len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%zu %s%s %s", counts[k], noun,
                              counts[k] != 1 ? "s" : "", verbs[k]);
    else
      len += (size_t)snprintf(out + len, len < size ? size - len : 0, ", %zu %s", counts[k], verbs[k]);
    first = 0;
  }
  if (own)
    len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%s", first ? "" : "; ",
                            strcmp(kind, "sfd") == 0 ? "font info changed" : "document changed");
  snprintf(out + len, len < size ? size - len : 0, " (%zu change%s)", n, n == 1 ? "" : "s");
}
