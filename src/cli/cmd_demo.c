/* `ensemble demo`: hosts a real-time session in this process on the
 * bundled font, lets simulated collaborators edit it together for a few
 * seconds (moves, widths, undo, redo, selections), shows the traffic as it
 * happens, then checks that every replica converged on the server's
 * document and writes the result atomically. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "cli.h"
#include "demo.h"

#ifndef ENS_SOURCE_DIR
#define ENS_SOURCE_DIR "."
#endif
#ifndef ENS_BUILD_DIR
#define ENS_BUILD_DIR "build"
#endif
#define DEMO_FONT ENS_SOURCE_DIR "/examples/LibertinusMono-Regular.sfd"
#define DEMO_OUT_DIR ENS_BUILD_DIR "/demo"
#define DEMO_OUT DEMO_OUT_DIR "/demo-final.sfd"

#define MAX_CLIENTS 8
/* How long the replicas may take to catch up once editing stops. */
#define SETTLE_SECONDS 10
#define CONNECT_SECONDS 10 /* the longest the editing time waits for everyone to connect */

static const cli_option s_options[] = {
    {"seconds", 's', "S", "how long the collaborators edit (default 5)"},
    {"clients", 'c', "N", "how many collaborators, 1 to 8 (default 3)"},
    {"rate", 'r', "N", "actions per second of each collaborator (default 200)"},
    {"font", 0, "FILE", "the font to edit (default examples/LibertinusMono-Regular.sfd)"},
    {"out", 'o', "FILE", "where to write the final font (default build/demo/demo-final.sfd)"},
    {"seed", 0, "N", "seed of the collaborators' choices (default 1)"},
    {"json", 0, NULL, "print the report as one JSON object instead of text"},
    {"quiet", 'q', NULL, "no progress line, only the report"},
    {"http", 0, "ADDR:PORT", "also serve the session to browsers (this machine only): prints the page's address"},
    {0}};

static const cli_spec s_spec = {
    "demo", "[options]",
    "Hosts a real-time session in this process on a bundled font (Libertinus\n"
    "Mono, OFL): a server on its own thread with its log in a temporary\n"
    "directory, and simulated collaborators (Ada, Bram, Chen, ...) that join it\n"
    "over loopback TCP and edit the glyphs of the word \"Ensemble\" at the same\n"
    "time: they drag points, change advance widths, undo and redo their own\n"
    "steps and relay their selections. A progress line shows the clients\n"
    "connected, transactions acknowledged, transactions per second, the latency\n"
    "from commit to acknowledgement (p50, p99), rejects and undo skips.\n"
    "When the time is up, every replica must catch up with the server and hold\n"
    "the same document: the report ends with 'converged' (exit 0) or names the\n"
    "replica that differs (exit 1). The final font is written atomically to\n"
    "the --out file and read back. With --http, the session is also served to\n"
    "browsers on this machine (the web client, as serve --http does) and the\n"
    "page's address is printed before the editing starts.",
    s_options, 0, 0};

static const char *const s_names[MAX_CLIENTS] = {"Ada", "Bram", "Chen", "Dana", "Eli", "Fay", "Gus", "Hana"};
static const uint32_t s_colours[MAX_CLIENTS] = {0xe6194b, 0x3cb44b, 0x4363d8, 0xf58231,
                                                0x911eb4, 0x42d4f4, 0xf032e6, 0x9a6324};
/* The glyphs of the word "Ensemble", each once. */
static const char *const s_word[] = {"E", "n", "s", "e", "m", "b", "l"};
#define MAX_GLYPHS 8

static volatile sig_atomic_t s_interrupted;
static void s_on_signal(int sig) {
  (void)sig;
  s_interrupted = 1;
}

typedef struct {
  /* options */
  const char *font, *out, *http;
  double seconds, rate;
  int clients, json, quiet;
  uint64_t seed;
  /* the run */
  ens_doc *doc;
  const char *glyphs[MAX_GLYPHS];
  char glyph_names[MAX_GLYPHS][64]; /* of glyphs not in s_word */
  size_t nglyphs;
  char dir[256], store[300];
  int have_dir;
  ens_server *srv;
  void *zctx;
  demo_editor *ed[MAX_CLIENTS];
  int tty;
  double t0;
} s_demo;

