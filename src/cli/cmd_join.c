/* `ensemble join ENDPOINT --file PATH`: joins a session and mirrors its
 * document both ways into a local .sfd, .svg or Lottie (.json, .tgs) file,
 * so that FontForge, Inkscape, a text editor or any editor takes part by opening and saving that file
 * (mirror.c does the file side). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "mirror.h"

static const cli_option s_options[] = {
    {"file", 'f', "PATH", "the .sfd, .svg, .json or .tgs file to mirror the session into (required)"},
    {"name", 'n', "NAME", "the name collaborators see (default \"join\")"},
    {"colour", 'c', "RRGGBB", "the colour collaborators see, in hex (default 808080)"},
    {"seconds", 't', "S", "stop after S seconds (default: at SIGINT or SIGTERM)"},
    {"keys", 'k', "DIR", "this client's key pair (ensemble keygen DIR), for an encrypted server"},
    {"server-key", 's', "KEY", "the server's public key: its ensemble.pub file or the key itself"},
    {"replace", 'r', NULL, "move an existing PATH that is not this session's aside to a backup instead of refusing"},
    {"quiet", 'q', NULL, "print only the last line (seq and hash) and errors"},
    {0}};

static const cli_spec s_spec = {
    "join", "[options] --file PATH ENDPOINT",
    "Joins the session at ENDPOINT and keeps PATH (a .sfd font, a .svg\n"
    "drawing, or a Lottie animation: .json, or .tgs written gzip; a .lottie\n"
    "archive is refused) and the session's document the same, both ways.\n"
    "PATH's format must be the session's. Every save of\n"
    "PATH by an editor is read back (after 150 ms without further writes) and\n"
    "merged three ways: only what the user changed since the version of PATH\n"
    "the editor held (its previous save, what it opened, or the last version\n"
    "written for an editor that reloads) is sent, as one change, so a stale\n"
    "editor never takes back a collaborator's work; where the save replaces a\n"
    "collaborator's newer value, stderr says what and whose. Collaborators'\n"
    "changes are written to PATH atomically, at most every 200 ms, and never\n"
    "over a save not yet read. The versions are kept in .PATH.join beside\n"
    "PATH, so that edits made while join is stopped are merged at the next\n"
    "start. An existing PATH that this session did not write and that differs\n"
    "from its document is refused, or with --replace moved aside to\n"
    "NAME-before-join.EXT. Prints one line per event and, at the stop, the\n"
    "last sequence number and the document's hash (as watch does).",
    s_options, 1, 1};


typedef struct {
  cli_mirror *mirror;
  int quiet;
  int joined; /* the first CONNECTED was seen */
  int failed;
} s_state;

static void s_event(ens_session *s, const ens_session_event *ev, void *user) {
  s_state *st = user;
  int q = st->quiet;
  switch (ev->kind) {
  case ENS_SESSION_CONNECTED:
    if (!q) printf("connected as site %u at seq %llu\n", ens_session_site(s), (unsigned long long)ens_session_seq(s));
    st->joined = 1;
    break;
  case ENS_SESSION_RECONNECTING:
    if (!q) printf("reconnecting: %s\n", ev->message ? ev->message : "");
    break;
  case ENS_SESSION_RESET:
    if (!q) printf("document replaced by a snapshot\n");
    break;
  case ENS_SESSION_JOINED:
    if (!q) printf("joined: site %u %s #%06x\n", ev->site, ev->name ? ev->name : "", ev->colour);
    break;
  case ENS_SESSION_LEFT:
    if (!q) printf("left: site %u\n", ev->site);
    break;
  case ENS_SESSION_REJECTED:
    fprintf(stderr, "ensemble join: rejected: %s: %s\n", ev->label ? ev->label : "a change",
            ev->message ? ev->message : "");
    break;
  case ENS_SESSION_DROPPED: /* the rest of the save stands; the file is brought to what did */
    fprintf(stderr, "ensemble join: %zu operation%s of %s left out: a collaborator had deleted what %s\n",
            ev->dropped, ev->dropped == 1 ? "" : "s", ev->label ? ev->label : "a change",
            ev->dropped == 1 ? "it edits" : "they edit");
    break;
  case ENS_SESSION_FAILED:
    fprintf(stderr, "ensemble join: refused: %s\n", ev->message ? ev->message : "");
    st->failed = 1;
    break;
  default: break;
  }
  /* the mirror learns who changed what, and of a replaced history */
  cli_mirror_event(st->mirror, ev);
  fflush(stdout);
}

