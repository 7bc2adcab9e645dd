/* `ensemble tree2snap FILE.tree -o OUT.snap`: reads a .tree outline and
 * writes the document as a snapshot, atomically. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "treefile.h"

static const cli_option s_options[] = {
    {"output", 'o', "OUT.snap", "the snapshot to write (replaced atomically)"},
    {"kind", 'k', "KIND", "kind of the document's root (default: font)"},
    {0}};

static const cli_spec s_spec = {
    "tree2snap", "FILE.tree -o OUT.snap [--kind KIND]",
    "Reads a .tree outline (format in docs/cli.md) and writes the document it\n"
    "describes as an Ensemble snapshot. The snapshot is written next to OUT in\n"
    "a temporary file, synced, then renamed over OUT: never half written.",
    s_options, 1, 1};

int cli_cmd_tree2snap(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *in = args.args[0], *out = cli_opt(&s_spec, &args, "output");
  const char *kind = cli_opt(&s_spec, &args, "kind");
  if (!out) return cli_usage_error(&s_spec, "missing -o OUT.snap");

  char err[512];
  ens_doc *doc = NULL;
  unsigned char *bytes = NULL;
  size_t len = 0;
  cli_tree_info info;
  rc = CLI_FAIL;
  if (cli_tree_load(in, kind ? kind : "font", &doc, &info, err, sizeof err)) {
    cli_fail(s_spec.name, "%s", err);
    goto done;
  }
  if (ens_snapshot_encode(doc, &bytes, &len)) {
    cli_fail(s_spec.name, "encoding the snapshot: %s", ens_error_last());
    goto done;
  }
  if (cli_write_atomic(out, bytes, len, err, sizeof err)) {
    cli_fail(s_spec.name, "%s", err);
    goto done;
  }
  printf("wrote %s: %zu object%s from %zu lines, %zu bytes, hash %016llx\n", out, info.objects,
         info.objects == 1 ? "" : "s", info.lines, len,
         (unsigned long long)ens_doc_hash(doc));
  rc = CLI_OK;
done:
  ens_free(bytes);
  ens_doc_free(doc);
  return rc;
}
