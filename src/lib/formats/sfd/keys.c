/* The lines the SFD reader models as properties: keyed lines of the font
 * header and of glyphs (tables), point, reference, anchor and kerning
 * lines; each with a parser and a printer in FontForge's style, so that
 * reading what the printer wrote gives back the same values. */
#include <stdlib.h>
#include <string.h>

#include "sfd_int.h"

const char *const ens__sfd_kind_names[S_NKINDS] = {ENS_SFD_KIND,  ENS_SFD_GLYPH,  ENS_SFD_LAYER,
                                                   ENS_SFD_CONTOUR, ENS_SFD_POINT, ENS_SFD_REF,
                                                   ENS_SFD_ANCHOR, ENS_SFD_KERN,   ENS_SFD_RAW};

static const char *const s_fixed_names[S_K_ROOT] = {
    "~head", "~tail", "~text", "~ln", "~file", "~dir",
    "name", "encoding", "unicode", "gid", "width", "vwidth", "flags", "glyphclass",
    "altuni", "hstem", "vstem", "dstem2", "comment", "colour",
    "index",
    "x", "y", "c1x", "c1y", "c2x", "c2y", "type", "extra", "ttf", "nextcp",
    "glyph", "xx", "xy", "yx", "yy", "dx", "dy", "selected",
    "class", "lig",
    "offset", "subtable", "device", "vertical"};

#define G(w, vt, k) {w, sizeof(w) - 1, vt, k}
/* Table order is the order new lines are written in (FontForge's). */
const ens__sfd_keyspec ens__sfd_glyph_keys[] = {
    G("StartChar:", S_V_NAME, S_K_NAME),   G("Encoding:", S_V_ENC, S_K_ENCODING), G("AltUni2:", S_V_STR, S_K_ALTUNI),
    G("Width:", S_V_INT, S_K_WIDTH),       G("VWidth:", S_V_INT, S_K_VWIDTH),     G("GlyphClass:", S_V_INT, S_K_GLYPHCLASS),
    G("Flags:", S_V_STR, S_K_FLAGS),       G("HStem:", S_V_STR, S_K_HSTEM),       G("VStem:", S_V_STR, S_K_VSTEM),
    G("DStem2:", S_V_STR, S_K_DSTEM2),     G("Comment:", S_V_UTF7, S_K_COMMENT),  G("Colour:", S_V_HEX, S_K_COLOUR),
};
const size_t ens__sfd_glyph_nkeys = sizeof ens__sfd_glyph_keys / sizeof ens__sfd_glyph_keys[0];

/* Header lines with one value each; the property is named after the word.
 * Everything else in the header is kept as text. */
