/* The stream loop's calls out (vm/variant_stream.h, docs/language.md 7.1): the
 * #stream repetition of the start rule (REP marked INS_STREAM, at depth 1).
 *
 * The loop runs on the input held so far. An element is final when it did
 * not examine the end of that input (the examined-input mark, p->hw, stays
 * within it) or the reader has ended: then it is handed to the element
 * callback, and its value, its nodes, the memo entries and (at the next read)
 * the input before it but one character are released. Otherwise more input
 * is read and the iteration is parsed again from the state it began with.
 * Before the repetition, a run that examines the end of the input held starts
 * again with more (nothing was handed over yet); after it, what follows runs
 * from the state the repetition ended with, again with more input as long as
 * the run's end (a match or a failure) examined the end of what is held.
 * Where it may, the fast program parses the elements ahead of the loop
 * ("Elements the fast program parses", below). */
#include "vm.h"

#include <string.h>

/* The state an iteration begins with, to parse it again: 0, -1 when out of
 * memory, 1 when a trace sink stopped the parse (step_of). */
static int begin_element(pego_parser *p, uint32_t pos)
{
    rt_stream *st = &p->stream;
    rt_expect *x = &p->exp;
    st->from = pos;
    st->hw = p->hw;
    p->hw = pos;
    /* the expectations, unless they are those kept already: an item below n
     * changes only where far grows (a new set) or a window closes on a record
     * restored with the items it had (vm_close_window), so the same far, base
     * and n are the same items (the fast program's elements record none) */
    if (x->far != st->exp_far || x->base != st->exp_base || x->n != st->exp_n || !st->exp_kept) {
        if (x->n && rt_buf_grow((void **)&st->exp_items, &st->cap_exp_items, x->n, sizeof(uint32_t)) < 0) return -1;
        if (x->n) memcpy(st->exp_items, x->items, x->n * sizeof(uint32_t));
        st->exp_far = x->far;
        st->exp_base = x->base;
        st->exp_n = x->n;
        st->exp_kept = 1;
    }
    st->nodes = p->tree.nnodes;
    st->kids = p->tree.nkids;
    st->fields = p->tree.nfields;
    st->refs = p->tree.nrefs;
    st->strings = p->strings.len;
    st->nrec = p->nrec;
    /* the sinks' MARK: what follows may be voided by an AGAIN (pego_trace_kind) */
    return p->ntrace && rt_trace_stream_point(p, PEGO_TRACE_MARK, pos, 1) ? 1 : 0;
}

/* Clears the second-call bits of the positions the iteration examined (its
 * calls were made there), so that the default policy memoizes a rule's
 * second call at a position of the element, as in an ordinary parse, and not
 * a first call that follows the memo entries' release. */
static void forget_first_calls(pego_parser *p)
{
    if (p->policy == PEGO_MEMO_DEFAULT)
        rt_memo_seen_clear(&p->memo, p->stream.from, p->hw < p->in.len ? p->hw : p->in.len, (size_t)p->g->ndeferrable);
}

/* Drops what the iteration built since it began: its nodes and strings (but
 * not when a grammar's variables may hold them, nor strings after an error it
 * recovered, whose text is among them) and the memo entries. */
static void drop_element(pego_parser *p)
{
    rt_stream *st = &p->stream;
    forget_first_calls(p);
    if (st->nodes < p->tree.nnodes && p->g->nvars == 0) {
        p->tree.nnodes = st->nodes;
        p->tree.nkids = st->kids;
        p->tree.nfields = st->fields;
        p->tree.nrefs = st->refs;
    }
    if (p->g->nvars == 0 && p->nrec == st->nrec && p->strings.len > st->strings) p->strings.len = st->strings;
    if (p->memo.n > st->peak_memo) st->peak_memo = p->memo.n;
    rt_memo_reset(&p->memo);
}

/* Whether what the iteration examined is all there: it never saw the end of
 * the input held, or that end is the input's. */
static int final(const pego_parser *p)
{
    return p->stream.eof || p->hw <= p->in.len;
}

/* Back to the state iteration entry e saved. */
static void restore_entry(pego_parser *p, vm_regs *r, const vm_entry *e)
{
    r->pos = e->pos;
    r->vsn = e->vs;
    r->tn = e->trail;
    p->nrec = e->rec;
    p->nvars = p->vmarks[e - p->es];
}

