/* The animation commands of `ensemble edit`: one line of a script (text or
 * JSON) parsed and built into one transaction by ensemble/lottieedit.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonline.h"

typedef enum {
  S_SET_VALUE, S_ADD_KEYFRAME, S_MOVE_KEYFRAME, S_DELETE_KEYFRAME, S_SET_EASING, S_SHIFT_LAYER, S_STRETCH_LAYER,
  S_SHIFT_RANGE, S_SET_IN_OUT, S_REPARENT, S_REORDER, S_RENAME, S_SET_COLOUR, S_DUPLICATE_LAYER, S_NOPS
} s_op;

static const char *const s_names[S_NOPS] = {
    "set-value",   "add-keyframe", "move-keyframe", "delete-keyframe", "set-easing", "shift-layer", "stretch-layer",
    "shift-range", "set-in-out",   "reparent",      "reorder",         "rename",     "set-colour",  "duplicate-layer"};

/* What each command takes in its text form, for messages. */
static const char *const s_usage[S_NOPS] = {
    "PROP FRAME VALUE",       "PROP FRAME VALUE",  "PROP FRAME NEW_FRAME", "PROP FRAME",
    "PROP FRAME EASING",      "LAYER FRAMES",      "LAYER FACTOR",         "FROM FRAMES",
    "LAYER IN OUT",           "LAYER PARENT|none", "LAYER PLACE",          "TARGET NAME",
    "TARGET R G B [A] | #rrggbb", "LAYER"};

/* One parsed command; strings are owned (s_clear). */
typedef struct {
  s_op op;
  char *target, *other, *value; /* address; parent or name; value text */
  double v[4];
  ens_lottie_easing easing;
  double rgba[4];
} s_cmd;

static void s_clear(s_cmd *c) {
  free(c->target);
  free(c->other);
  free(c->value);
  memset(c, 0, sizeof *c);
}

static int s_build(ens_doc *doc, const s_cmd *c, ens_txn **t) {
  const double *v = c->v;
  switch (c->op) {
  case S_SET_VALUE: return ens_lottie_set_value(doc, c->target, v[0], c->value, t);
  case S_ADD_KEYFRAME: return ens_lottie_add_keyframe(doc, c->target, v[0], c->value, t);
  case S_MOVE_KEYFRAME: return ens_lottie_move_keyframe(doc, c->target, v[0], v[1], t);
  case S_DELETE_KEYFRAME: return ens_lottie_delete_keyframe(doc, c->target, v[0], t);
  case S_SET_EASING: return ens_lottie_set_easing(doc, c->target, v[0], &c->easing, t);
  case S_SHIFT_LAYER: return ens_lottie_shift_layer(doc, c->target, v[0], t);
  case S_STRETCH_LAYER: return ens_lottie_stretch_layer(doc, c->target, v[0], t);
  case S_SHIFT_RANGE: return ens_lottie_shift_range(doc, v[0], v[1], t);
  case S_SET_IN_OUT: return ens_lottie_set_in_out(doc, c->target, v[0], v[1], t);
  case S_REPARENT: return ens_lottie_reparent(doc, c->target, c->other, t);
  case S_REORDER: return ens_lottie_reorder(doc, c->target, (size_t)v[0], t);
  case S_RENAME: return ens_lottie_rename(doc, c->target, c->other, t);
  case S_SET_COLOUR: return ens_lottie_set_color(doc, c->target, c->rgba, t);
  case S_DUPLICATE_LAYER: return ens_lottie_duplicate_layer(doc, c->target, t);
  default: break;
  }
  return ENS_EINVAL;
}

#define S_SAY(...) ((void)snprintf(err, esz, __VA_ARGS__))
#define S_BAD(...) (S_SAY(__VA_ARGS__), -1)

/* Named easings: the CSS ones, and hold. */
static int s_named_easing(const char *s, size_t n, ens_lottie_easing *e) {
  static const struct {
    const char *name;
    ens_lottie_easing e;
  } named[] = {{"linear", {0, 0, 1, 1, 0}},       {"ease", {0.25, 0.1, 0.25, 1, 0}}, {"ease-in", {0.42, 0, 1, 1, 0}},
               {"ease-out", {0, 0, 0.58, 1, 0}}, {"ease-in-out", {0.42, 0, 0.58, 1, 0}}, {"hold", {0, 0, 1, 1, 1}}};
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
    if (strlen(named[i].name) == n && memcmp(named[i].name, s, n) == 0) {
      *e = named[i].e;
      return 0;
    }
  return -1;
}

