/* Overshoot (docs/architecture.md, Deciding a syntax error): how far past its
 * end a match of an expression may record an expectation, as the reference
 * program runs it. The deciding run skips the iterations of a repetition that
 * the failed fast run matched (its claims); they record nothing at or past the
 * error when the error lies more than the iteration's overshoot past their
 * end.
 *
 * Every figure is a bound in bytes, OVERSHOOT_NONE when the analysis finds
 * none (or one above OVERSHOOT_CAP): for a match, the farthest position at
 * which it may record an expectation, past its end (its overshoot); for a
 * failed attempt, past where it began ("fail"); and the longest match ("len").
 * Terminals record at the position where they begin; a lookahead records
 * nothing inside. What fails at the byte it begins at records only there: an
 * expression whose first-byte set (compiler/first.c) does not hold the byte
 * fails, or matches empty, recording at most at its start. So a choice's
 * failed alternatives add nothing when the one that matched begins with other
 * bytes, or past the prefix they have in common with it; a repetition's last,
 * failed attempt adds nothing when what follows it begins with other bytes,
 * or past the prefix it has in common with that. These comparisons look into
 * the rules called (expand_call, over_rest). What the analysis does not
 * see through (Pratt expressions, predicates, #recover, level-restricted
 * calls) has no bound, nor has a call of a rule that reaches a left-recursive
 * cycle. A cut changes which failures are undone, not where anything records.
 *
 * A rule's figures are for a match followed by anything. Within a rule, an
 * expression's overshoot depends on what may follow it (its context's follow
 * set); its other figures do not, and are kept per expression for the rule's
 * evaluation (node_info), so that the analysis takes time about linear in the
 * size of the grammar. */
#include "program.h"

#include <string.h>

/* What does not depend on the context: the first-byte set, the overshoot
 * followed by anything, fail and len. */
typedef struct {
    const ast_expr *e;
    uint32_t        gen;
    cc_first        first;
    uint32_t        over_any, fail, len;
} node_info;

typedef struct {
    const ast_grammar  *ast;
    const pego_grammar *g;
    const cc_first     *rfirst;
    cc_overshoot       *rules;
    node_info          *tab;     /* open addressing by address; a slot of another gen is free */
    size_t              cap;
    uint32_t            gen, used;
    uint32_t           *evals;   /* per rule: its evaluations so far */
    const int          *comp;    /* each rule's recursive component; NULL: every figure is final */
    int                 current; /* the component of the rule being evaluated */
    int                 budget;  /* calls over_rest may still put in place of their rule bodies */
    int                 depth;   /* rule bodies put in place of calls, one inside another */
} solver;

/* A rule of a recursive component evaluated more often than this has the
 * figures that still grow widened to OVERSHOOT_NONE: a recursion that adds
 * to its length at every level would otherwise take a round per byte. */
enum { WIDEN_AFTER = 8 };

static uint32_t cap(uint64_t x) { return x > OVERSHOOT_CAP ? OVERSHOOT_NONE : (uint32_t)x; }
static uint32_t add(uint32_t a, uint32_t b)
{
    return a == OVERSHOOT_NONE || b == OVERSHOOT_NONE ? OVERSHOOT_NONE : cap((uint64_t)a + b);
}
static uint32_t mul(uint64_t n, uint32_t a)
{
    if (a == OVERSHOOT_NONE) return OVERSHOOT_NONE;
    return a && n > OVERSHOOT_CAP ? OVERSHOOT_NONE : cap(n * a);
}
static uint32_t max2(uint32_t a, uint32_t b) { return a > b ? a : b; }
static uint32_t min2(uint32_t a, uint32_t b) { return a < b ? a : b; }

static const node_info *info(solver *s, const ast_expr *e);
static uint32_t over(solver *s, const ast_expr *e, const cc_first *follow);

/* first, followed by follow (NULL: any byte) when it can match empty: the
 * bytes at which a match begins, into *out; NULL for any. */
