/* The file side of `ensemble join` (see mirror.h): when to read a save,
 * when writing the file cannot lose an edit, what to do with a file that
 * was there before, and what the user is told. Which version a save is
 * based on and what it sends is the library's mirror. */
#define _POSIX_C_SOURCE 200809L
#include "mirror.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mirror_keep.h"

#define MIRROR_MAX_BYTES ((size_t)1 << 30)
/* versions kept beside the file: the one it holds and the one before, in
 * case the last rename did not reach the disk */
#define KEEP_VERSIONS 2
/* conflict lines printed for one save; the rest are counted */
#define SAY_CONFLICTS 20

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
  char *path, *dir, *base, *tmp_prefix;
  /* where PATH's symbolic links lead (PATH itself when it is none): the
   * file that is opened, saved in place and rewritten, whose events come
   * from its own directory, not the link's */
  char *tdir, *tbase;
  cli_file_kind kind;
  int container; /* an animation's: ENS_LOTTIE_AS_JSON or ENS_LOTTIE_AS_TGS */
  int quiet, replace;
  /* inotify, on the directories: editors save by rename as often as in
   * place. wd names PATH's directory, twd the target's (the same watch
   * when they are one directory). */
  int ifd, wd, twd;
  ens_session *s;
  ens_mirror *lib;
  cli_keep keep;
  s_disk disk;   /* the file as last written or read by us */
  s_disk broken; /* a file that did not read, not to be read again until it changes */
  int dirty;     /* an event for the file not followed by a read yet */
  int64_t last_event_ms;
  int64_t last_write_ms;
  int started;     /* the file found at the first join has been dealt with */
  uint64_t epoch;  /* of the session when started */
  int new_history; /* the session's document now belongs to another history */
  int force_write; /* rewrite the file from the session whatever the mirror thinks */
  /* our last write's rename, until its event is read: an open before it
   * read the version before */
  int rename_pending;
  uint32_t tmp_cookie;
  uint64_t kept_hash, kept_len; /* the file content the newest kept version describes */
  int said_broken, said_gone, said_unkept;
};

static int64_t s_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
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

int cli_mirror_new(const char *path, int quiet, int replace, cli_mirror **out, char *err, size_t err_size) {
  *out = NULL;
  cli_file_kind kind;
  int container = ENS_LOTTIE_AS_JSON;
  if (s_ends_with(path, ".sfd")) kind = CLI_KIND_SFD;
  else if (s_ends_with(path, ".svg")) kind = CLI_KIND_SVG;
  else if (s_ends_with(path, ".json")) kind = CLI_KIND_LOTTIE;
  else if (s_ends_with(path, ".tgs")) kind = CLI_KIND_LOTTIE, container = ENS_LOTTIE_AS_TGS;
  else if (s_ends_with(path, ".lottie")) {
    /* the archive's other entries (images, other animations, its
     * manifest) are no part of the session's document: a save that
     * changed them could not be merged, and a rewrite would take it back */
    snprintf(err, err_size,
             "%s: a dotLottie archive cannot be mirrored (what it holds beside the animation is not shared); "
             "join with a .json or .tgs file",
             path);
    return -2;
  } else {
    snprintf(err, err_size, "%s: the file must be a .sfd font, a .svg drawing or a .json or .tgs animation", path);
    return -2;
  }
  cli_mirror *m = calloc(1, sizeof *m);
  if (!m) {
    snprintf(err, err_size, "out of memory");
    return -1;
  }
  m->ifd = m->wd = m->twd = -1;
  m->kind = kind;
  m->container = container;
  m->quiet = quiet;
  m->replace = replace;
  m->path = strdup(path);
  const char *slash = strrchr(path, '/');
  m->base = strdup(slash ? slash + 1 : path);
  m->dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  if (!m->path || !m->base || !m->dir || !*m->base) {
    snprintf(err, err_size, "%s: not a file name", path);
    goto fail;
  }
  char *target = cli_resolve_links(path);
  if (!target) {
    snprintf(err, err_size, "%s: %s", path, strerror(errno));
    goto fail;
  }
  slash = strrchr(target, '/');
  m->tbase = strdup(slash ? slash + 1 : target);
  m->tdir = slash ? strndup(target, slash == target ? 1 : (size_t)(slash - target)) : strdup(".");
  free(target);
  if (!m->tbase || !m->tdir || !*m->tbase) {
    snprintf(err, err_size, "%s: not a file name", path);
    goto fail;
  }
  /* the writer names its temporary files after the file it replaces */
  if (!(m->tmp_prefix = cli_temp_prefix(m->tbase))) goto fail;
  if (cli_keep_open(&m->keep, path, err, err_size)) goto fail;
  m->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  const uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_OPEN;
  const char *unwatched = m->dir;
  if (m->ifd >= 0 && (m->wd = inotify_add_watch(m->ifd, m->dir, mask)) >= 0) {
    unwatched = m->tdir;
    m->twd = inotify_add_watch(m->ifd, m->tdir, mask);
  }
  if (m->ifd < 0 || m->wd < 0 || m->twd < 0) {
    snprintf(err, err_size, "cannot watch %s: %s", unwatched, strerror(errno));
    goto fail;
  }
  m->last_write_ms = INT64_MIN / 2;
  *out = m;
  return 0;
fail:
  cli_mirror_free(m);
  return -1;
}

