/* Writes the seed corpus of fuzz_format_edit, and the scripts of
 * fuzz_session_server that start from the font or the drawing of
 * fuzzlib.h: changes the formats' rules refuse (each that once corrupted
 * every file of a session) and changes they accept, against the objects
 * of those fixtures. Deterministic; not part of the build:
 *
 *   cc -std=gnu11 -Iinclude -Isrc/lib -Itests/fuzz tests/fuzz/make_rules_seeds.c build/libensemble.a -lm \
 *      $(pkg-config --libs libzmq sqlite3 libxml-2.0 librsvg-2.0 cairo) -lpthread -o /tmp/make_rules_seeds
 *   /tmp/make_rules_seeds tests/fuzz/corpus/fuzz_format_edit tests/fuzz/corpus/fuzz_session_server
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ensemble.h"
#include "fuzzlib.h"
#include "sync/msg.h"

static ens_doc *s_doc;
static ens_buf s_out = ENS_BUF_INIT;
static uint64_t s_next = 100;

static void s_die(const char *what) {
  fprintf(stderr, "make_rules_seeds: %s: %s\n", what, ens_error_last());
  exit(1);
}

static void s_save(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(s_out.data, 1, s_out.len, f) != s_out.len || fclose(f)) {
    perror(path);
    exit(1);
  }
  printf("%6zu  %s\n", s_out.len, path);
  s_out.len = 0;
}

/* --- finding the fixtures' objects ------------------------------------------------- */

static const ens_obj *s_find_in(const ens_obj *o, const char *kind, const char *key, const char *value, int *nth) {
  ens_value v;
  if (ens_obj_parent(o) && strcmp(ens_obj_kind(o), kind) == 0 &&
      (!key || (ens_obj_get(o, key, &v) == 0 && v.type == ENS_STR && v.u.s.len == strlen(value) &&
                memcmp(v.u.s.ptr, value, v.u.s.len) == 0)) &&
      (*nth)-- == 0)
    return o;
  for (size_t i = 0; i < ens_obj_child_count(o); i++) {
    const ens_obj *f = s_find_in(ens_obj_child(o, i), kind, key, value, nth);
    if (f) return f;
  }
  return NULL;
}

/* The nth object of kind (with key = value, when key is set). */
static ens_id s_id(const char *kind, const char *key, const char *value, int nth) {
  const ens_obj *o = s_find_in(ens_doc_root(s_doc), kind, key, value, &nth);
  if (!o) s_die(kind);
  return ens_obj_id(o);
}

static ens_id s_glyph(const char *name) { return s_id(ENS_SFD_GLYPH, "name", name, 0); }

/* --- transactions --------------------------------------------------------------------- */

static ens_value s_bytes(const char *s) { return ens_bytes(s, strlen(s)); }

static ens_txn *s_t(void) {
  ens_txn *t = ens_txn_new("seed", NULL);
  if (!t) s_die("txn");
  return t;
}

static ens_txn *s_set(ens_id id, const char *key, ens_value v) {
  ens_txn *t = s_t();
  if (ens_txn_set(t, id, key, v)) s_die("set");
  return t;
}

static ens_node *s_ins(ens_txn *t, ens_id parent, const char *pos, const char *kind) {
  ens_node *n = ens_txn_insert(t, parent, pos, ens_id_make(1, ++s_next), kind);
  if (!n) s_die("insert");
  return n;
}

/* A record of fuzz_format_edit: 2-byte length, the transaction. */
static void s_rec(ens_txn *t) {
  unsigned char *b;
  size_t n;
  if (ens_txn_encode(t, &b, &n) || n > 0xffff) s_die("encode");
  ens__buf_putc(&s_out, (unsigned char)(n >> 8));
  ens__buf_putc(&s_out, (unsigned char)n);
  ens__buf_append(&s_out, b, n);
  ens_free(b);
}

typedef struct {
  const char *name;
  ens_txn *t[4];
} s_seed;

