/* What container an animation came in (the root's ~container, ~zip and
 * ~entry) belongs to the file it was read from, not to the animation: a
 * copy of the animation kept in another container (a mirror's .json of a
 * session served from a .tgs or .lottie) takes the session's, so that
 * comparing the two sees no change there. */
#include <string.h>

#include "../../util/error.h"
#include "lottie_int.h"

int ens__lj_container_from(ens_doc *doc, const ens_doc *from) {
  static const char *const keys[] = {ENS__LJ_CONTAINER, ENS__LJ_ZIP, ENS__LJ_ENTRY};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
    const char *fk = ens__atom_find(from, keys[i], strlen(keys[i]));
    const ens__prop *fp = fk ? ens__obj_find_prop(from->root, fk) : NULL;
    const char *dk = ens__atom_find(doc, keys[i], strlen(keys[i]));
    const ens__prop *dp = dk ? ens__obj_find_prop(doc->root, dk) : NULL;
    if (!fp && !dp) continue;
    if (!dk && !(dk = ens__atom(doc, keys[i], strlen(keys[i]))))
      return ens__error(ENS_ENOMEM, "out of memory reading Lottie");
    ens_value v = fp ? ens__prop_value(fp) : ens_nil();
    int rc = ens__obj_set_prop(doc, doc->root, dk, &v, NULL);
    if (rc) return rc;
  }
  return 0;
}
