/* The merged view of any number of reports, and the outputs drawn from it.
 *
 * merge.c builds a rep_summary from reader records: grammars are merged by
 * (name, source hash), rules by (grammar, rule name), call-graph edges by
 * (caller, callee), calling-context nodes by their rule path; parse records are
 * summed, and only the slowest are kept (all of them on request). A frame's
 * records are staged and merged only when the frame turns out whole. Every
 * sum of counts saturates at REP_COUNT_MAX (rep_sum).
 * tables.c prints the tables and hints, flame.c the folded stacks, the SVG
 * flame graph and the speedscope file, diff.c the comparison of two summaries;
 * the tables are lists of columns (columns.h).
 * Part of the pego command (pego report), not of libpego. */
#ifndef PEGO_REP_SUMMARY_H
#define PEGO_REP_SUMMARY_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "reader.h"
#include "../../runtime/report.h"

#define REP_NONE UINT32_MAX
#define REP_UNSET UINT64_MAX   /* a detail-only metric that no report merged into it collected */

/* The per-rule metrics (docs/report-format.md, rule). The detail-only ones
 * (repeats, max_repeats, max_repeats_pos, wasted) come only from frames whose
 * header says detail, and are REP_UNSET when none of those had the rule; the
 * memory ones (nodes, node_bytes, memo_entries, memo_bytes) likewise from
 * frames whose header says memory, and samples from sampled frames: the
 * samples its self time rests on, of which exact frames' time has none. */
typedef struct rep_counts {
    uint64_t calls, evals, memo, matched, failed, repeats, max_repeats, max_repeats_pos;
    uint64_t consumed, wasted, time_ns, self_ns, samples;
    uint64_t nodes, node_bytes, memo_entries, memo_bytes;
} rep_counts;

typedef struct rep_sgrammar {
    const char *name, *file;
    uint64_t    hash;
    char       *label;     /* name, or name@HASH8 when several sources share the name */
    uint64_t    parses, bytes;
    uint64_t    detail_bytes;   /* bytes parsed in frames with detail: what wasted compares with */
    int         used;      /* seen in a whole frame */
    char       *source;    /* the grammar source, from the first report that carried it; NULL: none did */
    size_t      source_len;
} rep_sgrammar;

typedef struct rep_srule {
    uint32_t    grammar;
    const char *name;
    char       *label;     /* "grammar:rule" */
    uint32_t    line;      /* where the rule is defined, 1-based; 0 when no report said */
    rep_counts  c;
    uint64_t    detail_failed;   /* failed calls in frames with detail: the calls wasted counts */
    int         used;
} rep_srule;

typedef struct rep_sedge {
    uint32_t caller, callee;
    uint64_t calls, time_ns;
} rep_sedge;

/* A calling-context tree node; children are linked in label order by finish. */
typedef struct rep_snode {
    uint32_t rule, parent, child, sibling;
    uint64_t calls, self_ns;
    uint64_t node_bytes;      /* --profile-memory: bytes of the nodes built at this path */
} rep_snode;

/* The samples and self time at one source position of a grammar (line records). */
typedef struct rep_sline {
    uint32_t grammar, line, col;
    uint64_t samples, self_ns;
} rep_sline;

/* The self time of a tree node that sampled reports placed at a grammar line
 * or in native frames below the VM (stack records with a line, with native
 * frames): the frames "rule:LINE" of --with-lines, and the native frames of
 * --with-native below them. */
typedef struct rep_snode_leaf {
    uint32_t    node, line;      /* line 0: none */
    const char *native;          /* interned: the native frames joined by newlines, from the
                                    function the VM called; NULL: none */
    uint64_t    self_ns;
    uint32_t    next;            /* while merging: the next leaf of the same node and line */
} rep_snode_leaf;

/* A native call stack of the measured programs (caller records, merged by
 * their frames): frames joined by newlines, innermost first. */
typedef struct rep_scaller {
    char    *frames;
    uint64_t parses, time_ns;
} rep_scaller;

typedef struct rep_sparse {
    char      *input;
    uint32_t   grammar, top_rule;   /* top_rule: a rule index or REP_NONE */
    uint64_t   bytes, time_ns, calls, evals, memo, clock_reads, seq;
    rep_unit   unit;
    rep_result result;
    rep_source source;
    /* --profile-memory (REP_UNSET without): as in rep_parse */
    uint64_t   node_bytes, memo_bytes, peak_node_bytes, peak_memo_bytes, peak_stack_bytes;
} rep_sparse;

typedef struct rep_summary_options {
    const char *grammar;      /* only grammars of this name (or label name@HASH8); NULL: all */
    size_t      parse_limit;  /* the slowest parses kept; 0: every parse */
    int         by_input;     /* also keep the tree's and the rules' counts per input (rep_sinput) */
    int         with_lines;   /* finish adds a node "rule:LINE" below each node for its node_leaves */
    int         with_native;  /* finish adds the native frames of node_leaves below those */
} rep_summary_options;

