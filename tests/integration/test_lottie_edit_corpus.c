/* Every animation edit on every corpus animation (lottie/spec, lottie/docs):
 * each commits as one undo step; its output reads back and rlottie draws
 * it; its frames differ from the input's where the edit says and nowhere
 * else it should not (frame pixels compared, inside the footprint of the
 * edited layer where the edit cannot move it); undo gives the input bytes
 * back; and only the text of the edited layer changed (the bytes before
 * and after it are the same). The target is a layer that rlottie draws at
 * the middle frame, its opacity the property keyframed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

#define S_SIDE 96 /* pixels: enough to see every edit, cheap to draw */

typedef struct {
  const char *path;
  char *base; /* the bytes the edit starts from */
  size_t base_len;
  char layer[64], other[64];    /* the target layer and a second one ("[N]") */
  double st, ip, op;            /* of the target layer */
  long f_ip, f_q, f_mid;        /* frames: the layer's in point, a quarter, the middle */
  int pixels;                   /* the frames are drawn and the target is seen at f_mid */
  int opacity_static;           /* its opacity was static in the file */
  int precomp;                  /* it is a precomposition layer */
  int gen;                      /* which base: frames of it are drawn once (s_base_frame) */
  char *orig, *cut;             /* the file, and the file without the target layer */
  size_t orig_len, cut_len;
  long mask_frame[4];           /* where the target is drawn at these frames: the pixels that */
  ens_image mask[4];            /* differ between the file with and without it */
  int nmask;
  size_t span_from, span_to;    /* the target layer's bytes in base */
} s_case;

typedef struct {
  int runs, pixel_checked, differ_ok, same_ok, inside_ok, skipped;
  char skip_why[16][160];
  int nskip;
} s_tally;

static s_tally s_count[16];
static const char *const s_cmds[] = {"set-value",   "add-keyframe", "move-keyframe", "delete-keyframe", "set-easing",
                                     "shift-layer", "stretch-layer", "shift-range",  "set-in-out",      "reparent",
                                     "reorder",     "rename",       "set-colour",    "duplicate-layer"};
enum { C_SET, C_ADD, C_MOVE, C_DEL, C_EASE, C_SHIFT, C_STRETCH, C_RANGE, C_INOUT, C_PARENT, C_ORDER, C_RENAME, C_COLOUR, C_DUP, C_N };

static ens_doc *s_read(const char *data, size_t len) {
  ens_doc *doc = NULL;
  if (ens_lottie_read(data, len, &doc)) fail_msg("read: %s", ens_error_last());
  return doc;
}

static char *s_write(const ens_doc *doc, size_t *len) {
  unsigned char *out;
  if (ens_lottie_write(doc, &out, len)) fail_msg("write: %s", ens_error_last());
  return (char *)out;
}

/* Frame f of the JSON, or a zero image when rlottie refuses it. */
static int s_frame(const char *json, size_t len, long f, ens_image *img) {
  ens_render_size size = {S_SIDE, S_SIDE, 20000};
  memset(img, 0, sizeof *img);
  return ens_render_lottie_frame(json, len, f, size, img);
}

/* Frame f of c's base, drawn once per base and frame: a copy the caller
 * frees, or nonzero when rlottie refuses it. */
static struct {
  int gen;
  long frame;
  ens_image img;
} s_cache[8];
static int s_gen_next, s_cache_next;

static int s_base_frame(const s_case *c, long f, ens_image *img) {
  for (int i = 0; i < 8; i++)
    if (s_cache[i].gen == c->gen && c->gen && s_cache[i].frame == f) {
      *img = s_cache[i].img;
      img->pixels = malloc((size_t)img->height * img->stride);
      memcpy(img->pixels, s_cache[i].img.pixels, (size_t)img->height * img->stride);
      return 0;
    }
  int rc = s_frame(c->base, c->base_len, f, img);
  if (rc) return rc;
  int k = s_cache_next++ % 8;
  free(s_cache[k].img.pixels);
  s_cache[k].gen = c->gen;
  s_cache[k].frame = f;
  s_cache[k].img = *img;
  s_cache[k].img.pixels = malloc((size_t)img->height * img->stride);
  memcpy(s_cache[k].img.pixels, img->pixels, (size_t)img->height * img->stride);
  return 0;
}

/* Pixels of a that differ from b, as a mask image (0 / 1 words) of the same size. */
static long s_diff(const ens_image *a, const ens_image *b, ens_image *mask) {
  long n = 0;
  if (mask) {
    *mask = *a;
    mask->pixels = calloc((size_t)a->height, a->stride);
  }
  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width; x++) {
      uint32_t pa = ((const uint32_t *)(a->pixels + (size_t)y * a->stride))[x];
      uint32_t pb = ((const uint32_t *)(b->pixels + (size_t)y * b->stride))[x];
      if (pa != pb) {
        n++;
        if (mask) ((uint32_t *)(mask->pixels + (size_t)y * mask->stride))[x] = 1;
      }
    }
  return n;
}

