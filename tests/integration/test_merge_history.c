/* The merge on real histories: consecutive real versions of a font
 * (DejaVuSansMono, three commits) and of an Inkscape drawing (adwaita's
 * faces.svg, eleven commits). Each commit's changes (version N to N+1) are
 * split into two concurrent branches by glyph or top-level element (ours =
 * base + the changes of the first half of them, theirs = base + the
 * second half; objects that reference each other stay on one side), and
 * pairs are made where both sides edit one object (one property two ways:
 * must conflict; two properties of one object: must merge). Each side is
 * written to a file and both are merged by the `ensemble merge` command
 * and by `git merge-file`. Checked: every clean Ensemble merge is the
 * expected file byte for byte (the real next version for a split commit);
 * Ensemble conflicts exactly where both sides changed one property; the
 * conflicted file still reads (FontForge opens a font, librsvg renders a
 * drawing, where they are installed). Prints the table of docs/vcs.md
 * ("Merge on real histories"). Skips without the corpus. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"
#include "txn/ops.h"

/* --- files and processes -------------------------------------------------------------- */

static char s_tmp[256];

static void s_put(const char *name, const void *p, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", s_tmp, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

/* Runs a shell command line in the scratch directory; its exit status. */
static int s_run(const char *fmt, ...) {
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(cmd, sizeof cmd, "cd '%s' && ", s_tmp);
  vsnprintf(cmd + n, sizeof cmd - (size_t)n, fmt, ap);
  va_end(ap);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *s_ensemble(void) {
  static char path[1024];
  const char *b = getenv("ENS_BUILD_DIR");
  snprintf(path, sizeof path, "%s/ensemble", b ? b : ".");
  return path;
}

static int s_have(const char *what) { return system(what) == 0; }

/* --- documents ----------------------------------------------------------------------- */

typedef struct {
  unsigned char *p;
  size_t n;
} s_buf;

static ens_doc *s_read(int svg, const void *p, size_t n) {
  ens_doc *d = NULL;
  int rc = svg ? ens_svg_read(p, n, &d) : ens_sfd_read(p, n, &d);
  if (rc) fail_msg("does not read: %s", ens_error_last());
  return d;
}

static s_buf s_write(int svg, const ens_doc *d) {
  s_buf b = {NULL, 0};
  int rc = svg ? ens_svg_write(d, &b.p, &b.n) : ens_sfd_write(d, &b.p, &b.n);
  if (rc) fail_msg("does not write: %s", ens_error_last());
  return b;
}

/* Applies the operations of t whose mark is set (a shallow view of t: the
 * operations stay t's). */
static void s_apply_some(ens_doc *d, const ens_txn *t, const unsigned char *take) {
  ens_txn view;
  memset(&view, 0, sizeof view);
  view.ops = calloc(t->nops + 1, sizeof *view.ops);
  assert_non_null(view.ops);
  for (size_t i = 0; i < t->nops; i++)
    if (take[i]) view.ops[view.nops++] = t->ops[i];
  if (ens_doc_apply(d, &view, ENS_ORIGIN_LOCAL, NULL) != 0) fail_msg("a side does not apply: %s", ens_error_last());
  free(view.ops);
}

/* --- units: a glyph, a top-level element, an element of <defs> ------------------------- */

static int s_is_elem(const ens_obj *o) { return ens_obj_kind(o)[0] != '#'; }

static int s_is_defs(const ens_obj *o) {
  const char *k = ens_obj_kind(o);
  return strcmp(k, "defs") == 0 || strcmp(k, "svg:defs") == 0;
}

/* The unit o belongs to: for a font the glyph (or the root's own object
 * it is); for a drawing the child of the root element, or of a <defs>
 * there, that holds it. The root and root element are units of their
 * own. A blank between units is placed by s_glue. */
static const ens_obj *s_unit(int svg, const ens_obj *o) {
  const ens_obj *chain[ENS_MAX_DEPTH + 2];
  size_t d = 0;
  for (const ens_obj *x = o; x; x = ens_obj_parent(x)) chain[d++] = x;
  /* chain[d-1] is the root */
  if (!svg) return d >= 2 ? chain[d - 2] : chain[0];
  if (d < 3) return chain[0]; /* the document or a node beside the root element */
  const ens_obj *u = chain[d - 3];
  if (s_is_defs(u) && d >= 4) u = chain[d - 4];
  return u;
}

static int s_id_cmp(const void *a, const void *b) {
  ens_id x = *(const ens_id *)a, y = *(const ens_id *)b;
  return x < y ? -1 : x > y;
}

static int s_in_ids(const ens_id *ids, size_t n, ens_id id) { return bsearch(&id, ids, n, sizeof id, s_id_cmp) != NULL; }

/* A blank (or comment) between units goes with the element beside it that
 * the commit inserted or deleted as it did the blank (an editor deletes an
 * element with the blank that lays it out, and writes one with a new
 * element); failing that, with the element after it, else before it. */
static const ens_obj *s_glue(const ens_obj *u, const ens_id *same, size_t nsame) {
  if (s_is_elem(u) || !ens_obj_parent(u)) return u;
  const ens_obj *p = ens_obj_parent(u), *prev = NULL, *next = NULL;
  size_t i = ens_obj_index(u), n = ens_obj_child_count(p);
  for (size_t k = i + 1; k < n && !next; k++)
    if (s_is_elem(ens_obj_child(p, k))) next = ens_obj_child(p, k);
  for (size_t k = i; k-- > 0 && !prev;)
    if (s_is_elem(ens_obj_child(p, k))) prev = ens_obj_child(p, k);
  if (prev && s_in_ids(same, nsame, ens_obj_id(prev))) return prev;
  if (next && s_in_ids(same, nsame, ens_obj_id(next))) return next;
  return next ? next : prev ? prev : p;
}

/* Union-find over unit ids. */
typedef struct {
  ens_id *id;
  size_t *up;
  size_t n, cap;
} s_sets;

static size_t s_find(s_sets *s, ens_id id) {
  for (size_t i = 0; i < s->n; i++)
    if (s->id[i] == id) {
      while (s->up[i] != i) i = s->up[i] = s->up[s->up[i]];
      return i;
    }
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 256;
    s->id = realloc(s->id, s->cap * sizeof *s->id);
    s->up = realloc(s->up, s->cap * sizeof *s->up);
    assert_true(s->id && s->up);
  }
  s->id[s->n] = id;
  s->up[s->n] = s->n;
  return s->n++;
}

static size_t s_root(s_sets *s, size_t i) {
  while (s->up[i] != i) i = s->up[i];
  return i;
}

static void s_union(s_sets *s, size_t a, size_t b) {
  a = s_root(s, a);
  b = s_root(s, b);
  if (a != b) s->up[a > b ? a : b] = a < b ? a : b;
}

/* Element ids of a drawing, to resolve its text references. */
typedef struct {
  const ens_doc *doc;
  int svg;
  s_sets *sets;
  size_t from; /* the unit whose references are followed */
  int only_known;
} s_refctx;

static const ens_obj *s_by_id(const ens_obj *o, const char *id, size_t n) {
  ens_value v;
  if (s_is_elem(o) && ens_obj_get(o, "id", &v) == 0 && v.type == ENS_STR && v.u.s.len == n &&
      memcmp(v.u.s.ptr, id, n) == 0)
    return o;
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *f = s_by_id(ens_obj_child(o, i), id, n);
    if (f) return f;
  }
  return NULL;
}

