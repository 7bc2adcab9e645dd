/* Browsers' transport (docs/protocol.md, "WebSocket"), end to end on
 * loopback: a WebSocket client made with libwebsockets' client API runs
 * the library's own session client (detached: client_int.h) over /ws, as
 * the browser's WebAssembly does, beside a ZeroMQ client of the same
 * session. Both edit and converge on the server's document; a cut
 * WebSocket loses nothing; without a valid token nothing of the document
 * is sent; a revoked token is dropped; garbage is refused with the server
 * unharmed; the web client's files and /status; TLS. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ensemble.h"
#include "sync/client_int.h"
#include "sync/msg.h"
#include "sync/net.h"
#include "sync/ws.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/mpack.h"

#define DOC_OBJECTS 200

/* --- a WebSocket client ------------------------------------------------------ */

typedef struct s_q {
  struct s_q *next;
  size_t len;
  unsigned char data[]; /* LWS_PRE, then the message */
} s_q;

typedef struct {
  struct lws_context *ctx;
  struct lws *wsi;
  int port, tls;
  const char *token; /* sent as auth first */
  ens_session *s;    /* detached session; NULL: raw (the test sends and reads messages itself) */
  int open, closing;
  int64_t down_until; /* a cut: no connection before this */
  int64_t retry_at;
  int connections, closes;
  s_q *head, *tail;
  ens_buf rx;
  lws_sorted_usec_list_t sul;
  /* raw: what arrived */
  int got[ENS_MSG_LAST + 1];
  size_t got_count;
  int error_code;
  int64_t closed_at;
  /* session events */
  int live_events, failed_events, failed_code, rejected, acked;
  char peer_name[ENS_MAX_NAME + 1];
  int peer_has_pointer;
  double peer_px;
} s_wsc;

static void s_q_clear(s_wsc *w) {
  for (s_q *q = w->head, *n; q; q = n) {
    n = q->next;
    free(q);
  }
  w->head = w->tail = NULL;
}

static void s_q_push(s_wsc *w, const void *data, size_t len, int front) {
  s_q *q = malloc(sizeof *q + LWS_PRE + len);
  assert_non_null(q);
  q->len = len;
  memcpy(q->data + LWS_PRE, data, len);
  q->next = NULL;
  if (front) {
    q->next = w->head;
    w->head = q;
    if (!w->tail) w->tail = q;
  } else {
    if (w->tail) w->tail->next = q;
    else w->head = q;
    w->tail = q;
  }
  if (w->wsi) lws_callback_on_writable(w->wsi);
}

static void s_got(s_wsc *w, const unsigned char *d, size_t n) {
  static ens__msg m;
  w->got_count++;
  if (ens__msg_decode(d, n, &m) == 0) {
    w->got[m.type]++;
    if (m.type == ENS_MSG_ERROR) w->error_code = (int)m.code;
  }
}

static int s_cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
  s_wsc *w = lws_context_user(lws_get_context(wsi));
  switch (reason) {
  case LWS_CALLBACK_CLIENT_ESTABLISHED:
    w->open = 1;
    w->connections++;
    if (w->token) {
      ens_buf b = ENS_BUF_INIT;
      ens__mp_array(&b, 2);
      ens__mp_uint(&b, ENS_MSG_AUTH);
      ens__mp_str(&b, w->token, strlen(w->token));
      s_q_push(w, b.data, b.len, 1);
      ens__buf_free(&b);
    }
    if (w->s) ens_session_reconnect(w->s); /* its hello goes on this connection, at the next tick */
    return 0;
  case LWS_CALLBACK_CLIENT_RECEIVE:
    if (w->closing) return 0; /* a connection the session has left */
    if (lws_is_first_fragment(wsi)) w->rx.len = 0;
    ens__buf_append(&w->rx, in, len);
    if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
      if (w->s) {
        if (ens__session_handle(w->s, w->rx.data, w->rx.len, ens__now_ms())) fail_msg("session: %s", ens_error_last());
      } else {
        s_got(w, w->rx.data, w->rx.len);
      }
      w->rx.len = 0;
    }
    return 0;
  case LWS_CALLBACK_CLIENT_WRITEABLE: {
    if (w->closing) return -1;
    s_q *q = w->head;
    if (!q) return 0;
    w->head = q->next;
    if (!w->head) w->tail = NULL;
    int n = lws_write(wsi, q->data + LWS_PRE, q->len, LWS_WRITE_BINARY);
    free(q);
    if (n < 0) return -1;
    if (w->head) lws_callback_on_writable(wsi);
    return 0;
  }
  case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
  case LWS_CALLBACK_CLIENT_CLOSED:
    if (reason == LWS_CALLBACK_CLIENT_CLOSED || w->wsi == wsi) {
      w->open = w->closing = 0;
      w->wsi = NULL;
      w->closes++;
      w->closed_at = ens__now_ms();
      w->retry_at = ens__now_ms() + 100;
      s_q_clear(w);
      if (w->s) ens_session_reconnect(w->s); /* down until the next connection */
    }
    return 0;
  default: return 0;
  }
}

