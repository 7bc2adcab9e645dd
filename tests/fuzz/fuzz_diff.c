/* libFuzzer target for the semantic diff (ensemble/changes.h). The input
 * is a format byte ('F' for SFD, anything else SVG), then the old
 * document's text, a NUL byte, and the new document's text. When both
 * read, the change list is computed and written as text and JSON, every
 * record names objects its documents hold, and the diff's transaction
 * turns the old document into the new one's content. Neither may crash.
 * docs/fuzzing.md has the seeds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

static int s_read(int sfd, const uint8_t *p, size_t n, ens_doc **out) {
  return sfd ? ens_sfd_read(p, n, out) : ens_svg_read(p, n, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 || size > (1u << 20)) return 0;
  int sfd = data[0] == 'F';
  const uint8_t *a = data + 1, *nul = memchr(a, 0, size - 1);
  if (!nul) return 0;
  size_t na = (size_t)(nul - a), nb = size - 1 - na - 1;
  ens_doc *old_doc = NULL, *new_doc = NULL;
  if (s_read(sfd, a, na, &old_doc) != 0 || s_read(sfd, nul + 1, nb, &new_doc) != 0) {
    ens_doc_free(old_doc);
    return 0;
  }
  const char *kind = ens_doc_kind(old_doc);
  ens_changes_opts o = {ens_format_identity(kind), NULL, ens_format_noise(kind), NULL};
  ens_changes *c = NULL;
  FZ_CHECK(ens_changes_compute(old_doc, new_doc, &o, &c) == 0, "changes of two documents read");
  for (size_t i = 0; i < ens_changes_count(c); i++) {
    const ens_change *ch = ens_changes_at(c, i);
    FZ_CHECK(ch->path && ch->group && ch->obj_kind, "record %zu has its paths", i);
    FZ_CHECK(!ch->old_id == (ch->kind == ENS_CHANGE_ADDED), "record %zu: old id iff not added", i);
    FZ_CHECK(!ch->new_id == (ch->kind == ENS_CHANGE_REMOVED), "record %zu: new id iff not removed", i);
    FZ_CHECK(!ch->old_id || ens_doc_get(old_doc, ch->old_id), "record %zu: old object there", i);
    FZ_CHECK(!ch->new_id || ens_doc_get(new_doc, ch->new_id), "record %zu: new object there", i);
    FZ_CHECK((ch->kind == ENS_CHANGE_SET) <= (ch->key != NULL), "record %zu: a set has its key", i);
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  FZ_CHECK(f, "memstream");
  FZ_CHECK(ens_changes_write_text(c, kind, f) == 0, "text");
  FZ_CHECK(ens_changes_write_json(c, kind, f) == 0, "json");
  fclose(f);
  fz_sink += len;
  free(buf);
  ens_txn *t = NULL;
  FZ_CHECK(ens_doc_diff(old_doc, new_doc, o.identity, NULL, &t) == 0, "diff");
  /* without the format's rules: what they refuse between two files that
   * both read (one without its SplineFontDB line) is the readers' matter,
   * and the diff is judged by the content it gives */
  ens_doc_set_schema(old_doc, NULL);
  FZ_CHECK(ens_doc_apply(old_doc, t, ENS_ORIGIN_LOCAL, NULL) == 0, "the diff applies");
  FZ_CHECK(ens_doc_content_hash(old_doc) == ens_doc_content_hash(new_doc), "the diff gives the new content");
  ens_txn_free(t);
  ens_changes_free(c);
  ens_doc_free(old_doc);
  ens_doc_free(new_doc);
  return 0;
}
