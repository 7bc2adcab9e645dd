/* Snapshots: a whole document as one MessagePack value (docs/snapshot.md).
 * Objects are written in pre-order with children in order, each naming its
 * parent by how many levels it climbs from the previous object and its id
 * by the difference from the previous id, so the decoder appends each to
 * its parent in O(1) and rejects anything else; kinds and property keys
 * are written once in tables and referenced by index. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/hash.h"
#include "doc.h"
#include "value_codec.h"

#define SNAPSHOT_MAGIC "ensemble-snapshot"
#define SNAPSHOT_VERSION 1

/* pointer -> index table for interned names */
typedef struct {
  const char **keys;
  uint32_t *vals;
  size_t cap, count;
  const char **order; /* names by index */
} s_names;

static int s_names_init(s_names *t, size_t cap) {
  t->cap = cap;
  t->count = 0;
  t->keys = calloc(cap, sizeof *t->keys);
  t->vals = malloc(cap * sizeof *t->vals);
  t->order = malloc(cap * sizeof *t->order);
  return t->keys && t->vals && t->order ? 0 : -1;
}

static void s_names_free(s_names *t) {
  free(t->keys);
  free(t->vals);
  free(t->order);
}

static uint32_t s_names_index(s_names *t, const char *name) {
  size_t i = (size_t)ens__mix64((uintptr_t)name) & (t->cap - 1);
  while (t->keys[i]) {
    if (t->keys[i] == name) return t->vals[i];
    i = (i + 1) & (t->cap - 1);
  }
  t->keys[i] = name;
  t->vals[i] = (uint32_t)t->count;
  t->order[t->count] = name;
  return (uint32_t)t->count++;
}

typedef struct {
  s_names kinds, keys;
  ens_buf *out;
  int pass; /* 1: collect names, 2: write objects */
  ens_id prev_id;
  const ens_obj **path; /* ancestors of the previous object, root first */
  size_t depth;
} s_enc;

static uint32_t s_content_props(const ens_obj *o) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < o->nprops; i++)
    n += o->props[i].type != ENS_NIL && !ens__prop_is_local(o, &o->props[i]);
  return n;
}

static int s_encode_obj(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_enc *e = user;
  if (e->pass == 1) {
    s_names_index(&e->kinds, o->kind);
    for (uint32_t i = 0; i < o->nprops; i++)
      if (o->props[i].type != ENS_NIL && !ens__prop_is_local(o, &o->props[i])) /* as pass 2 writes them */
        s_names_index(&e->keys, ens__prop_key(o, &o->props[i]));
    return 0;
  }
  ens_buf *b = e->out;
  /* how many levels to climb from the previous object to reach the parent */
  uint64_t up = 0;
  if (o->parent) {
    while (e->depth && e->path[e->depth - 1] != o->parent) {
      e->depth--;
      up++;
    }
  }
  if (e->depth > ENS_MAX_DEPTH) return -1;
  e->path[e->depth++] = o;
  ens__mp_array(b, 5);
  ens__mp_int(b, (int64_t)(o->id - e->prev_id)); /* ids made in a row differ by one */
  e->prev_id = o->id;
  ens__mp_uint(b, up);
  ens__mp_uint(b, s_names_index(&e->kinds, o->kind));
  const char *pos = ens__obj_pos(o);
  ens__mp_str(b, pos, strlen(pos));
  ens__mp_map(b, s_content_props(o));
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL) continue;
    const char *key = ens__prop_key(o, p);
    if (ens__key_is_local(key)) continue;
    ens__mp_uint(b, s_names_index(&e->keys, key));
    ens_value v = ens__prop_value(p);
    ens__value_write(b, &v);
  }
  return b->oom;
}

