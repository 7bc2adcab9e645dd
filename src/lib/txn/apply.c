/* The apply engine: validates and applies operations one by one, records
 * each one's inverse, and on the first failure applies the recorded
 * inverses backwards so the document is exactly as before. When the
 * document's schema has rules, each object the transaction touched is
 * then judged as it was left, and a refusal rolls the whole transaction
 * back the same way. Remote writes are stamped with the document clock so
 * that undo can tell a collaborator's newer change from its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "ops.h"

static const char *s_op_name(int kind) {
  switch (kind) {
  case ENS_OP_SET: return "set";
  case ENS_OP_INSERT: return "insert";
  case ENS_OP_DELETE: return "delete";
  case ENS_OP_MOVE: return "move";
  default: return "?";
  }
}

static char *s_dup(const char *s) {
  size_t n = strlen(s);
  char *c = malloc(n + 1);
  if (c) memcpy(c, s, n + 1);
  return c;
}

/* --- deep copies ---------------------------------------------------------- */

static struct ens_node *s_node_dup(const struct ens_node *n) {
  struct ens_node *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->id = n->id;
  c->kind = s_dup(n->kind);
  c->pos = s_dup(n->pos);
  c->props = n->nprops ? calloc(n->nprops, sizeof *c->props) : NULL;
  c->kids = n->nkids ? calloc(n->nkids, sizeof *c->kids) : NULL;
  if (!c->kind || !c->pos || (n->nprops && !c->props) || (n->nkids && !c->kids)) goto oom;
  c->capprops = n->nprops;
  c->capkids = n->nkids;
  for (uint32_t i = 0; i < n->nprops; i++) {
    c->props[i].key = s_dup(n->props[i].key);
    if (!c->props[i].key) goto oom;
    if (ens__value_dup(&n->props[i].value, &c->props[i].value) != 0) {
      free(c->props[i].key);
      goto oom;
    }
    c->nprops++;
  }
  for (uint32_t i = 0; i < n->nkids; i++) {
    if (!(c->kids[i] = s_node_dup(n->kids[i]))) goto oom;
    c->nkids++;
  }
  return c;
oom:
  ens__node_free(c);
  return NULL;
}

static int s_op_dup(const ens__op *op, ens__op *out) {
  memset(out, 0, sizeof *out);
  out->kind = op->kind;
  out->target = op->target;
  out->parent = op->parent;
  if ((op->str && !(out->str = s_dup(op->str))) || ens__value_dup(&op->value, &out->value) != 0 ||
      (op->node && !(out->node = s_node_dup(op->node)))) {
    ens__op_release(out);
    return ens__error(ENS_ENOMEM, "out of memory copying an operation");
  }
  return 0;
}

/* --- capture: the subtree of an object as an insert node ------------------ */

static struct ens_node *s_capture(const ens_obj *o) {
  struct ens_node *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->id = o->id;
  n->kind = s_dup(o->kind);
  n->pos = s_dup(ens__obj_pos(o));
  uint32_t np = 0;
  for (uint32_t i = 0; i < o->nprops; i++)
    np += o->props[i].type != ENS_NIL && !ens__prop_is_local(o, &o->props[i]);
  n->props = np ? calloc(np, sizeof *n->props) : NULL;
  n->kids = o->nkids ? calloc(o->nkids, sizeof *n->kids) : NULL;
  if (!n->kind || !n->pos || (np && !n->props) || (o->nkids && !n->kids)) goto oom;
  n->capprops = np;
  n->capkids = o->nkids;
  for (uint32_t i = 0; i < o->nprops; i++) {
    const ens__prop *p = &o->props[i];
    if (p->type == ENS_NIL || ens__prop_is_local(o, p)) continue;
    ens__kv *kv = &n->props[n->nprops];
    ens_value v = ens__prop_value(p);
    if (!(kv->key = s_dup(ens__prop_key(o, p)))) goto oom;
    if (ens__value_dup(&v, &kv->value) != 0) {
      free(kv->key);
      goto oom;
    }
    n->nprops++;
  }
  for (uint32_t i = 0; i < o->nkids; i++) {
    if (!(n->kids[i] = s_capture(o->kids[i]))) goto oom;
    n->nkids++;
  }
  return n;
oom:
  ens__node_free(n);
  return NULL;
}

