/* Tests of the grammar reader: the lexer (tokens, escapes, classes, positions,
 * adjacency), the parser (AST shapes, bounds, keywords, syntax errors, recovery,
 * limits) and the definition checks with the "not supported yet" refusals. Expected
 * messages and positions are written by hand from docs/language.md (Part A). */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/ast.h"
#include "grammar_errors.h"
#include "../runtime/buf.h"
#include "../compiler/lexer.h"

/* ---- helpers ---- */

/* Compares two strings and shows both when they differ. */
static void expect_str(const char *file, int line, const char *actual, const char *expected)
{
    int ok = strcmp(actual, expected) == 0;
    if (!ok) fprintf(stderr, "\n%s:%d:\n  expected: %s\n  actual:   %s\n", file, line, expected, actual);
    CU_assertImplementation(ok, (unsigned)line, "strings equal", file, "", CU_FALSE);
}
#define EXPECT_STR(a, e) expect_str(__FILE__, __LINE__, (a), (e))

static void print_term(rt_buf *b, const ast_term *t);

static void print_bytes(rt_buf *b, const char *s, size_t n)
{
    rt_buf_addc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') rt_buf_printf(b, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f) rt_buf_printf(b, "\\x%02x", c);
        else rt_buf_addc(b, (char)c);
    }
    rt_buf_addc(b, '"');
}

static void print_cp(rt_buf *b, uint32_t c)
{
    if (c > 0x20 && c < 0x7f) rt_buf_addc(b, (char)c);
    else rt_buf_printf(b, "U+%04X", (unsigned)c);
}

static void print_terms(rt_buf *b, ast_term **k, int n, const char *sep)
{
    for (int i = 0; i < n; i++) {
        if (i) rt_buf_adds(b, sep);
        print_term(b, k[i]);
    }
}

static void print_term(rt_buf *b, const ast_term *t)
{
    switch (t->kind) {
    case TERM_INT: rt_buf_printf(b, "%lld", (long long)t->ival); break;
    case TERM_STRING: print_bytes(b, t->sval, t->slen); break;
    case TERM_CAPREF: rt_buf_printf(b, "$%s", t->sval); break;
    case TERM_VAR: rt_buf_adds(b, t->sval); break;
    case TERM_NEW:
        rt_buf_printf(b, "new %s{", t->sval);
        for (int i = 0; i < t->nkids; i++) {
            rt_buf_printf(b, "%s%s: ", i ? ", " : "", t->names[i]);
            print_term(b, t->kids[i]);
        }
        rt_buf_addc(b, '}');
        break;
    case TERM_CALL:
        rt_buf_printf(b, "%s(", t->sval);
        print_terms(b, t->kids, t->nkids, ", ");
        rt_buf_addc(b, ')');
        break;
    case TERM_LAMBDA:
        rt_buf_addc(b, '(');
        for (int i = 0; i < t->nnames; i++) rt_buf_printf(b, "%s%s", i ? ", " : "", t->names[i]);
        rt_buf_adds(b, ") => ");
        print_term(b, t->kids[0]);
        break;
    case TERM_UNARY:
        rt_buf_printf(b, "(%s", t->sval);
        print_term(b, t->kids[0]);
        rt_buf_addc(b, ')');
        break;
    case TERM_BINARY:
        rt_buf_addc(b, '(');
        print_term(b, t->kids[0]);
        rt_buf_printf(b, " %s ", t->sval);
        print_term(b, t->kids[1]);
        rt_buf_addc(b, ')');
        break;
    case TERM_MEMBER:
        print_term(b, t->kids[0]);
        rt_buf_printf(b, ".%s", t->sval);
        break;
    }
}

static void print_expr(rt_buf *b, const ast_expr *e);

static void print_kids(rt_buf *b, const char *head, const ast_expr *e)
{
    rt_buf_printf(b, "(%s", head);
    for (int i = 0; i < e->nkids; i++) {
        rt_buf_addc(b, ' ');
        print_expr(b, e->kids[i]);
    }
    rt_buf_addc(b, ')');
}

static void print_part(rt_buf *b, const char *head, const ast_expr *e, const ast_term *action)
{
    rt_buf_printf(b, " (%s ", head);
    print_expr(b, e);
    if (action) {
        rt_buf_adds(b, " -> ");
        print_term(b, action);
    }
    rt_buf_addc(b, ')');
}

static void print_expr(rt_buf *b, const ast_expr *e)
{
    static const char *const anchors[] = { "^^", "$$", "^", "$" };
    static const char *const op_kinds[] = { "prefix", "postfix", "infix left", "infix right", "infix none" };
    switch (e->kind) {
    case AST_LITERAL: print_bytes(b, e->text, e->len); break;
    case AST_CLASS:
        rt_buf_adds(b, e->negated ? "(class ^" : "(class");
        for (int i = 0; i < e->nranges; i++) {
            rt_buf_addc(b, ' ');
            print_cp(b, e->ranges[i].lo);
            if (e->ranges[i].hi != e->ranges[i].lo) {
                rt_buf_addc(b, '-');
                print_cp(b, e->ranges[i].hi);
            }
        }
        rt_buf_addc(b, ')');
        break;
    case AST_ANY: rt_buf_addc(b, '.'); break;
    case AST_TOP: rt_buf_addc(b, '_'); break;
    case AST_BOTTOM: rt_buf_adds(b, "_|_"); break;
    case AST_ANCHOR: rt_buf_adds(b, anchors[e->anchor]); break;
    case AST_CUT: rt_buf_adds(b, "--"); break;
    case AST_SEQ: print_kids(b, "seq", e); break;
    case AST_CHOICE: print_kids(b, "/", e); break;
    case AST_REPEAT: {
        char head[64];
        snprintf(head, sizeof head, "rep %lld %lld", (long long)e->min, (long long)e->max);
        print_kids(b, head, e);
        break;
    }
    case AST_OPTIONAL: print_kids(b, "?", e); break;
    case AST_AND: print_kids(b, "&", e); break;
    case AST_NOT: print_kids(b, "!", e); break;
    case AST_ATOMIC: print_kids(b, "@", e); break;
    case AST_DISCARD: print_kids(b, "-", e); break;
    case AST_CAPTURE: {
        char head[64];
        snprintf(head, sizeof head, ": %s", e->name);
        print_kids(b, head, e);
        break;
    }
    case AST_CALL:
        rt_buf_adds(b, e->name);
        if (e->level) rt_buf_printf(b, "(%s)", e->level);
        break;
    case AST_PREDICATE:
        rt_buf_addc(b, '[');
        if (e->name) rt_buf_printf(b, "%s = ", e->name);
        print_term(b, e->term);
        rt_buf_addc(b, ']');
        break;
    case AST_ATTRIBUTE:
        rt_buf_printf(b, "(#%s ", e->name);
        print_expr(b, e->kids[0]);
        for (int i = 0; i < e->nargs; i++) {
            rt_buf_printf(b, " %s=", e->args[i].name);
            print_expr(b, e->args[i].value);
        }
        rt_buf_addc(b, ')');
        break;
    case AST_PRATT: {
        const ast_pratt *p = e->pratt;
        rt_buf_adds(b, "(pratt");
        if (p->skip) print_part(b, "skip", p->skip, NULL);
        for (int i = 0; i < p->noperands; i++)
            print_part(b, "operand", p->operands[i].expr, p->operands[i].action);
        for (int i = 0; i < p->nlevels; i++) {
            rt_buf_printf(b, " (level%s%s", p->levels[i].name ? " " : "",
                          p->levels[i].name ? p->levels[i].name : "");
            for (int j = 0; j < p->levels[i].nops; j++)
                print_part(b, op_kinds[p->levels[i].ops[j].kind], p->levels[i].ops[j].expr,
                           p->levels[i].ops[j].action);
            rt_buf_addc(b, ')');
        }
        rt_buf_addc(b, ')');
        break;
    }
    }
}

