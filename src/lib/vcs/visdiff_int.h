/* Private to the visual diff: the marks computed from the model's diff
 * (visdiff_core.c) and what the writers of the drawing composite
 * (visdiff_svg.c), the font grid (visdiff_font.c) and the page
 * (visdiff_html.c) share. */
#ifndef ENS_VCS_VISDIFF_INT_H
#define ENS_VCS_VISDIFF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../util/buf.h"
#include "ensemble/txn.h"
#include "ensemble/visdiff.h"

/* Flags of an object in the marks map. */
enum {
  VD_ADDED = 1,    /* marked added (an element / glyph the diff inserts) */
  VD_REMOVED = 2,  /* marked removed (deleted) */
  VD_CHANGED = 4,  /* marked changed */
  VD_MOVED = 8,    /* the diff moves it */
  VD_ATTRS = 16,   /* its own attributes or properties are set */
  VD_INSERTED = 32 /* a point, contour, ... of a font the diff inserts */
};

/* id -> flags and item number, open addressing. */
typedef struct {
  ens_id *keys;
  uint32_t *flags;
  int32_t *item;
  size_t cap, count;
} vd_map;

int ens__vd_map_add(vd_map *m, ens_id id, uint32_t flags); /* ors flags in; 0 or ENS_ENOMEM */
uint32_t ens__vd_map_flags(const vd_map *m, ens_id id);   /* 0 when absent */
int32_t *ens__vd_map_item(vd_map *m, ens_id id);          /* NULL when absent */
void ens__vd_map_free(vd_map *m);

typedef struct {
  ens_vis_mark mark;
  ens_id id;
  char *label;
  char *detail;
} vd_item;

/* Frames an animation's changes show at, kept to choose from. */
#define VD_WANT_MAX 256

struct ens_visdiff {
  int font;
  int anim; /* two animations: items only, no composite */
  long want[VD_WANT_MAX];
  size_t nwant;
  const ens_doc *old_doc, *new_doc;
  ens_doc *cur; /* NEW's content with OLD's ids (OLD's copy with the diff applied) */
  ens_txn *txn;
  vd_map marks;
  vd_item *items;
  size_t nitems, capitems;
  double width, height; /* the composite's size in pixels, noted by its writer */
};

/* 1 when obj is an element of a drawing that can be marked: inside the
 * root element, not an editor's own element nor metadata, title, desc
 * (visdiff_mark_svg.c). */
int ens__vd_svg_counted(const ens_obj *obj);

/* Marks for drawings (visdiff_mark_svg.c) and fonts (visdiff_font.c). */
int ens__vd_mark_svg(ens_visdiff *vd);
int ens__vd_mark_font(ens_visdiff *vd);
int ens__vd_mark_anim(ens_visdiff *vd); /* visdiff_anim.c */
int ens__vd_item_add(ens_visdiff *vd, ens_vis_mark mark, ens_id id, const char *label, const char *detail);

/* Writers. */
int ens__vd_svg_write(ens_visdiff *vd, ens_buf *out);
int ens__vd_font_write(ens_visdiff *vd, ens_buf *out, int side); /* side: 0 composite, 1 old only, 2 new only */

/* Animations (visdiff_anim.c): a frame the changes show at (rounded), and
 * the frames chosen within first..last (ens_visdiff_frames). */
int ens__vd_anim_want(ens_visdiff *vd, double t);
size_t ens__vd_anim_choose(const ens_visdiff *vd, long first, long last, long *out, size_t max);

/* Base64 of n bytes appended to b (visdiff_html.c). */
void ens__vd_base64(ens_buf *b, const unsigned char *p, size_t n);

/* XML text and attribute escaping. */
void ens__vd_escape(ens_buf *b, const char *s, size_t n, int attr);
/* A string property of obj, or NULL (borrowed; *n its length). */
const char *ens__vd_str(const ens_obj *obj, const char *key, size_t *n);
/* A real (or integer) property of obj, or dflt. */
double ens__vd_num(const ens_obj *obj, const char *key, double dflt);

/* The colours of the classes (docs/vcs.md). */
#define VD_COLOR_ADDED "#009e73"
#define VD_COLOR_REMOVED "#d55e00"
#define VD_COLOR_CHANGED "#0072b2"
#define VD_COLOR_GHOST "#7f7f7f"

#endif
