/* `ensemble history STORE`: the transactions a session's store holds, who
 * made each, when, and what it changed, read beside a running server
 * (ensemble/history.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "docfile.h"

static const cli_option s_options[] = {
    {"json", 'j', NULL, "one JSON object per transaction, one a line"},
    {"output", 'o', "FILE", "with STORE@SEQ: write the document after SEQ to FILE (.sfd, .svg or a snapshot)"},
    {0},
};

static const cli_spec s_spec = {
    "history", "STORE | STORE@SEQ -o FILE",
    "Lists the transactions of a session as its server's store (FILE.ensemble\n"
    "beside the served FILE, or what serve --store named) holds them, oldest\n"
    "first: the seq, when the server accepted it (\"-\" for transactions\n"
    "stored before times were recorded), who made it (the client's site and\n"
    "id, and the author the editor gave, if any), its operations by kind and\n"
    "the objects it touched, named by their format's identity keys (glyph a,\n"
    "rect#logo). The store is opened read-only: a running server is not\n"
    "disturbed. Any listed seq from the oldest the store rebuilds can be\n"
    "loaded as STORE@SEQ wherever a command reads a document, and written\n"
    "to a file with `ensemble history STORE@SEQ -o FILE` (a file named with\n"
    "@ that exists is read as that file).\n"
    "Exit status: 0; 1 when the store is missing or does not read, or SEQ is\n"
    "past the session's end or older than the store keeps; 2 for usage.",
    s_options, 1, 1};

#define MAX_NAMES 5

typedef struct {
  int json;
  ens_identity_fn identity;
} s_ctx;

/* The nearest named object at or above id: "glyph a", "rect#logo"; the
 * kind and id when none has a name, or the id of an object gone. */
static void s_name(const ens_doc *doc, ens_identity_fn identity, ens_id id, char *out, size_t size) {
  const ens_obj *o = doc ? ens_doc_get(doc, id) : NULL;
  char idbuf[32], key[256];
  if (!o) {
    snprintf(out, size, "object %s", cli_id_str(id, idbuf, sizeof idbuf));
    return;
  }
  for (const ens_obj *p = o; p && identity; p = ens_obj_parent(p))
    if (identity(p, key, sizeof key, NULL) == 2) {
      snprintf(out, size, "%s %s", ens_obj_kind(p), key);
      return;
    }
  if (o == ens_doc_root(doc)) snprintf(out, size, "the document");
  else snprintf(out, size, "%s %s", ens_obj_kind(o), cli_id_str(id, idbuf, sizeof idbuf));
}

static void s_json_str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

static int s_print(const ens_history_entry *e, const ens_txn *txn, const ens_doc *after, void *user) {
  s_ctx *c = user;
  char when[40] = "-", client[2 * ENS_HISTORY_CLIENT_LEN + 1];
  if (e->time_ms > 0) {
    time_t t = (time_t)(e->time_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    size_t n = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + n, sizeof when - n, ".%03dZ", (int)(e->time_ms % 1000));
  }
  for (int i = 0; i < ENS_HISTORY_CLIENT_LEN; i++) snprintf(client + 2 * i, 3, "%02x", e->client[i]);
  const char *author = ens_txn_author(txn), *label = ens_txn_label(txn);
  /* the objects touched, by name, each name once */
  char names[MAX_NAMES][300];
  size_t nnames = 0, more = 0;
  for (size_t i = 0; i < e->nobjects; i++) {
    char nm[300];
    s_name(after, c->identity, e->objects[i], nm, sizeof nm);
    size_t k = 0;
    while (k < nnames && strcmp(names[k], nm) != 0) k++;
    if (k < nnames) continue;
    if (nnames < MAX_NAMES) snprintf(names[nnames++], sizeof names[0], "%s", nm);
    else more++;
  }
  if (c->json) {
    printf("{\"seq\":%" PRIu64 ",\"time\":", e->seq);
    if (e->time_ms > 0) printf("\"%s\",\"time_ms\":%" PRId64, when, e->time_ms);
    else printf("null,\"time_ms\":null");
    printf(",\"site\":%" PRIu32 ",\"client\":\"%s\",\"ctn\":%" PRIu64 ",\"author\":", e->site, client, e->ctn);
    if (author && *author) s_json_str(author);
    else printf("null");
    printf(",\"label\":");
    if (label && *label) s_json_str(label);
    else printf("null");
    printf(",\"ops\":{\"set\":%zu,\"insert\":%zu,\"delete\":%zu,\"move\":%zu},\"objects\":%zu,\"touched\":[",
           e->sets, e->inserts, e->deletes, e->moves, e->nobjects);
    for (size_t k = 0; k < nnames; k++) {
      if (k) putchar(',');
      s_json_str(names[k]);
    }
    printf("],\"rebuilt\":%s}\n", after ? "true" : "false");
    return 0;
  }
  printf("%6" PRIu64 "  %-24s  site %-4" PRIu32 " %.8s", e->seq, when, e->site, client);
  if (author && *author) printf(" (%s)", author);
  printf("  ");
  const char *sep = "";
  if (e->sets) printf("%s%zu set", sep, e->sets), sep = ", ";
  if (e->inserts) printf("%s%zu insert", sep, e->inserts), sep = ", ";
  if (e->deletes) printf("%s%zu delete", sep, e->deletes), sep = ", ";
  if (e->moves) printf("%s%zu move", sep, e->moves), sep = ", ";
  if (!*sep) printf("no operations");
  printf(": ");
  for (size_t k = 0; k < nnames; k++) printf("%s%s", k ? ", " : "", names[k]);
  if (more) printf(" and %zu more", more);
  if (label && *label) printf("  \"%s\"", label);
  printf("\n");
  return 0;
}

int cli_cmd_history(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  const char *path = args.args[0], *out = cli_opt(&s_spec, &args, "output");
  char store[4096], err[1024];
  uint64_t seq;
  if (cli_doc_store_at(path, store, sizeof store, &seq)) {
    if (!out) return cli_usage_error(&s_spec, "%s names a moment of a session: write it with -o FILE", path);
    ens_doc *d;
    if (cli_doc_load(path, &d, err, sizeof err)) return cli_fail(s_spec.name, "%s", err);
    rc = cli_doc_save(d, out, err, sizeof err);
    ens_doc_free(d);
    if (rc) return cli_fail(s_spec.name, "%s", err);
    printf("%s: seq %llu of %s\n", out, (unsigned long long)seq, store);
    return 0;
  }
  if (out) return cli_usage_error(&s_spec, "-o writes a moment of a session: give STORE@SEQ");
  ens_history *h;
  if (ens_history_open(path, &h)) return cli_fail(s_spec.name, "%s: %s", path, ens_error_last());
  s_ctx c = {cli_opt(&s_spec, &args, "json") != NULL, cli_doc_kind_identity(ens_history_doc_kind(h))};
  if (!c.json)
    printf("%s: a %s session at seq %" PRIu64 "; documents from seq %" PRIu64 " on (%s@SEQ)\n", path,
           ens_history_doc_kind(h), ens_history_head(h), ens_history_oldest(h), path);
  rc = ens_history_list(h, s_print, &c);
  if (rc) {
    fflush(stdout);
    rc = cli_fail(s_spec.name, "%s: %s", path, ens_error_last());
  }
  ens_history_free(h);
  return rc ? rc : 0;
}
