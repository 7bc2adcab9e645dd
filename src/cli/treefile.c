/* The .tree reader: one line per object, nesting by indentation, built as
 * ONE insert transaction so that loading is a single step that observers
 * and undo see whole. Bad input is an error naming the line, never a crash. */
#include "treefile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct {
  int indent;       /* columns of this object's line; -1 for the root */
  int child_indent; /* columns of its children; -1 before the first one */
  size_t children;
  ens_node *node;   /* NULL for the root */
  char *last_pos;   /* position of its last child so far, for the next one */
} s_level;

typedef struct {
  const char *name;
  size_t line;
  char *err;
  size_t err_size;
  ens_doc *doc;
  ens_txn *txn;
  s_level levels[CLI_TREE_MAX_DEPTH + 1];
  int depth;        /* levels in use; levels[0] is the root */
  char *str;        /* decoded string values */
  size_t str_cap;
  const char *keys[CLI_TREE_MAX_PROPS]; /* this line's keys, to refuse duplicates */
  size_t key_lens[CLI_TREE_MAX_PROPS];
  cli_tree_info info;
} s_parser;

static int s_error(s_parser *P, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int s_error(s_parser *P, int code, const char *fmt, ...) {
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (P->line) snprintf(P->err, P->err_size, "%s:%zu: %s", P->name, P->line, msg);
  else snprintf(P->err, P->err_size, "%s: %s", P->name, msg);
  return code;
}

static int s_is_name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static int s_is_name_char(char c) {
  return s_is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == ':';
}
static int s_is_digit(char c) { return c >= '0' && c <= '9'; }
static int s_is_blank(char c) { return c == ' ' || c == '\t'; }

/* A printable excerpt of [p, end) for messages: at most 32 bytes. */
static const char *s_excerpt(const char *p, const char *end, char *buf, size_t size) {
  size_t n = (size_t)(end - p), max = size - 4;
  const char *dots = "";
  if (n > max) {
    n = max;
    dots = "...";
  }
  snprintf(buf, size, "%.*s%s", (int)n, p, dots);
  for (char *c = buf; *c; c++)
    if ((unsigned char)*c < 0x20) *c = '?';
  return buf;
}

/* Reads a kind or key at *p; returns its length (0 when none). */
static size_t s_name(const char **p, const char *end) {
  const char *s = *p;
  if (s == end || !s_is_name_start(*s)) return 0;
  while (s < end && s_is_name_char(*s)) s++;
  size_t n = (size_t)(s - *p);
  *p = s;
  return n;
}

/* --- values ------------------------------------------------------------------ */

static int s_str_put(s_parser *P, size_t n, char c) {
  if (n + 1 >= P->str_cap) {
    size_t cap = P->str_cap ? P->str_cap * 2 : 64;
    char *s = realloc(P->str, cap);
    if (!s) return s_error(P, ENS_ENOMEM, "out of memory");
    P->str = s;
    P->str_cap = cap;
  }
  P->str[n] = c;
  return 0;
}

/* A "string" starting at *p (on the quote); decoded into P->str. */
static int s_string(s_parser *P, const char **p, const char *end, const char *line_start, ens_value *v) {
  const char *s = *p + 1;
  size_t n = 0;
  int rc;
  for (;;) {
    if (s == end)
      return s_error(P, ENS_EDECODE, "unterminated string: the quote at column %d is never closed",
                     (int)(*p - line_start) + 1);
    char c = *s++;
    if (c == '"') break;
    if (c == '\\') {
      if (s == end) continue; /* reported as unterminated above */
      char e = *s++;
      switch (e) {
      case '"': case '\\': c = e; break;
      case 'n': c = '\n'; break;
      case 'r': c = '\r'; break;
      case 't': c = '\t'; break;
      default:
        return s_error(P, ENS_EDECODE, "unknown escape '\\%c' in a string (use \\\" \\\\ \\n \\r or \\t)",
                       (unsigned char)e >= 0x20 && (unsigned char)e < 0x7f ? e : '?');
      }
    }
    if ((rc = s_str_put(P, n++, c))) return rc;
  }
  if ((rc = s_str_put(P, n, '\0'))) return rc;
  *p = s;
  *v = ens_strn(P->str, n);
  return 0;
}

/* 1 for an integer, 2 for a real, 0 for anything else. Strict on purpose:
 * "1e", "0x10", "inf" and "1,5" are mistakes, not numbers. */
static int s_number_kind(const char *t, size_t n) {
  size_t i = 0, digits = 0;
  int real = 0;
  if (i < n && (t[i] == '-' || t[i] == '+')) i++;
  while (i < n && s_is_digit(t[i])) i++, digits++;
  if (i < n && t[i] == '.') {
    real = 1;
    i++;
    while (i < n && s_is_digit(t[i])) i++, digits++;
  }
  if (!digits) return 0;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    size_t exp_digits = 0;
    real = 1;
    i++;
    if (i < n && (t[i] == '-' || t[i] == '+')) i++;
    while (i < n && s_is_digit(t[i])) i++, exp_digits++;
    if (!exp_digits) return 0;
  }
  return i == n ? 1 + real : 0;
}

