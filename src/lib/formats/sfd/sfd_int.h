/* Private to the SFD reader and writer: lines and entries of SFD text,
 * numbers the way FontForge prints them, UTF-7, the keyed-line tables and
 * the property keys every file of src/lib/formats/sfd shares. */
#ifndef ENS_FORMATS_SFD_INT_H
#define ENS_FORMATS_SFD_INT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../model/doc.h"
#include "../../util/buf.h"
#include "ensemble/sfd.h"

/* --- property keys ----------------------------------------------------------
 * Fixed keys first, then one per keyed header line of the root table
 * (ens__sfd_root_keys): S_K_ROOT + index. */
enum {
  S_K_HEAD, /* "~head": own text before the first child */
  S_K_TAIL, /* "~tail": own text after the last child */
  S_K_TEXT, /* "~text": a raw object's text, or a contour's whole text */
  S_K_LN,   /* "~ln": a point's index among the point lines of its contour's text */
  S_K_FILE, /* "~file": a glyph's file name in an SFDir */
  S_K_DIR,  /* "~dir": on the root of a document read from an SFDir */
  S_K_NAME, S_K_ENCODING, S_K_UNICODE, S_K_GID, S_K_WIDTH, S_K_VWIDTH, S_K_FLAGS, S_K_GLYPHCLASS,
  S_K_ALTUNI, S_K_HSTEM, S_K_VSTEM, S_K_DSTEM2, S_K_COMMENT, S_K_COLOUR,
  S_K_INDEX,
  S_K_X, S_K_Y, S_K_C1X, S_K_C1Y, S_K_C2X, S_K_C2Y, S_K_TYPE, S_K_EXTRA, S_K_TTF, S_K_NEXTCP,
  S_K_GLYPH, S_K_XX, S_K_XY, S_K_YX, S_K_YY, S_K_DX, S_K_DY, S_K_SELECTED,
  S_K_CLASS, S_K_LIG,
  S_K_OFFSET, S_K_SUBTABLE, S_K_DEVICE, S_K_VERTICAL,
  S_K_ROOT /* first root header key */
};

/* Object kinds, in the order of ens__sfd_kind_names. */
enum { S_ROOT, S_GLYPH, S_LAYER, S_CONTOUR, S_POINT, S_REFK, S_ANCHOR, S_KERN, S_RAW, S_NKINDS };
extern const char *const ens__sfd_kind_names[S_NKINDS];

/* Name of key id k (fixed or root header key). */
const char *ens__sfd_key_name(int k);
int ens__sfd_key_count(void);

/* --- lines and entries ------------------------------------------------------ */

typedef struct {
  const char *s;    /* first byte of the line */
  size_t n;         /* content length, without "\n" or "\r\n" */
  const char *next; /* first byte after the line terminator */
} ens__sfd_line;

/* The line at p (p < end). */
static inline void ens__sfd_line_at(const char *p, const char *end, ens__sfd_line *ln) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  const char *e = nl ? nl : end;
  ln->s = p;
  ln->next = nl ? nl + 1 : end;
  if (e > p && e[-1] == '\r') e--;
  ln->n = (size_t)(e - p);
}

/* Structural words of SFD, found from the first token of a line. */
enum {
  S_W_OTHER, S_W_BLANK, S_W_NUMBER, S_W_STARTCHAR, S_W_ENDCHAR, S_W_FORE, S_W_BACK, S_W_LAYER,
  S_W_SPLINESET, S_W_ENDSPLINESET, S_W_REFER, S_W_REF, S_W_ANCHOR, S_W_KERNS2, S_W_VKERNS2,
  S_W_LAYERDATA, /* Image, Validated, PickledData, Fill/Stroke: belong to the open layer */
  S_W_BEGINCHARS, S_W_ENDCHARS, S_W_ENDSPLINEFONT, S_W_NAMEDP, S_W_CONTOURTAIL /* Spiro, Named:, PathFlags:, PathStart: */
};
int ens__sfd_word(const char *s, size_t n);

/* Length in bytes of the entry starting with the line at p: that line, or
 * a whole block (TtInstrs: .. EndTTInstrs, Image: .. EndImage, a quoted
 * PickledData, ...). *lines receives its line count. Returns 0 when a block
 * has no end before `end` (the caller decides: an error when reading, the
 * rest of the text when writing). */
size_t ens__sfd_entry(const char *p, const char *end, uint32_t *lines);
/* The same when the line at p is cut already (first). */
size_t ens__sfd_entry_at(const char *p, const char *end, const ens__sfd_line *first, uint32_t *lines);

/* First whitespace-delimited token of a line (leading blanks skipped). */
static inline size_t ens__sfd_token(const char *s, size_t n, const char **tok) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  size_t j = i;
  while (j < n && s[j] != ' ' && s[j] != '\t') j++;
  *tok = s + i;
  return j - i;
}