static double s_now(void) { return (double)demo_now_us() / 1e6; }

static void s_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* --- choosing what to edit ----------------------------------------------------------- */

/* A glyph the collaborators can edit: a foreground outline whose points
 * move, and a width of its own. Tried on the document without applying. */
static int s_editable(ens_doc *doc, const char *name) {
  const ens_obj *g = ens_glyph_find(doc, name);
  ens_value w;
  if (!g || ens_obj_get(g, "width", &w) != 0 || w.type != ENS_INT) return 0;
  ens_glyph_pt pt = {0, 0};
  ens_txn *t = NULL;
  int ok = ens_glyph_move_points(doc, name, &pt, 1, 1, 0, &t) == 0;
  ens_txn_free(t);
  t = NULL;
  ok = ok && ens_glyph_set_width(doc, name, (int)w.u.i + 1, &t) == 0;
  ens_txn_free(t);
  return ok;
}

/* The letters of "Ensemble" the font has; else its first editable glyphs. */
static void s_pick_glyphs(s_demo *d) {
  for (size_t i = 0; i < sizeof s_word / sizeof s_word[0]; i++)
    if (s_editable(d->doc, s_word[i])) d->glyphs[d->nglyphs++] = s_word[i];
  if (d->nglyphs >= 3) return;
  d->nglyphs = 0;
  const ens_obj *root = ens_doc_root(d->doc);
  for (size_t i = 0; i < ens_obj_child_count(root) && d->nglyphs < MAX_GLYPHS; i++) {
    const ens_obj *g = ens_obj_child(root, i);
    ens_value name;
    if (strcmp(ens_obj_kind(g), ENS_SFD_GLYPH) != 0 || ens_obj_get(g, "name", &name) != 0 || name.type != ENS_STR)
      continue;
    char *buf = d->glyph_names[d->nglyphs];
    if (name.u.s.len >= sizeof d->glyph_names[0]) continue;
    memcpy(buf, name.u.s.ptr, name.u.s.len);
    buf[name.u.s.len] = '\0';
    if (s_editable(d->doc, buf)) d->glyphs[d->nglyphs++] = buf;
  }
}

static size_t s_count_glyphs(const ens_doc *doc) {
  const ens_obj *root = ens_doc_root(doc);
  size_t n = 0;
  for (size_t i = 0; i < ens_obj_child_count(root); i++) n += !strcmp(ens_obj_kind(ens_obj_child(root, i)), ENS_SFD_GLYPH);
  return n;
}

/* --- the temporary directory of the session log --------------------------------------- */

