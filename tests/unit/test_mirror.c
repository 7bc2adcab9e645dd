/* The three-way file mirror (mirror.h) on a real session over loopback: a
 * server for the bundled font, mirror A with an editor that keeps the
 * font in memory (its file bytes, edited as text the way an editor's save
 * rewrites lines), and collaborator B committing through its session. A
 * stale save keeps B's changes; a save that changes what B changed is
 * reported with B's name; an editor that reloads loses nothing either; the
 * kept state round-trips and another session's is refused; the versions
 * kept stay within their bound. The same on an animation (Lottie text edited
 * the way a text editor saves it), in .json and .tgs files. */
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
#include "vcs/fingerprint.h"

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

static const char s_drawing[] =
    "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"svg\" viewBox=\"0 0 100 100\">\n"
    "  <g id=\"ga\">\n"
    "    <rect id=\"r1\" x=\"1\" y=\"1\" width=\"5\" height=\"5\" fill=\"#000000\"/>\n"
    "    <rect id=\"r2\" x=\"11\" y=\"1\" width=\"5\" height=\"5\" fill=\"#000000\"/>\n"
    "    <rect id=\"r3\" x=\"21\" y=\"1\" width=\"5\" height=\"5\" fill=\"#000000\"/>\n"
    "  </g>\n"
    "  <g id=\"gb\">\n"
    "    <circle id=\"c1\" cx=\"50\" cy=\"50\" r=\"3\" fill=\"#000000\"/>\n"
    "  </g>\n"
    "</svg>\n";

/* Two layers, their positions' keyframes each with a value found once in
 * the text, so that an edit is a replacement of that value. */
static const char s_anim[] =
    "{\"v\": \"5.7.4\", \"fr\": 30, \"ip\": 0, \"op\": 60, \"w\": 200, \"h\": 200,\n"
    " \"layers\": [\n"
    "  {\"ind\": 1, \"ty\": 4, \"nm\": \"Ball\", \"ip\": 0, \"op\": 60, \"st\": 0,\n"
    "   \"ks\": {\"p\": {\"a\": 1, \"k\": [\n"
    "     {\"t\": 0, \"s\": [101, 0]},\n"
    "     {\"t\": 30, \"s\": [102, 0]}]}},\n"
    "   \"shapes\": [{\"ty\": \"el\", \"nm\": \"C\", \"p\": {\"a\": 0, \"k\": [0, 0]}, \"s\": {\"a\": 0, \"k\": [9, 9]}}]},\n"
    "  {\"ind\": 2, \"ty\": 4, \"nm\": \"Box\", \"ip\": 0, \"op\": 60, \"st\": 0,\n"
    "   \"ks\": {\"p\": {\"a\": 1, \"k\": [\n"
    "     {\"t\": 0, \"s\": [201, 0]},\n"
    "     {\"t\": 30, \"s\": [202, 0]}]}},\n"
    "   \"shapes\": [{\"ty\": \"rc\", \"nm\": \"R\", \"p\": {\"a\": 0, \"k\": [0, 0]}, \"s\": {\"a\": 0, \"k\": [9, 9]}, \"r\": {\"a\": 0, \"k\": 0}}]}\n"
    " ]\n"
    "}\n";

enum { S_FONT = 0, S_SVG = 1, S_ANIM = 2, S_ANIM_TGS = 3 };

