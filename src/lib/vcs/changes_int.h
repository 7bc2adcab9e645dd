/* Private to the semantic diff (changes.c computes the list,
 * changes_write.c writes it for people and tools). */
#ifndef ENS_VCS_CHANGES_INT_H
#define ENS_VCS_CHANGES_INT_H

#include "../model/doc.h"
#include "../util/idtab.h"
#include "ensemble/changes.h"

typedef struct {
  ens_change c; /* first: ens_changes_at hands out its address */
  /* the paths of the objects the old and new values name, for references */
  const char *old_ref, *new_ref;
  /* how a person names the group: a glyph's path, an element's last step */
  const char *group_label;
  int blank;   /* a text node of blanks only (SVG layout) */
  int reorder; /* MOVED among its siblings, not to another parent */
} ens__change_rec;

struct ens_changes {
  ens__change_rec *recs;
  size_t n, cap;
  char **strings; /* owned */
  size_t nstrings, capstrings;
};

typedef ens__idtab s_map; /* id -> const ens_obj *, as a uintptr_t */

typedef struct {
  const ens_doc *old, *new;
  ens_changes_opts opts;
  int svg;
  s_map n2o, o2n; /* paired objects: new id -> old object, old id -> new object */
  s_map rekeyed;  /* new ids of pairs made by name or content, not by equal keys */
  ens_changes *c;
} s_ctx;

const ens_obj *ens__changes_map_get(const s_map *m, ens_id id);

#endif
