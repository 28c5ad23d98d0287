/* Shared pieces of the pego command: reading files, checked writes to standard
 * output, printing messages with the "pego: " prefix, and the subcommand entry
 * points. Exit statuses: 0 success, 1 syntax, grammar or usage errors, an
 * unreadable input or a write error, 70 a malformed profiling option. */
#ifndef PEGO_CLI_H
#define PEGO_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pego.h"

#define EXIT_ERRORS 1
#define EXIT_PROFILE_OPTION 70

/* The profiling options of every command that parses (cli/main.c takes them
 * out of argv before the command runs), for the commands' help. */
#define CLI_PROFILE_HELP \
    "Profiling (the same options work in PEGO_FLAGS; docs/profiling.md):\n" \
    "  --profile FILE         write a report of every parse to FILE at exit (the\n" \
    "                         parse counts every call and samples the time: 1.05\n" \
    "                         to 1.4 times an unprofiled parse on JSON and CSV, up\n" \
    "                         to about 2.7 on grammars with memoized rules or Pratt\n" \
    "                         operators that make calls; docs/benchmarks.md)\n" \
    "  --profile-append       add the report to FILE as a new frame (costs nothing\n" \
    "                         during parses; at exit one append under a file lock)\n" \
    "  --profile-detail       exact mode: time every call on the reference program,\n" \
    "                         and count repeats and wasted input (20 to 110 times\n" \
    "                         slower; the default samples the time)\n" \
    "  --profile-clock CLOCK  time with wall (default: elapsed time) or cpu (the\n" \
    "                         parsing thread's CPU time); sampled, both cost the\n" \
    "                         same; in exact mode a reading costs 19 ns with wall\n" \
    "                         (45 ns without a TSC), about 1100 ns with cpu\n" \
    "  --profile-interval DURATION  time between samples (10us to 1s, default\n" \
    "                         1ms; a bare number is microseconds; each sample\n" \
    "                         is a signal, a few microseconds, tens on some VMs)\n" \
    "  --profile-flush DURATION  also write the report at this interval (10ms to\n" \
    "                         24h: 500ms, 10s, 1m), so that a kill -9 or abort()\n" \
    "                         loses at most the last interval; each write costs\n" \
    "                         what the write at exit costs: about 0.1 ms, 4 to 6\n" \
    "                         us more per parse recorded, and in replace mode an\n" \
    "                         fsync (0.7 to 8 ms on a virtual machine's disk)\n" \
    "  --profile-native       also record the program's native call stack at the\n" \
    "                         start of each parse (pego report --callers; about\n" \
    "                         0.5 us per parse, 0.48 on a parse of 6.5 us)\n" \
    "  --profile-memory       also count the tree nodes each rule builds and the\n" \
    "                         memo entries it stores, with their bytes (about 1.5\n" \
    "                         times the cost of a profiled parse that builds a tree)\n" \
    "A malformed profiling option exits with status 70.\n"

/* Reads a whole file ("-" or NULL: standard input) of at most limit bytes
 * (limit < SIZE_MAX; the commands pass PEGO_MAX_INPUT). Returns NULL, or why it
 * could not: "input too large", or the system's reason. */
const char *cli_read_file(const char *path, size_t limit, char **data, size_t *len);

/* Checked writes to standard output. After the first error nothing more is
 * written, and every call returns that error (an errno value); 0 until then.
 * cli_write is also a pego_write_fn (the context is not used). */
int   cli_write(const char *data, size_t len, void *unused);
int   cli_print(const char *s);
int   cli_flush(void);
/* The exit status of a command that returned status: flushes standard output,
 * and when any write to it failed says "write error: REASON" and gives
 * EXIT_ERRORS. main calls it when a command ends. */
int   cli_exit_status(int status);
void  cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Compiles the grammar at path; on failure prints the errors and returns NULL. */
pego_grammar *cli_load_grammar(const char *path);

