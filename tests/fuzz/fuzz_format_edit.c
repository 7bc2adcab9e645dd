/* Fuzz target: decoded transactions applied to a font and a drawing under
 * their formats' rules (ens_sfd_schema, ens_svg_schema). The input:
 *
 *   selector (1 byte: bit 0 the drawing rather than the font; bit 1 the
 *             transactions as collaborators' changes, as a server applies
 *             them, rather than the user's),
 *   then records: length (2 bytes, big-endian), transaction bytes
 *
 * A transaction either is refused, leaving the document exactly as it
 * was with a reason, or applies, and then the file the document writes
 * reads back as the document (fz_check_written); its inverse, judged by
 * the same rules, restores it, and applying it again gives the same
 * document. See docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

#define S_MAX_TXNS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int svg = data[0] & 1;
  ens_origin origin = (data[0] & 2) ? ENS_ORIGIN_REMOTE : ENS_ORIGIN_LOCAL;
  ens_doc *doc = fz_format_fixture(svg);
  const ens_schema *rules = ens_doc_schema(doc);
  FZ_CHECK(rules && rules == ens_format_schema(ens_doc_kind(doc)), "a document read has no rules");
  size_t i = 1;
  int ntxn = 0, applied = 0;
  while (i + 2 <= size && ntxn < S_MAX_TXNS) {
    size_t len = (size_t)data[i] << 8 | data[i + 1];
    i += 2;
    if (len > size - i) len = size - i;
    ens_txn *t = NULL;
    int rc = ens_txn_decode(data + i, len, &t);
    i += len;
    if (rc) continue;
    ntxn++;
    uint64_t h0 = ens_doc_hash(doc);
    /* fz_apply_checked: atomic on refusal; the inverse (under the rules
     * too) restores the document, and the transaction applies again */
    rc = fz_apply_checked(doc, t, origin, rules, rules, 1);
    ens_doc_set_schema(doc, rules);
    if (rc) {
      FZ_CHECK_TXN(t, ens_error_last()[0] != '\0', "a refusal without a reason");
      FZ_CHECK_TXN(t, ens_doc_hash(doc) == h0, "a refused transaction changed the document");
    } else {
      applied++;
      fz_check_written(doc, "after an accepted transaction");
    }
    ens_txn_free(t);
  }
  fz_check_doc(doc, 0);
  fz_sink += (uint64_t)applied;
  ens_doc_free(doc);
  return 0;
}
