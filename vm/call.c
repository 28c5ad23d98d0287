/* The general call path: calls that may be memoized, leaders of left-recursive
 * cycles that grow seeds, and calls that trace sinks or the profiler observe.
 * The loop hands such calls here (CALLG, and CALL when the plain path is off);
 * everything else is a plain call, a frame and a jump, made in the loop. */
#include "vm.h"

/* Decides whether this call is memoized (docs/language.md 2.1): leaders always;
 * cyclic rules never; others by policy, by default from the second call of a
 * deferrable rule at a position. */
static int decide_memo(pego_parser *p, const cc_rule *r, uint32_t pos)
{
    uint32_t f = r->flags;
    int memoize;
    if (f & RULE_LEADER) memoize = 1;
    else if (!(f & RULE_MEMO) || p->policy == PEGO_MEMO_NONE) memoize = 0;
    else if (p->policy == PEGO_MEMO_ALL) memoize = 1;
    else if (f & RULE_TRANSIENT) memoize = 0;
    else memoize = !vm_first_call_at(p, pos, (size_t)r->seen_index);
#ifdef PEGO_FAULT_INJECTION
    if (vm_fault_memoize_traced && p->observing && (f & RULE_MEMO)) memoize = 1;
#endif
    return memoize;
}

/* Makes room for one more side record; -1 when out of memory. */
static int grow_side_records(pego_parser *p)
{
    if (p->ngf < p->capgf) return 0;
    p->es_moving = 1;                     /* the sampler reads the side records too */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    int status = rt_buf_grow((void **)&p->gf, &p->capgf, p->ngf + 1, sizeof(vm_gframe));
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    p->es_moving = 0;
    return status;
}

/* A memo hit on entry m decides call c: it fails, or it matched, and its
 * value is pushed for a valued variant. */
static vm_step take_hit(pego_parser *p, vm_regs *r, const vm_call *c, const rt_memo_entry *m)
{
    if (!(m->flags & MEMO_OK)) return VM_FAIL;
    r->pos = m->end;
    if (c->variant < (uint32_t)p->g->nrules && vm_push_value(p, r, m->value) < 0) return VM_OOM;
    r->ip = p->g->code + c->ret;
    return VM_NEXT;
}

/* Whether a memoized call, or the call of side record gf, is the fast
 * program's (unprofiled, and not a leader growing a seed): fast_memo_call. */
static int fast_memo(const pego_parser *p, int leader) { return p->fast && !p->counting && !leader; }

/* A memoized call of the fast program, unprofiled: a later call of a
 * deferrable rule at a position (vm/loop.h, CALLG), in a parse, a probe or a
 * stream's element (the profiled program decides its own in the loop,
 * memo_call). Nothing observes it, and the fast program records no
 * expectations, reads no variables and recovers no errors: the memo table
 * keeps the call's outcome and the input it examined (what a probe's reach
 * needs). finish_fast_call ends it. */
static vm_step fast_memo_call(pego_parser *p, vm_regs *r, const vm_call *c)
{
    pego_stats *st = &p->res.stats;
    uint32_t min = c->level ? c->level - 1 : 0;
    st->calls++;
    rt_memo_entry *m = rt_memo_find(&p->memo, c->variant, r->pos, min, 0);
    if (m && vm_memo_usable(p, m)) {
        st->memo_hits++;
        if (m->examined > p->hw) p->hw = m->examined;
        return take_hit(p, r, c, m);
    }
    if (grow_side_records(p) < 0) return VM_OOM;
    /* the fields the call's end reads (finish_fast_call, call_success, vm_call_fail) */
    vm_gframe *gf = &p->gf[p->ngf];
    gf->variant = c->variant;
    gf->pos = r->pos;
    gf->memo = m ? (int32_t)(m - p->memo.entries) : -1;
    gf->saved_hw = p->hw;
    gf->level = min;
    gf->env = 0;
    gf->silent = p->silent > 0;
    gf->leader = 0;
    gf->memoize = 1;
    gf->traced = 0;
    vm_entry *e = vm_push_entry(p, r, E_GCALL);
    if (!e) return VM_OOM;
    e->u.gcall.ret = c->ret;
    e->u.gcall.frame = p->ngf++;
    e->level = (uint16_t)c->level;
    p->hw = r->pos;
    if (++r->depth > p->max_depth) return VM_TOO_DEEP;
    st->evals++;
    r->ip = p->g->code + c->entry;
    return VM_NEXT;
}

