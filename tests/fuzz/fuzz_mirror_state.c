/* Fuzz target: the record a file mirror's host keeps beside the file
 * (src/lib/vcs/mirror_state.c), which is read back from disk at the next
 * start. Bad bytes must be refused with ENS_EDECODE and nothing else; a
 * record that reads has its snapshot inside the input, writes back to the
 * same bytes, and its snapshot either decodes to a document that snapshots
 * again or is refused. See docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"
#include "vcs/mirror_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ens__mirror_state st;
  int rc = ens__mirror_state_read(data, size, &st);
  if (rc != 0) {
    FZ_CHECK(rc == ENS_EDECODE, "a bad record gave %d, not ENS_EDECODE", rc);
    return 0;
  }
  FZ_CHECK(st.snap >= data && st.snap + st.snap_len <= data + size, "the snapshot lies outside the record");
  FZ_CHECK(strlen(st.format) < sizeof st.format, "format name not terminated");
  unsigned char *again;
  size_t len;
  rc = ens__mirror_state_write(&st, &again, &len);
  FZ_CHECK(rc == 0, "a record that reads does not write: %d", rc);
  FZ_CHECK(len == size && memcmp(again, data, size) == 0, "the record does not write back to its bytes");
  ens_free(again);
  ens_doc *doc;
  if (ens_snapshot_decode(st.snap, st.snap_len, &doc) == 0) {
    fz_check_doc(doc, 0);
    fz_snapshot_roundtrip(doc, NULL, NULL, NULL);
    ens_doc_free(doc);
  }
  return 0;
}
