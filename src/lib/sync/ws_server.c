/* The WebSocket endpoint of a session server (ws.h says how the threads
 * meet; ws_http.c answers plain HTTP). Everything lws calls back runs in
 * the lws thread; the connections list, their outbound queues and the
 * inbound queue are shared with the server's thread under one mutex. The lws thread also
 * checks tokens (auth, the first message when there are invites), reads
 * the invites file again when it changes and drops connections whose
 * token was revoked: the server core only ever sees authorised peers. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <libwebsockets.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/buf.h"
#include "../util/error.h"
#include "invites.h"
#include "msg.h"
#include "net.h"
#include "ws.h"
#include "ws_int.h"

/* A browser's messages waiting for the server thread: past HIGH its
 * socket is not read (TCP pushes back on it) until they are down to LOW,
 * as ZeroMQ's receive limit does for its peers. */
#define IN_HIGH 256
#define IN_LOW 64
#define AUTH_WAIT_MS 10000 /* with invites, a connection that says nothing is closed */
#define RELOAD_US (1000 * 1000)

/* --- the inbound queue (server thread reads) ---------------------------------- */

static void s_wake(ens__ws *ws) {
  uint64_t one = 1;
  ssize_t n = write(ws->efd, &one, sizeof one);
  (void)n; /* a full counter is still readable */
}

/* Under the mutex. Takes data. */
static void s_push_in(ens__ws *ws, ens__ws_event_kind kind, uint64_t id, const char *user, unsigned char *data,
                      size_t len) {
  ens__ws_in *in = calloc(1, sizeof *in);
  if (!in) { /* out of memory: the message is lost, as a dropped connection would lose it */
    free(data);
    return;
  }
  in->ev.kind = kind;
  in->ev.rid[0] = 0;
  in->ev.rid[1] = 'w';
  in->ev.rid[2] = 's';
  for (int i = 0; i < 8; i++) in->ev.rid[3 + i] = (unsigned char)(id >> (56 - 8 * i));
  snprintf(in->ev.user, sizeof in->ev.user, "%s", user ? user : "");
  in->ev.data = data;
  in->ev.len = len;
  if (ws->in_tail) ws->in_tail->next = in;
  else ws->in_head = in;
  ws->in_tail = in;
  s_wake(ws);
}

static void s_log(ens__ws *ws, const char *fmt, ...) ENS_PRINTF(2, 3);
static void s_log(ens__ws *ws, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  char *copy = strdup(line);
  if (!copy) return;
  pthread_mutex_lock(&ws->mu);
  s_push_in(ws, ENS__WS_LOG, 0, NULL, (unsigned char *)copy, strlen(copy));
  pthread_mutex_unlock(&ws->mu);
}

static uint64_t s_rid_id(const void *rid) {
  const unsigned char *r = rid;
  uint64_t id = 0;
  for (int i = 0; i < 8; i++) id = id << 8 | r[3 + i];
  return id;
}

static ens__ws_conn *s_conn_find(ens__ws *ws, uint64_t id) {
  for (ens__ws_conn *c = ws->conns; c; c = c->next)
    if (c->id == id) return c;
  return NULL;
}

int ens__ws_next(ens__ws *ws, ens__ws_event *ev) {
  uint64_t n;
  ssize_t r = read(ws->efd, &n, sizeof n); /* nonblocking: clears the wakeup */
  (void)r;
  pthread_mutex_lock(&ws->mu);
  ens__ws_in *in = ws->in_head;
  if (in) {
    ws->in_head = in->next;
    if (!ws->in_head) ws->in_tail = NULL;
    if (in->ev.kind == ENS__WS_MESSAGE) {
      ens__ws_conn *c = s_conn_find(ws, s_rid_id(in->ev.rid));
      if (c && --c->in_queued <= IN_LOW && c->paused && !c->resume) {
        c->resume = 1;
        lws_cancel_service(ws->ctx);
      }
    }
    if (ws->in_head) s_wake(ws); /* more: stay readable */
  }
  pthread_mutex_unlock(&ws->mu);
  if (!in) return 0;
  *ev = in->ev;
  free(in);
  return 1;
}

/* --- the outbound queues (server thread writes) ------------------------------- */

/* Under the mutex. */
static int s_queue(ens__ws_conn *c, const void *data, size_t len) {
  ens__ws_out *o = malloc(sizeof *o + LWS_PRE + len);
  if (!o) return ens__error(ENS_ENOMEM, "out of memory queueing a message");
  o->next = NULL;
  o->len = len;
  memcpy(o->data + LWS_PRE, data, len);
  if (c->out_tail) c->out_tail->next = o;
  else c->out_head = o;
  c->out_tail = o;
  return 0;
}