static const struct lws_protocols s_client_protocols[] = {{"ensemble", s_cb, 0, 64 * 1024, 0, NULL, 0},
                                                          {NULL, NULL, 0, 0, 0, NULL, 0}};

/* lws_service returns at the latest when this fires. */
static void s_wake(lws_sorted_usec_list_t *sul) {
  s_wsc *w = lws_container_of(sul, s_wsc, sul);
  lws_sul_schedule(w->ctx, 0, &w->sul, s_wake, 3 * 1000);
}

static void s_wsc_connect(s_wsc *w) {
  struct lws_client_connect_info ci;
  memset(&ci, 0, sizeof ci);
  char host[64];
  snprintf(host, sizeof host, "127.0.0.1:%d", w->port);
  ci.context = w->ctx;
  ci.address = "127.0.0.1";
  ci.port = w->port;
  ci.path = "/ws";
  ci.host = host;
  ci.protocol = "ensemble";
  ci.pwsi = &w->wsi;
  if (w->tls) ci.ssl_connection = LCCSCF_USE_SSL | LCCSCF_ALLOW_SELFSIGNED | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK;
  w->retry_at = ens__now_ms() + 1000;
  if (!lws_client_connect_via_info(&ci)) w->wsi = NULL;
}

static int s_wire(const void *bytes, size_t len, void *user) {
  s_wsc *w = user;
  if (!w->open || w->closing) return 1;
  s_q_push(w, bytes, len, 0);
  return 0;
}

static void s_on_event(ens_session *s, const ens_session_event *ev, void *user) {
  s_wsc *w = user;
  switch (ev->kind) {
  case ENS_SESSION_CONNECTED: w->live_events++; break;
  case ENS_SESSION_FAILED:
    w->failed_events++;
    w->failed_code = ev->code;
    __attribute__((fallthrough)); /* the connection is left */
  case ENS_SESSION_RECONNECTING:
    if (w->open && !w->closing) {
      w->closing = 1;
      s_q_clear(w);
      lws_callback_on_writable(w->wsi);
    }
    break;
  case ENS_SESSION_REJECTED: w->rejected++; break;
  case ENS_SESSION_ACKED: w->acked++; break;
  case ENS_SESSION_JOINED:
  case ENS_SESSION_PRESENCE:
    snprintf(w->peer_name, sizeof w->peer_name, "%s", ev->name ? ev->name : "");
    w->peer_has_pointer = ev->has_pointer;
    w->peer_px = ev->pointer_x;
    break;
  default: break;
  }
}

/* A client of port; with a session (name) it joins, raw without. */
static void s_wsc_init(s_wsc *w, int port, int tls, const char *token, const char *name) {
  memset(w, 0, sizeof *w);
  w->port = port;
  w->tls = tls;
  w->token = token;
  struct lws_context_creation_info info;
  memset(&info, 0, sizeof info);
  info.port = CONTEXT_PORT_NO_LISTEN;
  info.protocols = s_client_protocols;
  info.user = w;
  /* the server's certificate is self-signed: no system trust store (TLS only when asked) */
  info.options = tls ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT | LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS : 0;
  w->ctx = lws_create_context(&info);
  assert_non_null(w->ctx);
  lws_sul_schedule(w->ctx, 0, &w->sul, s_wake, 3 * 1000);
  if (name) {
    ens_session_opts so;
    memset(&so, 0, sizeof so);
    so.name = name;
    so.colour = 0x3366cc;
    so.on_event = s_on_event;
    so.user = w;
    assert_int_equal(ens__session_new_detached(&so, s_wire, w, &w->s), 0);
  }
  s_wsc_connect(w);
}

/* One turn: the socket, then the session's timers (only on an open
 * connection: down, its changes wait in its queue). */
static void s_wsc_step(s_wsc *w) {
  lws_service(w->ctx, 0);
  int64_t now = ens__now_ms();
  if (!w->wsi && now >= w->down_until && now >= w->retry_at && (w->s || !w->connections)) s_wsc_connect(w);
  if (w->s && w->open && !w->closing) {
    int rc = ens__session_tick(w->s, now);
    if (rc && !w->failed_events) fail_msg("session: %s", ens_error_last());
  }
}

/* Cuts the connection now; no new one for ms. */
static void s_wsc_cut(s_wsc *w, int ms) {
  w->down_until = ens__now_ms() + ms;
  if (w->wsi) {
    w->closing = 1;
    lws_callback_on_writable(w->wsi);
  }
}

static void s_wsc_free(s_wsc *w) {
  ens_session_free(w->s);
  w->s = NULL;
  s_q_clear(w);
  lws_sul_cancel(&w->sul);
  lws_context_destroy(w->ctx);
  ens__buf_free(&w->rx);
}

