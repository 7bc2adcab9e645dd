/* The SVG reader's second half: the scanner cuts the (already accepted)
 * UTF-8 text into nodes, then every node becomes an object, created
 * straight into the model in document order with its property and child
 * arrays allocated once at their exact size. A node keeps its source text
 * ("~src") only when the plain style would not give back the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "svg_int.h"

#define S_NONE UINT32_MAX
#define S_POS_CACHE 32

enum { N_ELEM, N_TEXT, N_CDATA, N_COMMENT, N_PI, N_XMLDECL, N_DOCTYPE, N_ENTITY, N_NKINDS };
static const char *const s_kind_names[N_NKINDS] = {NULL,         ENS_SVG_TEXT,    ENS_SVG_CDATA,
                                                   ENS_SVG_COMMENT, ENS_SVG_PI, ENS_SVG_XMLDECL,
                                                   ENS_SVG_DOCTYPE, ENS_SVG_ENTITY};

typedef struct {
  uint32_t parent;
  uint32_t nkids, kidx;
  uint8_t kind;
  uint8_t empty; /* <x/> */
  ens__svg_tok tok;
  const char *end_s; /* the end tag */
  size_t end_n;
  ens_obj *obj;
} s_node;

typedef struct {
  const char *key; /* interned */
  uint8_t type;
  uint8_t scratch; /* the string is at offset off of the scratch buffer */
  const char *s;
  size_t n, off;
} s_pv;

typedef struct {
  ens_doc *doc;
  const char *text, *end;
  ens__svg_ents *ents;
  s_node *nodes;
  size_t nn, capn;
  s_pv *pv;
  size_t npv, cappv;
  ens_buf scratch;
  const char *kinds[N_NKINDS];
  const char *k_src, *k_end, *k_text, *k_target, *k_data, *k_name;
  char **pc[S_POS_CACHE + 1];
} s_reader;

static int s_oom(void) { return ens__error(ENS_ENOMEM, "out of memory reading SVG"); }

static int s_err(s_reader *r, const char *at, const char *what) {
  return ens__error(ENS_EDECODE, "line %u: %s", ens__svg_line_of(r->text, at), what);
}

static int s_grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap : 64;
  while (nc < need) nc *= 2;
  void *np = realloc(*p, nc * size);
  if (!np) return s_oom();
  *p = np;
  *cap = nc;
  return 0;
}

/* --- pass 1: nodes -------------------------------------------------------------- */

static int s_scan(s_reader *r) {
  const char *p = r->text;
  uint32_t stack[ENS_MAX_DEPTH];
  size_t depth = 0;
  for (;;) {
    ens__svg_tok t;
    if (ens__svg_next(&p, r->end, p == r->text, &t)) return s_err(r, p, "markup the scanner cannot read");
    if (t.type == T_EOF) break;
    if (t.type == T_ENDTAG) {
      if (!depth) return s_err(r, t.s, "an end tag without a start tag");
      s_node *open = &r->nodes[stack[--depth]];
      if (open->tok.name_n != t.name_n || memcmp(open->tok.name, t.name, t.name_n) != 0)
        return s_err(r, t.s, "an end tag that does not match its start tag");
      open->end_s = t.s;
      open->end_n = t.n;
      continue;
    }
    if (s_grow((void **)&r->nodes, &r->capn, r->nn + 1, sizeof(s_node))) return ENS_ENOMEM;
    if (r->nn >= UINT32_MAX - 1) return ens__error(ENS_ELIMIT, "too many nodes");
    s_node *n = &r->nodes[r->nn];
    memset(n, 0, sizeof *n);
    n->tok = t;
    n->parent = depth ? stack[depth - 1] : S_NONE;
    switch (t.type) {
    case T_TEXT: n->kind = N_TEXT; break;
    case T_ENTREF: {
      const ens__svg_ent *e = ens__svg_ent_find(r->ents, t.name, t.name_n);
      if (!e || !e->text) return s_err(r, t.s, "a reference to an entity that is not internal (refused)");
      n->kind = N_ENTITY;
      break;
    }
    case T_CDATA: n->kind = N_CDATA; break;
    case T_COMMENT: n->kind = N_COMMENT; break;
    case T_PI: n->kind = N_PI; break;
    case T_XMLDECL: n->kind = N_XMLDECL; break;
    case T_DOCTYPE: n->kind = N_DOCTYPE; break;
    default: n->kind = N_ELEM; n->empty = t.type == T_EMPTY; break;
    }
    if (depth) r->nodes[stack[depth - 1]].nkids++;
    if (n->kind == N_ELEM && !n->empty) {
      if (depth + 2 >= ENS_MAX_DEPTH) return s_err(r, t.s, "elements nested too deep");
      stack[depth++] = (uint32_t)r->nn;
    }
    r->nn++;
  }
  if (depth) return s_err(r, r->end, "the text ends inside an element");
  return 0;
}

