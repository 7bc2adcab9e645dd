/* `ensemble cat FILE`: reads a font or a drawing and writes it back, unedited, to
 * standard output (or with -o to a path, atomically). Byte-identical
 * output is the proof that reading loses nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_option s_options[] = {
    {"output", 'o', "PATH", "write to PATH instead (a directory for an SFDir), atomically"},
    {0}};

static const cli_spec s_spec = {
    "cat", "[-o PATH] FILE.sfd | -o DIR DIR.sfdir | [-o PATH] FILE.svg | [-o PATH] FILE.json|.tgs|.lottie",
    "Reads a FontForge font through Ensemble's SFD reader (or an SVG drawing\n"
    "through its SVG reader, a Lottie animation through its Lottie reader) and\n"
    "writes it back without edits: to standard output, or to PATH. The bytes\n"
    "are the input's (compare with cmp). An SFDir directory is written to a\n"
    "directory only. An animation goes to PATH in the container its name says:\n"
    ".json plain, .tgs compressed, .lottie into the archive it came from.",
    s_options, 1, 1};

int cli_cmd_cat(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *path = args.args[0], *out = cli_opt(&s_spec, &args, "output");
  if (cli_kind_of(path) == CLI_KIND_SVG) return cli_cat_svg(s_spec.name, path, out);
  if (cli_kind_of(path) == CLI_KIND_LOTTIE) return cli_cat_lottie(s_spec.name, path, out);
  ens_doc *doc = NULL;
  if (ens_sfd_read_path(path, &doc) != 0) return cli_fail(s_spec.name, "%s: %s", path, ens_error_last());
  rc = CLI_OK;
  if (out) {
    if (ens_sfd_write_path(doc, out) != 0) rc = cli_fail(s_spec.name, "%s: %s", out, ens_error_last());
  } else if (ens_sfd_is_dir(doc)) {
    rc = cli_fail(s_spec.name, "%s is an SFDir directory: give -o DIR to write it", path);
  } else {
    unsigned char *bytes;
    size_t len;
    if (ens_sfd_write(doc, &bytes, &len) != 0) {
      rc = cli_fail(s_spec.name, "%s: %s", path, ens_error_last());
    } else {
      if (fwrite(bytes, 1, len, stdout) != len) rc = cli_fail(s_spec.name, "writing the output failed");
      ens_free(bytes);
    }
  }
  ens_doc_free(doc);
  return rc;
}