/* --- objects a transaction touched, for the schema's rules ------------------ */

typedef struct {
  ens_id id;
  unsigned what;   /* ENS_TOUCH_* */
  const char *key; /* interned: the key a set changed, or NULL */
} s_touch;

typedef struct {
  s_touch *v;
  size_t n, cap;
  int oom;
  s_touch small[8];
} s_touched;

static void s_touched_init(s_touched *t) {
  t->v = t->small;
  t->n = 0;
  t->cap = sizeof t->small / sizeof t->small[0];
  t->oom = 0;
}

static void s_touched_free(s_touched *t) {
  if (t && t->v != t->small) free(t->v);
}

static void s_touch_add(s_touched *t, ens_id id, unsigned what, const char *key) {
  if (!t) return;
  const s_touch *last = t->n ? &t->v[t->n - 1] : NULL;
  if (last && last->id == id && last->what == what && last->key == key) return; /* a drag: the same set again */
  if (t->n == t->cap) {
    size_t cap = t->cap * 2;
    s_touch *v = t->v == t->small ? malloc(cap * sizeof *v) : realloc(t->v, cap * sizeof *v);
    if (!v) {
      t->oom = 1;
      return;
    }
    if (t->v == t->small) memcpy(v, t->small, sizeof t->small);
    t->v = v;
    t->cap = cap;
  }
  t->v[t->n++] = (s_touch){id, what, key};
}

static void s_touch_node(s_touched *t, const struct ens_node *n) {
  s_touch_add(t, n->id, ENS_TOUCH_NEW | ENS_TOUCH_PROPS | ENS_TOUCH_KIDS, NULL);
  for (uint32_t i = 0; i < n->nkids; i++) s_touch_node(t, n->kids[i]);
}

static int s_touch_cmp(const void *a, const void *b) {
  const s_touch *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (uintptr_t)x->key < (uintptr_t)y->key ? -1 : (uintptr_t)x->key > (uintptr_t)y->key;
}

#define S_TOUCH_KEYS 32

/* The rules of doc's schema on every object touched that is still there. */
static int s_judge(ens_doc *doc, s_touched *t) {
  if (t->oom) return ens__error(ENS_ENOMEM, "out of memory checking a transaction");
  if (t->n > 1) qsort(t->v, t->n, sizeof *t->v, s_touch_cmp);
  const char *keys[S_TOUCH_KEYS];
  unsigned later = 0;
  for (size_t i = 0; i < t->n;) {
    ens_id id = t->v[i].id;
    ens_touch touch = {0, keys, 0, &later};
    for (; i < t->n && t->v[i].id == id; i++) {
      const s_touch *x = &t->v[i];
      touch.what |= x->what;
      if (x->what & ENS_TOUCH_NEW) touch.keys = NULL; /* all of its properties are new */
      if (!x->key || !touch.keys) continue;
      if (touch.nkeys && touch.keys[touch.nkeys - 1] == x->key) continue; /* sorted: repeats are neighbours */
      if (touch.nkeys == S_TOUCH_KEYS) touch.keys = NULL;
      else keys[touch.nkeys++] = x->key;
    }
    if (!touch.keys) touch.nkeys = 0;
    const ens_obj *o = ens__doc_lookup(doc, id);
    if (!o) continue; /* deleted later in the transaction */
    int rc = ens__schema_check_obj(doc->schema, doc, o, &touch);
    if (rc) return rc;
  }
  return ens__schema_check_final(doc->schema, doc, later);
}

/* --- single operations ---------------------------------------------------- */

static int s_reserve(ens_txn *inv) {
  if (!inv || inv->nops < inv->capops) return 0;
  size_t cap = inv->capops ? inv->capops * 2 : 2;
  ens__op *ops = realloc(inv->ops, cap * sizeof *ops);
  if (!ops) return ens__error(ENS_ENOMEM, "out of memory recording an inverse");
  inv->ops = ops;
  inv->capops = cap;
  return 0;
}

static ens_obj *s_find(ens_doc *doc, ens_id id, const char *role) {
  ens_obj *o = ens__doc_lookup(doc, id);
  if (!o) ens__error(ENS_ENOTFOUND, "no %s object %#llx", role, (unsigned long long)id);
  return o;
}

