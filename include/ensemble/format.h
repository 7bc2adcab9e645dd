/* Ensemble's file formats as schemas: each format's kinds, properties and
 * values, so that every apply to a document of that kind refuses a change
 * the format's writer could not write faithfully (the written file would
 * read back as another document). Servers and session clients attach them
 * to their documents by kind; the readers attach them to what they read. */
#ifndef ENSEMBLE_FORMAT_H
#define ENSEMBLE_FORMAT_H

#include "diff.h" /* ens_identity_fn */
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The schema of documents of kind doc_kind: ens_sfd_schema for "sfd",
 * ens_svg_schema for "svg"; NULL for a kind the library has no format
 * for (then ens_error_last is untouched), or when out of memory. It lives
 * as long as the process. */
const ens_schema *ens_format_schema(const char *doc_kind);

/* Attaches to doc the schema of its kind (ens_doc_set_schema), or none
 * when its kind has no format. 0, or ENS_ENOMEM. */
int ens_format_attach(ens_doc *doc);

/* Editor noise: whether changing obj's property key from old_value to
 * new_value is only the editor's own state (a time stamp, a window's
 * place, a selection, a zoom) rather than a change to the work, so that
 * diffs leave it out and merges never call it a conflict. obj is the
 * object in either version (its kind is what matters); either value may
 * be NIL (absent). Returns 1 for noise, 0 otherwise. ens_sfd_noise and
 * ens_svg_noise are the formats' (docs/vcs.md lists what each ignores). */
typedef int (*ens_noise_fn)(const ens_obj *obj, const char *key, ens_value old_value, ens_value new_value,
                            void *user);

/* The noise function of documents of kind doc_kind (ens_sfd_noise for
 * "sfd", ens_svg_noise for "svg"), NULL for a kind without one. */
ens_noise_fn ens_format_noise(const char *doc_kind);

/* The identity keys of documents of kind doc_kind (ens_sfd_identity,
 * ens_svg_identity), NULL for a kind without them. */
ens_identity_fn ens_format_identity(const char *doc_kind);

/* The format noise functions (user is unused). SFD: the font's
 * ModificationTime, WinInfo, DisplaySize, DisplayLayer, AntiAlias and
 * FitToEm; a point's selected flag (0x4 of flags) when no other flag bit
 * changed; a reference's selected mark; the O (was open) letter of a
 * glyph's Flags. SVG: the view state Inkscape keeps on
 * sodipodi:namedview (window size and place, zoom, centre, rotation,
 * current layer) and what it stamps on every save (inkscape:version,
 * sodipodi:docname, sodipodi:docbase, inkscape:output_extension). */
int ens_sfd_noise(const ens_obj *obj, const char *key, ens_value old_value, ens_value new_value, void *user);
int ens_svg_noise(const ens_obj *obj, const char *key, ens_value old_value, ens_value new_value, void *user);

#ifdef __cplusplus
}
#endif
#endif