static void print_type(rt_buf *b, const ast_type *t)
{
    switch (t->kind) {
    case TYPE_NAME: rt_buf_adds(b, t->name); break;
    case TYPE_LIST: rt_buf_adds(b, "[]"); print_type(b, t->kids[0]); break;
    case TYPE_PTR: rt_buf_adds(b, "*"); print_type(b, t->kids[0]); break;
    case TYPE_UNION:
        rt_buf_addc(b, '(');
        for (int i = 0; i < t->nkids; i++) {
            if (i) rt_buf_adds(b, " | ");
            print_type(b, t->kids[i]);
        }
        rt_buf_addc(b, ')');
        break;
    }
}

/* The whole grammar, one definition a line. */
static char *grammar_text(const ast_grammar *g)
{
    rt_buf b;
    rt_buf_init(&b);
    if (g->package) rt_buf_printf(&b, "package %s\n", g->package);
    for (int i = 0; i < g->ntypes; i++) {
        const ast_typedef *t = &g->types[i];
        rt_buf_printf(&b, "type %s", t->name);
        if (t->kind == TYPEDEF_TERMINAL) rt_buf_adds(&b, " terminal");
        if (t->kind == TYPEDEF_ALIAS) { rt_buf_adds(&b, " = "); print_type(&b, t->alias); }
        if (t->kind == TYPEDEF_STRUCT) {
            rt_buf_adds(&b, " struct {");
            for (int j = 0; j < t->nfields; j++) {
                rt_buf_printf(&b, " %s ", t->field_names[j]);
                print_type(&b, t->field_types[j]);
            }
            rt_buf_adds(&b, " }");
        }
        rt_buf_addc(&b, '\n');
    }
    for (int i = 0; i < g->nrules; i++) {
        const ast_rule *r = &g->rules[i];
        rt_buf_adds(&b, r->name);
        if (r->type) { rt_buf_adds(&b, ": "); print_type(&b, r->type); }
        rt_buf_adds(&b, " = ");
        print_expr(&b, r->body);
        if (r->action) { rt_buf_adds(&b, " -> "); print_term(&b, r->action); }
        rt_buf_addc(&b, '\n');
    }
    return rt_buf_take(&b);
}

static ast_grammar *parse(const char *src, cc_errors *errs)
{
    return cc_parse(src, strlen(src), errs);
}

/* src must parse; its AST printed as above must be `expected`. */
static void expect_ast(const char *file, int line, const char *src, const char *expected)
{
    cc_errors errs = { 0 };
    ast_grammar *g = parse(src, &errs);
    char *et = grammar_errors_text(&errs);
    expect_str(file, line, et, "");
    if (g) {
        char *text = grammar_text(g);
        expect_str(file, line, text, expected);
        free(text);
    }
    CU_assertImplementation(g != NULL, (unsigned)line, "parsed", file, "", CU_FALSE);
    free(et);
    ast_grammar_free(g);
    cc_errors_free(&errs);
}
#define EXPECT_AST(src, e) expect_ast(__FILE__, __LINE__, (src), (e))

/* src must fail to parse with exactly these errors. */
static void expect_parse_errors(const char *file, int line, const char *src, const char *expected)
{
    cc_errors errs = { 0 };
    ast_grammar *g = parse(src, &errs);
    CU_assertImplementation(g == NULL, (unsigned)line, "parse failed", file, "", CU_FALSE);
    char *et = grammar_errors_text(&errs);
    expect_str(file, line, et, expected);
    free(et);
    ast_grammar_free(g);
    cc_errors_free(&errs);
}
#define EXPECT_PARSE_ERRORS(src, e) expect_parse_errors(__FILE__, __LINE__, (src), (e))

/* src must parse; cc_check must then report exactly these errors. */
static void expect_check(const char *file, int line, const char *src, const char *expected)
{
    cc_errors errs = { 0 };
    ast_grammar *g = parse(src, &errs);
    char *et = grammar_errors_text(&errs);
    expect_str(file, line, et, "");
    free(et);
    if (g) {
        int n = cc_check(g, &errs);
        CU_assertImplementation(n == errs.n, (unsigned)line, "count returned", file, "", CU_FALSE);
        et = grammar_errors_text(&errs);
        expect_str(file, line, et, expected);
        free(et);
    }
    CU_assertImplementation(g != NULL, (unsigned)line, "parsed", file, "", CU_FALSE);
    ast_grammar_free(g);
    cc_errors_free(&errs);
}
#define EXPECT_CHECK(src, e) expect_check(__FILE__, __LINE__, (src), (e))

/* Token kinds of src, or NULL-terminated list check. */
static void expect_tokens(const char *file, int line, const char *src, const cc_tok_kind *kinds, int n)
{
    cc_tokens t;
    cc_errors errs = { 0 };
    cc_lex(src, strlen(src), &t, &errs);
    char *et = grammar_errors_text(&errs);
    expect_str(file, line, et, "");
    free(et);
    int ok = t.n == n + 1 && t.toks[n].kind == CC_TK_EOF;
    for (int i = 0; ok && i < n; i++) ok = t.toks[i].kind == kinds[i];
    if (!ok) {
        fprintf(stderr, "\n%s:%d: token kinds of %s:", file, line, src);
        for (int i = 0; i < t.n; i++) fprintf(stderr, " %d", t.toks[i].kind);
        fprintf(stderr, "\n");
    }
    CU_assertImplementation(ok, (unsigned)line, "token kinds", file, "", CU_FALSE);
    cc_tokens_free(&t);
    cc_errors_free(&errs);
}
#define EXPECT_TOKENS(src, ...) do { \
        static const cc_tok_kind k_[] = { __VA_ARGS__ }; \
        expect_tokens(__FILE__, __LINE__, (src), k_, (int)(sizeof k_ / sizeof k_[0])); \
    } while (0)

/* ---- lexer ---- */

static void test_token_kinds(void)
{
    EXPECT_TOKENS("name _x _ é日本 x1",
                  CC_TK_IDENT, CC_TK_IDENT, CC_TK_IDENT, CC_TK_IDENT, CC_TK_IDENT);
    EXPECT_TOKENS("\"s\" (?a) 42 $x $1 $_y",
                  CC_TK_STRING, CC_TK_CLASS, CC_TK_INT, CC_TK_CAPREF, CC_TK_CAPREF, CC_TK_CAPREF);
    EXPECT_TOKENS("_|_ ^^ $$ -- -> => == != <= >= && || []",
                  CC_TK_BOTTOM, CC_TK_BOI, CC_TK_EOI, CC_TK_CUT, CC_TK_ARROW, CC_TK_FATARROW, CC_TK_EQ,
                  CC_TK_NE, CC_TK_LE, CC_TK_GE, CC_TK_ANDAND, CC_TK_OROR, CC_TK_LIST);
    EXPECT_TOKENS(": = / ( ) { } [ ] , . * + ? & ! @ - ^ $ # | < > %",
                  CC_TK_COLON, CC_TK_ASSIGN, CC_TK_SLASH, CC_TK_LPAREN, CC_TK_RPAREN, CC_TK_LBRACE,
                  CC_TK_RBRACE, CC_TK_LBRACK, CC_TK_RBRACK, CC_TK_COMMA, CC_TK_DOT, CC_TK_STAR, CC_TK_PLUS,
                  CC_TK_QUESTION, CC_TK_AMP, CC_TK_BANG, CC_TK_AT, CC_TK_MINUS, CC_TK_CARET, CC_TK_DOLLAR,
                  CC_TK_HASH, CC_TK_PIPE, CC_TK_LT, CC_TK_GT, CC_TK_PERCENT);
}

