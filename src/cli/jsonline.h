/* One JSON value per line, for the command scripts of `ensemble edit`. */
#ifndef ENS_CLI_JSONLINE_H
#define ENS_CLI_JSONLINE_H

#include <stddef.h>

typedef enum { CLI_J_NULL, CLI_J_BOOL, CLI_J_NUM, CLI_J_STR, CLI_J_ARR, CLI_J_OBJ } cli_jtype;

typedef struct cli_json {
  cli_jtype type;
  double num;
  int b;
  char *str;             /* CLI_J_STR (UTF-8, NUL-terminated) */
  char *key;             /* the key, for a member of an object */
  struct cli_json *kids; /* array items or object members */
  size_t n;
} cli_json;

/* Parses the whole of line (len bytes) as one value into *out; -1 with
 * "bad JSON: ... (at byte N)" in err. The caller frees *out with
 * cli_json_free after a success. */
int cli_json_parse(const char *line, size_t len, cli_json *out, char *err, size_t esz);
void cli_json_free(cli_json *j);

/* The member key of object o, or NULL. */
const cli_json *cli_json_get(const cli_json *o, const char *key);

/* A malloc'd copy of the string member key of o (or, when it has none, of
 * member alt; alt may be NULL) in *v: 0, or -1 with "\"key\" must be a
 * string" (or out of memory) in err. */
int cli_json_get_str(const cli_json *o, const char *key, const char *alt, char **v, char *err, size_t esz);

#endif
