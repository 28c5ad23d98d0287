/* Unit tests of the engine through the public API: compile small grammars, parse,
 * and compare the printed tree or the syntax error with what docs/language.md says.
 * Also the memo policy (linear evaluations on an exponential grammar), the three
 * memo policies giving identical results, recognition mode, the nesting limit and
 * parser reuse. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"
#include "../runtime/parser.h"    /* the memo table */

/* Parses input with grammar src and returns the S-expression or "error: ..." */
static char *run(const char *src, const char *input, const pego_options *opt)
{
    pego_diag *diag = NULL;
    pego_grammar *g = pego_compile(src, strlen(src), "t.pego", &diag);
    if (!g) {
        char *s = strdup(pego_diag_text(diag));
        pego_diag_free(diag);
        return s;
    }
    pego_parser *p = pego_parser_new(g);
    const pego_result *r;
    char *out;
    if (pego_parse(p, input, strlen(input), opt, &r) == PEGO_OK) {
        out = opt && opt->recognize ? strdup("ok") : pego_result_print(r, PEGO_PRINT_SEXPR);
    } else {
        const char *e = pego_result_error(r);
        out = malloc(strlen(e) + 8);
        sprintf(out, "error: %s", e);
    }
    pego_parser_free(p);
    pego_grammar_free(g);
    return out;
}

#define CHECK_PARSE(src, input, expected) do { \
        char *got_ = run((src), (input), NULL); \
        CU_ASSERT_STRING_EQUAL(got_, (expected)); \
        if (strcmp(got_, (expected))) fprintf(stderr, "\n  got:      %s\n  expected: %s\n", got_, (expected)); \
        free(got_); \
    } while (0)

static void test_values(void)
{
    CHECK_PARSE("def main = \"y\" \"z\"", "yz", "(Seq \"y\" \"z\")@main");
    CHECK_PARSE("def main = \"x\" / \"y\" \"z\"", "x", "\"x\"@main");
    CHECK_PARSE("def main = one def one = \"x\"", "x", "\"x\"@one");
    CHECK_PARSE("def main = \"x\"*", "xxx", "[\"x\" \"x\" \"x\"]@main");
    CHECK_PARSE("def main = \"x\"?", "", "nil");
    CHECK_PARSE("def main = -\"a\" -\"b\"", "ab", "(Seq)@main");
    CHECK_PARSE("def main = -\"a\"", "a", "nil");
    CHECK_PARSE("def main = greeting name $$ def greeting = \"hi\" / \"hello\" def name = \" \" @(?a-z)+",
                "hello bob", "(Seq \"hello\"@greeting (Seq \" \" \"bob\")@name)@main");
    CHECK_PARSE("def main = _", "", "\"\"@main");
    CHECK_PARSE("def main = \"x\"{0,0} \"x\"", "x", "(Seq [] \"x\")@main");
}

static void test_captures(void)
{
    const char *g = "def pair = k:name -\"=\" v:name\n"
                    "def list = first:item rest:(-\",\" x:item)*\n"
                    "def item = @(?0-9)+\n"
                    "def name = @(?a-z)+\n"
                    "def wrap = x:name\n"
                    "def kv = k:name (\"=\" v:name)?\n";
    pego_options o = { .start_rule = "pair" };
    char *s = run(g, "a=b", &o);
    CU_ASSERT_STRING_EQUAL(s, "(Seq \"a\"@name \"b\"@name k=\"a\"@name v=\"b\"@name)@pair");
    free(s);
    o.start_rule = "list";
    s = run(g, "1,2", &o);
    CU_ASSERT_STRING_EQUAL(s, "(Seq \"1\"@item [(Seq \"2\"@item x=\"2\"@item)] first=\"1\"@item "
                              "rest=[(Seq \"2\"@item x=\"2\"@item)])@list");
    free(s);
    o.start_rule = "wrap";
    s = run(g, "a", &o);
    CU_ASSERT_STRING_EQUAL(s, "(Seq \"a\"@name x=\"a\"@name)@wrap");
    free(s);
    o.start_rule = "kv";
    s = run(g, "a", &o);
    CU_ASSERT_STRING_EQUAL(s, "(Seq \"a\"@name nil k=\"a\"@name)@kv");
    free(s);
}

