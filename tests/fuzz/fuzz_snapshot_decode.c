/* Fuzz target: ens_snapshot_decode on untrusted bytes. A decoded document
 * must be a consistent tree, survive a canonical snapshot round trip, and
 * take a few transactions derived from the input (with and without a
 * schema) atomically and reversibly. See docs/fuzzing.md.
 *
 * The transactions come from a PRNG seeded with a hash of the input: keep
 * every draw in its own full expression (never two in one argument list),
 * so that the libFuzzer build (clang) and the replay build (gcc) derive
 * the same ones from the same input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

static const char *const s_keys[] = {"name", "x", "y", "fill", "link", "d", "size", "visible", "opacity", "k", "@sel"};
static const char *const s_kinds[] = {"layer", "group", "rect", "path", "text", "drawing", "g", " "};

/* Every id of doc in pre-order; caller frees. */
static ens_id *s_ids(const ens_doc *doc, size_t *n) {
  size_t cap = ens_doc_count(doc), count = 0;
  ens_id *ids = malloc((cap ? cap : 1) * sizeof *ids);
  const ens_obj **stack = malloc((cap ? cap : 1) * sizeof *stack);
  FZ_CHECK(ids && stack, "out of memory");
  size_t top = 0;
  stack[top++] = ens_doc_root(doc);
  while (top) {
    const ens_obj *o = stack[--top];
    FZ_CHECK(count < cap, "more objects than ens_doc_count");
    ids[count++] = ens_obj_id(o);
    /* push children in reverse so they come out in order */
    for (size_t i = ens_obj_child_count(o); i-- > 0;) {
      FZ_CHECK(top < cap, "more objects than ens_doc_count");
      stack[top++] = ens_obj_child(o, i);
    }
  }
  free(stack);
  *n = count;
  return ids;
}

static ens_id s_pick(fz_rng *r, const ens_id *ids, size_t n) {
  /* now and then an id that is probably not in the document */
  if (fz_below(r, 16) == 0) {
    uint64_t id = fz_next(r); /* draws in sequence: gcc and clang builds must agree */
    return fz_below(r, 2) ? id & 0xff : id;
  }
  return ids[fz_below(r, (uint32_t)n)];
}

static ens_value s_value(fz_rng *r, const ens_id *ids, size_t n, char *scratch, size_t scratch_size) {
  switch (fz_below(r, 9)) {
  case 0: return ens_nil();
  case 1: {
    int64_t i = (int64_t)fz_next(r);
    return ens_int(i >> fz_below(r, 64));
  }
  case 2: {
    uint64_t bits = fz_next(r);
    double d;
    memcpy(&d, &bits, 8);
    return fz_below(r, 2) ? ens_real(d) : ens_real((double)(int32_t)bits / 8.0);
  }
  case 3:
  case 4: {
    size_t len = fz_below(r, (uint32_t)scratch_size);
    for (size_t i = 0; i < len; i++) scratch[i] = (char)fz_next(r);
    return fz_below(r, 2) ? ens_strn(scratch, len) : ens_bytes(scratch, len);
  }
  case 5: return ens_bool((int)fz_below(r, 2));
  case 6:
  case 7: return ens_ref(s_pick(r, ids, n));
  default: return ens_str("");
  }
}

/* A position under parent at a random index, or occasionally an explicit
 * one (possibly equal to a sibling's: ties are broken by id). Caller frees. */
static char *s_pos(fz_rng *r, ens_doc *doc, ens_id parent) {
  const ens_obj *p = ens_doc_get(doc, parent);
  char *pos = NULL;
  if (p && fz_below(r, 8)) {
    size_t n = ens_obj_child_count(p);
    size_t at = fz_below(r, (uint32_t)n + 1);
    int rc = ens_doc_pos_at(doc, parent, at, &pos);
    FZ_CHECK(rc == 0 && pos, "ens_doc_pos_at failed: %d", rc);
    FZ_CHECK(ens_pos_valid(pos, strlen(pos)), "ens_doc_pos_at made an invalid position '%s'", pos);
    /* strictly after the left neighbour, and before the right one unless
     * the two are tied (then it goes after both, as documented) */
    const char *lo = at ? ens_obj_pos(ens_obj_child(p, at - 1)) : NULL;
    const char *hi = at < n ? ens_obj_pos(ens_obj_child(p, at)) : NULL;
    FZ_CHECK(!lo || strcmp(lo, pos) < 0, "position '%s' not after '%s'", pos, lo);
    FZ_CHECK(!hi || (lo && strcmp(lo, hi) == 0) || strcmp(pos, hi) < 0, "position '%s' not before '%s'", pos, hi);
    return pos;
  }
  static const char *const fixed[] = {"V", "k", "1", "z", "zzzzzzzzzz1"};
  const char *f = fixed[fz_below(r, 5)];
  pos = malloc(strlen(f) + 1);
  FZ_CHECK(pos, "out of memory");
  strcpy(pos, f);
  return pos;
}

