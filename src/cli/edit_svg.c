/* The drawing commands of `ensemble edit`: one line of a script (text or
 * JSON) parsed and built into one transaction by ensemble/svgedit.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonline.h"

#define S_MAX_ELEMS 4096

typedef enum {
  S_SET_ATTR, S_REMOVE_ATTR, S_SET_STYLE, S_REMOVE_STYLE, S_TRANSLATE, S_ROTATE, S_SCALE, S_RAISE, S_LOWER,
  S_GROUP, S_UNGROUP, S_DUPLICATE, S_DELETE, S_INSERT, S_NOPS
} s_op;

static const char *const s_names[S_NOPS] = {"set-attr", "remove-attr", "set-style", "remove-style", "translate",
                                            "rotate",   "scale",       "raise",     "lower",        "group",
                                            "ungroup",  "duplicate",   "delete",    "insert"};

/* One parsed command; strings are owned (s_clear). */
typedef struct {
  s_op op;
  char *elem, *name, *value, *id;
  char **elems;
  size_t nelems;
  double v[4];
  int nv;
  long index;
} s_cmd;

static void s_clear(s_cmd *c) {
  free(c->elem);
  free(c->name);
  free(c->value);
  free(c->id);
  for (size_t i = 0; i < c->nelems; i++) free(c->elems[i]);
  free(c->elems);
  memset(c, 0, sizeof *c);
}

static int s_build(ens_doc *doc, const s_cmd *c, ens_txn **t) {
  const double *v = c->v;
  switch (c->op) {
  case S_SET_ATTR: return ens_svg_set_attr(doc, c->elem, c->name, c->value, t);
  case S_REMOVE_ATTR: return ens_svg_remove_attr(doc, c->elem, c->name, t);
  case S_SET_STYLE: return ens_svg_set_style(doc, c->elem, c->name, c->value, t);
  case S_REMOVE_STYLE: return ens_svg_set_style(doc, c->elem, c->name, NULL, t);
  case S_TRANSLATE: return ens_svg_translate(doc, c->elem, v[0], v[1], t);
  case S_ROTATE: return ens_svg_rotate(doc, c->elem, v[0], c->nv > 1 ? v[1] : 0, c->nv > 1 ? v[2] : 0, t);
  case S_SCALE:
    return ens_svg_scale(doc, c->elem, v[0], c->nv > 1 ? v[1] : v[0], c->nv > 2 ? v[2] : 0, c->nv > 2 ? v[3] : 0, t);
  case S_RAISE: return ens_svg_raise(doc, c->elem, t);
  case S_LOWER: return ens_svg_lower(doc, c->elem, t);
  case S_GROUP: return ens_svg_group(doc, (const char *const *)c->elems, c->nelems, c->id, t);
  case S_UNGROUP: return ens_svg_ungroup(doc, c->elem, t);
  case S_DUPLICATE: return ens_svg_duplicate(doc, c->elem, t);
  case S_DELETE: return ens_svg_delete(doc, c->elem, t);
  case S_INSERT: return ens_svg_insert(doc, c->elem, c->index, c->value, strlen(c->value), t);
  default: break;
  }
  return ENS_EINVAL;
}

#define S_BAD(...) (snprintf(err, esz, __VA_ARGS__), -1)

/* An insertion index: a whole number from -1, or "end" (-1). */
static int s_index(const char *s, size_t n, long *out) {
  if (n == 3 && memcmp(s, "end", 3) == 0) return *out = -1, 0;
  double d;
  if (cli_parse_real(s, n, &d) || d != floor(d) || d < -1 || d > 1e9) return -1;
  *out = (long)d;
  return 0;
}

/* How many numbers each transform takes: at least, at most. */
static int s_numbers_ok(s_op op, int nv) {
  switch (op) {
  case S_TRANSLATE: return nv == 2;
  case S_ROTATE: return nv == 1 || nv == 3;
  case S_SCALE: return nv == 1 || nv == 2 || nv == 4;
  default: return 0;
  }
}

static const char *s_numbers_usage(s_op op) {
  return op == S_TRANSLATE ? "DX DY" : op == S_ROTATE ? "DEG [CX CY]" : "SX [SY [CX CY]]";
}

/* --- the text form ------------------------------------------------------------------------------ */

typedef struct {
  const char *s;
  size_t n;
} s_tok;

