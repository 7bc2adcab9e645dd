/* Private to the Lottie editing commands (edit_*.c): finding layers,
 * shapes and properties by address, reading members, values given as
 * JSON text, new transactions and positions, and copying a subtree (with
 * its kept text, so a copy is written as its original was). */
#ifndef ENS_FORMATS_LOTTIE_EDIT_INT_H
#define ENS_FORMATS_LOTTIE_EDIT_INT_H

#include <stddef.h>

#include "ensemble/lottie.h"
#include "ensemble/lottieedit.h"

/* Two times are one keyframe's when this close. */
#define ENS__LJE_TIME_EPS 1e-6

/* Checks doc is an animation and finds the object at address of the kind
 * wanted (ENS_LOTTIE_LAYER, ENS_LOTTIE_PROPERTY, or NULL for a layer or a
 * shape); errors name the command ("set-value: no layer \"Ball\""). */
int ens__lje_find(const ens_doc *doc, const char *cmd, const char *address, const char *kind, const ens_obj **out);

/* When address names a transform member (a, p, s, r, o, or their long
 * names) that the layer's "ks" does not have (players take its default):
 * 0 with the transform and the member's name; -1 otherwise. */
int ens__lje_missing_transform(const ens_doc *doc, const char *address, const ens_obj **ks, const char **member);

/* The child object of o that is its member name (its ~key), or NULL. */
const ens_obj *ens__lje_member(const ens_obj *o, const char *name);
/* A number member of o (INT or REAL); 0, or -1 when absent or no number. */
int ens__lje_num(const ens_obj *o, const char *key, double *out);
/* The value of a time or frame number as the file would write it: an
 * integer when it is one. */
ens_value ens__lje_time(double t);
/* 1 when o is of kind. */
int ens__lje_is(const ens_obj *o, const char *kind);

/* The layer o is in (o itself for a layer), or NULL. */
const ens_obj *ens__lje_layer_of(const ens_obj *o);

/* A new transaction labelled label (ENS_ENOMEM). */
int ens__lje_txn(const char *label, ens_txn **out);
/* Ends a command: on error (rc, or a value set under the name of one of
 * the object's member objects) frees *txn and returns the error; else
 * hands *txn to *out. */
int ens__lje_finish(const ens_doc *doc, int rc, ens_txn **txn, ens_txn **out);
/* A fresh object id of doc (ENS_ELIMIT). */
int ens__lje_new_id(ens_doc *doc, ens_id *out);

/* A value given as JSON text: a number or an array of values, checked as
 * the reader checks a file's. *canon holds the canonical text of an array
 * (as the reader keeps one), or the number's text; *is_array says which;
 * *count the array's elements (1 for a number). The caller frees *canon
 * (free). ENS_EDECODE with the reason otherwise. */
int ens__lje_parse_value(const char *cmd, const char *text, char **canon, int *is_array, size_t *count);
/* The number of top-level elements of canonical array text (s, n). */
size_t ens__lje_count(const char *s, size_t n);

/* Adds to parent_node (or, when NULL, as an insert under parent at pos of
 * txn) a copy of src and its subtree, kept text included, with fresh ids
 * of doc. */
int ens__lje_copy(ens_doc *doc, ens_txn *txn, ens_id parent, const char *pos, ens_node *parent_node, const ens_obj *src,
                  size_t depth, ens_id *copy_id);

#endif
