/* pego-bench: times pego_parse in-process on one grammar and one input, for bench/run.
 *
 *   pego-bench [options] GRAMMAR INPUT...
 *
 * The grammar is compiled and the input read into memory once; the input is then
 * parsed (after untimed warm-up parses) REPS times with one parser, reading
 * CLOCK_MONOTONIC around each pego_parse call only. Every parse must succeed: the
 * driver checks the status (and, in tree mode, that a tree was built), so no figure
 * comes from a parse that did nothing. On success it prints one line of key=value
 * pairs that bench/run reads:
 *
 *   ok bytes=N reps=N median_ns=N min_ns=N max_ns=N mbps=X nodes=N memo=N
 *
 * With several inputs, the parses take the inputs in turn (the first input, the
 * second, ..., then the first again), so that a drift of the machine's speed hits
 * every input alike, and one line is printed per input, in the order given (the
 * profile-accuracy benchmark compares the times of inputs with one another).
 *
 * mbps is 10^6 input bytes per second at the median time. Exit status: 0 when every
 * parse matched (with --reject: was rejected), 1 when the input was rejected (accepted) (the syntax error goes to standard
 * error), 2 on a usage, grammar or I/O error, or any other failure.
 *
 * Options:
 *   --mode recognize|tree  recognition only (-check) or a concrete syntax tree (default)
 *   --reps N               timed parses (default 5)
 *   --warmup N             untimed parses before them (default 1)
 *   --once                 one parse, untimed (for callgrind: bench_parse_once is the
 *                          function to collect); one input only
 *   --no-parse             compile and read only: the baseline for memory measurements;
 *                          one input only
 *   --memo default|all|none  memo policy of the parse
 *   --start RULE           start rule (default main)
 *   --max-depth N          nesting limit in rule calls (pego_options.max_depth; default
 *                          the library's)
 *   --reference            run the reference program (pego_options.reference), not the
 *                          fast program an unobserved parse runs
 *   --reject               every parse must end in a syntax error instead (the cost of
 *                          an error: the inputs are corrupted copies)
 *   --stats                every parse also gives its statistics, as pego parse -stats
 *                          does (pego_options.count_stats, then pego_result_stats, both
 *                          inside the timed parse and bench_parse_once)
 *   --trace-noop           attach a trace sink that does nothing (only in a driver built
 *                          with -DPEGO_BENCH_TRACE, against a library with tracing)
 *   --stream               a stream parse (pego_parse_stream, tree mode only): each parse
 *                          reads INPUT from its file in the pieces the parser asks for,
 *                          the elements are counted and dropped, and the file is never
 *                          held whole (the line then ends in elements=N)
 *   --cpu-time             time with the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID),
 *                          not CLOCK_MONOTONIC: the time other processes take while the
 *                          parse waits for a core is not counted (for comparing inputs
 *                          on a shared machine); the line then ends in clock=thread-cpu */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pego.h"

static const char *progname = "pego-bench";

static void usage(void)
{
    fprintf(stderr,
            "usage: %s [--mode recognize|tree] [--reps N] [--warmup N] [--once] [--no-parse]\n"
            "       [--memo default|all|none] [--start RULE] [--max-depth N] [--reference] [--reject] [--stats]\n"
            "       [--trace-noop] [--stream] [--cpu-time]\n"
            "       GRAMMAR INPUT...\n",
            progname);
    exit(2);
}

/* Reads a whole file into a malloc'd buffer; exits with status 2 on failure. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", progname, path, strerror(errno));
        exit(2);
    }
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fprintf(stderr, "%s: %s: out of memory\n", progname, path);
            exit(2);
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        char *bigger = realloc(buf, cap);
        if (!bigger)
            free(buf);
        buf = bigger;
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: %s: read error\n", progname, path);
        exit(2);
    }
    fclose(f);
    *len = n;
    return buf;
}

/* For --stream: a copy of the file's name, and its size in *len; exits with
 * status 2 when it cannot be read. */
static char *file_name(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (!f || size < 0) {
        fprintf(stderr, "%s: %s: %s\n", progname, path, strerror(errno));
        exit(2);
    }
    fclose(f);
    *len = (size_t)size;
    char *name = strdup(path);
    if (!name) {
        fprintf(stderr, "%s: out of memory\n", progname);
        exit(2);
    }
    return name;
}

static int parse_count(const char *s, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || x < 0)
        return -1;
    *v = x;
    return 0;
}

