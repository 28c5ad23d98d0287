/* What the dispatch loop (vm/loop.h) shares with the parts it calls out to for
 * cold work: the general call path (vm/call.c), the Pratt machine
 * (vm/pratt.c), #error and #recover (vm/recover.c). The loop keeps its state
 * in local variables; before a call out it writes them to a vm_regs, and reads
 * them back after, then does what the returned vm_step says. */
#ifndef PEGO_VM_VM_H
#define PEGO_VM_VM_H

#include "../runtime/parser.h"
#include "../runtime/unicode.h"

/* The loop's registers: the next instruction, the position, the heights of the
 * control stack, value stack and capture trail, where the values of the
 * innermost finished loop begin, and the nesting depth. */
typedef struct {
    const vm_ins *ip;
    uint32_t pos, esn, vsn, tn, list_base, depth;
} vm_regs;

/* What the loop does after a call out. */
typedef enum {
    VM_NEXT,        /* run the instruction at ip */
    VM_FAIL,        /* fail at pos */
    VM_PLAIN_CALL,  /* make the call it was handed on the plain path */
    VM_OOM,         /* out of memory */
    VM_TOO_DEEP,    /* the nesting limit was reached */
    VM_ABORTED,     /* a trace callback aborted the parse */
    VM_ACTION_ERROR /* an action failed: the parse's result holds its error */
} vm_step;

/* What a probe (vm/variant_probe.h) returns when its reach gets to its cap. */
enum { VM_CAPPED = -1 };

/* The deciding run (vm/decide.c): before the call instruction at ip, at pos
 * and nesting depth depth, whether a probe stands for the call: 1 when it
 * matched, ending at *end; -1 when it failed; 0 when the call is to be made. */
int vm_decide_call(pego_parser *p, const vm_ins *ip, uint32_t pos, uint32_t depth, uint32_t *end);
/* The deciding run (vm/decide.c): at the REP instruction rep, at pos, whether
 * a claim of the failed fast run skips iterations: 1 with the position *to
 * and the number *count of the iterations matched. */
int vm_decide_claim(pego_parser *p, uint32_t rep, uint32_t pos, uint32_t *to, uint32_t *count);
/* The loops of the deciding run and of the probe (vm/vm.c). */
int vm_run_decide_loop(pego_parser *p, uint32_t start_variant);
int vm_run_probe_loop(pego_parser *p, uint32_t start_variant);
/* The element run of a stream parse (vm/variant_element.h), on a parser of its own. */
int vm_run_element_loop(pego_parser *p, uint32_t start_variant);
/* The profiled program's loops, each compiled alone (vm/loop_profiled*.c). */
int vm_run_profiled(pego_parser *p, uint32_t start_variant);
int vm_run_profiled_recognize(pego_parser *p, uint32_t start_variant);
int vm_run_profiled_memory(pego_parser *p, uint32_t start_variant);

/* A rule call handed to the general path: the variant called, its body, the
 * level number of a level-restricted call (else 0), the return address, and
 * whether it is in tail position (fast program). */
typedef struct { uint32_t variant, entry, level, ret, tail; } vm_call;

/* Whether calls are observed: trace sinks are attached or the runtime profiler
 * is on. A build with -DPEGO_NO_HOOKS compiles the hooks out; it exists only for
 * the benchmark that measures what they cost. */
#ifdef PEGO_NO_HOOKS
#define OBSERVING(p) 0
#else
#define OBSERVING(p) ((p)->observing)
#endif

#ifdef PEGO_FAULT_INJECTION
/* Deliberate breakage for the tests that prove the equivalence harness can fail;
 * compiled only into a test program, never into libpego (vm/vm.c defines them). */
