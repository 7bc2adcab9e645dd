/* `ensemble info` and `ensemble cat` for SVG drawings: what the SVG
 * reader made of a file, and the file written back unedited. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

typedef struct {
  const char *kind;
  size_t count;
} s_kind;

typedef struct {
  s_kind *kinds;
  size_t nkinds, cap;
  size_t props, elements, depth;
  int oom;
} s_stats;

static int s_count(const ens_obj *o, size_t depth, void *user) {
  s_stats *st = user;
  if (!ens_obj_parent(o)) return 0;
  const char *k = ens_obj_kind(o);
  if (depth > st->depth) st->depth = depth;
  if (k[0] != '#') st->elements++;
  st->props += ens_obj_prop_count(o);
  size_t i = 0;
  while (i < st->nkinds && st->kinds[i].kind != k) i++; /* kinds are interned */
  if (i == st->nkinds) {
    if (st->nkinds == st->cap) {
      size_t nc = st->cap ? st->cap * 2 : 32;
      s_kind *nk = realloc(st->kinds, nc * sizeof *nk);
      if (!nk) {
        st->oom = 1;
        return 1;
      }
      st->kinds = nk;
      st->cap = nc;
    }
    st->kinds[st->nkinds++] = (s_kind){k, 0};
  }
  st->kinds[i].count++;
  return 0;
}

static int s_by_count(const void *a, const void *b) {
  const s_kind *x = a, *y = b;
  if (x->count != y->count) return x->count < y->count ? 1 : -1;
  return strcmp(x->kind, y->kind);
}

static void s_str(const ens_obj *o, const char *key, const char *label) {
  ens_value v;
  if (ens_obj_get(o, key, &v) == 0 && (v.type == ENS_STR || v.type == ENS_BYTES))
    printf("  %-13s %.*s\n", label, (int)v.u.s.len, v.u.s.ptr);
}

int cli_info_svg(const char *cmd, const char *path) {
  ens_doc *doc = NULL;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (ens_svg_read_path(path, &doc) != 0) return cli_fail(cmd, "%s", ens_error_last());
  clock_gettime(CLOCK_MONOTONIC, &t1);
  s_stats st;
  memset(&st, 0, sizeof st);
  ens_obj_walk(ens_doc_root(doc), s_count, &st);
  if (st.oom) {
    free(st.kinds);
    ens_doc_free(doc);
    return cli_fail(cmd, "out of memory");
  }
  struct stat fs;
  unsigned long long size = stat(path, &fs) == 0 ? (unsigned long long)fs.st_size : 0;
  const ens_obj *root = ens_doc_root(doc), *top = NULL;
  printf("%s: SVG, %llu bytes\n", path, size);
  printf("  %-13s %s\n", "document", ens_doc_kind(doc));
  for (size_t i = 0; i < ens_obj_child_count(root); i++) {
    const ens_obj *k = ens_obj_child(root, i);
    if (strcmp(ens_obj_kind(k), ENS_SVG_XMLDECL) == 0) {
      s_str(k, "version", "XML version");
      s_str(k, "encoding", "encoding");
    } else if (ens_obj_kind(k)[0] != '#') {
      top = k;
    }
  }
  if (top) {
    printf("  %-13s %s\n", "root element", ens_obj_kind(top));
    s_str(top, "viewBox", "viewBox");
    s_str(top, "width", "width");
    s_str(top, "height", "height");
    s_str(top, "inkscape:version", "Inkscape");
  }
  printf("  %-13s %zu, nested %zu deep\n", "elements", st.elements, st.depth);
  printf("  %-13s %zu below the root\n", "objects", ens_doc_count(doc) - 1);
  qsort(st.kinds, st.nkinds, sizeof *st.kinds, s_by_count);
  size_t shown = st.nkinds < 24 ? st.nkinds : 24, rest = 0;
  for (size_t i = 0; i < st.nkinds; i++) {
    if (i < shown) printf("    %-20s %zu\n", st.kinds[i].kind, st.kinds[i].count);
    else rest += st.kinds[i].count;
  }
  if (rest) printf("    %zu more kinds:        %zu\n", st.nkinds - shown, rest);
  printf("  %-13s %zu\n", "properties", st.props);
  printf("  %-13s %.1f ms\n", "read in", (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
  free(st.kinds);
  ens_doc_free(doc);
  return CLI_OK;
}

int cli_cat_svg(const char *cmd, const char *path, const char *out) {
  ens_doc *doc = NULL;
  if (ens_svg_read_path(path, &doc) != 0) return cli_fail(cmd, "%s", ens_error_last());
  int rc = CLI_OK;
  if (out) {
    if (ens_svg_write_path(doc, out) != 0) rc = cli_fail(cmd, "%s: %s", out, ens_error_last());
  } else {
    unsigned char *bytes;
    size_t len;
    if (ens_svg_write(doc, &bytes, &len) != 0) {
      rc = cli_fail(cmd, "%s: %s", path, ens_error_last());
    } else {
      if (fwrite(bytes, 1, len, stdout) != len) rc = cli_fail(cmd, "writing the output failed");
      ens_free(bytes);
    }
  }
  ens_doc_free(doc);
  return rc;
}