/* --- numbers ---------------------------------------------------------------- */

/* Parse a number at s (no leading blanks) before end. Returns the bytes
 * used (> 0), 0 when there is no number there, or -1 when it is out of
 * range (too long, not finite, beyond a float, beyond the integer type). */
int ens__sfd_parse_real(const char *s, const char *end, double *out);
int ens__sfd_parse_int(const char *s, const char *end, int64_t *out);

/* FontForge's style: %g (6 significant digits) when that reads back
 * exactly, else the fewest digits that do; "C" locale whatever the
 * process's. buf holds at least 32 bytes; returns the length. */
size_t ens__sfd_fmt_real(char *buf, double v);
/* A number as read still says the model's value: equal, and the same
 * sign for zero ("-0" reads as -0.0, which the model keeps apart from 0,
 * so a line saying "-0" may not stand for a 0 set since). */
static inline int ens__sfd_same_real(double read, double now) { return read == now && signbit(read) == signbit(now); }
size_t ens__sfd_fmt_int(char *buf, int64_t v);

/* --- UTF-7 (FontForge's flavour, in double quotes) -------------------------- */

/* Decode the quoted string at s (s[0] == '"'); *used receives the bytes up
 * to and including the closing quote. 0, or -1 when unterminated or not
 * valid UTF-7. The UTF-8 result is appended to out. */
int ens__sfd_utf7_decode(const char *s, const char *end, size_t *used, ens_buf *out);
/* Append "..." with the UTF-8 text encoded as FontForge does. */
void ens__sfd_utf7_encode(const char *s, size_t n, ens_buf *out);

/* --- keyed lines ------------------------------------------------------------ */

/* How the value of a keyed line reads. */
enum {
  S_V_STR,  /* the rest of the line after "Key:" and one blank, as is */
  S_V_INT,  /* one integer */
  S_V_REAL, /* one real */
  S_V_HEX,  /* one hexadecimal integer (Colour) */
  S_V_UTF7, /* a quoted UTF-7 string */
  S_V_NAME, /* a glyph name: a token, or a quoted UTF-7 string */
  S_V_ENC,  /* Encoding: enc unicode [gid] */
  S_V_MARK  /* a layer marker: Fore, Back, Layer: n */
};

typedef struct {
  const char *word; /* "Width:" */
  uint8_t wlen;
  uint8_t vt;
  int16_t key; /* S_K_*: the first property (S_V_ENC sets three in a row) */
} ens__sfd_keyspec;

extern const ens__sfd_keyspec ens__sfd_glyph_keys[];
extern const size_t ens__sfd_glyph_nkeys;
extern const ens__sfd_keyspec ens__sfd_root_keys[];
extern const size_t ens__sfd_root_nkeys;

/* The spec whose word starts line (s, n), or NULL. */
const ens__sfd_keyspec *ens__sfd_find_key(const ens__sfd_keyspec *table, size_t nkeys, const char *s, size_t n);

/* A value read from a keyed line; strings point into the line or into
 * the scratch buffer (then off_scratch is set and s is an offset). */
typedef struct {
  ens_value v;
  int in_scratch;
} ens__sfd_val;

/* Parse the value(s) of a keyed line into vals (up to 3; *nvals). Returns
 * 0, or -1 when the line does not read as its spec says (the caller keeps
 * it verbatim or reports it), with a reason in *why. */
int ens__sfd_key_parse(const ens__sfd_keyspec *spec, const char *s, size_t n, ens__sfd_val *vals, int *nvals,
                       ens_buf *scratch, const char **why);
/* Append the line for spec with vals (no line terminator). */
void ens__sfd_key_format(const ens__sfd_keyspec *spec, const ens_value *vals, int nvals, ens_buf *out);

/* --- points, references, anchors, kerning ----------------------------------- */

typedef struct {
  double x, y, c[4];
  char seg;        /* 'm', 'l' or 'c' */
  int has_flags;   /* a flags number follows the letter */
  int64_t flags;   /* whole flags, type bits included */
  int has_ttf;       /* ",ttfindex,nextcpindex" of quadratic fonts, as numbers */
  int64_t ttf, nextcp;
  const char *extra; /* anything else after the flags (a hint mask "x..."), as is */
  size_t extra_len;
} ens__sfd_point;

/* Parse a point line; 0, or -1 with *why. */
int ens__sfd_parse_point(const char *s, size_t n, ens__sfd_point *pt, const char **why);
void ens__sfd_format_point(const ens__sfd_point *pt, int first, ens_buf *out);

