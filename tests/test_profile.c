/* Tests of the collector of pego profile: every column's exact value on small
 * grammars (worked out by hand in the comments), times that add up (self never
 * above time, the self times of a parse summing to its time), the per-parse
 * state (positions seen, calls an abort left open), each hint on a grammar
 * built to trigger it and its silence otherwise, and on every fixture: a
 * profiled parse gives the same result and statistics as an unprofiled one,
 * and the collector's totals equal the parse's statistics. And the warnings
 * of the runtime profiler: a malformed PEGO_FLAGS and a report the exit writer
 * cannot write reach the warning handler, and nothing else; and the errors of
 * --profile-clock. */
#include <CUnit/Basic.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pego.h"
#include "../runtime/parser.h"    /* rt_sampler_prepare, rt_sampler_take */
#include "../vm/vm.h"             /* vm_grow_entries */
#include "fixtures.h"

typedef struct {
    pego_grammar   *g;
    pego_parser    *p;
    pego_collector *collector;
} fixture;

static fixture setup(const char *src)
{
    fixture f;
    f.g = pego_compile(src, strlen(src), "t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f.g);
    f.p = pego_parser_new(f.g);
    f.collector = pego_collector_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f.collector);
    CU_ASSERT_EQUAL(pego_parser_add_collector(f.p, f.collector), 0);
    return f;
}

static pego_status parse(fixture *f, const char *input, const pego_options *opt)
{
    const pego_result *r;
    return pego_parse(f->p, input, strlen(input), opt, &r);
}

static void teardown(fixture *f)
{
    pego_parser_free(f->p);
    pego_grammar_free(f->g);
    pego_collector_free(f->collector);
}

/* Compares a rule's counts (not its times) with the expected ones. */
typedef struct {
    const char *name;
    uint64_t calls, evals, memo, matched, failed, repeats, max_repeats, max_repeats_pos, consumed, wasted;
} counts;

static void check_rule(const pego_collector *collector, counts want)
{
    pego_collector_rule r;
    if (pego_collector_find_rule(collector, want.name, &r) != 0) {
        CU_FAIL("rule not in the profile");
        fprintf(stderr, "\n  rule %s not in the profile\n", want.name);
        return;
    }
    counts got = { r.name, r.calls, r.evals, r.memo, r.matched, r.failed, r.repeats, r.max_repeats,
                   r.max_repeats_pos, r.consumed, r.wasted };
    if (memcmp(&got.calls, &want.calls, sizeof want - offsetof(counts, calls)) != 0) {
        CU_FAIL("counts differ");
        fprintf(stderr, "\n  %s: got calls %llu evals %llu memo %llu matched %llu failed %llu repeats %llu "
                "max %llu at %llu consumed %llu wasted %llu\n", want.name, (unsigned long long)got.calls,
                (unsigned long long)got.evals, (unsigned long long)got.memo, (unsigned long long)got.matched,
                (unsigned long long)got.failed, (unsigned long long)got.repeats,
                (unsigned long long)got.max_repeats, (unsigned long long)got.max_repeats_pos,
                (unsigned long long)got.consumed, (unsigned long long)got.wasted);
    }
}

/* Times: self never above time, and the self times add up to the time of the
 * parses' start calls (each call's self time is its time less its nested
 * calls', so they telescope). */
static void check_times(const pego_collector *collector)
{
    pego_collector_totals t;
    pego_collector_get_totals(collector, &t);
    uint64_t self = 0;
    for (size_t i = 0; i < pego_collector_rule_count(collector); i++) {
        pego_collector_rule r;
        CU_ASSERT_EQUAL(pego_collector_get_rule(collector, i, &r), 0);
        CU_ASSERT(r.self_ns <= r.time_ns);
        CU_ASSERT(r.time_ns <= t.time_ns);
        self += r.self_ns;
    }
    CU_ASSERT_EQUAL(self, t.time_ns);
}

/* v is called three times at 0: evaluated, evaluated and memoized, answered
 * from the memo. w (transient: it calls no rule) runs in both evaluations of v,
 * at 0 and at 1. */
static void test_memo_counts(void)
{
    fixture f = setup("def main = v \"!\" / v \"?\" / v \".\" def v = w w def w = \"a\"");
    CU_ASSERT_EQUAL(parse(&f, "aa.", NULL), PEGO_OK);
    check_rule(f.collector, (counts){ "main", 1, 1, 0, 1, 0, 0, 0, 0, 3, 0 });
    check_rule(f.collector, (counts){ "v", 3, 2, 1, 3, 0, 1, 1, 0, 6, 0 });
    check_rule(f.collector, (counts){ "w", 4, 4, 0, 4, 0, 2, 1, 0, 4, 0 });
    pego_collector_totals t;
    pego_collector_get_totals(f.collector, &t);
    CU_ASSERT_EQUAL(t.parses, 1);
    CU_ASSERT_EQUAL(t.calls, 8);
    CU_ASSERT_EQUAL(t.evals, 7);
    CU_ASSERT_EQUAL(t.memo_hits, 1);
    CU_ASSERT_EQUAL(t.examined, 3);
    CU_ASSERT_EQUAL(pego_collector_rule_count(f.collector), 3);
    pego_collector_rule r;
    CU_ASSERT_EQUAL(pego_collector_get_rule(f.collector, 0, &r), 0);   /* in the order of first calls */
    CU_ASSERT_STRING_EQUAL(r.name, "main");
    CU_ASSERT_EQUAL(pego_collector_get_rule(f.collector, 3, &r), -1);
    CU_ASSERT_EQUAL(pego_collector_find_rule(f.collector, "nosuch", &r), -1);
    check_times(f.collector);
    teardown(&f);
}

