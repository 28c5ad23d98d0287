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

/* Grows an array of elements of size sz so that it holds at least need. */
static int grow(void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
    if (need <= *cap) return 0;
    uint64_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    if (c > UINT32_MAX) return -1;
    void *n = realloc(*arr, (size_t)c * sz);
    if (!n) return -1;
    *arr = n;
    *cap = (uint32_t)c;
    return 0;
}

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
    rt_expect_add_slow(x, pos, id);
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
    int w = rt_utf8_decode(s + pos, len - pos, &ch);
    return class_has(c, ch) ? (uint32_t)w : 0;
}

/* Compares a literal containing U+FFFD character by character: its U+FFFD matches
 * an encoded U+FFFD and an invalid byte alike. Returns the end or UINT32_MAX. */
static uint32_t literal_slow(const cc_literal *l, const unsigned char *s, uint32_t pos, uint32_t len)
{
    uint32_t i = 0;
    while (i < l->len) {
        uint32_t a, b;
        int wa = rt_utf8_decode((const unsigned char *)l->bytes + i, l->len - i, &a);
        if (pos >= len) return UINT32_MAX;
        int wb = rt_utf8_decode(s + pos, len - pos, &b);
        if (a != b) return UINT32_MAX;
        i += (uint32_t)wa;
        pos += (uint32_t)wb;
    }
    return pos;
}

/* Finishes a scope: its captures become fields of value v, or of a new Seq that
 * wraps v (language.md 1.9). Returns the resulting value, or VAL_NIL | 1 on OOM
 * (reported by the caller through tree OOM). */
static uint32_t apply_fields(pego_parser *p, uint32_t v, uint32_t from, uint32_t to,
                             uint32_t start, uint32_t end)
{
    const pego_grammar *g = p->g;
    rt_tree *t = &p->tree;
    if (from == to) return v;
    /* the last capture of each label wins; labels are numbered in print order */
    if (grow((void **)&p->scratch, &p->capscratch, (uint32_t)g->nlabels, sizeof(uint32_t)) < 0) return 0;
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
    if (grow((void **)&t->fields, &t->capfields, t->nfields + n, sizeof(rt_field)) < 0) return 0;
    pego_node *node = &t->nodes[target - 1];
    node->fields = t->nfields;
    node->nfields = n;
    for (int i = 0; i < g->nlabels; i++)
        if (last[i] != UINT32_MAX)
            t->fields[t->nfields++] = (rt_field){ (uint32_t)i, VAL_NODE(p->trail[last[i]].value) };
    return target;
}

enum { FINISH_OK = 0, FINISH_OOM = -1, FINISH_ABORT = -2 };

/* Whether trace sinks are attached. A build with -DPEGO_NO_HOOKS compiles the
 * hooks out; it exists only for the benchmark that measures what they cost. */
#ifdef PEGO_NO_HOOKS
#define TRACING(p) 0
#else
#define TRACING(p) ((p)->ntrace)
#endif

#ifdef PEGO_FAULT_INJECTION
/* Deliberate breakage for the tests that prove the equivalence harness can fail;
 * compiled only into a test program, never into libpego. */
int rt_fault_skip_traced_merge;   /* a traced call forgets to merge its expectations */
int rt_fault_memoize_traced;      /* a traced call of a memoizable rule is always memoized */
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
                                         : rt_memo_put(&p->memo, gf->variant, gf->pos, 2u * (uint32_t)p->g->nrules);
        if (!m) return FINISH_OOM;
        m->flags = (ok ? MEMO_OK : 0) | (gf->silent ? MEMO_SILENT : 0);
        m->end = end;
        m->value = value;
        m->examined = examined;
        if (rt_memo_keep(&p->memo, m, x->items + x->base, x->n - x->base, x->far) < 0) return FINISH_OOM;
        p->res.stats.memo_stored++;
    }
    if (TRACING(p) && gf->traced && rt_trace_exit(p, gf, ok, end, examined)) return FINISH_ABORT;
    /* Merge in place: the caller's window lies just below this one, and each item
     * is read before anything can be written at its index. */
    uint32_t far = x->far, from = x->base, to = x->n;
