/* The fast program's copy of the dispatch loop (vm/loop.h), for parses that
 * build trees. It runs silent: no expectations, no examined-input mark, no
 * observers, no Pratt expressions or #recover (grammars with them have no fast
 * program). With less code and fewer variables live, its hot paths keep their
 * state in registers. A failed parse is decided again by the reference program,
 * which writes the syntax error. */
#define VM_RUN vm_run_fast
#define VALUED 1
#define REFERENCE 0
#define PROFILED 0
#define PROFILED_CODE(...)
#define EXPECT(at, id) ((void)0)
#define LOOKED(x) ((void)0)
#define WATCHED 0
/* entries save only what this program reads back: no recovered errors */
#define FILL_ENTRY(e, k) ((e)->kind = (uint8_t)(k), (e)->cut = 0, (e)->pos = pos, (e)->vs = vsn, (e)->trail = tn)
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
