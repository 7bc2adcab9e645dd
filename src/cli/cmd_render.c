/* `ensemble render FILE.svg -o OUT.png`: a drawing to PNG through librsvg,
 * at its own size or the size asked for. Nothing outside the file is
 * loaded (see ensemble/render.h). A Lottie animation (recognised by its
 * bytes) goes to render_anim.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Larger drawings are refused before reading: 256 MiB of text. */
#define S_MAX_SVG ((size_t)256 << 20)

static const cli_option s_options[] = {
    {"output", 'o', "OUT.png", "the PNG to write (atomically); required"},
    {"width", 'w', "PIXELS", "image width; alone, the height follows the drawing's proportions"},
    {"height", 'H', "PIXELS", "image height; alone, the width follows"},
    {"timeout", 't', "SECONDS", "give up on a drawing, or an animation's frame, that takes longer (default 30)"},
    {"frame", 'f', "N", "animation: the frame to render (default: its first, \"ip\")"},
    {"frames", 'F', "A..B", "animation: frames A to B, one PNG each into the directory OUT (ends may be left out)"},
    {"animate", 'a', NULL, "animation: its frames (all, or --frames) as one animated PNG"},
    {0}};

static const cli_spec s_spec = {
    "render",
    "FILE.svg -o OUT.png [--width N] [--height N] [--timeout S]\n"
    "       ensemble render ANIM.json|ANIM.tgs [--frame N] -o OUT.png [size, timeout]\n"
    "       ensemble render ANIM.json|ANIM.tgs --frames A..B -o DIR [size, timeout]\n"
    "       ensemble render ANIM.json|ANIM.tgs --animate [--frames A..B] -o OUT.png [size, timeout]",
    "Renders an SVG drawing to a PNG image with librsvg. Without a size the\n"
    "image takes the drawing's own (its width and height, else its viewBox);\n"
    "the drawing is scaled to fit the size given and centred. External files\n"
    "and URLs the drawing names are not loaded. Images are limited to 16384\n"
    "pixels a side and 64 Mpixels.\n"
    "\n"
    "A Lottie animation (JSON, or a gzipped .tgs) renders through rlottie:\n"
    "one frame (numbered as the file numbers them, from its \"ip\" to its\n"
    "\"op\" - 1) to OUT.png; with --frames, frames A to B into the directory\n"
    "DIR (made when absent) as NAME-FRAME.png; with --animate, as one\n"
    "animated PNG (APNG) at the animation's frame rate. The timeout is for\n"
    "loading and for each frame. Images the animation names by path are not\n"
    "read; embedded ones are drawn.",
    s_options, 1, 1};

/* A positive pixel count from an option; 0 when absent, -1 when bad. */
static int s_side(const char *v) {
  if (!v) return 0;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (errno || end == v || *end || n <= 0 || n > INT_MAX) return -1;
  return (int)n;
}

int cli_cmd_render(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *path = args.args[0], *out = cli_opt(&s_spec, &args, "output");
  if (!out) return cli_usage_error(&s_spec, "give the image to write with -o OUT.png");
  ens_render_size size = {s_side(cli_opt(&s_spec, &args, "width")), s_side(cli_opt(&s_spec, &args, "height")), 0};
  if (size.width < 0 || size.height < 0) return cli_usage_error(&s_spec, "a size is a whole number of pixels above 0");
  int secs = s_side(cli_opt(&s_spec, &args, "timeout"));
  if (secs < 0 || secs > 86400) return cli_usage_error(&s_spec, "a timeout is a whole number of seconds, 1 to 86400");
  size.timeout_ms = secs * 1000;
  char *data;
  size_t len;
  char err[512];
  if (cli_read_file(path, S_MAX_SVG, &data, &len, err, sizeof err) != 0) return cli_fail(s_spec.name, "%s", err);
  const char *frame = cli_opt(&s_spec, &args, "frame"), *frames = cli_opt(&s_spec, &args, "frames");
  int animate = cli_opt(&s_spec, &args, "animate") != NULL;
  if (ens_render_is_lottie(data, len)) {
    rc = cli_render_anim(s_spec.name, path, data, len, out, frame, frames, animate, size);
    free(data);
    if (rc == CLI_USAGE) cli_print_help(&s_spec, stderr);
    return rc;
  }
  if (frame || frames || animate) {
    free(data);
    return cli_usage_error(&s_spec, "%s is not a Lottie animation: --frame, --frames and --animate are for those",
                           path);
  }
  ens_image img;
  rc = ens_render_svg(data, len, size, &img);
  free(data);
  if (rc) return cli_fail(s_spec.name, "%s: %s", path, ens_error_last());
  unsigned char *png;
  size_t png_len;
  rc = ens_image_png(&img, &png, &png_len);
  int w = img.width, h = img.height;
  ens_image_free(&img);
  if (rc) return cli_fail(s_spec.name, "%s: %s", out, ens_error_last());
  rc = cli_write_atomic(out, png, png_len, err, sizeof err);
  ens_free(png);
  if (rc) return cli_fail(s_spec.name, "%s", err);
  fprintf(stderr, "%s: %d x %d pixels\n", out, w, h);
  return CLI_OK;
}