/* With by_input: the calls and self time that the frames whose parses of a
 * grammar all read one input gave a path of the tree (node), or a rule's
 * totals (rule; node is REP_NONE then). Frames of several inputs give none:
 * their counts are of the process, not of a parse. */
typedef struct rep_sinput {
    const char *input;        /* interned: one pointer per name */
    uint32_t    node, rule;
    uint64_t    calls, self_ns;
} rep_sinput;

typedef struct rep_merge rep_merge;

/* How many processes were measured one way (a clock, a mode). */
typedef struct rep_kind {
    const char *name;
    uint64_t    processes;
} rep_kind;

typedef struct rep_summary {
    rep_summary_options opt;
    uint64_t      processes, parses, calls, evals, memo, clock_reads, time_ns;
    uint64_t      detail_processes;   /* processes whose reports have the detail-only metrics */
    uint64_t      memory_processes;   /* processes whose reports have the memory metrics */
    /* of those: node and memo bytes of every parse, and the most any parse held */
    uint64_t      node_bytes, memo_bytes, peak_node_bytes, peak_memo_bytes, peak_stack_bytes;
    rep_counts    missing;        /* after finish: the counts of a rule no process called (0,
                                     or REP_UNSET for a metric no process collected) */
    uint64_t      sampled_processes;      /* processes whose reports are sampled (a sample interval) */
    uint64_t      samples, samples_lost;  /* sampled processes: samples taken, and not attributed */
    uint64_t      sample_interval_ns;     /* their interval; UINT64_MAX when they differ, 0: none */
    uint64_t      sample_interval_max_ns; /* the longest interval a timer was slowed to, when one was */
    int64_t       start;          /* the earliest process start, Unix seconds; 0 when no header said */
    rep_kind     *clocks, *modes;     /* the processes of each clock and mode; after finish, most first */
    size_t        nclocks, nmodes;
    rep_sgrammar *grammars;
    size_t        ngrammars;
    rep_srule    *rules;
    size_t        nrules;
    rep_sedge    *edges;
    size_t        nedges;
    rep_snode    *nodes;
    size_t        nnodes;
    uint32_t      root;           /* first root node (linked by sibling), or REP_NONE */
    rep_sline    *lines;          /* after finish: by grammar, line, column */
    size_t        nlines;
    rep_snode_leaf *node_leaves;  /* after finish: by node, then line, then native frames */
    size_t        nnode_leaves;
    rep_sinput   *by_input;       /* with opt.by_input; after finish, by input name, rules before nodes */
    size_t        nby_input;
    rep_scaller  *callers;        /* caller records (--profile-native), in the order first seen */
    size_t        ncallers;
    rep_sparse   *top;            /* after finish: slowest first */
    size_t        ntop;
    int           shared_names;   /* some grammar name has several sources */
    rep_merge    *m;
} rep_summary;

/* a + b saturating at REP_COUNT_MAX: every sum of counts (docs/report-format.md, Counts). */
uint64_t     rep_sum(uint64_t a, uint64_t b);

/* NULL when out of memory. */
rep_summary *rep_summary_new(const rep_summary_options *opt);
void         rep_summary_free(rep_summary *s);
/* Fills the sink's ud, frame_begin, record and frame_end; message is the caller's. */
void         rep_summary_sink(rep_summary *s, rep_reader_sink *sink);
/* After reading: labels, parse order, tree links. 0, or -1 when out of memory. */
int          rep_summary_finish(rep_summary *s);

/* ---- tables (tables.c) ---- */

typedef enum {
    REP_BY_SELF, REP_BY_TIME, REP_BY_CALLS, REP_BY_EVALS, REP_BY_MEMO, REP_BY_FAILED,
    REP_BY_REPEATS, REP_BY_CONSUMED, REP_BY_WASTED, REP_BY_NODE_BYTES, REP_BY_MEMO_BYTES, REP_BY_NAME
} rep_by;

typedef enum { REP_FORMAT_TEXT, REP_FORMAT_JSON, REP_FORMAT_CSV, REP_FORMAT_MARKDOWN } rep_format;

typedef struct rep_table_options {
    rep_by      by;
    size_t      rows;         /* rows of the rules table; 0: all */
    size_t      parse_rows;   /* rows of the parses table; 0: all */
    double      min_self;     /* hide rules below this share of self time, in percent */
    const char *rule;         /* show this rule's callers and callees */
    int         all_parses;   /* --parses: the parses table in full (csv: it instead of rules) */
    rep_format  format;
} rep_table_options;

