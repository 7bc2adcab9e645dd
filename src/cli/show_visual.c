/* `ensemble show --visual`: where the history meets the visual diff. Two
 * versions of one file, written to files named like it, are drawn into
 * OUT (.svg, .png, .html) by the visual diff (diff_visual.c). */
#include "vcs.h"

int cli_show_visual(const char *cmd, const char *old_path, const char *new_path, const char *out) {
  return cli_diff_visual(cmd, old_path, new_path, out, 0, 0);
}
