/* SFD load and save times (ensemble's reader and writer) for the fonts
 * named on the command line: best of N, and the heap the loaded document
 * holds. Besides the plain load and save:
 *  - save_edited: save after one transaction moved every point of the font
 *    by one unit, so that no point line can be copied as it was read (the
 *    writer's worst case: every line checked and printed again);
 *  - floor: read the file, cut it into lines and parse every point line,
 *    building nothing: what any reader of this format pays at least.
 *  - save_mem: the save's text made in memory, without the file, its
 *    write and its fsync (which the file save does so that a crash never
 *    leaves half a font; FontForge's save does not sync).
 *  - save_nosync: the text written to the file without the fsync: the
 *    work FontForge's save does.
 * One JSON object on stdout; bench/peers/fontforge_sfd.py measures
 * FontForge on the same files for the side-by-side report.
 *
 * With --cold load|floor FONT, one load (or one floor) in this fresh
 * process, as a user's command pays it: wall and CPU time (user + system,
 * so that the kernel's work for first-touched pages counts), minor page
 * faults, and the growth of the process's peak resident memory across it;
 * fontforge_sfd.py --cold measures FontForge's first open the same way. */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ensemble.h"
#include "formats/sfd/sfd_int.h"
#include "model/doc.h"

static double s_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long s_maxrss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static size_t s_heap(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

/* The floor: read the file, cut it into lines, parse every point line,
 * build nothing. Returns the point count or -1. The lines of one buffer: */
static long s_floor_lines(const char *p, const char *end, const char **rest) {
  long points = 0;
  const char *why;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl && rest) break; /* a line the next read completes */
    ens__sfd_line ln;
    ens__sfd_line_at(p, end, &ln);
    if (ln.n && ens__sfd_word(ln.s, ln.n) == S_W_NUMBER) {
      ens__sfd_point pt;
      if (ens__sfd_parse_point(ln.s, ln.n, &pt, &why) == 0) points++;
    }
    p = ln.next;
  }
  if (rest) *rest = p;
  return points;
}

/* How the floor holds the text. chunk (the figure reported): 256 KiB
 * read at a time into one buffer, so that it touches almost no fresh
 * memory; whole: the file in one malloc'd buffer, as a reader that keeps
 * the text must have it (its pages faulted in one by one); mmap: the file
 * mapped. The cheapest of them is the honest floor: bench/README.md. */
static long s_floor_how(const char *path, const char *how) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  struct stat st;
  long points = -1;
  if (fstat(fd, &st) != 0) goto done;
  size_t len = (size_t)st.st_size;
  if (strcmp(how, "mmap") == 0) {
    char *m = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (len && m == MAP_FAILED) goto done;
    points = s_floor_lines(m, m + len, NULL);
    if (m) munmap(m, len);
  } else if (strcmp(how, "whole") == 0) {
    char *data = malloc(len + 1);
    size_t n = 0;
    ssize_t got;
    while (data && n < len && (got = read(fd, data + n, len - n)) > 0) n += (size_t)got;
    if (data && n == len) points = s_floor_lines(data, data + len, NULL);
    free(data);
  } else {
    size_t cap = (size_t)256 << 10, have = 0;
    char *buf = malloc(cap);
    points = 0;
    for (;;) {
      if (!buf) {
        points = -1;
        break;
      }
      ssize_t got = read(fd, buf + have, cap - have);
      if (got < 0) {
        points = -1;
        break;
      }
      if (got == 0) {
        points += s_floor_lines(buf, buf + have, NULL);
        break;
      }
      have += (size_t)got;
      const char *rest;
      points += s_floor_lines(buf, buf + have, &rest);
      have -= (size_t)(rest - buf);
      memmove(buf, rest, have);
      if (have == cap) { /* one line longer than the buffer */
        char *nb = realloc(buf, cap * 2);
        if (!nb) free(buf);
        buf = nb;
        cap *= 2;
      }
    }
    free(buf);
  }
