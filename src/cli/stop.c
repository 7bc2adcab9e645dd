/* How the long-running commands (serve, watch, join) stop: SIGINT and
 * SIGTERM only raise a flag, which their loops read between polls, so
 * that they end cleanly (a last checkpoint, a last write of the file, a
 * bye to the server) instead of dying mid-write. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <string.h>

#include "cli.h"

static volatile sig_atomic_t s_requested;

static void s_on_signal(int sig) {
  (void)sig;
  s_requested = 1;
}

void cli_stop_on_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = s_on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int cli_stop_requested(void) { return s_requested != 0; }
