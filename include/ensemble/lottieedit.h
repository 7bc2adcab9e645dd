/* Ensemble Lottie editing: the edits an animator makes to an animation
 * read from Lottie (keyframes, easing, timing, layers, colour), each built
 * as exactly one transaction (docs/lottie.md, "Editing"). */
#ifndef ENSEMBLE_LOTTIEEDIT_H
#define ENSEMBLE_LOTTIEEDIT_H

#include "txn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How every edit here works, as the drawing edits do (ensemble/svgedit.h):
 * it reads doc, builds one transaction that makes the edit (labelled
 * "Set value", "Move keyframe", ...) and hands it to the caller in *out;
 * it applies nothing. The caller owns *out: it applies it (ens_doc_apply,
 * or ens_undo_commit for one undo step) and frees it with ens_txn_free.
 * The only change to doc is that new objects take fresh ids from it. On
 * error *out is NULL and the code says why: ENS_ENOTFOUND for an address
 * that names nothing or a time with no keyframe, ENS_EINVAL for a bad
 * argument (a value of the wrong size, a time that is not finite, a
 * parent that would make a loop), ENS_EEXISTS for a keyframe already at
 * the time asked for, ENS_EDECODE for a value that is not JSON.
 *
 * Addresses. A layer is named by its "ind" (digits: "3"), by its place in
 * the layer list ("[0]": the first, drawn on top), or by its name ("Ball",
 * the first layer so named). A layer of a precomposition is prefixed with
 * the asset's id and a colon ("comp_1:Ball"). A shape is the layer, then
 * one step per group, each a name or "[N]" (the N-th item counted from
 * 0): "Ball/Circle group/Fill". A property is a layer or shape, a dot and
 * the member name of the property object: "Ball.p", "Ball/Circle
 * group/Fill.c"; on a layer, a transform member (a, p, s, r, o, ...) is
 * looked for in its "ks" first, on a group in its transform item ("tr").
 * The long names position, anchor, scale, rotation, opacity, colour
 * (color), width stand for p, a, s, r, o, c, w. A name is matched whole
 * first, so a layer named "a.b" is found as itself before "a" and ".b".
 *
 * Times are frames in the property's own timeline: the composition's less
 * the layer's start time "st" (0 in most files); a keyframe is the one at
 * that time (within 1e-6). Values are JSON text: a number ("50") or an
 * array of numbers ("[80,20]", a colour "[1,0,0,1]"), of the size the
 * property's values have. Bezier shapes (path keyframes) have object
 * values and are not set here. */

/* The layer, shape or property object at address, or NULL (with
 * ENS_ENOTFOUND or ENS_EINVAL in ens_error_last naming the step).
 * Borrowed from doc. */
const ens_obj *ens_lottie_find(const ens_doc *doc, const char *address);

/* Set the property's value at frame t, as an animator does with the
 * playhead at t: an animated property gets its keyframe at t a new start
 * value, or a new keyframe at t (easing copied from the keyframe before
 * it); a static property set at or before the layer's in point just
 * takes the value, and set later becomes animated: a keyframe at the in
 * point with the old value, one at t with the new. Files whose keyframes
 * carry end values ("e", older exporters) keep them true. */
int ens_lottie_set_value(ens_doc *doc, const char *prop, double t, const char *value, ens_txn **out);

/* Add a keyframe at t with value to an animated property (ENS_EEXISTS
 * when one is there; a static property is refused: use
 * ens_lottie_set_value, which also makes it animated). */
int ens_lottie_add_keyframe(ens_doc *doc, const char *prop, double t, const char *value, ens_txn **out);

/* Move the keyframe at t to new_t (ENS_EEXISTS when one is at new_t);
 * the keyframes stay in time order. */
int ens_lottie_move_keyframe(ens_doc *doc, const char *prop, double t, double new_t, ens_txn **out);

/* Delete the keyframe at t. When one keyframe would be left, the
 * property becomes static with that keyframe's value instead (players
 * differ on a property with a single keyframe: rlottie draws its value as
 * zero); a property with one keyframe keeps it (ENS_EINVAL). The keyframe
 * that becomes the last loses its easing, as there is no next one to
 * ease to. */
int ens_lottie_delete_keyframe(ens_doc *doc, const char *prop, double t, ens_txn **out);

/* The easing from the keyframe at t to the next one: the out tangent of
 * this keyframe (out_x, out_y) and the in tangent of the next (in_x,
 * in_y), x within [0, 1], as a cubic bezier's two control points; or a
 * hold (the value jumps at the next keyframe). Linear is (0,0) (1,1);
 * ease is (0.25,0.1) (0.25,1). */
typedef struct {
  double out_x, out_y, in_x, in_y;
  int hold;
} ens_lottie_easing;
int ens_lottie_set_easing(ens_doc *doc, const char *prop, double t, const ens_lottie_easing *easing, ens_txn **out);

/* Retime a layer: shift moves it by dt frames in the composition (its in
 * and out points, and its keyframes; a precomposition layer its start
 * time "st" instead, which is when its contents play: rlottie reads st
 * only on those, so both it and players that follow the spec play the
 * layer dt later); stretch makes it play factor times as long from its
 * in point (factor > 0: its keyframes' times and its out point scale
 * about the in point). */
int ens_lottie_shift_layer(ens_doc *doc, const char *layer, double dt, ens_txn **out);
int ens_lottie_stretch_layer(ens_doc *doc, const char *layer, double factor, ens_txn **out);

/* Retime a range of the main composition: everything from frame from on
 * (in points, out points, start times and keyframes of the layers there,
 * the composition's out point, markers) moves by dt; a negative dt may not
 * make anything cross from (ENS_EINVAL). */
int ens_lottie_shift_range(ens_doc *doc, double from, double dt, ens_txn **out);

/* A layer's in and out points (ip < op). */
int ens_lottie_set_in_out(ens_doc *doc, const char *layer, double ip, double op, ens_txn **out);

/* Parent layer under parent (a layer of the same composition), or no
 * parent when parent is NULL. Its transform stays as written, so it then
 * moves with the parent. A parent that is the layer or one of its
 * descendants is refused (ENS_EINVAL). */
int ens_lottie_reparent(ens_doc *doc, const char *layer, const char *parent, ens_txn **out);

/* Move a layer to index in its composition's layer list (0: the first,
 * drawn on top of the others). */
int ens_lottie_reorder(ens_doc *doc, const char *layer, size_t index, ens_txn **out);

/* Rename a layer or shape ("nm"). */
int ens_lottie_rename(ens_doc *doc, const char *target, const char *name, ens_txn **out);

/* The colour of a fill or stroke shape (its "c", static, components 0 to
 * 1; an animated colour is set with ens_lottie_set_value), or of a solid
 * layer ("sc", written #rrggbb, alpha ignored). */
int ens_lottie_set_color(ens_doc *doc, const char *target, const double rgba[4], ens_txn **out);

/* Duplicate a layer with everything it holds, placed right before it in
 * its list (drawn above it): the copy takes the next free "ind" and the
 * name with " copy" added; its parent is the original's. */
int ens_lottie_duplicate_layer(ens_doc *doc, const char *layer, ens_txn **out);

#ifdef __cplusplus
}
#endif
#endif