static int s_parse_text(const char *line, size_t len, s_cmd *c, char *err, size_t esz) {
  static s_tok tok[S_MAX_ELEMS + 2];
  size_t nt = 0;
  const char *p = line, *e = line + len;
  /* each token knows where it starts: some commands take the rest of the line */
  while (p < e) {
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    if (p >= e) break;
    const char *t = p;
    while (p < e && *p != ' ' && *p != '\t') p++;
    if (nt == sizeof tok / sizeof *tok) return S_BAD("more than %d words on one line", S_MAX_ELEMS);
    tok[nt].s = t;
    tok[nt++].n = (size_t)(p - t);
  }
  if (!nt) return 1;
  int op = -1;
  for (int i = 0; i < S_NOPS; i++)
    if (strlen(s_names[i]) == tok[0].n && memcmp(s_names[i], tok[0].s, tok[0].n) == 0) op = i;
  if (op < 0) return S_BAD("unknown command '%.*s' (see ensemble edit --help)", (int)tok[0].n, tok[0].s);
  c->op = (s_op)op;
  size_t na = nt - 1;
  s_tok *a = tok + 1;
  const char *name = s_names[op];
  if (c->op == S_GROUP) {
    size_t first = 0;
    if (na && a[0].n > 3 && memcmp(a[0].s, "id=", 3) == 0) {
      if (!(c->id = cli_strndup(a[0].s + 3, a[0].n - 3))) return S_BAD("out of memory");
      first = 1;
    }
    if (na <= first) return S_BAD("group takes [id=ID] ELEM [ELEM...]");
    if (!(c->elems = calloc(na - first, sizeof *c->elems))) return S_BAD("out of memory");
    for (size_t i = first; i < na; i++)
      if (!(c->elems[c->nelems++] = cli_strndup(a[i].s, a[i].n))) return S_BAD("out of memory");
    return 0;
  }
  if (!na) return S_BAD("%s needs an element: #ID or a path such as /svg/g[1]/rect[0]", name);
  if (!(c->elem = cli_strndup(a[0].s, a[0].n))) return S_BAD("out of memory");
  switch (c->op) {
  case S_SET_ATTR:
  case S_SET_STYLE:
    /* the value is the rest of the line, blanks inside it kept */
    if (na < 3) return S_BAD("%s takes ELEM NAME VALUE (VALUE is the rest of the line)", name);
    if (!(c->name = cli_strndup(a[1].s, a[1].n)) || !(c->value = cli_strndup(a[2].s, (size_t)(e - a[2].s))))
      return S_BAD("out of memory");
    return 0;
  case S_REMOVE_ATTR:
  case S_REMOVE_STYLE:
    if (na != 2) return S_BAD("%s takes ELEM NAME", name);
    if (!(c->name = cli_strndup(a[1].s, a[1].n))) return S_BAD("out of memory");
    return 0;
  case S_TRANSLATE:
  case S_ROTATE:
  case S_SCALE:
    c->nv = (int)(na - 1);
    if (!s_numbers_ok(c->op, c->nv)) return S_BAD("%s takes ELEM %s", name, s_numbers_usage(c->op));
    for (int i = 0; i < c->nv; i++)
      if (cli_parse_real(a[1 + i].s, a[1 + i].n, &c->v[i])) return S_BAD("'%.*s' is not a number", (int)a[1 + i].n, a[1 + i].s);
    return 0;
  case S_INSERT:
    if (na < 3) return S_BAD("insert takes PARENT INDEX MARKUP (MARKUP is the rest of the line)");
    if (s_index(a[1].s, a[1].n, &c->index))
      return S_BAD("'%.*s' is not an index: 0, 1, ... or -1 / end", (int)a[1].n, a[1].s);
    if (!(c->value = cli_strndup(a[2].s, (size_t)(e - a[2].s)))) return S_BAD("out of memory");
    return 0;
  default:
    if (na != 1) return S_BAD("%s takes one element", name);
    return 0;
  }
}

/* --- the JSON form --------------------------------------------------------------------------------- */

