/* Graphs of rules (compiler/graph.c): adjacency lists without duplicate edges,
 * strongly connected components, the graph of every call among a grammar's
 * rules in the order that puts callees first, and least fixed points of rule-wise
 * equations solved in that order, so that every analysis over the rules takes
 * time linear in the grammar (docs/architecture.md, Static analysis). Every
 * table is a block of the front end (ast.h). */
#ifndef PEGO_CC_GRAPH_H
#define PEGO_CC_GRAPH_H

#include <stdint.h>

#include "ast.h"

/* A directed graph of n nodes: adj[v][0 .. nadj[v] - 1] are v's successors, in
 * the order added, each once. */
typedef struct {
    int    n;
    int  **adj;
    int   *nadj, *capadj;
    int   *mark;            /* mark[w] == stamp: w is a successor of node `filling` */
    int    stamp, filling;
} cc_graph;

void cc_graph_init(cc_graph *g, int n);
void cc_graph_free(cc_graph *g);
void cc_graph_clear(cc_graph *g, int v);        /* drops v's edges */
/* Adds the edge v -> w unless there is one: in constant time while the edges
 * added are those of one node after another. */
void cc_graph_add(cc_graph *g, int v, int w);
int  cc_graph_has(const cc_graph *g, int v, int w);
void cc_graph_reverse(const cc_graph *g, cc_graph *rev);   /* rev: initialized here */

/* Tarjan's strongly connected components, iterative (a grammar with many rules
 * cannot exhaust the C stack): comp[v] receives v's component, numbered so that
 * a component comes after every component it reaches. Returns their number. */
int cc_graph_components(const cc_graph *g, int *comp);
/* The nodes 0 .. n - 1 grouped by component (comp, ncomp components), in node
 * order within one: component c is order[start[c] .. start[c + 1] - 1]. */
int *cc_group_components(const int *comp, int n, int ncomp, int **start);

/* The graph of every call among the rules (in bodies, attribute arguments and
 * Pratt expressions), its components, and what a worklist needs. */
typedef struct {
    cc_graph calls;         /* caller -> callee */
    cc_graph callers;       /* callee -> caller */
    int      ncomp;
    int     *comp;          /* component of each rule, callees' components first */
    int     *order;         /* the rules by component, in rule order within one */
    int     *start;         /* component c: order[start[c] .. start[c + 1] - 1] */
    int     *callsites;     /* per rule: the calls of it in the grammar */
    int     *calls_out;     /* per rule: the calls in its body */
    int     *queue;         /* worklist of cc_solve */
    uint8_t *queued;
} cc_callgraph;

void cc_callgraph_init(cc_callgraph *cg, const ast_grammar *ast);
void cc_callgraph_free(cc_callgraph *cg);
/* Component c is one rule that does not call itself. */
int  cc_callgraph_single(const cc_callgraph *cg, int c);

/* Solves rule-wise equations to their least fixed point: eval(ctx, r)
 * recomputes rule r's value from the values of the rules it calls and returns
 * nonzero when it grew (values start at the bottom and only grow). cc_solve
 * does it for every component in order, cc_solve_component for component c,
 * whose callees' values must be final: its rules each once, then again while a
 * rule it calls in c grows. */
typedef int (*cc_eval_fn)(void *ctx, int r);
void cc_solve(cc_callgraph *cg, cc_eval_fn eval, void *ctx);
void cc_solve_component(cc_callgraph *cg, int c, cc_eval_fn eval, void *ctx);

#endif
