/* ZeroMQ plumbing shared by the server and the client: sending one encoded
 * message (after a routing id on the server's ROUTER) without ever
 * blocking, and a monotonic clock for heartbeats. */
#ifndef ENS_SESSION_NET_H
#define ENS_SESSION_NET_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

/* Sends bytes as one frame, preceded by the routing id when rid is not
 * NULL. Returns 0, or ENS_EIO when the peer cannot take it now (its queue
 * is full or it is gone): the caller drops the peer. */
int ens__net_send(void *sock, const void *rid, size_t rid_len, const void *bytes, size_t len);
/* Encodes m into scratch (cleared first) and sends it. */
int ens__net_send_msg(void *sock, const void *rid, size_t rid_len, const ens__msg *m, ens_buf *scratch);

/* Milliseconds of a monotonic clock. */
int64_t ens__now_ms(void);
int64_t ens__now_us(void); /* the same clock in microseconds */

#endif
