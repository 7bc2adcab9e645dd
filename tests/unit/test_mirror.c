/* The three-way file mirror (mirror.h) on a real session over loopback: a
 * server for the bundled font, mirror A with an editor that keeps the
 * font in memory (its file bytes, edited as text the way an editor's save
 * rewrites lines), and collaborator B committing through its session. A
 * stale save keeps B's changes; a save that changes what B changed is
 * reported with B's name; an editor that reloads loses nothing either; the
 * kept state round-trips and another session's is refused; the versions
 * kept stay within their bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "ensemble.h"
#include "testutil.h"

typedef struct {
  char dir[64], store[128];
  ens_server *srv;
  ens_session *a, *b;
  ens_mirror *m;
} s_world;

static s_world *s_w; /* for the event callback */

static void s_on_event_a(ens_session *s, const ens_session_event *ev, void *user) {
  (void)s;
  s_world *w = user;
  if (w->m) ens_mirror_on_event(w->m, ev);
}

static void s_pump(s_world *w) {
  assert_int_equal(ens_server_poll(w->srv, 0), 0);
  assert_int_equal(ens_session_poll(w->a, 2), 0);
  assert_int_equal(ens_session_poll(w->b, 2), 0);
}

/* Polls until both replicas are live with nothing pending and at the
 * server's head (bounded). */
static void s_settle(s_world *w) {
  for (int i = 0; i < 3000; i++) {
    s_pump(w);
    if (ens_session_is_live(w->a) && ens_session_is_live(w->b) && !ens_session_pending(w->a) &&
        !ens_session_pending(w->b) && ens_session_seq(w->a) == ens_server_head(w->srv) &&
        ens_session_seq(w->b) == ens_server_head(w->srv))
      return;
  }
  fail_msg("the session did not settle");
}

static char *s_font_path(void) {
  static char path[4096];
  const char *src = getenv("ENS_SOURCE_DIR");
  snprintf(path, sizeof path, "%s/examples/LibertinusMono-Regular.sfd", src ? src : ".");
  return path;
}

static void s_world_up(s_world *w, size_t max_versions) {
  memset(w, 0, sizeof *w);
  s_w = w;
  snprintf(w->dir, sizeof w->dir, "/tmp/ens-mirror-XXXXXX");
  assert_non_null(mkdtemp(w->dir));
  snprintf(w->store, sizeof w->store, "%s/store", w->dir);
  ens_doc *font;
  assert_int_equal(ens_sfd_read_path(s_font_path(), &font), 0);
  ens_server_opts so;
  memset(&so, 0, sizeof so);
  so.endpoint = "tcp://127.0.0.1:*";
  so.store_path = w->store;
  so.initial = font;
  so.heartbeat_ms = 200;
  assert_int_equal(ens_server_new(&so, &w->srv), 0);
  ens_doc_free(font);
  ens_session_opts o;
  memset(&o, 0, sizeof o);
  o.endpoint = ens_server_endpoint(w->srv);
  o.name = "Ada";
  o.on_event = s_on_event_a;
  o.user = w;
  assert_int_equal(ens_session_new(&o, &w->a), 0);
  ens_mirror_opts mo = {ENS_SFD_KIND, max_versions, NULL};
  assert_int_equal(ens_mirror_new(w->a, &mo, &w->m), 0);
  o.name = "Bram";
  o.on_event = NULL;
  o.user = NULL;
  assert_int_equal(ens_session_new(&o, &w->b), 0);
  s_settle(w);
}

static void s_world_down(s_world *w) {
  ens_mirror_free(w->m);
  ens_session_free(w->a);
  ens_session_free(w->b);
  ens_server_free(w->srv);
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf %s", w->dir);
  assert_int_equal(system(cmd), 0);
}

/* The mirror writes the session's document: returns the bytes (malloc'd)
 * the editor then opens. */
static char *s_write(s_world *w, size_t *len) {
  assert_int_equal(ens_mirror_outdated(w->m), 1);
  const unsigned char *bytes;
  assert_int_equal(ens_mirror_render(w->m, &bytes, len), 0);
  char *copy = malloc(*len + 1);
  assert_non_null(copy);
  memcpy(copy, bytes, *len);
  copy[*len] = '\0';
  assert_int_equal(ens_mirror_written(w->m), 0);
  assert_int_equal(ens_mirror_outdated(w->m), 0);
  return copy;
}

