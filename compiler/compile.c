/* The compiler's public entry points: source text or file to a pego_grammar, with
 * every grammar error collected into a pego_diag. */
#include "program.h"
#include "pego.h"
#include "../reports/report.h"
#include "../runtime/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pego_diag {
    cc_errors errs;
    char     *text;
};

size_t pego_diag_count(const pego_diag *d) { return d ? (size_t)d->errs.n : 0; }
int pego_diag_line(const pego_diag *d, size_t i) { return d->errs.items[i].line; }
int pego_diag_column(const pego_diag *d, size_t i) { return d->errs.items[i].col; }
const char *pego_diag_message(const pego_diag *d, size_t i) { return d->errs.items[i].msg; }
const char *pego_diag_text(const pego_diag *d) { return d ? d->text : ""; }

void pego_diag_free(pego_diag *d)
{
    if (!d) return;
    cc_errors_free(&d->errs);
    rt_free(d->text);
    rt_free(d);
}

/* Hands the errors to the caller as a diagnostic, with its text rendered. */
static void give_diag(cc_errors *errs, const char *name, pego_diag **out)
{
    if (!out) { cc_errors_free(errs); return; }
    pego_diag *d = rt_calloc(1, sizeof *d);
    if (!d) { cc_errors_free(errs); *out = NULL; return; }
    d->errs = *errs;
    rt_buf b;
    rt_buf_init(&b);
    for (int i = 0; i < errs->n; i++) {
        if (i) rt_buf_addc(&b, '\n');
        if (errs->items[i].line > 0)
            rt_buf_printf(&b, "%s:%d:%d: %s", name, errs->items[i].line, errs->items[i].col, errs->items[i].msg);
        else
            rt_buf_adds(&b, errs->items[i].msg);
    }
    d->text = rt_buf_take(&b);
    *out = d;
}

/* Reads and checks a grammar, turning an out-of-memory unwind into an error. */
static ast_grammar *read_and_check(const char *src, size_t len, cc_errors *errs, int *checked)
{
    jmp_buf target;
    ast_grammar *volatile ast = NULL;
    if (setjmp(target)) {
        cc_oom_jump = NULL;
        cc_errors_free(errs);   /* the partial AST is abandoned */
        return NULL;
    }
    cc_oom_jump = &target;
    ast = cc_parse(src, len, errs);
    *checked = 0;
    if (ast && !errs->n) *checked = cc_check(ast, errs) == 0 && !errs->n;
    cc_oom_jump = NULL;
    return ast;
}

pego_grammar *pego_compile(const char *src, size_t len, const char *name, pego_diag **diag)
{
    cc_errors errs = { 0 };
    int checked = 0;
    if (!name) name = "<grammar>";
    if (diag) *diag = NULL;
    ast_grammar *ast = read_and_check(src, len, &errs, &checked);
    if (!ast || errs.n) {
        if (ast) ast_grammar_free(ast);
        if (!errs.n) cc_errors_add(&errs, 0, 0, "out of memory");
        give_diag(&errs, name, diag);
        return NULL;
    }
    if (!checked) {
        ast_grammar_free(ast);
        give_diag(&errs, name, diag);
        return NULL;
    }
    pego_grammar *g = rt_calloc(1, sizeof *g);
    if (!g) { ast_grammar_free(ast); return NULL; }
    g->name = rt_strdup(name);
    g->source_hash = rep_hash(src, len);
    g->nrules = ast->nrules;
    g->rules = rt_calloc((size_t)ast->nrules + 1, sizeof(cc_rule));
    for (int r = 0; r < ast->nrules; r++) {
        g->rules[r].name = rt_strdup(ast->rules[r].name);
        g->rules[r].line = ast->rules[r].line;
        g->rules[r].col = ast->rules[r].col;
    }
    if (cc_analyze(g, ast, &errs) < 0 || errs.n || cc_emit(g, ast) < 0) {
        ast_grammar_free(ast);
        pego_grammar_free(g);
        if (!errs.n) cc_errors_add(&errs, 0, 0, "out of memory");
        give_diag(&errs, name, diag);
        return NULL;
    }
    ast_grammar_free(ast);
    return g;
}

pego_grammar *pego_compile_file(const char *path, pego_diag **diag)
{
    if (diag) *diag = NULL;
    FILE *f = fopen(path, "rb");
    rt_buf b;
    rt_buf_init(&b);
    int err = 0;
    if (f) {
        char chunk[65536];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) rt_buf_add(&b, chunk, n);
        if (ferror(f)) err = errno ? errno : EIO;
        fclose(f);
        if (b.oom) err = ENOMEM;
    } else {
        err = errno;
    }
    if (err) {
        cc_errors errs = { 0 };
        cc_errors_add(&errs, 0, 0, "%s: %s", path, strerror(err));
        give_diag(&errs, path, diag);
        rt_buf_free(&b);
        return NULL;
    }
    pego_grammar *g = pego_compile(b.data ? b.data : "", b.len, path, diag);
    rt_buf_free(&b);
    if (g) g->file = rt_strdup(path);
    return g;
}

void pego_grammar_free(pego_grammar *g)
{
    if (!g) return;
    for (int r = 0; r < g->nrules; r++) rt_free(g->rules[r].name);
    rt_free(g->rules);
    for (int i = 0; i < g->nliterals; i++) rt_free(g->literals[i].bytes);
    rt_free(g->literals);
    for (int i = 0; i < g->nclasses; i++) rt_free(g->classes[i].ranges);
    rt_free(g->classes);
    for (int i = 0; i < g->nexpects; i++) rt_free(g->expects[i]);
    rt_free(g->expects);
    rt_free(g->expect_rank);
    rt_free(g->expect_message);
    for (int i = 0; i < g->npratts; i++) {
        rt_free(g->pratts[i].operands);
        rt_free(g->pratts[i].vf_operands);
        rt_free(g->pratts[i].prefix);
        rt_free(g->pratts[i].tail);
    }
    rt_free(g->pratts);
    for (int i = 0; i < g->nlabels; i++) rt_free(g->labels[i]);
    rt_free(g->labels);
    rt_free(g->code);
    rt_free(g->bytesets);
    rt_free(g->dispatch);
    rt_free(g->src);
    rt_free(g->name);
    rt_free(g->file);
    rt_free(g);
}

size_t pego_grammar_rule_count(const pego_grammar *g) { return (size_t)g->nrules; }
const char *pego_grammar_rule_name(const pego_grammar *g, size_t i) { return g->rules[i].name; }
const char *pego_grammar_name(const pego_grammar *g) { return g->name; }

int pego_grammar_rule_index(const pego_grammar *g, const char *name)
{
    for (int r = 0; r < g->nrules; r++)
        if (strcmp(g->rules[r].name, name) == 0) return r;
    return -1;
}

char *pego_grammar_disassemble(const pego_grammar *g)
{
    rt_buf b;
    rt_buf_init(&b);
    cc_disassemble(g, &b);
    if (b.oom) { rt_buf_free(&b); return NULL; }
    return rt_buf_take(&b);
}
