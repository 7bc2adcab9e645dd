/* Whole-file reads and atomic writes for the commands that take and make
 * files, with the message a command prints. The work is the library's
 * (ensemble/file.h), so the tool saves exactly as the library does. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_read_file(const char *path, size_t max, char **data, size_t *len, char *err, size_t err_size) {
  if (ens_file_read(path, max, data, len) == 0) return 0;
  snprintf(err, err_size, "%s", ens_error_last());
  return -1;
}

char *cli_temp_prefix(const char *base) { return ens_file_temp_prefix(base); }

char *cli_resolve_links(const char *path) { return ens_file_resolve(path); }

int cli_clean_temps(const char *path) { return ens_file_clean_temps(path); }

int cli_write_atomic(const char *path, const void *data, size_t len, char *err, size_t err_size) {
  return cli_write_atomic_check(path, data, len, NULL, NULL, err, err_size) == 0 ? 0 : -1;
}

int cli_write_atomic_check(const char *path, const void *data, size_t len, cli_before_rename_fn check, void *user,
                           char *err, size_t err_size) {
  ens_file_write_opts opts = {.mode = -1, .check = check, .check_user = user};
  int rc = ens_file_write_atomic(path, data, len, &opts);
  if (rc < 0) {
    snprintf(err, err_size, "%s", ens_error_last());
    return -1;
  }
  return rc;
}
