/* One simulated collaborator of `ensemble demo` (demo.h): a session client
 * on a thread of its own that edits the way a type designer does, at a
 * steady pace: drags a few points of a glyph in small steps, changes an
 * advance width, undoes and redoes, and shows the others what it selected.
 * Every edit is built with the glyph API, one transaction per action. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"

/* Selections are relayed at most this often: a designer's eye, not a
 * stream. */
#define SELECTION_EVERY_US 200000
/* Undo steps kept: enough for any demo, bounded for a long one. */
#define UNDO_DEPTH 1000

struct demo_editor {
  demo_editor_opts o;
  char name[64];
  pthread_t thread;
  int started;
  _Atomic int phase;

  /* shared with the thread that reads the figures, under mu */
  pthread_mutex_t mu;
  demo_counts counts;
  demo_status status;
  demo_latency lat;

  /* the thread's own */
  ens_session *s;
  uint64_t rng;
  int64_t *sent_at; /* ring of commit times of the pending transactions, oldest first */
  size_t head, n, cap;
  int64_t last_selection;
  /* the drag in progress: which points, which way, how many steps left */
  size_t glyph;
  ens_glyph_pt pts[3];
  size_t npts;
  int drag_left;
  double dx, dy;
  int undoing; /* the last action was an undo: Ctrl-Z comes in runs, and a redo often follows */
};

/* --- small things ------------------------------------------------------------------ */

static uint32_t s_below(demo_editor *e, uint32_t n) {
  /* xorshift64*: plenty for choosing edits */
  e->rng ^= e->rng >> 12;
  e->rng ^= e->rng << 25;
  e->rng ^= e->rng >> 27;
  return (uint32_t)(((e->rng * 2685821657736338717ULL) >> 32) % n);
}

static double s_unit(demo_editor *e) { return s_below(e, 1u << 30) / (double)(1u << 30); }

static void s_count(demo_editor *e, uint64_t *field, uint64_t by) {
  pthread_mutex_lock(&e->mu);
  *field += by;
  pthread_mutex_unlock(&e->mu);
}

static int s_push(demo_editor *e, int64_t t) {
  if (e->n == e->cap) {
    size_t cap = e->cap ? e->cap * 2 : 256;
    int64_t *a = malloc(cap * sizeof *a);
    if (!a) return -1;
    for (size_t i = 0; i < e->n; i++) a[i] = e->sent_at[(e->head + i) % e->cap];
    free(e->sent_at);
    e->sent_at = a;
    e->cap = cap;
    e->head = 0;
  }
  e->sent_at[(e->head + e->n) % e->cap] = t;
  e->n++;
  return 0;
}

static int64_t s_pop(demo_editor *e) {
  if (!e->n) return -1;
  int64_t t = e->sent_at[e->head];
  e->head = (e->head + 1) % e->cap;
  e->n--;
  return t;
}

/* --- session events (in this collaborator's thread, during its poll) ----------------- */

static void s_on_event(ens_session *s, const ens_session_event *ev, void *user) {
  (void)s;
  demo_editor *e = user;
  /* the server answers a client's transactions in the order they were
   * sent, so the oldest commit time is the one this answer is for */
  int64_t t = ev->kind == ENS_SESSION_ACKED || ev->kind == ENS_SESSION_REJECTED ? s_pop(e) : -1;
  pthread_mutex_lock(&e->mu);
  switch (ev->kind) {
  case ENS_SESSION_ACKED:
    e->counts.acked++;
    if (ev->seq > e->counts.max_seq) e->counts.max_seq = ev->seq;
    if (t >= 0) demo_latency_add(&e->lat, demo_now_us() - t);
    break;
  case ENS_SESSION_REJECTED: e->counts.rejected++; break;
  case ENS_SESSION_JOINED:
  case ENS_SESSION_PRESENCE: e->counts.presence += ev->selection_count > 0; break;
  case ENS_SESSION_FAILED:
    e->status.failed = 1;
    snprintf(e->status.error, sizeof e->status.error, "refused by the server: %s",
             ev->message ? ev->message : "?");
    break;
  default: break;
  }
  pthread_mutex_unlock(&e->mu);
}

