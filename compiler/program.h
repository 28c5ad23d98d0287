/* The compiled grammar: rule table with the static analysis, literal, class and
 * expectation tables, and the code of both programs (full parse and recognition).
 * Immutable once built, so one grammar may serve many parsers and threads. */
#ifndef PEGO_CC_PROGRAM_H
#define PEGO_CC_PROGRAM_H

#include <stdint.h>
#include <stddef.h>

#include "../vm/opcodes.h"
#include "ast.h"
#include "graph.h"
#include "intern.h"
#include "../runtime/buf.h"
#include "pego.h"

typedef struct {
    uint8_t  op;
    uint8_t  flags;
    uint16_t d;                 /* CALLG with INS_DEFER: the rule's index among deferrable rules;
                                   SPANTEST with INS_COUNT: a counting site */
    int32_t  a, b, c;
} vm_ins;

typedef struct {
    int line, col;              /* grammar source position of the instruction (0: none) */
} vm_srcpos;

/* Static facts about a rule (docs/language.md 2.1, 2.2; docs/architecture.md, Static analysis). */
enum {
    RULE_NULLABLE   = 1u << 0,
    RULE_NOFAIL     = 1u << 1,  /* proven to always succeed */
    RULE_CYCLIC     = 1u << 2,  /* member of a left-recursive cycle */
    RULE_LEADER     = 1u << 3,  /* grows seeds for its cycle */
    RULE_MEMO       = 1u << 4,  /* may be memoized (not cyclic) */
    RULE_TRANSIENT  = 1u << 5,  /* referenced from < 2 places, or calls no other rule */
    RULE_PLAIN      = 1u << 6,  /* never memoized and no captures */
    RULE_CAPTURES   = 1u << 7,  /* its body scope has captures */
    RULE_TWIN       = 1u << 8,  /* some caller discards its value: the value-free body is used */
    RULE_DEFERRABLE = 1u << 9,  /* memoized from the second call at a position */
    RULE_STREAM     = 1u << 10, /* its valued body has a #stream repetition (REP marked INS_STREAM) */
    RULE_REACHES_CYCLE = 1u << 11  /* calls, at any depth, a rule of a left-recursive cycle */
};

typedef struct {
    char    *name;
    int      line, col;
    uint32_t flags;
    int      scc;               /* left-call component (cyclic rules only), else -1 */
    int      callsites;         /* references in the grammar */
    int      seen_index;        /* index among deferrable rules, or -1 */
    int      pratt;             /* index of its Pratt expression, or -1 */
    int      term_type;         /* the terminal type it produces (docs/language.md 6.1), or -1 */
    uint32_t entry;             /* address of the valued body */
    uint32_t vf_entry;          /* address of the value-free body (twin, recognition) */
    uint32_t fast_entry;        /* the same two bodies in the fast program (has_fast) */
    uint32_t fast_vf_entry;
    uint32_t prof_entry;        /* and in the profiled program (has_fast) */
    uint32_t prof_vf_entry;
    uint32_t reads, nreads;     /* the variables it can read (5.3): rule_reads[reads .. reads + nreads - 1] */
} cc_rule;

typedef struct {
    char    *bytes;
    uint32_t len;
    uint32_t expect;            /* expectation id */
    uint8_t  fffd;              /* contains U+FFFD: matches invalid bytes too */
} cc_literal;

enum { CC_PRATT_LITS = 4 };    /* the literals of an operator part the machine matches itself */

/* A Pratt expression (docs/language.md 3): its lines are small bodies ending in
 * SUBRET, each with a valued and a value-free address. */
