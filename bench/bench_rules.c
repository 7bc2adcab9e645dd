/* What the formats' rules cost an apply: the same transactions applied to
 * a font and to a drawing with their schema attached and without it, as an
 * editor applies its user's changes (local, no inverse asked) and as a
 * server applies a client's (decoded, remote). Kinds of change: a point
 * moved (the hot path of dragging), a glyph's width, a glyph added and
 * removed (which numbers the font's glyphs), an attribute of an element.
 * Prints progress to stderr and one JSON object to stdout.
 *
 *   bench_rules [--rounds N] FONT.sfd DRAWING.svg */
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

static void s_die(const char *what) {
  fprintf(stderr, "bench_rules: %s: %s\n", what, ens_error_last());
  exit(1);
}

typedef struct {
  const ens_obj **v;
  size_t n, cap;
  const char *kind;
} s_list;

static int s_collect(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_list *l = user;
  if (!ens_obj_parent(o) || (l->kind[0] == '*' ? ens_obj_kind(o)[0] == '#' : strcmp(ens_obj_kind(o), l->kind) != 0))
    return 0;
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 1024;
    l->v = realloc(l->v, l->cap * sizeof *l->v);
    if (!l->v) s_die("memory");
  }
  l->v[l->n++] = o;
  return 0;
}

/* n single-property sets of key on objects of the list, values from val. */
static ens_txn **s_sets(const s_list *l, size_t n, const char *key, ens_value (*val)(size_t i, char *buf)) {
  ens_txn **t = malloc(n * sizeof *t);
  char buf[64];
  uint64_t r = 0x9e3779b97f4a7c15ULL;
  for (size_t i = 0; i < n; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    t[i] = ens_txn_new("bench", NULL);
    if (!t[i] || ens_txn_set(t[i], ens_obj_id(l->v[r % l->n]), key, val(i, buf))) s_die("txn");
  }
  return t;
}

static ens_value s_real(size_t i, char *buf) {
  (void)buf;
  return ens_real((double)(i % 1000) + 0.5);
}
static ens_value s_int(size_t i, char *buf) {
  (void)buf;
  return ens_int((int64_t)(400 + i % 300));
}
static ens_value s_str(size_t i, char *buf) {
  snprintf(buf, 64, "#%06zx", i & 0xffffff);
  return ens_str(buf);
}

/* Seconds per transaction applying t[0..n) to doc, each as origin, after
 * decoding it (remote) or as it is (local). */
static double s_apply_all(ens_doc *doc, ens_txn **t, size_t n, int remote) {
  unsigned char **enc = NULL;
  size_t *len = NULL;
  if (remote) {
    enc = malloc(n * sizeof *enc);
    len = malloc(n * sizeof *len);
    for (size_t i = 0; i < n; i++)
      if (ens_txn_encode(t[i], &enc[i], &len[i])) s_die("encode");
  }
  double t0 = s_now();
  for (size_t i = 0; i < n; i++) {
    if (remote) {
      ens_txn *d;
      if (ens_txn_decode(enc[i], len[i], &d) || ens_doc_apply(doc, d, ENS_ORIGIN_REMOTE, NULL)) s_die("apply");
      ens_txn_free(d);
    } else if (ens_doc_apply(doc, t[i], ENS_ORIGIN_LOCAL, NULL)) {
      s_die("apply");
    }
  }
  double dt = (s_now() - t0) / (double)n;
  if (remote) {
    for (size_t i = 0; i < n; i++) ens_free(enc[i]);
    free(enc);
    free(len);
  }
  return dt;
}

typedef struct {
  const char *name;
  double off, on; /* seconds per transaction, best of the rounds */
} s_row;

/* Best of rounds, the rules on and off taking turns. */
static void s_measure(s_row *row, ens_doc *doc, ens_txn **t, size_t n, int remote, int rounds) {
  const ens_schema *rules = ens_doc_schema(doc);
  row->off = row->on = 1e9;
  for (int r = 0; r < rounds; r++) {
    for (int on = 0; on < 2; on++) {
      ens_doc_set_schema(doc, on ? rules : NULL);
      double dt = s_apply_all(doc, t, n, remote);
      if (on && dt < row->on) row->on = dt;
      if (!on && dt < row->off) row->off = dt;
    }
  }
  ens_doc_set_schema(doc, rules);
  fprintf(stderr, "%-34s %8.3f us without rules, %8.3f us with (%+.0f%%)\n", row->name, row->off * 1e6, row->on * 1e6,
          (row->on / row->off - 1) * 100);
}

