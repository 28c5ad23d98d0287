/* The deciding run's copy of the dispatch loop (vm/loop.h): the reference
 * program (vm/variant_reference.h), value-free, deciding the syntax error of a
 * parse the fast program did not match. Before it makes a call, it asks
 * vm_decide_call whether a probe can stand for it (vm/decide.c). */
#include "variant_reference.h"
#undef VM_RUN
#undef DECIDE
#define VM_RUN vm_run_decide
#define DECIDE 1
