/* Fuzz target: the session client (src/lib/sync/client.c) as it receives
 * a server's messages, without a socket (client_int.h), interleaved with
 * its user's commits, undo and redo, and with reconnections. The target
 * plays the server from a model of it: histories (an epoch, a base
 * document and a log), the server's document, the client's transactions
 * received and not yet decided, and the messages on their way to the
 * client (welcome, snapshot chunks, entries and acks of protocol versions
 * 1 and 2, rejects, presence, pongs). The input is a script of steps:
 *
 *   step = op (1 byte) , arguments (0 to 5 bytes; see s_step)
 *
 * After each step, and after each message handed in: the document passes
 * the walk of fuzzlib.h; the pending queue's numbers follow one another;
 * and, while the client names a history of the model, its document is
 * that history's state at the client's seq with the pending changes put
 * on top as the server would apply them. An input whose first byte is
 * 'S' or 'V' starts from the font or the drawing of fuzzlib.h, with its
 * format's rules on the server's document as on the client's; then the
 * file each document writes must read back as the document
 * (fz_check_written) whenever it changed. What the client sends must
 * decode and follow the protocol (hello names a state it was sent, ctns
 * in order within the window, pings count the bytes read); a REJECTED
 * event has a negative code; undo and redo reports are clean when nothing
 * happened. Messages the model sends in breach of the protocol, or raw
 * bytes from the input, may change the client in ways the model does not
 * follow: from then on the document check waits until the client takes a
 * snapshot of a history made after them. See docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"
#include "sync/client_int.h"
#include "sync/msg.h"
#include "txn/ops.h"

#define MAX_STEPS 400
#define MAX_HIST 4
#define COLLABS 2
#define BATCH_MAX 16

typedef struct {
  uint32_t site;
  uint64_t ctn;
  unsigned char *txn;
  size_t len;
} s_entry;

/* One history of the server: what a replaced store starts anew. */
typedef struct {
  uint64_t epoch, base_seq, trimmed; /* the log serves catch-up after trimmed */
  unsigned char *base;               /* snapshot of the document at base_seq */
  size_t base_len;
  s_entry *log; /* seqs base_seq + 1 .. base_seq + n */
  size_t n, cap;
  uint32_t site;     /* the client's */
  uint64_t last_ctn; /* the client's highest ctn decided */
} s_hist;

/* A message on its way to the client. */
typedef struct {
  unsigned char *b;
  size_t n;
  uint64_t decided; /* the highest of the client's ctns it decides (a welcome: its last_ctn) */
  int welcome;
  int snap_last; /* the last chunk of a snapshot of history snap_hist at snap_seq */
  size_t snap_hist;
  uint64_t snap_seq;
} s_out;

typedef struct {
  uint64_t ctn;
  unsigned char *b;
  size_t n;
} s_inflight;

static struct {
  const uint8_t *in;
  size_t len, pos;
  int format; /* 0 for the fixture, 'S' for the font, 'V' for the drawing */
  int64_t now;
  ens_session *s;
  s_hist h[MAX_HIST];
  size_t nh;
  ens_doc *S; /* the server's document: the current history at its head */
  s_inflight *inf;
  size_t ninf, capinf;
  /* the connection, as the server knows it */
  int conn, hello_wait, welcomed, welcome_seen;
  uint64_t hello_epoch, hello_seq;
  int version;
  uint64_t window, decided_seen, delivered, last_token;
  int refuse_next; /* the next send fails, as on a full socket */
  s_out *out;
  size_t nout, capout;
  ens_buf batch;
  ens__entries_writer w;
  size_t nbatch;
  uint64_t batch_decided;
  uint64_t collab_counter[COLLABS], collab_ctn[COLLABS];
  int tainted;
  size_t clean_from;
  /* the state the document check last rebuilt (history, seq) */
  ens_doc *cache;
  size_t cache_hist;
  uint64_t cache_seq;
} F;

static int s_trace = -1; /* FZ_TRACE set in the environment: each step and message on stderr */

static uint8_t s_byte(void) { return F.pos < F.len ? F.in[F.pos++] : 0; }
static uint32_t s_u32(void) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = v << 8 | s_byte();
  return v;
}

static s_hist *s_cur(void) { return &F.h[F.nh - 1]; }
static uint64_t s_head(const s_hist *h) { return h->base_seq + h->n; }

/* --- documents ------------------------------------------------------------------ */

/* A copy, with its format's rules as a server's document has them. */
static ens_doc *s_copy(const ens_doc *doc) {
  ens_doc *d;
  fz_snapshot_roundtrip(doc, NULL, NULL, &d);
  FZ_CHECK(ens_format_attach(d) == 0, "format rules");
  return d;
}

/* The document a script starts from. */
static ens_doc *s_start_doc(void) { return F.format ? fz_format_fixture(F.format == 'V') : fz_fixture_doc(); }

/* Applies txn as the server does: whole, or without its operations on
 * objects the document does not hold; *kept (when not NULL) gets what
 * applied, encoded (owned), *inverse (when not NULL) what takes it off. */
static int s_apply_server(ens_doc *doc, const ens_txn *t, unsigned char **kept, size_t *kept_len, ens_txn **inverse) {
  int rc = ens_doc_apply(doc, t, ENS_ORIGIN_REMOTE, inverse);
  const ens_txn *applied = t;
  ens_txn *k = NULL;
  if (rc == ENS_ENOTFOUND) {
    size_t dropped = 0;
    rc = ens__txn_drop_missing(doc, t, &k, &dropped);
    if (rc == 0) rc = dropped && ens_txn_op_count(k) ? ens_doc_apply(doc, k, ENS_ORIGIN_REMOTE, inverse) : ENS_ENOTFOUND;
    applied = k;
  }
  if (rc == 0 && kept) FZ_CHECK(ens_txn_encode(applied, kept, kept_len) == 0, "encode what applied");
  ens_txn_free(k);
  return rc;
}

