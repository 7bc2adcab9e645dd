/* The file mirror's cost per save (ens_mirror_save: the save read from the
 * file and parsed, its base picked among the kept versions, the three-way
 * merge onto the session's document, the transaction committed and sent,
 * the save kept as a version), on a real session over loopback: a server
 * on its own thread, the mirror's session A and a collaborator B. Each
 * round B changes a glyph, A's mirror writes it (not timed), and the
 * editor, which never reloads, changes another glyph in its copy and saves
 * it. The first save of the process is reported apart from the later
 * ones (the warm figures); beside them, the parse alone and what `join`
 * adds to keep the save durably beside the file (state encoded, written,
 * fsynced). bench/peers/fontforge_save.py times FontForge's own save of
 * the same font for the side-by-side report (bench/report_mirror.mjs).
 *   bench_mirror [--rounds N] FONT.sfd...   (one JSON object on stdout) */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ensemble.h"

static double s_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void s_die(const char *what) {
  fprintf(stderr, "bench_mirror: %s: %s\n", what, ens_error_last());
  exit(1);
}

typedef struct {
  ens_server *srv;
  ens_session *a, *b;
  ens_mirror *m;
} s_world;

static void s_on_event(ens_session *s, const ens_session_event *ev, void *user) {
  (void)s;
  s_world *w = user;
  if (w->m) ens_mirror_on_event(w->m, ev);
}

/* Polls both sessions until both are live with nothing pending, at the
 * server's head. */
static void s_settle(s_world *w) {
  double t0 = s_now();
  for (;;) {
    if (ens_session_poll(w->a, 1) || ens_session_poll(w->b, 1)) s_die("poll");
    if (ens_session_is_live(w->a) && ens_session_is_live(w->b) && !ens_session_pending(w->a) &&
        !ens_session_pending(w->b) && ens_session_seq(w->a) == ens_server_head(w->srv) &&
        ens_session_seq(w->b) == ens_server_head(w->srv))
      return;
    if (s_now() - t0 > 120) {
      fprintf(stderr, "bench_mirror: the session did not settle\n");
      exit(1);
    }
  }
}

/* The glyphs of the font in file order (names malloc'd), for edits. */
static size_t s_glyph_names(const char *text, char ***out) {
  size_t n = 0, cap = 64;
  char **names = malloc(cap * sizeof *names);
  for (const char *p = text; (p = strstr(p, "\nStartChar: ")); p++) {
    const char *s = p + 12, *e = strchr(s, '\n');
    if (!e) break;
    if (e > s && e[-1] == '\r') e--;
    if (n == cap) names = realloc(names, (cap *= 2) * sizeof *names);
    names[n++] = strndup(s, (size_t)(e - s));
  }
  *out = names;
  return n;
}

/* The editor's edit in its copy: glyph's Width line set to width (the
 * way FontForge rewrites that line). NULL when the glyph has none. */
static char *s_set_width(const char *text, size_t *len, const char *glyph, int width) {
  char head[512];
  snprintf(head, sizeof head, "\nStartChar: %s\n", glyph);
  const char *g = strstr(text, head);
  if (!g) return NULL;
  const char *wl = strstr(g + 1, "\nWidth: "), *next = strstr(g + 1, "\nStartChar: ");
  if (!wl || (next && wl > next)) return NULL;
  wl++;
  const char *eol = strchr(wl, '\n');
  char line[64];
  int n = snprintf(line, sizeof line, "Width: %d", width);
  size_t before = (size_t)(wl - text), after = *len - (size_t)(eol - text);
  char *out = malloc(before + (size_t)n + after + 1);
  memcpy(out, text, before);
  memcpy(out + before, line, (size_t)n);
  memcpy(out + before + n, eol, after);
  *len = before + (size_t)n + after;
  out[*len] = '\0';
  return out;
}

static char *s_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *d = malloc((size_t)n + 1);
  if (!d || fread(d, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(d);
    return NULL;
  }
  fclose(f);
  d[n] = '\0';
  *len = (size_t)n;
  return d;
}

