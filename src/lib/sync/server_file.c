/* The host's file (session.h, "the host's file"): what a host wrote to the
 * file it keeps the document in, recorded in the store so that a restart
 * tells an edited file from the one it wrote, and knows what it held. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "ensemble/session.h"
#include "server_int.h"
#include "store.h"

static int s_same(const ens__written *w, const void *bytes, size_t len) {
  ens__written now;
  ens__written_of(bytes, len, w->seq, &now);
  return now.size == w->size && memcmp(now.hash, w->hash, sizeof now.hash) == 0;
}

int ens_server_file_writing(ens_server *s, uint64_t seq, const void *bytes, size_t len) {
  if (!bytes && len) return ens__error(ENS_EINVAL, "no bytes");
  ens__written w;
  ens__written_of(bytes, len, seq, &w);
  return ens__store_written_set(ens__server_store(s), ENS__WRITING, &w);
}

int ens_server_file_written(ens_server *s) {
  ens__store *st = ens__server_store(s);
  ens__written w;
  int rc = ens__store_written_get(st, ENS__WRITING, &w);
  if (rc == ENS_ENOTFOUND) return ens__error(ENS_EINVAL, "no write of the file was under way");
  return rc ? rc : ens__store_written_set(st, ENS__WRITTEN, &w);
}

int ens_server_file_check(ens_server *s, const void *bytes, size_t len, ens_file_state *state, uint64_t *seq,
                          ens_doc **base) {
  *state = ENS_FILE_UNKNOWN;
  if (seq) *seq = 0;
  if (base) *base = NULL;
  if (!bytes && len) return ens__error(ENS_EINVAL, "no bytes");
  ens__store *st = ens__server_store(s);
  ens__written done, going;
  int rc = ens__store_written_get(st, ENS__WRITTEN, &done);
  if (rc && rc != ENS_ENOTFOUND) return rc;
  int have_done = rc == 0;
  rc = ens__store_written_get(st, ENS__WRITING, &going);
  if (rc && rc != ENS_ENOTFOUND) return rc;
  int have_going = rc == 0;
  const ens__written *w;
  if (have_going && s_same(&going, bytes, len)) {
    /* the host stopped between replacing the file and saying so */
    if ((rc = ens__store_written_set(st, ENS__WRITTEN, &going))) return rc;
    *state = ENS_FILE_SAME;
    w = &going;
  } else if (have_done) {
    /* when a write was under way and the file was edited too, the base
     * is the write known to be done: taking the newer one would count
     * what the file never held as reverted by its editor */
    *state = s_same(&done, bytes, len) ? ENS_FILE_SAME : ENS_FILE_CHANGED;
    w = &done;
  } else {
    return 0; /* nothing known: a store of an older version */
  }
  if (seq) *seq = w->seq;
  if (!base) return 0;
  unsigned char *snap;
  size_t n;
  rc = ens__store_checkpoint_at(st, w->seq, &snap, &n);
  if (rc == ENS_ENOTFOUND) { /* an older version dropped it */
    *state = ENS_FILE_UNKNOWN;
    if (seq) *seq = 0;
    return 0;
  }
  if (rc) return rc;
  rc = ens_snapshot_decode(snap, n, base);
  free(snap);
  if (rc) *state = ENS_FILE_UNKNOWN;
  return rc ? ens__error_prefix(rc, "the checkpoint the file was written from: ") : 0;
}