static double s_elapsed(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

int cli_cmd_join(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *file = cli_opt(&s_spec, &args, "file");
  const char *name = cli_opt(&s_spec, &args, "name");
  const char *colour_s = cli_opt(&s_spec, &args, "colour");
  const char *secs = cli_opt(&s_spec, &args, "seconds");
  int quiet = cli_opt(&s_spec, &args, "quiet") != NULL;
  int replace = cli_opt(&s_spec, &args, "replace") != NULL;
  if (!file) return cli_usage_error(&s_spec, "--file PATH is required");
  double limit = 0;
  if (secs) {
    char *end;
    limit = strtod(secs, &end);
    if (*end || !(limit > 0)) return cli_usage_error(&s_spec, "--seconds wants a positive number");
  }
  unsigned long colour = 0x808080;
  if (colour_s) {
    char *end;
    colour = strtoul(colour_s + (colour_s[0] == '#'), &end, 16);
    if (*end || colour > 0xffffff) return cli_usage_error(&s_spec, "--colour wants six hex digits, RRGGBB");
  }
  cli_client_keys keys;
  if ((rc = cli_client_keys_read(&s_spec, &args, &keys)) != CLI_RUN) return rc;

  char err[512];
  s_state st;
  memset(&st, 0, sizeof st);
  st.quiet = quiet;
  rc = cli_mirror_new(file, quiet, replace, &st.mirror, err, sizeof err);
  if (rc) cli_client_keys_wipe(&keys);
  if (rc == -2) return cli_usage_error(&s_spec, "%s", err);
  if (rc) return cli_fail(s_spec.name, "%s", err);

  ens_session_opts o;
  memset(&o, 0, sizeof o);
  cli_client_keys_use(&keys, &o);
  o.endpoint = args.args[0];
  o.name = name ? name : "join";
  o.colour = (uint32_t)colour;
  o.on_event = s_event;
  o.user = &st;
  ens_session *s;
  rc = ens_session_new(&o, &s);
  cli_client_keys_wipe(&keys);
  if (rc) {
    cli_mirror_free(st.mirror);
    return cli_fail(s_spec.name, "%s", ens_error_last());
  }
  if (cli_mirror_attach(st.mirror, s, err, sizeof err)) {
    ens_session_free(s);
    cli_mirror_free(st.mirror);
    return cli_fail(s_spec.name, "%s", err);
  }
  cli_stop_on_signals();

  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int status = CLI_OK, kind_checked = 0;
  while (!cli_stop_requested() && !st.failed) {
    /* short polls: the file's events are looked at between them */
    if ((rc = ens_session_poll(s, 20)) != 0) {
      status = cli_fail(s_spec.name, "%s", ens_error_last());
      break;
    }
    if (!kind_checked && ens_session_doc(s)) {
      const char *kind = ens_doc_kind(ens_session_doc(s));
      if (strcmp(kind, cli_mirror_doc_kind(st.mirror)) != 0) {
        status = cli_fail(s_spec.name, "the session holds a document of kind \"%s\", not one for %s", kind, file);
        break;
      }
      kind_checked = 1;
    }
    if (cli_mirror_step(st.mirror, err, sizeof err)) {
      status = cli_fail(s_spec.name, "%s", err);
      break;
    }
    if (limit > 0 && s_elapsed(&t0) >= limit) break;
  }
  if (st.failed) status = CLI_FAIL;
  ens_doc *doc = ens_session_doc(s);
  if (status == CLI_OK && doc) {
    /* a save made just before the stop is still sent, and given a moment
     * to become durable */
    cli_mirror_flush(st.mirror);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    while (ens_session_pending(s) > 0 && s_elapsed(&t1) < 3.0)
      if (ens_session_poll(s, 20) != 0) break;
    if (ens_session_pending(s) > 0)
      fprintf(stderr, "ensemble join: %zu changes not acknowledged by the server at the stop\n", ens_session_pending(s));
    doc = ens_session_doc(s);
  }
  if (!doc) {
    fprintf(stderr, "ensemble join: never joined %s\n", args.args[0]);
    status = CLI_FAIL;
  } else {
    printf("seq %llu hash %016llx objects %zu\n", (unsigned long long)ens_session_seq(s),
           (unsigned long long)ens_doc_hash(doc), ens_doc_count(doc));
  }
  cli_mirror_free(st.mirror); /* before the session it borrows */
  ens_session_free(s);
  return status;
}