/* --- a server with HTTP, and a ZeroMQ client ------------------------------------------ */

typedef struct {
  char dir[64], store[128], invites[128], root[128];
  ens_server *srv;
  ens_doc *initial;
  int port;
  char status_query[128]; /* ?token=... when /status wants one */
  char log[64 * 1024];
  size_t loglen;
  int zlive, zjoined;
  char zpeer[ENS_MAX_NAME + 1];
  int zpeer_pointer;
  double zpeer_px;
} s_world;

static void s_log(const char *line, void *user) {
  s_world *w = user;
  size_t n = strlen(line);
  if (w->loglen + n + 1 < sizeof w->log) {
    memcpy(w->log + w->loglen, line, n);
    w->log[w->loglen + n] = '\n';
    w->loglen += n + 1;
    w->log[w->loglen] = '\0';
  }
}

static void s_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static size_t s_next_max_unread; /* the next server's budget per connection (0: the default) */

static void s_world_up(s_world *w, const char *name, int with_invites, const char *cert, const char *key) {
  memset(w, 0, sizeof *w);
  snprintf(w->dir, sizeof w->dir, "/tmp/ens-ws-XXXXXX");
  assert_non_null(mkdtemp(w->dir));
  snprintf(w->store, sizeof w->store, "%s/log.db", w->dir);
  snprintf(w->invites, sizeof w->invites, "%s/invites", w->dir);
  snprintf(w->root, sizeof w->root, "%s/web", w->dir);
  char p[256];
  assert_int_equal(mkdir(w->root, 0700), 0);
  snprintf(p, sizeof p, "%s/app", w->root);
  assert_int_equal(mkdir(p, 0700), 0);
  snprintf(p, sizeof p, "%s/index.html", w->root);
  s_write(p, "<!doctype html><title>Ensemble</title>\n");
  snprintf(p, sizeof p, "%s/app/main.js", w->root);
  s_write(p, "export const x = 1;\n");
  snprintf(p, sizeof p, "%s/secret.txt", w->dir);
  s_write(p, "outside the web root\n");
  tu_rng r = {tu_seed(name, 20261204)};
  w->initial = tu_random_doc(&r, 0xfff0, DOC_OBJECTS);
  ens_server_opts o;
  memset(&o, 0, sizeof o);
  o.endpoint = "tcp://127.0.0.1:*";
  o.store_path = w->store;
  o.initial = w->initial;
  o.heartbeat_ms = 200;
  o.max_unread = s_next_max_unread;
  o.on_log = s_log;
  o.user = w;
  assert_int_equal(ens_server_new(&o, &w->srv), 0);
  ens_server_http_opts h = {"127.0.0.1:0", cert, key, w->root, with_invites ? w->invites : NULL, 0};
  if (ens_server_http(w->srv, &h)) fail_msg("http: %s", ens_error_last());
  w->port = ens_server_http_port(w->srv);
  assert_true(w->port > 0);
}

static void s_world_down(s_world *w) {
  ens_server_free(w->srv);
  ens_doc_free(w->initial);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", w->dir);
  assert_int_equal(system(cmd), 0);
}

static void s_zevent(ens_session *s, const ens_session_event *ev, void *user) {
  s_world *w = user;
  if (ev->kind == ENS_SESSION_CONNECTED) w->zlive++;
  if (ev->kind == ENS_SESSION_JOINED || ev->kind == ENS_SESSION_PRESENCE) {
    w->zjoined++;
    snprintf(w->zpeer, sizeof w->zpeer, "%s", ev->name ? ev->name : "");
    w->zpeer_pointer = ev->has_pointer;
    w->zpeer_px = ev->pointer_x;
  }
}

static ens_session *s_zclient(s_world *w) {
  ens_session_opts so;
  memset(&so, 0, sizeof so);
  so.endpoint = ens_server_endpoint(w->srv);
  so.name = "zeromq";
  so.colour = 0xcc3366;
  so.on_event = s_zevent;
  so.user = w;
  ens_session *s;
  assert_int_equal(ens_session_new(&so, &s), 0);
  return s;
}

/* One turn of everything in this thread. */
static void s_pump(s_world *w, ens_session *z, s_wsc *a, s_wsc *b) {
  if (ens_server_poll(w->srv, 1)) fail_msg("server: %s", ens_error_last());
  if (z && ens_session_poll(z, 0)) fail_msg("zeromq client: %s", ens_error_last());
  if (a) s_wsc_step(a);
  if (b) s_wsc_step(b);
}

