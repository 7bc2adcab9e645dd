/* Transactions as MessagePack for the wire (layout in docs/protocol.md)
 * and as JSON for people. The decoder trusts nothing: every count, length,
 * string and nesting level is checked before use. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/value_codec.h"
#include "../util/error.h"
#include "ops.h"

#define TXN_VERSION 1

static void s_write_node(ens_buf *b, const struct ens_node *n) {
  ens__mp_array(b, 5);
  ens__mp_uint(b, n->id);
  ens__mp_str(b, n->kind, strlen(n->kind));
  ens__mp_str(b, n->pos, strlen(n->pos));
  ens__mp_map(b, n->nprops);
  for (uint32_t i = 0; i < n->nprops; i++) {
    ens__mp_str(b, n->props[i].key, strlen(n->props[i].key));
    ens__value_write(b, &n->props[i].value);
  }
  ens__mp_array(b, n->nkids);
  for (uint32_t i = 0; i < n->nkids; i++) s_write_node(b, n->kids[i]);
}

int ens_txn_encode(const ens_txn *t, unsigned char **out, size_t *out_len) {
  *out = NULL;
  if (t->local_only) return ens__error(ENS_EINVAL, "local-only transactions are never encoded for the wire");
  ens_buf b = ENS_BUF_INIT;
  ens__buf_reserve(&b, 32 + t->nops * 24);
  ens__mp_array(&b, 4);
  ens__mp_uint(&b, TXN_VERSION);
  const char *label = ens_txn_label(t), *author = ens_txn_author(t);
  ens__mp_str(&b, label, strlen(label));
  ens__mp_str(&b, author, strlen(author));
  ens__mp_array(&b, (uint32_t)t->nops);
  for (size_t i = 0; i < t->nops; i++) {
    const ens__op *op = &t->ops[i];
    switch (op->kind) {
    case ENS_OP_SET:
      ens__mp_array(&b, 4);
      ens__mp_uint(&b, ENS_OP_SET);
      ens__mp_uint(&b, op->target);
      ens__mp_str(&b, op->str, strlen(op->str));
      ens__value_write(&b, &op->value);
      break;
    case ENS_OP_INSERT:
      ens__mp_array(&b, 3);
      ens__mp_uint(&b, ENS_OP_INSERT);
      ens__mp_uint(&b, op->target);
      s_write_node(&b, op->node);
      break;
    case ENS_OP_DELETE:
      ens__mp_array(&b, 2);
      ens__mp_uint(&b, ENS_OP_DELETE);
      ens__mp_uint(&b, op->target);
      break;
    case ENS_OP_MOVE:
      ens__mp_array(&b, 4);
      ens__mp_uint(&b, ENS_OP_MOVE);
      ens__mp_uint(&b, op->target);
      ens__mp_uint(&b, op->parent);
      ens__mp_str(&b, op->str, strlen(op->str));
      break;
    }
  }
  *out = ens__buf_detach(&b, out_len);
  if (!*out) return ens__error(ENS_ENOMEM, "out of memory encoding a transaction");
  return 0;
}

/* --- decode ---------------------------------------------------------------- */

static char *s_read_cstr(ens_mp_reader *r, size_t max, int allow_empty, const char *what) {
  uint32_t len;
  const char *s = ens__mp_read_str(r, &len);
  if (r->err) return NULL;
  if (len > max) { ens__mp_fail(r, what); return NULL; }
  if ((!allow_empty && len == 0) || memchr(s, '\0', len)) { ens__mp_fail(r, what); return NULL; }
  char *c = malloc((size_t)len + 1);
  if (!c) { ens__mp_fail(r, "out of memory"); return NULL; }
  memcpy(c, s, len);
  c[len] = '\0';
  return c;
}

static ens_id s_read_id(ens_mp_reader *r) {
  ens_id id = ens__mp_read_uint(r);
  if (!r->err && id == ENS_ID_NONE) ens__mp_fail(r, "object id 0");
  return id;
}

static char *s_read_pos(ens_mp_reader *r) {
  char *p = s_read_cstr(r, ENS_MAX_POS, 0, "bad position");
  if (p && !ens_pos_valid(p, strlen(p))) {
    free(p);
    ens__mp_fail(r, "bad position");
    return NULL;
  }
  return p;
}

static char *s_read_key(ens_mp_reader *r) {
  char *k = s_read_cstr(r, ENS_MAX_KEY, 0, "bad property key");
  if (k && k[0] == '@') {
    free(k);
    ens__mp_fail(r, "local-only property on the wire");
    return NULL;
  }
  return k;
}

