/* Writes the seed corpus of fuzz_merge: scripts (base, ours' edits,
 * theirs' edits) that reach each rule of the merge, in each mode. Not part
 * of the build; deterministic:
 *
 *   cc -std=gnu11 tests/fuzz/make_merge_seeds.c -o /tmp/make_merge_seeds
 *   /tmp/make_merge_seeds tests/fuzz/corpus/fuzz_merge
 *
 * The record layout is fuzz_merge.c's (docs/fuzzing.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint8_t s_buf[4096];
static size_t s_len;

static void s_rec(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  s_buf[s_len++] = a, s_buf[s_len++] = b, s_buf[s_len++] = c, s_buf[s_len++] = d;
}
static void s_next(void) { s_rec(0xFE, 0, 0, 0); }

/* kind k (0..3), named N<n> (named = 2), p<n> (1) or nothing (0) */
static uint8_t s_obj(int k, int named, int n) {
  return (uint8_t)(k | (named ? 0x80 : 0) | (named == 2 ? 0x40 : 0) | (n & 7) << 2);
}

/* A base of 13 objects: root(0) { N0(1) { p0 p1 p2 } N1 { N4 { p3 p4 } } p5 N2 unnamed } in pre-order
 * indices as the fuzz target lists them after each insert. */
static void s_base(void) {
  s_rec(0, 0, 0, s_obj(0, 2, 0)); /* N0 under root */
  s_rec(0, 0, 1, s_obj(0, 2, 1)); /* N1 after it */
  s_rec(0, 1, 0, s_obj(1, 1, 0)); /* p0 under N0 */
  s_rec(0, 1, 1, s_obj(1, 1, 1));
  s_rec(0, 1, 2, s_obj(1, 1, 2));
  s_rec(0, 5, 0, s_obj(2, 2, 4)); /* N4 under N1 (index 5 in pre-order) */
  s_rec(0, 6, 0, s_obj(2, 1, 3));
  s_rec(0, 6, 1, s_obj(2, 1, 4));
  s_rec(0, 0, 2, s_obj(3, 1, 5));
  s_rec(0, 0, 3, s_obj(3, 2, 2));
  s_rec(0, 0, 4, s_obj(1, 0, 0));
}

static void s_write(const char *dir, const char *name, uint8_t mode) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s-m%u", dir, name, mode);
  s_buf[0] = mode;
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(s_buf, 1, s_len, f) != s_len || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

typedef void (*s_edits)(void);

static void s_sets(void) { /* the same properties two ways, and different ones */
  s_rec(2, 1, 0, 0x08), s_rec(2, 2, 1, 0x11), s_rec(2, 6, 4, 0x2d), s_next();
  s_rec(2, 1, 0, 0x10), s_rec(2, 3, 1, 0x22), s_rec(2, 6, 0, 0x07);
}
static void s_delete_vs_edit(void) { /* ours deletes N1's subtree, theirs edits and inserts in it */
  s_rec(3, 5, 0, 0), s_rec(2, 1, 2, 0x19), s_next();
  s_rec(2, 7, 0, 0x30), s_rec(0, 6, 0, s_obj(1, 2, 6)), s_rec(3, 2, 0, 0);
}
static void s_edit_vs_delete(void) { /* the other way round, and a delete on both sides */
  s_rec(2, 7, 0, 0x30), s_rec(4, 8, 1, 0), s_rec(3, 10, 0, 0), s_next();
  s_rec(3, 5, 0, 0), s_rec(3, 11, 0, 0);
}
static void s_both_insert(void) { /* N3 under root on both sides, p6 too; N5 under N0 */
  s_rec(0, 0, 0, s_obj(0, 2, 3)), s_rec(0, 1, 0, s_obj(0, 2, 3)), s_rec(0, 0, 9, s_obj(1, 1, 6)),
      s_rec(0, 1, 3, s_obj(2, 2, 5)), s_next();
  s_rec(0, 0, 5, s_obj(0, 2, 3)), s_rec(0, 1, 0, s_obj(1, 2, 3)), s_rec(0, 0, 9, s_obj(1, 1, 6)),
      s_rec(0, 1, 1, s_obj(2, 2, 5));
}
static void s_moves(void) { /* a cycle, two parents for one object, and a move into what the other deletes */
  s_rec(4, 1, 5, 0), s_rec(4, 9, 2, 0), s_rec(4, 3, 7, 1), s_next();
  s_rec(4, 5, 1, 0), s_rec(4, 9, 6, 0), s_rec(3, 7, 0, 0);
}
static void s_reorders(void) { /* both reorder the root's and N0's children */
  s_rec(5, 1, 3, 0), s_rec(5, 4, 0, 0), s_rec(5, 11, 0, 0), s_next();
  s_rec(5, 10, 1, 0), s_rec(5, 2, 2, 0), s_rec(5, 5, 4, 0);
}
static void s_refs(void) { /* references to what is new, moved and deleted */
  s_rec(0, 1, 0, s_obj(2, 2, 7)), s_rec(2, 2, 0, 0x05 | 1 << 3), s_rec(2, 3, 1, 0x05 | 13 << 3), s_next();
  s_rec(3, 13, 0, 0), s_rec(2, 4, 0, 0x06), s_rec(2, 2, 0, 0x05 | 2 << 3);
}
static void s_renames(void) { /* names set on both sides: keys change under the merge */
  s_rec(2, 1, 3, 0x02), s_rec(2, 3, 3, 0x0a), s_next();
  s_rec(2, 1, 3, 0x12), s_rec(2, 9, 3, 0x00);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_merge_seeds DIR\n");
    return 2;
  }
  mkdir(argv[1], 0755);
  struct {
    const char *name;
    s_edits edits;
  } seeds[] = {{"sets", s_sets},   {"delete-vs-edit", s_delete_vs_edit}, {"edit-vs-delete", s_edit_vs_delete},
               {"both-insert", s_both_insert}, {"moves", s_moves}, {"reorders", s_reorders}, {"refs", s_refs},
               {"renames", s_renames}};
  for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++)
    for (uint8_t mode = 0; mode < 8; mode++) {
      s_len = 1;
      s_base();
      s_next();
      seeds[i].edits();
      s_write(argv[1], seeds[i].name, mode);
    }
  return 0;
}
