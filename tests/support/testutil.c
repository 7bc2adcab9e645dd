/* Shared test helpers (see testutil.h). */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/doc.h"

uint64_t tu_seed(const char *test, uint64_t fallback) {
  const char *env = getenv("ENS_SEED");
  uint64_t seed = env && *env ? strtoull(env, NULL, 0) : fallback;
  fprintf(stderr, "%s: seed %llu (replay with ENS_SEED=%llu)\n", test, (unsigned long long)seed,
          (unsigned long long)seed);
  return seed;
}

typedef struct {
  ens_id *ids;
  size_t n;
} s_collect;

static int s_collect_one(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_collect *c = user;
  c->ids[c->n++] = ens_obj_id(o);
  return 0;
}

ens_id *tu_all_ids(const ens_doc *doc, size_t *count) {
  s_collect c = {malloc(ens_doc_count(doc) * sizeof(ens_id) + 1), 0};
  ens_obj_walk(ens_doc_root(doc), s_collect_one, &c);
  *count = c.n;
  return c.ids;
}

ens_id tu_pick(tu_rng *r, const ens_doc *doc, int allow_root) {
  const ens__idmap *m = &doc->ids;
  if (m->count <= 1 && !allow_root) return ENS_ID_NONE;
  for (;;) {
    ens_id id = ens__idmap_at(m, tu_below(r, (uint32_t)ens__idmap_span(m)));
    if (id == ENS_ID_NONE || (!allow_root && id == ENS_ROOT_ID)) continue;
    return id;
  }
}

ens_value tu_random_value(tu_rng *r, char *scratch, size_t size, const ens_doc *doc) {
  switch (tu_below(r, 7)) {
  case 0: return ens_int((int64_t)tu_next(r) % 100000);
  case 1: return ens_real((double)tu_below(r, 100000) / 8.0);
  case 2: {
    size_t n = 1 + tu_below(r, (uint32_t)(size - 1 < 12 ? size - 1 : 12));
    for (size_t i = 0; i < n; i++) scratch[i] = (char)('a' + tu_below(r, 26));
    return ens_strn(scratch, n);
  }
  case 3: {
    size_t n = tu_below(r, (uint32_t)(size < 8 ? size : 8));
    for (size_t i = 0; i < n; i++) scratch[i] = (char)tu_below(r, 256);
    return ens_bytes(scratch, n);
  }
  case 4: return ens_bool((int)tu_below(r, 2));
  case 5: return ens_ref(tu_pick(r, doc, 1));
  default: return tu_below(r, 2) ? ens_nil() : ens_int(tu_below(r, 10));
  }
}

static const char *s_kinds[] = {"group", "shape", "point"};
static const char *s_keys[] = {"a", "b", "c", "d", "w", "x"};

static void s_fill_node(tu_rng *r, ens_node *n, const ens_doc *doc) {
  char scratch[16];
  int np = (int)tu_below(r, 4);
  for (int i = 0; i < np; i++) {
    ens_value v = tu_random_value(r, scratch, sizeof scratch, doc);
    if (v.type != ENS_NIL) ens_node_set(n, s_keys[tu_below(r, 6)], v);
  }
}

ens_doc *tu_random_doc(tu_rng *r, uint32_t site, size_t n) {
  ens_doc *doc = ens_doc_new("test", site);
  size_t made = 1;
  char name[32];
  while (made < n) {
    ens_txn *t = ens_txn_new("build", NULL);
    for (int k = 0; k < 50 && made < n; k++, made++) {
      /* parents among existing objects, pre-existing in the document */
      ens_id parent = tu_pick(r, doc, 1);
      const ens_obj *p = ens_doc_get(doc, parent);
      char *pos = NULL;
      ens_doc_pos_at(doc, parent, tu_below(r, (uint32_t)ens_obj_child_count(p) + 1), &pos);
      ens_node *node = ens_txn_insert(t, parent, pos, ens_doc_new_id(doc), s_kinds[tu_below(r, 3)]);
      ens_free(pos);
      snprintf(name, sizeof name, "o%zu", made);
      ens_node_set(node, "name", ens_str(name));
      s_fill_node(r, node, doc);
      /* apply one insert at a time so the next can pick it as a parent */
      if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) != 0) {
        fprintf(stderr, "tu_random_doc: %s\n", ens_error_last());
        abort();
      }
      ens_txn_free(t);
      t = ens_txn_new("build", NULL);
    }
    ens_txn_free(t);
  }
  return doc;
}