static const cc_first *begins(const cc_first *first, const cc_first *follow, cc_first *out)
{
    if (!first->nullable) {
        *out = *first;
        return out;
    }
    if (!follow) return NULL;
    *out = *first;
    for (int w = 0; w < 8; w++) out->bits[w] |= follow->bits[w];
    return out;
}

/* A failed attempt of an expression with first-byte set first, at a byte of
 * set at (NULL: any): what it may record past where it began. */
static uint32_t fail_at(const cc_first *first, uint32_t fail, const cc_first *at)
{
    return at && cc_first_disjoint(first, at) ? 0 : fail;
}

/* The first-byte set of the sequence of n expressions. */
static void list_first(solver *s, ast_expr *const *kids, int n, cc_first *f)
{
    memset(f, 0, sizeof *f);
    f->nullable = 1;
    for (int i = 0; i < n && f->nullable; i++) {
        const cc_first *k = &info(s, kids[i])->first;
        for (int w = 0; w < 8; w++) f->bits[w] |= k->bits[w];
        f->nullable = k->nullable;
    }
}

/* The fail and len of the sequence of n expressions: kid i fails after the
 * kids before it matched, the last of which may have recorded past its end. */
static void list_fail(solver *s, ast_expr *const *kids, int n, uint32_t *fail, uint32_t *len)
{
    uint32_t prefix = 0, prev_over = 0;
    *fail = 0;
    for (int i = 0; i < n; i++) {
        const node_info *k = info(s, kids[i]);
        *fail = max2(*fail, add(prefix, max2(k->fail, prev_over)));
        prev_over = k->over_any;
        prefix = add(prefix, k->len);
    }
    *len = prefix;
}

/* An expression as a sequence: its kids, or itself alone. */
static ast_expr *const *as_list(ast_expr *const *e, int *n)
{
    if ((*e)->kind == AST_SEQ) {
        *n = (*e)->nkids;
        return (*e)->kids;
    }
    *n = 1;
    return e;
}

/* The common prefix of two sequences may run on inside the rules they call
 * (config's `assign = path ws "=" ...` and `call = path ws "(" ...`): where
 * they differ at a call, the call's rule body takes its place, at most
 * EXPAND_CALLS times per comparison, in sequences of at most EXPANDED_MAX
 * expressions. A body put in place is analysed with the same rules, and
 * may put bodies in place of its own calls: EXPAND_DEPTH levels at most,
 * which ends the analysis of rules that call each other so. */
enum { EXPAND_CALLS = 8, EXPANDED_MAX = 64, EXPAND_BUDGET = 32, EXPAND_DEPTH = 3 };

static int call_unbounded(const solver *s, const ast_expr *e);

/* Whether the analysis may put the rule body of e in its place: e is a call
 * with figures, of a rule whose figures are final (of a component solved
 * before the rule being evaluated, whose figures do not change while its
 * component is solved). */
static int expandable(const solver *s, const ast_expr *e)
{
    if (e->kind != AST_CALL || s->depth >= EXPAND_DEPTH || call_unbounded(s, e)) return 0;
    return !s->comp || s->comp[e->rule] != s->current;
}

/* The nb expressions before, then the body of rule r, then the na
 * expressions after, into out (EXPANDED_MAX places, which may hold before or
 * after; before may be NULL when nb is 0): their number, or 0 when they
 * would not fit. */
static int splice_body(const solver *s, int r, ast_expr *const *before, int nb, ast_expr *const *after, int na,
                       ast_expr **out)
{
    int nr;
    ast_expr *const *body = as_list(&s->ast->rules[r].body, &nr);
    int total = nb + nr + na;
    if (total > EXPANDED_MAX) return 0;
    ast_expr *list[EXPANDED_MAX];
    if (nb) memcpy(list, before, (size_t)nb * sizeof *list);      /* before may be NULL */
    memcpy(list + nb, body, (size_t)nr * sizeof *list);
    memcpy(list + nb + nr, after, (size_t)na * sizeof *list);
    memcpy(out, list, (size_t)total * sizeof *list);
    return total;
}

