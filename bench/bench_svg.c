/* SVG load and save beside libxml2 alone: for each file given, the best
 * of several runs of Ensemble's read (libxml2's check pass, scanning and
 * the model) and write, against libxml2 parsing into its tree
 * (xmlReadMemory, no network) and serialising it (xmlDocDumpMemory), the
 * two sides alternating round by round so that a noisy moment hits both.
 * The ratio (read + write) / (parse + serialise) is what the SVG work aims
 * to keep at or under 1.5. Memory: the heap each side's document holds
 * (glibc mallinfo2, in use after minus before), per element. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <malloc.h>

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

static size_t s_heap(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

/* Elements of a libxml2 tree (iteratively: trees may be deep). */
static size_t s_xml_elements(xmlNodePtr n) {
  size_t count = 0;
  while (n) {
    if (n->type == XML_ELEMENT_NODE) count++;
    if (n->children) {
      n = n->children;
      continue;
    }
    while (n && !n->next) n = n->parent;
    if (n) n = n->next;
  }
  return count;
}

/* Collects one transaction that sets every element's first attribute to
 * the value it has: nothing changes but nothing is as read any more, so
 * the writer checks every kept text (its slowest path). */
typedef struct {
  ens_txn *txn;
} s_toucher;

static int s_touch(const ens_obj *o, size_t depth, void *user) {
  s_toucher *t = user;
  const char *key;
  ens_value v;
  if (depth == 0 || ens_obj_kind(o)[0] == '#') return 0;
  for (size_t i = 0; i < ens_obj_prop_count(o); i++)
    if (ens_obj_prop_at(o, i, &key, &v) == 0 && key[0] != '~' && (v.type == ENS_STR || v.type == ENS_BYTES))
      return ens_txn_set(t->txn, ens_obj_id(o), key, v);
  return 0;
}

/* Elements of a document read from SVG: objects whose kind does not
 * start with '#' (text, comments and the like), the root aside. */
static int s_count_elements(const ens_obj *o, size_t depth, void *user) {
  if (depth > 0 && ens_obj_kind(o)[0] != '#') ++*(size_t *)user;
  return 0;
}

int main(int argc, char **argv) {
  int runs = 7;
  if (argc > 2 && strcmp(argv[1], "--runs") == 0) {
    runs = atoi(argv[2]);
    argv += 2;
    argc -= 2;
  }
  if (argc < 2 || runs < 1) {
    fprintf(stderr, "usage: bench_svg [--runs N] FILE.svg...\n");
    return 2;
  }
  xmlInitParser();
  int worst_ok = 1;
  double worst = 0;
  printf("%-40s %9s %9s %9s %9s %9s %6s %10s %6s %9s %9s %7s\n", "file", "bytes", "ens read", "ens write", "xml parse",
         "xml dump", "ratio", "all-touched", "ratio", "elements", "ens B/el", "xml B/el");
  double worst_touched = 0;
  for (int i = 1; i < argc; i++) {
    size_t len;
    char *data = s_slurp(argv[i], &len);
    if (!data) continue;
    double er = 1e9, ew = 1e9, xp = 1e9, xw = 1e9, et = 1e9;
    size_t ens_heap = 0, xml_heap = 0, elements = 0, xml_elements = 0;
    for (int r = 0; r < runs; r++) {
      size_t h0 = s_heap();
      double t0 = s_now();
      ens_doc *doc = NULL;
      if (ens_svg_read(data, len, &doc) != 0) {
        fprintf(stderr, "%s: %s\n", argv[i], ens_error_last());
        break;
      }
      double t1 = s_now();
      ens_heap = s_heap() - h0;
      elements = 0;
      ens_obj_walk(ens_doc_root(doc), s_count_elements, &elements);
      unsigned char *out;
      size_t n;
      ens_svg_write(doc, &out, &n);
      double t2 = s_now();
      ens_free(out);
      s_toucher tc = {ens_txn_new("touch", NULL)};
      if (ens_obj_walk(ens_doc_root(doc), s_touch, &tc) == 0 && ens_doc_apply(doc, tc.txn, ENS_ORIGIN_LOCAL, NULL) == 0) {
        double t6 = s_now();
        size_t n2;
        ens_svg_write(doc, &out, &n2);
        double t7 = s_now();
        if (n2 != n) fprintf(stderr, "%s: touching every element changed the output\n", argv[i]);
        ens_free(out);
        if (t7 - t6 < et) et = t7 - t6;
      }
      ens_txn_free(tc.txn);
      ens_doc_free(doc);
      size_t h1 = s_heap();
      double t3 = s_now();
      xmlDocPtr xd = xmlReadMemory(data, (int)len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
      double t4 = s_now();
      xml_heap = s_heap() - h1;
      xml_elements = xd ? s_xml_elements(xmlDocGetRootElement(xd)) : 0;
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
    double ratio = (er + ew) / (xp + xw), touched = (er + et) / (xp + xw);
    if (ratio > worst) worst = ratio;
    if (touched > worst_touched) worst_touched = touched;
    if (elements != xml_elements) {
      fprintf(stderr, "%s: %zu elements in the document, %zu in libxml2's tree\n", argv[i], elements, xml_elements);
      worst_ok = 0;
    }
    printf("%-40.40s %9zu %8.2fms %8.2fms %8.2fms %8.2fms %6.2f %8.2fms %6.2f %9zu %9.0f %7.0f\n",
           base ? base + 1 : argv[i], len, er, ew, xp, xw, ratio, et, touched, elements,
           elements ? (double)ens_heap / (double)elements : 0,
           xml_elements ? (double)xml_heap / (double)xml_elements : 0);
    free(data);
  }
  printf("ratio: (Ensemble read + write) / (libxml2 parse + serialise), best of %d each, alternating\n", runs);
  printf("all-touched: write after one transaction touched every element (no kept tag copied unchecked);\n"
         "  its ratio is (read + that write) / (parse + serialise): worst %.2f\n", worst_touched);
  printf("B/el: heap the document holds per element (Ensemble: every node an object, source text kept)\n");
  printf("target: %s  ratio <= 1.5 on every file: worst %.2f\n", worst <= 1.5 ? "met    " : "NOT MET", worst);
  return worst <= 1.5 && worst_ok ? 0 : 1;
}
