/* The visual diff (ensemble/visdiff.h) on small drawings made for each
 * case: added, removed, changed, moved, references inside a removed
 * element, transforms and style inherited by what is re-drawn, editor
 * state left out; and on a font edited glyph by glyph. The composite is
 * read back with libxml2 and rendered with librsvg. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>

#include "ensemble.h"
#include "testutil.h"

#define NS "xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink'"

typedef struct {
  ens_doc *a, *b;
  ens_visdiff *vd;
  char *svg;
  size_t len;
  xmlDocPtr x;
  xmlXPathContextPtr ctx;
} s_case;

static void s_open(s_case *c, const char *old_svg, const char *new_svg) {
  memset(c, 0, sizeof *c);
  assert_int_equal(ens_svg_read(old_svg, strlen(old_svg), &c->a), 0);
  assert_int_equal(ens_svg_read(new_svg, strlen(new_svg), &c->b), 0);
  assert_int_equal(ens_visdiff_new(c->a, c->b, &c->vd), 0);
  assert_int_equal(ens_visdiff_svg(c->vd, &c->svg, &c->len), 0);
  c->x = xmlReadMemory(c->svg, (int)c->len, NULL, NULL, XML_PARSE_NONET);
  if (!c->x) fprintf(stderr, "not well-formed:\n%s\n", c->svg);
  assert_non_null(c->x);
  c->ctx = xmlXPathNewContext(c->x);
  assert_non_null(c->ctx);
}

static void s_close(s_case *c) {
  xmlXPathFreeContext(c->ctx);
  xmlFreeDoc(c->x);
  ens_free(c->svg);
  ens_visdiff_free(c->vd);
  ens_doc_free(c->a);
  ens_doc_free(c->b);
}

/* Nodes matching an XPath expression (the caller frees the object). */
static xmlXPathObjectPtr s_q(s_case *c, const char *xp) {
  xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)xp, c->ctx);
  assert_non_null(o);
  return o;
}

static int s_count(s_case *c, const char *xp) {
  xmlXPathObjectPtr o = s_q(c, xp);
  int n = o->nodesetval ? o->nodesetval->nodeNr : 0;
  xmlXPathFreeObject(o);
  return n;
}

/* The one element matching xp. */
static xmlNodePtr s_one(s_case *c, const char *xp) {
  xmlXPathObjectPtr o = s_q(c, xp);
  if (!o->nodesetval || o->nodesetval->nodeNr != 1) {
    fprintf(stderr, "%s: %d matches in\n%s\n", xp, o->nodesetval ? o->nodesetval->nodeNr : 0, c->svg);
    fail();
  }
  xmlNodePtr n = o->nodesetval->nodeTab[0];
  xmlXPathFreeObject(o);
  return n;
}

static void s_attr_is(xmlNodePtr n, const char *name, const char *want) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  assert_non_null(v);
  assert_string_equal((const char *)v, want);
  xmlFree(v);
}

#define CLS(c) "contains(concat(' ',@class,' '),' " c " ')"

/* Elements carrying each class that marks a change. */
static void s_marks(s_case *c, int added, int removed, int changed) {
  assert_int_equal(s_count(c, "//*[" CLS("ens-added") "]"), added);
  assert_int_equal(s_count(c, "//*[" CLS("ens-removed") "]"), removed);
  assert_int_equal(s_count(c, "//*[" CLS("ens-changed") "]"), changed);
  assert_int_equal(ens_visdiff_count(c->vd), (size_t)(added + removed + changed));
  /* one style block of ours, and every id once */
  assert_int_equal(s_count(c, "//*[local-name()='style' and @id='ens-visdiff-style']"), 1);
  assert_int_equal(s_count(c, "//*[@id=preceding::*/@id or @id=ancestor::*/@id]"), 0);
}

