/* The keyframe edits of an animation: set a value at a frame (making a
 * static property animated when needed), add, move and delete keyframes,
 * and the easing between two keyframes; each one transaction. Files whose
 * keyframes carry end values ("e", older exporters) keep each end value
 * equal to the next keyframe's start value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/buf.h"
#include "../../util/error.h"
#include "edit_int.h"
#include "lottie_int.h"

/* One keyframe of the property as the edit leaves it, in time order. */
typedef struct {
  const ens_obj *obj; /* NULL: the new one, node */
  ens_node *node;
  ens_id id;
  const char *s; /* its start value's text, NULL when it has none */
  size_t sn;
  int copied; /* a new keyframe copied from another: its end value is set by id */
} s_entry;

typedef struct {
  const char *cmd;
  ens_doc *doc;
  const ens_obj *prop, *list; /* list: the keyframes, NULL for a static property */
  size_t n;                   /* keyframes */
} s_anim;

static int s_prop(ens_doc *doc, const char *cmd, const char *addr, s_anim *a) {
  memset(a, 0, sizeof *a);
  a->cmd = cmd;
  a->doc = doc;
  int rc = ens__lje_find(doc, cmd, addr, ENS_LOTTIE_PROPERTY, &a->prop);
  if (rc) return rc;
  const ens_obj *k = ens__lje_member(a->prop, "k");
  if (k && ens__lje_is(k, ENS_LOTTIE_LIST) && ens_obj_child_count(k) &&
      ens__lje_is(ens_obj_child(k, 0), ENS_LOTTIE_KEYFRAME)) {
    a->list = k;
    a->n = ens_obj_child_count(k);
    /* what the edits read and write of a keyframe must be values there */
    static const char *const values[] = {"t", "e", "h", "to", "ti"};
    for (size_t i = 0; i < a->n; i++) {
      const ens_obj *kf = ens_obj_child(k, i);
      double t;
      if (ens__lje_num(kf, "t", &t) || !isfinite(t))
        return ens__error(ENS_EINVAL, "%s: keyframe %zu of \"%s\" has no time (\"t\" a number)", cmd, i, addr);
      for (size_t j = 0; j < sizeof values / sizeof values[0]; j++)
        if (ens__lje_member(kf, values[j]))
          return ens__error(ENS_EINVAL, "%s: keyframe %zu of \"%s\" holds an object as \"%s\"", cmd, i, addr, values[j]);
    }
  }
  return 0;
}

static double s_kf_time(const ens_obj *kf) {
  double t;
  return ens__lje_num(kf, "t", &t) ? NAN : t;
}

/* The keyframe at t, its index in *at; NULL when none. */
static const ens_obj *s_at(const s_anim *a, double t, size_t *at) {
  for (size_t i = 0; i < a->n; i++) {
    const ens_obj *kf = ens_obj_child(a->list, i);
    if (fabs(s_kf_time(kf) - t) <= ENS__LJE_TIME_EPS) {
      if (at) *at = i;
      return kf;
    }
  }
  return NULL;
}

static int s_bytes(const ens_obj *o, const char *key, const char **s, size_t *n) {
  ens_value v;
  if (ens_obj_get(o, key, &v) || v.type != ENS_BYTES) return -1;
  *s = v.u.s.ptr;
  *n = v.u.s.len;
  return 0;
}

static int s_time_ok(const char *cmd, double t) {
  if (!isfinite(t) || fabs(t) > 1e12) return ens__error(ENS_EINVAL, "%s: %g is not a frame", cmd, t);
  return 0;
}

/* How many numbers the property's keyframes hold (0: none has a value
 * yet); ENS_EINVAL for path keyframes, whose values are shapes. */
static int s_dims(const s_anim *a, size_t *dims) {
  *dims = 0;
  for (size_t i = 0; i < a->n; i++) {
    const ens_obj *kf = ens_obj_child(a->list, i);
    const char *s;
    size_t n;
    if (ens__lje_member(kf, "s"))
      return ens__error(ENS_EINVAL, "%s: the property's keyframes hold bezier paths, which are not set by value", a->cmd);
    if (s_bytes(kf, "s", &s, &n) == 0) {
      *dims = ens__lje_count(s, n);
      return 0;
    }
  }
  return 0;
}

/* The value text as a keyframe's start value: always an array. */
static int s_as_array(const char *cmd, const char *canon, int is_array, size_t count, size_t dims, ens_buf *out) {
  if (dims && count != dims)
    return ens__error(ENS_EINVAL, "%s: the property's values have %zu number%s, the value given %zu", cmd, dims,
                      dims == 1 ? "" : "s", count);
  if (!is_array) ens__buf_putc(out, '[');
  ens__buf_puts(out, canon);
  if (!is_array) ens__buf_putc(out, ']');
  return out->oom ? ens__error(ENS_ENOMEM, "out of memory") : 0;
}