/* "#rrggbb" into rgba (alpha 1). */
static int s_hex_colour(const char *s, size_t n, double *rgba) {
  if (n != 7 || s[0] != '#') return -1;
  for (int i = 0; i < 3; i++) {
    char h[3] = {s[1 + 2 * i], s[2 + 2 * i], 0}, *end;
    long v = strtol(h, &end, 16);
    if (*end) return -1;
    rgba[i] = (double)v / 255.0;
  }
  rgba[3] = 1;
  return 0;
}

/* How many numbers each command takes after its address, and whether it
 * takes an address at all. */
static int s_has_target(s_op op) { return op != S_SHIFT_RANGE; }

/* --- the text form: words, "quoted words" for names with blanks --------------------------- */

#define S_MAX_WORDS 16

typedef struct {
  char *s[S_MAX_WORDS];
  size_t n;
  const char *rest[S_MAX_WORDS]; /* where each word starts in the line */
} s_words;

static void s_words_free(s_words *w) {
  for (size_t i = 0; i < w->n; i++) free(w->s[i]);
}

static int s_split(const char *line, size_t len, s_words *w, char *err, size_t esz) {
  const char *p = line, *e = line + len;
  w->n = 0;
  while (p < e) {
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    if (p >= e) break;
    if (w->n == S_MAX_WORDS) return S_BAD("too many words on one line");
    w->rest[w->n] = p;
    char *out = malloc((size_t)(e - p) + 1);
    if (!out) return S_BAD("out of memory");
    size_t k = 0;
    if (*p == '"') {
      p++;
      while (p < e && *p != '"') {
        if (*p == '\\' && p + 1 < e) p++;
        out[k++] = *p++;
      }
      if (p >= e) {
        free(out);
        return S_BAD("a quoted name has no closing quote");
      }
      p++;
    } else {
      while (p < e && *p != ' ' && *p != '\t') out[k++] = *p++;
    }
    out[k] = '\0';
    w->s[w->n++] = out;
  }
  return 0;
}

static int s_num(const char *s, double *v) { return cli_parse_real(s, strlen(s), v); }

