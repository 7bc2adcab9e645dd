/* The server's WebSocket transport (ws_server.c; docs/protocol.md,
 * "WebSocket"): browsers are peers of the session like ZeroMQ clients.
 * libwebsockets runs in a thread of its own; what browsers send waits in a
 * locked queue whose eventfd the server's zmq_poll watches, and what the
 * server sends to a browser waits in that connection's queue until the
 * lws thread may write (lws_cancel_service is the one lws call that is
 * safe from another thread). A browser peer's routing id is "\0ws" and
 * its connection number (8 bytes): ZeroMQ's own are 5 bytes, and a
 * client's chosen one cannot start with a zero byte, so no ZeroMQ peer
 * has one. */
#ifndef ENS_SESSION_WS_H
#define ENS_SESSION_WS_H

#include <stddef.h>
#include <stdint.h>

#include "ensemble/session.h"

#define ENS__WS_RID_LEN 11

typedef struct ens__ws ens__ws;

/* Binds opts->listen and starts the thread. On error nothing runs. */
int ens__ws_start(const ens_server_http_opts *opts, ens__ws **out);
/* The port bound (the kernel's choice for port 0). */
int ens__ws_port(const ens__ws *ws);
/* Readable while something waits for ens__ws_next. */
int ens__ws_fd(const ens__ws *ws);

typedef enum {
  ENS__WS_MESSAGE = 1, /* one WebSocket message from rid */
  ENS__WS_CLOSED = 2,  /* rid's connection is gone */
  ENS__WS_LOG = 3      /* a line for the server's log (data, NUL-terminated) */
} ens__ws_event_kind;

typedef struct {
  ens__ws_event_kind kind;
  unsigned char rid[ENS__WS_RID_LEN];
  char user[ENS_INVITE_NAME_MAX + 1]; /* the invite's name, "" without invites */
  unsigned char *data;                /* owned by the caller: free */
  size_t len;
} ens__ws_event;

/* 1 and the next event, or 0 when none waits. */
int ens__ws_next(ens__ws *ws, ens__ws_event *ev);
/* Queues one message for rid's connection; ENS_EIO when it is gone. */
int ens__ws_send(ens__ws *ws, const void *rid, size_t rid_len, const void *data, size_t len);
/* Closes rid's connection once what is queued for it has gone. */
void ens__ws_close(ens__ws *ws, const void *rid, size_t rid_len);
/* What GET /status answers from now on. */
void ens__ws_set_status(ens__ws *ws, uint64_t head, uint64_t hash, const char *kind, size_t clients);
/* Connections open now. */
size_t ens__ws_connections(ens__ws *ws);
/* Stops the thread, closes every connection. NULL is fine. */
void ens__ws_free(ens__ws *ws);

static inline int ens__ws_is_rid(const void *rid, size_t len) {
  const unsigned char *r = rid;
  return len == ENS__WS_RID_LEN && r[0] == 0 && r[1] == 'w' && r[2] == 's';
}

/* Content type for a file name, by its extension; NULL: not served. */
const char *ens__ws_content_type(const char *path);
/* The file under root that url names ("/" is index.html), in out; -1 for
 * a path that climbs out (".."), holds a NUL or a backslash, or is too long. */
int ens__ws_file_path(const char *root, const char *url, char *out, size_t cap);

#endif
