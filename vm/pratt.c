/* The Pratt machine (docs/language.md 3.2). A rule whose body is a Pratt
 * expression runs PSTART, then PRATT, which returns to the loop whenever it
 * needs one of the expression's lines matched: it pushes a line entry (E_SUB)
 * and the loop runs the line; SUBRET, or a failure reaching the entry, brings
 * the outcome back here and the loop runs PRATT again. Each parse(min) is a
 * frame on the parser's Pratt stack and counts one level of nesting. Each
 * program has its own lines (grammar.pratts); the machine is the same. */
#include "vm.h"
#include "action.h"

#include <string.h>

/* States of a parse(min): the head (skip, prefix candidates, operands), then the
 * loop over infix and postfix candidates. */
typedef enum {
    PS_HEAD, PS_HEAD_SKIPPED, PS_PREFIX_TRY, PS_PREFIX_TRIED, PS_PREFIX_RERUN, PS_PREFIX_RHS,
    PS_OPERAND, PS_OPERAND_TRIED, PS_LOOP, PS_LOOP_SKIPPED, PS_TAIL_TRY, PS_TAIL_TRIED,
    PS_TAIL_RERUN, PS_TAIL_RHS
} pratt_state;

static vm_mark mark(pego_parser *p, const vm_regs *r)
{
    return (vm_mark){ r->pos, r->vsn, r->tn, p->nrec, p->nvars };
}

static void restore(pego_parser *p, vm_regs *r, vm_mark m)
{
    r->pos = m.pos;
    r->vsn = m.vs;
    r->tn = m.trail;
    p->nrec = m.rec;
    p->nvars = m.vars;
}

/* A new parse(min) on top of the Pratt stack, with the fields it reads
 * before it writes them (the others wait); NULL when out of memory. */
static inline vm_pframe *new_parse(pego_parser *p, uint16_t pratt, int outer, int valued, uint32_t min)
{
    if (p->npf == p->cappf && rt_buf_grow((void **)&p->pf, &p->cappf, p->npf + 1, sizeof(vm_pframe)) < 0) return NULL;
    vm_pframe *f = &p->pf[p->npf++];
    f->pratt = pratt;
    f->state = PS_HEAD;
    f->outer = (uint8_t)outer;
    f->valued = (uint8_t)valued;
    f->scanned = f->scan_calls = 0;
    f->min = min;
    f->lhs = VAL_NIL;
    return f;
}

/* Pushes a parse(min) on top of frame *f for an operand; *f is updated, since
 * the stack may move. -1 when out of memory, -2 past the nesting limit. */
static inline int push_parse(pego_parser *p, vm_regs *r, vm_pframe **f, uint32_t min)
{
    vm_pframe *top = new_parse(p, (*f)->pratt, 0, (*f)->valued, min);
    if (!top) return -1;
    *f = top;
    return ++r->depth > p->max_depth ? -2 : 0;
}

/* Applies operator op of frame f to lhs (prefix: nil) and rhs (postfix: nil),
 * over start to the position: the value of its action (docs/language.md 3.3,
 * 6.3), or an Operator node labelled with the rule, with the operator's
 * number as a field when the grammar has that label. Sets *v; returns
 * VM_NEXT, VM_OOM or VM_ACTION_ERROR. */
