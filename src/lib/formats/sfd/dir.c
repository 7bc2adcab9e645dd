/* SFD on disk: a .sfd file or an SFDir directory (font.props and one
 * .glyph file per glyph), read whole and written atomically: a temporary
 * file beside the target, flushed, fsync'd and renamed over it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../util/error.h"
#include "../../util/file.h"
#include "ensemble/format.h"
#include "sfd_int.h"

/* --- files -------------------------------------------------------------------------- */

static int s_read_all(const char *path, char **data, size_t *len) {
  *data = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ens__error(ENS_EIO, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  int rc = 0;
  char *buf = NULL;
  if (fstat(fd, &st) != 0) {
    rc = ens__error(ENS_EIO, "cannot stat %s: %s", path, strerror(errno));
    goto done;
  }
  if ((uint64_t)st.st_size > ENS_SFD_MAX_FILE) {
    rc = ens__error(ENS_ELIMIT, "%s is larger than the limit of %zu bytes", path, (size_t)ENS_SFD_MAX_FILE);
    goto done;
  }
  size_t cap = (size_t)st.st_size + 1, n = 0;
  buf = malloc(cap + 1);
  if (!buf) {
    rc = ens__error(ENS_ENOMEM, "out of memory reading %s", path);
    goto done;
  }
  for (;;) { /* the file may still grow: read to the end, within the limit */
    if (n == cap) {
      if (cap > ENS_SFD_MAX_FILE) {
        rc = ens__error(ENS_ELIMIT, "%s is larger than the limit of %zu bytes", path, (size_t)ENS_SFD_MAX_FILE);
        goto done;
      }
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        rc = ens__error(ENS_ENOMEM, "out of memory reading %s", path);
        goto done;
      }
      buf = nb;
      cap *= 2;
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0) {
      if (errno == EINTR) continue;
      rc = ens__error(ENS_EIO, "cannot read %s: %s", path, strerror(errno));
      goto done;
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  buf[n] = '\0';
  *data = buf;
  *len = n;
  buf = NULL;
done:
  free(buf);
  close(fd);
  return rc;
}

static char *s_join(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  char *p = malloc(a + b + 2);
  if (!p) return NULL;
  memcpy(p, dir, a);
  p[a] = '/';
  memcpy(p + a + 1, name, b + 1);
  return p;
}

/* --- SFDir reading -------------------------------------------------------------------- */

typedef struct {
  char *name;
  char *data;
  size_t len;
  int64_t gid; /* INT64_MAX when the file has none */
} s_gfile;

static int s_by_gid(const void *a, const void *b) {
  const s_gfile *x = a, *y = b;
  if (x->gid != y->gid) return x->gid < y->gid ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The glyph number on a file's Encoding: line, so that glyphs come in the
 * order of the single-file form. */
static int64_t s_file_gid(const char *p, size_t n) {
  const char *e = p + n;
  while (p < e) {
    ens__sfd_line ln;
    ens__sfd_line_at(p, e, &ln);
    if (ln.n > 9 && memcmp(ln.s, "Encoding:", 9) == 0) {
      const char *q = ln.s + 9, *qe = ln.s + ln.n;
      int64_t v[3];
      int k = 0;
      while (k < 3) {
        while (q < qe && (*q == ' ' || *q == '\t')) q++;
        int used = ens__sfd_parse_int(q, qe, &v[k]);
        if (used <= 0) break;
        q += used;
        k++;
      }
      return k == 3 && v[2] >= 0 ? v[2] : INT64_MAX;
    }
    p = ln.next;
  }
  return INT64_MAX;
}

static int s_ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

/* A regular file (or a link to one) named name in dir. */
static int s_regular_in(const char *dir, const char *name) {
  char *fp = s_join(dir, name);
  struct stat st;
  int yes = fp && stat(fp, &st) == 0 && S_ISREG(st.st_mode);
  free(fp);
  return yes;
}

static int s_read_dir(const char *path, ens_doc **out) {
  DIR *d = opendir(path);
  if (!d) return ens__error(ENS_EIO, "cannot open directory %s: %s", path, strerror(errno));
  s_gfile *files = NULL;
  size_t nf = 0, cap = 0;
  char *props = NULL, *pp = NULL;
  size_t props_len = 0;
  ens_doc *doc = NULL;
  ens__sfd_reader *r = NULL;
  int rc = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    /* every *.glyph file, as FontForge reads them: it names files after
     * their glyphs, so .notdef and .null are in .notdef.glyph and .null.glyph */
    if (!s_ends_with(de->d_name, ".glyph") || !s_regular_in(path, de->d_name)) continue;
    if (nf == cap) {
      size_t nc = cap ? cap * 2 : 256;
      s_gfile *nfp = realloc(files, nc * sizeof *nfp);
      if (!nfp) {
        rc = ens__error(ENS_ENOMEM, "out of memory reading %s", path);
        goto done;
      }
      files = nfp;
      cap = nc;
    }
    memset(&files[nf], 0, sizeof files[nf]);
    if (!(files[nf].name = strdup(de->d_name))) {
      rc = ens__error(ENS_ENOMEM, "out of memory reading %s", path);
      goto done;
    }
    nf++;
  }
  for (size_t i = 0; i < nf; i++) {
    char *fp = s_join(path, files[i].name);
    if (!fp) {
      rc = ens__error(ENS_ENOMEM, "out of memory reading %s", path);
      goto done;
    }
    rc = s_read_all(fp, &files[i].data, &files[i].len);
    free(fp);
    if (rc) goto done;
    files[i].gid = s_file_gid(files[i].data, files[i].len);
  }
  if (nf) qsort(files, nf, sizeof *files, s_by_gid); /* files is NULL when there are none */
  if (!(pp = s_join(path, "font.props"))) {
    rc = ens__error(ENS_ENOMEM, "out of memory reading %s", path);
    goto done;
  }
  if ((rc = s_read_all(pp, &props, &props_len))) goto done;
  size_t total = props_len;
  for (size_t i = 0; i < nf; i++) total += files[i].len;
  if (!(doc = ens_doc_new(ENS_SFD_KIND, 0)) || !(r = ens__sfd_reader_new(doc)) ||
      (rc = ens__sfd_reader_reserve(r, total))) {
    rc = rc ? rc : ENS_ENOMEM;
    goto done;
  }
  if ((rc = ens__sfd_read_props_text(r, props, props_len, nf))) {
    ens__error_prefix(rc, "font.props: ");
    goto done;
  }
  for (size_t i = 0; i < nf; i++) {
    if ((rc = ens__sfd_read_glyph_text(r, files[i].data, files[i].len, files[i].name))) goto done;
    free(files[i].data);
    files[i].data = NULL;
  }
  rc = ens__sfd_reader_finish(r);
done:
  if (d) closedir(d);
  for (size_t i = 0; i < nf; i++) {
    free(files[i].name);
    free(files[i].data);
  }
  free(files);
  ens__sfd_reader_free(r);
  free(props);
  free(pp);
  if (!rc) rc = ens_format_attach(doc); /* its edits are judged by the format's rules */
  if (rc) ens_doc_free(doc);
  else *out = doc;
  return rc;
}

/* A single-file font read straight into the document that keeps its
 * text (no copy, no second buffer at the peak). 1 when the file grew
 * while being read: the caller reads it the general way. */
static int s_read_file(const char *path, ens_doc **out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ens__error(ENS_EIO, "cannot open %s: %s", path, strerror(errno));
  ens_doc *doc = NULL;
  ens__sfd_reader *r = NULL;
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) != 0) {
    rc = ens__error(ENS_EIO, "cannot stat %s: %s", path, strerror(errno));
    goto done;
  }
  if ((uint64_t)st.st_size > ENS_SFD_MAX_FILE) {
    rc = ens__error(ENS_ELIMIT, "%s is larger than the limit of %zu bytes", path, (size_t)ENS_SFD_MAX_FILE);
    goto done;
  }
  size_t cap = (size_t)st.st_size, n = 0;
  char *text;
  if (!(doc = ens_doc_new(ENS_SFD_KIND, 0)) || !(r = ens__sfd_reader_new(doc)) ||
      (rc = ens__sfd_reader_reserve(r, cap)) || !(text = ens__sfd_reader_text(r, cap))) {
    rc = rc ? rc : ENS_ENOMEM;
    goto done;
  }
  for (;;) {
    char extra;
    ssize_t got = n < cap ? read(fd, text + n, cap - n) : read(fd, &extra, 1);
    if (got < 0) {
      if (errno == EINTR) continue;
      rc = ens__error(ENS_EIO, "cannot read %s: %s", path, strerror(errno));
      goto done;
    }
    if (got == 0) break;
    if (n == cap) { /* longer than it was a moment ago */
      rc = 1;
      goto done;
    }
    n += (size_t)got;
  }
  text[n] = '\0';
  if (!(rc = ens__sfd_read_file_text(r, text, n))) rc = ens__sfd_reader_finish(r);
  if (!rc) rc = ens_format_attach(doc); /* its edits are judged by the format's rules */
done:
  close(fd);
  ens__sfd_reader_free(r);
  if (rc) ens_doc_free(doc);
  else *out = doc;
  return rc;
}

