/* What a transaction changed in an animation, for `ensemble watch`: the
 * layers it touched and, in each, the keyframes (by property and time),
 * so that a line of the log says "layer 2 "Ball": keyframe p t=30" rather
 * than an object id. */
#include "watch_anim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LAYERS 32
#define MAX_KEYFRAMES 8 /* named per layer; the rest are counted */

typedef struct {
  const ens_obj *layer; /* NULL: outside every layer (the composition, assets, markers) */
  char kf[MAX_KEYFRAMES][64];
  size_t nkf, more_kf, other;
} s_layer;

typedef struct {
  s_layer l[MAX_LAYERS];
  size_t n, deleted, unplaced;
} s_sum;

static int s_is(const ens_obj *o, const char *kind) { return strcmp(ens_obj_kind(o), kind) == 0; }

static void s_value(const ens_obj *o, const char *key, char *buf, size_t size) {
  ens_value v;
  buf[0] = '\0';
  if (ens_obj_get(o, key, &v) != 0) return;
  if (v.type == ENS_INT) snprintf(buf, size, "%lld", (long long)v.u.i);
  else if (v.type == ENS_REAL) snprintf(buf, size, "%g", v.u.r);
  else if (v.type == ENS_STR) {
    size_t n = v.u.s.len < size - 1 ? v.u.s.len : size - 1;
    /* cut on a character's first byte: the name goes into JSON too */
    while (n < v.u.s.len && n > 0 && ((unsigned char)v.u.s.ptr[n] & 0xc0) == 0x80) n--;
    memcpy(buf, v.u.s.ptr, n);
    buf[n] = '\0';
  }
}

/* The member name the animated property of keyframe kf has ("p", "o"),
 * its list being "k" of that property. */
static void s_property_name(const ens_obj *kf, char *buf, size_t size) {
  const ens_obj *list = ens_obj_parent(kf);
  const ens_obj *prop = list ? ens_obj_parent(list) : NULL;
  snprintf(buf, size, "?");
  if (prop) s_value(prop, ENS_LOTTIE_KEY, buf, size);
  if (!buf[0]) snprintf(buf, size, "?");
}

/* The precomposition (an asset) a layer belongs to, NULL for a layer of
 * the main composition, whose list hangs off the root. */
static const ens_obj *s_asset_of(const ens_obj *layer) {
  const ens_obj *list = ens_obj_parent(layer);
  const ens_obj *owner = list ? ens_obj_parent(list) : NULL;
  return owner && ens_obj_parent(owner) ? owner : NULL;
}

static s_layer *s_slot(s_sum *s, const ens_obj *layer) {
  for (size_t i = 0; i < s->n; i++)
    if (s->l[i].layer == layer) return &s->l[i];
  if (s->n == MAX_LAYERS) return NULL;
  s_layer *l = &s->l[s->n++];
  memset(l, 0, sizeof *l);
  l->layer = layer;
  return l;
}

static void s_note(s_sum *s, const ens_obj *o) {
  const ens_obj *kf = NULL, *layer = NULL;
  for (const ens_obj *p = o; p; p = ens_obj_parent(p)) {
    if (!kf && s_is(p, ENS_LOTTIE_KEYFRAME)) kf = p;
    if (s_is(p, ENS_LOTTIE_LAYER)) {
      layer = p;
      break;
    }
  }
  s_layer *l = s_slot(s, layer);
  if (!l) {
    s->unplaced++;
    return;
  }
  if (!kf) {
    l->other++;
    return;
  }
  char name[64], prop[24], t[24];
  s_property_name(kf, prop, sizeof prop);
  s_value(kf, "t", t, sizeof t);
  snprintf(name, sizeof name, "%s t=%s", prop, t[0] ? t : "?");
  for (size_t i = 0; i < l->nkf; i++)
    if (strcmp(l->kf[i], name) == 0) return; /* its value and kept text: one keyframe */
  if (l->nkf == MAX_KEYFRAMES) {
    l->more_kf++;
    return;
  }
  snprintf(l->kf[l->nkf++], sizeof l->kf[0], "%s", name);
}

