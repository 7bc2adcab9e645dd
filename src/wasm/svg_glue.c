/* The drawing view's calls: the document written as SVG for the browser's
 * own SVG engine, the ids of its elements in document order (the page
 * tags each DOM element with its id), and the gestures, each one
 * transaction built by the library's SVG edits (ensemble/svgedit.h). */
#include <emscripten.h>
#include <stdlib.h>
#include <string.h>

#include "wasm_json.h"

EMSCRIPTEN_KEEPALIVE const char *ensw_svg_text(ensw *h) {
  ens_buf b = {0};
  const ens_doc *d = ensw__doc(h);
  unsigned char *text = NULL;
  size_t len = 0;
  if (d && ens_svg_write(d, &text, &len) == 0) ens__buf_append(&b, text, len);
  ens_free(text);
  return ensw__out(h, &b);
}

static int s_is_elem(const ens_obj *o) { return ens_obj_parent(o) && ens_obj_kind(o)[0] != '#'; }

static void s_walk(const ens_obj *o, ens_buf *b, int *first) {
  if (s_is_elem(o)) {
    if (!*first) ens__buf_putc(b, ',');
    *first = 0;
    ensw_json_id(b, ens_obj_id(o));
  }
  for (size_t i = 0; i < ens_obj_child_count(o); i++) s_walk(ens_obj_child(o, i), b, first);
}

/* The elements' ids in the order the written SVG holds them. */
EMSCRIPTEN_KEEPALIVE const char *ensw_svg_ids(ensw *h) {
  ens_buf b = {0};
  const ens_doc *d = ensw__doc(h);
  int first = 1;
  ens__buf_putc(&b, '[');
  if (d) s_walk(ens_doc_root(d), &b, &first);
  ens__buf_putc(&b, ']');
  return ensw__out(h, &b);
}

typedef int (*s_edit_fn)(ens_doc *doc, const char *elem, const void *arg, ens_txn **out);

/* The edit of each element built against the same document and their
 * operations gathered into one transaction: one gesture, one undo step.
 * Only sets and deletes are gathered (what translate, colour and delete
 * build); an edit that builds anything else is refused. */
static int s_each(ensw *h, const char *ids, s_edit_fn fn, const void *arg, const char *label) {
  ens_doc *d = ensw__doc(h);
  if (!d) return ENS_EINVAL;
  ens_id sel[1024];
  size_t n = ensw_parse_ids(ids, sel, 1024);
  if (n == 0) return ENS_EINVAL;
  ens_txn *all = ens_txn_new(label, NULL);
  if (!all) return ENS_ENOMEM;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    const ens_obj *o = ens_doc_get(d, sel[i]);
    char addr[ENS_SVG_ADDRESS_MAX];
    if (!o) continue; /* a collaborator deleted it meanwhile */
    rc = ens_svg_address(o, addr, sizeof addr);
    ens_txn *one = NULL;
    if (!rc) rc = fn(d, addr, arg, &one);
    for (size_t k = 0; !rc && k < ens_txn_op_count(one); k++) {
      ens_id target = ens_txn_op_target(one, k);
      const char *key;
      ens_value v;
      switch (ens_txn_op_kind(one, k)) {
      case ENS_OP_SET:
        rc = ens_txn_op_set(one, k, &key, &v);
        if (!rc) rc = ens_txn_set(all, target, key, v);
        break;
      case ENS_OP_DELETE: rc = ens_txn_delete(all, target); break;
      default: rc = ENS_EINVAL;
      }
    }
    ens_txn_free(one);
  }
  if (rc || ens_txn_op_count(all) == 0) {
    ens_txn_free(all);
    return rc ? rc : ENS_EINVAL;
  }
  return ensw__commit(h, all);
}

typedef struct {
  double dx, dy;
} s_delta;

static int s_translate(ens_doc *d, const char *e, const void *arg, ens_txn **out) {
  const s_delta *t = arg;
  return ens_svg_translate(d, e, t->dx, t->dy, out);
}

static int s_delete(ens_doc *d, const char *e, const void *arg, ens_txn **out) {
  (void)arg;
  return ens_svg_delete(d, e, out);
}

typedef struct {
  const char *prop, *value;
} s_style;

static int s_colour(ens_doc *d, const char *e, const void *arg, ens_txn **out) {
  const s_style *st = arg;
  return ens_svg_set_style(d, e, st->prop, st->value, out);
}

EMSCRIPTEN_KEEPALIVE int ensw_svg_translate(ensw *h, const char *ids, double dx, double dy) {
  s_delta t = {dx, dy};
  return s_each(h, ids, s_translate, &t, "Move");
}

EMSCRIPTEN_KEEPALIVE int ensw_svg_delete(ensw *h, const char *ids) { return s_each(h, ids, s_delete, NULL, "Delete"); }

EMSCRIPTEN_KEEPALIVE int ensw_svg_colour(ensw *h, const char *ids, const char *prop, const char *value) {
  if (strcmp(prop, "fill") != 0 && strcmp(prop, "stroke") != 0) return ENS_EINVAL;
  s_style st = {prop, value};
  return s_each(h, ids, s_colour, &st, strcmp(prop, "fill") == 0 ? "Set fill colour" : "Set stroke colour");
}

/* Raise (up 1) or lower (up 0) one element among its siblings. */
EMSCRIPTEN_KEEPALIVE int ensw_svg_order(ensw *h, const char *id, int up) {
  ens_doc *d = ensw__doc(h);
  ens_id one;
  if (!d || ensw_parse_ids(id, &one, 1) != 1) return ENS_EINVAL;
  const ens_obj *o = ens_doc_get(d, one);
  char addr[ENS_SVG_ADDRESS_MAX];
  if (!o) return ENS_ENOTFOUND;
  int rc = ens_svg_address(o, addr, sizeof addr);
  ens_txn *t = NULL;
  if (!rc) rc = up ? ens_svg_raise(d, addr, &t) : ens_svg_lower(d, addr, &t);
  return rc ? rc : ensw__commit(h, t);
}
