/* Ownership of the grammar AST and of error lists: adding, capping and freeing
 * errors, freeing every AST node, and the allocation helpers of the compiler. */
#include "ast.h"
#include "../runtime/alloc.h"

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
    void *p = rt_malloc(n);
    if (!p) cc_oom();
    return p;
}

void *cc_xcalloc(size_t n, size_t size)
{
    void *p = rt_calloc(n, size);
    if (!p) cc_oom();
    return p;
}

void *cc_xrealloc(void *p, size_t n)
{
    void *q = rt_realloc(p, n);
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
    for (int i = last; i < e->n; i++) rt_free(e->items[i].msg);
    e->items[last].msg = cc_xstrndup("too many errors", 15);
    e->n = last + 1;
    e->truncated = 1;
}

void cc_errors_free(cc_errors *e)
{
    for (int i = 0; i < e->n; i++) rt_free(e->items[i].msg);
    rt_free(e->items);
    memset(e, 0, sizeof *e);
}

void ast_term_free(ast_term *t)
{
    if (!t) return;
    for (int i = 0; i < t->nkids; i++) ast_term_free(t->kids[i]);
    for (int i = 0; i < t->nnames; i++) rt_free(t->names[i]);
    rt_free(t->kids);
    rt_free(t->names);
    rt_free(t->sval);
    rt_free(t);
}

void ast_type_free(ast_type *t)
{
    if (!t) return;
    for (int i = 0; i < t->nkids; i++) ast_type_free(t->kids[i]);
    rt_free(t->kids);
    rt_free(t->name);
    rt_free(t);
}

static void pratt_free(ast_pratt *p)
{
    if (!p) return;
    ast_expr_free(p->skip);
    for (int i = 0; i < p->noperands; i++) {
        ast_expr_free(p->operands[i].expr);
        ast_term_free(p->operands[i].action);
    }
    rt_free(p->operands);
    for (int i = 0; i < p->nlevels; i++) {
        ast_pratt_level *l = &p->levels[i];
        for (int j = 0; j < l->nops; j++) {
            ast_expr_free(l->ops[j].expr);
            ast_term_free(l->ops[j].action);
        }
        rt_free(l->ops);
        rt_free(l->name);
    }
    rt_free(p->levels);
    rt_free(p);
}

void ast_expr_free(ast_expr *e)
{
    if (!e) return;
    for (int i = 0; i < e->nkids; i++) ast_expr_free(e->kids[i]);
    rt_free(e->kids);
    for (int i = 0; i < e->nargs; i++) {
        rt_free(e->args[i].name);
        ast_expr_free(e->args[i].value);
    }
    rt_free(e->args);
    rt_free(e->text);
    rt_free(e->ranges);
    rt_free(e->name);
    rt_free(e->level);
    ast_term_free(e->term);
    pratt_free(e->pratt);
    rt_free(e);
}

void ast_grammar_free(ast_grammar *g)
{
    if (!g) return;
    for (int i = 0; i < g->nrules; i++) {
        ast_rule *r = &g->rules[i];
        rt_free(r->name);
        ast_type_free(r->type);
        ast_expr_free(r->body);
        ast_term_free(r->action);
    }
    rt_free(g->rules);
    for (int i = 0; i < g->ntypes; i++) {
        ast_typedef *t = &g->types[i];
        rt_free(t->name);
        for (int j = 0; j < t->nfields; j++) {
            rt_free(t->field_names[j]);
            ast_type_free(t->field_types[j]);
        }
        rt_free(t->field_names);
        rt_free(t->field_types);
        rt_free(t->field_lines);
        rt_free(t->field_cols);
        ast_type_free(t->alias);
    }
    rt_free(g->types);
    rt_free(g->package);
    rt_free(g);
}
