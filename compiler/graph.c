/* Graphs of rules: adjacency lists, strongly connected components, the call
 * graph of a grammar in the order that puts callees first, and the worklist that
 * solves rule-wise fixed points in that order (compiler/graph.h). */
#include "graph.h"

#include <string.h>

void cc_graph_init(cc_graph *g, int n)
{
    g->n = n;
    g->adj = cc_xcalloc((size_t)n + 1, sizeof *g->adj);
    g->nadj = cc_xcalloc((size_t)n + 1, sizeof *g->nadj);
    g->capadj = cc_xcalloc((size_t)n + 1, sizeof *g->capadj);
    g->mark = cc_xcalloc((size_t)n + 1, sizeof *g->mark);
    g->stamp = 0;
    g->filling = -1;
}

void cc_graph_free(cc_graph *g)
{
    for (int v = 0; v < g->n; v++) cc_free(g->adj[v]);
    cc_free(g->adj);
    cc_free(g->nadj);
    cc_free(g->capadj);
    cc_free(g->mark);
}

void cc_graph_clear(cc_graph *g, int v)
{
    g->nadj[v] = 0;
    if (g->filling == v) g->filling = -1;
}

void cc_graph_add(cc_graph *g, int v, int w)
{
    if (g->filling != v) {          /* marks v's successors: one pass per change of node */
        g->filling = v;
        g->stamp++;
        for (int i = 0; i < g->nadj[v]; i++) g->mark[g->adj[v][i]] = g->stamp;
    }
    if (g->mark[w] == g->stamp) return;
    g->mark[w] = g->stamp;
    if (g->nadj[v] == g->capadj[v]) {
        g->capadj[v] = g->capadj[v] ? 2 * g->capadj[v] : 4;
        g->adj[v] = cc_xrealloc(g->adj[v], (size_t)g->capadj[v] * sizeof(int));
    }
    g->adj[v][g->nadj[v]++] = w;
}

int cc_graph_has(const cc_graph *g, int v, int w)
{
    for (int i = 0; i < g->nadj[v]; i++)
        if (g->adj[v][i] == w) return 1;
    return 0;
}

void cc_graph_reverse(const cc_graph *g, cc_graph *rev)
{
    cc_graph_init(rev, g->n);       /* built in place: g has no duplicate edge */
    for (int v = 0; v < g->n; v++)
        for (int i = 0; i < g->nadj[v]; i++) rev->capadj[g->adj[v][i]]++;
    for (int w = 0; w < g->n; w++)
        if (rev->capadj[w]) rev->adj[w] = cc_xmalloc((size_t)rev->capadj[w] * sizeof(int));
    for (int v = 0; v < g->n; v++)
        for (int i = 0; i < g->nadj[v]; i++) {
            int w = g->adj[v][i];
            rev->adj[w][rev->nadj[w]++] = v;
        }
}