static void s_font_seeds(s_seed *v, size_t *n) {
  ens_id a = s_glyph("A"), b = s_glyph("B"), c = s_glyph("C");
  ens_id fore = s_id(ENS_SFD_LAYER, NULL, NULL, 0), contour = s_id(ENS_SFD_CONTOUR, NULL, NULL, 0);
  ens_id p0 = s_id(ENS_SFD_POINT, NULL, NULL, 0), p1 = s_id(ENS_SFD_POINT, NULL, NULL, 1);
  ens_id ref = s_id(ENS_SFD_REF, NULL, NULL, 0), anchor = s_id(ENS_SFD_ANCHOR, NULL, NULL, 0);
  ens_id kern = s_id(ENS_SFD_KERN, NULL, NULL, 0);
  size_t k = 0;
  /* the changes that corrupted every file of a session */
  v[k++] = (s_seed){"sfd-line-break-in-flags", {s_set(a, "flags", ens_str("HW\nEndChar\nStartChar: injected"))}};
  {
    ens_txn *t = s_t();
    s_ins(t, a, "0", "widget");
    v[k++] = (s_seed){"sfd-kind-the-writer-refuses", {t}};
  }
  v[k++] = (s_seed){"sfd-string-for-width", {s_set(b, "width", ens_str("751"))}};
  /* what is faithful */
  v[k++] = (s_seed){"sfd-width", {s_set(b, "width", ens_int(751)), s_set(a, "flags", ens_str("HW"))}};
  v[k++] = (s_seed){"sfd-point-moves", {s_set(p1, "x", ens_real(301.5)), s_set(p1, "y", ens_real(-7))}};
  {
    ens_txn *t = s_t();
    static const char *const ck[4] = {"c1x", "c1y", "c2x", "c2y"};
    for (int i = 0; i < 4; i++) ens_txn_set(t, p1, ck[i], ens_real(i * 10.5));
    v[k++] = (s_seed){"sfd-line-to-curve", {t, s_set(p0, "c1x", ens_real(1))}};
  }
  {
    ens_txn *t = s_t();
    ens_txn_delete(t, p0);
    v[k++] = (s_seed){"sfd-delete-first-point", {t}};
  }
  {
    ens_txn *t = s_t();
    ens_node *g = s_ins(t, ENS_ROOT_ID, "zz", ENS_SFD_GLYPH);
    ens_node_set(g, "name", ens_str("E"));
    ens_node_set(g, "encoding", ens_int(69));
    ens_node_set(g, "unicode", ens_int(69));
    ens_node_set(g, "gid", ens_int(4));
    ens_node_set(g, "width", ens_int(300));
    ens_node *l = ens_node_add_child(g, "V", ens_id_make(1, ++s_next), ENS_SFD_LAYER);
    ens_node_set(l, "index", ens_int(1));
    ens_node *ct = ens_node_add_child(l, "V", ens_id_make(1, ++s_next), ENS_SFD_CONTOUR);
    const double xy[3][2] = {{0, 0}, {100, 0}, {0, 0}};
    const char *pos[3] = {"G", "V", "k"};
    for (int i = 0; i < 3; i++) {
      ens_node *p = ens_node_add_child(ct, pos[i], ens_id_make(1, ++s_next), ENS_SFD_POINT);
      ens_node_set(p, "x", ens_real(xy[i][0]));
      ens_node_set(p, "y", ens_real(xy[i][1]));
      ens_node_set(p, "type", ens_int(1));
      ens_node_set(p, "flags", ens_int(0));
    }
    v[k++] = (s_seed){"sfd-new-glyph", {t}};
  }
  {
    ens_txn *t = s_t();
    ens_txn_delete(t, b);
    v[k++] = (s_seed){"sfd-delete-referenced-glyph", {t}};
  }
  v[k++] = (s_seed){"sfd-kept-head",
                    {s_set(c, "~head", s_bytes("\nStartChar: C\nEncoding: 67 67 2\nWidth: 400\n")),
                     s_set(c, "~head", s_bytes("StartChar: C\nEndChar\nStartChar: X\n"))}};
  v[k++] = (s_seed){"sfd-kept-layer-tail",
                    {s_set(fore, "~tail", s_bytes("EndSplineSet\nValidated: 1\n")),
                     s_set(fore, "~tail", s_bytes("EndSplineSet\nKerns2: 0 5 \"k\"\n"))}};
  v[k++] = (s_seed){"sfd-references",
                    {s_set(ref, "glyph", ens_ref(c)), s_set(ref, "dx", ens_real(12.25)),
                     s_set(ref, "glyph", ens_ref(contour))}};
  v[k++] = (s_seed){"sfd-anchor-kern",
                    {s_set(anchor, "type", ens_str("mark")), s_set(anchor, "class", ens_str("top\xc3\xa9")),
                     s_set(kern, "offset", ens_int(-45)), s_set(kern, "device", ens_str("{1-2 3,4}"))}};
  v[k++] = (s_seed){"sfd-numbers",
                    {s_set(c, "gid", ens_int(0)), s_set(a, "encoding", ens_nil()), s_set(c, "name", ens_str("A"))}};
  v[k++] = (s_seed){"sfd-font-header",
                    {s_set(ENS_ROOT_ID, "FontName", ens_str("Fuzz Bold")), s_set(ENS_ROOT_ID, "Ascent", ens_int(810)),
                     s_set(ENS_ROOT_ID, "ItalicAngle", ens_real(-11))}};
  v[k++] = (s_seed){"sfd-extra-after-flags",
                    {s_set(p1, "extra", ens_str("x80")), s_set(s_id(ENS_SFD_POINT, NULL, NULL, 2), "extra", ens_str(" 5"))}};
  *n = k;
}

