/* The server's protocol logic without its socket, for the fuzz target and
 * tests: messages are handed in as if received from routing id rid, and
 * what would be sent is only counted. */
#ifndef ENS_SESSION_SERVER_INT_H
#define ENS_SESSION_SERVER_INT_H

#include "ensemble/session.h"
#include "store.h"

/* As ens_server_new, without binding anything (opts->endpoint unused). */
int ens__server_new_detached(const ens_server_opts *opts, ens_server **out);
/* One received message; what ens_server_poll does for each. */
int ens__server_handle(ens_server *server, const void *rid, size_t rid_len, const void *data, size_t len,
                       int64_t now_ms);
/* The end of a poll round: group commit, replies, sweep, checkpoint. */
int ens__server_flush(ens_server *server, int64_t now_ms);
size_t ens__server_sent(const ens_server *server);
/* Clients with entries held back for them (sent within a millisecond). */
size_t ens__server_held(const ens_server *server);
/* The server's log (borrowed), for checks. */
struct ens__store *ens__server_store(ens_server *server);
/* A smaller site space (1..site_max) and fewer idle clients than the
 * defaults (ENS_SITE_MAX, 4,096), so that tests reach the point where
 * sites are handed on in seconds. Before any hello. */
void ens__server_set_sites(ens_server *server, uint32_t site_max, size_t idle_max);
/* The clients the server knows, and record i of them (borrowed until the
 * next call that handles a message). */
size_t ens__server_clients(const ens_server *server);
int ens__server_client_at(const ens_server *server, size_t i, ens__client_rec *out);

#endif
