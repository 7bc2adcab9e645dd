/* The SFD reader: cuts the text into entries, parses the modelled ones,
 * and builds each glyph's objects as soon as its EndChar is read (a small
 * intermediate tree per glyph, reused), straight into the model, with
 * every object's exact text kept beside its properties. The text itself
 * is the document's (in its arena): the properties that keep pieces of it
 * point into it. References by glyph index are resolved when the whole
 * font is read. */
#define _GNU_SOURCE
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "sfd_int.h"

#define S_NONE UINT32_MAX
#define S_POS_CACHE 1024
#define S_REF_BLOCK 4096

/* A pending property: the document's own entry (key as the atom index),
 * copied as a block into the arena when its object is built. Two types
 * stand for what s_build finishes: */
#define S_PV_REF 200     /* a glyph number to resolve at the end: u.i, len = line << 1 | by encoding */
#define S_PV_SCRATCH 201 /* a decoded string in the scratch buffer at offset u.i */
/* A string taken from the text is copied too (STR values end with a NUL);
 * bytes taken from it stay where they are. */
typedef ens__prop s_pv;
_Static_assert(offsetof(s_pv, u) == 8, "an entry is 8 bytes of key, type and length, then its value");

typedef struct {
  uint32_t parent; /* node index, S_NONE under the root */
  uint32_t nkids, kidx;
  uint32_t pv, npv;
  uint32_t line;
  uint8_t kind;
  uint8_t special; /* has properties s_build finishes (strings, references): all but plain points */
  int has_index;
  int64_t index;
  const char *start, *own; /* text start; start of the current run of own text */
  const char *head, *tail;
  size_t head_n, tail_n;
  ens_obj *obj;
} s_node;


typedef struct {
  struct s_pair *pairs;
  size_t cap, count;
  int unsorted;
} s_map;

struct ens__sfd_reader {
  ens_doc *doc;
  const char **atoms; /* per key id */
  uint32_t *aidx;     /* atom index per key id */
  uint64_t *head;     /* per key id, 2 per key: the first 8 bytes of a REAL, an INT entry (s_put_real) */
  const char *own;    /* text the caller put in the document (ens__sfd_reader_text) */
  const char *kinds[S_NKINDS];
  /* the text being read */
  const char *buf, *end;
  const char *fname;
  uint32_t file; /* index of fname in files */
  /* per-glyph intermediate tree */
  s_node *nodes;
  size_t nn, capn;
  /* pending properties: where the arena has room, written straight into
   * it (ens__doc_arena_room) and taken whole by s_build, so that they are
   * the objects' arrays without a copy; else in heap, copied */
  s_pv *pvs;
  size_t npv, cappv;
  int pvs_in_arena;
  s_pv *pvs_heap; /* the heap array, kept for the glyphs that need it */
  size_t cappv_heap;
  s_pv *gpend; /* keyed properties of the glyph being read */
  size_t ngp, capgp;
  ens_buf scratch;
  /* the root */
  s_pv *rpv;
  size_t nrpv, caprpv;
  ens_buf rscratch;
  uint8_t *rseen;
  const char *root_start, *root_head_end, *root_own, *root_text_end;
  size_t root_kids, root_total;
  int dir;
  int saw_end;
  /* resolution of references */
  /* references and kerning pairs with a slot waiting for the glyph it
   * names (S_PV_REF), in blocks of S_REF_BLOCK: 8 bytes each, and no
   * array of 128 KiB or more, which would be a mapping of its own */
  ens_obj ***refs;
  size_t nrefs, caprefs; /* caprefs: blocks */
  int refs_by_enc; /* some name it by its encoding slot */
  ens_obj **bad;   /* references naming no glyph of the font */
  size_t nbad, capbad;
  char **files;
  size_t nfiles, capfiles;
  s_map gids, encs;
  uint32_t section;
  /* where each section (BeginChars) starts: its first glyph among the
   * root's children, its first waiting reference */
  struct s_sec { size_t kid, ref; uint32_t section; } *secs;
  size_t nsecs, capsecs;
  int64_t next_orig;
  ens__sfd_kernpair *kp;
  size_t kpcap;
  /* positions of n children, for small n */
  char *pc[S_POS_CACHE + 1];
};

/* --- errors -------------------------------------------------------------------- */

static int s_err(ens__sfd_reader *r, uint32_t line, const char *fmt, const char *arg) {
  char msg[300];
  snprintf(msg, sizeof msg, fmt, arg ? arg : "");
  if (r->fname) return ens__error(ENS_EDECODE, "%s: line %u: %s", r->fname, line, msg);
  return ens__error(ENS_EDECODE, "line %u: %s", line, msg);
}

static int s_oom(void) { return ens__error(ENS_ENOMEM, "out of memory reading SFD"); }

/* --- small growable arrays -------------------------------------------------------- */

static int s_grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap : 16;
  while (nc < need) nc *= 2;
  void *np = realloc(*p, nc * size);
  if (!np) return s_oom();
  *p = np;
  *cap = nc;
  return 0;
}

/* Room for n more pending properties: the s_pv_* below then cannot fail.
 * Past the arena's room they move to the heap array. */
static int s_pv_room(ens__sfd_reader *r, size_t n) {
  if (r->npv + n <= r->cappv) return 0;
  if (r->pvs_in_arena) {
    if (s_grow((void **)&r->pvs_heap, &r->cappv_heap, r->npv + n, sizeof(s_pv))) return ENS_ENOMEM;
    if (r->npv) memcpy(r->pvs_heap, r->pvs, r->npv * sizeof(s_pv));
    r->pvs = r->pvs_heap;
    r->cappv = r->cappv_heap;
    r->pvs_in_arena = 0;
    return 0;
  }
  int rc = s_grow((void **)&r->pvs, &r->cappv, r->npv + n, sizeof(s_pv));
  r->pvs_heap = r->pvs;
  r->cappv_heap = r->cappv;
  return rc;
}

static s_pv *s_pv_put(ens__sfd_reader *r, int key, int type) {
  s_pv *pv = &r->pvs[r->npv++];
  pv->key = r->aidx[key];
  pv->type = (uint32_t)type;
  pv->len = 0;
  pv->arena = 1; /* what it points to is the document's (its text) or copied there */
  return pv;
}

static s_pv *s_pv_push(ens__sfd_reader *r, int key, int type) {
  if (s_pv_room(r, 1)) return NULL;
  return s_pv_put(r, key, type);
}

static int s_pv_bytes(ens__sfd_reader *r, int key, const char *s, size_t n) {
  s_pv *pv = s_pv_push(r, key, ENS_BYTES);
  if (!pv) return ENS_ENOMEM;
  pv->u.s = (char *)s;
  pv->len = (uint32_t)n;
  return 0;
}

static int s_pv_str(ens__sfd_reader *r, int key, const char *s, size_t n) {
  int rc = s_pv_bytes(r, key, s, n);
  if (!rc) r->pvs[r->npv - 1].type = ENS_STR;
  return rc;
}

static int s_pv_scratch(ens__sfd_reader *r, int key, size_t off, size_t n) {
  s_pv *pv = s_pv_push(r, key, S_PV_SCRATCH);
  if (!pv) return ENS_ENOMEM;
  pv->u.i = (int64_t)off;
  pv->len = (uint32_t)n;
  return 0;
}

static int s_pv_int(ens__sfd_reader *r, int key, int64_t v) {
  s_pv *pv = s_pv_push(r, key, ENS_INT);
  if (!pv) return ENS_ENOMEM;
  pv->u.i = v;
  return 0;
}

