/* libFuzzer target for the three-way merge (ens_merge3). The input is a
 * script of 4-byte records: the first byte of the input chooses the
 * options, then records build a base document, then (after a record
 * starting 0xFE) edit a copy that becomes ours, then (after another) a copy
 * that becomes theirs. A side matched by key is rebuilt under ids of its
 * own. Checks: the merge never fails nor crashes, its transaction applies
 * to theirs, it is deterministic (the same bytes and conflicts twice), it
 * lets no reference dangle (sides matched by id), and merging with an
 * unchanged side gives nothing to do (ours == base) or ours' content
 * (theirs == base). docs/fuzzing.md has the record layout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

#define S_MAX_OBJECTS 96
#define S_MAX_RECORDS 400

/* Keys: "N<k>" names an object (a name: 2), "p<k>" only a place (1), no
 * name property: no key. */
static int s_identity(const ens_obj *obj, char *key, size_t size, void *user) {
  (void)user;
  ens_value v;
  if (!size || ens_obj_get(obj, "name", &v) != 0 || v.type != ENS_STR || !v.u.s.len) return 0;
  snprintf(key, size, "%.*s", (int)(v.u.s.len > 64 ? 64 : v.u.s.len), v.u.s.ptr);
  return v.u.s.ptr[0] == 'N' ? 2 : 1;
}

static const char *s_kinds[] = {"group", "shape", "point", "text"};
static const char *s_keys[] = {"k0", "k1", "k2", "name"};

typedef struct {
  ens_id ids[S_MAX_OBJECTS + 1];
  size_t n;
} s_objs;

static int s_collect(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_objs *c = user;
  if (c->n < S_MAX_OBJECTS + 1) c->ids[c->n++] = ens_obj_id(o);
  return 0;
}

static void s_list(const ens_doc *doc, s_objs *c) {
  c->n = 0;
  ens_obj_walk(ens_doc_root(doc), s_collect, c);
}

static ens_value s_value(uint8_t c, const s_objs *objs, char *scratch) {
  switch (c & 7) {
  case 0: return ens_int(c >> 3);
  case 1: return ens_real((double)(c >> 3) / 4.0);
  case 2: snprintf(scratch, 8, "s%u", c >> 3); return ens_str(scratch);
  case 3: scratch[0] = (char)c; scratch[1] = 0; return ens_bytes(scratch, (c >> 3) & 1 ? 2 : 1);
  case 4: return ens_bool(c >> 3 & 1);
  case 5: return ens_ref(objs->ids[(c >> 3) % objs->n]);
  case 6: return ens_ref(ens_id_make(99, c)); /* dangling */
  default: return ens_nil();
  }
}

/* The position among parent's children, not counting skip, at index. */
static char *s_pos_at(const ens_obj *parent, const ens_obj *skip, size_t index) {
  const char *before = NULL, *after = NULL;
  size_t seen = 0;
  for (size_t k = 0; k < ens_obj_child_count(parent); k++) {
    const ens_obj *c = ens_obj_child(parent, k);
    if (c == skip) continue;
    if (seen == index) {
      after = ens_obj_pos(c);
      break;
    }
    before = ens_obj_pos(c);
    seen++;
  }
  return ens_pos_between(before, after);
}

/* Runs one record on doc (each its own transaction; one that does not
 * apply, such as a move into its own subtree, changes nothing). */
