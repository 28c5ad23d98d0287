/* pego: a PEG parsing toolkit. This is the one public header of libpego.
 *
 * A grammar is compiled once (pego_compile, pego_compile_file) and is immutable:
 * any number of threads may share it. A parser (pego_parser_new) holds the reusable
 * state of one thread and runs one parse at a time. Every failure of a call comes
 * back as a status code and a message, and the library never exits the program.
 * On its own, it does only this (see "runtime profiling" and "warnings" below):
 *
 * - it reads the environment variable PEGO_FLAGS once per process, when the first
 *   parser is created (or at pego_profile_start, if that comes first); it ignores
 *   the variable in set-user-ID and set-group-ID programs;
 * - when profiling is turned on (a report file given in PEGO_FLAGS or to
 *   pego_profile_start), it registers, once, an atexit handler that writes the
 *   report when the program exits; without profiling it registers nothing;
 * - it sends two messages to the warning handler, which writes them to standard
 *   error unless the program sets another: a malformed PEGO_FLAGS, and a report
 *   the exit writer could not write. It writes nothing to standard output. */
#ifndef PEGO_H
#define PEGO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PEGO_VERSION "0.1.0"

typedef struct pego_grammar pego_grammar;
typedef struct pego_parser  pego_parser;
typedef struct pego_node    pego_node;
typedef struct pego_diag    pego_diag;

/* ---- compiling grammars ------------------------------------------------ */

/* Compiles grammar source text. name is used in diagnostics (a file name, or
 * NULL for "<grammar>"). On failure returns NULL and, when diag is not NULL, sets
 * *diag to the list of errors (free it with pego_diag_free); when memory runs
 * out, the list is the one error "out of memory". */
pego_grammar *pego_compile(const char *src, size_t len, const char *name, pego_diag **diag);

/* Reads and compiles a grammar file. An unreadable file gives one diagnostic
 * "FILE: reason" with line and column 0. */
pego_grammar *pego_compile_file(const char *path, pego_diag **diag);

void pego_grammar_free(pego_grammar *g);

/* Diagnostics: every error of a grammar, in the documented order. */
size_t      pego_diag_count(const pego_diag *d);
int         pego_diag_line(const pego_diag *d, size_t i);     /* 0 when not about a position */
int         pego_diag_column(const pego_diag *d, size_t i);
const char *pego_diag_message(const pego_diag *d, size_t i);  /* without file and position */
/* All errors as text, one per line, "file:line:col: message" (no trailing newline). */
const char *pego_diag_text(const pego_diag *d);
void        pego_diag_free(pego_diag *d);

/* Rules of a compiled grammar, in declaration order. */
size_t      pego_grammar_rule_count(const pego_grammar *g);
const char *pego_grammar_rule_name(const pego_grammar *g, size_t i);
int         pego_grammar_rule_index(const pego_grammar *g, const char *name); /* -1 if none */
const char *pego_grammar_name(const pego_grammar *g);

/* The disassembly of the grammar's programs (what `pego compile -S` prints).
 * Returns a malloc'd string, or NULL when out of memory. */
char *pego_grammar_disassemble(const pego_grammar *g);

/* ---- parsing ------------------------------------------------------------ */

typedef enum {
    PEGO_UNIT_CODEPOINTS = 0,   /* positions count code points (an invalid byte counts one) */
    PEGO_UNIT_BYTES      = 1
} pego_unit;

typedef enum {
    PEGO_MEMO_DEFAULT = 0,      /* the static policy, memoizing from the second call at a position */
    PEGO_MEMO_ALL     = 1,      /* every rule from its first call (results must not change) */
    PEGO_MEMO_NONE    = 2       /* no rule except left-recursion leaders, which need the memo */
} pego_memo_policy;

typedef struct {
    const char      *start_rule;   /* NULL: "main" */
    pego_unit        unit;
    int              recognize;    /* non-zero: recognition only, no tree */
    uint32_t         max_depth;    /* nesting limit in rule calls; 0: 100000 */
    pego_memo_policy memo;
    const char      *input_name;   /* names the parse in profile reports (a file name); NULL: "<input>" */
    int              reference;    /* non-zero: run the reference program even when nobody
                                      observes the parse (the fast program is an optimization
                                      that never changes a result) */
    int              count_stats;  /* non-zero: count pego_result_stats during the parse, so
                                      that they need no second parse afterwards (see pego_stats) */
} pego_options;

