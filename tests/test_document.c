/* Incremental documents (docs/language.md 7.2) through pego_document_*: the
 * rules of 7.2 on grammars of our own (which entries an edit keeps, moves or
 * drops, told by the counts of a parse; positions in integers; recovered
 * errors; left recursion; aborted parses; refused edits), and every fixture
 * under many random edits, each parse of the document compared with a fresh
 * pego_parse of the same text: status, error, expected items, recovered
 * errors, and the whole tree with every node's positions, the parses in bytes
 * traced, and all of it again with --profile on. A document that keeps
 * entries an edit touched (fault injection) must be caught. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"
#include "fixtures.h"
#include "../runtime/unicode.h"     /* rt_unicode_decode: positions count characters as it reads them */

extern int rt_fault_document_examined;   /* runtime/document.c: keeps entries one byte into an edit */

/* ---- outcomes ---- */

static void dump_node(FILE *f, const pego_result *r, const pego_node *n, int depth)
{
    if (!n) {
        fprintf(f, "%*snil\n", depth, "");
        return;
    }
    size_t len;
    const char *text = pego_node_text(r, n, &len);
    const char *rule = pego_node_rule(r, n);
    fprintf(f, "%*s%s %s [%llu,%llu) %.*s\n", depth, "", pego_node_type_name(r, n), rule ? rule : "-",
            (unsigned long long)pego_node_start(r, n), (unsigned long long)pego_node_end(r, n), (int)len, text);
    for (size_t i = 0; i < pego_node_field_count(r, n); i++) {
        fprintf(f, "%*s.%s=", depth + 1, "", pego_node_field_name(r, n, i));
        int64_t iv;
        const char *sv;
        size_t slen;
        int bv;
        switch (pego_node_field_kind(r, n, i)) {
        case PEGO_FIELD_NODE:
            fputc('\n', f);
            dump_node(f, r, pego_node_field_value(r, n, i), depth + 2);
            break;
        case PEGO_FIELD_INT:
            pego_node_field_int(r, n, i, &iv);
            fprintf(f, "%lld\n", (long long)iv);
            break;
        case PEGO_FIELD_STRING:
            pego_node_field_text(r, n, i, &sv, &slen);
            fprintf(f, "\"%.*s\"\n", (int)slen, sv);
            break;
        case PEGO_FIELD_BOOL:
            pego_node_field_bool(r, n, i, &bv);
            fprintf(f, "%s\n", bv ? "true" : "false");
            break;
        }
    }
    for (size_t i = 0; i < pego_node_child_count(r, n); i++) dump_node(f, r, pego_node_child(r, n, i), depth + 1);
}

/* Everything a parse returns, as text (malloc'd). */
static char *outcome(const pego_result *r)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    pego_status st = pego_result_status(r);
    fprintf(f, "status %d\n", (int)st);
    if (st == PEGO_OK) {
        for (size_t i = 0; i < pego_result_recovered_count(r); i++)
            fprintf(f, "recovered %s\n", pego_result_recovered_error(r, i));
        fprintf(f, "nodes %zu\n", pego_result_node_count(r));
        if (pego_result_has_value(r)) dump_node(f, r, pego_result_tree(r), 0);
        else fprintf(f, "no value\n");
    } else {
        fprintf(f, "error %s\n", pego_result_error(r));
        if (st == PEGO_SYNTAX_ERROR) {
            fprintf(f, "at %llu %d:%d\n", (unsigned long long)pego_result_error_offset(r), pego_result_error_line(r),
                    pego_result_error_column(r));
            for (size_t i = 0; i < pego_result_expected_count(r); i++) fprintf(f, "expected %s\n", pego_result_expected(r, i));
        }
    }
    fclose(f);
    return s;
}

static int quiet;   /* the mutation test: differences are expected, not shown */

