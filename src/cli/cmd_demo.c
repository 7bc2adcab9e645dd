/* `ensemble demo`: alice and bob edit the glyph "A" as two in-process
 * replicas, exchanging encoded transactions, each with her own undo: the
 * rules of DESIGN.md ("Transactions and undo") acted out, then checked. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "treefile.h"

#ifndef ENS_SOURCE_DIR
#define ENS_SOURCE_DIR "."
#endif
#define DEMO_SAMPLE ENS_SOURCE_DIR "/examples/glyph-A.tree"

static const cli_option s_options[] = {
    {"quiet", 'q', NULL, "print only the summary"},
    {"sample", 0, "FILE", "edit this .tree file instead of examples/glyph-A.tree"},
    {0}};

static const cli_spec s_spec = {
    "demo", "[--quiet] [--sample FILE]",
    "Two designers, alice and bob, edit one glyph at the same time in this\n"
    "process: compound edits, a selection that is never sent, undo that keeps\n"
    "a collaborator's newer change, redo, insert, delete and undo of a delete.\n"
    "Each step shows the bytes sent and both replicas' document hashes; the\n"
    "demo ends with 'converged' (exit 0) or 'DIVERGED' (exit 1).\n"
    "The sample needs a glyph with a width and a contour of two points or more.",
    s_options, 0, 0};

/* --- finding what to edit ----------------------------------------------------- */

/* The nth (from 0) object of kind in pre-order below o, or NULL. */
static const ens_obj *s_find(const ens_obj *o, const char *kind, size_t *nth) {
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    if (strcmp(ens_obj_kind(k), kind) == 0 && (*nth)-- == 0) return k;
    const ens_obj *found = s_find(k, kind, nth);
    if (found) return found;
  }
  return NULL;
}

static size_t s_count_points(const ens_obj *contour) {
  size_t n = 0;
  for (size_t i = 0; i < ens_obj_child_count(contour); i++) n += !strcmp(ens_obj_kind(ens_obj_child(contour, i)), "point");
  return n;
}

/* Objects of kind anywhere below o. */
static size_t s_count(const ens_obj *o, const char *kind) {
  size_t n = 0;
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    n += (strcmp(ens_obj_kind(k), kind) == 0) + s_count(k, kind);
  }
  return n;
}

static int s_is_number(const ens_obj *o, const char *key) {
  ens_value v;
  return ens_obj_get(o, key, &v) == 0 && (v.type == ENS_INT || v.type == ENS_REAL);
}

/* The script edits: the first glyph; in its first contour of two points or
 * more, the 4th point (or the last); the last point of its last contour is
 * the one bob deletes (the first when that is alice's point). */
static int s_pick(demo *d, const ens_doc *doc) {
  size_t nth = 0;
  const ens_obj *glyph = s_find(ens_doc_root(doc), "glyph", &nth), *contour = NULL, *last = NULL;
  if (!glyph || !s_is_number(glyph, "width")) return -1;
  for (size_t i = 0;; i++) {
    nth = i;
    const ens_obj *c = s_find(glyph, "contour", &nth);
    if (!c) break;
    if (s_count_points(c) >= 2 && !contour) contour = c;
    if (s_count_points(c) >= 1) last = c;
  }
  if (!contour) return -1;
  size_t n = s_count_points(contour);
  nth = n >= 4 ? 3 : n - 1;
  const ens_obj *point = s_find(contour, "point", &nth);
  nth = s_count_points(last) - 1;
  const ens_obj *victim = s_find(last, "point", &nth);
  if (victim == point) {
    nth = 0;
    victim = s_find(contour, "point", &nth);
  }
  if (!s_is_number(point, "x") || !s_is_number(point, "y")) return -1;
  d->glyph = ens_obj_id(glyph);
  d->contour = ens_obj_id(contour);
  d->point = ens_obj_id(point);
  d->victim = ens_obj_id(victim);
  return 0;
}

/* --- the command -------------------------------------------------------------- */

static int s_run(demo *d, const char *sample) {
  char err[512], hash[32];
  cli_tree_info info;
  ens_doc *doc;
  if (cli_tree_load(sample, "font", &doc, &info, err, sizeof err)) return cli_fail("demo", "%s", err);
  if (s_pick(d, doc)) {
    ens_doc_free(doc);
    return cli_fail("demo", "%s: no glyph with a width and a contour of two points or more", sample);
  }
  if (cli_replica_init(&d->alice, "alice", 1, doc))
    return cli_fail("demo", "starting alice: %s", ens_error_last());
  unsigned char *snap;
  size_t snap_len;
  if (ens_snapshot_encode(d->alice.doc, &snap, &snap_len))
    return cli_fail("demo", "alice's snapshot: %s", ens_error_last());
  /* bob joins the way a late client does: from alice's snapshot bytes */
  int rc = ens_snapshot_decode(snap, snap_len, &doc);
  ens_free(snap);
  if (rc) return cli_fail("demo", "bob decoding alice's snapshot: %s", ens_error_last());
  if (cli_replica_init(&d->bob, "bob", 2, doc)) return cli_fail("demo", "starting bob: %s", ens_error_last());
  if (!d->quiet) {
    char what[128];
    printf("Ensemble %s demo: alice and bob edit one glyph at the same time.\n\n", ENS_VERSION_STRING);
    printf("  sample  %s\n", sample);
    printf("          %zu lines, %zu objects, loaded as one transaction of %zu insert%s\n", info.lines,
           info.objects, info.ops, info.ops == 1 ? "" : "s");
    const ens_obj *glyph = ens_doc_get(d->alice.doc, d->glyph);
    char width[32];
    printf("  alice   site 1, opens %s: width %s, %zu contours, %zu points\n",
           demo_describe(d->alice.doc, d->glyph, what, sizeof what),
           demo_num(d->alice.doc, d->glyph, "width", width, sizeof width), s_count(glyph, "contour"),
           s_count(glyph, "point"));
    printf("  bob     site 2, joins from alice's snapshot: %zu bytes\n", snap_len);
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)ens_doc_hash(d->bob.doc));
    printf("          same hash as alice: %s\n", ens_doc_hash(d->alice.doc) == ens_doc_hash(d->bob.doc) ? hash : "NO");
  }
  demo_expect(d, ens_doc_hash(d->alice.doc) == ens_doc_hash(d->bob.doc), "bob starts with alice's document");
  demo_show_header(d);
  if (demo_play(d)) return CLI_FAIL;
  int same = demo_show_summary(d);
  if (!d->quiet && d->example_json) {
    printf("\nThe first transaction as bob received it (ens_txn_to_json):\n");
    cli_json_pretty(stdout, d->example_json, 2);
  }
  return same && !d->failures ? CLI_OK : CLI_FAIL;
}

int cli_cmd_demo(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *sample = cli_opt(&s_spec, &args, "sample");
  demo d;
  memset(&d, 0, sizeof d);
  d.quiet = cli_opt(&s_spec, &args, "quiet") != NULL;
  rc = s_run(&d, sample ? sample : DEMO_SAMPLE);
  cli_replica_free(&d.alice);
  cli_replica_free(&d.bob);
  ens_free(d.example_json);
  return rc;
}
