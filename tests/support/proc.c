/* Child processes and scratch files for the integration tests (proc.h). */
#define _GNU_SOURCE
#include "proc.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int tu_temp_dir(char *dir, size_t size, const char *prefix) {
  if ((size_t)snprintf(dir, size, "/tmp/%s-XXXXXX", prefix) >= size) return -1;
  return mkdtemp(dir) ? 0 : -1;
}

int tu_rm_rf(const char *dir) {
  if (strchr(dir, '\'')) return -1; /* quoted for the shell below */
  char cmd[4200];
  if ((size_t)snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) >= sizeof cmd) return -1;
  return system(cmd) == 0 ? 0 : -1;
}

int tu_write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, f) == n;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static int s_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status); }

int tu_serve_start(const char *bin, const char *file, const char *store, const char *err_path, int wait_ms,
                   pid_t *pid, char *endpoint, size_t endpoint_size) {
  int fds[2];
  if (pipe(fds) != 0) return -1000;
  pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1000;
  }
  if (child == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (e >= 0) dup2(e, 2);
    if (store)
      execl(bin, bin, "serve", "--bind", "tcp://127.0.0.1:*", "--store", store, file, (char *)NULL);
    else
      execl(bin, bin, "serve", "--bind", "tcp://127.0.0.1:*", file, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  /* The first line of stdout names the endpoint: "... on ENDPOINT ...". */
  struct pollfd p = {fds[0], POLLIN, 0};
  char line[512];
  size_t n = 0;
  int timed_out = 0;
  while (n + 1 < sizeof line) {
    if (poll(&p, 1, wait_ms) <= 0) {
      timed_out = 1;
      break;
    }
    ssize_t k = read(fds[0], line + n, 1);
    if (k <= 0) break;
    if (line[n++] == '\n') break;
  }
  line[n] = '\0';
  close(fds[0]);
  char *on = strstr(line, " on "), *end = on ? strchr(on + 4, ' ') : NULL;
  if (timed_out || !on || !end) {
    if (timed_out) kill(child, SIGKILL);
    int status;
    if (waitpid(child, &status, 0) != child) return -1000;
    return timed_out ? 1000 : s_status(status);
  }
  *end = '\0';
  snprintf(endpoint, endpoint_size, "%s", on + 4);
  *pid = child;
  return 0;
}

int tu_proc_stop(pid_t pid, int sig) {
  kill(pid, sig);
  int status;
  if (waitpid(pid, &status, 0) != pid) return -1000;
  return s_status(status);
}
