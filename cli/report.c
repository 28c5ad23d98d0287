/* pego report: reads report files and directories (report/reader.c), merges
 * them (report/merge.c) and prints tables and hints, folded stacks, a flame
 * graph, a speedscope file, a pprof profile (report/pprof.c), or the differences between two sets of reports
 * with --fail thresholds for CI (docs/debugging.md, Reading reports). Exit status: 0, or 1
 * for bad usage (a detail-only metric asked for that no report has is one),
 * when nothing at all could be read, or when --strict and some input was
 * damaged; else 10 + N when the N-th --fail threshold was the first exceeded. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/pprof.h"
#include "report/reader.h"
#include "report/summary.h"

#define MAX_FAIL         100   /* --fail options: exit statuses 11 to 110 name them */
#define EXIT_FAILED_GATE 10    /* + the position of the first --fail exceeded */

static const char report_usage[] =
    "usage: pego report [flags] FILE|DIR...\n"
    "       pego report --diff BASE... --against NEW... [--fail '[total.]METRIC>+P%']...\n"
    "                   [--annotate github] [--flamegraph FILE]\n"
    "\n"
    "Summarizes report files written with --profile (every *.zst under a DIR).\n"
    "\n"
    "  --by METRIC        sort rules by self (default), time, calls, evals, memo, failed,\n"
    "                     repeats, consumed, wasted, node-bytes, memo-bytes or name\n"
    "                     (repeats and wasted need reports written with --profile-detail,\n"
    "                     node-bytes and memo-bytes with --profile-memory); with --diff,\n"
    "                     by the size of the metric's change (default calls)\n"
    "  -n N               rows per table (default 20 rules, 10 parses; 0: all)\n"
    "  --grammar NAME     only the grammar NAME (or NAME@HASH when names are shared)\n"
    "  --rule NAME        that rule's row, callers and callees\n"
    "  --parses           the parses table in full\n"
    "  --min-self PCT     hide rules below PCT percent of the self time\n"
    "  -f, --format FORMAT\n"
    "                     text (default), json, csv or markdown (the text with\n"
    "                     GitHub-flavoured tables, for a pull-request comment)\n"
    "  --folded           folded stacks (self time in us) for flamegraph.pl, inferno, speedscope\n"
    "  --weight WEIGHT    with --folded or --flamegraph: self, calls or bytes (the bytes\n"
    "                     of tree nodes built, from reports written with --profile-memory;\n"
    "                     default self; with --diff calls)\n"
    "  --with-lines       with --folded, --flamegraph, --speedscope: add a frame RULE:LINE\n"
    "                     below each rule for the self time sampled at each grammar line\n"
    "  --with-native      with --folded, --flamegraph, --speedscope: add the native frames\n"
    "                     below the VM the samples were in (trace sinks, allocation, the\n"
    "                     engine's own functions) below each rule (and RULE:LINE), from\n"
    "                     reports written with --profile-native in sampled mode\n"
    "  --lines GRAMMAR    the grammar's source, each line with its share of the self time,\n"
    "                     samples and self time (sampled reports), like pprof's -list\n"
    "  --callers          the host program's functions by the time of the parses they\n"
    "                     made, and the call sites of pego (from the caller records\n"
    "                     of reports written with --profile-native)\n"
    "  --flamegraph FILE  write a self-contained SVG flame graph (- for standard output):\n"
    "                     click a frame to zoom, Search (or / or Ctrl-F) to highlight the\n"
    "                     frames matching a regular expression (ic: ignoring case);\n"
    "                     with --diff, NEW's tree with red for paths that grew against\n"
    "                     BASE and blue for those that shrank\n"
    "  --title TEXT       with --flamegraph: its title\n"
    "  --width PIXELS     with --flamegraph: its width (default 1200, from 200 to 100000)\n"
    "  --speedscope FILE  write the calling-context tree in speedscope's format (- for\n"
    "                     standard output)\n"
    "  --pprof FILE       write the calling-context tree as a pprof profile (gzip-compressed\n"
    "                     profile.proto, for go tool pprof and continuous-profiling services;\n"
    "                     - for standard output)\n"
    "  --diff BASE...     compare BASE reports (files before --against) ...\n"
    "  --against NEW...   ... with NEW reports (files after it)\n"
    "  --fail SPEC        with --diff: fail when a rule's METRIC grows more than P%, a\n"
    "                     rule that appears counting as grown from 0 (SPEC METRIC>+P%),\n"
    "                     or the METRIC of all rules (SPEC total.METRIC>+P%; total.time\n"
    "                     is the parses' time); metrics as --by but name; repeatable;\n"
    "                     repeats and wasted need --profile-detail reports on both sides,\n"
    "                     node-bytes and memo-bytes --profile-memory reports\n"
    "  --annotate github  with --diff: also a GitHub workflow command (::error) per\n"
    "                     threshold exceeded, on standard output\n"
    "  --min-time TIME    time and self thresholds ignore increases below TIME (default 1ms)\n"
    "                     and, for sampled times, within the sampling error (3 standard\n"
    "                     deviations of the difference of the sample counts)\n"
    "  --strict           exit 1 when any input is damaged\n"
    "  -q                 no progress on standard error (shown on a terminal while the\n"
    "                     reports take more than a second to read: files read, rate,\n"
    "                     time left)\n"
    "\n"
    "The line under the first says how the reports were measured: their clocks, the\n"
    "mode and whether they have the detail-only metrics (repeats, wasted); those come\n"
    "from reports written with --profile-detail only, and show - where none has them.\n"
    "With sampled reports the rules table (with --diff, each side) has a samples\n"
    "column: the samples each rule's time rests on, its precision (exact reports add\n"
    "none).\n"
    "\n"
    "With --diff, rules that appear or disappear are rows of the table; the rows over a\n"
    "threshold are marked [fails SPEC] and always shown, and the thresholds exceeded\n"
    "are listed after the table (with -f json or csv, on standard error). With\n"
    "--flamegraph, the table is printed when -f, --fail or --annotate is given.\n"
    "\n"
    "Exit status: 0; 1 for bad usage (also --by or --fail on a detail-only metric that\n"
    "no report read has), when nothing could be read, or with --strict when some input\n"
    "was damaged; 10 + N when the first --fail exceeded is the N-th given (11 for the\n"
    "first).\n";

