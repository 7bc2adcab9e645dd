/* FontForge agrees: for each font, one batch using every edit command runs
 * through the real `ensemble edit` and through FontForge's Python API
 * (fontforge/ff_batch.py); fontforge/ff_compare.py then opens both with
 * FontForge and compares them glyph by glyph, exactly. The fonts bundled
 * with the sources always; the corpus's dejavu, libertinus and liberation
 * sets when the corpus is there. Skipped (with a message) without
 * /usr/bin/python3's fontforge, and the corpus case without the corpus. */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

#define S_PY "/usr/bin/python3"

static const char *const s_sets[] = {"dejavu", "libertinus", "liberation"};

/* --- the glyphs a batch edits ------------------------------------------------------------- */

static int s_kind(const ens_obj *o, const char *kind) { return strcmp(ens_obj_kind(o), kind) == 0; }

static int s_simple_name(const ens_obj *g, char *out, size_t size) {
  ens_value v;
  if (ens_obj_get(g, "name", &v) || v.type != ENS_STR || v.u.s.len == 0 || v.u.s.len + 8 >= size) return 0;
  for (size_t i = 0; i < v.u.s.len; i++) {
    char c = v.u.s.ptr[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'))
      return 0;
  }
  memcpy(out, v.u.s.ptr, v.u.s.len);
  out[v.u.s.len] = '\0';
  return 1;
}

static const ens_obj *s_fore(const ens_obj *g) {
  for (size_t i = 0; i < ens_obj_child_count(g); i++) {
    const ens_obj *k = ens_obj_child(g, i);
    ens_value v;
    if (s_kind(k, "layer") && ens_obj_get(k, "index", &v) == 0 && v.type == ENS_INT && v.u.i == 1) return k;
  }
  return NULL;
}

static size_t s_count(const ens_obj *o, const char *kind) {
  size_t n = 0;
  for (size_t i = 0; o && i < ens_obj_child_count(o); i++) n += s_kind(ens_obj_child(o, i), kind);
  return n;
}

static const ens_obj *s_nth(const ens_obj *o, const char *kind, size_t nth) {
  for (size_t i = 0; o && i < ens_obj_child_count(o); i++)
    if (s_kind(ens_obj_child(o, i), kind) && nth-- == 0) return ens_obj_child(o, i);
  return NULL;
}

static double s_num(const ens_obj *o, const char *key) {
  ens_value v;
  if (ens_obj_get(o, key, &v)) return 0;
  return v.type == ENS_REAL ? v.u.r : v.type == ENS_INT ? (double)v.u.i : 0;
}

typedef struct {
  ens_id *ids;
  size_t n, cap;
  const char *kind; /* "ref" or "kern": whose targets */
} s_idset;

static int s_collect_targets(const ens_obj *o, size_t depth, void *user) {
  s_idset *s = user;
  ens_value v;
  (void)depth;
  if (!s_kind(o, s->kind) || ens_obj_get(o, "glyph", &v) || v.type != ENS_REF) return 0;
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 256;
    s->ids = realloc(s->ids, s->cap * sizeof *s->ids);
  }
  s->ids[s->n++] = v.u.ref;
  return 0;
}

static int s_in(const s_idset *s, ens_id id) {
  for (size_t i = 0; i < s->n; i++)
    if (s->ids[i] == id) return 1;
  return 0;
}

/* Is name a whole word of the font's own text (kerning classes, mark
 * classes, contextual lookups)? FontForge's removeGlyph leaves such names
 * behind where ensemble drops them, so the batch removes a glyph that has
 * none, to compare like with like. */