static void test_longest_match(void)
{
    EXPECT_TOKENS("--a", CC_TK_CUT, CC_TK_IDENT);
    EXPECT_TOKENS("- -a", CC_TK_MINUS, CC_TK_MINUS, CC_TK_IDENT);
    EXPECT_TOKENS("--->", CC_TK_CUT, CC_TK_ARROW);
    EXPECT_TOKENS("$$x", CC_TK_EOI, CC_TK_IDENT);
    EXPECT_TOKENS("$ x", CC_TK_DOLLAR, CC_TK_IDENT);
    EXPECT_TOKENS("$1a", CC_TK_CAPREF, CC_TK_IDENT);
    EXPECT_TOKENS("$)", CC_TK_DOLLAR, CC_TK_RPAREN);
    EXPECT_TOKENS("[]T [ ]", CC_TK_LIST, CC_TK_IDENT, CC_TK_LBRACK, CC_TK_RBRACK);
    EXPECT_TOKENS("_|_x _|", CC_TK_BOTTOM, CC_TK_IDENT, CC_TK_IDENT, CC_TK_PIPE);
    EXPECT_TOKENS("a!=b&&!c", CC_TK_IDENT, CC_TK_NE, CC_TK_IDENT, CC_TK_ANDAND, CC_TK_BANG, CC_TK_IDENT);
    EXPECT_TOKENS("^^^", CC_TK_BOI, CC_TK_CARET);
    EXPECT_TOKENS("===>", CC_TK_EQ, CC_TK_FATARROW);
    EXPECT_TOKENS("name(?a)", CC_TK_IDENT, CC_TK_CLASS);
    EXPECT_TOKENS("( ?a)", CC_TK_LPAREN, CC_TK_QUESTION, CC_TK_IDENT, CC_TK_RPAREN);
    EXPECT_TOKENS("12ab", CC_TK_INT, CC_TK_IDENT);
}

static void test_values(void)
{
    cc_tokens t;
    cc_errors errs = { 0 };
    const char *src = "$label $12 9223372036854775807 abc";
    cc_lex(src, strlen(src), &t, &errs);
    CU_ASSERT_EQUAL(errs.n, 0);
    CU_ASSERT_EQUAL(t.n, 5);
    CU_ASSERT_EQUAL(t.toks[0].end - t.toks[0].off, 6);
    CU_ASSERT_EQUAL(t.toks[1].end - t.toks[1].off, 3);
    CU_ASSERT_EQUAL(t.toks[2].ival, INT64_MAX);
    CU_ASSERT_EQUAL(t.toks[3].off, 31);
    CU_ASSERT_EQUAL(t.toks[3].end, 34);
    cc_tokens_free(&t);
    cc_errors_free(&errs);
}

static void test_positions(void)
{
    cc_tokens t;
    cc_errors errs = { 0 };
    /* LF, CR LF and lone CR end lines; columns count code points; a tab is one column. */
    const char *src = "a\nb\r\n\tc\rdé e\xe2\x80\x83" "f // x\n g";
    cc_lex(src, strlen(src), &t, &errs);
    CU_ASSERT_EQUAL(errs.n, 0);
    CU_ASSERT_EQUAL_FATAL(t.n, 8);
    static const int lines[] = { 1, 2, 3, 4, 4, 4, 5, 5 }, cols[] = { 1, 1, 2, 1, 4, 6, 2, 3 };
    for (int i = 0; i < 8; i++) {
        CU_ASSERT_EQUAL(t.toks[i].line, lines[i]);
        CU_ASSERT_EQUAL(t.toks[i].col, cols[i]);
    }
    cc_tokens_free(&t);
    cc_errors_free(&errs);
}

static void test_adjacency(void)
{
    cc_tokens t;
    cc_errors errs = { 0 };
    const char *src = "x:a y :b c/*d*/e//f\ng(h) i (j)";
    cc_lex(src, strlen(src), &t, &errs);
    /* x : a y : b c / * d * / e g ( h ) i ( j ) EOF */
    static const int adj[] = { 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1 };
    CU_ASSERT_EQUAL_FATAL(t.n, (int)(sizeof adj / sizeof adj[0]));
    for (int i = 0; i < t.n; i++) {
        if (t.toks[i].adjacent != adj[i]) fprintf(stderr, "\ntoken %d: adjacent %d\n", i, t.toks[i].adjacent);
        CU_ASSERT_EQUAL(t.toks[i].adjacent, adj[i]);
    }
    cc_tokens_free(&t);
    cc_errors_free(&errs);
}

static void test_white_space_and_comments(void)
{
    /* U+0085, U+00A0, U+1680, U+2000, U+2028, U+202F, U+205F, U+3000 separate tokens */
    EXPECT_TOKENS("a\xc2\x85" "b\xc2\xa0" "c\xe1\x9a\x80" "d\xe2\x80\x80" "e\xe2\x80\xa8" "f\xe2\x80\xaf"
                  "g\xe2\x81\x9f" "h\xe3\x80\x80" "i\v\fj",
                  CC_TK_IDENT, CC_TK_IDENT, CC_TK_IDENT, CC_TK_IDENT, CC_TK_IDENT, CC_TK_IDENT,
                  CC_TK_IDENT, CC_TK_IDENT, CC_TK_IDENT, CC_TK_IDENT);
    EXPECT_TOKENS("a // comment \"x\n b // last", CC_TK_IDENT, CC_TK_IDENT);
    EXPECT_TOKENS("a // comment\r b", CC_TK_IDENT, CC_TK_IDENT);
    EXPECT_AST("def a = \"//\" (?//) // c\n", "a = (seq \"//\" (class / /))\n");
}

/* ---- escapes ---- */

static void test_escapes(void)
{
    EXPECT_AST("def a = \"\\n\\t\\r\\f\\v\\a\\b\\0\"", "a = \"\\x0a\\x09\\x0d\\x0c\\x0b\\x07\\x08\\x00\"\n");
    EXPECT_AST("def a = \"\\u{1F600}\\u0041\\u{0}\\u{10FFFF}\"",
               "a = \"\\xf0\\x9f\\x98\\x80A\\x00\\xf4\\x8f\\xbf\\xbf\"\n");
    EXPECT_AST("def a = \"\\\\\\\"\\-\\)\\]\\ \\\xc3\xa9\"", "a = \"\\\\\\\"-)] \\xc3\\xa9\"\n");
    EXPECT_AST("def a = \"é\"", "a = \"\\xc3\\xa9\"\n");
    /* a raw CR inside a literal is accepted */
    EXPECT_AST("def a = \"x\ry\"", "a = \"x\\x0dy\"\n");
}

static void test_invalid_escapes(void)
{
    EXPECT_PARSE_ERRORS("def a = \"\\q\"", "1:10: invalid escape sequence \\q");
    EXPECT_PARSE_ERRORS("def a = \"x\\8\"", "1:11: invalid escape sequence \\8");
    EXPECT_PARSE_ERRORS("def a = \"\\u{110000}\"", "1:10: invalid escape sequence \\u{110000}");
    EXPECT_PARSE_ERRORS("def a = \"\\u{D800}\"", "1:10: invalid escape sequence \\u{D800}");
    EXPECT_PARSE_ERRORS("def a = \"\\uDFFF\"", "1:10: invalid escape sequence \\uDFFF");
    EXPECT_PARSE_ERRORS("def a = \"\\u12\"", "1:10: invalid escape sequence \\u12");
    EXPECT_PARSE_ERRORS("def a = \"\\u{}\"", "1:10: invalid escape sequence \\u{");
    EXPECT_PARSE_ERRORS("def a = \"\\u{12\"", "1:10: invalid escape sequence \\u{12");
    EXPECT_PARSE_ERRORS("def a = (?\\w)", "1:11: invalid escape sequence \\w");
    /* every bad escape of a literal is reported, and parsing goes on */
    EXPECT_PARSE_ERRORS("def a = \"\\x\\y\" b\ndef b = (",
                        "1:10: invalid escape sequence \\x\n"
                        "1:12: invalid escape sequence \\y\n"
                        "2:10: expected an expression, found end of file");
}

