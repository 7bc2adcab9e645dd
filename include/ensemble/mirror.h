/* Ensemble file mirror: a session's document kept in a file that an
 * editor which does not embed the library (FontForge, Inkscape, a text
 * editor on an animation) opens and saves. An editor keeps its document in memory and does not reload a file
 * changed on disk, so a save is merged three ways: base = the version of
 * the file the editor last held, ours = the save, theirs = the session;
 * only the user's own changes are sent, and where they replace a
 * collaborator's newer value the user is told whose (docs/mirror.md).
 * The mirror does no file I/O: the host reads and writes the file (and
 * watches it) and tells the mirror what happened. */
#ifndef ENSEMBLE_MIRROR_H
#define ENSEMBLE_MIRROR_H

#include "merge.h"
#include "session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Versions of the file kept as possible bases unless told otherwise. Each
 * costs a snapshot of the document (some 2 bytes per byte of an SFD file)
 * plus 4 bytes per object and property; one is also kept decoded. */
#define ENS_MIRROR_VERSIONS 6

typedef struct ens_mirror ens_mirror;

typedef struct {
  const char *format;  /* the file's format: "sfd" (ENS_SFD_KIND), "svg" (ENS_SVG_KIND) or "lottie"
                          (ENS_LOTTIE_KIND) */
  size_t max_versions; /* versions kept, at least 3; 0 for ENS_MIRROR_VERSIONS */
  const char *label;   /* label of the transaction a save makes; NULL for "Saved by editor" */
  /* "lottie": the file's container, ENS_LOTTIE_AS_JSON (0) or ENS_LOTTIE_AS_TGS (gzip); a dotLottie
   * archive is refused (ENS_EINVAL), since the other entries it holds are no part of the session's
   * document. The container a save was read in never reaches the session: the session's file keeps
   * its own. */
  int container;
} ens_mirror_opts;

/* A mirror of session's document. The mirror borrows the session, which
 * must outlive it. The caller owns *out: ens_mirror_free. */
int ens_mirror_new(ens_session *session, const ens_mirror_opts *opts, ens_mirror **out);
void ens_mirror_free(ens_mirror *mirror);

/* Every event of the session, passed on by the host from its on_event:
 * the mirror learns from them who changed what (for the conflicts it
 * reports) and when the document's history was replaced. */
void ens_mirror_on_event(ens_mirror *mirror, const ens_session_event *event);

/* 1 when the session's document differs from what the file holds, or the
 * file holds nothing the mirror knows: the host should write it (when the
 * file has no save waiting to be read). 0 before the session is live. */
int ens_mirror_outdated(ens_mirror *mirror);

/* The session's document in the file's format, to be written. *bytes is
 * borrowed until the next render, ens_mirror_written or ens_mirror_free.
 * Nothing changes until ens_mirror_written says the file holds them. */
int ens_mirror_render(ens_mirror *mirror, const unsigned char **bytes, size_t *len);
/* The bytes of the last render are now the file's content (after the
 * rename that put them in place): they become a version an editor may
 * open. ENS_EINVAL when nothing was rendered. */
int ens_mirror_written(ens_mirror *mirror);

/* Someone opened the file to read it: the version it held then may become
 * an editor's base and is kept in preference to others. previous = 1 when
 * the open came before the last write replaced the file. */
void ens_mirror_file_read(ens_mirror *mirror, int previous);

/* One conflict of a save, for the user: what their save replaced. */
typedef struct {
  ens_conflict_kind kind;
  const char *path; /* the object, for people ("glyph b", "svg[0]/g #layer1/path #p8") */
  const char *key;  /* ENS_CONFLICT_SET: the property; else NULL */
  /* ENS_CONFLICT_SET: the value in the editor's base, the save's value and
   * the session's (the collaborator's) value; NIL when absent */
  ens_value base, ours, theirs;
  int ours_kept;      /* 1 when the save's side stands (the collaborator's value is replaced) */
  /* ENS_CONFLICT_DELETE: 1 when the collaborator deleted what the save
   * edited, 0 when the save deleted what the collaborator had edited */
  int theirs_deleted;
  uint32_t site;      /* who made the session's side: their site, 0 when not known */
  const char *who;    /* their name ("site 7" when they gave none; "an earlier save of this file"; "" unknown) */
  uint64_t seq;       /* the place of their change in the session's order, 0 when not known */
} ens_mirror_conflict;