#define PEGO_DEFAULT_MAX_DEPTH 100000u
/* The longest input pego_parse takes, in bytes (4 GiB less 2): a longer one is
 * refused with PEGO_EUSAGE. */
#define PEGO_MAX_INPUT ((size_t)UINT32_MAX - 1)

typedef enum {
    PEGO_OK           = 0,   /* the input matched */
    PEGO_SYNTAX_ERROR = 1,   /* the input did not match: see the syntax error accessors */
    PEGO_ABORTED      = 2,   /* a run-time error stopped the parse (nesting limit) */
    PEGO_EUSAGE       = 3,   /* bad arguments: unknown start rule, input too large */
    PEGO_ENOMEM       = 4,   /* memory ran out: the error is "out of memory"; the parser stays usable */
    PEGO_EREAD        = 5,   /* a stream parse's reader failed (pego_result_callback_error) */
    PEGO_ECALLBACK    = 6    /* a stream parse's element callback stopped it (pego_result_callback_error) */
} pego_status;

/* Counters of the work a parse does, as the grammar describes it (the reference
 * program): the same with tracing or profiling on and off. A parse nobody
 * observes may find its match with the fast program, which skips calls that
 * cannot match and compiles small rules into their callers; the first call of
 * pego_result_stats then parses the input once more with the reference program
 * to count (the input must still be there, as for the node accessors); so does
 * a syntax error that the deciding run found without parsing the whole input.
 * With pego_options.count_stats, the parse counts as it runs and nothing is
 * parsed afterwards: with the default memo policy it runs the fast program
 * with counters (the profiled program, without a clock: 1.2 to 1.6 times the
 * instructions on JSON), which counts a syntax error as well as a match (the
 * deciding run then writes the error, within the same pego_parse call); with
 * another memo policy the reference program parses and counts. */
typedef struct {
    uint64_t evals;          /* rule body evaluations */
    uint64_t calls;          /* rule calls, memo hits included */
    uint64_t memo_hits;      /* calls answered from the memo table */
    uint64_t memo_stored;    /* memo entries stored */
    uint32_t rules_memoized; /* distinct rules that stored at least one entry */
    uint32_t fast_program;   /* 1: the fast program gave the result; 0: the reference program */
} pego_stats;

typedef struct pego_result pego_result;

pego_parser *pego_parser_new(const pego_grammar *g);
void         pego_parser_free(pego_parser *p);

/* Parses input[0..len). opt may be NULL for the defaults. The result object
 * belongs to the parser and stays valid until the next parse or pego_parser_free.
 * Returns the status (also available from pego_result_status). */
pego_status pego_parse(pego_parser *p, const char *input, size_t len,
                       const pego_options *opt, const pego_result **out);

/* How far the parse running on p has got, in bytes: where a repetition last
 * began an iteration (0 when the parse begins). Safe to call from another
 * thread while pego_parse runs on p, to show progress; an estimate, as a
 * repetition nested in a choice that fails moves it back. */
size_t pego_parser_progress(const pego_parser *p);

pego_status       pego_result_status(const pego_result *r);
/* The tree's root: NULL when there is no tree (error, recognition, or a nil result;
 * pego_result_has_value tells the last case apart). */
const pego_node  *pego_result_tree(const pego_result *r);
int               pego_result_has_value(const pego_result *r);
size_t            pego_result_node_count(const pego_result *r);
const pego_stats *pego_result_stats(const pego_result *r);
/* The error text: "line:col: message" for a syntax error, the run-time error's
 * message for an aborted parse, or a usage message; NULL after success. */
const char       *pego_result_error(const pego_result *r);

/* Syntax error details (PEGO_SYNTAX_ERROR only). */
uint64_t    pego_result_error_offset(const pego_result *r);  /* in the parse's unit */
int         pego_result_error_line(const pego_result *r);
int         pego_result_error_column(const pego_result *r);
size_t      pego_result_expected_count(const pego_result *r);
const char *pego_result_expected(const pego_result *r, size_t i); /* sorted, printed form */
const char *pego_result_error_message(const pego_result *r);      /* text after "line:col: " */

/* Trees. Positions are in the parse's unit; text is the input's bytes (in
 * code-point mode an invalid byte stands for U+FFFD when printed). */
