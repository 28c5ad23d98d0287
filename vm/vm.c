/* The dispatch loop of the iterative VM. Rule calls, choices, iterations and
 * lookaheads are entries on one control stack; a failure pops entries until one
 * handles it. No C recursion happens per rule call or per nesting level of the
 * input. Two call paths exist: the plain path (push a call entry, jump) and the
 * general path (memo lookup and store, left-recursion growth), which also isolates
 * the call's expectations so a memo hit can replay them. */
#include "../runtime/parser.h"
#include "../runtime/unicode.h"

#include <stdlib.h>
#include <string.h>


/* Records that id was expected at pos (language.md 1.12): nothing while silent
 * (inside a lookahead) or behind the farthest position; a farther position starts
 * a new set; duplicates are dropped. */
static inline void expect(pego_parser *p, uint32_t pos, uint32_t id)
{
    if (p->silent) return;
    rt_expect *x = &p->exp;
    if (pos < x->far) return;
    if (pos > x->far) { x->far = pos; x->n = x->base; }
    for (uint32_t i = x->base; i < x->n; i++)
        if (x->items[i] == id) return;
    if (x->n < x->cap) x->items[x->n++] = id;
    else rt_expect_add_slow(x, pos, id);
}

static inline int class_has(const cc_class *c, uint32_t ch)
{
    if (ch < 128) return (c->ascii[ch >> 5] >> (ch & 31)) & 1;
    int in = 0;
    for (int i = 0; i < c->nranges; i++)
        if (ch >= c->ranges[i].lo && ch <= c->ranges[i].hi) { in = 1; break; }
    return in != c->negated;
}

/* Width of the character at pos if it is in class c, else 0. */
static inline uint32_t class_at(const cc_class *c, const unsigned char *s, uint32_t pos, uint32_t len)
{
    unsigned char b = s[pos];
    if (b < 0x80) return (c->ascii[b >> 5] >> (b & 31)) & 1;
    if (c->ascii_only) return 0;
    uint32_t ch;
    int w = rt_unicode_decode(s + pos, len - pos, &ch);
    return class_has(c, ch) ? (uint32_t)w : 0;
}

/* Compares a literal containing U+FFFD character by character: its U+FFFD matches
 * an encoded U+FFFD and an invalid byte alike. Returns the end or UINT32_MAX. */
static uint32_t literal_slow(const cc_literal *l, const unsigned char *s, uint32_t pos, uint32_t len)
{
    uint32_t i = 0;
    while (i < l->len) {
        uint32_t a, b;
        int wa = rt_unicode_decode((const unsigned char *)l->bytes + i, l->len - i, &a);
        if (pos >= len) return UINT32_MAX;
        int wb = rt_unicode_decode(s + pos, len - pos, &b);
        if (a != b) return UINT32_MAX;
        i += (uint32_t)wa;
        pos += (uint32_t)wb;
    }
    return pos;
}

/* Finishes a scope: its captures become fields of value v, or of a new Seq that
 * wraps v (language.md 1.9). Returns the resulting value, which is never nil
 * when there are captures, or 0 when out of memory. */