typedef struct ens_mirror_result ens_mirror_result;

/* The editor saved the file: bytes is its whole content. A save identical
 * to a version the mirror knows changes nothing (the file holds that
 * version again). Otherwise the base is the known version the save is
 * closest to (the editor's previous save, what it opened, or the mirror's
 * last write for an editor that reloads), the save is merged onto the
 * session's document (ens_merge3: ours = the save, matched by identity
 * keys; theirs = the session; a conflicting property takes the save's
 * value, since the server orders the save after the collaborator's
 * change) and the user's changes are committed as one transaction. The
 * save becomes the version the file holds. Errors: ENS_EDECODE when the
 * bytes do not read (nothing changes: a save in progress, or a broken
 * file); ENS_ENOTFOUND when no version of the file is known yet and the
 * save's content differs from the session's (the host decides: it is not
 * this session's file); ENS_EINVAL before the session has its document;
 * others from the merge or the commit. While the session reconnects the
 * save is merged onto the document it holds and sent when it is back.
 * *out (may be NULL) is the caller's: ens_mirror_result_free. */
int ens_mirror_save(ens_mirror *mirror, const void *bytes, size_t len, ens_mirror_result **out);

/* The same for a save that may already have reached the session: the
 * host stopped between sending it and keeping the state that says so. It
 * is merged the same way, except that where the session's value differs
 * from the save's, the session's stands (a collaborator's change ordered
 * after the save must not be taken back); such conflicts are reported. */
int ens_mirror_recover(ens_mirror *mirror, const void *bytes, size_t len, ens_mirror_result **out);

/* 1 when bytes are a version the mirror knows (the file was not edited). */
int ens_mirror_knows(const ens_mirror *mirror, const void *bytes, size_t len);
/* How many versions the mirror holds now. */
size_t ens_mirror_version_count(const ens_mirror *mirror);

/* The result of a save: the operations committed, the base it was
 * compared with (for people: "the save at seq 12", "the version written at
 * seq 40"), and the conflicts. Everything borrowed from the result. */
size_t ens_mirror_result_ops(const ens_mirror_result *result);
const char *ens_mirror_result_base(const ens_mirror_result *result);
size_t ens_mirror_result_conflict_count(const ens_mirror_result *result);
const ens_mirror_conflict *ens_mirror_result_conflict_at(const ens_mirror_result *result, size_t i);
void ens_mirror_result_free(ens_mirror_result *result);

/* --- durable state ---------------------------------------------------------
 * So that a file edited while no mirror ran is merged, never overwritten,
 * the host keeps the version the file holds beside it. A state is the
 * version's document with the session's ids, the hash of the file's bytes
 * and the session's epoch, so another session's state is refused. */

typedef enum {
  ENS_MIRROR_CURRENT = 0, /* the version the file holds */
  ENS_MIRROR_RENDERED = 1 /* the last render, before it is written: kept first, so a crash never leaves
                             the file in a state nothing describes */
} ens_mirror_which;

/* *out is malloc'd (ens_free). ENS_ENOTFOUND when there is no such version. */
int ens_mirror_state_encode(const ens_mirror *mirror, ens_mirror_which which, unsigned char **out, size_t *len);
/* Adds a kept state as a version (once the session has its document): the file may
 * hold it, or an editor may still have it open. ENS_EDECODE for bytes that
 * are not a state (damaged), ENS_EINVAL for another session's state or
 * another format's. */
int ens_mirror_state_add(ens_mirror *mirror, const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif
