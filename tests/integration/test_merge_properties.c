/* Seeded property tests of the three-way merge (ensemble/merge.h): a random
 * base document, two random concurrent edit sets of it (property sets,
 * inserts, deletes, moves, reorders), then: the merge is deterministic (the
 * same transaction bytes and conflicts twice), applies to theirs, keeps
 * every change of both sides that does not conflict (property by property,
 * parent by parent, order of each child list), reports conflicts exactly
 * where both sides touched the same thing, and merging with an unchanged
 * side gives the other side. Sides share ids with base, or (SFD and SVG)
 * are written to their format and read back, to be matched by key: the
 * files bundled in tests/resources always, the shared corpus's when it is
 * there. Replay a failure with ENS_SEED=<seed printed>. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

/* --- views: each object of a document by a string that names it ------------------- */

/* In the generic documents every object has a unique "name": that names it
 * across the four documents (base, ours, theirs, merged) even when moved.
 * In documents read from a format, the path of identity keys from the
 * root does (objects are matched by key there, so they never move). */
typedef struct {
  char *key;
  const ens_obj *obj;
} s_ent;

typedef struct {
  s_ent *by_key, *by_obj;
  size_t n;
  const ens_doc *doc;
} s_view;

static int s_cmp_key(const void *a, const void *b) { return strcmp(((const s_ent *)a)->key, ((const s_ent *)b)->key); }
static int s_cmp_obj(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const s_ent *)a)->obj, y = (uintptr_t)((const s_ent *)b)->obj;
  return (x > y) - (x < y);
}

typedef struct {
  s_view *v;
  ens_identity_fn identity; /* NULL: by name */
  char **stack;             /* path of each depth */
  size_t cap;
} s_build;

static char *s_dupf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = malloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

static int s_add_ent(const ens_obj *o, size_t depth, void *user) {
  s_build *b = user;
  char *key;
  if (!ens_obj_parent(o)) {
    key = s_dupf("/");
  } else if (!b->identity) {
    ens_value v;
    assert_int_equal(ens_obj_get(o, "name", &v), 0);
    key = s_dupf("%.*s", (int)v.u.s.len, v.u.s.ptr);
  } else {
    char k[256];
    if (b->identity(o, k, sizeof k, NULL) <= 0) snprintf(k, sizeof k, "?%zu", ens_obj_index(o));
    /* siblings that share a key are told apart by their rank among them */
    const ens_obj *p = ens_obj_parent(o);
    size_t rank = 0;
    for (size_t i = 0; i < ens_obj_index(o); i++) {
      char k2[256];
      const ens_obj *s = ens_obj_child(p, i);
      if (strcmp(ens_obj_kind(s), ens_obj_kind(o)) == 0 && b->identity(s, k2, sizeof k2, NULL) > 0 &&
          strcmp(k, k2) == 0)
        rank++;
    }
    key = s_dupf("%s/%s %s~%zu", b->stack[depth - 1], ens_obj_kind(o), k, rank);
  }
  if (depth >= b->cap) {
    b->cap = depth * 2 + 8;
    b->stack = realloc(b->stack, b->cap * sizeof *b->stack);
  }
  b->stack[depth] = key;
  b->v->by_key[b->v->n] = (s_ent){key, o};
  b->v->n++;
  return 0;
}

static s_view s_view_of(const ens_doc *doc, ens_identity_fn identity) {
  s_view v = {calloc(ens_doc_count(doc), sizeof(s_ent)), calloc(ens_doc_count(doc), sizeof(s_ent)), 0, doc};
  s_build b = {&v, identity, NULL, 0};
  ens_obj_walk(ens_doc_root(doc), s_add_ent, &b);
  free(b.stack);
  memcpy(v.by_obj, v.by_key, v.n * sizeof *v.by_key);
  qsort(v.by_key, v.n, sizeof *v.by_key, s_cmp_key);
  qsort(v.by_obj, v.n, sizeof *v.by_obj, s_cmp_obj);
  for (size_t i = 1; i < v.n; i++)
    if (!strcmp(v.by_key[i - 1].key, v.by_key[i].key))
      fail_msg("two objects named %s (ids %#llx, %#llx)", v.by_key[i].key, (unsigned long long)ens_obj_id(v.by_key[i - 1].obj),
               (unsigned long long)ens_obj_id(v.by_key[i].obj));
  return v;
}

/* The view of doc whose keys are those of the object of the same id in
 * ref (through ref_view): a document that shares ids with ref. Objects ref
 * lacks are "+" and their own path. */
typedef struct {
  s_view *v;
  const ens_doc *ref;
  const s_view *ref_view;
  s_view own;
  char prefix; /* told apart from the keys of objects new elsewhere */
} s_mapped;

static const char *s_key(const s_view *v, const ens_obj *o);

static int s_add_mapped(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_mapped *mp = user;
  const ens_obj *r = ens_doc_get(mp->ref, ens_obj_id(o));
  const char *k = r && !strcmp(ens_obj_kind(r), ens_obj_kind(o)) ? s_key(mp->ref_view, r) : NULL;
  mp->v->by_key[mp->v->n++] = (s_ent){k ? s_dupf("%s", k) : s_dupf("+%c%s", mp->prefix, s_key(&mp->own, o)), o};
  return 0;
}

static void s_view_free(s_view *v);

static s_view s_view_mapped(const ens_doc *doc, const ens_doc *ref, const s_view *ref_view, ens_identity_fn identity,
                             char prefix) {
  s_view v = {calloc(ens_doc_count(doc), sizeof(s_ent)), calloc(ens_doc_count(doc), sizeof(s_ent)), 0, doc};
  s_mapped mp = {&v, ref, ref_view, s_view_of(doc, identity), prefix};
  ens_obj_walk(ens_doc_root(doc), s_add_mapped, &mp);
  s_view_free(&mp.own);
  memcpy(v.by_obj, v.by_key, v.n * sizeof *v.by_key);
  qsort(v.by_key, v.n, sizeof *v.by_key, s_cmp_key);
  qsort(v.by_obj, v.n, sizeof *v.by_obj, s_cmp_obj);
  for (size_t i = 1; i < v.n; i++)
    if (!strcmp(v.by_key[i - 1].key, v.by_key[i].key)) fail_msg("two objects mapped to %s", v.by_key[i].key);
  return v;
}

static void s_view_free(s_view *v) {
  for (size_t i = 0; i < v->n; i++) free(v->by_key[i].key);
  free(v->by_key);
  free(v->by_obj);
}

static const ens_obj *s_get(const s_view *v, const char *key) {
  s_ent probe = {(char *)key, NULL};
  const s_ent *e = bsearch(&probe, v->by_key, v->n, sizeof probe, s_cmp_key);
  return e ? e->obj : NULL;
}

static const char *s_key(const s_view *v, const ens_obj *o) {
  if (!o) return NULL;
  s_ent probe = {NULL, o};
  const s_ent *e = bsearch(&probe, v->by_obj, v->n, sizeof probe, s_cmp_obj);
  return e ? e->key : NULL;
}

/* --- canonical values --------------------------------------------------------------- */

/* The four documents of one merge: base, ours, theirs before the merge, and
 * theirs after it (merged). */
typedef struct {
  s_view v[4];
  ens_merge_prefer prefer;
  const ens_merge *m;
} s_four;

enum { B = 0, O = 1, T = 2, M = 3 };

/* A value as a string that compares across the documents: references by
 * the name of what they point to (found in any of the documents by id,
 * since ids are shared), "ref ?" when nothing has that id. */
static void s_canon(const s_four *f, int side, const ens_value *v, char *out, size_t size) {
  switch (v->type) {
  case ENS_NIL: snprintf(out, size, "-"); break;
  case ENS_INT: snprintf(out, size, "i%lld", (long long)v->u.i); break;
  case ENS_REAL: snprintf(out, size, "r%a", v->u.r); break;
  case ENS_BOOL: snprintf(out, size, "b%d", v->u.b); break;
  case ENS_STR:
  case ENS_BYTES: {
    size_t n = (size_t)snprintf(out, size, "%c%zu:", v->type == ENS_STR ? 's' : 'y', v->u.s.len);
    for (size_t i = 0; i < v->u.s.len && n + 3 < size; i++) n += (size_t)snprintf(out + n, size - n, "%02x", (unsigned char)v->u.s.ptr[i]);
    break;
  }
  case ENS_REF: {
    const char *name = s_key(&f->v[side], ens_doc_get(f->v[side].doc, v->u.ref));
    for (int s = 0; s < 3 && !name; s++) name = s_key(&f->v[s], ens_doc_get(f->v[s].doc, v->u.ref));
    snprintf(out, size, "ref %s", name ? name : "?");
    break;
  }
  }
}

