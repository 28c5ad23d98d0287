/* Definition and reference checks of a parsed grammar (docs/language.md A.4, A.6, 1.4,
 * 1.9, 3.1, 4.1, 7.1): duplicate, reserved and badly named definitions, undefined
 * rules (resolving AST_CALL.rule), misplaced captures and captures without a value,
 * level-restricted calls, attributes and their arguments, #stream placement and
 * Pratt structure, with the definition errors of Tier 6 (compiler/typecheck.c,
 * which then checks the types). When all that passes, it refuses the constructs
 * the engine does not implement yet, listed in one table below. */
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "intern.h"
#include "../runtime/unicode.h"

/* Features the engine does not implement yet: every occurrence is refused with
 * "not supported yet: <feature>". Remove a feature from here once it is implemented. */
static const char *const not_supported[] = {
    NULL
};

#ifdef PEGO_FAULT_INJECTION
int cc_fault_skip_typecheck;
#endif

/* ---- names -> definitions ---- */

static int same_rule(const void *ctx, uint32_t entry, const void *name)
{
    return strcmp(((const ast_grammar *)ctx)->rules[entry].name, name) == 0;
}

static int same_type(const void *ctx, uint32_t entry, const void *name)
{
    return strcmp(((const ast_grammar *)ctx)->types[entry].name, name) == 0;
}

static int same_level(const void *ctx, uint32_t entry, const void *name)
{
    return strcmp(((const ast_pratt *)ctx)->levels[entry].name, name) == 0;
}

static uint32_t name_hash(const char *name) { return cc_hash(name, strlen(name)); }

/* ---- the checker ---- */

typedef struct {
    ast_grammar *g;
    cc_errors   *errs;
    cc_index     rules;       /* rule definitions by name */
    const ast_rule *rule;     /* the rule being walked */
    int          nstreams;    /* #stream attributes seen in its body */
    const ast_expr **top;     /* its top-level expressions by address, once a #stream needs them */
    int          ntop;
} checker;

typedef struct {
    int noscope;              /* inside @, -, ! or a skip: captures have no effect */
    int in_op;                /* inside a Pratt operator part: lhs, rhs, op are reserved */
} context;

static int is_attr(const ast_expr *e, const char *name)
{
    return e->kind == AST_ATTRIBUTE && strcmp(e->name, name) == 0;
}

/* e without the #error labels around it (#error may label a #stream repetition). */
static const ast_expr *unlabeled(const ast_expr *e)
{
    while (is_attr(e, "error")) e = e->kids[0];
    return e;
}

/* Whether an element has a value slot (1.4). */
static int has_value(const ast_expr *e)
{
    switch (e->kind) {
    case AST_ANCHOR: case AST_CUT: case AST_DISCARD: case AST_BOTTOM: case AST_AND: case AST_NOT:
    case AST_PREDICATE:
        return 0;
    case AST_CAPTURE: case AST_ATTRIBUTE:
        return has_value(e->kids[0]);
    default:
        return 1;
    }
}

/* e without the #error and #recover attributes around it. */
static const ast_expr *unwrapped(const ast_expr *e)
{
    while (is_attr(e, "error") || is_attr(e, "recover")) e = e->kids[0];
    return e;
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(const ast_expr *const *)a, y = (uintptr_t)*(const ast_expr *const *)b;
    return (x > y) - (x < y);
}

/* Whether the #stream attribute e is at the top level of the rule body (7.1): the
 * body itself, an item of its top-level sequence, or what such an item captures,
 * possibly labeled with #error (a #recover around it has its own error). The
 * rule's top-level expressions are listed once, sorted, and searched. */
static int stream_at_top(checker *c, const ast_expr *e)
{
    const ast_expr *body = c->rule->body;
    if (!c->top) {
        c->ntop = body->kind == AST_SEQ ? body->nkids : 1;
        c->top = cc_xmalloc(((size_t)c->ntop + 1) * sizeof *c->top);
        for (int i = 0; i < c->ntop; i++) {
            const ast_expr *item = unwrapped(body->kind == AST_SEQ ? body->kids[i] : body);
            if (item->kind == AST_CAPTURE) item = unwrapped(item->kids[0]);
            c->top[i] = item;
        }
        qsort(c->top, (size_t)c->ntop, sizeof *c->top, by_address);
    }
    return bsearch(&e, c->top, (size_t)c->ntop, sizeof *c->top, by_address) != NULL;
}

