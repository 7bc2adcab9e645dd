/* Three-way merge: references to what a side deleted. A reference one side
 * makes to what the other deleted is an edit of it (the delete is a
 * conflict); and the merged document never holds a reference that the
 * merge made dangle: it goes with what it names (docs/merge.md,
 * "References"). References are ENS_REF values, and the names a format's
 * refs function finds in text (SVG's url(#id)). */
#include <stdlib.h>
#include <string.h>

#include "../txn/match.h"
#include "../util/error.h"
#include "../util/hash.h"
#include "merge_int.h"

#define S_BIT(side) (1u << (side))

/* --- names: what a reference held in text names ------------------------------------- */

/* The identity key of o when it is a name (2), else 0; key holds ENS__KEY_MAX. */
static size_t s_name_of(const ens_merge *m, const ens_obj *o, char *key) {
  key[0] = '\0';
  if (m->opts.identity(o, key, ENS__KEY_MAX, m->opts.identity_user) != 2) return 0;
  key[ENS__KEY_MAX - 1] = '\0';
  return strlen(key);
}

/* The node whose object of side s has name (len bytes), or S_NONE. */
static uint32_t s_names_get(const ens_merge *m, int s, const char *name, size_t len) {
  const ens__names *t = &m->names[s];
  if (!t->cap || !len || len >= ENS__KEY_MAX) return S_NONE;
  uint64_t h = ens__hash_bytes(name, len, 0x6d65726765ULL) | 1; /* 0 marks a free slot */
  char key[ENS__KEY_MAX];
  for (size_t i = (size_t)h & (t->cap - 1); t->hash[i]; i = (i + 1) & (t->cap - 1)) {
    if (t->hash[i] != h) continue;
    const ens_obj *o = m->nodes[t->node[i]].obj[s];
    if (s_name_of(m, o, key) == len && memcmp(key, name, len) == 0) return t->node[i];
  }
  return S_NONE;
}

typedef struct {
  ens_merge *m;
  int side;
} s_names_walk;

/* The first object of a name in the document's order is the one named
 * (SVG's getElementById). */
static int s_names_put(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_names_walk *w = user;
  ens_merge *m = w->m;
  ens__names *t = &m->names[w->side];
  char key[ENS__KEY_MAX];
  size_t len = o->parent ? s_name_of(m, o, key) : 0;
  uint32_t node = len ? ens__merge_node_of(m, w->side, o) : S_NONE;
  if (node == S_NONE || s_names_get(m, w->side, key, len) != S_NONE) return 0;
  uint64_t h = ens__hash_bytes(key, len, 0x6d65726765ULL) | 1;
  size_t i = (size_t)h & (t->cap - 1);
  while (t->hash[i]) i = (i + 1) & (t->cap - 1);
  t->hash[i] = h;
  t->node[i] = node;
  t->count++;
  return 0;
}

static int s_names_build(ens_merge *m, int s) {
  ens__names *t = &m->names[s];
  size_t cap = 64;
  while (cap < 2 * ens_doc_count(m->doc[s]) + 2) cap *= 2;
  t->hash = calloc(cap, sizeof *t->hash);
  t->node = malloc(cap * sizeof *t->node);
  if (!t->hash || !t->node) return ens__error(ENS_ENOMEM, "out of memory merging");
  t->cap = cap;
  t->built = 1;
  s_names_walk w = {m, s};
  return ens_obj_walk(m->doc[s]->root, s_names_put, &w);
}

/* --- the objects a value names ------------------------------------------------------- */

/* Called for each node a value names that its side holds; a positive
 * return stops the walk and is returned, a negative one is an error. */
typedef int (*s_target_fn)(ens_merge *m, uint32_t r, void *user);

typedef struct {
  ens_merge *m;
  int side;
  s_target_fn fn;
  void *user;
} s_found_ctx;

