/* `ensemble merge BASE OURS THEIRS`: the three-way merge of a font or a
 * drawing, per object and property (ens_merge3), as a command and as git's
 * merge driver (`--driver %O %A %B %P`). Conflicts are reported with both
 * values and marked in the merged file so that it still opens in its
 * editor (merge_mark.h); the file is written atomically. Exit status 0
 * clean, 1 with conflicts, 2 on trouble. docs/vcs.md, "Merge and
 * conflicts". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "merge_mark.h"

#define S_MAX_BYTES ((size_t)1 << 30)

enum { S_CLEAN = 0, S_CONFLICTS = 1, S_TROUBLE = 2 };

static const cli_option s_options[] = {
    {"output", 'o', "OUT", "write the merged file to OUT (atomically) instead of standard output"},
    {"driver", 0, NULL, "git's merge driver: BASE OURS THEIRS [PATH] are %O %A %B %P; the result replaces OURS"},
    {"json", 0, NULL, "report the conflicts as one JSON object on standard output"},
    {"quiet", 'q', NULL, "print nothing about conflicts (the exit status still says)"},
    {0}};

static const cli_spec s_spec = {
    "merge", "[-o OUT] [--json] BASE OURS THEIRS | --driver BASE OURS THEIRS [PATH]",
    "Merges the changes OURS and THEIRS each made since BASE, per object and\n"
    "property: glyphs, layers, contours, points and references of a FontForge\n"
    "font (.sfd), elements and attributes of an SVG drawing. Changes to\n"
    "different objects, or to different properties of one object, merge\n"
    "cleanly; both sides changing one property to different values is a\n"
    "conflict, reported with base's, ours' and theirs' values. Ours' value is\n"
    "kept and the conflict is marked so that the file still opens in its\n"
    "editor: in a font, the glyph is coloured red, its comment lists the\n"
    "conflicts, and theirs' outline goes to the glyph's background layer; in\n"
    "a drawing, the element stands in a group with theirs' version beside it,\n"
    "hidden, its ids prefixed with 'theirs-'. Editor noise (save times, window\n"
    "and canvas view) never conflicts: ours' value is taken.\n"
    "\n"
    "As git's merge driver (.gitattributes: merge=ensemble; config:\n"
    "driver = ensemble merge --driver %O %A %B %P) the result replaces OURS.\n"
    "The format is taken from PATH's, OUT's or OURS' name (.sfd, .svg; .json,\n"
    ".tgs or .lottie for a Lottie animation, whose conflicts are reported, not\n"
    "marked), else\n"
    "from OURS' content. An empty BASE (a file both sides added) merges two\n"
    "new documents.\n"
    "\n"
    "Exit status: 0 merged cleanly, 1 merged with conflicts (marked in the\n"
    "file), 2 trouble (a file that does not read, a bad command line);\n"
    "nothing is written then.",
    s_options, 3, 4};

static int s_trouble(const char *fmt, const char *a, const char *b) {
  fflush(stdout);
  fprintf(stderr, "ensemble merge: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  return S_TROUBLE;
}

static int s_ends(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcasecmp(s + a - b, suf) == 0;
}

/* 2 Lottie, 1 SVG, 0 SFD, -1 when neither the name nor the content says. */
static int s_kind(const char *name, const char *data, size_t len) {
  if (name && s_ends(name, ".svg")) return 1;
  if (name && s_ends(name, ".sfd")) return 0;
  if (name && (s_ends(name, ".json") || s_ends(name, ".tgs") || s_ends(name, ".lottie"))) return 2;
  if (!data) return -1;
  if (len >= 13 && memcmp(data, "SplineFontDB:", 13) == 0) return 0;
  if (ens_svg_sniff(data, len)) return 1;
  size_t i = 0;
  while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r')) i++;
  if (i < len && data[i] == '{') return 2;
  return -1;
}