static void s_join_unit(s_refctx *rc, const ens_obj *target) {
  if (!target) return;
  ens_id u = ens_obj_id(s_unit(rc->svg, target));
  /* only units the commit changed matter: the others are on both sides */
  for (size_t i = 0; i < rc->sets->n; i++)
    if (rc->sets->id[i] == u) {
      s_union(rc->sets, rc->from, i);
      return;
    }
}

static int s_found(const char *name, size_t len, void *ctx) {
  s_refctx *rc = ctx;
  if (len > 1 && name[0] == '#') s_join_unit(rc, s_by_id(ens_doc_root(rc->doc), name + 1, len - 1));
  return 0;
}

static int s_refs_walk(const ens_obj *o, size_t depth, void *user) {
  s_refctx *rc = user;
  for (size_t i = 0; i < ens_obj_prop_count(o); i++) {
    const char *key;
    ens_value v;
    ens_obj_prop_at(o, i, &key, &v);
    if (v.type == ENS_REF) s_join_unit(rc, ens_doc_get(rc->doc, v.u.ref));
    else if (rc->svg && key[0] != '~' && v.type == ENS_STR) ens_svg_refs(o, key, v, s_found, rc, NULL);
  }
  return 0;
}

/* --- one merge, run both ways ---------------------------------------------------------- */