enum {
    OPT_BY, OPT_N, OPT_GRAMMAR, OPT_RULE, OPT_PARSES, OPT_MIN_SELF, OPT_FORMAT, OPT_FOLDED, OPT_WEIGHT,
    OPT_FLAMEGRAPH, OPT_SPEEDSCOPE, OPT_PPROF, OPT_DIFF, OPT_AGAINST, OPT_FAIL, OPT_MIN_TIME, OPT_STRICT, OPT_HELP,
    OPT_ANNOTATE, OPT_TITLE, OPT_WIDTH, OPT_QUIET, OPT_LINES, OPT_WITH_LINES, OPT_WITH_NATIVE,
    OPT_CALLERS,
};

static const struct option_def {
    const char *name;
    int         id, has_value;
} options[] = {
    { "by", OPT_BY, 1 },           { "n", OPT_N, 1 },              { "grammar", OPT_GRAMMAR, 1 },
    { "rule", OPT_RULE, 1 },       { "parses", OPT_PARSES, 0 },    { "min-self", OPT_MIN_SELF, 1 },
    { "f", OPT_FORMAT, 1 },        { "format", OPT_FORMAT, 1 },    { "folded", OPT_FOLDED, 0 },
    { "weight", OPT_WEIGHT, 1 },   { "flamegraph", OPT_FLAMEGRAPH, 1 }, { "speedscope", OPT_SPEEDSCOPE, 1 },
    { "pprof", OPT_PPROF, 1 },
    { "diff", OPT_DIFF, 0 },       { "against", OPT_AGAINST, 0 },  { "fail", OPT_FAIL, 1 },
    { "min-time", OPT_MIN_TIME, 1 }, { "strict", OPT_STRICT, 0 }, { "help", OPT_HELP, 0 },
    { "h", OPT_HELP, 0 },          { "annotate", OPT_ANNOTATE, 1 }, { "title", OPT_TITLE, 1 },
    { "width", OPT_WIDTH, 1 },     { "q", OPT_QUIET, 0 },           { "lines", OPT_LINES, 1 },
    { "with-lines", OPT_WITH_LINES, 0 }, { "with-native", OPT_WITH_NATIVE, 0 }, { "callers", OPT_CALLERS, 0 },
};

