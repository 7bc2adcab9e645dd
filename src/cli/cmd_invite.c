/* `ensemble invite NAME`: a token that lets NAME's browser join a session
 * served with --http. The invites file (beside the server's keys, or
 * --invites) keeps only the token's hash; the token is printed once, with
 * the page's link. --revoke and --list manage the file. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_option s_options[] = {
    {"keys", 'k', "DIR", "the server's keys directory: the invites file is DIR/invites"},
    {"invites", 'i', "FILE", "the invites file itself"},
    {"http", 0, "ADDR:PORT", "the server's --http address, for the link (https with --tls)"},
    {"tls", 0, NULL, "the server has a certificate: the link is https"},
    {"revoke", 'r', NULL, "remove NAME's invite: a server drops NAME's browsers within a second"},
    {"list", 'l', NULL, "print the names invited, one a line (no NAME)"},
    {0}};

static const cli_spec s_spec = {
    "invite", "[options] NAME",
    "Invites NAME to the sessions a server started with --http and this\n"
    "invites file serves: prints a token and the page's link with it\n"
    "(http://ADDR:PORT/#token=TOKEN; the part after # never reaches a\n"
    "server). Only the token's SHA-256 is kept, in the invites file (mode\n"
    "0600, written atomically): the token cannot be printed again; revoke\n"
    "and invite again for a new one. Once the file lists anyone, a browser\n"
    "without a valid token gets nothing of the document.",
    s_options, 0, 1};

int cli_cmd_invite(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *dir = cli_opt(&s_spec, &args, "keys");
  const char *file = cli_opt(&s_spec, &args, "invites");
  const char *http = cli_opt(&s_spec, &args, "http");
  int tls = cli_opt(&s_spec, &args, "tls") != NULL;
  int revoke = cli_opt(&s_spec, &args, "revoke") != NULL;
  int list = cli_opt(&s_spec, &args, "list") != NULL;
  if (!dir == !file) return cli_usage_error(&s_spec, "give --keys DIR or --invites FILE (one of them)");
  if (revoke && list) return cli_usage_error(&s_spec, "--revoke and --list do not go together");
  if (list != (args.nargs == 0)) return cli_usage_error(&s_spec, list ? "--list takes no NAME" : "NAME is missing");
  char path[4096];
  if (dir) snprintf(path, sizeof path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", "invites");
  else snprintf(path, sizeof path, "%s", file);
  if (list) {
    char **names;
    size_t n;
    if (ens_invite_list(path, &names, &n)) return cli_fail(s_spec.name, "%s", ens_error_last());
    for (size_t i = 0; i < n; i++) printf("%s\n", names[i]);
    ens_invite_names_free(names, n);
    return CLI_OK;
  }
  const char *name = args.args[0];
  if (revoke) {
    if (ens_invite_revoke(path, name)) return cli_fail(s_spec.name, "%s", ens_error_last());
    printf("revoked %s\n", name);
    return CLI_OK;
  }
  char token[ENS_TOKEN_LEN + 1];
  if (ens_invite_add(path, name, token)) return cli_fail(s_spec.name, "%s", ens_error_last());
  printf("token %s\n", token);
  printf("link %s://%s/#token=%s\n", tls ? "https" : "http", http ? http : "HOST:PORT", token);
  memset(token, 0, sizeof token);
  return CLI_OK;
}