int ens_snapshot_encode(const ens_doc *doc, unsigned char **out, size_t *out_len) {
  ens_buf b = ENS_BUF_INIT;
  s_enc e;
  int rc = ENS_ENOMEM;
  size_t cap = 16;
  while (cap < doc->atoms.count * 2 + 2) cap *= 2;
  memset(&e, 0, sizeof e);
  if (s_names_init(&e.kinds, cap) || s_names_init(&e.keys, cap)) goto done;
  e.out = &b;
  e.path = malloc((ENS_MAX_DEPTH + 2) * sizeof *e.path);
  if (!e.path) goto done;
  e.pass = 1;
  ens_obj_walk(doc->root, s_encode_obj, &e);
  ens__buf_reserve(&b, doc->ids.count * 24 + 64);
  ens__mp_array(&b, 6);
  ens__mp_str(&b, SNAPSHOT_MAGIC, strlen(SNAPSHOT_MAGIC));
  ens__mp_uint(&b, SNAPSHOT_VERSION);
  ens__mp_str(&b, doc->kind, strlen(doc->kind));
  ens__mp_array(&b, (uint32_t)e.kinds.count);
  for (size_t i = 0; i < e.kinds.count; i++) ens__mp_str(&b, e.kinds.order[i], strlen(e.kinds.order[i]));
  ens__mp_array(&b, (uint32_t)e.keys.count);
  for (size_t i = 0; i < e.keys.count; i++) ens__mp_str(&b, e.keys.order[i], strlen(e.keys.order[i]));
  ens__mp_array(&b, (uint32_t)doc->ids.count);
  e.pass = 2;
  if (ens_obj_walk(doc->root, s_encode_obj, &e) || b.oom) goto done;
  *out = ens__buf_detach(&b, out_len);
  rc = *out ? 0 : ENS_ENOMEM;
done:
  s_names_free(&e.kinds);
  s_names_free(&e.keys);
  free(e.path);
  ens__buf_free(&b);
  if (rc) ens__error(rc, "out of memory encoding a snapshot");
  return rc;
}

/* --- decode -------------------------------------------------------------- */

static int s_fail(ens_mp_reader *r, const unsigned char *start, const char *why) {
  if (!r->err) ens__mp_fail(r, why);
  return ens__error(ENS_EDECODE, "snapshot: %s (near byte %zu)", r->why ? r->why : why,
                    (size_t)(r->fail_at - start));
}

static const char **s_read_names(ens_mp_reader *r, ens_doc *doc, uint32_t *count, int kinds) {
  uint32_t n = ens__mp_read_array(r);
  if (r->err) return NULL;
  const char **names = malloc((n ? n : 1) * sizeof *names);
  if (!names) { ens__mp_fail(r, "out of memory"); return NULL; }
  for (uint32_t i = 0; i < n; i++) {
    uint32_t len;
    const char *s = ens__mp_read_str(r, &len);
    if (r->err) break;
    if (len == 0 || memchr(s, '\0', len)) { ens__mp_fail(r, "empty name or NUL in a name"); break; }
    if (!kinds && s[0] == '@') { ens__mp_fail(r, "local-only key in a snapshot"); break; }
    if (len > (kinds ? ENS_MAX_KIND : ENS_MAX_KEY)) { ens__mp_fail(r, kinds ? "kind too long" : "key too long"); break; }
    names[i] = ens__atom(doc, s, len);
    if (!names[i]) { ens__mp_fail(r, "out of memory"); break; }
  }
  if (r->err) { free(names); return NULL; }
  *count = n;
  return names;
}

