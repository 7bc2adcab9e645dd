/* The three-way file mirror (mirror.h): the versions of the file that an
 * editor may hold, each with the session's ids; the choice of a save's
 * base among them; the merge of the save onto the session; and which
 * versions to keep when there are too many. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/doc.h"
#include "../txn/ops.h"
#include "../util/error.h"
#include "../formats/lottie/lottie_int.h"
#include "ensemble/lottie.h"
#include "ensemble/mirror.h"
#include "ensemble/sfd.h"
#include "ensemble/svg.h"
#include "fingerprint.h"
#include "mirror_int.h"

enum { V_WRITE = 0, V_SAVE = 1, V_KEPT = 2 };
/* decoded documents kept beside the snapshots: the likely next base */
#define DOCS_CACHED 1

typedef struct {
  uint64_t serial; /* order of arrival */
  int origin;
  uint64_t seq;
  uint64_t file_hash;
  size_t file_len;
  uint64_t doc_hash;
  unsigned char *snap; /* the document with the session's ids */
  size_t snap_len;
  ens__fp fp;
  ens_doc *doc;       /* snap decoded, when cached */
  uint64_t used;      /* tick of the last use as a base (the cache keeps the latest) */
  uint64_t read_tick; /* tick of the last time someone opened the file holding it; 0: never */
} s_version;

struct ens_mirror {
  ens_session *s;
  int svg, lottie;
  const char *kind; /* the document kind of the format: ENS_SFD_KIND, ENS_SVG_KIND, ENS_LOTTIE_KIND */
  int container;    /* lottie: ENS_LOTTIE_AS_JSON or ENS_LOTTIE_AS_TGS */
  ens_identity_fn identity;
  size_t max;
  char *label;
  uint64_t epoch; /* the history the versions belong to; 0 before the first */
  s_version **v;
  size_t nv;
  s_version *current;  /* what the file holds; NULL when not known */
  s_version *previous; /* what it held before the last write */
  s_version *rendered; /* rendered, not yet written */
  unsigned char *rbytes;
  size_t rlen;
  uint64_t serial, tick;
  /* ens_mirror_outdated's last answer, valid while nothing changed */
  const ens_doc *odoc;
  uint64_t oclock;
  const s_version *ocur;
  int oans;
  ens__who who;
};

struct ens_mirror_result {
  size_t ops;
  char base[128];
  ens_mirror_conflict *c;
  size_t n;
  ens_merge *merge; /* owns what the conflicts borrow */
  char (*who)[80];
};

/* --- versions ------------------------------------------------------------------ */

static void s_version_free(s_version *v) {
  if (!v) return;
  free(v->snap);
  ens__fp_free(&v->fp);
  ens_doc_free(v->doc);
  free(v);
}

static int s_read(const ens_mirror *m, const void *bytes, size_t len, ens_doc **out) {
  if (!m->lottie) return m->svg ? ens_svg_read(bytes, len, out) : ens_sfd_read(bytes, len, out);
  int rc = ens_lottie_read(bytes, len, out);
  /* the container is the session's file's, whatever the mirror's is */
  if (!rc && (rc = ens__lj_container_from(*out, ens_session_doc(m->s)))) {
    ens_doc_free(*out);
    *out = NULL;
  }
  return rc;
}

/* A version of doc (which it describes from now on, not kept). fp, when
 * given, is doc's fingerprint and is taken over. */
static int s_version_of(ens_mirror *m, const ens_doc *doc, int origin, uint64_t file_hash, size_t file_len,
                        ens__fp *fp, s_version **out) {
  *out = NULL;
  s_version *v = calloc(1, sizeof *v);
  if (!v) return ens__error(ENS_ENOMEM, "out of memory keeping a version of the file");
  v->serial = ++m->serial;
  v->origin = origin;
  v->seq = ens_session_seq(m->s);
  v->file_hash = file_hash;
  v->file_len = file_len;
  v->doc_hash = ens_doc_hash(doc);
  int rc = ens_snapshot_encode(doc, &v->snap, &v->snap_len);
  if (!rc) {
    /* the encoder's buffer has room to spare; a version keeps it for long */
    unsigned char *exact = realloc(v->snap, v->snap_len ? v->snap_len : 1);
    if (exact) v->snap = exact;
    if (fp) {
      v->fp = *fp;
      memset(fp, 0, sizeof *fp);
    } else {
      rc = ens__fp_make(doc, &v->fp);
    }
  }
  if (rc) {
    s_version_free(v);
    return rc;
  }
  *out = v;
  return 0;
}

