/* The file `ensemble serve FILE` keeps the session's document in
 * (serve_file.c): read at the start, its edits made while the server was
 * down taken in, written back at checkpoints, never replaced by what the
 * store does not hold nor over an edit nobody has taken in. */
#ifndef ENS_CLI_SERVE_FILE_H
#define ENS_CLI_SERVE_FILE_H

#include "cli.h"

typedef struct {
  const char *path, *store;
  ens_server *srv;      /* set once the server exists */
  char *bytes;          /* FILE as read at the start (NULL when it did not exist) */
  size_t len;
  int loaded;           /* the store held no document: it started from FILE */
  ens_doc *first;       /* FILE's document, read before a new store is made */
  char load_err[600];
  /* what FILE holds as far as this process knows (when known): its size
   * and hash when last read or written, and the seq its content is */
  int known;
  size_t known_len;
  uint64_t known_hash;
  int seq_known;
  uint64_t seq;
  const unsigned char *writing; /* the bytes of the write under way */
  size_t writing_len;
  int hold;      /* FILE is never written (a refused start) */
  int kept;      /* FILE was changed while the server ran: not overwritten */
  int failures;  /* write-backs that failed */
  int last_ok;   /* the last write-back wrote FILE */
  char last_err[600];
} cli_serve_file;

/* Reads FILE (a missing one is no error), and removes what writers killed
 * before their rename left beside it. When the store does not exist yet,
 * FILE is parsed now, so that a start that could not serve it creates
 * nothing. -1 with a message in err, and then nothing to close. */
int cli_serve_file_open(cli_serve_file *f, const char *path, const char *store, char *err, size_t err_size);
/* ens_server_opts.load_initial, with f as user: FILE's document. */
int cli_serve_file_load_initial(ens_doc **doc, void *user);
/* ens_server_opts.on_checkpoint, with f as user: writes FILE back. */
void cli_serve_file_checkpoint(const ens_doc *doc, uint64_t seq, void *user);
/* Once the server exists (f->srv): compares FILE with what the store
 * last wrote there and takes its edits in as one transaction; says so on
 * stderr. 0 to go on; -1 when the start is refused (said why; FILE will
 * not be written). */
int cli_serve_file_take_in(cli_serve_file *f);
/* What FILE holds, for the last messages: "seq N", "what it held at the
 * start", ... */
const char *cli_serve_file_holds(const cli_serve_file *f, char *buf, size_t size);
void cli_serve_file_close(cli_serve_file *f);

#endif