/* Two pixels that differ by rounding only: blending in another order
 * (layers exchanged) moves a channel by a unit or two where an edge
 * covers a pixel a little. */
static int s_close(uint32_t a, uint32_t b) {
  for (int sh = 0; sh < 32; sh += 8) {
    int d = (int)((a >> sh) & 0xff) - (int)((b >> sh) & 0xff);
    if (d > 3 || d < -3) return 0;
  }
  return 1;
}

/* Differing pixels of a and b outside mask (or, with mask2, outside
 * where both are set). Anti-aliased edges: one pixel of slack. */
static long s_outside(const ens_image *a, const ens_image *b, const ens_image *mask, const ens_image *mask2) {
  long n = 0;
  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width; x++) {
      uint32_t pa = ((const uint32_t *)(a->pixels + (size_t)y * a->stride))[x];
      uint32_t pb = ((const uint32_t *)(b->pixels + (size_t)y * b->stride))[x];
      if (s_close(pa, pb)) continue;
      int in = 0, in2 = !mask2;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= a->width || yy >= a->height) continue;
          if (((const uint32_t *)(mask->pixels + (size_t)yy * mask->stride))[xx]) in = 1;
          if (mask2 && ((const uint32_t *)(mask2->pixels + (size_t)yy * mask2->stride))[xx]) in2 = 1;
        }
      if (!(in && in2)) n++;
    }
  return n;
}

/* Where layer addr is drawn at frame f when it is drawn alone (with the
 * layers it is parented to): the pixels it covers, seen or hidden under
 * others. The mask is the caller's (free its pixels). */
static ens_image s_footprint(const s_case *c, const char *addr, long f) {
  ens_doc *doc = s_read(c->orig, c->orig_len);
  const ens_obj *keep = ens_lottie_find(doc, addr), *list = ens_obj_parent(keep);
  size_t n = ens_obj_child_count(list);
  char *kept = calloc(n, 1);
  for (const ens_obj *up = keep; up && !kept[ens_obj_index(up)];) {
    kept[ens_obj_index(up)] = 1;
    ens_value pv, ind;
    const ens_obj *next = NULL;
    for (size_t j = 0; j < n && ens_obj_get(up, "parent", &pv) == 0; j++)
      if (ens_obj_get(ens_obj_child(list, j), "ind", &ind) == 0 && ens_value_equal(&pv, &ind)) next = ens_obj_child(list, j);
    up = next;
  }
  ens_txn *t = ens_txn_new("alone", NULL);
  for (size_t j = 0; j < n; j++)
    if (!kept[j]) assert_int_equal(ens_txn_delete(t, ens_obj_id(ens_obj_child(list, j))), 0);
  free(kept);
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  size_t len;
  char *alone = s_write(doc, &len);
  ens_doc_free(doc);
  ens_image img, mask;
  if (s_frame(alone, len, f, &img)) fail_msg("%s: %s alone, frame %ld: %s", c->path, addr, f, ens_error_last());
  ens_free(alone);
  mask = img;
  mask.pixels = calloc((size_t)img.height, img.stride);
  for (int y = 0; y < img.height; y++)
    for (int x = 0; x < img.width; x++)
      if (((const uint32_t *)(img.pixels + (size_t)y * img.stride))[x] >> 24)
        ((uint32_t *)(mask.pixels + (size_t)y * mask.stride))[x] = 1;
  ens_image_free(&img);
  return mask;
}

/* Where the target layer is drawn at frame f (cached): the pixels that
 * differ with and without it, and those it covers alone. */
static const ens_image *s_mask(s_case *c, long f) {
  for (int i = 0; i < c->nmask; i++)
    if (c->mask_frame[i] == f) return &c->mask[i];
  assert_true(c->nmask < 4);
  ens_image a, b;
  if (s_frame(c->orig, c->orig_len, f, &a) || s_frame(c->cut, c->cut_len, f, &b))
    fail_msg("%s: frame %ld: %s", c->path, f, ens_error_last());
  ens_image *m = &c->mask[c->nmask];
  s_diff(&a, &b, m);
  ens_image_free(&a);
  ens_image_free(&b);
  /* and every pixel it covers drawn alone: where a blend mode saturates,
   * removing it changes nothing that fading it does not */
  ens_image alone = s_footprint(c, c->layer, f);
  for (int y = 0; y < m->height; y++)
    for (int x = 0; x < m->width; x++)
      ((uint32_t *)(m->pixels + (size_t)y * m->stride))[x] |= ((const uint32_t *)(alone.pixels + (size_t)y * alone.stride))[x];
  free(alone.pixels);
  c->mask_frame[c->nmask] = f;
  return &c->mask[c->nmask++];
}

/* The bytes of layer addr in text: where the text differs from the same
 * with the layer emptied ({} in its place, its own blanks kept). */
