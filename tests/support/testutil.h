/* Shared test helpers: a seeded PRNG, random document and transaction
 * generators, and the corpus location. */
#ifndef ENS_TESTUTIL_H
#define ENS_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ensemble.h"

typedef struct {
  uint64_t s;
} tu_rng;

static inline uint64_t tu_next(tu_rng *r) {
  /* splitmix64: small, fast, reproducible from one seed */
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static inline uint32_t tu_below(tu_rng *r, uint32_t n) { return n ? (uint32_t)(tu_next(r) % n) : 0; }

/* The seed of a randomised test: ENS_SEED from the environment, else the
 * given default; printed so a failure can be replayed. */
uint64_t tu_seed(const char *test, uint64_t fallback);

/* Every object id of doc in pre-order (caller frees), and their count. */
ens_id *tu_all_ids(const ens_doc *doc, size_t *count);

/* A random id of doc (possibly the root when allow_root). */
ens_id tu_pick(tu_rng *r, const ens_doc *doc, int allow_root);

/* A random value of a random type (strings from a small alphabet). */
ens_value tu_random_value(tu_rng *r, char *scratch, size_t scratch_size, const ens_doc *doc);

/* Build a document of about n objects with random shape and properties
 * through real transactions (apply must succeed). */
ens_doc *tu_random_doc(tu_rng *r, uint32_t site, size_t n);

/* A random transaction of 1..max_ops operations against doc: sets, inserts
 * with children, deletes, moves (some making cycles), edits of missing
 * objects. It may be invalid: that is the point. */
ens_txn *tu_random_txn(tu_rng *r, ens_doc *doc, int max_ops);

/* A malloc'd copy of text with each (from, to) pair of the NULL-ended
 * list replaced once, in order; NULL (the pair named on stderr) when a
 * from is not found. */
char *tu_replaced(const char *text, const char *const *pairs);

/* The source tree: $ENS_SOURCE_DIR (set by CTest), else where it was
 * when the test was built. */
const char *tu_source_dir(void);

/* The test files bundled with the sources (tests/resources, see its
 * README.md): always there, so the round-trip tests never depend on
 * anything outside the repository. */
const char *tu_resources_dir(void);

/* Path of the shared corpus (ENSEMBLE_CORPUS, else ../shared/corpus beside
 * the source tree) or NULL when absent. */
const char *tu_corpus_dir(void);

/* Skipping: a case that cannot run here (no corpus, no FontForge) says why
 * and reports itself skipped to cmocka, never passed. tu_exit makes the
 * whole program exit 77 (CTest's SKIP_RETURN_CODE) when every case was
 * skipped, so that CTest shows it as skipped too. Use in main:
 *   return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), count); */
extern int tu_skipped;
#define TU_SKIP(...)                                                                                                   \
  do {                                                                                                                 \
    printf("skipped: " __VA_ARGS__);                                                                                  \
    printf("\n");                                                                                                      \
    fflush(stdout);                                                                                                    \
    tu_skipped++;                                                                                                      \
    skip();                                                                                                            \
  } while (0)
int tu_exit(int failed, size_t cases);

/* The whole file at path, malloc'd with a NUL after it (free()), or NULL. */
char *tu_read_file(const char *path, size_t *len);

/* Every file below dir (recursively; names starting with '.' skipped)
 * whose name ends in suffix, as paths sorted byte-wise; *count gets how
 * many (0, and NULL returned, for none or a missing dir). Free with
 * tu_files_free. */
char **tu_list_files(const char *dir, const char *suffix, size_t *count);
void tu_files_free(char **files, size_t count);

#endif
