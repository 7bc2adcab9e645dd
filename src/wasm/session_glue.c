/* The browser client's C side: the library's own session client (the
 * detached form of src/lib/sync/client.c: pending queue, rebase beneath
 * pending changes, resend, the user's own undo) exported to JavaScript.
 * web/ensemble-client.js holds the WebSocket: it hands each received
 * message to ensw_handle and sends what the client gives its wire. So
 * the browser behaves as the C client does because it is the C client.
 *
 * Strings returned to JavaScript live in the handle's out buffer until
 * the next call that returns one; ids cross as "site:counter" text, as
 * 64-bit ids do not fit a JavaScript number. */
#include <emscripten.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "sync/client_int.h"
#include "util/buf.h"
#include "util/error.h"
#include "wasm_json.h"

typedef struct ensw {
  ens_session *session;
  ens_buf out;
  int failed;
} ensw;

/* web/ensemble-client.js defines Module.ensWire and Module.ensEvent. */
EM_JS(int, s_js_wire, (ensw * h, const unsigned char *p, size_t n),
      { return Module.ensWire(h, HEAPU8.slice(p, p + n)); });
EM_JS(void, s_js_event, (ensw * h, const char *json), { Module.ensEvent(h, UTF8ToString(json)); });
/* The page keeps it with the client id before the change leaves
 * (ens__session_id_mark): Module.ensMark. */
EM_JS(void, s_js_mark, (ensw * h, double site, double counter), { Module.ensMark(h, site, counter); });

static int s_wire(const void *bytes, size_t len, void *user) { return s_js_wire(user, bytes, len); }

static const char *s_kind_name(ens_session_event_kind k) {
  switch (k) {
  case ENS_SESSION_CONNECTED: return "connected";
  case ENS_SESSION_RECONNECTING: return "reconnecting";
  case ENS_SESSION_RESET: return "reset";
  case ENS_SESSION_JOINED: return "joined";
  case ENS_SESSION_PRESENCE: return "presence";
  case ENS_SESSION_LEFT: return "left";
  case ENS_SESSION_REJECTED: return "rejected";
  case ENS_SESSION_FAILED: return "failed";
  case ENS_SESSION_ACKED: return "acked";
  case ENS_SESSION_DROPPED: return "dropped";
  case ENS_SESSION_LANDED: return "landed";
  }
  return "other";
}

static void s_on_event(ens_session *session, const ens_session_event *ev, void *user) {
  (void)session;
  ensw *h = user;
  if (ev->kind == ENS_SESSION_FAILED) h->failed = 1;
  ens_buf b = {0};
  ens__buf_printf(&b, "{\"kind\":\"%s\",\"site\":%u,\"colour\":\"#%06x\"", s_kind_name(ev->kind), (unsigned)ev->site,
                  (unsigned)(ev->colour & 0xffffff));
  if (ev->name) ensw_json_key_str(&b, "name", ev->name);
  if (ev->message) ensw_json_key_str(&b, "message", ev->message);
  if (ev->label) ensw_json_key_str(&b, "label", ev->label);
  if (ev->kind == ENS_SESSION_JOINED || ev->kind == ENS_SESSION_PRESENCE) {
    ens__buf_puts(&b, ",\"selection\":");
    ensw_json_ids(&b, ev->selection, ev->selection_count);
    if (ev->has_pointer) {
      ens__buf_printf(&b, ",\"pointer\":{\"x\":%.17g,\"y\":%.17g,\"ctx\":", ev->pointer_x, ev->pointer_y);
      ensw_json_id(&b, ev->pointer_ctx);
      ens__buf_putc(&b, '}');
    }
  }
  if (ev->kind == ENS_SESSION_LANDED) ensw_json_txn_summary(&b, ev->txn);
  ens__buf_puts(&b, "}");
  ens__buf_putc(&b, 0);
  if (b.data) s_js_event(h, (const char *)b.data);
  ens__buf_free(&b);
}

static const char *s_out(ensw *h, ens_buf *b) {
  ens__buf_putc(b, 0);
  ens__buf_free(&h->out);
  h->out = *b;
  return h->out.data ? (const char *)h->out.data : "";
}

EMSCRIPTEN_KEEPALIVE const char *ensw_error(void) { return ens_error_last(); }

