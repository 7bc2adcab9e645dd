/* What `ensemble demo` prints (demo.h): the progress line while the
 * collaborators edit, and the report at the end, as text or JSON. */
#include <stdio.h>

#include "demo.h"

static void s_ms(char *buf, size_t size, double ms) {
  if (ms < 0) snprintf(buf, size, "-");
  else snprintf(buf, size, "%.*f ms", ms < 10 ? 2 : 1, ms);
}

void demo_progress_line(char *buf, size_t size, double elapsed, int connected, int clients,
                        const demo_counts *total, double rate_now, const demo_latency *lat) {
  char p50[32], p99[32];
  s_ms(p50, sizeof p50, demo_latency_ms(lat, 0.50));
  s_ms(p99, sizeof p99, demo_latency_ms(lat, 0.99));
  snprintf(buf, size, "%5.1fs  %d/%d connected  %6llu acked  %4.0f txn/s  p50 %s  p99 %s  %llu rejected  %llu undo skips",
           elapsed, connected, clients, (unsigned long long)total->acked, rate_now, p50, p99,
           (unsigned long long)total->rejected, (unsigned long long)total->skipped);
}

void demo_report_text(FILE *out, const demo_report *r) {
  const demo_counts *t = &r->total;
  char p50[32], p99[32];
  s_ms(p50, sizeof p50, r->p50_ms);
  s_ms(p99, sizeof p99, r->p99_ms);
  fprintf(out, "\nReport\n");
  fprintf(out, "  font          %s (%zu glyphs, %zu objects)\n", r->font, r->glyphs, r->objects);
  fprintf(out, "  edited        glyphs");
  for (size_t i = 0; i < r->nedited; i++) fprintf(out, " %s", r->edited[i]);
  fprintf(out, "\n");
  fprintf(out, "  clients       %d (%s), %d connected at the end\n", r->clients, r->names, r->connected);
  fprintf(out, "  seconds       %.1f of editing (%.1f asked, %.0f actions/s each), %.2f to settle, %.1f in all\n",
          r->edit_seconds, r->seconds, r->rate, r->settle_seconds, r->wall_seconds);
  fprintf(out, "  transactions  %llu committed, %llu acknowledged, %llu rejected\n", (unsigned long long)t->committed,
          (unsigned long long)t->acked, (unsigned long long)t->rejected);
  fprintf(out, "  edits         %llu point moves and width changes", (unsigned long long)t->edits);
  if (t->local_errors) fprintf(out, " (%llu refused locally)", (unsigned long long)t->local_errors);
  fprintf(out, "\n");
  fprintf(out, "  undo, redo    %llu undos, %llu redos; %llu properties skipped (a collaborator changed them since)\n",
          (unsigned long long)t->undos, (unsigned long long)t->redos, (unsigned long long)t->skipped);
  fprintf(out, "  selections    %llu relayed, %llu received\n", (unsigned long long)t->selections,
          (unsigned long long)t->presence);
  fprintf(out, "  latency       commit to acknowledgement p50 %s, p99 %s\n", p50, p99);
  fprintf(out, "  throughput    %.0f transactions/s acknowledged\n",
          r->edit_seconds > 0 ? (double)t->acked / r->edit_seconds : 0.0);
  fprintf(out, "  final seq     %llu\n", (unsigned long long)r->final_seq);
  fprintf(out, "  hash          %016llx\n", (unsigned long long)r->hash);
  if (r->converged)
    fprintf(out, "  result        converged: the server and %s %d replica%s hold the same font\n",
            r->clients == 1 ? "its" : "all", r->clients, r->clients == 1 ? "" : "s");
  else
    fprintf(out, "  result        DIVERGED: %s\n", r->differs ? r->differs : "replicas differ from the server");
  if (r->written)
    fprintf(out, "  output        %s (%s)\n", r->out,
            r->reads_back ? "read back: the same font" : "READ BACK DIFFERS");
  else
    fprintf(out, "  output        not written\n");
}

/* A JSON string: quotes, backslashes and control characters escaped;
 * other bytes (UTF-8) as they are. */
static void s_json_str(FILE *out, const char *s) {
  if (!s) {
    fputs("null", out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c < 0x20) fprintf(out, "\\u%04x", c);
    else fputc(c, out);
  }
  fputc('"', out);
}

void demo_report_json(FILE *out, const demo_report *r) {
  const demo_counts *t = &r->total;
  fputs("{\"font\":", out);
  s_json_str(out, r->font);
  fprintf(out, ",\"font_glyphs\":%zu,\"font_objects\":%zu,\"edited\":[", r->glyphs, r->objects);
  for (size_t i = 0; i < r->nedited; i++) {
    if (i) fputc(',', out);
    s_json_str(out, r->edited[i]);
  }
  fprintf(out, "],\"clients\":%d,\"connected\":%d,\"seconds\":%.3f,\"edit_seconds\":%.3f,\"settle_seconds\":%.3f,"
               "\"wall_seconds\":%.3f,\"rate\":%.3f,",
          r->clients, r->connected, r->seconds, r->edit_seconds, r->settle_seconds, r->wall_seconds, r->rate);
  fprintf(out, "\"committed\":%llu,\"acknowledged\":%llu,\"rejected\":%llu,\"edits\":%llu,\"local_errors\":%llu,"
               "\"undos\":%llu,\"redos\":%llu,\"skipped\":%llu,\"selections\":%llu,\"selections_received\":%llu,",
          (unsigned long long)t->committed, (unsigned long long)t->acked, (unsigned long long)t->rejected,
          (unsigned long long)t->edits, (unsigned long long)t->local_errors, (unsigned long long)t->undos,
          (unsigned long long)t->redos, (unsigned long long)t->skipped, (unsigned long long)t->selections,
          (unsigned long long)t->presence);
  if (r->p50_ms >= 0) fprintf(out, "\"latency_ms\":{\"p50\":%.3f,\"p99\":%.3f},", r->p50_ms, r->p99_ms);
  else fputs("\"latency_ms\":null,", out);
  fprintf(out, "\"throughput\":%.1f,\"final_seq\":%llu,\"hash\":\"%016llx\",\"converged\":%s,\"differs\":",
          r->edit_seconds > 0 ? (double)t->acked / r->edit_seconds : 0.0, (unsigned long long)r->final_seq,
          (unsigned long long)r->hash, r->converged ? "true" : "false");
  s_json_str(out, r->differs);
  fputs(",\"output\":", out);
  s_json_str(out, r->written ? r->out : NULL);
  fprintf(out, ",\"reads_back\":%s}\n", r->reads_back ? "true" : "false");
}