/* After the edit, each keyframe's end value is the next one's start. */
static int s_fix_ends(ens_txn *txn, s_entry *e, size_t n) {
  int uses_e = 0;
  for (size_t i = 0; i < n && !uses_e; i++) {
    ens_value v;
    uses_e = e[i].obj && ens_obj_get(e[i].obj, "e", &v) == 0;
  }
  if (!uses_e) return 0;
  for (size_t i = 0; i + 1 < n; i++) {
    if (!e[i + 1].s) continue;
    ens_value want = ens_bytes(e[i + 1].s, e[i + 1].sn);
    if (e[i].node) {
      if (ens_node_set(e[i].node, "e", want)) return ens__error(ENS_ENOMEM, "out of memory");
      continue;
    }
    if (e[i].copied) {
      if (ens_txn_set(txn, e[i].id, "e", want)) return ens__error(ENS_ENOMEM, "out of memory");
      continue;
    }
    ens_value have;
    if (ens_obj_get(e[i].obj, "e", &have) == 0 && ens_value_equal(&have, &want)) continue;
    if (ens_txn_set(txn, e[i].id, "e", want)) return ens__error(ENS_ENOMEM, "out of memory");
  }
  return 0;
}

/* The entries of the keyframes as they are. */
static s_entry *s_entries(const s_anim *a, size_t extra) {
  s_entry *e = calloc(a->n + extra + 1, sizeof *e);
  if (!e) return NULL;
  for (size_t i = 0; i < a->n; i++) {
    e[i].obj = ens_obj_child(a->list, i);
    e[i].id = ens_obj_id(e[i].obj);
    if (s_bytes(e[i].obj, "s", &e[i].s, &e[i].sn)) e[i].s = NULL;
  }
  return e;
}

static int s_put_num(ens_buf *b, double v) {
  ens_value x = ens__lje_time(v);
  return ens__lj_put_value(b, &x);
}

/* An easing tangent object {"x":[X],"y":[Y]} as a new child named name. */
static int s_new_tangent(ens_doc *doc, ens_node *kf, const char *name, double x, double y) {
  ens_id id;
  int rc = ens__lje_new_id(doc, &id);
  if (rc) return rc;
  ens_node *t = ens_node_add_child(kf, name[0] == 'o' ? "8" : "9", id, ENS_LOTTIE_OBJECT);
  ens_buf bx = ENS_BUF_INIT, by = ENS_BUF_INIT;
  ens__buf_putc(&bx, '[');
  s_put_num(&bx, x);
  ens__buf_putc(&bx, ']');
  ens__buf_putc(&by, '[');
  s_put_num(&by, y);
  ens__buf_putc(&by, ']');
  rc = !t || bx.oom || by.oom || ens_node_set(t, ENS_LOTTIE_KEY, ens_str(name)) ||
               ens_node_set(t, "x", ens_bytes(bx.data, bx.len)) || ens_node_set(t, "y", ens_bytes(by.data, by.len))
           ? ens__error(ENS_ENOMEM, "out of memory")
           : 0;
  ens__buf_free(&bx);
  ens__buf_free(&by);
  return rc;
}

/* A zero array of dims numbers ("[0,0]"), for spatial tangents. */
static void s_zeros(ens_buf *b, size_t dims) {
  ens__buf_putc(b, '[');
  for (size_t i = 0; i < dims; i++) ens__buf_puts(b, i ? ",0" : "0");
  ens__buf_putc(b, ']');
}

/* Builds the new keyframe at t with value (an array's text) into the list
 * at index: a copy of the keyframe before it (else after it), so that it
 * has its easing and is written in its style, with its own time and
 * value, and spatial tangents zero; linear when there is none to copy. */