/* Back to the expectations, nodes and strings begin_element saved, with no
 * memo entries, to parse again from pos. */
static void rewind_to(pego_parser *p, uint32_t pos)
{
    rt_stream *st = &p->stream;
    p->exp.far = st->exp_far;
    p->exp.base = st->exp_base;
    p->exp.n = st->exp_n;
    if (st->exp_n) memcpy(p->exp.items, st->exp_items, st->exp_n * sizeof(uint32_t));
    drop_element(p);
    p->hw = pos;
}

/* The step after an action that returned rc (begin_element's codes), when it
 * goes on with ok. */
static vm_step step_of(int rc, vm_step ok)
{
    return rc < 0 ? VM_OOM : rc > 0 ? VM_ABORTED : ok;
}

/* The sinks' AGAIN: the parse goes back to the last MARK, at pos. */
static int voided(pego_parser *p, uint32_t pos)
{
    return p->ntrace && rt_trace_stream_point(p, PEGO_TRACE_AGAIN, pos, 1);
}

/* Parses the iteration of entry e again with more input. */
static vm_step again(pego_parser *p, vm_regs *r, vm_entry *e)
{
    if (rt_stream_read(p, 0) < 0) return VM_ACTION_ERROR;
    if (voided(p, e->pos)) return VM_ABORTED;
    restore_entry(p, r, e);
    rewind_to(p, e->pos);
    e->cut = 0;
    r->ip = p->g->code + e->u.iter.rep + 1;
    return VM_NEXT;
}

/* Copies n items of size bytes to *to (grown as needed); -1 when out of memory. */
static int keep_copy(void **to, uint32_t *cap, const void *from, uint32_t n, size_t size)
{
    if (n > *cap && rt_buf_grow(to, cap, n, size) < 0) return -1;
    if (n) memcpy(*to, from, n * size);
    return 0;
}

/* The repetition has ended with the registers r (failed: what follows is not
 * run, the parse fails from here whatever comes): its examined mark joins the
 * rule's, and the state is kept for what follows to run again. */
static int end_stream(pego_parser *p, const vm_regs *r, int failed)   /* begin_element's codes */
{
    rt_stream *st = &p->stream;
    if (st->hw > p->hw) p->hw = st->hw;
    st->after = 1;
    st->done = failed;
    if (failed) return 0;
    st->at.ip = r->ip;
    st->at.pos = r->pos;
    st->at.esn = r->esn;
    st->at.vsn = r->vsn;
    st->at.tn = r->tn;
    st->at.list_base = r->list_base;
    st->at.depth = r->depth;
    st->at.nrec = p->nrec;
    st->nvars = p->nvars;
    st->ngf = p->ngf;
    if (keep_copy((void **)&st->es, &st->cap_es, p->es, r->esn, sizeof *p->es) < 0 ||
        keep_copy((void **)&st->vmarks, &st->cap_vmarks, p->vmarks, r->esn, sizeof *p->vmarks) < 0 ||
        keep_copy((void **)&st->vs, &st->cap_vs, p->vs, r->vsn, sizeof *p->vs) < 0 ||
        keep_copy((void **)&st->trail, &st->cap_trail, p->trail, r->tn, sizeof *p->trail) < 0 ||
        keep_copy((void **)&st->vars, &st->cap_vars, p->vars, p->nvars, sizeof *p->vars) < 0 ||
        keep_copy((void **)&st->gf, &st->cap_gf, p->gf, p->ngf, sizeof *p->gf) < 0)
        return -1;
    int rc = begin_element(p, r->pos);
    if (st->hw > p->hw) p->hw = st->hw;     /* the rule's mark: begin_element set the suffix's */
    return rc;
}

/* Hands the element of value v, built by parser from (p, or a runner), to the
 * callback; -1 when the callback stops the parse. */
static int give(pego_parser *p, pego_parser *from, uint32_t v)
{
    rt_stream *st = &p->stream;
    if (from->tree.nnodes > st->peak_nodes) st->peak_nodes = from->tree.nnodes;
    st->elements++;
    int rc = st->element(&from->res, v == VAL_NIL ? NULL : &from->tree.nodes[v - 1], st->element_ctx);
    if (!rc) return 0;
    st->error = rc;
    p->res.status = PEGO_ECALLBACK;
    rt_parse_abort(p, "stopped by the element callback (%d)", rc);
    return -1;
}

