/* SFD text: which structural word starts a line, how far an entry (a line
 * or a block such as TtInstrs: .. EndTTInstrs) reaches, and FontForge's
 * UTF-7 for names and comments. The reader and the writer both cut text
 * with these, so they always agree on where entries begin and end. */
#include <string.h>

#include "sfd_int.h"

typedef struct {
  const char *w;
  uint8_t len;
  uint8_t word;
} s_wordspec;

#define W(s, k) {s, sizeof(s) - 1, k}
/* By first letter, so that a line is checked against a few words at most. */
static const s_wordspec s_w_a[] = {W("AnchorPoint:", S_W_ANCHOR)};
static const s_wordspec s_w_b[] = {W("Back", S_W_BACK), W("BeginChars:", S_W_BEGINCHARS)};
static const s_wordspec s_w_e[] = {W("EndChar", S_W_ENDCHAR), W("EndSplineSet", S_W_ENDSPLINESET),
                                   W("EndChars", S_W_ENDCHARS), W("EndSplineFont", S_W_ENDSPLINEFONT)};
static const s_wordspec s_w_f[] = {W("Fore", S_W_FORE), W("FillGradient:", S_W_LAYERDATA),
                                   W("FillPattern:", S_W_LAYERDATA)};
static const s_wordspec s_w_i[] = {W("Image:", S_W_LAYERDATA), W("Image2:", S_W_LAYERDATA)};
static const s_wordspec s_w_k[] = {W("Kerns2:", S_W_KERNS2)};
static const s_wordspec s_w_l[] = {W("Layer:", S_W_LAYER)};
static const s_wordspec s_w_n[] = {W("NamedP:", S_W_NAMEDP), W("Named:", S_W_CONTOURTAIL)};
static const s_wordspec s_w_p[] = {W("PickledData:", S_W_LAYERDATA), W("PickledDataWithLists:", S_W_LAYERDATA),
                                   W("PathFlags:", S_W_CONTOURTAIL), W("PathStart:", S_W_CONTOURTAIL)};
static const s_wordspec s_w_r[] = {W("Refer:", S_W_REFER), W("Ref:", S_W_REF)};
static const s_wordspec s_w_s[] = {W("StartChar:", S_W_STARTCHAR), W("SplineSet", S_W_SPLINESET),
                                   W("StrokeGradient:", S_W_LAYERDATA), W("StrokePattern:", S_W_LAYERDATA),
                                   W("Spiro", S_W_CONTOURTAIL)};
static const s_wordspec s_w_v[] = {W("VKerns2:", S_W_VKERNS2), W("Validated:", S_W_LAYERDATA)};
#define L(c, arr) [c - 'A'] = {arr, sizeof arr / sizeof arr[0]}
static const struct {
  const s_wordspec *w;
  size_t n;
} s_words[26] = {L('A', s_w_a), L('B', s_w_b), L('E', s_w_e), L('F', s_w_f), L('I', s_w_i), L('K', s_w_k),
                 L('L', s_w_l), L('N', s_w_n), L('P', s_w_p), L('R', s_w_r), L('S', s_w_s), L('V', s_w_v)};

int ens__sfd_word(const char *s, size_t n) {
  /* point lines are most lines: know them by their first character */
  size_t i0 = 0;
  while (i0 < n && s[i0] == ' ') i0++;
  if (i0 < n) {
    char c0 = s[i0];
    if ((c0 >= '0' && c0 <= '9') || c0 == '-') return S_W_NUMBER;
    if (c0 >= 'a' && c0 <= 'z') return S_W_OTHER; /* every structural word is capitalised */
  }
  const char *t;
  size_t tn = ens__sfd_token(s, n, &t);
  if (tn == 0) return S_W_BLANK;
  char c = t[0];
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') return S_W_NUMBER;
  if (c < 'A' || c > 'Z') return S_W_OTHER;
  const s_wordspec *w = s_words[c - 'A'].w;
  for (size_t i = 0, k = s_words[c - 'A'].n; i < k; i++)
    if (w[i].len == tn && memcmp(w[i].w, t, tn) == 0) return w[i].word;
  return S_W_OTHER;
}

