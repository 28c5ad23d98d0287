/* Static analysis of a checked grammar (docs/language.md 2.1, 2.2): nullable rules,
 * rules proven to always succeed, the left-call graph and its left-recursive
 * cycles with their leaders, and the memo classification of every rule
 * (transient, memo, plain, deferrable). It runs inside the compiler's
 * out-of-memory unwind: its tables are blocks of the front end (ast.h). */
#include "program.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const ast_grammar *ast;
    int      n;
    uint8_t *nullable;
    uint8_t *nofail;
    uint8_t *cyclic;
    /* left-call graph as adjacency lists, edges in source order */
    int    **adj;
    int     *nadj, *capadj;
} analysis;

static int expr_nullable(analysis *a, const ast_expr *e)
{
    switch (e->kind) {
    case AST_LITERAL: return e->len == 0;
    case AST_CLASS: case AST_ANY: case AST_BOTTOM: return 0;
    case AST_TOP: case AST_ANCHOR: case AST_CUT: case AST_PREDICATE:
    case AST_AND: case AST_NOT: case AST_OPTIONAL: return 1;
    case AST_SEQ:
        for (int i = 0; i < e->nkids; i++)
            if (!expr_nullable(a, e->kids[i])) return 0;
        return 1;
    case AST_CHOICE:
        for (int i = 0; i < e->nkids; i++)
            if (expr_nullable(a, e->kids[i])) return 1;
        return 0;
    case AST_REPEAT: return e->min == 0 || expr_nullable(a, e->kids[0]);
    case AST_ATOMIC: case AST_DISCARD: case AST_CAPTURE: case AST_ATTRIBUTE:
        return expr_nullable(a, e->kids[0]);
    case AST_CALL: return e->rule >= 0 && a->nullable[e->rule];
    case AST_PRATT:
        for (int i = 0; i < e->pratt->noperands; i++)
            if (expr_nullable(a, e->pratt->operands[i].expr)) return 1;
        return 0;
    }
    return 0;
}

/* A cut that commits a choice of this expression's own level: not inside a nested
 * choice, optional, repetition, lookahead or rule call. */
int cc_loose_cut(const ast_expr *e)
{
    switch (e->kind) {
    case AST_CUT: return 1;
    case AST_SEQ:
        for (int i = 0; i < e->nkids; i++)
            if (cc_loose_cut(e->kids[i])) return 1;
        return 0;
    case AST_CAPTURE: case AST_ATOMIC: case AST_DISCARD: case AST_ATTRIBUTE:
        return cc_loose_cut(e->kids[0]);
    default: return 0;
    }
}

static int expr_nofail(analysis *a, const ast_expr *e);

static int is_recover(const ast_expr *e)
{
    return e->kind == AST_ATTRIBUTE && e->name && strcmp(e->name, "recover") == 0;
}

/* Conservative: proven to always fail. */
static int expr_alwaysfail(analysis *a, const ast_expr *e)
{
    switch (e->kind) {
    case AST_BOTTOM: return 1;
    case AST_NOT: return expr_nofail(a, e->kids[0]);
    case AST_SEQ:
        for (int i = 0; i < e->nkids; i++)
            if (expr_alwaysfail(a, e->kids[i])) return 1;
        return 0;
    case AST_CHOICE:
        for (int i = 0; i < e->nkids; i++)
            if (!expr_alwaysfail(a, e->kids[i])) return 0;
        return 1;
    case AST_CAPTURE: case AST_ATOMIC: case AST_DISCARD: case AST_AND:
        return expr_alwaysfail(a, e->kids[0]);
    case AST_ATTRIBUTE:
        return !is_recover(e) && expr_alwaysfail(a, e->kids[0]);
    default: return 0;
    }
}

