/* Private to the Tupi import (src/lib/formats/tupi): the import's state,
 * its notes of what does not map, and the small JSON writer the Lottie
 * text is made with. */
#ifndef ENS_TUPI_INT_H
#define ENS_TUPI_INT_H

#include <libxml/tree.h>
#include <stddef.h>

#include "ensemble/tupi.h"
#include "util/buf.h"
#include "util/error.h"

#define ENS__TUPI_MAX_NOTES 1000

typedef struct {
  char *what, *where;
  size_t count;
} ens__tupi_note;

/* An object of the project's library (library.tpl). */
typedef struct {
  char *id, *path;
  int type;  /* Tupi's: 1 item, 2 image, 3 sound, 4 SVG */
  int asset; /* 1 + its index in the Lottie assets once written, 0 before */
  int w, h;  /* an image's size in pixels */
} ens__tupi_libobj;

typedef struct ens__tupi_ctx ens__tupi_ctx;

struct ens__tupi_ctx {
  ens__tupi_note *notes;
  size_t nnotes, cap;
  size_t points;   /* path points read so far, against ENS_TUPI_MAX_POINTS */
  char where[512]; /* the place being read, for notes and errors */
  ens__tupi_libobj *lib;
  size_t nlib;
  ens_buf images;  /* image assets written so far, comma-separated */
  size_t nimages;
  /* a file of the project's zip by its name in the library (images/NAME),
   * within the limits; 1 when absent */
  int (*load)(ens__tupi_ctx *ctx, const char *path, char **data, size_t *len);
  void *zip;
};

/* The image asset of library object id: *asset its number, *w, *h its
 * size. 1 when id is no image this import can carry (noted), 0 when
 * found, or a negative ENS_E*. */
int ens__tupi_image(ens__tupi_ctx *ctx, const char *id, int *asset, int *w, int *h);

/* Adds a note of something not mapped at ctx->where (the same sentence
 * again only counts). ENS_ENOMEM or 0. */
int ens__tupi_note_add(ens__tupi_ctx *ctx, const char *fmt, ...) ENS_PRINTF(2, 3);

/* JSON text: numbers rounded to 1/1000 (what Tupi itself keeps), without
 * trailing zeros; strings escaped. */
void ens__tupi_jnum(ens_buf *b, double v);
void ens__tupi_jstr(ens_buf *b, const char *s);

/* An affine map x' = a x + c y + e, y' = b x + d y + f. */
typedef struct {
  double a, b, c, d, e, f;
} ens__tupi_mat;

extern const ens__tupi_mat ens__tupi_identity;
ens__tupi_mat ens__tupi_mul(ens__tupi_mat outer, ens__tupi_mat inner);
void ens__tupi_apply(const ens__tupi_mat *m, double *x, double *y);

/* A number from text: finite and within +-1e7, else ENS_EDECODE naming
 * what. *end (may be NULL) after it. */
int ens__tupi_num(ens__tupi_ctx *ctx, const char *s, const char **end, const char *what, double *out);
/* An attribute as a number (def when absent). */
int ens__tupi_attr_num(ens__tupi_ctx *ctx, xmlNode *n, const char *name, double def, double *out);
/* An item's own map from its <properties> (transform matrix, then pos). */
int ens__tupi_item_matrix(ens__tupi_ctx *ctx, xmlNode *item, ens__tupi_mat *out);

/* Animated colours for an object's strokes and fills (a tween's), as
 * Lottie property JSON text; NULL keeps the object's own. */
typedef struct {
  const char *stroke, *fill;
} ens__tupi_paint;

/* Appends the Lottie shape group of one Tupi item (path, rect, ellipse,
 * line, group) mapped through m to b, with a leading comma when *first is
 * 0. Returns 1 when the item has no Lottie shape (noted), 0 when written,
 * or a negative ENS_E*. */
int ens__tupi_item_shapes(ens__tupi_ctx *ctx, xmlNode *item, const ens__tupi_mat *m, const ens__tupi_paint *paint,
                          int depth, ens_buf *b, int *first);

/* An element's first child element named name, or NULL. */
xmlNode *ens__tupi_child(xmlNode *n, const char *name);
/* Whether n is the element named name. */
int ens__tupi_is(const xmlNode *n, const char *name);

/* The project-wide facts a scene needs. */
typedef struct {
  double w, h; /* the canvas */
} ens__tupi_project;

/* Appends the Lottie layers of one scene (a <scene> element) to b, each
 * with a leading comma unless *first; *ind numbers them; *length is the
 * scene's length in frames. */
int ens__tupi_scene(ens__tupi_ctx *ctx, xmlNode *scene, int number, const ens__tupi_project *proj, ens_buf *b,
                    int *first, int *ind, int *length);

#endif