static vm_step apply_operator(pego_parser *p, const vm_regs *r, const cc_pratt *pr, const cc_pratt_op *op,
                              const vm_pframe *f, uint32_t start, uint32_t lhs, uint32_t rhs, uint32_t *v)
{
    const pego_grammar *g = p->g;
    if (op->action >= 0) {
        uint32_t locals[CC_PRATT_SLOTS] = { [CC_SLOT_LHS] = lhs, [CC_SLOT_RHS] = rhs, [CC_SLOT_PART] = f->op_value };
        locals[CC_SLOT_OP] = rt_tree_node(&p->tree, NODE_MATCH, f->op_start, f->op_end, NULL, 0);
        if (!locals[CC_SLOT_OP]) return VM_OOM;
        vm_step st = vm_action_eval(p, op->action, VAL_NIL, 0, 0, start, r->pos, locals, v);
        if (st == VM_NEXT && *v != VAL_NIL) *v |= VAL_CALLED;     /* never labelled */
        return st;
    }
    uint32_t kids[3], n = 0;
    if (op->kind != PRATT_PREFIX) kids[n++] = lhs;
    kids[n++] = f->op_value;
    if (op->kind != PRATT_POSTFIX) kids[n++] = rhs;
    *v = rt_tree_node(&p->tree, NODE_OPERATOR, start, r->pos, kids, n);
    if (!*v) return VM_OOM;
    rt_tree_node_set_label(&p->tree.nodes[*v - 1], pr->rule);
    if (g->label_operator >= 0 && vm_scalar_field(p, *v, g->label_operator, FIELD_INT, (uint32_t)op->number) < 0)
        return VM_OOM;
    return VM_NEXT;
}

vm_step vm_pratt_start(pego_parser *p, vm_regs *r)
{
    /* The outer parse of a Pratt rule, valued or not (b), at the level of the
     * call: the level operand of the call instruction that made the rule's
     * frame, which is on top (calls of Pratt rules are never tail calls; the
     * start rule is called from address 0 at no level). */
    const vm_entry *e = &p->es[r->esn - 1];
    uint32_t ret = e->kind == E_GCALL ? e->u.gcall.ret : e->u.call.ret;
    uint32_t level = ret ? (uint32_t)p->g->code[ret - 1].c : 0;
    if (!new_parse(p, (uint16_t)r->ip->a, 1, r->ip->b != 0, level ? level - 1u : 0)) return VM_OOM;
    if (++r->depth > p->max_depth) return VM_TOO_DEEP;
    r->ip++;
    return VM_NEXT;
}

/* The first line from k on, of those whose table may (cc_pratt.tail_may,
 * ...) says may match at pos, or n: the fast and profiled programs leave out
 * the lines that would fail there without passing a cut (the profiled
 * program, only those that would also make no call). */
static inline int next_line(const pego_parser *p, const uint64_t *may, int k, int n, uint32_t pos)
{
    if (!may || k >= n) return k;
    uint32_t len = p->in.len;
    const unsigned char *s = (const unsigned char *)p->in.input;
    uint64_t left = may[pos < len ? s[pos] : 256] & (~0ull << k);
    if (!left) return n;
#if defined(__GNUC__)
    return __builtin_ctzll(left);
#else
    while (!((left >> k) & 1)) k++;
    return k;
#endif
}

/* The probe's machine (probing: vm_pratt_run_probe, for the probe and the
 * element run, vm/decide.c and vm/stream.c), whose reach is the farthest
 * position held (LOOKED in vm/loop.h), holds the position at which it tests
 * the next byte to choose the lines to try: a test that chose none ran no
 * line that would have held it, and the reference program's lines fail
 * there, recording what they expected. */
static inline void choosing_at(pego_parser *p, uint32_t pos, const int probing)
{
    if (probing && pos > p->hw) p->hw = pos;
}

/* The skip runs as a line, silently, except when it is one byte span, which
 * the machine scans itself (cc_pratt.skip_span). */
static int skip_is_line(const cc_pratt *pr) { return pr->has_skip && pr->skip_span < 0; }

/* Inlined in the machine, whose registers it uses: called out of line, as
 * gcc chose once vm_byte_span grew, stmts' recognition took 2.7% more
 * instructions. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void skip_span(const pego_parser *p, vm_regs *r, int set_index)
{
    const uint8_t *set = p->g->bytesets[set_index].in;
    const unsigned char *s = (const unsigned char *)p->in.input;
    uint32_t from = r->pos, len = p->in.len;
    uint32_t pos = vm_byte_span(s, from, len, set);
    FAULT_SHORT_SKIP(p, from);
    r->pos = pos;
}

/* The chosen operator's line runs again, valued, to make its value. A
 * value-free line the fast program does not run again: it would end where
 * it ended, with the same cut, and its calls change only the memo table. Nor
 * does the profiled program, when the line is one the machine matches
 * (literals: it calls nothing, so the counts stay the reference program's). */