typedef struct {
  const char *name, *what;
  size_t ours_units, theirs_units;
  int git_conflicts, git_right; /* git merge-file: conflicts; clean and = expected */
  int ens_status, ens_conflicts, ens_right;
  int opens; /* conflicted file opens in its editor: 1 yes, 0 no, -1 not checked */
} s_row;

static int s_rows_wrong, s_rows_spurious, s_rows_missed, s_rows_unopened;

static void s_print_row(const s_row *r) {
  printf("| %s | %s | %zu / %zu | %d%s | %d | %s |\n", r->name, r->what, r->ours_units, r->theirs_units,
         r->git_conflicts, r->git_conflicts == 0 ? (r->git_right ? " (= expected)" : " (differs)") : "",
         r->ens_conflicts,
         r->ens_status == 0 ? (r->ens_right ? "clean, = expected" : "clean, DIFFERS")
         : r->ens_status == 1 ? (r->opens == 1 ? "conflict, marked, opens" : r->opens == 0 ? "conflict, NOT OPENED MARKED" : "conflict")
                              : "TROUBLE");
  fflush(stdout);
}

/* Counts the conflicts in the JSON report of `ensemble merge --json`. */
static int s_count_conflicts(const char *json) {
  int n = 0;
  for (const char *p = json; (p = strstr(p, "{\"kind\":")); p++) n++;
  return n;
}

/* base, ours and theirs as files; expected is what a clean merge must be.
 * want_conflict: 1 when both sides changed one property. */
static void s_merge_files(int svg, const char *name, const char *what, const s_buf *base, const s_buf *ours,
                           const s_buf *theirs, const s_buf *expected, int want_conflict, size_t units_o,
                           size_t units_t) {
  s_row r;
  memset(&r, 0, sizeof r);
  r.ours_units = units_o;
  r.theirs_units = units_t;
  r.name = name;
  r.what = what;
  const char *ext = svg ? "svg" : "sfd";
  char fb[32], fo[32], ft[32], fe[32];
  snprintf(fb, sizeof fb, "base.%s", ext);
  snprintf(fo, sizeof fo, "ours.%s", ext);
  snprintf(ft, sizeof ft, "theirs.%s", ext);
  snprintf(fe, sizeof fe, "expected.%s", ext);
  s_put(fb, base->p, base->n);
  s_put(fo, ours->p, ours->n);
  s_put(ft, theirs->p, theirs->n);
  s_put(fe, expected->p, expected->n);
  r.git_conflicts = s_run("git merge-file -p --quiet %s %s %s > git.out 2>/dev/null", fo, fb, ft);
  r.git_right = r.git_conflicts == 0 && s_run("cmp -s git.out %s", fe) == 0;
  r.ens_status = s_run("'%s' merge --json -o out.%s %s %s %s > report.json", s_ensemble(), ext, fb, fo, ft);
  char path[512];
  snprintf(path, sizeof path, "%s/report.json", s_tmp);
  size_t jl = 0;
  char *json = tu_read_file(path, &jl);
  r.ens_conflicts = json ? s_count_conflicts(json) : -1;
  free(json);
  r.ens_right = r.ens_status == 0 && s_run("cmp -s out.%s %s", ext, fe) == 0;
  r.opens = -1;
  if (r.ens_status == 1) {
    /* it opens in its editor, and the conflict is marked there */
    if (!svg && s_have("/usr/bin/python3 -c 'import fontforge' 2>/dev/null"))
      r.opens = s_run("/usr/bin/python3 -c \"import fontforge,sys; f=fontforge.open('out.sfd'); "
                      "m=[g for g in f.glyphs() if g.color == 0xff0000 and 'Ensemble merge conflict' in (g.comment or '')]; "
                      "sys.exit(0 if len(m) == 1 else 1)\" >/dev/null 2>&1") == 0;
    else if (svg)
      r.opens = s_run("'%s' render out.svg --width 200 --timeout 300 -o out.png >/dev/null 2>&1 && "
                      "grep -q 'class=\"ensemble-conflict\"' out.svg && grep -q 'class=\"ensemble-theirs\"' out.svg",
                      s_ensemble()) == 0;
  }
  s_print_row(&r);
  static int row;
  row++;
  if (getenv("ENS_MERGE_KEEP") && s_run("mkdir -p row%d && cp *.%s report.json git.out row%d/", row, ext, row) != 0)
    fprintf(stderr, "could not keep the files of row %d\n", row);
  if (r.ens_status == 0 && !r.ens_right) s_rows_wrong++;
  if (r.ens_status != 0 && !want_conflict) s_rows_spurious++;
  if (want_conflict && (r.ens_status != 1 || r.ens_conflicts != 1)) s_rows_missed++;
  if (r.opens == 0) s_rows_unopened++;
}