/* The sequence *l of *n expressions with the body of the call (*l)[c] in its
 * place, into buf; 0 when it would not fit. */
static int expand_call(const solver *s, ast_expr *const **l, int *n, int c, ast_expr **buf)
{
    int total = splice_body(s, (*l)[c]->rule, *l, c, *l + c + 1, *n - c - 1, buf);
    if (!total) return 0;
    *l = buf;
    *n = total;
    return 1;
}

/* An attempt of the sequence x (nx expressions) failed where the sequence y
 * (ny expressions, followed by follow) matched, at the same position: what x
 * may record past the end of their common prefix, which y matched too (so
 * past y's end at most). The common prefix matched alike in both, so x failed
 * after it; when x is all prefix, it matched, and nothing failed. */
static uint32_t failed_beside(solver *s, ast_expr *const *x, int nx, ast_expr *const *y, int ny,
                              const cc_first *follow)
{
    ast_expr *xbuf[EXPANDED_MAX], *ybuf[EXPANDED_MAX];
    int c = 0, expansions = 0;
    for (;; expansions++) {
        while (c < nx && c < ny && cc_same_expr(x[c], y[c])) c++;
        if (c == nx || c == ny || expansions == EXPAND_CALLS) break;
        if (expandable(s, x[c]) && expand_call(s, &x, &nx, c, xbuf)) continue;
        if (expandable(s, y[c]) && expand_call(s, &y, &ny, c, ybuf)) continue;
        break;
    }
    if (c == nx) return 0;
    s->depth += expansions > 0;
    uint32_t fail, len;
    list_fail(s, x + c, nx - c, &fail, &len);
    cc_first fx, fy, at;
    list_first(s, x + c, nx - c, &fx);
    list_first(s, y + c, ny - c, &fy);
    s->depth -= expansions > 0;
    return fail_at(&fx, fail, begins(&fy, follow, &at));
}

/* A repetition e of body x, or an option (at most one iteration): what its
 * iterations may record past its end, and its last, failed attempt. */
static uint32_t loop_iterations(solver *s, const ast_expr *e, const cc_first *follow)
{
    const ast_expr *x = e->kids[0];
    if (e->kind == AST_OPTIONAL) return over(s, x, follow);
    /* an iteration is followed by another one, or by what follows the loop */
    if (!follow) return over(s, x, NULL);
    cc_first set = info(s, x)->first;
    for (int w = 0; w < 8; w++) set.bits[w] |= follow->bits[w];
    set.nullable = 0;
    return over(s, x, &set);
}

static uint32_t loop_final(solver *s, const ast_expr *e, const cc_first *follow)
{
    const node_info *x = info(s, e->kids[0]);
    return fail_at(&x->first, x->fail, follow);
}

static uint32_t list_over(solver *s, ast_expr *const *kids, int n, const cc_first *follow);

/* A bound of what e records past the end of a sequence in which the n
 * expressions rest follow e, and then follow (fo: the bytes that may follow
 * e). Its overshoot is one; when e is a call (with a capture or discard
 * around it), so is the overshoot of its rule body followed by rest: a loop
 * at the end of a rule body then meets what follows the call (`args = value
 * (ws "," ws value)*` in `call = ... args? ws ")"`: a last attempt records
 * where ws ")" matched, not past it). At most EXPAND_BUDGET calls per rule
 * evaluation are put in place of their bodies so. */
static uint32_t over_rest(solver *s, const ast_expr *e, ast_expr *const *rest, int n, const cc_first *follow,
                          const cc_first *fo)
{
    uint32_t o = over(s, e, fo);
    const ast_expr *c = e;
    while (c->kind == AST_CAPTURE || c->kind == AST_DISCARD || c->kind == AST_ATOMIC) c = c->kids[0];
    if (n == 0 || o == 0 || s->budget <= 0 || !expandable(s, c)) return o;
    ast_expr *list[EXPANDED_MAX];
    int total = splice_body(s, c->rule, NULL, 0, rest, n, list);
    if (!total) return o;
    s->budget--;
    s->depth++;
    uint32_t inside = list_over(s, list, total, follow);
    s->depth--;
    return min2(o, inside);
}

