/* pego check: reports every error of a grammar; exit 1 if there is any. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char check_usage[] =
    "usage: pego check -g GRAMMAR\n"
    "\n"
    "Checks a grammar and prints every error, one per line, as file:line:col: message.\n"
    "Prints nothing and exits 0 when the grammar is fine; exits 1 otherwise.\n"
    "\n"
    "  -g FILE         grammar file (required; or the one operand)\n";

int cmd_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "g", required_argument, NULL, 'g' }, { "help", no_argument, NULL, 'h' },
        { "h", no_argument, NULL, 'h' },       { NULL, 0, NULL, 0 },
    };
    const char *grammar = NULL;
    opterr = 0;
    optind = 1;
    int ch;
    while ((ch = getopt_long_only(argc, argv, "+", longopts, NULL)) != -1) {
        if (ch == 'g') grammar = optarg;
        else if (ch == 'h') { fputs(check_usage, stdout); return 0; }
        else {
            if (optopt) cli_error("flag -%c needs a value", optopt);
            else cli_error("unknown flag %s (pego check --help lists the flags)", argv[optind - 1]);
            return EXIT_ERRORS;
        }
    }
    if (!grammar && optind < argc) grammar = argv[optind++];
    if (!grammar || optind < argc) {
        cli_error("usage: pego check -g GRAMMAR");
        return EXIT_ERRORS;
    }
    pego_grammar *g = cli_load_grammar(grammar);
    if (!g) return EXIT_ERRORS;
    pego_grammar_free(g);
    return 0;
}
