/* The instruction set: the single list that names every opcode. The emitter, the
 * disassembler and the dispatch loop all derive from it (X-macro). Each entry:
 * name, operand format for the disassembler, one line of meaning.
 *
 * Operand formats: "" none; "L" a = literal; "C" a = class; "J" a = jump target;
 * "R" a = rule variant, b = body address; "N" a = count; "P" a = capture label;
 * "S" a = class, b = min, c = max; "I" a = exit target, b = min, c = max;
 * "T" a = class, b = jump target; "K" a = byte, b = jump target, c = expectation;
 * "t" a = literal, b = jump target (TEST, TESTCHAR and TESTLIT: d = the calls a
 * choice's dispatch skips with the alternative; no jump where they would go past
 * the nesting limit);
 * "W" a = address of the REP instruction; "M" a = message expectation;
 * "X" a = Pratt expression; "B" a = byte set, b = jump target; "Y" a = byte set,
 * "D" a = jump table; "H" a = byte; "U" a, c = byte sets or -1, b = byte;
 * "V" a, c = byte sets, b = jump target; "Q" a = counting site; "G" a = rule variant,
 * b = jump target, d = its index among deferrable rules; "Z" a = chain of rules
 * compiled in, b = its nesting level; "O" a = jump target, b and c = counting sites
 * (c may be -1), d = a rule's index among deferrable rules; "A" a = action; "E" a = node type;
 * "F" a = predicate (an action), b = the REP instruction of its scope or -1. CALL and CALLG
 * carry the call's level number in c; "r" a = rule variant, b = number of rules of chain d,
 * c = body address. */
#ifndef PEGO_VM_OPCODES_H
#define PEGO_VM_OPCODES_H

