/* The profiled program's copy of the dispatch loop (vm/loop.h), for profiled
 * recognition parses: the fast recognition loop (vm/variant_fast_recognize.h)
 * with the same names changed as in vm/variant_profiled.h, and FUSED: the
 * fused instructions PSPANOUT, POUTRET and PDEFERPINSPAN have cases of their
 * own (vm/loop.h). */
#include "variant_fast_recognize.h"
#undef VM_RUN
#undef PROFILED
#undef PROFILED_CODE
#undef CALL_FRAME
#undef TAIL_CALLS
#undef FRAME_DEPTH
#undef NOTE_PC
#define VM_RUN vm_run_profiled_recognize
#define PROFILED 1
#define PROFILED_CODE(...) __VA_ARGS__
#define CALL_FRAME(e, var, lvl) SAMPLED_FRAME(e, var, E_CALL)
#define TAIL_CALLS 0
#define FRAME_DEPTH(e) 1u
/* the instruction running, for the sampler: its source position is the sample's line */
#define NOTE_PC(at) ((void)(p->sample_ip = (at)))
#define FUSED 1