typedef struct {
    uint8_t  kind;              /* pratt_op_kind */
    int      level;             /* 1-based; later levels bind tighter */
    int      number;            /* operator number, across levels in declaration order */
    int      action;            /* its action, -1: none (an Operator node) */
    uint32_t code, vf_code;
    /* The fast program's record: when the operator part is a literal or a
     * choice of up to CC_PRATT_LITS literals, their indices (grammar.literals)
     * in order, which the machine matches itself instead of running the
     * value-free line (vm/pratt.c); nlits 0: the line runs. */
    int32_t  lits[CC_PRATT_LITS];
    uint8_t  nlits;
    uint8_t  lit_value;         /* and the part is those literals bare: its value is
                                   a Match of the one that matched */
    uint8_t  lit_bytes1;        /* and each of them is one byte: a line tried only where
                                   its table says it may match matches one byte */
} cc_pratt_op;

/* One program's record of a Pratt expression: the reference, fast and
 * profiled programs each have their own lines (grammar.pratts). */
typedef struct {
    int          rule;
    int          has_skip;
    uint32_t     skip;          /* value-free, run silently */
    uint32_t    *operands, *vf_operands;
    int         *operand_actions;   /* the operands' actions, -1: none */
    /* The fast and profiled programs' records: per next byte (256: the end
     * of the input), the operands, prefix operators and infix and postfix
     * operators (bit k: the k-th) whose lines may match there; the others
     * would fail without passing a cut (in the profiled program, also
     * without a call, which would count), and are left out. NULL: every line
     * runs (more than 64 of a kind, or the reference program). Only in the
     * fast program's: fast, a value-free line chosen is not run again
     * (vm/pratt.c). */
    uint64_t    *operand_may, *prefix_may, *tail_may;
    int          fast;
    /* The fast and profiled programs' records: the machine takes over the
     * lines that call nothing (what it counts stays the reference program's):
     * operator parts of literals (cc_pratt_op.lits), operands and skips that
     * are one byte span. */
    int          takes_lines;
    int         *operand_span;  /* per operand, the byte set of a value-free line that is one
                                   span of one byte or more (BSPAN1), which the machine scans
                                   itself; -1: the line runs. NULL in the reference program's. */
    int          skip_span;     /* the byte set of a skip that is one byte span, which the
                                   machine scans itself; -1: a line */
    /* The profiled program's record: a skip or a value-free operand line
     * (per operand) that is a call compiled in of one byte span (PIN, the
     * span, POUT of one chain), which the machine scans and counts itself
     * (vm_chain_count): its chain, and its byte set; -1: none (then
     * skip_span and operand_span may say the line is a span alone). The
     * operands' NULL in the other programs' records. */
    int          skip_chain, skip_chain_span;
    int         *operand_chain, *operand_chain_span;
    int          noperands;
    cc_pratt_op *prefix;        /* prefix operators, in declaration order */
    int          nprefix;
    cc_pratt_op *tail;          /* infix and postfix operators, in declaration order */
    int          ntail;
} cc_pratt;

typedef struct {
    uint32_t   ascii[4];        /* 128-bit map, negation folded in */
    ast_range *ranges;          /* for code points >= 128 */
    int        nranges;
    int        negated;
    int        ascii_only;      /* not negated and every range below 128 */
    uint32_t   expect;
} cc_class;

/* A set of bytes, for the byte tests of the fast program. */
typedef struct {
    uint8_t  in[256];           /* 0: the byte is not in the set; 1: it is, an ASCII byte;
                                   2: it is, a byte from 0x80 (the profiled program's
                                   SPANTEST counts characters past the ASCII ones) */
} cc_byteset;

/* The jump table of a DISPATCH instruction: where each next byte goes, and
 * where the end of the input goes. */
typedef struct {
    uint32_t to[256];
    uint32_t eoi;
} cc_dispatch;

/* What one counting site of the profiled program stands for: each time it runs,
 * the reference program would have called these rules, with these outcomes
 * (calls that a byte test proved cannot match, docs/architecture.md). */
typedef struct {
    uint32_t rule;
    uint32_t matched, failed;   /* calls per run of the site */
} cc_site_call;

typedef struct {
    uint32_t first, n;          /* its calls: site_calls[first .. first + n - 1] */
} cc_site;

