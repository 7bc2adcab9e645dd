/* Attribute edits: set or remove one attribute, and set or remove one
 * declaration inside a style attribute while every other declaration
 * keeps its text, spacing and order. The writer then rewrites only that
 * attribute's value inside the tag (docs/svg.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/buf.h"
#include "../../util/error.h"
#include "edit_int.h"

static int s_name_start(unsigned char c) { return c == '_' || (unsigned)((c | 32) - 'a') < 26u || c >= 0x80; }
static int s_name_char(unsigned char c) { return s_name_start(c) || c == '-' || c == '.' || (unsigned)(c - '0') < 10u; }

/* An XML attribute name with at most one colon, not at either end. */
static int s_check_name(const ens_obj *elem, const char *name) {
  size_t n = strlen(name);
  const char *colon = memchr(name, ':', n);
  int ok = n > 0 && n < 1000 && s_name_start((unsigned char)name[0]);
  for (size_t i = 1; ok && i < n; i++) ok = s_name_char((unsigned char)name[i]) || (name[i] == ':' && name + i == colon);
  if (ok && colon && (colon == name + n - 1)) ok = 0;
  if (!ok) return ens__error(ENS_EINVAL, "\"%s\" is not an attribute name", name);
  if (strcmp(name, "xmlns") == 0 || strncmp(name, "xmlns:", 6) == 0)
    return ens__error(ENS_EINVAL, "namespace declarations (%s) are not edited: the names below them depend on them",
                      name);
  if (colon && !ens__svge_ns_declared(elem, name, (size_t)(colon - name)))
    return ens__error(ENS_EINVAL, "the prefix of \"%s\" is not declared for this element (add xmlns:%.*s to the root)",
                      name, (int)(colon - name), name);
  return 0;
}

/* Valid UTF-8 holding only characters XML 1.0 allows. */
static int s_check_text(const char *what, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s, *e = p + n;
  while (p < e) {
    unsigned c = *p, len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || (size_t)(e - p) < len) goto bad;
    uint32_t u = len == 1 ? c : c & (0x3F >> (len - 1));
    for (unsigned i = 1; i < len; i++) {
      if ((p[i] & 0xC0) != 0x80) goto bad;
      u = u << 6 | (p[i] & 0x3F);
    }
    if ((len == 2 && u < 0x80) || (len == 3 && u < 0x800) || (len == 4 && (u < 0x10000 || u > 0x10FFFF))) goto bad;
    if ((u < 0x20 && u != 9 && u != 10 && u != 13) || (u >= 0xD800 && u < 0xE000) || u == 0xFFFE || u == 0xFFFF)
      return ens__error(ENS_EINVAL, "the %s holds character U+%04X, which XML cannot hold", what, (unsigned)u);
    p += len;
  }
  return 0;
bad:
  return ens__error(ENS_EINVAL, "the %s is not valid UTF-8", what);
}

/* Refuses an id another element already has. */
typedef struct {
  const ens_obj *self;
  const char *v;
  size_t n;
} s_idcheck;

static int s_idcheck_fn(const ens_obj *o, size_t depth, void *user) {
  const s_idcheck *c = user;
  const char *s;
  size_t n;
  (void)depth;
  return o != c->self && ens__svge_is_elem(o) && ens__svge_attr(o, "id", &s, &n) == 0 && n == c->n &&
         memcmp(s, c->v, n) == 0;
}

static int s_check_id(const ens_doc *doc, const ens_obj *elem, const char *v, size_t n) {
  s_idcheck c = {elem, v, n};
  if (ens_obj_walk(ens_doc_root(doc), s_idcheck_fn, &c))
    return ens__error(ENS_EEXISTS, "another element already has the id \"%.*s\"", (int)n, v);
  return 0;
}

int ens_svg_set_attr(ens_doc *doc, const char *elem, const char *name, const char *value, ens_txn **out) {
  const ens_obj *e;
  if (!out) return ens__error(ENS_EINVAL, "set-attr: no output");
  *out = NULL;
  int rc = ens__svge_elem(doc, "set-attr", elem, &e);
  if (rc) return rc;
  if (!name || !value) return ens__error(ENS_EINVAL, "set-attr: a name and a value are needed");
  if ((rc = s_check_name(e, name)) || (rc = s_check_text("value", value, strlen(value))))
    return ens__error_prefix(rc, "set-attr: ");
  if (strcmp(name, "id") == 0 && (rc = s_check_id(doc, e, value, strlen(value))))
    return ens__error_prefix(rc, "set-attr: ");
  if ((rc = ens__svge_txn("Set attribute", out))) return rc;
  if ((rc = ens_txn_set(*out, ens_obj_id(e), name, ens_str(value)))) {
    ens_txn_free(*out);
    *out = NULL;
  }
  return rc;
}

