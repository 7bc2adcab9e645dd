/* Private to the glyph editing commands (glyph_*.c): finding glyphs,
 * layers and contours, points read into plain structs, and the helpers
 * that turn changed points into operations of a transaction. */
#ifndef ENS_FORMATS_SFD_GLYPH_INT_H
#define ENS_FORMATS_SFD_GLYPH_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ensemble/glyph.h"
#include "ensemble/sfd.h"

/* Nested references are followed at most this deep (a cycle of
 * references, which FontForge refuses, must not hang us). */
#define ENS__GLYPH_MAX_REF_DEPTH 32

/* One point line, as its properties say. */
typedef struct {
  ens_id id;        /* ENS_ID_NONE for a point not in the document yet */
  double x, y;
  int has_c;        /* a curve line: c1 (the previous point's outgoing
                       control) and c2 (this point's incoming one) */
  double c1x, c1y, c2x, c2y;
  int has_type, has_flags;
  int64_t type, flags;
  int has_ttf, has_nextcp; /* TrueType numbers of quadratic fonts */
  int64_t ttf, nextcp;
} ens__gpt;

/* The points of one contour. */
typedef struct {
  const ens_obj *obj;
  ens__gpt *pts;
  size_t n;
  int closed; /* ens_sfd_contour_closed: the last point repeats the first */
  int order2; /* its layer is quadratic */
} ens__gcontour;

/* "glyph" objects and their `name`. */
int ens__glyph_name_is(const ens_obj *glyph, const char *name, size_t len);

/* The glyph named name, or ENS_ENOTFOUND with a message. */
int ens__glyph_get(const ens_doc *doc, const char *name, const ens_obj **out);

/* Before obj (a glyph, a layer, the font) gets its first child: its head
 * holds all its text, the closing line (word: EndChar, EndSplineSet,
 * EndChars) included; txn moves that line and what follows to its tail,
 * where the writer puts them after the children. 0 or ENS_ENOMEM. */
int ens__glyph_open_for_children(ens_txn *txn, const ens_obj *obj, const char *word);

/* The foreground layer (index 1, else a layer without a marker), or NULL. */
const ens_obj *ens__glyph_fore(const ens_obj *glyph);

/* Is the layer of this index quadratic? From the font's `Layer:` lines
 * (kept as text in the root's head), else its `Order2` property. */
int ens__glyph_layer_order2(const ens_doc *doc, const ens_obj *layer);

/* The contour-th contour of a layer (NULL when there is none) and how
 * many contours it has. */
const ens_obj *ens__glyph_contour_at(const ens_obj *layer, size_t contour, size_t *count);

/* Reads a contour's points (c->pts malloc'd; ens__gcontour_free). */
int ens__gcontour_load(const ens_doc *doc, const ens_obj *contour, ens__gcontour *c);
void ens__gcontour_free(ens__gcontour *c);

/* The point's properties as a gpt. */
void ens__gpt_read(const ens_obj *point, ens__gpt *p);

/* Adds to txn the sets that turn point `was` into `now` (same id): only
 * the properties that differ, control points removed when now has none. */
int ens__gpt_update(ens_txn *txn, const ens__gpt *was, const ens__gpt *now);

/* A contour's points after a change of its structure (points added,
 * removed or reordered), in their new order: FontForge reads a quadratic
 * point's outgoing control number as "there is an outgoing control
 * point", so a point whose outgoing segment is now a line gets -1. */
void ens__gpt_fix_numbers(ens__gpt *pts, size_t n, int closed);

/* Adds an insert of a new point object (id) under contour at pos. */
int ens__gpt_insert_node(ens_node *parent, const char *pos, ens_id id, const ens__gpt *p);
int ens__gpt_insert(ens_txn *txn, ens_id contour, const char *pos, ens_id id, const ens__gpt *p);

/* Is the code point a letter below U+10000 (letters.c: FontForge's
 * isalpha)? */
int ens__glyph_is_letter(int64_t c);

/* A real or integer property as a double (0 when absent). */
double ens__glyph_num(const ens_obj *obj, const char *key, int *present);
/* An integer property (fallback when absent). */
int64_t ens__glyph_int(const ens_obj *obj, const char *key, int64_t fallback);

/* The ref target of a "ref" or "kern" object, or ENS_ID_NONE. */
ens_id ens__glyph_target(const ens_obj *obj);

/* ens_glyph_outline_get of a glyph object (the visual diff draws glyphs
 * it holds, not names). */
int ens__glyph_outline_of(const ens_doc *doc, const ens_obj *glyph, unsigned flags, ens_glyph_outline *out);

/* A fresh id of doc, or ENS_ELIMIT. */
int ens__glyph_new_id(ens_doc *doc, ens_id *out);

/* Starts a transaction labelled label into *out (ENS_ENOMEM). */
int ens__glyph_txn(const char *label, ens_txn **out);

/* Rewrites the glyph names that SFD keeps as text (lookups, classes) for
 * a rename (new_name) or a removal (new_name NULL: the name is dropped
 * from lists, and lines that cannot do without it are dropped). Adds the
 * sets of changed texts to txn. */
int ens__glyph_names_fix(const ens_doc *doc, const char *old_name, const char *new_name, ens_txn *txn);

#endif
