/* libFuzzer target for the diff and the three-way merge on two versions of
 * a file: the input's first byte chooses the format (even: SVG, odd: SFD),
 * the rest is version 1 and version 2 of the file, split at the first
 * "\n@@ENSEMBLE-NEXT@@\n". The seeds are real consecutive versions cut down
 * from the shared corpus (tests/fuzz/make_version_pair_seeds.py). Each
 * version is read (an input either does not read is skipped). Checks, with
 * every document read from its bytes and matched by identity keys: the
 * diff v1 -> v2 applied to v1 gives v2's content; merge(base v1, ours v2,
 * theirs v1) gives v2's content, the same transaction bytes twice;
 * merge(v1, ours v1, theirs v2) has nothing to do; merge(v1, v2, v2)
 * neither fails nor crashes and applies. docs/fuzzing.md, "fuzz_version_pairs". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

static const char s_sep[] = "\n@@ENSEMBLE-NEXT@@\n";

typedef struct {
  int sfd;
  const uint8_t *v[2];
  size_t len[2];
} s_in;

static ens_doc *s_read(const s_in *in, int which) {
  ens_doc *d = NULL;
  int rc = in->sfd ? ens_sfd_read(in->v[which], in->len[which], &d) : ens_svg_read(in->v[which], in->len[which], &d);
  if (rc) {
    ens_doc_free(d);
    return NULL;
  }
  return d;
}

static ens_merge *s_merge(const s_in *in, const ens_doc *base, const ens_doc *ours, ens_doc *theirs) {
  ens_merge_opts o;
  memset(&o, 0, sizeof o);
  o.identity = in->sfd ? ens_sfd_identity : ens_svg_identity;
  o.refs = in->sfd ? NULL : ens_svg_refs;
  o.ours_match = o.theirs_match = ENS_MERGE_BY_KEY;
  ens_merge *m = NULL;
  FZ_CHECK(ens_merge3(base, ours, theirs, &o, &m) == 0, "the merge failed");
  return m;
}

static void s_apply(ens_doc *doc, const ens_txn *t, const char *what) {
  FZ_CHECK(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) == 0, "%s does not apply", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 || size > (1u << 20)) return 0;
  s_in in;
  in.sfd = data[0] & 1;
  const uint8_t *body = data + 1, *end = data + size;
  size_t n = (size_t)(end - body), sl = sizeof s_sep - 1;
  const uint8_t *cut = NULL;
  for (size_t i = 0; i + sl <= n && !cut; i++)
    if (body[i] == '\n' && memcmp(body + i, s_sep, sl) == 0) cut = body + i;
  if (!cut) return 0;
  in.v[0] = body;
  in.len[0] = (size_t)(cut - body);
  in.v[1] = cut + sl;
  in.len[1] = (size_t)(end - in.v[1]);

  ens_doc *v1 = s_read(&in, 0), *v2 = s_read(&in, 1);
  if (!v1 || !v2) {
    ens_doc_free(v1);
    ens_doc_free(v2);
    return 0;
  }
  uint64_t h2 = ens_doc_content_hash(v2);
  ens_identity_fn id = in.sfd ? ens_sfd_identity : ens_svg_identity;

  /* the diff */
  ens_doc *a = s_read(&in, 0);
  ens_txn *d = NULL;
  FZ_CHECK(a && ens_doc_diff(a, v2, id, NULL, &d) == 0, "the diff failed");
  s_apply(a, d, "the diff");
  FZ_CHECK(ens_doc_content_hash(a) == h2, "the diff does not give v2");
  ens_txn_free(d);
  ens_doc_free(a);

  /* ours changed, theirs is base: v2, deterministic */
  unsigned char *bytes[2] = {NULL, NULL};
  size_t len[2] = {0, 0}, conflicts[2];
  for (int k = 0; k < 2; k++) {
    ens_doc *t = s_read(&in, 0);
    FZ_CHECK(t != NULL, "v1 read once but not twice");
    ens_merge *m = s_merge(&in, v1, v2, t);
    conflicts[k] = ens_merge_conflict_count(m);
    FZ_CHECK(ens_txn_encode(ens_merge_txn(m), &bytes[k], &len[k]) == 0, "the merge does not encode");
    s_apply(t, ens_merge_txn(m), "merge(v1, v2, v1)");
    FZ_CHECK(ens_doc_content_hash(t) == h2, "merge(v1, v2, v1) does not give v2");
    ens_merge_free(m);
    ens_doc_free(t);
  }
  FZ_CHECK(len[0] == len[1] && memcmp(bytes[0], bytes[1], len[0]) == 0 && conflicts[0] == conflicts[1],
           "the merge is not deterministic");
  ens_free(bytes[0]);
  ens_free(bytes[1]);

  /* ours is base: nothing to do */
  ens_doc *o = s_read(&in, 0), *t = s_read(&in, 1);
  ens_merge *m = s_merge(&in, v1, o, t);
  FZ_CHECK(ens_txn_op_count(ens_merge_txn(m)) == 0, "merge(v1, v1, v2) has %zu operations",
           ens_txn_op_count(ens_merge_txn(m)));
  ens_merge_free(m);
  ens_doc_free(o);
  ens_doc_free(t);

  /* both made the same change: it merges and applies */
  o = s_read(&in, 1);
  t = s_read(&in, 1);
  m = s_merge(&in, v1, o, t);
  s_apply(t, ens_merge_txn(m), "merge(v1, v2, v2)");
  fz_sink += ens_doc_content_hash(t);
  ens_merge_free(m);
  ens_doc_free(o);
  ens_doc_free(t);

  ens_doc_free(v1);
  ens_doc_free(v2);
  return 0;
}
