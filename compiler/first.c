/* First-byte sets (docs/architecture.md), for the fast program: which input bytes
 * can begin a non-empty match of an expression, and whether it can match the
 * empty string. The sets are conservative: a byte outside the set never begins
 * a match, so an expression that cannot match empty fails at once there (and at
 * the end of the input). Lookaheads and anchors count as matching empty; what
 * the analysis cannot see through (Pratt expressions, #recover) counts as
 * matching anything. */
#include "program.h"

#include <string.h>

static void set_all(cc_first *f)
{
    memset(f->bits, 0xff, sizeof f->bits);
    f->nullable = 1;
}

static void add_byte(cc_first *f, unsigned b) { f->bits[b >> 5] |= 1u << (b & 31); }

static void add_high(cc_first *f)
{
    for (int w = 4; w < 8; w++) f->bits[w] = 0xffffffffu;
}

static void unite(cc_first *to, const cc_first *from)
{
    for (int w = 0; w < 8; w++) to->bits[w] |= from->bits[w];
}

/* The bytes that can begin a character of the class: its ASCII members, and
 * every byte from 0x80 when a character from U+0080 can be a member (its lead
 * byte, or an invalid byte, which reads as U+FFFD). */
static void class_first(const ast_expr *e, cc_first *f)
{
    int high = e->negated;
    for (unsigned ch = 0; ch < 128; ch++) {
        int in = 0;
        for (int i = 0; i < e->nranges && !in; i++) in = ch >= e->ranges[i].lo && ch <= e->ranges[i].hi;
        if (in != e->negated) add_byte(f, ch);
    }
    for (int i = 0; i < e->nranges; i++)
        if (e->ranges[i].hi >= 128) high = 1;
    if (high) add_high(f);
}

void cc_first_expr(const ast_grammar *ast, const cc_first *rules, const ast_expr *e, cc_first *f)
{
    memset(f, 0, sizeof *f);
    switch (e->kind) {
    case AST_LITERAL:
        if (e->len == 0) { f->nullable = 1; return; }
        add_byte(f, (unsigned char)e->text[0]);
        /* U+FFFD in a literal also matches an invalid byte */
        if (e->len >= 3 && memcmp(e->text, "\xEF\xBF\xBD", 3) == 0) add_high(f);
        return;
    case AST_CLASS:
        class_first(e, f);
        return;
    case AST_ANY:
        memset(f->bits, 0xff, sizeof f->bits);
        return;
    case AST_BOTTOM:
        return;
    case AST_TOP: case AST_ANCHOR: case AST_CUT: case AST_AND: case AST_NOT:
        f->nullable = 1;
        return;
    case AST_SEQ:
        f->nullable = 1;
        for (int i = 0; i < e->nkids && f->nullable; i++) {
            cc_first k;
            cc_first_expr(ast, rules, e->kids[i], &k);
            unite(f, &k);
            f->nullable = k.nullable;
        }
        return;
    case AST_CHOICE:
        for (int i = 0; i < e->nkids; i++) {
            cc_first k;
            cc_first_expr(ast, rules, e->kids[i], &k);
            unite(f, &k);
            f->nullable |= k.nullable;
        }
        return;
    case AST_REPEAT:
        cc_first_expr(ast, rules, e->kids[0], f);
        if (e->min == 0) f->nullable = 1;
        return;
    case AST_OPTIONAL:
        cc_first_expr(ast, rules, e->kids[0], f);
        f->nullable = 1;
        return;
    case AST_CAPTURE: case AST_ATOMIC: case AST_DISCARD:
        cc_first_expr(ast, rules, e->kids[0], f);
        return;
    case AST_ATTRIBUTE:
        if (strcmp(e->name, "error") == 0) { cc_first_expr(ast, rules, e->kids[0], f); return; }
        set_all(f);
        return;
    case AST_CALL:
        if (e->level || e->rule < 0) { set_all(f); return; }
        *f = rules[e->rule];
        return;
    case AST_PREDICATE: case AST_PRATT:
        set_all(f);
        return;
    }
}

typedef struct {
    const ast_grammar *ast;
    cc_first          *rules;
} first_rules;

static int eval_first(void *ctx, int r)
{
    first_rules *fr = ctx;
    cc_first f;
    cc_first_expr(fr->ast, fr->rules, fr->ast->rules[r].body, &f);
    if (memcmp(&f, &fr->rules[r], sizeof f) == 0) return 0;
    fr->rules[r] = f;
    return 1;
}

/* The sets of every rule, as the least fixed point of the equations above
 * (left-recursive rules included: a rule's own set starts empty), solved
 * callees first (cc_solve). */
void cc_first_rules(const ast_grammar *ast, cc_callgraph *cg, cc_first *rules)
{
    first_rules fr = { ast, rules };
    memset(rules, 0, (size_t)ast->nrules * sizeof *rules);
    cc_solve(cg, eval_first, &fr);
}

int cc_first_has(const cc_first *f, unsigned b) { return (f->bits[b >> 5] >> (b & 31)) & 1; }

int cc_first_disjoint(const cc_first *a, const cc_first *b)
{
    for (int w = 0; w < 8; w++)
        if (a->bits[w] & b->bits[w]) return 0;
    return 1;
}

int cc_first_full(const cc_first *f)
{
    for (int w = 0; w < 8; w++)
        if (f->bits[w] != 0xffffffffu) return 0;
    return 1;
}
