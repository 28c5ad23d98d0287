/* The state of one parser: the VM's stacks, the expectation record, the memo
 * table, the node arena and the result of the last parse. Everything is reused
 * across parses; nothing is allocated per expression. */
#ifndef PEGO_RT_PARSER_H
#define PEGO_RT_PARSER_H

#include <stdint.h>

#include "pego.h"
#include "../compiler/program.h"
#include "buf.h"
#include "../vm/stack.h"

/* ---- nodes (runtime/tree.c) ---- */
enum { NODE_MATCH = PEGO_NODE_MATCH, NODE_SEQ = PEGO_NODE_SEQ, NODE_LIST = PEGO_NODE_LIST,
       NODE_OPERATOR = PEGO_NODE_OPERATOR, NODE_ERROR = PEGO_NODE_ERROR,
       NODE_STRUCT = PEGO_NODE_STRUCT, NODE_TERMINAL = PEGO_NODE_TERMINAL };

/* A node: 16 bytes, since a tree has about one node for every four bytes of
 * input. Its child count is implied (children are appended as nodes are made,
 * so a node's list ends where the next node's begins), and its fields, which
 * few nodes have, live in a table keyed by node (rt_tree_fields), as does the
 * type of a struct node (NODE_STRUCT). A node of a terminal type the grammar
 * defines (NODE_TERMINAL) has the type of the rule that made it, its label. */
struct pego_node {
    uint32_t tag;         /* type (bits 0-2), NODE_HAS_FIELDS (bit 3), rule index + 1 (bits 4-31; 0: unlabeled) */
    uint32_t start, end;  /* byte offsets into the input */
    uint32_t kids;        /* index of its first child in the child array */
};

#define NODE_HAS_FIELDS 8u

/* A field: a node value, an integer (Operator's operator, an action's int), a
 * bool, or a string (Error's message, an action's string: its offset into the
 * parse's string arena, NUL-terminated, and its length in the high 32 bits). */
enum { FIELD_NODE, FIELD_INT, FIELD_STRING, FIELD_BOOL };
typedef struct { uint32_t label, kind; uint64_t value; } rt_field;
#define FIELD_STRING_AT(off, len) ((uint64_t)(off) | (uint64_t)(len) << 32)
#define FIELD_STRING_OFF(value) ((uint32_t)(value))
#define FIELD_STRING_LEN(value) ((uint32_t)((value) >> 32))

/* A value on the VM's value stack or in a node: 0 is nil, otherwise 1 + the node's
 * index. VAL_CALLED marks a value that came from a rule call (not fresh). */
#define VAL_NIL    0u
#define VAL_CALLED 0x80000000u
#define VAL_NODE(v) ((v) & ~VAL_CALLED)

/* base + off for an array that may never have been allocated (NULL, off 0):
 * pointer arithmetic on NULL is undefined even with 0. */
#define RT_AT(base, off) ((base) ? (base) + (off) : (base))

/* Where the fields of one node are: fields[first .. first + count), and its
 * type among the grammar's (cc_type) when it is a struct node. */
typedef struct { uint32_t first, count, type; } rt_fieldref;

typedef struct {
    pego_node   *nodes;  uint32_t nnodes, capnodes;
    uint32_t    *kids;   uint32_t nkids, capkids;
    rt_field    *fields; uint32_t nfields, capfields;
    rt_fieldref *refs;   uint32_t nrefs, caprefs;
    uint32_t    *ref_of; uint32_t capref_of;        /* per node index: its entry in refs, if it has fields */
    /* --profile-memory: the lengths of the arrays when the profiler last
     * gave what they had grown by to a rule (rt_profiler_note_memory) */
    uint32_t     noted_nodes, noted_kids, noted_fields, noted_refs;
} rt_tree;

