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
 * again with more (nothing was handed over yet); after it, the rest of the
 * input is read, and the parse goes on as any parse. */
#include "vm.h"

#include <string.h>

/* The state an iteration begins with, to parse it again. */
static int begin_element(pego_parser *p, uint32_t pos)
{
    rt_stream *st = &p->stream;
    rt_expect *x = &p->exp;
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

/* Drops what the iteration built since it began: its nodes and strings (but
 * not when a grammar's variables may hold them, nor strings after an error it
 * recovered, whose text is among them) and the memo entries. */
static void drop_element(pego_parser *p)
{
    rt_stream *st = &p->stream;
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

/* Parses the iteration of entry e again with more input. */
static vm_step again(pego_parser *p, vm_regs *r, vm_entry *e)
{
    rt_stream *st = &p->stream;
    if (rt_stream_read(p, 0) < 0) return VM_ACTION_ERROR;
    r->pos = e->pos;
    r->vsn = e->vs;
    r->tn = e->trail;
    p->nrec = e->rec;
    p->nvars = p->vmarks[e - p->es];
    p->exp.far = st->exp_far;
    p->exp.base = st->exp_base;
    p->exp.n = st->exp_n;
    if (st->exp_n) memcpy(p->exp.items, st->exp_items, st->exp_n * sizeof(uint32_t));
    drop_element(p);
    p->hw = e->pos;
    e->cut = 0;
    r->ip = p->g->code + e->u.iter.rep + 1;
    return VM_NEXT;
}

/* The repetition has ended: its examined mark joins the rule's, and the rest
 * of the input is read for what follows it. */
static int end_stream(pego_parser *p)
{
    if (p->stream.hw > p->hw) p->hw = p->stream.hw;
    return rt_stream_read(p, 1);
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
        if (end_stream(p) < 0) return VM_ACTION_ERROR;
        if (count < (uint32_t)rep->b) return VM_FAIL;
        r->list_base = e->u.iter.list_base;
        r->ip = p->g->code + rep->a;
        return VM_NEXT;
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
    if (end_stream(p) < 0) return VM_ACTION_ERROR;
    if (e->cut) return VM_FAIL;
    r->pos = e->pos;
    r->vsn = e->vs;
    r->tn = e->trail;
    p->nrec = e->rec;
    p->nvars = p->vmarks[e - p->es];
    if (e->u.iter.count < (uint32_t)rep->b) return VM_FAIL;
    r->list_base = e->u.iter.list_base;
    r->ip = p->g->code + rep->a;
    return VM_NEXT;
}

int vm_stream_unfinished(pego_parser *p)
{
    rt_stream *st = &p->stream;
    if (st->eof || st->elements) return 0;
    st->restart = 1;
    p->res.status = PEGO_ABORTED;
    return 1;
}
