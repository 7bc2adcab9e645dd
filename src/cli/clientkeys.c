/* The client side of an encrypted session, for the commands that join one
 * (watch, join): --keys DIR and --server-key KEY read together, handed to
 * the session's options, and the secret key wiped once the session holds
 * its own copy. */
#include <string.h>

#include "cli.h"

int cli_client_keys_read(const cli_spec *spec, const cli_args *args, cli_client_keys *k) {
  memset(k, 0, sizeof *k);
  const char *dir = cli_opt(spec, args, "keys");
  const char *server = cli_opt(spec, args, "server-key");
  if (!dir != !server) return cli_usage_error(spec, "--keys and --server-key go together");
  if (!dir) return CLI_RUN;
  if (ens_keypair_read(dir, &k->pair) || ens_public_key_read(server, k->server)) {
    cli_client_keys_wipe(k);
    return cli_fail(spec->name, "%s", ens_error_last());
  }
  k->on = 1;
  return CLI_RUN;
}

void cli_client_keys_use(cli_client_keys *k, ens_session_opts *o) {
  if (!k->on) return;
  o->server_key = k->server;
  o->public_key = k->pair.public_key;
  o->secret_key = k->pair.secret_key;
}

void cli_client_keys_wipe(cli_client_keys *k) { memset(k->pair.secret_key, 0, sizeof k->pair.secret_key); }