typedef struct {
  ens_id *ids;
  size_t n;
} s_ids;

static int s_collect(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_ids *v = user;
  v->ids[v->n++] = ens_obj_id(o);
  return 0;
}

static s_ids s_all_ids(const ens_doc *doc) {
  s_ids v = {malloc((ens_doc_count(doc) + 1) * sizeof(ens_id)), 0};
  FZ_CHECK(v.ids, "out of memory");
  ens_obj_walk(ens_doc_root(doc), s_collect, &v);
  return v;
}

static const char *const s_keys[] = {"x", "y", "name", "v", "d", "z"};
static const char *const s_kinds[] = {"layer", "rect", "group", "text"};
static const char *const s_strs[] = {"", "10", "red", "M0 0 L1 1", "a\nb", "x y"};

/* A key: one obj has (or, now and then, one another object has), so that
 * a document of a file format is edited where its format says something;
 * or one of a few. */
static const char *s_key(fz_rng *r, const ens_doc *doc, const s_ids *ids, ens_id obj) {
  const ens_obj *o = ens_doc_get(doc, fz_below(r, 4) ? obj : ids->ids[fz_below(r, (uint32_t)ids->n)]);
  size_t np = o ? ens_obj_prop_count(o) : 0;
  const char *key = NULL;
  ens_value v;
  if (np && fz_below(r, F.format ? 8 : 2) && ens_obj_prop_at(o, fz_below(r, (uint32_t)np), &key, &v) == 0 && key[0] != '@')
    return key;
  return s_keys[fz_below(r, FZ_COUNT(s_keys))];
}

/* A kind: one the document has, or one of a few. */
static const char *s_kind(fz_rng *r, const ens_doc *doc, const s_ids *ids) {
  const ens_obj *o = ens_doc_get(doc, ids->ids[fz_below(r, (uint32_t)ids->n)]);
  if (o && ens_obj_parent(o) && fz_below(r, F.format ? 8 : 2)) return ens_obj_kind(o);
  return s_kinds[fz_below(r, FZ_COUNT(s_kinds))];
}

/* A value for key on obj: mostly of the type it has there, changed a
 * little; else of any type. */
static ens_value s_value_for(fz_rng *r, const ens_doc *doc, ens_id obj, const char *key, const s_ids *ids, char *buf,
                             size_t bufsize) {
  const ens_obj *o = ens_doc_get(doc, obj);
  ens_value v;
  if (o && ens_obj_get(o, key, &v) == 0 && fz_below(r, 3)) {
    switch (v.type) {
    case ENS_INT: return ens_int(v.u.i + (int64_t)fz_below(r, 5) - 2);
    case ENS_REAL: return ens_real(v.u.r + 0.25 * ((double)fz_below(r, 5) - 2));
    case ENS_BOOL: return ens_bool(!v.u.b);
    case ENS_STR: return ens_str(s_strs[fz_below(r, FZ_COUNT(s_strs))]);
    default: break;
    }
  }
  (void)bufsize;
  switch (fz_below(r, 8)) {
  case 0: return ens_int((int64_t)fz_below(r, 5) - 2);
  case 1: snprintf(buf, bufsize, "s%u", (unsigned)fz_below(r, 4)); return ens_str(buf);
  case 2: return ens_real(fz_below(r, 3) * 0.5);
  case 3: return ens_bool((int)fz_below(r, 2));
  case 4: return ens_ref(fz_below(r, 4) ? ids->ids[fz_below(r, (uint32_t)ids->n)] : ens_id_make(9, 1));
  case 5: return ens_bytes("\1\2", fz_below(r, 3));
  case 6: return ens_str(s_strs[fz_below(r, FZ_COUNT(s_strs))]);
  default: return ens_nil();
  }
}

static ens_value s_value(fz_rng *r, const s_ids *ids, char *buf, size_t bufsize) {
  switch (fz_below(r, 7)) {
  case 0: return ens_int((int64_t)fz_below(r, 5) - 2);
  case 1: snprintf(buf, bufsize, "s%u", (unsigned)fz_below(r, 4)); return ens_str(buf);
  case 2: return ens_real(fz_below(r, 3) * 0.5);
  case 3: return ens_bool((int)fz_below(r, 2));
  case 4: return ens_ref(fz_below(r, 4) ? ids->ids[fz_below(r, (uint32_t)ids->n)] : ens_id_make(9, 1));
  case 5: return ens_bytes("\1\2", fz_below(r, 3));
  default: return ens_nil();
  }
}

/* A transaction of one to three operations against doc: sets, inserts
 * (ids from new_id), deletes, moves; some do not apply (the root
 * deleted, a cycle, an object deleted before its edit). */
