/* Import of Tupi projects (.tup: a zip of XML scenes, layers, frames, tweens
 * and a library) into Lottie animation JSON, so that work made in Tupi can
 * be carried on in Ensemble. What has no Lottie counterpart is reported as
 * a list of notes, never dropped silently. The mapping is in docs/tupi.md. */
#ifndef ENSEMBLE_TUPI_H
#define ENSEMBLE_TUPI_H

#include <stddef.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits on what an import reads (ENS_ELIMIT beyond them). */
#define ENS_TUPI_MAX_FILE (256u << 20)      /* bytes of the .tup itself */
#define ENS_TUPI_MAX_ENTRIES 4096           /* entries in the zip */
#define ENS_TUPI_MAX_XML (64u << 20)        /* bytes of one part read (XML, image), uncompressed */
#define ENS_TUPI_MAX_XML_TOTAL (256u << 20) /* bytes of all parts read, uncompressed */
#define ENS_TUPI_MAX_SCENES 256
#define ENS_TUPI_MAX_LAYERS 1024            /* per scene */
#define ENS_TUPI_MAX_FRAMES 100000          /* per layer, and a tween's length */
#define ENS_TUPI_MAX_POINTS (16u << 20)     /* path points written for one scene */
#define ENS_TUPI_MAX_DEPTH 64               /* groups within groups */
#define ENS_TUPI_MAX_OUTPUT (512u << 20)    /* bytes of the Lottie text */

typedef struct ens_tupi_result ens_tupi_result;

/* Reads a Tupi project from the bytes of its .tup file (len at most
 * ENS_TUPI_MAX_FILE) and maps it onto one Lottie animation. On success
 * *out is the caller's (ens_tupi_result_free); on error *out is NULL and
 * the code is ENS_EDECODE (not a zip, malformed XML: the message names the
 * part and line), ENS_ENOTFOUND (a part is missing), ENS_ELIMIT or
 * ENS_ENOMEM, with ens_error_last(). */
int ens_tupi_import(const void *data, size_t len, ens_tupi_result **out);

/* The same from a file. ENS_EIO when it cannot be read. */
int ens_tupi_import_path(const char *path, ens_tupi_result **out);

/* The Lottie JSON text (NUL-terminated; owned by r) and its length. */
const char *ens_tupi_result_json(const ens_tupi_result *r, size_t *len);

/* What could not be mapped: notes in the order met, each a short sentence
 * (what), a place ("scene 1, layer \"Capa 1\", frame 5") and how many
 * times the same sentence came up (place: its first). Strings owned by r. */
size_t ens_tupi_result_note_count(const ens_tupi_result *r);
int ens_tupi_result_note(const ens_tupi_result *r, size_t i, const char **what, const char **where, size_t *count);

/* Accepts NULL. */
void ens_tupi_result_free(ens_tupi_result *r);

#ifdef __cplusplus
}
#endif
#endif
