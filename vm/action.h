/* The action programs (docs/language.md 6.3-6.9): the instruction set of the
 * expression machine that evaluates actions, one X-macro list from which the
 * compiler (compiler/action.c) and the machine (vm/action.c) take their names
 * and the disassembler (`pego compile -S`) prints them. The machine has a value stack, slots for lambda
 * parameters and Pratt locals, and a stack of iterations for map, foldl and
 * foldr: a term of any nesting, and a list of any length, is evaluated without
 * C recursion. */
#ifndef PEGO_VM_ACTION_H
#define PEGO_VM_ACTION_H

#include "vm.h"

#define VM_ACTION_OPS(X) \
    X(NIL,      "push nil") \
    X(TRUE,     "push true") \
    X(FALSE,    "push false") \
    X(INT,      "push the integer i") \
    X(STR,      "push the string literal atext[a, a + b)") \
    X(CAP,      "push the capture of label a in the rule's scope, nil if it did not match (a < 0: none)") \
    X(CAPOF,    "push the field of label a of the node in slot b, nil if it has none (a Pratt part's captures)") \
    X(ELEM,     "push element a of the body ($a+1)") \
    X(ELEMS,    "push a new list of the body's elements ($0)") \
    X(LOCAL,    "push slot a (a lambda parameter, $lhs, $rhs, $op)") \
    X(STORE,    "pop into slot a") \
    X(VAR,      "push variable i, named atext[a, a + b); undefined: an error") \
    X(NEW,      "pop b values, push a struct node of type a with fields alabels[low 32 bits of i ...], named atext[high 32 bits of i]") \
    X(FIELD,    "replace the node on top by its field of label a (a < 0: no such label), named atext[b, b + i)") \
    X(STARTPOS, "replace the node on top by its start position") \
    X(ENDPOS,   "replace the node on top by its end position") \
    X(CHILDREN, "replace the node on top by a new list of its children") \
    X(NEG,      "integer negation") \
    X(NOT,      "boolean negation") \
    X(ADD,      "+ of integers or strings") \
    X(SUB,      "-") \
    X(MUL,      "*") \
    X(DIV,      "/, truncating; division by zero is an error") \
    X(MOD,      "%, with the sign of the dividend") \
    X(LT,       "<") \
    X(LE,       "<=") \
    X(GT,       ">") \
    X(GE,       ">=") \
    X(EQ,       "==") \
    X(NE,       "!=") \
    X(AND,      "&&: the bool on top is false: keep it, jump to a; else pop it") \
    X(OR,       "||: the bool on top is true: keep it, jump to a; else pop it") \
    X(BOOL,     "the right operand of && (a = 0) or || (a = 1) must be a bool") \
    X(LEN,      "len") \
    X(TEXT,     "text") \
    X(LIST,     "pop a values (nodes or nil), push a new list of them") \
    X(CONCAT,   "pop a lists, push a new list of their elements") \
    X(EACH,     "pop a list and iterate over it for built-in b (0 map, 1 foldl, 2 foldr)") \
    X(NEXT,     "next element of the innermost iteration into slot a; at its end, push the map's list or the fold's accumulator (slot a - 1) and jump to b") \
    X(MAPPUT,   "pop the lambda's value (a node or nil) into the map's list; jump to a") \
    X(JMP,      "jump to a") \
    X(END,      "the action's value is on top") \
    X(TEST,     "the predicate's value is on top: its index is the result")

typedef enum {
#define AC_ENUM(name, doc) AC_##name,
    VM_ACTION_OPS(AC_ENUM)
#undef AC_ENUM
    AC__COUNT
} vm_action_op;

/* The built-ins that iterate (AC_EACH's b). */
enum { AC_EACH_MAP, AC_EACH_FOLDL, AC_EACH_FOLDR };

/* Runs action a: the body's value v, the captures trail[from, to), the rule's
 * range [start, end) and, for a Pratt operator's action, the values of its
 * first slots (locals: CC_PRATT_SLOTS of them, or NULL). Sets *out to the action's value (a node or nil), or
 * for a predicate to the index of its value in parser.avals. Returns
 * VM_NEXT, VM_OOM, or VM_ACTION_ERROR when it ended the parse with a run-time
 * error (docs/language.md 6.9). */
vm_step vm_action_eval(pego_parser *p, int a, uint32_t v, uint32_t from, uint32_t to,
                       uint32_t start, uint32_t end, const uint32_t *locals, uint32_t *out);

/* ACTION: the body's value is on top of the value stack, the rule's frame on
 * top of the control stack. */
vm_step vm_action_run(pego_parser *p, vm_regs *r);

/* PRED (docs/language.md 5.1, 5.2): evaluates the predicate on the captures of
 * its scope and the variables; VM_FAIL when its value is false, its evaluation
 * an error, or (a definition) its value not an int, string or bool. The
 * nodes it made are discarded. */
vm_step vm_predicate_run(pego_parser *p, vm_regs *r);

#endif
