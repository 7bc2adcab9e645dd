/* The Lottie reader: the scanner's values become objects of the model in
 * document order (every JSON object, and every array of objects), their
 * other members properties, each container keeping its own text with "@"
 * where its child objects stand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "lottie_int.h"

typedef struct {
  ens_doc *doc;
  const char *text, *end;
  ens__lj_nodes nodes;
  ens_buf scratch, keybuf, src;
  const char *k_key, *k_src;
  uint32_t *seen; /* by atom index: the serial of the object it was last a member of */
  size_t seen_n;
  uint32_t serial;
} s_reader;

static int s_oom(void) { return ens__error(ENS_ENOMEM, "out of memory reading Lottie"); }

static int s_err(s_reader *r, const char *at, int code, const char *what, const char *name, size_t name_n) {
  uint32_t line, col;
  ens__lj_where(r->text, at, &line, &col);
  if (name) return ens__error(code, "line %u, column %u: %s \"%.*s\"", line, col, what, (int)(name_n > 80 ? 80 : name_n), name);
  return ens__error(code, "line %u, column %u: %s", line, col, what);
}

/* The decoded member name of node n, in keybuf. */
static int s_key(s_reader *r, const ens__lj_node *n, const char **k, size_t *kn) {
  if (!n->key) {
    *k = NULL;
    *kn = 0;
    return 0;
  }
  if (!memchr(n->key, '\\', n->key_n)) {
    *k = n->key + 1;
    *kn = n->key_n - 2;
    return 0;
  }
  r->keybuf.len = 0;
  if (ens__lj_unescape(n->key, n->key_n, &r->keybuf)) return s_oom();
  *k = (const char *)r->keybuf.data;
  *kn = r->keybuf.len;
  return 0;
}

static int s_key_is(const ens__lj_node *n, const char *name) {
  size_t l = strlen(name);
  return n->key && n->key_n == l + 2 && memcmp(n->key + 1, name, l) == 0;
}

static const char *s_list_kind(const ens__lj_node *list) {
  static const char *const map[][2] = {{"layers", ENS_LOTTIE_LAYER}, {"assets", ENS_LOTTIE_ASSET},
                                       {"markers", ENS_LOTTIE_MARKER}, {"shapes", ENS_LOTTIE_SHAPE},
                                       {"it", ENS_LOTTIE_SHAPE},       {"k", ENS_LOTTIE_KEYFRAME},
                                       {"ef", ENS_LOTTIE_EFFECT},      {"masksProperties", ENS_LOTTIE_MASK}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (s_key_is(list, map[i][0])) return map[i][1];
  return ENS_LOTTIE_OBJECT;
}

static const char *s_kind(s_reader *r, const ens__lj_node *n) {
  const ens__lj_node *p = &r->nodes.v[n->parent];
  if (n->type == LJ_ARR) return ENS_LOTTIE_LIST;
  if (p->type == LJ_ARR) return s_list_kind(p);
  if (s_key_is(n, "ks") && p->obj && strcmp(p->obj->kind, ENS_LOTTIE_LAYER) == 0) return ENS_LOTTIE_TRANSFORM;
  for (uint32_t k = n->first; k != ENS__LJ_NONE; k = r->nodes.v[k].next)
    if (s_key_is(&r->nodes.v[k], "k")) return ENS_LOTTIE_PROPERTY;
  return ENS_LOTTIE_OBJECT;
}

/* Which values become objects: the top object, every object under one,
 * and the arrays of objects among their members. */
static int s_promote(s_reader *r) {
  ens__lj_node *v = r->nodes.v;
  if (!r->nodes.n || v[0].type != LJ_OBJ) {
    static const char *const names[] = {"an object", "an array", "a string", "a number", "true", "false", "null"};
    char msg[160];
    snprintf(msg, sizeof msg, "not a Lottie animation: the JSON value is %s, where Lottie is an object with \"fr\", "
                              "\"ip\", \"op\" and \"layers\"", r->nodes.n ? names[v[0].type] : "missing");
    return s_err(r, r->nodes.n ? v[0].s : r->text, ENS_EFORMAT, msg, NULL, 0);
  }
  static const char *const needed[] = {"fr", "ip", "op", "layers"};
  for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
    int found = 0;
    for (uint32_t k = v[0].first; k != ENS__LJ_NONE && !found; k = v[k].next) found = s_key_is(&v[k], needed[i]);
    if (!found) {
      char msg[200];
      snprintf(msg, sizeof msg, "not a Lottie animation: the top object has no \"%s\" (a Lottie animation has \"fr\", "
                                "\"ip\", \"op\" and \"layers\")", needed[i]);
      return s_err(r, v[0].s, ENS_EFORMAT, msg, NULL, 0);
    }
  }
  v[0].promoted = 1;
  for (size_t i = 1; i < r->nodes.n; i++) {
    ens__lj_node *n = &v[i], *p = &v[n->parent];
    if (!p->promoted) continue;
    if (n->type == LJ_OBJ) n->promoted = 1;
    else if (n->type == LJ_ARR) {
      const char *k;
      size_t kn;
      if (s_key(r, n, &k, &kn)) return ENS_ENOMEM;
      n->promoted = (uint8_t)ens__lj_promote_array(k, kn, n->nkids, n->nobjs);
    }
    if (n->promoted) p->npromoted++;
  }
  return 0;
}

