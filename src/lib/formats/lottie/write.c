/* The Lottie writer: each container goes out as its kept text, member by
 * member, while each member's value still reads back from it; a changed
 * value is written again in its place, a removed member goes with its
 * blanks, a new one is added after the last in the style of the one
 * before it, and an object an edit created is written compactly. */
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "lottie_int.h"

typedef struct {
  const ens_doc *doc;
  ens_buf *out;
  ens_buf scratch, name;
  const char *k_key, *k_src;
} s_writer;

typedef struct {
  const char *pre, *key, *mid, *val, *post;
  size_t pre_n, key_n, mid_n, val_n, post_n;
} s_member;

static int s_bad(const ens_obj *o) {
  return ens__error(ENS_EFORMAT, "the kept text of a %s (%#llx) does not parse as JSON", o->kind, (unsigned long long)o->id);
}

static const ens__prop *s_get(const ens_obj *o, const char *atom) {
  if (!atom) return NULL;
  const ens__prop *p = ens__obj_find_prop(o, atom);
  return p && p->type != ENS_NIL ? p : NULL;
}

static int s_is_list(const ens_obj *o) { return strcmp(o->kind, ENS_LOTTIE_LIST) == 0; }

static int s_write(s_writer *w, const ens_obj *o, unsigned depth);

/* A member's value. A real number whose shortest text has no point nor
 * exponent ("21000000000000004") would read back as an integer, another
 * value: it gets ".0". */
static int s_put_member(ens_buf *out, const ens_value *v) {
  size_t at = out->len;
  int rc = ens__lj_put_value(out, v);
  if (rc || v->type != ENS_REAL || out->oom) return rc;
  for (size_t i = at; i < out->len; i++)
    if (out->data[i] == '.' || out->data[i] == 'e' || out->data[i] == 'E') return 0;
  ens__buf_puts(out, ".0");
  return 0;
}

/* The same-named child, looked for first where the last one was found. */
static const ens_obj *s_find_kid(s_writer *w, const ens_obj *o, const char *name, size_t name_n, uint32_t *cur,
                                 uint32_t *at) {
  for (uint32_t step = 0; step < o->nkids; step++) {
    uint32_t i = (*cur + step) % o->nkids;
    const ens__prop *k = s_get(o->kids[i], w->k_key);
    if (k && k->type == ENS_STR && k->len == name_n && memcmp(k->u.s, name, name_n) == 0) {
      *cur = i + 1;
      *at = i;
      return o->kids[i];
    }
  }
  return NULL;
}

static const char *s_skip_ws(const char *p, const char *end) {
  while (p < end && ens__lj_ws(*p)) p++;
  return p;
}

/* Members (or elements: key NULL) of the container at *pp; *pp ends past
 * it, *tail (*tail_n bytes) is the blank text before its closing bracket. */
static int s_parse(const char **pp, const char *end, int obj, s_member **out, size_t *n, const char **tail,
                   size_t *tail_n) {
  const char *p = *pp + 1;
  size_t cap = 0;
  *out = NULL;
  *n = 0;
  char close = obj ? '}' : ']';
  for (;;) {
    const char *ws = p;
    p = s_skip_ws(p, end);
    if (p >= end) return -1;
    if (*p == close && *n == 0) {
      *tail = ws;
      *tail_n = (size_t)(p - ws);
      break;
    }
    if (*n == cap) {
      cap = cap ? cap * 2 : 16;
      s_member *nv = realloc(*out, cap * sizeof *nv);
      if (!nv) return ENS_ENOMEM;
      *out = nv;
    }
    s_member *m = &(*out)[(*n)++];
    memset(m, 0, sizeof *m);
    m->pre = ws;
    m->pre_n = (size_t)(p - ws);
    if (obj) {
      const char *k = p;
      if (*p != '"' || !(p = ens__lj_skip(p, end))) return -1;
      m->key = k;
      m->key_n = (size_t)(p - k);
      const char *mid = p;
      p = s_skip_ws(p, end);
      if (p >= end || *p != ':') return -1;
      p = s_skip_ws(p + 1, end);
      m->mid = mid;
      m->mid_n = (size_t)(p - mid);
    }
    const char *v = p;
    if (!(p = ens__lj_skip(p, end))) return -1;
    m->val = v;
    m->val_n = (size_t)(p - v);
    const char *post = p;
    p = s_skip_ws(p, end);
    if (p >= end) return -1;
    if (*p == ',') {
      m->post = post;
      m->post_n = (size_t)(p - post);
      p++;
      continue;
    }
    if (*p != close) return -1;
    *tail = post;
    *tail_n = (size_t)(p - post);
    break;
  }
  *pp = p + 1;
  return 0;
}

