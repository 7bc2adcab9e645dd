/* The browser build has no libxml2, whose parse is the last check of an
 * SVG doctype the rules judge (src/lib/formats/svg/rules.c) and of an SVG
 * file read (svg.c). The browser neither reads SVG files (it receives
 * the document as a snapshot) nor edits doctypes, so both are refused
 * here with a message rather than passed unchecked; the server, built
 * with libxml2, judges every transaction in full. */
#include "formats/svg/svg_int.h"
#include "util/error.h"

int ens__svg_check(const void *data, size_t len, ens__svg_ents *ents) {
  (void)data, (void)len;
  memset(ents, 0, sizeof *ents);
  return ens__error(ENS_EDECODE, "the browser build cannot check SVG markup (no libxml2)");
}

void ens__svg_ents_free(ens__svg_ents *t) { (void)t; }