#ifdef PEGO_FAULT_INJECTION
    if (rt_fault_skip_traced_merge && gf->traced) to = from;
#endif
    x->n = x->base;
    x->base = gf->saved_base;
    x->far = gf->saved_far;
    for (uint32_t i = from; i < to; i++) expect(p, far, x->items[i]);
    p->hw = gf->saved_hw > examined ? gf->saved_hw : examined;
    return FINISH_OK;
}

int vm_run(pego_parser *p, uint32_t start_variant)
{
    const pego_grammar *g = p->g;
    const vm_ins *code = g->code, *ip = code;
    const unsigned char *s = (const unsigned char *)p->in.input;
    const uint32_t len = p->in.len;
    const uint32_t nrules = (uint32_t)g->nrules;
    pego_stats *st = &p->res.stats;
    uint32_t pos = 0, esn = 0, vsn = 0, tn = 0, list_base = 0;
    uint32_t call_variant, call_entry, call_ret, ret_value;
    vm_entry *e;

#define PUSH_ENTRY(k, target) do { \
        if (esn == p->capes && grow((void **)&p->es, &p->capes, esn + 1, sizeof(vm_entry)) < 0) goto oom; \
        e = &p->es[esn++]; \
        *e = (vm_entry){ .kind = (k), .ip = (target), .pos = pos, .vs = vsn, .trail = tn }; \
    } while (0)
#define PUSH_VALUE(v) do { \
        if (vsn == p->capvs && grow((void **)&p->vs, &p->capvs, vsn + 1, sizeof(uint32_t)) < 0) goto oom; \
        p->vs[vsn++] = (v); \
    } while (0)
