/* How often one source may say hello: a token bucket per source (a key's
 * name, or without keys a connection's routing id). A hello costs the
 * server a catch-up (a snapshot encoded and sent, or a read of the log),
 * so a client saying hello in a loop must not make it do that without
 * end (docs/protocol.md, "Limits"). */
#ifndef ENS_SYNC_HELLO_LIMIT_H
#define ENS_SYNC_HELLO_LIMIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct ens__hello_limit ens__hello_limit;

/* A source may say `burst` hellos at once, then one per `every_ms`.
 * NULL when out of memory. The caller owns the result. */
ens__hello_limit *ens__hello_limit_new(uint32_t burst, uint32_t every_ms);

/* 1 when the source `who` (len bytes, at most 255) may say hello at now_ms
 * (the hello is counted), 0 when it is over its limit. The table keeps
 * the most recent sources; one forgotten starts again with a full bucket,
 * which a source can only force by being one of very many. */
int ens__hello_limit_take(ens__hello_limit *limit, const void *who, size_t len, int64_t now_ms);

/* Accepts NULL. */
void ens__hello_limit_free(ens__hello_limit *limit);

#endif
