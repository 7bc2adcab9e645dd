/* The durable log over SQLite (see store.h).
 *
 * Durability: WAL mode with synchronous=FULL, so each COMMIT fsyncs the
 * WAL before returning, and the server acknowledges only after that. With
 * synchronous=NORMAL a WAL commit is safe against a crash of the process
 * (the bytes are in the OS) but not against a power cut, and an ack is a
 * promise against both. The cost, one fsync per COMMIT, is paid once per
 * group: the server puts every transaction it drained from the socket in
 * one poll round into one COMMIT.
 *
 * Locking: SQLite's normal locking, so that readers (ensemble history,
 * STORE@SEQ operands, docs/vcs.md "Session history") open the store
 * read-only beside the running server and see every committed
 * transaction. Exclusive locking kept the WAL index in the process's
 * memory, where no other process could read it; normal locking pays a few
 * fcntl calls per COMMIT, small beside the COMMIT's fsync. The one-writer
 * rule is kept by an flock on the database file, taken when the store is
 * opened for writing: a second server fails at once with a clear error
 * (SQLite's fcntl locks and flock do not see each other on Linux). */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../util/error.h"
#include "../util/hash.h"
#include "../util/random.h"

/* 2 added the clients' floor and made columns (sites taken back and
 * handed on, docs/protocol.md "Sites"); a version 1 store is brought up
 * to 2 when opened. */
#define STORE_VERSION 2

enum { Q_APPEND, Q_CLIENT, Q_FORGET, Q_READ, Q_CLIENTS, Q_CP_GET, Q_CP_PUT, Q_TRIM, Q_BEGIN, Q_COMMIT, Q_COUNT };

static const char *s_sql[Q_COUNT] = {
    [Q_APPEND] = "INSERT INTO log(seq, site, client, ctn, txn, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [Q_CLIENT] = "INSERT INTO clients(client, site, last_ctn, floor, made) VALUES (?1, ?2, ?3, ?4, ?5) "
                 "ON CONFLICT(client) DO UPDATE SET site = excluded.site, last_ctn = excluded.last_ctn, "
                 "floor = excluded.floor, made = excluded.made",
    [Q_FORGET] = "DELETE FROM clients WHERE client = ?1",
    [Q_READ] = "SELECT seq, site, client, ctn, txn, at FROM log WHERE seq BETWEEN ?1 AND ?2 ORDER BY seq",
    [Q_CLIENTS] = "SELECT client, site, last_ctn, floor, made FROM clients",
    [Q_CP_GET] = "SELECT seq, snapshot FROM checkpoint ORDER BY seq DESC LIMIT 1",
    [Q_CP_PUT] = "INSERT OR REPLACE INTO checkpoint(seq, snapshot) VALUES (?1, ?2)",
    [Q_TRIM] = "DELETE FROM log WHERE seq <= ?1",
    /* prepared once: a group commit is on every round trip */
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_COMMIT] = "COMMIT",
};

struct ens__store {
  sqlite3 *db;
  sqlite3_stmt *q[Q_COUNT];
  uint64_t epoch, head, first;
  uint64_t pending_head; /* head including appends of the open group */
  int in_txn;
  int readonly;
  int lock_fd; /* the writer's flock, -1 when none */
};

static int s_err(ens__store *s, const char *what) {
  return ens__error(ENS_EIO, "store: %s: %s", what, s->db ? sqlite3_errmsg(s->db) : "no database");
}

static int s_exec(ens__store *s, const char *sql) {
  char *msg = NULL;
  if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    int rc = ens__error(ENS_EIO, "store: %s: %s", sql, msg ? msg : "failed");
    sqlite3_free(msg);
    return rc;
  }
  return 0;
}

static int s_scalar(ens__store *s, const char *sql, uint64_t *out, int *found) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return s_err(s, sql);
  int rc = sqlite3_step(st);
  *found = rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
  if (*found) *out = (uint64_t)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : s_err(s, sql);
}

