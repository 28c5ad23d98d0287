/* Out-of-memory tests, with the allocation countdown of runtime/alloc.c (this
 * program is built with PEGO_FAULT_INJECTION). Every fixture grammar is
 * compiled, and every fixture input parsed in each mode, with the N-th
 * allocation failing, for N = 1, 2, ... until a run reaches no failure. A run
 * must end in a clean out-of-memory status or with the result of the run
 * without failure, and a parser must parse correctly again afterwards. Each
 * N runs twice: with only the N-th allocation failing, so that the code after
 * it must recover, and with every allocation from the N-th on failing, so that
 * the error paths themselves run out of memory. Grammars written here add what
 * the fixtures do not use. Then the runtime profiler is started, fed and
 * flushed the same way: a failed flush must lose nothing. Last, stream parses
 * (pego_parse_stream) run the same way. */
#include <CUnit/Basic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "pego.h"
#include "fixtures.h"
#include "../compiler/program.h"    /* the grammar's file name */
#include "../runtime/alloc.h"       /* the countdown */

/* ---- text the test builds with its own allocator (never made to fail) ---- */

typedef struct {
    char  *data;
    size_t len, cap;
} text;

static void add(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->data = realloc(t->data, t->cap);
        if (!t->data) abort();
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = 0;
}

