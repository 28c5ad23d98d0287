/* Stream parses (docs/language.md 7.1) through pego_parse_stream: each rule of
 * 7.1 with readers that return one byte at a time, pieces of a few bytes or
 * everything at once, readers and element callbacks that fail, the elements
 * equal to the List elements of an ordinary parse (grammars of our own over
 * the csv and records fixtures' inputs, and on random inputs read in random
 * pieces, traced by a collector, and again with --profile on), and memory
 * that stays bounded on a stream of 100,000 elements, traced or not (the
 * parser's figures, runtime/parser.h). */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"
#include "../runtime/parser.h"    /* rt_stream: the most input and memo entries held */
#include "../runtime/unicode.h"   /* rt_unicode_decode: the characters released input holds */
#include "fixtures.h"

/* ---- readers ---- */

typedef struct {
    const char *data;
    size_t      len, at;
    size_t      piece;       /* the most bytes a read returns */
    size_t      fail_at;     /* a read at or after this offset fails (0: never) */
    long        fail_with;
    unsigned    reads;
} source;

static long read_source(char *buf, size_t cap, void *ctx)
{
    source *s = ctx;
    s->reads++;
    if (s->fail_at && s->at >= s->fail_at) return s->fail_with;
    size_t n = s->len - s->at;
    if (n > cap) n = cap;
    if (n > s->piece) n = s->piece;
    memcpy(buf, s->data + s->at, n);
    s->at += n;
    return (long)n;
}

/* ---- element callbacks ---- */

typedef struct {
    char    *text;           /* the elements printed, one per line */
    size_t   len, cap;
    unsigned count;
    unsigned stop_at;        /* return stop_with at this element (1-based; 0: never) */
    int      stop_with;
    source  *src;            /* the bytes read when each element came: in read_at */
    size_t   read_at[16];
    pego_print_format format;
} sink;

static void add(sink *k, const char *s)
{
    size_t n = strlen(s);
    if (k->len + n + 2 > k->cap) {
        k->cap = (k->len + n + 2) * 2;
        k->text = realloc(k->text, k->cap);
    }
    memcpy(k->text + k->len, s, n);
    k->len += n;
    k->text[k->len++] = '\n';
    k->text[k->len] = 0;
}

static int take(const pego_result *r, const pego_node *n, void *ctx)
{
    sink *k = ctx;
    if (k->src && k->count < 16) k->read_at[k->count] = k->src->at;
    k->count++;
    char *s = pego_node_print(r, n, k->format);
    add(k, s);
    free(s);
    return k->stop_at && k->count == k->stop_at ? k->stop_with : 0;
}

static pego_grammar *compile(const char *src)
{
    pego_diag *d = NULL;
    pego_grammar *g = pego_compile(src, strlen(src), "t.pego", &d);
    if (!g) fprintf(stderr, "%s\n", pego_diag_text(d));
    pego_diag_free(d);
    return g;
}

/* Stream-parses input with pieces of piece bytes (on the reference program
 * alone when reference is set); returns the elements (S-expressions,
 * one a line) followed by "=> " and the error, or "=> ok" (and the recovered errors). */
static char *stream(const char *grammar, const char *input, size_t piece, int reference)
{
    pego_grammar *g = compile(grammar);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    source src = { input, strlen(input), 0, piece, 0, 0, 0 };
    sink k = { 0 };
    const pego_result *r;
    pego_options o = { .reference = reference };
    char line[1024];
    if (pego_parse_stream(p, read_source, &src, take, &k, &o, &r) == PEGO_OK) {
        snprintf(line, sizeof line, "=> ok");
        for (size_t i = 0; i < pego_result_recovered_count(r); i++) {
            size_t n = strlen(line);
            snprintf(line + n, sizeof line - n, " [%s]", pego_result_recovered_error(r, i));
        }
    } else {
        snprintf(line, sizeof line, "=> %s", pego_result_error(r));
    }
    add(&k, line);
    pego_parser_free(p);
    pego_grammar_free(g);
    return k.text;
}

/* The same with pieces of 1, 2, 3 and 4096 bytes, with the fast program's
 * elements and on the reference program alone: all must agree with want. */
static void check(const char *grammar, const char *input, const char *want)
{
    static const size_t pieces[] = { 1, 2, 3, 4096 };
    for (int reference = 0; reference <= 1; reference++)
        for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
            char *got = stream(grammar, input, pieces[i], reference);
            if (strcmp(got, want) != 0)
                fprintf(stderr, "\npieces of %zu bytes%s, input %s:\n--- want\n%s--- got\n%s", pieces[i],
                        reference ? ", reference program" : "", input, want, got);
            CU_ASSERT_STRING_EQUAL(got, want);
            free(got);
        }
}

static const char kv[] =
    "type Key terminal\n"
    "type Value terminal\n"
    "type Pair struct { Key Key, Value Value }\n"
    "def main = pair* #stream $$\n"
    "def pair: Pair = k:key \"=\" v:value \"\\n\" -> new Pair{Key: $k, Value: $v}\n"
    "def key: Key = @(?a-z_)+\n"
    "def value: Value = @(?0-9)+\n";

/* The example of 7.1: two elements, then the syntax error at its absolute position. */
static void test_example(void)
{
    check(kv, "a=1\nbb=22\nccc=x\n",
          "(Pair Key=Key\"a\"@key Value=Value\"1\"@value)\n"
          "(Pair Key=Key\"bb\"@key Value=Value\"22\"@value)\n"
          "=> 3:5: syntax error: expected (?0-9)\n");
    check(kv, "", "=> ok\n");
    check(kv, "a=1\n", "(Pair Key=Key\"a\"@key Value=Value\"1\"@value)\n=> ok\n");
}

/* Elements with captures get them as fields; the List stays empty, and what
 * follows the repetition is checked as usual; positions count from the start. */
static void test_captures_and_after(void)
{
    const char *g = "def main = -\"[\" xs:item* #stream -\"]\" $$\n"
                    "def item = n:@(?0-9)+ -\",\"?\n";
    check(g, "[1,22,333]",
          "(Seq \"1\" n=\"1\")@item\n(Seq \"22\" n=\"22\")@item\n(Seq \"333\" n=\"333\")@item\n=> ok\n");
    check(g, "[1,2", "(Seq \"1\" n=\"1\")@item\n(Seq \"2\" n=\"2\")@item\n=> 1:5: syntax error: expected \",\", \"]\", (?0-9)\n");
    /* an iteration's own captures: the element is its value with the fields */
    check("def main = (k:@(?a-z) v:@(?0-9))* #stream $$\n", "a1b2",
          "(Seq \"a\" \"1\" k=\"a\" v=\"1\")\n(Seq \"b\" \"2\" k=\"b\" v=\"2\")\n=> ok\n");
}

/* What follows the repetition runs again as more input arrives, with the
 * captures and values made before the repetition. */
