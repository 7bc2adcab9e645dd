/* Documents to and from files for the session commands: FontForge fonts
 * (.sfd, through the SFD reader and writer), SVG drawings (.svg, through
 * the SVG reader and writer) and Ensemble snapshots (any other name).
 * Writes are atomic. */
#ifndef ENS_CLI_DOCFILE_H
#define ENS_CLI_DOCFILE_H

#include "cli.h"

/* 0, or -1 with a message in err. *out is owned by the caller. */
int cli_doc_load(const char *path, ens_doc **out, char *err, size_t err_size);
int cli_doc_save(const ens_doc *doc, const char *path, char *err, size_t err_size);

#endif
