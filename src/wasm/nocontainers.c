/* The browser build has no zlib or libzip: the containers of Lottie
 * animations (.tgs, .lottie) are files on disk, which the browser never
 * reads or writes (it receives the animation as a snapshot and shows it
 * as plain JSON). Asked for one anyway, these say so. */
#include "formats/lottie/lottie_int.h"
#include "util/error.h"

static int s_absent(void) { return ens__error(ENS_EFORMAT, "the browser build has no .tgs or .lottie containers"); }

int ens__lj_gunzip(const void *data, size_t len, char **out, size_t *out_len) {
  (void)data, (void)len, (void)out, (void)out_len;
  return s_absent();
}

int ens__lj_gzip(const unsigned char *in, size_t n, unsigned char **out, size_t *out_len) {
  (void)in, (void)n, (void)out, (void)out_len;
  return s_absent();
}

int ens__lj_unzip(const void *data, size_t len, char **json, size_t *json_len, char *entry, size_t entry_size) {
  (void)data, (void)len, (void)json, (void)json_len, (void)entry, (void)entry_size;
  return s_absent();
}

int ens__lj_rezip(const char *zip, size_t zn, const char *entry, const unsigned char *json, size_t jn,
                  unsigned char **out, size_t *out_len) {
  (void)zip, (void)zn, (void)entry, (void)json, (void)jn, (void)out, (void)out_len;
  return s_absent();
}
