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
 * the run's end (a match or a failure) examined the end of what is held. */
#include "vm.h"

#include <string.h>

/* The state an iteration begins with, to parse it again. */
static int begin_element(pego_parser *p, uint32_t pos)
{
    rt_stream *st = &p->stream;
    rt_expect *x = &p->exp;
    st->from = pos;
    st->hw = p->hw;
    p->hw = pos;
    st->exp_far = x->far;
    st->exp_base = x->base;
    st->exp_n = x->n;
    if (x->n && rt_buf_grow((void **)&st->exp_items, &st->cap_exp_items, x->n, sizeof(uint32_t)) < 0) return -1;
    if (x->n) memcpy(st->exp_items, x->items, x->n * sizeof(uint32_t));
    st->nodes = p->tree.nnodes;
    st->kids = p->tree.nkids;
    st->fields = p->tree.nfields;
    st->refs = p->tree.nrefs;
    st->strings = p->strings.len;
    st->nrec = p->nrec;
    return 0;
}

/* Clears the second-call bits of the positions the iteration examined (its
 * calls were made there), so that the default policy memoizes a rule's
 * second call at a position of the element, as in an ordinary parse, and not
 * a first call that follows the memo entries' release. */
static void forget_first_calls(pego_parser *p)
{
    size_t nd = (size_t)p->g->ndeferrable;
    uint32_t base = p->memo.seen_base, lo = p->stream.from, hi = p->hw < p->in.len ? p->hw : p->in.len;
    if (!nd || p->policy != PEGO_MEMO_DEFAULT || lo < base || hi < lo) return;
    size_t first = (size_t)(lo - base) * nd / 64, last = (((size_t)(hi - base) + 1) * nd - 1) / 64;
    memset(p->memo.seen + first, 0, (last - first + 1) * sizeof *p->memo.seen);
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

/* Parses the iteration of entry e again with more input. */
static vm_step again(pego_parser *p, vm_regs *r, vm_entry *e)
{
    if (rt_stream_read(p, 0) < 0) return VM_ACTION_ERROR;
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
static int end_stream(pego_parser *p, const vm_regs *r, int failed)
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
        keep_copy((void **)&st->gf, &st->cap_gf, p->gf, p->ngf, sizeof *p->gf) < 0 ||
        begin_element(p, r->pos) < 0)
        return -1;
    if (st->hw > p->hw) p->hw = st->hw;     /* the rule's mark: begin_element set the suffix's */
    return 0;
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
    if (begin_element(p, r->pos) < 0) return VM_OOM;
    r->ip++;
    return VM_NEXT;
}

vm_step vm_stream_element(pego_parser *p, vm_regs *r)
{
    rt_stream *st = &p->stream;
    vm_entry *e = &p->es[r->esn - 1];
    const vm_ins *rep = p->g->code + r->ip->a;
    if (!final(p)) return again(p, r, e);
    uint32_t v = VAL_NODE(p->vs[r->vsn - 1]);
    if (p->tree.nnodes > st->peak_nodes) st->peak_nodes = p->tree.nnodes;
    st->elements++;
    int rc = st->element(&p->res, v == VAL_NIL ? NULL : &p->tree.nodes[v - 1], st->element_ctx);
    if (rc) {
        st->error = rc;
        p->res.status = PEGO_ECALLBACK;
        rt_parse_abort(p, "stopped by the element callback (%d)", rc);
        return VM_ACTION_ERROR;
    }
    r->vsn--;                          /* handed over: not in the repetition's List */
    drop_element(p);
    /* the input before the element's end but one character is not needed again */
    const unsigned char *s = (const unsigned char *)p->in.input;
    uint32_t keep = r->pos;
    if (keep > p->in.base) {
        keep--;
        while (keep > p->in.base && r->pos - keep < 4 && (s[keep] & 0xC0) == 0x80) keep--;
    }
    st->keep = keep;
    uint32_t count = e->u.iter.count + 1;
    if (r->pos == e->pos || (rep->c >= 0 && count >= (uint32_t)rep->c)) {
        /* an empty element, or the last one {n,m} allows, ends the repetition */
        r->esn--;
        int failed = count < (uint32_t)rep->b;
        r->list_base = e->u.iter.list_base;
        r->ip = p->g->code + rep->a;
        if (end_stream(p, r, failed) < 0) return VM_OOM;
        return failed ? VM_FAIL : VM_NEXT;
    }
    /* the next iteration, as REPNEXT begins it */
    e->pos = r->pos;
    __atomic_store_n(&p->progress, r->pos, __ATOMIC_RELAXED);
    e->vs = r->vsn;
    e->trail = r->tn;
    e->rec = p->nrec;
    p->vmarks[r->esn - 1] = p->nvars;
    e->u.iter.count = count;
    e->cut = 0;
    if (begin_element(p, r->pos) < 0) return VM_OOM;
    r->ip = rep + 1;
    return VM_NEXT;
}

vm_step vm_stream_failed(pego_parser *p, vm_regs *r, vm_entry *e)
{
    const vm_ins *rep = p->g->code + e->u.iter.rep;
    if (!final(p)) {
        r->esn++;                      /* the entry again (it is still in place) */
        return again(p, r, e);
    }
    drop_element(p);
    if (e->cut) return end_stream(p, r, 1) < 0 ? VM_OOM : VM_FAIL;
    restore_entry(p, r, e);
    int failed = e->u.iter.count < (uint32_t)rep->b;
    r->list_base = e->u.iter.list_base;
    r->ip = p->g->code + rep->a;
    if (end_stream(p, r, failed) < 0) return VM_OOM;
    return failed ? VM_FAIL : VM_NEXT;
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
