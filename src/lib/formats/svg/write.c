/* The SVG writer: each node's own source text goes back as it was while
 * its properties still read back from it; an element whose attributes
 * changed keeps its tag and every unchanged attribute byte for byte, and
 * only the changed attribute is written again (in its own quotes), a
 * removed one dropped, a new one added before the tag's end. Whether a
 * node is unchanged is decided by decoding its kept text again, not by a
 * flag, so it holds after a snapshot, a session or a diff too. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "svg_int.h"

typedef struct {
  const ens_doc *doc;
  ens_buf *out;
  ens__svg_ents ents; /* borrowed strings, from the #doctype */
  const char *k_src, *k_end, *k_text, *k_target, *k_data, *k_name;
  const char *kinds[7]; /* text, cdata, comment, pi, xmldecl, doctype, entity */
  uint8_t *seen;
  size_t seen_cap;
} s_writer;

enum { W_TEXT, W_CDATA, W_COMMENT, W_PI, W_XMLDECL, W_DOCTYPE, W_ENTITY };
static const char *const s_kn[7] = {ENS_SVG_TEXT,    ENS_SVG_CDATA,   ENS_SVG_COMMENT, ENS_SVG_PI,
                                    ENS_SVG_XMLDECL, ENS_SVG_DOCTYPE, ENS_SVG_ENTITY};

static const ens__prop *s_prop(const ens_obj *o, const char *key) {
  if (!key) return NULL;
  const ens__prop *p = ens__obj_find_prop(o, key);
  return p && p->type != ENS_NIL ? p : NULL;
}

static int s_bytes(const ens_obj *o, const char *key, const char **s, size_t *n) {
  const ens__prop *p = s_prop(o, key);
  if (!p || (p->type != ENS_STR && p->type != ENS_BYTES)) return 0;
  *s = p->u.s;
  *n = p->len;
  return 1;
}

static int s_starts(const char *s, size_t n, const char *pre) {
  size_t k = strlen(pre);
  return n >= k && memcmp(s, pre, k) == 0;
}

