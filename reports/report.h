/* Report files, format version 1 (docs/report-format.md): the records of one
 * report and the writer that turns them into one zstd frame of JSON Lines.
 *
 * The runtime profiler fills a builder at the end of a process and calls
 * rep_write_file(); `pego report` reads the same records back (reader.h) into
 * the same structs. Everything here is part of libpego and needs only libzstd.
 * Nothing here prints: errors come back as a return code and a message.
 *
 * A frame holds, in this order: one header record, then grammar records, each
 * before any record that refers to it, then parse, rule, edge and stack records
 * in any order, and a footer that rep_write_file() adds. Rule ids are the
 * grammar's rule numbers (its rules list); grammar ids are chosen by the writer,
 * unique within one frame. */
#ifndef PEGO_REP_REPORT_H
#define PEGO_REP_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define REP_FORMAT_NAME    "pego-profile"
#define REP_FORMAT_VERSION 1
#define REP_NO_RULE        UINT32_MAX   /* a parse without a top rule (no call took time) */

/* The first record: who wrote the report, and how it was measured. */
typedef struct rep_header {
    int                version;     /* format version: REP_FORMAT_VERSION when writing */
    const char        *pego;        /* pego version that wrote it */
    int64_t            pid;
    const char        *host;
    int                argc;
    const char *const *argv;
    int64_t            start;       /* process start, Unix seconds; written as ISO 8601 UTC */
    const char        *clock;       /* "monotonic" or "tsc" */
    const char        *mode;        /* "exact" (sampling comes later) */
    int                detail;      /* repeats and wasted were collected */
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
} rep_grammar;

typedef enum { REP_UNIT_BYTES, REP_UNIT_CODEPOINTS } rep_unit;
typedef enum { REP_RESULT_OK, REP_RESULT_SYNTAX_ERROR, REP_RESULT_ABORTED } rep_result;

/* One parse. */
typedef struct rep_parse {
    uint64_t    id;                 /* 1, 2, ... within the frame */
    uint32_t    grammar;
    const char *input;              /* file name, or a description such as "-i" or "<stdin>" */
    uint64_t    bytes;              /* input size in bytes */
    rep_unit    unit;               /* position unit of the parse */
    rep_result  result;
    uint64_t    time_ns, calls, evals, memo, clock_reads;
    uint32_t    top_rule;           /* the rule with the most self time, or REP_NO_RULE */
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
} rep_rule;

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
} rep_stack;

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

/* Expands a report file pattern: %p the process id, %h the host name, %t the
 * start time (Unix seconds), %% a percent sign; any other % sequence is kept as
 * it is. Returns a malloc'd string, or NULL when out of memory. */
char *rep_expand_path(const char *pattern, int64_t pid, const char *host, int64_t start);

/* The in-memory text of one report frame, built record by record. */
typedef struct rep_builder rep_builder;

/* Starts a frame with its header record; NULL when out of memory. */
rep_builder *rep_builder_new(const rep_header *h);
void         rep_builder_free(rep_builder *b);

/* Each adds one record. They return 0, or -1 when out of memory; after a
 * failure the builder keeps failing and rep_write_file() says so. */
int rep_add_grammar(rep_builder *b, const rep_grammar *g);
int rep_add_parse(rep_builder *b, const rep_parse *p);
int rep_add_rule(rep_builder *b, const rep_rule *r);
int rep_add_edge(rep_builder *b, const rep_edge *e);
int rep_add_stack(rep_builder *b, const rep_stack *s);

/* The uncompressed records so far (without the footer), for tests and tools. */
const char *rep_builder_text(const rep_builder *b, size_t *len);

/* Writes the frame (records, then a footer counting parses and records) to
 * path as one zstd frame with a content checksum. append == 0: write a
 * temporary file beside path and rename it over path, so a reader never sees
 * half a report. append != 0: add the frame to the end of path under an
 * exclusive flock, one complete frame or nothing. path is never followed if it
 * is a symbolic link, and a new file gets mode 0644 less the umask. Returns 0,
 * or -1 with "cannot write profile PATH: REASON" in errbuf (errlen bytes). */
int rep_write_file(const rep_builder *b, const char *path, int append, char *errbuf, size_t errlen);

#endif
