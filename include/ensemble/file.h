/* Ensemble file helpers: whole-file reads within a limit and atomic file
 * replacement, the way every Ensemble writer saves (a crash or a full disk
 * never leaves half a file; a rewrite keeps the file's mode, owner and
 * symbolic link; what a killed writer left is cleaned up). Public so that
 * tools built on the library save user files the same way it does. */
#ifndef ENSEMBLE_FILE_H
#define ENSEMBLE_FILE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads path whole into *data (NUL after the last byte, the caller's: free
 * with ens_free) and its length into *len. Reads to the end even when the
 * file grows meanwhile. ENS_ELIMIT beyond max bytes, ENS_EIO when it cannot
 * be read (a directory, no permission); *data is NULL on error. */
int ens_file_read(const char *path, size_t max, char **data, size_t *len);

/* Asked once the temporary file tmp holds every byte durably, right before
 * it replaces path: nonzero keeps path as it is. */
typedef int (*ens_file_check_fn)(const char *path, const char *tmp, void *user);

typedef struct {
  int mode;               /* -1: an existing file's mode, else 0666 less the umask; else this mode */
  int no_replace;         /* 1: ENS_EEXISTS rather than replacing an existing path */
  ens_file_check_fn check; /* may be NULL */
  void *check_user;
} ens_file_write_opts;

/* Writes data to a temporary file beside path (through symbolic links, in
 * the directory of the file they name), fsyncs it, renames it over path
 * and syncs the directory: readers see the old file or the new one, never
 * a part. An existing file keeps its mode and, where this process may give
 * it, its owner. Temporary files left by killed writers of path are removed
 * first. opts may be NULL (replace, keep the mode, no check). Returns 0
 * when written, 1 when opts->check refused (path untouched, the temporary
 * file removed), or a negative ENS_E* code with ens_error_last(). */
int ens_file_write_atomic(const char *path, const void *data, size_t len, const ens_file_write_opts *opts);

/* path with its symbolic links followed to the name they end at (which
 * may not exist yet); the caller's (ens_free). NULL with errno set (ELOOP
 * past 40 links, ENOMEM). */
char *ens_file_resolve(const char *path);

/* How the temporary files of a file named base (a last path component)
 * begin: ".BASE.tmp.ensemble-"; the caller's (ens_free), NULL when out of
 * memory. A watcher of the directory tells a writer's rename by it. */
char *ens_file_temp_prefix(const char *base);

/* Removes the temporary files beside path (followed through its links)
 * that writers killed before their rename left: those named for a process
 * that no longer exists. Returns how many went. */
int ens_file_clean_temps(const char *path);

#ifdef __cplusplus
}
#endif
#endif