static int s_fill(s_reader *r, ens_obj *o, const char *key, const ens_value *v) {
  ens__prop *slot = &o->props[o->nprops];
  memset(slot, 0, sizeof *slot);
  slot->key = ens__atom_index(key);
  slot->type = v->type;
  switch (v->type) {
  case ENS_INT: slot->u.i = v->u.i; break;
  case ENS_REAL: slot->u.r = v->u.r; break;
  case ENS_BOOL: slot->u.b = v->u.b; break;
  default:
    if (ens__prop_arena_str(r->doc, slot, v->u.s.ptr, v->u.s.len)) return s_oom();
    break;
  }
  o->nprops++;
  return 0;
}

/* The atom of the property a member of this name becomes; refuses a name
 * the object already has. */
static int s_member_atom(s_reader *r, const ens__lj_node *m, const char **atom) {
  const char *k;
  size_t kn;
  char buf[ENS_MAX_KEY + 1];
  if (s_key(r, m, &k, &kn)) return ENS_ENOMEM;
  size_t bn = ens__lj_prop_key(k, kn, buf);
  if (!bn) {
    if (memchr(k, 0, kn)) return s_err(r, m->key, ENS_EDECODE, "a member name holding U+0000, which the model cannot hold", NULL, 0);
    return s_err(r, m->key, ENS_ELIMIT, "a member name longer than the model's limit of 1022 bytes", NULL, 0);
  }
  if (!(*atom = ens__atom(r->doc, buf, bn))) return s_oom();
  uint32_t ai = ens__atom_index(*atom);
  if (ai >= r->seen_n) {
    size_t nn = r->seen_n ? r->seen_n : 256;
    while (nn <= ai) nn *= 2;
    uint32_t *ns = realloc(r->seen, nn * sizeof *ns);
    if (!ns) return s_oom();
    memset(ns + r->seen_n, 0, (nn - r->seen_n) * sizeof *ns);
    r->seen = ns;
    r->seen_n = nn;
  }
  if (r->seen[ai] == r->serial)
    return s_err(r, m->key, ENS_EFORMAT, "this object has a second member named", k, kn);
  r->seen[ai] = r->serial;
  return 0;
}