static void test_added_outlined_and_the_rest_dimmed(void **state) {
  (void)state;
  s_case c;
  s_open(&c, "<svg " NS " viewBox='0 0 100 100'><rect id='a' x='10' y='10' width='20' height='20'/></svg>",
         "<svg " NS " viewBox='0 0 100 100'><rect id='a' x='10' y='10' width='20' height='20'/>"
         "<circle id='c' cx='70' cy='70' r='10'/></svg>");
  s_marks(&c, 1, 0, 0);
  xmlNodePtr n = s_one(&c, "//*[" CLS("ens-added") "]");
  assert_string_equal((const char *)n->name, "circle");
  s_attr_is(n, "data-ens", "0");
  s_one(&c, "//*[local-name()='rect' and @id='a' and " CLS("ens-unchanged") "]");
  ens_visdiff_item it;
  assert_int_equal(ens_visdiff_item_at(c.vd, 0, &it), 0);
  assert_int_equal(it.mark, ENS_VIS_ADDED);
  assert_string_equal(it.label, "circle #c");
  s_close(&c);
}

static uint32_t s_px(const ens_image *img, int x, int y) {
  return ((const uint32_t *)(img->pixels + (size_t)y * img->stride))[x];
}

static void s_render(s_case *c, ens_image *img) {
  ens_render_size size = {100, 100, 60000};
  assert_int_equal(ens_render_svg(c->svg, c->len, size, img), 0);
}

static void test_removed_redrawn_in_place_under_its_parent(void **state) {
  (void)state;
  s_case c;
  /* r2 inherits a translation and its fill from its group */
  s_open(&c,
         "<svg " NS " viewBox='0 0 100 100'><g id='L' transform='translate(10,20)' fill='#ff0000'>"
         "<rect id='r1' x='0' y='0' width='10' height='10'/><rect id='r2' x='30' y='30' width='20' height='20'/>"
         "<rect id='r3' x='60' y='0' width='10' height='10'/></g></svg>",
         "<svg " NS " viewBox='0 0 100 100'><g id='L' transform='translate(10,20)' fill='#ff0000'>"
         "<rect id='r1' x='0' y='0' width='10' height='10'/>"
         "<rect id='r3' x='60' y='0' width='10' height='10'/></g></svg>");
  s_marks(&c, 0, 1, 0);
  xmlNodePtr n = s_one(&c, "//*[" CLS("ens-removed") "]");
  s_attr_is(n, "id", "ensold-r2");
  s_attr_is(n, "data-ens", "0");
  s_attr_is(n->parent, "id", "L");
  /* in its old place among its siblings */
  s_one(&c, "//*[@id='ensold-r2']/preceding-sibling::*[1][@id='r1']");
  s_one(&c, "//*[@id='ensold-r2']/following-sibling::*[1][@id='r3']");
  ens_image img;
  s_render(&c, &img);
  uint32_t inside = s_px(&img, 10 + 40, 20 + 40), outside = s_px(&img, 40, 40);
  assert_true((inside >> 24) > 0x40);          /* drawn where it was, translated */
  assert_true(((inside >> 16) & 0xff) > 0x40); /* with its inherited red */
  assert_int_equal(outside >> 24, 0);
  ens_image_free(&img);
  s_close(&c);
}

static void test_removed_under_a_changed_parent_keeps_the_old_transform(void **state) {
  (void)state;
  s_case c;
  s_open(&c,
         "<svg " NS " viewBox='0 0 100 100'><g id='L' transform='translate(50,50)' fill='#00ff00'>"
         "<rect id='r1' x='0' y='0' width='20' height='20'/><rect id='r2' x='30' y='0' width='5' height='5'/></g></svg>",
         "<svg " NS " viewBox='0 0 100 100'><g id='L' transform='translate(0,0)' fill='#00ff00'>"
         "<rect id='r2' x='30' y='0' width='5' height='5'/></g></svg>");
  s_marks(&c, 0, 1, 1);
  /* the old group as it was, as a ghost, holding the removed rectangle */
  xmlNodePtr g = s_one(&c, "//*[" CLS("ens-ghost") "]");
  s_attr_is(g, "id", "ensold-L");
  s_attr_is(g, "transform", "translate(50,50)");
  s_attr_is(g, "data-ens-ghost", "0");
  s_one(&c, "//*[@id='ensold-L']/*[@id='ensold-r1' and " CLS("ens-removed") "]");
  s_one(&c, "//*[@id='L' and " CLS("ens-changed") "]");
  ens_image img;
  s_render(&c, &img);
  assert_true((s_px(&img, 60, 60) >> 24) > 0x40); /* r1 at translate(50,50) as in OLD */
  assert_int_equal(s_px(&img, 10, 10) >> 24, 0);  /* not where NEW's transform would put it */
  ens_image_free(&img);
  s_close(&c);
}

