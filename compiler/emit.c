/* The emitter: turns the checked, analysed AST into the code of the iterative VM.
 * Every rule gets two bodies: a valued one, which builds the rule's value, and a
 * value-free one, used where a caller discards the value (a twin) and by
 * recognition parses. Literals, classes, expectations, capture labels, byte
 * sets and chains are interned into the grammar's tables here, each found
 * through a hash index (compiler/intern.h). It runs inside the compiler's
 * out-of-memory unwind: the grammar's tables are ordinary blocks, which
 * pego_compile frees with the grammar after an unwind at any allocation, so a
 * count grows only once what its element owns is allocated; temporary tables
 * are blocks of the front end (ast.h). */
#include "program.h"
#include "intern.h"
#include "../runtime/buf.h"
#include "../runtime/unicode.h"
#include "../runtime/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Per rule, for the fast program: its size and nest compiled in (size -1: not
 * compiled in), its component of the call graph, and whether its jump table
 * is compiled into a call site (emit_dispatcher). */
typedef struct { int size, nest, comp, dispatched; } inline_info;

typedef struct {
    pego_grammar      *g;
    const ast_grammar *ast;
    uint32_t           cap;
    int                rule;      /* rule being emitted */
    int                valued;    /* emitting the valued body */
    int                fast;      /* emitting the fast program (or the profiled one) */
    int                profiled;  /* emitting the profiled program */
    int                inline_level;  /* calls compiled in around what is being emitted */
    cc_first          *rfirst;    /* first-byte sets of the rules (fast program) */
    /* per rule (fast program): it is, or calls at any depth, a rule of a
     * left-recursive cycle; skipping a call of it would skip such a call that
     * matters (skip_changes_seeds) */
    uint8_t           *reaches_cycle, *skip_changes;
    inline_info       *inl;       /* per rule: compiled into call sites? (fast program) */
    int                inline_nest;  /* the deepest call nest compiled in so far */
    const ast_expr    *dispatch;     /* the call whose rule's table is compiled into its site (emit_dispatcher) */
    const ast_expr    *pos_pushed;   /* sequences whose node's position is pushed (emit_alts_shared) */
    int                npos_pushed;
    /* the calls dispatched makes, each with a byte that picks its alternative:
     * they enter the rule's body where its table jumps at that byte */
    uint32_t          *arm_calls, narm_calls, cap_arm_calls;
    uint8_t           *arm_bytes;
    /* the grammar's tables: their capacities, and indexes by key for interning */
    uint32_t           cap_expects, cap_expect_message, cap_literals, cap_classes, cap_labels, cap_bytesets, cap_dispatch;
    uint32_t           cap_sites, cap_site_calls, cap_chains, cap_chain_rules;
    cc_index           expect_index, literal_index, class_index, label_index, byteset_index, chain_index;
    struct { uint32_t bits[8]; } *byteset_bits;   /* of each byte set, the key of byteset_index */
    size_t             cap_byteset_bits;
    /* skipped_calls: per rule, the calls matched and failed counted so far (zero
     * outside skip_site), and the rules counted; the last two counts of a rule
     * are those made only when the deferrable call found evaluates (skip_defer) */
    uint32_t          *skip_counts;
    int               *skip_rules, nskip_rules;
    int                skip_defer_ok;   /* skip_site may skip a deferrable call (emit_alts_fast) */
    /* the profiled program: the call that is an alternative a jump table
     * picked, whose failure counts fail_site (emit_alts_fast); the real calls
     * whose failure counts a site, for grammar.call_fail_site */
    const ast_expr    *fail_call;
    int                fail_site;
    uint32_t          *fail_calls;
    int32_t           *fail_call_sites;
    uint32_t           nfail_calls, cap_fail_calls;
    const ast_expr    *skip_top;        /* the expression skip_site examines */
    const ast_expr    *skip_defer;      /* the deferrable call it found, or NULL */
    int                skip_in_defer;   /* counting the calls of its body */
    /* per counting site: the deferrable call it stands for (PDSKIP), and the
     * site that stands for the other calls when that call is a real one */
    struct { const ast_expr *call; int without; } *site_defer;
    uint32_t           cap_site_defer;
    /* types and actions (compiler/action.c): per rule, its action (-1: none;
     * its terminal type is cc_rule.term_type), and whether a call of it can
     * run an action (then a caller that discards its value still calls its
     * valued body: an action's run-time error must not depend on that) */
    cc_typemap         tm;
    int               *action;
    uint8_t           *runs_action;
    const cc_callgraph *cg;       /* while runs_action is solved */
    /* predicates and variables (docs/language.md 5): each predicate's action,
     * found by its address; per rule, the labels its predicates read (a bit
     * per label, nlabels of them: such captures are made in value-free code
     * too) and the variables it can read (var_words words per rule); the
     * REP instruction of the iteration that is the innermost capture scope
     * (-1: the rule's body) */
    cc_index           pred_index;
    const ast_expr   **preds;
    int               *pred_action, npreds, cap_preds;
    uint8_t           *pred_labels;
    uint64_t          *reads;
    int                var_words;
    int32_t            scope_rep;
    int                stream_next;   /* the next REP is the #stream repetition of a valued body */
    /* the REP instructions emitted in rule bodies (not Pratt expressions),
     * with their repetitions: of the reference program's value-free bodies,
     * and of the fast and profiled programs, for grammar.rep_links */
    struct rep_at { const ast_expr *e; uint32_t at; } *ref_reps, *fast_reps;
    uint32_t           nref_reps, cap_ref_reps, nfast_reps, cap_fast_reps;
    int                in_rule;
    cc_overshoot      *overshoot;     /* per rule (fast program) */
} emitter;

static uint32_t here(emitter *m) { return m->g->ncode; }

/* A table of the grammar resized to n bytes, or an unwind (cc_oom). */
static void *table_resize(void *p, size_t n)
{
    void *q = rt_realloc(p, n);
    if (!q) cc_oom();
    return q;
}

static void *table_new(size_t n, size_t size)
{
    void *p = rt_calloc(n, size);
    if (!p) cc_oom();
    return p;
}

/* A grammar table of capacity *cap with room for need elements of the given
 * size: the capacity doubles, so that adding elements one by one takes time
 * linear in their number. */
static void *table_room(void *p, uint32_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 8;
    while (c < need) c *= 2;
    if (c > UINT32_MAX / 2) cc_oom();
    p = table_resize(p, c * size);
    *cap = (uint32_t)c;
    return p;
}

static uint32_t ins(emitter *m, const ast_expr *e, int op, int32_t a, int32_t b, int32_t c)
{
    pego_grammar *g = m->g;
    if (g->ncode == m->cap) {
        uint32_t cap = m->cap ? 2 * m->cap : 256;
        g->code = table_resize(g->code, cap * sizeof *g->code);
        g->src = table_resize(g->src, cap * sizeof *g->src);
        m->cap = cap;
    }
    uint32_t at = g->ncode++;
    g->code[at] = (vm_ins){ .op = (uint8_t)op, .a = a, .b = b, .c = c };
    g->src[at] = (vm_srcpos){ e ? e->line : 0, e ? e->col : 0 };
    return at;
}

static void patch(emitter *m, uint32_t at, uint32_t target) { m->g->code[at].a = (int32_t)target; }

typedef struct { const char *text; int message; } expect_key;

static int same_expect(const void *ctx, uint32_t i, const void *key)
{
    const pego_grammar *g = ctx;
    const expect_key *k = key;
    return g->expect_message[i] == k->message && strcmp(g->expects[i], k->text) == 0;
}

/* Interns an expectation by its printed text (copied); an #error message is
 * kept apart from an item that prints the same. */
static uint32_t intern_expect_kind(emitter *m, const char *text, int message)
{
    pego_grammar *g = m->g;
    expect_key key = { text, message };
    uint32_t hash = cc_hash(text, strlen(text)) ^ (uint32_t)message;
    int found = cc_index_find(&m->expect_index, hash, same_expect, g, &key);
    if (found >= 0) return (uint32_t)found;
    g->expects = table_room(g->expects, &m->cap_expects, (size_t)g->nexpects + 1, sizeof(char *));
    g->expect_message = table_room(g->expect_message, &m->cap_expect_message, (size_t)g->nexpects + 1, 1);
    cc_index_add(&m->expect_index, hash, (uint32_t)g->nexpects);
    char *copy = rt_strdup(text);
    if (!copy) cc_oom();
    g->expects[g->nexpects] = copy;
    g->expect_message[g->nexpects] = (uint8_t)message;
    return (uint32_t)g->nexpects++;
}

static uint32_t intern_expect(emitter *m, const char *text) { return intern_expect_kind(m, text, 0); }

/* Interns the expectation rendered in b, and frees b. */
static uint32_t intern_rendered(emitter *m, rt_buf *b)
{
    char *text = cc_xtake(b);
    uint32_t id = intern_expect(m, text);
    cc_free(text);
    return id;
}

static int same_literal(const void *ctx, uint32_t i, const void *key)
{
    const cc_literal *l = &((const pego_grammar *)ctx)->literals[i];
    const ast_expr *e = key;
    return l->len == e->len && memcmp(l->bytes, e->text, e->len) == 0;
}

static int intern_literal(emitter *m, const ast_expr *e)
{
    pego_grammar *g = m->g;
    uint32_t hash = cc_hash(e->text, e->len);
    int found = cc_index_find(&m->literal_index, hash, same_literal, g, e);
    if (found >= 0) return found;
    rt_buf b;
    rt_buf_init(&b);
    rt_unicode_quote(&b, e->text, e->len, 0);
    uint32_t expect = intern_rendered(m, &b);
    g->literals = table_room(g->literals, &m->cap_literals, (size_t)g->nliterals + 1, sizeof(cc_literal));
    cc_index_add(&m->literal_index, hash, (uint32_t)g->nliterals);
    cc_literal *l = &g->literals[g->nliterals];
    l->bytes = table_resize(NULL, e->len + 1);
    memcpy(l->bytes, e->text, e->len);
    l->bytes[e->len] = 0;
    l->len = (uint32_t)e->len;
    l->fffd = 0;
    for (size_t i = 0; i + 3 <= e->len; i++)
        if (memcmp(e->text + i, "\xEF\xBF\xBD", 3) == 0) l->fffd = 1;
    l->expect = expect;
    return g->nliterals++;
}

static void render_class(rt_buf *b, const ast_expr *e)
{
    rt_buf_adds(b, e->negated ? "(?^" : "(?");
    for (int i = 0; i < e->nranges; i++) {
        rt_unicode_class_char(b, e->ranges[i].lo);
        if (e->ranges[i].hi != e->ranges[i].lo) {
            rt_buf_addc(b, '-');
            rt_unicode_class_char(b, e->ranges[i].hi);
        }
    }
    rt_buf_addc(b, ')');
}

static int same_class(const void *ctx, uint32_t i, const void *key)
{
    return ((const pego_grammar *)ctx)->classes[i].expect == *(const uint32_t *)key;
}

/* A class is interned by its printed text (its expectation). */
static int intern_class(emitter *m, const ast_expr *e)
{
    pego_grammar *g = m->g;
    rt_buf b;
    rt_buf_init(&b);
    render_class(&b, e);
    uint32_t expect = intern_rendered(m, &b);
    int found = cc_index_find(&m->class_index, expect, same_class, g, &expect);
    if (found >= 0) return found;
    g->classes = table_room(g->classes, &m->cap_classes, (size_t)g->nclasses + 1, sizeof(cc_class));
    cc_index_add(&m->class_index, expect, (uint32_t)g->nclasses);
    cc_class *c = &g->classes[g->nclasses];
    memset(c, 0, sizeof *c);
    c->negated = e->negated;
    c->expect = expect;
    c->ascii_only = !e->negated;
    c->ranges = table_resize(NULL, (size_t)(e->nranges ? e->nranges : 1) * sizeof(ast_range));
    for (int i = 0; i < e->nranges; i++) {
        ast_range r = e->ranges[i];
        for (uint32_t ch = r.lo; ch <= r.hi && ch < 128; ch++) c->ascii[ch >> 5] |= 1u << (ch & 31);
        if (r.hi >= 128) {
            c->ascii_only = 0;
            c->ranges[c->nranges++] = (ast_range){ r.lo < 128 ? 128 : r.lo, r.hi };
        }
    }
    if (c->negated)
        for (int w = 0; w < 4; w++) c->ascii[w] = ~c->ascii[w];
    return g->nclasses++;
}

static int same_label(const void *ctx, uint32_t i, const void *key)
{
    return strcmp(((const pego_grammar *)ctx)->labels[i], key) == 0;
}

static int label_id(emitter *m, const char *name)
{
    return cc_index_find(&m->label_index, cc_hash(name, strlen(name)), same_label, m->g, name);
}

/* Rule r's value is statically memoizable: calls go through the general path. */
static int general_call(const cc_rule *r)
{
    return (r->flags & RULE_LEADER) || ((r->flags & RULE_MEMO) && !(r->flags & RULE_TRANSIENT));
}

static void emit_expr(emitter *m, const ast_expr *e, int v, int live);
static int  predicate_reads(emitter *m, const char *label);
static int  rule_predicates_read(emitter *m, int r);
static int  predicate_action(emitter *m, const ast_expr *e);

/* First-character dispatch (docs/architecture.md, Matching): when an expression must begin
 * with a literal of ASCII first byte or with a class, a test of the next
 * character can skip it without pushing a choice entry. On a mismatch the test
 * records exactly what the expression would have recorded there, so results
 * and errors do not change. Emits the test and returns its address, or 0. */
static void first_of(emitter *m, const ast_expr *e, cc_first *f);
static uint32_t emit_btest(emitter *m, const ast_expr *e, const cc_first *f);
static int guard_ok(emitter *m, const ast_expr *e, const cc_first *f);
static int may_skip(emitter *m, const ast_expr *e, int *site);
enum { SITE_NONE = -1, SITE_NO_SKIP = -2 };     /* of may_skip: see skip_site */
static void count_skip(emitter *m, const ast_expr *e, int site);
static void emit_call(emitter *m, const ast_expr *e, int v);
static int  call_counts_failure(emitter *m, const ast_expr *e, int site);

/* What e begins with: through the first element of sequences, captures, @ and
 * -; NULL for an empty sequence. */
static const ast_expr *leading(const ast_expr *e)
{
    for (;;) {
        switch (e->kind) {
        case AST_SEQ:
            if (e->nkids == 0) return NULL;
            e = e->kids[0];
            continue;
        case AST_CAPTURE: case AST_ATOMIC: case AST_DISCARD:
            e = e->kids[0];
            continue;
        default:
            return e;
        }
    }
}

/* What e must begin with: leading, and through repetitions of at least one;
 * NULL for an empty sequence or an optional beginning. */
static const ast_expr *first_element(const ast_expr *e)
{
    while ((e = leading(e)) && e->kind == AST_REPEAT) {
        if (e->min < 1) return NULL;
        e = e->kids[0];
    }
    return e;
}

/* A terminal a dispatch test can stand for: a non-empty literal or a class. */
static int dispatchable(const ast_expr *e)
{
    return e && ((e->kind == AST_LITERAL && e->len > 0) || e->kind == AST_CLASS);
}

/* First-character dispatch of a choice (docs/architecture.md, Matching): the
 * terminal an alternative must begin with, if any, and in
 * *calls the rule calls on the way to it. It is found through the first element
 * of sequences, captures, @ and -, and through calls of rules that are neither
 * left-recursion leaders nor Pratt rules; anything else (a repetition, an
 * optional, a choice, a lookahead, a cut, an attribute, a predicate) ends the
 * search with none. A chain longer than the rules has come back to a rule
 * already on it: none either. Where the next character cannot begin the
 * terminal, every program skips the alternative: the reference program with a
 * test that records what the terminal would have recorded, so that the
 * alternative's calls are not made and the grammar's calls are the same in
 * every program and every observer. */
static const ast_expr *dispatch_terminal(const emitter *m, const ast_expr *e, int *calls)
{
    int n = 0;
    while ((e = leading(e)) && e->kind == AST_CALL) {
        if (e->rule < 0 || n >= m->ast->nrules || n >= UINT16_MAX) return NULL;
        const cc_rule *r = &m->g->rules[e->rule];
        if ((r->flags & RULE_LEADER) || r->pratt >= 0) return NULL;
        e = m->ast->rules[e->rule].body;
        n++;
    }
    if (!dispatchable(e)) return NULL;
    *calls = n;
    return e;
}

