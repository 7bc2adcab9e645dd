/* The Lottie editing commands on small animations: each builds one
 * transaction whose output is the input with only the edited members'
 * text changed (compared as whole files), whose undo gives back the same
 * bytes, whose frames rlottie draws where the edit says, and which
 * refuses bad arguments with a clear error and no transaction. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ensemble.h"
#include "testutil.h"

/* A 20 x 20 blue square over a red solid, its position keyframed
 * linearly from (20, 50) at frame 0 to (80, 50) at frame 10; a null layer
 * (ind 3) holds the square's parent-to-be. */
static const char s_anim[] =
    "{\"v\":\"5.7.0\",\"nm\":\"moving square\",\"fr\":10,\"ip\":0,\"op\":21,\"w\":100,\"h\":100,\"layers\":[\n"
    "{\"ty\":4,\"ind\":2,\"nm\":\"square\",\"ip\":0,\"op\":21,\"st\":0,\"ks\":{\n"
    " \"a\":{\"a\":0,\"k\":[0,0]},\n"
    " \"p\":{\"a\":1,\"k\":[\n"
    "  {\"t\":0,\"s\":[20,50],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},\n"
    "  {\"t\":10,\"s\":[80,50]}]},\n"
    " \"s\":{\"a\":0,\"k\":[100,100]},\"r\":{\"a\":0,\"k\":0},\"o\":{\"a\":0,\"k\":100}},\n"
    " \"shapes\":[{\"ty\":\"gr\",\"nm\":\"box group\",\"it\":[\n"
    "  {\"ty\":\"rc\",\"nm\":\"box\",\"p\":{\"a\":0,\"k\":[0,0]},\"s\":{\"a\":0,\"k\":[20,20]},\"r\":{\"a\":0,\"k\":0}},\n"
    "  {\"ty\":\"fl\",\"nm\":\"blue\",\"c\":{\"a\":0,\"k\":[0,0,1,1]},\"o\":{\"a\":0,\"k\":100},\"r\":1},\n"
    "  {\"ty\":\"tr\",\"nm\":\"Transform\",\"p\":{\"a\":0,\"k\":[0,0]},\"a\":{\"a\":0,\"k\":[0,0]},\"s\":{\"a\":0,\"k\":[100,100]},"
    "\"r\":{\"a\":0,\"k\":0},\"o\":{\"a\":0,\"k\":100}}]}]},\n"
    "{\"ty\":3,\"ind\":3,\"nm\":\"mover\",\"ip\":0,\"op\":21,\"st\":0,\"ks\":{\"a\":{\"a\":0,\"k\":[0,0]},"
    "\"p\":{\"a\":0,\"k\":[0,30]},\"s\":{\"a\":0,\"k\":[100,100]},\"r\":{\"a\":0,\"k\":0},\"o\":{\"a\":0,\"k\":100}}},\n"
    "{\"ty\":1,\"ind\":1,\"nm\":\"background\",\"ip\":0,\"op\":21,\"st\":0,\"sc\":\"#ff0000\",\"sw\":100,"
    "\"sh\":100,\"ks\":{\"a\":{\"a\":0,\"k\":[0,0]},\"p\":{\"a\":0,\"k\":[0,0]},\"s\":{\"a\":0,\"k\":[100,100]},"
    "\"r\":{\"a\":0,\"k\":0},\"o\":{\"a\":0,\"k\":100}}}]}\n";

/* The same keyframes as older exporters write them: each with the next
 * one's start as its end value "e", the last with its time alone. */