static void s_record(ens_doc *doc, const uint8_t *r, int build) {
  s_objs objs;
  s_list(doc, &objs);
  char scratch[8];
  uint8_t op = build ? 0 : r[0] % 6;
  ens_txn *t = ens_txn_new("fuzz", NULL);
  FZ_CHECK(t, "txn");
  const ens_obj *a = ens_doc_get(doc, objs.ids[r[1] % objs.n]);
  switch (op) {
  case 0:
  case 1: { /* insert, with a name from a small pool */
    if (objs.n >= S_MAX_OBJECTS) break;
    char *pos = s_pos_at(a, NULL, r[2] % (ens_obj_child_count(a) + 1));
    ens_node *n = pos ? ens_txn_insert(t, ens_obj_id(a), pos, ens_doc_new_id(doc), s_kinds[r[3] & 3]) : NULL;
    free(pos);
    if (!n) break;
    if (r[3] & 0x80) {
      char name[8];
      snprintf(name, sizeof name, "%c%u", r[3] & 0x40 ? 'N' : 'p', (r[3] >> 2) & 7);
      ens_node_set(n, "name", ens_str(name));
    }
    ens_node_set(n, s_keys[r[2] & 1], s_value(r[3], &objs, scratch));
    break;
  }
  case 2: /* set */
    ens_txn_set(t, ens_obj_id(a), s_keys[r[2] & 3], s_value(r[3], &objs, scratch));
    if (r[2] & 4) ens_txn_set(t, ens_obj_id(a), "k3", s_value((uint8_t)(r[3] * 7 + 1), &objs, scratch));
    break;
  case 3: /* delete */
    if (ens_obj_parent(a)) ens_txn_delete(t, ens_obj_id(a));
    break;
  case 4: { /* move under another parent */
    const ens_obj *p = ens_doc_get(doc, objs.ids[r[2] % objs.n]);
    char *pos = ens_obj_parent(a) ? s_pos_at(p, a, r[3] % (ens_obj_child_count(p) + 1)) : NULL;
    if (pos) ens_txn_move(t, ens_obj_id(a), ens_obj_id(p), pos);
    free(pos);
    break;
  }
  default: { /* reorder among its siblings */
    const ens_obj *p = ens_obj_parent(a);
    char *pos = p ? s_pos_at(p, a, r[2] % ens_obj_child_count(p)) : NULL;
    if (pos) ens_txn_move(t, ens_obj_id(a), ens_obj_id(p), pos);
    free(pos);
    break;
  }
  }
  if (ens_txn_op_count(t)) ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL);
  ens_txn_free(t);
}

static ens_doc *s_copy(const ens_doc *doc, uint32_t site) {
  unsigned char *bytes;
  size_t len;
  ens_doc *copy = NULL;
  FZ_CHECK(ens_snapshot_encode(doc, &bytes, &len) == 0, "encode");
  FZ_CHECK(ens_snapshot_decode(bytes, len, &copy) == 0, "decode");
  ens_free(bytes);
  ens_doc_set_site(copy, site);
  return copy;
}

/* --- a document under other ids: what reading a file gives -------------------------- */

typedef struct {
  ens_id from[S_MAX_OBJECTS + 8], to[S_MAX_OBJECTS + 8];
  size_t n;
} s_idmap;

static ens_id s_map(const s_idmap *m, ens_id id) {
  for (size_t i = 0; i < m->n; i++)
    if (m->from[i] == id) return m->to[i];
  return id; /* dangling: as it was */
}

static void s_fill(const ens_obj *o, ens_node *n, const s_idmap *m) {
  for (size_t k = 0; k < ens_obj_prop_count(o); k++) {
    const char *key;
    ens_value v;
    ens_obj_prop_at(o, k, &key, &v);
    if (key[0] == '@') continue;
    if (v.type == ENS_REF) v.u.ref = s_map(m, v.u.ref);
    ens_node_set(n, key, v);
  }
  for (size_t k = 0; k < ens_obj_child_count(o); k++) {
    const ens_obj *c = ens_obj_child(o, k);
    ens_node *cn = ens_node_add_child(n, ens_obj_pos(c), s_map(m, ens_obj_id(c)), ens_obj_kind(c));
    FZ_CHECK(cn, "node");
    s_fill(c, cn, m);
  }
}

static ens_doc *s_rekey(const ens_doc *doc, uint32_t site) {
  ens_doc *copy = ens_doc_new(ens_doc_kind(doc), site);
  s_objs objs;
  s_list(doc, &objs);
  s_idmap m = {{0}, {0}, 0};
  m.from[m.n] = ENS_ROOT_ID, m.to[m.n++] = ENS_ROOT_ID;
  for (size_t i = 1; i < objs.n; i++) m.from[m.n] = objs.ids[i], m.to[m.n++] = ens_doc_new_id(copy);
  ens_txn *t = ens_txn_new("rekey", NULL);
  const ens_obj *root = ens_doc_root(doc);
  for (size_t k = 0; k < ens_obj_prop_count(root); k++) {
    const char *key;
    ens_value v;
    ens_obj_prop_at(root, k, &key, &v);
    if (key[0] == '@') continue;
    if (v.type == ENS_REF) v.u.ref = s_map(&m, v.u.ref);
    ens_txn_set(t, ENS_ROOT_ID, key, v);
  }
  for (size_t k = 0; k < ens_obj_child_count(root); k++) {
    const ens_obj *c = ens_obj_child(root, k);
    ens_node *n = ens_txn_insert(t, ENS_ROOT_ID, ens_obj_pos(c), s_map(&m, ens_obj_id(c)), ens_obj_kind(c));
    FZ_CHECK(n, "insert");
    s_fill(c, n, &m);
  }
  FZ_CHECK(ens_doc_apply(copy, t, ENS_ORIGIN_LOCAL, NULL) == 0, "rekey: %s", ens_error_last());
  ens_txn_free(t);
  FZ_CHECK(ens_doc_content_hash(copy) == ens_doc_content_hash(doc), "rekeyed content");
  return copy;
}