static inline int skip_rerun(const cc_pratt *pr, const cc_pratt_op *op, vm_regs *r, vm_pframe *f, int profiled)
{
    if (!pr->fast && !(profiled && pr->takes_lines && op->nlits)) return 0;
    r->pos = f->best_end;
    f->out_ok = 1;
    f->out_cut = f->best_cut;
    f->out_value = VAL_NIL;
    return 1;
}

/* The lines the fast and profiled programs' machine takes over
 * (docs/architecture.md, Pratt expressions), each with the outcome the line
 * would have: lines that call nothing, so that the profiled program's counts
 * stay the reference program's (the profiled program's calls of one span are
 * counted by counted_span, below). Not in a probe (vm/decide.c), whose reach
 * counts where a line failed: the machine takes them when pr->takes_lines
 * and not probing. */

/* An operator line of literals (cc_pratt_op.lits), tried value-free from the
 * position: no value, no cut. may is its kind's table (NULL: every line is
 * tried): one that says the line may match at the next byte has found, for
 * literals of one byte each, the one that does. */
static inline void match_literals(const pego_parser *p, vm_regs *r, vm_pframe *f, const cc_pratt_op *op,
                                  const uint64_t *may)
{
    const unsigned char *s = (const unsigned char *)p->in.input;
    uint32_t pos = r->pos, len = p->in.len;
    f->out_cut = 0;
    f->out_value = VAL_NIL;
    if (may && op->lit_bytes1) {
        r->pos = pos + 1;
        f->out_ok = 1;
        return;
    }
    f->out_ok = 0;
    for (int i = 0; i < op->nlits; i++) {
        const cc_literal *l = &p->g->literals[op->lits[i]];
        if (len - pos >= l->len && s[pos] == (unsigned char)l->bytes[0] &&
            (l->len == 1 || memcmp(s + pos + 1, l->bytes + 1, l->len - 1) == 0)) {
            r->pos = pos + l->len;
            f->out_ok = 1;
            break;
        }
    }
}

/* The operator chosen, run again valued to make its value, when its part is
 * bare literals (cc_pratt_op.lit_value): a Match of the literal. -1 when out
 * of memory. */
static inline int literal_value(pego_parser *p, vm_regs *r, vm_pframe *f)
{
    uint32_t v = rt_tree_node(&p->tree, NODE_MATCH, r->pos, f->best_end, NULL, 0);
    if (!v) return -1;
    r->pos = f->best_end;
    f->out_ok = 1;
    f->out_cut = f->best_cut;
    f->out_value = v;
    return 0;
}

/* A value-free operand line that is one span of one byte or more, over the
 * byte set set (cc_pratt.operand_span). */
static inline void span_operand(const pego_parser *p, vm_regs *r, vm_pframe *f, int set_index)
{
    const uint8_t *set = p->g->bytesets[set_index].in;
    const unsigned char *s = (const unsigned char *)p->in.input;
    uint32_t pos = r->pos, len = p->in.len;
    f->out_cut = 0;
    f->out_value = VAL_NIL;
    f->out_ok = pos < len && set[s[pos]];
    if (f->out_ok) {
        for (pos++; pos < len && set[s[pos]]; pos++) {}
        r->pos = pos;
    }
}

/* The profiled program's skip or value-free operand line (operand) at line
 * that is a call compiled in (chain) of a byte span over set_index
 * (cc_pratt.skip_chain, operand_chain): scanned as above, with sample_ip at
 * the span's instruction meanwhile (the sampler gives the time to the call);
 * then the call counts: entered, and matched with what it consumed when it
 * matched. */
