/* The reference program (vm/variant_reference.h) marking exactly the input
 * each call examined: a literal compared up to the first byte that differs,
 * an end of input or of line seen (END_SEEN), the text a negative
 * lookahead's expression matched before the lookahead failed (LOOK_SEEN).
 * An incremental document (runtime/document.c) keeps a memo entry after an
 * edit only if the edit is outside what the call examined; the stream loop
 * (vm/variant_stream.h) reads more input when a call examined the end of
 * what is held. */
#include "variant_reference.h"
#undef VM_RUN
#undef WATCHED
#undef END_SEEN
#undef LOOK_SEEN
#define VM_RUN vm_run_examined
#define WATCHED 1
#define END_SEEN(x) LOOKED(x)
#define LOOK_SEEN(x) LOOKED(x)