static void test_unterminated_strings(void)
{
    EXPECT_PARSE_ERRORS("def a = \"abc", "1:9: unterminated string literal");
    EXPECT_PARSE_ERRORS("def a = \"ab\ncd\"\n", "1:9: unterminated string literal\n2:3: unterminated string literal");
    EXPECT_PARSE_ERRORS("def a = \"ab\\\n\" b", "1:9: unterminated string literal\n2:1: unterminated string literal");
}

/* ---- character classes ---- */

static void test_classes(void)
{
    EXPECT_AST("def a = (?a-z_)", "a = (class a-z _)\n");
    EXPECT_AST("def a = (?^\"\\\\)", "a = (class ^ \" \\)\n");
    EXPECT_AST("def a = (?\\-(?\\))", "a = (class - ( ? ))\n");
    EXPECT_AST("def a = (?-a) (?a-) (?--/)", "a = (seq (class - a) (class a -) (class --/))\n");
    EXPECT_AST("def a = (? \\t)", "a = (class U+0020 U+0009)\n");
    EXPECT_AST("def a = (?^^) (?a^)", "a = (seq (class ^ ^) (class a ^))\n");
    EXPECT_AST("def a = (?^;{}\\n)", "a = (class ^ ; { } U+000A)\n");
    EXPECT_AST("def a = (?\\u{0}-\\u{1f}\\u{D7FF}-\\u{E000})", "a = (class U+0000-U+001F U+D7FF-U+E000)\n");
    EXPECT_AST("def a = (?é-ü)", "a = (class U+00E9-U+00FC)\n");
    EXPECT_AST("def a = (?a-a)", "a = (class a)\n");
}

static void test_class_errors(void)
{
    EXPECT_PARSE_ERRORS("def a = (?)", "1:9: empty character class");
    EXPECT_PARSE_ERRORS("def a = (?^)", "1:9: empty character class");
    EXPECT_PARSE_ERRORS("def a = (?z-a)", "1:11: invalid character class range z-a");
    EXPECT_PARSE_ERRORS("def a = (?a\\)-\\()", "1:12: invalid character class range \\)-\\(");
    EXPECT_PARSE_ERRORS("def a = (?abc", "1:9: unterminated character class");
    EXPECT_PARSE_ERRORS("def a = (?ab\nc)", "1:9: unterminated character class\n2:2: expected a definition, found ')'");
    EXPECT_PARSE_ERRORS("def a = (?a-", "1:9: unterminated character class");
    EXPECT_PARSE_ERRORS("def a = (?\\u{D800}-\\u{DFFF})",
                        "1:11: invalid escape sequence \\u{D800}\n1:20: invalid escape sequence \\u{DFFF}");
}

/* ---- integers and unexpected characters ---- */

static void test_integers(void)
{
    EXPECT_AST("def a = x{9223372036854775807}", "a = (rep 9223372036854775807 9223372036854775807 x)\n");
    EXPECT_PARSE_ERRORS("def a = x{9223372036854775808}", "1:11: integer 9223372036854775808 is too large");
    EXPECT_PARSE_ERRORS("def a = x{99999999999999999999,}", "1:11: integer 99999999999999999999 is too large");
}

static void test_unexpected_characters(void)
{
    EXPECT_PARSE_ERRORS("def a = \"x\" ~~ \"y\"", "1:13: unexpected character '~~'");
    EXPECT_PARSE_ERRORS("def a = \"x\";\ndef b = ;;\"y\";", "1:12: unexpected character ';'\n"
                        "2:9: unexpected character ';;'\n2:14: unexpected character ';'");
    EXPECT_PARSE_ERRORS("def a = 'x'", "1:9: unexpected character '\\''\n1:11: unexpected character '\\''");
    EXPECT_PARSE_ERRORS("def a = \\ x", "1:9: unexpected character '\\\\'");
    EXPECT_PARSE_ERRORS("def a = x\x01\x7f y", "1:10: unexpected character '\\x01\\x7f'");
    EXPECT_PARSE_ERRORS("def a = \xff\xfe x", "1:9: unexpected character '\\xff\\xfe'");
    cc_errors errs = { 0 };
    static const char nuls[] = "def a = x\0\0 y";
    CU_ASSERT_PTR_NULL(cc_parse(nuls, sizeof nuls - 1, &errs));
    char *et = grammar_errors_text(&errs);
    EXPECT_STR(et, "1:10: unexpected character '\\x00\\x00'");
    free(et);
    cc_errors_free(&errs);
    EXPECT_PARSE_ERRORS("def a = x \xc3\x97\xc2\xa7 y", "1:11: unexpected character '\xc3\x97\xc2\xa7'");
    /* A.3.1's approximation counts everything from U+00F8 up as letters */
    EXPECT_AST("def a = x \xe2\x86\x92 y", "a = (seq x \xe2\x86\x92 y)\n");
}

/* ---- the parser ---- */

static void test_file_structure(void)
{
    EXPECT_AST("", "");
    EXPECT_AST("// only a comment\n", "");
    EXPECT_AST("package calc def main = \"a\"", "package calc\nmain = \"a\"\n");
    EXPECT_AST("def a = \"x\" def b = a type T terminal def c = b",
               "type T terminal\na = \"x\"\nb = a\nc = b\n");
    EXPECT_PARSE_ERRORS("def a = x package p", "1:11: the package clause must come first in the file");
    EXPECT_PARSE_ERRORS("package", "1:8: expected a package name, found end of file");
    EXPECT_PARSE_ERRORS("a = b", "1:1: expected a definition, found 'a'");
    EXPECT_PARSE_ERRORS("def = x", "1:5: expected a rule name, found '='");
    EXPECT_PARSE_ERRORS("def a x", "1:7: expected '=', found 'x'");
    EXPECT_PARSE_ERRORS("def a == x", "1:7: expected '=', found '=='");
}

static void test_expressions(void)
{
    EXPECT_AST("def a = . _ _|_ ^^ $$ ^ $ --", "a = (seq . _ _|_ ^^ $$ ^ $ --)\n");
    EXPECT_AST("def a = &b !c @d -e", "a = (seq (& b) (! c) (@ d) (- e))\n");
    EXPECT_AST("def a = \"a\" \"b\" / \"c\"", "a = (/ (seq \"a\" \"b\") \"c\")\n");
    EXPECT_AST("def a = (\"a\" / \"b\") c", "a = (seq (/ \"a\" \"b\") c)\n");
    EXPECT_AST("def a = @(?0-9)+", "a = (@ (rep 1 -1 (class 0-9)))\n");
    EXPECT_AST("def a = x:b*", "a = (: x (rep 0 -1 b))\n");
    EXPECT_AST("def a = x:@b y: c", "a = (seq (: x (@ b)) (: y c))\n");
    EXPECT_AST("def a = - -b --c", "a = (seq (- (- b)) -- c)\n");
    EXPECT_AST("def a = b*? c+ d? e ?", "a = (seq (? (rep 0 -1 b)) (rep 1 -1 c) (? d) (? e))\n");
    EXPECT_AST("def a = x:b #error(message=\"m\")", "a = (: x (#error b message=\"m\"))\n");
    EXPECT_AST("def a = b #error(message=\"m\") #recover(skip=(?^;)* \";\",)",
               "a = (#recover (#error b message=\"m\") skip=(seq (rep 0 -1 (class ^ ;)) \";\"))\n");
    EXPECT_AST("def a = b* #stream #x() c", "a = (seq (#x (#stream (rep 0 -1 b))) c)\n");
    EXPECT_AST("def a = [x = 1] [len($s) > 0] [ok]", "a = (seq [x = 1] [(len($s) > 0)] [ok])\n");
    EXPECT_AST("def a = [x == 1] [y]", "a = (seq [(x == 1)] [y])\n");
}