static void walk(checker *c, ast_expr *e, context cx);

static const ast_attr_arg *find_arg(const ast_expr *a, const char *name)
{
    for (int i = 0; i < a->nargs; i++)
        if (strcmp(a->args[i].name, name) == 0) return &a->args[i];
    return NULL;
}

/* Argument names of #error and #recover: only `allowed`, at most once. */
static void check_arg_names(checker *c, const ast_expr *a, const char *allowed)
{
    int seen = 0;
    for (int i = 0; i < a->nargs; i++) {
        const ast_attr_arg *arg = &a->args[i];
        if (strcmp(arg->name, allowed) != 0)
            cc_errors_add(c->errs, arg->line, arg->col, "#%s has no argument %s", a->name, arg->name);
        else if (seen++)
            cc_errors_add(c->errs, arg->line, arg->col, "duplicate argument %s in #%s", arg->name, a->name);
    }
}

static void check_attribute(checker *c, ast_expr *a, context cx)
{
    const ast_expr *kid = unlabeled(a->kids[0]);
    int line = a->op_line, col = a->op_col;
    if (strcmp(a->name, "error") == 0) {
        check_arg_names(c, a, "message");
        const ast_attr_arg *m = find_arg(a, "message");
        if (!m) cc_errors_add(c->errs, line, col, "#error requires a message argument");
        else if (m->value->kind != AST_LITERAL)
            cc_errors_add(c->errs, m->value->line, m->value->col, "#error: message must be a string");
    } else if (strcmp(a->name, "recover") == 0) {
        check_arg_names(c, a, "skip");
        if (!find_arg(a, "skip")) cc_errors_add(c->errs, line, col, "#recover requires a skip argument");
        if (is_attr(kid, "stream"))
            cc_errors_add(c->errs, line, col,
                          "#recover cannot wrap a #stream repetition; recover inside each element instead");
    } else if (strcmp(a->name, "stream") == 0) {
        if (a->nargs > 0) cc_errors_add(c->errs, line, col, "#stream takes no arguments");
        if (is_attr(kid, "recover"))
            cc_errors_add(c->errs, kid->op_line, kid->op_col,
                          "#recover cannot wrap a #stream repetition; recover inside each element instead");
        else if (kid->kind != AST_REPEAT)
            cc_errors_add(c->errs, line, col, "#stream must be attached to a repetition (*, +, or {n,m})");
        if (!stream_at_top(c, a))
            cc_errors_add(c->errs, line, col, "#stream is only allowed at the top level of a rule body");
        if (++c->nstreams > 1)
            cc_errors_add(c->errs, line, col, "a rule body can have only one #stream");
    } else {
        cc_errors_add(c->errs, line, col, "unknown attribute #%s", a->name);
    }
    for (int i = 0; i < a->nargs; i++) {
        context ax = cx;
        if (strcmp(a->name, "recover") == 0 && strcmp(a->args[i].name, "skip") == 0) ax.noscope = 1;
        walk(c, a->args[i].value, ax);
    }
}

static void check_call(checker *c, ast_expr *e)
{
    e->rule = cc_index_find(&c->rules, name_hash(e->name), same_rule, c->g, e->name);
    if (e->rule < 0) {
        cc_errors_add(c->errs, e->line, e->col, "undefined rule %s", e->name);
        return;
    }
    if (!e->level) return;
    const ast_expr *body = c->g->rules[e->rule].body;
    if (body->kind != AST_PRATT) {
        cc_errors_add(c->errs, e->line, e->col, "rule %s has no pratt levels", e->name);
        return;
    }
    for (int i = 0; i < body->pratt->nlevels; i++) {
        const char *name = body->pratt->levels[i].name;
        if (name && strcmp(name, e->level) == 0) return;
    }
    cc_errors_add(c->errs, e->line, e->col, "rule %s has no level %s", e->name, e->level);
}