static void s_collect(const ens_doc *doc, const ens_txn *txn, s_sum *s) {
  memset(s, 0, sizeof *s);
  for (size_t i = 0; i < ens_txn_op_count(txn); i++) {
    const ens_obj *o = ens_doc_get(doc, ens_txn_op_target(txn, i));
    if (!o) { /* deleted, by this transaction or since */
      s->deleted++;
      continue;
    }
    s_note(s, o);
  }
}

/* A string as JSON, or as it is in quotes for text (control characters
 * shown as '?': one line per layer). */
static void s_quoted(FILE *f, const char *t, int json) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, json ? "\\%c" : "%c", *p);
    else if (*p < 0x20 && json) fprintf(f, "\\u%04x", *p);
    else if (*p < 0x20) fputc('?', f);
    else fputc(*p, f);
  }
  fputc('"', f);
}

void cli_watch_anim_text(FILE *f, const ens_doc *doc, const ens_txn *txn) {
  if (!doc || !txn || strcmp(ens_doc_kind(doc), ENS_LOTTIE_KIND) != 0) return;
  s_sum *s = malloc(sizeof *s);
  if (!s) return;
  s_collect(doc, txn, s);
  for (size_t i = 0; i < s->n; i++) {
    const s_layer *l = &s->l[i];
    if (l->layer) {
      char ind[24], nm[48];
      s_value(l->layer, "ind", ind, sizeof ind);
      s_value(l->layer, "nm", nm, sizeof nm);
      fprintf(f, "  layer %s ", ind[0] ? ind : "-");
      s_quoted(f, nm, 0);
      const ens_obj *asset = s_asset_of(l->layer);
      if (asset) { /* the same ind may be a layer of the main composition */
        char id[48];
        s_value(asset, "id", id, sizeof id);
        fputs(" in precomposition ", f);
        s_quoted(f, id, 0);
      }
      fputc(':', f);
    } else {
      fputs("  the animation:", f);
    }
    const char *sep = " ";
    for (size_t k = 0; k < l->nkf; k++, sep = ", ") fprintf(f, "%skeyframe %s", sep, l->kf[k]);
    if (l->more_kf) fprintf(f, "%s%zu more keyframes", sep, l->more_kf), sep = ", ";
    if (l->other) fprintf(f, "%s%zu other change%s", sep, l->other, l->other == 1 ? "" : "s");
    fputc('\n', f);
  }
  if (s->unplaced) fprintf(f, "  %zu changes in further layers\n", s->unplaced);
  if (s->deleted) fprintf(f, "  %zu object%s deleted\n", s->deleted, s->deleted == 1 ? "" : "s");
  free(s);
}

void cli_watch_anim_json(FILE *f, const ens_doc *doc, const ens_txn *txn) {
  if (!doc || !txn || strcmp(ens_doc_kind(doc), ENS_LOTTIE_KIND) != 0) return;
  s_sum *s = malloc(sizeof *s);
  if (!s) return;
  s_collect(doc, txn, s);
  fputs(", \"layers\": [", f);
  size_t shown = 0;
  for (size_t i = 0; i < s->n; i++) {
    const s_layer *l = &s->l[i];
    if (!l->layer) continue;
    char ind[24], nm[48];
    s_value(l->layer, "ind", ind, sizeof ind);
    s_value(l->layer, "nm", nm, sizeof nm);
    fprintf(f, "%s{\"ind\": ", shown++ ? ", " : "");
    s_quoted(f, ind, 1);
    fputs(", \"name\": ", f);
    s_quoted(f, nm, 1);
    const ens_obj *asset = s_asset_of(l->layer);
    fputs(", \"precomposition\": ", f);
    if (asset) {
      char id[48];
      s_value(asset, "id", id, sizeof id);
      s_quoted(f, id, 1);
    } else {
      fputs("null", f);
    }
    fputs(", \"keyframes\": [", f);
    for (size_t k = 0; k < l->nkf; k++) {
      if (k) fputs(", ", f);
      s_quoted(f, l->kf[k], 1);
    }
    fprintf(f, "], \"more_keyframes\": %zu, \"other\": %zu}", l->more_kf, l->other);
  }
  size_t outside = 0;
  for (size_t i = 0; i < s->n; i++)
    if (!s->l[i].layer) outside = s->l[i].other + s->l[i].nkf + s->l[i].more_kf;
  fprintf(f, "], \"outside_layers\": %zu, \"deleted\": %zu", outside + s->unplaced, s->deleted);
  free(s);
}
