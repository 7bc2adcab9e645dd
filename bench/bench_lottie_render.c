/* Rendering Lottie frames through Ensemble beside rlottie alone, in one
 * run, on each file given. Warm: the tiny rlottie_alone loading the
 * animation once and rendering a range of frames (its own timing, loading
 * excluded); against ens_render_lottie over the same range (one child
 * process for all of them, pixels back through a pipe, its load included).
 * Fresh: a new process for one frame: rlottie_alone (load, one frame,
 * exit), ens_render_lottie_frame (fork, load, one frame, pipe) and the
 * command `ensemble render FILE --frame N -o OUT.png` (read, the child,
 * PNG, atomic write). Best of several runs, the sides alternating. This
 * process never calls rlottie itself: its worker threads would not be in
 * the children Ensemble forks (see docs/lottie.md). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
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
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static char *s_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *d = malloc((size_t)n + 1);
  *len = d ? fread(d, 1, (size_t)n, f) : 0;
  if (d) d[*len] = '\0';
  fclose(f);
  return d;
}

/* Runs argv to its end: milliseconds, or -1 when it failed. With out,
 * the number it printed goes there. */
static double s_run(char *const argv[], double *out) {
  double t0 = s_now();
  pid_t pid;
  int fds[2];
  if (pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return -1;
  }
  char buf[64];
  ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  int st;
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return -1;
  double t = s_now() - t0;
  if (out) {
    buf[n > 0 ? n : 0] = '\0';
    if (sscanf(buf, "%lf", out) != 1) return -1;
  }
  return t;
}

static int s_count(void *user, const ens_lottie_info *info, long frame, ens_image *img) {
  (void)info;
  (void)frame;
  (void)img;
  (*(long *)user)++;
  return 0;
}

#define S_MIN(a, b) ((a) < (b) ? (a) : (b))

int main(int argc, char **argv) {
  int runs = 5, frames_max = 60, i0 = 1;
  for (; i0 < argc && argv[i0][0] == '-'; i0++) {
    if (!strcmp(argv[i0], "--runs") && i0 + 1 < argc)
      runs = atoi(argv[++i0]);
    else if (!strcmp(argv[i0], "--frames") && i0 + 1 < argc)
      frames_max = atoi(argv[++i0]);
    else
      break;
  }
  if (i0 >= argc || runs < 1 || frames_max < 1) {
    fprintf(stderr, "usage: bench_lottie_render [--runs N] [--frames N] FILE.json...\n");
    return 2;
  }
  char self[PATH_MAX], dir[PATH_MAX], alone[PATH_MAX + 32], cli[PATH_MAX + 32];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) return 1;
  self[sl] = '\0';
  snprintf(dir, sizeof dir, "%s", dirname(self));
  snprintf(alone, sizeof alone, "%s/rlottie_alone", dir);
  snprintf(cli, sizeof cli, "%s/ensemble", dir);
  char out_png[] = "/tmp/bench_lottie_render.XXXXXX";
  int ofd = mkstemp(out_png);
  if (ofd < 0) return 1;
  close(ofd);

  printf("%-34s %9s %7s %6s | %10s %10s %6s | %10s %10s %10s %6s %10s\n", "file", "bytes", "size", "frames",
         "rl warm", "ens warm", "ratio", "rl fresh", "ens lib", "ens cmd", "ratio", "cmd start");
  int status = 0;
  for (int fi = i0; fi < argc; fi++) {
    size_t len;
    char *data = s_slurp(argv[fi], &len);
    if (!data) {
      fprintf(stderr, "%s: cannot read\n", argv[fi]);
      status = 1;
      continue;
    }
    ens_lottie_info info;
    if (ens_render_lottie_info(data, len, 0, &info) != 0) {
      fprintf(stderr, "%s: %s\n", argv[fi], ens_error_last());
      free(data);
      status = 1;
      continue;
    }
    long nframes = S_MIN(info.end - info.first, frames_max);
    long mid = info.first + (info.end - info.first) / 2;
    size_t w = (size_t)info.width, h = (size_t)info.height;
    char frame_arg[32], index_arg[32], count_arg[32];
    snprintf(frame_arg, sizeof frame_arg, "%ld", mid);
    snprintf(index_arg, sizeof index_arg, "%ld", mid - info.first);
    snprintf(count_arg, sizeof count_arg, "%ld", nframes);
    char *alone_argv[] = {alone, argv[fi], index_arg, "1", NULL};
    char *warm_argv[] = {alone, argv[fi], "0", count_arg, NULL};
    char *cli_argv[] = {cli, "render", argv[fi], "--frame", frame_arg, "-o", out_png, NULL};
    char *start_argv[] = {cli, "render", "--help", NULL};
    double rl_warm = 1e30, ens_warm = 1e30, rl_fresh = 1e30, ens_lib = 1e30, ens_cmd = 1e30, ens_start = 1e30;
    ens_render_size size = {0, 0, 0};
    for (int r = 0; r < runs; r++) {
      double per;
      if (s_run(warm_argv, &per) < 0) {
        fprintf(stderr, "%s: rlottie alone cannot render it\n", argv[fi]);
        status = 1;
        break;
      }
      rl_warm = S_MIN(rl_warm, per);
      long got = 0;
      double t0 = s_now();
      if (ens_render_lottie(data, len, info.first, info.first + nframes - 1, size, s_count, &got) != 0 ||
          got != nframes) {
        fprintf(stderr, "%s: %s\n", argv[fi], ens_error_last());
        status = 1;
        break;
      }
      /* the child's load is in this time: spread over the frames as a warm
       * render through Ensemble pays it once */
      ens_warm = S_MIN(ens_warm, (s_now() - t0) / (double)nframes);
      double t = s_run(alone_argv, NULL);
      if (t >= 0) rl_fresh = S_MIN(rl_fresh, t);
      ens_image img;
      t0 = s_now();
      if (ens_render_lottie_frame(data, len, mid, size, &img) == 0) ens_lib = S_MIN(ens_lib, s_now() - t0);
      ens_image_free(&img);
      t = s_run(cli_argv, NULL);
      if (t >= 0) ens_cmd = S_MIN(ens_cmd, t);
      t = s_run(start_argv, NULL);
      if (t >= 0) ens_start = S_MIN(ens_start, t);
    }
    const char *base = strrchr(argv[fi], '/');
    base = base ? base + 1 : argv[fi];
    printf("%-34.34s %9zu %3zux%-3zu %6ld | %8.2fms %8.2fms %6.2f | %8.2fms %8.2fms %8.2fms %6.2f %8.2fms\n", base, len,
           w, h, nframes, rl_warm, ens_warm, ens_warm / rl_warm, rl_fresh, ens_lib, ens_cmd, ens_cmd / rl_fresh,
           ens_start);
    free(data);
  }
  unlink(out_png);
  printf("warm: ms per frame over the first frames (up to %d): rlottie_alone's own timing without its load;\n"
         "      Ensemble's includes loading once in its child and the pixels' way through the pipe\n",
         frames_max);
  printf("fresh: ms for one frame (the middle one) in a new process: rlottie_alone; Ensemble's library (fork);\n"
         "       the ensemble render command (also reads the file, encodes and writes the PNG); ratio cmd / rlottie;\n"
         "       cmd start: `ensemble render --help`, the command's own start (its shared libraries)\n");
  printf("best of %d runs each, the sides alternating\n", runs);
  return status;
}
