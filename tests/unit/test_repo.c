/* The git layer (ensemble/repo.h) on temporary repositories: a file's
 * history, files read at revisions and the errors of bad ones, restore
 * with and without uncommitted work, branches, switching and tags. The
 * git command checks what the library wrote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

static char s_home[64];

typedef struct {
  char dir[64];
  ens_repo *repo;
} fixture;

static void s_write(const char *dir, const char *name, const char *text) {
  char p[256];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

static char *s_read(const char *dir, const char *name) {
  char p[256];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  size_t len;
  return tu_read_file(p, &len);
}

/* The output of `git -C dir ARGS`, its last newline cut. */
static char *s_git(const char *dir, const char *fmt, ...) {
  char cmd[1024], args[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "git -C '%s' %s 2>/dev/null", dir, args);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  static char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, p);
  pclose(p);
  buf[n] = 0;
  while (n && buf[n - 1] == '\n') buf[--n] = 0;
  return strdup(buf);
}

static void s_commit(fixture *fx, const char *name, const char *text, const char *msg, char *id) {
  s_write(fx->dir, name, text);
  const char *paths[] = {name};
  assert_int_equal(ens_repo_commit(fx->repo, paths, 1, msg, id), 0);
}

#define SVG(fill) "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect id=\"r\" width=\"4\" height=\"4\" fill=\"" fill "\"/></svg>\n"

static int s_setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  snprintf(fx->dir, sizeof fx->dir, "/tmp/test_repo.XXXXXX");
  assert_non_null(mkdtemp(fx->dir));
  assert_int_equal(ens_repo_init(fx->dir, &fx->repo), 0);
  assert_int_equal(ens_repo_config_set(fx->repo, "user.name", "Tester"), 0);
  assert_int_equal(ens_repo_config_set(fx->repo, "user.email", "t@example.org"), 0);
  *state = fx;
  return 0;
}

static int s_teardown(void **state) {
  fixture *fx = *state;
  ens_repo_free(fx->repo);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
  if (system(cmd) != 0) return -1;
  free(fx);
  return 0;
}

static void test_open_finds_the_repository_or_says_how_to_make_one(void **state) {
  fixture *fx = *state;
  char sub[128];
  snprintf(sub, sizeof sub, "%s/fonts", fx->dir);
  assert_int_equal(mkdir(sub, 0755), 0);
  ens_repo *r = NULL;
  assert_int_equal(ens_repo_open(sub, &r), 0);
  assert_string_equal(ens_repo_workdir(r), ens_repo_workdir(fx->repo));
  ens_repo_free(r);
  char outside[] = "/tmp/test_repo_none.XXXXXX";
  assert_non_null(mkdtemp(outside));
  assert_int_equal(ens_repo_open(outside, &r), ENS_ENOTFOUND);
  assert_null(r);
  assert_non_null(strstr(ens_error_last(), "not inside a git repository"));
  assert_non_null(strstr(ens_error_last(), "ensemble init"));
  rmdir(outside);
  /* the first branch is main, as git's own init here would not promise */
  char *name = NULL;
  assert_int_equal(ens_repo_current_branch(fx->repo, &name), 0);
  assert_string_equal(name, "main");
  ens_free(name);
}

typedef struct {
  char ids[8][41], blobs[8][41], parents[8][41], summaries[8][64];
  int n;
} s_walk;

static int s_collect(const ens_repo_commit_info *c, void *user) {
  s_walk *w = user;
  assert_true(w->n < 8);
  memcpy(w->ids[w->n], c->id, 41);
  memcpy(w->blobs[w->n], c->blob, 41);
  memcpy(w->parents[w->n], c->parent_blob, 41);
  snprintf(w->summaries[w->n], 64, "%s", c->summary);
  assert_string_equal(c->author, "Tester <t@example.org>");
  w->n++;
  return 0;
}

