/* The pego command: dispatches to one file per subcommand. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: pego <command> [flags] [files]\n"
    "\n"
    "commands:\n"
    "  parse     parse input with a grammar and print the tree or the syntax error\n"
    "  check     check a grammar and report every error in it\n"
    "  compile   compile a grammar; -S prints the VM code\n"
    "  trace     print the rule calls of a parse\n"
    "  profile   count the rule calls of a parse and time them, with hints\n"
    "  explain   show which calls expected what at a syntax error\n"
    "  report    summarize profile reports: tables, hints, flame graphs, diffs\n"
    "  version   print the version (also pego --version, pego -v)\n"
    "  help      print this help (pego help COMMAND: that command's --help)\n"
    "\n"
    "Every command accepts --help. Flags take one dash or two (-g or --g).\n"
    "\n"
    "The commands that parse (parse, trace, profile, explain) also take the profiling\n"
    "options --profile FILE, --profile-append, --profile-detail, --profile-clock\n"
    "wall|cpu, --profile-interval DURATION, --profile-flush DURATION, --profile-native and\n"
    "--profile-memory,\n"
    "which any program using libpego reads from PEGO_FLAGS (docs/profiling.md).\n";

/* Takes the profiling options out of argv (they go with every command that
 * parses: --profile FILE, --profile=FILE, --profile-append, --profile-detail,
 * --profile-clock wall|cpu, --profile-interval DURATION, --profile-flush DURATION,
 * --profile-native, --profile-memory) and
 * turns profiling on; the command line wins over PEGO_FLAGS. A malformed
 * option exits 70. */
static int profile_options(int *argc, char **argv)
{
    size_t cap = 1;
    for (int i = 1; i < *argc; i++) cap += strlen(argv[i]) + 1;
    char *opts = calloc(cap, 1);
    if (!opts) {
        cli_error("out of memory");
        return EXIT_ERRORS;
    }
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        const char *name = a[0] == '-' && a[1] == '-' ? a + 2 : a[0] == '-' ? a + 1 : NULL;
        if (!name || strncmp(name, "profile", 7) != 0 || (name[7] && name[7] != '=' && name[7] != '-')) {
            argv[out++] = argv[i];
            continue;
        }
        strcat(opts, " ");
        strcat(opts, a);
        if ((strcmp(name, "profile") == 0 || strcmp(name, "profile-clock") == 0 ||
             strcmp(name, "profile-interval") == 0 || strcmp(name, "profile-flush") == 0) && i + 1 < *argc) {
            strcat(opts, " ");
            strcat(opts, argv[++i]);
        }
    }
    *argc = out;
    argv[out] = NULL;
    int status = pego_profile_start(NULL, opts);
    free(opts);
    if (status) {
        cli_error("%s", pego_profile_error());
        return EXIT_PROFILE_OPTION;
    }
    return 0;
}

static int run(int argc, char **argv);

/* pego help COMMAND: the command's own --help (an unknown command is said by run). */
static int help(const char *cmd)
{
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "version") == 0 || cmd[0] == '-') {
        fputs(usage, stdout);
        return 0;
    }
    char *argv[] = { "pego", (char *)cmd, "--help", NULL };
    return run(3, argv);
}

/* Runs the command named by argv[1]; returns its exit status. */
static int run(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_ERRORS;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "parse") == 0 || strcmp(cmd, "trace") == 0 || strcmp(cmd, "profile") == 0 ||
        strcmp(cmd, "explain") == 0) {
        int status = profile_options(&argc, argv);
        if (status) return status;
    }
    if (strcmp(cmd, "parse") == 0) return cmd_parse(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "compile") == 0) return cmd_compile(argc - 1, argv + 1);
    if (strcmp(cmd, "trace") == 0) return cmd_trace(argc - 1, argv + 1);
    if (strcmp(cmd, "profile") == 0) return cmd_profile(argc - 1, argv + 1);
    if (strcmp(cmd, "explain") == 0) return cmd_explain(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0) return cmd_report(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0 || strcmp(cmd, "-version") == 0 ||
        strcmp(cmd, "-v") == 0) {
        printf("pego %s\n", pego_version());
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-help") == 0 ||
        strcmp(cmd, "-h") == 0) {
        if (argc > 2) return help(argv[2]);
        fputs(usage, stdout);
        return 0;
    }
    cli_error("unknown command %s (pego help lists the commands)", cmd);
    return EXIT_ERRORS;
}

/* pego report checks its standard output itself (cli/report.c); every other
 * command's write errors are said here, once, when it ends. */
int main(int argc, char **argv)
{
    int status = run(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "report") == 0) return status;
    return cli_exit_status(status);
}