int ens__ws_send(ens__ws *ws, const void *rid, size_t rid_len, const void *data, size_t len) {
  if (!ens__ws_is_rid(rid, rid_len)) return ENS_EINVAL;
  pthread_mutex_lock(&ws->mu);
  ens__ws_conn *c = s_conn_find(ws, s_rid_id(rid));
  /* a queue that held something already has its writer coming (the lws
   * thread asks for another turn while it finds more): only the first
   * message needs the wakeup, one system call rather than one each */
  int first = c && !c->out_head;
  int rc = !c || c->close_wanted ? ENS_EIO : s_queue(c, data, len);
  pthread_mutex_unlock(&ws->mu);
  if (rc == 0 && first) lws_cancel_service(ws->ctx);
  return rc;
}

void ens__ws_close(ens__ws *ws, const void *rid, size_t rid_len) {
  if (!ens__ws_is_rid(rid, rid_len)) return;
  pthread_mutex_lock(&ws->mu);
  ens__ws_conn *c = s_conn_find(ws, s_rid_id(rid));
  if (c) c->close_wanted = 1;
  pthread_mutex_unlock(&ws->mu);
  if (c) lws_cancel_service(ws->ctx);
}

void ens__ws_set_status(ens__ws *ws, uint64_t head, uint64_t hash, const char *kind, size_t clients) {
  pthread_mutex_lock(&ws->mu);
  snprintf(ws->status, sizeof ws->status, "{\"head\":%llu,\"hash\":\"%016llx\",\"kind\":\"%s\",\"clients\":%zu}\n",
           (unsigned long long)head, (unsigned long long)hash, kind ? kind : "", clients);
  pthread_mutex_unlock(&ws->mu);
}

size_t ens__ws_connections(ens__ws *ws) {
  size_t n = 0;
  pthread_mutex_lock(&ws->mu);
  for (ens__ws_conn *c = ws->conns; c; c = c->next) n++;
  pthread_mutex_unlock(&ws->mu);
  return n;
}

int ens__ws_port(const ens__ws *ws) { return ws->port; }
int ens__ws_fd(const ens__ws *ws) { return ws->efd; }

/* --- the lws thread ------------------------------------------------------------ */

/* Refuses c with a protocol error: queued, then the connection closes. */
static void s_refuse(ens__ws *ws, ens__ws_conn *c, int code, const char *why) {
  static _Thread_local ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = ENS_MSG_ERROR;
  m.code = (uint64_t)code;
  m.text = why;
  m.ntext = strlen(why);
  ens_buf b = ENS_BUF_INIT;
  pthread_mutex_lock(&ws->mu);
  if (!c->close_wanted && ens__msg_encode(&m, &b) == 0) s_queue(c, b.data, b.len);
  c->close_wanted = 1;
  pthread_mutex_unlock(&ws->mu);
  ens__buf_free(&b);
  if (c->wsi) lws_callback_on_writable(c->wsi);
}

/* The invites file again when it changed (its identity, size or time). */
static void s_reload(ens__ws *ws) {
  if (!ws->invites_path) return;
  struct stat st;
  int exists = stat(ws->invites_path, &st) == 0;
  if (exists == ws->inv_exists &&
      (!exists || (st.st_ino == ws->inv_st.st_ino && st.st_size == ws->inv_st.st_size &&
                   st.st_mtim.tv_sec == ws->inv_st.st_mtim.tv_sec && st.st_mtim.tv_nsec == ws->inv_st.st_mtim.tv_nsec)))
    return;
  ens__invites *inv;
  if (ens__invites_load(ws->invites_path, &inv)) {
    s_log(ws, "invites not read again, the last ones stay: %s", ens_error_last());
    ws->inv_exists = exists;
    if (exists) ws->inv_st = st;
    return;
  }
  ens__invites_free(ws->inv);
  ws->inv = inv;
  ws->inv_exists = exists;
  if (exists) ws->inv_st = st;
  s_log(ws, "invites read: %zu", ens__invites_count(inv));
  for (ens__ws_conn *c = ws->conns; c; c = c->next) {
    if (c->close_wanted || !c->wsi) continue;
    if (c->authed && !ens__invites_find(inv, c->hash)) {
      s_log(ws, "%s dropped: the invite was revoked", c->name);
      s_refuse(ws, c, ENS_PERR_DENIED, "not authorised: the invite was revoked");
    } else if (!c->authed && ens__ws_invites_required(ws)) { /* came in when nobody was invited */
      s_refuse(ws, c, ENS_PERR_DENIED, "not authorised");
    }
  }
}

