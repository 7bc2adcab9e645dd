/* Invites: per-person secrets that let a browser join a session over
 * WebSocket (docs/protocol.md, "Security" and "WebSocket"). A token is shown once, when it
 * is made; the invites file keeps only its SHA-256 with the person's name,
 * one "HASH name" per line (mode 0600, replaced atomically), so the file
 * read by someone else lets nobody in. */
#ifndef ENSEMBLE_INVITE_H
#define ENSEMBLE_INVITE_H

#include <stddef.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A token: 32 random bytes in URL-safe base64 without padding. */
#define ENS_TOKEN_LEN 43
#define ENS_INVITE_NAME_MAX 64

/* Makes a token for name (1..64 bytes, no control characters) and adds
 * its hash to the invites file at path (created when missing). The token
 * goes to token, NUL-terminated; it is nowhere else. ENS_EEXISTS when the
 * file already invites name (revoke first: one token per person). */
int ens_invite_add(const char *path, const char *name, char token[ENS_TOKEN_LEN + 1]);

/* Removes name's invite from the file; ENS_ENOTFOUND when it has none.
 * A server that reads the file drops name's live connections. */
int ens_invite_revoke(const char *path, const char *name);

/* The names invited, in the file's order: *names is an array of *count
 * strings, each and the array owned by the caller (ens_invite_names_free).
 * A missing file is no error: no names. */
int ens_invite_list(const char *path, char ***names, size_t *count);
void ens_invite_names_free(char **names, size_t count);

#ifdef __cplusplus
}
#endif
#endif