/* The reserved node types, then the two kinds of types a grammar defines
 * (docs/language.md 6.1): struct nodes (made by actions' new, with fields and
 * no children) and terminal types (text, like Match). pego_node_type_name
 * gives the type's name. */
typedef enum {
    PEGO_NODE_MATCH, PEGO_NODE_SEQ, PEGO_NODE_LIST, PEGO_NODE_OPERATOR, PEGO_NODE_ERROR,
    PEGO_NODE_STRUCT, PEGO_NODE_TERMINAL
} pego_node_kind;

pego_node_kind   pego_node_type(const pego_result *r, const pego_node *n);
const char      *pego_node_type_name(const pego_result *r, const pego_node *n);
const char      *pego_node_rule(const pego_result *r, const pego_node *n); /* NULL if unlabeled */
uint64_t         pego_node_start(const pego_result *r, const pego_node *n);
uint64_t         pego_node_end(const pego_result *r, const pego_node *n);
const char      *pego_node_text(const pego_result *r, const pego_node *n, size_t *len);
size_t           pego_node_child_count(const pego_result *r, const pego_node *n);
const pego_node *pego_node_child(const pego_result *r, const pego_node *n, size_t i); /* NULL: nil */
size_t           pego_node_field_count(const pego_result *r, const pego_node *n);
const char      *pego_node_field_name(const pego_result *r, const pego_node *n, size_t i);
const pego_node *pego_node_field_value(const pego_result *r, const pego_node *n, size_t i);
const pego_node *pego_node_field(const pego_result *r, const pego_node *n, const char *name);
/* What field i holds: a node (or nil), an integer, a string or a bool. Fields
 * are in the order they print (sorted by name); pego_node_field_index finds
 * one by name (-1: the node has no such field). */
typedef enum { PEGO_FIELD_NODE, PEGO_FIELD_INT, PEGO_FIELD_STRING, PEGO_FIELD_BOOL } pego_field_kind;
pego_field_kind pego_node_field_kind(const pego_result *r, const pego_node *n, size_t i);
long            pego_node_field_index(const pego_result *r, const pego_node *n, const char *name);
/* Fields that are not nodes: the operator number of an Operator node, the
 * message of an Error node, the integers, strings and bools that actions store
 * in struct nodes. Return 0 when the field is not of that kind. A string is
 * NUL-terminated; pego_node_field_text also gives its length (a string made
 * by an action may contain NUL bytes). */
int pego_node_field_int(const pego_result *r, const pego_node *n, size_t i, int64_t *value);
int pego_node_field_string(const pego_result *r, const pego_node *n, size_t i, const char **value);
int pego_node_field_text(const pego_result *r, const pego_node *n, size_t i, const char **value, size_t *len);
int pego_node_field_bool(const pego_result *r, const pego_node *n, size_t i, int *value);

/* Errors recovered by #recover during a successful parse ("line:col: message"). */
size_t      pego_result_recovered_count(const pego_result *r);
const char *pego_result_recovered_error(const pego_result *r, size_t i);

/* Printing (docs/language.md 1.13), without a trailing newline: "nil"/"null" for
 * a nil result. pego_result_print returns a malloc'd string; NULL when out of
 * memory or the parse did not succeed. */
typedef enum { PEGO_PRINT_SEXPR, PEGO_PRINT_JSON, PEGO_PRINT_JSON_COMPACT } pego_print_format;
char *pego_result_print(const pego_result *r, pego_print_format format);

/* Receives the printed text in pieces; returns 0 to go on, or a positive value
 * (an errno value, say) to stop. */
typedef int (*pego_write_fn)(const char *data, size_t len, void *ctx);
/* Prints as pego_result_print does, handing the text to write in pieces of
 * about 64 KiB as it is made, so that printing needs little memory whatever the
 * tree's size. Returns 0 when all of it was written, the first non-zero value
 * write returned (printing stops there), or -1 when out of memory or the parse
 * did not succeed. */
int pego_result_write(const pego_result *r, pego_print_format format, pego_write_fn write, void *ctx);

/* Prints node n (NULL: nil) of result r as pego_result_print prints a tree;
 * NULL when out of memory. For the elements of a stream parse. */
char *pego_node_print(const pego_result *r, const pego_node *n, pego_print_format format);

/* Line and column (1-based) of a position in the last parse's unit. */
int pego_result_line_col(const pego_result *r, uint64_t pos, int *line, int *col);

const char *pego_version(void);

