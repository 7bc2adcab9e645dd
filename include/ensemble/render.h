/* Rendering drawings and animations to pixels (Lottie: below; an animated
 * PNG writer at the end). An SVG through librsvg onto a cairo image,
 * kept in memory (to compare two renderings pixel for pixel) or written as
 * PNG. Rendering never fetches anything: a drawing that names an external
 * file or URL renders without it. It runs in a child process with a time
 * limit: librsvg aborts the process on some drawings (a Rust panic), and
 * some take minutes; either is an error for the caller, never a crash. */
#ifndef ENSEMBLE_RENDER_H
#define ENSEMBLE_RENDER_H

#include <stddef.h>

#include "ensemble/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest image rendered: each side, and in all. */
#define ENS_RENDER_MAX_SIDE 16384
#define ENS_RENDER_MAX_PIXELS (64u * 1024u * 1024u)

/* Pixels in cairo's ARGB32 layout: 32-bit native-endian words, alpha
 * premultiplied, rows `stride` bytes apart. The image owns `pixels`. */
typedef struct {
  int width, height;
  size_t stride;
  unsigned char *pixels;
} ens_image;

/* How big to render. Both 0: the drawing's own size (its width and height,
 * else its viewBox, else 256 x 256). One 0: that side follows the other at
 * the drawing's aspect ratio. The drawing is scaled to fit and centred.
 * timeout_ms: how long rendering may take, 0 for ENS_RENDER_TIMEOUT_MS. */
typedef struct {
  int width, height;
  int timeout_ms;
} ens_render_size;

#define ENS_RENDER_TIMEOUT_MS 30000

/* Renders the SVG text (len bytes) onto a transparent image. ENS_EDECODE
 * when librsvg cannot read it or crashes on it, ENS_ELIMIT when the size
 * is beyond the limits above or rendering takes longer than the timeout,
 * ENS_EINVAL for a negative size, ENS_EIO when no child process can be
 * made. */
int ens_render_svg(const void *svg, size_t len, ens_render_size size, ens_image *out);

/* PNG bytes of an image (allocated; free with ens_free). */
int ens_image_png(const ens_image *img, unsigned char **png, size_t *png_len);

/* Number of pixels that differ between two images of the same size, or
 * -1 when their sizes differ. */
long ens_image_diff_count(const ens_image *a, const ens_image *b);

void ens_image_free(ens_image *img);

/* --- Lottie animations -------------------------------------------------------
 * A frame of a Lottie animation (JSON, or a .tgs: the same JSON gzipped)
 * through rlottie, in a child process as for SVG: rlottie is C++ that trusts
 * its input, so a file that crashes it, hangs it or eats memory ends that
 * process only. The child runs under a memory limit (its address space may
 * grow by ENS_RENDER_LOTTIE_MEMORY beyond the frame itself) and the
 * timeout applies to loading and to each frame. Frames are numbered as the
 * file numbers them: from its "ip" to its "op", the last shown being op - 1.
 * The child is forked, not executed: a process that has rendered with
 * rlottie itself holds rlottie's worker threads, which a forked child lacks
 * and waits for until the timeout; do not mix the two in one process. */

#define ENS_RENDER_LOTTIE_MEMORY ((size_t)1 << 30)
/* Largest animation read, after a .tgs is inflated. */
#define ENS_RENDER_LOTTIE_MAX_JSON ((size_t)64 << 20)

/* 1 when the bytes look like a Lottie animation: a JSON object with the
 * top-level keys "layers", "fr", "ip" and "op", or gzip data whose text
 * starts as a JSON object (a Telegram .tgs). 0 otherwise. Reads only. */
int ens_render_is_lottie(const void *data, size_t len);

/* An animation as rlottie reads it. */
typedef struct {
  int width, height; /* its own size in pixels ("w", "h") */
  double fps;        /* "fr" */
  long first;        /* "ip", the first frame */
  long end;          /* one past the last frame ("op" as rlottie counts it) */
} ens_lottie_info;

/* Reads the animation's size and frames (in a child process, as above):
 * ENS_EDECODE when rlottie cannot load it or crashes on it, ENS_ELIMIT past
 * a limit or the timeout (0: ENS_RENDER_TIMEOUT_MS), ENS_EIO when no child
 * process can be made. */
int ens_render_lottie_info(const void *data, size_t len, int timeout_ms, ens_lottie_info *out);

/* Called with each frame rendered, in order. img stays the renderer's: its
 * pixels are valid during the call only, unless the callee takes them by
 * setting img->pixels to NULL (then the callee frees them). Nonzero from it
 * stops rendering, and ens_render_lottie returns that value. */
typedef int (*ens_render_frame_fn)(void *user, const ens_lottie_info *info, long frame, ens_image *img);

/* For either end of a range: the animation's first frame ("ip") and its
 * last (op - 1), whatever their numbers. */
#define ENS_LOTTIE_FIRST (-2147483647L - 1)
#define ENS_LOTTIE_LAST 2147483647L

/* Renders frames first..last (inclusive, the file's numbers) one process
 * for all of them, calling fn with each. size as for ens_render_svg; the
 * animation is scaled to fit and centred. Errors as for
 * ens_render_lottie_info, and ENS_EINVAL for frames outside the
 * animation (the message names its range). */
int ens_render_lottie(const void *data, size_t len, long first, long last, ens_render_size size,
                      ens_render_frame_fn fn, void *user);

/* One frame into out (the caller's; free with ens_image_free). */
int ens_render_lottie_frame(const void *data, size_t len, long frame, ens_render_size size, ens_image *out);

/* --- animated PNG ----------------------------------------------------------
 * An APNG built frame by frame in memory: PNG with acTL, fcTL and fdAT
 * chunks, which viewers without animation show as its first frame. */
typedef struct ens_apng ens_apng;

/* A writer for frames of width x height shown for delay_num/delay_den
 * seconds each, looping forever; NULL when out of memory. Free with
 * ens_image_apng_free. */
ens_apng *ens_image_apng_new(int width, int height, unsigned delay_num, unsigned delay_den);
/* Adds a frame (same size as the writer's). */
int ens_image_apng_add(ens_apng *a, const ens_image *img);
/* The file's bytes (allocated; free with ens_free), once at least one frame
 * was added. The writer is then spent: only ens_image_apng_free remains. */
int ens_image_apng_finish(ens_apng *a, unsigned char **png, size_t *png_len);
void ens_image_apng_free(ens_apng *a);

#ifdef __cplusplus
}
#endif

#endif
