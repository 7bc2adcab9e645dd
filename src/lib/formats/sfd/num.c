/* Numbers in SFD text: a parser that reads without copying or locale
 * (exact through the fast path, strtod in the "C" locale otherwise) and
 * the %g-like printing FontForge uses. */
#define _GNU_SOURCE
#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfd_int.h"

/* Longer number tokens are refused: FontForge never writes them, and a
 * bound keeps a hostile line from costing anything. */
#define S_MAX_NUM 64

static const double s_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static locale_t s_c_locale;
static pthread_once_t s_once = PTHREAD_ONCE_INIT;
static void s_init_locale(void) { s_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static locale_t s_c(void) {
  pthread_once(&s_once, s_init_locale);
  return s_c_locale;
}

static inline int s_digit(char c) { return c >= '0' && c <= '9'; }

int ens__sfd_parse_real(const char *s, const char *end, double *out) {
  const char *p = s;
  int neg = 0;
  if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
  uint64_t mant = 0;
  int ndig = 0, exp10 = 0, any = 0;
  while (p < end && s_digit(*p)) {
    any = 1;
    if (ndig < 19) {
      if (mant || *p != '0') {
        mant = mant * 10 + (uint64_t)(*p - '0');
        ndig++;
      }
    } else {
      exp10++;
    }
    p++;
  }
  if (p < end && *p == '.') {
    p++;
    while (p < end && s_digit(*p)) {
      any = 1;
      if (ndig < 19) {
        if (mant || *p != '0') {
          mant = mant * 10 + (uint64_t)(*p - '0');
          ndig++;
        }
        exp10--;
      }
      p++;
    }
  }
  if (!any) return 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    const char *q = p + 1;
    int eneg = 0;
    if (q < end && (*q == '-' || *q == '+')) eneg = *q++ == '-';
    if (q < end && s_digit(*q)) {
      int e = 0;
      while (q < end && s_digit(*q)) {
        if (e < 100000) e = e * 10 + (*q - '0');
        q++;
      }
      exp10 += eneg ? -e : e;
      p = q;
    }
  }
  size_t len = (size_t)(p - s);
  if (len > S_MAX_NUM) return -1;
  double v;
  if (ndig <= 15 && exp10 == 0 && (size_t)(p - s) <= S_MAX_NUM) { /* whole numbers: most coordinates */
    *out = neg ? -(double)mant : (double)mant;
    return (int)(p - s);
  }
  if (ndig <= 15 && exp10 >= -22 && exp10 <= 22) {
    /* Clinger's fast path: both operands exact, one correctly rounded op */
    v = (double)mant;
    v = exp10 < 0 ? v / s_pow10[-exp10] : v * s_pow10[exp10];
    if (neg) v = -v;
  } else {
    char tmp[S_MAX_NUM + 1];
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    v = strtod_l(tmp, NULL, s_c());
  }
  /* FontForge keeps coordinates in floats: anything beyond is not a font */
  if (!isfinite(v) || fabs(v) > FLT_MAX) return -1;
  *out = v;
  return (int)len;
}

int ens__sfd_parse_int(const char *s, const char *end, int64_t *out) {
  const char *p = s;
  int neg = 0;
  if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
  if (p >= end || !s_digit(*p)) return 0;
  uint64_t v = 0;
  while (p < end && s_digit(*p)) {
    if (v > (UINT64_C(1) << 62)) return -1;
    v = v * 10 + (uint64_t)(*p - '0');
    p++;
  }
  if (p - s > S_MAX_NUM || v > (uint64_t)INT64_MAX) return -1;
  *out = neg ? -(int64_t)v : (int64_t)v;
  return (int)(p - s);
}

size_t ens__sfd_fmt_int(char *buf, int64_t v) {
  char tmp[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  size_t k = 0;
  if (v < 0) buf[k++] = '-';
  while (n) buf[k++] = tmp[--n];
  buf[k] = '\0';
  return k;
}

/* What "%.6g" prints for a v of 0.001 <= |v| < 1e6 that is not whole,
 * when that text reads back as v; 0 otherwise. A decimal of at most six
 * significant digits that reads back as v lies within half an ulp of it,
 * far closer than the 10^-6 relative spacing of such decimals, so it is
 * the one %.6g rounds v to (trailing zeros dropped, as %g drops them). */
static size_t s_fmt_short(char *buf, double v) {
  double a = fabs(v);
  if (!(a >= 1e-3 && a < 1e6)) return 0;
  int intdigits = 0; /* of the whole part; for a < 1, minus the zeros after the point */
  if (a >= 1) {
    for (double p = 1; p <= a; p *= 10) intdigits++;
  } else {
    for (double p = 0.1; a < p; p /= 10) intdigits--;
  }
  for (int k = 1; k <= 6 - intdigits; k++) {
    int64_t m = llround(a * s_pow10[k]);
    if (m % 10 == 0) continue; /* its last digit would be a trailing zero: a shorter k says it */
    char tmp[32];
    size_t n = 0;
    if (v < 0) tmp[n++] = '-';
    n += ens__sfd_fmt_int(tmp + n, m / (int64_t)s_pow10[k]);
    tmp[n++] = '.';
    int64_t frac = m % (int64_t)s_pow10[k];
    for (int i = k - 1; i >= 0; i--) {
      tmp[n + (size_t)i] = (char)('0' + frac % 10);
      frac /= 10;
    }
    n += (size_t)k;
    double back;
    if (ens__sfd_parse_real(tmp, tmp + n, &back) == (int)n && back == v) {
      memcpy(buf, tmp, n);
      buf[n] = '\0';
      return n;
    }
  }
  return 0;
}

size_t ens__sfd_fmt_real(char *buf, double v) {
  /* the common case, whole numbers that %g prints without an exponent */
  if (v == floor(v) && fabs(v) < 1e6) {
    if (v == 0 && signbit(v)) {
      memcpy(buf, "-0", 3);
      return 2;
    }
    return ens__sfd_fmt_int(buf, (int64_t)v);
  }
  /* then short fractions (403.5, 0.25): printf's exact conversion is slow */
  size_t short_n = s_fmt_short(buf, v);
  if (short_n) return short_n;
  locale_t old = uselocale(s_c());
  int n = 0;
  for (int prec = 6; prec <= 17; prec++) {
    n = snprintf(buf, 32, "%.*g", prec, v);
    double back;
    if (n > 0 && ens__sfd_parse_real(buf, buf + n, &back) == n && back == v) break;
  }
  uselocale(old);
  return n > 0 ? (size_t)n : 0;
}
