/* #error and #recover (docs/language.md 4). Both open an expectation window
 * around their expression. When the expression fails, #error replaces what it
 * recorded by its message at the farthest position reached inside it; #recover
 * holds the failure, restores the state and runs its skip, and when the skip
 * matches, the held failure becomes a recovered error (and an Error node).
 * Only the reference program records errors: the fast program runs the skip,
 * goes on past a recovery where nothing but a failure can undo it, and leaves
 * a match that keeps one to the reference program (vm/loop.h, SKIPEND). */
#include "vm.h"

#include <string.h>

vm_step vm_recover_open(pego_parser *p, vm_regs *r, int kind)
{
    /* LABEL (E_LABEL: the message's expectation) or RECOVER (E_RECOVER: the
     * skip's address) */
    vm_entry *e = vm_push_entry(p, r, kind);
    if (!e) return VM_OOM;
    e->u.window.target = (uint32_t)r->ip->a;
    e->u.window.saved_far = p->exp.far;
    e->u.window.saved_base = p->exp.base;
    vm_open_window(p, r->pos);
    r->ip++;
    return VM_NEXT;
}

vm_step vm_recover_close(pego_parser *p, vm_regs *r)
{
    /* LABELEND or RECOVEREND: the expression matched; what it recorded joins the
     * caller's record, and RECOVEREND jumps over the skip */
    const vm_entry *e = &p->es[--r->esn];
    vm_close_window(p, e->u.window.saved_far, e->u.window.saved_base, 1);
    r->ip = r->ip->op == OP_RECOVEREND ? p->g->code + r->ip->a : r->ip + 1;
    return VM_NEXT;
}

int vm_fast_recovery_goes_on(const pego_parser *p, uint32_t esn, int valued)
{
    if (p->silent || (valued && p->g->nactions)) return 0;
    for (uint32_t i = 0; i < esn; i++) {
        const vm_entry *e = &p->es[i];
        if (e->kind == E_MCALL || e->kind == E_SUB ||
            (e->kind == E_GCALL && (p->counting || p->gf[e->u.gcall.frame].leader)))
            return 0;
    }
    return 1;
}

/* Records an error recovered by #recover: the failure held at far with its
 * items becomes "line:col: message" in the string arena. Returns the text's
 * offset, or UINT32_MAX when out of memory. */
static uint32_t recovered_error(pego_parser *p, uint32_t far, uint32_t *ids, uint32_t n)
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

vm_step vm_recover_skip_end(pego_parser *p, vm_regs *r)
{
    /* SKIPEND: the skip matched. An empty skip is no recovery (docs/language.md 4.3). */
    const pego_grammar *g = p->g;
    const vm_entry *e = &p->es[r->esn - 1];
    if (r->pos == e->pos) return VM_FAIL;
    r->esn--;
    uint32_t text = recovered_error(p, e->u.skip.far, RT_AT(p->held, e->u.skip.held), e->u.skip.nheld);
    p->nheld = e->u.skip.held;
    if (text == UINT32_MAX) return VM_OOM;
    if (r->ip->flags & INS_VALUE) {
        uint32_t v = rt_tree_node(&p->tree, NODE_ERROR, e->pos, r->pos, NULL, 0);
        if (!v) return VM_OOM;
        if (g->label_message >= 0 && vm_scalar_field(p, v, g->label_message, FIELD_STRING,
                                                   FIELD_STRING_AT(text, strlen(p->strings.data + text))) < 0) return VM_OOM;
        if (vm_push_value(p, r, v) < 0) return VM_OOM;
    }
    r->ip++;
    return VM_NEXT;
}

vm_step vm_recover_failed(pego_parser *p, vm_regs *r, vm_entry *e)
{
    const vm_entry entry = *e;     /* a push below may reuse its slot or move the stack */
    const uint32_t at = (uint32_t)(e - p->es);
    switch (entry.kind) {
    case E_LABEL: {
        /* #error: what the expression recorded is replaced by the message, at
         * the farthest position reached inside it */
        uint32_t far = p->exp.far;
        vm_close_window(p, entry.u.window.saved_far, entry.u.window.saved_base, 0);
        vm_expect(p, far, entry.u.window.target);
        return VM_FAIL;
    }
    case E_RECOVER: {
        /* #recover: hold the failure, restore, and run the skip */
        rt_expect *x = &p->exp;
        uint32_t n = x->n - x->base, far = x->far;
        if (rt_buf_grow((void **)&p->held, &p->capheld, p->nheld + n, sizeof(uint32_t)) < 0) return VM_OOM;
        if (n) memcpy(p->held + p->nheld, x->items + x->base, n * sizeof(uint32_t));
        vm_close_window(p, entry.u.window.saved_far, entry.u.window.saved_base, 0);
        vm_restore_entry(p, r, &entry, at);
        vm_entry *skip = vm_push_entry(p, r, E_SKIP);
        if (!skip) return VM_OOM;
        skip->u.skip.far = far;
        skip->u.skip.held = p->nheld;
        skip->u.skip.nheld = n;
        p->nheld += n;
        r->ip = p->g->code + entry.u.window.target;
        return VM_NEXT;
    }
    default: /* E_SKIP: the skip failed: no recovery; the held failure is recorded */
        vm_restore_entry(p, r, &entry, at);
        for (uint32_t i = 0; i < entry.u.skip.nheld; i++) vm_expect(p, entry.u.skip.far, p->held[entry.u.skip.held + i]);
        p->nheld = entry.u.skip.held;
        return VM_FAIL;
    }
}

int vm_recover_replay(pego_parser *p, const rt_memo_entry *m)
{
    if (!m->rec_len) return 0;
    if (rt_buf_grow((void **)&p->rec, &p->caprec, p->nrec + m->rec_len, sizeof(rt_recovered)) < 0) return -1;
    memcpy(p->rec + p->nrec, p->memo.recs + m->rec_off, m->rec_len * sizeof(rt_recovered));
    p->nrec += m->rec_len;
    return 0;
}