static void s_span(const char *text, size_t len, const char *addr, size_t *from, size_t *to) {
  ens_doc *doc = s_read(text, len);
  const ens_obj *l = ens_lottie_find(doc, addr);
  assert_non_null(l);
  ens_txn *t = ens_txn_new("empty", NULL);
  for (size_t i = 0; i < ens_obj_child_count(l); i++) assert_int_equal(ens_txn_delete(t, ens_obj_id(ens_obj_child(l, i))), 0);
  for (size_t i = 0; i < ens_obj_prop_count(l); i++) {
    const char *key;
    ens_value v;
    if (ens_obj_prop_at(l, i, &key, &v) == 0 && key[0] != '~') assert_int_equal(ens_txn_set(t, ens_obj_id(l), key, ens_nil()), 0);
  }
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  size_t n;
  char *empty = s_write(doc, &n);
  size_t p = 0, s = 0;
  while (p < n && p < len && empty[p] == text[p]) p++;
  while (s < n - p && s < len - p && empty[n - 1 - s] == text[len - 1 - s]) s++;
  *from = p;
  *to = len - s;
  ens_free(empty);
  ens_doc_free(doc);
}

static void s_skip(int cmd, const char *path, const char *why) {
  s_tally *t = &s_count[cmd];
  t->skipped++;
  if (t->nskip < 16) snprintf(t->skip_why[t->nskip++], sizeof t->skip_why[0], "%s: %s", strrchr(path, '/') + 1, why);
}

/* What an edit must do to the frames of its base. */
typedef struct {
  long differ[3], same[3]; /* -1 ends */
  int inside;              /* at the differ frames, the changed pixels are where the target is drawn */
  int same_outside;        /* at the same frames, only the pixels where the target is not drawn */
  int same_outside_both;   /* ... only those the target and the other layer do not both cover */
  int check_span;          /* only the target's text changes (both layers' for an exchange) */
  int lines_numbers_only;  /* the changed lines are times: t, ip, op, st, tm */
} s_expect_t;

typedef int (*s_build_fn)(ens_doc *doc, const s_case *c, ens_txn **out, char *why, size_t wsz);

/* Each changed line of a against b (the same number of lines) holds a time member. */
static int s_only_times(const char *a, size_t an, const char *b, size_t bn) {
  const char *pa = a, *pb = b, *ea = a + an, *eb = b + bn;
  while (pa < ea && pb < eb) {
    const char *na = memchr(pa, '\n', (size_t)(ea - pa)), *nb = memchr(pb, '\n', (size_t)(eb - pb));
    size_t la = na ? (size_t)(na - pa) : (size_t)(ea - pa), lb = nb ? (size_t)(nb - pb) : (size_t)(eb - pb);
    if (la != lb || memcmp(pa, pb, la) != 0) {
      static const char *const keys[] = {"\"t\"", "\"ip\"", "\"op\"", "\"st\"", "\"tm\""};
      int ok = 0;
      for (size_t k = 0; k < 5 && !ok; k++) {
        size_t kl = strlen(keys[k]);
        for (size_t i = 0; i + kl <= la && !ok; i++) ok = memcmp(pa + i, keys[k], kl) == 0;
      }
      if (!ok) return 0;
    }
    pa = na ? na + 1 : ea;
    pb = nb ? nb + 1 : eb;
  }
  return (pa >= ea) == (pb >= eb);
}