static void s_prop(const s_four *f, int side, const ens_obj *o, const char *key, char *out, size_t size) {
  ens_value v = ens_nil();
  if (o) ens_obj_get(o, key, &v);
  s_canon(f, side, &v, out, size);
}

/* --- conflicts ------------------------------------------------------------------------ */

/* The name of the object a conflict is about. */
static const char *s_conflict_obj(const s_four *f, const ens_merge_conflict *c) {
  const char *k = NULL;
  for (int s = T; s >= B && !k; s--) k = s_key(&f->v[s], ens_doc_get(f->v[s].doc, c->id));
  return k;
}

static int s_has_conflict(const s_four *f, ens_conflict_kind kind, const char *obj, const char *key) {
  for (size_t i = 0; i < ens_merge_conflict_count(f->m); i++) {
    const ens_merge_conflict *c = ens_merge_conflict_at(f->m, i);
    if (c->kind != kind) continue;
    const char *name = s_conflict_obj(f, c);
    if (obj && (!name || strcmp(name, obj) != 0)) continue;
    if (key && (!c->key || strcmp(c->key, key) != 0)) continue;
    return 1;
  }
  return 0;
}

static void s_dump_conflicts(const s_four *f) {
  for (size_t i = 0; i < ens_merge_conflict_count(f->m); i++) {
    const ens_merge_conflict *c = ens_merge_conflict_at(f->m, i);
    const char *name = s_conflict_obj(f, c);
    fprintf(stderr, "  conflict %zu: kind %d on %s (%s) key %s ours_kept %d\n", i, (int)c->kind, name ? name : "?",
            c->path, c->key ? c->key : "-", c->ours_kept);
  }
}

/* --- the checks ------------------------------------------------------------------------ */

static int s_pref_ours(const s_four *f) { return f->prefer == ENS_MERGE_PREFER_OURS; }

/* The merged object of x: theirs' object of that name, found in the merged
 * document by id (theirs becomes the merged document); else by name. */
static const ens_obj *s_merged(const s_four *f, const char *x) {
  const ens_obj *t = s_get(&f->v[T], x);
  if (t) return ens_doc_get(f->v[M].doc, ens_obj_id(t));
  return s_get(&f->v[M], x);
}

/* The keys (not local) any of n objects has, each once. */
static size_t s_keys_of(const ens_obj *const *objs, int n, const char **keys, size_t cap) {
  size_t nk = 0;
  for (int s = 0; s < n; s++) {
    if (!objs[s]) continue;
    for (size_t k = 0; k < ens_obj_prop_count(objs[s]); k++) {
      const char *key;
      ens_value ignored;
      ens_obj_prop_at(objs[s], k, &key, &ignored);
      int seen = key[0] == '@';
      for (size_t q = 0; q < nk && !seen; q++) seen = !strcmp(keys[q], key);
      if (!seen && nk < cap) keys[nk++] = key;
    }
  }
  return nk;
}

/* A merged value is right when it is the one wanted, or, for a reference
 * to an object the merged document lost, a reference that dangles. */
static int s_value_ok(const s_four *f, const char *vm, const char *want) {
  if (!strcmp(vm, want)) return 1;
  return !strncmp(want, "ref ", 4) && !strncmp(vm, "ref ", 4) && !s_get(&f->v[M], want + 4);
}

/* 1 when the canonical value v of side s names an object s holds and the
 * merged document does not: a reference the merge would let dangle. */
static int s_lost_ref(const s_four *f, int s, const char *v) {
  if (strncmp(v, "ref ", 4) != 0 || !strcmp(v, "ref ?")) return 0;
  return s_get(&f->v[s], v + 4) && !s_get(&f->v[M], v + 4);
}

/* No reference of the merged document names what it lost, unless the side
 * it came from had it dangling already. */
static void s_check_no_dangling(const s_four *f) {
  char vm[512], vs[512];
  for (size_t i = 0; i < f->v[M].n; i++) {
    const char *x = f->v[M].by_key[i].key;
    const ens_obj *om = f->v[M].by_key[i].obj;
    for (size_t k = 0; k < ens_obj_prop_count(om); k++) {
      const char *key;
      ens_value v;
      ens_obj_prop_at(om, k, &key, &v);
      if (v.type != ENS_REF || key[0] == '@') continue;
      if (ens_doc_get(f->v[M].doc, v.u.ref)) continue;
      s_canon(f, M, &v, vm, sizeof vm);
      if (!strcmp(vm, "ref ?")) continue; /* names nothing any side ever had */
      int dangled = 0;
      for (int s = O; s <= T && !dangled; s++) {
        const ens_obj *os = s_get(&f->v[s], x);
        if (!os) continue;
        s_prop(f, s, os, key, vs, sizeof vs);
        dangled = !strcmp(vs, vm) && !s_get(&f->v[s], vm + 4);
      }
      if (!dangled) {
        s_dump_conflicts(f);
        fail_msg("%s.%s %s: the merge let it dangle", x, key, vm);
      }
    }
  }
}

/* Every property of every object the four documents share, three ways;
 * returns how many SET conflicts that predicts (each checked reported). */
static size_t s_check_props(const s_four *f) {
  size_t expected = 0;
  char vb[512], vo[512], vt[512], vm[512];
  const char *keys[64];
  for (size_t i = 0; i < f->v[B].n; i++) {
    const char *x = f->v[B].by_key[i].key;
    const ens_obj *ob = f->v[B].by_key[i].obj, *oo = s_get(&f->v[O], x), *ot = s_get(&f->v[T], x);
    const ens_obj *om = s_merged(f, x);
    if (!oo || !ot || !om) continue;
    const ens_obj *objs[3] = {ob, oo, ot};
    size_t nk = s_keys_of(objs, 3, keys, 64);
    for (size_t k = 0; k < nk; k++) {
      s_prop(f, B, ob, keys[k], vb, sizeof vb);
      s_prop(f, O, oo, keys[k], vo, sizeof vo);
      s_prop(f, T, ot, keys[k], vt, sizeof vt);
      s_prop(f, M, om, keys[k], vm, sizeof vm);
      /* kept text ('~') is merged the same way but never a conflict */
      int conflict = strcmp(vo, vb) && strcmp(vt, vb) && strcmp(vo, vt) && keys[k][0] != '~';
      const char *want = !strcmp(vo, vb) ? vt : !strcmp(vt, vb) ? vo : !strcmp(vo, vt) ? vo : s_pref_ours(f) ? vo : vt;
      /* a reference that would name what the merge deleted, where its side
       * held it: the other side's value, or the object goes with it */
      unsigned src = !strcmp(vo, vb) ? 2u : !strcmp(vt, vb) ? 1u : !strcmp(vo, vt) ? 3u : s_pref_ours(f) ? 1u : 2u;
      if ((!(src & 1) || s_lost_ref(f, O, vo)) && (!(src & 2) || s_lost_ref(f, T, vt))) {
        const char *alt = src == 1 ? vt : src == 2 ? vo : NULL;
        if ((!alt || s_lost_ref(f, src == 1 ? T : O, alt)) && !ens_obj_parent(ob))
          alt = "-"; /* the root stays: the property goes */
        else if (!alt || s_lost_ref(f, src == 1 ? T : O, alt))
          fail_msg("%s.%s: base %s ours %s theirs %s: the merged object names what is gone (%s) and is still there", x,
                   keys[k], vb, vo, vt, want);
        want = alt;
      }
      if (!s_value_ok(f, vm, want))
        fail_msg("%s.%s: base %s ours %s theirs %s: merged %s, want %s", x, keys[k], vb, vo, vt, vm, want);
      if (conflict) {
        expected++;
        if (!s_has_conflict(f, ENS_CONFLICT_SET, x, keys[k])) {
          s_dump_conflicts(f);
          fail_msg("%s.%s: base %s ours %s theirs %s: no SET conflict reported", x, keys[k], vb, vo, vt);
        }
      }
    }
  }
  return expected;
}