static void s_tick(lws_sorted_usec_list_t *sul) {
  ens__ws *ws = lws_container_of(sul, ens__ws, sul);
  s_reload(ws);
  int64_t now = ens__now_ms();
  for (ens__ws_conn *c = ws->conns; c; c = c->next)
    if (!c->authed && ens__ws_invites_required(ws) && !c->close_wanted && c->wsi && now - c->opened > AUTH_WAIT_MS)
      s_refuse(ws, c, ENS_PERR_DENIED, "not authorised: no token");
  lws_sul_schedule(ws->ctx, 0, &ws->sul, s_tick, RELOAD_US);
}

/* One whole message from c. */
static void s_message(ens__ws *ws, ens__ws_conn *c) {
  const unsigned char *d = c->rx.data;
  size_t n = c->rx.len;
  /* auth = [14, token, later additions...]: a fixarray of 2 or more
   * whose type is 14 */
  int is_auth = n >= 2 && (d[0] & 0xf0) == 0x90 && (d[0] & 0x0f) >= 2 && d[1] == ENS_MSG_AUTH;
  if (!c->authed && ens__ws_invites_required(ws)) {
    if (!is_auth || ens__msg_decode(d, n, &ws->msg) || ws->msg.type != ENS_MSG_AUTH) {
      s_log(ws, "a connection dropped: its first message is no valid auth");
      s_refuse(ws, c, ENS_PERR_DENIED, "not authorised");
      return;
    }
    unsigned char h[ENS__HASH_LEN];
    ens__invites_hash(ws->msg.text, ws->msg.ntext, h);
    const char *name = ens__invites_find(ws->inv, h);
    if (!name) {
      s_log(ws, "a connection dropped: a token that is not invited");
      s_refuse(ws, c, ENS_PERR_DENIED, "not authorised");
      return;
    }
    c->authed = 1;
    memcpy(c->hash, h, sizeof h);
    snprintf(c->name, sizeof c->name, "%s", name);
    s_log(ws, "%s authorised by invite", c->name);
    return;
  }
  if (is_auth) return; /* again, or without invites: nothing to check */
  unsigned char *copy = malloc(n ? n : 1);
  if (!copy) {
    s_refuse(ws, c, ENS_PERR_SERVER, "out of memory");
    return;
  }
  memcpy(copy, d, n);
  pthread_mutex_lock(&ws->mu);
  s_push_in(ws, ENS__WS_MESSAGE, c->id, c->authed ? c->name : NULL, copy, n);
  if (++c->in_queued >= IN_HIGH && !c->paused) {
    c->paused = 1;
    c->resume = 0;
    lws_rx_flow_control(c->wsi, 0);
  }
  pthread_mutex_unlock(&ws->mu);
}

/* A WebSocket from a page of another site is refused (its Origin is not
 * this Host), and without invites the Host must name this machine: a page
 * elsewhere cannot read a loopback session through the user's browser,
 * nor through a DNS name it points at 127.0.0.1. */
static int s_upgrade_ok(ens__ws *ws, struct lws *wsi) {
  char uri[64], host[256], origin[300];
  if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || strcmp(uri, "/ws") != 0) return 0;
  if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0) return 0;
  if (ws->local_only && !ens__ws_host_local(host)) return 0;
  int on = lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN);
  if (on > 0) {
    const char *o = strstr(origin, "://");
    if (!o || strcmp(o + 3, host) != 0) return 0;
  }
  return 1;
}