/* The version's document, decoded when not cached; only the DOCS_CACHED
 * most recently used stay decoded. Borrowed. */
static int s_version_doc(ens_mirror *m, s_version *v, const ens_doc **out) {
  v->used = ++m->tick;
  if (!v->doc) {
    int rc = ens_snapshot_decode(v->snap, v->snap_len, &v->doc);
    if (rc) return rc;
    for (;;) {
      size_t cached = 0;
      s_version *oldest = NULL;
      for (size_t i = 0; i < m->nv; i++)
        if (m->v[i]->doc) {
          cached++;
          if (m->v[i] != v && (!oldest || m->v[i]->used < oldest->used)) oldest = m->v[i];
        }
      if (cached <= DOCS_CACHED || !oldest) break;
      ens_doc_free(oldest->doc);
      oldest->doc = NULL;
    }
  }
  *out = v->doc;
  return 0;
}

static s_version *s_newest(const ens_mirror *m, int origin) {
  s_version *best = NULL;
  for (size_t i = 0; i < m->nv; i++)
    if (m->v[i]->origin == origin && (!best || m->v[i]->serial > best->serial)) best = m->v[i];
  return best;
}

/* Which version to let go when there are too many: never the file's
 * content, the one before the last write, nor the newest save or write.
 * First those nobody opened (no editor can hold them), oldest first, then
 * those read longest ago. */
static size_t s_victim(const ens_mirror *m) {
  const s_version *save = s_newest(m, V_SAVE), *write = s_newest(m, V_WRITE);
  size_t best = m->nv;
  for (size_t i = 0; i < m->nv; i++) {
    const s_version *v = m->v[i];
    if (v == m->current || v == m->previous || v == save || v == write) continue;
    if (best == m->nv) {
      best = i;
      continue;
    }
    const s_version *b = m->v[best];
    int vr = v->read_tick != 0, br = b->read_tick != 0;
    if (vr != br ? !vr : vr ? v->read_tick < b->read_tick : v->serial < b->serial) best = i;
  }
  return best;
}

static int s_add(ens_mirror *m, s_version *v) {
  s_version **grown = realloc(m->v, (m->nv + 1) * sizeof *grown);
  if (!grown) {
    s_version_free(v);
    return ens__error(ENS_ENOMEM, "out of memory keeping a version of the file");
  }
  m->v = grown;
  m->v[m->nv++] = v;
  while (m->nv > m->max) {
    size_t i = s_victim(m);
    if (i == m->nv) break;
    s_version_free(m->v[i]);
    m->v[i] = m->v[--m->nv];
  }
  /* changes older than every version kept can no longer conflict with a save */
  uint64_t oldest = UINT64_MAX;
  for (size_t i = 0; i < m->nv; i++)
    if (m->v[i]->seq < oldest) oldest = m->v[i]->seq;
  if (oldest != UINT64_MAX) ens__who_prune(&m->who, oldest);
  return 0;
}

static void s_forget_all(ens_mirror *m) {
  for (size_t i = 0; i < m->nv; i++) s_version_free(m->v[i]);
  m->nv = 0;
  m->current = m->previous = NULL;
  s_version_free(m->rendered);
  m->rendered = NULL;
  ens_free(m->rbytes);
  m->rbytes = NULL;
  m->odoc = NULL;
  ens__who_prune(&m->who, UINT64_MAX - 1);
}

static s_version *s_by_bytes(const ens_mirror *m, uint64_t hash, size_t len) {
  s_version *best = NULL;
  for (size_t i = 0; i < m->nv; i++)
    if (m->v[i]->file_hash == hash && m->v[i]->file_len == len && (!best || m->v[i]->serial > best->serial))
      best = m->v[i];
  return best;
}

/* --- the mirror ------------------------------------------------------------------ */