static ens_txn *s_gen_txn(ens_doc *doc, uint32_t seed, const char *label, ens_id (*new_id)(ens_doc *, void *),
                          void *user) {
  fz_rng r = {seed * 0x9e3779b97f4a7c15ULL + 1};
  s_ids ids = s_all_ids(doc);
  ens_txn *t = ens_txn_new(label, NULL);
  FZ_CHECK(t, "out of memory");
  char buf[16];
  uint32_t nops = 1 + fz_below(&r, 3);
  for (uint32_t i = 0; i < nops; i++) {
    ens_id obj = ids.ids[fz_below(&r, (uint32_t)ids.n)];
    ens_id other = ids.ids[fz_below(&r, (uint32_t)ids.n)];
    uint32_t kind = fz_below(&r, 10);
    if (kind < 5) {
      const char *key = s_key(&r, doc, &ids, obj);
      ens_txn_set(t, obj, key, s_value_for(&r, doc, obj, key, &ids, buf, sizeof buf));
    } else if (kind < 7) {
      /* beside an object of its kind (what a format allows there), or
       * anywhere with any kind */
      const ens_obj *like = ens_doc_get(doc, obj);
      int beside = like && ens_obj_parent(like) && fz_below(&r, F.format ? 4 : 2);
      ens_id parent = beside ? ens_obj_id(ens_obj_parent(like)) : obj;
      const ens_obj *p = ens_doc_get(doc, parent);
      char *pos = NULL;
      if (!p || ens_doc_pos_at(doc, parent, fz_below(&r, (uint32_t)ens_obj_child_count(p) + 1), &pos)) continue;
      ens_node *n = ens_txn_insert(t, parent, pos, new_id(doc, user), beside ? ens_obj_kind(like) : s_kind(&r, doc, &ids));
      ens_free(pos);
      if (n && fz_below(&r, 2)) {
        const char *key = s_key(&r, doc, &ids, obj);
        ens_node_set(n, key, beside ? s_value_for(&r, doc, obj, key, &ids, buf, sizeof buf) : s_value(&r, &ids, buf, sizeof buf));
      }
      if (n && fz_below(&r, 3) == 0) ens_node_add_child(n, "V", new_id(doc, user), s_kind(&r, doc, &ids));
    } else if (kind == 7) {
      ens_txn_delete(t, fz_below(&r, 8) ? (obj == ENS_ROOT_ID ? other : obj) : ENS_ROOT_ID);
    } else {
      const ens_obj *p = ens_doc_get(doc, other);
      char *pos = NULL;
      if (!p || ens_doc_pos_at(doc, other, fz_below(&r, (uint32_t)ens_obj_child_count(p) + 1), &pos)) continue;
      ens_txn_move(t, obj, other, pos);
      ens_free(pos);
    }
  }
  free(ids.ids);
  return t;
}

static ens_id s_user_id(ens_doc *doc, void *user) {
  (void)user;
  return ens_doc_new_id(doc);
}

static ens_id s_collab_id(ens_doc *doc, void *user) {
  (void)doc;
  size_t c = *(size_t *)user;
  return ens_id_make(2 + c, ++F.collab_counter[c]);
}

/* --- the server's histories ------------------------------------------------------- */

static void s_hist_new(const ens_doc *base, uint64_t base_seq, uint32_t site, uint64_t last_ctn) {
  FZ_CHECK(F.nh < MAX_HIST, "too many histories");
  s_hist *h = &F.h[F.nh++];
  memset(h, 0, sizeof *h);
  h->epoch = 0x5eed0000u + F.nh;
  h->base_seq = h->trimmed = base_seq;
  h->site = site;
  h->last_ctn = last_ctn;
  FZ_CHECK(ens_snapshot_encode(base, &h->base, &h->base_len) == 0, "snapshot of the base");
}

static uint64_t s_log(uint32_t site, uint64_t ctn, unsigned char *txn, size_t len) {
  s_hist *h = s_cur();
  if (h->n == h->cap) {
    h->cap = h->cap ? h->cap * 2 : 16;
    h->log = realloc(h->log, h->cap * sizeof *h->log);
    FZ_CHECK(h->log, "out of memory");
  }
  h->log[h->n++] = (s_entry){site, ctn, txn, len};
  return s_head(h);
}

/* The history's document at seq (base_seq <= seq <= head), borrowed: kept
 * and moved forward while checks ask for later seqs of one history. */
static ens_doc *s_state_at(size_t hi, uint64_t seq) {
  const s_hist *h = &F.h[hi];
  if (!F.cache || F.cache_hist != hi || F.cache_seq > seq) {
    ens_doc_free(F.cache);
    FZ_CHECK(ens_snapshot_decode(h->base, h->base_len, &F.cache) == 0, "the base does not decode");
    F.cache_hist = hi;
    F.cache_seq = h->base_seq;
  }
  for (; F.cache_seq < seq; F.cache_seq++) {
    const s_entry *e = &h->log[F.cache_seq - h->base_seq];
    ens_txn *t;
    FZ_CHECK(ens_txn_decode(e->txn, e->len, &t) == 0, "a log entry does not decode");
    FZ_CHECK(ens_doc_apply(F.cache, t, ENS_ORIGIN_REMOTE, NULL) == 0, "a log entry does not apply");
    ens_txn_free(t);
  }
  return F.cache;
}

/* --- messages to the client ------------------------------------------------------- */

static void s_out_clear(void) {
  for (size_t i = 0; i < F.nout; i++) free(F.out[i].b);
  F.nout = 0;
  F.batch.len = 0;
  F.nbatch = 0;
  F.batch_decided = 0;
}

static void s_push(const unsigned char *b, size_t n, s_out o) {
  if (F.nout == F.capout) {
    F.capout = F.capout ? F.capout * 2 : 32;
    F.out = realloc(F.out, F.capout * sizeof *F.out);
    FZ_CHECK(F.out, "out of memory");
  }
  o.b = malloc(n ? n : 1);
  FZ_CHECK(o.b, "out of memory");
  memcpy(o.b, b, n);
  o.n = n;
  F.out[F.nout++] = o;
}

static void s_flush_batch(void) {
  if (!F.nbatch) return;
  FZ_CHECK(ens__entries_finish(&F.w) == 0, "entries message");
  s_push(F.batch.data, F.batch.len, (s_out){.decided = F.batch_decided});
  F.batch.len = 0;
  F.nbatch = 0;
  F.batch_decided = 0;
}

static void s_queue(const ens__msg *m, s_out o) {
  s_flush_batch();
  ens_buf b = ENS_BUF_INIT;
  FZ_CHECK(ens__msg_encode(m, &b) == 0, "encode a %s", ens__msg_name(m->type));
  s_push(b.data, b.len, o);
  ens__buf_free(&b);
}

static ens__msg *s_msg(ens__msg_type type) {
  static ens__msg m;
  memset(&m, 0, offsetof(ens__msg, sel_buf));
  m.type = type;
  return &m;
}

/* Entry seq (or, live, an ack of the client's own ctn: txn NULL), in the
 * connection's version. */
