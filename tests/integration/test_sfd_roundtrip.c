/* SFD fonts read and written back byte for byte, directly and through a
 * snapshot. Always: the fonts bundled with the sources (examples/ and
 * tests/resources/fonts, single files and an SFDir that FontForge wrote,
 * .notdef.glyph and .null.glyph included). With the shared corpus: every
 * font and SFDir of it, the count per set printed (skipped without it).
 * Also SFDirs split from fonts the way FontForge lays them out, and, with
 * /usr/bin/python3's fontforge, fonts that FontForge itself saves both as
 * one file and as an SFDir: both read to the same glyphs, FontForge's
 * whole count, and come back byte for byte. */
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

static const char *const s_sets[] = {"dejavu", "dejavu-history", "libertinus", "liberation", "freefont", "fontforge-tests"};

static int s_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int s_ends(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

static int s_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Names in dir ending with suffix, sorted; the caller frees them. */
static char **s_list(const char *dir, const char *suffix, size_t *n) {
  DIR *d = opendir(dir);
  *n = 0;
  if (!d) return NULL;
  char **names = NULL;
  size_t cap = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) { /* dot files too: FontForge writes .notdef.glyph */
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || !s_ends(de->d_name, suffix)) continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 32;
      names = realloc(names, cap * sizeof *names);
    }
    names[(*n)++] = strdup(de->d_name);
  }
  closedir(d);
  if (*n) qsort(names, *n, sizeof *names, s_cmp);
  return names;
}

static void s_free_list(char **names, size_t n) {
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
}

static void s_rmdir(const char *dir) {
  size_t n;
  char **names = s_list(dir, "", &n);
  char path[4096];
  for (size_t i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  s_free_list(names, n);
  rmdir(dir);
}

/* Every file of a equals the file of the same name in b, and b has no other. */
static int s_same_dirs(const char *a, const char *b) {
  size_t na, nb;
  char **la = s_list(a, "", &na), **lb = s_list(b, "", &nb);
  int same = na == nb;
  char pa[4096], pb[4096];
  for (size_t i = 0; same && i < na; i++) {
    same = strcmp(la[i], lb[i]) == 0;
    snprintf(pa, sizeof pa, "%s/%s", a, la[i]);
    snprintf(pb, sizeof pb, "%s/%s", b, lb[i]);
    if (!same || s_is_dir(pa)) continue;
    size_t x, y;
    char *da = tu_read_file(pa, &x), *db = tu_read_file(pb, &y);
    same = da && db && x == y && memcmp(da, db, x) == 0;
    if (!same) fprintf(stderr, "  %s differs\n", pb);
    free(da);
    free(db);
  }
  s_free_list(la, na);
  s_free_list(lb, nb);
  return same;
}

static ens_doc *s_through_snapshot(const ens_doc *doc) {
  unsigned char *snap;
  size_t n;
  ens_doc *copy = NULL;
  if (ens_snapshot_encode(doc, &snap, &n) != 0) return NULL;
  if (ens_snapshot_decode(snap, n, &copy) != 0) copy = NULL;
  ens_free(snap);
  return copy;
}

/* A file: read, write, same bytes; and the same through a snapshot. */
static int s_file_roundtrip(const char *path, int *snap_ok) {
  size_t len;
  char *orig = tu_read_file(path, &len);
  ens_doc *doc = NULL, *copy = NULL;
  int ok = 0;
  *snap_ok = 0;
  if (!orig) return 0;
  if (ens_sfd_read(orig, len, &doc) != 0) {
    fprintf(stderr, "  %s: %s\n", path, ens_error_last());
    goto done;
  }
  unsigned char *out;
  size_t n;
  if (ens_sfd_write(doc, &out, &n) == 0) {
    ok = n == len && memcmp(out, orig, len) == 0;
    ens_free(out);
  }
  if (!ok) fprintf(stderr, "  %s: written bytes differ\n", path);
  if ((copy = s_through_snapshot(doc)) && ens_sfd_write(copy, &out, &n) == 0) {
    *snap_ok = n == len && memcmp(out, orig, len) == 0;
    ens_free(out);
  }
done:
  ens_doc_free(copy);
  ens_doc_free(doc);
  free(orig);
  return ok;
}

/* An SFDir: read, write to a fresh directory, same files; and through a snapshot. */
static int s_dir_roundtrip(const char *path, int *snap_ok) {
  ens_doc *doc = NULL, *copy = NULL;
  char out1[] = "/tmp/ens-rt-XXXXXX", out2[] = "/tmp/ens-rt-XXXXXX";
  int ok = 0;
  *snap_ok = 0;
  if (!mkdtemp(out1) || !mkdtemp(out2)) return 0;
  if (ens_sfd_read_path(path, &doc) != 0) {
    fprintf(stderr, "  %s: %s\n", path, ens_error_last());
    goto done;
  }
  ok = ens_sfd_write_path(doc, out1) == 0 && s_same_dirs(path, out1);
  *snap_ok = (copy = s_through_snapshot(doc)) && ens_sfd_write_path(copy, out2) == 0 && s_same_dirs(path, out2);
done:
  ens_doc_free(copy);
  ens_doc_free(doc);
  s_rmdir(out1);
  s_rmdir(out2);
  return ok;
}

/* One font (a file or an SFDir); counts it and what came back identical. */
static void s_roundtrip_one(const char *path, int *count, int *same, int *snaps) {
  int snap_ok, is_dir = s_is_dir(path);
  int ok = is_dir ? s_dir_roundtrip(path, &snap_ok) : s_file_roundtrip(path, &snap_ok);
  if (!ok || !snap_ok) fprintf(stderr, "  %s: not identical%s\n", path, ok ? " through a snapshot" : "");
  (*count)++;
  *same += ok;
  *snaps += snap_ok;
}

/* The fonts bundled with the sources, whatever else is on the machine. */
static void test_bundled_roundtrip_byte_identical(void **state) {
  (void)state;
  char dir[4096], path[4096];
  int count = 0, same = 0, snaps = 0;
  snprintf(path, sizeof path, "%s/examples/LibertinusMono-Regular.sfd", tu_source_dir());
  s_roundtrip_one(path, &count, &same, &snaps);
  snprintf(dir, sizeof dir, "%s/fonts", tu_resources_dir());
  size_t nf, nd;
  char **files = s_list(dir, ".sfd", &nf), **dirs = s_list(dir, ".sfdir", &nd);
  for (size_t i = 0; i < nf + nd; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, i < nf ? files[i] : dirs[i - nf]);
    printf("  %s\n", path + strlen(tu_source_dir()) + 1);
    s_roundtrip_one(path, &count, &same, &snaps);
  }
  s_free_list(files, nf);
  s_free_list(dirs, nd);
  printf("bundled fonts: %d of %d byte-identical (%d also through a snapshot)\n", same, count, snaps);
  assert_true(nf >= 1 && nd >= 1); /* a missing bundle is a failure, not an empty pass */
  assert_int_equal(same, count);
  assert_int_equal(snaps, count);
}