/* Objects both sides inserted with one name: merged property by property,
 * base absent. Returns the INSERT conflicts that predicts. */
static size_t s_check_inserts(const s_four *f) {
  size_t expected = 0;
  char vo[512], vt[512], vm[512];
  const char *keys[64];
  for (size_t i = 0; i < f->v[O].n; i++) {
    const char *x = f->v[O].by_key[i].key;
    const ens_obj *oo = f->v[O].by_key[i].obj, *ot = s_get(&f->v[T], x), *om = s_merged(f, x);
    if (s_get(&f->v[B], x) || !ot || !om) continue;
    const ens_obj *objs[2] = {oo, ot};
    size_t nk = s_keys_of(objs, 2, keys, 64);
    for (size_t k = 0; k < nk; k++) {
      s_prop(f, O, oo, keys[k], vo, sizeof vo);
      s_prop(f, T, ot, keys[k], vt, sizeof vt);
      s_prop(f, M, om, keys[k], vm, sizeof vm);
      const char *want = !strcmp(vo, "-") ? vt : !strcmp(vt, "-") ? vo : s_pref_ours(f) ? vo : vt;
      if (!s_value_ok(f, vm, want)) fail_msg("new %s.%s: ours %s theirs %s: merged %s, want %s", x, keys[k], vo, vt, vm, want);
      if (strcmp(vo, "-") && strcmp(vt, "-") && strcmp(vo, vt) && keys[k][0] != '~') {
        expected++;
        if (!s_has_conflict(f, ENS_CONFLICT_INSERT, x, keys[k])) {
          s_dump_conflicts(f);
          fail_msg("new %s.%s: ours %s theirs %s: no INSERT conflict", x, keys[k], vo, vt);
        }
      }
    }
  }
  return expected;
}

/* 1 when an object of side s has a reference to x that the object of its
 * name in base did not have at that key. */
static int s_newly_named(const s_four *f, int s, const char *x) {
  char want[512], vs[512], vb[512];
  snprintf(want, sizeof want, "ref %s", x);
  for (size_t i = 0; i < f->v[s].n; i++) {
    const ens_obj *os = f->v[s].by_key[i].obj, *ob = s_get(&f->v[B], f->v[s].by_key[i].key);
    for (size_t k = 0; k < ens_obj_prop_count(os); k++) {
      const char *key;
      ens_value v;
      ens_obj_prop_at(os, k, &key, &v);
      if (v.type != ENS_REF || key[0] == '@') continue;
      s_canon(f, s, &v, vs, sizeof vs);
      if (strcmp(vs, want) != 0) continue;
      s_prop(f, B, ob, key, vb, sizeof vb);
      if (strcmp(vb, want) != 0) return 1;
    }
  }
  return 0;
}

/* 1 when side s changed something of base object x that it holds (its
 * properties, parent, children's order, or children it inserted or moved
 * in), or made a new reference to it: the docs/merge.md meaning of
 * "edited" for a delete conflict. */
static int s_edited(const s_four *f, int s, const char *x) {
  const ens_obj *ob = s_get(&f->v[B], x), *os = s_get(&f->v[s], x);
  char a[512], b[512];
  if (!os) return 0;
  if (s_newly_named(f, s, x)) return 1;
  const char *pb = s_key(&f->v[B], ens_obj_parent(ob)), *ps = s_key(&f->v[s], ens_obj_parent(os));
  if (strcmp(pb, ps) != 0) return 1;
  const ens_obj *objs[2] = {ob, os};
  for (int q = 0; q < 2; q++)
    for (size_t k = 0; k < ens_obj_prop_count(objs[q]); k++) {
      const char *key;
      ens_value v;
      ens_obj_prop_at(objs[q], k, &key, &v);
      if (key[0] == '@' || key[0] == '~') continue; /* kept text alone is no edit */
      s_prop(f, B, ob, key, a, sizeof a);
      s_prop(f, s, os, key, b, sizeof b);
      if (strcmp(a, b) != 0) return 1;
    }
  size_t last = 0;
  for (size_t k = 0; k < ens_obj_child_count(os); k++) {
    const char *kid = s_key(&f->v[s], ens_obj_child(os, k));
    const ens_obj *kb = s_get(&f->v[B], kid);
    if (!kb || ens_obj_parent(kb) != ob) return 1;
    if (ens_obj_index(kb) < last) return 1;
    last = ens_obj_index(kb);
  }
  return 0;
}

typedef struct {
  const s_four *f;
  int side;  /* the side that deleted */
  int edited;
} s_group;

static int s_group_walk(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_group *g = user;
  const char *x = s_key(&g->f->v[B], o);
  if (s_get(&g->f->v[g->side], x)) return 1; /* not deleted: not in the group, nor what is below */
  if (s_edited(g->f, O + T - g->side, x)) g->edited = 1;
  return 0;
}

/* Walks the group under top without leaving it. */
static void s_group_scan(s_group *g, const ens_obj *o) {
  if (s_group_walk(o, 0, g)) return;
  for (size_t k = 0; k < ens_obj_child_count(o); k++) s_group_scan(g, ens_obj_child(o, k));
}

/* The top of the group of base object ob that side s deleted. */
static const ens_obj *s_group_top(const s_four *f, int s, const ens_obj *ob) {
  while (ens_obj_parent(ob) && !s_get(&f->v[s], s_key(&f->v[B], ens_obj_parent(ob)))) ob = ens_obj_parent(ob);
  return ob;
}

typedef struct {
  const ens_obj *top;
  int edited;
} s_top;

/* Groups ours deleted and theirs edited stay when theirs is preferred:
 * whatever theirs' objects in them name stays too (its group counts as
 * edited), and so on. */
static void s_keep_named(const s_four *f, s_top *tops, size_t n) {
  char v[512];
  for (int again = 1; again;) {
    again = 0;
    for (size_t i = 0; i < f->v[B].n; i++) {
      const ens_obj *ob = f->v[B].by_obj[i].obj, *ot = s_get(&f->v[T], f->v[B].by_obj[i].key);
      if (!ot || s_get(&f->v[O], f->v[B].by_obj[i].key) || !ens_obj_parent(ob)) continue;
      const ens_obj *top = s_group_top(f, O, ob);
      int kept = 0;
      for (size_t q = 0; q < n && !kept; q++) kept = tops[q].top == top && tops[q].edited;
      for (size_t k = 0; kept && k < ens_obj_prop_count(ot); k++) {
        const char *key;
        ens_value val;
        ens_obj_prop_at(ot, k, &key, &val);
        if (val.type != ENS_REF || key[0] == '@') continue;
        s_canon(f, T, &val, v, sizeof v);
        const ens_obj *xb = s_get(&f->v[B], v + 4);
        if (!xb || s_get(&f->v[O], v + 4) || !s_get(&f->v[T], v + 4) || !ens_obj_parent(xb)) continue;
        const ens_obj *xt = s_group_top(f, O, xb);
        for (size_t q = 0; q < n; q++)
          if (tops[q].top == xt && !tops[q].edited) tops[q].edited = again = 1;
      }
    }
  }
}

/* DELETE conflicts: one per group of base objects one side deleted that
 * the other edited; objects, deleted, found where they should be. */