typedef struct report_config {
    rep_table_options table;
    const char       *grammar;
    int               rows_given, format_given, folded, weight_given, diff, strict, by_given, annotate_github;
    int               with_lines, with_native, callers;
    const char       *flamegraph, *speedscope, *pprof, *lines;
    rep_flame_options flame;            /* weight is --weight's for --folded too */
    int               width_given, quiet;
    rep_threshold    *fail;
    size_t            nfail;
    uint64_t          min_time_ns;
    char            **base, **now;     /* operands: before --against (or all), after it */
    size_t            nbase, nnow;
} report_config;

/* The progress of the reports being read, erased before a message. */
static cli_progress *reading;

/* Prints a reader message or an exceeded threshold behind "pego: ". */
static void print_message(void *ud, const char *text)
{
    (void)ud;
    cli_progress_erase(reading);
    cli_error("%s", text);
}

static uint64_t files_read(void *ud)
{
    return rep_reader_files_done(ud);
}

/* "1ms", "500us", "2s", "100ns", "0" to nanoseconds; -1 if malformed. */
static int parse_duration(const char *text, uint64_t *ns)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || !isfinite(v) || v < 0 || text[0] == '-' || text[0] == '+') return -1;
    double scale;
    if (strcmp(end, "ns") == 0) scale = 1;
    else if (strcmp(end, "us") == 0) scale = 1e3;
    else if (strcmp(end, "ms") == 0) scale = 1e6;
    else if (strcmp(end, "s") == 0) scale = 1e9;
    else if (*end == '\0' && v == 0) scale = 0;
    else return -1;
    if (v * scale >= 1.8e19) return -1;
    *ns = (uint64_t)(v * scale + 0.5);
    return 0;
}

static int parse_count(const char *text, size_t *n)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end || errno || text[0] == '-' || text[0] == '+' || text[0] == ' ') return -1;
    *n = (size_t)v;
    return 0;
}

