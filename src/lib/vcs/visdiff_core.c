/* Visual diff: which objects changed, read from the model's diff. OLD is
 * copied (snapshot: same ids), diffed against NEW and the diff applied to
 * the copy, so NEW's content is held with OLD's ids and every operation of
 * the transaction names an object of OLD (set, move, delete) or one it
 * inserts: that is what the composite is drawn from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/hash.h"
#include "../util/utf8.h"
#include "ensemble/diff.h"
#include "ensemble/lottie.h"
#include "ensemble/sfd.h"
#include "ensemble/svg.h"
#include "visdiff_int.h"

/* --- the id map ------------------------------------------------------------------ */

static size_t s_slot(const vd_map *m, ens_id id) {
  size_t i = (size_t)ens__mix64(id) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != id) i = (i + 1) & (m->cap - 1);
  return i;
}

int ens__vd_map_add(vd_map *m, ens_id id, uint32_t flags) {
  if ((m->count + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 256;
    vd_map n = {calloc(cap, sizeof(ens_id)), calloc(cap, sizeof(uint32_t)), malloc(cap * sizeof(int32_t)), cap, 0};
    if (!n.keys || !n.flags || !n.item) {
      ens__vd_map_free(&n);
      return ens__error(ENS_ENOMEM, "out of memory marking the visual diff");
    }
    for (size_t j = 0; j < m->cap; j++) {
      if (!m->keys[j]) continue;
      size_t i = s_slot(&n, m->keys[j]);
      n.keys[i] = m->keys[j];
      n.flags[i] = m->flags[j];
      n.item[i] = m->item[j];
      n.count++;
    }
    ens__vd_map_free(m);
    *m = n;
  }
  size_t i = s_slot(m, id);
  if (!m->keys[i]) {
    m->keys[i] = id;
    m->flags[i] = 0;
    m->item[i] = -1;
    m->count++;
  }
  m->flags[i] |= flags;
  return 0;
}

uint32_t ens__vd_map_flags(const vd_map *m, ens_id id) {
  if (!m->cap || !id) return 0;
  size_t i = s_slot(m, id);
  return m->keys[i] ? m->flags[i] : 0;
}

int32_t *ens__vd_map_item(vd_map *m, ens_id id) {
  if (!m->cap || !id) return NULL;
  size_t i = s_slot(m, id);
  return m->keys[i] ? &m->item[i] : NULL;
}

void ens__vd_map_free(vd_map *m) {
  free(m->keys);
  free(m->flags);
  free(m->item);
  memset(m, 0, sizeof *m);
}

/* --- small helpers shared by the writers --------------------------------------- */

void ens__vd_escape(ens_buf *b, const char *s, size_t n, int attr) {
  size_t run = 0;
  for (size_t i = 0; i < n;) {
    const char *rep = NULL;
    size_t at = i;
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) {
      /* what is not XML text (a font's names may hold any bytes) becomes
       * U+FFFD, so that the composite stays well-formed */
      int32_t cp = ens__utf8_next(s, n, &i);
      if (cp >= 0 && ens__xml_char(cp)) continue;
      if (cp < 0 && i == at) i++;
      rep = "\xef\xbf\xbd";
    } else {
      i++;
      switch (c) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = attr ? "&quot;" : NULL; break;
        case '\t': rep = attr ? "&#9;" : NULL; break;
        case '\n': rep = attr ? "&#10;" : NULL; break;
        case '\r': rep = "&#13;"; break;
        default: rep = c < 0x20 ? "\xef\xbf\xbd" : NULL; break;
      }
    }
    if (!rep) continue;
    ens__buf_append(b, s + run, at - run);
    ens__buf_puts(b, rep);
    run = i;
  }
  ens__buf_append(b, s + run, n - run);
}

const char *ens__vd_str(const ens_obj *obj, const char *key, size_t *n) {
  ens_value v;
  if (!obj || ens_obj_get(obj, key, &v) != 0 || v.type != ENS_STR) return NULL;
  if (n) *n = v.u.s.len;
  return v.u.s.ptr;
}