static size_t s_check_deletes(const s_four *f) {
  size_t expected = 0;
  s_top *tops[3] = {NULL, calloc(f->v[B].n + 1, sizeof(s_top)), calloc(f->v[B].n + 1, sizeof(s_top))};
  size_t ntops[3] = {0, 0, 0};
  for (size_t i = 0; i < f->v[B].n; i++) {
    const char *x = f->v[B].by_obj[i].key;
    const ens_obj *ob = f->v[B].by_obj[i].obj;
    for (int s = O; s <= T; s++) {
      const ens_obj *p = ens_obj_parent(ob);
      if (s_get(&f->v[s], x) || !p || !s_get(&f->v[s], s_key(&f->v[B], p))) continue; /* not a group's top */
      s_group g = {f, s, 0};
      s_group_scan(&g, ob);
      tops[s][ntops[s]++] = (s_top){ob, g.edited};
    }
  }
  if (!s_pref_ours(f)) s_keep_named(f, tops[O], ntops[O]);
  for (int s = O; s <= T; s++)
    for (size_t i = 0; i < ntops[s]; i++) {
      const char *x = s_key(&f->v[B], tops[s][i].top);
      int kept = s_get(&f->v[M], x) != NULL;
      if (tops[s][i].edited) {
        expected++;
        if (!s_has_conflict(f, ENS_CONFLICT_DELETE, x, NULL)) {
          s_dump_conflicts(f);
          fail_msg("%s deleted by %s and edited by the other: no DELETE conflict", x, s == O ? "ours" : "theirs");
        }
        if (kept && (s == T || s_pref_ours(f))) fail_msg("%s: deleted and kept", x);
      } else if (kept) {
        fail_msg("%s deleted by %s, not edited by the other, is still there", x, s == O ? "ours" : "theirs");
      }
    }
  free(tops[O]);
  free(tops[T]);
  return expected;
}

/* Parents and child order of the objects the four share. */
static void s_check_places(const s_four *f) {
  for (size_t i = 0; i < f->v[B].n; i++) {
    const char *x = f->v[B].by_key[i].key;
    const ens_obj *ob = f->v[B].by_key[i].obj, *oo = s_get(&f->v[O], x), *ot = s_get(&f->v[T], x);
    const ens_obj *om = s_get(&f->v[M], x);
    if (!ens_obj_parent(ob)) goto order;
    if (!oo || !ot) continue;
    if (!om) {
      /* lost only where the other side's delete or a conflict says so */
      if (!ens_merge_conflict_count(f->m)) fail_msg("%s is gone without a conflict", x);
      continue;
    }
    const char *pb = s_key(&f->v[B], ens_obj_parent(ob)), *po = s_key(&f->v[O], ens_obj_parent(oo));
    const char *pt = s_key(&f->v[T], ens_obj_parent(ot)), *pm = s_key(&f->v[M], ens_obj_parent(om));
    const char *want = !strcmp(po, pb) ? pt : !strcmp(pt, pb) ? po : !strcmp(po, pt) ? po : s_pref_ours(f) ? po : pt;
    int both = strcmp(po, pb) && strcmp(pt, pb) && strcmp(po, pt);
    if (both && !s_has_conflict(f, ENS_CONFLICT_MOVE, x, NULL)) {
      s_dump_conflicts(f);
      fail_msg("%s moved under %s and under %s: no MOVE conflict", x, po, pt);
    }
    if (strcmp(pm, want) != 0 && s_get(&f->v[M], want) && !s_has_conflict(f, ENS_CONFLICT_MOVE, x, NULL)) {
      s_dump_conflicts(f);
      fail_msg("%s: parent base %s ours %s theirs %s: merged %s, want %s", x, pb, po, pt, pm, want);
    }
  order:
    if (!oo || !ot || !om) continue;
    /* the children all four hold under x, in each one's order */
    const ens_obj *lists[4] = {ob, oo, ot, om};
    size_t nk = ens_obj_child_count(ob);
    const char **seq[4];
    size_t n[4] = {0, 0, 0, 0};
    for (int s = 0; s < 4; s++) {
      seq[s] = calloc(ens_obj_child_count(lists[s]) + 1, sizeof **seq);
      for (size_t k = 0; k < ens_obj_child_count(lists[s]); k++) {
        const char *kid = s_key(&f->v[s], ens_obj_child(lists[s], k));
        int everywhere = 1;
        for (int q = 0; q < 4 && everywhere; q++) {
          const ens_obj *kq = s_get(&f->v[q], kid);
          everywhere = kq && ens_obj_parent(kq) && !strcmp(s_key(&f->v[q], ens_obj_parent(kq)), x);
        }
        if (everywhere) seq[s][n[s]++] = kid;
      }
    }
    (void)nk;
    int conflicted = s_has_conflict(f, ENS_CONFLICT_MOVE, x, NULL);
    for (size_t k = 0; k < n[B] && !conflicted; k++) conflicted = s_has_conflict(f, ENS_CONFLICT_MOVE, seq[B][k], NULL);
    if (!conflicted) {
      /* every pair of them: the order one side changed and the other kept */
      for (size_t a = 0; a < n[B]; a++)
        for (size_t b = a + 1; b < n[B]; b++) {
          int at[4];
          for (int s = 0; s < 4; s++) {
            size_t ia = 0, ib = 0;
            for (size_t k = 0; k < n[s]; k++) {
              if (!strcmp(seq[s][k], seq[B][a])) ia = k;
              if (!strcmp(seq[s][k], seq[B][b])) ib = k;
            }
            at[s] = ia < ib;
          }
          int wanted = at[O] == at[B] ? at[T] : at[O];
          if (at[M] != wanted) {
            s_dump_conflicts(f);
            for (int s = 0; s < 4; s++) {
              const ens_obj *lo = lists[s];
              fprintf(stderr, "  %c:", "BOTM"[s]);
              for (size_t k = 0; k < ens_obj_child_count(lo); k++)
                fprintf(stderr, " %s", s_key(&f->v[s], ens_obj_child(lo, k)));
              fprintf(stderr, "\n");
            }
            fail_msg("children of %s: %s before %s: base %d ours %d theirs %d merged %d", x, seq[B][a], seq[B][b],
                     at[B], at[O], at[T], at[M]);
          }
        }
    }
    for (int s = 0; s < 4; s++) free(seq[s]);
  }
}

/* Objects one side inserted are in the merged document, unless what they
 * went under is gone by a conflict. */
static void s_check_new(const s_four *f) {
  for (int s = O; s <= T; s++)
    for (size_t i = 0; i < f->v[s].n; i++) {
      const char *x = f->v[s].by_key[i].key;
      if (s_get(&f->v[B], x) || s_get(&f->v[M], x)) continue;
      if (!s_has_conflict(f, ENS_CONFLICT_DELETE, NULL, NULL) && !s_has_conflict(f, ENS_CONFLICT_MOVE, NULL, NULL))
        fail_msg("%s, new in %s, is not in the merged document and nothing conflicts", x, s == O ? "ours" : "theirs");
    }
}

/* --- random edits ------------------------------------------------------------------------ */

static ens_doc *s_copy(const ens_doc *doc, uint32_t site) {
  unsigned char *bytes;
  size_t len;
  ens_doc *copy;
  assert_int_equal(ens_snapshot_encode(doc, &bytes, &len), 0);
  assert_int_equal(ens_snapshot_decode(bytes, len, &copy), 0);
  ens_free(bytes);
  ens_doc_set_site(copy, site);
  return copy;
}

static int s_by_name(const ens_obj *obj, char *key, size_t size, void *user) {
  (void)user;
  ens_value v;
  if (ens_obj_get(obj, "name", &v) != 0 || v.type != ENS_STR) return 0;
  snprintf(key, size, "%.*s", (int)v.u.s.len, v.u.s.ptr);
  return 2;
}

static const char *s_kinds[] = {"group", "shape", "point"};
static const char *s_keys[] = {"a", "b", "c", "d", "w", "~src"};

static int s_has_name(const ens_doc *doc, const char *name) {
  s_view v = s_view_of(doc, NULL);
  int has = s_get(&v, name) != NULL;
  s_view_free(&v);
  return has;
}

static int s_in_subtree(const ens_obj *o, const ens_obj *top) {
  for (; o; o = ens_obj_parent(o))
    if (o == top) return 1;
  return 0;
}

/* n random edits, each its own transaction. Inserts named from a shared
 * pool go under a fixed base object each, so both sides may insert one
 * name under one parent; the rest get names of their own side. */