static int s_pv_real(ens__sfd_reader *r, int key, double v) {
  s_pv *pv = s_pv_push(r, key, ENS_REAL);
  if (!pv) return ENS_ENOMEM;
  pv->u.r = v;
  return 0;
}

static int s_pv_bool(ens__sfd_reader *r, int key, int v) {
  s_pv *pv = s_pv_push(r, key, ENS_BOOL);
  if (!pv) return ENS_ENOMEM;
  pv->u.i = 0;
  pv->u.b = v;
  return 0;
}

/* A keyed value (from ens__sfd_key_parse) as a pending property. */
static int s_keyed(ens__sfd_reader *r, s_pv **arr, size_t *n, size_t *cap, int key, const ens__sfd_val *v) {
  if (s_grow((void **)arr, cap, *n + 1, sizeof(s_pv))) return ENS_ENOMEM;
  s_pv *pv = &(*arr)[(*n)++];
  pv->key = r->aidx[key];
  pv->type = (uint32_t)v->v.type;
  pv->len = 0;
  pv->arena = 1;
  switch (v->v.type) {
  case ENS_INT: pv->u.i = v->v.u.i; break;
  case ENS_REAL: pv->u.r = v->v.u.r; break;
  default:
    if (v->in_scratch) {
      pv->type = S_PV_SCRATCH; /* strings only: bytes are never decoded */
      pv->u.i = (int64_t)(uintptr_t)v->v.u.s.ptr;
    } else {
      pv->u.s = (char *)v->v.u.s.ptr;
    }
    pv->len = (uint32_t)v->v.u.s.len;
    break;
  }
  return 0;
}

/* --- the id maps (gid and encoding to glyph) ---------------------------------------- */

/* Glyph numbers, looked up once the whole font is read (s_tables): pairs
 * appended in the glyphs' order (their numbers mostly rise through the
 * file, so the table is usually sorted already), sorted once if not, then
 * searched. */
typedef struct s_pair {
  uint64_t key;
  ens_id val; /* ids rise in the order glyphs are read: the first glyph with a number keeps it */
} s_pair;

static int s_map_put(s_map *m, uint64_t key, ens_id val) {
  if (s_grow((void **)&m->pairs, &m->cap, m->count + 1, sizeof(s_pair))) return s_oom();
  if (m->count && m->pairs[m->count - 1].key >= key) m->unsorted = 1;
  m->pairs[m->count++] = (s_pair){key, val};
  return 0;
}

/* Room for n pairs at once, so that a table holds no more than it must. */
static int s_map_room(s_map *m, size_t n) {
  if (n <= m->cap) return 0;
  s_pair *np = realloc(m->pairs, n * sizeof *np);
  if (!np) return s_oom();
  m->pairs = np;
  m->cap = n;
  return 0;
}

static int s_pair_cmp(const void *a, const void *b) {
  const s_pair *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->val < y->val ? -1 : x->val > y->val;
}

static void s_map_seal(s_map *m) {
  if (m->unsorted) qsort(m->pairs, m->count, sizeof *m->pairs, s_pair_cmp);
  m->unsorted = 0;
}