/* Parses the document and the same text afresh: 0 when they agree. */
static int compare(pego_document *d, const pego_grammar *g, const pego_options *o, const char *what)
{
    const pego_result *r;
    pego_document_parse(d, &r);
    char *got = outcome(r);
    size_t len;
    const char *text = pego_document_text(d, &len);
    pego_parser *p = pego_parser_new(g);
    pego_parse(p, text, len, o, &r);
    char *want = outcome(r);
    pego_parser_free(p);
    int bad = strcmp(got, want) != 0;
    if (bad && !quiet) fprintf(stderr, "\n  %s: text %.*s\n  document:\n%.600s\n  fresh:\n%.600s\n", what, (int)len, text, got, want);
    free(got);
    free(want);
    return bad;
}

static pego_grammar *compile(const char *src)
{
    pego_diag *diag = NULL;
    pego_grammar *g = pego_compile(src, strlen(src), "t.pego", &diag);
    if (!g) fprintf(stderr, "\n%s\n", pego_diag_text(diag));
    pego_diag_free(diag);
    return g;
}

static pego_document_stats parse_stats(pego_document *d, pego_status *st)
{
    const pego_result *r;
    pego_status s = pego_document_parse(d, &r);
    if (st) *st = s;
    pego_document_stats ds;
    pego_document_get_stats(d, &ds);
    return ds;
}

/* ---- the rules of 7.2 ---- */

/* Which entries an edit keeps, moves and drops, told by the counts: the
 * start rule and the repetition's end are evaluated again after every edit. */
static void test_keep_move_drop(void)
{
    pego_grammar *g = compile("def main = item* $$\ndef item = (?a-z)+ \" \"?\n");
    CU_ASSERT_FATAL(g != NULL);
    pego_options o = { 0 };
    pego_document *d = pego_document_new(g, "aa bb cc ", 9, &o);
    pego_status st;
    pego_document_stats s = parse_stats(d, &st);
    CU_ASSERT_EQUAL(st, PEGO_OK);
    CU_ASSERT_EQUAL(s.evaluated, 5);          /* main, item at 0, 3, 6, 9 */
    CU_ASSERT_EQUAL(s.reused, 0);
    /* at the end: the items before it examined nothing there */
    CU_ASSERT_EQUAL(pego_document_edit(d, 9, 9, "dd ", 3), PEGO_OK);
    s = parse_stats(d, &st);
    CU_ASSERT_EQUAL(st, PEGO_OK);
    CU_ASSERT_EQUAL(s.evaluated, 3);          /* main, item at 9 (dd), item at 12 (fails) */
    CU_ASSERT_EQUAL(s.reused, 3);
    CU_ASSERT_EQUAL(compare(d, g, &o, "append"), 0);
    /* at the start: the items after it move */
    CU_ASSERT_EQUAL(pego_document_edit(d, 0, 0, "xx ", 3), PEGO_OK);
    s = parse_stats(d, &st);
    CU_ASSERT_EQUAL(s.evaluated, 3);          /* main, xx, aa (it began where the edit ended) */
    CU_ASSERT_EQUAL(s.reused, 4);             /* bb, cc, dd and the end, moved */
    CU_ASSERT_EQUAL(compare(d, g, &o, "insert at 0"), 0);
    /* inside the range an item examined: "bb" examined the space after it */
    CU_ASSERT_EQUAL(pego_document_edit(d, 8, 8, "b", 1), PEGO_OK);     /* xx aa bbb cc dd */
    s = parse_stats(d, &st);
    CU_ASSERT_EQUAL(s.evaluated, 2);          /* main, bbb */
    CU_ASSERT_EQUAL(s.reused, 5);             /* xx, aa; cc, dd and the end, moved */
    CU_ASSERT_EQUAL(compare(d, g, &o, "insert inside"), 0);
    /* no edit: everything is reused */
    s = parse_stats(d, &st);
    CU_ASSERT_EQUAL(s.evaluated, 0);
    CU_ASSERT_EQUAL(s.reused, 1);             /* main itself */
    CU_ASSERT_EQUAL(compare(d, g, &o, "no edit"), 0);
    /* and the calls inside main stay for the next edit */
    CU_ASSERT_EQUAL(pego_document_edit(d, 3, 3, "a", 1), PEGO_OK);     /* xx aaa bbb cc dd */
    s = parse_stats(d, &st);
    CU_ASSERT_EQUAL(s.evaluated, 2);          /* main, aaa */
    CU_ASSERT_EQUAL(s.reused, 5);
    CU_ASSERT_EQUAL(compare(d, g, &o, "after no edit"), 0);
    pego_document_free(d);
    pego_grammar_free(g);
}

