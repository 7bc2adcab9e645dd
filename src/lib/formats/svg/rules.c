/* The SVG format's schema (ens_svg_schema): what the writer can write as
 * well-formed XML that reads back as the same document. Element and
 * attribute names are XML names; text is XML characters in strict UTF-8
 * and avoids what its node cannot hold ("--" in a comment, "]]>" in
 * CDATA, "?>" in a processing instruction); one root element with only
 * blanks, comments and processing instructions around it; a declaration
 * first and well-formed; a doctype that libxml2 reads as declaring the
 * entities the document says; kept source text that still parses as its
 * node (docs/svg.md, "What a drawing cannot hold"). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../util/error.h"
#include "../../util/utf8.h"
#include "svg_int.h"

typedef struct {
  const ens_doc *doc;
  const ens_obj *obj;
  char *why;
  size_t size;
} s_ctx;

static int s_fail(s_ctx *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int s_fail(s_ctx *c, int code, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  static const char *const names[][2] = {{ENS_SVG_TEXT, "a text node"},
                                         {ENS_SVG_CDATA, "a CDATA section"},
                                         {ENS_SVG_COMMENT, "a comment"},
                                         {ENS_SVG_PI, "a processing instruction"},
                                         {ENS_SVG_XMLDECL, "the XML declaration"},
                                         {ENS_SVG_DOCTYPE, "the doctype"},
                                         {ENS_SVG_ENTITY, "an entity reference"}};
  const char *what = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !what; i++)
    if (strcmp(c->obj->kind, names[i][0]) == 0) what = names[i][1];
  if (!c->obj->parent) snprintf(c->why, c->size, "SVG cannot hold this: the drawing: %s", msg);
  else if (what) snprintf(c->why, c->size, "SVG cannot hold this: %s: %s", what, msg);
  else if (c->obj->kind[0] == '#') snprintf(c->why, c->size, "SVG cannot hold this: %s", msg);
  else snprintf(c->why, c->size, "SVG cannot hold this: <%.60s> (%#llx): %s", c->obj->kind, (unsigned long long)c->obj->id, msg);
  return code;
}

static const ens__prop *s_get(const ens_obj *o, const char *key) {
  for (uint32_t i = 0; i < o->nprops; i++)
    if (o->props[i].type != ENS_NIL && strcmp(ens__prop_key(o, &o->props[i]), key) == 0) return &o->props[i];
  return NULL;
}

static int s_text_prop(const ens__prop *p) { return p && (p->type == ENS_STR || p->type == ENS_BYTES); }

/* --- names and characters ---------------------------------------------------------- */

static int s_name_start(int32_t c) {
  return c == ':' || (c >= 'A' && c <= 'Z') || c == '_' || (c >= 'a' && c <= 'z') || (c >= 0xc0 && c <= 0xd6) ||
         (c >= 0xd8 && c <= 0xf6) || (c >= 0xf8 && c <= 0x2ff) || (c >= 0x370 && c <= 0x37d) ||
         (c >= 0x37f && c <= 0x1fff) || (c >= 0x200c && c <= 0x200d) || (c >= 0x2070 && c <= 0x218f) ||
         (c >= 0x2c00 && c <= 0x2fef) || (c >= 0x3001 && c <= 0xd7ff) || (c >= 0xf900 && c <= 0xfdcf) ||
         (c >= 0xfdf0 && c <= 0xfffd) || (c >= 0x10000 && c <= 0xeffff);
}

static int s_name_char(int32_t c) {
  return s_name_start(c) || c == '-' || c == '.' || (c >= '0' && c <= '9') || c == 0xb7 ||
         (c >= 0x300 && c <= 0x36f) || (c >= 0x203f && c <= 0x2040);
}

/* An XML name (the reader, like libxml2, takes one that namespaces
 * would frown on, "a:b:c", as it is). NULL when it is one, else why not. */
static const char *s_name_problem(const char *s, size_t n) {
  if (!n) return "is empty";
  size_t i = 0, first = 1;
  while (i < n) {
    int32_t c = ens__utf8_next(s, n, &i);
    if (c < 0) return "is not valid UTF-8";
    if (first ? !s_name_start(c) : !s_name_char(c)) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return "has a blank, which no XML name has";
      if (c == '"' || c == '\'') return "has a quote, which no XML name has";
      return first ? "does not start as an XML name does" : "has a character no XML name has";
    }
    first = 0;
  }
  return NULL;
}

