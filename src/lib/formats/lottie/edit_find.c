/* Finding what a Lottie edit names: layers by ind, place or name (in the
 * main composition or a precomposition), shapes by name or place in their
 * group, properties by member name; and the small readers the editing
 * commands share (members, numbers, values given as JSON text, copies). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/buf.h"
#include "../../util/error.h"
#include "edit_int.h"
#include "lottie_int.h"

int ens__lje_is(const ens_obj *o, const char *kind) { return o && strcmp(ens_obj_kind(o), kind) == 0; }

static int s_str_is(const ens_obj *o, const char *key, const char *s, size_t n) {
  ens_value v;
  return ens_obj_get(o, key, &v) == 0 && v.type == ENS_STR && v.u.s.len == n && memcmp(v.u.s.ptr, s, n) == 0;
}

const ens_obj *ens__lje_member(const ens_obj *o, const char *name) {
  size_t n = strlen(name);
  for (size_t i = 0; o && i < ens_obj_child_count(o); i++)
    if (s_str_is(ens_obj_child(o, i), ENS_LOTTIE_KEY, name, n)) return ens_obj_child(o, i);
  return NULL;
}

int ens__lje_num(const ens_obj *o, const char *key, double *out) {
  ens_value v;
  if (!o || ens_obj_get(o, key, &v)) return -1;
  if (v.type == ENS_INT) *out = (double)v.u.i;
  else if (v.type == ENS_REAL) *out = v.u.r;
  else return -1;
  return 0;
}

ens_value ens__lje_time(double t) {
  if (t == floor(t) && fabs(t) < 9e15) return ens_int((int64_t)t);
  return ens_real(t);
}

const ens_obj *ens__lje_layer_of(const ens_obj *o) {
  while (o && !ens__lje_is(o, ENS_LOTTIE_LAYER)) o = ens_obj_parent(o);
  return o;
}

int ens__lje_txn(const char *label, ens_txn **out) {
  *out = ens_txn_new(label, NULL);
  return *out ? 0 : ens__error(ENS_ENOMEM, "out of memory making a transaction");
}

int ens__lje_new_id(ens_doc *doc, ens_id *out) {
  *out = ens_doc_new_id(doc);
  return *out == ENS_ID_NONE ? ens__error(ENS_ELIMIT, "the document has no more object ids") : 0;
}

int ens__lje_finish(const ens_doc *doc, int rc, ens_txn **txn, ens_txn **out) {
  /* a value set where the object holds a member object of that name would
   * write the name twice: refused here, where the command can say so */
  for (size_t i = 0; !rc && *txn && i < ens_txn_op_count(*txn); i++) {
    const char *key;
    ens_value v;
    if (ens_txn_op_kind(*txn, i) != ENS_OP_SET || ens_txn_op_set(*txn, i, &key, &v) || v.type == ENS_NIL) continue;
    const ens_obj *o = ens_doc_get(doc, ens_txn_op_target(*txn, i)), *m = o ? ens__lje_member(o, key) : NULL;
    for (size_t j = 0; m && j < ens_txn_op_count(*txn); j++) /* unless the command deletes it */
      if (ens_txn_op_kind(*txn, j) == ENS_OP_DELETE && ens_txn_op_target(*txn, j) == ens_obj_id(m)) m = NULL;
    if (m)
      rc = ens__error(ENS_EINVAL, "%s: the %s's \"%s\" is an object, not a value", ens_txn_label(*txn), ens_obj_kind(o), key);
  }
  if (rc) {
    ens_txn_free(*txn);
    *txn = NULL;
    return rc;
  }
  *out = *txn;
  return 0;
}

/* --- addresses ------------------------------------------------------------------------- */

typedef struct {
  char why[300];
  int depth; /* of the step that failed last, deepest kept */
} s_miss;

static void s_missed(s_miss *m, int depth, const char *what, const char *s, size_t n) {
  if (depth < m->depth) return;
  m->depth = depth;
  snprintf(m->why, sizeof m->why, "no %s \"%.*s\"", what, (int)(n > 120 ? 120 : n), s);
}