static int s_insert_kf(const s_anim *a, ens_txn *txn, size_t index, double t, const char *val, size_t vn, size_t dims,
                       s_entry *entry) {
  char *pos = NULL;
  int rc = ens_doc_pos_at(a->doc, ens_obj_id(a->list), index, &pos);
  if (rc) return rc;
  const ens_obj *like = index ? ens_obj_child(a->list, index - 1) : index < a->n ? ens_obj_child(a->list, index) : NULL;
  ens_id id;
  if (like) {
    rc = ens__lje_copy(a->doc, txn, ens_obj_id(a->list), pos, NULL, like, 0, &id);
    ens_free(pos);
    if (rc) return rc;
    if (ens_txn_set(txn, id, "t", ens__lje_time(t)) || ens_txn_set(txn, id, "s", ens_bytes(val, vn)))
      return ens__error(ENS_ENOMEM, "out of memory");
    const char *ts;
    size_t tn;
    if (s_bytes(like, "to", &ts, &tn) == 0 || s_bytes(like, "ti", &ts, &tn) == 0) {
      ens_buf z = ENS_BUF_INIT;
      s_zeros(&z, dims ? dims : ens__lje_count(val, vn));
      rc = z.oom || ens_txn_set(txn, id, "to", ens_bytes(z.data, z.len)) || ens_txn_set(txn, id, "ti", ens_bytes(z.data, z.len))
               ? ens__error(ENS_ENOMEM, "out of memory")
               : 0;
      ens__buf_free(&z);
    }
    entry->id = id;
    entry->s = val;
    entry->sn = vn;
    entry->copied = 1;
    return rc;
  }
  if ((rc = ens__lje_new_id(a->doc, &id))) {
    ens_free(pos);
    return rc;
  }
  ens_node *nd = ens_txn_insert(txn, ens_obj_id(a->list), pos, id, ENS_LOTTIE_KEYFRAME);
  ens_free(pos);
  if (!nd || ens_node_set(nd, "t", ens__lje_time(t)) || ens_node_set(nd, "s", ens_bytes(val, vn)))
    return ens__error(ENS_ENOMEM, "out of memory");
  entry->node = nd;
  entry->id = id;
  entry->s = val;
  entry->sn = vn;
  if ((rc = s_new_tangent(a->doc, nd, "o", 0, 0))) return rc;
  return s_new_tangent(a->doc, nd, "i", 1, 1);
}

/* 0 when kf can take easing tangents "o" and "i" as member objects: a
 * value under either name (a file may hold anything) is refused. */
static int s_tangents_ok(const char *cmd, const ens_obj *kf) {
  ens_value v;
  if (ens_obj_get(kf, "o", &v) == 0 || ens_obj_get(kf, "i", &v) == 0)
    return ens__error(ENS_EINVAL, "%s: a keyframe's \"o\" or \"i\" is a value, not an easing tangent", cmd);
  return 0;
}