int cli_mirror_attach(cli_mirror *m, ens_session *s, char *err, size_t err_size) {
  ens_mirror_opts o;
  memset(&o, 0, sizeof o);
  o.format = cli_mirror_doc_kind(m);
  o.container = m->container;
  if (ens_mirror_new(s, &o, &m->lib)) {
    snprintf(err, err_size, "%s", ens_error_last());
    return -1;
  }
  m->s = s;
  return 0;
}

void cli_mirror_free(cli_mirror *m) {
  if (!m) return;
  if (m->ifd >= 0) close(m->ifd);
  ens_mirror_free(m->lib);
  cli_keep_close(&m->keep);
  free(m->path);
  free(m->dir);
  free(m->base);
  free(m->tdir);
  free(m->tbase);
  free(m->tmp_prefix);
  free(m);
}

const char *cli_mirror_doc_kind(const cli_mirror *m) {
  return m->kind == CLI_KIND_SFD ? ENS_SFD_KIND : m->kind == CLI_KIND_SVG ? ENS_SVG_KIND : ENS_LOTTIE_KIND;
}

void cli_mirror_event(cli_mirror *m, const ens_session_event *ev) {
  if (!m->lib) return;
  ens_mirror_on_event(m->lib, ev);
  if (ev->kind == ENS_SESSION_RESET && m->started && ens_session_epoch(m->s) != m->epoch) m->new_history = 1;
}

/* Reads every event queued for the watched directory; 1 when one may be
 * an editor's save of our file (or the queue overflowed, which may have
 * hidden one). An open of the file tells the library that an editor may
 * now hold the version it read. */