/* "[N]": 1 with N in *index. */
static int s_index_step(const char *s, size_t n, size_t *index) {
  if (n < 3 || s[0] != '[' || s[n - 1] != ']') return 0;
  size_t v = 0;
  for (size_t i = 1; i + 1 < n; i++) {
    if (s[i] < '0' || s[i] > '9' || v > 100000000) return 0;
    v = v * 10 + (size_t)(s[i] - '0');
  }
  *index = v;
  return 1;
}

static int s_digits(const char *s, size_t n, double *v) {
  if (!n || n > 15) return 0;
  double d = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    d = d * 10 + (s[i] - '0');
  }
  *v = d;
  return 1;
}

/* The element of list named by step (s, n): by place, by ind (layers), by name. */
static const ens_obj *s_pick(const ens_obj *list, const char *s, size_t n, int layers) {
  size_t idx, count = ens_obj_child_count(list);
  if (s_index_step(s, n, &idx)) return idx < count ? ens_obj_child(list, idx) : NULL;
  double ind;
  if (layers && s_digits(s, n, &ind))
    for (size_t i = 0; i < count; i++) {
      double v;
      if (ens__lje_num(ens_obj_child(list, i), "ind", &v) == 0 && v == ind) return ens_obj_child(list, i);
    }
  for (size_t i = 0; i < count; i++)
    if (s_str_is(ens_obj_child(list, i), "nm", s, n)) return ens_obj_child(list, i);
  return NULL;
}