static int s_make_dir(s_demo *d) {
  const char *tmp = getenv("TMPDIR");
  snprintf(d->dir, sizeof d->dir, "%s/ensemble-demo-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(d->dir)) return cli_fail("demo", "cannot make a temporary directory in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
  d->have_dir = 1;
  snprintf(d->store, sizeof d->store, "%s/session.db", d->dir);
  return 0;
}

/* Removes the directory and the files in it (the log and SQLite's own). */
static void s_remove_dir(s_demo *d) {
  if (!d->have_dir) return;
  DIR *dir = opendir(d->dir);
  if (dir) {
    struct dirent *de;
    char path[600];
    while ((de = readdir(dir)) != NULL) {
      if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
      snprintf(path, sizeof path, "%s/%s", d->dir, de->d_name);
      unlink(path);
    }
    closedir(dir);
  }
  if (rmdir(d->dir) != 0) fprintf(stderr, "ensemble demo: could not remove %s: %s\n", d->dir, strerror(errno));
  d->have_dir = 0;
}

/* --- progress -------------------------------------------------------------------------- */

typedef struct {
  demo_counts total;
  demo_latency lat;
  int connected, failed;
  size_t pending;
  char error[300];
} s_totals;

static void s_gather(s_demo *d, s_totals *t) {
  memset(t, 0, sizeof *t);
  for (int k = 0; k < d->clients; k++) {
    demo_counts c;
    demo_status st;
    demo_editor_read(d->ed[k], &c, &st, &t->lat);
    t->total.committed += c.committed;
    t->total.acked += c.acked;
    t->total.rejected += c.rejected;
    t->total.edits += c.edits;
    t->total.undos += c.undos;
    t->total.redos += c.redos;
    t->total.skipped += c.skipped;
    t->total.local_errors += c.local_errors;
    t->total.selections += c.selections;
    t->total.presence += c.presence;
    if (c.max_seq > t->total.max_seq) t->total.max_seq = c.max_seq;
    t->connected += st.live;
    t->pending += st.pending;
    if (st.failed && !t->failed) snprintf(t->error, sizeof t->error, "%s: %s", demo_editor_name(d->ed[k]), st.error);
    t->failed += st.failed;
  }
}

typedef struct {
  double last_print, last_time;
  uint64_t last_acked;
  double rate;
} s_ticker;

static void s_progress(s_demo *d, s_ticker *tk, const s_totals *t, int force) {
  double now = s_now(), every = d->tty ? 0.25 : 1.0;
  if (d->quiet || (!force && now - tk->last_print < every)) return;
  /* the closing line repeats nothing a line just said */
  if (force && !d->tty && t->total.acked == tk->last_acked) return;
  if (now - tk->last_time >= 0.2) { /* a rate over a shorter time is noise */
    tk->rate = (double)(t->total.acked - tk->last_acked) / (now - tk->last_time);
    tk->last_time = now;
    tk->last_acked = t->total.acked;
  }
  tk->last_print = now;
  char line[256];
  demo_progress_line(line, sizeof line, now - d->t0, t->connected, d->clients, &t->total, tk->rate, &t->lat);
  /* a line rewritten in place must not wrap: \r goes back to the start of
   * the last row only */
  struct winsize ws;
  if (d->tty && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && ws.ws_col <= sizeof line)
    line[ws.ws_col - 1] = '\0';
  if (d->tty) fprintf(stderr, "\r%s\033[K", line);
  else fprintf(stderr, "%s\n", line);
  fflush(stderr);
}

/* --- the run -------------------------------------------------------------------------- */

static int s_host(s_demo *d) {
  ens_server_opts o;
  memset(&o, 0, sizeof o);
  o.endpoint = "tcp://127.0.0.1:*";
  o.store_path = d->store;
  o.initial = d->doc;
  if (ens_server_new(&o, &d->srv)) return cli_fail("demo", "hosting the session: %s", ens_error_last());
  if (d->http) {
    char root[4096];
    ens_server_http_opts h = {d->http, NULL, NULL, cli_web_root(root, sizeof root), NULL, 0};
    if (ens_server_http(d->srv, &h)) return cli_fail("demo", "serving browsers: %s", ens_error_last());
  }
  if (ens_server_start(d->srv)) return cli_fail("demo", "starting the server thread: %s", ens_error_last());
  if (!(d->zctx = zmq_ctx_new())) return cli_fail("demo", "a ZeroMQ context: %s", zmq_strerror(errno));
  for (int k = 0; k < d->clients; k++) {
    demo_editor_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.endpoint = ens_server_endpoint(d->srv);
    eo.name = s_names[k];
    eo.colour = s_colours[k];
    eo.rate = d->rate;
    eo.seed = d->seed * 1000003u + (uint64_t)k;
    eo.zmq_context = d->zctx;
    eo.glyphs = d->glyphs;
    eo.nglyphs = d->nglyphs;
    if (demo_editor_start(&eo, &d->ed[k])) return cli_fail("demo", "starting %s: cannot make a thread", s_names[k]);
  }
  return 0;
}

/* Edits until the time is up (or ^C), then lets every transaction be
 * acknowledged. 0, or CLI_FAIL after saying why. */
static int s_edit_and_drain(s_demo *d, s_totals *t, double *edit_seconds) {
  s_ticker tk;
  memset(&tk, 0, sizeof tk);
  tk.last_time = d->t0;
  tk.last_print = d->t0 - 10;
  /* the time asked for is time spent editing together: it runs from when
   * every collaborator is connected (a loaded machine may take a while),
   * or from CONNECT_SECONDS after the start for those that never are */
  double end = 0, connect_by = d->t0 + CONNECT_SECONDS;
  for (;;) {
    s_gather(d, t);
    if (t->failed) break;
    s_progress(d, &tk, t, 0);
    double now = s_now();
    if (end == 0 && (t->connected == d->clients || now >= connect_by)) end = now + d->seconds;
    if ((end != 0 && now >= end) || s_interrupted) break;
    s_sleep_ms(20);
  }
  *edit_seconds = s_now() - d->t0;
  for (int k = 0; k < d->clients; k++) demo_editor_set_phase(d->ed[k], DEMO_DRAIN);
  double deadline = s_now() + SETTLE_SECONDS;
  while (!t->failed && t->pending && s_now() < deadline) {
    s_sleep_ms(10);
    s_gather(d, t);
  }
  s_progress(d, &tk, t, 1);
  if (d->tty && !d->quiet) fputc('\n', stderr);
  if (s_interrupted && !d->quiet) fprintf(stderr, "ensemble demo: interrupted: stopped editing early\n");
  if (t->failed) return cli_fail("demo", "%s", t->error);
  if (t->pending)
    return cli_fail("demo", "%zu transactions still unacknowledged %d s after editing stopped", t->pending,
                    SETTLE_SECONDS);
  return 0;
}

/* With the collaborators' threads joined and the server's stopped, this
 * thread drives them all until every replica is at the server's head. */
static int s_settle(s_demo *d) {
  for (int k = 0; k < d->clients; k++) demo_editor_join(d->ed[k]);
  if (ens_server_stop(d->srv)) return cli_fail("demo", "the server stopped: %s", ens_error_last());
  double deadline = s_now() + SETTLE_SECONDS;
  for (;;) {
    if (ens_server_poll(d->srv, 2)) return cli_fail("demo", "the server: %s", ens_error_last());
    int done = 0;
    uint64_t head = ens_server_head(d->srv);
    for (int k = 0; k < d->clients; k++) {
      ens_session *s = demo_editor_session(d->ed[k]);
      if (!s) return cli_fail("demo", "%s never joined", s_names[k]);
      if (ens_session_poll(s, 0)) return cli_fail("demo", "%s: %s", s_names[k], ens_error_last());
      done += ens_session_is_live(s) && ens_session_pending(s) == 0 && ens_session_seq(s) == head;
    }
    if (done == d->clients) return 0;
    if (s_now() > deadline) {
      fprintf(stderr, "ensemble demo: the replicas did not catch up with the server (seq %llu) in %d s:\n",
              (unsigned long long)head, SETTLE_SECONDS);
      for (int k = 0; k < d->clients; k++) {
        ens_session *s = demo_editor_session(d->ed[k]);
        fprintf(stderr, "  %-5s live %d, pending %zu, seq %llu\n", s_names[k], ens_session_is_live(s),
                ens_session_pending(s), (unsigned long long)ens_session_seq(s));
      }
      return CLI_FAIL;
    }
  }
}

/* Every replica's hash against the server's; a description of those that
 * differ in buf. 1 when all agree. */
static int s_compare(s_demo *d, uint64_t server_hash, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  for (int k = 0; k < d->clients; k++) {
    ens_session *s = demo_editor_session(d->ed[k]);
    const ens_doc *doc = s ? ens_session_doc(s) : NULL;
    uint64_t h = doc ? ens_doc_hash(doc) : 0;
    if (h == server_hash || n >= size) continue;
    n += (size_t)snprintf(buf + n, size - n, "%s%s (site %u) holds %016llx, the server %016llx", n ? "; " : "",
                          s_names[k], s ? ens_session_site(s) : 0, (unsigned long long)h,
                          (unsigned long long)server_hash);
  }
  return buf[0] == '\0';
}

/* Same kinds, children and modelled properties; reals within a
 * millionth (a written number is a decimal). '~' keys hold the source
 * text, which a written file replaces. */
static int s_same_tree(const ens_obj *a, const ens_obj *b) {
  if (strcmp(ens_obj_kind(a), ens_obj_kind(b)) != 0 || ens_obj_child_count(a) != ens_obj_child_count(b)) return 0;
  for (size_t i = 0; i < ens_obj_prop_count(a); i++) {
    const char *key;
    ens_value va, vb;
    if (ens_obj_prop_at(a, i, &key, &va) != 0 || key[0] == '~' || key[0] == '@') continue;
    if (ens_obj_get(b, key, &vb) != 0) return 0;
    if (va.type == ENS_REF || vb.type == ENS_REF) continue; /* ids differ between two readings */
    if ((va.type == ENS_INT || va.type == ENS_REAL) && (vb.type == ENS_INT || vb.type == ENS_REAL)) {
      double x = va.type == ENS_INT ? (double)va.u.i : va.u.r, y = vb.type == ENS_INT ? (double)vb.u.i : vb.u.r;
      if (x - y > 1e-6 || y - x > 1e-6) return 0;
    } else if (!ens_value_equal(&va, &vb)) {
      return 0;
    }
  }
  for (size_t i = 0; i < ens_obj_child_count(a); i++)
    if (!s_same_tree(ens_obj_child(a, i), ens_obj_child(b, i))) return 0;
  return 1;
}

/* Writes the server's document and reads the file again: the edited
 * glyphs must come back as the session left them. */
static int s_write(s_demo *d, const ens_doc *doc, int *reads_back) {
  *reads_back = 0;
  if (ens_sfd_write_path(doc, d->out)) return cli_fail("demo", "writing %s: %s", d->out, ens_error_last());
  ens_doc *back;
  if (ens_sfd_read_path(d->out, &back)) return cli_fail("demo", "reading back %s: %s", d->out, ens_error_last());
  int same = s_count_glyphs(back) == s_count_glyphs(doc);
  for (size_t i = 0; i < d->nglyphs && same; i++) {
    const ens_obj *a = ens_glyph_find(doc, d->glyphs[i]), *b = ens_glyph_find(back, d->glyphs[i]);
    same = a && b && s_same_tree(a, b);
  }
  ens_doc_free(back);
  *reads_back = same;
  if (!same) return cli_fail("demo", "%s read back does not hold the session's glyphs", d->out);
  return 0;
}

static int s_run(s_demo *d) {
  double start = s_now();
  if (ens_sfd_read_path(d->font, &d->doc)) return cli_fail("demo", "%s: %s", d->font, ens_error_last());
  s_pick_glyphs(d);
  if (!d->nglyphs) return cli_fail("demo", "%s: no glyph with an outline and a width of its own to edit", d->font);
  if (s_make_dir(d)) return CLI_FAIL;

  char names[128];
  size_t n = 0;
  names[0] = '\0';
  for (int k = 0; k < d->clients; k++)
    n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", k ? ", " : "", s_names[k]);
  size_t glyphs = s_count_glyphs(d->doc);
  if (!d->json) {
    printf("Ensemble %s demo: %d collaborator%s (%s) edit one font through a session hosted here.\n",
           ENS_VERSION_STRING, d->clients, d->clients == 1 ? "" : "s", names);
    printf("  font     %s: %zu glyphs, %zu objects\n", d->font, glyphs, ens_doc_count(d->doc));
    printf("  editing  glyphs");
    for (size_t i = 0; i < d->nglyphs; i++) printf(" %s", d->glyphs[i]);
    printf(" for %g s, about %g actions/s each: drags, widths, undo, redo\n", d->seconds, d->rate);
  }
  if (s_host(d)) return CLI_FAIL;
  if (!d->json) {
    printf("  server   %s, log in %s (removed at the end)\n", ens_server_endpoint(d->srv), d->dir);
    if (d->http) {
      const char *colon = strrchr(d->http, ':');
      printf("  watch    http://%.*s:%d/ in a browser while they edit\n", (int)(colon - d->http),
             colon == d->http ? "127.0.0.1" : d->http, ens_server_http_port(d->srv));
    }
    printf("\n");
  }
  fflush(stdout);

  d->t0 = s_now();
  s_totals t;
  double edit_seconds = 0;
  int rc = s_edit_and_drain(d, &t, &edit_seconds);
  double settle_start = s_now();
  if (!rc) rc = s_settle(d);
  double settle_seconds = s_now() - settle_start;
  if (rc) return rc;
  s_gather(d, &t);

  const ens_doc *final = ens_server_doc(d->srv);
  char differs[1024];
  demo_report r;
  memset(&r, 0, sizeof r);
  r.font = d->font;
  r.glyphs = glyphs;
  r.objects = ens_doc_count(d->doc);
  r.edited = d->glyphs;
  r.nedited = d->nglyphs;
  r.names = names;
  r.clients = d->clients;
  for (int k = 0; k < d->clients; k++) r.connected += ens_session_is_live(demo_editor_session(d->ed[k]));
  r.seconds = d->seconds;
  r.rate = d->rate;
  r.edit_seconds = edit_seconds;
  r.settle_seconds = settle_seconds;
  r.total = t.total;
  r.p50_ms = demo_latency_ms(&t.lat, 0.50);
  r.p99_ms = demo_latency_ms(&t.lat, 0.99);
  r.final_seq = ens_server_head(d->srv);
  r.hash = ens_doc_hash(final);
  r.converged = s_compare(d, r.hash, differs, sizeof differs);
  r.differs = r.converged ? NULL : differs;
  r.out = d->out;
  int wrc = s_write(d, final, &r.reads_back);
  r.written = r.reads_back || wrc == 0;
  r.wall_seconds = s_now() - start;
  if (d->json) demo_report_json(stdout, &r);
  else demo_report_text(stdout, &r);
  if (!r.converged) fprintf(stderr, "ensemble demo: diverged: %s\n", differs);
  return r.converged && wrc == 0 ? CLI_OK : CLI_FAIL;
}

static void s_cleanup(s_demo *d) {
  /* collaborators first (they say bye), then the server, then their
   * shared context, which waits for their sockets */
  for (int k = 0; k < d->clients; k++) demo_editor_free(d->ed[k]);
  ens_server_free(d->srv);
  if (d->zctx) zmq_ctx_term(d->zctx);
  s_remove_dir(d);
  ens_doc_free(d->doc);
}

/* --- options ------------------------------------------------------------------------ */

static int s_number(const char *opt, const char *text, double lo, double hi, double *out) {
  if (!text) return 0;
  if (cli_parse_real(text, strlen(text), out) || *out < lo || *out > hi)
    return cli_usage_error(&s_spec, "--%s wants a number from %g to %g, not '%s'", opt, lo, hi, text);
  return 0;
}

/* The directory the output goes to must exist and be writable before the
 * editing starts, not be found wanting after it. The default one is made. */
static int s_check_out(const char *out, int is_default) {
  if (is_default && mkdir(DEMO_OUT_DIR, 0777) != 0 && errno != EEXIST)
    return cli_fail("demo", "cannot make %s: %s (give --out FILE)", DEMO_OUT_DIR, strerror(errno));
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", out);
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == dir) dir[1] = '\0';
  else *slash = '\0';
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return cli_fail("demo", "%s: no such directory for %s", dir, out);
  if (access(dir, W_OK) != 0) return cli_fail("demo", "%s: cannot write there: %s", dir, strerror(errno));
  if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) return cli_fail("demo", "%s is a directory", out);
  return 0;
}

