/* The SFD format's schema (ens_sfd_schema): the kinds the writer writes,
 * where each goes, the properties each has and the values SFD can say,
 * so that an apply refuses a change the written font would not read back
 * as. Values are judged by the reader's own parsers where a line's shape
 * depends on them; kept text by simulating the reader over an object's
 * text and children in the order the writer puts them (docs/sfd.md,
 * "What a font cannot hold"). */
#include <float.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "../../util/utf8.h"
#include "sfd_int.h"

/* --- reasons ------------------------------------------------------------------------- */

typedef struct {
  const ens_doc *doc;
  const ens_obj *obj;
  char *why;
  size_t size;
} s_ctx;

/* The glyph obj belongs to, named for messages. */
static const ens_obj *s_glyph_of(const ens_obj *o) {
  while (o && o->parent && o->parent->parent) o = o->parent;
  return o && o->parent && strcmp(o->kind, ENS_SFD_GLYPH) == 0 ? o : NULL;
}

static const ens__prop *s_get(const ens_obj *o, const char *key) {
  for (uint32_t i = 0; i < o->nprops; i++)
    if (o->props[i].type != ENS_NIL && strcmp(ens__prop_key(o, &o->props[i]), key) == 0) return &o->props[i];
  return NULL;
}

static int s_fail(s_ctx *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int s_fail(s_ctx *c, int code, const char *fmt, ...) {
  char what[160];
  const ens_obj *g = s_glyph_of(c->obj);
  const ens__prop *name = g ? s_get(g, "name") : NULL;
  if (!c->obj->parent)
    snprintf(what, sizeof what, "the font");
  else if (name && name->type == ENS_STR && g == c->obj)
    snprintf(what, sizeof what, "glyph \"%.60s\"", name->u.s);
  else if (name && name->type == ENS_STR)
    snprintf(what, sizeof what, "a %s of glyph \"%.60s\"", c->obj->kind, name->u.s);
  else
    snprintf(what, sizeof what, "a %s (%#llx)", c->obj->kind, (unsigned long long)c->obj->id);
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(c->why, c->size, "SFD cannot hold this: %s: %s", what, msg);
  return code;
}

/* --- values ---------------------------------------------------------------------------- */

enum {
  V_ANY,    /* not judged here */
  V_REAL,   /* a real FontForge keeps (a float) */
  V_I32,    /* a C int */
  V_I64,    /* times: seconds since 1970 */
  V_I16,    /* -32768..32767 */
  V_U16,    /* 0..65535 */
  V_GID,    /* 0..2^31-1 */
  V_TTF,    /* -1..65535 */
  V_PTYPE,  /* 0..3 */
  V_PFLAGS, /* 0..65535 without the two type bits */
  V_HEX32,  /* 0..2^32-1 */
  V_TRUE,   /* a boolean that is true (false is said by its absence) */
  V_BOOL,
  V_LINE,   /* text on one line */
  V_UTF7,   /* text in quoted UTF-7: any valid UTF-8 */
  V_NAME,   /* a glyph name */
  V_TOKEN,  /* one word */
  V_DEVICE, /* a device table {...} */
  V_GLYPH,  /* a reference to a glyph of the font */
  V_TEXT,   /* kept text (judged with its object) */
  V_FILE,   /* the glyph's file name in an SFDir */
  V_NEVER   /* set by the reader only */
};

typedef struct {
  const char *key;
  uint8_t type; /* ens_type; ENS_NIL: STR or BYTES (kept text) */
  uint8_t rule; /* V_* */
  uint8_t required;
} s_key;

#define K(k, t, r) {k, t, r, 0}
#define REQ(k, t, r) {k, t, r, 1}
#define TEXT(k) {k, ENS_NIL, V_TEXT, 0}

static const s_key s_glyph_keys[] = {
    K("name", ENS_STR, V_NAME),     K("encoding", ENS_INT, V_I32),  K("unicode", ENS_INT, V_I32),
    REQ("gid", ENS_INT, V_GID),     K("width", ENS_INT, V_I32),     K("vwidth", ENS_INT, V_I32),
    K("glyphclass", ENS_INT, V_I32), K("flags", ENS_STR, V_LINE),    K("altuni", ENS_STR, V_LINE),
    K("hstem", ENS_STR, V_LINE),    K("vstem", ENS_STR, V_LINE),    K("dstem2", ENS_STR, V_LINE),
    K("comment", ENS_STR, V_UTF7),  K("colour", ENS_INT, V_HEX32),  TEXT("~head"),
    TEXT("~tail"),                  K("~file", ENS_STR, V_FILE)};
static const s_key s_layer_keys[] = {K("index", ENS_INT, V_U16), TEXT("~head"), TEXT("~tail")};
static const s_key s_contour_keys[] = {TEXT("~text")};
static const s_key s_point_keys[] = {
    REQ("x", ENS_REAL, V_REAL),  REQ("y", ENS_REAL, V_REAL),    K("c1x", ENS_REAL, V_REAL),
    K("c1y", ENS_REAL, V_REAL),  K("c2x", ENS_REAL, V_REAL),    K("c2y", ENS_REAL, V_REAL),
    K("type", ENS_INT, V_PTYPE), K("flags", ENS_INT, V_PFLAGS), K("extra", ENS_STR, V_LINE),
    K("ttf", ENS_INT, V_TTF),    K("nextcp", ENS_INT, V_TTF),   K("~ln", ENS_INT, V_ANY)};
static const s_key s_ref_keys[] = {
    REQ("glyph", ENS_REF, V_GLYPH), REQ("xx", ENS_REAL, V_REAL),      REQ("xy", ENS_REAL, V_REAL),
    REQ("yx", ENS_REAL, V_REAL),    REQ("yy", ENS_REAL, V_REAL),      REQ("dx", ENS_REAL, V_REAL),
    REQ("dy", ENS_REAL, V_REAL),    REQ("selected", ENS_BOOL, V_BOOL), K("flags", ENS_INT, V_U16),
    K("extra", ENS_STR, V_LINE),    TEXT("~head")};
static const s_key s_anchor_keys[] = {
    REQ("class", ENS_STR, V_UTF7), REQ("x", ENS_REAL, V_REAL), REQ("y", ENS_REAL, V_REAL),
    REQ("type", ENS_STR, V_TOKEN), REQ("lig", ENS_INT, V_I16), K("extra", ENS_STR, V_LINE),
    TEXT("~head")};
static const s_key s_kern_keys[] = {
    REQ("glyph", ENS_REF, V_GLYPH), REQ("offset", ENS_INT, V_I32), REQ("subtable", ENS_STR, V_UTF7),
    K("device", ENS_STR, V_DEVICE), K("vertical", ENS_BOOL, V_TRUE), TEXT("~head")};
static const s_key s_raw_keys[] = {TEXT("~text")};
static const s_key s_root_fixed[] = {TEXT("~head"), TEXT("~tail"), K("~dir", ENS_BOOL, V_NEVER)};

#define N(a) (sizeof(a) / sizeof(a)[0])

/* A root key from the header table: its type and rule (NULL: not one). */
static int s_root_key(const char *key, s_key *out) {
  for (size_t i = 0; i < N(s_root_fixed); i++)
    if (strcmp(s_root_fixed[i].key, key) == 0) {
      *out = s_root_fixed[i];
      return 1;
    }
  for (size_t i = 0; i < ens__sfd_root_nkeys; i++) {
    const ens__sfd_keyspec *ks = &ens__sfd_root_keys[i];
    if ((size_t)ks->wlen - 1 != strlen(key) || memcmp(ks->word, key, (size_t)ks->wlen - 1) != 0) continue;
    out->key = key;
    out->required = 0;
    if (ks->vt == S_V_INT) {
      out->type = ENS_INT;
      out->rule = ks->word[0] == 'C' || ks->word[0] == 'M' ? V_I64 : V_I32; /* as the parser allows */
    } else if (ks->vt == S_V_REAL) {
      out->type = ENS_REAL;
      out->rule = V_REAL;
    } else {
      out->type = ENS_STR;
      out->rule = V_LINE;
    }
    return 1;
  }
  return 0;
}

static const s_key *s_find_key(const s_key *t, size_t n, const char *key) {
  for (size_t i = 0; i < n; i++)
    if (t[i].key[0] == key[0] && strcmp(t[i].key, key) == 0) return &t[i];
  return NULL;
}

static const char *s_type_name(int t) {
  switch (t) {
  case ENS_INT: return "an integer";
  case ENS_REAL: return "a real";
  case ENS_STR: return "a string";
  case ENS_BYTES: return "bytes";
  case ENS_BOOL: return "a boolean";
  case ENS_REF: return "a reference";
  default: return "text";
  }
}

/* Text that goes on one line of its own: no line break, no NUL, and no
 * backslash at its end (FontForge's mark of a line continued). */
static const char *s_line_problem(const char *s, size_t n) {
  if (memchr(s, '\n', n) || memchr(s, '\r', n)) return "has a line break, and SFD keeps it on one line";
  if (n && s[n - 1] == '\\') return "ends with a backslash, which SFD reads as a line going on to the next";
  if (n > ENS_SFD_MAX_LINE / 2) return "is longer than an SFD line may be";
  return NULL;
}

static int s_check_value(s_ctx *c, const s_key *k, const ens__prop *p) {
  ens_value v = ens__prop_value(p);
  int kept_text = k->type == ENS_NIL;
  if (kept_text ? (v.type != ENS_STR && v.type != ENS_BYTES) : v.type != k->type)
    return s_fail(c, ENS_ETYPE, "'%s' must be %s, not %s", k->key, s_type_name(k->type), s_type_name(v.type));
  const char *why = NULL;
  int64_t i = v.type == ENS_INT ? v.u.i : 0;
  switch (k->rule) {
  case V_REAL:
    if (!isfinite(v.u.r) || fabs(v.u.r) > FLT_MAX) why = "is not a number FontForge keeps (finite, within a float)";
    break;
  case V_I32:
    if (i < INT32_MIN || i > INT32_MAX) why = "is beyond a C int";
    break;
  case V_I64:
    if (i == INT64_MIN) why = "is beyond what SFD reads";
    break;
  case V_I16:
    if (i < -32768 || i > 32767) why = "is beyond -32768..32767";
    break;
  case V_U16:
    if (i < 0 || i > 65535) why = "is beyond 0..65535";
    break;
  case V_GID:
    if (i < 0 || i > INT32_MAX) why = "is not a glyph number (0..2^31-1)";
    break;
  case V_TTF:
    if (i < -1 || i > 65535) why = "is beyond -1..65535";
    break;
  case V_PTYPE:
    if (i < 0 || i > 3) why = "is not a point type (0..3)";
    break;
  case V_PFLAGS:
    if (i < 0 || i > 0xffff || (i & 3)) why = "is not point flags (0..65535, without the two type bits)";
    break;
  case V_HEX32:
    if (i < 0 || i > 0xffffffffLL) why = "is beyond 0..0xffffffff";
    break;
  case V_TRUE:
    if (!v.u.b) why = "is false, which SFD says by leaving it out";
    break;
  case V_LINE: why = s_line_problem(v.u.s.ptr, v.u.s.len); break;
  case V_UTF7:
    if (!ens__utf8_valid(v.u.s.ptr, v.u.s.len)) why = "is not valid UTF-8, which its quoted UTF-7 needs";
    else if (v.u.s.len > ENS_SFD_MAX_LINE / 8) why = "is longer than an SFD line may be";
    break;
  case V_NAME: /* judged with the glyph's StartChar: line (s_glyph_seq) */
    if (v.u.s.len > ENS_SFD_MAX_LINE / 8) why = "is longer than an SFD line may be";
    break;
  case V_TOKEN:
    if (!v.u.s.len || memchr(v.u.s.ptr, ' ', v.u.s.len) || memchr(v.u.s.ptr, '\t', v.u.s.len))
      why = "must be one word";
    else
      why = s_line_problem(v.u.s.ptr, v.u.s.len);
    break;
  case V_DEVICE: {
    const char *s = v.u.s.ptr;
    size_t n = v.u.s.len;
    const char *close = n ? memchr(s, '}', n) : NULL;
    if (n < 2 || s[0] != '{' || close != s + n - 1) why = "is not a device table {...}";
    else why = s_line_problem(s, n);
    break;
  }
  case V_GLYPH: {
    const ens_obj *t = v.u.ref ? ens__doc_lookup(c->doc, v.u.ref) : NULL;
    if (!t || strcmp(t->kind, ENS_SFD_GLYPH) != 0 || t->parent != c->doc->root) why = "does not name a glyph of the font";
    break;
  }
  case V_TEXT: break;
  case V_FILE: {
    /* as the SFDir writer takes it: a leading dot is fine (FontForge
     * writes .notdef.glyph), a '/' would leave the directory */
    const char *s = v.u.s.ptr;
    size_t n = v.u.s.len;
    if (n < 7 || n > 255 || memchr(s, '/', n) || memchr(s, '\0', n) || memcmp(s + n - 6, ".glyph", 6))
      why = "is not the name of a .glyph file in the font's directory";
    break;
  }
  case V_NEVER: why = "is the reader's to set, not a transaction's"; break;
  default: break;
  }
  if (why) return s_fail(c, ENS_EFORMAT, "'%s' %s", k->key, why);
  return 0;
}

/* Every property of obj the touch names (all of them for a new object)
 * is one the kind has, with its type and a value SFD can say; the
 * required ones are there. */
static int s_check_props(s_ctx *c, const s_key *t, size_t n, const ens_touch *touch, int root) {
  const ens_obj *o = c->obj;
  int rc;
  if (touch->keys && !(touch->what & ENS_TOUCH_NEW)) {
    for (size_t i = 0; i < touch->nkeys; i++) {
      const char *key = touch->keys[i];
      s_key rk;
      const s_key *k = root ? (s_root_key(key, &rk) ? &rk : NULL) : s_find_key(t, n, key);
      const ens__prop *p = ens__obj_find_prop(o, key);
      if (k && k->rule == V_NEVER) return s_fail(c, ENS_EFORMAT, "'%s' is the reader's to set, not a transaction's", key);
      if (!p || p->type == ENS_NIL) {
        if (k && k->required) return s_fail(c, ENS_EFORMAT, "'%s' may not be removed: every line of its kind says it", key);
        continue;
      }
      if (!k) return s_fail(c, ENS_EFORMAT, "SFD has no property '%s' here, so it would not be written", key);
      if ((rc = s_check_value(c, k, p))) return rc;
    }
    return 0;
  }
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    const char *pk = ens__prop_key(o, p);
    if (p->type == ENS_NIL || ens__key_is_local(pk)) continue;
    s_key rk;
    const s_key *k = root ? (s_root_key(pk, &rk) ? &rk : NULL) : s_find_key(t, n, pk);
    if (!k) return s_fail(c, ENS_EFORMAT, "SFD has no property '%s' here, so it would not be written", pk);
    if (k->rule == V_NEVER && (touch->what & ENS_TOUCH_NEW))
      return s_fail(c, ENS_EFORMAT, "'%s' is the reader's to set, not a transaction's", pk);
    if ((rc = s_check_value(c, k, p))) return rc;
  }
  for (size_t i = 0; i < n; i++)
    if (t[i].required && !s_get(o, t[i].key))
      return s_fail(c, ENS_EFORMAT, "'%s' is missing: every line of its kind says one", t[i].key);
  return 0;
}