/* --- a real commit split in two -------------------------------------------------------- */

typedef struct {
  int svg;
  const char *name;
  s_buf base_text, next_text;
  ens_doc *a, *a2; /* base: the diff's, and with the diff applied */
  ens_txn *d;      /* base -> next */
} s_commit;

static void s_commit_open(s_commit *c, int svg, const char *dir, const char *from, const char *to, const char *name) {
  char p[1024];
  memset(c, 0, sizeof *c);
  c->svg = svg;
  c->name = name;
  snprintf(p, sizeof p, "%s/%s", dir, from);
  c->base_text.p = (unsigned char *)tu_read_file(p, &c->base_text.n);
  snprintf(p, sizeof p, "%s/%s", dir, to);
  c->next_text.p = (unsigned char *)tu_read_file(p, &c->next_text.n);
  assert_true(c->base_text.p && c->next_text.p);
  c->a = s_read(svg, c->base_text.p, c->base_text.n);
  ens_doc *b = s_read(svg, c->next_text.p, c->next_text.n);
  if (ens_doc_diff(c->a, b, svg ? ens_svg_identity : ens_sfd_identity, NULL, &c->d)) fail_msg("diff: %s", ens_error_last());
  c->a2 = s_read(svg, c->base_text.p, c->base_text.n);
  if (ens_doc_apply(c->a2, c->d, ENS_ORIGIN_LOCAL, NULL)) fail_msg("the diff does not apply: %s", ens_error_last());
  /* the diff gives the next version back exactly: the expected file of a split */
  s_buf w = s_write(svg, c->a2);
  if (w.n != c->next_text.n || memcmp(w.p, c->next_text.p, w.n) != 0)
    fail_msg("%s: base with the commit's diff applied does not write the next version", name);
  ens_free(w.p);
  ens_doc_free(b);
}

static void s_commit_close(s_commit *c) {
  free(c->base_text.p);
  free(c->next_text.p);
  ens_doc_free(c->a);
  ens_doc_free(c->a2);
  ens_txn_free(c->d);
}

/* The object an operation touches, in base (a) or after the commit (a2). */
static void s_op_objs(const s_commit *c, size_t i, const ens_obj **before, const ens_obj **after) {
  const ens__op *op = &c->d->ops[i];
  ens_id id = op->kind == ENS_OP_INSERT ? op->node->id : op->target;
  *before = ens_doc_get(c->a, id);
  *after = ens_doc_get(c->a2, id);
}

/* Joins the groups of the first two objects the commit inserted next to
 * each other (no old object between them) where theirs' comes before
 * ours'; 1 when it joined two, 0 when there are none. */