/* Runs one edit on c's base; the checks that fail name the file. */
static void s_run(int cmd, s_case *c, s_build_fn build, const s_expect_t *e) {
  s_tally *t = &s_count[cmd];
  ens_doc *doc = s_read(c->base, c->base_len);
  ens_undo *undo = ens_undo_new(doc, 8);
  ens_txn *txn = NULL;
  char why[200] = "";
  int rc = build(doc, c, &txn, why, sizeof why);
  if (rc == 1) {
    s_skip(cmd, c->path, why);
    goto done;
  }
  if (rc) fail_msg("%s on %s: %s", s_cmds[cmd], c->path, ens_error_last());
  if (ens_undo_commit(undo, txn)) fail_msg("%s on %s: commit: %s", s_cmds[cmd], c->path, ens_error_last());
  t->runs++;
  size_t n;
  char *out = s_write(doc, &n);
  ens_doc *again = s_read(out, n); /* the output is an animation we read */
  ens_doc_free(again);
  /* only the edited layer's text changed */
  /* the bytes before the layer and those after it are the same (counted
   * apart: a copy of the layer is as much before it as after it) */
  size_t p = 0, s = 0;
  while (p < n && p < c->base_len && out[p] == c->base[p]) p++;
  while (s < n && s < c->base_len && out[n - 1 - s] == c->base[c->base_len - 1 - s]) s++;
  if (e->check_span && !(p >= c->span_from && s >= c->base_len - c->span_to))
    fail_msg("%s on %s: bytes changed from %zu and up to %zu from the end, outside the layer's %zu..%zu", s_cmds[cmd],
             c->path, p, s, c->span_from, c->span_to);
  if (e->lines_numbers_only && !s_only_times(c->base, c->base_len, out, n))
    fail_msg("%s on %s: a line changed that holds no time", s_cmds[cmd], c->path);
  /* frames */
  if (c->pixels) {
    int checked = 0;
    for (int k = 0; k < 3 && e->differ[k] >= 0; k++) {
      ens_image a, b;
      if (s_base_frame(c, e->differ[k], &a) || s_frame(out, n, e->differ[k], &b))
        fail_msg("%s on %s: frame %ld: %s", s_cmds[cmd], c->path, e->differ[k], ens_error_last());
      if (s_diff(&a, &b, NULL) == 0) fail_msg("%s on %s: frame %ld did not change", s_cmds[cmd], c->path, e->differ[k]);
      if (e->inside) {
        long out_px = s_outside(&a, &b, s_mask(c, e->differ[k]), NULL);
        if (out_px) fail_msg("%s on %s: frame %ld: %ld pixels changed where the layer is not", s_cmds[cmd], c->path, e->differ[k], out_px);
        t->inside_ok++;
      }
      t->differ_ok++;
      checked = 1;
      ens_image_free(&a);
      ens_image_free(&b);
    }
    for (int k = 0; k < 3 && e->same[k] >= 0; k++) {
      ens_image a, b;
      if (s_base_frame(c, e->same[k], &a) || s_frame(out, n, e->same[k], &b))
        fail_msg("%s on %s: frame %ld: %s", s_cmds[cmd], c->path, e->same[k], ens_error_last());
      long d;
      if (e->same_outside_both) {
        ens_image m1 = s_footprint(c, c->layer, e->same[k]), m2 = s_footprint(c, c->other, e->same[k]);
        d = s_outside(&a, &b, &m1, &m2);
        free(m1.pixels);
        free(m2.pixels);
      } else {
        d = e->same_outside ? s_outside(&a, &b, s_mask(c, e->same[k]), NULL) : s_diff(&a, &b, NULL);
      }
      if (d) fail_msg("%s on %s: frame %ld changed (%ld pixels) where the edit says it does not", s_cmds[cmd], c->path,
                      e->same[k], d);
      t->same_ok++;
      checked = 1;
      ens_image_free(&a);
      ens_image_free(&b);
    }
    t->pixel_checked += checked;
  } else {
    /* still drawn: rlottie takes the output wherever it takes the input */
    ens_image a, b;
    int ra = s_base_frame(c, c->f_mid, &a), rb = s_frame(out, n, c->f_mid, &b);
    if (ra == 0 && rb != 0) fail_msg("%s on %s: rlottie draws the input, not the output: %s", s_cmds[cmd], c->path, ens_error_last());
    ens_image_free(&a);
    ens_image_free(&b);
  }
  /* undo gives the input back */
  if (ens_undo_undo(undo, NULL)) fail_msg("%s on %s: undo: %s", s_cmds[cmd], c->path, ens_error_last());
  size_t bn;
  char *back = s_write(doc, &bn);
  if (bn != c->base_len || memcmp(back, c->base, bn) != 0) fail_msg("%s on %s: undo did not give the input bytes", s_cmds[cmd], c->path);
  ens_free(back);
  ens_free(out);
done:
  ens_txn_free(txn);
  ens_undo_free(undo);
  ens_doc_free(doc);
}

/* --- the edits ---------------------------------------------------------------------------------- */

static char s_prop[96];
static const char *s_opacity(const s_case *c) {
  snprintf(s_prop, sizeof s_prop, "%s.o", c->layer);
  return s_prop;
}

static int e_set(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  return ens_lottie_set_value(d, s_opacity(c), c->f_mid - c->st, "0", o);
}
static int e_add(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  return ens_lottie_add_keyframe(d, s_opacity(c), c->f_q - c->st, "0", o);
}
static int e_move(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  return ens_lottie_move_keyframe(d, s_opacity(c), c->f_mid - c->st, c->f_q - c->st, o);
}
static int e_del(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  return ens_lottie_delete_keyframe(d, s_opacity(c), c->f_mid - c->st, o);
}
static int e_ease(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  ens_lottie_easing h = {0, 0, 1, 1, 1};
  return ens_lottie_set_easing(d, s_opacity(c), c->ip - c->st, &h, o);
}
static int e_shift(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  return ens_lottie_shift_layer(d, c->layer, (double)((c->f_mid - c->f_ip) / 2 > 0 ? (c->f_mid - c->f_ip) / 2 : 1), o);
}
static int e_stretch(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  return ens_lottie_stretch_layer(d, c->layer, 2, o);
}
static int e_range(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  return ens_lottie_shift_range(d, (double)c->f_mid, (double)((c->f_mid - c->f_ip) / 2 > 0 ? (c->f_mid - c->f_ip) / 2 : 1), o);
}
static int e_inout(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  return ens_lottie_set_in_out(d, c->layer, c->ip, (double)c->f_mid, o);
}
static int e_parent(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  if (!c->other[0]) return snprintf(w, n, "no second layer to parent under"), 1;
  int rc = ens_lottie_reparent(d, c->layer, c->other, o);
  if (rc == ENS_EINVAL) return snprintf(w, n, "%s", ens_error_last()), 1;
  return rc;
}
static int e_order(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  if (!c->other[0]) return snprintf(w, n, "one layer only"), 1;
  const ens_obj *other = ens_lottie_find(d, c->other);
  return ens_lottie_reorder(d, c->layer, ens_obj_index(other), o);
}
static int e_rename(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  return ens_lottie_rename(d, c->layer, "renamed layer", o);
}

