/* Fuzz target: what the parent process reads of an animation before any
 * child renders it (ensemble/render.h): ens_render_is_lottie, the scan of
 * the top-level keys and .tgs inflation, on untrusted bytes. None may crash
 * or read past the input; a scan that succeeds saw an object, a key it
 * reports is in the text, an inflation stays within its limit and ends in
 * a NUL. See docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "formats/lottie/render_int.h"
#include "fuzzlib.h"

static int s_contains(const uint8_t *p, size_t n, const char *s) {
  size_t k = strlen(s);
  for (size_t i = 0; i + k <= n; i++)
    if (memcmp(p + i, s, k) == 0) return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1u << 20)) return 0;
  int yes = ens_render_is_lottie(data, size);
  FZ_CHECK(yes == 0 || yes == 1, "is_lottie answers 0 or 1");
  FZ_CHECK(yes == ens_render_is_lottie(data, size), "is_lottie answers the same twice");
  ens__lottie_top top;
  if (ens__lottie_scan_top((const char *)data, size, &top) == 0) {
    FZ_CHECK(top.open < size && data[top.open] == '{', "a scanned object starts with a brace");
    FZ_CHECK(!top.has_layers || s_contains(data, size, "\"layers\""), "\"layers\" reported but not in the text");
    FZ_CHECK(!top.has_ip || s_contains(data, size, "\"ip\""), "\"ip\" reported but not in the text");
    FZ_CHECK(!yes || (top.has_layers && top.has_fr && top.has_ip && top.has_op),
             "an animation without its four keys");
  } else {
    FZ_CHECK(!yes || ens__lottie_is_gzip(data, size), "an animation that does not scan");
  }
  if (ens__lottie_is_gzip(data, size)) {
    for (int partial = 0; partial < 2; partial++) {
      char *text = NULL;
      size_t n = 0;
      int rc = ens__lottie_gunzip(data, size, 1u << 16, partial, &text, &n);
      if (rc == 0) {
        FZ_CHECK(text && n <= (1u << 16) && text[n] == '\0', "inflated text within its limit and ended");
      } else {
        FZ_CHECK(!text && ens_error_last()[0] != '\0', "a failed inflation with a message and no text");
      }
      free(text);
    }
  }
  return 0;
}
