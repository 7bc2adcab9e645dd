/* Schemas: the kinds a document allows, where each may live, the types
 * of their declared properties, and rules that judge an object as a whole
 * once a transaction has changed it (a file format's, which know what its
 * writer can say). Small and linear: a format has tens of kinds and a
 * few rules, and checks compare short strings. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "doc.h"

typedef struct {
  char *key;
  ens_type type;
} s_prop_decl;

typedef struct {
  char *kind;
  char *parents; /* " a b c " with spaces around each, or NULL for any */
  s_prop_decl *props;
  size_t nprops;
} s_kind_decl;

typedef struct {
  char *kind; /* NULL: objects of every kind */
  ens_schema_rule_fn fn;
  void *user;
} s_rule;

struct ens_schema {
  s_kind_decl *kinds;
  size_t nkinds;
  s_rule *rules;
  size_t nrules;
  int open; /* kinds it does not declare are allowed anywhere */
  ens_schema_final_fn final;
  void *final_user;
};

ens_schema *ens_schema_new(void) {
  ens_schema *s = calloc(1, sizeof *s);
  if (!s) ens__error(ENS_ENOMEM, "out of memory creating a schema");
  return s;
}

void ens_schema_free(ens_schema *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nkinds; i++) {
    for (size_t j = 0; j < s->kinds[i].nprops; j++) free(s->kinds[i].props[j].key);
    free(s->kinds[i].props);
    free(s->kinds[i].kind);
    free(s->kinds[i].parents);
  }
  free(s->kinds);
  for (size_t i = 0; i < s->nrules; i++) free(s->rules[i].kind);
  free(s->rules);
  free(s);
}

static s_kind_decl *s_find(const ens_schema *s, const char *kind) {
  for (size_t i = 0; i < s->nkinds; i++)
    if (strcmp(s->kinds[i].kind, kind) == 0) return &s->kinds[i];
  return NULL;
}