static int s_load_meta(ens__store *s) {
  uint64_t v;
  int found, rc;
  if ((rc = s_scalar(s, "SELECT value FROM meta WHERE key = 'version'", &v, &found))) return rc;
  if (found && v == 1) {
    /* clients known before sites were taken back: none had its site taken
     * (floor 0); one with nothing decided made nothing (the log entries
     * after the checkpoint, replayed at load, say who did since) */
    if ((rc = s_exec(s, "ALTER TABLE clients ADD COLUMN floor INTEGER NOT NULL DEFAULT 0;"
                        "ALTER TABLE clients ADD COLUMN made INTEGER NOT NULL DEFAULT 1;"
                        "UPDATE clients SET made = 0 WHERE last_ctn = 0;"
                        "UPDATE meta SET value = 2 WHERE key = 'version';")))
      return rc;
    v = STORE_VERSION;
  }
  if (!found) {
    /* a new store: its history starts now, under a fresh epoch */
    s->epoch = ens__random_u64() >> 1; /* fits SQLite's signed integers */
    if (!s->epoch) s->epoch = 1;
    char sql[160];
    snprintf(sql, sizeof sql, "INSERT INTO meta VALUES ('version', %d), ('epoch', %llu)", STORE_VERSION,
             (unsigned long long)s->epoch);
    return s_exec(s, sql);
  }
  if (v != STORE_VERSION) return ens__error(ENS_EDECODE, "store: version %llu, this build reads %d", (unsigned long long)v, STORE_VERSION);
  if ((rc = s_scalar(s, "SELECT value FROM meta WHERE key = 'epoch'", &s->epoch, &found))) return rc;
  if (!found || !s->epoch) return ens__error(ENS_EDECODE, "store: no epoch");
  return 0;
}

static int s_load_bounds(ens__store *s) {
  uint64_t max = 0, min = 0, cp = 0;
  int fmax, fmin, fcp, rc;
  if ((rc = s_scalar(s, "SELECT max(seq) FROM log", &max, &fmax))) return rc;
  if ((rc = s_scalar(s, "SELECT min(seq) FROM log", &min, &fmin))) return rc;
  if ((rc = s_scalar(s, "SELECT max(seq) FROM checkpoint", &cp, &fcp))) return rc;
  s->head = fmax ? max : 0;
  if (fcp && cp > s->head) s->head = cp;
  s->first = fmin ? min : s->head + 1;
  s->pending_head = s->head;
  return 0;
}

/* The time of each entry (unix ms, NULL when unknown) came after version
 * 2 without a version of its own: a store without the column gets it,
 * entries written before have none, and a build that does not know the
 * column still appends (it names its columns) and reads. */
static int s_has_time(sqlite3 *db) {
  sqlite3_stmt *st;
  int ok = sqlite3_prepare_v2(db, "SELECT at FROM log LIMIT 0", -1, &st, NULL) == SQLITE_OK;
  sqlite3_finalize(st);
  return ok;
}

static int s_add_time(ens__store *s) {
  return s_has_time(s->db) ? 0 : s_exec(s, "ALTER TABLE log ADD COLUMN at INTEGER");
}

int64_t ens__store_now_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The one writer: an flock on the database file for as long as the store
 * is open, refused at once to a second writer. */
static int s_lock_writer(ens__store *s, const char *path) {
  s->lock_fd = -1;
  if (!path[0] || strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0) return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ens__error(ENS_EIO, "store: %s: %s", path, strerror(errno));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    close(fd);
    if (e == EWOULDBLOCK) return ens__error(ENS_EIO, "store: %s is in use by another server", path);
    return ens__error(ENS_EIO, "store: %s: cannot lock: %s", path, strerror(e));
  }
  s->lock_fd = fd;
  return 0;
}

/* A new store is made readable by its owner only: it holds the whole
 * document and its history. SQLite gives its -wal (and -shm, if any) files the
 * mode of the database file. An existing file keeps its mode. */
static int s_create_private(const char *path) {
  if (!path[0] || strcmp(path, ":memory:") == 0) return 0;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) return close(fd) == 0 ? 0 : ens__error(ENS_EIO, "store: %s: %s", path, strerror(errno));
  return errno == EEXIST ? 0 : ens__error(ENS_EIO, "store: cannot create %s: %s", path, strerror(errno));
}