int ens_mirror_new(ens_session *session, const ens_mirror_opts *opts, ens_mirror **out) {
  *out = NULL;
  if (!session || !opts || !opts->format) return ens__error(ENS_EINVAL, "mirror: a session and a format are needed");
  int svg = 0, lottie = 0;
  if (strcmp(opts->format, ENS_SFD_KIND) == 0) svg = 0;
  else if (strcmp(opts->format, ENS_SVG_KIND) == 0) svg = 1;
  else if (strcmp(opts->format, ENS_LOTTIE_KIND) == 0) lottie = 1;
  else
    return ens__error(ENS_EINVAL, "mirror: unknown format \"%s\" (\"sfd\", \"svg\" or \"lottie\")", opts->format);
  if (lottie && opts->container != ENS_LOTTIE_AS_JSON && opts->container != ENS_LOTTIE_AS_TGS)
    return ens__error(ENS_EINVAL, "mirror: an animation is mirrored into a .json or a .tgs, not a dotLottie archive "
                                  "(docs/lottie.md)");
  ens_mirror *m = calloc(1, sizeof *m);
  if (!m) return ens__error(ENS_ENOMEM, "out of memory");
  m->s = session;
  m->svg = svg;
  m->lottie = lottie;
  m->kind = lottie ? ENS_LOTTIE_KIND : svg ? ENS_SVG_KIND : ENS_SFD_KIND;
  m->container = opts->container;
  m->identity = lottie ? ens_lottie_identity : svg ? ens_svg_identity : ens_sfd_identity;
  m->max = opts->max_versions ? opts->max_versions : ENS_MIRROR_VERSIONS;
  if (m->max < 3) m->max = 3;
  m->label = strdup(opts->label && *opts->label ? opts->label : "Saved by editor");
  if (!m->label) {
    free(m);
    return ens__error(ENS_ENOMEM, "out of memory");
  }
  *out = m;
  return 0;
}

void ens_mirror_free(ens_mirror *m) {
  if (!m) return;
  s_forget_all(m);
  free(m->v);
  ens__who_clear(&m->who);
  free(m->label);
  free(m);
}

void ens_mirror_on_event(ens_mirror *m, const ens_session_event *ev) {
  switch (ev->kind) {
  case ENS_SESSION_CONNECTED:
  case ENS_SESSION_RESET: {
    uint64_t epoch = ens_session_epoch(m->s);
    /* another history: the versions' ids mean nothing in it */
    if (m->epoch && epoch != m->epoch) s_forget_all(m);
    m->epoch = epoch;
    break;
  }
  case ENS_SESSION_JOINED:
  case ENS_SESSION_PRESENCE: ens__who_set_name(&m->who, ev->site, ev->name, 1); break;
  case ENS_SESSION_LANDED:
    if (ev->txn) {
      ens__who_set_name(&m->who, ev->site, ens_txn_author(ev->txn), 0);
      ens__who_note(&m->who, ev->txn, ev->site, ev->seq);
    }
    break;
  default: break;
  }
}

int ens_mirror_outdated(ens_mirror *m) {
  ens_doc *doc = ens_session_doc(m->s);
  if (!doc || !ens_session_is_live(m->s)) return 0;
  if (!m->current) return 1;
  if (doc == m->odoc && doc->clock == m->oclock && m->current == m->ocur) return m->oans;
  m->odoc = doc;
  m->oclock = doc->clock;
  m->ocur = m->current;
  m->oans = ens_doc_hash(doc) != m->current->doc_hash;
  return m->oans;
}

int ens_mirror_render(ens_mirror *m, const unsigned char **bytes, size_t *len) {
  *bytes = NULL;
  *len = 0;
  ens_doc *doc = ens_session_doc(m->s);
  if (!doc) return ens__error(ENS_EINVAL, "mirror: the session has no document yet");
  unsigned char *b;
  size_t n;
  int rc = m->lottie ? ens_lottie_write_as(doc, m->container, &b, &n)
           : m->svg  ? ens_svg_write(doc, &b, &n)
                     : ens_sfd_write(doc, &b, &n);
  if (rc) return rc;
  s_version *v;
  if ((rc = s_version_of(m, doc, V_WRITE, ens__mirror_bytes_hash(b, n), n, NULL, &v))) {
    ens_free(b);
    return rc;
  }
  s_version_free(m->rendered);
  ens_free(m->rbytes);
  m->rendered = v;
  m->rbytes = b;
  m->rlen = n;
  *bytes = b;
  *len = n;
  return 0;
}