static void check_pratt(checker *c, ast_expr *e, context cx)
{
    ast_pratt *pr = e->pratt;
    if (e != c->rule->body)
        cc_errors_add(c->errs, e->line, e->col, "pratt is only allowed as the whole body of a rule");
    if (pr->noperands == 0)
        cc_errors_add(c->errs, e->line, e->col, "pratt needs at least one operand");
    if (pr->skip) {
        context sx = cx;
        sx.noscope = 1;
        walk(c, pr->skip, sx);
    }
    for (int i = 0; i < pr->noperands; i++) walk(c, pr->operands[i].expr, cx);
    cc_index names = { 0 };                 /* the level names so far */
    for (int i = 0; i < pr->nlevels; i++) {
        ast_pratt_level *l = &pr->levels[i];
        if (l->name && cc_index_find(&names, name_hash(l->name), same_level, pr, l->name) >= 0)
            cc_errors_add(c->errs, l->name_line, l->name_col, "duplicate level name %s", l->name);
        else if (l->name)
            cc_index_add(&names, name_hash(l->name), (uint32_t)i);
        context ox = cx;
        ox.in_op = 1;
        for (int j = 0; j < l->nops; j++) walk(c, l->ops[j].expr, ox);
    }
    cc_index_free(&names);
}

static void check_capture(checker *c, ast_expr *e, context cx)
{
    if (cx.noscope)
        cc_errors_add(c->errs, e->line, e->col, "capture %s inside @, -, or ! has no effect", e->name);
    else if (!has_value(e->kids[0]))
        cc_errors_add(c->errs, e->line, e->col, "capture %s of an expression without a value", e->name);
    if (cx.in_op && (!strcmp(e->name, "lhs") || !strcmp(e->name, "rhs") || !strcmp(e->name, "op")))
        cc_errors_add(c->errs, e->line, e->col, "capture name %s is reserved in pratt operators", e->name);
}

/* Checks e and everything in it, in source order. */
static void walk(checker *c, ast_expr *e, context cx)
{
    switch (e->kind) {
    case AST_CALL:
        check_call(c, e);
        return;
    case AST_CAPTURE:
        check_capture(c, e, cx);
        break;
    case AST_ATOMIC: case AST_DISCARD: case AST_NOT:
        cx.noscope = 1;
        break;
    case AST_ATTRIBUTE:
        walk(c, e->kids[0], cx);
        check_attribute(c, e, cx);
        return;
    case AST_PRATT:
        check_pratt(c, e, cx);
        return;
    default:
        break;
    }
    for (int i = 0; i < e->nkids; i++) walk(c, e->kids[i], cx);
}

/* ---- definitions in source order ---- */

cc_definition *cc_definitions(const ast_grammar *g)
{
    cc_definition *d = cc_xmalloc((size_t)(g->nrules + g->ntypes) * sizeof *d);
    int r = 0, t = 0, n = 0;
    while (r < g->nrules || t < g->ntypes) {
        const ast_rule *rr = r < g->nrules ? &g->rules[r] : NULL;
        const ast_typedef *tt = t < g->ntypes ? &g->types[t] : NULL;
        int type_first = tt && (!rr || tt->def_line < rr->def_line ||
                                (tt->def_line == rr->def_line && tt->def_col < rr->def_col));
        if (type_first) d[n++] = (cc_definition){ 1, t++, tt->def_line, tt->def_col };
        else d[n++] = (cc_definition){ 0, r++, rr->def_line, rr->def_col };
    }
    return d;
}

int cc_is_reserved_type(const char *name)
{
    static const char *const reserved[] = {
        "int", "string", "bool", "node", "terminal", "Match", "Seq", "List", "Operator", "Error", NULL
    };
    for (const char *const *r = reserved; *r; r++)
        if (strcmp(*r, name) == 0) return 1;
    return 0;
}

/* Collects the definitions, reporting duplicates and bad type names as it goes. */
static void collect(checker *c, const cc_definition *defs, int n)
{
    ast_grammar *g = c->g;
    cc_index types = { 0 };
    for (int i = 0; i < n; i++) {
        const cc_definition *d = &defs[i];
        if (!d->is_type) {
            const char *name = g->rules[d->index].name;
            if (cc_index_find(&c->rules, name_hash(name), same_rule, g, name) >= 0)
                cc_errors_add(c->errs, d->line, d->col, "rule %s is already defined", name);
            else
                cc_index_add(&c->rules, name_hash(name), (uint32_t)d->index);
            continue;
        }
        const char *name = g->types[d->index].name;
        uint32_t first;
        rt_unicode_decode((const unsigned char *)name, strlen(name), &first);
        if (cc_is_reserved_type(name))
            cc_errors_add(c->errs, d->line, d->col, "type %s is reserved", name);
        else if (!rt_unicode_is_upper(first))
            cc_errors_add(c->errs, d->line, d->col, "type %s must start with an uppercase letter", name);
        else if (cc_index_find(&types, name_hash(name), same_type, g, name) >= 0)
            cc_errors_add(c->errs, d->line, d->col, "type %s is already defined", name);
        else
            cc_index_add(&types, name_hash(name), (uint32_t)d->index);
    }
    cc_index_free(&types);
}