static void test_after_repetition(void)
{
    const char *g = "def main = h:@\"#\"? (@(?a-z))* #stream -\";\" t:@(?0-9)* [len(text($t)) == 3] $$\n";
    check(g, "#ab;123", "\"a\"\n\"b\"\n=> ok\n");
    check(g, "ab;12", "\"a\"\n\"b\"\n=> 1:6: syntax error: expected (?0-9)\n");
    check(g, "ab;12x", "\"a\"\n\"b\"\n=> 1:6: syntax error: expected (?0-9)\n");
    check(g, "ab;1234", "\"a\"\n\"b\"\n=> 1:8: syntax error: expected (?0-9)\n");
}

/* A syntax error in the middle of a long input is reported without reading the rest. */
static void test_error_reads_no_more(void)
{
    size_t n = 200000;
    char *in = malloc(n + 1);
    memcpy(in, "a=1\nb=x\n", 8);
    for (size_t i = 8; i < n; i += 4) memcpy(in + i, "c=2\n", 4);
    in[n] = 0;
    pego_grammar *g = compile(kv);
    pego_parser *p = pego_parser_new(g);
    source src = { in, n, 0, 4096, 0, 0, 0 };
    sink k = { 0 };
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, take, &k, NULL, &r), PEGO_SYNTAX_ERROR);
    CU_ASSERT_STRING_EQUAL(pego_result_error(r), "2:3: syntax error: expected (?0-9)");
    CU_ASSERT_EQUAL(k.count, 1);
    CU_ASSERT(src.at <= 4096);
    free(k.text);
    free(in);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* A literal with U+FFFD, which matches an invalid byte as well, compared where
 * the input held ends: the comparison examined the end (it ran out of input),
 * whatever the bytes of the literal and of the input held (first found by
 * tests/fuzz_parse: the pieces gave an error where the whole input matched). */
static void test_literal_fffd_at_end(void)
{
    const char *g = "def main = item* #stream $$\n"
                    "def item = @(\"x\xEF\xBF\xBD\xEF\xBF\xBDy\" / \"x\") -\";\"\n";
    check(g, "x\xFF\xFFy;x;",
          "(Seq \"x\xEF\xBF\xBD\xEF\xBF\xBDy\")@item\n(Seq \"x\")@item\n=> ok\n");
    check(g, "x\xFF\xFFz;", "=> 1:2: syntax error: expected \";\"\n");
}

/* {n,m}: at most m elements, the rest left for what follows; fewer than n
 * fail after the elements were handed over (nothing is retracted). */
static void test_bounds(void)
{
    const char *g = "def main = (@(?a-z)){2,3} #stream rest $$\ndef rest = @(?a-z)*\n";
    check(g, "abcde", "\"a\"\n\"b\"\n\"c\"\n=> ok\n");
    check(g, "ab", "\"a\"\n\"b\"\n=> ok\n");
    check(g, "a", "\"a\"\n=> 1:2: syntax error: expected (?a-z)\n");
    check(g, "a1", "\"a\"\n=> 1:2: syntax error: expected (?a-z)\n");
}

/* An element that matches without consuming input is handed over once and
 * ends the repetition; a nil element is handed over as nil. */
static void test_empty_element(void)
{
    check("def main = (\"a\" / \"\")* #stream @(?b)* $$\n", "aab", "\"a\"\n\"a\"\n\"\"\n=> ok\n");
    check("def main = (-\"a\")* #stream $$\n", "aa", "nil\nnil\n=> ok\n");
}

/* Stream-parses input, one byte a read, and returns the bytes read when each element came. */
static void arrival(const char *grammar, const char *input, size_t *at, unsigned *count)
{
    pego_grammar *g = compile(grammar);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    source src = { input, strlen(input), 0, 1, 0, 0, 0 };
    sink k = { .src = &src };
    CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, take, &k, NULL, NULL), PEGO_OK);
    memcpy(at, k.read_at, sizeof k.read_at);
    *count = k.count;
    free(k.text);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* An element that ends in a repetition waits for the next character or the
 * end of input; one that does not is handed over as soon as it matched. A
 * complete UTF-8 character never waits; an incomplete one waits for the rest. */
static void test_when_handed(void)
{
    size_t at[16];
    unsigned n;
    arrival("def main = w* #stream $$\ndef w = @(?a-z)+ \",\"\n", "ab,cd,", at, &n);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(at[0], 3);          /* "ab," with nothing more read */
    CU_ASSERT_EQUAL(at[1], 6);
    arrival("def main = w* #stream $$\ndef w = @(?a-z)+ \" \"*\n", "ab cd ", at, &n);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(at[0], 4);          /* after the "c" that ends the spaces */
    CU_ASSERT_EQUAL(at[1], 6);          /* at the end of the input */
    arrival("def main = . * #stream $$\n", "a\xc3\xa9\xe2\x82\xac", at, &n);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(at[0], 1);
    CU_ASSERT_EQUAL(at[1], 3);          /* both bytes of "é" */
    CU_ASSERT_EQUAL(at[2], 6);          /* all three of "€" */
    check("def main = . * #stream $$\n", "a\xc3\xa9\xe2\x82\xac", "\"a\"\n\"\xc3\xa9\"\n\"\xe2\x82\xac\"\n=> ok\n");
    /* an incomplete character at the end of the input: an invalid byte each (printed U+FFFD) */
    check("def main = . * #stream $$\n", "a\xe2\x82", "\"a\"\n\"\xef\xbf\xbd\"\n\"\xef\xbf\xbd\"\n=> ok\n");
}

/* Lines and columns count from the start of the whole input, in code points. */
static void test_positions(void)
{
    const char *g = "def main = line* #stream $$\ndef line = @(?a-zé)* \"\\n\"\n";
    check(g, "ab\nééé\ncd\néé1\n",
          "(Seq \"ab\" \"\\n\")@line\n(Seq \"ééé\" \"\\n\")@line\n(Seq \"cd\" \"\\n\")@line\n"
          "=> 4:3: syntax error: expected \"\\n\", (?a-zé)\n");
    pego_grammar *gr = compile(g);
    pego_parser *p = pego_parser_new(gr);
    const char *in = "ab\nééé\ncd\néé1\n";
    source src = { in, strlen(in), 0, 1, 0, 0, 0 };
    sink k = { 0 };
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, take, &k, NULL, &r), PEGO_SYNTAX_ERROR);
    CU_ASSERT_EQUAL(pego_result_error_offset(r), 12);       /* code points */
    CU_ASSERT_EQUAL(pego_result_error_line(r), 4);
    CU_ASSERT_EQUAL(pego_result_error_column(r), 3);
    free(k.text);
    pego_parser_free(p);
    pego_grammar_free(gr);
    /* elements that end within a line: a column counts from the line's start,
     * released with the elements before it (in code points: é is one) */
    const char *semi = "def main = stmt* #stream $$\ndef stmt = @(?a-zé)+ \";\" -(?\\n)?\n";
    check(semi, "ab;\néé;cd;é;e1;\n",
          "(Seq \"ab\" \";\")@stmt\n(Seq \"éé\" \";\")@stmt\n(Seq \"cd\" \";\")@stmt\n"
          "(Seq \"é\" \";\")@stmt\n=> 2:10: syntax error: expected \";\", (?a-zé)\n");
}