static const char *s_alias(const char *s, size_t n) {
  static const char *const map[][2] = {{"position", "p"}, {"anchor", "a"},  {"scale", "s"},  {"rotation", "r"},
                                       {"opacity", "o"},  {"colour", "c"},  {"color", "c"},  {"width", "w"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strlen(map[i][0]) == n && memcmp(map[i][0], s, n) == 0) return map[i][1];
  return NULL;
}

/* A property member of o named (s, n), or NULL. */
static const ens_obj *s_prop_of(const ens_obj *o, const char *s, size_t n) {
  char name[128];
  const char *a = s_alias(s, n);
  if (a) s = a, n = strlen(a);
  if (n >= sizeof name) return NULL;
  memcpy(name, s, n);
  name[n] = '\0';
  const ens_obj *where[3] = {NULL, NULL, o};
  if (ens__lje_is(o, ENS_LOTTIE_LAYER)) where[0] = ens__lje_member(o, "ks");
  const ens_obj *items = ens__lje_member(o, "it");
  for (size_t i = 0; items && i < ens_obj_child_count(items); i++)
    if (s_str_is(ens_obj_child(items, i), "ty", "tr", 2)) where[1] = ens_obj_child(items, i);
  for (int i = 0; i < 3; i++) {
    const ens_obj *p = where[i] ? ens__lje_member(where[i], name) : NULL;
    if (p && ens__lje_is(p, ENS_LOTTIE_PROPERTY)) return p;
  }
  return NULL;
}

/* Resolves rest (n bytes) from o (a layer or shape): "/STEP..." or ".PROP"
 * or nothing. Step ends are tried longest first, so names holding '/' or
 * '.' are found as themselves. */
static const ens_obj *s_walk(const ens_obj *o, const char *rest, size_t n, int depth, s_miss *m) {
  if (!n) return o;
  if (rest[0] == '.') {
    const ens_obj *p = s_prop_of(o, rest + 1, n - 1);
    if (!p) s_missed(m, depth, "property", rest + 1, n - 1);
    return p;
  }
  if (rest[0] != '/') return NULL;
  const ens_obj *list = ens__lje_member(o, ens__lje_is(o, ENS_LOTTIE_LAYER) ? "shapes" : "it");
  if (!list) {
    s_missed(m, depth, "shape group at", rest, n);
    return NULL;
  }
  for (size_t end = n; end > 1; end--) {
    if (end < n && rest[end] != '/' && rest[end] != '.') continue;
    const ens_obj *k = s_pick(list, rest + 1, end - 1, 0);
    if (!k) {
      s_missed(m, depth, "shape", rest + 1, end - 1);
      continue;
    }
    const ens_obj *r = s_walk(k, rest + end, n - end, depth + 1, m);
    if (r) return r;
  }
  return NULL;
}

static const ens_obj *s_find(const ens_doc *doc, const char *addr, s_miss *m) {
  const ens_obj *root = ens_doc_root(doc), *comp = ens__lje_member(root, "layers");
  size_t n = strlen(addr);
  const char *colon = memchr(addr, ':', n);
  if (colon) {
    const ens_obj *assets = ens__lje_member(root, "assets");
    for (size_t i = 0; assets && i < ens_obj_child_count(assets); i++) {
      const ens_obj *a = ens_obj_child(assets, i);
      if (s_str_is(a, "id", addr, (size_t)(colon - addr)) && ens__lje_member(a, "layers")) {
        comp = ens__lje_member(a, "layers");
        n -= (size_t)(colon + 1 - addr);
        addr = colon + 1;
        break;
      }
    }
  }
  if (!comp) {
    s_missed(m, 0, "layer list at", addr, n);
    return NULL;
  }
  for (size_t end = n; end > 0; end--) {
    if (end < n && addr[end] != '/' && addr[end] != '.') continue;
    const ens_obj *layer = s_pick(comp, addr, end, 1);
    if (!layer) {
      s_missed(m, 0, "layer", addr, end);
      continue;
    }
    const ens_obj *r = s_walk(layer, addr + end, n - end, 1, m);
    if (r) return r;
  }
  return NULL;
}

int ens__lje_missing_transform(const ens_doc *doc, const char *address, const ens_obj **ks, const char **member) {
  static const char *const members[] = {"a", "p", "s", "r", "o"};
  const char *dot = strrchr(address, '.');
  if (!dot || dot == address) return -1;
  const char *name = dot + 1, *alias = s_alias(name, strlen(name));
  if (alias) name = alias;
  *member = NULL;
  for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
    if (strcmp(members[i], name) == 0) *member = members[i];
  char layer[512];
  if (!*member || (size_t)(dot - address) >= sizeof layer) return -1;
  memcpy(layer, address, (size_t)(dot - address));
  layer[dot - address] = '\0';
  const ens_obj *l = ens_lottie_find(doc, layer);
  *ks = l && ens__lje_is(l, ENS_LOTTIE_LAYER) ? ens__lje_member(l, "ks") : NULL;
  ens_value v;
  if (!*ks || !ens__lje_is(*ks, ENS_LOTTIE_TRANSFORM) || ens__lje_member(*ks, *member) || ens_obj_get(*ks, *member, &v) == 0)
    return -1;
  return 0;
}

const ens_obj *ens_lottie_find(const ens_doc *doc, const char *address) {
  if (!doc || !address || !*address) {
    ens__error(ENS_EINVAL, "ens_lottie_find needs an animation and an address");
    return NULL;
  }
  if (strcmp(ens_doc_kind(doc), ENS_LOTTIE_KIND) != 0) {
    ens__error(ENS_EINVAL, "the document is a %s, not an animation", ens_doc_kind(doc));
    return NULL;
  }
  s_miss m = {"", -1};
  const ens_obj *o = s_find(doc, address, &m);
  if (!o) ens__error(ENS_ENOTFOUND, "%s", m.why[0] ? m.why : "nothing at that address");
  return o;
}

int ens__lje_find(const ens_doc *doc, const char *cmd, const char *address, const char *kind, const ens_obj **out) {
  *out = NULL;
  if (!doc || !address || !*address) return ens__error(ENS_EINVAL, "%s: needs an animation and an address", cmd);
  if (strcmp(ens_doc_kind(doc), ENS_LOTTIE_KIND) != 0)
    return ens__error(ENS_EINVAL, "%s: the document is a %s, not an animation", cmd, ens_doc_kind(doc));
  const ens_obj *o = ens_lottie_find(doc, address);
  if (!o) {
    char why[400];
    snprintf(why, sizeof why, "%s", ens_error_last()); /* the message is rewritten in place */
    return ens__error(ENS_ENOTFOUND, "%s: %s", cmd, why);
  }
  int ok = kind ? ens__lje_is(o, kind) : (ens__lje_is(o, ENS_LOTTIE_LAYER) || ens__lje_is(o, ENS_LOTTIE_SHAPE));
  if (!ok)
    return ens__error(ENS_EINVAL, "%s: \"%s\" is a %s, not a %s", cmd, address, ens_obj_kind(o),
                      kind ? kind : "layer or shape");
  *out = o;
  return 0;
}

/* --- values ------------------------------------------------------------------------------ */

size_t ens__lje_count(const char *s, size_t n) {
  if (n < 2 || s[0] != '[') return 1;
  if (n == 2) return 0;
  size_t count = 1;
  int depth = 0, in_str = 0;
  for (size_t i = 1; i + 1 < n; i++) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') i++;
      else if (c == '"') in_str = 0;
    } else if (c == '"') in_str = 1;
    else if (c == '[' || c == '{') depth++;
    else if (c == ']' || c == '}') depth--;
    else if (c == ',' && depth == 0) count++;
  }
  return count;
}