static void test_changed_over_a_ghost_of_its_old_geometry(void **state) {
  (void)state;
  s_case c;
  s_open(&c,
         "<svg " NS " viewBox='0 0 100 100'><rect id='a' x='10' y='10' width='20' height='20' fill='red'/>"
         "<rect id='b' x='60' y='60' width='10' height='10'/></svg>",
         "<svg " NS " viewBox='0 0 100 100'><rect id='a' x='40' y='10' width='20' height='20' fill='blue'/>"
         "<rect id='b' x='60' y='60' width='10' height='10'/></svg>");
  s_marks(&c, 0, 0, 1);
  xmlNodePtr n = s_one(&c, "//*[" CLS("ens-changed") "]");
  s_attr_is(n, "id", "a");
  s_attr_is(n, "x", "40");
  /* the ghost right beneath it, with the old values */
  xmlNodePtr g = s_one(&c, "//*[@id='a']/preceding-sibling::*[1]");
  s_attr_is(g, "id", "ensold-a");
  s_attr_is(g, "x", "10");
  s_attr_is(g, "class", "ens-ghost");
  s_one(&c, "//*[@id='b' and " CLS("ens-unchanged") "]");
  ens_visdiff_item it;
  assert_int_equal(ens_visdiff_item_at(c.vd, 0, &it), 0);
  assert_int_equal(it.mark, ENS_VIS_CHANGED);
  assert_non_null(strstr(it.detail, "x"));
  assert_non_null(strstr(it.detail, "fill"));
  s_close(&c);
}

static void test_reordered_shows_its_ghost_in_the_old_place(void **state) {
  (void)state;
  s_case c;
  s_open(&c,
         "<svg " NS " viewBox='0 0 100 100'><g id='A' transform='scale(2)'><rect id='r' width='5' height='5'/>"
         "<rect id='s' width='9' height='9'/><rect id='t' width='1' height='1'/></g></svg>",
         "<svg " NS " viewBox='0 0 100 100'><g id='A' transform='scale(2)'>"
         "<rect id='s' width='9' height='9'/><rect id='t' width='1' height='1'/><rect id='r' width='5' height='5'/>"
         "</g></svg>");
  s_marks(&c, 0, 0, 1);
  s_one(&c, "//*[@id='A']/*[last()][@id='r' and " CLS("ens-changed") "]");
  s_one(&c, "//*[@id='A']/*[1][@id='ensold-r' and " CLS("ens-ghost") "]");
  ens_visdiff_item it;
  assert_int_equal(ens_visdiff_item_at(c.vd, 0, &it), 0);
  assert_string_equal(it.detail, "moved");
  s_close(&c);
}

/* The model's diff matches children under matched parents: an element
 * that changes parent is removed from one and added to the other. */
static void test_reparented_is_removed_and_added(void **state) {
  (void)state;
  s_case c;
  s_open(&c,
         "<svg " NS " viewBox='0 0 100 100'><g id='A' transform='scale(2)'><rect id='r' width='5' height='5'/></g>"
         "<g id='B'/></svg>",
         "<svg " NS " viewBox='0 0 100 100'><g id='A' transform='scale(2)'/>"
         "<g id='B'><rect id='r' width='5' height='5'/></g></svg>");
  s_marks(&c, 1, 1, 0);
  s_one(&c, "//*[@id='B']/*[@id='r' and " CLS("ens-added") "]");
  s_one(&c, "//*[@id='A']/*[@id='ensold-r' and " CLS("ens-removed") "]");
  s_close(&c);
}