/* The input before the end of an element handed over but one character is
 * not needed again: the next read releases it. */
static void keep_from(pego_parser *p, uint32_t end)
{
    const unsigned char *s = (const unsigned char *)p->in.input;
    uint32_t keep = end;
    if (keep > p->in.base) {
        keep--;
        while (keep > p->in.base && end - keep < 4 && (s[keep] & 0xC0) == 0x80) keep--;
    }
    p->stream.keep = keep;
}

/* The next iteration of entry e of the repetition rep, from pos, as REPNEXT
 * begins it; -1 when out of memory. */
static int next_iteration(pego_parser *p, vm_regs *r, vm_entry *e, const vm_ins *rep, uint32_t pos)
{
    r->pos = pos;
    e->pos = pos;
    __atomic_store_n(&p->progress, pos, __ATOMIC_RELAXED);
    e->vs = r->vsn;
    e->trail = r->tn;
    e->rec = p->nrec;
    p->vmarks[r->esn - 1] = p->nvars;
    e->u.iter.count++;
    e->cut = 0;
    r->ip = rep + 1;
    return begin_element(p, pos);
}

/* ---- elements the fast program parses ----
 * The loop runs the reference program, whose expectations make the syntax
 * errors. Where the #stream repetition is unbounded and its body is one call
 * of a rule, with nothing captured and no variables in the grammar, the fast
 * program parses the elements ahead of the loop, one call at a time, on
 * parsers of their own (vm/variant_element.h, two: an element parsed ahead
 * keeps its nodes while the next one is parsed), and the loop runs only where
 * the fast program stops.
 *
 * An element the fast program matched is final when the reader has ended or
 * when its reach (the farthest position it held) plus the margin (the most
 * bytes a test examines from where it stands: the longest literal, or a
 * character of four bytes) is within the input held. It is handed over once
 * the element after it matched too, non-empty and final, and only when its
 * reach is below that element's end. Then a syntax error of the parse, if
 * there is one, lies at or past the start of an iteration after both: the
 * expectations the reference program's run of the element would have
 * recorded, only at positions it held (docs/architecture.md, Deciding a
 * syntax error), lie below it, where the error keeps nothing.
 *
 * Where the fast program stops (a failure, an empty element, an error it
 * would recover, the nesting limit, an element that may depend on input not
 * read yet), the element parsed ahead is not handed over: the loop parses it
 * and what follows, reading more input only where it would without the fast
 * program, and handing each element over when it would. After 16 runs in a
 * row that hand nothing over (a reader of small pieces, or elements that
 * look past the next one), the runs wait for 4 KiB more input. */

enum { FRUITLESS_RUNS = 16, FRUITLESS_WAIT = 4096 };

/* Whether the fast program may parse the elements of the repetition rep. */
static int may_run_fast(pego_parser *p, const vm_ins *rep)
{
    const pego_grammar *g = p->g;
    const vm_ins *call = rep + 1;
    rt_stream *st = &p->stream;
    if (!g->has_fast || g->nvars || rep->c >= 0 || p->observing) return 0;   /* traced: every call seen */
    if ((call->op != OP_CALL && call->op != OP_CALLG) || call->c || call[1].op != OP_REPNEXT ||
        (call[1].flags & (INS_SCOPE | INS_DROP)) || (uint32_t)call->a >= (uint32_t)g->nrules)
        return 0;
    uint32_t longest = 0;
    for (int i = 0; i < g->nliterals; i++)
        if (g->literals[i].len > longest) longest = g->literals[i].len;
    st->fast_rule = (uint32_t)call->a;
    st->margin = longest + 4;            /* a literal, or a character of up to four bytes */
    return 1;
}

/* Runner k, showing the input held, with second-call bits for it; NULL when
 * out of memory. */