/* Rules compiled in together in the profiled program: each calls the next as
 * its whole body (item = digit = numeral), so that one PIN and one POUT stand
 * for all of them; a rule compiled in alone is a chain of one. */
typedef struct {
    uint32_t first, n;          /* its rules, outermost first: chain_rules[first .. first + n - 1] */
    int32_t  fail_site;         /* a counting site that counts a run per failed call of the chain
                                   (an alternative a jump table picked: emit_alts_fast), or -1 */
} cc_chain;

/* The calls compiled in that are running at an instruction of the profiled
 * program, for the sampler: the innermost one's chain, and the context of the
 * call it is compiled into (an index in inline_ctx + 1; 0: none). */
typedef struct {
    uint32_t chain, parent;
} cc_inline_ctx;

/* First-byte set of an expression (compiler/first.c): the bytes that can begin
 * a non-empty match, and whether it can match the empty string. */
typedef struct {
    uint32_t bits[8];
    int      nullable;
} cc_first;

/* The deepest nest of calls the fast program compiles into one call site. */
#define CC_INLINE_LEVELS 3

/* A node type the grammar defines (docs/language.md 6.1): a struct or a terminal
 * type; aliases and unions are resolved at compile time and have none. */
typedef struct {
    char    *name;
    int      terminal;
    int     *fields;            /* struct: label ids of its fields, sorted */
    int      nfields;
} cc_type;

/* An action (docs/language.md 6.3): code in the action program (vm/action.c
 * runs it), the rule it belongs to, what $1... index (the children of the
 * body's Seq, the body's value alone, or nothing), and the slots it needs: lambda
 * parameters, and first, in a Pratt operator's action, $lhs, $rhs, $op and
 * the operator part's value, whose fields are its captures (CC_PRATT_SLOTS). */
enum { CC_ELEMS_ONE, CC_ELEMS_SEQ, CC_ELEMS_NONE };
/* A predicate (docs/language.md 5.1) is an action program too, whose value
 * decides (predicate set); one that defines a variable names it (define >= 0). */
typedef struct {
    uint32_t code;
    int      rule;
    int      elems;             /* CC_ELEMS_SEQ, CC_ELEMS_ONE (the body), CC_ELEMS_NONE (a Pratt operator, a predicate) */
    uint32_t nslots;
    int      predicate;
    int      define;            /* the variable a predicate defines, or -1 */
} cc_action;

/* One instruction of an action program (the AC_ opcodes of vm/action.h). */
typedef struct {
    uint8_t  op;
    int32_t  a, b;
    int64_t  i;
} cc_aop;

/* Fixed expectation ids. */
enum { EXP_ANY, EXP_BOI, EXP_EOI, EXP_BOL, EXP_EOL, EXP__FIXED };

/* A repetition of the fast or profiled program (its REP's address) and the
 * same repetition in the reference program's value-free bodies, with the
 * overshoot of an iteration (compiler/overshoot.c): the deciding run's claims
 * (vm/decide.c). */
typedef struct {
    uint32_t rep, ref_rep, over;
} cc_rep_link;

