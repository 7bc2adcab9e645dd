/* Sessions beside plain ZeroMQ on loopback: DEALER/ROUTER echo round trips
 * and throughput (the floor any protocol on this transport sits on), then
 * an Ensemble client's commit-to-ack round trip and transactions per
 * second through a server on its own thread, with the log on disk (fsync
 * per group commit) and on tmpfs (to show what the fsync costs). Each
 * figure with and without CurveZMQ ("_curve"), to show what encryption
 * costs.
 *
 *   bench_session [--quick]      prints one JSON object per line */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "ensemble.h"
#include "sync/net.h"

static int s_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int64_t s_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void s_report(const char *name, int64_t *lat, size_t n, double per_sec) {
  qsort(lat, n, sizeof *lat, s_cmp);
  printf("{\"bench\": \"%s\", \"n\": %zu, \"p50_us\": %lld, \"p99_us\": %lld, \"per_sec\": %.0f}\n", name, n,
         (long long)lat[n / 2], (long long)lat[n * 99 / 100], per_sec);
  fflush(stdout);
}

/* --- plain ZeroMQ --------------------------------------------------------------- */

static void s_echo(const char *name, int curve, size_t rounds, size_t burst) {
  void *ctx = zmq_ctx_new();
  void *router = zmq_socket(ctx, ZMQ_ROUTER), *dealer = zmq_socket(ctx, ZMQ_DEALER);
  if (curve) { /* no ZAP handler: any client key, as the cost is the cipher's */
    ens_keypair sk, ck;
    int one = 1;
    ens_keypair_generate(&sk);
    ens_keypair_generate(&ck);
    zmq_setsockopt(router, ZMQ_CURVE_SERVER, &one, sizeof one);
    zmq_setsockopt(router, ZMQ_CURVE_SECRETKEY, sk.secret_key, ENS_KEY_LEN + 1);
    zmq_setsockopt(dealer, ZMQ_CURVE_SERVERKEY, sk.public_key, ENS_KEY_LEN + 1);
    zmq_setsockopt(dealer, ZMQ_CURVE_PUBLICKEY, ck.public_key, ENS_KEY_LEN + 1);
    zmq_setsockopt(dealer, ZMQ_CURVE_SECRETKEY, ck.secret_key, ENS_KEY_LEN + 1);
  }
  char ep[256];
  size_t eplen = sizeof ep;
  int hwm = 0;
  zmq_setsockopt(router, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(router, ZMQ_RCVHWM, &hwm, sizeof hwm);
  zmq_setsockopt(dealer, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(dealer, ZMQ_RCVHWM, &hwm, sizeof hwm);
  zmq_bind(router, "tcp://127.0.0.1:*");
  zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, ep, &eplen);
  zmq_connect(dealer, ep);
  char msg[100] = {0}, rid[256], buf[256];
  int64_t *lat = malloc(rounds * sizeof *lat);
  for (size_t i = 0; i < rounds; i++) {
    int64_t t0 = s_now_us();
    zmq_send(dealer, msg, sizeof msg, 0);
    int n = zmq_recv(router, rid, sizeof rid, 0);
    zmq_recv(router, buf, sizeof buf, 0);
    zmq_send(router, rid, (size_t)n, ZMQ_SNDMORE);
    zmq_send(router, msg, sizeof msg, 0);
    zmq_recv(dealer, buf, sizeof buf, 0);
    lat[i] = s_now_us() - t0;
  }
  /* throughput: a burst one way, echoed back, in one thread */
  int64_t t0 = s_now_us();
  for (size_t i = 0; i < burst; i++) zmq_send(dealer, msg, sizeof msg, 0);
  for (size_t i = 0; i < burst; i++) {
    int n = zmq_recv(router, rid, sizeof rid, 0);
    zmq_recv(router, buf, sizeof buf, 0);
    zmq_send(router, rid, (size_t)n, ZMQ_SNDMORE);
    zmq_send(router, msg, sizeof msg, 0);
  }
  for (size_t i = 0; i < burst; i++) zmq_recv(dealer, buf, sizeof buf, 0);
  double secs = (double)(s_now_us() - t0) / 1e6;
  s_report(name, lat, rounds, (double)burst / secs);
  free(lat);
  zmq_close(dealer);
  zmq_close(router);
  zmq_ctx_term(ctx);
}

/* --- Ensemble --------------------------------------------------------------------- */

static void s_session(const char *name, const char *dir, int curve, size_t rounds, size_t burst) {
  char store[512];
  snprintf(store, sizeof store, "%s/bench-session-%d.db", dir, (int)getpid());
  unlink(store);
  ens_doc *initial = ens_doc_new("bench", 0);
  ens_txn *t = ens_txn_new("init", NULL);
  ens_node *n = ens_txn_insert(t, ENS_ROOT_ID, "V", 2, "obj");
  ens_node_set(n, "x", ens_int(0));
  ens_doc_apply(initial, t, ENS_ORIGIN_LOCAL, NULL);
  ens_txn_free(t);
  ens_server_opts so;
  memset(&so, 0, sizeof so);
  so.endpoint = "tcp://127.0.0.1:*";
  so.store_path = store;
  so.initial = initial;
  so.checkpoint_every = 1000000;
  ens_keypair sk, ck;
  ens_authorized_keys *keys = ens_authorized_keys_new();
  if (curve) {
    ens_keypair_generate(&sk);
    ens_keypair_generate(&ck);
    ens_authorized_keys_add(keys, ck.public_key, "bench");
    so.secret_key = sk.secret_key;
    so.authorized_keys = keys;
  }
  ens_server *srv;
  if (ens_server_new(&so, &srv) || ens_server_start(srv)) {
    fprintf(stderr, "bench_session: %s\n", ens_error_last());
    exit(1);
  }
  ens_session_opts co;
  memset(&co, 0, sizeof co);
  co.endpoint = ens_server_endpoint(srv);
  co.undo_depth = 100;
  if (curve) {
    co.server_key = sk.public_key;
    co.secret_key = ck.secret_key;
  }
  ens_session *s;
  ens_session_new(&co, &s);
  while (!ens_session_is_live(s)) ens_session_poll(s, 10);
  int64_t *lat = malloc(rounds * sizeof *lat);
  for (size_t i = 0; i < rounds; i++) {
    t = ens_txn_new("Set", NULL);
    ens_txn_set(t, 2, "x", ens_int((int64_t)i));
    int64_t t0 = s_now_us();
    ens_session_commit(s, t);
    while (ens_session_pending(s)) ens_session_poll(s, 1);
    lat[i] = s_now_us() - t0;
    ens_txn_free(t);
  }
  int64_t t0 = s_now_us();
  for (size_t i = 0; i < burst; i++) {
    t = ens_txn_new("Set", NULL);
    ens_txn_set(t, 2, "x", ens_int((int64_t)i));
    ens_session_commit(s, t);
    ens_txn_free(t);
    if (i % 16 == 0) ens_session_poll(s, 0);
  }
  while (ens_session_pending(s)) ens_session_poll(s, 1);
  double secs = (double)(s_now_us() - t0) / 1e6;
  s_report(name, lat, rounds, (double)burst / secs);
  free(lat);
  ens_session_free(s);
  ens_server_free(srv);
  ens_authorized_keys_free(keys);
  ens_doc_free(initial);
  char p[600];
  unlink(store);
  snprintf(p, sizeof p, "%s-wal", store);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", store);
  unlink(p);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  size_t k = quick ? 10 : 1;
  s_echo("zmq_echo_100B", 0, 20000 / k, 200000 / k);
  s_echo("zmq_echo_100B_curve", 1, 20000 / k, 200000 / k);
  s_session("ensemble_commit_ack_tmpfs", "/dev/shm", 0, 5000 / k, 20000 / k);
  s_session("ensemble_commit_ack_tmpfs_curve", "/dev/shm", 1, 5000 / k, 20000 / k);
  s_session("ensemble_commit_ack_disk", "/tmp", 0, 500 / k, 20000 / k);
  s_session("ensemble_commit_ack_disk_curve", "/tmp", 1, 500 / k, 20000 / k);
  return 0;
}
