/* Private file helpers for format readers and writers: read a whole file
 * within a size limit, and replace a file atomically. */
#ifndef ENS_UTIL_FILE_H
#define ENS_UTIL_FILE_H

#include <stddef.h>

#include "ensemble/file.h"

/* Reads path whole into *data (malloc'd, NUL after the last byte);
 * ENS_ELIMIT beyond max bytes, ENS_EIO when it cannot be read. */
int ens__file_read_all(const char *path, size_t max, char **data, size_t *len);

/* Writes data to a temporary file beside path, fsyncs it, renames it over
 * path and syncs the directory: readers see the old file or the new one,
 * never a part. A symbolic link is written through: its target is
 * replaced, in the target's directory, and the link stays. An existing
 * file keeps its mode and, where this process may give it, its owner.
 * The temporary file is ".NAME.tmp.ensemble-PID.XXXXXX" beside the target. */
int ens__file_write_atomic(const char *path, const void *data, size_t len);
/* The same with the file's mode (-1: an existing file's, else 0666 less
 * the umask) and, when replace is 0, ENS_EEXISTS rather than replacing an
 * existing path. */
int ens__file_write_atomic_ex(const char *path, const void *data, size_t len, int mode, int replace);

/* The same in pieces, for a writer that makes its text as it writes:
 * open makes the temporary file; write appends to it; start_writeback
 * asks the kernel to begin putting bytes from offset `from` on the device
 * while the writer goes on (the final fsync then waits for less); finish
 * takes the first error so far (0: none) and either removes the
 * temporary file or fsyncs, renames (links when replace is 0) and syncs
 * the directory, as ens__file_write_atomic_ex. finish is called once
 * after a successful open, whatever happened in between. */
typedef struct {
  const char *path;
  char *tmp;
  char *target; /* path with its symbolic links followed */
  int fd;
  size_t written;
  ens_file_check_fn check; /* asked before the rename (NULL after open); 1 from finish when it refuses */
  void *check_user;
} ens__file_atomic;

int ens__file_atomic_open(ens__file_atomic *f, const char *path);
int ens__file_atomic_write(ens__file_atomic *f, const void *data, size_t len);
void ens__file_atomic_start_writeback(ens__file_atomic *f, size_t from);
int ens__file_atomic_finish(ens__file_atomic *f, int rc, int mode, int replace);

/* path with its symbolic links followed to the name they end at (which
 * may not exist yet), malloc'd; NULL with errno (ELOOP past 40 links). */
char *ens__file_resolve(const char *path);

/* Removes the temporary files that writers of path (followed through its
 * links) left when they were killed: those named for a process that no
 * longer exists. Returns how many went. _dir_temps: of any file in dir. */
int ens__file_clean_temps(const char *path);
int ens__file_clean_dir_temps(const char *dir);

#endif