static void test_references_inside_a_removed_element_resolve(void **state) {
  (void)state;
  s_case c;
  const char *defs =
      "<defs id='d'><linearGradient id='g0'><stop offset='0' stop-color='#00f'/></linearGradient>"
      "<linearGradient id='g1' xlink:href='#g0'/>"
      "<clipPath id='cp'><rect width='90' height='90'/></clipPath>"
      "<marker id='m'><circle r='2'/></marker><filter id='f'><feGaussianBlur stdDeviation='1'/></filter>"
      "<mask id='mk'><rect width='100' height='100' fill='white'/></mask></defs>";
  char old_svg[2048], new_svg[2048];
  snprintf(old_svg, sizeof old_svg,
           "<svg " NS " viewBox='0 0 100 100'>%s"
           "<path id='p' d='M10 10 L80 10 L80 80 Z' fill='url(#g1)' clip-path='url(#cp)' marker-end='url(#m)' "
           "style='filter:url(&quot;#f&quot;);mask:url(#mk)'/>"
           "<use id='u' xlink:href='#p' x='5'/><rect id='keep' width='3' height='3'/></svg>",
           defs);
  /* NEW loses the path, its use, and the gradients the path was painted with */
  snprintf(new_svg, sizeof new_svg,
           "<svg " NS " viewBox='0 0 100 100'><defs id='d'><clipPath id='cp'><rect width='90' height='90'/>"
           "</clipPath><marker id='m'><circle r='2'/></marker><filter id='f'><feGaussianBlur stdDeviation='1'/>"
           "</filter><mask id='mk'><rect width='100' height='100' fill='white'/></mask></defs>"
           "<rect id='keep' width='3' height='3'/></svg>");
  s_open(&c, old_svg, new_svg);
  s_marks(&c, 0, 4, 0);
  xmlNodePtr p = s_one(&c, "//*[@id='ensold-p']");
  s_attr_is(p, "fill", "url(#ensold-g1)");
  s_attr_is(p, "clip-path", "url(#ensold-cp)");
  s_attr_is(p, "marker-end", "url(#ensold-m)");
  s_attr_is(p, "style", "filter:url(\"#ensold-f\");mask:url(#ensold-mk)");
  xmlNodePtr u = s_one(&c, "//*[@id='ensold-u']");
  xmlChar *href = xmlGetNsProp(u, (const xmlChar *)"href", (const xmlChar *)"http://www.w3.org/1999/xlink");
  assert_string_equal((const char *)href, "#ensold-p");
  xmlFree(href);
  /* the chain g1 -> g0 is complete in the old copy */
  s_one(&c, "//*[@id='ensold-g0']//*[local-name()='stop']");
  /* every reference of the composite names an element it has */
  xmlXPathObjectPtr all = s_q(&c, "//@*");
  int refs = 0;
  for (int i = 0; i < all->nodesetval->nodeNr; i++) {
    xmlAttrPtr a = (xmlAttrPtr)all->nodesetval->nodeTab[i];
    xmlChar *v = xmlNodeGetContent((xmlNodePtr)a);
    const char *s = (const char *)v;
    const char *h = strcmp((const char *)a->name, "href") == 0 && s[0] == '#' ? s + 1 : NULL;
    for (const char *u2 = s; h || (u2 = strstr(u2, "url(")); u2 += 4) {
      char id[128];
      if (h) {
        snprintf(id, sizeof id, "%s", h);
      } else {
        const char *q = u2 + 4;
        while (*q == '"' || *q == '\'') q++;
        if (*q != '#') continue;
        size_t k = strcspn(q + 1, ")\"'");
        snprintf(id, sizeof id, "%.*s", (int)k, q + 1);
      }
      char xp[256];
      snprintf(xp, sizeof xp, "//*[@id='%s']", id);
      assert_int_equal(s_count(&c, xp), 1);
      refs++;
      if (h) break;
    }
    xmlFree(v);
  }
  xmlXPathFreeObject(all);
  assert_true(refs >= 7);
  ens_image img;
  s_render(&c, &img);
  assert_true((s_px(&img, 70, 20) >> 24) > 0); /* the removed path is drawn */
  ens_image_free(&img);
  s_close(&c);
}