int ens__store_open(const char *path, ens__store **out) {
  *out = NULL;
  int rc = s_create_private(path);
  if (rc) return rc;
  ens__store *s = calloc(1, sizeof *s);
  if (!s) return ens__error(ENS_ENOMEM, "out of memory opening a store");
  if ((rc = s_lock_writer(s, path))) {
    free(s);
    return rc;
  }
  if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
      SQLITE_OK) {
    rc = s_err(s, path);
    goto fail;
  }
  sqlite3_busy_timeout(s->db, 5000);
  if ((rc = s_exec(s, "PRAGMA journal_mode = WAL")) ||
      (rc = s_exec(s, "PRAGMA synchronous = FULL")) ||
      (rc = s_exec(s, "BEGIN IMMEDIATE")) ||
      (rc = s_exec(s, "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
                      "CREATE TABLE IF NOT EXISTS log(seq INTEGER PRIMARY KEY, site INTEGER NOT NULL,"
                      " client BLOB NOT NULL, ctn INTEGER NOT NULL, txn BLOB NOT NULL, at INTEGER);"
                      "CREATE TABLE IF NOT EXISTS clients(client BLOB PRIMARY KEY, site INTEGER NOT NULL UNIQUE,"
                      " last_ctn INTEGER NOT NULL, floor INTEGER NOT NULL DEFAULT 0,"
                      " made INTEGER NOT NULL DEFAULT 1);"
                      "CREATE TABLE IF NOT EXISTS checkpoint(seq INTEGER PRIMARY KEY, snapshot BLOB NOT NULL);"
                      "CREATE TABLE IF NOT EXISTS written(slot INTEGER PRIMARY KEY, seq INTEGER NOT NULL,"
                      " size INTEGER NOT NULL, hash BLOB NOT NULL);")) ||
      (rc = s_load_meta(s)) || (rc = s_add_time(s)) || (rc = s_exec(s, "COMMIT")) || (rc = s_load_bounds(s)))
    goto fail;
  for (int i = 0; i < Q_COUNT; i++)
    if (sqlite3_prepare_v3(s->db, s_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->q[i], NULL) != SQLITE_OK) {
      rc = s_err(s, s_sql[i]);
      goto fail;
    }
  *out = s;
  return 0;
fail:
  ens__store_close(s);
  return rc;
}

void ens__store_close(ens__store *s) {
  if (!s) return;
  if (s->in_txn) ens__store_rollback(s);
  for (int i = 0; i < Q_COUNT; i++) sqlite3_finalize(s->q[i]);
  sqlite3_close(s->db);
  if (s->lock_fd >= 0) close(s->lock_fd); /* the flock goes with it */
  free(s);
}

int ens__store_open_readonly(const char *path, ens__store **out) {
  *out = NULL;
  struct stat st;
  if (stat(path, &st) != 0) return ens__error(ENS_EIO, "store: %s: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode)) return ens__error(ENS_EIO, "store: %s: not a file", path);
  ens__store *s = calloc(1, sizeof *s);
  if (!s) return ens__error(ENS_ENOMEM, "out of memory opening a store");
  s->lock_fd = -1;
  s->readonly = 1;
  int rc;
  uint64_t v;
  int found;
  if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
    rc = s_err(s, path);
    goto fail;
  }
  sqlite3_busy_timeout(s->db, 5000);
  /* one read transaction: every read sees the same moment of the log,
   * whatever the server commits or trims meanwhile */
  if ((rc = s_exec(s, "BEGIN")) ||
      (rc = s_scalar(s, "SELECT value FROM meta WHERE key = 'version'", &v, &found)))
    goto fail;
  if (!found || (v != 1 && v != STORE_VERSION)) {
    rc = found ? ens__error(ENS_EDECODE, "store: %s: version %llu, this build reads %d", path, (unsigned long long)v,
                            STORE_VERSION)
               : ens__error(ENS_EDECODE, "store: %s: not an Ensemble store", path);
    goto fail;
  }
  if ((rc = s_scalar(s, "SELECT value FROM meta WHERE key = 'epoch'", &s->epoch, &found))) goto fail;
  if ((rc = s_load_bounds(s))) goto fail;
  const char *read = s_has_time(s->db) ? s_sql[Q_READ]
                                       : "SELECT seq, site, client, ctn, txn, NULL FROM log "
                                         "WHERE seq BETWEEN ?1 AND ?2 ORDER BY seq";
  if (sqlite3_prepare_v2(s->db, read, -1, &s->q[Q_READ], NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(s->db, s_sql[Q_CP_GET], -1, &s->q[Q_CP_GET], NULL) != SQLITE_OK) {
    rc = s_err(s, "read");
    goto fail;
  }
  *out = s;
  return 0;
fail:
  ens__store_close(s);
  return rc;
}

int ens__store_checkpoints(ens__store *s, uint64_t *seqs, size_t max) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db, "SELECT seq FROM checkpoint ORDER BY seq", -1, &st, NULL) != SQLITE_OK)
    return s_err(s, "checkpoints");
  size_t n = 0;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW)
    if (n < max) seqs[n++] = (uint64_t)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (step != SQLITE_DONE) return s_err(s, "checkpoints");
  return (int)n;
}