static inline int rt_tree_node_kind(const pego_node *n) { return (int)(n->tag & 7u); }
static inline int32_t rt_tree_node_label(const pego_node *n) { return (int32_t)(n->tag >> 4) - 1; }
static inline void rt_tree_node_set_label(pego_node *n, int32_t label)
{
    n->tag = (n->tag & 15u) | ((uint32_t)(label + 1) << 4);
}
static inline uint32_t rt_tree_node_nkids(const rt_tree *t, const pego_node *n)
{
    size_t i = (size_t)(n - t->nodes);
    return (i + 1 < t->nnodes ? t->nodes[i + 1].kids : t->nkids) - n->kids;
}
/* The fields of node n: returns their count and sets *first. */
uint32_t rt_tree_fields(const rt_tree *t, const pego_node *n, uint32_t *first);
/* Gives node value v the fields [first, first + count); -1 when out of memory. */
int      rt_tree_set_fields(rt_tree *t, uint32_t v, uint32_t first, uint32_t count);
/* The same for a struct node of type `type` of the grammar's types, and that type. */
int      rt_tree_set_typed(rt_tree *t, uint32_t v, uint32_t type, uint32_t first, uint32_t count);
uint32_t rt_tree_node_user_type(const rt_tree *t, const pego_node *n);
/* Its type name: reserved, or the grammar's. */
const char *rt_tree_type_name(const rt_tree *t, const pego_grammar *g, const pego_node *n);
/* Terminals (Match, Error, terminal types) print their text. */
static inline int rt_tree_terminal(const pego_node *n)
{
    int k = (int)(n->tag & 7u);
    return k == NODE_MATCH || k == NODE_ERROR || k == NODE_TERMINAL;
}

void     rt_tree_reset(rt_tree *t);
void     rt_tree_free(rt_tree *t);
int      rt_tree_reserve(rt_tree *t, uint32_t nkids);     /* room for a node and its kids; -1: OOM */

/* Makes a node; returns its value, or 0 when out of memory. Inline: a tree
 * parse makes about one node for every four bytes of input. */
static inline uint32_t rt_tree_node(rt_tree *t, int type, uint32_t start, uint32_t end,
                                    const uint32_t *kids, uint32_t nkids)
{
    if ((t->nnodes == t->capnodes || t->capkids - t->nkids < nkids) && rt_tree_reserve(t, nkids) < 0) return 0;
    pego_node *n = &t->nodes[t->nnodes];
    n->tag = (uint32_t)type;
    n->start = start;
    n->end = end;
    n->kids = t->nkids;
    if (nkids) {
        uint32_t *to = t->kids + t->nkids;
        for (uint32_t i = 0; i < nkids; i++) to[i] = VAL_NODE(kids[i]);
        t->nkids += nkids;
    }
    return ++t->nnodes;
}

/* ---- expectations (runtime/expect.c) ---- */
typedef struct {
    uint32_t  far;        /* farthest position of the open window */
    uint32_t  base;       /* first item of the open window */
    uint32_t *items;      /* expectation ids; windows are stacked */
    uint32_t  n, cap;
    int       oom;        /* an item was lost to an allocation failure: the parse ends in PEGO_ENOMEM */
} rt_expect;

void rt_expect_add_slow(rt_expect *x, uint32_t pos, uint32_t id);

/* ---- memo table (runtime/memo.c) ---- */
/* MEMO_CARRIED: an entry of a document's previous parse (runtime/document.c),
 * whose value is still in that parse's tree */
enum { MEMO_OK = 1, MEMO_GROWING = 2, MEMO_SILENT = 4, MEMO_CARRIED = 8 };

typedef struct {
    uint32_t variant, pos;
    uint64_t context;                     /* the binding level, and above it the environment: the values of
                                             the variables the rule reads (vm/vars.c, 0: none) */
    uint32_t end, value;
    uint32_t examined;                    /* end of the input the call looked at */
    uint32_t flags;
    uint32_t exp_far, exp_off, exp_len;   /* the call's expectations, in the memo's id arena */
    uint32_t rec_off, rec_len;            /* errors recovered during the call, in the memo's arena */
} rt_memo_entry;

/* An error recovered by #recover: where, and its full text in the string arena. */
typedef struct { uint32_t pos, text; } rt_recovered;

typedef struct {
    rt_memo_entry *entries; uint32_t n, cap;
    uint32_t  room;                           /* rt_memo_put makes entries inline while n < room:
                                                 min(cap, nslots / 2) once rule_used is made, else 0 */
    uint32_t *slots;   uint32_t nslots;       /* open addressing, 1 + entry index, 0 empty */
    uint32_t  top;                            /* the largest position of an entry */
    uint32_t  extent;                         /* the input's length, for the table's growth (memo.c); 0: not known */
    uint8_t   shift;                          /* ordered slots: a line of 16 per 2^shift positions */
    uint8_t   spread;                         /* 1: slots by a hash of the whole key (memo.c, home) */
    uint32_t *ids;     uint32_t nids, capids; /* kept expectation sets */
    rt_recovered *recs; uint32_t nrecs, caprecs; /* kept recovered errors */
    uint8_t  *rule_used;                      /* per variant: stored at least one entry */
    uint32_t  rules_used;
    uint64_t *seen;    size_t nseen;          /* second-call bitset: (pos - seen_base) * ndeferrable + index */
    uint32_t  seen_base;                      /* 0; in a stream parse, the first position held */
    uint32_t  seen_fresh;                     /* the unprofiled fast program has called no deferrable
                                                 rule from here on (vm/loop.h, CALLG) */
} rt_memo;

