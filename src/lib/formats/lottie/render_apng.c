/* Animated PNG written by hand (ensemble/render.h): the PNG chunks with
 * acTL, fcTL and fdAT of the APNG extension, each frame a whole image
 * deflated by zlib. Pixels come premultiplied (cairo's and rlottie's
 * ARGB32) and are stored straight RGBA, as PNG wants. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../util/error.h"
#include "ensemble/render.h"

struct ens_apng {
  int width, height;
  unsigned delay_num, delay_den;
  uint32_t frames, seq;
  unsigned char *data;
  size_t len, cap;
  size_t actl_at; /* where acTL's frame count goes once it is known */
  unsigned char *raw; /* one frame filtered: a 0 filter byte per row */
  int spent;
};

static int s_reserve(ens_apng *a, size_t more) {
  if (a->len + more <= a->cap) return 0;
  size_t cap = a->cap ? a->cap : 4096;
  while (cap < a->len + more) cap *= 2;
  unsigned char *p = realloc(a->data, cap);
  if (!p) return ens__error(ENS_ENOMEM, "out of memory for an animated PNG of %zu bytes", cap);
  a->data = p;
  a->cap = cap;
  return 0;
}

static void s_be32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

static void s_be16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)(v >> 8);
  p[1] = (unsigned char)v;
}

/* A chunk: length, type, body, CRC of type and body. */
static int s_chunk(ens_apng *a, const char *type, const unsigned char *body, size_t n) {
  if (n > 0x7fffffffu) return ens__error(ENS_ELIMIT, "a PNG chunk cannot hold %zu bytes", n);
  int rc = s_reserve(a, n + 12);
  if (rc) return rc;
  unsigned char *p = a->data + a->len;
  s_be32(p, (uint32_t)n);
  memcpy(p + 4, type, 4);
  if (n) memcpy(p + 8, body, n);
  uLong crc = crc32(0L, p + 4, (uInt)(n + 4));
  s_be32(p + 8 + n, (uint32_t)crc);
  a->len += n + 12;
  return 0;
}

ens_apng *ens_image_apng_new(int width, int height, unsigned delay_num, unsigned delay_den) {
  if (width < 1 || height < 1 || width > ENS_RENDER_MAX_SIDE || height > ENS_RENDER_MAX_SIDE ||
      (double)width * height > (double)ENS_RENDER_MAX_PIXELS || delay_num > 65535 || delay_den > 65535) {
    ens__error(ENS_EINVAL, "an animated PNG of %d x %d, delay %u/%u, is beyond what it can hold", width, height,
               delay_num, delay_den);
    return NULL;
  }
  ens_apng *a = calloc(1, sizeof *a);
  if (!a) {
    ens__error(ENS_ENOMEM, "out of memory");
    return NULL;
  }
  a->width = width;
  a->height = height;
  a->delay_num = delay_num;
  a->delay_den = delay_den;
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  unsigned char ihdr[13];
  s_be32(ihdr, (uint32_t)width);
  s_be32(ihdr + 4, (uint32_t)height);
  ihdr[8] = 8;  /* bits per channel */
  ihdr[9] = 6;  /* RGBA */
  ihdr[10] = 0; /* deflate */
  ihdr[11] = 0; /* adaptive filters */
  ihdr[12] = 0; /* no interlace */
  unsigned char actl[8] = {0};
  if (s_reserve(a, sizeof sig) != 0) goto fail;
  memcpy(a->data, sig, sizeof sig);
  a->len = sizeof sig;
  if (s_chunk(a, "IHDR", ihdr, sizeof ihdr) != 0) goto fail;
  a->actl_at = a->len + 8;
  if (s_chunk(a, "acTL", actl, sizeof actl) != 0) goto fail; /* frame count filled in at the end; 0 plays: forever */
  return a;
fail:
  ens_image_apng_free(a);
  return NULL;
}

