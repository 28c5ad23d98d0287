/* Tests of tracing: exact event sequences on small grammars, the fields of exit
 * events (memo, evaluations, examined, failure), aborting from a callback, and
 * the equivalence harness: every fixture grammar and input parsed untraced and
 * traced, with the default memo policy and with memoization off, in tree and
 * recognition mode, must give identical results, errors and statistics, with
 * well-nested events whose evaluations add up. Mutation tests run the harness
 * against deliberately broken engines (this program is built with
 * PEGO_FAULT_INJECTION) and require it to report differences. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"
#include "fixtures.h"
#include "../compiler/program.h"   /* has_fast: the harness also checks the fast program */
#include "../runtime/parser.h"    /* decided: which run decided a syntax error */

extern int vm_fault_skip_traced_merge;
extern int vm_fault_memoize_traced;
extern int vm_fault_fast_span;
extern int vm_fault_fast_pratt;
extern int vm_fault_fast_pratt_skip;
extern int vm_fault_decide_unchecked;
extern int vm_fault_probe_end;
extern int vm_fault_claim_unchecked;
extern uint32_t vm_pair_from;

/* ---- a sink that writes events as compact text ---- */
typedef struct {
    char  buf[8192];
    size_t len;
    int   abort_after;    /* abort at this event number (1-based), 0: never */
    int   count;
} text_sink;

static int text_event(const pego_trace_event *ev, void *ud)
{
    text_sink *t = ud;
    t->count++;
    int n;
    if (ev->kind == PEGO_TRACE_ENTER)
        n = snprintf(t->buf + t->len, sizeof t->buf - t->len, "+%s@%llu/%u%s ", ev->rule,
                     (unsigned long long)ev->pos, ev->depth, ev->lookahead ? "L" : "");
    else
        n = snprintf(t->buf + t->len, sizeof t->buf - t->len, "-%s%s%llu e%llu x%llu%s ", ev->rule,
                     ev->matched ? "=" : "!", (unsigned long long)ev->end, (unsigned long long)ev->evals,
                     (unsigned long long)ev->examined, ev->memo ? " memo" : "");
    if (n > 0 && (size_t)n < sizeof t->buf - t->len) t->len += (size_t)n;
    return t->abort_after && t->count >= t->abort_after;
}

static char *trace_text(const char *src, const char *input, const pego_options *opt, text_sink *t)
{
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    pego_parser_set_trace(p, text_event, t);
    const pego_result *r;
    pego_parse(p, input, strlen(input), opt, &r);
    char *err = pego_result_error(r) ? strdup(pego_result_error(r)) : NULL;
    pego_parser_free(p);
    pego_grammar_free(g);
    if (t->len) t->buf[t->len - 1] = 0;
    return err;
}

static void test_sequence(void)
{
    text_sink t = { .len = 0 };
    char *err = trace_text("def main = a b def a = \"x\" def b = &a \"y\" / \"x\"", "xx", NULL, &t);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_STRING_EQUAL(t.buf, "+main@0/1 +a@0/2 -a=1 e1 x1 +b@1/2 +a@1/3L -a=2 e1 x2 -b=2 e1 x2 -main=2 e1 x2");
    free(err);
}

/* A rule called three times at one position runs at its first call, is memoized
 * at its second, and answered from the memo at its third, which reports memo with
 * no evaluation. A leader reports its growth rounds. */
static void test_memo_and_growth(void)
{
    text_sink t = { .len = 0 };
    char *err = trace_text("def main = v \"!\" / v \"?\" / v \".\" def v = w w def w = \"a\"", "aa.", NULL, &t);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_PTR_NOT_NULL(strstr(t.buf, "-v=2 e1 x2 +v@0/2 -v=2 e0 x2 memo -main=3"));
    free(err);
    text_sink t2 = { .len = 0 };
    err = trace_text("def main = sum def sum = sum \"+\" n / n def n = (?0-9)", "1+2", NULL, &t2);
    CU_ASSERT_PTR_NULL(err);
    /* the last growth round fails on "+" at the end: it examined the end too */
    CU_ASSERT_PTR_NOT_NULL(strstr(t2.buf, "-sum=3 e3 x4 -main"));
    free(err);
}