static void s_queue_entry(uint64_t seq, uint32_t site, uint64_t ctn, const unsigned char *txn, size_t len,
                          int has_time) {
  uint64_t decided = site == s_cur()->site ? ctn : 0;
  if (F.version >= 2) {
    if (!F.nbatch) ens__entries_start(&F.w, &F.batch, seq);
    ens__entries_add(&F.w, site, ctn, txn, len, has_time, 1796300000000000ULL + seq);
    F.nbatch++;
    if (decided > F.batch_decided) F.batch_decided = decided;
    if (F.nbatch == BATCH_MAX) s_flush_batch();
    return;
  }
  ens__msg *m;
  if (txn) {
    m = s_msg(ENS_MSG_ENTRY);
    m->site = site;
    m->bytes = txn;
    m->nbytes = len;
    m->has_time = has_time;
    m->time_us = 1796300000000000ULL + seq;
  } else {
    m = s_msg(ENS_MSG_ACK);
  }
  m->seq = seq;
  m->ctn = ctn;
  s_queue(m, (s_out){.decided = decided});
}

static int s_sending(void) { return F.conn && F.welcomed; }

/* --- what the client sends ------------------------------------------------------ */

/* The connection is gone, and what was on its way with it; the server
 * may still decide what it received. */
static void s_link_gone(void) {
  s_out_clear();
  F.conn = F.hello_wait = F.welcomed = F.welcome_seen = 0;
  F.delivered = 0;
}

/* A new connection (or a restarted server): what was received and not
 * decided is forgotten, and the client sends it again. */
static void s_conn_reset(void) {
  s_link_gone();
  for (size_t i = 0; i < F.ninf; i++) free(F.inf[i].b);
  F.ninf = 0;
}

static int s_wire(const void *bytes, size_t len, void *user) {
  (void)user;
  static ens__msg m;
  FZ_CHECK(ens__msg_decode(bytes, len, &m) == 0, "the client sent what does not decode");
  if (s_trace > 0) fprintf(stderr, "  client sends %s ctn %llu\n", ens__msg_name(m.type), (unsigned long long)m.ctn);
  if (F.refuse_next) {
    F.refuse_next = 0;
    return 1;
  }
  switch (m.type) {
  case ENS_MSG_HELLO: {
    s_conn_reset();
    F.conn = F.hello_wait = 1;
    F.hello_epoch = m.epoch;
    F.hello_seq = m.seq;
    FZ_CHECK(m.vmin == ENS_PROTO_VERSION_MIN && m.vmax == ENS_PROTO_VERSION, "hello offers %llu..%llu",
             (unsigned long long)m.vmin, (unsigned long long)m.vmax);
    if (!F.tainted && (m.epoch || m.seq)) {
      const s_hist *h = NULL;
      for (size_t i = 0; i < F.nh; i++)
        if (F.h[i].epoch == m.epoch) h = &F.h[i];
      FZ_CHECK(h && m.seq >= h->base_seq && m.seq <= s_head(h),
               "hello resumes from epoch %llx seq %llu, a state the server never sent",
               (unsigned long long)m.epoch, (unsigned long long)m.seq);
    }
    return 0;
  }
  case ENS_MSG_TXN: {
    if (!F.conn) return 0; /* on a connection the server has forgotten: lost */
    FZ_CHECK(F.tainted || F.welcome_seen, "a transaction sent before the welcome");
    FZ_CHECK(m.ctn != 0, "ctn 0");
    ens_txn *t;
    FZ_CHECK(ens_txn_decode(m.bytes, m.nbytes, &t) == 0, "the client sent a transaction that does not decode");
    ens_txn_free(t);
    s_hist *h = s_cur();
    if (m.ctn <= h->last_ctn) return 0; /* a resend of something decided */
    uint64_t expect = (F.ninf ? F.inf[F.ninf - 1].ctn : h->last_ctn) + 1;
    if (m.ctn != expect) {
      FZ_CHECK(F.tainted, "ctn %llu sent, %llu expected", (unsigned long long)m.ctn, (unsigned long long)expect);
      return 0;
    }
    FZ_CHECK(F.tainted || m.ctn - F.decided_seen <= F.window, "ctn %llu with %llu decided: window %llu overrun",
             (unsigned long long)m.ctn, (unsigned long long)F.decided_seen, (unsigned long long)F.window);
    if (F.ninf == F.capinf) {
      F.capinf = F.capinf ? F.capinf * 2 : 16;
      F.inf = realloc(F.inf, F.capinf * sizeof *F.inf);
      FZ_CHECK(F.inf, "out of memory");
    }
    s_inflight *p = &F.inf[F.ninf++];
    p->ctn = m.ctn;
    p->n = m.nbytes;
    p->b = malloc(m.nbytes ? m.nbytes : 1);
    FZ_CHECK(p->b, "out of memory");
    memcpy(p->b, m.bytes, m.nbytes);
    return 0;
  }
  case ENS_MSG_PING:
    if (!F.conn) return 0;
    FZ_CHECK(m.has_received && m.received == F.delivered, "ping says %llu bytes read, %llu were handed in",
             (unsigned long long)m.received, (unsigned long long)F.delivered);
    FZ_CHECK(m.token > F.last_token, "ping tokens go back");
    F.last_token = m.token;
    if (s_sending()) {
      ens__msg *p = s_msg(ENS_MSG_PONG);
      p->token = m.token;
      p->seq = s_head(s_cur());
      s_queue(p, (s_out){0});
    }
    return 0;
  case ENS_MSG_PRESENCE:
    FZ_CHECK(m.site == 0 && m.ntext == 4 && memcmp(m.text, "fuzz", 4) == 0 && m.colour <= 0xffffff,
             "the client's presence");
    return 0;
  case ENS_MSG_BYE: return 0;
  default: FZ_CHECK(0, "the client sent a %s", ens__msg_name(m.type)); return 1;
  }
}

/* --- events ----------------------------------------------------------------------- */

