/* Where serve and demo find the web client's files when --web-root is not
 * given: web/ beside the program (the build tree puts it there), else
 * ../share/ensemble/web from the program's directory (an install, moved
 * or not), else the PREFIX/share/ensemble/web the build was configured
 * with. */
#define _DEFAULT_SOURCE /* realpath */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#ifndef ENS_DATA_DIR
#define ENS_DATA_DIR "/usr/local/share/ensemble"
#endif

const char *cli_web_root(char *buf, size_t cap) {
  struct stat st;
  char *self = realpath("/proc/self/exe", NULL);
  if (self) {
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    const char *const beside[] = {"/web", "/../share/ensemble/web"};
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
      snprintf(buf, cap, "%s%s", self, beside[i]);
      if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) {
        free(self);
        return buf;
      }
    }
    free(self);
  }
  snprintf(buf, cap, "%s", ENS_DATA_DIR "/web");
  return buf;
}