#define R(w, vt) {w ":", sizeof(w ":") - 1, vt, -1}
const ens__sfd_keyspec ens__sfd_root_keys[] = {
    R("SplineFontDB", S_V_STR),
    R("FontName", S_V_STR),
    R("FullName", S_V_STR),
    R("FamilyName", S_V_STR),
    R("DefaultBaseFilename", S_V_STR),
    R("Weight", S_V_STR),
    R("Copyright", S_V_STR),
    R("Comments", S_V_STR),
    R("UComments", S_V_STR),
    R("FontLog", S_V_STR),
    R("Version", S_V_STR),
    R("sfntRevision", S_V_STR),
    R("ItalicAngle", S_V_REAL),
    R("UnderlinePosition", S_V_REAL),
    R("UnderlineWidth", S_V_REAL),
    R("Ascent", S_V_INT),
    R("Descent", S_V_INT),
    R("InvalidEm", S_V_INT),
    R("StrokeWidth", S_V_REAL),
    R("WidthSeparation", S_V_INT),
    R("UniqueID", S_V_INT),
    R("UseUniqueID", S_V_INT),
    R("UseXUID", S_V_INT),
    R("XUID", S_V_STR),
    R("FSType", S_V_INT),
    R("OS2Version", S_V_INT),
    R("OS2_WeightWidthSlopeOnly", S_V_INT),
    R("OS2_UseTypoMetrics", S_V_INT),
    R("CreationTime", S_V_INT),
    R("ModificationTime", S_V_INT),
    R("PfmFamily", S_V_INT),
    R("TTFWeight", S_V_INT),
    R("TTFWidth", S_V_INT),
    R("LineGap", S_V_INT),
    R("VLineGap", S_V_INT),
    R("Panose", S_V_STR),
    R("OS2TypoAscent", S_V_INT),
    R("OS2TypoAOffset", S_V_INT),
    R("OS2TypoDescent", S_V_INT),
    R("OS2TypoDOffset", S_V_INT),
    R("OS2TypoLinegap", S_V_INT),
    R("OS2WinAscent", S_V_INT),
    R("OS2WinAOffset", S_V_INT),
    R("OS2WinDescent", S_V_INT),
    R("OS2WinDOffset", S_V_INT),
    R("HheadAscent", S_V_INT),
    R("HheadAOffset", S_V_INT),
    R("HheadDescent", S_V_INT),
    R("HheadDOffset", S_V_INT),
    R("OS2SubXSize", S_V_INT),
    R("OS2SubYSize", S_V_INT),
    R("OS2SubXOff", S_V_INT),
    R("OS2SubYOff", S_V_INT),
    R("OS2SupXSize", S_V_INT),
    R("OS2SupYSize", S_V_INT),
    R("OS2SupXOff", S_V_INT),
    R("OS2SupYOff", S_V_INT),
    R("OS2StrikeYSize", S_V_INT),
    R("OS2StrikeYPos", S_V_INT),
    R("OS2CapHeight", S_V_INT),
    R("OS2XHeight", S_V_INT),
    R("OS2FamilyClass", S_V_INT),
    R("OS2Vendor", S_V_STR),
    R("OS2CodePages", S_V_STR),
    R("OS2UnicodeRanges", S_V_STR),
    R("MacStyle", S_V_INT),
    R("DEI", S_V_INT),
    R("TeXData", S_V_STR),
    R("GaspTable", S_V_STR),
    R("DesignSize", S_V_STR),
    R("woffMajor", S_V_INT),
    R("woffMinor", S_V_INT),
    R("woffMetadata", S_V_STR),
    R("UFOAscent", S_V_REAL),
    R("UFODescent", S_V_REAL),
    R("Encoding", S_V_STR),
    R("UnicodeInterp", S_V_STR),
    R("NameList", S_V_STR),
    R("Order2", S_V_INT),
    R("OnlyBitmaps", S_V_INT),
    R("DisplaySize", S_V_INT),
    R("DisplayLayer", S_V_INT),
    R("AntiAlias", S_V_INT),
    R("FitToEm", S_V_INT),
    R("WinInfo", S_V_STR),
    R("ExtremaBound", S_V_INT),
};
const size_t ens__sfd_root_nkeys = sizeof ens__sfd_root_keys / sizeof ens__sfd_root_keys[0];

/* Root key names without the colon, made once. */
static char s_root_names[sizeof ens__sfd_root_keys / sizeof ens__sfd_root_keys[0]][32];

const char *ens__sfd_key_name(int k) {
  if (k < S_K_ROOT) return s_fixed_names[k];
  char *n = s_root_names[k - S_K_ROOT];
  if (!n[0]) { /* idempotent: concurrent first calls write the same bytes */
    const ens__sfd_keyspec *ks = &ens__sfd_root_keys[k - S_K_ROOT];
    memcpy(n, ks->word, (size_t)ks->wlen - 1);
    n[ks->wlen - 1] = '\0';
  }
  return n;
}

int ens__sfd_key_count(void) { return S_K_ROOT + (int)ens__sfd_root_nkeys; }

const ens__sfd_keyspec *ens__sfd_find_key(const ens__sfd_keyspec *table, size_t nkeys, const char *s, size_t n) {
  const char *t;
  size_t tn = ens__sfd_token(s, n, &t);
  if (tn == 0 || t != s) return NULL; /* keyed lines start at the margin */
  for (size_t i = 0; i < nkeys; i++)
    if (table[i].wlen == tn && table[i].word[0] == t[0] && memcmp(table[i].word, t, tn) == 0) return &table[i];
  return NULL;
}