#define VM_OPCODES(X) \
    X(END,      "",  "the start rule matched and the input is consumed: success") \
    X(LIT,      "L", "match literal a, else record it and fail") \
    X(CLASS,    "C", "match one character of class a, else record it and fail") \
    X(ANY,      "",  "match any character, else record 'any character' and fail") \
    X(SPAN,     "S", "match b to c characters of class a (c < 0: no limit), value-free") \
    X(BOI,      "",  "succeed at the beginning of the input") \
    X(EOI,      "",  "succeed at the end of the input") \
    X(BOL,      "",  "succeed at the beginning of a line") \
    X(EOL,      "",  "succeed at the end of a line") \
    X(FAIL,     "",  "fail without recording anything (bottom)") \
    X(TEST,     "T", "if the next character is not in class a, record it and jump to b (see d)") \
    X(TESTCHAR, "K", "if the next byte is not a, record expectation c and jump to b (see d)") \
    X(TESTLIT,  "t", "if the next character is not literal a's first, record a's failure and jump to b (see d)") \
    X(BTEST,    "B", "fast program: if the next byte is not in byte set a, jump to b") \
    X(BSPAN,    "Y", "fast program: match bytes of byte set a, as many as there are") \
    X(BSPAN1,   "Y", "fast program: match bytes of byte set a, as many as there are, at least one") \
    X(BOPT,     "Y", "fast program: match a byte of byte set a if there is one") \
    X(BYTE,     "Y", "fast program: match one byte of byte set a (+value: push a Match of it)") \
    X(SPANTEST, "V", "fast program: match bytes of byte set a; then if the next byte is not in set c, jump to b") \
    X(DISPATCH, "D", "fast program: jump to the address jump table a gives for the next byte") \
    X(CHAR,     "H", "fast program: match byte a (an ASCII literal of one character)") \
    X(CHARV,    "H", "fast program: match byte a and push a Match of it") \
    X(PUNCT,    "U", "fast program: skip bytes of set a (a >= 0), match byte b, skip bytes of set c (c >= 0); the next d - 1 instructions are its parts (profiled program: a span may be a call, flags INS_COUNT and INS_COUNT_AFTER)") \
    X(PUNCT2,   "U", "profiled program: PUNCT whose two spans are calls of one chain (ws \",\" ws), counted in one update") \
    X(PCOUNT,   "Q", "profiled program: count a run of site a (calls the fast program skipped)") \
    X(PDEFER,   "G", "profiled program: first call of deferrable rule a here: set its bit, jump to b (always three on, past the real call and its jump: the loop steps there); else go on to the real call") \
    X(PDSKIP,   "O", "profiled program: a skipped call of deferrable rule d, first here: set its bit, count site b, jump to a; else count site c (c >= 0) and go on to the real call") \
    X(PIN,      "Z", "profiled program: the calls of chain a compiled in at level b begin") \
    X(POUT,     "Z", "profiled program: the calls of chain a compiled in at level b matched") \
    X(CHOICE,   "J", "push a choice entry whose alternative is a") \
    X(COMMIT,   "J", "pop the choice entry and jump to a") \
    X(REP,      "I", "push an iteration entry: loop to exit a, b to c times (c < 0: no limit)") \
    X(REPNEXT,  "W", "end of an iteration of the loop started at a: count it, loop or leave") \
    X(ITEREXIT, "W", "fast program: leave the loop started at a before an iteration begins") \
    X(LOOK,     "J", "push a positive lookahead entry; recording off") \
    X(NLOOK,    "J", "push a negative lookahead entry that jumps to a when its body fails") \
    X(LOOKEND,  "",  "positive lookahead matched: pop it, restore the position") \
    X(LOOKFAIL, "",  "negative lookahead's body matched: pop it and fail") \
    X(CUT,      "",  "commit the innermost choice, iteration or optional of this body") \
    X(CALL,     "R", "plain call: push a call frame and jump to the body") \
    X(CALLG,    "R", "general call: memo lookup, memo store, left-recursion growth") \
    X(RET,      "",  "return from the rule on top of the call stack") \
    X(RULEEND,  "N", "finish rule a's value: fields of its captures, its label") \
    X(PUSHPOS,  "",  "push the current position (start of a node)") \
    X(SEQ,      "N", "pop a values and a start position, push a Seq node") \
    X(MATCH,    "",  "pop a start position, push a Match node of the text since") \
    X(TOP,      "",  "push an empty Match node") \
    X(NIL,      "",  "push nil") \
    X(LISTOPEN, "",  "push the start position of a List") \
    X(LIST,     "",  "pop the loop's values and its start position, push a List node") \
    X(CAPTURE,  "P", "record the value on top under capture label a") \
    X(POP,      "",  "drop the value on top") \
    X(JMP,      "J", "jump to a") \
    X(LABEL,    "M", "#error: push a label entry for message a and open an expectation window") \
    X(LABELEND, "",  "#error: the expression matched; merge its expectations into the caller's") \
    X(RECOVER,  "J", "#recover: push a recover entry whose skip code is at a; open a window") \
    X(RECOVEREND, "J", "#recover: the expression matched; merge its window, jump past the skip to a") \
    X(SKIPEND,  "",  "#recover: the skip matched; record the recovered error (and its Error node)") \
    X(PSTART,   "X", "start the Pratt expression a at the binding level of the call") \
    X(PRATT,    "X", "the Pratt machine of expression a: resumes after each line and operand parse") \
    X(SUBRET,   "N", "end of a Pratt line: attach its captures (label it with rule a if a >= 0)") \
    X(ACTION,   "A", "run action a on the rule's body value and captures; its result is the rule's value") \
    X(TERMNODE, "E", "pop a start position, push a node of terminal type a of the text since (RULEEND labels it)") \
    X(PRED,     "F", "predicate a: evaluate it on the captures of its scope (b: the REP of its iteration, -1: the rule's); fail on false or an error") \
    X(DROPCAPS, "",  "drop the captures the rule's scope made for its predicates (a value-free body, a terminal type's)") \
    X(PWORD,    "Z", "profiled program: a call of chain a compiled in at level b whose body is the BYTE and the BSPAN after it: matched here, skipping them and its POUT") \
    X(PINSPAN,  "Z", "profiled program: PIN of chain a at level b whose body begins with the SPANTEST after it, which exits to its POUT: a call the span ends is counted here, going on past the POUT; another goes on after the SPANTEST") \
    X(PSPAN,    "Z", "profiled program: a call of chain a compiled in at level b whose body is the BSPAN after it: matched here, skipping it and its POUT") \
    X(PBYTE,    "Z", "profiled program: a call of chain a compiled in at level b whose body is the BYTE after it: matched here, skipping it and its POUT") \
    X(PDEFERPIN, "G", "profiled program: PDEFER whose body begins with a PIN (three on): a first call counts it entered and goes on after it") \
    X(PTAIL,    "r", "profiled program: call of variant a in tail position, which the caller's frame on top stands for: the b calls of chain d (each rule's whole body calls the next), then c, the body of its last rule") \
    X(PSPANOUT, "Z", "profiled program: PSPAN whose skip lands on a POUT, whose work it goes on to do") \
    X(POUTRET,  "Z", "profiled program: POUT before a RET, whose work it goes on to do") \
    X(PDEFERPINSPAN, "G", "profiled program: PDEFER whose body begins with a PINSPAN (three on): a first call goes on into it")

typedef enum {
#define VM_ENUM(name, fmt, doc) OP_##name,
    VM_OPCODES(VM_ENUM)
#undef VM_ENUM
    OP__COUNT
} vm_opcode;

/* Instruction flag bits (vm_ins.flags). */
#define INS_VALUE 1u   /* LIT, CLASS, ANY: push a Match of what matched */
#define INS_SCOPE 2u   /* REPNEXT: the iteration is a capture scope */
#define INS_DEFER 4u   /* CALLG: a deferrable rule (memoized from its second call at a position) */
#define INS_TAIL  8u   /* CALL, CALLG of the fast program: a RET follows (tail position) */
#define INS_COUNT 16u  /* SPANTEST of the profiled program: count a run of site d per character
                          spanned; PUNCT of the profiled program: the span before the byte is a
                          call compiled in (its POUT is the third part) */
#define INS_DROP  32u  /* REPNEXT of a value-free loop: drop the iteration's captures (made for its predicates) */
#define INS_COUNT_AFTER 64u  /* PUNCT of the profiled program: the span after the byte is a call
                                compiled in (its POUT is the last part) */
#define INS_STREAM 128u /* REP of the reference program's valued body: the #stream repetition (7.1) */

#endif
