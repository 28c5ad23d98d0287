/* pego parse: parses standard input, -i TEXT, or each input file with a grammar
 * and prints the tree (JSON or S-expression), `ok` in recognition mode, or the
 * syntax error (language.md 1.14). */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char parse_usage[] =
    "usage: pego parse -g GRAMMAR [flags] [FILE...]\n"
    "\n"
    "Parses standard input (or -i TEXT, or each FILE) and prints the tree.\n"
    "\n"
    "  -g FILE         grammar file (required)\n"
    "  -s RULE         start rule (default main)\n"
    "  -i TEXT         parse TEXT itself instead of standard input\n"
    "  -f FORMAT       json (default), sexpr, or none (build the tree, print nothing)\n"
    "  -check          recognition only: print ok or the syntax error\n"
    "  -unit UNIT      positions in codepoints (default) or bytes\n"
    "  -max-depth N    nesting limit in rule calls (default 100000)\n"
    "  -memo POLICY    default, all (memoize every rule) or none\n"
    "  -stats          print the input size, tree size, parse time and counters on stderr\n"
    "  -backend NAME   accepted for compatibility; there is one engine\n"
    "\n"
    "With several files, each result or error is preceded by the file name.\n"
    "Exit status: 0 success, 1 a syntax error, grammar error or bad usage.\n";

enum { OPT_CHECK = 256, OPT_UNIT, OPT_MAXDEPTH, OPT_MEMO, OPT_STATS, OPT_BACKEND, OPT_HELP, OPT_STREAM };

typedef struct {
    const char  *format;
    int          stats;
    pego_options opt;
} parse_config;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Parses one input and prints its result; returns the exit status for it. */
static int parse_one(pego_parser *p, const parse_config *c, const char *name, const char *data, size_t len)
{
    const pego_result *r;
    double t0 = now_ms();
    pego_status st = pego_parse(p, data, len, &c->opt, &r);
    double t1 = now_ms();
    char prefix[4096] = "";
    if (name) snprintf(prefix, sizeof prefix, "%s: ", name);
    if (c->stats) {
        const pego_stats *s = pego_result_stats(r);
        fprintf(stderr, "pego: %s%zu bytes, %zu nodes, %.3f ms, %llu calls, %llu evaluations, %llu memo hits, "
                "%llu memo entries, %u rules memoized\n",
                prefix, len, pego_result_node_count(r), t1 - t0, (unsigned long long)s->calls,
                (unsigned long long)s->evals, (unsigned long long)s->memo_hits,
                (unsigned long long)s->memo_stored, s->rules_memoized);
    }
    if (st != PEGO_OK) {
        cli_error("%s%s", prefix, pego_result_error(r));
        return EXIT_ERRORS;
    }
    if (c->opt.recognize) {
        printf("%sok\n", prefix);
        return 0;
    }
    if (strcmp(c->format, "none") == 0) return 0;
    char *text = pego_result_print(r, strcmp(c->format, "json") == 0 ? PEGO_PRINT_JSON : PEGO_PRINT_SEXPR);
    if (!text) {
        cli_error("%sout of memory", prefix);
        return EXIT_ERRORS;
    }
    printf("%s%s\n", prefix, text);
    free(text);
    return 0;
}

