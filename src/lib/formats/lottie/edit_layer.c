/* The layer edits of an animation: retiming (shift or stretch a layer,
 * shift a range of the composition), in and out points, parenting, order,
 * names, colours and duplicates; each one transaction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/buf.h"
#include "../../util/error.h"
#include "../../util/utf8.h"
#include "edit_int.h"
#include "lottie_int.h"


static int s_finite(const char *cmd, double v, const char *what) {
  if (!isfinite(v) || fabs(v) > 1e12) return ens__error(ENS_EINVAL, "%s: %g is not a %s", cmd, v, what);
  return 0;
}

/* The layer at addr and a new transaction labelled label. */
static int s_begin(ens_doc *doc, const char *cmd, const char *addr, const char *label, const ens_obj **layer,
                   ens_txn **txn, ens_txn **out) {
  *txn = NULL;
  if (!out) return ens__error(ENS_EINVAL, "%s: needs an output", cmd);
  *out = NULL;
  int rc = ens__lje_find(doc, cmd, addr, ENS_LOTTIE_LAYER, layer);
  if (!rc) rc = ens__lje_txn(label, txn);
  return rc;
}

static int s_set_num(ens_txn *txn, const ens_obj *o, const char *key, double v) {
  double have;
  if (ens__lje_num(o, key, &have) == 0 && have == v) return 0;
  return ens_txn_set(txn, ens_obj_id(o), key, ens__lje_time(v));
}

/* --- keyframes under an object ---------------------------------------------------------- */

typedef int (*s_kf_fn)(const ens_obj *prop, const ens_obj *list, void *user);

/* Calls fn for each animated property under o (not through layers of
 * other compositions: those are assets of their own). */
static int s_each_animated(const ens_obj *o, s_kf_fn fn, void *user, size_t depth) {
  if (depth > ENS_LOTTIE_MAX_DEPTH) return 0;
  if (ens__lje_is(o, ENS_LOTTIE_PROPERTY)) {
    const ens_obj *k = ens__lje_member(o, "k");
    if (k && ens__lje_is(k, ENS_LOTTIE_LIST) && ens_obj_child_count(k) && ens__lje_is(ens_obj_child(k, 0), ENS_LOTTIE_KEYFRAME)) {
      int rc = fn(o, k, user);
      if (rc) return rc;
    }
  }
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    int rc = s_each_animated(ens_obj_child(o, i), fn, user, depth + 1);
    if (rc) return rc;
  }
  return 0;
}

typedef struct {
  ens_txn *txn;
  double ip, st, factor; /* stretch */
  double from, dt;       /* range: comp time = st + t */
  const char *cmd;
} s_retime;

static int s_stretch_fn(const ens_obj *prop, const ens_obj *list, void *user) {
  s_retime *r = user;
  (void)prop;
  for (size_t i = 0; i < ens_obj_child_count(list); i++) {
    const ens_obj *kf = ens_obj_child(list, i);
    double t;
    if (ens__lje_num(kf, "t", &t)) continue;
    double nt = r->ip + (r->st + t - r->ip) * r->factor - r->st;
    int rc = s_set_num(r->txn, kf, "t", nt);
    if (rc) return rc;
  }
  return 0;
}

static int s_range_fn(const ens_obj *prop, const ens_obj *list, void *user) {
  s_retime *r = user;
  (void)prop;
  double last_kept = -INFINITY;
  int moved_any = 0;
  for (size_t i = 0; i < ens_obj_child_count(list); i++) {
    const ens_obj *kf = ens_obj_child(list, i);
    double t;
    if (ens__lje_num(kf, "t", &t)) continue;
    if (r->st + t < r->from) {
      last_kept = t;
      continue;
    }
    double nt = t + r->dt;
    if (!moved_any && nt <= last_kept + ENS__LJE_TIME_EPS)
      return ens__error(ENS_EINVAL, "%s: the keyframe at %g would pass the one at %g before frame %g", r->cmd, t,
                        last_kept, r->from);
    moved_any = 1;
    int rc = s_set_num(r->txn, kf, "t", nt);
    if (rc) return rc;
  }
  return 0;
}

