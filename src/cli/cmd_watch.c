/* `ensemble watch ENDPOINT`: joins a session and reports what happens in
 * it, one line per event (who comes and goes, every transaction as it
 * lands with its latency; --json for one JSON object per line), and at
 * the end the document's hash; --out writes the document to a file when
 * it stops, --mirror keeps a file up to date while it runs (a read-only
 * mirror for an editor to open). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

#include "cli.h"
#include "docfile.h"
#include "watch_anim.h"

static const cli_option s_options[] = {
    {"name", 'n', "NAME", "the name collaborators see (default \"watch\")"},
    {"seconds", 't', "S", "stop after S seconds (default: at SIGINT or SIGTERM)"},
    {"until-seq", 'u', "N", "stop once the document holds change N of the session"},
    {"out", 'o', "FILE", "write the document to FILE (.sfd, .svg, .json, .tgs or a snapshot) when stopping"},
    {"mirror", 'm', "FILE", "keep FILE up to date while running (rewritten atomically)"},
    {"every", 0, "MS", "--mirror writes at most once per MS milliseconds (default 1000)"},
    {"keys", 'k', "DIR", "this client's key pair (ensemble keygen DIR), for an encrypted server"},
    {"server-key", 's', "KEY", "the server's public key: its ensemble.pub file or the key itself"},
    {"json", 'j', NULL, "one JSON object per line instead of text"},
    {0}};

static const cli_spec s_spec = {
    "watch", "[options] ENDPOINT",
    "Joins the session at ENDPOINT without changing anything and prints its\n"
    "events: connected, collaborators joining and leaving, reconnects, and\n"
    "every transaction as it lands (seq, author, label, operations, latency:\n"
    "from its author's commit to its arrival here, by the two machines'\n"
    "clocks; \"-\" for one sent in catch-up). --json prints one JSON object\n"
    "per line: {\"event\": \"connected\"|\"joined\"|\"left\"|\"presence\"|\n"
    "\"txn\"|\"reconnecting\"|\"reset\"|\"refused\"|\"stopped\", ...}. In an\n"
    "animation's session each transaction is followed by one line per layer\n"
    "it changed, naming the keyframes (property and time: \"keyframe p t=30\")\n"
    "(--json: a \"layers\" member). When it\n"
    "stops it prints the last sequence number and the document's hash (equal\n"
    "hashes, equal documents) and, with --out, writes the document. With\n"
    "--mirror, FILE is rewritten atomically whenever the document changed,\n"
    "at most once per --every milliseconds, and once more at the stop.\n"
    "An encrypted server needs --keys and --server-key; a server that does\n"
    "not list this client's key refuses it, and watch stops.",
    s_options, 1, 1};


/* Who is here, by site, for the lines about their transactions. */
typedef struct {
  uint32_t site;
  char name[72];
} s_who;

static struct {
  int json;
  s_who who[256];
  size_t nwho;
} s_w;

static const char *s_name_of(uint32_t site) {
  for (size_t i = 0; i < s_w.nwho; i++)
    if (s_w.who[i].site == site) return s_w.who[i].name;
  return "";
}

static void s_remember(uint32_t site, const char *name) {
  size_t i = 0;
  while (i < s_w.nwho && s_w.who[i].site != site) i++;
  if (i == s_w.nwho) {
    if (s_w.nwho == sizeof s_w.who / sizeof *s_w.who) return; /* shown by site alone */
    s_w.nwho++;
  }
  s_w.who[i].site = site;
  snprintf(s_w.who[i].name, sizeof s_w.who[i].name, "%s", name ? name : "");
}

static void s_forget(uint32_t site) {
  for (size_t i = 0; i < s_w.nwho; i++)
    if (s_w.who[i].site == site) {
      s_w.who[i] = s_w.who[--s_w.nwho];
      return;
    }
}

/* A JSON string: quotes, backslashes and control characters escaped;
 * other bytes as they are (the session's texts are UTF-8). */
