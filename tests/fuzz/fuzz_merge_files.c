/* libFuzzer target for the three-way merge of files, as `ensemble merge`
 * and git's merge driver run it: three documents read from bytes by the
 * format's reader, both sides matched to base by identity keys. The input
 * is one byte of options (bit 0: a drawing, else a font; bit 1: prefer
 * theirs), then base, ours and theirs separated by 0x1E bytes. Inputs whose
 * parts do not read are the readers' business (fuzz_sfd_read,
 * fuzz_svg_read) and end there. Checks: the merge succeeds; its
 * transaction applies to theirs (or, for sides that already break the
 * format's rules, is refused whole by them, theirs unchanged); the merged
 * document writes a file that reads back as it (fz_check_written); the
 * merge is deterministic (a second one on theirs read again gives the same
 * bytes and conflicts); every conflict reads; merging with ours == base
 * changes nothing. docs/fuzzing.md, "fuzz_merge_files". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

static ens_doc *s_read(int svg, const uint8_t *p, size_t n) {
  ens_doc *d = NULL;
  if ((svg ? ens_svg_read(p, n, &d) : ens_sfd_read(p, n, &d)) != 0) return NULL;
  return d;
}

static void s_touch_conflicts(const ens_merge *m) {
  for (size_t i = 0; i < ens_merge_conflict_count(m); i++) {
    const ens_merge_conflict *c = ens_merge_conflict_at(m, i);
    FZ_CHECK(c && c->path, "conflict %zu does not read", i);
    fz_sink += strlen(c->path) + (c->key ? strlen(c->key) : 0);
    fz_sink += fz_touch_value(&c->base) + fz_touch_value(&c->ours) + fz_touch_value(&c->theirs);
  }
  FZ_CHECK(ens_merge_conflict_at(m, ens_merge_conflict_count(m)) == NULL, "a conflict past the end");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  int svg = data[0] & 1;
  ens_merge_prefer prefer = (data[0] & 2) ? ENS_MERGE_PREFER_THEIRS : ENS_MERGE_PREFER_OURS;
  const uint8_t *part[3];
  size_t len[3];
  const uint8_t *p = data + 1, *end = data + size;
  for (int k = 0; k < 3; k++) {
    const uint8_t *sep = k < 2 ? memchr(p, 0x1E, (size_t)(end - p)) : NULL;
    if (k < 2 && !sep) return 0;
    part[k] = p;
    len[k] = (size_t)((k < 2 ? sep : end) - p);
    p = k < 2 ? sep + 1 : end;
  }
  ens_doc *base = s_read(svg, part[0], len[0]), *ours = s_read(svg, part[1], len[1]);
  ens_doc *theirs = s_read(svg, part[2], len[2]), *theirs2 = s_read(svg, part[2], len[2]);
  ens_doc *base2 = s_read(svg, part[0], len[0]), *theirs3 = s_read(svg, part[2], len[2]);
  if (!base || !ours || !theirs || !theirs2 || !base2 || !theirs3) goto out;
  ens_merge_opts opts = {svg ? ens_svg_identity : ens_sfd_identity, NULL, ENS_MERGE_BY_KEY, ENS_MERGE_BY_KEY, prefer,
                         svg ? ens_svg_refs : NULL, NULL};
  ens_merge *m = NULL, *m2 = NULL, *m3 = NULL;
  FZ_CHECK(ens_merge3(base, ours, theirs, &opts, &m) == 0, "the merge fails");
  s_touch_conflicts(m);
  /* Files that already break their format's rules (two glyphs of one
   * number, which a reference then cannot tell apart) can make a merge the
   * format cannot hold: apply refuses it whole and theirs stays as it was
   * (`ensemble merge` then says why and writes nothing). Nothing else may
   * fail. */
  uint64_t before = ens_doc_hash(theirs);
  int arc = ens_doc_apply(theirs, ens_merge_txn(m), ENS_ORIGIN_LOCAL, NULL);
  FZ_CHECK(arc == 0 || arc == ENS_EFORMAT, "the merge's transaction does not apply to theirs");
  FZ_CHECK(arc == 0 || ens_doc_hash(theirs) == before, "a refused merge changed theirs");
  fz_check_doc(theirs, 0);
  if (arc == 0) fz_check_written(theirs, "the merged document");

  /* the same merge again: the same transaction and conflicts */
  FZ_CHECK(ens_merge3(base, ours, theirs2, &opts, &m2) == 0, "the second merge fails");
  unsigned char *e1 = NULL, *e2 = NULL;
  size_t n1 = 0, n2 = 0;
  FZ_CHECK(ens_txn_encode(ens_merge_txn(m), &e1, &n1) == 0 && ens_txn_encode(ens_merge_txn(m2), &e2, &n2) == 0,
           "a merge's transaction does not encode");
  FZ_CHECK(n1 == n2 && memcmp(e1, e2, n1) == 0, "two merges of the same files differ");
  FZ_CHECK(ens_merge_conflict_count(m) == ens_merge_conflict_count(m2), "two merges report different conflicts");
  ens_free(e1);
  ens_free(e2);

  /* ours == base: nothing to carry over */
  FZ_CHECK(ens_merge3(base, base2, theirs3, &opts, &m3) == 0, "the merge with ours == base fails");
  FZ_CHECK(ens_txn_op_count(ens_merge_txn(m3)) == 0 && ens_merge_conflict_count(m3) == 0,
           "ours == base gives %zu operations, %zu conflicts", ens_txn_op_count(ens_merge_txn(m3)),
           ens_merge_conflict_count(m3));
  ens_merge_free(m);
  ens_merge_free(m2);
  ens_merge_free(m3);
out:
  ens_doc_free(base);
  ens_doc_free(ours);
  ens_doc_free(theirs);
  ens_doc_free(theirs2);
  ens_doc_free(base2);
  ens_doc_free(theirs3);
  return 0;
}