/* Quotes text as trees print terminals (Go's strconv.Quote): in code-point mode an
 * invalid byte reads as U+FFFD, in byte mode it is written \xHH. Returns a
 * malloc'd string. */
char *pego_quote(const char *text, size_t len, pego_unit unit);

/* The bytes of the character at text (len > 0 bytes available) as positions in
 * code points count it: 1 to 4, and 1 for a byte that begins no valid UTF-8
 * sequence. */
size_t pego_char_width(const char *text, size_t len);

/* ---- stream parses (docs/language.md 7.1) ------------------------------ */

/* Reads input for a stream parse into buf (at most cap bytes): returns the
 * number of bytes read, 0 at the end of the input, or a negative value for an
 * error, which the parse returns as is (PEGO_EREAD, pego_result_callback_error). */
typedef long (*pego_read_fn)(char *buf, size_t cap, void *ctx);
/* Receives one element of the start rule's #stream repetition as soon as it is
 * final (element NULL: nil). r is the result the element belongs to (for the
 * node accessors; not the stream parse's own result, which pego_parse_stream
 * returns): r, element and the text of its nodes are valid until the callback
 * returns. Returns 0 to go on, or a non-zero value that
 * stops the parse and that it returns unchanged (PEGO_ECALLBACK,
 * pego_result_callback_error). */
typedef int (*pego_element_fn)(const pego_result *r, const pego_node *element, void *ctx);

/* Parses the input read reads, handing each element of the start rule's
 * #stream repetition to element and releasing the input and memo entries
 * before it, so that memory is bounded by the longest element. The result has
 * no tree: its status, its syntax error (positions from the start of the whole
 * input) and, after success, its recovered errors. A start rule without
 * #stream gives PEGO_EUSAGE ("rule main has no #stream repetition"), as does
 * recognition (opt->recognize). Input is limited to PEGO_MAX_INPUT bytes in
 * all. The fast program parses the elements where it can, the reference
 * program the rest and the errors (opt->reference, or trace sinks attached:
 * the reference program only); the statistics count only the latter's calls.
 * Trace sinks see every call; an element parsed again with more input reports
 * its calls again, after a PEGO_TRACE_AGAIN event that voids those of the
 * run given up (pego_trace_kind). --profile profiles stream parses (records marked "stream"),
 * except with --profile-detail. */
pego_status pego_parse_stream(pego_parser *p, pego_read_fn read, void *read_ctx,
                              pego_element_fn element, void *element_ctx,
                              const pego_options *opt, const pego_result **out);
/* The value the reader (PEGO_EREAD) or the element callback (PEGO_ECALLBACK)
 * returned; 0 for any other status. */
long pego_result_callback_error(const pego_result *r);

/* ---- incremental documents (docs/language.md 7.2) ----------------------- */

/* A document holds a text and the memo table of its last parse: after an
 * edit, a parse evaluates again only the calls whose examined input the edit
 * touched, and returns exactly what pego_parse of the same text returns. */
typedef struct pego_document pego_document;

/* A document of grammar g (which must outlive it) holding a copy of
 * text[0..len), parsed with opt's start rule, unit and nesting limit (opt
 * NULL: the defaults; the memo policy does not apply: a document memoizes
 * every call). NULL when out of memory or len exceeds PEGO_MAX_INPUT. */
pego_document *pego_document_new(const pego_grammar *g, const char *text, size_t len, const pego_options *opt);
void           pego_document_free(pego_document *d);

/* Replaces [start, end) of the text (positions in the document's unit) with
 * text[0..len); start == end inserts, len 0 deletes. Does not parse. Returns
 * PEGO_OK; PEGO_EUSAGE when a position is past the end, start > end, in byte
 * mode a position is inside a character, or the text would exceed
 * PEGO_MAX_INPUT (the document is then unchanged, and pego_document_error
 * says why); PEGO_ENOMEM. An edit ends the validity of the last result. */
pego_status    pego_document_edit(pego_document *d, uint64_t start, uint64_t end, const char *text, size_t len);
/* Why the last pego_document_edit was refused; NULL after one that was not. */
const char    *pego_document_error(const pego_document *d);
/* The current text (not NUL-terminated) and its length in bytes. */
const char    *pego_document_text(const pego_document *d, size_t *len);