/* Two positions after the last child of o, in order (ens_free both). */
static int s_end_pos(const ens_doc *doc, const ens_obj *o, char **p1, char **p2) {
  *p2 = NULL;
  int rc = ens_doc_pos_at(doc, ens_obj_id(o), ens_obj_child_count(o), p1);
  if (rc) return rc;
  if (!(*p2 = ens_pos_between(*p1, NULL))) {
    ens_free(*p1);
    *p1 = NULL;
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  return 0;
}

/* A keyframe that stops being the last needs an easing to the next one. */
static int s_give_easing(const s_anim *a, ens_txn *txn, const ens_obj *kf) {
  ens_value h;
  if ((ens__lje_member(kf, "o") && ens__lje_member(kf, "i")) || (ens_obj_get(kf, "h", &h) == 0 && h.type == ENS_INT && h.u.i == 1))
    return 0;
  const ens_obj *like = NULL;
  for (size_t i = 0; i < a->n && !like; i++)
    if (ens__lje_member(ens_obj_child(a->list, i), "o") && ens__lje_member(ens_obj_child(a->list, i), "i"))
      like = ens_obj_child(a->list, i);
  char *pos[2];
  int rc = s_tangents_ok(a->cmd, kf);
  if (!rc) rc = s_end_pos(a->doc, kf, &pos[0], &pos[1]);
  if (rc) return rc;
  /* each tangent it lacks: a copy of the other keyframes', else linear */
  const char *names[2] = {"o", "i"};
  for (int k = 0; k < 2 && !rc; k++) {
    if (ens__lje_member(kf, names[k])) continue;
    if (like) {
      rc = ens__lje_copy(a->doc, txn, ens_obj_id(kf), pos[k], NULL, ens__lje_member(like, names[k]), 0, NULL);
      continue;
    }
    ens_id id;
    if ((rc = ens__lje_new_id(a->doc, &id))) break;
    ens_node *t = ens_txn_insert(txn, ens_obj_id(kf), pos[k], id, ENS_LOTTIE_OBJECT);
    const char *v = k ? "[1]" : "[0]";
    if (!t || ens_node_set(t, ENS_LOTTIE_KEY, ens_str(names[k])) || ens_node_set(t, "x", ens_bytes(v, 3)) ||
        ens_node_set(t, "y", ens_bytes(v, 3)))
      rc = ens__error(ENS_ENOMEM, "out of memory");
  }
  ens_free(pos[0]);
  ens_free(pos[1]);
  return rc;
}

/* A keyframe that becomes the last loses its easing: there is no next
 * keyframe to ease to, and rlottie reads a last keyframe with one as
 * easing towards nothing (its value then drops to zero). */
static int s_drop_easing(ens_txn *txn, const ens_obj *kf) {
  const char *names[2] = {"o", "i"};
  for (int k = 0; k < 2; k++) {
    const ens_obj *t = ens__lje_member(kf, names[k]);
    if (t && ens_txn_delete(txn, ens_obj_id(t))) return ens__error(ENS_ENOMEM, "out of memory");
  }
  return 0;
}

/* The in point of the layer the property is in, in the property's own
 * time (ip less st); the composition's for a property outside layers. */
static double s_local_in(const ens_doc *doc, const ens_obj *prop) {
  const ens_obj *layer = ens__lje_layer_of(prop);
  double ip = 0, st = 0;
  if (!layer) {
    ens__lje_num(ens_doc_root(doc), "ip", &ip);
    return ip;
  }
  ens__lje_num(layer, "ip", &ip);
  ens__lje_num(layer, "st", &st);
  return ip - st;
}

/* How many of o's member objects its kept text has before the member
 * named name: where a member object that takes that member's place must
 * go among o's children, as the writer puts a child in the place of the
 * member of its name. All of them when the text has no such member. */
static size_t s_kids_before(const ens_obj *o, const char *name) {
  const char *src;
  size_t n, kids = 0, nl = strlen(name);
  if (s_bytes(o, ENS_LOTTIE_SRC, &src, &n)) return ens_obj_child_count(o);
  int depth = 0;
  for (size_t i = 0; i < n; i++) {
    char c = src[i];
    if (c == '"') {
      size_t start = i + 1;
      for (i++; i < n && src[i] != '"'; i++)
        if (src[i] == '\\') i++;
      size_t j = i + 1;
      while (j < n && ens__lj_ws(src[j])) j++;
      if (depth == 1 && j < n && src[j] == ':' && i - start == nl && memcmp(src + start, name, nl) == 0) return kids;
    } else if (c == '{' || c == '[') {
      depth++;
    } else if (c == '}' || c == ']') {
      depth--;
    } else if (c == '@' && depth == 1) {
      kids++;
    }
  }
  return ens_obj_child_count(o);
}

/* A static property set at t: its value, or animated from the in point. */
static int s_set_static(const s_anim *a, double t, const char *canon, int is_array, size_t count, ens_txn *txn) {
  ens_value k;
  if (ens_obj_get(a->prop, "k", &k) || (k.type != ENS_INT && k.type != ENS_REAL && k.type != ENS_BYTES))
    return ens__error(ENS_EINVAL, "%s: the property holds no value of numbers to set", a->cmd);
  size_t dims = k.type == ENS_BYTES ? ens__lje_count(k.u.s.ptr, k.u.s.len) : 1;
  if (k.type == ENS_BYTES && (k.u.s.len < 2 || k.u.s.ptr[0] != '['))
    return ens__error(ENS_EINVAL, "%s: the property's value is not numbers", a->cmd);
  if (count != dims)
    return ens__error(ENS_EINVAL, "%s: the property's value has %zu number%s, the value given %zu", a->cmd, dims,
                      dims == 1 ? "" : "s", count);
  ens_buf nv = ENS_BUF_INIT, ov = ENS_BUF_INIT;
  int rc = 0;
  double t0 = s_local_in(a->doc, a->prop);
  if (t <= t0 + ENS__LJE_TIME_EPS) {
    if (k.type == ENS_BYTES) {
      rc = s_as_array(a->cmd, canon, is_array, count, dims, &nv);
      if (!rc) rc = ens_txn_set(txn, ens_obj_id(a->prop), "k", ens_bytes(nv.data, nv.len));
    } else {
      /* a number stays a number: "50" or "[50]" */
      const char *s = is_array ? canon + 1 : canon;
      size_t n = strlen(s) - (is_array ? 1 : 0);
      ens_value v;
      ens_buf scratch = ENS_BUF_INIT;
      rc = ens__lj_value(s, n, &scratch, &v);
      if (!rc) rc = ens_txn_set(txn, ens_obj_id(a->prop), "k", v);
      ens__buf_free(&scratch);
    }
    ens__buf_free(&nv);
    return rc;
  }
  /* the old value at the in point, the new at t */
  if (k.type == ENS_BYTES) ens__buf_append(&ov, k.u.s.ptr, k.u.s.len);
  else {
    ens__buf_putc(&ov, '[');
    ens__lj_put_value(&ov, &k);
    ens__buf_putc(&ov, ']');
  }
  rc = s_as_array(a->cmd, canon, is_array, count, dims, &nv);
  ens_id lid, k0, k1;
  if (!rc) rc = ens__lje_new_id(a->doc, &lid);
  if (!rc) rc = ens__lje_new_id(a->doc, &k0);
  if (!rc) rc = ens__lje_new_id(a->doc, &k1);
  if (rc) goto done;
  rc = ens_txn_set(txn, ens_obj_id(a->prop), "a", ens_int(1));
  if (!rc) rc = ens_txn_set(txn, ens_obj_id(a->prop), "k", ens_nil());
  char *lpos = NULL;
  if (!rc) rc = ens_doc_pos_at(a->doc, ens_obj_id(a->prop), s_kids_before(a->prop, "k"), &lpos);
  ens_node *list = rc ? NULL : ens_txn_insert(txn, ens_obj_id(a->prop), lpos, lid, ENS_LOTTIE_LIST);
  ens_free(lpos);
  ens_node *n0 = list ? ens_node_add_child(list, "4", k0, ENS_LOTTIE_KEYFRAME) : NULL;
  ens_node *n1 = list ? ens_node_add_child(list, "8", k1, ENS_LOTTIE_KEYFRAME) : NULL;
  if (!n0 || !n1 || ens_node_set(list, ENS_LOTTIE_KEY, ens_str("k")) || ens_node_set(n0, "t", ens__lje_time(t0)) ||
      ens_node_set(n0, "s", ens_bytes(ov.data, ov.len)) || ens_node_set(n1, "t", ens__lje_time(t)) ||
      ens_node_set(n1, "s", ens_bytes(nv.data, nv.len))) {
    rc = rc ? rc : ens__error(ENS_ENOMEM, "out of memory");
    goto done;
  }
  if ((rc = s_new_tangent(a->doc, n0, "o", 0, 0)) || (rc = s_new_tangent(a->doc, n0, "i", 1, 1))) goto done;
done:
  ens__buf_free(&nv);
  ens__buf_free(&ov);
  return rc;
}

/* Sets (or with create, adds) the keyframe at t of an animated property. */
static int s_set_animated(const s_anim *a, double t, const char *canon, int is_array, size_t count, int must_be_new,
                          ens_txn *txn) {
  size_t dims, at;
  int rc = s_dims(a, &dims);
  if (rc) return rc;
  ens_buf nv = ENS_BUF_INIT;
  if ((rc = s_as_array(a->cmd, canon, is_array, count, dims, &nv))) goto done;
  s_entry *e = s_entries(a, 1);
  if (!e) {
    rc = ens__error(ENS_ENOMEM, "out of memory");
    goto done;
  }
  const ens_obj *kf = s_at(a, t, &at);
  size_t n = a->n;
  if (kf && must_be_new) {
    rc = ens__error(ENS_EEXISTS, "%s: the property has a keyframe at %g", a->cmd, t);
  } else if (kf) {
    rc = ens_txn_set(txn, ens_obj_id(kf), "s", ens_bytes(nv.data, nv.len));
    e[at].s = (const char *)nv.data;
    e[at].sn = nv.len;
  } else {
    size_t index = 0;
    while (index < a->n && s_kf_time(ens_obj_child(a->list, index)) < t) index++;
    memmove(e + index + 1, e + index, (a->n - index) * sizeof *e);
    memset(&e[index], 0, sizeof *e);
    n++;
    if (index == a->n && a->n) rc = s_give_easing(a, txn, ens_obj_child(a->list, a->n - 1));
    if (!rc) rc = s_insert_kf(a, txn, index, t, (const char *)nv.data, nv.len, dims, &e[index]);
  }
  if (!rc) rc = s_fix_ends(txn, e, n);
  free(e);
done:
  ens__buf_free(&nv);
  return rc;
}


/* A transform member the layer lacks, made with the value set at t: static
 * at or before the in point, else keyframed from the default players use
 * (opacity 100, scale 100, the others 0). */
static int s_create(ens_doc *doc, const ens_obj *ks, const char *member, double t, const char *canon, int is_array,
                    size_t count, ens_txn *txn) {
  int scalar = strcmp(member, "o") == 0 || strcmp(member, "r") == 0;
  if (scalar ? count != 1 : (count != 2 && count != 3))
    return ens__error(ENS_EINVAL, "set-value: \"%s\" takes %s, the value given has %zu", member,
                      scalar ? "one number" : "two or three numbers", count);
  ens_buf nv = ENS_BUF_INIT, dv = ENS_BUF_INIT;
  double def = strcmp(member, "o") == 0 || strcmp(member, "s") == 0 ? 100 : 0;
  ens__buf_putc(&dv, '[');
  for (size_t i = 0; i < count; i++) {
    if (i) ens__buf_putc(&dv, ',');
    s_put_num(&dv, def);
  }
  ens__buf_putc(&dv, ']');
  int rc = s_as_array("set-value", canon, is_array, count, count, &nv);
  char *pos = NULL;
  ens_id pid, lid, k0, k1;
  if (!rc) rc = ens_doc_pos_at(doc, ens_obj_id(ks), ens_obj_child_count(ks), &pos);
  if (!rc) rc = ens__lje_new_id(doc, &pid);
  ens_node *p = rc ? NULL : ens_txn_insert(txn, ens_obj_id(ks), pos, pid, ENS_LOTTIE_PROPERTY);
  ens_free(pos);
  if (rc || !p || ens_node_set(p, ENS_LOTTIE_KEY, ens_str(member))) {
    rc = rc ? rc : ens__error(ENS_ENOMEM, "out of memory");
    goto done;
  }
  double t0 = s_local_in(doc, ks);
  if (t <= t0 + ENS__LJE_TIME_EPS) {
    ens_value v = ens_bytes(nv.data, nv.len);
    ens_buf scratch = ENS_BUF_INIT;
    if (scalar) rc = ens__lj_value((const char *)nv.data + 1, nv.len - 2, &scratch, &v);
    if (!rc && (ens_node_set(p, "a", ens_int(0)) || ens_node_set(p, "k", v))) rc = ens__error(ENS_ENOMEM, "out of memory");
    ens__buf_free(&scratch);
    goto done;
  }
  if ((rc = ens__lje_new_id(doc, &lid)) || (rc = ens__lje_new_id(doc, &k0)) || (rc = ens__lje_new_id(doc, &k1))) goto done;
  ens_node *list = ens_node_add_child(p, "8", lid, ENS_LOTTIE_LIST);
  ens_node *n0 = list ? ens_node_add_child(list, "4", k0, ENS_LOTTIE_KEYFRAME) : NULL;
  ens_node *n1 = list ? ens_node_add_child(list, "8", k1, ENS_LOTTIE_KEYFRAME) : NULL;
  if (!n0 || !n1 || ens_node_set(p, "a", ens_int(1)) || ens_node_set(list, ENS_LOTTIE_KEY, ens_str("k")) ||
      ens_node_set(n0, "t", ens__lje_time(t0)) || ens_node_set(n0, "s", ens_bytes(dv.data, dv.len)) ||
      ens_node_set(n1, "t", ens__lje_time(t)) || ens_node_set(n1, "s", ens_bytes(nv.data, nv.len))) {
    rc = ens__error(ENS_ENOMEM, "out of memory");
    goto done;
  }
  if (!(rc = s_new_tangent(doc, n0, "o", 0, 0))) rc = s_new_tangent(doc, n0, "i", 1, 1);
done:
  ens__buf_free(&nv);
  ens__buf_free(&dv);
  return rc;
}

/* set-value (add 0) and add-keyframe (add 1): the value at t. */
static int s_value_edit(ens_doc *doc, const char *cmd, const char *label, const char *prop, double t, const char *value,
                        int add, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "%s: needs an output", cmd);
  *out = NULL;
  s_anim a;
  char *canon = NULL;
  int is_array;
  size_t count;
  ens_txn *txn = NULL;
  const ens_obj *ks = NULL;
  const char *member = NULL;
  int create = !add && doc && prop && strcmp(ens_doc_kind(doc), ENS_LOTTIE_KIND) == 0 &&
               ens__lje_missing_transform(doc, prop, &ks, &member) == 0;
  int rc = create ? 0 : s_prop(doc, cmd, prop, &a);
  if (!rc && add && !a.list) rc = ens__error(ENS_EINVAL, "%s: \"%s\" is not animated (set-value makes it so)", cmd, prop);
  if (!rc) rc = s_time_ok(cmd, t);
  if (!rc) rc = ens__lje_parse_value(cmd, value, &canon, &is_array, &count);
  if (!rc) rc = ens__lje_txn(label, &txn);
  if (!rc) {
    if (create) rc = s_create(doc, ks, member, t, canon, is_array, count, txn);
    else if (a.list) rc = s_set_animated(&a, t, canon, is_array, count, add, txn);
    else rc = s_set_static(&a, t, canon, is_array, count, txn);
  }
  free(canon);
  return ens__lje_finish(doc, rc, &txn, out);
}

