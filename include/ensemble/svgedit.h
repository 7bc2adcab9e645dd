/* Ensemble SVG editing: the edits an illustrator makes to a drawing read
 * from SVG, each built as exactly one transaction (docs/svg.md,
 * "Editing"). */
#ifndef ENSEMBLE_SVGEDIT_H
#define ENSEMBLE_SVGEDIT_H

#include "txn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How every edit here works, as the glyph edits do (ensemble/glyph.h): it
 * reads doc, builds one transaction that makes the edit (labelled "Set
 * attribute", "Group", ...) and hands it to the caller in *out; it
 * applies nothing. The caller owns *out: it applies it (ens_doc_apply, or
 * ens_undo_commit for one undo step) and frees it with ens_txn_free. The
 * only change to doc is that new objects take fresh ids from it
 * (ens_doc_new_id). On error *out is NULL and the code says why:
 * ENS_ENOTFOUND for an address that names no element, ENS_EINVAL for a
 * bad argument or an edit that would change the drawing in a way not
 * asked for, ENS_EEXISTS for an id already taken, ENS_EDECODE for a
 * markup fragment that is not well-formed. Build, apply, then build the
 * next edit: a transaction describes the edit against the document as it
 * was built.
 *
 * Elements are named by an address (ens_svg_find): "#ID", the first
 * element in document order whose id attribute is ID; or a path of steps
 * from the document ("/svg/g[1]/rect[0]") or from an element with an id
 * ("#layer1/rect[2]"), each step an element name and its rank among its
 * siblings of that name, counted from 0 ("rect" alone is "rect[0]"):
 * ens_svg_identity's keys for elements with an id, and ranks counted from
 * the first sibling (ens_svg_identity counts from the nearest sibling with
 * an id). Strings are UTF-8 and only borrowed. */

/* Longest address ens_svg_address writes, NUL included. */
#define ENS_SVG_ADDRESS_MAX 4096

/* The element at address, or NULL (with ENS_ENOTFOUND or ENS_EINVAL in
 * ens_error_last saying which step failed). Borrowed from doc. */
const ens_obj *ens_svg_find(const ens_doc *doc, const char *address);

/* An address of element obj: "#ID" when it has an id that no earlier
 * element has, else the path from the nearest such ancestor (or the
 * document). 0, or ENS_EINVAL when obj is not an element, ENS_ELIMIT when
 * it does not fit in size bytes. */
int ens_svg_address(const ens_obj *obj, char *buf, size_t size);

/* Set attribute name to value, in its place in the tag when the element
 * has it, else added at the end of the tag. The name must be an XML name
 * whose prefix (if any) is declared for the element; namespace
 * declarations (xmlns, xmlns:*) are refused, since the names below them
 * depend on them. An id value must be unused by any other element
 * (ENS_EEXISTS). Values with characters XML 1.0 cannot hold are refused.
 * *out is the caller's. */
int ens_svg_set_attr(ens_doc *doc, const char *elem, const char *name, const char *value, ens_txn **out);

/* Remove attribute name (ENS_ENOTFOUND when the element lacks it). *out
 * is the caller's. */
int ens_svg_remove_attr(ens_doc *doc, const char *elem, const char *name, ens_txn **out);

/* Set one declaration of the style attribute ("fill" to "#f00"): the
 * others keep their text and order; a declaration already there has its
 * value replaced where it stands (its !important dropped), a new one is
 * appended ("; fill:#f00" after the last). value NULL removes the
 * declaration, and the style attribute with its last one. Removing a
 * property the style lacks is ENS_ENOTFOUND. *out is the caller's. */
int ens_svg_set_style(ens_doc *doc, const char *elem, const char *prop, const char *value, ens_txn **out);

/* Move, rotate or scale an element in its parent's coordinates: the new
 * transform is put before the element's existing transform attribute,
 * whose text stays as it was ("translate(10,0) rotate(5)" translated by
 * (3,4) becomes "translate(3,4) translate(10,0) rotate(5)"). Because SVG
 * applies a transform list right to left, the prepended one acts last,
 * on the already transformed element, i.e. in the parent's coordinates.
 * Translating by (0,0) builds an empty transaction. rotate turns by deg degrees about
 * (cx, cy); scale scales by (sx, sy) about (cx, cy) (both 0: the
 * origin). Numbers are written in their shortest exact form. *out is
 * the caller's. */
int ens_svg_translate(ens_doc *doc, const char *elem, double dx, double dy, ens_txn **out);
int ens_svg_rotate(ens_doc *doc, const char *elem, double deg, double cx, double cy, ens_txn **out);
int ens_svg_scale(ens_doc *doc, const char *elem, double sx, double sy, double cx, double cy, ens_txn **out);

/* Raise: exchange the element with the next element among its siblings,
 * so it is drawn one step later (on top of it); lower: with the previous
 * one. Text, comments and the blanks between elements stay where they
 * are, so both keep their lines and indentation. ENS_EINVAL when there is
 * no such sibling. *out is the caller's. */
int ens_svg_raise(ens_doc *doc, const char *elem, ens_txn **out);
int ens_svg_lower(ens_doc *doc, const char *elem, ens_txn **out);

/* Group n sibling elements (n >= 1, in any order; each once) into a new
 * <g> placed where the first of them (in document order) was; they keep
 * their order, and the blank text before each but the first goes into
 * the group with it. The group's id is group_id, or when NULL a fresh
 * one ("g1", "g2", ... the first not used). It is in the SVG namespace:
 * "g" where that is the default namespace, else with a prefix declared
 * for it ("svg:g"). *out is the caller's. */
int ens_svg_group(ens_doc *doc, const char *const *elems, size_t n, const char *group_id, ens_txn **out);

/* Ungroup a <g>: its children take its place in its parent, in order, and
 * the lines of its start and end tags go (its first child, when blank,
 * takes the place of the blanks before the group; its last, when blank,
 * goes). The group's transform is put before each drawn child element's
 * own (not on definitions such as clipPath or linearGradient, which are
 * drawn in the space of what uses them), so that nothing moves. Refused (ENS_EINVAL, naming the attribute) when the group has
 * any attribute other than id, transform, a style of display:inline
 * alone (what Inkscape puts on its layers: the initial value), and
 * attributes of other namespaces than XML's (inkscape:label,
 * sodipodi:...): opacity, other styles,
 * class, clip-path, mask, filter and presentation attributes apply to the
 * group as a whole and cannot in general be moved onto its children
 * without changing the drawing; and when the group's id is referenced
 * (url(#id), href) from elsewhere. *out is the caller's. */
int ens_svg_ungroup(ens_doc *doc, const char *group, ens_txn **out);

/* Duplicate an element with its subtree, placed right after it (after a
 * copy of the blanks before it, so that it sits on its own line). Every
 * id in the copy becomes unique in the document (ID-1, ID-2, ... the
 * first unused), and references inside the copy to elements inside the
 * copy (url(#ID) in any attribute, href="#ID" and xlink:href="#ID") are
 * rewritten to the new ids; references to elements outside it stay.
 * *out is the caller's. */
int ens_svg_duplicate(ens_doc *doc, const char *elem, ens_txn **out);

/* Delete an element with its subtree, and the blank text before it (so no
 * empty line stays behind). The root element cannot be deleted. *out is
 * the caller's. */
int ens_svg_delete(ens_doc *doc, const char *elem, ens_txn **out);

/* Insert the nodes of a markup fragment (elements, text, comments, ...)
 * under element parent, before its index-th child element (index -1, or
 * the number of child elements: after the last one). The fragment is
 * read by the same reader with the same limits, inside the namespace
 * declarations in scope at parent (and the document's entities), so a
 * prefix that the document does not declare there is an error
 * (ENS_EDECODE, "line N:" counted in the fragment); nesting is bounded
 * as in a file (256 levels with parent's own depth). The new nodes keep
 * their text as written. When the child element they go before (or, at
 * the end, the last child element) is preceded by blanks, a copy of
 * those blanks separates the new nodes from it, so that they sit on
 * their own line at its indentation. Elements keep the ids the fragment gives
 * them; an id already in the document is ENS_EEXISTS. *out is the
 * caller's. */
int ens_svg_insert(ens_doc *doc, const char *parent, long index, const char *markup, size_t len, ens_txn **out);

#ifdef __cplusplus
}
#endif
#endif
