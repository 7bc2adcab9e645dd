/* The invites file as the WebSocket transport reads it (invites.c): the
 * hashes of the tokens that let a browser in, each with its person's name. */
#ifndef ENS_SESSION_INVITES_H
#define ENS_SESSION_INVITES_H

#include <stddef.h>

#include "ensemble/invite.h"

#define ENS__HASH_LEN 32

typedef struct ens__invites ens__invites;

/* Reads path; a missing file is an empty table. ENS_EDECODE for a line
 * that is not "HASH name", with file and line in ens_error_last(). */
int ens__invites_load(const char *path, ens__invites **out);
size_t ens__invites_count(const ens__invites *inv);
/* SHA-256 of a token as it came. */
void ens__invites_hash(const void *token, size_t len, unsigned char out[ENS__HASH_LEN]);
/* The name invited with this hash (borrowed), or NULL. */
const char *ens__invites_find(const ens__invites *inv, const unsigned char hash[ENS__HASH_LEN]);
void ens__invites_free(ens__invites *inv);

#endif
