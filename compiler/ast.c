/* Ownership of the grammar AST and of error lists: adding, capping and freeing
 * errors, freeing every AST node, and the allocation helpers of the compiler. */
#include "ast.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Thread_local jmp_buf *cc_oom_jump;

/* Out of memory while reading or checking a grammar: unwinds to the compiler's
 * entry point (pego_compile), which reports it; the library never exits. */
static void cc_oom(void)
{
    if (cc_oom_jump) longjmp(*cc_oom_jump, 1);
    abort();   /* unreachable: every entry point sets cc_oom_jump */
}

void *cc_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) cc_oom();
    return p;
}

void *cc_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) cc_oom();
    return p;
}

void *cc_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) cc_oom();
    return q;
}

char *cc_xstrndup(const char *s, size_t n)
{
    char *p = cc_xmalloc(n + 1);
    if (n) memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void cc_errors_addv(cc_errors *e, int line, int col, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0) n = 0;
    char *msg = cc_xmalloc((size_t)n + 1);
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 16;
        e->items = cc_xrealloc(e->items, (size_t)e->cap * sizeof *e->items);
    }
    e->items[e->n++] = (cc_error){ line, col, msg };
}

void cc_errors_add(cc_errors *e, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cc_errors_addv(e, line, col, fmt, ap);
    va_end(ap);
}

void cc_errors_cap(cc_errors *e, int base)
{
    if (e->n - base <= CC_MAX_ERRORS) return;
    int last = base + CC_MAX_ERRORS - 1;
    for (int i = last; i < e->n; i++) free(e->items[i].msg);
    e->items[last].msg = cc_xstrndup("too many errors", 15);
    e->n = last + 1;
    e->truncated = 1;
}

void cc_errors_free(cc_errors *e)
{
    for (int i = 0; i < e->n; i++) free(e->items[i].msg);
    free(e->items);
    memset(e, 0, sizeof *e);
}

void ast_term_free(ast_term *t)
{
    if (!t) return;
    for (int i = 0; i < t->nkids; i++) ast_term_free(t->kids[i]);
    for (int i = 0; i < t->nnames; i++) free(t->names[i]);
    free(t->kids);
    free(t->names);
    free(t->sval);
    free(t);
}

void ast_type_free(ast_type *t)
{
    if (!t) return;
    for (int i = 0; i < t->nkids; i++) ast_type_free(t->kids[i]);
    free(t->kids);
    free(t->name);
    free(t);
}

static void pratt_free(ast_pratt *p)
{
    if (!p) return;
    ast_expr_free(p->skip);
    for (int i = 0; i < p->noperands; i++) {
        ast_expr_free(p->operands[i].expr);
        ast_term_free(p->operands[i].action);
    }
    free(p->operands);
    for (int i = 0; i < p->nlevels; i++) {
        ast_pratt_level *l = &p->levels[i];
        for (int j = 0; j < l->nops; j++) {
            ast_expr_free(l->ops[j].expr);
            ast_term_free(l->ops[j].action);
        }
        free(l->ops);
        free(l->name);
    }
    free(p->levels);
    free(p);
}

void ast_expr_free(ast_expr *e)
{
    if (!e) return;
    for (int i = 0; i < e->nkids; i++) ast_expr_free(e->kids[i]);
    free(e->kids);
    for (int i = 0; i < e->nargs; i++) {
        free(e->args[i].name);
        ast_expr_free(e->args[i].value);
    }
    free(e->args);
    free(e->text);
    free(e->ranges);
    free(e->name);
    free(e->level);
    ast_term_free(e->term);
    pratt_free(e->pratt);
    free(e);
}

void ast_grammar_free(ast_grammar *g)
{
    if (!g) return;
    for (int i = 0; i < g->nrules; i++) {
        ast_rule *r = &g->rules[i];
        free(r->name);
        ast_type_free(r->type);
        ast_expr_free(r->body);
        ast_term_free(r->action);
    }
    free(g->rules);
    for (int i = 0; i < g->ntypes; i++) {
        ast_typedef *t = &g->types[i];
        free(t->name);
        for (int j = 0; j < t->nfields; j++) {
            free(t->field_names[j]);
            ast_type_free(t->field_types[j]);
        }
        free(t->field_names);
        free(t->field_types);
        free(t->field_lines);
        free(t->field_cols);
        ast_type_free(t->alias);
    }
    free(g->types);
    free(g->package);
    free(g);
}