/* The first fill or stroke with a static colour under o: its address. */
static int s_find_paint(const ens_obj *o, const char *addr, char *out, size_t size, int depth) {
  const ens_obj *list = NULL;
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    ens_value k;
    const ens_obj *ch = ens_obj_child(o, i);
    if (ens_obj_get(ch, ENS_LOTTIE_KEY, &k) == 0 && k.type == ENS_STR &&
        ((k.u.s.len == 6 && memcmp(k.u.s.ptr, "shapes", 6) == 0) || (k.u.s.len == 2 && memcmp(k.u.s.ptr, "it", 2) == 0)))
      list = ch;
  }
  for (size_t i = 0; list && i < ens_obj_child_count(list) && depth < 8; i++) {
    const ens_obj *sh = ens_obj_child(list, i);
    char here[512];
    snprintf(here, sizeof here, "%s/[%zu]", addr, i);
    ens_value ty, h;
    if (ens_obj_get(sh, "ty", &ty) == 0 && ty.type == ENS_STR && ty.u.s.len == 2 &&
        (memcmp(ty.u.s.ptr, "fl", 2) == 0 || memcmp(ty.u.s.ptr, "st", 2) == 0) &&
        !(ens_obj_get(sh, "hd", &h) == 0 && h.type == ENS_BOOL && h.u.b)) {
      snprintf(out, size, "%s", here);
      return 1;
    }
    if (s_find_paint(sh, here, out, size, depth + 1)) return 1;
  }
  return 0;
}

static int e_colour(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  const ens_obj *l = ens_lottie_find(d, c->layer);
  ens_value ty;
  char target[512];
  if (ens_obj_get(l, "ty", &ty) == 0 && ty.type == ENS_INT && ty.u.i == 1) snprintf(target, sizeof target, "%s", c->layer);
  else if (!s_find_paint(l, c->layer, target, sizeof target, 0)) return snprintf(w, n, "the layer has no fill or stroke"), 1;
  double rgba[4] = {0.1, 0.9, 0.3, 1};
  int rc = ens_lottie_set_color(d, target, rgba, o);
  if (rc == ENS_EINVAL) return snprintf(w, n, "%s", ens_error_last()), 1;
  /* a colour that is already this one changes nothing: take another */
  return rc;
}
static int e_dup(ens_doc *d, const s_case *c, ens_txn **o, char *w, size_t n) {
  (void)w, (void)n;
  return ens_lottie_duplicate_layer(d, c->layer, o);
}

/* --- choosing the target ------------------------------------------------------------------------- */

/* 1 when layer l has a transform object ("ks"), where set-value can
 * make a missing opacity. */
static int s_has_transform(const ens_obj *l) {
  for (size_t i = 0; l && i < ens_obj_child_count(l); i++)
    if (strcmp(ens_obj_kind(ens_obj_child(l, i)), ENS_LOTTIE_TRANSFORM) == 0) return 1;
  return 0;
}

/* Sets c's target: the first drawable layer of the main composition seen
 * at its middle frame. 0 when there is none (c->pixels stays 0; the
 * edits still run on layer [0]). */
