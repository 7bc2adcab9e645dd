/* `ensemble edit FILE -o OUT`: applies a script of glyph edits to a font
 * (or of element edits to a drawing, edit_svg.c, or of keyframe and layer
 * edits to an animation, edit_lottie.c), one transaction per
 * command (text lines or JSON lines), and writes the result atomically,
 * or nothing at all when a command fails. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonline.h"

#define S_MAX_SCRIPT ((size_t)256 << 20)
#define S_MAX_TOKENS 4096

static const cli_option s_options[] = {
    {"output", 'o', "OUT", "write the edited file to OUT (a directory for an SFDir), atomically"},
    {"commands", 'c', "FILE", "read the commands from FILE ('-': standard input, the default)"},
    {0}};

static const cli_spec s_spec = {
    "edit", "FILE -o OUT [--commands FILE|-]",
    "Applies edits to a FontForge font, an SVG drawing or a Lottie animation,\n"
    "one transaction\n"
    "(one undo step) per command, and writes the result to OUT. If any\n"
    "command fails, the error names its line and nothing is written (exit\n"
    "status 1). The file's kind is told as info and cat tell it.\n"
    "\n"
    "One command per line; blank lines and lines starting with # are skipped.\n"
    "\n"
    "A font (.sfd, SFDir) takes glyph edits.\n"
    "Contours and points are numbered from 0 in the foreground layer; points\n"
    "are SFD point lines, so the last point of a closed contour repeats the\n"
    "first. Numbers may be negative and real where it makes sense; code\n"
    "points are 65, 0x41, U+0041, or -1 (none).\n"
    "\n"
    "  width GLYPH N                     advance width (glyphs using its metrics follow)\n"
    "  lsb GLYPH N                       left side bearing: shifts outlines, references,\n"
    "                                    anchors and hints, and the width with them\n"
    "  move GLYPH C:P[,C:P...] DX DY     move points with their control points\n"
    "  add-contour GLYPH [open] PT...    a new contour (closed unless 'open'); PT is X,Y\n"
    "                                    (a line to it) or C1X,C1Y,C2X,C2Y,X,Y (a curve)\n"
    "  remove-contour GLYPH C\n"
    "  add-point GLYPH C I X Y           a corner point that becomes point I of contour C\n"
    "  remove-point GLYPH C I\n"
    "  reverse GLYPH C                   reverse a contour's direction\n"
    "  rename GLYPH NEWNAME              references, kerning and lookups follow\n"
    "  unicode GLYPH U\n"
    "  add-glyph NAME [U [WIDTH]]        an empty glyph (U -1 and WIDTH 0 by default)\n"
    "  remove-glyph GLYPH                refused while another glyph references it\n"
    "\n"
    "A line starting with { is one JSON object with the same command in \"cmd\":\n"
    "  {\"cmd\":\"width\",\"glyph\":\"A\",\"value\":600}\n"
    "  {\"cmd\":\"lsb\",\"glyph\":\"A\",\"value\":40}\n"
    "  {\"cmd\":\"move\",\"glyph\":\"A\",\"points\":[[0,3],[0,4]],\"dx\":10,\"dy\":-5}\n"
    "  {\"cmd\":\"add-contour\",\"glyph\":\"A\",\"points\":[[100,0],[200,0],[150,80,160,90,200,100]],\"closed\":true}\n"
    "  {\"cmd\":\"remove-contour\",\"glyph\":\"A\",\"contour\":1}\n"
    "  {\"cmd\":\"add-point\",\"glyph\":\"A\",\"contour\":0,\"index\":2,\"x\":150,\"y\":50}\n"
    "  {\"cmd\":\"remove-point\",\"glyph\":\"A\",\"contour\":0,\"index\":2}\n"
    "  {\"cmd\":\"reverse\",\"glyph\":\"A\",\"contour\":0}\n"
    "  {\"cmd\":\"rename\",\"glyph\":\"A\",\"name\":\"Aalt\"}\n"
    "  {\"cmd\":\"unicode\",\"glyph\":\"A\",\"value\":\"0x41\"}\n"
    "  {\"cmd\":\"add-glyph\",\"name\":\"foo\",\"unicode\":57344,\"width\":500}\n"
    "  {\"cmd\":\"remove-glyph\",\"glyph\":\"foo\"}\n"
    "Glyph names with blanks or a leading # need the JSON form.\n"
    "\n"
    "A drawing (.svg) takes element edits. ELEM is #ID (the first element with\n"
    "that id) or a path of NAME[RANK] steps, RANK counted from 0 among the\n"
    "siblings of that name, from the document (/svg/g[1]/rect[0]) or from an\n"
    "element with an id (#layer1/path[2]). Only what is edited changes in\n"
    "the output; the rest keeps its bytes.\n"
    "\n"
    "  set-attr ELEM NAME VALUE          VALUE is the rest of the line\n"
    "  remove-attr ELEM NAME\n"
    "  set-style ELEM PROP VALUE         one declaration of the style attribute;\n"
    "  remove-style ELEM PROP            the others keep their text and order\n"
    "  translate ELEM DX DY              put before the element's transform, so\n"
    "  rotate ELEM DEG [CX CY]           it moves in its parent's coordinates\n"
    "  scale ELEM SX [SY [CX CY]]\n"
    "  raise ELEM | lower ELEM           exchange with the next / previous element\n"
    "  group [id=ID] ELEM [ELEM...]      siblings into a new <g> where the first was\n"
    "  ungroup ELEM                      the group's transform goes onto its children;\n"
    "                                    refused when the group has opacity, style,\n"
    "                                    class, clip-path, ... or is referenced\n"
    "  duplicate ELEM                    a copy after it: ids made unique, references\n"
    "                                    inside the copy follow\n"
    "  delete ELEM\n"
    "  insert ELEM INDEX MARKUP          the markup's nodes before the INDEX-th child\n"
    "                                    element (-1 or end: after the last one)\n"
    "\n"
    "JSON lines name the same fields: \"elem\", \"name\" (or \"prop\"), \"value\",\n"
    "\"dx\", \"dy\", \"deg\", \"sx\", \"sy\", \"cx\", \"cy\", \"elems\" and \"id\" (group),\n"
    "\"index\" and \"markup\" (insert):\n"
    "  {\"cmd\":\"set-attr\",\"elem\":\"#logo\",\"name\":\"fill\",\"value\":\"#f00\"}\n"
    "  {\"cmd\":\"translate\",\"elem\":\"/svg/g[0]\",\"dx\":10,\"dy\":0}\n"
    "  {\"cmd\":\"group\",\"elems\":[\"#a\",\"#b\"],\"id\":\"pair\"}\n"
    "  {\"cmd\":\"insert\",\"elem\":\"#layer1\",\"index\":0,\"markup\":\"<rect width='5'/>\"}\n"
    "Values with blanks at either end need the JSON form.\n"
    "\n"
    "An animation (.json, .tgs, .lottie) takes keyframe and layer edits. LAYER\n"
    "is its ind (3), its place in the list ([0], drawn on top) or its name,\n"
    "prefixed ASSET: in a precomposition (comp_1:Ball); a shape adds /GROUP\n"
    "steps (Ball/Circle/Fill, or /[N]); PROP adds .MEMBER (Ball.p, Ball.opacity,\n"
    "Ball/Circle/Fill.c; a layer's transform members are found in its ks).\n"
    "Quote names with blanks: \"Shape Layer 1.p\". FRAME is in the property's\n"
    "own time (the composition's less the layer's st). VALUE is JSON: 50 or\n"
    "[80,20] (the rest of the line).\n"
    "\n"
    "  set-value PROP FRAME VALUE        the keyframe at FRAME gets VALUE, or a new\n"
    "                                    one is made; a static property becomes\n"
    "                                    animated from the layer's in point\n"
    "  add-keyframe PROP FRAME VALUE     refused when one is at FRAME\n"
    "  move-keyframe PROP FRAME NEW\n"
    "  delete-keyframe PROP FRAME\n"
    "  set-easing PROP FRAME EASING      towards the next keyframe: OX OY IX IY (the\n"
    "                                    bezier's control points), or linear, ease,\n"
    "                                    ease-in, ease-out, ease-in-out, hold\n"
    "  shift-layer LAYER FRAMES          in, out and start times move together\n"
    "  stretch-layer LAYER FACTOR        keyframes and out point scale from the in point\n"
    "  shift-range FROM FRAMES           everything at or after FROM moves\n"
    "  set-in-out LAYER IN OUT\n"
    "  reparent LAYER PARENT|none\n"
    "  reorder LAYER PLACE               0: the first, drawn on top\n"
    "  rename TARGET NAME                a layer or a shape\n"
    "  set-colour TARGET R G B [A]|#rrggbb  a fill or stroke shape, or a solid layer\n"
    "  duplicate-layer LAYER             a copy above it, the next free ind, \"NAME copy\"\n"
    "\n"
    "JSON lines: \"prop\" or \"layer\" or \"target\", \"t\", \"to\", \"value\", \"easing\",\n"
    "\"frames\", \"factor\", \"from\", \"ip\", \"op\", \"parent\" (null: none), \"index\",\n"
    "\"name\", \"colour\":\n"
    "  {\"cmd\":\"set-value\",\"prop\":\"Ball.p\",\"t\":30,\"value\":[80,20]}\n"
    "  {\"cmd\":\"set-easing\",\"prop\":\"Ball.p\",\"t\":0,\"easing\":[0.42,0,0.58,1]}\n"
    "  {\"cmd\":\"shift-layer\",\"layer\":\"Ball\",\"frames\":10}\n"
    "  {\"cmd\":\"set-colour\",\"target\":\"Ball/Circle/Fill\",\"colour\":[1,0,0,1]}",
    s_options, 1, 1};

/* --- commands ---------------------------------------------------------------------------- */

typedef enum {
  S_WIDTH, S_LSB, S_MOVE, S_ADD_CONTOUR, S_REMOVE_CONTOUR, S_ADD_POINT, S_REMOVE_POINT, S_REVERSE, S_RENAME,
  S_UNICODE, S_ADD_GLYPH, S_REMOVE_GLYPH, S_NOPS
} s_op;

static const char *const s_op_names[S_NOPS] = {"width",       "lsb",          "move",    "add-contour",
                                               "remove-contour", "add-point", "remove-point", "reverse",
                                               "rename",      "unicode",      "add-glyph", "remove-glyph"};

/* One parsed command; strings and arrays are owned (s_cmd_clear). */
typedef struct {
  s_op op;
  char *glyph, *name;
  double x, y;          /* value (width, lsb), dx dy, point position */
  int64_t i, j;         /* contour, index; unicode; width of add-glyph */
  int has_u;
  ens_glyph_pt *pts;
  ens_glyph_node *nodes;
  size_t n;
  int closed;
} s_cmd;

static void s_cmd_clear(s_cmd *c) {
  free(c->glyph);
  free(c->name);
  free(c->pts);
  free(c->nodes);
  memset(c, 0, sizeof *c);
}

/* Builds the command's transaction (the caller owns it). */
static int s_build(ens_doc *doc, const s_cmd *c, ens_txn **t) {
  switch (c->op) {
  case S_WIDTH: return ens_glyph_set_width(doc, c->glyph, (int)c->i, t);
  case S_LSB: return ens_glyph_set_lsb(doc, c->glyph, c->x, t);
  case S_MOVE: return ens_glyph_move_points(doc, c->glyph, c->pts, c->n, c->x, c->y, t);
  case S_ADD_CONTOUR: return ens_glyph_add_contour(doc, c->glyph, c->nodes, c->n, c->closed, t);
  case S_REMOVE_CONTOUR: return ens_glyph_remove_contour(doc, c->glyph, (size_t)c->i, t);
  case S_ADD_POINT: return ens_glyph_add_point(doc, c->glyph, (size_t)c->i, (size_t)c->j, c->x, c->y, t);
  case S_REMOVE_POINT: return ens_glyph_remove_point(doc, c->glyph, (size_t)c->i, (size_t)c->j, t);
  case S_REVERSE: return ens_glyph_reverse_contour(doc, c->glyph, (size_t)c->i, t);
  case S_RENAME: return ens_glyph_rename(doc, c->glyph, c->name, t);
  case S_UNICODE: return ens_glyph_set_unicode(doc, c->glyph, c->i, t);
  case S_ADD_GLYPH: return ens_glyph_add(doc, c->name, c->has_u ? c->i : -1, (int)c->j, t);
  case S_REMOVE_GLYPH: return ens_glyph_remove(doc, c->glyph, t);
  default: break;
  }
  return ENS_EINVAL;
}

/* --- numbers -------------------------------------------------------------------------------- */

/* The whole of s as an integer within [lo, hi]. */
static int s_int(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *out) {
  char b[32];
  if (n == 0 || n >= sizeof b) return -1;
  memcpy(b, s, n);
  b[n] = '\0';
  char *end;
  errno = 0;
  long long v = strtoll(b, &end, 10);
  if (*end || errno || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

/* A code point: 65, 0x41, U+0041, -1 or "none". */
static int s_unicode(const char *s, size_t n, int64_t *out) {
  if ((n == 4 && memcmp(s, "none", 4) == 0) || (n == 2 && memcmp(s, "-1", 2) == 0)) {
    *out = -1;
    return 0;
  }
  char b[32];
  if (n == 0 || n >= sizeof b) return -1;
  memcpy(b, s, n);
  b[n] = '\0';
  const char *p = b;
  int base = 10;
  if ((p[0] == 'U' || p[0] == 'u') && p[1] == '+') p += 2, base = 16;
  else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2, base = 16;
  if (!*p || *p == '-' || *p == '+') return -1;
  char *end;
  errno = 0;
  long long v = strtoll(p, &end, base);
  if (*end || errno || v < 0 || v > 0x10FFFF) return -1;
  *out = v;
  return 0;
}

/* "C:P[,C:P...]" */
static int s_point_list(const char *s, size_t n, s_cmd *c, char *err, size_t esz) {
  size_t count = 1;
  for (size_t i = 0; i < n; i++) count += s[i] == ',';
  c->pts = calloc(count, sizeof *c->pts);
  if (!c->pts) return snprintf(err, esz, "out of memory"), -1;
  const char *p = s, *e = s + n;
  c->n = 0;
  while (p <= e) {
    const char *comma = memchr(p, ',', (size_t)(e - p));
    const char *te = comma ? comma : e;
    const char *colon = memchr(p, ':', (size_t)(te - p));
    int64_t ci, pi;
    if (!colon || s_int(p, (size_t)(colon - p), 0, INT32_MAX, &ci) ||
        s_int(colon + 1, (size_t)(te - colon - 1), 0, INT32_MAX, &pi)) {
      snprintf(err, esz, "'%.*s' is not a point: write CONTOUR:POINT, e.g. 0:3", (int)(te - p), p);
      return -1;
    }
    c->pts[c->n].contour = (size_t)ci;
    c->pts[c->n].point = (size_t)pi;
    c->n++;
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}

/* One node of a new contour from 2 numbers (a line to X,Y) or 6 (a curve
 * C1X,C1Y,C2X,C2Y,X,Y). */
static int s_node(const double *v, size_t k, ens_glyph_node *nd) {
  memset(nd, 0, sizeof *nd);
  if (k == 2) {
    nd->x = v[0], nd->y = v[1];
    return 0;
  }
  if (k != 6) return -1;
  nd->curve = 1;
  nd->c1x = v[0], nd->c1y = v[1], nd->c2x = v[2], nd->c2y = v[3], nd->x = v[4], nd->y = v[5];
  return 0;
}

/* --- the text form ----------------------------------------------------------------------------- */

typedef struct {
  const char *s;
  size_t n;
} s_tok;

static int s_arity(s_op op, size_t got, size_t lo, size_t hi, char *err, size_t esz) {
  if (got >= lo && got <= hi) return 0;
  snprintf(err, esz, "%s takes %zu%s argument%s, not %zu (see ensemble edit --help)", s_op_names[op], lo,
           hi == lo ? "" : hi > 100 ? " or more" : " to 3", lo == 1 && hi == 1 ? "" : "s", got);
  return -1;
}

#define S_BAD(...) (snprintf(err, esz, __VA_ARGS__), -1)

static int s_parse_text(const char *line, size_t len, s_cmd *c, char *err, size_t esz) {
  static s_tok tok[S_MAX_TOKENS];
  size_t nt = 0;
  const char *p = line, *e = line + len;
  while (p < e) {
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    if (p >= e || *p == '#') break; /* a comment to the end of the line */
    const char *t = p;
    while (p < e && *p != ' ' && *p != '\t') p++;
    if (nt == S_MAX_TOKENS) return S_BAD("more than %d words on one line", S_MAX_TOKENS);
    tok[nt].s = t;
    tok[nt++].n = (size_t)(p - t);
  }
  if (!nt) return 1; /* nothing */
  int op = -1;
  for (int i = 0; i < S_NOPS; i++)
    if (strlen(s_op_names[i]) == tok[0].n && memcmp(s_op_names[i], tok[0].s, tok[0].n) == 0) op = i;
  if (op < 0) return S_BAD("unknown command '%.*s' (see ensemble edit --help)", (int)tok[0].n, tok[0].s);
  c->op = (s_op)op;
  size_t na = nt - 1;
  s_tok *a = tok + 1;
  int64_t iv;
  switch (c->op) {
  case S_WIDTH:
    if (s_arity(c->op, na, 2, 2, err, esz)) return -1;
    if (s_int(a[1].s, a[1].n, INT32_MIN, INT32_MAX, &c->i))
      return S_BAD("width '%.*s' is not a whole number", (int)a[1].n, a[1].s);
    break;
  case S_LSB:
    if (s_arity(c->op, na, 2, 2, err, esz)) return -1;
    if (cli_parse_real(a[1].s, a[1].n, &c->x)) return S_BAD("'%.*s' is not a number", (int)a[1].n, a[1].s);
    break;
  case S_MOVE:
    if (s_arity(c->op, na, 4, 4, err, esz)) return -1;
    if (s_point_list(a[1].s, a[1].n, c, err, esz)) return -1;
    if (cli_parse_real(a[2].s, a[2].n, &c->x) || cli_parse_real(a[3].s, a[3].n, &c->y)) return S_BAD("DX and DY must be numbers");
    break;
  case S_ADD_CONTOUR: {
    size_t first = 1;
    c->closed = 1;
    if (na >= 2 && a[1].n == 4 && memcmp(a[1].s, "open", 4) == 0) c->closed = 0, first = 2;
    if (na < first + 1) return S_BAD("add-contour needs a glyph and at least one point X,Y");
    c->n = na - first;
    c->nodes = calloc(c->n, sizeof *c->nodes);
    if (!c->nodes) return S_BAD("out of memory");
    for (size_t k = 0; k < c->n; k++) {
      const s_tok *t = &a[first + k];
      double v[6];
      size_t nv = 0;
      const char *q = t->s, *qe = t->s + t->n;
      while (q <= qe && nv < 7) {
        const char *comma = memchr(q, ',', (size_t)(qe - q));
        const char *ve = comma ? comma : qe;
        if (nv == 6 || cli_parse_real(q, (size_t)(ve - q), &v[nv])) {
          nv = 7;
          break;
        }
        nv++;
        if (!comma) break;
        q = comma + 1;
      }
      if (s_node(v, nv, &c->nodes[k]))
        return S_BAD("'%.*s' is not a point: write X,Y or C1X,C1Y,C2X,C2Y,X,Y", (int)t->n, t->s);
    }
    break;
  }
  case S_REMOVE_CONTOUR:
  case S_REVERSE:
    if (s_arity(c->op, na, 2, 2, err, esz)) return -1;
    if (s_int(a[1].s, a[1].n, 0, INT32_MAX, &c->i)) return S_BAD("contour '%.*s' is not an index", (int)a[1].n, a[1].s);
    break;
  case S_ADD_POINT:
  case S_REMOVE_POINT:
    if (s_arity(c->op, na, c->op == S_ADD_POINT ? 5 : 3, c->op == S_ADD_POINT ? 5 : 3, err, esz)) return -1;
    if (s_int(a[1].s, a[1].n, 0, INT32_MAX, &c->i) || s_int(a[2].s, a[2].n, 0, INT32_MAX, &c->j))
      return S_BAD("contour and point must be indices (0, 1, ...)");
    if (c->op == S_ADD_POINT && (cli_parse_real(a[3].s, a[3].n, &c->x) || cli_parse_real(a[4].s, a[4].n, &c->y)))
      return S_BAD("X and Y must be numbers");
    break;
  case S_RENAME:
    if (s_arity(c->op, na, 2, 2, err, esz)) return -1;
    if (!(c->name = cli_strndup(a[1].s, a[1].n))) return S_BAD("out of memory");
    break;
  case S_UNICODE:
    if (s_arity(c->op, na, 2, 2, err, esz)) return -1;
    if (s_unicode(a[1].s, a[1].n, &c->i)) return S_BAD("'%.*s' is not a code point", (int)a[1].n, a[1].s);
    break;
  case S_ADD_GLYPH:
    if (na < 1 || na > 3) return S_BAD("add-glyph takes NAME [UNICODE [WIDTH]]");
    if (!(c->name = cli_strndup(a[0].s, a[0].n))) return S_BAD("out of memory");
    c->i = -1;
    c->has_u = 1;
    if (na >= 2 && s_unicode(a[1].s, a[1].n, &c->i)) return S_BAD("'%.*s' is not a code point", (int)a[1].n, a[1].s);
    if (na >= 3 && s_int(a[2].s, a[2].n, INT32_MIN, INT32_MAX, &iv))
      return S_BAD("width '%.*s' is not a whole number", (int)a[2].n, a[2].s);
    c->j = na >= 3 ? iv : 0;
    return 0;
  case S_REMOVE_GLYPH:
    if (s_arity(c->op, na, 1, 1, err, esz)) return -1;
    break;
  default:
    break;
  }
  if (!(c->glyph = cli_strndup(a[0].s, a[0].n))) return S_BAD("out of memory");
  return 0;
}

/* --- the JSON form: one flat object per line (jsonline.h) ------------------------------------------ */

static int s_jnum(const cli_json *o, const char *key, double *v, char *err, size_t esz) {
  const cli_json *j = cli_json_get(o, key);
  if (!j || j->type != CLI_J_NUM) return S_BAD("\"%s\" must be a number", key);
  *v = j->num;
  return 0;
}

static int s_jint(const cli_json *o, const char *key, int64_t lo, int64_t hi, int64_t *v, char *err, size_t esz) {
  double d;
  if (s_jnum(o, key, &d, err, esz)) return -1;
  if (d != floor(d) || d < (double)lo || d > (double)hi)
    return S_BAD("\"%s\" must be a whole number in %lld..%lld", key, (long long)lo, (long long)hi);
  *v = (int64_t)d;
  return 0;
}

static int s_juni(const cli_json *o, const char *key, int64_t *v, char *err, size_t esz) {
  const cli_json *j = cli_json_get(o, key);
  if (j && j->type == CLI_J_STR && s_unicode(j->str, strlen(j->str), v) == 0) return 0;
  if (j && j->type == CLI_J_NULL) return *v = -1, 0;
  if (j && j->type == CLI_J_NUM && j->num == floor(j->num) && j->num >= -1 && j->num <= 0x10FFFF)
    return *v = (int64_t)j->num, 0;
  return S_BAD("\"%s\" must be a code point (65, \"0x41\", \"U+0041\", -1)", key);
}

/* An array of numbers into v (at most max). */
static int s_jnums(const cli_json *a, double *v, size_t max, size_t *n) {
  if (a->type != CLI_J_ARR || a->n > max) return -1;
  for (size_t i = 0; i < a->n; i++) {
    if (a->kids[i].type != CLI_J_NUM) return -1;
    v[i] = a->kids[i].num;
  }
  *n = a->n;
  return 0;
}

static int s_parse_json(const char *line, size_t len, s_cmd *c, char *err, size_t esz) {
  cli_json o;
  int rc = -1;
  if (cli_json_parse(line, len, &o, err, esz)) return -1;
  if (o.type != CLI_J_OBJ) {
    snprintf(err, esz, "bad JSON: one object per line, nothing after it");
    goto done;
  }
  const cli_json *cmd = cli_json_get(&o, "cmd");
  int op = -1;
  for (int i = 0; cmd && cmd->type == CLI_J_STR && i < S_NOPS; i++)
    if (strcmp(cmd->str, s_op_names[i]) == 0) op = i;
  if (op < 0) {
    snprintf(err, esz, "\"cmd\" must name a command (width, lsb, move, add-contour, ...)");
    goto done;
  }
  c->op = (s_op)op;
  if (c->op != S_ADD_GLYPH && cli_json_get_str(&o, "glyph", NULL, &c->glyph, err, esz)) goto done;
  switch (c->op) {
  case S_WIDTH:
    if (s_jint(&o, "value", INT32_MIN, INT32_MAX, &c->i, err, esz)) goto done;
    break;
  case S_LSB:
    if (s_jnum(&o, "value", &c->x, err, esz)) goto done;
    break;
  case S_MOVE: {
    const cli_json *pts = cli_json_get(&o, "points");
    if (pts && pts->type == CLI_J_STR) {
      if (s_point_list(pts->str, strlen(pts->str), c, err, esz)) goto done;
    } else if (pts && pts->type == CLI_J_ARR) {
      c->pts = calloc(pts->n ? pts->n : 1, sizeof *c->pts);
      if (!c->pts) goto done;
      for (size_t i = 0; i < pts->n; i++) {
        double v[2];
        size_t n;
        if (s_jnums(&pts->kids[i], v, 2, &n) || n != 2 || v[0] < 0 || v[1] < 0 || v[0] != floor(v[0]) ||
            v[1] != floor(v[1]) || v[0] > INT32_MAX || v[1] > INT32_MAX) {
          snprintf(err, esz, "\"points\" item %zu must be [contour, point]", i);
          goto done;
        }
        c->pts[i].contour = (size_t)v[0];
        c->pts[i].point = (size_t)v[1];
      }
      c->n = pts->n;
    } else {
      snprintf(err, esz, "\"points\" must be [[contour, point], ...] or \"C:P,C:P\"");
      goto done;
    }
    if (s_jnum(&o, "dx", &c->x, err, esz) || s_jnum(&o, "dy", &c->y, err, esz)) goto done;
    break;
  }
  case S_ADD_CONTOUR: {
    const cli_json *pts = cli_json_get(&o, "points"), *cl = cli_json_get(&o, "closed");
    c->closed = !cl || (cl->type == CLI_J_BOOL && cl->b);
    if (cl && cl->type != CLI_J_BOOL) {
      snprintf(err, esz, "\"closed\" must be true or false");
      goto done;
    }
    if (!pts || pts->type != CLI_J_ARR || !pts->n) {
      snprintf(err, esz, "\"points\" must be a list of [x, y] or [c1x, c1y, c2x, c2y, x, y]");
      goto done;
    }
    c->nodes = calloc(pts->n, sizeof *c->nodes);
    if (!c->nodes) goto done;
    for (size_t i = 0; i < pts->n; i++) {
      double v[6];
      size_t n;
      if (s_jnums(&pts->kids[i], v, 6, &n) || s_node(v, n, &c->nodes[i])) {
        snprintf(err, esz, "\"points\" item %zu must be [x, y] or [c1x, c1y, c2x, c2y, x, y]", i);
        goto done;
      }
    }
    c->n = pts->n;
    break;
  }
  case S_REMOVE_CONTOUR:
  case S_REVERSE:
    if (s_jint(&o, "contour", 0, INT32_MAX, &c->i, err, esz)) goto done;
    break;
  case S_ADD_POINT:
  case S_REMOVE_POINT:
    if (s_jint(&o, "contour", 0, INT32_MAX, &c->i, err, esz) || s_jint(&o, "index", 0, INT32_MAX, &c->j, err, esz))
      goto done;
    if (c->op == S_ADD_POINT && (s_jnum(&o, "x", &c->x, err, esz) || s_jnum(&o, "y", &c->y, err, esz))) goto done;
    break;
  case S_RENAME:
    if (cli_json_get_str(&o, "name", "to", &c->name, err, esz)) goto done;
    break;
  case S_UNICODE:
    if (s_juni(&o, "value", &c->i, err, esz)) goto done;
    break;
  case S_ADD_GLYPH:
    if (cli_json_get_str(&o, "name", "glyph", &c->name, err, esz)) goto done;
    c->has_u = 1;
    c->i = -1;
    if (cli_json_get(&o, "unicode") && s_juni(&o, "unicode", &c->i, err, esz)) goto done;
    if (cli_json_get(&o, "width") && s_jint(&o, "width", INT32_MIN, INT32_MAX, &c->j, err, esz)) goto done;
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

/* --- running a script ---------------------------------------------------------------------------------- */

static char *s_read_stdin(size_t *len, char *err, size_t esz) {
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  if (!buf) return snprintf(err, esz, "out of memory"), NULL;
  for (;;) {
    if (n == cap) {
      if (cap >= S_MAX_SCRIPT) {
        free(buf);
        return snprintf(err, esz, "the commands exceed %zu bytes", S_MAX_SCRIPT), NULL;
      }
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        free(buf);
        return snprintf(err, esz, "out of memory"), NULL;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, stdin);
    n += got;
    if (got == 0) break;
  }
  if (ferror(stdin)) {
    free(buf);
    return snprintf(err, esz, "cannot read standard input: %s", strerror(errno)), NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* One line of a font's script: 0 with its transaction, 1 for nothing,
 * -1 with the reason (the shape of cli_edit_svg_line). */
static int s_sfd_line(ens_doc *doc, const char *s, size_t n, ens_txn **txn, char *why, size_t wsz) {
  s_cmd c;
  memset(&c, 0, sizeof c);
  *txn = NULL;
  int rc = *s == '{' ? s_parse_json(s, n, &c, why, wsz) : s_parse_text(s, n, &c, why, wsz);
  if (rc == 0) {
    int erc = s_build(doc, &c, txn);
    if (erc) {
      snprintf(why, wsz, "%s: %s (%s)", s_op_names[c.op], ens_error_last(), ens_error_name(erc));
      rc = -1;
    }
  }
  s_cmd_clear(&c);
  return rc;
}

typedef int (*s_line_fn)(ens_doc *doc, const char *s, size_t n, ens_txn **txn, char *why, size_t wsz);

/* Applies every command of the script to doc; on failure err holds
 * "WHERE:LINE: message". */
static int s_run(ens_doc *doc, s_line_fn fn, const char *where, const char *text, size_t len, size_t *count, char *err,
                 size_t esz) {
  const char *p = text, *e = text + len;
  size_t line = 0;
  *count = 0;
  while (p < e) {
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    const char *le = nl ? nl : e;
    line++;
    const char *s = p;
    while (s < le && (*s == ' ' || *s == '\t')) s++;
    const char *t = le;
    while (t > s && (t[-1] == '\r' || t[-1] == ' ' || t[-1] == '\t')) t--;
    p = nl ? nl + 1 : e;
    if (s == t || *s == '#') continue;
    char why[1024] = "";
    ens_txn *txn = NULL;
    int rc = fn(doc, s, (size_t)(t - s), &txn, why, sizeof why);
    if (rc == 1) continue;
    if (rc == 0) {
      int erc = ens_doc_apply(doc, txn, ENS_ORIGIN_LOCAL, NULL);
      if (erc) {
        snprintf(why, sizeof why, "%s (%s)", ens_error_last(), ens_error_name(erc));
        rc = -1;
      }
    }
    ens_txn_free(txn);
    if (rc) {
      snprintf(err, esz, "%s:%zu: %s", where, line, why);
      return -1;
    }
    (*count)++;
  }
  return 0;
}

int cli_cmd_edit(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *path = args.args[0], *out = cli_opt(&s_spec, &args, "output");
  const char *cmds = cli_opt(&s_spec, &args, "commands");
  if (!out) return cli_usage_error(&s_spec, "-o OUT is required: edit never writes over its input by itself");
  if (!cmds) cmds = "-";
  char err[1024] = "";
  char *script = NULL;
  size_t len = 0;
  if (strcmp(cmds, "-") == 0) script = s_read_stdin(&len, err, sizeof err);
  else if (cli_read_file(cmds, S_MAX_SCRIPT, &script, &len, err, sizeof err) != 0) script = NULL;
  if (!script) return cli_fail(s_spec.name, "%s", err);
  ens_doc *doc = NULL;
  size_t count = 0;
  cli_file_kind kind = cli_kind_of(path);
  s_line_fn line_fn = kind == CLI_KIND_SVG ? cli_edit_svg_line : kind == CLI_KIND_LOTTIE ? cli_edit_lottie_line : s_sfd_line;
  int read_rc = kind == CLI_KIND_SVG ? ens_svg_read_path(path, &doc)
                : kind == CLI_KIND_LOTTIE ? ens_lottie_read_path(path, &doc)
                                          : ens_sfd_read_path(path, &doc);
  if (read_rc != 0) {
    /* the SFD reader does not name the file; the others do */
    rc = cli_fail(s_spec.name, "%s%s%s", kind == CLI_KIND_SFD ? path : "", kind == CLI_KIND_SFD ? ": " : "",
                  ens_error_last());
  } else if (s_run(doc, line_fn, strcmp(cmds, "-") == 0 ? "<stdin>" : cmds, script, len, &count, err, sizeof err) != 0) {
    rc = cli_fail(s_spec.name, "%s (nothing written)", err);
  } else if ((kind == CLI_KIND_SVG      ? ens_svg_write_path(doc, out)
              : kind == CLI_KIND_LOTTIE ? ens_lottie_write_path(doc, out)
                                        : ens_sfd_write_path(doc, out)) != 0) {
    rc = cli_fail(s_spec.name, "%s: %s", out, ens_error_last());
  } else {
    rc = CLI_OK;
  }
  ens_doc_free(doc);
  free(script);
  return rc;
}