/* --- small readers ----------------------------------------------------------- */

static const char *s_skip(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\t')) p++;
  return p;
}

static int s_only_blanks(const char *p, const char *e) { return s_skip(p, e) == e; }

/* An integer at *pp after blanks; advances. 0 on success. */
static int s_int(const char **pp, const char *e, int64_t *v, const char **why) {
  const char *p = s_skip(*pp, e);
  int k = ens__sfd_parse_int(p, e, v);
  if (k <= 0) {
    *why = k < 0 ? "number out of range" : "a number was expected";
    return -1;
  }
  *pp = p + k;
  return 0;
}

static int s_real(const char **pp, const char *e, double *v, const char **why) {
  const char *p = s_skip(*pp, e);
  int k = ens__sfd_parse_real(p, e, v);
  if (k <= 0) {
    *why = k < 0 ? "number out of range" : "a number was expected";
    return -1;
  }
  *pp = p + k;
  return 0;
}

/* A number must end at a blank or the end of the line. */
static int s_end_of_num(const char *p, const char *e, const char **why) {
  if (p < e && *p != ' ' && *p != '\t') {
    *why = "garbage after a number";
    return -1;
  }
  return 0;
}

static int s_int_in(int64_t v, int64_t lo, int64_t hi, const char **why) {
  if (v < lo || v > hi) {
    *why = "number out of range";
    return -1;
  }
  return 0;
}

#define S_I32 ((int64_t)0x7fffffff)

int ens__sfd_key_parse(const ens__sfd_keyspec *spec, const char *s, size_t n, ens__sfd_val *vals, int *nvals,
                       ens_buf *scratch, const char **why) {
  const char *e = s + n;
  const char *p = s + spec->wlen; /* keyed lines start at the margin */
  *nvals = 0;
  memset(vals, 0, 3 * sizeof *vals);
  switch (spec->vt) {
  case S_V_STR:
    if (p < e && *p == ' ') p++;
    vals[0].v = ens_strn(p, (size_t)(e - p));
    *nvals = 1;
    return 0;
  case S_V_INT: {
    int64_t v;
    if (s_int(&p, e, &v, why) || !s_only_blanks(p, e)) {
      if (!*why) *why = "garbage after a number";
      return -1;
    }
    /* times are seconds since 1970 and may pass 2^31; the rest are C ints */
    int wide = spec->word[0] == 'C' || spec->word[0] == 'M';
    if (!wide && s_int_in(v, -S_I32 - 1, S_I32, why)) return -1;
    vals[0].v = ens_int(v);
    *nvals = 1;
    return 0;
  }
  case S_V_REAL: {
    double v;
    if (s_real(&p, e, &v, why)) return -1;
    if (!s_only_blanks(p, e)) {
      *why = "garbage after a number";
      return -1;
    }
    vals[0].v = ens_real(v);
    *nvals = 1;
    return 0;
  }
  case S_V_HEX: {
    p = s_skip(p, e);
    uint64_t v = 0;
    int nd = 0;
    while (p < e && nd <= 8) {
      char c = *p;
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) break;
      v = v * 16 + (uint64_t)d;
      nd++;
      p++;
    }
    if (nd == 0 || nd > 8 || !s_only_blanks(p, e)) {
      *why = "a hexadecimal number was expected";
      return -1;
    }
    vals[0].v = ens_int((int64_t)v);
    *nvals = 1;
    return 0;
  }
  case S_V_UTF7:
  case S_V_NAME: {
    p = s_skip(p, e);
    if (p < e && *p == '"') {
      size_t used, off = scratch->len;
      if (ens__sfd_utf7_decode(p, e, &used, scratch) != 0 || !s_only_blanks(p + used, e)) {
        scratch->len = off;
        *why = "bad UTF-7 string";
        return -1;
      }
      vals[0].v = ens_strn((const char *)(uintptr_t)off, scratch->len - off);
      vals[0].in_scratch = 1;
    } else if (spec->vt == S_V_NAME) {
      const char *t = p;
      while (p < e && *p != ' ' && *p != '\t') p++;
      if (p == t || !s_only_blanks(p, e)) {
        *why = "a glyph name was expected";
        return -1;
      }
      vals[0].v = ens_strn(t, (size_t)(p - t));
    } else {
      *why = "a quoted string was expected";
      return -1;
    }
    *nvals = 1;
    return 0;
  }
  case S_V_ENC: {
    int64_t a, b, c;
    if (s_int(&p, e, &a, why) || s_end_of_num(p, e, why) || s_int(&p, e, &b, why) || s_end_of_num(p, e, why))
      return -1;
    if (s_int_in(a, -S_I32 - 1, S_I32, why) || s_int_in(b, -S_I32 - 1, S_I32, why)) return -1;
    vals[0].v = ens_int(a);
    vals[1].v = ens_int(b);
    *nvals = 2;
    if (!s_only_blanks(p, e)) {
      if (s_int(&p, e, &c, why) || !s_only_blanks(p, e) || s_int_in(c, -S_I32 - 1, S_I32, why)) {
        if (!*why) *why = "garbage after a number";
        return -1;
      }
      vals[2].v = ens_int(c);
      *nvals = 3;
    }
    return 0;
  }
  case S_V_MARK: {
    const char *t;
    size_t tn = ens__sfd_token(s, n, &t);
    if (tn == 4 && memcmp(t, "Fore", 4) == 0) vals[0].v = ens_int(1);
    else if (tn == 4 && memcmp(t, "Back", 4) == 0) vals[0].v = ens_int(0);
    else {
      int64_t v;
      p = t + tn;
      if (s_int(&p, e, &v, why) || s_end_of_num(p, e, why) || s_int_in(v, 0, 65535, why)) return -1;
      vals[0].v = ens_int(v);
    }
    *nvals = 1;
    return 0;
  }
  }
  *why = "unknown line";
  return -1;
}