/* --- retiming ------------------------------------------------------------------------------- */

static int s_shift_fn(const ens_obj *prop, const ens_obj *list, void *user) {
  s_retime *r = user;
  (void)prop;
  for (size_t i = 0; i < ens_obj_child_count(list); i++) {
    const ens_obj *kf = ens_obj_child(list, i);
    double t;
    if (ens__lje_num(kf, "t", &t)) continue;
    int rc = s_set_num(r->txn, kf, "t", t + r->dt);
    if (rc) return rc;
  }
  return 0;
}

/* Moves layer l by dt frames. A precomposition's layer moves its start
 * time, which is when its contents play; any other layer moves its
 * keyframes instead and keeps its start time: rlottie reads the start
 * time only on precomposition layers, so that both it and players that
 * follow the spec play the layer dt later. */
static int s_shift(ens_txn *txn, const ens_obj *l, double dt, const char *cmd) {
  double ip = 0, op = 0, st = 0;
  if (ens__lje_num(l, "ip", &ip) || ens__lje_num(l, "op", &op))
    return ens__error(ENS_EINVAL, "%s: the layer has no in and out points", cmd);
  int rc = s_set_num(txn, l, "ip", ip + dt);
  if (!rc) rc = s_set_num(txn, l, "op", op + dt);
  ens_value ty;
  if (!rc && ens_obj_get(l, "ty", &ty) == 0 && ty.type == ENS_INT && ty.u.i == 0) {
    ens__lje_num(l, "st", &st);
    return s_set_num(txn, l, "st", st + dt);
  }
  s_retime r = {txn, 0, 0, 1, 0, dt, cmd};
  if (!rc) rc = s_each_animated(l, s_shift_fn, &r, 0);
  return rc;
}

int ens_lottie_shift_layer(ens_doc *doc, const char *layer, double dt, ens_txn **out) {
  const ens_obj *l;
  ens_txn *txn;
  int rc = s_begin(doc, "shift-layer", layer, "Shift layer", &l, &txn, out);
  if (!rc) rc = s_finite("shift-layer", dt, "number of frames");
  if (!rc) rc = s_shift(txn, l, dt, "shift-layer");
  return ens__lje_finish(doc, rc, &txn, out);
}

int ens_lottie_stretch_layer(ens_doc *doc, const char *layer, double factor, ens_txn **out) {
  const ens_obj *l;
  ens_txn *txn;
  int rc = s_begin(doc, "stretch-layer", layer, "Stretch layer", &l, &txn, out);
  if (!rc && (!isfinite(factor) || factor <= 0 || factor > 1e6))
    rc = ens__error(ENS_EINVAL, "stretch-layer: the factor must be a number above 0");
  s_retime r = {txn, 0, 0, factor, 0, 0, "stretch-layer"};
  double op = 0;
  if (!rc && (ens__lje_num(l, "ip", &r.ip) || ens__lje_num(l, "op", &op)))
    rc = ens__error(ENS_EINVAL, "stretch-layer: the layer has no in and out points");
  ens__lje_num(l, "st", &r.st);
  if (!rc) rc = s_set_num(txn, l, "op", r.ip + (op - r.ip) * factor);
  if (!rc) rc = s_each_animated(l, s_stretch_fn, &r, 0);
  return ens__lje_finish(doc, rc, &txn, out);
}

