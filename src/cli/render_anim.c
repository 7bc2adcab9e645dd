/* `ensemble render` for Lottie animations: one frame to a PNG, a range of
 * frames to one PNG each in a directory, or a range as one animated PNG;
 * rlottie renders them in a child process (ensemble/render.h). A progress
 * bar is drawn on stderr for renders that last, when it is a terminal. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* The bar appears once a render has taken this long. */
#define S_BAR_AFTER_MS 500.0

typedef struct {
  const char *cmd, *out;
  const char *stem; /* a directory's file names: STEM-FRAME.png */
  int digits;
  int mode; /* 0 one frame, 1 a directory, 2 animated */
  long first, last;
  ens_apng *apng;
  ens_image one; /* the single frame, taken from the renderer */
  long done;
  int width, height;
  double fps;
  double start_ms, drawn_ms;
  int bar, bar_shown;
  char err[512];
} s_job;

static double s_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void s_progress(s_job *j, int last) {
  if (!j->bar) return;
  double now = s_now_ms();
  if (!j->bar_shown && now - j->start_ms < S_BAR_AFTER_MS) return;
  if (!last && now - j->drawn_ms < 100) return;
  j->drawn_ms = now;
  j->bar_shown = 1;
  long total = j->last - j->first + 1;
  int width = 30, fill = (int)(width * j->done / total);
  fprintf(stderr, "\r%s: [%.*s%*s] %ld/%ld frames", j->cmd, fill, "##############################", width - fill, "",
          j->done, total);
  if (last) {
    fputc('\n', stderr);
    j->bar_shown = 0;
  }
  fflush(stderr);
}

/* The end of the bar before any other line on stderr. */
static void s_progress_end(s_job *j) {
  if (j->bar_shown) {
    fputc('\n', stderr);
    j->bar_shown = 0;
  }
}

/* The delay of one frame as PNG's fraction of a second. */
static void s_delay(double fps, unsigned *num, unsigned *den) {
  if (!(fps > 0) || fps > 1000) fps = 30;
  if (fabs(fps - round(fps)) < 1e-6) {
    *num = 1;
    *den = (unsigned)round(fps);
  } else {
    *num = 1000;
    *den = (unsigned)round(fps * 1000) > 65535 ? 65535 : (unsigned)round(fps * 1000);
  }
}

/* Before the first frame: the range's open ends, the directory, the
 * animated PNG at the frames' size and the animation's frame rate. */
static int s_setup(s_job *j, const ens_lottie_info *info, const ens_image *img) {
  if (j->first == ENS_LOTTIE_FIRST) j->first = info->first;
  if (j->last == ENS_LOTTIE_FIRST) j->last = info->first;
  if (j->last == ENS_LOTTIE_LAST) j->last = info->end - 1;
  j->fps = info->fps;
  if (j->mode == 1) {
    struct stat st;
    if (mkdir(j->out, 0777) != 0 && errno != EEXIST) {
      snprintf(j->err, sizeof j->err, "%s: %s", j->out, strerror(errno));
      return 1;
    }
    if (stat(j->out, &st) != 0 || !S_ISDIR(st.st_mode)) {
      snprintf(j->err, sizeof j->err, "%s is not a directory", j->out);
      return 1;
    }
    long hi = labs(j->last) > labs(j->first) ? labs(j->last) : labs(j->first);
    for (j->digits = 1; hi >= 10; hi /= 10) j->digits++;
    if (j->digits < 4) j->digits = 4;
  }
  if (j->mode == 2) {
    unsigned num, den;
    s_delay(info->fps, &num, &den);
    if (!(j->apng = ens_image_apng_new(img->width, img->height, num, den))) {
      snprintf(j->err, sizeof j->err, "%s: %s", j->out, ens_error_last());
      return 1;
    }
  }
  return 0;
}

static int s_frame(void *user, const ens_lottie_info *info, long frame, ens_image *img) {
  s_job *j = user;
  int rc = 0;
  if (j->done == 0 && s_setup(j, info, img) != 0) return 1;
  j->width = img->width;
  j->height = img->height;
  if (j->mode == 0) {
    j->one = *img;
    img->pixels = NULL;
  } else if (j->mode == 2) {
    if (ens_image_apng_add(j->apng, img) != 0) {
      snprintf(j->err, sizeof j->err, "%s: %s", j->out, ens_error_last());
      rc = 1;
    }
  } else {
    unsigned char *png;
    size_t png_len;
    char path[PATH_MAX];
    if (ens_image_png(img, &png, &png_len) != 0) {
      snprintf(j->err, sizeof j->err, "frame %ld: %s", frame, ens_error_last());
      return 1;
    }
    int n = snprintf(path, sizeof path, "%s/%s-%0*ld.png", j->out, j->stem, j->digits, frame);
    if (n < 0 || (size_t)n >= sizeof path) {
      snprintf(j->err, sizeof j->err, "%s: the frames' file names are too long", j->out);
      rc = 1;
    } else if (cli_write_atomic(path, png, png_len, j->err, sizeof j->err) != 0) {
      rc = 1;
    }
    ens_free(png);
  }
  j->done++;
  s_progress(j, 0);
  return rc;
}

