/* Rendering drawings to pixels: an SVG through librsvg onto a cairo image,
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

#ifdef __cplusplus
}
#endif

#endif
