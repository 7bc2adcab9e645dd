/* Building and reading transactions (the public builders of
 * ensemble/txn.h over the representation of ops.h). */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "ops.h"

static char *s_dup(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s);
  char *c = malloc(n + 1);
  if (c) memcpy(c, s, n + 1);
  return c;
}

/* The limits of ensemble/limits.h, checked where transactions are built
 * so that a change a client makes is one the server's decoder accepts. */
static int s_too_long(const char *s, size_t max, const char *what) {
  size_t n = s ? strlen(s) : 0;
  if (n <= max) return 0;
  return ens__error(ENS_ELIMIT, "%s of %zu bytes is over the limit of %zu", what, n, max);
}

static int s_check_place(const char *pos, const char *kind) {
  int rc = s_too_long(pos, ENS_MAX_POS, "a position");
  if (!rc && kind) rc = s_too_long(kind, ENS_MAX_KIND, "an object kind");
  return rc;
}

int ens__value_dup(const ens_value *in, ens_value *out) {
  *out = *in;
  if (in->type == ENS_STR || in->type == ENS_BYTES) {
    char *c = malloc(in->u.s.len + 1);
    if (!c) return ens__error(ENS_ENOMEM, "out of memory copying a value");
    if (in->u.s.len) memcpy(c, in->u.s.ptr, in->u.s.len);
    c[in->u.s.len] = '\0';
    out->u.s.ptr = c;
  }
  return 0;
}

void ens__value_release(ens_value *v) {
  if (v->type == ENS_STR || v->type == ENS_BYTES) free((char *)v->u.s.ptr);
  v->type = ENS_NIL;
}

void ens__node_free(struct ens_node *node) {
  if (!node) return;
  for (uint32_t i = 0; i < node->nprops; i++) {
    free(node->props[i].key);
    ens__value_release(&node->props[i].value);
  }
  for (uint32_t i = 0; i < node->nkids; i++) ens__node_free(node->kids[i]);
  free(node->props);
  free(node->kids);
  free(node->kind);
  free(node->pos);
  free(node);
}

void ens__op_release(ens__op *op) {
  free(op->str);
  ens__value_release(&op->value);
  ens__node_free(op->node);
  memset(op, 0, sizeof *op);
}

ens_txn *ens_txn_new(const char *label, const char *author) {
  if (s_too_long(label, ENS_MAX_LABEL, "a label") || s_too_long(author, ENS_MAX_AUTHOR, "an author")) return NULL;
  ens_txn *t = calloc(1, sizeof *t);
  if (!t) goto oom;
  if (label && *label && !(t->label = s_dup(label))) goto oom;
  if (author && *author && !(t->author = s_dup(author))) goto oom;
  return t;
oom:
  ens_txn_free(t);
  ens__error(ENS_ENOMEM, "out of memory creating a transaction");
  return NULL;
}

void ens_txn_free(ens_txn *t) {
  if (!t) return;
  for (size_t i = 0; i < t->nops; i++) ens__op_release(&t->ops[i]);
  free(t->ops);
  free(t->label);
  free(t->author);
  free(t);
}

const char *ens_txn_label(const ens_txn *t) { return t->label ? t->label : ""; }
const char *ens_txn_author(const ens_txn *t) { return t->author ? t->author : ""; }

int ens_txn_set_label(ens_txn *t, const char *label) {
  char *c = NULL;
  if (s_too_long(label, ENS_MAX_LABEL, "a label")) return ENS_ELIMIT;
  if (label && *label && !(c = s_dup(label))) return ens__error(ENS_ENOMEM, "out of memory");
  free(t->label);
  t->label = c;
  return 0;
}

void ens_txn_set_local_only(ens_txn *t, int local_only) { t->local_only = local_only ? 1 : 0; }
int ens_txn_is_local_only(const ens_txn *t) { return t->local_only; }

int ens__txn_push(ens_txn *t, const ens__op *op) {
  if (t->nops == t->capops) {
    size_t cap = t->capops ? t->capops * 2 : 2;
    ens__op *ops = realloc(t->ops, cap * sizeof *ops);
    if (!ops) return ens__error(ENS_ENOMEM, "out of memory adding an operation");
    t->ops = ops;
    t->capops = cap;
  }
  t->ops[t->nops++] = *op;
  return 0;
}

void ens__txn_reverse(ens_txn *t) {
  for (size_t i = 0, j = t->nops ? t->nops - 1 : 0; i < j; i++, j--) {
    ens__op tmp = t->ops[i];
    t->ops[i] = t->ops[j];
    t->ops[j] = tmp;
  }
}

int ens_txn_set(ens_txn *t, ens_id obj, const char *key, ens_value value) {
  if (!t || !key || !*key) return ens__error(ENS_EINVAL, "set needs a transaction and a key");
  if (s_too_long(key, ENS_MAX_KEY, "a property key")) return ENS_ELIMIT;
  ens__op op = {0};
  op.kind = ENS_OP_SET;
  op.target = obj;
  if (!(op.str = s_dup(key)) || ens__value_dup(&value, &op.value) != 0 || ens__txn_push(t, &op) != 0) {
    ens__op_release(&op);
    return ens__error(ENS_ENOMEM, "out of memory adding a set");
  }
  return 0;
}

