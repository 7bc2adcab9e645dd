/* Ensemble SVG format: drawings (any XML document, in fact) read onto the
 * document model with libxml2 as the judge of well-formedness, and written
 * back losslessly (docs/svg.md). */
#ifndef ENSEMBLE_SVG_H
#define ENSEMBLE_SVG_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The document kind of every drawing read from SVG. */
#define ENS_SVG_KIND "svg"

/* Object kinds. An element's kind is its name as written ("rect",
 * "inkscape:namedview"), its attributes are properties keyed by their
 * names as written ("xlink:href"); the other nodes take DOM-style names,
 * which no element can have. docs/svg.md has every property. */
#define ENS_SVG_TEXT "#text"       /* text: decoded text */
#define ENS_SVG_CDATA "#cdata"     /* text: the section's content */
#define ENS_SVG_COMMENT "#comment" /* text: the comment's content */
#define ENS_SVG_PI "#pi"           /* target, data: a processing instruction */
#define ENS_SVG_XMLDECL "#xmldecl" /* version, encoding, standalone */
#define ENS_SVG_DOCTYPE "#doctype" /* name; "&NAME": each internal entity's replacement text */
#define ENS_SVG_ENTITY "#entity"   /* name: a reference to an internal entity in content */

/* Limits on input, refused with ENS_ELIMIT before anything large is made.
 * libxml2's own (XML_PARSE_HUGE off) also hold: nesting deeper than 256
 * elements, a text node or attribute value over 10 MB, a name over 50,000
 * bytes, and entity expansion beyond its amplification checks are
 * ENS_EDECODE. Expanding entities in attribute values is bounded here
 * too (ENS_SVG_MAX_EXPANSION bytes per file). */
#define ENS_SVG_MAX_FILE ((size_t)1 << 30)
#define ENS_SVG_MAX_EXPANSION ((size_t)16 << 20)

/* The SVG format's schema: XML names for elements and attributes, text
 * XML can hold, one root element with only comments, processing
 * instructions and blanks around it, a well-formed declaration and
 * doctype, checked by every apply to a document that has it (docs/svg.md,
 * "What a drawing cannot hold"). Drawings read by ens_svg_read have it;
 * sessions attach it to their documents of kind "svg" (ensemble/format.h).
 * It lives as long as the process; NULL only when out of memory. */
const ens_schema *ens_svg_schema(void);

/* Reads XML text (an SVG drawing) into a new document of kind "svg" whose
 * objects have ids of site 0. No external entity, DTD or network fetch is
 * ever made; a document that references an external entity is refused.
 * Malformed input gives ENS_EDECODE with "line N: ..." in ens_error_last()
 * and no document. The caller owns *out (ens_doc_free); data is only
 * borrowed during the call. */
int ens_svg_read(const void *data, size_t len, ens_doc **out);

/* The same from a file. The caller owns *out. */
int ens_svg_read_path(const char *path, ens_doc **out);

/* Writes doc as XML: each node's own source text while its properties
 * still read back from it, a plain style for what changed (an edited
 * attribute is rewritten in place, the rest of its tag kept). *out is
 * malloc'd (NUL after the last byte); the caller frees it with ens_free.
 * doc is only read. */
int ens_svg_write(const ens_doc *doc, unsigned char **out, size_t *out_len);

/* Writes doc to path atomically (temporary file beside it, fsync, rename).
 * doc is only read. */
int ens_svg_write_path(const ens_doc *doc, const char *path);

/* Identity keys for ens_doc_diff (an ens_identity_fn; user is unused): an
 * element with an id attribute by "#" and its id (a name: 2), any other
 * node by its kind and its rank among its siblings of that kind since the
 * nearest sibling before it that has an id ("rect[2]", "#text[0] after
 * #layer1": a place, 1): with the diff's top-down matching, that is the
 * path of names and positions from the root. */
int ens_svg_identity(const ens_obj *obj, char *key, size_t key_size, void *user);

/* The elements an attribute value names (an ens_refs_fn for the three-way
 * merge, ensemble/merge.h; user is unused): each url(#ID) in any attribute,
 * and the whole value "#ID" of href or a prefixed *:href, passed to found
 * as "#ID", the key ens_svg_identity gives the element with that id. */
int ens_svg_refs(const ens_obj *obj, const char *key, ens_value value, int (*found)(const char *name, size_t len, void *ctx),
                 void *ctx, void *user);

/* 1 when data looks like XML (optional byte order mark and blanks, then
 * '<'): what ensemble's commands use to tell a drawing from a font. */
int ens_svg_sniff(const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif
