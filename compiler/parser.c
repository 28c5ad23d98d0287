/* The grammar parser (docs/language.md A.4, A.5): recursive descent over the tokens of
 * lexer.c, building the AST of ast.h for the whole syntax (rules, types, Pratt
 * bodies, attributes, predicates, action terms). It reports syntax errors in the
 * "expected X, found Y" form, recovers at the next definition so that several
 * errors are reported, refuses source nested deeper than CC_MAX_NEST before
 * recursing, and returns the errors sorted by position, at most CC_MAX_ERRORS. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "lexer.h"

#define CC_MAX_NEST 500

typedef struct {
    const char  *src;
    cc_token    *t;
    int          ntok, i;
    cc_errors   *errs;        /* this parse's errors come after those already there, sorted at the end */
    int          nsyntax;     /* syntax errors reported */
    int          failed;      /* the current definition is abandoned */
    int          depth;
    ast_grammar *g;
    int          rules_cap, types_cap;
} parser;

/* ---- tokens ---- */

static const cc_token *tok(const parser *p) { return &p->t[p->i]; }

static const cc_token *peek(const parser *p, int k)
{
    int j = p->i + k;
    return &p->t[j < p->ntok ? j : p->ntok - 1];
}

static int is(const parser *p, cc_tok_kind k) { return tok(p)->kind == k; }

static void next(parser *p)
{
    if (p->t[p->i].kind != CC_TK_EOF) p->i++;
}

static int word_is(const parser *p, const cc_token *t, const char *w)
{
    size_t n = strlen(w);
    return t->kind == CC_TK_IDENT && t->end - t->off == n && memcmp(p->src + t->off, w, n) == 0;
}

static int in_list(const parser *p, const cc_token *t, const char *const *list)
{
    for (; *list; list++)
        if (word_is(p, t, *list)) return 1;
    return 0;
}

static const char *const keywords[] = {
    "def", "infix", "level", "new", "operand", "package", "postfix", "pratt", "prefix",
    "skip", "struct", "terminal", "type", NULL
};

/* Keywords that end a parsing sequence (A.3.2). */
static const char *const seq_end_words[] = {
    "package", "type", "def", "skip", "operand", "level", "prefix", "postfix", "infix", NULL
};

static char *text(const parser *p, const cc_token *t)
{
    return cc_xstrndup(p->src + t->off, t->end - t->off);
}

/* ---- errors ---- */

static void report_v(parser *p, int line, int col, const char *fmt, va_list ap)
{
    if (++p->nsyntax <= CC_MAX_ERRORS + 1) cc_errors_addv(p->errs, line, col, fmt, ap);
}