int ens_lottie_shift_range(ens_doc *doc, double from, double dt, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "shift-range: needs an output");
  *out = NULL;
  const char *cmd = "shift-range";
  if (!doc || strcmp(ens_doc_kind(doc), ENS_LOTTIE_KIND) != 0) return ens__error(ENS_EINVAL, "%s: needs an animation", cmd);
  int rc = s_finite(cmd, from, "frame");
  if (!rc) rc = s_finite(cmd, dt, "number of frames");
  if (rc) return rc;
  const ens_obj *root = ens_doc_root(doc), *layers = ens__lje_member(root, "layers");
  ens_txn *txn = NULL;
  if ((rc = ens__lje_txn("Shift range", &txn))) return rc;
  double cop;
  if (!ens__lje_num(root, "op", &cop) && cop > from) {
    double cip = 0;
    ens__lje_num(root, "ip", &cip);
    if (cop + dt <= cip) rc = ens__error(ENS_EINVAL, "%s: the composition would end before it begins", cmd);
    if (!rc) rc = s_set_num(txn, root, "op", cop + dt);
  }
  for (size_t i = 0; layers && i < ens_obj_child_count(layers) && !rc; i++) {
    const ens_obj *l = ens_obj_child(layers, i);
    double ip, op, st = 0;
    if (ens__lje_num(l, "ip", &ip) || ens__lje_num(l, "op", &op)) continue;
    ens__lje_num(l, "st", &st);
    if (ip >= from) {
      /* the whole layer is in the range: it moves as one */
      if (dt < 0 && ip + dt < from) rc = ens__error(ENS_EINVAL, "%s: layer %zu would start before frame %g", cmd, i, from);
      if (!rc) rc = s_shift(txn, l, dt, cmd);
      continue;
    }
    /* a layer across from: what plays from there on moves */
    if (op > from) {
      if (op + dt <= ip) rc = ens__error(ENS_EINVAL, "%s: layer %zu would end before it begins", cmd, i);
      if (!rc) rc = s_set_num(txn, l, "op", op + dt);
    }
    s_retime r = {txn, ip, st, 1, from, dt, cmd};
    if (!rc) rc = s_each_animated(l, s_range_fn, &r, 0);
  }
  const ens_obj *markers = ens__lje_member(root, "markers");
  for (size_t i = 0; markers && i < ens_obj_child_count(markers) && !rc; i++) {
    const ens_obj *m = ens_obj_child(markers, i);
    double tm;
    if (!ens__lje_num(m, "tm", &tm) && tm >= from) rc = s_set_num(txn, m, "tm", tm + dt);
  }
  return ens__lje_finish(doc, rc, &txn, out);
}

int ens_lottie_set_in_out(ens_doc *doc, const char *layer, double ip, double op, ens_txn **out) {
  const ens_obj *l;
  ens_txn *txn;
  int rc = s_begin(doc, "set-in-out", layer, "Set in and out points", &l, &txn, out);
  if (!rc) rc = s_finite("set-in-out", ip, "frame");
  if (!rc) rc = s_finite("set-in-out", op, "frame");
  if (!rc && !(ip < op)) rc = ens__error(ENS_EINVAL, "set-in-out: the in point %g must come before the out point %g", ip, op);
  if (!rc) rc = s_set_num(txn, l, "ip", ip);
  if (!rc) rc = s_set_num(txn, l, "op", op);
  return ens__lje_finish(doc, rc, &txn, out);
}

/* --- the layer list ---------------------------------------------------------------------------- */

/* The layer of list whose ind is v, or NULL. */
static const ens_obj *s_by_ind(const ens_obj *list, double v) {
  for (size_t i = 0; i < ens_obj_child_count(list); i++) {
    double ind;
    if (ens__lje_num(ens_obj_child(list, i), "ind", &ind) == 0 && ind == v) return ens_obj_child(list, i);
  }
  return NULL;
}

