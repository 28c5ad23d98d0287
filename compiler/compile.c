/* The compiler's public entry points: source text or file to a pego_grammar, with
 * every grammar error collected into a pego_diag. */
#include "program.h"
#include "pego.h"
#include "../runtime/report.h"
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

/* The diagnostic of a compile that ran out of memory even for its diagnostic. */
static cc_error oom_error = { 0, 0, (char *)"out of memory" };
static pego_diag oom_diag = { { &oom_error, 1, 1, 0, 0 }, (char *)"out of memory" };

void pego_diag_free(pego_diag *d)
{
    if (!d || d == &oom_diag) return;
    cc_errors_free(&d->errs);
    rt_free(d->text);
    rt_free(d);
}

/* Hands the errors to the caller as a diagnostic, with its text rendered.
 * When memory ran out (errs->oom), the errors found are incomplete: the
 * diagnostic is the one error "out of memory", a static one if memory runs out
 * for the diagnostic too. */
static void give_diag(cc_errors *errs, const char *name, pego_diag **out)
{
    if (errs->oom) {
        cc_errors_free(errs);
        cc_errors_add(errs, 0, 0, "out of memory");
    }
    if (!out) { cc_errors_free(errs); return; }
    pego_diag *d = errs->oom ? NULL : rt_calloc(1, sizeof *d);
    rt_buf b;
    rt_buf_init(&b);
    for (int i = 0; d && i < errs->n; i++) {
        if (i) rt_buf_addc(&b, '\n');
        if (errs->items[i].line > 0)
            rt_buf_printf(&b, "%s:%d:%d: %s", name, errs->items[i].line, errs->items[i].col, errs->items[i].msg);
        else
            rt_buf_adds(&b, errs->items[i].msg);
    }
    if (d && !b.oom) d->text = rt_buf_take(&b);
    if (!d || !d->text) {
        rt_buf_free(&b);
        rt_free(d);
        cc_errors_free(errs);
        *out = &oom_diag;
        return;
    }
    d->errs = *errs;
    *out = d;
}

/* The rule table of g, from the AST. Returns 0, or -1 when out of memory. */
static int rule_table(pego_grammar *g, const ast_grammar *ast)
{
    g->rules = rt_calloc((size_t)ast->nrules + 1, sizeof(cc_rule));
    if (!g->rules) return -1;
    g->nrules = ast->nrules;
    for (int r = 0; r < ast->nrules; r++) {
        g->rules[r].name = rt_strdup(ast->rules[r].name);
        if (!g->rules[r].name) return -1;
        g->rules[r].line = ast->rules[r].line;
        g->rules[r].col = ast->rules[r].col;
    }
    return 0;
}

/* Compiles a grammar into g: reads, checks, analyzes and emits it. Returns 0,
 * or -1 with the grammar's errors in errs, or with errs->oom set when memory
 * ran out: the unwind then frees every block of the front end, the partial AST
 * included, and what g holds is left for pego_grammar_free. */
static int compile(pego_grammar *g, const char *src, size_t len, cc_errors *errs)
{
    jmp_buf target;
    ast_grammar *volatile ast = NULL;
    if (setjmp(target)) {
        cc_oom_jump = NULL;
        cc_free_all();
        errs->oom = 1;
        return -1;
    }
    cc_oom_jump = &target;
    ast = cc_parse(src, len, errs);
    if (ast && !errs->n && !errs->oom && cc_check(ast, errs) == 0 && !errs->oom) {
        if (rule_table(g, ast) < 0) errs->oom = 1;
        else cc_analyze(g, ast, errs);
        if (!errs->n && !errs->oom) cc_emit(g, ast);
    }
    cc_oom_jump = NULL;
    ast_grammar_free(ast);
    return errs->n || errs->oom ? -1 : 0;
}

pego_grammar *pego_compile(const char *src, size_t len, const char *name, pego_diag **diag)
{
    cc_errors errs = { 0 };
    if (!name) name = "<grammar>";
    if (diag) *diag = NULL;
    pego_grammar *g = rt_calloc(1, sizeof *g);
    if (g) g->name = rt_strdup(name);
    if (!g || !g->name || compile(g, src, len, &errs) < 0) {
        if (!errs.n) errs.oom = 1;
        pego_grammar_free(g);
        give_diag(&errs, name, diag);
        return NULL;
    }
    g->source_hash = rep_hash(src, len);
    if (len <= REP_SOURCE_MAX) {
        if (!(g->source = rt_malloc(len + 1))) {
            pego_grammar_free(g);
            errs.oom = 1;
            give_diag(&errs, name, diag);
            return NULL;
        }
        memcpy(g->source, src, len);
        g->source[len] = 0;
        g->source_len = len;
    }
    return g;
}

pego_grammar *pego_compile_file(const char *path, pego_diag **diag)
{
    if (diag) *diag = NULL;
    FILE *f = fopen(path, "rb");
    rt_buf b;
    rt_buf_init(&b);
    int err = 0;
    cc_errors errs = { 0 };
    if (f) {
        char chunk[65536];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) rt_buf_add(&b, chunk, n);
        if (ferror(f)) err = errno ? errno : EIO;
        fclose(f);
        errs.oom = b.oom;
    } else {
        err = errno;
    }
    if (err || errs.oom) {
        if (err) cc_errors_add(&errs, 0, 0, "%s: %s", path, strerror(err));
        give_diag(&errs, path, diag);
        rt_buf_free(&b);
        return NULL;
    }
    pego_grammar *g = pego_compile(b.data ? b.data : "", b.len, path, diag);
    rt_buf_free(&b);
    if (g && !(g->file = rt_strdup(path))) {
        pego_grammar_free(g);
        errs.oom = 1;
        give_diag(&errs, path, diag);
        return NULL;
    }
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
    for (int i = 0; i < 3 * g->npratts; i++) {
        rt_free(g->pratts[i].operands);
        rt_free(g->pratts[i].vf_operands);
        rt_free(g->pratts[i].operand_actions);
        rt_free(g->pratts[i].operand_may);
        rt_free(g->pratts[i].operand_span);
        rt_free(g->pratts[i].operand_chain);
        rt_free(g->pratts[i].operand_chain_span);
        rt_free(g->pratts[i].prefix_may);
        rt_free(g->pratts[i].tail_may);
        rt_free(g->pratts[i].prefix);
        rt_free(g->pratts[i].tail);
    }
    rt_free(g->pratts);
    for (int i = 0; i < g->nlabels; i++) rt_free(g->labels[i]);
    rt_free(g->labels);
    for (int i = 0; i < g->ntypes; i++) {
        rt_free(g->types[i].name);
        rt_free(g->types[i].fields);
    }
    rt_free(g->types);
    rt_free(g->actions);
    rt_free(g->acode);
    rt_free(g->atext);
    rt_free(g->alabels);
    for (int i = 0; i < g->nvars; i++) rt_free(g->vars[i]);
    rt_free(g->vars);
    rt_free(g->rule_reads);
    rt_free(g->code);
    rt_free(g->bytesets);
    rt_free(g->dispatch);
    rt_free(g->sites);
    rt_free(g->site_calls);
    rt_free(g->chains);
    rt_free(g->call_fail_site);
    rt_free(g->rep_links);
    rt_free(g->overshoot);
    rt_free(g->chain_rules);
    rt_free(g->inline_at);
    rt_free(g->inline_ctx);
    rt_free(g->src);
    rt_free(g->source);
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