/* After s_map_seal. */
static ens_id s_map_get(const s_map *m, uint64_t key) {
  size_t lo = 0, hi = m->count;
  while (lo < hi) { /* the first pair with this key */
    size_t mid = lo + (hi - lo) / 2;
    if (m->pairs[mid].key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < m->count && m->pairs[lo].key == key ? m->pairs[lo].val : ENS_ID_NONE;
}

static uint64_t s_mkey(uint32_t section, int64_t v) { return ((uint64_t)section << 40) ^ (uint64_t)(uint32_t)v; }

/* --- reader life ------------------------------------------------------------------- */

ens__sfd_reader *ens__sfd_reader_new(ens_doc *doc) {
  ens__sfd_reader *r = calloc(1, sizeof *r);
  int nk = ens__sfd_key_count();
  if (!r || !(r->atoms = calloc((size_t)nk, sizeof *r->atoms)) || !(r->aidx = calloc((size_t)nk, sizeof *r->aidx)) ||
      !(r->head = calloc(2 * (size_t)nk, sizeof *r->head)) || !(r->rseen = calloc(ens__sfd_root_nkeys, 1))) {
    if (r) {
      free(r->atoms);
      free(r->aidx);
      free(r->head);
    }
    free(r);
    s_oom();
    return NULL;
  }
  r->doc = doc;
  r->file = S_NONE;
  /* scratch strings are addressed as data + offset: data must never be NULL */
  if (ens__buf_reserve(&r->scratch, 64) || ens__buf_reserve(&r->rscratch, 64)) goto fail;
  for (int k = 0; k < nk; k++) {
    const char *name = ens__sfd_key_name(k);
    if (!(r->atoms[k] = ens__atom(doc, name, strlen(name)))) goto fail;
    r->aidx[k] = ens__atom_index(r->atoms[k]);
    s_pv h = {.key = r->aidx[k], .type = ENS_REAL, .arena = 1};
    memcpy(&r->head[2 * k], &h, 8);
    h.type = ENS_INT;
    memcpy(&r->head[2 * k + 1], &h, 8);
  }
  for (int k = 0; k < S_NKINDS; k++)
    if (!(r->kinds[k] = ens__atom(doc, ens__sfd_kind_names[k], strlen(ens__sfd_kind_names[k])))) goto fail;
  return r;
fail:
  ens__sfd_reader_free(r);
  s_oom();
  return NULL;
}

void ens__sfd_reader_free(ens__sfd_reader *r) {
  if (!r) return;
  free(r->atoms);
  free(r->aidx);
  free(r->head);
  free(r->nodes);
  free(r->pvs_heap);
  free(r->gpend);
  ens__buf_free(&r->scratch);
  free(r->rpv);
  ens__buf_free(&r->rscratch);
  free(r->rseen);
  free(r->bad);
  for (size_t i = 0; i < r->caprefs; i++) free(r->refs[i]);
  free(r->refs);
  for (size_t i = 0; i < r->nfiles; i++) free(r->files[i]);
  free(r->files);
  free(r->gids.pairs);
  free(r->encs.pairs);
  free(r->secs);
  free(r->kp);
  for (size_t i = 0; i <= S_POS_CACHE; i++) free(r->pc[i]);
  free(r);
}

/* --- positions ------------------------------------------------------------------- */

/* The i-th of n positions (ens_pos_seq), cached for small n so that a
 * contour of twelve points costs no allocation per point. */
static const char *s_pos(ens__sfd_reader *r, size_t i, size_t n, char tmp[24], size_t *len) {
  if (n <= S_POS_CACHE) {
    if (!r->pc[n]) {
      char *tab = malloc(n * 4);
      if (!tab) return NULL;
      for (size_t j = 0; j < n; j++) {
        char *p = ens_pos_seq(j, n);
        if (!p) {
          free(tab);
          return NULL;
        }
        size_t k = strlen(p);
        memset(tab + j * 4, 0, 4);
        memcpy(tab + j * 4, p, k < 4 ? k : 3);
        ens_free(p);
      }
      r->pc[n] = tab;
    }
    const char *p = r->pc[n] + i * 4;
    *len = p[3] ? 4 : strlen(p);
    return p;
  }
  char *p = ens_pos_seq(i, n);
  if (!p) return NULL;
  size_t k = strlen(p);
  if (k >= 24) k = 23;
  memcpy(tmp, p, k);
  tmp[k] = '\0';
  ens_free(p);
  *len = k;
  return tmp;
}

/* --- the per-glyph tree ---------------------------------------------------------- */

static uint32_t s_node_add(ens__sfd_reader *r, int kind, uint32_t parent, const char *start, uint32_t line) {
  if (s_grow((void **)&r->nodes, &r->capn, r->nn + 1, sizeof(s_node))) return S_NONE;
  /* every field set, not memset first: the compiler made the memset a
   * string store, which the field writes after it then waited for */
  s_node *n = &r->nodes[r->nn];
  n->parent = parent;
  n->nkids = n->kidx = 0;
  n->pv = (uint32_t)r->npv;
  n->npv = 0;
  n->line = line;
  n->kind = (uint8_t)kind;
  n->special = kind != S_POINT;
  n->has_index = 0;
  n->index = 0;
  n->start = n->own = start;
  n->head = n->tail = NULL;
  n->head_n = n->tail_n = 0;
  n->obj = NULL;
  if (parent != S_NONE) r->nodes[parent].nkids++;
  return (uint32_t)r->nn++;
}

/* A raw object for the own text of container c from its last child (or
 * its start) up to at. */
static int s_raw(ens__sfd_reader *r, uint32_t parent, const char *from, const char *at, uint32_t line) {
  uint32_t k = s_node_add(r, S_RAW, parent, from, line);
  if (k == S_NONE) return ENS_ENOMEM;
  if (s_pv_bytes(r, S_K_TEXT, from, (size_t)(at - from))) return ENS_ENOMEM;
  r->nodes[k].npv = 1;
  return 0;
}

/* Before container c gets a child starting at `at`: its head ends there,
 * or the own text since its last child becomes a raw object. */
static int s_own_break(ens__sfd_reader *r, uint32_t c, const char *at, uint32_t line) {
  s_node *n = &r->nodes[c];
  if (n->nkids == 0) {
    n->head = n->start;
    n->head_n = (size_t)(at - n->start);
    return 0;
  }
  if (at > n->own) return s_raw(r, c, n->own, at, line);
  return 0;
}

/* Closes container c at `end`: head (no children) or tail, and its own
 * properties, contiguous in pvs after those of its descendants. */
static int s_close(ens__sfd_reader *r, uint32_t c, const char *end) {
  s_node *n = &r->nodes[c];
  if (n->nkids == 0) {
    n->head = n->start;
    n->head_n = (size_t)(end - n->start);
  } else if (end > n->own) {
    n->tail = n->own;
    n->tail_n = (size_t)(end - n->own);
  }
  n->pv = (uint32_t)r->npv;
  if (n->kind == S_CONTOUR) {
    if (s_pv_bytes(r, S_K_TEXT, n->start, (size_t)(end - n->start))) return ENS_ENOMEM;
  } else {
    if (n->head_n && s_pv_bytes(r, S_K_HEAD, n->head, n->head_n)) return ENS_ENOMEM;
    if (n->tail_n && s_pv_bytes(r, S_K_TAIL, n->tail, n->tail_n)) return ENS_ENOMEM;
  }
  if (n->kind == S_LAYER && n->has_index && s_pv_int(r, S_K_INDEX, n->index)) return ENS_ENOMEM;
  if (n->kind == S_GLYPH) {
    if (s_pv_room(r, r->ngp)) return ENS_ENOMEM;
    if (r->ngp) memcpy(r->pvs + r->npv, r->gpend, r->ngp * sizeof(s_pv)); /* gpend is NULL when empty */
    r->npv += r->ngp;
  }
  n = &r->nodes[c];
  n->npv = (uint32_t)r->npv - n->pv;
  return 0;
}

/* --- building objects ---------------------------------------------------------- */

/* Glyph numbers for resolving references: gid (or the running count,
 * as FontForge numbers glyphs of old files) and encoding slot. A glyph
 * numbered by the running count gets that number as its `gid` too (the
 * slot for it is kept free by s_build): references and kerning name
 * glyphs by number, so the number is part of the glyph, and the writer
 * must keep it when glyphs before it are removed (docs/sfd.md). */
static int s_has_pv(const ens__sfd_reader *r, const s_node *n, int key) {
  for (uint32_t i = 0; i < n->npv; i++)
    if (r->pvs[n->pv + i].key == r->aidx[key]) return 1;
  return 0;
}

static int s_register_glyph(ens__sfd_reader *r, const s_node *n) {
  int64_t gid = -1;
  for (uint32_t i = 0; i < n->npv; i++) {
    const s_pv *pv = &r->pvs[n->pv + i];
    if (pv->key == r->aidx[S_K_GID]) gid = pv->u.i;
  }
  if (gid < 0) { /* no third number, or a negative one: numbered by the running count */
    gid = r->next_orig;
    ens_obj *o = n->obj;
    ens__prop *slot = ens__obj_find_prop(o, r->atoms[S_K_GID]);
    if (!slot) { /* s_build left room for it */
      slot = &o->props[o->nprops++];
      memset(slot, 0, sizeof *slot);
      slot->key = r->aidx[S_K_GID];
    }
    slot->type = ENS_INT;
    slot->u.i = gid;
  }
  if (gid + 1 > r->next_orig) r->next_orig = gid + 1;
  return 0;
}

/* A section of glyphs (BeginChars) starts at the root's next child. */
static int s_section(ens__sfd_reader *r, uint32_t section) {
  if (s_grow((void **)&r->secs, &r->capsecs, r->nsecs + 1, sizeof *r->secs)) return ENS_ENOMEM;
  r->secs[r->nsecs++] = (struct s_sec){r->root_kids, r->nrefs, section};
  r->section = section;
  return 0;
}

/* The tables of glyph numbers (gid, and encoding slot when a reference
 * names glyphs by it), made from the glyphs once the font is read and
 * only when a reference needs them, after the per-glyph arrays are freed:
 * their pages, already touched, then hold them. Filled as the glyphs
 * were read, they touched fresh pages all through the load. */
static int s_tables(ens__sfd_reader *r, int by_enc) {
  free(r->nodes);
  free(r->pvs_heap);
  free(r->gpend);
  r->nodes = NULL;
  r->pvs = r->pvs_heap = r->gpend = NULL;
  r->pvs_in_arena = 0;
  r->nn = r->capn = r->npv = r->cappv = r->cappv_heap = r->ngp = r->capgp = 0;
  const ens_obj *root = r->doc->root;
  if (s_map_room(&r->gids, root->nkids) || (by_enc && s_map_room(&r->encs, root->nkids))) return ENS_ENOMEM;
  uint32_t section = 0;
  for (size_t i = 0, si = 0; i < root->nkids; i++) {
    while (si < r->nsecs && r->secs[si].kid <= i) section = r->secs[si++].section;
    const ens_obj *o = root->kids[i];
    if (o->kind != r->kinds[S_GLYPH]) continue;
    const ens__prop *g = ens__obj_find_prop(o, r->atoms[S_K_GID]); /* every glyph has one: s_register_glyph */
    if (g && g->type == ENS_INT && s_map_put(&r->gids, s_mkey(section, g->u.i), o->id)) return ENS_ENOMEM;
    const ens__prop *e = by_enc ? ens__obj_find_prop(o, r->atoms[S_K_ENCODING]) : NULL;
    if (e && e->type == ENS_INT && s_map_put(&r->encs, s_mkey(section, e->u.i), o->id)) return ENS_ENOMEM;
  }
  s_map_seal(&r->gids);
  s_map_seal(&r->encs);
  return 0;
}

/* The waiting slot of reference or kerning pair o, in section: the glyph
 * it names, or removed (and o noted as naming none). */
static int s_resolve(ens__sfd_reader *r, ens_obj *o, uint32_t section) {
  for (uint32_t j = 0; j < o->nprops; j++) {
    ens__prop *p = &o->props[j];
    if (p->type != S_PV_REF) continue;
    ens_id id = s_map_get(p->len & 1 ? &r->encs : &r->gids, s_mkey(section, p->u.i));
    p->len = 0;
    if (id != ENS_ID_NONE) {
      p->type = ENS_REF;
      p->u.ref = id;
      return 0;
    }
    p->type = ENS_NIL;
    p->u.i = 0;
    if (s_grow((void **)&r->bad, &r->capbad, r->nbad + 1, sizeof *r->bad)) return ENS_ENOMEM;
    r->bad[r->nbad++] = o;
    return 0;
  }
  return 0;
}

/* Every waiting slot, in the order read. */
static int s_resolve_all(ens__sfd_reader *r) {
  int rc = s_tables(r, r->refs_by_enc);
  uint32_t section = 0;
  for (size_t i = 0, si = 0; i < r->nrefs && !rc; i++) {
    while (si < r->nsecs && r->secs[si].ref <= i) section = r->secs[si++].section;
    rc = s_resolve(r, r->refs[i / S_REF_BLOCK][i % S_REF_BLOCK], section);
  }
  return rc;
}

static int s_build(ens__sfd_reader *r) {
  ens_doc *doc = r->doc;
  char tmp[24];
  /* pending properties in the arena become the document's: taken whole,
   * with the slot kept back after them (the glyph's are last) */
  int taken = r->pvs_in_arena;
  if (taken) {
    /* nothing else is taken from the arena while a glyph is read: were it,
     * it would have written over these, and the read stops here */
    if (ens__doc_arena_alloc(doc, (r->npv + 1) * sizeof(s_pv), alignof(s_pv)) != (void *)r->pvs)
      return ens__error(ENS_EINVAL, "SFD reader: the arena was used while a glyph was read"); /* never */
    r->pvs_in_arena = 0;
  }
  for (size_t i = 0; i < r->nn; i++) {
    s_node *n = &r->nodes[i];
    ens_obj *parent;
    size_t kidx, total;
    if (n->parent == S_NONE) {
      parent = doc->root;
      kidx = r->root_kids++;
      total = r->root_total;
      if (kidx >= total) return ens__error(ENS_EDECODE, "more glyphs than counted"); /* never */
    } else {
      s_node *p = &r->nodes[n->parent];
      parent = p->obj;
      kidx = p->kidx++;
      total = p->nkids;
    }
    size_t plen;
    const char *pos = s_pos(r, kidx, total, tmp, &plen);
    if (!pos) return s_oom();
    /* the parent's child array was made to size: the positions go up */
    ens_obj *o = ens__obj_append_read(doc, ens_doc_new_id(doc), r->kinds[n->kind], parent, pos, plen);
    if (!o) return s_oom();
    o->as_read = 1; /* now, while it is in the cache: changes before the end clear it (reader_finish) */
    n->obj = o;
    /* the pending properties are the object's entries: one copy into the
     * arena, then the few that need more (room for an implied gid too) */
    uint32_t np = n->npv + (n->kind == S_GLYPH && !s_has_pv(r, n, S_K_GID));
    if (taken && (np == n->npv || n->pv + n->npv == r->npv)) {
      o->props = n->npv ? r->pvs + n->pv : NULL; /* they are the document's already */
      o->nprops = n->npv;
      o->props_arena = 1;
    } else if (np) {
      ens__prop *props = ens__doc_arena_alloc(doc, np * sizeof *props, alignof(ens__prop));
      if (!props) return s_oom();
      memcpy(props, r->pvs + n->pv, n->npv * sizeof *props);
      o->props = props;
      o->nprops = n->npv;
      o->props_arena = 1;
    }
    if (n->nkids && ens__obj_arena_kids(doc, o, n->nkids)) return s_oom();
    for (uint32_t j = 0; n->special && j < n->npv; j++) {
      ens__prop *p = &o->props[j];
      switch (p->type) {
      case ENS_STR:
        if (ens__prop_arena_str(doc, p, p->u.s, p->len)) return s_oom();
        break;
      case S_PV_SCRATCH:
        p->type = ENS_STR;
        if (ens__prop_arena_str(doc, p, (const char *)r->scratch.data + p->u.i, p->len)) return s_oom();
        break;
      case S_PV_REF: /* stays as it is until the whole font is read (s_resolve) */
        if (r->nrefs == r->caprefs * S_REF_BLOCK) {
          ens_obj ***nb = realloc(r->refs, (r->caprefs + 1) * sizeof *nb);
          if (!nb) return s_oom();
          r->refs = nb;
          if (!(r->refs[r->caprefs] = malloc(S_REF_BLOCK * sizeof(ens_obj *)))) return s_oom();
          r->caprefs++;
        }
        r->refs[r->nrefs / S_REF_BLOCK][r->nrefs % S_REF_BLOCK] = o;
        r->nrefs++;
        r->refs_by_enc |= (int)(p->len & 1);
        break;
      default: break;
      }
    }
    if (n->kind == S_GLYPH) {
      int rc = s_register_glyph(r, n);
      if (rc) return rc;
    }
  }
  if (taken) { /* what follows them in the arena is not the reader's */
    r->pvs = r->pvs_heap;
    r->cappv = r->cappv_heap;
    r->npv = 0;
  }
  return 0;
}

/* Before each glyph: its pending properties go to the arena's free room
 * when there is some, one slot kept back for an implied gid (s_build). */
static void s_reset(ens__sfd_reader *r) {
  r->nn = 0;
  r->npv = 0;
  r->ngp = 0;
  r->scratch.len = 0;
  size_t avail;
  s_pv *room = ens__doc_arena_room(r->doc, alignof(s_pv), &avail);
  if (room && avail / sizeof(s_pv) > 64) {
    r->pvs = room;
    r->cappv = avail / sizeof(s_pv) - 1;
    r->pvs_in_arena = 1;
  } else {
    r->pvs = r->pvs_heap;
    r->cappv = r->cappv_heap;
    r->pvs_in_arena = 0;
  }
}

/* --- one glyph ------------------------------------------------------------------ */

static const ens__sfd_keyspec s_marker = {"Fore", 4, S_V_MARK, S_K_INDEX};

typedef struct {
  ens__sfd_reader *r;
  const char *p, *end;
  uint32_t line;
} s_cur;

/* A point's numbers: the entry's key and type come as one word made at
 * the start (r->head), stored at once; set field by field, the compiler
 * reads back the word it has just stored, a stall on every property of
 * every point. */
static inline void s_put_real(ens__sfd_reader *r, int key, double v) {
  s_pv *pv = &r->pvs[r->npv++];
  memcpy(pv, &r->head[2 * key], 8);
  pv->u.r = v;
}
static inline void s_put_int(ens__sfd_reader *r, int key, int64_t v) {
  s_pv *pv = &r->pvs[r->npv++];
  memcpy(pv, &r->head[2 * key + 1], 8);
  pv->u.i = v;
}

static int s_point(s_cur *c, uint32_t contour, const ens__sfd_line *ln, const ens__sfd_point *p, uint32_t ln_index) {
  ens__sfd_reader *r = c->r;
  const ens__sfd_point *pt = p;
  uint32_t k = s_node_add(r, S_POINT, contour, ln->s, c->line);
  /* a point has at most 11 properties: room once, then no checks */
  if (k == S_NONE || s_pv_room(r, 11)) return ENS_ENOMEM;
  s_put_real(r, S_K_X, pt->x);
  s_put_real(r, S_K_Y, pt->y);
  if (pt->seg == 'c')
    for (int i = 0; i < 4; i++) s_put_real(r, S_K_C1X + i, pt->c[i]);
  if (pt->has_flags) {
    s_put_int(r, S_K_TYPE, pt->flags & 3);
    s_put_int(r, S_K_FLAGS, pt->flags & ~(int64_t)3);
  }
  if (pt->has_ttf) {
    s_put_int(r, S_K_TTF, pt->ttf);
    s_put_int(r, S_K_NEXTCP, pt->nextcp);
  }
  if (pt->extra_len) {
    r->nodes[k].special = 1;
    s_pv *pv = s_pv_put(r, S_K_EXTRA, ENS_STR);
    pv->u.s = (char *)pt->extra;
    pv->len = (uint32_t)pt->extra_len;
  }
  s_put_int(r, S_K_LN, ln_index);
  r->nodes[k].npv = (uint32_t)r->npv - r->nodes[k].pv;
  return 0;
}

static int s_ref(s_cur *c, uint32_t layer, const char *start, size_t len, const ens__sfd_line *ln) {
  ens__sfd_reader *r = c->r;
  ens__sfd_ref rf;
  const char *why = NULL;
  if (ens__sfd_parse_ref(ln->s, ln->n, &rf, &why)) return s_err(r, c->line, "%s", why);
  int rc = s_own_break(r, layer, start, c->line);
  if (rc) return rc;
  uint32_t k = s_node_add(r, S_REFK, layer, start, c->line);
  if (k == S_NONE) return ENS_ENOMEM;
  s_pv *pv = s_pv_push(r, S_K_GLYPH, S_PV_REF);
  if (!pv) return ENS_ENOMEM;
  pv->u.i = rf.target;
  pv->len = (c->line << 1) | (uint32_t)rf.is_ref;
  static const int keys[6] = {S_K_XX, S_K_XY, S_K_YX, S_K_YY, S_K_DX, S_K_DY};
  for (int i = 0; i < 6; i++)
    if (s_pv_real(r, keys[i], rf.m[i])) return ENS_ENOMEM;
  if (s_pv_bool(r, S_K_SELECTED, rf.selected)) return ENS_ENOMEM;
  if (rf.has_flags && s_pv_int(r, S_K_FLAGS, rf.flags)) return ENS_ENOMEM;
  if (rf.extra_len && s_pv_str(r, S_K_EXTRA, rf.extra, rf.extra_len)) return ENS_ENOMEM;
  if (s_pv_bytes(r, S_K_HEAD, start, len)) return ENS_ENOMEM;
  r->nodes[k].npv = (uint32_t)r->npv - r->nodes[k].pv; /* the reference pv keeps a slot for later */
  r->nodes[layer].own = start + len;
  return 0;
}

static int s_anchor(s_cur *c, uint32_t glyph, const char *start, size_t len, const ens__sfd_line *ln) {
  ens__sfd_reader *r = c->r;
  ens__sfd_anchor ap;
  const char *why = NULL;
  if (ens__sfd_parse_anchor(ln->s, ln->n, &ap, &r->scratch, &why)) return s_err(r, c->line, "%s", why);
  int rc = s_own_break(r, glyph, start, c->line);
  if (rc) return rc;
  uint32_t k = s_node_add(r, S_ANCHOR, glyph, start, c->line);
  if (k == S_NONE) return ENS_ENOMEM;
  if (s_pv_scratch(r, S_K_CLASS, ap.cls_off, ap.cls_len) || s_pv_real(r, S_K_X, ap.x) || s_pv_real(r, S_K_Y, ap.y) ||
      s_pv_str(r, S_K_TYPE, ap.type, ap.type_len) || s_pv_int(r, S_K_LIG, ap.lig) ||
      (ap.extra_len && s_pv_str(r, S_K_EXTRA, ap.extra, ap.extra_len)) || s_pv_bytes(r, S_K_HEAD, start, len))
    return ENS_ENOMEM;
  r->nodes[k].npv = (uint32_t)r->npv - r->nodes[k].pv;
  r->nodes[glyph].own = start + len;
  return 0;
}

static int s_kerns(s_cur *c, uint32_t glyph, const char *start, size_t len, const ens__sfd_line *ln, int vertical) {
  ens__sfd_reader *r = c->r;
  const char *why = NULL;
  long np = ens__sfd_parse_kerns(ln->s, ln->n, &r->kp, &r->kpcap, &r->scratch, &why);
  if (np < 0) return s_err(r, c->line, "%s", why);
  if (np == 0) return 0; /* an empty list stays text */
  int rc = s_own_break(r, glyph, start, c->line);
  if (rc) return rc;
  for (long i = 0; i < np; i++) {
    const ens__sfd_kernpair *kp = &r->kp[i];
    uint32_t k = s_node_add(r, S_KERN, glyph, start, c->line);
    if (k == S_NONE) return ENS_ENOMEM;
    s_pv *pv = s_pv_push(r, S_K_GLYPH, S_PV_REF);
    if (!pv) return ENS_ENOMEM;
    pv->u.i = kp->target;
    pv->len = c->line << 1;
    if (s_pv_int(r, S_K_OFFSET, kp->offset) || s_pv_scratch(r, S_K_SUBTABLE, kp->sub_off, kp->sub_len) ||
        (kp->device && s_pv_str(r, S_K_DEVICE, kp->device, kp->device_len)) ||
        (vertical && s_pv_bool(r, S_K_VERTICAL, 1)) || (i == 0 && s_pv_bytes(r, S_K_HEAD, start, len)))
      return ENS_ENOMEM;
    r->nodes[k].npv = (uint32_t)r->npv - r->nodes[k].pv;
  }
  r->nodes[glyph].own = start + len;
  return 0;
}

/* A keyed glyph line, the first of its word: a property. */
static int s_glyph_key(s_cur *c, const ens__sfd_line *ln, uint8_t *seen) {
  ens__sfd_reader *r = c->r;
  const ens__sfd_keyspec *ks = ens__sfd_find_key(ens__sfd_glyph_keys, ens__sfd_glyph_nkeys, ln->s, ln->n);
  if (!ks) return 0;
  size_t si = (size_t)(ks - ens__sfd_glyph_keys);
  if (seen[si]) return 0;
  seen[si] = 1;
  ens__sfd_val vals[3];
  int nv;
  const char *why = NULL;
  if (ens__sfd_key_parse(ks, ln->s, ln->n, vals, &nv, &r->scratch, &why)) {
    if (ks->vt == S_V_UTF7) return 0; /* a comment that is not UTF-7 stays text */
    return s_err(r, c->line, "%s", why);
  }
  for (int i = 0; i < nv; i++)
    if (s_keyed(r, &r->gpend, &r->ngp, &r->capgp, ks->key + i, &vals[i])) return ENS_ENOMEM;
  return 0;
}

/* Reads the glyph whose text starts at c->p (blank lines, then
 * StartChar:). In a single file the glyph ends after its EndChar line; in
 * a .glyph file (whole_file) it runs to the end of the text. */
static int s_glyph(s_cur *c, int whole_file) {
  ens__sfd_reader *r = c->r;
  const char *gstart = c->p;
  uint32_t gline = c->line;
  uint32_t g = s_node_add(r, S_GLYPH, S_NONE, gstart, gline);
  if (g == S_NONE) return ENS_ENOMEM;
  uint8_t seen[32] = {0};
  uint32_t layer = S_NONE, contour = S_NONE;
  uint32_t npoints = 0;
  int in_set = 0, started = 0;
  const char *name_for_msg = "";
  int rc;
  for (;;) {
    if (c->p >= c->end) {
      if (!started) return s_err(r, gline, "%sno StartChar: line", name_for_msg);
      return s_err(r, gline, "glyph has no EndChar (the text ends first)%s", NULL);
    }
    ens__sfd_line ln;
    ens__sfd_line_at(c->p, c->end, &ln);
    int w = ens__sfd_word(ln.s, ln.n);
    uint32_t nlines;
    size_t len;
    if (in_set && (w == S_W_NUMBER || w == S_W_BLANK || w == S_W_NAMEDP || w == S_W_CONTOURTAIL)) {
      len = (size_t)(ln.next - c->p);
      nlines = 1;
      if (w == S_W_CONTOURTAIL) {
        len = ens__sfd_entry_at(c->p, c->end, &ln, &nlines);
        if (!len) return s_err(r, c->line, "Spiro has no EndSpiro%s", NULL);
      }
    } else {
      len = ens__sfd_entry_at(c->p, c->end, &ln, &nlines);
      if (!len) {
        const char *t;
        size_t tn = ens__sfd_token(ln.s, ln.n, &t);
        char word[40];
        snprintf(word, sizeof word, "%.*s", (int)(tn < 32 ? tn : 32), t);
        return s_err(r, c->line, "block %s has no end", word);
      }
    }
    const char *start = c->p;
    if (!started) {
      if (w == S_W_BLANK) goto next;
      if (w != S_W_STARTCHAR) return s_err(r, c->line, "StartChar: was expected%s", NULL);
      /* the writer keeps a glyph's first line only when it is one line */
      if (nlines != 1) return s_err(r, c->line, "a StartChar: line may not go on to the next line%s", NULL);
      started = 1;
      if ((rc = s_glyph_key(c, &ln, seen))) return rc;
      goto next;
    }
    if (in_set) {
      if (w == S_W_NUMBER) {
        ens__sfd_point pt;
        const char *why = NULL;
        if (ens__sfd_parse_point(ln.s, ln.n, &pt, &why)) return s_err(r, c->line, "%s", why);
        int is_m = pt.seg == 'm'; /* a contour starts at its m point */
        if (is_m || contour == S_NONE) {
          if (!is_m) return s_err(r, c->line, "a contour must start with an m point%s", NULL);
          if (contour != S_NONE) {
            if ((rc = s_close(r, contour, start))) return rc;
            r->nodes[layer].own = start;
          }
          if ((rc = s_own_break(r, layer, start, c->line))) return rc;
          contour = s_node_add(r, S_CONTOUR, layer, start, c->line);
          if (contour == S_NONE) return ENS_ENOMEM;
          npoints = 0;
        }
        if ((rc = s_point(c, contour, &ln, &pt, npoints++))) return rc;
        goto next;
      }
      if (w == S_W_ENDSPLINESET) {
        if (contour != S_NONE) {
          if ((rc = s_close(r, contour, start))) return rc;
          r->nodes[layer].own = start;
          contour = S_NONE;
        }
        in_set = 0;
        goto next;
      }
      if (w == S_W_ENDCHAR || w == S_W_STARTCHAR) return s_err(r, c->line, "SplineSet has no EndSplineSet%s", NULL);
      goto next; /* inside a contour (NamedP, Spiro, ...) or before the first */
    }
    switch (w) {
    case S_W_ENDCHAR: {
      if (layer != S_NONE) {
        if ((rc = s_close(r, layer, start))) return rc;
        r->nodes[g].own = start;
      }
      layer = S_NONE;
      const char *gend = whole_file ? c->end : start + len;
      if (whole_file) {
        c->line += nlines;
        c->p = c->end;
      } else {
        c->p = start + len;
        c->line += nlines;
      }
      return s_close(r, g, gend);
    }
    case S_W_STARTCHAR:
      return s_err(r, c->line, "StartChar: inside a glyph (the glyph before has no EndChar)%s", NULL);
    case S_W_FORE:
    case S_W_BACK:
    case S_W_LAYER: {
      if (layer != S_NONE) {
        if ((rc = s_close(r, layer, start))) return rc;
        r->nodes[g].own = start;
      }
      if ((rc = s_own_break(r, g, start, c->line))) return rc;
      layer = s_node_add(r, S_LAYER, g, start, c->line);
      if (layer == S_NONE) return ENS_ENOMEM;
      ens__sfd_val v[3];
      int nv;
      const char *why = NULL;
      if (ens__sfd_key_parse(&s_marker, ln.s, ln.n, v, &nv, &r->scratch, &why))
        return s_err(r, c->line, "%s", why);
      r->nodes[layer].has_index = 1;
      r->nodes[layer].index = v[0].v.u.i;
      /* old files put the points right after Fore, without SplineSet; only a
       * line that reads as a contour's first point starts them, so that a
       * stray number line kept as text stays text when an edit moves it
       * up to the marker */
      if (start + len < c->end && w != S_W_LAYER) {
        ens__sfd_line nx;
        ens__sfd_point pt;
        const char *pwhy;
        ens__sfd_line_at(start + len, c->end, &nx);
        if (ens__sfd_word(nx.s, nx.n) == S_W_NUMBER && ens__sfd_parse_point(nx.s, nx.n, &pt, &pwhy) == 0 &&
            pt.seg == 'm')
          in_set = 1;
      }
      goto next;
    }
    case S_W_SPLINESET:
    case S_W_REFER:
    case S_W_REF:
      if (layer == S_NONE) { /* layer content without a marker: the foreground */
        if ((rc = s_own_break(r, g, start, c->line))) return rc;
        layer = s_node_add(r, S_LAYER, g, start, c->line);
        if (layer == S_NONE) return ENS_ENOMEM;
      }
      if (w == S_W_SPLINESET) {
        in_set = 1;
        goto next;
      }
      if ((rc = s_ref(c, layer, start, len, &ln))) return rc;
      goto next;
    case S_W_LAYERDATA:
    case S_W_BLANK:
    case S_W_NUMBER:
    case S_W_ENDSPLINESET:
    case S_W_NAMEDP:
    case S_W_CONTOURTAIL:
      if (layer == S_NONE && (rc = s_glyph_key(c, &ln, seen))) return rc;
      goto next; /* own text of the open layer, or of the glyph */
    default:
      break;
    }
    /* glyph-level entries close the open layer */
    if (layer != S_NONE) {
      if ((rc = s_close(r, layer, start))) return rc;
      r->nodes[g].own = start;
      layer = S_NONE;
    }
    if (w == S_W_ANCHOR) {
      if ((rc = s_anchor(c, g, start, len, &ln))) return rc;
    } else if (w == S_W_KERNS2 || w == S_W_VKERNS2) {
      if ((rc = s_kerns(c, g, start, len, &ln, w == S_W_VKERNS2))) return rc;
    } else if (nlines == 1 && (rc = s_glyph_key(c, &ln, seen))) {
      return rc;
    }
  next:
    c->p = start + len;
    c->line += nlines;
  }
}

/* --- the font --------------------------------------------------------------------- */

static int s_root_key(ens__sfd_reader *r, const ens__sfd_line *ln, uint32_t line) {
  const ens__sfd_keyspec *ks = ens__sfd_find_key(ens__sfd_root_keys, ens__sfd_root_nkeys, ln->s, ln->n);
  if (!ks) return 0;
  size_t si = (size_t)(ks - ens__sfd_root_keys);
  if (r->rseen[si]) return 0;
  r->rseen[si] = 1;
  ens__sfd_val v[3];
  int nv;
  const char *why = NULL;
  if (ens__sfd_key_parse(ks, ln->s, ln->n, v, &nv, &r->rscratch, &why)) return s_err(r, line, "%s", why);
  return s_keyed(r, &r->rpv, &r->nrpv, &r->caprpv, S_K_ROOT + (int)si, &v[0]);
}

/* Upper bound of the root's children: a glyph per StartChar and at most
 * one raw object before each. Every "StartChar:" counts, wherever it is:
 * the reader also takes one after blanks. */
static size_t s_count_glyphs(const char *p, const char *end) {
  size_t n = 0;
  while (end - p >= 10) { /* memchr is several times faster than memmem here */
    const char *q = memchr(p, 'S', (size_t)(end - p) - 9);
    if (!q) break;
    if (memcmp(q, "StartChar:", 10) == 0) {
      n++;
      p = q + 10;
    } else {
      p = q + 1;
    }
  }
  return n;
}

/* Refuse a line longer than the limit before anything is kept of it. */
static int s_check_lines(ens__sfd_reader *r, const char *p, const char *end) {
  if ((size_t)(end - p) <= ENS_SFD_MAX_LINE) return 0;
  uint32_t line = 1;
  for (;;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end;
    if ((size_t)(e - p) > ENS_SFD_MAX_LINE) {
      char lim[32];
      snprintf(lim, sizeof lim, "%zu", (size_t)ENS_SFD_MAX_LINE);
      return s_err(r, line, "line longer than %s bytes", lim);
    }
    if (!nl) return 0;
    p = nl + 1;
    line++;
  }
}

/* Arena bytes a font makes per byte of its text, text included: 6.5 to
 * 8.2 over the corpus (objects, property arrays, child arrays, strings,
 * the id array). Reserving it is free where it is not used: the region is
 * only address space until touched. */
#define S_ARENA_PER_BYTE 9

int ens__sfd_reader_reserve(ens__sfd_reader *r, size_t text_bytes) {
  if (text_bytes > ENS_SFD_MAX_FILE) text_bytes = ENS_SFD_MAX_FILE;
  return ens__doc_reserve_arena(r->doc, text_bytes * S_ARENA_PER_BYTE + ((size_t)64 << 10)) ? s_oom() : 0;
}

char *ens__sfd_reader_text(ens__sfd_reader *r, size_t len) {
  char *t = len < ENS_SFD_MAX_FILE ? ens__doc_arena_alloc(r->doc, len + 1, 1) : NULL;
  if (!t) {
    s_oom();
    return NULL;
  }
  t[len] = '\0';
  r->own = t;
  return t;
}

/* The text to read, in the document: as given when it came from
 * ens__sfd_reader_text, else a copy. Bytes taken from it (the text each
 * object keeps) then stay where they are. */
static const char *s_own_text(ens__sfd_reader *r, const char *data, size_t len) {
  if (data && data == r->own) return data;
  if (ens__sfd_reader_reserve(r, len)) return NULL; /* a no-op when room was made for more (an SFDir) */
  char *t = ens__sfd_reader_text(r, len);
  if (t && len) memcpy(t, data, len);
  return t;
}

/* The root's child array, with room for every child it can get. */
static int s_root_room(ens__sfd_reader *r) {
  ens_obj *root = r->doc->root;
  if (root->nkids || !r->root_total) return 0;
  return ens__obj_arena_kids(r->doc, root, (uint32_t)r->root_total) ? s_oom() : 0;
}

static int s_start(ens__sfd_reader *r, const char *data, size_t len) {
  if (len > ENS_SFD_MAX_FILE) return ens__error(ENS_ELIMIT, "SFD text of %zu bytes is over the limit", len);
  if (!(data = s_own_text(r, data, len))) return ENS_ENOMEM;
  r->buf = data;
  r->end = data + len;
  int rc = s_check_lines(r, data, data + len);
  if (rc) return rc;
  if (len < 13 || memcmp(data, "SplineFontDB:", 13) != 0)
    return s_err(r, 1, "not an SFD file (no SplineFontDB: line)%s", NULL);
  return 0;
}

/* The font text: header, glyphs between BeginChars and EndChars, and
 * whatever follows (bitmap strikes, sub-fonts of CID and MM fonts). */
static int s_font(ens__sfd_reader *r, int expect_glyphs) {
  s_cur c = {r, r->buf, r->end, 1};
  int in_chars = 0, rc;
  r->root_start = r->root_own = r->buf;
  r->root_text_end = r->end;
  while (c.p < c.end) {
    ens__sfd_line ln;
    ens__sfd_line_at(c.p, c.end, &ln);
    int w = ens__sfd_word(ln.s, ln.n);
    int glyph_here = 0;
    if (in_chars && expect_glyphs) {
      if (w == S_W_STARTCHAR) glyph_here = 1;
      else if (w == S_W_BLANK) { /* blank lines before a glyph belong to it */
        const char *q = ln.next;
        while (q < c.end) {
          ens__sfd_line l2;
          ens__sfd_line_at(q, c.end, &l2);
          int w2 = ens__sfd_word(l2.s, l2.n);
          if (w2 == S_W_STARTCHAR) glyph_here = 1;
          if (w2 != S_W_BLANK) break;
          q = l2.next;
        }
      }
    }
    if (glyph_here) {
      s_reset(r);
      if (r->root_kids == 0) r->root_head_end = c.p; /* the root's head ends at its first glyph */
      else if (c.p > r->root_own && (rc = s_raw(r, S_NONE, r->root_own, c.p, c.line))) return rc;
      if ((rc = s_glyph(&c, 0)) || (rc = s_build(r))) return rc;
      r->root_own = c.p;
      continue;
    }
    uint32_t nlines;
    size_t len = ens__sfd_entry_at(c.p, c.end, &ln, &nlines);
    if (!len) {
      const char *t;
      size_t tn = ens__sfd_token(ln.s, ln.n, &t);
      char word[40];
      snprintf(word, sizeof word, "%.*s", (int)(tn < 32 ? tn : 32), t);
      return s_err(r, c.line, "block %s has no end", word);
    }
    if (w == S_W_BEGINCHARS) {
      in_chars = 1;
      if ((rc = s_section(r, r->section + 1))) return rc;
      r->next_orig = 0;
    } else if (w == S_W_ENDCHARS) {
      in_chars = 0;
    } else if (w == S_W_ENDSPLINEFONT) {
      r->saw_end = 1;
    } else if (w == S_W_STARTCHAR) {
      return s_err(r, c.line, "StartChar: outside BeginChars .. EndChars%s", NULL);
    } else if (nlines == 1 && (rc = s_root_key(r, &ln, c.line))) {
      return rc;
    }
    c.p += len;
    c.line += nlines;
  }
  if (!r->saw_end) return s_err(r, c.line, "the text ends before EndSplineFont (truncated?)%s", NULL);
  return 0;
}

int ens__sfd_read_file_text(ens__sfd_reader *r, const char *data, size_t len) {
  int rc = s_start(r, data, len);
  if (rc) return rc;
  size_t ng = s_count_glyphs(r->buf, r->end);
  r->root_total = 2 * ng + 1;
  if (ens__doc_reserve(r->doc, len / 20 + 16) || (rc = s_root_room(r))) return rc ? rc : s_oom();
  return s_font(r, 1);
}

int ens__sfd_read_props_text(ens__sfd_reader *r, const char *data, size_t len, size_t nglyphs) {
  int rc = s_start(r, data, len);
  if (rc) return rc;
  r->dir = 1;
  r->root_total = nglyphs ? nglyphs : 1;
  if ((rc = s_section(r, 1)) || (rc = s_root_room(r))) return rc;
  return s_font(r, 0);
}

int ens__sfd_read_glyph_text(ens__sfd_reader *r, const char *data, size_t len, const char *fname) {
  if (len > ENS_SFD_MAX_FILE) return ens__error(ENS_ELIMIT, "%s is over the size limit", fname);
  char *copy = strdup(fname);
  if (!copy || s_grow((void **)&r->files, &r->capfiles, r->nfiles + 1, sizeof(char *))) {
    free(copy);
    return s_oom();
  }
  r->files[r->nfiles] = copy;
  r->file = (uint32_t)r->nfiles++;
  r->fname = copy;
  if (!(data = s_own_text(r, data, len))) return ENS_ENOMEM;
  r->buf = data;
  r->end = data + len;
  int rc = s_check_lines(r, data, data + len);
  if (rc) return rc;
  s_reset(r);
  s_cur c = {r, data, data + len, 1};
  if ((rc = s_glyph(&c, 1))) return rc;
  /* the file name, so that writing goes back to the same file */
  r->nodes[0].npv++;
  if (s_pv_str(r, S_K_FILE, copy, strlen(copy))) return ENS_ENOMEM;
  /* s_close put the glyph's properties last: the file name extends them */
  if ((rc = s_build(r))) return rc;
  r->fname = NULL;
  r->file = S_NONE;
  return 0;
}

/* Turns a reference (or the first pair of a Kerns2: line, with the pairs
 * that came from the same line) into raw text: the line as it was. */
static int s_to_raw(ens__sfd_reader *r, ens_obj *o) {
  ens_doc *doc = r->doc;
  ens_obj *parent = o->parent;
  if (o->kind == r->kinds[S_KERN]) {
    uint32_t at = 0;
    while (at < parent->nkids && parent->kids[at] != o) at++;
    while (at + 1 < parent->nkids && parent->kids[at + 1]->kind == r->kinds[S_KERN] &&
           !ens__obj_find_prop(parent->kids[at + 1], r->atoms[S_K_HEAD]))
      ens__obj_destroy(doc, parent->kids[at + 1]);
  }
  ens__prop *h = ens__obj_find_prop(o, r->atoms[S_K_HEAD]);
  if (!h || h->type != ENS_BYTES) return ens__error(ENS_EDECODE, "a reference without its text"); /* never */
  char *text = h->u.s;
  uint32_t len = h->len;
  int text_in_arena = h->arena;
  h->type = ENS_NIL; /* the text moves to ~text below */
  h->arena = 0;
  ens_value nil = ens_nil();
  for (uint32_t i = 0; i < o->nprops; i++)
    if (o->props[i].type != ENS_NIL) ens__obj_set_prop(doc, o, ens__prop_key(o, &o->props[i]), &nil, NULL);
  o->kind = r->kinds[S_RAW];
  ens_value t = ens_bytes(text, len);
  int rc = ens__obj_set_prop(doc, o, r->atoms[S_K_TEXT], &t, NULL);
  if (!text_in_arena) free(text);
  return rc;
}

/* Sets the root's text and properties and resolves references. */
int ens__sfd_reader_finish(ens__sfd_reader *r) {
  ens_doc *doc = r->doc;
  ens_obj *root = doc->root;
  /* the head runs to the first glyph; in an SFDir it is all of font.props */
  const char *head_end = (r->root_kids && !r->dir) ? r->root_head_end : r->root_text_end;
  size_t head_n = (size_t)(head_end - r->root_start);
  size_t tail_n = (r->root_kids && !r->dir) ? (size_t)(r->root_text_end - r->root_own) : 0;
  int rc;
  if (head_n && (rc = ens__obj_set_kept(doc, root, r->atoms[S_K_HEAD], r->root_start, head_n))) return rc;
  if (tail_n && (rc = ens__obj_set_kept(doc, root, r->atoms[S_K_TAIL], r->root_own, tail_n))) return rc;
  ens_value v;
  if (r->dir) {
    v = ens_bool(1);
    if ((rc = ens__obj_set_prop(doc, root, r->atoms[S_K_DIR], &v, NULL))) return rc;
  }
  for (size_t i = 0; i < r->nrpv; i++) {
    const s_pv *pv = &r->rpv[i];
    ens_value pvv;
    pvv.type = (ens_type)pv->type;
    if (pv->type == ENS_INT) pvv.u.i = pv->u.i;
    else if (pv->type == ENS_REAL) pvv.u.r = pv->u.r;
    else {
      if (pv->type == S_PV_SCRATCH) pvv.type = ENS_STR;
      pvv.u.s.ptr = pv->type == S_PV_SCRATCH ? (const char *)r->rscratch.data + pv->u.i : pv->u.s;
      pvv.u.s.len = pv->len;
    }
    if ((rc = ens__obj_set_prop(doc, root, doc->atoms.names[pv->key], &pvv, NULL))) return rc;
  }
  /* The first line's value must read as the format's version: a font
   * without the property breaks the format's rules (the writer drops a
   * keyed line whose property is gone), so it is refused here, not at the
   * first edit. */
  if (ens_obj_get(root, "SplineFontDB", &v) != 0)
    return s_err(r, 1, "the SplineFontDB: line does not hold a version%s", NULL);
  /* references first; a line naming a glyph the font does not have is
   * kept as text afterwards, as FontForge drops such a reference and
   * loads the rest */
  if (r->nrefs && (rc = s_resolve_all(r))) return rc;
  size_t nbad = r->nbad;
  /* the line of each dangling reference: its reference, or the first kerning
   * pair of its Kerns2: line */
  for (size_t i = 0; i < nbad; i++) {
    ens_obj *o = r->bad[i], *parent = o->parent;
    if (o->kind == r->kinds[S_KERN]) {
      uint32_t at = 0;
      while (at < parent->nkids && parent->kids[at] != o) at++;
      while (at > 0 && !ens__obj_find_prop(parent->kids[at], r->atoms[S_K_HEAD])) at--;
      o = parent->kids[at];
    }
    r->bad[i] = o;
  }
  for (size_t i = 0; i < nbad; i++) {
    ens_obj *o = r->bad[i];
    int dup = 0;
    for (size_t j = 0; j < i && !dup; j++) dup = r->bad[j] == o;
    if (dup || o->kind == r->kinds[S_RAW]) continue;
    if ((rc = s_to_raw(r, o))) return rc;
  }
  /* from here on the kept texts say what the properties say, until an edit */
  ens__doc_mark_as_read(doc);
  return 0;
}
