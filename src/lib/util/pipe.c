/* Pipe reads and writes for the render children (pipe.h). */
#define _GNU_SOURCE
#include "pipe.h"

#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

int ens__pipe_write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t k = write(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    c += k;
    n -= (size_t)k;
  }
  return 0;
}

double ens__pipe_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int ens__pipe_read_all(int fd, void *p, size_t n, double deadline) {
  char *c = p;
  while (n) {
    double left = deadline - ens__pipe_now_ms();
    if (left <= 0) return 1;
    struct pollfd pfd = {fd, POLLIN, 0};
    int r = poll(&pfd, 1, left > 1e6 ? 1000000 : (int)left + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) continue; /* the loop re-checks the deadline */
    ssize_t k = read(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    c += k;
    n -= (size_t)k;
  }
  return 0;
}