static int s_found(const char *name, size_t len, void *ctx) {
  s_found_ctx *c = ctx;
  if (!c->m->names[c->side].built) {
    int rc = s_names_build(c->m, c->side);
    if (rc) return rc;
  }
  uint32_t r = s_names_get(c->m, c->side, name, len);
  return r == S_NONE ? 0 : c->fn(c->m, r, c->user);
}

static int s_is_ref(const ens_merge *m, const ens_value *v) {
  return v->type == ENS_REF || (m->opts.refs && m->opts.identity && (v->type == ENS_STR || v->type == ENS_BYTES));
}

/* The nodes that side s's value v of o's property key names and that side
 * holds (a reference that dangles on its own side names nothing). */
static int s_targets(ens_merge *m, int s, const ens_obj *o, const char *key, const ens_value *v, s_target_fn fn,
                     void *user) {
  if (ens__key_is_local(key) || !s_is_ref(m, v)) return 0;
  if (v->type == ENS_REF) {
    uint32_t r = ens__merge_ref_node(m, s, v->u.ref);
    return r == S_NONE || !m->nodes[r].obj[s] ? 0 : fn(m, r, user);
  }
  if (ens__key_is_kept_text(key)) return 0; /* a copy of the file's text, not what it says */
  s_found_ctx c = {m, s, fn, user};
  return m->opts.refs(o, key, *v, s_found, &c, m->opts.refs_user);
}

static int s_is_node(ens_merge *m, uint32_t r, void *user) {
  (void)m;
  return r == *(const uint32_t *)user;
}

/* --- references as edits of what the other side deleted ------------------------------- */

typedef struct {
  uint32_t i;      /* the node holding the reference */
  int s, d;        /* the side that holds it, the side that deleted */
  const char *key; /* its property */
  int any;         /* 1: every reference counts, 0: only those base did not have */
  int marked;      /* set when a group was newly marked */
} s_touch_ctx;

static int s_touch(ens_merge *m, uint32_t r, void *user) {
  s_touch_ctx *c = user;
  const ens__mnode *rn = &m->nodes[r];
  if (r >= m->nbase || rn->obj[c->d] || rn->grp[c->d] == S_NONE) return 0; /* the other side holds it */
  uint16_t flag = S_TOUCHED(c->d);
  if (m->nodes[rn->grp[c->d]].flags & flag) return 0;
  const ens_obj *b = m->nodes[c->i].obj[ENS__BASE];
  if (b && !c->any) {
    ens_value vb;
    ens_obj_get(b, c->key, &vb);
    int had = s_targets(m, ENS__BASE, b, c->key, &vb, s_is_node, &r);
    if (had < 0) return had;
    if (had) return 0; /* base named it already: not a new use */
  }
  m->nodes[rn->grp[c->d]].flags |= flag;
  c->marked = 1;
  return 0;
}

/* The references of side s's object of node i; with any, all of them,
 * else only those whose value changed since base. */
static int s_touch_node(ens_merge *m, uint32_t i, int s, int any, int *marked) {
  const ens_obj *o = m->nodes[i].obj[s], *b = m->nodes[i].obj[ENS__BASE];
  s_touch_ctx c = {i, s, ENS__OURS + ENS__THEIRS - s, NULL, any, 0};
  int rc = 0;
  for (uint32_t k = 0; k < o->nprops && rc >= 0; k++) {
    const ens__prop *p = &o->props[k];
    const char *key = ens__prop_key(o, p);
    ens_value v = ens__prop_value(p), vb;
    if (p->type == ENS_NIL || !s_is_ref(m, &v)) continue;
    if (b && !any && ens_obj_get(b, key, &vb) == 0 && ens__merge_value_eq(m, ENS__BASE, &vb, s, &v)) continue;
    c.key = key;
    rc = s_targets(m, s, o, key, &v, s_touch, &c);
  }
  if (c.marked) *marked = 1;
  return rc < 0 ? rc : 0;
}