static void test_definitions_keep_what_new_has(void **state) {
  (void)state;
  s_case c;
  s_open(&c,
         "<svg " NS " viewBox='0 0 100 100'><defs><linearGradient id='g'><stop id='s1' offset='0'/>"
         "<stop id='s2' offset='0.5' stop-color='red'/><stop id='s3' offset='1'/></linearGradient>"
         "<mask id='m'><rect id='mr' width='50' height='50' fill='white'/></mask></defs>"
         "<rect id='shape' width='90' height='90' fill='url(#g)' mask='url(#m)'/></svg>",
         "<svg " NS " viewBox='0 0 100 100'><defs><linearGradient id='g'><stop id='s1' offset='0.2'/>"
         "<stop id='s3' offset='1'/></linearGradient>"
         "<mask id='m'><rect id='mr' width='50' height='50' fill='white'/><rect id='mr2' y='60' width='9' "
         "height='9' fill='white'/></mask></defs>"
         "<rect id='shape' width='90' height='90' fill='url(#g)' mask='url(#m)'/></svg>");
  s_marks(&c, 1, 1, 1);
  /* NEW's gradient and mask hold what NEW has, nothing of OLD */
  assert_int_equal(s_count(&c, "//*[@id='g']/*"), 2);
  assert_int_equal(s_count(&c, "//*[@id='m']/*"), 2);
  /* OLD's stops are among the copied definitions, not drawn */
  s_one(&c, "//*[@class='ens-old-defs']/*[@id='ensold-s2' and " CLS("ens-removed") "]");
  s_one(&c, "//*[@class='ens-old-defs']/*[@id='ensold-s1' and " CLS("ens-ghost") "]");
  /* a mark inside a mask is not outlined: it would change what it masks */
  s_one(&c, "//*[@id='mr2' and " CLS("ens-added") " and " CLS("ens-def") "]");
  s_close(&c);
}

static void test_text_changes_mark_the_element_and_ghost_the_text(void **state) {
  (void)state;
  s_case c;
  s_open(&c,
         "<svg " NS " viewBox='0 0 100 100'><text id='t' x='5' y='50'>Hello <tspan id='s'>world</tspan></text>\n"
         "</svg>",
         "<svg " NS " viewBox='0 0 100 100'><text id='t' x='5' y='50'>Hello <tspan id='s'>there</tspan></text>\n"
         "\n</svg>");
  s_marks(&c, 0, 0, 1);
  s_one(&c, "//*[@id='s' and " CLS("ens-changed") "]");
  /* the old text whole beside the new one, not a piece flowing into it */
  s_one(&c, "//*[@id='t']/preceding-sibling::*[1][@id='ensold-t' and " CLS("ens-ghost") "]");
  s_close(&c);
}

static void test_editor_state_is_no_change(void **state) {
  (void)state;
  s_case c;
  s_open(&c,
         "<svg " NS " xmlns:inkscape='http://www.inkscape.org/namespaces/inkscape' "
         "xmlns:sodipodi='http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd' viewBox='0 0 10 10'>"
         "<sodipodi:namedview id='base' inkscape:zoom='1'/><metadata id='md'><title>a</title></metadata>"
         "<g id='L' inkscape:label='Layer 1'><rect id='r' width='1' height='1'/></g></svg>",
         "<svg " NS " xmlns:inkscape='http://www.inkscape.org/namespaces/inkscape' "
         "xmlns:sodipodi='http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd' viewBox='0 0 10 10'>"
         "<sodipodi:namedview id='base' inkscape:zoom='4'/><metadata id='md'><title>b</title></metadata>"
         "<g id='L' inkscape:label='Background'>\n  <rect id='r' width='1' height='1'/></g></svg>");
  s_marks(&c, 0, 0, 0);
  s_close(&c);
}

static void test_prefix_avoids_ids_of_the_drawing(void **state) {
  (void)state;
  s_case c;
  s_open(&c, "<svg " NS "><rect id='ensold-x'/><rect id='a'/></svg>", "<svg " NS "><rect id='ensold-x'/></svg>");
  s_marks(&c, 0, 1, 0);
  s_one(&c, "//*[@id='ensold1-a' and " CLS("ens-removed") "]");
  s_close(&c);
}

