/* SVG drawings read and written back with no edits, per set: how many
 * come back byte-identical, how many only equal as canonical XML
 * (libxml2's C14N of input and output, comments kept) and why, and how
 * many neither, which must be none. A file the reader refuses counts as
 * refused; only the fuzz sets (librsvg's crash and render-crash) may have
 * such files, and each must give a message. Also through a snapshot. A
 * file written back with other bytes must render pixel for pixel as its
 * input through librsvg (a byte-identical one renders identically by
 * construction). Always over the drawings bundled in tests/resources; over
 * the shared corpus when it is there (skipped otherwise). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <libxml/c14n.h>
#include <libxml/parser.h>

#include "ensemble.h"
#include "testutil.h"

typedef struct {
  const char *name; /* as reported */
  const char *dir;  /* under svg/ in the corpus, drawings/ in the bundle */
  int fuzz;         /* refusals allowed (each with a message) */
} s_set;

static const s_set s_sets[] = {
    {"resvg-tests", "resvg-tests", 0},
    {"librsvg/svg1.1", "librsvg/rsvg/tests/fixtures/reftests/svg1.1", 0},
    {"librsvg/adwaita", "librsvg/rsvg/tests/fixtures/reftests/adwaita", 0},
    {"librsvg/crash", "librsvg/rsvg/tests/fixtures/crash", 1},
    {"librsvg/render-crash", "librsvg/rsvg/tests/fixtures/render-crash", 1},
    {"mdi", "mdi", 0},
    {"large", "large", 0},
    {"history", "history", 0},
};


/* Canonical XML of data by libxml2 (no network, entities as references),
 * or NULL when libxml2 cannot read it. */
static xmlChar *s_c14n(const char *data, size_t len, int *n) {
  xmlDocPtr doc = xmlReadMemory(data, (int)len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc) return NULL;
  xmlChar *out = NULL;
  *n = xmlC14NDocDumpMemory(doc, NULL, XML_C14N_1_0, NULL, 1, &out);
  xmlFreeDoc(doc);
  return *n >= 0 ? out : NULL;
}

enum { R_SAME, R_CANON, R_NEITHER, R_REFUSED };

/* Pixels that differ between renderings of a and b (-1: a size differs;
 * -2: one of them does not render, which is left to the caller). */
static long s_pixel_diff(const char *a, size_t an, const unsigned char *b, size_t bn) {
  ens_image ia, ib;
  ens_render_size size = {0, 0, 0};
  int ra = ens_render_svg(a, an, size, &ia), rb = ens_render_svg(b, bn, size, &ib);
  long d = ra || rb ? (ra && rb ? 0 : -2) : ens_image_diff_count(&ia, &ib);
  if (!ra) ens_image_free(&ia);
  if (!rb) ens_image_free(&ib);
  return d;
}

static int s_rendered, s_render_same;

typedef struct {
  char reason[160];
} s_why;

/* Where and how the written bytes first differ, for the report. */
static void s_explain(const char *a, size_t an, const unsigned char *b, size_t bn, s_why *why) {
  size_t i = 0;
  while (i < an && i < bn && (unsigned char)a[i] == b[i]) i++;
  char ctx[48];
  size_t k = 0;
  for (size_t j = i; j < an && k < 20; j++) ctx[k++] = a[j] >= ' ' && a[j] < 127 ? a[j] : '.';
  ctx[k] = '\0';
  snprintf(why->reason, sizeof why->reason, "first difference at byte %zu (input \"%s\")", i, ctx);
}

static int s_roundtrip(const char *path, int *snap_ok, s_why *why) {
  size_t len;
  char *orig = tu_read_file(path, &len);
  ens_doc *doc = NULL, *copy = NULL;
  int res = R_NEITHER;
  *snap_ok = 0;
  why->reason[0] = '\0';
  if (!orig) return R_NEITHER;
  if (ens_svg_read(orig, len, &doc) != 0) {
    snprintf(why->reason, sizeof why->reason, "%s", ens_error_last());
    free(orig);
    return R_REFUSED;
  }
  unsigned char *out = NULL;
  size_t n = 0;
  if (ens_svg_write(doc, &out, &n) != 0) {
    snprintf(why->reason, sizeof why->reason, "write: %s", ens_error_last());
  } else if (n == len && memcmp(out, orig, len) == 0) {
    res = R_SAME;
  } else {
    int an, bn;
    xmlChar *ca = s_c14n(orig, len, &an), *cb = s_c14n((const char *)out, n, &bn);
    if (ca && cb && an == bn && memcmp(ca, cb, (size_t)an) == 0) res = R_CANON;
    s_explain(orig, len, out, n, why);
    long d = s_pixel_diff(orig, len, out, n);
    s_rendered++;
    if (d == 0) s_render_same++;
    else fprintf(stderr, "  %s: renders differently after the round trip (%ld)\n", path, d);
    xmlFree(ca);
    xmlFree(cb);
  }
  unsigned char *snap;
  size_t sn;
  if (ens_snapshot_encode(doc, &snap, &sn) == 0) {
    if (ens_snapshot_decode(snap, sn, &copy) == 0) {
      unsigned char *o2;
      size_t n2;
      if (ens_svg_write(copy, &o2, &n2) == 0) {
        *snap_ok = n2 == n && out && memcmp(o2, out, n) == 0;
        ens_free(o2);
      }
    }
    ens_free(snap);
  }
  ens_free(out);
  ens_doc_free(copy);
  ens_doc_free(doc);
  free(orig);
  return res;
}

