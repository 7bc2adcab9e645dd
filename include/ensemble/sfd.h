/* Ensemble SFD format: FontForge's Spline Font Database read onto the
 * document model and written back losslessly (docs/sfd.md). */
#ifndef ENSEMBLE_SFD_H
#define ENSEMBLE_SFD_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The document kind of every font read from SFD. */
#define ENS_SFD_KIND "sfd"

/* Object kinds (docs/sfd.md has every property of each). */
#define ENS_SFD_GLYPH "glyph"     /* name, encoding, unicode, gid, width, ... */
#define ENS_SFD_LAYER "layer"     /* index (0 Back, 1 Fore, n Layer: n) */
#define ENS_SFD_CONTOUR "contour" /* its points, in order */
#define ENS_SFD_POINT "point"     /* x, y, c1x..c2y (curves), type, flags, extra */
#define ENS_SFD_REF "ref"         /* glyph (reference), xx xy yx yy dx dy, flags */
#define ENS_SFD_ANCHOR "anchor"   /* class, x, y, type, lig */
#define ENS_SFD_KERN "kern"       /* glyph (reference), offset, subtable */
#define ENS_SFD_RAW "raw"         /* text the reader does not model, kept in place */

/* Limits on input: a longer line or a larger file is refused with
 * ENS_EDECODE / ENS_ELIMIT before anything large is allocated. */
#define ENS_SFD_MAX_LINE ((size_t)16 << 20)
#define ENS_SFD_MAX_FILE ((size_t)1 << 30)

/* The SFD format's schema: the kinds and properties the writer writes
 * and the values SFD can say, checked by every apply to a document that
 * has it (docs/sfd.md, "What a font cannot hold"). Fonts read by
 * ens_sfd_read and ens_sfd_read_path have it; sessions attach it to
 * their documents of kind "sfd" (ensemble/format.h). It lives as long as
 * the process; NULL only when out of memory. */
const ens_schema *ens_sfd_schema(void);

/* Reads SFD text (SplineFontDB 1.0 to 3.2) into a new document of kind
 * "sfd" whose objects have ids of site 0. Malformed input gives
 * ENS_EDECODE with "line N: ..." in ens_error_last() and no document. The
 * caller owns *out (ens_doc_free); data is only borrowed during the call. */
int ens_sfd_read(const void *data, size_t len, ens_doc **out);

/* The same from a path: a .sfd file, or an SFDir directory (font.props
 * and one .glyph file per glyph). The caller owns *out. */
int ens_sfd_read_path(const char *path, ens_doc **out);

/* Writes doc as SFD text: the exact text each object came from while its
 * modelled properties still match it, FontForge's style for what changed.
 * *out is malloc'd (NUL after the last byte), the caller frees it with
 * ens_free. A document read from an SFDir is refused (ENS_EINVAL): it
 * writes to a directory with ens_sfd_write_path. doc is only read. */
int ens_sfd_write(const ens_doc *doc, unsigned char **out, size_t *out_len);

/* Writes doc to path atomically (temporary file in the same directory,
 * flushed, fsync'd, renamed over path). A document read from an SFDir
 * writes a directory at path: each file so, and .glyph files of glyphs no
 * longer in the document are removed. doc is only read. */
int ens_sfd_write_path(const ens_doc *doc, const char *path);

/* 1 when doc was read from an SFDir directory. */
int ens_sfd_is_dir(const ens_doc *doc);

/* Identity keys for ens_doc_diff (an ens_identity_fn; user is unused):
 * glyphs by name, layers by index, anchors by class and type (names: 2),
 * and contours, points, references, kerning pairs and raw text by their
 * position among siblings of the same kind (places: 1). */
int ens_sfd_identity(const ens_obj *obj, char *key, size_t key_size, void *user);

/* 1 when a contour is closed the SFD way: its last point repeats its first
 * (and the last point does not carry the forced-open flag 0x400). */
int ens_sfd_contour_closed(const ens_obj *contour);

#ifdef __cplusplus
}
#endif
#endif