/* A plain HTTP GET (the path sent as it is); the status, the body in body. */
static int s_http_get(int port, const char *path, char *body, size_t cap, char *type, size_t tcap) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(fd >= 0);
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  char req[512];
  int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n", path, port);
  assert_int_equal(write(fd, req, (size_t)n), n);
  static char resp[64 * 1024];
  size_t got = 0;
  ssize_t k;
  while (got + 1 < sizeof resp && (k = read(fd, resp + got, sizeof resp - 1 - got)) > 0) got += (size_t)k;
  resp[got] = '\0';
  close(fd);
  int status = 0;
  if (sscanf(resp, "HTTP/1.1 %d", &status) != 1) return -1;
  const char *b = strstr(resp, "\r\n\r\n");
  snprintf(body, cap, "%s", b ? b + 4 : "");
  if (type) {
    type[0] = '\0';
    const char *t = strcasestr(resp, "\r\ncontent-type: ");
    if (t) {
      t += 16;
      size_t l = strcspn(t, "\r");
      snprintf(type, tcap, "%.*s", (int)l, t);
    }
  }
  return status;
}

/* /status's hash and head. */
static void s_status(s_world *w, const char *query, uint64_t *hash, uint64_t *head, int *clients) {
  char body[512], path[256];
  snprintf(path, sizeof path, "/status%s", query ? query : "");
  assert_int_equal(s_http_get(w->port, path, body, sizeof body, NULL, 0), 200);
  unsigned long long hh, hd;
  if (sscanf(body, "{\"head\":%llu,\"hash\":\"%16llx\",\"kind\":\"%*[^\"]\",\"clients\":%d}", &hd, &hh, clients) != 3)
    fail_msg("status: %s", body);
  *hash = hh;
  *head = hd;
}

/* One random edit of session s, or an undo or redo. */
static int s_edit(tu_rng *r, ens_session *s) {
  ens_doc *doc = ens_session_doc(s);
  if (!doc) return 0;
  uint32_t dice = tu_below(r, 100);
  if (dice < 10) return ens_session_undo(s, NULL) == 0;
  if (dice < 15) return ens_session_redo(s, NULL) == 0;
  ens_txn *t = tu_random_txn(r, doc, 3);
  int ok = ens_session_commit(s, t) == 0;
  ens_txn_free(t);
  return ok;
}

/* Everything settles: both clients have nothing pending and the server's
 * head, and /status says the server's hash. */
static void s_converge(s_world *w, ens_session *z, s_wsc *a) {
  int64_t deadline = ens__now_ms() + 20000;
  for (;;) {
    s_pump(w, z, a, NULL);
    uint64_t head = ens_server_head(w->srv);
    if (ens_session_is_live(z) && ens_session_is_live(a->s) && !ens_session_pending(z) && !ens_session_pending(a->s) &&
        ens_session_seq(z) == head && ens_session_seq(a->s) == head)
      break;
    if (ens__now_ms() > deadline)
      fail_msg("no convergence: head %llu, zeromq %llu (%zu pending), browser %llu (%zu pending)",
               (unsigned long long)head, (unsigned long long)ens_session_seq(z), ens_session_pending(z),
               (unsigned long long)ens_session_seq(a->s), ens_session_pending(a->s));
  }
  uint64_t h = ens_doc_hash(ens_server_doc(w->srv));
  assert_true(ens_doc_hash(ens_session_doc(z)) == h);
  assert_true(ens_doc_hash(ens_session_doc(a->s)) == h);
  /* /status catches up within its 50 ms */
  uint64_t sh = 0, shead = 0;
  int clients = 0;
  for (int i = 0; i < 100; i++) {
    s_pump(w, z, a, NULL);
    s_status(w, w->status_query, &sh, &shead, &clients);
    if (sh == h && shead == ens_server_head(w->srv)) break;
    usleep(10000);
  }
  assert_true(sh == h);
  assert_int_equal(shead, ens_server_head(w->srv));
  assert_int_equal(clients, 2);
}

static void s_join(s_world *w, ens_session *z, s_wsc *a) {
  int64_t deadline = ens__now_ms() + 10000;
  while (!(ens_session_is_live(z) && a->s && ens_session_is_live(a->s))) {
    s_pump(w, z, a, NULL);
    if (ens__now_ms() > deadline) fail_msg("the clients did not join (%d WebSocket connections)", a->connections);
  }
}

/* A browser and a ZeroMQ client edit one document at once, presence with
 * a pointer crosses, and a WebSocket cut while the browser keeps editing
 * loses nothing. */