static const char s_old_style[] =
    "{\"fr\":10,\"ip\":0,\"op\":21,\"w\":100,\"h\":100,\"layers\":[{\"ty\":4,\"ind\":1,\"nm\":\"L\",\"ip\":0,\"op\":21,\"st\":0,"
    "\"ks\":{\"o\":{\"a\":1,\"k\":[{\"t\":0,\"s\":[100],\"e\":[0],\"i\":{\"x\":[1],\"y\":[1]},\"o\":{\"x\":[0],\"y\":[0]}},"
    "{\"t\":10,\"s\":[0],\"e\":[50],\"i\":{\"x\":[1],\"y\":[1]},\"o\":{\"x\":[0],\"y\":[0]}},{\"t\":20}]}},\"shapes\":[]}]}";

#define S_RED 0xffff0000u
#define S_BLUE 0xff0000ffu

static ens_doc *s_read(const char *text) {
  ens_doc *doc = NULL;
  int rc = ens_lottie_read(text, strlen(text), &doc);
  if (rc) fprintf(stderr, "read: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  return doc;
}

static char *s_write(const ens_doc *doc) {
  unsigned char *out;
  size_t n;
  int rc = ens_lottie_write(doc, &out, &n);
  if (rc) fprintf(stderr, "write: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  return (char *)out;
}

/* text with each (from, to) pair replaced once, in order. */
static char *s_replaced(const char *text, const char *const *pairs) {
  char *out = tu_replaced(text, pairs);
  assert_non_null(out);
  return out;
}

/* Builds with build, commits it as one undo step, checks the output is
 * expect (when not NULL), that one undo gives the input bytes back and
 * redo the output; returns the output (caller frees). */
typedef int (*s_build_fn)(ens_doc *doc, ens_txn **out, const void *arg);

static char *s_commit(const char *input, s_build_fn build, const void *arg, const char *expect) {
  ens_doc *doc = s_read(input);
  ens_undo *undo = ens_undo_new(doc, 16);
  assert_non_null(undo);
  ens_txn *txn = NULL;
  int rc = build(doc, &txn, arg);
  if (rc) fprintf(stderr, "build: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  rc = ens_undo_commit(undo, txn);
  if (rc) fprintf(stderr, "commit: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  ens_txn_free(txn);
  assert_int_equal(ens_undo_undo_count(undo), 1);
  char *out = s_write(doc);
  if (expect) assert_string_equal(out, expect);
  assert_int_equal(ens_undo_undo(undo, NULL), 0);
  char *back = s_write(doc);
  assert_string_equal(back, input);
  free(back);
  assert_int_equal(ens_undo_redo(undo, NULL), 0);
  back = s_write(doc);
  assert_string_equal(back, out);
  free(back);
  ens_undo_free(undo);
  ens_doc_free(doc);
  return out;
}

static void s_expect(const char *input, s_build_fn build, const void *arg, const char *const *pairs) {
  char *want = s_replaced(input, pairs);
  free(s_commit(input, build, arg, want));
  free(want);
}

static uint32_t s_px(const ens_image *img, int x, int y) {
  return ((const uint32_t *)(img->pixels + (size_t)y * img->stride))[x];
}

static ens_image s_frame(const char *json, long frame) {
  ens_render_size size = {0, 0, 0};
  ens_image img;
  int rc = ens_render_lottie_frame(json, strlen(json), frame, size, &img);
  if (rc) fprintf(stderr, "render: %s\n", ens_error_last());
  assert_int_equal(rc, 0);
  return img;
}

/* --- builders ------------------------------------------------------------------------------ */

typedef struct {
  const char *addr, *value, *name;
  double t, t2;
  ens_lottie_easing easing;
  double rgba[4];
} s_arg;

static int b_set_value(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_set_value(d, x->addr, x->t, x->value, o);
}
static int b_add(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_add_keyframe(d, x->addr, x->t, x->value, o);
}
static int b_move(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_move_keyframe(d, x->addr, x->t, x->t2, o);
}
static int b_delete(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_delete_keyframe(d, x->addr, x->t, o);
}
static int b_easing(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_set_easing(d, x->addr, x->t, &x->easing, o);
}
static int b_shift(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_shift_layer(d, x->addr, x->t, o);
}
static int b_stretch(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_stretch_layer(d, x->addr, x->t, o);
}
static int b_range(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_shift_range(d, x->t, x->t2, o);
}
static int b_in_out(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_set_in_out(d, x->addr, x->t, x->t2, o);
}
static int b_reparent(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_reparent(d, x->addr, x->name, o);
}
static int b_reorder(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_reorder(d, x->addr, (size_t)x->t, o);
}
static int b_rename(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_rename(d, x->addr, x->name, o);
}
static int b_colour(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_set_color(d, x->addr, x->rgba, o);
}
static int b_duplicate(ens_doc *d, ens_txn **o, const void *a) {
  const s_arg *x = a;
  return ens_lottie_duplicate_layer(d, x->addr, o);
}

/* --- addresses ------------------------------------------------------------------------------ */

static void test_find(void **state) {
  (void)state;
  ens_doc *doc = s_read(s_anim);
  const ens_obj *o = ens_lottie_find(doc, "square");
  assert_non_null(o);
  assert_string_equal(ens_obj_kind(o), ENS_LOTTIE_LAYER);
  assert_ptr_equal(ens_lottie_find(doc, "2"), o);
  assert_ptr_equal(ens_lottie_find(doc, "[0]"), o);
  o = ens_lottie_find(doc, "square/box group/blue.c");
  assert_non_null(o);
  assert_string_equal(ens_obj_kind(o), ENS_LOTTIE_PROPERTY);
  assert_ptr_equal(ens_lottie_find(doc, "[0]/[0]/[1].colour"), o);
  /* a group's transform members through its "tr" item; a layer's through ks */
  assert_non_null(ens_lottie_find(doc, "square/box group.p"));
  assert_ptr_equal(ens_lottie_find(doc, "square.position"), ens_lottie_find(doc, "square.p"));
  assert_null(ens_lottie_find(doc, "nothing"));
  assert_non_null(strstr(ens_error_last(), "no layer \"nothing\""));
  assert_null(ens_lottie_find(doc, "square/box group/red"));
  assert_non_null(strstr(ens_error_last(), "no shape \"red\""));
  assert_null(ens_lottie_find(doc, "square.zz"));
  assert_non_null(strstr(ens_error_last(), "no property \"zz\""));
  assert_null(ens_lottie_find(doc, "[7]"));
  ens_doc_free(doc);
}

/* --- keyframes ------------------------------------------------------------------------------ */

static void test_set_value_on_a_keyframe(void **state) {
  (void)state;
  s_arg a = {.addr = "square.p", .t = 10, .value = "[80,20]"};
  s_expect(s_anim, b_set_value, &a, (const char *const[]){"{\"t\":10,\"s\":[80,50]}", "{\"t\":10,\"s\":[80,20]}", NULL});
  /* the square is where the new value puts it at frame 10 */
  char *out = s_replaced(s_anim, (const char *const[]){"[80,50]}", "[80,20]}", NULL});
  ens_image before = s_frame(s_anim, 10), after = s_frame(out, 10), start0 = s_frame(s_anim, 0), start1 = s_frame(out, 0);
  assert_int_equal(s_px(&before, 85, 55), S_BLUE);
  assert_int_equal(s_px(&after, 85, 55), S_RED);
  assert_int_equal(s_px(&after, 85, 25), S_BLUE);
  assert_int_equal(ens_image_diff_count(&start0, &start1), 0); /* frame 0 is as it was */
  ens_image_free(&before);
  ens_image_free(&after);
  ens_image_free(&start0);
  ens_image_free(&start1);
  free(out);
}

static void test_set_value_makes_a_keyframe(void **state) {
  (void)state;
  /* between two keyframes: a copy of the one before, its time and value */
  s_arg a = {.addr = "square.p", .t = 5, .value = "[50,90]"};
  s_expect(s_anim, b_set_value, &a,
           (const char *const[]){"\n  {\"t\":10,",
                                 "\n  {\"t\":5,\"s\":[50,90],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},\n  {\"t\":10,",
                                 NULL});
  /* after the last: the last gets an easing to it */
  s_arg b = {.addr = "square.p", .t = 20, .value = "[80,80]"};
  s_expect(s_anim, b_set_value, &b,
           (const char *const[]){"{\"t\":10,\"s\":[80,50]}]",
                                 "{\"t\":10,\"s\":[80,50],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},\n  "
                                 "{\"t\":20,\"s\":[80,80]}]",
                                 NULL});
  char *out = s_replaced(s_anim, (const char *const[]){"{\"t\":10,\"s\":[80,50]}]", "{\"t\":10,\"s\":[80,50],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},\n  {\"t\":20,\"s\":[80,80]}]", NULL});
  ens_image f = s_frame(out, 20);
  assert_int_equal(s_px(&f, 85, 85), S_BLUE);
  assert_int_equal(s_px(&f, 85, 55), S_RED);
  ens_image_free(&f);
  free(out);
}

static void test_set_value_on_a_static_property(void **state) {
  (void)state;
  /* at the in point: the value itself, a number staying a number */
  s_arg a = {.addr = "square.o", .t = 0, .value = "[40]"};
  s_expect(s_anim, b_set_value, &a, (const char *const[]){"\"o\":{\"a\":0,\"k\":100}}", "\"o\":{\"a\":0,\"k\":40}}", NULL});
  /* later: animated from the old value at the in point to the new one */
  s_arg b = {.addr = "square.o", .t = 10, .value = "0"};
  const char *want = "\"o\":{\"a\":1,\"k\":[{\"t\":0,\"s\":[100],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},"
                     "{\"t\":10,\"s\":[0]}]}}";
  s_expect(s_anim, b_set_value, &b, (const char *const[]){"\"o\":{\"a\":0,\"k\":100}}", want, NULL});
  char *out = s_replaced(s_anim, (const char *const[]){"\"o\":{\"a\":0,\"k\":100}}", want, NULL});
  ens_image f0 = s_frame(out, 0), f10 = s_frame(out, 10), g0 = s_frame(s_anim, 0);
  assert_int_equal(ens_image_diff_count(&f0, &g0), 0);
  assert_int_equal(s_px(&f10, 85, 55), S_RED); /* the square faded out */
  ens_image_free(&f0);
  ens_image_free(&f10);
  ens_image_free(&g0);
  free(out);
}

/* A solid layer whose transform says nothing: players take opacity 100. */
static const char s_bare[] =
    "{\"fr\":10,\"ip\":0,\"op\":21,\"w\":100,\"h\":100,\"layers\":[{\"ty\":1,\"ind\":1,\"nm\":\"red\",\"ip\":0,"
    "\"op\":21,\"st\":0,\"sc\":\"#ff0000\",\"sw\":100,\"sh\":100,\"ks\":{}}]}";

static void test_set_value_on_a_missing_transform_member(void **state) {
  (void)state;
  s_arg a = {.addr = "red.opacity", .t = 0, .value = "20"};
  s_expect(s_bare, b_set_value, &a, (const char *const[]){"\"ks\":{}", "\"ks\":{\"o\":{\"a\":0,\"k\":20}}", NULL});
  s_arg b = {.addr = "red.o", .t = 10, .value = "0"};
  const char *want = "\"ks\":{\"o\":{\"a\":1,\"k\":[{\"t\":0,\"s\":[100],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],"
                     "\"y\":[1]}},{\"t\":10,\"s\":[0]}]}}";
  s_expect(s_bare, b_set_value, &b, (const char *const[]){"\"ks\":{}", want, NULL});
  char *out = s_replaced(s_bare, (const char *const[]){"\"ks\":{}", want, NULL});
  ens_image f0 = s_frame(out, 0), f10 = s_frame(out, 10);
  assert_int_equal(s_px(&f0, 50, 50), S_RED);
  assert_int_equal(s_px(&f10, 50, 50) >> 24, 0); /* faded out: transparent */
  ens_image_free(&f0);
  ens_image_free(&f10);
  free(out);
  /* only transform members, of the right size, on a layer with a transform */
  ens_doc *doc = s_read(s_bare);
  ens_txn *txn = NULL;
  a.value = "[1,2]";
  assert_int_equal(b_set_value(doc, &txn, &a), ENS_EINVAL);
  a.addr = "red.zz";
  assert_int_equal(b_set_value(doc, &txn, &a), ENS_ENOTFOUND);
  ens_doc_free(doc);
}

static void test_add_move_delete(void **state) {
  (void)state;
  s_arg add = {.addr = "square.p", .t = 10, .value = "[1,2]"};
  ens_doc *doc = s_read(s_anim);
  ens_txn *txn = (ens_txn *)1;
  assert_int_equal(b_add(doc, &txn, &add), ENS_EEXISTS);
  assert_null(txn);
  assert_non_null(strstr(ens_error_last(), "add-keyframe"));
  add.addr = "square.o";
  assert_int_equal(b_add(doc, &txn, &add), ENS_EINVAL); /* not animated */
  add.addr = "square.p";
  add.value = "[1,2,3]";
  add.t = 4;
  assert_int_equal(b_add(doc, &txn, &add), ENS_EINVAL); /* three numbers for two */
  add.value = "[1,";
  assert_int_equal(b_add(doc, &txn, &add), ENS_EDECODE);
  add.value = "[1,2]";
  add.t = NAN;
  assert_int_equal(b_add(doc, &txn, &add), ENS_EINVAL);
  ens_doc_free(doc);

  /* moving the last before the first: the order follows the times */
  s_arg mv = {.addr = "square.p", .t = 10, .t2 = -5};
  char *out = s_commit(s_anim, b_move, &mv, NULL);
  const char *a = strstr(out, "\"t\":-5"), *b = strstr(out, "\"t\":0");
  assert_non_null(a);
  assert_non_null(b);
  assert_true(a < b);
  free(out);
  mv.t2 = 0;
  doc = s_read(s_anim);
  assert_int_equal(b_move(doc, &txn, &mv), ENS_EEXISTS);
  mv.t = 3;
  assert_int_equal(b_move(doc, &txn, &mv), ENS_ENOTFOUND);
  ens_doc_free(doc);

  /* one keyframe left: the property is static with its value */
  s_arg del = {.addr = "square.p", .t = 0};
  out = s_commit(s_anim, b_delete, &del, NULL);
  assert_non_null(strstr(out, "\"p\":{\"a\":0,\"k\":[80,50]},"));
  ens_image f = s_frame(out, 0);
  assert_int_equal(s_px(&f, 85, 55), S_BLUE);
  ens_image_free(&f);
  free(out);
  /* three keyframes, the last deleted: the one before loses its easing */
  s_arg add3 = {.addr = "square.p", .t = 20, .value = "[80,80]"};
  char *three = s_commit(s_anim, b_set_value, &add3, NULL);
  del.t = 20;
  out = s_commit(three, b_delete, &del, NULL);
  assert_non_null(strstr(out, "\n  {\"t\":10,\"s\":[80,50]}]}"));
  free(out);
  free(three);
  /* a property with one keyframe keeps it */
  char *one = s_replaced(s_anim, (const char *const[]){"\n  {\"t\":0,\"s\":[20,50],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},", "", NULL});
  doc = s_read(one);
  del.t = 10;
  assert_int_equal(b_delete(doc, &txn, &del), ENS_EINVAL);
  ens_doc_free(doc);
  free(one);
}

static void test_end_values_follow(void **state) {
  (void)state;
  /* setting the middle keyframe's value rewrites the end value before it */
  s_arg a = {.addr = "L.o", .t = 10, .value = "[30]"};
  s_expect(s_old_style, b_set_value, &a,
           (const char *const[]){"\"e\":[0]", "\"e\":[30]", "\"t\":10,\"s\":[0]", "\"t\":10,\"s\":[30]", NULL});
  /* deleting it: the first now ends at the last's value, which it had
   * only as an end value: the last keyframe has none of its own */
  s_arg d = {.addr = "L.o", .t = 5, .value = "[70]"};
  char *out = s_commit(s_old_style, b_set_value, &d, NULL);
  assert_non_null(strstr(out, "{\"t\":0,\"s\":[100],\"e\":[70]"));
  assert_non_null(strstr(out, "{\"t\":5,\"s\":[70],\"e\":[0]"));
  free(out);
  s_arg del = {.addr = "L.o", .t = 10};
  out = s_commit(s_old_style, b_delete, &del, NULL);
  assert_non_null(strstr(out, "{\"t\":0,\"s\":[100],\"e\":[0]")); /* the last has no start value: e stays */
  assert_null(strstr(out, "\"t\":10"));
  free(out);
}

static void test_easing(void **state) {
  (void)state;
  s_arg a = {.addr = "square.p", .t = 0, .easing = {0.42, 0, 0.58, 1, 0}};
  s_expect(s_anim, b_easing, &a,
           (const char *const[]){"\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}",
                                 "\"o\":{\"x\":[0.42],\"y\":[0]},\"i\":{\"x\":[0.58],\"y\":[1]}", NULL});
  /* an ease in and out is slower than linear at the start: at frame 2 the
   * square has moved less */
  char *out = s_replaced(s_anim, (const char *const[]){"\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}",
                                                       "\"o\":{\"x\":[0.42],\"y\":[0]},\"i\":{\"x\":[0.58],\"y\":[1]}", NULL});
  ens_image lin = s_frame(s_anim, 2), eased = s_frame(out, 2);
  /* linear: x = 20 + 12 = 32, the square spans 22..42; eased: well short */
  assert_int_equal(s_px(&lin, 40, 50), S_BLUE);
  assert_int_equal(s_px(&eased, 40, 50), S_RED);
  ens_image_free(&lin);
  ens_image_free(&eased);
  free(out);
  s_arg h = {.addr = "square.p", .t = 0, .easing = {0, 0, 0, 0, 1}};
  out = s_commit(s_anim, b_easing, &h, NULL);
  assert_non_null(strstr(out, "\"t\":0,\"s\":[20,50],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]},\"h\":1}"));
  ens_image held = s_frame(out, 9);
  assert_int_equal(s_px(&held, 25, 55), S_BLUE); /* still at the start at frame 9 */
  ens_image_free(&held);
  free(out);
  ens_doc *doc = s_read(s_anim);
  ens_txn *txn = NULL;
  a.t = 10;
  assert_int_equal(b_easing(doc, &txn, &a), ENS_EINVAL); /* the last: no next keyframe */
  a.t = 0;
  a.easing.out_x = 1.5;
  assert_int_equal(b_easing(doc, &txn, &a), ENS_EINVAL);
  ens_doc_free(doc);
}

/* --- layers ------------------------------------------------------------------------------------ */

static void test_retime(void **state) {
  (void)state;
  s_arg sh = {.addr = "square", .t = 5};
  /* a shape layer's keyframes move with it (rlottie reads st on
   * precompositions only) */
  s_expect(s_anim, b_shift, &sh,
           (const char *const[]){"\"nm\":\"square\",\"ip\":0,\"op\":21,\"st\":0", "\"nm\":\"square\",\"ip\":5,\"op\":26,\"st\":0",
                                 "{\"t\":0,", "{\"t\":5,", "{\"t\":10,", "{\"t\":15,", NULL});
  char *shifted = s_replaced(s_anim, (const char *const[]){"\"nm\":\"square\",\"ip\":0,\"op\":21,\"st\":0",
                                                           "\"nm\":\"square\",\"ip\":5,\"op\":26,\"st\":0",
                                                           "{\"t\":0,", "{\"t\":5,", "{\"t\":10,", "{\"t\":15,", NULL});
  ens_image s0 = s_frame(shifted, 2), s7 = s_frame(shifted, 7), o2 = s_frame(s_anim, 2);
  assert_int_equal(s_px(&s0, 25, 55), S_RED); /* not yet in */
  assert_int_equal(ens_image_diff_count(&s7, &o2), 0); /* frame 7 is the old frame 2 */
  ens_image_free(&s0);
  ens_image_free(&s7);
  ens_image_free(&o2);
  free(shifted);
  s_arg st = {.addr = "square", .t = 2};
  s_expect(s_anim, b_stretch, &st,
           (const char *const[]){"\"nm\":\"square\",\"ip\":0,\"op\":21,", "\"nm\":\"square\",\"ip\":0,\"op\":42,", "{\"t\":10,",
                                 "{\"t\":20,", NULL});
  /* the stretched square reaches x = 50 at frame 10 instead of 5 */
  char *out = s_replaced(s_anim, (const char *const[]){"{\"t\":10,", "{\"t\":20,", NULL});
  ens_image f = s_frame(out, 10), g = s_frame(s_anim, 5);
  assert_int_equal(ens_image_diff_count(&f, &g), 0);
  ens_image_free(&f);
  ens_image_free(&g);
  free(out);
  s_arg r = {.t = 5, .t2 = 3};
  s_expect(s_anim, b_range, &r,
           (const char *const[]){"\"op\":21", "\"op\":24", "\"nm\":\"square\",\"ip\":0,\"op\":21", "\"nm\":\"square\",\"ip\":0,\"op\":24",
                                 "{\"t\":10,", "{\"t\":13,", "\"nm\":\"mover\",\"ip\":0,\"op\":21",
                                 "\"nm\":\"mover\",\"ip\":0,\"op\":24", "\"nm\":\"background\",\"ip\":0,\"op\":21",
                                 "\"nm\":\"background\",\"ip\":0,\"op\":24", NULL});
  ens_doc *doc = s_read(s_anim);
  ens_txn *txn = NULL;
  r.t2 = -20; /* the keyframe at 10 would pass the one at 0 */
  assert_int_equal(b_range(doc, &txn, &r), ENS_EINVAL);
  st.t = 0;
  assert_int_equal(b_stretch(doc, &txn, &st), ENS_EINVAL);
  s_arg io = {.addr = "square", .t = 5, .t2 = 5};
  assert_int_equal(b_in_out(doc, &txn, &io), ENS_EINVAL);
  ens_doc_free(doc);
  io.t2 = 8;
  s_expect(s_anim, b_in_out, &io,
           (const char *const[]){"\"nm\":\"square\",\"ip\":0,\"op\":21", "\"nm\":\"square\",\"ip\":5,\"op\":8", NULL});
}

static void test_parent_order_name(void **state) {
  (void)state;
  s_arg p = {.addr = "square", .name = "mover"};
  s_expect(s_anim, b_reparent, &p, (const char *const[]){"\"k\":100}}]}]}", "\"k\":100}}]}],\n \"parent\":3}", NULL});
  /* parented, the square follows the mover 30 down */
  char *out = s_replaced(s_anim, (const char *const[]){"\"k\":100}}]}]}", "\"k\":100}}]}],\n \"parent\":3}", NULL});
  ens_image f = s_frame(out, 0);
  assert_int_equal(s_px(&f, 25, 55), S_RED);
  assert_int_equal(s_px(&f, 25, 85), S_BLUE);
  ens_image_free(&f);
  ens_doc *doc = s_read(out);
  ens_txn *txn = NULL;
  s_arg loop = {.addr = "mover", .name = "square"};
  assert_int_equal(b_reparent(doc, &txn, &loop), ENS_EINVAL);
  assert_non_null(strstr(ens_error_last(), "loop"));
  ens_doc_free(doc);
  s_arg none = {.addr = "square", .name = NULL};
  free(s_commit(out, b_reparent, &none, s_anim));
  free(out);

  /* the square below the background: only red is left */
  s_arg r = {.addr = "square", .t = 2};
  out = s_commit(s_anim, b_reorder, &r, NULL);
  const char *bg = strstr(out, "\"nm\":\"background\""), *sq = strstr(out, "\"nm\":\"square\"");
  assert_true(bg && sq && bg < sq);
  f = s_frame(out, 0);
  assert_int_equal(s_px(&f, 25, 55), S_RED);
  ens_image_free(&f);
  free(out);

  s_arg n = {.addr = "square/box group/blue", .name = "navy \"blue\""};
  s_expect(s_anim, b_rename, &n, (const char *const[]){"\"nm\":\"blue\"", "\"nm\":\"navy \\\"blue\\\"\"", NULL});
}

static void test_colour_and_duplicate(void **state) {
  (void)state;
  s_arg c = {.addr = "square/box group/blue", .rgba = {0, 1, 0, 1}};
  s_expect(s_anim, b_colour, &c, (const char *const[]){"\"k\":[0,0,1,1]", "\"k\":[0,1,0,1]", NULL});
  s_arg bg = {.addr = "background", .rgba = {0, 0, 0, 1}};
  s_expect(s_anim, b_colour, &bg, (const char *const[]){"\"sc\":\"#ff0000\"", "\"sc\":\"#000000\"", NULL});
  ens_doc *doc = s_read(s_anim);
  ens_txn *txn = NULL;
  s_arg bad = {.addr = "mover", .rgba = {0, 0, 0, 1}};
  assert_int_equal(b_colour(doc, &txn, &bad), ENS_EINVAL); /* a null layer has no colour */
  bad.addr = "square/box group/box";
  assert_int_equal(b_colour(doc, &txn, &bad), ENS_EINVAL);
  ens_doc_free(doc);

  s_arg d = {.addr = "square"};
  char *out = s_commit(s_anim, b_duplicate, &d, NULL);
  const char *copy = strstr(out, "\"ind\":4,\"nm\":\"square copy\"");
  assert_non_null(copy);
  assert_true(copy < strstr(out, "\"nm\":\"square\""));
  ens_doc *dd = s_read(out);
  assert_non_null(ens_lottie_find(dd, "square copy/box group/blue.c"));
  ens_doc_free(dd);
  /* the copy's square moves with the original: the frames are the same */
  ens_image f = s_frame(out, 5), g = s_frame(s_anim, 5);
  assert_int_equal(ens_image_diff_count(&f, &g), 0);
  ens_image_free(&f);
  ens_image_free(&g);
  free(out);
}

static void test_not_an_animation(void **state) {
  (void)state;
  ens_doc *doc = ens_doc_new("svg", 0);
  ens_txn *txn = NULL;
  assert_int_equal(ens_lottie_rename(doc, "a", "b", &txn), ENS_EINVAL);
  assert_null(ens_lottie_find(doc, "a"));
  ens_doc_free(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_find),
      cmocka_unit_test(test_set_value_on_a_keyframe),
      cmocka_unit_test(test_set_value_makes_a_keyframe),
      cmocka_unit_test(test_set_value_on_a_static_property),
      cmocka_unit_test(test_set_value_on_a_missing_transform_member),
      cmocka_unit_test(test_add_move_delete),
      cmocka_unit_test(test_end_values_follow),
      cmocka_unit_test(test_easing),
      cmocka_unit_test(test_retime),
      cmocka_unit_test(test_parent_order_name),
      cmocka_unit_test(test_colour_and_duplicate),
      cmocka_unit_test(test_not_an_animation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