/* --- the glyph being edited ---------------------------------------------------------- */

/* The foreground layer: index 1, else a layer without a marker. */
static const ens_obj *s_fore(const ens_obj *glyph) {
  const ens_obj *unmarked = NULL;
  for (size_t i = 0; i < ens_obj_child_count(glyph); i++) {
    const ens_obj *k = ens_obj_child(glyph, i);
    ens_value v;
    if (strcmp(ens_obj_kind(k), ENS_SFD_LAYER) != 0) continue;
    if (ens_obj_get(k, "index", &v) == 0 && v.type == ENS_INT) {
      if (v.u.i == 1) return k;
    } else if (!unmarked) {
      unmarked = k;
    }
  }
  return unmarked;
}

/* Children of o of kind; *nth_obj (when nth_obj) gets the one numbered nth. */
static size_t s_kids(const ens_obj *o, const char *kind, size_t nth, const ens_obj **nth_obj) {
  size_t n = 0;
  for (size_t i = 0; o && i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    if (strcmp(ens_obj_kind(k), kind) != 0) continue;
    if (nth_obj && n == nth) *nth_obj = k;
    n++;
  }
  return n;
}

/* --- actions ---------------------------------------------------------------------- */

/* Commits one transaction (or an undo or redo, through fn) and remembers
 * when, for each transaction it queued for the server. */
static int s_queue_times(demo_editor *e, size_t before) {
  size_t after = ens_session_pending(e->s);
  int64_t now = demo_now_us();
  for (size_t i = before; i < after; i++)
    if (s_push(e, now)) return -1;
  if (after > before) s_count(e, &e->counts.committed, after - before);
  return 0;
}

static void s_commit(demo_editor *e, ens_txn *t, int rc) {
  size_t before = ens_session_pending(e->s);
  if (rc == 0) rc = ens_session_commit(e->s, t);
  ens_txn_free(t);
  if (rc || s_queue_times(e, before)) {
    s_count(e, &e->counts.local_errors, 1);
    e->drag_left = 0;
    return;
  }
  s_count(e, &e->counts.edits, 1);
}

static void s_drag_step(demo_editor *e, ens_doc *doc) {
  ens_txn *t = NULL;
  int rc = ens_glyph_move_points(doc, e->o.glyphs[e->glyph], e->pts, e->npts, e->dx, e->dy, &t);
  s_commit(e, t, rc);
  e->drag_left--;
}

static void s_start_drag(demo_editor *e, ens_doc *doc) {
  e->glyph = s_below(e, (uint32_t)e->o.nglyphs);
  const ens_obj *fore = s_fore(ens_glyph_find(doc, e->o.glyphs[e->glyph])), *contour = NULL;
  size_t nc = s_kids(fore, ENS_SFD_CONTOUR, 0, NULL);
  if (!nc) {
    s_count(e, &e->counts.local_errors, 1);
    return;
  }
  size_t c = s_below(e, (uint32_t)nc);
  s_kids(fore, ENS_SFD_CONTOUR, c, &contour);
  size_t np = s_kids(contour, ENS_SFD_POINT, 0, NULL);
  /* in a closed contour the last point line repeats the first */
  size_t usable = np > 1 && ens_sfd_contour_closed(contour) ? np - 1 : np;
  if (!usable) {
    s_count(e, &e->counts.local_errors, 1);
    return;
  }
  size_t k = 1 + s_below(e, 3), first = s_below(e, (uint32_t)usable);
  if (k > usable) k = usable;
  ens_id ids[3];
  for (size_t i = 0; i < k; i++) {
    const ens_obj *p = NULL;
    e->pts[i].contour = c;
    e->pts[i].point = (first + i) % usable;
    s_kids(contour, ENS_SFD_POINT, e->pts[i].point, &p);
    ids[i] = p ? ens_obj_id(p) : 0;
  }
  e->npts = k;
  do {
    e->dx = (double)s_below(e, 7) - 3;
    e->dy = (double)s_below(e, 7) - 3;
  } while (e->dx == 0 && e->dy == 0);
  e->drag_left = 5 + (int)s_below(e, 21);
  int64_t now = demo_now_us();
  if (now - e->last_selection >= SELECTION_EVERY_US && ens_session_set_selection(e->s, ids, k) == 0) {
    e->last_selection = now;
    s_count(e, &e->counts.selections, 1);
  }
  s_drag_step(e, doc);
}