/* Text of XML characters in strict UTF-8. */
static const char *s_chars_problem(const char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned char b = (unsigned char)s[i];
    if (b >= 0x20 && b < 0x80) {
      i++;
      continue;
    }
    int32_t c = ens__utf8_next(s, n, &i);
    if (c < 0) return "is not valid UTF-8";
    if (!ens__xml_char(c)) return c == 0 ? "has a NUL byte, which XML does not allow" : "has a control character, which XML does not allow";
  }
  return NULL;
}

static int s_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int s_all_blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!s_blank(s[i])) return 0;
  return 1;
}

/* The drawing's encoding, when not UTF-8: new text must be something it
 * can hold, or the write fails. */
static int s_encodable(s_ctx *c, const char *key, const char *s, size_t n) {
  const ens__prop *e = s_get(c->doc->root, S_ENC);
  if (!e || e->type != ENS_STR || !e->len || !n) return 0;
  char *out;
  size_t on;
  if (ens__svg_iconv("UTF-8", e->u.s, s, n, &out, &on) != 0)
    return s_fail(c, ENS_EFORMAT, "'%s' has a character that the drawing's encoding (%.40s) cannot hold", key, e->u.s);
  free(out);
  return 0;
}

/* A string value of key: type, characters, encoding. */
static int s_string(s_ctx *c, const char *key, const ens__prop *p) {
  if (!p) return 0;
  if (p->type != ENS_STR)
    return s_fail(c, ENS_ETYPE, "'%s' must be a string: XML reads every value back as text", key);
  const char *why = s_chars_problem(p->u.s, p->len);
  if (why) return s_fail(c, ENS_EFORMAT, "'%s' %s", key, why);
  return s_encodable(c, key, p->u.s, p->len);
}

/* --- the doctype's entities -------------------------------------------------------- */

static const ens_obj *s_doctype(const ens_doc *doc) {
  const ens_obj *root = doc->root;
  for (uint32_t i = 0; i < root->nkids; i++)
    if (strcmp(root->kids[i]->kind, ENS_SVG_DOCTYPE) == 0) return root->kids[i];
  return NULL;
}

/* The internal entities the doctype's properties give (borrowed). */
static int s_entities(const ens_doc *doc, ens__svg_ents *t) {
  memset(t, 0, sizeof *t);
  t->budget = ENS_SVG_MAX_EXPANSION;
  const ens_obj *d = s_doctype(doc);
  for (uint32_t j = 0; d && j < d->nprops; j++) {
    const ens__prop *p = &d->props[j];
    if (ens__prop_key(d, p)[0] != '&' || !s_text_prop(p)) continue;
    if (t->n == t->cap) {
      size_t nc = t->cap ? t->cap * 2 : 8;
      ens__svg_ent *nv = realloc(t->v, nc * sizeof *nv);
      if (!nv) return ens__error(ENS_ENOMEM, "out of memory");
      t->v = nv;
      t->cap = nc;
    }
    t->v[t->n++] = (ens__svg_ent){ens__prop_key(d, p) + 1, strlen(ens__prop_key(d, p) + 1), p->u.s, p->len};
  }
  return 0;
}

/* --- elements ------------------------------------------------------------------------ */

/* A kept start tag the writer would copy from: "<name", attributes each
 * after blanks as name="value" (blanks around '=' allowed), blanks, and
 * ">" or "/>"; names as XML has them, no attribute twice, values without
 * '<' that decode (references to characters, the five predefined
 * entities, or the doctype's). */
