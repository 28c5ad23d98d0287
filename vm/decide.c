/* Deciding a syntax error without parsing the whole input again with the
 * reference program (docs/architecture.md, Deciding a syntax error).
 *
 * A parse the fast program did not match is decided by the reference program,
 * value-free: the deciding run. The error it writes depends only on the
 * expectations recorded at the farthest position any was recorded at. So a
 * call whose run could record expectations only below that position needs no
 * run of its own: what it matches is enough, and the fast program computes
 * that. Before a call, the deciding run probes it: the fast program's
 * recognition runs the call alone, on a parser of its own (the prober, whose
 * memo table the probes share: a call's outcome does not depend on who asks),
 * and measures its reach, the farthest position it held. The reference
 * program's run of the same call holds the same positions (the fast program
 * skips only what fails at the byte where it begins) and records expectations
 * only at positions it holds. A probe stands for the call when its reach stays
 * below the probe's cap; else the call is made, and its own calls are probed in
 * turn.
 *
 * The run is exact when the error's position is past the reach of every probe
 * that stood for a call outside a lookahead (whose expectations are never
 * recorded): what those calls would have recorded lies below it, where the
 * error keeps nothing. The caller checks it (vm_decide) and, when it does not
 * hold, decides again with a lower cap, or runs the reference program.
 *
 * The cap is the smaller of a bound (where the fast program last began an
 * iteration, a guess of the error's position; then the position of a first
 * run's error) and PROBE_SPAN bytes past the call: a call that reaches the
 * error costs a probe of at most that many bytes before it is made. The
 * probes that did not stand for calls may run over at most about the input's
 * length in all; past that, calls are made. Calls of rules in left-recursive
 * cycles and level-restricted calls are always made: their outcome depends on
 * the seed being grown. So are the calls of rules that reach such a cycle
 * (RULE_REACHES_CYCLE): what a cycle's rule matches at a position is the memo
 * entry that its first evaluation there grew, within whatever calls of the
 * cycle were growing then, and the deciding run's own calls keep those entries
 * in its memo table, which a probe does not see.
 *
 * A failed fast run leaves claims behind. Its repetitions keep where they
 * began in their control-stack entries; the entries a failure popped stay in
 * memory, each saying that a repetition that began at one position matched
 * some iterations up to the start of the one it tried last. vm_claims_arm
 * clears the first entries before the run, so that those left are its own,
 * and the deciding run reads them when it begins (harvest_claims). At the same
 * repetition of the reference program at the same position, it skips the
 * iterations claimed, when their overshoot (compiler/overshoot.c: how far
 * past its end an iteration may record an expectation) keeps them below the
 * bound; like a probe that stood for a call, a claim counts its reach in
 * skipped, which the check of the result covers. An iteration that calls a
 * rule reaching a left-recursive cycle has no bound: the entries that such
 * calls leave in the memo table decide later calls. */
#include "vm.h"


enum { PROBE_SPAN = 4096 };

int vm_decide_call(pego_parser *p, const vm_ins *ip, uint32_t pos, uint32_t depth, uint32_t *end)
{
    const pego_grammar *g = p->g;
    rt_decider *d = &p->decider;
    uint32_t variant = (uint32_t)ip->a;
    if (!d->probing || variant < (uint32_t)g->nrules || ip->c ||
        (g->rules[variant % g->nrules].flags & (RULE_CYCLIC | RULE_REACHES_CYCLE)))
        return 0;
    uint32_t cap = pos + PROBE_SPAN < pos ? UINT32_MAX : pos + PROBE_SPAN;
    if (!p->silent && cap > d->bound) cap = d->bound;
    uint32_t room = p->max_depth - depth;     /* levels for the call and what it calls */
    if (cap <= pos || room <= g->fast_reserve) return 0;
    pego_parser *q = p->prober;
    q->max_depth = room - g->fast_reserve;
    q->start_pos = pos;
    q->probe_cap = cap;
    int status = vm_run_probe_loop(q, variant);
    uint32_t reach = q->hw;
    if (status == PEGO_OK && q->probe_end > reach) reach = q->probe_end;
#ifdef PEGO_FAULT_INJECTION
    if (vm_fault_probe_end) reach = q->hw;
#endif
    /* a probe that gave up would have recovered an error: the call is made */
    if ((status == PEGO_OK || (status == PEGO_SYNTAX_ERROR && !q->gave_up)) && reach < cap) {
        if (!p->silent && reach >= d->skipped) d->skipped = reach + 1;
        *end = q->probe_end;
        return status == PEGO_OK ? 1 : -1;
    }
    /* the call is made: an unfinished probe may leave a seed growing in the
     * prober's memo table, and no memory stops the probes */
    if ((status != PEGO_OK && status != PEGO_SYNTAX_ERROR) || q->gave_up) {
        for (uint32_t i = 0; i < q->ngf; i++)
            if (q->gf[i].leader) {
                rt_memo_reset(&q->memo);
                break;
            }
        if (status == PEGO_ENOMEM) d->probing = 0;
        rt_parse_clear_result(q);
    }
    d->waste += (reach > pos ? reach - pos : 0) + 1;
    if (d->waste > d->budget) d->probing = 0;
    return 0;
}