/* The touch names key (or names no keys at all, so any). */
static int s_touched_key(const ens_touch *t, const char *key) {
  if (!t->keys) return 1;
  for (size_t i = 0; i < t->nkeys; i++)
    if (strcmp(t->keys[i], key) == 0) return 1;
  return 0;
}

/* --- lines that must read back: points, references, anchors ------------------------ */

static int s_num(const ens__prop *p, double *d) {
  if (!p || p->type != ENS_REAL) return 0;
  *d = p->u.r;
  return 1;
}

/* An empty 'extra' writes nothing after the line's last field, so it
 * reads back as none: leaving it out is the change SFD can hold. */
static int s_extra_not_empty(s_ctx *c, const ens__prop *extra) {
  if (extra && extra->type == ENS_STR && extra->len == 0)
    return s_fail(c, ENS_EFORMAT, "an empty 'extra' reads back as none: leave it out");
  return 0;
}

static int s_point(s_ctx *c, const ens_touch *touch) {
  const ens_obj *o = c->obj;
  int rc = s_check_props(c, s_point_keys, N(s_point_keys), touch, 0);
  if (rc) return rc;
  /* one pass over its few properties: this runs for every point dragged */
  const ens__prop *cp[4] = {NULL, NULL, NULL, NULL}, *type = NULL, *flags = NULL, *ttf = NULL, *next = NULL,
                  *extra = NULL, *px = NULL, *py = NULL;
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    const char *k = ens__prop_key(o, p);
    if (p->type == ENS_NIL) continue;
    switch (k[0]) {
    case 'x': px = k[1] ? px : p; break;
    case 'y': py = k[1] ? py : p; break;
    case 'c':
      if (k[1] >= '1' && k[1] <= '2' && (k[2] == 'x' || k[2] == 'y') && !k[3]) cp[(k[1] - '1') * 2 + (k[2] == 'y')] = p;
      break;
    case 't':
      if (!strcmp(k, "type")) type = p;
      else if (!strcmp(k, "ttf")) ttf = p;
      break;
    case 'f': flags = strcmp(k, "flags") ? flags : p; break;
    case 'n': next = strcmp(k, "nextcp") ? next : p; break;
    case 'e': extra = strcmp(k, "extra") ? extra : p; break;
    default: break;
    }
  }
  int nc = !!cp[0] + !!cp[1] + !!cp[2] + !!cp[3];
  if (nc && nc < 4) return s_fail(c, ENS_EFORMAT, "a curve point needs all four of c1x, c1y, c2x, c2y");
  if (nc && o->parent && o->parent->nkids && o->parent->kids[0] == o)
    return s_fail(c, ENS_EFORMAT, "the first point of a contour is an m line, which has no control points");
  if (!type != !flags) return s_fail(c, ENS_EFORMAT, "'type' and 'flags' are one number in SFD: both or neither");
  if (!ttf != !next) return s_fail(c, ENS_EFORMAT, "'ttf' and 'nextcp' go together: both or neither");
  if (ttf && !flags) return s_fail(c, ENS_EFORMAT, "'ttf' and 'nextcp' follow the flags, which it has not");
  if (!extra) return 0;
  if ((rc = s_extra_not_empty(c, extra))) return rc;
  /* what follows the flags: the line must read back with the same parts */
  ens__sfd_point pt;
  memset(&pt, 0, sizeof pt);
  s_num(px, &pt.x);
  s_num(py, &pt.y);
  pt.seg = nc ? 'c' : 'l';
  for (int i = 0; i < 4 && nc; i++) s_num(cp[i], &pt.c[i]);
  pt.has_flags = flags != NULL;
  pt.flags = flags ? (type->u.i & 3) | flags->u.i : 0;
  pt.has_ttf = ttf != NULL;
  pt.ttf = ttf ? ttf->u.i : -1;
  pt.nextcp = next ? next->u.i : -1;
  pt.extra = extra->u.s;
  pt.extra_len = extra->len;
  ens_buf b = ENS_BUF_INIT;
  ens__sfd_format_point(&pt, 0, &b);
  ens__sfd_point back;
  const char *why = NULL;
  int same = !b.oom && ens__sfd_parse_point((const char *)b.data, b.len, &back, &why) == 0 &&
             back.has_flags == pt.has_flags && back.flags == pt.flags && back.has_ttf == pt.has_ttf &&
             back.extra_len == pt.extra_len && memcmp(back.extra, pt.extra, pt.extra_len) == 0;
  rc = b.oom ? ens__error(ENS_ENOMEM, "out of memory") : 0;
  ens__buf_free(&b);
  if (rc) return rc;
  if (!same) return s_fail(c, ENS_EFORMAT, "'extra' would not read back as what follows the point's flags");
  return 0;
}

