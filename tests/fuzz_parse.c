/* libFuzzer target for the grammar compiler and the engine: a differential test
 * of the fast program against the reference program, and of the default memo
 * policy against memoizing every call (predicates' variables key memo entries).
 *
 * The data is a grammar, a NUL byte, and an input. A grammar that compiles is
 * used to parse the input in tree and recognition mode, once with the default
 * options (the fast program, for a grammar that has one) and once with
 * pego_options.reference. The two must agree on the status, the printed tree
 * or the error text; and a match must have come from the fast program itself
 * (far from the nesting limit, where it keeps levels in reserve), since a
 * fallback to the reference program would hide a difference. A third parse
 * memoizes every call and must agree with the first unless either stopped at
 * the nesting limit. A grammar whose start rule has #stream is stream-parsed
 * with the input read in pieces of 1, 7 and all its bytes, and on the
 * reference program alone: the elements and outcomes must agree. Every grammar
 * parses the input as a document, then with its middle third deleted and put
 * back, each parse compared with a fresh parse. Any
 * disagreement aborts with both outcomes on standard error. A grammar that does
 * not compile must give its errors, never a crash. Build: clang
 * -fsanitize=fuzzer,address,undefined (make fuzz). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"
#include "../runtime/parser.h"    /* parser.fast_gave_up */

typedef struct {
    pego_status status;
    char       *text;       /* printed tree, "ok", or the error */
    uint32_t    fast;
    size_t      recovered;  /* errors #recover recovered */
    int         gave_up;    /* the fast program gave the parse up at a recovery */
    pego_stats  stats;      /* the counts of a parse that matched or failed with a syntax error */
} outcome;

static outcome run(pego_parser *p, const char *in, size_t len, const pego_options *o)
{
    const pego_result *r;
    outcome out = { pego_parse(p, in, len, o, &r), NULL, 0, 0, p->fast_gave_up, { 0 } };
    if (out.status == PEGO_OK) {
        out.text = o->recognize ? strdup("ok") : pego_result_print(r, PEGO_PRINT_SEXPR);
        out.stats = *pego_result_stats(r);
        out.fast = out.stats.fast_program;
        out.recovered = pego_result_recovered_count(r);
    } else {
        out.text = strdup(pego_result_error(r) ? pego_result_error(r) : "");
        if (out.status == PEGO_SYNTAX_ERROR) out.stats = *pego_result_stats(r);
    }
    return out;
}

/* The counts of pego_stats but fast_program: the same whichever program ran. */
static int same_counts(const pego_stats *a, const pego_stats *b)
{
    return a->evals == b->evals && a->calls == b->calls && a->memo_hits == b->memo_hits &&
           a->memo_stored == b->memo_stored && a->rules_memoized == b->rules_memoized;
}

static void report_counts(const char *grammar, const char *in, size_t len, int recognize, const char *which,
                          const pego_stats *a, const pego_stats *b)
{
    fprintf(stderr, "the statistics of %s differ from the reference program's (%s)\ngrammar:\n%s\ninput (%zu bytes):",
            which, recognize ? "recognition" : "tree", grammar, len);
    for (size_t i = 0; i < len; i++) fprintf(stderr, " %02x", (unsigned char)in[i]);
    fprintf(stderr, "\n%s: evals %llu calls %llu memo hits %llu stored %llu rules %u\n"
            "reference: evals %llu calls %llu memo hits %llu stored %llu rules %u\n", which,
            (unsigned long long)a->evals, (unsigned long long)a->calls, (unsigned long long)a->memo_hits,
            (unsigned long long)a->memo_stored, a->rules_memoized, (unsigned long long)b->evals,
            (unsigned long long)b->calls, (unsigned long long)b->memo_hits, (unsigned long long)b->memo_stored,
            b->rules_memoized);
    abort();
}

static void report(const char *grammar, const char *in, size_t len, int recognize, const char *other,
                   const outcome *a, const outcome *b)
{
    fprintf(stderr, "the default parse and the parse with %s differ (%s)\ngrammar:\n%s\ninput (%zu bytes):",
            other, recognize ? "recognition" : "tree", grammar, len);
    for (size_t i = 0; i < len; i++) fprintf(stderr, " %02x", (unsigned char)in[i]);
    fprintf(stderr, "\ndefault: status %d, fast %u: %s\n%s: status %d: %s\n", a->status,
            (unsigned)a->fast, a->text ? a->text : "(no memory)", other, b->status, b->text ? b->text : "(no memory)");
    abort();
}