static void s_on_event(ens_session *s, const ens_session_event *ev, void *user) {
  (void)s;
  (void)user;
  switch (ev->kind) {
  case ENS_SESSION_REJECTED:
    FZ_CHECK(ev->code < 0 && ev->code >= -64, "a rejected change reaches the user with code %d", ev->code);
    FZ_CHECK(ev->label && ev->message, "a reject without its label or message");
    break;
  case ENS_SESSION_RECONNECTING:
    FZ_CHECK(ev->message, "reconnecting without a reason");
    if (s_trace > 0) fprintf(stderr, "  reconnecting: %s\n", ev->message);
    s_link_gone();
    break;
  case ENS_SESSION_FAILED:
    FZ_CHECK(ev->code == ENS_PERR_VERSION || ev->code == ENS_PERR_DENIED, "failed with code %d", ev->code);
    s_link_gone();
    break;
  case ENS_SESSION_ACKED: FZ_CHECK(ev->ctn && ev->seq, "an ack without its numbers"); break;
  case ENS_SESSION_DROPPED: FZ_CHECK(ev->dropped > 0 && ev->label, "dropped nothing"); break;
  case ENS_SESSION_LANDED:
    FZ_CHECK(ev->ops > 0 && ev->label && ev->seq, "a landed change without its numbers");
    break;
  case ENS_SESSION_JOINED:
  case ENS_SESSION_PRESENCE:
    FZ_CHECK(ev->name && strlen(ev->name) <= ENS_MAX_NAME && ev->selection_count <= ENS_MAX_SELECTION, "presence");
    for (size_t i = 0; i < ev->selection_count; i++) fz_sink += ev->selection[i];
    break;
  default: break;
  }
}

/* --- the checks ------------------------------------------------------------------- */

/* What the last full check saw: when nothing of it changed, neither did
 * the answer (a history's state at a seq never changes, nor do pending
 * changes once made). */
static struct {
  const ens_doc *doc;
  uint64_t hash, epoch, seq, first, last;
  size_t n;
  int tainted;
} s_seen;

static void s_check(void) {
  ens_doc *doc = ens_session_doc(F.s);
  const ens__pending *q = ens__session_queue(F.s);
  FZ_CHECK(ens_session_pending(F.s) == q->n, "pending count");
  if (!doc) return;
  uint64_t hash = ens_doc_hash(doc), epoch = ens_session_epoch(F.s), seq = ens_session_seq(F.s);
  uint64_t first = q->n ? q->items[0].ctn : 0, last = q->n ? q->items[q->n - 1].ctn : 0;
  if (doc == s_seen.doc && hash == s_seen.hash && epoch == s_seen.epoch && seq == s_seen.seq && q->n == s_seen.n &&
      first == s_seen.first && last == s_seen.last && F.tainted == s_seen.tainted)
    return;
  s_seen.doc = doc;
  s_seen.hash = hash;
  s_seen.epoch = epoch;
  s_seen.seq = seq;
  s_seen.n = q->n;
  s_seen.first = first;
  s_seen.last = last;
  s_seen.tainted = F.tainted;
  for (size_t i = 1; i < q->n; i++)
    FZ_CHECK(q->items[i].ctn == q->items[i - 1].ctn + 1, "pending ctns %llu then %llu",
             (unsigned long long)q->items[i - 1].ctn, (unsigned long long)q->items[i].ctn);
  fz_check_doc(doc, 0);
  if (F.format && !F.tainted) fz_check_written(doc, "the client's document");
  if (F.tainted || epoch == 0) return;
  size_t hi = F.nh;
  for (size_t i = 0; i < F.nh; i++)
    if (F.h[i].epoch == epoch) hi = i;
  FZ_CHECK(hi < F.nh, "the client holds epoch %llx, which the server never had", (unsigned long long)epoch);
  const s_hist *h = &F.h[hi];
  FZ_CHECK(seq >= h->base_seq && seq <= s_head(h), "the client is at seq %llu of epoch %llx, which runs %llu..%llu",
           (unsigned long long)seq, (unsigned long long)epoch, (unsigned long long)h->base_seq,
           (unsigned long long)s_head(h));
  /* the pending ones on top of the history's state, and off again */
  ens_doc *want = s_state_at(hi, seq);
  uint64_t want_hash = ens_doc_hash(want);
  ens_txn **inv = calloc(q->n + 1, sizeof *inv);
  FZ_CHECK(inv, "out of memory");
  /* judged by the format's rules as the client puts them back, and as
   * the server will judge them; taken off unjudged */
  FZ_CHECK(ens_format_attach(want) == 0, "format rules");
  for (size_t i = 0; i < q->n; i++) {
    ens_txn *t;
    FZ_CHECK(ens_txn_decode(q->items[i].bytes, q->items[i].len, &t) == 0, "a pending change does not decode");
    s_apply_server(want, t, NULL, NULL, &inv[i]); /* one that does not apply stays off */
    ens_txn_free(t);
  }
  int same = ens_doc_hash(want) == hash && ens_doc_count(want) == ens_doc_count(doc);
  size_t count = ens_doc_count(want);
  ens_doc_set_schema(want, NULL);
  for (size_t i = q->n; i-- > 0;) {
    if (inv[i]) FZ_CHECK(ens_doc_apply(want, inv[i], ENS_ORIGIN_UNDO, NULL) == 0, "taking a pending change off");
    ens_txn_free(inv[i]);
  }
  free(inv);
  FZ_CHECK(ens_doc_hash(want) == want_hash, "the history's state did not come back");
  if (!same) {
    for (size_t i = 0; i < q->n; i++) {
      ens_txn *t;
      if (ens_txn_decode(q->items[i].bytes, q->items[i].len, &t) == 0) {
        fprintf(stderr, "pending %llu (%s): ", (unsigned long long)q->items[i].ctn, q->items[i].on ? "on" : "off");
        fz_print_txn(t);
        ens_txn_free(t);
      }
    }
    FZ_CHECK(0, "the document (%zu objects) is not the server's state at seq %llu with the %zu pending changes on top "
                "(%zu objects)",
             ens_doc_count(doc), (unsigned long long)seq, q->n, count);
  }
}

