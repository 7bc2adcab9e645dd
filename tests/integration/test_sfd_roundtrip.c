/* Every SFD font of the shared corpus (and every SFDir there) read and
 * written back byte for byte, directly and through a snapshot; the count
 * per set is printed. Also SFDirs split from corpus fonts the way
 * FontForge lays them out. Passes with a message when the corpus is absent. */
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
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.' || !s_ends(de->d_name, suffix)) continue;
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

static void test_corpus_roundtrip_byte_identical(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) {
    printf("corpus absent (set ENSEMBLE_CORPUS): SFD round trip skipped\n");
    return;
  }
  int total = 0, total_ok = 0;
  for (size_t s = 0; s < sizeof s_sets / sizeof s_sets[0]; s++) {
    char dir[4096], path[4096];
    snprintf(dir, sizeof dir, "%s/sfd/%s", corpus, s_sets[s]);
    if (!s_is_dir(dir)) {
      printf("sfd/%s: absent, skipped\n", s_sets[s]);
      continue;
    }
    size_t nf, nd;
    char **files = s_list(dir, ".sfd", &nf), **dirs = s_list(dir, ".sfdir", &nd);
    int count = 0, same = 0, snaps = 0;
    clock_t t0 = clock();
    for (size_t i = 0; i < nf + nd; i++) {
      int is_dir = i >= nf, snap_ok;
      snprintf(path, sizeof path, "%s/%s", dir, is_dir ? dirs[i - nf] : files[i]);
      if (is_dir != s_is_dir(path)) continue;
      count++;
      same += is_dir ? s_dir_roundtrip(path, &snap_ok) : s_file_roundtrip(path, &snap_ok);
      snaps += snap_ok;
    }
    printf("sfd/%s: %d of %d byte-identical (%d also through a snapshot), %.1f s\n", s_sets[s], same, count, snaps,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    total += 2 * count;
    total_ok += same + snaps;
    s_free_list(files, nf);
    s_free_list(dirs, nd);
  }
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

static void test_sfdir_split_from_corpus(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) {
    printf("corpus absent: SFDir round trip skipped\n");
    return;
  }
  static const char *const fonts[] = {"fontforge-tests/Ambrosia.sfd", "libertinus/LibertinusMono-Regular.sfd",
                                      "fontforge-tests/CMAPEncTest.sfd"};
  int count = 0, same = 0;
  for (size_t i = 0; i < sizeof fonts / sizeof fonts[0]; i++) {
    char path[4096], src[] = "/tmp/ens-split-XXXXXX";
    snprintf(path, sizeof path, "%s/sfd/%s", corpus, fonts[i]);
    size_t len;
    char *text = tu_read_file(path, &len);
    if (!text || !mkdtemp(src)) {
      free(text);
      continue;
    }
    if (s_split(text, len, src) == 0) {
      int snap_ok;
      count++;
      int ok = s_dir_roundtrip(src, &snap_ok);
      same += ok && snap_ok;
      if (!ok || !snap_ok) fprintf(stderr, "  SFDir of %s: not identical\n", fonts[i]);
    }
    s_rmdir(src);
    free(text);
  }
  printf("SFDir split from corpus fonts: %d of %d byte-identical\n", same, count);
  assert_int_equal(same, count);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corpus_roundtrip_byte_identical),
      cmocka_unit_test(test_sfdir_split_from_corpus),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
