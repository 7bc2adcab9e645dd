/* Lottie frames to pixels through rlottie (ensemble/render.h).
 *
 * rlottie runs in a child process that streams the frames back through a
 * pipe, for three of its traits: it is C++ that trusts its input (a
 * hostile file may crash it or make it loop), Debian's build starts worker
 * threads on the first frame (so the parent, which may run a session's
 * threads, never calls it and each child starts clean), and it keeps loaded
 * models in a process-wide cache keyed by the caller's key, handing back a
 * cached model for a new text under an old key; the child loads one
 * animation, under a key made from its bytes, and exits. No file is read
 * for it: images named by path are not loaded. The child's stderr
 * comes back to the parent through a pipe, to tell running out of memory
 * (std::bad_alloc ending the child) from a crash. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <rlottie_capi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../util/error.h"
#include "../../util/pipe.h"
#include "ensemble/render.h"
#include "render_int.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define S_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define S_SANITIZED 1
#endif
#endif

/* What the child sends first: status 0 and the animation, or an error
 * code and a message. Then for each frame a s_frame and, on status 0, its
 * pixels. */
typedef struct {
  int32_t status;
  uint32_t msg_len;
  int32_t own_w, own_h; /* the animation's size */
  int32_t width, height; /* the frames' */
  int64_t first, end;
  double fps;
} s_head;

typedef struct {
  int32_t status;
  uint32_t msg_len;
  int64_t frame;
} s_frame;

/* --- sizes ------------------------------------------------------------------------ */

static int s_pixels(ens_render_size want, double own_w, double own_h, int *w, int *h) {
  double fw = want.width, fh = want.height;
  if (!(own_w >= 1) || !(own_h >= 1) || own_w > 1e9 || own_h > 1e9) {
    own_w = own_w >= 1 && own_w <= 1e9 ? own_w : 256;
    own_h = own_h >= 1 && own_h <= 1e9 ? own_h : 256;
  }
  if (!want.width && !want.height) {
    fw = ceil(own_w);
    fh = ceil(own_h);
  } else if (!want.width) {
    fw = ceil(fh * own_w / own_h);
  } else if (!want.height) {
    fh = ceil(fw * own_h / own_w);
  }
  if (!(fw >= 1)) fw = 1;
  if (!(fh >= 1)) fh = 1;
  if (fw > ENS_RENDER_MAX_SIDE || fh > ENS_RENDER_MAX_SIDE || fw * fh > (double)ENS_RENDER_MAX_PIXELS)
    return ens__error(ENS_ELIMIT, "a %.0f x %.0f image is beyond the render limit (%d per side, %u pixels)", fw, fh,
                      ENS_RENDER_MAX_SIDE, ENS_RENDER_MAX_PIXELS);
  *w = (int)fw;
  *h = (int)fh;
  return 0;
}

/* A range's end: ENS_LOTTIE_FIRST and ENS_LOTTIE_LAST as the frames
 * they stand for. */
static long s_resolve(long f, const s_head *h) {
  if (f == ENS_LOTTIE_FIRST) return (long)h->first;
  if (f == ENS_LOTTIE_LAST) return (long)h->end - 1;
  return f;
}

/* --- the child -------------------------------------------------------------------- */

/* A memory limit on top of what the process already maps (it was forked
 * from a caller of any size). Sanitizer runtimes map terabytes of shadow
 * memory up front, so their builds run without it. */
static void s_limit_memory(size_t extra) {
  struct rlimit core = {0, 0};
  setrlimit(RLIMIT_CORE, &core);
#ifndef S_SANITIZED
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (f) {
    if (fscanf(f, "%lu", &pages) != 1) pages = 0;
    fclose(f);
  }
  long psz = sysconf(_SC_PAGESIZE);
  rlim_t lim = (rlim_t)pages * (rlim_t)(psz > 0 ? psz : 4096) + ENS_RENDER_LOTTIE_MEMORY + extra;
  struct rlimit as;
  if (getrlimit(RLIMIT_AS, &as) == 0 && (as.rlim_max == RLIM_INFINITY || as.rlim_max > lim)) {
    as.rlim_cur = lim;
    setrlimit(RLIMIT_AS, &as);
  }
#else
  (void)extra;
#endif
}