static void s_put_int(ens_buf *out, int64_t v) {
  char b[32];
  ens__buf_append(out, b, ens__sfd_fmt_int(b, v));
}

static void s_put_real(ens_buf *out, double v) {
  char b[40];
  ens__buf_append(out, b, ens__sfd_fmt_real(b, v));
}

/* A glyph name is written bare when it is plain ASCII without blanks or
 * quotes, else quoted in UTF-7 (as FontForge does for non-ASCII names);
 * quoted too when it ends with a backslash, which would continue the line. */
static void s_put_name(ens_buf *out, const char *s, size_t n) {
  int plain = n > 0 && s[n - 1] != '\\';
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c <= ' ' || c >= 0x7f || c == '"') plain = 0;
  }
  if (plain) ens__buf_append(out, s, n);
  else ens__sfd_utf7_encode(s, n, out);
}

void ens__sfd_key_format(const ens__sfd_keyspec *spec, const ens_value *vals, int nvals, ens_buf *out) {
  if (spec->vt == S_V_MARK) {
    int64_t i = vals[0].type == ENS_INT ? vals[0].u.i : 1;
    if (i == 1) ens__buf_append(out, "Fore", 4);
    else if (i == 0) ens__buf_append(out, "Back", 4);
    else {
      ens__buf_append(out, "Layer: ", 7);
      s_put_int(out, i);
    }
    return;
  }
  ens__buf_append(out, spec->word, spec->wlen);
  ens__buf_putc(out, ' ');
  const ens_value *v = &vals[0];
  switch (spec->vt) {
  case S_V_STR:
    if (v->type == ENS_STR || v->type == ENS_BYTES) ens__buf_append(out, v->u.s.ptr, v->u.s.len);
    else if (v->type == ENS_INT) s_put_int(out, v->u.i);
    else if (v->type == ENS_REAL) s_put_real(out, v->u.r);
    break;
  case S_V_INT:
    if (v->type == ENS_REAL) s_put_int(out, (int64_t)v->u.r);
    else s_put_int(out, v->type == ENS_INT ? v->u.i : v->type == ENS_BOOL ? v->u.b : 0);
    break;
  case S_V_REAL:
    s_put_real(out, v->type == ENS_REAL ? v->u.r : v->type == ENS_INT ? (double)v->u.i : 0);
    break;
  case S_V_HEX: {
    char b[24];
    int k = 0;
    uint64_t u = v->type == ENS_INT ? (uint64_t)v->u.i & 0xffffffffu : 0;
    char tmp[16];
    do {
      tmp[k++] = "0123456789abcdef"[u & 15];
      u >>= 4;
    } while (u);
    for (int i = 0; i < k; i++) b[i] = tmp[k - 1 - i];
    ens__buf_append(out, b, (size_t)k);
    break;
  }
  case S_V_UTF7:
    if (v->type == ENS_STR || v->type == ENS_BYTES) ens__sfd_utf7_encode(v->u.s.ptr, v->u.s.len, out);
    else ens__buf_append(out, "\"\"", 2);
    break;
  case S_V_NAME:
    if (v->type == ENS_STR || v->type == ENS_BYTES) s_put_name(out, v->u.s.ptr, v->u.s.len);
    break;
  case S_V_ENC:
    for (int i = 0; i < nvals && i < 3; i++) {
      if (i) ens__buf_putc(out, ' ');
      s_put_int(out, vals[i].type == ENS_INT ? vals[i].u.i : -1);
    }
    break;
  }
}