/* Applies one option; returns 0, or 1 for --help, or -1 after a message. */
static int apply_option(report_config *c, int id, const char *name, const char *value)
{
    switch (id) {
    case OPT_BY: {
        int by = rep_by_parse(value);
        if (by < 0) {
            cli_error("--by takes self, time, calls, evals, memo, failed, repeats, consumed, wasted or name, "
                      "not %s", value);
            return -1;
        }
        c->table.by = (rep_by)by;
        c->by_given = 1;
        return 0;
    }
    case OPT_N:
        if (parse_count(value, &c->table.rows) < 0) {
            cli_error("-n takes a number of rows, not %s", value);
            return -1;
        }
        c->rows_given = 1;
        return 0;
    case OPT_GRAMMAR: c->grammar = value; return 0;
    case OPT_RULE: c->table.rule = value; return 0;
    case OPT_PARSES: c->table.all_parses = 1; return 0;
    case OPT_MIN_SELF: {
        char *end;
        double pct = strtod(value, &end);
        if (end == value || (*end && strcmp(end, "%") != 0) || !isfinite(pct) || pct < 0) {
            cli_error("--min-self takes a percentage, not %s", value);
            return -1;
        }
        c->table.min_self = pct;
        return 0;
    }
    case OPT_FORMAT:
        if (strcmp(value, "text") == 0) c->table.format = REP_FORMAT_TEXT;
        else if (strcmp(value, "json") == 0) c->table.format = REP_FORMAT_JSON;
        else if (strcmp(value, "csv") == 0) c->table.format = REP_FORMAT_CSV;
        else if (strcmp(value, "markdown") == 0) c->table.format = REP_FORMAT_MARKDOWN;
        else {
            cli_error("-f takes text, json, csv or markdown, not %s", value);
            return -1;
        }
        c->format_given = 1;
        return 0;
    case OPT_FOLDED: c->folded = 1; return 0;
    case OPT_WEIGHT:
        if (strcmp(value, "calls") != 0 && strcmp(value, "self") != 0 && strcmp(value, "bytes") != 0) {
            cli_error("--weight takes self, calls or bytes, not %s", value);
            return -1;
        }
        c->flame.weight = strcmp(value, "calls") == 0 ? REP_WEIGHT_CALLS
                        : strcmp(value, "bytes") == 0 ? REP_WEIGHT_BYTES : REP_WEIGHT_SELF;
        c->weight_given = 1;
        return 0;
    case OPT_FLAMEGRAPH: c->flamegraph = value; return 0;
    case OPT_SPEEDSCOPE: c->speedscope = value; return 0;
    case OPT_PPROF: c->pprof = value; return 0;
    case OPT_DIFF: c->diff = 1; return 0;
    case OPT_FAIL: {
        if (c->nfail == MAX_FAIL) {
            cli_error("--fail may be given at most %d times", MAX_FAIL);
            return -1;
        }
        rep_threshold *t = realloc(c->fail, (c->nfail + 1) * sizeof *t);
        if (!t) {
            cli_error("out of memory");
            return -1;
        }
        c->fail = t;
        if (rep_threshold_parse(value, &t[c->nfail]) < 0) {
            cli_error("--fail takes METRIC>+P%% or total.METRIC>+P%% (metrics self, time, calls, evals, memo, "
                      "failed, repeats, consumed, wasted), not %s", value);
            return -1;
        }
        c->nfail++;
        return 0;
    }
    case OPT_MIN_TIME:
        if (parse_duration(value, &c->min_time_ns) < 0) {
            cli_error("--min-time takes a duration such as 1ms, 500us or 0, not %s", value);
            return -1;
        }
        return 0;
    case OPT_STRICT: c->strict = 1; return 0;
    case OPT_QUIET: c->quiet = 1; return 0;
    case OPT_LINES: c->lines = value; return 0;
    case OPT_WITH_LINES: c->with_lines = 1; return 0;
    case OPT_WITH_NATIVE: c->with_native = 1; return 0;
    case OPT_CALLERS: c->callers = 1; return 0;
    case OPT_HELP: return 1;
    case OPT_TITLE: c->flame.title = value; return 0;
    case OPT_WIDTH: {
        size_t px;
        if (parse_count(value, &px) < 0 || px < 200 || px > 100000) {
            cli_error("--width takes a number of pixels from 200 to 100000, not %s", value);
            return -1;
        }
        c->flame.width = (unsigned)px;
        c->width_given = 1;
        return 0;
    }
    case OPT_ANNOTATE:
        if (strcmp(value, "github") != 0) {
            cli_error("--annotate takes github, not %s", value);
            return -1;
        }
        c->annotate_github = 1;
        return 0;
    }
    cli_error("unknown option %s", name);
    return -1;
}

/* Reads the command line: flags take one dash or two, values follow as the
 * next argument or after '='; operands before --against are the base side. */
