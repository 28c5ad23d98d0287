/* Ownership of the grammar AST and of error lists: the allocation helpers of
 * the compiler's front end and its out-of-memory unwind, adding, capping and
 * freeing errors, and freeing every AST node. */
#include "ast.h"
#include "../runtime/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Thread_local jmp_buf *cc_oom_jump;

void cc_oom(void)
{
    if (cc_oom_jump) longjmp(*cc_oom_jump, 1);
    abort();   /* unreachable: every entry point sets cc_oom_jump */
}

/* ---- the blocks of the front end ----
 * A block of cc_xmalloc and friends starts with a header that links it into
 * this thread's list of the blocks of the compile in progress, so that an
 * unwind can free them all: the partial AST, the tokens, the checker's tables,
 * whatever the parser's locals held. */
typedef union cc_block {
    struct { union cc_block *prev, *next; } link;
    max_align_t align;
} cc_block;

static _Thread_local cc_block *live;

static void *link_block(cc_block *b)
{
    b->link.prev = NULL;
    b->link.next = live;
    if (live) live->link.prev = b;
    live = b;
    return b + 1;
}

/* Points b's neighbours at b, after a realloc moved it. */
static void relink_block(cc_block *b)
{
    if (b->link.prev) b->link.prev->link.next = b;
    else live = b;
    if (b->link.next) b->link.next->link.prev = b;
}

void *cc_xmalloc(size_t n)
{
    cc_block *b = n <= SIZE_MAX - sizeof *b ? rt_malloc(sizeof *b + n) : NULL;
    if (!b) cc_oom();
    return link_block(b);
}

void *cc_xcalloc(size_t n, size_t size)
{
    if (size && n > (SIZE_MAX - sizeof(cc_block)) / size) cc_oom();
    void *p = cc_xmalloc(n * size);
    memset(p, 0, n * size);
    return p;
}

void *cc_xrealloc(void *p, size_t n)
{
    if (!p) return cc_xmalloc(n);
    cc_block *b = (cc_block *)p - 1;
    cc_block *q = n <= SIZE_MAX - sizeof *b ? rt_realloc(b, sizeof *b + n) : NULL;
    if (!q) cc_oom();
    relink_block(q);
    return q + 1;
}

char *cc_xstrndup(const char *s, size_t n)
{
    char *p = cc_xmalloc(n + 1);
    if (n) memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *cc_xtake(rt_buf *b)
{
    cc_block *k = b->oom ? NULL : rt_malloc(sizeof *k + b->len + 1);
    if (k) memcpy(k + 1, b->data ? b->data : "", b->len + 1);
    rt_buf_free(b);
    if (!k) cc_oom();
    return link_block(k);
}

void cc_free(void *p)
{
    if (!p) return;
    cc_block *b = (cc_block *)p - 1;
    if (b->link.prev) b->link.prev->link.next = b->link.next;
    else live = b->link.next;
    if (b->link.next) b->link.next->link.prev = b->link.prev;
    rt_free(b);
}

void cc_free_all(void)
{
    while (live) {
        cc_block *b = live;
        live = b->link.next;
        rt_free(b);
    }
}

/* ---- errors: they outlive the compile (pego_diag), so they are ordinary
 * blocks, and running out of memory for one sets oom instead of unwinding ---- */

void cc_errors_addv(cc_errors *e, int line, int col, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0) n = 0;
    char *msg = rt_malloc((size_t)n + 1);
    if (msg && e->n == e->cap) {
        int cap = e->cap ? e->cap * 2 : 16;
        cc_error *items = rt_realloc(e->items, (size_t)cap * sizeof *items);
        if (items) {
            e->items = items;
            e->cap = cap;
        }
    }
    if (!msg || e->n == e->cap) {
        rt_free(msg);
        e->oom = 1;
        return;
    }
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
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
    cc_error at = e->items[last];
    for (int i = last; i < e->n; i++) rt_free(e->items[i].msg);
    e->n = last;
    e->truncated = 1;
    char *msg = rt_strdup("too many errors");
    if (!msg) e->oom = 1;
    else e->items[e->n++] = (cc_error){ at.line, at.col, msg };
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
    for (int i = 0; i < t->nnames; i++) cc_free(t->names[i]);
    cc_free(t->kids);
    cc_free(t->names);
    cc_free(t->name_lines);
    cc_free(t->name_cols);
    cc_free(t->sval);
    cc_free(t);
}

void ast_type_free(ast_type *t)
{
    if (!t) return;
    for (int i = 0; i < t->nkids; i++) ast_type_free(t->kids[i]);
    cc_free(t->kids);
    cc_free(t->name);
    cc_free(t);
}

static void pratt_free(ast_pratt *p)
{
    if (!p) return;
    ast_expr_free(p->skip);
    for (int i = 0; i < p->noperands; i++) {
        ast_expr_free(p->operands[i].expr);
        ast_term_free(p->operands[i].action);
    }
    cc_free(p->operands);
    for (int i = 0; i < p->nlevels; i++) {
        ast_pratt_level *l = &p->levels[i];
        for (int j = 0; j < l->nops; j++) {
            ast_expr_free(l->ops[j].expr);
            ast_term_free(l->ops[j].action);
        }
        cc_free(l->ops);
        cc_free(l->name);
    }
    cc_free(p->levels);
    cc_free(p);
}

void ast_expr_free(ast_expr *e)
{
    if (!e) return;
    for (int i = 0; i < e->nkids; i++) ast_expr_free(e->kids[i]);
    cc_free(e->kids);
    for (int i = 0; i < e->nargs; i++) {
        cc_free(e->args[i].name);
        ast_expr_free(e->args[i].value);
    }
    cc_free(e->args);
    cc_free(e->text);
    cc_free(e->ranges);
    cc_free(e->name);
    cc_free(e->level);
    ast_term_free(e->term);
    pratt_free(e->pratt);
    cc_free(e);
}

void ast_grammar_free(ast_grammar *g)
{
    if (!g) return;
    for (int i = 0; i < g->nrules; i++) {
        ast_rule *r = &g->rules[i];
        cc_free(r->name);
        ast_type_free(r->type);
        ast_expr_free(r->body);
        ast_term_free(r->action);
    }
    cc_free(g->rules);
    for (int i = 0; i < g->ntypes; i++) {
        ast_typedef *t = &g->types[i];
        cc_free(t->name);
        for (int j = 0; j < t->nfields; j++) {
            cc_free(t->field_names[j]);
            ast_type_free(t->field_types[j]);
        }
        cc_free(t->field_names);
        cc_free(t->field_types);
        cc_free(t->field_lines);
        cc_free(t->field_cols);
        ast_type_free(t->alias);
    }
    cc_free(g->types);
    cc_free(g->package);
    cc_free(g);
}
