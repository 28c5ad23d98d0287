/* Report files, format version 1 (docs/report-format.md): the records of one
 * report, shared by the writer of libpego (report_writer.h), which the runtime
 * profiler fills at the end of a process, and the reader of `pego report`
 * (cli/report/reader.h), which decodes them back into the same structs. Only
 * types, constants and the source hash: nothing here needs a library.
 *
 * A frame holds, in this order: one header record, then grammar records, each
 * before any record that refers to it, then parse, rule, edge and stack records
 * in any order, and a footer that the writer adds. Rule ids are the grammar's
 * rule numbers (its rules list); grammar ids are chosen by the writer, unique
 * within one frame. */
#ifndef PEGO_REP_REPORT_H
#define PEGO_REP_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define REP_FORMAT_NAME    "pego-profile"
#define REP_FORMAT_VERSION 1
#define REP_NO_RULE        UINT32_MAX   /* a parse without a top rule (no call took time) */
#define REP_SOURCE_MAX     (256u * 1024) /* the longest grammar source a grammar record carries */

/* The first record: who wrote the report, and how it was measured. */
typedef struct rep_header {
    int                version;     /* format version: REP_FORMAT_VERSION when writing */
    const char        *pego;        /* pego version that wrote it */
    int64_t            pid;
    const char        *host;
    int                argc;
    const char *const *argv;
    int64_t            start;       /* process start, Unix seconds; written as ISO 8601 UTC */
    const char        *clock;       /* "monotonic", "tsc" or "thread-cpu" */
    const char        *mode;        /* "exact": the clock is read at every frame transfer;
                                       "sampled": rules' times are samples times the interval */
    int                detail;      /* repeats and wasted were collected: rule records have them */
    uint64_t           clock_reads; /* clock readings of the whole process (0 when unknown) */
    uint64_t           sample_interval_ns;   /* sampled: the interval between samples */
    uint64_t           samples;     /* sampled: samples taken during parses */
    uint64_t           samples_lost;/* sampled: of those, not attributed to a rule or a stack */
    int                memory;      /* --profile-memory: rule, parse and stack records have the
                                       memory counts */
    uint64_t           sample_interval_max_ns;  /* sampled: the longest interval a timer was slowed
                                       to (runtime/sampler.c); written when longer than the
                                       interval asked for */
} rep_header;

/* One rule of a grammar: its id is its index in the grammar's rules list. */
typedef struct rep_rule_info {
    const char *name;
    uint32_t    line, col;          /* position of its definition, 1-based */
} rep_rule_info;

typedef struct rep_grammar {
    uint32_t             id;
    const char          *name;
    const char          *file;      /* path of the grammar file, "" if compiled from memory */
    uint64_t             hash;      /* rep_hash() of the grammar source */
    size_t               nrules;
    const rep_rule_info *rules;
    const char          *source;    /* the grammar source, NULL when not carried (longer than
                                       REP_SOURCE_MAX, or an older writer) */
    size_t               source_len;
} rep_grammar;

typedef enum { REP_UNIT_BYTES, REP_UNIT_CODEPOINTS } rep_unit;
typedef enum { REP_RESULT_OK, REP_RESULT_SYNTAX_ERROR, REP_RESULT_ABORTED, REP_RESULT_NESTING_LIMIT } rep_result;
/* What was parsed: a text given whole (pego_parse), a stream, a document. */
typedef enum { REP_SOURCE_TEXT, REP_SOURCE_STREAM, REP_SOURCE_DOCUMENT } rep_source;

/* One parse. */
typedef struct rep_parse {
    uint64_t    id;                 /* 1, 2, ... within the frame */
    uint32_t    grammar;
    const char *input;              /* file name, or a description such as "-i" or "<stdin>" */
    uint64_t    bytes;              /* input size in bytes */
    rep_unit    unit;               /* position unit of the parse */
    rep_result  result;
    rep_source  source;
    uint64_t    time_ns, calls, evals, memo, clock_reads;
    uint32_t    top_rule;           /* the rule with the most self time, or REP_NO_RULE */
    /* --profile-memory: the bytes of the tree nodes built and of the memo
     * entries stored (the sums of the rules'), and the most the node arena,
     * the memo table and the control stack held during the parse */
    uint64_t    node_bytes, memo_bytes, peak_node_bytes, peak_memo_bytes, peak_stack_bytes;
} rep_parse;