static size_t s_node_height(const struct ens_node *n, size_t limit) {
  if (limit == 0) return 1; /* deeper than allowed already: caller refuses */
  size_t best = 0;
  for (uint32_t i = 0; i < n->nkids; i++) {
    size_t h = s_node_height(n->kids[i], limit - 1);
    if (h > best) best = h;
  }
  return best + 1;
}

static int s_check_value(const ens_value *v) {
  if ((v->type == ENS_STR || v->type == ENS_BYTES) && v->u.s.len > UINT32_MAX - 1)
    return ens__error(ENS_ELIMIT, "value over 4 GiB");
  if (v->type > ENS_REF) return ens__error(ENS_ETYPE, "unknown value type %d", (int)v->type);
  return 0;
}

static int s_check_pos(const char *pos, size_t plen) {
  if (plen > ENS_MAX_POS) return ens__error(ENS_ELIMIT, "a position of %zu bytes is over the limit of %d", plen, ENS_MAX_POS);
  if (!ens_pos_valid(pos, plen)) return ens__error(ENS_EINVAL, "bad position '%.40s'", pos ? pos : "");
  return 0;
}

/* A label or author over the limits would not encode into what a decoder
 * takes: refused here as the builders refuse it. */
static int s_check_text(const ens_txn *txn) {
  size_t n = txn->label ? strlen(txn->label) : 0;
  if (n > ENS_MAX_LABEL) return ens__error(ENS_ELIMIT, "a label of %zu bytes is over the limit of %d", n, ENS_MAX_LABEL);
  n = txn->author ? strlen(txn->author) : 0;
  if (n > ENS_MAX_AUTHOR) return ens__error(ENS_ELIMIT, "an author of %zu bytes is over the limit of %d", n, ENS_MAX_AUTHOR);
  return 0;
}

static int s_create(ens_doc *doc, ens_obj *parent, const struct ens_node *n, uint64_t stamp,
                    ens_obj **created) {
  *created = NULL;
  size_t plen = strlen(n->pos);
  int rc = s_check_pos(n->pos, plen);
  if (rc) return rc;
  if (!*n->kind) return ens__error(ENS_EINVAL, "an object needs a kind");
  size_t klen = strlen(n->kind);
  if (klen > ENS_MAX_KIND) return ens__error(ENS_ELIMIT, "a kind of %zu bytes is over the limit of %d", klen, ENS_MAX_KIND);
  if ((rc = ens__schema_check_place(doc->schema, n->kind, parent->kind))) return rc;
  const char *kind = ens__atom(doc, n->kind, klen);
  if (!kind) return ENS_ENOMEM;
  ens_obj *o = ens__obj_create(doc, n->id, kind, parent, n->pos, plen);
  if (!o) return n->id == ENS_ID_NONE ? ENS_EINVAL : ens__doc_lookup(doc, n->id) ? ENS_EEXISTS : ENS_ENOMEM;
  if (stamp && (rc = ens__stamp_reserve(doc, 1 + (size_t)n->nprops))) goto fail;
  if (stamp) ens__stamp_set(doc, o, ENS__STAMP_OBJ, stamp);
  for (uint32_t i = 0; i < n->nprops; i++) {
    const ens__kv *kv = &n->props[i];
    if (ens__key_is_local(kv->key)) {
      rc = ens__error(ENS_EINVAL, "local-only property '%s' in an insert", kv->key);
      goto fail;
    }
    size_t keylen = strlen(kv->key);
    if (keylen > ENS_MAX_KEY) {
      rc = ens__error(ENS_ELIMIT, "a property key of %zu bytes is over the limit of %d", keylen, ENS_MAX_KEY);
      goto fail;
    }
    if ((rc = s_check_value(&kv->value)) || (rc = ens__schema_check_prop(doc->schema, kind, kv->key, kv->value.type)))
      goto fail;
    const char *key = ens__atom(doc, kv->key, keylen);
    ens__prop *slot = NULL;
    if (!key) { rc = ENS_ENOMEM; goto fail; }
    if ((rc = ens__obj_set_prop(doc, o, key, &kv->value, &slot))) goto fail;
    if (slot && stamp) ens__stamp_set(doc, o, (uint32_t)(slot - o->props), stamp);
  }
  for (uint32_t i = 0; i < n->nkids; i++) {
    ens_obj *kid;
    if ((rc = s_create(doc, o, n->kids[i], stamp, &kid))) goto fail;
  }
  *created = o;
  return 0;
fail:
  ens__obj_destroy(doc, o);
  return rc;
}