static int s_ends(const char *s, size_t n, const char *suf) {
  size_t k = strlen(suf);
  return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* Shortest text that reads back as the same double. */
static void s_put_real(ens_buf *out, double v) {
  char b[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(b, sizeof b, "%.*g", prec, v);
    if (strtod(b, NULL) == v) break;
  }
  ens__buf_puts(out, b);
}

/* A property as attribute text (strings as they are). 0 when it has none. */
static int s_value_text(const ens__prop *p, ens_buf *tmp, const char **s, size_t *n) {
  tmp->len = 0;
  switch (p->type) {
  case ENS_STR:
  case ENS_BYTES: *s = p->u.s; *n = p->len; return 1;
  case ENS_INT: ens__buf_printf(tmp, "%lld", (long long)p->u.i); break;
  case ENS_REAL: s_put_real(tmp, p->u.r); break;
  case ENS_BOOL: ens__buf_puts(tmp, p->u.b ? "true" : "false"); break;
  default: return 0;
  }
  *s = (const char *)tmp->data;
  *n = tmp->len;
  return 1;
}

static int s_is_attr_key(const char *key) { return key[0] != '~' && key[0] != '@' && key[0] != '&'; }

static void s_new_attr(s_writer *w, const ens_obj *o, const ens__prop *p, ens_buf *tmp) {
  const char *s;
  size_t n;
  if (!s_value_text(p, tmp, &s, &n)) return;
  ens__buf_putc(w->out, ' ');
  ens__buf_puts(w->out, ens__prop_key(o, p));
  ens__buf_puts(w->out, "=\"");
  ens__svg_escape_attr(s, n, '"', w->out);
  ens__buf_putc(w->out, '"');
}

/* The kept start tag, if it is one and names this element: its tail
 * (blanks, then "/>" or ">") in *tail. */
static int s_src_tag(const char *src, size_t n, const char *kind, const char **tail, int *self_closed) {
  ens__svg_attrs it;
  ens__svg_attr a;
  const char *name;
  size_t name_n;
  int rc;
  if (ens__svg_attrs_begin(src, n, &it, &name, &name_n)) return 0;
  if (name_n != strlen(kind) || memcmp(name, kind, name_n) != 0) return 0;
  while ((rc = ens__svg_attr_next(&it, &a, tail)) == 1) {
  }
  if (rc < 0) return 0;
  const char *q = *tail, *end = src + n;
  while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
  *self_closed = q < end && *q == '/';
  if (*self_closed) q++;
  return q + 1 == end && *q == '>';
}

static int s_node(s_writer *w, const ens_obj *o, size_t depth);

static int s_element(s_writer *w, const ens_obj *o, size_t depth) {
  ens_buf *out = w->out;
  const char *src, *tail = NULL;
  size_t src_n;
  int self_closed = 0;
  int has_src = s_bytes(o, w->k_src, &src, &src_n) && s_src_tag(src, src_n, o->kind, &tail, &self_closed);
  ens_buf tmp = ENS_BUF_INIT;
  if (has_src && o->as_read) {
    /* unchanged since reading (model/doc.h): the tag as it was */
    ens__buf_append(out, src, src_n);
  } else if (has_src) {
    if (o->nprops > w->seen_cap) {
      uint8_t *ns = realloc(w->seen, o->nprops);
      if (!ns) return ens__error(ENS_ENOMEM, "out of memory writing SVG");
      w->seen = ns;
      w->seen_cap = o->nprops;
    }
    memset(w->seen, 0, o->nprops);
    ens__svg_attrs it;
    ens__svg_attr a;
    const char *name;
    size_t name_n;
    ens__svg_attrs_begin(src, src_n, &it, &name, &name_n);
    ens__buf_append(out, src, (size_t)(name + name_n - src));
    while (ens__svg_attr_next(&it, &a, &tail) == 1) {
      const char *key = ens__atom_find(w->doc, a.name, a.name_n);
      const ens__prop *p = key ? s_prop(o, key) : NULL;
      if (!p) continue; /* removed: goes with its blanks */
      w->seen[p - o->props] = 1;
      const char *s;
      size_t n;
      if (!s_value_text(p, &tmp, &s, &n)) continue;
      if ((p->type == ENS_STR || p->type == ENS_BYTES) && ens__svg_decodes_to(a.val, a.val_n, ENS__SVG_ATTR, &w->ents, s, n)) {
        ens__buf_append(out, a.lead, (size_t)(a.end - a.lead));
      } else {
        ens__buf_append(out, a.lead, (size_t)(a.val - a.lead));
        ens__svg_escape_attr(s, n, a.quote, out);
        ens__buf_putc(out, (unsigned char)a.quote);
      }
    }
    for (uint32_t i = 0; i < o->nprops; i++)
      if (!w->seen[i] && o->props[i].type != ENS_NIL && s_is_attr_key(ens__prop_key(o, &o->props[i])))
        s_new_attr(w, o, &o->props[i], &tmp);
    const char *end = src + src_n;
    if (self_closed && o->nkids) {
      for (const char *q = tail; q < end; q++)
        if (*q != '/') ens__buf_putc(out, (unsigned char)*q);
      self_closed = 0;
    } else {
      ens__buf_append(out, tail, (size_t)(end - tail));
    }
  } else {
    ens__buf_putc(out, '<');
    ens__buf_puts(out, o->kind);
    for (uint32_t i = 0; i < o->nprops; i++)
      if (o->props[i].type != ENS_NIL && s_is_attr_key(ens__prop_key(o, &o->props[i])))
        s_new_attr(w, o, &o->props[i], &tmp);
    self_closed = o->nkids == 0;
    ens__buf_puts(out, self_closed ? " />" : ">");
  }
  ens__buf_free(&tmp);
  for (uint32_t i = 0; i < o->nkids; i++) {
    int rc = s_node(w, o->kids[i], depth + 1);
    if (rc) return rc;
  }
  if (self_closed) return 0;
  const char *e;
  size_t en, kn = strlen(o->kind);
  if (s_bytes(o, w->k_end, &e, &en) && en >= kn + 3 && s_starts(e, en, "</") && memcmp(e + 2, o->kind, kn) == 0 &&
      e[en - 1] == '>') {
    ens__buf_append(out, e, en);
  } else {
    ens__buf_puts(out, "</");
    ens__buf_puts(out, o->kind);
    ens__buf_putc(out, '>');
  }
  return 0;
}

/* Kept text (pre ... suf) whose inside still decodes to the value. */
static int s_kept(s_writer *w, const ens_obj *o, const char *pre, const char *suf, const char *v, size_t vn) {
  const char *src;
  size_t n, a = strlen(pre), b = strlen(suf);
  if (!s_bytes(o, w->k_src, &src, &n) || n < a + b || !s_starts(src, n, pre) || !s_ends(src, n, suf)) return 0;
  if (!o->as_read && !ens__svg_decodes_to(src + a, n - a - b, ENS__SVG_LITERAL, NULL, v, vn)) return 0;
  ens__buf_append(w->out, src, n);
  return 1;
}

static void s_str(const ens_obj *o, const char *key, const char **s, size_t *n) {
  if (!s_bytes(o, key, s, n)) {
    *s = "";
    *n = 0;
  }
}

/* Value of pseudo-attribute name in an XML declaration, or NULL. */
static const char *s_decl_get(const char *s, size_t n, const char *name, size_t *vn) {
  size_t k = strlen(name);
  const char *end = s + n;
  for (const char *p = s; p + k < end; p++) {
    if (memcmp(p, name, k) != 0 || (p > s && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '\n' && p[-1] != '\r'))
      continue;
    const char *q = p + k;
    while (q < end && (*q == ' ' || *q == '=' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
    if (q >= end || (*q != '"' && *q != '\'')) continue;
    const char *c = memchr(q + 1, *q, (size_t)(end - q - 1));
    if (!c) return NULL;
    *vn = (size_t)(c - q - 1);
    return q + 1;
  }
  return NULL;
}

static void s_xmldecl(s_writer *w, const ens_obj *o) {
  static const char *const names[3] = {"version", "encoding", "standalone"};
  const char *src, *v;
  size_t n, vn;
  int keep = s_bytes(o, w->k_src, &src, &n) && s_starts(src, n, "<?xml") && s_ends(src, n, "?>");
  for (int i = 0; keep && i < 3; i++) {
    const char *key = ens__atom_find(w->doc, names[i], strlen(names[i]));
    const ens__prop *p = s_prop(o, key);
    size_t sn;
    const char *sv = s_decl_get(src, n, names[i], &sn);
    if (!p) keep = sv == NULL;
    else keep = sv && (p->type == ENS_STR || p->type == ENS_BYTES) && p->len == sn && memcmp(p->u.s, sv, sn) == 0;
  }
  if (keep) {
    ens__buf_append(w->out, src, n);
    return;
  }
  ens__buf_puts(w->out, "<?xml");
  for (int i = 0; i < 3; i++) {
    const char *key = ens__atom_find(w->doc, names[i], strlen(names[i]));
    if (s_bytes(o, key, &v, &vn)) {
      ens__buf_printf(w->out, " %s=\"", names[i]);
      ens__svg_escape_attr(v, vn, '"', w->out);
      ens__buf_putc(w->out, '"');
    }
  }
  ens__buf_puts(w->out, "?>");
}

/* An entity's replacement text as the literal of its declaration: the
 * characters a literal would change are references to themselves ('&'
 * too: a reference to another entity stays as it is in the replacement
 * text, and a character reference is what gives a bare '&' back). */
static void s_entity_literal(const char *s, size_t n, ens_buf *out) {
  const char *run = s, *end = s + n;
  for (const char *p = s; p < end; p++) {
    const char *rep;
    switch (*p) {
    case '&': rep = "&#38;"; break;
    case '%': rep = "&#37;"; break;
    case '"': rep = "&#34;"; break;
    case '\r': rep = "&#13;"; break;
    default: continue;
    }
    ens__buf_append(out, run, (size_t)(p - run));
    ens__buf_puts(out, rep);
    run = p + 1;
  }
  ens__buf_append(out, run, (size_t)(end - run));
}

int ens__svg_doctype_text(const ens_doc *doc, const ens_obj *o, ens_buf *out) {
  const char *k_src = ens__atom_find(doc, S_SRC, 4), *k_name = ens__atom_find(doc, "name", 4);
  const char *src, *s;
  size_t sn, n;
  if (s_bytes(o, k_src, &src, &sn) && s_starts(src, sn, "<!DOCTYPE") && s_ends(src, sn, ">")) {
    ens__buf_append(out, src, sn);
    return out->oom ? ENS_ENOMEM : 0;
  }
  s_str(o, k_name, &s, &n);
  ens__buf_puts(out, "<!DOCTYPE ");
  ens__buf_append(out, s, n);
  int any = 0;
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (ens__prop_key(o, p)[0] != '&' || (p->type != ENS_STR && p->type != ENS_BYTES)) continue;
    ens__buf_printf(out, "%s\n<!ENTITY %s \"", any ? "" : " [", ens__prop_key(o, p) + 1);
    s_entity_literal(p->u.s, p->len, out);
    ens__buf_puts(out, "\">");
    any = 1;
  }
  ens__buf_puts(out, any ? "\n]>" : ">");
  return out->oom ? ens__error(ENS_ENOMEM, "out of memory writing SVG") : 0;
}

/* Text that may not hold `bad` gets it split (CDATA) or broken (comment). */
static void s_put_guarded(ens_buf *out, const char *s, size_t n, const char *bad, const char *rep) {
  size_t k = strlen(bad);
  const char *run = s, *end = s + n;
  for (const char *p = s; p + k <= end; p++) {
    if (memcmp(p, bad, k) != 0) continue;
    ens__buf_append(out, run, (size_t)(p - run));
    ens__buf_puts(out, rep);
    run = p + k;
    p += k - 1;
  }
  ens__buf_append(out, run, (size_t)(end - run));
}

static int s_node(s_writer *w, const ens_obj *o, size_t depth) {
  if (depth > ENS_MAX_DEPTH) return ens__error(ENS_ELIMIT, "the document is nested too deep");
  ens_buf *out = w->out;
  const char *s;
  size_t n;
  int k = -1;
  for (int i = 0; i < 7; i++)
    if (o->kind == w->kinds[i]) k = i;
  if (k < 0) {
    if (o->kind[0] == '#') return 0; /* not a node of XML: nothing to write */
    return s_element(w, o, depth);
  }
  switch (k) {
  case W_TEXT:
    s_str(o, w->k_text, &s, &n);
    {
      const char *src;
      size_t sn;
      if (s_bytes(o, w->k_src, &src, &sn) &&
          (o->as_read || (!memchr(src, '<', sn) && !memmem(src, sn, "]]>", 3) &&
                          ens__svg_decodes_to(src, sn, ENS__SVG_TEXT, NULL, s, n)))) {
        ens__buf_append(out, src, sn);
        break;
      }
    }
    ens__svg_escape_text(s, n, out);
    break;
  case W_CDATA:
    s_str(o, w->k_text, &s, &n);
    if (s_kept(w, o, "<![CDATA[", "]]>", s, n)) break;
    ens__buf_puts(out, "<![CDATA[");
    s_put_guarded(out, s, n, "]]>", "]]]]><![CDATA[>");
    ens__buf_puts(out, "]]>");
    break;
  case W_COMMENT:
    s_str(o, w->k_text, &s, &n);
    if (s_kept(w, o, "<!--", "-->", s, n)) break;
    ens__buf_puts(out, "<!--");
    s_put_guarded(out, s, n, "--", "- -");
    if (n && s[n - 1] == '-') ens__buf_putc(out, ' ');
    ens__buf_puts(out, "-->");
    break;
  case W_PI: {
    const char *t, *src;
    size_t tn, sn;
    s_str(o, w->k_target, &t, &tn);
    s_str(o, w->k_data, &s, &n);
    if (s_bytes(o, w->k_src, &src, &sn) && sn >= tn + 4 && s_starts(src, sn, "<?") && s_ends(src, sn, "?>") &&
        memcmp(src + 2, t, tn) == 0) {
      const char *b = src + 2 + tn, *e = src + sn - 2;
      if (b == e || *b == ' ' || *b == '\t' || *b == '\n' || *b == '\r') {
        while (b < e && (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r')) b++;
        if (ens__svg_decodes_to(b, (size_t)(e - b), ENS__SVG_LITERAL, NULL, s, n)) {
          ens__buf_append(out, src, sn);
          break;
        }
      }
    }
    ens__buf_puts(out, "<?");
    ens__buf_append(out, t, tn);
    if (n) ens__buf_putc(out, ' ');
    s_put_guarded(out, s, n, "?>", "? >");
    ens__buf_puts(out, "?>");
    break;
  }
  case W_XMLDECL: s_xmldecl(w, o); break;
  case W_DOCTYPE:
    if (ens__svg_doctype_text(w->doc, o, out)) return ENS_ENOMEM;
    break;
  case W_ENTITY:
    s_str(o, w->k_name, &s, &n);
    ens__buf_putc(out, '&');
    ens__buf_append(out, s, n);
    ens__buf_putc(out, ';');
    break;
  }
  return 0;
}

/* Internal entities, for decoding kept attribute values: the replacement
 * texts the reader put on the #doctype. */
static int s_entities(s_writer *w) {
  const ens_obj *root = w->doc->root;
  w->ents.budget = ENS_SVG_MAX_EXPANSION;
  for (uint32_t i = 0; i < root->nkids; i++) {
    const ens_obj *d = root->kids[i];
    if (d->kind != w->kinds[W_DOCTYPE]) continue;
    for (uint32_t j = 0; j < d->nprops; j++) {
      const ens__prop *p = &d->props[j];
      const char *key = ens__prop_key(d, p);
      if (key[0] != '&' || (p->type != ENS_STR && p->type != ENS_BYTES)) continue;
      if (w->ents.n == w->ents.cap) {
        size_t nc = w->ents.cap ? w->ents.cap * 2 : 8;
        ens__svg_ent *nv = realloc(w->ents.v, nc * sizeof *nv);
        if (!nv) return ens__error(ENS_ENOMEM, "out of memory writing SVG");
        w->ents.v = nv;
        w->ents.cap = nc;
      }
      w->ents.v[w->ents.n++] = (ens__svg_ent){key + 1, strlen(key + 1), p->u.s, p->len};
    }
  }
  return 0;
}

int ens__svg_write_doc(const ens_doc *doc, ens_buf *out) {
  s_writer w;
  memset(&w, 0, sizeof w);
  w.doc = doc;
  w.out = out;
  w.k_src = ens__atom_find(doc, S_SRC, 4);
  w.k_end = ens__atom_find(doc, S_END, 4);
  w.k_text = ens__atom_find(doc, "text", 4);
  w.k_target = ens__atom_find(doc, "target", 6);
  w.k_data = ens__atom_find(doc, "data", 4);
  w.k_name = ens__atom_find(doc, "name", 4);
  for (int i = 0; i < 7; i++) w.kinds[i] = ens__atom_find(doc, s_kn[i], strlen(s_kn[i]));
  int rc = s_entities(&w);
  const char *bom = ens__atom_find(doc, S_BOM, 4);
  if (!rc && bom && s_prop(doc->root, bom)) ens__buf_append(out, "\xef\xbb\xbf", 3);
  for (uint32_t i = 0; !rc && i < doc->root->nkids; i++) rc = s_node(&w, doc->root->kids[i], 1);
  free(w.ents.v);
  free(w.seen);
  if (!rc && out->oom) rc = ens__error(ENS_ENOMEM, "out of memory writing SVG");
  return rc;
}