/* ---- progress on standard error (cli/progress.c) ----
 * Started when standard error is a terminal and quiet is 0 (else NULL, and
 * stop does nothing): from one second on, a line rewritten in place says
 * "WHAT: DONE of TOTAL (P%), RATE/s, N s left", counting bytes (bytes set) or
 * files; done(ud) is called from the progress thread. Stop erases the line.
 * The commands that show it take -q, which turns it off. */
typedef struct cli_progress cli_progress;
/* Whether progress would be shown: standard error is a terminal, quiet is 0. */
int           cli_progress_wanted(int quiet);
cli_progress *cli_progress_start(int quiet, const char *what, uint64_t total, int bytes,
                                 uint64_t (*done)(void *ud), void *ud);
/* Erases the line until the next update, before another message is written. */
void          cli_progress_erase(cli_progress *p);
void          cli_progress_stop(cli_progress *p);

/* ---- input selection (cli/input.c), shared by parse, trace, profile, explain ----
 * The flags -g -s -i -unit -max-depth -memo -backend (and -stream, -edit where
 * the command lists them), input files as operands, standard input by default. A command lists CLI_INPUT_OPTIONS (and CLI_MAX_DEPTH_OPTION
 * unless -max-depth means something else to it) in its getopt_long_only table,
 * passes each flag to cli_input_flag, then calls cli_input_finish, _open,
 * _each and _close. */
enum { CLI_OPT_UNIT = 0x1000, CLI_OPT_MAXDEPTH, CLI_OPT_MEMO, CLI_OPT_BACKEND, CLI_OPT_STREAM, CLI_OPT_EDIT,
       CLI_OPT_FIRST_FREE };

#define CLI_INPUT_OPTIONS \
    { "g", required_argument, NULL, 'g' },       { "s", required_argument, NULL, 's' }, \
    { "i", required_argument, NULL, 'i' },       { "unit", required_argument, NULL, CLI_OPT_UNIT }, \
    { "memo", required_argument, NULL, CLI_OPT_MEMO },   { "backend", required_argument, NULL, CLI_OPT_BACKEND }
#define CLI_MAX_DEPTH_OPTION { "max-depth", required_argument, NULL, CLI_OPT_MAXDEPTH }
/* -stream: each input is stream-parsed as the reader gets it (cli_input_parse) */
#define CLI_STREAM_OPTION { "stream", no_argument, NULL, CLI_OPT_STREAM }
/* -edit FROM:TO:TEXT (repeatable): each input is a document (docs/language.md
 * 7.2), parsed, edited and parsed again (cli_input_parse) */
#define CLI_EDIT_OPTION { "edit", required_argument, NULL, CLI_OPT_EDIT }

/* An edit of -edit: [from, to) in the parse's unit replaced by text. */
typedef struct {
    uint64_t    from, to;
    const char *text;
    const char *spec;    /* the flag's value, for messages */
} cli_edit;

typedef struct cli_input {
    const char   *grammar;      /* -g */
    const char   *text;         /* -i */
    pego_options  opt;          /* -s -unit -max-depth -memo -backend */
    char        **files;        /* the operands */
    int           nfiles;
    pego_grammar *g;            /* set by cli_input_open */
    pego_parser  *p;
    int           stream;       /* -stream */
    int           fd;           /* with -stream: the input being read (-1: the text of -i) */
    pego_element_fn element;    /* with -stream: gets the elements (NULL: dropped) */
    void         *element_ctx;
    cli_edit     *edits;        /* -edit */
    int           nedits;
    pego_document *doc;         /* with -edit: the last input's document, which holds its result */
    pego_trace_fn sink;         /* the command's trace sink, on the parse cli_input_parse reports */
    void         *sink_ud;
    pego_collector *collector;  /* the command's collector, the same */
    int           keep;         /* with -stream: an input can be parsed again (cli_input_rewind) */
    long long     began;        /* where the parse began reading the file; -1: not seekable */
    char         *kept;         /* what it read then */
    size_t        nkept, capkept;
} cli_input;

/* Handles one flag: 1 when it was an input flag, 0 when it is not one, -1 after
 * printing why its value is wrong. */
