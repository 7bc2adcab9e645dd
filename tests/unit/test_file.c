/* The library's atomic file writer (util/file.c): an existing file keeps
 * its mode, a symbolic link (a chain of them, relative or absolute) is
 * written through and stays, a loop of links is an error, and only the
 * temporary files of writers that are gone are cleaned away; the public
 * face (ensemble/file.h) adds a check before the rename, a fixed mode and
 * no-replace. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ensemble.h"
#include "util/file.h"

static char s_dir[64];

static int s_setup(void **state) {
  (void)state;
  snprintf(s_dir, sizeof s_dir, "/tmp/ens-file-XXXXXX");
  return mkdtemp(s_dir) ? 0 : -1;
}

static int s_teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void s_path(char *buf, size_t size, const char *name) { snprintf(buf, size, "%s/%s", s_dir, name); }

static char *s_slurp(const char *path) {
  char *data;
  size_t len;
  return ens__file_read_all(path, 1 << 20, &data, &len) == 0 ? data : NULL;
}

static void s_touch(const char *path) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fclose(f);
}

static int s_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

static void test_existing_mode_is_kept(void **state) {
  (void)state;
  char p[128];
  s_path(p, sizeof p, "private.svg");
  assert_int_equal(ens__file_write_atomic(p, "one", 3), 0);
  assert_int_equal(chmod(p, 0600), 0);
  assert_int_equal(ens__file_write_atomic(p, "two", 3), 0);
  struct stat st;
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0600);
  char *d = s_slurp(p);
  assert_string_equal(d, "two");
  free(d);
  /* an explicit mode still wins (keys are always 0600) */
  assert_int_equal(ens__file_write_atomic_ex(p, "three", 5, 0640, 1), 0);
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
}

