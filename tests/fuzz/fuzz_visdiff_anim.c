/* libFuzzer target for the change list and frame choice of the visual diff
 * of two animations (ensemble/visdiff.h; nothing rendered: rendering has
 * its own limits, tested in test_lottie_render). The input is OLD's bytes,
 * a NUL, and NEW's bytes (Lottie JSON). When both read: the visual diff
 * succeeds, writes one line per item, an animation with itself has no item,
 * the frames chosen are in order within both versions' ranges (or the two
 * share none), and the page is written around an empty strip. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "fuzzlib.h"

static void s_text(const ens_visdiff *vd) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  FZ_CHECK(f != NULL, "memstream");
  FZ_CHECK(ens_visdiff_write_text(vd, f) == 0, "text: %s", ens_error_last());
  fclose(f);
  size_t lines = 0;
  for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
  /* a label or detail may hold a line end only as the space it is shown as */
  FZ_CHECK(lines == ens_visdiff_count(vd), "%zu lines for %zu items:\n%s", lines, ens_visdiff_count(vd), buf);
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 || size > 65536) return 0;
  const uint8_t *end = data + size, *nul = memchr(data, 0, size);
  if (!nul) return 0;
  ens_doc *a = NULL, *b = NULL;
  ens_visdiff *vd = NULL, *same = NULL;
  if (ens_lottie_read(data, (size_t)(nul - data), &a) || ens_lottie_read(nul + 1, (size_t)(end - nul - 1), &b))
    goto done;
  FZ_CHECK(ens_visdiff_new(a, b, &vd) == 0, "visdiff of two animations read: %s", ens_error_last());
  FZ_CHECK(ens_visdiff_is_animation(vd), "not an animation's");
  s_text(vd);
  for (size_t i = 0; i < ens_visdiff_count(vd); i++) {
    ens_visdiff_item it;
    FZ_CHECK(ens_visdiff_item_at(vd, i, &it) == 0, "item %zu", i);
    FZ_CHECK(it.mark >= ENS_VIS_ADDED && it.mark <= ENS_VIS_CHANGED && *it.label, "item %zu: mark or label", i);
  }
  FZ_CHECK(ens_visdiff_new(a, a, &same) == 0, "visdiff with itself");
  FZ_CHECK(ens_visdiff_count(same) == 0, "an animation with itself: %zu changes", ens_visdiff_count(same));

  long frames[ENS_VISDIFF_MAX_FRAMES];
  size_t n = 0;
  if (ens_visdiff_frames(vd, frames, ENS_VISDIFF_MAX_FRAMES, &n) == 0) {
    FZ_CHECK(n >= 1 && n <= ENS_VISDIFF_MAX_FRAMES, "%zu frames", n);
    for (size_t i = 1; i < n; i++) FZ_CHECK(frames[i] > frames[i - 1], "frames out of order at %zu", i);
    fz_sink += (uint64_t)frames[0];
  } else {
    FZ_CHECK(n == 0, "frames refused, yet %zu", n);
  }
  ens_visdiff_strip empty;
  memset(&empty, 0, sizeof empty);
  char *html = NULL;
  size_t len = 0;
  FZ_CHECK(ens_visdiff_strip_html(vd, &empty, NULL, &html, &len) == 0, "page: %s", ens_error_last());
  FZ_CHECK(html && strlen(html) == len, "page length");
  ens_free(html);
done:
  ens_visdiff_free(vd);
  ens_visdiff_free(same);
  ens_doc_free(a);
  ens_doc_free(b);
  return 0;
}