static int s_hex(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* client: the client id as 32 hex digits, kept by the page across
 * reloads; "" draws a random one. */
EMSCRIPTEN_KEEPALIVE ensw *ensw_new(const char *name, unsigned colour, const char *client) {
  unsigned char id[16];
  if (client && client[0]) {
    for (int i = 0; i < 16; i++) {
      int hi = s_hex(client[2 * i]), lo = hi < 0 ? -1 : s_hex(client[2 * i + 1]);
      if (hi < 0 || lo < 0) {
        ens__error(ENS_EINVAL, "a client id is 32 hex digits");
        return NULL;
      }
      id[i] = (unsigned char)(hi << 4 | lo);
    }
    if (client[32]) {
      ens__error(ENS_EINVAL, "a client id is 32 hex digits");
      return NULL;
    }
  }
  ensw *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  ens_session_opts o;
  memset(&o, 0, sizeof o);
  o.client_id = client && client[0] ? id : NULL;
  o.name = name;
  o.colour = colour & 0xffffff;
  o.on_event = s_on_event;
  o.user = h;
  if (ens__session_new_detached(&o, s_wire, h, &h->session)) {
    free(h);
    return NULL;
  }
  return h;
}

EMSCRIPTEN_KEEPALIVE void ensw_free(ensw *h) {
  if (!h) return;
  ens_session_free(h->session);
  ens__buf_free(&h->out);
  free(h);
}

EMSCRIPTEN_KEEPALIVE int ensw_handle(ensw *h, const unsigned char *data, size_t len, double now_ms) {
  return ens__session_handle(h->session, data, len, (int64_t)now_ms);
}

EMSCRIPTEN_KEEPALIVE int ensw_tick(ensw *h, double now_ms) {
  if (h->failed) return 0;
  return ens__session_tick(h->session, (int64_t)now_ms);
}

EMSCRIPTEN_KEEPALIVE void ensw_link_lost(ensw *h, const char *why, double now_ms) {
  ens__session_link_lost(h->session, why, (int64_t)now_ms);
}

/* 0 not live, 1 live, 2 refused for good. */
EMSCRIPTEN_KEEPALIVE int ensw_state(ensw *h) { return h->failed ? 2 : ens_session_is_live(h->session) ? 1 : 0; }
EMSCRIPTEN_KEEPALIVE double ensw_seq(ensw *h) { return (double)ens_session_seq(h->session); }
EMSCRIPTEN_KEEPALIVE double ensw_pending(ensw *h) { return (double)ens_session_pending(h->session); }
EMSCRIPTEN_KEEPALIVE double ensw_site(ensw *h) { return (double)ens_session_site(h->session); }
/* The name the others see this page by (an invite's, when it came in with one). */
EMSCRIPTEN_KEEPALIVE const char *ensw_name(ensw *h) { return ens_session_name(h->session); }
/* Counters fit a double exactly (40 bits). */
EMSCRIPTEN_KEEPALIVE double ensw_id_mark(ensw *h) { return (double)ens__session_id_mark(h->session); }
EMSCRIPTEN_KEEPALIVE void ensw_id_floor(ensw *h, double site, double counter) {
  if (site >= 1 && site <= ENS_SITE_MAX && counter >= 0 && counter < 1099511627776.0)
    ens__session_id_floor(h->session, (uint32_t)site, (uint64_t)counter);
}

EMSCRIPTEN_KEEPALIVE const char *ensw_kind(ensw *h) {
  const ens_doc *d = ens_session_doc(h->session);
  return d && ens_doc_kind(d) ? ens_doc_kind(d) : "";
}

EMSCRIPTEN_KEEPALIVE const char *ensw_doc_hash(ensw *h) {
  ens_buf b = {0};
  const ens_doc *d = ens_session_doc(h->session);
  if (d) ens__buf_printf(&b, "%016" PRIx64, ens_doc_hash(d));
  return s_out(h, &b);
}

EMSCRIPTEN_KEEPALIVE const char *ensw_undo(ensw *h, int redo) {
  ens_undo_report r;
  memset(&r, 0, sizeof r);
  int rc = redo ? ens_session_redo(h->session, &r) : ens_session_undo(h->session, &r);
  ens_buf b = {0};
  ens__buf_printf(&b, "{\"done\":%s,\"applied\":%zu,\"skipped\":%zu", rc == 0 && r.applied ? "true" : "false",
                  r.applied, r.skipped);
  ensw_json_key_str(&b, "label", r.label);
  char note[256] = "";
  size_t newer = 0, gone = 0;
  for (size_t i = 0; i < r.skipped; i++) {
    if (r.skips[i].reason == ENS_SKIP_NEWER_REMOTE) newer++;
    else gone++;
  }
  if (newer || gone)
    snprintf(note, sizeof note, "%s \"%s\" left out %zu change%s: %s%s%s", redo ? "Redo" : "Undo", r.label,
             r.skipped, r.skipped == 1 ? "" : "s", newer ? "a collaborator changed it since" : "",
             newer && gone ? "; " : "", gone ? "it is gone" : "");
  ensw_json_key_str(&b, "note", note);
  if (rc && rc != ENS_EEMPTY) ensw_json_key_str(&b, "error", ens_error_last());
  ens__buf_puts(&b, "}");
  ens_undo_report_clear(&r);
  return s_out(h, &b);
}

EMSCRIPTEN_KEEPALIVE int ensw_set_selection(ensw *h, const char *ids) {
  ens_id sel[1024];
  size_t n = ensw_parse_ids(ids, sel, 1024);
  return ens_session_set_selection(h->session, sel, n);
}

EMSCRIPTEN_KEEPALIVE int ensw_set_pointer(ensw *h, double x, double y, const char *ctx) {
  ens_id id = ENS_ID_NONE;
  ensw_parse_ids(ctx, &id, 1);
  return ens_session_set_pointer(h->session, x, y, id);
}

EMSCRIPTEN_KEEPALIVE void ensw_clear_pointer(ensw *h) { ens_session_clear_pointer(h->session); }

/* One gesture: one transaction, one step of the user's own undo. */
int ensw__commit(ensw *h, ens_txn *txn) {
  /* its new ids were made when it was built: kept before it can leave */
  s_js_mark(h, (double)ens_session_site(h->session), (double)ens__session_id_mark(h->session));
  int rc = ens_session_commit(h->session, txn);
  ens_txn_free(txn);
  return rc;
}

ens_doc *ensw__doc(ensw *h) { return ens_session_doc(h->session); }
const char *ensw__out(ensw *h, ens_buf *b) { return s_out(h, b); }