/* --- pass 2: objects -------------------------------------------------------------- */

static const char *s_pos(s_reader *r, size_t i, size_t n, char **tmp) {
  *tmp = NULL;
  if (n <= S_POS_CACHE) {
    if (!r->pc[n]) {
      char **v = calloc(n, sizeof *v);
      if (!v) return NULL;
      for (size_t j = 0; j < n; j++)
        if (!(v[j] = ens_pos_seq(j, n))) {
          for (size_t k = 0; k < j; k++) ens_free(v[k]);
          free(v);
          return NULL;
        }
      r->pc[n] = v;
    }
    return r->pc[n][i];
  }
  return *tmp = ens_pos_seq(i, n);
}

static int s_pv_add(s_reader *r, const char *key, uint8_t type, const char *s, size_t n) {
  if (s_grow((void **)&r->pv, &r->cappv, r->npv + 1, sizeof(s_pv))) return ENS_ENOMEM;
  r->pv[r->npv++] = (s_pv){key, type, 0, s, n, 0};
  return 0;
}

static int s_pv_scratch(s_reader *r, const char *key, size_t off) {
  if (s_grow((void **)&r->pv, &r->cappv, r->npv + 1, sizeof(s_pv))) return ENS_ENOMEM;
  r->pv[r->npv++] = (s_pv){key, ENS_STR, 1, NULL, r->scratch.len - off, off};
  return 0;
}

/* Decode into scratch and add as a string property; a value with nothing
 * to decode (most) is its own text, taken where it lies. */
static int s_pv_decoded(s_reader *r, const char *key, const char *s, size_t n, int mode, const char *at) {
  if (ens__svg_plain(s, n, mode)) return s_pv_add(r, key, ENS_STR, s, n);
  size_t off = r->scratch.len;
  const char *why;
  if (ens__svg_decode(s, n, mode, r->ents, &r->scratch, &why)) {
    if (r->scratch.oom) return s_oom();
    return s_err(r, at, why);
  }
  return s_pv_scratch(r, key, off);
}

/* The pending properties onto o, array and strings in the document's
 * arena (one bump each instead of a malloc each). */
static int s_flush(s_reader *r, ens_obj *o) {
  if (!r->npv) return 0;
  if (ens__obj_arena_props(r->doc, o, (uint32_t)r->npv)) return s_oom();
  for (size_t i = 0; i < r->npv; i++) {
    const s_pv *pv = &r->pv[i];
    ens__prop *slot = &o->props[o->nprops];
    const char *src = pv->scratch ? (const char *)r->scratch.data + pv->off : pv->s;
    slot->key = ens__atom_index(pv->key);
    slot->type = pv->type;
    if (ens__prop_arena_str(r->doc, slot, src, pv->n)) return s_oom();
    o->nprops++;
  }
  return 0;
}

static int s_has(const char *s, size_t n, char c) { return n && memchr(s, c, n) != NULL; }

/* An element: its attributes in order, then its tag when the plain style
 * (<name a="v">, or <name a="v" /> when empty) would not give it back. */