int vm_memo_lookup(pego_parser *p, uint32_t variant, uint32_t pos, uint32_t *k)
{
    int added;
    rt_memo_entry *m = rt_memo_put(&p->memo, variant, pos, 0, 0, 2u * (uint32_t)p->g->nrules, &added);
    if (!m) return -1;
    *k = (uint32_t)(m - p->memo.entries);
    return !added && vm_memo_usable(p, m);
}

vm_step vm_call_enter(pego_parser *p, vm_regs *r, const vm_call *c)
{
    const pego_grammar *g = p->g;
    const uint32_t nrules = (uint32_t)g->nrules;
    pego_stats *st = &p->res.stats;
    const cc_rule *rule = &g->rules[c->variant % nrules];
    int memoize = decide_memo(p, rule, r->pos);
    int watched = OBSERVING(p);
    if (!memoize && !watched) return VM_PLAIN_CALL;
    if (fast_memo(p, rule->flags & RULE_LEADER)) return fast_memo_call(p, r, c);
    /* Here the call is memoized or observed: it gets a side record, its own
     * expectation window and examined range. An observed call is reported
     * before the memo table is consulted, so a memo hit is an ordinary call. */
    st->calls++;
    vm_count *count = p->counting ? &p->counts[c->variant] : NULL;
    if (count) count->calls++;
    if (watched) p->observed_call = c->ret;
    if (watched && rt_trace_observe_enter(p, c->variant, r->pos, p->ngf + 1, c->level)) return VM_ABORTED;
    uint32_t min = c->level ? c->level - 1 : 0;
    /* a rule that can read variables is memoized per their values (5.3) */
    uint32_t env = 0;
    if (memoize && rule->nreads && !(env = vm_env_key(p, g->rule_reads + rule->reads, rule->nreads))) return VM_OOM;
    rt_memo_entry *m = memoize ? rt_memo_find(&p->memo, c->variant, r->pos, min, env) : NULL;
    /* An entry computed inside a lookahead recorded no expectations; one with
     * recovered errors is used only in the same lookahead context. */
    if (m && ((m->flags & MEMO_GROWING) ||
              (vm_memo_usable(p, m) &&
               (!m->rec_len || !(m->flags & MEMO_SILENT) == !p->silent)))) {
        st->memo_hits++;
        if ((m->flags & MEMO_CARRIED) && rt_document_carry(p, m) < 0) return VM_OOM;
        if (count) {
            count->memo++;
            vm_count_outcome(count, m->flags & MEMO_OK, r->pos, m->end);
        }
        if (!(m->flags & MEMO_GROWING)) {
            if (m->examined > p->hw) p->hw = m->examined;
            for (uint32_t i = 0; i < m->exp_len; i++) vm_expect(p, m->exp_far, p->memo.ids[m->exp_off + i]);
        }
        /* a growing seed carries the errors its round recovered, like any entry */
        if ((m->flags & MEMO_OK) && vm_recover_replay(p, m) < 0) return VM_OOM;
        if (watched && rt_trace_observe_hit(p, c->variant, r->pos, p->ngf + 1, c->level, m)) return VM_ABORTED;
        return take_hit(p, r, c, m);
    }
    if (grow_side_records(p) < 0) return VM_OOM;
    vm_gframe *gf = &p->gf[p->ngf];
    *gf = (vm_gframe){ .variant = c->variant, .pos = r->pos, .saved_far = p->exp.far,
                       .saved_base = p->exp.base, .memo = m ? (int32_t)(m - p->memo.entries) : -1,
                       .silent = p->silent > 0,
                       .leader = (rule->flags & RULE_LEADER) != 0, .memoize = (uint8_t)memoize,
                       .traced = watched > 0, .body = c->entry, .saved_hw = p->hw,
                       .evals_start = st->evals, .level = min, .call_level = c->level,
                       .rec_start = p->nrec, .env = env };
    if (gf->leader) {
        /* a leader is memoized: m is its entry, if the table has one */
        if (!m && !(m = rt_memo_add(&p->memo, c->variant, r->pos, min, env, 2 * nrules))) return VM_OOM;
        m->flags = MEMO_GROWING;
        m->exp_len = 0;
        m->rec_len = 0;
        gf->memo = (int32_t)(m - p->memo.entries);
    }
    vm_entry *e = vm_push_entry(p, r, E_GCALL);
    if (!e) return VM_OOM;
    e->u.gcall.ret = c->ret;
    e->u.gcall.frame = p->ngf++;
    if (p->sampled) {                     /* the frame the sampler finds on top */
        e->u.gcall.caller = p->sample_top;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        p->sample_top = r->esn;
    }
    e->level = (uint16_t)c->level;
    vm_open_window(p, r->pos);
    p->hw = r->pos;
    if (++r->depth > p->max_depth) return VM_TOO_DEEP;
    st->evals++;
    if (count) count->evals++;
    r->ip = g->code + c->entry;
    return VM_NEXT;
}

