/* The visual diff from the command line: two versions of a drawing, a
 * font or an animation in, one SVG, PNG or HTML page out (chosen by OUT's
 * extension; an animation's is a strip of frames, PNG or HTML), written
 * atomically. `ensemble visdiff` runs it; `ensemble diff --visual`
 * calls cli_diff_visual. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "docfile.h"

/* A large drawing's composite takes librsvg tens of seconds on a busy
 * machine (docs/vcs.md): more than ensemble render's default. */
#define S_RENDER_SECONDS 120

typedef enum { S_OUT_SVG, S_OUT_PNG, S_OUT_HTML, S_OUT_BAD } s_out_kind;

static s_out_kind s_out_kind_of(const char *path) {
  const char *dot = strrchr(path, '.');
  if (!dot || strchr(dot, '/')) return S_OUT_BAD;
  if (strcasecmp(dot, ".svg") == 0) return S_OUT_SVG;
  if (strcasecmp(dot, ".png") == 0) return S_OUT_PNG;
  if (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0) return S_OUT_HTML;
  return S_OUT_BAD;
}

static const char *s_kind_name(const char *kind) {
  return !strcmp(kind, "sfd") ? " font" : !strcmp(kind, "lottie") ? "n animation" : " drawing";
}

static void s_title(const char *old_path, const char *new_path, char *title, size_t size) {
  const char *bo = strrchr(old_path, '/'), *bn = strrchr(new_path, '/');
  snprintf(title, size, "%s \xe2\x86\x92 %s", bo ? bo + 1 : old_path, bn ? bn + 1 : new_path);
}

/* Two animations: the strip rendered (a line on stderr while it is, as
 * it takes a child process per frame and version), then drawn. */
static int s_animation(const ens_visdiff *vd, int html, ens_render_size size, const char *old_path,
                       const char *new_path, int quiet, ens_visdiff_strip *strip, unsigned char **bytes,
                       size_t *len) {
  long frames[ENS_VISDIFF_MAX_FRAMES];
  size_t n = 0;
  if (!quiet && ens_visdiff_frames(vd, frames, ENS_VISDIFF_MAX_FRAMES, &n) == 0)
    fprintf(stderr, "rendering %zu frames of each version...\n", n);
  int rc = ens_visdiff_strip_render(vd, size, strip);
  if (rc) return rc;
  if (!html) return ens_visdiff_strip_png(strip, bytes, len);
  char title[512];
  s_title(old_path, new_path, title, sizeof title);
  return ens_visdiff_strip_html(vd, strip, title, (char **)bytes, len);
}

