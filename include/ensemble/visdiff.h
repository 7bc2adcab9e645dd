/* Ensemble visual diff: what changed between two versions of a drawing or
 * a font, drawn on the design itself (docs/vcs.md, "Visual diff"): one
 * composite SVG with the changes marked by CSS classes, a PNG of it, and a
 * self-contained HTML page to review it. */
#ifndef ENSEMBLE_VISDIFF_H
#define ENSEMBLE_VISDIFF_H

#include "model.h"
#include "render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an object is marked. */
typedef enum {
  ENS_VIS_ADDED = 1,   /* in NEW only: class ens-added */
  ENS_VIS_REMOVED = 2, /* in OLD only, re-drawn from OLD: class ens-removed */
  ENS_VIS_CHANGED = 3  /* in both, changed: class ens-changed, its old geometry beneath as ens-ghost */
} ens_vis_mark;

typedef struct ens_visdiff ens_visdiff;

/* One marked object: an element of a drawing, a glyph of a font. Strings
 * are borrowed from the visual diff. */
typedef struct {
  ens_vis_mark mark;
  /* The object in OLD (removed, changed) or, for an added one, its id in
   * the diff's transaction (a fresh id of OLD's site). */
  ens_id id;
  const char *label;  /* "path #eye-left", "rect in #layer1", "glyph a" */
  const char *detail; /* what changed: "d, style", "moved", "width 500 -> 510, 3 points moved" */
} ens_visdiff_item;

/* Compares OLD and NEW, two drawings (kind "svg") or two fonts (kind
 * "sfd") as their readers made them: the objects that changed are those
 * the model's diff (ens_doc_diff with the format's identity keys) sets,
 * moves, deletes or inserts, less editor state (docs/vcs.md). Both
 * documents are only read, and borrowed: they must outlive *out, which
 * the caller owns (ens_visdiff_free). ENS_EINVAL for documents of
 * different kinds or of another kind. */
int ens_visdiff_new(const ens_doc *old_doc, const ens_doc *new_doc, ens_visdiff **out);
void ens_visdiff_free(ens_visdiff *vd);

/* 1 for fonts, 0 for drawings. */
int ens_visdiff_is_font(const ens_visdiff *vd);

/* The marked objects, in the order of the composite's data-ens numbers
 * (item i is the element with data-ens="i"). */
size_t ens_visdiff_count(const ens_visdiff *vd);
int ens_visdiff_item_at(const ens_visdiff *vd, size_t i, ens_visdiff_item *out);

/* The composite SVG (UTF-8, NUL after the last byte). For a drawing: NEW
 * with every element classed (ens-unchanged, ens-added, ens-changed),
 * removed elements and the old geometry of changed ones re-drawn from OLD
 * in their old place with ids prefixed, one <style> block. For a font: a
 * grid of the changed glyphs. *svg is the caller's (ens_free). */
int ens_visdiff_svg(const ens_visdiff *vd, char **svg, size_t *len);

/* The composite rendered as PNG by ens_render_svg (size as there; both 0:
 * at most 2,000 pixels wide). *png is the caller's (ens_free). */
int ens_visdiff_png(const ens_visdiff *vd, ens_render_size size, unsigned char **png, size_t *len);

/* One HTML page that needs nothing else (no script, style, font or image
 * from elsewhere): the overlay, old and new side by side, a slider between
 * them, toggles for each class and the list of changes (a click
 * highlights the object). title may be NULL. *html is the caller's
 * (ens_free). */
int ens_visdiff_html(const ens_visdiff *vd, const char *title, char **html, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
