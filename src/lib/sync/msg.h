/* Session messages (docs/protocol.md, "Sessions"): one struct for every
 * message type, encoded to and decoded from one MessagePack array. The
 * decoder is allocation-free: byte and text fields point into the input,
 * which must outlive the decoded message. */
#ifndef ENS_SESSION_MSG_H
#define ENS_SESSION_MSG_H

#include <stdint.h>

#include "../util/buf.h"
#include "ensemble/common.h"

/* Versions spoken: 2 adds the entries message (many entries in one). */
#define ENS_PROTO_VERSION 2
#define ENS_PROTO_VERSION_MIN 1
#define ENS_CLIENT_ID_LEN 16
#define ENS_MAX_NAME 64
#define ENS_MAX_TEXT 1024
#define ENS_MAX_SELECTION 1024
#define ENS_MAX_TXN_BYTES (1u << 20)
#define ENS_MAX_MESSAGE (ENS_MAX_TXN_BYTES + 64)
#define ENS_SNAPSHOT_CHUNK (256u * 1024u)

typedef enum {
  ENS_MSG_HELLO = 1,
  ENS_MSG_WELCOME = 2,
  ENS_MSG_SNAPSHOT = 3,
  ENS_MSG_ENTRY = 4,
  ENS_MSG_TXN = 5,
  ENS_MSG_ACK = 6,
  ENS_MSG_REJECT = 7,
  ENS_MSG_PRESENCE = 8,
  ENS_MSG_BYE = 9,
  ENS_MSG_PING = 10,
  ENS_MSG_PONG = 11,
  ENS_MSG_ERROR = 12,
  ENS_MSG_ENTRIES = 13, /* version 2 */
  ENS_MSG_AUTH = 14     /* WebSocket only: the invite's token, before anything else */
} ens__msg_type;
#define ENS_MSG_LAST ENS_MSG_AUTH

/* Error codes of the error message (docs/protocol.md, "Error codes"). */
enum {
  ENS_PERR_VERSION = 1,
  ENS_PERR_MALFORMED = 2,
  ENS_PERR_TOO_LARGE = 3,
  ENS_PERR_NO_SESSION = 4,
  ENS_PERR_LIMIT = 5,
  ENS_PERR_SHUTDOWN = 6,
  ENS_PERR_SERVER = 7,
  ENS_PERR_DENIED = 9
};

/* Fields a type does not use are zero. Which field holds what:
 *   hello     vmin vmax client epoch seq(=last_seq)
 *   welcome   version epoch site seq(=head) ctn(=last_ctn) mode window heartbeat_ms max_message
 *             floor (optional: the counter the client's ids lie above), then
 *             text(=name, optional: has_name; the name the server shows it by)
 *   snapshot  seq index count bytes
 *   entry     seq site ctn bytes(=txn)
 *   txn       ctn bytes(=txn)
 *   ack       ctn seq
 *   reject    ctn code text(=reason)
 *   presence  site text(=name) colour sel, and optional pointer (has_pointer px py pctx)
 *   bye       site
 *   ping      token received mark (optional: bytes this connection has
 *             received; the mark of the latest pong it read)
 *   txn, entry also time_us (optional: the author's clock at commit)
 *   pong      token seq(=head) mark (optional: a number the next pings echo)
 *   error     code text(=message)
 *   entries   seq(=first) count bytes(=the items, encoded; read them with
 *             ens__entries_next)
 *   auth      text(=token) */
typedef struct {
  ens__msg_type type;
  uint64_t vmin, vmax, version, epoch, seq, site, ctn, mode, window, heartbeat_ms, max_message;
  uint64_t index, count, code, colour, token;
  uint64_t received; /* ping: a field added after version 1's first layout, absent from older clients */
  int has_received;
  /* Later additions within version 1, 0 when absent: pong's mark (a
   * number the server chose) and ping's echo of the latest one read; the
   * welcome's floor, the counter above which the client makes its ids. */
  uint64_t mark, floor;
  /* txn and entry: when the author committed it, microseconds since 1970
   * on the author's clock; a later addition within version 1, absent
   * from older peers and from entries sent in catch-up */
  uint64_t time_us;
  int has_time;
  /* presence: where the user points, a later addition (nil or absent: no
   * pointer); x and y finite, ctx the object they are in (0: the document) */
  int has_pointer;
  double px, py;
  uint64_t pctx;
  /* welcome: the name the server shows this client by (a key's or an
   * invite's) in text, a later addition after floor; absent: the name its
   * own presence says */
  int has_name;
  unsigned char client[ENS_CLIENT_ID_LEN];
  const unsigned char *bytes; /* borrowed */
  size_t nbytes;
  const char *text; /* borrowed, not NUL-terminated */
  size_t ntext;
  const ens_id *sel; /* encode: borrowed; decode: points at sel_buf */
  size_t nsel;
  ens_id sel_buf[ENS_MAX_SELECTION];
} ens__msg;

/* Appends m's encoding to out. Returns 0, ENS_EINVAL for a field beyond
 * its limit, or ENS_ENOMEM. */
int ens__msg_encode(const ens__msg *m, ens_buf *out);

/* Decodes one message; 0 or ENS_EDECODE / ENS_ELIMIT with the reason and
 * byte offset in ens_error_last(). m is overwritten either way. */
int ens__msg_decode(const void *data, size_t len, ens__msg *m);

/* "hello", "ack", ...; "?" for an unknown type. */
const char *ens__msg_name(int type);

/* --- entries: consecutive entries in one message (version 2) ---------------
 * Each item is [site, ctn, txn, time?] for an entry, or [site, ctn] for the
 * receiver's own transaction (an ack). The decoder has checked every item,
 * so reading them cannot fail. */
typedef struct {
  uint64_t seq, site, ctn, time_us;
  int has_time;
  int is_ack; /* [site, ctn]: no bytes */
  const unsigned char *txn; /* borrowed */
  size_t len;
} ens__entry_item;

typedef struct {
  const unsigned char *p, *end;
  uint64_t next_seq;
  uint64_t left;
} ens__entries_reader;

void ens__entries_begin(const ens__msg *m, ens__entries_reader *r);
/* 1 and the next item, or 0 at the end. */
int ens__entries_next(ens__entries_reader *r, ens__entry_item *item);

/* Builds one entries message in out (appended), items added in seq order. */
typedef struct {
  ens_buf *out;
  size_t start, count_at;
  uint32_t count;
} ens__entries_writer;

void ens__entries_start(ens__entries_writer *w, ens_buf *out, uint64_t first_seq);
/* txn NULL: the ack form [site, ctn]; has_time adds the time field. */
void ens__entries_add(ens__entries_writer *w, uint64_t site, uint64_t ctn, const void *txn, size_t len, int has_time,
                      uint64_t time_us);
/* The message's bytes so far (out->len - start). */
static inline size_t ens__entries_size(const ens__entries_writer *w) { return w->out->len - w->start; }
/* Writes the item count in; 0 or ENS_ENOMEM. */
int ens__entries_finish(ens__entries_writer *w);

#endif