enum { FINISH_OK = 0, FINISH_OOM = -1, FINISH_ABORT = -2 };

/* Stores the outcome of the memoized call of side record gf, with the end of
 * the input it examined, in its entry: the one found and not used (made in a
 * lookahead), or a new one. NULL when out of memory. */
static rt_memo_entry *store_outcome(pego_parser *p, const vm_gframe *gf, int ok, uint32_t end, uint32_t value,
                                    uint32_t examined)
{
    rt_memo_entry *m = gf->memo >= 0 ? &p->memo.entries[gf->memo]
                                     : rt_memo_add(&p->memo, gf->variant, gf->pos, gf->level, gf->env,
                                                   2u * (uint32_t)p->g->nrules);
    if (!m) return NULL;
    m->flags = (ok ? MEMO_OK : 0) | (gf->silent ? MEMO_SILENT : 0);
    m->end = end;
    m->value = value;
    m->examined = examined;
    p->res.stats.memo_stored++;
    return m;
}

/* Ends a memoized or observed call: stores its outcome in the memo table with
 * the expectations it recorded and the input it examined, reports its exit to
 * the observers, then closes its expectation window and merges it into the
 * caller's record (docs/language.md 2.1: a memo hit replays the same merge). */
static int finish_call(pego_parser *p, vm_gframe *gf, int ok, uint32_t end, uint32_t value)
{
    rt_expect *x = &p->exp;
    uint32_t examined = p->hw > end ? p->hw : end;
    if (gf->memoize) {
        /* the entry found and not used (made in a lookahead), or a new one: a
         * memoized rule is called again at its position with its level and
         * environment only through left recursion, whose leader has its entry
         * from the start, so nothing made one since the call began */
        rt_memo_entry *m = store_outcome(p, gf, ok, end, value, examined);
        if (!m) return FINISH_OOM;
        if (rt_memo_keep(&p->memo, m, RT_AT(x->items, x->base), x->n - x->base, x->far) < 0) return FINISH_OOM;
        if (rt_memo_keep_recovered(&p->memo, m, RT_AT(p->rec, gf->rec_start), ok ? p->nrec - gf->rec_start : 0) < 0)
            return FINISH_OOM;
    }
    if (p->counting) vm_count_outcome(&p->counts[gf->variant], ok, gf->pos, end);
    if (OBSERVING(p) && gf->traced && rt_trace_observe_exit(p, gf, ok, end, examined)) return FINISH_ABORT;
    int merge = 1;
#ifdef PEGO_FAULT_INJECTION
    if (vm_fault_skip_traced_merge && gf->traced) merge = 0;
#endif
    vm_close_window(p, gf->saved_far, gf->saved_base, merge);
    p->hw = gf->saved_hw > examined ? gf->saved_hw : examined;
    return FINISH_OK;
}

/* Ends a memoized call of the fast program (fast_memo_call): stores its
 * outcome and the input it examined, unless it matched keeping an error
 * that a #recover skip recovered in it (vm/loop.h, SKIPEND), which the entry
 * could not tell a later call: that call runs it again. */