static int s_join_interleaved(const s_commit *c, s_sets *sets, const size_t *unit, const int *group_of, size_t half) {
  size_t n = c->d->nops;
  for (size_t i = 0; i < n; i++) {
    const ens__op *op = &c->d->ops[i];
    if (op->kind != ENS_OP_INSERT) continue;
    const ens_obj *x = ens_doc_get(c->a2, op->node->id);
    const ens_obj *p = x ? ens_obj_parent(x) : NULL;
    if (!p) continue;
    size_t k = ens_obj_index(x);
    if (k + 1 >= ens_obj_child_count(p)) continue;
    ens_id next = ens_obj_id(ens_obj_child(p, k + 1));
    if (ens_doc_get(c->a, next)) continue; /* an old object: another place */
    size_t j;
    for (j = 0; j < n; j++)
      if (c->d->ops[j].kind == ENS_OP_INSERT && c->d->ops[j].node->id == next) break;
    if (j == n) continue;
    size_t ri = s_root(sets, unit[i]), rj = s_root(sets, unit[j]);
    if (ri != rj && (size_t)group_of[ri] >= half && (size_t)group_of[rj] < half) {
      s_union(sets, ri, rj);
      return 1;
    }
  }
  return 0;
}

/* Splits the commit by unit into halves (in the order the diff meets
 * them) and merges the halves. */
static void s_split(const s_commit *c) {
  size_t n = c->d->nops;
  size_t *unit = calloc(n + 1, sizeof *unit);
  s_sets sets;
  memset(&sets, 0, sizeof sets);
  assert_non_null(unit);
  /* what the commit inserted and deleted, for the blanks */
  ens_id *ins = calloc(n + 1, sizeof *ins), *del = calloc(n + 1, sizeof *del);
  size_t nins = 0, ndel = 0;
  assert_true(ins && del);
  for (size_t i = 0; i < n; i++) {
    const ens__op *op = &c->d->ops[i];
    if (op->kind == ENS_OP_INSERT) ins[nins++] = op->node->id;
    if (op->kind == ENS_OP_DELETE) del[ndel++] = op->target;
  }
  qsort(ins, nins, sizeof *ins, s_id_cmp);
  qsort(del, ndel, sizeof *del, s_id_cmp);
  for (size_t i = 0; i < n; i++) {
    const ens_obj *b, *a;
    int kind = c->d->ops[i].kind;
    const ens_id *same = kind == ENS_OP_DELETE ? del : ins;
    size_t nsame = kind == ENS_OP_DELETE ? ndel : kind == ENS_OP_INSERT ? nins : 0;
    s_op_objs(c, i, &b, &a);
    assert_true(a || b);
    const ens_obj *ua = a ? s_unit(c->svg, a) : NULL, *ub = b ? s_unit(c->svg, b) : NULL;
    if (c->svg && ua) ua = s_glue(ua, same, nsame);
    if (c->svg && ub) ub = s_glue(ub, same, nsame);
    unit[i] = s_find(&sets, ens_obj_id(ua ? ua : ub));
    if (ua && ub) s_union(&sets, unit[i], s_find(&sets, ens_obj_id(ub))); /* a move across units */
  }
  free(ins);
  free(del);
  /* units that name each other stay together: after the commit, and before it */
  size_t nunits = sets.n;
  for (int side = 0; side < 2; side++) {
    const ens_doc *doc = side ? c->a : c->a2;
    for (size_t u = 0; u < nunits; u++) {
      const ens_obj *o = ens_doc_get(doc, sets.id[u]);
      if (!o || !ens_obj_parent(o) || (c->svg && (!ens_obj_parent(ens_obj_parent(o)) || s_is_defs(o)))) continue;
      s_refctx rc = {doc, c->svg, &sets, u, 1};
      ens_obj_walk(o, s_refs_walk, &rc);
    }
  }
  sets.n = nunits; /* the walk may not add units */
  /* groups in order of first appearance, first half to ours */
  size_t *order = calloc(nunits + 1, sizeof *order), ngroups = 0;
  int *group_of = calloc(nunits + 1, sizeof *group_of);
  assert_true(order && group_of);
  for (int round = 0;; round++) {
    ngroups = 0;
    for (size_t u = 0; u < nunits; u++) group_of[u] = -1;
    for (size_t i = 0; i < n; i++) {
      size_t r = s_root(&sets, unit[i]);
      if (group_of[r] < 0) {
        group_of[r] = (int)ngroups;
        order[ngroups++] = r;
      }
    }
    /* Objects both sides insert at one place have no order of their own
     * (the merge puts ours' first): where the commit put one of theirs
     * before one of ours between the same two old objects, those two
     * groups are one branch's work. */
    if (round > 10000 || !s_join_interleaved(c, &sets, unit, group_of, (ngroups + 1) / 2)) break;
  }
  if (ngroups < 2) {
    printf("| %s | split | %zu group | - | - | not split: one group of changes |\n", c->name, ngroups);
    goto out;
  }
  size_t half = (ngroups + 1) / 2, units_o = 0, units_t = 0;
  for (size_t u = 0; u < nunits; u++) {
    if (group_of[s_root(&sets, u)] < 0) continue;
    if ((size_t)group_of[s_root(&sets, u)] < half) units_o++;
    else units_t++;
  }
  unsigned char *take_o = calloc(n + 1, 1), *take_t = calloc(n + 1, 1);
  assert_true(take_o && take_t);
  for (size_t i = 0; i < n; i++) {
    int g = group_of[s_root(&sets, unit[i])];
    if ((size_t)g < half) take_o[i] = 1;
    else take_t[i] = 1;
  }
  ens_doc *o = s_read(c->svg, c->base_text.p, c->base_text.n), *t = s_read(c->svg, c->base_text.p, c->base_text.n);
  s_apply_some(o, c->d, take_o);
  s_apply_some(t, c->d, take_t);
  s_buf ob = s_write(c->svg, o), tb = s_write(c->svg, t);
  char what[96];
  snprintf(what, sizeof what, "split by %s (%zu groups)", c->svg ? "element" : "glyph", ngroups);
  s_merge_files(c->svg, c->name, what, &c->base_text, &ob, &tb, &c->next_text, 0, units_o, units_t);
  ens_free(ob.p);
  ens_free(tb.p);
  ens_doc_free(o);
  ens_doc_free(t);
  free(take_o);
  free(take_t);
out:
  free(order);
  free(group_of);
  free(unit);
  free(sets.id);
  free(sets.up);
}