static void s_json_str(const char *t) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)(t ? t : ""); *p; p++) {
    if (*p == '"' || *p == '\\') printf("\\%c", *p);
    else if (*p == '\n') fputs("\\n", stdout);
    else if (*p < 0x20) printf("\\u%04x", *p);
    else putchar(*p);
  }
  putchar('"');
}

static double s_latency_ms(uint64_t committed_us) {
  if (!committed_us) return -1;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  int64_t us = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000 - (int64_t)committed_us;
  return us / 1000.0;
}

static void s_event(ens_session *s, const ens_session_event *ev, void *user) {
  (void)user;
  int j = s_w.json;
  switch (ev->kind) {
  case ENS_SESSION_CONNECTED:
    if (j) printf("{\"event\": \"connected\", \"site\": %u, \"seq\": %llu}\n", ens_session_site(s),
                  (unsigned long long)ens_session_seq(s));
    else printf("connected as site %u at seq %llu\n", ens_session_site(s), (unsigned long long)ens_session_seq(s));
    break;
  case ENS_SESSION_RECONNECTING:
    if (j) {
      printf("{\"event\": \"reconnecting\", \"why\": ");
      s_json_str(ev->message);
      printf("}\n");
    } else {
      printf("reconnecting: %s\n", ev->message ? ev->message : "");
    }
    break;
  case ENS_SESSION_RESET:
    if (j) printf("{\"event\": \"reset\", \"seq\": %llu}\n", (unsigned long long)ens_session_seq(s));
    else printf("document replaced by a snapshot\n");
    break;
  case ENS_SESSION_JOINED:
  case ENS_SESSION_PRESENCE:
    s_remember(ev->site, ev->name);
    if (j) {
      printf("{\"event\": \"%s\", \"site\": %u, \"name\": ", ev->kind == ENS_SESSION_JOINED ? "joined" : "presence",
             ev->site);
      s_json_str(ev->name);
      printf(", \"colour\": \"#%06x\", \"selected\": %zu}\n", ev->colour, ev->selection_count);
    } else if (ev->kind == ENS_SESSION_JOINED) {
      printf("joined: site %u %s #%06x (%zu here)\n", ev->site, ev->name, ev->colour, s_w.nwho);
    }
    break;
  case ENS_SESSION_LEFT:
    if (j) {
      printf("{\"event\": \"left\", \"site\": %u, \"name\": ", ev->site);
      s_json_str(s_name_of(ev->site));
      printf("}\n");
    } else {
      printf("left: site %u %s", ev->site, s_name_of(ev->site));
    }
    s_forget(ev->site);
    if (!j) printf(" (%zu here)\n", s_w.nwho);
    break;
  case ENS_SESSION_LANDED: {
    double ms = s_latency_ms(ev->committed_us);
    if (j) {
      printf("{\"event\": \"txn\", \"seq\": %llu, \"site\": %u, \"name\": ", (unsigned long long)ev->seq, ev->site);
      s_json_str(s_name_of(ev->site));
      printf(", \"ctn\": %llu, \"label\": ", (unsigned long long)ev->ctn);
      s_json_str(ev->label);
      printf(", \"ops\": %zu", ev->ops);
      cli_watch_anim_json(stdout, ens_session_doc(s), ev->txn);
      printf(", \"latency_ms\": ");
      if (ev->committed_us) printf("%.3f}\n", ms);
      else printf("null}\n");
    } else {
      printf("txn %llu: site %u %s, \"%s\", %zu op%s, ", (unsigned long long)ev->seq, ev->site, s_name_of(ev->site),
             ev->label ? ev->label : "", ev->ops, ev->ops == 1 ? "" : "s");
      if (ev->committed_us) printf("latency %.2f ms\n", ms);
      else printf("latency -\n");
      cli_watch_anim_text(stdout, ens_session_doc(s), ev->txn); /* an animation: its layers and keyframes */
    }
    break;
  }
  case ENS_SESSION_FAILED:
    if (j) {
      printf("{\"event\": \"refused\", \"why\": ");
      s_json_str(ev->message);
      printf("}\n");
    } else {
      printf("refused: %s\n", ev->message ? ev->message : "");
    }
    break;
  default: break;
  }
  fflush(stdout);
}