/* Parses the current text with the start rule: the same status, tree,
 * positions, syntax error and recovered errors as a fresh pego_parse of it.
 * The result belongs to the document and stays valid until the next edit,
 * parse or pego_document_free. Recognition (opt->recognize) gives
 * PEGO_EUSAGE. A parse that is aborted (nesting limit, an action's error) or
 * runs out of memory forgets the memo table; a syntax error does not.
 * --profile profiles the parses (records marked "document", named by
 * opt->input_name, "<document>" without). */
pego_status    pego_document_parse(pego_document *d, const pego_result **out);

/* Counters of the last parse (informative: they depend on how much is reused):
 * rule bodies evaluated, and calls answered from the memo table. */
typedef struct {
    uint64_t evaluated;
    uint64_t reused;
} pego_document_stats;
void           pego_document_get_stats(const pego_document *d, pego_document_stats *out);

/* ---- runtime profiling (--profile, PEGO_FLAGS) -------------------------- */

/* Profiling writes a zstd-compressed report (docs/report-format.md) when the
 * program exits. It is turned on without recompiling by the environment
 * variable PEGO_FLAGS ("--profile=out.zst", "--profile-append",
 * "--profile-detail", "--profile-clock=wall" or "--profile-clock=cpu",
 * "--profile-interval=1ms", "--profile-flush=10s", "--profile-native",
 * "--profile-memory": docs/profiling.md), read once, when the first parser of the process is
 * created (ignored in set-user-ID and set-group-ID programs), or from code.
 * The exit writer is registered with atexit the first time a report file is
 * set, and stays: after pego_profile_stop, what was collected is still
 * written. A malformed PEGO_FLAGS read by pego_parser_new is reported once
 * through the warning handler and the program goes on unprofiled; read by
 * pego_profile_start, it is that call's error. */

/* Turns profiling on: file is the report file (%p, %h, %t, %% are expanded;
 * NULL to take it from options), options a space-separated list of the same
 * options as PEGO_FLAGS (NULL for none). Options given here win over
 * PEGO_FLAGS. --profile-clock=wall (the default) times with a steady clock,
 * --profile-clock=cpu with the parsing thread's CPU time; the clock is chosen
 * when profiling starts, and asking for the other one later is an error.
 * Returns 0, or -1 with pego_profile_error() saying why. */
int pego_profile_start(const char *file, const char *options);
/* Stops collecting; what was collected is still written at exit. */
int pego_profile_stop(void);
/* Writes the report now. In append mode the data written is cleared, so the
 * report written at exit adds only what came after; otherwise the report at
 * exit replaces this one with everything. Returns 0, or -1 (pego_profile_error). */
int pego_profile_flush(void);
/* Non-zero while parses are being profiled. */
int pego_profile_active(void);
/* Why the calling thread's last pego_profile_start or pego_profile_flush
 * failed: a malformed option, or a report that could not be written ("cannot
 * write profile FILE: reason"); each thread has its own ("" before any). */
const char *pego_profile_error(void);

/* ---- warnings ----------------------------------------------------------- */

/* The messages the library emits without being asked: "pego: " and a malformed
 * PEGO_FLAGS option (e.g. "pego: unknown option in PEGO_FLAGS: --frofile=x"),
 * once, when the first parser is created; and "pego: cannot write profile
 * FILE: reason" when the exit writer fails. Each message is one line without a
 * newline, valid during the call only. Errors of a call (pego_profile_start,
 * pego_profile_flush, ...) are returned by it, never sent here.
 *
 * pego_set_warning_handler sends every message to fn, with ud; a NULL fn
 * restores the default handler, which writes the message and a newline to
 * standard error. Threads: the handler runs in the thread that created the
 * first parser, or in the thread that called exit (the exit writer runs from
 * atexit, after main returns), so fn and ud must stay valid until they are
 * replaced or the program has exited. The library holds a lock while the
 * handler runs: handlers never run at once, and once pego_set_warning_handler
 * returns the handler it replaced is neither running nor called again, so its
 * ud may be freed. A handler must not call pego_set_warning_handler. */
void pego_set_warning_handler(void (*fn)(const char *msg, void *ud), void *ud);

/* ---- tracing ------------------------------------------------------------ */

