/* Ensemble semantic diff: the changes between two versions of one document
 * at object grain (added, removed, property changed, moved, renamed), for
 * people (text) and tools (JSON), computed from the model's matching by
 * identity keys with the format's editor noise left out (docs/vcs.md,
 * "Semantic diff"). */
#ifndef ENSEMBLE_CHANGES_H
#define ENSEMBLE_CHANGES_H

#include <stdio.h>

#include "diff.h"   /* ens_identity_fn */
#include "format.h" /* ens_noise_fn */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ENS_CHANGE_ADDED = 0,   /* an object (with its subtree) only the new version has */
  ENS_CHANGE_REMOVED = 1, /* an object (with its subtree) only the old version has */
  ENS_CHANGE_SET = 2,     /* one property of an object both have: set, changed or removed */
  ENS_CHANGE_MOVED = 3,   /* an object both have, under another parent or out of its siblings' order */
  ENS_CHANGE_RENAMED = 4  /* an object both have whose name (its identity key) changed */
} ens_change_kind;

/* One change. Strings and values are borrowed from the list (values that
 * are references name objects by their id on their own side). */
typedef struct {
  ens_change_kind kind;
  /* The object in the old and the new document; ENS_ID_NONE on the side
   * that does not hold it (ADDED: old_id; REMOVED: new_id). */
  ens_id old_id, new_id;
  const char *obj_kind; /* "glyph", "point", "rect" */
  /* For people: the identity keys from the root, "glyph a/layer 1/contour
   * 2/point 5", in the new document (in the old one for REMOVED). */
  const char *path;
  /* MOVED and RENAMED: the path it had in the old document; else NULL. */
  const char *old_path;
  /* SET: the property. RENAMED: the property that holds the name ("name"
   * of a glyph, "id" of an SVG element), whose values are then old_value
   * and new_value. Else NULL. */
  const char *key;
  ens_value old_value, new_value; /* NIL where absent */
  /* MOVED: the path of the sibling it now follows in the new document,
   * NULL when it is now the first child (for a drawing, "moved above
   * that"). Else NULL. */
  const char *after;
  /* The path of the top object this change is grouped under for people:
   * the glyph (a font's own properties: ""), the SVG element. */
  const char *group;
} ens_change;

typedef struct {
  /* The format's identity keys (ens_sfd_identity, ens_svg_identity); NULL
   * matches objects by id (two versions of one session's document). */
  ens_identity_fn identity;
  void *identity_user;
  /* The format's editor noise (ens_format_noise(kind)): property changes
   * it calls noise are not changes. NULL: everything counts. */
  ens_noise_fn noise;
  void *noise_user;
} ens_changes_opts;

typedef struct ens_changes ens_changes;

/* The changes that turn old_doc into new_doc, in new_doc's pre-order
 * (removed objects where they stood), each changed property exactly once.
 * Objects are matched like ens_doc_diff matches them (same kind, same
 * identity key, under matched parents), then those left over are paired:
 * an object with a name (identity 2) found under another parent is MOVED,
 * one with the same content under another name (a glyph renamed with
 * its outline, an SVG element whose id changed) is RENAMED, one with the
 * same content under another parent is MOVED. Properties whose key starts
 * with '@' (local) never count; those starting with '~' (text kept to
 * write an object back as read) count only on objects that hold nothing
 * else (no other property, no child: an SFD raw line). Both documents
 * are only read. *out is the caller's (ens_changes_free); on error NULL. */
int ens_changes_compute(const ens_doc *old_doc, const ens_doc *new_doc, const ens_changes_opts *opts,
                        ens_changes **out);

size_t ens_changes_count(const ens_changes *c);
/* Borrowed from c; NULL past the end. */
const ens_change *ens_changes_at(const ens_changes *c, size_t i);
void ens_changes_free(ens_changes *c); /* accepts NULL */

/* A short constant name of a kind: "added", "removed", "set", "moved",
 * "renamed" (the JSON schema's names). */
const char *ens_change_kind_name(ens_change_kind kind);

/* Writes the changes for people, one line per group ("glyph a: contour 2
 * point 5 moved (10, 0); width 500 → 510"; "rect#logo: fill #000 → #f00;
 * moved above g#text"), in the phrasing of doc_kind ("sfd", "svg", other).
 * Nothing for an empty list. 0, or ENS_EIO when out fails. */
int ens_changes_write_text(const ens_changes *c, const char *doc_kind, FILE *out);

/* Writes the changes as one JSON object (docs/vcs.md has the schema):
 * {"version":1,"kind":DOC_KIND,"count":N,"changes":[{"change":"set",
 * "object":KIND,"path":...,"group":...,"old_id":"s:c","new_id":"s:c",
 * "key":...,"old":VALUE,"new":VALUE,...}]}, followed by a newline.
 * 0, or ENS_EIO when out fails. */
int ens_changes_write_json(const ens_changes *c, const char *doc_kind, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