/* A container with no kept text: compact. */
static int s_fresh(s_writer *w, const ens_obj *o, unsigned depth) {
  int list = s_is_list(o), first = 1, rc;
  ens__buf_putc(w->out, list ? '[' : '{');
  if (!list) {
    for (uint32_t i = 0; i < o->nprops; i++) {
      const ens__prop *p = &o->props[i];
      const char *name = ens__lj_member_name(ens__prop_key(o, p));
      if (p->type == ENS_NIL || !name) continue;
      if (!first) ens__buf_putc(w->out, ',');
      first = 0;
      ens__lj_put_string(w->out, name, strlen(name));
      ens__buf_putc(w->out, ':');
      ens_value v = ens__prop_value(p);
      if ((rc = s_put_member(w->out, &v))) return rc;
    }
  }
  for (uint32_t i = 0; i < o->nkids; i++) {
    if (!first) ens__buf_putc(w->out, ',');
    first = 0;
    if (!list) {
      const ens__prop *k = s_get(o->kids[i], w->k_key);
      if (!k || k->type != ENS_STR)
        return ens__error(ENS_EFORMAT, "a %s (%#llx) in an object has no member name (%s)", o->kids[i]->kind,
                          (unsigned long long)o->kids[i]->id, ENS_LOTTIE_KEY);
      ens__lj_put_string(w->out, k->u.s, k->len);
      ens__buf_putc(w->out, ':');
    }
    if ((rc = s_write(w, o->kids[i], depth + 1))) return rc;
  }
  ens__buf_putc(w->out, list ? ']' : '}');
  return 0;
}

/* A document just read: its kept text with its children in their places. */
static int s_as_read(s_writer *w, const ens_obj *o, const char *s, size_t n, unsigned depth) {
  const char *p = s, *end = s + n, *run = s;
  uint32_t k = 0;
  int rc;
  while (p < end) {
    char c = *p;
    if (c == '"') {
      for (p++; p < end && *p != '"'; p++)
        if (*p == '\\') p++;
      p++;
    } else if (c == '@') {
      if (k >= o->nkids) return s_bad(o);
      ens__buf_append(w->out, run, (size_t)(p - run));
      if ((rc = s_write(w, o->kids[k++], depth + 1))) return rc;
      run = ++p;
    } else {
      p++;
    }
  }
  if (p > end) return s_bad(o);
  ens__buf_append(w->out, run, (size_t)(end - run));
  return k == o->nkids ? 0 : s_bad(o);
}

static void s_sep(s_writer *w, int *first) {
  if (!*first) ens__buf_putc(w->out, ',');
  *first = 0;
}

static int s_object(s_writer *w, const ens_obj *o, const s_member *m, size_t nm, unsigned depth) {
  int rc = 0, first = 1;
  uint8_t *used = calloc((size_t)o->nprops + o->nkids + 1, 1);
  if (!used) return ens__error(ENS_ENOMEM, "out of memory writing Lottie");
  uint8_t *used_kid = used + o->nprops;
  uint32_t kcur = 0;
  char kbuf[ENS_MAX_KEY + 1];
  for (size_t i = 0; i < nm && !rc; i++) {
    w->name.len = 0;
    if ((rc = ens__lj_unescape(m[i].key, m[i].key_n, &w->name))) break;
    const char *name = (const char *)w->name.data;
    size_t name_n = w->name.len;
    uint32_t at;
    const ens_obj *kid = s_find_kid(w, o, name ? name : "", name_n, &kcur, &at);
    if (kid && !used_kid[at]) {
      used_kid[at] = 1;
      s_sep(w, &first);
      ens__buf_append(w->out, m[i].pre, m[i].pre_n);
      ens__buf_append(w->out, m[i].key, m[i].key_n);
      ens__buf_append(w->out, m[i].mid, m[i].mid_n);
      if ((rc = s_write(w, kid, depth + 1))) break;
      ens__buf_append(w->out, m[i].post, m[i].post_n);
      continue;
    }
    size_t kn = ens__lj_prop_key(name ? name : "", name_n, kbuf);
    const char *atom = kn ? ens__atom_find(w->doc, kbuf, kn) : NULL;
    const ens__prop *p = s_get(o, atom);
    if (!p) continue; /* removed */
    used[p - o->props] = 1;
    s_sep(w, &first);
    ens__buf_append(w->out, m[i].pre, m[i].pre_n);
    ens__buf_append(w->out, m[i].key, m[i].key_n);
    ens__buf_append(w->out, m[i].mid, m[i].mid_n);
    ens_value v = ens__prop_value(p);
    if (ens__lj_same(m[i].val, m[i].val_n, &v, &w->scratch)) ens__buf_append(w->out, m[i].val, m[i].val_n);
    else rc = s_put_member(w->out, &v);
    ens__buf_append(w->out, m[i].post, m[i].post_n);
  }
  /* members an edit added, in the style of the last one */
  const char *pre = nm ? m[nm - 1].pre : "", *mid = nm ? m[nm - 1].mid : ":";
  size_t pre_n = nm ? m[nm - 1].pre_n : 0, mid_n = nm ? m[nm - 1].mid_n : 1;
  for (uint32_t i = 0; i < o->nprops && !rc; i++) {
    const ens__prop *p = &o->props[i];
    const char *name = ens__lj_member_name(ens__prop_key(o, p));
    if (used[i] || p->type == ENS_NIL || !name) continue;
    s_sep(w, &first);
    ens__buf_append(w->out, pre, pre_n);
    ens__lj_put_string(w->out, name, strlen(name));
    ens__buf_append(w->out, mid, mid_n);
    ens_value v = ens__prop_value(p);
    rc = s_put_member(w->out, &v);
  }
  for (uint32_t i = 0; i < o->nkids && !rc; i++) {
    if (used_kid[i]) continue;
    const ens__prop *k = s_get(o->kids[i], w->k_key);
    if (!k || k->type != ENS_STR) {
      rc = ens__error(ENS_EFORMAT, "a %s (%#llx) in an object has no member name (%s)", o->kids[i]->kind,
                      (unsigned long long)o->kids[i]->id, ENS_LOTTIE_KEY);
      break;
    }
    s_sep(w, &first);
    ens__buf_append(w->out, pre, pre_n);
    ens__lj_put_string(w->out, k->u.s, k->len);
    ens__buf_append(w->out, mid, mid_n);
    rc = s_write(w, o->kids[i], depth + 1);
  }
  free(used);
  return rc;
}

