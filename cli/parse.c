/* pego parse: parses standard input, -i TEXT, or each input file with a grammar
 * and prints the tree (JSON or S-expression), `ok` in recognition mode, or the
 * syntax error (docs/language.md 1.14); with -stream, reads the input in pieces
 * and prints each element of the start rule's #stream repetition as it comes
 * (7.1). */
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
    "  -stream         stream parse: read the input in pieces and print each element of\n"
    "                  the start rule's #stream repetition on its own line as it is\n"
    "                  parsed (compact JSON, or -f sexpr), then the errors\n"
    "  -edit F:T:TEXT  parse the input as a document (docs/language.md 7.2), replace\n"
    "                  [F, T) (in the unit of -unit) by TEXT and parse it again, reusing\n"
    "                  what the first parse kept: the result is the last parse's;\n"
    "                  repeatable (each edit on the text the ones before left)\n"
    "  -unit UNIT      positions in codepoints (default) or bytes\n"
    "  -max-depth N    nesting limit in rule calls (default 100000)\n"
    "  -memo POLICY    default, all (memoize every rule) or none\n"
    "  -backend NAME   closure or bytecode (the reference program), or\n"
    "                  bytecode-iterative (the default program choice)\n"
    "  -stats          print the input size, tree size, parse time and counters on stderr\n"
    "  -q              no progress on standard error (shown on a terminal for a parse\n"
    "                  that takes more than a second: bytes done, rate, time left)\n"
    "\n"
    "With several files, each result or error is preceded by the file name.\n"
    "\n"
    CLI_PROFILE_HELP
    "\n"
    "Exit status: 0 success, 1 a syntax error, grammar error, bad usage, an\n"
    "unreadable or too large input, or a write error.\n";

enum { OPT_CHECK = CLI_OPT_FIRST_FREE, OPT_FORMAT, OPT_STATS, OPT_HELP, OPT_QUIET };

typedef struct {
    const char *format;
    int         stats, quiet;
    cli_input  *in;       /* -check sets its options */
} parse_config;

/* The progress of a parse: the farthest position the parser has said. */
typedef struct parse_progress {
    const pego_parser *p;
    uint64_t           most;
} parse_progress;

