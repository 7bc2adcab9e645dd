/* rlottie alone, for bench_lottie_render: load one animation from a file,
 * render COUNT frames from index FIRST (counted from the animation's start)
 * at its own size, print the milliseconds per frame (loading excluded) and
 * exit. Nothing of Ensemble. A separate process because rlottie's worker
 * threads, once started, do not survive into a forked child. */
#include <rlottie_capi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double s_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: rlottie_alone FILE.json FIRST COUNT\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)n + 1);
  if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) return 1;
  fclose(f);
  data[n] = '\0';
  Lottie_Animation *a = lottie_animation_from_data(data, argv[1], "");
  if (!a) return 1;
  size_t w, h, first = (size_t)atol(argv[2]), count = (size_t)atol(argv[3]);
  lottie_animation_get_size(a, &w, &h);
  uint32_t *px = calloc(w * h, 4);
  if (!px || !count) return 1;
  double t0 = s_now();
  for (size_t k = 0; k < count; k++) {
    memset(px, 0, w * h * 4);
    lottie_animation_render(a, first + k, px, w, h, w * 4);
  }
  printf("%.4f\n", (s_now() - t0) / (double)count);
  lottie_animation_destroy(a);
  free(px);
  free(data);
  return 0;
}