/* The overshoot of a sequence of n expressions followed by follow. */
static uint32_t list_over(solver *s, ast_expr *const *kids, int n, const cc_first *follow)
{
    uint32_t result = 0;
    cc_first next = { { 0 }, 1 }, at;
    const cc_first *fo = follow;         /* what may follow kid i */
    for (int i = n - 1; i >= 0; i--) {
        const ast_expr *k = kids[i];
        uint32_t o;
        if (k->kind == AST_REPEAT || k->kind == AST_OPTIONAL) {
            /* its last attempt failed where the kids after it matched: past
             * their common prefix at most */
            uint32_t final = loop_final(s, k, fo);
            if (i + 1 < n) {
                int nx;
                ast_expr *const *x = as_list(&k->kids[0], &nx);
                final = min2(final, failed_beside(s, x, nx, kids + i + 1, n - i - 1, follow));
            }
            uint32_t iterations = k->kind == AST_OPTIONAL
                ? over_rest(s, k->kids[0], kids + i + 1, n - i - 1, follow, fo)
                : loop_iterations(s, k, fo);
            o = max2(iterations, final);
        } else {
            o = over_rest(s, k, kids + i + 1, n - i - 1, follow, fo);
        }
        result = max2(result, o);
        /* what may follow kid i - 1: kid i's first bytes, and what follows
         * kid i when it can match empty */
        const cc_first *kf = &info(s, k)->first;
        if (!kf->nullable) {
            next = *kf;
            fo = &next;
        } else if (fo) {
            fo = begins(kf, fo, &at);
            next = *fo;
            fo = &next;
        }
    }
    return result;
}

/* The alternatives before alternative j that failed_beside compares with it;
 * for those before them, the larger fail of any whose first bytes the
 * alternative that matched may begin with bounds what they record (a bound
 * without the common prefix), which keeps a long choice's analysis linear. */
enum { PREFIX_WINDOW = 16 };

static uint32_t choice_over(solver *s, const ast_expr *e, const cc_first *follow)
{
    uint32_t result = 0, older_any = 0, older[256] = { 0 };
    for (int j = 0; j < e->nkids; j++) {
        /* alternative j matched: those before it failed at the same
         * position, past what they have in common with it at most */
        int ny;
        ast_expr *const *y = as_list(&e->kids[j], &ny);
        result = max2(result, over(s, e->kids[j], follow));
        int from = j > PREFIX_WINDOW ? j - PREFIX_WINDOW : 0;
        if (from > 0) {
            /* alternative from - 1 leaves the window */
            const node_info *k = info(s, e->kids[from - 1]);
            uint32_t fail = k->fail;
            cc_first first = k->first;
            older_any = max2(older_any, fail);
            for (unsigned b = 0; b < 256; b++)
                if (cc_first_has(&first, b)) older[b] = max2(older[b], fail);
            cc_first fy, at;
            list_first(s, y, ny, &fy);
            const cc_first *bj = begins(&fy, follow, &at);
            if (!bj) {
                result = max2(result, older_any);
            } else {
                for (unsigned b = 0; b < 256; b++)
                    if (cc_first_has(bj, b)) result = max2(result, older[b]);
            }
        }
        for (int i = from; i < j; i++) {
            int nx;
            ast_expr *const *x = as_list(&e->kids[i], &nx);
            result = max2(result, failed_beside(s, x, nx, y, ny, follow));
        }
    }
    return result;
}

/* Whether a call's figures are unbounded: a level-restricted call, or a call
 * of a rule whose matches depend on the seeds growing (the deciding run skips
 * no call that reaches a left-recursive cycle). */
static int call_unbounded(const solver *s, const ast_expr *e)
{
    return e->level || e->rule < 0 || (s->g->rules[e->rule].flags & (RULE_CYCLIC | RULE_REACHES_CYCLE));
}

