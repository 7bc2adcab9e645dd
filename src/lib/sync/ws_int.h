/* What the WebSocket endpoint's files share (ws_server.c: the thread,
 * the queues, the WebSocket protocol and its token check; ws_http.c: the
 * plain HTTP requests). Everything here belongs to the lws thread except
 * what the comments say is under the mutex. */
#ifndef ENS_SESSION_WS_INT_H
#define ENS_SESSION_WS_INT_H

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "../util/buf.h"
#include "invites.h"
#include "msg.h"
#include "ws.h"

typedef struct ens__ws_out {
  struct ens__ws_out *next;
  size_t len;
  unsigned char data[]; /* LWS_PRE bytes, then the message */
} ens__ws_out;

typedef struct ens__ws_conn {
  struct ens__ws_conn *next;
  uint64_t id;
  struct lws *wsi;
  /* shared, under the mutex */
  ens__ws_out *out_head, *out_tail;
  atomic_int close_wanted; /* written under the mutex, read by the lws thread without it too */
  int in_queued;
  int paused, resume;
  /* the lws thread's own */
  int authed;
  char name[ENS_INVITE_NAME_MAX + 1];
  unsigned char hash[ENS__HASH_LEN];
  int64_t opened;
  ens_buf rx;
  int rx_over; /* the message being received is over the limit: skipped */
} ens__ws_conn;

typedef struct ens__ws_in {
  struct ens__ws_in *next;
  ens__ws_event ev;
} ens__ws_in;

typedef struct {
  ens__ws_conn *conn;
} ens__ws_pss;

struct ens__ws {
  struct lws_context *ctx;
  struct lws_vhost *vhost;
  pthread_t thread;
  int thread_started;
  atomic_int stop;
  int efd;
  int port;
  pthread_mutex_t mu;
  ens__ws_conn *conns;
  uint64_t next_id;
  ens__ws_in *in_head, *in_tail;
  /* status, under the mutex */
  char status[256];
  /* the lws thread's own */
  char *web_root;
  char *invites_path;
  ens__invites *inv;
  struct stat inv_st;
  int inv_exists;
  int local_only; /* without invites: the Host must be this machine */
  lws_sorted_usec_list_t sul;
  ens__msg msg; /* decoding the first message (8 KiB: not on a stack) */
};

static inline int ens__ws_invites_required(const ens__ws *ws) { return ens__invites_count(ws->inv) > 0; }

/* Host "localhost:8080", "127.0.0.1:80" or "[::1]:8080" names this machine. */
int ens__ws_host_local(const char *host);

/* libwebsockets' callback of the "http" protocol: /status and the files. */
int ens__ws_http_cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);

#endif
