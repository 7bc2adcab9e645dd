/* Which format's schema, identity keys and editor noise a document kind
 * has (ensemble/format.h). */
#include <string.h>

#include "../util/error.h"
#include "ensemble/format.h"
#include "ensemble/lottie.h"
#include "ensemble/sfd.h"
#include "ensemble/svg.h"

const ens_schema *ens_format_schema(const char *doc_kind) {
  if (!doc_kind) return NULL;
  if (strcmp(doc_kind, ENS_SFD_KIND) == 0) return ens_sfd_schema();
  if (strcmp(doc_kind, ENS_SVG_KIND) == 0) return ens_svg_schema();
  if (strcmp(doc_kind, ENS_LOTTIE_KIND) == 0) return ens_lottie_schema();
  return NULL;
}

int ens_format_attach(ens_doc *doc) {
  if (!doc) return ens__error(ENS_EINVAL, "ens_format_attach needs a document");
  const char *kind = ens_doc_kind(doc);
  const ens_schema *s = ens_format_schema(kind);
  int known = strcmp(kind, ENS_SFD_KIND) == 0 || strcmp(kind, ENS_SVG_KIND) == 0 || strcmp(kind, ENS_LOTTIE_KIND) == 0;
  if (!s && known) return ENS_ENOMEM;
  ens_doc_set_schema(doc, s);
  return 0;
}

ens_noise_fn ens_format_noise(const char *doc_kind) {
  if (!doc_kind) return NULL;
  if (strcmp(doc_kind, ENS_SFD_KIND) == 0) return ens_sfd_noise;
  if (strcmp(doc_kind, ENS_SVG_KIND) == 0) return ens_svg_noise;
  return NULL;
}

ens_identity_fn ens_format_identity(const char *doc_kind) {
  if (!doc_kind) return NULL;
  if (strcmp(doc_kind, ENS_SFD_KIND) == 0) return ens_sfd_identity;
  if (strcmp(doc_kind, ENS_SVG_KIND) == 0) return ens_svg_identity;
  if (strcmp(doc_kind, ENS_LOTTIE_KIND) == 0) return ens_lottie_identity;
  return NULL;
}
