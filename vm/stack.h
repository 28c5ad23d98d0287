/* The VM's stacks: entries of the control stack (one named member per kind of
 * entry), the side records of general calls, the capture trail and the frames
 * of Pratt expressions. The parser (runtime/parser.h) owns them and reuses
 * them across parses. */
#ifndef PEGO_VM_STACK_H
#define PEGO_VM_STACK_H

#include <stdint.h>

/* Kinds of control-stack entries. A failure pops entries until one handles it
 * (vm/loop.h, label fail). */
enum {
    E_BOTTOM,   /* below everything: a failure reaching it fails the parse */
    E_CALL,     /* plain rule call */
    E_CALL2,    /* two plain rule calls of the fast program (vm_entry) */
    E_GCALL,    /* general rule call, with a side record (vm_gframe) */
    E_MCALL,    /* memoized rule call of the profiled program (vm/loop.h, memo_call) */
    E_CHOICE,   /* ordered choice: resume at the alternative */
    E_ITER,     /* repetition: one entry for the whole loop, updated per iteration */
    E_LOOK,     /* positive lookahead */
    E_NLOOK,    /* negative lookahead: its body failing is its success */
    E_LABEL,    /* #error: replace what the expression recorded by the message */
    E_RECOVER,  /* #recover: on failure, hold it and run the skip */
    E_SKIP,     /* #recover's skip is running */
    E_SUB,      /* a Pratt line is running; its outcome goes back to the machine */
    E_TCALL     /* plain frame of the profiled program that a tail call reused: its calls and the chain's (vm_entry) */
};

/* One control-stack entry: 32 bytes. The state every entry restores on
 * backtracking comes first; the rest depends on the kind.
 *
 * A plain frame of the fast program (E_CALL) reads back only its position,
 * trail height, return address and extra levels. Where the stack is deep, a
 * plain call made with such a frame on top moves that frame into the fields it
 * leaves unused (lower_pos, lower_trail, u.call.lower_ret, lower_extra) and
 * writes its own in the usual fields: the entry becomes E_CALL2, two frames in
 * 32 bytes, and the usual fields are always those of the innermost frame. Its
 * RET or a tail call works on them as on an E_CALL; the RET moves the caller's
 * frame back (E_CALL again).
 *
 * A plain frame of the profiled program (E_CALL) that makes a call in tail
 * position (PTAIL) stands for the calls of its chain too: it becomes E_TCALL,
 * and the usual fields stay the caller's (its position, variant, return
 * address and caller) while the call's position goes to lower_pos, the
 * PTAIL's chain (its operand d) to rec and the number of the chain's calls
 * to tail_calls. Its RET or its failure counts them all. */
typedef struct {
    uint8_t  kind;
    uint8_t  cut;      /* choice, iteration, Pratt line: a cut committed it */
    union {
        uint16_t level;        /* plain and general call: level number of a level-restricted call */
        uint16_t lower_extra;  /* E_CALL2: the caller's frame's extra levels */
        uint16_t tail_calls;   /* E_TCALL: the calls of the PTAIL's chain (its operand b, kept
                                  here, as the chain is in rec: the RET reads no code, which
                                  the loops measured cheaper) */
    };
    uint32_t pos;      /* position to restore; of a call, where it started */
    union {
        uint32_t vs;           /* value-stack height */
        uint32_t lower_pos;    /* E_CALL2: where the caller's frame's call started; E_TCALL:
                                  where the tail call started */
    };
    uint32_t trail;    /* capture-trail height */
    union {
        uint32_t rec;          /* number of recovered errors; E_TCALL: the PTAIL's chain */
        uint32_t memo;         /* E_MCALL: index of the call's memo entry */
        uint32_t lower_trail;  /* E_CALL2: the caller's frame's trail height */
    };
    union {
        /* E_CALL and E_MCALL: where to return; the variant called (reference
         * and profiled programs) or, in E_CALL2, the caller's frame's return
         * address; the levels of nesting it stands for beyond one (the fast
         * program's tail calls reuse the caller's frame), or in the profiled
         * program the caller's frame (parser.sample_top when it was made) */
        struct { uint32_t ret; union { uint32_t variant, lower_ret; }; union { uint32_t extra_levels, caller; }; } call;
        /* E_GCALL: where to return; index of its side record in parser.gf;
         * the caller's frame while the parse is sampled */
        struct { uint32_t ret, frame, caller; } gcall;
        /* E_CHOICE and E_NLOOK: where to resume when the entry handles a failure */
        struct { uint32_t alt; } choice;
        /* E_ITER: address of the REP instruction, iterations so far, and the
         * value-stack height where the loop's values begin */
        struct { uint32_t rep, count, list_base; } iter;
        /* E_LABEL and E_RECOVER: the #error message's expectation or the
         * #recover skip's address, and the caller's expectation window */
        struct { uint32_t target, saved_far, saved_base; } window;
        /* E_SKIP: where the held failure was, and its items in parser.held */
        struct { uint32_t far, held, nheld; } skip;
        /* E_SUB: address of the PRATT instruction to resume */
        struct { uint32_t resume; } sub;
    } u;
} vm_entry;