static void s_choose(s_case *c, const ens_doc *doc) {
  const ens_obj *root = ens_doc_root(doc), *layers = NULL;
  for (size_t i = 0; i < ens_obj_child_count(root); i++) {
    ens_value k;
    if (ens_obj_get(ens_obj_child(root, i), ENS_LOTTIE_KEY, &k) == 0 && k.u.s.len == 6 && memcmp(k.u.s.ptr, "layers", 6) == 0)
      layers = ens_obj_child(root, i);
  }
  ens_value v;
  double cip = 0, cop = 0;
  if (ens_obj_get(root, "ip", &v) == 0) cip = v.type == ENS_INT ? (double)v.u.i : v.u.r;
  if (ens_obj_get(root, "op", &v) == 0) cop = v.type == ENS_INT ? (double)v.u.i : v.u.r;
  snprintf(c->layer, sizeof c->layer, "[0]");
  size_t count = layers ? ens_obj_child_count(layers) : 0;
  for (size_t i = 0; i < count && i < 4; i++) {
    const ens_obj *l = ens_obj_child(layers, i);
    double ip = 0, op = 0, st = 0;
    if (ens_obj_get(l, "ip", &v) == 0) ip = v.type == ENS_INT ? (double)v.u.i : v.u.r;
    if (ens_obj_get(l, "op", &v) == 0) op = v.type == ENS_INT ? (double)v.u.i : v.u.r;
    if (ens_obj_get(l, "st", &v) == 0) st = v.type == ENS_INT ? (double)v.u.i : v.u.r;
    if (ens_obj_get(l, "td", &v) == 0 || ens_obj_get(l, "tt", &v) == 0) continue; /* mattes: drawn through another */
    if (ens_obj_get(l, "ty", &v) == 0 && v.type == ENS_INT && v.u.i == 3) continue;    /* a null layer draws nothing */
    /* a parent: removing it moves its children, its opacity does not */
    int parent_of = 0;
    ens_value ind, pv;
    for (size_t j = 0; j < count && ens_obj_get(l, "ind", &ind) == 0; j++)
      parent_of |= ens_obj_get(ens_obj_child(layers, j), "parent", &pv) == 0 && ens_value_equal(&pv, &ind);
    if (parent_of) continue;
    char addr[64];
    snprintf(addr, sizeof addr, "[%zu]", i);
    char prop[80];
    snprintf(prop, sizeof prop, "%s.o", addr);
    /* its opacity: a property, or none in a transform (100, which
     * set-value makes a property) */
    const ens_obj *o = ens_lottie_find(doc, prop);
    char ks_addr[80];
    snprintf(ks_addr, sizeof ks_addr, "%s", addr);
    int no_opacity = !o && s_has_transform(ens_lottie_find(doc, ks_addr));
    if (!o && !no_opacity) continue;
    double from = ceil(ip > cip ? ip : cip), to = floor((op < cop ? op : cop) - 1);
    /* a start time offsets keyframes for players that follow the spec, not
     * for rlottie (which reads it on precompositions only): frames of
     * such a layer would say which player is right, not the edit */
    if (ip < cip || to - from < 8 || st != 0) continue;
    long mid = (long)floor((from + to) / 2);
    /* seen at the middle frame: drawn without it, the frame differs */
    ens_doc *cut = s_read(c->base, c->base_len);
    ens_txn *t = ens_txn_new("cut", NULL);
    ens_txn_delete(t, ens_obj_id(ens_lottie_find(cut, addr)));
    assert_int_equal(ens_doc_apply(cut, t, ENS_ORIGIN_LOCAL, NULL), 0);
    ens_txn_free(t);
    size_t n;
    char *bytes = s_write(cut, &n);
    ens_doc_free(cut);
    ens_image with, without;
    int ok = s_frame(c->base, c->base_len, mid, &with) == 0 && s_frame(bytes, n, mid, &without) == 0;
    int seen = ok && s_diff(&with, &without, NULL) > 0;
    ens_image_free(&with);
    ens_image_free(&without);
    if (!seen) {
      ens_free(bytes);
      continue;
    }
    snprintf(c->layer, sizeof c->layer, "%s", addr);
    c->cut = malloc(n + 1);
    memcpy(c->cut, bytes, n + 1);
    c->cut_len = n;
    ens_free(bytes);
    c->ip = ip;
    c->op = op;
    c->st = st;
    c->f_ip = (long)from;
    c->f_mid = mid;
    c->f_q = (long)from + (mid - (long)from) / 2;
    c->pixels = 1;
    ens_value ty;
    c->precomp = ens_obj_get(l, "ty", &ty) == 0 && ty.type == ENS_INT && ty.u.i == 0;
    ens_value k;
    c->opacity_static = !o || ens_obj_get(o, "k", &k) == 0;
    break;
  }
  if (!c->pixels) {
    /* no frames compared: the first layer with an opacity (else [0]) and
     * times that are apart, for the keyframe edits */
    for (size_t i = 0; i < count; i++) {
      char prop[80];
      snprintf(prop, sizeof prop, "[%zu].o", i);
      if (ens_lottie_find(doc, prop) || s_has_transform(ens_obj_child(layers, i))) {
        snprintf(c->layer, sizeof c->layer, "[%zu]", i);
        break;
      }
    }
    ens_value v2;
    const ens_obj *l = ens_lottie_find(doc, c->layer);
    c->ip = l && ens_obj_get(l, "ip", &v2) == 0 ? (v2.type == ENS_INT ? (double)v2.u.i : v2.u.r) : cip;
    c->st = l && ens_obj_get(l, "st", &v2) == 0 ? (v2.type == ENS_INT ? (double)v2.u.i : v2.u.r) : 0;
    c->f_ip = (long)ceil(c->ip);
    c->f_mid = c->f_ip + 8;
    c->f_q = c->f_ip + 4;
  }
  /* the second layer: the next one (else the one before), for parenting and order */
  c->other[0] = '\0';
  size_t at = (size_t)atoi(c->layer + 1);
  if (count > 1) snprintf(c->other, sizeof c->other, "[%zu]", at + 1 < count ? at + 1 : at - 1);
}

/* base with one edit applied (the keyframed opacity the later edits work on). */
static void s_rebase(s_case *c, s_build_fn build) {
  ens_doc *doc = s_read(c->base, c->base_len);
  ens_txn *t = NULL;
  char why[200];
  if (build(doc, c, &t, why, sizeof why)) fail_msg("%s: %s", c->path, ens_error_last());
  assert_int_equal(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL), 0);
  ens_txn_free(t);
  if (c->base != c->orig) free(c->base);
  size_t n;
  char *w = s_write(doc, &n);
  c->base = malloc(n + 1);
  memcpy(c->base, w, n + 1);
  c->base_len = n;
  c->gen = ++s_gen_next;
  ens_free(w);
  ens_doc_free(doc);
  s_span(c->base, c->base_len, c->layer, &c->span_from, &c->span_to);
}