int ens_lottie_reparent(ens_doc *doc, const char *layer, const char *parent, ens_txn **out) {
  const ens_obj *l, *p = NULL;
  ens_txn *txn;
  const char *cmd = "reparent";
  int rc = s_begin(doc, cmd, layer, "Parent layer", &l, &txn, out);
  double ind, pind;
  if (!rc && ens__lje_num(l, "ind", &ind)) rc = ens__error(ENS_EINVAL, "%s: the layer has no ind to be parented by", cmd);
  if (!rc && !parent) {
    ens_value v;
    rc = ens_obj_get(l, "parent", &v) ? ens__error(ENS_EINVAL, "%s: \"%s\" has no parent", cmd, layer)
                                      : ens_txn_set(txn, ens_obj_id(l), "parent", ens_nil());
    return ens__lje_finish(doc, rc, &txn, out);
  }
  if (!rc) rc = ens__lje_find(doc, cmd, parent, ENS_LOTTIE_LAYER, &p);
  if (!rc && ens_obj_parent(p) != ens_obj_parent(l))
    rc = ens__error(ENS_EINVAL, "%s: \"%s\" is in another composition", cmd, parent);
  if (!rc && ens__lje_num(p, "ind", &pind)) rc = ens__error(ENS_EINVAL, "%s: \"%s\" has no ind", cmd, parent);
  /* no loop: the parent's chain may not reach the layer */
  const ens_obj *up = p;
  for (size_t steps = 0; !rc && up; steps++) {
    if (up == l || steps > ens_obj_child_count(ens_obj_parent(l)))
      rc = ens__error(ENS_EINVAL, "%s: \"%s\" is \"%s\" or under it: parenting would make a loop", cmd, parent, layer);
    double next;
    up = ens__lje_num(up, "parent", &next) ? NULL : s_by_ind(ens_obj_parent(l), next);
  }
  if (!rc) rc = s_set_num(txn, l, "parent", pind);
  return ens__lje_finish(doc, rc, &txn, out);
}

int ens_lottie_reorder(ens_doc *doc, const char *layer, size_t index, ens_txn **out) {
  const ens_obj *l;
  ens_txn *txn;
  int rc = s_begin(doc, "reorder", layer, "Reorder layer", &l, &txn, out);
  if (rc) return ens__lje_finish(doc, rc, &txn, out);
  const ens_obj *list = ens_obj_parent(l);
  size_t n = ens_obj_child_count(list), at = ens_obj_index(l);
  if (index >= n) rc = ens__error(ENS_EINVAL, "reorder: the composition has %zu layers: places 0 to %zu", n, n - 1);
  if (!rc && index != at) {
    char *pos = NULL;
    rc = ens_doc_pos_at(doc, ens_obj_id(list), index < at ? index : index + 1, &pos);
    if (!rc) rc = ens_txn_move(txn, ens_obj_id(l), ens_obj_id(list), pos);
    ens_free(pos);
  }
  return ens__lje_finish(doc, rc, &txn, out);
}

int ens_lottie_rename(ens_doc *doc, const char *target, const char *name, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "rename: needs an output");
  *out = NULL;
  const ens_obj *o;
  ens_txn *txn = NULL;
  int rc = ens__lje_find(doc, "rename", target, NULL, &o);
  if (!rc && !name) rc = ens__error(ENS_EINVAL, "rename: needs a name");
  if (!rc && !ens__utf8_valid(name, strlen(name))) rc = ens__error(ENS_EINVAL, "rename: the name is not UTF-8");
  if (!rc) rc = ens__lje_txn("Rename", &txn);
  if (!rc) rc = ens_txn_set(txn, ens_obj_id(o), "nm", ens_str(name));
  return ens__lje_finish(doc, rc, &txn, out);
}

static int s_channel(double v) { return (int)lround((v < 0 ? 0 : v > 1 ? 1 : v) * 255); }

