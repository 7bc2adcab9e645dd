/* ZeroMQ sends that never block (see net.h). The server's ROUTER runs with
 * ZMQ_ROUTER_MANDATORY, so a full or vanished peer is an error here rather
 * than a message dropped in silence: without it, ROUTER drops what a full
 * queue cannot take and says nothing. */
#include "net.h"

#include <errno.h>
#include <time.h>
#include <zmq.h>

#include "../util/error.h"

int ens__net_send(void *sock, const void *rid, size_t rid_len, const void *bytes, size_t len) {
  if (rid && zmq_send(sock, rid, rid_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0)
    return ens__error(ENS_EIO, "send: %s", zmq_strerror(errno));
  if (zmq_send(sock, bytes, len, ZMQ_DONTWAIT) < 0) return ens__error(ENS_EIO, "send: %s", zmq_strerror(errno));
  return 0;
}

int ens__net_send_msg(void *sock, const void *rid, size_t rid_len, const ens__msg *m, ens_buf *scratch) {
  scratch->len = 0;
  int rc = ens__msg_encode(m, scratch);
  if (rc) return rc;
  return ens__net_send(sock, rid, rid_len, scratch->data, scratch->len);
}

int64_t ens__now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t ens__now_ms(void) { return ens__now_us() / 1000; }
