/* Fuzz target: ens_lottie_read on untrusted bytes. A refusal has a "line
 * L, column C" message; what reads writes back byte for byte, through a
 * snapshot too; edits (a string set on the animation, a number set and a
 * member removed on an object the input picks, an element added to and
 * one removed from a list) write files that read back as the same
 * document. A .tgs (gzip) must give back the JSON inside. See
 * docs/lottie.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

static const char s_value[] = "q\"uo\\te\n\t\x01 \xc3\xa9 \xf0\x9f\x98\x80 ~@";

typedef struct {
  size_t want, seen;
  const ens_obj *obj, *list;
  size_t lists_seen;
} s_pick;

static int s_walk(const ens_obj *o, size_t depth, void *user) {
  (void)depth;
  s_pick *p = user;
  if (!ens_obj_parent(o)) return 0;
  if (strcmp(ens_obj_kind(o), ENS_LOTTIE_LIST) == 0) {
    if (ens_obj_child_count(o) && p->lists_seen++ <= p->want) p->list = o;
  } else if (p->seen++ <= p->want) {
    p->obj = o;
  }
  return 0;
}

static void s_apply(ens_doc *doc, ens_txn *t, const char *what) {
  if (ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) == 0) fz_check_written(doc, what);
  ens_txn_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ens_doc *doc = NULL;
  if (ens_lottie_read(data, size, &doc) != 0) {
    FZ_CHECK(doc == NULL, "a refused file gave a document");
    FZ_CHECK(strstr(ens_error_last(), "line ") && strstr(ens_error_last(), ", column "),
             "a refusal without its line and column: %s", ens_error_last());
    return 0;
  }
  unsigned char *out;
  size_t n;
  FZ_CHECK(ens_lottie_write(doc, &out, &n) == 0, "a file that reads does not write");
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    /* a .tgs: the JSON inside comes back whole, and compressed again it
     * reads back as the same JSON (the gzip bytes are zlib's) */
    unsigned char *plain, *again;
    size_t pn, an;
    FZ_CHECK(ens_lottie_write_as(doc, 0, &plain, &pn) == 0, "a .tgs that reads does not write as JSON");
    ens_doc *back = NULL;
    FZ_CHECK(ens_lottie_read(out, n, &back) == 0, "a .tgs written does not read: %s", ens_error_last());
    FZ_CHECK(ens_lottie_write_as(back, 0, &again, &an) == 0 && an == pn && memcmp(again, plain, pn) == 0,
             "a .tgs written again holds other JSON");
    ens_free(again);
    ens_free(plain);
    ens_doc_free(back);
    ens_free(out);
    ens_doc_free(doc);
    return 0;
  }
  FZ_CHECK(n == size && memcmp(out, data, size) == 0, "the round trip changed the bytes");
  ens_free(out);

  unsigned char *snap;
  size_t sn;
  ens_doc *copy = NULL;
  FZ_CHECK(ens_snapshot_encode(doc, &snap, &sn) == 0, "snapshot encode");
  FZ_CHECK(ens_snapshot_decode(snap, sn, &copy) == 0, "snapshot decode");
  ens_free(snap);
  FZ_CHECK(ens_lottie_write(copy, &out, &n) == 0 && n == size && memcmp(out, data, size) == 0,
           "the round trip through a snapshot changed the bytes");
  ens_free(out);
  ens_doc_free(copy);

  /* a string on the animation: it reads back */
  ens_txn *t = ens_txn_new(NULL, NULL);
  ens_txn_set(t, ens_obj_id(ens_doc_root(doc)), "nm", ens_str(s_value));
  FZ_CHECK(ens_doc_apply(doc, t, ENS_ORIGIN_LOCAL, NULL) == 0, "set a name on the animation");
  ens_txn_free(t);
  fz_check_written(doc, "a name set");
  FZ_CHECK(ens_lottie_write(doc, &out, &n) == 0, "write after a set");
  ens_doc *again = NULL;
  FZ_CHECK(ens_lottie_read(out, n, &again) == 0, "an edited file does not read back: %s", ens_error_last());
  ens_value v;
  FZ_CHECK(ens_obj_get(ens_doc_root(again), "nm", &v) == 0 && v.type == ENS_STR && v.u.s.len == strlen(s_value) &&
               memcmp(v.u.s.ptr, s_value, v.u.s.len) == 0,
           "the name set did not read back");
  ens_doc_free(again);
  ens_free(out);

  s_pick p = {fz_hash_bytes(data, size) % 64, 0, NULL, NULL, 0};
  ens_obj_walk(ens_doc_root(doc), s_walk, &p);
  if (p.obj) {
    t = ens_txn_new(NULL, NULL);
    ens_txn_set(t, ens_obj_id(p.obj), "fz", ens_real(0.1 + (double)size));
    const char *key;
    for (size_t i = 0; i < ens_obj_prop_count(p.obj); i++)
      if (ens_obj_prop_at(p.obj, i, &key, &v) == 0 && key[0] != '~' && strcmp(key, "k") != 0) {
        ens_txn_set(t, ens_obj_id(p.obj), key, ens_nil());
        break;
      }
    s_apply(doc, t, "a number set and a member removed");
  }
  if (p.list) {
    size_t nk = ens_obj_child_count(p.list);
    const ens_obj *last = ens_obj_child(p.list, nk - 1);
    char *pos = ens_pos_between(ens_obj_pos(last), NULL);
    t = ens_txn_new(NULL, NULL);
    ens_node *node = pos ? ens_txn_insert(t, ens_obj_id(p.list), pos, ens_doc_new_id(doc), ens_obj_kind(last)) : NULL;
    if (node) {
      ens_node_set(node, "nm", ens_str("new"));
      ens_node_set(node, "t", ens_int(7));
      ens_node_set(node, "s", ens_bytes("[1,2.5]", 7));
    }
    if (nk > 1) ens_txn_delete(t, ens_obj_id(ens_obj_child(p.list, 0)));
    ens_free(pos);
    s_apply(doc, t, "an element added and one removed");
  }
  ens_doc_free(doc);
  return 0;
}
