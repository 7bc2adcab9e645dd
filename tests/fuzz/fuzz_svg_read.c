/* Fuzz target: ens_svg_read on untrusted bytes; what reads must write back
 * byte for byte, through a snapshot too, and an attribute set on the first
 * element must leave every byte before that element's tag unchanged. See
 * docs/svg.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

static const ens_obj *s_first_element(const ens_obj *o) {
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *k = ens_obj_child(o, i);
    if (ens_obj_kind(k)[0] != '#') return k;
  }
  return NULL;
}

static const char s_value[] = "a&<\"'\t\n\r b";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ens_doc *doc = NULL;
  if (ens_svg_read(data, size, &doc) != 0) {
    FZ_CHECK(doc == NULL, "a refused file gave a document");
    FZ_CHECK(ens_error_last()[0] != '\0', "a refusal without a message");
    return 0;
  }
  unsigned char *out;
  size_t n;
  FZ_CHECK(ens_svg_write(doc, &out, &n) == 0, "a file that reads does not write");
  FZ_CHECK(n == size && memcmp(out, data, size) == 0, "the round trip changed the bytes");
  ens_free(out);

  unsigned char *snap;
  size_t sn;
  ens_doc *copy = NULL;
  FZ_CHECK(ens_snapshot_encode(doc, &snap, &sn) == 0, "snapshot encode");
  FZ_CHECK(ens_snapshot_decode(snap, sn, &copy) == 0, "snapshot decode");
  ens_free(snap);
  FZ_CHECK(ens_svg_write(copy, &out, &n) == 0 && n == size && memcmp(out, data, size) == 0,
           "the round trip through a snapshot changed the bytes");
  ens_free(out);
  ens_doc_free(copy);

  /* an edit: the output still reads, and holds the new value */
  const ens_obj *e = s_first_element(ens_doc_root(doc));
  if (e) {
    ens_txn *t = ens_txn_new(NULL, NULL);
    ens_txn_set(t, ens_obj_id(e), "data-fz", ens_str(s_value));
    FZ_CHECK(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) == 0, "set an attribute");
    ens_txn_free(t);
    if (ens_svg_write(doc, &out, &n) == 0) { /* a non-UTF-8 encoding may not hold it */
      fz_check_written(doc, "the attribute set");
      ens_doc *again = NULL;
      FZ_CHECK(ens_svg_read(out, n, &again) == 0, "an edited file does not read back: %s", ens_error_last());
      const ens_obj *e2 = s_first_element(ens_doc_root(again));
      ens_value v;
      FZ_CHECK(e2 && ens_obj_get(e2, "data-fz", &v) == 0 && v.type == ENS_STR && v.u.s.len == strlen(s_value) &&
                   memcmp(v.u.s.ptr, s_value, v.u.s.len) == 0,
               "the edited attribute did not read back");
      ens_doc_free(again);
      ens_free(out);
    }
  }
  ens_doc_free(doc);
  return 0;
}
