/* The static files of the web client the HTTP endpoint serves: which URL
 * names which file under the web root, and with which content type. A
 * path is refused, not cleaned, when it could climb out of the root. */
#include <string.h>
#include <stdio.h>

#include "ws.h"

const char *ens__ws_content_type(const char *path) {
  static const struct {
    const char *ext, *type;
  } types[] = {{".html", "text/html; charset=utf-8"},
               {".js", "text/javascript; charset=utf-8"},
               {".mjs", "text/javascript; charset=utf-8"},
               {".css", "text/css; charset=utf-8"},
               {".wasm", "application/wasm"},
               {".svg", "image/svg+xml"},
               {".png", "image/png"},
               {".json", "application/json"},
               {".ico", "image/x-icon"},
               {".map", "application/json"}};
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash)) return NULL;
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (strcmp(dot, types[i].ext) == 0) return types[i].type;
  return NULL;
}

int ens__ws_file_path(const char *root, const char *url, char *out, size_t cap) {
  if (!root || !url || url[0] != '/' || strchr(url, '\\')) return -1;
  /* each segment: neither ".." nor "." nor empty past the first slash
   * (lws has decoded %2e and friends by now; this sees what open() will) */
  for (const char *s = url + 1; *s;) {
    const char *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if ((n == 2 && s[0] == '.' && s[1] == '.') || (n == 1 && s[0] == '.') || (n == 0 && e)) return -1;
    if (n && s[0] == '.') return -1; /* dot files are never part of the client */
    s += n + (e ? 1 : 0);
  }
  size_t ul = strlen(url);
  const char *tail = url[ul - 1] == '/' ? "index.html" : "";
  int w = snprintf(out, cap, "%s%s%s", root, url, tail);
  return w < 0 || (size_t)w >= cap ? -1 : 0;
}
