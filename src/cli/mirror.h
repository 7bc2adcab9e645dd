/* The file side of `ensemble join`: a session's document kept in a local
 * .sfd, .svg, .json or .tgs file that any editor opens and saves. The three-way mirror
 * itself (which version a save is based on, what it changes, whose change
 * it replaced) is the library's (ensemble/mirror.h); this layer watches
 * the file (inotify on its directory), reads the editor's saves once they
 * are quiet, writes collaborators' changes atomically and only over what
 * the mirror knows, keeps the mirror's state beside the file, and decides
 * what happens to a file that was there before. */
#ifndef ENS_CLI_MIRROR_H
#define ENS_CLI_MIRROR_H

#include "cli.h"

typedef struct cli_mirror cli_mirror;

/* Milliseconds without a file event before a save is read (editors write
 * in several steps), and the least time between two writes of the file. */
#define CLI_MIRROR_QUIET_MS 150
#define CLI_MIRROR_THROTTLE_MS 200

/* A mirror of path (its kind by extension: .sfd, .svg, or an animation's
 * .json or .tgs, the latter written gzip; anything else, a dotLottie
 * archive too, is refused with -2). Starts watching the file's directory at once. quiet:
 * no line on stdout per event. replace: a file at path that is not this
 * session's is moved aside to a backup instead of refused. 0, or -1 with
 * a message in err; *out is the caller's (cli_mirror_free). */
int cli_mirror_new(const char *path, int quiet, int replace, cli_mirror **out, char *err, size_t err_size);
void cli_mirror_free(cli_mirror *m);

/* The session the file mirrors (borrowed; it must outlive the mirror). */
int cli_mirror_attach(cli_mirror *m, ens_session *s, char *err, size_t err_size);

/* The document kind a session must hold for this file ("sfd", "svg", "lottie"). */
const char *cli_mirror_doc_kind(const cli_mirror *m);

/* Every event of the session, from the command's on_event. */
void cli_mirror_event(cli_mirror *m, const ens_session_event *ev);

/* One round of work, between two polls of the session: the first time the
 * session is live, what to do with the file already there; then the
 * events of the watched directory, a save read once it has been quiet,
 * and the session's changes written when the file holds what the mirror
 * knows. 0, or -1 with a message in err (the file cannot be written, or
 * it is not this session's and may not be replaced). */
int cli_mirror_step(cli_mirror *m, char *err, size_t err_size);

/* At the stop: a save not read yet is read now, without waiting for the
 * quiet period. 1 when something was sent, 0 when not. */
int cli_mirror_flush(cli_mirror *m);

#endif
