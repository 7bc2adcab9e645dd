/* The demo's script: each step is one user action on one replica (an
 * edit, a selection, an undo or a redo), delivered to the other replica,
 * printed, and checked against what DESIGN.md promises. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "demo.h"

static ens_value s_get(const ens_doc *doc, ens_id id, const char *key) {
  ens_value v = ens_nil();
  const ens_obj *o = ens_doc_get(doc, id);
  if (o) ens_obj_get(o, key, &v);
  return v;
}

/* value + delta (> 0), keeping integers integers while they fit */
static ens_value s_plus(ens_value v, int delta) {
  if (v.type == ENS_INT) return v.u.i <= INT64_MAX - delta ? ens_int(v.u.i + delta) : ens_real((double)v.u.i + delta);
  return ens_real(v.u.r + delta);
}

/* A coordinate computed as a double: an integer when it is a whole one. */
static ens_value s_coord(double r) {
  return r == floor(r) && fabs(r) < 9007199254740992.0 ? ens_int((int64_t)r) : ens_real(r);
}

static double s_real(ens_value v) { return v.type == ENS_INT ? (double)v.u.i : v.type == ENS_REAL ? v.u.r : 0; }

static int s_same(const cli_replica *a, const cli_replica *b, ens_id id, const char *key) {
  ens_value x = s_get(a->doc, id, key), y = s_get(b->doc, id, key);
  return ens_value_equal(&x, &y);
}

/* Delivers what either replica queued, at once as a session would, then
 * prints the step with both hashes. */
static int s_sync(demo *d, cli_replica *who, const char *action, size_t ops) {
  cli_replica *other = who == &d->alice ? &d->bob : &d->alice;
  size_t msgs = 0, bytes = 0;
  if (who->broken || other->broken) return cli_fail("demo", "%s", who->broken ? who->error : other->error);
  if (cli_replica_deliver(who, other, &msgs, &bytes) || cli_replica_deliver(other, who, &msgs, &bytes))
    return cli_fail("demo", "delivering %s's \"%s\": %s", who->name, action, ens_error_last());
  d->steps++;
  d->msgs += msgs;
  d->bytes += bytes;
  if (!msgs) d->local_steps++;
  demo_show_step(d, who, action, ops, msgs, bytes);
  return 0;
}

static int s_commit(demo *d, cli_replica *who, ens_txn *txn) {
  size_t ops = ens_txn_op_count(txn);
  int rc = ens_undo_commit(who->undo, txn);
  if (rc) {
    cli_fail("demo", "%s's \"%s\": %s", who->name, ens_txn_label(txn), ens_error_last());
  } else if (!d->example_json && who->nout) {
    /* keep the first message as the example dump: what went over the wire */
    ens_txn *wire;
    if (ens_txn_decode(who->outbox[0].bytes, who->outbox[0].len, &wire) == 0) {
      d->example_json = ens_txn_to_json(wire);
      ens_txn_free(wire);
    }
  }
  if (!rc) rc = s_sync(d, who, ens_txn_label(txn), ops);
  ens_txn_free(txn);
  return rc ? CLI_FAIL : 0;
}

static int s_undo_or_redo(demo *d, cli_replica *who, int redo, ens_undo_report *report) {
  int rc = redo ? ens_undo_redo(who->undo, report) : ens_undo_undo(who->undo, report);
  if (rc) {
    ens_undo_report_clear(report);
    return cli_fail("demo", "%s's %s: %s", who->name, redo ? "redo" : "undo", ens_error_last());
  }
  char action[160];
  snprintf(action, sizeof action, "%s %s", redo ? "Redo" : "Undo", report->label);
  if ((rc = s_sync(d, who, action, report->applied))) ens_undo_report_clear(report);
  return rc;
}

/* --- the steps ------------------------------------------------------------------ */

