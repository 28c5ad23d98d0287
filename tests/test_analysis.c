/* Unit tests of the static analysis (compiler/analysis.c): nullable rules,
 * left-recursive cycles and their leaders, the memo classification, twins, the
 * emitter's choice of call paths, and long grammars on a small stack. */
#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/program.h"

static pego_grammar *compile(const char *src)
{
    pego_diag *d = NULL;
    pego_grammar *g = pego_compile(src, strlen(src), "t.pego", &d);
    if (!g) fprintf(stderr, "\n  unexpected grammar error: %s\n", pego_diag_text(d));
    pego_diag_free(d);
    return g;
}

static uint32_t flags(const pego_grammar *g, const char *rule)
{
    int r = pego_grammar_rule_index(g, rule);
    CU_ASSERT_FATAL(r >= 0);
    return g->rules[r].flags;
}

#define HAS(g, rule, f)  CU_ASSERT((flags(g, rule) & (f)) == (f))
#define HASNT(g, rule, f) CU_ASSERT((flags(g, rule) & (f)) == 0)

static void test_nullable(void)
{
    pego_grammar *g = compile("def a = \"x\"? def b = \"x\" def c = a a def d = b* def e = \"\" "
                              "def f = &b def h = b / \"\" def i = b+ def main = a b c d e f h i");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "a", RULE_NULLABLE);
    HASNT(g, "b", RULE_NULLABLE);
    HAS(g, "c", RULE_NULLABLE);
    HAS(g, "d", RULE_NULLABLE);
    HAS(g, "e", RULE_NULLABLE);
    HAS(g, "f", RULE_NULLABLE);
    HAS(g, "h", RULE_NULLABLE);
    HASNT(g, "i", RULE_NULLABLE);
    HAS(g, "a", RULE_NOFAIL);
    HASNT(g, "b", RULE_NOFAIL);
    HAS(g, "h", RULE_NOFAIL);
    pego_grammar_free(g);
}

static void test_direct_and_indirect(void)
{
    pego_grammar *g = compile("def main = sum $$ def sum = sum \"+\" n / n def n = @(?0-9)+");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "sum", RULE_CYCLIC | RULE_LEADER);
    HASNT(g, "main", RULE_CYCLIC);
    HASNT(g, "n", RULE_CYCLIC);
    pego_grammar_free(g);

    g = compile("def main = expr $$ def expr = add / term def add = expr \"+\" term "
                "def term = @(?0-9)+");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "expr", RULE_CYCLIC | RULE_LEADER);
    HAS(g, "add", RULE_CYCLIC);
    HASNT(g, "add", RULE_LEADER | RULE_MEMO);
    pego_grammar_free(g);
}

/* An SCC with two independent cycles needs two leaders; with every cycle through
 * one rule, one leader is enough. */