static void s_world_up_as(s_world *w, size_t max_versions, int svg) {
  memset(w, 0, sizeof *w);
  s_w = w;
  snprintf(w->dir, sizeof w->dir, "/tmp/ens-mirror-XXXXXX");
  assert_non_null(mkdtemp(w->dir));
  snprintf(w->store, sizeof w->store, "%s/store", w->dir);
  ens_doc *font;
  if (svg == S_ANIM) {
    assert_int_equal(ens_lottie_read(s_anim, strlen(s_anim), &font), 0);
  } else if (svg == S_ANIM_TGS) { /* the session's file is a .tgs */
    ens_doc *plain;
    unsigned char *gz;
    size_t gn;
    assert_int_equal(ens_lottie_read(s_anim, strlen(s_anim), &plain), 0);
    assert_int_equal(ens_lottie_write_as(plain, ENS_LOTTIE_AS_TGS, &gz, &gn), 0);
    ens_doc_free(plain);
    assert_int_equal(ens_lottie_read(gz, gn, &font), 0);
    ens_free(gz);
  } else if (svg) {
    assert_int_equal(ens_svg_read(s_drawing, strlen(s_drawing), &font), 0);
  } else {
    assert_int_equal(ens_sfd_read_path(s_font_path(), &font), 0);
  }
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
  ens_mirror_opts mo = {svg >= S_ANIM ? ENS_LOTTIE_KIND : svg ? ENS_SVG_KIND : ENS_SFD_KIND, max_versions, NULL,
                        ENS_LOTTIE_AS_JSON};
  assert_int_equal(ens_mirror_new(w->a, &mo, &w->m), 0);
  o.name = "Bram";
  o.on_event = NULL;
  o.user = NULL;
  assert_int_equal(ens_session_new(&o, &w->b), 0);
  s_settle(w);
}

static void s_world_up(s_world *w, size_t max_versions) { s_world_up_as(w, max_versions, 0); }

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
  ens_mirror_opts mo = {ENS_SFD_KIND, 0, NULL, 0};
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
  ens_mirror_opts mo = {ENS_SFD_KIND, 0, NULL, 0};
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

/* The drawing editor's edit of its buffer: attribute name of the element
 * with that id set to value (new bytes, malloc'd). */
static char *s_set_attr(const char *svg, size_t *len, const char *id, const char *name, const char *value) {
  char at[64], key[64];
  snprintf(at, sizeof at, "id=\"%s\"", id);
  snprintf(key, sizeof key, " %s=\"", name);
  const char *e = strstr(svg, at);
  assert_non_null(e);
  const char *start = e;
  while (start > svg && *start != '<') start--;
  const char *end = strchr(e, '>');
  const char *a = strstr(start, key);
  assert_true(a && a < end);
  a += strlen(key);
  const char *q = strchr(a, '"');
  size_t before = (size_t)(a - svg), after = *len - (size_t)(q - svg), n = strlen(value);
  char *out = malloc(before + n + after + 1);
  assert_non_null(out);
  memcpy(out, svg, before);
  memcpy(out + before, value, n);
  memcpy(out + before + n, q, after);
  *len = before + n + after;
  out[*len] = '\0';
  return out;
}

/* text inserted before the first occurrence of marker (new bytes) */
static char *s_insert(const char *text, size_t *len, const char *marker, const char *what) {
  const char *at = strstr(text, marker);
  assert_non_null(at);
  size_t before = (size_t)(at - text), n = strlen(what);
  char *out = malloc(*len + n + 1);
  assert_non_null(out);
  memcpy(out, text, before);
  memcpy(out + before, what, n);
  memcpy(out + before + n, at, *len - before);
  *len += n;
  out[*len] = '\0';
  return out;
}

static const char *s_fill(ens_session *s, const char *id) {
  static char buf[32];
  char addr[40];
  snprintf(addr, sizeof addr, "#%s", id);
  const ens_obj *o = ens_svg_find(ens_session_doc(s), addr);
  if (!o) return NULL;
  ens_value v;
  if (ens_obj_get(o, "fill", &v) || v.type != ENS_STR) return NULL;
  snprintf(buf, sizeof buf, "%.*s", (int)v.u.s.len, v.u.s.ptr);
  return buf;
}