/* A glyph added and removed again: two transactions per round trip. */
static void s_glyph_churn(s_row *row, ens_doc *doc, size_t n, int rounds) {
  const ens_schema *rules = ens_doc_schema(doc);
  row->off = row->on = 1e9;
  for (int r = 0; r < rounds; r++)
    for (int on = 0; on < 2; on++) {
      ens_doc_set_schema(doc, on ? rules : NULL);
      double t0 = s_now();
      for (size_t i = 0; i < n; i++) {
        ens_txn *add = NULL, *inv = NULL;
        if (ens_glyph_add(doc, "benchglyph", 0xe000, 500, &add) || ens_doc_apply(doc, add, ENS_ORIGIN_LOCAL, &inv) ||
            ens_doc_apply(doc, inv, ENS_ORIGIN_UNDO, NULL))
          s_die("glyph add");
        ens_txn_free(add);
        ens_txn_free(inv);
      }
      double dt = (s_now() - t0) / (double)(2 * n);
      if (on && dt < row->on) row->on = dt;
      if (!on && dt < row->off) row->off = dt;
    }
  ens_doc_set_schema(doc, rules);
  fprintf(stderr, "%-34s %8.3f us without rules, %8.3f us with (%+.0f%%)\n", row->name, row->off * 1e6, row->on * 1e6,
          (row->on / row->off - 1) * 100);
}

int main(int argc, char **argv) {
  int rounds = 5, a = 1;
  if (a + 1 < argc && strcmp(argv[a], "--rounds") == 0) {
    rounds = atoi(argv[a + 1]);
    a += 2;
  }
  if (argc - a != 2) {
    fprintf(stderr, "usage: bench_rules [--rounds N] FONT.sfd DRAWING.svg\n");
    return 2;
  }
  ens_doc *font = NULL, *drawing = NULL;
  if (ens_sfd_read_path(argv[a], &font)) s_die(argv[a]);
  if (ens_svg_read_path(argv[a + 1], &drawing)) s_die(argv[a + 1]);
  s_list points = {NULL, 0, 0, ENS_SFD_POINT}, glyphs = {NULL, 0, 0, ENS_SFD_GLYPH}, elems = {NULL, 0, 0, "*"};
  ens_obj_walk(ens_doc_root(font), s_collect, &points);
  ens_obj_walk(ens_doc_root(font), s_collect, &glyphs);
  ens_obj_walk(ens_doc_root(drawing), s_collect, &elems);
  if (!points.n || !glyphs.n || !elems.n) s_die("nothing to edit");
  const size_t n = 100000;
  ens_txn **moves = s_sets(&points, n, "x", s_real), **widths = s_sets(&glyphs, n / 10, "width", s_int);
  ens_txn **attrs = s_sets(&elems, n, "fill", s_str);
  s_row rows[6] = {{"point moved (local)", 0, 0},  {"point moved (server: decode+apply)", 0, 0},
                   {"glyph width (local)", 0, 0},  {"glyph added and removed (local)", 0, 0},
                   {"attribute set (local)", 0, 0}, {"attribute set (server: decode+apply)", 0, 0}};
  fprintf(stderr, "bench_rules: %s (%zu points, %zu glyphs), %s (%zu elements), best of %d\n", argv[a], points.n,
          glyphs.n, argv[a + 1], elems.n, rounds);
  s_measure(&rows[0], font, moves, n, 0, rounds);
  s_measure(&rows[1], font, moves, n, 1, rounds);
  s_measure(&rows[2], font, widths, n / 10, 0, rounds);
  s_glyph_churn(&rows[3], font, 200, rounds);
  s_measure(&rows[4], drawing, attrs, n, 0, rounds);
  s_measure(&rows[5], drawing, attrs, n, 1, rounds);
  printf("{");
  for (int i = 0; i < 6; i++)
    printf("%s\"%s\": {\"without_us\": %.4f, \"with_us\": %.4f}", i ? ", " : "", rows[i].name, rows[i].off * 1e6,
           rows[i].on * 1e6);
  printf("}\n");
  for (size_t i = 0; i < n; i++) {
    ens_txn_free(moves[i]);
    ens_txn_free(attrs[i]);
    if (i < n / 10) ens_txn_free(widths[i]);
  }
  free(moves);
  free(attrs);
  free(widths);
  free(points.v);
  free(glyphs.v);
  free(elems.v);
  ens_doc_free(font);
  ens_doc_free(drawing);
  return 0;
}