/* An element parsed again with more input starts from the expectations the
 * elements before it left: what the last one expected where it ended (";")
 * is in the error at that position, where the next element's literal "ab"
 * needed a byte more than the pieces had read ("a", then "x"). */
static void test_expected_at_element_end(void)
{
    const char *g = "def main = item* #stream $$\ndef item = \"ab\" / @(?0-9)+ -\";\"*\n";
    check(g, "12;ax", "(Seq \"12\")@item\n=> 1:4: syntax error: expected \";\", \"ab\", (?0-9), end of input\n");
    check(g, "12;ab3;;ax", "(Seq \"12\")@item\n\"ab\"@item\n(Seq \"3\")@item\n"
          "=> 1:9: syntax error: expected \";\", \"ab\", (?0-9), end of input\n");
}

/* text() in an action of the start rule sees only the input still held: a
 * predicate on it tells (the prefix "xx" is released once an element was handed over). */
static void test_text_held(void)
{
    const char *g = "def main = a:@\"x\"+ -\";\" (@(?0-9))* #stream [len(text($a)) == 0] $$\n";
    check(g, "xx;12", "\"1\"\n\"2\"\n=> ok\n");
    pego_grammar *gr = compile(g);
    pego_parser *p = pego_parser_new(gr);
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse(p, "xx;12", 5, NULL, &r), PEGO_SYNTAX_ERROR);   /* an ordinary parse holds it all */
    pego_parser_free(p);
    pego_grammar_free(gr);
}

/* Recovered errors come at the end, after all the elements. */
static void test_recovered(void)
{
    check("def main = (stmt #recover(skip=(?^;)* \";\"))* #stream $$\ndef stmt = @(?a-z)+ \";\"\n", "ab;1;cd;",
          "(Seq \"ab\" \";\")@stmt\nError\"1;\"{message=`1:4: syntax error: expected (?a-z)`}\n"
          "(Seq \"cd\" \";\")@stmt\n=> ok [1:4: syntax error: expected (?a-z)]\n");
    check("def main = (stmt #recover(skip=(?^;)* \";\"))* #stream $$\ndef stmt = @(?a-z)+ \";\"\n", "1;ab;2;",
          "Error\"1;\"{message=`1:1: syntax error: expected (?a-z)`}\n(Seq \"ab\" \";\")@stmt\n"
          "Error\"2;\"{message=`1:6: syntax error: expected (?a-z)`}\n"
          "=> ok [1:1: syntax error: expected (?a-z)] [1:6: syntax error: expected (?a-z)]\n");
}

/* The start rule without #stream and recognition are refused. */

static void test_refused(void)
{
    pego_grammar *g = compile("def main = \"a\"* $$\ndef s = \"a\"* #stream\n");
    pego_parser *p = pego_parser_new(g);
    source src = { "aa", 2, 0, 1, 0, 0, 0 };
    sink k = { 0 };
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, take, &k, NULL, &r), PEGO_EUSAGE);
    CU_ASSERT_STRING_EQUAL(pego_result_error(r), "rule main has no #stream repetition");
    pego_options o = { .start_rule = "s", .recognize = 1 };
    CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, take, &k, &o, &r), PEGO_EUSAGE);
    CU_ASSERT_STRING_EQUAL(pego_result_error(r), "recognition is not supported for stream parsing");
    o.recognize = 0;
    CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, take, &k, &o, &r), PEGO_OK);
    CU_ASSERT_EQUAL(k.count, 2);
    CU_ASSERT_EQUAL(src.reads, 3);     /* read until the end, and nothing read before the refusals */
    free(k.text);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* A failing reader's value comes back as is, a failing callback's unchanged;
 * what was handed over before stays handed over, and nothing after. */
static void test_callback_errors(void)
{
    pego_grammar *g = compile(kv);
    pego_parser *p = pego_parser_new(g);
    const char *in = "a=1\nbb=22\nccc=333\n";
    const pego_result *r;
    for (size_t piece = 1; piece <= 64; piece *= 4) {
        source src = { in, strlen(in), 0, piece, 5, -7, 0 };
        sink k = { 0 };
        CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, take, &k, NULL, &r), PEGO_EREAD);
        CU_ASSERT_EQUAL(pego_result_callback_error(r), -7);
        /* the reads from offset 5 on fail: before, 1 byte a read gives "a=1\nb", 4
         * bytes "a=1\nbb=2", 16 bytes two records and 64 bytes all three */
        CU_ASSERT_EQUAL(k.count, piece == 1 || piece == 4 ? 1 : piece == 16 ? 2 : 3);
        free(k.text);
        source ok = { in, strlen(in), 0, piece, 0, 0, 0 };
        sink stop = { .stop_at = 2, .stop_with = 42 };
        CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &ok, take, &stop, NULL, &r), PEGO_ECALLBACK);
        CU_ASSERT_EQUAL(pego_result_callback_error(r), 42);
        CU_ASSERT_EQUAL(stop.count, 2);
        free(stop.text);
    }
    /* the parser is usable after both */
    source src = { in, strlen(in), 0, 3, 0, 0, 0 };
    sink k = { 0 };
    CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, take, &k, NULL, &r), PEGO_OK);
    CU_ASSERT_EQUAL(pego_result_callback_error(r), 0);
    CU_ASSERT_EQUAL(k.count, 3);
    free(k.text);
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* ---- stream elements equal an ordinary parse's List elements ---- */

typedef struct {
    const char *fixture;      /* whose inputs */
    const char *grammar;      /* ours, with #stream */
    int         list_child;   /* the List's index among the start rule's children (-1: the value) */
} equal_case;

static const equal_case equal_cases[] = {
    { "csv",
      "def main   = record* #stream\n"
      "def record = !$$ field (-\",\" field)* -eol\n"
      "def field  = quoted / bare\n"
      "def quoted = @(\"\\\"\" ((?^\") / \"\\\"\\\"\")* \"\\\"\")\n"
      "def bare   = @(?^,\"\\r\\n)*\n"
      "def eol    = \"\\r\\n\" / \"\\n\" / $$\n", -1 },
    { "records",
      "type Name terminal\n"
      "type Int terminal\n"
      "type Str terminal\n"
      "type Sum struct { Terms []Int }\n"
      "type Value = Sum | Str\n"
      "type Field struct { Key Name, Value Value }\n"
      "type Record struct { Name Name, Fields []Field }\n"
      "def main = -ws record* #stream $$\n"
      "def record: Record = n:name -ws -\"{\" -ws f:fields? -\"}\" -ws -> new Record{Name: $n, Fields: concat($f)}\n"
      "def fields: []Field = first:field rest:(-\";\" -ws x:field)* -> concat(list($first), map($rest, (r) => $r.x))\n"
      "def field: Field = k:name -ws -\"=\" -ws v:value -ws -> new Field{Key: $k, Value: $v}\n"
      "def value: Value = sum / str\n"
      "def sum: Sum = t:int ts:(-ws -\"+\" -ws x:int)* -> new Sum{Terms: concat(list($t), map($ts, (r) => $r.x))}\n"
      "def int: Int = @(?0-9)+\n"
      "def str: Str = @(\"\\\"\" (?^\")* \"\\\"\")\n"
      "def name: Name = @(?a-zA-Z_)+\n"
      "def ws = (\" \" / \"\\n\")*\n", 0 },
};