static int s_parse_json(const char *line, size_t len, s_cmd *c, char *err, size_t esz) {
  cli_json o;
  if (cli_json_parse(line, len, &o, err, esz)) return -1;
  int rc = -1;
  const cli_json *cmd = cli_json_get(&o, "cmd"), *j;
  int op = -1;
  if (o.type != CLI_J_OBJ) {
    snprintf(err, esz, "bad JSON: one object per line");
    goto done;
  }
  for (int i = 0; cmd && cmd->type == CLI_J_STR && i < S_NOPS; i++)
    if (strcmp(cmd->str, s_names[i]) == 0) op = i;
  if (op < 0) {
    snprintf(err, esz, "\"cmd\" must name a command (set-attr, translate, group, insert, ...)");
    goto done;
  }
  c->op = (s_op)op;
  if (c->op == S_GROUP) {
    j = cli_json_get(&o, "elems");
    if (!j || j->type != CLI_J_ARR || !j->n) {
      snprintf(err, esz, "\"elems\" must be a list of element addresses");
      goto done;
    }
    if (!(c->elems = calloc(j->n, sizeof *c->elems))) goto done;
    for (size_t i = 0; i < j->n; i++) {
      if (j->kids[i].type != CLI_J_STR) {
        snprintf(err, esz, "\"elems\" item %zu must be a string", i);
        goto done;
      }
      if (!(c->elems[c->nelems++] = cli_strndup(j->kids[i].str, strlen(j->kids[i].str)))) goto done;
    }
    if (cli_json_get(&o, "id") && cli_json_get_str(&o, "id", NULL, &c->id, err, esz)) goto done;
    rc = 0;
    goto done;
  }
  if (cli_json_get_str(&o, "elem", c->op == S_INSERT ? "parent" : NULL, &c->elem, err, esz)) goto done;
  switch (c->op) {
  case S_SET_ATTR:
  case S_SET_STYLE:
    if (cli_json_get_str(&o, "name", "prop", &c->name, err, esz) || cli_json_get_str(&o, "value", NULL, &c->value, err, esz)) goto done;
    break;
  case S_REMOVE_ATTR:
  case S_REMOVE_STYLE:
    if (cli_json_get_str(&o, "name", "prop", &c->name, err, esz)) goto done;
    break;
  case S_TRANSLATE:
  case S_ROTATE:
  case S_SCALE: {
    static const char *const keys[3][4] = {{"dx", "dy"}, {"deg", "cx", "cy"}, {"sx", "sy", "cx", "cy"}};
    const char *const *k = keys[c->op - S_TRANSLATE];
    c->nv = 0;
    for (int i = 0; i < 4 && k[i]; i++) {
      j = cli_json_get(&o, k[i]);
      if (!j) continue;
      if (j->type != CLI_J_NUM) {
        snprintf(err, esz, "\"%s\" must be a number", k[i]);
        goto done;
      }
      c->v[i] = j->num;
      c->nv = i + 1;
    }
    if (c->op == S_SCALE && !cli_json_get(&o, "sy") && c->nv > 1) c->v[1] = c->v[0];
    if (c->op == S_SCALE && c->nv == 3) c->nv = 4; /* cx given, cy 0 */
    if (c->op == S_ROTATE && c->nv == 2) c->nv = 3;
    if (!s_numbers_ok(c->op, c->nv) || !cli_json_get(&o, k[0])) {
      snprintf(err, esz, "%s takes %s", s_names[c->op],
               c->op == S_TRANSLATE ? "\"dx\" and \"dy\"" : c->op == S_ROTATE ? "\"deg\" (and \"cx\", \"cy\")"
                                                                             : "\"sx\" (and \"sy\", \"cx\", \"cy\")");
      goto done;
    }
    break;
  }
  case S_INSERT:
    c->index = -1;
    if ((j = cli_json_get(&o, "index")) &&
        (j->type != CLI_J_NUM || j->num != floor(j->num) || j->num < -1 || j->num > 1e9)) {
      snprintf(err, esz, "\"index\" must be a whole number from -1");
      goto done;
    }
    if (j) c->index = (long)j->num;
    if (cli_json_get_str(&o, "markup", NULL, &c->value, err, esz)) goto done;
    break;
  default:
    break;
  }
  rc = 0;
done:
  if (rc && !err[0]) snprintf(err, esz, "out of memory");
  cli_json_free(&o);
  return rc;
}

int cli_edit_svg_line(ens_doc *doc, const char *line, size_t len, ens_txn **txn, char *err, size_t esz) {
  s_cmd c;
  memset(&c, 0, sizeof c);
  *txn = NULL;
  int rc = *line == '{' ? s_parse_json(line, len, &c, err, esz) : s_parse_text(line, len, &c, err, esz);
  if (rc == 0) {
    int erc = s_build(doc, &c, txn);
    if (erc) {
      snprintf(err, esz, "%s (%s)", ens_error_last(), ens_error_name(erc)); /* it names the command */
      rc = -1;
    }
  }
  s_clear(&c);
  return rc;
}