/* The control-stack height from which the fast program pairs plain frames
 * (E_CALL2): below it the stack takes little memory, and moving a frame costs
 * a few instructions more than pushing one. */
#define VM_PAIR_FROM 1024u

/* The side record of a general call (memoized, growing a seed, or observed). */
typedef struct {
    uint32_t variant;
    uint32_t pos;
    uint32_t saved_far, saved_base;  /* the caller's expectation window */
    int32_t  memo;                   /* memo entry index or -1 when not stored */
    uint32_t body;                   /* address of the body */
    uint32_t best_end, best_value;   /* seed growing */
    uint32_t saved_hw;               /* the caller's examined end */
    uint32_t level;                  /* min of the call's parse (memo key) */
    uint32_t call_level;             /* level number of a level-restricted call, else 0 */
    uint32_t rec_start;              /* recovered errors before the call */
    uint32_t env;                    /* the values of the variables the rule reads (memo key) */
    uint64_t evals_start;            /* evaluation counter at the call (tracing) */
    uint64_t nested_evals;           /* evaluations of nested traced calls */
    uint8_t  has_best, silent, leader, memoize, traced;
} vm_gframe;

/* What the profiled program counts for a rule variant (vm/loop.h, vm/call.c),
 * from which rt_parse_counts makes the figures of pego_collector: plain calls
 * that matched and that failed (each is one call and one evaluation), the
 * general path's calls, evaluations, memo hits and outcomes, and the input
 * consumed by matched calls of both. */
typedef struct { uint64_t plain_matched, plain_failed, calls, evals, memo, matched, failed, consumed; } vm_count;

/* What it counts for a chain of rules (cc_chain), compiled in or called in
 * tail position (PTAIL): calls entered, matched, calls counted once they matched
 * (spans: byte spans, single bytes and tail calls; each entered and matched),
 * and the input they consumed; each rule of the chain made those calls. */
typedef struct { uint64_t entered, matched, spans, consumed; } vm_chain_count;

/* A capture on the trail: its label and the value captured. */
typedef struct { uint32_t label, value; } vm_capture;

/* A mark of the state a Pratt machine restores: position, stacks, recovered
 * errors, variables. */
typedef struct { uint32_t pos, vs, trail, rec, vars; } vm_mark;

/* A value of the action machine (vm/action.c): for V_STR, x is the string's
 * offset in the parse's string arena and len its length; for V_NODE, x is the
 * node value; for V_INT and V_BOOL, the value. */
enum { V_NIL, V_INT, V_BOOL, V_STR, V_NODE };
typedef struct vm_aval { uint32_t kind, len; uint64_t x; } vm_aval;

/* A variable definition on the variable stack (docs/language.md 5.2): the
 * variable's id (pego_grammar.vars) and its value. The innermost definition of
 * a name is the highest; every control-stack entry notes the stack's height
 * (parser.vmarks), which backtracking to it and a rule's return restore. */
typedef struct { uint32_t id; vm_aval value; } vm_var;

/* One parse(min) of a Pratt expression (docs/language.md 3.2). */
typedef struct {
    uint16_t pratt;
    uint8_t  state;
    uint8_t  outer;        /* the rule's own parse, not an operand parse */
    uint8_t  valued, cut_failed, op_cut, out_ok, out_cut, best_cut, scanned, scan_calls;
    uint32_t min, last_none;
    uint32_t lhs, lhs_start;
    vm_mark  m, m2;        /* before and after the skip */
    int32_t  idx, best;
    uint32_t best_end;
    uint32_t op_value, op_start, op_end;   /* the operator part's value and range */
    uint32_t out_value;    /* outcome of the last line or operand parse */
    /* scanned: the operand parse that just returned here, still in the slot
     * above, ended on a scan of the infix and postfix lines (its m, m2, best,
     * best_end, best_cut and cut_failed), which the fast program's machine
     * takes instead of running the lines again (vm/pratt.c); scan_calls: the
     * scan ran a line through the loop, which may have made calls (the
     * profiled program takes only a scan that made none) */
} vm_pframe;

#endif