static void test_errors(void)
{
    CHECK_PARSE("def main = \"(\" digits \")\" def digits = (?0-9)+", "(12",
                "error: 1:4: syntax error: expected \")\", (?0-9)");
    CHECK_PARSE("def main = \"\\u{e9}\" \"x\"", "\xc3\xa9y", "error: 1:2: syntax error: expected \"x\"");
    CHECK_PARSE("def main = \"a\" -- \"b\" / \"a\" \"c\"", "ac", "error: 1:2: syntax error: expected \"b\"");
    CHECK_PARSE("def main = \"a\"", "ab", "error: 1:2: syntax error: expected end of input");
    CHECK_PARSE("def main = !\"a\" \"b\"", "a", "error: 1:1: syntax error");
    CHECK_PARSE("def main = \"a\" / \"b\" / \"a\"", "c", "error: 1:1: syntax error: expected \"a\", \"b\"");
    pego_options bytes = { .unit = PEGO_UNIT_BYTES };
    char *s = run("def main = \"\\u{e9}\" \"x\"", "\xc3\xa9y", &bytes);
    CU_ASSERT_STRING_EQUAL(s, "error: 1:3: syntax error: expected \"x\"");
    free(s);
}

static void test_left_recursion(void)
{
    CHECK_PARSE("def main = sum $$ def sum = sum \"+\" n / n def n = @(?0-9)+", "1+2+3",
                "(Seq (Seq (Seq \"1\"@n \"+\" \"2\"@n)@sum \"+\" \"3\"@n)@sum)@main");
    CHECK_PARSE("def main = sum $$ def sum = n / sum \"+\" n def n = @(?0-9)+", "1+2+3",
                "error: 1:2: syntax error: expected (?0-9), end of input");
    CHECK_PARSE("def main = expr $$ def expr = add / n def add = expr \"+\" n def n = @(?0-9)+", "1+2",
                "(Seq (Seq \"1\"@n \"+\" \"2\"@n)@add)@main");
}

/* The same results with every memo policy and in recognition mode. */
static void test_memo_policies(void)
{
    const char *g = "def main = s* $$ def s = a \";\" / a \",\" / a \".\" def a = b \"x\" / b \"y\" / b def b = @(?a-z)+";
    const char *inputs[] = { "ab;cx,d.", "ab;c?", "" };
    for (int i = 0; i < 3; i++) {
        pego_options o = { 0 };
        char *base = run(g, inputs[i], &o);
        o.memo = PEGO_MEMO_ALL;
        char *all = run(g, inputs[i], &o);
        o.memo = PEGO_MEMO_NONE;
        char *none = run(g, inputs[i], &o);
        CU_ASSERT_STRING_EQUAL(base, all);
        CU_ASSERT_STRING_EQUAL(base, none);
        o.memo = PEGO_MEMO_DEFAULT;
        o.recognize = 1;
        char *rec = run(g, inputs[i], &o);
        if (strncmp(base, "error: ", 7) == 0) {
            CU_ASSERT_STRING_EQUAL(rec, base);
        } else {
            CU_ASSERT_STRING_EQUAL(rec, "ok");
        }
        free(base); free(all); free(none); free(rec);
    }
}

/* A grammar that backtracks over the same rule at the same position, and its
 * input of depth nested parentheses (in: 2 * depth + 2 bytes). */
static const char backtracking_src[] =
    "def main = e $$ def e = t \"+\" e / t \"-\" e / t def t = \"(\" e \")\" / \"x\"";
static void nested_input(char *in, int depth)
{
    memset(in, '(', (size_t)depth);
    in[depth] = 'x';
    memset(in + depth + 1, ')', (size_t)depth);
    in[2 * depth + 1] = 0;
}

