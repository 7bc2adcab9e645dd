/* The browser build has no ZeroMQ: its session client is the library's
 * detached one (src/lib/sync/client_int.h), whose messages go through a
 * WebSocket that JavaScript holds, so the socket code of client.c, net.c
 * and keys.c is compiled but never reached. These definitions make that
 * code compile and fail cleanly (ENOTSUP) should it ever be reached. Only
 * on the include path of the WebAssembly build (CMakeLists.txt, ENS_WEB). */
#ifndef ENS_WASM_NOZMQ_H
#define ENS_WASM_NOZMQ_H

#include <errno.h>
#include <stddef.h>

#define ZMQ_PAIR 0
#define ZMQ_DEALER 5
#define ZMQ_LINGER 17
#define ZMQ_RCVTIMEO 27
#define ZMQ_SNDHWM 23
#define ZMQ_RCVHWM 24
#define ZMQ_MAXMSGSIZE 22
#define ZMQ_CURVE_PUBLICKEY 48
#define ZMQ_CURVE_SECRETKEY 49
#define ZMQ_CURVE_SERVERKEY 50
#define ZMQ_DONTWAIT 1
#define ZMQ_SNDMORE 2
#define ZMQ_EVENT_DISCONNECTED 0x0200
#define ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL 0x0800
#define ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL 0x2000
#define ZMQ_EVENT_HANDSHAKE_FAILED_AUTH 0x4000
#define ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH 0x11000000

typedef struct {
  unsigned char unused[64];
} zmq_msg_t;

typedef struct {
  void *socket;
  int fd;
  short events, revents;
} zmq_pollitem_t;

static inline int s_nozmq(void) {
  errno = ENOTSUP;
  return -1;
}
static inline void *zmq_ctx_new(void) {
  errno = ENOTSUP;
  return NULL;
}
static inline int zmq_ctx_term(void *c) { (void)c; return s_nozmq(); }
static inline void *zmq_socket(void *c, int t) {
  (void)c, (void)t;
  errno = ENOTSUP;
  return NULL;
}
static inline int zmq_close(void *s) { (void)s; return s_nozmq(); }
static inline int zmq_connect(void *s, const char *e) { (void)s, (void)e; return s_nozmq(); }
static inline int zmq_setsockopt(void *s, int o, const void *v, size_t n) { (void)s, (void)o, (void)v, (void)n; return s_nozmq(); }
static inline int zmq_socket_monitor(void *s, const char *e, int ev) { (void)s, (void)e, (void)ev; return s_nozmq(); }
static inline int zmq_send(void *s, const void *b, size_t n, int f) { (void)s, (void)b, (void)n, (void)f; return s_nozmq(); }
static inline int zmq_poll(zmq_pollitem_t *i, int n, long t) { (void)i, (void)n, (void)t; return s_nozmq(); }
static inline int zmq_msg_init(zmq_msg_t *m) { (void)m; return 0; }
static inline int zmq_msg_close(zmq_msg_t *m) { (void)m; return 0; }
static inline int zmq_msg_recv(zmq_msg_t *m, void *s, int f) { (void)m, (void)s, (void)f; return s_nozmq(); }
static inline void *zmq_msg_data(zmq_msg_t *m) { return m->unused; }
static inline size_t zmq_msg_size(const zmq_msg_t *m) { (void)m; return 0; }
static inline int zmq_msg_more(const zmq_msg_t *m) { (void)m; return 0; }
static inline int zmq_has(const char *what) { (void)what; return 0; }
static inline const char *zmq_strerror(int e) { (void)e; return "no ZeroMQ in the browser build"; }
static inline unsigned char *zmq_z85_decode(unsigned char *d, const char *s) { (void)d, (void)s; return NULL; }
static inline int zmq_curve_keypair(char *p, char *s) { (void)p, (void)s; return s_nozmq(); }
static inline int zmq_curve_public(char *p, const char *s) { (void)p, (void)s; return s_nozmq(); }

#endif
