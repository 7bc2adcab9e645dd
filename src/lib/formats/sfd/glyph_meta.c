/* A glyph's identity in the font: rename it, set its code point, add a new
 * glyph and remove one. Each builds one transaction (ensemble/glyph.h). */
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "glyph_int.h"

#define S_MAX_NAME 255

static int s_is_glyph(const ens_obj *o) { return strcmp(ens_obj_kind(o), ENS_SFD_GLYPH) == 0; }

/* FontForge writes any name (quoting odd ones in UTF-7), but a name must
 * be a name: not empty, not absurdly long, and without blanks or control
 * characters, since lookups and classes list names separated by blanks. */
static int s_check_name(const char *name) {
  size_t n = name ? strlen(name) : 0;
  if (n == 0) return ens__error(ENS_EINVAL, "a glyph name cannot be empty");
  if (n > S_MAX_NAME) return ens__error(ENS_EINVAL, "a glyph name is at most %d bytes", S_MAX_NAME);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)name[i] <= 0x20 || name[i] == 0x7f)
      return ens__error(ENS_EINVAL, "a glyph name cannot hold blanks or control characters");
  return 0;
}

/* Another glyph than `self` with this code point, or NULL. */
static const ens_obj *s_holder_of(const ens_doc *doc, int64_t unicode, const ens_obj *self) {
  const ens_obj *root = ens_doc_root(doc);
  size_t n = ens_obj_child_count(root);
  for (size_t i = 0; i < n; i++) {
    const ens_obj *g = ens_obj_child(root, i);
    if (g != self && s_is_glyph(g) && ens__glyph_int(g, "unicode", -1) == unicode) return g;
  }
  return NULL;
}

static int s_check_unicode(const ens_doc *doc, int64_t unicode, const ens_obj *self) {
  if (unicode < -1 || unicode > 0x10FFFF)
    return ens__error(ENS_EINVAL, "code point %lld is not Unicode (0..0x10FFFF, or -1 for none)", (long long)unicode);
  const ens_obj *other = unicode >= 0 ? s_holder_of(doc, unicode, self) : NULL;
  if (other) {
    ens_value v;
    ens_obj_get(other, "name", &v);
    return ens__error(ENS_EEXISTS, "glyph \"%.*s\" already has U+%04llX", (int)v.u.s.len, v.u.s.ptr,
                      (unsigned long long)unicode);
  }
  return 0;
}

static int s_done(int rc, ens_txn *txn, ens_txn **out) {
  if (rc) {
    ens_txn_free(txn);
    return rc;
  }
  *out = txn;
  return 0;
}

int ens_glyph_rename(ens_doc *doc, const char *glyph, const char *new_name, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_rename needs an output");
  *out = NULL;
  const ens_obj *g;
  int rc = ens__glyph_get(doc, glyph, &g);
  if (rc) return rc;
  if ((rc = s_check_name(new_name))) return rc;
  if (strcmp(glyph, new_name) != 0 && ens_glyph_find(doc, new_name))
    return ens__error(ENS_EEXISTS, "the font already has a glyph named \"%s\"", new_name);
  ens_txn *txn;
  if ((rc = ens__glyph_txn("Rename glyph", &txn))) return rc;
  if (strcmp(glyph, new_name) != 0) {
    ens_value f;
    rc = ens_txn_set(txn, ens_obj_id(g), "name", ens_str(new_name));
    if (!rc) rc = ens__glyph_names_fix(doc, glyph, new_name, txn);
    /* in an SFDir the file is named after the glyph: without its old name
     * the writer names it anew, FontForge's way, and removes the old file */
    if (!rc && ens_obj_get(g, "~file", &f) == 0) rc = ens_txn_set(txn, ens_obj_id(g), "~file", ens_nil());
  }
  return s_done(rc, txn, out);
}

int ens_glyph_set_unicode(ens_doc *doc, const char *glyph, int64_t unicode, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_set_unicode needs an output");
  *out = NULL;
  const ens_obj *g;
  int rc = ens__glyph_get(doc, glyph, &g);
  if (rc) return rc;
  if ((rc = s_check_unicode(doc, unicode, g))) return rc;
  ens_txn *txn;
  if ((rc = ens__glyph_txn("Set unicode", &txn))) return rc;
  if (ens__glyph_int(g, "unicode", -2) != unicode) rc = ens_txn_set(txn, ens_obj_id(g), "unicode", ens_int(unicode));
  return s_done(rc, txn, out);
}

/* The encoding slot of a new glyph: its code point in a Unicode-encoded
 * font when no glyph sits there, else the first slot after all others
 * (and, in a Unicode encoding, beyond the code points, where FontForge
 * puts unencoded glyphs). */
static int64_t s_new_slot(const ens_doc *doc, int64_t unicode) {
  const ens_obj *root = ens_doc_root(doc);
  ens_value v;
  int64_t base = 0;
  int uni = 0;
  if (ens_obj_get(root, "Encoding", &v) == 0 && v.type == ENS_STR) {
    if (v.u.s.len >= 11 && memcmp(v.u.s.ptr, "UnicodeFull", 11) == 0) uni = 1, base = 0x110000;
    else if (v.u.s.len >= 7 && memcmp(v.u.s.ptr, "Unicode", 7) == 0) uni = 1, base = 0x10000;
    else if (v.u.s.len >= 10 && memcmp(v.u.s.ptr, "ISO10646-1", 10) == 0) uni = 1, base = 0x10000;
  }
  int taken = 0;
  int64_t max = -1;
  size_t n = ens_obj_child_count(root);
  for (size_t i = 0; i < n; i++) {
    const ens_obj *g = ens_obj_child(root, i);
    if (!s_is_glyph(g)) continue;
    int64_t e = ens__glyph_int(g, "encoding", -1);
    if (e > max) max = e;
    if (e == unicode) taken = 1;
  }
  if (uni && unicode >= 0 && unicode < base && !taken) return unicode;
  return max + 1 > base ? max + 1 : base;
}

