/* `ensemble info FILE`: what a font holds, read through the SFD reader:
 * its kind, glyph count, layers, size on disk and objects by kind. A
 * drawing goes to cmd_svg.c. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

static const cli_option s_options[] = {{0}};

static const cli_spec s_spec = {
    "info", "FILE.sfd | DIR.sfdir | FILE.svg | FILE.json|.tgs|.lottie",
    "Reads a FontForge font (a .sfd file or an SFDir directory) and describes\n"
    "it: the SFD version and font name, how many glyphs, which layers the\n"
    "glyphs use, its size on disk, the objects Ensemble made of it (by kind)\n"
    "and how long reading took. An SVG drawing is described the same way:\n"
    "its root element, encoding, elements, text nodes and objects by kind;\n"
    "a Lottie animation (.json, .tgs, .lottie) by its size, frame rate, frames, layers,\n"
    "animated properties and keyframes.",
    s_options, 1, 1};

/* Bytes on disk: the file, or every file of the directory. */
static unsigned long long s_size(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  if (!S_ISDIR(st.st_mode)) return (unsigned long long)st.st_size;
  unsigned long long total = 0;
  DIR *d = opendir(path);
  if (!d) return 0;
  struct dirent *de;
  char p[4096];
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    snprintf(p, sizeof p, "%s/%s", path, de->d_name);
    if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) total += (unsigned long long)st.st_size;
  }
  closedir(d);
  return total;
}

typedef struct {
  const char *kind;
  size_t count;
} s_kind;

typedef struct {
  s_kind kinds[32];
  size_t nkinds;
  size_t props;
  size_t layer_use[8]; /* objects of layer index 0..6, and 7 for any other */
  size_t glyphs;
} s_stats;

/* Pre-order walk with an explicit stack: a document may be deep. */
static int s_walk(const ens_doc *doc, s_stats *st) {
  size_t cap = 64, top = 0;
  const ens_obj **stack = malloc(cap * sizeof *stack);
  if (!stack) return -1;
  stack[top++] = ens_doc_root(doc);
  while (top) {
    const ens_obj *o = stack[--top];
    if (o != ens_doc_root(doc)) {
      const char *k = ens_obj_kind(o);
      size_t i = 0;
      while (i < st->nkinds && strcmp(st->kinds[i].kind, k) != 0) i++;
      if (i == st->nkinds && st->nkinds < 32) st->kinds[st->nkinds++] = (s_kind){k, 0};
      if (i < st->nkinds) st->kinds[i].count++;
      st->props += ens_obj_prop_count(o);
      ens_value v;
      if (strcmp(k, ENS_SFD_GLYPH) == 0) st->glyphs++;
      if (strcmp(k, ENS_SFD_LAYER) == 0)
        st->layer_use[ens_obj_get(o, "index", &v) == 0 && v.type == ENS_INT && v.u.i >= 0 && v.u.i < 7 ? v.u.i : 7]++;
    }
    size_t n = ens_obj_child_count(o);
    if (top + n > cap) {
      while (top + n > cap) cap *= 2;
      const ens_obj **s2 = realloc(stack, cap * sizeof *stack);
      if (!s2) {
        free(stack);
        return -1;
      }
      stack = s2;
    }
    for (size_t i = n; i-- > 0;) stack[top++] = ens_obj_child(o, i); /* children in order */
  }
  free(stack);
  return 0;
}

static void s_print_str(const ens_obj *root, const char *key, const char *label) {
  ens_value v;
  if (ens_obj_get(root, key, &v) == 0 && (v.type == ENS_STR || v.type == ENS_BYTES))
    printf("  %-13s %.*s\n", label, (int)v.u.s.len, v.u.s.ptr);
}

int cli_cmd_info(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *path = args.args[0];
  if (cli_kind_of(path) == CLI_KIND_SVG) return cli_info_svg(s_spec.name, path);
  if (cli_kind_of(path) == CLI_KIND_LOTTIE) return cli_info_lottie(s_spec.name, path);
  ens_doc *doc = NULL;
  s_stats st;
  memset(&st, 0, sizeof st);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (ens_sfd_read_path(path, &doc) != 0) return cli_fail(s_spec.name, "%s: %s", path, ens_error_last());
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (s_walk(doc, &st) != 0) {
    ens_doc_free(doc);
    return cli_fail(s_spec.name, "out of memory");
  }
  const ens_obj *root = ens_doc_root(doc);
  printf("%s: FontForge %s, %llu bytes\n", path, ens_sfd_is_dir(doc) ? "SFDir" : "SFD", s_size(path));
  printf("  %-13s %s\n", "document", ens_doc_kind(doc));
  s_print_str(root, "SplineFontDB", "version");
  s_print_str(root, "FontName", "font name");
  printf("  %-13s %zu\n", "glyphs", st.glyphs);
  static const char *const names[7] = {"Back", "Fore", "2", "3", "4", "5", "6"};
  printf("  %-13s", "layers");
  int any = 0;
  for (int i = 0; i < 8; i++) {
    if (!st.layer_use[i]) continue;
    printf("%s %s in %zu glyphs", any ? "," : "", i < 7 ? names[i] : "others", st.layer_use[i]);
    any = 1;
  }
  printf("%s\n", any ? "" : " none");
  printf("  %-13s %zu below the root\n", "objects", ens_doc_count(doc) - 1);
  for (size_t i = 0; i < st.nkinds; i++) printf("    %-11s %zu\n", st.kinds[i].kind, st.kinds[i].count);
  printf("  %-13s %zu\n", "properties", st.props);
  printf("  %-13s %.1f ms\n", "read in", (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
  ens_doc_free(doc);
  return CLI_OK;
}
