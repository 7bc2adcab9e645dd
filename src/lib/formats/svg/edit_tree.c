/* Edits of the element tree that keep every node: raise and lower in
 * z-order, group and ungroup, and delete. Elements move with their ids
 * (move operations), so their kept source text goes with them and each
 * is written as it was; the blank text between elements is placed so
 * that each element stays on its own line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/buf.h"
#include "../../util/error.h"
#include "edit_int.h"

static void s_drop(ens_txn **out) {
  ens_txn_free(*out);
  *out = NULL;
}

/* The next (dir 1) or previous (dir -1) element sibling, or NULL. */
static const ens_obj *s_elem_sibling(const ens_obj *o, int dir) {
  const ens_obj *parent = ens_obj_parent(o);
  size_t n = ens_obj_child_count(parent), i = ens_obj_index(o);
  while (dir > 0 ? i + 1 < n : i > 0) {
    i = dir > 0 ? i + 1 : i - 1;
    const ens_obj *k = ens_obj_child(parent, i);
    if (ens__svge_is_elem(k)) return k;
  }
  return NULL;
}

static const char *s_pos_or_null(const ens_obj *parent, size_t i) {
  return i < ens_obj_child_count(parent) ? ens_obj_pos(ens_obj_child(parent, i)) : NULL;
}

/* Exchanges elements a and b (a before b) in their parent: b takes a's
 * place and a takes b's; what lies between them stays. */
static int s_exchange(ens_txn *txn, const ens_obj *a, const ens_obj *b) {
  const ens_obj *parent = ens_obj_parent(a);
  size_t ia = ens_obj_index(a), ib = ens_obj_index(b);
  const char *before_a = ia ? ens_obj_pos(ens_obj_child(parent, ia - 1)) : NULL;
  char *pb = ens_pos_between(before_a, ens_obj_pos(a));
  char *pa = ens_pos_between(ens_obj_pos(b), s_pos_or_null(parent, ib + 1));
  int rc = !pa || !pb ? ens__error(ENS_ENOMEM, "out of memory placing elements") : 0;
  if (!rc) rc = ens_txn_move(txn, ens_obj_id(b), ens_obj_id(parent), pb);
  if (!rc) rc = ens_txn_move(txn, ens_obj_id(a), ens_obj_id(parent), pa);
  ens_free(pa);
  ens_free(pb);
  return rc;
}

static int s_step(ens_doc *doc, const char *cmd, const char *label, const char *elem, int dir, ens_txn **out) {
  const ens_obj *e;
  if (!out) return ens__error(ENS_EINVAL, "%s: no output", cmd);
  *out = NULL;
  int rc = ens__svge_elem(doc, cmd, elem, &e);
  if (rc) return rc;
  const ens_obj *other = s_elem_sibling(e, dir);
  if (!other)
    return ens__error(ENS_EINVAL, "%s: %s is already the %s element of its parent", cmd, elem,
                      dir > 0 ? "last (topmost)" : "first (bottommost)");
  if ((rc = ens__svge_txn(label, out))) return rc;
  rc = dir > 0 ? s_exchange(*out, e, other) : s_exchange(*out, other, e);
  if (rc) s_drop(out);
  return rc;
}

int ens_svg_raise(ens_doc *doc, const char *elem, ens_txn **out) { return s_step(doc, "raise", "Raise", elem, 1, out); }

int ens_svg_lower(ens_doc *doc, const char *elem, ens_txn **out) { return s_step(doc, "lower", "Lower", elem, -1, out); }

/* --- delete ------------------------------------------------------------------------------ */

int ens_svg_delete(ens_doc *doc, const char *elem, ens_txn **out) {
  const ens_obj *e;
  if (!out) return ens__error(ENS_EINVAL, "delete: no output");
  *out = NULL;
  int rc = ens__svge_elem(doc, "delete", elem, &e);
  if (rc) return rc;
  if (ens_obj_parent(e) == ens_doc_root(doc))
    return ens__error(ENS_EINVAL, "delete: %s is the root element; a drawing needs one", elem);
  if ((rc = ens__svge_txn("Delete", out))) return rc;
  const ens_obj *blank = ens__svge_blank_before(e);
  if (blank) rc = ens_txn_delete(*out, ens_obj_id(blank));
  if (!rc) rc = ens_txn_delete(*out, ens_obj_id(e));
  if (rc) s_drop(out);
  return rc;
}

/* --- group ------------------------------------------------------------------------------- */

static int s_by_index(const void *a, const void *b) {
  size_t x = ens_obj_index(*(const ens_obj *const *)a), y = ens_obj_index(*(const ens_obj *const *)b);
  return x < y ? -1 : x > y;
}

