/* dotLottie (.lottie): a zip archive with a manifest and one or more
 * animations beside their images. The reader opens it with libzip, takes
 * the manifest's first animation and keeps the whole archive; the writer
 * gives the archive back as it was while that animation's JSON is
 * unchanged, and otherwise replaces only that entry (docs/lottie.md,
 * "Containers"). */
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "../../util/error.h"
#include "lottie_int.h"

#define S_MAX_MANIFEST ((zip_uint64_t)16 << 20)
#define S_ABSENT 1 /* an entry not in the archive: no error set */


static int s_zerr(const char *what, zip_error_t *ze) {
  int rc = ens__error(ENS_EDECODE, "line 1, column 1: %s: %s", what, zip_error_strerror(ze));
  zip_error_fini(ze);
  return rc;
}

/* The whole entry named name, malloc'd; S_ABSENT when absent. */
static int s_entry(zip_t *za, const char *name, zip_uint64_t max, char **out, size_t *out_len) {
  zip_int64_t idx = zip_name_locate(za, name, 0);
  if (idx < 0) return S_ABSENT;
  zip_stat_t st;
  if (zip_stat_index(za, (zip_uint64_t)idx, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    return ens__error(ENS_EDECODE, "line 1, column 1: the .lottie entry %s has no size", name);
  if (st.size > max) return ens__error(ENS_ELIMIT, "line 1, column 1: the .lottie entry %s is over %llu bytes", name,
                                       (unsigned long long)max);
  char *buf = malloc((size_t)st.size + 1);
  zip_file_t *f = buf ? zip_fopen_index(za, (zip_uint64_t)idx, 0) : NULL;
  if (!f) {
    free(buf);
    return buf ? ens__error(ENS_EDECODE, "line 1, column 1: the .lottie entry %s does not open: %s", name,
                            zip_strerror(za))
               : ens__error(ENS_ENOMEM, "out of memory reading .lottie");
  }
  zip_uint64_t got = 0;
  while (got < st.size) {
    zip_int64_t n = zip_fread(f, buf + got, st.size - got);
    if (n <= 0) break;
    got += (zip_uint64_t)n;
  }
  int bad = got != st.size;
  const char *why = bad ? zip_file_strerror(f) : NULL;
  int rc = bad ? ens__error(ENS_EDECODE, "line 1, column 1: the .lottie entry %s does not read: %s", name, why) : 0;
  zip_fclose(f);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[got] = 0;
  *out = buf;
  *out_len = (size_t)got;
  return 0;
}

/* The id of the manifest's first animation, into id (size bytes). */
static int s_first_id(const char *m, size_t n, char *id, size_t size) {
  ens__lj_nodes nodes = {0};
  int found = 0;
  if (ens__lj_scan(m, n, 0, &nodes) == 0 && nodes.n && nodes.v[0].type == LJ_OBJ) {
    for (uint32_t k = nodes.v[0].first; k != ENS__LJ_NONE && !found; k = nodes.v[k].next) {
      const ens__lj_node *a = &nodes.v[k];
      if (a->type != LJ_ARR || a->key_n != 12 || memcmp(a->key, "\"animations\"", 12) != 0 || a->first == ENS__LJ_NONE)
        continue;
      const ens__lj_node *first = &nodes.v[a->first];
      if (first->type != LJ_OBJ) break;
      for (uint32_t j = first->first; j != ENS__LJ_NONE; j = nodes.v[j].next) {
        const ens__lj_node *f = &nodes.v[j];
        if (f->type != LJ_STR || f->key_n != 4 || memcmp(f->key, "\"id\"", 4) != 0) continue;
        ens_buf b = ENS_BUF_INIT;
        if (ens__lj_unescape(f->s, f->n, &b) == 0 && b.len && b.len < size && !memchr(b.data, 0, b.len) &&
            !memchr(b.data, '/', b.len)) {
          memcpy(id, b.data, b.len);
          id[b.len] = 0;
          found = 1;
        }
        ens__buf_free(&b);
        break;
      }
    }
  }
  free(nodes.v);
  ens__error_clear();
  return found;
}

int ens__lj_unzip(const void *data, size_t len, char **json, size_t *json_len, char *entry, size_t entry_size) {
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *src = zip_source_buffer_create(data, len, 0, &ze);
  if (!src) return s_zerr("a .lottie (zip) archive that libzip cannot read", &ze);
  zip_t *za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
  if (!za) {
    zip_source_free(src);
    return s_zerr("a .lottie (zip) archive that libzip cannot open", &ze);
  }
  zip_error_fini(&ze);
  char *manifest = NULL, id[512];
  size_t mn = 0;
  int rc = s_entry(za, "manifest.json", S_MAX_MANIFEST, &manifest, &mn);
  if (rc == S_ABSENT) rc = ens__error(ENS_EFORMAT, "line 1, column 1: a zip archive without manifest.json: not a .lottie");
  if (!rc && !s_first_id(manifest, mn, id, sizeof id))
    rc = ens__error(ENS_EFORMAT, "line 1, column 1: the .lottie manifest names no animation (animations[0].id)");
  free(manifest);
  /* dotLottie 1 keeps animations in animations/, 2 in a/ */
  static const char *const dirs[] = {"animations/", "a/"};
  for (size_t i = 0; !rc && i < 2; i++) {
    snprintf(entry, entry_size, "%s%s.json", dirs[i], id);
    rc = s_entry(za, entry, ENS_LOTTIE_MAX_FILE, json, json_len);
    if (rc == S_ABSENT && i == 0) rc = 0;
    else if (rc == S_ABSENT) rc = ens__error(ENS_EFORMAT, "line 1, column 1: the .lottie has no animations/%s.json", id);
    else break;
  }
  zip_close(za); /* read only: discards, and frees src */
  return rc;
}

int ens__lj_rezip(const char *zip, size_t zn, const char *entry, const unsigned char *json, size_t jn,
                  unsigned char **out, size_t *out_len) {
  /* unchanged: the archive as it came, byte for byte */
  char *old = NULL;
  size_t on = 0;
  {
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(zip, zn, 0, &ze);
    zip_t *za = src ? zip_open_from_source(src, ZIP_RDONLY, &ze) : NULL;
    if (!za) {
      if (src) zip_source_free(src);
      return s_zerr("the kept .lottie archive does not open", &ze);
    }
    zip_error_fini(&ze);
    int rc = s_entry(za, entry, ENS_LOTTIE_MAX_FILE, &old, &on);
    zip_close(za);
    if (rc && rc != S_ABSENT) return rc;
  }
  if (old && on == jn && memcmp(old, json, jn) == 0) {
    free(old);
    unsigned char *copy = malloc(zn + 1);
    if (!copy) return ens__error(ENS_ENOMEM, "out of memory writing .lottie");
    memcpy(copy, zip, zn);
    copy[zn] = 0;
    *out = copy;
    *out_len = zn;
    return 0;
  }
  free(old);
  /* the entry replaced, everything else as libzip copies it */
  zip_error_t ze;
  zip_error_init(&ze);
  void *copy = malloc(zn ? zn : 1);
  if (!copy) return ens__error(ENS_ENOMEM, "out of memory writing .lottie");
  memcpy(copy, zip, zn);
  zip_source_t *src = zip_source_buffer_create(copy, zn, 1, &ze);
  if (!src) {
    free(copy);
    return s_zerr("writing .lottie", &ze);
  }
  zip_source_keep(src);
  zip_t *za = zip_open_from_source(src, 0, &ze);
  if (!za) {
    zip_source_free(src);
    zip_source_free(src);
    return s_zerr("the kept .lottie archive does not open", &ze);
  }
  zip_error_fini(&ze);
  int rc = 0;
  zip_source_t *fs = zip_source_buffer(za, json, jn, 0);
  zip_int64_t idx = zip_name_locate(za, entry, 0);
  if (!fs || (idx >= 0 ? zip_file_replace(za, (zip_uint64_t)idx, fs, 0) : zip_file_add(za, entry, fs, 0)) < 0) {
    if (fs) zip_source_free(fs);
    rc = ens__error(ENS_EIO, "writing .lottie: %s", zip_strerror(za));
    zip_discard(za);
  } else if (zip_close(za) != 0) {
    rc = ens__error(ENS_EIO, "writing .lottie: %s", zip_strerror(za));
    zip_discard(za);
  }
  if (!rc) {
    zip_stat_t st;
    unsigned char *buf = NULL;
    if (zip_source_open(src) != 0 || zip_source_stat(src, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
      rc = ens__error(ENS_EIO, "writing .lottie: the new archive does not read back");
    } else if (!(buf = malloc((size_t)st.size + 1))) {
      rc = ens__error(ENS_ENOMEM, "out of memory writing .lottie");
    } else if (zip_source_read(src, buf, st.size) != (zip_int64_t)st.size) {
      rc = ens__error(ENS_EIO, "writing .lottie: the new archive does not read back");
    }
    zip_source_close(src);
    if (rc) {
      free(buf);
    } else {
      buf[st.size] = 0;
      *out = buf;
      *out_len = (size_t)st.size;
    }
  }
  zip_source_free(src);
  return rc;
}