static void test_bounds(void)
{
    EXPECT_AST("def a = x{2} x{2,} x{,3} x{2,3} x{,} x{0}",
               "a = (seq (rep 2 2 x) (rep 2 -1 x) (rep 0 3 x) (rep 2 3 x) (rep 0 -1 x) (rep 0 0 x))\n");
    EXPECT_AST("def a = (?0-7){3}+", "a = (rep 1 -1 (rep 3 3 (class 0-7)))\n");
    EXPECT_PARSE_ERRORS("def a = x{}", "1:10: empty bounds {}: write {n}, {n,}, {,m} or {n,m}");
    EXPECT_PARSE_ERRORS("def a = x{3,2}", "1:10: invalid bounds {3,2}: the maximum is less than the minimum");
    EXPECT_PARSE_ERRORS("def a = x{a}", "1:11: expected an integer, found 'a'");
    EXPECT_PARSE_ERRORS("def a = x{1 2}", "1:13: expected ',' or '}', found '2'");
    EXPECT_PARSE_ERRORS("def a = x{1,2", "1:14: expected '}', found end of file");
}

static void test_adjacency_rules(void)
{
    EXPECT_PARSE_ERRORS("def a = x :b", "1:11: no white space allowed between capture label x and ':'");
    EXPECT_PARSE_ERRORS("def a = x //c\n:b", "2:1: no white space allowed between capture label x and ':'");
    EXPECT_PARSE_ERRORS("def a = \"a\" {2}", "1:13: no white space allowed before bounds '{'");
    EXPECT_PARSE_ERRORS("def a = \"a\"/*c*/{2}", "1:13: expected an expression, found '*'");
    EXPECT_AST("def a = expr (x)", "a = (seq expr x)\n");
    EXPECT_AST("def a = expr(x) b", "a = (seq expr(x) b)\n");
    EXPECT_AST("def a = r(?a-z)", "a = (seq r (class a-z))\n");
    EXPECT_AST("def a = b #error (x)", "a = (seq (#error b) x)\n");
    EXPECT_PARSE_ERRORS("def a = \"a\" -> len ($s)\n", "1:20: expected a definition, found '('");
    EXPECT_AST("def a = \"a\" -> len($s)", "a = \"a\" -> len($s)\n");
    EXPECT_PARSE_ERRORS("def a = r(\"x\")", "1:11: expected a level name, found '\"x\"'");
    EXPECT_PARSE_ERRORS("def a = r(x y)", "1:13: expected ')', found 'y'");
}

static void test_keywords_end_sequences(void)
{
    EXPECT_AST("def a = \"x\" def b = \"y\"", "a = \"x\"\nb = \"y\"\n");
    EXPECT_AST("def a = \"x\"\ntype T terminal", "type T terminal\na = \"x\"\n");
    EXPECT_AST("def operand = \"x\" def skip = operand_x", "operand = \"x\"\nskip = operand_x\n");
    EXPECT_PARSE_ERRORS("def main = operand", "1:12: expected an expression, found 'operand'");
    EXPECT_PARSE_ERRORS("def main = \"a\" new", "1:16: expected an expression, found 'new'");
    EXPECT_PARSE_ERRORS("def main = \"a\" / struct", "1:18: expected an expression, found 'struct'");
    EXPECT_PARSE_ERRORS("def main = \"a\" level", "1:16: expected a definition, found 'level'");
    EXPECT_PARSE_ERRORS("def main = pratt", "1:12: expected an expression, found 'pratt'");
    EXPECT_AST("def e = pratt { operand n skip ws level { prefix \"-\" infix left \"+\" postfix \"!\" } }",
               "e = (pratt (skip ws) (operand n) (level (prefix \"-\") (infix left \"+\") (postfix \"!\")))\n");
}

static void test_pratt(void)
{
    EXPECT_AST("def expr = pratt {\n"
               "    skip    ws                       // at most one; optional\n"
               "    operand number\n"
               "    operand \"(\" e:expr ws \")\" -> $e\n"
               "    level sum  { infix left  \"+\" / \"-\" }\n"
               "    level      { infix left  \"*\" / \"/\" }\n"
               "    level      { prefix      \"-\" }\n"
               "    level      { infix right \"^\" -> new Bin{L: $lhs, R: $rhs,} }\n"
               "    level call { postfix \"(\" ws \")\" infix none \"=\" }\n"
               "}\n",
               "expr = (pratt (skip ws) (operand number) (operand (seq \"(\" (: e expr) ws \")\") -> $e)"
               " (level sum (infix left (/ \"+\" \"-\"))) (level (infix left (/ \"*\" \"/\")))"
               " (level (prefix \"-\")) (level (infix right \"^\" -> new Bin{L: $lhs, R: $rhs}))"
               " (level call (postfix (seq \"(\" ws \")\")) (infix none \"=\")))\n");
    EXPECT_PARSE_ERRORS("def e = pratt { operand x level { infix \"+\" } }",
                        "1:41: expected left, right or none, found '\"+\"'");
    EXPECT_PARSE_ERRORS("def e = pratt { operand x level { \"+\" } }",
                        "1:35: expected prefix, postfix, infix or '}', found '\"+\"'");
    EXPECT_PARSE_ERRORS("def e = pratt { x }", "1:17: expected skip, operand, level or '}', found 'x'");
    EXPECT_PARSE_ERRORS("def e = pratt { skip a skip b operand x }",
                        "1:24: a pratt expression can have only one skip");
    EXPECT_PARSE_ERRORS("def e = pratt { operand x level l x }", "1:35: expected '{', found 'x'");
    EXPECT_PARSE_ERRORS("def e = pratt { operand x", "1:26: expected skip, operand, level or '}', found end of file");
}

static void test_terms(void)
{
    EXPECT_AST("def a = \"a\" -> 1 + 2 * 3 - -4 % 5 / 6",
               "a = \"a\" -> ((1 + (2 * 3)) - (((-4) % 5) / 6))\n");
    EXPECT_AST("def a = \"a\" -> a || b && !c == d",
               "a = \"a\" -> (a || (b && ((!c) == d)))\n");
    EXPECT_AST("def a = \"a\" -> (x < y) != (z >= w)", "a = \"a\" -> ((x < y) != (z >= w))\n");
    EXPECT_AST("def a = \"a\" -> $x.Name.startPos", "a = \"a\" -> $x.Name.startPos\n");
    EXPECT_AST("def a = \"a\" -> foldl($a, $b, (acc, x) => new T{L: $acc, R: $x.n})",
               "a = \"a\" -> foldl($a, $b, (acc, x) => new T{L: $acc, R: $x.n})\n");
    EXPECT_AST("def a = \"a\" -> map($1, () => list()) ", "a = \"a\" -> map($1, () => list())\n");
    EXPECT_AST("def a = \"a\" -> ((x) => x)", "a = \"a\" -> (x) => x\n");
    EXPECT_AST("def a = \"a\" -> new T{} def b = \"b\" -> \"s\\n\" ", "a = \"a\" -> new T{}\nb = \"b\" -> \"s\\x0a\"\n");
    EXPECT_AST("def a = \"a\" -> true def b = \"b\" -> nil", "a = \"a\" -> true\nb = \"b\" -> nil\n");
    EXPECT_PARSE_ERRORS("def a = \"a\" -> 1 < 2 < 3", "1:22: comparison operators cannot be chained");
    EXPECT_PARSE_ERRORS("def a = \"a\" ->", "1:15: expected a term, found end of file");
    EXPECT_PARSE_ERRORS("def a = \"a\" -> def b = \"c\"", "1:16: expected a term, found 'def'");
    EXPECT_PARSE_ERRORS("def a = \"a\" -> f(1 2)", "1:20: expected ',' or ')', found '2'");
    EXPECT_PARSE_ERRORS("def a = \"a\" -> new T{A 1}", "1:24: expected ':', found '1'");
    EXPECT_PARSE_ERRORS("def a = \"a\" -> new T{A: 1 B: 2}", "1:27: expected ',' or '}', found 'B'");
    EXPECT_PARSE_ERRORS("def a = \"a\" -> $x.", "1:19: expected a field name, found end of file");
    EXPECT_PARSE_ERRORS("def a = [ ]", "1:11: expected a term, found ']'");
    EXPECT_PARSE_ERRORS("def a = []", "1:9: expected an expression, found '[]'");
    EXPECT_PARSE_ERRORS("def a = [x", "1:11: expected ']', found end of file");
}