static void s_drawing_seeds(s_seed *v, size_t *n) {
  ens_id rect = s_id("rect", NULL, NULL, 0), g = s_id("g", NULL, NULL, 0), svg = s_id("svg", NULL, NULL, 0);
  ens_id decl = s_id(ENS_SVG_XMLDECL, NULL, NULL, 0), dt = s_id(ENS_SVG_DOCTYPE, NULL, NULL, 0);
  ens_id comment = s_id(ENS_SVG_COMMENT, NULL, NULL, 0), cdata = s_id(ENS_SVG_CDATA, NULL, NULL, 0);
  ens_id pi = s_id(ENS_SVG_PI, NULL, NULL, 0), text = s_id("text", NULL, NULL, 0);
  size_t k = 0;
  v[k++] = (s_seed){"svg-attribute-name-with-a-blank",
                    {s_set(rect, "fill opacity", ens_str("0.5")), s_set(rect, "x\"", ens_str("1"))}};
  {
    ens_txn *t = s_t();
    ens_node *x = s_ins(t, ENS_ROOT_ID, "1", ENS_SVG_TEXT);
    ens_node_set(x, "text", ens_str("hello "));
    v[k++] = (s_seed){"svg-text-before-the-root", {t}};
  }
  v[k++] = (s_seed){"svg-question-mark-in-the-declaration",
                    {s_set(decl, "encoding", ens_str("UTF-8\"?><evil/><?x \"")), s_set(decl, "version", ens_str("1.0\"?>"))}};
  v[k++] = (s_seed){"svg-attributes",
                    {s_set(rect, "fill", ens_str("#0f0")), s_set(rect, "y", ens_nil()),
                     s_set(rect, "data-x", ens_str("\"<&>\t\n")), s_set(rect, "x", ens_int(3))}};
  {
    ens_txn *t = s_t();
    ens_node *c = s_ins(t, g, "zz", "circle");
    ens_node_set(c, "r", ens_str("5"));
    ens_node *x = ens_node_add_child(c, "V", ens_id_make(1, ++s_next), ENS_SVG_TEXT);
    ens_node_set(x, "text", ens_str("inside"));
    ens_txn *u = s_t();
    ens_txn_move(u, rect, ENS_ROOT_ID, "zz");
    ens_txn *d = s_t();
    ens_txn_delete(d, svg);
    v[k++] = (s_seed){"svg-tree", {t, u, d}};
  }
  v[k++] = (s_seed){"svg-nodes",
                    {s_set(comment, "text", ens_str(" a -- b ")), s_set(cdata, "text", ens_str("x]]>y")),
                     s_set(pi, "data", ens_str("a?>b")), s_set(pi, "target", ens_str("xml"))}};
  v[k++] = (s_seed){"svg-doctype",
                    {s_set(dt, "&red", ens_str("#0f0")), s_set(dt, "~src", ens_str("<!DOCTYPE svg [<!ENTITY red \"#0f0\">]>")),
                     s_set(dt, "&red", ens_str("#0f0"))}};
  {
    ens_txn *t = s_t();
    ens_node *e = s_ins(t, text, "zz", ENS_SVG_ENTITY);
    ens_node_set(e, "name", ens_str("blue"));
    v[k++] = (s_seed){"svg-entity", {t, s_set(s_id(ENS_SVG_ENTITY, NULL, NULL, 0), "name", ens_str("red"))}};
  }
  v[k++] = (s_seed){"svg-kept-tags",
                    {s_set(rect, "~src", ens_str("<rect id=\"r\" x=\"1\"/><script/>")),
                     s_set(svg, "~end", ens_str("</svg >"))}};
  *n = k;
}