static void test_abort(void)
{
    const char *src = "def main = a a a def a = \"x\"";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    pego_parser *p = pego_parser_new(g);
    text_sink t = { .abort_after = 4 };
    pego_parser_set_trace(p, text_event, &t);
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse(p, "xxx", 3, NULL, &r), PEGO_ABORTED);
    CU_ASSERT_STRING_EQUAL(pego_result_error(r), "parse aborted by a trace callback");
    CU_ASSERT_EQUAL(t.count, 4);
    /* detached, the parser parses again */
    CU_ASSERT_EQUAL(pego_parser_remove_trace(p, text_event, &t), 0);
    CU_ASSERT_EQUAL(pego_parser_remove_trace(p, text_event, &t), -1);
    CU_ASSERT_EQUAL(pego_parse(p, "xxx", 3, NULL, &r), PEGO_OK);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* The run-time errors of actions (docs/language.md 6.9), with the type checker
 * skipped (it refuses these grammars): each ends the parse as an aborted parse,
 * traced or not, with the same message, and the trace closes the open calls as
 * for any aborted parse. */
static void test_action_errors(void)
{
    static const struct { const char *src, *input, *error; } cases[] = {
        { "type W struct { S string }\ndef main = \"a\" -> new W{S: \"n\" + len($1)}", "a",
          "action in main: invalid operands string and int for +" },
        { "type W struct { B bool }\ndef main = \"a\" -> new W{B: $1 < 2}", "a",
          "action in main: invalid operands Match and int for <" },
        { "type W struct { N int }\ndef main = \"a\" -> new W{N: -(1 == 1)}", "a",
          "action in main: invalid operand bool for unary -" },
        { "type W struct { B bool }\ndef main = \"a\" -> new W{B: !len($1)}", "a",
          "action in main: invalid operand int for unary !" },
        { "type W struct { B bool }\ndef main = \"a\" -> new W{B: true && len($1)}", "a",
          "action in main: invalid operand int for &&" },
        { "type W struct { M Match }\ndef main = x:\"x\"? \"a\" -> new W{M: $x.V}", "a",
          "action in main: cannot access .V of nil" },
        { "type W struct { N int }\ndef main = \"a\" -> new W{N: len($1).startPos}", "a",
          "action in main: cannot access .startPos of int" },
        { "type A struct { N Match }\ntype W struct { M Match }\n"
          "def main = x:u -> new W{M: $x.Q}\ndef u: A = \"b\" -> new A{}", "b",
          "action in main: A has no field Q" },
        { "def main = \"a\" -> len($1)", "a", "action in main: result must be a node, got int" },
        { "def main = \"a\" -> depth", "a", "action in main: variable depth is not defined" },
        { "type W struct { N int }\ndef main = \"a\" -> new W{N: len(1 == 1)}", "a",
          "action in main: len: invalid argument bool" },
        { "type W struct { S string }\ndef main = \"a\" -> new W{S: text(3)}", "a",
          "action in main: text: invalid argument int" },
        { "def main = \"a\" -> list($1, 2)", "a", "action in main: list: list elements must be nodes, got int" },
        { "def main = \"a\" -> concat($1, \"s\")", "a", "action in main: concat: expected a list, got string" },
        { "def main = \"a\" -> map(len($1), (x) => $x)", "a", "action in main: map: expected a list, got int" },
        { "def main = \"a\" -> map($0, (x) => true)", "a", "action in main: map: list elements must be nodes, got bool" },
        { "def main = \"a\" -> foldr(nil, true, (acc, x) => $x)", "a", "action in main: foldr: expected a list, got bool" },
        { "def main = \"a\" -> $2", "a", "action in main: $2 is out of range (1 elements)" },
        { "def main = \"a\" \"b\" -> $3", "ab", "action in main: $3 is out of range (2 elements)" },
        { "def main = \"a\" -> new Nope{}", "a", "action in main: Nope is not a struct type" },
    };
    cc_fault_skip_typecheck = 1;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pego_grammar *g = pego_compile(cases[i].src, strlen(cases[i].src), "t", NULL);
        CU_ASSERT_PTR_NOT_NULL(g);
        if (!g) { fprintf(stderr, "\n  does not compile: %s", cases[i].src); continue; }
        for (int traced = 0; traced < 2; traced++) {
            pego_parser *p = pego_parser_new(g);
            text_sink t = { .len = 0 };
            if (traced) pego_parser_set_trace(p, text_event, &t);
            const pego_result *r;
            CU_ASSERT_EQUAL(pego_parse(p, cases[i].input, strlen(cases[i].input), NULL, &r), PEGO_ABORTED);
            const char *e = pego_result_error(r);
            CU_ASSERT_PTR_NOT_NULL(e);
            if (e && strcmp(e, cases[i].error)) fprintf(stderr, "\n  %s:\n  got %s\n  want %s", cases[i].src, e, cases[i].error);
            CU_ASSERT(e && strcmp(e, cases[i].error) == 0);
            /* the trace ends as an aborted parse's: the call entered, never left */
            if (t.len) t.buf[t.len - 1] = 0;
            const char *want = strstr(cases[i].src, "def u") ? "+main@0/1 +u@0/2 -u=1 e1 x1" : "+main@0/1";
            if (traced) CU_ASSERT_STRING_EQUAL(t.buf, want);
            pego_parser_free(p);
        }
        pego_grammar_free(g);
    }
    cc_fault_skip_typecheck = 0;
}