static void test_refuses_two_kinds(void **state) {
  (void)state;
  ens_doc *a, *b = ens_doc_new("sfd", 0), *l = ens_doc_new("other", 0);
  const char *svg = "<svg " NS "/>";
  assert_int_equal(ens_svg_read(svg, strlen(svg), &a), 0);
  ens_visdiff *vd = (ens_visdiff *)1;
  assert_int_equal(ens_visdiff_new(a, b, &vd), ENS_EINVAL);
  assert_null(vd);
  assert_int_equal(ens_visdiff_new(l, l, &vd), ENS_EINVAL);
  ens_visdiff_free(NULL);
  ens_doc_free(a);
  ens_doc_free(b);
  ens_doc_free(l);
}

static void test_html_holds_everything(void **state) {
  (void)state;
  s_case c;
  /* a drawing that would fetch and run things in a browser */
  s_open(&c,
         "<svg " NS " viewBox='0 0 10 10'><rect id='a' width='5' height='5'/>"
         "<image href='http://example.com/x.png'/></svg>",
         "<svg " NS " viewBox='0 0 10 10'><style>@import url(http://example.com/a.css);"
         ".q{fill:url(&quot;http://example.com/p.svg#g&quot;)}</style>"
         "<script>alert('run')</script><rect id='a' width='6' height='5' onclick='alert(1)' "
         "style='fill:url(https://example.com/f.svg#p)'/><a href='javascript:alert(2)'><circle r='1'/></a>"
         "<a href='https://ensemble.example/doc'><circle r='2'/></a>"
         "<foreignObject width='5' height='5'><img xmlns='http://www.w3.org/1999/xhtml' "
         "src='http://example.com/i.png'/></foreignObject></svg>");
  char *html;
  size_t n;
  assert_int_equal(ens_visdiff_html(c.vd, "a <title>", &html, &n), 0);
  assert_int_equal(strlen(html), n);
  assert_non_null(strstr(html, "a &lt;title&gt;"));
  assert_non_null(strstr(html, "<li class=\"changed\" data-ens="));
  assert_non_null(strstr(html, "<li class=\"removed\" data-ens="));
  assert_non_null(strstr(html, "<li class=\"added\" data-ens="));
  assert_non_null(strstr(html, "id=\"slider\""));
  assert_non_null(strstr(html, "data:image/svg+xml;base64,"));
  /* nothing fetched: no script, style sheet or image from elsewhere */
  assert_null(strstr(html, "src=\"http"));
  assert_null(strstr(html, "@import"));
  assert_null(strstr(html, "example.com"));
  assert_null(strstr(html, "alert("));
  assert_null(strstr(html, "javascript:"));
  assert_null(strstr(html, "onclick=\""));
  /* links fetch nothing by themselves and stay */
  assert_non_null(strstr(html, "href=\"https://ensemble.example/doc\""));
  ens_free(html);
  s_close(&c);
}

/* --- fonts ---------------------------------------------------------------------------- */

static void s_apply(ens_doc *d, int rc, ens_txn **tp) {
  ens_txn *t = *tp;
  if (rc) fprintf(stderr, "glyph edit: %d %s\n", rc, ens_error_last());
  assert_int_equal(rc, 0);
  rc = ens_doc_apply(d, t, ENS_ORIGIN_LOCAL, NULL);
  if (rc) fprintf(stderr, "apply: %d %s\n", rc, ens_error_last());
  assert_int_equal(rc, 0);
  ens_txn_free(t);
}