/* The lines of a reference, anchor or kerning head after its first one:
 * the writer keeps them as they are, so they must stay text there. */
static int s_head_rest(s_ctx *c) {
  const ens__prop *h = s_get(c->obj, "~head");
  if (!h) return 0;
  const char *s = h->u.s, *e = s + h->len;
  if (!h->len) return 0;
  if (e[-1] != '\n') return s_fail(c, ENS_EFORMAT, "'~head' must end with a line break");
  ens__sfd_line ln;
  ens__sfd_line_at(s, e, &ln);
  if (ln.n && ln.s[ln.n - 1] == '\\')
    return s_fail(c, ENS_EFORMAT, "'~head' goes on to a next line (a backslash ends its first)");
  for (const char *p = ln.next; p < e;) {
    ens__sfd_line l2;
    ens__sfd_line_at(p, e, &l2);
    int w = ens__sfd_word(l2.s, l2.n);
    if (w != S_W_BLANK && w != S_W_NAMEDP)
      return s_fail(c, ENS_EFORMAT, "'~head' has lines after its first that would not read back as text of it");
    if (l2.n && l2.s[l2.n - 1] == '\\') return s_fail(c, ENS_EFORMAT, "'~head' has a line ending in a backslash");
    p = l2.next;
  }
  return 0;
}