int cmd_parse(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "g", required_argument, NULL, 'g' },       { "s", required_argument, NULL, 's' },
        { "i", required_argument, NULL, 'i' },       { "f", required_argument, NULL, 'f' },
        { "check", no_argument, NULL, OPT_CHECK },   { "unit", required_argument, NULL, OPT_UNIT },
        { "max-depth", required_argument, NULL, OPT_MAXDEPTH },
        { "memo", required_argument, NULL, OPT_MEMO }, { "stats", no_argument, NULL, OPT_STATS },
        { "backend", required_argument, NULL, OPT_BACKEND }, { "stream", no_argument, NULL, OPT_STREAM },
        { "help", no_argument, NULL, OPT_HELP },     { "h", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
    };
    const char *grammar = NULL, *text = NULL;
    parse_config c = { .format = "json" };
    opterr = 0;
    optind = 1;
    int ch;
    while ((ch = getopt_long_only(argc, argv, "+", longopts, NULL)) != -1) {
        switch (ch) {
        case 'g': grammar = optarg; break;
        case 's': c.opt.start_rule = optarg; break;
        case 'i': text = optarg; break;
        case 'f':
            if (strcmp(optarg, "json") && strcmp(optarg, "sexpr") && strcmp(optarg, "none")) {
                cli_error("unknown output format %s (json, sexpr or none)", optarg);
                return EXIT_ERRORS;
            }
            c.format = optarg;
            break;
        case OPT_CHECK: c.opt.recognize = 1; break;
        case OPT_UNIT:
            if (strcmp(optarg, "codepoints") == 0) c.opt.unit = PEGO_UNIT_CODEPOINTS;
            else if (strcmp(optarg, "bytes") == 0) c.opt.unit = PEGO_UNIT_BYTES;
            else { cli_error("unknown position unit %s (codepoints or bytes)", optarg); return EXIT_ERRORS; }
            break;
        case OPT_MAXDEPTH: {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end || v == 0 || v > 1000000000ul || optarg[0] == '-') {
                cli_error("-max-depth needs a whole number from 1 to 1000000000, not %s", optarg);
                return EXIT_ERRORS;
            }
            c.opt.max_depth = (uint32_t)v;
            break;
        }
        case OPT_MEMO:
            if (strcmp(optarg, "default") == 0) c.opt.memo = PEGO_MEMO_DEFAULT;
            else if (strcmp(optarg, "all") == 0) c.opt.memo = PEGO_MEMO_ALL;
            else if (strcmp(optarg, "none") == 0) c.opt.memo = PEGO_MEMO_NONE;
            else { cli_error("unknown memo policy %s (default, all or none)", optarg); return EXIT_ERRORS; }
            break;
        case OPT_STATS: c.stats = 1; break;
        case OPT_BACKEND: break;
        case OPT_STREAM: cli_error("-stream: not supported yet"); return EXIT_ERRORS;
        case OPT_HELP: fputs(parse_usage, stdout); return 0;
        default:
            if (optopt) cli_error("flag -%c needs a value", optopt);
            else cli_error("unknown flag %s (pego parse --help lists the flags)", argv[optind - 1]);
            return EXIT_ERRORS;
        }
    }
    if (!grammar) {
        cli_error("missing -g GRAMMAR (pego parse --help)");
        return EXIT_ERRORS;
    }
    if (text && optind < argc) {
        cli_error("-i TEXT and input files exclude each other");
        return EXIT_ERRORS;
    }
    pego_grammar *g = cli_load_grammar(grammar);
    if (!g) return EXIT_ERRORS;
    pego_parser *p = pego_parser_new(g);
    int status = 0;
    if (!p) {
        cli_error("out of memory");
        status = EXIT_ERRORS;
    } else if (text) {
        status = parse_one(p, &c, NULL, text, strlen(text));
    } else if (optind == argc) {
        char *data;
        size_t len;
        int err = cli_read_file(NULL, &data, &len);
        if (err) {
            cli_error("standard input: %s", strerror(err));
            status = EXIT_ERRORS;
        } else {
            status = parse_one(p, &c, NULL, data, len);
            free(data);
        }
    } else {
        int several = argc - optind > 1;
        for (int i = optind; i < argc; i++) {
            char *data;
            size_t len;
            int err = cli_read_file(argv[i], &data, &len);
            if (err) {
                cli_error("%s: %s", argv[i], strerror(err));
                status = EXIT_ERRORS;
                continue;
            }
            if (parse_one(p, &c, several ? argv[i] : NULL, data, len)) status = EXIT_ERRORS;
            free(data);
        }
    }
    fflush(stdout);
    pego_parser_free(p);
    pego_grammar_free(g);
    return status;
}