int ens_snapshot_decode(const void *data, size_t len, ens_doc **out) {
  ens_mp_reader r;
  ens_doc *doc = NULL;
  const char **kinds = NULL, **keys = NULL;
  ens_obj **path = NULL; /* the current ancestor chain: pre-order check */
  uint32_t nkinds = 0, nkeys = 0;
  int rc = 0;
  *out = NULL;
  ens__mp_reader_init(&r, data, len);
  const unsigned char *start = r.p;

  if (ens__mp_read_array(&r) != 6) { rc = s_fail(&r, start, "not a snapshot (header)"); goto done; }
  uint32_t mlen;
  const char *magic = ens__mp_read_str(&r, &mlen);
  if (r.err || mlen != strlen(SNAPSHOT_MAGIC) || memcmp(magic, SNAPSHOT_MAGIC, mlen) != 0) {
    rc = s_fail(&r, start, "not a snapshot (magic)");
    goto done;
  }
  uint64_t version = ens__mp_read_uint(&r);
  if (r.err || version != SNAPSHOT_VERSION) {
    rc = s_fail(&r, start, "unsupported snapshot version");
    goto done;
  }
  uint32_t klen;
  const char *kind = ens__mp_read_str(&r, &klen);
  if (r.err || klen == 0 || klen > ENS_MAX_KIND || memchr(kind, '\0', klen)) { rc = s_fail(&r, start, "bad document kind"); goto done; }
  char kindz[ENS_MAX_KIND + 1];
  memcpy(kindz, kind, klen);
  kindz[klen] = '\0';
  doc = ens_doc_new(kindz, 0);
  if (!doc) { rc = ENS_ENOMEM; goto done; }
  kinds = s_read_names(&r, doc, &nkinds, 1);
  if (!kinds) { rc = s_fail(&r, start, "bad kind table"); goto done; }
  keys = s_read_names(&r, doc, &nkeys, 0);
  if (!keys) { rc = s_fail(&r, start, "bad key table"); goto done; }
  uint32_t nobjs = ens__mp_read_array(&r);
  if (r.err || nobjs == 0) { rc = s_fail(&r, start, "bad object list"); goto done; }
  /* each object takes at least six bytes: reserve no more than that allows */
  size_t fit = (size_t)(r.end - r.p) / 6;
  if ((rc = ens__doc_reserve(doc, nobjs < fit ? nobjs : fit))) goto done;
  path = malloc((ENS_MAX_DEPTH + 1) * sizeof *path);
  if (!path) { rc = ens__error(ENS_ENOMEM, "out of memory"); goto done; }
  size_t depth = 0;
  ens_id prev_id = 0;
  for (uint32_t i = 0; i < nobjs; i++) {
    if (ens__mp_read_array(&r) != 5) { rc = s_fail(&r, start, "object is not a 5-element array"); goto done; }
    ens_id id = prev_id + (uint64_t)ens__mp_read_int(&r);
    uint64_t up = ens__mp_read_uint(&r);
    prev_id = id;
    uint64_t kind_index = ens__mp_read_uint(&r);
    uint32_t plen;
    const char *pos = ens__mp_read_str(&r, &plen);
    uint32_t nprops = ens__mp_read_map(&r);
    if (r.err) { rc = s_fail(&r, start, "bad object"); goto done; }
    if (kind_index >= nkinds) { rc = s_fail(&r, start, "kind index out of range"); goto done; }
    ens_obj *obj;
    if (i == 0) {
      if (id != ENS_ROOT_ID || up != 0 || plen != 0 || kinds[kind_index] != doc->kind) {
        rc = s_fail(&r, start, "first object is not the document's root");
        goto done;
      }
      obj = doc->root;
      path[depth++] = obj;
    } else {
      if (up >= depth) { rc = s_fail(&r, start, "object climbs above the root"); goto done; }
      depth -= (size_t)up;
      ens_obj *parent = path[depth - 1];
      if (!ens_pos_valid(pos, plen)) { rc = s_fail(&r, start, "bad position"); goto done; }
      if (depth > ENS_MAX_DEPTH) { rc = s_fail(&r, start, "objects nested too deeply"); goto done; }
      obj = ens__obj_append(doc, id, kinds[kind_index], parent, pos, plen);
      if (!obj) {
        rc = ens__error_prefix(ENS_EDECODE, "snapshot: object %u: ", i);
        goto done;
      }
      path[depth++] = obj;
    }
    /* the property array and its strings in the document's arena: one
     * bump each rather than a malloc each */
    if (nprops && (uint64_t)nprops * 2 > (uint64_t)(r.end - r.p)) { rc = s_fail(&r, start, "bad property count"); goto done; }
    if (nprops && ens__obj_arena_props(doc, obj, nprops)) { rc = ENS_ENOMEM; goto done; }
    for (uint32_t j = 0; j < nprops; j++) {
      uint64_t key_index = ens__mp_read_uint(&r);
      ens_value v;
      ens__value_read(&r, &v);
      if (r.err) { rc = s_fail(&r, start, "bad property"); goto done; }
      if (key_index >= nkeys) { rc = s_fail(&r, start, "key index out of range"); goto done; }
      if ((rc = ens__obj_fill_prop(doc, obj, keys[key_index], &v))) goto done;
    }
  }
  if (r.p != r.end) { rc = s_fail(&r, start, "trailing bytes after the snapshot"); goto done; }
  *out = doc;
  doc = NULL;
done:
  free(path);
  free(kinds);
  free(keys);
  ens_doc_free(doc);
  return rc;
}
