/* SVG to pixels through librsvg and cairo (ensemble/render.h). The handle
 * is made from memory without a base file: librsvg then resolves no
 * relative reference and loads nothing but data: URLs, so rendering an
 * untrusted drawing never reads a file or the network.
 *
 * librsvg runs in a child process that sends the pixels back through a
 * pipe: it aborts its process on some inputs (Rust panics such as
 * "assertion failed: width > 0 && height > 0" on a resvg test file), and
 * some drawings take minutes, so the caller gets an error and a bounded
 * wait instead. The parent never initialises GLib, so each child starts
 * from a process that holds no GLib state or threads to inherit. */
#include <errno.h>
#include <fcntl.h>
#include <librsvg/rsvg.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../util/error.h"
#include "../../util/pipe.h"
#include "ensemble/render.h"

/* The drawing's own size in pixels, or 256 x 256 when it has none. */
static void s_own_size(RsvgHandle *h, double *w, double *h_out) {
  if (rsvg_handle_get_intrinsic_size_in_pixels(h, w, h_out) && *w > 0 && *h_out > 0) return;
  gboolean has_w, has_h, has_vb;
  RsvgLength lw, lh;
  RsvgRectangle vb;
  rsvg_handle_get_intrinsic_dimensions(h, &has_w, &lw, &has_h, &lh, &has_vb, &vb);
  if (has_vb && vb.width > 0 && vb.height > 0) {
    *w = vb.width;
    *h_out = vb.height;
    return;
  }
  *w = *h_out = 256;
}

/* Whole pixels for the requested size; 0 or an error code. */
static int s_pixels(ens_render_size want, double own_w, double own_h, int *w, int *h) {
  if (want.width < 0 || want.height < 0) return ens__error(ENS_EINVAL, "a render size cannot be negative");
  double fw = want.width, fh = want.height;
  if (!want.width && !want.height) {
    fw = ceil(own_w);
    fh = ceil(own_h);
  } else if (!want.width) {
    fw = ceil(fh * own_w / own_h);
  } else if (!want.height) {
    fh = ceil(fw * own_h / own_w);
  }
  if (!(fw >= 1)) fw = 1; /* also NaN */
  if (!(fh >= 1)) fh = 1;
  if (fw > ENS_RENDER_MAX_SIDE || fh > ENS_RENDER_MAX_SIDE || fw * fh > (double)ENS_RENDER_MAX_PIXELS)
    return ens__error(ENS_ELIMIT, "a %.0f x %.0f image is beyond the render limit (%d per side, %u pixels)", fw, fh,
                      ENS_RENDER_MAX_SIDE, ENS_RENDER_MAX_PIXELS);
  *w = (int)fw;
  *h = (int)fh;
  return 0;
}

/* The rendering itself, in the child. */
static int s_render_here(const void *svg, size_t len, ens_render_size size, ens_image *out) {
  memset(out, 0, sizeof *out);
  GError *err = NULL;
  GInputStream *in = g_memory_input_stream_new_from_data(svg ? svg : "", (gssize)len, NULL);
  RsvgHandle *h = rsvg_handle_new_from_stream_sync(in, NULL, RSVG_HANDLE_FLAGS_NONE, NULL, &err);
  g_object_unref(in);
  if (!h) {
    int rc = ens__error(ENS_EDECODE, "the drawing does not render: %s", err ? err->message : "unknown error");
    if (err) g_error_free(err);
    return rc;
  }
  double own_w, own_h;
  s_own_size(h, &own_w, &own_h);
  int w = 0, ht = 0, rc = s_pixels(size, own_w, own_h, &w, &ht);
  if (rc) {
    g_object_unref(h);
    return rc;
  }
  cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, ht);
  if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(surf);
    g_object_unref(h);
    return ens__error(ENS_ENOMEM, "out of memory for a %d x %d image", w, ht);
  }
  cairo_t *cr = cairo_create(surf);
  RsvgRectangle viewport = {0, 0, w, ht};
  gboolean ok = rsvg_handle_render_document(h, cr, &viewport, &err);
  cairo_destroy(cr);
  g_object_unref(h);
  if (!ok) {
    rc = ens__error(ENS_EDECODE, "the drawing does not render: %s", err ? err->message : "unknown error");
    if (err) g_error_free(err);
    cairo_surface_destroy(surf);
    return rc;
  }
  cairo_surface_flush(surf);
  /* copy out of cairo so the caller owns plain memory (ens_image_free) */
  size_t stride = (size_t)cairo_image_surface_get_stride(surf);
  out->pixels = malloc(stride * (size_t)ht);
  if (!out->pixels) {
    cairo_surface_destroy(surf);
    return ens__error(ENS_ENOMEM, "out of memory for a %d x %d image", w, ht);
  }
  memcpy(out->pixels, cairo_image_surface_get_data(surf), stride * (size_t)ht);
  out->width = w;
  out->height = ht;
  out->stride = stride;
  cairo_surface_destroy(surf);
  return 0;
}

