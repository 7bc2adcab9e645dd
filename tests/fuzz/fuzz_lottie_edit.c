/* Fuzz target: the Lottie editing commands (ensemble/lottieedit.h) on
 * untrusted animations. For the first layers, each command on their
 * opacity and position at the times of their keyframes and others: an
 * edit either builds nothing, with a message, or builds a transaction
 * that applies, writes a file that reads back as the animation
 * (fz_check_written), and undoes to the input's bytes. See docs/lottie.md,
 * "Editing". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

#define S_LAYERS 4
#define S_OPS 16

/* Up to three keyframe times of the property at addr, then two others. */
static size_t s_times(const ens_doc *doc, const char *addr, double *t) {
  size_t n = 0;
  const ens_obj *p = ens_lottie_find(doc, addr);
  for (size_t i = 0; p && i < ens_obj_child_count(p); i++) {
    const ens_obj *k = ens_obj_child(p, i);
    for (size_t j = 0; j < ens_obj_child_count(k) && n < 3; j++) {
      ens_value v;
      if (ens_obj_get(ens_obj_child(k, j), "t", &v) == 0)
        t[n++] = v.type == ENS_INT ? (double)v.u.i : v.type == ENS_REAL ? v.u.r : 0;
    }
  }
  t[n++] = 0;
  t[n++] = 7.5;
  return n;
}

static int s_build(ens_doc *doc, int op, const char *layer, const char *prop, const char *other, double t, double t2,
                   ens_txn **out) {
  static const ens_lottie_easing ease = {0.42, 0, 0.58, 1, 0}, hold = {0, 0, 1, 1, 1};
  static const double red[4] = {1, 0, 0, 1};
  switch (op) {
  case 0: return ens_lottie_set_value(doc, prop, t, "[12.5,-3]", out);
  case 1: return ens_lottie_set_value(doc, prop, t2, "50", out);
  case 2: return ens_lottie_add_keyframe(doc, prop, t + 0.5, "[1,2]", out);
  case 3: return ens_lottie_move_keyframe(doc, prop, t, t2, out);
  case 4: return ens_lottie_delete_keyframe(doc, prop, t, out);
  case 5: return ens_lottie_set_easing(doc, prop, t, op & 1 ? &hold : &ease, out);
  case 6: return ens_lottie_set_easing(doc, prop, t, &hold, out);
  case 7: return ens_lottie_shift_layer(doc, layer, -3.5, out);
  case 8: return ens_lottie_stretch_layer(doc, layer, 0.5, out);
  case 9: return ens_lottie_shift_range(doc, t, 4, out);
  case 10: return ens_lottie_set_in_out(doc, layer, t, t + 10, out);
  case 11: return ens_lottie_reparent(doc, layer, other, out);
  case 12: return ens_lottie_reorder(doc, layer, 0, out);
  case 13: return ens_lottie_rename(doc, layer, "fz \"name\" \xc3\xa9", out);
  case 14: return ens_lottie_set_color(doc, layer, red, out);
  default: return ens_lottie_duplicate_layer(doc, layer, out);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ens_doc *doc = NULL;
  if (ens_lottie_read(data, size, &doc) != 0) return 0;
  unsigned char *orig;
  size_t orig_n;
  FZ_CHECK(ens_lottie_write(doc, &orig, &orig_n) == 0, "an animation that reads does not write");
  for (int l = 0; l < S_LAYERS; l++) {
    char layer[16], other[16], prop[2][32];
    snprintf(layer, sizeof layer, "[%d]", l);
    if (!ens_lottie_find(doc, layer)) break;
    snprintf(other, sizeof other, "[%d]", l + 1);
    snprintf(prop[0], sizeof prop[0], "%s.o", layer);
    snprintf(prop[1], sizeof prop[1], "%s.p", layer);
    for (int pi = 0; pi < 2; pi++) {
      double times[5];
      size_t nt = s_times(doc, prop[pi], times);
      for (int op = 0; op < S_OPS; op++) {
        if (pi && (op >= 7)) break; /* the layer edits once per layer */
        for (size_t ti = 0; ti < nt; ti++) {
          ens_txn *t = NULL, *inv = NULL;
          int rc = s_build(doc, op, layer, prop[pi], ens_lottie_find(doc, other) ? other : NULL, times[ti],
                           times[(ti + 1) % nt], &t);
          if (rc) {
            FZ_CHECK(t == NULL, "a refused edit built a transaction");
            FZ_CHECK(ens_error_last()[0] != '\0', "a refusal without a message");
            continue;
          }
          rc = ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, &inv);
          FZ_CHECK_TXN(t, rc == 0, "edit %d does not apply: %s", op, ens_error_last());
          char what[96];
          snprintf(what, sizeof what, "edit %d on %s at %g", op, pi ? prop[1] : prop[0], times[ti]);
          fz_check_written(doc, what);
          unsigned char *out;
          size_t n;
          FZ_CHECK(ens_doc_apply(doc, inv, ENS_ORIGIN_UNDO, NULL) == 0, "the undo of edit %d does not apply: %s", op,
                   ens_error_last());
          FZ_CHECK(ens_lottie_write(doc, &out, &n) == 0 && n == orig_n && memcmp(out, orig, n) == 0,
                   "the undo of edit %d does not give the input back", op);
          ens_free(out);
          ens_txn_free(inv);
          ens_txn_free(t);
          if (op >= 7) break; /* one time is enough for the layer edits */
        }
      }
    }
  }
  ens_free(orig);
  ens_doc_free(doc);
  return 0;
}
