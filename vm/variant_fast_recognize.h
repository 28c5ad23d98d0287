/* The fast program's copy of the dispatch loop (vm/loop.h) for recognition:
 * as vm/variant_fast.h, but it runs value-free bodies only, so it has no value
 * stack or capture trail either. */
#define VM_RUN vm_run_fast_recognize
#define VALUED 0
#define REFERENCE 0
#define PROFILED 0
#define PROFILED_CODE(...)
#define EXPECT(at, id) ((void)0)
#define LOOKED(x) ((void)0)
#define WATCHED 0
/* entries save only the position */
#define FILL_ENTRY(e, k) ((e)->kind = (uint8_t)(k), (e)->cut = 0, (e)->pos = pos)
#define CALL_FRAME(e, var, lvl) ((e)->u.call.extra_levels = 0)
#define TAIL_CALLS 1
#define FRAME_DEPTH(e) (1u + (e)->u.call.extra_levels)
#define NOTE_PC(at) ((void)0)
#define NOTE_MEMORY() ((void)0)
#define SYNTAX_ERROR() PEGO_SYNTAX_ERROR
#define PROBE 0
#define DECIDE 0
#define STREAM 0
#define END_SEEN(x) ((void)0)
#define LOOK_SEEN(x) ((void)0)