/* One set: prints its counts; returns how many files it had and adds
 * what must not happen to *bad. */
static size_t s_run_set(const char *dir, const char *name, int fuzz, int *bad) {
  struct {
    char **v;
    size_t n;
  } files;
  files.v = tu_list_files(dir, ".svg", &files.n);
  if (!files.n) {
    printf("svg/%s: absent, skipped\n", name);
    return 0;
  }
  int count[4] = {0}, snaps = 0, shown = 0;
  clock_t t0 = clock();
  for (size_t i = 0; i < files.n; i++) {
    int snap_ok;
    s_why why;
    int r = s_roundtrip(files.v[i], &snap_ok, &why);
    count[r]++;
    if (r != R_REFUSED && !snap_ok) {
      fprintf(stderr, "  %s: differs after a snapshot\n", files.v[i]);
      (*bad)++;
    }
    snaps += r != R_REFUSED && snap_ok;
    const char *base = files.v[i] + strlen(dir) + 1;
    if (r == R_CANON || r == R_NEITHER) printf("    %s %s: %s\n", r == R_CANON ? "canonical only" : "NEITHER", base, why.reason);
    if (r == R_REFUSED && (fuzz ? shown++ < 100 : 1)) printf("    refused %s: %s\n", base, why.reason);
    if (r == R_REFUSED && (!fuzz || !why.reason[0])) (*bad)++;
    free(files.v[i]);
  }
  free(files.v);
  printf("svg/%s: %zu files: %d byte-identical, %d canonical-XML identical only, %d neither, %d refused "
         "(%d also through a snapshot), %.1f s\n",
         name, files.n, count[R_SAME], count[R_CANON], count[R_NEITHER], count[R_REFUSED], snaps,
         (double)(clock() - t0) / CLOCKS_PER_SEC);
  *bad += count[R_NEITHER];
  return files.n;
}

static const s_set s_bundled[] = {
    {"bundled/resvg", "resvg", 0},
    {"bundled/adwaita", "adwaita", 0},
    {"bundled/mdi", "mdi", 0},
    {"bundled/librsvg-crash", "librsvg-crash", 1},
};

static void test_bundled_roundtrip(void **state) {
  (void)state;
  xmlInitParser();
  int bad = 0;
  s_rendered = s_render_same = 0;
  for (size_t s = 0; s < sizeof s_bundled / sizeof s_bundled[0]; s++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/drawings/%s", tu_resources_dir(), s_bundled[s].dir);
    /* a missing bundle is a failure, not an empty pass */
    assert_true(s_run_set(dir, s_bundled[s].name, s_bundled[s].fuzz, &bad) > 0);
  }
  printf("written back with other bytes: %d files, %d of them render pixel-identical to their input\n", s_rendered,
         s_render_same);
  bad += s_rendered - s_render_same;
  assert_int_equal(bad, 0);
}

static void test_corpus_roundtrip(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): SVG corpus round trip");
  xmlInitParser();
  int bad = 0;
  size_t found = 0;
  s_rendered = s_render_same = 0;
  for (size_t s = 0; s < sizeof s_sets / sizeof s_sets[0]; s++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/svg/%s", corpus, s_sets[s].dir);
    found += s_run_set(dir, s_sets[s].name, s_sets[s].fuzz, &bad);
  }
  if (!found) TU_SKIP("the corpus at %s has no SVG set", corpus);
  printf("written back with other bytes: %d files, %d of them render pixel-identical to their input\n", s_rendered,
         s_render_same);
  bad += s_rendered - s_render_same;
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bundled_roundtrip),
      cmocka_unit_test(test_corpus_roundtrip),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
