/* Three-way merge, second part: which objects the merged document holds and
 * under which parent. A side's delete takes a whole group (the base objects
 * it deleted, connected); when the other side edited in the group, that is
 * a conflict. Parents are merged three ways like properties; where the
 * chosen parent is gone, the other side's stands, and where two moves make a
 * cycle, one of them gives way. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "merge_int.h"

/* 1 when side s changed something of base node i that it holds: its
 * properties, its parent, its children's order, or children inserted or
 * moved in. Children it removed do not count: a delete agrees with the
 * other side's delete of their parent. */
static int s_touched(const ens_merge *m, uint32_t i, int s) {
  const ens__mnode *n = &m->nodes[i];
  const ens_obj *o = n->obj[s];
  if (!o) return 0;
  if (n->par[s] != n->par[ENS__BASE]) return 1;
  if (ens__merge_props_differ(m, i, ENS__BASE, s, 0)) return 1; /* kept text alone is no edit */
  uint32_t last = 0;
  for (uint32_t k = 0; k < o->nkids; k++) {
    uint32_t kn = ens__merge_node_of(m, s, o->kids[k]);
    if (kn == S_NONE || !m->nodes[kn].obj[ENS__BASE] || m->nodes[kn].par[ENS__BASE] != i) return 1;
    /* base nodes are numbered in base's pre-order: siblings in order */
    if (kn < last) return 1;
    last = kn;
  }
  return 0;
}

static int s_groups(ens_merge *m) {
  int rc = 0;
  for (uint32_t i = 0; i < m->nbase; i++) {
    ens__mnode *n = &m->nodes[i];
    uint32_t p = n->par[ENS__BASE];
    for (int s = ENS__OURS; s <= ENS__THEIRS; s++)
      if (!n->obj[s]) n->grp[s] = p != S_NONE && m->nodes[p].grp[s] != S_NONE ? m->nodes[p].grp[s] : i;
  }
  for (uint32_t i = 0; i < m->nbase; i++) {
    for (int s = ENS__OURS; s <= ENS__THEIRS; s++) {
      uint32_t g = m->nodes[i].grp[s];
      if (g == S_NONE || (m->nodes[g].flags & S_TOUCHED(s))) continue;
      if (s_touched(m, i, ENS__OURS + ENS__THEIRS - s)) m->nodes[g].flags |= S_TOUCHED(s);
    }
  }
  if ((rc = ens__merge_ref_touches(m))) return rc;
  int prefer_ours = m->opts.prefer == ENS_MERGE_PREFER_OURS;
  for (uint32_t i = 0; i < m->nnodes && !rc; i++) {
    ens__mnode *n = &m->nodes[i];
    if (i >= m->nbase) {
      n->flags |= ENS__N_OWN;
      continue;
    }
    /* a group ours deleted and theirs edited: prefer decides; a group theirs
     * deleted and ours edited: ours' edits are dropped */
    if (n->grp[ENS__OURS] == i && (n->flags & S_TOUCHED(ENS__OURS)))
      rc = ens__merge_conflict(m, ENS_CONFLICT_DELETE, i, NULL, NULL, NULL, NULL, prefer_ours);
    if (!rc && n->grp[ENS__THEIRS] == i && (n->flags & S_TOUCHED(ENS__THEIRS)))
      rc = ens__merge_conflict(m, ENS_CONFLICT_DELETE, i, NULL, NULL, NULL, NULL, 0);
    if (!n->obj[ENS__THEIRS]) continue;
    if (!n->obj[ENS__OURS] && (prefer_ours || !(m->nodes[n->grp[ENS__OURS]].flags & S_TOUCHED(ENS__OURS)))) continue;
    n->flags |= ENS__N_OWN;
  }
  return rc;
}

int ens__merge_reach(ens_merge *m) {
  uint32_t *queue = m->scratch;
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < m->nnodes; i++) m->nodes[i].flags &= (uint16_t)~ENS__N_ALIVE;
  m->nodes[0].flags |= ENS__N_ALIVE;
  queue[tail++] = 0;
  while (head < tail) {
    uint32_t p = queue[head++];
    for (int s = ENS__OURS; s <= ENS__THEIRS; s++) {
      const ens_obj *o = m->nodes[p].obj[s];
      if (!o) continue;
      for (uint32_t k = 0; k < o->nkids; k++) {
        uint32_t kn = ens__merge_node_of(m, s, o->kids[k]);
        if (kn == S_NONE) return ens__error(ENS_EINVAL, "merge: an object without a node");
        ens__mnode *n = &m->nodes[kn];
        if (!(n->flags & ENS__N_OWN) || (n->flags & ENS__N_ALIVE)) continue;
        n->flags |= ENS__N_ALIVE;
        queue[tail++] = kn;
      }
    }
  }
  return 0;
}

