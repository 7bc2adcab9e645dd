/* Private to the SVG reader and writer: the scanner that cuts XML text
 * into nodes with their exact byte spans, value decoding and escaping,
 * the entity table, the libxml2 check pass and the property keys every
 * file of src/lib/formats/svg shares. */
#ifndef ENS_FORMATS_SVG_INT_H
#define ENS_FORMATS_SVG_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../model/doc.h"
#include "../../util/buf.h"
#include "ensemble/svg.h"

/* Keys of kept text and of non-attribute values. Attribute names are XML
 * names, which never start with '~', '&' or contain a blank, so these
 * never collide with an attribute. */
#define S_SRC "~src"      /* a node's exact source text, when it is not the plain style */
#define S_END "~end"      /* an element's end tag, when it is not "</name>" */
#define S_BOM "~bom"      /* root: the file began with a UTF-8 byte order mark */
#define S_ENC "~encoding" /* root: the file's encoding, when not UTF-8 */

/* --- scanning ----------------------------------------------------------------
 * The scanner works on UTF-8 text that libxml2 has already accepted as
 * well-formed, so it never judges: it only finds where each node begins
 * and ends. It still checks every bound, and gives -1 for anything it
 * does not expect rather than reading past the text. */
typedef enum {
  T_TEXT,    /* character data, up to '<' or a reference to a declared entity */
  T_ENTREF,  /* &name; of a declared (non-predefined) entity */
  T_CDATA,   /* <![CDATA[ ... ]]> */
  T_COMMENT, /* <!-- ... --> */
  T_PI,      /* <?target data?> */
  T_XMLDECL, /* <?xml ...?> at the very start */
  T_DOCTYPE, /* <!DOCTYPE ... > with its internal subset */
  T_START,   /* <name attrs> */
  T_EMPTY,   /* <name attrs/> */
  T_ENDTAG,  /* </name> */
  T_EOF
} ens__svg_tt;

typedef struct {
  ens__svg_tt type;
  const char *s; /* the whole token */
  size_t n;
  const char *name; /* element, PI target, entity or doctype name */
  size_t name_n;
  const char *body; /* text, comment, CDATA content; PI data */
  size_t body_n;
} ens__svg_tok;

/* The token at *pp (advanced past it). 0, or -1 when the text is not what
 * well-formed XML would be there. */
int ens__svg_next(const char **pp, const char *end, int at_start, ens__svg_tok *t);

/* One attribute of a start tag. */
typedef struct {
  const char *lead; /* blanks before the name */
  const char *name;
  size_t name_n;
  const char *eq; /* from after the name to the opening quote: "=", " = " */
  size_t eq_n;
  char quote;
  const char *val; /* raw text between the quotes */
  size_t val_n;
  const char *end; /* after the closing quote */
} ens__svg_attr;

/* Attributes of a start tag (s, n): begin with ens__svg_attrs_begin, then
 * ens__svg_attr_next gives 1 per attribute, 0 at the end (the tag's tail,
 * blanks and "/>" or ">", starts at *tail), -1 when malformed. */
typedef struct {
  const char *p, *end;
} ens__svg_attrs;
int ens__svg_attrs_begin(const char *s, size_t n, ens__svg_attrs *it, const char **name, size_t *name_n);
int ens__svg_attr_next(ens__svg_attrs *it, ens__svg_attr *a, const char **tail);

/* --- entities and decoding ------------------------------------------------- */

typedef struct {
  const char *name;
  size_t name_n;
  const char *text; /* replacement text; NULL for an external entity */
  size_t text_n;
} ens__svg_ent;

typedef struct {
  ens__svg_ent *v;
  size_t n, cap;
  size_t budget; /* bytes attribute expansion may still produce */
} ens__svg_ents;

const ens__svg_ent *ens__svg_ent_find(const ens__svg_ents *t, const char *name, size_t n);
/* 1 for lt, gt, amp, apos, quot. */
int ens__svg_predefined(const char *name, size_t n);

/* How raw text decodes. */
enum {
  ENS__SVG_TEXT = 0,   /* character data: references replaced */
  ENS__SVG_ATTR = 1,   /* an attribute value: also blanks become spaces and
                          internal entities expand (within t's budget, at
                          most 32 deep) */
  ENS__SVG_LITERAL = 2 /* comments, CDATA, PI data: line ends only */
};
/* Decode raw text into out; line ends are always normalised. Returns 0,
 * or -1 with *why. */
int ens__svg_decode(const char *s, size_t n, int mode, ens__svg_ents *t, ens_buf *out, const char **why);
/* The same check without producing: 1 when s decodes to exactly (v, vn). */
/* Nothing in (s, n) to decode in this mode: the value is its own text. */
int ens__svg_plain(const char *s, size_t n, int mode);
int ens__svg_decodes_to(const char *s, size_t n, int mode, ens__svg_ents *t, const char *v, size_t vn);

/* Escaping for a new value: text (& < > and CR as references), or an
 * attribute value in the given quote (& < the quote, tab, LF, CR). */
void ens__svg_escape_text(const char *s, size_t n, ens_buf *out);
void ens__svg_escape_attr(const char *s, size_t n, char quote, ens_buf *out);

/* --- the libxml2 pass ---------------------------------------------------------- */

/* Has libxml2 parse data (with its own encoding handling) with no network,
 * no DTD loading, no entity substitution and its default limits, building
 * no tree. On success fills ents with the internal subset's general
 * entities (strings owned by ents: ens__svg_ents_free). Errors are
 * ENS_EDECODE with libxml2's message and line. */
int ens__svg_check(const void *data, size_t len, ens__svg_ents *ents);
void ens__svg_ents_free(ens__svg_ents *t);

/* --- encodings ----------------------------------------------------------------- */

/* The encoding the XML declaration names (or NULL for UTF-8 and its
 * subsets); name is written into buf. */
const char *ens__svg_declared_encoding(const char *data, size_t len, char *buf, size_t size);
/* Transcode with iconv; 0, or -1 with the error set. *out malloc'd. */
int ens__svg_iconv(const char *from, const char *to, const char *in, size_t n, char **out, size_t *out_n);

/* --- reading and writing ---------------------------------------------------------- */

int ens__svg_build(ens_doc *doc, const char *text, size_t n, ens__svg_ents *ents);
int ens__svg_write_doc(const ens_doc *doc, ens_buf *out);
/* The text the writer writes for the #doctype o: its kept text, or one
 * made from its name and entities. 0 or ENS_ENOMEM. */
int ens__svg_doctype_text(const ens_doc *doc, const ens_obj *o, ens_buf *out);

/* Line number of p in text (1-based), for messages. */
uint32_t ens__svg_line_of(const char *text, const char *p);

#endif
