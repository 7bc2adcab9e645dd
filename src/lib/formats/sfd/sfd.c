/* The public SFD functions (ensemble/sfd.h): read from memory, write to
 * memory, identity keys for document diff, and small questions about
 * contours. Files and directories are in dir.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "ensemble/format.h"
#include "sfd_int.h"

int ens_sfd_read(const void *data, size_t len, ens_doc **out) {
  if (!out || (!data && len)) return ens__error(ENS_EINVAL, "ens_sfd_read needs data and an output");
  *out = NULL;
  ens_doc *doc = ens_doc_new(ENS_SFD_KIND, 0);
  if (!doc) return ENS_ENOMEM;
  ens__sfd_reader *r = ens__sfd_reader_new(doc);
  int rc = r ? 0 : ENS_ENOMEM;
  if (!rc) rc = ens__sfd_read_file_text(r, data ? data : "", len);
  if (!rc) rc = ens__sfd_reader_finish(r);
  if (!rc) rc = ens_format_attach(doc); /* its edits are judged by the format's rules */
  ens__sfd_reader_free(r);
  if (rc) {
    ens_doc_free(doc);
    return rc;
  }
  *out = doc;
  return 0;
}

int ens_sfd_is_dir(const ens_doc *doc) {
  const char *k = doc ? ens__atom_find(doc, "~dir", 4) : NULL;
  const ens__prop *p = k ? ens__obj_find_prop(doc->root, k) : NULL;
  return p && p->type == ENS_BOOL && p->u.b;
}

int ens_sfd_write(const ens_doc *doc, unsigned char **out, size_t *out_len) {
  if (!doc || !out) return ens__error(ENS_EINVAL, "ens_sfd_write needs a document and an output");
  *out = NULL;
  if (out_len) *out_len = 0;
  if (ens_sfd_is_dir(doc))
    return ens__error(ENS_EINVAL, "this font was read from an SFDir: write it to a directory (ens_sfd_write_path)");
  ens_buf b = ENS_BUF_INIT;
  int rc = ens__sfd_write_doc(doc, &b);
  if (rc) {
    ens__buf_free(&b);
    return rc;
  }
  size_t n;
  *out = ens__buf_detach(&b, &n);
  if (!*out) return ens__error(ENS_ENOMEM, "out of memory writing SFD");
  if (out_len) *out_len = n;
  return 0;
}

/* --- identity keys ------------------------------------------------------------------ */

static int s_put(char *key, size_t size, const char *s, size_t n) {
  if (!size) return 0;
  if (n >= size) n = size - 1;
  memcpy(key, s, n);
  key[n] = '\0';
  return 1;
}

/* Position among the siblings of the same kind: contours and points are
 * known by where they are, since nothing in SFD names them. */
static size_t s_rank(const ens_obj *obj) {
  const ens_obj *parent = ens_obj_parent(obj);
  if (!parent) return 0;
  const char *kind = ens_obj_kind(obj);
  size_t n = ens_obj_child_count(parent), rank = 0;
  if (strcmp(kind, ENS_SFD_POINT) == 0) return ens_obj_index(obj); /* contours hold only points */
  for (size_t i = 0; i < n; i++) {
    const ens_obj *k = ens_obj_child(parent, i);
    if (k == obj) break;
    if (ens_obj_kind(k) == kind || strcmp(ens_obj_kind(k), kind) == 0) rank++;
  }
  return rank;
}

int ens_sfd_identity(const ens_obj *obj, char *key, size_t key_size, void *user) {
  (void)user;
  const char *kind = ens_obj_kind(obj);
  ens_value v;
  char buf[64];
  if (!ens_obj_parent(obj)) return 0;
  if (strcmp(kind, ENS_SFD_GLYPH) == 0) {
    if (ens_obj_get(obj, "name", &v) == 0 && v.type == ENS_STR) return s_put(key, key_size, v.u.s.ptr, v.u.s.len) ? 2 : 0;
    return 0;
  }
  if (strcmp(kind, ENS_SFD_LAYER) == 0) {
    if (ens_obj_get(obj, "index", &v) == 0 && v.type == ENS_INT) {
      int n = snprintf(buf, sizeof buf, "layer %lld", (long long)v.u.i);
      return s_put(key, key_size, buf, (size_t)n) ? 2 : 0;
    }
  } else if (strcmp(kind, ENS_SFD_ANCHOR) == 0) {
    ens_value t;
    if (ens_obj_get(obj, "class", &v) == 0 && v.type == ENS_STR && ens_obj_get(obj, "type", &t) == 0 &&
        t.type == ENS_STR && key_size) {
      int n = snprintf(key, key_size, "%.*s %.*s", (int)v.u.s.len, v.u.s.ptr, (int)t.u.s.len, t.u.s.ptr);
      return n >= 0 ? 2 : 0;
    }
  } else if (strcmp(kind, ENS_SFD_RAW) != 0 && strcmp(kind, ENS_SFD_CONTOUR) != 0 &&
             strcmp(kind, ENS_SFD_POINT) != 0 && strcmp(kind, ENS_SFD_REF) != 0 && strcmp(kind, ENS_SFD_KERN) != 0) {
    return 0;
  }
  int n = snprintf(buf, sizeof buf, "#%zu", s_rank(obj));
  return s_put(key, key_size, buf, (size_t)n);
}

int ens_sfd_contour_closed(const ens_obj *contour) {
  size_t n = ens_obj_child_count(contour);
  if (n < 2) return 0;
  const ens_obj *a = ens_obj_child(contour, 0), *b = ens_obj_child(contour, n - 1);
  ens_value ax, ay, bx, by, f;
  if (ens_obj_get(a, "x", &ax) || ens_obj_get(a, "y", &ay) || ens_obj_get(b, "x", &bx) || ens_obj_get(b, "y", &by))
    return 0;
  if (!ens_value_equal(&ax, &bx) || !ens_value_equal(&ay, &by)) return 0;
  if (ens_obj_get(b, "flags", &f) == 0 && f.type == ENS_INT && (f.u.i & 0x400)) return 0;
  return 1;
}