static void s_set_width(demo_editor *e, ens_doc *doc) {
  e->glyph = s_below(e, (uint32_t)e->o.nglyphs);
  const ens_obj *g = ens_glyph_find(doc, e->o.glyphs[e->glyph]);
  ens_value v;
  double w = g && ens_obj_get(g, "width", &v) == 0 ? (v.type == ENS_INT ? (double)v.u.i : v.type == ENS_REAL ? v.u.r : 0) : 0;
  int step = (int)s_below(e, 41) - 20;
  int width = (int)w + (step ? step : 10);
  if (width < 0) width = 0;
  if (width > 32767) width = 32767;
  ens_txn *t = NULL;
  int rc = ens_glyph_set_width(doc, e->o.glyphs[e->glyph], width, &t);
  e->drag_left = 0;
  s_commit(e, t, rc);
}

static void s_undo_or_redo(demo_editor *e, int redo) {
  ens_undo_report report;
  memset(&report, 0, sizeof report);
  size_t before = ens_session_pending(e->s);
  int rc = redo ? ens_session_redo(e->s, &report) : ens_session_undo(e->s, &report);
  e->drag_left = 0;
  if (rc == 0 && s_queue_times(e, before) == 0) {
    pthread_mutex_lock(&e->mu);
    if (redo) e->counts.redos++;
    else e->counts.undos++;
    e->undoing = !redo;
    e->counts.skipped += report.skipped;
    pthread_mutex_unlock(&e->mu);
  } else if (rc != ENS_EEMPTY) {
    s_count(e, &e->counts.local_errors, 1);
  }
  ens_undo_report_clear(&report);
}

/* One user action. */
static void s_act(demo_editor *e) {
  ens_doc *doc = ens_session_doc(e->s);
  ens_undo *undo = ens_session_undo_manager(e->s);
  if (!doc || !undo) return;
  if (e->drag_left > 0 && s_below(e, 100) < 85) {
    s_drag_step(e, doc);
    return;
  }
  uint32_t r = s_below(e, 100);
  if (e->undoing) {
    e->undoing = 0;
    if (r < 40 && ens_undo_undo_count(undo)) {
      s_undo_or_redo(e, 0);
      return;
    }
    if (r < 70 && ens_undo_redo_count(undo)) {
      s_undo_or_redo(e, 1);
      return;
    }
    r = s_below(e, 100);
  }
  if (r < 40) s_start_drag(e, doc);
  else if (r < 55) s_set_width(e, doc);
  else if (r < 80 && ens_undo_undo_count(undo)) s_undo_or_redo(e, 0);
  else if (r >= 80 && ens_undo_redo_count(undo)) s_undo_or_redo(e, 1);
  else s_start_drag(e, doc);
}

/* --- the thread ------------------------------------------------------------------- */

static void s_fail(demo_editor *e, const char *what) {
  pthread_mutex_lock(&e->mu);
  if (!e->status.failed) snprintf(e->status.error, sizeof e->status.error, "%s: %s", what, ens_error_last());
  e->status.failed = 1;
  pthread_mutex_unlock(&e->mu);
}