static int s_src_tag(s_ctx *c, const char *s, size_t n) {
  ens__svg_attrs it;
  ens__svg_attr a;
  const char *name, *tail = NULL, *why;
  size_t name_n;
  int rc;
  if ((why = s_chars_problem(s, n))) return s_fail(c, ENS_EFORMAT, "its kept tag '~src' %s", why);
  if (ens__svg_attrs_begin(s, n, &it, &name, &name_n) || name_n != strlen(c->obj->kind) ||
      memcmp(name, c->obj->kind, name_n) != 0)
    return s_fail(c, ENS_EFORMAT, "its kept tag '~src' is not a start tag of <%.60s>", c->obj->kind);
  ens__svg_ents ents;
  if ((rc = s_entities(c->doc, &ents))) return rc;
  const char *seen[64];
  size_t seen_n[64], nseen = 0;
  rc = 0;
  while (!rc && (rc = ens__svg_attr_next(&it, &a, &tail)) == 1) {
    rc = 0;
    for (const char *q = a.lead; q < a.name; q++)
      if (!s_blank(*q)) rc = -1;
    for (size_t i = 0; i < a.eq_n; i++)
      if (a.eq[i] != '=' && !s_blank(a.eq[i])) rc = -1;
    if (rc || s_name_problem(a.name, a.name_n) || memchr(a.val, '<', a.val_n)) {
      rc = -1;
      break;
    }
    for (size_t i = 0; i < nseen && i < 64; i++)
      if (seen_n[i] == a.name_n && memcmp(seen[i], a.name, a.name_n) == 0) rc = -1;
    if (nseen < 64) {
      seen[nseen] = a.name;
      seen_n[nseen] = a.name_n;
    }
    nseen++;
    if (nseen > 64) rc = -1; /* more than any drawing has: not judged, refused */
    ens_buf b = ENS_BUF_INIT;
    size_t budget = ents.budget;
    if (!rc && ens__svg_decode(a.val, a.val_n, ENS__SVG_ATTR, &ents, &b, &why) != 0) rc = -1;
    /* libxml2 refuses a '<' that an entity's text puts in a value (&lt; is fine) */
    for (const char *q = a.val, *e = a.val + a.val_n; !rc && (q = memchr(q, '&', (size_t)(e - q))) != NULL; q++) {
      const char *semi = memchr(q, ';', (size_t)(e - q));
      if (!semi || q[1] == '#') continue;
      const ens__svg_ent *ent = ens__svg_ent_find(&ents, q + 1, (size_t)(semi - q - 1));
      if (ent && ent->text && memchr(ent->text, '<', ent->text_n)) rc = -1;
    }
    ents.budget = budget;
    ens__buf_free(&b);
  }
  free(ents.v);
  if (rc < 0) return s_fail(c, ENS_EFORMAT, "its kept tag '~src' is not a well-formed start tag");
  const char *q = tail, *end = s + n;
  while (q < end && s_blank(*q)) q++;
  if (q < end && *q == '/') q++;
  if (q + 1 != end || *q != '>') return s_fail(c, ENS_EFORMAT, "its kept tag '~src' does not end as a tag does");
  return 0;
}

static int s_end_tag(s_ctx *c, const char *s, size_t n) {
  size_t kn = strlen(c->obj->kind);
  if (n < kn + 3 || memcmp(s, "</", 2) != 0 || memcmp(s + 2, c->obj->kind, kn) != 0 || s[n - 1] != '>' ||
      !s_all_blank(s + 2 + kn, n - 3 - kn))
    return s_fail(c, ENS_EFORMAT, "its kept end tag '~end' is not </%.60s>", c->obj->kind);
  return 0;
}

static int s_attr(s_ctx *c, const ens__prop *p, const char *key) {
  if (strcmp(key, S_SRC) == 0) {
    if (!p) return 0;
    if (!s_text_prop(p)) return s_fail(c, ENS_ETYPE, "'~src' must be text");
    return s_src_tag(c, p->u.s, p->len);
  }
  if (strcmp(key, S_END) == 0) {
    if (!p) return 0;
    if (!s_text_prop(p)) return s_fail(c, ENS_ETYPE, "'~end' must be text");
    return s_end_tag(c, p->u.s, p->len);
  }
  if (key[0] == '~' || key[0] == '&') return s_fail(c, ENS_EFORMAT, "'%.60s' is no attribute, so it would not be written", key);
  const char *why = s_name_problem(key, strlen(key));
  if (why) return s_fail(c, ENS_EFORMAT, "attribute name '%.60s' %s", key, why);
  return s_string(c, key, p);
}

static int s_element(s_ctx *c, const ens_touch *t) {
  const ens_obj *o = c->obj;
  int rc;
  if (t->what & ENS_TOUCH_NEW) {
    const char *why = s_name_problem(o->kind, strlen(o->kind));
    if (why) return s_fail(c, ENS_EKIND, "the element name %s", why);
  }
  if (t->keys && !(t->what & ENS_TOUCH_NEW)) {
    for (size_t i = 0; i < t->nkeys; i++) {
      const ens__prop *p = ens__obj_find_prop(o, t->keys[i]);
      if ((rc = s_attr(c, p && p->type != ENS_NIL ? p : NULL, t->keys[i]))) return rc;
    }
  } else if (t->what & ENS_TOUCH_PROPS) {
    for (uint32_t i = 0; i < o->nprops; i++) {
      const ens__prop *p = &o->props[i];
      if (p->type == ENS_NIL || ens__key_is_local(ens__prop_key(o, p))) continue;
      if ((rc = s_attr(c, p, ens__prop_key(o, p)))) return rc;
    }
  }
  return 0;
}