int cc_graph_components(const cc_graph *g, int *comp)
{
    int n = g->n, ncomp = 0, counter = 0, sp = 0, csp = 0;
    size_t size = ((size_t)n + 1) * sizeof(int);
    int *index = cc_xmalloc(size), *low = cc_xmalloc(size), *onstack = cc_xcalloc((size_t)n + 1, sizeof(int));
    int *stack = cc_xmalloc(size), *cv = cc_xmalloc(size), *ci = cc_xmalloc(size);
    for (int v = 0; v < n; v++) index[v] = -1;
    for (int root = 0; root < n; root++) {
        if (index[root] >= 0) continue;
        cv[csp] = root; ci[csp] = 0; csp++;
        index[root] = low[root] = counter++;
        stack[sp++] = root; onstack[root] = 1;
        while (csp > 0) {
            int v = cv[csp - 1];
            if (ci[csp - 1] < g->nadj[v]) {
                int w = g->adj[v][ci[csp - 1]++];
                if (index[w] < 0) {
                    index[w] = low[w] = counter++;
                    stack[sp++] = w; onstack[w] = 1;
                    cv[csp] = w; ci[csp] = 0; csp++;
                } else if (onstack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            if (low[v] == index[v]) {
                int w;
                do { w = stack[--sp]; onstack[w] = 0; comp[w] = ncomp; } while (w != v);
                ncomp++;
            }
            csp--;
            if (csp > 0) {
                int u = cv[csp - 1];
                if (low[v] < low[u]) low[u] = low[v];
            }
        }
    }
    cc_free(index); cc_free(low); cc_free(onstack); cc_free(stack); cc_free(cv); cc_free(ci);
    return ncomp;
}

int *cc_group_components(const int *comp, int n, int ncomp, int **start)
{
    int *first = cc_xcalloc((size_t)ncomp + 2, sizeof(int)), *order = cc_xmalloc(((size_t)n + 1) * sizeof(int));
    int *next = cc_xmalloc(((size_t)ncomp + 1) * sizeof(int));
    for (int v = 0; v < n; v++) first[comp[v] + 1]++;
    for (int c = 0; c < ncomp; c++) first[c + 1] += first[c];
    memcpy(next, first, (size_t)ncomp * sizeof(int));
    for (int v = 0; v < n; v++) order[next[comp[v]]++] = v;
    cc_free(next);
    *start = first;
    return order;
}

/* Adds the calls in e to the graph as edges from rule `from`, and counts them. */
static void add_calls(cc_callgraph *cg, int from, const ast_expr *e)
{
    if (!e) return;
    if (e->kind == AST_CALL && e->rule >= 0) {
        cg->callsites[e->rule]++;
        cg->calls_out[from]++;
        cc_graph_add(&cg->calls, from, e->rule);
    }
    for (int i = 0; i < e->nkids; i++) add_calls(cg, from, e->kids[i]);
    for (int i = 0; i < e->nargs; i++) add_calls(cg, from, e->args[i].value);
    if (e->kind == AST_PRATT) {
        const ast_pratt *p = e->pratt;
        add_calls(cg, from, p->skip);
        for (int i = 0; i < p->noperands; i++) add_calls(cg, from, p->operands[i].expr);
        for (int l = 0; l < p->nlevels; l++)
            for (int o = 0; o < p->levels[l].nops; o++) add_calls(cg, from, p->levels[l].ops[o].expr);
    }
}

void cc_callgraph_init(cc_callgraph *cg, const ast_grammar *ast)
{
    int n = ast->nrules > 0 ? ast->nrules : 0;
    memset(cg, 0, sizeof *cg);
    cg->callsites = cc_xcalloc((size_t)n + 1, sizeof(int));
    cg->calls_out = cc_xcalloc((size_t)n + 1, sizeof(int));
    cc_graph_init(&cg->calls, n);
    for (int r = 0; r < n; r++) add_calls(cg, r, ast->rules[r].body);

    cc_graph_reverse(&cg->calls, &cg->callers);
    cg->comp = cc_xcalloc((size_t)n + 1, sizeof(int));
    cg->ncomp = cc_graph_components(&cg->calls, cg->comp);
    cg->order = cc_group_components(cg->comp, n, cg->ncomp, &cg->start);
    cg->queue = cc_xmalloc(((size_t)n + 1) * sizeof(int));
    cg->queued = cc_xcalloc((size_t)n + 1, 1);
}

void cc_callgraph_free(cc_callgraph *cg)
{
    cc_graph_free(&cg->calls);
    cc_graph_free(&cg->callers);
    cc_free(cg->comp);
    cc_free(cg->order);
    cc_free(cg->start);
    cc_free(cg->callsites);
    cc_free(cg->calls_out);
    cc_free(cg->queue);
    cc_free(cg->queued);
}

int cc_callgraph_single(const cc_callgraph *cg, int c)
{
    int r = cg->order[cg->start[c]];
    return cg->start[c + 1] - cg->start[c] == 1 && !cc_graph_has(&cg->calls, r, r);
}

void cc_solve_component(cc_callgraph *cg, int c, cc_eval_fn eval, void *ctx)
{
    const int *members = cg->order + cg->start[c];
    int k = cg->start[c + 1] - cg->start[c];
    if (cc_callgraph_single(cg, c)) {
        eval(ctx, members[0]);
        return;
    }
    /* a ring of at most k rules, each queued at most once */
    int *q = cg->queue + cg->start[c], head = 0, count = 0;
    for (int i = 0; i < k; i++) {
        q[count++] = members[i];
        cg->queued[members[i]] = 1;
    }
    while (count > 0) {
        int r = q[head];
        head = (head + 1) % k;
        count--;
        cg->queued[r] = 0;
        if (!eval(ctx, r)) continue;
        for (int i = 0; i < cg->callers.nadj[r]; i++) {
            int caller = cg->callers.adj[r][i];
            if (cg->comp[caller] != c || cg->queued[caller]) continue;
            cg->queued[caller] = 1;
            q[(head + count++) % k] = caller;
        }
    }
}

void cc_solve(cc_callgraph *cg, cc_eval_fn eval, void *ctx)
{
    for (int c = 0; c < cg->ncomp; c++) cc_solve_component(cg, c, eval, ctx);
}
