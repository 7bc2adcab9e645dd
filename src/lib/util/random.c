/* Random bytes from getrandom(2) (see random.h). */
#include "random.h"

#include <errno.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "error.h"

int ens__random(void *buf, size_t len) {
  unsigned char *p = buf;
  while (len) {
#ifdef __EMSCRIPTEN__
    /* the browser's crypto.getRandomValues, 256 bytes at most per call */
    size_t step = len < 256 ? len : 256;
    ssize_t n = getentropy(p, step) == 0 ? (ssize_t)step : -1;
#else
    ssize_t n = getrandom(p, len, 0);
#endif
    if (n < 0) {
      if (errno == EINTR) continue;
      return ens__error(ENS_EIO, "getrandom failed (errno %d)", errno);
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

uint64_t ens__random_u64(void) {
  uint64_t v = 0;
  if (ens__random(&v, sizeof v) != 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = ((uint64_t)ts.tv_sec * 1000000007ULL) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    v ^= v >> 29;
    v *= 0xbf58476d1ce4e5b9ULL;
  }
  return v ? v : 1;
}