static int s_named_in_header(const ens_doc *doc, const char *name) {
  ens_value v;
  if (ens_obj_get(ens_doc_root(doc), "~head", &v) || (v.type != ENS_STR && v.type != ENS_BYTES)) return 0;
  size_t n = strlen(name);
  const char *p = v.u.s.ptr, *e = p + v.u.s.len;
  while ((p = memmem(p, (size_t)(e - p), name, n)) != NULL) {
    int before = p == v.u.s.ptr || p[-1] == ' ' || p[-1] == '\n';
    int after = p + n == e || p[n] == ' ' || p[n] == '\n' || p[n] == '\r';
    if (before && after) return 1;
    p += n;
  }
  return 0;
}

/* G1: the outline edits and metrics. Two closed contours or more, the
 * first with at least 7 points, no references, no glyph referencing it
 * (FontForge would carry a bearing change over to those), and its left
 * extreme on a whole-numbered on-curve point, so that FontForge's bearing
 * arithmetic is exact too. */
static int s_outline_candidate(const ens_doc *doc, const ens_obj *g, const s_idset *targets, double *xmin) {
  const ens_obj *fore = s_fore(g);
  if (!fore || s_count(fore, "ref") || s_count(fore, "contour") < 2 || s_in(targets, ens_obj_id(g))) return 0;
  const ens_obj *c0 = s_nth(fore, "contour", 0);
  if (ens_obj_child_count(c0) < 8) return 0;
  for (size_t i = 0; i < 2; i++)
    if (!ens_sfd_contour_closed(s_nth(fore, "contour", i))) return 0;
  char name[128];
  if (!s_simple_name(g, name, sizeof name) || ens_glyph_bounds(doc, name, xmin, NULL, NULL, NULL)) return 0;
  if (*xmin != (double)(long)*xmin) return 0;
  /* a quadratic point numbering an outgoing control before a line: FontForge's
   * Python shows a control point there that its outline does not have (see
   * docs/sfd.md), so a point-list edit there means something else to it */
  for (size_t c = 0; c < s_count(fore, "contour"); c++) {
    const ens_obj *ct = s_nth(fore, "contour", c);
    size_t n = ens_obj_child_count(ct);
    for (size_t i = 0; i < n; i++) {
      ens_value v;
      const ens_obj *next = i + 1 < n ? ens_obj_child(ct, i + 1) : n > 1 ? ens_obj_child(ct, 1) : NULL;
      if (ens_obj_get(ens_obj_child(ct, i), "nextcp", &v) == 0 && v.type == ENS_INT && v.u.i >= 0 &&
          (!next || ens_obj_get(next, "c1x", &v) != 0))
        return 0;
    }
  }
  for (size_t c = 0; c < s_count(fore, "contour"); c++) {
    const ens_obj *ct = s_nth(fore, "contour", c);
    for (size_t i = 0; i < ens_obj_child_count(ct); i++)
      if (s_num(ens_obj_child(ct, i), "x") == *xmin) return 1;
  }
  return 0;
}

/* The glyph whose metrics g uses: its first foreground reference flagged
 * "use my metrics", as FontForge picks it; 0 when none. */
static ens_id s_bound_to(const ens_obj *g) {
  const ens_obj *fore = s_fore(g);
  for (size_t i = 0; fore && i < ens_obj_child_count(fore); i++) {
    const ens_obj *k = ens_obj_child(fore, i);
    ens_value v;
    if (s_kind(k, "ref") && ens_obj_get(k, "flags", &v) == 0 && v.type == ENS_INT && (v.u.i & 1) &&
        ens_obj_get(k, "glyph", &v) == 0 && v.type == ENS_REF)
      return v.u.ref;
  }
  return 0;
}

/* Does every glyph that references g use g's metrics, and so on down?
 * FontForge also moves composites that merely share a letter's width
 * (a preference of its editor, which ensemble leaves alone: docs/sfd.md),
 * so G4 has none of those. *bound counts the composites. */
