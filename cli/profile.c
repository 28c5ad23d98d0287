/* pego profile: parses with a collector attached and prints where the
 * calls and the time went, per rule, with hints on what to look at. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char profile_usage[] =
    "usage: pego profile -g GRAMMAR [flags] [FILE...]\n"
    "\n"
    "Parses standard input (or -i TEXT, or each FILE) with a profile collector and\n"
    "prints the result, the totals, a table of the rules and hints:\n"
    "\n"
    "  calls     rule calls, memo hits included\n"
    "  evals     body evaluations (growth rounds of left recursion included)\n"
    "  memo      calls answered from the memo table\n"
    "  matched, failed   outcomes of calls\n"
    "  repeats   evaluations at a position where the rule was evaluated before\n"
    "  consumed  input matched by matched calls\n"
    "  wasted    input examined by failed evaluations\n"
    "  time      inclusive time (the outermost call of a recursive rule only)\n"
    "  self      time minus the time of nested calls; self% its share\n"
    "\n"
    "  -g FILE         grammar file (required)\n"
    "  -s RULE         start rule (default main)\n"
    "  -i TEXT         parse TEXT itself instead of standard input\n"
    "  -unit UNIT      positions in codepoints (default) or bytes\n"
    "  -max-depth N    nesting limit in rule calls (default 100000)\n"
    "  -memo POLICY    default, all (memoize every rule) or none\n"
    "  -backend NAME   closure or bytecode (the reference program), or\n"
    "                  bytecode-iterative (the default program choice)\n"
    "  -stream         stream parse (as pego parse -stream), the elements dropped; an\n"
    "                  element parsed again with more input counts its calls again\n"
    "  -edit F:T:TEXT  as pego parse -edit: profile the parse after the edits\n"
    "  -sort KEY       self (default), time, calls, evals, memo, failed, repeats,\n"
    "                  consumed, wasted or name\n"
    "  -n N            rules shown (default 30; 0 shows all)\n"
    "  -f FORMAT       text (default) or json (the same data, times in nanoseconds,\n"
    "                  with the longest failed call of each rule and where)\n"
    "\n"
    CLI_PROFILE_HELP
    "\n"
    "The profile is printed even when an input has a syntax error; the result\n"
    "line shows it, or the errors #recover recovered.\n"
    "Exit status: 0 when the profile was printed, 1 a grammar error or bad usage.\n";

enum { OPT_SORT = CLI_OPT_FIRST_FREE, OPT_COUNT, OPT_FORMAT, OPT_HELP };

enum { COL_RULE, COL_CALLS, COL_EVALS, COL_MEMO, COL_MATCHED, COL_FAILED, COL_REPEATS, COL_CONSUMED,
       COL_WASTED, COL_TIME, COL_SELF, COL_SHARE, NCOLS };

static const char *const headers[NCOLS] = { "rule", "calls", "evals", "memo", "matched", "failed", "repeats",
                                            "consumed", "wasted", "time", "self", "self%" };

static const char *const sort_keys[] = { "self", "time", "calls", "evals", "memo", "failed", "repeats",
                                         "consumed", "wasted", "name", NULL };

typedef struct {
    int             json;
    int             sort;       /* index into sort_keys */
    long            limit;      /* rows shown; 0: all */
    pego_collector *collector;
    /* the result of each input */
    struct { char *label, *result; } *results;
    size_t          nresults;
} profile_config;

/* The value a sort key reads. */
static uint64_t sort_value(const pego_collector_rule *r, int key)
{
    switch (key) {
    case 0: return r->self_ns;
    case 1: return r->time_ns;
    case 2: return r->calls;
    case 3: return r->evals;
    case 4: return r->memo;
    case 5: return r->failed;
    case 6: return r->repeats;
    case 7: return r->consumed;
    default: return r->wasted;
    }
}

static int sort_key;