double ens__vd_num(const ens_obj *obj, const char *key, double dflt) {
  ens_value v;
  if (!obj || ens_obj_get(obj, key, &v) != 0) return dflt;
  if (v.type == ENS_REAL) return v.u.r;
  if (v.type == ENS_INT) return (double)v.u.i;
  return dflt;
}

int ens__vd_item_add(ens_visdiff *vd, ens_vis_mark mark, ens_id id, const char *label, const char *detail) {
  if (vd->nitems == vd->capitems) {
    size_t cap = vd->capitems ? vd->capitems * 2 : 64;
    vd_item *n = realloc(vd->items, cap * sizeof *n);
    if (!n) return ens__error(ENS_ENOMEM, "out of memory listing changes");
    vd->items = n;
    vd->capitems = cap;
  }
  vd_item *it = &vd->items[vd->nitems];
  it->mark = mark;
  it->id = id;
  it->label = strdup(label ? label : "");
  it->detail = strdup(detail ? detail : "");
  if (!it->label || !it->detail) {
    free(it->label);
    free(it->detail);
    return ens__error(ENS_ENOMEM, "out of memory listing changes");
  }
  int32_t *slot = ens__vd_map_item(&vd->marks, id);
  if (slot) *slot = (int32_t)vd->nitems;
  vd->nitems++;
  return 0;
}

/* --- the public object ------------------------------------------------------------- */

int ens_visdiff_new(const ens_doc *old_doc, const ens_doc *new_doc, ens_visdiff **out) {
  if (out) *out = NULL;
  if (!old_doc || !new_doc || !out) return ens__error(ENS_EINVAL, "visual diff: no document");
  const char *kind = ens_doc_kind(old_doc);
  if (strcmp(kind, ens_doc_kind(new_doc)) != 0)
    return ens__error(ENS_EINVAL, "visual diff: a %s and a %s cannot be compared", kind, ens_doc_kind(new_doc));
  int font = strcmp(kind, "sfd") == 0, anim = strcmp(kind, ENS_LOTTIE_KIND) == 0;
  if (!font && !anim && strcmp(kind, ENS_SVG_KIND) != 0)
    return ens__error(ENS_EINVAL, "visual diff: documents of kind '%s' are neither drawings, fonts nor animations",
                      kind);
  ens_visdiff *vd = calloc(1, sizeof *vd);
  if (!vd) return ens__error(ENS_ENOMEM, "out of memory");
  vd->font = font;
  vd->anim = anim;
  vd->old_doc = old_doc;
  vd->new_doc = new_doc;
  if (anim) {
    /* an animation is shown by rendering both versions: no composite,
     * only the changes and the frames where they are */
    int rc = ens__vd_mark_anim(vd);
    if (rc) {
      ens_visdiff_free(vd);
      return ens__error_prefix(rc, "visual diff: ");
    }
    *out = vd;
    return 0;
  }
  unsigned char *snap = NULL;
  size_t snap_len = 0;
  int rc = ens_snapshot_encode(old_doc, &snap, &snap_len);
  if (!rc) rc = ens_snapshot_decode(snap, snap_len, &vd->cur);
  ens_free(snap);
  if (!rc) rc = ens_doc_diff(vd->cur, new_doc, font ? ens_sfd_identity : ens_svg_identity, NULL, &vd->txn);
  /* the copy carries no schema: the diff's result is NEW's content, which
   * NEW's reader accepted */
  if (!rc) rc = ens_doc_apply(vd->cur, vd->txn, ENS_ORIGIN_LOCAL, NULL);
  if (!rc) rc = font ? ens__vd_mark_font(vd) : ens__vd_mark_svg(vd);
  if (rc) {
    ens_visdiff_free(vd);
    return ens__error_prefix(rc, "visual diff: ");
  }
  *out = vd;
  return 0;
}

void ens_visdiff_free(ens_visdiff *vd) {
  if (!vd) return;
  for (size_t i = 0; i < vd->nitems; i++) {
    free(vd->items[i].label);
    free(vd->items[i].detail);
  }
  free(vd->items);
  ens__vd_map_free(&vd->marks);
  ens_txn_free(vd->txn);
  ens_doc_free(vd->cur);
  free(vd);
}

