/* Private to `ensemble demo`: a session hosted in this process on a bundled
 * font, with simulated collaborators each on a thread of their own
 * (demo_editor.c), the latency figures (demo_latency.c), the progress line
 * and the report (demo_report.c), tied together by cmd_demo.c. */
#ifndef ENS_CLI_DEMO_H
#define ENS_CLI_DEMO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ensemble.h"

/* Monotonic microseconds. */
int64_t demo_now_us(void);

/* --- latency: commit to acknowledgement ------------------------------------------
 * A histogram with buckets 1/32 of a power of two wide (about 2%), so that
 * a run of any length keeps a fixed size and percentiles cost nothing. */

#define DEMO_LAT_BUCKETS (32 * 27) /* up to 2^27 us, over two minutes */

typedef struct {
  uint32_t count[DEMO_LAT_BUCKETS];
  uint64_t n;
} demo_latency;

void demo_latency_add(demo_latency *l, int64_t us);
void demo_latency_merge(demo_latency *into, const demo_latency *from);
/* The q-quantile (0 < q <= 1) in milliseconds; -1 when there is no sample. */
double demo_latency_ms(const demo_latency *l, double q);

/* --- a simulated collaborator ------------------------------------------------------ */

/* What a collaborator has done and seen so far. */
typedef struct {
  uint64_t committed;  /* its transactions queued for the server (edits, undos, redos) */
  uint64_t acked;      /* of those, acknowledged: durable on the server */
  uint64_t rejected;   /* of those, refused by the server */
  uint64_t edits;      /* point moves and width changes */
  uint64_t undos, redos;
  uint64_t skipped;    /* properties an undo or redo left alone: a collaborator changed them since */
  uint64_t local_errors; /* edits the glyph API refused to build, or that failed to apply */
  uint64_t selections; /* selections relayed */
  uint64_t presence;   /* collaborators' selections received */
  uint64_t max_seq;    /* highest sequence number among its acknowledgements */
} demo_counts;

/* What main needs to decide when the run is over. */
typedef struct {
  int live;        /* joined and caught up */
  int failed;      /* the session stopped with an error (message in error) */
  size_t pending;  /* transactions not yet acknowledged */
  uint64_t seq;    /* last sequence number applied */
  uint32_t site;
  char error[256];
} demo_status;

typedef enum {
  DEMO_EDIT,    /* edit at the given rate */
  DEMO_DRAIN,   /* stop editing; keep the session going until all is acknowledged */
  DEMO_QUIT     /* stop polling: the session is main's again after demo_editor_join */
} demo_phase;

typedef struct demo_editor demo_editor;

typedef struct {
  const char *endpoint;
  const char *name;
  uint32_t colour;
  double rate;        /* user actions per second */
  uint64_t seed;
  void *zmq_context;  /* shared, borrowed */
  const char *const *glyphs; /* the glyphs it edits, borrowed until joined */
  size_t nglyphs;
} demo_editor_opts;

/* Starts a collaborator on its own thread: it joins the session, then
 * edits until told otherwise. The caller owns *out: demo_editor_join, then
 * demo_editor_free. */
int demo_editor_start(const demo_editor_opts *opts, demo_editor **out);
void demo_editor_set_phase(demo_editor *e, demo_phase phase);
/* Copies of its figures; lat (may be NULL) gets its latencies added. */
void demo_editor_read(demo_editor *e, demo_counts *counts, demo_status *status, demo_latency *lat);
const char *demo_editor_name(const demo_editor *e);
/* Sets DEMO_QUIT and waits for the thread. Afterwards the session belongs
 * to the caller's thread. */
void demo_editor_join(demo_editor *e);
/* The collaborator's session (NULL when it never started); only after
 * demo_editor_join. Borrowed. */
ens_session *demo_editor_session(demo_editor *e);
/* Frees the session too. Accepts NULL. */
void demo_editor_free(demo_editor *e);

/* --- progress and report ---------------------------------------------------------- */

/* Everything the report says. */
typedef struct {
  const char *font;
  size_t glyphs, objects;
  const char *const *edited; /* the glyphs edited */
  size_t nedited;
  const char *names; /* the collaborators, "Ada, Bram, Chen" */
  int clients, connected;
  double seconds, rate;
  double edit_seconds; /* how long they really edited */
  double settle_seconds; /* from the end of editing until every replica was at the server's head */
  double wall_seconds;   /* the whole run */
  demo_counts total;
  double p50_ms, p99_ms;
  uint64_t final_seq;
  uint64_t hash;
  int converged;
  const char *differs; /* a description of the replicas that differ, or NULL */
  const char *out;
  int written;
  int reads_back; /* the written file read again holds the same content */
} demo_report;

/* One progress line: elapsed, clients connected, acknowledged,
 * transactions per second, latency, rejects, undo skips. */
void demo_progress_line(char *buf, size_t size, double elapsed, int connected, int clients,
                        const demo_counts *total, double rate_now, const demo_latency *lat);
void demo_report_text(FILE *out, const demo_report *r);
void demo_report_json(FILE *out, const demo_report *r);

#endif