/* "g1", "g2", ...: the first id no element has. */
static int s_fresh_group_id(const ens_doc *doc, char *buf, size_t size) {
  ens__svge_set ids = {0};
  int rc = ens__svge_ids(ens_doc_root(doc), &ids);
  for (unsigned long i = 1; !rc; i++) {
    snprintf(buf, size, "g%lu", i);
    if (!ens__svge_set_has(&ids, buf, strlen(buf))) break;
  }
  ens__svge_set_free(&ids);
  return rc;
}

/* "g" in the SVG namespace at parent: "g" when it is the default one (or
 * no namespace is declared at all), "p:g" when only prefix p maps to it. */
static void s_group_kind(const ens_obj *parent, char *kind, size_t size) {
  static const char svgns[] = "http://www.w3.org/2000/svg";
  const char *keys[64], *vals[64];
  size_t lens[64], n = ens__svge_ns_scope(parent, keys, vals, lens, 64);
  const char *prefix = NULL;
  for (size_t i = 0; i < n; i++) {
    if (lens[i] != sizeof svgns - 1 || memcmp(vals[i], svgns, lens[i]) != 0) continue;
    if (strcmp(keys[i], "xmlns") == 0) {
      prefix = NULL;
      break;
    }
    if (!prefix) prefix = keys[i] + 6;
  }
  snprintf(kind, size, "%s%sg", prefix ? prefix : "", prefix ? ":" : "");
}

/* A <switch> draws only its first child whose conditions hold: putting
 * children into a group, or a group's children into it, changes which
 * child that is. */
static int s_switch_parent(const ens_obj *o) {
  const ens_obj *p = ens_obj_parent(o);
  return p && ens__svge_is_elem(p) && strcmp(ens__svge_local(ens_obj_kind(p)), "switch") == 0;
}

int ens_svg_group(ens_doc *doc, const char *const *elems, size_t n, const char *group_id, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "group: no output");
  *out = NULL;
  if (!elems || !n) return ens__error(ENS_EINVAL, "group: name at least one element");
  const ens_obj **e = calloc(n, sizeof *e);
  char gid[64], *pos = NULL;
  if (!e) return ens__error(ENS_ENOMEM, "out of memory");
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    if ((rc = ens__svge_elem(doc, "group", elems[i], &e[i]))) break;
    if (ens_obj_parent(e[i]) == ens_doc_root(doc))
      rc = ens__error(ENS_EINVAL, "group: %s is the root element", elems[i]);
    else if (i && ens_obj_parent(e[i]) != ens_obj_parent(e[0]))
      rc = ens__error(ENS_EINVAL, "group: %s and %s are not siblings (a group takes elements of one parent)",
                      elems[0], elems[i]);
    for (size_t j = 0; j < i && !rc; j++)
      if (e[j] == e[i]) rc = ens__error(ENS_EINVAL, "group: %s is named twice", elems[i]);
    if (!rc && i == 0 && s_switch_parent(e[0]))
      rc = ens__error(ENS_EINVAL,
                      "group: %s is a child of a <switch>, which draws only its first child that applies: a group "
                      "there would change what is drawn",
                      elems[0]);
  }
  if (!rc && group_id) {
    ens__svge_set ids = {0};
    if (!*group_id || strlen(group_id) >= sizeof gid)
      rc = ens__error(ENS_EINVAL, "group: the group id must be 1 to %zu bytes", sizeof gid - 1);
    else if (!(rc = ens__svge_ids(ens_doc_root(doc), &ids)) && ens__svge_set_has(&ids, group_id, strlen(group_id)))
      rc = ens__error(ENS_EEXISTS, "group: another element already has the id \"%s\"", group_id);
    else
      snprintf(gid, sizeof gid, "%s", group_id);
    ens__svge_set_free(&ids);
  } else if (!rc) {
    rc = s_fresh_group_id(doc, gid, sizeof gid);
  }
  if (rc) goto done;
  qsort(e, n, sizeof *e, s_by_index); /* z-order stays as it was */
  const ens_obj *parent = ens_obj_parent(e[0]);
  ens_id gobj;
  char kind[300];
  s_group_kind(parent, kind, sizeof kind);
  if ((rc = ens__svge_new_id(doc, &gobj)) || (rc = ens__svge_txn("Group", out))) goto done;
  rc = ens_doc_pos_at(doc, ens_obj_id(parent), ens_obj_index(e[0]), &pos);
  ens_node *g = rc ? NULL : ens_txn_insert(*out, ens_obj_id(parent), pos, gobj, kind);
  if (!rc && (!g || ens_node_set(g, "id", ens_str(gid)))) rc = ens__error(ENS_ENOMEM, "out of memory");
  /* members keep their own positions, which sort as they did */
  for (size_t i = 0; i < n && !rc; i++) {
    const ens_obj *blank = i ? ens__svge_blank_before(e[i]) : NULL;
    if (blank && ens_obj_index(blank) > ens_obj_index(e[i - 1]))
      rc = ens_txn_move(*out, ens_obj_id(blank), gobj, ens_obj_pos(blank));
    if (!rc) rc = ens_txn_move(*out, ens_obj_id(e[i]), gobj, ens_obj_pos(e[i]));
  }
  if (rc) s_drop(out);