static uint32_t s_cand(const ens__mnode *n, int s) { return n->obj[s] ? n->par[s] : S_NONE; }

static int s_alive(const ens_merge *m, uint32_t i) { return i != S_NONE && (m->nodes[i].flags & ENS__N_ALIVE); }

static int s_parents(ens_merge *m) {
  int prefer_ours = m->opts.prefer == ENS_MERGE_PREFER_OURS, rc = 0;
  for (uint32_t i = 1; i < m->nnodes && !rc; i++) {
    ens__mnode *n = &m->nodes[i];
    if (!(n->flags & ENS__N_ALIVE)) continue;
    uint32_t po = s_cand(n, ENS__OURS), pt = s_cand(n, ENS__THEIRS), pb = n->par[ENS__BASE], want, alt;
    int both = 0;
    if (po != S_NONE && pt != S_NONE) {
      if (!n->obj[ENS__BASE] || po == pb || po == pt) {
        want = pt;
      } else if (pt == pb) {
        want = po;
      } else {
        both = 1;
        want = prefer_ours ? po : pt;
      }
    } else {
      want = po != S_NONE ? po : pt;
    }
    alt = want == po ? pt : po;
    if (!s_alive(m, want)) want = alt;
    n->merged = want;
    if (both) rc = ens__merge_conflict(m, ENS_CONFLICT_MOVE, i, NULL, NULL, NULL, NULL, want == po);
  }
  return rc;
}

/* Two moves can make a cycle (ours puts a under b, theirs b under a). Each
 * side alone is a tree, so a cycle holds a parent of each side; one of them
 * is switched to the other candidate, the preferred side's where it can. */
static int s_break_cycles(ens_merge *m) {
  uint32_t *state = m->scratch; /* 0 unseen, 1 on the path, 2 reaches the root */
  uint32_t *path = malloc(m->nnodes * sizeof *path);
  int prefer_ours = m->opts.prefer == ENS_MERGE_PREFER_OURS, rc = 0;
  if (!path) return ens__error(ENS_ENOMEM, "out of memory merging");
  memset(state, 0, m->nnodes * sizeof *state);
  state[0] = 2;
  for (uint32_t i = 1; i < m->nnodes && !rc; i++) {
    if (!(m->nodes[i].flags & ENS__N_ALIVE) || state[i]) continue;
    size_t len = 0;
    uint32_t x = i;
    while (state[x] == 0) {
      state[x] = 1;
      path[len++] = x;
      x = m->nodes[x].merged;
    }
    if (state[x] == 1) {
      size_t from = 0;
      while (path[from] != x) from++;
      uint32_t pick = S_NONE;
      for (int pass = 0; pass < 2 && pick == S_NONE; pass++) {
        for (size_t k = from; k < len && pick == S_NONE; k++) {
          ens__mnode *n = &m->nodes[path[k]];
          uint32_t po = s_cand(n, ENS__OURS), pt = s_cand(n, ENS__THEIRS);
          uint32_t alt = n->merged == po ? pt : po;
          if ((n->flags & ENS__N_FLIPPED) || !s_alive(m, alt)) continue;
          if (pass == 0 && n->merged != (prefer_ours ? pt : po)) continue;
          pick = path[k];
        }
      }
      if (pick == S_NONE) {
        rc = ens__error(ENS_ECYCLE, "merge: moves make a cycle that cannot be undone");
        break;
      }
      ens__mnode *n = &m->nodes[pick];
      uint32_t po = s_cand(n, ENS__OURS), pt = s_cand(n, ENS__THEIRS);
      n->merged = n->merged == po ? pt : po;
      n->flags |= ENS__N_FLIPPED;
      rc = ens__merge_conflict(m, ENS_CONFLICT_MOVE, pick, NULL, NULL, NULL, NULL, n->merged == po);
      for (size_t k = 0; k < len; k++) state[path[k]] = 0;
      i--; /* again from the same node */
      continue;
    }
    for (size_t k = 0; k < len; k++) state[path[k]] = 2;
  }
  free(path);
  return rc;
}

int ens__merge_tree(ens_merge *m) {
  m->scratch = malloc((m->nnodes ? m->nnodes : 1) * sizeof *m->scratch);
  if (!m->scratch) return ens__error(ENS_ENOMEM, "out of memory merging");
  int rc = s_groups(m);
  if (!rc) rc = ens__merge_reach(m);
  if (!rc) rc = ens__merge_ref_drops(m);
  if (!rc) rc = s_parents(m);
  if (!rc) rc = s_break_cycles(m);
  return rc;
}
