/* The profiled program's copy of the dispatch loop (vm/loop.h), for profiled
 * parses that build trees: the fast program's loop (vm/variant_fast.h) with
 * its name and five others changed. PROFILED turns on the counters (plain
 * calls, returns and failures of plain frames, and the instructions PCOUNT, PIN
 * and POUT); CALL_FRAME keeps the variant a plain frame called, to count its
 * outcome, and links the frame to its caller's for the sampler; TAIL_CALLS
 * and FRAME_DEPTH turn off the fast program's ways of saving frames (a tail
 * call's extra level, E_CALL2), which count no returns: a call in tail
 * position (PTAIL) reuses its caller's frame as E_TCALL instead (vm/stack.h),
 * which counts the calls of both; NOTE_PC stores the address of the instruction
 * running for the sampler (where the running calls may change, and where a
 * run of input is read: vm/loop.h), which gives the sample to those calls
 * and to the instruction's source line. */
#include "variant_fast.h"
#undef VM_RUN
#undef PROFILED
#undef PROFILED_CODE
#undef CALL_FRAME
#undef TAIL_CALLS
#undef FRAME_DEPTH
#undef NOTE_PC
#define VM_RUN vm_run_profiled
#define PROFILED 1
#define PROFILED_CODE(...) __VA_ARGS__
#define CALL_FRAME(e, var, lvl) SAMPLED_FRAME(e, var, E_CALL)
#define TAIL_CALLS 0
#define FRAME_DEPTH(e) 1u
/* the instruction running, for the sampler: its source position is the sample's line */
#define NOTE_PC(at) ((void)(p->sample_ip = (at)))
