/* FontForge's editor noise in SFD: what FontForge writes about its own
 * state at every save (time stamps, windows, selections), which no diff
 * or merge should call a change to the font. */
#include <string.h>

#include "ensemble/format.h"
#include "ensemble/sfd.h"

static int s_is(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* The glyph Flags letters without O ("glyph was open in a window"). */
static void s_flags_without_o(ens_value v, char *out, size_t size) {
  size_t n = 0;
  if (v.type == ENS_STR)
    for (size_t i = 0; i < v.u.s.len && n + 1 < size; i++)
      if (v.u.s.ptr[i] != 'O' && v.u.s.ptr[i] != ' ') out[n++] = v.u.s.ptr[i];
  out[n] = '\0';
}

int ens_sfd_noise(const ens_obj *obj, const char *key, ens_value old_value, ens_value new_value, void *user) {
  (void)user;
  if (!obj || !key) return 0;
  const char *kind = ens_obj_kind(obj);
  if (!ens_obj_parent(obj))
    return s_is(key, "ModificationTime") || s_is(key, "WinInfo") || s_is(key, "DisplaySize") ||
           s_is(key, "DisplayLayer") || s_is(key, "AntiAlias") || s_is(key, "FitToEm");
  if (s_is(kind, ENS_SFD_POINT) && s_is(key, "flags")) {
    int64_t a = old_value.type == ENS_INT ? old_value.u.i : 0, b = new_value.type == ENS_INT ? new_value.u.i : 0;
    if ((old_value.type != ENS_INT && old_value.type != ENS_NIL) ||
        (new_value.type != ENS_INT && new_value.type != ENS_NIL))
      return 0;
    return ((a ^ b) & ~(int64_t)0x4) == 0;
  }
  if (s_is(kind, ENS_SFD_REF) && s_is(key, "selected")) return 1;
  if (s_is(kind, ENS_SFD_GLYPH) && s_is(key, "flags")) {
    if ((old_value.type != ENS_STR && old_value.type != ENS_NIL) ||
        (new_value.type != ENS_STR && new_value.type != ENS_NIL))
      return 0;
    char a[64], b[64];
    if ((old_value.type == ENS_STR && old_value.u.s.len >= sizeof a) ||
        (new_value.type == ENS_STR && new_value.u.s.len >= sizeof b))
      return 0;
    s_flags_without_o(old_value, a, sizeof a);
    s_flags_without_o(new_value, b, sizeof b);
    return strcmp(a, b) == 0;
  }
  return 0;
}