static int s_element(s_reader *r, s_node *n) {
  ens__svg_attrs it;
  ens__svg_attr a;
  const char *name, *tail;
  size_t name_n;
  int rc, plain = 1;
  if (ens__svg_attrs_begin(n->tok.s, n->tok.n, &it, &name, &name_n)) return s_err(r, n->tok.s, "a bad start tag");
  while ((rc = ens__svg_attr_next(&it, &a, &tail)) == 1) {
    if (a.name_n > ENS_MAX_KEY) return ens__error(ENS_ELIMIT, "line %u: an attribute name longer than %d bytes",
                                                  ens__svg_line_of(r->text, a.name), ENS_MAX_KEY);
    const char *key = ens__atom(r->doc, a.name, a.name_n);
    if (!key) return s_oom();
    for (size_t i = 0; i < r->npv; i++)
      if (r->pv[i].key == key) return s_err(r, a.name, "an attribute given twice");
    if (key[0] == '~') return s_err(r, a.name, "a bad attribute name");
    if ((rc = s_pv_decoded(r, key, a.val, a.val_n, ENS__SVG_ATTR, a.val))) return rc;
    /* plain style: one space before, =, double quotes, nothing decoded */
    if (a.lead + 1 != a.name || a.lead[0] != ' ' || a.eq_n != 1 || a.quote != '"' || r->pv[r->npv - 1].scratch)
      plain = 0;
  }
  if (rc < 0) return s_err(r, n->tok.s, "a bad start tag");
  size_t tail_n = (size_t)(n->tok.s + n->tok.n - tail);
  if (n->empty) plain = plain && tail_n == 3 && memcmp(tail, " />", 3) == 0;
  else plain = plain && tail_n == 1 && n->nkids > 0;
  if (!plain && (rc = s_pv_add(r, r->k_src, ENS_BYTES, n->tok.s, n->tok.n))) return rc;
  if (n->end_s && !(n->end_n == name_n + 3 && memcmp(n->end_s + 2, name, name_n) == 0 && n->end_s[n->end_n - 1] == '>'))
    if ((rc = s_pv_add(r, r->k_end, ENS_BYTES, n->end_s, n->end_n))) return rc;
  return 0;
}

