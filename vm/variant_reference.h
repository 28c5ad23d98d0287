/* The reference program's copy of the dispatch loop (vm/loop.h): the grammar
 * as written. It records expectations and the examined input, lets observers
 * see calls on the general path, and runs Pratt expressions, #error and
 * #recover. A failed parse writes its syntax error. */
#define VM_RUN vm_run_reference
#define VALUED 1
#define REFERENCE 1
#define PROFILED 0
#define PROFILED_CODE(...)
#define EXPECT(at, id) vm_expect(p, (at), (id))
#define LOOKED(x) do { if ((x) > p->hw) p->hw = (x); } while (0)
#define WATCHED OBSERVING(p)
/* every entry saves the whole state, with the height of the variable stack beside it */
#define FILL_ENTRY(e, k) (*(e) = (vm_entry){ .kind = (uint8_t)(k), .pos = pos, .vs = vsn, .trail = tn, .rec = p->nrec }, \
                          p->vmarks[(e) - es] = p->nvars)
/* a plain frame records the variant and level, which Pratt rules read */
#define CALL_FRAME(e, var, lvl) ((e)->u.call.variant = (uint32_t)(var), (e)->level = (uint16_t)(lvl))
#define TAIL_CALLS 0
#define FRAME_DEPTH(e) 1u
#define NOTE_PC(at) ((void)0)
#define NOTE_MEMORY() ((void)0)
#define SYNTAX_ERROR() rt_expect_syntax_error(p)
#define PROBE 0
#define DECIDE 0
#define STREAM 0
#define END_SEEN(x) ((void)0)
#define LOOK_SEEN(x) ((void)0)