struct pego_grammar {
    char       *name;           /* file name or "<grammar>" */
    char       *file;           /* the grammar file, NULL when compiled from memory */
    uint64_t    source_hash;    /* of the source text, for profile reports */
    char       *source;         /* the source text, for profile reports' line listings;
                                   NULL when longer than REP_SOURCE_MAX */
    size_t      source_len;
    cc_rule    *rules;
    int         nrules;
    cc_literal *literals;
    int         nliterals;
    cc_class   *classes;
    int         nclasses;
    char      **expects;        /* printed form of each expectation id */
    uint32_t   *expect_rank;    /* byte-wise sort rank of each id */
    uint8_t    *expect_message; /* the id is an #error message, not an item */
    int         nexpects;
    char      **labels;         /* capture labels, sorted byte-wise (id order = print order) */
    int         nlabels;
    cc_pratt   *pratts;         /* per Pratt expression k: the reference program's record k, the
                                   fast program's npratts + k, the profiled program's 2 * npratts + k */
    int         npratts;
    int         label_message;  /* label id of the Error node's message field, or -1 */
    int         label_operator; /* label id of the Operator node's operator field, or -1 */
    cc_byteset *bytesets;       /* operands of BTEST and BSPAN */
    int         nbytesets;
    cc_dispatch *dispatch;      /* operands of DISPATCH */
    int         ndispatch;
    vm_ins     *code;
    vm_srcpos  *src;
    uint32_t    ncode;
    int         has_fast;       /* the fast program exists (no Pratt expression, #recover or predicate) */
    uint32_t    fast_start;     /* address of its first instruction */
    uint32_t    fast_reserve;   /* nesting levels the fast program keeps in reserve */
    uint32_t    prof_start;     /* address of the profiled program's first instruction */
    cc_site    *sites;          /* operands of PCOUNT */
    uint32_t    nsites;
    cc_site_call *site_calls;
    uint32_t    nsite_calls;
    cc_chain   *chains;         /* operands of PIN and POUT */
    int32_t    *call_fail_site; /* per instruction: for a real call of the profiled program, a
                                   counting site that counts a run when the call fails (an
                                   alternative a jump table picked: emit_alts_fast), or -1;
                                   NULL when no call has one */
    uint32_t    nchains;
    uint32_t   *chain_rules;    /* rule indexes */
    uint32_t    nchain_rules;
    uint32_t   *inline_at;      /* per instruction: the calls compiled in running there
                                   (an index in inline_ctx + 1; 0: none; NULL: no profiled program) */
    cc_inline_ctx *inline_ctx;
    cc_type    *types;          /* node types defined by the grammar (NODE_STRUCT, NODE_TERMINAL) */
    int         ntypes;
    cc_action  *actions;        /* operands of ACTION */
    int         nactions;
    cc_aop     *acode;          /* the action programs */
    uint32_t    nacode;
    char       *atext;          /* string literals and field names of the action programs */
    uint32_t    natext;
    int32_t    *alabels;        /* field label lists of AC_NEW */
    uint32_t    nalabels;
    char      **vars;           /* variable names (docs/language.md 5.2), by id */
    int         nvars;
    uint32_t   *rule_reads;     /* variable ids read by each rule and its callees (cc_rule.reads) */
    uint32_t    nrule_reads;
    int         lead_depth;     /* deepest nest of calls before a rule reads a byte (analysis) */
    int         ndeferrable;
    uint32_t   *overshoot;      /* per rule: how far past its end a match may record an expectation,
                                   in bytes (compiler/overshoot.c; OVERSHOOT_NONE: no bound);
                                   NULL without a fast program. Not in cc_rule, whose size the
                                   loops' indexing depends on */
    cc_rep_link *rep_links;     /* the REP instructions of the fast and profiled programs whose
                                   matched iterations the deciding run may skip, by address */
    uint32_t    nrep_links;
};

/* The link of the REP instruction at address rep (grammar.rep_links, sorted
 * by address), or NULL. */
static inline const cc_rep_link *cc_rep_link_at(const pego_grammar *g, uint32_t rep)
{
    uint32_t lo = 0, hi = g->nrep_links;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->rep_links[mid].rep < rep) lo = mid + 1;
        else hi = mid;
    }
    return lo < g->nrep_links && g->rep_links[lo].rep == rep ? &g->rep_links[lo] : NULL;
}

/* Whether an instruction of the profiled program begins the calls of a chain
 * compiled in: PIN, or PSPAN, PSPANOUT, PBYTE, PWORD or PINSPAN, which
 * fuse_counted_calls (compiler/emit.c) puts in place of a PIN. */
static inline int cc_opens_inline_call(int op)
{
    return op == OP_PIN || op == OP_PSPAN || op == OP_PSPANOUT || op == OP_PBYTE || op == OP_PWORD ||
           op == OP_PINSPAN;
}