static void s_collab_fill(s_world *w, const char *id, const char *fill) {
  char addr[40];
  snprintf(addr, sizeof addr, "#%s", id);
  const ens_obj *o = ens_svg_find(ens_session_doc(w->b), addr);
  assert_non_null(o);
  ens_txn *t = ens_txn_new("fill", NULL);
  assert_int_equal(ens_txn_set(t, ens_obj_id(o), "fill", ens_str(fill)), 0);
  assert_int_equal(ens_session_commit(w->b, t), 0);
  ens_txn_free(t);
  s_settle(w);
}

static void test_an_element_the_editor_added_is_edited_by_its_next_save(void **state) {
  (void)state;
  s_world w;
  s_world_up_as(&w, 0, 1);
  size_t len;
  char *opened = s_write(&w, &len);
  s_collab_fill(&w, "r1", "#111111");
  size_t l1 = len;
  char *s1 = s_insert(opened, &l1, "  </g>\n  <g id=\"gb\">",
                      "    <rect id=\"mine\" x=\"31\" y=\"1\" width=\"5\" height=\"5\" fill=\"#abcdef\"/>\n");
  s_save(&w, s1, l1, 1, 0, NULL);
  assert_string_equal(s_fill(w.b, "mine"), "#abcdef");
  assert_string_equal(s_fill(w.b, "r1"), "#111111");
  /* Bram changes the new element too; the editor, which never reloads,
   * then changes another of its attributes and an old element */
  s_collab_fill(&w, "r2", "#222222");
  size_t l2 = l1;
  char *s2 = s_set_attr(s1, &l2, "mine", "x", "41");
  size_t l3 = l2;
  char *s3 = s_set_attr(s2, &l3, "r3", "fill", "#333333");
  s_save(&w, s3, l3, 1, 0, NULL);
  const ens_obj *mine = ens_svg_find(ens_session_doc(w.b), "#mine");
  assert_non_null(mine);
  ens_value x;
  assert_int_equal(ens_obj_get(mine, "x", &x), 0);
  assert_int_equal((int)x.u.s.len, 2);
  assert_memory_equal(x.u.s.ptr, "41", 2);
  assert_string_equal(s_fill(w.b, "mine"), "#abcdef");
  assert_string_equal(s_fill(w.b, "r1"), "#111111");
  assert_string_equal(s_fill(w.b, "r2"), "#222222");
  assert_string_equal(s_fill(w.b, "r3"), "#333333");
  /* one element, not two */
  size_t count = 0;
  const ens_obj *ga = ens_svg_find(ens_session_doc(w.b), "#ga");
  for (size_t i = 0; i < ens_obj_child_count(ga); i++) count += strcmp(ens_obj_kind(ens_obj_child(ga, i)), "rect") == 0;
  assert_int_equal(count, 4);
  free(opened);
  free(s1);
  free(s2);
  free(s3);
  s_world_down(&w);
}

static void test_an_edit_of_what_a_collaborator_deleted_is_told_once(void **state) {
  (void)state;
  s_world w;
  s_world_up_as(&w, 0, 1);
  size_t len;
  char *opened = s_write(&w, &len);
  const ens_obj *c1 = ens_svg_find(ens_session_doc(w.b), "#c1");
  ens_txn *t = ens_txn_new("delete", NULL);
  assert_int_equal(ens_txn_delete(t, ens_obj_id(c1)), 0);
  assert_int_equal(ens_session_commit(w.b, t), 0);
  ens_txn_free(t);
  s_settle(&w);
  size_t l1 = len;
  char *s1 = s_set_attr(opened, &l1, "c1", "fill", "#ff0000");
  ens_mirror_result *r;
  assert_int_equal(ens_mirror_save(w.m, s1, l1, &r), 0);
  assert_int_equal(ens_mirror_result_conflict_count(r), 1);
  const ens_mirror_conflict *c = ens_mirror_result_conflict_at(r, 0);
  assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
  assert_true(c->theirs_deleted);
  assert_false(c->ours_kept);
  assert_string_equal(c->who, "Bram");
  ens_mirror_result_free(r);
  s_settle(&w);
  assert_null(ens_svg_find(ens_session_doc(w.b), "#c1"));
  /* the editor still has it and saves again, changing something else:
   * nothing more to tell about c1 */
  size_t l2 = l1;
  char *s2 = s_set_attr(s1, &l2, "r1", "fill", "#010101");
  s_save(&w, s2, l2, 1, 0, NULL);
  assert_string_equal(s_fill(w.b, "r1"), "#010101");
  assert_null(ens_svg_find(ens_session_doc(w.b), "#c1"));
  free(opened);
  free(s1);
  free(s2);
  s_world_down(&w);
}