static uint32_t apply_fields(pego_parser *p, uint32_t v, uint32_t from, uint32_t to,
                             uint32_t start, uint32_t end)
{
    const pego_grammar *g = p->g;
    rt_tree *t = &p->tree;
    if (from == to) return v;
    /* the last capture of each label wins; labels are numbered in print order */
    if (rt_buf_grow((void **)&p->scratch, &p->capscratch, (uint32_t)g->nlabels, sizeof(uint32_t)) < 0) return 0;
    uint32_t *last = p->scratch;
    for (int i = 0; i < g->nlabels; i++) last[i] = UINT32_MAX;
    int captured_self = 0;
    for (uint32_t i = from; i < to; i++) {
        last[p->trail[i].label] = i;
        if (v != VAL_NIL && p->trail[i].value != VAL_NIL &&
            VAL_NODE(p->trail[i].value) == VAL_NODE(v)) captured_self = 1;
    }
    uint32_t target = v;
    if (v == VAL_NIL || (v & VAL_CALLED) || captured_self) {
        uint32_t kid = v;
        target = rt_tree_node(t, NODE_SEQ, start, end, &kid, 1);
        if (!target) return 0;
    }
    uint32_t n = 0;
    for (int i = 0; i < g->nlabels; i++) if (last[i] != UINT32_MAX) n++;
    if (rt_buf_grow((void **)&t->fields, &t->capfields, t->nfields + n, sizeof(rt_field)) < 0) return 0;
    if (rt_tree_set_fields(t, target, t->nfields, n) < 0) return 0;
    for (int i = 0; i < g->nlabels; i++)
        if (last[i] != UINT32_MAX)
            t->fields[t->nfields++] = (rt_field){ (uint32_t)i, FIELD_NODE, VAL_NODE(p->trail[last[i]].value) };
    return target;
}

/* Closes the expectation window opened at a call, #error or #recover (whose
 * caller's record was far/base) and merges its items into that record. The merge
 * works in place: the caller's window lies just below, and each item is read
 * before anything can be written at its index. */
static void close_window(pego_parser *p, uint32_t saved_far, uint32_t saved_base, int merge)
{
    rt_expect *x = &p->exp;
    uint32_t far = x->far, from = x->base, to = merge ? x->n : x->base;
    x->n = x->base;
    x->base = saved_base;
    x->far = saved_far;
    for (uint32_t i = from; i < to; i++) expect(p, far, x->items[i]);
}

static void open_window(pego_parser *p, uint32_t pos)
{
    p->exp.base = p->exp.n;
    p->exp.far = pos;
}

/* Gives node v one field that is not a node (an integer or a string). */
static int scalar_field(pego_parser *p, uint32_t v, int label, uint32_t kind, uint32_t value)
{
    rt_tree *t = &p->tree;
    if (rt_buf_grow((void **)&t->fields, &t->capfields, t->nfields + 1, sizeof(rt_field)) < 0) return -1;
    if (rt_tree_set_fields(t, v, t->nfields, 1) < 0) return -1;
    t->fields[t->nfields++] = (rt_field){ (uint32_t)label, kind, value };
    return 0;
}

/* Records an error recovered by #recover: the failure held at far with its
 * items becomes "line:col: message" in the string arena. Returns the text's
 * offset, or UINT32_MAX when out of memory. */
static uint32_t recover_error(pego_parser *p, uint32_t far, uint32_t *ids, uint32_t n)
{
    uint32_t text = (uint32_t)p->strings.len;
    rt_expect_format_failure(p, &p->strings, far, ids, n);
    rt_buf_addc(&p->strings, 0);
    if (p->strings.oom) return UINT32_MAX;
    if (p->nrec == p->caprec && rt_buf_grow((void **)&p->rec, &p->caprec, p->nrec + 1, sizeof(rt_recovered)) < 0)
        return UINT32_MAX;
    p->rec[p->nrec++] = (rt_recovered){ far, text };
    return text;
}

/* Re-appends the errors a memo entry recovered. */
static int replay_recovered(pego_parser *p, const rt_memo_entry *m)
{
    if (!m->rec_len) return 0;
    if (rt_buf_grow((void **)&p->rec, &p->caprec, p->nrec + m->rec_len, sizeof(rt_recovered)) < 0) return -1;
    memcpy(p->rec + p->nrec, p->memo.recs + m->rec_off, m->rec_len * sizeof(rt_recovered));
    p->nrec += m->rec_len;
    return 0;
}

enum { FINISH_OK = 0, FINISH_OOM = -1, FINISH_ABORT = -2 };

/* States of a Pratt parse(min): the head (skip, prefix candidates, operands),
 * then the loop over infix and postfix candidates. */