static const ens_obj *s_glyph_named(const ens_doc *doc, const char *name) {
  const ens_obj *root = ens_doc_root(doc);
  for (size_t i = 0; i < ens_obj_child_count(root); i++) {
    const ens_obj *g = ens_obj_child(root, i);
    ens_value v;
    if (strcmp(ens_obj_kind(g), ENS_SFD_GLYPH) == 0 && ens_obj_get(g, "name", &v) == 0 && v.type == ENS_STR &&
        v.u.s.len == strlen(name) && memcmp(v.u.s.ptr, name, v.u.s.len) == 0)
      return g;
  }
  return NULL;
}

static size_t s_glyph_count(const ens_doc *doc) {
  const ens_obj *root = ens_doc_root(doc);
  size_t n = 0;
  for (size_t i = 0; i < ens_obj_child_count(root); i++) n += strcmp(ens_obj_kind(ens_obj_child(root, i)), ENS_SFD_GLYPH) == 0;
  return n;
}

/* FontForge names glyph files after their glyphs, so .notdef and .null
 * live in .notdef.glyph and .null.glyph: each file of the SFDir FontForge
 * wrote is a glyph of the document, those two included. */
static void test_sfdir_by_fontforge_keeps_dot_glyphs(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/fonts/EnsembleTestSans-Regular.sfdir", tu_resources_dir());
  size_t nfiles;
  char **files = s_list(dir, ".glyph", &nfiles);
  s_free_list(files, nfiles);
  ens_doc *doc = NULL;
  assert_int_equal(ens_sfd_read_path(dir, &doc), 0);
  printf("%s: %zu .glyph files, %zu glyphs read\n", dir + strlen(tu_source_dir()) + 1, nfiles, s_glyph_count(doc));
  assert_true(nfiles > 2);
  assert_int_equal(s_glyph_count(doc), nfiles);
  assert_non_null(s_glyph_named(doc, ".notdef"));
  assert_non_null(s_glyph_named(doc, ".null"));
  ens_doc_free(doc);
}

/* --- FontForge's own saves ---------------------------------------------------------------- */