static void test_a_save_sent_again_after_a_stop_takes_back_nothing(void **state) {
  (void)state;
  s_world w;
  s_world_up(&w, 0);
  size_t len;
  char *written = s_write(&w, &len);
  unsigned char *kept;
  size_t klen;
  assert_int_equal(ens_mirror_state_encode(w.m, ENS_MIRROR_CURRENT, &kept, &klen), 0);
  /* the editor's save reaches the session, then the mirror stops before
   * keeping it; Bram changes the same glyph after it */
  size_t slen = len;
  char *saved = s_set_width(written, &slen, "a", 612);
  s_save(&w, saved, slen, 1, 0, NULL);
  s_collab_width(&w, "a", 613);
  ens_mirror_free(w.m);
  ens_mirror_opts mo = {ENS_SFD_KIND, 0, NULL, 0};
  assert_int_equal(ens_mirror_new(w.a, &mo, &w.m), 0);
  assert_int_equal(ens_mirror_state_add(w.m, kept, klen), 0);
  ens_mirror_result *r;
  assert_int_equal(ens_mirror_recover(w.m, saved, slen, &r), 0);
  assert_int_equal(ens_mirror_result_conflict_count(r), 1);
  assert_false(ens_mirror_result_conflict_at(r, 0)->ours_kept);
  ens_mirror_result_free(r);
  s_settle(&w);
  assert_int_equal(s_width(w.b, "a"), 613); /* Bram's later change stands */
  ens_free(kept);
  free(written);
  free(saved);
  s_world_down(&w);
}

static void test_the_fingerprint_distance_counts_what_differs(void **state) {
  (void)state;
  size_t len;
  char *font = tu_read_file(s_font_path(), &len);
  assert_non_null(font);
  size_t l1 = len, l2;
  char *one = s_set_width(font, &l1, "a", 612);
  l2 = l1;
  char *two = s_set_width(one, &l2, "b", 613);
  ens_doc *d0, *d1, *d2, *snap;
  assert_int_equal(ens_sfd_read(font, len, &d0), 0);
  assert_int_equal(ens_sfd_read(one, l1, &d1), 0);
  assert_int_equal(ens_sfd_read(two, l2, &d2), 0);
  unsigned char *bytes;
  size_t n;
  assert_int_equal(ens_snapshot_encode(d1, &bytes, &n), 0);
  assert_int_equal(ens_snapshot_decode(bytes, n, &snap), 0); /* other ids, positions: the same fingerprint */
  ens_free(bytes);
  ens__fp f0, f1, f2, fs;
  assert_int_equal(ens__fp_make(d0, &f0), 0);
  assert_int_equal(ens__fp_make(d1, &f1), 0);
  assert_int_equal(ens__fp_make(d2, &f2), 0);
  assert_int_equal(ens__fp_make(snap, &fs), 0);
  assert_int_equal(ens__fp_distance(&f1, &fs), 0);
  /* one width changed: one entry gone, one new (the glyph's kept text does not count) */
  assert_int_equal(ens__fp_distance(&f0, &f1), 2);
  assert_int_equal(ens__fp_distance(&f0, &f2), 4);
  assert_int_equal(ens__fp_distance(&f1, &f2), 2);
  assert_true(ens__fp_distance(&f2, &f1) < ens__fp_distance(&f2, &f0));
  ens__fp_free(&f0);
  ens__fp_free(&f1);
  ens__fp_free(&f2);
  ens__fp_free(&fs);
  ens_doc_free(d0);
  ens_doc_free(d1);
  ens_doc_free(d2);
  ens_doc_free(snap);
  free(font);
  free(one);
  free(two);
}

