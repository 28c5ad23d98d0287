/* The profiled program's copy of the dispatch loop (vm/loop.h) for profiled
 * parses that build trees and count memory (--profile-memory): the profiled
 * program of vm/variant_profiled.h, with its name and NOTE_MEMORY changed.
 * Before every call, return, failure and call compiled in, NOTE_MEMORY gives
 * the tree nodes built since the last such point to the rule running
 * (rt_profiler_note_memory, runtime/profiler.c). */
#include "variant_profiled.h"
#undef VM_RUN
#undef NOTE_MEMORY
#define VM_RUN vm_run_profiled_memory
#define NOTE_MEMORY() rt_memory_check(p)