/* The failure of a call: what it expected at its farthest position. */
typedef struct { char failure[512]; } failure_sink;

static int failure_event(const pego_trace_event *ev, void *ud)
{
    failure_sink *f = ud;
    uint64_t pos;
    size_t n;
    if (ev->kind == PEGO_TRACE_EXIT && strcmp(ev->rule, "main") == 0 && pego_trace_failure(ev, &pos, &n)) {
        int line, col;
        pego_trace_line_col(ev, pos, &line, &col);
        int k = snprintf(f->failure, sizeof f->failure, "%d:%d", line, col);
        for (size_t i = 0; i < n; i++)
            k += snprintf(f->failure + k, sizeof f->failure - (size_t)k, " %s", pego_trace_failure_item(ev, i));
    }
    return 0;
}

static void test_failure(void)
{
    const char *src = "def main = \"a\" (\"c\" / \"b\" / (?0-9))";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    pego_parser *p = pego_parser_new(g);
    failure_sink f = { "" };
    pego_parser_set_trace(p, failure_event, &f);
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse(p, "a\n", 2, NULL, &r), PEGO_SYNTAX_ERROR);
    CU_ASSERT_STRING_EQUAL(f.failure, "1:2 \"b\" \"c\" (?0-9)");
    CU_ASSERT_STRING_EQUAL(pego_result_error(r), "1:2: syntax error: expected \"b\", \"c\", (?0-9)");
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* ---- the equivalence harness ---- */

typedef struct {
    int      stack[4096];
    uint64_t pos[4096];
    int      depth;
    uint64_t evals;
    int      bad;
} checker;

/* Checks that events nest, that each exit matches its enter, that a memo hit
 * evaluated nothing, and sums the evaluations. */
static int check_event(const pego_trace_event *ev, void *ud)
{
    checker *c = ud;
    if (ev->kind == PEGO_TRACE_ENTER) {
        if ((int)ev->depth != c->depth + 1 || c->depth >= 4096) c->bad++;
        else { c->stack[c->depth] = ev->rule_id; c->pos[c->depth] = ev->pos; }
        c->depth++;
        return 0;
    }
    if (c->depth <= 0 || (int)ev->depth != c->depth) { c->bad++; return 0; }
    c->depth--;
    if (c->depth < 4096 && (c->stack[c->depth] != ev->rule_id || c->pos[c->depth] != ev->pos)) c->bad++;
    if (ev->memo && ev->evals) c->bad++;
    if (ev->matched && ev->end < ev->pos) c->bad++;
    if (ev->examined < ev->end) c->bad++;
    c->evals += ev->evals;
    return 0;
}

typedef struct {
    char      *out;
    int        ok;
    size_t     recovered;   /* errors recovered by #recover */
    pego_stats stats;
} outcome;

static outcome run(pego_parser *p, const char *in, size_t len, const pego_options *o)
{
    const pego_result *r;
    outcome res = { 0 };
    pego_status st = pego_parse(p, in, len, o, &r);
    res.ok = st == PEGO_OK;
    if (st == PEGO_OK && o->recognize) {
        res.out = strdup("ok");
    } else if (st == PEGO_OK) {
        /* the tree, and in JSON the ranges of its nodes too */
        char *sexpr = pego_result_print(r, PEGO_PRINT_SEXPR), *json = pego_result_print(r, PEGO_PRINT_JSON);
        size_t ns = strlen(sexpr), nj = strlen(json);
        res.out = malloc(ns + nj + 2);
        memcpy(res.out, sexpr, ns);
        res.out[ns] = '\n';
        memcpy(res.out + ns + 1, json, nj + 1);
        free(sexpr);
        free(json);
    } else {
        res.out = strdup(pego_result_error(r));
    }
    res.stats = *pego_result_stats(r);
    res.recovered = pego_result_recovered_count(r);
    return res;
}