int ens_txn_delete(ens_txn *t, ens_id obj) {
  if (!t) return ens__error(ENS_EINVAL, "delete needs a transaction");
  ens__op op = {0};
  op.kind = ENS_OP_DELETE;
  op.target = obj;
  return ens__txn_push(t, &op);
}

int ens_txn_move(ens_txn *t, ens_id obj, ens_id new_parent, const char *pos) {
  if (!t || !pos) return ens__error(ENS_EINVAL, "move needs a transaction and a position");
  if (s_check_place(pos, NULL)) return ENS_ELIMIT;
  ens__op op = {0};
  op.kind = ENS_OP_MOVE;
  op.target = obj;
  op.parent = new_parent;
  if (!(op.str = s_dup(pos)) || ens__txn_push(t, &op) != 0) {
    ens__op_release(&op);
    return ens__error(ENS_ENOMEM, "out of memory adding a move");
  }
  return 0;
}

static struct ens_node *s_node_new(const char *pos, ens_id id, const char *kind) {
  struct ens_node *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->id = id;
  n->kind = s_dup(kind);
  n->pos = s_dup(pos);
  if (!n->kind || !n->pos) {
    ens__node_free(n);
    return NULL;
  }
  return n;
}

ens_node *ens_txn_insert(ens_txn *t, ens_id parent, const char *pos, ens_id id, const char *kind) {
  if (!t || !pos || !kind) {
    ens__error(ENS_EINVAL, "insert needs a transaction, a position and a kind");
    return NULL;
  }
  if (s_check_place(pos, kind)) return NULL;
  ens__op op = {0};
  op.kind = ENS_OP_INSERT;
  op.target = parent;
  op.node = s_node_new(pos, id, kind);
  if (!op.node || ens__txn_push(t, &op) != 0) {
    ens__node_free(op.node);
    ens__error(ENS_ENOMEM, "out of memory adding an insert");
    return NULL;
  }
  return op.node;
}

int ens_node_set(ens_node *n, const char *key, ens_value value) {
  if (!n || !key || !*key) return ens__error(ENS_EINVAL, "node property needs a key");
  if (s_too_long(key, ENS_MAX_KEY, "a property key")) return ENS_ELIMIT;
  if (n->nprops == n->capprops) {
    uint32_t cap = n->capprops ? n->capprops * 2 : 4;
    ens__kv *props = realloc(n->props, cap * sizeof *props);
    if (!props) return ens__error(ENS_ENOMEM, "out of memory");
    n->props = props;
    n->capprops = cap;
  }
  ens__kv *kv = &n->props[n->nprops];
  kv->key = s_dup(key);
  if (!kv->key || ens__value_dup(&value, &kv->value) != 0) {
    free(kv->key);
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  n->nprops++;
  return 0;
}

ens_node *ens_node_add_child(ens_node *n, const char *pos, ens_id id, const char *kind) {
  if (!n || !pos || !kind) {
    ens__error(ENS_EINVAL, "child needs a parent node, a position and a kind");
    return NULL;
  }
  if (s_check_place(pos, kind)) return NULL;
  if (n->nkids == n->capkids) {
    uint32_t cap = n->capkids ? n->capkids * 2 : 4;
    struct ens_node **kids = realloc(n->kids, cap * sizeof *kids);
    if (!kids) goto oom;
    n->kids = kids;
    n->capkids = cap;
  }
  struct ens_node *c = s_node_new(pos, id, kind);
  if (!c) goto oom;
  n->kids[n->nkids++] = c;
  return c;
oom:
  ens__error(ENS_ENOMEM, "out of memory");
  return NULL;
}

size_t ens_txn_op_count(const ens_txn *t) { return t->nops; }
ens_op_kind ens_txn_op_kind(const ens_txn *t, size_t i) { return (ens_op_kind)t->ops[i].kind; }

ens_id ens_txn_op_target(const ens_txn *t, size_t i) {
  const ens__op *op = &t->ops[i];
  return op->kind == ENS_OP_INSERT ? op->node->id : op->target;
}

int ens_txn_op_set(const ens_txn *t, size_t i, const char **key, ens_value *value) {
  if (i >= t->nops || t->ops[i].kind != ENS_OP_SET) return ens__error(ENS_EINVAL, "op %zu is not a set", i);
  *key = t->ops[i].str;
  *value = t->ops[i].value;
  return 0;
}

int ens_txn_op_place(const ens_txn *t, size_t i, ens_id *parent, const char **pos) {
  if (i >= t->nops) return ens__error(ENS_EINVAL, "no op %zu", i);
  const ens__op *op = &t->ops[i];
  if (op->kind == ENS_OP_MOVE) {
    *parent = op->parent;
    *pos = op->str;
  } else if (op->kind == ENS_OP_INSERT) {
    *parent = op->target;
    *pos = op->node->pos;
  } else {
    return ens__error(ENS_EINVAL, "op %zu is neither a move nor an insert", i);
  }
  return 0;
}
