/* Whole reads and writes on a pipe, the reads against a deadline: what the
 * renderers' parents and their child processes (formats/svg/render.c,
 * formats/lottie/render*.c) exchange frames through. */
#ifndef ENS_UTIL_PIPE_H
#define ENS_UTIL_PIPE_H

#include <stddef.h>

/* Writes all n bytes (again after EINTR): 0, or -1 when the pipe closed or
 * failed. */
int ens__pipe_write_all(int fd, const void *p, size_t n);

/* The monotonic clock in milliseconds, for deadlines. */
double ens__pipe_now_ms(void);

/* Reads n bytes before deadline (ens__pipe_now_ms time): 0, 1 when the
 * deadline passed first, -1 at the end of the pipe or on an error. */
int ens__pipe_read_all(int fd, void *p, size_t n, double deadline);

#endif