static int s_cb_ws(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
  ens__ws *ws = lws_context_user(lws_get_context(wsi));
  ens__ws_pss *pss = user;
  switch (reason) {
  case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: return ws && s_upgrade_ok(ws, wsi) ? 0 : -1;
  case LWS_CALLBACK_ESTABLISHED: {
    ens__ws_conn *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->wsi = wsi;
    c->opened = ens__now_ms();
    pthread_mutex_lock(&ws->mu);
    c->id = ++ws->next_id;
    c->next = ws->conns;
    ws->conns = c;
    pthread_mutex_unlock(&ws->mu);
    pss->conn = c;
    return 0;
  }
  case LWS_CALLBACK_RECEIVE: {
    ens__ws_conn *c = pss->conn;
    if (!c || c->close_wanted) return 0;
    if (!lws_frame_is_binary(wsi)) {
      s_refuse(ws, c, ENS_PERR_MALFORMED, "text message: the protocol is binary MessagePack");
      return 0;
    }
    if (lws_is_first_fragment(wsi)) {
      c->rx.len = 0;
      c->rx_over = 0;
    }
    if (!c->rx_over && c->rx.len + len > ENS_MAX_MESSAGE) {
      c->rx_over = 1;
      ens__buf_free(&c->rx);
      s_log(ws, "%s dropped: a message over %u bytes", c->authed ? c->name : "a connection", (unsigned)ENS_MAX_MESSAGE);
      s_refuse(ws, c, ENS_PERR_TOO_LARGE, "message too large");
      return 0;
    }
    ens__buf_append(&c->rx, in, len);
    if (c->rx.oom) {
      s_refuse(ws, c, ENS_PERR_SERVER, "out of memory");
      return 0;
    }
    if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
      s_message(ws, c);
      c->rx.len = 0;
      if (c->rx.cap > 64 * 1024) ens__buf_free(&c->rx); /* a large one does not stay allocated */
    }
    return 0;
  }
  case LWS_CALLBACK_SERVER_WRITEABLE: {
    ens__ws_conn *c = pss->conn;
    if (!c) return -1;
    pthread_mutex_lock(&ws->mu);
    ens__ws_out *o = c->out_head;
    if (o) {
      c->out_head = o->next;
      if (!c->out_head) c->out_tail = NULL;
    }
    int more = c->out_head != NULL, closing = c->close_wanted;
    pthread_mutex_unlock(&ws->mu);
    if (o) {
      int w = lws_write(wsi, o->data + LWS_PRE, o->len, LWS_WRITE_BINARY);
      free(o);
      if (w < 0) return -1;
    }
    if (more) lws_callback_on_writable(wsi);
    else if (closing) {
      lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, NULL, 0);
      return -1;
    }
    return 0;
  }
  case LWS_CALLBACK_CLOSED: {
    ens__ws_conn *c = pss->conn;
    if (!c) return 0;
    pss->conn = NULL;
    pthread_mutex_lock(&ws->mu);
    for (ens__ws_conn **pp = &ws->conns; *pp; pp = &(*pp)->next)
      if (*pp == c) {
        *pp = c->next;
        break;
      }
    s_push_in(ws, ENS__WS_CLOSED, c->id, NULL, NULL, 0);
    pthread_mutex_unlock(&ws->mu);
    for (ens__ws_out *o = c->out_head, *n; o; o = n) {
      n = o->next;
      free(o);
    }
    ens__buf_free(&c->rx);
    free(c);
    return 0;
  }
  case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
    if (!ws) return 0;
    pthread_mutex_lock(&ws->mu);
    for (ens__ws_conn *c = ws->conns; c; c = c->next) {
      if (!c->wsi) continue;
      if (c->out_head || c->close_wanted) lws_callback_on_writable(c->wsi);
      if (c->resume) {
        c->resume = c->paused = 0;
        lws_rx_flow_control(c->wsi, 1);
      }
    }
    pthread_mutex_unlock(&ws->mu);
    return 0;
  default: return 0;
  }
}