int  cli_input_flag(cli_input *in, int ch, const char *arg);
/* Prints the message for the flag getopt_long_only rejected ('?'). */
void cli_flag_error(const char *command, const struct option *opts, char **argv);

/* What a command's own flag handler says: the flag was taken, -help was printed
 * (the command ends with 0), the value was wrong (a message was printed), or
 * the flag is not the command's. */
enum { CLI_FLAG_OK, CLI_FLAG_HELP, CLI_FLAG_BAD, CLI_FLAG_UNKNOWN };
typedef int (*cli_flag_fn)(int ch, const char *arg, void *ctx);
/* The flag loop of the commands that parse: input flags go to cli_input_flag,
 * the others to own; then cli_input_finish. Returns -1 to go on, else the
 * command's exit status (0 after -help, EXIT_ERRORS after a message). */
int  cli_input_flags(cli_input *in, const char *command, int argc, char **argv, const struct option *longopts,
                     cli_flag_fn own, void *ctx);
/* Reads the value of -n: a whole number, 0 for no limit; what says what 0 does. */
int  cli_count_flag(const char *arg, long *out, const char *what);
/* Reads the value of -f where it is text or json: *json says which. */
int  cli_text_or_json(const char *arg, int *json);
/* Takes the operands after optind; 0, or EXIT_ERRORS after printing (no -g, -i with files). */
int  cli_input_finish(cli_input *in, const char *command, int argc, char **argv);
/* Compiles the grammar and makes a parser; 0, or EXIT_ERRORS after printing. */
int  cli_input_open(cli_input *in);
/* Calls fn for each input: -i TEXT, each file, or standard input. prefix is the
 * file name when there are several files (to put before results and errors),
 * NULL otherwise; label names the input always ("-i", "<stdin>" or the file).
 * Returns EXIT_ERRORS when fn returned non-zero or a file could not be read. */
typedef int (*cli_input_fn)(cli_input *in, const char *prefix, const char *label,
                            const char *data, size_t len, void *ctx);
int  cli_input_each(cli_input *in, cli_input_fn fn, void *ctx);
/* Parses the input fn was given: pego_parse of data, or with -stream (where
 * cli_input_each reads nothing itself: data is the text of -i or NULL)
 * pego_parse_stream of the input as it is read, its elements to in->element,
 * or with -edit a document of data parsed, edited and parsed again (the
 * result is the last parse's). in->sink and in->collector observe the parse
 * reported (with -edit, the last). A read error, or an edit refused, is
 * printed ("PREFIXLABEL: reason") and gives PEGO_EREAD. */
pego_status cli_input_parse(cli_input *in, const char *prefix, const char *label, const char *data, size_t len,
                            const pego_result **r);
/* After cli_input_parse with in->keep set: the same input for another
 * cli_input_parse (pego explain parses twice). With -stream and a file, the
 * file is read again from where the first parse began (*data stays NULL), or
 * when it cannot be (a pipe) *data and *len are the bytes the first parse
 * read, kept as it read them. Returns -1 after printing why it cannot. */
int  cli_input_rewind(cli_input *in, const char *prefix, const char *label, const char **data, size_t *len);
void cli_input_close(cli_input *in);

/* Output helpers of trace, profile and explain. */
#define CLI_TRACE_TEXT_MAX 40     /* input text shown by trace, in characters */
#define CLI_EXPLAIN_TEXT_MAX 30   /* and by explain */
/* The input from..to of the traced parse, quoted as trees quote terminals; text
 * longer than max characters (whatever the unit; an invalid UTF-8 byte counts as
 * one) keeps max - 3 of them and "..." inside the quotes. Returns a malloc'd string, or NULL when out of memory. */
char *cli_quoted(const pego_trace_event *ev, uint64_t from, uint64_t to, uint64_t max);
void cli_print_json_string(FILE *out, const char *s);
/* What a failure expected, as a syntax error says it: "expected A, B", or the
 * #error messages among the items joined with "; " (they hide the other items).
 * Returns a malloc'd string, or NULL when out of memory. */
char *cli_expected_text(const char *const *items, size_t n);

int cmd_parse(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
