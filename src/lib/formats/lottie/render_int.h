/* Private to the Lottie renderer (render*.c): the few top-level numbers
 * read from the JSON text before rlottie sees it, and .tgs inflation. */
#ifndef ENS_LOTTIE_RENDER_INT_H
#define ENS_LOTTIE_RENDER_INT_H

#include <stddef.h>

typedef struct {
  int has_layers, has_fr, has_ip, has_op, has_v;
  size_t open; /* where the object's "{" is */
  double fr, ip, op, w, h;
} ens__lottie_top;

/* Reads the keys of the top-level JSON object without building anything
 * (nesting is skipped by counting, never by recursion). 0 when the text is
 * an object to its closing brace, -1 otherwise. */
int ens__lottie_scan_top(const char *s, size_t n, ens__lottie_top *top);

/* 1 when data starts with the gzip magic. */
int ens__lottie_is_gzip(const void *data, size_t len);

/* Inflates gzip data into a malloc'd NUL-terminated buffer of at most max
 * bytes (ENS_ELIMIT beyond, ENS_EDECODE for bad data). With partial, stops
 * quietly at max bytes instead. */
int ens__lottie_gunzip(const void *data, size_t len, size_t max, int partial, char **out, size_t *out_len);

#endif