/* --- the merge and its checks ------------------------------------------------------ */

static void s_touch_conflicts(const ens_merge *m) {
  for (size_t i = 0; i < ens_merge_conflict_count(m); i++) {
    const ens_merge_conflict *c = ens_merge_conflict_at(m, i);
    FZ_CHECK(c && c->path, "conflict %zu", i);
    FZ_CHECK(c->kind <= ENS_CONFLICT_INSERT, "conflict kind %d", (int)c->kind);
    fz_sink += fz_hash_bytes((const uint8_t *)c->path, strlen(c->path)) + c->id + (uint64_t)c->ours_kept;
    FZ_CHECK(!c->key == !(c->kind == ENS_CONFLICT_SET || c->kind == ENS_CONFLICT_INSERT), "conflict key");
    if (c->key) {
      fz_sink += fz_hash_bytes((const uint8_t *)c->key, strlen(c->key));
      fz_sink += fz_touch_value(&c->base) + fz_touch_value(&c->ours) + fz_touch_value(&c->theirs);
    }
  }
  FZ_CHECK(ens_merge_conflict_at(m, ens_merge_conflict_count(m)) == NULL, "conflict past the end");
}

/* With ids shared: every reference of the merged document whose target it
 * lacks dangled already on the side it came from: theirs' (theirs has the
 * object with that value, and lacks the target too) or else ours' (ours
 * lacks the target; ours' new objects have other ids in the result, so
 * only the target is looked up). */
typedef struct {
  const ens_doc *merged, *ours, *theirs;
} s_dangle_ctx;

static int s_check_dangling(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  const s_dangle_ctx *c = user;
  const ens_obj *t = ens_doc_get(c->theirs, ens_obj_id(o)), *u = ens_doc_get(c->ours, ens_obj_id(o));
  for (size_t k = 0; k < ens_obj_prop_count(o); k++) {
    const char *key;
    ens_value v, w;
    ens_obj_prop_at(o, k, &key, &v);
    if (v.type != ENS_REF || key[0] == '@' || ens_doc_get(c->merged, v.u.ref)) continue;
    int in_t = t && ens_obj_get(t, key, &w) == 0 && w.type == ENS_REF && w.u.ref == v.u.ref;
    int in_o = u && ens_obj_get(u, key, &w) == 0 && w.type == ENS_REF && w.u.ref == v.u.ref;
    /* an object of base both hold: the side whose value it is; one only
     * theirs has by id: theirs' value, or that of ours' object matched to
     * it; one of ours: ours' */
    int own = (in_t && !ens_doc_get(c->theirs, v.u.ref)) ||
              ((u ? in_o : !in_t) && !ens_doc_get(c->ours, v.u.ref));
    FZ_CHECK(own, "the merge let %s of %#llx dangle (it named %#llx)", key, (unsigned long long)ens_obj_id(o),
             (unsigned long long)v.u.ref);
  }
  return 0;
}