static pego_parser *runner(pego_parser *p, int k)
{
    rt_stream *st = &p->stream;
    const pego_grammar *g = p->g;
    pego_parser *q = st->runner[k];
    if (!q) {
        q = st->runner[k] = pego_parser_new(g);
        if (!q) return NULL;
        q->internal = 1;
        q->policy = PEGO_MEMO_DEFAULT;
        q->fast = 1;
        q->defer = g->ndeferrable > 0;
        q->probe_cap = UINT32_MAX;
    }
    if (st->runner_read[k] != st->reads) {   /* a read moved the input */
        rt_input *in = &q->in;
        in->unit = p->in.unit;
        in->base = p->in.base;
        in->base_line = p->in.base_line;
        in->base_units = p->in.base_units;
        in->line_units = p->in.line_units;
        rt_input_window(in, p->in.input, p->in.len);
        rt_memo_reset(&q->memo);
        if (g->ndeferrable &&
            rt_memo_seen_prepare(&q->memo, in->base, ((size_t)(in->len - in->base) + 1) * (size_t)g->ndeferrable) < 0)
            return NULL;
        st->runner_read[k] = st->reads;
    }
    return q;
}

/* Parses the element at pos on runner k: 1 when it matched, is not empty and
 * is final (its end and reach in *end and *reach); else 0, and the fast
 * program stops there. */
static int run_element(pego_parser *p, int k, uint32_t pos, uint32_t depth, uint32_t *end, uint32_t *reach)
{
    const pego_grammar *g = p->g;
    rt_stream *st = &p->stream;
    pego_parser *q = runner(p, k);
    uint32_t room = p->max_depth - depth;     /* levels for the call and what it calls */
    if (!q || room <= g->fast_reserve) return 0;
    q->max_depth = room - g->fast_reserve;
    q->start_pos = pos;
    rt_tree_reset(&q->tree);
    int status = vm_run_element_loop(q, st->fast_rule);
    uint32_t far = status == PEGO_OK && q->probe_end > q->hw ? q->probe_end : q->hw;
    /* the memo entries hold this run's nodes; the second-call bits are those of its calls */
    rt_memo_reset(&q->memo);
    rt_memo_seen_clear(&q->memo, pos, far < q->in.len ? far : q->in.len, (size_t)g->ndeferrable);
    if (status != PEGO_OK || q->probe_end == pos || (!st->eof && (uint64_t)far + st->margin > p->in.len))
        return 0;
    *end = q->probe_end;
    *reach = far;
    return 1;
}

/* Hands over the element runner k parsed, from the position of entry e to
 * end, and begins the next iteration. */
static vm_step hand_over(pego_parser *p, vm_regs *r, vm_entry *e, const vm_ins *rep, int k, uint32_t end,
                         uint32_t reach)
{
    rt_stream *st = &p->stream;
    pego_parser *q = st->runner[k];          /* its input is p's: the runs read none */
    q->res.status = PEGO_OK;
    st->fast_elements++;
    if (give(p, q, VAL_NODE(q->res.value)) < 0) return VM_ACTION_ERROR;
    keep_from(p, end);
    /* the rule's examined mark: what the element may have examined, within the input held */
    uint32_t mark = (uint64_t)reach + st->margin < p->in.len ? reach + st->margin : p->in.len;
    if (mark > p->hw) p->hw = mark;
    return step_of(next_iteration(p, r, e, rep, end), VM_NEXT);
}

/* Parses elements ahead of the loop, which is about to begin the iteration
 * of entry e at r->pos, handing over those that may be; the loop goes on at
 * the first element not handed over. */
static vm_step fast_elements(pego_parser *p, vm_regs *r, vm_entry *e, const vm_ins *rep)
{
    rt_stream *st = &p->stream;
    if (st->fast < 0) st->fast = may_run_fast(p, rep);
    if (!st->fast || p->in.len < st->resume_at) return VM_NEXT;
    int ahead = 0, handed = 0;                /* ahead: the runner of the element parsed ahead, + 1 */
    uint32_t ahead_end = 0, ahead_reach = 0;
    for (;;) {
        int k = ahead == 1;                   /* the other runner */
        uint32_t end, reach;
        int got = run_element(p, k, ahead ? ahead_end : r->pos, r->depth, &end, &reach);
        if (!got || (ahead && ahead_reach >= end)) break;
        if (ahead) {
            vm_step step = hand_over(p, r, e, rep, ahead - 1, ahead_end, ahead_reach);
            if (step != VM_NEXT) return step;
            handed = 1;
        }
        ahead = k + 1;
        ahead_end = end;
        ahead_reach = reach;
    }
    st->fruitless = handed ? 0 : st->fruitless + 1;
    if (st->fruitless >= FRUITLESS_RUNS) {
        st->fruitless = 0;
        st->resume_at = p->in.len + FRUITLESS_WAIT;
    }
    return VM_NEXT;
}

