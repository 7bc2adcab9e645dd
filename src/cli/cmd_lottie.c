/* `ensemble cat` and `ensemble info` on a Lottie animation (.json): the
 * unedited bytes back, and what an animator asks first (size, frame rate,
 * length, layers, what moves). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

int cli_cat_lottie(const char *cmd, const char *path, const char *out) {
  ens_doc *doc = NULL;
  if (ens_lottie_read_path(path, &doc) != 0) return cli_fail(cmd, "%s", ens_error_last());
  int rc = CLI_OK;
  if (out) {
    if (ens_lottie_write_path(doc, out) != 0) rc = cli_fail(cmd, "%s: %s", out, ens_error_last());
  } else {
    unsigned char *bytes;
    size_t len;
    if (ens_lottie_write(doc, &bytes, &len) != 0) {
      rc = cli_fail(cmd, "%s: %s", path, ens_error_last());
    } else {
      if (fwrite(bytes, 1, len, stdout) != len) rc = cli_fail(cmd, "writing the output failed");
      ens_free(bytes);
    }
  }
  ens_doc_free(doc);
  return rc;
}

typedef struct {
  size_t layers, precomp_layers, shapes, assets, precomps, markers, animated, keyframes, objects;
} s_counts;

static int s_num(const ens_obj *o, const char *key, double *out) {
  ens_value v;
  if (ens_obj_get(o, key, &v) != 0) return 0;
  if (v.type == ENS_INT) *out = (double)v.u.i;
  else if (v.type == ENS_REAL) *out = v.u.r;
  else return 0;
  return 1;
}

static int s_is(const ens_obj *o, const char *kind) { return strcmp(ens_obj_kind(o), kind) == 0; }

/* The list under o named key, or NULL. */
static const ens_obj *s_list(const ens_obj *o, const char *key) {
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    ens_value v;
    if (s_is(k, ENS_LOTTIE_LIST) && ens_obj_get(k, ENS_LOTTIE_KEY, &v) == 0 && v.type == ENS_STR &&
        v.u.s.len == strlen(key) && memcmp(v.u.s.ptr, key, v.u.s.len) == 0)
      return k;
  }
  return NULL;
}

static int s_count(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_counts *c = user;
  c->objects++;
  const ens_obj *parent = ens_obj_parent(o);
  if (s_is(o, ENS_LOTTIE_LAYER)) {
    /* layers of the main composition hang off the root's list */
    const ens_obj *owner = parent ? ens_obj_parent(parent) : NULL;
    if (owner && !ens_obj_parent(owner)) c->layers++;
    else c->precomp_layers++;
  } else if (s_is(o, ENS_LOTTIE_SHAPE)) {
    c->shapes++;
  } else if (s_is(o, ENS_LOTTIE_ASSET)) {
    c->assets++;
    if (s_list(o, "layers")) c->precomps++;
  } else if (s_is(o, ENS_LOTTIE_MARKER)) {
    c->markers++;
  } else if (s_is(o, ENS_LOTTIE_KEYFRAME)) {
    c->keyframes++;
  } else if (s_is(o, ENS_LOTTIE_PROPERTY) || s_is(o, ENS_LOTTIE_OBJECT)) {
    /* animated: its "k" is a list of keyframes */
    const ens_obj *k = s_list(o, "k");
    if (k && ens_obj_child_count(k) && s_is(ens_obj_child(k, 0), ENS_LOTTIE_KEYFRAME)) c->animated++;
  }
  return 0;
}

static int s_kf(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  if (s_is(o, ENS_LOTTIE_KEYFRAME)) ++*(size_t *)user;
  return 0;
}

static void s_field(const ens_obj *o, const char *key) {
  ens_value v;
  printf(" %s=", key);
  if (ens_obj_get(o, key, &v) != 0) printf("-");
  else if (v.type == ENS_INT) printf("%lld", (long long)v.u.i);
  else if (v.type == ENS_REAL) printf("%g", v.u.r);
  else if (v.type == ENS_STR)
    for (size_t i = 0; i < v.u.s.len; i++) { /* one line per layer */
      unsigned char c = (unsigned char)v.u.s.ptr[i];
      if (c == '\n') fputs("\\n", stdout);
      else putchar(c < 0x20 ? '?' : c);
    }
  else printf("?");
}

/* One line per layer of the main composition, in file order. */
static void s_layers(const ens_obj *root) {
  const ens_obj *list = s_list(root, "layers");
  for (size_t i = 0; list && i < ens_obj_child_count(list); i++) {
    const ens_obj *l = ens_obj_child(list, i);
    size_t kf = 0;
    ens_obj_walk(l, s_kf, &kf);
    printf("    layer");
    s_field(l, "ind");
    s_field(l, "parent");
    s_field(l, "ty");
    s_field(l, "ip");
    s_field(l, "op");
    printf(" keyframes=%zu", kf);
    s_field(l, "nm");
    printf("\n");
  }
}

int cli_info_lottie(const char *cmd, const char *path) {
  ens_doc *doc = NULL;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (ens_lottie_read_path(path, &doc) != 0) return cli_fail(cmd, "%s", ens_error_last());
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const ens_obj *root = ens_doc_root(doc);
  s_counts c;
  memset(&c, 0, sizeof c);
  ens_obj_walk(root, s_count, &c);
  struct stat fs;
  unsigned long long size = stat(path, &fs) == 0 ? (unsigned long long)fs.st_size : 0;
  printf("%s: Lottie, %llu bytes\n", path, size);
  ens_value v;
  if (ens_obj_get(root, "v", &v) == 0 && v.type == ENS_STR) printf("  %-13s %.*s\n", "version", (int)v.u.s.len, v.u.s.ptr);
  if (ens_obj_get(root, "nm", &v) == 0 && v.type == ENS_STR) printf("  %-13s %.*s\n", "name", (int)v.u.s.len, v.u.s.ptr);
  double w, h, fr, ip, op;
  if (s_num(root, "w", &w) && s_num(root, "h", &h)) printf("  %-13s %g x %g\n", "size", w, h);
  int has_fr = s_num(root, "fr", &fr);
  if (has_fr) printf("  %-13s %g fps\n", "frame rate", fr);
  if (s_num(root, "ip", &ip) && s_num(root, "op", &op)) {
    printf("  %-13s %g to %g: %g frames", "frames", ip, op, op - ip);
    if (has_fr && fr > 0) printf(", %.2f s", (op - ip) / fr);
    printf("\n");
  }
  printf("  %-13s %zu", "layers", c.layers);
  if (c.precomp_layers) printf(" (and %zu in precompositions)", c.precomp_layers);
  printf("\n");
  s_layers(root);
  printf("  %-13s %zu\n", "shapes", c.shapes);
  printf("  %-13s %zu (%zu precompositions)\n", "assets", c.assets, c.precomps);
  printf("  %-13s %zu\n", "markers", c.markers);
  printf("  %-13s %zu properties, %zu keyframes\n", "animated", c.animated, c.keyframes);
  printf("  %-13s %zu below the root\n", "objects", ens_doc_count(doc) - 1);
  printf("  %-13s %.1f ms\n", "read in", (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
  ens_doc_free(doc);
  return CLI_OK;
}