static void test_a_save_deleting_what_a_collaborator_changed_names_them(void **state) {
  (void)state;
  s_world w;
  s_world_up_as(&w, 0, 1);
  size_t len;
  char *opened = s_write(&w, &len);
  s_collab_fill(&w, "r2", "#222222");
  /* the editor, which never saw that, deletes r2 */
  const char *line = strstr(opened, "    <rect id=\"r2\"");
  assert_non_null(line);
  const char *end = strchr(line, '\n') + 1;
  size_t before = (size_t)(line - opened), after = len - (size_t)(end - opened);
  char *saved = malloc(before + after + 1);
  memcpy(saved, opened, before);
  memcpy(saved + before, end, after);
  saved[before + after] = '\0';
  ens_mirror_result *r;
  assert_int_equal(ens_mirror_save(w.m, saved, before + after, &r), 0);
  assert_int_equal(ens_mirror_result_conflict_count(r), 1);
  const ens_mirror_conflict *c = ens_mirror_result_conflict_at(r, 0);
  assert_int_equal(c->kind, ENS_CONFLICT_DELETE);
  assert_false(c->theirs_deleted);
  assert_true(c->ours_kept); /* the save is ordered after: the delete stands */
  assert_string_equal(c->who, "Bram");
  ens_mirror_result_free(r);
  s_settle(&w);
  assert_null(ens_svg_find(ens_session_doc(w.b), "#r2"));
  free(opened);
  free(saved);
  s_world_down(&w);
}

/* --- animations ------------------------------------------------------------------- */

/* text with its one occurrence of from replaced by to (malloc'd). */
static char *s_replace(const char *text, size_t len, const char *from, const char *to, size_t *out_len) {
  const char *at = strstr(text, from);
  assert_non_null(at);
  assert_null(strstr(at + 1, from));
  size_t fl = strlen(from), tl = strlen(to), before = (size_t)(at - text);
  char *out = malloc(len - fl + tl + 1);
  assert_non_null(out);
  memcpy(out, text, before);
  memcpy(out + before, to, tl);
  memcpy(out + before + tl, at + fl, len - before - fl);
  *out_len = len - fl + tl;
  out[*out_len] = '\0';
  return out;
}

/* The session's animation as JSON text (malloc'd, NUL-terminated). */
static char *s_anim_text(ens_session *s) {
  unsigned char *b;
  size_t n;
  assert_int_equal(ens_lottie_write_as(ens_session_doc(s), ENS_LOTTIE_AS_JSON, &b, &n), 0);
  char *t = malloc(n + 1);
  assert_non_null(t);
  memcpy(t, b, n);
  t[n] = '\0';
  ens_free(b);
  return t;
}

/* Bram edits his copy of the animation as text: the difference from the
 * session's document, by identity keys, is his change. */
static void s_collab_anim(s_world *w, const char *from, const char *to) {
  char *text = s_anim_text(w->b);
  size_t n;
  char *edited = s_replace(text, strlen(text), from, to, &n);
  ens_doc *ed;
  assert_int_equal(ens_lottie_read(edited, n, &ed), 0);
  ens_txn *t;
  assert_int_equal(ens_doc_diff(ens_session_doc(w->b), ed, ens_lottie_identity, NULL, &t), 0);
  assert_true(ens_txn_op_count(t) > 0);
  assert_int_equal(ens_session_commit(w->b, t), 0);
  ens_txn_free(t);
  ens_doc_free(ed);
  free(text);
  free(edited);
  s_settle(w);
}