/* Conservative: proven to always succeed (docs/language.md 2.2, step 2). */
static int expr_nofail(analysis *a, const ast_expr *e)
{
    switch (e->kind) {
    case AST_LITERAL: return e->len == 0;
    case AST_TOP: case AST_CUT: return 1;
    case AST_CALL:
        return e->level == NULL && e->rule >= 0 && !a->cyclic[e->rule] && a->nofail[e->rule];
    case AST_SEQ:
        for (int i = 0; i < e->nkids; i++)
            if (!expr_nofail(a, e->kids[i])) return 0;
        return 1;
    case AST_CHOICE:
        for (int i = 0; i < e->nkids; i++) {
            if (cc_loose_cut(e->kids[i])) return 0;
            if (expr_nofail(a, e->kids[i])) return 1;
        }
        return 0;
    case AST_OPTIONAL:
        return !cc_loose_cut(e->kids[0]) || expr_nofail(a, e->kids[0]);
    case AST_REPEAT:
        if (e->max == 0) return 1;
        if (e->min == 0) return !cc_loose_cut(e->kids[0]) || expr_nofail(a, e->kids[0]);
        return e->min == 1 && expr_nofail(a, e->kids[0]);
    case AST_AND: case AST_CAPTURE: case AST_ATOMIC: case AST_DISCARD: case AST_ATTRIBUTE:
        return expr_nofail(a, e->kids[0]);
    case AST_NOT: return expr_alwaysfail(a, e->kids[0]);
    default: return 0;
    }
}

static void add_edge(analysis *a, int from, int to)
{
    for (int i = 0; i < a->nadj[from]; i++)
        if (a->adj[from][i] == to) return;
    if (a->nadj[from] == a->capadj[from]) {
        a->capadj[from] = a->capadj[from] ? 2 * a->capadj[from] : 4;
        a->adj[from] = cc_xrealloc(a->adj[from], (size_t)a->capadj[from] * sizeof(int));
    }
    a->adj[from][a->nadj[from]++] = to;
}

/* Adds the rules e may call before consuming input (docs/language.md 2.2, step 2). */
static void left_calls(analysis *a, int from, const ast_expr *e)
{
    switch (e->kind) {
    case AST_CALL:
        if (e->rule >= 0) add_edge(a, from, e->rule);
        return;
    case AST_SEQ:
        for (int i = 0; i < e->nkids; i++) {
            left_calls(a, from, e->kids[i]);
            if (!expr_nullable(a, e->kids[i])) return;
        }
        return;
    case AST_CHOICE:
        for (int i = 0; i < e->nkids; i++) {
            left_calls(a, from, e->kids[i]);
            if (expr_nofail(a, e->kids[i])) return;
        }
        return;
    case AST_REPEAT:
        if (e->max != 0) left_calls(a, from, e->kids[0]);
        return;
    case AST_OPTIONAL: case AST_AND: case AST_NOT: case AST_ATOMIC: case AST_DISCARD:
    case AST_CAPTURE:
        left_calls(a, from, e->kids[0]);
        return;
    case AST_ATTRIBUTE:
        left_calls(a, from, e->kids[0]);
        if (is_recover(e) && !expr_nofail(a, e->kids[0]))
            for (int i = 0; i < e->nargs; i++)
                if (strcmp(e->args[i].name, "skip") == 0) left_calls(a, from, e->args[i].value);
        return;
    case AST_PRATT: {
        const ast_pratt *p = e->pratt;
        if (p->skip) left_calls(a, from, p->skip);
        for (int i = 0; i < p->noperands; i++) {
            left_calls(a, from, p->operands[i].expr);
            if (expr_nofail(a, p->operands[i].expr)) break;
        }
        for (int l = 0; l < p->nlevels; l++)
            for (int o = 0; o < p->levels[l].nops; o++)
                if (p->levels[l].ops[o].kind == PRATT_PREFIX)
                    left_calls(a, from, p->levels[l].ops[o].expr);
        return;
    }
    default: return;
    }
}

/* Tarjan's strongly connected components, iterative so that a grammar with many
 * rules cannot exhaust the C stack. comp[v] receives the component number. */