static void s_edit(tu_rng *r, ens_doc *doc, const ens_id *base_ids, size_t nbase, const char *who, int n,
                   int *counter) {
  char scratch[16];
  for (int e = 0; e < n; e++) {
    ens_txn *t = ens_txn_new("edit", NULL);
    uint32_t dice = tu_below(r, 100);
    if (dice < 40) {
      /* half of them on a few hot objects and keys, where the two sides meet */
      ens_id hot = base_ids[tu_below(r, nbase < 6 ? (uint32_t)nbase : 6)];
      int on_hot = tu_below(r, 2) && ens_doc_get(doc, hot);
      ens_txn_set(t, on_hot ? hot : tu_pick(r, doc, 1), s_keys[on_hot ? (tu_below(r, 3) ? 0 : 5) : tu_below(r, 6)],
                  tu_random_value(r, scratch, sizeof scratch, doc));
    } else if (dice < 55) {
      char name[32];
      ens_id parent = tu_pick(r, doc, 1);
      if (tu_below(r, 3) == 0) {
        uint32_t k = tu_below(r, 6);
        snprintf(name, sizeof name, "pool%u", k);
        parent = base_ids[(k * 7919u) % nbase];
        if (!ens_doc_get(doc, parent) || s_has_name(doc, name)) parent = 0;
      } else {
        snprintf(name, sizeof name, "%s%d", who, (*counter)++);
      }
      if (parent) {
        const ens_obj *p = ens_doc_get(doc, parent);
        char *pos = NULL;
        ens_doc_pos_at(doc, parent, tu_below(r, (uint32_t)ens_obj_child_count(p) + 1), &pos);
        /* (one kind per name: keys match within a kind) */
        const char *kind = strncmp(name, "pool", 4) ? s_kinds[tu_below(r, 3)] : "shape";
        ens_node *node = ens_txn_insert(t, parent, pos, ens_doc_new_id(doc), kind);
        ens_free(pos);
        ens_node_set(node, "name", ens_str(name));
        for (uint32_t k = 0, nk = tu_below(r, 3); k < nk; k++) {
          const char *kpos[] = {"F", "V", "k"};
          char kname[40];
          snprintf(kname, sizeof kname, "%s%d", who, (*counter)++);
          ens_node *kid = ens_node_add_child(node, kpos[k], ens_doc_new_id(doc), "point");
          ens_node_set(kid, "name", ens_str(kname));
          ens_node_set(kid, s_keys[tu_below(r, 6)], tu_random_value(r, scratch, sizeof scratch, doc));
        }
        for (uint32_t k = 0, np = tu_below(r, 3); k < np; k++)
          ens_node_set(node, s_keys[tu_below(r, 3)], tu_random_value(r, scratch, sizeof scratch, doc));
      }
    } else if (dice < 67) {
      ens_id id = tu_pick(r, doc, 0);
      const ens_obj *o = id ? ens_doc_get(doc, id) : NULL;
      while (o && ens_obj_child_count(o) && tu_below(r, 4))
        o = ens_obj_child(o, tu_below(r, (uint32_t)ens_obj_child_count(o)));
      if (o) ens_txn_delete(t, ens_obj_id(o));
    } else {
      /* a move to another parent, or (from 85) a reorder among siblings */
      ens_id id = tu_pick(r, doc, 0);
      const ens_obj *o = id ? ens_doc_get(doc, id) : NULL;
      const ens_obj *p = NULL;
      ens_value name;
      /* a pool object stays under its parent: two of one name under two
       * parents would be two objects */
      if (o && ens_obj_get(o, "name", &name) == 0 && name.u.s.len > 4 && !memcmp(name.u.s.ptr, "pool", 4)) o = NULL;
      if (o) p = dice < 85 ? ens_doc_get(doc, tu_pick(r, doc, 1)) : ens_obj_parent(o);
      if (o && p && !s_in_subtree(p, o)) {
        size_t n_other = ens_obj_child_count(p) - (ens_obj_parent(o) == p);
        size_t at = tu_below(r, (uint32_t)n_other + 1), seen = 0;
        const char *before = NULL, *after = NULL;
        for (size_t k = 0; k < ens_obj_child_count(p); k++) {
          const ens_obj *c = ens_obj_child(p, k);
          if (c == o) continue;
          if (seen == at) {
            after = ens_obj_pos(c);
            break;
          }
          before = ens_obj_pos(c);
          seen++;
        }
        char *pos = ens_pos_between(before, after);
        if (pos) ens_txn_move(t, id, ens_obj_id(p), pos);
        ens_free(pos);
      }
    }
    if (ens_txn_op_count(t) && ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) != 0)
      fail_msg("a random edit does not apply: %s", ens_error_last());
    ens_txn_free(t);
  }
}

/* --- one merge, checked ------------------------------------------------------------------ */

static void s_encode(const ens_txn *t, unsigned char **b, size_t *n) { assert_int_equal(ens_txn_encode(t, b, n), 0); }

/* The merge of ours into theirs twice (on two copies of theirs): the same
 * transaction bytes and conflicts; returns the first, applied to *merged. */
static ens_merge *s_merge_twice(const ens_doc *base, const ens_doc *ours, const ens_doc *theirs, const ens_merge_opts *opts,
                                ens_doc **merged) {
  ens_doc *t1 = s_copy(theirs, ens_doc_site(theirs)), *t2 = s_copy(theirs, ens_doc_site(theirs));
  ens_merge *m1, *m2;
  if (ens_merge3(base, ours, t1, opts, &m1) != 0) fail_msg("merge: %s", ens_error_last());
  assert_int_equal(ens_merge3(base, ours, t2, opts, &m2), 0);
  unsigned char *b1, *b2;
  size_t n1, n2;
  s_encode(ens_merge_txn(m1), &b1, &n1);
  s_encode(ens_merge_txn(m2), &b2, &n2);
  if (n1 != n2 || memcmp(b1, b2, n1) != 0) fail_msg("two merges of the same documents differ");
  ens_free(b1);
  ens_free(b2);
  assert_int_equal(ens_merge_conflict_count(m1), ens_merge_conflict_count(m2));
  for (size_t i = 0; i < ens_merge_conflict_count(m1); i++) {
    const ens_merge_conflict *c1 = ens_merge_conflict_at(m1, i), *c2 = ens_merge_conflict_at(m2, i);
    assert_int_equal(c1->kind, c2->kind);
    assert_true(c1->id == c2->id);
    assert_string_equal(c1->path, c2->path);
    assert_int_equal(c1->ours_kept, c2->ours_kept);
  }
  ens_merge_free(m2);
  ens_doc_free(t2);
  if (ens_doc_apply(t1, ens_merge_txn(m1), ENS_ORIGIN_LOCAL, NULL) != 0) {
    char *json = ens_txn_to_json(ens_merge_txn(m1));
    fprintf(stderr, "%s\n", json ? json : "");
    ens_free(json);
    fail_msg("the merge does not apply to theirs: %s", ens_error_last());
  }
  *merged = t1;
  return m1;
}

/* Merging with an unchanged side: ours == base gives nothing to do; theirs
 * == base gives ours' content. */
static void s_check_unchanged_sides(const ens_doc *base, const ens_doc *ours, const ens_doc *theirs,
                                    const ens_doc *ours_as_base, ens_merge_match base_match, ens_merge_opts opts) {
  ens_merge *m;
  ens_doc *t = s_copy(theirs, ens_doc_site(theirs));
  ens_merge_opts o1 = opts;
  o1.ours_match = base_match;
  assert_int_equal(ens_merge3(base, ours_as_base, t, &o1, &m), 0);
  if (ens_txn_op_count(ens_merge_txn(m)) != 0 || ens_merge_conflict_count(m) != 0)
    fail_msg("ours unchanged: %zu operations, %zu conflicts", ens_txn_op_count(ens_merge_txn(m)),
             ens_merge_conflict_count(m));
  ens_merge_free(m);
  ens_doc_free(t);
  t = s_copy(base, 9);
  assert_int_equal(ens_merge3(base, ours, t, &opts, &m), 0);
  if (ens_merge_conflict_count(m) != 0) fail_msg("theirs unchanged: %zu conflicts", ens_merge_conflict_count(m));
  if (ens_doc_apply(t, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL) != 0)
    fail_msg("theirs unchanged: the merge does not apply: %s", ens_error_last());
  if (ens_doc_content_hash(t) != ens_doc_content_hash(ours)) fail_msg("theirs unchanged: the merge is not ours");
  ens_merge_free(m);
  ens_doc_free(t);
}