int cli_diff_visual(const char *cmd, const char *old_path, const char *new_path, const char *out, int timeout_s,
                    int quiet) {
  s_out_kind kind = s_out_kind_of(out);
  if (kind == S_OUT_BAD) {
    fprintf(stderr, "ensemble %s: %s: the output's name must end in .svg, .png or .html\n", cmd, out);
    return CLI_USAGE;
  }
  char err[1024];
  ens_doc *a = NULL, *b = NULL;
  ens_visdiff *vd = NULL;
  ens_visdiff_strip strip;
  memset(&strip, 0, sizeof strip);
  unsigned char *bytes = NULL;
  size_t len = 0;
  int status = CLI_FAIL, rc;
  if (cli_doc_load(old_path, &a, err, sizeof err) != 0 || cli_doc_load(new_path, &b, err, sizeof err) != 0) {
    cli_fail(cmd, "%s", err);
    goto done;
  }
  if (strcmp(ens_doc_kind(a), ens_doc_kind(b)) != 0) {
    cli_fail(cmd, "%s is a%s and %s a%s: compare two versions of one kind of file", old_path,
             s_kind_name(ens_doc_kind(a)), new_path, s_kind_name(ens_doc_kind(b)));
    goto done;
  }
  if (ens_visdiff_new(a, b, &vd) != 0) {
    cli_fail(cmd, "%s, %s: %s", old_path, new_path, ens_error_last());
    goto done;
  }
  ens_render_size size = {0, 0, (timeout_s > 0 ? timeout_s : S_RENDER_SECONDS) * 1000};
  if (ens_visdiff_is_animation(vd)) {
    if (kind == S_OUT_SVG) {
      cli_fail(cmd, "%s: an animation's visual diff is a strip of rendered frames: write it as .png or .html", out);
      status = CLI_USAGE;
      goto done;
    }
    rc = s_animation(vd, kind == S_OUT_HTML, size, old_path, new_path, quiet, &strip, &bytes, &len);
  } else if (kind == S_OUT_SVG) {
    rc = ens_visdiff_svg(vd, (char **)&bytes, &len);
  } else if (kind == S_OUT_PNG) {
    rc = ens_visdiff_png(vd, size, &bytes, &len);
  } else {
    char title[512];
    s_title(old_path, new_path, title, sizeof title);
    rc = ens_visdiff_html(vd, title, (char **)&bytes, &len);
  }
  if (rc) {
    cli_fail(cmd, "%s: %s", out, ens_error_last());
    goto done;
  }
  if (cli_write_atomic(out, bytes, len, err, sizeof err) != 0) {
    cli_fail(cmd, "%s", err);
    goto done;
  }
  if (!quiet && ens_visdiff_is_animation(vd)) {
    size_t n = ens_visdiff_count(vd);
    fprintf(stderr, "%s: %zu change%s; frames", out, n, n == 1 ? "" : "s");
    for (size_t i = 0; i < strip.count; i++)
      fprintf(stderr, "%s%ld (%ld pixels differ)", i ? ", " : " ", strip.frames[i], strip.differing[i]);
    fputc('\n', stderr);
  } else if (!quiet) {
    size_t n = ens_visdiff_count(vd), c[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
      ens_visdiff_item it;
      if (ens_visdiff_item_at(vd, i, &it) == 0) c[it.mark]++;
    }
    fprintf(stderr, "%s: %zu %s added, %zu removed, %zu changed\n", out, c[ENS_VIS_ADDED],
            ens_visdiff_is_font(vd) ? "glyphs" : "elements", c[ENS_VIS_REMOVED], c[ENS_VIS_CHANGED]);
  }
  status = CLI_OK;
done:
  ens_free(bytes);
  ens_visdiff_strip_free(&strip);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
  return status;
}

static const cli_option s_options[] = {
    {"output", 'o', "OUT", "the file to write (atomically): OUT.svg, OUT.png or OUT.html; required"},
    {"timeout", 't', "SECONDS", "give up rendering a PNG (or an animation's frame) that takes longer (default 120)"},
    {"quiet", 'q', NULL, "print nothing on success"},
    {0}};

static const cli_spec s_spec = {
    "visdiff", "OLD NEW -o OUT.svg|OUT.png|OUT.html [--timeout S] [--quiet]",
    "Draws what changed between two versions of a drawing (.svg), a font\n"
    "(.sfd, SFDir) or an animation (Lottie .json, .tgs, .lottie): unchanged\n"
    "elements dimmed, added ones outlined in green, removed ones re-drawn\n"
    "from OLD in vermillion, changed ones in blue over a grey dashed ghost of\n"
    "their old geometry; for a font, each changed glyph over its old outline\n"
    "with its points and metrics; for an animation, a strip of frames where\n"
    "the changes are (old, new, and the differing pixels in vermillion).\n"
    "OUT's extension picks the output: the composite SVG, a PNG of it, or one\n"
    "HTML page that needs nothing else (overlay, side by side, slider, list\n"
    "of changes); an animation's is PNG or HTML.\n"
    "The same as `ensemble diff --visual OLD NEW -o OUT`.",
    s_options, 2, 2};

int cli_diff_visual_args(const cli_spec *spec, const cli_args *args) {
  const char *out = cli_opt(spec, args, "output");
  if (!out) return cli_usage_error(spec, "give the file to write with -o OUT.svg, OUT.png or OUT.html");
  int secs = 0;
  const char *t = cli_opt(spec, args, "timeout");
  if (t) {
    char *end;
    long v = strtol(t, &end, 10);
    if (end == t || *end || v < 1 || v > 86400)
      return cli_usage_error(spec, "a timeout is a whole number of seconds, 1 to 86400");
    secs = (int)v;
  }
  return cli_diff_visual(spec->name, args->args[0], args->args[1], out, secs, cli_opt(spec, args, "quiet") != NULL);
}

int cli_cmd_visdiff(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  return cli_diff_visual_args(&s_spec, &args);
}