/* Applies one operation; on success appends its inverse to inv (when not
 * NULL) and notes what it touched in tc (when not NULL). stamp is nonzero
 * for a remote transaction. */
static int s_apply_op(ens_doc *doc, const ens__op *op, int local_only, uint64_t stamp, ens_txn *inv,
                      s_touched *tc) {
  int rc;
  if (local_only && op->kind != ENS_OP_SET)
    return ens__error(ENS_EINVAL, "a local-only transaction may only set local properties");
  if ((rc = s_reserve(inv))) return rc;
  ens__op back = {0};

  switch (op->kind) {
  case ENS_OP_SET: {
    ens_obj *o = s_find(doc, op->target, "target");
    if (!o) return ENS_ENOTFOUND;
    if (!op->str || !*op->str) return ens__error(ENS_EINVAL, "empty property key");
    size_t keylen = strlen(op->str);
    if (keylen > ENS_MAX_KEY)
      return ens__error(ENS_ELIMIT, "a property key of %zu bytes is over the limit of %d", keylen, ENS_MAX_KEY);
    if (ens__key_is_local(op->str) != !!local_only)
      return ens__error(ENS_EINVAL, local_only ? "a local-only transaction may only set '@' properties"
                                               : "property '%s' is local-only: use a local-only transaction",
                        op->str);
    if ((rc = s_check_value(&op->value))) return rc;
    if ((rc = ens__schema_check_prop(doc->schema, o->kind, op->str, op->value.type))) return rc;
    const char *key = ens__atom(doc, op->str, keylen);
    if (!key) return ENS_ENOMEM;
    if (stamp && (rc = ens__stamp_reserve(doc, 2))) return rc;
    ens__prop *p = ens__obj_find_prop(o, key);
    if (inv) {
      ens_value old = p ? ens__prop_value(p) : ens_nil();
      back.kind = ENS_OP_SET;
      back.target = o->id;
      if (!(back.str = s_dup(key)) || ens__value_dup(&old, &back.value)) {
        ens__op_release(&back);
        return ens__error(ENS_ENOMEM, "out of memory recording an inverse");
      }
    }
    if ((rc = ens__obj_set_prop(doc, o, key, &op->value, &p))) {
      ens__op_release(&back);
      return rc;
    }
    if (stamp) {
      ens__stamp_set(doc, o, ENS__STAMP_OBJ, stamp);
      if (p) ens__stamp_set(doc, o, (uint32_t)(p - o->props), stamp);
    }
    if (!local_only) s_touch_add(tc, o->id, ENS_TOUCH_PROPS, key);
    break;
  }
  case ENS_OP_INSERT: {
    ens_obj *parent = s_find(doc, op->target, "parent");
    if (!parent) return ENS_ENOTFOUND;
    if (!op->node) return ens__error(ENS_EINVAL, "insert without an object");
    size_t depth = ens__obj_depth(parent);
    if (depth + s_node_height(op->node, ENS_MAX_DEPTH) > ENS_MAX_DEPTH)
      return ens__error(ENS_ELIMIT, "objects nested deeper than %d", ENS_MAX_DEPTH);
    ens_obj *o;
    if (stamp && (rc = ens__stamp_reserve(doc, 1))) return rc;
    if ((rc = s_create(doc, parent, op->node, stamp, &o))) return rc;
    if (stamp) ens__stamp_set(doc, parent, ENS__STAMP_OBJ, stamp);
    back.kind = ENS_OP_DELETE;
    back.target = o->id;
    s_touch_add(tc, parent->id, ENS_TOUCH_KIDS, NULL);
    if (tc) s_touch_node(tc, op->node);
    break;
  }
  case ENS_OP_DELETE: {
    ens_obj *o = s_find(doc, op->target, "target");
    if (!o) return ENS_ENOTFOUND;
    if (!o->parent) return ens__error(ENS_EINVAL, "the root cannot be deleted");
    if (inv) {
      back.kind = ENS_OP_INSERT;
      back.target = o->parent->id;
      if (!(back.node = s_capture(o))) return ens__error(ENS_ENOMEM, "out of memory recording an inverse");
    }
    if (stamp && (rc = ens__stamp_reserve(doc, 1))) {
      ens__op_release(&back);
      return rc;
    }
    if (stamp) ens__stamp_set(doc, o->parent, ENS__STAMP_OBJ, stamp);
    s_touch_add(tc, o->parent->id, ENS_TOUCH_KIDS, NULL);
    ens__obj_destroy(doc, o);
    break;
  }
  case ENS_OP_MOVE: {
    ens_obj *o = s_find(doc, op->target, "target");
    if (!o) return ENS_ENOTFOUND;
    ens_obj *parent = s_find(doc, op->parent, "new parent");
    if (!parent) return ENS_ENOTFOUND;
    if (!o->parent) return ens__error(ENS_EINVAL, "the root cannot be moved");
    size_t plen = op->str ? strlen(op->str) : 0;
    if ((rc = s_check_pos(op->str, plen))) return rc;
    size_t depth = 0;
    for (const ens_obj *a = parent; a; a = a->parent, depth++)
      if (a == o) return ens__error(ENS_ECYCLE, "moving %#llx under %#llx would make a cycle",
                                    (unsigned long long)o->id, (unsigned long long)parent->id);
    if (depth - 1 + ens__obj_height(o) > ENS_MAX_DEPTH)
      return ens__error(ENS_ELIMIT, "objects nested deeper than %d", ENS_MAX_DEPTH);
    if ((rc = ens__schema_check_place(doc->schema, o->kind, parent->kind))) return rc;
    if (inv) {
      back.kind = ENS_OP_MOVE;
      back.target = o->id;
      back.parent = o->parent->id;
      if (!(back.str = s_dup(ens__obj_pos(o)))) return ens__error(ENS_ENOMEM, "out of memory recording an inverse");
    }
    ens_obj *old_parent = o->parent;
    if ((stamp && (rc = ens__stamp_reserve(doc, 4))) || (rc = ens__obj_move(doc, o, parent, op->str, plen))) {
      ens__op_release(&back);
      return rc;
    }
    if (stamp) {
      ens__stamp_set(doc, o, ENS__STAMP_MOVE, stamp);
      ens__stamp_set(doc, o, ENS__STAMP_OBJ, stamp);
      ens__stamp_set(doc, old_parent, ENS__STAMP_OBJ, stamp);
      ens__stamp_set(doc, parent, ENS__STAMP_OBJ, stamp);
    }
    s_touch_add(tc, old_parent->id, ENS_TOUCH_KIDS, NULL);
    if (parent != old_parent) s_touch_add(tc, parent->id, ENS_TOUCH_KIDS, NULL);
    s_touch_add(tc, o->id, ENS_TOUCH_MOVED, NULL);
    break;
  }
  default:
    return ens__error(ENS_EINVAL, "unknown operation %d", op->kind);
  }
  if (inv) inv->ops[inv->nops++] = back;
  return 0;
}