int ens_mirror_written(ens_mirror *m) {
  if (!m->rendered) return ens__error(ENS_EINVAL, "mirror: nothing was rendered");
  s_version *v = m->rendered;
  m->rendered = NULL;
  ens_free(m->rbytes);
  m->rbytes = NULL;
  int rc = s_add(m, v);
  if (rc) return rc;
  m->previous = m->current;
  m->current = v;
  return 0;
}

void ens_mirror_file_read(ens_mirror *m, int previous) {
  s_version *v = previous ? m->previous : m->current;
  if (v) v->read_tick = ++m->tick;
}

int ens_mirror_knows(const ens_mirror *m, const void *bytes, size_t len) {
  return s_by_bytes(m, ens__mirror_bytes_hash(bytes, len), len) != NULL;
}

size_t ens_mirror_version_count(const ens_mirror *m) { return m->nv; }

/* --- a save ------------------------------------------------------------------- */

static void s_describe(const s_version *v, char *out, size_t size) {
  const char *what = v->origin == V_WRITE ? "the version written" : v->origin == V_SAVE ? "the save" : "the version kept";
  snprintf(out, size, "%s at seq %llu", what, (unsigned long long)v->seq);
}

/* The known version the save is closest to: the fewest objects and
 * properties apart. On a tie, a save rather than a write, then the older:
 * a base too old reports the collaborators' changes the save replaces; a
 * base too new would take them back without a word. */
static s_version *s_closest(const ens_mirror *m, const ens__fp *fp) {
  s_version *best = NULL;
  size_t bestd = 0;
  for (size_t i = 0; i < m->nv; i++) {
    s_version *v = m->v[i];
    size_t d = ens__fp_distance(fp, &v->fp);
    int better = !best || d < bestd;
    if (!better && d == bestd) {
      int vs = v->origin != V_WRITE, bs = best->origin != V_WRITE;
      better = vs != bs ? vs : v->serial < best->serial;
    }
    if (better) {
      best = v;
      bestd = d;
    }
  }
  return best;
}

static ens_mirror_result *s_result_new(void) { return calloc(1, sizeof(ens_mirror_result)); }

/* Editor state rather than the user's work: both sides change it at
 * every save (FontForge stamps the time of the save, Inkscape the view),
 * so a conflict on it is no news. The save's value stands, as for any
 * conflict. */
static int s_quiet(const ens_mirror *m, const ens_merge_conflict *c, const ens_doc *theirs) {
  if (c->kind != ENS_CONFLICT_SET || !c->key) return 0;
  /* text a format keeps only to write an object back as it was read
   * ("~head" of an SFD glyph): the writer checks it against the values
   * and reprints what no longer holds */
  if (c->key[0] == '~') return 1;
  if (m->lottie) return 0; /* an animation file holds no editor state */
  if (!m->svg) return c->id == ENS_ROOT_ID && (!strcmp(c->key, "ModificationTime") || !strcmp(c->key, "WinInfo"));
  const ens_obj *o = ens_doc_get(theirs, c->id);
  return o && strcmp(ens_obj_kind(o), "sodipodi:namedview") == 0;
}