#define S_PY "/usr/bin/python3"

static int s_have_fontforge(void) {
  return access(S_PY, X_OK) == 0 && system("timeout 60 " S_PY " -c 'import fontforge' >/dev/null 2>&1") == 0;
}

/* Glyph names in document order, joined by '\n' (caller frees). */
static char *s_names(const ens_doc *doc) {
  const ens_obj *root = ens_doc_root(doc);
  size_t cap = 1, n = 0;
  for (size_t i = 0; i < ens_obj_child_count(root); i++) {
    ens_value v;
    if (ens_obj_get(ens_obj_child(root, i), "name", &v) == 0 && v.type == ENS_STR) cap += v.u.s.len + 1;
  }
  char *out = malloc(cap);
  for (size_t i = 0; out && i < ens_obj_child_count(root); i++) {
    const ens_obj *g = ens_obj_child(root, i);
    ens_value v;
    if (strcmp(ens_obj_kind(g), ENS_SFD_GLYPH) != 0 || ens_obj_get(g, "name", &v) || v.type != ENS_STR) continue;
    memcpy(out + n, v.u.s.ptr, v.u.s.len);
    n += v.u.s.len;
    out[n++] = '\n';
  }
  if (out) out[n] = '\0';
  return out;
}

/* FontForge opens src and saves it as one file and as an SFDir: both read
 * as the same glyphs in the same order, as many as FontForge holds, and
 * both write back byte for byte. */
static int s_fontforge_saves(const char *src) {
  char tmp[] = "/tmp/ens-ffsave-XXXXXX", one[4200], dir[4200], cmd[16384];
  if (!mkdtemp(tmp)) return 0;
  snprintf(one, sizeof one, "%s/font.sfd", tmp);
  snprintf(dir, sizeof dir, "%s/font.sfdir", tmp);
  snprintf(cmd, sizeof cmd, "timeout 300 " S_PY " '%s/tests/integration/fontforge/ff_save.py' '%s' '%s' '%s' 2>/dev/null",
           tu_source_dir(), src, one, dir);
  FILE *p = popen(cmd, "r");
  long ff_count = -1;
  char line[1024];
  while (p && fgets(line, sizeof line, p))
    if (sscanf(line, "glyphs %ld", &ff_count) == 1) break;
  while (p && fgets(line, sizeof line, p)) {
  }
  int st = p ? pclose(p) : -1;
  ens_doc *a = NULL, *b = NULL;
  int ok = st == 0 && ens_sfd_read_path(one, &a) == 0 && ens_sfd_read_path(dir, &b) == 0;
  char *na = ok ? s_names(a) : NULL, *nb = ok ? s_names(b) : NULL;
  size_t ca = ok ? s_glyph_count(a) : 0, cb = ok ? s_glyph_count(b) : 0;
  int names_same = na && nb && strcmp(na, nb) == 0;
  int snap_a = 0, snap_b = 0;
  int rt_a = ok && s_file_roundtrip(one, &snap_a), rt_b = ok && s_dir_roundtrip(dir, &snap_b);
  printf("  %s: FontForge holds %ld glyphs; its .sfd reads as %zu, its SFDir as %zu (%s); round trips: %s, %s\n", src,
         ff_count, ca, cb, names_same ? "same names in the same order" : "names DIFFER", rt_a && snap_a ? "same" : "DIFFER",
         rt_b && snap_b ? "same" : "DIFFER");
  ok = ok && ff_count > 0 && (long)ca == ff_count && (long)cb == ff_count && names_same && rt_a && snap_a && rt_b && snap_b;
  free(na);
  free(nb);
  ens_doc_free(a);
  ens_doc_free(b);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
  return ok;
}

static void test_fontforge_saves_read_alike(void **state) {
  (void)state;
  if (!s_have_fontforge()) TU_SKIP(S_PY " cannot import fontforge (apt-get install python3-fontforge)");
  char a[4096], b[4096];
  snprintf(a, sizeof a, "%s/examples/LibertinusMono-Regular.sfd", tu_source_dir());
  snprintf(b, sizeof b, "%s/fonts/EnsembleTestSans-Regular.sfdir", tu_resources_dir());
  int ok = s_fontforge_saves(a);
  ok &= s_fontforge_saves(b);
  assert_true(ok);
}

/* Glyph files the document does not name yet (a new or renamed glyph)
 * get the names FontForge gives them: FontForge saves a font of awkward
 * names as an SFDir; read, with every glyph's file name taken away (as a
 * new glyph has none), and written to a new directory, it makes the same
 * files. */
