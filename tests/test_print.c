/* Unit tests of printing through a writer (pego_result_write): on every fixture
 * the pieces put together are pego_result_print's string and the golden file; a
 * deep tree and a long terminal come in bounded pieces, the terminal's text cut
 * between code points; the writer's error stops printing and is returned. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"
#include "fixtures.h"

/* The largest piece the printer hands on: 64 KiB, the escaped text of a slice of
 * a terminal (4 KiB of input, at most 6 bytes each) and a node's fixed text. */
#define PIECE_MAX (65536 + 6 * 4096 + 1024)

/* A writer that keeps what it is given, and fails on call fail_at (from 1). */
typedef struct {
    char   *text;
    size_t  len, cap;
    size_t  calls, largest;
    size_t  fail_at;
} collector;

static int collect(const char *data, size_t len, void *ctx)
{
    collector *c = ctx;
    c->calls++;
    if (len > c->largest) c->largest = len;
    if (c->calls == c->fail_at) return 42;
    if (c->len + len + 1 > c->cap) {
        c->cap = 2 * (c->len + len + 1);
        c->text = realloc(c->text, c->cap);
    }
    memcpy(c->text + c->len, data, len);
    c->len += len;
    c->text[c->len] = 0;
    return 0;
}

static pego_grammar *compile(const char *src)
{
    pego_grammar *g = pego_compile(src, strlen(src), "t.pego", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    return g;
}

/* The golden file of a fixture input when it holds a tree alone (no syntax
 * error, no recovered errors), without its final newline; else NULL. */
static char *golden_tree(const char *file, const char *ext)
{
    char path[20000];
    snprintf(path, sizeof path, "%s.%s", file, ext);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    fclose(f);
    s[got] = 0;
    if (strncmp(s, "error: ", 7) == 0 || strstr(s, "\nerror: ")) {
        free(s);
        return NULL;
    }
    if (got && s[got - 1] == '\n') s[got - 1] = 0;
    return s;
}

/* Prints one fixture input both ways in both forms; returns the differences. */
static int compare_fixture(const pego_grammar *g, const char *file, const char *input, size_t len, void *ctx)
{
    int *goldens = ctx, bad = 0;
    pego_parser *p = pego_parser_new(g);
    const pego_result *r;
    if (pego_parse(p, input, len, NULL, &r) == PEGO_OK) {
        static const struct { pego_print_format format; const char *ext; } forms[] = {
            { PEGO_PRINT_SEXPR, "sexpr" }, { PEGO_PRINT_JSON, "json" },
        };
        for (int k = 0; k < 2; k++) {
            collector c = { 0 };
            int err = pego_result_write(r, forms[k].format, collect, &c);
            char *printed = pego_result_print(r, forms[k].format), *golden = golden_tree(file, forms[k].ext);
            if (err || !printed || !c.text || strcmp(c.text, printed) || (golden && strcmp(c.text, golden))) {
                fprintf(stderr, "\n  %s (%s): written and printed trees differ\n", file, forms[k].ext);
                bad++;
            }
            *goldens += golden != NULL;
            free(golden);
            free(printed);
            free(c.text);
        }
    }
    pego_parser_free(p);
    return bad;
}

static void test_fixtures(void)
{
    int grammars, inputs, goldens = 0;
    CU_ASSERT_EQUAL(fixtures_each(compare_fixture, &goldens, &grammars, &inputs), 0);
    CU_ASSERT(grammars >= 5);
    CU_ASSERT(inputs >= 20);
    CU_ASSERT(goldens >= 20);
}

/* Brackets nested depth deep, and the parser of them. */
static const char brackets[] = "def main = n $$\ndef n = \"[\" n? \"]\"";

static char *nested(size_t depth)
{
    char *s = malloc(2 * depth + 1);
    memset(s, '[', depth);
    memset(s + depth, ']', depth);
    s[2 * depth] = 0;
    return s;
}

/* A JSON tree 500 levels deep is 10 MB of text, mostly indentation. */
static void test_deep_tree(void)
{
    pego_grammar *g = compile(brackets);
    pego_parser *p = pego_parser_new(g);
    char *in = nested(500);
    const pego_result *r;
    CU_ASSERT_EQUAL_FATAL(pego_parse(p, in, strlen(in), NULL, &r), PEGO_OK);
    collector c = { 0 };
    CU_ASSERT_EQUAL(pego_result_write(r, PEGO_PRINT_JSON, collect, &c), 0);
    char *printed = pego_result_print(r, PEGO_PRINT_JSON);
    CU_ASSERT_PTR_NOT_NULL_FATAL(printed);
    CU_ASSERT(c.len > 10000000);
    CU_ASSERT(c.calls > c.len / PIECE_MAX);
    CU_ASSERT(c.largest <= PIECE_MAX);
    CU_ASSERT(c.text && strcmp(c.text, printed) == 0);
    free(printed);
    free(c.text);
    free(in);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* One terminal of 300 KB: pieces stay bounded, and the text is cut between code
 * points, so it prints as pego_quote quotes it whole. Three-byte characters put
 * cut points inside characters; controls are the longest escapes; the invalid
 * bytes at the end are continuation bytes only. */
static void test_long_terminal(void)
{
    pego_grammar *g = compile("def main = @.*");
    pego_parser *p = pego_parser_new(g);
    size_t len = 0;
    char *in = malloc(400000);
    for (int i = 0; i < 70000; i++) len += (size_t)sprintf(in + len, "%s", "\xe2\x82\xac");
    for (int i = 0; i < 20000; i++) in[len++] = (char)(i % 2 ? 0x01 : 'a');
    for (int i = 0; i < 70000; i++) in[len++] = (char)0x80;
    for (int unit = 0; unit < 2; unit++) {
        pego_options o = { .unit = unit ? PEGO_UNIT_BYTES : PEGO_UNIT_CODEPOINTS };
        const pego_result *r;
        CU_ASSERT_EQUAL_FATAL(pego_parse(p, in, len, &o, &r), PEGO_OK);
        collector c = { 0 };
        CU_ASSERT_EQUAL(pego_result_write(r, PEGO_PRINT_SEXPR, collect, &c), 0);
        char *quoted = pego_quote(in, len, o.unit);
        CU_ASSERT_PTR_NOT_NULL_FATAL(quoted);
        size_t n = strlen(quoted);
        CU_ASSERT(c.text && c.len == n + 5 && memcmp(c.text, quoted, n) == 0 && strcmp(c.text + n, "@main") == 0);
        CU_ASSERT(c.calls > 1);
        CU_ASSERT(c.largest <= PIECE_MAX);
        free(quoted);
        free(c.text);
        c = (collector){ 0 };
        CU_ASSERT_EQUAL(pego_result_write(r, PEGO_PRINT_JSON, collect, &c), 0);
        CU_ASSERT(c.largest <= PIECE_MAX);
        free(c.text);
    }
    free(in);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* The writer's error stops printing at once and is what pego_result_write
 * returns; a parse that failed prints nothing. */
static void test_writer_error(void)
{
    pego_grammar *g = compile(brackets);
    pego_parser *p = pego_parser_new(g);
    char *in = nested(500);
    const pego_result *r;
    CU_ASSERT_EQUAL_FATAL(pego_parse(p, in, strlen(in), NULL, &r), PEGO_OK);
    collector c = { .fail_at = 3 };
    CU_ASSERT_EQUAL(pego_result_write(r, PEGO_PRINT_JSON, collect, &c), 42);
    CU_ASSERT_EQUAL(c.calls, 3);
    free(c.text);
    CU_ASSERT_EQUAL(pego_parse(p, "[", 1, NULL, &r), PEGO_SYNTAX_ERROR);
    c = (collector){ 0 };
    CU_ASSERT_EQUAL(pego_result_write(r, PEGO_PRINT_SEXPR, collect, &c), -1);
    CU_ASSERT_EQUAL(c.calls, 0);
    free(in);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* pego_char_width reads characters as positions in code points count them:
 * a valid sequence whole, a byte that begins none alone, with four bytes
 * available or fewer. */
static void test_char_width(void)
{
    static const struct { const char *s; size_t n, width; } cases[] = {
        { "a\xC3\xA9..", 5, 1 },
        { "\xC3\xA9...", 5, 2 },            /* U+00E9 */
        { "\xE2\x82\xAC.", 4, 3 },          /* U+20AC */
        { "\xF0\x9F\x98\x80", 4, 4 },       /* U+1F600 */
        { "\xF0\x9F\x98\x80", 3, 1 },       /* cut short */
        { "\xC3", 1, 1 },
        { "\xE2\x82", 2, 1 },
        { "\xFF\xA9...", 5, 1 },            /* no lead byte */
        { "\xA9....", 5, 1 },                /* a continuation byte alone */
        { "\xC0\xAF...", 5, 1 },            /* overlong */
        { "\xE0\x80\xAF..", 5, 1 },         /* overlong */
        { "\xED\xA0\x80..", 5, 1 },         /* a surrogate */
        { "\xED\xA0\x80", 3, 1 },
        { "\xF4\x90\x80\x80", 4, 1 },       /* above U+10FFFF */
        { "\xE2\x82.", 3, 1 },              /* a third byte that continues nothing */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CU_ASSERT_EQUAL(pego_char_width(cases[i].s, cases[i].n), cases[i].width);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("print", NULL, NULL);
    CU_add_test(s, "written trees of the fixtures", test_fixtures);
    CU_add_test(s, "a deep tree in bounded pieces", test_deep_tree);
    CU_add_test(s, "a long terminal cut between code points", test_long_terminal);
    CU_add_test(s, "the writer's error", test_writer_error);
    CU_add_test(s, "the width of a character", test_char_width);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