/* Blocks: a first token and the token of the line that ends the block,
 * by the first letter of the first token. */
typedef struct {
  const char *start;
  const char *end;
  uint8_t slen, elen;
} s_block;

#define K(s, e) {s, e, sizeof(s) - 1, sizeof(e) - 1}
static const s_block s_b_b[] = {K("BeginPrivate:", "EndPrivate"), K("BitmapFont:", "EndBitmapFont")};
static const s_block s_b_c[] = {K("ChainSub2:", "EndFPST"),   K("ChainPos2:", "EndFPST"), K("ContextSub2:", "EndFPST"),
                                K("ContextPos2:", "EndFPST"), K("ChainSub:", "EndFPST"),  K("ChainPos:", "EndFPST"),
                                K("ContextSub:", "EndFPST"),  K("ContextPos:", "EndFPST")};
static const s_block s_b_g[] = {K("Grid", "EndSplineSet")};
static const s_block s_b_i[] = {K("Image:", "EndImage"), K("Image2:", "EndImage")};
static const s_block s_b_m[] = {K("MacIndic2:", "EndASM"),      K("MacContext2:", "EndASM"), K("MacLigature2:", "EndASM"),
                                K("MacSimple2:", "EndASM"),     K("MacInsert2:", "EndASM"),  K("MacKern2:", "EndASM"),
                                K("MacIndic:", "EndASM"),       K("MacContext:", "EndASM"),  K("MacLigature:", "EndASM"),
                                K("MacSimple:", "EndASM"),      K("MacInsert:", "EndASM"),   K("MacKern:", "EndASM"),
                                K("MMCDV:", "EndMMSubroutine"), K("MMNDV:", "EndMMSubroutine")};
static const s_block s_b_r[] = {K("ReverseChain2:", "EndFPST"), K("ReverseChain:", "EndFPST")};
static const s_block s_b_s[] = {K("ShortTable:", "EndShort"), K("Spiro", "EndSpiro")};
static const s_block s_b_t[] = {K("TtInstrs:", "EndTTInstrs"), K("TtTable:", "EndTTInstrs"), K("TtfInstrs:", "EndTtf"),
                                K("TtfTable:", "EndTtf")};
static const s_block s_b_u[] = {K("UndoRedoHistory", "EndUndoRedoHistory")};
#define KL(c, arr) [c - 'A'] = {arr, sizeof arr / sizeof arr[0]}
static const struct {
  const s_block *b;
  size_t n;
} s_blocks[26] = {KL('B', s_b_b), KL('C', s_b_c), KL('G', s_b_g), KL('I', s_b_i), KL('M', s_b_m),
                  KL('R', s_b_r), KL('S', s_b_s), KL('T', s_b_t), KL('U', s_b_u)};

/* A quoted value that may run over lines (PickledData): the entry ends
 * with the line of the closing quote. */
static size_t s_quoted(const char *p, const char *end, const ens__sfd_line *first, uint32_t *lines) {
  const char *q = memchr(first->s, '"', first->n);
  if (!q) return (size_t)(first->next - p);
  uint32_t nl = 1;
  for (q++; q < end; q++) {
    if (*q == '\\') {
      if (q + 1 < end && q[1] == '\n') nl++;
      q++;
      continue;
    }
    if (*q == '\n') nl++;
    if (*q == '"') {
      ens__sfd_line last;
      const char *ls = q;
      while (ls > p && ls[-1] != '\n') ls--;
      ens__sfd_line_at(ls, end, &last);
      *lines = nl;
      return (size_t)(last.next - p);
    }
  }
  return 0;
}

size_t ens__sfd_entry(const char *p, const char *end, uint32_t *lines) {
  ens__sfd_line ln;
  ens__sfd_line_at(p, end, &ln);
  return ens__sfd_entry_at(p, end, &ln, lines);
}