extern int vm_fault_skip_traced_merge;   /* a traced call forgets to merge its expectations */
extern int vm_fault_memoize_traced;      /* a traced call of a memoizable rule is always memoized */
extern int vm_fault_fast_span;           /* the fast program's byte spans stop one byte short */
extern int vm_fault_fast_pratt;          /* the fast program's right-associative operators associate left */
extern int vm_fault_fast_pratt_skip;     /* the fast program's Pratt machine ends its skip spans one byte short */
extern int vm_fault_decide_unchecked;    /* the deciding run's first result is taken unchecked */
extern int vm_fault_probe_end;           /* a probe's reach leaves out where the call ended */
extern int vm_fault_claim_unchecked;     /* a claim's reach is left out of the check of the result */
#define FAULT_SHORT_SPAN(from) do { if (vm_fault_fast_span && pos > (from)) pos--; } while (0)
#define FAULT_RIGHT_AS_LEFT(p) (vm_fault_fast_pratt && (p)->fast)
#define FAULT_SHORT_SKIP(p, from) do { if (vm_fault_fast_pratt_skip && (p)->fast && pos > (from)) pos--; } while (0)
/* The control-stack height from which the fast program pairs plain frames:
 * VM_PAIR_FROM, or lower, so that the tests pair frames on shallow stacks too. */
extern uint32_t vm_pair_from;
#define PAIR_FROM vm_pair_from
#else
#define FAULT_SHORT_SPAN(from) ((void)(from))
#define FAULT_RIGHT_AS_LEFT(p) 0
#define FAULT_SHORT_SKIP(p, from) ((void)(from))
#define PAIR_FROM VM_PAIR_FROM
#endif

/* The rest of a span of set from pos, which begins with a byte from 0x80:
 * adds its characters to *count, stepping as a class's iterations step (by
 * the width of rt_unicode_decode), and returns its end. Out of line, so that
 * the loop that calls it keeps its registers. */
uint32_t vm_span_characters(const pego_parser *p, const uint8_t *set, uint32_t pos, uint64_t *count);

/* The end of the byte span of set from pos (at most len): the first position
 * at or after pos whose byte is not in set, or len. Four bytes per test of the
 * bound. */
static inline uint32_t vm_byte_span(const uint8_t *s, uint32_t pos, uint32_t len, const uint8_t *set)
{
    for (; len - pos >= 4; pos += 4) {
        if (!set[s[pos]]) return pos;
        if (!set[s[pos + 1]]) return pos + 1;
        if (!set[s[pos + 2]]) return pos + 2;
        if (!set[s[pos + 3]]) return pos + 3;
    }
    while (pos < len && set[s[pos]]) pos++;
    return pos;
}

/* Sets bit number bit of bits: true when it was not set. */
static inline int vm_set_bit(uint64_t *bits, size_t bit)
{
    uint64_t mask = 1ull << (bit & 63), *word = &bits[bit >> 6];
    if (*word & mask) return 0;
    *word |= mask;
    return 1;
}

/* Sets the bit of the deferrable rule with index k (cc_rule.seen_index) for
 * position pos: true when it was not set, so that this is the rule's first
 * call at the position, which the memo table does not keep. */
static inline int vm_first_call_at(pego_parser *p, uint32_t pos, size_t k)
{
    return vm_set_bit(p->memo.seen, (size_t)(pos - p->memo.seen_base) * (size_t)p->g->ndeferrable + k);
}


/* Records that id was expected at pos (docs/language.md 1.12): nothing while
 * silent (inside a lookahead) or behind the farthest position; a farther
 * position starts a new set; duplicates are dropped. */
static inline void vm_expect(pego_parser *p, uint32_t pos, uint32_t id)
{
    if (p->silent) return;
    rt_expect *x = &p->exp;
    if (pos < x->far) return;
    if (pos > x->far) { x->far = pos; x->n = x->base; }
    for (uint32_t i = x->base; i < x->n; i++)
        if (x->items[i] == id) return;
    if (x->n < x->cap) x->items[x->n++] = id;
    else rt_expect_add_slow(x, pos, id);
}

/* Opens a window of the expectation record at pos (a call, #error, #recover). */
static inline void vm_open_window(pego_parser *p, uint32_t pos)
{
    p->exp.base = p->exp.n;
    p->exp.far = pos;
}

/* Closes the window opened where the caller's record was far/base, and merges
 * its items into that record when merge is set. The merge works in place: the
 * caller's window lies just below, and each item is read before anything can be
 * written at its index. */
static inline void vm_close_window(pego_parser *p, uint32_t saved_far, uint32_t saved_base, int merge)
{
    rt_expect *x = &p->exp;
    uint32_t far = x->far, from = x->base, to = merge ? x->n : x->base;
    x->n = x->base;
    x->base = saved_base;
    x->far = saved_far;
    for (uint32_t i = from; i < to; i++) vm_expect(p, far, x->items[i]);
}