/* A rule's totals over every parse of the process (docs/report-format.md, rule). */
typedef struct rep_rule {
    uint32_t grammar, rule;
    uint64_t calls, evals, memo, matched, failed;
    uint64_t repeats;               /* evaluations at a (position, level) evaluated before */
    uint64_t max_repeats;           /* the most repeats at one (position, level) in one parse */
    uint64_t max_repeats_pos;       /* where, as a position in the parse's unit */
    uint64_t consumed, wasted;      /* positions matched; positions examined by failed evaluations */
    uint64_t time_ns, self_ns;      /* inclusive (outermost activation only) and self time */
    uint64_t samples;               /* sampled mode: the samples that found the rule innermost */
    uint64_t nodes, node_bytes;     /* --profile-memory: tree nodes built while the rule was innermost */
    uint64_t memo_entries, memo_bytes;   /* --profile-memory: memo entries stored for the rule */
} rep_rule;

/* The counts of a rule record, in the order they are written: the field, and
 * which reports have it: every one (REP_ALL), those with detail
 * (--profile-detail; a report without detail leaves the field out), those
 * of sampled mode, or those written with --profile-memory. The writer (runtime/report_writer.c) and the reader
 * (cli/report/reader.c) both derive from this list. */
enum { REP_ALL, REP_DETAIL, REP_SAMPLED, REP_MEMORY };
#define REP_RULE_COUNTS(X) \
    X(calls, REP_ALL) X(evals, REP_ALL) X(memo, REP_ALL) X(matched, REP_ALL) X(failed, REP_ALL) \
    X(repeats, REP_DETAIL) X(max_repeats, REP_DETAIL) X(max_repeats_pos, REP_DETAIL) X(consumed, REP_ALL) \
    X(wasted, REP_DETAIL) X(time_ns, REP_ALL) X(self_ns, REP_ALL) X(samples, REP_SAMPLED) \
    X(nodes, REP_MEMORY) X(node_bytes, REP_MEMORY) X(memo_entries, REP_MEMORY) X(memo_bytes, REP_MEMORY)

/* A call-graph edge: calls of callee made directly by caller. */
typedef struct rep_edge {
    uint32_t grammar, caller, callee;
    uint64_t calls, time_ns;        /* time_ns: inclusive time of those calls */
} rep_edge;

/* A calling-context tree node: the rule path from the start rule (recursion
 * folded by the profiler), with the calls and self time at exactly that path. */
typedef struct rep_stack {
    uint32_t        grammar;
    size_t          nframes;        /* at least 1 */
    const uint32_t *frames;
    uint64_t        calls, self_ns;
    uint32_t        line, col;      /* sampled: the source position the self time was at (0: any) */
    size_t             nnative;     /* sampled with --profile-native: the native frames the self */
    const char *const *native;      /* time was in below the VM, from the function it called, as
                                       "function (object)"; 0: none (the VM's own time) */
    uint64_t        node_bytes;     /* --profile-memory: bytes of the nodes built at exactly that path */
} rep_stack;

/* Where the samples (sampled mode) or the self time (exact mode) of a grammar
 * fell: the source position of the instruction running, over every rule. */
typedef struct rep_line {
    uint32_t grammar;
    uint32_t line, col;             /* 1-based */
    uint64_t samples, self_ns;
} rep_line;

/* A native call stack of the program at the start of profiled parses
 * (--profile-native): its frames, innermost first, as "function
 * (object+0xOFFSET)", and the parses made from it with their total time. */
typedef struct rep_caller {
    size_t             nframes;     /* at least 1 */
    const char *const *frames;
    uint64_t           parses, time_ns;
} rep_caller;

/* FNV-1a, 64 bits: the grammar source hash of grammar records. Inline, so
 * that pego report (which sees only libpego's pego_ names) has it too. */
static inline uint64_t rep_hash(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

#endif
