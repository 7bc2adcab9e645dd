/* `ensemble merge`: which conflicts are editor noise, and how the others are
 * marked inside the merged file so that it still opens in its editor (a
 * glyph's other version in its background layer, an SVG group holding both
 * versions of an element). docs/vcs.md, "Merge and conflicts". */
#ifndef ENS_CLI_MERGE_MARK_H
#define ENS_CLI_MERGE_MARK_H

#include "cli.h"

/* 1 when a conflict is editor noise (FontForge's ModificationTime and
 * window state, Inkscape's view of the canvas, a point's selection bit):
 * it never counts, and the merge's choice (ours) stands without a mark.
 * obj is the conflicting object in theirs (may be NULL); doc_kind names
 * the format whose noise list applies (ens_format_noise). */
int cli_merge_is_noise(const char *doc_kind, const ens_obj *obj, const ens_merge_conflict *c);

/* What a mark made, for the report. */
typedef struct {
  size_t glyphs;   /* SFD: glyphs flagged (colour and comment) */
  size_t outlines; /* SFD: layers whose other version went to the background */
  size_t groups;   /* SVG: conflict groups holding both versions */
  size_t comments; /* SVG: conflicts noted in a comment (the root element) */
} cli_merge_marks;

/* The transaction that marks conflicts c[0..n) in merged (theirs with the
 * merge applied; theirs0 is theirs as read, ours the other side, both only
 * read). *out is the caller's; it may hold no operation. 0, or -1 with a
 * message in err. */
int cli_merge_mark_sfd(ens_doc *merged, const ens_doc *ours, const ens_doc *theirs0,
                       const ens_merge_conflict *const *c, size_t n, ens_txn **out, cli_merge_marks *marks,
                       char *err, size_t esz);
int cli_merge_mark_svg(ens_doc *merged, const ens_doc *ours, const ens_doc *theirs0,
                       const ens_merge_conflict *const *c, size_t n, ens_txn **out, cli_merge_marks *marks,
                       char *err, size_t esz);

/* A value for people: numbers as the formats print them, strings quoted
 * and cut at max bytes, a reference by the identity path of what it names
 * in doc. Writes into buf (always NUL-terminated). svg, here and below: 0
 * for a font, 1 for a drawing, 2 for a Lottie animation. */
void cli_merge_value_str(const ens_doc *doc, int svg, ens_value v, char *buf, size_t size, size_t max);
/* The identity path of o ("glyph a/layer 1"), as the merge writes paths. */
void cli_merge_obj_path(const ens_obj *o, int svg, char *buf, size_t size);

#endif