uint64_t ens__store_epoch(const ens__store *s) { return s->epoch; }
uint64_t ens__store_head(const ens__store *s) { return s->head; }
uint64_t ens__store_first(const ens__store *s) { return s->first; }

/* Runs a statement whose parameters are bound; resets it either way. */
static int s_step_done(ens__store *s, sqlite3_stmt *st, const char *what) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return rc == SQLITE_DONE ? 0 : s_err(s, what);
}

int ens__store_begin(ens__store *s) {
  if (s->readonly) return ens__error(ENS_EINVAL, "store: opened read-only");
  if (s->in_txn) return ens__error(ENS_EINVAL, "store: a group is already open");
  int rc = s_step_done(s, s->q[Q_BEGIN], "begin");
  if (rc == 0) {
    s->in_txn = 1;
    s->pending_head = s->head;
  }
  return rc;
}

int ens__store_append(ens__store *s, const ens__entry *e) {
  if (!s->in_txn) return ens__error(ENS_EINVAL, "store: append outside a group");
  if (e->seq != s->pending_head + 1)
    return ens__error(ENS_EINVAL, "store: append of seq %llu after %llu", (unsigned long long)e->seq,
                      (unsigned long long)s->pending_head);
  sqlite3_stmt *st = s->q[Q_APPEND];
  sqlite3_bind_int64(st, 1, (sqlite3_int64)e->seq);
  sqlite3_bind_int64(st, 2, e->site);
  sqlite3_bind_blob(st, 3, e->client, ENS_CLIENT_ID_LEN, SQLITE_STATIC);
  sqlite3_bind_int64(st, 4, (sqlite3_int64)e->ctn);
  sqlite3_bind_blob(st, 5, e->txn, (int)e->len, SQLITE_STATIC);
  sqlite3_bind_int64(st, 6, e->at_ms > 0 ? e->at_ms : ens__store_now_ms());
  int rc = s_step_done(s, st, "append");
  if (rc == 0) s->pending_head = e->seq;
  return rc;
}

int ens__store_set_client(ens__store *s, const ens__client_rec *c) {
  if (!s->in_txn) return ens__error(ENS_EINVAL, "store: client update outside a group");
  sqlite3_stmt *st = s->q[Q_CLIENT];
  sqlite3_bind_blob(st, 1, c->id, ENS_CLIENT_ID_LEN, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, c->site);
  sqlite3_bind_int64(st, 3, (sqlite3_int64)c->last_ctn);
  sqlite3_bind_int64(st, 4, (sqlite3_int64)c->floor);
  sqlite3_bind_int64(st, 5, c->made ? 1 : 0);
  return s_step_done(s, st, "client update");
}

int ens__store_forget_client(ens__store *s, const unsigned char *client) {
  if (!s->in_txn) return ens__error(ENS_EINVAL, "store: client update outside a group");
  sqlite3_stmt *st = s->q[Q_FORGET];
  sqlite3_bind_blob(st, 1, client, ENS_CLIENT_ID_LEN, SQLITE_STATIC);
  return s_step_done(s, st, "client forget");
}