static void s_rollback(ens_doc *doc, ens_txn *inv) {
  /* Inverses of operations that applied; each is valid in the state it
   * restores. The schema is set aside: it judges new changes, and a
   * document that came in not conforming to it (a snapshot, a file) must
   * still get back exactly what it had. */
  const ens_schema *schema = doc->schema;
  doc->schema = NULL;
  while (inv->nops) {
    ens__op *op = &inv->ops[--inv->nops];
    s_apply_op(doc, op, inv->local_only, 0, NULL, NULL);
    ens__op_release(op);
  }
  doc->schema = schema;
}

int ens_doc_apply(ens_doc *doc, const ens_txn *txn, ens_origin origin, ens_txn **inverse) {
  if (inverse) *inverse = NULL;
  if (!doc || !txn) return ens__error(ENS_EINVAL, "apply needs a document and a transaction");
  if ((origin == ENS_ORIGIN_LOCAL_ONLY) != !!txn->local_only)
    return ens__error(ENS_EINVAL, "local-only transactions apply with origin local-only, and only they");
  int text_rc = s_check_text(txn);
  if (text_rc) return text_rc;
  /* rules judge the objects as the whole transaction leaves them (a point
   * may need two of its properties set before it reads back), so a
   * refusal comes after the operations and needs their inverses */
  s_touched touched, *tc = NULL;
  if (!txn->local_only && ens__schema_has_rules(doc->schema)) {
    s_touched_init(&touched);
    tc = &touched;
  }
  /* a single operation fails before it changes anything: no rollback
   * needed; observers of a change that is sent are given its inverse (a
   * session takes it off and puts it back with it) */
  ens_txn *inv = NULL;
  if (inverse || txn->nops > 1 || tc || (doc->nobservers && origin != ENS_ORIGIN_REMOTE)) {
    inv = ens_txn_new(txn->label, txn->author);
    if (!inv) return ENS_ENOMEM;
    inv->local_only = txn->local_only;
  }
  uint64_t stamp = origin == ENS_ORIGIN_REMOTE ? doc->clock + 1 : 0;
  for (size_t i = 0; i < txn->nops; i++) {
    int rc = s_apply_op(doc, &txn->ops[i], txn->local_only, stamp, inv, tc);
    if (rc) {
      char msg[256];
      snprintf(msg, sizeof msg, "%s", ens_error_last());
      if (inv) s_rollback(doc, inv);
      ens_txn_free(inv);
      s_touched_free(tc);
      return ens__error(rc, "op %zu (%s %#llx): %s", i, s_op_name(txn->ops[i].kind),
                        (unsigned long long)ens_txn_op_target(txn, i), msg);
    }
  }
  if (tc) {
    int rc = s_judge(doc, tc);
    s_touched_free(tc);
    if (rc) {
      char msg[400];
      snprintf(msg, sizeof msg, "%s", ens_error_last());
      s_rollback(doc, inv);
      ens_txn_free(inv);
      return ens__error(rc, "%s", msg);
    }
  }
  doc->clock++;
  if (inv) ens__txn_reverse(inv);
  ens__doc_notify(doc, txn, inv, origin);
  if (inverse) {
    *inverse = inv;
  } else {
    ens_txn_free(inv);
  }
  return 0;
}

