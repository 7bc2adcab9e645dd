/* Private file helpers for format readers and writers: read a whole file
 * within a size limit, and replace a file atomically. */
#ifndef ENS_UTIL_FILE_H
#define ENS_UTIL_FILE_H

#include <stddef.h>

/* Reads path whole into *data (malloc'd, NUL after the last byte);
 * ENS_ELIMIT beyond max bytes, ENS_EIO when it cannot be read. */
int ens__file_read_all(const char *path, size_t max, char **data, size_t *len);

/* Writes data to a temporary file beside path, fsyncs it, renames it over
 * path and syncs the directory: readers see the old file or the new one,
 * never a part. */
int ens__file_write_atomic(const char *path, const void *data, size_t len);
/* The same with the file's mode (-1: 0666 less the umask) and, when
 * replace is 0, ENS_EEXISTS rather than replacing an existing path. */
int ens__file_write_atomic_ex(const char *path, const void *data, size_t len, int mode, int replace);

#endif