typedef struct { const equal_case *c; int compared; uint64_t fast; } equal_ctx;

/* Stream parses of input in pieces of 1, 7 and 65536 bytes against an
 * ordinary parse: the elements are the List's, the error the same. Returns
 * the number of differences. */
static int compare_input(equal_ctx *e, pego_parser *p, const char *file, const char *input, size_t len)
{
    const pego_result *r;
    sink want = { .format = PEGO_PRINT_JSON_COMPACT };
    char *want_error = NULL;
    if (pego_parse(p, input, len, NULL, &r) == PEGO_OK) {
        const pego_node *list = pego_result_tree(r);
        if (e->c->list_child >= 0) list = pego_node_child(r, list, (size_t)e->c->list_child);
        for (size_t i = 0; i < pego_node_child_count(r, list); i++) take(r, pego_node_child(r, list, i), &want);
        want_error = strdup("ok");
    } else {
        want_error = strdup(pego_result_error(r));
    }
    int differences = 0;
    static const size_t pieces[] = { 1, 7, 65536 };
    for (size_t i = 0; i < 3; i++) {
        source src = { input, len, 0, pieces[i], 0, 0, 0 };
        sink got = { .format = PEGO_PRINT_JSON_COMPACT };
        pego_status st = pego_parse_stream(p, read_source, &src, take, &got, NULL, &r);
        const char *err = st == PEGO_OK ? "ok" : pego_result_error(r);
        e->fast += p->stream.fast_elements;
        /* a failed ordinary parse has no tree: the stream's error must be the same */
        if (strcmp(err, want_error) || (st == PEGO_OK && (got.count != want.count ||
                                                          strcmp(got.text ? got.text : "", want.text ? want.text : "")))) {
            fprintf(stderr, "\n%s (%zu bytes in pieces of %zu): %s / %s\n", file, len, pieces[i], err, want_error);
            differences++;
        }
        e->compared++;
        free(got.text);
    }
    free(want.text);
    free(want_error);
    return differences;
}

/* The fixture's input, and the same 40 times over, where the fast program
 * parses the elements before the end (each of them may wait for the end of a
 * short input). */
static int compare_fixture(const pego_grammar *fg, const char *file, const char *input, size_t len, void *ctx)
{
    equal_ctx *e = ctx;
    (void)fg;
    char dir[64];
    snprintf(dir, sizeof dir, "/%s/", e->c->fixture);
    if (!strstr(file, dir)) return 0;
    pego_grammar *g = compile(e->c->grammar);
    if (!g) return 1;
    pego_parser *p = pego_parser_new(g);
    int differences = compare_input(e, p, file, input, len);
    char *many = malloc(40 * len + 1);
    for (size_t i = 0; i < 40; i++) memcpy(many + i * len, input, len);
    differences += compare_input(e, p, file, many, 40 * len);
    free(many);
    pego_parser_free(p);
    pego_grammar_free(g);
    return differences;
}

static void test_equals_ordinary(void)
{
    for (size_t i = 0; i < sizeof equal_cases / sizeof *equal_cases; i++) {
        equal_ctx e = { &equal_cases[i], 0, 0 };
        int grammars, inputs;
        CU_ASSERT_EQUAL(fixtures_each(compare_fixture, &e, &grammars, &inputs), 0);
        CU_ASSERT(e.compared >= 9);
        printf("\n  %s: %d parses, %llu elements parsed by the fast program ", equal_cases[i].fixture, e.compared,
               (unsigned long long)e.fast);
        CU_ASSERT(e.fast > 0);          /* each grammar's repetition calls one rule */
    }
}

/* ---- random inputs ---- */

/* A reader of pieces of random length (1 to most bytes). */
typedef struct { const char *data; size_t len, at; uint32_t seed; size_t most; } random_source;