static int finish_fast_call(pego_parser *p, vm_gframe *gf, int ok, uint32_t end, uint32_t value)
{
    uint32_t examined = p->hw > end ? p->hw : end;
    if (!(ok && p->kept_skip_last > gf->pos) && !store_outcome(p, gf, ok, end, value, examined))
        return FINISH_OOM;
    p->hw = gf->saved_hw > examined ? gf->saved_hw : examined;
    return FINISH_OK;
}

/* The call succeeds with value v at r->pos: its entry (on top) and side record
 * are popped, and v is pushed for a valued variant. */
static vm_step call_success(pego_parser *p, vm_regs *r, uint32_t v)
{
    vm_entry *e = &p->es[r->esn - 1];
    vm_gframe *gf = &p->gf[e->u.gcall.frame];
    int done = fast_memo(p, gf->leader) ? finish_fast_call(p, gf, 1, r->pos, v) : finish_call(p, gf, 1, r->pos, v);
    if (done == FINISH_OOM) return VM_OOM;
    if (done == FINISH_ABORT) return VM_ABORTED;
    p->ngf--;
    r->depth--;
    r->esn--;
    if (p->sampled) p->sample_top = e->u.gcall.caller;
    r->vsn = e->vs;
    r->tn = e->trail;
    p->nvars = p->vmarks[r->esn];       /* the callee's definitions end with it */
    if (gf->variant < (uint32_t)p->g->nrules && vm_push_value(p, r, v) < 0) return VM_OOM;
    r->ip = p->g->code + e->u.gcall.ret;
    return VM_NEXT;
}

/* A leader's growth is over: it returns its best seed, with the errors that
 * round recovered. */
static vm_step return_best(pego_parser *p, vm_regs *r, vm_gframe *gf)
{
    r->pos = gf->best_end;
    p->nrec = gf->rec_start;
    if (vm_recover_replay(p, &p->memo.entries[gf->memo]) < 0) return VM_OOM;
    return call_success(p, r, gf->best_value);
}

vm_step vm_call_return(pego_parser *p, vm_regs *r)
{
    /* The body matched. A leader grows its seed while the body ends farther
     * than the best so far (docs/language.md 2.2), then returns the best. */
    vm_entry *e = &p->es[r->esn - 1];
    vm_gframe *gf = &p->gf[e->u.gcall.frame];
    uint32_t v = gf->variant < (uint32_t)p->g->nrules ? p->vs[r->vsn - 1] : VAL_NIL;
    if (!gf->leader) return call_success(p, r, v);
    if (gf->has_best && r->pos <= gf->best_end) return return_best(p, r, gf);
    rt_memo_entry *m = &p->memo.entries[gf->memo];
    m->flags = MEMO_OK | MEMO_GROWING;
    m->end = r->pos;
    m->value = v;
    if (rt_memo_keep_recovered(&p->memo, m, RT_AT(p->rec, gf->rec_start), p->nrec - gf->rec_start) < 0)
        return VM_OOM;
    gf->has_best = 1;
    gf->best_end = r->pos;
    gf->best_value = v;
    vm_restore_entry(p, r, e, r->esn - 1);
    p->res.stats.evals++;
    if (p->counting) p->counts[gf->variant].evals++;
    r->ip = p->g->code + gf->body;
    return VM_NEXT;
}

vm_step vm_call_fail(pego_parser *p, vm_regs *r, vm_entry *e)
{
    /* The body failed: a leader that grew a seed succeeds with it. */
    vm_gframe *gf = &p->gf[e->u.gcall.frame];
    if (gf->leader && gf->has_best) {
        r->esn++;
        return return_best(p, r, gf);
    }
    int done = fast_memo(p, gf->leader) ? finish_fast_call(p, gf, 0, r->pos, 0) : finish_call(p, gf, 0, r->pos, 0);
    if (done == FINISH_OOM) return VM_OOM;
    if (done == FINISH_ABORT) return VM_ABORTED;
    p->ngf--;
    r->depth--;
    if (p->sampled) p->sample_top = e->u.gcall.caller;
    return VM_FAIL;
}
