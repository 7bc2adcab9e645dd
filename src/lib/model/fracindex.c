/* Fractional positions (see fracindex.h). Digits in ASCII order, so that
 * strcmp on positions is numeric order: 0-9 A-Z a-z. */
#include "fracindex.h"

#include <stdlib.h>
#include <string.h>

#include "../util/buf.h"
#include "doc.h"

#define BASE 62

static int s_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  if (c >= 'a' && c <= 'z') return c - 'a' + 36;
  return -1;
}

static char s_char(int d) {
  return (char)(d < 10 ? '0' + d : d < 36 ? 'A' + d - 10 : 'a' + d - 36);
}

int ens_pos_valid(const char *s, size_t len) {
  if (len == 0 || len > ENS_MAX_POS) return 0;
  for (size_t i = 0; i < len; i++)
    if (s_digit(s[i]) < 0) return 0;
  return s[len - 1] != '0';
}

/* The next key after a at a's length (a counter in base 62), or, when a is
 * all 'z', a followed by as many digits again ("0..01"): a position then
 * grows logarithmically with the number of appends, not linearly. */
static void s_after(ens_buf *out, const char *a) {
  size_t k = strlen(a);
  char *tmp = malloc(2 * k + 1);
  if (!tmp) { out->oom = 1; return; }
  memcpy(tmp, a, k);
  size_t n = k;
  do {
    size_t i = k;
    while (i > 0 && tmp[i - 1] == 'z') tmp[--i] = '0';
    if (i == 0) { /* all 'z': extend */
      memcpy(tmp, a, k);
      memset(tmp + k, '0', k - 1);
      tmp[2 * k - 1] = '1';
      n = 2 * k;
      break;
    }
    tmp[i - 1] = s_char(s_digit(tmp[i - 1]) + 1);
  } while (tmp[k - 1] == '0'); /* a key never ends in the zero digit */
  ens__buf_append(out, tmp, n);
  free(tmp);
}

/* The key before b at b's length, or, when that would be all zeros, those
 * zeros followed by as many 'z' (the mirror of s_after). */
static void s_before(ens_buf *out, const char *b) {
  size_t k = strlen(b);
  char *tmp = malloc(2 * k + 1);
  if (!tmp) { out->oom = 1; return; }
  memcpy(tmp, b, k);
  size_t n = k;
  do {
    size_t i = k;
    while (i > 0 && tmp[i - 1] == '0') tmp[--i] = 'z';
    if (i == 0) { /* only for an invalid b of all zeros; callers check */
      out->oom = 1;
      break;
    }
    tmp[i - 1] = s_char(s_digit(tmp[i - 1]) - 1);
    size_t z = 0;
    while (z < k && tmp[z] == '0') z++;
    if (z == k) { /* reached zero: extend */
      memset(tmp + k, 'z', k);
      n = 2 * k;
      break;
    }
  } while (tmp[k - 1] == '0');
  ens__buf_append(out, tmp, n);
  free(tmp);
}

/* Appends to out a key strictly between a and b, where a may be empty (0)
 * and b NULL (1); requires a < b. */
static void s_between(ens_buf *out, const char *a, const char *b) {
  if (!a[0] && b) {
    /* before the first: step down from all of b, not from what follows its
     * leading zeros, or prepending would grow the key at every step */
    s_before(out, b);
    return;
  }
  for (;;) {
    if (b) {
      /* shared prefix: copy it, the rest must fit between the suffixes */
      size_t la = strlen(a), n = 0;
      while (b[n] && (n < la ? a[n] : '0') == b[n]) n++;
      ens__buf_append(out, b, n);
      a += la < n ? la : n;
      b += n;
    }
    if (!b) {
      if (!a[0]) ens__buf_putc(out, (unsigned char)s_char(BASE / 2));
      else s_after(out, a);
      return;
    }
    if (!a[0]) {
      s_before(out, b);
      return;
    }
    int da = s_digit(a[0]), db = s_digit(b[0]);
    if (db - da > 1) {
      ens__buf_putc(out, (unsigned char)s_char((da + db) / 2));
      return;
    }
    /* adjacent first digits */
    if (b[1]) {
      /* b's first digit alone is above a and below b */
      ens__buf_putc(out, (unsigned char)b[0]);
      return;
    }
    /* keep a's first digit and go after a's rest, towards the open end */
    ens__buf_putc(out, (unsigned char)a[0]);
    a++;
    b = NULL;
  }
}

char *ens_pos_between(const char *a, const char *b) {
  if (!a) a = "";
  if (b && !*b) b = NULL;
  if ((*a && !ens_pos_valid(a, strlen(a))) || (b && !ens_pos_valid(b, strlen(b)))) return NULL;
  if (b && strcmp(a, b) >= 0) return NULL;
  ens_buf out = ENS_BUF_INIT;
  s_between(&out, a, b);
  return (char *)ens__buf_detach(&out, NULL);
}

char *ens_pos_seq(size_t i, size_t n) {
  if (i >= n) return NULL;
  /* width w digits with 62^w > n: spread i+1 over (0, 62^w) */
  unsigned w = 1;
  double span = BASE;
  while (span <= (double)n + 1 && w < 12) {
    span *= BASE;
    w++;
  }
  unsigned __int128 total = 1;
  for (unsigned k = 0; k < w; k++) total *= BASE;
  unsigned __int128 v = total * (i + 1) / (n + 1);
  char digits[16];
  for (int k = (int)w - 1; k >= 0; k--) {
    digits[k] = s_char((int)(v % BASE));
    v /= BASE;
  }
  /* trailing zero digits add nothing to the value and are not allowed */
  while (w > 1 && digits[w - 1] == '0') w--;
  char *out = malloc(w + 1);
  if (!out) return NULL;
  memcpy(out, digits, w);
  out[w] = '\0';
  return out;
}
