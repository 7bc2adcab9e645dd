/* `ensemble diff OLD NEW`: what changed between two versions of a font or
 * a drawing, object by object (ensemble/changes.h): text for people,
 * --json for tools, --txn for the transaction that turns OLD into NEW.
 * Exit status as diff(1): 0 the same (editor noise aside), 1 changed, 2
 * trouble. Each output is one step of s_run, so another one is one more
 * option and one more step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "docfile.h"

enum { S_SAME = 0, S_CHANGED = 1, S_TROUBLE = 2 };

static const cli_option s_options[] = {
    {"json", 0, NULL, "write the changes as JSON (schema: docs/vcs.md)"},
    {"txn", 0, "FILE", "also write the transaction that turns OLD into NEW to FILE (MessagePack, atomically)"},
    {"quiet", 'q', NULL, "write nothing; only the exit status tells"},
    {"visual", 0, NULL, "draw the changes instead, into the file -o names (.svg, .png or .html)"},
    {"output", 'o', "OUT", "with --visual: the file to write; its extension picks SVG, PNG or an HTML page"},
    {"timeout", 0, "S", "with --visual: give up rendering a PNG (or an animation's frame) after S seconds (default 120)"},
    {0}};

static const cli_spec s_spec = {
    "diff", "[--json] [--txn FILE] [-q] OLD NEW\n       ensemble diff --visual OLD NEW -o OUT.svg|OUT.png|OUT.html",
    "Compares two versions of one document and lists what changed, object by\n"
    "object: glyphs, contours, points, references, kerning pairs of a\n"
    "FontForge font (.sfd, an SFDir directory), elements and text of an SVG\n"
    "drawing (.svg), layers, shapes, properties and keyframes of a Lottie\n"
    "animation (.json, .tgs, .lottie), or two snapshots. Objects are matched\n"
    "by their format's identity keys (a glyph's name, an element's id, a\n"
    "layer's ind, a keyframe's time); moves and renames are told as such. Editor noise (FontForge's ModificationTime and WinInfo,\n"
    "selection flags, Inkscape's window and zoom) is not a change.\n"
    "Exit status: 0 no changes, 1 changes, 2 trouble (as diff(1)).\n"
    "With --visual it draws them instead (as `ensemble visdiff`): unchanged\n"
    "elements dimmed, added, removed and changed ones marked on the drawing,\n"
    "each changed glyph over its old outline, or an animation's frames old\n"
    "over new where its changes are; exit status 0 written, 1 failure, 2 bad\n"
    "command line.",
    s_options, 2, 2};

static int s_fail(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "ensemble diff: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  return S_TROUBLE;
}

static int s_is_snapshot(const char *path) { return cli_doc_identity(path) == NULL; }

/* Keys for documents of a kind without a format: each object's place. */
static int s_place_identity(const ens_obj *obj, char *key, size_t key_size, void *user) {
  (void)user;
  if (!ens_obj_parent(obj)) return 0;
  snprintf(key, key_size, "#%zu", ens_obj_index(obj));
  return 1;
}

static int s_write_txn(ens_doc *old_doc, const ens_doc *new_doc, ens_identity_fn identity, const char *path) {
  ens_txn *txn = NULL;
  unsigned char *bytes = NULL;
  size_t len = 0;
  char err[1024];
  int rc = S_TROUBLE;
  if (ens_doc_diff(old_doc, new_doc, identity, NULL, &txn) != 0) return s_fail("%s%s", "diff: ", ens_error_last());
  if (ens_txn_encode(txn, &bytes, &len) != 0) {
    s_fail("%s%s", "encoding the transaction: ", ens_error_last());
  } else if (cli_write_atomic(path, bytes, len, err, sizeof err) != 0) {
    s_fail("%s%s", "", err);
  } else {
    rc = 0;
  }
  ens_free(bytes);
  ens_txn_free(txn);
  return rc;
}

static int s_run(const cli_args *args) {
  const char *old_path = args->args[0], *new_path = args->args[1];
  const char *txn_path = cli_opt(&s_spec, args, "txn");
  int json = cli_opt(&s_spec, args, "json") != NULL, quiet = cli_opt(&s_spec, args, "quiet") != NULL;
  ens_doc *old_doc = NULL, *new_doc = NULL;
  ens_changes *changes = NULL;
  char err[1024];
  int rc = S_TROUBLE;
  if (cli_doc_load(old_path, &old_doc, err, sizeof err) || cli_doc_load(new_path, &new_doc, err, sizeof err)) {
    s_fail("%s%s", "", err);
    goto done;
  }
  const char *kind = ens_doc_kind(old_doc);
  if (strcmp(kind, ens_doc_kind(new_doc)) != 0) {
    fprintf(stderr, "ensemble diff: %s is a '%s' document and %s a '%s' one: nothing to compare\n", old_path, kind,
            new_path, ens_doc_kind(new_doc));
    goto done;
  }
  ens_identity_fn format_identity = ens_format_identity(kind);
  /* two snapshots of one session share ids, which say more than keys */
  ens_changes_opts opts = {s_is_snapshot(old_path) && s_is_snapshot(new_path) ? NULL : format_identity, NULL,
                           ens_format_noise(kind), NULL};
  if (!opts.identity && !(s_is_snapshot(old_path) && s_is_snapshot(new_path))) opts.identity = s_place_identity;
  if (ens_changes_compute(old_doc, new_doc, &opts, &changes) != 0) {
    s_fail("%s%s", "", ens_error_last());
    goto done;
  }
  if (!quiet && !json && strcmp(kind, "lottie") == 0) {
    /* an animation's changes told per layer and keyframe */
    ens_visdiff *vd = NULL;
    int w = ens_visdiff_new(old_doc, new_doc, &vd);
    if (!w) w = ens_visdiff_write_text(vd, stdout);
    ens_visdiff_free(vd);
    if (w != 0 || fflush(stdout) != 0) {
      s_fail("%s%s", "writing the changes: ", ens_error_last());
      goto done;
    }
  } else if (!quiet) {
    int w = json ? ens_changes_write_json(changes, kind, stdout) : ens_changes_write_text(changes, kind, stdout);
    if (w != 0 || fflush(stdout) != 0) {
      s_fail("%s%s", "writing the changes: ", ens_error_last());
      goto done;
    }
  }
  if (txn_path && s_write_txn(old_doc, new_doc, format_identity ? format_identity : s_place_identity, txn_path))
    goto done;
  rc = ens_changes_count(changes) ? S_CHANGED : S_SAME;
done:
  ens_changes_free(changes);
  ens_doc_free(old_doc);
  ens_doc_free(new_doc);
  return rc;
}

int cli_cmd_diff(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *out = cli_opt(&s_spec, &args, "output");
  if (!cli_opt(&s_spec, &args, "visual")) {
    if (out || cli_opt(&s_spec, &args, "timeout"))
      return cli_usage_error(&s_spec, "-o and --timeout go with --visual");
    return s_run(&args);
  }
  if (cli_opt(&s_spec, &args, "json") || cli_opt(&s_spec, &args, "txn"))
    return cli_usage_error(&s_spec, "--visual draws the changes: --json and --txn go without it");
  return cli_diff_visual_args(&s_spec, &args);
}