/* --- both sides edit one object ------------------------------------------------------- */

/* Two edits of one object of base: sets (obj, key) to v1 on ours and
 * (obj, key2) to v2 on theirs; key2 == key must conflict, else must merge
 * into base with both. */
static void s_same_object(int svg, const char *name, const s_buf *base_text, ens_id obj, const char *k1,
                          ens_value v1, const char *k2, ens_value v2) {
  ens_doc *o = s_read(svg, base_text->p, base_text->n), *t = s_read(svg, base_text->p, base_text->n),
          *e = s_read(svg, base_text->p, base_text->n);
  ens_txn *x1 = ens_txn_new(NULL, NULL), *x2 = ens_txn_new(NULL, NULL);
  assert_int_equal(ens_txn_set(x1, obj, k1, v1), 0);
  assert_int_equal(ens_txn_set(x2, obj, k2, v2), 0);
  if (ens_doc_apply(o, x1, ENS_ORIGIN_LOCAL, NULL) || ens_doc_apply(t, x2, ENS_ORIGIN_LOCAL, NULL) ||
      ens_doc_apply(e, x1, ENS_ORIGIN_LOCAL, NULL))
    fail_msg("%s: an edit does not apply: %s", name, ens_error_last());
  int same = strcmp(k1, k2) == 0;
  if (!same && ens_doc_apply(e, x2, ENS_ORIGIN_LOCAL, NULL)) fail_msg("%s: %s", name, ens_error_last());
  s_buf ob = s_write(svg, o), tb = s_write(svg, t), eb = s_write(svg, e);
  char what[200];
  const ens_obj *x = ens_doc_get(o, obj);
  snprintf(what, sizeof what, "%s %s: %s %s", same ? "one property two ways," : "two properties of one", ens_obj_kind(x),
           k1, same ? "" : k2);
  s_merge_files(svg, name, what, base_text, &ob, &tb, &eb, same, 1, 1);
  ens_free(ob.p);
  ens_free(tb.p);
  ens_free(eb.p);
  ens_txn_free(x1);
  ens_txn_free(x2);
  ens_doc_free(o);
  ens_doc_free(t);
  ens_doc_free(e);
}