static int s_ref(s_ctx *c, const ens_touch *touch) {
  const ens_obj *o = c->obj;
  int rc = s_check_props(c, s_ref_keys, N(s_ref_keys), touch, 0);
  if (!rc) rc = s_head_rest(c);
  if (rc) return rc;
  ens__sfd_ref rf;
  memset(&rf, 0, sizeof rf);
  static const char *const mk[6] = {"xx", "xy", "yx", "yy", "dx", "dy"};
  for (int i = 0; i < 6; i++) s_num(s_get(o, mk[i]), &rf.m[i]);
  const ens__prop *flags = s_get(o, "flags"), *extra = s_get(o, "extra"), *sel = s_get(o, "selected");
  if ((rc = s_extra_not_empty(c, extra))) return rc;
  rf.has_uni = 1;
  rf.uni = -1;
  rf.selected = sel && sel->u.b;
  rf.has_flags = flags != NULL;
  rf.flags = flags ? flags->u.i : 0;
  rf.extra = extra ? extra->u.s : "";
  rf.extra_len = extra ? extra->len : 0;
  ens_buf b = ENS_BUF_INIT;
  ens__sfd_format_ref(&rf, &b);
  ens__sfd_ref back;
  const char *why = NULL;
  int same = !b.oom && ens__sfd_parse_ref((const char *)b.data, b.len, &back, &why) == 0 &&
             back.has_flags == rf.has_flags && back.flags == rf.flags && back.extra_len == rf.extra_len &&
             memcmp(back.extra, rf.extra, rf.extra_len) == 0;
  ens__buf_free(&b);
  if (!same) return s_fail(c, ENS_EFORMAT, "its 'flags' and 'extra' would not read back from its Refer: line");
  return 0;
}

static int s_anchor(s_ctx *c, const ens_touch *touch) {
  const ens_obj *o = c->obj;
  int rc = s_check_props(c, s_anchor_keys, N(s_anchor_keys), touch, 0);
  if (!rc) rc = s_head_rest(c);
  if (rc) return rc;
  const ens__prop *cls = s_get(o, "class"), *type = s_get(o, "type"), *lig = s_get(o, "lig"),
                  *extra = s_get(o, "extra");
  if ((rc = s_extra_not_empty(c, extra))) return rc;
  double x = 0, y = 0;
  s_num(s_get(o, "x"), &x);
  s_num(s_get(o, "y"), &y);
  ens_buf b = ENS_BUF_INIT, scratch = ENS_BUF_INIT;
  ens__sfd_format_anchor(cls->u.s, cls->len, x, y, type->u.s, type->len, lig->u.i, extra ? extra->u.s : "",
                         extra ? extra->len : 0, &b);
  ens__buf_reserve(&scratch, 64);
  ens__sfd_anchor back;
  const char *why = NULL;
  int same = !b.oom && !scratch.oom && ens__sfd_parse_anchor((const char *)b.data, b.len, &back, &scratch, &why) == 0 &&
             back.type_len == type->len && memcmp(back.type, type->u.s, type->len) == 0 && back.lig == lig->u.i &&
             back.extra_len == (extra ? extra->len : 0) && (!extra || memcmp(back.extra, extra->u.s, extra->len) == 0);
  ens__buf_free(&b);
  ens__buf_free(&scratch);
  if (!same) return s_fail(c, ENS_EFORMAT, "its 'type', 'lig' and 'extra' would not read back from its AnchorPoint: line");
  return 0;
}

/* --- kept text, read as the reader reads it -------------------------------------------- */

/* One pass of the reader over an object's text and children, in the
 * order the writer puts them. Texts are cut into entries exactly as the
 * reader cuts them (single lines inside a SplineSet, blocks elsewhere);
 * children are tokens, since their own text is judged with them. */
typedef struct {
  s_ctx *c;
  int in_set;
  int open_line;  /* the last text written did not end its line */
  int ended;      /* EndChar was read: nothing but blank lines may follow */
  int after_layer; /* the item before was a layer */
  uint8_t done[64]; /* keyed lines met, by their index in the glyph or root table */
  const ens__sfd_keyspec *table;
  size_t nkeys;
  const char *what; /* "glyph", "layer", "font" */
} s_reader;

/* An item follows the text before it: that text must have ended its line. */
static int s_follow(s_reader *r) {
  if (r->open_line) return s_fail(r->c, ENS_EFORMAT, "its text does not end its last line, and more follows it");
  if (r->ended) return s_fail(r->c, ENS_EFORMAT, "something follows its EndChar line, which ends the glyph");
  return 0;
}

/* A keyed line (Width:, FontName: ...) that the reader takes as the first
 * of its word: it must read as its value unless the writer prints the
 * line again from the property. */
static int s_keyed(s_reader *r, const char *s, size_t n) {
  const ens__sfd_keyspec *ks = ens__sfd_find_key(r->table, r->nkeys, s, n);
  if (!ks) return 0;
  size_t i = (size_t)(ks - r->table);
  if (i >= sizeof r->done * 8 || (r->done[i / 8] & (1u << (i % 8)))) return 0;
  r->done[i / 8] |= (uint8_t)(1u << (i % 8));
  const char *key = r->table == ens__sfd_root_keys ? ens__sfd_key_name(S_K_ROOT + (int)i) : ens__sfd_key_name(ks->key);
  if (s_get(r->c->obj, key)) return 0; /* printed from the property */
  if (ks->vt == S_V_UTF7) return 0;       /* a comment that is not UTF-7 stays text */
  ens_buf scratch = ENS_BUF_INIT;
  ens__buf_reserve(&scratch, 64);
  ens__sfd_val v[3];
  int nv;
  const char *why = NULL;
  int ok = ens__sfd_key_parse(ks, s, n, v, &nv, &scratch, &why) == 0;
  ens__buf_free(&scratch);
  if (!ok) return s_fail(r->c, ENS_EFORMAT, "its text has a line \"%.*s\" that does not read (%s)", (int)(n > 40 ? 40 : n), s, why ? why : "?");
  return 0;
}

enum { T_GLYPH, T_LAYER, T_ROOT };

/* A reference or kerning line in raw text: the writer drops it when the
 * glyph it names is there (so it can never come back as a reference),
 * and keeps it when it names none, as the reader keeps such a line; it
 * must still read as one. */