/* The end of the input seen, the text a negative lookahead matched, the
 * byte before a ^: all of it is examined. */
static void test_examined(void)
{
    static const struct { const char *grammar, *text; unsigned start, end; const char *with; } cases[] = {
        { "def main = x / y\ndef x = \"a\" $$\ndef y = \"a\" .\n", "a", 1, 1, "b" },              /* x saw the end */
        { "def main = y / \"ab\"\ndef y = !\"ab\" \"a\" \"c\"\n", "ab", 1, 2, "c" },          /* the lookahead's text */
        { "def main = (l \"\\n\"?)* $$\ndef l = ^ \"-\" (?a-z)+ / (?a-z)+\n", "ab\n-cd", 2, 3, "" }, /* ^ after the edit */
        { "def main = (l \"\\n\"?)* $$\ndef l = ^ \"-\" (?a-z)+ / (?a-z)+\n", "ab-cd", 2, 2, "\n" },
        { "def main = w (\" \" w)* $$\ndef w = (?a-z)+ / (?0-9)+\n", "ab 12 cd", 5, 6, "3" },
        /* a $ that matched before a newline examined it */
        { "def main = x* $$\ndef x = e / f / \"\\n\"\ndef e = @(?a-z) $\ndef f = @(?a-z)\n", "a\nb", 1, 2, "c" },
        /* a literal with U+FFFD, which matches the invalid bytes: compared by
         * characters, it examined the q, not just the first byte that differs */
        { "def main = item* $$\ndef item = lit -\";\" / other -\";\"\n"
          "def lit = @\"x\xEF\xBF\xBD\xEF\xBF\xBDy\"\ndef other = @(?^;)+\n", "x\xFF\xFFq;", 3, 4, "y" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pego_grammar *g = compile(cases[i].grammar);
        CU_ASSERT_FATAL(g != NULL);
        for (int unit = 0; unit < 2; unit++) {
            pego_options o = { .unit = (pego_unit)unit };
            pego_document *d = pego_document_new(g, cases[i].text, strlen(cases[i].text), &o);
            CU_ASSERT_EQUAL(compare(d, g, &o, "before"), 0);
            CU_ASSERT_EQUAL(pego_document_edit(d, cases[i].start, cases[i].end, cases[i].with, strlen(cases[i].with)),
                            PEGO_OK);
            CU_ASSERT_EQUAL(compare(d, g, &o, cases[i].grammar), 0);
            pego_document_free(d);
        }
        pego_grammar_free(g);
    }
}

/* Values with positions in integers are not moved: their entries are
 * dropped, and the result is a fresh parse's. */
static void test_positions_in_integers(void)
{
    pego_grammar *g = compile("type P struct { At int }\ndef main = (p \" \")* $$\n"
                              "def p: P = w:(?a-z)+ -> new P{At: $w.startPos}\n");
    CU_ASSERT_FATAL(g != NULL);
    pego_options o = { 0 };
    pego_document *d = pego_document_new(g, "ab cd ef ", 9, &o);
    CU_ASSERT_EQUAL(compare(d, g, &o, "first"), 0);
    CU_ASSERT_EQUAL(pego_document_edit(d, 0, 0, "x", 1), PEGO_OK);
    pego_status st;
    pego_document_stats s = parse_stats(d, &st);
    CU_ASSERT_EQUAL(st, PEGO_OK);
    CU_ASSERT_EQUAL(s.reused, 0);
    CU_ASSERT_EQUAL(compare(d, g, &o, "after"), 0);
    /* an edit after them keeps them where they are */
    CU_ASSERT_EQUAL(pego_document_edit(d, 10, 10, "gh ", 3), PEGO_OK);
    s = parse_stats(d, &st);
    CU_ASSERT_EQUAL(s.reused, 3);
    CU_ASSERT_EQUAL(compare(d, g, &o, "appended"), 0);
    pego_document_free(d);
    pego_grammar_free(g);
}

/* Recovered errors, left recursion, variables: results equal a fresh parse's. */
static void test_kinds_of_entries(void)
{
    static const struct { const char *grammar, *text; } cases[] = {
        { "def main = (s \";\")* $$\ndef s = \"x\" (?0-9)+ #recover(skip=(?^;)*)\n", "x1;y2;x3;zz;x44;" },
        { "def main = e $$\ndef e = e \"+\" n / e \"-\" n / n\ndef n = (?0-9)+\n", "1+22-3+4-55+6" },
        { "def main = [d = 2] (l \"\\n\")* $$\ndef l = i:@\" \"* [len($i) <= d] \"x\"?\n", "  x\n x\n   \n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pego_grammar *g = compile(cases[i].grammar);
        CU_ASSERT_FATAL(g != NULL);
        pego_options o = { 0 };
        size_t len = strlen(cases[i].text);
        pego_document *d = pego_document_new(g, cases[i].text, len, &o);
        CU_ASSERT_EQUAL(compare(d, g, &o, "first"), 0);
        for (size_t at = 0; at <= len; at++) {
            static const char *const with[] = { "", "x", "1", ";", "+", "\n", " " };
            for (size_t w = 0; w < sizeof with / sizeof *with; w++) {
                size_t tl;
                pego_document_text(d, &tl);
                size_t end = at < tl ? at + 1 : at;
                char old[2] = { 0 };
                if (end > at) old[0] = pego_document_text(d, NULL)[at];
                CU_ASSERT_EQUAL(pego_document_edit(d, at, end, with[w], strlen(with[w])), PEGO_OK);
                CU_ASSERT_EQUAL(compare(d, g, &o, cases[i].grammar), 0);
                CU_ASSERT_EQUAL(pego_document_edit(d, at, at + strlen(with[w]), old, end - at), PEGO_OK);
                CU_ASSERT_EQUAL(compare(d, g, &o, "undone"), 0);
            }
        }
        pego_document_free(d);
        pego_grammar_free(g);
    }
}

/* An aborted parse forgets the memo table; a syntax error keeps it. */
static void test_aborted_and_failed(void)
{
    pego_grammar *g = compile("def main = (w \" \")* v $$\ndef w = (?a-z)+\ndef v = \"[\" v? \"]\" / \"0\"\n");
    CU_ASSERT_FATAL(g != NULL);
    pego_options o = { .max_depth = 20 };
    char deep[80] = "aa bb cc ";             /* then 30 levels: deeper than 20 */
    memset(deep + 9, '[', 30);
    deep[39] = '0';
    memset(deep + 40, ']', 30);
    deep[70] = 0;
    pego_document *d = pego_document_new(g, deep, strlen(deep), &o);
    pego_status st;
    parse_stats(d, &st);
    CU_ASSERT_EQUAL(st, PEGO_ABORTED);
    CU_ASSERT_EQUAL(compare(d, g, &o, "deep"), 0);
    /* now 15 levels: nothing of the aborted parse is reused, not even the words */
    CU_ASSERT_EQUAL(pego_document_edit(d, 9, 24, "", 0), PEGO_OK);
    CU_ASSERT_EQUAL(pego_document_edit(d, 25, 40, "", 0), PEGO_OK);
    pego_document_stats s = parse_stats(d, &st);
    CU_ASSERT_EQUAL(st, PEGO_OK);
    CU_ASSERT_EQUAL(s.reused, 0);
    CU_ASSERT_EQUAL(compare(d, g, &o, "shallow"), 0);
    /* a syntax error keeps what it parsed */
    CU_ASSERT_EQUAL(pego_document_edit(d, 9, 40, "0]", 2), PEGO_OK);
    parse_stats(d, &st);
    CU_ASSERT_EQUAL(st, PEGO_SYNTAX_ERROR);
    CU_ASSERT_EQUAL(compare(d, g, &o, "error"), 0);
    CU_ASSERT_EQUAL(pego_document_edit(d, 10, 11, "", 0), PEGO_OK);
    s = parse_stats(d, &st);
    CU_ASSERT_EQUAL(st, PEGO_OK);
    CU_ASSERT_EQUAL(s.reused, 5);             /* aa, bb, cc, the word that is not there, 0 */
    CU_ASSERT_EQUAL(compare(d, g, &o, "fixed"), 0);
    pego_document_free(d);
    pego_grammar_free(g);
}

/* Refused edits leave the text as it was; positions count the unit. */
static void test_refused_edits(void)
{
    pego_grammar *g = compile("def main = .*\n");
    CU_ASSERT_FATAL(g != NULL);
    const char *text = "a\xc3\xa9z";            /* a, e acute, z: 3 characters, 4 bytes */
    pego_options bytes = { .unit = PEGO_UNIT_BYTES };
    pego_document *d = pego_document_new(g, text, 4, &bytes);
    CU_ASSERT_EQUAL(pego_document_edit(d, 2, 2, "x", 1), PEGO_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(pego_document_error(d));
    if (pego_document_error(d))
        CU_ASSERT_STRING_EQUAL(pego_document_error(d), "edit [2, 2) begins or ends inside a character");
    CU_ASSERT_EQUAL(pego_document_edit(d, 3, 5, "", 0), PEGO_EUSAGE);
    if (pego_document_error(d))
        CU_ASSERT_STRING_EQUAL(pego_document_error(d), "edit [3, 5) is outside the text (4 bytes long)");
    CU_ASSERT_EQUAL(pego_document_edit(d, 3, 1, "", 0), PEGO_EUSAGE);
    if (pego_document_error(d)) CU_ASSERT_STRING_EQUAL(pego_document_error(d), "edit [3, 1) ends before it begins");
    size_t len;
    CU_ASSERT_EQUAL(memcmp(pego_document_text(d, &len), text, 4), 0);
    CU_ASSERT_EQUAL(len, 4);
    CU_ASSERT_EQUAL(pego_document_edit(d, 3, 4, "", 0), PEGO_OK);
    CU_ASSERT_PTR_NULL(pego_document_error(d));
    pego_document_free(d);
    pego_options chars = { 0 };
    d = pego_document_new(g, text, 4, &chars);
    CU_ASSERT_EQUAL(pego_document_edit(d, 4, 4, "x", 1), PEGO_EUSAGE);
    if (pego_document_error(d))
        CU_ASSERT_STRING_EQUAL(pego_document_error(d), "edit [4, 4) is outside the text (3 characters long)");
    CU_ASSERT_EQUAL(pego_document_edit(d, 2, 3, "Z", 1), PEGO_OK);     /* the third character, z */
    CU_ASSERT_EQUAL(memcmp(pego_document_text(d, &len), "a\xc3\xa9Z", 4), 0);
    CU_ASSERT_EQUAL(pego_document_edit(d, 1, 2, "e", 1), PEGO_OK);     /* the second */
    CU_ASSERT_EQUAL(memcmp(pego_document_text(d, &len), "aeZ", 3), 0);
    CU_ASSERT_EQUAL(len, 3);
    CU_ASSERT_EQUAL(compare(d, g, &chars, "chars"), 0);
    pego_options rec = { .recognize = 1 };
    pego_document *dr = pego_document_new(g, "x", 1, &rec);
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_document_parse(dr, &r), PEGO_EUSAGE);
    pego_document_free(dr);
    pego_options undefined = { .start_rule = "nothing" };
    dr = pego_document_new(g, "x", 1, &undefined);
    CU_ASSERT_EQUAL(pego_document_parse(dr, &r), PEGO_EUSAGE);
    CU_ASSERT(strstr(pego_result_error(r), "undefined rule nothing") != NULL);
    pego_document_free(dr);
    pego_document_free(d);
    pego_grammar_free(g);
}

/* ---- every fixture under random edits ---- */

static unsigned long long rng = 88172645463325252ull;
static unsigned next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 16);
}

