/* The font view's calls: the glyphs of the font in file order, a glyph's
 * outline as SFD holds it (each point with its control points), the
 * font's metrics, and the glyph editor's gestures, each one transaction
 * built by the library's glyph edits (ensemble/glyph.h). */
#include <emscripten.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/sfd/glyph_int.h"
#include "wasm_json.h"

static int s_is_glyph(const ens_obj *o) { return strcmp(ens_obj_kind(o), ENS_SFD_GLYPH) == 0; }

static void s_glyphs(const ens_obj *o, ens_buf *b, int *first) {
  if (s_is_glyph(o)) {
    ens_value v;
    ens__buf_puts(b, *first ? "{" : ",{");
    *first = 0;
    ens__buf_puts(b, "\"id\":");
    ensw_json_id(b, ens_obj_id(o));
    ens__buf_puts(b, ",\"name\":");
    if (ens_obj_get(o, "name", &v) == 0 && v.type == ENS_STR) ensw_json_strn(b, v.u.s.ptr, v.u.s.len);
    else ensw_json_str(b, "");
    ens__buf_printf(b, ",\"unicode\":%lld,\"width\":%lld}", (long long)ens__glyph_int(o, "unicode", -1),
                    (long long)ens__glyph_int(o, "width", 0));
    return;
  }
  for (size_t i = 0; i < ens_obj_child_count(o); i++) s_glyphs(ens_obj_child(o, i), b, first);
}

EMSCRIPTEN_KEEPALIVE const char *ensw_glyphs(ensw *h) {
  ens_buf b = {0};
  const ens_doc *d = ensw__doc(h);
  int first = 1;
  ens__buf_putc(&b, '[');
  if (d) s_glyphs(ens_doc_root(d), &b, &first);
  ens__buf_putc(&b, ']');
  return ensw__out(h, &b);
}

EMSCRIPTEN_KEEPALIVE const char *ensw_font_info(ensw *h) {
  ens_buf b = {0};
  const ens_doc *d = ensw__doc(h);
  const ens_obj *root = d ? ens_doc_root(d) : NULL;
  long long ascent = root ? ens__glyph_int(root, "Ascent", 800) : 800;
  long long descent = root ? ens__glyph_int(root, "Descent", 200) : 200;
  ens__buf_printf(&b, "{\"ascent\":%lld,\"descent\":%lld,\"em\":%lld}", ascent, descent, ascent + descent);
  return ensw__out(h, &b);
}

static void s_point(ens_buf *b, const ens__gpt *p) {
  ens__buf_printf(b, "{\"x\":%.17g,\"y\":%.17g", p->x, p->y);
  if (p->has_c) ens__buf_printf(b, ",\"c1\":[%.17g,%.17g],\"c2\":[%.17g,%.17g]", p->c1x, p->c1y, p->c2x, p->c2y);
  ens__buf_putc(b, '}');
}

/* The foreground's references: [{glyph: name, id: the glyph's id, ref:
 * the reference's own id, transform: [xx, xy, yx, yy, dx, dy]}] (x' = xx
 * x + yx y + dx, y' = xy x + yy y + dy, FontForge's order). A reference
 * to a glyph the font lacks is left out. */
static void s_refs(ens_buf *b, const ens_doc *d, const ens_obj *fore) {
  size_t n = fore ? ens_obj_child_count(fore) : 0;
  int first = 1;
  for (size_t i = 0; i < n; i++) {
    const ens_obj *k = ens_obj_child(fore, i);
    if (strcmp(ens_obj_kind(k), ENS_SFD_REF) != 0) continue;
    const ens_obj *t = ens_doc_get(d, ens__glyph_target(k));
    ens_value v;
    if (!t || !s_is_glyph(t) || ens_obj_get(t, "name", &v) != 0 || v.type != ENS_STR) continue;
    ens__buf_puts(b, first ? "{\"glyph\":" : ",{\"glyph\":");
    first = 0;
    ensw_json_strn(b, v.u.s.ptr, v.u.s.len);
    ens__buf_puts(b, ",\"id\":");
    ensw_json_id(b, ens_obj_id(t));
    ens__buf_puts(b, ",\"ref\":");
    ensw_json_id(b, ens_obj_id(k));
    static const char *const keys[6] = {"xx", "xy", "yx", "yy", "dx", "dy"};
    for (int j = 0; j < 6; j++) {
      int present = 0;
      double x = ens__glyph_num(k, keys[j], &present);
      if (!present) x = j == 0 || j == 3 ? 1 : 0;
      if (!isfinite(x)) x = 0; /* JSON has no NaN */
      ens__buf_printf(b, "%s%.17g", j ? "," : ",\"transform\":[", x);
    }
    ens__buf_puts(b, "]}");
  }
}

/* {id, name, width, contours: [{closed, points: [{x, y, c1?, c2?}]}], refs}:
 * a point's c1 is the previous point's outgoing control, c2 its own
 * incoming one (the curve that ends at it); in a closed contour the last
 * point repeats the first, as in SFD (ensemble/glyph.h numbers them so). */