typedef struct {
  size_t merges, ops, conflicts[4];
} s_stats;

static void test_random_concurrent_edits_by_id(void **state) {
  (void)state;
  uint64_t seed = tu_seed("merge-properties-by-id", 20261212);
  s_stats st = {0};
  int rounds = 400;
  for (int round = 0; round < rounds; round++) {
    tu_rng r = {seed + (uint64_t)round * 0x9e3779b97f4a7c15ULL};
    if (getenv("ENS_MERGE_TRACE")) fprintf(stderr, "round %d\n", round);
    ens_doc *base = tu_random_doc(&r, 1, 20 + tu_below(&r, 200));
    size_t nbase;
    ens_id *ids = tu_all_ids(base, &nbase);
    ens_doc *ours = s_copy(base, 2), *theirs = s_copy(base, 3);
    int counter = 0;
    s_edit(&r, ours, ids, nbase, "ours", (int)tu_below(&r, 14), &counter);
    s_edit(&r, theirs, ids, nbase, "theirs", (int)tu_below(&r, 14), &counter);
    ens_merge_opts opts = {s_by_name, NULL, ENS_MERGE_BY_ID, ENS_MERGE_BY_ID,
                           tu_below(&r, 2) ? ENS_MERGE_PREFER_OURS : ENS_MERGE_PREFER_THEIRS, NULL, NULL};
    ens_doc *merged;
    ens_merge *m = s_merge_twice(base, ours, theirs, &opts, &merged);
    s_four f = {{s_view_of(base, NULL), s_view_of(ours, NULL), s_view_of(theirs, NULL), s_view_of(merged, NULL)},
                opts.prefer, m};
    size_t sets = s_check_props(&f), inserts = s_check_inserts(&f), deletes = s_check_deletes(&f);
    s_check_places(&f);
    s_check_new(&f);
    s_check_no_dangling(&f);
    /* exactly those SET, INSERT and DELETE conflicts */
    size_t got[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < ens_merge_conflict_count(m); i++) got[ens_merge_conflict_at(m, i)->kind]++;
    if (got[ENS_CONFLICT_SET] != sets || got[ENS_CONFLICT_INSERT] != inserts || got[ENS_CONFLICT_DELETE] != deletes) {
      s_dump_conflicts(&f);
      fail_msg("round %d: conflicts SET %zu INSERT %zu DELETE %zu, predicted %zu %zu %zu", round,
               got[ENS_CONFLICT_SET], got[ENS_CONFLICT_INSERT], got[ENS_CONFLICT_DELETE], sets, inserts, deletes);
    }
    for (int k = 0; k < 4; k++) st.conflicts[k] += got[k];
    st.merges++;
    st.ops += ens_txn_op_count(ens_merge_txn(m));
    ens_doc *base_copy = s_copy(base, 2);
    s_check_unchanged_sides(base, ours, theirs, base_copy, ENS_MERGE_BY_ID, opts);
    for (int s = 0; s < 4; s++) s_view_free(&f.v[s]);
    ens_merge_free(m);
    ens_doc_free(merged);
    ens_doc_free(base_copy);
    ens_doc_free(ours);
    ens_doc_free(theirs);
    ens_doc_free(base);
    free(ids);
  }
  fprintf(stderr, "by id: %zu merges, %zu operations, conflicts: %zu set, %zu delete, %zu move, %zu insert\n",
          st.merges, st.ops, st.conflicts[ENS_CONFLICT_SET], st.conflicts[ENS_CONFLICT_DELETE],
          st.conflicts[ENS_CONFLICT_MOVE], st.conflicts[ENS_CONFLICT_INSERT]);
}

/* --- documents read from a format -------------------------------------------------------- */

typedef struct {
  const char *what;
  ens_identity_fn identity;
  ens_refs_fn refs;
  int (*read)(const void *data, size_t len, ens_doc **out);
  int (*write)(const ens_doc *doc, unsigned char **out, size_t *len);
  void (*edit)(tu_rng *r, ens_doc *doc, int n);
} s_format;

/* doc written to its format and read back. */
static ens_doc *s_reread(const s_format *fmt, const ens_doc *doc, uint32_t site) {
  unsigned char *bytes;
  size_t len;
  ens_doc *back;
  if (fmt->write(doc, &bytes, &len) != 0) fail_msg("%s: write: %s", fmt->what, ens_error_last());
  if (fmt->read(bytes, len, &back) != 0) fail_msg("%s: what was written does not read: %s", fmt->what, ens_error_last());
  ens_free(bytes);
  ens_doc_set_site(back, site);
  return back;
}

/* The edit's transaction, made by call (into t), applied to doc. */
#define S_EDIT(call)                  \
  do {                                \
    int rc_ = (call);                 \
    s_apply_edit(doc, rc_, t);        \
    t = NULL;                         \
  } while (0)

static int s_apply_edit(ens_doc *doc, int rc, ens_txn *t) {
  if (rc) return rc; /* an edit the font or drawing refuses (ENS_EINVAL, ENS_EEXISTS, ...): none */
  if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) != 0) fail_msg("an edit does not apply: %s", ens_error_last());
  ens_txn_free(t);
  return 0;
}

static int s_has_contour(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  (void)user;
  return strcmp(ens_obj_kind(o), ENS_SFD_CONTOUR) == 0;
}

/* Names of the font's glyphs (at most cap): those with contours first,
 * each part in font order. */
static size_t s_glyphs(const ens_doc *doc, char (*names)[64], size_t cap) {
  const ens_obj *root = ens_doc_root(doc);
  size_t n = 0;
  for (int outlined = 1; outlined >= 0; outlined--)
    for (size_t k = 0; k < ens_obj_child_count(root) && n < cap; k++) {
      const ens_obj *g = ens_obj_child(root, k);
      ens_value v;
      if (strcmp(ens_obj_kind(g), ENS_SFD_GLYPH) || ens_obj_get(g, "name", &v) || v.type != ENS_STR) continue;
      if ((ens_obj_walk(g, s_has_contour, NULL) != 0) != outlined) continue;
      snprintf(names[n++], 64, "%.*s", (int)v.u.s.len, v.u.s.ptr);
    }
  return n;
}

/* The glyph edits of a type designer, on a few glyphs most of the time so
 * that the two sides meet. */
static void s_edit_sfd(tu_rng *r, ens_doc *doc, int n) {
  static char names[4096][64];
  for (int e = 0; e < n; e++) {
    size_t ng = s_glyphs(doc, names, 4096);
    if (!ng) return;
    const char *g = names[tu_below(r, 3) ? tu_below(r, ng < 3 ? (uint32_t)ng : 3) : tu_below(r, (uint32_t)ng)];
    ens_txn *t = NULL;
    uint32_t c = tu_below(r, 3), i = tu_below(r, 8);
    double x = (double)tu_below(r, 1000), y = (double)tu_below(r, 1000);
    switch (tu_below(r, 11)) {
    case 0: {
      ens_value w;
      const ens_obj *go = ens_glyph_find(doc, g);
      int width = go && ens_obj_get(go, "width", &w) == 0 && w.type == ENS_INT ? (int)w.u.i : 500;
      S_EDIT(ens_glyph_set_width(doc, g, width + 1 + (int)tu_below(r, 50), &t));
      break;
    }
    case 1:
    case 2: {
      ens_glyph_pt pts[3] = {{c, i}, {tu_below(r, 2), tu_below(r, 6)}, {0, tu_below(r, 4)}};
      S_EDIT(ens_glyph_move_points(doc, g, pts, 1 + tu_below(r, 3), (double)tu_below(r, 9) - 4,
                                              (double)tu_below(r, 9) - 4, &t));
      break;
    }
    case 3: S_EDIT(ens_glyph_add_point(doc, g, c, i, x, y, &t)); break;
    case 4: S_EDIT(ens_glyph_remove_point(doc, g, c, i, &t)); break;
    case 5: {
      ens_glyph_node nodes[3] = {{x, y, 0, 0, 0, 0, 0}, {x + 100, y, 0, 0, 0, 0, 0}, {x + 50, y + 80, 0, 0, 0, 0, 0}};
      S_EDIT(ens_glyph_add_contour(doc, g, nodes, 3, 1, &t));
      break;
    }
    case 6: S_EDIT(ens_glyph_remove_contour(doc, g, c, &t)); break;
    case 7: {
      char name[32];
      snprintf(name, sizeof name, "merge%u", tu_below(r, 4));
      S_EDIT(ens_glyph_add(doc, name, -1, 400 + (int)tu_below(r, 3), &t));
      break;
    }
    case 8: S_EDIT(ens_glyph_remove(doc, names[tu_below(r, (uint32_t)ng)], &t)); break;
    case 9: S_EDIT(ens_glyph_set_unicode(doc, g, 0xE000 + tu_below(r, 8), &t)); break;
    default: S_EDIT(ens_glyph_reverse_contour(doc, g, c, &t)); break;
    }
  }
}