/* --- the other nodes ------------------------------------------------------------------- */

static int s_only_keys(s_ctx *c, const char *const *keys, size_t n) {
  const ens_obj *o = c->obj;
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL || ens__key_is_local(ens__prop_key(o, p))) continue;
    int known = 0;
    for (size_t k = 0; k < n && !known; k++) known = strcmp(keys[k], ens__prop_key(o, p)) == 0;
    if (!known) return s_fail(c, ENS_EFORMAT, "'%.60s' is nothing it has, so it would not be written", ens__prop_key(o, p));
  }
  return 0;
}

static int s_kept_text(s_ctx *c) {
  const ens__prop *p = s_get(c->obj, S_SRC);
  if (p && !s_text_prop(p)) return s_fail(c, ENS_ETYPE, "'~src' must be text");
  if (p) {
    const char *why = s_chars_problem(p->u.s, p->len);
    if (why) return s_fail(c, ENS_EFORMAT, "its kept text '~src' %s", why);
  }
  return 0;
}

static int s_text_node(s_ctx *c) {
  static const char *const keys[] = {"text", S_SRC};
  const ens__prop *v = s_get(c->obj, "text");
  int rc = s_only_keys(c, keys, 2);
  if (!rc) rc = s_string(c, "text", v);
  if (!rc) rc = s_kept_text(c);
  if (rc) return rc;
  const ens_obj *parent = c->obj->parent;
  if (parent && !parent->parent) { /* outside the root element: blanks only, as they are */
    const ens__prop *src = s_get(c->obj, S_SRC);
    if ((v && !s_all_blank(v->u.s, v->len)) || (v && memchr(v->u.s, '\r', v->len)))
      return s_fail(c, ENS_EFORMAT, "text outside the root element may only be blanks");
    if (src && !s_all_blank(src->u.s, src->len))
      return s_fail(c, ENS_EFORMAT, "text outside the root element may only be blanks");
  }
  return 0;
}

static int s_literal(s_ctx *c, const char *what, const char *bad, const char *bad_says) {
  static const char *const keys[] = {"text", S_SRC};
  const ens__prop *v = s_get(c->obj, "text");
  int rc = s_only_keys(c, keys, 2);
  if (!rc) rc = s_string(c, "text", v);
  if (!rc) rc = s_kept_text(c);
  if (rc) return rc;
  /* the reader gives every one a text, "" for <!----> */
  if (!v) return s_fail(c, ENS_EFORMAT, "it needs a 'text' (\"\" for an empty one), as every one read has");
  if (memchr(v->u.s, '\r', v->len))
    return s_fail(c, ENS_EFORMAT, "a carriage return in a %s reads back as a line feed", what);
  if (memmem(v->u.s, v->len, bad, strlen(bad))) return s_fail(c, ENS_EFORMAT, "%s", bad_says);
  if (strcmp(what, "comment") == 0 && v->len && v->u.s[v->len - 1] == '-')
    return s_fail(c, ENS_EFORMAT, "a comment may not end with '-'");
  return 0;
}

static int s_pi(s_ctx *c) {
  static const char *const keys[] = {"target", "data", S_SRC};
  const ens__prop *t = s_get(c->obj, "target"), *d = s_get(c->obj, "data");
  int rc = s_only_keys(c, keys, 3);
  if (!rc) rc = s_string(c, "target", t);
  if (!rc) rc = s_string(c, "data", d);
  if (!rc) rc = s_kept_text(c);
  if (rc) return rc;
  if (!t) return s_fail(c, ENS_EFORMAT, "a processing instruction needs a 'target'");
  if (!d) return s_fail(c, ENS_EFORMAT, "it needs a 'data' (\"\" for none), as every one read has");
  const char *why = s_name_problem(t->u.s, t->len);
  if (why) return s_fail(c, ENS_EFORMAT, "its target %s", why);
  if (memchr(t->u.s, ':', t->len)) return s_fail(c, ENS_EFORMAT, "its target has a colon, which namespaces do not allow");
  if (t->len == 3 && strncasecmp(t->u.s, "xml", 3) == 0)
    return s_fail(c, ENS_EFORMAT, "its target is 'xml', which only the declaration at the very start may be");
  if (d && memmem(d->u.s, d->len, "?>", 2)) return s_fail(c, ENS_EFORMAT, "its data holds '?>', which would end it");
  if (d && memchr(d->u.s, '\r', d->len))
    return s_fail(c, ENS_EFORMAT, "a carriage return in its data reads back as a line feed");
  if (d && d->len && s_blank(d->u.s[0])) return s_fail(c, ENS_EFORMAT, "its data starts with a blank, which XML drops");
  return 0;
}