/* Makes room for n control-stack entries. While the stack moves, the sampler's
 * signal handler leaves it alone (p->es_moving). */
static inline int vm_grow_entries(pego_parser *p, uint32_t n)
{
    p->es_moving = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    int status = rt_buf_grow((void **)&p->es, &p->capes, n, sizeof(vm_entry));
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    p->es_moving = 0;
    /* the variable marks beside the entries: never fewer than entries */
    if (status == 0 && p->capvmarks < p->capes &&
        rt_buf_grow((void **)&p->vmarks, &p->capvmarks, p->capes, sizeof(uint32_t)) < 0) {
        p->capes = p->capvmarks;
        status = -1;
    }
    return status;
}

/* Pushes a control-stack entry of the given kind that saves the state in r,
 * for the parts outside the loop; NULL when out of memory. */
static inline vm_entry *vm_push_entry(pego_parser *p, vm_regs *r, int kind)
{
    if (r->esn == p->capes && vm_grow_entries(p, r->esn + 1) < 0) return NULL;
    p->vmarks[r->esn] = p->nvars;
    vm_entry *e = &p->es[r->esn++];
    *e = (vm_entry){ .kind = (uint8_t)kind, .pos = r->pos, .vs = r->vsn, .trail = r->tn, .rec = p->nrec };
    return e;
}

/* Back to the state saved by entry e, the entry at index at of the control
 * stack (e may be a copy of it). */
static inline void vm_restore_entry(pego_parser *p, vm_regs *r, const vm_entry *e, uint32_t at)
{
    r->pos = e->pos;
    r->vsn = e->vs;
    r->tn = e->trail;
    p->nrec = e->rec;
    p->nvars = p->vmarks[at];
}

/* Counts, for the profiled program, the outcome of a call of the general path
 * or of memo_call (vm/loop.h) that began at pos: it matched, ending at end,
 * or failed. */
static inline void vm_count_outcome(vm_count *count, int ok, uint32_t pos, uint32_t end)
{
    if (ok) {
        count->matched++;
        count->consumed += end - pos;
    } else {
        count->failed++;
    }
}

/* Whether memo entry m, found for a call, decides it: an entry made in a
 * lookahead recorded no expectations and is used only in one. */
static inline int vm_memo_usable(const pego_parser *p, const rt_memo_entry *m)
{
    return !(m->flags & MEMO_SILENT) || p->silent;
}

/* Pushes value v; -1 when out of memory. */
static inline int vm_push_value(pego_parser *p, vm_regs *r, uint32_t v)
{
    if (r->vsn == p->capvs && rt_buf_grow((void **)&p->vs, &p->capvs, r->vsn + 1, sizeof(uint32_t)) < 0) return -1;
    p->vs[r->vsn++] = v;
    return 0;
}

/* Finishes a scope: its captures trail[from, to) become fields of value v, or of
 * a new Seq over start..end that wraps v (docs/language.md 1.9). Returns the
 * resulting value, never nil when there are captures, or 0 when out of
 * memory (vm/vm.c). */
uint32_t vm_apply_fields(pego_parser *p, uint32_t v, uint32_t from, uint32_t to, uint32_t start, uint32_t end);

/* Gives node v one field that is not a node (an integer or a string); -1 when
 * out of memory (vm/vm.c). */
int vm_scalar_field(pego_parser *p, uint32_t v, int label, uint32_t kind, uint64_t value);

/* Variables (vm/vars.c): the innermost definition of variable id (NULL:
 * undefined); a new definition (-1 when out of memory); the environment id of
 * the values of variables ids[0..n) for a memo key (undefined ones count as
 * nil), interned for the parse, 0 when out of memory; vm_env_reset forgets the
 * environments, with the memo table. */
const vm_var *vm_var_find(const pego_parser *p, uint32_t id);
int      vm_var_define(pego_parser *p, uint32_t id, vm_aval value);
uint32_t vm_env_key(pego_parser *p, const uint32_t *ids, uint32_t n);
void     vm_env_reset(pego_parser *p);

