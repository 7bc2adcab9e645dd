/* The undo manager (docs/design.md, "Undo"): a replica's own
 * steps only, each the inverse of one committed transaction and the clock
 * at which it applied. Undo re-applies that inverse as a new transaction,
 * skipping what a collaborator changed after the step (their writes carry
 * a newer remote stamp) or what no longer exists, and reports the skips. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "ensemble/undo.h"
#include "ops.h"
#include "undo_int.h"

typedef struct {
  ens_txn *inverse;
  uint64_t stamp; /* document clock when the step applied */
} s_entry;

typedef struct {
  s_entry *items;
  size_t n, cap;
} s_stack;

struct ens_undo {
  ens_doc *doc;
  size_t depth;
  s_stack undo, redo;
};

static void s_stack_clear(s_stack *s) {
  for (size_t i = 0; i < s->n; i++) ens_txn_free(s->items[i].inverse);
  s->n = 0;
}

static int s_stack_push(s_stack *s, ens_txn *inverse, uint64_t stamp) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    s_entry *items = realloc(s->items, cap * sizeof *items);
    if (!items) return ens__error(ENS_ENOMEM, "out of memory recording an undo step");
    s->items = items;
    s->cap = cap;
  }
  s->items[s->n].inverse = inverse;
  s->items[s->n].stamp = stamp;
  s->n++;
  return 0;
}

static void s_trim(ens_undo *u) {
  if (!u->depth || u->undo.n <= u->depth) return;
  size_t drop = u->undo.n - u->depth;
  for (size_t i = 0; i < drop; i++) ens_txn_free(u->undo.items[i].inverse);
  memmove(u->undo.items, u->undo.items + drop, u->depth * sizeof *u->undo.items);
  u->undo.n = u->depth;
}

ens_undo *ens_undo_new(ens_doc *doc, size_t depth) {
  if (!doc) {
    ens__error(ENS_EINVAL, "an undo manager needs a document");
    return NULL;
  }
  ens_undo *u = calloc(1, sizeof *u);
  if (!u) {
    ens__error(ENS_ENOMEM, "out of memory creating an undo manager");
    return NULL;
  }
  u->doc = doc;
  u->depth = depth;
  return u;
}

void ens_undo_free(ens_undo *u) {
  if (!u) return;
  s_stack_clear(&u->undo);
  s_stack_clear(&u->redo);
  free(u->undo.items);
  free(u->redo.items);
  free(u);
}

void ens_undo_set_depth(ens_undo *u, size_t depth) {
  u->depth = depth;
  s_trim(u);
}

void ens_undo_clear(ens_undo *u) {
  s_stack_clear(&u->undo);
  s_stack_clear(&u->redo);
}

size_t ens_undo_undo_count(const ens_undo *u) { return u->undo.n; }
size_t ens_undo_redo_count(const ens_undo *u) { return u->redo.n; }
const char *ens_undo_next_label(const ens_undo *u) {
  return u->undo.n ? ens_txn_label(u->undo.items[u->undo.n - 1].inverse) : NULL;
}
const char *ens_undo_next_redo_label(const ens_undo *u) {
  return u->redo.n ? ens_txn_label(u->redo.items[u->redo.n - 1].inverse) : NULL;
}

int ens_undo_commit(ens_undo *u, const ens_txn *txn) {
  ens_txn *inverse;
  ens_origin origin = txn->local_only ? ENS_ORIGIN_LOCAL_ONLY : ENS_ORIGIN_LOCAL;
  int rc = ens_doc_apply(u->doc, txn, origin, &inverse);
  if (rc) return rc;
  if ((rc = s_stack_push(&u->undo, inverse, u->doc->clock))) {
    ens_txn_free(inverse); /* applied but not undoable: say so */
    return rc;
  }
  s_stack_clear(&u->redo);
  s_trim(u);
  return 0;
}

/* --- undo and redo ----------------------------------------------------------- */

typedef struct {
  uint64_t stamp;
  ens_undo_report *report;
} s_ctx;

static int s_remote_since(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  uint64_t stamp = *(const uint64_t *)user;
  const ens_doc *doc = ens__obj_doc(o);
  return ens__stamp(doc, o, ENS__STAMP_OBJ) > stamp || ens__stamp(doc, o, ENS__STAMP_MOVE) > stamp;
}

static int s_filter(ens_doc *doc, const ens__op *op, void *user) {
  const s_ctx *c = user;
  switch (op->kind) {
  case ENS_OP_SET: {
    const ens_obj *o = ens__doc_lookup(doc, op->target);
    if (!o) return ENS_SKIP_GONE;
    const char *key = ens__atom_find(doc, op->str, strlen(op->str));
    const ens__prop *p = key ? ens__obj_find_prop(o, key) : NULL;
    if (p && ens__prop_stamp(doc, o, p) > c->stamp) return ENS_SKIP_NEWER_REMOTE;
    return 0;
  }
  case ENS_OP_MOVE: {
    const ens_obj *o = ens__doc_lookup(doc, op->target);
    if (!o || !ens__doc_lookup(doc, op->parent)) return ENS_SKIP_GONE;
    if (ens__stamp(doc, o, ENS__STAMP_MOVE) > c->stamp) return ENS_SKIP_NEWER_REMOTE;
    return 0;
  }
  case ENS_OP_DELETE: {
    /* undoing an insert: keep it if a collaborator has worked inside it */
    const ens_obj *o = ens__doc_lookup(doc, op->target);
    if (!o) return ENS_SKIP_GONE;
    uint64_t stamp = c->stamp;
    if (ens_obj_walk(o, s_remote_since, &stamp)) return ENS_SKIP_NEWER_REMOTE;
    return 0;
  }
  case ENS_OP_INSERT:
    /* undoing a delete: the same ids come back under the same parent */
    if (!ens__doc_lookup(doc, op->target)) return ENS_SKIP_GONE;
    if (ens__doc_lookup(doc, op->node->id)) return ENS_SKIP_INVALID;
    return 0;
  default:
    return ENS_SKIP_INVALID;
  }
}