/* version="1.0" encoding="..." standalone="yes|no", as XML says them. */
static int s_version_ok(const char *s, size_t n) {
  if (n < 3 || s[0] != '1' || s[1] != '.') return 0;
  for (size_t i = 2; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return 0;
  return 1;
}

static int s_encname_ok(const char *s, size_t n) {
  if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z'))) return 0;
  for (size_t i = 1; i < n; i++) {
    char c = s[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '-'))
      return 0;
  }
  return 1;
}

/* The kept declaration, read strictly: what the writer keeps when the
 * values it finds in it are the properties'. */
static int s_decl_src_ok(const char *s, size_t n) {
  static const char *const names[3] = {"version", "encoding", "standalone"};
  if (n < 7 || memcmp(s, "<?xml", 5) != 0 || memcmp(s + n - 2, "?>", 2) != 0) return 0;
  const char *p = s + 5, *e = s + n - 2;
  int next = 0;
  while (p < e) {
    const char *b = p;
    while (p < e && s_blank(*p)) p++;
    if (p == e) break;
    if (p == b) return 0;
    int which = -1;
    for (int i = next; i < 3 && which < 0; i++)
      if ((size_t)(e - p) > strlen(names[i]) && memcmp(p, names[i], strlen(names[i])) == 0) which = i;
    if (which < 0 || (which == 0) != (next == 0)) return 0;
    p += strlen(names[which]);
    while (p < e && s_blank(*p)) p++;
    if (p >= e || *p != '=') return 0;
    p++;
    while (p < e && s_blank(*p)) p++;
    if (p >= e || (*p != '"' && *p != '\'')) return 0;
    const char *q = memchr(p + 1, *p, (size_t)(e - p - 1));
    if (!q) return 0;
    const char *v = p + 1;
    size_t vn = (size_t)(q - v);
    if (which == 0 && !s_version_ok(v, vn)) return 0;
    if (which == 1 && !s_encname_ok(v, vn)) return 0;
    if (which == 2 && !((vn == 3 && !memcmp(v, "yes", 3)) || (vn == 2 && !memcmp(v, "no", 2)))) return 0;
    next = which + 1;
    p = q + 1;
  }
  return next > 0;
}

static int s_xmldecl(s_ctx *c) {
  static const char *const keys[] = {"version", "encoding", "standalone", S_SRC};
  const ens__prop *v = s_get(c->obj, "version"), *e = s_get(c->obj, "encoding"), *sa = s_get(c->obj, "standalone"),
                  *src = s_get(c->obj, S_SRC);
  int rc = s_only_keys(c, keys, 4);
  if (!rc) rc = s_string(c, "version", v);
  if (!rc) rc = s_string(c, "encoding", e);
  if (!rc) rc = s_string(c, "standalone", sa);
  if (!rc) rc = s_kept_text(c);
  if (rc) return rc;
  if (!v || !s_version_ok(v->u.s, v->len)) return s_fail(c, ENS_EFORMAT, "a declaration needs a version 1.n");
  if (e && !s_encname_ok(e->u.s, e->len)) return s_fail(c, ENS_EFORMAT, "'encoding' is not an encoding's name");
  if (sa && !((sa->len == 3 && !memcmp(sa->u.s, "yes", 3)) || (sa->len == 2 && !memcmp(sa->u.s, "no", 2))))
    return s_fail(c, ENS_EFORMAT, "'standalone' is yes or no");
  /* the encoding it names is the one the file is written in */
  const ens__prop *fe = s_get(c->doc->root, S_ENC);
  if (e) {
    int same;
    if (fe && fe->type == ENS_STR)
      same = (e->len == fe->len && strncasecmp(e->u.s, fe->u.s, e->len) == 0) ||
             (e->len == 6 && strncasecmp(e->u.s, "UTF-16", 6) == 0 && fe->len > 6 && strncasecmp(fe->u.s, "UTF-16", 6) == 0);
    else
      same = (e->len == 5 && strncasecmp(e->u.s, "UTF-8", 5) == 0) || (e->len == 4 && strncasecmp(e->u.s, "UTF8", 4) == 0);
    if (!same) return s_fail(c, ENS_EFORMAT, "'encoding' must name the encoding the drawing is written in");
  } else if (fe && fe->type == ENS_STR && fe->len && !(fe->len > 6 && strncasecmp(fe->u.s, "UTF-16", 6) == 0)) {
    return s_fail(c, ENS_EFORMAT, "the drawing is written in %.40s, which its declaration must say", fe->u.s);
  }
  if (src && !s_decl_src_ok(src->u.s, src->len))
    return s_fail(c, ENS_EFORMAT, "its kept text '~src' is not a well-formed declaration");
  return 0;
}