static int s_drain(cli_mirror *m) {
  int hit = 0;
  char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
  for (;;) {
    ssize_t n = read(m->ifd, buf, sizeof buf);
    if (n <= 0) break;
    for (char *p = buf; p < buf + n;) {
      const struct inotify_event *ev = (const struct inotify_event *)p;
      p += sizeof *ev + ev->len;
      if (ev->mask & IN_Q_OVERFLOW) {
        hit = 1;
        if (m->lib) {
          ens_mirror_file_read(m->lib, 1);
          ens_mirror_file_read(m->lib, 0);
        }
        continue;
      }
      if (!ev->len) continue;
      if ((ev->mask & IN_MOVED_FROM) && ev->wd == m->twd &&
          strncmp(ev->name, m->tmp_prefix, strlen(m->tmp_prefix)) == 0) {
        m->tmp_cookie = ev->cookie; /* our temporary file going into place */
        continue;
      }
      /* the file, or PATH itself replaced (a link saved over by rename) */
      if (!(ev->wd == m->twd && strcmp(ev->name, m->tbase) == 0) &&
          !(ev->wd == m->wd && strcmp(ev->name, m->base) == 0))
        continue;
      if (ev->mask & IN_OPEN) {
        if (m->lib) ens_mirror_file_read(m->lib, m->rename_pending);
      } else if ((ev->mask & IN_MOVED_TO) && m->rename_pending && ev->cookie == m->tmp_cookie) {
        m->rename_pending = 0; /* our own write */
      } else if (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)) {
        hit = 1;
      }
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

static void s_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void s_warn(const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fputs("ensemble join: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

/* --- what the user is told ------------------------------------------------------ */

/* text: an animation's BYTES value, which is the canonical JSON text of an
 * array ("[11,12,0]"), shown as that text */
static const char *s_value(const ens_value *v, int text, char *buf, size_t size) {
  if (text && v->type == ENS_BYTES) {
    size_t o = 0, cut = 60;
    for (size_t i = 0; i < v->u.s.len && i < cut && o + 5 < size; i++) {
      unsigned char c = (unsigned char)v->u.s.ptr[i];
      buf[o++] = (char)(c < 0x20 ? '?' : c);
    }
    if (v->u.s.len > cut && o + 4 < size) o += (size_t)snprintf(buf + o, size - o, "...");
    buf[o] = '\0';
    return buf;
  }
  switch (v->type) {
  case ENS_NIL: return "(none)";
  case ENS_INT: snprintf(buf, size, "%" PRId64, v->u.i); return buf;
  case ENS_REAL: snprintf(buf, size, "%.17g", v->u.r); return buf;
  case ENS_BOOL: return v->u.b ? "true" : "false";
  case ENS_REF: snprintf(buf, size, "(object %u:%" PRIu64 ")", ens_id_site(v->u.ref), (uint64_t)ens_id_counter(v->u.ref)); return buf;
  case ENS_BYTES: snprintf(buf, size, "(%zu bytes)", v->u.s.len); return buf;
  case ENS_STR: {
    size_t o = 0, cut = 48;
    buf[o++] = '"';
    for (size_t i = 0; i < v->u.s.len && i < cut && o + 6 < size; i++) {
      unsigned char c = (unsigned char)v->u.s.ptr[i];
      if (c == '"' || c == '\\') o += (size_t)snprintf(buf + o, size - o, "\\%c", c);
      else if (c < 0x20) o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
      else buf[o++] = (char)c;
    }
    if (v->u.s.len > cut && o + 5 < size) o += (size_t)snprintf(buf + o, size - o, "...");
    snprintf(buf + o, size - o, "\"");
    return buf;
  }
  }
  return "?";
}

/* "Bram's change" / "a collaborator's change" */
static const char *s_whose(const ens_mirror_conflict *c, char *buf, size_t size) {
  if (c->who && *c->who) snprintf(buf, size, "%s (seq %" PRIu64 ")", c->who, c->seq);
  else snprintf(buf, size, "a collaborator");
  return buf;
}

static void s_tell(const cli_mirror *m, const ens_mirror_result *r) {
  size_t n = ens_mirror_result_conflict_count(r);
  for (size_t i = 0; i < n && i < SAY_CONFLICTS; i++) {
    ens_mirror_conflict cc = *ens_mirror_result_conflict_at(r, i);
    const ens_mirror_conflict *c = &cc;
    if (!cc.path || !*cc.path)
      cc.path = m->kind == CLI_KIND_SFD ? "the font" : m->kind == CLI_KIND_SVG ? "the drawing" : "the animation";
    if (cc.key && cc.key[0] == '~') cc.key = NULL;
    char who[128], a[128], b[128], base[128];
    int text = m->kind == CLI_KIND_LOTTIE;
    s_whose(c, who, sizeof who);
    switch (c->kind) {
    case ENS_CONFLICT_SET:
      if (c->ours_kept)
        s_warn("%s: your save replaced a change by %s: %s, %s: %s -> %s (was %s when you opened it)", m->path, who,
               c->path, c->key, s_value(&c->theirs, text, a, sizeof a), s_value(&c->ours, text, b, sizeof b),
               s_value(&c->base, text, base, sizeof base));
      else
        s_warn("%s: a change by %s stands over your save: %s, %s: %s (yours: %s)", m->path, who, c->path, c->key,
               s_value(&c->theirs, text, a, sizeof a), s_value(&c->ours, text, b, sizeof b));
      break;
    case ENS_CONFLICT_DELETE:
      if (c->theirs_deleted)
        s_warn("%s: part of your save was not applied: %s was deleted by %s%s%s", m->path, c->path, who,
               c->key ? "; your change to " : "", c->key ? c->key : "");
      else if (c->ours_kept)
        s_warn("%s: your save deleted %s, which %s had changed since you opened it", m->path, c->path, who);
      else
        s_warn("%s: your deletion of %s was not applied: %s had changed it since you opened it", m->path, c->path,
               who);
      break;
    case ENS_CONFLICT_MOVE:
      s_warn("%s: %s was moved or reordered by %s too; %s stands", m->path, c->path, who,
             c->ours_kept ? "yours" : "theirs");
      break;
    case ENS_CONFLICT_INSERT:
      s_warn("%s: %s was added by %s too, with another %s: %s -> %s (%s stands)", m->path, c->path, who,
             c->key ? c->key : "content", s_value(&c->theirs, text, a, sizeof a), s_value(&c->ours, text, b, sizeof b),
             c->ours_kept ? "yours" : "theirs");
      break;
    }
  }
  if (n > SAY_CONFLICTS) s_warn("%s: and %zu more conflicts like these", m->path, n - SAY_CONFLICTS);
}

/* --- writing ----------------------------------------------------------------------- */

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

/* Keeps the version the mirror calls which, describing file bytes of that
 * hash and length; name receives its file. 0, or -1 with err. */
static int s_keep(cli_mirror *m, ens_mirror_which which, char *name, size_t name_size, char *err, size_t err_size) {
  unsigned char *state;
  size_t len;
  if (ens_mirror_state_encode(m->lib, which, &state, &len)) {
    snprintf(err, err_size, "%s: %s", m->path, ens_error_last());
    return -1;
  }
  int rc = cli_keep_put(&m->keep, state, len, name, name_size, err, err_size);
  ens_free(state);
  return rc;
}

/* Writes the session's document to the file; with check, only if the file
 * still holds what we last mirrored. The version is kept beside the file
 * first. 0 written, 1 not written (the file changed: read it first), -1
 * with err. */
static int s_write(cli_mirror *m, int check, char *err, size_t err_size) {
  const unsigned char *bytes;
  size_t len;
  if (ens_mirror_render(m->lib, &bytes, &len)) {
    snprintf(err, err_size, "%s: %s", m->path, ens_error_last());
    return -1;
  }
  char kept[4096];
  if (s_keep(m, ENS_MIRROR_RENDERED, kept, sizeof kept, err, err_size)) return -1;
  s_check c = {m, check, {0}};
  int rc = cli_write_atomic_check(m->path, bytes, len, s_before_rename, &c, err, err_size);
  if (rc == 0) {
    m->kept_hash = cli_keep_hash(bytes, len);
    m->kept_len = len;
    if (ens_mirror_written(m->lib)) {
      snprintf(err, err_size, "%s: %s", m->path, ens_error_last());
      return -1;
    }
    cli_keep_prune(&m->keep, KEEP_VERSIONS);
    m->disk = c.written;
    m->rename_pending = 1;
    m->last_write_ms = s_now_ms();
    m->force_write = 0;
    s_say(m, "wrote %s at seq %llu\n", m->path, (unsigned long long)ens_session_seq(m->s));
  } else {
    cli_keep_drop(&m->keep, kept);
    if (rc > 0) {
      m->dirty = 1; /* read the save first, at once if nothing else comes */
      m->last_event_ms = s_now_ms() - CLI_MIRROR_QUIET_MS;
    }
  }
  return rc;
}

/* --- reading ------------------------------------------------------------------------ */

/* The file's bytes and state; 0, 1 when it does not exist, -1 with err. */
static int s_read(cli_mirror *m, char **data, size_t *len, s_disk *st, char *err, size_t err_size) {
  *data = NULL;
  *st = s_disk_now(m->path);
  if (!st->known) return 1;
  return cli_read_file(m->path, MIRROR_MAX_BYTES, data, len, err, err_size) ? -1 : 0;
}

/* After a save the mirror took in: the file holds a new version, kept
 * beside it unless it is already. */
static void s_took(cli_mirror *m, const char *data, size_t len, const s_disk *st) {
  m->disk = *st;
  uint64_t h = cli_keep_hash(data, len);
  if (h == m->kept_hash && len == m->kept_len) return;
  char kept[4096], err[512];
  if (s_keep(m, ENS_MIRROR_CURRENT, kept, sizeof kept, err, sizeof err)) {
    if (!m->said_unkept) s_warn("%s; edits made while join is stopped would not be merged", err);
    m->said_unkept = 1;
    return;
  }
  m->said_unkept = 0;
  m->kept_hash = h;
  m->kept_len = len;
  cli_keep_prune(&m->keep, KEEP_VERSIONS);
}

/* Sends a save: marked as being sent (durably) before it goes, kept as
 * the file's version once it is. rc of the library's save. */
static int s_send(cli_mirror *m, const char *data, size_t len, const s_disk *st, int recover, ens_mirror_result **r) {
  char err[512];
  if (cli_keep_mark(&m->keep, cli_keep_hash(data, len), len, err, sizeof err) && !m->said_unkept) {
    s_warn("%s; edits made while join is stopped would not be merged", err);
    m->said_unkept = 1;
  }
  int rc = recover ? ens_mirror_recover(m->lib, data, len, r) : ens_mirror_save(m->lib, data, len, r);
  if (rc == 0) s_took(m, data, len, st);
  return rc;
}

/* A save the session refused whole: it is kept as a backup (the user's
 * work is never only in a file about to be rewritten), and the file is
 * rewritten from the session. */
static void s_refused(cli_mirror *m, const s_disk *st, const char *why) {
  char backup[4096], err[512];
  if (cli_backup(m->path, backup, sizeof backup, err, sizeof err)) {
    s_warn("the save of %s was not applied: %s; %s, so the file is left as it is", m->path, why, err);
    m->broken = *st;
    return;
  }
  s_warn("the save of %s was not applied: %s; it is kept as %s and %s is rewritten from the session", m->path, why,
         backup, m->path);
  m->disk = *st;
  m->force_write = 1;
}

/* Reads the file and sends what the editor changed, as one transaction. */
static void s_ingest(cli_mirror *m) {
  m->dirty = 0;
  char *data, err[512];
  size_t len;
  s_disk st;
  int rc = s_read(m, &data, &len, &st, err, sizeof err);
  if (rc > 0) {
    if (!m->said_gone) s_warn("%s is gone; waiting for it to be saved again", m->path);
    m->said_gone = 1;
    return;
  }
  m->said_gone = 0;
  if (rc < 0) {
    s_warn("%s", err);
    m->broken = st;
    return;
  }
  if (ens_mirror_knows(m->lib, data, len)) { /* our own write, or a save without edits */
    if (ens_mirror_save(m->lib, data, len, NULL) == 0) s_took(m, data, len, &st);
    m->disk = st;
    free(data);
    return;
  }
  ens_mirror_result *r = NULL;
  size_t before = ens_session_pending(m->s);
  rc = s_send(m, data, len, &st, 0, &r);
  if (rc == ENS_EDECODE) {
    /* a save in progress, or a broken file: nothing is sent and the file
     * is left alone until it changes again */
    if (!m->said_broken) s_warn("%s does not read (%s); waiting for the next save", m->path, ens_error_last());
    m->said_broken = 1;
    m->broken = st;
  } else if (rc) {
    s_refused(m, &st, ens_error_last());
  } else {
    m->said_broken = 0;
    if (ens_session_pending(m->s) > before) s_say(m, "sent %zu operations\n", ens_mirror_result_ops(r));
    s_tell(m, r);
  }
  ens_mirror_result_free(r);
  free(data);
}

/* --- the file found at the first join ------------------------------------------- */

typedef struct {
  cli_mirror *m;
  size_t accepted, foreign;
} s_loaded;

static void s_on_kept(const void *data, size_t len, const char *name, const char *why, void *user) {
  s_loaded *l = user;
  if (!data) {
    s_warn("%s: %s (ignored)", name, why);
    return;
  }
  if (ens_mirror_state_add(l->m->lib, data, len) == 0) {
    l->accepted++;
  } else if (strstr(ens_error_last(), "another session")) {
    l->foreign++;
  } else {
    s_warn("%s: %s (ignored)", name, ens_error_last());
  }
}

/* PATH exists and is not this session's: refused, or moved aside. */
static int s_not_ours(cli_mirror *m, const s_disk *st, const char *why, char *err, size_t err_size) {
  if (!m->replace) {
    snprintf(err, err_size,
             "%s %s, and nothing says this session wrote it: not replacing it. Move it away, or run join with "
             "--replace to keep it as a backup and write the session's document",
             m->path, why);
    return -1;
  }
  char backup[4096];
  if (cli_backup(m->path, backup, sizeof backup, err, err_size)) return -1;
  s_warn("%s %s: moved aside to %s", m->path, why, backup);
  m->disk = *st;
  int rc = s_write(m, 1, err, err_size);
  if (rc > 0) return 0; /* saved meanwhile: looked at again next round, backed up again */
  if (rc == 0) m->started = 1;
  return rc;
}

/* The first time the session is live: PATH missing is written; PATH
 * holding a version this join kept is taken as it is; PATH edited since
 * (while join was stopped) is merged and sent; any other PATH that
 * differs from the session is refused, or with --replace moved aside. */
static int s_start(cli_mirror *m, char *err, size_t err_size) {
  m->epoch = ens_session_epoch(m->s);
  s_loaded l = {m, 0, 0};
  cli_keep_load(&m->keep, 8, s_on_kept, &l);
  if (l.foreign) s_warn("%s holds the state of another session: ignored", m->keep.dir);
  m->kept_hash = m->kept_len = 0;
  char *data;
  size_t len;
  s_disk st;
  int rc = s_read(m, &data, &len, &st, err, err_size);
  if (rc < 0) return -1;
  if (rc > 0) {
    memset(&m->disk, 0, sizeof m->disk);
    rc = s_write(m, 1, err, err_size);
    if (rc == 0) m->started = 1;
    return rc < 0 ? -1 : 0;
  }
  if (ens_mirror_knows(m->lib, data, len)) { /* as join left it */
    ens_mirror_save(m->lib, data, len, NULL);
    m->disk = st;
    m->kept_hash = cli_keep_hash(data, len);
    m->kept_len = len;
    m->started = 1;
    free(data);
    return 0;
  }
  ens_mirror_result *r = NULL;
  if (l.accepted) {
    /* edited while join was stopped, or a save it was sending when it stopped */
    int recover = cli_keep_marked(&m->keep, cli_keep_hash(data, len), len);
    rc = s_send(m, data, len, &st, recover, &r);
    if (rc == 0) {
      if (recover)
        s_warn("%s holds a save that was being sent when join stopped: %zu operations sent again (merged from %s)",
               m->path, ens_mirror_result_ops(r), ens_mirror_result_base(r));
      else
        s_warn("%s was changed while join was not running: %zu operations sent (merged from %s)", m->path,
               ens_mirror_result_ops(r), ens_mirror_result_base(r));
      s_tell(m, r);
    }
  } else {
    rc = s_send(m, data, len, &st, 0, &r); /* adopted only when it holds the session's content */
  }
  ens_mirror_result_free(r);
  free(data);
  if (rc == 0) {
    m->started = 1;
    return 0;
  }
  if (rc == ENS_EDECODE) {
    char why[600];
    snprintf(why, sizeof why, "does not read (%s)", ens_error_last());
    return s_not_ours(m, &st, why, err, err_size);
  }
  if (rc == ENS_ENOTFOUND) return s_not_ours(m, &st, "differs from the session's document", err, err_size);
  snprintf(err, err_size, "%s: %s", m->path, ens_error_last());
  return -1;
}

/* The session's document was replaced by another history (a new store):
 * nothing the mirror knew applies. The file is rewritten; a save in it
 * that was not read yet is moved aside first. */
static int s_new_history(cli_mirror *m, char *err, size_t err_size) {
  m->new_history = 0;
  m->epoch = ens_session_epoch(m->s);
  s_disk now = s_disk_now(m->path);
  if (now.known && (m->dirty || !s_disk_equal(&now, &m->disk))) {
    char backup[4096];
    if (cli_backup(m->path, backup, sizeof backup, err, err_size)) return -1;
    s_warn("the session's history was replaced; %s held a save not sent yet: kept as %s", m->path, backup);
    m->disk = now;
    m->dirty = 0;
  }
  s_say(m, "the session's history was replaced: rewriting %s\n", m->path);
  m->force_write = 1;
  return 0;
}

int cli_mirror_step(cli_mirror *m, char *err, size_t err_size) {
  s_drain(m);
  ens_session *s = m->s;
  if (!s || !ens_session_is_live(s) || !ens_session_doc(s)) return 0;
  if (!m->started) {
    if (s_start(m, err, err_size)) return -1;
    if (m->started) s_say(m, "mirroring %s at seq %llu\n", m->path, (unsigned long long)ens_session_seq(s));
    return 0;
  }
  if (m->new_history && s_new_history(m, err, err_size)) return -1;
  int64_t now = s_now_ms();
  if (m->dirty && now - m->last_event_ms >= CLI_MIRROR_QUIET_MS) s_ingest(m);
  if (m->dirty || now - m->last_write_ms < CLI_MIRROR_THROTTLE_MS) return 0;
  if (!m->force_write && !ens_mirror_outdated(m->lib)) return 0;
  s_disk now_disk = s_disk_now(m->path);
  if (m->disk.known ? !s_disk_equal(&now_disk, &m->disk) : now_disk.known) {
    /* the editor saved and we have not read it yet (or the file is broken
     * and must be fixed by its editor first): never write over it */
    if (!s_disk_equal(&now_disk, &m->broken)) {
      m->dirty = 1;
      m->last_event_ms = now - CLI_MIRROR_QUIET_MS;
    }
    return 0;
  }
  return s_write(m, 1, err, err_size) < 0 ? -1 : 0;
}

int cli_mirror_flush(cli_mirror *m) {
  s_drain(m);
  if (!m->started || !m->s || !ens_session_doc(m->s)) return 0;
  s_disk now_disk = s_disk_now(m->path);
  if (!m->dirty && (s_disk_equal(&now_disk, &m->disk) || s_disk_equal(&now_disk, &m->broken))) return 0;
  size_t before = ens_session_pending(m->s);
  s_ingest(m);
  return ens_session_pending(m->s) > before;
}
