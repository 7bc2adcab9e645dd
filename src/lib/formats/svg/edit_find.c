/* Addressing elements of a drawing for the editing commands: "#ID", a
 * path of name[rank] steps from the document or from an element with an
 * id, and back from an element to its address. Ranks count the siblings
 * of one name from the first, so that an address stays short to type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "edit_int.h"

int ens__svge_is_elem(const ens_obj *o) { return o && ens_obj_parent(o) && ens_obj_kind(o)[0] != '#'; }

int ens__svge_attr(const ens_obj *o, const char *key, const char **s, size_t *n) {
  ens_value v;
  if (ens_obj_get(o, key, &v) || v.type != ENS_STR) return -1;
  *s = v.u.s.ptr;
  *n = v.u.s.len;
  return 0;
}

typedef struct {
  const char *id;
  size_t n;
  const ens_obj *found;
} s_byid;

static int s_byid_fn(const ens_obj *o, size_t depth, void *user) {
  s_byid *b = user;
  const char *s;
  size_t n;
  if (ens__svge_is_elem(o) && ens__svge_attr(o, "id", &s, &n) == 0 && n == b->n && memcmp(s, b->id, n) == 0) {
    b->found = o;
    return 1;
  }
  return 0;
}

/* The first element in document order with this id. */
static const ens_obj *s_by_id(const ens_doc *doc, const char *id, size_t n) {
  s_byid b = {id, n, NULL};
  ens_obj_walk(ens_doc_root(doc), s_byid_fn, &b);
  return b.found;
}

static int s_find(const ens_doc *doc, const char *address, const ens_obj **out);

const ens_obj *ens_svg_find(const ens_doc *doc, const char *address) {
  const ens_obj *o = NULL;
  return s_find(doc, address, &o) ? NULL : o;
}

static int s_find(const ens_doc *doc, const char *address, const ens_obj **out) {
  *out = NULL;
  if (!doc || !address || !*address)
    return ens__error(ENS_EINVAL, "an element address is \"#ID\" or a path such as \"/svg/g[1]/rect[0]\"");
  const char *p = address;
  const ens_obj *cur = ens_doc_root(doc);
  if (*p == '#') {
    const char *e = strchr(p, '/');
    size_t n = e ? (size_t)(e - p - 1) : strlen(p + 1);
    if (!n) 
      return ens__error(ENS_EINVAL, "\"%s\": an empty id", address);
    cur = s_by_id(doc, p + 1, n);
    if (!cur) 
      return ens__error(ENS_ENOTFOUND, "no element has the id \"%.*s\"", (int)n, p + 1);
    p += 1 + n;
  } else if (*p != '/') 
    return ens__error(ENS_EINVAL, "\"%s\" is not an address: write \"#ID\" or a path from the root, \"/svg/g[1]\"",
               address);
  while (*p == '/') {
    p++;
    const char *name = p;
    while (*p && *p != '[' && *p != '/') p++;
    size_t nn = (size_t)(p - name);
    unsigned long rank = 0;
    if (*p == '[') {
      char *end;
      rank = strtoul(p + 1, &end, 10);
      if (end == p + 1 || *end != ']' || p[1] == '-' || p[1] == '+') 
        return ens__error(ENS_EINVAL, "\"%s\": a step's rank is a number in brackets, \"rect[2]\"", address);
      p = end + 1;
    }
    if (!nn || (*p && *p != '/')) 
      return ens__error(ENS_EINVAL, "\"%s\": each step is an element name and an optional [rank]", address);
    const ens_obj *next = NULL;
    size_t k = ens_obj_child_count(cur);
    unsigned long seen = 0;
    for (size_t i = 0; i < k && !next; i++) {
      const ens_obj *c = ens_obj_child(cur, i);
      const char *kind = ens_obj_kind(c);
      if (kind[0] == '#' || strlen(kind) != nn || memcmp(kind, name, nn) != 0) continue;
      if (seen++ == rank) next = c;
    }
    if (!next) 
      return ens__error(ENS_ENOTFOUND, "\"%s\": no %.*s[%lu] there (%lu such elements)", address, (int)nn, name, rank,
                 seen);
    cur = next;
  }
  if (*p || !ens__svge_is_elem(cur)) 
    return ens__error(ENS_EINVAL, "\"%s\" does not name an element", address);
  *out = cur;
  return 0;
}

int ens_svg_address(const ens_obj *obj, char *buf, size_t size) {
  if (!obj || !buf || !size || !ens__svge_is_elem(obj))
    return ens__error(ENS_EINVAL, "ens_svg_address needs an element and a buffer");
  const ens_obj *root = obj;
  while (ens_obj_parent(root)) root = ens_obj_parent(root);
  /* steps from obj upwards, written right to left into tmp */
  char *tmp = malloc(size);
  if (!tmp) return ens__error(ENS_ENOMEM, "out of memory");
  size_t at = size;
  tmp[--at] = '\0';
  int rc = 0;
  for (const ens_obj *o = obj; o && ens_obj_parent(o); o = ens_obj_parent(o)) {
    const char *id;
    size_t n;
    char step[600];
    int len;
    /* an id anchors the path when no earlier element has it */
    s_byid b = {NULL, 0, NULL};
    if (ens__svge_attr(o, "id", &id, &n) == 0 && n && n < 500 && !memchr(id, '/', n)) {
      b.id = id;
      b.n = n;
      ens_obj_walk(root, s_byid_fn, &b);
    }
    if (b.found == o) {
      len = snprintf(step, sizeof step, "#%.*s", (int)n, id);
    } else {
      const ens_obj *parent = ens_obj_parent(o);
      const char *kind = ens_obj_kind(o);
      size_t rank = 0, k = ens_obj_child_count(parent);
      for (size_t i = 0; i < k; i++) {
        const ens_obj *c = ens_obj_child(parent, i);
        if (c == o) break;
        if (strcmp(ens_obj_kind(c), kind) == 0) rank++;
      }
      len = snprintf(step, sizeof step, "/%.300s[%zu]", kind, rank);
    }
    if (len < 0 || (size_t)len >= sizeof step || (size_t)len > at) {
      rc = ens__error(ENS_ELIMIT, "the element's address is longer than %zu bytes", size - 1);
      break;
    }
    at -= (size_t)len;
    memcpy(tmp + at, step, (size_t)len);
    if (step[0] == '#') break;
  }
  if (!rc) memmove(buf, tmp + at, size - at);
  free(tmp);
  return rc;
}

int ens__svge_elem(const ens_doc *doc, const char *cmd, const char *addr, const ens_obj **out) {
  *out = NULL;
  if (!doc) return ens__error(ENS_EINVAL, "%s: no document", cmd);
  if (strcmp(ens_doc_kind(doc), ENS_SVG_KIND) != 0)
    return ens__error(ENS_EINVAL, "%s: SVG edits work on drawings, not on a \"%s\" document", cmd, ens_doc_kind(doc));
  int rc = s_find(doc, addr, out);
  return rc ? ens__error_prefix(rc, "%s: ", cmd) : 0;
}