static int s_entity(s_ctx *c) {
  static const char *const keys[] = {"name"};
  const ens__prop *n = s_get(c->obj, "name");
  int rc = s_only_keys(c, keys, 1);
  if (!rc) rc = s_string(c, "name", n);
  if (rc) return rc;
  if (!n) return s_fail(c, ENS_EFORMAT, "an entity reference needs a 'name'");
  const ens_obj *d = s_doctype(c->doc);
  char key[ENS_MAX_KEY + 2];
  if ((size_t)n->len + 2 > sizeof key) return s_fail(c, ENS_EFORMAT, "names an entity the doctype does not declare");
  key[0] = '&';
  memcpy(key + 1, n->u.s, n->len);
  key[n->len + 1] = '\0';
  if (!d || !s_get(d, key)) return s_fail(c, ENS_EFORMAT, "names an entity the doctype does not declare");
  return 0;
}

/* Every reference in the drawing names an entity the doctype declares
 * (none without a doctype), and every attribute kept with a reference
 * still says its value with them: an element written as it was read keeps
 * its tag's text, whose references the entities give their meaning. */
static int s_entity_uses(s_ctx *c) {
  ens__svg_ents now;
  int rc = s_entities(c->doc, &now);
  if (rc) return rc;
  const ens_obj **stack = malloc(ens_doc_count(c->doc) * sizeof *stack);
  if (!stack) {
    free(now.v);
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  size_t top = 0;
  stack[top++] = c->doc->root;
  while (top && !rc) {
    const ens_obj *x = stack[--top];
    s_ctx ce = {c->doc, x, c->why, c->size};
    if (strcmp(x->kind, ENS_SVG_ENTITY) == 0) {
      rc = s_entity(&ce);
    } else if (x->kind[0] != '#' && x->parent) {
      const ens__prop *tag = s_get(x, S_SRC);
      ens__svg_attrs it;
      ens__svg_attr a;
      const char *tn, *tail;
      size_t tnn;
      if (tag && s_text_prop(tag) && memchr(tag->u.s, '&', tag->len) &&
          ens__svg_attrs_begin(tag->u.s, tag->len, &it, &tn, &tnn) == 0) {
        while (!rc && ens__svg_attr_next(&it, &a, &tail) == 1) {
          if (!memchr(a.val, '&', a.val_n) || a.name_n > ENS_MAX_KEY) continue;
          char key[ENS_MAX_KEY + 1];
          memcpy(key, a.name, a.name_n);
          key[a.name_n] = '\0';
          const ens__prop *v = s_get(x, key);
          if (v && s_text_prop(v) && !ens__svg_decodes_to(a.val, a.val_n, ENS__SVG_ATTR, &now, v->u.s, v->len))
            rc = s_fail(&ce, ENS_EFORMAT, "its attribute '%.60s' refers to an entity that would no longer give its value",
                        key);
        }
      }
    }
    for (uint32_t i = x->nkids; i-- > 0;) stack[top++] = x->kids[i];
  }
  free(stack);
  free(now.v);
  return rc;
}

/* The doctype as the writer writes it, read by libxml2 in a document of
 * its own: it must parse, its name be the property's, and declare just
 * the entities of the '&' properties with their replacement texts, each
 * of which must read as content where it is referenced. */
static int s_doctype_check(s_ctx *c) {
  const ens_obj *o = c->obj;
  const ens__prop *name = s_get(o, "name"), *src = s_get(o, S_SRC);
  int rc = s_string(c, "name", name);
  if (!rc) rc = s_kept_text(c);
  if (rc) return rc;
  if (!name) return s_fail(c, ENS_EFORMAT, "a doctype needs a 'name'");
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL || ens__key_is_local(ens__prop_key(o, p)) || p->key == name->key || (src && p->key == src->key)) continue;
    if (ens__prop_key(o, p)[0] != '&') return s_fail(c, ENS_EFORMAT, "'%.60s' is nothing it has, so it would not be written", ens__prop_key(o, p));
    const char *why = s_name_problem(ens__prop_key(o, p) + 1, strlen(ens__prop_key(o, p) + 1));
    if (why) return s_fail(c, ENS_EFORMAT, "entity name '%.60s' %s", ens__prop_key(o, p) + 1, why);
    if ((rc = s_string(c, ens__prop_key(o, p), p))) return rc;
  }
  const char *why = s_name_problem(name->u.s, name->len);
  if (why) return s_fail(c, ENS_EFORMAT, "its name %s", why);
  ens_buf b = ENS_BUF_INIT, text = ENS_BUF_INIT;
  if (ens__svg_doctype_text(c->doc, o, &text)) {
    ens__buf_free(&text);
    return ENS_ENOMEM;
  }
  ens__buf_append(&b, text.data, text.len);
  ens__buf_putc(&b, '<');
  ens__buf_append(&b, name->u.s, name->len);
  ens__buf_putc(&b, '>');
  size_t nents = 0;
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL || ens__prop_key(o, p)[0] != '&') continue;
    ens__buf_printf(&b, "&%s;", ens__prop_key(o, p) + 1);
    nents++;
  }
  ens__buf_puts(&b, "</");
  ens__buf_append(&b, name->u.s, name->len);
  ens__buf_putc(&b, '>');
  if (b.oom) {
    ens__buf_free(&b);
    ens__buf_free(&text);
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  /* its name, as the scanner finds it in the text */
  const char *p = (const char *)text.data;
  ens__svg_tok tok;
  int name_ok = ens__svg_next(&p, p + text.len, 0, &tok) == 0 && tok.type == T_DOCTYPE && tok.n == text.len &&
                tok.name_n == name->len && memcmp(tok.name, name->u.s, name->len) == 0;
  ens__buf_free(&text);
  ens__svg_ents ents;
  char saved[512];
  snprintf(saved, sizeof saved, "%s", ens_error_last());
  rc = ens__svg_check(b.data, b.len, &ents);
  char err[200];
  snprintf(err, sizeof err, "%s", ens_error_last());
  ens__error(0, "%s", saved);
  ens__buf_free(&b);
  if (rc == ENS_ENOMEM) return rc;
  if (rc) return s_fail(c, ENS_EFORMAT, "it would not read as a doctype (%s)", err);
  int same = name_ok && ents.n == nents;
  for (size_t i = 0; same && i < ents.n; i++) {
    char key[ENS_MAX_KEY + 2];
    if (ents.v[i].name_n + 2 > sizeof key) {
      same = 0;
      break;
    }
    key[0] = '&';
    memcpy(key + 1, ents.v[i].name, ents.v[i].name_n);
    key[ents.v[i].name_n + 1] = '\0';
    const ens__prop *q = s_get(o, key);
    same = q && q->len == ents.v[i].text_n && memcmp(q->u.s, ents.v[i].text, q->len) == 0;
  }
  ens__svg_ents_free(&ents);
  if (!same) return s_fail(c, ENS_EFORMAT, "its text would not read back as its name and entities");
  return s_entity_uses(c);
}

