/* `ensemble keygen DIR`: a CurveZMQ key pair for sessions. DIR/ensemble.key
 * holds the secret key (mode 0600, written atomically), DIR/ensemble.pub
 * the public one; the public key is printed, the secret one never. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const cli_option s_options[] = {
    {"force", 'f', NULL, "replace keys already in DIR"},
    {0}};

static const cli_spec s_spec = {
    "keygen", "[options] DIR",
    "Makes a key pair for encrypted sessions: DIR/ensemble.key holds the\n"
    "secret key (readable by its owner only), DIR/ensemble.pub the public\n"
    "key, which is also printed. A server is started with --keys DIR and\n"
    "gives its public key to clients (watch --server-key); a client gives\n"
    "its public key to the server's authorised-keys file, one line each:\n"
    "\"PUBLICKEY name\". DIR is created when missing; keys already there\n"
    "are kept unless --force is given.",
    s_options, 1, 1};

int cli_cmd_keygen(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *dir = args.args[0];
  int force = cli_opt(&s_spec, &args, "force") != NULL;
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) return cli_fail(s_spec.name, "cannot create %s: %s", dir, strerror(errno));
  ens_keypair k;
  if (ens_keypair_generate(&k)) return cli_fail(s_spec.name, "%s", ens_error_last());
  rc = ens_keypair_write(dir, &k, force);
  memset(k.secret_key, 0, sizeof k.secret_key);
  if (rc == ENS_EEXISTS) return cli_fail(s_spec.name, "%s already holds keys (--force replaces them)", dir);
  if (rc) return cli_fail(s_spec.name, "%s", ens_error_last());
  printf("%s\n", k.public_key);
  return CLI_OK;
}