static int s_value(s_parser *P, const char *key, const char **p, const char *end, const char *line_start,
                   ens_value *v) {
  if (*p < end && **p == '"') return s_string(P, p, end, line_start, v);
  const char *t = *p;
  while (*p < end && !s_is_blank(**p)) (*p)++;
  size_t n = (size_t)(*p - t);
  char shown[40];
  if (n == 0) return s_error(P, ENS_EDECODE, "key '%s' has no value after '='", key);
  if (n == 4 && memcmp(t, "true", 4) == 0) { *v = ens_bool(1); return 0; }
  if (n == 5 && memcmp(t, "false", 5) == 0) { *v = ens_bool(0); return 0; }
  int kind = s_number_kind(t, n);
  if (!kind)
    return s_error(P, ENS_EDECODE, "unknown value '%s' for key '%s': expected a number, a \"string\", true or false%s",
                   s_excerpt(t, *p, shown, sizeof shown), key,
                   s_is_name_start(*t) ? " (strings take double quotes)" : "");
  char num[64];
  if (n >= sizeof num) return s_error(P, ENS_EDECODE, "number for key '%s' is too long", key);
  memcpy(num, t, n);
  num[n] = '\0';
  errno = 0;
  if (kind == 1) {
    long long i = strtoll(num, NULL, 10);
    if (errno == ERANGE) return s_error(P, ENS_EDECODE, "integer %s for key '%s' is out of range", num, key);
    *v = ens_int(i);
  } else {
    double r = strtod(num, NULL);
    if (!isfinite(r)) return s_error(P, ENS_EDECODE, "number %s for key '%s' is out of range", num, key);
    *v = ens_real(r);
  }
  return 0;
}

/* --- lines ------------------------------------------------------------------ */

/* Places an object of indentation `indent` under the right parent and
 * makes its node, positioned after its previous sibling. */
static int s_place(s_parser *P, int indent, const char *kind, ens_node **node) {
  while (P->depth > 1 && P->levels[P->depth - 1].indent >= indent) {
    s_level *done = &P->levels[--P->depth];
    ens_free(done->last_pos);
    done->last_pos = NULL;
  }
  s_level *parent = &P->levels[P->depth - 1];
  if (parent->child_indent < 0) {
    parent->child_indent = indent;
  } else if (indent != parent->child_indent) {
    if (P->depth == 1)
      return s_error(P, ENS_EDECODE, "bad indentation: top-level objects start in column 1, this line has %d spaces",
                     indent);
    return s_error(P, ENS_EDECODE, "bad indentation: %d spaces match no line above (the siblings here have %d)",
                   indent, parent->child_indent);
  }
  if (P->depth > CLI_TREE_MAX_DEPTH)
    return s_error(P, ENS_ELIMIT, "objects nested more than %d levels deep", CLI_TREE_MAX_DEPTH);
  if (parent->children >= CLI_TREE_MAX_SIBLINGS)
    return s_error(P, ENS_ELIMIT, "more than %d objects under one parent", CLI_TREE_MAX_SIBLINGS);
  if (P->info.objects >= CLI_TREE_MAX_OBJECTS)
    return s_error(P, ENS_ELIMIT, "more than %d objects in one file", CLI_TREE_MAX_OBJECTS);

  /* after the previous sibling, so that children keep the file's order */
  char *pos = ens_pos_between(parent->last_pos, NULL);
  if (!pos) return s_error(P, ENS_ENOMEM, "out of memory");
  ens_free(parent->last_pos);
  parent->last_pos = pos;
  ens_id id = ens_doc_new_id(P->doc);
  *node = parent->node ? ens_node_add_child(parent->node, pos, id, kind)
                       : ens_txn_insert(P->txn, ENS_ROOT_ID, pos, id, kind);
  if (!*node) return s_error(P, ENS_ENOMEM, "%s", ens_error_last());
  parent->children++;
  P->info.objects++;
  if (!parent->node) P->info.ops++;

  s_level *level = &P->levels[P->depth++];
  memset(level, 0, sizeof *level);
  level->indent = indent;
  level->child_indent = -1;
  level->node = *node;
  return 0;
}