int ens_lottie_set_value(ens_doc *doc, const char *prop, double t, const char *value, ens_txn **out) {
  return s_value_edit(doc, "set-value", "Set value", prop, t, value, 0, out);
}

int ens_lottie_add_keyframe(ens_doc *doc, const char *prop, double t, const char *value, ens_txn **out) {
  return s_value_edit(doc, "add-keyframe", "Add keyframe", prop, t, value, 1, out);
}

/* The keyframe at t of the animated property at addr. */
static int s_keyframe(ens_doc *doc, const char *cmd, const char *addr, double t, s_anim *a, size_t *at) {
  int rc = s_prop(doc, cmd, addr, a);
  if (!rc && !a->list) rc = ens__error(ENS_EINVAL, "%s: \"%s\" is not animated: it has no keyframes", cmd, addr);
  if (!rc) rc = s_time_ok(cmd, t);
  if (!rc && !s_at(a, t, at)) rc = ens__error(ENS_ENOTFOUND, "%s: \"%s\" has no keyframe at %g", cmd, addr, t);
  return rc;
}

int ens_lottie_move_keyframe(ens_doc *doc, const char *prop, double t, double new_t, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "move-keyframe: needs an output");
  *out = NULL;
  s_anim a;
  size_t at, other;
  ens_txn *txn = NULL;
  s_entry *e = NULL;
  int rc = s_keyframe(doc, "move-keyframe", prop, t, &a, &at);
  if (!rc) rc = s_time_ok(a.cmd, new_t);
  if (!rc && s_at(&a, new_t, &other) && other != at)
    rc = ens__error(ENS_EEXISTS, "move-keyframe: \"%s\" has a keyframe at %g already", prop, new_t);
  if (!rc) rc = ens__lje_txn("Move keyframe", &txn);
  if (!rc && !(e = s_entries(&a, 0))) rc = ens__error(ENS_ENOMEM, "out of memory");
  if (rc) goto done;
  const ens_obj *kf = ens_obj_child(a.list, at);
  if ((rc = ens_txn_set(txn, ens_obj_id(kf), "t", ens__lje_time(new_t)))) goto done;
  /* its new place among the others */
  size_t j = 0;
  for (size_t i = 0; i < a.n; i++)
    if (i != at && s_kf_time(ens_obj_child(a.list, i)) < new_t) j++;
  if (j != at) {
    char *pos = NULL;
    if ((rc = ens_doc_pos_at(doc, ens_obj_id(a.list), j < at ? j : j + 1, &pos))) goto done;
    rc = ens_txn_move(txn, ens_obj_id(kf), ens_obj_id(a.list), pos);
    ens_free(pos);
    if (rc) goto done;
    s_entry moved = e[at];
    if (j < at) memmove(e + j + 1, e + j, (at - j) * sizeof *e);
    else memmove(e + at, e + at + 1, (j - at) * sizeof *e);
    e[j] = moved;
    /* a keyframe that became the last from the middle keeps its easing; one
     * that was last and is not any more needs one */
    if (at == a.n - 1) {
      rc = s_give_easing(&a, txn, kf);
      if (!rc) rc = s_drop_easing(txn, ens_obj_child(a.list, a.n - 2));
    }
    if (!rc && j == a.n - 1 && at != a.n - 1) {
      rc = s_give_easing(&a, txn, ens_obj_child(a.list, a.n - 1));
      if (!rc) rc = s_drop_easing(txn, kf);
    }
  }
  if (!rc) rc = s_fix_ends(txn, e, a.n);
