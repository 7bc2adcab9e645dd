/* A plain main() for the fuzz targets, so that CTest runs them under ASan
 * and UBSan without libFuzzer: every file given (or found in a directory
 * given) is run through LLVMFuzzerTestOneInput, then deterministic
 * mutations of it (truncations, bit flips, interesting bytes, insertions,
 * deletions, duplications, splices). Seeded and bounded in time, so a run
 * is reproducible and short. When a target crashes, the input is written
 * to replay-crash-<n>.bin in the current directory first (see
 * docs/fuzzing.md).
 *
 *   replay_fuzz_x [--exact] [--seed=N] [--seconds=S] [--mutations=N] DIR|FILE...
 *
 * --exact runs the inputs as they are (to replay a crash); --mutations
 * scales the mutations per file (default 1.0 = about 250). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Optional libFuzzer hook, as libFuzzer calls it before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
/* When linked with a sanitizer runtime, lets us save the input before the
 * process dies of a sanitizer report. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

#define MAX_INPUT (1u << 20) /* inputs are cut to 1 MiB, as libFuzzer's -max_len would */

/* --- the input being run, for the crash handler ------------------------------ */

static const uint8_t *volatile s_cur;
static volatile size_t s_cur_len;
static char s_cur_what[512];
static volatile sig_atomic_t s_dumped;

static void s_write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w <= 0) return;
    c += w;
    n -= (size_t)w;
  }
}

static void s_dump_current(void) {
  /* async-signal-safe: open/write/close only */
  if (s_dumped || !s_cur) return;
  s_dumped = 1;
  static const char name[] = "replay-crash.bin";
  int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  static const char msg1[] = "\nreplay: crashed on ";
  static const char msg2[] =
      "\nreplay: input saved to ./replay-crash.bin; run it again with --exact replay-crash.bin\n";
  s_write_all(2, msg1, sizeof msg1 - 1);
  s_write_all(2, s_cur_what, strnlen(s_cur_what, sizeof s_cur_what));
  if (fd >= 0) {
    s_write_all(fd, (const void *)s_cur, s_cur_len);
    close(fd);
    s_write_all(2, msg2, sizeof msg2 - 1);
  }
}

static void s_on_signal(int sig) {
  s_dump_current();
  signal(sig, SIG_DFL);
  raise(sig);
}

/* --- PRNG ---------------------------------------------------------------- */

static uint64_t s_rng;
static uint64_t s_next(void) {
  uint64_t z = (s_rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static size_t s_below(size_t n) { return n ? (size_t)(s_next() % n) : 0; }

static uint64_t s_fnv(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

/* MessagePack type bytes and lengths that sit on boundaries. */
static const uint8_t s_interesting[] = {
    0x00, 0x01, 0x02, 0x03, 0x07, 0x0f, 0x10, 0x1f, 0x20, 0x30, 0x40, 0x56, 0x7a, 0x7f, 0x80, 0x81,
    0x8f, 0x90, 0x91, 0x95, 0x9f, 0xa0, 0xa1, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
    0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7,
    0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xfe, 0xff, '0', 'V', 'z', '@', ' '};

/* --- inputs ---------------------------------------------------------------- */

typedef struct {
  char *path;
  uint8_t *data;
  size_t len;
} s_file;

static s_file *s_files;
static size_t s_nfiles, s_capfiles;

static int s_cmp_files(const void *a, const void *b) {
  return strcmp(((const s_file *)a)->path, ((const s_file *)b)->path);
}

static int s_load(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  uint8_t *buf = malloc(MAX_INPUT);
  size_t n = buf ? fread(buf, 1, MAX_INPUT, f) : 0;
  fclose(f);
  if (!buf) return -1;
  if (s_nfiles == s_capfiles) {
    s_capfiles = s_capfiles ? s_capfiles * 2 : 64;
    s_files = realloc(s_files, s_capfiles * sizeof *s_files);
    if (!s_files) return -1;
  }
  /* shrink to fit: ASan then catches reads past the end of the input */
  uint8_t *data = malloc(n ? n : 1);
  if (!data) return -1;
  memcpy(data, buf, n);
  free(buf);
  s_files[s_nfiles].path = strdup(path);
  s_files[s_nfiles].data = data;
  s_files[s_nfiles].len = n;
  s_nfiles++;
  return 0;
}

static int s_add(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) return s_load(path);
  DIR *d = opendir(path);
  if (!d) {
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue; /* ., .., hidden files */
    size_t n = strlen(path) + strlen(e->d_name) + 2;
    char *full = malloc(n);
    if (!full) { rc = -1; break; }
    snprintf(full, n, "%s/%s", path, e->d_name);
    if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && s_load(full) != 0) rc = -1;
    free(full);
  }
  closedir(d);
  return rc;
}

/* --- running ------------------------------------------------------------------ */

static size_t s_runs;
static double s_deadline;
static int s_out_of_time;

static double s_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs one input from a buffer of exactly its size (a copy, so that the
 * target sees a fresh allocation and overreads are caught). */
static void s_run(const uint8_t *data, size_t len, const char *file, const char *how, long a, long b) {
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) { perror("replay"); exit(2); }
  if (len) memcpy(copy, data, len);
  snprintf(s_cur_what, sizeof s_cur_what, "input %zu: %s, %s %ld %ld (%zu bytes)\n", s_runs + 1, file, how, a, b, len);
  s_cur_len = len;
  s_cur = copy;
  LLVMFuzzerTestOneInput(copy, len);
  s_cur = NULL;
  free(copy);
  s_runs++;
  if (s_now() > s_deadline) s_out_of_time = 1;
}