static void test_history_lists_the_commits_that_changed_the_file(void **state) {
  fixture *fx = *state;
  char id[4][41];
  s_commit(fx, "a.svg", SVG("red"), "first", id[0]);
  s_commit(fx, "b.svg", SVG("red"), "other file", id[1]);
  s_commit(fx, "a.svg", SVG("blue"), "blue", id[2]);
  s_commit(fx, "a.svg", SVG("green"), "green\n\nwith a body", id[3]);
  s_walk w = {0};
  assert_int_equal(ens_repo_log(fx->repo, "a.svg", s_collect, &w), 0);
  assert_int_equal(w.n, 3);
  assert_string_equal(w.ids[0], id[3]);
  assert_string_equal(w.ids[1], id[2]);
  assert_string_equal(w.ids[2], id[0]);
  assert_string_equal(w.summaries[0], "green");
  assert_string_equal(w.parents[2], ""); /* added there */
  assert_string_equal(w.parents[0], w.blobs[1]);
  /* git agrees, blob ids included */
  char *git_ids = s_git(fx->dir, "log --format=%%H -- a.svg");
  char want[200];
  snprintf(want, sizeof want, "%s\n%s\n%s", id[3], id[2], id[0]);
  assert_string_equal(git_ids, want);
  free(git_ids);
  char *blob = s_git(fx->dir, "rev-parse HEAD:a.svg");
  assert_string_equal(blob, w.blobs[0]);
  free(blob);
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(ens_repo_blob(fx->repo, w.blobs[1], &data, &len), 0);
  assert_string_equal((char *)data, SVG("blue"));
  ens_free(data);
  /* a file no commit holds: no call */
  w.n = 0;
  assert_int_equal(ens_repo_log(fx->repo, "c.svg", s_collect, &w), 0);
  assert_int_equal(w.n, 0);
}

static void test_history_of_an_empty_repository_is_an_error(void **state) {
  fixture *fx = *state;
  s_walk w = {0};
  assert_int_equal(ens_repo_log(fx->repo, "a.svg", s_collect, &w), ENS_ENOTFOUND);
  assert_non_null(strstr(ens_error_last(), "no commits"));
}

static void test_files_at_revisions_and_bad_revisions(void **state) {
  fixture *fx = *state;
  s_commit(fx, "a.svg", SVG("red"), "first", NULL);
  s_commit(fx, "a.svg", SVG("blue"), "blue", NULL);
  unsigned char *d = NULL;
  size_t len = 0;
  assert_int_equal(ens_repo_read(fx->repo, "HEAD~1", "a.svg", &d, &len), 0);
  assert_int_equal(len, strlen(SVG("red")));
  assert_memory_equal(d, SVG("red"), len);
  ens_free(d);
  assert_int_equal(ens_repo_read_spec(fx->repo, "main:a.svg", &d, &len), 0);
  assert_memory_equal(d, SVG("blue"), len);
  ens_free(d);
  d = (unsigned char *)"x";
  assert_int_equal(ens_repo_read(fx->repo, "nope", "a.svg", &d, &len), ENS_ENOTFOUND);
  assert_null(d);
  assert_non_null(strstr(ens_error_last(), "'nope' names no revision"));
  assert_int_equal(ens_repo_read(fx->repo, "HEAD~7", "a.svg", &d, &len), ENS_ENOTFOUND);
  assert_non_null(strstr(ens_error_last(), "HEAD~7"));
  assert_int_equal(ens_repo_read(fx->repo, "HEAD", "none.svg", &d, &len), ENS_ENOTFOUND);
  assert_non_null(strstr(ens_error_last(), "has no file none.svg"));
  assert_int_equal(ens_repo_read(fx->repo, "HEAD^{tree", "a.svg", &d, &len), ENS_EINVAL);
  assert_int_equal(ens_repo_read_spec(fx->repo, "HEAD", &d, &len), ENS_EINVAL);
  assert_non_null(strstr(ens_error_last(), "REV:FILE"));
  assert_int_equal(ens_repo_read_spec(fx->repo, "HEAD:", &d, &len), ENS_EINVAL);
  /* a blob's id is no commit */
  char *blob = s_git(fx->dir, "rev-parse HEAD:a.svg");
  assert_int_equal(ens_repo_read(fx->repo, blob, "a.svg", &d, &len), ENS_EINVAL);
  assert_non_null(strstr(ens_error_last(), "not a commit"));
  free(blob);
  assert_null(d);
}

