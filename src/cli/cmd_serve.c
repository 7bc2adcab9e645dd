/* `ensemble serve FILE`: hosts a session for a document. The server orders
 * and logs every change (SQLite next to the file unless --store says
 * otherwise), writes the document back to FILE atomically at each
 * checkpoint and when it stops (SIGINT, SIGTERM), and continues the same
 * document and sequence when restarted on the same store; serve_file.c
 * keeps FILE safe across those starts and stops. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "serve_file.h"

static const cli_option s_options[] = {
    {"bind", 'b', "ENDPOINT", "where clients connect (default tcp://127.0.0.1:7890; port * picks one)"},
    {"store", 's', "PATH", "the session log (default FILE.ensemble)"},
    {"checkpoint-every", 0, "N", "changes between checkpoints and write-backs (default 1000)"},
    {"log-keep", 0, "N", "log entries kept behind a checkpoint for clients catching up (default 10000)"},
    {"keys", 'k', "DIR", "the server's key pair (ensemble keygen DIR): sessions are encrypted"},
    {"authorized-keys", 'a', "FILE", "the client keys let in, \"PUBLICKEY name\" per line (with --keys)"},
    {"insecure", 0, NULL, "without keys (or invites), bind beyond this machine anyway (anyone may join)"},
    {"http", 0, "ADDR:PORT", "also serve browsers: the web client, WebSocket at /ws, GET /status"},
    {"cert", 0, "PEM", "TLS certificate for --http (https, wss; with --key)"},
    {"key", 0, "PEM", "its private key"},
    {"web-root", 0, "DIR", "the web client's files (default: beside the program, or its install)"},
    {"invites", 'i', "FILE", "browsers need an invite from FILE (ensemble invite; default KEYS/invites)"},
    {"quiet", 'q', NULL, "do not log clients joining, leaving and dropped"},
    {0}};

static const cli_spec s_spec = {
    "serve", "[options] FILE",
    "Hosts a real-time session for FILE (a FontForge .sfd font, an .svg drawing,\n"
    "a Lottie animation: .json, .tgs or .lottie, or an Ensemble snapshot).\n"
    "Clients join at ENDPOINT; every change is durable in the store\n"
    "before anyone hears of it. FILE is rewritten atomically at each checkpoint\n"
    "and when the server stops (SIGINT or SIGTERM). Started again on the same\n"
    "store, it continues where it stopped; edits made to FILE meanwhile are\n"
    "merged in as one change, never overwritten. Any failure to write FILE or\n"
    "the store is said, with what was and was not written, and exits 1.\n"
    "With --keys and --authorized-keys, connections are encrypted (CurveZMQ)\n"
    "and only the listed client keys get in, each shown to the others by its\n"
    "name. Without keys the server binds only to this machine (127.0.0.1,\n"
    "[::1], localhost, ipc://) unless --insecure is given. Prints the endpoint\n"
    "it listens on (and its public key) as its first line; clients joining,\n"
    "leaving and dropped, and refused connections, go to stderr.\n"
    "With --http, browsers join the same session at http://ADDR:PORT/ (https\n"
    "with --cert and --key). When the invites file lists anyone, a browser\n"
    "needs a token from it (ensemble invite NAME: a link #token=...), and a\n"
    "revoked one is dropped within a second; without invites, --http binds\n"
    "only to this machine unless --insecure is given. The second line printed\n"
    "is the web address.",
    s_options, 1, 1};


static void s_log(const char *line, void *user) {
  (void)user;
  fprintf(stderr, "ensemble serve: %s\n", line);
}

int cli_cmd_serve(int argc, char **argv) {
  /* before anything exists on disk: a signal during the start only asks
   * for a stop, which comes once the store and FILE agree */
  cli_stop_on_signals();
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *file = args.args[0];
  const char *bind = cli_opt(&s_spec, &args, "bind");
  const char *store = cli_opt(&s_spec, &args, "store");
  const char *every = cli_opt(&s_spec, &args, "checkpoint-every");
  const char *keep = cli_opt(&s_spec, &args, "log-keep");
  const char *keydir = cli_opt(&s_spec, &args, "keys");
  const char *authfile = cli_opt(&s_spec, &args, "authorized-keys");
  int insecure = cli_opt(&s_spec, &args, "insecure") != NULL;
  int quiet = cli_opt(&s_spec, &args, "quiet") != NULL;
  const char *http = cli_opt(&s_spec, &args, "http");
  const char *cert = cli_opt(&s_spec, &args, "cert");
  const char *certkey = cli_opt(&s_spec, &args, "key");
  const char *webroot = cli_opt(&s_spec, &args, "web-root");
  const char *invites = cli_opt(&s_spec, &args, "invites");
  if (!http && (cert || certkey || webroot || invites))
    return cli_usage_error(&s_spec, "--cert, --key, --web-root and --invites go with --http");
  if (!cert != !certkey) return cli_usage_error(&s_spec, "--cert and --key go together");
  char invites_buf[PATH_MAX], root_buf[PATH_MAX];
  if (http && !invites && keydir) {
    snprintf(invites_buf, sizeof invites_buf, "%s/invites", keydir);
    invites = invites_buf;
  }
  if (http && !webroot) webroot = cli_web_root(root_buf, sizeof root_buf);
  if (http) {
    const char *colon = strrchr(http, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || !colon[1] || *end || port < 0 || port > 65535)
      return cli_usage_error(&s_spec, "--http wants ADDR:PORT (127.0.0.1:8080, [::1]:0), not %s", http);
  }
  if (http && !insecure) {
    char ep[300], **names = NULL;
    size_t ninv = 0;
    snprintf(ep, sizeof ep, "tcp://%s", http);
    if (invites && ens_invite_list(invites, &names, &ninv)) return cli_fail(s_spec.name, "%s", ens_error_last());
    ens_invite_names_free(names, ninv);
    if (!ninv && !ens_endpoint_is_local(ep))
      return cli_usage_error(&s_spec,
                             "without invites --http binds only to this machine, not %s (ensemble invite NAME first, "
                             "or --insecure)",
                             http);
  }
  if (http && !cert) {
    char ep[300];
    snprintf(ep, sizeof ep, "tcp://%s", http);
    if (!ens_endpoint_is_local(ep))
      fprintf(stderr,
              "ensemble serve: warning: --http %s without --cert: tokens and the document cross the network "
              "unencrypted\n",
              http);
  }
  if (!bind) bind = "tcp://127.0.0.1:7890";
  if (!keydir != !authfile) return cli_usage_error(&s_spec, "--keys and --authorized-keys go together");
  if (keydir && insecure) return cli_usage_error(&s_spec, "--insecure is for a server without keys");
  if (!keydir && !insecure && !ens_endpoint_is_local(bind))
    return cli_usage_error(&s_spec,
                           "without keys the server binds only to this machine, not %s (give --keys and "
                           "--authorized-keys, or --insecure)",
                           bind);
  char store_buf[4096];
  if (!store) {
    snprintf(store_buf, sizeof store_buf, "%s.ensemble", file);
    store = store_buf;
  }
  long n = every ? strtol(every, NULL, 10) : 1000;
  if (n <= 0) return cli_usage_error(&s_spec, "--checkpoint-every wants a positive number");
  long k = keep ? strtol(keep, NULL, 10) : 10000;
  if (k <= 0 || k > 0x7fffffffL) return cli_usage_error(&s_spec, "--log-keep wants a positive number");
  ens_keypair keys;
  ens_authorized_keys *authorized = NULL;
  if (keydir) {
    if (ens_keypair_read(keydir, &keys)) return cli_fail(s_spec.name, "%s", ens_error_last());
    if (ens_authorized_keys_load(authfile, &authorized)) return cli_fail(s_spec.name, "%s", ens_error_last());
    if (!ens_authorized_keys_count(authorized)) {
      ens_authorized_keys_free(authorized);
      return cli_fail(s_spec.name, "%s lists no key: nobody could join", authfile);
    }
  } else if (insecure && !ens_endpoint_is_local(bind)) {
    fprintf(stderr,
            "ensemble serve: warning: --insecure: %s is not encrypted and anyone who can reach it can read and "
            "change %s\n",
            bind, file);
  }

  char err[600], holds[700];
  cli_serve_file target;
  if (cli_serve_file_open(&target, file, store, err, sizeof err)) {
    ens_authorized_keys_free(authorized);
    return cli_fail(s_spec.name, "%s", err);
  }
  if (cli_stop_requested()) {
    ens_authorized_keys_free(authorized);
    cli_serve_file_close(&target);
    fprintf(stderr, "ensemble serve: stopped before serving; nothing was written\n");
    return CLI_OK;
  }
  ens_server_opts o;
  memset(&o, 0, sizeof o);
  o.endpoint = bind;
  o.store_path = store;
  /* FILE is read into a document only when the store holds none, and
   * then recorded as what the store's first checkpoint was written to */
  o.load_initial = cli_serve_file_load_initial;
  o.initial_file = target.bytes;
  o.initial_file_len = target.len;
  o.checkpoint_every = (uint32_t)n;
  o.log_keep = (uint32_t)k;
  o.on_checkpoint = cli_serve_file_checkpoint;
  o.user = &target;
  o.insecure = insecure;
  if (!quiet) o.on_log = s_log;
  if (keydir) {
    o.secret_key = keys.secret_key;
    o.authorized_keys = authorized;
  }
  ens_server *srv;
  rc = ens_server_new(&o, &srv);
  memset(keys.secret_key, 0, sizeof keys.secret_key);
  ens_authorized_keys_free(authorized);
  if (rc) {
    fprintf(stderr, "ensemble serve: cannot start: %s; %s was not changed\n",
            target.load_err[0] ? target.load_err : ens_error_last(), file);
    cli_serve_file_close(&target);
    return CLI_FAIL;
  }
  if (http) {
    ens_server_http_opts h = {http, cert, certkey, webroot, invites, insecure};
    if (ens_server_http(srv, &h)) {
      fprintf(stderr, "ensemble serve: cannot serve HTTP: %s; %s was not changed\n", ens_error_last(), file);
      ens_server_free(srv);
      cli_serve_file_close(&target);
      return CLI_FAIL;
    }
  }
  target.srv = srv;
  if (cli_serve_file_take_in(&target)) { /* said why; FILE is left as it is */
    ens_server_free(srv);
    cli_serve_file_close(&target);
    return CLI_FAIL;
  }

  printf("serving %s on %s (store %s, seq %llu", file, ens_server_endpoint(srv), store,
         (unsigned long long)ens_server_head(srv));
  if (keydir) printf(", key %s", keys.public_key);
  printf(")\n");
  if (http) {
    char host[256];
    const char *colon = strrchr(http, ':');
    snprintf(host, sizeof host, "%.*s", (int)(colon - http), http);
    printf("web %s://%s:%d/\n", cert ? "https" : "http", host[0] ? host : "localhost", ens_server_http_port(srv));
  }
  fflush(stdout);
  while (!cli_stop_requested()) {
    if ((rc = ens_server_poll(srv, 200)) != 0) {
      fprintf(stderr, "ensemble serve: %s\n", ens_error_last());
      break;
    }
  }
  uint64_t head = ens_server_head(srv);
  int last = ens_server_shutdown(srv); /* the last checkpoint writes FILE */
  if (last) snprintf(err, sizeof err, "%s", ens_error_last());
  ens_server_free(srv);
  int status = rc || target.failures || target.kept ? CLI_FAIL : CLI_OK;
  if (last) {
    status = CLI_FAIL;
    fprintf(stderr,
            "ensemble serve: stopped at seq %llu, but the last checkpoint failed: %s. %s was not written: %s. Every "
            "change acknowledged (up to seq %llu) is in %s, and serve writes %s when it starts again\n",
            (unsigned long long)head, err, file, cli_serve_file_holds(&target, holds, sizeof holds),
            (unsigned long long)head, store, file);
  } else if (target.last_ok) {
    fprintf(stderr, "ensemble serve: stopped at seq %llu; %s written%s\n", (unsigned long long)head, file,
            target.failures ? " (an earlier write-back failed: see above)" : "");
  } else {
    status = CLI_FAIL;
    fprintf(stderr, "ensemble serve: stopped at seq %llu; %s was not written: %s; %s. The session's document is in %s\n",
            (unsigned long long)head, file, target.last_err[0] ? target.last_err : "no write-back was made",
            cli_serve_file_holds(&target, holds, sizeof holds), store);
  }
  cli_serve_file_close(&target);
  return status;
}