/* Body evaluations must grow linearly with the input, not exponentially. */
static void test_memo_linear(void)
{
    const char *src = backtracking_src;
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    uint64_t evals[2];
    for (int k = 0; k < 2; k++) {
        int depth = k ? 40 : 20;
        char *in = malloc((size_t)depth * 2 + 2);
        nested_input(in, depth);
        const pego_result *r;
        CU_ASSERT_EQUAL(pego_parse(p, in, strlen(in), NULL, &r), PEGO_OK);
        evals[k] = pego_result_stats(r)->evals;
        CU_ASSERT(pego_result_stats(r)->memo_hits > 0);
        free(in);
    }
    CU_ASSERT(evals[1] <= 2 * evals[0] + 8);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* The fast program's own evaluations (the result's statistics before
 * pego_result_stats asks the reference program), building trees: a deferrable
 * rule called again and again at one position is evaluated at most three times
 * there (vm/loop.h, CALLG), and the backtracking grammar of test_memo_linear
 * stays linear in the input. */
static uint64_t fast_evals(pego_parser *p, const char *in)
{
    const pego_result *r;
    if (pego_parse(p, in, strlen(in), NULL, &r) != PEGO_OK || !r->stats.fast_program) return 0;
    return r->stats.evals;
}

static void test_memo_fast_deferral(void)
{
    /* main makes n calls of a at 0 before its last alternative matches */
    uint64_t evals[4];
    for (int k = 0; k < 4; k++) {
        int n = 2 + 2 * k;
        char src[512] = "def main = ", in[8];
        for (int i = 1; i <= n; i++)
            snprintf(src + strlen(src), sizeof src - strlen(src), "%sa \"%d\"", i > 1 ? " / " : "", i);
        strcat(src, "\ndef a = b (?x)+\ndef b = \"y\"\n");
        snprintf(in, sizeof in, "yxx%d", n);
        pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        pego_parser *p = pego_parser_new(g);
        evals[k] = fast_evals(p, in);
        pego_parser_free(p);
        pego_grammar_free(g);
    }
    CU_ASSERT(evals[0] > 0);
    CU_ASSERT(evals[1] > evals[0]);             /* two calls: two evaluations of a; from four on: three */
    CU_ASSERT_EQUAL(evals[2], evals[1]);
    CU_ASSERT_EQUAL(evals[3], evals[1]);

    pego_grammar *g = pego_compile(backtracking_src, strlen(backtracking_src), "t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    uint64_t linear[2];
    for (int k = 0; k < 2; k++) {
        int depth = k ? 12 : 6;       /* without a memo, 3^depth evaluations */
        char in[32];
        nested_input(in, depth);
        linear[k] = fast_evals(p, in);
    }
    CU_ASSERT(linear[0] > 0);
    CU_ASSERT(linear[1] <= 2 * linear[0] + 8);
    pego_parser_free(p);
    pego_grammar_free(g);
}

static void test_nesting_limit(void)
{
    const char *src = "def main = \"(\" main \")\" / \"x\"";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    pego_parser *p = pego_parser_new(g);
    size_t depth = 1000000;
    char *in = malloc(2 * depth + 2);
    memset(in, '(', depth);
    in[depth] = 'x';
    memset(in + depth + 1, ')', depth);
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse(p, in, 2 * depth + 1, NULL, &r), PEGO_ABORTED);
    CU_ASSERT_STRING_EQUAL(pego_result_error(r), "nesting too deep: more than 100000 rule calls");
    pego_options o = { .max_depth = 2000000, .recognize = 1 };
    CU_ASSERT_EQUAL(pego_parse(p, in, 2 * depth + 1, &o, &r), PEGO_OK);
    o.recognize = 0;
    CU_ASSERT_EQUAL(pego_parse(p, in, 2 * depth + 1, &o, &r), PEGO_OK);
    CU_ASSERT_EQUAL(pego_result_node_count(r), 3 * depth + 1);
    char *text = pego_result_print(r, PEGO_PRINT_SEXPR);
    CU_ASSERT_PTR_NOT_NULL(text);
    free(text);
    /* the parser stays usable after an aborted parse */
    CU_ASSERT_EQUAL(pego_parse(p, "(x)", 3, NULL, &r), PEGO_OK);
    free(in);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* Inside a Pratt expression: a million nested prefix operators or parentheses
 * stop with the nesting-limit message; a million chained left-associative
 * operators do not nest and parse. */
/* A rule referenced from one place, whose calls come round to it without a
 * memoized rule between (itself under ! and +, or through another such rule),
 * is memoized: the number of evaluations stays linear in the input, where it
 * used to grow exponentially (a 55-byte input took seconds). */
static void test_memo_recursion(void)
{
    static const char *grammars[] = {
        "def main = @. !main+",
        "def main = @. !b+\ndef b = main",
    };
    /* inputs that fail after trying much: the shape the fuzz target found */
    static const char input[] = "---a+= \"a\xff" "age<\"ne pla\xff\xff\xff\xff\xff\xff\xff---------";
    for (int gi = 0; gi < 2; gi++) {
        pego_diag *diag = NULL;
        pego_grammar *g = pego_compile(grammars[gi], strlen(grammars[gi]), "t.pego", &diag);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        pego_parser *p = pego_parser_new(g);
        for (size_t len = 8; len <= sizeof input - 1; len += 8) {
            const pego_result *r;
            pego_parse(p, input, len, NULL, &r);
            uint64_t evals = pego_result_stats(r)->evals;
            CU_ASSERT(evals <= 4 * (len + 1) * pego_grammar_rule_count(g));
            if (evals > 4 * (len + 1) * pego_grammar_rule_count(g))
                fprintf(stderr, "\n  grammar %d, %zu bytes: %llu evaluations", gi, len, (unsigned long long)evals);
        }
        pego_parser_free(p);
        pego_grammar_free(g);
    }
}

/* The nesting limit is the reference program's also where the fast program
 * compiles calls into their callers (string with its escape), skips them by a
 * byte test, or reuses the frame of a call in tail position (a): at every limit
 * around the depth an input needs, the default parse and one with
 * pego_options.reference give the same status and the same message, and with
 * room to spare the fast program finds the match itself. */
static void test_nesting_limit_fast(void)
{
    static const char *grammars[] = {
        "def main = a\ndef a = \"x\" a / \"y\"",
        "def main = v\ndef v = \"[\" ws v ws \"]\" / s\n"
        "def s = \"\\\"\" (e / (?^\"\\\\))* \"\\\"\"\ndef e = \"\\\\\" (?nt)\ndef ws = (? )*",
    };
    static const char *inputs[][3] = {
        { "xxxxxy", "y", "xxxxxxxxxxy" },
        { "[[[ \"a\\nb\" ]]]", "\"\\t\"", "[[[[[[\"\"]]]]]]" },
    };
    int compared = 0, fast_matches = 0;
    for (int gi = 0; gi < 2; gi++) {
        pego_diag *diag = NULL;
        pego_grammar *g = pego_compile(grammars[gi], strlen(grammars[gi]), "t.pego", &diag);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        pego_parser *p = pego_parser_new(g), *q = pego_parser_new(g);
        for (int ii = 0; ii < 3; ii++) {
            const char *in = inputs[gi][ii];
            for (uint32_t limit = 1; limit <= 14; limit++) {
                for (int rec = 0; rec < 2; rec++) {
                    pego_options o = { .max_depth = limit, .recognize = rec }, r = o;
                    r.reference = 1;
                    const pego_result *a, *b;
                    pego_status sa = pego_parse(p, in, strlen(in), &o, &a);
                    pego_status sb = pego_parse(q, in, strlen(in), &r, &b);
                    CU_ASSERT_EQUAL(sa, sb);
                    if (sa != PEGO_OK && sb != PEGO_OK) CU_ASSERT_STRING_EQUAL(pego_result_error(a), pego_result_error(b));
                    if (sa == PEGO_OK) {
                        if (limit == 14) CU_ASSERT_EQUAL(pego_result_stats(a)->fast_program, 1);
                        fast_matches += pego_result_stats(a)->fast_program;
                    }
                    if (sa != sb) fprintf(stderr, "\n  grammar %d input %s limit %u: %d vs %d", gi, in, limit, sa, sb);
                    compared++;
                }
            }
        }
        pego_parser_free(p);
        pego_parser_free(q);
        pego_grammar_free(g);
    }
    CU_ASSERT_EQUAL(compared, 2 * 3 * 14 * 2);
    CU_ASSERT(fast_matches > 0);
}

/* First-character dispatch (docs/architecture.md, Matching): at "x" main's
 * choice skips a, which must begin with "(" through a and b, without calling
 * them, so the parse makes one call. It skips it only where the two calls on
 * the way stay within the nesting limit: at a limit of 1 or 2 the reference
 * program calls a and stops at the limit, as it would without the dispatch. */
static void test_dispatch_depth(void)
{
    const char *src = "def main = a / \"x\"\ndef a = b\ndef b = \"(\" main \")\"";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    const pego_result *r;
    static const char *errors[] = { "nesting too deep: more than 1 rule calls",
                                    "nesting too deep: more than 2 rule calls" };
    for (uint32_t limit = 1; limit <= 4; limit++) {
        pego_options o = { .max_depth = limit, .reference = 1 };
        pego_status st = pego_parse(p, "x", 1, &o, &r);
        if (limit <= 2) {
            CU_ASSERT_EQUAL(st, PEGO_ABORTED);
            if (st == PEGO_ABORTED) CU_ASSERT_STRING_EQUAL(pego_result_error(r), errors[limit - 1]);
        } else {
            CU_ASSERT_EQUAL_FATAL(st, PEGO_OK);
            CU_ASSERT_EQUAL(pego_result_stats(r)->calls, 1);
        }
    }
    CU_ASSERT_EQUAL(pego_parse(p, "((x))", 5, NULL, &r), PEGO_OK);
    CU_ASSERT_EQUAL(pego_result_stats(r)->calls, 7);   /* main, a, b twice, and main at "x" */
    pego_parser_free(p);
    pego_grammar_free(g);
}

static void test_pratt_depth(void)
{
    const char *src = "def main = e $$\n"
                      "def e = pratt { operand @(?0-9)+ operand \"(\" e \")\" "
                      "level { infix left \"+\" } level { prefix \"-\" } }";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    size_t n = 1000000;
    char *in = malloc(2 * n + 2);
    const pego_result *r;
    memset(in, '-', n);
    in[n] = '1';
    CU_ASSERT_EQUAL(pego_parse(p, in, n + 1, NULL, &r), PEGO_ABORTED);
    CU_ASSERT_STRING_EQUAL(pego_result_error(r), "nesting too deep: more than 100000 rule calls");
    memset(in, '(', n);
    in[n] = '1';
    memset(in + n + 1, ')', n);
    CU_ASSERT_EQUAL(pego_parse(p, in, 2 * n + 1, NULL, &r), PEGO_ABORTED);
    CU_ASSERT_STRING_EQUAL(pego_result_error(r), "nesting too deep: more than 100000 rule calls");
    for (size_t i = 0; i < 2 * n + 1; i++) in[i] = i % 2 ? '+' : '1';
    pego_options o = { .recognize = 1 };
    CU_ASSERT_EQUAL(pego_parse(p, in, 2 * n + 1, &o, &r), PEGO_OK);
    CU_ASSERT_EQUAL(pego_parse(p, in, 2 * n + 1, NULL, &r), PEGO_OK);
    /* main's Seq, n Operator nodes, n + 1 operands and n "+" */
    CU_ASSERT_EQUAL(pego_result_node_count(r), 3 * n + 2);
    free(in);
    pego_parser_free(p);
    pego_grammar_free(g);
}

static void test_api(void)
{
    const char *src = "def main = k:@(?a-z)+ \"=\" v:@(?0-9)+";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    CU_ASSERT_EQUAL(pego_grammar_rule_count(g), 1);
    pego_parser *p = pego_parser_new(g);
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse(p, "ab=12", 5, NULL, &r), PEGO_OK);
    const pego_node *root = pego_result_tree(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_EQUAL(pego_node_type(r, root), PEGO_NODE_SEQ);
    CU_ASSERT_STRING_EQUAL(pego_node_rule(r, root), "main");
    CU_ASSERT_EQUAL(pego_node_child_count(r, root), 3);
    const pego_node *v = pego_node_field(r, root, "v");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    size_t len;
    const char *text = pego_node_text(r, v, &len);
    CU_ASSERT_EQUAL(len, 2);
    CU_ASSERT_NSTRING_EQUAL(text, "12", 2);
    CU_ASSERT_EQUAL(pego_node_start(r, v), 3);
    pego_options o = { .start_rule = "nope" };
    CU_ASSERT_EQUAL(pego_parse(p, "x", 1, &o, &r), PEGO_EUSAGE);
    CU_ASSERT_EQUAL(pego_parse(p, "ab=", 3, NULL, &r), PEGO_SYNTAX_ERROR);
    CU_ASSERT_EQUAL(pego_result_error_line(r), 1);
    CU_ASSERT_EQUAL(pego_result_error_column(r), 4);
    CU_ASSERT_EQUAL(pego_result_expected_count(r), 1);
    CU_ASSERT_STRING_EQUAL(pego_result_expected(r, 0), "(?0-9)");
    pego_parser_free(p);
    pego_grammar_free(g);
    pego_diag *d = NULL;
    CU_ASSERT_PTR_NULL(pego_compile_file("/nonexistent/x.pego", &d));
    CU_ASSERT_STRING_EQUAL(pego_diag_text(d), "/nonexistent/x.pego: No such file or directory");
    pego_diag_free(d);
}

/* Typed trees through the C API (docs/language.md 6): struct and terminal-typed
 * nodes, their type names, fields by name and index, integer, string and bool
 * values; the fast program builds them; an action's run-time error aborts. */
static void test_typed_api(void)
{
    const char *src =
        "type Num terminal\n"
        "type P struct { Key Num, Len int, Big bool, Name string, None *Num }\n"
        "def main = k:num \"=\" w:@(?a-z)+ -> new P{Key: $k, Len: len($w) * 3, Big: len($w) > 2,\n"
        "                                          Name: \"n:\" + text($w), None: nil}\n"
        "def num: Num = (?0-9)+\n"
        "def bad = \"x\" -> new P{Len: 1 / 0}\n";
    pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse(p, "42=ab\0c", 7, NULL, &r), PEGO_SYNTAX_ERROR);
    CU_ASSERT_EQUAL(pego_parse(p, "42=abc", 6, NULL, &r), PEGO_OK);
    CU_ASSERT_TRUE(pego_result_stats(r)->fast_program);
    const pego_node *root = pego_result_tree(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_EQUAL(pego_node_type(r, root), PEGO_NODE_STRUCT);
    CU_ASSERT_STRING_EQUAL(pego_node_type_name(r, root), "P");
    CU_ASSERT_PTR_NULL(pego_node_rule(r, root));
    CU_ASSERT_EQUAL(pego_node_start(r, root), 0);
    CU_ASSERT_EQUAL(pego_node_end(r, root), 6);
    CU_ASSERT_EQUAL(pego_node_child_count(r, root), 0);
    CU_ASSERT_EQUAL(pego_node_field_count(r, root), 5);
    /* fields in print order: Big Key Len Name None */
    CU_ASSERT_STRING_EQUAL(pego_node_field_name(r, root, 0), "Big");
    CU_ASSERT_EQUAL(pego_node_field_kind(r, root, 0), PEGO_FIELD_BOOL);
    int b = 0;
    CU_ASSERT_TRUE(pego_node_field_bool(r, root, 0, &b));
    CU_ASSERT_EQUAL(b, 1);
    long key = pego_node_field_index(r, root, "Key");
    CU_ASSERT_EQUAL(key, 1);
    CU_ASSERT_EQUAL(pego_node_field_kind(r, root, 1), PEGO_FIELD_NODE);
    const pego_node *k = pego_node_field(r, root, "Key");
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_EQUAL(pego_node_type(r, k), PEGO_NODE_TERMINAL);
    CU_ASSERT_STRING_EQUAL(pego_node_type_name(r, k), "Num");
    CU_ASSERT_STRING_EQUAL(pego_node_rule(r, k), "num");
    size_t len;
    CU_ASSERT_NSTRING_EQUAL(pego_node_text(r, k, &len), "42", 2);
    CU_ASSERT_EQUAL(len, 2);
    int64_t n = 0;
    CU_ASSERT_FALSE(pego_node_field_int(r, root, 1, &n));
    CU_ASSERT_TRUE(pego_node_field_int(r, root, 2, &n));
    CU_ASSERT_EQUAL(n, 9);
    const char *text = NULL;
    CU_ASSERT_EQUAL(pego_node_field_kind(r, root, 3), PEGO_FIELD_STRING);
    CU_ASSERT_TRUE(pego_node_field_text(r, root, 3, &text, &len));
    CU_ASSERT_EQUAL(len, 5);
    CU_ASSERT_STRING_EQUAL(text, "n:abc");
    CU_ASSERT_EQUAL(pego_node_field_index(r, root, "None"), 4);
    CU_ASSERT_PTR_NULL(pego_node_field_value(r, root, 4));
    CU_ASSERT_EQUAL(pego_node_field_index(r, root, "Nope"), -1);
    pego_options o = { .start_rule = "bad" };
    CU_ASSERT_EQUAL(pego_parse(p, "x", 1, &o, &r), PEGO_ABORTED);
    CU_ASSERT_STRING_EQUAL(pego_result_error(r), "action in bad: division by zero");
    CU_ASSERT_PTR_NULL(pego_result_tree(r));
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* The memo table keeps its slots in the order of the input while entries
 * spread over many positions, spreads them by a hash once many crowd on a few
 * positions, and finds every entry either way, after a reset too. */
static int memo_holds(rt_memo *m, uint32_t nv, uint32_t from, uint32_t to, uint32_t step)
{
    for (uint32_t pos = from; pos < to; pos += step)
        for (uint32_t v = 0; v < nv; v++) {
            const rt_memo_entry *e = rt_memo_find(m, v, pos, v % 2, 0);
            if (!e || e->end != pos + v || rt_memo_find(m, v, pos, v % 2 + 1, 0)) return 0;
        }
    return 1;
}

static int memo_fill(rt_memo *m, uint32_t nv, uint32_t from, uint32_t to, uint32_t step)
{
    for (uint32_t pos = from; pos < to; pos += step)
        for (uint32_t v = 0; v < nv; v++) {
            int added, again;
            rt_memo_entry *e = rt_memo_put(m, v, pos, v % 2, 0, nv, &added);
            if (!e || !added || rt_memo_put(m, v, pos, v % 2, 0, nv, &again) != e || again) return 0;
            e->end = pos + v;
        }
    return 1;
}

static void test_memo_slots(void)
{
    rt_memo m;
    memset(&m, 0, sizeof m);
    /* three rules memoized every 37 positions: the order of the input */
    CU_ASSERT_FATAL(memo_fill(&m, 3, 0, 200000, 37));
    CU_ASSERT_EQUAL(m.spread, 0);
    CU_ASSERT(m.shift > 0);
    CU_ASSERT(memo_holds(&m, 3, 0, 200000, 37));
    CU_ASSERT_PTR_NULL(rt_memo_find(&m, 0, 1, 0, 0));
    CU_ASSERT_PTR_NULL(rt_memo_find(&m, 3, 0, 0, 0));
    rt_memo_reset(&m);
    CU_ASSERT_PTR_NULL(rt_memo_find(&m, 0, 0, 0, 0));
    /* 300 rules at each of three positions: one line cannot hold them */
    CU_ASSERT_FATAL(memo_fill(&m, 300, 10, 13, 1));
    CU_ASSERT_EQUAL(m.spread, 1);
    CU_ASSERT(memo_holds(&m, 300, 10, 13, 1));
    /* a few entries in a large table: the reset clears their slots only */
    rt_memo_reset(&m);
    CU_ASSERT_EQUAL(m.spread, 0);
    CU_ASSERT_FATAL(memo_fill(&m, 2, 100, 110, 1));
    CU_ASSERT(memo_holds(&m, 2, 100, 110, 1));
    rt_memo_reset(&m);
    for (uint32_t pos = 100; pos < 110; pos++) CU_ASSERT_PTR_NULL(rt_memo_find(&m, 0, pos, 0, 0));
    CU_ASSERT_FATAL(memo_fill(&m, 2, 100, 110, 1));
    CU_ASSERT(memo_holds(&m, 2, 100, 110, 1));
    rt_memo_free(&m);

    /* Growth: twice the slots each time, while the input's length is not
     * known; known, the table grows once to the size the whole input needs at
     * the rate of the entries so far (3 every 37 positions of 200000, 16218
     * entries: 32768 slots), its blocks over the whole input (2048 lines for
     * 200000 positions: 128 positions a line, shift 7). */
    memset(&m, 0, sizeof m);
    CU_ASSERT_FATAL(memo_fill(&m, 3, 0, 20000, 37));
    CU_ASSERT_EQUAL(m.nslots, 4096);
    rt_memo_free(&m);
    memset(&m, 0, sizeof m);
    m.extent = 200000;
    CU_ASSERT_FATAL(memo_fill(&m, 3, 0, 20000, 37));
    CU_ASSERT_EQUAL(m.nslots, 32768);
    CU_ASSERT_EQUAL(m.shift, 7);
    CU_ASSERT_FATAL(memo_fill(&m, 3, 20017, 200000, 37));
    CU_ASSERT_EQUAL(m.nslots, 32768);
    CU_ASSERT(memo_holds(&m, 3, 0, 200000, 37));
    rt_memo_reset(&m);
    CU_ASSERT_EQUAL(m.extent, 0);
    rt_memo_free(&m);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("engine", NULL, NULL);
    CU_add_test(s, "values", test_values);
    CU_add_test(s, "captures", test_captures);
    CU_add_test(s, "errors", test_errors);
    CU_add_test(s, "left recursion", test_left_recursion);
    CU_add_test(s, "memo policies", test_memo_policies);
    CU_add_test(s, "memo linear", test_memo_linear);
    CU_add_test(s, "the fast program's deferrable rules: three evaluations at most, linear", test_memo_fast_deferral);
    CU_add_test(s, "nesting limit", test_nesting_limit);
    CU_add_test(s, "recursion without a memoized rule is memoized", test_memo_recursion);
    CU_add_test(s, "nesting limit of the fast program", test_nesting_limit_fast);
    CU_add_test(s, "first-character dispatch at the nesting limit", test_dispatch_depth);
    CU_add_test(s, "the memo table: ordered slots, spread when crowded, grown to the input", test_memo_slots);
    CU_add_test(s, "pratt depth", test_pratt_depth);
    CU_add_test(s, "api", test_api);
    CU_add_test(s, "typed trees through the api", test_typed_api);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
