/* ens_tupi_import: a .tup file (a zip holding project.tpp, a sceneN.tps per
 * scene and library.tpl) read with libzip and libxml2 within the limits of
 * ensemble/tupi.h, and its scenes written as one Lottie animation: the
 * first scene's layers in the main composition, each later scene a
 * precomposition played after the one before. */
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "ensemble/file.h"
#include "tupi_int.h"

struct ens_tupi_result {
  char *json;
  size_t len;
  ens__tupi_note *notes;
  size_t nnotes;
};

typedef struct {
  zip_t *z;
  size_t xml_total;
} s_zip;

typedef struct {
  char *name; /* in the zip */
  zip_uint64_t index;
  long number; /* of sceneN.tps, for the order */
} s_entry;

static const char *s_base(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int s_ends(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* One entry's bytes (NUL after them), within the limits. */
static int s_read_entry(s_zip *zz, zip_uint64_t index, const char *name, char **out, size_t *len) {
  *out = NULL;
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(zz->z, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    return ens__error(ENS_EDECODE, "%s: the zip entry cannot be read: %s", name, zip_strerror(zz->z));
  if (st.size > ENS_TUPI_MAX_XML)
    return ens__error(ENS_ELIMIT, "%s: larger than %u bytes uncompressed", name, ENS_TUPI_MAX_XML);
  if (zz->xml_total + st.size > ENS_TUPI_MAX_XML_TOTAL)
    return ens__error(ENS_ELIMIT, "%s: the parts read pass %u bytes uncompressed", name, ENS_TUPI_MAX_XML_TOTAL);
  size_t want = (size_t)st.size;
  char *buf = malloc(want + 2);
  if (!buf) return ens__error(ENS_ENOMEM, "out of memory");
  zip_file_t *f = zip_fopen_index(zz->z, index, 0);
  if (!f) {
    free(buf);
    return ens__error(ENS_EDECODE, "%s: the zip entry cannot be opened: %s", name, zip_strerror(zz->z));
  }
  /* one byte more than the size it declares, to catch a lie */
  size_t got = 0;
  int rc = 0;
  while (got < want + 1) {
    zip_int64_t n = zip_fread(f, buf + got, want + 1 - got);
    if (n < 0) {
      rc = ens__error(ENS_EDECODE, "%s: the zip entry is damaged: %s", name, zip_file_strerror(f));
      break;
    }
    if (n == 0) break;
    got += (size_t)n;
  }
  zip_fclose(f);
  if (!rc && got != want) rc = ens__error(ENS_EDECODE, "%s: the zip entry's size is not what it declares", name);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[got] = '\0';
  zz->xml_total += got;
  *out = buf;
  *len = got;
  return 0;
}

/* libxml2's first error, which names the place that is wrong (the last
 * is often only "premature end of data"). */
typedef struct {
  int line, seen;
  char msg[256];
} s_xerr;

static void s_first_error(void *user, xmlErrorPtr e) {
  xmlParserCtxtPtr c = user;
  s_xerr *x = c ? c->_private : NULL;
  if (!x || x->seen || !e || e->level < XML_ERR_ERROR) return;
  x->seen = 1;
  x->line = e->line;
  snprintf(x->msg, sizeof x->msg, "%s", e->message ? e->message : "malformed XML");
  size_t n = strlen(x->msg);
  while (n && (x->msg[n - 1] == '\n' || x->msg[n - 1] == ' ')) x->msg[--n] = '\0';
}

static int s_parse(const char *name, const char *data, size_t len, xmlDoc **out) {
  *out = NULL;
  if (len > (size_t)INT32_MAX) return ens__error(ENS_ELIMIT, "%s: too large", name);
  xmlParserCtxtPtr c = xmlNewParserCtxt();
  if (!c) return ens__error(ENS_ENOMEM, "out of memory starting libxml2");
  s_xerr x = {1, 0, "malformed XML"};
  c->_private = &x;
  c->sax->serror = s_first_error;
  /* no network, no DTD loading, entities left unexpanded, default limits */
  xmlDoc *doc = xmlCtxtReadMemory(c, data, (int)len, name, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  int rc = 0;
  if (!doc || !c->wellFormed) {
    if (!x.seen) {
      const xmlError *e = xmlCtxtGetLastError(c);
      if (e && e->message) s_first_error(c, (xmlErrorPtr)e);
    }
    rc = ens__error(ENS_EDECODE, "%s: line %d: %s", name, x.line, x.msg);
    if (doc) xmlFreeDoc(doc);
    doc = NULL;
  }
  xmlFreeParserCtxt(c);
  *out = doc;
  return rc;
}

static int s_cmp_scene(const void *a, const void *b) {
  const s_entry *x = a, *y = b;
  if (x->number != y->number) return x->number < y->number ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The text of <meta><name> in project.tpp, or NULL. */
static char *s_meta(xmlNode *project, const char *name) {
  xmlNode *meta = ens__tupi_child(project, "meta");
  xmlNode *n = ens__tupi_child(meta, name);
  if (!n) return NULL;
  xmlChar *t = xmlNodeGetContent(n);
  char *s = t ? strdup((const char *)t) : NULL;
  if (t) xmlFree(t);
  return s;
}

typedef struct {
  double fps;
  int w, h;
  char *name, *bgcolor;
} s_proj;

static int s_project(ens__tupi_ctx *ctx, xmlDoc *doc, s_proj *p) {
  xmlNode *root = xmlDocGetRootElement(doc);
  xmlNode *proj = ens__tupi_is(root, "project") ? root : ens__tupi_child(root, "project");
  snprintf(ctx->where, sizeof ctx->where, "project.tpp");
  if (!proj) return ens__error(ENS_EDECODE, "project.tpp: no <project> element");
  xmlChar *nm = xmlGetProp(proj, (const xmlChar *)"name");
  p->name = strdup(nm ? (const char *)nm : "tupi");
  if (nm) xmlFree(nm);
  char *fps = s_meta(proj, "fps"), *dim = s_meta(proj, "dimension");
  p->bgcolor = s_meta(proj, "bgcolor");
  p->fps = 24;
  p->w = 520;
  p->h = 380;
  int rc = 0;
  if (!p->name) rc = ens__error(ENS_ENOMEM, "out of memory");
  if (!rc && fps) {
    char *e;
    double v = strtod(fps, &e);
    if (e != fps && v >= 1 && v <= 240) p->fps = v;
    else rc = ens__tupi_note_add(ctx, "the frame rate is not a number from 1 to 240: 24 is used");
  }
  if (!rc && dim) {
    int w, h;
    if (sscanf(dim, "%d,%d", &w, &h) == 2 && w >= 1 && h >= 1 && w <= 16384 && h <= 16384) {
      p->w = w;
      p->h = h;
    } else {
      rc = ens__tupi_note_add(ctx, "the canvas dimension is not \"W,H\" from 1 to 16384: 520,380 is used");
    }
  }
  free(fps);
  free(dim);
  return rc;
}

static int s_library(ens__tupi_ctx *ctx, xmlNode *n, int depth) {
  if (depth > ENS_TUPI_MAX_DEPTH) return ens__error(ENS_ELIMIT, "library.tpl: folders nested deeper than %d", ENS_TUPI_MAX_DEPTH);
  for (xmlNode *c = n->children; c; c = c->next) {
    if (ens__tupi_is(c, "folder")) {
      int rc = s_library(ctx, c, depth + 1);
      if (rc) return rc;
    } else if (ens__tupi_is(c, "object")) {
      if (ctx->nlib == ENS_TUPI_MAX_ENTRIES)
        return ens__error(ENS_ELIMIT, "library.tpl: more than %d objects", ENS_TUPI_MAX_ENTRIES);
      xmlChar *type = xmlGetProp(c, (const xmlChar *)"type"), *id = xmlGetProp(c, (const xmlChar *)"id"),
              *path = xmlGetProp(c, (const xmlChar *)"path");
      int t = type ? atoi((const char *)type) : 0;
      snprintf(ctx->where, sizeof ctx->where, "library.tpl, \"%s\"", id ? (const char *)id : "");
      ens__tupi_libobj *v = realloc(ctx->lib, (ctx->nlib + 1) * sizeof *v);
      char *ids = strdup(id ? (const char *)id : ""), *paths = strdup(path ? (const char *)path : "");
      if (type) xmlFree(type);
      if (id) xmlFree(id);
      if (path) xmlFree(path);
      if (v) ctx->lib = v;
      if (!v || !ids || !paths) {
        free(ids);
        free(paths);
        return ens__error(ENS_ENOMEM, "out of memory");
      }
      ctx->lib[ctx->nlib++] = (ens__tupi_libobj){ids, paths, t, 0, 0, 0};
      if (t == 3 && ens__tupi_note_add(ctx, "a sound is not mapped (Lottie carries no sound)") != 0) return ENS_ENOMEM;
    }
  }
  return 0;
}

/* ctx->load: the library file named path, in images/ or anywhere. */
static int s_load(ens__tupi_ctx *ctx, const char *path, char **data, size_t *len) {
  s_zip *zz = ctx->zip;
  *data = NULL;
  zip_int64_t n = zip_get_num_entries(zz->z, 0), best = -1;
  for (zip_int64_t i = 0; i < n; i++) {
    const char *name = zip_get_name(zz->z, (zip_uint64_t)i, 0);
    if (!name || strcmp(s_base(name), path) != 0) continue;
    if (best < 0 || strstr(name, "images/")) best = i;
  }
  if (best < 0 || !*path) return 1;
  return s_read_entry(zz, (zip_uint64_t)best, path, data, len);
}

static int s_hexcolor(const char *s) {
  if (!s || strlen(s) != 7 || s[0] != '#') return 0;
  for (int i = 1; i < 7; i++)
    if (!strchr("0123456789abcdefABCDEF", s[i])) return 0;
  return 1;
}

static void s_static_layer_ks(ens_buf *b) {
  ens__buf_puts(b, "\"ks\":{\"o\":{\"a\":0,\"k\":100},\"r\":{\"a\":0,\"k\":0},\"p\":{\"a\":0,\"k\":[0,0,0]},"
                   "\"a\":{\"a\":0,\"k\":[0,0,0]},\"s\":{\"a\":0,\"k\":[100,100,100]}}");
}

static int s_import(ens__tupi_ctx *ctx, zip_t *z, ens_tupi_result *r) {
  s_zip zz = {z, 0};
  s_entry *scenes = NULL;
  size_t nscenes = 0;
  zip_int64_t project = -1, library = -1;
  size_t project_depth = (size_t)-1;
  char *data = NULL;
  size_t len;
  xmlDoc *doc = NULL;
  s_proj proj = {0};
  ens_buf out = ENS_BUF_INIT, assets = ENS_BUF_INIT, main_layers = ENS_BUF_INIT;
  int rc = 0;
  zip_int64_t n = zip_get_num_entries(z, 0);
  if (n < 0 || n > ENS_TUPI_MAX_ENTRIES)
    return ens__error(ENS_ELIMIT, "the zip holds more than %d entries", ENS_TUPI_MAX_ENTRIES);
  for (zip_int64_t i = 0; i < n; i++) {
    const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
    if (!name) continue;
    const char *base = s_base(name);
    size_t depth = 0;
    for (const char *c = name; *c; c++) depth += *c == '/';
    if (strcmp(base, "project.tpp") == 0 && depth < project_depth) {
      project = i;
      project_depth = depth;
    } else if (strcmp(base, "library.tpl") == 0 && library < 0) {
      library = i;
    } else if (s_ends(base, ".tps")) {
      if (nscenes == ENS_TUPI_MAX_SCENES) {
        rc = ens__error(ENS_ELIMIT, "more than %d scenes", ENS_TUPI_MAX_SCENES);
        goto done;
      }
      s_entry *v = realloc(scenes, (nscenes + 1) * sizeof *v);
      if (!v) { rc = ens__error(ENS_ENOMEM, "out of memory"); goto done; }
      scenes = v;
      const char *d = base;
      while (*d && (*d < '0' || *d > '9')) d++;
      scenes[nscenes++] = (s_entry){(char *)name, (zip_uint64_t)i, *d ? strtol(d, NULL, 10) : -1};
    }
  }
  if (project < 0) { rc = ens__error(ENS_ENOTFOUND, "not a Tupi project: the zip has no project.tpp"); goto done; }
  if (nscenes == 0) { rc = ens__error(ENS_ENOTFOUND, "the project has no scene (no .tps file)"); goto done; }
  qsort(scenes, nscenes, sizeof *scenes, s_cmp_scene);

  if ((rc = s_read_entry(&zz, (zip_uint64_t)project, "project.tpp", &data, &len)) != 0 ||
      (rc = s_parse("project.tpp", data, len, &doc)) != 0 || (rc = s_project(ctx, doc, &proj)) != 0)
    goto done;
  xmlFreeDoc(doc);
  doc = NULL;
  free(data);
  data = NULL;
  if (library >= 0) {
    if ((rc = s_read_entry(&zz, (zip_uint64_t)library, "library.tpl", &data, &len)) != 0 ||
        (rc = s_parse("library.tpl", data, len, &doc)) != 0 || (rc = s_library(ctx, xmlDocGetRootElement(doc), 0)) != 0)
      goto done;
    xmlFreeDoc(doc);
    doc = NULL;
    free(data);
    data = NULL;
  }

  ctx->zip = &zz;
  ctx->load = s_load;
  ens__tupi_project pj = {proj.w, proj.h};
  int total = 0, mfirst = 1, afirst = 1, ind = 0;
  for (size_t i = 0; i < nscenes; i++) {
    const char *ename = s_base(scenes[i].name);
    if ((rc = s_read_entry(&zz, scenes[i].index, ename, &data, &len)) != 0 || (rc = s_parse(ename, data, len, &doc)) != 0)
      goto done;
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!ens__tupi_is(root, "scene")) {
      rc = ens__error(ENS_EDECODE, "%s: the root element is not <scene>", ename);
      goto done;
    }
    if (i == 0) {
      double fps;
      if ((rc = ens__tupi_attr_num(ctx, root, "fps", proj.fps, &fps)) != 0) goto done;
      if (fps >= 1 && fps <= 240) proj.fps = fps;
    } else {
      double fps;
      if ((rc = ens__tupi_attr_num(ctx, root, "fps", proj.fps, &fps)) != 0) goto done;
      if (fps != proj.fps && (rc = ens__tupi_note_add(ctx, "a later scene's own frame rate is not kept: "
                                                          "the first scene's is used")) != 0)
        goto done;
    }
    int length = 0;
    ctx->points = 0;
    if (i == 0) {
      if ((rc = ens__tupi_scene(ctx, root, 1, &pj, &main_layers, &mfirst, &ind, &length)) != 0) goto done;
    } else {
      /* a later scene: a precomposition, played after the scenes before it */
      ens_buf layers = ENS_BUF_INIT;
      int lfirst = 1, lind = 0;
      rc = ens__tupi_scene(ctx, root, (int)i + 1, &pj, &layers, &lfirst, &lind, &length);
      if (!rc) {
        ens__buf_printf(&assets, "%s{\"id\":\"scene_%zu\",\"layers\":[", afirst ? "" : ",", i + 1);
        ens__buf_append(&assets, layers.data, layers.len);
        ens__buf_puts(&assets, "]}");
        afirst = 0;
        xmlChar *sn = xmlGetProp(root, (const xmlChar *)"name");
        char lname[300];
        snprintf(lname, sizeof lname, "scene %zu \"%s\"", i + 1, sn ? (const char *)sn : "");
        if (sn) xmlFree(sn);
        ens__buf_printf(&main_layers, "%s{\"ddd\":0,\"ind\":%d,\"ty\":0,\"nm\":", mfirst ? "" : ",", ++ind);
        ens__tupi_jstr(&main_layers, lname);
        ens__buf_printf(&main_layers, ",\"refId\":\"scene_%zu\",\"sr\":1,", i + 1);
        s_static_layer_ks(&main_layers);
        ens__buf_printf(&main_layers, ",\"ao\":0,\"w\":%d,\"h\":%d,\"ip\":%d,\"op\":%d,\"st\":%d,\"bm\":0}", proj.w, proj.h,
                        total, total + length, total);
        mfirst = 0;
      }
      ens__buf_free(&layers);
      if (rc) goto done;
    }
    total += length;
    xmlFreeDoc(doc);
    doc = NULL;
    free(data);
    data = NULL;
    if (main_layers.oom || assets.oom) { rc = ens__error(ENS_ENOMEM, "out of memory"); goto done; }
    if (main_layers.len + assets.len > ENS_TUPI_MAX_OUTPUT) {
      rc = ens__error(ENS_ELIMIT, "the Lottie text would pass %u bytes", ENS_TUPI_MAX_OUTPUT);
      goto done;
    }
  }

  ens__buf_puts(&out, "{\"v\":\"5.7.0\",\"fr\":");
  ens__tupi_jnum(&out, proj.fps);
  ens__buf_printf(&out, ",\"ip\":0,\"op\":%d,\"w\":%d,\"h\":%d,\"nm\":", total, proj.w, proj.h);
  ens__tupi_jstr(&out, proj.name);
  ens__buf_puts(&out, ",\"ddd\":0,\"assets\":[");
  ens__buf_append(&out, ctx->images.data, ctx->images.len);
  if (ctx->images.len && assets.len) ens__buf_putc(&out, ',');
  ens__buf_append(&out, assets.data, assets.len);
  ens__buf_puts(&out, "],\"layers\":[");
  ens__buf_append(&out, main_layers.data, main_layers.len);
  if (s_hexcolor(proj.bgcolor)) {
    /* the canvas colour under everything */
    ens__buf_printf(&out, "%s{\"ddd\":0,\"ind\":%d,\"ty\":1,\"nm\":\"background colour\",\"sr\":1,", mfirst ? "" : ",",
                    ++ind);
    s_static_layer_ks(&out);
    ens__buf_printf(&out, ",\"ao\":0,\"sw\":%d,\"sh\":%d,\"sc\":\"%s\",\"ip\":0,\"op\":%d,\"st\":0,\"bm\":0}", proj.w,
                    proj.h, proj.bgcolor, total);
  } else if (proj.bgcolor) {
    snprintf(ctx->where, sizeof ctx->where, "project.tpp");
    if ((rc = ens__tupi_note_add(ctx, "the background colour is not #rrggbb: it is left out")) != 0) goto done;
  }
  ens__buf_puts(&out, "]}\n");
  if (out.oom) { rc = ens__error(ENS_ENOMEM, "out of memory"); goto done; }
  r->json = (char *)ens__buf_detach(&out, &r->len);
done:
  if (doc) xmlFreeDoc(doc);
  free(data);
  free(scenes);
  free(proj.name);
  free(proj.bgcolor);
  ens__buf_free(&out);
  ens__buf_free(&assets);
  ens__buf_free(&main_layers);
  return rc;
}

static void s_notes_free(ens__tupi_note *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(v[i].what);
    free(v[i].where);
  }
  free(v);
}

static void s_ctx_free_lib(ens__tupi_ctx *ctx) {
  for (size_t i = 0; i < ctx->nlib; i++) {
    free(ctx->lib[i].id);
    free(ctx->lib[i].path);
  }
  free(ctx->lib);
  ens__buf_free(&ctx->images);
}

int ens_tupi_import(const void *data, size_t len, ens_tupi_result **out) {
  if (!out || (!data && len)) return ens__error(ENS_EINVAL, "ens_tupi_import: no input or no output");
  *out = NULL;
  if (len > ENS_TUPI_MAX_FILE) return ens__error(ENS_ELIMIT, "the file is larger than %u bytes", ENS_TUPI_MAX_FILE);
  /* libzip takes no bytes for an empty archive */
  if (len == 0) return ens__error(ENS_EDECODE, "not a Tupi project: not a zip file (the file is empty)");
  xmlInitParser();
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *src = zip_source_buffer_create(data, len, 0, &ze);
  if (!src) {
    zip_error_fini(&ze);
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  zip_t *z = zip_open_from_source(src, ZIP_RDONLY, &ze);
  if (!z) {
    int rc = ens__error(ENS_EDECODE, "not a Tupi project: not a zip file (%s)", zip_error_strerror(&ze));
    zip_source_free(src);
    zip_error_fini(&ze);
    return rc;
  }
  zip_error_fini(&ze);
  ens__tupi_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ens_tupi_result *r = calloc(1, sizeof *r);
  int rc = r ? s_import(&ctx, z, r) : ens__error(ENS_ENOMEM, "out of memory");
  zip_discard(z); /* read only: nothing to write back */
  s_ctx_free_lib(&ctx);
  if (rc) {
    s_notes_free(ctx.notes, ctx.nnotes);
    if (r) free(r->json);
    free(r);
    return rc;
  }
  r->notes = ctx.notes;
  r->nnotes = ctx.nnotes;
  *out = r;
  return 0;
}

int ens_tupi_import_path(const char *path, ens_tupi_result **out) {
  if (out) *out = NULL;
  char *data;
  size_t len;
  int rc = ens_file_read(path, ENS_TUPI_MAX_FILE, &data, &len);
  if (rc) return rc;
  rc = ens_tupi_import(data, len, out);
  ens_free(data);
  return rc;
}

const char *ens_tupi_result_json(const ens_tupi_result *r, size_t *len) {
  if (len) *len = r ? r->len : 0;
  return r ? r->json : NULL;
}

size_t ens_tupi_result_note_count(const ens_tupi_result *r) { return r ? r->nnotes : 0; }

int ens_tupi_result_note(const ens_tupi_result *r, size_t i, const char **what, const char **where, size_t *count) {
  if (!r || i >= r->nnotes) return ens__error(ENS_EINVAL, "no note %zu", i);
  if (what) *what = r->notes[i].what;
  if (where) *where = r->notes[i].where;
  if (count) *count = r->notes[i].count;
  return 0;
}

void ens_tupi_result_free(ens_tupi_result *r) {
  if (!r) return;
  free(r->json);
  s_notes_free(r->notes, r->nnotes);
  free(r);
}