static void test_font_glyphs_points_and_metrics(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/fonts/DejaVuSans-ExtraLight-subset.sfd", tu_resources_dir());
  ens_doc *a, *b;
  assert_int_equal(ens_sfd_read_path(path, &a), 0);
  assert_int_equal(ens_sfd_read_path(path, &b), 0);
  ens_txn *t;
  ens_glyph_pt pts[2] = {{0, 1}, {0, 2}};
  s_apply(b, ens_glyph_move_points(b, "o", pts, 2, 40, 30, &t), &t);
  ens_glyph_node tri[3] = {{100, 100, 0, 0, 0, 0, 0}, {300, 100, 0, 0, 0, 0, 0}, {200, 300, 0, 0, 0, 0, 0}};
  s_apply(b, ens_glyph_add_contour(b, "b", tri, 3, 1, &t), &t);
  s_apply(b, ens_glyph_remove_contour(b, "zero", 1, &t), &t);
  s_apply(b, ens_glyph_remove(b, "z", &t), &t);
  s_apply(b, ens_glyph_add(b, "newone", 0xE000, 500, &t), &t);
  s_apply(b, ens_glyph_set_width(b, "one", 900, &t), &t);
  ens_visdiff *vd;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  assert_true(ens_visdiff_is_font(vd));
  char *svg;
  size_t n;
  assert_int_equal(ens_visdiff_svg(vd, &svg, &n), 0);
  xmlDocPtr x = xmlReadMemory(svg, (int)n, NULL, NULL, XML_PARSE_NONET);
  assert_non_null(x);
  xmlXPathContextPtr ctx = xmlXPathNewContext(x);
  s_case c = {0};
  c.ctx = ctx;
  c.svg = svg;
  /* one cell per glyph touched: o, b, zero, one changed; z removed; newone added */
  assert_int_equal(s_count(&c, "//*[" CLS("ens-glyph") " and " CLS("ens-changed") "]"), 4);
  assert_int_equal(s_count(&c, "//*[" CLS("ens-glyph") " and " CLS("ens-removed") "]"), 1);
  assert_int_equal(s_count(&c, "//*[" CLS("ens-glyph") " and " CLS("ens-added") "]"), 1);
  assert_int_equal(ens_visdiff_count(vd), 6);
  /* the contour added to b and its three points (and the repeat closing it) */
  assert_int_equal(s_count(&c, "//*[@class='ens-contour-added']"), 1);
  assert_int_equal(s_count(&c, "//*[@class='ens-pt-added']"), 4);
  assert_int_equal(s_count(&c, "//*[@class='ens-contour-removed']"), 1);
  assert_true(s_count(&c, "//*[@class='ens-pt-removed']") >= 4);
  /* o's two points (and the control points they carry) over a ghost */
  assert_true(s_count(&c, "//*[@class='ens-pt-moved']") >= 2);
  assert_int_equal(s_count(&c, "//*[@class='ens-pt-path']"), 2);
  assert_int_equal(s_count(&c, "//*[@class='ens-ghost']"), 4);
  /* one's width: old and new advance lines */
  s_one(&c, "//*[" CLS("ens-glyph") " and .//*[local-name()='text' and .='one']]//*[" CLS("ens-advance-new") " and @x1='900']");
  s_one(&c, "//*[" CLS("ens-glyph") " and .//*[local-name()='text' and .='one']]//*[" CLS("ens-advance-old") "]");
  for (size_t i = 0; i < ens_visdiff_count(vd); i++) {
    ens_visdiff_item it;
    assert_int_equal(ens_visdiff_item_at(vd, i, &it), 0);
    if (strcmp(it.label, "glyph one") == 0) assert_non_null(strstr(it.detail, "width 1303 -> 900"));
    if (strcmp(it.label, "glyph o") == 0) assert_non_null(strstr(it.detail, "points moved"));
  }
  unsigned char *png;
  size_t png_len;
  ens_render_size size = {0, 0, 60000};
  assert_int_equal(ens_visdiff_png(vd, size, &png, &png_len), 0);
  assert_true(png_len > 1000 && memcmp(png, "\x89PNG", 4) == 0);
  ens_free(png);
  xmlXPathFreeContext(ctx);
  xmlFreeDoc(x);
  ens_free(svg);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
}

