/* The file of `ensemble serve FILE` (see serve_file.h): what the store
 * last wrote there is recorded in the store (ens_server_file_*), so that
 * at the start an edited FILE is merged in, never overwritten, and a
 * store that holds no document is completed from FILE. */
#define _POSIX_C_SOURCE 200809L
#include "serve_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "docfile.h"

#define FILE_MAX ((size_t)1 << 30)

/* FNV-1a: enough to tell FILE's bytes from those last read or written
 * (with the size beside it); the store keeps its own stronger record. */
static uint64_t s_hash(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

static void s_know(cli_serve_file *f, const void *bytes, size_t len) {
  f->known = 1;
  f->known_len = len;
  f->known_hash = s_hash(bytes, len);
}

/* FILE's document, for a store that holds none; 1 with f->load_err. */
static int s_parse(cli_serve_file *f, ens_doc **doc) {
  *doc = NULL;
  if (!f->bytes) {
    snprintf(f->load_err, sizeof f->load_err, "%s does not exist, and %s holds no document to serve", f->path,
             f->store);
    return 1;
  }
  return cli_doc_parse(f->path, f->bytes, f->len, doc, f->load_err, sizeof f->load_err) ? 1 : 0;
}

int cli_serve_file_open(cli_serve_file *f, const char *path, const char *store, char *err, size_t err_size) {
  memset(f, 0, sizeof *f);
  f->path = path;
  f->store = store;
  cli_clean_temps(path); /* what a writer killed before its rename left */
  struct stat st;
  if (stat(path, &st) == 0) {
    if (cli_read_file(path, FILE_MAX, &f->bytes, &f->len, err, err_size)) return -1;
    s_know(f, f->bytes, f->len);
  } else if (errno != ENOENT) { /* ENOENT: missing, or a link to nothing yet */
    snprintf(err, err_size, "cannot read %s: %s", path, strerror(errno));
    return -1;
  }
  /* a first start that cannot serve FILE (missing, or not readable as a
   * document) leaves no empty store behind; the server takes the
   * document parsed here when the store is still new (load_initial) */
  if (stat(store, &st) != 0 && errno == ENOENT && s_parse(f, &f->first)) {
    snprintf(err, err_size, "cannot start: %s; %s was not changed", f->load_err, path);
    cli_serve_file_close(f); /* a failed open leaves nothing to close */
    return -1;
  }
  return 0;
}

void cli_serve_file_close(cli_serve_file *f) {
  free(f->bytes);
  f->bytes = NULL;
  ens_doc_free(f->first);
  f->first = NULL;
}

int cli_serve_file_load_initial(ens_doc **doc, void *user) {
  cli_serve_file *f = user;
  *doc = NULL;
  if (f->first) { /* parsed when the store did not exist yet */
    *doc = f->first;
    f->first = NULL;
  } else if (s_parse(f, doc)) {
    return 1;
  }
  f->loaded = 1;
  f->seq_known = 1;
  f->seq = 0;
  return 0;
}

const char *cli_serve_file_holds(const cli_serve_file *f, char *buf, size_t size) {
  if (!f->known) snprintf(buf, size, "%s does not exist", f->path);
  else if (f->seq_known) snprintf(buf, size, "%s holds seq %llu", f->path, (unsigned long long)f->seq);
  else snprintf(buf, size, "%s holds what it held when the server started", f->path);
  return buf;
}

/* --- writing back ------------------------------------------------------------ */

typedef struct {
  cli_serve_file *f;
  uint64_t seq;
  const unsigned char *bytes;
  size_t len;
  char why[600];
} s_write;

/* Right before FILE is replaced: it must still hold what this process
 * last read or wrote there (an edit made meanwhile is kept, and taken in
 * at the next start), and the store must know what replaces it. */
static int s_before_rename(const char *path, const char *tmp, void *user) {
  (void)tmp;
  s_write *w = user;
  cli_serve_file *f = w->f;
  struct stat st;
  if (stat(path, &st) == 0) {
    char *cur = NULL, err[600];
    size_t n = 0;
    if (cli_read_file(path, FILE_MAX, &cur, &n, err, sizeof err)) {
      snprintf(w->why, sizeof w->why, "%s: not replaced, as it cannot be compared with what was last written", err);
      return 1;
    }
    int same = f->known && n == f->known_len && s_hash(cur, n) == f->known_hash;
    free(cur);
    if (!same) {
      f->kept = 1;
      snprintf(w->why, sizeof w->why,
               "%s was changed while the server ran: not overwritten; its edits are taken in when serve starts "
               "again",
               path);
      return 1;
    }
  }
  if (ens_server_file_writing(f->srv, w->seq, w->bytes, w->len)) {
    snprintf(w->why, sizeof w->why, "%s could not record the write, so it was not made: %s", f->store,
             ens_error_last());
    return 1;
  }
  return 0;
}

void cli_serve_file_checkpoint(const ens_doc *doc, uint64_t seq, void *user) {
  cli_serve_file *f = user;
  if (f->hold || !f->srv) return;
  s_write w = {f, seq, NULL, 0, ""};
  unsigned char *bytes = NULL;
  char holds[700];
  int was_kept = f->kept;
  f->last_ok = 0;
  if (cli_doc_encode(doc, f->path, &bytes, &w.len, w.why, sizeof w.why) == 0) {
    w.bytes = bytes;
    int rc = cli_write_atomic_check(f->path, bytes, w.len, s_before_rename, &w, w.why, sizeof w.why);
    if (rc == 0) {
      s_know(f, bytes, w.len);
      f->seq_known = 1;
      f->seq = seq;
      f->last_ok = 1;
      if (ens_server_file_written(f->srv)) {
        /* FILE is right; the record says a write was under way, which
         * the next start settles by FILE's bytes */
        fprintf(stderr, "ensemble serve: %s written at seq %llu, but %s could not record it: %s\n", f->path,
                (unsigned long long)seq, f->store, ens_error_last());
        f->failures++;
      }
      ens_free(bytes);
      return;
    }
  }
  ens_free(bytes);
  snprintf(f->last_err, sizeof f->last_err, "%s", w.why);
  if (f->kept) {
    if (!was_kept) fprintf(stderr, "ensemble serve: %s\n", w.why);
    return;
  }
  f->failures++;
  fprintf(stderr, "ensemble serve: write-back at seq %llu failed: %s; %s\n", (unsigned long long)seq, w.why,
          cli_serve_file_holds(f, holds, sizeof holds));
}

/* --- at the start ------------------------------------------------------------ */

static int s_refuse(cli_serve_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int s_refuse(cli_serve_file *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "ensemble serve: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  f->hold = 1;
  return -1;
}

static const char *s_val(const ens_value *v, char *buf, size_t size) {
  switch (v->type) {
  case ENS_NIL: snprintf(buf, size, "(none)"); break;
  case ENS_INT: snprintf(buf, size, "%lld", (long long)v->u.i); break;
  case ENS_REAL: snprintf(buf, size, "%.17g", v->u.r); break;
  case ENS_BOOL: snprintf(buf, size, "%s", v->u.b ? "true" : "false"); break;
  case ENS_REF: cli_id_str(v->u.ref, buf, size); break;
  case ENS_BYTES: snprintf(buf, size, "(%zu bytes)", v->u.s.len); break;
  case ENS_STR: {
    size_t k = 0, n = v->u.s.len > 60 ? 60 : v->u.s.len;
    if (k + 1 < size) buf[k++] = '"';
    for (size_t i = 0; i < n && k + 3 < size; i++) {
      char c = v->u.s.ptr[i];
      if (c == '\n' || c == '\r' || c == '\t') {
        buf[k++] = '\\';
        buf[k++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
      } else {
        buf[k++] = (unsigned char)c < ' ' ? '?' : c;
      }
    }
    if (v->u.s.len > n && k + 4 < size) {
      memcpy(buf + k, "...", 3);
      k += 3;
    }
    if (k + 1 < size) buf[k++] = '"';
    buf[k] = '\0';
    break;
  }
  default: snprintf(buf, size, "?"); break;
  }
  return buf;
}

static void s_say_conflicts(const cli_serve_file *f, const ens_merge *m) {
  size_t n = m ? ens_merge_conflict_count(m) : 0;
  for (size_t i = 0; i < n; i++) {
    const ens_merge_conflict *c = ens_merge_conflict_at(m, i);
    const char *where = c->path ? c->path : "?", *side = c->ours_kept ? f->path : "the session";
    char b[128], o[128], t[128];
    switch (c->kind) {
    case ENS_CONFLICT_SET:
      fprintf(stderr,
              "ensemble serve: %s: %s, %s: changed in both from %s: %s has %s, the session had %s; %s's kept\n",
              f->path, where, c->key ? c->key : "?", s_val(&c->base, b, sizeof b), f->path,
              s_val(&c->ours, o, sizeof o), s_val(&c->theirs, t, sizeof t), side);
      break;
    case ENS_CONFLICT_INSERT:
      fprintf(stderr, "ensemble serve: %s: %s, %s: added in both, %s with %s, the session with %s; %s's kept\n",
              f->path, where, c->key ? c->key : "?", f->path, s_val(&c->ours, o, sizeof o),
              s_val(&c->theirs, t, sizeof t), side);
      break;
    case ENS_CONFLICT_DELETE:
      fprintf(stderr, "ensemble serve: %s: %s: deleted on one side and changed on the other; %s's side kept\n",
              f->path, where, side);
      break;
    case ENS_CONFLICT_MOVE:
      fprintf(stderr, "ensemble serve: %s: %s: moved or ordered differently in both; %s's order kept\n", f->path,
              where, side);
      break;
    }
  }
}

/* FILE's edits since base (the document last written there, at wseq),
 * merged with what the session did since, as one transaction of the
 * host's, and FILE written again from the result. */
static int s_take_in_edits(cli_serve_file *f, const ens_doc *base, uint64_t wseq, ens_doc *ours) {
  ens_server *srv = f->srv;
  uint64_t head = ens_server_head(srv);
  ens_doc *theirs = NULL;
  ens_merge *m = NULL;
  ens_txn *txn = NULL;
  unsigned char *snap = NULL;
  size_t len = 0;
  uint32_t site = 0;
  int rc;
  /* a copy of the session's document with the host's site, so that the
   * objects the file added take ids nobody else uses */
  if ((rc = ens_server_host_site(srv, &site)) || (rc = ens_snapshot_encode(ens_server_doc(srv), &snap, &len)) ||
      (rc = ens_snapshot_decode(snap, len, &theirs))) {
    rc = s_refuse(f, "%s was changed since the server last wrote it (seq %llu), and its edits could not be taken "
                     "in: %s. Nothing was written.",
                  f->path, (unsigned long long)wseq, ens_error_last());
    goto done;
  }
  ens_doc_set_site(theirs, site);
  ens_identity_fn identity = cli_doc_identity(f->path);
  if (identity && wseq == head) {
    rc = ens_doc_diff(theirs, ours, identity, NULL, &txn); /* the session did nothing since: a plain diff */
  } else {
    ens_merge_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.identity = identity;
    mo.refs = identity == ens_svg_identity ? ens_svg_refs : NULL; /* references a drawing keeps in text */
    mo.ours_match = identity ? ENS_MERGE_BY_KEY : ENS_MERGE_BY_ID; /* a snapshot keeps the session's ids */
    mo.theirs_match = ENS_MERGE_BY_ID;
    mo.prefer = ENS_MERGE_PREFER_OURS; /* the file was edited after the server stopped */
    rc = ens_merge3(base, ours, theirs, &mo, &m);
    if (!rc && !(txn = ens_merge_take_txn(m))) rc = ENS_ENOMEM;
  }
  if (rc) {
    rc = s_refuse(f, "%s was changed since the server last wrote it (seq %llu), and its edits could not be merged "
                     "with the session's: %s. Nothing was written.",
                  f->path, (unsigned long long)wseq, ens_error_last());
    goto done;
  }
  size_t ops = ens_txn_op_count(txn);
  if (!ops) {
    fprintf(stderr, "ensemble serve: %s was changed since the server last wrote it (seq %llu), but holds no edit "
                    "of the document's\n",
            f->path, (unsigned long long)wseq);
    goto done;
  }
  ens_txn_set_label(txn, "Edited while the server was stopped");
  if ((rc = ens_server_commit(srv, txn))) {
    rc = s_refuse(f, "%s was changed since the server last wrote it (seq %llu), and its edits were refused: %s. "
                     "Nothing was written.",
                  f->path, (unsigned long long)wseq, ens_error_last());
    goto done;
  }
  if (wseq < head)
    fprintf(stderr,
            "ensemble serve: %s was changed since the server last wrote it (seq %llu): its edits, merged with the "
            "session's changes up to seq %llu, are taken in as seq %llu (%zu operation%s)\n",
            f->path, (unsigned long long)wseq, (unsigned long long)head, (unsigned long long)ens_server_head(srv), ops,
            ops == 1 ? "" : "s");
  else
    fprintf(stderr,
            "ensemble serve: %s was changed since the server last wrote it (seq %llu): its edits are taken in as seq "
            "%llu (%zu operation%s)\n",
            f->path, (unsigned long long)wseq, (unsigned long long)ens_server_head(srv), ops, ops == 1 ? "" : "s");
  s_say_conflicts(f, m);
done:
  if (!rc && !f->hold && ens_server_checkpoint(srv)) /* FILE now, from the merged document */
    fprintf(stderr, "ensemble serve: the checkpoint after taking %s in failed: %s\n", f->path, ens_error_last());
  ens_txn_free(txn);
  ens_merge_free(m);
  ens_doc_free(theirs);
  ens_free(snap);
  return rc;
}

int cli_serve_file_take_in(cli_serve_file *f) {
  if (f->loaded) return 0; /* the store was made from FILE just now */
  ens_server *srv = f->srv;
  uint64_t head = ens_server_head(srv);
  if (!f->bytes) {
    fprintf(stderr, "ensemble serve: %s does not exist: it is written from %s (seq %llu)\n", f->path, f->store,
            (unsigned long long)head);
    if (ens_server_checkpoint(srv))
      fprintf(stderr, "ensemble serve: the checkpoint that writes %s failed: %s\n", f->path, ens_error_last());
    return 0;
  }
  ens_file_state state;
  uint64_t wseq = 0;
  ens_doc *base = NULL, *ours = NULL;
  char err[600];
  int rc = 0;
  if (ens_server_file_check(srv, f->bytes, f->len, &state, &wseq, &base))
    return s_refuse(f, "cannot tell whether %s was changed since the server last wrote it: %s. Nothing was written.",
                    f->path, ens_error_last());
  if (state == ENS_FILE_SAME) {
    f->seq_known = 1;
    f->seq = wseq;
    if (head > wseq) { /* the server stopped without its last write-back */
      fprintf(stderr, "ensemble serve: %s holds seq %llu and %s seq %llu: %s is written now\n", f->path,
              (unsigned long long)wseq, f->store, (unsigned long long)head, f->path);
      if (ens_server_checkpoint(srv))
        fprintf(stderr, "ensemble serve: the checkpoint that writes %s failed: %s\n", f->path, ens_error_last());
    }
    goto done;
  }
  if (cli_doc_parse(f->path, f->bytes, f->len, &ours, err, sizeof err)) {
    if (state == ENS_FILE_CHANGED)
      rc = s_refuse(f, "%s was changed since the server last wrote it (seq %llu) and does not read: %s. Nothing was "
                       "written: correct it, or move it aside to have the session's document written there.",
                    f->path, (unsigned long long)wseq, err);
    else
      rc = s_refuse(f, "%s does not read: %s. Nothing was written: correct it, or move it aside to have the "
                       "session's document written there.",
                    f->path, err);
    goto done;
  }
  if (state == ENS_FILE_UNKNOWN) {
    if (ens_doc_content_hash(ours) == ens_doc_content_hash(ens_server_doc(srv))) {
      f->seq_known = 1;
      f->seq = head;
    } else {
      rc = s_refuse(f,
                    "%s differs from the document in %s (seq %llu), and %s does not record what was last written to "
                    "%s (an older version of ensemble made it), so %s's edits cannot be told from the session's. "
                    "Nothing was written. To serve %s as it is, move %s aside (a new session starts from the file); "
                    "to serve the session's document, move %s aside.",
                    f->path, f->store, (unsigned long long)head, f->store, f->path, f->path, f->path, f->store,
                    f->path);
    }
    goto done;
  }
  rc = s_take_in_edits(f, base, wseq, ours);
done:
  ens_doc_free(base);
  ens_doc_free(ours);
  return rc;
}