static void test_new_glyph_files_named_as_fontforge_does(void **state) {
  (void)state;
  if (!s_have_fontforge()) TU_SKIP(S_PY " cannot import fontforge (apt-get install python3-fontforge)");
  char tmp[] = "/tmp/ens-ffnames-XXXXXX", theirs[4200], ours[4200], cmd[16384];
  assert_non_null(mkdtemp(tmp));
  snprintf(theirs, sizeof theirs, "%s/theirs.sfdir", tmp);
  snprintf(ours, sizeof ours, "%s/ours.sfdir", tmp);
  snprintf(cmd, sizeof cmd,
           "timeout 120 " S_PY " -c 'import fontforge\n"
           "f = fontforge.font()\n"
           "for n in [\".notdef\", \".null\", \"A\", \"a\", \"uni00AD\", \"uni0041_uni0042\", \"u1F600\", \"Uni00AD\",\n"
           "          \"u1f600.alt\", \"A_B\", \"uniFB01FB02\", \"u12345_A\", \"uniABCD.Sc\"]:\n"
           "    f.createChar(-1, n).width = 500\n"
           "f.save(\"%s\")' >/dev/null 2>&1",
           theirs);
  assert_int_equal(system(cmd), 0);
  ens_doc *doc = NULL;
  assert_int_equal(ens_sfd_read_path(theirs, &doc), 0);
  assert_true(ens_sfd_is_dir(doc));
  ens_txn *t = ens_txn_new("file names forgotten", NULL);
  const ens_obj *root = ens_doc_root(doc);
  size_t glyphs = 0;
  for (size_t i = 0; i < ens_obj_child_count(root); i++) {
    const ens_obj *g = ens_obj_child(root, i);
    ens_value v;
    if (strcmp(ens_obj_kind(g), ENS_SFD_GLYPH) || ens_obj_get(g, "~file", &v)) continue;
    assert_int_equal(ens_txn_set(t, ens_obj_id(g), "~file", ens_nil()), 0);
    glyphs++;
  }
  assert_int_equal(glyphs, 13);
  if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL)) fail_msg("%s", ens_error_last());
  ens_value gone;
  assert_int_not_equal(ens_obj_get(ens_glyph_find(doc, "A"), "~file", &gone), 0);
  ens_txn_free(t);
  assert_int_equal(ens_sfd_write_path(doc, ours), 0);
  ens_doc_free(doc);
  size_t nt, no;
  char **lt = s_list(theirs, ".glyph", &nt), **lo = s_list(ours, ".glyph", &no);
  int same = nt == no && nt == 13;
  for (size_t i = 0; i < nt; i++) {
    int match = i < no && strcmp(lt[i], lo[i]) == 0;
    printf("  FontForge %-24s ensemble %s\n", lt[i], i < no ? lo[i] : "-");
    same &= match;
  }
  s_free_list(lt, nt);
  s_free_list(lo, no);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
  assert_true(same);
}

static void test_corpus_roundtrip_byte_identical(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): SFD corpus round trip");
  int total = 0, total_ok = 0, sets = 0;
  for (size_t s = 0; s < sizeof s_sets / sizeof s_sets[0]; s++) {
    char dir[4096], path[4096];
    snprintf(dir, sizeof dir, "%s/sfd/%s", corpus, s_sets[s]);
    if (!s_is_dir(dir)) {
      printf("sfd/%s: absent, skipped\n", s_sets[s]);
      continue;
    }
    sets++;
    size_t nf, nd;
    char **files = s_list(dir, ".sfd", &nf), **dirs = s_list(dir, ".sfdir", &nd);
    int count = 0, same = 0, snaps = 0;
    clock_t t0 = clock();
    for (size_t i = 0; i < nf + nd; i++) {
      int is_dir = i >= nf;
      snprintf(path, sizeof path, "%s/%s", dir, is_dir ? dirs[i - nf] : files[i]);
      if (is_dir != s_is_dir(path)) continue;
      s_roundtrip_one(path, &count, &same, &snaps);
    }
    printf("sfd/%s: %d of %d byte-identical (%d also through a snapshot), %.1f s\n", s_sets[s], same, count, snaps,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    total += 2 * count;
    total_ok += same + snaps;
    s_free_list(files, nf);
    s_free_list(dirs, nd);
  }
  if (!sets) TU_SKIP("the corpus at %s has no SFD set", corpus);
  assert_int_equal(total_ok, total);
}

/* FontForge's SFDir file name for a glyph (capitals after a '_'). */
static void s_glyph_file(const char *name, size_t n, char *out, size_t size) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 8 < size; i++) {
    if (name[i] >= 'A' && name[i] <= 'Z') out[k++] = '_';
    out[k++] = name[i] == '/' ? '_' : name[i];
  }
  snprintf(out + k, size - k, ".glyph");
}

