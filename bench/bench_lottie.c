/* Lottie load and save beside a plain JSON library: for each file given,
 * the best of several runs of Ensemble's read (the strict scanner and the
 * model, source text kept) and write, against jansson parsing the same
 * bytes into its tree (json_loadb) and serialising it (json_dumpb,
 * compact), the two sides alternating round by round so that a noisy
 * moment hits both. The ratio (read + write) / (parse + serialise) is what
 * the Lottie work aims to keep at or under 1.5. Also the write after one
 * transaction touched every object (no kept text copied unchecked). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef ENS_HAVE_JANSSON
#include <jansson.h>
#endif

#include "ensemble.h"

static double s_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static char *s_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *d = malloc((size_t)n + 1);
  *len = d ? fread(d, 1, (size_t)n, f) : 0;
  fclose(f);
  return d;
}

/* One transaction setting one property of every object to the value it
 * has: nothing changes, but nothing is as read any more. */
typedef struct {
  ens_txn *txn;
} s_toucher;

static int s_touch(const ens_obj *o, size_t depth, void *user) {
  s_toucher *t = user;
  const char *key;
  ens_value v;
  (void)depth;
  for (size_t i = 0; i < ens_obj_prop_count(o); i++)
    if (ens_obj_prop_at(o, i, &key, &v) == 0 && key[0] != '~') return ens_txn_set(t->txn, ens_obj_id(o), key, v);
  return 0;
}

int main(int argc, char **argv) {
  int runs = 7, first = 1;
  if (argc > 2 && strcmp(argv[1], "--runs") == 0) {
    runs = atoi(argv[2]);
    first = 3;
  }
  if (first >= argc || runs < 1) {
    fprintf(stderr, "usage: bench_lottie [--runs N] FILE.json...\n");
    return 2;
  }
#ifndef ENS_HAVE_JANSSON
  fprintf(stderr, "bench_lottie: built without jansson (Debian libjansson-dev): nothing to compare with\n");
  return 77;
#else
  int status = 0;
  double worst = 0;
  printf("%-44s %9s %9s %9s %9s %9s %6s %10s\n", "file", "bytes", "ens read", "ens write", "js parse", "js dump",
         "ratio", "touched w");
  for (int i = first; i < argc; i++) {
    size_t len;
    char *data = s_slurp(argv[i], &len);
    if (!data) {
      fprintf(stderr, "%s: cannot read\n", argv[i]);
      status = 1;
      continue;
    }
    double best_r = 1e300, best_w = 1e300, best_p = 1e300, best_d = 1e300, best_tw = 1e300;
    for (int r = 0; r < runs; r++) {
      double t0 = s_now();
      ens_doc *doc = NULL;
      if (ens_lottie_read(data, len, &doc) != 0) {
        fprintf(stderr, "%s: %s\n", argv[i], ens_error_last());
        status = 1;
        break;
      }
      double t1 = s_now();
      unsigned char *out;
      size_t n;
      if (ens_lottie_write(doc, &out, &n) != 0 || n != len || memcmp(out, data, len) != 0) {
        fprintf(stderr, "%s: not written back byte for byte\n", argv[i]);
        status = 1;
      }
      double t2 = s_now();
      ens_free(out);
      s_toucher t = {ens_txn_new(NULL, NULL)};
      ens_obj_walk(ens_doc_root(doc), s_touch, &t);
      if (ens_doc_apply(doc, t.txn, ENS_ORIGIN_LOCAL, NULL) != 0) fprintf(stderr, "%s: touch: %s\n", argv[i], ens_error_last());
      ens_txn_free(t.txn);
      double t3 = s_now();
      if (ens_lottie_write(doc, &out, &n) != 0 || n != len || memcmp(out, data, len) != 0) {
        fprintf(stderr, "%s: touching every object changed the output\n", argv[i]);
        status = 1;
      }
      double t4 = s_now();
      ens_free(out);
      ens_doc_free(doc);

      double j0 = s_now();
      json_error_t err;
      json_t *root = json_loadb(data, len, 0, &err);
      double j1 = s_now();
      if (!root) {
        fprintf(stderr, "%s: jansson: %s\n", argv[i], err.text);
        status = 1;
        break;
      }
      size_t need = json_dumpb(root, NULL, 0, JSON_COMPACT);
      char *js = malloc(need + 1);
      if (js) json_dumpb(root, js, need, JSON_COMPACT);
      double j2 = s_now();
      free(js);
      json_decref(root);

      if (t1 - t0 < best_r) best_r = t1 - t0;
      if (t2 - t1 < best_w) best_w = t2 - t1;
      if (t4 - t3 < best_tw) best_tw = t4 - t3;
      if (j1 - j0 < best_p) best_p = j1 - j0;
      if (j2 - j1 < best_d) best_d = j2 - j1;
    }
    double ratio = (best_r + best_w) / (best_p + best_d);
    if (ratio > worst) worst = ratio;
    const char *name = strrchr(argv[i], '/');
    printf("%-44.44s %9zu %7.3fms %7.3fms %7.3fms %7.3fms %6.2f %8.3fms\n", name ? name + 1 : argv[i], len, best_r, best_w,
           best_p, best_d, ratio, best_tw);
    free(data);
  }
  printf("ratio: (Ensemble read + write) / (jansson %s parse + compact serialise), best of %d each, alternating\n",
         jansson_version_str(), runs);
  printf("touched w: write after one transaction touched every object (every value checked against its text)\n");
  printf("target: %s  ratio <= 1.5 on every file: worst %.2f\n", worst <= 1.5 ? "met    " : "NOT MET", worst);
  return status;
#endif
}
