/* The public Lottie functions (ensemble/lottie.h): read, write, files and
 * identity keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../util/error.h"
#include "../../util/file.h"
#include "ensemble/format.h"
#include "lottie_int.h"

int ens_lottie_read(const void *data, size_t len, ens_doc **out) {
  if (!out || (!data && len)) return ens__error(ENS_EINVAL, "ens_lottie_read needs data and an output");
  *out = NULL;
  if (len > ENS_LOTTIE_MAX_FILE) return ens__error(ENS_ELIMIT, "the file is larger than %zu bytes", ENS_LOTTIE_MAX_FILE);
  char *inflated = NULL, entry[600];
  const void *archive = data;
  size_t archive_len = len;
  int gz = ens__lj_is_gzip(data, len), zip = !gz && ens__lj_is_zip(data, len), rc;
  if (gz && (rc = ens__lj_gunzip(data, len, &inflated, &len))) return rc;
  if (zip && (rc = ens__lj_unzip(data, len, &inflated, &len, entry, sizeof entry))) return rc;
  if (gz || zip) data = inflated;
  ens_doc *doc = ens_doc_new(ENS_LOTTIE_KIND, 0);
  if (!doc) {
    free(inflated);
    return ENS_ENOMEM;
  }
  rc = ens__lj_build(doc, data ? data : "", len);
  free(inflated);
  if (!rc && (gz || zip)) {
    const char *k = ens__atom(doc, ENS__LJ_CONTAINER, strlen(ENS__LJ_CONTAINER));
    ens_value v = ens_str(gz ? "gzip" : "zip");
    rc = k ? ens__obj_set_prop(doc, doc->root, k, &v, NULL) : ens__error(ENS_ENOMEM, "out of memory reading Lottie");
  }
  if (!rc && zip) {
    const char *kz = ens__atom(doc, ENS__LJ_ZIP, strlen(ENS__LJ_ZIP));
    const char *ke = ens__atom(doc, ENS__LJ_ENTRY, strlen(ENS__LJ_ENTRY));
    ens_value vz = ens_bytes(archive, archive_len), ve = ens_str(entry);
    rc = kz && ke ? ens__obj_set_prop(doc, doc->root, kz, &vz, NULL) : ens__error(ENS_ENOMEM, "out of memory reading Lottie");
    if (!rc) rc = ens__obj_set_prop(doc, doc->root, ke, &ve, NULL);
  }
  if (!rc) {
    ens__doc_mark_as_read(doc);
    rc = ens_format_attach(doc);
  }
  if (rc) ens_doc_free(doc);
  else *out = doc;
  return rc;
}

int ens_lottie_read_path(const char *path, ens_doc **out) {
  if (!path || !out) return ens__error(ENS_EINVAL, "ens_lottie_read_path needs a path and an output");
  *out = NULL;
  char *data;
  size_t len;
  int rc = ens__file_read_all(path, ENS_LOTTIE_MAX_FILE, &data, &len);
  if (rc) return rc;
  rc = ens_lottie_read(data, len, out);
  free(data);
  if (rc) ens__error_prefix(rc, "%s: ", path);
  return rc;
}

int ens_lottie_write(const ens_doc *doc, unsigned char **out, size_t *out_len) {
  return ens_lottie_write_as(doc, ENS_LOTTIE_AS_READ, out, out_len);
}

int ens_lottie_write_as(const ens_doc *doc, int container, unsigned char **out, size_t *out_len) {
  if (!doc || !out) return ens__error(ENS_EINVAL, "ens_lottie_write needs a document and an output");
  *out = NULL;
  if (out_len) *out_len = 0;
  ens_buf b = ENS_BUF_INIT;
  int rc = ens__lj_write_doc(doc, &b);
  if (rc) {
    ens__buf_free(&b);
    return rc;
  }
  size_t n;
  unsigned char *bytes = ens__buf_detach(&b, &n);
  if (!bytes) return ens__error(ENS_ENOMEM, "out of memory writing Lottie");
  const char *k = ens__atom_find(doc, ENS__LJ_CONTAINER, strlen(ENS__LJ_CONTAINER));
  const ens__prop *p = k ? ens__obj_find_prop(doc->root, k) : NULL;
  int kept = p && p->type == ENS_STR ? (p->len == 3 && memcmp(p->u.s, "zip", 3) == 0 ? ENS_LOTTIE_AS_DOTLOTTIE
                                                                                    : ENS_LOTTIE_AS_TGS)
                                      : ENS_LOTTIE_AS_JSON;
  int gzip = container == ENS_LOTTIE_AS_READ ? kept : container;
  if (gzip == ENS_LOTTIE_AS_DOTLOTTIE) {
    const char *kz = ens__atom_find(doc, ENS__LJ_ZIP, strlen(ENS__LJ_ZIP));
    const char *ke = ens__atom_find(doc, ENS__LJ_ENTRY, strlen(ENS__LJ_ENTRY));
    const ens__prop *z = kz ? ens__obj_find_prop(doc->root, kz) : NULL, *e = ke ? ens__obj_find_prop(doc->root, ke) : NULL;
    if (!z || z->type != ENS_BYTES || !e || e->type != ENS_STR) {
      ens_free(bytes);
      return ens__error(ENS_EFORMAT, "this animation was not read from a .lottie: there is no archive to write it into");
    }
    unsigned char *zb;
    size_t zn;
    rc = ens__lj_rezip(z->u.s, z->len, e->u.s, bytes, n, &zb, &zn);
    ens_free(bytes);
    if (rc) return rc;
    bytes = zb;
    n = zn;
  } else if (gzip == ENS_LOTTIE_AS_TGS) {
    unsigned char *gz;
    size_t gn;
    rc = ens__lj_gzip(bytes, n, &gz, &gn);
    ens_free(bytes);
    if (rc) return rc;
    bytes = gz;
    n = gn;
  }
  *out = bytes;
  if (out_len) *out_len = n;
  return 0;
}

int ens_lottie_write_path(const ens_doc *doc, const char *path) {
  if (!path) return ens__error(ENS_EINVAL, "ens_lottie_write_path needs a path");
  unsigned char *bytes;
  size_t n, pl = strlen(path);
  int as = pl >= 4 && strcasecmp(path + pl - 4, ".tgs") == 0      ? ENS_LOTTIE_AS_TGS
           : pl >= 5 && strcasecmp(path + pl - 5, ".json") == 0   ? ENS_LOTTIE_AS_JSON
           : pl >= 7 && strcasecmp(path + pl - 7, ".lottie") == 0 ? ENS_LOTTIE_AS_DOTLOTTIE
                                                                  : ENS_LOTTIE_AS_READ;
  int rc = ens_lottie_write_as(doc, as, &bytes, &n);
  if (rc) return rc;
  ens__file_clean_temps(path);
  rc = ens__file_write_atomic(path, bytes, n);
  ens_free(bytes);
  return rc;
}

/* --- identity keys -------------------------------------------------------------- */