static void check_rule(checker *c, const ast_rule *r)
{
    c->rule = r;
    c->nstreams = 0;
    context cx = { 0, 0 };
    walk(c, r->body, cx);
    cc_free(c->top);
    c->top = NULL;
    if (r->action && r->body->kind == AST_PRATT)
        cc_errors_add(c->errs, r->action_line, r->action_col,
                      "a pratt rule cannot have a rule-level action; put actions on its operands and operators");
}

/* ---- constructs not supported yet ---- */

static void refuse(cc_errors *out, const char *feature, int line, int col)
{
    for (const char *const *f = not_supported; *f; f++)
        if (strcmp(*f, feature) == 0) {
            cc_errors_add(out, line, col, "not supported yet: %s", feature);
            return;
        }
}

static void refuse_in(cc_errors *out, const ast_expr *e)
{
    switch (e->kind) {
    case AST_PRATT: {
        const ast_pratt *pr = e->pratt;
        refuse(out, "pratt", e->line, e->col);
        if (pr->skip) refuse_in(out, pr->skip);
        for (int i = 0; i < pr->noperands; i++) refuse_in(out, pr->operands[i].expr);
        for (int i = 0; i < pr->nlevels; i++)
            for (int j = 0; j < pr->levels[i].nops; j++) refuse_in(out, pr->levels[i].ops[j].expr);
        return;
    }
    case AST_ATTRIBUTE:
        if (!strcmp(e->name, "error") || !strcmp(e->name, "recover") || !strcmp(e->name, "stream")) {
            char feature[16] = "#";
            strncat(feature, e->name, sizeof feature - 2);
            refuse(out, feature, e->op_line, e->op_col);
        }
        for (int i = 0; i < e->nargs; i++) refuse_in(out, e->args[i].value);
        break;
    case AST_CALL:
        if (e->level) refuse(out, "level-restricted calls", e->line, e->col);
        break;
    default:
        break;
    }
    for (int i = 0; i < e->nkids; i++) refuse_in(out, e->kids[i]);
}

static int by_position(const void *a, const void *b)
{
    const cc_error *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return 0;
}

/* Adds the refusals of every definition, in source order. */
static void refuse_unsupported(checker *c, const cc_definition *defs, int n)
{
    cc_errors *out = c->errs;
    for (int i = 0; i < n; i++) {
        int from = out->n;
        if (!defs[i].is_type) refuse_in(out, c->g->rules[defs[i].index].body);
        /* no two refusals share a position, so the unstable sort is enough */
        if (out->n - from > 1) qsort(out->items + from, (size_t)(out->n - from), sizeof *out->items, by_position);
    }
}

/* Merges the errors items[from .. mid - 1] and items[mid .. n - 1], each in
 * source order, into one list in source order: the type checker's definition
 * errors among the others, rule by rule. */
static void merge_by_position(cc_errors *errs, int from, int mid)
{
    int n = errs->n;
    if (from == mid || mid == n) return;
    cc_error *out = cc_xmalloc((size_t)(n - from) * sizeof *out);
    int i = from, j = mid, k = 0;
    while (i < mid || j < n)
        out[k++] = j == n || (i < mid && by_position(&errs->items[j], &errs->items[i]) >= 0)
                   ? errs->items[i++] : errs->items[j++];
    memcpy(errs->items + from, out, (size_t)k * sizeof *out);
    cc_free(out);
}

int cc_check(ast_grammar *g, cc_errors *errs)
{
    int base = errs->n;
    checker c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.errs = errs;
    int n = g->nrules + g->ntypes;
    cc_definition *defs = cc_definitions(g);
    collect(&c, defs, n);
    int from = errs->n;
    for (int i = 0; i < n; i++)
        if (!defs[i].is_type) check_rule(&c, &g->rules[defs[i].index]);
    int typed = errs->n;
#ifdef PEGO_FAULT_INJECTION
    if (!cc_fault_skip_typecheck)
#endif
    cc_typecheck(g, errs);
    merge_by_position(errs, from, typed);
    if (errs->n == base) refuse_unsupported(&c, defs, n);
    cc_errors_cap(errs, base);
    cc_free(defs);
    cc_index_free(&c.rules);
    return errs->n - base;
}
