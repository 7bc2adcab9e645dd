/* `ensemble help [COMMAND]`: the command list, or one command's usage
 * (by running that command with --help, so the text has one source). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_option s_options[] = {{0}};

static const cli_spec s_spec = {
    "help", "[COMMAND]",
    "Without a command, lists the commands. With one, prints its usage and\n"
    "every option, as 'ensemble COMMAND --help' does.",
    s_options, 0, 1};

int cli_cmd_help(int argc, char **argv) {
  cli_args args;
  int rc = cli_parse(&s_spec, argc, argv, &args);
  if (rc != CLI_RUN) return rc;
  if (args.nargs == 0) {
    cli_print_usage(stdout);
    return CLI_OK;
  }
  for (size_t i = 0; i < cli_command_count; i++) {
    if (strcmp(cli_commands[i].name, args.args[0]) != 0) continue;
    char *help_argv[] = {(char *)cli_commands[i].name, "--help", NULL};
    return cli_commands[i].run(2, help_argv);
  }
  return cli_usage_error(&s_spec, "unknown command '%s'", args.args[0]);
}