/* The editor's edit of its in-memory font: glyph's Width line set to width,
 * the way FontForge rewrites it. Returns new bytes (malloc'd). */
static char *s_set_width(const char *sfd, size_t *len, const char *glyph, int width) {
  char head[128];
  snprintf(head, sizeof head, "\nStartChar: %s\n", glyph);
  const char *g = strstr(sfd, head);
  assert_non_null(g);
  const char *wl = strstr(g + 1, "\nWidth: ");
  assert_non_null(wl);
  wl += 1;
  const char *eol = strchr(wl, '\n');
  assert_non_null(eol);
  char line[64];
  int n = snprintf(line, sizeof line, "Width: %d", width);
  size_t before = (size_t)(wl - sfd), after = *len - (size_t)(eol - sfd);
  char *out = malloc(before + (size_t)n + after + 1);
  assert_non_null(out);
  memcpy(out, sfd, before);
  memcpy(out + before, line, (size_t)n);
  memcpy(out + before + n, eol, after);
  *len = before + (size_t)n + after;
  out[*len] = '\0';
  return out;
}

static int64_t s_width(ens_session *s, const char *glyph) {
  const ens_obj *g = ens_glyph_find(ens_session_doc(s), glyph);
  assert_non_null(g);
  ens_value v;
  assert_int_equal(ens_obj_get(g, "width", &v), 0);
  assert_int_equal(v.type, ENS_INT);
  return v.u.i;
}

static void s_collab_width(s_world *w, const char *glyph, int width) {
  ens_txn *t;
  assert_int_equal(ens_glyph_set_width(ens_session_doc(w->b), glyph, width, &t), 0);
  assert_int_equal(ens_session_commit(w->b, t), 0);
  ens_txn_free(t);
  s_settle(w);
}

/* A save: ops says whether it must send something (an edited value sends
 * it and the glyph's kept text), conflicts how many the user is told of. */
static void s_save(s_world *w, const char *bytes, size_t len, size_t ops, size_t conflicts,
                   ens_mirror_result **out) {
  ens_mirror_result *r;
  assert_int_equal(ens_mirror_save(w->m, bytes, len, &r), 0);
  if ((ens_mirror_result_ops(r) > 0) != (ops > 0) || ens_mirror_result_conflict_count(r) != conflicts)
    fail_msg("save: %zu operations, %zu conflicts (base %s); wanted %s and %zu", ens_mirror_result_ops(r),
             ens_mirror_result_conflict_count(r), ens_mirror_result_base(r), ops ? "some" : "none", conflicts);
  if (out) *out = r;
  else ens_mirror_result_free(r);
  s_settle(w);
}

static void test_a_stale_save_keeps_the_collaborators_changes(void **state) {
  (void)state;
  s_world w;
  s_world_up(&w, 0);
  size_t len;
  char *opened = s_write(&w, &len); /* the editor opens the file */
  assert_int_equal(s_width(w.a, "b"), 640);
  s_collab_width(&w, "b", 751); /* Bram, meanwhile */
  size_t l2;
  free(s_write(&w, &l2)); /* the mirror writes it; the editor does not reload */
  size_t slen = len;
  char *saved = s_set_width(opened, &slen, "a", 612);
  s_save(&w, saved, slen, 1, 0, NULL);
  assert_int_equal(s_width(w.a, "a"), 612);
  assert_int_equal(s_width(w.b, "a"), 612);
  assert_int_equal(s_width(w.a, "b"), 751); /* Bram's change survives */
  assert_int_equal(s_width(w.b, "b"), 751);
  /* the editor saves again, still stale: its previous save is its base */
  s_collab_width(&w, "c", 777);
  size_t s2 = slen;
  char *saved2 = s_set_width(saved, &s2, "d", 599);
  s_save(&w, saved2, s2, 1, 0, NULL);
  assert_int_equal(s_width(w.b, "d"), 599);
  assert_int_equal(s_width(w.b, "c"), 777);
  assert_int_equal(s_width(w.b, "b"), 751);
  assert_int_equal(s_width(w.b, "a"), 612);
  /* the file holds the save; the session holds more: the mirror writes */
  assert_int_equal(ens_mirror_outdated(w.m), 1);
  free(opened);
  free(saved);
  free(saved2);
  s_world_down(&w);
}