/* One random in-place edit of buf (length *len, capacity cap). */
static const char *s_mutate_once(uint8_t *buf, size_t *len, size_t cap, long *a, long *b) {
  size_t n = *len;
  switch (s_below(n ? 7 : 1) + (n ? 0 : 2)) {
  case 0: /* flip a bit */
    *a = (long)s_below(n);
    *b = (long)s_below(8);
    buf[*a] ^= (uint8_t)(1u << *b);
    return "bit flip at/bit";
  case 1: /* an interesting byte */
    *a = (long)s_below(n);
    *b = s_interesting[s_below(sizeof s_interesting)];
    buf[*a] = (uint8_t)*b;
    return "byte set at/value";
  case 2: { /* insert 1..8 bytes */
    size_t k = 1 + s_below(8), at = s_below(n + 1);
    if (n + k > cap) return "nothing";
    memmove(buf + at + k, buf + at, n - at);
    for (size_t i = 0; i < k; i++)
      buf[at + i] = s_below(2) ? s_interesting[s_below(sizeof s_interesting)] : (uint8_t)s_next();
    *len = n + k;
    *a = (long)at;
    *b = (long)k;
    return "insert at/count";
  }
  case 3: { /* delete 1..4 bytes */
    size_t at = s_below(n), k = 1 + s_below(4);
    if (at + k > n) k = n - at;
    memmove(buf + at, buf + at + k, n - at - k);
    *len = n - k;
    *a = (long)at;
    *b = (long)k;
    return "delete at/count";
  }
  case 4: { /* duplicate a slice somewhere else */
    size_t from = s_below(n), k = 1 + s_below(n - from < 32 ? n - from : 32), at = s_below(n + 1);
    if (n + k > cap) return "nothing";
    uint8_t tmp[32];
    memcpy(tmp, buf + from, k);
    memmove(buf + at + k, buf + at, n - at);
    memcpy(buf + at, tmp, k);
    *len = n + k;
    *a = (long)from;
    *b = (long)at;
    return "duplicate from/at";
  }
  case 5: { /* a big-endian length or count field pushed to an edge */
    size_t at = s_below(n);
    static const uint8_t edges[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    size_t k = 1 + s_below(4);
    for (size_t i = 0; i < k && at + i < n; i++) buf[at + i] = edges[s_below(sizeof edges)];
    *a = (long)at;
    *b = (long)k;
    return "edge bytes at/count";
  }
  default: { /* swap two bytes */
    size_t i = s_below(n), j = s_below(n);
    uint8_t t = buf[i];
    buf[i] = buf[j];
    buf[j] = t;
    *a = (long)i;
    *b = (long)j;
    return "swap";
  }
  }
}

static void s_mutations(size_t index, uint64_t seed, double scale) {
  const s_file *f = &s_files[index];
  const uint8_t *d = f->data;
  size_t n = f->len;
  size_t cap = n + 256;
  uint8_t *buf = malloc(cap);
  if (!buf) { perror("replay"); exit(2); }
  /* each file's mutations depend only on the seed and its own bytes */
  s_rng = seed ^ s_fnv(d, n);
#define BUDGET(k) ((size_t)((k) * scale + 0.5))

  /* truncations: every length up to 64, then a spread of longer ones */
  for (size_t l = 0; l < n && l <= 64 && !s_out_of_time; l++) s_run(d, l, f->path, "truncate to", (long)l, 0);
  for (size_t k = 1; k <= 16 && n > 65 && !s_out_of_time; k++) {
    size_t l = 64 + (n - 64) * k / 17;
    s_run(d, l, f->path, "truncate to", (long)l, 0);
  }
  if (n > 66) {
    s_run(d, n - 1, f->path, "truncate to", (long)(n - 1), 0);
    s_run(d, n - 2, f->path, "truncate to", (long)(n - 2), 0);
  }
  /* single bit flips: all of them for short inputs, else a sample */
  if (n * 8 <= BUDGET(64)) {
    for (size_t i = 0; i < n * 8 && !s_out_of_time; i++) {
      memcpy(buf, d, n);
      buf[i / 8] ^= (uint8_t)(1u << (i % 8));
      s_run(buf, n, f->path, "bit flip at/bit", (long)(i / 8), (long)(i % 8));
    }
  } else {
    for (size_t k = 0; k < BUDGET(64) && !s_out_of_time; k++) {
      size_t i = s_below(n * 8);
      memcpy(buf, d, n);
      buf[i / 8] ^= (uint8_t)(1u << (i % 8));
      s_run(buf, n, f->path, "bit flip at/bit", (long)(i / 8), (long)(i % 8));
    }
  }
  /* every other kind of single edit, then stacks of 2..8 edits */
  for (size_t k = 0; k < BUDGET(80) && n && !s_out_of_time; k++) {
    size_t len = n;
    long a = 0, b = 0;
    memcpy(buf, d, n);
    const char *how = s_mutate_once(buf, &len, cap, &a, &b);
    s_run(buf, len, f->path, how, a, b);
  }
  for (size_t k = 0; k < BUDGET(32) && n && !s_out_of_time; k++) {
    size_t len = n, edits = 2 + s_below(7);
    long a = 0, b = 0;
    memcpy(buf, d, n);
    for (size_t e = 0; e < edits && len; e++) s_mutate_once(buf, &len, cap, &a, &b);
    s_run(buf, len, f->path, "stacked edits (rng draw/edits)", (long)k, (long)edits);
  }
  /* splices: a prefix of this file and a suffix of another */
  for (size_t k = 0; k < BUDGET(8) && s_nfiles > 1 && !s_out_of_time; k++) {
    const s_file *g = &s_files[s_below(s_nfiles)];
    size_t cut = s_below(n + 1), from = s_below(g->len + 1);
    size_t len = cut + (g->len - from);
    uint8_t *sp = malloc(len ? len : 1);
    if (!sp) { perror("replay"); exit(2); }
    memcpy(sp, d, cut);
    memcpy(sp + cut, g->data + from, g->len - from);
    s_run(sp, len, f->path, "splice cut/from", (long)cut, (long)from);
    free(sp);
  }
#undef BUDGET
  free(buf);
}

static void s_usage(void) {
  fprintf(stderr, "usage: replay [--exact] [--seed=N] [--seconds=S] [--mutations=X] DIR|FILE...\n");
}

int main(int argc, char **argv) {
  int exact = 0;
  uint64_t seed = 0x5eed;
  double seconds = 15.0, scale = 1.0;
  const char *env = getenv("ENS_SEED");
  if (env && *env) seed = strtoull(env, NULL, 0);

  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--exact") == 0) exact = 1;
    else if (strncmp(a, "--seed=", 7) == 0) seed = strtoull(a + 7, NULL, 0);
    else if (strncmp(a, "--seconds=", 10) == 0) seconds = strtod(a + 10, NULL);
    else if (strncmp(a, "--mutations=", 12) == 0) scale = strtod(a + 12, NULL);
    else if (a[0] == '-' && a[1]) { s_usage(); return 2; }
  }
  int rc = 0;
  for (int i = 1; i < argc; i++)
    if (argv[i][0] != '-' || !argv[i][1])
      if (s_add(argv[i]) != 0) rc = 2;
  if (rc) return rc;
  if (!s_nfiles) {
    fprintf(stderr, "replay: no inputs\n");
    s_usage();
    return 2;
  }
  qsort(s_files, s_nfiles, sizeof *s_files, s_cmp_files);

  /* abort() (a failed invariant) is ours to catch; faults are the
   * sanitizer's when there is one (it prints the stack, then calls us) */
  signal(SIGABRT, s_on_signal);
  if (__sanitizer_set_death_callback) {
    __sanitizer_set_death_callback(s_dump_current);
  } else {
    signal(SIGSEGV, s_on_signal);
    signal(SIGBUS, s_on_signal);
    signal(SIGFPE, s_on_signal);
    signal(SIGILL, s_on_signal);
  }

  double start = s_now();
  s_deadline = start + seconds;
  printf("replay: %zu files, seed %#llx%s\n", s_nfiles, (unsigned long long)seed, exact ? ", exact" : "");
  fflush(stdout);
  for (size_t i = 0; i < s_nfiles && !s_out_of_time; i++)
    s_run(s_files[i].data, s_files[i].len, s_files[i].path, "as is", 0, 0);
  if (!exact)
    for (size_t i = 0; i < s_nfiles && !s_out_of_time; i++) s_mutations(i, seed, scale);
  double took = s_now() - start;
  if (s_out_of_time)
    printf("replay: stopped at the %.0f s budget (--seconds); the rest was not run\n", seconds);
  printf("%zu inputs, 0 crashes (%zu files, %.1f s)\n", s_runs, s_nfiles, took);
  for (size_t i = 0; i < s_nfiles; i++) {
    free(s_files[i].path);
    free(s_files[i].data);
  }
  free(s_files);
  return 0;
}