/* Variant ids: rule r's valued body is r, its value-free body nrules + r. */
#define CC_VF(g, r) ((g)->nrules + (r))

/* compiler stages */
void cc_analyze(pego_grammar *g, const ast_grammar *ast, cc_errors *errs);   /* inside cc_oom_jump */
void cc_emit(pego_grammar *g, const ast_grammar *ast);      /* inside cc_oom_jump */
/* compiler/action.c, for the emitter. What it keeps while the grammar's types
 * and actions are compiled: the type definitions by name, the node type each
 * resolves to (-1: an alias of no single struct or terminal type), and the
 * capacities of the action tables. */
typedef struct {
    cc_index  index;
    int      *type_of;
    uint32_t  cap_code, cap_text, cap_alabels, cap_actions;
    cc_index  var_index;        /* variables by name */
    uint32_t  cap_vars;
} cc_typemap;
/* Locals an action can see at once: lambda parameters and Pratt's three. */
#define CC_MAX_LOCALS 2048
enum { CC_SLOT_LHS, CC_SLOT_RHS, CC_SLOT_OP, CC_SLOT_PART, CC_PRATT_SLOTS };
/* The node types (once the labels are sorted); the terminal type that rule's
 * declaration makes it produce (-1: none); an action's code, for the body
 * body, or a Pratt operator's action (returns its index). */
void cc_types_build(pego_grammar *g, const ast_grammar *ast, cc_typemap *tm);
void cc_typemap_free(cc_typemap *tm);
int  cc_rule_terminal_type(const pego_grammar *g, const ast_grammar *ast, const cc_typemap *tm, int rule);
int  cc_action_compile(pego_grammar *g, const ast_grammar *ast, cc_typemap *tm, int rule, const ast_expr *body,
                       const ast_term *term, int pratt_operator);
/* A predicate [term] or [name = term] of rule's body, as an action (returns its
 * index); the id of variable name, added if new. */
int  cc_predicate_compile(pego_grammar *g, const ast_grammar *ast, cc_typemap *tm, int rule, const ast_expr *pred);
int  cc_var_id(pego_grammar *g, cc_typemap *tm, const char *name);
void cc_disassemble(const pego_grammar *g, rt_buf *out);
void cc_first_rules(const ast_grammar *ast, cc_callgraph *cg, cc_first *rules);
void cc_first_expr(const ast_grammar *ast, const cc_first *rules, const ast_expr *e, cc_first *f);
int  cc_first_has(const cc_first *f, unsigned byte);
int  cc_first_disjoint(const cc_first *a, const cc_first *b);
int  cc_first_full(const cc_first *f);
/* Overshoot (compiler/overshoot.c): per rule, how far past its end a match may
 * record an expectation (over), past its start a failed attempt (fail), and
 * its longest match (len), in bytes; OVERSHOOT_NONE: no bound found. */
#define OVERSHOOT_CAP  65536u
#define OVERSHOOT_NONE UINT32_MAX
typedef struct { uint32_t over, fail, len; } cc_overshoot;
void cc_overshoot_rules(const ast_grammar *ast, const pego_grammar *g, cc_callgraph *cg, const cc_first *rfirst,
                        cc_overshoot *rules);
/* The overshoot of an iteration of a repetition (AST_REPEAT), followed by anything. */
uint32_t cc_overshoot_iteration(const ast_grammar *ast, const pego_grammar *g, const cc_first *rfirst,
                                const cc_overshoot *rules, const ast_expr *repeat);
int  cc_has_value(const ast_expr *e);          /* occupies a value slot (1.4) */
int  cc_loose_cut(const ast_expr *e);          /* has a cut not inside a nested choice etc. */
int  cc_same_expr(const ast_expr *a, const ast_expr *b);   /* written alike: matches alike at a position */
int  cc_scope_has_captures(const ast_expr *e); /* captures of its own scope */

#endif