static int s_raw_ref_line(s_reader *r, int w, const char *s, size_t n) {
  const char *why = NULL;
  if (w == S_W_REFER || w == S_W_REF) {
    ens__sfd_ref rf;
    if (ens__sfd_parse_ref(s, n, &rf, &why) == 0) return 0;
  } else {
    ens__sfd_kernpair *kp = NULL;
    size_t cap = 0;
    ens_buf scratch = ENS_BUF_INIT;
    ens__buf_reserve(&scratch, 64);
    long np = ens__sfd_parse_kerns(s, n, &kp, &cap, &scratch, &why);
    free(kp);
    ens__buf_free(&scratch);
    if (np >= 0) return 0;
  }
  return s_fail(r->c, ENS_EFORMAT, "its text has a line \"%.*s\" that does not read (%s)", (int)(n > 40 ? 40 : n), s,
                why ? why : "?");
}

/* Reads one text as part of container kind `where`; raw: the text of a
 * raw object (else the container's own head or tail). */
static int s_read_text(s_reader *r, int where, const char *t, size_t tn, int raw) {
  if (!tn) return 0;
  int rc = s_follow(r);
  if (rc) return rc;
  const char *p = t, *e = t + tn;
  while (p < e) {
    ens__sfd_line ln;
    ens__sfd_line_at(p, e, &ln);
    if (ln.n > ENS_SFD_MAX_LINE) return s_fail(r->c, ENS_EFORMAT, "its text has a line longer than SFD reads");
    int w = ens__sfd_word(ln.s, ln.n);
    uint32_t nl = 1;
    size_t len;
    if (r->in_set && (w == S_W_NUMBER || w == S_W_BLANK || w == S_W_NAMEDP)) {
      len = (size_t)(ln.next - p);
    } else {
      len = ens__sfd_entry(p, e, &nl);
      if (!len) return s_fail(r->c, ENS_EFORMAT, "its text has a block without its end line");
    }
    if (r->ended && w != S_W_BLANK) return s_fail(r->c, ENS_EFORMAT, "text follows its EndChar line");
    if (r->in_set) {
      if (w == S_W_NUMBER) return s_fail(r->c, ENS_EFORMAT, "its text has a point line outside a contour");
      if (w == S_W_ENDSPLINESET) r->in_set = 0;
      else if (w == S_W_ENDCHAR || w == S_W_STARTCHAR)
        return s_fail(r->c, ENS_EFORMAT, "its SplineSet would have no EndSplineSet");
    } else if (where == T_ROOT) {
      if (w == S_W_STARTCHAR) return s_fail(r->c, ENS_EFORMAT, "its text has a StartChar: line, which would read as a glyph");
      if (nl == 1 && w == S_W_OTHER && (rc = s_keyed(r, ln.s, ln.n))) return rc;
    } else {
      int layer_word = w == S_W_LAYERDATA || w == S_W_BLANK || w == S_W_NUMBER || w == S_W_ENDSPLINESET ||
                       w == S_W_NAMEDP || w == S_W_CONTOURTAIL;
      if (w == S_W_NUMBER && r->after_layer)
        return s_fail(r->c, ENS_EFORMAT, "its text has a number line right after a layer, which could read as points");
      if (where == T_LAYER) {
        if (w == S_W_SPLINESET) {
          r->in_set = 1;
        } else if (w == S_W_REFER || w == S_W_REF) {
          if (!raw || nl != 1)
            return s_fail(r->c, ENS_EFORMAT, "its text has a reference line, which would read as a reference");
          if ((rc = s_raw_ref_line(r, w, ln.s, ln.n))) return rc;
        } else if (!layer_word)
          return s_fail(r->c, ENS_EFORMAT, "its text has a line that would end the layer (\"%.*s\")",
                        (int)(ln.n > 30 ? 30 : ln.n), ln.s);
      } else { /* glyph */
        if (w == S_W_ENDCHAR) {
          r->ended = 1;
        } else if (w == S_W_STARTCHAR || w == S_W_FORE || w == S_W_BACK || w == S_W_LAYER || w == S_W_SPLINESET ||
                   w == S_W_REFER || w == S_W_REF || w == S_W_ANCHOR) {
          return s_fail(r->c, ENS_EFORMAT, "its text has a line that would read as part of the outline (\"%.*s\")",
                        (int)(ln.n > 30 ? 30 : ln.n), ln.s);
        } else if ((w == S_W_KERNS2 || w == S_W_VKERNS2) && raw && nl == 1) {
          if ((rc = s_raw_ref_line(r, w, ln.s, ln.n))) return rc;
        } else if (w == S_W_KERNS2 || w == S_W_VKERNS2) {
          ens__sfd_kernpair *kp = NULL;
          size_t cap = 0;
          ens_buf scratch = ENS_BUF_INIT;
          ens__buf_reserve(&scratch, 64);
          const char *why = NULL;
          long np = ens__sfd_parse_kerns(ln.s, ln.n, &kp, &cap, &scratch, &why);
          free(kp);
          ens__buf_free(&scratch);
          if (np != 0) return s_fail(r->c, ENS_EFORMAT, "its text has a kerning line, which would read as kerning pairs");
        } else if (!layer_word && nl == 1 && (rc = s_keyed(r, ln.s, ln.n))) {
          return rc;
        }
      }
    }
    r->after_layer = 0;
    p += len;
  }
  r->open_line = e[-1] != '\n';
  return 0;
}

static int s_text_of(const ens_obj *o, const char *key, const char **t, size_t *n) {
  const ens__prop *p = s_get(o, key);
  if (!p || (p->type != ENS_STR && p->type != ENS_BYTES)) {
    *t = "";
    *n = 0;
    return 0;
  }
  *t = p->u.s;
  *n = p->len;
  return 1;
}

static int s_is(const ens_obj *o, const char *kind) { return strcmp(o->kind, kind) == 0; }

/* The marker line a layer is written with: 1 Fore or Back, 2 Layer:, 0 none. */
static int s_marker(const ens_obj *l) {
  const ens__prop *ip = s_get(l, "index");
  if (ip && ip->type == ENS_INT) return ip->u.i == 0 || ip->u.i == 1 ? 1 : 2;
  const char *h;
  size_t hn;
  if (!s_text_of(l, "~head", &h, &hn)) return 0;
  ens__sfd_line ln;
  ens__sfd_line_at(h, h + hn, &ln);
  int w = ens__sfd_word(ln.s, ln.n);
  return w == S_W_FORE || w == S_W_BACK ? 1 : w == S_W_LAYER ? 2 : 0;
}

/* The glyph's name reads back from its StartChar: line: the line kept
 * when it says the name, or else the name printed afresh (bare when it is
 * plain ASCII, in UTF-7 otherwise, which needs valid UTF-8). */