static void test_links_are_written_through(void **state) {
  (void)state;
  char sub[128], target[160], l1[128], l2[128];
  s_path(sub, sizeof sub, "sub");
  assert_int_equal(mkdir(sub, 0755), 0);
  snprintf(target, sizeof target, "%s/real.svg", sub);
  assert_int_equal(ens__file_write_atomic(target, "old", 3), 0);
  assert_int_equal(chmod(target, 0640), 0);
  s_path(l1, sizeof l1, "l1.svg");
  s_path(l2, sizeof l2, "l2.svg");
  assert_int_equal(symlink("sub/real.svg", l1), 0); /* relative to the link's directory */
  assert_int_equal(symlink(l1, l2), 0);             /* absolute, to another link */
  assert_int_equal(ens__file_write_atomic(l2, "new", 3), 0);
  struct stat st;
  assert_int_equal(lstat(l1, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(lstat(l2, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  char *d = s_slurp(target);
  assert_string_equal(d, "new");
  free(d);
  assert_int_equal(stat(target, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  /* a link to a file not there yet makes the file */
  char dangling[128], made[160];
  s_path(dangling, sizeof dangling, "dangling.svg");
  assert_int_equal(symlink("sub/made.svg", dangling), 0);
  assert_int_equal(ens__file_write_atomic(dangling, "made", 4), 0);
  snprintf(made, sizeof made, "%s/made.svg", sub);
  d = s_slurp(made);
  assert_string_equal(d, "made");
  free(d);
  assert_int_equal(lstat(dangling, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
}

static void test_a_loop_of_links_is_an_error(void **state) {
  (void)state;
  char a[128], b[128];
  s_path(a, sizeof a, "loop-a");
  s_path(b, sizeof b, "loop-b");
  assert_int_equal(symlink("loop-b", a), 0);
  assert_int_equal(symlink("loop-a", b), 0);
  assert_int_equal(ens__file_write_atomic(a, "x", 1), ENS_EIO);
  assert_non_null(strstr(ens_error_last(), "loop-a"));
  struct stat st;
  assert_int_equal(lstat(a, &st), 0);
  assert_true(S_ISLNK(st.st_mode)); /* untouched */
}

static void test_only_dead_writers_temporary_files_are_cleaned(void **state) {
  (void)state;
  /* a process that is surely gone: a child that exited and was reaped */
  pid_t dead = fork();
  assert_true(dead >= 0);
  if (dead == 0) _exit(0);
  assert_int_equal(waitpid(dead, NULL, 0), dead);
  char p[128], gone[160], alive[160], mine[160], other[160], odd[160];
  s_path(p, sizeof p, "d.svg");
  assert_int_equal(ens__file_write_atomic(p, "d", 1), 0);
  snprintf(gone, sizeof gone, "%s/.d.svg.tmp.ensemble-%ld.AbC123", s_dir, (long)dead);
  snprintf(alive, sizeof alive, "%s/.d.svg.tmp.ensemble-%ld.AbC123", s_dir, (long)getppid());
  snprintf(mine, sizeof mine, "%s/.d.svg.tmp.ensemble-%ld.AbC123", s_dir, (long)getpid());
  snprintf(other, sizeof other, "%s/.e.svg.tmp.ensemble-%ld.AbC123", s_dir, (long)dead);
  snprintf(odd, sizeof odd, "%s/.d.svg.tmp.ensemble-%ld.AbC12", s_dir, (long)dead);
  s_touch(gone);
  s_touch(alive);
  s_touch(mine);
  s_touch(other);
  s_touch(odd);
  assert_int_equal(ens__file_clean_temps(p), 1);
  assert_false(s_exists(gone));
  assert_true(s_exists(alive)); /* its writer still runs */
  assert_true(s_exists(mine));
  assert_true(s_exists(other)); /* another file's */
  assert_true(s_exists(odd));   /* not a name this writer makes */
  /* and a whole directory's, as an SFDir writer cleans it */
  assert_int_equal(ens__file_clean_dir_temps(s_dir), 1);
  assert_false(s_exists(other));
  unlink(alive);
  unlink(mine);
  unlink(odd);
}

/* The public writer's check sees the complete temporary file; refusing
 * leaves the old file and no temporary file behind. */
static int s_refuse_unless_complete(const char *path, const char *tmp, void *user) {
  char *data;
  size_t len;
  int *asked = user;
  (*asked)++;
  if (ens_file_read(tmp, 1 << 20, &data, &len) != 0) return 1;
  int complete = len == 3 && memcmp(data, "new", 3) == 0;
  ens_free(data);
  return strstr(path, "refuse") ? 1 : !complete;
}

static int s_count_temps(void) {
  DIR *d = opendir(s_dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += strstr(e->d_name, ".tmp.ensemble-") != NULL;
  closedir(d);
  return n;
}

static void test_public_writer_check(void **state) {
  (void)state;
  char keep[128], take[128];
  s_path(keep, sizeof keep, "refuse.sfd");
  s_path(take, sizeof take, "take.sfd");
  assert_int_equal(ens_file_write_atomic(keep, "old", 3, NULL), 0);
  assert_int_equal(ens_file_write_atomic(take, "old", 3, NULL), 0);
  int asked = 0;
  ens_file_write_opts opts = {.mode = -1, .check = s_refuse_unless_complete, .check_user = &asked};
  assert_int_equal(ens_file_write_atomic(keep, "new", 3, &opts), 1);
  assert_int_equal(ens_file_write_atomic(take, "new", 3, &opts), 0);
  assert_int_equal(asked, 2);
  char *k = s_slurp(keep), *t = s_slurp(take);
  assert_string_equal(k, "old");
  assert_string_equal(t, "new");
  free(k);
  free(t);
  assert_false(s_count_temps());
}

static void test_public_writer_mode_and_no_replace(void **state) {
  (void)state;
  char p[128];
  s_path(p, sizeof p, "key");
  ens_file_write_opts opts = {.mode = 0600, .no_replace = 1};
  assert_int_equal(ens_file_write_atomic(p, "secret", 6, &opts), 0);
  struct stat st;
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(ens_file_write_atomic(p, "other", 5, &opts), ENS_EEXISTS);
  char *d = s_slurp(p);
  assert_string_equal(d, "secret");
  free(d);
  assert_false(s_count_temps());
}

static void test_public_read_limit_and_errors(void **state) {
  (void)state;
  char p[128];
  s_path(p, sizeof p, "ten");
  assert_int_equal(ens_file_write_atomic(p, "0123456789", 10, NULL), 0);
  char *data = (char *)1;
  size_t len = 99;
  assert_int_equal(ens_file_read(p, 9, &data, &len), ENS_ELIMIT);
  assert_null(data);
  assert_non_null(strstr(ens_error_last(), "limit"));
  assert_int_equal(ens_file_read(p, 10, &data, &len), 0);
  assert_int_equal(len, 10);
  assert_int_equal(data[10], '\0');
  ens_free(data);
  assert_int_equal(ens_file_read(s_dir, 100, &data, &len), ENS_EIO); /* a directory */
  s_path(p, sizeof p, "absent");
  assert_int_equal(ens_file_read(p, 100, &data, &len), ENS_EIO);
  assert_non_null(strstr(ens_error_last(), "absent"));
  char *pre = ens_file_temp_prefix("font.sfd");
  assert_string_equal(pre, ".font.sfd.tmp.ensemble-");
  ens_free(pre);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_existing_mode_is_kept, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_links_are_written_through, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_a_loop_of_links_is_an_error, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_only_dead_writers_temporary_files_are_cleaned, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_public_writer_check, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_public_writer_mode_and_no_replace, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_public_read_limit_and_errors, s_setup, s_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