/* ---- streams: the same elements and outcome whatever the pieces ---- */

typedef struct { const char *in; size_t len, at, piece; } pieces;

static long read_pieces(char *buf, size_t cap, void *ctx)
{
    pieces *s = ctx;
    size_t n = s->len - s->at;
    if (n > cap) n = cap;
    if (n > s->piece) n = s->piece;
    memcpy(buf, s->in + s->at, n);
    s->at += n;
    return (long)n;
}

typedef struct { char *text; size_t len; } elements;

static int add_element(const pego_result *r, const pego_node *n, void *ctx)
{
    elements *e = ctx;
    char *t = pego_node_print(r, n, PEGO_PRINT_SEXPR);
    if (!t) return 1;
    size_t tl = strlen(t);
    char *grown = realloc(e->text, e->len + tl + 2);
    if (!grown) {
        free(t);
        return 1;
    }
    e->text = grown;
    memcpy(e->text + e->len, t, tl);
    e->text[e->len + tl] = '\n';
    e->len += tl + 1;
    e->text[e->len] = 0;
    free(t);
    return 0;
}

/* A stream parse read piece bytes at a time: its elements, then its outcome. */
static outcome run_stream(pego_parser *p, const char *in, size_t len, size_t piece, int reference)
{
    pieces src = { in, len, 0, piece };
    elements got = { NULL, 0 };
    pego_options o = { .max_depth = 64, .reference = reference };
    const pego_result *r;
    outcome out = { pego_parse_stream(p, read_pieces, &src, add_element, &got, &o, &r), NULL, 0, 0, 0, { 0 } };
    const char *end = out.status == PEGO_OK ? "ok" : pego_result_error(r) ? pego_result_error(r) : "";
    size_t n = out.status == PEGO_OK ? pego_result_recovered_count(r) : 0;
    if (n) end = pego_result_recovered_error(r, n - 1);
    out.text = malloc(got.len + strlen(end) + 1);
    if (out.text) {
        if (got.len) memcpy(out.text, got.text, got.len);
        strcpy(out.text + got.len, end);
    }
    free(got.text);
    return out;
}

/* ---- documents: every parse what a fresh parse returns ---- */

