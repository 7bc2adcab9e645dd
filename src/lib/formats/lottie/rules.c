/* The Lottie format's schema (ens_lottie_schema): what the writer can
 * write as JSON that reads back as the same document. Member names map to
 * property keys one to one; values are what JSON holds (finite numbers,
 * UTF-8 strings, booleans, null and arrays kept as their text); a member
 * object has a name no sibling has; kept text still parses; the top
 * object keeps the members that make it Lottie (docs/lottie.md). */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/error.h"
#include "../../util/utf8.h"
#include "lottie_int.h"

static int s_fail(const ens_obj *o, char *why, size_t size, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int s_fail(const ens_obj *o, char *why, size_t size, int code, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!o->parent) snprintf(why, size, "Lottie cannot hold this: the animation: %s", msg);
  else snprintf(why, size, "Lottie cannot hold this: a %.40s (%#llx): %s", o->kind, (unsigned long long)o->id, msg);
  return code;
}

static const ens__prop *s_get(const ens_obj *o, const char *key) {
  for (uint32_t i = 0; i < o->nprops; i++)
    if (o->props[i].type != ENS_NIL && strcmp(ens__prop_key(o, &o->props[i]), key) == 0) return &o->props[i];
  return NULL;
}

static int s_known_kind(const char *k) {
  static const char *const kinds[] = {ENS_LOTTIE_LIST,   ENS_LOTTIE_LAYER,     ENS_LOTTIE_SHAPE,    ENS_LOTTIE_KEYFRAME,
                                      ENS_LOTTIE_ASSET,  ENS_LOTTIE_MARKER,    ENS_LOTTIE_EFFECT,   ENS_LOTTIE_MASK,
                                      ENS_LOTTIE_TRANSFORM, ENS_LOTTIE_PROPERTY, ENS_LOTTIE_OBJECT};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(k, kinds[i]) == 0) return 1;
  return 0;
}

static int s_is_list(const ens_obj *o) { return strcmp(o->kind, ENS_LOTTIE_LIST) == 0; }

/* A raw value (BYTES): null, or an array that the reader keeps as text. */
static int s_raw_ok(const char *name, const char *s, size_t n) {
  if (n == 4 && memcmp(s, "null", 4) == 0) return 1;
  ens__lj_nodes nodes = {0};
  int ok = 0;
  if (n && s[0] == '[' && ens__lj_scan(s, n, 0, &nodes) == 0 && nodes.n && nodes.v[0].s == s && nodes.v[0].n == n) {
    const ens__lj_node *t = &nodes.v[0];
    ok = t->type == LJ_ARR && !ens__lj_promote_array(name, name ? strlen(name) : 0, t->nkids, t->nobjs);
    /* in its canonical text, which is what the file reads back as */
    ens_buf c = ENS_BUF_INIT;
    ok = ok && ens__lj_canon(s, n, &c) == 0 && c.len == n && memcmp(c.data, s, n) == 0;
    ens__buf_free(&c);
  }
  free(nodes.v);
  ens__error_clear();
  return ok;
}

static int s_src_ok(const ens_obj *o, const ens__prop *p) {
  if (p->type != ENS_BYTES) return 0;
  const char *s = p->u.s, *end = s + p->len;
  while (s < end && ens__lj_ws(*s)) s++;
  if (s >= end || *s != (s_is_list(o) ? '[' : '{')) return 0;
  int rc = ens__lj_scan(p->u.s, p->len, 1, NULL);
  ens__error_clear();
  return rc == 0;
}