static int s_parse_text(const char *line, size_t len, s_cmd *c, char *err, size_t esz) {
  s_words w;
  if (s_split(line, len, &w, err, esz)) return -1;
  int rc = -1, op = -1;
  if (!w.n) {
    rc = 1;
    goto done;
  }
  for (int i = 0; i < S_NOPS; i++)
    if (strcmp(w.s[0], s_names[i]) == 0) op = i;
  if (op < 0) {
    S_SAY("unknown command '%s' (see ensemble edit --help)", w.s[0]);
    goto done;
  }
  c->op = (s_op)op;
  size_t a = 1, na = w.n - 1;
  const char *name = s_names[op];
#define S_USAGE() S_SAY("%s takes %s", name, s_usage[op])
  if (s_has_target(c->op)) {
    if (!na) {
      S_USAGE();
      goto done;
    }
    if (!(c->target = cli_strndup(w.s[1], strlen(w.s[1])))) goto done;
    a = 2;
    na--;
  }
  char **x = w.s + a;
  switch (c->op) {
  case S_SET_VALUE:
  case S_ADD_KEYFRAME:
    /* the value is the rest of the line: JSON may hold blanks */
    if (na < 2 || s_num(x[0], &c->v[0])) {
      S_USAGE();
      goto done;
    }
    if (!(c->value = cli_strndup(w.rest[a + 1], (size_t)(line + len - w.rest[a + 1])))) goto done;
    break;
  case S_SET_EASING:
    if (na == 2 && s_num(x[0], &c->v[0]) == 0 && s_named_easing(x[1], strlen(x[1]), &c->easing) == 0) break;
    if (na == 5 && s_num(x[0], &c->v[0]) == 0 && s_num(x[1], &c->easing.out_x) == 0 &&
        s_num(x[2], &c->easing.out_y) == 0 && s_num(x[3], &c->easing.in_x) == 0 && s_num(x[4], &c->easing.in_y) == 0)
      break;
    S_SAY("set-easing takes PROP FRAME OUT_X OUT_Y IN_X IN_Y, or PROP FRAME and linear, ease, ease-in, ease-out, "
          "ease-in-out or hold");
    goto done;
  case S_MOVE_KEYFRAME:
  case S_SHIFT_RANGE:
  case S_SET_IN_OUT:
    if (na != 2 || s_num(x[0], &c->v[0]) || s_num(x[1], &c->v[1])) {
      S_USAGE();
      goto done;
    }
    break;
  case S_DELETE_KEYFRAME:
  case S_SHIFT_LAYER:
  case S_STRETCH_LAYER:
  case S_REORDER:
    if (na != 1 || s_num(x[0], &c->v[0]) || (c->op == S_REORDER && (c->v[0] < 0 || c->v[0] != floor(c->v[0]) || c->v[0] > 1e9))) {
      S_USAGE();
      goto done;
    }
    break;
  case S_REPARENT:
  case S_RENAME:
    if (na != 1) {
      S_SAY("%s takes %s (quote a name with blanks: \"Shape Layer 1\")", name, s_usage[op]);
      goto done;
    }
    if (!(c->op == S_REPARENT && strcmp(x[0], "none") == 0) && !(c->other = cli_strndup(x[0], strlen(x[0])))) goto done;
    break;
  case S_SET_COLOUR:
    if (na == 1 && s_hex_colour(x[0], strlen(x[0]), c->rgba) == 0) break;
    c->rgba[3] = 1;
    if ((na == 3 || na == 4) && s_num(x[0], &c->rgba[0]) == 0 && s_num(x[1], &c->rgba[1]) == 0 &&
        s_num(x[2], &c->rgba[2]) == 0 && (na == 3 || s_num(x[3], &c->rgba[3]) == 0))
      break;
    S_USAGE();
    goto done;
  case S_DUPLICATE_LAYER:
    if (na) {
      S_USAGE();
      goto done;
    }
    break;
  default: break;
  }
#undef S_USAGE
  rc = 0;
done:
  if (rc < 0 && !err[0]) snprintf(err, esz, "out of memory");
  s_words_free(&w);
  return rc;
}

/* --- the JSON form ------------------------------------------------------------------------ */

static int s_jnum(const cli_json *o, const char *key, double *v, char *err, size_t esz) {
  const cli_json *j = cli_json_get(o, key);
  if (!j || j->type != CLI_J_NUM) return S_BAD("\"%s\" must be a number", key);
  *v = j->num;
  return 0;
}

/* A value member as JSON text: a number, an array of numbers, or a string
 * holding JSON. */
static int s_jvalue(const cli_json *o, char **out, char *err, size_t esz) {
  const cli_json *j = cli_json_get(o, "value");
  if (j && j->type == CLI_J_STR) return (*out = cli_strndup(j->str, strlen(j->str))) ? 0 : S_BAD("out of memory");
  size_t n = j && j->type == CLI_J_ARR ? j->n : 1;
  if (!j || (j->type != CLI_J_NUM && j->type != CLI_J_ARR)) return S_BAD("\"value\" must be a number or an array of numbers");
  char *buf = malloc(n * 32 + 3);
  if (!buf) return S_BAD("out of memory");
  size_t k = 0;
  if (j->type == CLI_J_NUM) k += (size_t)snprintf(buf, 32, "%.17g", j->num);
  else {
    buf[k++] = '[';
    for (size_t i = 0; i < n; i++) {
      if (j->kids[i].type != CLI_J_NUM) {
        free(buf);
        return S_BAD("\"value\" item %zu must be a number", i);
      }
      k += (size_t)snprintf(buf + k, 32, "%s%.17g", i ? "," : "", j->kids[i].num);
    }
    buf[k++] = ']';
  }
  buf[k] = '\0';
  *out = buf;
  return 0;
}