/* A call's enter and exit events; and, in a stream parse only, its marks:
 * MARK where the parse may later go back to (an iteration of the #stream
 * repetition begins, or what follows the repetition), AGAIN where it goes
 * back because what it parsed since depended on input not read yet. An AGAIN
 * of depth 1 voids the events since the last MARK: the calls entered since,
 * and the start rule's exit if it came (its call, the only one open at a
 * MARK, is open again); the input from the AGAIN's pos is then parsed again
 * with more. An AGAIN of depth 0 voids every event of the parse, whose calls
 * in progress get no exit, and the parse starts again. A sink that keeps
 * nothing across events may ignore both; every sink must ignore kinds it
 * does not know. MARK and AGAIN carry the start rule's name, the position and
 * the depth (1, or 0 for the AGAIN that starts the parse again); their other
 * fields are 0. */
typedef enum { PEGO_TRACE_ENTER = 0, PEGO_TRACE_EXIT = 1, PEGO_TRACE_MARK = 2, PEGO_TRACE_AGAIN = 3 } pego_trace_kind;

/* One rule call event. Calls are reported before the memo table is consulted,
 * so a memo hit is an ordinary call whose exit has memo set. Positions are in
 * the parse's unit. An event and everything it points to are valid only during
 * the callback. */
typedef struct pego_trace_event {
    pego_trace_kind kind;
    const char *rule;        /* rule name (a value-free twin reports its rule) */
    int         rule_id;     /* the rule's index in declaration order */
    int         level;       /* Pratt binding level of the call, 0 for an ordinary call */
    uint32_t    depth;       /* nesting depth: 1 for the start rule */
    uint64_t    pos;         /* where the call started */
    int         lookahead;   /* the call is inside & or ! (it records no expectations) */
    /* exit events only */
    int         matched;     /* the call succeeded */
    uint64_t    end;         /* where it ended (pos when it failed) */
    int         memo;        /* answered from the memo table */
    uint64_t    evals;       /* body evaluations of this call, nested calls excluded;
                                a left-recursion leader counts its growth rounds */
    uint64_t    examined;    /* end of the input the call looked at: one past the input's
                                length when a failed test there found the end */
    size_t      recovered;   /* errors recovered during the call */
    const struct pego_trace_detail *detail;   /* for the helper functions below */
} pego_trace_event;

/* A trace callback: return 0 to go on, non-zero to abort the parse (the result
 * is then PEGO_ABORTED, not a syntax error, and the calls in progress get no
 * exit event). */
typedef int (*pego_trace_fn)(const pego_trace_event *ev, void *userdata);

/* Attaches a trace sink (up to PEGO_MAX_TRACE_SINKS; several may be attached at
 * once, and are called in the order attached). Returns 0, or -1 when full. A
 * traced parse sends every call through the general call path; results, errors
 * and statistics are identical to an untraced parse. */
#define PEGO_MAX_TRACE_SINKS 8
int pego_parser_set_trace(pego_parser *p, pego_trace_fn fn, void *userdata);
/* Detaches a sink attached with the same function and user data; returns 0, or
 * -1 when it was not attached. */
int pego_parser_remove_trace(pego_parser *p, pego_trace_fn fn, void *userdata);
/* The same for the parses of a document (docs/language.md 7.2): a call
 * answered from an entry an earlier parse of the document left is a memo
 * hit. */
int pego_document_set_trace(pego_document *d, pego_trace_fn fn, void *userdata);
int pego_document_remove_trace(pego_document *d, pego_trace_fn fn, void *userdata);

/* Line and column (1-based) of a position of the parse being traced. */
void pego_trace_line_col(const pego_trace_event *ev, uint64_t pos, int *line, int *col);
/* The input between pos and end of an exit event (the matched text). In a
 * stream parse, both give only the input still held: text released before
 * it is left out. */
const char *pego_trace_text(const pego_trace_event *ev, size_t *len);
/* The input text between two positions of the parse being traced. */
const char *pego_trace_input(const pego_trace_event *ev, uint64_t from, uint64_t to, size_t *len);
/* The failure recorded during the call (exit events): the farthest position at
 * which something was expected and the number of items expected there (sorted,
 * printed as syntax errors print them). Returns 0 when nothing was recorded. */
int pego_trace_failure(const pego_trace_event *ev, uint64_t *pos, size_t *nitems);
const char *pego_trace_failure_item(const pego_trace_event *ev, size_t i);
/* Full text ("line:col: message") of the i-th error recovered during the call. */
const char *pego_trace_recovered_error(const pego_trace_event *ev, size_t i);
/* The position unit of the parse being traced. */
pego_unit pego_trace_unit(const pego_trace_event *ev);

