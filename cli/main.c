/* The pego command: dispatches to one file per subcommand. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: pego <command> [flags] [files]\n"
    "\n"
    "commands:\n"
    "  parse     parse input with a grammar and print the tree or the syntax error\n"
    "  check     check a grammar and report every error in it\n"
    "  compile   compile a grammar; -S prints the VM code\n"
    "  version   print the version\n"
    "  help      print this help\n"
    "\n"
    "Every command accepts --help. Flags take one dash or two (-g or --g).\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_ERRORS;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "parse") == 0) return cmd_parse(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "compile") == 0) return cmd_compile(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0 || strcmp(cmd, "-version") == 0) {
        printf("pego %s\n", pego_version());
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-help") == 0 ||
        strcmp(cmd, "-h") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    cli_error("unknown command %s (pego help lists the commands)", cmd);
    return EXIT_ERRORS;
}
