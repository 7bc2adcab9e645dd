/* `ensemble merge`: the editor noise that never conflicts, and values and
 * objects written for people in the conflict report (merge_mark.h). */
#include <stdio.h>
#include <string.h>

#include "merge_mark.h"

/* What editors write on every save that says nothing about the design:
 * FontForge's save time and window state, Inkscape's view of the canvas
 * and its own version. Both sides change these all the time; the merge's
 * choice (ours) stands silently. */
static const char *const s_sfd_root_noise[] = {"ModificationTime", "WinInfo", "DisplaySize", "DisplayLayer", NULL};
static const char *const s_svg_namedview_noise[] = {
    "inkscape:zoom",         "inkscape:cx",       "inkscape:cy",       "inkscape:window-width",
    "inkscape:window-height", "inkscape:window-x", "inkscape:window-y", "inkscape:window-maximized",
    "inkscape:current-layer", "inkscape:document-rotation", NULL};
static const char *const s_svg_any_noise[] = {"inkscape:version", "sodipodi:docname", "sodipodi:docbase",
                                              "inkscape:output_extension", NULL};

static int s_in(const char *const *list, const char *key) {
  for (; *list; list++)
    if (strcmp(*list, key) == 0) return 1;
  return 0;
}

int cli_merge_is_noise(int svg, const ens_obj *obj, const ens_merge_conflict *c) {
  if (c->kind != ENS_CONFLICT_SET && c->kind != ENS_CONFLICT_INSERT) return 0;
  if (!c->key || svg == 2) return 0; /* Lottie: no editor noise known */
  if (svg) {
    if (s_in(s_svg_any_noise, c->key)) return 1;
    return obj && strcmp(ens_obj_kind(obj), "sodipodi:namedview") == 0 && s_in(s_svg_namedview_noise, c->key);
  }
  if (obj && !ens_obj_parent(obj)) return s_in(s_sfd_root_noise, c->key);
  /* a point selected on one side only: FontForge saves the selection in the flags */
  if (obj && strcmp(ens_obj_kind(obj), "point") == 0 && strcmp(c->key, "flags") == 0 && c->ours.type == ENS_INT &&
      c->theirs.type == ENS_INT)
    return ((c->ours.u.i ^ c->theirs.u.i) & ~(int64_t)0x4) == 0;
  return 0;
}

void cli_merge_obj_path(const ens_obj *o, int svg, char *buf, size_t size) {
  const ens_obj *chain[ENS_MAX_DEPTH + 1];
  size_t depth = 0, len = 0;
  ens_identity_fn identity = svg == 2 ? ens_lottie_identity : svg ? ens_svg_identity : ens_sfd_identity;
  for (; o && ens_obj_parent(o) && depth < ENS_MAX_DEPTH; o = ens_obj_parent(o)) chain[depth++] = o;
  buf[0] = '\0';
  while (depth-- && len + 1 < size) {
    const ens_obj *x = chain[depth];
    const char *kind = ens_obj_kind(x);
    char key[300];
    size_t kl = strlen(kind);
    int r = identity(x, key, sizeof key, NULL);
    key[sizeof key - 1] = '\0';
    const char *sep = len ? "/" : "";
    int n;
    if (r <= 0) n = snprintf(buf + len, size - len, "%s%s[%zu]", sep, kind, ens_obj_index(x));
    else if (strncmp(key, kind, kl) == 0 && (key[kl] == ' ' || key[kl] == '['))
      n = snprintf(buf + len, size - len, "%s%s", sep, key);
    else if (key[0] == '#' && key[1] && strspn(key + 1, "0123456789") == strlen(key + 1))
      n = snprintf(buf + len, size - len, "%s%s %s", sep, kind, key + 1);
    else
      n = snprintf(buf + len, size - len, "%s%s %s", sep, kind, key);
    if (n < 0) break;
    len += (size_t)n;
    if (len >= size) len = size - 1;
  }
}

void cli_merge_value_str(const ens_doc *doc, int svg, ens_value v, char *buf, size_t size, size_t max) {
  switch (v.type) {
  case ENS_NIL: snprintf(buf, size, "(none)"); return;
  case ENS_INT: snprintf(buf, size, "%lld", (long long)v.u.i); return;
  case ENS_BOOL: snprintf(buf, size, "%s", v.u.b ? "true" : "false"); return;
  case ENS_REAL: {
    /* the shortest text that reads back as the same double */
    for (int p = 6; p <= 17; p++) {
      snprintf(buf, size, "%.*g", p, v.u.r);
      double back;
      if (sscanf(buf, "%lf", &back) == 1 && back == v.u.r) return;
    }
    return;
  }
  case ENS_BYTES: snprintf(buf, size, "(%zu bytes)", v.u.s.len); return;
  case ENS_REF: {
    const ens_obj *o = doc ? ens_doc_get(doc, v.u.ref) : NULL;
    char path[512];
    if (!o) {
      snprintf(buf, size, "(an object no longer there)");
      return;
    }
    cli_merge_obj_path(o, svg, path, sizeof path);
    snprintf(buf, size, "-> %s", path);
    return;
  }
  case ENS_STR: {
    size_t len = 0, n = v.u.s.len < max ? v.u.s.len : max;
    if (size < 8) {
      buf[0] = '\0';
      return;
    }
    buf[len++] = '"';
    for (size_t i = 0; i < n && len + 6 < size; i++) {
      unsigned char ch = (unsigned char)v.u.s.ptr[i];
      if (ch == '"' || ch == '\\') {
        buf[len++] = '\\';
        buf[len++] = (char)ch;
      } else if (ch == '\n') {
        buf[len++] = '\\';
        buf[len++] = 'n';
      } else if (ch < 0x20) {
        len += (size_t)snprintf(buf + len, size - len, "\\x%02x", ch);
      } else {
        buf[len++] = (char)ch;
      }
    }
    buf[len++] = '"';
    buf[len] = '\0';
    if (n < v.u.s.len) snprintf(buf + len, size - len, "... (%zu bytes)", v.u.s.len);
    return;
  }
  }
  snprintf(buf, size, "?");
}