int ens__store_commit(ens__store *s) {
  if (!s->in_txn) return ens__error(ENS_EINVAL, "store: commit outside a group");
  int rc = s_step_done(s, s->q[Q_COMMIT], "commit");
  if (rc) {
    ens__store_rollback(s);
    return rc;
  }
  s->in_txn = 0;
  if (s->first > s->head && s->pending_head > s->head) s->first = s->head + 1;
  s->head = s->pending_head;
  return 0;
}

void ens__store_rollback(ens__store *s) {
  if (!s->in_txn) return;
  char msg[512];
  snprintf(msg, sizeof msg, "%s", ens_error_last()); /* keep the reason the caller reports */
  sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
  ens__error(ENS_EIO, "%s", msg);
  s->in_txn = 0;
  s->pending_head = s->head;
}

int ens__store_read(ens__store *s, uint64_t from, uint64_t to, int (*fn)(const ens__entry *e, void *user),
                    void *user) {
  sqlite3_stmt *st = s->q[Q_READ];
  sqlite3_bind_int64(st, 1, (sqlite3_int64)from);
  sqlite3_bind_int64(st, 2, (sqlite3_int64)to);
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    ens__entry e;
    e.seq = (uint64_t)sqlite3_column_int64(st, 0);
    e.site = (uint32_t)sqlite3_column_int64(st, 1);
    e.client = sqlite3_column_blob(st, 2);
    int nclient = sqlite3_column_bytes(st, 2);
    e.ctn = (uint64_t)sqlite3_column_int64(st, 3);
    e.txn = sqlite3_column_blob(st, 4);
    e.len = (size_t)sqlite3_column_bytes(st, 4);
    e.at_ms = sqlite3_column_type(st, 5) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 5);
    if (nclient != ENS_CLIENT_ID_LEN) {
      rc = ens__error(ENS_EDECODE, "store: entry %llu has a bad client id", (unsigned long long)e.seq);
      break;
    }
    if (!e.txn) e.txn = (const unsigned char *)"";
    if ((rc = fn(&e, user))) break;
  }
  if (!rc && step != SQLITE_DONE) rc = s_err(s, "read");
  sqlite3_reset(st);
  return rc;
}

int ens__store_clients(ens__store *s, int (*fn)(const ens__client_rec *c, void *user), void *user) {
  if (s->readonly) return ens__error(ENS_EINVAL, "store: opened read-only");
  sqlite3_stmt *st = s->q[Q_CLIENTS];
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    if (sqlite3_column_bytes(st, 0) != ENS_CLIENT_ID_LEN) continue;
    ens__client_rec c;
    c.id = sqlite3_column_blob(st, 0);
    c.site = (uint32_t)sqlite3_column_int64(st, 1);
    c.last_ctn = (uint64_t)sqlite3_column_int64(st, 2);
    c.floor = (uint64_t)sqlite3_column_int64(st, 3);
    c.made = sqlite3_column_int64(st, 4) != 0;
    if ((rc = fn(&c, user))) break;
  }
  if (!rc && step != SQLITE_DONE) rc = s_err(s, "clients");
  sqlite3_reset(st);
  return rc;
}

int ens__store_checkpoint_get(ens__store *s, uint64_t *seq, unsigned char **snap, size_t *len) {
  *snap = NULL;
  *len = 0;
  sqlite3_stmt *st = s->q[Q_CP_GET];
  int step = sqlite3_step(st), rc = 0;
  if (step == SQLITE_ROW) {
    *seq = (uint64_t)sqlite3_column_int64(st, 0);
    size_t n = (size_t)sqlite3_column_bytes(st, 1);
    const void *p = sqlite3_column_blob(st, 1);
    *snap = malloc(n ? n : 1);
    if (!*snap) rc = ens__error(ENS_ENOMEM, "out of memory reading a checkpoint");
    else {
      if (n) memcpy(*snap, p, n);
      *len = n;
    }
  } else if (step == SQLITE_DONE) {
    rc = ens__error(ENS_ENOTFOUND, "store: no checkpoint");
  } else {
    rc = s_err(s, "checkpoint");
  }
  sqlite3_reset(st);
  return rc;
}

/* Checkpoints go when a newer one replaces them, except those a record of
 * the host's file names (the document written there is the base of the
 * merge when the file was edited while the server was down) and the one
 * the log starts from (the latest before its first entry: from it every
 * seq the log holds can be rebuilt, the session's history). */