static int compare_traced(const pego_grammar *g, const char *in, size_t len, const char *what)
{
    int bad = 0;
    for (int memo = 0; memo < 2; memo++) {
        for (int rec = 0; rec < 2; rec++) {
            for (int unit = 0; unit < 2; unit++) {
                pego_options o = { .memo = memo ? PEGO_MEMO_NONE : PEGO_MEMO_DEFAULT, .recognize = rec,
                                   .unit = (pego_unit)unit };
                pego_options ref = o;
                ref.reference = 1;
                pego_parser *plain = pego_parser_new(g), *traced = pego_parser_new(g);
                checker c = { .depth = 0 };
                pego_parser_set_trace(traced, check_event, &c);
                /* fast: the unobserved parse (the fast program when the grammar has
                 * one); a: the reference program unobserved; b: traced */
                outcome fast = run(plain, in, len, &o), a = run(plain, in, len, &ref), b = run(traced, in, len, &o);
                /* the fast program must give the result itself whenever the input
                 * matches without errors recovered by #recover: a fallback to
                 * the reference program would hide its bugs */
                int fast_bad = strcmp(fast.out, b.out) != 0 ||
                               (g->has_fast && a.ok && !a.recovered && !fast.stats.fast_program);
                /* and its statistics are the reference program's, as a traced parse counts them */
                fast.stats.fast_program = 0;
                fast_bad |= memcmp(&fast.stats, &b.stats, sizeof b.stats) != 0;
                int differs = fast_bad || strcmp(a.out, b.out) != 0 ||
                              memcmp(&a.stats, &b.stats, sizeof a.stats) != 0
                              || c.bad || c.depth != 0 || c.evals != b.stats.evals;
                if (differs) {
                    bad++;
                    fprintf(stderr, "\n  %s (memo %s, %s, unit %d): %s differs:\n    %.160s\n    %.160s\n"
                            "    evals %llu/%llu events %llu, memo %llu/%llu, stored %llu/%llu, bad events %d\n",
                            what, memo ? "none" : "default", rec ? "recognition" : "tree", unit,
                            fast_bad ? "the fast program's run" : "traced run", fast_bad ? fast.out : a.out, b.out,
                            (unsigned long long)a.stats.evals, (unsigned long long)b.stats.evals,
                            (unsigned long long)c.evals, (unsigned long long)a.stats.memo_hits,
                            (unsigned long long)b.stats.memo_hits, (unsigned long long)a.stats.memo_stored,
                            (unsigned long long)b.stats.memo_stored, c.bad);
                }
                free(fast.out);
                free(a.out);
                free(b.out);
                pego_parser_free(plain);
                pego_parser_free(traced);
            }
        }
    }
    return bad;
}

static int compare_fixture(const pego_grammar *g, const char *file, const char *input, size_t len, void *ctx)
{
    (void)ctx;
    return compare_traced(g, input, len, file);
}

/* Runs the harness over every fixture; returns the number of differences. */
static int harness(int *inputs)
{
    int grammars;
    return fixtures_each(compare_fixture, NULL, &grammars, inputs);
}

static void test_equivalence(void)
{
    int inputs;
    CU_ASSERT_EQUAL(harness(&inputs), 0);
    CU_ASSERT(inputs >= 10);
}

/* The fast program pairs plain frames in one entry on deep stacks only
 * (E_CALL2, vm/stack.h): here from the bottom of the stack, on every fixture. */
static void test_equivalence_paired(void)
{
    int inputs;
    uint32_t from = vm_pair_from;
    vm_pair_from = 1;
    CU_ASSERT_EQUAL(harness(&inputs), 0);
    vm_pair_from = from;
}

/* With one fault injected, the harness must report differences. */
static void expect_caught(int *fault, const char *what)
{
    int inputs;
    fprintf(stderr, "\n  (differences below are expected: %s)", what);
    *fault = 1;
    CU_ASSERT(harness(&inputs) > 0);
    *fault = 0;
}

