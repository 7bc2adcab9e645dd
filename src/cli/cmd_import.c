/* `ensemble import PROJECT.tup -o OUT.json`: a Tupi project as a Lottie
 * animation (docs/tupi.md). What has no Lottie counterpart is listed on
 * standard error, or with --json as a list on standard output. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const cli_option s_options[] = {
    {"output", 'o', "OUT.json", "the Lottie file to write (atomically; replaced if it exists)"},
    {"json", 0, NULL, "print what was not mapped as JSON on standard output"},
    {"quiet", 'q', NULL, "do not list what was not mapped on standard error"},
    {0}};

static const cli_spec s_spec = {
    "import", "PROJECT.tup -o OUT.json",
    "Turns a Tupi project (a .tup zip of scenes, layers, frames, tweens and a\n"
    "library) into a Lottie animation: the first scene is the main composition,\n"
    "later scenes are precompositions played after it; each layer's frames\n"
    "become shape layers with in and out points, each tween keyframes, each\n"
    "PNG or JPEG of the library an embedded image.\n"
    "Whatever has no Lottie counterpart (text, sounds, SVG images and images\n"
    "other than PNG and JPEG from the library, dynamic backgrounds, ...) is\n"
    "listed, one line per kind with where it first came up and how often.\n"
    "Exit status: 0 written (even with things not mapped), 1 the project\n"
    "could not be read or OUT written, 2 a bad command line.",
    s_options, 1, 1};

static void s_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

int cli_cmd_import(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *in = args.args[0], *out = cli_opt(&s_spec, &args, "output");
  int json = cli_opt(&s_spec, &args, "json") != NULL, quiet = cli_opt(&s_spec, &args, "quiet") != NULL;
  if (!out || !*out) return cli_usage_error(&s_spec, "give the Lottie file to write with -o OUT.json");
  struct stat si, so;
  if (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
    return cli_fail(s_spec.name, "%s is the project itself: give another name to -o", out);
  ens_tupi_result *r = NULL;
  if (ens_tupi_import_path(in, &r) != 0) return cli_fail(s_spec.name, "%s: %s", in, ens_error_last());
  size_t len;
  const char *text = ens_tupi_result_json(r, &len);
  if (ens_file_write_atomic(out, text, len, NULL) != 0) {
    rc = cli_fail(s_spec.name, "%s: %s", out, ens_error_last());
    ens_tupi_result_free(r);
    return rc;
  }
  size_t n = ens_tupi_result_note_count(r);
  if (json) {
    printf("{\"output\":");
    s_json_str(stdout, out);
    printf(",\"not_mapped\":[");
  }
  for (size_t i = 0; i < n; i++) {
    const char *what, *where;
    size_t count;
    ens_tupi_result_note(r, i, &what, &where, &count);
    if (json) {
      printf("%s{\"what\":", i ? "," : "");
      s_json_str(stdout, what);
      printf(",\"where\":");
      s_json_str(stdout, where);
      printf(",\"count\":%zu}", count);
    } else if (!quiet) {
      fprintf(stderr, "ensemble import: %s (%s%s", what, where, count > 1 ? "" : ")\n");
      if (count > 1) fprintf(stderr, "; %zu times)\n", count);
    }
  }
  if (json) printf("]}\n");
  ens_tupi_result_free(r);
  if (fflush(stdout) != 0) return cli_fail(s_spec.name, "writing to standard output failed");
  return CLI_OK;
}
