/* The animation view's calls: the animation written as plain Lottie JSON
 * for the page's player, and the timeline's gestures, each one
 * transaction built by the library's Lottie edits (ensemble/lottieedit.h,
 * whose addresses the page uses: "[0].p" is the first layer's position). */
#include <emscripten.h>

#include "wasm_json.h"

EMSCRIPTEN_KEEPALIVE const char *ensw_lottie_text(ensw *h) {
  ens_buf b = {0};
  const ens_doc *d = ensw__doc(h);
  unsigned char *text = NULL;
  size_t len = 0;
  if (d && ens_lottie_write_as(d, ENS_LOTTIE_AS_JSON, &text, &len) == 0) ens__buf_append(&b, text, len);
  ens_free(text);
  return ensw__out(h, &b);
}

EMSCRIPTEN_KEEPALIVE int ensw_lottie_move_keyframe(ensw *h, const char *prop, double t, double new_t) {
  ens_doc *d = ensw__doc(h);
  ens_txn *txn = NULL;
  int rc = d ? ens_lottie_move_keyframe(d, prop, t, new_t, &txn) : ENS_EINVAL;
  return rc ? rc : ensw__commit(h, txn);
}

EMSCRIPTEN_KEEPALIVE int ensw_lottie_shift_layer(ensw *h, const char *layer, double dt) {
  ens_doc *d = ensw__doc(h);
  ens_txn *txn = NULL;
  int rc = d ? ens_lottie_shift_layer(d, layer, dt, &txn) : ENS_EINVAL;
  return rc ? rc : ensw__commit(h, txn);
}

/* The id of what an address names ("[0]", "[0]/[1].s"), as JSON: a
 * "site:counter" string, or null when the address names nothing. The
 * page selects layers by id, so that collaborators see the selection on
 * the same layer wherever the list has moved it. */
EMSCRIPTEN_KEEPALIVE const char *ensw_lottie_find(ensw *h, const char *address) {
  ens_buf b = {0};
  const ens_doc *d = ensw__doc(h);
  const ens_obj *o = d ? ens_lottie_find(d, address) : NULL;
  if (o) ensw_json_id(&b, ens_obj_id(o));
  else ens__buf_append(&b, "null", 4);
  return ensw__out(h, &b);
}