static int s_all_bound(const ens_doc *doc, const ens_obj *g, int depth, size_t *bound) {
  if (depth > 8) return 0;
  const ens_obj *root = ens_doc_root(doc);
  for (size_t i = 0; i < ens_obj_child_count(root); i++) {
    const ens_obj *d = ens_obj_child(root, i);
    if (!s_kind(d, "glyph")) continue;
    int refers = 0;
    for (size_t l = 0; l < ens_obj_child_count(d) && !refers; l++) {
      const ens_obj *layer = ens_obj_child(d, l);
      for (size_t k = 0; s_kind(layer, "layer") && k < ens_obj_child_count(layer); k++) {
        ens_value v;
        const ens_obj *r = ens_obj_child(layer, k);
        if (s_kind(r, "ref") && ens_obj_get(r, "glyph", &v) == 0 && v.type == ENS_REF && v.u.ref == ens_obj_id(g))
          refers = 1;
      }
    }
    if (!refers) continue;
    if (s_bound_to(d) != ens_obj_id(g) || !s_all_bound(doc, d, depth + 1, bound)) return 0;
    (*bound)++;
  }
  return 1;
}

/* G4: a bearing change carried over to the composites bound to the glyph
 * by "use my metrics" (their other references move): a letter (FontForge
 * carries it over only for letters) with at least two such composites,
 * no references of its own, and its left extreme on a whole-numbered
 * on-curve point. */
static int s_bound_candidate(const ens_doc *doc, const ens_obj *g, double *xmin) {
  ens_value u;
  const ens_obj *fore = s_fore(g);
  if (!fore || s_count(fore, "ref") || !s_count(fore, "contour")) return 0;
  if (ens_obj_get(g, "unicode", &u) || u.type != ENS_INT || u.u.i < 'A' || u.u.i > 'z' || (u.u.i > 'Z' && u.u.i < 'a'))
    return 0;
  size_t bound = 0;
  char name[128];
  if (!s_simple_name(g, name, sizeof name) || !s_all_bound(doc, g, 0, &bound) || bound < 2) return 0;
  if (ens_glyph_bounds(doc, name, xmin, NULL, NULL, NULL) || *xmin != (double)(long)*xmin) return 0;
  for (size_t c = 0; c < s_count(fore, "contour"); c++) {
    const ens_obj *ct = s_nth(fore, "contour", c);
    for (size_t i = 0; i < ens_obj_child_count(ct); i++)
      if (s_num(ens_obj_child(ct, i), "x") == *xmin) return 1;
  }
  return 0;
}

static int64_t s_free_code_point(const ens_doc *doc, int64_t from) {
  const ens_obj *root = ens_doc_root(doc);
  for (int64_t u = from; u < 0xF8FF; u++) {
    int used = 0;
    for (size_t i = 0; i < ens_obj_child_count(root) && !used; i++) {
      ens_value v;
      const ens_obj *g = ens_obj_child(root, i);
      used = ens_obj_get(g, "unicode", &v) == 0 && v.type == ENS_INT && v.u.i == u;
    }
    if (!used) return u;
  }
  return -1;
}