static int parse_args(report_config *c, int argc, char **argv)
{
    int against = 0, only_operands = 0;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        if (only_operands || arg[0] != '-' || arg[1] == '\0') {
            if (against) c->now[c->nnow++] = arg;
            else c->base[c->nbase++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_operands = 1;
            continue;
        }
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const struct option_def *o = NULL;
        for (size_t k = 0; k < sizeof options / sizeof *options; k++)
            if (strlen(options[k].name) == len && strncmp(options[k].name, name, len) == 0) o = &options[k];
        if (!o) {
            cli_error("unknown flag %s (pego report --help lists them)", arg);
            return -1;
        }
        const char *value = NULL;
        if (o->has_value) {
            if (eq) value = eq + 1;
            else if (i + 1 < argc) value = argv[++i];
            else {
                cli_error("%s needs a value", arg);
                return -1;
            }
        } else if (eq) {
            cli_error("%.*s takes no value", (int)(eq - arg), arg);
            return -1;
        }
        if (o->id == OPT_AGAINST) {
            if (against) {
                cli_error("--against is given twice");
                return -1;
            }
            against = 1;
            continue;
        }
        int rc = apply_option(c, o->id, arg, value);
        if (rc) return rc;
    }
    if (against && !c->diff) {
        cli_error("--against needs --diff");
        return -1;
    }
    if (c->diff && (!against || !c->nbase || !c->nnow)) {
        cli_error("--diff needs base reports, then --against and new reports");
        return -1;
    }
    if (c->diff && (c->folded || c->speedscope || c->table.rule || c->table.all_parses)) {
        cli_error("--folded, --speedscope, --rule and --parses do not apply to --diff");
        return -1;
    }
    if ((c->flame.title || c->width_given) && !c->flamegraph) {
        cli_error("%s applies to --flamegraph only", c->flame.title ? "--title" : "--width");
        return -1;
    }
    if (c->weight_given && !c->folded && !c->flamegraph) {
        cli_error("--weight applies to --folded and --flamegraph only");
        return -1;
    }
    if (c->diff && !c->weight_given) c->flame.weight = REP_WEIGHT_CALLS;
    if ((c->with_lines || c->with_native) && (!(c->folded || c->flamegraph || c->speedscope) || c->pprof || c->diff)) {
        cli_error("%s applies to --folded, --flamegraph and --speedscope only",
                  c->with_lines ? "--with-lines" : "--with-native");
        return -1;
    }
    if (c->lines && (c->diff || c->folded || c->table.rule || c->table.all_parses || c->format_given)) {
        cli_error("--lines prints a listing of its own: not with --diff, --folded, --rule, --parses or -f");
        return -1;
    }
    if (c->callers && (c->diff || c->folded || c->lines || c->table.rule || c->table.all_parses || c->format_given)) {
        cli_error("--callers prints tables of its own: not with --diff, --folded, --lines, --rule, --parses or -f");
        return -1;
    }
    if (c->diff && c->pprof) {
        cli_error("--pprof does not apply to --diff (a profile is of one set of reports)");
        return -1;
    }
    if ((c->nfail || c->annotate_github) && !c->diff) {
        cli_error("%s needs --diff", c->nfail ? "--fail" : "--annotate");
        return -1;
    }
    if (c->annotate_github && (c->table.format == REP_FORMAT_JSON || c->table.format == REP_FORMAT_CSV)) {
        cli_error("--annotate applies to text and markdown output, not to -f %s",
                  c->table.format == REP_FORMAT_JSON ? "json" : "csv");
        return -1;
    }
    if (!c->nbase) {
        cli_error("no report files given (usage: pego report [flags] FILE|DIR...)");
        return -1;
    }
    return 0;
}

/* Which side has no report with the metrics an option collects, given the
 * processes of each side whose reports have them: NULL when every side read
 * has one, "" when none has (or there is one side), else "base " or "new ". */
static const char *side_missing(uint64_t in_base, const rep_summary *now, uint64_t in_now)
{
    if (in_base && (!now || in_now)) return NULL;
    if (!now || (!in_base && !in_now)) return "";
    return in_base ? "new " : "base ";
}