static uint32_t over(solver *s, const ast_expr *e, const cc_first *follow)
{
    switch (e->kind) {
    case AST_LITERAL: case AST_CLASS: case AST_ANY: case AST_BOTTOM: case AST_TOP: case AST_ANCHOR:
    case AST_AND: case AST_NOT: case AST_CUT:
        return 0;
    case AST_SEQ:
        return list_over(s, e->kids, e->nkids, follow);
    case AST_CHOICE:
        return choice_over(s, e, follow);
    case AST_REPEAT: case AST_OPTIONAL:
        return max2(loop_iterations(s, e, follow), loop_final(s, e, follow));
    case AST_CAPTURE: case AST_ATOMIC: case AST_DISCARD:
        return over(s, e->kids[0], follow);
    case AST_ATTRIBUTE:
        /* #error's message replaces what its expression recorded */
        return strcmp(e->name, "error") == 0 ? over(s, e->kids[0], follow) : OVERSHOOT_NONE;
    case AST_CALL:
        return call_unbounded(s, e) ? OVERSHOOT_NONE : s->rules[e->rule].over;
    case AST_PREDICATE: case AST_PRATT:
        return OVERSHOOT_NONE;
    }
    return OVERSHOOT_NONE;
}

/* The longest character of a class, in bytes: one when all its members are
 * ASCII, else four (an invalid byte reads as one character, U+FFFD). */
static uint32_t class_bytes(const ast_expr *e)
{
    if (e->negated) return 4;
    for (int i = 0; i < e->nranges; i++)
        if (e->ranges[i].hi >= 0x80) return 4;
    return 1;
}

/* fail and len of e. */
static void fail_len(solver *s, const ast_expr *e, uint32_t *fail, uint32_t *len)
{
    *fail = 0;
    switch (e->kind) {
    case AST_LITERAL: *len = cap(e->len); return;
    case AST_CLASS: *len = class_bytes(e); return;
    case AST_ANY: *len = 4; return;                  /* one character: up to four bytes */
    case AST_BOTTOM: case AST_TOP: case AST_ANCHOR: case AST_AND: case AST_NOT: case AST_CUT:
        *len = 0;
        return;
    case AST_SEQ:
        list_fail(s, e->kids, e->nkids, fail, len);
        return;
    case AST_CHOICE:
        *len = 0;
        for (int i = 0; i < e->nkids; i++) {
            const node_info *k = info(s, e->kids[i]);
            *fail = max2(*fail, k->fail);
            *len = max2(*len, k->len);
        }
        return;
    case AST_REPEAT: case AST_OPTIONAL: {
        const node_info *k = info(s, e->kids[0]);
        if (e->kind == AST_OPTIONAL) {
            *len = k->len;
            return;
        }
        /* fewer than min iterations matched */
        if (e->min > 0) *fail = max2(k->fail, add(mul((uint64_t)e->min - 1, k->len), max2(k->fail, k->over_any)));
        *len = e->max < 0 ? (k->len ? OVERSHOOT_NONE : 0) : mul((uint64_t)e->max, k->len);
        return;
    }
    case AST_CAPTURE: case AST_ATOMIC: case AST_DISCARD: {
        const node_info *k = info(s, e->kids[0]);
        *fail = k->fail;
        *len = k->len;
        return;
    }
    case AST_ATTRIBUTE:
        if (strcmp(e->name, "error") == 0) {
            const node_info *k = info(s, e->kids[0]);
            *fail = k->fail;
            *len = k->len;
            return;
        }
        break;
    case AST_CALL:
        if (call_unbounded(s, e)) break;
        *fail = s->rules[e->rule].fail;
        *len = s->rules[e->rule].len;
        return;
    case AST_PREDICATE: case AST_PRATT:
        break;
    }
    *fail = *len = OVERSHOOT_NONE;
}

static size_t slot_of(const solver *s, const ast_expr *e)
{
    uintptr_t h = (uintptr_t)e;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29)) & (s->cap - 1);
}