/* a matches "x", fails at "1" having looked at it (2 positions wasted); b
 * matches "x1". */
static void test_failure_counts(void)
{
    fixture f = setup("def main = a / b def a = \"x\" \"y\" \"z\" def b = \"x\" (?0-9)");
    CU_ASSERT_EQUAL(parse(&f, "x1", NULL), PEGO_OK);
    check_rule(f.collector, (counts){ "main", 1, 1, 0, 1, 0, 0, 0, 0, 2, 0 });
    check_rule(f.collector, (counts){ "a", 1, 1, 0, 0, 1, 0, 0, 0, 0, 2 });
    check_rule(f.collector, (counts){ "b", 1, 1, 0, 1, 0, 0, 0, 0, 2, 0 });
    check_times(f.collector);
    teardown(&f);
}

/* The leader sum runs its body three times in one call (evals 3); its
 * left-recursive calls are memo hits on the growing entry: the failed seed,
 * then "1", then "1+2" (consumed 3 + 0 + 1 + 3). A failed memo hit wastes
 * nothing. n runs at 0 in the first and third rounds (a repeat). Recursion
 * counts sum's time once. */
static void test_left_recursion_counts(void)
{
    fixture f = setup("def main = sum def sum = sum \"+\" n / n def n = (?0-9)");
    CU_ASSERT_EQUAL(parse(&f, "1+2", NULL), PEGO_OK);
    check_rule(f.collector, (counts){ "main", 1, 1, 0, 1, 0, 0, 0, 0, 3, 0 });
    check_rule(f.collector, (counts){ "sum", 4, 3, 3, 3, 1, 0, 0, 0, 7, 0 });
    check_rule(f.collector, (counts){ "n", 3, 3, 0, 3, 0, 1, 1, 0, 3, 0 });
    pego_collector_rule main, sum;
    pego_collector_find_rule(f.collector, "main", &main);
    pego_collector_find_rule(f.collector, "sum", &sum);
    CU_ASSERT(sum.time_ns <= main.time_ns);
    check_times(f.collector);
    teardown(&f);
}

/* Repeats are per (position, level): e evaluated at 0 at levels 2 and 0 has no
 * repeat; e evaluated twice at 0 at level 0 has one (e is transient: it calls
 * no rule, so it is never memoized). */
static void test_repeats_by_level(void)
{
    const char *pratt = " def e = pratt { operand @(?0-9)+ level sum { infix left \"+\" } level mul { infix left \"*\" } }";
    char src[512];
    snprintf(src, sizeof src, "def main = e(mul) \"!\" / e \"?\"%s", pratt);
    fixture f = setup(src);
    CU_ASSERT_EQUAL(parse(&f, "1?", NULL), PEGO_OK);
    check_rule(f.collector, (counts){ "e", 2, 2, 0, 2, 0, 0, 0, 0, 2, 0 });
    teardown(&f);
    snprintf(src, sizeof src, "def main = e \"!\" / e \"?\"%s", pratt);
    f = setup(src);
    CU_ASSERT_EQUAL(parse(&f, "1?", NULL), PEGO_OK);
    check_rule(f.collector, (counts){ "e", 2, 2, 0, 2, 0, 1, 1, 0, 2, 0 });
    teardown(&f);
}

/* a's value-free twin (under &) and its valued body count as one rule: the
 * second evaluation at 0 is a repeat. */
static void test_twin(void)
{
    fixture f = setup("def main = &a a def a = \"x\"");
    CU_ASSERT_EQUAL(parse(&f, "x", NULL), PEGO_OK);
    check_rule(f.collector, (counts){ "a", 2, 2, 0, 2, 0, 1, 1, 0, 2, 0 });
    CU_ASSERT_EQUAL(pego_collector_rule_count(f.collector), 2);
    teardown(&f);
}

/* A collector adds up any number of parses; the positions seen start afresh
 * with each parse, so the same input twice gives twice the repeats of once. */
static void test_several_parses(void)
{
    fixture f = setup("def main = v \"!\" / v \"?\" / v \".\" def v = w w def w = \"a\"");
    CU_ASSERT_EQUAL(parse(&f, "aa.", NULL), PEGO_OK);
    CU_ASSERT_EQUAL(parse(&f, "aa!", NULL), PEGO_OK);
    /* second parse: v evaluated once, w at 0 and 1 */
    check_rule(f.collector, (counts){ "v", 4, 3, 1, 4, 0, 1, 1, 0, 8, 0 });
    check_rule(f.collector, (counts){ "w", 6, 6, 0, 6, 0, 2, 1, 0, 6, 0 });
    pego_collector_totals t;
    pego_collector_get_totals(f.collector, &t);
    CU_ASSERT_EQUAL(t.parses, 2);
    CU_ASSERT_EQUAL(t.examined, 6);
    check_times(f.collector);
    pego_collector_reset(f.collector);
    pego_collector_get_totals(f.collector, &t);
    CU_ASSERT_EQUAL(t.parses + t.calls + t.evals + t.memo_hits + t.examined + t.time_ns, 0);
    CU_ASSERT_EQUAL(pego_collector_rule_count(f.collector), 0);
    CU_ASSERT_EQUAL(parse(&f, "aa.", NULL), PEGO_OK);
    check_rule(f.collector, (counts){ "v", 3, 2, 1, 3, 0, 1, 1, 0, 6, 0 });
    teardown(&f);
}