static void addf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(text *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    add(t, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void adds(text *t, const char *s) { add(t, s ? s : "(null)", strlen(s ? s : "(null)")); }

static int same(const text *a, const text *b)
{
    return strcmp(a->data ? a->data : "", b->data ? b->data : "") == 0;
}

/* Sets the countdown (rt_alloc_fault); n = 0 turns it off and keeps in
 * failures_seen how many allocations were made to fail since it was set. */
static uint64_t failures_seen;
static void faults(uint64_t n, int every)
{
    if (!n) failures_seen = rt_alloc_fault_failures();
    rt_alloc_fault(n, every);
}

static int runs, oom_runs, differences;

/* Reports a difference, showing got and want from the first line where they differ. */
static void report(const char *what, const char *where, uint64_t n, int every, const char *got, const char *want)
{
    if (differences++ >= 10) return;
    if (!got) got = "(nothing)";
    if (!want) want = "(nothing)";
    size_t at = 0;
    while (got[at] && got[at] == want[at]) at++;
    while (at && got[at - 1] != '\n') at--;
    fprintf(stderr, "\n  %s: %s, allocation %llu%s failing:\n    got:  %.200s\n    want: %.200s\n", where,
            what, (unsigned long long)n, every ? " and after" : "", got + at, want + at);
}

/* ---- compiling ---- */

/* What a compiled grammar is: its names and its programs. */
static void grammar_text(const pego_grammar *g, text *t)
{
    addf(t, "name %s file %s rules", pego_grammar_name(g), g->file ? g->file : "(null)");
    for (size_t i = 0; i < pego_grammar_rule_count(g); i++) addf(t, " %s", pego_grammar_rule_name(g, i));
    char *dis = pego_grammar_disassemble(g);
    adds(t, "\n");
    adds(t, dis);
    free(dis);
}

/* A grammar from its source text src, or from the file name when src is NULL. */
static pego_grammar *compile_one(const char *name, const char *src, pego_diag **diag)
{
    return src ? pego_compile(src, strlen(src), name, diag) : pego_compile_file(name, diag);
}

/* What compiling gave: the grammar, or the text of the diagnostic. */
static void compile_text(const pego_grammar *g, const pego_diag *diag, text *t)
{
    if (g) {
        grammar_text(g, t);
        return;
    }
    addf(t, "no grammar, %zu errors:\n", pego_diag_count(diag));
    adds(t, pego_diag_text(diag));
}

/* Compiles the grammar with the N-th allocation failing, for every N. */
static void compile_all(const char *name, const char *src)
{
    text want = { 0 };
    pego_diag *diag = NULL;
    pego_grammar *g = compile_one(name, src, &diag);
    compile_text(g, diag, &want);
    pego_grammar_free(g);
    pego_diag_free(diag);
    for (int every = 0; every < 2; every++) {
        for (uint64_t n = 1;; n++) {
            text got = { 0 };
            diag = NULL;
            faults(n, every);
            g = compile_one(name, src, &diag);
            faults(0, 0);
            runs++;
            compile_text(g, diag, &got);
            if (!g && pego_diag_count(diag) == 1 && strcmp(pego_diag_message(diag, 0), "out of memory") == 0 &&
                strcmp(pego_diag_text(diag), "out of memory") == 0 && failures_seen)
                oom_runs++;
            else if (!same(&got, &want))
                report("a different outcome", name, n, every, got.data, want.data);
            if (g) CU_ASSERT_PTR_NULL(diag);
            free(got.data);
            pego_diag_free(diag);
            pego_grammar_free(g);
            if (!failures_seen) break;
        }
    }
    free(want.data);
}

/* ---- parsing ---- */

typedef struct {
    const char *name;
    int recognize, reference;
    int trace;            /* a trace sink that reads every event, failure items included */
    int collector;        /* a profile collector */
    pego_memo_policy memo;
} config;

static const config configs[] = {
    { .name = "tree" },
    { .name = "tree, every rule memoized", .memo = PEGO_MEMO_ALL },
    { .name = "tree, reference program", .reference = 1 },
    { .name = "recognition", .recognize = 1 },
    { .name = "recognition, reference program", .recognize = 1, .reference = 1 },
    { .name = "tree, traced", .trace = 1 },
    { .name = "tree, profile collector", .collector = 1 },
    { .name = NULL }
};

/* The trace sink: every event as text. */
static int trace_event(const pego_trace_event *ev, void *ud)
{
    text *t = ud;
    int line, col;
    pego_trace_line_col(ev, ev->pos, &line, &col);
    addf(t, "%c%s@%llu(%d:%d)/%u", "+-MA"[ev->kind], ev->rule,
         (unsigned long long)ev->pos, line, col, ev->depth);
    if (ev->kind == PEGO_TRACE_EXIT) {
        addf(t, "%s%llu x%llu e%llu%s", ev->matched ? "=" : "!", (unsigned long long)ev->end,
             (unsigned long long)ev->examined, (unsigned long long)ev->evals, ev->memo ? " memo" : "");
        uint64_t far;
        size_t nitems;
        if (pego_trace_failure(ev, &far, &nitems)) {
            addf(t, " far %llu:", (unsigned long long)far);
            for (size_t i = 0; i < nitems; i++) addf(t, " %s", pego_trace_failure_item(ev, i));
        }
        for (size_t i = 0; i < ev->recovered; i++) addf(t, " [%s]", pego_trace_recovered_error(ev, i));
    }
    adds(t, "\n");
    return 0;
}

/* What a parse gave: status, error, expected items, recovered errors and the
 * printed tree. Printing under the countdown may fail (NULL), which a caller
 * then learns from *print_failed. */
static void result_text(const pego_result *r, int tree, text *t, int *print_failed)
{
    pego_status st = pego_result_status(r);
    addf(t, "status %d error ", (int)st);
    adds(t, pego_result_error(r));
    if (st == PEGO_SYNTAX_ERROR) {
        addf(t, "\nat %llu %d:%d message ", (unsigned long long)pego_result_error_offset(r),
             pego_result_error_line(r), pego_result_error_column(r));
        adds(t, pego_result_error_message(r));
        adds(t, "\nexpected");
        for (size_t i = 0; i < pego_result_expected_count(r); i++) addf(t, " %s", pego_result_expected(r, i));
    }
    if (st != PEGO_OK) return;
    for (size_t i = 0; i < pego_result_recovered_count(r); i++) addf(t, "\nrecovered %s", pego_result_recovered_error(r, i));
    if (!tree) return;
    for (int json = 0; json < 2; json++) {
        char *s = pego_result_print(r, json ? PEGO_PRINT_JSON : PEGO_PRINT_SEXPR);
        if (!s) *print_failed = 1;
        adds(t, "\n");
        adds(t, s);
        free(s);
    }
}

/* A collector's counts, rule by rule (times left out). */
static void collector_text(pego_collector *prof, text *t)
{
    pego_collector_totals tot;
    pego_collector_get_totals(prof, &tot);
    addf(t, "parses %llu calls %llu evals %llu memo %llu examined %llu", (unsigned long long)tot.parses,
         (unsigned long long)tot.calls, (unsigned long long)tot.evals, (unsigned long long)tot.memo_hits,
         (unsigned long long)tot.examined);
    for (size_t i = 0; i < pego_collector_rule_count(prof); i++) {
        pego_collector_rule r;
        pego_collector_get_rule(prof, i, &r);
        addf(t, "\n%s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", r.name, (unsigned long long)r.calls,
             (unsigned long long)r.evals, (unsigned long long)r.memo, (unsigned long long)r.matched,
             (unsigned long long)r.failed, (unsigned long long)r.repeats, (unsigned long long)r.max_repeats,
             (unsigned long long)r.max_repeats_pos, (unsigned long long)r.consumed, (unsigned long long)r.wasted);
    }
}

typedef struct {
    text result, trace, collector;
} outcome;

static void outcome_free(outcome *o)
{
    free(o->result.data);
    free(o->trace.data);
    free(o->collector.data);
    memset(o, 0, sizeof *o);
}

/* One parse of input with a parser of its own, the countdown set to (n,
 * every) from the parser's creation to the end of printing (n = 0: no
 * failure), into *o; then, when there is a parser, another parse with it and
 * no failure into *again. Returns -1 when out of memory ended the first
 * cleanly, 0 when it ended with a result, 1 when it did not end cleanly
 * (reported). */
static int parse_once(const pego_grammar *g, const char *file, const char *input, size_t len, const config *c,
                      uint64_t n, int every, outcome *o, outcome *again)
{
    pego_options opt = { .recognize = c->recognize, .reference = c->reference, .memo = c->memo };
    const pego_result *r;
    int print_failed = 0, status = 0;
    faults(n, every);
    pego_parser *p = pego_parser_new(g);
    pego_collector *prof = c->collector && p ? pego_collector_new() : NULL;
    if (p && c->trace) pego_parser_set_trace(p, trace_event, &o->trace);
    if (p && prof) pego_parser_add_collector(p, prof);
    pego_status st = p && (prof || !c->collector) ? pego_parse(p, input, len, &opt, &r) : PEGO_ENOMEM;
    if (p && (prof || !c->collector)) result_text(r, !c->recognize, &o->result, &print_failed);
    faults(0, 0);
    if (!p || (c->collector && !prof)) {
        status = failures_seen ? -1 : 1;
        if (status > 0) report("no parser, and no failure", file, n, every, "", "");
        goto done;
    }
    if (st == PEGO_ENOMEM) {
        status = -1;
        if (!failures_seen || strcmp(pego_result_error(r) ? pego_result_error(r) : "", "out of memory") != 0) {
            report("out of memory, but not cleanly", file, n, every, o->result.data, "");
            status = 1;
        }
    } else if (print_failed) {             /* the result stays: print it again */
        o->result.len = 0;
        print_failed = 0;
        result_text(r, !c->recognize, &o->result, &print_failed);
    }
    if (prof) {
        /* a collector that ran out of memory says so in its hints instead of its counts */
        size_t count;
        const char *const *hints = pego_collector_hints(prof, &count);
        if (count && strstr(hints[0], "ran out of memory")) adds(&o->collector, "incomplete");
        else collector_text(prof, &o->collector);
        pego_collector_reset(prof);
    }
    if (again) {
        if (c->trace) {
            pego_parser_remove_trace(p, trace_event, &o->trace);
            pego_parser_set_trace(p, trace_event, &again->trace);
        }
        pego_parse(p, input, len, &opt, &r);
        result_text(r, !c->recognize, &again->result, &print_failed);
        if (prof) collector_text(prof, &again->collector);
    }
done:
    pego_collector_free(prof);
    pego_parser_free(p);
    return status;
}

/* Parses one input in every mode of the list ctx (NULL: configs) with the
 * N-th allocation failing, for every N. */
static int parse_all(const pego_grammar *g, const char *file, const char *input, size_t len, void *ctx)
{
    int before = differences;
    for (const config *c = ctx ? ctx : configs; c->name; c++) {
        outcome want = { 0 };
        parse_once(g, file, input, len, c, 0, 0, &want, NULL);
        char where[4096];
        snprintf(where, sizeof where, "%s, %s", file, c->name);
        for (int every = 0; every < 2; every++) {
            for (uint64_t n = 1;; n++) {
                outcome got = { 0 }, again = { 0 };
                int status = parse_once(g, where, input, len, c, n, every, &got, &again);
                runs++;
                oom_runs += status < 0;
                if (status == 0) {
                    if (!same(&got.result, &want.result))
                        report("a different result", where, n, every, got.result.data, want.result.data);
                    if (!same(&got.trace, &want.trace))
                        report("a different trace", where, n, every, got.trace.data, want.trace.data);
                    if (!same(&got.collector, &want.collector) && strcmp(got.collector.data, "incomplete") != 0)
                        report("different counts", where, n, every, got.collector.data, want.collector.data);
                }
                if (again.result.data && (!same(&again.result, &want.result) || !same(&again.trace, &want.trace) ||
                                    !same(&again.collector, &want.collector)))
                    report("a wrong parse after it", where, n, every, again.result.data, want.result.data);
                outcome_free(&got);
                outcome_free(&again);
                if (!failures_seen) break;
            }
        }
        outcome_free(&want);
    }
    return differences - before;
}

/* The compile runs go with the first input of each grammar. */
static int compile_and_parse_all(const pego_grammar *g, const char *file, const char *input, size_t len, void *ctx)
{
    char *last = ctx;
    if (strcmp(last, pego_grammar_name(g)) != 0) {
        snprintf(last, 4096, "%s", pego_grammar_name(g));
        int before = differences;
        compile_all(last, NULL);
        if (differences > before) return differences - before;
    }
    return parse_all(g, file, input, len, NULL);
}

static void test_fixtures(void)
{
    char last[4096] = "";
    int grammars, inputs;
    int bad = fixtures_each(compile_and_parse_all, last, &grammars, &inputs);
    fprintf(stderr, "\n  %d grammars, %d inputs: %d runs, %d out of memory ", grammars, inputs, runs, oom_runs);
    CU_ASSERT(grammars >= 5 && inputs >= 20);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(differences, 0);
}

/* What the fixtures do not use: a syntax error after non-ASCII input (its
 * position in code points), captures (fields of a rule's value, of a called
 * value, in a repetition whose value is nil), captures in the lines of a
 * Pratt expression, and errors recovered inside a growing left-recursive
 * rule. */
static const struct {
    const char *name, *grammar, *inputs[4];
} extras[] = {
    { "code points", "def main = (\"\\u00e9\" / \"a\" / \"\\n\")* $$",
      { "a\xc3\xa9" "a\xc3\xa9" "x", "a\n\xc3\xa9\xc3\xa9\xff" "x", NULL } },
    { "fields", "def main = a:\"x\" b:(\"y\" / \"z\") c:item $$ def item = \"w\"", { "xyw", "xzw", "xq", NULL } },
    { "captures", "def main = (x:item)* rest:tail $$ def item = -\"a\" / \"b\" def tail = \"c\"*",
      { "abac", "ba", "abx", NULL } },
    { "pratt captures",
      "def main = e $$ def e = pratt { operand n:(@(?0-9)+) level { infix left sign:\"+\" } level { prefix neg:\"-\" } }",
      { "1+-2+3", "1+", NULL } },
    { "recovered in left recursion",
      "def main = list $$ def list = list \",\" item / item def item = (@(?a-z)+ \";\") #recover(skip=(?^,)*)",
      { "a;,b,c;", "a;,b", "a;,b,", NULL } },
};

/* Grammars with errors: lexical, syntax, definition and analysis errors,
 * refused features, and more errors than are reported. */
static const char *const bad_grammars[] = {
    "def main = (?a- \"\\q\" ~~~ \"open",
    "def main = ~ \"a\" def z = ( def w = \"b\"",
    "def main = x y def main = \"a\" def q = r:(-\"a\")",
    "type T = string def main: T = \"a\" -> 1 def p = [x = 1] \"b\"",
    "def main = e $$ def e = pratt { operand e \"x\" operand \"y\" }",
    NULL
};

/* A grammar with more undefined rules than errors are reported. */
static char *many_errors(void)
{
    text t = { 0 };
    for (int i = 0; i < 120; i++) addf(&t, "def r%d = undefined%d\n", i, i);
    return t.data;
}

/* A JSON array long enough to grow the memo table past its first size, when
 * every rule is memoized. */
static char *long_json(void)
{
    text t = { 0 };
    adds(&t, "[");
    for (int i = 0; i < 300; i++) addf(&t, "%s{\"k\": [%d, \"\\u00e9\"]}", i ? ", " : "", i);
    adds(&t, "]");
    return t.data;
}

static const config long_configs[] = {
    { .name = "tree" },
    { .name = "tree, every rule memoized", .memo = PEGO_MEMO_ALL },
    { .name = NULL }
};

static void test_extras(void)
{
    int before = differences, runs0 = runs, oom0 = oom_runs;
    for (int i = 0; bad_grammars[i]; i++) compile_all("bad", bad_grammars[i]);
    char *many = many_errors();
    compile_all("many errors", many);
    free(many);
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/json.pego", fixtures_srcdir());
    pego_grammar *json = pego_compile_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    char *input = long_json();
    parse_all(json, "a long JSON array", input, strlen(input), (void *)long_configs);
    free(input);
    pego_grammar_free(json);
    for (size_t i = 0; i < sizeof extras / sizeof extras[0]; i++) {
        compile_all(extras[i].name, extras[i].grammar);
        pego_grammar *g = pego_compile(extras[i].grammar, strlen(extras[i].grammar), extras[i].name, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        for (int k = 0; extras[i].inputs[k]; k++) {
            char where[256];
            snprintf(where, sizeof where, "%s: %s", extras[i].name, extras[i].inputs[k]);
            parse_all(g, where, extras[i].inputs[k], strlen(extras[i].inputs[k]), NULL);
        }
        pego_grammar_free(g);
    }
    fprintf(stderr, "\n  %d runs, %d out of memory ", runs - runs0, oom_runs - oom0);
    CU_ASSERT_EQUAL(differences, before);
}

/* ---- the runtime profiler ---- */

static char profile_dir[64], profile_file[128];

/* Runs at exit after the profiler has written its report there (atexit
 * handlers run in reverse order, and this one is registered first). */
static void remove_profile(void)
{
    unlink(profile_file);
    rmdir(profile_dir);
}

/* The records of the report file, times left out: each write converts the
 * clock's ticks at the rate it measures then. */
static void report_text(text *t)
{
    FILE *f = fopen(profile_file, "rb");
    text z = { 0 };
    char chunk[65536];
    size_t n;
    while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0) add(&z, chunk, n);
    if (f) fclose(f);
    unsigned long long size = z.len ? ZSTD_getFrameContentSize(z.data, z.len) : 0;
    if (!z.len || size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
        adds(t, "(no report)");
        free(z.data);
        return;
    }
    char *raw = malloc(size + 1);
    if (!raw) abort();
    size_t got = ZSTD_decompress(raw, size, z.data, z.len);
    if (ZSTD_isError(got)) got = 0;
    for (size_t i = 0; i < got; i++) {
        add(t, raw + i, 1);
        if (raw[i] == ':' && i >= 8 && memcmp(raw + i - 4, "_ns\"", 4) == 0)
            while (i + 1 < got && raw[i + 1] >= '0' && raw[i + 1] <= '9') i++;
    }
    free(raw);
    free(z.data);
}

static const config profiled[] = {
    { .name = "tree, profiled" },
    { .name = NULL }
};

/* The first input of each grammar, profiled. */
static int profile_fixture(const pego_grammar *g, const char *file, const char *input, size_t len, void *ctx)
{
    char *last = ctx;
    if (strcmp(last, pego_grammar_name(g)) == 0) return 0;
    snprintf(last, 4096, "%s", pego_grammar_name(g));
    return parse_all(g, file, input, len, (void *)profiled);
}

/* Profiled parses with the N-th allocation failing end as the others do (the
 * profiler keeps what it can); a flush with the N-th allocation failing
 * either writes the report or fails saying out of memory, leaving the file as
 * it was, and loses nothing: the next flush writes the same report. */
static void test_profiler(void)
{
    int before = differences, runs0 = runs, oom0 = oom_runs;
    snprintf(profile_dir, sizeof profile_dir, "/tmp/pego-oom-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(profile_dir));
    snprintf(profile_file, sizeof profile_file, "%s/report.zst", profile_dir);
    atexit(remove_profile);
    for (int every = 0; every < 2; every++) {
        for (uint64_t n = 1;; n++) {
            faults(n, every);
            int rc = pego_profile_start(profile_file, "--profile-detail");
            faults(0, 0);
            runs++;
            if (rc != 0) {
                oom_runs++;
                if (!failures_seen || !strstr(pego_profile_error(), "out of memory"))
                    report("a failed start", "the profiler", n, every, pego_profile_error(), "out of memory");
            } else if (!pego_profile_active()) {
                report("a start that did not start", "the profiler", n, every, "", "");
            }
            if (!failures_seen) break;
        }
    }
    CU_ASSERT_EQUAL_FATAL(pego_profile_start(profile_file, "--profile-detail"), 0);
    char last[4096] = "";
    int grammars, inputs;
    CU_ASSERT_EQUAL(fixtures_each(profile_fixture, last, &grammars, &inputs), 0);
    CU_ASSERT_EQUAL_FATAL(pego_profile_flush(), 0);
    text want = { 0 };
    report_text(&want);
    CU_ASSERT_PTR_NOT_NULL(strstr(want.data, "\"type\":\"parse\""));
    for (int every = 0; every < 2; every++) {
        for (uint64_t n = 1;; n++) {
            /* an error of another kind first, so that a failed flush must say its own */
            CU_ASSERT_NOT_EQUAL(pego_profile_start(NULL, "--no-such-option"), 0);
            faults(n, every);
            int rc = pego_profile_flush();
            faults(0, 0);
            runs++;
            text got = { 0 };
            report_text(&got);
            if (rc != 0) {
                oom_runs++;
                if (!failures_seen || !strstr(pego_profile_error(), "out of memory"))
                    report("a failed flush", "the profile", n, every, pego_profile_error(), "out of memory");
            }
            if (!same(&got, &want))
                report(rc ? "a failed flush that changed the report" : "a different report", "the profile", n, every,
                       got.data, want.data);
            got.len = 0;
            if (pego_profile_flush() != 0) report("no flush after it", "the profile", n, every, pego_profile_error(), "");
            report_text(&got);
            if (!same(&got, &want)) report("a different report after it", "the profile", n, every, got.data, want.data);
            free(got.data);
            if (!failures_seen) break;
        }
    }
    free(want.data);
    pego_profile_stop();
    fprintf(stderr, "\n  %d runs, %d out of memory ", runs - runs0, oom_runs - oom0);
    CU_ASSERT_EQUAL(differences, before);
}

/* ---- stream parses ---- */

typedef struct { const char *data; size_t len, at, piece; } stream_source;

static long stream_read(char *buf, size_t cap, void *ctx)
{
    stream_source *s = ctx;
    size_t n = s->len - s->at < s->piece ? s->len - s->at : s->piece;
    if (n > cap) n = cap;
    memcpy(buf, s->data + s->at, n);
    s->at += n;
    return (long)n;
}

/* Each element printed on its own line; a print that runs out of memory stops the parse. */
static int stream_element(const pego_result *r, const pego_node *n, void *ctx)
{
    text *t = ctx;
    char *s = pego_node_print(r, n, PEGO_PRINT_SEXPR);
    if (!s) return 12345;
    adds(t, s);
    adds(t, "\n");
    free(s);
    return 0;
}

/* Stream-parses input: the elements, then the status and error (or the recovered errors). */
static pego_status stream_once(pego_parser *p, const char *input, size_t piece, text *out)
{
    stream_source src = { input, strlen(input), 0, piece };
    const pego_result *r;
    pego_status st = pego_parse_stream(p, stream_read, &src, stream_element, out, NULL, &r);
    addf(out, "=> %d %s", (int)st, st == PEGO_OK ? "" : pego_result_error(r));
    for (size_t i = 0; st == PEGO_OK && i < pego_result_recovered_count(r); i++)
        addf(out, " [%s]", pego_result_recovered_error(r, i));
    return st;
}

/* Stream parses with every allocation failing in turn: each ends out of memory
 * (or stopped by a print that ran out), or as it would without failures; the
 * elements handed over before are those of the run without failures; the
 * parser then parses correctly again. */
static void test_stream(void)
{
    static const struct { const char *grammar, *input; } cases[] = {
        { "def main = -\"[\" xs:item* #stream -\"]\" $$ def item = n:@(?0-9)+ -\",\"?", "[1,22,333]" },
        { "def main = (stmt #recover(skip=(?^;)* \";\"))* #stream $$ def stmt = @(?a-z\u00e9)+ \";\"",
          "ab;1;\xc3\xa9;2;" },
        { "def main = (@(?a-z)){2,3} #stream t:@(?0-9)* $$", "abcd12x" },
    };
    int before = differences, runs0 = runs, oom0 = oom_runs;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        pego_grammar *g = pego_compile(cases[c].grammar, strlen(cases[c].grammar), "s.pego", NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        for (size_t piece = 1; piece <= 4; piece += 3) {
            pego_parser *p = pego_parser_new(g);
            text want = { 0 };
            stream_once(p, cases[c].input, piece, &want);
            pego_parser_free(p);
            for (int every = 0; every < 2; every++) {
                for (uint64_t n = 1;; n++) {
                    text got = { 0 }, again = { 0 };
                    p = pego_parser_new(g);
                    faults(n, every);
                    pego_status st = p ? stream_once(p, cases[c].input, piece, &got) : PEGO_ENOMEM;
                    faults(0, 0);
                    runs++;
                    const char *end = got.data ? strstr(got.data, "=> ") : NULL;
                    size_t handed = end ? (size_t)(end - got.data) : 0;
                    if (st == PEGO_ENOMEM || st == PEGO_ECALLBACK) {
                        oom_runs++;
                        if (!failures_seen || (handed && strncmp(got.data, want.data, handed) != 0))
                            report("a wrong out-of-memory stream parse", cases[c].grammar, n, every, got.data, want.data);
                    } else if (!same(&got, &want)) {
                        report("a different stream parse", cases[c].grammar, n, every, got.data, want.data);
                    }
                    if (p) {
                        stream_once(p, cases[c].input, piece, &again);
                        if (!same(&again, &want))
                            report("a wrong stream parse after it", cases[c].grammar, n, every, again.data, want.data);
                    }
                    pego_parser_free(p);
                    free(got.data);
                    free(again.data);
                    if (!failures_seen) break;
                }
            }
            free(want.data);
        }
        pego_grammar_free(g);
    }
    fprintf(stderr, "\n  %d runs, %d out of memory ", runs - runs0, oom_runs - oom0);
    CU_ASSERT(oom_runs - oom0 > 50);
    CU_ASSERT_EQUAL(differences, before);
}

/* A document's parse: the S-expression, or the status and error. */
static void document_outcome(pego_document *d, text *out)
{
    const pego_result *r;
    pego_status st = pego_document_parse(d, &r);
    char *tree = st == PEGO_OK ? pego_result_print(r, PEGO_PRINT_SEXPR) : NULL;
    if (st == PEGO_OK && !tree) st = PEGO_ENOMEM;     /* the print ran out */
    addf(out, "%d %s", (int)st, st == PEGO_OK ? tree : pego_result_error(r));
    free(tree);
}

/* A fresh parse of the document's text, as document_outcome renders it. */
static void fresh_outcome(const pego_grammar *g, pego_document *d, text *out)
{
    size_t len;
    const char *t = pego_document_text(d, &len);
    pego_parser *p = pego_parser_new(g);
    const pego_result *r;
    pego_status st = pego_parse(p, t, len, NULL, &r);
    char *tree = st == PEGO_OK ? pego_result_print(r, PEGO_PRINT_SEXPR) : NULL;
    addf(out, "%d %s", (int)st, st == PEGO_OK ? tree : pego_result_error(r));
    free(tree);
    pego_parser_free(p);
}

/* Documents with every allocation failing in turn: a parse ends out of memory
 * or as a fresh parse of the same text; an edit out of memory leaves the text
 * as it was; and the document then parses as a fresh parse does. */
static void test_document(void)
{
    static const struct { const char *grammar, *input; } cases[] = {
        { "def main = (w -\" \"?)* $$ def w = @(?a-z)+ / n:@(?0-9)+", "ab 12 cd 345 ef" },
        { "def main = (stmt #recover(skip=(?^;)* \";\"))* $$ def stmt = @(?a-z)+ \";\"", "ab;1;cd;2;" },
    };
    static const struct { unsigned start, end; const char *with; } edits[] = { { 3, 4, "9" }, { 0, 0, "x" }, { 5, 7, "" } };
    int before = differences, runs0 = runs, oom0 = oom_runs;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        pego_grammar *g = pego_compile(cases[c].grammar, strlen(cases[c].grammar), "d.pego", NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        for (int every = 0; every < 2; every++) {
            for (uint64_t n = 1;; n++) {
                text got = { 0 }, want = { 0 };
                int failed = 0;     /* an allocation was made to fail */
                faults(n, every);
                pego_document *d = pego_document_new(g, cases[c].input, strlen(cases[c].input), NULL);
                int oom = !d;
                for (size_t k = 0; d && k <= sizeof edits / sizeof *edits; k++) {
                    text one = { 0 };
                    document_outcome(d, &one);
                    faults(0, 0);
                    if (failures_seen) failed = 1;
                    text fresh = { 0 };
                    fresh_outcome(g, d, &fresh);
                    if (strncmp(one.data, "4 ", 2) == 0) oom = 1;
                    else if (!same(&one, &fresh))
                        report("a wrong document parse", cases[c].grammar, n, every, one.data, fresh.data);
                    free(one.data);
                    free(fresh.data);
                    if (k == sizeof edits / sizeof *edits) break;
                    faults(n, every);
                    size_t before_len;
                    pego_document_text(d, &before_len);
                    pego_status st = pego_document_edit(d, edits[k].start, edits[k].end, edits[k].with, strlen(edits[k].with));
                    size_t after_len;
                    pego_document_text(d, &after_len);
                    if (st == PEGO_ENOMEM) {
                        oom = 1;
                        if (after_len != before_len) report("an edit out of memory changed the text", cases[c].grammar, n, every, "", "");
                    }
                }
                faults(0, 0);
                if (failures_seen) failed = 1;
                runs++;
                if (oom) oom_runs++;
                if (d) {
                    document_outcome(d, &got);
                    fresh_outcome(g, d, &want);
                    if (!same(&got, &want)) report("a wrong document parse after it", cases[c].grammar, n, every, got.data, want.data);
                }
                pego_document_free(d);
                free(got.data);
                free(want.data);
                if (!failed && !oom) break;
            }
        }
        pego_grammar_free(g);
    }
    fprintf(stderr, "\n  %d runs, %d out of memory ", runs - runs0, oom_runs - oom0);
    CU_ASSERT(oom_runs - oom0 > 50);
    CU_ASSERT_EQUAL(differences, before);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("oom", NULL, NULL);
    CU_add_test(s, "every allocation of compiling and parsing the fixtures fails in turn", test_fixtures);
    CU_add_test(s, "the same for grammar errors, fields, Pratt fields, recovery in left recursion", test_extras);
    CU_add_test(s, "profiled parses, and flushing the profiler's report", test_profiler);
    CU_add_test(s, "stream parses", test_stream);
    CU_add_test(s, "documents", test_document);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    int failed = (int)CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