int ens_sfd_read_path(const char *path, ens_doc **out) {
  if (!path || !out) return ens__error(ENS_EINVAL, "ens_sfd_read_path needs a path and an output");
  *out = NULL;
  struct stat st;
  if (stat(path, &st) != 0) return ens__error(ENS_EIO, "cannot open %s: %s", path, strerror(errno));
  if (S_ISDIR(st.st_mode)) return s_read_dir(path, out);
  int rc = s_read_file(path, out);
  if (rc <= 0) return rc;
  char *data;
  size_t len;
  if ((rc = s_read_all(path, &data, &len))) return rc;
  rc = ens_sfd_read(data, len, out);
  free(data);
  return rc;
}

/* --- SFDir writing ------------------------------------------------------------------- */

static int s_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static int s_all_hex(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!s_hex(s[i])) return 0;
  return 1;
}

/* FontForge's file name for a glyph (sfd.c's appendnames): capitals get a
 * '_' before them so that "A" and "a" differ on case-insensitive file
 * systems, except in the hex digits of a leading uniXXXX or uXXXX (and of
 * such names joined by '_'), whose case means nothing. Slashes and control
 * characters become '_', and a name of dots only gets one, so that the
 * file stays inside the directory and is no "." or "..". */
static char *s_glyph_file(const char *name, size_t n) {
  char *out = malloc(2 * n + 8);
  if (!out) return NULL;
  size_t k = 0, i = 0;
  for (;;) {
    if (n - i >= 7 && memcmp(name + i, "uni", 3) == 0 && s_all_hex(name + i + 3, 4)) {
      memcpy(out + k, name + i, 7);
      k += 7, i += 7;
      while (n - i >= 4 && s_all_hex(name + i, 4)) {
        memcpy(out + k, name + i, 4);
        k += 4, i += 4;
      }
    } else if (n - i >= 6 && name[i] == 'u' && s_all_hex(name + i + 1, 5)) {
      memcpy(out + k, name + i, 5); /* FontForge tests five digits and keeps four as they are */
      k += 5, i += 5;
    } else {
      break;
    }
    if (i >= n || name[i] != '_') break;
    out[k++] = '_';
    i++;
  }
  for (; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c == '/' || c < ' ') c = '_';
    if (c >= 'A' && c <= 'Z') out[k++] = '_';
    out[k++] = (char)c;
  }
  if (k == 0 || (k <= 2 && out[0] == '.')) out[k++] = '_';
  memcpy(out + k, ".glyph", 7);
  return out;
}

