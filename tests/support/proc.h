/* Test helpers for tests that run the `ensemble` binary in a child process
 * (a server, a command) and for the scratch files around it. They return
 * errors instead of asserting, so a test chooses how to fail. */
#ifndef ENS_TEST_PROC_H
#define ENS_TEST_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* Makes a fresh directory /tmp/<prefix>-XXXXXX into dir: 0, or -1. */
int tu_temp_dir(char *dir, size_t size, const char *prefix);

/* Removes dir and everything below it: 0, or -1. */
int tu_rm_rf(const char *dir);

/* Writes text to path (created or truncated, not atomically: a test's own
 * scratch file): 0, or -1. */
int tu_write_text(const char *path, const char *text);

/* Starts `ensemble serve --bind tcp://127.0.0.1:* [--store STORE] FILE`
 * with the binary bin, its stderr to err_path, and waits up to wait_ms for
 * the line that names its endpoint. Returns 0 with *pid and endpoint set;
 * the exit status it ended with before that (minus the signal for a
 * signal); or 1000 when no line came within wait_ms (the child is killed). */
int tu_serve_start(const char *bin, const char *file, const char *store, const char *err_path, int wait_ms,
                   pid_t *pid, char *endpoint, size_t endpoint_size);

/* Sends sig to pid and waits for it: its exit status, minus the signal that
 * ended it, or -1000 when waitpid fails. */
int tu_proc_stop(pid_t pid, int sig);

#endif
