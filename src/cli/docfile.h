/* Documents to and from files for the session commands: FontForge fonts
 * (.sfd, through the SFD reader and writer), SVG drawings (.svg, through
 * the SVG reader and writer), Lottie animations (.json, .tgs, .lottie, through the Lottie
 * reader and writer) and Ensemble snapshots (any other name).
 * Writes are atomic. A name STORE@SEQ that is not a file of its own reads
 * the document of a session's store after seq SEQ (ensemble/history.h). */
#ifndef ENS_CLI_DOCFILE_H
#define ENS_CLI_DOCFILE_H

#include "cli.h"

/* 0, or -1 with a message in err. *out is owned by the caller. */
int cli_doc_load(const char *path, ens_doc **out, char *err, size_t err_size);
int cli_doc_save(const ens_doc *doc, const char *path, char *err, size_t err_size);
/* The same from and to bytes, the format chosen by path's name. *bytes is
 * the caller's (ens_free). */
int cli_doc_parse(const char *path, const void *data, size_t len, ens_doc **out, char *err, size_t err_size);
int cli_doc_encode(const ens_doc *doc, const char *path, unsigned char **bytes, size_t *len, char *err,
                   size_t err_size);
/* The identity keys of path's format (ensemble/diff.h); NULL for a
 * snapshot, whose objects keep the session's ids. */
ens_identity_fn cli_doc_identity(const char *path);
/* The identity keys of a document kind ("sfd", "svg"); NULL for others. */
ens_identity_fn cli_doc_kind_identity(const char *doc_kind);
/* Whether path names a seq of a store rather than a file: 1 with the
 * store's path in store (store_size bytes) and *seq, 0 when path is to be
 * read as a file (a real file named with @ is one). */
int cli_doc_store_at(const char *path, char *store, size_t store_size, uint64_t *seq);

#endif