static int tarjan(analysis *a, int *comp)
{
    int n = a->n, ncomp = 0, counter = 0, sp = 0, csp = 0;
    int *index = cc_xmalloc((size_t)n * sizeof(int)), *low = cc_xmalloc((size_t)n * sizeof(int));
    int *onstack = cc_xcalloc((size_t)n, sizeof(int)), *stack = cc_xmalloc((size_t)n * sizeof(int));
    int *cv = cc_xmalloc((size_t)n * sizeof(int)), *ci = cc_xmalloc((size_t)n * sizeof(int));
    for (int v = 0; v < n; v++) index[v] = -1;
    for (int root = 0; root < n; root++) {
        if (index[root] >= 0) continue;
        cv[csp] = root; ci[csp] = 0; csp++;
        index[root] = low[root] = counter++;
        stack[sp++] = root; onstack[root] = 1;
        while (csp > 0) {
            int v = cv[csp - 1];
            if (ci[csp - 1] < a->nadj[v]) {
                int w = a->adj[v][ci[csp - 1]++];
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

/* The deepest nest of calls a rule may enter before it reads its first byte:
 * the longest chain of the left-call graph, where a left-recursive cycle counts
 * as many levels as there are rules (each rule of it once: a left-recursive call
 * at the same position is answered by the memo without going deeper). Tarjan
 * numbers a component after every component it reaches, so one pass in
 * component order sees callees first. */
static int deepest_left_chain(const analysis *a, const int *comp)
{
    int n = a->n, best = 0;
    int *count = cc_xcalloc((size_t)n + 1, sizeof(int)), *order = cc_xmalloc(((size_t)n + 1) * sizeof(int));
    int *depth = cc_xmalloc(((size_t)n + 1) * sizeof(int));
    for (int r = 0; r < n; r++) count[comp[r] + 1]++;
    for (int c = 1; c <= n; c++) count[c] += count[c - 1];
    for (int r = 0; r < n; r++) order[count[comp[r]]++] = r;
    for (int i = 0; i < n; i++) {
        int r = order[i], d = 1;
        if (a->cyclic[r]) d = n + 1;
        for (int k = 0; k < a->nadj[r] && d <= n; k++)
            if (depth[a->adj[r][k]] + 1 > d) d = depth[a->adj[r][k]] + 1;
        depth[r] = d > n + 1 ? n + 1 : d;
        if (depth[r] > best) best = depth[r];
    }
    cc_free(count); cc_free(order); cc_free(depth);
    return best;
}

/* Finds a cycle among the non-leader members of component c; on success returns
 * its earliest-declared rule (rules are numbered in declaration order), else -1. */
static int cycle_avoiding_leaders(analysis *a, const int *comp, int c, const uint8_t *leader)
{
    int n = a->n, found = -1;
    int *color = cc_xcalloc((size_t)n, sizeof(int)), *path = cc_xmalloc((size_t)n * sizeof(int));
    int *it = cc_xmalloc((size_t)n * sizeof(int));
    for (int root = 0; root < n && found < 0; root++) {
        if (comp[root] != c || leader[root] || color[root]) continue;
        int depth = 0;
        path[depth] = root; it[depth] = 0; depth++; color[root] = 1;
        while (depth > 0 && found < 0) {
            int v = path[depth - 1];
            if (it[depth - 1] < a->nadj[v]) {
                int w = a->adj[v][it[depth - 1]++];
                if (comp[w] != c || leader[w]) continue;
                if (color[w] == 1) {            /* back edge: the cycle is path[k..] */
                    int k = depth - 1;
                    while (path[k] != w) k--;
                    found = w;
                    for (; k < depth; k++) if (path[k] < found) found = path[k];
                } else if (color[w] == 0) {
                    color[w] = 1;
                    path[depth] = w; it[depth] = 0; depth++;
                }
                continue;
            }
            color[v] = 2;
            depth--;
        }
    }
    cc_free(color); cc_free(path); cc_free(it);
    return found;
}

/* Captures of the scope an expression belongs to (not inside a nested
 * repetition, which is a scope of its own, nor inside a rule call). */
static int scope_has_captures(const ast_expr *e)
{
    switch (e->kind) {
    case AST_CAPTURE: return 1;
    case AST_REPEAT: case AST_CALL: case AST_PRATT: return 0;
    default:
        for (int i = 0; i < e->nkids; i++)
            if (scope_has_captures(e->kids[i])) return 1;
        return 0;
    }
}

/* Counts e's calls per callee, and adds them as edges from rule from to the
 * graph of all calls in a. */
static int count_calls(const ast_expr *e, int *callsites, analysis *a, int from)
{
    int n = 0;
    if (!e) return 0;
    if (e->kind == AST_CALL && e->rule >= 0) {
        callsites[e->rule]++;
        add_edge(a, from, e->rule);
        n++;
    }
    for (int i = 0; i < e->nkids; i++) n += count_calls(e->kids[i], callsites, a, from);
    for (int i = 0; i < e->nargs; i++) n += count_calls(e->args[i].value, callsites, a, from);
    if (e->kind == AST_PRATT) {
        const ast_pratt *p = e->pratt;
        n += count_calls(p->skip, callsites, a, from);
        for (int i = 0; i < p->noperands; i++) n += count_calls(p->operands[i].expr, callsites, a, from);
        for (int l = 0; l < p->nlevels; l++)
            for (int o = 0; o < p->levels[l].nops; o++)
                n += count_calls(p->levels[l].ops[o].expr, callsites, a, from);
    }
    return n;
}

int cc_scope_has_captures(const ast_expr *e) { return scope_has_captures(e); }

/* Whether an element occupies a value slot (docs/language.md 1.4). */
int cc_has_value(const ast_expr *e)
{
    switch (e->kind) {
    case AST_ANCHOR: case AST_CUT: case AST_DISCARD: case AST_BOTTOM: case AST_AND:
    case AST_NOT: case AST_PREDICATE:
        return 0;
    case AST_CAPTURE: case AST_ATTRIBUTE:
        return cc_has_value(e->kids[0]);
    default:
        return 1;
    }
}

/* A Pratt operand must not call its own rule before consuming input: that is
 * left recursion, which infix and postfix operators express (docs/language.md 3.1).
 * Uses the left-call graph; the extra node n holds the operand's left calls. */
static void check_pratt_operands(analysis *a, const ast_grammar *ast, cc_errors *errs)
{
    int n = a->n;
    uint8_t *seen = cc_xcalloc((size_t)n + 1, 1);
    int *queue = cc_xmalloc(((size_t)n + 1) * sizeof(int));
    for (int r = 0; r < n; r++) {
        const ast_expr *body = ast->rules[r].body;
        if (body->kind != AST_PRATT) continue;
        for (int i = 0; i < body->pratt->noperands; i++) {
            const ast_pratt_operand *op = &body->pratt->operands[i];
            a->nadj[n] = 0;
            left_calls(a, n, op->expr);
            memset(seen, 0, (size_t)n + 1);
            int head = 0, tail = 0, found = 0;
            for (int k = 0; k < a->nadj[n]; k++)
                if (!seen[a->adj[n][k]]) { seen[a->adj[n][k]] = 1; queue[tail++] = a->adj[n][k]; }
            while (head < tail && !found) {
                int v = queue[head++];
                if (v == r) { found = 1; break; }
                for (int k = 0; k < a->nadj[v]; k++)
                    if (!seen[a->adj[v][k]]) { seen[a->adj[v][k]] = 1; queue[tail++] = a->adj[v][k]; }
            }
            if (found)
                cc_errors_add(errs, op->line, op->col,
                              "operand of %s calls %s at its start (left recursion); use infix or postfix instead",
                              ast->rules[r].name, ast->rules[r].name);
        }
    }
    cc_free(seen);
    cc_free(queue);
}

void cc_analyze(pego_grammar *g, const ast_grammar *ast, cc_errors *errs)
{
    analysis a = { .ast = ast, .n = ast->nrules > 0 ? ast->nrules : 0 };
    int n = a.n;
    size_t nz = (size_t)n;
    a.nullable = cc_xcalloc((size_t)n + 1, 1);
    a.nofail = cc_xcalloc((size_t)n + 1, 1);
    a.cyclic = cc_xcalloc((size_t)n + 1, 1);
    a.adj = cc_xcalloc((size_t)n + 1, sizeof(int *));
    a.nadj = cc_xcalloc((size_t)n + 1, sizeof(int));
    a.capadj = cc_xcalloc((size_t)n + 1, sizeof(int));
    int *comp = cc_xcalloc((size_t)n + 1, sizeof(int));
    uint8_t *leader = cc_xcalloc((size_t)n + 1, 1);
    int *callsites = cc_xcalloc((size_t)n + 1, sizeof(int));
    int *calls_out = cc_xcalloc((size_t)n + 1, sizeof(int));

    for (int changed = 1; changed;) {                 /* nullable, to a fixed point */
        changed = 0;
        for (int r = 0; r < n; r++)
            if (!a.nullable[r] && expr_nullable(&a, ast->rules[r].body)) a.nullable[r] = changed = 1;
    }
    /* Start from "every rule cyclic" (no call proven to succeed), then let the
     * proofs remove edges until the cyclic set stops changing. */
    memset(a.cyclic, 1, nz);
    for (int round = 0; round < n + 2; round++) {
        memset(a.nofail, 0, nz);
        for (int changed = 1; changed;) {
            changed = 0;
            for (int r = 0; r < n; r++)
                if (!a.nofail[r] && expr_nofail(&a, ast->rules[r].body)) a.nofail[r] = changed = 1;
        }
        for (int r = 0; r < n; r++) a.nadj[r] = 0;
        for (int r = 0; r < n; r++) left_calls(&a, r, ast->rules[r].body);
        int ncomp = tarjan(&a, comp);
        int *size = cc_xcalloc((size_t)ncomp + 1, sizeof(int));
        for (int r = 0; r < n; r++) size[comp[r]]++;
        int changed = 0;
        for (int r = 0; r < n; r++) {
            int self = 0;
            for (int i = 0; i < a.nadj[r]; i++) if (a.adj[r][i] == r) self = 1;
            uint8_t cyc = size[comp[r]] > 1 || self;
            if (cyc != a.cyclic[r]) { a.cyclic[r] = cyc; changed = 1; }
        }
        cc_free(size);
        if (!changed && round > 0) break;
    }
    for (int r = 0; r < n; r++) {                     /* leaders, component by component */
        if (!a.cyclic[r]) continue;
        int l;
        while ((l = cycle_avoiding_leaders(&a, comp, comp[r], leader)) >= 0) leader[l] = 1;
    }
    g->lead_depth = deepest_left_chain(&a, comp);
    check_pratt_operands(&a, ast, errs);
    /* A rule referenced from one place is transient: its one call site runs
     * again at a position only when its caller does. Unless the calls come
     * round: on a cycle of calls where no rule is memoized, an evaluation may
     * evaluate itself at later positions again and again (def main = @. !main+),
     * exponentially. So a rule on a cycle of the graph of all calls among
     * rules that would not be memoized (transient, or cyclic and no leader) is
     * not transient; a cycle through a memoized rule (JSON's value) is cut by
     * its memo. */
    for (int r = 0; r <= n; r++) a.nadj[r] = 0;
    for (int r = 0; r < n; r++) calls_out[r] = count_calls(ast->rules[r].body, callsites, &a, r);
    uint8_t *unmemo = cc_xcalloc((size_t)n + 1, 1), *recursive = cc_xcalloc((size_t)n + 1, 1);
    int *rcomp = cc_xcalloc((size_t)n + 1, sizeof(int)), *rsize = cc_xcalloc((size_t)n + 1, sizeof(int));
    for (int r = 0; r < n; r++)
        unmemo[r] = a.cyclic[r] ? !leader[r] : (callsites[r] < 2 || calls_out[r] == 0);
    for (int r = 0; r < n; r++) {
        int k = 0;
        for (int i = 0; unmemo[r] && i < a.nadj[r]; i++)
            if (unmemo[a.adj[r][i]]) a.adj[r][k++] = a.adj[r][i];
        a.nadj[r] = k;
    }
    tarjan(&a, rcomp);
    for (int r = 0; r < n; r++) rsize[rcomp[r]]++;
    for (int r = 0; r < n; r++) {
        recursive[r] = rsize[rcomp[r]] > 1;
        for (int i = 0; i < a.nadj[r]; i++) if (a.adj[r][i] == r) recursive[r] = 1;
    }

    int ndef = 0;
    for (int r = 0; r < n; r++) {
        cc_rule *rule = &g->rules[r];
        uint32_t f = 0;
        if (a.nullable[r]) f |= RULE_NULLABLE;
        if (a.nofail[r]) f |= RULE_NOFAIL;
        if (a.cyclic[r]) f |= RULE_CYCLIC;
        if (leader[r]) f |= RULE_LEADER;
        if (!a.cyclic[r]) f |= RULE_MEMO;
        if ((callsites[r] < 2 && !recursive[r]) || calls_out[r] == 0) f |= RULE_TRANSIENT;
        if (scope_has_captures(ast->rules[r].body)) f |= RULE_CAPTURES;
        if (!(f & RULE_LEADER) && (!(f & RULE_MEMO) || (f & RULE_TRANSIENT)) && !(f & RULE_CAPTURES))
            f |= RULE_PLAIN;
        rule->seen_index = -1;
        if ((f & RULE_MEMO) && !(f & RULE_TRANSIENT) && !(f & RULE_LEADER)) {
            f |= RULE_DEFERRABLE;
            rule->seen_index = ndef++;
        }
        rule->flags = f;
        rule->scc = a.cyclic[r] ? comp[r] : -1;
        rule->callsites = callsites[r];
    }
    g->ndeferrable = ndef;

    for (int r = 0; r <= n; r++) cc_free(a.adj[r]);
    cc_free(a.adj); cc_free(a.nadj); cc_free(a.capadj);
    cc_free(a.nullable); cc_free(a.nofail); cc_free(a.cyclic);
    cc_free(comp); cc_free(leader); cc_free(callsites); cc_free(calls_out);
    cc_free(rcomp); cc_free(rsize); cc_free(recursive); cc_free(unmemo);
}
