/* What `ensemble join` keeps beside the file it mirrors, so that edits
 * made while it was stopped are merged at the next start rather than
 * overwritten: the directory .NAME.join next to NAME, holding the last
 * versions of the file (the library's mirror states) and a mark for a save
 * being sent; and the backup a file is moved aside to. */
#ifndef ENS_CLI_MIRROR_KEEP_H
#define ENS_CLI_MIRROR_KEEP_H

#include "cli.h"

typedef struct {
  char *dir;       /* .NAME.join, created when first written */
  uint64_t serial; /* of the newest version file */
} cli_keep;

/* The keep of the file at path (nothing is created yet). 0 or -1 with err. */
int cli_keep_open(cli_keep *k, const char *path, char *err, size_t err_size);
void cli_keep_close(cli_keep *k);

/* Calls fn with each kept version, newest first, at most max of them. A
 * file that cannot be read is reported to fn with data NULL and the reason
 * in why. Returns how many were found. */
typedef void (*cli_keep_fn)(const void *data, size_t len, const char *name, const char *why, void *user);
size_t cli_keep_load(cli_keep *k, size_t max, cli_keep_fn fn, void *user);

/* Keeps a new version durably (written, fsynced, renamed into place);
 * its file name goes to name. 0, or -1 with err. */
int cli_keep_put(cli_keep *k, const void *data, size_t len, char *name, size_t name_size, char *err, size_t err_size);
/* Removes one version file, or all but the newest n. */
void cli_keep_drop(cli_keep *k, const char *name);
void cli_keep_prune(cli_keep *k, size_t n);

/* The mark for a save about to be sent, durably, before it goes: the hash
 * and length of the file's bytes. 0, or -1 with err. */
int cli_keep_mark(cli_keep *k, uint64_t hash, uint64_t len, char *err, size_t err_size);
/* 1 when the mark names these bytes. */
int cli_keep_marked(const cli_keep *k, uint64_t hash, uint64_t len);

/* Moves the file at path aside, to NAME-before-join.EXT (or -2, -3, ...)
 * in the same directory: a hard link, so that path is replaced later by a
 * rename and the old content is never without a name. The backup's path
 * goes to backup. 0, or -1 with err. */
int cli_backup(const char *path, char *backup, size_t backup_size, char *err, size_t err_size);

/* FNV-1a of bytes: how the keep recognises a file's content. */
uint64_t cli_keep_hash(const void *data, size_t len);

#endif
