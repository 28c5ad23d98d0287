/* pego compile: compiles a grammar; with -S prints the VM code of every rule. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char compile_usage[] =
    "usage: pego compile -S -g GRAMMAR\n"
    "\n"
    "Compiles a grammar (reporting every error) and, with -S, prints the code of the\n"
    "VM: for each rule its static facts (memoization, left recursion, twins), then\n"
    "the instructions of its valued and value-free bodies with rule names, jump\n"
    "targets and the grammar line:col each instruction came from.\n"
    "\n"
    "  -g FILE         grammar file (required)\n"
    "  -S              print the VM code\n";

int cmd_compile(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "g", required_argument, NULL, 'g' }, { "S", no_argument, NULL, 'S' },
        { "help", no_argument, NULL, 'h' },    { "h", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *grammar = NULL;
    int listing = 0;
    opterr = 0;
    optind = 1;
    int ch;
    while ((ch = getopt_long_only(argc, argv, "+", longopts, NULL)) != -1) {
        if (ch == 'g') grammar = optarg;
        else if (ch == 'S') listing = 1;
        else if (ch == 'h') { fputs(compile_usage, stdout); return 0; }
        else {
            if (optopt) cli_error("flag -%c needs a value", optopt);
            else cli_error("unknown flag %s (pego compile --help lists the flags)", argv[optind - 1]);
            return EXIT_ERRORS;
        }
    }
    if (!grammar || optind < argc) {
        cli_error("usage: pego compile -S -g GRAMMAR");
        return EXIT_ERRORS;
    }
    pego_grammar *g = cli_load_grammar(grammar);
    if (!g) return EXIT_ERRORS;
    int status = 0;
    if (listing) {
        char *text = pego_grammar_disassemble(g);
        if (!text) { cli_error("out of memory"); status = EXIT_ERRORS; }
        else if (cli_print(text)) status = EXIT_ERRORS;   /* said at exit (cli_exit_status) */
        free(text);
    }
    pego_grammar_free(g);
    return status;
}