/* The width of the character at s[i] (an invalid byte is one), as positions count. */
static size_t width(const char *s, size_t len, size_t i)
{
    uint32_t cp;
    return (size_t)rt_unicode_decode((const unsigned char *)s + i, len - i, &cp);
}

/* The length of the text in the unit. */
static size_t units(const char *s, size_t len, pego_unit unit)
{
    if (unit == PEGO_UNIT_BYTES) return len;
    size_t n = 0;
    for (size_t i = 0; i < len; i += width(s, len, i)) n++;
    return n;
}

/* The byte offset of position pos (in the unit) of s. */
static size_t byte_at(const char *s, size_t len, pego_unit unit, uint64_t pos)
{
    if (unit == PEGO_UNIT_BYTES) return (size_t)pos;
    size_t i = 0;
    for (uint64_t u = 0; u < pos && i < len; u++) i += width(s, len, i);
    return i;
}

/* A trace sink that counts events: every call entered exits, unless the parse
 * was aborted. */
typedef struct { unsigned long long enters, exits, hits; } trace_count;
static int count_event(const pego_trace_event *ev, void *ctx)
{
    trace_count *t = ctx;
    if (ev->kind == PEGO_TRACE_ENTER) t->enters++;
    else {
        t->exits++;
        t->hits += ev->memo != 0;
    }
    return 0;
}