static void s_send_error(int fd, int code) {
  const char *msg = ens_error_last();
  s_head h;
  memset(&h, 0, sizeof h);
  h.status = code;
  h.msg_len = (uint32_t)strlen(msg);
  if (ens__pipe_write_all(fd, &h, sizeof h) == 0) ens__pipe_write_all(fd, msg, h.msg_len);
  _exit(0);
}

static uint64_t s_fnv(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

/* Loads the animation, sends its head, then renders frames first..last
 * (when render is set). Never returns. */
static void s_child(int fd, const void *data, size_t len, int render, long first, long last, ens_render_size size) {
  char *text = NULL;
  size_t n = 0;
  int rc;
  if (ens__lottie_is_gzip(data, len)) {
    rc = ens__lottie_gunzip(data, len, ENS_RENDER_LOTTIE_MAX_JSON, 0, &text, &n);
    if (rc) s_send_error(fd, rc);
  } else {
    if (len > ENS_RENDER_LOTTIE_MAX_JSON)
      s_send_error(fd, ens__error(ENS_ELIMIT, "the animation is larger than %zu bytes", ENS_RENDER_LOTTIE_MAX_JSON));
    text = malloc(len + 1); /* rlottie reads a NUL-terminated string */
    if (!text) s_send_error(fd, ens__error(ENS_ENOMEM, "out of memory for %zu bytes", len));
    memcpy(text, data, len);
    text[len] = '\0';
    n = len;
  }
  ens__lottie_top top;
  if (ens__lottie_scan_top(text, n, &top) != 0)
    s_send_error(fd, ens__error(ENS_EDECODE, "not a Lottie animation: the text is not one JSON object"));
  if (!top.has_layers || !top.has_ip || !top.has_op || !top.has_fr)
    s_send_error(fd, ens__error(ENS_EDECODE, "not a Lottie animation: it lacks %s",
                                !top.has_layers ? "\"layers\""
                                : !top.has_ip   ? "\"ip\""
                                : !top.has_op   ? "\"op\""
                                                : "\"fr\""));
  if (!(top.w >= 1 && top.h >= 1))
    s_send_error(fd, ens__error(ENS_EDECODE, "the animation has no size (\"w\" and \"h\" above 0)"));
  if (top.w > ENS_RENDER_MAX_SIDE || top.h > ENS_RENDER_MAX_SIDE)
    s_send_error(fd, ens__error(ENS_ELIMIT, "the animation's own size %.0f x %.0f is beyond the render limit (%d a side)",
                                top.w, top.h, ENS_RENDER_MAX_SIDE));
  if (!(fabs(top.ip) < 1e9 && fabs(top.op) < 1e9))
    s_send_error(fd, ens__error(ENS_ELIMIT, "the animation's frame numbers are beyond 10^9"));
  if (!top.has_v) {
    /* rlottie 0.1 refuses an animation without "v" (the spec's own examples
     * leave it out); a version of our own in the child's copy lets it load */
    static const char v[] = "\"v\":\"5.5.2\",";
    char *with = malloc(n + sizeof v);
    if (!with) s_send_error(fd, ens__error(ENS_ENOMEM, "out of memory for %zu bytes", n));
    memcpy(with, text, top.open + 1);
    memcpy(with + top.open + 1, v, sizeof v - 1);
    memcpy(with + top.open + sizeof v, text + top.open + 1, n - top.open); /* with the NUL */
    free(text);
    text = with;
    n += sizeof v - 1;
  }
  char key[40];
  snprintf(key, sizeof key, "ensemble-%016llx", (unsigned long long)s_fnv(text, n));
  /* images the animation names by path resolve under /dev/null/, where
   * nothing can be opened: rendering reads no file (rlottie would read a
   * path relative to the working directory, or an absolute one); images
   * embedded as data: URLs are drawn */
  Lottie_Animation *anim = lottie_animation_from_data(text, key, "/dev/null/");
  free(text);
  if (!anim) s_send_error(fd, ens__error(ENS_EDECODE, "rlottie cannot load this animation"));
  size_t own_w = 0, own_h = 0;
  lottie_animation_get_size(anim, &own_w, &own_h);
  size_t total = lottie_animation_get_totalframe(anim);
  s_head h;
  memset(&h, 0, sizeof h);
  h.own_w = (int32_t)own_w;
  h.own_h = (int32_t)own_h;
  h.fps = lottie_animation_get_framerate(anim);
  h.first = (int64_t)floor(top.ip);
  h.end = h.first + (int64_t)(total < 2000000000 ? total : 2000000000);
  if (total < 1) s_send_error(fd, ens__error(ENS_EDECODE, "the animation has no frames (\"op\" is not past \"ip\")"));
  int w = 0, ht = 0;
  if (render) {
    first = s_resolve(first, &h);
    last = s_resolve(last, &h);
    if (first > last)
      s_send_error(fd, ens__error(ENS_EINVAL, "frames %ld..%ld: the first is after the last", first, last));
    if (first < h.first || last >= h.end)
      s_send_error(fd, ens__error(ENS_EINVAL, "frames %ld..%ld are outside the animation's %lld..%lld", first, last,
                                  (long long)h.first, (long long)h.end - 1));
    rc = s_pixels(size, (double)own_w, (double)own_h, &w, &ht);
    if (rc) s_send_error(fd, rc);
  }
  h.width = w;
  h.height = ht;
  if (ens__pipe_write_all(fd, &h, sizeof h) != 0 || !render) _exit(0);
  size_t stride = (size_t)w * 4;
  uint32_t *px = malloc(stride * (size_t)ht);
  for (long f = first; f <= last; f++) {
    s_frame fr = {0, 0, f};
    if (!px) {
      const char *msg = "out of memory for a frame";
      fr.status = ENS_ENOMEM;
      fr.msg_len = (uint32_t)strlen(msg);
      if (ens__pipe_write_all(fd, &fr, sizeof fr) == 0) ens__pipe_write_all(fd, msg, fr.msg_len);
      _exit(0);
    }
    memset(px, 0, stride * (size_t)ht);
    lottie_animation_render(anim, (size_t)(f - h.first), px, (size_t)w, (size_t)ht, stride);
    if (ens__pipe_write_all(fd, &fr, sizeof fr) != 0 || ens__pipe_write_all(fd, px, stride * (size_t)ht) != 0) _exit(0);
  }
  /* rlottie's worker threads are left to the exit */
  _exit(0);
}

/* --- the parent ------------------------------------------------------------------- */

typedef struct {
  pid_t pid;
  int fd;
  int err_fd; /* the child's stderr */
  int timeout;
} s_proc;

static int s_start(s_proc *p, const void *data, size_t len, int render, long first, long last, ens_render_size size) {
  int fds[2];
  if (pipe(fds) != 0) return ens__error(ENS_EIO, "cannot make a pipe to render: %s", strerror(errno));
  int errs[2];
  if (pipe(errs) != 0) {
    close(fds[0]);
    close(fds[1]);
    return ens__error(ENS_EIO, "cannot make a pipe to render: %s", strerror(errno));
  }
#ifdef F_SETPIPE_SZ
  /* a frame in fewer trips between the processes (best effort: Linux caps
   * it at /proc/sys/fs/pipe-max-size) */
  fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
#endif
  size_t frame_bytes = 0;
  if (render && size.width > 0 && size.height > 0) frame_bytes = (size_t)size.width * (size_t)size.height * 4;
  fflush(NULL); /* nothing buffered is written twice by the child */
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    close(errs[0]);
    close(errs[1]);
    return ens__error(ENS_EIO, "cannot start the rendering process: %s", strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    close(errs[0]);
    /* what rlottie or the C++ runtime says goes to the parent, which tells
     * running out of memory from it; never blocking: past the pipe's room
     * it is dropped */
    fcntl(errs[1], F_SETFL, O_NONBLOCK);
    dup2(errs[1], STDERR_FILENO);
    close(errs[1]);
    /* nothing else of the caller's: above all not the pipes of renders other
     * threads run at the same time, whose ends would otherwise stay open
     * in this child */
    int out = fds[1];
    if (out > 3) close_range(3, (unsigned)out - 1, 0);
    close_range((unsigned)out + 1, ~0u, 0);
    /* a frame at the largest size the limits allow, beside rlottie's own */
    s_limit_memory(frame_bytes ? frame_bytes : (size_t)ENS_RENDER_MAX_PIXELS * 4);
    s_child(fds[1], data, len, render, first, last, size);
  }
  close(fds[1]);
  close(errs[1]);
  fcntl(errs[0], F_SETFL, O_NONBLOCK);
  p->pid = pid;
  p->fd = fds[0];
  p->err_fd = errs[0];
  return 0;
}

/* The start of what the child wrote to stderr, once it has ended. */
static void s_child_stderr(s_proc *p, char *buf, size_t size) {
  size_t n = 0;
  while (p->err_fd >= 0 && n + 1 < size) {
    ssize_t k = read(p->err_fd, buf + n, size - 1 - n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    n += (size_t)k;
  }
  buf[n] = '\0';
}

/* Ends the child: its end as an error code (0 when it exited). */
static int s_finish(s_proc *p, int kill_it) {
  int st, rc = 0;
  if (p->fd >= 0) close(p->fd);
  p->fd = -1;
  if (kill_it) kill(p->pid, SIGKILL);
  while (waitpid(p->pid, &st, 0) < 0)
    if (errno != EINTR) {
      rc = ens__error(ENS_EIO, "lost the rendering process: %s", strerror(errno));
      goto done;
    }
  if (WIFSIGNALED(st) && !kill_it) {
    int sig = WTERMSIG(st);
    char said[4096];
    s_child_stderr(p, said, sizeof said);
    if (strstr(said, "bad_alloc") || strstr(said, "length_error"))
      rc = ens__error(ENS_ELIMIT, "rendering this animation needs more memory than allowed (%zu MiB beyond the caller's)",
                      (size_t)(ENS_RENDER_LOTTIE_MEMORY >> 20));
    else if (sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS)
      rc = ens__error(ENS_EDECODE, "rlottie crashed on this animation (signal %d)", sig);
    else
      rc = ens__error(ENS_EDECODE, "the rendering process ended by signal %d", sig);
  }
done:
  if (p->err_fd >= 0) close(p->err_fd);
  p->err_fd = -1;
  return rc;
}

/* A message of msg_len bytes that follows a failed status. */
static int s_child_error(s_proc *p, int32_t status, uint32_t msg_len, double deadline) {
  char msg[1024];
  size_t n = msg_len < sizeof msg - 1 ? msg_len : sizeof msg - 1;
  if (ens__pipe_read_all(p->fd, msg, n, deadline) != 0) n = 0;
  msg[n] = '\0';
  int code = status < 0 ? status : ENS_EDECODE;
  int end = s_finish(p, 0);
  return end ? end : ens__error(code, "%s", n ? msg : "the animation does not render");
}

/* Reads the head: 0, or the error (the child then reaped). */
static int s_read_head(s_proc *p, s_head *h) {
  double deadline = ens__pipe_now_ms() + p->timeout;
  int r = ens__pipe_read_all(p->fd, h, sizeof *h, deadline);
  if (r == 1) {
    s_finish(p, 1);
    return ens__error(ENS_ELIMIT, "loading the animation took longer than %d ms", p->timeout);
  }
  if (r != 0) {
    int rc = s_finish(p, 0);
    return rc ? rc : ens__error(ENS_EIO, "the rendering process ended without an answer");
  }
  if (h->status != 0) return s_child_error(p, h->status, h->msg_len, deadline);
  return 0;
}

static int s_check_args(const void *data, size_t len, int timeout_ms) {
  if (!data && len) return ens__error(ENS_EINVAL, "no animation given");
  if (timeout_ms < 0) return ens__error(ENS_EINVAL, "a timeout cannot be negative");
  return 0;
}

int ens_render_lottie_info(const void *data, size_t len, int timeout_ms, ens_lottie_info *out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_render_lottie_info needs an output");
  memset(out, 0, sizeof *out);
  int rc = s_check_args(data, len, timeout_ms);
  if (rc) return rc;
  s_proc p = {0, -1, -1, timeout_ms ? timeout_ms : ENS_RENDER_TIMEOUT_MS};
  ens_render_size none = {0, 0, 0};
  if ((rc = s_start(&p, data ? data : "", len, 0, 0, 0, none)) != 0) return rc;
  s_head h;
  if ((rc = s_read_head(&p, &h)) != 0) return rc;
  if ((rc = s_finish(&p, 0)) != 0) return rc;
  out->width = h.own_w;
  out->height = h.own_h;
  out->fps = h.fps;
  out->first = (long)h.first;
  out->end = (long)h.end;
  return 0;
}

int ens_render_lottie(const void *data, size_t len, long first, long last, ens_render_size size,
                      ens_render_frame_fn fn, void *user) {
  int rc = s_check_args(data, len, size.timeout_ms);
  if (rc) return rc;
  if (!fn) return ens__error(ENS_EINVAL, "ens_render_lottie needs a function for the frames");
  if (size.width < 0 || size.height < 0) return ens__error(ENS_EINVAL, "a render size cannot be negative");
  if (size.width > ENS_RENDER_MAX_SIDE || size.height > ENS_RENDER_MAX_SIDE ||
      (double)size.width * size.height > (double)ENS_RENDER_MAX_PIXELS)
    return ens__error(ENS_ELIMIT, "a %d x %d image is beyond the render limit (%d per side, %u pixels)", size.width,
                      size.height, ENS_RENDER_MAX_SIDE, ENS_RENDER_MAX_PIXELS);
  s_proc p = {0, -1, -1, size.timeout_ms ? size.timeout_ms : ENS_RENDER_TIMEOUT_MS};
  if ((rc = s_start(&p, data ? data : "", len, 1, first, last, size)) != 0) return rc;
  s_head h;
  if ((rc = s_read_head(&p, &h)) != 0) return rc;
  if (h.width < 1 || h.height < 1 || h.width > ENS_RENDER_MAX_SIDE || h.height > ENS_RENDER_MAX_SIDE ||
      (double)h.width * h.height > (double)ENS_RENDER_MAX_PIXELS || h.end <= h.first) {
    s_finish(&p, 1);
    return ens__error(ENS_EIO, "the rendering process sent a malformed answer");
  }
  ens_lottie_info info = {h.own_w, h.own_h, h.fps, (long)h.first, (long)h.end};
  first = s_resolve(first, &h);
  last = s_resolve(last, &h);
  ens_image img = {h.width, h.height, (size_t)h.width * 4, NULL};
  size_t bytes = img.stride * (size_t)img.height;
  for (long f = first; f <= last; f++) {
    double deadline = ens__pipe_now_ms() + p.timeout;
    s_frame fr;
    int r = ens__pipe_read_all(p.fd, &fr, sizeof fr, deadline);
    if (r == 0 && fr.status != 0) {
      free(img.pixels);
      return s_child_error(&p, fr.status, fr.msg_len, deadline);
    }
    if (r == 0 && fr.frame != f) {
      free(img.pixels);
      s_finish(&p, 1);
      return ens__error(ENS_EIO, "the rendering process sent frame %lld for %ld", (long long)fr.frame, f);
    }
    if (r == 0 && !img.pixels && !(img.pixels = malloc(bytes))) {
      s_finish(&p, 1);
      return ens__error(ENS_ENOMEM, "out of memory for a %d x %d image", img.width, img.height);
    }
    if (r == 0) r = ens__pipe_read_all(p.fd, img.pixels, bytes, deadline);
    if (r == 1) {
      s_finish(&p, 1);
      free(img.pixels);
      return ens__error(ENS_ELIMIT, "rendering frame %ld took longer than %d ms", f, p.timeout);
    }
    if (r != 0) {
      free(img.pixels);
      rc = s_finish(&p, 0);
      return rc ? rc : ens__error(ENS_EIO, "the rendering process ended before frame %ld", f);
    }
    int stop = fn(user, &info, f, &img);
    if (stop) {
      free(img.pixels);
      s_finish(&p, 1);
      return stop;
    }
  }
  free(img.pixels);
  return s_finish(&p, 0);
}

static int s_keep_one(void *user, const ens_lottie_info *info, long frame, ens_image *img) {
  ens_image *out = user;
  (void)info;
  (void)frame;
  *out = *img;
  img->pixels = NULL; /* taken */
  return 0;
}

int ens_render_lottie_frame(const void *data, size_t len, long frame, ens_render_size size, ens_image *out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_render_lottie_frame needs an image");
  memset(out, 0, sizeof *out);
  int rc = ens_render_lottie(data, len, frame, frame, size, s_keep_one, out);
  if (rc) ens_image_free(out);
  return rc;
}