rt_memo_entry *rt_memo_find(rt_memo *m, uint32_t variant, uint32_t pos, uint32_t level, uint32_t env);
rt_memo_entry *rt_memo_add(rt_memo *m, uint32_t variant, uint32_t pos, uint32_t level, uint32_t env,
                           uint32_t nvariants);
rt_memo_entry *rt_memo_put_slow(rt_memo *m, uint32_t variant, uint32_t pos, uint32_t level, uint32_t env,
                                uint32_t nvariants, int *added);

/* An entry's context: its binding level and its environment, one key. */
static inline uint64_t rt_memo_context(uint32_t level, uint32_t env) { return (uint64_t)env << 32 | level; }

/* Where the search for an entry begins. Ordered, as a table starts: the 16
 * slots of one cache line stand for a block of 2^shift positions, the blocks
 * in the order of the input (wrapping around the table), and the key picks
 * the slot in the line. A parse moves forward, and a rule is memoized from
 * its second call at a position: the slots it reads next are those it read
 * last, or the next ones, which the processor already has. Spread, once a
 * search has been long (entries crowded on few positions): anywhere, by a
 * hash of the whole key. */
static inline uint32_t rt_memo_home(const rt_memo *m, uint32_t variant, uint32_t pos, uint64_t ctx)
{
    if (m->spread) {
        uint64_t h = ((uint64_t)pos << 20 ^ variant ^ ctx << 52 ^ (ctx >> 32) << 36) * 0x9E3779B97F4A7C15ull;
        return (uint32_t)(h >> 32);
    }
    uint32_t mix = (variant ^ (uint32_t)ctx ^ (uint32_t)(ctx >> 32) << 8) * 0x9E3779B1u + pos * 0x85EBCA77u;
    return (pos >> m->shift) << 4 | mix >> 28;
}

/* A search longer than this makes the slots spread. */
enum { RT_MEMO_LONG_SEARCH = 64 };

/* Entry n, new and empty, for (variant, pos, ctx): the table has room for it
 * and it is yet to be put in the slots. */
static inline rt_memo_entry *rt_memo_new_entry(rt_memo *m, uint32_t variant, uint32_t pos, uint64_t ctx)
{
    rt_memo_entry *e = &m->entries[m->n++];
    *e = (rt_memo_entry){ .variant = variant, .pos = pos, .context = ctx };
    if (pos > m->top) m->top = pos;
    if (!m->rule_used[variant]) { m->rule_used[variant] = 1; m->rules_used++; }
    return e;
}

/* Returns the entry for (variant, pos, level, env), creating an empty one if
 * there is none (*added is then 1); NULL when out of memory. When the table has
 * room, one search finds the entry or the slot a new one takes: inline, for
 * the profiled program's memoized calls (vm_memo_lookup). */
static inline rt_memo_entry *rt_memo_put(rt_memo *m, uint32_t variant, uint32_t pos, uint32_t level, uint32_t env,
                                         uint32_t nvariants, int *added)
{
    if (m->n >= m->room)
        return rt_memo_put_slow(m, variant, pos, level, env, nvariants, added);
    uint64_t ctx = rt_memo_context(level, env);
    uint32_t mask = m->nslots - 1, far = 0;
    for (uint32_t i = rt_memo_home(m, variant, pos, ctx) & mask;; i = (i + 1) & mask, far++) {
        uint32_t s = m->slots[i];
        if (s) {
            rt_memo_entry *e = &m->entries[s - 1];
            if (e->variant == variant && e->pos == pos && e->context == ctx) {
                *added = 0;
                return e;
            }
            continue;
        }
        *added = 1;
        /* a long search: rt_memo_add spreads the slots */
        if (far > RT_MEMO_LONG_SEARCH && !m->spread) return rt_memo_add(m, variant, pos, level, env, nvariants);
        m->slots[i] = m->n + 1;
        return rt_memo_new_entry(m, variant, pos, ctx);
    }
}
int            rt_memo_keep_set(rt_memo *m, rt_memo_entry *e, const uint32_t *ids, uint32_t n);
int            rt_memo_keep_errors(rt_memo *m, const rt_recovered *r, uint32_t n);
/* Keeps a copy of the n expectations of a call, at far, in the entry (most
 * calls have none: no call then). -1 when out of memory. */