/* The d of the first ens-outline path in the cell of glyph name. */
static char *s_outline_d(const char *svg, size_t n, const char *name) {
  xmlDocPtr x = xmlReadMemory(svg, (int)n, NULL, NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
  assert_non_null(x);
  xmlXPathContextPtr ctx = xmlXPathNewContext(x);
  char q[256];
  snprintf(q, sizeof q, "//*[" CLS("ens-glyph") " and .//*[local-name()='text' and .='%s']]//*[@class='ens-outline']/@d",
           name);
  xmlXPathObjectPtr r = xmlXPathEvalExpression((const xmlChar *)q, ctx);
  assert_true(r && r->nodesetval && r->nodesetval->nodeNr >= 1);
  xmlChar *d = xmlNodeGetContent(r->nodesetval->nodeTab[0]);
  char *out = strdup((const char *)d);
  xmlFree(d);
  xmlXPathFreeObject(r);
  xmlXPathFreeContext(ctx);
  xmlFreeDoc(x);
  return out;
}

static size_t s_moves(const char *d) {
  size_t k = 0;
  for (; *d; d++) k += *d == 'M';
  return k;
}

/* A composite draws its references (ens_glyph_outline_get); a font whose
 * glyph holds forty references to itself is drawn at once, bounded. */
static void test_font_composites_and_hostile_references(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/fonts/DejaVuSans-ExtraLight-subset.sfd", tu_resources_dir());
  ens_doc *a, *b;
  assert_int_equal(ens_sfd_read_path(path, &a), 0);
  assert_int_equal(ens_sfd_read_path(path, &b), 0);
  ens_txn *t;
  s_apply(b, ens_glyph_set_lsb(b, "Agrave", 200, &t), &t);
  ens_visdiff *vd;
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  char *svg;
  size_t n;
  assert_int_equal(ens_visdiff_svg(vd, &svg, &n), 0);
  char *d = s_outline_d(svg, n, "Agrave");
  assert_int_equal(s_moves(d), 3); /* A's two contours and Grave's, though Agrave has none of its own */
  /* A's first point (695 1392 in the file) and Grave's (-604 1526, moved by the reference's 1212 373),
   * both then moved by the new bearing's shift (xmin 61 -> 200: 139) */
  assert_non_null(strstr(d, "M834 1392"));
  assert_non_null(strstr(d, "M747 1899"));
  free(d);
  ens_free(svg);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);

  char font[8192];
  size_t len = (size_t)snprintf(font, sizeof font,
                                "SplineFontDB: 3.2\nFontName: Loop\nLayerCount: 2\nLayer: 0 0 \"Back\" 1\n"
                                "Layer: 1 0 \"Fore\" 0\nEncoding: UnicodeBmp\nBeginChars: 65536 1\n\n"
                                "StartChar: Z\nEncoding: 90 90 0\nWidth: 600\nFlags: W\nLayerCount: 2\nFore\n"
                                "SplineSet\n0 0 m 1\n 30 0 l 1\n 0 0 l 1\nEndSplineSet\n");
  for (int k = 0; k < 40; k++) len += (size_t)snprintf(font + len, sizeof font - len, "Refer: 0 90 N 1 0 0 1 %d 5 2\n", k);
  len += (size_t)snprintf(font + len, sizeof font - len, "EndChar\nEndChars\nEndSplineFont\n");
  assert_true(len < sizeof font);
  assert_int_equal(ens_sfd_read(font, len, &a), 0);
  assert_int_equal(ens_sfd_read(font, len, &b), 0);
  s_apply(b, ens_glyph_set_width(b, "Z", 700, &t), &t);
  assert_int_equal(ens_visdiff_new(a, b, &vd), 0);
  assert_int_equal(ens_visdiff_svg(vd, &svg, &n), 0);
  d = s_outline_d(svg, n, "Z");
  assert_int_equal(s_moves(d), 1); /* its own contour; each reference to itself is a cycle, left out */
  free(d);
  ens_free(svg);
  ens_visdiff_free(vd);
  ens_doc_free(a);
  ens_doc_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_added_outlined_and_the_rest_dimmed),
      cmocka_unit_test(test_removed_redrawn_in_place_under_its_parent),
      cmocka_unit_test(test_removed_under_a_changed_parent_keeps_the_old_transform),
      cmocka_unit_test(test_changed_over_a_ghost_of_its_old_geometry),
      cmocka_unit_test(test_reordered_shows_its_ghost_in_the_old_place),
      cmocka_unit_test(test_reparented_is_removed_and_added),
      cmocka_unit_test(test_references_inside_a_removed_element_resolve),
      cmocka_unit_test(test_definitions_keep_what_new_has),
      cmocka_unit_test(test_text_changes_mark_the_element_and_ghost_the_text),
      cmocka_unit_test(test_editor_state_is_no_change),
      cmocka_unit_test(test_prefix_avoids_ids_of_the_drawing),
      cmocka_unit_test(test_refuses_two_kinds),
      cmocka_unit_test(test_html_holds_everything),
      cmocka_unit_test(test_font_glyphs_points_and_metrics),
      cmocka_unit_test(test_font_composites_and_hostile_references),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