/* --- places ------------------------------------------------------------------------------ */

enum { N_ELEM, N_TEXT, N_CDATA, N_COMMENT, N_PI, N_XMLDECL, N_DOCTYPE, N_ENTITY, N_OTHER };

static int s_node_kind(const char *kind) {
  if (kind[0] != '#') return N_ELEM;
  static const char *const names[] = {ENS_SVG_TEXT, ENS_SVG_CDATA, ENS_SVG_COMMENT, ENS_SVG_PI,
                                      ENS_SVG_XMLDECL, ENS_SVG_DOCTYPE, ENS_SVG_ENTITY};
  for (int i = 0; i < 7; i++)
    if (strcmp(kind, names[i]) == 0) return N_TEXT + i;
  return N_OTHER;
}

/* Where a node may be: only elements hold nodes; the declaration and
 * doctype only the drawing, and text, CDATA and references in it only
 * inside its root element. */
static int s_place(s_ctx *c, int k) {
  const ens_obj *parent = c->obj->parent;
  if (!parent) return 0;
  int at_top = !parent->parent;
  int pk = at_top ? -1 : s_node_kind(parent->kind);
  if (pk != -1 && pk != N_ELEM) return s_fail(c, ENS_EKIND, "a %s node holds no other node", parent->kind + 1);
  if (at_top && (k == N_CDATA || k == N_ENTITY))
    return s_fail(c, ENS_EKIND, "outside the root element there may be no %s", k == N_CDATA ? "CDATA" : "entity reference");
  if (!at_top && (k == N_XMLDECL || k == N_DOCTYPE))
    return s_fail(c, ENS_EKIND, "a %s may only stand before the root element", k == N_XMLDECL ? "declaration" : "doctype");
  return 0;
}