static void test_types(void)
{
    EXPECT_AST("type A struct { X []B, Y *C\n Z (D | []E) | F }\n"
               "type G = H | *[]I\n"
               "type Pass struct {}\n"
               "def r: *(A | B) = \"x\"",
               "type A struct { X []B Y *C Z ((D | []E) | F) }\ntype G = (H | *[]I)\ntype Pass struct { }\n"
               "r: *(A | B) = \"x\"\n");
    EXPECT_AST("type A struct { T terminal }", "type A struct { T terminal }\n");
    EXPECT_PARSE_ERRORS("type A", "1:7: expected struct, terminal or '=', found end of file");
    EXPECT_PARSE_ERRORS("type A struct { X }", "1:19: expected a type, found '}'");
    EXPECT_PARSE_ERRORS("type A = [ ]B", "1:10: expected a type, found '['");
    EXPECT_PARSE_ERRORS("type A struct { 1 }", "1:17: expected a field name or '}', found '1'");
    EXPECT_PARSE_ERRORS("type = X", "1:6: expected a type name, found '='");
}

static void test_positions_in_ast(void)
{
    cc_errors errs = { 0 };
    ast_grammar *g = parse("\n  def r: T = a x:b* #error(message=\"m\") -> $x", &errs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    ast_rule *r = &g->rules[0];
    CU_ASSERT_EQUAL(r->def_line, 2);
    CU_ASSERT_EQUAL(r->def_col, 3);
    CU_ASSERT_EQUAL(r->line, 2);
    CU_ASSERT_EQUAL(r->col, 7);
    CU_ASSERT_EQUAL(r->type->col, 10);
    CU_ASSERT_EQUAL(r->action_col, 41);
    CU_ASSERT_EQUAL(r->action->col, 44);
    ast_expr *seq = r->body;
    CU_ASSERT_EQUAL(seq->kind, AST_SEQ);
    CU_ASSERT_EQUAL(seq->col, 14);
    ast_expr *cap = seq->kids[1];
    CU_ASSERT_EQUAL(cap->kind, AST_CAPTURE);
    CU_ASSERT_EQUAL(cap->col, 16);
    ast_expr *attr = cap->kids[0];
    CU_ASSERT_EQUAL(attr->kind, AST_ATTRIBUTE);
    CU_ASSERT_EQUAL(attr->col, 18);
    CU_ASSERT_EQUAL(attr->op_col, 21);
    CU_ASSERT_EQUAL(attr->args[0].col, 28);
    ast_expr *rep = attr->kids[0];
    CU_ASSERT_EQUAL(rep->col, 18);
    CU_ASSERT_EQUAL(rep->op_col, 19);
    CU_ASSERT_EQUAL(rep->kids[0]->rule, -1);
    ast_grammar_free(g);
    cc_errors_free(&errs);
}

/* ---- syntax errors, recovery and limits ---- */

static void test_syntax_errors(void)
{
    EXPECT_PARSE_ERRORS("def main =", "1:11: expected an expression, found end of file");
    EXPECT_PARSE_ERRORS("def main = (\"x\" -> y)", "1:17: expected ')', found '->'");
    EXPECT_PARSE_ERRORS("def main = \"x\" )", "1:16: expected a definition, found ')'");
    EXPECT_PARSE_ERRORS("def main = \"x\" / / \"y\"", "1:18: expected an expression, found '/'");
    EXPECT_PARSE_ERRORS("def main = x: ", "1:15: expected an expression, found end of file");
    EXPECT_PARSE_ERRORS("def main = a #", "1:15: expected an attribute name, found end of file");
    EXPECT_PARSE_ERRORS("def main = a #e(x)", "1:18: expected '=', found ')'");
    EXPECT_PARSE_ERRORS("def main = a #e(x=1)", "1:19: expected an expression, found '1'");
    EXPECT_PARSE_ERRORS("def main = a #e(x=b y=c)", "1:22: expected ',' or ')', found '='");
    EXPECT_PARSE_ERRORS("def main = a #e(\"x\")", "1:17: expected an argument name or ')', found '\"x\"'");
    EXPECT_PARSE_ERRORS("def main = \"a\" &&b", "1:16: expected a definition, found '&&'");
    EXPECT_PARSE_ERRORS("def main = $x", "1:12: expected an expression, found '$x'");
}

static void test_several_errors(void)
{
    EXPECT_PARSE_ERRORS("def a = (\"x\"\n"
                        "def b = \"y\"\n"
                        "def c = \"z\" -> \n"
                        "def d = ok\n"
                        "def e = \"q\" ~ \"r\" ]\n"
                        "type t struct {\n"
                        "def f = x{2,1}",
                        "2:1: expected ')', found 'def'\n"
                        "4:1: expected a term, found 'def'\n"
                        "5:13: unexpected character '~'\n"
                        "5:19: expected a definition, found ']'\n"
                        "7:1: expected a field name or '}', found 'def'\n"
                        "7:10: invalid bounds {2,1}: the maximum is less than the minimum");
}

static void test_too_many_errors(void)
{
    rt_buf b;
    rt_buf_init(&b);
    for (int i = 0; i < 150; i++) rt_buf_adds(&b, "def a = )\n");
    cc_errors errs = { 0 };
    ast_grammar *g = cc_parse(b.data, b.len, &errs);
    CU_ASSERT_PTR_NULL(g);
    CU_ASSERT_EQUAL(errs.n, CC_MAX_ERRORS);
    CU_ASSERT_TRUE(errs.truncated);
    CU_ASSERT_EQUAL(errs.items[0].line, 1);
    EXPECT_STR(errs.items[0].msg, "expected an expression, found ')'");
    EXPECT_STR(errs.items[98].msg, "expected an expression, found ')'");
    EXPECT_STR(errs.items[99].msg, "too many errors");
    CU_ASSERT_EQUAL(errs.items[99].line, 100);
    cc_errors_free(&errs);

    /* exactly the maximum: all are reported */
    rt_buf_reset(&b);
    for (int i = 0; i < CC_MAX_ERRORS; i++) rt_buf_adds(&b, "def a = )\n");
    g = cc_parse(b.data, b.len, &errs);
    CU_ASSERT_EQUAL(errs.n, CC_MAX_ERRORS);
    CU_ASSERT_FALSE(errs.truncated);
    EXPECT_STR(errs.items[99].msg, "expected an expression, found ')'");
    cc_errors_free(&errs);

    /* lexical errors count too */
    rt_buf_reset(&b);
    for (int i = 0; i < 300; i++) rt_buf_adds(&b, "def a = \"\\q\" ~\n");
    g = cc_parse(b.data, b.len, &errs);
    CU_ASSERT_EQUAL(errs.n, CC_MAX_ERRORS);
    EXPECT_STR(errs.items[0].msg, "invalid escape sequence \\q");
    EXPECT_STR(errs.items[1].msg, "unexpected character '~'");
    EXPECT_STR(errs.items[99].msg, "too many errors");
    cc_errors_free(&errs);
    rt_buf_free(&b);
}

/* Builds prefix * n + middle + suffix * n. */
static char *nested(const char *head, const char *prefix, int n, const char *middle, const char *suffix)
{
    rt_buf b;
    rt_buf_init(&b);
    rt_buf_adds(&b, head);
    for (int i = 0; i < n; i++) rt_buf_adds(&b, prefix);
    rt_buf_adds(&b, middle);
    for (int i = 0; i < n; i++) rt_buf_adds(&b, suffix);
    return rt_buf_take(&b);
}

static void expect_nesting(const char *file, int line, char *src, const char *expected)
{
    cc_errors errs = { 0 };
    ast_grammar *g = cc_parse(src, strlen(src), &errs);
    CU_assertImplementation(g == NULL, (unsigned)line, "parse failed", file, "", CU_FALSE);
    char *et = grammar_errors_text(&errs);
    expect_str(file, line, et, expected);
    free(et);
    cc_errors_free(&errs);
    free(src);
}
#define EXPECT_NESTING(src, e) expect_nesting(__FILE__, __LINE__, (src), (e))

static void test_nesting_too_deep(void)
{
    /* "def a = " is 8 columns; the 501st '(' is at column 8 + 501 */
    EXPECT_NESTING(nested("def a = ", "(", 10000, "x", ")"), "1:509: nesting too deep");
    EXPECT_NESTING(nested("def a = ", "(", 10000, "x", ""), "1:509: nesting too deep");
    EXPECT_NESTING(nested("def a = ", "!", 100000, "x", ""), "1:509: nesting too deep");
    EXPECT_NESTING(nested("def a = x", "*", 10000, "", ""), "1:510: nesting too deep");
    EXPECT_NESTING(nested("def a = [", "(", 10000, "x", ")"), "1:509: nesting too deep");
    EXPECT_NESTING(nested("def a = [", "- ", 10000, "x", ""), "1:1008: nesting too deep");
    EXPECT_NESTING(nested("def a = \"a\" -> x", "+x", 10000, "", ""), "1:1017: nesting too deep");
    EXPECT_NESTING(nested("def a = \"a\" -> x", ".f", 10000, "", ""), "1:1017: nesting too deep");
    EXPECT_NESTING(nested("type T = ", "[]", 10000, "X", ""), "1:1010: nesting too deep");
    /* the next definition is still read */
    EXPECT_NESTING(nested("def a = ", "(", 600, "x", "/"), "1:509: nesting too deep");
    char *src = nested("def a = ", "(", 500, "x", ")");
    cc_errors errs = { 0 };
    ast_grammar *g = cc_parse(src, strlen(src), &errs);
    CU_ASSERT_PTR_NOT_NULL(g);
    CU_ASSERT_EQUAL(errs.n, 0);
    ast_grammar_free(g);
    free(src);
    src = nested("def a = ", "(", 501, "x", ")");
    char *full = nested(src, "", 0, "\ndef b = )", "");
    free(src);
    EXPECT_NESTING(full, "1:509: nesting too deep\n2:9: expected an expression, found ')'");
}

/* ---- definition checks ---- */

static void test_definition_errors_example(void)
{
    /* A.6: duplicates first, then the other errors in rule order */
    EXPECT_CHECK("def main = b c\n"
                 "def b = \"x\" / \"yzw\" other\n"
                 "def c = \"(\" unknown \")\"\n"
                 "def main = \"z\"\n",
                 "4:1: rule main is already defined\n"
                 "2:21: undefined rule other\n"
                 "3:13: undefined rule unknown");
}

static void test_resolution(void)
{
    cc_errors errs = { 0 };
    ast_grammar *g = parse("def a = b c a def b = \"x\" def c = b def b = c", &errs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(cc_check(g, &errs), 1);
    EXPECT_STR(errs.items[0].msg, "rule b is already defined");
    ast_expr *body = g->rules[0].body;
    CU_ASSERT_EQUAL(body->kids[0]->rule, 1);
    CU_ASSERT_EQUAL(body->kids[1]->rule, 2);
    CU_ASSERT_EQUAL(body->kids[2]->rule, 0);
    CU_ASSERT_EQUAL(g->rules[3].body->rule, 2);
    ast_grammar_free(g);
    cc_errors_free(&errs);
    EXPECT_CHECK("def operand = \"x\" def main = \"y\"", "");
}

static void test_capture_errors(void)
{
    EXPECT_CHECK("def main = @(k:\"a\") -(x:\"b\") !(y:\"c\") &(z:\"d\")",
                 "1:14: capture k inside @, -, or ! has no effect\n"
                 "1:23: capture x inside @, -, or ! has no effect\n"
                 "1:32: capture y inside @, -, or ! has no effect");
    EXPECT_CHECK("def main = @(\"a\" (\"b\" / x:(y:\"c\")*))",
                 "1:25: capture x inside @, -, or ! has no effect\n"
                 "1:28: capture y inside @, -, or ! has no effect");
    EXPECT_CHECK("def main = a:&\"a\" b:!\"b\" c:-\"c\" d:-- e:$$ f:^ g:_|_ h:[x] i:(-\"i\") j:k:^^ l:(&\"a\") #error(message=\"m\")",
                 "1:12: capture a of an expression without a value\n"
                 "1:19: capture b of an expression without a value\n"
                 "1:26: capture c of an expression without a value\n"
                 "1:33: capture d of an expression without a value\n"
                 "1:38: capture e of an expression without a value\n"
                 "1:43: capture f of an expression without a value\n"
                 "1:47: capture g of an expression without a value\n"
                 "1:53: capture h of an expression without a value\n"
                 "1:59: capture i of an expression without a value\n"
                 "1:68: capture j of an expression without a value\n"
                 "1:70: capture k of an expression without a value\n"
                 "1:75: capture l of an expression without a value");
    EXPECT_CHECK("def main = a:\"a\" b:(?b) c:. d:_ e:@x f:(\"f\" -\"g\") g:(-\"a\" / -\"b\") h:x? i:x* j:x k:l:x m:x #error(message=\"m\")\n"
                 "def x = -\"x\"",
                 "");
    EXPECT_CHECK("def main = \"a\" #recover(skip=s:\"x\")", "1:30: capture s inside @, -, or ! has no effect");
    EXPECT_CHECK("def main = pratt { skip s:ws operand \"x\" }\ndef ws = \" \"*",
                 "1:25: capture s inside @, -, or ! has no effect");
    EXPECT_CHECK("def main = pratt { operand lhs:\"x\" level { infix left op:\"+\" rhs:_ postfix lhs:\"!\" x:\"?\" } }",
                 "1:55: capture name op is reserved in pratt operators\n"
                 "1:62: capture name rhs is reserved in pratt operators\n"
                 "1:76: capture name lhs is reserved in pratt operators");
}

static void test_level_calls(void)
{
    EXPECT_CHECK("def main = x(lvl)\ndef x = \"a\"", "1:12: rule x has no pratt levels");
    EXPECT_CHECK("def main = e(mul) e(sum) nope(x)\n"
                 "def e = pratt { operand \"1\" level sum { infix left \"+\" } level { prefix \"-\" } }",
                 "1:12: rule e has no level mul\n"
                 "1:26: undefined rule nope");
    EXPECT_CHECK("def e = pratt { operand \"1\" level a { } level b { } level a { } level { } level { } }",
                 "1:59: duplicate level name a");
}

static void test_attribute_errors(void)
{
    EXPECT_CHECK("def main = \"a\" #foo \"b\" #bar(x=\"y\")",
                 "1:16: unknown attribute #foo\n1:25: unknown attribute #bar");
    EXPECT_CHECK("def main = \"a\" #error(mesage=\"x\")",
                 "1:23: #error has no argument mesage\n1:16: #error requires a message argument");
    EXPECT_CHECK("def main = \"a\" #error", "1:16: #error requires a message argument");
    EXPECT_CHECK("def main = \"a\" #error(message=x) \ndef x = \"x\"", "1:31: #error: message must be a string");
    EXPECT_CHECK("def main = \"a\" #error(message=\"a\", message=\"b\")",
                 "1:36: duplicate argument message in #error");
    EXPECT_CHECK("def main = \"a\" #recover", "1:16: #recover requires a skip argument");
    EXPECT_CHECK("def main = \"a\" #recover(skip=\"x\", until=\"y\")", "1:35: #recover has no argument until");
    EXPECT_CHECK("def main = \"a\" #error(message=\"m\", skip=undefined)",
                 "1:36: #error has no argument skip\n1:41: undefined rule undefined");
}

static void test_stream_errors(void)
{
    EXPECT_CHECK("def main = \"a\" #stream", "1:16: #stream must be attached to a repetition (*, +, or {n,m})");
    EXPECT_CHECK("def main = \"a\"* #stream(x=\"y\")", "1:17: #stream takes no arguments");
    EXPECT_CHECK("def main = (\"a\"* #stream)?",
                 "1:18: #stream is only allowed at the top level of a rule body");
    EXPECT_CHECK("def main = \"a\"* #stream \"b\"+ #stream",
                 "1:30: a rule body can have only one #stream");
    EXPECT_CHECK("def main = \"a\"* #stream #recover(skip=\"x\")",
                 "1:25: #recover cannot wrap a #stream repetition; recover inside each element instead");
    EXPECT_CHECK("def main = \"a\"* #recover(skip=\"x\") #stream",
                 "1:17: #recover cannot wrap a #stream repetition; recover inside each element instead");
    /* allowed: the body, an item of its sequence, a captured item, labeled with #error */
    EXPECT_CHECK("def a = \"a\"* #stream\n"
                 "def b = x:\"a\"{2,3} #stream $$\n"
                 "def c = \"a\"+ #stream #error(message=\"m\")\n"
                 "def d = \"a\"+ #error(message=\"m\") #stream",
                 "");
}

static void test_pratt_errors(void)
{
    EXPECT_CHECK("def e = pratt { skip \" \" }", "1:9: pratt needs at least one operand");
    EXPECT_CHECK("def e = \"(\" pratt { operand \"x\" } / pratt { operand \"y\" }",
                 "1:13: pratt is only allowed as the whole body of a rule\n"
                 "1:37: pratt is only allowed as the whole body of a rule");
    EXPECT_CHECK("def e = pratt { operand \"x\" } -> $1",
                 "1:31: a pratt rule cannot have a rule-level action; put actions on its operands and operators");
}

static void test_type_definition_errors(void)
{
    EXPECT_CHECK("type Match terminal\n"
                 "type int = X\n"
                 "type foo struct {}\n"
                 "type A terminal\n"
                 "def main = \"a\"\n"
                 "type A = B\n"
                 "type Éa terminal\n"
                 "type éa terminal",
                 "1:1: type Match is reserved\n"
                 "2:1: type int is reserved\n"
                 "3:1: type foo must start with an uppercase letter\n"
                 "6:1: type A is already defined\n"
                 "8:1: type éa must start with an uppercase letter");
    /* rules and types have separate namespaces */
    EXPECT_CHECK("type A terminal def A = \"a\"", "");
}

/* ---- constructs not supported yet ---- */

static void test_not_supported(void)
{
    const char *src =
        "package demo\n"                                                   /* 1 */
        "type Num terminal\n"                                              /* 2 */
        "type Add struct { L node, R node }\n"                             /* 3 */
        "type Expr = Num | Add\n"                                          /* 4 */
        "def main: Expr = e:sum $$ -> $e\n"                                /* 5 */
        "def sum = first:num rest:(-\"+\" n:num)*\n"                        /* 6 */
        "    -> foldl($first, $rest, (acc, x) => new Add{L: $acc, R: $x.n})\n"
        "def num: Num = (?0-9)+\n"                                         /* 8 */
        "def expr = pratt {\n"                                             /* 9 */
        "    skip ws\n"
        "    operand num -> $1\n"                                          /* 11 */
        "    level sum { infix left \"+\" -> new Add{L: $lhs, R: $rhs} }\n" /* 12 */
        "    level { prefix \"-\" }\n"
        "}\n"
        "def ws = \" \"*\n"                                                /* 15 */
        "def call = expr(sum) #error(message=\"m\") #recover(skip=(?^;)*)\n"
        "def vars = [n = 1] \"x\" [n == 1] -- \"y\"\n"                      /* 17 */
        "def lines = line* #stream\n"
        "def line = (?^\\n)* \"\\n\"\n";
    EXPECT_CHECK(src, "");     /* predicates and variables (Tier 5) were the last refused */
    /* a grammar of Tier 1 and 2 constructs is accepted */
    EXPECT_CHECK("def main = greeting name $$ / ^^ \"x\" ^ $ . _ -- _|_ &a !b @c -d x:e (f / g)* h+ i? j{2,3}\n"
                 "def greeting = \"hi\" / \"hello\"\n"
                 "def name = \" \" @(?a-z)+\n"
                 "def a = \"a\" def b = a def c = b def d = c def e = d def f = e def g = f def h = g\n"
                 "def i = h def j = i",
                 "");
    /* definition errors come first: nothing is refused then */
    EXPECT_CHECK("def main = x:[p] pratt { operand \"a\" }",
                 "1:12: capture x of an expression without a value\n"
                 "1:18: pratt is only allowed as the whole body of a rule");
}

static void test_check_cap(void)
{
    rt_buf b;
    rt_buf_init(&b);
    for (int i = 0; i < 150; i++) rt_buf_printf(&b, "def r%d = undefined%d\n", i, i);
    cc_errors errs = { 0 };
    ast_grammar *g = cc_parse(b.data, b.len, &errs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(cc_check(g, &errs), CC_MAX_ERRORS);
    CU_ASSERT_TRUE(errs.truncated);
    EXPECT_STR(errs.items[98].msg, "undefined rule undefined98");
    EXPECT_STR(errs.items[99].msg, "too many errors");
    ast_grammar_free(g);
    cc_errors_free(&errs);
    rt_buf_free(&b);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite lexer = CU_add_suite("lexer", NULL, NULL);
    CU_pSuite parser = CU_add_suite("parser", NULL, NULL);
    CU_pSuite check = CU_add_suite("check", NULL, NULL);
    if (!lexer || !parser || !check) { CU_cleanup_registry(); return 1; }
    struct { CU_pSuite s; const char *name; CU_TestFunc f; } tests[] = {
        { lexer, "token kinds", test_token_kinds },
        { lexer, "longest match", test_longest_match },
        { lexer, "token values", test_values },
        { lexer, "positions", test_positions },
        { lexer, "adjacency", test_adjacency },
        { lexer, "white space and comments", test_white_space_and_comments },
        { lexer, "escapes", test_escapes },
        { lexer, "invalid escapes", test_invalid_escapes },
        { lexer, "unterminated strings", test_unterminated_strings },
        { lexer, "classes", test_classes },
        { lexer, "class errors", test_class_errors },
        { lexer, "integers", test_integers },
        { lexer, "unexpected characters", test_unexpected_characters },
        { parser, "file structure", test_file_structure },
        { parser, "expressions", test_expressions },
        { parser, "bounds", test_bounds },
        { parser, "adjacency rules", test_adjacency_rules },
        { parser, "keywords end sequences", test_keywords_end_sequences },
        { parser, "pratt", test_pratt },
        { parser, "terms", test_terms },
        { parser, "types", test_types },
        { parser, "positions in the AST", test_positions_in_ast },
        { parser, "syntax errors", test_syntax_errors },
        { parser, "several errors", test_several_errors },
        { parser, "too many errors", test_too_many_errors },
        { parser, "nesting too deep", test_nesting_too_deep },
        { check, "A.6 example", test_definition_errors_example },
        { check, "resolution", test_resolution },
        { check, "capture errors", test_capture_errors },
        { check, "level calls", test_level_calls },
        { check, "attribute errors", test_attribute_errors },
        { check, "stream errors", test_stream_errors },
        { check, "pratt errors", test_pratt_errors },
        { check, "type definition errors", test_type_definition_errors },
        { check, "not supported yet", test_not_supported },
        { check, "error cap", test_check_cap },
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        if (!CU_add_test(tests[i].s, tests[i].name, tests[i].f)) { CU_cleanup_registry(); return 1; }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