ens_txn *tu_random_txn(tu_rng *r, ens_doc *doc, int max_ops) {
  ens_txn *t = ens_txn_new("random", "tester");
  int nops = 1 + (int)tu_below(r, (uint32_t)max_ops);
  char scratch[16];
  for (int i = 0; i < nops; i++) {
    uint32_t dice = tu_below(r, 100);
    if (dice < 50) {
      ens_id id = tu_pick(r, doc, 1);
      ens_txn_set(t, id, s_keys[tu_below(r, 6)], tu_random_value(r, scratch, sizeof scratch, doc));
    } else if (dice < 65) {
      ens_id parent = tu_pick(r, doc, 1);
      const ens_obj *p = ens_doc_get(doc, parent);
      char *pos = NULL;
      ens_doc_pos_at(doc, parent, tu_below(r, (uint32_t)ens_obj_child_count(p) + 1), &pos);
      ens_node *node = ens_txn_insert(t, parent, pos, ens_doc_new_id(doc), s_kinds[tu_below(r, 3)]);
      ens_free(pos);
      s_fill_node(r, node, doc);
      uint32_t kids = tu_below(r, 3);
      const char *kpos[] = {"F", "V", "k"};
      for (uint32_t k = 0; k < kids; k++) s_fill_node(r, ens_node_add_child(node, kpos[k], ens_doc_new_id(doc), "point"), doc);
    } else if (dice < 75) {
      ens_id id = tu_pick(r, doc, 0);
      /* mostly small subtrees, so that documents keep their size */
      const ens_obj *o = id ? ens_doc_get(doc, id) : NULL;
      while (o && ens_obj_child_count(o) && tu_below(r, 64))
        o = ens_obj_child(o, tu_below(r, (uint32_t)ens_obj_child_count(o)));
      if (o) {
        ens_txn_delete(t, ens_obj_id(o));
        /* sometimes an edit of what was just deleted (the object or one of
         * its descendants) follows: the whole transaction must be refused */
        if (tu_below(r, 4) == 0) {
          while (ens_obj_child_count(o) && tu_below(r, 2)) o = ens_obj_child(o, 0);
          ens_txn_set(t, ens_obj_id(o), "a", ens_int(7));
          i++;
        }
      }
    } else if (dice < 95) {
      ens_id id = tu_pick(r, doc, 0), parent = tu_pick(r, doc, 1);
      if (!id) continue;
      const ens_obj *p = ens_doc_get(doc, parent);
      char *pos = NULL;
      ens_doc_pos_at(doc, parent, tu_below(r, (uint32_t)ens_obj_child_count(p) + 1), &pos);
      ens_txn_move(t, id, parent, pos); /* may make a cycle: apply must refuse */
      ens_free(pos);
    } else {
      /* an edit of an object that does not exist (deleted or never made) */
      ens_txn_set(t, ens_id_make(77, 1 + tu_below(r, 1000)), "a", ens_int(1));
    }
  }
  return t;
}

const char *tu_source_dir(void) {
  const char *src = getenv("ENS_SOURCE_DIR");
  if (src && *src) return src;
#ifdef ENS_TEST_SOURCE_DIR
  return ENS_TEST_SOURCE_DIR;
#else
  return ".";
#endif
}

const char *tu_resources_dir(void) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/tests/resources", tu_source_dir());
  return path;
}

const char *tu_corpus_dir(void) {
  static char path[4096];
  const char *env = getenv("ENSEMBLE_CORPUS");
  if (env && *env) return access(env, R_OK) == 0 ? env : NULL;
  snprintf(path, sizeof path, "%s/../shared/corpus", tu_source_dir());
  return access(path, R_OK) == 0 ? path : NULL;
}

int tu_skipped;

int tu_exit(int failed, size_t cases) {
  if (failed) return failed;
  return cases && (size_t)tu_skipped >= cases ? 77 : 0;
}

char *tu_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *d = n >= 0 ? malloc((size_t)n + 1) : NULL;
  size_t got = d ? fread(d, 1, (size_t)n, f) : 0;
  fclose(f);
  if (!d) return NULL;
  d[got] = '\0';
  *len = got;
  return d;
}

typedef struct {
  char **v;
  size_t n, cap;
} s_files;

static void s_walk(const char *dir, const char *suffix, s_files *out) {
  DIR *d = opendir(dir);
  if (!d) return;
  size_t sl = strlen(suffix);
  struct dirent *de;
  char path[4096];
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    size_t nl = strlen(de->d_name);
    if (S_ISDIR(st.st_mode)) {
      s_walk(path, suffix, out);
    } else if (nl >= sl && strcmp(de->d_name + nl - sl, suffix) == 0) {
      if (out->n == out->cap) {
        out->cap = out->cap ? out->cap * 2 : 256;
        char **v = realloc(out->v, out->cap * sizeof *v);
        if (!v) break;
        out->v = v;
      }
      if ((out->v[out->n] = strdup(path)) != NULL) out->n++;
    }
  }
  closedir(d);
}

static int s_path_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char **tu_list_files(const char *dir, const char *suffix, size_t *count) {
  s_files f = {0};
  s_walk(dir, suffix, &f);
  if (f.n) qsort(f.v, f.n, sizeof *f.v, s_path_cmp);
  *count = f.n;
  return f.v;
}

void tu_files_free(char **files, size_t count) {
  for (size_t i = 0; i < count; i++) free(files[i]);
  free(files);
}

char *tu_replaced(const char *text, const char *const *pairs) {
  char *cur = strdup(text);
  for (size_t i = 0; cur && pairs[i]; i += 2) {
    const char *at = strstr(cur, pairs[i]);
    if (!at) {
      fprintf(stderr, "expected text not found: %s\n", pairs[i]);
      free(cur);
      return NULL;
    }
    size_t a = (size_t)(at - cur), fl = strlen(pairs[i]), tl = strlen(pairs[i + 1]);
    char *next = malloc(strlen(cur) - fl + tl + 1);
    if (next) {
      memcpy(next, cur, a);
      memcpy(next + a, pairs[i + 1], tl);
      strcpy(next + a + tl, cur + a + fl);
    }
    free(cur);
    cur = next;
  }
  return cur;
}
