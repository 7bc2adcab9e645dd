/* The two-way mirror behind `ensemble join`: a session's document kept in
 * a local .sfd or .svg file that any editor opens and saves. The editor's
 * saves are read back (inotify on the file's directory), diffed against
 * the state the file was last known to hold and sent as one transaction;
 * collaborators' changes are written to the file atomically, never over a
 * save that has not been read yet. */
#ifndef ENS_CLI_MIRROR_H
#define ENS_CLI_MIRROR_H

#include "cli.h"

typedef struct cli_mirror cli_mirror;

/* Milliseconds without a file event before a save is read (editors write
 * in several steps), and the least time between two writes of the file. */
#define CLI_MIRROR_QUIET_MS 150
#define CLI_MIRROR_THROTTLE_MS 200

/* A mirror of path (its kind by extension: .sfd or .svg; anything else is
 * refused with -2). Starts watching the file's directory at once. quiet:
 * no line on stdout per event. 0, or -1 with a message in err; *out is the
 * caller's (cli_mirror_free). */
int cli_mirror_new(const char *path, int quiet, cli_mirror **out, char *err, size_t err_size);
void cli_mirror_free(cli_mirror *m);

/* The document kind a session must hold for this file ("sfd", "svg"). */
const char *cli_mirror_doc_kind(const cli_mirror *m);

/* The session's document is new (first join, or replaced by a snapshot):
 * the next step writes it whole. */
void cli_mirror_reset(cli_mirror *m);
/* The server refused one of our transactions, or applied it without its
 * edits of what a collaborator had deleted, and the session's document
 * says so: the next step rewrites the file from that document. */
void cli_mirror_rejected(cli_mirror *m);

/* One round of work, between two polls of the session: reads the events of
 * the watched directory, ingests a save once it has been quiet, and writes
 * the session's changes when the file holds exactly what was last mirrored.
 * 0, or -1 with a message in err when the file cannot be written. */
int cli_mirror_step(cli_mirror *m, ens_session *s, char *err, size_t err_size);

/* At the stop: a save not read yet is read now, without waiting for the
 * quiet period. 1 when something was sent, 0 when not. */
int cli_mirror_flush(cli_mirror *m, ens_session *s);

#endif