static int s_collect_elements(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  char (*addr)[ENS_SVG_ADDRESS_MAX] = user;
  size_t *n = (size_t *)((char *)user + 256 * ENS_SVG_ADDRESS_MAX);
  if (ens_obj_kind(o)[0] == '#' || *n >= 256) return 0;
  if (ens_svg_address(o, addr[*n], ENS_SVG_ADDRESS_MAX) == 0) ++*n;
  return 0;
}

/* An illustrator's edits. */
static void s_edit_svg(tu_rng *r, ens_doc *doc, int n) {
  static char buf[256 * ENS_SVG_ADDRESS_MAX + sizeof(size_t)];
  char(*addr)[ENS_SVG_ADDRESS_MAX] = (char(*)[ENS_SVG_ADDRESS_MAX])buf;
  size_t *na = (size_t *)(buf + 256 * ENS_SVG_ADDRESS_MAX);
  static const char *attrs[] = {"fill", "opacity", "x", "data-merge"};
  for (int e = 0; e < n; e++) {
    *na = 0;
    ens_obj_walk(ens_doc_root(doc), s_collect_elements, buf);
    if (*na < 2) return;
    /* the root element is the first; mostly the first few after it */
    const char *el = addr[1 + (tu_below(r, 2) ? tu_below(r, *na - 1 < 8 ? (uint32_t)*na - 1 : 8)
                                              : tu_below(r, (uint32_t)*na - 1))];
    ens_txn *t = NULL;
    char value[32], markup[96];
    snprintf(value, sizeof value, "%u", tu_below(r, 100));
    switch (tu_below(r, 11)) {
    case 0:
    case 1:
    case 2: S_EDIT(ens_svg_set_attr(doc, el, attrs[tu_below(r, 4)], value, &t)); break;
    case 3: S_EDIT(ens_svg_remove_attr(doc, el, attrs[tu_below(r, 4)], &t)); break;
    case 4: S_EDIT(ens_svg_translate(doc, el, 1 + tu_below(r, 5), tu_below(r, 5), &t)); break;
    case 5: S_EDIT(ens_svg_delete(doc, el, &t)); break;
    case 6: {
      if (tu_below(r, 2)) snprintf(markup, sizeof markup, "<rect id=\"pool%u\" width=\"%s\" height=\"4\"/>", tu_below(r, 4), value);
      else snprintf(markup, sizeof markup, "<circle r=\"%s\"/>", value);
      const char *parent = tu_below(r, 2) ? addr[0] : el;
      S_EDIT(ens_svg_insert(doc, parent, (long)tu_below(r, 4) - 1, markup, strlen(markup), &t));
      break;
    }
    case 7: S_EDIT(ens_svg_raise(doc, el, &t)); break;
    case 8: S_EDIT(ens_svg_lower(doc, el, &t)); break;
    case 9: S_EDIT(ens_svg_duplicate(doc, el, &t)); break;
    default: S_EDIT(ens_svg_set_style(doc, el, "stroke", value, &t)); break;
    }
  }
}

/* Rounds of: two edited copies of a file, written and read back (matched
 * by key), theirs either a live copy (sharing ids with base, as a session
 * is) or a file too; merged, checked, the result written and read back. */
static void s_format_rounds(const s_format *fmt, const char *path, uint64_t seed, int rounds) {
  ens_doc *base;
  size_t len;
  char *data = tu_read_file(path, &len);
  assert_non_null(data);
  if (fmt->read(data, len, &base) != 0) fail_msg("%s: %s", path, ens_error_last());
  free(data);
  size_t merges = 0, ops = 0, sets = 0, conflicts = 0;
  for (int round = 0; round < rounds; round++) {
    tu_rng r = {seed + (uint64_t)round * 0x9e3779b97f4a7c15ULL};
    if (getenv("ENS_MERGE_TRACE")) fprintf(stderr, "%s round %d\n", path, round);
    int t_by_id = round % 2 == 0;
    ens_doc *ours_live = s_copy(base, 2), *theirs_live = s_copy(base, 3);
    fmt->edit(&r, ours_live, (int)tu_below(&r, 12));
    fmt->edit(&r, theirs_live, (int)tu_below(&r, 12));
    ens_doc *ours = s_reread(fmt, ours_live, 2);
    ens_doc *theirs = t_by_id ? s_copy(theirs_live, 3) : s_reread(fmt, theirs_live, 3);
    ens_merge_opts opts = {fmt->identity, NULL, ENS_MERGE_BY_KEY, t_by_id ? ENS_MERGE_BY_ID : ENS_MERGE_BY_KEY,
                           tu_below(&r, 2) ? ENS_MERGE_PREFER_OURS : ENS_MERGE_PREFER_THEIRS, fmt->refs, NULL};
    ens_doc *merged;
    ens_merge *m = s_merge_twice(base, ours, theirs, &opts, &merged);
    /* the merged document writes, reads back, and writes the same again */
    ens_doc *back = s_reread(fmt, merged, 4);
    unsigned char *w1, *w2;
    size_t n1, n2;
    assert_int_equal(fmt->write(merged, &w1, &n1), 0);
    assert_int_equal(fmt->write(back, &w2, &n2), 0);
    if (n1 != n2 || memcmp(w1, w2, n1) != 0) fail_msg("%s round %d: the merged document does not write back the same", path, round);
    ens_free(w1);
    ens_free(w2);
    s_view vb = s_view_of(base, fmt->identity), vo = s_view_of(ours, fmt->identity);
    s_view vt = t_by_id ? s_view_mapped(theirs, base, &vb, fmt->identity, 'T') : s_view_of(theirs, fmt->identity);
    s_view vm = s_view_mapped(merged, theirs, &vt, fmt->identity, 'M');
    s_four f = {{vb, vo, vt, vm}, opts.prefer, m};
    size_t want = s_check_props(&f), got = 0;
    for (size_t i = 0; i < ens_merge_conflict_count(m); i++) got += ens_merge_conflict_at(m, i)->kind == ENS_CONFLICT_SET;
    if (got != want) {
      s_dump_conflicts(&f);
      fail_msg("%s round %d: %zu SET conflicts, predicted %zu", path, round, got, want);
    }
    ens_doc *base_again = s_reread(fmt, base, 2);
    s_check_unchanged_sides(base, ours, theirs, base_again, ENS_MERGE_BY_KEY, opts);
    merges++;
    ops += ens_txn_op_count(ens_merge_txn(m));
    sets += want;
    conflicts += ens_merge_conflict_count(m);
    for (int s = 0; s < 4; s++) s_view_free(&f.v[s]);
    ens_merge_free(m);
    ens_doc_free(merged);
    ens_doc_free(back);
    ens_doc_free(base_again);
    ens_doc_free(ours);
    ens_doc_free(theirs);
    ens_doc_free(ours_live);
    ens_doc_free(theirs_live);
  }
  fprintf(stderr, "%s: %zu merges, %zu operations, %zu conflicts (%zu on properties)\n", path, merges, ops, conflicts, sets);
  ens_doc_free(base);
}

/* The same on the files bundled in tests/resources: always. */
static void test_random_glyph_edits_on_the_bundled_font(void **state) {
  (void)state;
  uint64_t seed = tu_seed("merge-properties-sfd-bundled", 41);
  s_format fmt = {"SFD", ens_sfd_identity, NULL, ens_sfd_read, ens_sfd_write, s_edit_sfd};
  char path[4096];
  snprintf(path, sizeof path, "%s/fonts/DejaVuSans-ExtraLight-subset.sfd", tu_resources_dir());
  s_format_rounds(&fmt, path, seed, 120);
}