static clockid_t timing_clock = CLOCK_MONOTONIC;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(timing_clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int stats;     /* --stats: every parse gives its statistics */
static int stream;    /* --stream: the inputs are file names, parsed as streams */
static uint64_t elements;   /* the elements the last stream parse handed over */

static long read_piece(char *buf, size_t cap, void *ctx)
{
    size_t n = fread(buf, 1, cap, ctx);
    return n == 0 && ferror((FILE *)ctx) ? -1 : (long)n;
}

static int count_element(const pego_result *r, const pego_node *element, void *ctx)
{
    (void)r;
    (void)element;
    ++*(uint64_t *)ctx;
    return 0;
}

/* One parse, kept out of line and uncloned so that callgrind's --toggle-collect can
 * count exactly the instructions of the parse call (with --stream, the reads of the
 * file too). */
__attribute__((noinline, noclone)) pego_status bench_parse_once(pego_parser *p, const char *input,
                                                                size_t len, const pego_options *opt,
                                                                const pego_result **res)
{
    pego_status st;
    if (stream) {
        FILE *f = fopen(input, "rb");
        if (!f) {
            fprintf(stderr, "%s: %s: %s\n", progname, input, strerror(errno));
            exit(2);
        }
        elements = 0;
        st = pego_parse_stream(p, read_piece, f, count_element, &elements, opt, res);
        fclose(f);
    } else {
        st = pego_parse(p, input, len, opt, res);
    }
    if (stats) (void)pego_result_stats(*res);
    return st;
}

#ifdef PEGO_BENCH_TRACE
static int trace_noop(const pego_trace_event *ev, void *userdata)
{
    (void)ev;
    (void)userdata;
    return 0;
}
#endif

static int reject;    /* --reject: parses must end in a syntax error */

/* Checks one parse: 0 when it matched (and built a tree in tree mode), or with
 * --reject when it ended in a syntax error; else prints the reason and returns the
 * exit status. */
static int check_result(pego_status st, const pego_result *res, int recognize, const char *input_name)
{
    if (reject) {
        if (st == PEGO_SYNTAX_ERROR)
            return 0;
        fprintf(stderr, "%s: %s: %s\n", progname, input_name,
                st == PEGO_OK ? "accepted, with --reject" : "parse failed, with --reject");
        return st == PEGO_OK ? 1 : 2;
    }
    if (st == PEGO_SYNTAX_ERROR) {
        fprintf(stderr, "%s: %s: rejected: %s\n", progname, input_name, pego_result_error(res));
        return 1;
    }
    if (st != PEGO_OK) {
        const char *msg = pego_result_error(res);
        fprintf(stderr, "%s: %s: parse failed (status %d): %s\n", progname, input_name, (int)st,
                msg ? msg : "no message");
        return 2;
    }
    if (stream && elements == 0) {
        fprintf(stderr, "%s: %s: the stream parse handed over no element\n", progname, input_name);
        return 2;
    }
    if (!stream && !recognize && pego_result_node_count(res) == 0) {
        fprintf(stderr, "%s: %s: tree mode built no tree\n", progname, input_name);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = "tree", *memo = "default", *start = NULL;
    long reps = 5, warmup = 1, max_depth = 0;
    int once = 0, no_parse = 0, trace = 0, reference = 0;
    int i;
    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (strcmp(a, "--mode") == 0 && has_value)
            mode = argv[++i];
        else if (strcmp(a, "--reps") == 0 && has_value) {
            if (parse_count(argv[++i], &reps) != 0 || reps < 1)
                usage();
        } else if (strcmp(a, "--warmup") == 0 && has_value) {
            if (parse_count(argv[++i], &warmup) != 0)
                usage();
        } else if (strcmp(a, "--memo") == 0 && has_value)
            memo = argv[++i];
        else if (strcmp(a, "--start") == 0 && has_value)
            start = argv[++i];
        else if (strcmp(a, "--max-depth") == 0 && has_value) {
            if (parse_count(argv[++i], &max_depth) != 0 || max_depth < 1 || max_depth > UINT32_MAX)
                usage();
        }
        else if (strcmp(a, "--once") == 0)
            once = 1;
        else if (strcmp(a, "--no-parse") == 0)
            no_parse = 1;
        else if (strcmp(a, "--trace-noop") == 0)
            trace = 1;
        else if (strcmp(a, "--reference") == 0)
            reference = 1;
        else if (strcmp(a, "--reject") == 0)
            reject = 1;
        else if (strcmp(a, "--stats") == 0)
            stats = 1;
        else if (strcmp(a, "--stream") == 0)
            stream = 1;
        else if (strcmp(a, "--cpu-time") == 0)
            timing_clock = CLOCK_THREAD_CPUTIME_ID;
        else
            usage();
    }
    if (argc - i < 2 || ((once || no_parse) && argc - i != 2))
        usage();
    const char *grammar_path = argv[i];
    const char *const *input_paths = (const char *const *)argv + i + 1;
    size_t n_inputs = (size_t)(argc - i - 1);

    pego_options opt = { 0 };
    opt.start_rule = start;
    opt.unit = PEGO_UNIT_CODEPOINTS;
    opt.reference = reference;
    opt.max_depth = (uint32_t)max_depth;
    opt.count_stats = stats;
    if (strcmp(mode, "recognize") == 0)
        opt.recognize = 1;
    else if (strcmp(mode, "tree") != 0)
        usage();
    if (stream && opt.recognize) {
        fprintf(stderr, "%s: --stream parses build trees: --mode tree\n", progname);
        return 2;
    }
    if (strcmp(memo, "default") == 0)
        opt.memo = PEGO_MEMO_DEFAULT;
    else if (strcmp(memo, "all") == 0)
        opt.memo = PEGO_MEMO_ALL;
    else if (strcmp(memo, "none") == 0)
        opt.memo = PEGO_MEMO_NONE;
    else
        usage();
#ifndef PEGO_BENCH_TRACE
    if (trace) {
        fprintf(stderr, "%s: --trace-noop: this driver was built without tracing\n", progname);
        return 2;
    }
#endif

    pego_diag *diag = NULL;
    pego_grammar *g = pego_compile_file(grammar_path, &diag);
    if (!g) {
        fprintf(stderr, "%s\n", diag ? pego_diag_text(diag) : "pego-bench: cannot compile the grammar");
        pego_diag_free(diag);
        return 2;
    }
    pego_diag_free(diag);
    char **inputs = malloc(n_inputs * sizeof *inputs);
    size_t *lens = malloc(n_inputs * sizeof *lens);
    if (!inputs || !lens) {
        fprintf(stderr, "%s: out of memory\n", progname);
        return 2;
    }
    for (size_t k = 0; k < n_inputs; k++)
        inputs[k] = stream ? file_name(input_paths[k], &lens[k]) : read_file(input_paths[k], &lens[k]);
    const char *input = inputs[0], *input_path = input_paths[0];
    size_t len = lens[0];
    pego_parser *p = pego_parser_new(g);
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", progname);
        return 2;
    }
#ifdef PEGO_BENCH_TRACE
    if (trace && pego_parser_set_trace(p, trace_noop, NULL) != 0) {
        fprintf(stderr, "%s: cannot attach a trace sink\n", progname);
        return 2;
    }
#endif

    int status = 0;
    const pego_result *res = NULL;
    if (no_parse) {
        printf("ok bytes=%zu reps=0\n", len);
    } else if (once) {
        pego_status st = bench_parse_once(p, input, len, &opt, &res);
        status = check_result(st, res, opt.recognize, input_path);
        if (status == 0 && stream)
            printf("ok bytes=%zu reps=1 elements=%" PRIu64 "\n", len, elements);
        else if (status == 0)
            printf("ok bytes=%zu reps=1 nodes=%zu\n", len, pego_result_node_count(res));
    } else {
        /* times[k * reps + r]: the r-th timed parse of input k */
        uint64_t *times = malloc(n_inputs * (size_t)reps * sizeof *times);
        size_t *nodes = malloc(n_inputs * sizeof *nodes);
        uint64_t *elems = calloc(n_inputs, sizeof *elems);
        uint64_t *memo_stored = malloc(n_inputs * sizeof *memo_stored);
        if (!times || !nodes || !memo_stored || !elems) {
            fprintf(stderr, "%s: out of memory\n", progname);
            return 2;
        }
        for (long r = 0; r < warmup + reps && status == 0; r++) {
            for (size_t k = 0; k < n_inputs && status == 0; k++) {
                uint64_t t0 = now_ns();
                pego_status st = bench_parse_once(p, inputs[k], lens[k], &opt, &res);
                uint64_t t1 = now_ns();
                status = check_result(st, res, opt.recognize, input_paths[k]);
                if (r >= warmup)
                    times[k * (size_t)reps + (size_t)(r - warmup)] = t1 - t0;
                if (status == 0 && r == warmup + reps - 1) {
                    nodes[k] = pego_result_node_count(res);
                    memo_stored[k] = pego_result_stats(res)->memo_stored;
                    elems[k] = elements;
                }
            }
        }
        for (size_t k = 0; k < n_inputs && status == 0; k++) {
            uint64_t *t = times + k * (size_t)reps;
            qsort(t, (size_t)reps, sizeof *t, compare_u64);
            uint64_t median = reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
            if (median == 0)
                median = 1;
            printf("ok bytes=%zu reps=%ld median_ns=%" PRIu64 " min_ns=%" PRIu64 " max_ns=%" PRIu64
                   " mbps=%.2f nodes=%zu memo=%" PRIu64 "%s",
                   lens[k], reps, median, t[0], t[reps - 1], (double)lens[k] * 1e3 / (double)median,
                   nodes[k], memo_stored[k], timing_clock == CLOCK_MONOTONIC ? "" : " clock=thread-cpu");
            if (stream) printf(" elements=%" PRIu64, elems[k]);
            printf("\n");
        }
        free(times);
        free(nodes);
        free(memo_stored);
        free(elems);
    }
    pego_parser_free(p);
    pego_grammar_free(g);
    for (size_t k = 0; k < n_inputs; k++)
        free(inputs[k]);
    free(inputs);
    free(lens);
    return status;
}