static inline void counted_span(pego_parser *p, vm_regs *r, vm_pframe *f, int chain, int set_index, uint32_t line,
                                int operand)
{
    const vm_ins *was = p->sample_ip;
    uint32_t from = r->pos;
    p->sample_ip = p->g->code + line + 1;
    int ok = 1;
    if (operand) {
        span_operand(p, r, f, set_index);
        ok = f->out_ok;
    } else {
        skip_span(p, r, set_index);
    }
    vm_chain_count *c = &p->chain_counts[chain];
    c->entered++;
    if (ok) {
        c->matched++;
        c->consumed += r->pos - from;
    }
    p->sample_ip = was;
}

/* Runs line (an address) of the Pratt expression under a line entry; the loop
 * comes back to the PRATT instruction at r->ip when it is over. */
static vm_step run_line(pego_parser *p, vm_regs *r, uint32_t line)
{
    vm_entry *e = vm_push_entry(p, r, E_SUB);
    if (!e) return VM_OOM;
    e->u.sub.resume = (uint32_t)(r->ip - p->g->code);
    r->ip = p->g->code + line;
    return VM_NEXT;
}

/* The machine. f->state is where the top parse goes on when the machine runs
 * again: after the loop ran a line for it, or after the operand parse it
 * pushed returned. Between, it goes from state to state (the labels, named
 * after the states) without leaving. It is compiled three times:
 * vm_pratt_run for the reference and fast programs, vm_pratt_run_profiled for
 * the profiled program (profiled: the counting, and the scans and lines it
 * skips, kept out of the other copies) and vm_pratt_run_probe for the probe
 * and the element run (probing: the positions it holds, and no lines taken). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline vm_step pratt_machine(pego_parser *p, vm_regs *r, const int profiled, const int probing)
{
    const cc_pratt *pr = &p->g->pratts[r->ip->a];
    const int skip_line = skip_is_line(pr);
    const int takes_lines = pr->takes_lines && !probing;   /* the lines above */
    vm_pframe *f = &p->pf[p->npf - 1];
    const cc_pratt_op *op;
    int pushed, finished, scan_over;

resume:
    finished = 0;      /* 1: the parse returned lhs, -1: it failed */
    scan_over = 0;     /* it ended on a whole scan of the infix and postfix lines */
    switch ((pratt_state)f->state) {
    case PS_HEAD:          break;
    case PS_HEAD_SKIPPED:  goto head_skipped;
    case PS_PREFIX_TRY:    goto prefix_try;
    case PS_PREFIX_TRIED:  goto prefix_tried;
    case PS_PREFIX_RERUN:  goto prefix_rerun;
    case PS_PREFIX_RHS:    goto prefix_rhs;
    case PS_OPERAND:       goto operand;
    case PS_OPERAND_TRIED: goto operand_tried;
    case PS_LOOP:          goto loop;
    case PS_LOOP_SKIPPED:  goto loop_skipped;
    case PS_TAIL_TRY:      goto tail_try;
    case PS_TAIL_TRIED:    goto tail_tried;
    case PS_TAIL_RERUN:    goto tail_rerun;
    case PS_TAIL_RHS:      goto tail_rhs;
    }
head:
    if (skip_line) {
        if (profiled && pr->skip_chain >= 0) {
            counted_span(p, r, f, pr->skip_chain, pr->skip_chain_span, pr->skip, 0);
            goto head_counted;
        }
        f->state = PS_HEAD_SKIPPED;
        p->silent++;
        return run_line(p, r, pr->skip);
    }
    if (pr->has_skip) skip_span(p, r, pr->skip_span);
head_skipped:
    if (skip_line) p->silent--;
head_counted:
    f->m = mark(p, r);
    choosing_at(p, r->pos, probing);
    f->idx = 0;
    f->best = -1;
    f->cut_failed = 0;
