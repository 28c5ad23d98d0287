/* The dispatch loop (vm/loop.h) for the profiled program counting memory too (--profile-memory)
 * (vm/variant_profiled_memory.h), compiled apart from the other loops (vm/vm.c): the
 * profiled program's code, which only the profiled loops see (PROFILED_CODE),
 * cannot change how the compiler treats the fast program's loops. */
#define LOOP_LINKAGE
#include "vm.h"
#include "dispatch.h"
#include "action.h"
#include "matching.h"

#include <string.h>

#include "variant_profiled_memory.h"
#include "loop.h"