int cli_cmd_watch(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *name = cli_opt(&s_spec, &args, "name");
  s_w.json = cli_opt(&s_spec, &args, "json") != NULL;
  const char *secs = cli_opt(&s_spec, &args, "seconds");
  const char *until = cli_opt(&s_spec, &args, "until-seq");
  const char *out = cli_opt(&s_spec, &args, "out");
  const char *mirror = cli_opt(&s_spec, &args, "mirror");
  const char *every_s = cli_opt(&s_spec, &args, "every");
  long every = every_s ? strtol(every_s, NULL, 10) : 1000;
  if (every <= 0) return cli_usage_error(&s_spec, "--every wants a positive number of milliseconds");
  double limit = secs ? strtod(secs, NULL) : 0;
  unsigned long long until_seq = until ? strtoull(until, NULL, 10) : 0;
  if (secs && limit <= 0) return cli_usage_error(&s_spec, "--seconds wants a positive number");

  cli_client_keys keys;
  if ((rc = cli_client_keys_read(&s_spec, &args, &keys)) != CLI_RUN) return rc;

  ens_session_opts o;
  memset(&o, 0, sizeof o);
  cli_client_keys_use(&keys, &o);
  o.endpoint = args.args[0];
  o.name = name ? name : "watch";
  o.colour = 0x808080;
  o.on_event = s_event;
  ens_session *s;
  rc = ens_session_new(&o, &s);
  cli_client_keys_wipe(&keys);
  if (rc) return cli_fail(s_spec.name, "%s", ens_error_last());
  cli_stop_on_signals();
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  rc = 0;
  uint64_t written = UINT64_MAX;
  double last_write = -1e9;
  int status = CLI_OK;
  char err[512];
  while (!cli_stop_requested()) {
    if ((rc = ens_session_poll(s, 100)) != 0) break;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double now = (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9;
    /* the mirror changes nothing itself: a new seq is a changed document */
    if (mirror && ens_session_is_live(s) && ens_session_seq(s) != written && now - last_write >= every / 1000.0) {
      if (cli_doc_save(ens_session_doc(s), mirror, err, sizeof err)) {
        status = cli_fail(s_spec.name, "%s", err);
        break;
      }
      written = ens_session_seq(s);
      last_write = now;
    }
    if (until && ens_session_is_live(s) && ens_session_seq(s) >= until_seq) break;
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (limit > 0 && (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= limit) break;
  }
  ens_doc *doc = ens_session_doc(s);
  if (rc) status = CLI_FAIL;
  if (!doc) {
    fprintf(stderr, "ensemble watch: never joined %s\n", args.args[0]);
    status = CLI_FAIL;
  } else {
    if (s_w.json)
      printf("{\"event\": \"stopped\", \"seq\": %llu, \"hash\": \"%016llx\", \"objects\": %zu}\n",
             (unsigned long long)ens_session_seq(s), (unsigned long long)ens_doc_hash(doc), ens_doc_count(doc));
    else
      printf("seq %llu hash %016llx objects %zu\n", (unsigned long long)ens_session_seq(s),
             (unsigned long long)ens_doc_hash(doc), ens_doc_count(doc));
    if (out && cli_doc_save(doc, out, err, sizeof err)) status = cli_fail(s_spec.name, "%s", err);
    if (mirror && status == CLI_OK && cli_doc_save(doc, mirror, err, sizeof err)) status = cli_fail(s_spec.name, "%s", err);
  }
  ens_session_free(s);
  return status;
}
