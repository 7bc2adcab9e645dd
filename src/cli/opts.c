/* Option parsing for every command, from the command's cli_spec: long
 * options (--name, --name=value, --name value), short ones (-x, -x value),
 * "--" to end options, and the --help text generated from the same spec. */
#include <stdarg.h>
#include <string.h>

#include "cli.h"

static const cli_option s_help_option = {"help", 'h', NULL, "show this help and exit"};

static size_t s_count(const cli_spec *spec) {
  size_t n = 0;
  while (spec->options[n].name) n++;
  return n;
}

static void s_print_option(const cli_option *o, FILE *out) {
  char left[64];
  if (o->letter)
    snprintf(left, sizeof left, "-%c, --%s%s%s", o->letter, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
  else
    snprintf(left, sizeof left, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
  fprintf(out, "  %-24s %s\n", left, o->help);
}

void cli_print_help(const cli_spec *spec, FILE *out) {
  fprintf(out, "usage: ensemble %s %s\n\n%s\n\noptions:\n", spec->name, spec->synopsis, spec->description);
  for (size_t i = 0; spec->options[i].name; i++) s_print_option(&spec->options[i], out);
  s_print_option(&s_help_option, out);
}

int cli_usage_error(const cli_spec *spec, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "ensemble %s: ", spec->name);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\n\n", stderr);
  cli_print_help(spec, stderr);
  return CLI_USAGE;
}

/* Index of the option named by `name` (len bytes) or letter; -1 if none,
 * -2 for --help. */
static int s_lookup(const cli_spec *spec, const char *name, size_t len, char letter) {
  for (size_t i = 0; spec->options[i].name; i++) {
    const cli_option *o = &spec->options[i];
    if (letter ? o->letter == letter : strlen(o->name) == len && memcmp(o->name, name, len) == 0) return (int)i;
  }
  if (letter ? letter == 'h' : len == 4 && memcmp(name, "help", 4) == 0) return -2;
  return -1;
}

int cli_parse(const cli_spec *spec, int argc, char **argv, cli_args *out) {
  memset(out, 0, sizeof *out);
  if (s_count(spec) > CLI_MAX_OPTIONS) return cli_usage_error(spec, "internal: too many options");
  int only_args = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_args || a[0] != '-' || a[1] == '\0') { /* "-" alone is an argument */
      if (out->nargs >= spec->max_args || out->nargs >= CLI_MAX_ARGS)
        return cli_usage_error(spec, "unexpected argument '%s'", a);
      out->args[out->nargs++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_args = 1;
      continue;
    }
    int is_long = a[1] == '-';
    const char *name = a + (is_long ? 2 : 1);
    const char *eq = is_long ? strchr(name, '=') : NULL;
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (!is_long && len != 1) return cli_usage_error(spec, "unknown option '%s' (short options stand alone, long ones take two dashes)", a);
    int idx = s_lookup(spec, name, len, is_long ? 0 : name[0]);
    if (idx == -2) {
      cli_print_help(spec, stdout);
      return CLI_OK;
    }
    if (idx < 0) return cli_usage_error(spec, "unknown option '%s'", a);
    const cli_option *o = &spec->options[idx];
    if (!o->arg) {
      if (eq) return cli_usage_error(spec, "option --%s takes no value", o->name);
      out->value[idx] = "";
    } else if (eq) {
      out->value[idx] = eq + 1;
    } else if (i + 1 < argc) {
      out->value[idx] = argv[++i];
    } else {
      return cli_usage_error(spec, "option '%s' needs a value (%s)", a, o->arg);
    }
    if (o->arg && !*out->value[idx]) return cli_usage_error(spec, "option --%s needs a non-empty %s", o->name, o->arg);
  }
  if (out->nargs < spec->min_args) return cli_usage_error(spec, "missing argument (see the usage below)");
  return CLI_RUN;
}

const char *cli_opt(const cli_spec *spec, const cli_args *args, const char *name) {
  int idx = s_lookup(spec, name, strlen(name), 0);
  return idx >= 0 ? args->value[idx] : NULL;
}