int cli_cmd_demo(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  s_demo d;
  memset(&d, 0, sizeof d);
  double clients = 3, seed = 1;
  d.seconds = 5;
  d.rate = 200;
  if ((rc = s_number("seconds", cli_opt(&s_spec, &args, "seconds"), 0.1, 3600, &d.seconds)) ||
      (rc = s_number("clients", cli_opt(&s_spec, &args, "clients"), 1, MAX_CLIENTS, &clients)) ||
      (rc = s_number("rate", cli_opt(&s_spec, &args, "rate"), 1, 5000, &d.rate)) ||
      (rc = s_number("seed", cli_opt(&s_spec, &args, "seed"), 0, 4294967295.0, &seed)))
    return rc;
  if (clients != (int)clients) return cli_usage_error(&s_spec, "--clients wants a whole number");
  d.clients = (int)clients;
  d.seed = (uint64_t)seed;
  d.font = cli_opt(&s_spec, &args, "font");
  if (!d.font) d.font = DEMO_FONT;
  d.out = cli_opt(&s_spec, &args, "out");
  d.json = cli_opt(&s_spec, &args, "json") != NULL;
  d.quiet = cli_opt(&s_spec, &args, "quiet") != NULL;
  d.http = cli_opt(&s_spec, &args, "http");
  d.tty = isatty(STDERR_FILENO);
  if (s_check_out(d.out ? d.out : DEMO_OUT, !d.out)) return CLI_FAIL;
  if (!d.out) d.out = DEMO_OUT;

  /* ^C ends the editing early; the demo still converges, reports and
   * cleans up. A second ^C is not caught. */
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = s_on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  rc = s_run(&d);
  s_cleanup(&d);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  return rc;
}
