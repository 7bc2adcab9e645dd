/* Ensemble visual diff: what changed between two versions of a drawing or
 * a font, drawn on the design itself (docs/vcs.md, "Visual diff"): one
 * composite SVG with the changes marked by CSS classes, a PNG of it, and a
 * self-contained HTML page to review it. For two versions of an animation
 * (docs/lottie.md, "Visual diff"): the changes per layer and keyframe, and
 * a strip of frames, old over new over their difference. */
#ifndef ENSEMBLE_VISDIFF_H
#define ENSEMBLE_VISDIFF_H

#include <stdio.h>

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
   * the diff's transaction (a fresh id of OLD's site). For an animation:
   * the object in OLD, or in NEW for an added one. */
  ens_id id;
  const char *label;  /* "path #eye-left", "rect in #layer1", "glyph a" */
  const char *detail; /* what changed: "d, style", "moved", "width 500 -> 510, 3 points moved" */
} ens_visdiff_item;

/* Compares OLD and NEW, two drawings (kind "svg"), two fonts (kind "sfd")
 * or two animations (kind "lottie") as their readers made them: the
 * objects that changed are those the model's diff (ens_doc_diff with the
 * format's identity keys) sets, moves, deletes or inserts, less editor
 * state (docs/vcs.md). Both documents are only read, and borrowed: they
 * must outlive *out, which the caller owns (ens_visdiff_free). ENS_EINVAL
 * for documents of different kinds or of another kind. */
int ens_visdiff_new(const ens_doc *old_doc, const ens_doc *new_doc, ens_visdiff **out);
void ens_visdiff_free(ens_visdiff *vd);

/* 1 for fonts, 0 for drawings and animations. */
int ens_visdiff_is_font(const ens_visdiff *vd);
/* 1 for animations, 0 for drawings and fonts. */
int ens_visdiff_is_animation(const ens_visdiff *vd);

/* The marked objects, in the order of the composite's data-ens numbers
 * (item i is the element with data-ens="i"). For an animation: one item
 * per change, in the new version's order; label names the layer
 * ('layer 3 "Ball"', 'precomposition "comp_1" layer 2', "composition"),
 * detail the change below it ('shape "Group"/"Fill" colour: [1,0,0] →
 * [0,0,1]', 'position keyframe t=30: s [90,10] → [80,20]'). */
size_t ens_visdiff_count(const ens_visdiff *vd);
int ens_visdiff_item_at(const ens_visdiff *vd, size_t i, ens_visdiff_item *out);

/* Writes the items for people, one line each: "LABEL: DETAIL" (the text
 * `ensemble diff` shows for animations). Nothing when there are none. 0,
 * or ENS_EIO when out fails. */
int ens_visdiff_write_text(const ens_visdiff *vd, FILE *out);

/* The composite SVG (UTF-8, NUL after the last byte). For a drawing: NEW
 * with every element classed (ens-unchanged, ens-added, ens-changed),
 * removed elements and the old geometry of changed ones re-drawn from OLD
 * in their old place with ids prefixed, one <style> block. For a font: a
 * grid of the changed glyphs. For an animation ENS_EINVAL: its visual diff
 * is rendered frames (ens_visdiff_png, ens_visdiff_html). *svg is the
 * caller's (ens_free). */
int ens_visdiff_svg(const ens_visdiff *vd, char **svg, size_t *len);

/* The composite rendered as PNG by ens_render_svg (size as there; both 0:
 * at most 2,000 pixels wide). For an animation: the strip of
 * ens_visdiff_strip_render (size is each frame's) as ens_visdiff_strip_png
 * draws it. *png is the caller's (ens_free). */
int ens_visdiff_png(const ens_visdiff *vd, ens_render_size size, unsigned char **png, size_t *len);