done:
  free(e);
  return ens__lje_finish(doc, rc, &txn, out);
}

int ens_lottie_delete_keyframe(ens_doc *doc, const char *prop, double t, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "delete-keyframe: needs an output");
  *out = NULL;
  s_anim a;
  size_t at;
  ens_txn *txn = NULL;
  s_entry *e = NULL;
  int rc = s_keyframe(doc, "delete-keyframe", prop, t, &a, &at);
  if (!rc && a.n == 1)
    rc = ens__error(ENS_EINVAL, "delete-keyframe: the last keyframe of \"%s\" stays (set-value on it instead)", prop);
  if (!rc) rc = ens__lje_txn("Delete keyframe", &txn);
  if (!rc && !(e = s_entries(&a, 0))) rc = ens__error(ENS_ENOMEM, "out of memory");
  if (!rc && a.n == 2) {
    /* one keyframe left: the property becomes static with its value, as
     * players differ on a single keyframe (rlottie draws it as zero) */
    free(e);
    const ens_obj *left = ens_obj_child(a.list, 1 - at);
    const char *sv;
    size_t sn;
    if (s_bytes(left, "s", &sv, &sn) || sn < 2 || sv[0] != '[') {
      rc = ens__error(ENS_EINVAL, "delete-keyframe: the keyframe left has no value of numbers to keep");
      return ens__lje_finish(doc, rc, &txn, out);
    }
    ens_value v = ens_bytes(sv, sn);
    ens_buf scratch = ENS_BUF_INIT;
    if (ens__lje_count(sv, sn) == 1) rc = ens__lj_value(sv + 1, sn - 2, &scratch, &v); /* a number, as static ones are */
    if (!rc) rc = ens_txn_delete(txn, ens_obj_id(a.list));
    if (!rc) rc = ens_txn_set(txn, ens_obj_id(a.prop), "a", ens_int(0));
    if (!rc) rc = ens_txn_set(txn, ens_obj_id(a.prop), "k", v);
    ens__buf_free(&scratch);
    return ens__lje_finish(doc, rc, &txn, out);
  }
  if (!rc) rc = ens_txn_delete(txn, ens_obj_id(ens_obj_child(a.list, at)));
  if (!rc && at == a.n - 1) rc = s_drop_easing(txn, ens_obj_child(a.list, at - 1));
  if (!rc) {
    memmove(e + at, e + at + 1, (a.n - at - 1) * sizeof *e);
    rc = s_fix_ends(txn, e, a.n - 1);
  }
  free(e);
  return ens__lje_finish(doc, rc, &txn, out);
}