static void test_leaders(void)
{
    pego_grammar *g = compile("def main = p def p = q \"a\" / \"b\" def q = p \"c\" / r \"d\" def r = q \"e\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "p", RULE_LEADER);
    HAS(g, "q", RULE_LEADER);
    HAS(g, "r", RULE_CYCLIC);
    HASNT(g, "r", RULE_LEADER);
    pego_grammar_free(g);

    g = compile("def main = x def x = y \"a\" / z \"b\" / \"c\" def y = x \"d\" def z = x \"e\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "x", RULE_LEADER);
    HASNT(g, "y", RULE_LEADER);
    HASNT(g, "z", RULE_LEADER);
    HAS(g, "y", RULE_CYCLIC);
    pego_grammar_free(g);
}

/* Proofs that an alternative always succeeds remove left calls behind it. */
static void test_always_succeeds(void)
{
    pego_grammar *g = compile("def main = a def a = \"\" / a \"x\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HASNT(g, "a", RULE_CYCLIC);
    pego_grammar_free(g);
    g = compile("def main = a def a = b a \"x\" / \"y\" def b = \"\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "a", RULE_CYCLIC);
    pego_grammar_free(g);
    /* a call of a rule proven to succeed ends the left calls of a choice... */
    g = compile("def main = a def a = b / a \"x\" def b = \"\" / \"z\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HASNT(g, "a", RULE_CYCLIC);
    HAS(g, "b", RULE_NOFAIL);
    pego_grammar_free(g);
    /* ...but a loose cut in an alternative before the one that succeeds defeats the proof */
    g = compile("def main = a def a = b / a \"x\" def b = \"z\" -- \"q\" / \"\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "a", RULE_CYCLIC);
    HASNT(g, "b", RULE_NOFAIL);
    pego_grammar_free(g);
}

static void test_memo_classes(void)
{
    pego_grammar *g = compile("def main = value $$ def value = list / n "
                              "def list = \"[\" value (\",\" value)* \"]\" def n = @(?0-9)+ "
                              "def once = value def pair = k:n \"=\" n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "value", RULE_MEMO | RULE_DEFERRABLE);
    HASNT(g, "value", RULE_TRANSIENT | RULE_PLAIN);
    HAS(g, "n", RULE_TRANSIENT | RULE_PLAIN);      /* calls no rule */
    HAS(g, "list", RULE_TRANSIENT | RULE_PLAIN);   /* called from one place */
    HAS(g, "pair", RULE_CAPTURES);
    HASNT(g, "pair", RULE_PLAIN);
    /* the emitter sends calls of memoizable rules down the general path */
    int value = pego_grammar_rule_index(g, "value");
    int general = 0, plain = 0;
    for (uint32_t i = 0; i < g->ncode; i++) {
        if (g->code[i].op == OP_CALLG && g->code[i].a % g->nrules == value) general++;
        if (g->code[i].op == OP_CALL && g->code[i].a % g->nrules == value) plain++;
    }
    CU_ASSERT(general > 0);
    CU_ASSERT_EQUAL(plain, 0);
    pego_grammar_free(g);
}

static void test_twins(void)
{
    pego_grammar *g = compile("def main = -n m !q def n = \"x\" def m = \"y\" def q = \"z\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "n", RULE_TWIN);
    HASNT(g, "m", RULE_TWIN);
    HAS(g, "q", RULE_TWIN);
    pego_grammar_free(g);
    /* inside its own cycle a discarded call keeps the valued body */
    g = compile("def main = s def s = -s \"x\" / \"y\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HASNT(g, "s", RULE_TWIN);
    pego_grammar_free(g);
}

/* Proofs that take one round per link of a chain: y_k succeeds once x_(k-1) is
 * proven not cyclic, which removes x_k's left call of itself, and so on; the
 * calls of x40 after a "z" make the whole chain one component of the call graph. */
static void test_rounds_along_a_chain(void)
{
    char src[8192] = "def y1 = \"\" (\"z\" x40)? def x1 = y1 / x1 \"a\" ";
    for (int k = 2; k <= 40; k++) {
        size_t n = strlen(src);
        snprintf(src + n, sizeof src - n, "def y%d = x%d (\"z\" x40)? def x%d = y%d / x%d \"a\" ", k, k - 1, k, k, k);
    }
    pego_grammar *g = compile(src);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    for (int r = 0; r < g->nrules; r++) {
        CU_ASSERT((g->rules[r].flags & (RULE_CYCLIC | RULE_LEADER)) == 0);
        CU_ASSERT((g->rules[r].flags & (RULE_NULLABLE | RULE_NOFAIL)) == (RULE_NULLABLE | RULE_NOFAIL));
    }
    pego_grammar_free(g);
}

/* One rule with a left-recursive cycle through each of many others: the rules
 * declared first lead, so every operator does, or only the hub. */
static void test_leaders_of_a_hub(void)
{
    pego_grammar *g = compile("def op0 = e \"+0\" def op1 = e \"+1\" def op2 = e \"+2\" "
                              "def e = op0 / op1 / op2 / \"n\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "op0", RULE_CYCLIC | RULE_LEADER);
    HAS(g, "op1", RULE_CYCLIC | RULE_LEADER);
    HAS(g, "op2", RULE_CYCLIC | RULE_LEADER);
    HAS(g, "e", RULE_CYCLIC);
    HASNT(g, "e", RULE_LEADER);
    pego_grammar_free(g);
    g = compile("def e = op0 / op1 / op2 / \"n\" def op0 = e \"+0\" def op1 = e \"+1\" def op2 = e \"+2\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    HAS(g, "e", RULE_CYCLIC | RULE_LEADER);
    HASNT(g, "op0", RULE_LEADER);
    HASNT(g, "op1", RULE_LEADER);
    HASNT(g, "op2", RULE_LEADER);
    pego_grammar_free(g);
}

/* Long grammars compile on a small stack: no C recursion follows a chain of
 * rules or a list of alternatives (docs/architecture.md, Static analysis). */
enum { LONG = 20000 };

static void *compile_long(void *out)
{
    size_t cap = 64 * (size_t)LONG, n = 0;
    char *src = malloc(cap);
    if (!src) return NULL;
    for (int i = 0; i < LONG - 1; i++) n += (size_t)snprintf(src + n, cap - n, "def r%d = r%d \"x\"?\n", i, i + 1);
    n += (size_t)snprintf(src + n, cap - n, "def r%d = \"\" def main = r0", LONG - 1);
    for (int i = 0; i < LONG; i++) n += (size_t)snprintf(src + n, cap - n, " / \"k%d\"", i);
    pego_grammar **g = out;
    *g = pego_compile(src, n, "long.pego", NULL);
    free(src);
    return NULL;
}

static void test_long_chain_small_stack(void)
{
    pthread_attr_t attr;
    pthread_t t;
    pego_grammar *g = NULL;
    CU_ASSERT_FATAL(pthread_attr_init(&attr) == 0);
    CU_ASSERT_FATAL(pthread_attr_setstacksize(&attr, 1 << 20) == 0);
    CU_ASSERT_FATAL(pthread_create(&t, &attr, compile_long, &g) == 0);
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(g->nrules, LONG + 1);
    HAS(g, "r0", RULE_NULLABLE | RULE_NOFAIL);
    HAS(g, "main", RULE_NULLABLE | RULE_NOFAIL);
    HASNT(g, "r0", RULE_CYCLIC);
    CU_ASSERT_EQUAL(g->lead_depth, LONG + 1);
    pego_grammar_free(g);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("analysis", NULL, NULL);
    CU_add_test(s, "nullable and always succeeds", test_nullable);
    CU_add_test(s, "direct and indirect left recursion", test_direct_and_indirect);
    CU_add_test(s, "leaders", test_leaders);
    CU_add_test(s, "proofs remove left calls", test_always_succeeds);
    CU_add_test(s, "memo classification", test_memo_classes);
    CU_add_test(s, "twins", test_twins);
    CU_add_test(s, "rounds along a chain", test_rounds_along_a_chain);
    CU_add_test(s, "leaders of a hub", test_leaders_of_a_hub);
    CU_add_test(s, "a long chain on a small stack", test_long_chain_small_stack);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