/* One HTML page that needs nothing else (no script, style, font or image
 * from elsewhere): the overlay, old and new side by side, a slider between
 * them, toggles for each class and the list of changes (a click
 * highlights the object). For an animation: ens_visdiff_strip_html of a
 * strip rendered at the default size and time limit. title may be NULL.
 * *html is the caller's (ens_free). */
int ens_visdiff_html(const ens_visdiff *vd, const char *title, char **html, size_t *len);

/* --- animations: a strip of frames -------------------------------------------
 * The frames shown are chosen where the changes are: the times of changed
 * keyframes, the in and out points of changed layers of the main
 * composition, and the first and last frame; when no change is at a time of
 * its own, frames evenly spaced. At most ENS_VISDIFF_MAX_FRAMES, in order,
 * each within both versions' frame ranges. */
#define ENS_VISDIFF_MAX_FRAMES 8

/* The frames chosen (the file's numbers, as ens_render_lottie counts
 * them) into frames[0..max), their number in *n, without rendering: the
 * range is read from both versions' "ip" and "op" (the strip takes it from
 * rlottie, which reads whole-number ones the same way). ENS_EINVAL for a
 * visual diff of anything but animations, or when the two versions share
 * no frame. */
int ens_visdiff_frames(const ens_visdiff *vd, long *frames, size_t max, size_t *n);

/* The rendered strip: column i shows frame frames[i] of OLD (old_frames[i])
 * and of NEW (new_frames[i]), both at one size, and their difference
 * (marked[i]: NEW's frame greyed with each pixel that differs from OLD's in
 * vermillion); differing[i] counts those pixels (exact comparison: rlottie
 * draws one file the same way every time). The strip owns its images. */
typedef struct {
  size_t count;
  long frames[ENS_VISDIFF_MAX_FRAMES];
  ens_image old_frames[ENS_VISDIFF_MAX_FRAMES], new_frames[ENS_VISDIFF_MAX_FRAMES],
      marked[ENS_VISDIFF_MAX_FRAMES];
  long differing[ENS_VISDIFF_MAX_FRAMES];
  /* the bounding box of the differing pixels of column i (x0, y0, x1, y1,
   * inclusive); all -1 when none differ */
  int box[ENS_VISDIFF_MAX_FRAMES][4];
} ens_visdiff_strip;

/* Renders both versions at the frames chosen (ens_render_lottie: a child
 * process per frame and version, the first frame's also giving the frame
 * range; size.timeout_ms for each). size: each frame's; one side 0: at
 * NEW's aspect ratio ("w", "h"); both 0: NEW's own size scaled to at most
 * ENS_VISDIFF_FRAME_SIDE pixels a side. Both versions are rendered at that
 * one size, each scaled to fit and centred. Errors as ens_render_lottie's (the message says which version);
 * *out is the caller's (ens_visdiff_strip_free) and empty on error. */
#define ENS_VISDIFF_FRAME_SIDE 240
int ens_visdiff_strip_render(const ens_visdiff *vd, ens_render_size size, ens_visdiff_strip *out);
void ens_visdiff_strip_free(ens_visdiff_strip *s); /* accepts NULL; leaves it empty */

/* The strip as one PNG, on white: three rows, OLD's frames, NEW's frames
 * (with a vermillion box round what differs) and the differences, one
 * column per frame, each column headed by its frame number in small pixel
 * digits and each row by OLD, NEW, DIFF. *png is the caller's (ens_free). */
int ens_visdiff_strip_png(const ens_visdiff_strip *s, unsigned char **png, size_t *len);

/* One HTML page that needs nothing else: the change list per layer and
 * keyframe (the text of ens_visdiff_write_text) and the strip as a table
 * of inline images (data: URLs) with frame numbers and counts of differing
 * pixels as text. title may be NULL. *html is the caller's (ens_free). */
int ens_visdiff_strip_html(const ens_visdiff *vd, const ens_visdiff_strip *s, const char *title, char **html,
                           size_t *len);

#ifdef __cplusplus
}
#endif
#endif