/* A parse stopped by the nesting limit leaves calls without exits (the four
 * calls of main entered before the limit); the next parse starts clean: its
 * call of main is again the outermost, so it is timed. */
static void test_aborted_parse(void)
{
    fixture f = setup("def main = \"(\" main \")\" / \"x\"");
    pego_options o = { .max_depth = 3 };
    const pego_result *aborted;
    CU_ASSERT_EQUAL(pego_parse(f.p, "((((x))))", 9, &o, &aborted), PEGO_ABORTED);
    /* the calls the limit left in progress are closed: the three that began
     * their bodies count an evaluation each, the fourth (over the limit) none,
     * as the parse's statistics count them */
    CU_ASSERT_EQUAL(pego_result_stats(aborted)->evals, 3);
    CU_ASSERT_EQUAL(parse(&f, "x", NULL), PEGO_OK);
    check_rule(f.collector, (counts){ "main", 5, 4, 0, 1, 0, 0, 0, 0, 1, 0 });
    pego_collector_rule r;
    pego_collector_find_rule(f.collector, "main", &r);
    pego_collector_totals t;
    pego_collector_get_totals(f.collector, &t);
    CU_ASSERT_EQUAL(t.parses, 2);
    CU_ASSERT_EQUAL(t.evals, 4);
    CU_ASSERT(t.examined >= 3);          /* the aborted parse examined "(((" */
    CU_ASSERT(r.time_ns > 0);
    CU_ASSERT_EQUAL(r.time_ns, t.time_ns);
    check_times(f.collector);
    teardown(&f);
}

/* Runs src on input and returns the hints joined by "\n" (static storage). */
static const char *hints_of(const char *src, const char *input, const pego_options *opt)
{
    static char out[2048];
    fixture f = setup(src);
    parse(&f, input, opt);
    size_t n;
    const char *const *h = pego_collector_hints(f.collector, &n);
    out[0] = 0;
    for (size_t i = 0; h && i < n; i++) {
        strncat(out, h[i], sizeof out - strlen(out) - 2);
        strcat(out, "\n");
    }
    CU_ASSERT_PTR_NULL(h ? h[n] : NULL);
    teardown(&f);
    return out;
}

/* The hint lines after the first (the self times, which vary). */
static const char *after_times(const char *hints)
{
    CU_ASSERT_EQUAL(strncmp(hints, "Most time is spent in ", 22), 0);
    const char *nl = strchr(hints, '\n');
    return nl ? nl + 1 : "";
}

static const char nothing_else[] =
    "Nothing else stands out: no rule is evaluated more than twice at a position, and no failed call "
    "examines much input.\n";

/* The advice after the rules named by the hint on repeated evaluations, and by
 * the hints on failed calls. */
#define REPEATS_ADVICE                                                                                       \
    ". A memoized rule is usually evaluated at most twice at a position; a rule that is not is evaluated "   \
    "whenever its caller is retried there. Look for choices whose alternatives begin with the same calls, "  \
    "and factor the common part out."
#define FAILED_ADVICE                                                                                        \
    ". A call that fails late throws its work away, and what is tried next often matches the same input "    \
    "again. Check whether an alternative shares a long prefix with a later one, and whether a cut (--) "     \
    "after the part that identifies an alternative can stop the parser from trying the others."
#define WASTED_ADVICE                                                                                        \
    ". The rule is tried at many positions where it cannot match, or fails late; nested failures count in "  \
    "their callers too, so look at the innermost of these first."

static void test_hint_self_time(void)
{
    pego_collector *collector = pego_collector_new();
    size_t n;
    const char *const *h = pego_collector_hints(collector, &n);
    CU_ASSERT_EQUAL(n, 0);              /* no calls: no hints */
    CU_ASSERT_PTR_NULL(h ? h[0] : "");
    pego_collector_free(collector);
    /* three rules at most, with shares */
    const char *s = hints_of("def main = a b c d def a = \"a\" def b = \"b\" def c = \"c\" def d = \"d\"", "abcd",
                             NULL);
    CU_ASSERT_STRING_EQUAL(after_times(s), nothing_else);
    int commas = 0, percents = 0;
    for (const char *p = s; *p != '\n'; p++) {
        commas += *p == ',';
        percents += *p == '%';
    }
    CU_ASSERT_EQUAL(commas, 3);         /* two between the rules, one before "not counting" */
    CU_ASSERT_EQUAL(percents, 3);
}

/* v (transient, so never memoized) runs three times at 0: 3 evaluations at one
 * position; twice stays quiet. Over two parses the position says which. */
