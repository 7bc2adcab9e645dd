/* Ensemble's file formats as schemas: each format's kinds, properties and
 * values, so that every apply to a document of that kind refuses a change
 * the format's writer could not write faithfully (the written file would
 * read back as another document). Servers and session clients attach them
 * to their documents by kind; the readers attach them to what they read. */
#ifndef ENSEMBLE_FORMAT_H
#define ENSEMBLE_FORMAT_H

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

#ifdef __cplusplus
}
#endif
#endif