int ens_schema_add_kind(ens_schema *s, const char *kind, const char *parents) {
  if (!s || !kind || !*kind) return ens__error(ENS_EINVAL, "schema kind needs a name");
  if (s_find(s, kind)) return ens__error(ENS_EEXISTS, "kind %s already declared", kind);
  s_kind_decl *kinds = realloc(s->kinds, (s->nkinds + 1) * sizeof *kinds);
  if (!kinds) return ens__error(ENS_ENOMEM, "out of memory");
  s->kinds = kinds;
  s_kind_decl *k = &kinds[s->nkinds];
  memset(k, 0, sizeof *k);
  k->kind = strdup(kind);
  if (parents && strcmp(parents, "*") != 0) {
    size_t n = strlen(parents);
    k->parents = malloc(n + 3);
    if (k->parents) {
      k->parents[0] = ' ';
      memcpy(k->parents + 1, parents, n);
      k->parents[n + 1] = ' ';
      k->parents[n + 2] = '\0';
    }
  }
  if (!k->kind || (parents && strcmp(parents, "*") != 0 && !k->parents)) {
    free(k->kind);
    free(k->parents);
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  s->nkinds++;
  return 0;
}

int ens_schema_add_prop(ens_schema *s, const char *kind, const char *key, ens_type type) {
  s_kind_decl *k = s ? s_find(s, kind) : NULL;
  if (!k) return ens__error(ENS_ENOTFOUND, "kind %s not declared", kind ? kind : "(null)");
  if (!key || !*key || type == ENS_NIL) return ens__error(ENS_EINVAL, "property needs a key and a type");
  s_prop_decl *props = realloc(k->props, (k->nprops + 1) * sizeof *props);
  if (!props) return ens__error(ENS_ENOMEM, "out of memory");
  k->props = props;
  props[k->nprops].key = strdup(key);
  if (!props[k->nprops].key) return ens__error(ENS_ENOMEM, "out of memory");
  props[k->nprops].type = type;
  k->nprops++;
  return 0;
}

int ens__schema_check_place(const ens_schema *s, const char *kind, const char *parent_kind) {
  if (!s) return 0;
  const s_kind_decl *k = s_find(s, kind);
  if (!k && s->open) return 0;
  if (!k) return ens__error(ENS_EKIND, "the document has no object of kind '%s' (its schema has none)", kind);
  if (!k->parents) return 0;
  size_t n = strlen(parent_kind);
  /* parents is " a b c ": compare whole space-separated tokens */
  for (const char *p = k->parents; *p;) {
    while (*p == ' ') p++;
    const char *end = p;
    while (*end && *end != ' ') end++;
    if ((size_t)(end - p) == n && n && memcmp(p, parent_kind, n) == 0) return 0;
    p = end;
  }
  return ens__error(ENS_EKIND, "a '%s' may not be placed under a '%s'", kind, parent_kind);
}

static const char *s_type_name(ens_type t) {
  switch (t) {
  case ENS_INT: return "an integer";
  case ENS_REAL: return "a real";
  case ENS_STR: return "a string";
  case ENS_BYTES: return "bytes";
  case ENS_BOOL: return "a boolean";
  case ENS_REF: return "a reference";
  default: return "nothing";
  }
}

int ens__schema_check_prop(const ens_schema *s, const char *kind, const char *key, ens_type type) {
  if (!s || type == ENS_NIL) return 0;
  const s_kind_decl *k = s_find(s, kind);
  if (!k && s->open) return 0;
  if (!k) return ens__error(ENS_EKIND, "the document has no object of kind '%s' (its schema has none)", kind);
  for (size_t i = 0; i < k->nprops; i++)
    if (strcmp(k->props[i].key, key) == 0) {
      if (k->props[i].type == type) return 0;
      return ens__error(ENS_ETYPE, "property '%s' of a '%s' must be %s, not %s", key, kind, s_type_name(k->props[i].type),
                        s_type_name(type));
    }
  return 0; /* undeclared properties are free: readers keep what they do not model */
}

void ens_schema_allow_other_kinds(ens_schema *s, int allow) {
  if (s) s->open = allow ? 1 : 0;
}

int ens_schema_add_rule(ens_schema *s, const char *kind, ens_schema_rule_fn fn, void *user) {
  if (!s || !fn || (kind && !*kind)) return ens__error(ENS_EINVAL, "a rule needs a schema, a function and a kind or NULL");
  s_rule *rules = realloc(s->rules, (s->nrules + 1) * sizeof *rules);
  if (!rules) return ens__error(ENS_ENOMEM, "out of memory");
  s->rules = rules;
  s_rule *r = &rules[s->nrules];
  r->kind = NULL;
  if (kind && !(r->kind = strdup(kind))) return ens__error(ENS_ENOMEM, "out of memory");
  r->fn = fn;
  r->user = user;
  s->nrules++;
  return 0;
}

int ens__schema_has_rules(const ens_schema *s) { return s && s->nrules; }

void ens_schema_set_final_rule(ens_schema *s, ens_schema_final_fn fn, void *user) {
  if (!s) return;
  s->final = fn;
  s->final_user = user;
}

int ens__schema_check_final(const ens_schema *s, const ens_doc *doc, unsigned later) {
  if (!later || !s->final) return 0;
  char why[320];
  why[0] = '\0';
  int rc = s->final(doc, later, why, sizeof why, s->final_user);
  if (rc == 0) return 0;
  if (rc > 0 || rc < ENS_EFORMAT) rc = ENS_EFORMAT;
  return ens__error(rc, "%s", why[0] ? why : "the document's format cannot hold this change");
}

int ens__schema_check_obj(const ens_schema *s, const ens_doc *doc, const ens_obj *obj, const ens_touch *touch) {
  const char *kind = ens_obj_kind(obj);
  for (size_t i = 0; i < s->nrules; i++) {
    const s_rule *r = &s->rules[i];
    if (r->kind && strcmp(r->kind, kind) != 0) continue;
    char why[320];
    why[0] = '\0';
    int rc = r->fn(doc, obj, touch, why, sizeof why, r->user);
    if (rc == 0) continue;
    if (rc > 0 || rc < ENS_EFORMAT) rc = ENS_EFORMAT;
    return ens__error(rc, "%s", why[0] ? why : "the document's format cannot hold this change");
  }
  return 0;
}