/* Writes the batch for this font; 0 when the font has no suitable glyphs. */
static int s_batch(const ens_doc *doc, const char *path, char *summary, size_t ssize) {
  const ens_obj *root = ens_doc_root(doc);
  s_idset targets = {NULL, 0, 0, "ref"}, kerned = {NULL, 0, 0, "kern"};
  ens_obj_walk(root, s_collect_targets, &targets);
  ens_obj_walk(root, s_collect_targets, &kerned);
  const ens_obj *g1 = NULL, *g2 = NULL, *g3 = NULL;
  double xmin = 0;
  for (size_t i = 0; i < ens_obj_child_count(root) && !g1; i++) {
    const ens_obj *g = ens_obj_child(root, i);
    if (s_kind(g, "glyph") && s_outline_candidate(doc, g, &targets, &xmin)) g1 = g;
  }
  const ens_obj *g4 = NULL;
  double xmin4 = 0;
  for (size_t i = 0; i < ens_obj_child_count(root) && !g4; i++) {
    const ens_obj *g = ens_obj_child(root, i);
    if (s_kind(g, "glyph") && g != g1 && s_bound_candidate(doc, g, &xmin4)) g4 = g;
  }
  /* G2 (renamed, new code point): best referenced and kerned, so that
   * both follow; G3 (removed): unreferenced, best a kerning target, so
   * that its pairs go. Names starting with '.' (.notdef) are left alone. */
  char n1[128], n2[128], n3[128];
  int score2 = -1, score3 = -1;
  for (size_t i = 0; i < ens_obj_child_count(root); i++) {
    const ens_obj *g = ens_obj_child(root, i);
    char tmp[128];
    if (!s_kind(g, "glyph") || g == g1 || g == g4 || !s_simple_name(g, tmp, sizeof tmp) || tmp[0] == '.') continue;
    int referenced = s_in(&targets, ens_obj_id(g)), kern = s_in(&kerned, ens_obj_id(g));
    int sc2 = 2 * referenced + kern, sc3 = referenced || s_named_in_header(doc, tmp) ? -1 : kern;
    if (sc2 > score2 && g != g3) g2 = g, score2 = sc2, strcpy(n2, tmp);
    else if (sc3 > score3 && s_fore(g) && s_count(s_fore(g), "contour")) g3 = g, score3 = sc3, strcpy(n3, tmp);
  }
  free(kerned.ids);
  free(targets.ids);
  if (!g1 || !g2 || !g3) return 0;
  s_simple_name(g1, n1, sizeof n1);
  const ens_obj *fore = s_fore(g1);
  const ens_obj *c0 = s_nth(fore, "contour", 0), *c1 = s_nth(fore, "contour", 1);
  size_t d = ens_obj_child_count(c0) - 1; /* distinct points of contour 0 */
  size_t last1 = ens_obj_child_count(c1) - 1;
  size_t ncontours = s_count(fore, "contour");
  int64_t width = (int64_t)s_num(g1, "width");
  double ax = s_num(ens_obj_child(c0, 1), "x"), ay = s_num(ens_obj_child(c0, 1), "y");
  double bx = s_num(ens_obj_child(c0, 2), "x"), by = s_num(ens_obj_child(c0, 2), "y");
  int64_t u1 = s_free_code_point(doc, 0xE0A0), u2 = s_free_code_point(doc, u1 + 1);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "# every command of ensemble edit, text and JSON lines\n");
  fprintf(f, "width %s %lld\n", n1, (long long)width + 20);
  fprintf(f, "lsb %s %lld\n", n1, (long long)xmin + 11);
  fprintf(f, "move %s 0:0,0:1,0:2 7 -3\n", n1);
  fprintf(f, "{\"cmd\":\"move\",\"glyph\":\"%s\",\"points\":[[1,%zu]],\"dx\":-2,\"dy\":5}\n", n1, last1);
  fprintf(f, "add-point %s 0 2 %g %g\n", n1, (ax + bx) / 2 + 3, (ay + by) / 2 - 4);
  fprintf(f, "remove-point %s 0 4\n", n1);
  fprintf(f, "reverse %s 0\n", n1);
  fprintf(f, "{\"cmd\":\"reverse\",\"glyph\":\"%s\",\"contour\":1}\n", n1);
  fprintf(f, "remove-point %s 0 0\n", n1);
  fprintf(f, "add-point %s 0 %zu %g %g\n", n1, d - 1, ax - 5, ay + 6);
  fprintf(f, "add-contour %s 10,10 60,10 80,30,80,30,60,60\n", n1);
  fprintf(f, "add-contour %s open 100,700 200,720\n", n1);
  fprintf(f, "remove-contour %s %zu\n", n1, ncontours);
  fprintf(f, "rename %s %s.ens\n", n2, n2);
  fprintf(f, "{\"cmd\":\"unicode\",\"glyph\":\"%s.ens\",\"value\":\"U+%04llX\"}\n", n2, (long long)u1);
  fprintf(f, "add-glyph ens.new 0x%llX 500\n", (long long)u2);
  fprintf(f, "add-contour ens.new 100,0 400,0 300,250,300,250,250,500\n");
  fprintf(f, "remove-glyph %s\n", n3);
  char n4[128] = "";
  if (g4) {
    s_simple_name(g4, n4, sizeof n4);
    fprintf(f, "lsb %s %lld\n", n4, (long long)xmin4 + 23);
    fprintf(f, "{\"cmd\":\"lsb\",\"glyph\":\"%s\",\"value\":%lld}\n", n4, (long long)xmin4 - 9);
  }
  fclose(f);
  snprintf(summary, ssize, "outlines and metrics on %s, rename and unicode on %s, removed %s%s%s", n1, n2, n3,
           g4 ? ", bearing with bound composites on " : "", n4);
  return 1;
}