static int s_name_prints(s_ctx *c, const ens__prop *name, const ens__sfd_keyspec *ks, const char *s, size_t n) {
  if (ks) {
    ens_buf scratch = ENS_BUF_INIT;
    ens__buf_reserve(&scratch, 64);
    ens__sfd_val v[3];
    int nv = 0;
    const char *why = NULL;
    int same = ens__sfd_key_parse(ks, s, n, v, &nv, &scratch, &why) == 0 && nv == 1;
    if (same) {
      const char *p = v[0].in_scratch ? (const char *)scratch.data + (uintptr_t)v[0].v.u.s.ptr : v[0].v.u.s.ptr;
      same = v[0].v.u.s.len == name->len && memcmp(p, name->u.s, name->len) == 0;
    }
    ens__buf_free(&scratch);
    if (same) return 0;
  }
  if (!ens__utf8_valid(name->u.s, name->len))
    return s_fail(c, ENS_EFORMAT, "'name' is not valid UTF-8, which a name printed in UTF-7 needs");
  return 0;
}

/* The glyph's text and children as the reader will meet them. */
static int s_glyph_seq(s_ctx *c, const ens_obj *g) {
  s_ctx cg = *c;
  cg.obj = g;
  s_reader r;
  memset(&r, 0, sizeof r);
  r.c = &cg;
  r.table = ens__sfd_glyph_keys;
  r.nkeys = ens__sfd_glyph_nkeys;
  const char *t;
  size_t tn;
  int rc;
  /* the head: blank lines, then its StartChar: line (the writer keeps it) */
  if (s_text_of(g, "~head", &t, &tn) && tn) {
    const char *p = t, *e = t + tn;
    for (;;) {
      if (p >= e) return s_fail(&cg, ENS_EFORMAT, "'~head' has no StartChar: line");
      ens__sfd_line ln;
      ens__sfd_line_at(p, e, &ln);
      int w = ens__sfd_word(ln.s, ln.n);
      if (w == S_W_BLANK) {
        p = ln.next;
        continue;
      }
      if (w != S_W_STARTCHAR) return s_fail(&cg, ENS_EFORMAT, "'~head' does not start with its StartChar: line");
      /* a glyph without a name is one whose StartChar: line is not at the
       * margin (the reader takes no name from it): the writer keeps that
       * line, but drops one at the margin whose name was removed */
      const ens__sfd_keyspec *ks = ens__sfd_find_key(ens__sfd_glyph_keys, ens__sfd_glyph_nkeys, ln.s, ln.n);
      const ens__prop *name = s_get(g, "name");
      /* judged from a layer, the glyph's own properties may not have been
       * checked yet: this transaction may have set them too */
      if (name && name->type != ENS_STR) return s_fail(&cg, ENS_ETYPE, "'name' must be a string");
      if (!name && ks) return s_fail(&cg, ENS_EFORMAT, "'name' is missing, and its StartChar: line says one");
      if (name && !ks) return s_fail(&cg, ENS_EFORMAT, "its StartChar: line, not at the margin, says no name");
      if (name && (rc = s_name_prints(&cg, name, ks, ln.s, ln.n))) return rc;
      if (ln.n && ln.s[ln.n - 1] == '\\')
        return s_fail(&cg, ENS_EFORMAT, "its StartChar: line ends with a backslash, which SFD reads as going on");
      r.done[0] |= 1; /* StartChar: is printed from the name */
      p = ln.next;
      if (ln.next == e && e[-1] != '\n') r.open_line = 1;
      break;
    }
    if ((rc = s_read_text(&r, T_GLYPH, p, (size_t)(e - p), 0))) return rc;
  }
  for (uint32_t i = 0; i < g->nkids; i++) {
    const ens_obj *k = g->kids[i];
    if (s_is(k, ENS_SFD_RAW)) {
      if (s_text_of(k, "~text", &t, &tn) && (rc = s_read_text(&r, T_GLYPH, t, tn, 1))) return rc;
      continue;
    }
    if ((rc = s_follow(&r))) return rc;
    if (s_is(k, ENS_SFD_LAYER)) {
      if (!s_marker(k) && r.after_layer)
        return s_fail(&cg, ENS_EFORMAT, "a layer without a Fore, Back or Layer: line right after another would read as part of it");
      r.after_layer = 1;
      continue;
    }
    r.after_layer = 0;
  }
  if (s_text_of(g, "~tail", &t, &tn) && (rc = s_read_text(&r, T_GLYPH, t, tn, 0))) return rc;
  /* the writer ends a glyph without an EndChar line with one */
  if (!r.ended && r.open_line) return s_fail(&cg, ENS_EFORMAT, "its text does not end its last line");
  return 0;
}

/* Lines that say SplineSet / EndSplineSet, found as the writer looks for
 * them before wrapping contours in its own. */
static int s_has_set_word(const char *t, size_t tn) {
  for (const char *q = t; q < t + tn;) {
    ens__sfd_line ln;
    ens__sfd_line_at(q, t + tn, &ln);
    int w = ens__sfd_word(ln.s, ln.n);
    if (w == S_W_SPLINESET || w == S_W_ENDSPLINESET) return 1;
    q = ln.next;
  }
  return 0;
}

