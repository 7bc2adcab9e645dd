/* libFuzzer target for the visual diff (ensemble/visdiff.h). The input is
 * one byte choosing the format (even: SVG, odd: SFD), then OLD's bytes, a
 * NUL, and NEW's bytes (neither format admits a NUL). When both read, the
 * visual diff must succeed, its composite must be well-formed XML (read
 * back by libxml2) whose elements with a change class are as many as its
 * items (for a font: its glyph cells), and its page must be written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "ensemble.h"
#include "fuzzlib.h"

static void s_silent(void *ctx, const char *msg, ...) {
  (void)ctx;
  (void)msg;
}

static int s_count(xmlXPathContextPtr ctx, const char *xp) {
  xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)xp, ctx);
  FZ_CHECK(o != NULL, "xpath %s", xp);
  int n = o->nodesetval ? o->nodesetval->nodeNr : 0;
  xmlXPathFreeObject(o);
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 || size > 65536) return 0;
  int font = data[0] & 1;
  const uint8_t *a = data + 1, *end = data + size;
  const uint8_t *nul = memchr(a, 0, (size_t)(end - a));
  if (!nul) return 0;
  const uint8_t *b = nul + 1;
  ens_doc *old_doc = NULL, *new_doc = NULL;
  int ra = font ? ens_sfd_read(a, (size_t)(nul - a), &old_doc) : ens_svg_read(a, (size_t)(nul - a), &old_doc);
  int rb = font ? ens_sfd_read(b, (size_t)(end - b), &new_doc) : ens_svg_read(b, (size_t)(end - b), &new_doc);
  if (ra || rb) goto done;
  ens_visdiff *vd = NULL;
  int rc = ens_visdiff_new(old_doc, new_doc, &vd);
  FZ_CHECK(rc == 0, "visdiff of two documents read: %d", rc);
  char *svg = NULL, *html = NULL;
  size_t svg_len = 0, html_len = 0;
  FZ_CHECK(ens_visdiff_svg(vd, &svg, &svg_len) == 0, "composite");
  FZ_CHECK(strlen(svg) == svg_len, "composite length");
  xmlSetGenericErrorFunc(NULL, s_silent);
  xmlDocPtr x = xmlReadMemory(svg, (int)svg_len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  FZ_CHECK(x != NULL, "the composite is not well-formed XML:\n%s", svg);
  xmlXPathContextPtr ctx = xmlXPathNewContext(x);
  FZ_CHECK(ctx != NULL, "xpath context");
  int marked =
      s_count(ctx, font ? "//*[contains(concat(' ',@class,' '),' ens-glyph ')]"
                        : "//*[contains(concat(' ',@class,' '),' ens-added ') or "
                          "contains(concat(' ',@class,' '),' ens-removed ') or "
                          "contains(concat(' ',@class,' '),' ens-changed ')]");
  FZ_CHECK((size_t)marked == ens_visdiff_count(vd), "%d elements marked, %zu changes", marked,
           ens_visdiff_count(vd));
  for (size_t i = 0; i < ens_visdiff_count(vd); i++) {
    ens_visdiff_item it;
    FZ_CHECK(ens_visdiff_item_at(vd, i, &it) == 0, "item %zu", i);
    fz_sink += (uint64_t)it.mark + strlen(it.label) + strlen(it.detail);
  }
  xmlXPathFreeContext(ctx);
  xmlFreeDoc(x);
  FZ_CHECK(ens_visdiff_html(vd, NULL, &html, &html_len) == 0, "page");
  FZ_CHECK(html_len > svg_len / 2, "page length");
  ens_free(svg);
  ens_free(html);
  ens_visdiff_free(vd);
done:
  ens_doc_free(old_doc);
  ens_doc_free(new_doc);
  return 0;
}