static void test_mutation_skip_merge(void)
{
    expect_caught(&vm_fault_skip_traced_merge, "traced calls do not merge their expectations");
}

static void test_mutation_fast_span(void)
{
    expect_caught(&vm_fault_fast_span, "the fast program's byte spans stop short");
}

static void test_mutation_fast_pratt(void)
{
    expect_caught(&vm_fault_fast_pratt, "the fast program's infix right operators associate left");
}

static void test_mutation_fast_pratt_skip(void)
{
    expect_caught(&vm_fault_fast_pratt_skip, "the fast program's Pratt machine ends its skip spans one byte short");
}

static void test_mutation_memoize(void)
{
    expect_caught(&vm_fault_memoize_traced, "traced calls are always memoized");
}

/* ---- the deciding run (vm/decide.c) ---- */

/* Repeats s n times. */
static char *repeat(const char *s, int n, const char *tail)
{
    size_t k = strlen(s), t = strlen(tail);
    char *out = malloc(k * (size_t)n + t + 1);
    for (int i = 0; i < n; i++) memcpy(out + k * (size_t)i, s, k);
    memcpy(out + k * (size_t)n, tail, t + 1);
    return out;
}

/* Grammars and failing inputs whose syntax errors the deciding run decides,
 * with the run that must decide them: 1, the first (probes stood for calls
 * below the error); 2, the second (the first stood probes for calls whose
 * expectations the error keeps, and saw it: the error's position was not past
 * their reach). */
typedef struct { const char *src, *unit, *tail; int n, run; } decide_case;
static const decide_case decide_cases[] = {
    /* items in a loop, the last one broken: the loop's last iteration is the bound */
    { "def main = item* \"end\"\ndef item = \"(\" (?a-z)* \")\" \",\"?", "(ab),(cd),", "(a!", 300, 1 },
    /* calls longer than a probe's span are made, their own calls probed */
    { "def main = block* \"end\"\ndef block = \"{\" item* \"}\"\ndef item = (?a-z)+ \";\"",
      "{ab;cd;ef;gh;ij;kl;mn;op;qr;st;uv;wx;yz;ab;cd;ef;gh;ij;kl;mn;op;qr;st;uv;wx;yz;ab;cd;ef;gh;ij;kl;mn;op;qr;st;uv;wx;yz;ab;cd;ef;gh;ij;kl;mn;op;qr;st;uv;wx;yz;ab;cd;ef;gh;ij;kl;mn;op;qr;st;uv;wx;yz;ab;cd;ef;gh;ij;kl;mn;op;qr;st;uv;wx;yz;ab;cd;ef;gh;ij;kl;mn;op;qr;st;uv;wx;yz;ab;cd;ef;gh;ij;kl;mn;op;qr;st;uv;wx;yz;}",
      "{ab;cd;e!", 40, 1 },
    /* left recursion: calls of its cycle are always made, the others probed */
    { "def main = sum \";\"\ndef sum = sum \"+\" num / num\ndef num = (?0-9)+", "12+345+", "6+x", 200, 1 },
    /* #error messages and lookaheads with rule calls (probed silent) */
    { "def main = (&word stmt)* \"end\"\ndef stmt = word (\"=\" word \";\") #error(message=\"a statement\")\n"
      "def word = (?a-z)+", "ab=cd;", "ef=!", 200, 1 },
    /* the loop that sets the bound runs in a lookahead, past the error: w's
     * expectation at its end is the error, below the first run's bound */
    { "def main = \"x\" \"x\"? w &((\"a\" \",\")* \"!\")\ndef w = \"y\"*", "", "xyya,a,a,k", 1, 2 },
    /* the iterations that the failed fast run claims are skipped, the error
     * lying past their reach: the list's items before the last */
    { "def main = \"[\" item (\",\" item)* \"]\"\ndef item = \"{\" (?a-z)* \"}\"", "{ab},", "{a!", 2000, 1 },
    /* ... but an iteration's failed option records the error, two bytes past
     * the claimed iterations' end: no claim stands for them in the second
     * run, whose bound is the first run's error (the claims reach past the
     * bound of the first, which takes them for their length) */
    { "def main = item* \";\"\ndef item = \"a\" (\"b\" \"c\" \"d\")?", "a", "abc;", 5000, 2 },
};

/* Parses every case untraced and with the reference program, in both modes:
 * the error, its position, its expected items and the statistics must be the
 * same, and the deciding run must have decided (with the run listed when
 * check_run). Returns the number of differences. */