/* "A..B", "A..", "..B", ".." or "N": 0, or -1 when malformed. */
static int s_range(const char *v, long *a, long *b) {
  const char *dots = strstr(v, "..");
  char *end;
  *a = ENS_LOTTIE_FIRST;
  *b = ENS_LOTTIE_LAST;
  errno = 0;
  if (!dots) {
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < -1000000000L || n > 1000000000L) return -1;
    *a = *b = n;
    return 0;
  }
  if (dots != v) {
    long n = strtol(v, &end, 10);
    if (errno || end != dots || n < -1000000000L || n > 1000000000L) return -1;
    *a = n;
  }
  if (dots[2]) {
    long n = strtol(dots + 2, &end, 10);
    if (errno || end == dots + 2 || *end || n < -1000000000L || n > 1000000000L) return -1;
    *b = n;
  }
  return 0;
}

/* The file's name without its directory and last extension. */
static void s_stem(const char *path, char *out, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(out, size, "%s", *base ? base : "frame");
  char *dot = strrchr(out, '.');
  if (dot && dot != out) *dot = '\0';
}

int cli_render_anim(const char *cmd, const char *path, const char *data, size_t len, const char *out,
                    const char *frame_opt, const char *frames_opt, int animate, ens_render_size size) {
  s_job j;
  memset(&j, 0, sizeof j);
  j.cmd = cmd;
  j.out = out;
  j.first = j.last = ENS_LOTTIE_FIRST;
  if (frame_opt && frames_opt) {
    fprintf(stderr, "ensemble %s: give --frame or --frames, not both\n", cmd);
    return CLI_USAGE;
  }
  if (frame_opt && animate) {
    fprintf(stderr, "ensemble %s: --animate takes --frames A..B, not one --frame\n", cmd);
    return CLI_USAGE;
  }
  if (frame_opt) {
    char *end;
    errno = 0;
    long n = strtol(frame_opt, &end, 10);
    if (errno || end == frame_opt || *end || n < -1000000000L || n > 1000000000L) {
      fprintf(stderr, "ensemble %s: a frame is a whole number, not \"%s\"\n", cmd, frame_opt);
      return CLI_USAGE;
    }
    j.first = j.last = n;
  }
  if (frames_opt && s_range(frames_opt, &j.first, &j.last) != 0) {
    fprintf(stderr, "ensemble %s: frames are A..B (either end may be left out), not \"%s\"\n", cmd, frames_opt);
    return CLI_USAGE;
  }
  j.mode = animate ? 2 : frames_opt ? 1 : 0;
  if (animate && !frames_opt) j.last = ENS_LOTTIE_LAST;
  char stem[256];
  s_stem(path, stem, sizeof stem);
  j.stem = stem;
  j.bar = j.mode != 0 && isatty(STDERR_FILENO);
  j.start_ms = s_now_ms();
  int rc = ens_render_lottie(data, len, j.first, j.last, size, s_frame, &j);
  if (rc == 0 && j.bar_shown) s_progress(&j, 1);
  s_progress_end(&j);
  if (rc) {
    ens_image_apng_free(j.apng);
    ens_image_free(&j.one);
    if (rc == 1) return cli_fail(cmd, "%s", j.err);
    return cli_fail(cmd, "%s: %s", path, ens_error_last());
  }
  int w = j.width, h = j.height;
  if (j.mode != 1) {
    unsigned char *png = NULL;
    size_t png_len = 0;
    if (j.mode == 0) {
      rc = ens_image_png(&j.one, &png, &png_len);
      ens_image_free(&j.one);
    } else {
      rc = ens_image_apng_finish(j.apng, &png, &png_len);
      ens_image_apng_free(j.apng);
    }
    if (rc) return cli_fail(cmd, "%s: %s", out, ens_error_last());
    rc = cli_write_atomic(out, png, png_len, j.err, sizeof j.err);
    ens_free(png);
    if (rc) return cli_fail(cmd, "%s", j.err);
  }
  long n = j.last - j.first + 1;
  if (j.mode == 0)
    fprintf(stderr, "%s: frame %ld, %d x %d pixels\n", out, j.first, w, h);
  else if (j.mode == 1)
    fprintf(stderr, "%s: %ld frames (%ld..%ld) as %s-%0*ld.png ...\n", out, n, j.first, j.last, stem, j.digits,
            j.first);
  else
    fprintf(stderr, "%s: %ld frames (%ld..%ld) at %g fps, %d x %d pixels, animated PNG\n", out, n, j.first, j.last,
            j.fps, w, h);
  return CLI_OK;
}