static void check_document(pego_parser *p, const pego_grammar *g, const char *grammar, const char *in, size_t len)
{
    pego_options o = { .max_depth = 64, .unit = PEGO_UNIT_BYTES };
    pego_document *d = pego_document_new(g, in, len, &o);
    if (!d) return;
    /* the input, then without its middle third, then with it again */
    size_t a = len / 3, b = 2 * len / 3;
    for (int step = 0; step < 3; step++) {
        if (step == 1 && pego_document_edit(d, a, b, "", 0) != PEGO_OK) break;
        if (step == 2 && pego_document_edit(d, a, a, in + a, b - a) != PEGO_OK) break;
        const pego_result *r;
        pego_status st = pego_document_parse(d, &r);
        outcome x = { st, st == PEGO_OK ? pego_result_print(r, PEGO_PRINT_SEXPR)
                                        : strdup(pego_result_error(r) ? pego_result_error(r) : ""), 0, 0, 0, { 0 } };
        size_t tl;
        const char *text = pego_document_text(d, &tl);
        outcome y = run(p, text, tl, &o);
        /* the nesting a memo hit saves may differ: parses stopped by the limit are not compared */
        if (x.status != PEGO_ABORTED && y.status != PEGO_ABORTED &&
            (x.status != y.status || !x.text || !y.text || strcmp(x.text, y.text) != 0))
            report(grammar, text, tl, 0, "a document", &y, &x);
        free(x.text);
        free(y.text);
    }
    pego_document_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    if (!nul || nul - data > 4096 || size - (size_t)(nul - data) - 1 > 1024) return 0;
    const char *grammar = (const char *)data;
    size_t glen = (size_t)(nul - data);
    const char *in = (const char *)nul + 1;
    size_t len = size - glen - 1;

    pego_diag *diag = NULL;
    pego_grammar *g = pego_compile(grammar, glen, "fuzz.pego", &diag);
    if (!g) {
        pego_diag_free(diag);
        return 0;
    }
    /* The disassembly shows the fast program's bodies when the grammar has one,
     * under header lines "rule NAME, fast:" (a rule name has no comma or space;
     * instruction lines begin with spaces and print literals escaped). */
    char *code = pego_grammar_disassemble(g);
    int fast_program = 0;
    for (const char *line = code; line && *line && !fast_program;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        fast_program = n > 12 && strncmp(line, "rule ", 5) == 0 && strncmp(line + n - 7, ", fast:", 7) == 0 &&
                       memchr(line + 5, ' ', n - 12) == NULL;
        line = end ? end + 1 : line + n;
    }
    free(code);
    pego_parser *p = pego_parser_new(g);
    for (int rec = 0; p && rec < 2; rec++) {
        /* a small limit keeps deep inputs quick and reaches the nesting reserve */
        pego_options o = { .recognize = rec, .max_depth = 64 }, ref = o;
        ref.reference = 1;
        outcome a = run(p, in, len, &o), b = run(p, in, len, &ref);
        /* a parse that recovers an error is the reference program's by design,
         * and so is one that the fast program gave up at a recovery it cannot
         * go on past (docs/architecture.md, No recovery) */
        int fell_back = a.status == PEGO_OK && fast_program && !a.fast && !a.recovered && !a.gave_up;
        if (fell_back) {
            /* near the limit the fast program leaves the parse to the reference
             * program by design (it keeps levels in reserve); far from it, never */
            pego_options far = o;
            far.max_depth = 1000000;
            outcome c = run(p, in, len, &far);
            fell_back = c.status != PEGO_OK || !c.fast;
            free(c.text);
        }
        if (a.status != b.status || !a.text || !b.text || strcmp(a.text, b.text) != 0 || fell_back)
            report(grammar, in, len, rec, "reference", &a, &b);
        /* The statistics are the reference program's counts, whichever program
         * ran: counted again after the parse (a) or counted by the profiled
         * program during it (pego_options.count_stats). */
        pego_options counted = o;
        counted.count_stats = 1;
        outcome s = run(p, in, len, &counted);
        if (b.status == PEGO_OK || b.status == PEGO_SYNTAX_ERROR) {
            if (a.status == b.status && !same_counts(&a.stats, &b.stats))
                report_counts(grammar, in, len, rec, "the default parse", &a.stats, &b.stats);
            if (s.status == b.status && !same_counts(&s.stats, &b.stats))
                report_counts(grammar, in, len, rec, "a parse with count_stats", &s.stats, &b.stats);
        }
        free(s.text);
        /* Memoizing every call changes no result (docs/language.md 2.1), also for
         * rules keyed by the values of variables (5.3); only the nesting it saves
         * may differ, so parses stopped by the limit are not compared. */
        pego_options all = o;
        all.memo = PEGO_MEMO_ALL;
        outcome m = run(p, in, len, &all);
        if (a.status != PEGO_ABORTED && m.status != PEGO_ABORTED &&
            (a.status != m.status || !m.text || strcmp(a.text, m.text) != 0))
            report(grammar, in, len, rec, "every call memoized", &a, &m);
        free(a.text);
        free(b.text);
        free(m.text);
    }
    /* a grammar whose start rule has #stream: read a byte at a time, seven at a
     * time and at once, with the fast program's elements and without */
    if (p) {
        outcome whole = run_stream(p, in, len, len ? len : 1, 0);
        if (whole.status != PEGO_EUSAGE) {
            static const size_t sizes[] = { 1, 7 };
            for (int k = 0; k < 3; k++) {
                outcome other = k < 2 ? run_stream(p, in, len, sizes[k], 0) : run_stream(p, in, len, 3, 1);
                if (whole.status != PEGO_ABORTED && other.status != PEGO_ABORTED &&
                    (whole.status != other.status || !whole.text || !other.text || strcmp(whole.text, other.text) != 0))
                    report(grammar, in, len, 0, k < 2 ? "a stream read in pieces" : "a stream on the reference program",
                           &whole, &other);
                free(other.text);
            }
        }
        free(whole.text);
        check_document(p, g, grammar, in, len);
    }
    pego_parser_free(p);
    pego_grammar_free(g);
    return 0;
}