int ens__lje_parse_value(const char *cmd, const char *text, char **canon, int *is_array, size_t *count) {
  *canon = NULL;
  if (!text) return ens__error(ENS_EINVAL, "%s: needs a value", cmd);
  size_t n = strlen(text);
  ens__lj_nodes nodes = {0};
  int rc = ens__lj_scan(text, n, 0, &nodes);
  if (rc) {
    free(nodes.v);
    return ens__error(ENS_EDECODE, "%s: the value is not JSON: %s", cmd, ens_error_last());
  }
  const ens__lj_node *top = &nodes.v[0];
  int type = top->type;
  int objects = 0;
  for (size_t i = 1; i < nodes.n; i++) objects |= nodes.v[i].type != LJ_NUM;
  const char *s = top->s;
  size_t sn = top->n;
  free(nodes.v);
  if (type != LJ_NUM && !(type == LJ_ARR && !objects))
    return ens__error(ENS_EINVAL, "%s: a value is a number or an array of numbers, not %s", cmd, text);
  ens_buf b = ENS_BUF_INIT;
  if (type == LJ_ARR) rc = ens__lj_canon(s, sn, &b);
  else ens__buf_append(&b, s, sn);
  ens__buf_putc(&b, '\0');
  if (rc || b.oom) {
    ens__buf_free(&b);
    return rc ? rc : ens__error(ENS_ENOMEM, "out of memory");
  }
  *canon = (char *)b.data;
  *is_array = type == LJ_ARR;
  *count = ens__lje_count(*canon, b.len - 1);
  return 0;
}

/* --- copying ----------------------------------------------------------------------------- */

int ens__lje_copy(ens_doc *doc, ens_txn *txn, ens_id parent, const char *pos, ens_node *parent_node, const ens_obj *src,
                  size_t depth, ens_id *copy_id) {
  if (depth > ENS_LOTTIE_MAX_DEPTH) return ens__error(ENS_ELIMIT, "the copy is nested deeper than %d levels", ENS_LOTTIE_MAX_DEPTH);
  ens_id id;
  int rc = ens__lje_new_id(doc, &id);
  if (rc) return rc;
  if (copy_id) *copy_id = id;
  ens_node *nd = parent_node ? ens_node_add_child(parent_node, pos, id, ens_obj_kind(src))
                             : ens_txn_insert(txn, parent, pos, id, ens_obj_kind(src));
  if (!nd) return ens__error(ENS_ENOMEM, "out of memory copying");
  size_t np = ens_obj_prop_count(src);
  for (size_t i = 0; i < np && !rc; i++) {
    const char *key;
    ens_value v;
    if (ens_obj_prop_at(src, i, &key, &v) == 0 && key[0] != '@') rc = ens_node_set(nd, key, v);
  }
  for (size_t i = 0; i < ens_obj_child_count(src) && !rc; i++) {
    const ens_obj *k = ens_obj_child(src, i);
    rc = ens__lje_copy(doc, txn, id, ens_obj_pos(k), nd, k, depth + 1, NULL);
  }
  return rc;
}