/* A --by, --fail or --weight on a metric that only some reports have
 * (--profile-detail's, --profile-memory's) needs reports that have it: 0, or
 * -1 after a message naming the option when none read (on a side) has it. */
static int metrics_needed(const report_config *c, const rep_summary *base, const rep_summary *now, int tables)
{
    static const struct {
        int (*needs)(rep_by by);
        int         memory;         /* the memory metrics, else the detail-only ones */
        const char *option;
    } kinds[] = { { rep_by_detail, 0, "--profile-detail" }, { rep_by_memory, 1, "--profile-memory" } };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        int memory = kinds[k].memory;
        uint64_t in_base = memory ? base->memory_processes : base->detail_processes;
        uint64_t in_now = !now ? 0 : memory ? now->memory_processes : now->detail_processes;
        const char *side = side_missing(in_base, now, in_now);
        if (!side) continue;
        if ((tables || (c->diff && c->by_given)) && kinds[k].needs(c->table.by)) {
            cli_error("--by %s: no %sreport was written with %s", rep_by_name(c->table.by), side, kinds[k].option);
            return -1;
        }
        if (memory && c->flame.weight == REP_WEIGHT_BYTES && (c->folded || c->flamegraph)) {
            cli_error("--weight bytes: no %sreport was written with %s", side, kinds[k].option);
            return -1;
        }
        for (size_t i = 0; i < c->nfail; i++) {
            char spec[64];
            if (!kinds[k].needs(c->fail[i].metric)) continue;
            rep_threshold_text(&c->fail[i], spec, sizeof spec);
            cli_error("--fail %s: no %sreport was written with %s", spec, side, kinds[k].option);
            return -1;
        }
    }
    return 0;
}

/* Reads the files of one side into a new summary; NULL after a message when
 * out of memory. */
static rep_summary *read_side(const report_config *c, const char *what, char **files, size_t n, uint64_t *problems,
                              uint64_t *frames)
{
    rep_summary_options so = { c->grammar, c->table.all_parses ? 0 : c->table.parse_rows, c->pprof != NULL,
                               c->with_lines, c->with_native };
    rep_summary *s = rep_summary_new(&so);
    rep_reader_sink sink = { 0 };
    if (s) rep_summary_sink(s, &sink);
    sink.message = print_message;
    rep_reader *r = s ? rep_reader_new(&sink) : NULL;
    int rc = r ? 0 : -1;
    if (r && cli_progress_wanted(c->quiet)) {
        uint64_t total = 0;
        for (size_t i = 0; i < n; i++) total += rep_count_reports(files[i]);
        reading = cli_progress_start(c->quiet, what, total, 0, files_read, r);
    }
    for (size_t i = 0; i < n && rc == 0; i++) rc = rep_read_path(r, files[i]);
    cli_progress_stop(reading);
    reading = NULL;
    if (r) {
        *problems += rep_reader_stats(r)->problems;
        *frames = rep_reader_stats(r)->frames;
    }
    rep_reader_free(r);
    if (rc == 0 && rep_summary_finish(s) < 0) rc = -1;
    if (rc < 0) {
        cli_error("out of memory");
        rep_summary_free(s);
        return NULL;
    }
    return s;
}

