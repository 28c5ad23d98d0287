/* The VM: the dispatch loop (vm/loop.h) compiled once per variant (the
 * profiled program's loops apart, in vm/loop_profiled*.c), and the value
 * helpers it shares with the general call path and the Pratt machine
 * (vm/vm.h). vm_run picks the copy a parse runs: the reference program, or
 * the fast program for trees or for recognition, or the profiled program. */
#include "vm.h"
#include "dispatch.h"
#include "action.h"
#include "../runtime/unicode.h"

#include <stdlib.h>
#include <string.h>

#ifdef PEGO_FAULT_INJECTION
int vm_fault_skip_traced_merge;
int vm_fault_memoize_traced;
int vm_fault_fast_span;
int vm_fault_fast_pratt;
int vm_fault_fast_pratt_skip;
int vm_fault_decide_unchecked;
int vm_fault_probe_end;
int vm_fault_claim_unchecked;
uint32_t vm_pair_from = VM_PAIR_FROM;
#endif

#include "matching.h"

uint32_t vm_span_characters(const pego_parser *p, const uint8_t *set, uint32_t pos, uint64_t *count)
{
    const unsigned char *s = (const unsigned char *)p->in.input;
    uint32_t len = p->in.len;
    uint64_t n = 0;
    while (pos < len && set[s[pos]]) {
        /* a character begins here: it ends with its width, or at the first
         * of its bytes that the set leaves out, where the span ends */
        uint32_t w = s[pos] < 0x80 ? 1u : (uint32_t)rt_unicode_width(s + pos, len - pos), i = 1;
        while (i < w && set[s[pos + i]]) i++;
        pos += i;
        n++;
    }
    *count += n;
    return pos;
}

uint32_t vm_apply_fields(pego_parser *p, uint32_t v, uint32_t from, uint32_t to, uint32_t start, uint32_t end)
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

int vm_scalar_field(pego_parser *p, uint32_t v, int label, uint32_t kind, uint64_t value)
{
    rt_tree *t = &p->tree;
    if (rt_buf_grow((void **)&t->fields, &t->capfields, t->nfields + 1, sizeof(rt_field)) < 0) return -1;
    if (rt_tree_set_fields(t, v, t->nfields, 1) < 0) return -1;
    t->fields[t->nfields++] = (rt_field){ (uint32_t)label, kind, value };
    return 0;
}

#define LOOP_LINKAGE static
#include "variant_reference.h"
#include "loop.h"

#include "variant_fast.h"
#include "loop.h"

#include "variant_fast_recognize.h"
#include "loop.h"




#include "variant_examined.h"
#include "loop.h"

#include "variant_stream.h"
#include "loop.h"

#include "variant_decide.h"
#include "loop.h"

#include "variant_probe.h"
#include "loop.h"

#include "variant_element.h"
#include "loop.h"


int vm_run_decide_loop(pego_parser *p, uint32_t start_variant) { return vm_run_decide(p, start_variant); }
int vm_run_probe_loop(pego_parser *p, uint32_t start_variant) { return vm_run_probe(p, start_variant); }
int vm_run_element_loop(pego_parser *p, uint32_t start_variant) { return vm_run_element(p, start_variant); }

int vm_run(pego_parser *p, uint32_t start_variant)
{
    int recognize = start_variant >= (uint32_t)p->g->nrules;
    if (!p->fast)
        return p->stream.on ? vm_run_stream(p, start_variant)
             : p->doc ? vm_run_examined(p, start_variant) : vm_run_reference(p, start_variant);
    if (p->counting)
        return recognize ? vm_run_profiled_recognize(p, start_variant)
             : p->memory ? vm_run_profiled_memory(p, start_variant) : vm_run_profiled(p, start_variant);
    return recognize ? vm_run_fast_recognize(p, start_variant) : vm_run_fast(p, start_variant);
}

/* Every loop, and vm_run, into which one may be inlined. */
int (*const vm_loops[VM_NLOOPS])(pego_parser *p, uint32_t start_variant) = {
    vm_run_reference, vm_run_fast, vm_run_fast_recognize, vm_run_profiled, vm_run_profiled_recognize,
    vm_run_profiled_memory, vm_run_decide, vm_run_probe, vm_run_examined, vm_run_stream, vm_run_element, vm_run,
};
