/* `ensemble snapinfo [--tree] FILE.snap`: what a snapshot holds (object
 * count, kinds with counts, depth, hashes), or its objects as .tree text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "treefile.h"

#define SNAP_MAX_BYTES ((size_t)1 << 30)

static const cli_option s_options[] = {
    {"tree", 't', NULL, "print the objects as a .tree outline instead (reads back with tree2snap)"},
    {0}};

static const cli_spec s_spec = {
    "snapinfo", "[--tree] FILE.snap",
    "Decodes an Ensemble snapshot and describes it: the document kind, how\n"
    "many objects of each kind it holds (in order of first appearance), the\n"
    "deepest nesting, and its hashes (equal hashes, equal documents).",
    s_options, 1, 1};

typedef struct {
  const char *kind;
  size_t first; /* pre-order index of its first object */
  size_t count;
} s_kind;

typedef struct {
  s_kind *items; /* one per object, then collapsed to one per kind */
  size_t n;
  size_t depth, props;
} s_stats;

static int s_by_name(const void *a, const void *b) {
  const s_kind *x = a, *y = b;
  int c = strcmp(x->kind, y->kind);
  return c ? c : (x->first > y->first) - (x->first < y->first);
}

static int s_by_first(const void *a, const void *b) {
  const s_kind *x = a, *y = b;
  return (x->first > y->first) - (x->first < y->first);
}

static int s_visit(const ens_obj *o, size_t depth, void *user) {
  s_stats *st = user;
  if (depth == 0) return 0; /* the root is the document, not an object of it */
  st->items[st->n] = (s_kind){ens_obj_kind(o), st->n, 1};
  st->n++;
  st->props += ens_obj_prop_count(o);
  if (depth > st->depth) st->depth = depth;
  return 0;
}

/* Every object below the root, with its kind, then counts per kind. */
static int s_collect(const ens_doc *doc, s_stats *st) {
  size_t n = ens_doc_count(doc);
  st->items = malloc((n ? n : 1) * sizeof *st->items);
  if (!st->items) return -1;
  if (ens_obj_walk(ens_doc_root(doc), s_visit, st)) return -1;
  /* count per kind: sort by name, fold runs, back to order of appearance */
  qsort(st->items, st->n, sizeof *st->items, s_by_name);
  size_t k = 0;
  for (size_t i = 0; i < st->n; i++) {
    if (k && strcmp(st->items[k - 1].kind, st->items[i].kind) == 0) st->items[k - 1].count++;
    else st->items[k++] = st->items[i];
  }
  st->n = k;
  qsort(st->items, st->n, sizeof *st->items, s_by_first);
  return 0;
}

int cli_cmd_snapinfo(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *path = args.args[0];
  char err[512], *data = NULL;
  size_t len;
  ens_doc *doc = NULL;
  s_stats st = {0};
  rc = CLI_FAIL;
  if (cli_read_file(path, SNAP_MAX_BYTES, &data, &len, err, sizeof err)) {
    cli_fail(s_spec.name, "%s", err);
    goto done;
  }
  if (ens_snapshot_decode(data, len, &doc)) {
    cli_fail(s_spec.name, "%s is not a valid snapshot: %s", path, ens_error_last());
    goto done;
  }
  if (cli_opt(&s_spec, &args, "tree")) {
    if (cli_tree_write(stdout, doc, err, sizeof err)) cli_fail(s_spec.name, "%s: %s", path, err);
    else rc = CLI_OK;
    goto done;
  }
  if (s_collect(doc, &st)) {
    cli_fail(s_spec.name, "out of memory");
    goto done;
  }
  printf("%s: Ensemble snapshot, %zu bytes\n", path, len);
  printf("  document      %s\n", ens_doc_kind(doc));
  printf("  objects       %zu below the root\n", ens_doc_count(doc) - 1);
  for (size_t i = 0; i < st.n; i++) printf("    %-11s %zu\n", st.items[i].kind, st.items[i].count);
  printf("  properties    %zu\n", st.props);
  printf("  depth         %zu\n", st.depth);
  printf("  hash          %016llx\n", (unsigned long long)ens_doc_hash(doc));
  printf("  content hash  %016llx\n", (unsigned long long)ens_doc_content_hash(doc));
  rc = CLI_OK;
done:
  free(st.items);
  ens_doc_free(doc);
  free(data);
  return rc;
}