/* The conflicts of merge, with who made the session's side of each. */
static int s_result_conflicts(ens_mirror *m, ens_mirror_result *r, const ens_doc *base, const ens_doc *theirs) {
  size_t n = ens_merge_conflict_count(r->merge);
  if (!n) return 0;
  r->c = calloc(n, sizeof *r->c);
  r->who = calloc(n, sizeof *r->who);
  if (!r->c || !r->who) return ens__error(ENS_ENOMEM, "out of memory");
  uint32_t self = ens_session_site(m->s);
  for (size_t i = 0; i < n; i++) {
    const ens_merge_conflict *c = ens_merge_conflict_at(r->merge, i);
    if (s_quiet(m, c, theirs)) continue;
    /* one line per object a collaborator deleted, naming a property the
     * user changed rather than kept text when there is one */
    size_t j = 0;
    while (c->kind == ENS_CONFLICT_DELETE && j < r->n &&
           !(r->c[j].kind == ENS_CONFLICT_DELETE && c->path && strcmp(r->c[j].path, c->path) == 0))
      j++;
    if (c->kind == ENS_CONFLICT_DELETE && j < r->n) {
      if (c->key && c->key[0] != '~' && (!r->c[j].key || r->c[j].key[0] == '~')) r->c[j].key = c->key;
      continue;
    }
    ens_mirror_conflict *o = &r->c[r->n];
    o->kind = c->kind;
    o->path = c->path ? c->path : "";
    o->key = c->key;
    o->base = c->base;
    o->ours = c->ours;
    o->theirs = c->theirs;
    o->ours_kept = c->ours_kept;
    o->theirs_deleted = c->kind == ENS_CONFLICT_DELETE && (c->id == ENS_ID_NONE || !ens_doc_get(theirs, c->id));
    o->who = r->who[r->n++];
    uint32_t site = 0;
    uint64_t seq = 0;
    int found = 0;
    if (c->id != ENS_ID_NONE)
      found = o->kind == ENS_CONFLICT_DELETE && !o->theirs_deleted
                  ? ens__who_find_within(&m->who, theirs, c->id, &site, &seq)
                  : ens__who_find(&m->who, theirs, c->id, c->key, &site, &seq) ||
                        ens__who_find(&m->who, base, c->id, c->key, &site, &seq);
    if (found) {
      o->site = site;
      o->seq = seq;
      const char *name = ens__who_name_of(&m->who, site);
      char *who = r->who[r->n - 1];
      if (site == self) snprintf(who, sizeof r->who[0], "an earlier save of this file");
      else if (name) snprintf(who, sizeof r->who[0], "%s", name);
      else snprintf(who, sizeof r->who[0], "site %u", site);
    }
  }
  return 0;
}

static void s_count_skip(const ens__op *op, int reason, void *user) {
  (void)op;
  (void)reason;
  ++*(size_t *)user;
}

/* The save as a version with the session's ids, right after its merge
 * was committed. When the session's document holds exactly the save's
 * content, a copy of it. Otherwise (collaborators' changes the save did
 * not have) the base's document with the merge's transaction applied: the
 * base plus the user's changes, new objects under the ids the merge gave
 * them in the session. What that still lacks (edits the merge dropped or
 * left to the collaborator's side) comes from a diff, with objects the
 * session does not have under fresh ids of our site that the session will
 * never hand out. So the version reads as the save (but for text kept for
 * writing that changed alone, which the merge never counts as an edit),
 * and the next save from it sends only what is new. */
static int s_save_version(ens_mirror *m, s_version *basev, const ens_txn *txn, const ens_doc *saved, ens__fp *fp,
                          uint64_t hash, size_t len, s_version **out) {
  ens_doc *doc = ens_session_doc(m->s);
  uint64_t want = ens_doc_content_hash(saved);
  if (ens_doc_content_hash(doc) == want) return s_version_of(m, doc, V_SAVE, hash, len, fp, out);
  ens_doc *d = basev->doc; /* the base keeps its snapshot; its decoded copy becomes the save's */
  basev->doc = NULL;
  int rc = d ? 0 : ens_snapshot_decode(basev->snap, basev->snap_len, &d);
  if (rc) return rc;
  size_t skipped = 0;
  if (txn && ens_txn_op_count(txn)) {
    ens_txn *applied = NULL, *inverse = NULL;
    rc = ens__doc_apply_lenient(d, txn, ENS_ORIGIN_REMOTE, NULL, s_count_skip, &skipped, &applied, &inverse);
    ens_txn_free(applied);
    ens_txn_free(inverse);
  }
  int differs = !rc && (skipped || ens_doc_content_hash(d) != want);
  if (differs) {
    /* text the reader kept that changed alone (a save in another layout)
     * is no edit to the merge, and counts nowhere: no diff for it */
    ens__fp got;
    if (ens__fp_make(d, &got) == 0) {
      differs = ens__fp_distance(&got, fp) != 0;
      ens__fp_free(&got);
    }
  }
  if (differs) {
    ens_txn *diff = NULL;
    ens_doc_set_site(d, ens_doc_site(doc));
    if (d->counter < doc->counter) d->counter = doc->counter;
    if (!(rc = ens_doc_diff(d, saved, m->identity, NULL, &diff))) rc = ens_doc_apply(d, diff, ENS_ORIGIN_REMOTE, NULL);
    ens_txn_free(diff);
    if (doc->counter < d->counter) doc->counter = d->counter;
  }
  if (!rc) rc = s_version_of(m, d, V_SAVE, hash, len, fp, out);
  if (rc) {
    ens_doc_free(d);
    return rc;
  }
  (*out)->doc = d; /* the likely base of the next save */
  (*out)->used = ++m->tick;
  return 0;
}