#define LOOKED(x) do { if ((x) > p->hw) p->hw = (x); } while (0)
#define NODE(var, type, start, kids, nkids) do { \
        var = rt_tree_node(&p->tree, (type), (start), pos, (kids), (nkids)); \
        if (!var) goto oom; \
    } while (0)

    p->silent = 0;
    p->depth = 0;
    p->ngf = 0;
    p->hw = 0;
    PUSH_ENTRY(E_BOTTOM, 0);
    call_variant = start_variant;
    call_entry = start_variant >= nrules ? g->rules[start_variant - nrules].vf_entry
                                         : g->rules[start_variant].entry;
    call_ret = 0;
    {
        const cc_rule *r = &g->rules[start_variant % nrules];
        if ((r->flags & RULE_LEADER) || ((r->flags & RULE_MEMO) && !(r->flags & RULE_TRANSIENT)) || p->noplain)
            goto general_call;
        goto plain_call;
    }

    for (;;) {
        switch ((vm_opcode)ip->op) {
        case OP_END:
            p->res.value = vsn ? p->vs[vsn - 1] & ~VAL_CALLED : VAL_NIL;
            return PEGO_OK;

        case OP_LIT: {
            const cc_literal *l = &g->literals[ip->a];
            uint32_t start = pos, end;
            if (len - pos >= l->len && memcmp(s + pos, l->bytes, l->len) == 0) end = pos + l->len;
            else if (!l->fffd || (end = literal_slow(l, s, pos, len)) == UINT32_MAX) {
                expect(p, pos, l->expect);
                uint32_t k = 0;                        /* examined: the first differing byte */
                while (k < l->len && pos + k < len && s[pos + k] == (unsigned char)l->bytes[k]) k++;
                LOOKED(pos + k + (pos + k < len));
                goto fail;
            }
            pos = end;
            if (ip->flags & INS_VALUE) { uint32_t v; NODE(v, NODE_MATCH, start, NULL, 0); PUSH_VALUE(v); }
            ip++;
            continue;
        }
        case OP_CLASS: {
            const cc_class *c = &g->classes[ip->a];
            uint32_t w;
            if (pos >= len || !(w = class_at(c, s, pos, len))) {
                expect(p, pos, c->expect);
                LOOKED(pos + (pos < len));
                goto fail;
            }
            pos += w;
            if (ip->flags & INS_VALUE) { uint32_t v; NODE(v, NODE_MATCH, pos - w, NULL, 0); PUSH_VALUE(v); }
            ip++;
            continue;
        }
        case OP_ANY: {
            if (pos >= len) { expect(p, pos, EXP_ANY); goto fail; }
            uint32_t start = pos, ch;
            pos += s[pos] < 0x80 ? 1 : (uint32_t)rt_utf8_decode(s + pos, len - pos, &ch);
            if (ip->flags & INS_VALUE) { uint32_t v; NODE(v, NODE_MATCH, start, NULL, 0); PUSH_VALUE(v); }
            ip++;
            continue;
        }
        case OP_SPAN: {
            const cc_class *c = &g->classes[ip->a];
            int64_t count = 0, max = ip->c;
            uint32_t w;
            while (max < 0 || count < max) {
                if (pos >= len || !(w = class_at(c, s, pos, len))) {
                    expect(p, pos, c->expect);
                    LOOKED(pos + (pos < len));
                    break;
                }
                pos += w;
                count++;
            }
            if (count < ip->b) goto fail;
            ip++;
            continue;
        }
        case OP_BOI:
            if (pos != 0) { expect(p, pos, EXP_BOI); goto fail; }
            ip++;
            continue;
        case OP_EOI:
            if (pos != len) { expect(p, pos, EXP_EOI); LOOKED(pos + 1); goto fail; }
            ip++;
            continue;
        case OP_BOL:
            if (pos != 0 && s[pos - 1] != '\n') { expect(p, pos, EXP_BOL); goto fail; }
            ip++;
            continue;
        case OP_EOL:
            if (pos != len && s[pos] != '\n' && s[pos] != '\r') { expect(p, pos, EXP_EOL); LOOKED(pos + 1); goto fail; }
            ip++;
            continue;
        case OP_FAIL:
            goto fail;
        case OP_TEST: {
            const cc_class *c = &g->classes[ip->a];
            if (pos >= len || !class_at(c, s, pos, len)) {
                expect(p, pos, c->expect);
                LOOKED(pos + (pos < len));
                ip = code + ip->b;
                continue;
            }
            ip++;
            continue;
        }
        case OP_TESTCHAR:
            if (pos >= len || s[pos] != (unsigned char)ip->a) {
                expect(p, pos, (uint32_t)ip->c);
                LOOKED(pos + (pos < len));
                ip = code + ip->b;
                continue;
            }
            ip++;
            continue;
        case OP_CHOICE:
            PUSH_ENTRY(E_CHOICE, (uint32_t)ip->a);
            ip++;
            continue;
        case OP_COMMIT:
            esn--;
            ip = code + ip->a;
            continue;
        case OP_REP:
            PUSH_ENTRY(E_ITER, (uint32_t)(ip - code));
            e->aux2 = vsn;
            ip++;
            continue;
        case OP_REPNEXT: {
            const vm_ins *rep = code + ip->a;
            e = &p->es[esn - 1];
            uint32_t count = e->aux + 1;
            if (ip->flags & INS_SCOPE) {
                uint32_t v = apply_fields(p, p->vs[vsn - 1], e->trail, tn, e->pos, pos);
                if (!v && p->vs[vsn - 1]) goto oom;
                p->vs[vsn - 1] = v;
                tn = e->trail;
            }
            if (pos == e->pos || (rep->c >= 0 && count >= (uint32_t)rep->c)) {
                esn--;
                if (count < (uint32_t)rep->b) goto fail;
                list_base = e->aux2;
                ip = code + rep->a;
                continue;
            }
            e->pos = pos;
            e->vs = vsn;
            e->trail = tn;
            e->aux = count;
            e->cut = 0;
            ip = rep + 1;
            continue;
        }
        case OP_LOOK:
            PUSH_ENTRY(E_LOOK, 0);
            p->silent++;
            ip++;
            continue;
        case OP_NLOOK:
            PUSH_ENTRY(E_NLOOK, (uint32_t)ip->a);
            p->silent++;
            ip++;
            continue;
        case OP_LOOKEND:
            LOOKED(pos);
            e = &p->es[--esn];
            p->silent--;
            pos = e->pos;
            ip++;
            continue;
        case OP_LOOKFAIL:
            e = &p->es[--esn];
            p->silent--;
            pos = e->pos; vsn = e->vs; tn = e->trail;
            goto fail;
        case OP_CUT:
            /* the innermost construct is the top entry; a lookahead or a call
             * boundary there means the cut commits nothing outside it */
            e = &p->es[esn - 1];
            if (e->kind == E_CHOICE || e->kind == E_ITER) e->cut = 1;
            ip++;
            continue;
        case OP_CALL:
            call_variant = (uint32_t)ip->a;
            call_entry = (uint32_t)ip->b;
            call_ret = (uint32_t)(ip - code) + 1;
            if (p->noplain) goto general_call;
        plain_call:
            PUSH_ENTRY(E_CALL, call_ret);
            e->aux = call_variant;
            if (++p->depth > p->max_depth) goto too_deep;
            st->calls++;
            st->evals++;
            ip = code + call_entry;
            continue;
        case OP_CALLG:
            call_variant = (uint32_t)ip->a;
            call_entry = (uint32_t)ip->b;
            call_ret = (uint32_t)(ip - code) + 1;
            goto general_call;
        case OP_RET:
            e = &p->es[esn - 1];
            if (e->kind == E_GCALL) goto general_return;
            esn--;
            p->depth--;
            ip = code + e->ip;
            continue;
        case OP_RULEEND: {
            e = &p->es[esn - 1];
            uint32_t v = p->vs[vsn - 1];
            if (tn != e->trail) {
                v = apply_fields(p, v, e->trail, tn, e->pos, pos);
                if (!v) goto oom;
                tn = e->trail;
            }
            if (v != VAL_NIL && !(v & VAL_CALLED)) {
                pego_node *n = &p->tree.nodes[v - 1];
                if (n->label < 0) n->label = ip->a;
            }
            p->vs[vsn - 1] = v == VAL_NIL ? v : (v | VAL_CALLED);
            ip++;
            continue;
        }
        case OP_PUSHPOS:
        case OP_LISTOPEN:
            PUSH_VALUE(pos);
            ip++;
            continue;
        case OP_SEQ: {
            uint32_t n = (uint32_t)ip->a, v;
            NODE(v, NODE_SEQ, p->vs[vsn - n - 1], p->vs + vsn - n, n);
            vsn -= n + 1;
            p->vs[vsn++] = v;
            ip++;
            continue;
        }
        case OP_MATCH: {
            uint32_t v;
            NODE(v, NODE_MATCH, p->vs[vsn - 1], NULL, 0);
            p->vs[vsn - 1] = v;
            ip++;
            continue;
        }
        case OP_TOP: {
            uint32_t v;
            NODE(v, NODE_MATCH, pos, NULL, 0);
            PUSH_VALUE(v);
            ip++;
            continue;
        }
        case OP_NIL:
            PUSH_VALUE(VAL_NIL);
            ip++;
            continue;
        case OP_LIST: {
            uint32_t v, base = ip->a ? vsn : list_base;     /* a: no iteration (a{0,0}) */
            NODE(v, NODE_LIST, p->vs[base - 1], p->vs + base, vsn - base);
            vsn = base - 1;
            p->vs[vsn++] = v;
            ip++;
            continue;
        }
        case OP_CAPTURE:
            if (tn == p->captrail && grow((void **)&p->trail, &p->captrail, tn + 1, sizeof(vm_capture)) < 0)
                goto oom;
            p->trail[tn++] = (vm_capture){ (uint32_t)ip->a, p->vs[vsn - 1] };
            ip++;
            continue;
        case OP_POP:
            vsn--;
            ip++;
            continue;
        case OP_JMP:
            ip = code + ip->a;
            continue;
        case OP__COUNT:
            break;
        }
        return rt_result_abort(p, "internal error: bad instruction %u", (unsigned)ip->op);

    fail:
        if (pos > p->hw) p->hw = pos;
        for (;;) {
            e = &p->es[--esn];
            switch (e->kind) {
            case E_CALL:
                p->depth--;
                continue;
            case E_GCALL:
                goto general_fail;
            case E_CHOICE:
                if (e->cut) continue;
                pos = e->pos; vsn = e->vs; tn = e->trail;
                ip = code + e->ip;
                break;
            case E_ITER: {
                if (e->cut) continue;
                const vm_ins *rep = code + e->ip;
                pos = e->pos; vsn = e->vs; tn = e->trail;
                if (e->aux < (uint32_t)rep->b) continue;
                list_base = e->aux2;
                ip = code + rep->a;
                break;
            }
            case E_LOOK:
                p->silent--;
                continue;
            case E_NLOOK:
                p->silent--;
                pos = e->pos; vsn = e->vs; tn = e->trail;
                ip = code + e->ip;
                break;
            case E_BOTTOM:
                return rt_result_syntax_error(p);
            }
            break;
        }
        continue;

    general_call: {
        /* Decide whether this call is memoized (language.md 2.1): leaders always;
         * cyclic rules never; others by policy, by default from the second call of
         * a deferrable rule at a position. */
        const cc_rule *r = &g->rules[call_variant % nrules];
        uint32_t f = r->flags;
        int memoize;
        if (f & RULE_LEADER) memoize = 1;
        else if (!(f & RULE_MEMO) || p->policy == PEGO_MEMO_NONE) memoize = 0;
        else if (p->policy == PEGO_MEMO_ALL) memoize = 1;
        else if (f & RULE_TRANSIENT) memoize = 0;
        else {
            size_t bit = ((size_t)pos * (size_t)g->ndeferrable + (size_t)r->seen_index) * 2
                         + (call_variant >= nrules);
            uint64_t mask = 1ull << (bit & 63);
            memoize = (p->memo.seen[bit >> 6] & mask) != 0;
            p->memo.seen[bit >> 6] |= mask;
        }
#ifdef PEGO_FAULT_INJECTION
        if (rt_fault_memoize_traced && p->ntrace && (f & RULE_MEMO)) memoize = 1;
#endif
        if (!memoize && !TRACING(p)) goto plain_call;
        /* Here the call is memoized or traced: it gets a side record, its own
         * expectation window and examined range. A traced call is reported before
         * the memo table is consulted, so a memo hit is an ordinary call. */
        st->calls++;
        if (TRACING(p) && rt_trace_enter(p, call_variant, pos, p->depth + 1)) goto trace_abort;
        rt_memo_entry *m = memoize ? rt_memo_find(&p->memo, call_variant, pos) : NULL;
        if (m && ((m->flags & MEMO_GROWING) || !(m->flags & MEMO_SILENT) || p->silent)) {
            st->memo_hits++;
            if (!(m->flags & MEMO_GROWING)) {
                if (m->examined > p->hw) p->hw = m->examined;
                for (uint32_t i = 0; i < m->exp_len; i++)
                    expect(p, m->exp_far, p->memo.ids[m->exp_off + i]);
            }
            if (TRACING(p) && rt_trace_hit(p, call_variant, pos, p->depth + 1, m)) goto trace_abort;
            if (!(m->flags & MEMO_OK)) goto fail;
            pos = m->end;
            if (call_variant < nrules) PUSH_VALUE(m->value);
            ip = code + call_ret;
            continue;
        }
        if (p->ngf == p->capgf && grow((void **)&p->gf, &p->capgf, p->ngf + 1, sizeof(vm_gframe)) < 0)
            goto oom;
        vm_gframe *gf = &p->gf[p->ngf];
        *gf = (vm_gframe){ .variant = call_variant, .pos = pos, .saved_far = p->exp.far,
                           .saved_base = p->exp.base, .memo = -1, .silent = p->silent > 0,
                           .leader = (f & RULE_LEADER) != 0, .memoize = (uint8_t)memoize,
                           .traced = TRACING(p) > 0, .body = call_entry, .saved_hw = p->hw,
                           .evals_start = st->evals };
        if (gf->leader) {
            m = rt_memo_put(&p->memo, call_variant, pos, 2 * nrules);
            if (!m) goto oom;
            m->flags = MEMO_GROWING;
            m->exp_len = 0;
            gf->memo = (int32_t)(m - p->memo.entries);
        }
        PUSH_ENTRY(E_GCALL, call_ret);
        e->aux = call_variant;
        e->aux2 = p->ngf++;
        p->exp.base = p->exp.n;
        p->exp.far = pos;
        p->hw = pos;
        if (++p->depth > p->max_depth) goto too_deep;
        st->evals++;
        ip = code + call_entry;
        continue;
    }

    general_return: {
        /* The body matched. A leader grows its seed while the body ends farther
         * than the best so far (language.md 2.2), then returns the best. */
        vm_gframe *gf = &p->gf[e->aux2];
        ret_value = gf->variant < nrules ? p->vs[vsn - 1] : VAL_NIL;
        if (gf->leader) {
            if (!gf->has_best || pos > gf->best_end) {
                rt_memo_entry *m = &p->memo.entries[gf->memo];
                m->flags = MEMO_OK | MEMO_GROWING;
                m->end = pos;
                m->value = ret_value;
                gf->has_best = 1;
                gf->best_end = pos;
                gf->best_value = ret_value;
                pos = e->pos; vsn = e->vs; tn = e->trail;
                st->evals++;
                ip = code + gf->body;
                continue;
            }
            pos = gf->best_end;
            ret_value = gf->best_value;
        }
        goto general_success;
    }

    general_fail: {
        /* The body failed: a leader that grew a seed succeeds with it. */
        vm_gframe *gf = &p->gf[e->aux2];
        if (!(gf->leader && gf->has_best)) {
            int done = finish_call(p, gf, 0, pos, 0);
            if (done == FINISH_OOM) goto oom;
            if (done == FINISH_ABORT) goto trace_abort;
            p->ngf--;
            p->depth--;
            goto fail;
        }
        esn++;
        pos = gf->best_end;
        ret_value = gf->best_value;
        goto general_success;
    }

    general_success: {
        e = &p->es[esn - 1];
        vm_gframe *gf = &p->gf[e->aux2];
        int done = finish_call(p, gf, 1, pos, ret_value);
        if (done == FINISH_OOM) goto oom;
        if (done == FINISH_ABORT) goto trace_abort;
        p->ngf--;
        p->depth--;
        esn--;
        vsn = e->vs;
        tn = e->trail;
        if (gf->variant < nrules) PUSH_VALUE(ret_value);
        ip = code + e->ip;
        continue;
    }
    }

too_deep:
    return rt_result_abort(p, "nesting too deep: more than %u rule calls", p->max_depth);
trace_abort:
    return rt_result_abort(p, "parse aborted by a trace callback");
oom:
    p->res.status = PEGO_ENOMEM;
    return rt_result_abort(p, "out of memory");
#undef PUSH_ENTRY
#undef PUSH_VALUE
#undef NODE
#undef LOOKED
}
