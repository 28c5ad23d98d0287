/* Memo-policy equivalence: every fixture grammar and input is parsed with every
 * memo policy (default, all, none), in tree and in recognition mode, and in both
 * position units; trees, syntax errors and outcomes must be identical. A run
 * with a deliberately broken parse (a dropped expectation) must be caught, which
 * proves that the comparison can fail. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"
#include "fixtures.h"

/* One parse, rendered: the S-expression, "ok" for recognition, or the error. */
static char *outcome(pego_parser *p, const char *in, size_t len, pego_options *o)
{
    const pego_result *r;
    pego_status st = pego_parse(p, in, len, o, &r);
    if (st != PEGO_OK) {
        const char *e = pego_result_error(r);
        char *s = malloc(strlen(e) + 16);
        sprintf(s, "error %d: %s", (int)st, e);
        return s;
    }
    if (o->recognize) return strdup("ok");
    return pego_result_print(r, PEGO_PRINT_SEXPR);
}

typedef char *(*outcome_fn)(pego_parser *, const char *, size_t, pego_options *);

/* A deliberately broken engine for the self-test: with every rule memoized, it
 * loses the last expected item of a syntax error, as an engine that forgot to
 * replay a memo entry's expectations would. */
static char *broken_outcome(pego_parser *p, const char *in, size_t len, pego_options *o)
{
    char *s = outcome(p, in, len, o);
    char *comma = strrchr(s, ',');
    if (o->memo == PEGO_MEMO_ALL && strncmp(s, "error", 5) == 0 && comma) *comma = 0;
    return s;
}

/* Compares all policies and modes for one grammar and input; returns mismatches. */
static int compare(pego_parser *p, const char *in, size_t len, const char *what, outcome_fn run)
{
    int bad = 0;
    for (int unit = 0; unit < 2; unit++) {
        pego_options o = { .unit = (pego_unit)unit };
        char *base = run(p, in, len, &o);
        for (int policy = 0; policy < 3; policy++) {
            for (int rec = 0; rec < 2; rec++) {
                o.memo = (pego_memo_policy)policy;
                o.recognize = rec;
                char *got = run(p, in, len, &o);
                int same = rec ? (strncmp(base, "error", 5) == 0 ? strcmp(got, base) == 0
                                                                 : strcmp(got, "ok") == 0)
                               : strcmp(got, base) == 0;
                if (!same) {
                    bad++;
                    fprintf(stderr, "\n  %s: unit %d policy %d recognize %d:\n    %.200s\n  differs from\n    %.200s\n",
                            what, unit, policy, rec, got, base);
                }
                free(got);
            }
        }
        free(base);
    }
    return bad;
}

static int compare_fixture(const pego_grammar *g, const char *file, const char *input, size_t len, void *ctx)
{
    (void)ctx;
    pego_parser *p = pego_parser_new(g);
    int bad = compare(p, input, len, file, outcome);
    pego_parser_free(p);
    return bad;
}

static void test_fixtures(void)
{
    int grammars, inputs;
    CU_ASSERT_EQUAL(fixtures_each(compare_fixture, NULL, &grammars, &inputs), 0);
    CU_ASSERT(grammars >= 5);
    CU_ASSERT(inputs >= 10);
}

/* The comparison must be able to fail: the broken engine above is caught on a
 * fixture whose syntax error lists several items. */
static void test_harness_can_fail(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/json.pego", fixtures_srcdir());
    pego_grammar *g = pego_compile_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    const char *in = "[1, 2,";
    fprintf(stderr, "\n  (the mismatches below are expected: the engine is broken on purpose)");
    CU_ASSERT(compare(p, in, strlen(in), "broken engine", broken_outcome) > 0);
    CU_ASSERT_EQUAL(compare(p, in, strlen(in), "json", outcome), 0);
    pego_parser_free(p);
    pego_grammar_free(g);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("equivalence", NULL, NULL);
    CU_add_test(s, "fixtures: memo policies, recognition, units", test_fixtures);
    CU_add_test(s, "the comparison can fail", test_harness_can_fail);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
