/* The thread's last error message, as libgit2 keeps it: set by the failing
 * function, read by the caller through ens_error_last(). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char s_message[512];

const char *ens_error_last(void) { return s_message; }

int ens__error(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s_message, sizeof s_message, fmt, ap);
  va_end(ap);
  return code;
}

int ens__error_prefix(int code, const char *fmt, ...) {
  char prefix[160];
  char old[sizeof s_message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, s_message, sizeof old);
  snprintf(s_message, sizeof s_message, "%s%s", prefix, old);
  return code;
}

void ens__error_clear(void) { s_message[0] = '\0'; }

const char *ens_error_name(int code) {
  switch (code) {
  case ENS_OK: return "ENS_OK";
  case ENS_ENOMEM: return "ENS_ENOMEM";
  case ENS_EINVAL: return "ENS_EINVAL";
  case ENS_ENOTFOUND: return "ENS_ENOTFOUND";
  case ENS_ECYCLE: return "ENS_ECYCLE";
  case ENS_EKIND: return "ENS_EKIND";
  case ENS_ETYPE: return "ENS_ETYPE";
  case ENS_EEXISTS: return "ENS_EEXISTS";
  case ENS_EDECODE: return "ENS_EDECODE";
  case ENS_ELIMIT: return "ENS_ELIMIT";
  case ENS_EIO: return "ENS_EIO";
  case ENS_EEMPTY: return "ENS_EEMPTY";
  case ENS_EFORMAT: return "ENS_EFORMAT";
  default: return "ENS_E?";
  }
}

void ens_free(void *ptr) { free(ptr); }