static inline int rt_memo_keep(rt_memo *m, rt_memo_entry *e, const uint32_t *ids, uint32_t n, uint32_t far)
{
    e->exp_far = far;
    e->exp_len = n;
    e->exp_off = 0;
    return n ? rt_memo_keep_set(m, e, ids, n) : 0;
}
/* Keeps a copy of the n errors recovered during a call, for a hit to
 * re-append. -1 when out of memory. */
static inline int rt_memo_keep_recovered(rt_memo *m, rt_memo_entry *e, const rt_recovered *r, uint32_t n)
{
    e->rec_len = n;
    e->rec_off = m->nrecs;
    return n ? rt_memo_keep_errors(m, r, n) : 0;
}
void           rt_memo_reset(rt_memo *m);
void           rt_memo_free(rt_memo *m);
int            rt_memo_seen_prepare(rt_memo *m, uint32_t base, size_t bits);
void           rt_memo_seen_clear(rt_memo *m, uint32_t lo, uint32_t hi, size_t nd);
/* Keeps the entries for which keep returns non-zero (called on the entry in
 * place, which it may change and move; k is the entry's index, to_k its index
 * once kept), with their expectation sets and recovered errors; the rest are
 * dropped, and the slots are made again. -1 when out of memory (the table is
 * then empty). For documents (runtime/document.c). */
int            rt_memo_filter(rt_memo *m, int (*keep)(rt_memo_entry *e, uint32_t k, uint32_t to_k, void *ctx),
                              void *ctx);

/* ---- positions (runtime/input.c) ---- */
typedef struct {
    const char *input;
    uint32_t    len;
    pego_unit   unit;
    int         ascii;          /* the input held is ASCII, units and bytes agree: 1; 0: not;
                                   -1: not known yet (rt_input_ascii finds out) */
    /* Code points (lazy): the index of the character each byte begins or
     * continues, as the index at the start of its block of 256 bytes
     * (unit_base) plus the byte's offset from it (unit_off; len + 1 of them). */
    uint32_t   *unit_base;
    uint8_t    *unit_off;
    uint32_t   *line_starts;    /* byte offsets where lines start (lazy) */
    uint32_t    nlines;
    /* A stream parse holds only the input from base on (input + base is its
     * first byte held); before it, the released input: its length in units,
     * its lines (the line of base is base_line + 1) and where in units the
     * line of base starts. The tables above describe the input held. 0 for
     * other parses. */
    uint32_t    base, base_line;
    uint64_t    base_units, line_units;
} rt_input;

int      rt_input_ascii(rt_input *in);               /* in->ascii, found out the first time */
uint64_t rt_input_unit(rt_input *in, uint32_t byte);   /* offset in the parse's unit */
int      rt_input_prepare_units(rt_input *in);         /* the tables of rt_input_unit_at; -1: no memory */

/* Offset byte in code points, with the tables made (rt_input_prepare_units):
 * the index of the character that byte begins or continues. */
static inline uint64_t rt_input_unit_at(const rt_input *in, uint32_t byte)
{
    uint32_t b = byte - in->base;
    return in->base_units + in->unit_base[b >> 8] + in->unit_off[b];
}
void     rt_input_line_col(rt_input *in, uint32_t byte, int *line, int *col);
void     rt_input_reset(rt_input *in, const char *s, uint32_t len, pego_unit unit);
/* A stream parse's input: the bytes [in->base, len) at s + in->base, after a
 * change of what is held (base and the released input's figures set). */
void     rt_input_window(rt_input *in, const char *s, uint32_t len);
/* A stream parse releases the input before byte (a character's start within
 * the input held): base moves to it, and the released input's figures grow
 * by what was released, counted on its bytes alone. */
void     rt_input_release(rt_input *in, uint32_t byte);
void     rt_input_free(rt_input *in);

struct pego_result {
    pego_status status;
    int         too_deep;          /* PEGO_ABORTED by the nesting limit */
    uint32_t    value;             /* root value */
    int         has_value;
    pego_stats  stats;
    char       *error;             /* full error text: allocated, or abort_text */
    char        abort_text[256];   /* the message of a parse stopped otherwise than by a syntax
                                      error, kept here to need no memory when memory runs out */
    const char *error_message;     /* into error, after "line:col: " */
    uint32_t    error_pos;         /* byte offset */
    int         error_line, error_col;
    const char **expected;         /* sorted printed items */
    size_t      nexpected;
    uint32_t    nrecovered;        /* errors recovered by a successful parse */
    pego_parser *parser;
    /* After a match found by the fast program, the statistics are those of the
     * reference program, counted by a second parse when first asked for. */
    int          stats_pending;
    pego_options stats_opt;
};