/* ---- the collector ------------------------------------------------------ */

/* A collector: a trace sink that adds up, per rule, what the calls of any
 * number of parses did and where the time went (what `pego profile` prints).
 * It keeps its totals in memory for the program to read; the report files of
 * --profile come from the runtime profiler (pego_profile_start) instead. A
 * value-free twin counts as its rule. Counts are exact: the same grammar,
 * input and options give the same counts on every run. Times are
 * CLOCK_MONOTONIC readings and include the collector's own cost. A collector
 * may be attached to one parser at a time. */
typedef struct pego_collector pego_collector;

/* A rule's totals. Positions are in the unit of the parses. */
typedef struct pego_collector_rule {
    const char *name;             /* valid until the collector is reset or freed */
    uint64_t calls;               /* calls, memo hits included */
    uint64_t evals;               /* body evaluations (a left-recursion leader counts its growth rounds) */
    uint64_t memo;                /* calls answered from the memo table */
    uint64_t matched, failed;     /* outcomes of calls */
    uint64_t repeats;             /* evaluating calls at a (position, level) where the rule was
                                     evaluated before in the same parse */
    uint64_t max_repeats;         /* the most repeats at one (position, level) of one parse */
    uint64_t max_repeats_pos;     /* where that was (the first parse to reach it) */
    uint64_t max_evals;           /* the most evaluating calls at one (position, level) of one
                                     parse: max_repeats + 1, or 0 when never evaluated */
    uint64_t max_evals_pos;       /* the first place that was, from the first evaluation on */
    int      max_evals_line, max_evals_col;
    uint64_t longest_fail;        /* the most input one failed evaluating call examined */
    uint64_t longest_fail_pos;    /* where that call started (the first to examine as much) */
    int      longest_fail_line, longest_fail_col;
    uint64_t consumed;            /* input matched by the matched calls */
    uint64_t wasted;              /* for each evaluating call that failed: from its position to
                                     the end of the input it examined */
    uint64_t time_ns;             /* inclusive time, counted for the outermost active call only */
    uint64_t self_ns;             /* time minus the time of nested calls */
} pego_collector_rule;

typedef struct pego_collector_totals {
    uint64_t parses;              /* parses seen (a parse starts with the start rule's call) */
    uint64_t calls, evals, memo_hits;
    uint64_t examined;            /* positions examined: per parse, the end of the input it looked at */
    uint64_t time_ns;             /* time of the start rule's calls */
} pego_collector_totals;

/* A new, empty collector; NULL when out of memory. */
pego_collector *pego_collector_new(void);
void            pego_collector_free(pego_collector *c);
/* Attaches the collector to a parser as a trace sink (pego_parser_set_trace):
 * every later parse of p is added to it. Returns 0, or -1 when the parser has
 * no free sink. */
int  pego_parser_add_collector(pego_parser *p, pego_collector *c);
int  pego_parser_remove_collector(pego_parser *p, pego_collector *c);
/* The same for the parses of a document (pego_document_set_trace). */
int  pego_document_add_collector(pego_document *d, pego_collector *c);
int  pego_document_remove_collector(pego_document *d, pego_collector *c);
/* Forgets everything collected. */
void pego_collector_reset(pego_collector *c);

/* Rules in the order of their first call. get_rule returns 0, or -1 when i is
 * out of range; find_rule returns -1 when the rule was never called. */
size_t pego_collector_rule_count(const pego_collector *c);
int    pego_collector_get_rule(const pego_collector *c, size_t i, pego_collector_rule *out);
int    pego_collector_find_rule(const pego_collector *c, const char *name, pego_collector_rule *out);
void   pego_collector_get_totals(const pego_collector *c, pego_collector_totals *out);

/* What to look at, as sentences (without a leading "- "), in the original
 * PEGO's wording: the rules with the most self time; rules evaluated more than
 * twice at one position, most repeats first; failed calls that examined 16
 * positions or more; rules whose failed calls examined as much input in all as
 * the parses did, or more; and, when at most one of these was said, that
 * nothing else stands out. At most three rules per hint. No calls, no hints.
 * Returns a NULL-terminated array of *count strings, valid until the next call
 * of pego_collector_hints, pego_collector_reset or pego_collector_free; NULL
 * (and *count 0) when out of memory. */
const char *const *pego_collector_hints(pego_collector *c, size_t *count);

#ifdef __cplusplus
}
#endif
#endif
