/* Private to the SVG editing commands (edit_*.c): finding elements by
 * address, reading attributes, the set of ids in use, blank text between
 * elements, positions for new children, copying a subtree into a
 * transaction, and the reference syntax (url(#id), href="#id"). */
#ifndef ENS_FORMATS_SVG_EDIT_INT_H
#define ENS_FORMATS_SVG_EDIT_INT_H

#include <stddef.h>

#include "ensemble/svg.h"
#include "ensemble/svgedit.h"

/* The nesting libxml2 accepts in a file, kept for edits that add depth. */
#define ENS__SVGE_MAX_DEPTH 256

/* 1 for an element (not text, comment, ... nor the document itself). */
int ens__svge_is_elem(const ens_obj *o);
/* 1 for a #text object whose text is XML blanks only (space, tab, LF, CR). */
int ens__svge_is_blank(const ens_obj *o);
/* The blank text right before o among its siblings, or NULL. */
const ens_obj *ens__svge_blank_before(const ens_obj *o);
/* The local part of an element name ("g" of "svg:g"). */
const char *ens__svge_local(const char *kind);

/* Checks doc is a drawing and finds the element at addr (errors name the
 * command: "translate: no element #logo"). */
int ens__svge_elem(const ens_doc *doc, const char *cmd, const char *addr, const ens_obj **out);

/* A string attribute's value; 0, or -1 when absent or not a string. */
int ens__svge_attr(const ens_obj *o, const char *key, const char **s, size_t *n);

/* A new transaction labelled label (ENS_ENOMEM). */
int ens__svge_txn(const char *label, ens_txn **out);
/* A fresh object id of doc (ENS_ELIMIT). */
int ens__svge_new_id(ens_doc *doc, ens_id *out);

/* Positions for k new children of parent that go before its child at
 * index (child count: at the end), in order; pos[i] malloc'd, freed with
 * ens__svge_pos_free. */
int ens__svge_positions(const ens_doc *doc, const ens_obj *parent, size_t index, size_t k, char **pos);
void ens__svge_pos_free(char **pos, size_t k);

/* A set of strings (ids), open hashing. */
typedef struct {
  char **slot;
  size_t cap, n;
} ens__svge_set;
int ens__svge_set_add(ens__svge_set *s, const char *v, size_t n);
int ens__svge_set_has(const ens__svge_set *s, const char *v, size_t n);
void ens__svge_set_free(ens__svge_set *s);
/* Every id attribute value of the elements under (and with) top. */
int ens__svge_ids(const ens_obj *top, ens__svge_set *s);

/* A map from old ids to new ones, for a copy. */
typedef struct {
  char **from, **to;
  size_t n, cap;
} ens__svge_idmap;
void ens__svge_idmap_free(ens__svge_idmap *m);

/* Calls fn for each reference to an element in an attribute value:
 * every url(#ID) (blanks and quotes allowed inside the parentheses), and
 * the whole value "#ID" of an href or *:href attribute; (at, n) is the ID
 * inside v. A nonzero return of fn stops the scan and is returned. */
typedef int (*ens__svge_ref_fn)(const char *at, size_t n, void *user);
int ens__svge_refs(const char *key, const char *v, size_t vn, ens__svge_ref_fn fn, void *user);

/* Adds to parent_node (or, when NULL, as an insert under parent at pos of
 * txn) a copy of src and its subtree with fresh ids of doc. With map, id
 * attributes and references are rewritten through it. depth counts
 * levels for the model's bound. */
int ens__svge_copy(ens_doc *doc, ens_txn *txn, ens_id parent, const char *pos, ens_node *parent_node,
                   const ens_obj *src, const ens__svge_idmap *map, size_t depth);

/* The namespace declarations in scope at element o ("xmlns" or
 * "xmlns:p" keys, nearest first, each prefix once). keys and vals are
 * borrowed from the document; *n their count (at most max). */
size_t ens__svge_ns_scope(const ens_obj *o, const char **keys, const char **vals, size_t *vlens, size_t max);
/* 1 when prefix (n bytes) is declared at element o (xml always is). */
int ens__svge_ns_declared(const ens_obj *o, const char *prefix, size_t n);

/* Shortest decimal text that reads back as v ("-0" as "0"). */
void ens__svge_num(double v, char *buf, size_t size);

#endif
