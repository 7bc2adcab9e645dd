/* Ensemble glyph editing: the edits a type designer makes in FontForge, on a
 * font read from SFD, each built as exactly one transaction (docs/sfd.md,
 * "Editing"). */
#ifndef ENSEMBLE_GLYPH_H
#define ENSEMBLE_GLYPH_H

#include "txn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How every function here works: it reads doc, builds one transaction that
 * makes the edit (labelled "Set width", "Move points", ...) and hands it to
 * the caller in *out; it applies nothing. The caller owns *out: it applies
 * it (ens_doc_apply, or ens_undo_commit for one undo step) and frees it
 * with ens_txn_free. The only change to doc is that new objects take fresh
 * ids from it (ens_doc_new_id). On error *out is NULL and the code says
 * why: ENS_ENOTFOUND for a glyph name the font lacks, ENS_EINVAL for a bad
 * index or value, ENS_EEXISTS for a name or code point already taken.
 * A transaction describes the edit against the document as it was built:
 * apply it before building the next edit of the same glyph.
 *
 * Glyphs are named by their `name`. Outline edits work on the glyph's
 * foreground layer (Fore, index 1). Contours are numbered from 0 in file
 * order; points are the SFD point lines of a contour, numbered from 0, so
 * that in a closed contour the last index repeats the first point (both
 * indices name that point). Strings are UTF-8 and only borrowed. */

/* One point of a glyph: contour and point index. */
typedef struct {
  size_t contour;
  size_t point;
} ens_glyph_pt;

/* One point of a new contour: where it is and how the segment that ends at
 * it is drawn (curve 0: a straight line; curve 1: a cubic curve whose
 * control points are c1, the previous point's, and c2, this point's).
 * In a closed contour, point 0's segment is the one closing the contour. */
typedef struct {
  double x, y;
  int curve;
  double c1x, c1y, c2x, c2y;
} ens_glyph_node;

/* The glyph object named name, or NULL. The object is borrowed from doc
 * (valid until a transaction deletes it). */
const ens_obj *ens_glyph_find(const ens_doc *doc, const char *name);

/* Bounding box of the glyph's foreground as FontForge measures it: its
 * curves (extrema included, not just the points) and its references'
 * outlines. Writes the caller's doubles (any may be NULL); doc is only
 * read. ENS_EINVAL when the glyph has no outline at all. */
int ens_glyph_bounds(const ens_doc *doc, const char *glyph, double *xmin, double *ymin, double *xmax, double *ymax);

/* A glyph's outline as it is drawn (ens_glyph_outline_get): its own
 * foreground contours and, transformed, the contours of the glyphs its
 * references name, and theirs in turn. Points are in drawing order: an
 * on-curve point, then the control points of the segment that ends at
 * the next on-curve point (none: a line; one: a quadratic curve; two: a
 * cubic); a closed contour's repeat of its first point is left out. */
typedef struct {
  double x, y;
  int on; /* 1 on-curve, 0 a control point */
} ens_glyph_opoint;

typedef struct {
  size_t first, count; /* its points: points[first .. first + count) */
  int closed;
} ens_glyph_ocontour;

typedef struct {
  ens_glyph_opoint *points;
  size_t npoints;
  ens_glyph_ocontour *contours;
  size_t ncontours;
  ens_id *glyphs; /* every glyph whose contours were drawn or followed, */
  size_t nglyphs; /* each once, the glyph itself first */
  int cut;        /* a reference was left out: see ens_glyph_outline_get */
} ens_glyph_outline;

/* Only the references' contours, not the glyph's own (an editor draws
 * those itself, as points it can move). */
#define ENS_GLYPH_OUTLINE_REFS_ONLY 1u

/* Fills *out (the caller's struct; free its arrays with
 * ens_glyph_outline_free) with the glyph's outline as drawn. A font may
 * come from anyone, so references are followed at most 32 deep, a
 * reference to a glyph already being drawn (a cycle) is left out, and at
 * most 100,000 points and references in all are visited; whatever is
 * left out sets out->cut. A reference to a glyph the font lacks draws
 * nothing. flags: 0 or ENS_GLYPH_OUTLINE_REFS_ONLY. doc is only read.
 * ENS_ENOTFOUND for a name the font lacks, ENS_ENOMEM. */
int ens_glyph_outline_get(const ens_doc *doc, const char *glyph, unsigned flags, ens_glyph_outline *out);
/* Frees out's arrays and zeroes it; NULL is accepted. */
void ens_glyph_outline_free(ens_glyph_outline *out);

/* Move the given points by (dx, dy). A point's own control points move
 * with it, as in FontForge: its incoming one (c2 on its own line) and its
 * outgoing one (c1 on the next line); in a quadratic layer the single
 * control point of each adjacent segment. Moving the first point of a
 * closed contour moves its repeat at the end. pts may name one point twice
 * (or as 0 and the repeat); each coordinate moves once. pts is borrowed;
 * *out is the caller's. */
int ens_glyph_move_points(ens_doc *doc, const char *glyph, const ens_glyph_pt *pts, size_t npts, double dx,
                          double dy, ens_txn **out);

