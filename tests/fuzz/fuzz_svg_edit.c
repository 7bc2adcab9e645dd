/* Fuzz target: the SVG editing commands (ensemble/svgedit.h) on untrusted
 * drawings, and a slice of the input inserted as a markup fragment. An
 * edit either builds nothing, with a message, or builds a transaction
 * that the SVG rules refuse only for a character the drawing's encoding
 * cannot hold (leaving it as it was), or that applies, writes a file that
 * reads back as the drawing (fz_check_written), and undoes to the input's
 * bytes. See docs/svg.md, "Editing". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

#define S_ELEMS 6
#define S_OPS 15

typedef struct {
  ens_id ids[S_ELEMS];
  size_t n;
} s_pick;

static int s_pick_fn(const ens_obj *o, size_t depth, void *user) {
  s_pick *p = user;
  (void)depth;
  if (ens_obj_parent(o) && ens_obj_kind(o)[0] != '#') p->ids[p->n++] = ens_obj_id(o);
  return p->n == S_ELEMS;
}

/* Builds edit op on the element at addr (next: another element's). */
static int s_build(ens_doc *doc, int op, const char *addr, const char *next, const uint8_t *data, size_t size,
                   ens_txn **t) {
  const char *two[2] = {addr, next};
  switch (op) {
  case 0: return ens_svg_set_attr(doc, addr, "fill", "#0f0", t);
  case 1: return ens_svg_set_attr(doc, addr, "id", "fz-new-id", t);
  case 2: return ens_svg_remove_attr(doc, addr, "id", t);
  case 3: return ens_svg_set_style(doc, addr, "stroke", "red", t);
  case 4: return ens_svg_set_style(doc, addr, "fill", NULL, t);
  case 5: return ens_svg_translate(doc, addr, 10, -2.5, t);
  case 6: return ens_svg_rotate(doc, addr, 30, 1, 2, t);
  case 7: return ens_svg_scale(doc, addr, 2, 0.5, 3, 4, t);
  case 8: return ens_svg_raise(doc, addr, t);
  case 9: return ens_svg_lower(doc, addr, t);
  case 10: return ens_svg_group(doc, two, next ? 2 : 1, NULL, t);
  case 11: return ens_svg_ungroup(doc, addr, t);
  case 12: return ens_svg_duplicate(doc, addr, t);
  case 13: return ens_svg_delete(doc, addr, t);
  default: /* the middle third of the input, as markup */
    return ens_svg_insert(doc, addr, 0, (const char *)data + size / 3, size / 3, t);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ens_doc *doc = NULL;
  if (ens_svg_read(data, size, &doc) != 0) return 0;
  s_pick pick = {{0}, 0};
  ens_obj_walk(ens_doc_root(doc), s_pick_fn, &pick);
  char addr[S_ELEMS][ENS_SVG_ADDRESS_MAX];
  size_t na = 0;
  for (size_t i = 0; i < pick.n; i++)
    if (ens_svg_address(ens_doc_get(doc, pick.ids[i]), addr[na], sizeof addr[na]) == 0) {
      FZ_CHECK(ens_svg_find(doc, addr[na]) == ens_doc_get(doc, pick.ids[i]), "an address names another element");
      na++;
    }
  for (size_t i = 0; i < na; i++) {
    for (int op = 0; op < S_OPS; op++) {
      ens_txn *t = NULL, *inv = NULL;
      int rc = s_build(doc, op, addr[i], i + 1 < na ? addr[i + 1] : NULL, data, size, &t);
      if (rc) {
        FZ_CHECK(t == NULL, "a refused edit built a transaction");
        FZ_CHECK(ens_error_last()[0] != '\0', "a refusal without a message");
        continue;
      }
      uint64_t before = ens_doc_hash(doc);
      rc = ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, &inv);
      if (rc == ENS_EFORMAT && strstr(ens_error_last(), "encoding")) {
        /* a non-UTF-8 drawing cannot hold every character of a new value */
        FZ_CHECK(ens_doc_hash(doc) == before, "a refused edit changed the drawing");
        ens_txn_free(t);
        continue;
      }
      FZ_CHECK_TXN(t, rc == 0, "edit %d does not apply: %s", op, ens_error_last());
      fz_check_written(doc, "an edit");
      unsigned char *out;
      size_t n;
      FZ_CHECK(ens_doc_apply(doc, inv, ENS_ORIGIN_UNDO, NULL) == 0, "the undo of edit %d does not apply: %s", op,
               ens_error_last());
      FZ_CHECK(ens_svg_write(doc, &out, &n) == 0 && n == size && memcmp(out, data, size) == 0,
               "the undo of edit %d does not give the input back", op);
      ens_free(out);
      ens_txn_free(inv);
      ens_txn_free(t);
    }
  }
  ens_doc_free(doc);
  return 0;
}