size_t ens__sfd_entry_at(const char *p, const char *end, const ens__sfd_line *first, uint32_t *lines) {
  ens__sfd_line ln = *first;
  *lines = 1;
  const char *t;
  size_t tn = ens__sfd_token(ln.s, ln.n, &t);
  if (tn == 0) return (size_t)(ln.next - p);
  char c = t[0];
  if (c == 'P' && ((tn == 12 && memcmp(t, "PickledData:", 12) == 0) ||
                   (tn == 21 && memcmp(t, "PickledDataWithLists:", 21) == 0)))
    return s_quoted(p, end, &ln, lines);
  const s_block *bl = c >= 'A' && c <= 'Z' ? s_blocks[c - 'A'].b : NULL;
  size_t nb = bl ? s_blocks[c - 'A'].n : 0;
  for (size_t i = 0; i < nb; i++) {
    /* lengths first: a NUL inside the token must not end a comparison early */
    if (bl[i].slen != tn || memcmp(t, bl[i].start, tn) != 0) continue;
    const char *q = ln.next;
    uint32_t n = 1;
    while (q < end) {
      ens__sfd_line l2;
      ens__sfd_line_at(q, end, &l2);
      n++;
      const char *t2;
      size_t tn2 = ens__sfd_token(l2.s, l2.n, &t2);
      if (tn2 == bl[i].elen && memcmp(t2, bl[i].end, tn2) == 0) {
        *lines = n;
        return (size_t)(l2.next - p);
      }
      q = l2.next;
    }
    return 0;
  }
  /* FontForge breaks long lines with a backslash before the newline */
  const char *q = ln.next;
  while (ln.n && ln.s[ln.n - 1] == '\\' && q < end) {
    ens__sfd_line_at(q, end, &ln);
    (*lines)++;
    q = ln.next;
  }
  return (size_t)(q - p);
}

/* --- UTF-7 ------------------------------------------------------------------- */