static void s_write(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
    fprintf(stderr, "bench_mirror: cannot write %s\n", path);
    exit(1);
  }
}

static int s_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double s_median(double *v, size_t n) {
  qsort(v, n, sizeof *v, s_cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void s_font(const char *path, int rounds, const char *tmpdir, int first_font) {
  size_t flen;
  char *text = s_read(path, &flen);
  if (!text) {
    fprintf(stderr, "bench_mirror: cannot read %s\n", path);
    exit(1);
  }
  char **names;
  size_t nnames = s_glyph_names(text, &names);
  ens_doc *font;
  if (ens_sfd_read(text, flen, &font)) s_die(path);
  s_world w;
  memset(&w, 0, sizeof w);
  char store[512], file[512];
  snprintf(store, sizeof store, "%s/store-%d", tmpdir, first_font);
  snprintf(file, sizeof file, "%s/save.sfd", tmpdir);
  ens_server_opts so;
  memset(&so, 0, sizeof so);
  so.endpoint = "tcp://127.0.0.1:*";
  so.store_path = store;
  so.initial = font;
  if (ens_server_new(&so, &w.srv) || ens_server_start(w.srv)) s_die("server");
  ens_doc_free(font);
  ens_session_opts o;
  memset(&o, 0, sizeof o);
  o.endpoint = ens_server_endpoint(w.srv);
  o.name = "editor";
  o.on_event = s_on_event;
  o.user = &w;
  if (ens_session_new(&o, &w.a)) s_die("session");
  ens_mirror_opts mo = {ENS_SFD_KIND, 0, NULL, 0};
  if (ens_mirror_new(w.a, &mo, &w.m)) s_die("mirror");
  o.name = "collaborator";
  o.on_event = NULL;
  o.user = NULL;
  if (ens_session_new(&o, &w.b)) s_die("session");
  s_settle(&w);

  /* the editor opens the file the mirror wrote */
  const unsigned char *bytes;
  size_t len;
  if (ens_mirror_render(w.m, &bytes, &len)) s_die("render");
  char *held = malloc(len + 1);
  memcpy(held, bytes, len);
  held[len] = '\0';
  size_t hlen = len;
  if (ens_mirror_written(w.m)) s_die("written");

  double *save = calloc((size_t)rounds, sizeof *save), *parse = calloc((size_t)rounds, sizeof *parse),
         *keep = calloc((size_t)rounds, sizeof *keep);
  size_t ops = 0, conflicts = 0, kept_bytes = 0;
  int done = 0;
  for (int r = 0; r < rounds; r++) {
    /* a collaborator's change, written into the file by the mirror */
    const char *theirs = names[(2 * (size_t)r + 1) % nnames], *mine = names[(2 * (size_t)r) % nnames];
    ens_txn *t;
    if (ens_glyph_set_width(ens_session_doc(w.b), theirs, 300 + r, &t) == 0) {
      if (ens_session_commit(w.b, t)) s_die("commit");
      ens_txn_free(t);
    }
    s_settle(&w);
    if (ens_mirror_outdated(w.m)) {
      if (ens_mirror_render(w.m, &bytes, &len) || ens_mirror_written(w.m)) s_die("write");
    }
    /* the editor's save: its own copy with one more glyph changed */
    size_t slen = hlen;
    char *saved = s_set_width(held, &slen, mine, 400 + r);
    if (!saved) continue;
    s_write(file, saved, slen);
    free(held);
    held = saved;
    hlen = slen;

    double t0 = s_now();
    size_t rlen;
    char *data = s_read(file, &rlen);
    ens_mirror_result *res;
    if (!data || ens_mirror_save(w.m, data, rlen, &res)) s_die("save");
    double t1 = s_now();
    ops += ens_mirror_result_ops(res);
    conflicts += ens_mirror_result_conflict_count(res);
    ens_mirror_result_free(res);
    /* what join adds: the save kept beside the file, durably */
    unsigned char *state;
    size_t state_len;
    if (ens_mirror_state_encode(w.m, ENS_MIRROR_CURRENT, &state, &state_len)) s_die("state");
    char kpath[600];
    snprintf(kpath, sizeof kpath, "%s/kept", tmpdir);
    int fd = open(kpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, state, state_len) != (ssize_t)state_len || fsync(fd) != 0) s_die("keep");
    close(fd);
    double t2 = s_now();
    kept_bytes = state_len;
    ens_free(state);
    /* the parse alone, for the share of the save it is */
    ens_doc *parsed;
    double t3 = s_now();
    if (ens_sfd_read(data, rlen, &parsed)) s_die("parse");
    double t4 = s_now();
    ens_doc_free(parsed);
    free(data);
    save[done] = t1 - t0;
    keep[done] = t2 - t1;
    parse[done] = t4 - t3;
    done++;
    s_settle(&w);
  }
  if (done < 2) {
    fprintf(stderr, "bench_mirror: %s: not enough glyphs with a width to edit\n", path);
    exit(1);
  }
  size_t nversions = ens_mirror_version_count(w.m);
  double first = save[0], first_keep = keep[0], first_parse = parse[0];
  double warm = s_median(save + 1, (size_t)done - 1), warm_keep = s_median(keep + 1, (size_t)done - 1),
         warm_parse = s_median(parse + 1, (size_t)done - 1);
  double best = save[1];
  for (int i = 2; i < done; i++)
    if (save[i] < best) best = save[i];
  printf("%s\"%s\": {\"rounds\": %d, \"first_save_s\": %.6f, \"warm_save_s\": %.6f, \"best_save_s\": %.6f, "
         "\"first_parse_s\": %.6f, \"warm_parse_s\": %.6f, \"first_keep_s\": %.6f, \"warm_keep_s\": %.6f, "
         "\"kept_bytes\": %zu, \"ops\": %zu, \"conflicts\": %zu, \"versions\": %zu, \"file_bytes\": %zu",
         first_font ? "" : ", ", path, done, first, warm, best, first_parse, warm_parse, first_keep, warm_keep,
         kept_bytes, ops, conflicts, ens_mirror_version_count(w.m), hlen);
  fflush(stdout);
  fprintf(stderr, "%s: mirror save first %.1f ms, warm %.1f ms (parse %.1f ms), keeping it %.1f ms\n", path,
          first * 1e3, warm * 1e3, warm_parse * 1e3, warm_keep * 1e3);
  /* what the versions and their decoded copies hold */
  struct mallinfo2 before = mallinfo2();
  ens_mirror_free(w.m);
  struct mallinfo2 after = mallinfo2();
  size_t held_bytes = (before.uordblks + before.hblkhd) - (after.uordblks + after.hblkhd);
  printf(", \"held_bytes\": %zu}", held_bytes);
  fflush(stdout);
  fprintf(stderr, "%s: the mirror held %.1f MB (%zu versions)\n", path, held_bytes / 1e6, nversions);
  ens_session_free(w.a);
  ens_session_free(w.b);
  ens_server_free(w.srv);
  for (size_t i = 0; i < nnames; i++) free(names[i]);
  free(names);
  free(held);
  free(text);
  free(save);
  free(parse);
  free(keep);
  unlink(file);
  snprintf(file, sizeof file, "%s/kept", tmpdir);
  unlink(file);
}

int main(int argc, char **argv) {
  int rounds = 10, i = 1;
  if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0) {
    rounds = atoi(argv[i + 1]);
    i += 2;
  }
  if (i >= argc || rounds < 2) {
    fprintf(stderr, "usage: bench_mirror [--rounds N>=2] FONT.sfd...\n");
    return 2;
  }
  char tmpdir[] = "/tmp/bench-mirror-XXXXXX";
  if (!mkdtemp(tmpdir)) return 1;
  printf("{\"mirror\": {");
  for (int k = i; k < argc; k++) s_font(argv[k], rounds, tmpdir, k == i);
  printf("}}\n");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  if (system(cmd) != 0) return 1;
  return 0;
}