/* For a drawing: the first element whose attribute the commit changed
 * (its real new value on ours); theirs changes the same attribute
 * otherwise, or another attribute of it. */
static void s_same_object_svg(const s_commit *c) {
  for (size_t i = 0; i < c->d->nops; i++) {
    const ens__op *op = &c->d->ops[i];
    if (op->kind != ENS_OP_SET || op->str[0] == '~' || op->value.type != ENS_STR) continue;
    const ens_obj *b = ens_doc_get(c->a, op->target);
    if (!b || !s_is_elem(b) || !ens_obj_parent(ens_obj_parent(b))) continue;
    /* Inkscape's view of the canvas is editor noise, never a conflict */
    if (strcmp(ens_obj_kind(b), "sodipodi:namedview") == 0 || strncmp(op->str, "inkscape:", 9) == 0) continue;
    if (strcmp(op->str, "id") == 0 || strstr(op->str, "href")) continue;
    char *other = malloc(op->value.u.s.len + 2);
    assert_non_null(other);
    memcpy(other, op->value.u.s.ptr, op->value.u.s.len);
    memcpy(other + op->value.u.s.len, " ", 2);
    s_same_object(1, c->name, &c->base_text, op->target, op->str, op->value, op->str, ens_str(other));
    /* another attribute: one the commit changed too, else a new one */
    const char *k2 = NULL;
    ens_value v2 = ens_str("0.5");
    for (size_t j = i + 1; j < c->d->nops && !k2; j++) {
      const ens__op *q = &c->d->ops[j];
      if (q->kind == ENS_OP_SET && q->target == op->target && q->str[0] != '~' && strcmp(q->str, op->str) != 0 &&
          strcmp(q->str, "id") != 0 && strncmp(q->str, "inkscape:", 9) != 0) {
        k2 = q->str;
        v2 = q->value;
      }
    }
    s_same_object(1, c->name, &c->base_text, op->target, op->str, op->value, k2 ? k2 : "opacity", v2);
    free(other);
    return;
  }
}

/* For a font: a point of the first glyph of base with an outline in its
 * foreground, moved in x on ours and, on theirs, in x otherwise (a
 * conflict) or in y (a merge); and the glyph's width on one side with the
 * point on the other. */
static const ens_obj *s_first_point(const ens_doc *d, const ens_obj **glyph) {
  const ens_obj *root = ens_doc_root(d);
  for (size_t g = 0; g < ens_obj_child_count(root); g++) {
    const ens_obj *gl = ens_obj_child(root, g);
    if (strcmp(ens_obj_kind(gl), "glyph") != 0) continue;
    for (size_t l = 0; l < ens_obj_child_count(gl); l++) {
      const ens_obj *ly = ens_obj_child(gl, l);
      if (strcmp(ens_obj_kind(ly), "layer") != 0) continue;
      for (size_t k = 0; k < ens_obj_child_count(ly); k++) {
        const ens_obj *ct = ens_obj_child(ly, k);
        if (strcmp(ens_obj_kind(ct), "contour") == 0 && ens_obj_child_count(ct) > 2) {
          *glyph = gl;
          return ens_obj_child(ct, 1);
        }
      }
    }
  }
  return NULL;
}

static void s_same_object_sfd(const s_commit *c) {
  const ens_obj *g = NULL, *p = s_first_point(c->a, &g);
  assert_non_null(p);
  ens_value x, y, w;
  assert_int_equal(ens_obj_get(p, "x", &x), 0);
  assert_int_equal(ens_obj_get(p, "y", &y), 0);
  assert_int_equal(ens_obj_get(g, "width", &w), 0);
  s_same_object(0, c->name, &c->base_text, ens_obj_id(p), "x", ens_real(x.u.r + 7), "x", ens_real(x.u.r - 9));
  s_same_object(0, c->name, &c->base_text, ens_obj_id(p), "x", ens_real(x.u.r + 7), "y", ens_real(y.u.r + 5));
  s_same_object(0, c->name, &c->base_text, ens_obj_id(g), "width", ens_int(w.u.i + 10), "width", ens_int(w.u.i + 20));
}