int ens__merge_ref_touches(ens_merge *m) {
  int deleted[3] = {0, 0, 0}, rc = 0, marked = 0;
  for (uint32_t i = 1; i < m->nbase; i++)
    for (int s = ENS__OURS; s <= ENS__THEIRS; s++)
      if (!m->nodes[i].obj[s]) deleted[s] = 1;
  /* a side's new references to what the other deleted and it kept */
  for (int s = ENS__OURS; s <= ENS__THEIRS && !rc; s++) {
    if (!deleted[ENS__OURS + ENS__THEIRS - s]) continue;
    for (uint32_t i = 0; i < m->nnodes && !rc; i++)
      if (m->nodes[i].obj[s]) rc = s_touch_node(m, i, s, 0, &marked);
  }
  /* a group ours deleted and theirs edited stays when theirs is preferred:
   * then whatever theirs' objects in it name stays too, and in turn what
   * those name (a composite glyph kept with the glyphs it is built from) */
  if (m->opts.prefer != ENS_MERGE_PREFER_THEIRS || !deleted[ENS__OURS]) return rc;
  for (marked = 1; marked && !rc;) {
    marked = 0;
    for (uint32_t i = 1; i < m->nbase && !rc; i++) {
      const ens__mnode *n = &m->nodes[i];
      if (n->obj[ENS__THEIRS] && n->grp[ENS__OURS] != S_NONE &&
          (m->nodes[n->grp[ENS__OURS]].flags & S_TOUCHED(ENS__OURS)))
        rc = s_touch_node(m, i, ENS__THEIRS, 1, &marked);
    }
  }
  return rc;
}

/* --- what goes with what it names ------------------------------------------------------- */

static int s_lost_fn(ens_merge *m, uint32_t r, void *user) {
  (void)user;
  return !(m->nodes[r].flags & ENS__N_ALIVE);
}

/* 1 when side s's value names something s holds that the merged document
 * does not; negative on error. */
static int s_lost(ens_merge *m, int s, const ens_obj *o, const char *key, const ens_value *v) {
  return s_targets(m, s, o, key, v, s_lost_fn, NULL);
}

/* The sides whose value the merged document gives node i's property key
 * (the rules of merge_emit.c's s_props). */
static unsigned s_source(const ens_merge *m, uint32_t i, const char *key) {
  const ens__mnode *n = &m->nodes[i];
  const ens_obj *b = n->obj[ENS__BASE], *o = n->obj[ENS__OURS], *t = n->obj[ENS__THEIRS];
  if (!o) return S_BIT(ENS__THEIRS);
  if (!t) return S_BIT(ENS__OURS);
  ens_value vb = ens_nil(), vo, vt;
  if (b) ens_obj_get(b, key, &vb);
  ens_obj_get(o, key, &vo);
  ens_obj_get(t, key, &vt);
  if (ens__merge_value_eq(m, ENS__BASE, &vb, ENS__OURS, &vo)) return S_BIT(ENS__THEIRS);
  if (ens__merge_value_eq(m, ENS__BASE, &vb, ENS__THEIRS, &vt)) return S_BIT(ENS__OURS);
  if (ens__merge_value_eq(m, ENS__OURS, &vo, ENS__THEIRS, &vt)) return S_BIT(ENS__OURS) | S_BIT(ENS__THEIRS);
  return S_BIT(m->opts.prefer == ENS_MERGE_PREFER_OURS ? ENS__OURS : ENS__THEIRS);
}

static int s_kept_add(ens_merge *m, uint32_t i, int use, const char *key) {
  if (m->nkept == m->capkept) {
    size_t cap = m->capkept ? m->capkept * 2 : 8;
    void *x = realloc(m->kept, cap * sizeof *m->kept);
    if (!x) return ens__error(ENS_ENOMEM, "out of memory merging");
    m->kept = x;
    m->capkept = cap;
  }
  m->kept[m->nkept].node = i;
  m->kept[m->nkept].use = use;
  m->kept[m->nkept].key = key;
  m->nkept++;
  m->nodes[i].flags |= ENS__N_REFKEPT;
  return 0;
}