/* ---- stream parses (runtime/stream.c, vm/stream.c; docs/language.md 7.1) ---- */
typedef struct {
    pego_read_fn    read;    void *read_ctx;
    pego_element_fn element; void *element_ctx;
    int       on;               /* a stream parse is running: vm_run runs the stream loop */
    char     *buf; size_t cap;  /* the input held: buf[0] is position in.base */
    uint32_t  end;              /* the end of the input read (in.len stops before an incomplete
                                   UTF-8 character at the end until the reader has ended) */
    uint32_t  keep;             /* the next read releases the input before keep */
    int       eof;              /* the reader has ended (or failed) */
    uint32_t  rule;             /* the start rule */
    int       restart;          /* the run saw the end of the input held before any element:
                                   it runs again with more input */
    long      error;            /* what the failing callback returned */
    /* the state the element being parsed began with, restored to parse it
     * again with more input */
    uint32_t  from, hw;         /* from: where it began */
    uint32_t  exp_far, exp_base, exp_n;
    int       exp_kept;                  /* exp_items holds the record of exp_far, exp_base, exp_n */
    uint32_t *exp_items; uint32_t cap_exp_items;
    uint32_t  nodes, kids, fields, refs, nrec;
    size_t    strings;
    /* the state when the repetition ended (after): what follows runs again
     * from it with more input until the end of the run (done) is final */
    int         after, done;
    struct { const vm_ins *ip; uint32_t pos, esn, vsn, tn, list_base, depth, nrec; } at;
    vm_entry   *es;    uint32_t cap_es;
    uint32_t   *vmarks; uint32_t cap_vmarks;
    uint32_t   *vs;    uint32_t cap_vs;
    vm_capture *trail; uint32_t cap_trail;
    vm_var     *vars;  uint32_t nvars, cap_vars;
    vm_gframe  *gf;    uint32_t ngf, cap_gf;
    /* the elements the fast program parses (vm/stream.c): whether it may
     * (fast: 1 may, 0 may not, -1 not decided yet), the rule the repetition
     * calls, how many bytes past its reach a test may examine (margin), the
     * parsers they run on and the read whose input each has, and the reads
     * so far */
    int                 fast;
    uint32_t            fast_rule, margin;
    struct pego_parser *runner[2];
    uint64_t            runner_read[2];
    int                 fruitless;     /* runs in a row that handed nothing over */
    uint32_t            resume_at;     /* after them: runs wait for the input held to end here */
    uint64_t            reads;
    /* figures (tests): elements handed over, the most input held (bytes), the
     * most memo entries and tree nodes at once, the elements the fast program
     * parsed */
    uint64_t  elements, fast_elements;
    size_t    peak_held;
    uint32_t  peak_memo, peak_nodes;
} rt_stream;

/* Reads more input (all of it when all is set), first releasing the input
 * before keep: 0, or -1 when the reader failed or memory ran out (the status
 * and error are set). */
int rt_stream_read(pego_parser *p, int all);

typedef struct rt_profiler_state rt_profiler_state;

/* The samples of a sampled parse (runtime/sampler.c: its signal handler writes
 * them): per rule, the samples that found it innermost (self) and on the stack
 * (inclusive); per instruction, the samples that found it running; the stacks,
 * each its length, the instruction running (address + 1, 0: not known), its
 * weight (the samples that found the same stack add to one), its number of
 * native frames, then its rules from the outermost, recursion folded, then
 * its native frames (with native: the code addresses the thread was at below
 * the VM's loop, from the function the loop called to the one the signal
 * interrupted, each in two words, low first); samples
 * taken, lost (the stack was moving or held no call) and left out of the
 * stacks (no room, or deeper than the handler keeps). */
typedef struct {
    uint32_t  nrules, ncode;
    int       native;                 /* --profile-native: samples keep their native frames */
    uint64_t *self, *incl, *stamp;
    uint64_t *at_pc;
    int32_t  *at;                     /* scratch: a rule's place on the path being folded */
    uint32_t *paths; uint32_t npaths, cap_paths;
    /* the stacks kept, by hash (rt_sampler_take adds a sample to the one it
     * repeats): a slot is the generation it was written in, then its
     * stack's place in paths + 1; a new generation empties them all */
    uint64_t *index; uint32_t generation;
    uint64_t  taken, lost, unplaced;
} rt_samples;
/* Forgets the stacks kept in sm (after they were added to a report). */
void rt_sampler_clear_paths(rt_samples *sm);