static uint32_t next_random(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

/* The code points of released input, and of a line up to a position, are
 * counted sixteen or eight bytes a step (runtime/input.c): the same as
 * decoding each character in turn (an invalid byte is one, a character cut by
 * the position is not counted). Random text: ASCII only, valid UTF-8 only
 * (with the sequences whose second byte has a narrower range, at both ends of
 * it), valid with a few invalid sequences, or many; long lines or short ones;
 * released at random characters' starts, near or far apart. */
static uint64_t decoded_between(const unsigned char *s, uint32_t len, uint32_t from, uint32_t to)
{
    uint64_t k = 0;
    while (from < to) {
        uint32_t cp;
        uint32_t w = (uint32_t)rt_unicode_decode(s + from, len - from, &cp);
        if (from + w > to) break;
        from += w;
        k++;
    }
    return k;
}

static void test_released_units(void)
{
    static const char *const valid[] = {
        "a", "bc", "xyzw1234", "0123456789abcdef", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
        "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xE0\xBF\xBF", "\xED\x80\x80", "\xED\x9F\xBF",
        "\xEF\xBF\xBF", "\xF0\x90\x80\x80", "\xF4\x80\x80\x80", "\xF4\x8F\xBF\xBF", "\xF3\xBF\xBF\xBF",
    };
    static const char *const invalid[] = {
        "\x80", "\xBF", "\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xC0\x80", "\xC1\xBF", "\xE0\x9F\xBF",
        "\xED\xA0\x80", "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF",
        "\xC3\xA9\xA9", "\xE2\x82\xAC\x80",
    };
    const unsigned nvalid = sizeof valid / sizeof *valid, ninvalid = sizeof invalid / sizeof *invalid;
    uint32_t seed = 12345;
    for (int round = 0; round < 400; round++) {
        static unsigned char text[4200];
        uint32_t len = 0;
        unsigned kind = (unsigned)round % 4;              /* ASCII, valid, a few invalid, many */
        unsigned line_every = round % 3 == 0 ? 20 : 400;  /* a line feed in so many pieces */
        unsigned step = round % 5 < 2 ? 40 : 600;        /* the most bytes released at once */
        uint32_t size = 200 + next_random(&seed) % 4000;
        while (len < size) {
            unsigned r = next_random(&seed);
            const char *piece = r % line_every == 0 ? "\n"
                              : kind == 0 ? valid[r / 7 % 4]
                              : kind == 1 || (kind == 2 && r / 7 % 30) ? valid[r / 7 % nvalid]
                              : (r / 7) % 2 ? valid[r / 14 % nvalid] : invalid[r / 14 % ninvalid];
            memcpy(text + len, piece, strlen(piece));
            len += (uint32_t)strlen(piece);
        }
        rt_input in = { 0 };
        rt_input_reset(&in, (const char *)text, len, PEGO_UNIT_CODEPOINTS);
        uint64_t units = 0, line_start_units = 0;
        uint32_t line = 0, at = 0;
        while (at < len) {
            uint32_t next = at + next_random(&seed) % step, b = at;
            while (b < next && b < len) {             /* a character's start at or after next */
                uint32_t cp;
                b += (uint32_t)rt_unicode_decode(text + b, len - b, &cp);
            }
            for (uint32_t i = at; i < b; i++)
                if (text[i] == '\n') {
                    line++;
                    line_start_units = units + decoded_between(text, len, at, i + 1);
                }
            units += decoded_between(text, len, at, b);
            rt_input_release(&in, b);
            rt_input_window(&in, (const char *)text, len);   /* as a read after it: no tables */
            CU_ASSERT_EQUAL(in.base_units, units);
            CU_ASSERT_EQUAL(in.base_line, line);
            CU_ASSERT_EQUAL(in.line_units, line_start_units);
            /* a column, from the line's start, at a position that may cut a character */
            uint32_t pos = b + next_random(&seed) % step;
            if (pos > len) pos = len;
            int l, c;
            rt_input_line_col(&in, pos, &l, &c);
            uint32_t ls = b, nl = line;
            for (uint32_t i = b; i < pos; i++)
                if (text[i] == '\n') { ls = i + 1; nl++; }
            uint64_t col = ls == b ? units - line_start_units + decoded_between(text, len, b, pos)
                                   : decoded_between(text, len, ls, pos);
            CU_ASSERT_EQUAL(l, (int)nl + 1);
            CU_ASSERT_EQUAL(c, (int)col + 1);
            rt_input_window(&in, (const char *)text, len);
            at = b;
        }
        rt_input_free(&in);
    }
}

static long read_random(char *buf, size_t cap, void *ctx)
{
    random_source *s = ctx;
    size_t n = 1 + next_random(&s->seed) % s->most;
    if (n > s->len - s->at) n = s->len - s->at;
    if (n > cap) n = cap;
    memcpy(buf, s->data + s->at, n);
    s->at += n;
    return (long)n;
}

typedef struct { const char *grammar, *alphabet; int list_child; } random_case;

static const random_case random_cases[] = {
    { "def main = (@(?a-c)+ -\",\"?)* #stream $$\n", "abc,", 0 },
    { "def main = -\"<\" (x:@(?ab) !\"c\" / @\"c\" &(?ab))* #stream -\">\"? $$\n", "abc<>", 0 },
    { "def main = line* #stream $$\ndef line = !$$ @(?^\\n)* (\"\\n\" / $$)\n", "ab\n\xc3\xa9", 0 },
    { "def main = (stmt #recover(skip=(?^;)* \";\"))* #stream $$\ndef stmt = @(?a-b)+ \";\"\n", "ab;c", 0 },
    { "def main = (@(?a-b) / \"\"){1,3} #stream rest:@(?a-c)* $$\n", "abc", 0 },
    { "def main = (w -\" \"*)* #stream t:(@\"!\")? [len(text($t)) < 2] $$\ndef w = @(?a-b)+ / @\"(\" w* \")\"\n", "ab ()!", 0 },
    /* the repetition calls one rule: the fast program parses elements ahead */
    { "def main = kv* #stream $$\ndef kv = @(?a-c)+ \"=\" @(?0-9)* \";\"\n", "ab=1;", 0 },
    { "def main = tok* #stream -\"!\"? $$\ndef tok = @\"abc\" -\" \"? / @\"ab\" / @(?a-c) -\" \"*\n", "abc !", 0 },
    { "def main = x* #stream $$\ndef x = @\"a\" &\"ab\" / @\"b\" !\"bbb\" / @\"c\"\n", "abc", 0 },
    { "def main = -\"[\" it* #stream -\"]\" $$\ndef it = @(?a-b)+ -\",\"? / -\"(\" it* -\")\"\n", "ab,()[]", 0 },
    { "def main = e* #stream $$\ndef e = pratt { skip \" \"* operand @(?0-9) level { infix left \"+\" } level { prefix \"-\" } }\n", "1+ -", 0 },
};

/* Stream parses equal ordinary parses on random inputs read in random pieces: the
 * elements are the List's, the error or the recovered errors the same. */
static int profiled;    /* in run_profiled's child: the fast program's elements are not used */

static void test_random_inputs(void)
{
    pego_collector *collector = pego_collector_new();
    uint32_t seed = 12345;
    unsigned compared = 0, elements = 0;
    uint64_t fast = 0;
    for (size_t c = 0; c < sizeof random_cases / sizeof *random_cases; c++) {
        const random_case *rc = &random_cases[c];
        pego_grammar *g = compile(rc->grammar);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        pego_parser *p = pego_parser_new(g);
        size_t na = strlen(rc->alphabet);
        for (int t = 0; t < 400; t++) {
            char in[64];
            size_t len = next_random(&seed) % (c < 6 ? 16 : 60);
            for (size_t i = 0; i < len; i++) in[i] = rc->alphabet[next_random(&seed) % na];
            in[len] = 0;
            const pego_result *r;
            sink want = { .format = PEGO_PRINT_SEXPR };
            char *want_error;
            if (pego_parse(p, in, len, NULL, &r) == PEGO_OK) {
                const pego_node *list = pego_result_tree(r);
                if (rc->list_child >= 0) list = pego_node_child(r, list, (size_t)rc->list_child);
                for (size_t i = 0; i < pego_node_child_count(r, list); i++) take(r, pego_node_child(r, list, i), &want);
                size_t n = pego_result_recovered_count(r);
                want_error = strdup(n ? pego_result_recovered_error(r, n - 1) : "ok");
            } else {
                want_error = strdup(pego_result_error(r));
            }
            random_source src = { in, len, 0, seed, c < 6 ? 5 : 64 };
            sink got = { .format = PEGO_PRINT_SEXPR };
            pego_status st = pego_parse_stream(p, read_random, &src, take, &got, NULL, &r);
            size_t n = st == PEGO_OK ? pego_result_recovered_count(r) : 0;
            const char *err = st != PEGO_OK ? pego_result_error(r) : n ? pego_result_recovered_error(r, n - 1) : "ok";
            int same = strcmp(err, want_error) == 0 &&
                       (st != PEGO_OK || strcmp(got.text ? got.text : "", want.text ? want.text : "") == 0);
            if (!same) fprintf(stderr, "\n%s on \"%s\": %s / %s\n%s--- want\n%s", rc->grammar, in, err, want_error,
                               got.text ? got.text : "", want.text ? want.text : "");
            CU_ASSERT(same);
            compared++;
            elements += got.count;
            fast += p->stream.fast_elements;
            if (t % 3 == 0) {
                /* traced by a collector: the same elements and errors */
                random_source again = { in, len, 0, seed, c < 6 ? 5 : 64 };
                sink traced = { .format = PEGO_PRINT_SEXPR };
                pego_parser_add_collector(p, collector);
                pego_status tst = pego_parse_stream(p, read_random, &again, take, &traced, NULL, &r);
                pego_parser_remove_collector(p, collector);
                size_t tn = tst == PEGO_OK ? pego_result_recovered_count(r) : 0;
                const char *terr = tst != PEGO_OK ? pego_result_error(r) : tn ? pego_result_recovered_error(r, tn - 1) : "ok";
                int tsame = strcmp(terr, want_error) == 0 &&
                            (tst != PEGO_OK || strcmp(traced.text ? traced.text : "", want.text ? want.text : "") == 0);
                if (!tsame) fprintf(stderr, "\ntraced: %s on \"%s\": %s / %s\n", rc->grammar, in, terr, want_error);
                CU_ASSERT(tsame);
                free(traced.text);
            }
            free(got.text);
            free(want.text);
            free(want_error);
        }
        pego_parser_free(p);
        pego_grammar_free(g);
    }
    pego_collector_totals tot;
    pego_collector_get_totals(collector, &tot);
    printf("\n  %u random inputs, %u elements, %llu parsed by the fast program, %llu calls traced ", compared,
           elements, (unsigned long long)fast, (unsigned long long)tot.calls);
    CU_ASSERT(elements > 1000);
    CU_ASSERT(profiled ? fast == 0 : fast > 500);
    CU_ASSERT(tot.calls > 1000);
    pego_collector_free(collector);
}

/* ---- the marks of traced stream parses ---- */

/* A sink that keeps the calls' events as text, voiding what an AGAIN voids:
 * what it keeps does not depend on the pieces the input came in. */
typedef struct {
    char  *text;
    size_t len, cap, mark;
    int    marks, agains;
    const char *input;     /* the whole input: a call's text is part of it */
    size_t      ninput;
    int         bad_text;
} voiding_sink;

static int voiding_event(const pego_trace_event *ev, void *ud)
{
    voiding_sink *v = ud;
    if (ev->kind == PEGO_TRACE_MARK) {
        v->mark = v->len;
        v->marks++;
        return 0;
    }
    if (ev->kind == PEGO_TRACE_AGAIN) {
        v->len = ev->depth ? v->mark : 0;
        v->mark = ev->depth ? v->mark : 0;
        v->agains++;
        return 0;
    }
    if (ev->kind == PEGO_TRACE_EXIT && ev->matched) {
        /* the matched text, and the input between the call's positions: the
         * same bytes, part of the input (the start rule's begin where the
         * input held does, what is before it released) */
        size_t a, b, at = 0;
        const char *t = pego_trace_text(ev, &a), *u = pego_trace_input(ev, ev->pos, ev->end, &b);
        while (a <= v->ninput && at + a <= v->ninput && memcmp(v->input + at, t, a) != 0) at++;
        if (a != b || memcmp(t, u, a) != 0 || a > v->ninput || at + a > v->ninput) v->bad_text++;
    }
    char line[256];
    uint64_t far = 0;
    size_t n = 0;
    int failed = ev->kind == PEGO_TRACE_EXIT && pego_trace_failure(ev, &far, &n);
    int k = ev->kind == PEGO_TRACE_ENTER
                ? snprintf(line, sizeof line, "+%s@%llu/%u\n", ev->rule, (unsigned long long)ev->pos, ev->depth)
                : snprintf(line, sizeof line, "-%s%s%llu x%llu e%llu%s far %llu/%zu\n", ev->rule, ev->matched ? "=" : "!",
                           (unsigned long long)ev->end, (unsigned long long)ev->examined,
                           (unsigned long long)ev->evals, ev->memo ? " memo" : "", failed ? (unsigned long long)far : 0, n);
    if (v->len + (size_t)k + 1 > v->cap) {
        v->cap = (v->len + (size_t)k + 1) * 2;
        v->text = realloc(v->text, v->cap);
    }
    memcpy(v->text + v->len, line, (size_t)k + 1);
    v->len += (size_t)k;
    return 0;
}

/* Traced stream parses of random inputs read in random pieces keep the calls
 * of a stream parse reading the whole input at once, once the events an
 * AGAIN voids are dropped. */
static void test_trace_marks(void)
{
    uint32_t seed = 777;
    unsigned compared = 0, agains = 0, marks = 0;
    for (size_t c = 0; c < sizeof random_cases / sizeof *random_cases; c++) {
        pego_grammar *g = compile(random_cases[c].grammar);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        pego_parser *p = pego_parser_new(g);
        size_t na = strlen(random_cases[c].alphabet);
        for (int t = 0; t < 100; t++) {
            char in[64];
            size_t len = next_random(&seed) % (c < 6 ? 16 : 60);
            for (size_t i = 0; i < len; i++) in[i] = random_cases[c].alphabet[next_random(&seed) % na];
            in[len] = 0;
            voiding_sink whole = { .input = in, .ninput = len }, pieces = { .input = in, .ninput = len };
            source all = { in, len, 0, len ? len : 1, 0, 0, 0 };
            random_source some = { in, len, 0, seed, 3 };
            sink drop = { 0 };
            pego_parser_set_trace(p, voiding_event, &whole);
            pego_parse_stream(p, read_source, &all, take, &drop, NULL, NULL);
            pego_parser_remove_trace(p, voiding_event, &whole);
            pego_parser_set_trace(p, voiding_event, &pieces);
            pego_parse_stream(p, read_random, &some, take, &drop, NULL, NULL);
            pego_parser_remove_trace(p, voiding_event, &pieces);
            int same = whole.len == pieces.len && (!whole.len || memcmp(whole.text, pieces.text, whole.len) == 0);
            if (!same)
                fprintf(stderr, "\n%s on \"%s\":\n--- whole\n%.*s--- pieces\n%.*s", random_cases[c].grammar, in,
                        (int)whole.len, whole.text ? whole.text : "", (int)pieces.len, pieces.text ? pieces.text : "");
            CU_ASSERT(same);
            CU_ASSERT_EQUAL(whole.bad_text + pieces.bad_text, 0);
            compared++;
            agains += (unsigned)pieces.agains;
            marks += (unsigned)pieces.marks;
            free(whole.text);
            free(pieces.text);
            free(drop.text);
        }
        pego_parser_free(p);
        pego_grammar_free(g);
    }
    printf("\n  %u inputs, %u marks and %u parses again in pieces ", compared, marks, agains);
    CU_ASSERT(agains > 100);
}

/* A sink that stops a stream parse at a mark, as at a call. */
static int stop_at(const pego_trace_event *ev, void *ud)
{
    return ev->kind == *(const pego_trace_kind *)ud;
}

static void test_trace_marks_stop(void)
{
    pego_grammar *g = compile("def main = item* #stream $$\ndef item = \"ab\" / @(?0-9)+ -\";\"*\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    static const pego_trace_kind kinds[] = { PEGO_TRACE_MARK, PEGO_TRACE_AGAIN };
    for (int k = 0; k < 2; k++) {
        source src = { "12;ab3;;a", 9, 0, 1, 0, 0, 0 };
        sink drop = { 0 };
        const pego_result *r;
        pego_parser_set_trace(p, stop_at, (void *)&kinds[k]);
        CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, take, &drop, NULL, &r), PEGO_ABORTED);
        CU_ASSERT_STRING_EQUAL(pego_result_error(r), "parse aborted by a trace callback");
        pego_parser_remove_trace(p, stop_at, (void *)&kinds[k]);
        free(drop.text);
    }
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* ---- bounded memory ---- */

/* Makes 100,000 records "k<i>=<i>\n" on the fly. */
typedef struct { unsigned i, n; char pending[32]; size_t plen, poff; size_t total; } gen;

static long read_gen(char *buf, size_t cap, void *ctx)
{
    gen *g = ctx;
    size_t out = 0;
    while (out < cap) {
        if (g->poff == g->plen) {
            if (g->i == g->n) break;
            g->plen = (size_t)snprintf(g->pending, sizeof g->pending, "k%u=%u\n", g->i, g->i * 7u);
            g->poff = 0;
            g->i++;
        }
        size_t k = g->plen - g->poff < cap - out ? g->plen - g->poff : cap - out;
        memcpy(buf + out, g->pending + g->poff, k);
        g->poff += k;
        out += k;
        if (out >= 4096) break;       /* pieces of about 4 KiB */
    }
    g->total += out;
    return (long)out;
}

static int count_only(const pego_result *r, const pego_node *n, void *ctx)
{
    (void)r;
    (void)n;
    ++*(unsigned *)ctx;
    return 0;
}

static void test_bounded_memory(void)
{
    pego_grammar *g = compile("def main = rec* #stream $$\n"
                              "def rec = k:key -\"=\" v:@(?0-9)+ -\"\\n\"\n"
                              "def key = @(?a-z) @(?0-9)*\n");
    pego_parser *p = pego_parser_new(g);
    gen src = { 0, 100000, "", 0, 0, 0 };
    unsigned n = 0;
    CU_ASSERT_EQUAL(pego_parse_stream(p, read_gen, &src, count_only, &n, NULL, NULL), PEGO_OK);
    CU_ASSERT_EQUAL(n, 100000);
    CU_ASSERT(src.total > 1000000);
    /* held: a piece of the reader's and the room a read is given, whatever the input's length */
    printf("\n  %zu bytes streamed: at most %zu bytes held, %u memo entries, %u nodes\n", src.total,
           p->stream.peak_held, p->stream.peak_memo, p->stream.peak_nodes);
    CU_ASSERT(p->stream.peak_held <= 65536 + 4096);
    CU_ASSERT(p->stream.peak_memo <= 16);
    CU_ASSERT(p->stream.peak_nodes <= 16);
    CU_ASSERT(p->stream.fast_elements > 90000);   /* all but those at the ends of the reads */
    /* traced by a collector: the positions it counts evaluations at go with the input */
    pego_collector *c = pego_collector_new();
    pego_parser_add_collector(p, c);
    gen again = { 0, 100000, "", 0, 0, 0 };
    n = 0;
    CU_ASSERT_EQUAL(pego_parse_stream(p, read_gen, &again, count_only, &n, NULL, NULL), PEGO_OK);
    CU_ASSERT_EQUAL(n, 100000);
    pego_collector_totals tot;
    pego_collector_get_totals(c, &tot);
    printf("  traced: %llu calls, %zu positions held at the end\n", (unsigned long long)tot.calls,
           rt_collector_positions(c));
    CU_ASSERT(tot.calls >= 200000);             /* rec and key, 100,000 times */
    CU_ASSERT(rt_collector_positions(c) < 65536);   /* the calls of what one piece held, not of 1.3 MB */
    CU_ASSERT(p->stream.peak_memo <= 16);
    pego_parser_free(p);
    pego_collector_free(c);
    pego_grammar_free(g);
}

/* An exact profile (--profile-detail) of a stream parse: the positions it
 * counts repeats at go with the input, as the collector's do, and an element
 * callback that parses too, in the same thread, profiles its parse as well
 * (the thread's record is held by the stream parse's). */
typedef struct {
    pego_parser *stream, *inner;
    unsigned     elements, inner_ok;
    uint32_t     most_positions;
} exact_sink;

static int exact_element(const pego_result *r, const pego_node *n, void *ctx)
{
    (void)r;
    (void)n;
    exact_sink *k = ctx;
    uint32_t held = rt_profiler_repeat_positions(k->stream);
    if (held > k->most_positions) k->most_positions = held;
    if (k->elements++ % 1000 == 0) {
        const pego_result *ir;
        k->inner_ok += pego_parse(k->inner, "k1=2\n", 5, NULL, &ir) == PEGO_OK;
    }
    return 0;
}

static void exact_stream(void)
{
    pego_grammar *g = compile("def main = rec* #stream $$\n"
                              "def rec = k:key -\"=\" v:@(?0-9)+ -\"\\n\"\n"
                              "def key = @(?a-z) @(?0-9)*\n");
    pego_grammar *one = compile("def main = rec\n"
                                "def rec = k:key -\"=\" v:@(?0-9)+ -\"\\n\"\n"
                                "def key = @(?a-z) @(?0-9)*\n");
    exact_sink k = { pego_parser_new(g), pego_parser_new(one), 0, 0, 0 };
    gen src = { 0, 100000, "", 0, 0, 0 };
    CU_ASSERT_EQUAL(pego_parse_stream(k.stream, read_gen, &src, exact_element, &k, NULL, NULL), PEGO_OK);
    CU_ASSERT_EQUAL(k.elements, 100000);
    CU_ASSERT_EQUAL(k.inner_ok, 100);
    printf("\n  exact profile: %u elements, at most %u positions held for repeats, %zu bytes streamed\n",
           k.elements, k.most_positions, src.total);
    /* rec and key evaluated at each of 100,000 elements: without forgetting,
     * 200,000 positions; the input held holds a few thousand elements */
    CU_ASSERT(k.most_positions > 0);
    CU_ASSERT(k.most_positions < 20000);
    pego_parser_free(k.stream);
    pego_parser_free(k.inner);
    pego_grammar_free(g);
    pego_grammar_free(one);
}

static void test_exact_profile(void) { CU_ASSERT_EQUAL(run_profiled(exact_stream, "--profile-detail"), 0); }

/* ---- elements the fast program parses ---- */

/* The fast program's elements are final only when a test may have examined no
 * byte past the input held: an element "x" followed by "abcd" is "xabcd", but
 * with the input held ending inside the literal, "abcd" fails there. Every
 * piece size cuts the literal somewhere; the elements and the error are those
 * of an ordinary parse, and the fast program parses most of them. */
static void test_fast_margin(void)
{
    pego_grammar *g = compile("def main = t* #stream $$\n"
                              "def t = @\"x\" @\"abcd\"? / @(?a-d)\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    static char in[8192];
    in[0] = 0;
    for (int i = 0; i < 1000; i++) strcat(in, i % 4 == 3 ? "xab" : "xabcda");
    for (int bad = 0; bad < 2; bad++) {
        if (bad) strcat(in, "xabce");              /* an error after the last element */
        const pego_result *r;
        sink want = { .format = PEGO_PRINT_SEXPR };
        char *want_error;
        if (pego_parse(p, in, strlen(in), NULL, &r) == PEGO_OK) {
            const pego_node *list = pego_node_child(r, pego_result_tree(r), 0);   /* (Seq List) */
            for (size_t i = 0; i < pego_node_child_count(r, list); i++) take(r, pego_node_child(r, list, i), &want);
            want_error = strdup("ok");
        } else {
            want_error = strdup(pego_result_error(r));
        }
        uint64_t fast = 0;
        static const size_t pieces[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 64, 4096 };
        for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
            source src = { in, strlen(in), 0, pieces[i], 0, 0, 0 };
            sink got = { .format = PEGO_PRINT_SEXPR };
            pego_status st = pego_parse_stream(p, read_source, &src, take, &got, NULL, &r);
            const char *err = st == PEGO_OK ? "ok" : pego_result_error(r);
            CU_ASSERT_STRING_EQUAL(err, want_error);
            if (!bad) CU_ASSERT_STRING_EQUAL(got.text ? got.text : "", want.text ? want.text : "");
            fast += p->stream.fast_elements;
            free(got.text);
        }
        CU_ASSERT(fast > 2000);
        free(want.text);
        free(want_error);
    }
    pego_parser_free(p);
    pego_grammar_free(g);
}

/* ---- the default memo policy ---- */

/* The default policy memoizes a rule's second call at a position (docs/language.md
 * 2.1) in a stream parse of the reference program (where the fast program
 * parses no element) as in an ordinary one, element by element: an element
 * "w y" calls w twice at its start, one "w x" once (w calls a rule and has two
 * call sites: it is not transient). */
static void test_default_memo_policy(void)
{
    pego_grammar *g = compile("def main = el* #stream $$\n"
                              "def el = w -\"x\" / w -\"y\"\n"
                              "def w = part (-\"-\" part)* -\" \"*\n"
                              "def part = @(?a-z)+\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    char in[4096] = "";
    unsigned ys = 0;
    for (unsigned i = 0; i < 200; i++) {
        strcat(in, i % 3 == 1 ? "ab-cd y" : "ef x");
        ys += i % 3 == 1;
    }
    pego_parser *p = pego_parser_new(g);
    const pego_result *r;
    pego_options ref = { .reference = 1 };
    CU_ASSERT_EQUAL_FATAL(pego_parse(p, in, strlen(in), &ref, &r), PEGO_OK);
    /* the second call of w at the start of each "w y" and at the end, where
     * el fails (part, a rule that calls none, is never memoized) */
    uint64_t stored = pego_result_stats(r)->memo_stored;
    CU_ASSERT_EQUAL(stored, ys + 1);
    static const size_t pieces[] = { 4096, 5 };
    for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
        source src = { in, strlen(in), 0, pieces[i], 0, 0, 0 };
        unsigned n = 0;
        CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, count_only, &n, &ref, &r), PEGO_OK);
        CU_ASSERT_EQUAL(n, 200);
        /* the same, and again for each element parsed again with more input:
         * read at once, only the iteration that fails at the end (it saw the
         * end of what was held before the reader ended) */
        uint64_t got = pego_result_stats(r)->memo_stored;
        if (pieces[i] == 4096) CU_ASSERT_EQUAL(got, stored + 1);
        if (pieces[i] == 5) CU_ASSERT(got >= stored && got <= 4 * stored);
    }
    /* with -memo all, every call of el and w is stored */
    source src = { in, strlen(in), 0, 4096, 0, 0, 0 };
    unsigned n = 0;
    pego_options all = { .memo = PEGO_MEMO_ALL, .reference = 1 };
    CU_ASSERT_EQUAL(pego_parse_stream(p, read_source, &src, count_only, &n, &all, &r), PEGO_OK);
    CU_ASSERT(pego_result_stats(r)->memo_stored >= 2 * 200 + ys);
    pego_parser_free(p);
    pego_grammar_free(g);
}