static void test_hint_repeats(void)
{
    const char *s = hints_of("def main = v \"!\" / v \"?\" / v \".\" def v = \"a\"", "a.", NULL);
    CU_ASSERT_STRING_EQUAL(after_times(s), "Evaluated again where they had been evaluated before: v (2 of 3 "
                                           "evaluations, up to 3 times at 1:1)" REPEATS_ADVICE "\n");
    s = hints_of("def main = v \"!\" / v \".\" def v = \"a\"", "a.", NULL);
    CU_ASSERT_STRING_EQUAL(after_times(s), nothing_else);
    /* with memoization off, a memoizable rule repeats too */
    pego_options none = { .memo = PEGO_MEMO_NONE };
    s = hints_of("def main = v \"!\" / v \"?\" / v \".\" def v = w def w = \"a\"", "a.", &none);
    CU_ASSERT_STRING_EQUAL(after_times(s), "Evaluated again where they had been evaluated before: v (2 of 3 "
                                           "evaluations, up to 3 times at 1:1), w (2 of 3 evaluations, up to 3 "
                                           "times at 1:1)" REPEATS_ADVICE "\n");
    s = hints_of("def main = v \"!\" / v \"?\" / v \".\" def v = w def w = \"a\"", "a.", NULL);
    CU_ASSERT_STRING_EQUAL(after_times(s), nothing_else);

    fixture f = setup("def main = \"\\n\"? v \"!\" / \"\\n\"? v \"?\" / \"\\n\"? v \".\" def v = \"a\"");
    parse(&f, "a.", NULL);
    parse(&f, "\na.", NULL);
    size_t n;
    const char *const *h = pego_collector_hints(f.collector, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(h[1], "Evaluated again where they had been evaluated before: v (4 of 6 evaluations, "
                                 "up to 3 times at 1:1 of parse 1)" REPEATS_ADVICE);
    teardown(&f);
}

/* long reads 16 "a"s and fails at the 17th position: 17 positions examined,
 * fewer than the parse's 20 (rest's repetition ends at the end of the input,
 * which it examines too). 15 positions stay quiet, but they are all the parse
 * examined (rest stops at the "x", which it then matches): the hint on wasted
 * input names long. */
static void test_hint_long_failure(void)
{
    const char *s = hints_of("def main = long / rest def long = \"aaaaaaaaaaaaaaaa\" \"b\" def rest = (?a-z)*",
                             "aaaaaaaaaaaaaaaaxyz", NULL);
    CU_ASSERT_STRING_EQUAL(after_times(s), "Failed after examining much input: long (17 positions from 1:1)"
                                           FAILED_ADVICE "\n");
    s = hints_of("def main = long / rest def long = \"aaaaaaaaaaaaaa\" \"b\" def rest = (?a-w)* \"x\"", "aaaaaaaaaaaaaax",
                 NULL);
    CU_ASSERT_STRING_EQUAL(after_times(s), "Failed calls examined more input in all than the parse did (15 "
                                           "positions): long (15 positions in 1 failed calls)" WASTED_ADVICE "\n");
}

/* long's failed calls examine 18 + 18 positions; the parse examined 35: more,
 * so the hint names long (at "$" item's choice skips long, which must begin
 * with "a": first-character dispatch). In the second grammar long begins with
 * an optional, so no dispatch skips it: without the "!" after 16 letters and
 * "." long's failed calls examine exactly as much as the parse, which counts
 * too (17 + 17 + 1 + 1: its last call fails at the end of the input, which
 * examines one position, as the parse does: 36). */
static void test_hint_wasted(void)
{
    const char *s = hints_of("def main = item* \"$\" def item = long / short "
                             "def long = \"abcdefghijklmnop.\" \"!\" def short = \"abcdefghijklmnop.\"",
                             "abcdefghijklmnop.abcdefghijklmnop.$", NULL);
    CU_ASSERT_STRING_EQUAL(after_times(s),
                           "Failed after examining much input: long (18 positions from 1:1)" FAILED_ADVICE "\n"
                           "Failed calls examined more input in all than the parse did (35 positions): long (36 "
                           "positions in 2 failed calls)" WASTED_ADVICE "\n");
    s = hints_of("def main = item* def item = long / short "
                 "def long = \"x\"? \"abcdefghijklmnop\" \"!\" def short = \"abcdefghijklmnop\"? \".\"",
                 "abcdefghijklmnop.abcdefghijklmnop..", NULL);
    CU_ASSERT_STRING_EQUAL(after_times(s),
                           "Failed after examining much input: long (17 positions from 1:1)" FAILED_ADVICE "\n"
                           "Failed calls examined more input in all than the parse did (36 positions): long (36 "
                           "positions in 4 failed calls)" WASTED_ADVICE "\n");
}

/* Three rules at most per hint, ties in the order of the rules' first calls:
 * d, evaluated as often as a, b and c, is left out. */
static void test_hint_more_rules(void)
{
    const char *s = hints_of("def main = a \"!\" / a \"?\" / a \".\" def a = b def b = c def c = d def d = \"x\"", "x.",
                             &(pego_options){ .memo = PEGO_MEMO_NONE });
    CU_ASSERT_STRING_EQUAL(after_times(s), "Evaluated again where they had been evaluated before: a (2 of 3 "
                                           "evaluations, up to 3 times at 1:1), b (2 of 3 evaluations, up to 3 "
                                           "times at 1:1), c (2 of 3 evaluations, up to 3 times at 1:1)"
                                           REPEATS_ADVICE "\n");
}

/* Another sink attached with the collector sees every event; detaching the
 * collector stops the counting. */
static int count_events(const pego_trace_event *ev, void *ud)
{
    (void)ev;
    ++*(int *)ud;
    return 0;
}

static void test_with_other_sink(void)
{
    fixture f = setup("def main = a a def a = \"x\"");
    int events = 0;
    CU_ASSERT_EQUAL(pego_parser_set_trace(f.p, count_events, &events), 0);
    CU_ASSERT_EQUAL(parse(&f, "xx", NULL), PEGO_OK);
    CU_ASSERT_EQUAL(events, 6);
    CU_ASSERT_EQUAL(pego_parser_remove_collector(f.p, f.collector), 0);
    CU_ASSERT_EQUAL(pego_parser_remove_collector(f.p, f.collector), -1);
    CU_ASSERT_EQUAL(parse(&f, "xx", NULL), PEGO_OK);
    CU_ASSERT_EQUAL(events, 12);
    pego_collector_totals t;
    pego_collector_get_totals(f.collector, &t);
    CU_ASSERT_EQUAL(t.parses, 1);
    CU_ASSERT_EQUAL(t.calls, 3);
    teardown(&f);
}

/* ---- the sampler's stacks ---- */

/* A trace sink that takes samples as the signal handler takes them, each
 * time rule b is entered, each time many. */
typedef struct {
    pego_parser *p;
    rt_samples  *sm;
    uint32_t     each;
} sampling_sink;

static int take_samples(const pego_trace_event *ev, void *ud)
{
    sampling_sink *k = ud;
    if (ev->kind == PEGO_TRACE_ENTER && strcmp(ev->rule, "b") == 0)
        for (uint32_t i = 0; i < k->each; i++) rt_sampler_take(k->p, k->sm, 1, 1, NULL);
    return 0;
}

/* A parse long enough for 400,000 samples (100 s at the default interval)
 * keeps the stack of every one: the samples that find a stack kept add to
 * it, so the two stacks the parse has (main a b, main c b) are two records
 * whose weights are all the samples. */
static void test_sampled_stacks_kept(void)
{
    const char *src = "def main = a c def a = b def c = b \"y\" def b = \"x\"";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    rt_samples sm;
    memset(&sm, 0, sizeof sm);
    CU_ASSERT_EQUAL_FATAL(rt_sampler_prepare(&sm, (uint32_t)g->nrules, g->ncode, 0), 0);
    sampling_sink k = { p, &sm, 200000 };
    CU_ASSERT_EQUAL(pego_parser_set_trace(p, take_samples, &k), 0);
    p->sampled = 1;          /* general calls link their frames for the sampler, as in a sampled parse */
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse(p, "xxy", 3, NULL, &r), PEGO_OK);
    CU_ASSERT_EQUAL(sm.taken, 400000);
    CU_ASSERT_EQUAL(sm.lost, 0);
    CU_ASSERT_EQUAL(sm.unplaced, 0);
    uint64_t weight = 0;
    uint32_t records = 0;
    for (uint32_t at = 0; at < sm.npaths; at += 4 + sm.paths[at] + 2 * sm.paths[at + 3]) {
        CU_ASSERT(sm.paths[at] >= 2);    /* main, then a or c, at least */
        weight += sm.paths[at + 2];
        records++;
    }
    CU_ASSERT_EQUAL(records, 2);
    CU_ASSERT_EQUAL(weight, 400000);
    rt_sampler_free(&sm);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* A parser whose control stack holds main's frame (entry 1) above the
 * bottom, as a parse leaves it, room for two entries more: for the sampler's
 * tests, which lay out the rest by hand. */
static pego_parser *parser_in_main(pego_grammar *g)
{
    pego_parser *p = pego_parser_new(g);
    if (!p || vm_grow_entries(p, 4) < 0) return NULL;
    uint32_t main_rule = (uint32_t)pego_grammar_rule_index(g, "main");
    p->es[0] = (vm_entry){ .kind = E_BOTTOM };
    p->es[1] = (vm_entry){ .kind = E_CALL, .u.call = { .ret = 0, .variant = main_rule, .caller = 0 } };
    p->sample_top = 2;
    return p;
}

/* A plain frame of the profiled program that a call in tail position reused
 * (E_TCALL) stands for the calls of the tail call's chain and its own: a
 * sample taken with it on top has them all on its stack, the chain's last
 * rule innermost, which gets the self time. The frames are laid out as the
 * profiled program leaves them when a calls b in tail position: main's frame,
 * then a's, which the call of b (PTAIL) at address t reused, noting the
 * PTAIL's chain. With chained,
 * b's whole body is a call of c, which the PTAIL makes at once: b and c are
 * both on the stack. */
static void check_sampled_tail_frame(int chained)
{
    const char *src = chained ? "def main = a a def a = \"<\" b def b = c def c = \"(\" main \")\" / \"x\""
                              : "def main = a a def a = \"<\" b def b = \"(\" main \")\" / \"x\"";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    int main_rule = pego_grammar_rule_index(g, "main"), a = pego_grammar_rule_index(g, "a"),
        b = pego_grammar_rule_index(g, "b"), c = chained ? pego_grammar_rule_index(g, "c") : b;
    uint32_t t = 0;                     /* a's call of b in tail position, in the profiled program */
    for (uint32_t i = g->prof_start; i < g->ncode && !t; i++)
        if (g->code[i].op == OP_PTAIL && (uint32_t)g->code[i].a % (uint32_t)g->nrules == (uint32_t)b)
            t = i;
    CU_ASSERT_FATAL(t != 0);
    CU_ASSERT_EQUAL_FATAL(g->chains[g->code[t].d].n, chained ? 2u : 1u);
    pego_parser *p = parser_in_main(g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    p->es[2] = (vm_entry){ .kind = E_TCALL, .pos = 1, .lower_pos = 2, .rec = (uint32_t)g->code[t].d,
                           .u.call = { .ret = 1, .variant = (uint32_t)a, .caller = 2 } };
    p->sample_top = 3;
    p->sample_ip = NULL;
    rt_samples sm;
    memset(&sm, 0, sizeof sm);
    CU_ASSERT_EQUAL_FATAL(rt_sampler_prepare(&sm, (uint32_t)g->nrules, g->ncode, 0), 0);
    CU_ASSERT_EQUAL(rt_sampler_innermost(p), c);
    CU_ASSERT_EQUAL(rt_sampler_take(p, &sm, 3, 1, NULL), c);
    CU_ASSERT_EQUAL(sm.self[c], 3);
    CU_ASSERT_EQUAL(sm.self[a] + sm.self[main_rule] + (chained ? sm.self[b] : 0), 0);
    CU_ASSERT(sm.incl[main_rule] == 3 && sm.incl[a] == 3 && sm.incl[b] == 3 && sm.incl[c] == 3);
    /* one stack record: its length, instruction, weight, native frames, then
     * the path from the outermost call */
    uint32_t len = chained ? 4 : 3;
    CU_ASSERT_EQUAL_FATAL(sm.npaths, 4 + len);
    CU_ASSERT(sm.paths[0] == len && sm.paths[2] == 3 && sm.paths[3] == 0);
    CU_ASSERT(sm.paths[4] == (uint32_t)main_rule && sm.paths[5] == (uint32_t)a && sm.paths[6] == (uint32_t)b);
    if (chained) CU_ASSERT(sm.paths[7] == (uint32_t)c);
    p->sample_top = 0;
    rt_sampler_free(&sm);
    pego_parser_free(p);
    pego_grammar_free(g);
}

static void test_sampled_tail_frame(void) { check_sampled_tail_frame(0); }
static void test_sampled_tail_chain(void) { check_sampled_tail_frame(1); }

/* A sample taken at an instruction that matches a call compiled in itself
 * (PSPAN, PBYTE, PWORD, PINSPAN: the span is most of its work) goes to that
 * call, not to the rule whose code holds the instruction. */
static void test_sampled_counted_span(void)
{
    const char *src = "def main = -ws (stmt -ws)*\n"
                      "def stmt = name -sp -eq -ws name -ws -\";\"\n"
                      "def name = (?a-z_) (?a-z_0-9)*\n"
                      "def sp = (? )*\n"
                      "def eq = (?=)\n"
                      "def ws = ((? \\t\\n) / comment)*\n"
                      "def comment = \"#\" (?^\\n)*\n";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    const int ops[] = { OP_PWORD, OP_PINSPAN, OP_PSPAN, OP_PBYTE };
    const int rules[] = { pego_grammar_rule_index(g, "name"), pego_grammar_rule_index(g, "ws"),
                          pego_grammar_rule_index(g, "sp"), pego_grammar_rule_index(g, "eq") };
    int main_rule = pego_grammar_rule_index(g, "main");
    for (int k = 0; k < 4; k++) {
        uint32_t at = 0;
        for (uint32_t i = g->prof_start; i < g->ncode && !at; i++)
            if (g->code[i].op == ops[k]) at = i;
        CU_ASSERT_FATAL(at != 0);
        pego_parser *p = parser_in_main(g);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        p->sample_ip = &g->code[at];
        rt_samples sm;
        memset(&sm, 0, sizeof sm);
        CU_ASSERT_EQUAL_FATAL(rt_sampler_prepare(&sm, (uint32_t)g->nrules, g->ncode, 0), 0);
        CU_ASSERT_EQUAL(rt_sampler_take(p, &sm, 1, 1, NULL), rules[k]);
        CU_ASSERT_EQUAL(sm.self[rules[k]], 1);
        CU_ASSERT_EQUAL(sm.self[main_rule], 0);
        p->sample_top = 0;
        p->sample_ip = NULL;
        rt_sampler_free(&sm);
        pego_parser_free(p);
    }
    pego_grammar_free(g);
}

/* ---- every fixture: profiled equals unprofiled, totals equal statistics ---- */


static int compare_profiled(const pego_grammar *g, const char *in, size_t len, const char *what)
{
    int bad = 0;
    for (int memo = 0; memo < 2; memo++) {
        for (int rec = 0; rec < 2; rec++) {
            pego_options o = { .memo = memo ? PEGO_MEMO_NONE : PEGO_MEMO_DEFAULT, .recognize = rec };
            pego_parser *plain = pego_parser_new(g), *profiled = pego_parser_new(g);
            pego_collector *collector = pego_collector_new();
            pego_parser_add_collector(profiled, collector);
            const pego_result *a, *b;
            pego_status sa = pego_parse(plain, in, len, &o, &a), sb = pego_parse(profiled, in, len, &o, &b);
            char *ta = sa == PEGO_OK ? (rec ? strdup("ok") : pego_result_print(a, PEGO_PRINT_SEXPR))
                                     : strdup(pego_result_error(a));
            char *tb = sb == PEGO_OK ? (rec ? strdup("ok") : pego_result_print(b, PEGO_PRINT_SEXPR))
                                     : strdup(pego_result_error(b));
            const pego_stats *st = pego_result_stats(b);
            pego_collector_totals t;
            pego_collector_get_totals(collector, &t);
            uint64_t calls = 0, evals = 0, memo_hits = 0, self = 0;
            for (size_t i = 0; i < pego_collector_rule_count(collector); i++) {
                pego_collector_rule r;
                pego_collector_get_rule(collector, i, &r);
                calls += r.calls;
                evals += r.evals;
                memo_hits += r.memo;
                self += r.self_ns;
                if (r.self_ns > r.time_ns || r.matched + r.failed != r.calls || r.memo > r.calls) bad++;
            }
            /* the same statistics, whichever program found the match */
            pego_stats sa_stats = *pego_result_stats(a), sb_stats = *st;
            sa_stats.fast_program = sb_stats.fast_program = 0;
            if (sa != sb || strcmp(ta, tb) != 0 || memcmp(&sa_stats, &sb_stats, sizeof sa_stats) != 0 ||
                t.calls != st->calls || t.evals != st->evals || t.memo_hits != st->memo_hits || calls != t.calls ||
                evals != t.evals || memo_hits != t.memo_hits || self != t.time_ns || t.parses != 1) {
                bad++;
                fprintf(stderr, "\n  %s (memo %s, %s): profiled run differs: calls %llu/%llu evals %llu/%llu "
                        "memo %llu/%llu\n", what, memo ? "none" : "default", rec ? "recognition" : "tree",
                        (unsigned long long)t.calls, (unsigned long long)st->calls, (unsigned long long)t.evals,
                        (unsigned long long)st->evals, (unsigned long long)t.memo_hits,
                        (unsigned long long)st->memo_hits);
            }
            free(ta);
            free(tb);
            pego_collector_free(collector);
            pego_parser_free(plain);
            pego_parser_free(profiled);
        }
    }
    return bad;
}

static int compare_fixture(const pego_grammar *g, const char *file, const char *input, size_t len, void *ctx)
{
    (void)ctx;
    return compare_profiled(g, input, len, file);
}

static void test_fixtures(void)
{
    int grammars, inputs;
    CU_ASSERT_EQUAL(fixtures_each(compare_fixture, NULL, &grammars, &inputs), 0);
    CU_ASSERT(inputs >= 10);
}

/* ---- warnings ---- */

/* A warning handler that writes each message and a newline to the file ud. */
static void hear(const char *msg, void *ud)
{
    fprintf(ud, "%s\n", msg);
    fflush(ud);
}

/* Everything written to a temporary file (malloc'd). */
static char *contents(FILE *f)
{
    fflush(f);
    off_t n = lseek(fileno(f), 0, SEEK_END);
    char *text = calloc((size_t)n + 1, 1);
    CU_ASSERT_FATAL(text && pread(fileno(f), text, (size_t)n, 0) == n);
    return text;
}

/* The first parser of the process reads PEGO_FLAGS, so this test runs before
 * any other creates one. A malformed value goes to the handler, once, and not
 * to standard error; profiling stays off. */
static void test_flags_warning(void)
{
    const char *src = "def main = \"x\"";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    FILE *heard = tmpfile(), *err = tmpfile();
    CU_ASSERT_FATAL(g && heard && err);
    setenv("PEGO_FLAGS", "--frofile=x", 1);
    pego_set_warning_handler(hear, heard);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(err), 2);
    pego_parser *a = pego_parser_new(g), *b = pego_parser_new(g);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    pego_set_warning_handler(NULL, NULL);
    unsetenv("PEGO_FLAGS");
    char *said = contents(heard), *printed = contents(err);
    CU_ASSERT_STRING_EQUAL(said, "pego: unknown option in PEGO_FLAGS: --frofile=x\n");
    CU_ASSERT_STRING_EQUAL(printed, "");
    CU_ASSERT_FALSE(pego_profile_active());
    free(said);
    free(printed);
    fclose(heard);
    fclose(err);
    pego_parser_free(a);
    pego_parser_free(b);
    pego_grammar_free(g);
}

/* Runs a child process that sets the handler hear (and then, with restore,
 * the default again), turns profiling on with a report in a missing directory
 * and exits, so that its exit writer fails. Sets *said to what the handler
 * heard and *printed to the child's standard error; checks that they name the
 * report. */
static void exit_warning(int restore, char **said, char **printed)
{
    char dir[] = "/tmp/pego-test-XXXXXX", path[96], want[160];
    FILE *heard = tmpfile(), *err = tmpfile();
    CU_ASSERT_FATAL(mkdtemp(dir) && heard && err);
    char file[64];                       /* a regular file where a directory should be */
    snprintf(file, sizeof file, "%s/file", dir);
    FILE *in_the_way = fopen(file, "w");
    CU_ASSERT_FATAL(in_the_way != NULL);
    fclose(in_the_way);
    snprintf(path, sizeof path, "%s/report.zst", file);
    snprintf(want, sizeof want, "pego: cannot write profile %s: Not a directory\n", path);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        dup2(fileno(err), 2);
        pego_set_warning_handler(hear, heard);
        if (restore) pego_set_warning_handler(NULL, NULL);
        exit(pego_profile_start(path, NULL) == 0 ? 0 : 3);
    }
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    *said = contents(heard);
    *printed = contents(err);
    CU_ASSERT_STRING_EQUAL(restore ? *printed : *said, want);
    fclose(heard);
    fclose(err);
    unlink(file);
    rmdir(dir);
}

