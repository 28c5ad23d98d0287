/* The equivalence harness: every fixture grammar and input is parsed with every
 * memo policy (default, all, none), in tree and in recognition mode, and in both
 * position units; trees, syntax errors and outcomes must be identical. A run
 * with a deliberately broken parse (a dropped expectation) must be caught, which
 * proves that the comparison can fail. */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"

static const char *srcdir(void)
{
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); fclose(f); return NULL; }
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

static int is_golden(const char *name)
{
    size_t n = strlen(name);
    return name[0] == '.' || (n > 5 && strcmp(name + n - 5, ".json") == 0 && strchr(name, '.') != name + n - 5)
        || (n > 6 && strcmp(name + n - 6, ".sexpr") == 0);
}

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

static int inputs_checked;

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
    inputs_checked++;
    return bad;
}

static void test_fixtures(void)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fixtures", srcdir());
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    struct dirent *de;
    int grammars = 0;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 6 || strcmp(de->d_name + n - 5, ".pego") != 0) continue;
        char path[8192], sub[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        snprintf(sub, sizeof sub, "%s/%.*s", dir, (int)(n - 5), de->d_name);
        pego_diag *diag = NULL;
        pego_grammar *g = pego_compile_file(path, &diag);
        if (!g) fprintf(stderr, "\n  %s\n", pego_diag_text(diag));
        pego_diag_free(diag);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        grammars++;
        pego_parser *p = pego_parser_new(g);
        DIR *inputs = opendir(sub);
        struct dirent *ie;
        while (inputs && (ie = readdir(inputs))) {
            if (is_golden(ie->d_name)) continue;
            char file[16384];
            snprintf(file, sizeof file, "%s/%s", sub, ie->d_name);
            size_t len;
            char *in = read_all(file, &len);
            if (!in) continue;
            CU_ASSERT_EQUAL(compare(p, in, len, file, outcome), 0);
            free(in);
        }
        if (inputs) closedir(inputs);
        pego_parser_free(p);
        pego_grammar_free(g);
    }
    closedir(d);
    CU_ASSERT(grammars >= 5);
    CU_ASSERT(inputs_checked >= 10);
}

/* The comparison must be able to fail: the broken engine above is caught on a
 * fixture whose syntax error lists several items. */
static void test_harness_can_fail(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/json.pego", srcdir());
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