static void test_commit_of_nothing_and_of_everything(void **state) {
  fixture *fx = *state;
  s_commit(fx, "a.svg", SVG("red"), "first", NULL);
  assert_int_equal(ens_repo_commit(fx->repo, NULL, 0, "again", NULL), ENS_EEMPTY);
  assert_int_equal(ens_repo_commit(fx->repo, NULL, 0, "", NULL), ENS_EINVAL);
  s_write(fx->dir, "new.svg", SVG("red"));
  s_write(fx->dir, "a.svg", SVG("blue"));
  s_write(fx->dir, ".gitignore", "*.tmp\n");
  s_write(fx->dir, "x.tmp", "scratch");
  char id[41];
  assert_int_equal(ens_repo_commit(fx->repo, NULL, 0, "all of it", id), 0);
  char *files = s_git(fx->dir, "ls-tree --name-only HEAD");
  assert_string_equal(files, ".gitignore\na.svg\nnew.svg");
  free(files);
  char *status = s_git(fx->dir, "status --porcelain");
  assert_string_equal(status, "");
  free(status);
  /* a file named and deleted is committed deleted */
  char p[128];
  snprintf(p, sizeof p, "%s/new.svg", fx->dir);
  assert_int_equal(unlink(p), 0);
  const char *names[] = {"new.svg"};
  assert_int_equal(ens_repo_commit(fx->repo, names, 1, "gone", NULL), 0);
  files = s_git(fx->dir, "ls-tree --name-only HEAD");
  assert_string_equal(files, ".gitignore\na.svg");
  free(files);
  const char *missing[] = {"never.svg"};
  assert_int_equal(ens_repo_commit(fx->repo, missing, 1, "none", NULL), ENS_ENOTFOUND);
}

static void test_restore_rolls_a_clean_file_back(void **state) {
  fixture *fx = *state;
  s_commit(fx, "a.svg", SVG("red"), "first", NULL);
  s_commit(fx, "b.svg", SVG("red"), "other", NULL);
  s_commit(fx, "a.svg", SVG("blue"), "blue", NULL);
  s_write(fx->dir, "b.svg", SVG("black")); /* another file's work is no concern */
  char p[128];
  snprintf(p, sizeof p, "%s/a.svg", fx->dir);
  assert_int_equal(chmod(p, 0640), 0);
  char *backup = (char *)"x";
  assert_int_equal(ens_repo_restore(fx->repo, "a.svg", "HEAD~2", 0, &backup), 0);
  assert_null(backup);
  char *now = s_read(fx->dir, "a.svg");
  assert_string_equal(now, SVG("red"));
  free(now);
  struct stat st;
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0640);
  /* the work tree changed, the index did not: the roll-back is a change to commit */
  char *status = s_git(fx->dir, "status --porcelain");
  assert_string_equal(status, " M a.svg\n M b.svg");
  free(status);
  /* already so: nothing to do, even though it now differs from HEAD */
  assert_int_equal(ens_repo_restore(fx->repo, "a.svg", "HEAD~2", 0, NULL), 0);
  /* a file deleted from the work tree comes back */
  assert_int_equal(unlink(p), 0);
  assert_int_equal(ens_repo_restore(fx->repo, "a.svg", "HEAD", 0, NULL), 0);
  now = s_read(fx->dir, "a.svg");
  assert_string_equal(now, SVG("blue"));
  free(now);
  assert_int_equal(ens_repo_restore(fx->repo, "a.svg", "nope", 0, NULL), ENS_ENOTFOUND);
  assert_int_equal(ens_repo_restore(fx->repo, "c.svg", "HEAD", 0, NULL), ENS_ENOTFOUND);
  /* paths that could leave the work tree or enter .git, whatever a tree holds */
  const char *bad[] = {"../a.svg", "/etc/passwd", "sub/../../a.svg", ".git/config", "", "a.svg/", "./a.svg"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    assert_int_equal(ens_repo_restore(fx->repo, bad[i], "HEAD", 1, NULL), ENS_EINVAL);
}