typedef enum {
    PS_HEAD, PS_HEAD_SKIPPED, PS_PREFIX_TRY, PS_PREFIX_TRIED, PS_PREFIX_RERUN, PS_PREFIX_RHS,
    PS_OPERAND, PS_OPERAND_TRIED, PS_LOOP, PS_LOOP_SKIPPED, PS_TAIL_TRY, PS_TAIL_TRIED,
    PS_TAIL_RERUN, PS_TAIL_RHS
} pratt_state;

/* Whether calls are observed: trace sinks are attached or the runtime profiler
 * is on. A build with -DPEGO_NO_HOOKS compiles the hooks out; it exists only for
 * the benchmark that measures what they cost. */
#ifdef PEGO_NO_HOOKS
#define OBSERVING(p) 0
#else
#define OBSERVING(p) ((p)->observing)
#endif

#ifdef PEGO_FAULT_INJECTION
/* Deliberate breakage for the tests that prove the equivalence harness can fail;
 * compiled only into a test program, never into libpego. */
int vm_fault_skip_traced_merge;   /* a traced call forgets to merge its expectations */
int vm_fault_memoize_traced;      /* a traced call of a memoizable rule is always memoized */
int vm_fault_fast_span;           /* the fast program's byte spans stop one byte short */
#endif

/* Ends a memoized or traced call: stores its outcome in the memo table with the
 * expectations it recorded and the input it examined, reports its exit to the
 * trace sinks, then closes its expectation window and merges it into the
 * caller's record (language.md 2.1: a memo hit replays the same merge). */
static int finish_call(pego_parser *p, vm_gframe *gf, int ok, uint32_t end, uint32_t value)
{
    rt_expect *x = &p->exp;
    uint32_t examined = p->hw > end ? p->hw : end;
    if (gf->memoize) {
        rt_memo_entry *m = gf->memo >= 0 ? &p->memo.entries[gf->memo]
                                         : rt_memo_put(&p->memo, gf->variant, gf->pos, gf->level,
                                                       2u * (uint32_t)p->g->nrules);
        if (!m) return FINISH_OOM;
        m->flags = (ok ? MEMO_OK : 0) | (gf->silent ? MEMO_SILENT : 0);
        m->end = end;
        m->value = value;
        m->examined = examined;
        if (rt_memo_keep(&p->memo, m, RT_AT(x->items, x->base), x->n - x->base, x->far) < 0) return FINISH_OOM;
        if (rt_memo_keep_recovered(&p->memo, m, RT_AT(p->rec, gf->rec_start), ok ? p->nrec - gf->rec_start : 0) < 0)
            return FINISH_OOM;
        p->res.stats.memo_stored++;
    }
    if (OBSERVING(p) && gf->traced && rt_trace_observe_exit(p, gf, ok, end, examined)) return FINISH_ABORT;
    int merge = 1;
#ifdef PEGO_FAULT_INJECTION
    if (vm_fault_skip_traced_merge && gf->traced) merge = 0;
#endif
    close_window(p, gf->saved_far, gf->saved_base, merge);
    p->hw = gf->saved_hw > examined ? gf->saved_hw : examined;
    return FINISH_OK;
}

#define VM_FAST 0
#define VM_RECOG 0
#define VM_RUN vm_run_reference
#include "loop.h"
#undef VM_RUN
#undef VM_RECOG
#undef VM_FAST

#define VM_FAST 1
#define VM_RECOG 0
#define VM_RUN vm_run_fast
#include "loop.h"
#undef VM_RUN
#undef VM_RECOG

#define VM_RECOG 1
#define VM_RUN vm_run_fast_recognize
#include "loop.h"
#undef VM_RUN
#undef VM_RECOG
#undef VM_FAST

int vm_run(pego_parser *p, uint32_t start_variant)
{
    if (!p->fast) return vm_run_reference(p, start_variant);
    return start_variant >= (uint32_t)p->g->nrules ? vm_run_fast_recognize(p, start_variant)
                                                   : vm_run_fast(p, start_variant);
}