EMSCRIPTEN_KEEPALIVE const char *ensw_glyph(ensw *h, const char *name) {
  ens_buf b = {0};
  const ens_doc *d = ensw__doc(h);
  const ens_obj *g = NULL;
  if (!d || ens__glyph_get(d, name, &g)) {
    ens__buf_puts(&b, "null");
    return ensw__out(h, &b);
  }
  ens__buf_puts(&b, "{\"id\":");
  ensw_json_id(&b, ens_obj_id(g));
  ensw_json_key_str(&b, "name", name);
  ens__buf_printf(&b, ",\"width\":%lld,\"contours\":[", (long long)ens__glyph_int(g, "width", 0));
  const ens_obj *fore = ens__glyph_fore(g);
  size_t count = 0;
  if (fore) ens__glyph_contour_at(fore, 0, &count);
  for (size_t c = 0; c < count; c++) {
    ens__gcontour gc;
    memset(&gc, 0, sizeof gc);
    const ens_obj *co = ens__glyph_contour_at(fore, c, NULL);
    if (!co || ens__gcontour_load(d, co, &gc)) continue;
    ens__buf_printf(&b, "%s{\"closed\":%s,\"points\":[", c ? "," : "", gc.closed ? "true" : "false");
    for (size_t i = 0; i < gc.n; i++) {
      if (i) ens__buf_putc(&b, ',');
      s_point(&b, &gc.pts[i]);
    }
    ens__buf_puts(&b, "]}");
    ens__gcontour_free(&gc);
  }
  ens__buf_puts(&b, "],\"refs\":[");
  s_refs(&b, d, fore);
  ens__buf_puts(&b, "]}");
  return ensw__out(h, &b);
}

/* {width, contours: [[{x, y, on}...]...], glyphs: [ids], cut}: the
 * glyph as drawn, references' contours included and transformed
 * (ens_glyph_outline_get); refs_only: without its own contours. glyphs:
 * every glyph it draws, so a page knows whose change redraws it. */
EMSCRIPTEN_KEEPALIVE const char *ensw_glyph_outline(ensw *h, const char *name, int refs_only) {
  ens_buf b = {0};
  const ens_doc *d = ensw__doc(h);
  const ens_obj *g = NULL;
  ens_glyph_outline o;
  if (!d || ens__glyph_get(d, name, &g) ||
      ens_glyph_outline_get(d, name, refs_only ? ENS_GLYPH_OUTLINE_REFS_ONLY : 0, &o)) {
    ens__buf_puts(&b, "null");
    return ensw__out(h, &b);
  }
  ens__buf_printf(&b, "{\"width\":%lld,\"contours\":[", (long long)ens__glyph_int(g, "width", 0));
  for (size_t c = 0; c < o.ncontours; c++) {
    const ens_glyph_ocontour *oc = &o.contours[c];
    ens__buf_puts(&b, c ? ",[" : "[");
    for (size_t i = 0; i < oc->count; i++) {
      const ens_glyph_opoint *p = &o.points[oc->first + i];
      ens__buf_printf(&b, "%s{\"x\":%.10g,\"y\":%.10g,\"on\":%s}", i ? "," : "", isfinite(p->x) ? p->x : 0,
                      isfinite(p->y) ? p->y : 0, p->on ? "true" : "false");
    }
    ens__buf_putc(&b, ']');
  }
  ens__buf_puts(&b, "],\"glyphs\":");
  ensw_json_ids(&b, o.glyphs, o.nglyphs);
  ens__buf_printf(&b, ",\"cut\":%s}", o.cut ? "true" : "false");
  ens_glyph_outline_free(&o);
  return ensw__out(h, &b);
}

/* pts: "contour,index;contour,index;..." */
EMSCRIPTEN_KEEPALIVE int ensw_glyph_move(ensw *h, const char *name, const char *pts, double dx, double dy) {
  ens_doc *d = ensw__doc(h);
  if (!d) return ENS_EINVAL;
  ens_glyph_pt sel[1024];
  size_t n = 0;
  const char *p = pts;
  while (*p && n < 1024) {
    char *end;
    unsigned long c = strtoul(p, &end, 10);
    if (end == p || *end != ',') break;
    p = end + 1;
    unsigned long i = strtoul(p, &end, 10);
    if (end == p) break;
    sel[n].contour = c;
    sel[n].point = i;
    n++;
    p = *end == ';' ? end + 1 : end;
  }
  if (!n) return ENS_EINVAL;
  ens_txn *t = NULL;
  int rc = ens_glyph_move_points(d, name, sel, n, dx, dy, &t);
  return rc ? rc : ensw__commit(h, t);
}

EMSCRIPTEN_KEEPALIVE int ensw_glyph_width(ensw *h, const char *name, int width) {
  ens_doc *d = ensw__doc(h);
  ens_txn *t = NULL;
  int rc = d ? ens_glyph_set_width(d, name, width, &t) : ENS_EINVAL;
  return rc ? rc : ensw__commit(h, t);
}

EMSCRIPTEN_KEEPALIVE int ensw_glyph_add_point(ensw *h, const char *name, int contour, int index, double x, double y) {
  ens_doc *d = ensw__doc(h);
  ens_txn *t = NULL;
  if (!d || contour < 0 || index < 0) return ENS_EINVAL;
  int rc = ens_glyph_add_point(d, name, (size_t)contour, (size_t)index, x, y, &t);
  return rc ? rc : ensw__commit(h, t);
}

EMSCRIPTEN_KEEPALIVE int ensw_glyph_remove_point(ensw *h, const char *name, int contour, int index) {
  ens_doc *d = ensw__doc(h);
  ens_txn *t = NULL;
  if (!d || contour < 0 || index < 0) return ENS_EINVAL;
  int rc = ens_glyph_remove_point(d, name, (size_t)contour, (size_t)index, &t);
  return rc ? rc : ensw__commit(h, t);
}