/* --- points --------------------------------------------------------------------- */

int ens__sfd_parse_point(const char *s, size_t n, ens__sfd_point *pt, const char **why) {
  const char *e = s + n, *p = s;
  double v[6];
  int nv = 0;
  for (;;) {
    p = s_skip(p, e);
    if (p >= e) {
      *why = "a point line ends early";
      return -1;
    }
    if (*p == 'm' || *p == 'l' || *p == 'c') break;
    if (nv == 6) {
      *why = "a point line has too many numbers";
      return -1;
    }
    if (s_real(&p, e, &v[nv], why) || s_end_of_num(p, e, why)) return -1;
    nv++;
  }
  pt->seg = *p++;
  if ((pt->seg == 'c') != (nv == 6) || (pt->seg != 'c' && nv != 2) || (p < e && *p != ' ' && *p != '\t')) {
    *why = "a point line has the wrong count of numbers";
    return -1;
  }
  if (pt->seg == 'c') {
    memcpy(pt->c, v, 4 * sizeof(double));
    pt->x = v[4];
    pt->y = v[5];
  } else {
    pt->x = v[0];
    pt->y = v[1];
    memset(pt->c, 0, sizeof pt->c);
  }
  const char *q = s_skip(p, e);
  int64_t f;
  int k = ens__sfd_parse_int(q, e, &f);
  if (k < 0 || (k > 0 && (f < 0 || f > 0xffff))) {
    *why = "point flags out of range";
    return -1;
  }
  pt->has_flags = k > 0;
  pt->flags = k > 0 ? f : 0;
  if (k > 0) p = q + k;
  pt->extra = p;
  pt->extra_len = (size_t)(e - p);
  pt->has_ttf = 0;
  /* TrueType point numbers: kept as numbers when they print back the same */
  if (k > 0 && p < e && *p == ',') {
    int64_t a, b;
    const char *r = p + 1;
    int ka = ens__sfd_parse_int(r, e, &a);
    if (ka > 0 && r + ka < e && r[ka] == ',') {
      const char *r2 = r + ka + 1;
      int kb = ens__sfd_parse_int(r2, e, &b);
      char ba[24], bb[24];
      if (kb > 0 && r2 + kb == e && a >= -1 && a <= 0xffff && b >= -1 && b <= 0xffff &&
          ens__sfd_fmt_int(ba, a) == (size_t)ka && memcmp(ba, r, (size_t)ka) == 0 &&
          ens__sfd_fmt_int(bb, b) == (size_t)kb && memcmp(bb, r2, (size_t)kb) == 0) {
        pt->has_ttf = 1;
        pt->ttf = a;
        pt->nextcp = b;
        pt->extra = e;
        pt->extra_len = 0;
      }
    }
  }
  return 0;
}