static struct ens_node *s_read_node(ens_mp_reader *r, int depth) {
  if (depth > ENS_MAX_DEPTH) { ens__mp_fail(r, "objects nested too deeply"); return NULL; }
  if (ens__mp_read_array(r) != 5) { ens__mp_fail(r, "object is not a 5-element array"); return NULL; }
  struct ens_node *n = calloc(1, sizeof *n);
  if (!n) { ens__mp_fail(r, "out of memory"); return NULL; }
  n->id = s_read_id(r);
  n->kind = s_read_cstr(r, ENS_MAX_KIND, 0, "bad kind");
  n->pos = s_read_pos(r);
  uint32_t np = ens__mp_read_map(r);
  if (r->err) goto fail;
  if (np) {
    n->props = calloc(np, sizeof *n->props);
    if (!n->props) { ens__mp_fail(r, "out of memory"); goto fail; }
    n->capprops = np;
  }
  for (uint32_t i = 0; i < np; i++) {
    ens__kv *kv = &n->props[i];
    ens_value v;
    kv->key = s_read_key(r);
    if (!kv->key) goto fail;
    n->nprops++;
    if (ens__value_read(r, &v) || ens__value_dup(&v, &kv->value)) { ens__mp_fail(r, "bad value"); goto fail; }
  }
  uint32_t nk = ens__mp_read_array(r);
  if (r->err) goto fail;
  if (nk) {
    n->kids = calloc(nk, sizeof *n->kids);
    if (!n->kids) { ens__mp_fail(r, "out of memory"); goto fail; }
    n->capkids = nk;
  }
  for (uint32_t i = 0; i < nk; i++) {
    if (!(n->kids[i] = s_read_node(r, depth + 1))) goto fail;
    n->nkids++;
  }
  return n;
fail:
  ens__node_free(n);
  return NULL;
}

int ens_txn_decode(const void *data, size_t len, ens_txn **out) {
  ens_mp_reader r;
  ens__mp_reader_init(&r, data, len);
  *out = NULL;
  ens_txn *t = calloc(1, sizeof *t);
  if (!t) return ens__error(ENS_ENOMEM, "out of memory decoding a transaction");
  if (ens__mp_read_array(&r) != 4) ens__mp_fail(&r, "not a transaction");
  if (ens__mp_read_uint(&r) != TXN_VERSION && !r.err) ens__mp_fail(&r, "unsupported transaction version");
  t->label = s_read_cstr(&r, ENS_MAX_LABEL, 1, "bad label");
  t->author = s_read_cstr(&r, ENS_MAX_AUTHOR, 1, "bad author");
  uint32_t nops = ens__mp_read_array(&r);
  if (!r.err && nops) {
    t->ops = calloc(nops, sizeof *t->ops);
    if (!t->ops) ens__mp_fail(&r, "out of memory");
    t->capops = nops;
  }
  for (uint32_t i = 0; i < nops && !r.err; i++) {
    uint32_t n = ens__mp_read_array(&r);
    uint64_t kind = ens__mp_read_uint(&r);
    if (r.err) break;
    ens__op *op = &t->ops[t->nops];
    memset(op, 0, sizeof *op);
    op->kind = (uint8_t)kind;
    if (kind == ENS_OP_SET && n == 4) {
      ens_value v;
      op->target = s_read_id(&r);
      op->str = s_read_key(&r);
      if (!r.err && (ens__value_read(&r, &v) || ens__value_dup(&v, &op->value))) ens__mp_fail(&r, "bad value");
    } else if (kind == ENS_OP_INSERT && n == 3) {
      op->target = s_read_id(&r);
      if (!r.err) op->node = s_read_node(&r, 1);
    } else if (kind == ENS_OP_DELETE && n == 2) {
      op->target = s_read_id(&r);
    } else if (kind == ENS_OP_MOVE && n == 4) {
      op->target = s_read_id(&r);
      op->parent = s_read_id(&r);
      op->str = s_read_pos(&r);
    } else {
      ens__mp_fail(&r, "unknown operation or wrong arity");
    }
    t->nops++; /* counted even when partial, so that free releases it */
  }
  if (!r.err && r.p != r.end) ens__mp_fail(&r, "trailing bytes after the transaction");
  if (r.err) {
    int rc = ens__error(ENS_EDECODE, "transaction: %s (near byte %zu of %zu)", r.why ? r.why : "malformed",
                        (size_t)(r.fail_at - (const unsigned char *)data), len);
    ens_txn_free(t);
    return rc;
  }
  if (t->label && !*t->label) { free(t->label); t->label = NULL; }
  if (t->author && !*t->author) { free(t->author); t->author = NULL; }
  *out = t;
  return 0;
}

/* --- JSON for people -------------------------------------------------------- */