int ens__doc_apply_unchecked(ens_doc *doc, const ens_txn *txn, ens_origin origin, ens_txn **inverse) {
  const ens_schema *schema = doc ? doc->schema : NULL;
  if (doc) doc->schema = NULL;
  int rc = ens_doc_apply(doc, txn, origin, inverse);
  if (doc) doc->schema = schema;
  return rc;
}

int ens__doc_apply_lenient(ens_doc *doc, const ens_txn *txn, ens_origin origin, ens__op_filter filter,
                           void (*on_skip)(const ens__op *op, int reason, void *user), void *user,
                           ens_txn **applied_out, ens_txn **inverse_out) {
  *applied_out = *inverse_out = NULL;
  int text_rc = s_check_text(txn);
  if (text_rc) return text_rc;
  ens_txn *applied = ens_txn_new(txn->label, txn->author);
  ens_txn *inv = ens_txn_new(txn->label, txn->author);
  if (!applied || !inv) {
    ens_txn_free(applied);
    ens_txn_free(inv);
    return ENS_ENOMEM;
  }
  applied->local_only = inv->local_only = txn->local_only;
  s_touched touched, *tc = NULL;
  if (!txn->local_only && ens__schema_has_rules(doc->schema)) {
    s_touched_init(&touched);
    tc = &touched;
  }
  for (size_t i = 0; i < txn->nops; i++) {
    const ens__op *op = &txn->ops[i];
    int reason = filter ? filter(doc, op, user) : 0;
    if (!reason) {
      ens__op copy;
      int rc = s_op_dup(op, &copy);
      if (rc == 0) rc = s_reserve(applied);
      if (rc == 0) rc = s_apply_op(doc, op, txn->local_only, 0, inv, tc);
      if (rc == 0) {
        applied->ops[applied->nops++] = copy;
        continue;
      }
      ens__op_release(&copy);
      if (rc == ENS_ENOMEM) {
        s_rollback(doc, inv);
        ens_txn_free(applied);
        ens_txn_free(inv);
        s_touched_free(tc);
        return rc;
      }
      reason = rc == ENS_ENOTFOUND ? 2 /* gone */ : 3 /* invalid */;
    }
    if (on_skip) on_skip(op, reason, user);
  }
  if (tc) {
    /* what applied, as a whole, must still be something the format can
     * hold; if not, none of it stays */
    int rc = s_judge(doc, tc);
    s_touched_free(tc);
    if (rc) {
      char msg[400];
      snprintf(msg, sizeof msg, "%s", ens_error_last());
      s_rollback(doc, inv);
      ens_txn_free(applied);
      ens_txn_free(inv);
      return ens__error(rc, "%s", msg);
    }
  }
  doc->clock++;
  ens__txn_reverse(inv);
  ens__doc_notify(doc, applied, inv, origin);
  *applied_out = applied;
  *inverse_out = inv;
  return 0;
}