int ens_image_apng_add(ens_apng *a, const ens_image *img) {
  if (!a || !img || !img->pixels) return ens__error(ENS_EINVAL, "ens_image_apng_add needs a writer and an image");
  if (a->spent) return ens__error(ENS_EINVAL, "the animated PNG is already finished");
  if (img->width != a->width || img->height != a->height)
    return ens__error(ENS_EINVAL, "a %d x %d frame in a %d x %d animated PNG", img->width, img->height, a->width,
                      a->height);
  if (a->frames >= 0x7fffffffu / 2) return ens__error(ENS_ELIMIT, "too many frames for an animated PNG");
  size_t row = (size_t)a->width * 4 + 1, raw_len = row * (size_t)a->height;
  if (!a->raw && !(a->raw = malloc(raw_len))) return ens__error(ENS_ENOMEM, "out of memory for a frame");
  for (int y = 0; y < a->height; y++) {
    const uint32_t *src = (const uint32_t *)(img->pixels + (size_t)y * img->stride);
    unsigned char *d = a->raw + (size_t)y * row;
    *d++ = 0;
    for (int x = 0; x < a->width; x++) {
      uint32_t p = src[x];
      unsigned al = p >> 24, r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
      if (al && al < 255) {
        r = (r * 255 + al / 2) / al;
        g = (g * 255 + al / 2) / al;
        b = (b * 255 + al / 2) / al;
        if (r > 255) r = 255;
        if (g > 255) g = 255;
        if (b > 255) b = 255;
      } else if (!al) {
        r = g = b = 0;
      }
      d[0] = (unsigned char)r;
      d[1] = (unsigned char)g;
      d[2] = (unsigned char)b;
      d[3] = (unsigned char)al;
      d += 4;
    }
  }
  uLong zcap = compressBound((uLong)raw_len);
  unsigned char *z = malloc(4 + zcap); /* fdAT's sequence number, then the data */
  if (!z) return ens__error(ENS_ENOMEM, "out of memory for a frame");
  uLongf zlen = zcap;
  if (compress2(z + 4, &zlen, a->raw, (uLong)raw_len, 6) != Z_OK) {
    free(z);
    return ens__error(ENS_ENOMEM, "zlib could not compress a frame");
  }
  unsigned char fctl[26];
  s_be32(fctl, a->seq++);
  s_be32(fctl + 4, (uint32_t)a->width);
  s_be32(fctl + 8, (uint32_t)a->height);
  s_be32(fctl + 12, 0);
  s_be32(fctl + 16, 0);
  s_be16(fctl + 20, a->delay_num);
  s_be16(fctl + 22, a->delay_den);
  fctl[24] = 0; /* dispose: none; the next frame covers all of it */
  fctl[25] = 0; /* blend: source, so transparent pixels stay transparent */
  int rc = s_chunk(a, "fcTL", fctl, sizeof fctl);
  if (!rc && a->frames == 0) {
    rc = s_chunk(a, "IDAT", z + 4, zlen);
  } else if (!rc) {
    s_be32(z, a->seq++);
    rc = s_chunk(a, "fdAT", z, zlen + 4);
  }
  free(z);
  if (!rc) a->frames++;
  return rc;
}

int ens_image_apng_finish(ens_apng *a, unsigned char **png, size_t *png_len) {
  if (!a || !png) return ens__error(ENS_EINVAL, "ens_image_apng_finish needs a writer and an output");
  *png = NULL;
  if (png_len) *png_len = 0;
  if (a->spent) return ens__error(ENS_EINVAL, "the animated PNG is already finished");
  if (!a->frames) return ens__error(ENS_EINVAL, "an animated PNG needs at least one frame");
  s_be32(a->data + a->actl_at, a->frames);
  s_be32(a->data + a->actl_at + 4, 0);
  uLong crc = crc32(0L, a->data + a->actl_at - 4, 4 + 8);
  s_be32(a->data + a->actl_at + 8, (uint32_t)crc);
  int rc = s_chunk(a, "IEND", NULL, 0);
  if (rc) return rc;
  *png = a->data;
  if (png_len) *png_len = a->len;
  a->data = NULL;
  a->len = a->cap = 0;
  a->spent = 1;
  return 0;
}

void ens_image_apng_free(ens_apng *a) {
  if (!a) return;
  free(a->data);
  free(a->raw);
  free(a);
}
