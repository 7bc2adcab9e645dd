/* Which format a file is in, for the commands that take a font, a drawing
 * or an animation: a directory or .sfd is SFD, .svg is SVG, .json, .tgs or
 * .lottie Lottie, otherwise the first bytes decide (SplineFontDB:, XML's
 * '<', JSON's '{', gzip's). */

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"

static int s_ends(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcasecmp(s + a - b, suf) == 0;
}

cli_file_kind cli_kind_of(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return CLI_KIND_SFD;
  if (s_ends(path, ".sfd") || s_ends(path, ".sfdir") || s_ends(path, ".sfdir/")) return CLI_KIND_SFD;
  if (s_ends(path, ".svg")) return CLI_KIND_SVG;
  if (s_ends(path, ".json") || s_ends(path, ".tgs") || s_ends(path, ".lottie")) return CLI_KIND_LOTTIE;
  char head[256];
  size_t n = 0;
  FILE *f = fopen(path, "rb");
  if (f) {
    n = fread(head, 1, sizeof head, f);
    fclose(f);
  }
  if (n >= 13 && memcmp(head, "SplineFontDB:", 13) == 0) return CLI_KIND_SFD;
  if (ens_svg_sniff(head, n)) return CLI_KIND_SVG;
  size_t i = 0;
  while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) i++;
  if ((i < n && head[i] == '{') || (n >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b))
    return CLI_KIND_LOTTIE;
  return CLI_KIND_SFD; /* whose reader then says what is wrong */
}