static const node_info *info(solver *s, const ast_expr *e)
{
    if (2 * (size_t)(s->used + 1) > s->cap) {     /* grow: the current generation moves */
        node_info *old = s->tab;
        size_t n = s->cap;
        s->cap = n ? 2 * n : 64;
        s->tab = cc_xcalloc(s->cap, sizeof *s->tab);
        s->used = 0;
        for (size_t i = 0; i < n; i++) {
            if (!old[i].e || old[i].gen != s->gen) continue;
            size_t k = slot_of(s, old[i].e);
            while (s->tab[k].e && s->tab[k].gen == s->gen) k = (k + 1) & (s->cap - 1);
            s->tab[k] = old[i];
            s->used++;
        }
        cc_free(old);
    }
    size_t k = slot_of(s, e);
    while (s->tab[k].e && s->tab[k].gen == s->gen) {
        if (s->tab[k].e == e) return &s->tab[k];
        k = (k + 1) & (s->cap - 1);
    }
    node_info n = { e, s->gen, { { 0 }, 0 }, 0, 0, 0 };
    cc_first_expr(s->ast, s->rfirst, e, &n.first);
    fail_len(s, e, &n.fail, &n.len);
    n.over_any = over(s, e, NULL);
    /* the computation above may have grown the table */
    k = slot_of(s, e);
    while (s->tab[k].e && s->tab[k].gen == s->gen) k = (k + 1) & (s->cap - 1);
    s->tab[k] = n;
    s->used++;
    return &s->tab[k];
}

/* A new generation: every kept figure is stale (a rule's changed). */
static void forget(solver *s)
{
    s->gen++;
    s->used = 0;
}

static int eval_rule(void *ctx, int rule)
{
    solver *s = ctx;
    forget(s);
    s->current = s->comp[rule];
    s->budget = EXPAND_BUDGET;
    const node_info *n = info(s, s->ast->rules[rule].body);
    cc_overshoot o = { n->over_any, n->fail, n->len }, *was = &s->rules[rule];
    /* a rule of a left-recursive cycle records what all its growth rounds
     * recorded, not only the one whose match it keeps */
    if (s->g->rules[rule].flags & (RULE_CYCLIC | RULE_REACHES_CYCLE))
        o = (cc_overshoot){ OVERSHOOT_NONE, OVERSHOOT_NONE, OVERSHOOT_NONE };
    if (++s->evals[rule] > WIDEN_AFTER) {
        if (o.over > was->over) o.over = OVERSHOOT_NONE;
        if (o.fail > was->fail) o.fail = OVERSHOOT_NONE;
        if (o.len > was->len) o.len = OVERSHOOT_NONE;
    }
    if (memcmp(&o, was, sizeof o) == 0) return 0;
    s->rules[rule] = o;
    return 1;
}

void cc_overshoot_rules(const ast_grammar *ast, const pego_grammar *g, cc_callgraph *cg, const cc_first *rfirst,
                        cc_overshoot *rules)
{
    solver s = { ast, g, rfirst, rules, NULL, 0, 1, 0, NULL, cg->comp, -1, EXPAND_BUDGET, 0 };
    memset(rules, 0, (size_t)ast->nrules * sizeof *rules);
    s.evals = cc_xcalloc((size_t)ast->nrules + 1, sizeof *s.evals);
    cc_solve(cg, eval_rule, &s);
    cc_free(s.tab);
    cc_free(s.evals);
}

uint32_t cc_overshoot_iteration(const ast_grammar *ast, const pego_grammar *g, const cc_first *rfirst,
                                const cc_overshoot *rules, const ast_expr *repeat)
{
    solver s = { ast, g, rfirst, (cc_overshoot *)rules, NULL, 0, 1, 0, NULL, NULL, -1, EXPAND_BUDGET, 0 };
    uint32_t o = over(&s, repeat->kids[0], NULL);
    cc_free(s.tab);
    return o;
}
