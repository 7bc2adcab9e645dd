/* Three-way merge, third part: the order of one parent's children, by diff3
 * over node identities. Each side is aligned to base by a longest common
 * subsequence (children are distinct, so it is a longest increasing run:
 * O(n log n)); runs where all three agree stand, and between them a stretch
 * only one side changed takes that side's, a stretch where both only
 * inserted takes both (the preferred side's first; objects of base only
 * one side moved there count as inserted, and what base had there may be
 * gone on both sides), and a stretch both changed otherwise is a
 * conflict: the preferred side's stands. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "merge_int.h"

/* match[i] = the index in x of base[i], or S_NONE: a longest run of x's
 * elements whose places in base increase. pos[] holds base's places. */
static int s_align(const uint32_t *x, size_t nx, const uint32_t *pos, uint32_t *match, size_t nb) {
  for (size_t i = 0; i < nb; i++) match[i] = S_NONE;
  if (!nx) return 0;
  size_t *tails = malloc(nx * sizeof *tails), *prev = malloc(nx * sizeof *prev), len = 0;
  if (!tails || !prev) {
    free(tails);
    free(prev);
    return ens__error(ENS_ENOMEM, "out of memory merging");
  }
  for (size_t j = 0; j < nx; j++) {
    uint32_t r = pos[x[j]];
    if (r == S_NONE) continue;
    size_t lo = 0, hi = len;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (pos[x[tails[mid]]] < r) lo = mid + 1;
      else hi = mid;
    }
    prev[j] = lo ? tails[lo - 1] : (size_t)-1;
    tails[lo] = j;
    if (lo == len) len++;
  }
  for (size_t j = len ? tails[len - 1] : (size_t)-1; j != (size_t)-1; j = prev[j]) match[pos[x[j]]] = (uint32_t)j;
  free(tails);
  free(prev);
  return 0;
}

static int s_same(const uint32_t *a, size_t na, const uint32_t *b, size_t nb) {
  return na == nb && (!na || memcmp(a, b, na * sizeof *a) == 0);
}

/* 1 when one of v[] is in base (pos[] holds base's places). */
static int s_has_base(const uint32_t *v, size_t n, const uint32_t *pos) {
  for (size_t k = 0; k < n; k++)
    if (pos[v[k]] != S_NONE) return 1;
  return 0;
}

/* 1 when one of v[] is base's at a place in [from, to). */
static int s_keeps(const uint32_t *v, size_t n, const uint32_t *pos, size_t from, size_t to) {
  for (size_t k = 0; k < n; k++)
    if (pos[v[k]] != S_NONE && pos[v[k]] >= from && pos[v[k]] < to) return 1;
  return 0;
}

typedef struct {
  uint32_t *out;
  uint8_t *src;
  uint32_t *chunk;
  size_t n;
} s_out;

static void s_put(s_out *o, const uint32_t *v, size_t n, uint8_t src, uint32_t chunk) {
  for (size_t k = 0; k < n; k++) {
    o->out[o->n] = v[k];
    o->src[o->n] = src;
    o->chunk[o->n] = chunk;
    o->n++;
  }
}

/* Pairs compared at most, beyond which a list that both sides reordered
 * that much is a conflict without looking further (16M: ~50 ms). */
#define S_PAIRS_MAX ((uint64_t)1 << 24)

/* 1 when every two children the three lists and the result share are in
 * the order one side gave them where the other kept base's (diff3 takes
 * whole stretches: moves on both sides can leave none that keeps every
 * such pair, and it then picks without seeing it). Pairs of the runs all
 * three share cannot disagree, so only the others are compared with the
 * rest: O(moved * n). -1 when out of memory. */