/* --- the child process ------------------------------------------------------------ */

/* What the child sends first: status 0 and the image's shape, then the
 * pixels; or an error code and a message. */
typedef struct {
  int32_t status;
  int32_t width, height;
  uint32_t msg_len;
  uint64_t stride;
} s_reply;

static void s_child(int fd, const void *svg, size_t len, ens_render_size size) {
  ens_image img;
  s_reply rep = {0};
  int rc = s_render_here(svg, len, size, &img);
  if (rc) {
    const char *msg = ens_error_last();
    rep.status = rc;
    rep.msg_len = (uint32_t)strlen(msg);
    if (ens__pipe_write_all(fd, &rep, sizeof rep) == 0) ens__pipe_write_all(fd, msg, rep.msg_len);
    _exit(0);
  }
  rep.width = img.width;
  rep.height = img.height;
  rep.stride = img.stride;
  if (ens__pipe_write_all(fd, &rep, sizeof rep) == 0) ens__pipe_write_all(fd, img.pixels, img.stride * (size_t)img.height);
  _exit(0);
}

/* --- the parent ----------------------------------------------------------------- */

/* Waits for the child; its end as an error code (0 when it exited). */
static int s_reap(pid_t pid, int kill_it) {
  int st;
  if (kill_it) kill(pid, SIGKILL);
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return ens__error(ENS_EIO, "lost the rendering process: %s", strerror(errno));
  if (WIFSIGNALED(st) && !kill_it)
    return ens__error(ENS_EDECODE, "the renderer crashed on this drawing (librsvg, signal %d)", WTERMSIG(st));
  return 0;
}

