/* Writes the seed corpus of fuzz_mirror_state: the record a file mirror's
 * host keeps beside the file, for a small font and a small drawing, made by
 * the library's own writer. Deterministic; not part of the build:
 *
 *   cc -std=gnu11 -Iinclude -Isrc/lib tests/fuzz/make_mirror_seeds.c build/libensemble.a -lm \
 *      $(pkg-config --libs libxml-2.0 librsvg-2.0 libzmq sqlite3) -o /tmp/make_mirror_seeds
 *   /tmp/make_mirror_seeds tests/fuzz/corpus/fuzz_mirror_state */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ensemble.h"
#include "vcs/mirror_int.h"

static void s_put(const char *dir, const char *name, const char *format, const char *text) {
  ens_doc *doc;
  int svg = strcmp(format, ENS_SVG_KIND) == 0;
  if ((svg ? ens_svg_read : ens_sfd_read)(text, strlen(text), &doc)) {
    fprintf(stderr, "make_mirror_seeds: %s: %s\n", name, ens_error_last());
    exit(1);
  }
  unsigned char *snap, *out;
  size_t snap_len, len;
  if (ens_snapshot_encode(doc, &snap, &snap_len)) exit(1);
  ens__mirror_state st;
  memset(&st, 0, sizeof st);
  st.epoch = 0x1234567890abcdefULL;
  st.seq = 42;
  st.file_hash = ens__mirror_bytes_hash(text, strlen(text));
  st.file_len = strlen(text);
  st.doc_hash = ens_doc_hash(doc);
  st.origin = (uint8_t)svg;
  snprintf(st.format, sizeof st.format, "%s", format);
  st.snap = snap;
  st.snap_len = snap_len;
  if (ens__mirror_state_write(&st, &out, &len)) exit(1);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(out, 1, len, f) != len || fclose(f) != 0) {
    fprintf(stderr, "make_mirror_seeds: cannot write %s\n", path);
    exit(1);
  }
  printf("%6zu  %s\n", len, path);
  ens_free(out);
  ens_free(snap);
  ens_doc_free(doc);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_mirror_seeds DIR (tests/fuzz/corpus/fuzz_mirror_state)\n");
    return 2;
  }
  mkdir(argv[1], 0755);
  s_put(argv[1], "state-sfd.bin", ENS_SFD_KIND,
        "SplineFontDB: 3.2\nFontName: T\nBeginChars: 65536 1\n\nStartChar: a\nEncoding: 97 97 0\nWidth: 500\n"
        "Flags: W\nLayerCount: 2\nFore\nSplineSet\n0 0 m 1\n 100 0 l 1\n 100 100 l 1\n 0 0 l 1\nEndSplineSet\n"
        "EndChar\nEndChars\nEndSplineFont\n");
  s_put(argv[1], "state-svg.bin", ENS_SVG_KIND,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"s\"><g id=\"g\"><rect id=\"r\" width=\"3\" height=\"4\" "
        "fill=\"#000\"/></g><circle r=\"2\"/></svg>\n");
  return 0;
}