static int s_save(ens_mirror *m, const void *bytes, size_t len, ens_merge_prefer prefer, ens_mirror_result **out) {
  if (out) *out = NULL;
  ens_doc *doc = ens_session_doc(m->s);
  if (!doc) return ens__error(ENS_EINVAL, "mirror: the session has no document yet");
  if (strcmp(ens_doc_kind(doc), m->kind) != 0)
    return ens__error(ENS_EINVAL, "mirror: the session holds a \"%s\" document, not a file of this format",
                      ens_doc_kind(doc));
  ens_mirror_result *r = s_result_new();
  if (!r) return ens__error(ENS_ENOMEM, "out of memory");
  uint64_t hash = ens__mirror_bytes_hash(bytes, len);
  ens_doc *saved = NULL;
  ens__fp fp = {0};
  ens_txn *txn = NULL;
  s_version *v = s_by_bytes(m, hash, len);
  int rc = 0;
  if (v) { /* a version we know: our own write read back, or a save without edits */
    s_describe(v, r->base, sizeof r->base);
    m->current = v;
    goto done;
  }
  if ((rc = s_read(m, bytes, len, &saved))) goto done;
  if ((rc = ens__fp_make(saved, &fp))) goto done;
  if (!m->nv) {
    /* the first the mirror sees of the file: it may only hold the session's content */
    if (ens_doc_content_hash(saved) != ens_doc_content_hash(doc)) {
      rc = ens__error(ENS_ENOTFOUND, "the file differs from the session's document and no earlier version of it is known");
      goto done;
    }
    snprintf(r->base, sizeof r->base, "the session's document at seq %llu", (unsigned long long)ens_session_seq(m->s));
    if ((rc = s_version_of(m, doc, V_SAVE, hash, len, &fp, &v)) || (rc = s_add(m, v))) goto done;
    m->current = v;
    goto done;
  }
  s_version *basev = s_closest(m, &fp);
  const ens_doc *base;
  s_describe(basev, r->base, sizeof r->base);
  if ((rc = s_version_doc(m, basev, &base))) goto done;
  ens_merge_opts mo;
  memset(&mo, 0, sizeof mo);
  mo.identity = m->identity;
  mo.refs = m->identity == ens_svg_identity ? ens_svg_refs : NULL;
  mo.ours_match = ENS_MERGE_BY_KEY;
  mo.theirs_match = ENS_MERGE_BY_ID;
  mo.prefer = prefer;
  if ((rc = ens_merge3(base, saved, doc, &mo, &r->merge))) goto done;
  if ((rc = s_result_conflicts(m, r, base, doc))) goto done;
  txn = ens_merge_take_txn(r->merge);
  r->ops = txn ? ens_txn_op_count(txn) : 0;
  if (r->ops) {
    if ((rc = ens_txn_set_label(txn, m->label))) goto done;
    if ((rc = ens_session_commit(m->s, txn))) {
      /* not applied: the version stays unknown, so the next save sends
       * these changes again */
      r->ops = 0;
      goto done;
    }
    ens__who_note(&m->who, txn, ens_session_site(m->s), ens_session_seq(m->s) + 1);
  }
  if ((rc = s_save_version(m, basev, txn, saved, &fp, hash, len, &v)) || (rc = s_add(m, v))) {
    /* the save is in the session all the same: the file now holds a
     * version the mirror does not know, which the host rewrites */
    rc = 0;
    m->current = NULL;
    goto done;
  }
  m->current = v;
done:
  ens_txn_free(txn);
  ens_doc_free(saved);
  ens__fp_free(&fp);
  if (rc || !out) ens_mirror_result_free(r);
  else *out = r;
  return rc;
}