typedef struct {
  int is_ref;      /* "Ref:" (by encoding) rather than "Refer:" (by gid) */
  int64_t target;  /* gid or encoding */
  int has_uni;
  int64_t uni;
  int selected;
  double m[6];
  int has_flags;
  int64_t flags;
  const char *extra; /* after the flags (point matching), as is */
  size_t extra_len;
} ens__sfd_ref;

int ens__sfd_parse_ref(const char *s, size_t n, ens__sfd_ref *rf, const char **why);
/* Only the keyword and glyph number of a reference line (a line
 * ens__sfd_parse_ref accepts starts with ones this accepts). */
int ens__sfd_parse_ref_target(const char *s, size_t n, int *is_ref, int64_t *target);
void ens__sfd_format_ref(const ens__sfd_ref *rf, ens_buf *out);

typedef struct {
  const char *cls; /* decoded, in scratch (offset) */
  size_t cls_off, cls_len;
  double x, y;
  const char *type;
  size_t type_len;
  int64_t lig;
  const char *extra; /* device tables, ttf point: as is */
  size_t extra_len;
} ens__sfd_anchor;

int ens__sfd_parse_anchor(const char *s, size_t n, ens__sfd_anchor *ap, ens_buf *scratch, const char **why);
void ens__sfd_format_anchor(const char *cls, size_t cls_len, double x, double y, const char *type, size_t type_len,
                            int64_t lig, const char *extra, size_t extra_len, ens_buf *out);

typedef struct {
  int64_t target; /* gid */
  int64_t offset;
  size_t sub_off, sub_len; /* decoded subtable name in scratch */
  const char *device;      /* "{...}" as is, or NULL */
  size_t device_len;
} ens__sfd_kernpair;

/* Parse the pairs of a Kerns2:/VKerns2: line into pairs (grown with
 * realloc; the caller frees *pairs). Returns the count, or -1 with *why. */
long ens__sfd_parse_kerns(const char *s, size_t n, ens__sfd_kernpair **pairs, size_t *cap, ens_buf *scratch,
                          const char **why);

/* --- writing ------------------------------------------------------------------ */

/* Writes the whole document (single-file form) into out. */
int ens__sfd_write_doc(const ens_doc *doc, ens_buf *out);
/* The same, handing out to sink (which empties it) whenever it holds
 * ENS__SFD_SINK_AT bytes or more between glyphs: the caller sinks the
 * rest. A sink's error ends the write. */
#define ENS__SFD_SINK_AT ((size_t)512 << 10)
typedef int (*ens__sfd_sink)(void *user, ens_buf *out);
int ens__sfd_write_doc_to(const ens_doc *doc, ens_buf *out, ens__sfd_sink sink, void *user);
/* Writes one glyph (its file in the SFDir form) into out. */
typedef struct ens__sfd_wctx ens__sfd_wctx;
ens__sfd_wctx *ens__sfd_wctx_new(const ens_doc *doc);
void ens__sfd_wctx_free(ens__sfd_wctx *w);
int ens__sfd_write_root_only(ens__sfd_wctx *w, ens_buf *out);
int ens__sfd_write_glyph(ens__sfd_wctx *w, const ens_obj *glyph, ens_buf *out);
/* Numbers the glyphs as the writer does: ENS_EFORMAT with a reason in why
 * when a write would fail (a glyph that must say a number without an
 * Encoding: line) or a reference or kerning pair would read back as
 * another glyph (two glyphs with one number); 0 otherwise. */
int ens__sfd_check_numbers(const ens_doc *doc, char *why, size_t why_size);

/* --- reading ------------------------------------------------------------------ */

typedef struct ens__sfd_reader ens__sfd_reader;
ens__sfd_reader *ens__sfd_reader_new(ens_doc *doc);
void ens__sfd_reader_free(ens__sfd_reader *r);
/* Room in the document's arena for what a font of text_bytes of text
 * makes, in one region, before any of it is made (ENS_ENOMEM). */
int ens__sfd_reader_reserve(ens__sfd_reader *r, size_t text_bytes);
/* Room for a text of len bytes in the document (and a NUL after it), for
 * the caller to fill and pass to one of the functions below, which then
 * read it where it is; any other text they copy there first. */
char *ens__sfd_reader_text(ens__sfd_reader *r, size_t len);
/* A whole single-file SFD. */
int ens__sfd_read_file_text(ens__sfd_reader *r, const char *data, size_t len);
/* SFDir: font.props, then each glyph file in order, then finish. */
int ens__sfd_read_props_text(ens__sfd_reader *r, const char *data, size_t len, size_t nglyphs);
int ens__sfd_read_glyph_text(ens__sfd_reader *r, const char *data, size_t len, const char *fname);
int ens__sfd_reader_finish(ens__sfd_reader *r);


#endif