/* A claim of a failed fast run (vm/decide.c): the reference program's
 * repetition ref_rep that begins at from matched count iterations, up to to,
 * recording nothing past to + over. */
typedef struct {
    uint32_t ref_rep, from, to, count, over;
} rt_claim;
/* The control-stack entries whose claims the deciding run reads: the
 * outermost repetitions, where skipping iterations saves most. */
#define VM_CLAIM_SLOTS 64u

/* The state of a deciding run (vm/decide.c). */
typedef struct {
    uint32_t bound;       /* no probe stands for a call reaching this position */
    uint32_t claim_bound; /* no claim stands for iterations reaching this position */
    uint32_t claimed;     /* claims that stood for iterations */
    uint32_t skipped;     /* 1 + the farthest reach of the probes that stood for calls
                             outside lookaheads (0: none) */
    uint64_t waste;       /* input bytes the probes that did not stand for calls ran over */
    uint64_t budget;      /* past this much waste, calls are made */
    int      probing;
} rt_decider;

struct pego_parser {
    const pego_grammar *g;
    /* stacks, reused across parses */
    vm_entry   *es;    uint32_t capes;
    uint32_t   *vs;    uint32_t capvs;
    vm_capture *trail; uint32_t captrail;
    vm_gframe  *gf;    uint32_t ngf, capgf;
    rt_expect   exp;
    rt_memo     memo;
    rt_tree     tree;
    rt_input    in;
    uint32_t    silent;
    uint32_t    hw;             /* high-water mark: end of the input examined so far */
    uint32_t    max_depth;
    int         noplain;
    int         fast;           /* this run executes the fast program */
    int         internal;       /* counts statistics for another parser: never profiled */
    int         defer;          /* the default memo policy's first calls may take the plain path */
    pego_memo_policy policy;
    struct pego_result res;
    /* tracing (runtime/trace.c) */
    struct { pego_trace_fn fn; void *ud; } sinks[PEGO_MAX_TRACE_SINKS];
    int         ntrace;
    int         observing;          /* ntrace || prof_on: calls take the observed path */
    int         prof_on;            /* this parse is profiled */
    int         memory;             /* it counts memory (--profile-memory): the tree is noted
                                       at every call and return (rt_memory_check) */
    uint32_t    observed_call;      /* the call being observed: its return address (the call
                                       instruction's + 1; 0: the start rule), for the profiler's lines */
    struct rt_profiler_state *prof;
    const char **trace_items; uint32_t cap_trace_items;
    uint32_t   *scratch; uint32_t capscratch;
    vm_pframe  *pf;    uint32_t npf, cappf;
    rt_recovered *rec; uint32_t nrec, caprec;  /* errors recovered so far (undone on backtracking) */
    uint32_t   *held;  uint32_t nheld, capheld; /* failures held while a #recover skip runs */
    rt_buf      strings;                        /* texts of recovered errors and actions' strings (reset per parse) */
    /* the action machine's stacks (vm/action.c) */
    struct vm_aval *avals; uint32_t capavals;
    struct vm_aiter *aiters; uint32_t capaiters;
    uint32_t   *akids; uint32_t capakids;
    /* variables (docs/language.md 5.2, vm/vars.c): the definitions in force;
     * beside each control-stack entry, the number of definitions it restores
     * (vmarks, as long as es); the environments of memo keys (5.3), each the
     * values of a rule's variables at a call, interned for the parse */
    vm_var     *vars;  uint32_t nvars, capvars;
    uint32_t   *vmarks; uint32_t capvmarks;
    struct vm_aval *env_vals; uint32_t nenv_vals, capenv_vals;
    uint32_t   *env_first; uint32_t nenvs, capenvs;     /* env id - 1: its first value in env_vals */
    uint32_t   *env_slots; uint32_t nenv_slots;         /* hash index of the environments: id, 0 empty */
    /* counting with the profiled program (docs/architecture.md, The profiled program) */
    int         counting;       /* this run executes the profiled program */
    int         gave_up;        /* the fast program's run gave the parse up to the reference
                                   program: a #recover recovered an error (vm/loop.h) */
    int         fast_gave_up;   /* the last parse's first run, the fast program's, gave up */
    /* the fast program's run: the #recover skips that recovered and that no
     * failure has undone since (vm/loop.h, SKIPEND): where the first ended
     * (0: none), and a position at or past where the last ended */
    uint32_t    kept_skip_first, kept_skip_last;
    int         counted;        /* the last parse's counts are complete (rt_parse_counts) */
    vm_count   *counts;         /* per rule variant (2 * nrules) */
    uint64_t   *site_runs;      /* per counting site (PCOUNT) */
    vm_chain_count *chain_counts;  /* per chain of calls compiled in (PIN, POUT) */
    vm_count   *rule_counts;    /* per rule, folded from the three above after a counted parse */
    uint32_t    inline_start[CC_INLINE_LEVELS];  /* where the calls compiled in began */
    /* What the sampler's signal handler reads (runtime/sampler.c): the
     * innermost call frame (its index in es + 1, 0: none; frames link to their
     * callers), whether es is being moved, and the instruction of the
     * profiled program running (NULL: none), which tells the calls compiled
     * in that are running there (grammar.inline_at) and whose source position
     * is the sample's line. */
    volatile uint32_t sample_top;
    const vm_ins *volatile sample_ip;
    volatile int      es_moving;
    /* where a repetition last began an iteration, for pego_parser_progress;
     * written and read with relaxed atomics, as another thread may read it */
    uint32_t          progress;
    int         sampled;        /* this parse is sampled: frames keep sample_top */
    rt_samples  samples;
    /* deciding a syntax error (vm/decide.c): the parser the probes run on, and
     * the probe's start, cap and end (on that parser) */
    struct pego_parser *prober;
    uint32_t    start_pos, probe_cap, probe_end;
    rt_decider  decider;
    rt_claim    claims[VM_CLAIM_SLOTS];
    uint32_t    nclaims;
    int         claims_armed;   /* the fast run that just ran began with vm_claims_arm */
    int         decided;        /* the last parse's error was decided by the deciding run's
                                   first (1) or second (2) run; 0: not by it */
    rt_stream   stream;
    struct pego_document *doc;  /* the document this parser parses (runtime/document.c), or NULL */
};

