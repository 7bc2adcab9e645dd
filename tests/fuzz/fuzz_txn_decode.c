/* Fuzz target: ens_txn_decode on untrusted bytes. A decoded transaction
 * must re-encode canonically, dump to well-formed JSON, read back through
 * the public readers, and apply to a fixed document as a remote change
 * atomically and reversibly, with and without a schema. See
 * docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

/* --- a strict-enough JSON syntax check (no UTF-8 validation: labels and
 * strings are bytes, and the library passes them through) -------------- */

static const char *s_ws(const char *p) {
  while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
  return p;
}

static int s_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static const char *s_json_string(const char *p) {
  if (*p++ != '"') return NULL;
  for (;;) {
    unsigned char c = (unsigned char)*p++;
    if (c == '"') return p;
    if (c < 0x20) return NULL; /* includes the terminating NUL */
    if (c != '\\') continue;
    c = (unsigned char)*p++;
    if (c == 'u') {
      for (int i = 0; i < 4; i++)
        if (!s_hex(*p++)) return NULL;
    } else if (!strchr("\"\\/bfnrt", c) || c == 0) {
      return NULL;
    }
  }
}

static const char *s_json_number(const char *p) {
  if (*p == '-') p++;
  if (*p == '0') p++;
  else if (*p >= '1' && *p <= '9') while (*p >= '0' && *p <= '9') p++;
  else return NULL;
  if (*p == '.') {
    p++;
    if (!(*p >= '0' && *p <= '9')) return NULL;
    while (*p >= '0' && *p <= '9') p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!(*p >= '0' && *p <= '9')) return NULL;
    while (*p >= '0' && *p <= '9') p++;
  }
  return p;
}

static const char *s_json_value(const char *p, int depth) {
  if (depth > 4 * FZ_MAX_DEPTH + 16) return NULL;
  p = s_ws(p);
  switch (*p) {
  case '{':
    p = s_ws(p + 1);
    if (*p == '}') return p + 1;
    for (;;) {
      if (!(p = s_json_string(s_ws(p)))) return NULL;
      p = s_ws(p);
      if (*p++ != ':') return NULL;
      if (!(p = s_json_value(p, depth + 1))) return NULL;
      p = s_ws(p);
      if (*p == '}') return p + 1;
      if (*p++ != ',') return NULL;
    }
  case '[':
    p = s_ws(p + 1);
    if (*p == ']') return p + 1;
    for (;;) {
      if (!(p = s_json_value(p, depth + 1))) return NULL;
      p = s_ws(p);
      if (*p == ']') return p + 1;
      if (*p++ != ',') return NULL;
    }
  case '"': return s_json_string(p);
  case 't': return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
  case 'f': return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
  case 'n': return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
  default: return s_json_number(p);
  }
}

/* --- readers ------------------------------------------------------------- */

static void s_check_readers(const ens_txn *t) {
  FZ_CHECK(!ens_txn_is_local_only(t), "a decoded transaction is local-only");
  FZ_CHECK(ens_txn_label(t) && ens_txn_author(t), "label or author is NULL");
  size_t n = ens_txn_op_count(t);
  for (size_t i = 0; i < n; i++) {
    ens_op_kind kind = ens_txn_op_kind(t, i);
    FZ_CHECK(kind <= ENS_OP_MOVE, "op %zu has kind %d", i, (int)kind);
    FZ_CHECK(ens_txn_op_target(t, i) != ENS_ID_NONE, "op %zu targets id 0", i);
    const char *key = NULL, *pos = NULL;
    ens_value v;
    ens_id parent = ENS_ID_NONE;
    int set_rc = ens_txn_op_set(t, i, &key, &v);
    int place_rc = ens_txn_op_place(t, i, &parent, &pos);
    FZ_CHECK((set_rc == 0) == (kind == ENS_OP_SET), "op_set on a %d", (int)kind);
    FZ_CHECK((place_rc == 0) == (kind == ENS_OP_MOVE || kind == ENS_OP_INSERT), "op_place on a %d", (int)kind);
    if (set_rc == 0) {
      FZ_CHECK(key && *key && key[0] != '@', "op %zu: bad key", i);
      fz_sink += fz_touch_value(&v);
    }
    if (place_rc == 0) {
      FZ_CHECK(parent != ENS_ID_NONE, "op %zu: parent 0", i);
      FZ_CHECK(pos && ens_pos_valid(pos, strlen(pos)), "op %zu: bad position", i);
    }
  }
  const char *key;
  ens_value v;
  ens_id parent;
  const char *pos;
  FZ_CHECK(ens_txn_op_set(t, n, &key, &v) != 0, "op_set past the end");
  FZ_CHECK(ens_txn_op_place(t, n, &parent, &pos) != 0, "op_place past the end");
}

/* Encode t; the bytes must decode to a transaction with the same encoding.
 * Returns the encoding (caller frees). */