typedef struct { int compared, edits; trace_count traced; } fixture_count;

/* Random edits, each undone half of the time, of every fixture input. */
static int edit_fixture(const pego_grammar *g, const char *file, const char *input, size_t len, void *ctx)
{
    fixture_count *c = ctx;
    static const char *const pieces[] = { "", " ", "\n", "x", "1", "\"", ",", "[", "]", "{", "}", "(", ")", ";",
                                          "=", "+", "\xc3\xa9", "ab", "-", "\t", ":" };
    int bad = 0;
    for (int unit = 0; unit < 2; unit++) {
        pego_options o = { .unit = (pego_unit)unit };
        pego_document *d = pego_document_new(g, input, len, &o);
        /* the parses in bytes are traced: the same results */
        if (unit == 1) pego_document_set_trace(d, count_event, &c->traced);
        bad += compare(d, g, &o, file);
        bad += compare(d, g, &o, file);          /* again, with no edit */
        for (int k = 0; k < 80 && !bad; k++) {
            size_t tl;
            const char *t = pego_document_text(d, &tl);
            size_t n = units(t, tl, o.unit);
            uint64_t at = next_random() % (n + 1), end = at + next_random() % 4;
            if (end > n) end = n;
            char with[32];
            if (next_random() % 2 && tl) {            /* a piece of the text itself */
                size_t from = next_random() % tl, wl = next_random() % 12;
                if (wl > tl - from) wl = tl - from;
                memcpy(with, t + from, wl);
                with[wl] = 0;
            } else {
                snprintf(with, sizeof with, "%s", pieces[next_random() % (sizeof pieces / sizeof *pieces)]);
            }
            /* what the edit replaces, to undo it */
            size_t bfrom = byte_at(t, tl, o.unit, at), bto = byte_at(t, tl, o.unit, end);
            char *old = malloc(bto - bfrom + 1);
            memcpy(old, t + bfrom, bto - bfrom);
            pego_status st = pego_document_edit(d, at, end, with, strlen(with));
            if (st == PEGO_EUSAGE) {            /* inside a character (bytes): the text stays */
                free(old);
                continue;
            }
            c->edits++;
            char what[300];
            snprintf(what, sizeof what, "%s, unit %d, edit %d [%llu,%llu) <- \"%s\"", file, unit, k,
                     (unsigned long long)at, (unsigned long long)end, with);
            if (next_random() % 4 == 0) {       /* more edits before the parse, not undone */
                free(old);
                for (int more = 1 + (int)(next_random() % 3); more > 0; more--) {
                    size_t ml;
                    const char *mt = pego_document_text(d, &ml);
                    uint64_t mn = units(mt, ml, o.unit), mat = next_random() % (mn + 1);
                    uint64_t mend = mat + next_random() % 3 > mn ? mn : mat + next_random() % 3;
                    const char *mw = pieces[next_random() % (sizeof pieces / sizeof *pieces)];
                    if (pego_document_edit(d, mat, mend, mw, strlen(mw)) == PEGO_OK) c->edits++;
                }
                snprintf(what + strlen(what), sizeof what - strlen(what), " and more");
                bad += compare(d, g, &o, what);
                c->compared++;
                continue;
            }
            bad += compare(d, g, &o, what);
            c->compared++;
            if (next_random() % 8 == 0) {       /* and again, with no edit */
                bad += compare(d, g, &o, what);
                c->compared++;
            }
            if (next_random() % 2) {            /* undone, through an edit */
                uint64_t wend = at + units(with, strlen(with), o.unit);
                st = pego_document_edit(d, at, wend, old, bto - bfrom);
                /* in bytes, the text inserted may have made a character of what followed */
                if (st == PEGO_EUSAGE && o.unit == PEGO_UNIT_BYTES) {
                    free(old);
                    continue;
                }
                CU_ASSERT_EQUAL(st, PEGO_OK);
                snprintf(what, sizeof what, "%s, unit %d, edit %d undone", file, unit, k);
                bad += compare(d, g, &o, what);
                c->compared++;
            }
            free(old);
        }
        pego_document_free(d);
    }
    return bad;
}

