/* The demo's clock and its commit-to-acknowledgement latency histogram
 * (demo.h): logarithmic buckets, so percentiles stay within about 2% and
 * a long run costs no more memory than a short one. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "demo.h"

int64_t demo_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void demo_latency_add(demo_latency *l, int64_t us) {
  int i = us > 1 ? (int)(log2((double)us) * 32) : 0;
  if (i >= DEMO_LAT_BUCKETS) i = DEMO_LAT_BUCKETS - 1;
  l->count[i]++;
  l->n++;
}

void demo_latency_merge(demo_latency *into, const demo_latency *from) {
  for (int i = 0; i < DEMO_LAT_BUCKETS; i++) into->count[i] += from->count[i];
  into->n += from->n;
}

double demo_latency_ms(const demo_latency *l, double q) {
  if (!l->n) return -1;
  uint64_t rank = (uint64_t)ceil(q * (double)l->n), seen = 0;
  if (rank < 1) rank = 1;
  for (int i = 0; i < DEMO_LAT_BUCKETS; i++) {
    seen += l->count[i];
    if (seen >= rank) return pow(2.0, (i + 0.5) / 32.0) / 1000.0; /* the bucket's geometric middle */
  }
  return pow(2.0, DEMO_LAT_BUCKETS / 32.0) / 1000.0;
}
