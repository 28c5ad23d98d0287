/* The probe's copy of the dispatch loop (vm/loop.h): the fast program's
 * recognition loop (vm/variant_fast_recognize.h), run by the deciding run
 * (vm/decide.c) on a parser of its own for one rule call, from the call's
 * position, to learn whether the call matches, where it ends and how far it
 * reached. The parser's hw is the reach: the farthest position the call held,
 * which bounds the positions at which the reference program's run of the
 * same call could record expectations. A probe that reaches its cap stops
 * there (VM_CAPPED). */
#include "variant_fast_recognize.h"
#undef VM_RUN
#undef LOOKED
#undef PROBE
#define VM_RUN vm_run_probe
#define LOOKED(x) do { \
        if ((x) > p->hw) { \
            p->hw = (x); \
            if (p->hw >= p->probe_cap) goto capped; \
        } \
    } while (0)
#define PROBE 1