vm_step vm_stream_begin(pego_parser *p, vm_regs *r)
{
    rt_stream *st = &p->stream;
    if (!final(p)) {                   /* what comes before depends on input not read yet */
        st->restart = 1;
        p->res.status = PEGO_ABORTED;
        return VM_ACTION_ERROR;
    }
    rt_memo_reset(&p->memo);           /* nothing parses before the repetition again */
    int rc = begin_element(p, r->pos);
    if (rc) return step_of(rc, VM_NEXT);
    r->ip++;
    return fast_elements(p, r, &p->es[r->esn - 1], r->ip - 1);
}

vm_step vm_stream_element(pego_parser *p, vm_regs *r)
{
    vm_entry *e = &p->es[r->esn - 1];
    const vm_ins *rep = p->g->code + r->ip->a;
    if (!final(p)) return again(p, r, e);
    if (give(p, p, VAL_NODE(p->vs[r->vsn - 1])) < 0) return VM_ACTION_ERROR;
    r->vsn--;                          /* handed over: not in the repetition's List */
    drop_element(p);
    keep_from(p, r->pos);
    uint32_t count = e->u.iter.count + 1;
    if (r->pos == e->pos || (rep->c >= 0 && count >= (uint32_t)rep->c)) {
        /* an empty element, or the last one {n,m} allows, ends the repetition */
        r->esn--;
        int failed = count < (uint32_t)rep->b;
        r->list_base = e->u.iter.list_base;
        r->ip = p->g->code + rep->a;
        return step_of(end_stream(p, r, failed), failed ? VM_FAIL : VM_NEXT);
    }
    int rc = next_iteration(p, r, e, rep, r->pos);
    if (rc) return step_of(rc, VM_NEXT);
    return fast_elements(p, r, e, rep);
}

vm_step vm_stream_failed(pego_parser *p, vm_regs *r, vm_entry *e)
{
    const vm_ins *rep = p->g->code + e->u.iter.rep;
    if (!final(p)) {
        r->esn++;                      /* the entry again (it is still in place) */
        return again(p, r, e);
    }
    drop_element(p);
    if (e->cut) return step_of(end_stream(p, r, 1), VM_FAIL);
    restore_entry(p, r, e);
    int failed = e->u.iter.count < (uint32_t)rep->b;
    r->list_base = e->u.iter.list_base;
    r->ip = p->g->code + rep->a;
    return step_of(end_stream(p, r, failed), failed ? VM_FAIL : VM_NEXT);
}

vm_step vm_stream_end(pego_parser *p, vm_regs *r, int failed)
{
    rt_stream *st = &p->stream;
    if (!st->after) {                  /* nothing was handed over: the run starts again */
        st->restart = 1;
        p->res.status = PEGO_ABORTED;
        return VM_ACTION_ERROR;
    }
    if (final(p)) {
        st->done = 1;
        if (failed) r->esn++;          /* the bottom entry again, to fail as the loop would */
        return failed ? VM_FAIL : VM_NEXT;
    }
    /* what follows the repetition runs again from where it ended, with more input */
    if (rt_stream_read(p, 0) < 0) return VM_ACTION_ERROR;
    if (voided(p, st->at.pos)) return VM_ABORTED;
    r->ip = st->at.ip;
    r->pos = st->at.pos;
    r->esn = st->at.esn;
    r->vsn = st->at.vsn;
    r->tn = st->at.tn;
    r->list_base = st->at.list_base;
    r->depth = st->at.depth;
    p->nrec = st->at.nrec;
    memcpy(p->es, st->es, r->esn * sizeof *p->es);
    memcpy(p->vmarks, st->vmarks, r->esn * sizeof *p->vmarks);
    if (r->vsn) memcpy(p->vs, st->vs, r->vsn * sizeof *p->vs);
    if (r->tn) memcpy(p->trail, st->trail, r->tn * sizeof *p->trail);
    p->nvars = st->nvars;
    if (st->nvars) memcpy(p->vars, st->vars, st->nvars * sizeof *p->vars);
    p->ngf = st->ngf;
    if (st->ngf) memcpy(p->gf, st->gf, st->ngf * sizeof *p->gf);
    p->silent = 0;
    rewind_to(p, r->pos);
    return VM_NEXT;
}