#define DROP_OLD_CHECKPOINTS                                                                                     \
  "DELETE FROM checkpoint WHERE seq < %llu AND seq NOT IN (SELECT seq FROM written) AND seq IS NOT "            \
  "(SELECT max(c.seq) FROM checkpoint c WHERE c.seq < (SELECT coalesce(min(l.seq), -1) FROM log l))"

void ens__written_of(const void *bytes, size_t len, uint64_t seq, ens__written *w) {
  /* two independent 64-bit hashes: telling an edited file from the one
   * written must not hinge on one 64-bit collision */
  uint64_t h[2] = {ens__hash_bytes(bytes, len, 0x656e73656d626c65ULL), ens__hash_bytes(bytes, len, 0x66696c6521ULL)};
  w->seq = seq;
  w->size = len;
  for (int i = 0; i < 16; i++) w->hash[i] = (unsigned char)(h[i / 8] >> (8 * (i % 8)));
}

static int s_written_put(ens__store *s, int slot, const ens__written *w) {
  sqlite3_stmt *st;
  const char *sql = "INSERT OR REPLACE INTO written(slot, seq, size, hash) VALUES (?1, ?2, ?3, ?4)";
  if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return s_err(s, "written");
  sqlite3_bind_int64(st, 1, slot);
  sqlite3_bind_int64(st, 2, (sqlite3_int64)w->seq);
  sqlite3_bind_int64(st, 3, (sqlite3_int64)w->size);
  sqlite3_bind_blob(st, 4, w->hash, (int)sizeof w->hash, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : s_err(s, "written");
  sqlite3_finalize(st);
  return rc;
}

int ens__store_checkpoint_written(ens__store *s, uint64_t seq, const void *snap, size_t len, uint64_t keep,
                                  const ens__written *w) {
  if (s->readonly) return ens__error(ENS_EINVAL, "store: opened read-only");
  if (s->in_txn) return ens__error(ENS_EINVAL, "store: checkpoint inside a group");
  if (seq > s->head) return ens__error(ENS_EINVAL, "store: checkpoint past the head");
  if (w && w->seq != seq) return ens__error(ENS_EINVAL, "store: a file written at another seq than the checkpoint");
  int rc = s_exec(s, "BEGIN IMMEDIATE");
  if (rc) return rc;
  s->in_txn = 1;
  sqlite3_stmt *st = s->q[Q_CP_PUT];
  sqlite3_bind_int64(st, 1, (sqlite3_int64)seq);
  sqlite3_bind_blob(st, 2, snap, (int)len, SQLITE_STATIC);
  if ((rc = s_step_done(s, st, "checkpoint"))) goto fail;
  if (w && ((rc = s_written_put(s, ENS__WRITTEN, w)) || (rc = s_exec(s, "DELETE FROM written WHERE slot <> 0"))))
    goto fail;
  /* the log keeps the entries after seq - keep, and those after the
   * checkpoint it is then to start from; with none at or before seq -
   * keep, it keeps everything */
  char sql[400];
  uint64_t want = seq > keep ? seq - keep : 0, trim = 0;
  int have_base = 0;
  snprintf(sql, sizeof sql, "SELECT max(seq) FROM checkpoint WHERE seq <= %llu", (unsigned long long)want);
  if ((rc = s_scalar(s, sql, &trim, &have_base))) goto fail;
  if (have_base) {
    st = s->q[Q_TRIM];
    sqlite3_bind_int64(st, 1, (sqlite3_int64)trim);
    if ((rc = s_step_done(s, st, "trim"))) goto fail;
  } else {
    trim = 0;
  }
  snprintf(sql, sizeof sql, DROP_OLD_CHECKPOINTS, (unsigned long long)seq);
  if ((rc = s_exec(s, sql))) goto fail;
  if ((rc = s_exec(s, "COMMIT"))) goto fail;
  s->in_txn = 0;
  if (trim + 1 > s->first) s->first = trim + 1;
  /* the WAL would otherwise only grow between automatic checkpoints */
  sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
  return 0;
fail:
  ens__store_rollback(s);
  return rc;
}

int ens__store_checkpoint(ens__store *s, uint64_t seq, const void *snap, size_t len, uint64_t keep) {
  return ens__store_checkpoint_written(s, seq, snap, len, keep, NULL);
}

int ens__store_checkpoint_at(ens__store *s, uint64_t seq, unsigned char **snap, size_t *len) {
  *snap = NULL;
  *len = 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db, "SELECT snapshot FROM checkpoint WHERE seq = ?1", -1, &st, NULL) != SQLITE_OK)
    return s_err(s, "checkpoint");
  sqlite3_bind_int64(st, 1, (sqlite3_int64)seq);
  int step = sqlite3_step(st), rc = 0;
  if (step == SQLITE_ROW) {
    size_t n = (size_t)sqlite3_column_bytes(st, 0);
    const void *p = sqlite3_column_blob(st, 0);
    if (!(*snap = malloc(n ? n : 1))) rc = ens__error(ENS_ENOMEM, "out of memory reading a checkpoint");
    else {
      if (n) memcpy(*snap, p, n);
      *len = n;
    }
  } else if (step == SQLITE_DONE) {
    rc = ens__error(ENS_ENOTFOUND, "store: no checkpoint at seq %llu", (unsigned long long)seq);
  } else {
    rc = s_err(s, "checkpoint");
  }
  sqlite3_finalize(st);
  return rc;
}

