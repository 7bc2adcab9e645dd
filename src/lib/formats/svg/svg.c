/* The public SVG functions (ensemble/svg.h): read (libxml2's check, then
 * the encoding, then the model), write, files, identity keys, sniffing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "../../util/file.h"
#include "ensemble/format.h"
#include "svg_int.h"

/* A root property set by hand: the reader's objects are not yet seen by
 * anyone, so no transaction is needed. */
static int s_root_prop(ens_doc *doc, const char *key, ens_value v) {
  const char *k = ens__atom(doc, key, strlen(key));
  if (!k) return ens__error(ENS_ENOMEM, "out of memory reading SVG");
  return ens__obj_set_prop(doc, doc->root, k, &v, NULL);
}

int ens_svg_read(const void *data, size_t len, ens_doc **out) {
  if (!out || (!data && len)) return ens__error(ENS_EINVAL, "ens_svg_read needs data and an output");
  *out = NULL;
  if (len > ENS_SVG_MAX_FILE) return ens__error(ENS_ELIMIT, "the file is larger than %zu bytes", ENS_SVG_MAX_FILE);
  const unsigned char *u = data;
  ens__svg_ents ents;
  int rc = ens__svg_check(data ? data : "", len, &ents);
  if (rc) return rc;
  /* the model holds UTF-8 */
  const char *text = data, *enc = NULL;
  size_t n = len;
  int bom = 0;
  char *conv = NULL, encbuf[64];
  if (n >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf) {
    bom = 1;
    text += 3;
    n -= 3;
  } else if (n >= 2 && ((u[0] == 0xff && u[1] == 0xfe) || (u[0] == 0xfe && u[1] == 0xff))) {
    bom = 1;
    enc = u[0] == 0xff ? "UTF-16LE" : "UTF-16BE";
    text += 2;
    n -= 2;
  } else {
    enc = ens__svg_declared_encoding(text, n, encbuf, sizeof encbuf);
  }
  if (enc) {
    size_t cn;
    if ((rc = ens__svg_iconv(enc, "UTF-8", text, n, &conv, &cn))) goto done;
    /* the writer converts back: only an encoding whose text comes back as
     * the same bytes keeps the file whole (UTF-7, for one, can write the
     * same text in more than one way) */
    char *back = NULL;
    size_t bn = 0;
    int same = ens__svg_iconv("UTF-8", enc, conv, cn, &back, &bn) == 0 && bn == n && memcmp(back, text, n) == 0;
    free(back);
    if (!same) {
      rc = ens__error(ENS_EDECODE, "line 1: text in %s does not convert back to the same bytes, so it could not be "
                                   "written back unchanged; convert the file to UTF-8 first", enc);
      goto done;
    }
    text = conv;
    n = cn;
  }
  /* XML has no NUL character; libxml2 may stop reading at one and accept
   * what came before, which would lose the rest on writing */
  const char *nul = memchr(text, '\0', n);
  if (nul) {
    size_t line = 1;
    for (const char *p = text; p < nul; p++) line += *p == '\n';
    rc = ens__error(ENS_EDECODE, "line %zu: a NUL byte, which XML does not allow", line);
    goto done;
  }
  ens_doc *doc = ens_doc_new(ENS_SVG_KIND, 0);
  if (!doc) {
    rc = ENS_ENOMEM;
    goto done;
  }
  rc = ens__svg_build(doc, text, n, &ents);
  if (!rc && bom) rc = s_root_prop(doc, S_BOM, ens_bool(1));
  if (!rc && enc) rc = s_root_prop(doc, S_ENC, ens_str(enc));
  if (rc) {
    ens_doc_free(doc);
  } else {
    /* the kept texts say what the properties say, until an edit */
    ens__doc_mark_as_read(doc);
    rc = ens_format_attach(doc); /* its edits are judged by the format's rules */
    if (rc) ens_doc_free(doc);
    else *out = doc;
  }
done:
  free(conv);
  ens__svg_ents_free(&ents);
  return rc;
}

int ens_svg_read_path(const char *path, ens_doc **out) {
  if (!path || !out) return ens__error(ENS_EINVAL, "ens_svg_read_path needs a path and an output");
  *out = NULL;
  char *data;
  size_t len;
  int rc = ens__file_read_all(path, ENS_SVG_MAX_FILE, &data, &len);
  if (rc) return rc;
  rc = ens_svg_read(data, len, out);
  free(data);
  if (rc) ens__error_prefix(rc, "%s: ", path);
  return rc;
}