static ens_merge *s_merge(const ens_doc *base, const ens_doc *ours, ens_doc *theirs, const ens_merge_opts *opts) {
  ens_merge *m = NULL;
  int rc = ens_merge3(base, ours, theirs, opts, &m);
  FZ_CHECK(rc == 0 && m, "merge failed: %d", rc);
  s_touch_conflicts(m);
  return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t mode = data[0];
  ens_doc *docs[3] = {ens_doc_new("fuzz", 1), NULL, NULL};
  size_t at = 1, records = 0;
  for (int part = 0; part < 3; part++) {
    if (part) docs[part] = s_copy(docs[0], (uint32_t)part + 1);
    for (; at + 4 <= size && records < S_MAX_RECORDS; at += 4, records++) {
      if (data[at] == 0xFE) {
        at += 4;
        break;
      }
      s_record(docs[part], data + at, part == 0);
    }
  }
  ens_merge_opts opts = {s_identity, NULL, mode & 2 ? ENS_MERGE_BY_KEY : ENS_MERGE_BY_ID,
                         mode & 4 ? ENS_MERGE_BY_KEY : ENS_MERGE_BY_ID,
                         mode & 1 ? ENS_MERGE_PREFER_THEIRS : ENS_MERGE_PREFER_OURS, NULL, NULL};
  ens_doc *base = docs[0];
  ens_doc *ours = opts.ours_match == ENS_MERGE_BY_KEY ? s_rekey(docs[1], 5) : docs[1];
  ens_doc *theirs_src = opts.theirs_match == ENS_MERGE_BY_KEY ? s_rekey(docs[2], 6) : docs[2];
  /* two copies of one snapshot: the same id counter for the fresh ids */
  ens_doc *theirs = s_copy(theirs_src, ens_doc_site(theirs_src)), *theirs2 = s_copy(theirs_src, ens_doc_site(theirs_src));

  /* the merge applies to theirs, and the same inputs give the same bytes */
  ens_merge *m = s_merge(base, ours, theirs, &opts), *m2 = s_merge(base, ours, theirs2, &opts);
  unsigned char *b1, *b2;
  size_t n1, n2;
  FZ_CHECK(ens_txn_encode(ens_merge_txn(m), &b1, &n1) == 0, "encode the merge");
  FZ_CHECK(ens_txn_encode(ens_merge_txn(m2), &b2, &n2) == 0, "encode the merge");
  FZ_CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0, "two merges of the same documents differ");
  FZ_CHECK(ens_merge_conflict_count(m) == ens_merge_conflict_count(m2), "conflicts differ");
  for (size_t i = 0; i < ens_merge_conflict_count(m); i++) {
    const ens_merge_conflict *c1 = ens_merge_conflict_at(m, i), *c2 = ens_merge_conflict_at(m2, i);
    FZ_CHECK(c1->kind == c2->kind && c1->id == c2->id && c1->ours_kept == c2->ours_kept &&
                 strcmp(c1->path, c2->path) == 0,
             "conflict %zu differs", i);
  }
  ens_free(b1);
  ens_free(b2);
  int rc = ens_doc_apply(theirs, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL);
  FZ_CHECK(rc == 0, "the merge does not apply to theirs: %s", ens_error_last());
  fz_sink += fz_check_doc(theirs, 1);
  if (!(mode & 6)) {
    s_dangle_ctx dc = {theirs, ours, theirs2};
    ens_obj_walk(ens_doc_root(theirs), s_check_dangling, &dc);
  }
  ens_merge_free(m);
  ens_merge_free(m2);

  /* ours unchanged: nothing to do */
  ens_merge_opts same = opts;
  same.ours_match = ENS_MERGE_BY_ID;
  ens_doc *base_copy = s_copy(base, 7);
  m = s_merge(base, base_copy, theirs2, &same);
  FZ_CHECK(ens_txn_op_count(ens_merge_txn(m)) == 0 && ens_merge_conflict_count(m) == 0,
           "ours unchanged: %zu operations, %zu conflicts", ens_txn_op_count(ens_merge_txn(m)),
           ens_merge_conflict_count(m));
  ens_merge_free(m);
  /* theirs unchanged: ours' content */
  ens_doc *plain = s_copy(base, 8);
  same = opts;
  same.theirs_match = ENS_MERGE_BY_ID;
  m = s_merge(base, ours, plain, &same);
  FZ_CHECK(ens_merge_conflict_count(m) == 0, "theirs unchanged: %zu conflicts", ens_merge_conflict_count(m));
  rc = ens_doc_apply(plain, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL);
  FZ_CHECK(rc == 0, "theirs unchanged: the merge does not apply: %s", ens_error_last());
  FZ_CHECK(ens_doc_content_hash(plain) == ens_doc_content_hash(ours), "theirs unchanged: the merge is not ours");
  ens_merge_free(m);

  ens_doc_free(plain);
  ens_doc_free(base_copy);
  ens_doc_free(theirs2);
  if (ours != docs[1]) ens_doc_free(ours);
  if (theirs_src != docs[2]) ens_doc_free(theirs_src);
  ens_doc_free(theirs);
  for (int i = 0; i < 3; i++) ens_doc_free(docs[i]);
  return 0;
}