int ens__store_written_get(ens__store *s, int slot, ens__written *w) {
  memset(w, 0, sizeof *w);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db, "SELECT seq, size, hash FROM written WHERE slot = ?1", -1, &st, NULL) != SQLITE_OK)
    return s_err(s, "written");
  sqlite3_bind_int64(st, 1, slot);
  int step = sqlite3_step(st), rc = 0;
  if (step == SQLITE_ROW && sqlite3_column_bytes(st, 2) == (int)sizeof w->hash) {
    w->seq = (uint64_t)sqlite3_column_int64(st, 0);
    w->size = (uint64_t)sqlite3_column_int64(st, 1);
    memcpy(w->hash, sqlite3_column_blob(st, 2), sizeof w->hash);
  } else if (step == SQLITE_ROW) {
    rc = ens__error(ENS_EDECODE, "store: a record of the file written has a bad hash");
  } else if (step == SQLITE_DONE) {
    rc = ens__error(ENS_ENOTFOUND, "store: no record of the file written");
  } else {
    rc = s_err(s, "written");
  }
  sqlite3_finalize(st);
  return rc;
}

int ens__store_written_set(ens__store *s, int slot, const ens__written *w) {
  if (s->readonly) return ens__error(ENS_EINVAL, "store: opened read-only");
  if (s->in_txn) return ens__error(ENS_EINVAL, "store: file record inside a group");
  if (slot != ENS__WRITTEN && slot != ENS__WRITING) return ens__error(ENS_EINVAL, "store: no such file record");
  int rc = s_exec(s, "BEGIN IMMEDIATE");
  if (rc) return rc;
  s->in_txn = 1;
  uint64_t found = 0, latest = 0;
  int have = 0, have_latest = 0;
  char sql[400];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM checkpoint WHERE seq = %llu", (unsigned long long)w->seq);
  if ((rc = s_scalar(s, sql, &found, &have))) goto fail;
  if (!have || !found) {
    rc = ens__error(ENS_ENOTFOUND, "store: no checkpoint at seq %llu to say the file was written from",
                    (unsigned long long)w->seq);
    goto fail;
  }
  if ((rc = s_written_put(s, slot, w))) goto fail;
  if (slot == ENS__WRITTEN) {
    /* the write that was under way is done: its record goes, and with it
     * the checkpoints only the older records kept */
    if ((rc = s_exec(s, "DELETE FROM written WHERE slot <> 0")) ||
        (rc = s_scalar(s, "SELECT max(seq) FROM checkpoint", &latest, &have_latest)))
      goto fail;
    snprintf(sql, sizeof sql, DROP_OLD_CHECKPOINTS, (unsigned long long)latest);
    if ((rc = s_exec(s, sql))) goto fail;
  }
  if ((rc = s_exec(s, "COMMIT"))) goto fail;
  s->in_txn = 0;
  return 0;
fail:
  ens__store_rollback(s);
  return rc;
}