prefix_try:
    f->idx = next_line(p, pr->prefix_may, f->idx, pr->nprefix, f->m.pos);
    if (f->idx < pr->nprefix) {
        restore(p, r, f->m);
        f->state = PS_PREFIX_TRIED;
        if (takes_lines && pr->prefix[f->idx].nlits) {
            match_literals(p, r, f, &pr->prefix[f->idx], pr->prefix_may);
            goto prefix_tried;
        }
        return run_line(p, r, pr->prefix[f->idx].vf_code);
    }
    if (f->best >= 0) {
        restore(p, r, f->m);
        f->state = PS_PREFIX_RERUN;
        if (!f->valued && skip_rerun(pr, &pr->prefix[f->best], r, f, profiled)) goto prefix_rerun;
        if (f->valued && takes_lines && pr->prefix[f->best].lit_value) {
            if (literal_value(p, r, f) < 0) return VM_OOM;
            goto prefix_rerun;
        }
        return run_line(p, r, f->valued ? pr->prefix[f->best].code : pr->prefix[f->best].vf_code);
    }
    if (f->cut_failed) { finished = -1; goto over; }
    f->idx = 0;
    goto operand;
prefix_tried:
    if (f->out_ok && r->pos > f->m.pos && (f->best < 0 || r->pos > f->best_end)) {
        f->best = f->idx;
        f->best_end = r->pos;
        f->best_cut = f->out_cut;
    }
    if (!f->out_ok && f->out_cut) f->cut_failed = 1;
    restore(p, r, f->m);
    f->idx++;
    goto prefix_try;
prefix_rerun:
    f->op_value = f->out_value;
    f->op_cut = f->out_cut;
    f->op_start = f->m.pos;
    f->op_end = r->pos;
    f->state = PS_PREFIX_RHS;
    if ((pushed = push_parse(p, r, &f, (uint32_t)pr->prefix[f->best].level)) < 0) goto push_failed;
    goto head;
prefix_rhs:
    if (f->out_ok) {
        if (f->valued) {
            vm_step st = apply_operator(p, r, pr, &pr->prefix[f->best], f, f->op_start, VAL_NIL, f->out_value, &f->lhs);
            if (st != VM_NEXT) return st;
        }
        f->lhs_start = f->op_start;
        f->last_none = 0;
        goto loop;
    }
    if (f->op_cut) { finished = -1; goto over; }
    restore(p, r, f->m);
    f->idx = 0;
operand:
    f->idx = next_line(p, pr->operand_may, f->idx, pr->noperands, f->m.pos);
    if (f->idx >= pr->noperands) { finished = -1; goto over; }
    restore(p, r, f->m);
    f->state = PS_OPERAND_TRIED;
    if (!f->valued && takes_lines && pr->operand_span[f->idx] >= 0) {
        span_operand(p, r, f, pr->operand_span[f->idx]);
        goto operand_tried;
    }
    if (profiled && !f->valued && pr->operand_chain && pr->operand_chain[f->idx] >= 0) {
        counted_span(p, r, f, pr->operand_chain[f->idx], pr->operand_chain_span[f->idx], pr->vf_operands[f->idx], 1);
        goto operand_tried;
    }
    return run_line(p, r, f->valued ? pr->operands[f->idx] : pr->vf_operands[f->idx]);
operand_tried:
    if (f->out_ok) {
        f->lhs = f->out_value;
        f->lhs_start = f->m.pos;
        f->last_none = 0;
        goto loop;
    }
    if (f->out_cut) { finished = -1; goto over; }
    f->idx++;
    goto operand;