static void test_browser_and_zeromq_converge(void **state) {
  (void)state;
  static s_world w;
  static s_wsc a;
  s_world_up(&w, "ws-converge", 0, NULL, NULL);
  ens_session *z = s_zclient(&w);
  s_wsc_init(&a, w.port, 0, NULL, "browser");
  s_join(&w, z, &a);
  tu_rng r = {tu_seed("ws-converge-edits", 7)};
  int za = 0, wa = 0;
  for (int i = 0; i < 400; i++) {
    if (i % 2) za += s_edit(&r, z);
    else wa += s_edit(&r, a.s);
    s_pump(&w, z, &a, NULL);
  }
  s_converge(&w, z, &a);
  print_message("%d edits from the browser, %d from ZeroMQ; server head %llu\n", wa, za,
                (unsigned long long)ens_server_head(w.srv));
  assert_true(wa > 100 && za > 100);

  /* a transaction of 600 KB: many WebSocket fragments each way */
  {
    static char big[600 * 1024];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    const ens_obj *root = ens_doc_root(ens_session_doc(a.s));
    int rejected = a.rejected, acked = a.acked;
    ens_txn *t = ens_txn_new("a large value", NULL);
    assert_int_equal(ens_txn_set(t, ens_obj_id(ens_obj_child(root, 0)), "name", ens_str(big)), 0);
    assert_int_equal(ens_session_commit(a.s, t), 0);
    ens_txn_free(t);
    s_converge(&w, z, &a);
    assert_int_equal(a.rejected, rejected); /* it went through, whole */
    assert_int_equal(a.acked, acked + 1);
  }

  /* presence and its pointer, from the browser to the ZeroMQ client */
  assert_int_equal(ens_session_set_pointer(a.s, 42.5, 7, 0), 0);
  int64_t deadline = ens__now_ms() + 5000;
  while (!(w.zpeer_pointer && w.zpeer_px == 42.5)) {
    s_pump(&w, z, &a, NULL);
    if (ens__now_ms() > deadline) fail_msg("the browser's pointer did not reach the ZeroMQ client");
  }
  assert_string_equal(w.zpeer, "browser");

  /* the cut: 1 s without a connection while the browser edits on */
  uint64_t head0 = ens_server_head(w.srv);
  int acked0 = a.acked, during = 0, connections0 = a.connections, rejected0 = a.rejected;
  s_wsc_cut(&a, 1000);
  int64_t until = ens__now_ms() + 1000;
  while (ens__now_ms() < until) {
    if (!a.open) during += s_edit(&r, a.s);
    s_pump(&w, z, &a, NULL);
    usleep(5000);
  }
  assert_true(during > 20);
  assert_true(ens_session_pending(a.s) > 0);
  assert_int_equal(ens_server_head(w.srv), head0); /* nothing of it arrived while cut */
  s_converge(&w, z, &a);
  assert_true(a.connections > connections0);
  assert_int_equal(a.rejected, rejected0); /* alone while cut: nothing of it can be refused */
  print_message("%d edits made while cut, all acknowledged after the reconnect (%d acks)\n", during,
                a.acked - acked0);
  assert_true(a.acked - acked0 >= during);
  ens_session_free(z);
  s_wsc_free(&a);
  s_world_down(&w);
}

/* Tokens: nothing of the document without one (or with a wrong one); a
 * valid one joins under its invite's name; revoked, it is dropped within
 * 3 s; no token ever in the server's log; /status wants a token. */