int ens_render_svg(const void *svg, size_t len, ens_render_size size, ens_image *out) {
  if (!out || (!svg && len)) return ens__error(ENS_EINVAL, "ens_render_svg needs a drawing and an image");
  memset(out, 0, sizeof *out);
  if (size.width < 0 || size.height < 0 || size.timeout_ms < 0)
    return ens__error(ENS_EINVAL, "a render size or timeout cannot be negative");
  int timeout = size.timeout_ms ? size.timeout_ms : ENS_RENDER_TIMEOUT_MS;
  int fds[2];
  if (pipe(fds) != 0) return ens__error(ENS_EIO, "cannot make a pipe to render: %s", strerror(errno));
  fflush(NULL); /* nothing buffered is written twice by the child */
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return ens__error(ENS_EIO, "cannot start the rendering process: %s", strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    /* librsvg's panic messages and GLib's warnings would only repeat the
     * error the parent reports */
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, STDERR_FILENO);
    s_child(fds[1], svg, len, size);
  }
  close(fds[1]);
  double deadline = ens__pipe_now_ms() + timeout;
  s_reply rep;
  int rc = 0, r = ens__pipe_read_all(fds[0], &rep, sizeof rep, deadline);
  if (r == 0 && rep.status != 0) {
    char msg[1024];
    size_t n = rep.msg_len < sizeof msg - 1 ? rep.msg_len : sizeof msg - 1;
    if (ens__pipe_read_all(fds[0], msg, n, deadline) != 0) n = 0;
    msg[n] = '\0';
    rc = rep.status < 0 ? rep.status : ENS_EDECODE;
    close(fds[0]);
    int end = s_reap(pid, 0);
    return end ? end : ens__error(rc, "%s", n ? msg : "the drawing does not render");
  }
  if (r == 0) {
    /* the shape is checked before anything is allocated for it */
    if (rep.width < 1 || rep.height < 1 || rep.width > ENS_RENDER_MAX_SIDE || rep.height > ENS_RENDER_MAX_SIDE ||
        rep.stride < (uint64_t)rep.width * 4 || rep.stride > (uint64_t)rep.width * 4 + 64) {
      close(fds[0]);
      s_reap(pid, 1);
      return ens__error(ENS_EIO, "the rendering process sent a malformed image");
    }
    size_t bytes = (size_t)rep.stride * (size_t)rep.height;
    out->pixels = malloc(bytes);
    if (!out->pixels) {
      close(fds[0]);
      s_reap(pid, 1);
      return ens__error(ENS_ENOMEM, "out of memory for a %d x %d image", rep.width, rep.height);
    }
    r = ens__pipe_read_all(fds[0], out->pixels, bytes, deadline);
  }
  close(fds[0]);
  if (r == 1) {
    s_reap(pid, 1);
    ens_image_free(out);
    return ens__error(ENS_ELIMIT, "rendering took longer than %d ms", timeout);
  }
  rc = s_reap(pid, 0);
  if (!rc && r != 0) rc = ens__error(ENS_EIO, "the rendering process ended without an image");
  if (rc) {
    ens_image_free(out);
    return rc;
  }
  out->width = rep.width;
  out->height = rep.height;
  out->stride = (size_t)rep.stride;
  return 0;
}

typedef struct {
  unsigned char *data;
  size_t len, cap;
  int oom;
} s_sink;

static cairo_status_t s_png_write(void *closure, const unsigned char *data, unsigned int n) {
  s_sink *s = closure;
  if (s->len + n > s->cap) {
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < s->len + n) cap *= 2;
    unsigned char *p = realloc(s->data, cap);
    if (!p) {
      s->oom = 1;
      return CAIRO_STATUS_NO_MEMORY;
    }
    s->data = p;
    s->cap = cap;
  }
  memcpy(s->data + s->len, data, n);
  s->len += n;
  return CAIRO_STATUS_SUCCESS;
}

int ens_image_png(const ens_image *img, unsigned char **png, size_t *png_len) {
  if (!img || !img->pixels || !png) return ens__error(ENS_EINVAL, "ens_image_png needs an image and an output");
  *png = NULL;
  if (png_len) *png_len = 0;
  cairo_surface_t *surf = cairo_image_surface_create_for_data(img->pixels, CAIRO_FORMAT_ARGB32, img->width,
                                                              img->height, (int)img->stride);
  s_sink sink = {0};
  cairo_status_t st = cairo_surface_write_to_png_stream(surf, s_png_write, &sink);
  cairo_surface_destroy(surf);
  if (st != CAIRO_STATUS_SUCCESS) {
    free(sink.data);
    return ens__error(sink.oom ? ENS_ENOMEM : ENS_EIO, "PNG encoding failed: %s", cairo_status_to_string(st));
  }
  *png = sink.data;
  if (png_len) *png_len = sink.len;
  return 0;
}

long ens_image_diff_count(const ens_image *a, const ens_image *b) {
  if (!a || !b || a->width != b->width || a->height != b->height) return -1;
  long n = 0;
  for (int y = 0; y < a->height; y++) {
    const uint32_t *ra = (const uint32_t *)(a->pixels + (size_t)y * a->stride);
    const uint32_t *rb = (const uint32_t *)(b->pixels + (size_t)y * b->stride);
    for (int x = 0; x < a->width; x++) n += ra[x] != rb[x];
  }
  return n;
}

void ens_image_free(ens_image *img) {
  if (!img) return;
  free(img->pixels);
  memset(img, 0, sizeof *img);
}