static int s_layer_seq(s_ctx *c, const ens_obj *l) {
  s_ctx cl = *c;
  cl.obj = l;
  s_reader r;
  memset(&r, 0, sizeof r);
  r.c = &cl;
  const char *h, *tl, *t;
  size_t hn, tln, tn;
  int rc;
  int has_head = s_text_of(l, "~head", &h, &hn);
  s_text_of(l, "~tail", &tl, &tln);
  const ens__prop *ip = s_get(l, "index");
  const char *p = h, *e = h + hn;
  int marker = 0;
  if (has_head && hn) {
    ens__sfd_line ln;
    ens__sfd_line_at(h, e, &ln);
    int w = ens__sfd_word(ln.s, ln.n);
    if (w == S_W_FORE || w == S_W_BACK || w == S_W_LAYER) {
      if (!ip) return s_fail(&cl, ENS_EFORMAT, "'~head' starts with a layer line but it has no 'index'");
      marker = w == S_W_LAYER ? 2 : 1;
      p = ln.next;
      if (ln.next == e && e[-1] != '\n') return s_fail(&cl, ENS_EFORMAT, "its layer line does not end");
    }
  }
  if (ip && ip->type != ENS_INT) return s_fail(&cl, ENS_ETYPE, "'index' must be an integer");
  if (ip) marker = ip->u.i == 0 || ip->u.i == 1 ? 1 : 2;
  uint32_t ncontours = 0;
  for (uint32_t i = 0; i < l->nkids; i++) ncontours += s_is(l->kids[i], ENS_SFD_CONTOUR);
  int saw_set = s_has_set_word(p, (size_t)(e - p)) || s_has_set_word(tl, tln);
  for (uint32_t i = 0; i < l->nkids && !saw_set; i++)
    if (s_is(l->kids[i], ENS_SFD_RAW) && s_text_of(l->kids[i], "~text", &t, &tn)) saw_set = s_has_set_word(t, tn);
  int wrap = ncontours && !saw_set;
  /* old files: points right after Fore or Back, without SplineSet */
  r.after_layer = 0;
  int first_item = 1;
  if (marker == 1) {
    const char *nx = NULL;
    size_t nn = 0;
    if (p < e) {
      nx = p;
      nn = (size_t)(e - p);
    } else if (l->nkids && s_is(l->kids[0], ENS_SFD_CONTOUR) && !wrap) {
      r.in_set = 1; /* the contour's m line is what makes it a SplineSet */
    } else if (l->nkids && s_is(l->kids[0], ENS_SFD_RAW)) {
      s_text_of(l->kids[0], "~text", &nx, &nn);
    } else if (!l->nkids && tln) {
      nx = tl;
      nn = tln;
    }
    if (nx && nn) {
      ens__sfd_line ln;
      ens__sfd_point pt;
      const char *why;
      ens__sfd_line_at(nx, nx + nn, &ln);
      if (ens__sfd_word(ln.s, ln.n) == S_W_NUMBER && ens__sfd_parse_point(ln.s, ln.n, &pt, &why) == 0 && pt.seg == 'm')
        return s_fail(&cl, ENS_EFORMAT, "a point line right after its layer line would read as a contour");
    }
  }
  if ((rc = s_read_text(&r, T_LAYER, p, (size_t)(e - p), 0))) return rc;
  if (!marker && (p < e)) first_item = 0;
  uint32_t seen = 0;
  for (uint32_t i = 0; i < l->nkids; i++) {
    const ens_obj *k = l->kids[i];
    if (s_is(k, ENS_SFD_RAW)) {
      if (s_text_of(k, "~text", &t, &tn) && (rc = s_read_text(&r, T_LAYER, t, tn, 1))) return rc;
      continue;
    }
    if ((rc = s_follow(&r))) return rc;
    if (s_is(k, ENS_SFD_CONTOUR)) {
      if (wrap && seen == 0) r.in_set = 1;
      if (!r.in_set) return s_fail(&cl, ENS_EFORMAT, "a contour outside its SplineSet would not read as one");
      if (++seen == ncontours && wrap) r.in_set = 0;
    } else if (s_is(k, ENS_SFD_REF)) {
      if (r.in_set) return s_fail(&cl, ENS_EFORMAT, "a reference inside its SplineSet would read as text");
    }
    first_item = 0;
  }
  (void)first_item;
  if ((rc = s_read_text(&r, T_LAYER, tl, tln, 0))) return rc;
  if (r.in_set) return s_fail(&cl, ENS_EFORMAT, "its SplineSet has no EndSplineSet");
  if (r.open_line) return s_fail(&cl, ENS_EFORMAT, "its text does not end its last line");
  return 0;
}

static int s_contour_text(s_ctx *c) {
  const char *t;
  size_t tn;
  if (!s_text_of(c->obj, "~text", &t, &tn) || !tn) return 0;
  if (t[tn - 1] != '\n') return s_fail(c, ENS_EFORMAT, "'~text' does not end its last line");
  const char *p = t, *e = t + tn;
  while (p < e) {
    ens__sfd_line ln;
    ens__sfd_line_at(p, e, &ln);
    if (ln.n > ENS_SFD_MAX_LINE) return s_fail(c, ENS_EFORMAT, "'~text' has a line longer than SFD reads");
    int w = ens__sfd_word(ln.s, ln.n);
    size_t len = (size_t)(ln.next - p);
    if (w != S_W_NUMBER && w != S_W_BLANK && w != S_W_NAMEDP) {
      uint32_t nl;
      len = ens__sfd_entry(p, e, &nl);
      if (!len) return s_fail(c, ENS_EFORMAT, "'~text' has a block without its end line");
    }
    if (w == S_W_ENDSPLINESET || w == S_W_ENDCHAR || w == S_W_STARTCHAR)
      return s_fail(c, ENS_EFORMAT, "'~text' has a line that would end its SplineSet or glyph");
    p += len;
  }
  return 0;
}

/* BeginChars, EndChars and EndSplineFont in a text of the font's own. */
static void s_scan_font_words(const char *t, size_t tn, int *in_chars, int *saw_end) {
  for (const char *q = t; q < t + tn;) {
    uint32_t nl;
    size_t len = ens__sfd_entry(q, t + tn, &nl);
    ens__sfd_line ln;
    ens__sfd_line_at(q, t + tn, &ln);
    int w = ens__sfd_word(ln.s, ln.n);
    if (w == S_W_BEGINCHARS) *in_chars = 1;
    else if (w == S_W_ENDCHARS) *in_chars = 0;
    else if (w == S_W_ENDSPLINEFONT) *saw_end = 1;
    if (!len) break;
    q += len;
  }
}

/* The font's text and glyphs as the reader will meet them. */
static int s_root_seq(s_ctx *c) {
  const ens_obj *root = c->doc->root;
  int dir = ens_sfd_is_dir(c->doc);
  s_reader r;
  memset(&r, 0, sizeof r);
  r.c = c;
  r.table = ens__sfd_root_keys;
  r.nkeys = ens__sfd_root_nkeys;
  const char *h, *tl, *t;
  size_t hn, tln, tn;
  int rc, in_chars = 0, saw_end = 0;
  int has_head = s_text_of(root, "~head", &h, &hn) && hn;
  s_text_of(root, "~tail", &tl, &tln);
  if (has_head && (hn < 13 || memcmp(h, "SplineFontDB:", 13) != 0))
    return s_fail(c, ENS_EFORMAT, "'~head' must start with its SplineFontDB: line");
  /* the writer drops a keyed line whose property is gone, this one from
   * the font's text too, and a file without it is no SFD file */
  if (!s_get(root, "SplineFontDB"))
    return s_fail(c, ENS_EFORMAT, "a font needs 'SplineFontDB', its first line, without which it does not read");
  if (!has_head && !dir) in_chars = saw_end = 1; /* the writer frames a font made from nothing */
  if ((rc = s_read_text(&r, T_ROOT, h, hn, 0))) return rc;
  s_scan_font_words(h, hn, &in_chars, &saw_end);
  for (uint32_t i = 0; i < root->nkids; i++) {
    const ens_obj *k = root->kids[i];
    if (s_is(k, ENS_SFD_RAW)) {
      if (s_text_of(k, "~text", &t, &tn)) {
        if ((rc = s_read_text(&r, T_ROOT, t, tn, 1))) return rc;
        s_scan_font_words(t, tn, &in_chars, &saw_end);
      }
      continue;
    }
    if (dir) continue; /* glyphs are files of their own */
    if ((rc = s_follow(&r))) return rc;
    if (!in_chars) return s_fail(c, ENS_EFORMAT, "a glyph outside BeginChars .. EndChars would not read");
  }
  if ((rc = s_read_text(&r, T_ROOT, tl, tln, 0))) return rc;
  s_scan_font_words(tl, tln, &in_chars, &saw_end);
  if (!saw_end) return s_fail(c, ENS_EFORMAT, "its text has no EndSplineFont line, without which it does not read");
  return 0;
}

/* --- once per transaction: glyph numbers, the font's own text -------------------------- */

enum { LATER_NUMBERS = 1, LATER_FONT = 2 };

/* Asks for a check of the whole font after every object was judged: many
 * glyphs of one transaction (a paste, a diff) each call for it. */