static void test_a_save_replacing_a_collaborators_value_names_them(void **state) {
  (void)state;
  s_world w;
  s_world_up(&w, 0);
  size_t len;
  char *opened = s_write(&w, &len);
  s_collab_width(&w, "b", 751);
  size_t slen = len;
  char *saved = s_set_width(opened, &slen, "b", 700);
  ens_mirror_result *r;
  s_save(&w, saved, slen, 1, 1, &r);
  const ens_mirror_conflict *c = ens_mirror_result_conflict_at(r, 0);
  assert_int_equal(c->kind, ENS_CONFLICT_SET);
  assert_string_equal(c->key, "width");
  assert_int_equal(c->base.u.i, 640);
  assert_int_equal(c->ours.u.i, 700);
  assert_int_equal(c->theirs.u.i, 751);
  assert_true(c->ours_kept);
  assert_string_equal(c->who, "Bram");
  assert_int_equal(c->site, ens_session_site(w.b));
  assert_true(c->seq > 0);
  assert_non_null(strstr(c->path, "b"));
  ens_mirror_result_free(r);
  assert_int_equal(s_width(w.b, "b"), 700); /* the save is ordered after */
  free(opened);
  free(saved);
  s_world_down(&w);
}

static void test_an_editor_that_reloads_loses_nothing(void **state) {
  (void)state;
  s_world w;
  s_world_up(&w, 0);
  size_t len;
  free(s_write(&w, &len));
  for (int round = 0; round < 6; round++) {
    static const char *mine[] = {"a", "c", "e", "g", "i", "k"}, *theirs[] = {"b", "d", "f", "h", "j", "l"};
    s_collab_width(&w, theirs[round], 700 + round);
    char *reloaded = s_write(&w, &len); /* the editor reloads the latest write */
    s_collab_width(&w, "m", 800 + round); /* and Bram goes on while the user edits */
    size_t slen = len;
    char *saved = s_set_width(reloaded, &slen, mine[round], 600 + round);
    s_save(&w, saved, slen, 1, 0, NULL);
    for (int k = 0; k <= round; k++) {
      assert_int_equal(s_width(w.b, mine[k]), 600 + k);
      assert_int_equal(s_width(w.b, theirs[k]), 700 + k);
    }
    assert_int_equal(s_width(w.b, "m"), 800 + round);
    if (ens_mirror_outdated(w.m)) free(s_write(&w, &len));
    free(reloaded);
    free(saved);
  }
  s_world_down(&w);
}

static void test_our_own_write_read_back_sends_nothing(void **state) {
  (void)state;
  s_world w;
  s_world_up(&w, 0);
  size_t len;
  char *opened = s_write(&w, &len);
  assert_true(ens_mirror_knows(w.m, opened, len));
  uint64_t seq = ens_session_seq(w.a);
  s_save(&w, opened, len, 0, 0, NULL);
  assert_int_equal(ens_session_seq(w.a), seq);
  free(opened);
  s_world_down(&w);
}

static void test_a_broken_save_changes_nothing(void **state) {
  (void)state;
  s_world w;
  s_world_up(&w, 0);
  size_t len;
  char *opened = s_write(&w, &len);
  size_t n = ens_mirror_version_count(w.m);
  assert_int_equal(ens_mirror_save(w.m, "SplineFontDB: 3.0\nStartChar: a\nEncoding: x", 40, NULL), ENS_EDECODE);
  assert_int_equal(ens_mirror_version_count(w.m), n);
  assert_int_equal(ens_mirror_outdated(w.m), 0);
  free(opened);
  s_world_down(&w);
}