void ens__sfd_format_point(const ens__sfd_point *pt, int first, ens_buf *out) {
  if (!first) ens__buf_putc(out, ' ');
  if (pt->seg == 'c') {
    for (int i = 0; i < 4; i++) {
      s_put_real(out, pt->c[i]);
      ens__buf_putc(out, ' ');
    }
  }
  s_put_real(out, pt->x);
  ens__buf_putc(out, ' ');
  s_put_real(out, pt->y);
  ens__buf_putc(out, ' ');
  ens__buf_putc(out, (unsigned char)pt->seg);
  if (pt->has_flags) {
    ens__buf_putc(out, ' ');
    s_put_int(out, pt->flags);
  }
  if (pt->has_ttf) {
    ens__buf_putc(out, ',');
    s_put_int(out, pt->ttf);
    ens__buf_putc(out, ',');
    s_put_int(out, pt->nextcp);
  }
  ens__buf_append(out, pt->extra, pt->extra_len);
}

/* --- references ------------------------------------------------------------------- */

/* The keyword and glyph number that start a reference line; *rest is
 * what follows the number. */
static int s_ref_target(const char *s, size_t n, int *is_ref, int64_t *target, const char **rest, const char **why) {
  const char *e = s + n, *t;
  size_t tn = ens__sfd_token(s, n, &t);
  const char *p = t + tn;
  *is_ref = tn == 4;
  if (s_int(&p, e, target, why) || s_end_of_num(p, e, why) || s_int_in(*target, -S_I32 - 1, S_I32, why)) return -1;
  *rest = p;
  return 0;
}

int ens__sfd_parse_ref_target(const char *s, size_t n, int *is_ref, int64_t *target) {
  const char *rest, *why;
  return s_ref_target(s, n, is_ref, target, &rest, &why);
}

int ens__sfd_parse_ref(const char *s, size_t n, ens__sfd_ref *rf, const char **why) {
  const char *e = s + n, *p;
  memset(rf, 0, sizeof *rf);
  if (s_ref_target(s, n, &rf->is_ref, &rf->target, &p, why)) return -1;
  p = s_skip(p, e);
  int64_t u;
  int k = ens__sfd_parse_int(p, e, &u);
  if (k < 0) {
    *why = "number out of range";
    return -1;
  }
  if (k > 0) {
    p += k;
    if (s_end_of_num(p, e, why) || s_int_in(u, -S_I32 - 1, S_I32, why)) return -1;
    rf->has_uni = 1;
    rf->uni = u;
    p = s_skip(p, e);
  }
  if (p >= e || (*p != 'N' && *p != 'S')) {
    *why = "N or S was expected in a reference";
    return -1;
  }
  rf->selected = *p++ == 'S';
  for (int i = 0; i < 6; i++)
    if (s_real(&p, e, &rf->m[i], why) || s_end_of_num(p, e, why)) return -1;
  const char *q = s_skip(p, e);
  int64_t f;
  k = ens__sfd_parse_int(q, e, &f);
  if (k < 0 || (k > 0 && (f < 0 || f > 0xffff))) {
    *why = "reference flags out of range";
    return -1;
  }
  if (k > 0) {
    rf->has_flags = 1;
    rf->flags = f;
    p = q + k;
  }
  rf->extra = p;
  rf->extra_len = (size_t)(e - p);
  return 0;
}

void ens__sfd_format_ref(const ens__sfd_ref *rf, ens_buf *out) {
  ens__buf_puts(out, rf->is_ref ? "Ref: " : "Refer: ");
  s_put_int(out, rf->target);
  ens__buf_putc(out, ' ');
  s_put_int(out, rf->has_uni ? rf->uni : -1);
  ens__buf_putc(out, ' ');
  ens__buf_putc(out, rf->selected ? 'S' : 'N');
  for (int i = 0; i < 6; i++) {
    ens__buf_putc(out, ' ');
    s_put_real(out, rf->m[i]);
  }
  if (rf->has_flags) {
    ens__buf_putc(out, ' ');
    s_put_int(out, rf->flags);
  }
  ens__buf_append(out, rf->extra, rf->extra_len);
}