static void s_on_skip(const ens__op *op, int reason, void *user) {
  s_ctx *c = user;
  ens_undo_report *r = c->report;
  if (!r) return;
  ens_skip *skips = realloc(r->skips, (r->skipped + 1) * sizeof *skips);
  if (!skips) return; /* the count stays right; only the detail is lost */
  r->skips = skips;
  ens_skip *s = &skips[r->skipped++];
  memset(s, 0, sizeof *s);
  s->op = (ens_op_kind)op->kind;
  s->obj = op->kind == ENS_OP_INSERT ? op->node->id : op->target;
  if (op->kind == ENS_OP_SET) snprintf(s->key, sizeof s->key, "%s", op->str);
  s->reason = (ens_skip_reason)reason;
}

void ens_undo_report_clear(ens_undo_report *r) {
  if (!r) return;
  free(r->skips);
  memset(r, 0, sizeof *r);
}

/* Pops a step from `from`, applies it leniently, pushes its inverse on `to`. */
static int s_step(ens_undo *u, s_stack *from, s_stack *to, ens_origin origin, ens_undo_report *report) {
  if (report) memset(report, 0, sizeof *report);
  if (!from->n) return ens__error(ENS_EEMPTY, "nothing to %s", origin == ENS_ORIGIN_UNDO ? "undo" : "redo");
  s_entry e = from->items[from->n - 1];
  s_ctx ctx = {e.stamp, report};
  ens_txn *applied, *inverse;
  if (e.inverse->local_only) origin = ENS_ORIGIN_LOCAL_ONLY;
  int rc = ens__doc_apply_lenient(u->doc, e.inverse, origin, s_filter, s_on_skip, &ctx, &applied, &inverse);
  if (rc) {
    /* nothing was applied (the format refused the step, say), so the
     * skips recorded on the way describe nothing that happened */
    ens_undo_report_clear(report);
    return rc;
  }
  if ((rc = s_stack_push(to, inverse, u->doc->clock))) {
    ens_txn_free(inverse);
    inverse = NULL;
  }
  from->n--;
  if (report) {
    report->applied = applied->nops;
    snprintf(report->label, sizeof report->label, "%s", ens_txn_label(e.inverse));
  }
  ens_txn_free(applied);
  ens_txn_free(e.inverse);
  return rc;
}

int ens_undo_undo(ens_undo *u, ens_undo_report *report) {
  return s_step(u, &u->undo, &u->redo, ENS_ORIGIN_UNDO, report);
}

int ens_undo_redo(ens_undo *u, ens_undo_report *report) {
  int rc = s_step(u, &u->redo, &u->undo, ENS_ORIGIN_REDO, report);
  if (rc == 0) s_trim(u);
  return rc;
}

/* --- for sessions (undo_int.h) ------------------------------------------------- */

static s_entry *s_find_stamp(ens_undo *u, uint64_t stamp, s_stack **in) {
  s_stack *stacks[2] = {&u->undo, &u->redo};
  for (int k = 0; k < 2; k++)
    for (size_t i = stacks[k]->n; i-- > 0;)
      if (stacks[k]->items[i].stamp == stamp) {
        if (in) *in = stacks[k];
        return &stacks[k]->items[i];
      }
  return NULL;
}

int ens__undo_restamp(ens_undo *u, uint64_t stamp, uint64_t new_stamp, const ens_txn *inverse) {
  s_entry *e = s_find_stamp(u, stamp, NULL);
  if (!e) return ENS_ENOTFOUND;
  unsigned char *b;
  size_t n;
  ens_txn *copy;
  int rc = ens_txn_encode(inverse, &b, &n);
  if (rc) return rc;
  rc = ens_txn_decode(b, n, &copy);
  ens_free(b);
  if (rc) return rc;
  /* the label is the user's name for the step: keep it */
  if ((rc = ens_txn_set_label(copy, ens_txn_label(e->inverse)))) {
    ens_txn_free(copy);
    return rc;
  }
  ens_txn_free(e->inverse);
  e->inverse = copy;
  e->stamp = new_stamp;
  return 0;
}

void ens__undo_forget(ens_undo *u, uint64_t stamp) {
  s_stack *in;
  s_entry *e = s_find_stamp(u, stamp, &in);
  if (!e) return;
  ens_txn_free(e->inverse);
  size_t i = (size_t)(e - in->items);
  memmove(in->items + i, in->items + i + 1, (in->n - i - 1) * sizeof *in->items);
  in->n--;
}