/* --- the server's side of a step -------------------------------------------------- */

/* A snapshot of the server's document in `chunks` pieces (or a broken
 * one: bad 1 = one empty chunk, 2 = cut short, 3 = not a snapshot). */
static void s_queue_snapshot(unsigned chunks, int bad) {
  unsigned char *snap;
  size_t n;
  FZ_CHECK(ens_snapshot_encode(F.S, &snap, &n) == 0, "snapshot");
  uint64_t head = s_head(s_cur());
  if (bad == 1) n = 0;
  if (bad == 2) n /= 2;
  if (bad == 3) memcpy(snap, "\x93\x01\x02\x03", n = 4);
  for (unsigned i = 0; i < chunks; i++) {
    ens__msg *m = s_msg(ENS_MSG_SNAPSHOT);
    size_t from = n * i / chunks, to = n * (i + 1) / chunks;
    m->seq = head;
    m->index = i;
    m->count = chunks;
    m->bytes = snap + from;
    m->nbytes = to - from;
    s_queue(m, (s_out){.snap_last = i + 1 == chunks && !bad, .snap_hist = F.nh - 1, .snap_seq = head});
  }
  ens_free(snap);
}

static void s_welcome(uint8_t a) {
  if (!F.conn) return;
  s_hist *h = s_cur();
  uint64_t head = s_head(h);
  int stray = !F.hello_wait; /* a second welcome: the client must drop */
  int can_log = F.hello_epoch == h->epoch && F.hello_seq >= h->trimmed && F.hello_seq <= head;
  int mode = can_log && !(a & 4) ? 0 : 1;
  static const uint64_t windows[] = {1, 3, 8, 256};
  int version = (a & 3) == 3 ? 1 : 2;
  ens__msg *m = s_msg(ENS_MSG_WELCOME);
  m->version = (uint64_t)version;
  m->epoch = h->epoch;
  m->site = h->site;
  m->seq = head;
  m->ctn = h->last_ctn;
  m->mode = (uint64_t)mode;
  m->window = windows[(a >> 3) & 3];
  m->heartbeat_ms = 500;
  m->max_message = ENS_MAX_MESSAGE;
  s_queue(m, (s_out){.decided = h->last_ctn, .welcome = !stray});
  if (stray) return;
  F.version = version;
  F.window = m->window;
  F.hello_wait = 0;
  F.welcomed = 1;
  if (mode == 1) {
    int bad = (a & 0x80) ? 1 + (int)(s_byte() % 3) : 0;
    s_queue_snapshot(1 + ((a >> 5) & 3), bad);
  } else {
    for (uint64_t q = F.hello_seq + 1; q <= head; q++) {
      const s_entry *e = &h->log[q - h->base_seq - 1];
      s_queue_entry(q, e->site, e->ctn, e->txn, e->len, 0);
    }
  }
}

/* The oldest of the client's undecided transactions: applied as the
 * server applies it and acknowledged, or rejected (when it does not
 * apply, or when told to, with a code that may be none). */
static void s_decide(uint8_t a) {
  if (!F.ninf) return;
  s_inflight p = F.inf[0];
  memmove(F.inf, F.inf + 1, --F.ninf * sizeof *F.inf);
  s_hist *h = s_cur();
  h->last_ctn = p.ctn;
  int rc = ENS_EINVAL;
  unsigned char *kept = NULL;
  size_t kept_len = 0;
  if (!(a & 1)) {
    ens_txn *t;
    FZ_CHECK(ens_txn_decode(p.b, p.n, &t) == 0, "inflight decode");
    rc = s_apply_server(F.S, t, &kept, &kept_len, NULL);
    ens_txn_free(t);
  }
  if (rc == 0) {
    fz_check_written(F.S, "the server's document, a client's change accepted");
    uint64_t seq = s_log(h->site, p.ctn, kept, kept_len);
    if (s_sending()) s_queue_entry(seq, h->site, p.ctn, NULL, 0, 0);
  } else if (s_sending()) {
    static const uint64_t odd[] = {0, 65, 1ull << 40, 64, 2, 4};
    ens__msg *m = s_msg(ENS_MSG_REJECT);
    m->ctn = p.ctn;
    m->code = (a & 1) ? odd[(a >> 1) % FZ_COUNT(odd)] : (uint64_t)-rc;
    m->text = "refused";
    m->ntext = 7;
    s_queue(m, (s_out){.decided = p.ctn});
  }
  free(p.b);
}

static void s_collab(uint32_t seed, uint8_t a) {
  size_t c = a & 1;
  ens_txn *t = s_gen_txn(F.S, seed, (a & 2) ? "their change" : "", s_collab_id, &c);
  unsigned char *b = NULL;
  size_t n = 0;
  if (s_trace > 0) fz_print_txn(t);
  if (s_apply_server(F.S, t, &b, &n, NULL) == 0) {
    fz_check_written(F.S, "the server's document, a collaborator's change accepted");
    uint64_t seq = s_log((uint32_t)(2 + c), ++F.collab_ctn[c], b, n);
    if (s_sending()) s_queue_entry(seq, (uint32_t)(2 + c), F.collab_ctn[c], b, n, (a & 4) != 0);
  }
  ens_txn_free(t);
}

/* A replaced store: a new history from the server's document or the
 * fixture; the server restarts, so the connection is gone. */
static void s_replace_store(uint8_t a) {
  if (F.nh == MAX_HIST) return;
  s_hist *old = s_cur();
  ens_doc *base = (a & 1) ? s_start_doc() : s_copy(F.S);
  uint64_t base_seq = (a & 2) ? 0 : s_head(old) + (a >> 4);
  s_hist_new(base, base_seq, old->site + ((a >> 2) & 1), (a & 8) ? old->last_ctn / 2 : 0);
  ens_doc_free(F.S);
  F.S = base;
  s_conn_reset();
}