/* An error that does not disturb parsing (the definition is still read). */
static void report(parser *p, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void report(parser *p, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_v(p, line, col, fmt, ap);
    va_end(ap);
}

/* A syntax error that abandons the current definition. Always returns NULL. */
static void *fail(parser *p, const cc_token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void *fail(parser *p, const cc_token *t, const char *fmt, ...)
{
    if (!p->failed) {
        va_list ap;
        va_start(ap, fmt);
        report_v(p, t->line, t->col, fmt, ap);
        va_end(ap);
    }
    p->failed = 1;
    return NULL;
}

/* "expected <what>, found <current token>". Always returns NULL. */
static void *expected(parser *p, const char *what)
{
    const cc_token *t = tok(p);
    if (t->kind == CC_TK_EOF) return fail(p, t, "expected %s, found end of file", what);
    return fail(p, t, "expected %s, found '%.*s'", what, (int)(t->end - t->off), p->src + t->off);
}

/* The same for functions that return a success flag. Always returns 0. */
static int missing(parser *p, const char *what)
{
    expected(p, what);
    return 0;
}

/* Counts one level of nesting before recursing; fails past CC_MAX_NEST. */
static int enter(parser *p)
{
    if (p->depth >= CC_MAX_NEST) {
        fail(p, tok(p), "nesting too deep");
        return 0;
    }
    p->depth++;
    return 1;
}

static void leave(parser *p) { p->depth--; }

/* ---- arrays ---- */

/* Grows an array whose capacity is the next power of two of its length. */
static void *grow(void *arr, int n, size_t size)
{
    if (n > 0 && (n & (n - 1)) != 0) return arr;
    return cc_xrealloc(arr, (size_t)(n ? 2 * n : 1) * size);
}

static void add_kid(ast_expr *e, ast_expr *k)
{
    e->kids = grow(e->kids, e->nkids, sizeof *e->kids);
    e->kids[e->nkids++] = k;
}

static void add_term(ast_term *t, ast_term *k)
{
    t->kids = grow(t->kids, t->nkids, sizeof *t->kids);
    t->kids[t->nkids++] = k;
}

static void add_name(ast_term *t, char *name, const cc_token *at)
{
    t->names = grow(t->names, t->nnames, sizeof *t->names);
    t->name_lines = grow(t->name_lines, t->nnames, sizeof *t->name_lines);
    t->name_cols = grow(t->name_cols, t->nnames, sizeof *t->name_cols);
    t->name_lines[t->nnames] = at->line;
    t->name_cols[t->nnames] = at->col;
    t->names[t->nnames++] = name;
}

static ast_expr *mk_expr(ast_kind kind, int line, int col)
{
    ast_expr *e = cc_xcalloc(1, sizeof *e);
    e->kind = kind;
    e->line = line;
    e->col = col;
    e->rule = -1;
    return e;
}

static ast_expr *mk_at(ast_kind kind, const cc_token *t) { return mk_expr(kind, t->line, t->col); }

/* Wraps e in a unary construct that keeps e's position (postfix) or takes t's. */
static ast_expr *wrap(ast_kind kind, ast_expr *e, int line, int col)
{
    ast_expr *w = mk_expr(kind, line, col);
    add_kid(w, e);
    return w;
}

static ast_term *mk_term(term_kind kind, const cc_token *t)
{
    ast_term *x = cc_xcalloc(1, sizeof *x);
    x->kind = kind;
    x->line = t->line;
    x->col = t->col;
    return x;
}

static ast_type *mk_type(type_kind kind, const cc_token *t)
{
    ast_type *x = cc_xcalloc(1, sizeof *x);
    x->kind = kind;
    x->line = t->line;
    x->col = t->col;
    return x;
}

static void add_type(ast_type *t, ast_type *k)
{
    t->kids = grow(t->kids, t->nkids, sizeof *t->kids);
    t->kids[t->nkids++] = k;
}

/* ---- terms (A.5 Term) ---- */

static ast_term *parse_term(parser *p);

static ast_term *mk_binary(const cc_token *op, const parser *p, ast_term *l, ast_term *r)
{
    ast_term *b = cc_xcalloc(1, sizeof *b);
    b->kind = TERM_BINARY;
    b->line = l->line;
    b->col = l->col;
    b->sval = text(p, op);
    b->slen = op->end - op->off;
    add_term(b, l);
    add_term(b, r);
    return b;
}

/* Parses comma-separated terms up to the closing token (a trailing comma allowed). */
static int parse_term_list(parser *p, ast_term *into, cc_tok_kind close, const char *what)
{
    while (!is(p, close)) {
        ast_term *a = parse_term(p);
        if (!a) return 0;
        add_term(into, a);
        if (is(p, CC_TK_COMMA)) next(p);
        else if (!is(p, close)) return missing(p, what);
    }
    next(p);
    return 1;
}

static ast_term *parse_new(parser *p)
{
    const cc_token *start = tok(p);
    next(p);
    if (!is(p, CC_TK_IDENT)) return expected(p, "a type name");
    ast_term *n = mk_term(TERM_NEW, start);
    n->sval = text(p, tok(p));
    n->slen = strlen(n->sval);
    next(p);
    if (!is(p, CC_TK_LBRACE)) { ast_term_free(n); return expected(p, "'{'"); }
    if (!enter(p)) { ast_term_free(n); return NULL; }
    next(p);
    while (!is(p, CC_TK_RBRACE)) {
        if (!is(p, CC_TK_IDENT)) goto bad_field;
        const cc_token *at = tok(p);
        char *field = text(p, at);
        next(p);
        if (!is(p, CC_TK_COLON)) { cc_free(field); expected(p, "':'"); goto bad; }
        next(p);
        ast_term *v = parse_term(p);
        if (!v) { cc_free(field); goto bad; }
        add_name(n, field, at);
        add_term(n, v);
        if (is(p, CC_TK_COMMA)) next(p);
        else if (!is(p, CC_TK_RBRACE)) { expected(p, "',' or '}'"); goto bad; }
    }
    next(p);
    leave(p);
    return n;
bad_field:
    expected(p, "a field name or '}'");
bad:
    leave(p);
    ast_term_free(n);
    return NULL;
}

static ast_term *parse_term_primary(parser *p)
{
    const cc_token *t = tok(p);
    ast_term *x;
    switch (t->kind) {
    case CC_TK_INT:
        x = mk_term(TERM_INT, t);
        x->ival = t->ival;
        next(p);
        return x;
    case CC_TK_STRING:
        x = mk_term(TERM_STRING, t);
        x->sval = cc_xstrndup(t->val, t->vlen);
        x->slen = t->vlen;
        next(p);
        return x;
    case CC_TK_CAPREF:
        x = mk_term(TERM_CAPREF, t);
        x->sval = cc_xstrndup(p->src + t->off + 1, t->end - t->off - 1);
        x->slen = t->end - t->off - 1;
        next(p);
        return x;
    case CC_TK_LPAREN:
        if (!enter(p)) return NULL;
        next(p);
        x = parse_term(p);
        leave(p);
        if (!x) return NULL;
        if (!is(p, CC_TK_RPAREN)) { ast_term_free(x); return expected(p, "')'"); }
        next(p);
        return x;
    case CC_TK_IDENT:
        if (word_is(p, t, "new")) return parse_new(p);
        if (in_list(p, t, keywords)) return expected(p, "a term");
        if (peek(p, 1)->kind == CC_TK_LPAREN && peek(p, 1)->adjacent) {
            x = mk_term(TERM_CALL, t);
            x->sval = text(p, t);
            x->slen = strlen(x->sval);
            next(p);
            next(p);
            if (!enter(p)) { ast_term_free(x); return NULL; }
            int ok = parse_term_list(p, x, CC_TK_RPAREN, "',' or ')'");
            leave(p);
            if (!ok) { ast_term_free(x); return NULL; }
            return x;
        }
        x = mk_term(TERM_VAR, t);
        x->sval = text(p, t);
        x->slen = strlen(x->sval);
        next(p);
        return x;
    default:
        return expected(p, "a term");
    }
}

static ast_term *parse_member(parser *p)
{
    ast_term *x = parse_term_primary(p);
    int wraps = 0;
    while (x && is(p, CC_TK_DOT)) {
        if (!enter(p)) { ast_term_free(x); x = NULL; break; }
        wraps++;
        next(p);
        if (!is(p, CC_TK_IDENT)) { ast_term_free(x); x = expected(p, "a field name"); break; }
        ast_term *m = cc_xcalloc(1, sizeof *m);
        m->kind = TERM_MEMBER;
        m->line = x->line;
        m->col = x->col;
        m->sval = text(p, tok(p));
        m->slen = strlen(m->sval);
        add_term(m, x);
        x = m;
        next(p);
    }
    p->depth -= wraps;
    return x;
}

static ast_term *parse_unary(parser *p)
{
    const cc_token *t = tok(p);
    if (t->kind != CC_TK_MINUS && t->kind != CC_TK_BANG) return parse_member(p);
    if (!enter(p)) return NULL;
    next(p);
    ast_term *operand = parse_unary(p);
    leave(p);
    if (!operand) return NULL;
    ast_term *u = mk_term(TERM_UNARY, t);
    u->sval = text(p, t);
    u->slen = 1;
    add_term(u, operand);
    return u;
}

/* One left-associative binary level: operands from sub, operators of the given kinds. */
static ast_term *parse_binary_level(parser *p, ast_term *(*sub)(parser *), const cc_tok_kind *ops)
{
    ast_term *l = sub(p);
    int wraps = 0;
    while (l) {
        const cc_token *op = tok(p);
        const cc_tok_kind *k = ops;
        while (*k != CC_TK_EOF && *k != op->kind) k++;
        if (*k == CC_TK_EOF) break;
        if (!enter(p)) { ast_term_free(l); l = NULL; break; }
        wraps++;
        next(p);
        ast_term *r = sub(p);
        if (!r) { ast_term_free(l); l = NULL; break; }
        l = mk_binary(op, p, l, r);
    }
    p->depth -= wraps;
    return l;
}

static const cc_tok_kind mul_ops[] = { CC_TK_STAR, CC_TK_SLASH, CC_TK_PERCENT, CC_TK_EOF };
static const cc_tok_kind add_ops[] = { CC_TK_PLUS, CC_TK_MINUS, CC_TK_EOF };
static const cc_tok_kind cmp_ops[] = { CC_TK_EQ, CC_TK_NE, CC_TK_LT, CC_TK_LE, CC_TK_GT, CC_TK_GE, CC_TK_EOF };
static const cc_tok_kind and_ops[] = { CC_TK_ANDAND, CC_TK_EOF };
static const cc_tok_kind or_ops[] = { CC_TK_OROR, CC_TK_EOF };

static int is_cmp(cc_tok_kind k)
{
    for (const cc_tok_kind *c = cmp_ops; *c != CC_TK_EOF; c++)
        if (*c == k) return 1;
    return 0;
}

static ast_term *parse_mul(parser *p) { return parse_binary_level(p, parse_unary, mul_ops); }
static ast_term *parse_add(parser *p) { return parse_binary_level(p, parse_mul, add_ops); }

/* Comparisons do not chain (A.5): a < b < c is a syntax error. */
static ast_term *parse_cmp(parser *p)
{
    ast_term *l = parse_add(p);
    if (!l || !is_cmp(tok(p)->kind)) return l;
    const cc_token *op = tok(p);
    next(p);
    ast_term *r = parse_add(p);
    if (!r) { ast_term_free(l); return NULL; }
    l = mk_binary(op, p, l, r);
    if (is_cmp(tok(p)->kind)) {
        ast_term_free(l);
        return fail(p, tok(p), "comparison operators cannot be chained");
    }
    return l;
}

static ast_term *parse_and(parser *p) { return parse_binary_level(p, parse_cmp, and_ops); }
static ast_term *parse_or(parser *p) { return parse_binary_level(p, parse_and, or_ops); }

/* A '(' starts a lambda when it is followed by identifiers, ')' and '=>'. */
static int at_lambda(const parser *p)
{
    int k = 1;
    if (peek(p, k)->kind == CC_TK_IDENT) {
        k++;
        while (peek(p, k)->kind == CC_TK_COMMA && peek(p, k + 1)->kind == CC_TK_IDENT) k += 2;
    }
    return peek(p, k)->kind == CC_TK_RPAREN && peek(p, k + 1)->kind == CC_TK_FATARROW;
}

static ast_term *parse_term(parser *p)
{
    if (!is(p, CC_TK_LPAREN) || !at_lambda(p)) return parse_or(p);
    ast_term *l = mk_term(TERM_LAMBDA, tok(p));
    next(p);
    while (is(p, CC_TK_IDENT)) {
        add_name(l, text(p, tok(p)), tok(p));
        next(p);
        if (is(p, CC_TK_COMMA)) next(p);
    }
    next(p);                                   /* ) */
    next(p);                                   /* => */
    if (!enter(p)) { ast_term_free(l); return NULL; }
    ast_term *body = parse_term(p);
    leave(p);
    if (!body) { ast_term_free(l); return NULL; }
    add_term(l, body);
    return l;
}

/* ---- types (A.5 TypeExpr) ---- */

static ast_type *parse_type_expr(parser *p);

static ast_type *parse_type_term(parser *p)
{
    const cc_token *t = tok(p);
    ast_type *x;
    switch (t->kind) {
    case CC_TK_LIST:
    case CC_TK_STAR: {
        if (!enter(p)) return NULL;
        next(p);
        ast_type *k = parse_type_term(p);
        leave(p);
        if (!k) return NULL;
        x = mk_type(t->kind == CC_TK_LIST ? TYPE_LIST : TYPE_PTR, t);
        add_type(x, k);
        return x;
    }
    case CC_TK_LPAREN:
        if (!enter(p)) return NULL;
        next(p);
        x = parse_type_expr(p);
        leave(p);
        if (!x) return NULL;
        if (!is(p, CC_TK_RPAREN)) { ast_type_free(x); return expected(p, "')'"); }
        next(p);
        return x;
    case CC_TK_IDENT:
        x = mk_type(TYPE_NAME, t);
        x->name = text(p, t);
        next(p);
        return x;
    default:
        return expected(p, "a type");
    }
}

static ast_type *parse_type_expr(parser *p)
{
    ast_type *first = parse_type_term(p);
    if (!first || !is(p, CC_TK_PIPE)) return first;
    ast_type *u = cc_xcalloc(1, sizeof *u);
    u->kind = TYPE_UNION;
    u->line = first->line;
    u->col = first->col;
    add_type(u, first);
    while (is(p, CC_TK_PIPE)) {
        next(p);
        ast_type *k = parse_type_term(p);
        if (!k) { ast_type_free(u); return NULL; }
        add_type(u, k);
    }
    return u;
}

/* ---- parsing expressions (A.5 Choice) ---- */

static ast_expr *parse_choice(parser *p);
static ast_expr *parse_prefixed(parser *p);

/* Whether the current token can begin a sequence element; the sequence ends before
 * anything else, including the sequence-ending keywords. */
static int starts_element(const parser *p)
{
    const cc_token *t = tok(p);
    switch (t->kind) {
    case CC_TK_STRING: case CC_TK_CLASS: case CC_TK_BOTTOM: case CC_TK_CUT: case CC_TK_BOI:
    case CC_TK_CARET: case CC_TK_EOI: case CC_TK_DOLLAR: case CC_TK_DOT: case CC_TK_LPAREN:
    case CC_TK_LBRACK: case CC_TK_AMP: case CC_TK_BANG: case CC_TK_AT: case CC_TK_MINUS:
        return 1;
    case CC_TK_IDENT:
        return !in_list(p, t, seq_end_words);
    default:
        return 0;
    }
}

/* `{` [n] [`,` [m]] `}` after an expression (A.5 Bounds); fills min and max. */
static int parse_bounds(parser *p, int64_t *min, int64_t *max)
{
    const cc_token *lb = tok(p);
    int has_min = 0, has_comma = 0, has_max = 0;
    int64_t lo = 0, hi = -1;
    next(p);
    if (is(p, CC_TK_INT)) { lo = tok(p)->ival; has_min = 1; next(p); }
    else if (!is(p, CC_TK_COMMA) && !is(p, CC_TK_RBRACE)) return missing(p, "an integer");
    if (is(p, CC_TK_COMMA)) {
        has_comma = 1;
        next(p);
        if (is(p, CC_TK_INT)) { hi = tok(p)->ival; has_max = 1; next(p); }
    }
    if (!is(p, CC_TK_RBRACE)) return missing(p, has_comma ? "'}'" : "',' or '}'");
    next(p);
    if (!has_min && !has_comma) {
        report(p, lb->line, lb->col, "empty bounds {}: write {n}, {n,}, {,m} or {n,m}");
    } else if (!has_comma) {
        hi = lo;
    } else if (has_max && hi < lo) {
        report(p, lb->line, lb->col, "invalid bounds {%lld,%lld}: the maximum is less than the minimum",
               (long long)lo, (long long)hi);
    }
    *min = lo;
    *max = has_comma && !has_max ? -1 : hi;
    return 1;
}

/* `#name` with optional arguments `(key=value, ...)` right after the name. */
static ast_expr *parse_attribute(parser *p, ast_expr *e)
{
    const cc_token *hash = tok(p);
    next(p);
    if (!is(p, CC_TK_IDENT)) { ast_expr_free(e); return expected(p, "an attribute name"); }
    ast_expr *a = wrap(AST_ATTRIBUTE, e, e->line, e->col);
    a->op_line = hash->line;
    a->op_col = hash->col;
    a->name = text(p, tok(p));
    next(p);
    if (!is(p, CC_TK_LPAREN) || !tok(p)->adjacent) return a;
    if (!enter(p)) { ast_expr_free(a); return NULL; }
    next(p);
    while (!is(p, CC_TK_RPAREN)) {
        if (!is(p, CC_TK_IDENT)) { expected(p, "an argument name or ')'"); goto bad; }
        const cc_token *name = tok(p);
        next(p);
        if (!is(p, CC_TK_ASSIGN)) { expected(p, "'='"); goto bad; }
        next(p);
        ast_expr *v = parse_choice(p);
        if (!v) goto bad;
        a->args = grow(a->args, a->nargs, sizeof *a->args);
        a->args[a->nargs++] = (ast_attr_arg){ text(p, name), v, name->line, name->col };
        if (is(p, CC_TK_COMMA)) next(p);
        else if (!is(p, CC_TK_RPAREN)) { expected(p, "',' or ')'"); goto bad; }
    }
    next(p);
    leave(p);
    return a;
bad:
    leave(p);
    ast_expr_free(a);
    return NULL;
}

/* `[term]` or `[name = term]` (Tier 5). */
static ast_expr *parse_predicate(parser *p)
{
    ast_expr *e = mk_at(AST_PREDICATE, tok(p));
    if (!enter(p)) { ast_expr_free(e); return NULL; }
    next(p);
    if (is(p, CC_TK_IDENT) && peek(p, 1)->kind == CC_TK_ASSIGN) {
        e->name = text(p, tok(p));
        next(p);
        next(p);
    }
    e->term = parse_term(p);
    leave(p);
    if (!e->term) { ast_expr_free(e); return NULL; }
    if (!is(p, CC_TK_RBRACK)) { ast_expr_free(e); return expected(p, "']'"); }
    next(p);
    return e;
}

/* The choice and optional action of a Pratt operand or operator. */
static int parse_pratt_part(parser *p, ast_expr **expr, ast_term **action)
{
    *expr = parse_choice(p);
    *action = NULL;
    if (!*expr) return 0;
    if (is(p, CC_TK_ARROW)) {
        next(p);
        *action = parse_term(p);
        if (!*action) return 0;
    }
    return 1;
}

static int parse_pratt_level(parser *p, ast_pratt *pr)
{
    const cc_token *lt = tok(p);
    pr->levels = grow(pr->levels, pr->nlevels, sizeof *pr->levels);
    ast_pratt_level *lv = &pr->levels[pr->nlevels++];
    memset(lv, 0, sizeof *lv);
    lv->line = lt->line;
    lv->col = lt->col;
    next(p);
    if (is(p, CC_TK_IDENT)) {
        lv->name = text(p, tok(p));
        lv->name_line = tok(p)->line;
        lv->name_col = tok(p)->col;
        next(p);
    }
    if (!is(p, CC_TK_LBRACE)) return missing(p, "'{'");
    if (!enter(p)) return 0;
    next(p);
    int ok = 1;
    while (ok && !is(p, CC_TK_RBRACE)) {
        const cc_token *ot = tok(p);
        pratt_op_kind kind;
        if (word_is(p, ot, "prefix")) kind = PRATT_PREFIX;
        else if (word_is(p, ot, "postfix")) kind = PRATT_POSTFIX;
        else if (word_is(p, ot, "infix")) kind = PRATT_INFIX_LEFT;
        else { ok = missing(p, "prefix, postfix, infix or '}'"); break; }
        next(p);
        if (kind == PRATT_INFIX_LEFT) {
            if (word_is(p, tok(p), "right")) kind = PRATT_INFIX_RIGHT;
            else if (word_is(p, tok(p), "none")) kind = PRATT_INFIX_NONE;
            else if (!word_is(p, tok(p), "left")) { ok = missing(p, "left, right or none"); break; }
            next(p);
        }
        lv->ops = grow(lv->ops, lv->nops, sizeof *lv->ops);
        ast_pratt_op *op = &lv->ops[lv->nops++];
        op->kind = kind;
        op->line = ot->line;
        op->col = ot->col;
        ok = parse_pratt_part(p, &op->expr, &op->action);
    }
    if (ok) next(p);
    leave(p);
    return ok;
}

/* `pratt { skip ... operand ... level [name] { ... } }` (3.1), at 'pratt'. */
static ast_expr *parse_pratt(parser *p)
{
    ast_expr *e = mk_at(AST_PRATT, tok(p));
    ast_pratt *pr = e->pratt = cc_xcalloc(1, sizeof *pr);
    next(p);
    next(p);                                   /* { */
    if (!enter(p)) { ast_expr_free(e); return NULL; }
    int ok = 1;
    while (ok && !is(p, CC_TK_RBRACE)) {
        const cc_token *it = tok(p);
        if (word_is(p, it, "skip")) {
            next(p);
            ast_expr *s = parse_choice(p);
            if (!s) { ok = 0; break; }
            if (pr->skip) {
                report(p, it->line, it->col, "a pratt expression can have only one skip");
                ast_expr_free(s);
            } else {
                pr->skip = s;
                pr->skip_line = it->line;
                pr->skip_col = it->col;
            }
        } else if (word_is(p, it, "operand")) {
            next(p);
            pr->operands = grow(pr->operands, pr->noperands, sizeof *pr->operands);
            ast_pratt_operand *o = &pr->operands[pr->noperands++];
            o->line = it->line;
            o->col = it->col;
            ok = parse_pratt_part(p, &o->expr, &o->action);
        } else if (word_is(p, it, "level")) {
            ok = parse_pratt_level(p, pr);
        } else {
            ok = missing(p, "skip, operand, level or '}'");
        }
    }
    leave(p);
    if (!ok) { ast_expr_free(e); return NULL; }
    next(p);
    return e;
}

static ast_expr *parse_primary(parser *p)
{
    const cc_token *t = tok(p);
    ast_expr *e;
    switch (t->kind) {
    case CC_TK_STRING:
        e = mk_at(AST_LITERAL, t);
        e->text = cc_xstrndup(t->val, t->vlen);
        e->len = t->vlen;
        break;
    case CC_TK_CLASS:
        e = mk_at(AST_CLASS, t);
        e->nranges = t->nranges;
        e->negated = t->negated;
        e->ranges = cc_xmalloc((size_t)t->nranges * sizeof *e->ranges);
        if (t->nranges) memcpy(e->ranges, t->ranges, (size_t)t->nranges * sizeof *e->ranges);
        break;
    case CC_TK_BOTTOM: e = mk_at(AST_BOTTOM, t); break;
    case CC_TK_CUT: e = mk_at(AST_CUT, t); break;
    case CC_TK_DOT: e = mk_at(AST_ANY, t); break;
    case CC_TK_BOI: e = mk_at(AST_ANCHOR, t); e->anchor = ANCHOR_BOI; break;
    case CC_TK_EOI: e = mk_at(AST_ANCHOR, t); e->anchor = ANCHOR_EOI; break;
    case CC_TK_CARET: e = mk_at(AST_ANCHOR, t); e->anchor = ANCHOR_BOL; break;
    case CC_TK_DOLLAR: e = mk_at(AST_ANCHOR, t); e->anchor = ANCHOR_EOL; break;
    case CC_TK_LPAREN:
        if (!enter(p)) return NULL;
        next(p);
        e = parse_choice(p);
        leave(p);
        if (!e) return NULL;
        if (!is(p, CC_TK_RPAREN)) { ast_expr_free(e); return expected(p, "')'"); }
        break;
    case CC_TK_LBRACK:
        return parse_predicate(p);
    case CC_TK_IDENT:
        if (word_is(p, t, "_")) { e = mk_at(AST_TOP, t); break; }
        if (word_is(p, t, "pratt") && peek(p, 1)->kind == CC_TK_LBRACE) return parse_pratt(p);
        if (in_list(p, t, keywords)) return expected(p, "an expression");
        e = mk_at(AST_CALL, t);
        e->name = text(p, t);
        next(p);
        if (is(p, CC_TK_LPAREN) && tok(p)->adjacent) {
            next(p);
            if (!is(p, CC_TK_IDENT)) { ast_expr_free(e); return expected(p, "a level name"); }
            e->level = text(p, tok(p));
            e->level_line = tok(p)->line;
            e->level_col = tok(p)->col;
            next(p);
            if (!is(p, CC_TK_RPAREN)) { ast_expr_free(e); return expected(p, "')'"); }
            next(p);
        }
        return e;
    default:
        return expected(p, "an expression");
    }
    next(p);
    return e;
}

static ast_expr *parse_suffixed(parser *p)
{
    ast_expr *e = parse_primary(p);
    int wraps = 0;
    while (e) {
        const cc_token *t = tok(p);
        if (t->kind != CC_TK_HASH && t->kind != CC_TK_LBRACE && t->kind != CC_TK_STAR &&
            t->kind != CC_TK_PLUS && t->kind != CC_TK_QUESTION)
            break;
        /* each postfix operator nests the expression one level deeper */
        if (!enter(p)) { ast_expr_free(e); e = NULL; break; }
        wraps++;
        if (t->kind == CC_TK_HASH) {
            e = parse_attribute(p, e);
            continue;
        }
        ast_expr *w;
        if (t->kind == CC_TK_LBRACE) {
            if (!t->adjacent) report(p, t->line, t->col, "no white space allowed before bounds '{'");
            int64_t min, max;
            if (!parse_bounds(p, &min, &max)) { ast_expr_free(e); e = NULL; break; }
            w = wrap(AST_REPEAT, e, e->line, e->col);
            w->min = min;
            w->max = max;
        } else if (t->kind == CC_TK_QUESTION) {
            next(p);
            w = wrap(AST_OPTIONAL, e, e->line, e->col);
        } else {
            next(p);
            w = wrap(AST_REPEAT, e, e->line, e->col);
            w->min = t->kind == CC_TK_PLUS;
            w->max = -1;
        }
        w->op_line = t->line;
        w->op_col = t->col;
        e = w;
    }
    p->depth -= wraps;
    return e;
}

static ast_expr *parse_prefixed(parser *p)
{
    const cc_token *t = tok(p);
    ast_kind kind;
    char *label = NULL;
    switch (t->kind) {
    case CC_TK_AMP: kind = AST_AND; break;
    case CC_TK_BANG: kind = AST_NOT; break;
    case CC_TK_AT: kind = AST_ATOMIC; break;
    case CC_TK_MINUS: kind = AST_DISCARD; break;
    case CC_TK_IDENT:
        if (peek(p, 1)->kind == CC_TK_COLON) {
            const cc_token *colon = peek(p, 1);
            if (!colon->adjacent)
                report(p, colon->line, colon->col,
                       "no white space allowed between capture label %.*s and ':'",
                       (int)(t->end - t->off), p->src + t->off);
            kind = AST_CAPTURE;
            label = text(p, t);
            next(p);
            break;
        }
        return parse_suffixed(p);
    default:
        return parse_suffixed(p);
    }
    if (!enter(p)) { cc_free(label); return NULL; }
    next(p);
    ast_expr *k = parse_prefixed(p);
    leave(p);
    if (!k) { cc_free(label); return NULL; }
    ast_expr *e = wrap(kind, k, t->line, t->col);
    e->name = label;
    return e;
}

static ast_expr *parse_sequence(parser *p)
{
    ast_expr *first = NULL, *seq = NULL;
    while (starts_element(p)) {
        ast_expr *e = parse_prefixed(p);
        if (!e) {
            ast_expr_free(seq ? seq : first);
            return NULL;
        }
        if (!first) {
            first = e;
            continue;
        }
        if (!seq) {
            seq = mk_expr(AST_SEQ, first->line, first->col);
            add_kid(seq, first);
        }
        add_kid(seq, e);
    }
    if (!first) return expected(p, "an expression");
    return seq ? seq : first;
}

static ast_expr *parse_choice(parser *p)
{
    ast_expr *first = parse_sequence(p);
    if (!first || !is(p, CC_TK_SLASH)) return first;
    ast_expr *c = mk_expr(AST_CHOICE, first->line, first->col);
    add_kid(c, first);
    while (is(p, CC_TK_SLASH)) {
        next(p);
        ast_expr *s = parse_sequence(p);
        if (!s) { ast_expr_free(c); return NULL; }
        add_kid(c, s);
    }
    return c;
}

/* ---- definitions (A.4) ---- */

static void parse_rule(parser *p)
{
    ast_rule r;
    memset(&r, 0, sizeof r);
    r.def_line = tok(p)->line;
    r.def_col = tok(p)->col;
    next(p);
    if (!is(p, CC_TK_IDENT)) { expected(p, "a rule name"); return; }
    r.line = tok(p)->line;
    r.col = tok(p)->col;
    r.name = text(p, tok(p));
    next(p);
    if (is(p, CC_TK_COLON)) {
        next(p);
        if (!(r.type = parse_type_expr(p))) goto bad;
    }
    if (!is(p, CC_TK_ASSIGN)) { expected(p, "'='"); goto bad; }
    next(p);
    if (!(r.body = parse_choice(p))) goto bad;
    if (is(p, CC_TK_ARROW)) {
        r.action_line = tok(p)->line;
        r.action_col = tok(p)->col;
        next(p);
        if (!(r.action = parse_term(p))) goto bad;
    }
    ast_grammar *g = p->g;
    if (g->nrules == p->rules_cap) {
        p->rules_cap = p->rules_cap ? 2 * p->rules_cap : 16;
        g->rules = cc_xrealloc(g->rules, (size_t)p->rules_cap * sizeof *g->rules);
    }
    g->rules[g->nrules++] = r;
    return;
bad:
    cc_free(r.name);
    ast_type_free(r.type);
    ast_expr_free(r.body);
    ast_term_free(r.action);
}

static void typedef_free(ast_typedef *t)
{
    cc_free(t->name);
    for (int i = 0; i < t->nfields; i++) {
        cc_free(t->field_names[i]);
        ast_type_free(t->field_types[i]);
    }
    cc_free(t->field_names);
    cc_free(t->field_types);
    cc_free(t->field_lines);
    cc_free(t->field_cols);
    ast_type_free(t->alias);
}

static int parse_struct_fields(parser *p, ast_typedef *td)
{
    next(p);
    if (!is(p, CC_TK_LBRACE)) return missing(p, "'{'");
    next(p);
    while (!is(p, CC_TK_RBRACE)) {
        if (!is(p, CC_TK_IDENT) || in_list(p, tok(p), keywords)) return missing(p, "a field name or '}'");
        const cc_token *f = tok(p);
        next(p);
        ast_type *ft = parse_type_expr(p);
        if (!ft) return 0;
        int n = td->nfields++;
        td->field_names = grow(td->field_names, n, sizeof *td->field_names);
        td->field_types = grow(td->field_types, n, sizeof *td->field_types);
        td->field_lines = grow(td->field_lines, n, sizeof *td->field_lines);
        td->field_cols = grow(td->field_cols, n, sizeof *td->field_cols);
        td->field_names[n] = text(p, f);
        td->field_types[n] = ft;
        td->field_lines[n] = f->line;
        td->field_cols[n] = f->col;
        if (is(p, CC_TK_COMMA)) next(p);
    }
    next(p);
    return 1;
}

static void parse_typedef(parser *p)
{
    ast_typedef td;
    memset(&td, 0, sizeof td);
    td.def_line = tok(p)->line;
    td.def_col = tok(p)->col;
    next(p);
    if (!is(p, CC_TK_IDENT)) { expected(p, "a type name"); return; }
    td.line = tok(p)->line;
    td.col = tok(p)->col;
    td.name = text(p, tok(p));
    next(p);
    int ok = 1;
    if (word_is(p, tok(p), "struct")) {
        td.kind = TYPEDEF_STRUCT;
        ok = parse_struct_fields(p, &td);
    } else if (word_is(p, tok(p), "terminal")) {
        td.kind = TYPEDEF_TERMINAL;
        next(p);
    } else if (is(p, CC_TK_ASSIGN)) {
        td.kind = TYPEDEF_ALIAS;
        next(p);
        ok = (td.alias = parse_type_expr(p)) != NULL;
    } else {
        ok = missing(p, "struct, terminal or '='");
    }
    if (!ok) { typedef_free(&td); return; }
    ast_grammar *g = p->g;
    if (g->ntypes == p->types_cap) {
        p->types_cap = p->types_cap ? 2 * p->types_cap : 8;
        g->types = cc_xrealloc(g->types, (size_t)p->types_cap * sizeof *g->types);
    }
    g->types[g->ntypes++] = td;
}

/* After a syntax error: skips to the next 'def' or 'type' that is not a field name
 * after '.', where the next definition can begin. */
static void recover(parser *p)
{
    for (; !is(p, CC_TK_EOF); next(p)) {
        if ((word_is(p, tok(p), "def") || word_is(p, tok(p), "type")) &&
            (p->i == 0 || p->t[p->i - 1].kind != CC_TK_DOT))
            return;
    }
}

static void parse_file(parser *p)
{
    if (word_is(p, tok(p), "package")) {
        next(p);
        if (is(p, CC_TK_IDENT)) {
            p->g->package = text(p, tok(p));
            next(p);
        } else {
            expected(p, "a package name");
        }
    }
    while (p->nsyntax <= CC_MAX_ERRORS) {
        if (p->failed) {
            recover(p);
            p->failed = 0;
        }
        const cc_token *t = tok(p);
        if (t->kind == CC_TK_EOF) break;
        if (word_is(p, t, "def")) parse_rule(p);
        else if (word_is(p, t, "type")) parse_typedef(p);
        else if (word_is(p, t, "package")) fail(p, t, "the package clause must come first in the file");
        else expected(p, "a definition");
    }
}

static int by_position(const cc_error *a, const cc_error *b)
{
    return a->line != b->line ? a->line - b->line : a->col - b->col;
}

ast_grammar *cc_parse(const char *src, size_t len, cc_errors *errs)
{
    int base = errs->n;
    cc_tokens toks;
    cc_lex(src, len, &toks, errs);
    parser p;
    memset(&p, 0, sizeof p);
    p.src = src;
    p.t = toks.toks;
    p.ntok = toks.n;
    p.errs = errs;
    p.g = cc_xcalloc(1, sizeof *p.g);
    parse_file(&p);
    cc_tokens_free(&toks);

    /* Lexical and syntax errors in source order (insertion sort: stable, and the
     * list holds at most 2 * (CC_MAX_ERRORS + 1) errors). */
    cc_error *e = errs->items;
    for (int i = base + 1; i < errs->n; i++) {
        cc_error x = e[i];
        int j = i;
        for (; j > base && by_position(&e[j - 1], &x) > 0; j--) e[j] = e[j - 1];
        e[j] = x;
    }
    cc_errors_cap(errs, base);
    if (errs->n > base || errs->oom) {
        ast_grammar_free(p.g);
        return NULL;
    }
    return p.g;
}
