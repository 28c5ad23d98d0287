/* The expectation record and syntax errors (docs/language.md 1.12): adding an item to
 * the open window, and turning the final record into the error text, with items
 * sorted byte-wise and rendered as the grammar's expectation table prints them. */
#include "parser.h"
#include "alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_expect_add_slow(rt_expect *x, uint32_t pos, uint32_t id)
{
    (void)pos;
    if (x->n == x->cap) {
        uint32_t cap = x->cap ? x->cap * 2 : 64;
        uint32_t *items = rt_realloc(x->items, cap * sizeof *items);
        if (!items) {
            x->oom = 1;
            return;
        }
        x->items = items;
        x->cap = cap;
    }
    x->items[x->n++] = id;
}

/* Sorts expectation ids by the byte-wise order of their printed text (an
 * insertion sort: sets are small, and no global state keeps it thread-safe). */
static void sort_by_rank(const pego_grammar *g, uint32_t *ids, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t id = ids[i], j = i;
        for (; j > 0 && g->expect_rank[ids[j - 1]] > g->expect_rank[id]; j--) ids[j] = ids[j - 1];
        ids[j] = id;
    }
}

/* Appends "line:col: message" for a failure at far (docs/language.md 1.12): the
 * #error messages recorded there, in the order recorded, joined with "; "; or
 * else the items sorted byte-wise; or else "syntax error". Sorts ids in place. */
void rt_expect_format_failure(pego_parser *p, rt_buf *b, uint32_t far, uint32_t *ids, uint32_t n)
{
    const pego_grammar *g = p->g;
    int line, col;
    rt_input_line_col(&p->in, far, &line, &col);
    rt_buf_printf(b, "%d:%d: ", line, col);
    uint32_t nmsg = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!g->expect_message[ids[i]]) continue;
        if (nmsg++) rt_buf_adds(b, "; ");
        rt_buf_adds(b, g->expects[ids[i]]);
    }
    if (nmsg) return;
    sort_by_rank(g, ids, n);
    rt_buf_adds(b, n ? "syntax error: expected " : "syntax error");
    for (uint32_t i = 0; i < n; i++) {
        if (i) rt_buf_adds(b, ", ");
        rt_buf_adds(b, g->expects[ids[i]]);
    }
}

/* Builds the syntax error of a failed parse from the outer expectation record;
 * PEGO_ENOMEM when there is no memory for it. */
int rt_expect_syntax_error(pego_parser *p)
{
    pego_result *r = &p->res;
    rt_expect *x = &p->exp;
    const pego_grammar *g = p->g;
    uint32_t n = x->n - x->base;
    uint32_t *ids = RT_AT(x->items, x->base);
    rt_buf b;
    rt_buf_init(&b);
    rt_expect_format_failure(p, &b, x->far, ids, n);
    char *text = b.oom ? NULL : rt_buf_take(&b);
    r->expected = rt_calloc(n ? n : 1, sizeof(char *));
    if (!text || !r->expected) {
        rt_buf_free(&b);
        rt_free(text);
        rt_free(r->expected);
        r->expected = NULL;
        r->status = PEGO_ENOMEM;
        return rt_parse_abort(p, "out of memory");
    }
    rt_input_line_col(&p->in, x->far, &r->error_line, &r->error_col);
    r->nexpected = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!g->expect_message[ids[i]]) r->expected[r->nexpected++] = g->expects[ids[i]];
    r->error_pos = x->far;
    r->error = text;
    r->error_message = strstr(r->error, ": ") + 2;
    r->status = PEGO_SYNTAX_ERROR;
    return PEGO_SYNTAX_ERROR;
}