/* Parses a --by name; -1 if unknown. */
int  rep_by_parse(const char *name);
/* The name of a metric, as --by and --fail spell it. */
const char *rep_by_name(rep_by by);
/* Whether the metric is detail-only (repeats, wasted: collected only with --profile-detail). */
int  rep_by_detail(rep_by by);
/* Whether the metric is a memory one (node-bytes, memo-bytes: only with --profile-memory). */
int  rep_by_memory(rep_by by);
/* The metric a rule is sorted by; REP_UNSET for a detail-only one not collected. */
uint64_t rep_metric(const rep_counts *c, rep_by by);
/* "clock monotonic; mode exact; detail on": how the reports read were
 * measured, saying so when they differ; "" when no process was read. Any
 * fits in REP_MEASURED_MAX bytes. */
#define REP_MEASURED_MAX 1024
void rep_measured_text(const rep_summary *s, char *text, size_t len);
/* The same as a JSON object; NULL when out of memory. */
json_t *rep_measured_json(const rep_summary *s);
/* Rule indices of the used rules, sorted by the metric (ties by label); n set. */
uint32_t *rep_sorted_rules(const rep_summary *s, rep_by by, size_t *n);
/* Prints the tables; returns 0, or -1 with a message in err (e.g. no such rule). */
int  rep_print_tables(const rep_summary *s, const rep_table_options *t, FILE *out, char *err, size_t errlen);

/* ---- flame graphs (flame.c) ---- */

/* What a flame graph's widths measure: self time, calls, or the bytes of the
 * tree nodes built (--profile-memory). */
typedef enum { REP_WEIGHT_SELF, REP_WEIGHT_CALLS, REP_WEIGHT_BYTES } rep_weight;

/* Folded stacks: "a;b;c WEIGHT" for nodes of non-zero weight (self µs,
 * calls, or node bytes); 0, or -1 when out of memory. */
int  rep_print_folded(const rep_summary *s, rep_weight weight, FILE *out);
typedef struct rep_flame_options {
    const char *title;          /* NULL: "Pego flame graph" (or "Pego differential flame graph") */
    unsigned    width;          /* pixels */
    rep_weight  weight;         /* what widths measure */
} rep_flame_options;

/* The SVG flame graph, and the differential one (now's tree coloured by the
 * change of each path against base); 0, or -1 with a message in err. */
int  rep_write_flamegraph(const rep_summary *s, const rep_flame_options *o, const char *path, char *err,
                          size_t errlen);
int  rep_write_diff_flamegraph(const rep_summary *base, const rep_summary *now, const rep_flame_options *o,
                               const char *path, char *err, size_t errlen);


/* ---- grammar lines (lines.c) ---- */

/* The source of the grammar named grammar, each line with its share of the
 * self time and its samples; 0, or -1 with a message in err (no such grammar). */
/* pego report --callers: the host functions by the time of the parses they
 * made, and the immediate callers of pego. 0, or -1 with a message in err
 * (no caller records, out of memory). */
int  rep_print_callers(const rep_summary *s, FILE *out, char *err, size_t errlen);
int  rep_print_lines(const rep_summary *s, const char *grammar, FILE *out, char *err, size_t errlen);
/* With --diff (text and Markdown): the lines whose share of their grammar's
 * self time changed most, rows of them (0: all); nothing when neither side has
 * line records. 0, or -1 when out of memory. */
int  rep_print_line_diff(const rep_summary *base, const rep_summary *now, size_t rows, FILE *out);
/* The speedscope file; 0, or -1 with a message in err. */
int  rep_write_speedscope(const rep_summary *s, const char *path, char *err, size_t errlen);

/* ---- differences (diff.c) ---- */

/* One --fail threshold: METRIC>+PERCENT%, or total.METRIC>+PERCENT% for the
 * metric summed over the rules (for time: the time of the parses). */
typedef struct rep_threshold {
    rep_by metric;            /* any but name */
    double percent;
    int    total;
} rep_threshold;

/* Parses "calls>+5%" or "total.calls>+2%"; 0, or -1 if malformed. */
int  rep_threshold_parse(const char *text, rep_threshold *t);
/* The threshold as it is written: "total.calls>+2%". */
void rep_threshold_text(const rep_threshold *t, char *text, size_t len);

typedef struct rep_diff_options {
    rep_format           format;
    size_t               rows;          /* rows of the table (those over a threshold are always shown) */
    const rep_threshold *fail;
    size_t               nfail;
    uint64_t             min_time_ns;   /* floor of an increase of time or self that may fail */
    rep_by               by;            /* rows by the size of the change of this metric, or by name */
    int                  annotate_github;   /* a GitHub workflow command per threshold exceeded */
} rep_diff_options;

/* Prints the comparison: in text and Markdown the thresholds exceeded follow
 * the table; in JSON they are in the document, and in JSON and CSV each is
 * also a message through report(ud, text). Returns 0 when none was exceeded,
 * else the position in o->fail (1 for the first) of the first exceeded; -1
 * when out of memory. */
long rep_print_diff(const rep_summary *base, const rep_summary *now, const rep_diff_options *o, FILE *out,
                    void (*report)(void *ud, const char *text), void *ud);

#endif
