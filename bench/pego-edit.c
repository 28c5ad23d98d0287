/* pego-edit: what an incremental document saves (docs/language.md 7.2). Parses
 * FILE with GRAMMAR as a document, then makes one-character edits in the
 * middle of it, each followed by a parse of the document: a digit replaced by
 * another digit where there is one near the middle, else a space inserted and
 * then taken out again. Every parse of the document is checked against a
 * fresh parse of the same text (status and node count). Prints one line:
 *
 *   fresh_evals=N doc_first_evals=N edit_evals=N edit_reused=N ratio=R fresh_ms=T edit_ms=T
 *
 * fresh_evals are the rule bodies a fresh pego_parse evaluates (its
 * statistics), doc_first_evals those of the document's first parse (which
 * memoizes every call), edit_evals the most any parse after an edit
 * evaluated, ratio = fresh_evals / edit_evals; fresh_ms is the time of the
 * fresh parse, edit_ms the slowest edit with the parse after it. Exit status 0, or 1 when a
 * parse of the document differs from the fresh parse, 2 on a usage or I/O
 * error.
 *
 *   usage: pego-edit [--edits N] GRAMMAR FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pego.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 20, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

/* A fresh parse of the document's text: its status and node count, and its evaluations. */
static pego_status fresh(const pego_grammar *g, pego_document *d, size_t *nodes, uint64_t *evals, double *ms)
{
    size_t len;
    const char *text = pego_document_text(d, &len);
    pego_parser *p = pego_parser_new(g);
    const pego_result *r;
    pego_options o = { .count_stats = 1 };
    double t0 = now_ms();
    pego_status st = pego_parse(p, text, len, &o, &r);
    if (ms) *ms = now_ms() - t0;
    *nodes = pego_result_node_count(r);
    if (evals) *evals = pego_result_stats(r)->evals;
    pego_parser_free(p);
    return st;
}

int main(int argc, char **argv)
{
    long edits = 20;
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "--edits") == 0) {
        edits = atol(argv[i + 1]);
        i += 2;
    }
    if (argc - i != 2 || edits < 1) {
        fprintf(stderr, "usage: pego-edit [--edits N] GRAMMAR FILE\n");
        return 2;
    }
    pego_diag *diag = NULL;
    pego_grammar *g = pego_compile_file(argv[i], &diag);
    if (!g) {
        fprintf(stderr, "pego-edit: %s\n", pego_diag_text(diag));
        return 2;
    }
    size_t len;
    char *text = read_file(argv[i + 1], &len);
    if (!text) {
        perror(argv[i + 1]);
        return 2;
    }
    pego_options bytes = { .unit = PEGO_UNIT_BYTES };
    pego_document *d = pego_document_new(g, text, len, &bytes);
    if (!d) {
        fprintf(stderr, "pego-edit: out of memory\n");
        return 2;
    }
    size_t want_nodes, got_nodes;
    uint64_t fresh_evals;
    double fresh_ms;
    pego_status want = fresh(g, d, &want_nodes, &fresh_evals, &fresh_ms);
    const pego_result *r;
    pego_status st = pego_document_parse(d, &r);
    pego_document_stats s;
    pego_document_get_stats(d, &s);
    uint64_t first_evals = s.evaluated, edit_evals = 0, edit_reused = 0;
    int bad = st != want || pego_result_node_count(r) != want_nodes;
    /* the digit nearest the middle, or the middle */
    size_t at = len / 2;
    while (at < len && (text[at] < '0' || text[at] > '9')) at++;
    int digit = at < len;
    if (!digit) at = len / 2;
    double edit_ms = 0;
    for (long k = 0; k < edits && !bad; k++) {
        char c[1];
        double t0 = now_ms();
        if (digit) {
            c[0] = (char)('0' + (text[at] - '0' + 1 + k) % 10);
            if (c[0] == '0' && at > 0 && (text[at - 1] < '0' || text[at - 1] > '9')) c[0] = '1';  /* no leading 0 */
            pego_document_edit(d, at, at + 1, c, 1);
        } else if (k % 2 == 0) {
            pego_document_edit(d, at, at, " ", 1);
        } else {
            pego_document_edit(d, at, at + 1, "", 0);
        }
        st = pego_document_parse(d, &r);
        double ms = now_ms() - t0;
        if (ms > edit_ms) edit_ms = ms;
        pego_document_get_stats(d, &s);
        if (s.evaluated > edit_evals) edit_evals = s.evaluated;
        if (s.reused > edit_reused) edit_reused = s.reused;
        size_t nodes = pego_result_node_count(r);
        pego_status w = fresh(g, d, &got_nodes, NULL, NULL);
        if (st != w || nodes != got_nodes) bad = 1;
    }
    if (bad) {
        fprintf(stderr, "pego-edit: a parse of the document differs from a fresh parse\n");
        return 1;
    }
    printf("fresh_evals=%llu doc_first_evals=%llu edit_evals=%llu edit_reused=%llu ratio=%.1f fresh_ms=%.1f edit_ms=%.1f\n",
           (unsigned long long)fresh_evals, (unsigned long long)first_evals, (unsigned long long)edit_evals,
           (unsigned long long)edit_reused, edit_evals ? (double)fresh_evals / (double)edit_evals : 0.0, fresh_ms,
           edit_ms);
    pego_document_free(d);
    pego_grammar_free(g);
    free(text);
    return 0;
}