static void test_tokens(void **state) {
  (void)state;
  static s_world w;
  static s_wsc raw, bad, ok;
  char token[ENS_TOKEN_LEN + 1], other[ENS_TOKEN_LEN + 1];
  /* the file exists before the server starts: invites are required from the first connection */
  char dir[64] = "/tmp/ens-ws-inv-XXXXXX", inv[128];
  assert_non_null(mkdtemp(dir));
  snprintf(inv, sizeof inv, "%s/invites", dir);
  s_world_up(&w, "ws-tokens", 1, NULL, NULL);
  assert_int_equal(ens_invite_add(w.invites, "Ada Lovelace", token), 0);
  assert_int_equal(ens_invite_add(w.invites, "Ada Lovelace", other), ENS_EEXISTS);
  assert_int_equal(ens_invite_add(inv, "Someone Else", other), 0); /* a token of another server */
  struct stat st;
  assert_int_equal(stat(w.invites, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  size_t flen;
  char *file = tu_read_file(w.invites, &flen);
  assert_non_null(file);
  assert_null(strstr(file, token)); /* only its hash */
  free(file);
  ens_session *z = s_zclient(&w);
  /* the invites file is read again within a second */
  int64_t deadline = ens__now_ms() + 3000;
  while (!strstr(w.log, "invites read: 1")) {
    s_pump(&w, z, NULL, NULL);
    if (ens__now_ms() > deadline) fail_msg("the invites file was not read again; log:\n%s", w.log);
  }

  /* raw: a hello without auth, and one after a wrong token */
  s_wsc_init(&raw, w.port, 0, NULL, NULL);
  s_wsc_init(&bad, w.port, 0, other, NULL);
  ens__msg m;
  memset(&m, 0, sizeof m);
  m.type = ENS_MSG_HELLO;
  m.vmin = 1;
  m.vmax = ENS_PROTO_VERSION;
  memset(m.client, 0x5a, sizeof m.client);
  ens_buf hello = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(&m, &hello), 0);
  int sent_raw = 0, sent_bad = 0;
  deadline = ens__now_ms() + 5000;
  while (!(raw.closes && bad.closes)) {
    s_pump(&w, z, &raw, &bad);
    if (raw.open && !sent_raw) sent_raw = (s_q_push(&raw, hello.data, hello.len, 0), 1);
    if (bad.open && !sent_bad) sent_bad = (s_q_push(&bad, hello.data, hello.len, 0), 1);
    if (ens__now_ms() > deadline) fail_msg("refused connections were not closed");
  }
  for (s_wsc *c = &raw; c; c = c == &raw ? &bad : NULL) {
    assert_int_equal(c->got_count, 1); /* the error, and nothing else */
    assert_int_equal(c->got[ENS_MSG_ERROR], 1);
    assert_int_equal(c->error_code, ENS_PERR_DENIED);
    assert_int_equal(c->got[ENS_MSG_WELCOME] + c->got[ENS_MSG_SNAPSHOT] + c->got[ENS_MSG_ENTRIES], 0);
  }
  s_wsc_free(&raw);
  s_wsc_free(&bad);
  ens__buf_free(&hello);
  /* /status is for the invited */
  char body[256];
  char q[128];
  assert_int_equal(s_http_get(w.port, "/status", body, sizeof body, NULL, 0), 403);
  snprintf(q, sizeof q, "/status?token=%s", other);
  assert_int_equal(s_http_get(w.port, q, body, sizeof body, NULL, 0), 403);
  uint64_t sh, shead;
  int clients;
  snprintf(w.status_query, sizeof w.status_query, "?token=%s", token);
  s_status(&w, w.status_query, &sh, &shead, &clients);

  /* the invited one joins, shown by the invite's name */
  s_wsc_init(&ok, w.port, 0, token, "a name the browser chose");
  s_join(&w, z, &ok);
  /* the browser learns the name it is shown by (the welcome's), not the
   * one it chose; a client without a key or an invite keeps its own */
  assert_string_equal(ens_session_name(ok.s), "Ada Lovelace");
  assert_string_equal(ens_session_name(z), "zeromq");
  assert_int_equal(ens_session_set_selection(ok.s, NULL, 0), 0);
  deadline = ens__now_ms() + 5000;
  while (strcmp(w.zpeer, "Ada Lovelace") != 0) {
    s_pump(&w, z, &ok, NULL);
    if (ens__now_ms() > deadline) fail_msg("the browser's presence did not come with its invite's name: %s", w.zpeer);
  }
  tu_rng r = {tu_seed("ws-tokens-edits", 9)};
  for (int i = 0; i < 50; i++) {
    s_edit(&r, ok.s);
    s_pump(&w, z, &ok, NULL);
  }
  s_converge(&w, z, &ok);

  /* revoked: dropped within 3 s, with error 9 */
  assert_int_equal(ens_invite_revoke(w.invites, "Ada Lovelace"), 0);
  assert_int_equal(ens_invite_revoke(w.invites, "Ada Lovelace"), ENS_ENOTFOUND);
  int64_t t0 = ens__now_ms();
  deadline = t0 + 3000;
  while (!ok.failed_events) {
    s_pump(&w, z, &ok, NULL);
    if (ens__now_ms() > deadline) fail_msg("a revoked token's connection is still live");
  }
  int64_t dropped_ms = ens__now_ms() - t0;
  assert_int_equal(ok.failed_code, ENS_PERR_DENIED);
  print_message("revoked token dropped in %lld ms\n", (long long)dropped_ms);
  deadline = ens__now_ms() + 3000;
  while (ens_server_client_count(w.srv) != 1) {
    s_pump(&w, z, &ok, NULL);
    if (ens__now_ms() > deadline) fail_msg("the server still counts the revoked browser");
  }
  s_wsc_free(&ok);
  assert_null(strstr(w.log, token));
  assert_null(strstr(w.log, other));
  assert_non_null(strstr(w.log, "revoked"));
  char **names;
  size_t n;
  assert_int_equal(ens_invite_list(w.invites, &names, &n), 0);
  assert_int_equal(n, 0);
  ens_invite_names_free(names, n);
  ens_session_free(z);
  s_world_down(&w);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* Garbage, a text frame and a message over the limit are refused with an
 * error and the connection closed; the session goes on. */
static void test_garbage_is_refused(void **state) {
  (void)state;
  static s_world w;
  static s_wsc g[3];
  s_world_up(&w, "ws-garbage", 0, NULL, NULL);
  ens_session *z = s_zclient(&w);
  int64_t deadline = ens__now_ms() + 5000;
  while (!ens_session_is_live(z)) {
    s_pump(&w, z, NULL, NULL);
    if (ens__now_ms() > deadline) fail_msg("no join");
  }
  static const unsigned char junk[] = {0xc1, 0xff, 0x00, 0x93};
  size_t big_len = ENS_MAX_MESSAGE + 100;
  unsigned char *big = calloc(1, big_len);
  assert_non_null(big);
  big[0] = 0x92;
  for (int k = 0; k < 3; k++) s_wsc_init(&g[k], w.port, 0, NULL, NULL);
  int sent[3] = {0};
  deadline = ens__now_ms() + 10000;
  while (!(g[0].closes && g[1].closes && g[2].closes)) {
    s_pump(&w, z, &g[0], &g[1]);
    s_wsc_step(&g[2]);
    if (g[0].open && !sent[0]) sent[0] = (s_q_push(&g[0], junk, sizeof junk, 0), 1);
    if (g[1].open && !sent[1]) sent[1] = (s_q_push(&g[1], big, big_len, 0), 1);
    if (g[2].open && !sent[2]) { /* a text frame */
      unsigned char t[LWS_PRE + 8];
      memcpy(t + LWS_PRE, "hello", 5);
      lws_write(g[2].wsi, t + LWS_PRE, 5, LWS_WRITE_TEXT);
      sent[2] = 1;
    }
    if (ens__now_ms() > deadline) fail_msg("bad input did not close its connection");
  }
  assert_int_equal(g[0].error_code, ENS_PERR_MALFORMED);
  assert_int_equal(g[1].error_code, ENS_PERR_TOO_LARGE);
  assert_int_equal(g[2].error_code, ENS_PERR_MALFORMED);
  for (int k = 0; k < 3; k++) {
    assert_int_equal(g[k].got[ENS_MSG_WELCOME] + g[k].got[ENS_MSG_SNAPSHOT], 0);
    s_wsc_free(&g[k]);
  }
  free(big);
  /* the session goes on */
  tu_rng r = {tu_seed("ws-garbage-edits", 3)};
  for (int i = 0; i < 20; i++) s_edit(&r, z);
  deadline = ens__now_ms() + 5000;
  while (ens_session_pending(z)) {
    s_pump(&w, z, NULL, NULL);
    if (ens__now_ms() > deadline) fail_msg("the server stopped acknowledging");
  }
  assert_true(ens_doc_hash(ens_session_doc(z)) == ens_doc_hash(ens_server_doc(w.srv)));
  ens_session_free(z);
  s_world_down(&w);
}

/* The same budget as ZeroMQ peers': a browser that reads nothing (its
 * pings echo no pong's mark) is sent error 5 once max_unread bytes went
 * to it, and its WebSocket is closed; the others go on. */
static void test_browser_over_budget_is_dropped(void **state) {
  (void)state;
  static s_world w;
  static s_wsc raw;
  s_next_max_unread = 64 * 1024;
  s_world_up(&w, "ws-budget", 0, NULL, NULL);
  s_next_max_unread = 0;
  ens_session *z = s_zclient(&w);
  s_wsc_init(&raw, w.port, 0, NULL, NULL);
  ens__msg m;
  memset(&m, 0, sizeof m);
  m.type = ENS_MSG_HELLO;
  m.vmin = 1;
  m.vmax = ENS_PROTO_VERSION;
  memset(m.client, 0x6b, sizeof m.client);
  ens_buf hello = ENS_BUF_INIT, ping = ENS_BUF_INIT;
  assert_int_equal(ens__msg_encode(&m, &hello), 0);
  memset(&m, 0, sizeof m);
  m.type = ENS_MSG_PING;
  m.token = 1;
  assert_int_equal(ens__msg_encode(&m, &ping), 0);
  int sent = 0;
  int64_t deadline = ens__now_ms() + 10000, last_ping = 0;
  while (!(ens_session_is_live(z) && raw.got[ENS_MSG_WELCOME])) {
    s_pump(&w, z, &raw, NULL);
    if (raw.open && !sent) sent = (s_q_push(&raw, hello.data, hello.len, 0), 1);
    if (ens__now_ms() > deadline) fail_msg("no join");
  }
  tu_rng r = {tu_seed("ws-budget-edits", 11)};
  int edits = 0;
  deadline = ens__now_ms() + 30000;
  while (!raw.closes) {
    edits += s_edit(&r, z);
    s_pump(&w, z, &raw, NULL);
    if (raw.open && ens__now_ms() - last_ping >= 100) { /* alive, but proving nothing read */
      s_q_push(&raw, ping.data, ping.len, 0);
      last_ping = ens__now_ms();
    }
    if (ens__now_ms() > deadline) fail_msg("a browser that reads nothing was not dropped (%d edits)", edits);
  }
  assert_int_equal(raw.error_code, ENS_PERR_LIMIT);
  assert_non_null(strstr(w.log, "too far behind"));
  print_message("a browser reading nothing dropped after %d edits\n", edits);
  deadline = ens__now_ms() + 5000;
  while (ens_server_client_count(w.srv) != 1 || ens_session_pending(z)) {
    s_pump(&w, z, NULL, NULL);
    if (ens__now_ms() > deadline) fail_msg("the session did not go on without it");
  }
  assert_true(ens_doc_hash(ens_session_doc(z)) == ens_doc_hash(ens_server_doc(w.srv)));
  ens__buf_free(&hello);
  ens__buf_free(&ping);
  s_wsc_free(&raw);
  ens_session_free(z);
  s_world_down(&w);
}

/* The web client's files: content types, index.html at /, 404 for what
 * is not there and for a path that climbs out of the root. */
static void test_static_files(void **state) {
  (void)state;
  static s_world w;
  s_world_up(&w, "ws-files", 0, NULL, NULL);
  ens_server_start(w.srv);
  char body[4096], type[128];
  assert_int_equal(s_http_get(w.port, "/", body, sizeof body, type, sizeof type), 200);
  assert_string_equal(body, "<!doctype html><title>Ensemble</title>\n");
  assert_string_equal(type, "text/html; charset=utf-8");
  assert_int_equal(s_http_get(w.port, "/app/main.js", body, sizeof body, type, sizeof type), 200);
  assert_string_equal(body, "export const x = 1;\n");
  assert_string_equal(type, "text/javascript; charset=utf-8");
  assert_int_equal(s_http_get(w.port, "/app/missing.js", body, sizeof body, NULL, 0), 404);
  assert_int_equal(s_http_get(w.port, "/../secret.txt", body, sizeof body, NULL, 0), 404);
  assert_null(strstr(body, "outside"));
  assert_int_equal(s_http_get(w.port, "/app/../../secret.txt", body, sizeof body, NULL, 0), 404);
  assert_null(strstr(body, "outside"));
  assert_int_equal(s_http_get(w.port, "/%2e%2e/secret.txt", body, sizeof body, NULL, 0), 404);
  assert_null(strstr(body, "outside"));
  assert_int_equal(s_http_get(w.port, "/app", body, sizeof body, NULL, 0), 404);
  char path[256];
  snprintf(path, sizeof path, "%s/../secret.txt", w.root);
  assert_int_equal(access(path, R_OK), 0); /* it is there, and was not served */
  char out[256];
  assert_int_equal(ens__ws_file_path(w.root, "/a/../b.js", out, sizeof out), -1);
  assert_int_equal(ens_server_stop(w.srv), 0);
  s_world_down(&w);
}

/* TLS: a join over wss with a self-signed certificate made here. */
static void test_tls_join(void **state) {
  (void)state;
  if (system("command -v openssl >/dev/null 2>&1") != 0) TU_SKIP("no openssl command to make a certificate");
  char dir[64] = "/tmp/ens-ws-tls-XXXXXX", cmd[512], cert[128], key[128];
  assert_non_null(mkdtemp(dir));
  snprintf(cert, sizeof cert, "%s/cert.pem", dir);
  snprintf(key, sizeof key, "%s/key.pem", dir);
  snprintf(cmd, sizeof cmd,
           "openssl req -x509 -newkey rsa:2048 -nodes -keyout %s -out %s -days 2 -subj /CN=127.0.0.1 "
           ">/dev/null 2>&1",
           key, cert);
  assert_int_equal(system(cmd), 0);
  static s_world w;
  static s_wsc a;
  s_world_up(&w, "ws-tls", 0, cert, key);
  ens_session *z = s_zclient(&w);
  s_wsc_init(&a, w.port, 1, NULL, "browser over TLS");
  s_join(&w, z, &a);
  tu_rng r = {tu_seed("ws-tls-edits", 5)};
  for (int i = 0; i < 100; i++) {
    s_edit(&r, i % 2 ? z : a.s);
    s_pump(&w, z, &a, NULL);
  }
  /* converged without /status (plain HTTP here would not be understood) */
  int64_t deadline = ens__now_ms() + 20000;
  for (;;) {
    s_pump(&w, z, &a, NULL);
    uint64_t head = ens_server_head(w.srv);
    if (!ens_session_pending(z) && !ens_session_pending(a.s) && ens_session_seq(z) == head &&
        ens_session_seq(a.s) == head)
      break;
    if (ens__now_ms() > deadline) fail_msg("no convergence over TLS");
  }
  uint64_t h = ens_doc_hash(ens_server_doc(w.srv));
  assert_true(ens_doc_hash(ens_session_doc(a.s)) == h && ens_doc_hash(ens_session_doc(z)) == h);
  ens_session_free(z);
  s_wsc_free(&a);
  s_world_down(&w);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  lws_set_log_level(LLL_ERR, NULL);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_browser_and_zeromq_converge),
      cmocka_unit_test(test_tokens),
      cmocka_unit_test(test_garbage_is_refused),
      cmocka_unit_test(test_browser_over_budget_is_dropped),
      cmocka_unit_test(test_static_files),
      cmocka_unit_test(test_tls_join),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof *tests);
}