/* The general call path (vm/call.c): memo lookup and store, left-recursion
 * growth, observation. vm_call_enter decides a call the loop hands it (and
 * answers VM_PLAIN_CALL when the plain path will do); vm_call_return runs when
 * a body reaches RET with a general call's entry on top; vm_call_fail when a
 * failure pops one (e, already popped: r->esn is its index). */
vm_step vm_call_enter(pego_parser *p, vm_regs *r, const vm_call *c);
vm_step vm_call_return(pego_parser *p, vm_regs *r);
vm_step vm_call_fail(pego_parser *p, vm_regs *r, vm_entry *e);
/* The memo table's answer to the profiled program's later call of deferrable
 * rule variant at pos (vm/loop.h, memo_call): 1, and *k the index of the
 * entry that decides it; 0, and *k the index of the entry the call's outcome
 * goes to (one made in a lookahead, which decides only in one, or a new one:
 * nothing looks it up before the call ends, since the rule is not
 * left-recursive); -1 when out of memory. */
int vm_memo_lookup(pego_parser *p, uint32_t variant, uint32_t pos, uint32_t *k);

/* The Pratt machine (vm/pratt.c): PSTART, PRATT, SUBRET, and a failure that
 * reaches a Pratt line's entry (e, already popped). */
vm_step vm_pratt_start(pego_parser *p, vm_regs *r);
vm_step vm_pratt_run(pego_parser *p, vm_regs *r);
vm_step vm_pratt_run_profiled(pego_parser *p, vm_regs *r);
vm_step vm_pratt_run_probe(pego_parser *p, vm_regs *r);
vm_step vm_pratt_line_matched(pego_parser *p, vm_regs *r);
vm_step vm_pratt_line_failed(pego_parser *p, vm_regs *r, vm_entry *e);

/* #error and #recover (vm/recover.c): LABEL and RECOVER open a window,
 * LABELEND and RECOVEREND close it, SKIPEND ends a skip, and a failure that
 * reaches one of their entries (e, already popped) is handled by
 * vm_recover_failed. vm_recover_replay re-appends the errors a memo entry
 * recovered; -1 when out of memory. */
vm_step vm_recover_open(pego_parser *p, vm_regs *r, int kind);
vm_step vm_recover_close(pego_parser *p, vm_regs *r);
vm_step vm_recover_skip_end(pego_parser *p, vm_regs *r);
vm_step vm_recover_failed(pego_parser *p, vm_regs *r, vm_entry *e);
int     vm_recover_replay(pego_parser *p, const rt_memo_entry *m);
/* The fast program's skip matched at SKIPEND, with esn entries (its E_SKIP on
 * top): whether it may go on past the recovery, with nothing that could undo
 * it but a failure going back before it, or keep its outcome without the
 * error: no lookahead open (it ends by going back), no leader growing a seed
 * (it runs again from its start), no memoized call of the profiled
 * program's or of a counted run (its entry would keep no error; the fast
 * program's own are not stored, vm/call.c), no Pratt line (the machine goes
 * back to its own marks); and for a value, no action, which could read the
 * Error node, whose message the fast program does not know. */
int     vm_fast_recovery_goes_on(const pego_parser *p, uint32_t esn, int valued);
/* The fast program went back to pos, before the end of the last skip it kept
 * (parser.kept_skip_last): the skips that ended past pos are undone. */
static inline void vm_undo_skips(pego_parser *p, uint32_t pos)
{
    if (pos < p->kept_skip_first) p->kept_skip_first = 0;
    p->kept_skip_last = p->kept_skip_first ? pos : 0;
}

/* The stream loop's #stream repetition (vm/stream.c): REP begins it, REPNEXT
 * hands an element over, a failure that reaches its entry (e, already popped)
 * ends it; each may parse the iteration again after reading more input. The
 * end of a run (END, or failed at the bottom entry, popped) before the reader
 * has ended goes to vm_stream_end: it runs again what follows the repetition
 * with more input, or the whole run (stream.restart) when nothing was handed
 * over yet, or lets the run end (stream.done). */
vm_step vm_stream_begin(pego_parser *p, vm_regs *r);
vm_step vm_stream_element(pego_parser *p, vm_regs *r);
vm_step vm_stream_failed(pego_parser *p, vm_regs *r, vm_entry *e);
vm_step vm_stream_end(pego_parser *p, vm_regs *r, int failed);

#endif