static const char s_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int s_b64val(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

static void s_put_utf8(ens_buf *out, uint32_t c) {
  unsigned char b[4];
  size_t n;
  if (c < 0x80) { b[0] = (unsigned char)c; n = 1; }
  else if (c < 0x800) { b[0] = (unsigned char)(0xc0 | (c >> 6)); b[1] = (unsigned char)(0x80 | (c & 0x3f)); n = 2; }
  else if (c < 0x10000) {
    b[0] = (unsigned char)(0xe0 | (c >> 12));
    b[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
    b[2] = (unsigned char)(0x80 | (c & 0x3f));
    n = 3;
  } else {
    b[0] = (unsigned char)(0xf0 | (c >> 18));
    b[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
    b[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
    b[3] = (unsigned char)(0x80 | (c & 0x3f));
    n = 4;
  }
  ens__buf_append(out, b, n);
}

/* A UTF-16 unit from the base64 stream: pairs surrogates, refuses strays. */
static int s_unit(ens_buf *out, uint32_t u, uint32_t *high) {
  if (u >= 0xd800 && u < 0xdc00) {
    if (*high) return -1;
    *high = u;
    return 0;
  }
  if (u >= 0xdc00 && u < 0xe000) {
    if (!*high) return -1;
    s_put_utf8(out, 0x10000 + ((*high - 0xd800) << 10) + (u - 0xdc00));
    *high = 0;
    return 0;
  }
  if (*high) return -1;
  if (u) s_put_utf8(out, u);
  return 0;
}

int ens__sfd_utf7_decode(const char *s, const char *end, size_t *used, ens_buf *out) {
  if (s >= end || *s != '"') return -1;
  const unsigned char *p = (const unsigned char *)s + 1, *e = (const unsigned char *)end;
  int in = 0, prev_cnt = 0;
  uint32_t prev = 0, high = 0;
  while (p < e && *p != '"') {
    unsigned char c = *p++;
    if (c == '\n' || c == '\r') return -1;
    if (!in) {
      if (c != '+') {
        s_put_utf8(out, c); /* FontForge reads a stray byte as a Latin-1 code point */
        continue;
      }
      if (p < e && *p == '-') {
        p++;
        ens__buf_putc(out, '+');
        continue;
      }
      in = 1;
      prev_cnt = 0;
      if (p >= e) break;
      c = *p++;
    }
    if (c == '-') {
      in = 0;
      continue;
    }
    int v1 = s_b64val(c);
    if (v1 < 0) {
      in = 0;
      if (c == '"') { p--; break; }
      s_put_utf8(out, c);
      continue;
    }
    int v[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
      int x = p < e ? s_b64val(*p) : -1;
      if (x < 0) break;
      v[k] = x;
      p++;
    }
    uint32_t g = ((uint32_t)v1 << 18) | ((uint32_t)v[0] << 12) | ((uint32_t)v[1] << 6) | (uint32_t)v[2];
    if (prev_cnt == 0) {
      prev = g & 0xff;
      if (s_unit(out, g >> 8, &high)) return -1;
      prev_cnt = 1;
    } else {
      uint32_t w = g | (prev << 24);
      if (s_unit(out, (w >> 16) & 0xffff, &high) || s_unit(out, w & 0xffff, &high)) return -1;
      prev_cnt = 0;
    }
  }
  if (p >= e || *p != '"' || high) return -1;
  *used = (size_t)((const char *)p + 1 - s);
  return 0;
}

static void s_emit4(ens_buf *out, uint32_t v) {
  char b[4] = {s_b64[(v >> 18) & 63], s_b64[(v >> 12) & 63], s_b64[(v >> 6) & 63], s_b64[v & 63]};
  ens__buf_append(out, b, 4);
}

/* Next code point of UTF-8 text (invalid bytes read as Latin-1). */
static uint32_t s_next_cp(const unsigned char **pp, const unsigned char *e) {
  const unsigned char *p = *pp;
  uint32_t c = *p++;
  int more = c >= 0xf0 && c < 0xf8 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
  if (c >= 0x80 && more && p + more <= e) {
    uint32_t cp = c & (0x3f >> more);
    int ok = 1;
    for (int i = 0; i < more; i++) {
      if ((p[i] & 0xc0) != 0x80) ok = 0;
      cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (ok) {
      *pp = p + more;
      return cp;
    }
  }
  *pp = p;
  return c;
}

void ens__sfd_utf7_encode(const char *s, size_t n, ens_buf *out) {
  const unsigned char *p = (const unsigned char *)s, *e = p + n;
  int prev_cnt = 0, in = 0;
  uint32_t prev = 0;
  ens__buf_putc(out, '"');
  uint32_t pending_low = 0;
  while (p < e || pending_low) {
    uint32_t ch;
    if (pending_low) {
      ch = pending_low;
      pending_low = 0;
    } else {
      ch = s_next_cp(&p, e);
      if (ch > 0xffff) { /* a surrogate pair, as standard UTF-7 writes it */
        pending_low = 0xdc00 + ((ch - 0x10000) & 0x3ff);
        ch = 0xd800 + ((ch - 0x10000) >> 10);
      }
    }
    if (ch < 127 && ch != '\n' && ch != '\r' && ch != '\\' && ch != '~' && ch != '+' && ch != '=' && ch != '"') {
      if (prev_cnt) {
        prev <<= prev_cnt == 1 ? 16 : 8;
        s_emit4(out, prev);
        prev_cnt = 0;
        prev = 0;
      }
      if (in) {
        if (s_b64val((unsigned char)ch) >= 0 || ch == '-') ens__buf_putc(out, '-');
        in = 0;
      }
      ens__buf_putc(out, (unsigned char)ch);
    } else if (ch == '+' && !in) {
      ens__buf_append(out, "+-", 2);
    } else if (prev_cnt == 0) {
      if (!in) {
        ens__buf_putc(out, '+');
        in = 1;
      }
      prev = ch;
      prev_cnt = 2;
    } else if (prev_cnt == 2) {
      prev = (prev << 8) | ((ch >> 8) & 0xff);
      s_emit4(out, prev);
      prev = ch & 0xff;
      prev_cnt = 1;
    } else {
      prev = (prev << 16) | ch;
      s_emit4(out, prev);
      prev_cnt = 0;
      prev = 0;
    }
  }
  if (prev_cnt == 2) s_emit4(out, prev << 8);
  else if (prev_cnt == 1) s_emit4(out, prev << 16);
  ens__buf_putc(out, '"');
}
