/* The stream parse's copy of the dispatch loop (vm/loop.h): the reference
 * program marking exactly the input examined (vm/variant_examined.h), on the
 * input held so far (docs/language.md 7.1, vm/stream.c): a call that examined
 * the end of what is held waits for more. It hands the start rule's #stream
 * repetition to vm/stream.c and reloads the input after every call out, as a
 * read moves it (STREAM). Trace sinks observe it as they observe the
 * reference program, and so does the profiler's sampled mode. */
#include "variant_examined.h"
#undef VM_RUN
#undef STREAM
#define VM_RUN vm_run_stream
#define STREAM 1
