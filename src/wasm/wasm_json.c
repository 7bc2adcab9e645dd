/* JSON text for the browser client's JavaScript (see wasm_json.h). */
#include "wasm_json.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void ensw_json_str(ens_buf *b, const char *s) { ens__buf_json_str(b, s ? s : "", s ? strlen(s) : 0); }

void ensw_json_strn(ens_buf *b, const char *s, size_t len) { ens__buf_json_str(b, s, len); }

void ensw_json_key_str(ens_buf *b, const char *key, const char *value) {
  ens__buf_printf(b, ",\"%s\":", key);
  ensw_json_str(b, value);
}

void ensw_json_id(ens_buf *b, ens_id id) {
  ens__buf_printf(b, "\"%" PRIu32 ":%" PRIu64 "\"", ens_id_site(id), (uint64_t)ens_id_counter(id));
}

void ensw_json_ids(ens_buf *b, const ens_id *ids, size_t n) {
  ens__buf_putc(b, '[');
  for (size_t i = 0; i < n; i++) {
    if (i) ens__buf_putc(b, ',');
    ensw_json_id(b, ids[i]);
  }
  ens__buf_putc(b, ']');
}

static int s_has(const char *label, const char *word) {
  size_t n = strlen(word);
  for (const char *p = label; *p; p++)
    if (strncasecmp(p, word, n) == 0) return 1;
  return 0;
}

void ensw_json_txn_summary(ens_buf *b, const ens_txn *txn) {
  const char *edit = "other";
  const char *label = txn ? ens_txn_label(txn) : NULL;
  size_t n = txn ? ens_txn_op_count(txn) : 0;
  int deletes = 0, moves = 0;
  for (size_t i = 0; i < n; i++) {
    if (ens_txn_op_kind(txn, i) == ENS_OP_DELETE) deletes++;
    if (ens_txn_op_kind(txn, i) == ENS_OP_MOVE) moves++;
  }
  if (label && (s_has(label, "width"))) edit = "width";
  else if (label && (s_has(label, "point"))) edit = "point";
  else if (label && (s_has(label, "colour") || s_has(label, "style") || s_has(label, "fill"))) edit = "style";
  else if (label && (s_has(label, "raise") || s_has(label, "lower"))) edit = "order";
  else if (deletes || (label && s_has(label, "delete"))) edit = "delete";
  else if (moves || (label && (s_has(label, "move") || s_has(label, "translate")))) edit = "move";
  ens__buf_printf(b, ",\"edit\":\"%s\",\"ops\":%zu", edit, n);
}

size_t ensw_parse_ids(const char *text, ens_id *ids, size_t cap) {
  size_t n = 0;
  const char *p = text ? text : "";
  while (*p && n < cap) {
    char *end;
    unsigned long long site = strtoull(p, &end, 10);
    if (end == p || *end != ':') break;
    p = end + 1;
    unsigned long long counter = strtoull(p, &end, 10);
    if (end == p) break;
    ids[n++] = ens_id_make(site, counter);
    p = end;
    if (*p == ',') p++;
  }
  return n;
}