int ens_visdiff_is_font(const ens_visdiff *vd) { return vd && vd->font; }

int ens_visdiff_is_animation(const ens_visdiff *vd) { return vd && vd->anim; }

int ens_visdiff_write_text(const ens_visdiff *vd, FILE *out) {
  if (!vd || !out) return ens__error(ENS_EINVAL, "visual diff: no output");
  for (size_t i = 0; i < vd->nitems; i++) {
    const vd_item *it = &vd->items[i];
    fprintf(out, "%s: %s\n", it->label, *it->detail ? it->detail : "changed");
  }
  return ferror(out) ? ens__error(ENS_EIO, "cannot write the changes") : 0;
}

size_t ens_visdiff_count(const ens_visdiff *vd) { return vd ? vd->nitems : 0; }

int ens_visdiff_item_at(const ens_visdiff *vd, size_t i, ens_visdiff_item *out) {
  if (!vd || !out || i >= vd->nitems) return ens__error(ENS_EINVAL, "visual diff: no change %zu", i);
  out->mark = vd->items[i].mark;
  out->id = vd->items[i].id;
  out->label = vd->items[i].label;
  out->detail = vd->items[i].detail;
  return 0;
}

int ens_visdiff_svg(const ens_visdiff *vd, char **svg, size_t *len) {
  if (!vd || !svg) return ens__error(ENS_EINVAL, "visual diff: no output");
  if (vd->anim)
    return ens__error(ENS_EINVAL, "an animation's visual diff is a strip of rendered frames: write it as PNG or HTML");
  ens_buf b = ENS_BUF_INIT;
  /* the writers note the composite's size in vd, which is not otherwise changed */
  ens_visdiff *w = (ens_visdiff *)vd;
  int rc = vd->font ? ens__vd_font_write(w, &b, 0) : ens__vd_svg_write(w, &b);
  if (!rc && b.oom) rc = ens__error(ENS_ENOMEM, "out of memory writing the visual diff");
  if (rc) {
    ens__buf_free(&b);
    return rc;
  }
  size_t n;
  *svg = (char *)ens__buf_detach(&b, &n);
  if (!*svg) return ens__error(ENS_ENOMEM, "out of memory writing the visual diff");
  if (len) *len = n;
  return 0;
}

int ens_visdiff_png(const ens_visdiff *vd, ens_render_size size, unsigned char **png, size_t *len) {
  if (vd && vd->anim) {
    ens_visdiff_strip strip;
    int rc = ens_visdiff_strip_render(vd, size, &strip);
    if (!rc) rc = ens_visdiff_strip_png(&strip, png, len);
    ens_visdiff_strip_free(&strip);
    return rc;
  }
  char *svg;
  size_t n;
  int rc = ens_visdiff_svg(vd, &svg, &n);
  if (rc) return rc;
  if (!size.width && !size.height) {
    /* at the drawing's own size, at most 2,000 pixels wide and within the
     * renderer's limits */
    double w = vd->width > 0 ? vd->width : 256, h = vd->height > 0 ? vd->height : 256;
    double s = 1;
    if (w * s > 2000) s = 2000 / w;
    if (h * s > ENS_RENDER_MAX_SIDE) s = ENS_RENDER_MAX_SIDE / h;
    if (w * s * h * s > ENS_RENDER_MAX_PIXELS) s = s * 0.99 * (double)ENS_RENDER_MAX_PIXELS / (w * s * h * s);
    size.width = (int)(w * s + 0.5);
    if (size.width < 1) size.width = 1;
    size.height = (int)(h * s + 0.5);
    if (size.height < 1) size.height = 1;
  }
  ens_image img;
  rc = ens_render_svg(svg, n, size, &img);
  ens_free(svg);
  if (rc) return rc;
  rc = ens_image_png(&img, png, len);
  ens_image_free(&img);
  return rc;
}
