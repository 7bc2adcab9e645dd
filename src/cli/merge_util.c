/* `ensemble merge`: the editor noise that never conflicts, and values and
 * objects written for people in the conflict report (merge_mark.h). */
#include <stdio.h>
#include <string.h>

#include "merge_mark.h"

/* What editors write on every save that says nothing about the design
 * (FontForge's save time and window state, Inkscape's view of the canvas)
 * is the format's noise, the same list the diff leaves out
 * (ens_format_noise): both sides change it all the time, and the merge's
 * choice (ours) stands silently. */
int cli_merge_is_noise(const char *doc_kind, const ens_obj *obj, const ens_merge_conflict *c) {
  if (c->kind != ENS_CONFLICT_SET && c->kind != ENS_CONFLICT_INSERT) return 0;
  if (!c->key || !obj) return 0;
  ens_noise_fn noise = ens_format_noise(doc_kind);
  return noise && noise(obj, c->key, c->ours, c->theirs, NULL) == 1;
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