/* A tangent's x or y set to v, in the form it has: a number, or an array
 * of as many numbers as it holds. */
static int s_tangent_value(const ens_obj *tan, const char *key, double v, ens_buf *b, ens_value *out) {
  ens_value have;
  size_t count = 1;
  int array = 1;
  if (tan && ens_obj_get(tan, key, &have) == 0) {
    if (have.type == ENS_INT || have.type == ENS_REAL) array = 0;
    else if (have.type == ENS_BYTES) count = ens__lje_count(have.u.s.ptr, have.u.s.len);
  }
  if (!count) count = 1;
  b->len = 0;
  if (array) ens__buf_putc(b, '[');
  for (size_t i = 0; i < count; i++) {
    if (i) ens__buf_putc(b, ',');
    s_put_num(b, v);
  }
  if (array) ens__buf_putc(b, ']');
  if (b->oom) return ens__error(ENS_ENOMEM, "out of memory");
  if (!array) {
    *out = ens__lje_time(v);
    return 0;
  }
  *out = ens_bytes(b->data, b->len);
  return 0;
}

static int s_set_tangent(ens_doc *doc, ens_txn *txn, const ens_obj *kf, const char *name, const char *pos, double x,
                         double y) {
  const ens_obj *tan = ens__lje_member(kf, name);
  ens_buf bx = ENS_BUF_INIT, by = ENS_BUF_INIT;
  ens_value vx, vy;
  int rc = s_tangent_value(tan, "x", x, &bx, &vx);
  if (!rc) rc = s_tangent_value(tan, "y", y, &by, &vy);
  if (!rc && tan) {
    ens_value have;
    if (!(ens_obj_get(tan, "x", &have) == 0 && ens_value_equal(&have, &vx))) rc = ens_txn_set(txn, ens_obj_id(tan), "x", vx);
    if (!rc && !(ens_obj_get(tan, "y", &have) == 0 && ens_value_equal(&have, &vy)))
      rc = ens_txn_set(txn, ens_obj_id(tan), "y", vy);
  } else if (!rc) {
    ens_id id;
    rc = ens__lje_new_id(doc, &id);
    ens_node *t = rc ? NULL : ens_txn_insert(txn, ens_obj_id(kf), pos, id, ENS_LOTTIE_OBJECT);
    if (!rc && (!t || ens_node_set(t, ENS_LOTTIE_KEY, ens_str(name)) || ens_node_set(t, "x", vx) || ens_node_set(t, "y", vy)))
      rc = ens__error(ENS_ENOMEM, "out of memory");
  }
  ens__buf_free(&bx);
  ens__buf_free(&by);
  return rc;
}

