/* The two-way mirror of a session's document in an editor's file (see
 * mirror.h): which save to read when, what to send, and when writing the
 * file cannot lose an edit. */
#define _POSIX_C_SOURCE 200809L
#include "mirror.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MIRROR_MAX_BYTES ((size_t)1 << 30)

/* What identifies one state of the file on disk. ctime is left out: a
 * rename changes it, and our own temporary file is renamed into place. */
typedef struct {
  int known;
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
} s_disk;

struct cli_mirror {
  char *path, *dir, *base;
  cli_file_kind kind;
  int quiet;
  int ifd; /* inotify, on the directory: editors save by rename as often as in place */
  /* The document as the file holds it, with the session document's ids,
   * so that a diff against the editor's save speaks of the session's
   * objects. NULL before the first write. */
  ens_doc *doc;
  s_disk disk;          /* the file as last written or read by us */
  s_disk broken;        /* a file that did not parse, not to be read again until it changes */
  uint64_t bytes_hash;  /* of the content the mirror matches */
  size_t bytes_len;
  int bytes_known;
  int dirty;            /* an event for the file not followed by a read yet */
  int64_t last_event_ms;
  int64_t last_write_ms;
  uint64_t written_seq; /* the session seq the file was brought to */
  int need_full;        /* write the session document whatever the file holds */
  int force_write;      /* the file must be rewritten from the session document */
  int said_broken, said_gone;
  /* The highest id counter of our site that diffs handed out: a copy of
   * the session document only knows the ids still in it, and an id must
   * not come back after its object was deleted. */
  uint32_t id_site;
  uint64_t id_counter;
};

