/* Private to the ensemble command-line tool: the command table, option
 * parsing and the small helpers every cmd_<name>.c shares. */
#ifndef ENS_CLI_H
#define ENS_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ensemble.h"

/* Exit statuses: 1 is a runtime failure (bad file, library error), 2 a
 * command line we could not understand. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Returned by cli_parse when the command should go on and run. */
#define CLI_RUN (-1)

/* One entry of the command table (main.c). */
typedef struct {
  const char *name;
  const char *summary; /* one line for `ensemble --help` */
  int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

extern const cli_command cli_commands[];
extern const size_t cli_command_count;

/* Prints the tool's usage (the command list) to out. */
void cli_print_usage(FILE *out);

int cli_cmd_demo(int argc, char **argv);
int cli_cmd_tree2snap(int argc, char **argv);
int cli_cmd_snapinfo(int argc, char **argv);
int cli_cmd_info(int argc, char **argv);
int cli_cmd_cat(int argc, char **argv);
int cli_cmd_edit(int argc, char **argv);
int cli_cmd_render(int argc, char **argv);
int cli_cmd_diff(int argc, char **argv);
int cli_cmd_help(int argc, char **argv);
int cli_cmd_keygen(int argc, char **argv);
int cli_cmd_invite(int argc, char **argv);
int cli_cmd_serve(int argc, char **argv);
int cli_cmd_watch(int argc, char **argv);
int cli_cmd_join(int argc, char **argv);
/* git for designers (cmd_git.c, cmd_repo.c, cmd_log.c; docs/vcs.md) */
int cli_cmd_git(int argc, char **argv);
int cli_cmd_init(int argc, char **argv);
int cli_cmd_commit(int argc, char **argv);
int cli_cmd_branch(int argc, char **argv);
int cli_cmd_switch(int argc, char **argv);
int cli_cmd_tag(int argc, char **argv);
int cli_cmd_log(int argc, char **argv);
int cli_cmd_show(int argc, char **argv);
int cli_cmd_restore(int argc, char **argv);
int cli_cmd_history(int argc, char **argv);
int cli_cmd_merge(int argc, char **argv);
int cli_cmd_visdiff(int argc, char **argv);
int cli_cmd_import(int argc, char **argv);

/* The visual diff of OLD and NEW written to out, whose extension (.svg,
 * .png, .html) picks the output (diff_visual.c); cmd names the command in
 * messages; timeout_s bounds rendering a PNG (0: 120 s). Returns the exit
 * status (0, 1 failure, 2 an output name of no known kind); with quiet,
 * prints nothing on success. */
int cli_diff_visual(const char *cmd, const char *old_path, const char *new_path, const char *out, int timeout_s,
                    int quiet);

/* The web client's files for serve --http and demo --http without
 * --web-root (webroot.c), in buf. */
const char *cli_web_root(char *buf, size_t cap);

/* --- options ---------------------------------------------------------------
 * Each command describes itself once in a cli_spec; the parser and the
 * --help text both come from it, so the usage can never miss an option. */

typedef struct {
  const char *name; /* long name without "--" */
  char letter;      /* short form, 0 for none */
  const char *arg;  /* the name shown for its value ("FILE"), NULL for a flag */
  const char *help; /* one line */
} cli_option;

#define CLI_MAX_OPTIONS 16
#define CLI_MAX_ARGS 64 /* ensemble commit -m MSG FILE... */

typedef struct {
  const char *name;        /* "tree2snap" */
  const char *synopsis;    /* after "usage: ensemble NAME " */
  const char *description; /* a paragraph, may hold newlines */
  const cli_option *options; /* ends with a zeroed entry; --help is implied */
  int min_args, max_args;  /* positional arguments */
} cli_spec;

typedef struct {
  const char *value[CLI_MAX_OPTIONS]; /* by option index; "" for a flag seen */
  const char *args[CLI_MAX_ARGS];
  int nargs;
} cli_args;

/* cli_diff_visual from a command's parsed options "output", "timeout" and
 * "quiet" and its two operands, with the usage errors they can make
 * (`diff --visual` and `visdiff`). */
int cli_diff_visual_args(const cli_spec *spec, const cli_args *args);

/* Parses argv[1..argc). Returns CLI_RUN, or the status to exit with: 0
 * after printing --help, CLI_USAGE after printing an error and the usage
 * to stderr. */
int cli_parse(const cli_spec *spec, int argc, char **argv, cli_args *out);
/* The value of option `name` (NULL when absent; "" for a flag given). */
const char *cli_opt(const cli_spec *spec, const cli_args *args, const char *name);
void cli_print_help(const cli_spec *spec, FILE *out);
/* "ensemble NAME: message" plus the usage to stderr; returns CLI_USAGE. */
int cli_usage_error(const cli_spec *spec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- helpers ---------------------------------------------------------------- */

/* "ensemble NAME: message" to stderr; returns CLI_FAIL. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads a whole file (at most max bytes) into a malloc'd buffer with a NUL
 * after the last byte. On failure returns -1 with a message in err. */
int cli_read_file(const char *path, size_t max, char **data, size_t *len, char *err, size_t err_size);

/* Writes path atomically: a temporary file in the same directory, flushed
 * and fsync'd, then renamed over path, so a reader sees the old file or
 * the new one and never half of one. A symbolic link is written through
 * (its target is replaced, in the target's directory); an existing file
 * keeps its mode and, where this process may give it, its owner. The
 * temporary file is ".NAME.tmp.ensemble-PID.XXXXXX"; those of writers that
 * were killed are removed first. -1 with a message in err. */
int cli_write_atomic(const char *path, const void *data, size_t len, char *err, size_t err_size);

/* The same, asking check(path, tmp, user) once the temporary file tmp is
 * complete and durable, right before the rename: nonzero from it leaves
 * path untouched and returns 1 (tmp removed). 0 when written, -1 with a
 * message in err on failure. */
typedef int (*cli_before_rename_fn)(const char *path, const char *tmp, void *user);
int cli_write_atomic_check(const char *path, const void *data, size_t len, cli_before_rename_fn check, void *user,
                           char *err, size_t err_size);

/* How the names of the temporary files cli_write_atomic* makes for a file
 * named base (a last path component) begin: ".BASE.tmp.ensemble-",
 * malloc'd (NULL when out of memory). A watcher of the directory tells
 * the writer's own rename by it. */
char *cli_temp_prefix(const char *base);
/* path with its symbolic links followed to the name they end at (which may
 * not exist yet), malloc'd; NULL with errno (ELOOP past 40 links). */
char *cli_resolve_links(const char *path);
/* Removes the temporary files beside path (followed through its links)
 * that writers killed before their rename left: those named for a process
 * that no longer exists. Returns how many went. */
int cli_clean_temps(const char *path);

/* The format of a file: a font (SFD file or SFDir) or a drawing (SVG),
 * by directory, extension, then content. */
typedef enum { CLI_KIND_SFD, CLI_KIND_SVG, CLI_KIND_LOTTIE } cli_file_kind;
cli_file_kind cli_kind_of(const char *path);

/* `ensemble render` of a Lottie animation (render_anim.c): frame_opt and
 * frames_opt are --frame's and --frames' values (NULL when absent), out a
 * PNG or, with frames_opt and not animate, a directory. Returns the exit
 * status, after printing why on failure. */
int cli_render_anim(const char *cmd, const char *path, const char *data, size_t len, const char *out,
                    const char *frame_opt, const char *frames_opt, int animate, ens_render_size size);

/* `ensemble info` and `cat` for drawings (cmd_svg.c). */
int cli_info_svg(const char *cmd, const char *path);
int cli_cat_svg(const char *cmd, const char *path, const char *out);
/* The same for a Lottie animation (cmd_lottie.c). */
int cli_info_lottie(const char *cmd, const char *path);
int cli_cat_lottie(const char *cmd, const char *path, const char *out);

/* One line of an edit script for a drawing (edit_svg.c): 0 with the
 * command's transaction in *txn (the caller's), 1 for a line with no
 * command, -1 with the reason in err. */
int cli_edit_svg_line(ens_doc *doc, const char *line, size_t len, ens_txn **txn, char *err, size_t esz);
/* The same for an animation (edit_lottie.c). */
int cli_edit_lottie_line(ens_doc *doc, const char *line, size_t len, ens_txn **txn, char *err, size_t esz);

/* A malloc'd copy of the n bytes at s with a NUL after them (NULL when
 * out of memory). */
char *cli_strndup(const char *s, size_t n);

/* The whole of (s, n) as a finite real in the C locale's notation: 0, or
 * -1 when it is empty, longer than 63 bytes, not a number or not finite. */
int cli_parse_real(const char *s, size_t n, double *out);

/* "site:counter", the way ens_txn_to_json writes ids. buf >= 32 bytes. */
const char *cli_id_str(ens_id id, char *buf, size_t size);

/* --keys DIR and --server-key KEY of the commands that join a session
 * (clientkeys.c). */
typedef struct {
  int on; /* both given and read */
  ens_keypair pair;
  char server[ENS_KEY_LEN + 1];
} cli_client_keys;

/* Reads them when given: CLI_RUN (also when neither is given), or the
 * exit status after printing why (one without the other, a key file that
 * cannot be read or is readable by others). */
int cli_client_keys_read(const cli_spec *spec, const cli_args *args, cli_client_keys *keys);
/* Points o's key fields at keys, which must outlive ens_session_new. */
void cli_client_keys_use(cli_client_keys *keys, ens_session_opts *o);
/* Zeroes the secret key (the session keeps its own copy). */
void cli_client_keys_wipe(cli_client_keys *keys);

/* From now on SIGINT and SIGTERM only make cli_stop_requested() true
 * (stop.c): the long-running commands poll it and stop cleanly. */
void cli_stop_on_signals(void);
int cli_stop_requested(void);

/* Writes compact JSON indented by two spaces per level, for people. */
void cli_json_pretty(FILE *out, const char *json, int indent);

#endif