static uint64_t parsed_bytes(void *ud)
{
    parse_progress *pp = ud;
    uint64_t at = pego_parser_progress(pp->p);
    if (at > pp->most) pp->most = at;
    return pp->most;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Success with recovered errors (docs/language.md 1.14): after the tree, the
 * errors. Returns the exit status. */
static int print_recovered(const pego_result *r, const char *prefix)
{
    size_t nrecovered = pego_result_recovered_count(r);
    if (!nrecovered) return 0;
    cli_flush();
    fprintf(stderr, "pego: %s", prefix);
    for (size_t i = 0; i < nrecovered; i++) fprintf(stderr, "%s%s", i ? "\n" : "", pego_result_recovered_error(r, i));
    fputc('\n', stderr);
    return EXIT_ERRORS;
}

/* Parses one input and prints its result; returns the exit status for it. */
static int parse_one(cli_input *in, const char *name, const char *label, const char *data, size_t len, void *ctx)
{
    const parse_config *c = ctx;
    const pego_result *r;
    parse_progress pp = { in->p, 0 };
    cli_progress *progress = cli_progress_start(c->quiet, label, len, 1, parsed_bytes, &pp);
    char prefix[4096] = "";
    if (name) snprintf(prefix, sizeof prefix, "%s: ", name);
    double t0 = now_ms();
    pego_status st = cli_input_parse(in, prefix, label, data, len, &r);
    double t1 = now_ms();
    cli_progress_stop(progress);
    if (st == PEGO_EREAD) return EXIT_ERRORS;     /* said already (-edit) */
    if (c->stats) {
        const pego_stats *s = pego_result_stats(r);
        if (in->doc) pego_document_text(in->doc, &len);      /* -edit: the text the last parse read */
        fprintf(stderr, "pego: %s%zu bytes, %zu nodes, %.3f ms, %llu calls, %llu evaluations, %llu memo hits, "
                "%llu memo entries, %u rules memoized\n",
                prefix, len, pego_result_node_count(r), t1 - t0, (unsigned long long)s->calls,
                (unsigned long long)s->evals, (unsigned long long)s->memo_hits,
                (unsigned long long)s->memo_stored, s->rules_memoized);
        if (in->doc) {
            pego_document_stats ds;
            pego_document_get_stats(in->doc, &ds);
            fprintf(stderr, "pego: %safter %d edit%s, the last parse evaluated %llu rule bodies and answered %llu "
                    "calls from what the first kept\n", prefix, in->nedits, in->nedits == 1 ? "" : "s",
                    (unsigned long long)ds.evaluated, (unsigned long long)ds.reused);
        }
    }
    if (st != PEGO_OK) {
        cli_error("%s%s", prefix, pego_result_error(r));
        return EXIT_ERRORS;
    }
    size_t nrecovered = pego_result_recovered_count(r);
    if (in->opt.recognize) {
        if (!nrecovered && (cli_print(prefix) || cli_print("ok\n"))) return EXIT_ERRORS;
    } else if (strcmp(c->format, "none") != 0) {
        /* a write error is said once, at exit (cli_exit_status) */
        if (cli_print(prefix)) return EXIT_ERRORS;
        int err = pego_result_write(r, strcmp(c->format, "json") == 0 ? PEGO_PRINT_JSON : PEGO_PRINT_SEXPR,
                                    cli_write, NULL);
        if (err < 0) cli_error("%sout of memory", prefix);
        if (err || cli_print("\n")) return EXIT_ERRORS;
    }
    return print_recovered(r, prefix);
}

/* ---- -stream (docs/language.md 7.1) ---- */

typedef struct {
    const char       *prefix;
    pego_print_format format;
    int               none;    /* -f none */
    int               oom;
} stream_sink;

/* One element, on its own line, written at once. */
static int stream_element(const pego_result *r, const pego_node *element, void *ctx)
{
    stream_sink *sink = ctx;
    if (sink->none) return 0;
    char *text = pego_node_print(r, element, sink->format);
    if (!text) {
        sink->oom = 1;
        return 1;
    }
    int err = cli_print(sink->prefix) || cli_print(text) || cli_print("\n") || cli_flush();
    free(text);
    return err;            /* a write error is said once, at exit (cli_exit_status) */
}

/* Stream-parses one input; returns the exit status for it. */
static int stream_one(cli_input *in, const char *name, const char *label, const char *data, size_t len, void *ctx)
{
    const parse_config *c = ctx;
    char prefix[4096] = "";
    if (name) snprintf(prefix, sizeof prefix, "%s: ", name);
    stream_sink sink = { prefix, strcmp(c->format, "sexpr") == 0 ? PEGO_PRINT_SEXPR : PEGO_PRINT_JSON_COMPACT,
                         strcmp(c->format, "none") == 0, 0 };
    in->element = stream_element;
    in->element_ctx = &sink;
    const pego_result *r;
    pego_status st = cli_input_parse(in, prefix, label, data, len, &r);
    if (st == PEGO_EREAD) return EXIT_ERRORS;
    if (st == PEGO_ECALLBACK) {
        if (sink.oom) cli_error("%sout of memory", prefix);
        return EXIT_ERRORS;
    }
    if (st != PEGO_OK) {
        cli_error("%s%s", prefix, pego_result_error(r));
        return EXIT_ERRORS;
    }
    return print_recovered(r, prefix);
}

/* The flags of pego parse besides the input flags. */
static int parse_flag(int ch, const char *arg, void *ctx)
{
    parse_config *c = ctx;
    switch (ch) {
    case OPT_FORMAT:
        if (strcmp(arg, "json") && strcmp(arg, "sexpr") && strcmp(arg, "none")) {
            cli_error("unknown output format %s (json, sexpr or none)", arg);
            return CLI_FLAG_BAD;
        }
        c->format = arg;
        return CLI_FLAG_OK;
    case OPT_CHECK: c->in->opt.recognize = 1; return CLI_FLAG_OK;
    case OPT_STATS: c->stats = 1; c->in->opt.count_stats = 1; return CLI_FLAG_OK;
    case OPT_QUIET: c->quiet = 1; return CLI_FLAG_OK;
    case OPT_HELP: fputs(parse_usage, stdout); return CLI_FLAG_HELP;
    default: return CLI_FLAG_UNKNOWN;
    }
}

int cmd_parse(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_INPUT_OPTIONS, CLI_MAX_DEPTH_OPTION,
        { "f", required_argument, NULL, OPT_FORMAT },  { "check", no_argument, NULL, OPT_CHECK },
        { "stats", no_argument, NULL, OPT_STATS },     CLI_STREAM_OPTION, CLI_EDIT_OPTION,
        { "q", no_argument, NULL, OPT_QUIET },
        { "help", no_argument, NULL, OPT_HELP },       { "h", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    parse_config c = { .format = "json", .in = &in };
    int done = cli_input_flags(&in, "parse", argc, argv, longopts, parse_flag, &c);
    if (done >= 0) return done;
    const char *clash = in.stream && c.stats ? "-stats cannot be combined with -stream"
                      : in.nedits && in.opt.recognize ? "-edit cannot be combined with -check" : NULL;
    if (clash) {
        cli_error("%s", clash);
        cli_input_close(&in);
        return EXIT_ERRORS;
    }
    int status = cli_input_open(&in);
    if (!status) status = cli_input_each(&in, in.stream ? stream_one : parse_one, &c);
    cli_input_close(&in);
    return status;
}