static unsigned char *s_canonical(const ens_txn *t, size_t *len, const char *what) {
  unsigned char *e1 = NULL, *e2 = NULL;
  size_t n1 = 0, n2 = 0;
  ens_txn *t2 = NULL;
  int rc = ens_txn_encode(t, &e1, &n1);
  FZ_CHECK(rc == 0 && e1, "%s: encode failed: %d", what, rc);
  rc = ens_txn_decode(e1, n1, &t2);
  FZ_CHECK(rc == 0 && t2, "%s: the library's own encoding does not decode: %d", what, rc);
  FZ_CHECK(ens_txn_op_count(t2) == ens_txn_op_count(t), "%s: op count changed", what);
  FZ_CHECK(strcmp(ens_txn_label(t2), ens_txn_label(t)) == 0, "%s: label changed", what);
  FZ_CHECK(strcmp(ens_txn_author(t2), ens_txn_author(t)) == 0, "%s: author changed", what);
  rc = ens_txn_encode(t2, &e2, &n2);
  FZ_CHECK(rc == 0 && e2, "%s: second encode failed: %d", what, rc);
  FZ_CHECK(n1 == n2 && memcmp(e1, e2, n1) == 0, "%s: re-encoding is not canonical (%zu vs %zu bytes)", what, n1, n2);
  ens_free(e2);
  ens_txn_free(t2);
  *len = n1;
  return e1;
}

static void s_apply_to_fixture(const ens_txn *t, const ens_schema *schema) {
  ens_doc *doc = fz_fixture_doc();
  uint64_t h0 = ens_doc_hash(doc);
  size_t c0 = ens_doc_count(doc);
  ens_txn *inv = NULL;
  ens_doc_set_schema(doc, schema);
  int rc = ens_doc_apply(doc, t, ENS_ORIGIN_REMOTE, &inv);
  if (rc == 0) {
    /* the inverse is a wire-valid transaction too */
    FZ_CHECK(inv, "no inverse");
    size_t len;
    ens_free(s_canonical(inv, &len, "inverse"));
    char *json = ens_txn_to_json(inv);
    FZ_CHECK(json, "ens_txn_to_json of the inverse returned NULL");
    ens_free(json);
    fz_check_doc(doc, 0);
    fz_snapshot_roundtrip(doc, NULL, NULL, NULL);
    uint64_t h1 = ens_doc_hash(doc);
    rc = ens_doc_apply(doc, inv, ENS_ORIGIN_UNDO, NULL);
    FZ_CHECK(rc == 0, "the inverse of a successful apply failed: %s", ens_error_name(rc));
    FZ_CHECK(ens_doc_hash(doc) == h0, "the inverse did not restore the hash");
    FZ_CHECK(ens_doc_count(doc) == c0, "the inverse did not restore the object count");
    ens_txn_free(inv);
    inv = NULL;
    /* and once more, through the shared checker (atomicity, inverse, redo) */
    rc = fz_apply_checked(doc, t, ENS_ORIGIN_REMOTE, schema, schema, 1);
    FZ_CHECK(rc == 0, "applying again after the inverse failed: %s", ens_error_name(rc));
    FZ_CHECK(ens_doc_hash(doc) == h1, "applying again reached another hash");
  } else {
    FZ_CHECK(inv == NULL, "failed apply gave an inverse");
    FZ_CHECK(ens_doc_hash(doc) == h0, "failed apply (%s) changed the hash", ens_error_name(rc));
    FZ_CHECK(ens_doc_count(doc) == c0, "failed apply (%s) changed the object count", ens_error_name(rc));
  }
  fz_check_doc(doc, 0);
  ens_doc_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ens_txn *t = (ens_txn *)(uintptr_t)1;
  int rc = ens_txn_decode(data, size, &t);
  if (rc != 0) {
    FZ_CHECK(rc < 0 && rc >= ENS_EFORMAT, "decode returned %d", rc);
    FZ_CHECK(t == NULL, "failed decode left a transaction");
    return 0;
  }
  FZ_CHECK(t != NULL, "decode succeeded without a transaction");
  s_check_readers(t);

  size_t len;
  unsigned char *enc = s_canonical(t, &len, "transaction");
  ens_free(enc);

  char *json = ens_txn_to_json(t);
  FZ_CHECK(json, "ens_txn_to_json returned NULL");
  const char *end = s_json_value(json, 0);
  FZ_CHECK(end && *s_ws(end) == '\0', "ens_txn_to_json made malformed JSON near byte %zu: %.80s",
           end ? (size_t)(end - json) : (size_t)0, json);
  ens_free(json);

  static ens_schema *schema; /* built once: read-only, borrowed by each doc */
  if (!schema) schema = fz_fixture_schema();
  FZ_CHECK(schema, "schema");
  s_apply_to_fixture(t, NULL);
  s_apply_to_fixture(t, schema);
  ens_txn_free(t);
  return 0;
}