done:
  close(fd);
  return points;
}

static long s_floor(const char *path) { return s_floor_how(path, "chunk"); }

/* One load (what = "load") or one floor in this process, measured as
 * the first thing it does. */
static int s_cold(const char *what, const char *path) {
  const char *how = "chunk";
  int floor = strncmp(what, "floor", 5) == 0;
  if (floor && what[5] == ':') how = what + 6;
  else if (floor && what[5]) floor = 0;
  if (!floor && strcmp(what, "load") != 0) {
    fprintf(stderr, "bench_sfd: --cold takes load, floor or floor:chunk|whole|mmap\n");
    return 2;
  }
  if (floor) what = "floor";
  struct rusage r0, r1;
  struct timespec c0, c1;
  getrusage(RUSAGE_SELF, &r0);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  double t0 = s_now();
  ens_doc *doc = NULL;
  long points = 0;
  if (floor) points = s_floor_how(path, how);
  else if (ens_sfd_read_path(path, &doc) != 0) points = -1;
  double t1 = s_now();
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  getrusage(RUSAGE_SELF, &r1);
  if (points < 0) {
    fprintf(stderr, "bench_sfd: %s: %s\n", path, floor ? "cannot read it" : ens_error_last());
    return 1;
  }
  printf("{\"%s\": {\"%s_wall_s\": %.6f, \"%s_cpu_s\": %.6f, \"%s_minflt\": %ld, \"%s_rss_growth_bytes\": %ld, "
         "\"%s_maxrss_bytes\": %ld, \"objects\": %zu}}\n",
         path, what, t1 - t0, what,
         (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9, what, r1.ru_minflt - r0.ru_minflt,
         what, (r1.ru_maxrss - r0.ru_maxrss) * 1024, what, r1.ru_maxrss * 1024, doc ? ens_doc_count(doc) : 0);
  ens_doc_free(doc);
  return 0;
}

typedef struct {
  ens_txn *txn;
  const char *point_kind;
  size_t n;
} s_mover;

static int s_move_point(const ens_obj *obj, size_t depth, void *user) {
  (void)depth;
  s_mover *m = user;
  if (strcmp(ens_obj_kind(obj), m->point_kind) != 0) return 0;
  ens_value x;
  if (ens_obj_get(obj, "x", &x) != 0 || x.type != ENS_REAL) return 0;
  m->n++;
  return ens_txn_set(m->txn, ens_obj_id(obj), "x", ens_real(x.u.r + 1));
}

int main(int argc, char **argv) {
  int rounds = 5, first = 1;
  if (argc < 2 || strcmp(argv[1], "--help") == 0) {
    fprintf(stderr, "usage: bench_sfd [--rounds N] FONT.sfd|SFDIR...\n"
                    "       bench_sfd --cold load|floor FONT.sfd|SFDIR\n"
                    "  load and save each font N times (default 5), or once in this fresh process; JSON on stdout\n");
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "--cold") == 0) {
    if (argc != 4) return 2;
    return s_cold(argv[2], argv[3]);
  }
  int i = 1;
  if (strcmp(argv[1], "--rounds") == 0 && argc > 3) {
    rounds = atoi(argv[2]);
    i = 3;
  }
  char tmpdir[] = "/tmp/ens-bench-sfd-XXXXXX";
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  long base_rss = s_maxrss_kb();
  printf("{");
  for (; i < argc; i++) {
    const char *path = argv[i];
    double load = 1e9, save = 1e9, save_mem = 1e9, save_nosync = 1e9, save_edited = 1e9, floor = 1e9;
    long points = 0;
    size_t heap = 0, objects = 0;
    char out[4096];
    const char *base = strrchr(path, '/');
    snprintf(out, sizeof out, "%s/%s", tmpdir, base ? base + 1 : path);
    for (int r = 0; r < rounds; r++) {
      ens_doc *doc;
      size_t before = s_heap();
      double t0 = s_now();
      if (ens_sfd_read_path(path, &doc) != 0) {
        fprintf(stderr, "bench_sfd: %s: %s\n", path, ens_error_last());
        return 1;
      }
      double t1 = s_now();
      heap = s_heap() - before + ens__doc_pages_used(doc); /* malloc's, and the arena's huge-page region */
      objects = ens_doc_count(doc);
      if (ens_sfd_write_path(doc, out) != 0) {
        fprintf(stderr, "bench_sfd: writing %s: %s\n", out, ens_error_last());
        return 1;
      }
      double t2 = s_now();
      if (t1 - t0 < load) load = t1 - t0;
      if (t2 - t1 < save) save = t2 - t1;
      /* the same text to memory: the file save less its write and fsync */
      unsigned char *bytes;
      size_t nbytes;
      double tm0 = s_now();
      if (ens_sfd_write(doc, &bytes, &nbytes) == 0) {
        double tm1 = s_now();
        ens_free(bytes);
        if (tm1 - tm0 < save_mem) save_mem = tm1 - tm0;
      }
      /* the work FontForge's save does: the text, written to the file and
       * closed, without the fsync (and here through a rename, as ours) */
      double tn0 = s_now();
      if (ens_sfd_write(doc, &bytes, &nbytes) == 0) {
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp", out);
        FILE *f = fopen(tmp, "wb");
        int ok = f && fwrite(bytes, 1, nbytes, f) == nbytes;
        ok = (f && fclose(f) == 0) && ok && rename(tmp, out) == 0;
        ens_free(bytes);
        double tn1 = s_now();
        if (!ok) {
          fprintf(stderr, "bench_sfd: writing %s failed\n", tmp);
          return 1;
        }
        if (tn1 - tn0 < save_nosync) save_nosync = tn1 - tn0;
      }
      s_mover m = {ens_txn_new("Move every point", NULL), ENS_SFD_POINT, 0};
      if (!m.txn || ens_obj_walk(ens_doc_root(doc), s_move_point, &m) != 0 ||
          ens_doc_apply(doc, m.txn, ENS_ORIGIN_LOCAL, NULL) != 0) {
        fprintf(stderr, "bench_sfd: moving the points of %s: %s\n", path, ens_error_last());
        return 1;
      }
      ens_txn_free(m.txn);
      double t3 = s_now();
      if (ens_sfd_write_path(doc, out) != 0) {
        fprintf(stderr, "bench_sfd: writing %s: %s\n", out, ens_error_last());
        return 1;
      }
      double t4 = s_now();
      if (t4 - t3 < save_edited) save_edited = t4 - t3;
      ens_doc_free(doc);
      double t5 = s_now();
      points = s_floor(path);
      double t6 = s_now();
      if (points < 0) {
        fprintf(stderr, "bench_sfd: %s: cannot read it again\n", path);
        return 1;
      }
      if (t6 - t5 < floor) floor = t6 - t5;
    }
    fprintf(stderr, "%s: load %.2f ms, save %.2f ms, save with every point moved %.2f ms, floor %.2f ms (%ld points), "
            "%zu objects, %.1f MB held\n", path, load * 1e3, save * 1e3, save_edited * 1e3, floor * 1e3, points,
            objects, heap / 1e6);
    /* ru_maxrss only grows: with one font per process it is that font's */
    printf("%s\"%s\": {\"load_s\": %.5f, \"save_s\": %.5f, \"save_mem_s\": %.5f, \"save_nosync_s\": %.5f, \"save_edited_s\": %.5f, \"floor_s\": %.5f, "
           "\"points\": %ld, \"objects\": %zu, \"heap_bytes\": %zu, \"peak_rss_bytes\": %ld}",
           first ? "" : ", ", path, load, save, save_mem, save_nosync, save_edited, floor, points, objects, heap,
           (s_maxrss_kb() - base_rss) * 1024);
    first = 0;
  }
  printf("}\n");
  /* leave nothing behind */
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "bench_sfd: could not remove %s\n", tmpdir);
  return 0;
}