#define S_NONE {-1, -1, -1}

/* c's base with the other layer's position moved by a quarter of the
 * frame (at its in point: its position is static), into a base of its
 * own; 0 when its position cannot be set so (animated, split in x and y,
 * none). The target must not be its parent already. */
static int s_move_other(s_case *c) {
  ens_doc *doc = s_read(c->base, c->base_len);
  char prop[96];
  snprintf(prop, sizeof prop, "%s.p", c->other);
  const ens_obj *p = ens_lottie_find(doc, prop), *other = ens_lottie_find(doc, c->other), *l = ens_lottie_find(doc, c->layer);
  ens_value k, w, h, ind, parent;
  int ok = p && ens_obj_get(p, "k", &k) == 0 && k.type == ENS_BYTES && ens_obj_get(ens_doc_root(doc), "w", &w) == 0 &&
           ens_obj_get(ens_doc_root(doc), "h", &h) == 0 && w.type == ENS_INT && h.type == ENS_INT &&
           !(ens_obj_get(other, "ind", &ind) == 0 && ens_obj_get(l, "parent", &parent) == 0 && ens_value_equal(&ind, &parent));
  double x = 0, y = 0;
  int dims = 0;
  if (ok) {
    char text[128];
    snprintf(text, sizeof text, "%.*s", (int)(k.u.s.len < 127 ? k.u.s.len : 127), k.u.s.ptr);
    double z = 0;
    dims = sscanf(text, "[%lf,%lf,%lf]", &x, &y, &z);
    ok = dims == 2 || dims == 3;
  }
  ens_txn *t = NULL;
  if (ok) {
    double ip = 0, st = 0;
    ens_value v;
    if (ens_obj_get(other, "ip", &v) == 0) ip = v.type == ENS_INT ? (double)v.u.i : v.u.r;
    if (ens_obj_get(other, "st", &v) == 0) st = v.type == ENS_INT ? (double)v.u.i : v.u.r;
    char value[128];
    if (dims == 2) snprintf(value, sizeof value, "[%.17g,%.17g]", x + (double)w.u.i / 4, y + (double)h.u.i / 4);
    else snprintf(value, sizeof value, "[%.17g,%.17g,0]", x + (double)w.u.i / 4, y + (double)h.u.i / 4);
    ok = ens_lottie_set_value(doc, prop, ip - st, value, &t) == 0 && ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) == 0;
  }
  ens_txn_free(t);
  if (ok) {
    size_t n;
    char *wr = s_write(doc, &n);
    c->base = malloc(n + 1);
    memcpy(c->base, wr, n + 1);
    c->base_len = n;
    c->gen = ++s_gen_next;
    ens_free(wr);
    s_span(c->base, c->base_len, c->layer, &c->span_from, &c->span_to);
  }
  ens_doc_free(doc);
  return ok;
}