/* --- anchors -------------------------------------------------------------------- */

int ens__sfd_parse_anchor(const char *s, size_t n, ens__sfd_anchor *ap, ens_buf *scratch, const char **why) {
  const char *e = s + n, *t;
  size_t tn = ens__sfd_token(s, n, &t);
  const char *p = s_skip(t + tn, e);
  size_t used;
  ap->cls_off = scratch->len;
  if (ens__sfd_utf7_decode(p, e, &used, scratch) != 0) {
    scratch->len = ap->cls_off;
    *why = "bad anchor class name";
    return -1;
  }
  ap->cls_len = scratch->len - ap->cls_off;
  p += used;
  if (s_real(&p, e, &ap->x, why) || s_end_of_num(p, e, why) || s_real(&p, e, &ap->y, why) ||
      s_end_of_num(p, e, why))
    return -1;
  p = s_skip(p, e);
  ap->type = p;
  while (p < e && *p != ' ' && *p != '\t') p++;
  ap->type_len = (size_t)(p - ap->type);
  if (ap->type_len == 0) {
    *why = "an anchor type was expected";
    return -1;
  }
  if (s_int(&p, e, &ap->lig, why) || s_end_of_num(p, e, why) || s_int_in(ap->lig, -32768, 32767, why)) return -1;
  ap->extra = p;
  ap->extra_len = (size_t)(e - p);
  return 0;
}

void ens__sfd_format_anchor(const char *cls, size_t cls_len, double x, double y, const char *type, size_t type_len,
                            int64_t lig, const char *extra, size_t extra_len, ens_buf *out) {
  ens__buf_puts(out, "AnchorPoint: ");
  ens__sfd_utf7_encode(cls, cls_len, out);
  ens__buf_putc(out, ' ');
  s_put_real(out, x);
  ens__buf_putc(out, ' ');
  s_put_real(out, y);
  ens__buf_putc(out, ' ');
  ens__buf_append(out, type, type_len);
  ens__buf_putc(out, ' ');
  s_put_int(out, lig);
  ens__buf_append(out, extra, extra_len);
}

/* --- kerning ------------------------------------------------------------------ */

long ens__sfd_parse_kerns(const char *s, size_t n, ens__sfd_kernpair **pairs, size_t *cap, ens_buf *scratch,
                          const char **why) {
  const char *e = s + n, *t;
  size_t tn = ens__sfd_token(s, n, &t);
  const char *p = t + tn;
  long count = 0;
  for (;;) {
    p = s_skip(p, e);
    if (p >= e) break;
    ens__sfd_kernpair kp = {0};
    if (s_int(&p, e, &kp.target, why) || s_end_of_num(p, e, why) || s_int(&p, e, &kp.offset, why) ||
        s_end_of_num(p, e, why) || s_int_in(kp.target, 0, S_I32, why) || s_int_in(kp.offset, -S_I32 - 1, S_I32, why))
      return -1;
    p = s_skip(p, e);
    size_t used;
    kp.sub_off = scratch->len;
    if (ens__sfd_utf7_decode(p, e, &used, scratch) != 0) {
      *why = "bad kerning subtable name";
      return -1;
    }
    kp.sub_len = scratch->len - kp.sub_off;
    p += used;
    const char *q = s_skip(p, e);
    if (q < e && *q == '{') {
      const char *c = memchr(q, '}', (size_t)(e - q));
      if (!c) {
        *why = "unterminated device table";
        return -1;
      }
      kp.device = q;
      kp.device_len = (size_t)(c + 1 - q);
      p = c + 1;
    }
    if ((size_t)count == *cap) {
      size_t nc = *cap ? *cap * 2 : 16;
      ens__sfd_kernpair *np = realloc(*pairs, nc * sizeof *np);
      if (!np) {
        *why = "out of memory";
        return -1;
      }
      *pairs = np;
      *cap = nc;
    }
    (*pairs)[count++] = kp;
  }
  return count;
}