done:
  ens_free(pos);
  free(e);
  return rc;
}

/* --- ungroup ------------------------------------------------------------------------------ */

/* Elements a transform draws differently: what ungrouping must push the
 * group's transform onto. Definitions (gradients, clip paths, markers,
 * ...) are drawn in the space of what uses them, and metadata not at all. */
static int s_rendered(const char *kind) {
  static const char *const k[] = {"g",        "path",     "rect", "circle", "ellipse", "line",          "polyline",
                                  "polygon",  "text",     "use",  "image",  "a",       "foreignObject", "switch"};
  const char *l = ens__svge_local(kind);
  if (l != kind && strncmp(kind, "svg:", 4) != 0) return 0; /* another namespace's element */
  for (size_t i = 0; i < sizeof k / sizeof *k; i++)
    if (strcmp(l, k[i]) == 0) return 1;
  return 0;
}

typedef struct {
  const char *id;
  size_t n;
  const ens_obj *group;
  const ens_obj *by;
} s_refd;

static int s_refd_ref(const char *at, size_t n, void *user) {
  s_refd *r = user;
  return n == r->n && memcmp(at, r->id, n) == 0;
}

static int s_refd_fn(const ens_obj *o, size_t depth, void *user) {
  s_refd *r = user;
  (void)depth;
  if (!ens__svge_is_elem(o) || o == r->group) return 0;
  size_t np = ens_obj_prop_count(o);
  for (size_t i = 0; i < np; i++) {
    const char *key;
    ens_value v;
    if (ens_obj_prop_at(o, i, &key, &v) == 0 && v.type == ENS_STR &&
        ens__svge_refs(key, v.u.s.ptr, v.u.s.len, s_refd_ref, r)) {
      r->by = o;
      return 1;
    }
  }
  return 0;
}

/* A style that says only display:inline, the initial value: Inkscape puts
 * it on every layer, and it changes nothing. */
static int s_style_inert(const char *v, size_t n) {
  const char *p = v, *e = v + n;
  while (p < e) {
    const char *semi = memchr(p, ';', (size_t)(e - p)), *de = semi ? semi : e;
    char decl[64];
    size_t k = 0;
    for (const char *q = p; q < de; q++)
      if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') {
        if (k + 1 >= sizeof decl) return 0;
        decl[k++] = *q;
      }
    decl[k] = '\0';
    if (k && strcmp(decl, "display:inline") != 0) return 0;
    p = semi ? semi + 1 : e;
  }
  return 1;
}

/* Only id, transform, a style of display:inline alone and other
 * namespaces' attributes (an editor's labels) can go with the group
 * without changing the drawing. */
static int s_ungroupable(const ens_doc *doc, const ens_obj *g, const char *addr, const char **transform, size_t *tn) {
  size_t np = ens_obj_prop_count(g);
  *transform = NULL;
  *tn = 0;
  for (size_t i = 0; i < np; i++) {
    const char *key;
    ens_value v;
    if (ens_obj_prop_at(g, i, &key, &v) || key[0] == '~') continue;
    if (strcmp(key, "transform") == 0 && v.type == ENS_STR) {
      *transform = v.u.s.ptr;
      *tn = v.u.s.len;
      continue;
    }
    if (strcmp(key, "id") == 0) continue;
    if (strcmp(key, "style") == 0 && v.type == ENS_STR && s_style_inert(v.u.s.ptr, v.u.s.len)) continue;
    const char *colon = strchr(key, ':');
    if (colon && strncmp(key, "xml:", 4) != 0 && strncmp(key, "xmlns", 5) != 0) continue;
    char val[64];
    snprintf(val, sizeof val, "%.*s%s", v.type == ENS_STR ? (int)(v.u.s.len > 40 ? 40 : v.u.s.len) : 0,
             v.type == ENS_STR ? v.u.s.ptr : "", v.type == ENS_STR && v.u.s.len > 40 ? "..." : "");
    return ens__error(ENS_EINVAL,
                      "ungroup: %s has %s=\"%s\", which applies to the group as a whole and cannot be moved "
                      "onto its children without changing the drawing",
                      addr, key, val);
  }
  const char *id;
  size_t n;
  /* a reference names the first element with its id: when another one
     comes first, nothing points at this group */
  char *addr_id = NULL;
  int first = 1;
  if (ens__svge_attr(g, "id", &id, &n) == 0 && n && !memchr(id, '/', n) && (addr_id = malloc(n + 2))) {
    addr_id[0] = '#';
    memcpy(addr_id + 1, id, n);
    addr_id[n + 1] = '\0';
    first = ens_svg_find(doc, addr_id) == g;
    free(addr_id);
  }
  if (first && ens__svge_attr(g, "id", &id, &n) == 0 && n) {
    s_refd r = {id, n, g, NULL};
    if (ens_obj_walk(ens_doc_root(doc), s_refd_fn, &r)) {
      char by[256];
      if (ens_svg_address(r.by, by, sizeof by)) snprintf(by, sizeof by, "a %s", ens_obj_kind(r.by));
      return ens__error(ENS_EINVAL, "ungroup: %s is referenced by %s; without the group that reference breaks",
                        addr, by);
    }
  }
  return 0;
}