static int s_props(const ens_obj *o, char *why, size_t size) {
  int list = s_is_list(o);
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL) continue;
    const char *key = ens__prop_key(o, p);
    if (strcmp(key, ENS_LOTTIE_SRC) == 0) {
      if (!s_src_ok(o, p))
        return s_fail(o, why, size, ENS_EFORMAT, "its kept text (%s) is not the JSON %s it stands for", key,
                      list ? "array" : "object");
      continue;
    }
    if (strcmp(key, ENS__LJ_CONTAINER) == 0 || strcmp(key, ENS__LJ_ZIP) == 0 || strcmp(key, ENS__LJ_ENTRY) == 0) {
      /* the container the file came in: the reader's to set */
      if (o->parent) return s_fail(o, why, size, ENS_EFORMAT, "'%s' is the animation's own", key);
      int ok = strcmp(key, ENS__LJ_ZIP) == 0 ? p->type == ENS_BYTES && ens__lj_is_zip(p->u.s, p->len)
               : strcmp(key, ENS__LJ_ENTRY) == 0
                   ? p->type == ENS_STR && p->len && ens__utf8_valid(p->u.s, p->len)
                   : p->type == ENS_STR && ((p->len == 4 && memcmp(p->u.s, "gzip", 4) == 0) ||
                                            (p->len == 3 && memcmp(p->u.s, "zip", 3) == 0));
      if (!ok) return s_fail(o, why, size, ENS_EFORMAT, "'%s' does not say a container the writer knows", key);
      continue;
    }
    if (strcmp(key, ENS_LOTTIE_KEY) == 0) {
      if (p->type != ENS_STR || !ens__utf8_valid(p->u.s, p->len))
        return s_fail(o, why, size, ENS_ETYPE, "its member name (%s) must be a UTF-8 string", key);
      continue;
    }
    const char *name = ens__lj_member_name(key);
    if (!name)
      return s_fail(o, why, size, ENS_EFORMAT, "'%.60s' names no member: a member whose name starts with '~', '@' "
                                               "or '%%', or is empty, is held as '%%' and its name", key);
    if (list) return s_fail(o, why, size, ENS_EKIND, "an array has elements, not members ('%.60s')", name);
    /* a value under the name of a member object would write the name twice */
    for (uint32_t k = 0; k < o->nkids; k++) {
      const ens__prop *kk = s_get(o->kids[k], ENS_LOTTIE_KEY);
      if (kk && kk->type == ENS_STR && kk->len == strlen(name) && memcmp(kk->u.s, name, kk->len) == 0)
        return s_fail(o, why, size, ENS_EFORMAT, "its object already has a member \"%.60s\"", name);
    }
    switch (p->type) {
    case ENS_INT:
    case ENS_BOOL: break;
    case ENS_REAL:
      if (!isfinite(p->u.r)) return s_fail(o, why, size, ENS_ETYPE, "'%.60s' is not a finite number, which JSON has not", name);
      break;
    case ENS_STR:
      if (!ens__utf8_valid(p->u.s, p->len)) return s_fail(o, why, size, ENS_ETYPE, "'%.60s' is not UTF-8 text", name);
      break;
    case ENS_BYTES:
      if (!s_raw_ok(name, p->u.s, p->len))
        return s_fail(o, why, size, ENS_ETYPE, "'%.60s' holds bytes that are neither null nor an array of values "
                                               "in canonical JSON (no blanks; an array of objects is a list)", name);
      break;
    default: return s_fail(o, why, size, ENS_ETYPE, "'%.60s' is a reference, which JSON has not", name);
    }
  }
  return 0;
}

/* A child of an object has a member name no sibling has, nor a property
 * of its parent; a child of a list has none. */
static int s_place(const ens_obj *o, char *why, size_t size) {
  const ens_obj *parent = o->parent;
  const ens__prop *k = s_get(o, ENS_LOTTIE_KEY);
  if (s_is_list(parent)) {
    if (k) return s_fail(o, why, size, ENS_EFORMAT, "an element of an array has no member name (%s)", ENS_LOTTIE_KEY);
    if (s_is_list(o)) return s_fail(o, why, size, ENS_EKIND, "an array of arrays is kept as the text of its values");
    return 0;
  }
  if (!k) return s_fail(o, why, size, ENS_EFORMAT, "a member of an object needs its name (%s)", ENS_LOTTIE_KEY);
  for (uint32_t i = 0; i < parent->nkids; i++) {
    const ens_obj *sib = parent->kids[i];
    if (sib == o) continue;
    const ens__prop *sk = s_get(sib, ENS_LOTTIE_KEY);
    if (sk && sk->type == ENS_STR && sk->len == k->len && memcmp(sk->u.s, k->u.s, k->len) == 0)
      return s_fail(o, why, size, ENS_EFORMAT, "its object already has a member \"%.60s\"", k->u.s);
  }
  char buf[ENS_MAX_KEY + 1];
  size_t bn = ens__lj_prop_key(k->u.s, k->len, buf);
  if (!bn) return s_fail(o, why, size, ENS_EFORMAT, "a member name too long or holding U+0000");
  if (s_get(parent, buf)) return s_fail(o, why, size, ENS_EFORMAT, "its object already has a member \"%.60s\"", k->u.s);
  return 0;
}

static int s_has_member(const ens_obj *o, const char *name) {
  if (s_get(o, name)) return 1;
  for (uint32_t i = 0; i < o->nkids; i++) {
    const ens__prop *k = s_get(o->kids[i], ENS_LOTTIE_KEY);
    if (k && k->type == ENS_STR && strlen(name) == k->len && memcmp(k->u.s, name, k->len) == 0) return 1;
  }
  return 0;
}

static int s_rule(const ens_doc *doc, const ens_obj *o, const ens_touch *t, char *why, size_t size, void *u) {
  (void)doc;
  (void)u;
  int rc;
  if (!o->parent) {
    static const char *const needed[] = {"fr", "ip", "op", "layers"};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
      if (!s_has_member(o, needed[i]))
        return s_fail(o, why, size, ENS_EFORMAT, "a Lottie animation keeps its \"%s\" (fr, ip, op, layers)", needed[i]);
  } else {
    if (!s_known_kind(o->kind)) return s_fail(o, why, size, ENS_EKIND, "'%.60s' is no kind of the Lottie mapping", o->kind);
    if ((t->what & (ENS_TOUCH_NEW | ENS_TOUCH_MOVED | ENS_TOUCH_PROPS)) && (rc = s_place(o, why, size))) return rc;
  }
  if ((t->what & (ENS_TOUCH_NEW | ENS_TOUCH_PROPS)) && (rc = s_props(o, why, size))) return rc;
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

const ens_schema *ens_lottie_schema(void) {
  pthread_once(&s_once, s_build);
  if (!s_schema) ens__error(ENS_ENOMEM, "out of memory making the Lottie schema");
  return s_schema;
}