static int s_alice_moves(demo *d) {
  cli_replica *a = &d->alice;
  char what[128], x0[32], y0[32], w0[32], x1[32], y1[32], w1[32];
  demo_describe(a->doc, d->point, what, sizeof what);
  demo_num(a->doc, d->point, "x", x0, sizeof x0);
  demo_num(a->doc, d->point, "y", y0, sizeof y0);
  demo_num(a->doc, d->glyph, "width", w0, sizeof w0);
  /* dragging a point of the right side: the advance width follows it, and
   * both are one user action, so one undo step */
  ens_txn *t = ens_txn_new("Move point", "alice");
  if (!t || ens_txn_set(t, d->point, "x", s_plus(s_get(a->doc, d->point, "x"), 30)) ||
      ens_txn_set(t, d->point, "y", s_get(a->doc, d->point, "y")) ||
      ens_txn_set(t, d->glyph, "width", s_plus(s_get(a->doc, d->glyph, "width"), 30))) {
    ens_txn_free(t);
    return cli_fail("demo", "building a transaction: %s", ens_error_last());
  }
  if (s_commit(d, a, t)) return CLI_FAIL;
  demo_note(d, "alice drags %s from (%s, %s) to (%s, %s); the width follows: %s -> %s", what, x0, y0,
            demo_num(a->doc, d->point, "x", x1, sizeof x1), demo_num(a->doc, d->point, "y", y1, sizeof y1), w0,
            demo_num(a->doc, d->glyph, "width", w1, sizeof w1));
  demo_expect(d, s_same(a, &d->bob, d->point, "x") && s_same(a, &d->bob, d->glyph, "width"),
              "bob sees alice's move");
  return 0;
}

static int s_bob_sets_width(demo *d) {
  cli_replica *b = &d->bob;
  char w0[32], w1[32], what[128];
  demo_num(b->doc, d->glyph, "width", w0, sizeof w0);
  ens_txn *t = ens_txn_new("Change width", "bob");
  if (!t || ens_txn_set(t, d->glyph, "width", s_plus(s_get(b->doc, d->glyph, "width"), 20))) {
    ens_txn_free(t);
    return cli_fail("demo", "building a transaction: %s", ens_error_last());
  }
  if (s_commit(d, b, t)) return CLI_FAIL;
  demo_note(d, "bob gives %s more room: width %s -> %s, now the newest change to the width",
            demo_describe(b->doc, d->glyph, what, sizeof what), w0, demo_num(b->doc, d->glyph, "width", w1, sizeof w1));
  demo_expect(d, s_same(b, &d->alice, d->glyph, "width"), "alice sees bob's width");
  return 0;
}

static int s_alice_selects(demo *d) {
  cli_replica *a = &d->alice;
  char what[128];
  ens_txn *t = ens_txn_new("Select point", "alice");
  if (!t || ens_txn_set(t, d->point, "@selected", ens_bool(1))) {
    ens_txn_free(t);
    return cli_fail("demo", "building a transaction: %s", ens_error_last());
  }
  /* selection is screen state: an undo step that is never sent */
  ens_txn_set_local_only(t, 1);
  size_t before = d->msgs;
  if (s_commit(d, a, t)) return CLI_FAIL;
  ens_value sa = s_get(a->doc, d->point, "@selected"), sb = s_get(d->bob.doc, d->point, "@selected");
  demo_note(d, "alice selects %s: local only, %zu messages sent; bob's copy has %s",
            demo_describe(a->doc, d->point, what, sizeof what), d->msgs - before,
            sb.type == ENS_NIL ? "no selection" : "a selection (!)");
  demo_expect(d, d->msgs == before && sa.type == ENS_BOOL && sb.type == ENS_NIL,
              "the selection stays on alice's side");
  return 0;
}

static int s_alice_undoes(demo *d) {
  cli_replica *a = &d->alice;
  ens_undo_report report;
  char x[32], w[32];
  size_t before = d->msgs;
  if (s_undo_or_redo(d, a, 0, &report)) return CLI_FAIL;
  demo_note(d, "the selection goes, and again nothing is sent");
  demo_expect(d, d->msgs == before && s_get(a->doc, d->point, "@selected").type == ENS_NIL,
              "undoing the selection is local too");
  ens_undo_report_clear(&report);

  ens_value width = s_get(a->doc, d->glyph, "width");
  if (s_undo_or_redo(d, a, 0, &report)) return CLI_FAIL;
  demo_note(d, "alice's point is back at x %s; the width stays %s: bob set it after alice's move",
            demo_num(a->doc, d->point, "x", x, sizeof x), demo_num(a->doc, d->glyph, "width", w, sizeof w));
  demo_show_skips(d, a, &report);
  ens_value now = s_get(a->doc, d->glyph, "width");
  demo_expect(d, report.skipped == 1 && ens_value_equal(&width, &now) && s_same(a, &d->bob, d->glyph, "width"),
              "bob's newer width survives alice's undo");
  ens_undo_report_clear(&report);
  return 0;
}