/* The exit writer's failure goes to the handler, not to standard error. */
static void test_exit_warning(void)
{
    char *said, *printed;
    exit_warning(0, &said, &printed);
    CU_ASSERT_STRING_EQUAL(printed, "");
    free(said);
    free(printed);
}

/* A NULL handler restores the default: the message and a newline on standard
 * error. */
static void test_default_warning(void)
{
    char *said, *printed;
    exit_warning(1, &said, &printed);
    CU_ASSERT_STRING_EQUAL(said, "");
    free(said);
    free(printed);
}

/* Runs child in a child process; returns its exit status (-1 if it did not exit). */
static int in_child(int (*child)(void))
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) _exit(child());
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The clock and the mode (sampled, or exact with --profile-detail) are chosen
 * when profiling starts and cannot change afterwards; asking for the same
 * clock again is no error. _exit: no report is written. */
static int clock_change(void)
{
    char dir[] = "/tmp/pego-test-XXXXXX", path[64];
    if (!mkdtemp(dir)) return 1;
    snprintf(path, sizeof path, "%s/r.zst", dir);
    int status = pego_profile_start(path, "--profile-clock=cpu") == 0 ? 0 : 2;
    if (!status && pego_profile_start(NULL, "--profile-clock=wall") != -1) status = 3;
    if (!status && strcmp(pego_profile_error(), "--profile-clock cannot change once profiling has started") != 0)
        status = 4;
    if (!status && pego_profile_start(NULL, "--profile-clock=cpu") != 0) status = 5;
    if (!status && pego_profile_start(NULL, "--profile-detail") != -1) status = 6;
    if (!status && strcmp(pego_profile_error(), "--profile-detail cannot change once profiling has started") != 0)
        status = 7;
    rmdir(dir);
    return status;
}

