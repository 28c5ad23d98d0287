/* The stream parse's copy of the dispatch loop (vm/loop.h): the reference
 * program (vm/variant_reference.h) on the input held so far (docs/language.md
 * 7.1, vm/stream.c). It marks the input examined at every test that may find
 * the end of what is held (a literal compared up to the end, an end of input
 * or of line seen there: WATCHED on, END_SEEN), hands the start rule's
 * #stream repetition to vm/stream.c and reloads the input after every call
 * out, as a read moves it (STREAM). It is never observed: a stream parse has
 * no trace sinks and is not profiled. */
#include "variant_reference.h"
#undef VM_RUN
#undef WATCHED
#undef STREAM
#undef END_SEEN
#define VM_RUN vm_run_stream
#define WATCHED 1
#define STREAM 1
#define END_SEEN(x) LOOKED(x)