static void s_json_str(ens_buf *b, const char *s, size_t n) {
  ens__buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      ens__buf_putc(b, '\\');
      ens__buf_putc(b, c);
    } else if (c < 0x20) {
      ens__buf_printf(b, "\\u%04x", c);
    } else {
      ens__buf_putc(b, c);
    }
  }
  ens__buf_putc(b, '"');
}

static void s_json_id(ens_buf *b, ens_id id) {
  ens__buf_printf(b, "\"%u:%llu\"", ens_id_site(id), (unsigned long long)ens_id_counter(id));
}

static void s_json_value(ens_buf *b, const ens_value *v) {
  switch (v->type) {
  case ENS_NIL: ens__buf_puts(b, "null"); break;
  case ENS_INT: ens__buf_printf(b, "%lld", (long long)v->u.i); break;
  case ENS_REAL:
    if (isfinite(v->u.r)) ens__buf_printf(b, "{\"real\":%.17g}", v->u.r);
    else ens__buf_printf(b, "{\"real\":\"%s\"}", isnan(v->u.r) ? "nan" : v->u.r > 0 ? "inf" : "-inf");
    break;
  case ENS_STR: s_json_str(b, v->u.s.ptr, v->u.s.len); break;
  case ENS_BYTES:
    ens__buf_puts(b, "{\"bytes\":\"");
    for (size_t i = 0; i < v->u.s.len; i++) ens__buf_printf(b, "%02x", (unsigned char)v->u.s.ptr[i]);
    ens__buf_puts(b, "\"}");
    break;
  case ENS_BOOL: ens__buf_puts(b, v->u.b ? "true" : "false"); break;
  case ENS_REF:
    ens__buf_puts(b, "{\"ref\":");
    s_json_id(b, v->u.ref);
    ens__buf_putc(b, '}');
    break;
  }
}

static void s_json_node(ens_buf *b, const struct ens_node *n) {
  ens__buf_puts(b, "{\"id\":");
  s_json_id(b, n->id);
  ens__buf_puts(b, ",\"kind\":");
  s_json_str(b, n->kind, strlen(n->kind));
  ens__buf_puts(b, ",\"pos\":");
  s_json_str(b, n->pos, strlen(n->pos));
  ens__buf_puts(b, ",\"props\":{");
  for (uint32_t i = 0; i < n->nprops; i++) {
    if (i) ens__buf_putc(b, ',');
    s_json_str(b, n->props[i].key, strlen(n->props[i].key));
    ens__buf_putc(b, ':');
    s_json_value(b, &n->props[i].value);
  }
  ens__buf_puts(b, "},\"children\":[");
  for (uint32_t i = 0; i < n->nkids; i++) {
    if (i) ens__buf_putc(b, ',');
    s_json_node(b, n->kids[i]);
  }
  ens__buf_puts(b, "]}");
}

char *ens_txn_to_json(const ens_txn *t) {
  ens_buf b = ENS_BUF_INIT;
  const char *label = ens_txn_label(t), *author = ens_txn_author(t);
  ens__buf_puts(&b, "{\"label\":");
  s_json_str(&b, label, strlen(label));
  ens__buf_puts(&b, ",\"author\":");
  s_json_str(&b, author, strlen(author));
  ens__buf_printf(&b, ",\"local_only\":%s,\"ops\":[", t->local_only ? "true" : "false");
  for (size_t i = 0; i < t->nops; i++) {
    const ens__op *op = &t->ops[i];
    if (i) ens__buf_putc(&b, ',');
    switch (op->kind) {
    case ENS_OP_SET:
      ens__buf_puts(&b, "{\"op\":\"set\",\"obj\":");
      s_json_id(&b, op->target);
      ens__buf_puts(&b, ",\"key\":");
      s_json_str(&b, op->str, strlen(op->str));
      ens__buf_puts(&b, ",\"value\":");
      s_json_value(&b, &op->value);
      break;
    case ENS_OP_INSERT:
      ens__buf_puts(&b, "{\"op\":\"insert\",\"parent\":");
      s_json_id(&b, op->target);
      ens__buf_puts(&b, ",\"object\":");
      s_json_node(&b, op->node);
      break;
    case ENS_OP_DELETE:
      ens__buf_puts(&b, "{\"op\":\"delete\",\"obj\":");
      s_json_id(&b, op->target);
      break;
    case ENS_OP_MOVE:
      ens__buf_puts(&b, "{\"op\":\"move\",\"obj\":");
      s_json_id(&b, op->target);
      ens__buf_puts(&b, ",\"parent\":");
      s_json_id(&b, op->parent);
      ens__buf_puts(&b, ",\"pos\":");
      s_json_str(&b, op->str, strlen(op->str));
      break;
    }
    ens__buf_putc(&b, '}');
  }
  ens__buf_puts(&b, "]}");
  return (char *)ens__buf_detach(&b, NULL);
}