static ens_id s_new_id(ens_doc *doc) {
  ens_id id = ens_doc_new_id(doc);
  /* a site whose counter is at its maximum has no ids left: that is an
   * answer, not a failure (an insert with id 0 then fails to apply) */
  if (id == ENS_ID_NONE) {
    FZ_CHECK(strstr(ens_error_last(), "used all its ids") != NULL, "ens_doc_new_id gave 0 without saying why");
    return id;
  }
  FZ_CHECK(ens_doc_get(doc, id) == NULL, "ens_doc_new_id returned %llx which is in use", (unsigned long long)id);
  return id;
}

/* A small transaction of 1..3 operations on objects of doc. */
static ens_txn *s_make_txn(fz_rng *r, ens_doc *doc) {
  size_t n;
  ens_id *ids = s_ids(doc, &n);
  char scratch[48];
  ens_txn *t = ens_txn_new("fuzz", fz_below(r, 2) ? "fuzzer" : NULL);
  FZ_CHECK(t, "out of memory");
  uint32_t nops = 1 + fz_below(r, 3);
  for (uint32_t k = 0; k < nops; k++) {
    if (fz_below(r, 48) == 0) {
      /* a move under a leaf at the bottom of some branch: with a deep
       * chain about, it meets the depth limit from the moving side */
      ens_id obj = s_pick(r, ids, n);
      const ens_obj *leaf = ens_doc_get(doc, s_pick(r, ids, n));
      while (leaf && ens_obj_child_count(leaf)) leaf = ens_obj_child(leaf, 0);
      ens_id parent = leaf ? ens_obj_id(leaf) : ENS_ROOT_ID;
      char *pos = s_pos(r, doc, parent);
      FZ_CHECK(ens_txn_move(t, obj, parent, pos) == 0, "ens_txn_move");
      ens_free(pos);
      continue;
    }
    if (fz_below(r, 24) == 0) {
      /* now and then a chain that ends exactly at the depth limit, one
       * short of it or one past it (refused): inputs under 4 KB cannot
       * describe such depths, yet every limit check and recursion in the
       * library meets them here (capture, inverse, snapshot, hash) */
      ens_id parent = s_pick(r, ids, n);
      const ens_obj *o = ens_doc_get(doc, parent);
      size_t depth = 0;
      for (const ens_obj *a = o; a && ens_obj_parent(a); a = ens_obj_parent(a)) depth++;
      long height = (long)FZ_MAX_DEPTH - (long)depth + (long)fz_below(r, 3) - 1;
      char *pos = s_pos(r, doc, parent);
      ens_node *node = ens_txn_insert(t, parent, pos, s_new_id(doc), "g");
      FZ_CHECK(node, "ens_txn_insert");
      ens_free(pos);
      for (long h = 1; h < height; h++) {
        node = ens_node_add_child(node, "V", s_new_id(doc), "g");
        FZ_CHECK(node, "ens_node_add_child");
      }
      ens_node_set(node, "leaf", ens_int(height));
      continue;
    }
    switch (fz_below(r, 5)) {
    case 0:
    case 1: { /* set: an existing key of the object or one of a few names */
      ens_id id = s_pick(r, ids, n);
      const ens_obj *o = ens_doc_get(doc, id);
      const char *key = s_keys[fz_below(r, FZ_COUNT(s_keys))];
      ens_value old;
      if (o && ens_obj_prop_count(o) && fz_below(r, 2))
        ens_obj_prop_at(o, fz_below(r, (uint32_t)ens_obj_prop_count(o)), &key, &old);
      ens_value v = s_value(r, ids, n, scratch, sizeof scratch);
      FZ_CHECK(ens_txn_set(t, id, key, v) == 0, "ens_txn_set");
      break;
    }
    case 2: { /* insert, sometimes with a child and properties */
      ens_id parent = s_pick(r, ids, n);
      char *pos = s_pos(r, doc, parent);
      const char *kind = s_kinds[fz_below(r, FZ_COUNT(s_kinds))];
      ens_node *node = ens_txn_insert(t, parent, pos, s_new_id(doc), kind);
      FZ_CHECK(node, "ens_txn_insert");
      ens_free(pos);
      for (uint32_t j = fz_below(r, 3); j > 0; j--) {
        const char *key = s_keys[fz_below(r, FZ_COUNT(s_keys))];
        ens_node_set(node, key, s_value(r, ids, n, scratch, sizeof scratch));
      }
      if (fz_below(r, 2)) {
        const char *kpos = fz_below(r, 2) ? "V" : "k";
        ens_node *kid = ens_node_add_child(node, kpos, s_new_id(doc), s_kinds[fz_below(r, 5)]);
        FZ_CHECK(kid, "ens_node_add_child");
        ens_node_set(kid, "x", ens_int(1));
      }
      break;
    }
    case 3: /* delete (the root now and then: must fail) */
      FZ_CHECK(ens_txn_delete(t, s_pick(r, ids, n)) == 0, "ens_txn_delete");
      break;
    default: { /* move, possibly into its own subtree: must fail then */
      ens_id obj = s_pick(r, ids, n), parent = s_pick(r, ids, n);
      char *pos = s_pos(r, doc, parent);
      FZ_CHECK(ens_txn_move(t, obj, parent, pos) == 0, "ens_txn_move");
      ens_free(pos);
      break;
    }
    }
  }
  free(ids);
  return t;
}

