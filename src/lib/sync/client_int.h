/* The session client without a socket, for the fuzz target and tests:
 * what it would send goes to a function, the server's messages are handed
 * in one by one, and time is the caller's. Everything else (states,
 * pending queue, undo, events) is the client of ens_session_poll. */
#ifndef ENS_SESSION_CLIENT_INT_H
#define ENS_SESSION_CLIENT_INT_H

#include "ensemble/session.h"
#include "pending.h"

/* Takes one encoded message the client sends (borrowed for the call).
 * Nonzero: the connection cannot take it, as a full or closed socket. */
typedef int (*ens__session_wire_fn)(const void *bytes, size_t len, void *user);

/* As ens_session_new, without a socket or a ZeroMQ context (opts->endpoint
 * and the keys are unused). It connects (sends hello through wire) at the
 * first ens__session_tick. A detached session's reconnect waits no random
 * part of its backoff, so a script of calls always does the same. */
int ens__session_new_detached(const ens_session_opts *opts, ens__session_wire_fn wire, void *user,
                              ens_session **out);
/* One message from the server, as ens_session_poll handles each; ignored
 * while the connection is closed (it belonged to a connection now gone). */
int ens__session_handle(ens_session *session, const void *data, size_t len, int64_t now_ms);
/* What ens_session_poll does besides reading: a new connection when down
 * and the backoff has passed, the silence check, sending what waits,
 * presence and pings. */
int ens__session_tick(ens_session *session, int64_t now_ms);

/* The connection under a detached session is gone (its WebSocket
 * closed): as a ZeroMQ disconnect, a new one after the backoff. */
void ens__session_link_lost(ens_session *session, const char *why, int64_t now_ms);

/* Ids of site this client id may have made in an earlier life (a web page
 * before its reload: the id kept, its memory not) have counters up to
 * counter: when a welcome gives this client that site again, the ids it
 * makes lie above counter too. The document may no longer hold those ids
 * (deleted since, and a snapshot only tells of ids present), but an undo
 * of the delete by a collaborator brings them back, so making one again
 * would make that undo fail. */
void ens__session_id_floor(ens_session *session, uint32_t site, uint64_t counter);
/* The highest id counter this session may have made under its site (0
 * before a welcome): what a later life passes to ens__session_id_floor.
 * Read it after each local commit, before the change is sent. */
uint64_t ens__session_id_mark(const ens_session *session);

/* The queue of pending transactions (borrowed), for checks. */
const ens__pending *ens__session_queue(const ens_session *session);

#endif