/* --- session scripts ---------------------------------------------------------------------- */

static void s_msg(int peer, const ens__msg *m) {
  ens_buf b = ENS_BUF_INIT;
  if (ens__msg_encode(m, &b)) s_die("message");
  ens__buf_putc(&s_out, (unsigned char)peer);
  ens__buf_putc(&s_out, (unsigned char)(b.len >> 8));
  ens__buf_putc(&s_out, (unsigned char)b.len);
  ens__buf_append(&s_out, b.data, b.len);
  ens__buf_free(&b);
}

static void s_script(const char *dir, const char *name, char mode, s_seed *v, size_t n) {
  ens__buf_putc(&s_out, (unsigned char)mode);
  ens__msg m;
  memset(&m, 0, sizeof m);
  m.type = ENS_MSG_HELLO;
  m.vmin = 1;
  m.vmax = ENS_PROTO_VERSION;
  memset(m.client, 0x11, sizeof m.client);
  s_msg(0, &m);
  uint64_t ctn = 0;
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < 4 && v[i].t[j]; j++) {
      unsigned char *b;
      size_t len;
      if (ens_txn_encode(v[i].t[j], &b, &len)) s_die("encode");
      memset(&m, 0, sizeof m);
      m.type = ENS_MSG_TXN;
      m.ctn = ++ctn;
      m.bytes = b;
      m.nbytes = len;
      s_msg(j == 0 ? 0x80 : 0, &m); /* a round ends before each seed's first */
      ens_free(b);
    }
  s_save(dir, name);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: make_rules_seeds EDIT_DIR SERVER_DIR\n");
    return 2;
  }
  mkdir(argv[1], 0755);
  s_seed v[64];
  size_t n;
  char name[128];
  for (int svg = 0; svg < 2; svg++) {
    s_doc = fz_format_fixture(svg);
    if (svg) s_drawing_seeds(v, &n);
    else s_font_seeds(v, &n);
    for (size_t i = 0; i < n; i++) {
      /* as the user's changes, and again as collaborators' (selector bit 1) */
      for (int remote = 0; remote < 2; remote++) {
        ens__buf_putc(&s_out, (unsigned char)(svg | remote << 1));
        for (int j = 0; j < 4 && v[i].t[j]; j++) s_rec(v[i].t[j]);
        snprintf(name, sizeof name, "%s%s.bin", v[i].name, remote ? "-remote" : "");
        s_save(argv[1], name);
      }
    }
    snprintf(name, sizeof name, "%s-rules.bin", svg ? "drawing" : "font");
    s_script(argv[2], name, svg ? 'V' : 'S', v, n);
    for (size_t i = 0; i < n; i++)
      for (int j = 0; j < 4; j++) ens_txn_free(v[i].t[j]);
    ens_doc_free(s_doc);
  }
  ens__buf_free(&s_out);
  return 0;
}