static int s_parse_json(const char *line, size_t len, s_cmd *c, char *err, size_t esz) {
  cli_json o;
  if (cli_json_parse(line, len, &o, err, esz)) return -1;
  int rc = -1, op = -1;
  const cli_json *cmd = cli_json_get(&o, "cmd"), *j;
  if (o.type != CLI_J_OBJ) {
    S_SAY("bad JSON: one object per line");
    goto done;
  }
  for (int i = 0; cmd && cmd->type == CLI_J_STR && i < S_NOPS; i++)
    if (strcmp(cmd->str, s_names[i]) == 0) op = i;
  if (op < 0) {
    S_SAY("\"cmd\" must name a command (set-value, move-keyframe, reparent, ...)");
    goto done;
  }
  c->op = (s_op)op;
  static const char *const target_key[S_NOPS] = {"prop", "prop", "prop", "prop", "prop", "layer", "layer",
                                                 NULL,   "layer", "layer", "layer", "target", "target", "layer"};
  if (target_key[op] && cli_json_get_str(&o, target_key[op], "target", &c->target, err, esz)) goto done;
  switch (c->op) {
  case S_SET_VALUE:
  case S_ADD_KEYFRAME:
    if (s_jnum(&o, "t", &c->v[0], err, esz) || s_jvalue(&o, &c->value, err, esz)) goto done;
    break;
  case S_MOVE_KEYFRAME:
    if (s_jnum(&o, "t", &c->v[0], err, esz) || s_jnum(&o, "to", &c->v[1], err, esz)) goto done;
    break;
  case S_DELETE_KEYFRAME:
    if (s_jnum(&o, "t", &c->v[0], err, esz)) goto done;
    break;
  case S_SET_EASING:
    if (s_jnum(&o, "t", &c->v[0], err, esz)) goto done;
    j = cli_json_get(&o, "easing");
    if (j && j->type == CLI_J_STR && s_named_easing(j->str, strlen(j->str), &c->easing) == 0) break;
    if (j && j->type == CLI_J_ARR && j->n == 4) {
      double *e[4] = {&c->easing.out_x, &c->easing.out_y, &c->easing.in_x, &c->easing.in_y};
      size_t i = 0;
      for (; i < 4 && j->kids[i].type == CLI_J_NUM; i++) *e[i] = j->kids[i].num;
      if (i == 4) break;
    }
    S_SAY("\"easing\" must be [out_x, out_y, in_x, in_y] or linear, ease, ease-in, ease-out, ease-in-out, hold");
    goto done;
  case S_SHIFT_LAYER:
    if (s_jnum(&o, "frames", &c->v[0], err, esz)) goto done;
    break;
  case S_STRETCH_LAYER:
    if (s_jnum(&o, "factor", &c->v[0], err, esz)) goto done;
    break;
  case S_SHIFT_RANGE:
    if (s_jnum(&o, "from", &c->v[0], err, esz) || s_jnum(&o, "frames", &c->v[1], err, esz)) goto done;
    break;
  case S_SET_IN_OUT:
    if (s_jnum(&o, "ip", &c->v[0], err, esz) || s_jnum(&o, "op", &c->v[1], err, esz)) goto done;
    break;
  case S_REPARENT:
    j = cli_json_get(&o, "parent");
    if (j && j->type == CLI_J_NULL) break;
    if (cli_json_get_str(&o, "parent", NULL, &c->other, err, esz)) goto done;
    break;
  case S_REORDER:
    if (s_jnum(&o, "index", &c->v[0], err, esz)) goto done;
    if (c->v[0] < 0 || c->v[0] != floor(c->v[0]) || c->v[0] > 1e9) {
      S_SAY("\"index\" must be a whole number from 0");
      goto done;
    }
    break;
  case S_RENAME:
    if (cli_json_get_str(&o, "name", NULL, &c->other, err, esz)) goto done;
    break;
  case S_SET_COLOUR:
    j = cli_json_get(&o, "colour") ? cli_json_get(&o, "colour") : cli_json_get(&o, "color");
    c->rgba[3] = 1;
    if (j && j->type == CLI_J_STR && s_hex_colour(j->str, strlen(j->str), c->rgba) == 0) break;
    if (j && j->type == CLI_J_ARR && (j->n == 3 || j->n == 4)) {
      size_t i = 0;
      for (; i < j->n && j->kids[i].type == CLI_J_NUM; i++) c->rgba[i] = j->kids[i].num;
      if (i == j->n) break;
    }
    S_SAY("\"colour\" must be [r, g, b] or [r, g, b, a] (0 to 1) or \"#rrggbb\"");
    goto done;
  default: break;
  }
  rc = 0;
done:
  if (rc && !err[0]) snprintf(err, esz, "out of memory");
  cli_json_free(&o);
  return rc;
}

int cli_edit_lottie_line(ens_doc *doc, const char *line, size_t len, ens_txn **txn, char *err, size_t esz) {
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