static int s_num(const ens_obj *obj, const char *key, char *buf, size_t size) {
  ens_value v;
  if (ens_obj_get(obj, key, &v) != 0) return 0;
  if (v.type == ENS_INT) return snprintf(buf, size, "%lld", (long long)v.u.i) > 0;
  if (v.type == ENS_REAL) return snprintf(buf, size, "%.17g", v.u.r) > 0;
  if (v.type == ENS_STR) return snprintf(buf, size, "\"%.*s\"", (int)(v.u.s.len > 4000 ? 4000 : v.u.s.len), v.u.s.ptr) > 0;
  return 0;
}

int ens_lottie_identity(const ens_obj *obj, char *key, size_t key_size, void *user) {
  (void)user;
  const ens_obj *parent = ens_obj_parent(obj);
  if (!parent || !key_size) return 0;
  ens_value v;
  if (ens_obj_get(obj, ENS_LOTTIE_KEY, &v) == 0 && v.type == ENS_STR) {
    int n = snprintf(key, key_size, ".%.*s", (int)(v.u.s.len > 4000 ? 4000 : v.u.s.len), v.u.s.ptr);
    return n > 0 ? 2 : 0;
  }
  const char *kind = ens_obj_kind(obj);
  char val[4100];
  static const struct {
    const char *kind, *keys[2];
  } names[] = {{ENS_LOTTIE_LAYER, {"ind", "nm"}}, {ENS_LOTTIE_ASSET, {"id", NULL}},
               {ENS_LOTTIE_SHAPE, {"nm", NULL}},  {ENS_LOTTIE_EFFECT, {"nm", NULL}},
               {ENS_LOTTIE_MASK, {"nm", NULL}},   {ENS_LOTTIE_KEYFRAME, {"t", NULL}},
               {ENS_LOTTIE_MARKER, {"cm", "tm"}}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (strcmp(kind, names[i].kind) != 0) continue;
    for (int j = 0; j < 2 && names[i].keys[j]; j++)
      if (s_num(obj, names[i].keys[j], val, sizeof val)) {
        int n = snprintf(key, key_size, "%s %s=%s", kind, names[i].keys[j], val);
        return n > 0 ? 2 : 0;
      }
  }
  int n = snprintf(key, key_size, "%s[%zu]", kind, ens_obj_index(obj));
  return n > 0;
}