static int s_later(const ens_touch *t, unsigned what) {
  *t->later |= what;
  return 0;
}

static int s_final(const ens_doc *doc, unsigned later, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, doc->root, why, n};
  int rc = 0;
  if (later & LATER_FONT) rc = s_root_seq(&c);
  if (!rc && (later & LATER_NUMBERS)) {
    /* references must still name their glyph; a write must not fail */
    char msg[256];
    rc = ens__sfd_check_numbers(doc, msg, sizeof msg);
    if (rc && rc != ENS_ENOMEM) rc = s_fail(&c, ENS_EFORMAT, "%s", msg);
  }
  return rc;
}

/* --- the rules, by kind ---------------------------------------------------------------- */

static int s_rule_root(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, o, why, n};
  int rc = s_check_props(&c, NULL, 0, t, 1);
  if (!rc) s_later(t, LATER_FONT | ((t->what & ENS_TOUCH_KIDS) ? LATER_NUMBERS : 0));
  return rc;
}

static int s_rule_glyph(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, o, why, n};
  int rc = s_check_props(&c, s_glyph_keys, N(s_glyph_keys), t, 0);
  if (rc) return rc;
  if (!s_get(o, "encoding") != !s_get(o, "unicode"))
    return s_fail(&c, ENS_EFORMAT, "'encoding' and 'unicode' are one Encoding: line: both or neither");
  const char *h;
  size_t hn;
  const ens__prop *name = s_get(o, "name");
  int has_head = s_text_of(o, "~head", &h, &hn) && hn;
  if (!name && !has_head) return s_fail(&c, ENS_EFORMAT, "'name' is missing: its StartChar: line says one");
  /* without a head, its StartChar: line is printed afresh from the name */
  if (name && !has_head && (rc = s_name_prints(&c, name, NULL, NULL, 0))) return rc;
  if ((rc = s_glyph_seq(&c, o))) return rc;
  if (t->what & ENS_TOUCH_MOVED) s_later(t, LATER_FONT);
  if ((t->what & (ENS_TOUCH_NEW | ENS_TOUCH_MOVED)) || s_touched_key(t, "gid") || s_touched_key(t, "encoding"))
    s_later(t, LATER_NUMBERS);
  return rc;
}

static int s_rule_layer(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, o, why, n};
  int rc = s_check_props(&c, s_layer_keys, N(s_layer_keys), t, 0);
  if (!rc) rc = s_layer_seq(&c, o);
  /* whether it has a layer line decides how the glyph reads it */
  if (!rc && o->parent && (t->what & (ENS_TOUCH_PROPS | ENS_TOUCH_MOVED | ENS_TOUCH_NEW))) rc = s_glyph_seq(&c, o->parent);
  return rc;
}

static int s_rule_contour(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, o, why, n};
  int rc = s_check_props(&c, s_contour_keys, N(s_contour_keys), t, 0);
  if (!rc && s_touched_key(t, "~text")) rc = s_contour_text(&c);
  if (!rc && (t->what & ENS_TOUCH_KIDS) && o->nkids) {
    const ens_obj *first = o->kids[0];
    if (s_get(first, "c1x") || s_get(first, "c1y") || s_get(first, "c2x") || s_get(first, "c2y")) {
      c.obj = first;
      return s_fail(&c, ENS_EFORMAT, "the first point of a contour is an m line, which has no control points");
    }
  }
  if (!rc && (t->what & ENS_TOUCH_MOVED) && o->parent) rc = s_layer_seq(&c, o->parent);
  return rc;
}

static int s_rule_point(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, o, why, n};
  return s_point(&c, t);
}

static int s_rule_ref(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, o, why, n};
  int rc = s_ref(&c, t);
  if (!rc && (t->what & ENS_TOUCH_MOVED) && o->parent) rc = s_layer_seq(&c, o->parent);
  if (!rc && ((t->what & (ENS_TOUCH_NEW | ENS_TOUCH_MOVED)) || s_touched_key(t, "glyph"))) s_later(t, LATER_NUMBERS);
  return rc;
}

static int s_rule_anchor(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, o, why, n};
  return s_anchor(&c, t);
}

static int s_rule_kern(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, o, why, n};
  int rc = s_check_props(&c, s_kern_keys, N(s_kern_keys), t, 0);
  if (!rc) rc = s_head_rest(&c);
  if (!rc && ((t->what & (ENS_TOUCH_NEW | ENS_TOUCH_MOVED)) || s_touched_key(t, "glyph"))) s_later(t, LATER_NUMBERS);
  return rc;
}

static int s_rule_raw(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t n, void *u) {
  (void)u;
  s_ctx c = {doc, o, why, n};
  int rc = s_check_props(&c, s_raw_keys, N(s_raw_keys), t, 0);
  if (rc || !o->parent) return rc;
  /* raw text is read as part of its container */
  if (!o->parent->parent) return s_later(t, LATER_FONT);
  if (s_is(o->parent, ENS_SFD_GLYPH)) return s_glyph_seq(&c, o->parent);
  if (s_is(o->parent, ENS_SFD_LAYER)) return s_layer_seq(&c, o->parent);
  return 0;
}

/* --- the schema -------------------------------------------------------------------------- */

static ens_schema *s_schema;
static pthread_once_t s_once = PTHREAD_ONCE_INIT;

static void s_build(void) {
  ens_schema *s = ens_schema_new();
  static const struct {
    const char *kind, *parents;
    ens_schema_rule_fn fn;
  } kinds[] = {
      {ENS_SFD_KIND, "(root)", s_rule_root},           {ENS_SFD_GLYPH, ENS_SFD_KIND, s_rule_glyph},
      {ENS_SFD_LAYER, ENS_SFD_GLYPH, s_rule_layer},     {ENS_SFD_CONTOUR, ENS_SFD_LAYER, s_rule_contour},
      {ENS_SFD_POINT, ENS_SFD_CONTOUR, s_rule_point},   {ENS_SFD_REF, ENS_SFD_LAYER, s_rule_ref},
      {ENS_SFD_ANCHOR, ENS_SFD_GLYPH, s_rule_anchor},   {ENS_SFD_KERN, ENS_SFD_GLYPH, s_rule_kern},
      {ENS_SFD_RAW, ENS_SFD_KIND " " ENS_SFD_GLYPH " " ENS_SFD_LAYER, s_rule_raw},
  };
  int rc = s ? 0 : ENS_ENOMEM;
  for (size_t i = 0; !rc && i < N(kinds); i++) {
    rc = ens_schema_add_kind(s, kinds[i].kind, kinds[i].parents);
    if (!rc) rc = ens_schema_add_rule(s, kinds[i].kind, kinds[i].fn, NULL);
  }
  if (rc) {
    ens_schema_free(s);
    return;
  }
  ens_schema_set_final_rule(s, s_final, NULL);
  s_schema = s;
}

const ens_schema *ens_sfd_schema(void) {
  pthread_once(&s_once, s_build);
  if (!s_schema) ens__error(ENS_ENOMEM, "out of memory making the SFD schema");
  return s_schema;
}