/* --- messages in breach of the protocol, and raw bytes -------------------------------- */

static void s_inject(const unsigned char *b, size_t n, int must_refuse) {
  if (!F.conn) return;
  ens_doc *doc = ens_session_doc(F.s);
  uint64_t hash = doc ? ens_doc_hash(doc) : 0, seq = ens_session_seq(F.s), epoch = ens_session_epoch(F.s);
  size_t pend = ens_session_pending(F.s);
  F.delivered += n;
  int rc = ens__session_handle(F.s, b, n, F.now);
  FZ_CHECK(rc == 0, "handling a message failed: %s", ens_error_name(rc));
  ens_doc *after = ens_session_doc(F.s);
  int same = after == doc && (!doc || ens_doc_hash(doc) == hash) && ens_session_pending(F.s) == pend;
  /* unchanged, or only the history forgotten: the client asks for a snapshot */
  same = same && ((ens_session_seq(F.s) == seq && ens_session_epoch(F.s) == epoch) ||
                  (ens_session_seq(F.s) == 0 && ens_session_epoch(F.s) == 0));
  FZ_CHECK(same || !must_refuse, "the client took a message out of order");
  if (!same && !F.tainted) {
    F.tainted = 1;
    F.clean_from = F.nh; /* clean again at a snapshot of a history made from now on */
  }
}

static void s_misbehave(uint8_t a) {
  ens_buf b = ENS_BUF_INIT;
  ens__msg *m = NULL;
  uint64_t seq = ens_session_seq(F.s);
  const ens__pending *q = ens__session_queue(F.s);
  int must_refuse = 0;
  switch (a % 10) {
  case 0: /* an entry past a gap, or one already had */
    m = s_msg(ENS_MSG_ENTRY);
    m->seq = (a & 0x10) ? seq : seq + 2;
    m->site = 2;
    m->ctn = 1;
    m->bytes = (const unsigned char *)"\x94\x01\xa0\xa0\x90";
    m->nbytes = 5;
    must_refuse = 1;
    break;
  case 1: /* an ack past a gap */
    m = s_msg(ENS_MSG_ACK);
    m->seq = seq + 2;
    m->ctn = q->n ? q->items[0].ctn : 1;
    must_refuse = 1;
    break;
  case 2: /* the next entry, but not a transaction */
    m = s_msg(ENS_MSG_ENTRY);
    m->seq = seq + 1;
    m->site = 3;
    m->ctn = 9;
    m->bytes = (const unsigned char *)"\x01";
    m->nbytes = 1;
    break;
  case 3: /* an error */
    m = s_msg(ENS_MSG_ERROR);
    m->code = 1 + (a >> 4) % 9;
    m->text = "fuzz";
    m->ntext = 4;
    break;
  case 4: /* a snapshot chunk out of turn */
    m = s_msg(ENS_MSG_SNAPSHOT);
    m->index = (a >> 4) & 1;
    m->count = 2;
    m->seq = seq;
    m->bytes = (const unsigned char *)"\x96";
    m->nbytes = 1;
    break;
  case 5: /* a message only a server takes */
    m = s_msg((a & 0x10) ? ENS_MSG_TXN : ENS_MSG_HELLO);
    m->vmin = m->vmax = 1;
    m->ctn = 1;
    m->bytes = (const unsigned char *)"";
    break;
  case 6: /* a reject or an ack of something not sent */
    m = s_msg((a & 0x10) ? ENS_MSG_REJECT : ENS_MSG_ACK);
    m->ctn = (q->n ? q->items[q->n - 1].ctn : 0) + 5;
    m->seq = seq + 1;
    break;
  case 7: /* the next send fails */
    F.refuse_next = 1;
    return;
  case 8: { /* a collaborator comes, moves, leaves */
    static const ens_id sel[] = {4, 5, 7};
    m = s_msg((a & 0x10) ? ENS_MSG_BYE : ENS_MSG_PRESENCE);
    m->site = 2 + ((a >> 5) & 1);
    m->text = "Ada";
    m->ntext = 3;
    m->colour = 0x3366ff;
    m->sel = sel;
    m->nsel = (a >> 6) & 3;
    if (s_sending()) s_queue(m, (s_out){0});
    return;
  }
  default: /* a pong */
    m = s_msg(ENS_MSG_PONG);
    m->token = F.last_token;
    m->seq = s_head(s_cur());
    break;
  }
  FZ_CHECK(ens__msg_encode(m, &b) == 0, "encode a %s", ens__msg_name(m->type));
  s_inject(b.data, b.len, must_refuse);
  ens__buf_free(&b);
}

/* --- the user's side -------------------------------------------------------------- */

static void s_undo_redo(int redo) {
  ens_undo_report r;
  memset(&r, 0xa5, sizeof r);
  int rc = redo ? ens_session_redo(F.s, &r) : ens_session_undo(F.s, &r);
  if (rc) {
    FZ_CHECK(r.applied == 0 && r.skipped == 0 && r.skips == NULL && r.label[0] == '\0',
             "%s that failed (%s) left its report uncleared", redo ? "redo" : "undo", ens_error_name(rc));
    FZ_CHECK(rc == ENS_EEMPTY || ens_session_doc(F.s), "%s without a document: %s", redo ? "redo" : "undo",
             ens_error_name(rc));
  } else {
    FZ_CHECK(r.skipped == 0 || r.skips, "skips without details");
  }
  ens_undo_report_clear(&r);
}