static int s_array(s_writer *w, const ens_obj *o, const s_member *m, size_t nm, unsigned depth) {
  int first = 1, rc;
  for (uint32_t i = 0; i < o->nkids; i++) {
    const s_member *e = nm ? &m[i < nm ? i : nm - 1] : NULL;
    s_sep(w, &first);
    if (e) ens__buf_append(w->out, e->pre, e->pre_n);
    if ((rc = s_write(w, o->kids[i], depth + 1))) return rc;
    if (e && i + 1 < o->nkids) {
      const s_member *f = &m[i < nm ? i : (nm >= 2 ? nm - 2 : 0)];
      ens__buf_append(w->out, f->post, f->post_n);
    }
  }
  return 0;
}

static int s_write(s_writer *w, const ens_obj *o, unsigned depth) {
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "objects nested deeper than %d", ENS_MAX_DEPTH);
  const ens__prop *src = s_get(o, w->k_src);
  if (!src || src->type != ENS_BYTES) return s_fresh(w, o, depth);
  if (o->as_read) return s_as_read(w, o, src->u.s, src->len, depth);
  const char *p = src->u.s, *end = p + src->len;
  const char *q = s_skip_ws(p, end);
  int list = s_is_list(o);
  if (q >= end || *q != (list ? '[' : '{')) return s_fresh(w, o, depth);
  ens__buf_append(w->out, p, (size_t)(q - p));
  s_member *m;
  size_t nm, tail_n;
  const char *tail;
  int rc = s_parse(&q, end, !list, &m, &nm, &tail, &tail_n);
  if (rc) {
    free(m);
    return rc == ENS_ENOMEM ? ens__error(ENS_ENOMEM, "out of memory writing Lottie") : s_bad(o);
  }
  ens__buf_putc(w->out, list ? '[' : '{');
  rc = list ? s_array(w, o, m, nm, depth) : s_object(w, o, m, nm, depth);
  free(m);
  if (rc) return rc;
  ens__buf_append(w->out, tail, tail_n);
  ens__buf_putc(w->out, list ? ']' : '}');
  ens__buf_append(w->out, q, (size_t)(end - q)); /* blanks after the top object */
  return 0;
}

int ens__lj_write_doc(const ens_doc *doc, ens_buf *out) {
  s_writer w;
  memset(&w, 0, sizeof w);
  w.doc = doc;
  w.out = out;
  w.k_key = ens__atom_find(doc, ENS_LOTTIE_KEY, 4);
  w.k_src = ens__atom_find(doc, ENS_LOTTIE_SRC, 4);
  int rc = s_write(&w, doc->root, 0);
  ens__buf_free(&w.scratch);
  ens__buf_free(&w.name);
  if (!rc && out->oom) rc = ens__error(ENS_ENOMEM, "out of memory writing Lottie");
  return rc;
}