/* --- the cases ---------------------------------------------------------------------- */

static int s_setup_tmp(void) {
  snprintf(s_tmp, sizeof s_tmp, "/tmp/ens-merge-history-XXXXXX");
  return mkdtemp(s_tmp) ? 0 : -1;
}

/* ENS_MERGE_KEEP=1 keeps the scratch files (of the last pair run); with
 * ENS_MERGE_ONLY=NAME only pairs whose name starts so run. */
static int s_wanted(const char *name) {
  const char *only = getenv("ENS_MERGE_ONLY");
  return !only || strncmp(name, only, strlen(only)) == 0;
}

static void s_cleanup_tmp(void) {
  char cmd[512];
  if (getenv("ENS_MERGE_KEEP")) {
    printf("scratch files kept in %s\n", s_tmp);
    return;
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", s_tmp);
}

static void s_header(void) {
  printf("| pair | branches | units ours / theirs | git merge-file conflicts | Ensemble conflicts | Ensemble result |\n");
  printf("|---|---|---|---|---|---|\n");
}

static void test_dejavu_history(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no corpus");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/sfd/dejavu-history", corpus);
  static const char *const revs[] = {"358190f", "9a517dc", "ae12ffe"};
  assert_int_equal(s_setup_tmp(), 0);
  s_header();
  for (int i = 0; i + 1 < 3; i++) {
    char from[64], to[64], name[64];
    snprintf(from, sizeof from, "DejaVuSansMono.%s.sfd", revs[i]);
    snprintf(to, sizeof to, "DejaVuSansMono.%s.sfd", revs[i + 1]);
    snprintf(name, sizeof name, "DejaVuSansMono %s..%s", revs[i], revs[i + 1]);
    if (!s_wanted(name)) continue;
    s_commit c;
    s_commit_open(&c, 0, dir, from, to, name);
    s_split(&c);
    if (i == 0) s_same_object_sfd(&c);
    s_commit_close(&c);
  }
  s_cleanup_tmp();
}

static void test_adwaita_faces_history(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no corpus");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/svg/history/adwaita-faces", corpus);
  size_t nf = 0;
  char **files = tu_list_files(dir, ".svg", &nf);
  if (nf < 2) TU_SKIP("no drawing history in the corpus");
  assert_int_equal(s_setup_tmp(), 0);
  s_header();
  for (size_t i = 0; i + 1 < nf; i++) {
    const char *from = strrchr(files[i], '/') + 1, *to = strrchr(files[i + 1], '/') + 1;
    char name[128];
    snprintf(name, sizeof name, "faces %.*s..%.*s", 2, from, 2, to);
    if (!s_wanted(name)) continue;
    s_commit c;
    s_commit_open(&c, 1, dir, from, to, name);
    s_split(&c);
    s_same_object_svg(&c);
    s_commit_close(&c);
  }
  tu_files_free(files, nf);
  s_cleanup_tmp();
}

static void test_no_wrong_merge_and_conflicts_only_where_both_changed_one_property(void **state) {
  (void)state;
  if (!tu_corpus_dir()) TU_SKIP("no corpus");
  printf("wrong merges %d, conflicts where none was due %d, conflicts missed %d, conflicted files that do not open "
         "marked %d\n",
         s_rows_wrong, s_rows_spurious, s_rows_missed, s_rows_unopened);
  assert_int_equal(s_rows_wrong, 0);
  assert_int_equal(s_rows_spurious, 0);
  assert_int_equal(s_rows_missed, 0);
  assert_int_equal(s_rows_unopened, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dejavu_history),
      cmocka_unit_test(test_adwaita_faces_history),
      cmocka_unit_test(test_no_wrong_merge_and_conflicts_only_where_both_changed_one_property),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