/* The test of an alternative's dispatch terminal t, reached after calls calls:
 * where the next character cannot begin t, it records what t records when it
 * fails there and jumps (patch_test), unless the calls would have gone past the
 * nesting limit (the reference program then makes them and stops there). */
static uint32_t emit_dispatch_test(emitter *m, const ast_expr *t, int calls)
{
    uint32_t at;
    if (t->kind == AST_CLASS) {
        at = ins(m, t, OP_TEST, intern_class(m, t), 0, 0);
    } else {
        int lit = intern_literal(m, t);
        if ((unsigned char)t->text[0] < 0x80)
            at = ins(m, t, OP_TESTCHAR, (unsigned char)t->text[0], 0, (int32_t)m->g->literals[lit].expect);
        else
            at = ins(m, t, OP_TESTLIT, lit, 0, 0);
    }
    m->g->code[at].d = (uint16_t)calls;
    return at;
}

static uint32_t emit_first_test(emitter *m, const ast_expr *e, int *site)
{
    *site = SITE_NONE;
    if (m->fast) {
        cc_first f;
        first_of(m, e, &f);
        return guard_ok(m, e, &f) && may_skip(m, e, site) ? emit_btest(m, e, &f) : 0;
    }
    e = first_element(e);
    return dispatchable(e) ? emit_dispatch_test(m, e, 0) : 0;
}

static void patch_test(emitter *m, uint32_t at, uint32_t target)
{
    if (at) m->g->code[at].b = (int32_t)target;
}

/* ---- the fast program ------------------------------------------------------
 * A second compilation of every rule for parses nobody observes (no trace sink,
 * no profiler). It matches exactly what the reference program matches and builds
 * the same values, but it records no expectations (it runs silent: a failed
 * parse is run again with the reference program for its error message) and it
 * may skip calls: tests of the next byte against first-byte sets jump over
 * alternatives and loop iterations that cannot match, choice entries are left
 * out where no later alternative could match, loops of a class become byte
 * spans, and small rules without calls are compiled into their value-free call
 * sites. docs/architecture.md explains why the results cannot differ. */

/* Whether e calls, at any depth, a rule of a left-recursive cycle (a Pratt
 * expression counts as one: its lines are not searched). */
static int calls_cycle(const emitter *m, const ast_expr *e)
{
    if (e->kind == AST_PRATT) return 1;
    if (e->kind == AST_CALL && (e->rule < 0 || m->reaches_cycle[e->rule])) return 1;
    for (int i = 0; i < e->nkids; i++)
        if (calls_cycle(m, e->kids[i])) return 1;
    return 0;
}

/* Whether skipping e with a byte test, where no byte can begin a non-empty
 * match of e, skips a call that could change what a left-recursive rule
 * matches later. The reference program evaluates e there up to its first
 * element that cannot match empty, which fails at once: a lookahead on the
 * way runs its whole expression, a rule of a cycle that can match empty
 * matches, and either leaves memo entries and seeds of the cycle's rules
 * that later calls find (a leader's outcome depends on them). Anything else
 * on the way fails or matches empty whatever the memo table holds. */
static int skip_changes_seeds(emitter *m, const ast_expr *e)
{
    cc_first f;
    switch (e->kind) {
    case AST_AND: case AST_NOT:
        return calls_cycle(m, e->kids[0]);
    case AST_SEQ:
        for (int i = 0; i < e->nkids; i++) {
            if (skip_changes_seeds(m, e->kids[i])) return 1;
            cc_first_expr(m->ast, m->rfirst, e->kids[i], &f);
            if (!f.nullable) return 0;
        }
        return 0;
    case AST_CHOICE:
        for (int i = 0; i < e->nkids; i++)
            if (skip_changes_seeds(m, e->kids[i])) return 1;
        return 0;
    case AST_REPEAT: case AST_OPTIONAL: case AST_CAPTURE: case AST_ATOMIC: case AST_DISCARD: case AST_ATTRIBUTE:
        return skip_changes_seeds(m, e->kids[0]);
    case AST_CALL:
        return e->rule < 0 || m->skip_changes[e->rule];
    default:
        return 0;
    }
}

/* The rules that reach a left-recursive cycle (the cycles' rules, then their
 * callers), and those a skipped call of which changes seeds (a rule of a
 * cycle that can match empty, then the rules whose bodies skip such a call):
 * each to a fixed point. */
static void find_seed_changes(emitter *m)
{
    int n = m->ast->nrules;
    m->reaches_cycle = cc_xcalloc((size_t)n + 1, 1);
    m->skip_changes = cc_xcalloc((size_t)n + 1, 1);
    for (int r = 0; r < n; r++) {
        int cyclic = (m->g->rules[r].flags & RULE_CYCLIC) != 0;
        m->reaches_cycle[r] = (uint8_t)cyclic;
        m->skip_changes[r] = (uint8_t)(cyclic && m->rfirst[r].nullable);
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (int r = 0; r < n; r++)
            if (!m->reaches_cycle[r] && calls_cycle(m, m->ast->rules[r].body)) m->reaches_cycle[r] = changed = 1;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (int r = 0; r < n; r++)
            if (!m->skip_changes[r] && skip_changes_seeds(m, m->ast->rules[r].body)) m->skip_changes[r] = changed = 1;
    }
}

/* What bytes can begin e, for the tests that skip it (first.c); as for
 * anything the analysis cannot see through, every byte, and the empty match,
 * where skipping it would skip a call that changes what a left-recursive rule
 * matches (skip_changes_seeds). */
static void first_of(emitter *m, const ast_expr *e, cc_first *f)
{
    cc_first_expr(m->ast, m->rfirst, e, f);
    if (m->reaches_cycle && skip_changes_seeds(m, e)) {
        memset(f->bits, 0xff, sizeof f->bits);
        f->nullable = 1;
    }
}

static int same_byteset(const void *ctx, uint32_t i, const void *key)
{
    return memcmp(((const emitter *)ctx)->byteset_bits[i].bits, key, sizeof ((const emitter *)ctx)->byteset_bits->bits) == 0;
}

/* A byte set is interned by its bits, which the emitter keeps beside the table. */
static int intern_byteset(emitter *m, const uint32_t bits[8])
{
    pego_grammar *g = m->g;
    uint32_t hash = cc_hash(bits, 8 * sizeof *bits);
    int found = cc_index_find(&m->byteset_index, hash, same_byteset, m, bits);
    if (found >= 0) return found;
    g->bytesets = table_room(g->bytesets, &m->cap_bytesets, (size_t)g->nbytesets + 1, sizeof *g->bytesets);
    if ((size_t)g->nbytesets == m->cap_byteset_bits) {
        m->cap_byteset_bits = m->cap_byteset_bits ? 2 * m->cap_byteset_bits : 8;
        m->byteset_bits = cc_xrealloc(m->byteset_bits, m->cap_byteset_bits * sizeof *m->byteset_bits);
    }
    cc_index_add(&m->byteset_index, hash, (uint32_t)g->nbytesets);
    memcpy(m->byteset_bits[g->nbytesets].bits, bits, sizeof m->byteset_bits->bits);
    cc_byteset *set = &g->bytesets[g->nbytesets];
    for (unsigned b = 0; b < 256; b++) set->in[b] = (uint8_t)(((bits[b >> 5] >> (b & 31)) & 1) << (b >= 0x80));
    return g->nbytesets++;
}

/* A useful guard: e cannot match empty and some byte cannot begin it. */
static int guardable(const cc_first *f) { return !f->nullable && !cc_first_full(f); }

/* A cut of e's own construct may run before e reads its first byte: a byte test
 * must not jump over e then, since the cut commits its choice even when e fails
 * at that byte (-- "a" / "b" fails on "b"). */
static int cut_first(emitter *m, const ast_expr *e)
{
    switch (e->kind) {
    case AST_CUT:
        return 1;
    case AST_SEQ:
        for (int i = 0; i < e->nkids; i++) {
            cc_first f;
            if (cut_first(m, e->kids[i])) return 1;
            first_of(m, e->kids[i], &f);
            if (!f.nullable) return 0;
        }
        return 0;
    case AST_CAPTURE: case AST_ATOMIC: case AST_DISCARD: case AST_ATTRIBUTE:
        return cut_first(m, e->kids[0]);
    default:
        return 0;   /* a cut inside a choice, repetition, optional, lookahead or call is their own */
    }
}

/* A byte test may stand before e. */
static int guard_ok(emitter *m, const ast_expr *e, const cc_first *f)
{
    return guardable(f) && !cut_first(m, e);
}

static uint32_t emit_btest(emitter *m, const ast_expr *e, const cc_first *f)
{
    return ins(m, e, OP_BTEST, intern_byteset(m, f->bits), 0, 0);
}

/* A class decided by the byte alone: a byte from 0x80 begins a member always
 * (negated, every listed range ASCII) or never (not negated, all ASCII). Then
 * a run of members is a run of bytes of its first-byte set. */
static int class_bytewise(const ast_expr *e)
{
    for (int i = 0; i < e->nranges; i++)
        if (e->ranges[i].hi >= 128) return 0;
    return 1;
}

/* e begins with a literal, class or any character: it fails at once where its
 * first character does not match. */
static int starts_with_terminal(const ast_expr *e)
{
    e = first_element(e);
    return e && ((e->kind == AST_LITERAL && e->len > 0) || e->kind == AST_CLASS || e->kind == AST_ANY);
}

/* e matches whenever the next byte is in its first-byte set, and then one byte
 * (a negated class would match a whole multi-byte character). */
static int single_byte(const ast_expr *e)
{
    if (e->kind == AST_CLASS) return !e->negated && class_bytewise(e);
    return e->kind == AST_LITERAL && e->len == 1 && (unsigned char)e->text[0] < 0x80;
}

/* One byte of a set: a single byte, or a choice of single bytes ("a" / "b" /
 * (?0-9)), which matches the same as the class of their union. */
static int byte_of_set(const ast_expr *e)
{
    if (e->kind != AST_CHOICE) return single_byte(e);
    for (int i = 0; i < e->nkids; i++)
        if (!single_byte(e->kids[i])) return 0;
    return 1;
}

/* Rules compiled into their value-free call sites in the fast program: small,
 * not recursive, without what sees the call boundary (cut, #error), calling only
 * rules that are themselves compiled in. size is the expression count with the
 * callees' bodies counted in (-1: not compiled in), nest the depth of calls it
 * stands for (1: calls nothing). */
enum { INLINE_MAX_SIZE = 48, INLINE_MAX_NEST = CC_INLINE_LEVELS };

static int inline_body(emitter *m, const ast_expr *e, int *nest)
{
    switch (e->kind) {
    case AST_CUT: case AST_ATTRIBUTE: case AST_PREDICATE: case AST_PRATT: return -1;
    case AST_CALL: {
        if (e->level) return -1;
        const inline_info *c = &m->inl[e->rule];
        if (c->size < 0) return -1;
        if (c->nest > *nest) *nest = c->nest;
        return c->size;
    }
    default: break;
    }
    int n = 1;
    for (int i = 0; i < e->nkids; i++) {
        int k = inline_body(m, e->kids[i], nest);
        if (k < 0 || (n += k) > INLINE_MAX_SIZE) return -1;
    }
    return n;
}

/* Every rule's inline_info, callees first (cc_callgraph), so that a rule's is
 * made from its callees'. A rule that calls itself, directly or through
 * others, is not compiled in. */
static void inline_rules(emitter *m, const cc_callgraph *cg)
{
    for (int c = 0; c < cg->ncomp; c++) {
        int r = cg->order[cg->start[c]];
        if (!cc_callgraph_single(cg, c)) {
            for (int i = cg->start[c]; i < cg->start[c + 1]; i++) m->inl[cg->order[i]] = (inline_info){ -1, 1, c, 0 };
            continue;
        }
        const cc_rule *rule = &m->g->rules[r];
        int nest = 0, size = -1;
        if (!(rule->flags & RULE_LEADER) && rule->scc < 0 && rule->pratt < 0)
            size = inline_body(m, m->ast->rules[r].body, &nest);
        m->inl[r].nest = nest + 1;
        m->inl[r].size = size >= 0 && m->inl[r].nest <= INLINE_MAX_NEST ? size : -1;
        m->inl[r].comp = c;
    }
}

/* ---- the profiled program ------------------------------------------------
 * The fast program once more, for profiled parses (docs/architecture.md, The
 * profiled program). It runs the same instructions with counters, so that a
 * profiled parse counts the calls of the reference program:
 *   - a real call counts in the loop (plain path) or in vm/call.c (general path);
 *   - a call compiled into its caller is bracketed by PIN and POUT;
 *   - where a byte test skips calls, the jump goes through PCOUNT, whose site
 *     stands for the calls the reference program would have made there and
 *     their outcomes, which are known when the compiler can see them all
 *     (skipped_calls). Where it cannot, or where a skipped call is one the
 *     memo table decides about at run time, the profiled program does not skip:
 *     it makes the calls. */

enum { SKIP_FAIL = 0, SKIP_EMPTY = 1, SKIP_UNKNOWN = -1 };

/* A call of a deferrable rule may be skipped where emit_alts_fast allows it,
 * when it is the whole alternative skipped, once per site: its first call at a
 * position is an evaluation that fails, as a skipped plain call does (PDSKIP
 * sets the rule's bit); a later one is a real call, which the memo table
 * decides. */
static int skip_deferrable(emitter *m, const ast_expr *call)
{
    const cc_rule *r = &m->g->rules[call->rule];
    return m->skip_defer_ok && call == m->skip_top && !m->skip_defer && !m->skip_in_defer &&
           (r->flags & RULE_DEFERRABLE) && !(r->flags & RULE_LEADER) && r->seen_index >= 0 &&
           r->seen_index <= UINT16_MAX;
}

/* What the reference program does with e at a position where no byte can begin
 * a non-empty match of e: every terminal it reaches before consuming anything
 * fails, so e fails or matches empty, whatever the byte. Adds the calls it makes
 * to m->skip_counts (per rule: matched, failed). SKIP_UNKNOWN: a construct whose
 * outcome or calls the compiler cannot tell (lookaheads, anchors, cuts, calls
 * the memo table decides about, recursion). */
static int skipped_calls(emitter *m, const ast_expr *e, int depth)
{
    if (depth > 64) return SKIP_UNKNOWN;
    switch (e->kind) {
    case AST_LITERAL:
        return e->len == 0 ? SKIP_EMPTY : SKIP_FAIL;
    case AST_CLASS: case AST_ANY: case AST_BOTTOM:
        return SKIP_FAIL;
    case AST_TOP:
        return SKIP_EMPTY;
    case AST_SEQ:
        for (int i = 0; i < e->nkids; i++) {
            int r = skipped_calls(m, e->kids[i], depth);
            if (r != SKIP_EMPTY) return r;
        }
        return SKIP_EMPTY;
    case AST_CHOICE:
        for (int i = 0; i < e->nkids; i++) {
            int calls;
            if (dispatch_terminal(m, e->kids[i], &calls)) continue;   /* skipped without its calls */
            int r = skipped_calls(m, e->kids[i], depth);
            if (r != SKIP_FAIL) return r;
        }
        return SKIP_FAIL;
    case AST_REPEAT: {
        if (e->max == 0) return SKIP_EMPTY;
        int r = skipped_calls(m, e->kids[0], depth);
        if (r == SKIP_UNKNOWN) return r;
        /* an iteration that matched empty ends the loop and counts */
        return (r == SKIP_EMPTY ? 1 : 0) >= e->min ? SKIP_EMPTY : SKIP_FAIL;
    }
    case AST_OPTIONAL: {
        int r = skipped_calls(m, e->kids[0], depth);
        return r == SKIP_UNKNOWN ? r : SKIP_EMPTY;
    }
    case AST_ATOMIC: case AST_DISCARD: case AST_CAPTURE:
        return skipped_calls(m, e->kids[0], depth);
    case AST_ATTRIBUTE:
        return strcmp(e->name, "error") == 0 ? skipped_calls(m, e->kids[0], depth) : SKIP_UNKNOWN;
    case AST_CALL: {
        if (e->level || e->rule < 0) return SKIP_UNKNOWN;
        int deferred = general_call(&m->g->rules[e->rule]);
        if (deferred) {
            if (!skip_deferrable(m, e)) return SKIP_UNKNOWN;
            m->skip_defer = e;
            m->skip_in_defer = 1;
        }
        int r = skipped_calls(m, m->ast->rules[e->rule].body, depth + 1);
        if (deferred) m->skip_in_defer = 0;
        if (r != SKIP_UNKNOWN) {
            uint32_t *counts = &m->skip_counts[4 * e->rule];
            if (!counts[0] && !counts[1] && !counts[2] && !counts[3]) m->skip_rules[m->nskip_rules++] = e->rule;
            counts[(deferred || m->skip_in_defer ? 2 : 0) + (r == SKIP_EMPTY ? 0 : 1)]++;
        }
        return r;
    }
    default:
        return SKIP_UNKNOWN;
    }
}

