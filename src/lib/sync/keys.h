/* Private helpers around the authorised-keys list (keys.c). */
#ifndef ENS_SESSION_KEYS_H
#define ENS_SESSION_KEYS_H

#include "ensemble/session.h"

/* A copy of k (NULL when out of memory). */
ens_authorized_keys *ens__authorized_keys_copy(const ens_authorized_keys *k);

#endif
