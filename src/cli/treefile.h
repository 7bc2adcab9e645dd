/* .tree files: an indented text outline of a document (objects, kinds,
 * typed properties), for samples and tests. The format is in docs/cli.md. */
#ifndef ENS_CLI_TREEFILE_H
#define ENS_CLI_TREEFILE_H

#include <stddef.h>
#include <stdio.h>

#include "ensemble.h"

/* Limits that keep a hostile or mistaken file from exhausting memory; each
 * is reported as an error naming the line. */
#define CLI_TREE_MAX_BYTES ((size_t)32 << 20)
#define CLI_TREE_MAX_DEPTH 256
#define CLI_TREE_MAX_OBJECTS 1000000
#define CLI_TREE_MAX_SIBLINGS 100000 /* bounds one parent's child list in a hostile file */
#define CLI_TREE_MAX_PROPS 1000     /* per object */
#define CLI_TREE_MAX_NAME 255       /* kinds and keys */

typedef struct {
  size_t lines;   /* lines read */
  size_t objects; /* objects created, the root not counted */
  size_t ops;     /* operations of the loading transaction: one insert per top-level object */
} cli_tree_info;

/* Parses text (len bytes; NUL bytes are an error) and builds a new
 * document of kind doc_kind through one insert transaction labelled
 * "Open NAME". Its objects get ids of site 0, as a file reader's do. name
 * prefixes messages. Returns 0 with *out owned by the caller
 * (ens_doc_free), or ENS_EDECODE / ENS_ELIMIT / ENS_ENOMEM / another
 * ENS_E... code with "NAME:LINE: why" in err. info may be NULL. */
int cli_tree_parse(const char *text, size_t len, const char *name, const char *doc_kind, ens_doc **out,
                   cli_tree_info *info, char *err, size_t err_size);

/* cli_tree_parse on the contents of path; ENS_EIO when it cannot be read. */
int cli_tree_load(const char *path, const char *doc_kind, ens_doc **out, cli_tree_info *info, char *err,
                  size_t err_size);

/* Writes the objects below doc's root as a .tree outline that
 * cli_tree_parse reads back to the same content and ids. Checks first and
 * writes nothing when the document holds what the format cannot say
 * (bytes, references, NUL in a string, infinite reals, kinds or keys that
 * are not names): then -1 with a message in err. */
int cli_tree_write(FILE *out, const ens_doc *doc, char *err, size_t err_size);

#endif
