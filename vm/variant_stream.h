/* The stream parse's copy of the dispatch loop (vm/loop.h): the reference
 * program on the input held so far (docs/language.md 7.1, vm/stream.c). It
 * marks the input examined at every test that may find the end of what is
 * held (a literal compared up to the end, an end of input or of line seen
 * there), hands the start rule's #stream repetition to vm/stream.c (STREAM),
 * and reloads the input after every call out, as a read moves it. It is
 * never observed: a stream parse has no trace sinks and is not profiled. */
#define VM_RUN vm_run_stream
#define VALUED 1
#define REFERENCE 1
#define PROFILED 0
#define STREAM 1
#define EXPECT(at, id) vm_expect(p, (at), (id))
#define LOOKED(x) do { if ((x) > p->hw) p->hw = (x); } while (0)
#define END_SEEN(x) LOOKED(x)
#define WATCHED 1
#define FILL_ENTRY(e, k) (*(e) = (vm_entry){ .kind = (uint8_t)(k), .pos = pos, .vs = vsn, .trail = tn, .rec = p->nrec }, \
                          p->vmarks[(e) - es] = p->nvars)
#define CALL_FRAME(e, var, lvl) ((e)->u.call.variant = (uint32_t)(var), (e)->level = (uint16_t)(lvl))
#define TAIL_CALLS 0
#define FRAME_DEPTH(e) 1u
#define NOTE_PC(at) ((void)0)
#define NOTE_MEMORY() ((void)0)
#define SYNTAX_ERROR() rt_expect_syntax_error(p)
#define PROBE 0
#define DECIDE 0