static void test_restore_never_loses_uncommitted_work(void **state) {
  fixture *fx = *state;
  s_commit(fx, "a.svg", SVG("red"), "first", NULL);
  s_commit(fx, "a.svg", SVG("blue"), "blue", NULL);
  s_write(fx->dir, "a.svg", SVG("mine"));
  char *backup = NULL;
  assert_int_equal(ens_repo_restore(fx->repo, "a.svg", "HEAD~1", 0, &backup), ENS_EEXISTS);
  assert_non_null(strstr(ens_error_last(), "not committed"));
  assert_non_null(strstr(ens_error_last(), "--force"));
  assert_null(backup);
  char *now = s_read(fx->dir, "a.svg");
  assert_string_equal(now, SVG("mine"));
  free(now);
  /* staged but not committed is uncommitted too */
  char *out = s_git(fx->dir, "add a.svg");
  free(out);
  assert_int_equal(ens_repo_restore(fx->repo, "a.svg", "HEAD~1", 0, NULL), ENS_EEXISTS);
  /* forced: the work goes to a backup that is named, then the roll-back */
  assert_int_equal(ens_repo_restore(fx->repo, "a.svg", "HEAD~1", 1, &backup), 0);
  assert_non_null(backup);
  assert_non_null(strstr(backup, "/a.svg.ensemble-backup-"));
  size_t len;
  char *kept = tu_read_file(backup, &len);
  assert_non_null(kept);
  assert_string_equal(kept, SVG("mine"));
  free(kept);
  now = s_read(fx->dir, "a.svg");
  assert_string_equal(now, SVG("red"));
  free(now);
  /* a second forced restore in the same second never replaces the first backup */
  s_write(fx->dir, "a.svg", SVG("mine again"));
  char *backup2 = NULL;
  assert_int_equal(ens_repo_restore(fx->repo, "a.svg", "HEAD", 1, &backup2), 0);
  assert_non_null(backup2);
  assert_string_not_equal(backup, backup2);
  kept = tu_read_file(backup, &len);
  assert_string_equal(kept, SVG("mine"));
  free(kept);
  kept = tu_read_file(backup2, &len);
  assert_string_equal(kept, SVG("mine again"));
  free(kept);
  ens_free(backup);
  ens_free(backup2);
  /* a file git does not track is work no commit holds */
  char *rm = s_git(fx->dir, "rm -q --cached a.svg");
  free(rm);
  rm = s_git(fx->dir, "commit -qm untrack");
  free(rm);
  s_write(fx->dir, "a.svg", SVG("untracked"));
  assert_int_equal(ens_repo_restore(fx->repo, "a.svg", "HEAD~1", 0, NULL), ENS_EEXISTS);
  now = s_read(fx->dir, "a.svg");
  assert_string_equal(now, SVG("untracked"));
  free(now);
}

static int s_count(const char *name, int current, void *user) {
  int *n = user;
  n[0]++;
  if (current) n[1]++;
  (void)name;
  return 0;
}

static void test_branches_and_switching(void **state) {
  fixture *fx = *state;
  assert_int_equal(ens_repo_branch_create(fx->repo, "early", NULL), ENS_ENOTFOUND);
  assert_non_null(strstr(ens_error_last(), "commit something first"));
  s_commit(fx, "a.svg", SVG("red"), "first", NULL);
  assert_int_equal(ens_repo_branch_create(fx->repo, "left", NULL), 0);
  assert_int_equal(ens_repo_branch_create(fx->repo, "left", NULL), ENS_EEXISTS);
  assert_int_equal(ens_repo_branch_create(fx->repo, "bad..name", NULL), ENS_EINVAL);
  assert_int_equal(ens_repo_branch_create(fx->repo, "x", "nope"), ENS_ENOTFOUND);
  int n[2] = {0, 0};
  assert_int_equal(ens_repo_branches(fx->repo, s_count, n), 0);
  assert_int_equal(n[0], 2);
  assert_int_equal(n[1], 1);
  assert_int_equal(ens_repo_switch(fx->repo, "left"), 0);
  char *name = NULL;
  assert_int_equal(ens_repo_current_branch(fx->repo, &name), 0);
  assert_string_equal(name, "left");
  ens_free(name);
  s_commit(fx, "a.svg", SVG("blue"), "blue on left", NULL);
  s_commit(fx, "l.svg", SVG("blue"), "new on left", NULL);
  assert_int_equal(ens_repo_switch(fx->repo, "main"), 0);
  char *now = s_read(fx->dir, "a.svg");
  assert_string_equal(now, SVG("red"));
  free(now);
  char p[128];
  snprintf(p, sizeof p, "%s/l.svg", fx->dir);
  assert_int_equal(access(p, F_OK), -1); /* left's own file is not here */
  char *head = s_git(fx->dir, "symbolic-ref --short HEAD");
  assert_string_equal(head, "main");
  free(head);
  /* uncommitted work that switching would overwrite: refused, nothing changed */
  s_write(fx->dir, "a.svg", SVG("mine"));
  assert_int_equal(ens_repo_switch(fx->repo, "left"), ENS_EEXISTS);
  assert_non_null(strstr(ens_error_last(), "a.svg"));
  now = s_read(fx->dir, "a.svg");
  assert_string_equal(now, SVG("mine"));
  free(now);
  head = s_git(fx->dir, "symbolic-ref --short HEAD");
  assert_string_equal(head, "main");
  free(head);
  assert_int_equal(ens_repo_switch(fx->repo, "nope"), ENS_ENOTFOUND);
  assert_non_null(strstr(ens_error_last(), "no branch named 'nope'"));
}