int ens_lottie_set_easing(ens_doc *doc, const char *prop, double t, const ens_lottie_easing *easing, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "set-easing: needs an output");
  *out = NULL;
  s_anim a;
  size_t at;
  ens_txn *txn = NULL;
  int rc = s_keyframe(doc, "set-easing", prop, t, &a, &at);
  if (!rc && !easing) rc = ens__error(ENS_EINVAL, "set-easing: needs an easing");
  if (!rc && at == a.n - 1)
    rc = ens__error(ENS_EINVAL, "set-easing: the keyframe at %g is the last of \"%s\": easing goes from a keyframe to the next", t, prop);
  if (!rc && !easing->hold) {
    const double v[4] = {easing->out_x, easing->out_y, easing->in_x, easing->in_y};
    for (int i = 0; i < 4 && !rc; i++)
      if (!isfinite(v[i]) || fabs(v[i]) > 1e6) rc = ens__error(ENS_EINVAL, "set-easing: %g is not a tangent", v[i]);
    if (!rc && (easing->out_x < 0 || easing->out_x > 1 || easing->in_x < 0 || easing->in_x > 1))
      rc = ens__error(ENS_EINVAL, "set-easing: a tangent's x is a fraction of the time between keyframes, from 0 to 1");
  }
  if (!rc) rc = ens__lje_txn("Set easing", &txn);
  if (rc) return ens__lje_finish(doc, rc, &txn, out);
  const ens_obj *kf = ens_obj_child(a.list, at);
  ens_value h;
  int has_h = ens_obj_get(kf, "h", &h) == 0;
  if (easing->hold) {
    rc = ens_txn_set(txn, ens_obj_id(kf), "h", ens_int(1));
  } else {
    if (has_h && !(h.type == ENS_INT && h.u.i == 0)) rc = ens_txn_set(txn, ens_obj_id(kf), "h", ens_int(0));
    char *pos[2] = {NULL, NULL};
    if (!rc) rc = s_tangents_ok(a.cmd, kf);
    if (!rc) rc = s_end_pos(doc, kf, &pos[0], &pos[1]);
    if (!rc) rc = s_set_tangent(doc, txn, kf, "o", pos[0], easing->out_x, easing->out_y);
    if (!rc) rc = s_set_tangent(doc, txn, kf, "i", pos[1], easing->in_x, easing->in_y);
    ens_free(pos[0]);
    ens_free(pos[1]);
  }
  return ens__lje_finish(doc, rc, &txn, out);
}