static const struct lws_protocols s_protocols[] = {
    {"http", ens__ws_http_cb, 0, 0, 0, NULL, 0},
    {"ensemble", s_cb_ws, sizeof(ens__ws_pss), 64 * 1024, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

static void s_lws_log(int level, const char *line) {
  /* lws's own errors (a bad certificate, say); never a token: lws is not
   * told any, and URLs are not logged at this level */
  fprintf(stderr, "ensemble: libwebsockets: %s", line);
}

static void *s_thread(void *arg) {
  ens__ws *ws = arg;
  while (!atomic_load(&ws->stop))
    if (lws_service(ws->ctx, 0) < 0) break;
  return NULL;
}

/* "127.0.0.1:8080", "[::1]:0", "localhost:80", ":8080" (every address). */
static int s_split(const char *listen, char *host, size_t cap, int *port) {
  const char *colon = strrchr(listen, ':');
  if (!colon || !colon[1]) return -1;
  char *end;
  long p = strtol(colon + 1, &end, 10);
  if (*end || p < 0 || p > 65535) return -1;
  size_t hl = (size_t)(colon - listen);
  const char *h = listen;
  if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
    h++;
    hl -= 2;
  }
  if (hl >= cap) return -1;
  memcpy(host, h, hl);
  host[hl] = '\0';
  *port = (int)p;
  return 0;
}

int ens__ws_start(const ens_server_http_opts *opts, ens__ws **out) {
  *out = NULL;
  char host[256];
  int port;
  if (!opts->listen || s_split(opts->listen, host, sizeof host, &port))
    return ens__error(ENS_EINVAL, "--http wants ADDR:PORT, not %s", opts->listen ? opts->listen : "nothing");
  if (!opts->cert != !opts->key) return ens__error(ENS_EINVAL, "a certificate and its key go together");
  ens__ws *ws = calloc(1, sizeof *ws);
  if (!ws) return ens__error(ENS_ENOMEM, "out of memory starting HTTP");
  ws->efd = -1;
  pthread_mutex_init(&ws->mu, NULL);
  int rc = 0;
  if ((opts->web_root && !(ws->web_root = strdup(opts->web_root))) ||
      (opts->invites && !(ws->invites_path = strdup(opts->invites)))) {
    rc = ens__error(ENS_ENOMEM, "out of memory starting HTTP");
    goto done;
  }
  if (ws->invites_path) {
    if ((rc = ens__invites_load(ws->invites_path, &ws->inv))) goto done;
    ws->inv_exists = stat(ws->invites_path, &ws->inv_st) == 0;
  }
  char ep[300];
  snprintf(ep, sizeof ep, strchr(host, ':') ? "tcp://[%s]:%d" : "tcp://%s:%d", host[0] ? host : "*", port);
  int local = ens_endpoint_is_local(ep);
  if (!ens__ws_invites_required(ws) && !local && !opts->insecure) {
    rc = ens__error(ENS_EINVAL,
                    "without invites HTTP listens only on this machine, not %s (invite someone first, or --insecure)",
                    opts->listen);
    goto done;
  }
  ws->local_only = !ens__ws_invites_required(ws) && local;
  if ((ws->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
    rc = ens__error(ENS_EIO, "eventfd: %s", strerror(errno));
    goto done;
  }
  ens__ws_set_status(ws, 0, 0, "", 0);
  lws_set_log_level(LLL_ERR, s_lws_log);
  struct lws_context_creation_info info;
  memset(&info, 0, sizeof info);
  info.port = port;
  info.iface = host[0] ? host : NULL;
  info.protocols = s_protocols;
  info.user = ws;
  info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6 * !strchr(host, ':');
  info.pt_serv_buf_size = 64 * 1024;
  if (opts->cert) {
    /* the server makes no client connections: no trust store to load */
    info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT | LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS;
    info.ssl_cert_filepath = opts->cert;
    info.ssl_private_key_filepath = opts->key;
  }
  info.timeout_secs = 30;
  ws->ctx = lws_create_context(&info);
  if (!ws->ctx) {
    rc = ens__error(ENS_EIO, "cannot listen on %s%s", opts->listen,
                    opts->cert ? " (or read the certificate and its key)" : "");
    goto done;
  }
  ws->vhost = lws_get_vhost_by_name(ws->ctx, "default");
  ws->port = ws->vhost ? lws_get_vhost_listen_port(ws->vhost) : port;
  if (!ws->vhost || ws->port <= 0) {
    rc = ens__error(ENS_EIO, "cannot listen on %s", opts->listen);
    goto done;
  }
  lws_sul_schedule(ws->ctx, 0, &ws->sul, s_tick, RELOAD_US);
  if (pthread_create(&ws->thread, NULL, s_thread, ws) != 0) {
    rc = ens__error(ENS_EIO, "could not start the HTTP thread");
    goto done;
  }
  ws->thread_started = 1;
done:
  if (rc) {
    ens__ws_free(ws);
    return rc;
  }
  *out = ws;
  return 0;
}

void ens__ws_free(ens__ws *ws) {
  if (!ws) return;
  if (ws->thread_started) {
    /* what is queued (a shutdown's error) gets up to 200 ms to leave */
    for (int i = 0; i < 20; i++) {
      int queued = 0;
      pthread_mutex_lock(&ws->mu);
      for (ens__ws_conn *c = ws->conns; c; c = c->next) queued |= c->out_head != NULL;
      pthread_mutex_unlock(&ws->mu);
      if (!queued) break;
      lws_cancel_service(ws->ctx);
      usleep(10 * 1000);
    }
    atomic_store(&ws->stop, 1);
    lws_cancel_service(ws->ctx);
    pthread_join(ws->thread, NULL);
  }
  if (ws->ctx) lws_context_destroy(ws->ctx); /* closes connections: CLOSED for each */
  for (ens__ws_in *in = ws->in_head, *n; in; in = n) {
    n = in->next;
    free(in->ev.data);
    free(in);
  }
  if (ws->efd >= 0) close(ws->efd);
  ens__invites_free(ws->inv);
  free(ws->web_root);
  free(ws->invites_path);
  pthread_mutex_destroy(&ws->mu);
  free(ws);
}