/* The drawing: one root element; the declaration first; one doctype,
 * before the root element. */
static int s_root(s_ctx *c) {
  const ens_obj *root = c->obj;
  int elems = 0, doctypes = 0;
  for (uint32_t i = 0; i < root->nkids; i++) {
    int k = s_node_kind(root->kids[i]->kind);
    if (k == N_ELEM) elems++;
    else if (k == N_XMLDECL && i != 0) return s_fail(c, ENS_EFORMAT, "the declaration must come first, before anything else");
    else if (k == N_DOCTYPE && (elems || doctypes++)) return s_fail(c, ENS_EFORMAT, "one doctype, before the root element");
  }
  if (elems != 1)
    return s_fail(c, ENS_EFORMAT, "a drawing has exactly one root element, and this would have %d", elems);
  /* without a doctype (it may have just gone), no entity is declared */
  return doctypes ? 0 : s_entity_uses(c);
}

static int s_rule(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, o, why, n};
  int rc;
  if (!o->parent) {
    if (t->what & ENS_TOUCH_PROPS)
      return s_fail(&c, ENS_EFORMAT, "the drawing has no property a transaction may set ('~bom' and '~encoding' "
                                     "say how its file is encoded, and are the reader's)");
    return (t->what & ENS_TOUCH_KIDS) ? s_root(&c) : 0;
  }
  int k = s_node_kind(o->kind);
  if (k == N_OTHER) return s_fail(&c, ENS_EKIND, "'%.60s' is no node of XML, so it would not be written", o->kind);
  if ((t->what & (ENS_TOUCH_NEW | ENS_TOUCH_MOVED)) && (rc = s_place(&c, k))) return rc;
  if (k != N_ELEM && o->nkids) return s_fail(&c, ENS_EKIND, "a %s node holds no other node", o->kind + 1);
  if (!(t->what & (ENS_TOUCH_PROPS | ENS_TOUCH_NEW | ENS_TOUCH_MOVED))) return 0;
  switch (k) {
  case N_ELEM: return s_element(&c, t);
  case N_TEXT: return s_text_node(&c);
  case N_CDATA: return s_literal(&c, "CDATA section", "]]>", "a CDATA section may not hold ']]>', which would end it");
  case N_COMMENT: return s_literal(&c, "comment", "--", "a comment may not hold '--'");
  case N_PI: return s_pi(&c);
  case N_XMLDECL: return s_xmldecl(&c);
  case N_DOCTYPE: return s_doctype_check(&c);
  case N_ENTITY: return s_entity(&c);
  }
  return 0;
}

static ens_schema *s_schema;
static pthread_once_t s_once = PTHREAD_ONCE_INIT;

static void s_build(void) {
  ens_schema *s = ens_schema_new();
  if (!s) return;
  ens_schema_allow_other_kinds(s, 1);
  if (ens_schema_add_rule(s, NULL, s_rule, NULL)) {
    ens_schema_free(s);
    return;
  }
  s_schema = s;
}

const ens_schema *ens_svg_schema(void) {
  pthread_once(&s_once, s_build);
  if (!s_schema) ens__error(ENS_ENOMEM, "out of memory making the SVG schema");
  return s_schema;
}