/* A local-only transaction of 1..3 sets of '@' keys (a non-'@' key now
 * and then: apply must refuse it). */
static ens_txn *s_make_local_txn(fz_rng *r, ens_doc *doc) {
  static const char *const local_keys[] = {"@sel", "@hover", "@x", "name"};
  size_t n;
  ens_id *ids = s_ids(doc, &n);
  char scratch[16];
  ens_txn *t = ens_txn_new("select", NULL);
  FZ_CHECK(t, "out of memory");
  ens_txn_set_local_only(t, 1);
  for (uint32_t k = 1 + fz_below(r, 3); k > 0; k--) {
    const char *key = local_keys[fz_below(r, fz_below(r, 8) ? 3 : 4)];
    ens_id id = s_pick(r, ids, n);
    FZ_CHECK(ens_txn_set(t, id, key, s_value(r, ids, n, scratch, sizeof scratch)) == 0, "ens_txn_set");
  }
  free(ids);
  return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ens_doc *doc = (ens_doc *)(uintptr_t)1;
  int rc = ens_snapshot_decode(data, size, &doc);
  if (rc != 0) {
    FZ_CHECK(rc < 0 && rc >= ENS_EFORMAT, "decode returned %d", rc);
    FZ_CHECK(doc == NULL, "failed decode left a document");
    return 0;
  }
  FZ_CHECK(doc != NULL, "decode succeeded without a document");

  /* the decoded tree is consistent */
  fz_check_doc(doc, 0);
  uint64_t h = ens_doc_hash(doc);

  /* canonical round trip: encode, decode, same hash, and the second
   * encoding is byte for byte the first */
  unsigned char *enc1 = NULL, *enc2 = NULL;
  size_t len1 = 0, len2 = 0;
  ens_doc *doc2 = NULL;
  fz_snapshot_roundtrip(doc, &enc1, &len1, &doc2);
  fz_check_doc(doc2, 0);
  rc = ens_snapshot_encode(doc2, &enc2, &len2);
  FZ_CHECK(rc == 0, "second encode failed: %d", rc);
  FZ_CHECK(len1 == len2 && memcmp(enc1, enc2, len1) == 0, "re-encoding is not canonical (%zu vs %zu bytes)", len1,
           len2);
  FZ_CHECK(ens_doc_hash(doc) == h, "encoding changed the document's hash");
  ens_free(enc1);
  ens_free(enc2);
  ens_doc_free(doc2);

  /* the document's own site (0 after a decode) still has fresh ids */
  s_new_id(doc);

  /* hostile shapes under edits: a few transactions derived from the
   * input; the second one runs with a schema and as a remote change */
  fz_rng r = {fz_hash_bytes(data, size)};
  ens_schema *schema = fz_fixture_schema();
  FZ_CHECK(schema, "schema");
  if (fz_below(&r, 2)) ens_doc_set_site(doc, 1 + fz_below(&r, 9));
  for (int k = 0; k < 3; k++) {
    ens_txn *t = s_make_txn(&r, doc);
    if (k == 1) {
      /* atomic even when the document does not conform to the schema */
      int strict = 1;
      fz_apply_checked(doc, t, ENS_ORIGIN_REMOTE, schema, NULL, strict);
    } else if (k == 2 && fz_below(&r, 3) == 0) {
      /* a local-only transaction (selection, hover): not content, so the
       * hashes stay, and the snapshot below must still decode */
      ens_txn_free(t);
      t = s_make_local_txn(&r, doc);
      uint64_t h0 = ens_doc_hash(doc), ch0 = ens_doc_content_hash(doc);
      if (fz_apply_checked(doc, t, ENS_ORIGIN_LOCAL_ONLY, NULL, NULL, 1) == 0) {
        FZ_CHECK_TXN(t, ens_doc_hash(doc) == h0, "a local-only transaction changed the hash");
        FZ_CHECK_TXN(t, ens_doc_content_hash(doc) == ch0, "a local-only transaction changed the content hash");
      }
    } else {
      fz_apply_checked(doc, t, ENS_ORIGIN_LOCAL, NULL, NULL, 1);
    }
    ens_txn_free(t);
  }
  fz_check_doc(doc, 1);
  /* whatever the edits made still snapshots faithfully */
  fz_snapshot_roundtrip(doc, NULL, NULL, NULL);
  ens_doc_free(doc);
  ens_schema_free(schema);
  return 0;
}