static int s_parse(int svg, const char *data, size_t len, int empty_ok, ens_doc **out) {
  if (len == 0 && empty_ok) {
    *out = ens_doc_new(svg == 2 ? ENS_LOTTIE_KIND : svg ? "svg" : "sfd", 0);
    return *out ? 0 : -1;
  }
  if (svg == 2) return ens_lottie_read(data, len, out);
  return svg ? ens_svg_read(data, len, out) : ens_sfd_read(data, len, out);
}

/* --- the report ---------------------------------------------------------------------- */

static const char *s_kind_name(ens_conflict_kind k) {
  switch (k) {
  case ENS_CONFLICT_SET: return "set";
  case ENS_CONFLICT_DELETE: return "delete";
  case ENS_CONFLICT_MOVE: return "move";
  case ENS_CONFLICT_INSERT: return "insert";
  }
  return "?";
}

static void s_json_str(FILE *f, const char *s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c == '\r') fputs("\\r", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static void s_json_value(FILE *f, const ens_doc *doc, int svg, ens_value v) {
  char buf[600];
  switch (v.type) {
  case ENS_NIL: fputs("null", f); return;
  case ENS_BOOL: fputs(v.u.b ? "true" : "false", f); return;
  case ENS_INT:
  case ENS_REAL: cli_merge_value_str(doc, svg, v, buf, sizeof buf, 0); fputs(buf, f); return;
  case ENS_STR: s_json_str(f, v.u.s.ptr, v.u.s.len); return;
  case ENS_BYTES: fprintf(f, "{\"bytes\":%zu}", v.u.s.len); return;
  case ENS_REF: {
    const ens_obj *o = doc ? ens_doc_get(doc, v.u.ref) : NULL;
    fputs("{\"ref\":", f);
    if (o) {
      cli_merge_obj_path(o, svg, buf, sizeof buf);
      s_json_str(f, buf, strlen(buf));
    } else {
      fputs("null", f);
    }
    fputc('}', f);
    return;
  }
  }
  fputs("null", f);
}

static void s_text_conflict(FILE *f, const ens_doc *doc, int svg, const ens_merge_conflict *c) {
  char vb[300], vo[300], vt[300];
  const char *kept = c->ours_kept ? "ours" : "theirs";
  const char *path = c->path && *c->path ? c->path : (svg ? "(document)" : "(font)");
  switch (c->kind) {
  case ENS_CONFLICT_SET:
  case ENS_CONFLICT_INSERT:
    cli_merge_value_str(doc, svg, c->base, vb, sizeof vb, 80);
    cli_merge_value_str(doc, svg, c->ours, vo, sizeof vo, 80);
    cli_merge_value_str(doc, svg, c->theirs, vt, sizeof vt, 80);
    fprintf(f, "  %s: %s: ours %s, theirs %s, base %s; %s kept\n", path, c->key ? c->key : "?", vo, vt,
            c->kind == ENS_CONFLICT_INSERT ? "(new on both sides)" : vb, kept);
    break;
  case ENS_CONFLICT_DELETE:
    fprintf(f, "  %s: deleted on one side, edited on the other; %s kept\n", path, kept);
    break;
  case ENS_CONFLICT_MOVE:
    fprintf(f, "  %s: %s both ways; %s kept\n", path, c->key ? "moved" : "order changed", kept);
    break;
  }
}

static void s_json_report(FILE *f, const char *name, const ens_doc *doc, int svg,
                          const ens_merge_conflict *const *list, size_t n, size_t noise, const cli_merge_marks *mk,
                          int written) {
  fputs("{\"file\":", f);
  s_json_str(f, name, strlen(name));
  fprintf(f, ",\"format\":\"%s\",\"clean\":%s,\"written\":%s,\"noise\":%zu,",
          svg == 2 ? "lottie" : svg ? "svg" : "sfd",
          n ? "false" : "true", written ? "true" : "false", noise);
  fprintf(f, "\"marks\":{\"glyphs\":%zu,\"outlines\":%zu,\"groups\":%zu,\"comments\":%zu},\"conflicts\":[", mk->glyphs,
          mk->outlines, mk->groups, mk->comments);
  for (size_t i = 0; i < n; i++) {
    const ens_merge_conflict *c = list[i];
    fprintf(f, "%s{\"kind\":\"%s\",\"path\":", i ? "," : "", s_kind_name(c->kind));
    s_json_str(f, c->path ? c->path : "", c->path ? strlen(c->path) : 0);
    if (c->key) {
      fputs(",\"key\":", f);
      s_json_str(f, c->key, strlen(c->key));
    }
    if (c->kind == ENS_CONFLICT_SET || c->kind == ENS_CONFLICT_INSERT) {
      fputs(",\"base\":", f);
      s_json_value(f, doc, svg, c->base);
      fputs(",\"ours\":", f);
      s_json_value(f, doc, svg, c->ours);
      fputs(",\"theirs\":", f);
      s_json_value(f, doc, svg, c->theirs);
    }
    fprintf(f, ",\"kept\":\"%s\"}", c->ours_kept ? "ours" : "theirs");
  }
  fputs("]}\n", f);
}

/* --- the command --------------------------------------------------------------------- */

int cli_cmd_merge(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  int driver = cli_opt(&s_spec, &args, "driver") != NULL, json = cli_opt(&s_spec, &args, "json") != NULL;
  int quiet = cli_opt(&s_spec, &args, "quiet") != NULL;
  const char *out = cli_opt(&s_spec, &args, "output");
  const char *base_p = args.args[0], *ours_p = args.args[1], *theirs_p = args.args[2];
  const char *name = args.nargs > 3 ? args.args[3] : NULL;
  if (args.nargs > 3 && !driver) return cli_usage_error(&s_spec, "PATH is for --driver only");
  if (driver && out) return cli_usage_error(&s_spec, "--driver writes OURS in place: no -o");
  if (json && !out && !driver) return cli_usage_error(&s_spec, "--json needs -o OUT (the merged file would be mixed in)");
  const char *target = driver ? ours_p : out;
  const char *shown = name ? name : target ? target : ours_p;

  char err[1024];
  char *data[3] = {NULL, NULL, NULL};
  size_t len[3] = {0, 0, 0};
  const char *paths[3] = {base_p, ours_p, theirs_p};
  ens_doc *base = NULL, *ours = NULL, *theirs = NULL, *theirs0 = NULL;
  ens_merge *m = NULL;
  ens_txn *mark = NULL;
  const ens_merge_conflict **list = NULL;
  unsigned char *bytes = NULL;
  size_t nbytes = 0, nlist = 0, noise = 0;
  cli_merge_marks marks = {0, 0, 0, 0};
  int written = 0;
  rc = S_TROUBLE;

  for (int i = 0; i < 3; i++)
    if (cli_read_file(paths[i], S_MAX_BYTES, &data[i], &len[i], err, sizeof err)) {
      rc = s_trouble("%s%s", err, "");
      goto done;
    }
  int svg = s_kind(name, NULL, 0);
  if (svg < 0) svg = s_kind(target, NULL, 0);
  if (svg < 0) svg = s_kind(ours_p, data[1], len[1]);
  if (svg < 0) svg = s_kind(theirs_p, data[2], len[2]);
  if (svg < 0) {
    rc = s_trouble("%s: neither a FontForge font (.sfd), an SVG drawing nor a Lottie animation (.json)%s", shown, "");
    goto done;
  }
  ens_doc **docs[3] = {&base, &ours, &theirs};
  for (int i = 0; i < 3; i++)
    if (s_parse(svg, data[i], len[i], i == 0, docs[i])) {
      rc = s_trouble("%s: %s", paths[i], ens_error_last());
      goto done;
    }
  if (s_parse(svg, data[2], len[2], 0, &theirs0)) {
    rc = s_trouble("%s: %s", theirs_p, ens_error_last());
    goto done;
  }
  ens_merge_opts opts = {svg == 2 ? ens_lottie_identity : svg ? ens_svg_identity : ens_sfd_identity, NULL,
                         ENS_MERGE_BY_KEY, ENS_MERGE_BY_KEY, ENS_MERGE_PREFER_OURS, svg == 1 ? ens_svg_refs : NULL, NULL};
  if (ens_merge3(base, ours, theirs, &opts, &m) != 0) {
    rc = s_trouble("%s: the merge failed: %s", shown, ens_error_last());
    goto done;
  }
  if (ens_doc_apply(theirs, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL) != 0) {
    rc = s_trouble("%s: the merged changes do not apply: %s", shown, ens_error_last());
    goto done;
  }
  size_t nc = ens_merge_conflict_count(m);
  if (nc && !(list = calloc(nc, sizeof *list))) {
    rc = s_trouble("%s%s", "out of memory", "");
    goto done;
  }
  for (size_t i = 0; i < nc; i++) {
    const ens_merge_conflict *c = ens_merge_conflict_at(m, i);
    const ens_obj *o = c->id ? ens_doc_get(theirs0, c->id) : NULL;
    if (cli_merge_is_noise(ens_doc_kind(theirs), o, c)) noise++;
    else list[nlist++] = c;
  }
  if (nlist && svg != 2) { /* an animation's conflicts are reported, ours kept, not marked in the file */
    int mr = svg ? cli_merge_mark_svg(theirs, ours, theirs0, list, nlist, &mark, &marks, err, sizeof err)
                 : cli_merge_mark_sfd(theirs, ours, theirs0, list, nlist, &mark, &marks, err, sizeof err);
    if (mr) {
      rc = s_trouble("%s: %s", shown, err);
      goto done;
    }
    if (ens_txn_op_count(mark) && ens_doc_apply(theirs, mark, ENS_ORIGIN_LOCAL, NULL) != 0) {
      /* the merge stands unmarked rather than not at all: the report has every conflict */
      fprintf(stderr, "ensemble merge: %s: the conflicts could not be marked in the file: %s\n", shown,
              ens_error_last());
      memset(&marks, 0, sizeof marks);
    }
  }
  if ((svg == 2 ? ens_lottie_write(theirs, &bytes, &nbytes)
       : svg    ? ens_svg_write(theirs, &bytes, &nbytes)
                : ens_sfd_write(theirs, &bytes, &nbytes)) != 0) {
    rc = s_trouble("%s: the merged document does not write: %s", shown, ens_error_last());
    goto done;
  }
  if (target) {
    if (cli_write_atomic(target, bytes, nbytes, err, sizeof err)) {
      rc = s_trouble("%s%s", err, "");
      goto done;
    }
  } else if (fwrite(bytes, 1, nbytes, stdout) != nbytes) {
    rc = s_trouble("%s%s", "writing the output failed", "");
    goto done;
  }
  written = 1;
  rc = nlist ? S_CONFLICTS : S_CLEAN;
  if (json) {
    s_json_report(stdout, shown, theirs, svg, list, nlist, noise, &marks, written);
  } else if (nlist && !quiet) {
    fflush(stdout);
    fprintf(stderr, "ensemble merge: %s: %zu conflict%s, ours kept", shown, nlist, nlist == 1 ? "" : "s");
    if (svg == 2)
      fprintf(stderr, " (not marked in the animation)");
    else if (svg)
      fprintf(stderr, "; %zu group%s in the drawing with both versions (theirs hidden)", marks.groups,
              marks.groups == 1 ? "" : "s");
    else
      fprintf(stderr, "; %zu glyph%s flagged red with a comment, %zu outline%s of theirs in the background",
              marks.glyphs, marks.glyphs == 1 ? "" : "s", marks.outlines, marks.outlines == 1 ? "" : "s");
    fputc('\n', stderr);
    for (size_t i = 0; i < nlist; i++) s_text_conflict(stderr, theirs, svg, list[i]);
  }
done:
  for (int i = 0; i < 3; i++) free(data[i]);
  ens_free(bytes);
  free(list);
  ens_txn_free(mark);
  ens_merge_free(m);
  ens_doc_free(base);
  ens_doc_free(ours);
  ens_doc_free(theirs);
  ens_doc_free(theirs0);
  return rc;
}
