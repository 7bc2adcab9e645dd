/* Edits that add nodes: duplicate an element (fresh unique ids, internal
 * references rewritten) and insert the nodes of a markup fragment, read
 * by the file reader itself inside the namespace declarations and
 * entities the document has where it goes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/buf.h"
#include "../../util/error.h"
#include "edit_int.h"
#include "svg_int.h"

static void s_drop(ens_txn **out) {
  ens_txn_free(*out);
  *out = NULL;
}

/* --- duplicate --------------------------------------------------------------------------- */

typedef struct {
  ens__svge_set *used;
  ens__svge_idmap *map;
} s_ids_ctx;

/* Maps each id of the copy to ID-1, ID-2, ...: the first one unused. */
static int s_map_fn(const ens_obj *o, size_t depth, void *user) {
  s_ids_ctx *c = user;
  const char *s;
  size_t n;
  (void)depth;
  if (!ens__svge_is_elem(o) || ens__svge_attr(o, "id", &s, &n) || !n) return 0;
  for (size_t i = 0; i < c->map->n; i++)
    if (strlen(c->map->from[i]) == n && memcmp(c->map->from[i], s, n) == 0) return 0;
  if (c->map->n == c->map->cap) {
    size_t nc = c->map->cap ? c->map->cap * 2 : 8;
    char **f = realloc(c->map->from, nc * sizeof *f);
    if (f) c->map->from = f;
    char **t = realloc(c->map->to, nc * sizeof *t);
    if (t) c->map->to = t;
    if (!f || !t) return ens__error(ENS_ENOMEM, "out of memory");
    c->map->cap = nc;
  }
  char *from = malloc(n + 1), *to = malloc(n + 24);
  if (!from || !to) {
    free(from);
    free(to);
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  memcpy(from, s, n);
  from[n] = '\0';
  for (unsigned long k = 1;; k++) {
    snprintf(to, n + 24, "%s-%lu", from, k);
    if (!ens__svge_set_has(c->used, to, strlen(to))) break;
  }
  c->map->from[c->map->n] = from;
  c->map->to[c->map->n++] = to;
  return ens__svge_set_add(c->used, to, strlen(to));
}

int ens_svg_duplicate(ens_doc *doc, const char *elem, ens_txn **out) {
  const ens_obj *e;
  if (!out) return ens__error(ENS_EINVAL, "duplicate: no output");
  *out = NULL;
  int rc = ens__svge_elem(doc, "duplicate", elem, &e);
  if (rc) return rc;
  if (ens_obj_parent(e) == ens_doc_root(doc))
    return ens__error(ENS_EINVAL, "duplicate: %s is the root element; a drawing has one", elem);
  ens__svge_set used = {0};
  ens__svge_idmap map = {0};
  s_ids_ctx ctx = {&used, &map};
  char *pos[2] = {NULL, NULL};
  const ens_obj *parent = ens_obj_parent(e), *blank = ens__svge_blank_before(e);
  size_t k = blank ? 2 : 1;
  if ((rc = ens__svge_ids(ens_doc_root(doc), &used)) || (rc = ens_obj_walk(e, s_map_fn, &ctx))) goto done;
  /* right after the original: its blanks again, then the copy */
  if ((rc = ens__svge_positions(doc, parent, ens_obj_index(e) + 1, k, pos))) goto done;
  if ((rc = ens__svge_txn("Duplicate", out))) goto done;
  if (blank) rc = ens__svge_copy(doc, *out, ens_obj_id(parent), pos[0], NULL, blank, NULL, 0);
  if (!rc) rc = ens__svge_copy(doc, *out, ens_obj_id(parent), pos[k - 1], NULL, e, &map, 0);
  if (rc) s_drop(out);
done:
  ens__svge_pos_free(pos, 2);
  ens__svge_set_free(&used);
  ens__svge_idmap_free(&map);
  return rc;
}

/* --- insert ------------------------------------------------------------------------------- */

/* The fragment inside a wrapper element that declares the namespaces in
 * scope at parent, after the document's DOCTYPE (for its entities).
 * *lines: the lines before the fragment's first, to count errors in the
 * fragment's own lines. */
static int s_wrap(const ens_doc *doc, const ens_obj *parent, const char *markup, size_t len, ens_buf *b,
                  unsigned *lines) {
  const ens_obj *root = ens_doc_root(doc);
  *lines = 0;
  for (size_t i = 0; i < ens_obj_child_count(root); i++) {
    const ens_obj *k = ens_obj_child(root, i);
    ens_value v;
    if (strcmp(ens_obj_kind(k), ENS_SVG_DOCTYPE) != 0 || ens_obj_get(k, S_SRC, &v)) continue;
    if (v.type != ENS_BYTES && v.type != ENS_STR) continue;
    ens__buf_append(b, v.u.s.ptr, v.u.s.len);
    for (size_t j = 0; j < v.u.s.len; j++) *lines += v.u.s.ptr[j] == '\n';
  }
  const char *keys[64], *vals[64];
  size_t vlens[64], n = ens__svge_ns_scope(parent, keys, vals, vlens, 64);
  ens__buf_puts(b, "<ens-fragment");
  for (size_t i = 0; i < n; i++) {
    ens__buf_printf(b, " %s=\"", keys[i]);
    ens__svg_escape_attr(vals[i], vlens[i], '"', b);
    ens__buf_putc(b, '"');
  }
  ens__buf_putc(b, '>');
  ens__buf_append(b, markup, len);
  ens__buf_puts(b, "</ens-fragment>");
  return b->oom ? ens__error(ENS_ENOMEM, "out of memory") : 0;
}

/* Reads the fragment; *wrapper is the element whose children it made. */
static int s_read_fragment(const ens_doc *doc, const ens_obj *parent, const char *markup, size_t len, ens_doc **frag,
                           const ens_obj **wrapper) {
  ens_buf b = ENS_BUF_INIT;
  unsigned lines;
  int rc = s_wrap(doc, parent, markup, len, &b, &lines);
  if (!rc && (rc = ens_svg_read(b.data, b.len, frag))) {
    unsigned line;
    const char *msg = ens_error_last(), *colon = strchr(msg, ':');
    if (sscanf(msg, "line %u:", &line) == 1 && colon)
      rc = ens__error(rc, "insert: the fragment, line %u:%s", line > lines ? line - lines : 1, colon + 1);
    else
      rc = ens__error_prefix(rc, "insert: the fragment: ");
  }
  ens__buf_free(&b);
  if (rc) return rc;
  const ens_obj *root = ens_doc_root(*frag);
  for (size_t i = 0; i < ens_obj_child_count(root); i++)
    if (strcmp(ens_obj_kind(ens_obj_child(root, i)), "ens-fragment") == 0) *wrapper = ens_obj_child(root, i);
  return 0;
}

typedef struct {
  size_t depth;
  const ens__svge_set *used;
  const char *taken;
  size_t taken_n;
} s_frag_check;

/* A prefixed name whose prefix is not declared at o: libxml2 only warns
 * about it, and the written file would not be namespace-well-formed. */
static int s_undeclared(const ens_obj *o, const char *name) {
  const char *colon = strchr(name, ':');
  if (!colon || strncmp(name, "xmlns:", 6) == 0 || ens__svge_ns_declared(o, name, (size_t)(colon - name))) return 0;
  return ens__error(ENS_EDECODE,
                    "insert: the fragment's %s uses the prefix \"%.*s\", which is not declared there (declare it "
                    "on the drawing's root element)",
                    name, (int)(colon - name), name);
}

static int s_frag_fn(const ens_obj *o, size_t depth, void *user) {
  s_frag_check *c = user;
  const char *s;
  size_t n;
  if (!ens__svge_is_elem(o)) return 0;
  int rc = s_undeclared(o, ens_obj_kind(o));
  for (size_t i = 0; !rc && i < ens_obj_prop_count(o); i++) {
    const char *key;
    ens_value v;
    if (ens_obj_prop_at(o, i, &key, &v) == 0 && key[0] != '~') rc = s_undeclared(o, key);
  }
  if (rc) return rc;
  if (depth > c->depth) c->depth = depth;
  if (depth && ens__svge_attr(o, "id", &s, &n) == 0 && ens__svge_set_has(c->used, s, n)) {
    c->taken = s;
    c->taken_n = n;
    return 1;
  }
  return 0;
}

int ens_svg_insert(ens_doc *doc, const char *parent, long index, const char *markup, size_t len, ens_txn **out) {
  const ens_obj *p;
  if (!out) return ens__error(ENS_EINVAL, "insert: no output");
  *out = NULL;
  int rc = ens__svge_elem(doc, "insert", parent, &p);
  if (rc) return rc;
  if (!markup) return ens__error(ENS_EINVAL, "insert: no markup");
  /* where: before the index-th child element, or after the last one */
  size_t nk = ens_obj_child_count(p), elems = 0, at = nk;
  const ens_obj *last = NULL, *before = NULL;
  for (size_t i = 0; i < nk; i++) {
    const ens_obj *k = ens_obj_child(p, i);
    if (!ens__svge_is_elem(k)) continue;
    if (index >= 0 && elems == (size_t)index) before = k;
    last = k;
    elems++;
  }
  if (index < -1 || (index >= 0 && (size_t)index > elems))
    return ens__error(ENS_EINVAL, "insert: %s has %zu child elements: index %ld is not 0..%zu (or -1)", parent, elems,
                      index, elems);
  const ens_obj *blank = NULL;
  if (before) {
    at = ens_obj_index(before);
    blank = ens__svge_blank_before(before);
  } else if (last) {
    at = ens_obj_index(last) + 1;
    blank = ens__svge_blank_before(last);
  }
  size_t depth = 0;
  for (const ens_obj *o = p; o && ens_obj_parent(o); o = ens_obj_parent(o)) depth++;
  ens_doc *frag = NULL;
  const ens_obj *w = NULL;
  ens__svge_set used = {0};
  char **pos = NULL;
  size_t count = 0;
  if ((rc = s_read_fragment(doc, p, markup, len, &frag, &w))) goto done;
  count = w ? ens_obj_child_count(w) : 0;
  if (!count) {
    rc = ens__error(ENS_EINVAL, "insert: the fragment holds nothing to insert");
    goto done;
  }
  if ((rc = ens__svge_ids(ens_doc_root(doc), &used))) goto done;
  s_frag_check chk = {0, &used, NULL, 0};
  if ((rc = ens_obj_walk(w, s_frag_fn, &chk)) < 0) goto done;
  if (rc) {
    rc = ens__error(ENS_EEXISTS, "insert: the fragment's id \"%.*s\" is already used in the drawing",
                    (int)chk.taken_n, chk.taken);
    goto done;
  }
  if (depth + chk.depth > ENS__SVGE_MAX_DEPTH) {
    rc = ens__error(ENS_ELIMIT, "insert: the fragment would nest elements %zu deep (at most %d)", depth + chk.depth,
                    ENS__SVGE_MAX_DEPTH);
    goto done;
  }
  size_t total = count + (blank ? 1 : 0);
  if (!(pos = calloc(total, sizeof *pos))) {
    rc = ens__error(ENS_ENOMEM, "out of memory");
    goto done;
  }
  if ((rc = ens__svge_positions(doc, p, at, total, pos))) goto done;
  if ((rc = ens__svge_txn("Insert", out))) goto done;
  /* before an element: the fragment, then the blanks that lead to it;
     after the last: the blanks that led to it, then the fragment */
  size_t j = 0;
  if (blank && !before) rc = ens__svge_copy(doc, *out, ens_obj_id(p), pos[j++], NULL, blank, NULL, 0);
  for (size_t i = 0; i < count && !rc; i++)
    rc = ens__svge_copy(doc, *out, ens_obj_id(p), pos[j++], NULL, ens_obj_child(w, i), NULL, depth);
  if (!rc && blank && before) rc = ens__svge_copy(doc, *out, ens_obj_id(p), pos[j++], NULL, blank, NULL, 0);
  if (rc) s_drop(out);
done:
  if (pos) ens__svge_pos_free(pos, count + (blank ? 1 : 0));
  free(pos);
  ens__svge_set_free(&used);
  ens_doc_free(frag);
  return rc;
}