/* --- leaving out what a collaborator deleted ----------------------------- */

typedef struct {
  ens_id *ids;
  size_t n, cap; /* open addressing, cap a power of two; 0 marks a free slot */
} s_idset;

static int s_idset_add(s_idset *s, ens_id id) {
  if ((s->n + 1) * 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    ens_id *ids = calloc(cap, sizeof *ids);
    if (!ids) return ens__error(ENS_ENOMEM, "out of memory filtering a transaction");
    for (size_t i = 0; i < s->cap; i++) {
      if (!s->ids[i]) continue;
      size_t j = (size_t)(s->ids[i] * 0x9e3779b97f4a7c15ULL) & (cap - 1);
      while (ids[j]) j = (j + 1) & (cap - 1);
      ids[j] = s->ids[i];
    }
    free(s->ids);
    s->ids = ids;
    s->cap = cap;
  }
  size_t j = (size_t)(id * 0x9e3779b97f4a7c15ULL) & (s->cap - 1);
  while (s->ids[j]) {
    if (s->ids[j] == id) return 0;
    j = (j + 1) & (s->cap - 1);
  }
  s->ids[j] = id;
  s->n++;
  return 0;
}

static int s_idset_has(const s_idset *s, ens_id id) {
  if (!s->cap || !id) return 0;
  size_t j = (size_t)(id * 0x9e3779b97f4a7c15ULL) & (s->cap - 1);
  while (s->ids[j]) {
    if (s->ids[j] == id) return 1;
    j = (j + 1) & (s->cap - 1);
  }
  return 0;
}

static int s_idset_add_node(s_idset *s, const struct ens_node *n) {
  int rc = s_idset_add(s, n->id);
  for (uint32_t i = 0; !rc && i < n->nkids; i++) rc = s_idset_add_node(s, n->kids[i]);
  return rc;
}

int ens__txn_drop_missing(const ens_doc *doc, const ens_txn *txn, ens_txn **out, size_t *dropped) {
  *out = NULL;
  *dropped = 0;
  ens_txn *kept = ens_txn_new(txn->label, txn->author);
  if (!kept) return ens__error(ENS_ENOMEM, "out of memory filtering a transaction");
  kept->local_only = txn->local_only;
  s_idset inserted = {0};
  int rc = 0;
  /* an object is there when the document holds it or a kept insert of
   * this transaction made it; one this transaction deletes still counts,
   * so that an edit after its own delete keeps failing as before */
#define THERE(id) (ens_doc_get(doc, (id)) != NULL || s_idset_has(&inserted, (id)))
  for (size_t i = 0; i < txn->nops && !rc; i++) {
    const ens__op *op = &txn->ops[i];
    int keep = THERE(op->target) && (op->kind != ENS_OP_MOVE || THERE(op->parent));
    if (!keep) {
      ++*dropped;
      continue;
    }
    if (op->kind == ENS_OP_INSERT && op->node && (rc = s_idset_add_node(&inserted, op->node))) break;
    ens__op copy;
    if ((rc = s_op_dup(op, &copy))) break;
    if ((rc = ens__txn_push(kept, &copy))) ens__op_release(&copy);
  }
#undef THERE
  free(inserted.ids);
  if (rc) {
    ens_txn_free(kept);
    *dropped = 0;
    return rc;
  }
  *out = kept;
  return 0;
}