int ens_svg_ungroup(ens_doc *doc, const char *group, ens_txn **out) {
  const ens_obj *g;
  if (!out) return ens__error(ENS_EINVAL, "ungroup: no output");
  *out = NULL;
  int rc = ens__svge_elem(doc, "ungroup", group, &g);
  if (rc) return rc;
  if (strcmp(ens__svge_local(ens_obj_kind(g)), "g") != 0)
    return ens__error(ENS_EINVAL, "ungroup: %s is a <%s>, not a group <g>", group, ens_obj_kind(g));
  if (s_switch_parent(g))
    return ens__error(ENS_EINVAL,
                      "ungroup: %s is a child of a <switch>, which draws only its first child that applies: its "
                      "children there would change what is drawn",
                      group);
  const char *tf;
  size_t tn;
  if ((rc = s_ungroupable(doc, g, group, &tf, &tn))) return rc;
  int has_tf = 0;
  for (size_t i = 0; i < tn; i++) has_tf |= tf[i] != ' ' && tf[i] != '\t' && tf[i] != '\n' && tf[i] != '\r';
  /* the group's start and end tags go with their lines: its first blank
     child takes the place of the blank before it, its last one goes */
  size_t nk = ens_obj_child_count(g), first = 0, end = nk;
  const ens_obj *lead = NULL;
  if (nk && ens__svge_is_blank(ens_obj_child(g, 0))) lead = ens__svge_blank_before(g);
  if (end > first && ens__svge_is_blank(ens_obj_child(g, end - 1)) && end - 1 > 0) end--;
  for (size_t i = first; has_tf && i < end; i++) {
    const ens_obj *k = ens_obj_child(g, i);
    if (ens__svge_is_elem(k) && strcmp(ens__svge_local(ens_obj_kind(k)), "svg") == 0)
      return ens__error(ENS_EINVAL, "ungroup: %s holds an <svg>, which cannot take the group's transform", group);
  }
  const ens_obj *parent = ens_obj_parent(g);
  char **pos = calloc(end > first ? end - first : 1, sizeof *pos);
  if (!pos) return ens__error(ENS_ENOMEM, "out of memory");
  /* the children go where the group was, before whatever followed it */
  if ((rc = ens__svge_positions(doc, parent, ens_obj_index(g) + 1, end - first, pos))) {
    free(pos);
    return rc;
  }
  if ((rc = ens__svge_txn("Ungroup", out))) goto done;
  for (size_t i = first; i < end && !rc; i++) {
    const ens_obj *k = ens_obj_child(g, i);
    rc = ens_txn_move(*out, ens_obj_id(k), ens_obj_id(parent), pos[i - first]);
    if (rc || !has_tf || !ens__svge_is_elem(k) || !s_rendered(ens_obj_kind(k))) continue;
    /* the group's transform acts after the child's own: it goes in front */
    const char *own;
    size_t on;
    ens_buf b = ENS_BUF_INIT;
    ens__buf_append(&b, tf, tn);
    if (ens__svge_attr(k, "transform", &own, &on) == 0 && on) {
      ens__buf_putc(&b, ' ');
      ens__buf_append(&b, own, on);
    }
    rc = b.oom ? ens__error(ENS_ENOMEM, "out of memory")
               : ens_txn_set(*out, ens_obj_id(k), "transform", ens_strn((const char *)b.data, b.len));
    ens__buf_free(&b);
  }
  if (!rc && lead) rc = ens_txn_delete(*out, ens_obj_id(lead));
  if (!rc) rc = ens_txn_delete(*out, ens_obj_id(g)); /* with the blank left inside it */
  if (rc) s_drop(out);
done:
  ens__svge_pos_free(pos, end - first);
  free(pos);
  return rc;
}