static int s_anim_has(ens_session *s, const char *what) {
  char *t = s_anim_text(s);
  int has = strstr(t, what) != NULL;
  free(t);
  return has;
}

static void test_an_animation_save_keeps_a_collaborators_keyframe(void **state) {
  (void)state;
  s_world w;
  s_world_up_as(&w, 0, S_ANIM);
  size_t len;
  char *opened = s_write(&w, &len);
  assert_int_equal(len, strlen(s_anim));
  assert_memory_equal(opened, s_anim, len); /* the file gets the session's bytes */
  s_collab_anim(&w, "[202, 0]", "[222, 5]"); /* Bram, layer Box */
  free(s_write(&w, &len)); /* written; the editor does not reload */
  size_t slen;
  char *saved = s_replace(opened, strlen(opened), "[101, 0]", "[111, 7]", &slen); /* layer Ball */
  s_save(&w, saved, slen, 1, 0, NULL);
  assert_true(s_anim_has(w.b, "\"s\": [111, 7]"));
  assert_true(s_anim_has(w.b, "\"s\":[222,5]") || s_anim_has(w.b, "\"s\": [222, 5]"));
  assert_true(s_anim_has(w.a, "[111, 7]"));
  /* the save's own text stands for what it did not change */
  assert_true(s_anim_has(w.b, "\"nm\": \"Ball\", \"ip\": 0"));
  free(opened);
  free(saved);
  s_world_down(&w);
}

static void test_an_animation_save_replacing_a_keyframe_names_whose(void **state) {
  (void)state;
  s_world w;
  s_world_up_as(&w, 0, S_ANIM);
  size_t len;
  char *opened = s_write(&w, &len);
  s_collab_anim(&w, "[102, 0]", "[150, 1]");
  size_t slen;
  char *saved = s_replace(opened, len, "[102, 0]", "[160, 2]", &slen);
  ens_mirror_result *r;
  s_save(&w, saved, slen, 1, 1, &r);
  const ens_mirror_conflict *c = ens_mirror_result_conflict_at(r, 0);
  assert_int_equal(c->kind, ENS_CONFLICT_SET);
  assert_string_equal(c->key, "s");
  assert_non_null(strstr(c->path, "layer ind=1"));
  assert_non_null(strstr(c->path, "keyframe t=30"));
  assert_int_equal(c->theirs.type, ENS_BYTES); /* an array: its canonical JSON */
  assert_int_equal(c->theirs.u.s.len, strlen("[150,1]"));
  assert_memory_equal(c->theirs.u.s.ptr, "[150,1]", c->theirs.u.s.len);
  assert_memory_equal(c->ours.u.s.ptr, "[160,2]", c->ours.u.s.len);
  assert_memory_equal(c->base.u.s.ptr, "[102,0]", c->base.u.s.len);
  assert_true(c->ours_kept);
  assert_string_equal(c->who, "Bram");
  ens_mirror_result_free(r);
  assert_true(s_anim_has(w.b, "[160, 2]"));
  free(opened);
  free(saved);
  s_world_down(&w);
}

/* A .tgs file: written gzip, its saves read, and the container never a
 * change; a .json mirror of a session served from a .tgs sends none
 * either; a dotLottie archive is refused. */