loop:
    if (f->scanned) {
        /* the operand parse that returned here, in the slot above, stopped
         * at an operator it scanned for from this very state: its scan stands */
        const vm_pframe *done = &p->pf[p->npf];
        vm_mark now = mark(p, r);
        f->scanned = 0;
        if (now.pos == done->m.pos && now.vs == done->m.vs && now.trail == done->m.trail &&
            now.rec == done->m.rec && now.vars == done->m.vars) {
            f->m = now;
            f->m2 = done->m2;
            f->best = done->best;
            f->best_end = done->best_end;
            f->best_cut = done->best_cut;
            f->cut_failed = done->cut_failed;
            f->idx = pr->ntail;
            restore(p, r, f->m2);
            if (profiled) f->scan_calls = done->scan_calls;
            if (profiled && pr->skip_chain >= 0) {
                /* the skip this parse would run counts */
                vm_chain_count *c = &p->chain_counts[pr->skip_chain];
                c->entered++;
                c->matched++;
                c->consumed += f->m2.pos - f->m.pos;
            }
            goto tail_try;
        }
    }
    f->m = mark(p, r);
    if (profiled) f->scan_calls = 0;
    if (skip_line) {
        if (profiled && pr->skip_chain >= 0) {
            counted_span(p, r, f, pr->skip_chain, pr->skip_chain_span, pr->skip, 0);
            goto loop_counted;
        }
        if (profiled) f->scan_calls = 1;
        f->state = PS_LOOP_SKIPPED;
        p->silent++;
        return run_line(p, r, pr->skip);
    }
    if (pr->has_skip) skip_span(p, r, pr->skip_span);
loop_skipped:
    if (skip_line) p->silent--;
loop_counted:
    f->m2 = mark(p, r);
    choosing_at(p, r->pos, probing);
    f->idx = 0;
    f->best = -1;
    f->cut_failed = 0;
tail_try:
    f->idx = next_line(p, pr->tail_may, f->idx, pr->ntail, f->m2.pos);
    if (f->idx < pr->ntail) {
        restore(p, r, f->m2);
        f->state = PS_TAIL_TRIED;
        if (takes_lines && pr->tail[f->idx].nlits) {
            match_literals(p, r, f, &pr->tail[f->idx], pr->tail_may);
            goto tail_tried;
        }
        if (profiled) f->scan_calls = 1;
        return run_line(p, r, pr->tail[f->idx].vf_code);
    }
    if (f->best < 0) {
        restore(p, r, f->m);
        finished = f->cut_failed ? -1 : 1;
        scan_over = 1;
        goto over;
    }
    op = &pr->tail[f->best];
    if ((uint32_t)op->level <= f->min ||
        (op->kind == PRATT_INFIX_NONE && (uint32_t)op->level == f->last_none)) {
        restore(p, r, f->m);
        finished = 1;
        scan_over = 1;
        goto over;
    }
    restore(p, r, f->m2);
    f->state = PS_TAIL_RERUN;
    if (!f->valued && skip_rerun(pr, op, r, f, profiled)) goto tail_rerun;
    if (f->valued && takes_lines && op->lit_value) {
        if (literal_value(p, r, f) < 0) return VM_OOM;
        goto tail_rerun;
    }
    return run_line(p, r, f->valued ? op->code : op->vf_code);
tail_tried:
    op = &pr->tail[f->idx];
    if (f->out_ok && !(op->kind == PRATT_POSTFIX && r->pos == f->m2.pos) &&
        (f->best < 0 || r->pos > f->best_end)) {
        f->best = f->idx;
        f->best_end = r->pos;
        f->best_cut = f->out_cut;
    }
    if (!f->out_ok && f->out_cut) f->cut_failed = 1;
    restore(p, r, f->m2);
    f->idx++;
    goto tail_try;
tail_rerun:
    op = &pr->tail[f->best];
    f->op_value = f->out_value;
    f->op_cut = f->out_cut;
    f->op_start = f->m2.pos;
    f->op_end = r->pos;
    if (op->kind == PRATT_POSTFIX) {
        if (f->valued) {
            vm_step st = apply_operator(p, r, pr, op, f, f->lhs_start, f->lhs, VAL_NIL, &f->lhs);
            if (st != VM_NEXT) return st;
        }
        f->last_none = 0;
        if (r->pos == f->m.pos) { finished = 1; goto over; }
        goto loop;
    }
    f->state = PS_TAIL_RHS;
    if ((pushed = push_parse(p, r, &f, (uint32_t)op->level - (op->kind == PRATT_INFIX_RIGHT &&
                                                             !FAULT_RIGHT_AS_LEFT(p)))) < 0)
        goto push_failed;
    goto head;