void vm_claims_arm(pego_parser *p)
{
    p->claims_armed = 0;
    p->nclaims = 0;
    if (!p->g->nrep_links) return;
    if (p->capes < VM_CLAIM_SLOTS && vm_grow_entries(p, VM_CLAIM_SLOTS) < 0) return;   /* no claims */
    for (uint32_t i = 0; i < VM_CLAIM_SLOTS; i++) p->es[i].kind = E_BOTTOM;
    p->claims_armed = 1;
}

/* The claims of the failed fast run, from the entries it left. */
static void harvest_claims(pego_parser *p)
{
    p->nclaims = 0;
    if (!p->claims_armed) return;
    p->claims_armed = 0;
    for (uint32_t i = 0; i < VM_CLAIM_SLOTS && i < p->capes; i++) {
        const vm_entry *e = &p->es[i];
        if (e->kind != E_ITER || !e->u.iter.count || e->pos <= e->rec || e->pos > p->in.len) continue;
        const cc_rep_link *link = cc_rep_link_at(p->g, e->u.iter.rep);
        if (link) p->claims[p->nclaims++] = (rt_claim){ link->ref_rep, e->rec, e->pos, e->u.iter.count, link->over };
    }
}

int vm_decide_claim(pego_parser *p, uint32_t rep, uint32_t pos, uint32_t *to, uint32_t *count)
{
    rt_decider *d = &p->decider;
    const rt_claim *best = NULL;
    for (uint32_t i = 0; i < p->nclaims; i++) {
        const rt_claim *c = &p->claims[i];
        uint64_t reach = (uint64_t)c->to + c->over;
        if (c->ref_rep != rep || c->from != pos || reach >= d->claim_bound) continue;
        /* one that reaches the bound, the guess of the error's position,
         * makes the result wrong if the error lies within its reach; it is
         * taken only when its iterations would cost more to probe than a
         * second run risks */
        if (reach >= d->bound && c->to - c->from < PROBE_SPAN) continue;
        if (!best || c->to > best->to) best = c;
    }
    if (!best) return 0;
    uint32_t reach = best->to + best->over;       /* below claim_bound */
#ifdef PEGO_FAULT_INJECTION
    if (vm_fault_claim_unchecked) reach = 0;
#endif
    if (!p->silent && reach >= d->skipped) d->skipped = reach + 1;
    d->claimed++;
    *to = best->to;
    *count = best->count;
    return 1;
}

/* Prepares the prober for a parse of p's input; fresh: its memo table starts
 * empty. Returns -1 when out of memory. */
static int prepare_prober(pego_parser *p, int fresh)
{
    const pego_grammar *g = p->g;
    pego_parser *q = p->prober;
    if (!q) {
        q = p->prober = pego_parser_new(g);
        if (!q) return -1;
        q->internal = 1;
        fresh = 1;
    }
    if (fresh) {
        q->in.input = p->in.input;        /* the probes never turn positions into units or lines */
        q->in.len = p->in.len;
        rt_memo_reset(&q->memo);
        q->memo.extent = p->in.len;
        if (g->ndeferrable && rt_memo_seen_prepare(&q->memo, 0, ((size_t)p->in.len + 1) * (size_t)g->ndeferrable) < 0)
            return -1;
    }
    rt_parse_clear_result(q);
    q->policy = PEGO_MEMO_DEFAULT;
    q->noplain = 0;
    q->observing = 0;
    q->fast = 1;
    q->counting = 0;
    q->defer = g->ndeferrable > 0;
    return 0;
}

int vm_decide(pego_parser *p, uint32_t start_variant, uint32_t bound, int fresh, int *exact)
{
    rt_decider *d = &p->decider;
    *exact = 0;
    if (fresh) harvest_claims(p);
    if (prepare_prober(p, fresh) < 0) return PEGO_SYNTAX_ERROR;   /* not decided: the reference program runs */
    /* the first run takes every claim; a second one, those whose reach
     * stays below the first run's error */
    *d = (rt_decider){ .bound = bound, .claim_bound = fresh ? UINT32_MAX : bound,
                       .budget = (uint64_t)p->in.len + PROBE_SPAN, .probing = 1 };
    int status = vm_run_decide_loop(p, start_variant);
    *exact = status == PEGO_SYNTAX_ERROR && !p->exp.oom && p->exp.far >= d->skipped;
#ifdef PEGO_FAULT_INJECTION
    if (vm_fault_decide_unchecked) *exact = status == PEGO_SYNTAX_ERROR;
#endif
    return status;
}