/* version="1.0" encoding=... standalone=...: pseudo-attributes. */
static int s_xmldecl(s_reader *r, s_node *n) {
  const char *b = n->tok.body, *e = b + n->tok.body_n;
  int rc = s_pv_add(r, r->k_src, ENS_BYTES, n->tok.s, n->tok.n);
  while (!rc && b < e) {
    while (b < e && (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r')) b++;
    const char *nm = b;
    /* a name ends at '=' or any XML blank (a CR too), as the writer reads it */
    while (b < e && *b != '=' && *b != ' ' && *b != '\t' && *b != '\n' && *b != '\r') b++;
    size_t nn = (size_t)(b - nm);
    while (b < e && (*b == '=' || *b == ' ' || *b == '\t' || *b == '\n' || *b == '\r')) b++;
    if (b >= e || (*b != '"' && *b != '\'')) break;
    const char *q = memchr(b + 1, *b, (size_t)(e - b - 1));
    if (!q || !nn) break;
    const char *key = ens__atom(r->doc, nm, nn);
    if (!key) return s_oom();
    rc = s_pv_add(r, key, ENS_STR, b + 1, (size_t)(q - b - 1));
    b = q + 1;
  }
  return rc;
}

static int s_props(s_reader *r, s_node *n) {
  const ens__svg_tok *t = &n->tok;
  int rc = 0;
  switch (n->kind) {
  case N_ELEM: return s_element(r, n);
  case N_TEXT: {
    if ((rc = s_pv_decoded(r, r->k_text, t->body, t->body_n, ENS__SVG_TEXT, t->s))) return rc;
    const s_pv *pv = &r->pv[r->npv - 1];
    /* the text as written is kept unless escaping the value gives it back */
    if (pv->scratch || pv->n != t->n || pv->s != t->s || s_has(t->s, t->n, '>'))
      rc = s_pv_add(r, r->k_src, ENS_BYTES, t->s, t->n);
    return rc;
  }
  case N_CDATA:
  case N_COMMENT:
    if ((rc = s_pv_decoded(r, r->k_text, t->body, t->body_n, ENS__SVG_LITERAL, t->s))) return rc;
    if (s_has(t->body, t->body_n, '\r')) rc = s_pv_add(r, r->k_src, ENS_BYTES, t->s, t->n);
    return rc;
  case N_PI: {
    if ((rc = s_pv_add(r, r->k_target, ENS_STR, t->name, t->name_n))) return rc;
    if ((rc = s_pv_decoded(r, r->k_data, t->body, t->body_n, ENS__SVG_LITERAL, t->s))) return rc;
    /* plain: <?target data?> with one space, or <?target?> */
    const char *after = t->name + t->name_n;
    int plain = !s_has(t->body, t->body_n, '\r') &&
                (t->body_n ? (t->body == after + 1 && *after == ' ') : t->body == after);
    if (!plain) rc = s_pv_add(r, r->k_src, ENS_BYTES, t->s, t->n);
    return rc;
  }
  case N_XMLDECL: return s_xmldecl(r, n);
  case N_DOCTYPE:
    if ((rc = s_pv_add(r, r->k_name, ENS_STR, t->name, t->name_n))) return rc;
    for (size_t i = 0; !rc && r->ents && i < r->ents->n; i++) {
      const ens__svg_ent *e = &r->ents->v[i];
      if (!e->text || e->name_n > 1000) continue;
      char key[1024];
      key[0] = '&';
      memcpy(key + 1, e->name, e->name_n);
      const char *k = ens__atom(r->doc, key, e->name_n + 1);
      if (!k) return s_oom();
      rc = s_pv_add(r, k, ENS_STR, e->text, e->text_n);
    }
    if (!rc) rc = s_pv_add(r, r->k_src, ENS_BYTES, t->s, t->n);
    return rc;
  case N_ENTITY: return s_pv_add(r, r->k_name, ENS_STR, t->name, t->name_n);
  }
  return 0;
}

static int s_objects(s_reader *r) {
  ens_doc *doc = r->doc;
  size_t root_kids = 0, root_idx = 0;
  for (size_t i = 0; i < r->nn; i++)
    if (r->nodes[i].parent == S_NONE) root_kids++;
  if (ens__doc_reserve(doc, r->nn + 1)) return s_oom();
  if (root_kids && ens__obj_arena_kids(doc, doc->root, (uint32_t)root_kids)) return s_oom();
  for (size_t i = 0; i < r->nn; i++) {
    s_node *n = &r->nodes[i];
    ens_obj *parent;
    size_t kidx, total;
    if (n->parent == S_NONE) {
      parent = doc->root;
      kidx = root_idx++;
      total = root_kids;
    } else {
      s_node *p = &r->nodes[n->parent];
      parent = p->obj;
      kidx = p->kidx++;
      total = p->nkids;
    }
    const char *kind = n->kind == N_ELEM ? ens__atom(doc, n->tok.name, n->tok.name_n) : r->kinds[n->kind];
    if (!kind) return s_oom();
    if (n->kind == N_ELEM && n->tok.name_n > 255) return s_err(r, n->tok.s, "an element name longer than 255 bytes");
    char *tmp;
    const char *pos = s_pos(r, kidx, total, &tmp);
    if (!pos) return s_oom();
    ens_obj *o = ens__obj_append(doc, ens_doc_new_id(doc), kind, parent, pos, strlen(pos));
    ens_free(tmp);
    if (!o) return ens_error_last()[0] ? ENS_ENOMEM : s_oom();
    n->obj = o;
    if (n->nkids && ens__obj_arena_kids(doc, o, n->nkids)) return s_oom();
    r->npv = 0;
    r->scratch.len = 0;
    int rc = s_props(r, n);
    if (!rc) rc = s_flush(r, o);
    if (rc) return rc;
  }
  return 0;
}

int ens__svg_build(ens_doc *doc, const char *text, size_t n, ens__svg_ents *ents) {
  s_reader r;
  memset(&r, 0, sizeof r);
  r.doc = doc;
  r.text = text;
  r.end = text + n;
  r.ents = ents;
  int rc = 0;
  for (int k = 1; k < N_NKINDS; k++)
    if (!(r.kinds[k] = ens__atom(doc, s_kind_names[k], strlen(s_kind_names[k])))) rc = s_oom();
  if (!rc && (!(r.k_src = ens__atom(doc, S_SRC, 4)) || !(r.k_end = ens__atom(doc, S_END, 4)) ||
              !(r.k_text = ens__atom(doc, "text", 4)) || !(r.k_target = ens__atom(doc, "target", 6)) ||
              !(r.k_data = ens__atom(doc, "data", 4)) || !(r.k_name = ens__atom(doc, "name", 4))))
    rc = s_oom();
  if (!rc) rc = s_scan(&r);
  if (!rc) rc = s_objects(&r);
  for (size_t k = 0; k <= S_POS_CACHE; k++) {
    if (!r.pc[k]) continue;
    for (size_t j = 0; j < k; j++) ens_free(r.pc[k][j]);
    free(r.pc[k]);
  }
  free(r.nodes);
  free(r.pv);
  ens__buf_free(&r.scratch);
  return rc;
}