static void profiled_random_inputs(void)
{
    profiled = 1;
    test_random_inputs();
}

/* Profiled stream parses give the elements and errors of ordinary parses. */
static void test_profiled(void) { CU_ASSERT_EQUAL(run_profiled(profiled_random_inputs, NULL), 0); }

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("stream parses", NULL, NULL);
    CU_add_test(s, "the example of 7.1", test_example);
    CU_add_test(s, "captures, and what follows the repetition", test_captures_and_after);
    CU_add_test(s, "what follows the repetition", test_after_repetition);
    CU_add_test(s, "an error reads no more input", test_error_reads_no_more);
    CU_add_test(s, "a literal with U+FFFD where the input held ends", test_literal_fffd_at_end);
    CU_add_test(s, "{n,m} bounds", test_bounds);
    CU_add_test(s, "an empty element ends the repetition", test_empty_element);
    CU_add_test(s, "when elements are handed over", test_when_handed);
    CU_add_test(s, "absolute positions, lines and columns", test_positions);
    CU_add_test(s, "released input counted as decoded", test_released_units);
    CU_add_test(s, "expected where an element ended", test_expected_at_element_end);
    CU_add_test(s, "traced in pieces: the events an AGAIN voids", test_trace_marks);
    CU_add_test(s, "a sink stops the parse at a mark", test_trace_marks_stop);
    CU_add_test(s, "text() sees the input still held", test_text_held);
    CU_add_test(s, "recovered errors at the end", test_recovered);
    CU_add_test(s, "refused parses", test_refused);
    CU_add_test(s, "reader and callback errors", test_callback_errors);
    CU_add_test(s, "elements equal an ordinary parse's", test_equals_ordinary);
    CU_add_test(s, "random inputs in random pieces", test_random_inputs);
    CU_add_test(s, "memory stays bounded", test_bounded_memory);
    CU_add_test(s, "the default memo policy", test_default_memo_policy);
    CU_add_test(s, "the fast program's elements are final", test_fast_margin);
    CU_add_test(s, "profiled, the same elements and errors", test_profiled);
    CU_add_test(s, "an exact profile: repeats' positions go with the input; callbacks parse too", test_exact_profile);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