/* The counting site for skipping the n expressions es where no byte can begin
 * any of them (alts: they are alternatives of a choice, whose dispatch skips
 * those with a dispatch terminal): its index; SITE_NONE when skipping them
 * skips no call; SITE_NO_SKIP when the profiled program must not skip them. */
static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A new counting site for the calls counted (with the deferred call's and its
 * body's, or without them); SITE_NONE when there are none. */
static int add_site(emitter *m, int with_defer)
{
    pego_grammar *g = m->g;
    uint32_t ncalls = 0;
    for (int i = 0; i < m->nskip_rules; i++) {
        const uint32_t *c = &m->skip_counts[4 * m->skip_rules[i]];
        ncalls += c[0] || c[1] || (with_defer && (c[2] || c[3]));
    }
    if (!ncalls) return SITE_NONE;
    g->sites = table_room(g->sites, &m->cap_sites, (size_t)g->nsites + 1, sizeof *g->sites);
    g->site_calls = table_room(g->site_calls, &m->cap_site_calls, (size_t)g->nsite_calls + ncalls,
                               sizeof *g->site_calls);
    if (g->nsites >= m->cap_site_defer) {
        m->cap_site_defer = 2 * m->cap_site_defer + 16;
        m->site_defer = cc_xrealloc(m->site_defer, m->cap_site_defer * sizeof *m->site_defer);
    }
    g->sites[g->nsites] = (cc_site){ g->nsite_calls, ncalls };
    m->site_defer[g->nsites].call = NULL;
    m->site_defer[g->nsites].without = SITE_NONE;
    for (int i = 0; i < m->nskip_rules; i++) {
        int r = m->skip_rules[i];
        const uint32_t *c = &m->skip_counts[4 * r];
        uint32_t matched = c[0] + (with_defer ? c[2] : 0), failed = c[1] + (with_defer ? c[3] : 0);
        if (matched || failed) g->site_calls[g->nsite_calls++] = (cc_site_call){ (uint32_t)r, matched, failed };
    }
    return (int)g->nsites++;
}

static int skip_site(emitter *m, const ast_expr *const *es, int n, int alts)
{
    int site = SITE_NONE, calls;
    m->skip_defer = NULL;
    for (int i = 0; i < n && site == SITE_NONE; i++) {
        if (alts && dispatch_terminal(m, es[i], &calls)) continue;   /* an alternative skipped without its calls */
        m->skip_top = es[i];
        if (skipped_calls(m, es[i], 0) != SKIP_FAIL) site = SITE_NO_SKIP;
    }
    if (site == SITE_NONE && m->nskip_rules) {
        qsort(m->skip_rules, (size_t)m->nskip_rules, sizeof *m->skip_rules, cmp_int);   /* in rule order */
        if (m->skip_defer) {
            int without = add_site(m, 0);
            site = add_site(m, 1);
            m->site_defer[site].call = m->skip_defer;
            m->site_defer[site].without = without;
        } else {
            site = add_site(m, 0);
        }
    }
    for (int i = 0; i < m->nskip_rules; i++) memset(&m->skip_counts[4 * m->skip_rules[i]], 0, 4 * sizeof *m->skip_counts);
    m->nskip_rules = 0;
    m->skip_defer = NULL;
    m->skip_in_defer = 0;
    return site;
}

/* The profiled program may jump over e with a byte test. */
static int may_skip(emitter *m, const ast_expr *e, int *site)
{
    *site = m->profiled ? skip_site(m, &e, 1, 0) : SITE_NONE;
    return *site != SITE_NO_SKIP;
}

/* Where a byte test that skipped calls jumps: a PCOUNT of its site first. A
 * site that stands for a deferrable call is a PDSKIP: the call's first at the
 * position counts with the site; a later one is made, in a choice entry (it
 * fails), with the value it would have had in the alternative (v). */
static void count_skip_valued(emitter *m, const ast_expr *e, int site, int v)
{
    if (site < 0) return;
    const ast_expr *call = m->site_defer[site].call;
    if (!call) {
        ins(m, e, OP_PCOUNT, site, 0, 0);
        return;
    }
    uint32_t skip = ins(m, e, OP_PDSKIP, 0, site, m->site_defer[site].without);
    m->g->code[skip].d = (uint16_t)m->g->rules[call->rule].seen_index;
    uint32_t choice = ins(m, call, OP_CHOICE, 0, 0, 0);
    emit_call(m, call, v && cc_has_value(call));
    uint32_t commit = ins(m, call, OP_COMMIT, 0, 0, 0);
    patch(m, skip, here(m));
    patch(m, choice, here(m));
    patch(m, commit, here(m));
}

static void count_skip(emitter *m, const ast_expr *e, int site) { count_skip_valued(m, e, site, 0); }

/* A rule the profiled program compiles into its call sites: one the fast
 * program compiles in, unless it or a rule it calls is decided by the memo
 * table at run time. */
static int prof_inline_ok(emitter *m, const ast_expr *e)
{
    if (e->kind == AST_CALL) {
        if (general_call(&m->g->rules[e->rule])) return 0;
        return prof_inline_ok(m, m->ast->rules[e->rule].body);
    }
    for (int i = 0; i < e->nkids; i++)
        if (!prof_inline_ok(m, e->kids[i])) return 0;
    return 1;
}

/* Chains of rules (cc_chain), interned: equal chains share an index. */
typedef struct { const int *rules; int n; int fail_site; } chain_key;
enum { CHAIN_MAX = 64 };

static int same_chain(const void *ctx, uint32_t c, const void *key)
{
    const pego_grammar *g = ctx;
    const chain_key *k = key;
    const cc_chain *ch = &g->chains[c];
    if (ch->n != (uint32_t)k->n || ch->fail_site != k->fail_site) return 0;
    for (int i = 0; i < k->n; i++)
        if (g->chain_rules[ch->first + (uint32_t)i] != (uint32_t)k->rules[i]) return 0;
    return 1;
}

/* The index of the chain of the n rules (at most CHAIN_MAX), made if new. */
static int intern_rules(emitter *m, const int *rules, int n, int fail_site)
{
    pego_grammar *g = m->g;
    chain_key key = { rules, n, fail_site };
    uint32_t hash = cc_hash(rules, (size_t)n * sizeof *rules) ^ (uint32_t)fail_site * 0x9E3779B1u;
    int found = cc_index_find(&m->chain_index, hash, same_chain, g, &key);     /* the same chain again */
    if (found >= 0) return found;
    g->chains = table_room(g->chains, &m->cap_chains, (size_t)g->nchains + 1, sizeof *g->chains);
    g->chain_rules = table_room(g->chain_rules, &m->cap_chain_rules, (size_t)g->nchain_rules + (uint32_t)n,
                                sizeof *g->chain_rules);
    cc_index_add(&m->chain_index, hash, g->nchains);
    g->chains[g->nchains] = (cc_chain){ g->nchain_rules, (uint32_t)n, fail_site };
    for (int i = 0; i < n; i++) g->chain_rules[g->nchain_rules++] = (uint32_t)rules[i];
    return (int)g->nchains++;
}

/* The chain of rules compiled in at a call of rule r: r, then while the last
 * one's whole body is a call of a rule compiled in too, that rule, with the
 * site its failures count (or SITE_NONE). Returns its index; *last is the rule
 * whose body is emitted. */
static int intern_chain(emitter *m, int r, int *last, int fail_site)
{
    int rules[CHAIN_MAX], n = 0;
    rules[n++] = r;
    for (;;) {
        const ast_expr *b = m->ast->rules[rules[n - 1]].body;
        if (n == CHAIN_MAX || b->kind != AST_CALL || b->level || b->rule < 0) break;
        if (m->inl[b->rule].size < 0 || !prof_inline_ok(m, b)) break;
        int seen = 0;
        for (int i = 0; i < n; i++) seen |= rules[i] == b->rule;
        if (seen) break;
        rules[n++] = b->rule;
    }
    *last = rules[n - 1];
    return intern_rules(m, rules, n, fail_site);
}

/* A deferrable rule the profiled program compiles into a call site anyway,
 * behind PDEFER: its first call at a position is unmemoized, so it may run
 * in place (PDEFER jumps over the real call to the body); a later one is a
 * real call (the memo table decides it), after PDEFER. Only
 * outside other calls compiled in, since the real call runs in a frame of its
 * own, and only when it calls nothing the memo table decides. */
static int prof_inline_deferred(emitter *m, const ast_expr *call)
{
    const cc_rule *r = &m->g->rules[call->rule];
    if (!m->profiled || m->inline_level || !(r->flags & RULE_DEFERRABLE) || (r->flags & RULE_LEADER) ||
        r->seen_index < 0 || r->seen_index > UINT16_MAX)
        return 0;
    return prof_inline_ok(m, m->ast->rules[call->rule].body);
}

/* The profiled program enters an alternative only where the reference
 * program's dispatch does (dispatch_terminal), since the calls counted are
 * those the reference program makes. An alternative that reaches its terminal
 * through calls needs a test of it, unless the fast program's byte test before
 * it (guarded) decides the same: a terminal decided by its first byte. */
static int prof_dispatch_needed(emitter *m, const ast_expr *alt, int guarded, const ast_expr **t)
{
    int calls;
    if (!m->profiled || !(*t = dispatch_terminal(m, alt, &calls)) || calls == 0) return 0;
    if (!guarded) return 1;
    return (*t)->kind == AST_CLASS ? !class_bytewise(*t) : (unsigned char)(*t)->text[0] >= 0x80;
}

/* That test, or 0. It jumps where the alternative is skipped, with no calls
 * counted: those of the nesting limit are the reference program's alone (the
 * fast program keeps levels in reserve for them). */
static uint32_t emit_prof_dispatch(emitter *m, const ast_expr *alt, int guarded)
{
    const ast_expr *t;
    return prof_dispatch_needed(m, alt, guarded, &t) ? emit_dispatch_test(m, t, 0) : 0;
}

/* Whether the fast program may run e once for alternatives that each begin
 * with it: what it matches depends on the input and the position alone. Calls are of rules compiled in (not recursive, without cuts,
 * predicates or attributes: inline_body); captures, which actions and
 * predicates read, are not shared. */
static int shareable(const emitter *m, const ast_expr *e)
{
    switch (e->kind) {
    case AST_LITERAL: case AST_CLASS: case AST_ANY: case AST_TOP: case AST_BOTTOM: case AST_ANCHOR:
        return 1;
    case AST_CALL:
        return e->rule >= 0 && !e->level && m->inl[e->rule].size >= 0;
    case AST_SEQ: case AST_CHOICE: case AST_REPEAT: case AST_OPTIONAL: case AST_AND: case AST_NOT:
    case AST_ATOMIC: case AST_DISCARD:
        for (int i = 0; i < e->nkids; i++)
            if (!shareable(m, e->kids[i])) return 0;
        return 1;
    default:
        return 0;
    }
}

/* Whether e may call a rule: a call, or a predicate, attribute or Pratt
 * expression, which are not looked into. */
static int makes_calls(const ast_expr *e)
{
    if (e->kind == AST_CALL || e->kind == AST_PRATT || e->kind == AST_ATTRIBUTE || e->kind == AST_PREDICATE)
        return 1;
    for (int i = 0; i < e->nkids; i++)
        if (makes_calls(e->kids[i])) return 1;
    return 0;
}

/* How many leading elements the alternatives kids[0..n-1], all sequences,
 * share, in the fast program: `a b / a c` matches as `a (b / c)`, since a
 * matches the same wherever it runs again, and the second run is saved. Each
 * alternative keeps an element of its own; none may have a cut that commits
 * the choice, and the rule may not take part in left recursion. With values
 * (v), every alternative has one and the shared elements none: each
 * alternative's node then begins where they begin (emit_alts_shared). The
 * profiled program, which makes the calls the reference program makes, shares
 * only among alternatives that make none, so that it runs what the fast
 * program runs there (the accuracy benchmark's tryline). */
static int shared_prefix(const emitter *m, ast_expr *const *kids, int n, int v)
{
    if (!m->fast || n < 2 || m->reaches_cycle[m->rule]) return 0;
    for (int i = 0; i < n; i++)
        if (kids[i]->kind != AST_SEQ || cc_loose_cut(kids[i]) || (v && !cc_has_value(kids[i])) ||
            (m->profiled && makes_calls(kids[i])))
            return 0;
    for (int k = 0;; k++) {
        for (int i = 0; i < n; i++)
            if (kids[i]->nkids <= k + 1) return k;
        if (!shareable(m, kids[0]->kids[k]) || (v && cc_has_value(kids[0]->kids[k]))) return k;
        for (int i = 1; i < n; i++)
            if (!cc_same_expr(kids[0]->kids[k], kids[i]->kids[k])) return k;
    }
}

static void emit_alts_fast(emitter *m, ast_expr *const *kids, int n, int v, int live);

/* Whether the alternatives kids[0..n-1], with first-byte sets first, make a
 * jump table in the fast program: three or more that cannot match empty, with
 * disjoint sets and no loose cuts, so one jump on the next byte picks the only
 * one that can match. A set is disjoint from each earlier one when it is from
 * their union. */
static int table_alts(emitter *m, ast_expr *const *kids, int n, const cc_first *first)
{
    int table = n >= 3;
    cc_first before;
    memset(&before, 0, sizeof before);
    for (int i = 0; i < n && table; i++) {
        table = guard_ok(m, kids[i], &first[i]) && !cc_loose_cut(kids[i]) && cc_first_disjoint(&first[i], &before);
        for (int w = 0; w < 8; w++) before.bits[w] |= first[i].bits[w];
    }
    return table;
}

/* Alternatives that share their first k elements (shared_prefix): those
 * elements once, then a choice of what follows them in each alternative.
 * With values, the alternatives' nodes begin before the shared elements: the
 * position is pushed there (PUSHPOS), and what follows makes each node
 * without pushing it again (pos_pushed). */
static void emit_alts_shared(emitter *m, ast_expr *const *kids, int n, int k, int v, int live)
{
    if (v) ins(m, kids[0], OP_PUSHPOS, 0, 0, 0);
    for (int j = 0; j < k; j++) emit_expr(m, kids[0]->kids[j], 0, live);
    ast_expr *rest = cc_xmalloc((size_t)n * sizeof *rest);
    ast_expr **alts = cc_xmalloc((size_t)n * sizeof *alts);
    for (int i = 0; i < n; i++) {
        rest[i] = *kids[i];
        rest[i].kids += k;
        rest[i].nkids -= k;
        rest[i].line = rest[i].kids[0]->line;
        rest[i].col = rest[i].kids[0]->col;
        alts[i] = rest[i].nkids == 1 && !v ? rest[i].kids[0] : &rest[i];
    }
    const ast_expr *pushed = m->pos_pushed;
    int npushed = m->npos_pushed;
    m->pos_pushed = rest;
    m->npos_pushed = v ? n : 0;
    emit_alts_fast(m, alts, n, v, live);
    m->pos_pushed = pushed;
    m->npos_pushed = npushed;
    cc_free(alts);
    cc_free(rest);
}

/* Alternatives kids[0..n-1] of a choice, in the fast program. An alternative
 * that cannot match empty is guarded by a byte test that jumps to the next one;
 * it gets no choice entry when no later alternative can match at a byte where
 * it can begin (none can match empty, their first-byte sets are disjoint from
 * its own): if it fails, the whole choice fails. */
static void emit_alts_fast(emitter *m, ast_expr *const *kids, int n, int v, int live)
{
    int shared = shared_prefix(m, kids, n, v);
    if (shared) {
        emit_alts_shared(m, kids, n, shared, v, live);
        return;
    }
    cc_first *first = cc_xmalloc((size_t)n * sizeof *first);
    uint32_t *ends = cc_xmalloc((size_t)n * sizeof *ends);
    int *site = cc_xmalloc((size_t)n * sizeof *site);
    for (int i = 0; i < n; i++) first_of(m, kids[i], &first[i]);
    int nends = 0;
    /* Three or more alternatives that cannot match empty, with disjoint
     * first-byte sets and no cuts: one jump on the next byte picks the only
     * alternative that can match, with no choice entry. The profiled program
     * jumps so only over alternatives that call nothing before their first byte.
     * A set is disjoint from each earlier one when it is from their union. */
    int table = table_alts(m, kids, n, first);
    /* The profiled program counts, at the target of each alternative, the calls
     * of the alternatives before it, and at the target of no alternative all
     * of them: pre[i] is the site of kids[0..i-1]. */
    int *pre = cc_xmalloc(((size_t)n + 1) * sizeof *pre), *post = cc_xmalloc((size_t)n * sizeof *post);
    for (int i = 0; i <= n; i++) pre[i] = SITE_NONE;
    m->skip_defer_ok = 1;
    for (int i = 1; i <= n && table && m->profiled; i++)
        if ((pre[i] = skip_site(m, (const ast_expr *const *)kids, i, 1)) == SITE_NO_SKIP) table = 0;
    /* and where the dispatch skips the alternative the byte picked, or where
     * that alternative fails, the calls of the alternatives after it that the
     * reference program then tries (those its dispatch does not skip): post[i] */
    for (int i = 0; i < n && table; i++) {
        post[i] = SITE_NONE;
        if (m->profiled &&
            (post[i] = skip_site(m, (const ast_expr *const *)&kids[i + 1], n - i - 1, 1)) == SITE_NO_SKIP)
            table = 0;
    }
    for (int i = 0; i < n && !table; i++)
        site[i] = m->profiled ? skip_site(m, (const ast_expr *const *)&kids[i], 1, 1) : SITE_NONE;
    m->skip_defer_ok = 0;
    if (table) {
        pego_grammar *g = m->g;
        g->dispatch = table_room(g->dispatch, &m->cap_dispatch, (size_t)g->ndispatch + 1, sizeof *g->dispatch);
        int index = g->ndispatch++;
        uint32_t to[256];
        ins(m, kids[0], OP_DISPATCH, index, 0, 0);
        uint32_t *exact = cc_xmalloc((size_t)n * sizeof *exact), *entry = cc_xmalloc((size_t)n * sizeof *entry);
        for (int i = 0; i < n; i++) {
            uint32_t at = here(m);
            for (unsigned b = 0; b < 256; b++)
                if (cc_first_has(&first[i], b)) to[b] = at;
            count_skip_valued(m, kids[i], pre[i], v);
            exact[i] = emit_prof_dispatch(m, kids[i], 1);
            /* the profiled program: an alternative that fails counts post[i],
             * in its call or from an entry */
            entry[i] = 0;
            if (post[i] >= 0 && call_counts_failure(m, kids[i], post[i])) {
                m->fail_call = kids[i];
                m->fail_site = post[i];
            } else if (post[i] >= 0) {
                entry[i] = ins(m, kids[i], OP_CHOICE, 0, 0, 0);
            }
            emit_expr(m, kids[i], v && cc_has_value(kids[i]), live);
            m->fail_call = NULL;
            if (v && !cc_has_value(kids[i])) ins(m, kids[i], OP_NIL, 0, 0, 0);
            ends[nends++] = ins(m, kids[i], entry[i] ? OP_COMMIT : OP_JMP, 0, 0, 0);
        }
        for (int i = 0; i < n; i++) {
            if (!exact[i] && !entry[i]) continue;
            patch_test(m, exact[i], here(m));
            if (entry[i]) patch(m, entry[i], here(m));
            count_skip_valued(m, kids[i], post[i], v);
            ins(m, kids[i], OP_FAIL, 0, 0, 0);
        }
        cc_free(exact);
        cc_free(entry);
        uint32_t none = here(m);
        count_skip_valued(m, kids[n - 1], pre[n], v);
        ins(m, kids[n - 1], OP_FAIL, 0, 0, 0);
        cc_dispatch *t = &g->dispatch[index];
        for (unsigned b = 0; b < 256; b++) t->to[b] = none;
        t->eoi = none;
        for (int i = 0; i < n; i++)
            for (unsigned b = 0; b < 256; b++)
                if (cc_first_has(&first[i], b)) t->to[b] = to[b];
        for (int i = 0; i < nends; i++) patch(m, ends[i], here(m));
        cc_free(first);
        cc_free(ends);
        cc_free(site);
        cc_free(pre);
        cc_free(post);
        return;
    }
    cc_free(pre);
    cc_free(post);
    /* after[i]: what the alternatives after alternative i can begin with and
     * whether one can match empty; after_calls[i]: whether one is skipped with
     * calls counted (a site) */
    cc_first *after = cc_xmalloc(((size_t)n + 1) * sizeof *after);
    uint8_t *after_calls = cc_xmalloc((size_t)n + 1);
    if (n > 0) {
        memset(&after[n - 1], 0, sizeof *after);
        after_calls[n - 1] = 0;
    }
    for (int j = n - 2; j >= 0; j--) {
        after[j] = after[j + 1];
        for (int w = 0; w < 8; w++) after[j].bits[w] |= first[j + 1].bits[w];
        after[j].nullable |= first[j + 1].nullable;
        after_calls[j] = after_calls[j + 1] | (site[j + 1] != SITE_NONE);
    }
    for (int i = 0; i < n; i++) {
        const ast_expr *alt = kids[i];
        int last = i == n - 1, loose = cc_loose_cut(alt);
        const cc_first *later = &after[i];
        /* the profiled program runs the later alternatives after a failure when
         * the reference program would call rules in them */
        int later_calls = after_calls[i];
        /* the last alternative needs no guard when it begins by testing a character */
        int guard = guard_ok(m, alt, &first[i]) && !(last && starts_with_terminal(alt)) && site[i] != SITE_NO_SKIP;
        int entry = last ? loose : (loose || !guard || later->nullable || later_calls ||
                                    !cc_first_disjoint(&first[i], later));
        uint32_t test = guard ? emit_btest(m, alt, &first[i]) : 0;
        uint32_t exact = emit_prof_dispatch(m, alt, guard);   /* skips with no calls counted */
        uint32_t choice = entry ? ins(m, alt, OP_CHOICE, 0, 0, 0) : 0;
        emit_expr(m, alt, v && cc_has_value(alt), live);
        if (v && !cc_has_value(alt)) ins(m, alt, OP_NIL, 0, 0, 0);
        if (entry || !last || test || exact) ends[nends++] = ins(m, alt, entry ? OP_COMMIT : OP_JMP, 0, 0, 0);
        uint32_t skipped = here(m);
        if (test) count_skip_valued(m, alt, site[i], v);   /* none where the dispatch skips alt too */
        if (entry) patch(m, choice, here(m));
        patch_test(m, test, skipped);
        patch_test(m, exact, skipped);
        if (last && (entry || test || exact)) ins(m, alt, OP_FAIL, 0, 0, 0);
    }
    for (int i = 0; i < nends; i++) patch(m, ends[i], here(m));
    cc_free(first);
    cc_free(ends);
    cc_free(site);
    cc_free(after);
    cc_free(after_calls);
}

/* (A / C)* in the fast program, value-free, where C is a class decided by the
 * byte and no other alternative can match empty or begin with a byte of C: a
 * run of C is one byte span, and the other alternatives are tried between runs
 * (a loop of choice entries: the first failure ends it). SPANTEST spans and
 * leaves the loop when no other alternative can begin at the next byte.
 * Returns 0 when the loop does not have that shape. */
static int emit_class_loop(emitter *m, const ast_expr *e)
{
    const ast_expr *kid = e->kids[0];
    if (e->min != 0 || e->max >= 0 || kid->kind != AST_CHOICE) return 0;
    /* a cut in an alternative commits the alternatives' choice, which this loop
     * has not (its one choice entry is the iteration's) */
    for (int i = 0; i < kid->nkids; i++)
        if (cc_loose_cut(kid->kids[i])) return 0;
    int k = -1;
    for (int i = 0; i < kid->nkids && k < 0; i++)
        if (kid->kids[i]->kind == AST_CLASS && class_bytewise(kid->kids[i])) k = i;
    if (k < 0) return 0;
    cc_first cls, others, f;
    first_of(m, kid->kids[k], &cls);
    memset(&others, 0, sizeof others);
    ast_expr **rest = cc_xmalloc((size_t)kid->nkids * sizeof *rest);
    int n = 0;
    for (int i = 0; i < kid->nkids; i++) {
        if (i == k) continue;
        first_of(m, kid->kids[i], &f);
        if (f.nullable || !cc_first_disjoint(&f, &cls)) { cc_free(rest); return 0; }
        for (int w = 0; w < 8; w++) others.bits[w] |= f.bits[w];
        rest[n++] = kid->kids[i];
    }
    /* The profiled program: the reference program tries the alternatives before
     * the class at every character of the run; SPANTEST counts their site per
     * character spanned. */
    int each = m->profiled && k > 0 ? skip_site(m, (const ast_expr *const *)rest, k, 1) : SITE_NONE;
    if (each == SITE_NO_SKIP || each > UINT16_MAX) { cc_free(rest); return 0; }
    /* where the loop ends at a byte no alternative can begin, every alternative was tried */
    int site = m->profiled ? skip_site(m, (const ast_expr *const *)rest, n, 1) : SITE_NONE;
    if (site == SITE_NO_SKIP) { cc_free(rest); return 0; }
    uint32_t top = ins(m, e, OP_SPANTEST, intern_byteset(m, cls.bits), 0, intern_byteset(m, others.bits));
    if (each >= 0) {
        m->g->code[top].flags |= INS_COUNT;
        m->g->code[top].d = (uint16_t)each;
    }
    uint32_t choice = ins(m, kid, OP_CHOICE, 0, 0, 0);
    if (n == 1) emit_expr(m, rest[0], 0, 0);
    else emit_alts_fast(m, rest, n, 0, 0);
    ins(m, kid, OP_COMMIT, (int32_t)top, 0, 0);
    m->g->code[top].b = (int32_t)here(m);
    count_skip(m, e, site);
    patch(m, choice, here(m));
    cc_free(rest);
    return 1;
}

/* A call. In a valued body whose value is discarded (v == 0), the callee's
 * value-free body is used unless the callee grows seeds together with this rule:
 * mixing valued and value-free bodies in one left-recursive cycle would change
 * what the growing seed holds. */
/* Real call at: its failure counts site (SITE_NONE: nothing), in
 * grammar.call_fail_site. */
static void note_call_fail(emitter *m, uint32_t at, int site)
{
    if (site < 0) return;
    if (m->nfail_calls == m->cap_fail_calls) {
        m->cap_fail_calls = 2 * m->cap_fail_calls + 8;
        m->fail_calls = cc_xrealloc(m->fail_calls, m->cap_fail_calls * sizeof *m->fail_calls);
        m->fail_call_sites = cc_xrealloc(m->fail_call_sites, m->cap_fail_calls * sizeof *m->fail_call_sites);
    }
    m->fail_calls[m->nfail_calls] = at;
    m->fail_call_sites[m->nfail_calls++] = site;
}

/* Whether the profiled program's code of alternative e counts site, when e
 * fails, without a choice entry: e is a call, compiled in (its chain's
 * failures count it, cc_chain.fail_site) or a plain or deferrable one (its
 * frame's failure or failing memo hit counts it, grammar.call_fail_site), and
 * the site is counted by a run (no deferrable call in it: PDSKIP). */
static int call_counts_failure(emitter *m, const ast_expr *e, int site)
{
    if (e->kind != AST_CALL || e->level || e->rule < 0 || m->site_defer[site].call) return 0;
    const cc_rule *r = &m->g->rules[e->rule];
    if ((r->flags & (RULE_LEADER | RULE_CYCLIC)) || r->pratt >= 0) return 0;
    return !general_call(r) || ((r->flags & RULE_DEFERRABLE) && r->seen_index >= 0 && r->seen_index <= UINT16_MAX);
}

/* A rule whose body is a jump table of calls (JSON's value): the fast
 * program compiles the table into each call's site (emit_dispatcher), saving
 * the rule's call. In value-free code, some alternatives must be of rules
 * compiled in, whose code the table then holds (bounded like a rule's); in
 * valued code, some must be of rules that cannot call it again (see
 * dispatched), and the rule must have nothing to do with the value
 * (value_of_calls, no action or terminal type, no captures for predicates).
 * Not a rule compiled in itself, nor one of or reaching a left-recursive
 * cycle. */
static int dispatcher(emitter *m, const ast_expr *call, int valued)
{
    if (!m->fast || m->profiled || m->dispatch || call->level || call->rule < 0) return 0;
    int rr = call->rule;
    const cc_rule *r = &m->g->rules[rr];
    const ast_expr *body = m->ast->rules[rr].body;
    if (m->inl[rr].size >= 0 || (r->flags & (RULE_LEADER | RULE_CYCLIC)) || r->pratt >= 0 ||
        m->reaches_cycle[rr] || body->kind != AST_CHOICE)
        return 0;
    if (valued && (m->action[rr] >= 0 || r->term_type >= 0 || rule_predicates_read(m, rr))) return 0;
    int size = 0, direct = 0;
    for (int i = 0; i < body->nkids; i++) {
        const ast_expr *k = body->kids[i];
        if (k->kind != AST_CALL || k->level || k->rule < 0) return 0;
        if (m->inl[k->rule].size >= 0) size += m->inl[k->rule].size;
        if (m->inl[k->rule].comp != m->inl[rr].comp) direct = 1;
    }
    if (valued ? !direct : (!size || size > INLINE_MAX_SIZE)) return 0;
    cc_first *first = cc_xmalloc((size_t)body->nkids * sizeof *first);
    for (int i = 0; i < body->nkids; i++) first_of(m, body->kids[i], &first[i]);
    int table = table_alts(m, body->kids, body->nkids, first);
    cc_free(first);
    return table;
}

/* The call of such a rule: its jump table in place, its alternatives' calls
 * as written, or compiled in, but for those dispatched takes. The reference
 * program's frame of the rule is one more level below them, which the fast
 * program keeps in reserve (one per rule whose table is compiled in: a chain
 * of calls meets such a rule's level once, since the alternatives below it
 * cannot call it again). */
static void emit_dispatcher(emitter *m, const ast_expr *call, int valued)
{
    const ast_expr *body = m->ast->rules[call->rule].body;
    int rule = m->rule;
    m->inl[call->rule].dispatched = 1;
    m->dispatch = call;
    m->rule = call->rule;
    emit_alts_fast(m, body->kids, body->nkids, valued, valued);
    m->rule = rule;
    m->dispatch = NULL;
}

/* Whether call e is an alternative of the table emit_dispatcher compiles in
 * whose rule can call the table's rule again (they share a component of the
 * call graph: JSON's object and array). The rule's own call is made instead,
 * which picks the same alternative by the same byte: its frame keeps the
 * nesting depth the reference program's, which a nest of such calls would
 * otherwise miss by a level per call. */
static int dispatched(const emitter *m, const ast_expr *e)
{
    if (!m->dispatch || m->inl[e->rule].comp != m->inl[m->dispatch->rule].comp) return 0;
    const ast_expr *body = m->ast->rules[m->dispatch->rule].body;
    for (int i = 0; i < body->nkids; i++)
        if (body->kids[i] == e) return 1;
    return 0;
}

/* Notes that the call at at, of a rule whose table dispatched picks the
 * alternative arm from, enters the rule's body where the table jumps for
 * arm's first bytes (resolved with the call addresses, cc_emit): the table
 * already chose, and its rule's frame is all the call is for. */
static void note_arm_call(emitter *m, uint32_t at, const ast_expr *arm)
{
    cc_first f;
    first_of(m, arm, &f);
    unsigned b = 0;
    while (b < 255 && !cc_first_has(&f, b)) b++;
    if (m->narm_calls == m->cap_arm_calls) {
        m->cap_arm_calls = 2 * m->cap_arm_calls + 8;
        m->arm_calls = cc_xrealloc(m->arm_calls, m->cap_arm_calls * sizeof *m->arm_calls);
        m->arm_bytes = cc_xrealloc(m->arm_bytes, m->cap_arm_calls * sizeof *m->arm_bytes);
    }
    m->arm_calls[m->narm_calls] = at;
    m->arm_bytes[m->narm_calls++] = (uint8_t)b;
}

static void emit_call(emitter *m, const ast_expr *e, int v)
{
    const ast_expr *arm = NULL;
    if (dispatched(m, e)) {
        arm = e;
        e = m->dispatch;
    }
    int fail_site = e == m->fail_call ? m->fail_site : SITE_NONE;
    pego_grammar *g = m->g;
    cc_rule *callee = &g->rules[e->rule];
    int variant, pop = 0;
    if (!m->valued) {
        variant = CC_VF(g, e->rule);
    } else if (v) {
        variant = e->rule;
    } else if ((callee->flags & (RULE_CYCLIC | RULE_REACHES_CYCLE)) || m->runs_action[e->rule]) {
        /* a left-recursive cycle grows its seeds in one variant: what it
         * matches at a position depends on which of its rules was called
         * there first, and each variant has its own memo entries */
        variant = e->rule;
        pop = 1;
    } else {
        variant = CC_VF(g, e->rule);
        callee->flags |= RULE_TWIN;
    }
    if (m->fast && variant == CC_VF(g, e->rule) && !e->level) {
        int deferred = m->inl[e->rule].size >= 0 && prof_inline_deferred(m, e);
        if (m->inl[e->rule].size >= 0 && (!m->profiled || prof_inline_ok(m, e) || deferred)) {
            if (m->inl[e->rule].nest > m->inline_nest) m->inline_nest = m->inl[e->rule].nest;
            int rule = m->rule;
            uint32_t defer = 0, over = 0;
            if (deferred) {             /* a later call at the position: the real one, then past the body */
                defer = ins(m, e, OP_PDEFER, variant, 0, 0);
                g->code[defer].d = (uint16_t)callee->seen_index;
                note_call_fail(m, ins(m, e, OP_CALLG, variant, -1, 0), fail_site);
                over = ins(m, e, OP_JMP, 0, 0, 0);
                g->code[defer].b = (int32_t)here(m);
            }
            int last = e->rule, chain = m->profiled ? intern_chain(m, e->rule, &last, fail_site) : -1;
            m->rule = last;
            if (m->profiled) ins(m, e, OP_PIN, chain, m->inline_level, 0);
            m->inline_level++;
            emit_expr(m, m->ast->rules[last].body, 0, 0);
            m->inline_level--;
            if (m->profiled) ins(m, e, OP_POUT, chain, m->inline_level, 0);
            m->rule = rule;
            if (deferred) patch(m, over, here(m));
            return;
        }
    }
    int valued = m->valued && v && variant == e->rule && !pop;
    if ((valued || variant == CC_VF(g, e->rule)) && dispatcher(m, e, valued)) {
        emit_dispatcher(m, e, valued);
        return;
    }
    int level = 0;
    if (e->level) {
        const ast_pratt *pr = m->ast->rules[e->rule].body->pratt;
        for (int i = 0; i < pr->nlevels; i++)
            if (pr->levels[i].name && strcmp(pr->levels[i].name, e->level) == 0) level = i + 1;
    }
    uint32_t at = ins(m, e, general_call(callee) ? OP_CALLG : OP_CALL, variant, -1, level);
    note_call_fail(m, at, fail_site);
    if (arm) note_arm_call(m, at, arm);
    if (m->fast && (callee->flags & RULE_DEFERRABLE) && !level && callee->seen_index <= UINT16_MAX) {
        m->g->code[at].flags |= INS_DEFER;
        m->g->code[at].d = (uint16_t)callee->seen_index;
    }
    if (pop) ins(m, e, OP_POP, 0, 0, 0);
}

/* The alternatives of a choice. An alternative with a loose cut gets a choice
 * entry even when it is the last one, so that the cut has an entry to mark. */
static void emit_choice(emitter *m, const ast_expr *e, int v, int live)
{
    if (m->fast) { emit_alts_fast(m, e->kids, e->nkids, v, live); return; }
    uint32_t *commits = cc_xmalloc((size_t)e->nkids * sizeof(uint32_t));
    int ncommits = 0;
    for (int i = 0; i < e->nkids; i++) {
        const ast_expr *alt = e->kids[i];
        int last = i == e->nkids - 1;
        int entry = !last || cc_loose_cut(alt);
        uint32_t choice = 0, test = 0;
        int site, calls;
        const ast_expr *t = dispatch_terminal(m, alt, &calls);
        if (t) test = emit_dispatch_test(m, t, calls);
        else if (!last) test = emit_first_test(m, alt, &site);
        if (entry) choice = ins(m, alt, OP_CHOICE, 0, 0, 0);
        emit_expr(m, alt, v && cc_has_value(alt), live);
        if (v && !cc_has_value(alt)) ins(m, alt, OP_NIL, 0, 0, 0);
        if (entry || test) {
            commits[ncommits++] = ins(m, alt, entry ? OP_COMMIT : OP_JMP, 0, 0, 0);
            if (entry) patch(m, choice, here(m));
            patch_test(m, test, here(m));
            if (last) ins(m, alt, OP_FAIL, 0, 0, 0);
        }
    }
    for (int i = 0; i < ncommits; i++) patch(m, commits[i], here(m));
    cc_free(commits);
}

/* Notes the REP instruction at of repetition e, for link_reps. */
static void note_rep(emitter *m, const ast_expr *e, uint32_t at)
{
    if (!m->in_rule || (!m->fast && m->valued)) return;
    struct rep_at **reps = m->fast ? &m->fast_reps : &m->ref_reps;
    uint32_t *n = m->fast ? &m->nfast_reps : &m->nref_reps, *cap = m->fast ? &m->cap_fast_reps : &m->cap_ref_reps;
    if (*n == *cap) {
        *cap = 2 * *cap + 8;
        *reps = cc_xrealloc(*reps, *cap * sizeof **reps);
    }
    (*reps)[(*n)++] = (struct rep_at){ e, at };
}

static int cmp_rep_at(const void *a, const void *b)
{
    const struct rep_at *x = a, *y = b;
    uintptr_t p = (uintptr_t)x->e, q = (uintptr_t)y->e;
    return p < q ? -1 : p > q;
}

/* grammar.rep_links: each REP of the fast and profiled programs with the REP
 * of the same repetition in the reference program's value-free bodies, where
 * an iteration's overshoot has a bound. */
static void link_reps(emitter *m)
{
    pego_grammar *g = m->g;
    if (!m->nfast_reps || !m->nref_reps) return;
    qsort(m->ref_reps, m->nref_reps, sizeof *m->ref_reps, cmp_rep_at);
    g->rep_links = table_new(m->nfast_reps, sizeof *g->rep_links);
    for (uint32_t i = 0; i < m->nfast_reps; i++) {     /* in the order of their addresses */
        const struct rep_at *f = &m->fast_reps[i];
        struct rep_at *ref = bsearch(f, m->ref_reps, m->nref_reps, sizeof *m->ref_reps, cmp_rep_at);
        if (!ref) continue;
        /* a repetition emitted twice in the reference program has no one REP */
        if ((ref > m->ref_reps && ref[-1].e == f->e) || (ref + 1 < m->ref_reps + m->nref_reps && ref[1].e == f->e))
            continue;
        uint32_t over = cc_overshoot_iteration(m->ast, g, m->rfirst, m->overshoot, f->e);
        if (over == OVERSHOOT_NONE) continue;
        g->rep_links[g->nrep_links++] = (cc_rep_link){ f->at, ref->at, over };
    }
}

static void emit_repeat(emitter *m, const ast_expr *e, int v, int live)
{
    const ast_expr *kid = e->kids[0];
    int32_t max = e->max < 0 ? -1 : (int32_t)(e->max > INT32_MAX ? INT32_MAX : e->max);
    int32_t min = (int32_t)(e->min > INT32_MAX ? INT32_MAX : e->min);
    if (max == 0) {
        if (v) { ins(m, e, OP_LISTOPEN, 0, 0, 0); ins(m, e, OP_LIST, 1, 0, 0); }
        return;
    }
    if (!v && kid->kind == AST_CLASS) {
        if (m->fast && class_bytewise(kid) && max < 0 && min <= 1) {
            cc_first f;
            first_of(m, kid, &f);
            ins(m, e, min ? OP_BSPAN1 : OP_BSPAN, intern_byteset(m, f.bits), 0, 0);
        } else {
            ins(m, e, OP_SPAN, intern_class(m, kid), min, max);
        }
        return;
    }
    if (m->fast && !v && byte_of_set(kid) && max < 0 && min <= 1) {   /* "a"*, ("a" / "b")*: byte spans too */
        cc_first f;
        first_of(m, kid, &f);
        ins(m, e, min ? OP_BSPAN1 : OP_BSPAN, intern_byteset(m, f.bits), 0, 0);
        return;
    }
    if (m->fast && !v && emit_class_loop(m, e)) return;
    /* fast program: a byte test before each iteration leaves the loop at once */
    cc_first f;
    int guard = 0, site = SITE_NONE;
    if (m->fast && !cc_loose_cut(kid)) {
        first_of(m, kid, &f);
        guard = guard_ok(m, kid, &f) && may_skip(m, kid, &site);
    }
    int scope = cc_scope_has_captures(kid);
    if (v) ins(m, e, OP_LISTOPEN, 0, 0, 0);
    uint32_t rep = ins(m, e, OP_REP, 0, min, max);
    note_rep(m, e, rep);
    if (m->stream_next) {                 /* a stream parse hands its iterations over (vm/stream.c) */
        m->g->code[rep].flags |= INS_STREAM;
        m->g->rules[m->rule].flags |= RULE_STREAM;
        m->stream_next = 0;
    }
    uint32_t test = guard ? emit_btest(m, kid, &f) : 0;
    int32_t outer = m->scope_rep;
    if (scope) m->scope_rep = (int32_t)rep;
    emit_expr(m, kid, v && cc_has_value(kid), v ? live : 0);
    m->scope_rep = outer;
    if (v && !cc_has_value(kid)) ins(m, kid, OP_NIL, 0, 0, 0);
    uint32_t next = ins(m, e, OP_REPNEXT, (int32_t)rep, 0, 0);
    if (scope && v) m->g->code[next].flags |= INS_SCOPE;
    else if (scope && m->pred_labels) m->g->code[next].flags |= INS_DROP;
    if (test) {
        patch_test(m, test, here(m));
        count_skip(m, kid, site);
        ins(m, e, OP_ITEREXIT, (int32_t)rep, 0, 0);
    }
    patch(m, rep, here(m));
    if (v) ins(m, e, OP_LIST, 0, 0, 0);
}

static const ast_expr *attribute_arg(const ast_expr *e, const char *name)
{
    for (int i = 0; i < e->nargs; i++)
        if (strcmp(e->args[i].name, name) == 0) return e->args[i].value;
    return NULL;
}

/* #error(message=...) runs its expression in an expectation window of its own
 * and records the message instead when it fails; #recover(skip=...) runs the
 * skip after a failure and records a recovered error (docs/language.md 4). */
static void emit_attribute(emitter *m, const ast_expr *e, int v, int live)
{
    const ast_expr *kid = e->kids[0];
    if (m->fast && strcmp(e->name, "error") == 0) {   /* messages are the reference program's */
        emit_expr(m, kid, v, live);
        return;
    }
    if (strcmp(e->name, "error") == 0) {
        const ast_expr *msg = attribute_arg(e, "message");
        char *text = cc_xstrndup(msg->text, msg->len);
        uint32_t id = intern_expect_kind(m, text, 1);
        cc_free(text);
        ins(m, e, OP_LABEL, (int32_t)id, 0, 0);
        emit_expr(m, kid, v, live);
        ins(m, e, OP_LABELEND, 0, 0, 0);
        return;
    }
    if (strcmp(e->name, "recover") == 0) {
        uint32_t rec = ins(m, e, OP_RECOVER, 0, 0, 0);
        emit_expr(m, kid, v, live);
        uint32_t end = ins(m, e, OP_RECOVEREND, 0, 0, 0);
        patch(m, rec, here(m));
        emit_expr(m, attribute_arg(e, "skip"), 0, 0);
        uint32_t skip = ins(m, e, OP_SKIPEND, 0, 0, 0);
        if (v) m->g->code[skip].flags |= INS_VALUE;
        patch(m, end, here(m));
        return;
    }
    /* #stream: no effect outside a stream parse (7.1); the reference program
     * marks the repetition of a valued body for the stream variant of the loop */
    m->stream_next = !m->fast && v && kid->kind == AST_REPEAT && kid->max != 0;
    emit_expr(m, kid, v, live);
    m->stream_next = 0;
}

/* Emits e. When v is set and e has a value slot, the code pushes exactly one
 * value; otherwise it pushes nothing. live says whether captures are recorded
 * (their scope's value is being built). */
static void emit_expr(emitter *m, const ast_expr *e, int v, int live)
{
    switch (e->kind) {
    case AST_LITERAL: {
        if (m->fast && single_byte(e)) {
            ins(m, e, v ? OP_CHARV : OP_CHAR, (unsigned char)e->text[0], 0, 0);
            return;
        }
        uint32_t at = ins(m, e, OP_LIT, intern_literal(m, e), 0, 0);
        if (v) m->g->code[at].flags |= INS_VALUE;
        return;
    }
    case AST_CLASS: {
        if (m->fast && single_byte(e)) {
            cc_first f;
            first_of(m, e, &f);
            uint32_t at = ins(m, e, OP_BYTE, intern_byteset(m, f.bits), 0, 0);
            if (v) m->g->code[at].flags |= INS_VALUE;
            return;
        }
        uint32_t at = ins(m, e, OP_CLASS, intern_class(m, e), 0, 0);
        if (v) m->g->code[at].flags |= INS_VALUE;
        return;
    }
    case AST_ANY: {
        uint32_t at = ins(m, e, OP_ANY, 0, 0, 0);
        if (v) m->g->code[at].flags |= INS_VALUE;
        return;
    }
    case AST_TOP:
        if (v) ins(m, e, OP_TOP, 0, 0, 0);
        return;
    case AST_BOTTOM:
        ins(m, e, OP_FAIL, 0, 0, 0);
        return;
    case AST_ANCHOR: {
        static const int ops[] = { OP_BOI, OP_EOI, OP_BOL, OP_EOL };
        ins(m, e, ops[e->anchor], 0, 0, 0);
        return;
    }
    case AST_CUT:
        ins(m, e, OP_CUT, 0, 0, 0);
        return;
    case AST_SEQ: {
        int n = 0;
        int pushed = 0;
        for (int i = 0; i < m->npos_pushed && !pushed; i++) pushed = e == &m->pos_pushed[i];
        if (v && !pushed) ins(m, e, OP_PUSHPOS, 0, 0, 0);
        for (int i = 0; i < e->nkids; i++) {
            int slot = cc_has_value(e->kids[i]);
            emit_expr(m, e->kids[i], v && slot, live);
            n += slot;
        }
        if (v) ins(m, e, OP_SEQ, n, 0, 0);
        return;
    }
    case AST_CHOICE:
        emit_choice(m, e, v, live);
        return;
    case AST_REPEAT:
        emit_repeat(m, e, v, live);
        return;
    case AST_OPTIONAL: {
        const ast_expr *kid = e->kids[0];
        if (m->fast) {
            cc_first f;
            first_of(m, kid, &f);
            if (!v && guardable(&f) && single_byte(kid)) {   /* a span of at most one byte */
                ins(m, e, OP_BOPT, intern_byteset(m, f.bits), 0, 0);
                return;
            }
            if (guardable(&f) && single_byte(kid)) {     /* no choice entry: the byte decides */
                uint32_t test = emit_btest(m, kid, &f);
                emit_expr(m, kid, v && cc_has_value(kid), live);
                if (v && !cc_has_value(kid)) ins(m, kid, OP_NIL, 0, 0, 0);
                uint32_t jump = v ? ins(m, e, OP_JMP, 0, 0, 0) : 0;
                patch_test(m, test, here(m));
                if (v) {
                    ins(m, e, OP_NIL, 0, 0, 0);
                    patch(m, jump, here(m));
                }
                return;
            }
        }
        int site;
        uint32_t test = emit_first_test(m, kid, &site);
        uint32_t choice = ins(m, e, OP_CHOICE, 0, 0, 0);
        emit_expr(m, kid, v && cc_has_value(kid), live);
        if (v && !cc_has_value(kid)) ins(m, kid, OP_NIL, 0, 0, 0);
        uint32_t commit = ins(m, e, OP_COMMIT, 0, 0, 0);
        uint32_t skipped = here(m);
        if (test) count_skip(m, kid, site);
        patch(m, choice, here(m));
        patch_test(m, test, skipped);
        if (v) ins(m, e, OP_NIL, 0, 0, 0);
        patch(m, commit, here(m));
        return;
    }
    case AST_AND:
        ins(m, e, OP_LOOK, 0, 0, 0);
        emit_expr(m, e->kids[0], 0, live);
        ins(m, e, OP_LOOKEND, 0, 0, 0);
        return;
    case AST_NOT: {
        /* the fast program records nothing: !. is the end-of-input test (a
         * lookahead's entry would take the control-stack entry that the
         * repetition before it left, often the claim of main's repetition:
         * vm/decide.c) */
        if (m->fast && e->kids[0]->kind == AST_ANY) {
            ins(m, e, OP_EOI, 0, 0, 0);
            return;
        }
        uint32_t look = ins(m, e, OP_NLOOK, 0, 0, 0);
        emit_expr(m, e->kids[0], 0, 0);
        ins(m, e, OP_LOOKFAIL, 0, 0, 0);
        patch(m, look, here(m));
        return;
    }
    case AST_ATOMIC:
        if (v) ins(m, e, OP_PUSHPOS, 0, 0, 0);
        emit_expr(m, e->kids[0], 0, 0);
        if (v) ins(m, e, OP_MATCH, 0, 0, 0);
        return;
    case AST_DISCARD:
        emit_expr(m, e->kids[0], 0, 0);
        return;
    case AST_CAPTURE:
        if (!live && !predicate_reads(m, e->name)) { emit_expr(m, e->kids[0], v, 0); return; }
        {   /* a capture a predicate reads has its value in value-free code too (5.4) */
            int valued = m->valued;
            m->valued = 1;
            emit_expr(m, e->kids[0], 1, live);
            m->valued = valued;
        }
        ins(m, e, OP_CAPTURE, label_id(m, e->name), 0, 0);
        if (!v) ins(m, e, OP_POP, 0, 0, 0);
        return;
    case AST_CALL:
        emit_call(m, e, v);
        return;
    case AST_ATTRIBUTE:
        emit_attribute(m, e, v, live);
        return;
    case AST_PREDICATE:
        ins(m, e, OP_PRED, predicate_action(m, e), m->scope_rep, 0);
        return;
    case AST_PRATT:
        /* a Pratt expression is always a whole rule body (emit_pratt) */
        ins(m, e, OP_FAIL, 0, 0, 0);
        return;
    }
}

static void add_label(emitter *m, const char *name)
{
    if (label_id(m, name) >= 0) return;
    pego_grammar *g = m->g;
    g->labels = table_room(g->labels, &m->cap_labels, (size_t)g->nlabels + 1, sizeof(char *));
    cc_index_add(&m->label_index, cc_hash(name, strlen(name)), (uint32_t)g->nlabels);
    char *copy = rt_strdup(name);
    if (!copy) cc_oom();
    g->labels[g->nlabels++] = copy;
}

/* Field names that actions' new T{...} give (the checker refuses a name the
 * type does not declare; the name must still be a label). */
static void collect_term_labels(emitter *m, const ast_term *t)
{
    if (!t) return;
    if (t->kind == TERM_NEW)
        for (int i = 0; i < t->nnames; i++) add_label(m, t->names[i]);
    for (int i = 0; i < t->nkids; i++) collect_term_labels(m, t->kids[i]);
}

/* Field names: capture labels, and the fields of Error and Operator nodes. */
static void collect_labels(emitter *m, const ast_expr *e)
{
    if (!e) return;
    if (e->kind == AST_CAPTURE) add_label(m, e->name);
    if (e->kind == AST_PREDICATE) collect_term_labels(m, e->term);
    if (e->kind == AST_ATTRIBUTE && strcmp(e->name, "recover") == 0) add_label(m, "message");
    if (e->kind == AST_PRATT) {
        const ast_pratt *pr = e->pratt;
        collect_labels(m, pr->skip);
        for (int i = 0; i < pr->noperands; i++) {
            collect_labels(m, pr->operands[i].expr);
            collect_term_labels(m, pr->operands[i].action);
        }
        for (int l = 0; l < pr->nlevels; l++)
            for (int o = 0; o < pr->levels[l].nops; o++) {
                add_label(m, "operator");
                collect_labels(m, pr->levels[l].ops[o].expr);
                collect_term_labels(m, pr->levels[l].ops[o].action);
            }
    }
    for (int i = 0; i < e->nkids; i++) collect_labels(m, e->kids[i]);
    for (int i = 0; i < e->nargs; i++) collect_labels(m, e->args[i].value);
}

/* One line of a Pratt expression: valued (v) or value-free, ending in SUBRET;
 * operand lines label their fresh values with the rule. */
static uint32_t emit_line(emitter *m, const ast_expr *e, int v, int label_rule, int action)
{
    uint32_t at = here(m);
    m->scope_rep = -1;
    emit_expr(m, e, v && cc_has_value(e), v);
    if (v && !cc_has_value(e)) ins(m, e, OP_NIL, 0, 0, 0);
    if (v && action >= 0) ins(m, e, OP_ACTION, action, 0, 0);   /* an operand's action */
    uint32_t ret = ins(m, e, OP_SUBRET, label_rule, 0, 0);
    if (v) m->g->code[ret].flags |= INS_VALUE;
    return at;
}

/* The record of rule r's Pratt expression in the program being emitted
 * (grammar.pratts). */
static int pratt_index(const emitter *m, int r)
{
    return m->g->rules[r].pratt + (m->fast ? (1 + m->profiled) * m->g->npratts : 0);
}

/* The body of rule r, a Pratt expression: the machine runs its lines. */
static void emit_pratt_rule(emitter *m, int r, int valued)
{
    const ast_expr *body = m->ast->rules[r].body;
    ins(m, body, OP_PSTART, pratt_index(m, r), valued, 0);
    ins(m, body, OP_PRATT, pratt_index(m, r), 0, 0);
    if (valued) ins(m, body, OP_RULEEND, r, 0, 0);
    ins(m, body, OP_RET, 0, 0, 0);
}

static int has_cut(const ast_expr *e)
{
    if (e->kind == AST_CUT) return 1;
    for (int i = 0; i < e->nkids; i++)
        if (has_cut(e->kids[i])) return 1;
    return 0;
}

/* An expression as it matches: without the discards, captures and atomic
 * marks around it, which change only its value. */
static const ast_expr *as_matched(const ast_expr *e)
{
    while (e->kind == AST_DISCARD || e->kind == AST_CAPTURE || e->kind == AST_ATOMIC) e = e->kids[0];
    return e;
}

/* How many literals the line e is, a literal or a choice of literals (up to
 * CC_PRATT_LITS, none empty), as it matches; 0 when it is not. */
static int literal_alternatives(const ast_expr *e)
{
    const ast_expr *part = as_matched(e);
    int n = part->kind == AST_CHOICE ? part->nkids : 1;
    if (n > CC_PRATT_LITS) return 0;
    for (int i = 0; i < n; i++) {
        const ast_expr *a = as_matched(part->kind == AST_CHOICE ? part->kids[i] : part);
        if (a->kind != AST_LITERAL || a->len == 0) return 0;
    }
    return n;
}

/* Notes in may (257 masks, per next byte and the end of the input) that line
 * k, expression e, may match where it begins: at the bytes that can begin it,
 * everywhere when it can match empty or has a cut. In the profiled program,
 * only a line that begins with a terminal, or is literals, fails at another
 * byte without a call, which would count: the others run everywhere. */
static void note_line_first(emitter *m, uint64_t *may, int k, const ast_expr *e)
{
    cc_first f;
    first_of(m, e, &f);
    const ast_expr *head = first_element(e);
    int any = f.nullable || has_cut(e) ||
              (m->profiled && !literal_alternatives(e) &&
               !(head && (head->kind == AST_LITERAL || head->kind == AST_CLASS || head->kind == AST_ANY)));
    for (int b = 0; b < 257; b++)
        if (any || (b < 256 && ((f.bits[b >> 5] >> (b & 31)) & 1))) may[b] |= 1ull << k;
}

/* The fast or profiled program's operator part e that is a literal, or a choice of
 * literals, none empty nor matching invalid bytes: notes them in c->lits for
 * the machine to match (cc_pratt_op.lits). */
static void note_literal_line(emitter *m, cc_pratt_op *c, const ast_expr *e)
{
    const ast_expr *part = as_matched(e);
    int bare = part == e, bytes1 = 1, n = literal_alternatives(e);
    const ast_expr *const *alts = part->kind == AST_CHOICE ? (const ast_expr *const *)part->kids : &part;
    if (!n) return;
    for (int i = 0; i < n; i++) {
        const ast_expr *a = as_matched(alts[i]);
        int k = intern_literal(m, a);
        if (m->g->literals[k].fffd) return;
        c->lits[i] = k;
        bare &= a == alts[i];
        bytes1 &= a->len == 1;
    }
    c->nlits = (uint8_t)n;
    c->lit_value = (uint8_t)bare;
    c->lit_bytes1 = (uint8_t)bytes1;
}

/* The fast and profiled programs' table of a kind of lines (cc_pratt.operand_may,
 * ...) for n lines, or NULL. */
static uint64_t *line_table(const emitter *m, int n)
{
    return m->fast && n <= 64 ? table_new(257, sizeof(uint64_t)) : NULL;
}

/* The line whose code is c when it is one span, op, that the machine can
 * scan itself: its byte set in *span, or in the profiled program, when the
 * line is a call compiled in of that span (PIN, the span, POUT of one chain),
 * in *call_span, with the chain in *chain. -1 in the others. */
static void span_line(const vm_ins *c, int op, int *span, int *chain, int *call_span)
{
    *span = *chain = *call_span = -1;
    if (c[0].op == op && c[1].op == OP_SUBRET) {
        *span = c[0].a;
    } else if (c[0].op == OP_PIN && c[1].op == op && c[2].op == OP_POUT && c[3].op == OP_SUBRET &&
               c[0].a == c[2].a) {
        *chain = c[0].a;
        *call_span = c[1].a;
    }
}

/* The tables and lines of the Pratt expression that is rule r's body, in the
 * program being emitted. The actions are compiled once, for the reference
 * program, and shared. */
static void emit_pratt(emitter *m, int r, const ast_pratt *pr)
{
    pego_grammar *g = m->g;
    cc_pratt *p = &g->pratts[pratt_index(m, r)];
    const cc_pratt *ref = m->fast ? &g->pratts[g->rules[r].pratt] : NULL;
    p->rule = r;
    m->rule = r;
    m->valued = 1;
    p->skip_span = p->skip_chain = p->skip_chain_span = -1;
    if (pr->skip) {
        p->has_skip = 1;
        m->valued = 0;
        p->skip = emit_line(m, pr->skip, 0, -1, -1);
        m->valued = 1;
        if (m->fast) span_line(&g->code[p->skip], OP_BSPAN, &p->skip_span, &p->skip_chain, &p->skip_chain_span);
    }
    p->noperands = pr->noperands;
    p->operands = table_new((size_t)pr->noperands + 1, sizeof(uint32_t));
    p->vf_operands = table_new((size_t)pr->noperands + 1, sizeof(uint32_t));
    p->operand_actions = table_new((size_t)pr->noperands + 1, sizeof(int));
    p->fast = m->fast && !m->profiled;
    p->takes_lines = m->fast;
    p->operand_may = line_table(m, pr->noperands);
    for (int i = 0; i < pr->noperands; i++) {
        const ast_pratt_operand *o = &pr->operands[i];
        if (p->operand_may) note_line_first(m, p->operand_may, i, o->expr);
        p->operand_actions[i] = ref ? ref->operand_actions[i]
                              : o->action ? cc_action_compile(g, m->ast, &m->tm, r, o->expr, o->action, 0) : -1;
        m->valued = 1;
        p->operands[i] = emit_line(m, o->expr, 1, r, p->operand_actions[i]);
        m->valued = 0;
        p->vf_operands[i] = emit_line(m, o->expr, 0, -1, -1);
        if (p->takes_lines) {
            size_t n = (size_t)pr->noperands + 1;
            int chain, call_span;
            if (!p->operand_span) p->operand_span = table_new(n, sizeof(int));
            span_line(&g->code[p->vf_operands[i]], OP_BSPAN1, &p->operand_span[i], &chain, &call_span);
            if (m->profiled) {
                if (!p->operand_chain) {
                    p->operand_chain = table_new(n, sizeof(int));
                    p->operand_chain_span = table_new(n, sizeof(int));
                }
                p->operand_chain[i] = chain;
                p->operand_chain_span[i] = call_span;
            }
        }
    }
    int total = 0;
    for (int l = 0; l < pr->nlevels; l++) total += pr->levels[l].nops;
    p->prefix = table_new((size_t)total + 1, sizeof(cc_pratt_op));
    p->tail = table_new((size_t)total + 1, sizeof(cc_pratt_op));
    p->prefix_may = line_table(m, total);
    p->tail_may = line_table(m, total);
    int number = 0;
    for (int l = 0; l < pr->nlevels; l++) {
        for (int o = 0; o < pr->levels[l].nops; o++) {
            const ast_pratt_op *op = &pr->levels[l].ops[o];
            int prefix = op->kind == PRATT_PREFIX;
            cc_pratt_op *c = prefix ? &p->prefix[p->nprefix++] : &p->tail[p->ntail++];
            c->kind = (uint8_t)op->kind;
            c->level = l + 1;
            c->number = number++;
            uint64_t *may = prefix ? p->prefix_may : p->tail_may;
            if (may) note_line_first(m, may, (int)(c - (prefix ? p->prefix : p->tail)), op->expr);
            c->action = ref ? (prefix ? ref->prefix : ref->tail)[c - (prefix ? p->prefix : p->tail)].action
                      : op->action ? cc_action_compile(g, m->ast, &m->tm, r, op->expr, op->action, 1) : -1;
            m->valued = 1;
            c->code = emit_line(m, op->expr, 1, -1, -1);
            m->valued = 0;
            c->vf_code = emit_line(m, op->expr, 0, -1, -1);
            if (p->takes_lines) note_literal_line(m, c, op->expr);
        }
    }
}

/* Where a jump to at really goes: through jumps, and to a RET or FAIL that a
 * jump may stand in for. */
static uint32_t final_target(const pego_grammar *g, uint32_t at)
{
    for (int i = 0; i < 16 && g->code[at].op == OP_JMP; i++) at = (uint32_t)g->code[at].a;
    return at;
}

/* The fast program's jumps go straight to their final targets; a jump to a
 * return or a failure becomes one. */
static void thread_jumps(pego_grammar *g)
{
    for (uint32_t i = g->fast_start; i < g->ncode; i++) {
        vm_ins *in = &g->code[i];
        switch (in->op) {
        case OP_JMP: {
            uint32_t to = final_target(g, (uint32_t)in->a);
            if (g->code[to].op == OP_RET || g->code[to].op == OP_FAIL) *in = (vm_ins){ .op = g->code[to].op };
            else in->a = (int32_t)to;
            break;
        }
        case OP_COMMIT: case OP_CHOICE: case OP_PDSKIP:
            in->a = (int32_t)final_target(g, (uint32_t)in->a);
            break;
        case OP_BTEST: case OP_SPANTEST: case OP_PDEFER: case OP_TEST: case OP_TESTCHAR: case OP_TESTLIT:
            in->b = (int32_t)final_target(g, (uint32_t)in->b);
            break;
        case OP_DISPATCH: {
            cc_dispatch *d = &g->dispatch[in->a];
            for (int b = 0; b < 256; b++) d->to[b] = final_target(g, d->to[b]);
            d->eoi = final_target(g, d->eoi);
            break;
        }
        default:
            break;
        }
    }
}

/* Marks the fast program's addresses that something jumps, returns or fails to. */
static void mark_targets(const pego_grammar *g, uint8_t *target)
{
    for (int r = 0; r < g->nrules; r++) {
        const cc_rule *rule = &g->rules[r];
        target[rule->fast_entry] = target[rule->fast_vf_entry] = 1;
        target[rule->prof_entry] = target[rule->prof_vf_entry] = 1;
    }
    for (uint32_t i = g->fast_start; i < g->ncode; i++) {
        const vm_ins *in = &g->code[i];
        switch (in->op) {
        case OP_CHOICE: case OP_COMMIT: case OP_JMP: case OP_LOOK: case OP_NLOOK: case OP_REP: case OP_PDSKIP:
            target[in->a] = 1;
            break;
        case OP_REPNEXT: case OP_ITEREXIT:
            target[in->a + 1] = 1;
            break;
        case OP_TEST: case OP_TESTCHAR: case OP_TESTLIT: case OP_BTEST: case OP_SPANTEST: case OP_PDEFER:
        case OP_PDEFERPIN: case OP_PDEFERPINSPAN:
            target[in->b] = 1;
            break;
        case OP_CALL: case OP_CALLG: case OP_PTAIL:
            target[i + 1] = 1;
            break;
        case OP_DISPATCH:
            for (int b = 0; b < 256; b++) target[g->dispatch[in->a].to[b]] = 1;
            target[g->dispatch[in->a].eoi] = 1;
            break;
        default:
            break;
        }
    }
}

/* A byte span at code[at] that punctuation can fuse: a BSPAN, or in the
 * profiled program a call compiled in whose body is one BSPAN (PIN, BSPAN,
 * POUT of one chain). Nothing may jump into its parts after the first, nor,
 * unless first, into the first. Returns its length in instructions (0: none),
 * with its byte set and whether it is a call, counted. */
static uint32_t fusable_span(const pego_grammar *g, const uint8_t *target, uint32_t at, int first,
                             int32_t *set, int *counted)
{
    const vm_ins *c = &g->code[at];
    if (at >= g->ncode || (!first && target[at])) return 0;
    if (c->op == OP_BSPAN) {
        *set = c->a;
        *counted = 0;
        return 1;
    }
    if (at >= g->prof_start && at + 2 < g->ncode && c[0].op == OP_PIN && c[1].op == OP_BSPAN &&
        c[2].op == OP_POUT && c[2].a == c[0].a && c[2].b == c[0].b && !target[at + 1] && !target[at + 2]) {
        *set = c[1].a;
        *counted = 1;
        return 3;
    }
    return 0;
}

/* Punctuation between spans (JSON's  ws "," ws ) is one instruction in the fast
 * program: PUNCT does what a span, a one-byte literal and a span do, and skips
 * them; they stay in place for nothing jumps into them. In the profiled
 * program a span may be a call compiled in (ws): PUNCT counts it too
 * (INS_COUNT, INS_COUNT_AFTER), and reads its chain from its POUT in place. */
static void fuse_punctuation(pego_grammar *g)
{
    uint8_t *target = cc_xcalloc(g->ncode + 1, 1);
    mark_targets(g, target);
    for (uint32_t i = g->fast_start; i < g->ncode; i++) {
        uint32_t at = i;
        int32_t before = -1, after = -1;
        int counted = 0;
        uint8_t flags = 0;
        uint32_t n = fusable_span(g, target, at, 1, &before, &counted);
        if (n && (at + n >= g->ncode || g->code[at + n].op != OP_CHAR || target[at + n])) n = 0, before = -1;
        if (n && counted) flags |= INS_COUNT;
        at += n;
        if (g->code[at].op != OP_CHAR) continue;
        int32_t byte = g->code[at].a;
        n++;
        uint32_t more = fusable_span(g, target, at + 1, 0, &after, &counted);
        if (more && counted) flags |= INS_COUNT_AFTER;
        n += more;
        if (n < 2) continue;
        /* both spans calls of one chain: one update counts them (PUNCT2) */
        int one_chain = flags == (INS_COUNT | INS_COUNT_AFTER) && g->code[i + 2].a == g->code[i + n - 1].a;
        g->code[i] = (vm_ins){ .op = one_chain ? OP_PUNCT2 : OP_PUNCT, .flags = flags, .a = before, .b = byte,
                               .c = after, .d = (uint16_t)n };
        i += n - 1;
    }
    cc_free(target);
}

/* A call compiled in whose body is one byte test or byte span (PIN, BYTE or
 * BSPAN, POUT of one chain: a digit rule, CSV's bare field) is matched by
 * PBYTE or PSPAN in place of its PIN in the profiled program: it counts the
 * call (one that matched, or one entered that failed) and skips the test and
 * the POUT, which stay in place: nothing jumps to them. One whose body is a
 * byte test then a byte span (an identifier) is matched so by PWORD in place
 * of its PIN. A PIN followed by a SPANTEST that exits to its POUT (white
 * space with comments, (span / comment)*) becomes PINSPAN, which counts the
 * call when the span ends it and goes on past the POUT; else the call goes
 * on after the SPANTEST, which stays: the body loops back to it. */
static void fuse_counted_calls(pego_grammar *g)
{
    uint8_t *target = cc_xcalloc(g->ncode + 1, 1);
    mark_targets(g, target);
    for (uint32_t i = g->prof_start; i + 2 < g->ncode; i++) {
        vm_ins *c = &g->code[i];
        if (c->op == OP_PUNCT || c->op == OP_PUNCT2) {  /* its parts are not code that runs */
            i += c->d - 1u;
            continue;
        }
        if (c[0].op != OP_PIN) continue;
        int byte = c[1].op == OP_BYTE && !(c[1].flags & INS_VALUE);
        const vm_ins *out = c[1].op == OP_SPANTEST ? &g->code[c[1].b] : NULL;   /* where the span test exits */
        if ((c[1].op == OP_BSPAN || byte) && c[2].op == OP_POUT && c[2].a == c[0].a && c[2].b == c[0].b &&
            !target[i + 1] && !target[i + 2]) {
            c[0].op = byte ? OP_PBYTE : OP_PSPAN;
            i += 2;
        } else if (byte && i + 3 < g->ncode && c[2].op == OP_BSPAN && c[3].op == OP_POUT && c[3].a == c[0].a &&
                   c[3].b == c[0].b && !target[i + 1] && !target[i + 2] && !target[i + 3]) {
            c[0].op = OP_PWORD;
            i += 3;
        } else if (out && !(c[1].flags & INS_COUNT) && out->op == OP_POUT && out->a == c[0].a &&
                   out->b == c[0].b) {
            c[0].op = OP_PINSPAN;
        }
    }
    /* a deferrable rule compiled in whose body still begins with a PIN: its
     * PDEFER does that PIN's work on a first call (PDEFERPIN); one whose body
     * begins with a PINSPAN goes on into it (PDEFERPINSPAN). A PSPAN whose
     * skip lands on a POUT (that of the call it is compiled into) goes on
     * into that POUT (PSPANOUT), and a POUT before a RET into the RET (POUTRET):
     * a dispatch less each. The instructions they go on to stay, for the
     * paths that jump there. */
    for (uint32_t i = g->prof_start; i < g->ncode; i++) {
        vm_ins *c = &g->code[i];
        if (c->op == OP_PUNCT || c->op == OP_PUNCT2) {
            i += c->d - 1u;
            continue;
        }
        if (c->op == OP_PDEFER && i + 3 < g->ncode && c[3].op == OP_PIN) c->op = OP_PDEFERPIN;
        else if (c->op == OP_PDEFER && i + 3 < g->ncode && c[3].op == OP_PINSPAN) c->op = OP_PDEFERPINSPAN;
        else if (c->op == OP_PSPAN && i + 3 < g->ncode && c[3].op == OP_POUT) c->op = OP_PSPANOUT;
        else if (c->op == OP_POUT && i + 1 < g->ncode && c[1].op == OP_RET) c->op = OP_POUTRET;
    }
    cc_free(target);
}

/* The profiled program's plain calls in tail position become PTAIL: the
 * frame on top, the caller's, stands for the call (vm/loop.h, PTAIL).
 * Where the callee's whole body is a plain call in tail position (item =
 * digit, digit = numeral), that call is made at once, with no instruction of
 * the callee: PTAIL goes on to the body of the last rule of such a run, and
 * its chain, the rules of the run, counts them all (the tail call's frame,
 * E_TCALL). The layout of bodies does not change: a call that the frame on top
 * cannot stand for is made as written. A grammar with more chains than PTAIL's
 * operand can name keeps CALLs past them: plain calls, each with a frame. */
static void chain_tail_calls(emitter *m)
{
    pego_grammar *g = m->g;
    typedef struct { uint32_t at; int32_t to; int chain; } tail_call;
    tail_call *calls = NULL;
    uint32_t n = 0, cap = 0;
    for (uint32_t i = g->prof_start; i < g->ncode; i++) {
        const vm_ins *in = &g->code[i];
        if (in->op != OP_CALL || !(in->flags & INS_TAIL) || in->c) continue;
        int rules[CHAIN_MAX], k = 0;
        int32_t to = in->a;                     /* the variant of the run's last rule */
        rules[k++] = to % g->nrules;
        while (k < CHAIN_MAX) {
            const cc_rule *r = &g->rules[to % g->nrules];
            uint32_t entry = to >= g->nrules ? r->prof_vf_entry : r->prof_entry;
            const vm_ins *b = &g->code[entry];
            if (b->op != OP_CALL || !(b->flags & INS_TAIL) || b->c ||
                (g->call_fail_site && g->call_fail_site[entry] >= 0))
                break;
            int seen = 0;
            for (int j = 0; j < k; j++) seen |= rules[j] == b->a % g->nrules;
            if (seen) break;
            rules[k++] = b->a % g->nrules;
            to = b->a;
        }
        /* the call's failing site, if any, is its chain's: a frame it reused
         * counts the site by the chain's failures (fold_counts) */
        int site = g->call_fail_site && g->call_fail_site[i] >= 0 ? g->call_fail_site[i] : SITE_NONE;
        int chain = intern_rules(m, rules, k, site);
        if (chain > UINT16_MAX) continue;
        if (n == cap) {
            cap = 2 * cap + 16;
            calls = cc_xrealloc(calls, (size_t)cap * sizeof *calls);
        }
        calls[n++] = (tail_call){ i, to, chain };
    }
    for (uint32_t k = 0; k < n; k++) {          /* after every run is known: it reads CALLs */
        vm_ins *in = &g->code[calls[k].at];
        in->op = OP_PTAIL;
        in->b = (int32_t)g->chains[calls[k].chain].n;
        in->c = calls[k].to;                    /* an address once calls are resolved */
        in->d = (uint16_t)calls[k].chain;
    }
    cc_free(calls);
}

/* The calls compiled in that are running at each instruction of the profiled
 * program (grammar.inline_at), from the order of its code: a rule's code
 * between PIN and POUT is its body, laid out in one piece, and nothing in it
 * is a real call. PIN belongs to the caller, POUT to the call. PUNCT in place
 * of a PIN counts a span that the sampler reads from the PUNCT itself. */
static void note_inline_contexts(pego_grammar *g)
{
    g->inline_at = table_new(g->ncode, sizeof *g->inline_at);
    uint32_t n = 0, open[CC_INLINE_LEVELS + 1] = { 0 }, depth = 0;
    for (uint32_t i = g->prof_start; i < g->ncode; i++)
        if (cc_opens_inline_call(g->code[i].op)) n++;
    g->inline_ctx = table_new(n ? n : 1, sizeof *g->inline_ctx);
    n = 0;
    for (uint32_t i = g->prof_start; i < g->ncode; i++) {
        const vm_ins *in = &g->code[i];
        uint32_t level = (uint32_t)in->b;
        int pin = cc_opens_inline_call(in->op);
        int pout = in->op == OP_POUT || in->op == OP_POUTRET;
        if ((pin || pout) && level >= CC_INLINE_LEVELS) continue;  /* INLINE_MAX_NEST */
        if (pin) depth = level;
        g->inline_at[i] = depth ? open[depth - 1] : 0;
        if (in->op == OP_PSPAN || in->op == OP_PSPANOUT || in->op == OP_PBYTE || in->op == OP_PWORD) {
            i += in->op == OP_PWORD ? 3 : 2;   /* its tests and POUT do not run (fuse_counted_calls) */
            continue;
        }
        if (pin) {
            g->inline_ctx[n] = (cc_inline_ctx){ (uint32_t)in->a, depth ? open[depth - 1] : 0 };
            open[depth++] = ++n;
        } else if (pout) {
            g->inline_at[i] = open[level];
            depth = level;
        }
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct { const char *text; uint32_t id; } ranked;

static int cmp_ranked(const void *a, const void *b)
{
    return strcmp(((const ranked *)a)->text, ((const ranked *)b)->text);
}

/* ---- types and actions ---- */

static int grows_runs_action(void *ctx, int r)
{
    emitter *m = ctx;
    const cc_callgraph *cg = m->cg;
    if (m->runs_action[r]) return 0;
    int runs = m->action[r] >= 0;
    for (int i = 0; i < cg->calls.nadj[r] && !runs; i++) runs = m->runs_action[cg->calls.adj[r][i]];
    m->runs_action[r] = (uint8_t)runs;
    return runs;
}

/* Solves a rule-wise fixed point of the emitter's over the call graph (m->cg
 * while it runs). */
static void solve_rules(emitter *m, cc_eval_fn eval)
{
    cc_callgraph cg;
    cc_callgraph_init(&cg, m->ast);
    m->cg = &cg;
    cc_solve(&cg, eval, m);
    m->cg = NULL;
    cc_callgraph_free(&cg);
}

/* The node types, each rule's terminal type and action, and which calls can
 * run an action. */
static void prepare_actions(emitter *m)
{
    pego_grammar *g = m->g;
    const ast_grammar *ast = m->ast;
    size_t n = (size_t)ast->nrules + 1;
    m->action = cc_xmalloc(n * sizeof *m->action);
    m->runs_action = cc_xcalloc(n, 1);
    cc_types_build(g, ast, &m->tm);
    int any = 0;
    for (int r = 0; r < ast->nrules; r++) {
        const ast_rule *ar = &ast->rules[r];
        g->rules[r].term_type = cc_rule_terminal_type(g, ast, &m->tm, r);
        m->action[r] = ar->action ? cc_action_compile(g, ast, &m->tm, r, ar->body, ar->action, 0) : -1;
        any |= m->action[r] >= 0;
    }
    if (any) solve_rules(m, grows_runs_action);
}

/* ---- predicates and variables ---- */

static int has_predicate(const ast_expr *e)
{
    if (!e) return 0;
    if (e->kind == AST_PREDICATE) return 1;
    if (e->kind == AST_PRATT) {
        const ast_pratt *pr = e->pratt;
        if (has_predicate(pr->skip)) return 1;
        for (int i = 0; i < pr->noperands; i++)
            if (has_predicate(pr->operands[i].expr)) return 1;
        for (int l = 0; l < pr->nlevels; l++)
            for (int o = 0; o < pr->levels[l].nops; o++)
                if (has_predicate(pr->levels[l].ops[o].expr)) return 1;
    }
    for (int i = 0; i < e->nkids; i++)
        if (has_predicate(e->kids[i])) return 1;
    for (int i = 0; i < e->nargs; i++)
        if (has_predicate(e->args[i].value)) return 1;
    return 0;
}

/* What a term reads: the variables into m->reads (rule r's words, once they
 * exist; before, only the names are interned), and for a predicate the
 * labels of its captures into m->pred_labels. */
static void note_term(emitter *m, int r, const ast_term *t, int predicate)
{
    if (!t) return;
    if (t->kind == TERM_VAR && strcmp(t->sval, "true") && strcmp(t->sval, "false") && strcmp(t->sval, "nil")) {
        int id = cc_var_id(m->g, &m->tm, t->sval);
        if (m->reads) m->reads[(size_t)r * (size_t)m->var_words + (size_t)id / 64] |= 1ull << (id % 64);
    }
    if (t->kind == TERM_CAPREF && predicate && m->pred_labels && !(t->sval[0] >= '0' && t->sval[0] <= '9')) {
        int label = label_id(m, t->sval);
        if (label >= 0) m->pred_labels[(size_t)r * (size_t)m->g->nlabels + (size_t)label] = 1;
    }
    for (int i = 0; i < t->nkids; i++) note_term(m, r, t->kids[i], predicate);
}

/* note_term for every term of expression e of rule r: predicates, and the
 * actions of a Pratt expression. */
static void note_terms(emitter *m, int r, const ast_expr *e)
{
    if (!e) return;
    if (e->kind == AST_PREDICATE) note_term(m, r, e->term, 1);
    if (e->kind == AST_PRATT) {
        const ast_pratt *pr = e->pratt;
        note_terms(m, r, pr->skip);
        for (int i = 0; i < pr->noperands; i++) {
            note_terms(m, r, pr->operands[i].expr);
            note_term(m, r, pr->operands[i].action, 0);
        }
        for (int l = 0; l < pr->nlevels; l++)
            for (int o = 0; o < pr->levels[l].nops; o++) {
                note_terms(m, r, pr->levels[l].ops[o].expr);
                note_term(m, r, pr->levels[l].ops[o].action, 0);
            }
    }
    for (int i = 0; i < e->nkids; i++) note_terms(m, r, e->kids[i]);
    for (int i = 0; i < e->nargs; i++) note_terms(m, r, e->args[i].value);
}

static void note_rule(emitter *m, int r)
{
    note_terms(m, r, m->ast->rules[r].body);
    note_term(m, r, m->ast->rules[r].action, 0);
}

/* A rule reads what its callees read. */
static int grows_reads(void *ctx, int r)
{
    emitter *m = ctx;
    const cc_callgraph *cg = m->cg;
    uint64_t *own = m->reads + (size_t)r * (size_t)m->var_words;
    int grew = 0;
    for (int i = 0; i < cg->calls.nadj[r]; i++) {
        const uint64_t *callee = m->reads + (size_t)cg->calls.adj[r][i] * (size_t)m->var_words;
        for (int w = 0; w < m->var_words; w++) {
            grew |= (callee[w] & ~own[w]) != 0;
            own[w] |= callee[w];
        }
    }
    return grew;
}

/* Which captures predicates read, rule by rule, and which variables each rule
 * can read, its callees' included (5.3, 5.4): g->rule_reads. */
static void prepare_predicates(emitter *m)
{
    pego_grammar *g = m->g;
    const ast_grammar *ast = m->ast;
    int any = 0;
    for (int r = 0; r < ast->nrules; r++) any |= has_predicate(ast->rules[r].body);
    if (any) m->pred_labels = cc_xcalloc((size_t)ast->nrules * (size_t)g->nlabels + 1, 1);
    for (int r = 0; r < ast->nrules; r++) note_rule(m, r);     /* interns the variables */
    if (!g->nvars) return;
    m->var_words = (g->nvars + 63) / 64;
    m->reads = cc_xcalloc((size_t)ast->nrules * (size_t)m->var_words, sizeof *m->reads);
    for (int r = 0; r < ast->nrules; r++) note_rule(m, r);
    solve_rules(m, grows_reads);
    size_t total = 0;
    for (size_t w = 0; w < (size_t)ast->nrules * (size_t)m->var_words; w++) total += (size_t)__builtin_popcountll(m->reads[w]);
    g->rule_reads = table_new(total + 1, sizeof *g->rule_reads);
    for (int r = 0; r < ast->nrules; r++) {
        g->rules[r].reads = g->nrule_reads;
        for (int id = 0; id < g->nvars; id++)
            if (m->reads[(size_t)r * (size_t)m->var_words + (size_t)id / 64] & (1ull << (id % 64)))
                g->rule_reads[g->nrule_reads++] = (uint32_t)id;
        g->rules[r].nreads = g->nrule_reads - g->rules[r].reads;
    }
}

/* A predicate of the rule being emitted reads captures of this label. */
static int predicate_reads(emitter *m, const char *label)
{
    int id = label_id(m, label);
    return m->pred_labels && id >= 0 && m->pred_labels[(size_t)m->rule * (size_t)m->g->nlabels + (size_t)id];
}

static int rule_predicates_read(emitter *m, int r)
{
    if (!m->pred_labels) return 0;
    for (int i = 0; i < m->g->nlabels; i++)
        if (m->pred_labels[(size_t)r * (size_t)m->g->nlabels + (size_t)i]) return 1;
    return 0;
}

static int same_pred(const void *ctx, uint32_t i, const void *key)
{
    return ((const emitter *)ctx)->preds[i] == key;
}

/* The action of predicate e, compiled at its first use (each body is emitted
 * twice, valued and value-free). */
static int predicate_action(emitter *m, const ast_expr *e)
{
    uint32_t h = cc_hash(&e, sizeof e);
    int i = cc_index_find(&m->pred_index, h, same_pred, m, e);
    if (i >= 0) return m->pred_action[i];
    if (m->npreds == m->cap_preds) {
        m->cap_preds = m->cap_preds ? 2 * m->cap_preds : 16;
        m->preds = cc_xrealloc(m->preds, (size_t)m->cap_preds * sizeof *m->preds);
        m->pred_action = cc_xrealloc(m->pred_action, (size_t)m->cap_preds * sizeof *m->pred_action);
    }
    m->preds[m->npreds] = e;
    m->pred_action[m->npreds] = cc_predicate_compile(m->g, m->ast, &m->tm, m->rule, e);
    cc_index_add(&m->pred_index, h, (uint32_t)m->npreds);
    return m->pred_action[m->npreds++];
}

/* Whether the value of e is always a rule call's: e is a call, or a choice of
 * such. A rule's value is nil or marked as called, and the callee takes its
 * captures off the trail, so a rule whose body is such an expression has nothing
 * for its RULEEND to do. */
static int value_of_calls(const ast_expr *e)
{
    if (e->kind == AST_CALL) return !e->level;
    if (e->kind != AST_CHOICE) return 0;
    for (int i = 0; i < e->nkids; i++)
        if (!value_of_calls(e->kids[i])) return 0;
    return 1;
}

/* Rule r's valued or value-free body (not a Pratt expression), its end and RET.
 * A valued body ends by making the rule's value: a node of its terminal type
 * over what the body matched, its action's value, or the body's value with the
 * scope's captures and the rule's label (RULEEND). The fast program leaves out
 * a RULEEND that has nothing to do (value_of_calls): the calls before the RET
 * are then in tail position, and a nest of such rules (JSON's value and array)
 * needs a frame per level instead of two. */
static void emit_rule(emitter *m, int r, int valued)
{
    const ast_rule *ar = &m->ast->rules[r];
    const ast_expr *body = ar->body;
    int term_type = m->g->rules[r].term_type;
    int drop = rule_predicates_read(m, r);      /* its value-free code makes captures for them */
    m->scope_rep = -1;
    m->in_rule = 1;
    if (valued && term_type >= 0) {
        ins(m, body, OP_PUSHPOS, 0, 0, 0);
        emit_expr(m, body, 0, 0);
        if (drop) ins(m, body, OP_DROPCAPS, 0, 0, 0);
        ins(m, body, OP_TERMNODE, term_type, 0, 0);
        ins(m, body, OP_RULEEND, r, 0, 0);
    } else {
        emit_expr(m, body, valued && cc_has_value(body), valued);
        if (valued && !cc_has_value(body)) ins(m, body, OP_NIL, 0, 0, 0);
        if (valued && m->action[r] >= 0) ins(m, body, OP_ACTION, m->action[r], 0, 0);
        else if (valued) {
            if (!m->fast || !value_of_calls(body)) ins(m, body, OP_RULEEND, r, 0, 0);
        } else if (drop) ins(m, body, OP_DROPCAPS, 0, 0, 0);
    }
    ins(m, body, OP_RET, 0, 0, 0);
    m->in_rule = 0;
}

void cc_emit(pego_grammar *g, const ast_grammar *ast)
{
    emitter m = { .g = g, .ast = ast };
    static const char *fixed[EXP__FIXED] = {
        [EXP_ANY] = "any character", [EXP_BOI] = "beginning of input", [EXP_EOI] = "end of input",
        [EXP_BOL] = "beginning of line", [EXP_EOL] = "end of line",
    };
    for (int i = 0; i < EXP__FIXED; i++) intern_expect(&m, fixed[i]);
    for (int r = 0; r < ast->nrules; r++) {
        collect_labels(&m, ast->rules[r].body);
        collect_term_labels(&m, ast->rules[r].action);
    }
    for (int t = 0; t < ast->ntypes; t++)           /* struct fields are fields too */
        for (int f = 0; f < ast->types[t].nfields; f++) add_label(&m, ast->types[t].field_names[f]);
    if (g->nlabels) qsort(g->labels, (size_t)g->nlabels, sizeof(char *), cmp_str);
    cc_index_free(&m.label_index);                  /* the index of the sorted labels */
    for (int i = 0; i < g->nlabels; i++) cc_index_add(&m.label_index, cc_hash(g->labels[i], strlen(g->labels[i])), (uint32_t)i);
    g->label_message = label_id(&m, "message");
    g->label_operator = label_id(&m, "operator");
    prepare_actions(&m);
    prepare_predicates(&m);

    /* The start sequence: the VM calls the start rule returning to address 0. */
    ins(&m, NULL, OP_EOI, 0, 0, 0);
    ins(&m, NULL, OP_END, 0, 0, 0);
    int npratts = 0;
    for (int r = 0; r < ast->nrules; r++) {
        g->rules[r].pratt = -1;
        if (ast->rules[r].body->kind == AST_PRATT) g->rules[r].pratt = npratts++;
    }
    g->pratts = table_new(3 * (size_t)npratts + 1, sizeof(cc_pratt));
    g->npratts = npratts;
    for (int valued = 1; valued >= 0; valued--) {
        for (int r = 0; r < ast->nrules; r++) {
            m.rule = r;
            m.valued = valued;
            if (valued) g->rules[r].entry = here(&m);
            else g->rules[r].vf_entry = here(&m);
            if (g->rules[r].pratt >= 0) emit_pratt_rule(&m, r, valued);
            else emit_rule(&m, r, valued);
        }
    }
    for (int r = 0; r < ast->nrules; r++)
        if (g->rules[r].pratt >= 0) emit_pratt(&m, r, ast->rules[r].body->pratt);
    /* The fast program: every rule again, for parses nobody observes. Grammars
     * with predicates have none (their variables live in the reference
     * program's entries). */
    if (!m.pred_labels) {
        cc_callgraph cg;
        cc_callgraph_init(&cg, ast);
        m.rfirst = cc_xmalloc((size_t)(ast->nrules ? ast->nrules : 1) * sizeof *m.rfirst);
        cc_first_rules(ast, &cg, m.rfirst);
        m.overshoot = cc_xmalloc((size_t)(ast->nrules ? ast->nrules : 1) * sizeof *m.overshoot);
        cc_overshoot_rules(ast, g, &cg, m.rfirst, m.overshoot);
        g->overshoot = table_new((size_t)ast->nrules + 1, sizeof *g->overshoot);
        for (int r = 0; r < ast->nrules; r++) g->overshoot[r] = m.overshoot[r].over;
        find_seed_changes(&m);
        m.inl = cc_xcalloc((size_t)(ast->nrules ? ast->nrules : 1), sizeof *m.inl);
        inline_rules(&m, &cg);
        cc_callgraph_free(&cg);
        m.skip_counts = cc_xcalloc(4 * (size_t)ast->nrules + 1, sizeof *m.skip_counts);
        m.skip_rules = cc_xmalloc(((size_t)ast->nrules + 1) * sizeof *m.skip_rules);
        m.fast = 1;
        g->has_fast = 1;
        g->fast_start = here(&m);
        /* then the profiled program, the fast program with counters */
        for (m.profiled = 0; m.profiled < 2; m.profiled++) {
            if (m.profiled) g->prof_start = here(&m);
            for (int valued = 1; valued >= 0; valued--) {
                for (int r = 0; r < ast->nrules; r++) {
                    cc_rule *rule = &g->rules[r];
                    m.rule = r;
                    m.valued = valued;
                    *(m.profiled ? (valued ? &rule->prof_entry : &rule->prof_vf_entry)
                                 : (valued ? &rule->fast_entry : &rule->fast_vf_entry)) = here(&m);
                    if (rule->pratt >= 0) emit_pratt_rule(&m, r, valued);
                    else emit_rule(&m, r, valued);
                }
            }
            for (int r = 0; r < ast->nrules; r++)
                if (g->rules[r].pratt >= 0) emit_pratt(&m, r, ast->rules[r].body->pratt);
        }
        m.profiled = 0;
        link_reps(&m);
        /* A call compiled in stands for nest levels of nesting; a call skipped by
         * a byte test for as many as the reference program would have entered
         * before failing at that byte. pego_parse keeps the larger in reserve. */
        cc_free(m.rfirst);
        cc_free(m.overshoot);
        cc_free(m.reaches_cycle);
        cc_free(m.skip_changes);
        int dispatched_levels = 0;         /* emit_dispatcher */
        for (int r = 0; r < ast->nrules; r++) dispatched_levels += m.inl[r].dispatched;
        cc_free(m.inl);
        cc_free(m.skip_counts);
        cc_free(m.skip_rules);
        cc_free(m.site_defer);
        if (m.nfail_calls) {
            g->call_fail_site = table_new(g->ncode, sizeof *g->call_fail_site);
            for (uint32_t i = 0; i < g->ncode; i++) g->call_fail_site[i] = -1;
            for (uint32_t i = 0; i < m.nfail_calls; i++) g->call_fail_site[m.fail_calls[i]] = m.fail_call_sites[i];
        }
        cc_free(m.fail_calls);
        cc_free(m.fail_call_sites);
        m.fast = 0;
        int lead = g->lead_depth;
        g->fast_reserve = (uint32_t)(m.inline_nest > lead ? m.inline_nest : lead) + (uint32_t)dispatched_levels;
        if (g->fast_reserve < 1) g->fast_reserve = 1;
        thread_jumps(g);
        for (uint32_t i = g->fast_start; i + 1 < g->ncode; i++)
            if ((g->code[i].op == OP_CALL || g->code[i].op == OP_CALLG) && g->code[i + 1].op == OP_RET &&
                g->rules[g->code[i].a % g->nrules].pratt < 0)   /* PSTART reads its own frame */
                g->code[i].flags |= INS_TAIL;
        fuse_punctuation(g);
        fuse_counted_calls(g);
        chain_tail_calls(&m);
        note_inline_contexts(g);
    }
    for (uint32_t i = 0; i < g->ncode; i++) {          /* resolve call addresses */
        vm_ins *in = &g->code[i];
        if (in->op == OP_CALL || in->op == OP_CALLG) {
            const cc_rule *r = &g->rules[in->a % g->nrules];
            int vf = in->a >= g->nrules;
            if (g->has_fast && i >= g->prof_start) in->b = (int32_t)(vf ? r->prof_vf_entry : r->prof_entry);
            else if (g->has_fast && i >= g->fast_start) in->b = (int32_t)(vf ? r->fast_vf_entry : r->fast_entry);
            else in->b = (int32_t)(vf ? r->vf_entry : r->entry);
        }
        if (in->op == OP_PTAIL) {                       /* the body of its chain's last rule */
            const cc_rule *r = &g->rules[in->c % g->nrules];
            in->c = (int32_t)(in->c >= g->nrules ? r->prof_vf_entry : r->prof_entry);
        }
    }
    for (uint32_t i = 0; i < m.narm_calls; i++) {      /* past the table (note_arm_call) */
        vm_ins *in = &g->code[m.arm_calls[i]];
        const vm_ins *table = &g->code[in->b];
        if (table->op == OP_DISPATCH) in->b = (int32_t)g->dispatch[table->a].to[m.arm_bytes[i]];
    }
    cc_free(m.arm_calls);
    cc_free(m.arm_bytes);
    /* byte-wise sort rank of every expectation, for sorting error items */
    ranked *order = cc_xmalloc((size_t)g->nexpects * sizeof(ranked));
    g->expect_rank = table_resize(NULL, (size_t)g->nexpects * sizeof(uint32_t));
    for (int i = 0; i < g->nexpects; i++) order[i] = (ranked){ g->expects[i], (uint32_t)i };
    qsort(order, (size_t)g->nexpects, sizeof(ranked), cmp_ranked);
    for (int i = 0; i < g->nexpects; i++) g->expect_rank[order[i].id] = (uint32_t)i;
    cc_free(order);
    cc_index_free(&m.expect_index);
    cc_index_free(&m.literal_index);
    cc_index_free(&m.class_index);
    cc_index_free(&m.label_index);
    cc_index_free(&m.byteset_index);
    cc_index_free(&m.chain_index);
    cc_free(m.byteset_bits);
    cc_typemap_free(&m.tm);
    cc_free(m.action);
    cc_free(m.runs_action);
    cc_index_free(&m.pred_index);
    cc_free(m.preds);
    cc_free(m.pred_action);
    cc_free(m.pred_labels);
    cc_free(m.reads);
    cc_free(m.ref_reps);
    cc_free(m.fast_reps);
}