static void test_an_animation_in_a_tgs_file(void **state) {
  (void)state;
  for (int served_tgs = 0; served_tgs < 2; served_tgs++) {
    s_world w;
    s_world_up_as(&w, 0, served_tgs ? S_ANIM_TGS : S_ANIM);
    ens_mirror_free(w.m);
    w.m = NULL;
    ens_mirror_opts mo = {ENS_LOTTIE_KIND, 0, NULL, ENS_LOTTIE_AS_DOTLOTTIE};
    assert_int_equal(ens_mirror_new(w.a, &mo, &w.m), ENS_EINVAL);
    assert_non_null(strstr(ens_error_last(), "dotLottie"));
    mo.container = served_tgs ? ENS_LOTTIE_AS_JSON : ENS_LOTTIE_AS_TGS;
    assert_int_equal(ens_mirror_new(w.a, &mo, &w.m), 0);
    size_t len;
    char *opened = s_write(&w, &len);
    char *text = opened;
    size_t tlen = len;
    unsigned char *gz = NULL;
    if (!served_tgs) {
      assert_true(len > 2 && (unsigned char)opened[0] == 0x1f && (unsigned char)opened[1] == 0x8b);
      ens_doc *d;
      assert_int_equal(ens_lottie_read(opened, len, &d), 0);
      unsigned char *b;
      assert_int_equal(ens_lottie_write_as(d, ENS_LOTTIE_AS_JSON, &b, &tlen), 0);
      ens_doc_free(d);
      text = (char *)b;
    } else {
      assert_memory_equal(opened, s_anim, len);
    }
    assert_int_equal(tlen, strlen(s_anim));
    assert_memory_equal(text, s_anim, tlen);
    size_t slen;
    char *saved = s_replace(text, tlen, "[201, 0]", "[203, 4]", &slen);
    const char *bytes = saved;
    size_t blen = slen;
    if (!served_tgs) { /* the editor saves gzip again */
      ens_doc *d;
      assert_int_equal(ens_lottie_read(saved, slen, &d), 0);
      assert_int_equal(ens_lottie_write_as(d, ENS_LOTTIE_AS_TGS, &gz, &blen), 0);
      ens_doc_free(d);
      bytes = (const char *)gz;
    }
    ens_mirror_result *r;
    assert_int_equal(ens_mirror_save(w.m, bytes, blen, &r), 0);
    assert_int_equal(ens_mirror_result_ops(r), 2); /* the keyframe's value and its kept text */
    assert_int_equal(ens_mirror_result_conflict_count(r), 0);
    ens_mirror_result_free(r);
    s_settle(&w);
    assert_true(s_anim_has(w.b, "[203, 4]"));
    /* the session's document still writes its own container */
    unsigned char *own;
    size_t on;
    assert_int_equal(ens_lottie_write(ens_session_doc(w.b), &own, &on), 0);
    assert_int_equal(on > 2 && own[0] == 0x1f && own[1] == 0x8b, served_tgs);
    ens_free(own);
    assert_int_equal(ens_mirror_outdated(w.m), 0);
    if (text != opened) ens_free(text);
    ens_free(gz);
    free(opened);
    free(saved);
    s_world_down(&w);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_the_fingerprint_distance_counts_what_differs),
      cmocka_unit_test(test_a_stale_save_keeps_the_collaborators_changes),
      cmocka_unit_test(test_a_save_replacing_a_collaborators_value_names_them),
      cmocka_unit_test(test_an_editor_that_reloads_loses_nothing),
      cmocka_unit_test(test_our_own_write_read_back_sends_nothing),
      cmocka_unit_test(test_a_broken_save_changes_nothing),
      cmocka_unit_test(test_a_file_of_other_content_needs_a_known_version),
      cmocka_unit_test(test_kept_state_merges_edits_made_while_stopped),
      cmocka_unit_test(test_versions_stay_within_their_bound),
      cmocka_unit_test(test_an_element_the_editor_added_is_edited_by_its_next_save),
      cmocka_unit_test(test_an_edit_of_what_a_collaborator_deleted_is_told_once),
      cmocka_unit_test(test_a_save_sent_again_after_a_stop_takes_back_nothing),
      cmocka_unit_test(test_a_save_deleting_what_a_collaborator_changed_names_them),
      cmocka_unit_test(test_an_animation_save_keeps_a_collaborators_keyframe),
      cmocka_unit_test(test_an_animation_save_replacing_a_keyframe_names_whose),
      cmocka_unit_test(test_an_animation_in_a_tgs_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