/* --profile-clock takes wall or cpu; anything else is the call's error (in
 * PEGO_FLAGS, read once per process, tests/profile.test checks the warning). */
static void test_clock_errors(void)
{
    CU_ASSERT_EQUAL(pego_profile_start(NULL, "--profile-clock=sometimes"), -1);
    CU_ASSERT_STRING_EQUAL(pego_profile_error(), "--profile-clock takes wall or cpu, not sometimes");
    CU_ASSERT_EQUAL(pego_profile_start(NULL, "--profile-clock=CPU"), -1);
    CU_ASSERT_STRING_EQUAL(pego_profile_error(), "--profile-clock takes wall or cpu, not CPU");
    CU_ASSERT_EQUAL(pego_profile_start(NULL, "--profile-clock="), -1);
    CU_ASSERT_STRING_EQUAL(pego_profile_error(), "--profile-clock needs a value: wall or cpu");
    CU_ASSERT_EQUAL(pego_profile_start(NULL, "--profile-detail --profile-clock"), -1);
    CU_ASSERT_STRING_EQUAL(pego_profile_error(), "--profile-clock needs a value: wall or cpu");
    CU_ASSERT_FALSE(pego_profile_active());
    CU_ASSERT_EQUAL(in_child(clock_change), 0);
}

/* Each thread reads the error of its own calls: a thread whose start failed
 * keeps its message when another thread's start then fails otherwise (on
 * one buffer for the process, it read the other thread's). */