static void test_tags(void **state) {
  fixture *fx = *state;
  s_commit(fx, "a.svg", SVG("red"), "first", NULL);
  s_commit(fx, "a.svg", SVG("blue"), "blue", NULL);
  assert_int_equal(ens_repo_tag(fx->repo, "v1", "HEAD~1", NULL), 0);
  assert_int_equal(ens_repo_tag(fx->repo, "v2", NULL, "the blue one"), 0);
  assert_int_equal(ens_repo_tag(fx->repo, "v2", NULL, NULL), ENS_EEXISTS);
  assert_int_equal(ens_repo_tag(fx->repo, "bad tag", NULL, NULL), ENS_EINVAL);
  assert_int_equal(ens_repo_tag(fx->repo, "v3", "nope", NULL), ENS_ENOTFOUND);
  char *t = s_git(fx->dir, "cat-file -t v1");
  assert_string_equal(t, "commit");
  free(t);
  t = s_git(fx->dir, "cat-file -t v2");
  assert_string_equal(t, "tag");
  free(t);
  t = s_git(fx->dir, "tag -l '--format=%%(contents:subject)' v2");
  assert_string_equal(t, "the blue one");
  free(t);
  unsigned char *d = NULL;
  size_t len = 0;
  assert_int_equal(ens_repo_read(fx->repo, "v1", "a.svg", &d, &len), 0); /* a tag names a revision */
  assert_memory_equal(d, SVG("red"), len);
  ens_free(d);
  assert_int_equal(ens_repo_read(fx->repo, "v2", "a.svg", &d, &len), 0); /* annotated: peeled */
  assert_memory_equal(d, SVG("blue"), len);
  ens_free(d);
  int n[2] = {0, 0};
  assert_int_equal(ens_repo_tags(fx->repo, s_count, n), 0);
  assert_int_equal(n[0], 2);
}

static void test_paths_inside_and_outside_the_work_tree(void **state) {
  fixture *fx = *state;
  char *rel = NULL, p[128];
  snprintf(p, sizeof p, "%s/sub/../a.svg", fx->dir);
  char sub[128];
  snprintf(sub, sizeof sub, "%s/sub", fx->dir);
  assert_int_equal(mkdir(sub, 0755), 0);
  assert_int_equal(ens_repo_relpath(fx->repo, p, &rel), 0); /* a.svg need not exist */
  assert_string_equal(rel, "a.svg");
  ens_free(rel);
  assert_int_equal(ens_repo_relpath(fx->repo, "/etc/passwd", &rel), ENS_EINVAL);
  assert_non_null(strstr(ens_error_last(), "outside"));
  assert_int_equal(ens_repo_relpath(fx->repo, fx->dir, &rel), ENS_EINVAL);
}

int main(void) {
  /* the user's git configuration stays out */
  snprintf(s_home, sizeof s_home, "/tmp/test_repo_home.XXXXXX");
  if (!mkdtemp(s_home)) return 1;
  setenv("HOME", s_home, 1);
  setenv("XDG_CONFIG_HOME", s_home, 1);
  setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_open_finds_the_repository_or_says_how_to_make_one, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_history_lists_the_commits_that_changed_the_file, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_history_of_an_empty_repository_is_an_error, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_files_at_revisions_and_bad_revisions, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_commit_of_nothing_and_of_everything, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_restore_rolls_a_clean_file_back, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_restore_never_loses_uncommitted_work, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_branches_and_switching, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_tags, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_paths_inside_and_outside_the_work_tree, s_setup, s_teardown),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  rmdir(s_home);
  return failed;
}