static int s_object(s_reader *r, size_t i, ens_obj *o) {
  ens__lj_node *v = r->nodes.v, *n = &v[i];
  uint32_t count = 1 + (n->key != NULL);
  if (n->type == LJ_OBJ) count += n->nkids - n->npromoted;
  if (ens__obj_arena_props(r->doc, o, count)) return s_oom();
  if (n->npromoted && ens__obj_arena_kids(r->doc, o, n->npromoted)) return s_oom();
  int rc;
  if (n->key) {
    r->scratch.len = 0;
    if (ens__lj_unescape(n->key, n->key_n, &r->scratch)) return s_oom();
    ens_value kv = ens_strn((const char *)r->scratch.data, r->scratch.len);
    if ((rc = s_fill(r, o, r->k_key, &kv))) return rc;
  }
  /* the container's text, its child objects cut out */
  const char *from = i == 0 ? r->text : n->s, *to = i == 0 ? r->end : n->s + n->n;
  r->src.len = 0;
  for (uint32_t k = n->first; k != ENS__LJ_NONE; k = v[k].next) {
    if (!v[k].promoted) continue;
    ens__buf_append(&r->src, from, (size_t)(v[k].s - from));
    ens__buf_putc(&r->src, '@');
    from = v[k].s + v[k].n;
  }
  ens__buf_append(&r->src, from, (size_t)(to - from));
  if (r->src.oom) return s_oom();
  ens_value sv = ens_bytes(r->src.data, r->src.len);
  if ((rc = s_fill(r, o, r->k_src, &sv))) return rc;
  if (n->type != LJ_OBJ) return 0;
  r->serial++;
  for (uint32_t k = n->first; k != ENS__LJ_NONE; k = v[k].next) {
    const char *atom = NULL;
    if ((rc = s_member_atom(r, &v[k], &atom))) return rc;
    if (v[k].promoted) continue;
    ens_value val;
    if (v[k].type == LJ_ARR) {
      r->scratch.len = 0;
      if (ens__lj_canon(v[k].s, v[k].n, &r->scratch)) return s_oom();
      val = ens_bytes(r->scratch.data, r->scratch.len);
    } else if (ens__lj_value(v[k].s, v[k].n, &r->scratch, &val)) {
      return s_oom();
    }
    if ((rc = s_fill(r, o, atom, &val))) return rc;
  }
  return 0;
}

static int s_objects(s_reader *r) {
  ens_doc *doc = r->doc;
  ens__lj_node *v = r->nodes.v;
  size_t total = 0;
  for (size_t i = 0; i < r->nodes.n; i++) total += v[i].promoted;
  if (ens__doc_reserve(doc, total + 1)) return s_oom();
  uint32_t *kidx = calloc(r->nodes.n, sizeof *kidx);
  if (!kidx) return s_oom();
  int rc = 0;
  for (size_t i = 0; i < r->nodes.n && !rc; i++) {
    ens__lj_node *n = &v[i];
    if (!n->promoted) continue;
    ens_obj *o;
    if (i == 0) {
      o = doc->root;
    } else {
      ens__lj_node *p = &v[n->parent];
      const char *kind = ens__atom(doc, s_kind(r, n), strlen(s_kind(r, n)));
      char *pos = ens_pos_seq(kidx[n->parent]++, p->npromoted);
      if (!kind || !pos) {
        ens_free(pos);
        rc = s_oom();
        break;
      }
      o = ens__obj_append_read(doc, ens_doc_new_id(doc), kind, p->obj, pos, strlen(pos));
      ens_free(pos);
      if (!o) {
        rc = s_oom();
        break;
      }
    }
    n->obj = o;
    rc = s_object(r, i, o);
  }
  free(kidx);
  return rc;
}

int ens__lj_build(ens_doc *doc, const char *text, size_t len) {
  s_reader r;
  memset(&r, 0, sizeof r);
  r.doc = doc;
  r.text = text;
  r.end = text + len;
  int rc = ens__lj_scan(text, len, 0, &r.nodes);
  if (!rc && (!(r.k_key = ens__atom(doc, ENS_LOTTIE_KEY, 4)) || !(r.k_src = ens__atom(doc, ENS_LOTTIE_SRC, 4))))
    rc = s_oom();
  if (!rc) rc = s_promote(&r);
  if (!rc) rc = s_objects(&r);
  free(r.nodes.v);
  free(r.seen);
  ens__buf_free(&r.scratch);
  ens__buf_free(&r.keybuf);
  ens__buf_free(&r.src);
  return rc;
}