static int64_t s_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static uint64_t s_hash(const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a: only to recognise our own bytes */
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

static s_disk s_disk_of(const struct stat *st) {
  s_disk d;
  memset(&d, 0, sizeof d);
  d.known = 1;
  d.dev = st->st_dev;
  d.ino = st->st_ino;
  d.size = st->st_size;
  d.mtime = st->st_mtim;
  return d;
}

static int s_disk_equal(const s_disk *a, const s_disk *b) {
  return a->known && b->known && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
         a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* The file's state now; known is 0 when it does not exist. */
static s_disk s_disk_now(const char *path) {
  struct stat st;
  s_disk none;
  memset(&none, 0, sizeof none);
  return stat(path, &st) == 0 ? s_disk_of(&st) : none;
}

static int s_ends_with(const char *s, const char *ext) {
  size_t n = strlen(s), e = strlen(ext);
  return n > e && strcmp(s + n - e, ext) == 0;
}

int cli_mirror_new(const char *path, int quiet, cli_mirror **out, char *err, size_t err_size) {
  *out = NULL;
  cli_file_kind kind;
  if (s_ends_with(path, ".sfd")) kind = CLI_KIND_SFD;
  else if (s_ends_with(path, ".svg")) kind = CLI_KIND_SVG;
  else {
    snprintf(err, err_size, "%s: the file must be a .sfd font or a .svg drawing", path);
    return -2;
  }
  cli_mirror *m = calloc(1, sizeof *m);
  if (!m) {
    snprintf(err, err_size, "out of memory");
    return -1;
  }
  m->ifd = -1;
  m->kind = kind;
  m->quiet = quiet;
  m->path = strdup(path);
  const char *slash = strrchr(path, '/');
  m->base = strdup(slash ? slash + 1 : path);
  m->dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  if (!m->path || !m->base || !m->dir || !*m->base) {
    snprintf(err, err_size, "%s: not a file name", path);
    goto fail;
  }
  m->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (m->ifd < 0 || inotify_add_watch(m->ifd, m->dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
    snprintf(err, err_size, "cannot watch %s: %s", m->dir, strerror(errno));
    goto fail;
  }
  m->written_seq = UINT64_MAX;
  m->last_write_ms = INT64_MIN / 2;
  *out = m;
  return 0;
fail:
  cli_mirror_free(m);
  return -1;
}

void cli_mirror_free(cli_mirror *m) {
  if (!m) return;
  if (m->ifd >= 0) close(m->ifd);
  ens_doc_free(m->doc);
  free(m->path);
  free(m->dir);
  free(m->base);
  free(m);
}

const char *cli_mirror_doc_kind(const cli_mirror *m) { return m->kind == CLI_KIND_SFD ? ENS_SFD_KIND : ENS_SVG_KIND; }
void cli_mirror_reset(cli_mirror *m) { m->need_full = 1; }
void cli_mirror_rejected(cli_mirror *m) { m->force_write = 1; }

/* Reads every event queued for the watched directory; 1 when one was about
 * our file (or the queue overflowed, which may have hidden one). */
static int s_drain(cli_mirror *m) {
  int hit = 0;
  char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
  for (;;) {
    ssize_t n = read(m->ifd, buf, sizeof buf);
    if (n <= 0) break;
    for (char *p = buf; p < buf + n;) {
      const struct inotify_event *ev = (const struct inotify_event *)p;
      if ((ev->mask & IN_Q_OVERFLOW) || (ev->len && strcmp(ev->name, m->base) == 0)) hit = 1;
      p += sizeof *ev + ev->len;
    }
  }
  if (hit) {
    m->dirty = 1;
    m->last_event_ms = s_now_ms();
  }
  return hit;
}

static void s_say(const cli_mirror *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_say(const cli_mirror *m, const char *fmt, ...) {
  if (m->quiet) return;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

static int s_read_doc(const cli_mirror *m, const void *data, size_t len, ens_doc **out) {
  return m->kind == CLI_KIND_SFD ? ens_sfd_read(data, len, out) : ens_svg_read(data, len, out);
}

static int s_write_doc(const cli_mirror *m, const ens_doc *doc, unsigned char **out, size_t *len) {
  return m->kind == CLI_KIND_SFD ? ens_sfd_write(doc, out, len) : ens_svg_write(doc, out, len);
}

/* A copy of the session's document with the same ids (through a snapshot),
 * handing out ids of the session's site above any it handed out before. */
static int s_copy(cli_mirror *m, ens_session *s, ens_doc **out) {
  unsigned char *snap;
  size_t len;
  *out = NULL;
  if (ens_snapshot_encode(ens_session_doc(s), &snap, &len)) return -1;
  int rc = ens_snapshot_decode(snap, len, out);
  ens_free(snap);
  if (rc) return -1;
  uint32_t site = ens_session_site(s);
  ens_session_set_doc_site(s, *out);
  if (site == m->id_site && m->id_counter) {
    /* burn the counters our deleted objects used; there are few of them */
    for (;;) {
      ens_id id = ens_doc_new_id(*out);
      if (id == ENS_ID_NONE || ens_id_counter(id) >= m->id_counter) break;
    }
  }
  return 0;
}

/* Remembers the id counter a diff reached, taking one id to learn it. */
static void s_note_ids(cli_mirror *m) {
  ens_id id = ens_doc_new_id(m->doc);
  if (id == ENS_ID_NONE) return;
  if (ens_id_site(id) != m->id_site) {
    m->id_site = ens_id_site(id);
    m->id_counter = 0;
  }
  if (ens_id_counter(id) > m->id_counter) m->id_counter = ens_id_counter(id);
}

typedef struct {
  cli_mirror *m;
  int verify;     /* 0: the file is replaced whatever it holds */
  s_disk written; /* the temporary file's state, which the rename keeps */
} s_check;

/* Right before the rename: the file must still be what we last mirrored
 * and no event for it may be waiting. What is left is the time between
 * this check and the rename (microseconds): an editor that saves exactly
 * then loses that save to our file, by rename or in place into the inode
 * the rename unlinks. Closing that window would need the editor's
 * cooperation (a lock both honour); neither FontForge nor Inkscape takes one. */
static int s_before_rename(const char *path, const char *tmp, void *user) {
  s_check *c = user;
  cli_mirror *m = c->m;
  if (c->verify) {
    if (s_drain(m)) return 1;
    s_disk now = s_disk_now(path);
    if (m->disk.known ? !s_disk_equal(&now, &m->disk) : now.known) return 1;
  }
  /* the state the file will have, learnt before anyone can replace it */
  c->written = s_disk_now(tmp);
  return c->written.known ? 0 : 1;
}

/* Writes the session's document to the file; with check, only if the file
 * still holds what we last mirrored. 0 written, 1 not written (the file
 * changed: read it first), -1 with err. */
static int s_write(cli_mirror *m, ens_session *s, int check, char *err, size_t err_size) {
  ens_doc *copy;
  unsigned char *bytes = NULL;
  size_t len = 0;
  if (s_copy(m, s, &copy) || s_write_doc(m, copy, &bytes, &len)) {
    snprintf(err, err_size, "%s: %s", m->path, ens_error_last());
    ens_doc_free(copy);
    return -1;
  }
  s_check c = {m, check, {0}};
  int rc = cli_write_atomic_check(m->path, bytes, len, s_before_rename, &c, err, err_size);
  if (rc == 0) {
    ens_doc_free(m->doc);
    m->doc = copy;
    m->disk = c.written;
    m->bytes_hash = s_hash(bytes, len);
    m->bytes_len = len;
    m->bytes_known = 1;
    m->written_seq = ens_session_seq(s);
    m->last_write_ms = s_now_ms();
    m->need_full = m->force_write = 0;
    s_say(m, "wrote %s at seq %llu\n", m->path, (unsigned long long)m->written_seq);
  } else {
    ens_doc_free(copy);
    if (rc > 0) {
      m->dirty = 1; /* read the save first, at once if nothing else comes */
      m->last_event_ms = s_now_ms() - CLI_MIRROR_QUIET_MS;
    }
  }
  ens_free(bytes);
  return rc;
}

/* Reads the file and sends what the editor changed, as one transaction. */
static void s_ingest(cli_mirror *m, ens_session *s) {
  m->dirty = 0;
  s_disk st = s_disk_now(m->path);
  if (!st.known) {
    if (!m->said_gone) fprintf(stderr, "ensemble join: %s is gone; waiting for it to be saved again\n", m->path);
    m->said_gone = 1;
    return;
  }
  m->said_gone = 0;
  char *data;
  size_t len;
  char err[512];
  if (cli_read_file(m->path, MIRROR_MAX_BYTES, &data, &len, err, sizeof err)) {
    fprintf(stderr, "ensemble join: %s\n", err);
    m->broken = st;
    return;
  }
  if (m->bytes_known && len == m->bytes_len && s_hash(data, len) == m->bytes_hash) {
    /* our own write, or a save without edits */
    m->disk = st;
    free(data);
    return;
  }
  ens_doc *saved;
  if (s_read_doc(m, data, len, &saved)) {
    /* a save in progress, or a broken file: nothing is sent and the file
     * is left alone until it changes again */
    if (!m->said_broken)
      fprintf(stderr, "ensemble join: %s does not read (%s); waiting for the next save\n", m->path, ens_error_last());
    m->said_broken = 1;
    m->broken = st;
    free(data);
    return;
  }
  m->said_broken = 0;
  uint64_t hash = s_hash(data, len);
  free(data);
  ens_txn *txn = NULL;
  if (ens_doc_diff(m->doc, saved, m->kind == CLI_KIND_SFD ? ens_sfd_identity : ens_svg_identity, NULL, &txn)) {
    fprintf(stderr, "ensemble join: %s: cannot compare with the session: %s\n", m->path, ens_error_last());
    ens_doc_free(saved);
    m->broken = st;
    return;
  }
  ens_doc_free(saved);
  s_note_ids(m);
  m->disk = st;
  m->bytes_hash = hash;
  m->bytes_len = len;
  m->bytes_known = 1;
  size_t n = ens_txn_op_count(txn);
  if (n == 0) {
    ens_txn_free(txn);
    return;
  }
  ens_txn_set_label(txn, "Saved by editor");
  if (ens_session_commit(s, txn) != 0) {
    /* it no longer applies (a collaborator deleted what it edits): the
     * session's document wins and the file is rewritten from it */
    fprintf(stderr, "ensemble join: the save of %s was not applied: %s; rewriting the file\n", m->path,
            ens_error_last());
    m->force_write = 1;
  } else if (ens_doc_apply(m->doc, txn, ENS_ORIGIN_REMOTE, NULL) != 0) {
    m->force_write = 1; /* cannot happen: the diff was made on this document */
  } else {
    s_say(m, "sent %zu operations\n", n);
  }
  ens_txn_free(txn);
}

int cli_mirror_step(cli_mirror *m, ens_session *s, char *err, size_t err_size) {
  s_drain(m);
  if (!ens_session_is_live(s) || !ens_session_doc(s)) return 0;
  int64_t now = s_now_ms();
  if (m->need_full) {
    /* After a snapshot replaced the document, a save the old mirror has
     * not read yet goes first, and the file is replaced only while it
     * holds what we mirrored. At the first join whatever PATH held is
     * replaced (atomically): the session's document is the truth. */
    if (m->doc && m->dirty) {
      if (now - m->last_event_ms < CLI_MIRROR_QUIET_MS) return 0;
      s_ingest(m, s);
    }
    return s_write(m, s, m->doc != NULL, err, err_size) < 0 ? -1 : 0;
  }
  if (m->dirty && now - m->last_event_ms >= CLI_MIRROR_QUIET_MS) s_ingest(m, s);
  if (m->dirty || now - m->last_write_ms < CLI_MIRROR_THROTTLE_MS) return 0;
  if (!m->force_write) {
    if (ens_session_seq(s) == m->written_seq) return 0;
    /* the seq also moves when the server orders our own transactions:
     * write only when the document differs from what the file holds */
    if (ens_doc_hash(ens_session_doc(s)) == ens_doc_hash(m->doc)) {
      m->written_seq = ens_session_seq(s);
      return 0;
    }
  }
  s_disk now_disk = s_disk_now(m->path);
  if (!s_disk_equal(&now_disk, &m->disk)) {
    /* the editor saved and we have not read it yet (or the file is broken
     * and must be fixed by its editor first): never write over it */
    if (!s_disk_equal(&now_disk, &m->broken)) {
      m->dirty = 1;
      m->last_event_ms = now - CLI_MIRROR_QUIET_MS;
    }
    return 0;
  }
  return s_write(m, s, 1, err, err_size) < 0 ? -1 : 0;
}

int cli_mirror_flush(cli_mirror *m, ens_session *s) {
  s_drain(m);
  if (!m->doc || !ens_session_doc(s)) return 0;
  s_disk now_disk = s_disk_now(m->path);
  if (!m->dirty && (s_disk_equal(&now_disk, &m->disk) || s_disk_equal(&now_disk, &m->broken))) return 0;
  size_t before = ens_session_pending(s);
  s_ingest(m, s);
  return ens_session_pending(s) > before;
}