int ens_mirror_save(ens_mirror *m, const void *bytes, size_t len, ens_mirror_result **out) {
  return s_save(m, bytes, len, ENS_MERGE_PREFER_OURS, out);
}

int ens_mirror_recover(ens_mirror *m, const void *bytes, size_t len, ens_mirror_result **out) {
  return s_save(m, bytes, len, ENS_MERGE_PREFER_THEIRS, out);
}

size_t ens_mirror_result_ops(const ens_mirror_result *r) { return r->ops; }
const char *ens_mirror_result_base(const ens_mirror_result *r) { return r->base; }
size_t ens_mirror_result_conflict_count(const ens_mirror_result *r) { return r->n; }
const ens_mirror_conflict *ens_mirror_result_conflict_at(const ens_mirror_result *r, size_t i) {
  return i < r->n ? &r->c[i] : NULL;
}

void ens_mirror_result_free(ens_mirror_result *r) {
  if (!r) return;
  free(r->c);
  free(r->who);
  ens_merge_free(r->merge);
  free(r);
}

/* --- durable state -------------------------------------------------------------- */

int ens_mirror_state_encode(const ens_mirror *m, ens_mirror_which which, unsigned char **out, size_t *len) {
  *out = NULL;
  *len = 0;
  const s_version *v = which == ENS_MIRROR_RENDERED ? m->rendered : m->current;
  if (!v) return ens__error(ENS_ENOTFOUND, "mirror: no such version of the file");
  ens__mirror_state st;
  memset(&st, 0, sizeof st);
  st.epoch = ens_session_epoch(m->s);
  st.seq = v->seq;
  st.file_hash = v->file_hash;
  st.file_len = v->file_len;
  st.doc_hash = v->doc_hash;
  st.origin = (uint8_t)v->origin;
  snprintf(st.format, sizeof st.format, "%s", m->kind);
  st.snap = v->snap;
  st.snap_len = v->snap_len;
  return ens__mirror_state_write(&st, out, len);
}

int ens_mirror_state_add(ens_mirror *m, const void *data, size_t len) {
  ens_doc *doc = ens_session_doc(m->s);
  if (!doc) return ens__error(ENS_EINVAL, "mirror: the session has no document yet");
  ens__mirror_state st;
  int rc = ens__mirror_state_read(data, len, &st);
  if (rc) return rc;
  if (strcmp(st.format, m->kind) != 0)
    return ens__error(ENS_EINVAL, "the kept version is of a \"%s\" file", st.format);
  if (st.epoch != ens_session_epoch(m->s))
    return ens__error(ENS_EINVAL, "the kept version belongs to another session (epoch %016llx, not %016llx)",
                      (unsigned long long)st.epoch, (unsigned long long)ens_session_epoch(m->s));
  if (s_by_bytes(m, st.file_hash, (size_t)st.file_len)) return 0;
  ens_doc *kept;
  if ((rc = ens_snapshot_decode(st.snap, st.snap_len, &kept))) return rc;
  if (strcmp(ens_doc_kind(kept), ens_doc_kind(doc)) != 0) {
    ens_doc_free(kept);
    return ens__error(ENS_EINVAL, "the kept version holds a \"%s\" document", ens_doc_kind(kept));
  }
  s_version *v = calloc(1, sizeof *v);
  unsigned char *snap = malloc(st.snap_len ? st.snap_len : 1);
  if (!v || !snap || (rc = ens__fp_make(kept, &v->fp))) {
    free(v);
    free(snap);
    ens_doc_free(kept);
    return rc ? rc : ens__error(ENS_ENOMEM, "out of memory");
  }
  memcpy(snap, st.snap, st.snap_len);
  v->serial = ++m->serial;
  v->origin = V_KEPT;
  v->seq = st.seq;
  v->file_hash = st.file_hash;
  v->file_len = (size_t)st.file_len;
  v->doc_hash = ens_doc_hash(kept);
  v->snap = snap;
  v->snap_len = st.snap_len;
  v->read_tick = ++m->tick; /* an editor may have had it open all along */
  ens_doc_free(kept);
  m->odoc = NULL;
  return s_add(m, v);
}
