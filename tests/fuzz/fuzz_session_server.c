/* Fuzz target: the server's handling of what clients send, without a
 * socket (server_int.h). The input is a script of messages from four
 * connections:
 *
 *   record = peer (1 byte: bits 0-1 the connection, bit 7 ends a poll
 *            round, bit 6 lets 2 s pass) , length (2 bytes, big-endian),
 *            message bytes
 *
 * The server starts from the fixture document with an in-memory store,
 * checkpointing every 4 entries; a script whose first byte is 'S' or 'V'
 * (a byte no script of the plain fixture starts with) starts from the font
 * or the drawing of fuzzlib.h instead, with its format's rules, and then
 * after every transaction the server accepts, the file the document
 * writes reads back as the document (fz_check_written). Whatever arrives,
 * handling never fails, the document stays well formed, and the document
 * rebuilt from the store (checkpoint plus log) is the server's own. See
 * docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"
#include "sync/server_int.h"
#include "sync/store.h"

typedef struct {
  ens_doc *doc;
  int bad;
} s_rebuild;

static int s_replay(const ens__entry *e, void *user) {
  s_rebuild *r = user;
  ens_txn *t = NULL;
  if (ens_txn_decode(e->txn, e->len, &t) || ens_doc_apply(r->doc, t, ENS_ORIGIN_REMOTE, NULL)) r->bad++;
  ens_txn_free(t);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int format = size && (data[0] == 'S' || data[0] == 'V');
  ens_doc *fixture = format ? fz_format_fixture(data[0] == 'V') : fz_fixture_doc();
  if (format) {
    data++;
    size--;
  }
  ens_server_opts o;
  memset(&o, 0, sizeof o);
  o.store_path = ":memory:";
  o.initial = fixture;
  o.checkpoint_every = 4;
  o.log_keep = 2;
  o.window = 8;
  ens_server *s;
  int rc = ens__server_new_detached(&o, &s);
  FZ_CHECK(rc == 0, "detached server: %d", rc);
  int64_t now = 1000000;
  size_t i = 0;
  while (i + 3 <= size) {
    uint8_t peer = data[i];
    size_t len = (size_t)data[i + 1] << 8 | data[i + 2];
    i += 3;
    if (len > size - i) len = size - i;
    unsigned char rid[2] = {0x00, (unsigned char)(1 + (peer & 3))};
    uint64_t hash = ens_doc_hash(ens_server_doc(s));
    rc = ens__server_handle(s, rid, sizeof rid, data + i, len, now);
    FZ_CHECK(rc == 0, "handle failed: %s", ens_error_name(rc));
    i += len;
    if (peer & 0x40) now += 2000;
    if (peer & 0x80) {
      rc = ens__server_flush(s, now);
      FZ_CHECK(rc == 0, "flush failed: %s", ens_error_name(rc));
    }
    /* a transaction accepted: every file of the session is written from this */
    if (format && ens_doc_hash(ens_server_doc(s)) != hash) fz_check_written(ens_server_doc(s), "an accepted transaction");
  }
  rc = ens__server_flush(s, now);
  FZ_CHECK(rc == 0, "flush failed: %s", ens_error_name(rc));
  fz_check_doc(ens_server_doc(s), 0);
  if (format) {
    FZ_CHECK(ens_doc_schema(ens_server_doc(s)) == ens_format_schema(ens_doc_kind(fixture)),
             "the server's document has not its format's rules");
    fz_check_written(ens_server_doc(s), "the end of the script");
  }

  /* the store holds exactly the server's document */
  ens__store *st = ens__server_store(s);
  FZ_CHECK(ens__store_head(st) == ens_server_head(s), "store head %llu, server head %llu",
           (unsigned long long)ens__store_head(st), (unsigned long long)ens_server_head(s));
  unsigned char *snap;
  size_t len;
  uint64_t cp;
  rc = ens__store_checkpoint_get(st, &cp, &snap, &len);
  FZ_CHECK(rc == 0, "no checkpoint");
  s_rebuild rb = {NULL, 0};
  rc = ens_snapshot_decode(snap, len, &rb.doc);
  FZ_CHECK(rc == 0, "the checkpoint does not decode");
  ens_free(snap);
  rc = ens__store_read(st, cp + 1, ens__store_head(st), s_replay, &rb);
  FZ_CHECK(rc == 0 && rb.bad == 0, "the log does not replay");
  FZ_CHECK(ens_doc_hash(rb.doc) == ens_doc_hash(ens_server_doc(s)), "the store and the server disagree");
  fz_sink += ens__server_sent(s);
  ens_doc_free(rb.doc);
  ens_server_free(s);
  ens_doc_free(fixture);
  return 0;
}
