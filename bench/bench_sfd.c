/* SFD load and save times (ensemble's reader and writer) for the fonts
 * named on the command line: best of N, and the heap the loaded document
 * holds. One JSON object on stdout; bench/peers/fontforge_sfd.py measures
 * FontForge on the same files for the side-by-side report. */
#include <malloc.h>
#include <stdio.h>
#include <sys/resource.h>
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

static long s_maxrss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static size_t s_heap(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

int main(int argc, char **argv) {
  int rounds = 5, first = 1;
  if (argc < 2 || strcmp(argv[1], "--help") == 0) {
    fprintf(stderr, "usage: bench_sfd [--rounds N] FONT.sfd|SFDIR...\n"
                    "  load and save each font N times (default 5); JSON on stdout\n");
    return argc < 2 ? 2 : 0;
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
    double load = 1e9, save = 1e9;
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
      heap = s_heap() - before;
      objects = ens_doc_count(doc);
      if (ens_sfd_write_path(doc, out) != 0) {
        fprintf(stderr, "bench_sfd: writing %s: %s\n", out, ens_error_last());
        return 1;
      }
      double t2 = s_now();
      if (t1 - t0 < load) load = t1 - t0;
      if (t2 - t1 < save) save = t2 - t1;
      ens_doc_free(doc);
    }
    fprintf(stderr, "%s: load %.2f ms, save %.2f ms, %zu objects, %.1f MB held\n", path, load * 1e3, save * 1e3,
            objects, heap / 1e6);
    /* ru_maxrss only grows: with one font per process it is that font's */
    printf("%s\"%s\": {\"load_s\": %.5f, \"save_s\": %.5f, \"objects\": %zu, \"heap_bytes\": %zu, "
           "\"peak_rss_bytes\": %ld}",
           first ? "" : ", ", path, load, save, objects, heap, (s_maxrss_kb() - base_rss) * 1024);
    first = 0;
  }
  printf("}\n");
  /* leave nothing behind */
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "bench_sfd: could not remove %s\n", tmpdir);
  return 0;
}