/* A file name a document may ask for: inside the directory (no '/'), a
 * .glyph file, within the file system's limit. A leading dot is fine
 * (.notdef.glyph). */
static int s_safe_file(const char *s, size_t n) {
  if (n < 7 || n > 255 || memchr(s, '/', n) || memchr(s, '\0', n)) return 0;
  return memcmp(s + n - 6, ".glyph", 6) == 0;
}

/* Skip writing a file whose bytes would not change: git sees no touch,
 * and a save of one edited glyph costs one file. */
static int s_same_file(const char *path, const unsigned char *data, size_t len) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != len) return 0;
  char *old;
  size_t olen;
  if (s_read_all(path, &old, &olen) != 0) return 0;
  int same = olen == len && memcmp(old, data, len) == 0;
  free(old);
  return same;
}

static int s_put_file(const char *dir, const char *name, const unsigned char *data, size_t len) {
  char *fp = s_join(dir, name);
  if (!fp) return ens__error(ENS_ENOMEM, "out of memory writing %s", dir);
  int rc = s_same_file(fp, data, len) ? 0 : ens__file_write_atomic(fp, data, len);
  free(fp);
  return rc;
}

static int s_cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int s_write_dir(const ens_doc *doc, const char *path) {
  if (mkdir(path, 0777) != 0 && errno != EEXIST) return ens__error(ENS_EIO, "cannot create %s: %s", path, strerror(errno));
  ens__file_clean_dir_temps(path); /* what a killed writer left */
  ens__sfd_wctx *w = ens__sfd_wctx_new(doc);
  if (!w) return ENS_ENOMEM;
  ens_buf b = ENS_BUF_INIT;
  char **names = NULL;
  size_t nn = 0;
  DIR *d = NULL;
  int rc = ens__sfd_write_root_only(w, &b);
  if (!rc) rc = s_put_file(path, "font.props", b.data ? b.data : (unsigned char *)"", b.len);
  const ens_obj *root = ens_doc_root(doc);
  size_t nk = ens_obj_child_count(root);
  if (!rc && !(names = calloc(nk ? nk : 1, sizeof *names))) rc = ens__error(ENS_ENOMEM, "out of memory");
  for (size_t i = 0; i < nk && !rc; i++) {
    const ens_obj *g = ens_obj_child(root, i);
    if (strcmp(ens_obj_kind(g), ENS_SFD_GLYPH) != 0) continue;
    ens_value v;
    char *fname = NULL;
    if (ens_obj_get(g, "~file", &v) == 0 && v.type == ENS_STR && s_safe_file(v.u.s.ptr, v.u.s.len))
      fname = strndup(v.u.s.ptr, v.u.s.len);
    else if (ens_obj_get(g, "name", &v) == 0 && v.type == ENS_STR)
      fname = s_glyph_file(v.u.s.ptr, v.u.s.len);
    else
      fname = s_glyph_file("glyph", 5);
    if (!fname) {
      rc = ens__error(ENS_ENOMEM, "out of memory");
      break;
    }
    /* two glyphs may not share a file: number the later one */
    for (int tries = 2; tries < 1000; tries++) {
      int taken = 0;
      for (size_t j = 0; j < nn && !taken; j++) taken = strcmp(names[j], fname) == 0;
      if (!taken) break;
      char *alt = malloc(strlen(fname) + 16);
      if (!alt) break;
      size_t base = strlen(fname) - 6;
      snprintf(alt, strlen(fname) + 16, "%.*s_%d.glyph", (int)base, fname, tries);
      free(fname);
      fname = alt;
    }
    names[nn++] = fname;
    b.len = 0;
    if (!(rc = ens__sfd_write_glyph(w, g, &b))) rc = s_put_file(path, fname, b.data ? b.data : (unsigned char *)"", b.len);
  }
  if (rc) goto done;
  /* .glyph files of glyphs no longer in the document go */
  qsort(names, nn, sizeof *names, s_cmpstr);
  if ((d = opendir(path)) != NULL) {
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
      if (!s_ends_with(de->d_name, ".glyph") || !s_regular_in(path, de->d_name)) continue;
      const char *key = de->d_name;
      if (bsearch(&key, names, nn, sizeof *names, s_cmpstr)) continue;
      char *fp = s_join(path, de->d_name);
      if (fp && unlink(fp) != 0) rc = ens__error(ENS_EIO, "cannot remove %s: %s", fp, strerror(errno));
      free(fp);
      if (rc) break;
    }
  }