static void *s_run(void *arg) {
  demo_editor *e = arg;
  ens_session_opts so;
  memset(&so, 0, sizeof so);
  so.endpoint = e->o.endpoint;
  so.name = e->name;
  so.colour = e->o.colour;
  so.undo_depth = UNDO_DEPTH;
  so.on_event = s_on_event;
  so.user = e;
  so.zmq_context = e->o.zmq_context;
  /* the session is made here so that its socket lives in this thread */
  if (ens_session_new(&so, &e->s)) {
    s_fail(e, "joining");
    return NULL;
  }
  double interval = 1e6 / e->o.rate;
  int64_t next = demo_now_us();
  int phase;
  while ((phase = atomic_load(&e->phase)) != DEMO_QUIT) {
    int wait_ms = 50;
    if (phase == DEMO_EDIT && ens_session_is_live(e->s)) {
      int64_t now = demo_now_us();
      if (next < now - 100000) next = now; /* after joining or a stall: no burst to catch up */
      if (now >= next) {
        s_act(e);
        next += (int64_t)(interval * (0.5 + s_unit(e))); /* uneven, as hands are */
        now = demo_now_us();
      }
      wait_ms = next > now ? (int)((next - now + 999) / 1000) : 0;
      if (wait_ms > 50) wait_ms = 50;
    }
    int rc = ens_session_poll(e->s, wait_ms);
    size_t pending = ens_session_pending(e->s);
    while (e->n > pending) s_pop(e); /* transactions dropped without an answer (a reset) */
    pthread_mutex_lock(&e->mu);
    e->status.live = ens_session_is_live(e->s);
    e->status.pending = pending;
    e->status.seq = ens_session_seq(e->s);
    e->status.site = ens_session_site(e->s);
    pthread_mutex_unlock(&e->mu);
    if (rc) {
      s_fail(e, "session");
      break;
    }
  }
  return NULL;
}

int demo_editor_start(const demo_editor_opts *opts, demo_editor **out) {
  *out = NULL;
  if (!opts->nglyphs || opts->rate <= 0) return ENS_EINVAL;
  demo_editor *e = calloc(1, sizeof *e);
  if (!e) return ENS_ENOMEM;
  e->o = *opts;
  snprintf(e->name, sizeof e->name, "%s", opts->name);
  e->o.name = e->name;
  e->rng = opts->seed * 0x9E3779B97F4A7C15ULL + 1;
  atomic_init(&e->phase, DEMO_EDIT);
  pthread_mutex_init(&e->mu, NULL);
  if (pthread_create(&e->thread, NULL, s_run, e) != 0) {
    pthread_mutex_destroy(&e->mu);
    free(e);
    return ENS_EIO;
  }
  e->started = 1;
  *out = e;
  return 0;
}

void demo_editor_set_phase(demo_editor *e, demo_phase phase) { atomic_store(&e->phase, (int)phase); }

void demo_editor_read(demo_editor *e, demo_counts *counts, demo_status *status, demo_latency *lat) {
  pthread_mutex_lock(&e->mu);
  if (counts) *counts = e->counts;
  if (status) *status = e->status;
  if (lat) demo_latency_merge(lat, &e->lat);
  pthread_mutex_unlock(&e->mu);
}

const char *demo_editor_name(const demo_editor *e) { return e->name; }

void demo_editor_join(demo_editor *e) {
  if (!e || !e->started) return;
  demo_editor_set_phase(e, DEMO_QUIT);
  pthread_join(e->thread, NULL);
  e->started = 0;
}

ens_session *demo_editor_session(demo_editor *e) { return e->started ? NULL : e->s; }

void demo_editor_free(demo_editor *e) {
  if (!e) return;
  demo_editor_join(e);
  ens_session_free(e->s);
  pthread_mutex_destroy(&e->mu);
  free(e->sent_at);
  free(e);
}
