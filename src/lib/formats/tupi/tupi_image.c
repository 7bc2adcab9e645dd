/* Raster images of a Tupi project's library, placed in frames as
 * <symbol id>, as Lottie image assets with their bytes inside (a data:
 * URL, base64), so the Lottie file stands alone as the .tup did. PNG and
 * JPEG only: what players decode everywhere. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tupi_int.h"

static void s_base64(ens_buf *b, const unsigned char *p, size_t n) {
  static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (ens__buf_reserve(b, (n + 2) / 3 * 4) != 0) return;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    char q[4] = {t[v >> 18 & 63], t[v >> 12 & 63], i + 1 < n ? t[v >> 6 & 63] : '=', i + 2 < n ? t[v & 63] : '='};
    ens__buf_append(b, q, 4);
  }
}

static uint32_t s_be(const unsigned char *p, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; i++) v = v << 8 | p[i];
  return v;
}

/* The pixel size from a PNG's IHDR or a JPEG's frame header; the type in
 * *mime. 0 when neither. */
static int s_size(const unsigned char *p, size_t n, int *w, int *h, const char **mime) {
  if (n >= 24 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(p + 12, "IHDR", 4) == 0) {
    *w = (int)s_be(p + 16, 4);
    *h = (int)s_be(p + 20, 4);
    *mime = "image/png";
    return *w > 0 && *h > 0 && *w <= 65535 && *h <= 65535;
  }
  if (n >= 4 && p[0] == 0xff && p[1] == 0xd8) {
    size_t i = 2;
    while (i + 9 < n) {
      if (p[i] != 0xff) return 0;
      unsigned m = p[i + 1];
      if (m == 0xff) { i++; continue; }
      if (m == 0xd8 || m == 0x01 || (m >= 0xd0 && m <= 0xd7)) { i += 2; continue; }
      if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
        *h = (int)s_be(p + i + 5, 2);
        *w = (int)s_be(p + i + 7, 2);
        *mime = "image/jpeg";
        return *w > 0 && *h > 0;
      }
      i += 2 + s_be(p + i + 2, 2);
    }
  }
  return 0;
}

int ens__tupi_image(ens__tupi_ctx *ctx, const char *id, int *asset, int *w, int *h) {
  ens__tupi_libobj *o = NULL;
  for (size_t i = 0; i < ctx->nlib && !o; i++)
    if (strcmp(ctx->lib[i].id, id) == 0) o = &ctx->lib[i];
  int rc;
  if (!o) {
    rc = ens__tupi_note_add(ctx, "a library item that the library does not hold is not mapped");
    return rc ? rc : 1;
  }
  if (o->type != 2) {
    rc = ens__tupi_note_add(ctx, "a library item of type %d (not an image) placed in a frame is not mapped", o->type);
    return rc ? rc : 1;
  }
  if (!o->asset) {
    char *data = NULL;
    size_t len = 0;
    const char *mime = NULL;
    if ((rc = ctx->load(ctx, o->path, &data, &len)) < 0) return rc;
    if (rc == 1 || !s_size((const unsigned char *)data, len, &o->w, &o->h, &mime)) {
      o->asset = rc == 1 ? -2 : -1;
    } else {
      ens_buf *b = &ctx->images;
      ens__buf_printf(b, "%s{\"id\":\"image_%zu\",\"nm\":", ctx->nimages ? "," : "", ctx->nimages + 1);
      ens__tupi_jstr(b, o->id);
      ens__buf_printf(b, ",\"w\":%d,\"h\":%d,\"u\":\"\",\"p\":\"data:%s;base64,", o->w, o->h, mime);
      s_base64(b, (const unsigned char *)data, len);
      ens__buf_puts(b, "\",\"e\":1}");
      o->asset = (int)++ctx->nimages;
    }
    free(data);
    if (ctx->images.oom) return ens__error(ENS_ENOMEM, "out of memory");
    if (ctx->images.len > ENS_TUPI_MAX_OUTPUT)
      return ens__error(ENS_ELIMIT, "%s: the Lottie text would pass %u bytes", ctx->where, ENS_TUPI_MAX_OUTPUT);
  }
  if (o->asset < 0) {
    rc = ens__tupi_note_add(ctx, o->asset == -2 ? "a library image whose file is not in the project is not mapped"
                                                : "a library image that is neither PNG nor JPEG is not mapped");
    return rc ? rc : 1;
  }
  *asset = o->asset;
  *w = o->w;
  *h = o->h;
  return 0;
}
