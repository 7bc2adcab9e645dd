/* Fuzz target: the session message decoder (src/lib/sync/msg.c) on
 * untrusted bytes, as the server and the client see them off the network.
 * A decoded message must re-encode, decode again to the same fields, and
 * from then on encode to the same bytes; its payloads go through the
 * transaction and snapshot decoders as the server would. See
 * docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"
#include "sync/msg.h"

static ens__msg s_a, s_b, s_c;

static void s_same(const ens__msg *a, const ens__msg *b) {
  FZ_CHECK(a->type == b->type, "type changed");
  FZ_CHECK(a->vmin == b->vmin && a->vmax == b->vmax && a->version == b->version && a->epoch == b->epoch, "numbers");
  FZ_CHECK(a->seq == b->seq && a->site == b->site && a->ctn == b->ctn && a->mode == b->mode, "numbers");
  FZ_CHECK(a->window == b->window && a->heartbeat_ms == b->heartbeat_ms && a->max_message == b->max_message, "numbers");
  FZ_CHECK(a->index == b->index && a->count == b->count && a->code == b->code && a->colour == b->colour, "numbers");
  FZ_CHECK(a->token == b->token, "token");
  FZ_CHECK(a->has_pointer == b->has_pointer && a->px == b->px && a->py == b->py && a->pctx == b->pctx, "pointer");
  FZ_CHECK(a->has_received == b->has_received && a->received == b->received, "received");
  FZ_CHECK(a->has_time == b->has_time && a->time_us == b->time_us, "time");
  FZ_CHECK(a->floor == b->floor && a->mark == b->mark && a->has_name == b->has_name, "optional fields");
  FZ_CHECK(memcmp(a->client, b->client, ENS_CLIENT_ID_LEN) == 0, "client id");
  FZ_CHECK(a->nbytes == b->nbytes && (!a->nbytes || memcmp(a->bytes, b->bytes, a->nbytes) == 0), "bytes");
  FZ_CHECK(a->ntext == b->ntext && (!a->ntext || memcmp(a->text, b->text, a->ntext) == 0), "text");
  FZ_CHECK(a->nsel == b->nsel, "selection length");
  for (size_t i = 0; i < a->nsel; i++) FZ_CHECK(a->sel[i] == b->sel[i] && a->sel[i] != 0, "selection %zu", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int rc = ens__msg_decode(data, size, &s_a);
  if (rc != 0) {
    FZ_CHECK(rc == ENS_EDECODE || rc == ENS_ELIMIT, "decode returned %d", rc);
    return 0;
  }
  FZ_CHECK(s_a.type >= ENS_MSG_HELLO && s_a.type <= ENS_MSG_LAST, "type %d", (int)s_a.type);
  FZ_CHECK(strcmp(ens__msg_name(s_a.type), "?") != 0, "unnamed type");
  FZ_CHECK(s_a.ntext <= ENS_MAX_TEXT && s_a.nsel <= ENS_MAX_SELECTION, "limits");
  FZ_CHECK(s_a.nbytes <= size, "bytes beyond the input");
  if (s_a.nbytes) fz_sink += s_a.bytes[0] + s_a.bytes[s_a.nbytes - 1];
  if (s_a.ntext) fz_sink += (uint8_t)s_a.text[0] + (uint8_t)s_a.text[s_a.ntext - 1];

  ens_buf e1 = ENS_BUF_INIT, e2 = ENS_BUF_INIT;
  rc = ens__msg_encode(&s_a, &e1);
  FZ_CHECK(rc == 0, "a decoded %s does not encode: %d", ens__msg_name(s_a.type), rc);
  /* a pointer's coordinates are written as doubles, 9 bytes each, however
   * they came (an integer may be 1) */
  FZ_CHECK(e1.len <= size + (s_a.has_pointer ? 16 : 0), "re-encoding grew the message (%zu > %zu)", e1.len, size);
  rc = ens__msg_decode(e1.data, e1.len, &s_b);
  FZ_CHECK(rc == 0, "the library's own %s does not decode", ens__msg_name(s_a.type));
  s_same(&s_a, &s_b);
  rc = ens__msg_encode(&s_b, &e2);
  FZ_CHECK(rc == 0 && e1.len == e2.len && memcmp(e1.data, e2.data, e1.len) == 0, "encoding is not canonical");
  rc = ens__msg_decode(e2.data, e2.len, &s_c);
  FZ_CHECK(rc == 0, "second decode");
  s_same(&s_b, &s_c);

  /* payloads, as the receiver reads them */
  if (s_a.type == ENS_MSG_TXN || s_a.type == ENS_MSG_ENTRY) {
    ens_txn *t = NULL;
    if (ens_txn_decode(s_a.bytes, s_a.nbytes, &t) == 0) {
      ens_doc *doc = fz_fixture_doc();
      (void)fz_apply_checked(doc, t, ENS_ORIGIN_REMOTE, NULL, NULL, 1);
      fz_check_doc(doc, 0);
      ens_doc_free(doc);
      ens_txn_free(t);
    } else {
      FZ_CHECK(t == NULL, "failed decode left a transaction");
    }
  } else if (s_a.type == ENS_MSG_ENTRIES) {
    /* every item the decoder let through reads back, seqs in a row */
    ens__entries_reader r;
    ens__entry_item it;
    uint64_t n = 0;
    ens__entries_begin(&s_a, &r);
    while (ens__entries_next(&r, &it)) {
      FZ_CHECK(it.seq == s_a.seq + n, "item %llu has seq %llu", (unsigned long long)n, (unsigned long long)it.seq);
      FZ_CHECK(it.site >= 1 && it.site <= ENS_SITE_MAX && it.ctn != 0, "item %llu", (unsigned long long)n);
      FZ_CHECK(it.is_ack == (it.txn == NULL), "an item is an ack exactly when it has no bytes");
      if (it.len) fz_sink += it.txn[0] + it.txn[it.len - 1];
      n++;
    }
    FZ_CHECK(n == s_a.count, "%llu items read of %llu", (unsigned long long)n, (unsigned long long)s_a.count);
  } else if (s_a.type == ENS_MSG_SNAPSHOT && s_a.count == 1) {
    ens_doc *doc = NULL;
    if (ens_snapshot_decode(s_a.bytes, s_a.nbytes, &doc) == 0) {
      fz_check_doc(doc, 0);
      ens_doc_free(doc);
    }
  }
  ens__buf_free(&e1);
  ens__buf_free(&e2);
  return 0;
}