static int s_alice_redoes(demo *d) {
  cli_replica *a = &d->alice;
  ens_undo_report report;
  char x[32], w[32];
  if (s_undo_or_redo(d, a, 1, &report)) return CLI_FAIL;
  demo_note(d, "the point goes to x %s again; the width stays bob's %s",
            demo_num(a->doc, d->point, "x", x, sizeof x), demo_num(a->doc, d->glyph, "width", w, sizeof w));
  demo_expect(d, s_same(a, &d->bob, d->point, "x"), "bob sees the redo");
  ens_undo_report_clear(&report);
  return 0;
}

static int s_bob_inserts_and_deletes(demo *d) {
  cli_replica *b = &d->bob;
  const ens_obj *contour = ens_doc_get(b->doc, d->contour);
  size_t at = ens_obj_child_count(contour) >= 3 ? 2 : 1; /* between the 2nd and 3rd objects */
  const ens_obj *p0 = ens_obj_child(contour, at - 1), *p1 = ens_obj_child(contour, at);
  ens_value x0 = s_get(b->doc, ens_obj_id(p0), "x"), x1 = s_get(b->doc, ens_obj_id(p1), "x");
  ens_value y0 = s_get(b->doc, ens_obj_id(p0), "y"), y1 = s_get(b->doc, ens_obj_id(p1), "y");
  double mx = (s_real(x0) + s_real(x1)) / 2, my = (s_real(y0) + s_real(y1)) / 2;
  char *pos = NULL, what[128], ids[32];
  ens_id id = ens_doc_new_id(b->doc);
  ens_txn *t = ens_txn_new("Add point", "bob");
  ens_node *n = NULL;
  if (ens_doc_pos_at(b->doc, d->contour, at, &pos) == 0 && t)
    n = ens_txn_insert(t, d->contour, pos, id, "point");
  ens_free(pos);
  if (!n || ens_node_set(n, "x", s_coord(mx)) || ens_node_set(n, "y", s_coord(my)) ||
      ens_node_set(n, "type", ens_str("line"))) {
    ens_txn_free(t);
    return cli_fail("demo", "building a transaction: %s", ens_error_last());
  }
  if (s_commit(d, b, t)) return CLI_FAIL;
  demo_note(d, "bob adds %s (id %s) at (%g, %g), between its neighbours", demo_describe(b->doc, id, what, sizeof what),
            cli_id_str(id, ids, sizeof ids), mx, my);
  demo_expect(d, ens_doc_get(d->alice.doc, id) != NULL, "alice gets bob's new point");

  demo_describe(b->doc, d->victim, what, sizeof what);
  t = ens_txn_new("Delete point", "bob");
  if (!t || ens_txn_delete(t, d->victim)) {
    ens_txn_free(t);
    return cli_fail("demo", "building a transaction: %s", ens_error_last());
  }
  if (s_commit(d, b, t)) return CLI_FAIL;
  demo_note(d, "bob deletes %s (id %s)", what, cli_id_str(d->victim, ids, sizeof ids));
  demo_expect(d, !ens_doc_get(d->alice.doc, d->victim), "the point is gone for alice too");
  return 0;
}

static int s_bob_undoes(demo *d) {
  cli_replica *b = &d->bob;
  ens_undo_report report;
  char what[128], ids[32];
  if (s_undo_or_redo(d, b, 0, &report)) return CLI_FAIL;
  int back = ens_doc_get(b->doc, d->victim) && ens_doc_get(d->alice.doc, d->victim);
  demo_note(d, "%s comes back with the same id %s on both replicas: %s",
            demo_describe(b->doc, d->victim, what, sizeof what), cli_id_str(d->victim, ids, sizeof ids),
            back ? "yes" : "no");
  demo_expect(d, back && report.skipped == 0, "undo of a delete re-inserts the same ids");
  ens_undo_report_clear(&report);
  return 0;
}

int demo_play(demo *d) {
  return s_alice_moves(d) || s_bob_sets_width(d) || s_alice_selects(d) || s_alice_undoes(d) || s_alice_redoes(d) ||
         s_bob_inserts_and_deletes(d) || s_bob_undoes(d);
}
