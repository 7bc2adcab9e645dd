/* Ensemble Lottie format: animations (Lottie JSON) read onto the document
 * model at animator grain and written back losslessly (docs/lottie.md). */
#ifndef ENSEMBLE_LOTTIE_H
#define ENSEMBLE_LOTTIE_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The document kind of every animation read from Lottie. */
#define ENS_LOTTIE_KIND "lottie"

/* Object kinds. Every JSON object of the file is an object of the model;
 * an array is one ("list") when it holds objects (or is an empty layers,
 * assets, markers, shapes, it, ef or masksProperties). The kind says what
 * the object is to an animator; docs/lottie.md has the whole mapping. */
#define ENS_LOTTIE_LIST "list"           /* an array of objects: ~key names it */
#define ENS_LOTTIE_LAYER "layer"         /* an element of "layers" */
#define ENS_LOTTIE_SHAPE "shape"         /* an element of "shapes" or of a group's "it" */
#define ENS_LOTTIE_KEYFRAME "keyframe"   /* an element of an animated property's "k" */
#define ENS_LOTTIE_ASSET "asset"         /* an element of "assets" (images, precompositions) */
#define ENS_LOTTIE_MARKER "marker"       /* an element of "markers" */
#define ENS_LOTTIE_EFFECT "effect"       /* an element of "ef" */
#define ENS_LOTTIE_MASK "mask"           /* an element of "masksProperties" */
#define ENS_LOTTIE_TRANSFORM "transform" /* a layer's "ks" */
#define ENS_LOTTIE_PROPERTY "property"   /* any other object with a "k" member (animatable) */
#define ENS_LOTTIE_OBJECT "object"       /* any other JSON object */

/* Keys the reader sets beside the members: a child's member name in its
 * parent object, and a container's own text (with "@" where each child
 * object stands), which the writer reuses while the values still say the
 * same. A member name that starts with '~', '@' or '%', or is empty, is
 * held as '%' followed by the name. */
#define ENS_LOTTIE_KEY "~key"
#define ENS_LOTTIE_SRC "~src"

/* Limits on input: bytes of a file, nesting of arrays and objects, bytes
 * of one number. Beyond them: ENS_ELIMIT with the line and column. */
#define ENS_LOTTIE_MAX_FILE ((size_t)1 << 30)
#define ENS_LOTTIE_MAX_DEPTH 512
#define ENS_LOTTIE_MAX_NUMBER 256

/* The Lottie format's schema: kinds of the mapping, member names and
 * values JSON can hold and that read back as the same document, kept text
 * that still parses, the members every animation has. Documents read by
 * ens_lottie_read have it; sessions attach it to documents of kind
 * "lottie" (ensemble/format.h). Lives as long as the process; NULL only
 * when out of memory. */
const ens_schema *ens_lottie_schema(void);

/* Reads Lottie JSON (a JSON object with "fr", "ip", "op" and "layers",
 * the members every player needs; "v" is optional, as in the spec), or
 * the same compressed with gzip (Telegram's .tgs), or the first animation
 * of a dotLottie archive (.lottie, a zip), which the document remembers so
 * that ens_lottie_write writes the same container again, into a new document of kind "lottie" whose objects have ids of
 * site 0. Malformed JSON gives ENS_EDECODE, input beyond the limits
 * ENS_ELIMIT, with "line L, column C: ..." in ens_error_last() and no
 * document. The caller owns *out (ens_doc_free); data is only borrowed. */
int ens_lottie_read(const void *data, size_t len, ens_doc **out);

/* The same from a file (path prefixed to errors). The caller owns *out. */
int ens_lottie_read_path(const char *path, ens_doc **out);

/* Writes doc as JSON: each object's own text while its values still read
 * back from it, a compact form for what an edit added. *out is malloc'd
 * (NUL after the last byte), freed with ens_free. doc is only read. */
int ens_lottie_write(const ens_doc *doc, unsigned char **out, size_t *out_len);

/* Containers for ens_lottie_write_as. */
enum {
  ENS_LOTTIE_AS_READ = -1,     /* the one the document was read from */
  ENS_LOTTIE_AS_JSON = 0,      /* plain JSON */
  ENS_LOTTIE_AS_TGS = 1,       /* gzip (zlib, level 9): Telegram's .tgs */
  ENS_LOTTIE_AS_DOTLOTTIE = 2  /* the .lottie archive it was read from, its animation replaced
                                  (ENS_EFORMAT for a document read from elsewhere) */
};
/* The same in the container asked for. */
int ens_lottie_write_as(const ens_doc *doc, int container, unsigned char **out, size_t *out_len);

/* Writes doc to path atomically (temporary file beside it, fsync, rename):
 * a .tgs compressed, a .json plain, a .lottie into its archive, any other
 * name as it was read. */
int ens_lottie_write_path(const ens_doc *doc, const char *path);

/* Identity keys for ens_doc_diff and ens_merge3 (an ens_identity_fn; user
 * unused): a member object by its member name (".ks"), a layer by its ind
 * ("ind=3", else "nm=Name"), an asset by its id, a shape, effect or mask
 * by its name in its group, a keyframe by its time ("t=12"), a marker by
 * its comment: names (2); any other element of a list by its index (1). */
int ens_lottie_identity(const ens_obj *obj, char *key, size_t key_size, void *user);

#ifdef __cplusplus
}
#endif

#endif