int ens_svg_remove_attr(ens_doc *doc, const char *elem, const char *name, ens_txn **out) {
  const ens_obj *e;
  if (!out) return ens__error(ENS_EINVAL, "remove-attr: no output");
  *out = NULL;
  int rc = ens__svge_elem(doc, "remove-attr", elem, &e);
  if (rc) return rc;
  if (!name || name[0] == '~' || name[0] == '&')
    return ens__error(ENS_EINVAL, "remove-attr: \"%s\" is not an attribute name", name ? name : "");
  if (strcmp(name, "xmlns") == 0 || strncmp(name, "xmlns:", 6) == 0)
    return ens__error(ENS_EINVAL, "remove-attr: namespace declarations (%s) are not edited", name);
  ens_value v;
  if (ens_obj_get(e, name, &v)) return ens__error(ENS_ENOTFOUND, "remove-attr: %s has no attribute %s", elem, name);
  if ((rc = ens__svge_txn("Remove attribute", out))) return rc;
  if ((rc = ens_txn_set(*out, ens_obj_id(e), name, ens_nil()))) {
    ens_txn_free(*out);
    *out = NULL;
  }
  return rc;
}

/* --- style declarations ---------------------------------------------------------------- */

/* One declaration of a style attribute: [s, e) is its text between the
 * semicolons; its name and value spans are inside it (value blanks
 * trimmed). A blank stretch (after the last ';') has no name. */
typedef struct {
  size_t s, e, ns, ne, vs, ve;
} s_decl;

static int s_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Cuts v at the semicolons outside strings, parentheses and comments. */
static size_t s_split(const char *v, size_t n, s_decl *d, size_t max) {
  size_t k = 0, start = 0, depth = 0;
  char q = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i < n) {
      char c = v[i];
      if (q) {
        if (c == '\\') i++;
        else if (c == q) q = 0;
        continue;
      }
      if (c == '/' && i + 1 < n && v[i + 1] == '*') {
        const char *end = NULL;
        for (size_t j = i + 2; j + 1 < n && !end; j++)
          if (v[j] == '*' && v[j + 1] == '/') end = v + j;
        i = end ? (size_t)(end - v) + 1 : n - 1;
        continue;
      }
      if (c == '"' || c == '\'') q = c;
      else if (c == '(') depth++;
      else if (c == ')' && depth) depth--;
      if (c != ';' || depth) continue;
    }
    if (k == max) return k;
    s_decl *x = &d[k++];
    memset(x, 0, sizeof *x);
    x->s = start;
    x->e = i;
    start = i + 1;
    size_t a = x->s;
    for (;;) { /* blanks and comments before the name */
      while (a < x->e && s_blank(v[a])) a++;
      if (a + 1 >= x->e || v[a] != '/' || v[a + 1] != '*') break;
      size_t j = a + 2;
      while (j + 1 < x->e && !(v[j] == '*' && v[j + 1] == '/')) j++;
      a = j + 2 <= x->e ? j + 2 : x->e;
    }
    size_t b = a;
    while (b < x->e && v[b] != ':' && !s_blank(v[b])) b++;
    size_t c = b;
    while (c < x->e && s_blank(v[c])) c++;
    if (b > a && c < x->e && v[c] == ':') {
      x->ns = a, x->ne = b;
      c++;
      while (c < x->e && s_blank(v[c])) c++;
      size_t ve = x->e;
      while (ve > c && s_blank(v[ve - 1])) ve--;
      x->vs = c, x->ve = ve;
    }
  }
  return k;
}

static int s_decl_is(const char *v, const s_decl *d, const char *prop) {
  size_t n = strlen(prop);
  if (d->ne - d->ns != n) return 0;
  for (size_t i = 0; i < n; i++)
    if ((v[d->ns + i] | 32) != (prop[i] | 32)) return 0;
  return 1;
}

static int s_check_prop(const char *prop, const char *value) {
  size_t n = strlen(prop);
  int ok = n > 0 && n < 256;
  for (size_t i = 0; ok && i < n; i++) ok = s_name_char((unsigned char)prop[i]) && prop[i] != '.';
  if (!ok) return ens__error(ENS_EINVAL, "\"%s\" is not a CSS property name", prop);
  if (!value) return 0;
  size_t vn = strlen(value);
  if (!vn || strpbrk(value, ";{}") || s_blank(value[0]) || s_blank(value[vn - 1]))
    return ens__error(ENS_EINVAL,
                      "\"%s\" is not a declaration value (empty, blanks around it, or ';', '{', '}' inside it)",
                      value);
  return s_check_text("value", value, vn);
}