static int s_pairs_agree(const uint32_t *base, size_t nb, const uint32_t *ours, size_t no, const uint32_t *theirs,
                         size_t nt, const uint32_t *out, const uint8_t *src, size_t n, uint32_t *pos) {
  if (!nb) return 1;
  uint32_t *r = malloc(4 * nb * sizeof *r);
  uint8_t *moved = calloc(nb, 1);
  if (!r || !moved) {
    free(r);
    free(moved);
    return -1;
  }
  uint32_t *ro = r, *rt = r + nb, *rm = r + 2 * nb, *common = r + 3 * nb;
  for (size_t i = 0; i < nb; i++) {
    pos[base[i]] = (uint32_t)i;
    ro[i] = rt[i] = rm[i] = S_NONE;
  }
  for (size_t j = 0; j < no; j++)
    if (pos[ours[j]] != S_NONE) ro[pos[ours[j]]] = (uint32_t)j;
  for (size_t j = 0; j < nt; j++)
    if (pos[theirs[j]] != S_NONE) rt[pos[theirs[j]]] = (uint32_t)j;
  for (size_t j = 0; j < n; j++)
    if (pos[out[j]] != S_NONE) {
      rm[pos[out[j]]] = (uint32_t)j;
      /* a run all three share stays; one both moved is a conflict of its own */
      moved[pos[out[j]]] = !(src[j] & 8) && !(src[j] & 4);
    }
  for (size_t i = 0; i < nb; i++) pos[base[i]] = S_NONE;
  size_t nc = 0;
  for (size_t i = 0; i < nb; i++)
    if (ro[i] != S_NONE && rt[i] != S_NONE && rm[i] != S_NONE) common[nc++] = (uint32_t)i;
  size_t nmoved = 0;
  for (size_t a = 0; a < nc; a++) nmoved += moved[common[a]];
  /* both sides reordered much of a long list: no need to count the ways */
  int agree = (uint64_t)nmoved * nc <= S_PAIRS_MAX;
  for (size_t a = 0; a < nc && agree; a++) {
    uint32_t i = common[a];
    if (!moved[i]) continue;
    for (size_t c = 0; c < nc && agree; c++) {
      uint32_t j = common[c];
      if (j == i) continue;
      int b = i < j, o = ro[i] < ro[j], t = rt[i] < rt[j], m = rm[i] < rm[j];
      agree = m == (o == b ? t : o);
    }
  }
  free(r);
  free(moved);
  return agree;
}

