/* Static analysis of a checked grammar (docs/language.md 2.1, 2.2): nullable rules,
 * rules proven to always succeed, the left-call graph and its left-recursive
 * cycles with their leaders, and the memo classification of every rule
 * (transient, memo, plain, deferrable), each in time linear in the grammar:
 * one component of the call graph at a time, callees first (compiler/graph.h).
 * It runs inside the compiler's out-of-memory unwind: its tables are blocks of
 * the front end (ast.h). */
#include "program.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const ast_grammar *ast;
    int      n;
    uint8_t *nullable;
    uint8_t *nofail;
    uint8_t *cyclic;
    cc_graph left;      /* the left-call graph, edges in source order; node n: scratch */
    int     *local;     /* rule -> its index in the component being solved */
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

/* Whether two expressions match alike: the same text, at the same position,
 * gives the same outcome and records the same expectations. */
int cc_same_expr(const ast_expr *a, const ast_expr *b)
{
    if (a == b) return 1;
    if (a->kind != b->kind || a->nkids != b->nkids) return 0;
    switch (a->kind) {
    case AST_LITERAL:
        if (a->len != b->len || memcmp(a->text, b->text, a->len) != 0) return 0;
        break;
    case AST_CLASS:
        if (a->negated != b->negated || a->nranges != b->nranges ||
            memcmp(a->ranges, b->ranges, (size_t)a->nranges * sizeof *a->ranges) != 0)
            return 0;
        break;
    case AST_ANCHOR:
        if (a->anchor != b->anchor) return 0;
        break;
    case AST_REPEAT:
        if (a->min != b->min || a->max != b->max) return 0;
        break;
    case AST_CALL:
        if (a->level || b->level || a->rule < 0 || a->rule != b->rule) return 0;
        break;
    case AST_CAPTURE:
        if (strcmp(a->name, b->name) != 0) return 0;
        break;
    case AST_ANY: case AST_TOP: case AST_BOTTOM: case AST_SEQ: case AST_CHOICE: case AST_OPTIONAL:
    case AST_AND: case AST_NOT: case AST_ATOMIC: case AST_DISCARD: case AST_CUT:
        break;
    case AST_PREDICATE: case AST_ATTRIBUTE: case AST_PRATT:
        return 0;
    }
    for (int i = 0; i < a->nkids; i++)
        if (!cc_same_expr(a->kids[i], b->kids[i])) return 0;
    return 1;
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

/* Adds the rules e may call before consuming input (docs/language.md 2.2, step 2). */
static void left_calls(analysis *a, int from, const ast_expr *e)
{
    switch (e->kind) {
    case AST_CALL:
        if (e->rule >= 0) cc_graph_add(&a->left, from, e->rule);
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

/* The deepest nest of calls a rule may enter before it reads its first byte:
 * the longest chain of the left-call graph, where a left-recursive cycle counts
 * as many levels as there are rules (each rule of it once: a left-recursive call
 * at the same position is answered by the memo without going deeper). Tarjan
 * numbers a component after every component it reaches, so one pass in
 * component order sees callees first. */
static int deepest_left_chain(const analysis *a, const int *order)
{
    int n = a->n, best = 0;
    int *depth = cc_xmalloc(((size_t)n + 1) * sizeof(int));
    for (int i = 0; i < n; i++) {
        int r = order[i], d = 1;
        if (a->cyclic[r]) d = n + 1;
        for (int k = 0; k < a->left.nadj[r] && d <= n; k++)
            if (depth[a->left.adj[r][k]] + 1 > d) d = depth[a->left.adj[r][k]] + 1;
        depth[r] = d > n + 1 ? n + 1 : d;
        if (depth[r] > best) best = depth[r];
    }
    cc_free(depth);
    return best;
}

/* The leaders of a left-recursive component, its rules members[0 .. k - 1] in
 * declaration order: while some cycle avoids every leader, the earliest-declared
 * rule of the first cycle that a depth-first search from the earliest rule finds
 * becomes one. The search goes on after each leader where a fresh search would
 * get to: rules it finished stay finished (no cycle avoiding the leaders goes
 * through them), the rules after the new leader on the path are unvisited again
 * and re-read the edge they last followed, so that each leader costs the path
 * it cuts, not the component. color (0: unvisited, 1: on the path, 2: finished)
 * and it (the next edge to read) are per rule, 0 for the component's rules. */
static void choose_leaders(const analysis *a, const int *comp, const int *members, int k, uint8_t *leader,
                           uint8_t *color, int *it, int *path)
{
    const cc_graph *g = &a->left;
    int c = comp[members[0]], depth = 0;
    for (int i = 0; i < k; i++) {
        int root = members[i];
        if (leader[root] || color[root]) continue;
        color[root] = 1;
        path[depth++] = root;
        while (depth > 0) {
            int v = path[depth - 1];
            if (it[v] == g->nadj[v]) {
                color[v] = 2;
                depth--;
                continue;
            }
            int w = g->adj[v][it[v]++];
            if (comp[w] != c || leader[w] || color[w] == 2) continue;
            if (color[w] == 0) {
                color[w] = 1;
                path[depth++] = w;
                continue;
            }
            int j = depth - 1;                      /* a back edge: the cycle is path[j ..] */
            while (path[j] != w) j--;
            int l = j;                              /* where its earliest-declared rule is */
            for (; j < depth; j++)
                if (path[j] < path[l]) l = j;
            leader[path[l]] = 1;
            for (j = l + 1; j < depth; j++) {
                color[path[j]] = 0;
                it[path[j]]--;
            }
            depth = l;
        }
    }
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
 * Uses the left-call graph: the rules that reach rule r are found once per Pratt
 * rule, backwards from r; the extra node n holds an operand's left calls. */
static void check_pratt_operands(analysis *a, const ast_grammar *ast, cc_errors *errs)
{
    int n = a->n, any = 0;
    for (int r = 0; r < n && !any; r++) any = ast->rules[r].body->kind == AST_PRATT;
    if (!any) return;
    cc_graph back;                  /* the left-call graph reversed */
    cc_graph_reverse(&a->left, &back);
    uint8_t *reaches = cc_xcalloc((size_t)n + 1, 1);
    int *queue = cc_xmalloc(((size_t)n + 1) * sizeof(int));
    for (int r = 0; r < n; r++) {
        const ast_expr *body = ast->rules[r].body;
        if (body->kind != AST_PRATT) continue;
        int head = 0, tail = 0;
        reaches[r] = 1;
        queue[tail++] = r;
        while (head < tail) {
            int v = queue[head++];
            for (int k = 0; k < back.nadj[v]; k++)
                if (!reaches[back.adj[v][k]]) { reaches[back.adj[v][k]] = 1; queue[tail++] = back.adj[v][k]; }
        }
        for (int i = 0; i < body->pratt->noperands; i++) {
            const ast_pratt_operand *op = &body->pratt->operands[i];
            cc_graph_clear(&a->left, n);
            left_calls(a, n, op->expr);
            int found = 0;
            for (int k = 0; k < a->left.nadj[n] && !found; k++) found = reaches[a->left.adj[n][k]];
            if (found)
                cc_errors_add(errs, op->line, op->col,
                              "operand of %s calls %s at its start (left recursion); use infix or postfix instead",
                              ast->rules[r].name, ast->rules[r].name);
        }
        while (tail > 0) reaches[queue[--tail]] = 0;
    }
    cc_graph_free(&back);
    cc_free(reaches);
    cc_free(queue);
}

static int eval_nullable(void *ctx, int r)
{
    analysis *a = ctx;
    if (a->nullable[r] || !expr_nullable(a, a->ast->rules[r].body)) return 0;
    return a->nullable[r] = 1;
}

static int eval_nofail(void *ctx, int r)
{
    analysis *a = ctx;
    if (a->nofail[r] || !expr_nofail(a, a->ast->rules[r].body)) return 0;
    return a->nofail[r] = 1;
}

/* Which rules of component c of the call graph are cyclic, which always
 * succeed, and their left calls, once c's callees are done. The cyclic set
 * starts from "every rule cyclic" (no call proven to succeed); then the proofs
 * remove edges until it stops changing, which gives its greatest fixed point.
 * A left call is a call, so a left-recursive cycle lies inside one component,
 * and what is decided about its rules depends only on them and their callees:
 * one component at a time gives what the whole grammar at a time would, in
 * time linear in the grammar for the components of one rule. */
static void left_recursion(analysis *a, cc_callgraph *cg, int c)
{
    const int *members = cg->order + cg->start[c];
    int k = cg->start[c + 1] - cg->start[c];
    if (cc_callgraph_single(cg, c)) {               /* calls no rule that calls it: not cyclic */
        int r = members[0];
        eval_nofail(a, r);
        cc_graph_clear(&a->left, r);
        left_calls(a, r, a->ast->rules[r].body);
        return;
    }
    cc_graph inside;                                /* the left calls among c's rules */
    cc_graph_init(&inside, k);
    int *comp = cc_xmalloc(((size_t)k + 1) * sizeof(int)), *size = cc_xmalloc(((size_t)k + 1) * sizeof(int));
    for (int i = 0; i < k; i++) {
        a->local[members[i]] = i;
        a->cyclic[members[i]] = 1;
    }
    for (int changed = 1; changed;) {
        for (int i = 0; i < k; i++) a->nofail[members[i]] = 0;
        cc_solve_component(cg, c, eval_nofail, a);
        for (int i = 0; i < k; i++) {
            int r = members[i];
            cc_graph_clear(&a->left, r);
            left_calls(a, r, a->ast->rules[r].body);
            cc_graph_clear(&inside, i);
            for (int e = 0; e < a->left.nadj[r]; e++)
                if (cg->comp[a->left.adj[r][e]] == c) cc_graph_add(&inside, i, a->local[a->left.adj[r][e]]);
        }
        int ncomp = cc_graph_components(&inside, comp);
        memset(size, 0, ((size_t)ncomp + 1) * sizeof(int));
        for (int i = 0; i < k; i++) size[comp[i]]++;
        changed = 0;
        for (int i = 0; i < k; i++) {
            uint8_t cyc = size[comp[i]] > 1 || cc_graph_has(&inside, i, i);
            if (cyc != a->cyclic[members[i]]) { a->cyclic[members[i]] = cyc; changed = 1; }
        }
    }
    cc_graph_free(&inside);
    cc_free(comp);
    cc_free(size);
}

void cc_analyze(pego_grammar *g, const ast_grammar *ast, cc_errors *errs)
{
    analysis a = { .ast = ast, .n = ast->nrules > 0 ? ast->nrules : 0 };
    int n = a.n;
    a.nullable = cc_xcalloc((size_t)n + 1, 1);
    a.nofail = cc_xcalloc((size_t)n + 1, 1);
    a.cyclic = cc_xcalloc((size_t)n + 1, 1);
    a.local = cc_xcalloc((size_t)n + 1, sizeof(int));
    cc_graph_init(&a.left, n + 1);
    cc_callgraph cg;
    cc_callgraph_init(&cg, ast);
    uint8_t *leader = cc_xcalloc((size_t)n + 1, 1);

    cc_solve(&cg, eval_nullable, &a);
    for (int c = 0; c < cg.ncomp; c++) left_recursion(&a, &cg, c);
    /* the components of the left-call graph, numbered as one pass over it does */
    int *comp = cc_xcalloc((size_t)n + 2, sizeof(int)), *start;
    int ncomp = cc_graph_components(&a.left, comp);
    int *order = cc_group_components(comp, n, ncomp, &start);
    uint8_t *color = cc_xcalloc((size_t)n + 1, 1);
    int *it = cc_xcalloc((size_t)n + 1, sizeof(int)), *path = cc_xmalloc(((size_t)n + 1) * sizeof(int));
    for (int c = 0; c < ncomp; c++)                 /* leaders, component by component */
        if (start[c + 1] > start[c] && a.cyclic[order[start[c]]])
            choose_leaders(&a, comp, order + start[c], start[c + 1] - start[c], leader, color, it, path);
    cc_free(color); cc_free(it); cc_free(path);
    g->lead_depth = deepest_left_chain(&a, order);
    cc_free(order); cc_free(start);
    check_pratt_operands(&a, ast, errs);
    /* A rule referenced from one place is transient: its one call site runs
     * again at a position only when its caller does. Unless the calls come
     * round: on a cycle of calls where no rule is memoized, an evaluation may
     * evaluate itself at later positions again and again (def main = @. !main+),
     * exponentially. So a rule on a cycle of the graph of all calls among
     * rules that would not be memoized (transient, or cyclic and no leader) is
     * not transient; a cycle through a memoized rule (JSON's value) is cut by
     * its memo. */
    const int *callsites = cg.callsites, *calls_out = cg.calls_out;
    uint8_t *unmemo = cc_xcalloc((size_t)n + 1, 1), *recursive = cc_xcalloc((size_t)n + 1, 1);
    int *rcomp = cc_xcalloc((size_t)n + 1, sizeof(int)), *rsize = cc_xcalloc((size_t)n + 1, sizeof(int));
    for (int r = 0; r < n; r++)
        unmemo[r] = a.cyclic[r] ? !leader[r] : (callsites[r] < 2 || calls_out[r] == 0);
    cc_graph rest;                                  /* the calls among those rules */
    cc_graph_init(&rest, n);
    for (int r = 0; r < n; r++)
        for (int i = 0; unmemo[r] && i < cg.calls.nadj[r]; i++)
            if (unmemo[cg.calls.adj[r][i]]) cc_graph_add(&rest, r, cg.calls.adj[r][i]);
    cc_graph_components(&rest, rcomp);
    for (int r = 0; r < n; r++) rsize[rcomp[r]]++;
    for (int r = 0; r < n; r++) recursive[r] = rsize[rcomp[r]] > 1 || cc_graph_has(&rest, r, r);

    /* the rules that call, at any depth, a rule of a left-recursive cycle */
    uint8_t *reaches = cc_xcalloc((size_t)n + 1, 1);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int r = 0; r < n; r++)
            for (int i = 0; !reaches[r] && i < cg.calls.nadj[r]; i++) {
                int c = cg.calls.adj[r][i];
                if (a.cyclic[c] || reaches[c]) reaches[r] = changed = 1;
            }
    }

    int ndef = 0;
    for (int r = 0; r < n; r++) {
        cc_rule *rule = &g->rules[r];
        uint32_t f = 0;
        if (a.nullable[r]) f |= RULE_NULLABLE;
        if (a.nofail[r]) f |= RULE_NOFAIL;
        if (a.cyclic[r]) f |= RULE_CYCLIC;
        if (leader[r]) f |= RULE_LEADER;
        if (reaches[r]) f |= RULE_REACHES_CYCLE;
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

    cc_graph_free(&a.left); cc_graph_free(&rest);
    cc_callgraph_free(&cg);
    cc_free(a.nullable); cc_free(a.nofail); cc_free(a.cyclic); cc_free(a.local);
    cc_free(comp); cc_free(leader);
    cc_free(rcomp); cc_free(rsize); cc_free(recursive); cc_free(unmemo); cc_free(reaches);
}
