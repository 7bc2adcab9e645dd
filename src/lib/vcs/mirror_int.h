/* Private parts of the file mirror (mirror.h): who changed which object
 * and property of the session (mirror_who.c), and the record a host keeps
 * beside the file (mirror_state.c). */
#ifndef ENS_VCS_MIRROR_INT_H
#define ENS_VCS_MIRROR_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ensemble/txn.h"

/* --- authorship ---------------------------------------------------------- */

typedef struct {
  ens_id id;
  uint64_t key; /* hash of the property's key; 0 for the object itself */
  uint32_t site;
  uint64_t seq;
} ens__who_entry;

typedef struct {
  uint32_t site;
  char *name;
} ens__who_name;

typedef struct {
  ens__who_entry *e; /* open addressing; id 0 = empty */
  size_t cap, count;
  uint64_t pruned_below; /* entries older than this are gone */
  ens__who_name *names;
  size_t nnames;
} ens__who;

/* Notes that site made txn, at seq: its sets by (object, key), its
 * inserts, deletes and moves by object. 0 or ENS_ENOMEM. */
int ens__who_note(ens__who *w, const ens_txn *txn, uint32_t site, uint64_t seq);
/* Who last changed key of obj (key NULL: the object itself), else the
 * object, else its nearest ancestor in doc that someone inserted, moved or
 * deleted. 1 with *site and *seq when known, 0 when not. */
int ens__who_find(const ens__who *w, const ens_doc *doc, ens_id obj, const char *key, uint32_t *site, uint64_t *seq);
/* The latest change anyone made inside obj's subtree in doc (its own and
 * its descendants' properties, inserts and moves): what a delete of it
 * would take away. 1 with *site and *seq when known, 0 when not. */
int ens__who_find_within(const ens__who *w, const ens_doc *doc, ens_id obj, uint32_t *site, uint64_t *seq);
/* Forgets what happened at or before seq (no version of the file is older). */
void ens__who_prune(ens__who *w, uint64_t seq);
/* The name a site goes by; replace 0 keeps an existing one. */
int ens__who_set_name(ens__who *w, uint32_t site, const char *name, int replace);
const char *ens__who_name_of(const ens__who *w, uint32_t site); /* NULL when none */
void ens__who_clear(ens__who *w);

/* --- the state kept beside the file --------------------------------------- */

typedef struct {
  uint64_t epoch;     /* the session's history */
  uint64_t seq;       /* what the session's document held when this version was made */
  uint64_t file_hash; /* of the file's bytes in this version */
  uint64_t file_len;
  uint64_t doc_hash;  /* ens_doc_hash of the version's document */
  uint8_t origin;     /* how it came: written by the mirror, saved by the editor */
  char format[8];     /* "sfd", "svg" */
  const unsigned char *snap; /* the version's document (a snapshot), borrowed */
  size_t snap_len;
} ens__mirror_state;

/* *out malloc'd (ens_free). */
int ens__mirror_state_write(const ens__mirror_state *st, unsigned char **out, size_t *len);
/* Checks every byte (ENS_EDECODE with a reason otherwise); st->snap points
 * into data. */
int ens__mirror_state_read(const void *data, size_t len, ens__mirror_state *st);

/* The hash of a file's bytes that versions are known by. */
uint64_t ens__mirror_bytes_hash(const void *data, size_t len);

#endif