static int decide_differences(int check_run)
{
    int bad = 0;
    for (size_t k = 0; k < sizeof decide_cases / sizeof decide_cases[0]; k++) {
        const decide_case *c = &decide_cases[k];
        pego_grammar *g = pego_compile(c->src, strlen(c->src), "t", NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        char *in = repeat(c->unit, c->n, c->tail);
        size_t len = strlen(in);
        for (int rec = 0; rec < 2; rec++) {
            pego_parser *p = pego_parser_new(g), *q = pego_parser_new(g);
            pego_options o = { .recognize = rec }, ref = { .recognize = rec, .reference = 1 };
            const pego_result *r, *s;
            pego_status st = pego_parse(p, in, len, &o, &r);
            int decided = p->decided;
            pego_status want = pego_parse(q, in, len, &ref, &s);
            int differs = st != want || st != PEGO_SYNTAX_ERROR || strcmp(pego_result_error(r), pego_result_error(s)) ||
                          pego_result_error_offset(r) != pego_result_error_offset(s) ||
                          pego_result_expected_count(r) != pego_result_expected_count(s) ||
                          memcmp(pego_result_stats(r), pego_result_stats(s), sizeof(pego_stats)) != 0;
            for (size_t i = 0; !differs && i < pego_result_expected_count(r); i++)
                differs = strcmp(pego_result_expected(r, i), pego_result_expected(s, i)) != 0;
            if (check_run && decided != c->run) differs = 1;
            if (differs) {
                bad++;
                fprintf(stderr, "\n  deciding case %zu (%s): decided by run %d (want %d):\n    %s\n    %s (reference)\n", k,
                        rec ? "recognition" : "tree", decided, c->run, pego_result_error(r), pego_result_error(s));
            }
            pego_parser_free(p);
            pego_parser_free(q);
        }
        free(in);
        pego_grammar_free(g);
    }
    return bad;
}

static void test_decide(void)
{
    CU_ASSERT_EQUAL(decide_differences(1), 0);
}

static void test_mutation_decide_unchecked(void)
{
    fprintf(stderr, "\n  (differences below are expected: the deciding run's result is not checked)");
    vm_fault_decide_unchecked = 1;
    CU_ASSERT(decide_differences(0) > 0);
    vm_fault_decide_unchecked = 0;
}

static void test_mutation_claim_unchecked(void)
{
    fprintf(stderr, "\n  (differences below are expected: a claim's reach is left out of the check)");
    vm_fault_claim_unchecked = 1;
    CU_ASSERT(decide_differences(0) > 0);
    vm_fault_claim_unchecked = 0;
}

static void test_mutation_probe_end(void)
{
    fprintf(stderr, "\n  (differences below are expected: a probe's reach leaves out the call's end)");
    vm_fault_probe_end = 1;
    CU_ASSERT(decide_differences(0) > 0);
    vm_fault_probe_end = 0;
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("trace", NULL, NULL);
    CU_add_test(s, "event sequence", test_sequence);
    CU_add_test(s, "memo hits and growth rounds", test_memo_and_growth);
    CU_add_test(s, "abort from a callback", test_abort);
    CU_add_test(s, "failure of a call", test_failure);
    CU_add_test(s, "run-time errors of actions, traced and not", test_action_errors);
    CU_add_test(s, "traced equals untraced on every fixture", test_equivalence);
    CU_add_test(s, "the same with plain frames paired at every depth", test_equivalence_paired);
    CU_add_test(s, "harness catches a tracer that skips the merge", test_mutation_skip_merge);
    CU_add_test(s, "harness catches a tracer that memoizes every call", test_mutation_memoize);
    CU_add_test(s, "the deciding run decides syntax errors as the reference program", test_decide);
    CU_add_test(s, "it catches a deciding run that does not check its result", test_mutation_decide_unchecked);
    CU_add_test(s, "it catches probes whose reach leaves out the end", test_mutation_probe_end);
    CU_add_test(s, "it catches claims whose reach is left out of the check", test_mutation_claim_unchecked);
    CU_add_test(s, "harness catches a fast program that differs", test_mutation_fast_span);
    CU_add_test(s, "harness catches a fast Pratt machine that differs", test_mutation_fast_pratt);
    CU_add_test(s, "harness catches a fast Pratt machine whose skips stop short", test_mutation_fast_pratt_skip);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