/* A document's parse hit an entry of its previous parse (MEMO_CARRIED): copies
 * the entry's value into this parse's tree, moved by the edits since. -1 when
 * out of memory. */
int rt_document_carry(pego_parser *p, rt_memo_entry *m);

int  vm_run(pego_parser *p, uint32_t start_variant);    /* returns a pego_status */
/* Runs the deciding run (vm/decide.c) for a parse the fast program did not
 * match, with the given bound; fresh: the probes' memo table starts empty.
 * *exact says whether its result is the reference program's. */
int  vm_decide(pego_parser *p, uint32_t start_variant, uint32_t bound, int fresh, int *exact);
/* Before a fast run that the deciding run may follow: the control stack's
 * first entries hold no repetition, so that those the run leaves are its own
 * (the claims the deciding run reads). */
void vm_claims_arm(pego_parser *p);
/* vm_run and the loops it runs (vm/vm.c): a sample's native frames are those
 * below the innermost of them. */
enum { VM_NLOOPS = 12 };
extern int (*const vm_loops[VM_NLOOPS])(pego_parser *p, uint32_t start_variant);

/* Observation points of the general call path (runtime/trace.c): they feed the
 * runtime profiler and the trace sinks; each returns non-zero when a sink aborts. */
int rt_trace_observe_enter(pego_parser *p, uint32_t variant, uint32_t pos, uint32_t depth, uint32_t level);
int rt_trace_observe_hit(pego_parser *p, uint32_t variant, uint32_t pos, uint32_t depth, uint32_t level,
                   const rt_memo_entry *m);
int rt_trace_observe_exit(pego_parser *p, vm_gframe *gf, int ok, uint32_t end, uint32_t examined);

/* The runtime profiler (runtime/profiler.c). */
void rt_profiler_init(void);
int  rt_profiler_parse_begin(pego_parser *p);
void rt_profiler_parse_end(pego_parser *p, const char *input, uint64_t bytes);
void rt_profiler_parser_free(pego_parser *p);
int  rt_profiler_sampled(const pego_parser *p);   /* the profiled parse is sampled (sampled mode) */
void rt_profiler_enter(pego_parser *p, uint32_t variant, uint32_t pos);
void rt_profiler_exit(pego_parser *p, int ok, uint32_t end, uint32_t examined, uint64_t evals, int memo);
/* A stream parse released the input before base: exact mode forgets the
 * positions it counts repeats at before it. */
void rt_profiler_input_released(pego_parser *p, uint32_t base);
/* Exact mode: how many (rule, position) pairs p's parse holds to count repeats. */
uint32_t rt_profiler_repeat_positions(const pego_parser *p);
/* --profile-memory: gives the nodes built since the last note to the rule
 * running (its stack, in sampled mode); called before every change of the
 * rule running, through rt_memory_check. */