static void test_fixtures(void)
{
    fixture_count c = { 0, 0, { 0, 0, 0 } };
    int grammars = 0, inputs = 0;
    CU_ASSERT_EQUAL(fixtures_each(edit_fixture, &c, &grammars, &inputs), 0);
    printf("\n  %d grammars, %d inputs, %d edits compared; traced: %llu calls, %llu memo hits ", grammars, inputs,
           c.compared, c.traced.enters, c.traced.hits);
    CU_ASSERT(c.traced.enters > 1000);
    CU_ASSERT(c.traced.hits > 100);
    CU_ASSERT(c.traced.exits <= c.traced.enters);
    CU_ASSERT(grammars >= 10);
    CU_ASSERT(c.compared >= 1000);
}

static void test_fault_is_caught(void)
{
    fixture_count c = { 0, 0, { 0, 0, 0 } };
    int grammars = 0, inputs = 0;
    rt_fault_document_examined = 1;
    quiet = 1;
    int bad = fixtures_each(edit_fixture, &c, &grammars, &inputs);
    quiet = 0;
    rt_fault_document_examined = 0;
    printf("\n  %d differences ", bad);
    CU_ASSERT(bad > 0);
}


/* Profiled, every parse of a document is still a fresh parse's. */
static void test_profiled(void) { CU_ASSERT_EQUAL(run_profiled(test_fixtures, NULL), 0); }

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("incremental documents", NULL, NULL);
    CU_add_test(s, "which entries an edit keeps, moves, drops", test_keep_move_drop);
    CU_add_test(s, "what a call examined", test_examined);
    CU_add_test(s, "positions in integers", test_positions_in_integers);
    CU_add_test(s, "recovery, left recursion, variables", test_kinds_of_entries);
    CU_add_test(s, "aborted parses and syntax errors", test_aborted_and_failed);
    CU_add_test(s, "refused edits and parses", test_refused_edits);
    CU_add_test(s, "fixtures under random edits equal fresh parses", test_fixtures);
    CU_add_test(s, "a document keeping touched entries is caught", test_fault_is_caught);
    CU_add_test(s, "profiled, the same results", test_profiled);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