static void s_file(const char *path) {
  s_case c;
  memset(&c, 0, sizeof c);
  c.path = path;
  c.base = tu_read_file(path, &c.base_len);
  assert_non_null(c.base);
  c.orig = c.base;
  c.orig_len = c.base_len;
  c.gen = ++s_gen_next;
  ens_doc *doc = NULL;
  if (ens_lottie_read(c.base, c.base_len, &doc)) { /* the corpus's invalid files: refused, nothing to edit */
    free(c.base);
    return;
  }
  if (!ens_lottie_find(doc, "[0]")) {
    ens_doc_free(doc);
    free(c.base);
    return;
  }
  s_choose(&c, doc);
  ens_doc_free(doc);
  s_span(c.base, c.base_len, c.layer, &c.span_from, &c.span_to);
  int px = c.pixels, st = c.opacity_static;
  long ip = px && st ? c.f_ip : -1, mid = c.f_mid, q = c.f_q;
  /* on the file as it is */
  char prop[96];
  snprintf(prop, sizeof prop, "%s.o", c.layer);
  ens_doc *probe = s_read(c.base, c.base_len);
  int has_o = ens_lottie_find(probe, prop) != NULL || s_has_transform(ens_lottie_find(probe, c.layer));
  ens_doc_free(probe);
  s_expect_t x_set = {{px ? mid : -1, -1, -1}, {ip, -1, -1}, 1, 0, 0, 1, 0};
  if (has_o) s_run(C_SET, &c, e_set, &x_set);
  s_expect_t x_inout = {{px ? mid : -1, -1, -1}, {px ? c.f_ip : -1, -1, -1}, 1, 0, 0, 1, 0};
  s_run(C_INOUT, &c, e_inout, &x_inout);
  s_expect_t x_rename = {S_NONE, {px ? mid : -1, -1, -1}, 0, 0, 0, 1, 0};
  s_run(C_RENAME, &c, e_rename, &x_rename);
  s_expect_t x_colour = {{px ? mid : -1, -1, -1}, S_NONE, 1, 0, 0, 1, 0};
  s_run(C_COLOUR, &c, e_colour, &x_colour);
  s_expect_t x_dup = {S_NONE, {px ? mid : -1, -1, -1}, 0, 1, 0, 1, 0};
  s_run(C_DUP, &c, e_dup, &x_dup);
  /* parenting: under a layer moved a quarter of the frame, the target
   * moves with it */
  s_case pc = c;
  int moved = px && c.other[0] && s_move_other(&pc);
  s_expect_t x_parent = {{moved ? mid : -1, -1, -1}, S_NONE, 0, 0, 0, 1, 0};
  s_run(C_PARENT, moved ? &pc : &c, e_parent, &x_parent);
  if (moved) free(pc.base);
  /* order: only where both layers are drawn may a pixel change */
  int plain_other = 0;
  if (px && c.other[0]) {
    ens_doc *d = s_read(c.orig, c.orig_len);
    const ens_obj *o = ens_lottie_find(d, c.other);
    ens_value v;
    plain_other = o && ens_obj_get(o, "td", &v) != 0 && ens_obj_get(o, "tt", &v) != 0;
    ens_doc_free(d);
  }
  s_expect_t x_order = {S_NONE, {plain_other ? mid : -1, -1, -1}, 0, 0, 1, 0, 0};
  s_run(C_ORDER, &c, e_order, &x_order);
  /* on the file with the opacity keyframed: full at the in point (when it
   * was static), none at the middle */
  if (has_o) s_rebase(&c, e_set);
  else
    for (int cmd = C_SET; cmd <= C_EASE; cmd++) s_skip(cmd, path, "the layer has no transform");
  int k = px && st && has_o; /* the frames are known */
  s_expect_t x_add = {{k ? q : -1, -1, -1}, {k ? c.f_ip : -1, k ? mid : -1, -1}, 1, 0, 0, 1, 0};
  if (has_o) s_run(C_ADD, &c, e_add, &x_add);
  s_expect_t x_move = {{k ? q : -1, -1, -1}, {k ? c.f_ip : -1, k ? mid : -1, -1}, 1, 0, 0, 1, 0};
  if (has_o) s_run(C_MOVE, &c, e_move, &x_move);
  s_expect_t x_del = {{k ? mid : -1, -1, -1}, {k ? c.f_ip : -1, -1, -1}, 1, 0, 0, 1, 0};
  if (has_o) s_run(C_DEL, &c, e_del, &x_del);
  s_expect_t x_ease = {{k ? q : -1, -1, -1}, {k ? c.f_ip : -1, k ? mid : -1, -1}, 1, 0, 0, 1, 0};
  if (has_o) s_run(C_EASE, &c, e_ease, &x_ease);
  /* a precomposition layer is shifted by its start time, which rlottie
   * does not apply to the layer's own keyframes (players that follow the
   * spec do): its frames would compare the players */
  int kt = k && !c.precomp;
  s_expect_t x_shift = {{kt ? mid : -1, -1, -1}, S_NONE, 0, 0, 0, 1, 0};
  s_run(C_SHIFT, &c, e_shift, &x_shift);
  s_expect_t x_stretch = {{k ? mid : -1, -1, -1}, {k ? c.f_ip : -1, -1, -1}, 0, 0, 0, 1, 0};
  s_run(C_STRETCH, &c, e_stretch, &x_stretch);
  s_expect_t x_range = {{kt ? mid : -1, -1, -1}, S_NONE, 0, 0, 0, 0, 1};
  s_run(C_RANGE, &c, e_range, &x_range);
  if (c.base != c.orig) free(c.base);
  free(c.orig);
  free(c.cut);
  for (int i = 0; i < c.nmask; i++) free(c.mask[i].pixels);
}

static void test_every_edit_on_every_animation(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): its Lottie files");
  static const char *subs[] = {"spec", "docs"};
  int files = 0;
  for (size_t s = 0; s < 2; s++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/lottie/%s", corpus, subs[s]);
    size_t count;
    char **list = tu_list_files(dir, ".json", &count);
    for (size_t i = 0; i < count; i++, files++) s_file(list[i]);
    tu_files_free(list, count);
  }
  if (!files) TU_SKIP("the corpus at %s has no Lottie files", corpus);
  printf("lottie edits on %d corpus files:\n", files);
  for (int k = 0; k < C_N; k++) {
    s_tally *t = &s_count[k];
    printf("  %-16s %3d edits, %3d with frames compared: %3d frames changed as said (%d inside the layer), "
           "%3d unchanged as said; %d not applicable\n",
           s_cmds[k], t->runs, t->pixel_checked, t->differ_ok, t->inside_ok, t->same_ok, t->skipped);
    for (int j = 0; j < t->nskip && j < 3; j++) printf("      not applicable: %s\n", t->skip_why[j]);
    assert_true(t->runs > 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_edit_on_every_animation)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