int cmd_report(int argc, char **argv)
{
    report_config c;
    memset(&c, 0, sizeof c);
    c.table.rows = 20;
    c.table.parse_rows = 10;
    c.min_time_ns = 1000000;
    c.flame.width = 1200;
    c.base = calloc((size_t)argc + 1, sizeof *c.base);
    c.now = calloc((size_t)argc + 1, sizeof *c.now);
    int status = EXIT_ERRORS, stdout_reported = 0;
    rep_summary *base = NULL, *now = NULL;
    if (!c.base || !c.now) {
        cli_error("out of memory");
        goto done;
    }
    int rc = parse_args(&c, argc, argv);
    if (rc == 1) {
        fputs(report_usage, stdout);
        status = 0;
        goto done;
    }
    if (rc < 0) goto done;
    if (c.rows_given) c.table.parse_rows = c.table.rows;

    uint64_t problems = 0, base_frames = 0, new_frames = 0;
    if (!(base = read_side(&c, c.diff ? "base reports" : "reports", c.base, c.nbase, &problems, &base_frames)))
        goto done;
    if (c.diff && !(now = read_side(&c, "new reports", c.now, c.nnow, &problems, &new_frames))) goto done;
    if (base_frames == 0 || (c.diff && new_frames == 0)) {
        if (c.diff)
            cli_error("nothing to compare: no report could be read from the %s reports",
                      base_frames == 0 ? "base" : "new");
        goto done;
    }

    int tables = !c.diff && !c.folded && !c.lines && !c.callers && !c.with_lines && !c.with_native &&
                 (c.format_given || (!c.flamegraph && !c.speedscope && !c.pprof));
    if (metrics_needed(&c, base, now, tables) < 0) goto done;

    char err[512];
    status = 0;
    if (c.diff && c.flamegraph && rep_write_diff_flamegraph(base, now, &c.flame, c.flamegraph, err, sizeof err) < 0) {
        cli_error("%s", err);
        status = EXIT_ERRORS;
        stdout_reported |= strcmp(c.flamegraph, "-") == 0;
    }
    if (c.diff && (!c.flamegraph || c.format_given || c.nfail || c.annotate_github)) {
        rep_diff_options o = { c.table.format, c.table.rows, c.fail, c.nfail, c.min_time_ns,
                               c.by_given ? c.table.by : REP_BY_CALLS, c.annotate_github };
        long failed = rep_print_diff(base, now, &o, stdout, print_message, NULL);
        if (failed < 0) cli_error("out of memory");
        if (failed != 0) status = failed < 0 ? EXIT_ERRORS : EXIT_FAILED_GATE + (int)failed;
    } else if (!c.diff) {
        /* a file written to standard output ("-") reports its own write error */
        if (c.flamegraph && rep_write_flamegraph(base, &c.flame, c.flamegraph, err, sizeof err) < 0) {
            cli_error("%s", err);
            status = EXIT_ERRORS;
            stdout_reported |= strcmp(c.flamegraph, "-") == 0;
        }
        if (c.speedscope && rep_write_speedscope(base, c.speedscope, err, sizeof err) < 0) {
            cli_error("%s", err);
            status = EXIT_ERRORS;
            stdout_reported |= strcmp(c.speedscope, "-") == 0;
        }
        if (c.pprof && rep_write_pprof(base, c.pprof, err, sizeof err) < 0) {
            cli_error("%s", err);
            status = EXIT_ERRORS;
        }
        if (c.folded) {
            if (rep_print_folded(base, c.flame.weight, stdout) < 0) {
                cli_error("out of memory");
                status = EXIT_ERRORS;
            }
        } else if (c.lines) {
            if (rep_print_lines(base, c.lines, stdout, err, sizeof err) < 0) {
                cli_error("%s", err);
                status = EXIT_ERRORS;
            }
        } else if (c.callers) {
            if (rep_print_callers(base, stdout, err, sizeof err) < 0) {
                cli_error("%s", err);
                status = EXIT_ERRORS;
            }
        } else if (tables) {
            if (rep_print_tables(base, &c.table, stdout, err, sizeof err) < 0) {
                cli_error("%s", err);
                status = EXIT_ERRORS;
            }
        }
    }
    if (c.strict && problems) status = EXIT_ERRORS;
    if (!stdout_reported && (fflush(stdout) != 0 || ferror(stdout))) {
        cli_error("cannot write standard output: %s", strerror(errno));
        status = EXIT_ERRORS;
    }
done:
    rep_summary_free(base);
    rep_summary_free(now);
    free(c.base);
    free(c.now);
    free(c.fail);
    return status;
}