/* --- running -------------------------------------------------------------------------------- */

static int s_run(const char *cmd, char **output) {
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += got;
    if (cap - n < 2) buf = realloc(buf, cap *= 2);
  }
  if (buf) buf[n] = '\0';
  int st = pclose(p);
  if (output) *output = buf;
  else free(buf);
  return st;
}

static int s_have_fontforge(void) {
  if (access(S_PY, X_OK) != 0) return 0;
  return s_run(S_PY " -c 'import fontforge' 2>/dev/null", NULL) == 0;
}

static void s_dir_of_this_file(char *out, size_t size) {
  snprintf(out, size, "%s/tests/integration/fontforge", tu_source_dir());
}

/* One font: batch both ways, then compare. Counts what differs. */
static void s_font(const char *font, const char *scripts, const char *ensemble, const char *tmp, int *failures) {
  ens_doc *doc = NULL;
  assert_int_equal(ens_sfd_read_path(font, &doc), 0);
  char cmds[4200], ours[4200], theirs[4200], cmd[16384], summary[512];
  const char *base = strrchr(font, '/') ? strrchr(font, '/') + 1 : font;
  /* files per font, so that ENS_KEEP_TMP=1 leaves every batch to look at */
  snprintf(cmds, sizeof cmds, "%s/%s.commands", tmp, base);
  snprintf(ours, sizeof ours, "%s/%s.ours.sfd", tmp, base);
  snprintf(theirs, sizeof theirs, "%s/%s.theirs.sfd", tmp, base);
  int ok = s_batch(doc, cmds, summary, sizeof summary);
  ens_doc_free(doc);
  if (!ok) {
    printf("  %-28s skipped: no glyphs fit the batch\n", base);
    return;
  }
  time_t t0 = time(NULL);
  char *out = NULL;
  snprintf(cmd, sizeof cmd, "'%s' edit '%s' -o '%s' --commands '%s' 2>&1", ensemble, font, ours, cmds);
  int st = s_run(cmd, &out);
  if (st != 0) {
    printf("  %-28s ensemble edit failed: %s", base, out ? out : "");
    (*failures)++;
    free(out);
    return;
  }
  free(out);
  snprintf(cmd, sizeof cmd, S_PY " '%s/ff_batch.py' '%s' '%s' '%s' 2>&1", scripts, font, cmds, theirs);
  st = s_run(cmd, &out);
  if (st != 0) {
    printf("  %-28s FontForge's batch failed: %s", base, out ? out : "");
    (*failures)++;
    free(out);
    return;
  }
  free(out);
  snprintf(cmd, sizeof cmd, S_PY " '%s/ff_compare.py' '%s' '%s' 2>/dev/null", scripts, ours, theirs);
  st = s_run(cmd, &out);
  long compared = -1;
  int diffs = 0, warnings = 0;
  for (char *line = out ? strtok(out, "\n") : NULL; line; line = strtok(NULL, "\n")) {
    if (sscanf(line, "compared %ld", &compared) == 1) continue;
    if (strncmp(line, "diff ", 5) == 0 && diffs++ < 8) printf("    %s\n", line);
    if (strncmp(line, "warning ", 8) == 0 && warnings++ < 8) printf("    %s\n", line);
  }
  printf("  %-28s %ld glyphs compared, %d differences, %d warnings (%lds): %s\n", base, compared, diffs, warnings,
         (long)(time(NULL) - t0), summary);
  if (st != 0 || compared <= 0 || diffs || warnings) (*failures)++;
  free(out);
}