static void test_a_file_of_other_content_needs_a_known_version(void **state) {
  (void)state;
  s_world w;
  s_world_up(&w, 0);
  size_t len;
  char *font = tu_read_file(s_font_path(), &len);
  assert_non_null(font);
  /* the session's own content, never written by this mirror: adopted */
  s_save(&w, font, len, 0, 0, NULL);
  assert_int_equal(ens_mirror_outdated(w.m), 0);
  ens_mirror_free(w.m);
  ens_mirror_opts mo = {ENS_SFD_KIND, 0, NULL};
  assert_int_equal(ens_mirror_new(w.a, &mo, &w.m), 0);
  size_t slen = len;
  char *other = s_set_width(font, &slen, "a", 1);
  assert_int_equal(ens_mirror_save(w.m, other, slen, NULL), ENS_ENOTFOUND);
  assert_int_equal(ens_mirror_version_count(w.m), 0);
  free(font);
  free(other);
  s_world_down(&w);
}

static void test_kept_state_merges_edits_made_while_stopped(void **state) {
  (void)state;
  s_world w;
  s_world_up(&w, 0);
  size_t len;
  char *written = s_write(&w, &len);
  unsigned char *kept;
  size_t klen;
  assert_int_equal(ens_mirror_state_encode(w.m, ENS_MIRROR_CURRENT, &kept, &klen), 0);
  /* the mirror stops; the user edits the file; Bram goes on */
  ens_mirror_free(w.m);
  w.m = NULL;
  size_t slen = len;
  char *edited = s_set_width(written, &slen, "a", 555);
  s_collab_width(&w, "b", 751);
  ens_mirror_opts mo = {ENS_SFD_KIND, 0, NULL};
  assert_int_equal(ens_mirror_new(w.a, &mo, &w.m), 0);
  assert_int_equal(ens_mirror_state_add(w.m, kept, klen), 0);
  assert_true(ens_mirror_knows(w.m, written, len));
  assert_false(ens_mirror_knows(w.m, edited, slen));
  s_save(&w, edited, slen, 1, 0, NULL);
  assert_int_equal(s_width(w.b, "a"), 555);
  assert_int_equal(s_width(w.b, "b"), 751);
  /* damaged, and another session's */
  kept[klen / 2] ^= 0x40;
  assert_int_equal(ens_mirror_state_add(w.m, kept, klen), ENS_EDECODE);
  kept[klen / 2] ^= 0x40;
  assert_int_equal(ens_mirror_state_add(w.m, kept, klen - 1), ENS_EDECODE);
  s_world other;
  s_world_up(&other, 0);
  assert_int_equal(ens_mirror_state_add(other.m, kept, klen), ENS_EINVAL);
  assert_non_null(strstr(ens_error_last(), "another session"));
  s_world_down(&other);
  ens_free(kept);
  free(written);
  free(edited);
  s_world_down(&w);
}

static void test_versions_stay_within_their_bound(void **state) {
  (void)state;
  s_world w;
  s_world_up(&w, 4);
  size_t len;
  char *opened = s_write(&w, &len);
  ens_mirror_file_read(w.m, 0); /* the editor opened the first version */
  for (int i = 0; i < 12; i++) {
    s_collab_width(&w, "b", 700 + i);
    free(s_write(&w, &len));
    assert_true(ens_mirror_version_count(w.m) <= 4);
  }
  /* the version the editor opened was kept: its stale save is merged from it */
  size_t slen = len;
  char *saved = s_set_width(opened, &slen, "a", 601);
  s_save(&w, saved, slen, 1, 0, NULL);
  assert_int_equal(s_width(w.b, "b"), 711);
  assert_int_equal(s_width(w.b, "a"), 601);
  free(opened);
  free(saved);
  s_world_down(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_stale_save_keeps_the_collaborators_changes),
      cmocka_unit_test(test_a_save_replacing_a_collaborators_value_names_them),
      cmocka_unit_test(test_an_editor_that_reloads_loses_nothing),
      cmocka_unit_test(test_our_own_write_read_back_sends_nothing),
      cmocka_unit_test(test_a_broken_save_changes_nothing),
      cmocka_unit_test(test_a_file_of_other_content_needs_a_known_version),
      cmocka_unit_test(test_kept_state_merges_edits_made_while_stopped),
      cmocka_unit_test(test_versions_stay_within_their_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