static void *fail_start(void *option)
{
    return (void *)(intptr_t)pego_profile_start(NULL, option);
}

static void test_error_per_thread(void)
{
    CU_ASSERT_EQUAL(pego_profile_start(NULL, "--profile-clock=sometimes"), -1);
    pthread_t t;
    void *status;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, fail_start, "--profile-interval=2s"), 0);
    CU_ASSERT_EQUAL(pthread_join(t, &status), 0);
    CU_ASSERT_EQUAL((intptr_t)status, -1);
    CU_ASSERT_STRING_EQUAL(pego_profile_error(), "--profile-clock takes wall or cpu, not sometimes");
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    /* first: the test of PEGO_FLAGS needs a process that has no parser yet */
    CU_pSuite w = CU_add_suite("warnings", NULL, NULL);
    CU_add_test(w, "a malformed PEGO_FLAGS goes to the handler", test_flags_warning);
    CU_add_test(w, "a report the exit writer cannot write goes to the handler", test_exit_warning);
    CU_add_test(w, "a NULL handler restores standard error", test_default_warning);
    CU_add_test(w, "errors of --profile-clock", test_clock_errors);
    CU_add_test(w, "each thread reads its own error", test_error_per_thread);
    CU_pSuite s = CU_add_suite("profile", NULL, NULL);
    CU_add_test(s, "counts with memo hits", test_memo_counts);
    CU_add_test(s, "counts of failed calls and wasted input", test_failure_counts);
    CU_add_test(s, "counts of a left-recursive rule", test_left_recursion_counts);
    CU_add_test(s, "repeats are per position and level", test_repeats_by_level);
    CU_add_test(s, "a value-free twin counts as its rule", test_twin);
    CU_add_test(s, "several parses, reset", test_several_parses);
    CU_add_test(s, "a parse aborted with calls in progress", test_aborted_parse);
    CU_add_test(s, "hint: self time, or nothing stands out", test_hint_self_time);
    CU_add_test(s, "hint: evaluated more than twice at one position", test_hint_repeats);
    CU_add_test(s, "hint: failed calls that examined 16 positions", test_hint_long_failure);
    CU_add_test(s, "hint: failed calls examined more than the parse", test_hint_wasted);
    CU_add_test(s, "hint: at most three rules", test_hint_more_rules);
    CU_add_test(s, "with another sink, detached", test_with_other_sink);
    CU_add_test(s, "sampled stacks: a long parse keeps every sample's", test_sampled_stacks_kept);
    CU_add_test(s, "sampled stacks: a frame reused by a tail call stands for both calls", test_sampled_tail_frame);
    CU_add_test(s, "sampled stacks: a tail call's chain of rules that only call the next one", test_sampled_tail_chain);
    CU_add_test(s, "sampled stacks: an instruction that matches a call compiled in gives it the sample",
                test_sampled_counted_span);
    CU_add_test(s, "profiled equals unprofiled on every fixture", test_fixtures);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