/* Largest first, then by name; name sorts by name only. */
static int compare_rules(const void *a, const void *b)
{
    const pego_collector_rule *x = a, *y = b;
    if (strcmp(sort_keys[sort_key], "name") != 0) {
        uint64_t u = sort_value(x, sort_key), v = sort_value(y, sort_key);
        if (u != v) return u > v ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

/* A duration as the original prints it: one decimal below a millisecond, two
 * above: 726.8µs, 1.02ms, 1.23s. */
static void format_time(char *out, size_t size, uint64_t ns)
{
    if (ns >= 1000000000u) snprintf(out, size, "%.2fs", (double)ns / 1e9);
    else if (ns >= 1000000u) snprintf(out, size, "%.2fms", (double)ns / 1e6);
    else snprintf(out, size, "%.1fµs", (double)ns / 1e3);
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Width on a terminal: UTF-8 continuation bytes take no column. */
static size_t width(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The result of a parse as the original words it: "ok", the syntax error, or
 * the errors #recover recovered, one a line (the text form joins them with
 * "; "). NULL when out of memory. */
static char *result_text(pego_status st, const pego_result *r)
{
    if (st != PEGO_OK) return strdup(pego_result_error(r));
    size_t n = pego_result_recovered_count(r), len = 0;
    if (!n) return strdup("ok");
    /* each error and a line feed, the last one's room taken by the NUL */
    for (size_t i = 0; i < n; i++) len += strlen(pego_result_recovered_error(r, i)) + 1;
    char *text = malloc(len), *end = text;
    if (!text) return NULL;
    for (size_t i = 0; i < n; i++) end += sprintf(end, "%s%s", i ? "\n" : "", pego_result_recovered_error(r, i));
    return text;
}

/* Prints a result in the text form: its lines joined with "; ". */
static void print_result(const char *result)
{
    for (; *result; result++)
        if (*result == '\n') fputs("; ", stdout);
        else putchar(*result);
}

static void print_text(const profile_config *c, const pego_collector_rule *rows, size_t nrows, size_t nrules,
                       const pego_collector_totals *t, uint64_t total_self, const char *const *hints,
                       size_t nhints)
{
    char time[32];
    for (size_t i = 0; i < c->nresults; i++) {
        printf("result: ");
        if (c->nresults > 1) printf("%s: ", c->results[i].label);
        print_result(c->results[i].result);
        putchar('\n');
    }
    format_time(time, sizeof time, t->time_ns);
    printf("examined %llu positions in %s (profiling included)\n", (unsigned long long)t->examined, time);
    printf("%llu calls, %llu body evaluations, %llu memo hits (%.0f%% of calls)\n",
           (unsigned long long)t->calls, (unsigned long long)t->evals, (unsigned long long)t->memo_hits,
           share(t->memo_hits, t->calls));
    putchar('\n');

    char (*cells)[NCOLS][40] = calloc(nrows + 1, sizeof *cells);
    if (!cells) {
        cli_error("out of memory");
        return;
    }
    size_t w[NCOLS] = { 0 };
    for (int k = 0; k < NCOLS; k++) snprintf(cells[0][k], sizeof cells[0][k], "%s", headers[k]);
    for (size_t i = 0; i < nrows; i++) {
        const pego_collector_rule *r = &rows[i];
        char (*row)[40] = cells[i + 1];
        snprintf(row[COL_RULE], 40, "%s", r->name);
        uint64_t v[] = { r->calls, r->evals, r->memo, r->matched, r->failed, r->repeats, r->consumed, r->wasted };
        for (int k = COL_CALLS; k <= COL_WASTED; k++)
            snprintf(row[k], 40, "%llu", (unsigned long long)v[k - COL_CALLS]);
        format_time(row[COL_TIME], 40, r->time_ns);
        format_time(row[COL_SELF], 40, r->self_ns);
        snprintf(row[COL_SHARE], 40, "%.1f", share(r->self_ns, total_self));
    }
    for (size_t i = 0; i <= nrows; i++)
        for (int k = 0; k < NCOLS; k++) {
            size_t n = k == COL_RULE ? width(i ? rows[i - 1].name : headers[k]) : width(cells[i][k]);
            if (n > w[k]) w[k] = n;
        }
    /* every column right-aligned, two spaces before its widest cell */
    for (size_t i = 0; i <= nrows; i++) {
        for (int k = 0; k < NCOLS; k++) {
            const char *cell = k == COL_RULE ? (i ? rows[i - 1].name : headers[k]) : cells[i][k];
            printf("  %*s%s", (int)(w[k] - width(cell)), "", cell);
        }
        putchar('\n');
    }
    free(cells);
    if (nrows < nrules) printf("(%zu more rules; -n 0 shows all)\n", nrules - nrows);
    printf("\nWhat to look at:\n");
    for (size_t i = 0; i < nhints; i++) printf("- %s\n", hints[i]);
}

/* JSON as the original prints it (keys in its order, two spaces of indent per
 * level, one member a line); "results" for several inputs and "moreRules" are
 * pego's. */
static void print_location(const char *key, uint64_t pos, int line, int col)
{
    printf("      \"%s\": {\n        \"pos\": %llu,\n        \"line\": %d,\n        \"col\": %d\n      },\n", key,
           (unsigned long long)pos, line, col);
}

static void print_json(const profile_config *c, const pego_collector_rule *rows, size_t nrows, size_t nrules,
                       const pego_collector_totals *t, const char *const *hints, size_t nhints)
{
    if (c->nresults == 1) {
        printf("{\n  \"result\": ");
        cli_print_json_string(stdout, c->results[0].result);
    } else {
        printf("{\n  \"results\": [");
        for (size_t i = 0; i < c->nresults; i++) {
            printf("%s\n    {\n      \"input\": ", i ? "," : "");
            cli_print_json_string(stdout, c->results[i].label);
            printf(",\n      \"result\": ");
            cli_print_json_string(stdout, c->results[i].result);
            printf("\n    }");
        }
        printf("%s]", c->nresults ? "\n  " : "");
    }
    printf(",\n  \"parses\": %llu,\n  \"calls\": %llu,\n  \"evals\": %llu,\n  \"memoHits\": %llu,\n"
           "  \"examined\": %llu,\n  \"time\": %llu,\n  \"rules\": [",
           (unsigned long long)t->parses, (unsigned long long)t->calls, (unsigned long long)t->evals,
           (unsigned long long)t->memo_hits, (unsigned long long)t->examined, (unsigned long long)t->time_ns);
    for (size_t i = 0; i < nrows; i++) {
        const pego_collector_rule *r = &rows[i];
        printf("%s\n    {\n      \"rule\": ", i ? "," : "");
        cli_print_json_string(stdout, r->name);
        printf(",\n      \"calls\": %llu,\n      \"memoHits\": %llu,\n      \"matched\": %llu,\n"
               "      \"failed\": %llu,\n      \"evals\": %llu,\n      \"consumed\": %llu,\n"
               "      \"wasted\": %llu,\n      \"longestFail\": %llu,\n",
               (unsigned long long)r->calls, (unsigned long long)r->memo, (unsigned long long)r->matched,
               (unsigned long long)r->failed, (unsigned long long)r->evals, (unsigned long long)r->consumed,
               (unsigned long long)r->wasted, (unsigned long long)r->longest_fail);
        print_location("longestFailAt", r->longest_fail_pos, r->longest_fail_line, r->longest_fail_col);
        printf("      \"repeats\": %llu,\n      \"maxEvals\": %llu,\n", (unsigned long long)r->repeats,
               (unsigned long long)r->max_evals);
        print_location("maxEvalsAt", r->max_evals_pos, r->max_evals_line, r->max_evals_col);
        printf("      \"time\": %llu,\n      \"selfTime\": %llu\n    }", (unsigned long long)r->time_ns,
               (unsigned long long)r->self_ns);
    }
    printf("%s],\n  \"moreRules\": %zu,\n  \"hints\": [", nrows ? "\n  " : "", nrules - nrows);
    for (size_t i = 0; i < nhints; i++) {
        printf("%s\n    ", i ? "," : "");
        cli_print_json_string(stdout, hints[i]);
    }
    printf("%s]\n}\n", nhints ? "\n  " : "");
}

/* Parses one input into the collector and keeps its result. */
static int profile_one(cli_input *in, const char *prefix, const char *label, const char *data, size_t len,
                       void *ctx)
{
    profile_config *c = ctx;
    const pego_result *r;
    char pre[4096] = "";
    if (prefix) snprintf(pre, sizeof pre, "%s: ", prefix);
    pego_status st = cli_input_parse(in, pre, label, data, len, &r);
    if (st == PEGO_EREAD) return 1;      /* said already */
    void *a = realloc(c->results, (c->nresults + 1) * sizeof *c->results);
    if (!a) {
        cli_error("out of memory");
        return 1;
    }
    c->results = a;
    c->results[c->nresults].label = strdup(label);
    c->results[c->nresults].result = result_text(st, r);
    if (!c->results[c->nresults].label || !c->results[c->nresults].result) {
        free(c->results[c->nresults].label);
        free(c->results[c->nresults].result);
        cli_error("out of memory");
        return 1;
    }
    c->nresults++;
    return 0;
}

static int print_profile(profile_config *c)
{
    size_t nrules = pego_collector_rule_count(c->collector), nhints;
    pego_collector_rule *rows = malloc((nrules + 1) * sizeof *rows);
    const char *const *hints = pego_collector_hints(c->collector, &nhints);
    if (!rows || !hints) {
        free(rows);
        cli_error("out of memory");
        return EXIT_ERRORS;
    }
    uint64_t total_self = 0;
    for (size_t i = 0; i < nrules; i++) {
        pego_collector_get_rule(c->collector, i, &rows[i]);
        total_self += rows[i].self_ns;
    }
    sort_key = c->sort;
    qsort(rows, nrules, sizeof *rows, compare_rules);
    size_t nrows = c->limit && (size_t)c->limit < nrules ? (size_t)c->limit : nrules;
    pego_collector_totals t;
    pego_collector_get_totals(c->collector, &t);
    if (c->json) print_json(c, rows, nrows, nrules, &t, hints, nhints);
    else print_text(c, rows, nrows, nrules, &t, total_self, hints, nhints);
    free(rows);
    return 0;
}

/* The flags of pego profile besides the input flags. */
static int profile_flag(int ch, const char *arg, void *ctx)
{
    profile_config *c = ctx;
    switch (ch) {
    case OPT_SORT:
        for (c->sort = 0; sort_keys[c->sort] && strcmp(sort_keys[c->sort], arg); c->sort++) continue;
        if (!sort_keys[c->sort]) {
            cli_error("unknown sort key %s (self, time, calls, evals, memo, failed, repeats, consumed, "
                      "wasted or name)", arg);
            return CLI_FLAG_BAD;
        }
        return CLI_FLAG_OK;
    case OPT_COUNT: return cli_count_flag(arg, &c->limit, "shows all");
    case OPT_FORMAT: return cli_text_or_json(arg, &c->json);
    case OPT_HELP: fputs(profile_usage, stdout); return CLI_FLAG_HELP;
    default: return CLI_FLAG_UNKNOWN;
    }
}

int cmd_profile(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_INPUT_OPTIONS, CLI_MAX_DEPTH_OPTION, CLI_STREAM_OPTION, CLI_EDIT_OPTION,
        { "sort", required_argument, NULL, OPT_SORT }, { "n", required_argument, NULL, OPT_COUNT },
        { "f", required_argument, NULL, OPT_FORMAT },  { "help", no_argument, NULL, OPT_HELP },
        { "h", no_argument, NULL, OPT_HELP },          { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    profile_config c = { .limit = 30 };
    int done = cli_input_flags(&in, "profile", argc, argv, longopts, profile_flag, &c);
    if (done >= 0) return done;
    int status = cli_input_open(&in);
    if (!status) {
        c.collector = in.collector = pego_collector_new();   /* on the parse cli_input_parse reports */
        if (!c.collector) {
            cli_error("out of memory");
            status = EXIT_ERRORS;
        }
    }
    if (!status) status = cli_input_each(&in, profile_one, &c);
    if (!status || c.nresults) status = print_profile(&c) ? EXIT_ERRORS : status;
    cli_input_close(&in);
    pego_collector_free(c.collector);
    for (size_t i = 0; i < c.nresults; i++) {
        free(c.results[i].label);
        free(c.results[i].result);
    }
    free(c.results);
    return status;
}