void rt_profiler_note_memory(pego_parser *p);
static inline void rt_memory_check(pego_parser *p)
{
    if (p->tree.nnodes != p->tree.noted_nodes || p->tree.nfields != p->tree.noted_fields) rt_profiler_note_memory(p);
}
/* runtime/collector.c: a sink that is a collector closes the calls an aborted
 * parse left (runtime/trace.c calls it for every sink) */
void rt_collector_parse_aborted(pego_trace_fn fn, void *userdata, uint64_t parse_evals, uint64_t examined);
void rt_trace_parse_aborted(pego_parser *p);
/* A stream parse's marks for the sinks (PEGO_TRACE_MARK, PEGO_TRACE_AGAIN at
 * byte offset pos; depth 0: the parse starts again); non-zero: a sink stopped
 * the parse. */
int rt_trace_stream_point(pego_parser *p, pego_trace_kind kind, uint32_t pos, uint32_t depth);
/* A stream parse released its input before position before (in the parse's
 * unit): a collector among the sinks forgets the positions it counted
 * evaluations at before it, so that its memory stays bounded. */
void rt_trace_input_released(pego_parser *p, uint64_t before);
void rt_collector_input_released(pego_trace_fn fn, void *userdata, uint64_t before);
/* The positions a collector counts evaluations at now (tests). */
size_t rt_collector_positions(const pego_collector *c);
void rt_profiler_write_now(void);                 /* writes the report, warning when it cannot */

/* runtime/flusher.c: writes the report on fatal signals and at --profile-flush intervals */
void rt_flusher_start(uint64_t interval_ns);      /* once collecting starts */
void rt_flusher_check(void);                      /* at a parse: a forked child starts its own */
void rt_flusher_after_fork_in_child(void);

/* The sampler (runtime/sampler.c): rt_sampler_prepare makes room for a parse's
 * samples, for a grammar of nrules rules and ncode instructions, with their
 * native frames when native (--profile-native; -1: out of memory);
 * rt_sampler_begin arms the calling thread's timer for a parse by p
 * (-1: no timer; RT_SAMPLER_NO_SIGNAL: SIGPROF and every real-time signal have
 * handlers of the program's; RT_SAMPLER_REPLACED: the program replaced the
 * sampler's handler after it was installed), rt_sampler_end disarms it. */
enum { RT_SAMPLER_NO_SIGNAL = -2, RT_SAMPLER_REPLACED = -3 };
int  rt_sampler_prepare(rt_samples *sm, uint32_t nrules, uint32_t ncode, int native);
void rt_sampler_free(rt_samples *sm);
int  rt_sampler_begin(pego_parser *p, uint64_t interval_ns, int cpu);
void rt_sampler_end(pego_parser *p);
/* The most a timer of this process was slowed, as a multiple of the interval
 * asked for: 1 when none was (runtime/sampler.c, slow_down). */
uint32_t rt_sampler_slowest(void);
/* Takes a sample of weight for what p runs now into sm, as the signal
 * handler does (also, outside any handler and with no context, for
 * --profile-memory's bytes); spans: whether punctuation's byte spans count
 * as running (time, not memory); context: the signal's, for the native
 * frames below the VM. Returns the innermost rule, or -1 when it found none
 * (counted lost). */
int64_t rt_sampler_take(pego_parser *p, rt_samples *sm, uint32_t weight, int spans, void *context);
/* The rule running innermost, as rt_sampler_take finds it, or -1. */
int64_t rt_sampler_innermost(const pego_parser *p);

/* Syntax errors (runtime/expect.c): the error of a failed parse from the
 * outer expectation record, and "line:col: message" for a failure at far. */
int  rt_expect_syntax_error(pego_parser *p);
void rt_expect_format_failure(pego_parser *p, rt_buf *b, uint32_t far, uint32_t *ids, uint32_t n);

/* Counting with the profiled program (runtime/parse.c): after a matching parse
 * counted so (pego_options.count_stats, or sampled profiling), rt_parse_counts
 * gives the figures of every rule, indexed by rule (NULL: the last parse was
 * not counted so); the next parse reuses them. */
const vm_count *rt_parse_counts(const pego_parser *p);

/* Results (runtime/parse.c): clearing one, and ending a parse with a message. */
void rt_parse_clear_result(pego_parser *p);
/* A run of the reference program that nobody observes or counts (stream
 * parses, documents), with memo policy policy and nesting limit max_depth
 * (0: the default). */
void rt_parse_unobserved_reference(pego_parser *p, pego_memo_policy policy, uint32_t max_depth);
int  rt_parse_abort(pego_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
