/* Translate, rotate and scale an element through its transform attribute.
 * The new transform goes in front of the existing text, which is kept as
 * written: SVG applies a transform list right to left, so what is put in
 * front acts last, in the parent's coordinates, whatever the element's
 * own transform does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/buf.h"
#include "../../util/error.h"
#include "edit_int.h"

static int s_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Puts head in front of the element's transform and builds the
 * transaction; head NULL builds an empty one (nothing moves). */
static int s_prepend(ens_doc *doc, const char *cmd, const char *label, const char *elem, const char *head,
                     ens_txn **out) {
  const ens_obj *e;
  if (!out) return ens__error(ENS_EINVAL, "%s: no output", cmd);
  *out = NULL;
  int rc = ens__svge_elem(doc, cmd, elem, &e);
  if (rc) return rc;
  if (ens_obj_parent(e) == ens_doc_root(doc) && strcmp(ens__svge_local(ens_obj_kind(e)), "svg") == 0)
    return ens__error(ENS_EINVAL, "%s: the root <svg> element has no transform in SVG 1.1; edit its children", cmd);
  const char *v = "";
  size_t n = 0;
  ens__svge_attr(e, "transform", &v, &n);
  ens_buf b = ENS_BUF_INIT;
  size_t trimmed = n, lead = 0;
  while (trimmed && s_blank(v[trimmed - 1])) trimmed--;
  while (lead < trimmed && s_blank(v[lead])) lead++;
  if (head) {
    ens__buf_puts(&b, head);
    if (lead < trimmed) { /* the existing text stays exactly as it was */
      ens__buf_putc(&b, ' ');
      ens__buf_append(&b, v, n);
    }
  }
  if (b.oom) rc = ens__error(ENS_ENOMEM, "out of memory");
  if (!rc) rc = ens__svge_txn(label, out);
  if (!rc && !head) {
    ens__buf_free(&b);
    return 0; /* nothing moves: an empty transaction */
  }
  if (!rc) rc = ens_txn_set(*out, ens_obj_id(e), "transform", ens_strn((const char *)b.data, b.len));
  ens__buf_free(&b);
  if (rc) {
    ens_txn_free(*out);
    *out = NULL;
  }
  return rc;
}

static int s_finite(const char *cmd, int n, const double *v) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return ens__error(ENS_EINVAL, "%s: numbers must be finite", cmd);
  return 0;
}

int ens_svg_translate(ens_doc *doc, const char *elem, double dx, double dy, ens_txn **out) {
  double v[2] = {dx, dy};
  if (out) *out = NULL;
  int rc = s_finite("translate", 2, v);
  if (rc) return rc;
  char x[40], y[40], head[100];
  ens__svge_num(dx, x, sizeof x);
  ens__svge_num(dy, y, sizeof y);
  snprintf(head, sizeof head, "translate(%s,%s)", x, y);
  return s_prepend(doc, "translate", "Move", elem, dx == 0 && dy == 0 ? NULL : head, out);
}

int ens_svg_rotate(ens_doc *doc, const char *elem, double deg, double cx, double cy, ens_txn **out) {
  double v[3] = {deg, cx, cy};
  if (out) *out = NULL;
  int rc = s_finite("rotate", 3, v);
  if (rc) return rc;
  char a[40], x[40], y[40], head[140];
  ens__svge_num(deg, a, sizeof a);
  ens__svge_num(cx, x, sizeof x);
  ens__svge_num(cy, y, sizeof y);
  if (cx == 0 && cy == 0) snprintf(head, sizeof head, "rotate(%s)", a);
  else snprintf(head, sizeof head, "rotate(%s,%s,%s)", a, x, y);
  return s_prepend(doc, "rotate", "Rotate", elem, head, out);
}

int ens_svg_scale(ens_doc *doc, const char *elem, double sx, double sy, double cx, double cy, ens_txn **out) {
  double v[4] = {sx, sy, cx, cy};
  if (out) *out = NULL;
  int rc = s_finite("scale", 4, v);
  if (rc) return rc;
  if (sx == 0 || sy == 0) return ens__error(ENS_EINVAL, "scale: a factor of 0 would flatten the element for good");
  char a[40], b[40], x[40], y[40], nx[40], ny[40], s[90], head[300];
  ens__svge_num(sx, a, sizeof a);
  ens__svge_num(sy, b, sizeof b);
  if (sx == sy) snprintf(s, sizeof s, "scale(%s)", a);
  else snprintf(s, sizeof s, "scale(%s,%s)", a, b);
  if (cx == 0 && cy == 0) {
    snprintf(head, sizeof head, "%s", s);
  } else {
    /* about (cx, cy): move it to the origin, scale, move it back */
    ens__svge_num(cx, x, sizeof x);
    ens__svge_num(cy, y, sizeof y);
    ens__svge_num(-cx, nx, sizeof nx);
    ens__svge_num(-cy, ny, sizeof ny);
    snprintf(head, sizeof head, "translate(%s,%s) %s translate(%s,%s)", x, y, s, nx, ny);
  }
  return s_prepend(doc, "scale", "Scale", elem, head, out);
}