static void s_commit(uint32_t seed) {
  ens_doc *doc = ens_session_doc(F.s);
  if (!doc) {
    ens_txn *t = ens_txn_new("early", NULL);
    ens_txn_set(t, ENS_ROOT_ID, "x", ens_int(1));
    FZ_CHECK(ens_session_commit(F.s, t) == ENS_EINVAL, "a commit without a document");
    ens_txn_free(t);
    return;
  }
  ens_txn *t = s_gen_txn(doc, seed, "mine", s_user_id, NULL);
  uint64_t hash = ens_doc_hash(doc);
  size_t pend = ens_session_pending(F.s);
  if (s_trace > 0) fz_print_txn(t);
  int rc = ens_session_commit(F.s, t);
  if (s_trace > 0) fprintf(stderr, "  commit: %s %s\n", ens_error_name(rc), rc ? ens_error_last() : "");
  if (rc) {
    FZ_CHECK(ens_doc_hash(doc) == hash && ens_session_pending(F.s) == pend, "a refused commit changed something");
  }
  ens_txn_free(t);
}

static void s_select(uint8_t a) {
  ens_doc *doc = ens_session_doc(F.s);
  ens_id sel[3] = {ENS_ROOT_ID, 4, (a & 0x80) ? 0 : 7};
  size_t n = a % 4;
  int rc = ens_session_set_selection(F.s, sel, n);
  FZ_CHECK(rc == 0 || (rc == ENS_EINVAL && n == 3 && !sel[2]), "selection: %s", ens_error_name(rc));
  (void)doc;
}

static void s_tick(uint8_t a) {
  static const int64_t dt[] = {0, 1, 50, 400, 700, 2100, 6000, 10000};
  F.now += dt[a % 8];
  int rc = ens__session_tick(F.s, F.now);
  FZ_CHECK(rc == 0 || rc == ENS_EIO, "tick: %s", ens_error_name(rc));
}

static void s_deliver(uint8_t a) {
  size_t k = a >= 0xf0 ? (size_t)-1 : (size_t)(a % 8) + 1;
  while (k-- && F.nout && F.conn) {
    s_out o = F.out[0];
    memmove(F.out, F.out + 1, --F.nout * sizeof *F.out);
    F.delivered += o.n;
    if (o.welcome) {
      F.welcome_seen = 1;
      F.decided_seen = o.decided;
    } else if (o.decided > F.decided_seen) {
      F.decided_seen = o.decided;
    }
    ens_doc *before = ens_session_doc(F.s);
    if (s_trace > 0) {
      static ens__msg m;
      ens__msg_decode(o.b, o.n, &m);
      fprintf(stderr, "  server sends %s seq %llu ctn %llu\n", ens__msg_name(m.type), (unsigned long long)m.seq,
              (unsigned long long)m.ctn);
    }
    int rc = ens__session_handle(F.s, o.b, o.n, F.now);
    FZ_CHECK(rc == 0, "handling a message failed: %s", ens_error_name(rc));
    if (o.snap_last && F.tainted && o.snap_hist >= F.clean_from && ens_session_doc(F.s) != before &&
        ens_session_seq(F.s) == o.snap_seq && ens_session_epoch(F.s) == F.h[o.snap_hist].epoch)
      F.tainted = 0;
    free(o.b);
    s_check();
  }
}

static void s_step(uint8_t op) {
  if (s_trace < 0) s_trace = getenv("FZ_TRACE") != NULL;
  if (s_trace)
    fprintf(stderr, "step %u at %zu: seq %llu epoch %llx pending %zu live %d out %zu inflight %zu conn %d\n",
            op % 16, F.pos - 1, (unsigned long long)ens_session_seq(F.s), (unsigned long long)ens_session_epoch(F.s),
            ens_session_pending(F.s), ens_session_is_live(F.s), F.nout, F.ninf, F.conn);
  switch (op % 16) {
  case 0: s_deliver(s_byte()); break;
  case 1: s_welcome(s_byte()); break;
  case 2: s_decide(s_byte()); break;
  case 3: {
    uint32_t seed = s_u32();
    s_collab(seed, s_byte());
    break;
  }
  case 4: s_commit(s_u32()); break;
  case 5: s_undo_redo(0); break;
  case 6: s_undo_redo(1); break;
  case 7: s_tick(s_byte()); break;
  case 8:
    ens_session_reconnect(F.s);
    s_tick(0);
    break;
  case 9: s_replace_store(s_byte()); break;
  case 10: s_cur()->trimmed = s_head(s_cur()); break;
  case 11: s_misbehave(s_byte()); break;
  case 12: s_select(s_byte()); break;
  case 13: {
    size_t n = s_byte();
    if (n > F.len - F.pos) n = F.len - F.pos;
    s_inject(F.in + F.pos, n, 0);
    F.pos += n;
    break;
  }
  case 14: s_flush_batch(); break;
  default: /* everything on its way, entries held back too */
    s_flush_batch();
    s_deliver(0xff);
    break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  memset(&F, 0, sizeof F);
  memset(&s_seen, 0, sizeof s_seen);
  F.in = data;
  F.len = size;
  F.now = 1000000;
  F.format = size && (data[0] == 'S' || data[0] == 'V') ? data[0] : 0;
  if (F.format) F.pos = 1;
  F.S = s_start_doc();
  s_hist_new(F.S, 0, 5, 0);
  ens_session_opts o;
  memset(&o, 0, sizeof o);
  o.name = "fuzz";
  o.colour = 0x00aa55;
  o.undo_depth = 8;
  o.on_event = s_on_event;
  int rc = ens__session_new_detached(&o, s_wire, NULL, &F.s);
  FZ_CHECK(rc == 0, "detached session: %s", ens_error_name(rc));
  s_tick(0); /* hello */
  for (int steps = 0; steps < MAX_STEPS && F.pos < F.len; steps++) {
    s_step(s_byte());
    s_check();
  }
  /* everything on its way arrives */
  s_flush_batch();
  s_deliver(0xff);
  ens_session_free(F.s);
  s_conn_reset();
  free(F.out);
  free(F.inf);
  ens__buf_free(&F.batch);
  for (size_t i = 0; i < F.nh; i++) {
    for (size_t j = 0; j < F.h[i].n; j++) ens_free(F.h[i].log[j].txn);
    free(F.h[i].log);
    ens_free(F.h[i].base);
  }
  ens_doc_free(F.cache);
  ens_doc_free(F.S);
  return 0;
}
