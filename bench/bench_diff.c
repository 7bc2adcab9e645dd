/* The semantic diff of two versions of a font (ens_changes_compute and its
 * text), warm: best of N in one process, the two loads apart from the
 * diff; bench/diff runs it beside FontForge's CompareFonts on the same
 * pair (bench/peers/fontforge_diff.py) and sfddiff in fresh processes.
 *   bench_diff [--rounds N] OLD NEW     one JSON object on stdout */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ensemble.h"

static double s_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int rounds = 5, i = 1;
  if (argc > 2 && strcmp(argv[1], "--rounds") == 0) {
    rounds = atoi(argv[2]);
    i = 3;
  }
  if (argc - i != 2 || rounds < 1) {
    fprintf(stderr, "usage: bench_diff [--rounds N] OLD NEW\n");
    return 2;
  }
  FILE *null = fopen("/dev/null", "w");
  if (!null) return 1;
  double load = 1e9, diff = 1e9, text = 1e9, model = 1e9;
  size_t changes = 0, objects = 0;
  for (int r = 0; r < rounds; r++) {
    ens_doc *a = NULL, *b = NULL;
    double t0 = s_now();
    if (ens_sfd_read_path(argv[i], &a) != 0 || ens_sfd_read_path(argv[i + 1], &b) != 0) {
      fprintf(stderr, "bench_diff: %s\n", ens_error_last());
      return 1;
    }
    double t1 = s_now();
    ens_changes_opts o = {ens_sfd_identity, NULL, ens_sfd_noise, NULL};
    ens_changes *c = NULL;
    if (ens_changes_compute(a, b, &o, &c) != 0) {
      fprintf(stderr, "bench_diff: %s\n", ens_error_last());
      return 1;
    }
    double t2 = s_now();
    ens_changes_write_text(c, "sfd", null);
    fflush(null);
    double t3 = s_now();
    /* the model's diff (the transaction --txn writes) of the same pair */
    ens_txn *txn = NULL;
    if (ens_doc_diff(a, b, ens_sfd_identity, NULL, &txn) != 0) {
      fprintf(stderr, "bench_diff: %s\n", ens_error_last());
      return 1;
    }
    double t4 = s_now();
    ens_txn_free(txn);
    if (t4 - t3 < model) model = t4 - t3;
    if (t1 - t0 < load) load = t1 - t0;
    if (t2 - t1 < diff) diff = t2 - t1;
    if (t3 - t2 < text) text = t3 - t2;
    changes = ens_changes_count(c);
    objects = ens_doc_count(a) + ens_doc_count(b);
    ens_changes_free(c);
    ens_doc_free(a);
    ens_doc_free(b);
  }
  fclose(null);
  printf("{\"rounds\":%d,\"objects\":%zu,\"changes\":%zu,\"load_s\":%.6f,\"diff_s\":%.6f,\"text_s\":%.6f,\"txn_s\":%.6f}\n",
         rounds, objects, changes, load, diff, text, model);
  return 0;
}
