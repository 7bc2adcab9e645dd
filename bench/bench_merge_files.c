/* `ensemble merge` on three real files beside `git merge-file` on the same
 * files: what git's merge driver costs. Measured per triple:
 *  - fresh: the whole `ensemble merge BASE OURS THEIRS -o OUT` command in a
 *    new process (read three files, merge, mark, write), the first run and
 *    the median of the runs;
 *  - warm: ens_merge3 alone in this process on documents already read
 *    (median of the runs, after one run not counted), and the reads and
 *    the write around it;
 *  - git merge-file -p on the same three files in a new process (median).
 * Usage: bench_merge_files [--runs N] BASE OURS THEIRS [BASE OURS THEIRS...]
 * Prints a Markdown table. The `ensemble` binary is the one beside this
 * program. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ensemble.h"

extern char **environ;

static double s_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int s_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double s_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, s_cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Runs argv with stdout to /dev/null; wall seconds, or -1 when it could
 * not run. *status gets its exit status. */
static double s_spawn(char *const argv[], int *status) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  double t0 = s_now();
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc) return -1;
  int st;
  if (waitpid(pid, &st, 0) != pid) return -1;
  double t = s_now() - t0;
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return t;
}

static int s_svg(const char *path) {
  size_t n = strlen(path);
  return n > 4 && strcmp(path + n - 4, ".svg") == 0;
}

static ens_doc *s_read(const char *path) {
  ens_doc *d = NULL;
  if ((s_svg(path) ? ens_svg_read_path(path, &d) : ens_sfd_read_path(path, &d)) != 0) {
    fprintf(stderr, "%s: %s\n", path, ens_error_last());
    exit(1);
  }
  return d;
}

static const char *s_base(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

int main(int argc, char **argv) {
  int runs = 5, first = 1;
  if (argc > 2 && strcmp(argv[1], "--runs") == 0) {
    runs = atoi(argv[2]);
    first = 3;
  }
  if (runs < 1 || runs > 1000 || (argc - first) < 3 || (argc - first) % 3) {
    fprintf(stderr, "usage: bench_merge_files [--runs N] BASE OURS THEIRS [BASE OURS THEIRS...]\n");
    return 2;
  }
  char self[4096], ensemble[4200], out[256];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) return 1;
  self[sl] = '\0';
  *strrchr(self, '/') = '\0';
  snprintf(ensemble, sizeof ensemble, "%s/ensemble", self);
  printf("| base -> ours, theirs | objects | ensemble merge, fresh process: first / median | ens_merge3 warm (median) | "
         "read 3 + write, warm | git merge-file (median) | conflicts ensemble / git |\n");
  printf("|---|---|---|---|---|---|---|\n");
  double *v = calloc((size_t)runs, sizeof *v);
  if (!v) return 1;
  for (int k = first; k + 2 < argc; k += 3) {
    const char *b = argv[k], *o = argv[k + 1], *t = argv[k + 2];
    int svg = s_svg(o);
    snprintf(out, sizeof out, "/tmp/bench_merge_files.%d.%s", (int)getpid(), svg ? "svg" : "sfd");
    char *cmd[] = {ensemble, "merge", "-q", "-o", out, (char *)b, (char *)o, (char *)t, NULL};
    int st = 0, ens_status = 0, git_status = 0;
    double fresh_first = s_spawn(cmd, &ens_status);
    for (int r = 0; r < runs; r++) v[r] = s_spawn(cmd, &st);
    double fresh_med = s_median(v, runs);
    char *git[] = {"git", "merge-file", "-p", "-q", (char *)o, (char *)b, (char *)t, NULL};
    for (int r = 0; r < runs; r++) v[r] = s_spawn(git, &git_status);
    double git_med = s_median(v, runs);
    /* warm, in this process */
    double tr = s_now();
    ens_doc *base = s_read(b), *ours = s_read(o);
    tr = s_now() - tr;
    ens_merge_opts opts = {svg ? ens_svg_identity : ens_sfd_identity, NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_KEY,
                           ENS_MERGE_PREFER_OURS, svg ? ens_svg_refs : NULL, NULL};
    size_t conflicts = 0, objects = ens_doc_count(base);
    double io = 0;
    for (int r = -1; r < runs; r++) {
      double t0 = s_now();
      ens_doc *theirs = s_read(t);
      double t1 = s_now();
      ens_merge *m = NULL;
      if (ens_merge3(base, ours, theirs, &opts, &m) != 0) {
        fprintf(stderr, "merge: %s\n", ens_error_last());
        return 1;
      }
      double t2 = s_now();
      conflicts = ens_merge_conflict_count(m);
      if (ens_doc_apply(theirs, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL) != 0) {
        fprintf(stderr, "apply: %s\n", ens_error_last());
        return 1;
      }
      unsigned char *bytes;
      size_t n;
      double t3 = s_now();
      if ((svg ? ens_svg_write(theirs, &bytes, &n) : ens_sfd_write(theirs, &bytes, &n)) != 0) return 1;
      double t4 = s_now();
      ens_free(bytes);
      ens_merge_free(m);
      ens_doc_free(theirs);
      if (r >= 0) {
        v[r] = t2 - t1;
        io += (t1 - t0) + (t4 - t3);
      }
    }
    double warm = s_median(v, runs);
    io = io / runs + tr; /* base and ours read once, theirs read and the result written each run */
    printf("| %s -> %s, %s | %zu | %.0f / %.0f ms (exit %d) | %.1f ms | %.0f ms | %.1f ms (exit %d) | %zu / %d |\n",
           s_base(b), s_base(o), s_base(t), objects, fresh_first * 1e3, fresh_med * 1e3, ens_status, warm * 1e3,
           io * 1e3, git_med * 1e3, git_status, conflicts, git_status);
    fflush(stdout);
    unlink(out);
    ens_doc_free(base);
    ens_doc_free(ours);
  }
  free(v);
  return 0;
}
