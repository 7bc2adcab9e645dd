/* The server's durable log (docs/protocol.md, "Sessions"): SQLite in WAL
 * mode holding every accepted transaction by seq, the latest checkpoint
 * (a snapshot and its seq), and per client its site, the floor of its ids
 * and the last ctn the server decided on as of the latest checkpoint or
 * reject (the log's entries, which name their client and ctn, hold the
 * later ones). One writer: the server that opened it. */
#ifndef ENS_SESSION_STORE_H
#define ENS_SESSION_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

typedef struct ens__store ens__store;

typedef struct {
  uint64_t seq;
  uint32_t site;
  uint64_t ctn;
  const unsigned char *client; /* ENS_CLIENT_ID_LEN bytes */
  const unsigned char *txn;    /* encoded transaction */
  size_t len;
  int64_t at_ms; /* when the server accepted it (unix ms); 0: unknown, or now for an append */
} ens__entry;

/* A client's record. */
typedef struct {
  const unsigned char *id; /* ENS_CLIENT_ID_LEN bytes */
  uint32_t site;
  uint64_t last_ctn;
  uint64_t floor; /* its ids' counters lie above this (0 on a site never taken back) */
  int made;       /* a transaction of it was accepted: as of the latest checkpoint, like last_ctn */
} ens__client_rec;

/* Opens or creates the store at path (a new store gets a random epoch and
 * no checkpoint, and its file mode 0600; an existing file keeps its
 * mode). The caller owns *out: ens__store_close. */
int ens__store_open(const char *path, ens__store **out);
void ens__store_close(ens__store *s);
/* Opens an existing store read-only beside its server (if one runs): one
 * read snapshot of it for as long as it is open, nothing written, no
 * lock that keeps the server waiting. Only the reads below work on it
 * (head, first, read, checkpoints); the caller owns *out. */
int ens__store_open_readonly(const char *path, ens__store **out);
/* The current time in unix ms, as appends record it. */
int64_t ens__store_now_ms(void);
/* The seqs of the checkpoints kept, ascending, into seqs (at most max);
 * their count, or a negative error. */
int ens__store_checkpoints(ens__store *s, uint64_t *seqs, size_t max);

uint64_t ens__store_epoch(const ens__store *s);
/* The last durable seq (0 for a new store). */
uint64_t ens__store_head(const ens__store *s);
/* The oldest seq the log still holds; head + 1 when it holds none. */
uint64_t ens__store_first(const ens__store *s);

/* Group commit: begin, any number of appends and client updates, commit.
 * Nothing is durable, nor visible to head, before commit returns 0; a
 * failed commit rolls everything back. Appends must continue head in
 * order (seq = head + 1, + 2, ...). */
int ens__store_begin(ens__store *s);
int ens__store_append(ens__store *s, const ens__entry *e);
int ens__store_set_client(ens__store *s, const ens__client_rec *c);
/* Removes a client's record (its site goes to another in the same group). */
int ens__store_forget_client(ens__store *s, const unsigned char *client);
int ens__store_commit(ens__store *s);
void ens__store_rollback(ens__store *s);

/* Entries from..to (inclusive) in order; stops at fn's first nonzero
 * return and returns it. Entries are borrowed for the call. */
int ens__store_read(ens__store *s, uint64_t from, uint64_t to, int (*fn)(const ens__entry *e, void *user),
                    void *user);

/* Every known client. */
int ens__store_clients(ens__store *s, int (*fn)(const ens__client_rec *c, void *user), void *user);

/* The latest checkpoint: *snap malloc'd (free with ens_free), or
 * ENS_ENOTFOUND when there is none. */
int ens__store_checkpoint_get(ens__store *s, uint64_t *seq, unsigned char **snap, size_t *len);
/* Records a snapshot of the document at seq (<= head) durably, replacing
 * the previous one, and trims the log: entries after seq - keep stay (so
 * that clients slightly behind catch up without a snapshot), and so do
 * the entries after the latest checkpoint at or before seq - keep, which
 * is kept with them, so that every seq the log reaches can be rebuilt
 * (docs/vcs.md, "Session history"). */
int ens__store_checkpoint(ens__store *s, uint64_t seq, const void *snap, size_t len, uint64_t keep);
/* The checkpoint of one seq (the latest, or one a file record keeps):
 * *snap malloc'd, or ENS_ENOTFOUND. */
int ens__store_checkpoint_at(ens__store *s, uint64_t seq, unsigned char **snap, size_t *len);

/* What the host wrote to its file (session.h, "the host's file"): the
 * checkpoint it was made from, the file's size and a hash of its bytes.
 * Slot WRITING is recorded before the file is replaced, WRITTEN after
 * (and WRITING then goes); the checkpoints they name are kept until they
 * name others. */
typedef struct {
  uint64_t seq, size;
  unsigned char hash[16];
} ens__written;
enum { ENS__WRITTEN = 0, ENS__WRITING = 1 };

/* The record of bytes written from the checkpoint of seq. */
void ens__written_of(const void *bytes, size_t len, uint64_t seq, ens__written *w);
/* ENS_ENOTFOUND when the slot holds nothing. */
int ens__store_written_get(ens__store *s, int slot, ens__written *w);
/* ENS_ENOTFOUND when no checkpoint of w->seq is kept. */
int ens__store_written_set(ens__store *s, int slot, const ens__written *w);
/* A checkpoint and, in the same commit, the record that the file holds
 * its document (w->seq == seq), as when a store starts from a file. */
int ens__store_checkpoint_written(ens__store *s, uint64_t seq, const void *snap, size_t len, uint64_t keep,
                                  const ens__written *w);

#endif
