/* Ensemble: error codes, object ids and the version, shared by every module. */
#ifndef ENSEMBLE_COMMON_H
#define ENSEMBLE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENS_VERSION_MAJOR 0
#define ENS_VERSION_MINOR 1
#define ENS_VERSION_PATCH 0
#define ENS_VERSION_STRING "0.1.0"

/* Every fallible function returns 0 or one of these negative codes; the
 * message that explains it is in ens_error_last(). */
enum {
  ENS_OK = 0,
  ENS_ENOMEM = -1,    /* out of memory */
  ENS_EINVAL = -2,    /* bad argument from the caller */
  ENS_ENOTFOUND = -3, /* unknown object id or property */
  ENS_ECYCLE = -4,    /* a move would make an object its own ancestor */
  ENS_EKIND = -5,     /* object kind not allowed there by the schema */
  ENS_ETYPE = -6,     /* property value of the wrong type */
  ENS_EEXISTS = -7,   /* id already in use */
  ENS_EDECODE = -8,   /* malformed bytes (snapshot, transaction) */
  ENS_ELIMIT = -9,    /* input exceeds a documented limit */
  ENS_EIO = -10,      /* file or system error */
  ENS_EEMPTY = -11,   /* nothing to undo or redo */
  ENS_EFORMAT = -12   /* the document's file format cannot hold the change as it is */
};

/* The message for the last error on this thread ("" when none). The string
 * belongs to the library and stays valid until the next failing call on the
 * same thread. */
const char *ens_error_last(void);

/* A short constant name for an error code ("ENS_ECYCLE"). */
const char *ens_error_name(int code);

/* Object ids: 64 bits, (site << 40) | counter. A site is one client of one
 * document, so every client creates ids without asking anyone. Id 0 means
 * "no object"; the root of every document is ENS_ROOT_ID. */
typedef uint64_t ens_id;
#define ENS_ID_NONE ((ens_id)0)
#define ENS_ROOT_ID ((ens_id)1)
#define ENS_SITE_BITS 24
#define ENS_COUNTER_BITS 40
#define ENS_SITE_MAX ((1u << ENS_SITE_BITS) - 1u)
#define ens_id_make(site, counter) \
  ((((ens_id)(site)) << ENS_COUNTER_BITS) | ((ens_id)(counter) & ((((ens_id)1) << ENS_COUNTER_BITS) - 1)))
#define ens_id_site(id) ((uint32_t)((id) >> ENS_COUNTER_BITS))
#define ens_id_counter(id) ((id) & ((((ens_id)1) << ENS_COUNTER_BITS) - 1))

/* Frees memory the library handed to the caller (encoded bytes, JSON text,
 * position strings). Accepts NULL. */
void ens_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif
