/* `ensemble show --visual`: where the history meets the visual diff. Two
 * versions of one file, written to files named like it, are drawn into
 * OUT by the visual diff; until the visual diff is part of the tool, it
 * says so. */
#include "vcs.h"

int cli_show_visual(const char *cmd, const char *old_path, const char *new_path, const char *out) {
  (void)old_path;
  (void)new_path;
  return cli_fail(cmd, "cannot draw %s: the visual diff is not part of this build", out);
}