/* The new style text in out; 0, ENS_ENOTFOUND when removing what is not
 * there. */
static int s_restyle(const char *v, size_t n, const char *prop, const char *value, ens_buf *out) {
  size_t max = 1;
  for (size_t i = 0; i < n; i++) max += v[i] == ';';
  s_decl *d = malloc(max * sizeof *d);
  if (!d) return ens__error(ENS_ENOMEM, "out of memory");
  int all_blank = 1;
  for (size_t i = 0; i < n; i++) all_blank &= s_blank(v[i]);
  size_t k = all_blank ? 0 : s_split(v, n, d, max), last = k;
  for (size_t i = 0; i < k; i++)
    if (s_decl_is(v, &d[i], prop)) last = i;
  if (last == k && !value) {
    free(d);
    return ens__error(ENS_ENOTFOUND, "the style has no %s declaration", prop);
  }
  /* how this style separates things, for a new declaration */
  int spaced_semi = 0, spaced_colon = 0;
  for (size_t i = 1; i < k; i++) spaced_semi |= d[i].s < d[i].e && s_blank(v[d[i].s]);
  for (size_t i = 0; i < k; i++) spaced_colon |= d[i].ne && d[i].vs > d[i].ne + 1;
  int first = 1;
  for (size_t i = 0; i < k; i++) {
    const s_decl *x = &d[i];
    int blank = !x->ne && x->vs == x->ve;
    for (size_t j = x->s; blank && j < x->e; j++) blank = s_blank(v[j]);
    if (x->ne && s_decl_is(v, x, prop) && (i != last || !value)) continue; /* dropped */
    if (blank && i == k - 1 && last == k && value) {
      /* a trailing ';': the new declaration goes before it */
      if (!first) ens__buf_puts(out, spaced_semi ? "; " : ";");
      ens__buf_printf(out, "%s%s%s", prop, spaced_colon ? ": " : ":", value);
      first = 0;
    }
    if (!first) ens__buf_putc(out, ';');
    size_t s = x->s;
    if (first) /* a first declaration has no blanks before it */
      while (s < x->e && s_blank(v[s])) s++;
    if (i == last && value) {
      ens__buf_append(out, v + s, x->vs - s);
      ens__buf_puts(out, value);
      ens__buf_append(out, v + x->ve, x->e - x->ve);
    } else {
      ens__buf_append(out, v + s, x->e - s);
    }
    first = 0;
  }
  int trailing = k && !d[k - 1].ne;
  for (size_t j = k ? d[k - 1].s : 0; trailing && j < d[k - 1].e; j++) trailing = s_blank(v[j]);
  if (last == k && value && !trailing) {
    if (!first) ens__buf_puts(out, spaced_semi ? "; " : ";");
    ens__buf_printf(out, "%s%s%s", prop, spaced_colon ? ": " : ":", value);
  }
  free(d);
  return out->oom ? ens__error(ENS_ENOMEM, "out of memory") : 0;
}

int ens_svg_set_style(ens_doc *doc, const char *elem, const char *prop, const char *value, ens_txn **out) {
  const ens_obj *e;
  if (!out) return ens__error(ENS_EINVAL, "set-style: no output");
  *out = NULL;
  int rc = ens__svge_elem(doc, "set-style", elem, &e);
  if (rc) return rc;
  if (!prop) return ens__error(ENS_EINVAL, "set-style: a property name is needed");
  if ((rc = s_check_prop(prop, value))) return ens__error_prefix(rc, "set-style: ");
  const char *v = "";
  size_t n = 0;
  ens__svge_attr(e, "style", &v, &n);
  ens_buf b = ENS_BUF_INIT;
  if ((rc = s_restyle(v, n, prop, value, &b))) {
    ens__buf_free(&b);
    return ens__error_prefix(rc, "set-style: %s: ", elem);
  }
  int empty = 1;
  for (size_t i = 0; i < b.len; i++) empty &= s_blank((char)b.data[i]) || b.data[i] == ';';
  if (!(rc = ens__svge_txn(value ? "Set style" : "Remove style", out)))
    rc = ens_txn_set(*out, ens_obj_id(e), "style", empty ? ens_nil() : ens_strn((const char *)b.data, b.len));
  ens__buf_free(&b);
  if (rc) {
    ens_txn_free(*out);
    *out = NULL;
  }
  return rc;
}
