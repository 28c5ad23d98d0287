/* A stream parse's element run: the fast program's tree loop
 * (vm/variant_fast.h) run by a stream parse (vm/stream.c) on a parser of its
 * own, for one call of the rule that the start rule's #stream repetition
 * repeats, from the element's position: it starts at parser.start_pos, builds
 * the call's value and ends where the call ends (PROBE, with probe_cap at
 * UINT32_MAX: never capped). The parser's hw is the element's reach, the
 * farthest position it held (LOOKED, as in the probe), which tells whether
 * the element could depend on input not read yet. */
#include "variant_fast.h"
#undef VM_RUN
#undef LOOKED
#undef PROBE
#define VM_RUN vm_run_element
#define LOOKED(x) do { if ((x) > p->hw) p->hw = (x); } while (0)
#define PROBE 1