/* Set the advance width (-32768..32767, FontForge keeps 16 bits). Glyphs
 * bound to this one's metrics (a reference to it flagged "use my
 * metrics") that had the same width follow, as in FontForge; a glyph that
 * is itself so bound is refused (ENS_EINVAL: its width is the other's).
 * *out is the caller's. */
int ens_glyph_set_width(ens_doc *doc, const char *glyph, int width, ens_txn **out);

/* Set the left side bearing: shift everything by d = lsb - xmin (xmin of
 * ens_glyph_bounds): the contours of every layer, the references' offsets
 * (dx), anchors, vertical stem hints and the ranges of horizontal ones,
 * and widen the glyph by d (truncated to a whole width; a glyph bound to
 * another's metrics keeps its width; glyphs bound to this one follow).
 * When the glyph is a letter, the composites bound to it by "use my
 * metrics" move their own contours, their other references and their
 * stem hints by d, as FontForge does (docs/sfd.md).
 * As FontForge's transform does, every coordinate of the points and
 * anchors (y too) lands on a multiple of 1/1024 unit. Nothing changes when
 * d is 0; ENS_EINVAL when the glyph has no outline. *out is the
 * caller's. */
int ens_glyph_set_lsb(ens_doc *doc, const char *glyph, double lsb, ens_txn **out);

/* Add a contour of n points (n >= 1; closed needs n >= 2) after the last
 * contour of the foreground layer, making that layer if the glyph has
 * none. New points are corner points. In a quadratic layer a curve's two
 * control points must be the same point. nodes is borrowed; *out is the
 * caller's. Remove: the contour and its points; *out is the caller's. */
int ens_glyph_add_contour(ens_doc *doc, const char *glyph, const ens_glyph_node *nodes, size_t n, int closed,
                          ens_txn **out);
int ens_glyph_remove_contour(ens_doc *doc, const char *glyph, size_t contour, ens_txn **out);

/* Insert a corner point at (x, y) so that it becomes point index: the
 * segment that ended at the old point index now ends at the new point
 * (keeping its control points) and a straight line joins the new point to
 * the old one. Open contours take 0..count (0 makes it the start, count
 * appends); closed contours 1..last, where last inserts before the repeat
 * of the first point (0 means the same place). *out is the caller's. */
int ens_glyph_add_point(ens_doc *doc, const char *glyph, size_t contour, size_t index, double x, double y,
                        ens_txn **out);

/* Remove a point and its own control points: the segment from the point
 * before to the point after keeps the outgoing control point of the one
 * before and the incoming one of the one after; a side without one is a
 * control point on its own point, and with neither the segment is a
 * line. In a quadratic layer, where a segment has one control point, it
 * keeps the one before the removed point, else the one after. Removing
 * the first point of a closed contour makes the next point the first. A
 * contour keeps at least two points (remove the contour instead). *out
 * is the caller's. */
int ens_glyph_remove_point(ens_doc *doc, const char *glyph, size_t contour, size_t index, ens_txn **out);

/* Reverse a contour's direction; a closed contour keeps its first point,
 * as FontForge does. The points keep their ids (they are moved into the
 * new order). *out is the caller's. */
int ens_glyph_reverse_contour(ens_doc *doc, const char *glyph, size_t contour, ens_txn **out);

/* Rename a glyph. References and kerning pairs follow by themselves (they
 * are object references, written as glyph numbers); the glyph names that
 * SFD keeps as text are rewritten too, as FontForge does: substitutions,
 * ligatures, pair positioning and math variants of glyphs, kerning
 * classes, mark classes and contextual lookups of the font. ENS_EEXISTS
 * when another glyph has the name; ENS_EINVAL for an empty name or one
 * with blanks or control characters (lookups list names between blanks).
 * new_name is copied; *out is the caller's. */
int ens_glyph_rename(ens_doc *doc, const char *glyph, const char *new_name, ens_txn **out);

/* Set the Unicode code point (-1: none); the encoding slot stays, as
 * FontForge keeps it. ENS_EEXISTS when another glyph has the code point;
 * ENS_EINVAL beyond 0x10FFFF. *out is the caller's. */
int ens_glyph_set_unicode(ens_doc *doc, const char *glyph, int64_t unicode, ens_txn **out);

/* Add a glyph with an empty foreground layer after the last glyph: the
 * next glyph number, the encoding slot of its code point when the font's
 * encoding is Unicode and the slot is free (else the first slot after
 * every other), and FontForge's "width set" flag so that FontForge keeps
 * it although it is empty. unicode -1: none. name is copied; *out is the
 * caller's. */
int ens_glyph_add(ens_doc *doc, const char *name, int64_t unicode, int width, ens_txn **out);

/* Remove a glyph and the kerning pairs of other glyphs that name it;
 * where SFD text names it (kerning, mark and contextual classes) the name
 * goes from the list, and a substitution, ligature, pair or composition
 * that needs it goes entirely. Refused (ENS_EINVAL, naming the glyph)
 * while another glyph uses it as a reference: removing it would silently
 * change that glyph's outline, so the user decides first (unlink or
 * remove the reference). *out is the caller's. */
int ens_glyph_remove(ens_doc *doc, const char *glyph, ens_txn **out);

#ifdef __cplusplus
}
#endif
#endif
