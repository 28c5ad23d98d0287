/* How the dispatch loop (vm/loop.h) goes from one instruction to the next.
 * With GCC and Clang every instruction ends in its own indirect jump through a
 * table of label addresses (NEXT), which skips the switch's range check and
 * gives each jump its own branch history. Elsewhere, or built with
 * -DPEGO_SWITCH_DISPATCH (configure --enable-switch-dispatch, which CI tests),
 * NEXT goes back to the top of the loop and its switch (DISPATCH_OP). */
#ifndef PEGO_VM_DISPATCH_H
#define PEGO_VM_DISPATCH_H

#include "opcodes.h"

#if defined(__GNUC__) && !defined(PEGO_SWITCH_DISPATCH)
#define VM_LABEL(name, fmt, doc) [OP_##name] = &&op_##name,
#define DISPATCH_TABLE static const void *const op_label[OP__COUNT] = { VM_OPCODES(VM_LABEL) }
#define CASE(name) case OP_##name: op_##name
#define NEXT goto *op_label[ip->op]
#define DISPATCH_OP ((vm_opcode)ip->op)
#else
#define DISPATCH_TABLE ((void)0)
#define CASE(name) case OP_##name
#define NEXT continue
#define DISPATCH_OP ((vm_opcode)ip->op)
#endif

/* A case of the loop that goes on into the next one, where two instructions
 * were fused (the profiled program's PSPANOUT, POUTRET, PDEFERPINSPAN). */
#if defined(__GNUC__) && __GNUC__ >= 7 || defined(__clang__)
#define FALL_THROUGH __attribute__((fallthrough))
#else
#define FALL_THROUGH ((void)0)
#endif

#endif
