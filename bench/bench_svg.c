/* SVG load and save beside libxml2 alone: for each file given, the best
 * of several runs of Ensemble's read (libxml2's check pass, scanning and
 * the model) and write, against libxml2 parsing into its tree
 * (xmlReadMemory, no network) and serialising it (xmlDocDumpMemory). The
 * ratio (read + write) / (parse + serialise) is what the SVG work aims to
 * keep at or under 1.5. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

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

int main(int argc, char **argv) {
  int runs = 5;
  xmlInitParser();
  printf("%-40s %9s %9s %9s %9s %9s %6s\n", "file", "bytes", "ens read", "ens write", "xml parse", "xml dump", "ratio");
  for (int i = 1; i < argc; i++) {
    size_t len;
    char *data = s_slurp(argv[i], &len);
    if (!data) continue;
    double er = 1e9, ew = 1e9, xp = 1e9, xw = 1e9;
    for (int r = 0; r < runs; r++) {
      double t0 = s_now();
      ens_doc *doc = NULL;
      if (ens_svg_read(data, len, &doc) != 0) {
        fprintf(stderr, "%s: %s\n", argv[i], ens_error_last());
        break;
      }
      double t1 = s_now();
      unsigned char *out;
      size_t n;
      ens_svg_write(doc, &out, &n);
      double t2 = s_now();
      ens_free(out);
      ens_doc_free(doc);
      double t3 = s_now();
      xmlDocPtr xd = xmlReadMemory(data, (int)len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
      double t4 = s_now();
      xmlChar *xo = NULL;
      int xn = 0;
      if (xd) xmlDocDumpMemory(xd, &xo, &xn);
      double t5 = s_now();
      xmlFree(xo);
      xmlFreeDoc(xd);
      if (t1 - t0 < er) er = t1 - t0;
      if (t2 - t1 < ew) ew = t2 - t1;
      if (t4 - t3 < xp) xp = t4 - t3;
      if (t5 - t4 < xw) xw = t5 - t4;
    }
    const char *base = strrchr(argv[i], '/');
    printf("%-40.40s %9zu %8.2fms %8.2fms %8.2fms %8.2fms %6.2f\n", base ? base + 1 : argv[i], len, er, ew, xp, xw,
           (er + ew) / (xp + xw));
    free(data);
  }
  return 0;
}