int ens_glyph_add(ens_doc *doc, const char *name, int64_t unicode, int width, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_add needs an output");
  *out = NULL;
  if (!doc || strcmp(ens_doc_kind(doc), ENS_SFD_KIND) != 0)
    return ens__error(ENS_EINVAL, "glyphs are added to fonts read from SFD");
  int rc = s_check_name(name);
  if (rc) return rc;
  if (ens_glyph_find(doc, name)) return ens__error(ENS_EEXISTS, "the font already has a glyph named \"%s\"", name);
  if ((rc = s_check_unicode(doc, unicode, NULL))) return rc;
  if (width < -32768 || width > 32767)
    return ens__error(ENS_EINVAL, "width %d is beyond what FontForge keeps (-32768..32767)", width);
  const ens_obj *root = ens_doc_root(doc);
  size_t n = ens_obj_child_count(root), slot = 0;
  int64_t max_gid = -1;
  int gids = 0;
  for (size_t i = 0; i < n; i++) {
    const ens_obj *g = ens_obj_child(root, i);
    if (!s_is_glyph(g)) continue;
    slot = i + 1;
    int64_t gid = ens__glyph_int(g, "gid", -2);
    if (gid != -2) gids = 1;
    if (gid > max_gid) max_gid = gid;
  }
  ens_txn *txn = NULL;
  char *pos = NULL;
  ens_id gid_obj, lid;
  if ((rc = ens__glyph_txn("Add glyph", &txn))) goto done;
  /* the first glyph of a font: EndChars and what follows go after it */
  if ((rc = ens__glyph_open_for_children(txn, root, "EndChars"))) goto done;
  if ((rc = ens_doc_pos_at(doc, ENS_ROOT_ID, slot, &pos))) goto done;
  if ((rc = ens__glyph_new_id(doc, &gid_obj)) || (rc = ens__glyph_new_id(doc, &lid))) goto done;
  ens_node *g = ens_txn_insert(txn, ENS_ROOT_ID, pos, gid_obj, ENS_SFD_GLYPH);
  ens_node *l = g ? ens_node_add_child(g, "V", lid, ENS_SFD_LAYER) : NULL;
  /* a number after every other: a glyph read has one, said by its
   * Encoding line or given by its place (the writer says it only where
   * the place does not); "W": FontForge drops an empty glyph without it */
  (void)gids;
  if (!l || ens_node_set(g, "name", ens_str(name)) || ens_node_set(g, "encoding", ens_int(s_new_slot(doc, unicode))) ||
      ens_node_set(g, "unicode", ens_int(unicode)) || ens_node_set(g, "gid", ens_int(max_gid + 1)) ||
      ens_node_set(g, "width", ens_int(width)) || ens_node_set(g, "flags", ens_str("W")) ||
      ens_node_set(l, "index", ens_int(1)))
    rc = ens__error(ENS_ENOMEM, "out of memory adding a glyph");
done:
  ens_free(pos);
  return s_done(rc, txn, out);
}

/* Objects of kind `kind` whose `glyph` reference is target: the first is
 * noted, and with a transaction each (outside the target itself) is
 * deleted. */
typedef struct {
  ens_id target;
  const char *kind;
  const ens_obj *hit; /* first one found */
  ens_txn *txn;       /* when set: delete each */
  int rc;
} s_scan;

static int s_scan_fn(const ens_obj *o, size_t depth, void *user) {
  s_scan *s = user;
  (void)depth;
  if (strcmp(ens_obj_kind(o), s->kind) != 0 || ens__glyph_target(o) != s->target) return 0;
  if (s->txn && ens_obj_parent(o) && ens_obj_id(ens_obj_parent(o)) == s->target) return 0; /* goes with the glyph */
  if (!s->hit) s->hit = o;
  if (!s->txn) return 1;
  s->rc = ens_txn_delete(s->txn, ens_obj_id(o));
  return s->rc;
}

int ens_glyph_remove(ens_doc *doc, const char *glyph, ens_txn **out) {
  if (!out) return ens__error(ENS_EINVAL, "ens_glyph_remove needs an output");
  *out = NULL;
  const ens_obj *g;
  int rc = ens__glyph_get(doc, glyph, &g);
  if (rc) return rc;
  s_scan refs = {ens_obj_id(g), ENS_SFD_REF, NULL, NULL, 0};
  ens_obj_walk(ens_doc_root(doc), s_scan_fn, &refs);
  if (refs.hit) {
    const ens_obj *user = refs.hit;
    while (user && !s_is_glyph(user)) user = ens_obj_parent(user);
    ens_value v = ens_nil();
    if (user) ens_obj_get(user, "name", &v);
    return ens__error(ENS_EINVAL,
                      "glyph \"%.*s\" uses \"%s\" as a reference: unlink or remove that reference before removing it",
                      v.type == ENS_STR ? (int)v.u.s.len : 1, v.type == ENS_STR ? v.u.s.ptr : "?", glyph);
  }
  ens_txn *txn;
  if ((rc = ens__glyph_txn("Remove glyph", &txn))) return rc;
  s_scan kerns = {ens_obj_id(g), ENS_SFD_KERN, NULL, txn, 0};
  ens_obj_walk(ens_doc_root(doc), s_scan_fn, &kerns);
  rc = kerns.rc;
  if (!rc) rc = ens_txn_delete(txn, ens_obj_id(g));
  if (!rc) rc = ens__glyph_names_fix(doc, glyph, NULL, txn);
  return s_done(rc, txn, out);
}