done:
  if (d) closedir(d);
  for (size_t i = 0; i < nn; i++) free(names[i]);
  free(names);
  ens__buf_free(&b);
  ens__sfd_wctx_free(w);
  return rc;
}

/* Text made so far goes to the temporary file (and the buffer is
 * emptied for the next part). */
static int s_put_to_file(ens__file_atomic *f, ens_buf *b) {
  if (b->oom) return ens__error(ENS_ENOMEM, "out of memory writing SFD");
  int rc = ens__file_atomic_write(f, b->data, b->len);
  b->len = 0;
  return rc;
}

/* A part made while more is to come: the device starts taking it while
 * the rest is made, so the fsync at the end waits for the last part only. */
static int s_sink_to_file(void *user, ens_buf *b) {
  ens__file_atomic *f = user;
  size_t from = f->written;
  int rc = s_put_to_file(f, b);
  if (!rc) ens__file_atomic_start_writeback(f, from);
  return rc;
}

int ens_sfd_write_path(const ens_doc *doc, const char *path) {
  if (!doc || !path) return ens__error(ENS_EINVAL, "ens_sfd_write_path needs a document and a path");
  if (ens_sfd_is_dir(doc)) return s_write_dir(doc, path);
  ens__file_clean_temps(path); /* what a killed writer left */
  ens__file_atomic f;
  int rc = ens__file_atomic_open(&f, path);
  if (rc) return rc;
  ens_buf b = ENS_BUF_INIT;
  rc = ens__sfd_write_doc_to(doc, &b, s_sink_to_file, &f);
  if (!rc && b.len) rc = s_put_to_file(&f, &b); /* the last part: the fsync starts its write */
  ens__buf_free(&b);
  return ens__file_atomic_finish(&f, rc, -1, 1);
}