int ens__merge_order(const uint32_t *base, size_t nb, const uint32_t *ours, size_t no, const uint32_t *theirs,
                     size_t nt, int prefer_ours, uint32_t *pos, uint32_t *out, uint8_t *src, size_t *nout,
                     int *conflict) {
  *nout = 0;
  *conflict = 0;
  uint32_t *common = NULL, *mo = NULL, *mt = NULL, *chunk = malloc((no + nt + 1) * sizeof *chunk);
  int rc = chunk ? 0 : ens__error(ENS_ENOMEM, "out of memory merging");
  if (!rc && !base) {
    /* new on both sides: what they have in common, in order, is the base */
    uint32_t *m = malloc((nt + 1) * sizeof *m);
    common = malloc((nt + 1) * sizeof *common);
    if (!m || !common) {
      free(m);
      rc = ens__error(ENS_ENOMEM, "out of memory merging");
    } else {
      for (size_t j = 0; j < nt; j++) pos[theirs[j]] = (uint32_t)j;
      rc = s_align(ours, no, pos, m, nt);
      for (size_t j = 0; j < nt; j++) pos[theirs[j]] = S_NONE;
      nb = 0;
      for (size_t j = 0; j < nt; j++)
        if (m[j] != S_NONE) common[nb++] = theirs[j];
      base = common;
      free(m);
    }
  }
  if (!rc) {
    mo = malloc((nb + 1) * sizeof *mo);
    mt = malloc((nb + 1) * sizeof *mt);
    if (!mo || !mt) rc = ens__error(ENS_ENOMEM, "out of memory merging");
  }
  if (!rc) {
    /* pos[] holds base's places until the walk is done */
    for (size_t i = 0; i < nb; i++) pos[base[i]] = (uint32_t)i;
    rc = s_align(ours, no, pos, mo, nb);
    if (!rc) rc = s_align(theirs, nt, pos, mt, nb);
  }
  if (rc) {
    for (size_t i = 0; i < nb; i++) pos[base[i]] = S_NONE;
    goto done;
  }

  s_out o = {out, src, chunk, 0};
  size_t ib = 0, io = 0, it = 0;
  uint32_t nchunk = 0;
  for (;;) {
    while (ib < nb && io < no && it < nt && mo[ib] == io && mt[ib] == it) {
      s_put(&o, &base[ib], 1, 8, nchunk++); /* 8: in a run all three share */
      ib++, io++, it++;
    }
    if (ib == nb && io == no && it == nt) break;
    /* the next place all three share, or the ends */
    size_t jb = ib;
    while (jb < nb && (mo[jb] == S_NONE || mt[jb] == S_NONE)) jb++;
    size_t jo = jb < nb ? mo[jb] : no, jt = jb < nb ? mt[jb] : nt;
    const uint32_t *cb = base + ib, *co = ours + io, *ct = theirs + it;
    size_t lb = jb - ib, lo = jo - io, lt = jt - it;
    const uint32_t *first = prefer_ours ? co : ct, *second = prefer_ours ? ct : co;
    size_t lfirst = prefer_ours ? lo : lt, lsecond = prefer_ours ? lt : lo;
    uint8_t sfirst = prefer_ours ? 1 : 2, ssecond = prefer_ours ? 2 : 1;
    if (s_same(co, lo, cb, lb)) {
      s_put(&o, ct, lt, 2, nchunk);
    } else if (s_same(ct, lt, cb, lb)) {
      s_put(&o, co, lo, 1, nchunk);
    } else if (s_same(co, lo, ct, lt)) {
      s_put(&o, co, lo, 0, nchunk);
    } else if (!s_keeps(co, lo, pos, ib, jb) && !s_keeps(ct, lt, pos, ib, jb) &&
               !(s_has_base(co, lo, pos) && s_has_base(ct, lt, pos))) {
      /* both only inserted here, after removing whatever base had here:
       * new objects, or objects of the list that only one side moved here,
       * so that no two of base change order */
      s_put(&o, first, lfirst, sfirst, nchunk);
      s_put(&o, second, lsecond, ssecond, nchunk);
    } else {
      *conflict = 1;
      s_put(&o, first, lfirst, sfirst, nchunk);
    }
    nchunk++;
    ib = jb, io = jo, it = jt;
  }

  for (size_t i = 0; i < nb; i++) pos[base[i]] = S_NONE;

  /* an object both sides moved to different places in the list comes out
   * twice: the preferred side's place stands (flag 4 on it says so) */
  size_t n = 0;
  for (size_t k = 0; k < o.n; k++) {
    uint32_t x = out[k];
    uint32_t e = pos[x];
    if (e == S_NONE) {
      pos[x] = (uint32_t)n;
      out[n] = x;
      src[n] = src[k];
      chunk[n] = chunk[k];
      n++;
      continue;
    }
    if (chunk[e] == chunk[k]) continue;
    uint8_t want = prefer_ours ? 1 : 2;
    if ((src[k] & 3) == want && (src[e] & 3) != want) {
      /* this place wins: the earlier one goes */
      memmove(out + e, out + e + 1, (n - e - 1) * sizeof *out);
      memmove(src + e, src + e + 1, (n - e - 1) * sizeof *src);
      memmove(chunk + e, chunk + e + 1, (n - e - 1) * sizeof *chunk);
      n--;
      for (size_t q = e; q < n; q++) pos[out[q]] = (uint32_t)q;
      pos[x] = (uint32_t)n;
      out[n] = x;
      src[n] = (uint8_t)(src[k] | 4);
      chunk[n] = chunk[k];
      n++;
    } else {
      src[e] |= 4;
    }
  }
  for (size_t k = 0; k < n; k++) pos[out[k]] = S_NONE;
  *nout = n;
  if (!*conflict) {
    int agree = s_pairs_agree(base, nb, ours, no, theirs, nt, out, src, n, pos);
    if (agree < 0) rc = ens__error(ENS_ENOMEM, "out of memory merging");
    if (!agree) *conflict = 1;
  }
done:
  free(common);
  free(mo);
  free(mt);
  free(chunk);
  return rc;
}