tail_rhs:
    op = &pr->tail[f->best];
    if (f->out_ok) {
        if (f->valued) {
            vm_step st = apply_operator(p, r, pr, op, f, f->lhs_start, f->lhs, f->out_value, &f->lhs);
            if (st != VM_NEXT) return st;
        }
        f->last_none = op->kind == PRATT_INFIX_NONE ? (uint32_t)op->level : 0;
        if (r->pos == f->m.pos) { finished = 1; goto over; }
        goto loop;
    }
    if (f->op_cut) { finished = -1; goto over; }
    restore(p, r, f->m);
    finished = 1;

over: {
        /* This parse(min) is over: hand its outcome to the parse below, or
         * end the rule's outer parse. */
        uint32_t lhs = f->lhs;
        int outer = f->outer;
        p->npf--;
        r->depth--;
        if (outer) {
            if (finished < 0) return VM_FAIL;
            if (p->pf[p->npf].valued && vm_push_value(p, r, lhs) < 0) return VM_OOM;
            r->ip++;
            return VM_NEXT;
        }
        f = &p->pf[p->npf - 1];
        f->out_ok = finished > 0;
        f->out_cut = 0;
        f->out_value = lhs;
        /* In the fast program, the parse below scans the same lines from the
         * same state next (loop), with the same outcome: lines make no values
         * there and change nothing but the memo table. It finds the scan in
         * the slot this parse leaves, which nothing takes before. So does the
         * profiled program's, when the scan made no calls: only the skip's,
         * which the parse below counts again. */
        f->scanned = (pr->fast || (profiled && pr->takes_lines && !p->pf[p->npf].scan_calls)) &&
                     scan_over && finished > 0;
        goto resume;
    }
push_failed:
    return pushed == -1 ? VM_OOM : VM_TOO_DEEP;
}

vm_step vm_pratt_run(pego_parser *p, vm_regs *r) { return pratt_machine(p, r, 0, 0); }
vm_step vm_pratt_run_profiled(pego_parser *p, vm_regs *r) { return pratt_machine(p, r, 1, 0); }
vm_step vm_pratt_run_probe(pego_parser *p, vm_regs *r) { return pratt_machine(p, r, 0, 1); }

vm_step vm_pratt_line_matched(pego_parser *p, vm_regs *r)
{
    /* A line matched: its captures become fields of its value, an operand's
     * fresh value gets the rule's label. */
    const vm_ins *ip = r->ip;
    vm_entry *e = &p->es[--r->esn];
    vm_pframe *f = &p->pf[p->npf - 1];
    uint32_t v = VAL_NIL;
    if (ip->flags & INS_VALUE) {
        v = p->vs[--r->vsn];
        if (r->tn != e->trail) {
            v = vm_apply_fields(p, v, e->trail, r->tn, e->pos, r->pos);
            if (!v) return VM_OOM;
        }
        if (ip->a >= 0 && v != VAL_NIL && !(v & VAL_CALLED) && rt_tree_node_label(&p->tree.nodes[v - 1]) < 0)
            rt_tree_node_set_label(&p->tree.nodes[v - 1], ip->a);
    }
    r->tn = e->trail;
    f->out_ok = 1;
    f->out_cut = e->cut;
    f->out_value = v;
    r->ip = p->g->code + e->u.sub.resume;
    return VM_NEXT;
}

vm_step vm_pratt_line_failed(pego_parser *p, vm_regs *r, vm_entry *e)
{
    /* the machine resumes with the outcome */
    vm_pframe *f = &p->pf[p->npf - 1];
    vm_restore_entry(p, r, e, (uint32_t)(e - p->es));
    f->out_ok = 0;
    f->out_cut = e->cut;
    r->ip = p->g->code + e->u.sub.resume;
    return VM_NEXT;
}
