/* The demo's output: a table of steps with both replicas' hashes, notes in
 * a designer's words (glyph "A", point 4 of contour 1) and a summary. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "demo.h"

static unsigned long long s_hash(const cli_replica *r) { return (unsigned long long)ens_doc_hash(r->doc); }

void demo_show_header(const demo *d) {
  if (d->quiet) return;
  printf("\nEach step is one action by alice or bob, sent to the other replica as it\n"
         "would be in a session. The hashes fingerprint each replica's document:\n"
         "equal hashes, same glyph.\n");
  printf("\n  #  who    action                 ops  sent           alice hash        bob hash\n");
  printf("  -  -----  ---------------------  ---  -------------  ----------------  ----------------\n");
}

void demo_show_step(demo *d, const cli_replica *who, const char *action, size_t ops, size_t msgs, size_t bytes) {
  char sent[32];
  if (msgs) snprintf(sent, sizeof sent, "%zu bytes", bytes);
  else snprintf(sent, sizeof sent, "nothing");
  unsigned long long ha = s_hash(&d->alice), hb = s_hash(&d->bob);
  if (!d->quiet)
    printf("%3d  %-5s  %-21.21s  %3zu  %-13s  %016llx  %016llx%s\n", d->steps, who->name, action, ops, sent, ha,
           hb, ha == hb ? "" : "  <- differ");
}

void demo_note(const demo *d, const char *fmt, ...) {
  if (d->quiet) return;
  va_list ap;
  fputs("       ", stdout);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fputc('\n', stdout);
}

void demo_expect(demo *d, int ok, const char *fmt, ...) {
  if (ok) return;
  va_list ap;
  d->failures++;
  fputs("       EXPECTATION FAILED: ", stdout);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fputc('\n', stdout);
}

static const char *s_reason(ens_skip_reason r) {
  switch (r) {
  case ENS_SKIP_NEWER_REMOTE: return "a collaborator changed it since";
  case ENS_SKIP_GONE: return "it no longer exists";
  case ENS_SKIP_INVALID: return "it no longer applies";
  }
  return "?";
}

void demo_show_skips(const demo *d, const cli_replica *who, const ens_undo_report *report) {
  char what[128];
  demo_note(d, "%s's undo manager: %zu applied, %zu skipped", who->name, report->applied, report->skipped);
  for (size_t i = 0; i < report->skipped && report->skips; i++) {
    const ens_skip *s = &report->skips[i];
    demo_describe(who->doc, s->obj, what, sizeof what);
    if (s->op == ENS_OP_SET)
      demo_note(d, "  skipped: %s of %s, because %s", s->key, what, s_reason(s->reason));
    else
      demo_note(d, "  skipped: an operation on %s, because %s", what, s_reason(s->reason));
  }
}

const char *demo_num(const ens_doc *doc, ens_id id, const char *key, char *buf, size_t size) {
  const ens_obj *o = ens_doc_get(doc, id);
  ens_value v;
  if (!o || ens_obj_get(o, key, &v) != 0) snprintf(buf, size, "-");
  else if (v.type == ENS_INT) snprintf(buf, size, "%lld", (long long)v.u.i);
  else if (v.type == ENS_REAL) snprintf(buf, size, "%.10g", v.u.r);
  else snprintf(buf, size, "?");
  return buf;
}

const char *demo_describe(const ens_doc *doc, ens_id id, char *buf, size_t size) {
  const ens_obj *o = ens_doc_get(doc, id);
  char ids[32];
  if (!o) {
    snprintf(buf, size, "object %s", cli_id_str(id, ids, sizeof ids));
    return buf;
  }
  size_t n = 0;
  buf[0] = '\0';
  /* up through unnamed ancestors: a name is enough to say where we are */
  for (int first = 1; o && ens_obj_parent(o) && n < size; first = 0, o = ens_obj_parent(o)) {
    ens_value name;
    int named = ens_obj_get(o, "name", &name) == 0 && name.type == ENS_STR;
    if (named && !first) break;
    const char *sep = first ? "" : " of ";
    if (named) {
      n += (size_t)snprintf(buf + n, size - n, "%s%s \"%.*s\"", sep, ens_obj_kind(o),
                            (int)(name.u.s.len > 40 ? 40 : name.u.s.len), name.u.s.ptr);
      break;
    }
    const ens_obj *parent = ens_obj_parent(o);
    size_t nth = 1, at = ens_obj_index(o);
    for (size_t i = 0; i < at; i++) nth += strcmp(ens_obj_kind(ens_obj_child(parent, i)), ens_obj_kind(o)) == 0;
    n += (size_t)snprintf(buf + n, size - n, "%s%s %zu", sep, ens_obj_kind(o), nth);
  }
  return buf;
}

int demo_show_summary(const demo *d) {
  unsigned long long ha = s_hash(&d->alice), hb = s_hash(&d->bob);
  int same = ha == hb;
  printf("%sSummary\n", d->quiet ? "" : "\n");
  printf("  steps      %d (%d local-only, which sent nothing)\n", d->steps, d->local_steps);
  printf("  sent       %zu messages, %zu bytes\n", d->msgs, d->bytes);
  printf("  alice      %016llx\n", ha);
  printf("  bob        %016llx\n", hb);
  if (d->failures) printf("  checks     %d FAILED\n", d->failures);
  printf("  result     %s\n", same ? "converged: alice and bob hold the same glyph"
                                   : "DIVERGED: alice and bob hold different documents");
  return same;
}
