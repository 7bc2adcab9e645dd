/* Inkscape's editor noise in SVG: the view state it keeps on
 * sodipodi:namedview (where the window was, the zoom, the centre of the
 * view, the layer last worked in), rewritten at every save, and what it
 * stamps on the root at every save (its version, the file's name and
 * folder, the format last saved to). The page colour, grids, guides and
 * snapping kept on the namedview are the drawing's settings and do
 * count. */
#include <string.h>

#include "ensemble/format.h"

static const char *const s_view_keys[] = {
    "inkscape:window-width", "inkscape:window-height", "inkscape:window-x",   "inkscape:window-y",
    "inkscape:window-maximized", "inkscape:zoom",      "inkscape:cx",         "inkscape:cy",
    "inkscape:current-layer", "inkscape:rotation",     "inkscape:document-rotation",
};

static const char *const s_save_keys[] = {
    "inkscape:version", "sodipodi:docname", "sodipodi:docbase", "inkscape:output_extension",
};

int ens_svg_noise(const ens_obj *obj, const char *key, ens_value old_value, ens_value new_value, void *user) {
  (void)user;
  (void)old_value;
  (void)new_value;
  if (!obj || !key) return 0;
  for (size_t i = 0; i < sizeof s_save_keys / sizeof s_save_keys[0]; i++)
    if (strcmp(key, s_save_keys[i]) == 0) return 1;
  if (strcmp(ens_obj_kind(obj), "sodipodi:namedview") != 0) return 0;
  for (size_t i = 0; i < sizeof s_view_keys / sizeof s_view_keys[0]; i++)
    if (strcmp(key, s_view_keys[i]) == 0) return 1;
  return 0;
}
