/* Token buckets for hellos, one per source (see hello_limit.h). A small
 * table searched in full: hellos are rare next to transactions, and the
 * table is bounded so that many sources cannot grow it. */
#include "hello_limit.h"

#include <stdlib.h>
#include <string.h>

#define SOURCES 256
#define WHO_MAX 255

typedef struct {
  unsigned char who[WHO_MAX];
  uint8_t len;
  int used;
  int64_t at;   /* when tokens was last brought up to date */
  double tokens;
} s_source;

struct ens__hello_limit {
  uint32_t burst, every_ms;
  s_source src[SOURCES];
};

ens__hello_limit *ens__hello_limit_new(uint32_t burst, uint32_t every_ms) {
  ens__hello_limit *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  l->burst = burst ? burst : 1;
  l->every_ms = every_ms ? every_ms : 1;
  return l;
}

static void s_refill(const ens__hello_limit *l, s_source *s, int64_t now) {
  if (now > s->at) {
    s->tokens += (double)(now - s->at) / l->every_ms;
    if (s->tokens > l->burst) s->tokens = l->burst;
  }
  s->at = now;
}

int ens__hello_limit_take(ens__hello_limit *l, const void *who, size_t len, int64_t now) {
  if (len > WHO_MAX) len = WHO_MAX;
  s_source *found = NULL, *victim = NULL;
  double victim_tokens = -1;
  for (size_t i = 0; i < SOURCES; i++) {
    s_source *s = &l->src[i];
    if (!s->used) {
      if (!victim || victim->used) victim = s;
      continue;
    }
    if (s->len == len && memcmp(s->who, who, len) == 0) {
      found = s;
      break;
    }
    /* the source closest to a full bucket loses least by being forgotten */
    if (victim && !victim->used) continue;
    s_refill(l, s, now);
    if (s->tokens > victim_tokens) {
      victim = s;
      victim_tokens = s->tokens;
    }
  }
  if (!found) {
    found = victim;
    memcpy(found->who, who, len);
    found->len = (uint8_t)len;
    found->used = 1;
    found->at = now;
    found->tokens = l->burst;
  }
  s_refill(l, found, now);
  if (found->tokens < 1) return 0;
  found->tokens -= 1;
  return 1;
}

void ens__hello_limit_free(ens__hello_limit *l) { free(l); }