typedef struct {
  char ensemble[4200], scripts[4200], tmp[64];
} s_run_ctx;

static void s_begin(s_run_ctx *c) {
  if (!s_have_fontforge())
    TU_SKIP(S_PY " cannot import fontforge; install it with: apt-get install python3-fontforge");
  const char *build = getenv("ENS_BUILD_DIR");
  snprintf(c->ensemble, sizeof c->ensemble, "%s/ensemble", build ? build : ".");
  assert_int_equal(access(c->ensemble, X_OK), 0);
  s_dir_of_this_file(c->scripts, sizeof c->scripts);
  snprintf(c->tmp, sizeof c->tmp, "/tmp/ens-ffagree-XXXXXX");
  assert_non_null(mkdtemp(c->tmp));
}

static void s_end(s_run_ctx *c) {
  char cleanup[300];
  snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", c->tmp);
  if (getenv("ENS_KEEP_TMP")) printf("batches and results kept in %s\n", c->tmp);
  else if (system(cleanup) != 0) printf("could not remove %s\n", c->tmp);
}

/* The fonts bundled with the sources: every edit command, FontForge's way. */
static void test_bundled_fonts_agree(void **state) {
  (void)state;
  s_run_ctx c;
  s_begin(&c);
  char fonts[2][4096];
  snprintf(fonts[0], sizeof fonts[0], "%s/examples/LibertinusMono-Regular.sfd", tu_source_dir());
  snprintf(fonts[1], sizeof fonts[1], "%s/fonts/DejaVuSans-ExtraLight-subset.sfd", tu_resources_dir());
  int failures = 0;
  printf("bundled:\n");
  for (size_t i = 0; i < 2; i++) s_font(fonts[i], c.scripts, c.ensemble, c.tmp, &failures);
  s_end(&c);
  printf("2 fonts, %d disagreeing\n", failures);
  assert_int_equal(failures, 0);
}

static void test_corpus_fonts_agree(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): its fonts");
  s_run_ctx c;
  s_begin(&c);
  int failures = 0, fonts = 0;
  for (size_t s = 0; s < sizeof s_sets / sizeof s_sets[0]; s++) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/sfd/%s", corpus, s_sets[s]);
    DIR *d = opendir(dir);
    if (!d) continue;
    char *names[64];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 64) {
      size_t l = strlen(de->d_name);
      if (l > 4 && strcmp(de->d_name + l - 4, ".sfd") == 0) names[n++] = strdup(de->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) /* file order, for a stable report */
      for (size_t j = i + 1; j < n; j++)
        if (strcmp(names[i], names[j]) > 0) {
          char *t = names[i];
          names[i] = names[j];
          names[j] = t;
        }
    printf("%s:\n", s_sets[s]);
    for (size_t i = 0; i < n; i++) {
      char font[4400];
      snprintf(font, sizeof font, "%s/%s", dir, names[i]);
      s_font(font, c.scripts, c.ensemble, c.tmp, &failures);
      fonts++;
      free(names[i]);
    }
  }
  s_end(&c);
  if (!fonts) TU_SKIP("the corpus at %s has none of the font sets", corpus);
  printf("%d fonts, %d disagreeing\n", fonts, failures);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bundled_fonts_agree),
                                     cmocka_unit_test(test_corpus_fonts_agree)};
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