int ens__merge_kept_side(const ens_merge *m, uint32_t i, const char *key) {
  if (!(m->nodes[i].flags & ENS__N_REFKEPT)) return -1;
  /* entries are made in node order */
  size_t lo = 0, hi = m->nkept;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->kept[mid].node < i) lo = mid + 1;
    else hi = mid;
  }
  for (; lo < m->nkept && m->kept[lo].node == i; lo++)
    if (strcmp(m->kept[lo].key, key) == 0) return m->kept[lo].use;
  return -1;
}

/* Node i's references, where the merged value would dangle: the other
 * side's value, or the node goes (*dropped). */
static int s_drop_node(ens_merge *m, uint32_t i, int *dropped) {
  ens__mnode *n = &m->nodes[i];
  for (int s = ENS__OURS; s <= ENS__THEIRS; s++) {
    const ens_obj *x = n->obj[s];
    for (uint32_t k = 0; x && k < x->nprops; k++) {
      const ens__prop *p = &x->props[k];
      const char *key = ens__prop_key(x, p);
      ens_value v = ens__prop_value(p);
      if (p->type == ENS_NIL || !s_is_ref(m, &v)) continue;
      int lost = s_lost(m, s, x, key, &v);
      if (lost <= 0) {
        if (lost < 0) return lost;
        continue;
      }
      if (ens__merge_kept_side(m, i, key) >= 0) continue;
      unsigned src = s_source(m, i, key);
      int d = ENS__OURS + ENS__THEIRS - s;
      if (!(src & S_BIT(s))) continue;
      const ens_obj *y = n->obj[d];
      if (y) {
        ens_value vd;
        ens_obj_get(y, key, &vd);
        int dl = s_lost(m, d, y, key, &vd);
        if (dl < 0) return dl;
        if (src & S_BIT(d)) {
          if (!dl) continue; /* the same value, dangling on d already: not the merge's doing */
        } else if (!dl) {
          int rc = s_kept_add(m, i, d, key);
          if (rc) return rc;
          continue;
        }
      }
      if (i == 0) { /* the root stays: the property goes instead */
        int rc = s_kept_add(m, i, ENS__BASE, key);
        if (rc) return rc;
        continue;
      }
      n->flags = (uint16_t)((n->flags | ENS__N_DANGLES) & ~ENS__N_OWN);
      *dropped = 1;
      return 0;
    }
  }
  return 0;
}

int ens__merge_ref_drops(ens_merge *m) {
  int lost = 0;
  for (uint32_t i = 1; i < m->nnodes && !lost; i++)
    lost = (m->nodes[i].obj[ENS__OURS] || m->nodes[i].obj[ENS__THEIRS]) && !(m->nodes[i].flags & ENS__N_ALIVE);
  if (!lost) return 0;
  for (;;) {
    int dropped = 0, rc = 0;
    m->nkept = 0;
    for (uint32_t i = 0; i < m->nnodes; i++) m->nodes[i].flags &= (uint16_t)~ENS__N_REFKEPT;
    for (uint32_t i = 0; i < m->nnodes && !rc; i++)
      if (m->nodes[i].flags & ENS__N_ALIVE) rc = s_drop_node(m, i, &dropped);
    if (rc || !dropped) return rc;
    /* what went takes what is under it, and what named that, in turn */
    if ((rc = ens__merge_reach(m))) return rc;
  }
}

void ens__merge_refs_free(ens_merge *m) {
  for (int s = 0; s < 3; s++) {
    free(m->names[s].hash);
    free(m->names[s].node);
    memset(&m->names[s], 0, sizeof m->names[s]);
  }
  free(m->kept);
  m->kept = NULL;
  m->nkept = m->capkept = 0;
}
