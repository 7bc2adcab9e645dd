/* ensemble, the command-line tool: the table of subcommands and the
 * dispatch to them. Each command lives in its own cmd_<name>.c. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const cli_command cli_commands[] = {
    {"demo", "host a session on a bundled font; simulated collaborators edit it live", cli_cmd_demo},
    {"tree2snap", "convert a .tree outline into a snapshot file", cli_cmd_tree2snap},
    {"snapinfo", "describe a snapshot file: objects, kinds, hash", cli_cmd_snapinfo},
    {"info", "describe a FontForge font: glyphs, layers, size, objects", cli_cmd_info},
    {"cat", "read a FontForge font and write it back unedited", cli_cmd_cat},
    {"edit", "apply a script of glyph edits to a FontForge font", cli_cmd_edit},
    {"diff", "list what changed between two versions of a font or drawing, object by object", cli_cmd_diff},
    {"render", "render an SVG drawing or a Lottie animation's frames to PNG", cli_cmd_render},
    {"keygen", "make a key pair for encrypted sessions", cli_cmd_keygen},
    {"invite", "let a person's browser join sessions served with --http", cli_cmd_invite},
    {"serve", "host a real-time session for a font or snapshot", cli_cmd_serve},
    {"watch", "join a session, report its events, optionally save the document", cli_cmd_watch},
    {"merge", "three-way merge of a font or drawing; git's merge driver", cli_cmd_merge},
    {"join", "mirror a session both ways into a .sfd, .svg, .json or .tgs file an editor opens", cli_cmd_join},
    {"init", "make the current directory a git repository set up for fonts and drawings", cli_cmd_init},
    {"git", "git for designers: 'ensemble git setup' makes git diff and merge use Ensemble", cli_cmd_git},
    {"commit", "record the changed files (or those named) as a new version", cli_cmd_commit},
    {"log", "the history of one file, each version with a summary of what changed", cli_cmd_log},
    {"show", "a file as it was at a revision (REV:FILE), or drawn against the one before", cli_cmd_show},
    {"restore", "roll one file back to a revision, keeping uncommitted work", cli_cmd_restore},
    {"branch", "list branches, or start a new one", cli_cmd_branch},
    {"switch", "go to another branch", cli_cmd_switch},
    {"tag", "list tags, or name the current version", cli_cmd_tag},
    {"visdiff", "draw what changed between two versions of a drawing or font (SVG, PNG, HTML)", cli_cmd_visdiff},
    {"import", "turn a Tupi project (.tup) into a Lottie animation, listing what does not map", cli_cmd_import},
    {"history", "list a session's transactions from its store: who, when, what", cli_cmd_history},
    {"help", "show the commands, or one command's options", cli_cmd_help},
};
const size_t cli_command_count = sizeof cli_commands / sizeof cli_commands[0];

void cli_print_usage(FILE *out) {
  fprintf(out,
          "usage: ensemble <command> [options] [arguments]\n"
          "       ensemble --help | --version\n"
          "\n"
          "Ensemble: real-time collaboration for design files.\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < cli_command_count; i++)
    fprintf(out, "  %-11s %s\n", cli_commands[i].name, cli_commands[i].summary);
  fprintf(out,
          "\n"
          "Run 'ensemble <command> --help' for the options of a command.\n"
          "Exit status: 0 success, 1 failure, 2 bad command line.\n");
}

static const cli_command *s_find(const char *name) {
  for (size_t i = 0; i < cli_command_count; i++)
    if (strcmp(cli_commands[i].name, name) == 0) return &cli_commands[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_print_usage(stderr);
    return CLI_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    cli_print_usage(stdout);
    return CLI_OK;
  }
  if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
    printf("ensemble %s\n", ENS_VERSION_STRING);
    return CLI_OK;
  }
  if (first[0] == '-') {
    fprintf(stderr, "ensemble: unknown option '%s'\n\n", first);
    cli_print_usage(stderr);
    return CLI_USAGE;
  }
  const cli_command *cmd = s_find(first);
  if (!cmd) {
    fprintf(stderr, "ensemble: unknown command '%s'\n\n", first);
    cli_print_usage(stderr);
    return CLI_USAGE;
  }
  int rc = cmd->run(argc - 1, argv + 1);
  /* a failed write to stdout (a full disk, a closed pipe) is a failure too */
  if (fflush(stdout) != 0 && rc == CLI_OK) {
    perror("ensemble: writing the output");
    rc = CLI_FAIL;
  }
  return rc;
}
