/* Loading and saving a session's document by file name (see docfile.h). */
#include "docfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DOC_MAX_BYTES ((size_t)1 << 30)

static int s_ends_with(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && strcmp(path + n - e, ext) == 0;
}

/* an SFDir is a directory (font.props and one .glyph file per glyph) */
static int s_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int s_is_sfd(const char *path) { return s_ends_with(path, ".sfd") || s_ends_with(path, ".sfdir") || s_is_dir(path); }
static int s_is_svg(const char *path) { return s_ends_with(path, ".svg"); }
static int s_is_lottie(const char *path) {
  return s_ends_with(path, ".json") || s_ends_with(path, ".tgs") || s_ends_with(path, ".lottie");
}
static int s_lottie_as(const char *path) {
  return s_ends_with(path, ".tgs") ? ENS_LOTTIE_AS_TGS : s_ends_with(path, ".lottie") ? ENS_LOTTIE_AS_DOTLOTTIE : ENS_LOTTIE_AS_JSON;
}

int cli_doc_store_at(const char *path, char *store, size_t store_size, uint64_t *seq) {
  struct stat st;
  if (stat(path, &st) == 0) return 0; /* a real file wins */
  const char *at = strrchr(path, '@');
  if (!at || at == path || !at[1] || (size_t)(at - path) >= store_size) return 0;
  uint64_t v = 0;
  for (const char *p = at + 1; *p; p++) {
    if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10) return 0;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  memcpy(store, path, (size_t)(at - path));
  store[at - path] = 0;
  *seq = v;
  return 1;
}

/* STORE@SEQ: the document of the store after seq. */
static int s_load_store(const char *path, const char *store, uint64_t seq, ens_doc **out, char *err,
                        size_t err_size) {
  struct stat st;
  if (stat(store, &st) != 0) {
    snprintf(err, err_size, "%s: no such file, nor a store %s to read seq %llu of (%s)", path, store,
             (unsigned long long)seq, strerror(errno));
    return -1;
  }
  ens_history *h;
  if (ens_history_open(store, &h)) {
    snprintf(err, err_size, "%s: %s", path, ens_error_last());
    return -1;
  }
  int rc = ens_history_doc_at(h, seq, out);
  if (rc) snprintf(err, err_size, "%s: %s", path, ens_error_last());
  ens_history_free(h);
  return rc ? -1 : 0;
}

int cli_doc_load(const char *path, ens_doc **out, char *err, size_t err_size) {
  *out = NULL;
  char store[4096];
  uint64_t seq;
  if (cli_doc_store_at(path, store, sizeof store, &seq)) return s_load_store(path, store, seq, out, err, err_size);
  if (s_is_sfd(path) || s_is_svg(path) || s_is_lottie(path)) {
    if ((s_is_sfd(path)   ? ens_sfd_read_path(path, out)
         : s_is_svg(path) ? ens_svg_read_path(path, out)
                          : ens_lottie_read_path(path, out)) == 0)
      return 0;
    snprintf(err, err_size, "%s: %s", path, ens_error_last());
    return -1;
  }
  char *data;
  size_t len;
  if (cli_read_file(path, DOC_MAX_BYTES, &data, &len, err, err_size)) return -1;
  int rc = ens_snapshot_decode(data, len, out);
  free(data);
  if (rc) {
    snprintf(err, err_size, "%s: not a snapshot: %s", path, ens_error_last());
    return -1;
  }
  /* a font or drawing in a snapshot: edits meet its format's rules */
  if (ens_format_attach(*out)) {
    snprintf(err, err_size, "%s: %s", path, ens_error_last());
    ens_doc_free(*out);
    *out = NULL;
    return -1;
  }
  return 0;
}

int cli_doc_parse(const char *path, const void *data, size_t len, ens_doc **out, char *err, size_t err_size) {
  *out = NULL;
  int rc = s_is_sfd(path)   ? ens_sfd_read(data, len, out)
           : s_is_svg(path) ? ens_svg_read(data, len, out)
           : s_is_lottie(path) ? ens_lottie_read(data, len, out)
                            : ens_snapshot_decode(data, len, out);
  if (rc) {
    snprintf(err, err_size, "%s: %s%s", path, s_is_sfd(path) || s_is_svg(path) || s_is_lottie(path) ? "" : "not a snapshot: ",
             ens_error_last());
    return -1;
  }
  return 0;
}

int cli_doc_encode(const ens_doc *doc, const char *path, unsigned char **bytes, size_t *len, char *err,
                   size_t err_size) {
  int rc = s_is_sfd(path)   ? ens_sfd_write(doc, bytes, len)
           : s_is_svg(path) ? ens_svg_write(doc, bytes, len)
           : s_is_lottie(path) ? ens_lottie_write_as(doc, s_lottie_as(path), bytes, len)
                            : ens_snapshot_encode(doc, bytes, len);
  if (rc) {
    snprintf(err, err_size, "%s: %s", path, ens_error_last());
    return -1;
  }
  return 0;
}

ens_identity_fn cli_doc_kind_identity(const char *doc_kind) {
  if (!doc_kind) return NULL;
  return ens_format_identity(doc_kind);
}

ens_identity_fn cli_doc_identity(const char *path) {
  char store[4096];
  uint64_t seq;
  if (cli_doc_store_at(path, store, sizeof store, &seq)) {
    /* the format of the session's document, which its store names */
    ens_history *h;
    if (ens_history_open(store, &h)) return NULL;
    ens_identity_fn fn = cli_doc_kind_identity(ens_history_doc_kind(h));
    ens_history_free(h);
    return fn;
  }
  return s_is_sfd(path) ? ens_sfd_identity : s_is_svg(path) ? ens_svg_identity : s_is_lottie(path) ? ens_lottie_identity : NULL;
}

int cli_doc_save(const ens_doc *doc, const char *path, char *err, size_t err_size) {
  unsigned char *bytes;
  size_t len;
  if (cli_doc_encode(doc, path, &bytes, &len, err, err_size)) return -1;
  int rc = cli_write_atomic(path, bytes, len, err, err_size);
  ens_free(bytes);
  return rc;
}