static void test_random_drawing_edits_on_bundled_drawings(void **state) {
  (void)state;
  uint64_t seed = tu_seed("merge-properties-svg-bundled", 43);
  s_format fmt = {"SVG", ens_svg_identity, ens_svg_refs, ens_svg_read, ens_svg_write, s_edit_svg};
  const char *files[] = {"drawings/adwaita/go-home-symbolic.svg", "drawings/resvg/structure/style/rule-specificity.svg"};
  for (size_t k = 0; k < 2; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", tu_resources_dir(), files[k]);
    s_format_rounds(&fmt, path, seed + k, 120);
  }
}

static void test_random_glyph_edits_by_key(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): random glyph edits of its fonts");
  uint64_t seed = tu_seed("merge-properties-sfd", 31);
  s_format fmt = {"SFD", ens_sfd_identity, NULL, ens_sfd_read, ens_sfd_write, s_edit_sfd};
  const char *files[] = {"sfd/fontforge-tests/StrokeTests.sfd", "sfd/fontforge-tests/Hinting.sfd"};
  for (size_t k = 0; k < 2; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", corpus, files[k]);
    s_format_rounds(&fmt, path, seed + k, 120);
  }
}

static void test_random_drawing_edits_by_key(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): random edits of its drawings");
  uint64_t seed = tu_seed("merge-properties-svg", 37);
  s_format fmt = {"SVG", ens_svg_identity, ens_svg_refs, ens_svg_read, ens_svg_write, s_edit_svg};
  const char *files[] = {"svg/librsvg/rsvg/tests/fixtures/reftests/svg1.1/struct-group-03-t.svg",
                         "svg/librsvg/rsvg/tests/fixtures/reftests/svg1.1/coords-trans-01-b.svg"};
  for (size_t k = 0; k < 2; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", corpus, files[k]);
    s_format_rounds(&fmt, path, seed + k, 120);
  }
}

/* A list cut in two by an object neither side moves: ours reorders the
 * first part and inserts there, theirs the second. Changes that do not
 * overlap are all kept: no conflict, ours' first part then theirs' second. */
static void test_reorders_of_separate_stretches_are_both_kept(void **state) {
  (void)state;
  uint64_t seed = tu_seed("merge-separate-stretches", 77);
  for (int round = 0; round < 300; round++) {
    tu_rng r = {seed + (uint64_t)round * 0x9e3779b97f4a7c15ULL};
    size_t half = 1 + tu_below(&r, 30);
    ens_doc *base = ens_doc_new("list", 1);
    ens_txn *t = ens_txn_new("build", NULL);
    for (size_t k = 0; k < 2 * half + 1; k++) {
      char name[16], *pos = ens_pos_seq(k, 2 * half + 1);
      snprintf(name, sizeof name, "e%zu", k);
      ens_node_set(ens_txn_insert(t, ENS_ROOT_ID, pos, ens_doc_new_id(base), "item"), "name", ens_str(name));
      ens_free(pos);
    }
    assert_int_equal(ens_doc_apply(base, t, ENS_ORIGIN_LOCAL, NULL), 0);
    ens_txn_free(t);
    ens_doc *sides[2] = {s_copy(base, 2), s_copy(base, 3)};
    for (int s = 0; s < 2; s++) {
      int counter = 0;
      for (uint32_t e = 0, n = 1 + tu_below(&r, 8); e < n; e++) {
        /* the part of this side: the children before (ours) or after
         * (theirs) the separator e<half> */
        const ens_obj *root = ens_doc_root(sides[s]);
        size_t nk = ens_obj_child_count(root), sep = 0;
        for (size_t k = 0; k < nk; k++) {
          ens_value v;
          ens_obj_get(ens_obj_child(root, k), "name", &v);
          char name[16];
          snprintf(name, sizeof name, "e%zu", half);
          if (v.u.s.len == strlen(name) && !memcmp(v.u.s.ptr, name, v.u.s.len)) sep = k;
        }
        size_t lo = s ? sep + 1 : 0, hi = s ? nk : sep; /* [lo, hi) */
        if (hi <= lo) continue;
        t = ens_txn_new("edit", NULL);
        size_t at = lo + tu_below(&r, (uint32_t)(hi - lo + 1)); /* a gap of the part */
        const char *before = at > 0 ? ens_obj_pos(ens_obj_child(root, at - 1)) : NULL;
        const char *after = at < nk ? ens_obj_pos(ens_obj_child(root, at)) : NULL;
        char *pos = ens_pos_between(before, after);
        if (tu_below(&r, 4) == 0) {
          char name[24];
          snprintf(name, sizeof name, "%s%d", s ? "theirs" : "ours", counter++);
          ens_node_set(ens_txn_insert(t, ENS_ROOT_ID, pos, ens_doc_new_id(sides[s]), "item"), "name", ens_str(name));
        } else {
          const ens_obj *o = ens_obj_child(root, lo + tu_below(&r, (uint32_t)(hi - lo)));
          ens_txn_move(t, ens_obj_id(o), ENS_ROOT_ID, pos);
        }
        ens_free(pos);
        assert_int_equal(ens_doc_apply(sides[s], t, ENS_ORIGIN_LOCAL, NULL), 0);
        ens_txn_free(t);
      }
    }
    ens_merge_opts opts = {s_by_name, NULL, ENS_MERGE_BY_ID, ENS_MERGE_BY_ID,
                           tu_below(&r, 2) ? ENS_MERGE_PREFER_OURS : ENS_MERGE_PREFER_THEIRS, NULL, NULL};
    ens_doc *merged;
    ens_merge *m = s_merge_twice(base, sides[0], sides[1], &opts, &merged);
    if (ens_merge_conflict_count(m)) fail_msg("round %d: %zu conflicts", round, ens_merge_conflict_count(m));
    /* ours' children up to the separator, then theirs' from it */
    s_view vo = s_view_of(sides[0], NULL), vt = s_view_of(sides[1], NULL), vm = s_view_of(merged, NULL);
    const ens_obj *ro = ens_doc_root(sides[0]), *rt = ens_doc_root(sides[1]), *rm = ens_doc_root(merged);
    size_t k = 0, j = 0, sep_t = 0;
    char sep[16];
    snprintf(sep, sizeof sep, "e%zu", half);
    for (size_t q = 0; q < ens_obj_child_count(rt); q++)
      if (!strcmp(s_key(&vt, ens_obj_child(rt, q)), sep)) sep_t = q;
    for (; k < ens_obj_child_count(ro); k++, j++) {
      const char *want = s_key(&vo, ens_obj_child(ro, k));
      if (!strcmp(want, sep)) break;
      if (j >= ens_obj_child_count(rm) || strcmp(s_key(&vm, ens_obj_child(rm, j)), want))
        fail_msg("round %d: merged child %zu is not ours' %s", round, j, want);
    }
    for (size_t q = sep_t; q < ens_obj_child_count(rt); q++, j++)
      if (j >= ens_obj_child_count(rm) || strcmp(s_key(&vm, ens_obj_child(rm, j)), s_key(&vt, ens_obj_child(rt, q))))
        fail_msg("round %d: merged child %zu is not theirs' %s", round, j, s_key(&vt, ens_obj_child(rt, q)));
    assert_int_equal(j, ens_obj_child_count(rm));
    s_view_free(&vo);
    s_view_free(&vt);
    s_view_free(&vm);
    ens_merge_free(m);
    ens_doc_free(merged);
    ens_doc_free(sides[0]);
    ens_doc_free(sides[1]);
    ens_doc_free(base);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_concurrent_edits_by_id),
      cmocka_unit_test(test_reorders_of_separate_stretches_are_both_kept),
      cmocka_unit_test(test_random_glyph_edits_on_the_bundled_font),
      cmocka_unit_test(test_random_drawing_edits_on_bundled_drawings),
      cmocka_unit_test(test_random_glyph_edits_by_key),
      cmocka_unit_test(test_random_drawing_edits_by_key),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
