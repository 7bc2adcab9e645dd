/* Three-way merge time (ens_merge3) beside the diff of the same documents
 * (ens_doc_diff), on the fonts named on the command line: what the file
 * mirror pays on every save. base is the font as read; theirs a copy that
 * shares its ids (the session) with one glyph's width changed; ours the font
 * read again (matched by key, as a save read from disk is) with:
 *  - one:  another glyph's width changed (a save where little changed);
 *  - all:  every point of the font moved by one unit (the worst case: every
 *          point a change to carry over).
 * Best of N runs; one line per font and case:
 *   font case objects diff_ms merge_ms merge/diff ops conflicts */
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

static ens_doc *s_copy(const ens_doc *doc, uint32_t site) {
  unsigned char *bytes;
  size_t len;
  ens_doc *copy = NULL;
  if (ens_snapshot_encode(doc, &bytes, &len) != 0) return NULL;
  if (ens_snapshot_decode(bytes, len, &copy) != 0) copy = NULL;
  ens_free(bytes);
  if (copy) ens_doc_set_site(copy, site);
  return copy;
}

static int s_set_width(ens_doc *doc, const ens_obj *g, int delta) {
  ens_value w, name;
  if (ens_obj_get(g, "width", &w) != 0 || w.type != ENS_INT || ens_obj_get(g, "name", &name) != 0 ||
      name.type != ENS_STR)
    return -1;
  char n[256];
  snprintf(n, sizeof n, "%.*s", (int)name.u.s.len, name.u.s.ptr);
  ens_txn *t;
  if (ens_glyph_set_width(doc, n, (int)w.u.i + delta, &t) != 0) return -1;
  int rc = ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL);
  ens_txn_free(t);
  return rc;
}

/* Changes the width of the first glyph that takes it, from the start of the
 * font or from its end. */
static int s_edit_one(ens_doc *doc, int from_end, int delta) {
  const ens_obj *root = ens_doc_root(doc);
  size_t n = ens_obj_child_count(root);
  for (size_t k = 0; k < n; k++) {
    const ens_obj *g = ens_obj_child(root, from_end ? n - 1 - k : k);
    if (strcmp(ens_obj_kind(g), ENS_SFD_GLYPH) == 0 && s_set_width(doc, g, delta) == 0) return 0;
  }
  return -1;
}

typedef struct {
  ens_txn *t;
} s_all;

static int s_move_point(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_all *a = user;
  ens_value x;
  if (strcmp(ens_obj_kind(o), ENS_SFD_POINT) == 0 && ens_obj_get(o, "x", &x) == 0 && x.type == ENS_REAL)
    ens_txn_set(a->t, ens_obj_id(o), "x", ens_real(x.u.r + 1));
  return 0;
}

static int s_case(const char *font, const char *name, const ens_doc *base, const ens_doc *ours,
                  const ens_doc *theirs_model, int runs) {
  double best_diff = 1e9, best_merge = 1e9;
  size_t ops = 0, conflicts = 0;
  for (int r = 0; r < runs; r++) {
    ens_doc *a = s_copy(base, 3), *theirs = s_copy(theirs_model, 2);
    if (!a || !theirs) return -1;
    ens_txn *d;
    double t0 = s_now();
    if (ens_doc_diff(a, ours, ens_sfd_identity, NULL, &d) != 0) return -1;
    double t1 = s_now();
    ens_merge_opts opts = {ens_sfd_identity, NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_ID, ENS_MERGE_PREFER_OURS, NULL, NULL};
    ens_merge *m;
    if (ens_merge3(base, ours, theirs, &opts, &m) != 0) {
      fprintf(stderr, "%s: %s\n", font, ens_error_last());
      return -1;
    }
    double t2 = s_now();
    if (t1 - t0 < best_diff) best_diff = t1 - t0;
    if (t2 - t1 < best_merge) best_merge = t2 - t1;
    ops = ens_txn_op_count(ens_merge_txn(m));
    conflicts = ens_merge_conflict_count(m);
    if (ens_doc_apply(theirs, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL) != 0) {
      fprintf(stderr, "%s: the merge does not apply: %s\n", font, ens_error_last());
      return -1;
    }
    ens_merge_free(m);
    ens_txn_free(d);
    ens_doc_free(a);
    ens_doc_free(theirs);
  }
  const char *slash = strrchr(font, '/');
  printf("%-28s %-4s %8zu %9.1f %9.1f %6.2f %8zu %5zu\n", slash ? slash + 1 : font, name, ens_doc_count(base),
         best_diff * 1e3, best_merge * 1e3, best_merge / best_diff, ops, conflicts);
  return 0;
}

int main(int argc, char **argv) {
  int runs = 5, status = 0;
  int first = 1;
  if (argc > 2 && strcmp(argv[1], "--runs") == 0) {
    runs = atoi(argv[2]);
    first = 3;
  }
  if (first >= argc) {
    fprintf(stderr, "usage: bench_merge [--runs N] FONT.sfd...\n");
    return 2;
  }
  printf("%-28s %-4s %8s %9s %9s %6s %8s %5s\n", "font", "case", "objects", "diff_ms", "merge_ms", "ratio", "ops",
         "confl");
  for (int i = first; i < argc; i++) {
    ens_doc *base = NULL, *ours = NULL, *theirs = NULL, *all = NULL;
    if (ens_sfd_read_path(argv[i], &base) != 0 || ens_sfd_read_path(argv[i], &ours) != 0 ||
        ens_sfd_read_path(argv[i], &all) != 0 || !(theirs = s_copy(base, 2)) || s_edit_one(theirs, 1, 7) ||
        s_edit_one(ours, 0, 5)) {
      fprintf(stderr, "%s: cannot prepare: %s\n", argv[i], ens_error_last());
      status = 1;
    } else {
      s_all a = {ens_txn_new("move all", NULL)};
      ens_obj_walk(ens_doc_root(all), s_move_point, &a);
      if (ens_doc_apply(all, a.t, ENS_ORIGIN_LOCAL, NULL) != 0 || s_case(argv[i], "one", base, ours, theirs, runs) ||
          s_case(argv[i], "all", base, all, theirs, runs))
        status = 1;
      ens_txn_free(a.t);
    }
    ens_doc_free(base);
    ens_doc_free(ours);
    ens_doc_free(theirs);
    ens_doc_free(all);
  }
  return status;
}
