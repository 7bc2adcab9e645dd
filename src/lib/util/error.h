/* Private error helpers: record the thread's last error message and return
 * its code, so a failing path reads `return ens__error(ENS_EINVAL, ...)`. */
#ifndef ENS_UTIL_ERROR_H
#define ENS_UTIL_ERROR_H

#include "ensemble/common.h"

#if defined(__GNUC__)
#define ENS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ENS_PRINTF(a, b)
#endif

int ens__error(int code, const char *fmt, ...) ENS_PRINTF(2, 3);
/* Prefix the current message ("op 3 (move): " + message), keep the code. */
int ens__error_prefix(int code, const char *fmt, ...) ENS_PRINTF(2, 3);
void ens__error_clear(void);

#endif
