/* Private to `ensemble demo`: the state shared by the command (cmd_demo.c),
 * its script (demo_script.c) and the printing (demo_show.c). */
#ifndef ENS_CLI_DEMO_H
#define ENS_CLI_DEMO_H

#include <stddef.h>

#include "replica.h"

typedef struct {
  cli_replica alice, bob;
  int quiet;
  int steps;
  int local_steps; /* steps that sent nothing, by design */
  int failures;    /* expectations of the script that did not hold */
  size_t msgs, bytes;
  char *example_json; /* one transaction as bob received it (ens_free) */
  /* what the script edits, found in the sample */
  ens_id glyph, contour, point, victim;
} demo;

/* Runs the scripted steps; 0, or CLI_FAIL after printing why. */
int demo_play(demo *d);

/* One printed step: who did what (ops operations), what was sent, and
 * both replicas' hashes once delivered. */
void demo_show_step(demo *d, const cli_replica *who, const char *action, size_t ops, size_t msgs, size_t bytes);
/* An indented line of detail under the last step (not with --quiet). */
void demo_note(const demo *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Checks one promise of the design; a broken one is printed and counted. */
void demo_expect(demo *d, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prints what the undo manager skipped and why. */
void demo_show_skips(const demo *d, const cli_replica *who, const ens_undo_report *report);

/* Human names: `glyph "A"`, `point 4 of contour 1`. */
const char *demo_describe(const ens_doc *doc, ens_id id, char *buf, size_t size);
/* A number property as text ("1180", "1126.5"), "-" when absent. */
const char *demo_num(const ens_doc *doc, ens_id id, const char *key, char *buf, size_t size);

void demo_show_header(const demo *d);
/* The closing summary; returns 1 when both replicas hold the same document. */
int demo_show_summary(const demo *d);

#endif