int ens_svg_write(const ens_doc *doc, unsigned char **out, size_t *out_len) {
  if (!doc || !out) return ens__error(ENS_EINVAL, "ens_svg_write needs a document and an output");
  *out = NULL;
  if (out_len) *out_len = 0;
  ens_buf b = ENS_BUF_INIT;
  int rc = ens__svg_write_doc(doc, &b);
  if (rc) {
    ens__buf_free(&b);
    return rc;
  }
  size_t n;
  unsigned char *bytes = ens__buf_detach(&b, &n);
  if (!bytes) return ens__error(ENS_ENOMEM, "out of memory writing SVG");
  const char *k = ens__atom_find(doc, S_ENC, strlen(S_ENC));
  const ens__prop *p = k ? ens__obj_find_prop(doc->root, k) : NULL;
  if (p && p->type == ENS_STR && p->len) {
    char *conv;
    size_t cn;
    /* the UTF-8 mark becomes the encoding's own */
    rc = ens__svg_iconv("UTF-8", p->u.s, (const char *)bytes, n, &conv, &cn);
    ens_free(bytes);
    if (rc) return ens__error_prefix(rc, "writing in %s: ", p->u.s);
    bytes = malloc(cn + 1);
    if (!bytes) {
      free(conv);
      return ens__error(ENS_ENOMEM, "out of memory writing SVG");
    }
    memcpy(bytes, conv, cn);
    bytes[cn] = '\0';
    free(conv);
    n = cn;
  }
  *out = bytes;
  if (out_len) *out_len = n;
  return 0;
}

int ens_svg_write_path(const ens_doc *doc, const char *path) {
  if (!path) return ens__error(ENS_EINVAL, "ens_svg_write_path needs a path");
  unsigned char *bytes;
  size_t n;
  int rc = ens_svg_write(doc, &bytes, &n);
  if (rc) return rc;
  ens__file_clean_temps(path); /* what a killed writer left */
  rc = ens__file_write_atomic(path, bytes, n);
  ens_free(bytes);
  return rc;
}

/* --- identity keys -------------------------------------------------------------- */

/* The id of an element, or NULL. */
static const char *s_id_of(const ens_obj *obj, size_t *len) {
  ens_value v;
  if (ens_obj_kind(obj)[0] == '#' || ens_obj_get(obj, "id", &v) != 0 || v.type != ENS_STR || !v.u.s.len) return NULL;
  *len = v.u.s.len > 4000 ? 4000 : v.u.s.len;
  return v.u.s.ptr;
}

int ens_svg_identity(const ens_obj *obj, char *key, size_t key_size, void *user) {
  (void)user;
  const ens_obj *parent = ens_obj_parent(obj);
  if (!parent || !key_size) return 0;
  const char *kind = ens_obj_kind(obj), *id;
  size_t len;
  if ((id = s_id_of(obj, &len)) != NULL) {
    int n = snprintf(key, key_size, "#%.*s", (int)len, id);
    return n > 0 ? 2 : 0;
  }
  /* the rank among the siblings of its kind since the nearest element
   * before it with an id (kinds are interned per document: siblings of
   * one kind share the pointer), so that inserting an element with the
   * blank text before it shifts no rank beyond the next id */
  size_t rank = 0;
  const char *anchor = NULL;
  for (size_t i = ens_obj_index(obj); i-- > 0;) {
    const ens_obj *k = ens_obj_child(parent, i);
    if ((anchor = s_id_of(k, &len)) != NULL) break;
    if (ens_obj_kind(k) == kind) rank++;
  }
  int w = anchor ? snprintf(key, key_size, "%s[%zu] after #%.*s", kind, rank, (int)len, anchor)
                 : snprintf(key, key_size, "%s[%zu]", kind, rank);
  return w > 0;
}

int ens_svg_sniff(const void *data, size_t len) {
  const unsigned char *p = data, *end = p + len;
  if (!data) return 0;
  if (len >= 2 && ((p[0] == 0xff && p[1] == 0xfe) || (p[0] == 0xfe && p[1] == 0xff))) return 1;
  if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) p += 3;
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p < end && *p == '<';
}
