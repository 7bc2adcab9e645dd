/* What the browser client's C files share: JSON for JavaScript, ids as
 * "site:counter" text, and the session handle's gesture commit. */
#ifndef ENS_WASM_JSON_H
#define ENS_WASM_JSON_H

#include <stddef.h>

#include "ensemble.h"
#include "util/buf.h"

typedef struct ensw ensw;

/* ,"key":"value" with value escaped for JSON. */
void ensw_json_key_str(ens_buf *b, const char *key, const char *value);
void ensw_json_str(ens_buf *b, const char *value);
void ensw_json_strn(ens_buf *b, const char *value, size_t len); /* value need not end in NUL */
void ensw_json_id(ens_buf *b, ens_id id); /* "site:counter" */
void ensw_json_ids(ens_buf *b, const ens_id *ids, size_t n);
/* ,"edit":"move|delete|style|order|width|point|other" guessed from a
 * transaction's label and operations, for the page's sounds. */
void ensw_json_txn_summary(ens_buf *b, const ens_txn *txn);
/* Ids from "s:c,s:c,..." into ids (at most cap); how many were read. */
size_t ensw_parse_ids(const char *text, ens_id *ids, size_t cap);

/* session_glue.c: the session's document (NULL before the first
 * snapshot); a gesture committed (txn freed); a result string kept in
 * the handle (b taken). */
ens_doc *ensw__doc(ensw *h);
int ensw__commit(ensw *h, ens_txn *txn);
const char *ensw__out(ensw *h, ens_buf *b);

#endif