/* Splits a single-file font into FontForge's SFDir layout: the header
 * then EndSplineFont in font.props, each glyph's lines in its own file. */
static int s_split(const char *text, size_t len, const char *dir) {
  const char *p = text, *e = text + len, *bc = NULL;
  while (p < e) {
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    const char *next = nl ? nl + 1 : e;
    if (!bc && strncmp(p, "BeginChars:", 11) == 0) {
      bc = p;
      char path[4096];
      snprintf(path, sizeof path, "%s/font.props", dir);
      FILE *f = fopen(path, "wb");
      fwrite(text, 1, (size_t)(bc - text), f);
      fputs("EndSplineFont\n", f);
      fclose(f);
    } else if (bc && strncmp(p, "StartChar: ", 11) == 0) {
      const char *name = p + 11, *ne = name;
      while (ne < e && *ne != '\n' && *ne != '\r') ne++;
      const char *end = strstr(p, "\nEndChar\n");
      if (!end) return -1;
      end += 9;
      char file[512], path[4096];
      s_glyph_file(name, (size_t)(ne - name), file, sizeof file);
      snprintf(path, sizeof path, "%s/%s", dir, file);
      if (access(path, F_OK) == 0) return -1; /* two names, one file: not a font to split */
      FILE *f = fopen(path, "wb");
      fwrite(p, 1, (size_t)(end - p), f);
      fclose(f);
      next = end;
    }
    p = next;
  }
  return bc ? 0 : -1;
}

/* Splits each font into an SFDir in a fresh directory and round-trips
 * it; counts fonts split and those that came back identical. */
static void s_split_all(const char *const *paths, size_t n, int *count, int *same) {
  for (size_t i = 0; i < n; i++) {
    char src[] = "/tmp/ens-split-XXXXXX";
    size_t len;
    char *text = tu_read_file(paths[i], &len);
    if (!text || !mkdtemp(src)) {
      free(text);
      continue;
    }
    if (s_split(text, len, src) == 0) {
      int snap_ok;
      (*count)++;
      int ok = s_dir_roundtrip(src, &snap_ok);
      *same += ok && snap_ok;
      if (!ok || !snap_ok) fprintf(stderr, "  SFDir of %s: not identical\n", paths[i]);
    }
    s_rmdir(src);
    free(text);
  }
}

static void test_sfdir_split_from_bundled(void **state) {
  (void)state;
  char a[4096], b[4096];
  snprintf(a, sizeof a, "%s/examples/LibertinusMono-Regular.sfd", tu_source_dir());
  snprintf(b, sizeof b, "%s/fonts/DejaVuSans-ExtraLight-subset.sfd", tu_resources_dir());
  const char *const fonts[] = {a, b};
  int count = 0, same = 0;
  s_split_all(fonts, 2, &count, &same);
  printf("SFDir split from bundled fonts: %d of %d byte-identical\n", same, count);
  assert_int_equal(count, 2);
  assert_int_equal(same, count);
}

static void test_sfdir_split_from_corpus(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus: SFDirs split from corpus fonts");
  static const char *const names[] = {"fontforge-tests/Ambrosia.sfd", "fontforge-tests/CMAPEncTest.sfd",
                                      "dejavu/DejaVuSans-ExtraLight.sfd"};
  char paths[3][4096];
  const char *fonts[3];
  size_t n = 0;
  for (size_t i = 0; i < 3; i++) {
    snprintf(paths[n], sizeof paths[n], "%s/sfd/%s", corpus, names[i]);
    if (access(paths[n], R_OK) == 0) fonts[n] = paths[n], n++;
  }
  if (!n) TU_SKIP("the corpus at %s has none of the fonts to split", corpus);
  int count = 0, same = 0;
  s_split_all(fonts, n, &count, &same);
  printf("SFDir split from corpus fonts: %d of %d byte-identical\n", same, count);
  assert_int_equal(same, count);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bundled_roundtrip_byte_identical),
      cmocka_unit_test(test_sfdir_by_fontforge_keeps_dot_glyphs),
      cmocka_unit_test(test_sfdir_split_from_bundled),
      cmocka_unit_test(test_fontforge_saves_read_alike),
      cmocka_unit_test(test_new_glyph_files_named_as_fontforge_does),
      cmocka_unit_test(test_corpus_roundtrip_byte_identical),
      cmocka_unit_test(test_sfdir_split_from_corpus),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