int ens_lottie_set_color(ens_doc *doc, const char *target, const double rgba[4], ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "set-colour: needs an output");
  *out = NULL;
  const ens_obj *o;
  ens_txn *txn = NULL;
  const char *cmd = "set-colour";
  int rc = ens__lje_find(doc, cmd, target, NULL, &o);
  for (int i = 0; !rc && i < 4; i++)
    if (!rgba || !isfinite(rgba[i]) || rgba[i] < 0 || rgba[i] > 1)
      rc = ens__error(ENS_EINVAL, "%s: colour components go from 0 to 1", cmd);
  if (!rc) rc = ens__lje_txn("Set colour", &txn);
  if (rc) return ens__lje_finish(doc, rc, &txn, out);
  ens_value ty;
  int has_ty = ens_obj_get(o, "ty", &ty) == 0;
  if (ens__lje_is(o, ENS_LOTTIE_LAYER)) {
    if (!has_ty || ty.type != ENS_INT || ty.u.i != 1) {
      rc = ens__error(ENS_EINVAL, "%s: \"%s\" is not a solid layer: name its fill or stroke shape", cmd, target);
    } else {
      char hex[8];
      snprintf(hex, sizeof hex, "#%02x%02x%02x", s_channel(rgba[0]), s_channel(rgba[1]), s_channel(rgba[2]));
      rc = ens_txn_set(txn, ens_obj_id(o), "sc", ens_str(hex));
    }
    return ens__lje_finish(doc, rc, &txn, out);
  }
  const ens_obj *c = ens__lje_member(o, "c");
  ens_value k;
  if (!c || !ens__lje_is(c, ENS_LOTTIE_PROPERTY)) {
    rc = ens__error(ENS_EINVAL, "%s: \"%s\" is a shape without a colour (a fill or a stroke has one)", cmd, target);
  } else if (ens_obj_get(c, "k", &k) || k.type != ENS_BYTES) {
    rc = ens__error(ENS_EINVAL, "%s: the colour of \"%s\" is animated: set it at a frame with set-value", cmd, target);
  } else {
    size_t dims = ens__lje_count(k.u.s.ptr, k.u.s.len);
    ens_buf b = ENS_BUF_INIT;
    ens__buf_putc(&b, '[');
    for (size_t i = 0; i < (dims == 3 ? 3u : 4u); i++) {
      ens_value v = ens__lje_time(rgba[i]);
      if (i) ens__buf_putc(&b, ',');
      ens__lj_put_value(&b, &v);
    }
    ens__buf_putc(&b, ']');
    rc = b.oom ? ens__error(ENS_ENOMEM, "out of memory") : ens_txn_set(txn, ens_obj_id(c), "k", ens_bytes(b.data, b.len));
    ens__buf_free(&b);
  }
  return ens__lje_finish(doc, rc, &txn, out);
}

int ens_lottie_duplicate_layer(ens_doc *doc, const char *layer, ens_txn **out) {
  const ens_obj *l;
  ens_txn *txn;
  int rc = s_begin(doc, "duplicate-layer", layer, "Duplicate layer", &l, &txn, out);
  if (rc) return ens__lje_finish(doc, rc, &txn, out);
  const ens_obj *list = ens_obj_parent(l);
  char *pos = NULL;
  ens_id id = ENS_ID_NONE;
  rc = ens_doc_pos_at(doc, ens_obj_id(list), ens_obj_index(l), &pos);
  if (!rc) rc = ens__lje_copy(doc, txn, ens_obj_id(list), pos, NULL, l, 0, &id);
  ens_free(pos);
  double ind, max = 0;
  if (!rc && ens__lje_num(l, "ind", &ind) == 0) {
    for (size_t i = 0; i < ens_obj_child_count(list); i++) {
      double v;
      if (ens__lje_num(ens_obj_child(list, i), "ind", &v) == 0 && v > max) max = v;
    }
    rc = ens_txn_set(txn, id, "ind", ens__lje_time(floor(max) + 1));
  }
  ens_value nm;
  if (!rc && ens_obj_get(l, "nm", &nm) == 0 && nm.type == ENS_STR) {
    ens_buf b = ENS_BUF_INIT;
    ens__buf_append(&b, nm.u.s.ptr, nm.u.s.len);
    ens__buf_puts(&b, " copy");
    rc = b.oom ? ens__error(ENS_ENOMEM, "out of memory") : ens_txn_set(txn, id, "nm", ens_strn((char *)b.data, b.len));
    ens__buf_free(&b);
  }
  return ens__lje_finish(doc, rc, &txn, out);
}