static int s_line(s_parser *P, const char *p, const char *end) {
  const char *start = p;
  char shown[40];
  int rc;
  while (p < end && s_is_blank(*p)) p++;
  if (p == end || *p == '#') return 0; /* blank or comment */
  if (memchr(start, '\t', (size_t)(p - start)))
    return s_error(P, ENS_EDECODE, "tab in the indentation: indent with spaces");
  int indent = (int)(p - start);

  const char *k = p;
  size_t klen = s_name(&p, end);
  if (!klen) return s_error(P, ENS_EDECODE, "expected an object kind (like glyph or point), found '%s'",
                            s_excerpt(k, end, shown, sizeof shown));
  if (klen > CLI_TREE_MAX_NAME) return s_error(P, ENS_ELIMIT, "kind longer than %d characters", CLI_TREE_MAX_NAME);
  if (p < end && !s_is_blank(*p))
    return s_error(P, ENS_EDECODE, "unexpected '%c' after the kind '%.*s'", *p, (int)klen, k);
  char kind[CLI_TREE_MAX_NAME + 1];
  memcpy(kind, k, klen);
  kind[klen] = '\0';

  ens_node *node;
  if ((rc = s_place(P, indent, kind, &node))) return rc;

  size_t nkeys = 0;
  for (;;) {
    while (p < end && s_is_blank(*p)) p++;
    if (p == end || *p == '#') break;
    const char *key = p;
    size_t len = s_name(&p, end);
    if (!len) {
      if (*key == '@') return s_error(P, ENS_EDECODE, "local-only keys (@...) describe a screen, not a file");
      return s_error(P, ENS_EDECODE, "expected key=value, found '%s'", s_excerpt(key, end, shown, sizeof shown));
    }
    if (len > CLI_TREE_MAX_NAME) return s_error(P, ENS_ELIMIT, "key longer than %d characters", CLI_TREE_MAX_NAME);
    char keyz[CLI_TREE_MAX_NAME + 1];
    memcpy(keyz, key, len);
    keyz[len] = '\0';
    if (p == end || *p != '=')
      return s_error(P, ENS_EDECODE, "expected '=' after key '%s' (write %s=VALUE)", keyz, keyz);
    p++;
    for (size_t i = 0; i < nkeys; i++)
      if (P->key_lens[i] == len && memcmp(P->keys[i], key, len) == 0)
        return s_error(P, ENS_EDECODE, "key '%s' given twice", keyz);
    if (nkeys == CLI_TREE_MAX_PROPS)
      return s_error(P, ENS_ELIMIT, "more than %d properties on one object", CLI_TREE_MAX_PROPS);
    P->keys[nkeys] = key;
    P->key_lens[nkeys++] = len;
    ens_value v;
    if ((rc = s_value(P, keyz, &p, end, start, &v))) return rc;
    if (p < end && !s_is_blank(*p))
      return s_error(P, ENS_EDECODE, "unexpected '%s' after the value of '%s' (separate properties with spaces)",
                     s_excerpt(p, end, shown, sizeof shown), keyz);
    if (ens_node_set(node, keyz, v)) return s_error(P, ENS_ENOMEM, "%s", ens_error_last());
  }
  return 0;
}

static int s_lines(s_parser *P, const char *text, size_t len) {
  const char *p = text, *end = text + len;
  if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3; /* editors' UTF-8 byte order mark */
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *line_end = nl ? nl : end;
    P->line++;
    if (memchr(p, '\0', (size_t)(line_end - p))) return s_error(P, ENS_EDECODE, "NUL byte: is this a text file?");
    const char *e = line_end;
    if (e > p && e[-1] == '\r') e--; /* files saved on Windows */
    int rc = s_line(P, p, e);
    if (rc) return rc;
    p = nl ? nl + 1 : end;
  }
  P->info.lines = P->line;
  return 0;
}

int cli_tree_parse(const char *text, size_t len, const char *name, const char *doc_kind, ens_doc **out,
                   cli_tree_info *info, char *err, size_t err_size) {
  *out = NULL;
  s_parser *P = calloc(1, sizeof *P);
  if (!P) {
    snprintf(err, err_size, "%s: out of memory", name);
    return ENS_ENOMEM;
  }
  P->name = name;
  P->err = err;
  P->err_size = err_size;
  P->levels[0].indent = -1;
  P->levels[0].child_indent = 0; /* top-level objects start in column 1 */
  P->depth = 1;
  int rc;
  char label[128];
  snprintf(label, sizeof label, "Open %s", name);
  if (!(P->doc = ens_doc_new(doc_kind, 0)) || !(P->txn = ens_txn_new(label, NULL))) {
    rc = s_error(P, P->doc ? ENS_ENOMEM : ENS_EINVAL, "%s", ens_error_last());
    goto done;
  }
  if (len > CLI_TREE_MAX_BYTES) {
    rc = s_error(P, ENS_ELIMIT, "larger than %zu bytes", CLI_TREE_MAX_BYTES);
    goto done;
  }
  if ((rc = s_lines(P, text, len))) goto done;
  P->line = 0; /* what follows concerns the whole file */
  if ((rc = ens_doc_apply(P->doc, P->txn, ENS_ORIGIN_LOCAL, NULL))) {
    rc = s_error(P, rc, "the document was refused: %s", ens_error_last());
    goto done;
  }
  if (info) *info = P->info;
  *out = P->doc;
  P->doc = NULL;
done:
  for (int i = 0; i < P->depth; i++) ens_free(P->levels[i].last_pos);
  ens_txn_free(P->txn);
  ens_doc_free(P->doc);
  free(P->str);
  free(P);
  return rc;
}

int cli_tree_load(const char *path, const char *doc_kind, ens_doc **out, cli_tree_info *info, char *err,
                  size_t err_size) {
  char *text;
  size_t len;
  *out = NULL;
  if (cli_read_file(path, CLI_TREE_MAX_BYTES, &text, &len, err, err_size)) return ENS_EIO;
  int rc = cli_tree_parse(text, len, path, doc_kind, out, info, err, err_size);
  free(text);
  return rc;
}
