/* The runtime profiler behind --profile and PEGO_FLAGS (docs/profiling.md,
 * docs/report-format.md). It runs in one of two modes, chosen once:
 *   - sampled (--profile): the parse runs the profiled program (the fast
 *     program with counters, docs/architecture.md), which counts the
 *     reference program's calls exactly; time comes from the sampler
 *     (runtime/sampler.c), which reads the running rules at a fixed interval
 *     of the thread's wall-clock or CPU time; the calling-context tree is
 *     made of the samples' stacks. Grammars without a fast program, and parses
 *     it gives up (the nesting limit, a recovery), are counted on the
 *     reference program's call path, without clock readings; a syntax error
 *     is counted by the profiled program, and decided by the deciding run.
 *   - exact (--profile-detail): every call of the reference program is
 *     timed with the clock (steady, or the thread's CPU time with
 *     --profile-clock=cpu) at every frame transfer of the general call path,
 *     with repeated evaluations and wasted input, and the call graph.
 * Both keep exact counts per rule and exact per-parse times.
 * Each thread collects into a record of its own; at exit (or on a flush) the
 * records are merged into one report, written as one zstd frame.
 *
 * The library's only messages come from here: a malformed PEGO_FLAGS (once)
 * and a report the exit writer cannot write. They go to the warning handler
 * (pego_set_warning_handler), by default to standard error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1      /* secure_getenv */
#endif
#include "parser.h"
#include "report_writer.h"
#include "alloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_LIBUNWIND
#include <dlfcn.h>
#define UNW_LOCAL_ONLY 1   /* the local unwinder only: libunwind.so, not libunwind-ARCH */
#include <libunwind.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

/* ---- the clock ---- */

/* The clocks a report can be measured with: its header names them "monotonic",
 * "tsc" and "thread-cpu". --profile-clock=wall gives the first or the second,
 * --profile-clock=cpu the third. */
typedef enum { PROF_CLOCK_MONOTONIC, PROF_CLOCK_TSC, PROF_CLOCK_THREAD_CPU } prof_clock;
static const char *const clock_names[] = { "monotonic", "tsc", "thread-cpu" };

static int clock_kind = -1;   /* a prof_clock, decided once, when collecting first starts */

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int invariant_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u) return 0;
    __cpuid(0x80000007u, a, b, c, d);
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

/* One reading of the profiler's clock, in ticks: every measurement goes
 * through here. The thread's CPU time is per thread, as a parse is. */
static inline uint64_t ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (clock_kind == PROF_CLOCK_TSC) return __rdtsc();
#endif
    return clock_ns(clock_kind == PROF_CLOCK_THREAD_CPU ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC);
}

/* Calibration: ticks and nanoseconds at the start, to convert ticks at the end. */
static uint64_t cal_ticks, cal_ns;

static double ns_per_tick(void)
{
    if (clock_kind != PROF_CLOCK_TSC) return 1.0;
    uint64_t t = ticks(), n = clock_ns(CLOCK_MONOTONIC);
    if (t <= cal_ticks || n <= cal_ns) return 1.0;
    return (double)(n - cal_ns) / (double)(t - cal_ticks);
}

/* Decides the clock: the thread's CPU time when asked (cpu), else an
 * invariant TSC where the processor has one, else CLOCK_MONOTONIC. */
static void choose_clock(int cpu)
{
    clock_kind = cpu ? PROF_CLOCK_THREAD_CPU : invariant_tsc() ? PROF_CLOCK_TSC : PROF_CLOCK_MONOTONIC;
    cal_ticks = ticks();
    cal_ns = clock_ns(CLOCK_MONOTONIC);
}

/* ---- what is collected ---- */

/* A node of a calling-context tree: a rule; or, in the sampled tree, (CCT_LINE
 * | i) the source position lines[i] where the samples of its parent's path
 * fell, below the rules; or (CCT_NATIVE, with --profile-native) a native frame
 * of the samples below the VM, the code address pc, below those. */
typedef struct {
    uint32_t rule, parent, child, sibling;   /* child/sibling: first child, next sibling (0: none) */
    uintptr_t pc;
    uint64_t calls, self;
    uint64_t bytes;                          /* --profile-memory: node bytes built at this path */
} cct_node;

enum { CCT_LINE = 0x80000000u, CCT_NATIVE = 0x40000000u };
#define NO_LINE UINT32_MAX

/* Everything a thread's record knows about one grammar. The grammar's data is copied,
 * since a program may free the grammar before the report is written. */
typedef struct prof_grammar {
    const pego_grammar *g;
    uint64_t  hash;
    char     *name, *file;
    int       nrules;
    rep_rule_info *infos;
    rep_rule *rules;                 /* totals, times in ticks (exact mode) */
    uint64_t *self_samples, *incl_samples;   /* per rule (sampled mode) */
    char     *source; size_t source_len;     /* NULL when not carried (REP_SOURCE_MAX) */
    uint32_t  ncode;
    uint32_t *line_of;               /* per instruction: its index in lines, or NO_LINE */
    rep_line *lines; uint32_t nlines;  /* the distinct source positions of the code, in order;
                                          samples per position (sampled mode) */
    uint64_t *edge_calls, *edge_ticks; /* nrules x nrules, caller-major */
    cct_node *cct;  uint32_t ncct, capcct;  /* node 0 is the root above the start rule; self is
                                              in ticks, or in samples (sampled mode) */
    struct prof_grammar *next;
} prof_grammar;

/* --profile-native: a distinct native call stack of the program at the start
 * of parses (return addresses, innermost first, pego's own frames included),
 * with the parses made from it and their time in ticks. */
enum { NATIVE_DEPTH = 32 };

/* The bytes between two stack samples of --profile-memory in sampled mode,
 * on average: each stands for that many bytes (sample_memory_stack). */
enum { MEMORY_SAMPLE_BYTES = 512 };
typedef struct {
    void    *pcs[NATIVE_DEPTH];
    uint32_t n;
    uint64_t hash, parses, ticks;
} prof_caller;

/* The distinct stacks, in a table open-addressed by hash (cap a power of two, at most half full). */
typedef struct {
    prof_caller *slots; size_t n, cap;
} prof_callers;

typedef struct {
    rep_parse parse;                 /* time in ticks; input owned */
    const prof_grammar *grammar;
} prof_parse;

/* What one thread collected: its grammars and its parses. The lock keeps a
 * report from reading the record while the thread changes it: taken at the
 * end of a sampled parse, which adds what the parse counted; held for the
 * whole of an exact parse, which adds as it goes. */
typedef struct prof_thread {
    pthread_mutex_t lock;
    prof_grammar *grammars;
    prof_parse   *parses; size_t nparses, capparses;
    uint64_t      samples, samples_lost;   /* sampled mode: taken during parses, and not attributed */
    prof_callers  callers;           /* --profile-native */
    struct prof_thread *next;
} prof_thread;

/* One active call of the parse being profiled. */
typedef struct {
    uint32_t rule, pos, cct, prev_cct;
    uint32_t line;                   /* exact mode: where its body begins (lines), or NO_LINE */
    uint64_t start;
    uint8_t  outermost;
} prof_frame;

/* The per-parser state of a profiled parse (parser.h: p->prof). */
struct rt_profiler_state {
    prof_thread  *c;
    prof_grammar *pg;
    int           sampled;           /* sampled mode: counts only at the observation points,
                                        into rules until the parse ends */
    rep_rule     *rules;             /* sampled mode: this parse's counts, per rule */
    uint64_t      evals_seen;        /* evaluations the calls that ended gave */
    prof_frame   *stack; uint32_t depth, cap;
    uint32_t      cct;               /* current calling-context node */
    uint32_t     *active;            /* per rule: activations on the stack */
    int32_t      *onpath;            /* per rule: its node on the current context path, or -1 */
    uint64_t     *parse_self;        /* per rule: self ticks in this parse (top rule) */
    uint64_t      last, start, reads;
    uint64_t      calls0, evals0, memo0;
    /* --profile-detail: evaluations seen at (rule, position, level) in this parse */
    uint64_t     *seen_keys; uint32_t *seen_counts; uint32_t seen_n, seen_cap;
    uint32_t     *seen_gens, seen_gen;   /* a slot is this parse's when its generation is seen_gen */
    void         *native[NATIVE_DEPTH];   /* --profile-native: this parse's native call stack */
    uint32_t      nnative;
    /* --profile-memory: in sampled mode, the stacks that built nodes, as
     * samples weighted by bytes (sample_memory_stack), the bytes to the next
     * sample and the generator of the gaps; this parse's node bytes */
    rt_samples    mem;
    int64_t       mem_countdown;
    uint64_t      mem_random;
    uint64_t      node_bytes;
};

static struct {
    pthread_mutex_t lock;
    int      env_read;
    int      enabled;                /* collecting now */
    int      configured;             /* a report file is set */
    int      exit_registered;
    int      fork_registered;
    int      locking_records;        /* a writer (or a fork) waits for the records: parses wait */
    int      detail, append, native, memory;
    int      clock;                  /* --profile-clock: CLOCK_UNSET, CLOCK_WALL or CLOCK_CPU */
    uint64_t interval_ns;            /* --profile-interval (0: the default) */
    uint64_t flush_ns;               /* --profile-flush (0: at exit and on fatal signals only) */
    int      mode;                   /* -1 until collecting starts, then MODE_SAMPLED or MODE_EXACT */
    char    *file;                   /* the pattern given */
    char     error[8192];            /* the last configuration or write error */
    int64_t  pid, start;
    char     host[256];
    prof_thread *threads;            /* every thread's record */
} prof = { .lock = PTHREAD_MUTEX_INITIALIZER, .mode = -1 };

enum { MODE_SAMPLED, MODE_EXACT };
static const char *const mode_names[] = { "sampled", "exact" };

/* The sampling interval without --profile-interval, and its bounds
 * (microseconds). A sample is a signal, which costs tens of microseconds on
 * some virtual machines: every 1 ms it costs about 2% of the time of a parse
 * there (up to 4%), every 250 us about a tenth, for the same shares
 * (docs/profiling.md). */
enum { DEFAULT_INTERVAL_US = 1000, MIN_INTERVAL_US = 10, MAX_INTERVAL_US = 1000000 };
/* The bounds of --profile-flush (milliseconds). */
enum { MIN_FLUSH_MS = 10, MAX_FLUSH_MS = 24 * 3600 * 1000 };

static uint64_t interval_ns(void) { return prof.interval_ns ? prof.interval_ns : DEFAULT_INTERVAL_US * 1000u; }

static _Thread_local prof_thread *my_thread;
/* This thread holds my_thread->lock, or is about to take it: a report written
 * on this thread meanwhile (exit() from a signal handler or a trace callback)
 * reads its record without waiting for itself. It counts the holds: an exact
 * parse holds the record to its end, and a stream parse's reader or element
 * callback may parse too (hold_record, release_record). */
static _Thread_local volatile int my_record_held;

/* Holds and releases this thread's record c, taking its lock at the first
 * hold and giving it back at the last release. */
static void hold_record(prof_thread *c)
{
    if (my_record_held++ == 0) pthread_mutex_lock(&c->lock);
}
static void release_record(prof_thread *c)
{
    if (--my_record_held == 0) pthread_mutex_unlock(&c->lock);
}

/* ---- warnings ---- */

/* Where the library's messages go. The lock is held while a handler runs: two
 * never run at once, and a handler replaced is never called again. */
static struct {
    pthread_mutex_t lock;
    void (*fn)(const char *msg, void *ud);   /* NULL: standard error */
    void *ud;
} warning = { .lock = PTHREAD_MUTEX_INITIALIZER };

void pego_set_warning_handler(void (*fn)(const char *msg, void *ud), void *ud)
{
    pthread_mutex_lock(&warning.lock);
    warning.fn = fn;
    warning.ud = fn ? ud : NULL;
    pthread_mutex_unlock(&warning.lock);
}

/* Sends "pego: " and text to the warning handler. */
static void warn(const char *text)
{
    char msg[sizeof prof.error + 8];
    snprintf(msg, sizeof msg, "pego: %s", text);
    pthread_mutex_lock(&warning.lock);
    if (warning.fn) warning.fn(msg, warning.ud);
    else fprintf(stderr, "%s\n", msg);
    pthread_mutex_unlock(&warning.lock);
}

/* ---- options ---- */

enum { CLOCK_UNSET, CLOCK_WALL, CLOCK_CPU };   /* what --profile-clock asks for */

typedef struct {
    int   has_file, append, detail, native, memory, clock;
    uint64_t interval_ns, flush_ns;
    char *file;
    char  error[256];
} prof_options;

static int option_error(prof_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int option_error(prof_options *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->error, sizeof o->error, fmt, ap);
    va_end(ap);
    return -1;
}

/* The value of --profile-clock (NULL when it has none). */
static int clock_option(prof_options *o, const char *value)
{
    if (!value || !*value) return option_error(o, "--profile-clock needs a value: wall or cpu");
    if (strcmp(value, "wall") == 0) o->clock = CLOCK_WALL;
    else if (strcmp(value, "cpu") == 0) o->clock = CLOCK_CPU;
    else return option_error(o, "--profile-clock takes wall or cpu, not %s", value);
    return 0;
}

/* A duration: a whole number and a unit (us, ms, s, m), or a bare number of
 * bare_ns each (0: the unit is required). Returns nanoseconds, 0 when malformed. */
static uint64_t duration_ns(const char *value, uint64_t bare_ns)
{
    static const struct { const char *unit; uint64_t ns; } units[] = {
        { "us", 1000u }, { "ms", 1000000u }, { "s", 1000000000u }, { "m", 60000000000u },
    };
    if (!value || value[0] < '0' || value[0] > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(value, &end, 10);
    if (errno) return 0;
    uint64_t unit = *end ? 0 : bare_ns;
    for (size_t i = 0; i < sizeof units / sizeof units[0] && !unit; i++)
        if (strcmp(end, units[i].unit) == 0) unit = units[i].ns;
    return unit && n <= UINT64_MAX / unit ? (uint64_t)n * unit : 0;
}

/* The value of --profile-interval: a duration, microseconds when bare. */
static int interval_option(prof_options *o, const char *value)
{
    if (!value || !*value) return option_error(o, "--profile-interval needs a value: microseconds between samples");
    uint64_t ns = duration_ns(value, 1000u);
    if (ns < MIN_INTERVAL_US * 1000ull || ns > MAX_INTERVAL_US * 1000ull)
        return option_error(o, "--profile-interval takes 10us to 1s (a bare number is microseconds), not %s", value);
    o->interval_ns = ns;
    return 0;
}

/* The value of --profile-flush: a duration with its unit. */
static int flush_option(prof_options *o, const char *value)
{
    if (!value || !*value) return option_error(o, "--profile-flush needs a duration, such as 10s");
    uint64_t ns = duration_ns(value, 0);
    if (ns < MIN_FLUSH_MS * 1000000ull || ns > MAX_FLUSH_MS * 1000000ull)
        return option_error(o, "--profile-flush takes a duration from 10ms to 24h with its unit (500ms, 10s, 1m), not %s",
                            value);
    o->flush_ns = ns;
    return 0;
}

/* The report file of o; -1 when out of memory. */
static int set_file(prof_options *o, const char *file)
{
    rt_free(o->file);
    o->file = rt_strdup(file);
    if (!o->file) return option_error(o, "out of memory");
    o->has_file = 1;
    return 0;
}

/* Parses a space-separated option list (PEGO_FLAGS, or options given to
 * pego_profile_start). where names the source in messages ("PEGO_FLAGS"). */
static int parse_options(const char *text, const char *where, prof_options *o)
{
    char *copy = rt_strdup(text ? text : "");
    if (!copy) return option_error(o, "out of memory");
    int status = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, " \t\n", &save); tok && !status; tok = strtok_r(NULL, " \t\n", &save)) {
        if (strcmp(tok, "--profile") == 0 || strcmp(tok, "-profile") == 0) {
            char *next = strtok_r(NULL, " \t\n", &save);
            if (!next || next[0] == '-') status = option_error(o, "--profile needs a file name");
            else status = set_file(o, next);
        } else if (strncmp(tok, "--profile=", 10) == 0 || strncmp(tok, "-profile=", 9) == 0) {
            const char *f = strchr(tok, '=') + 1;
            if (!*f) status = option_error(o, "--profile needs a file name");
            else status = set_file(o, f);
        } else if (strcmp(tok, "--profile-append") == 0 || strcmp(tok, "-profile-append") == 0) {
            o->append = 1;
        } else if (strcmp(tok, "--profile-detail") == 0 || strcmp(tok, "-profile-detail") == 0) {
            o->detail = 1;
        } else if (strcmp(tok, "--profile-clock") == 0 || strcmp(tok, "-profile-clock") == 0) {
            status = clock_option(o, strtok_r(NULL, " \t\n", &save));
        } else if (strncmp(tok, "--profile-clock=", 16) == 0 || strncmp(tok, "-profile-clock=", 15) == 0) {
            status = clock_option(o, strchr(tok, '=') + 1);
        } else if (strcmp(tok, "--profile-interval") == 0 || strcmp(tok, "-profile-interval") == 0) {
            status = interval_option(o, strtok_r(NULL, " \t\n", &save));
        } else if (strncmp(tok, "--profile-interval=", 19) == 0 || strncmp(tok, "-profile-interval=", 18) == 0) {
            status = interval_option(o, strchr(tok, '=') + 1);
        } else if (strcmp(tok, "--profile-flush") == 0 || strcmp(tok, "-profile-flush") == 0) {
            status = flush_option(o, strtok_r(NULL, " \t\n", &save));
        } else if (strncmp(tok, "--profile-flush=", 16) == 0 || strncmp(tok, "-profile-flush=", 15) == 0) {
            status = flush_option(o, strchr(tok, '=') + 1);
        } else if (strcmp(tok, "--profile-memory") == 0 || strcmp(tok, "-profile-memory") == 0) {
            o->memory = 1;
        } else if (strcmp(tok, "--profile-native") == 0 || strcmp(tok, "-profile-native") == 0) {
#ifdef HAVE_LIBUNWIND
            o->native = 1;
#else
            status = option_error(o, "--profile-native needs libunwind, which this build of pego was made without");
#endif
        } else {
            status = option_error(o, "unknown option in %s: %s", where, tok);
        }
    }
    rt_free(copy);
    return status;
}

static void before_fork(void);
static void after_fork_in_parent(void);
static void after_fork_in_child(void);

/* Adds the flags of o (with the lock held); wins: its clock replaces one
 * already asked for (the code's options win over PEGO_FLAGS). */
static void merge_flags(const prof_options *o, int wins)
{
    if (o->append) prof.append = 1;
    if (o->detail) prof.detail = 1;
    if (o->native) prof.native = 1;
    if (o->memory) prof.memory = 1;
    if (o->clock && (wins || !prof.clock)) prof.clock = o->clock;
    if (o->interval_ns && (wins || !prof.interval_ns)) prof.interval_ns = o->interval_ns;
    if (o->flush_ns && (wins || !prof.flush_ns)) prof.flush_ns = o->flush_ns;
}

/* Applies options (with the lock held): a file configures a report. Returns 0,
 * or -1 when out of memory (nothing changed). */
static int apply_options(const prof_options *o, int wins)
{
    char *file = o->has_file ? rt_strdup(o->file) : NULL;
    if (o->has_file && !file) return -1;
    merge_flags(o, wins);
    if (!o->has_file) return 0;
    rt_free(prof.file);
    prof.file = file;
    prof.configured = 1;
    if (!prof.start) {
        prof.start = (int64_t)time(NULL);
        prof.pid = (int64_t)getpid();
        if (gethostname(prof.host, sizeof prof.host - 1) != 0) strcpy(prof.host, "unknown");
    }
    if (!prof.exit_registered && atexit(rt_profiler_write_now) == 0) prof.exit_registered = 1;
    if (!prof.fork_registered &&
        pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child) == 0)
        prof.fork_registered = 1;
    return 0;
}

/* Turns collecting on (with the lock held, a report configured). The clock is
 * chosen the first time, once every option is known, and then stays: a
 * report never mixes clocks. */
static void start_collecting(void)
{
    if (clock_kind < 0) choose_clock(prof.clock == CLOCK_CPU);
    if (prof.mode < 0) prof.mode = prof.detail ? MODE_EXACT : MODE_SAMPLED;
    prof.enabled = 1;
    rt_flusher_start(prof.flush_ns);
}

/* Reads PEGO_FLAGS once per process (ignored in set-user-ID and set-group-ID
 * programs). Options given to pego_profile_start before win. Returns -1 with
 * the message in prof.error when the variable is malformed. */
static int read_env_locked(void)
{
    if (prof.env_read) return 0;
    prof.env_read = 1;
    const char *env = secure_getenv("PEGO_FLAGS");
    if (!env || !*env) return 0;
    prof_options o = { 0 };
    int status = parse_options(env, "PEGO_FLAGS", &o);
    if (status == 0 && !prof.configured) {
        if (apply_options(&o, 0) < 0) status = option_error(&o, "out of memory");
        else if (prof.configured) start_collecting();
    } else if (status == 0) {
        merge_flags(&o, 0);               /* the code's options win; add only what it left unset */
    }
    if (status) snprintf(prof.error, sizeof prof.error, "%s", o.error);
    rt_free(o.file);
    return status;
}

/* Called when a parser is created: the first one reads PEGO_FLAGS, and a
 * malformed value is reported once; the program goes on unprofiled. The
 * message is copied under the lock, since another thread may change
 * prof.error as soon as it is released. */
void rt_profiler_init(void)
{
    char message[sizeof prof.error] = "";
    pthread_mutex_lock(&prof.lock);
    if (read_env_locked()) snprintf(message, sizeof message, "%s", prof.error);
    pthread_mutex_unlock(&prof.lock);
    if (*message) warn(message);
}

/* The message of this thread's last failed pego_profile_start or
 * pego_profile_flush (pego_profile_error): copied from prof.error under the
 * lock, which another thread may change as soon as it is released. */
static _Thread_local char my_error[sizeof prof.error];

static void keep_error_locked(void) { snprintf(my_error, sizeof my_error, "%s", prof.error); }

int pego_profile_start(const char *file, const char *options)
{
    prof_options o = { 0 };
    int status = parse_options(options, "options", &o);
    if (!status && file) {
        if (!*file) status = option_error(&o, "--profile needs a file name");
        else status = set_file(&o, file);
    }
    pthread_mutex_lock(&prof.lock);
    if (!status && o.clock && clock_kind >= 0 && (o.clock == CLOCK_CPU) != (clock_kind == PROF_CLOCK_THREAD_CPU))
        status = option_error(&o, "--profile-clock cannot change once profiling has started");
    if (!status && o.detail && prof.mode == MODE_SAMPLED)
        status = option_error(&o, "--profile-detail cannot change once profiling has started");
    if (status) {
        snprintf(prof.error, sizeof prof.error, "%s", o.error);
    } else {
        if (apply_options(&o, 1) < 0) {
            snprintf(prof.error, sizeof prof.error, "out of memory");
            status = -1;
        } else {
            status = read_env_locked();
        }
        if (!status && prof.configured) start_collecting();
    }
    if (status) keep_error_locked();
    pthread_mutex_unlock(&prof.lock);
    rt_free(o.file);
    return status;
}

int pego_profile_stop(void)
{
    pthread_mutex_lock(&prof.lock);
    prof.enabled = 0;
    pthread_mutex_unlock(&prof.lock);
    return 0;
}

const char *pego_profile_error(void) { return my_error; }

int pego_profile_active(void) { return prof.enabled; }

/* ---- collecting ---- */

/* The calling thread's record, made at its first profiled parse. */
static prof_thread *this_thread(void)
{
    if (my_thread) return my_thread;
    prof_thread *c = rt_calloc(1, sizeof *c);
    if (!c) return NULL;
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_lock(&prof.lock);
    c->next = prof.threads;
    prof.threads = c;
    pthread_mutex_unlock(&prof.lock);
    my_thread = c;
    return c;
}

/* The distinct source positions of g's code (its disassembly's table), in
 * source order, and the position of each instruction: where the samples of
 * the instruction running go. Returns -1 when out of memory. */
static int line_table(prof_grammar *pg, const pego_grammar *g)
{
    uint32_t n = g->ncode, k = 0;
    pg->ncode = n;
    pg->line_of = rt_malloc(((size_t)n + 1) * sizeof *pg->line_of);
    pg->lines = rt_calloc((size_t)n + 1, sizeof *pg->lines);
    uint64_t *keys = rt_malloc(((size_t)n + 1) * sizeof *keys);
    if (!pg->line_of || !pg->lines || !keys) {
        rt_free(keys);
        return -1;
    }
    /* the distinct keys, kept in order as they come: the programs share a
     * grammar's few hundred positions, so each is a search and, rarely, a
     * short move (sorting every instruction's key took 200,000 to 350,000
     * instructions more, once per grammar and thread, on the benchmark
     * grammars) */
    for (uint32_t at = 0; at < n; at++) {
        if (g->src[at].line <= 0) continue;
        uint64_t key = (uint64_t)g->src[at].line << 32 | (uint32_t)g->src[at].col;
        uint32_t lo = 0, hi = k;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (keys[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        if (lo < k && keys[lo] == key) continue;
        memmove(keys + lo + 1, keys + lo, (size_t)(k - lo) * sizeof *keys);
        keys[lo] = key;
        k++;
    }
    for (uint32_t i = 0; i < k; i++) pg->lines[i] = (rep_line){ .line = (uint32_t)(keys[i] >> 32), .col = (uint32_t)keys[i] };
    pg->nlines = k;
    for (uint32_t at = 0; at < n; at++) {
        pg->line_of[at] = NO_LINE;
        if (g->src[at].line <= 0) continue;
        uint64_t key = (uint64_t)g->src[at].line << 32 | (uint32_t)g->src[at].col;
        uint32_t lo = 0, hi = k;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (keys[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        pg->line_of[at] = lo;
    }
    rt_free(keys);
    return 0;
}

static prof_grammar *grammar_of(prof_thread *c, const pego_grammar *g)
{
    for (prof_grammar *pg = c->grammars; pg; pg = pg->next)
        if (pg->g == g && pg->hash == g->source_hash) return pg;
    prof_grammar *pg = rt_calloc(1, sizeof *pg);
    if (!pg) return NULL;
    int n = g->nrules;
    pg->g = g;
    pg->hash = g->source_hash;
    /* the report names a grammar by its file's base name without .pego */
    const char *base = strrchr(g->name, '/') ? strrchr(g->name, '/') + 1 : g->name;
    size_t blen = strlen(base);
    if (blen > 5 && strcmp(base + blen - 5, ".pego") == 0) blen -= 5;
    pg->name = rt_strndup(base, blen);
    pg->file = rt_strdup(g->file ? g->file : "");
    if (g->source) {
        pg->source = rt_malloc(g->source_len + 1);
        if (!pg->source) goto oom;
        memcpy(pg->source, g->source, g->source_len + 1);
        pg->source_len = g->source_len;
    }
    if (line_table(pg, g) < 0) goto oom;
    pg->nrules = n;
    pg->infos = rt_calloc((size_t)n + 1, sizeof *pg->infos);
    pg->rules = rt_calloc((size_t)n + 1, sizeof *pg->rules);
    pg->edge_calls = rt_calloc((size_t)n * (size_t)n + 1, sizeof(uint64_t));
    pg->edge_ticks = rt_calloc((size_t)n * (size_t)n + 1, sizeof(uint64_t));
    pg->self_samples = rt_calloc((size_t)n + 1, sizeof(uint64_t));
    pg->incl_samples = rt_calloc((size_t)n + 1, sizeof(uint64_t));
    pg->capcct = 64;
    pg->cct = rt_calloc(pg->capcct, sizeof *pg->cct);
    if (!pg->name || !pg->file || !pg->infos || !pg->rules || !pg->edge_calls || !pg->edge_ticks || !pg->cct ||
        !pg->self_samples || !pg->incl_samples)
        goto oom;
    pg->ncct = 1;
    pg->cct[0].rule = UINT32_MAX;
    for (int r = 0; r < n; r++) {
        pg->infos[r] = (rep_rule_info){ rt_strdup(g->rules[r].name), (uint32_t)g->rules[r].line, (uint32_t)g->rules[r].col };
        pg->rules[r].rule = (uint32_t)r;
    }
    pg->next = c->grammars;
    c->grammars = pg;
    return pg;
oom:
    rt_free(pg->name); rt_free(pg->file); rt_free(pg->infos); rt_free(pg->rules);
    rt_free(pg->edge_calls); rt_free(pg->edge_ticks); rt_free(pg->cct);
    rt_free(pg->self_samples); rt_free(pg->incl_samples);
    rt_free(pg->source); rt_free(pg->line_of); rt_free(pg->lines); rt_free(pg);
    return NULL;
}

/* The calling-context node for rule under the current node. A rule already on
 * the path folds back to its node, so recursion does not grow the tree. */
static uint32_t cct_enter(rt_profiler_state *s, uint32_t rule)
{
    prof_grammar *pg = s->pg;
    if (s->onpath[rule] >= 0) return (uint32_t)s->onpath[rule];
    for (uint32_t k = pg->cct[s->cct].child; k; k = pg->cct[k].sibling)
        if (pg->cct[k].rule == rule) return k;
    if (pg->ncct == pg->capcct) {
        cct_node *n = rt_realloc(pg->cct, 2 * pg->capcct * sizeof *n);
        if (!n) return s->cct;       /* out of memory: the time stays with the caller's node */
        pg->cct = n;
        pg->capcct *= 2;
    }
    uint32_t k = pg->ncct++;
    pg->cct[k] = (cct_node){ .rule = rule, .parent = s->cct, .sibling = pg->cct[s->cct].child };
    pg->cct[s->cct].child = k;
    return k;
}

/* Gives the time since the last transfer to the rule on top, and to the
 * source position line (an index in lines, or NO_LINE). */
static inline void attribute(rt_profiler_state *s, uint64_t now, uint32_t line)
{
    if (s->depth) {
        const prof_frame *top = &s->stack[s->depth - 1];
        uint64_t d = now - s->last;
        s->pg->rules[top->rule].self_ns += d;
        s->pg->cct[s->cct].self += d;
        s->parse_self[top->rule] += d;
        if (line != NO_LINE) s->pg->lines[line].self_ns += d;
    }
    s->last = now;
    s->reads++;
}

/* --profile-detail: the table of evaluations at (rule, position, level) with
 * room for cap (a power of two) slots, this parse's moved into it; -1 when out
 * of memory. */
static int seen_grow(rt_profiler_state *s, uint32_t cap)
{
    uint64_t *keys = rt_malloc((size_t)cap * sizeof *keys);
    uint32_t *counts = rt_malloc((size_t)cap * sizeof *counts), *gens = rt_calloc(cap, sizeof *gens);
    if (!keys || !counts || !gens) {
        rt_free(keys);
        rt_free(counts);
        rt_free(gens);
        return -1;
    }
    if (!s->seen_gen) s->seen_gen = 1;      /* 0: no slot's */
    for (uint32_t i = 0; i < s->seen_cap; i++) {
        if (s->seen_gens[i] != s->seen_gen) continue;
        uint32_t j = (uint32_t)((s->seen_keys[i] * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
        while (gens[j] == s->seen_gen) j = (j + 1) & (cap - 1);
        keys[j] = s->seen_keys[i];
        counts[j] = s->seen_counts[i];
        gens[j] = s->seen_gen;
    }
    rt_free(s->seen_keys);
    rt_free(s->seen_counts);
    rt_free(s->seen_gens);
    s->seen_keys = keys;
    s->seen_counts = counts;
    s->seen_gens = gens;
    s->seen_cap = cap;
    return 0;
}

uint32_t rt_profiler_repeat_positions(const pego_parser *p)
{
    return p->prof && !p->prof->sampled ? p->prof->seen_n : 0;
}

/* --profile-detail: a new parse of len bytes: the slots of the last are no
 * longer this parse's (a new generation, not a table cleared), and the table
 * has room for about one evaluation a byte from the start, up to 2^20 slots. */
static void seen_reset(rt_profiler_state *s, uint32_t len)
{
    if (++s->seen_gen == 0) {                /* the generations went round: clear them */
        if (s->seen_gens) memset(s->seen_gens, 0, s->seen_cap * sizeof *s->seen_gens);
        s->seen_gen = 1;
    }
    s->seen_n = 0;
    uint32_t want = 4096;
    while (want < (1u << 20) && want < 2 * (uint64_t)len) want *= 2;
    if (s->seen_cap < want) (void)seen_grow(s, want);   /* out of memory: it grows when needed */
}

/* --profile-detail, a stream parse: the evaluations before base, input the
 * parse released, are forgotten, as the collectors forget them: the table
 * holds those of the input held, in room for them (at least 4096 slots). */
void rt_profiler_input_released(pego_parser *p, uint32_t base)
{
    rt_profiler_state *s = p->prof;
    if (!p->prof_on || !s || s->sampled || !s->seen_cap) return;
    /* the slots of the positions released leave this parse's generation,
     * and the rest move to a table of their own size */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->seen_cap; i++) {
        if (s->seen_gens[i] != s->seen_gen) continue;
        if (((s->seen_keys[i] - 1) >> 32) < base) s->seen_gens[i] = 0;
        else kept++;
    }
    uint32_t cap = 4096;
    while (cap < 4 * (uint64_t)kept) cap *= 2;
    s->seen_n = kept;
    if (seen_grow(s, cap) < 0) seen_reset(s, 0);   /* out of memory: the table has holes; forget it all */
}

/* --profile-detail: counts an evaluation of rule at (pos, level); returns how
 * many evaluations came before it in this parse. */
static uint32_t seen_before(rt_profiler_state *s, uint32_t rule, uint32_t pos, uint32_t level)
{
    uint64_t key = ((uint64_t)pos << 32 | (uint64_t)rule << 8 | (level & 0xff)) + 1;
    if ((s->seen_n + 1) * 2 > s->seen_cap && seen_grow(s, s->seen_cap ? s->seen_cap * 2 : 4096) < 0) return 0;
    uint32_t j = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (s->seen_cap - 1);
    while (s->seen_gens[j] == s->seen_gen && s->seen_keys[j] != key) j = (j + 1) & (s->seen_cap - 1);
    if (s->seen_gens[j] != s->seen_gen) {
        s->seen_keys[j] = key;
        s->seen_counts[j] = 0;
        s->seen_gens[j] = s->seen_gen;
        s->seen_n++;
    }
    return s->seen_counts[j]++;
}

void rt_profiler_enter(pego_parser *p, uint32_t variant, uint32_t pos)
{
    rt_profiler_state *s = p->prof;
    if (p->memory) rt_memory_check(p);
    const pego_grammar *g = p->g;
    uint32_t rule = variant % (uint32_t)g->nrules;
    /* the caller's time up to this call goes to the call's line, the rule's
     * time up to its own return to the line where its body begins */
    uint32_t call = p->observed_call, body = variant < (uint32_t)g->nrules ? g->rules[rule].entry : g->rules[rule].vf_entry;
    if (!s->sampled) attribute(s, ticks(), call && call <= s->pg->ncode ? s->pg->line_of[call - 1] : NO_LINE);
    if (s->depth == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 256;
        prof_frame *st = rt_realloc(s->stack, cap * sizeof *st);
        if (!st) return;             /* out of memory: this call goes uncounted */
        s->stack = st;
        s->cap = cap;
    }
    if (s->sampled) {                /* counts only: the sampler measures time */
        s->stack[s->depth++] = (prof_frame){ .rule = rule, .pos = pos };
        s->rules[rule].calls++;
        return;
    }
    uint32_t node = cct_enter(s, rule);
    prof_frame *f = &s->stack[s->depth++];
    *f = (prof_frame){ .rule = rule, .pos = pos, .cct = node, .prev_cct = s->cct, .start = s->last,
                       .outermost = s->active[rule] == 0,
                       .line = body < s->pg->ncode ? s->pg->line_of[body] : NO_LINE };
    if (s->onpath[rule] < 0) s->onpath[rule] = (int32_t)node;
    else f->outermost |= 2;          /* folded: this frame did not set onpath */
    s->active[rule]++;
    s->cct = node;
    s->pg->cct[node].calls++;
    s->pg->rules[rule].calls++;
}

void rt_profiler_exit(pego_parser *p, int ok, uint32_t end, uint32_t examined, uint64_t evals, int memo)
{
    rt_profiler_state *s = p->prof;
    if (p->memory) rt_memory_check(p);
    if (!s->depth) return;
    uint64_t now = s->sampled ? 0 : ticks();
    if (!s->sampled) attribute(s, now, s->stack[s->depth - 1].line);
    prof_frame *f = &s->stack[--s->depth];
    prof_grammar *pg = s->pg;
    rep_rule *r = s->sampled ? &s->rules[f->rule] : &pg->rules[f->rule];
    r->evals += evals;
    s->evals_seen += evals;
    if (memo) r->memo++;
    rt_input *in = &p->in;
    if (ok) {
        r->matched++;
        r->consumed += end - f->pos;          /* bytes, in every unit */
    } else {
        r->failed++;
    }
    if (s->sampled) return;
    if (prof.detail && !memo && evals) {
        uint32_t level = 0;
        uint32_t before = seen_before(s, f->rule, f->pos, level);
        if (before) {
            r->repeats++;
            if (before > r->max_repeats) {
                r->max_repeats = before;
                r->max_repeats_pos = rt_input_unit(in, f->pos);
            }
        }
        if (!ok) r->wasted += examined - f->pos;
    }
    int outermost = --s->active[f->rule] == 0;
    if (outermost) r->time_ns += now - f->start;
    if (!(f->outermost & 2)) s->onpath[f->rule] = -1;
    s->cct = f->prev_cct;
    if (s->depth) {                  /* an edge's time, like a rule's, counts a recursive call once */
        uint32_t caller = s->stack[s->depth - 1].rule;
        pg->edge_calls[(size_t)caller * (size_t)pg->nrules + f->rule]++;
        if (outermost) pg->edge_ticks[(size_t)caller * (size_t)pg->nrules + f->rule] += now - f->start;
    }
}

static void state_free(rt_profiler_state *s)
{
    if (!s) return;
    rt_free(s->stack);
    rt_free(s->active);
    rt_free(s->onpath);
    rt_free(s->parse_self);
    rt_free(s->rules);
    rt_free(s->seen_keys);
    rt_free(s->seen_counts);
    rt_free(s->seen_gens);
    rt_sampler_free(&s->mem);
    rt_free(s);
}

void rt_profiler_parser_free(pego_parser *p) { state_free(p->prof); p->prof = NULL; }

/* Prepares p's profiling state for a parse (the thread's record locked). */
static int begin_locked(pego_parser *p, prof_thread *c)
{
    prof_grammar *pg = grammar_of(c, p->g);
    if (!pg) return 0;
    rt_profiler_state *s = p->prof;
    int n = p->g->nrules;
    if (!s || s->pg != pg) {
        state_free(s);
        s = p->prof = rt_calloc(1, sizeof *s);
        if (!s) return 0;
        s->active = rt_calloc((size_t)n + 1, sizeof *s->active);
        s->onpath = rt_malloc(((size_t)n + 1) * sizeof *s->onpath);
        s->parse_self = rt_calloc((size_t)n + 1, sizeof *s->parse_self);
        s->rules = rt_calloc((size_t)n + 1, sizeof *s->rules);
        if (!s->active || !s->onpath || !s->parse_self || !s->rules) { rt_profiler_parser_free(p); return 0; }
        s->c = c;
        s->pg = pg;
    }
    memset(s->active, 0, (size_t)n * sizeof *s->active);
    for (int r = 0; r < n; r++) s->onpath[r] = -1;
    memset(s->parse_self, 0, (size_t)n * sizeof *s->parse_self);
    if (prof.mode != MODE_SAMPLED) seen_reset(s, p->in.len);
    s->depth = 0;
    s->cct = 0;
    s->evals_seen = 0;
    s->sampled = prof.mode == MODE_SAMPLED;
    if (s->sampled) {
        for (int r = 0; r < n; r++) s->rules[r] = (rep_rule){ .rule = (uint32_t)r };
        if (rt_sampler_prepare(&p->samples, (uint32_t)n, p->g->ncode, prof.native) < 0) return 0;
        if (prof.memory && rt_sampler_prepare(&s->mem, (uint32_t)n, p->g->ncode, 0) < 0) return 0;
    }
    s->node_bytes = 0;
    s->mem_random = 0x9E3779B97F4A7C15ull;
    s->mem_countdown = MEMORY_SAMPLE_BYTES;
    p->memory = prof.memory;
    return 1;
}

/* ---- native call stacks (--profile-native) ---- */

/* The native call stack here, innermost first: its length, 0 without libunwind. */
static uint32_t capture_native(void **pcs)
{
#ifdef HAVE_LIBUNWIND
    int n = unw_backtrace(pcs, NATIVE_DEPTH);
    return n > 0 ? (uint32_t)n : 0;
#else
    (void)pcs;
    return 0;
#endif
}

static uint64_t hash_native(void *const *pcs, uint32_t n)
{
    uint64_t h = 14695981039346656037u;
    for (uint32_t i = 0; i < n; i++) h = (h ^ (uint64_t)(uintptr_t)pcs[i]) * 1099511628211u;
    return h ? h : 1;                 /* 0 marks an empty slot */
}

/* Adds parses made from the stack pcs[0..n) and their ticks to t; a stack
 * that does not fit (out of memory) is not counted. */
static void add_caller(prof_callers *t, void *const *pcs, uint32_t n, uint64_t parses, uint64_t ticks)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        prof_caller *slots = rt_calloc(cap, sizeof *slots);
        if (!slots) return;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].hash) continue;
            size_t k = t->slots[i].hash & (cap - 1);
            while (slots[k].hash) k = (k + 1) & (cap - 1);
            slots[k] = t->slots[i];
        }
        rt_free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    uint64_t h = hash_native(pcs, n);
    size_t k = h & (t->cap - 1);
    for (;; k = (k + 1) & (t->cap - 1)) {
        prof_caller *e = &t->slots[k];
        if (!e->hash) {
            e->hash = h;
            e->n = n;
            memcpy(e->pcs, pcs, n * sizeof *pcs);
            t->n++;
        } else if (e->hash != h || e->n != n || memcmp(e->pcs, pcs, n * sizeof *pcs) != 0) {
            continue;
        }
        e->parses += parses;
        e->ticks += ticks;
        return;
    }
}

#ifdef HAVE_LIBUNWIND
/* The name of the function at code from its object's symbol table, into
 * name; 0 when there is none. A stripped object has only the symbols it
 * exports: the one before code may be another function's, so the symbol's
 * address must be where the function's unwind information says it starts. */
static int symbol_name(uintptr_t code, char *name, size_t size)
{
    unw_accessors_t *a = unw_get_accessors(unw_local_addr_space);
    unw_word_t off;
    unw_proc_info_t pi;
    unw_word_t at = (unw_word_t)code;
    return a && a->get_proc_name && a->get_proc_name(unw_local_addr_space, at, name, size, &off, NULL) == 0 &&
           unw_get_proc_info_by_ip(unw_local_addr_space, at, &pi, NULL) == 0 && at - off == pi.start_ip;
}

/* "function (object+0xOFFSET)" for the code address code, the offset being
 * that of *offset in the object, or "function (object)" when offset is NULL.
 * The function is named by dladdr (the symbols the object exports), else from
 * the object's symbol table (symbol_name), which has its static functions when
 * the object is not stripped; "??" when neither names it. Returns a rt_malloc'd string, or NULL. */
static char *native_name(uintptr_t code, const uintptr_t *offset)
{
    Dl_info d;
    if (!dladdr((void *)code, &d) || !d.dli_fname) return rt_strdup("?? (?)");
    const char *obj = strrchr(d.dli_fname, '/') ? strrchr(d.dli_fname, '/') + 1 : d.dli_fname;
    char fn[256];
    const char *name = d.dli_sname ? d.dli_sname : symbol_name(code, fn, sizeof fn) ? fn : "??";
    rt_buf b;
    rt_buf_init(&b);
    rt_buf_printf(&b, "%s (%s", name, *obj ? obj : "?");
    if (offset) rt_buf_printf(&b, "+0x%lx", (unsigned long)(*offset - (uintptr_t)d.dli_fbase));
    rt_buf_addc(&b, ')');
    if (b.oom) { rt_buf_free(&b); return NULL; }
    return rt_buf_take(&b);
}

/* The frames of e above pego's own: those after the outermost frame of a
 * public pego_ function (all of them when none is named). */
static uint32_t first_host_frame(const prof_caller *e)
{
    uint32_t first = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        Dl_info d;
        if (dladdr((char *)e->pcs[i] - 1, &d) && d.dli_sname && strncmp(d.dli_sname, "pego_", 5) == 0) first = i + 1;
    }
    return first < e->n ? first : 0;
}

/* Adds a caller record per distinct stack of every thread, symbolized once. */
static int add_callers(rep_builder *b, double scale)
{
    prof_callers all = { 0 };
    for (prof_thread *c = prof.threads; c; c = c->next)
        for (size_t i = 0; i < c->callers.cap; i++) {
            const prof_caller *e = &c->callers.slots[i];
            if (e->hash && e->parses) add_caller(&all, e->pcs, e->n, e->parses, e->ticks);
        }
    int status = 0;
    for (size_t i = 0; i < all.cap && !status; i++) {
        const prof_caller *e = &all.slots[i];
        if (!e->hash) continue;
        char *names[NATIVE_DEPTH];
        uint32_t first = first_host_frame(e), n = 0;
        for (uint32_t k = first; k < e->n; k++) {
            uintptr_t ret = (uintptr_t)e->pcs[k];
            if (!(names[n++] = native_name(ret - 1, &ret))) status = -1;
        }
        rep_caller rc = { .nframes = n, .frames = (const char *const *)names, .parses = e->parses,
                          .time_ns = (uint64_t)((double)e->ticks * scale) };
        if (!status) status = rep_add_caller(b, &rc);
        for (uint32_t k = 0; k < n; k++) rt_free(names[k]);
    }
    rt_free(all.slots);
    return status;
}
#endif

/* The names of the native frames of the sampled trees (--profile-native):
 * each distinct code address, in order, named once per report. */
typedef struct {
    uintptr_t *pcs;
    char     **names;
    size_t     n;
} native_names;

static int compare_pc(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

static void native_names_free(native_names *t)
{
    for (size_t i = 0; t->names && i < t->n; i++) rt_free(t->names[i]);
    rt_free(t->names);
    rt_free(t->pcs);
    memset(t, 0, sizeof *t);
}

/* Names the native frames of every thread's trees; -1 when out of memory. */
static int native_names_make(native_names *t)
{
    memset(t, 0, sizeof *t);
    size_t cap = 0;
    for (prof_thread *c = prof.threads; c; c = c->next)
        for (prof_grammar *pg = c->grammars; pg; pg = pg->next)
            for (uint32_t k = 1; k < pg->ncct; k++) cap += pg->cct[k].rule == CCT_NATIVE;
    if (!cap) return 0;
    t->pcs = rt_malloc(cap * sizeof *t->pcs);
    t->names = rt_calloc(cap, sizeof *t->names);
    if (!t->pcs || !t->names) return -1;
    for (prof_thread *c = prof.threads; c; c = c->next)
        for (prof_grammar *pg = c->grammars; pg; pg = pg->next)
            for (uint32_t k = 1; k < pg->ncct; k++)
                if (pg->cct[k].rule == CCT_NATIVE) t->pcs[t->n++] = pg->cct[k].pc;
    qsort(t->pcs, t->n, sizeof *t->pcs, compare_pc);
    size_t m = 0;
    for (size_t i = 0; i < t->n; i++)
        if (!m || t->pcs[i] != t->pcs[m - 1]) t->pcs[m++] = t->pcs[i];
    t->n = m;
    for (size_t i = 0; i < m; i++) {
#ifdef HAVE_LIBUNWIND
        t->names[i] = native_name(t->pcs[i], NULL);
#else
        t->names[i] = rt_strdup("?? (?)");
#endif
        if (!t->names[i]) return -1;
    }
    return 0;
}

static const char *native_name_of(const native_names *t, uintptr_t pc)
{
    if (!t->n) return "??";
    const uintptr_t *at = bsearch(&pc, t->pcs, t->n, sizeof *t->pcs, compare_pc);
    return at ? t->names[at - t->pcs] : "??";
}

/* Says once per process why the sampler cannot take samples, when it is
 * because of the program's signal handlers (status: rt_sampler_begin's). */
static void sampler_warning(int status)
{
    static int said;
    if ((status != RT_SAMPLER_NO_SIGNAL && status != RT_SAMPLER_REPLACED) || __atomic_exchange_n(&said, 1, __ATOMIC_SEQ_CST))
        return;
    warn(status == RT_SAMPLER_NO_SIGNAL
             ? "SIGPROF and every real-time signal have handlers of the program's: sampled parses are counted "
               "but get no samples"
             : "the program replaced the profiler's signal handler: sampled parses are counted but get no samples");
}

/* Starts profiling a parse when profiling is on: returns 1 when it is. An
 * exact parse keeps its thread's record locked until it ends. */
int rt_profiler_parse_begin(pego_parser *p)
{
    if (!prof.enabled) return 0;
    rt_flusher_check();
    prof_thread *c = this_thread();
    if (!c) return 0;
    /* let a writer have the record first, unless this thread holds it (a
     * parse in a stream parse's callback, under --profile-detail): the
     * writer waits for the parse holding it to end */
    if (!my_record_held && __atomic_load_n(&prof.locking_records, __ATOMIC_SEQ_CST)) {
        pthread_mutex_lock(&prof.lock);
        pthread_mutex_unlock(&prof.lock);
    }
    hold_record(c);
    int on = begin_locked(p, c);
    if (!on || p->prof->sampled) release_record(c);   /* an exact parse keeps it */
    if (!on) return 0;
    rt_profiler_state *s = p->prof;
    s->nnative = prof.native ? capture_native(s->native) : 0;
    s->start = s->last = ticks();
    s->reads = 1;
    /* without a timer (rt_sampler_begin fails) the parse is counted, and its rules get no samples */
    if (s->sampled) {
        p->sampled = 1;
        sampler_warning(rt_sampler_begin(p, interval_ns(), clock_kind == PROF_CLOCK_THREAD_CPU));
    }
    return 1;
}

int rt_profiler_sampled(const pego_parser *p) { return p->prof_on && p->prof && p->prof->sampled; }

/* The calling-context node for rule (at pc, for a native frame) under node,
 * made when new; node itself when out of memory. */
static uint32_t cct_child(prof_grammar *pg, uint32_t node, uint32_t rule, uintptr_t pc)
{
    for (uint32_t k = pg->cct[node].child; k; k = pg->cct[k].sibling)
        if (pg->cct[k].rule == rule && pg->cct[k].pc == pc) return k;
    if (pg->ncct == pg->capcct) {
        cct_node *a = rt_realloc(pg->cct, 2 * pg->capcct * sizeof *a);
        if (!a) return node;
        pg->cct = a;
        pg->capcct *= 2;
    }
    uint32_t k = pg->ncct++;
    pg->cct[k] = (cct_node){ .rule = rule, .parent = node, .sibling = pg->cct[node].child, .pc = pc };
    pg->cct[node].child = k;
    return k;
}

/* Adds the stacks of the samples sm to pg's calling-context tree: the weight
 * of each to its path's node, at the instruction's line (a leaf below it,
 * with the native frames below that) for time, and as bytes for --profile-memory. */
static void add_paths(prof_grammar *pg, const rt_samples *sm, int memory)
{
    for (uint32_t at = 0; at < sm->npaths; at += 4 + sm->paths[at] + 2 * sm->paths[at + 3]) {
        uint32_t node = 0, pc = sm->paths[at + 1], len = sm->paths[at], nnative = sm->paths[at + 3];
        const uint32_t *path = sm->paths + at + 4;
        for (uint32_t i = 0; i < len; i++) node = cct_child(pg, node, path[i], 0);
        if (memory) {
            pg->cct[node].bytes += sm->paths[at + 2];
            continue;
        }
        if (pc && pg->line_of[pc - 1] != NO_LINE) node = cct_child(pg, node, CCT_LINE | pg->line_of[pc - 1], 0);
        for (uint32_t i = 0; i < nnative; i++) {
            uint64_t code = (uint64_t)path[len + 2 * i] | (uint64_t)path[len + 2 * i + 1] << 32;
            node = cct_child(pg, node, CCT_NATIVE, (uintptr_t)code);
        }
        pg->cct[node].self += sm->paths[at + 2];
    }
}

/* ---- memory per rule (--profile-memory) ---- */

/* The bytes of tree parts: nodes, child links, fields and field tables. */
static uint64_t tree_bytes(uint64_t nodes, uint64_t kids, uint64_t fields, uint64_t refs)
{
    return nodes * sizeof(pego_node) + kids * sizeof(uint32_t) + fields * sizeof(rt_field) +
           refs * sizeof(rt_fieldref);
}

/* What an array of the tree grew by since its last note; one rewound (an
 * action that failed drops what it built) gives nothing and is noted at its
 * new length. */
static uint64_t grown(uint32_t now, uint32_t *noted)
{
    uint32_t d = now > *noted ? now - *noted : 0;
    *noted = now;
    return d;
}

/* rule's counts of this parse: kept per parse in sampled mode, added to the
 * grammar's totals at once in exact mode (the record is held). */
static rep_rule *parse_rule(rt_profiler_state *s, uint32_t rule)
{
    return s->sampled ? &s->rules[rule] : &s->pg->rules[rule];
}

/* Sampled mode: the memory samples' stacks so far into the tree, when their
 * buffer is half full (the record locked, as at a parse's end). */
static void flush_memory_paths(rt_profiler_state *s)
{
    hold_record(s->c);
    add_paths(s->pg, &s->mem, 1);
    release_record(s->c);
    rt_sampler_clear_paths(&s->mem);
}

/* Sampled mode: the stack that built the bytes just noted, when the
 * countdown to the next memory stack sample ran out, as a sample of
 * MEMORY_SAMPLE_BYTES for each time it ran out. Walking the stack at every
 * note would cost as much as the stack is deep (a parse of deep nesting
 * would cost its depth squared); sampled like this, a path's bytes are right
 * on average, and each rule's are counted exactly anyway. The gaps between
 * samples are random (uniform from 1 to twice the mean, from a generator
 * seeded the same for every parse), so that a grammar that builds the same
 * bytes at every step is not always sampled in the same rule. */
static void sample_memory_stack(pego_parser *p, rt_profiler_state *s)
{
    uint32_t n = 0;
    while (s->mem_countdown <= 0) {
        s->mem_random ^= s->mem_random << 13;      /* xorshift64 */
        s->mem_random ^= s->mem_random >> 7;
        s->mem_random ^= s->mem_random << 17;
        s->mem_countdown += 1 + (int64_t)(s->mem_random % (2 * MEMORY_SAMPLE_BYTES - 1));
        n++;
    }
    if (s->mem.npaths * 2 > s->mem.cap_paths) flush_memory_paths(s);
    rt_sampler_take(p, &s->mem, n * MEMORY_SAMPLE_BYTES, 0, NULL);
}

void rt_profiler_note_memory(pego_parser *p)
{
    rt_profiler_state *s = p->prof;
    rt_tree *t = &p->tree;
    uint64_t nodes = grown(t->nnodes, &t->noted_nodes);
    uint64_t kids = grown(t->nkids, &t->noted_kids), fields = grown(t->nfields, &t->noted_fields);
    uint64_t bytes = tree_bytes(nodes, kids, fields, grown(t->nrefs, &t->noted_refs));
    if (!bytes) return;
    int64_t rule = -1;
    if (s->sampled) {                /* the rule running, as the sampler finds it; sometimes its stack */
        rule = rt_sampler_innermost(p);
        if (rule >= 0 && (s->mem_countdown -= (int64_t)bytes) <= 0) sample_memory_stack(p, s);
    } else if (s->depth) {           /* the call on top of the profiler's own stack */
        rule = s->stack[s->depth - 1].rule;
        s->pg->cct[s->cct].bytes += bytes;
    }
    if (rule < 0) return;            /* (no rule runs: nothing is built then) */
    rep_rule *r = parse_rule(s, (uint32_t)rule);
    r->nodes += nodes;
    r->node_bytes += bytes;
    s->node_bytes += bytes;
}

/* A parse's end: the memo entries per rule (the table only grows during a
 * parse), and the memory the parser holds for the node arena, the memo table
 * and the control stack. */
static void count_memory(pego_parser *p, rt_profiler_state *s, rep_parse *pp)
{
    const rt_memo *m = &p->memo;
    uint32_t nrules = (uint32_t)p->g->nrules;
    uint64_t memo_bytes = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        const rt_memo_entry *e = &m->entries[i];
        uint64_t b = sizeof *e + (uint64_t)e->exp_len * sizeof(uint32_t) + (uint64_t)e->rec_len * sizeof(rt_recovered);
        rep_rule *r = parse_rule(s, e->variant % nrules);
        r->memo_entries++;
        r->memo_bytes += b;
        memo_bytes += b;
    }
    const rt_tree *t = &p->tree;
    pp->node_bytes = s->node_bytes;
    pp->memo_bytes = memo_bytes;
    pp->peak_node_bytes = tree_bytes(t->capnodes, t->capkids, t->capfields, t->caprefs) +
                          (uint64_t)t->capref_of * sizeof(uint32_t);
    pp->peak_memo_bytes = (uint64_t)m->cap * sizeof(rt_memo_entry) + (uint64_t)m->nslots * sizeof(uint32_t) +
                          (uint64_t)m->capids * sizeof(uint32_t) + (uint64_t)m->caprecs * sizeof(rt_recovered) +
                          (uint64_t)m->nseen * sizeof(uint64_t);
    pp->peak_stack_bytes = (uint64_t)p->capes * sizeof(vm_entry) + (uint64_t)p->capgf * sizeof(vm_gframe);
}

/* Adds the memory counts of one parse's rule c to x. */
static void add_memory_counts(rep_rule *x, const rep_rule *c)
{
    x->nodes += c->nodes;
    x->node_bytes += c->node_bytes;
    x->memo_entries += c->memo_entries;
    x->memo_bytes += c->memo_bytes;
}

/* Ends a sampled parse: the counts of the profiled program (or those the
 * reference program's call path counted), the samples per rule, and their
 * stacks into the calling-context tree. Returns the rule with the most
 * samples in this parse, or REP_NO_RULE. */
static uint32_t end_sampled(pego_parser *p, rt_profiler_state *s, uint64_t *calls, uint64_t *evals, uint64_t *memo)
{
    prof_grammar *pg = s->pg;
    const rt_samples *sm = &p->samples;
    int n = p->g->nrules;
    for (int r = 0; r < n; r++) {          /* what the reference program's call path counted */
        const rep_rule *c = &s->rules[r];
        rep_rule *x = &pg->rules[r];
        x->calls += c->calls;
        x->evals += c->evals;
        x->memo += c->memo;
        x->matched += c->matched;
        x->failed += c->failed;
        x->consumed += c->consumed;
        add_memory_counts(x, c);
    }
    const vm_count *counted = rt_parse_counts(p);
    if (counted) {
        *calls = *evals = *memo = 0;
        for (int r = 0; r < n; r++) {
            vm_count c = counted[r];
            rep_rule *x = &pg->rules[r];
            x->calls += c.calls;
            x->evals += c.evals;
            x->memo += c.memo;
            x->matched += c.matched;
            x->failed += c.failed;
            x->consumed += c.consumed;
            *calls += c.calls;
            *evals += c.evals;
            *memo += c.memo;
        }
    }
    uint32_t top = REP_NO_RULE;
    for (int r = 0; r < n; r++) {
        pg->self_samples[r] += sm->self[r];
        pg->incl_samples[r] += sm->incl[r];
        if (sm->self[r] && (top == REP_NO_RULE || sm->self[r] > sm->self[top])) top = (uint32_t)r;
    }
    add_paths(pg, sm, 0);
    if (p->memory) add_paths(pg, &s->mem, 1);
    for (uint32_t at = 0; at < sm->ncode; at++)
        if (sm->at_pc[at] && pg->line_of[at] != NO_LINE) pg->lines[pg->line_of[at]].samples += sm->at_pc[at];
    s->c->samples += sm->taken;
    s->c->samples_lost += sm->lost;    /* (samples whose stack found no room still count for the rules) */
    return top;
}

/* Closes the calls an aborted parse left in progress: their time runs to now,
 * and the evaluations they began (the parse's count less those of the calls
 * that ended) go to them from the outermost, one each, so that the rules add
 * up to the parse. */
static void close_calls(rt_profiler_state *s, uint64_t now, uint64_t parse_evals)
{
    uint64_t begun = parse_evals > s->evals_seen ? parse_evals - s->evals_seen : 0;
    for (uint32_t i = 0; i < s->depth; i++) {
        const prof_frame *f = &s->stack[i];
        rep_rule *r = s->sampled ? &s->rules[f->rule] : &s->pg->rules[f->rule];
        uint64_t e = i + 1 == s->depth ? begun : begun > 0;   /* the innermost takes what is left */
        r->evals += e;
        begun -= e;
    }
    while (s->depth) {
        prof_frame *f = &s->stack[--s->depth];
        if (--s->active[f->rule] == 0 && !s->sampled) s->pg->rules[f->rule].time_ns += now - f->start;
    }
}

/* Ends a profiled parse (the thread's record locked): calls left active by an
 * aborted parse are closed, and the parse record is kept. */
static void end_locked(pego_parser *p, rt_profiler_state *s, uint64_t now, const char *input, uint64_t bytes)
{
    const pego_stats *st = &p->res.stats;
    uint64_t calls = st->calls, evals = st->evals, memo = st->memo_hits;
    uint32_t top = REP_NO_RULE;
    if (!s->sampled) attribute(s, now, NO_LINE);
    close_calls(s, now, evals);
    rep_parse memory = { 0 };
    if (p->memory) count_memory(p, s, &memory);
    if (s->sampled) top = end_sampled(p, s, &calls, &evals, &memo);
    prof_thread *c = s->c;
    if (c->nparses == c->capparses) {
        size_t cap = c->capparses ? c->capparses * 2 : 64;
        prof_parse *a = rt_realloc(c->parses, cap * sizeof *a);
        if (!a) return;
        c->parses = a;
        c->capparses = cap;
    }
    for (int r = 0; r < p->g->nrules && !s->sampled; r++)
        if (s->parse_self[r] && (top == REP_NO_RULE || s->parse_self[r] > s->parse_self[top])) top = (uint32_t)r;
    if (s->nnative) add_caller(&c->callers, s->native, s->nnative, 1, now - s->start);
    prof_parse *pp = &c->parses[c->nparses++];
    pp->grammar = s->pg;
    pp->parse = (rep_parse){
        .input = rt_strdup(input ? input : "<input>"), .bytes = bytes,
        .unit = p->in.unit == PEGO_UNIT_BYTES ? REP_UNIT_BYTES : REP_UNIT_CODEPOINTS,
        .source = p->stream.on ? REP_SOURCE_STREAM : p->doc ? REP_SOURCE_DOCUMENT : REP_SOURCE_TEXT,
        .result = p->res.status == PEGO_OK ? REP_RESULT_OK
                : p->res.status == PEGO_SYNTAX_ERROR ? REP_RESULT_SYNTAX_ERROR
                : p->res.too_deep ? REP_RESULT_NESTING_LIMIT : REP_RESULT_ABORTED,
        .time_ns = now - s->start, .calls = calls, .evals = evals, .memo = memo,
        .clock_reads = s->sampled ? 2 : s->reads, .top_rule = top,
        .node_bytes = memory.node_bytes, .memo_bytes = memory.memo_bytes,
        .peak_node_bytes = memory.peak_node_bytes, .peak_memo_bytes = memory.peak_memo_bytes,
        .peak_stack_bytes = memory.peak_stack_bytes,
    };
}

/* Ends a profiled parse: an exact parse unlocks its thread's record, a
 * sampled one locks it to add what it counted. */
void rt_profiler_parse_end(pego_parser *p, const char *input, uint64_t bytes)
{
    rt_profiler_state *s = p->prof;
    uint64_t now = ticks();
    prof_thread *c = s->c;
    if (p->memory) rt_memory_check(p);       /* what the last call built */
    if (s->sampled) {
        rt_sampler_end(p);
        p->sampled = 0;
        hold_record(c);
    }
    end_locked(p, s, now, input, bytes);
    release_record(c);
}

/* ---- writing the report ---- */

static void free_argv(char **argv, int argc)
{
    for (int i = 0; i < argc; i++) rt_free(argv[i]);
    rt_free(argv);
}

/* The process's command line, from /proc (a library has no argv): none when
 * it cannot be read. Returns 0, or -1 when out of memory. */
static int read_argv(char ***argv, int *argc)
{
    *argv = NULL;
    *argc = 0;
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return 0;
    rt_buf b;
    rt_buf_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) rt_buf_add(&b, chunk, n);
    fclose(f);
    int count = 0;
    for (size_t i = 0; i < b.len; i++) count += b.data[i] == 0;
    char **a = b.oom || !b.len ? NULL : rt_calloc((size_t)count + 2, sizeof *a);
    size_t start = 0;
    for (size_t i = 0; a && i < b.len; i++) {
        if (b.data[i]) continue;
        if (!(a[(*argc)++] = rt_strdup(b.data + start))) {
            free_argv(a, *argc);
            a = NULL;
        }
        start = i + 1;
    }
    int oom = b.oom || (b.len && !a);
    rt_buf_free(&b);
    if (!a) *argc = 0;
    *argv = a;
    return oom ? -1 : 0;
}

/* Locks every thread's record but the caller's own, which it holds in an exact
 * parse (with prof.lock held). A thread between parses would take its lock
 * again at once, before the writer wakes; while the writer waits, a parse
 * starts only once the writer has released prof.lock. */
static void lock_records(void)
{
    __atomic_store_n(&prof.locking_records, 1, __ATOMIC_SEQ_CST);
    for (prof_thread *c = prof.threads; c; c = c->next)
        if (c != my_thread || !my_record_held) pthread_mutex_lock(&c->lock);
}

static void unlock_records(void)
{
    for (prof_thread *c = prof.threads; c; c = c->next)
        if (c != my_thread || !my_record_held) pthread_mutex_unlock(&c->lock);
    __atomic_store_n(&prof.locking_records, 0, __ATOMIC_SEQ_CST);
}

/* Forgets what a thread's record holds, keeping its grammars' tables. */
static void clear_record(prof_thread *c)
{
    for (size_t i = 0; i < c->nparses; i++) rt_free((char *)c->parses[i].parse.input);
    c->nparses = 0;
    c->samples = c->samples_lost = 0;
    if (c->callers.slots) memset(c->callers.slots, 0, c->callers.cap * sizeof *c->callers.slots);
    c->callers.n = 0;
    for (prof_grammar *pg = c->grammars; pg; pg = pg->next) {
        int n = pg->nrules;
        for (int r = 0; r < n; r++) pg->rules[r] = (rep_rule){ .rule = (uint32_t)r };
        memset(pg->self_samples, 0, (size_t)n * sizeof(uint64_t));
        memset(pg->incl_samples, 0, (size_t)n * sizeof(uint64_t));
        memset(pg->edge_calls, 0, (size_t)n * (size_t)n * sizeof(uint64_t));
        memset(pg->edge_ticks, 0, (size_t)n * (size_t)n * sizeof(uint64_t));
        for (uint32_t k = 0; k < pg->ncct; k++) pg->cct[k].calls = pg->cct[k].self = pg->cct[k].bytes = 0;
        for (uint32_t i = 0; i < pg->nlines; i++) pg->lines[i].samples = pg->lines[i].self_ns = 0;
    }
}

/* Merges every thread's data into one report and writes it. In append mode
 * what was written is cleared, so the next write adds only what came after. */
static int write_report(void)
{
    if (!prof.configured || !prof.file) return 0;
    if (clock_kind < 0) choose_clock(prof.clock == CLOCK_CPU);   /* configured, never started: nothing was measured */
    double scale = ns_per_tick();
    int argc;
    char **argv;
    if (read_argv(&argv, &argc) < 0) {
        snprintf(prof.error, sizeof prof.error, "cannot write profile %s: out of memory", prof.file);
        return -1;
    }
    uint64_t reads = 0, samples = 0, lost = 0;
    for (prof_thread *c = prof.threads; c; c = c->next) {
        for (size_t i = 0; i < c->nparses; i++) reads += c->parses[i].parse.clock_reads;
        samples += c->samples;
        lost += c->samples_lost;
    }
    int mode = prof.mode < 0 ? (prof.detail ? MODE_EXACT : MODE_SAMPLED) : prof.mode;
    int sampled = mode == MODE_SAMPLED;
    uint64_t interval = interval_ns();
    rep_header h = { .version = REP_FORMAT_VERSION, .pego = PEGO_VERSION, .pid = prof.pid, .host = prof.host,
                     .argc = argc, .argv = (const char *const *)argv, .start = prof.start,
                     .clock = clock_names[clock_kind], .mode = mode_names[mode], .detail = mode == MODE_EXACT,
                     .memory = prof.memory,
                     .clock_reads = reads, .sample_interval_ns = sampled ? interval : 0,
                     .samples = samples, .samples_lost = lost,
                     .sample_interval_max_ns = sampled ? interval * rt_sampler_slowest() : 0 };
    rep_builder *b = rep_builder_new(&h);
    native_names names = { 0 };
    int status = b && native_names_make(&names) == 0 ? 0 : -1;
    uint32_t *frames = NULL;             /* a stack record's path, from the root */
    uint32_t capframes = 0;
    uint32_t gid = 0;
    uint64_t pid = 0;
    for (prof_thread *c = prof.threads; c && b && !status; c = c->next) {
        for (prof_grammar *pg = c->grammars; pg; pg = pg->next) {
            /* the same grammar seen by several threads is written once, merged */
            int first = 1;
            for (prof_thread *d = prof.threads; d != c && first; d = d->next)
                for (prof_grammar *q = d->grammars; q; q = q->next)
                    if (q->g == pg->g && q->hash == pg->hash) first = 0;
            if (!first) continue;
            uint32_t id = ++gid;
            rep_grammar rg = { .id = id, .name = pg->name, .file = pg->file, .hash = pg->hash,
                               .nrules = (size_t)pg->nrules, .rules = pg->infos,
                               .source = pg->source, .source_len = pg->source_len };
            rep_add_grammar(b, &rg);
            int n = pg->nrules;
            for (int r = 0; r < n; r++) {
                rep_rule sum = pg->rules[r];
                uint64_t self_samples = pg->self_samples[r], incl_samples = pg->incl_samples[r];
                for (prof_thread *d = c->next; d; d = d->next)
                    for (prof_grammar *q = d->grammars; q; q = q->next) {
                        if (q->g != pg->g || q->hash != pg->hash) continue;
                        const rep_rule *o = &q->rules[r];
                        sum.calls += o->calls; sum.evals += o->evals; sum.memo += o->memo;
                        sum.matched += o->matched; sum.failed += o->failed; sum.repeats += o->repeats;
                        if (o->max_repeats > sum.max_repeats) {
                            sum.max_repeats = o->max_repeats;
                            sum.max_repeats_pos = o->max_repeats_pos;
                        }
                        sum.consumed += o->consumed; sum.wasted += o->wasted;
                        sum.time_ns += o->time_ns; sum.self_ns += o->self_ns;
                        add_memory_counts(&sum, o);
                        self_samples += q->self_samples[r];
                        incl_samples += q->incl_samples[r];
                    }
                if (!sum.calls) continue;
                sum.grammar = id;
                if (sampled) {
                    sum.time_ns = incl_samples * interval;
                    sum.self_ns = self_samples * interval;
                    sum.samples = self_samples;
                } else {
                    sum.time_ns = (uint64_t)((double)sum.time_ns * scale);
                    sum.self_ns = (uint64_t)((double)sum.self_ns * scale);
                }
                rep_add_rule(b, &sum);
            }
            for (int a = 0; a < n; a++)
                for (int z = 0; z < n; z++) {
                    size_t k = (size_t)a * (size_t)n + (size_t)z;
                    uint64_t calls = pg->edge_calls[k], t = pg->edge_ticks[k];
                    for (prof_thread *d = c->next; d; d = d->next)
                        for (prof_grammar *q = d->grammars; q; q = q->next)
                            if (q->g == pg->g && q->hash == pg->hash) { calls += q->edge_calls[k]; t += q->edge_ticks[k]; }
                    if (!calls) continue;
                    rep_edge e = { .grammar = id, .caller = (uint32_t)a, .callee = (uint32_t)z, .calls = calls,
                                   .time_ns = (uint64_t)((double)t * scale) };
                    rep_add_edge(b, &e);
                }
            for (uint32_t i = 0; i < pg->nlines; i++) {
                rep_line line = pg->lines[i];
                for (prof_thread *d = c->next; d; d = d->next)
                    for (prof_grammar *q = d->grammars; q; q = q->next)
                        if (q->g == pg->g && q->hash == pg->hash) {
                            line.samples += q->lines[i].samples;
                            line.self_ns += q->lines[i].self_ns;
                        }
                if (!line.samples && !line.self_ns) continue;
                line.grammar = id;
                line.self_ns = sampled ? line.samples * interval : (uint64_t)((double)line.self_ns * scale);
                rep_add_line(b, &line);
            }
            /* calling-context trees: each thread's own, as separate stack records
             * (a reader adds up records with the same path); a line leaf is
             * its parent's path at that line */
            for (prof_thread *d = c; d; d = d->next)
                for (prof_grammar *q = d->grammars; q; q = q->next) {
                    if (q->g != pg->g || q->hash != pg->hash) continue;
                    for (uint32_t k = 1; k < q->ncct; k++) {
                        if (!q->cct[k].calls && !q->cct[k].self && !q->cct[k].bytes) continue;
                        uint32_t leaf = k, nnative = 0;
                        const char *native[NATIVE_DEPTH];
                        for (; q->cct[leaf].rule == CCT_NATIVE; leaf = q->cct[leaf].parent)
                            if (nnative < NATIVE_DEPTH) native[nnative++] = native_name_of(&names, q->cct[leaf].pc);
                        for (uint32_t i = 0; i < nnative / 2; i++) {   /* from the function the VM called */
                            const char *t = native[i];
                            native[i] = native[nnative - 1 - i];
                            native[nnative - 1 - i] = t;
                        }
                        rep_line at = { 0 };
                        if (q->cct[leaf].rule & CCT_LINE) {
                            at = q->lines[q->cct[leaf].rule & ~CCT_LINE];
                            leaf = q->cct[leaf].parent;
                        }
                        size_t depth = 0;
                        for (uint32_t x = leaf; x; x = q->cct[x].parent) depth++;
                        if (rt_buf_grow((void **)&frames, &capframes, depth, sizeof *frames) < 0) {
                            status = -1;
                            break;
                        }
                        depth = 0;
                        for (uint32_t x = leaf; x; x = q->cct[x].parent) frames[depth++] = q->cct[x].rule;
                        for (size_t i = 0; i < depth / 2; i++) {
                            uint32_t t = frames[i];
                            frames[i] = frames[depth - 1 - i];
                            frames[depth - 1 - i] = t;
                        }
                        uint64_t self = sampled ? q->cct[k].self * interval : (uint64_t)((double)q->cct[k].self * scale);
                        rep_stack st = { .grammar = id, .nframes = depth, .frames = frames, .calls = q->cct[k].calls,
                                         .self_ns = self, .line = at.line, .col = at.col,
                                         .nnative = nnative, .native = native, .node_bytes = q->cct[k].bytes };
                        rep_add_stack(b, &st);
                    }
                }
            for (prof_thread *d = prof.threads; d; d = d->next)
                for (size_t i = 0; i < d->nparses; i++) {
                    prof_parse *pp = &d->parses[i];
                    if (pp->grammar->g != pg->g || pp->grammar->hash != pg->hash) continue;
                    rep_parse rp = pp->parse;
                    rp.id = ++pid;
                    rp.grammar = id;
                    rp.time_ns = (uint64_t)((double)rp.time_ns * scale);
                    rep_add_parse(b, &rp);
                }
        }
    }
    rt_free(frames);
    native_names_free(&names);
#ifdef HAVE_LIBUNWIND
    if (b && !status && add_callers(b, scale) < 0) status = -1;
#endif
    char *path = b && !status ? rep_expand_path(prof.file, prof.pid, prof.host, prof.start) : NULL;
    if (path) {
        status = rep_write_file(b, path, prof.append, prof.error, sizeof prof.error);
    } else {
        status = -1;
        snprintf(prof.error, sizeof prof.error, "cannot write profile %s: out of memory", prof.file);
    }
    rt_free(path);
    rep_builder_free(b);
    free_argv(argv, argc);
    if (status == 0 && prof.append)                  /* appended: start the next frame empty */
        for (prof_thread *c = prof.threads; c; c = c->next) clear_record(c);
    return status;
}

/* Writes the report with every thread's record locked (but the caller's own,
 * which it holds in an exact parse), so that a parse in another thread is in
 * it whole or not at all. With prof.lock held. */
static int write_report_locked(void)
{
    lock_records();
    int status = write_report();
    unlock_records();
    return status;
}

int pego_profile_flush(void)
{
    pthread_mutex_lock(&prof.lock);
    int status = write_report_locked();
    if (status) keep_error_locked();
    pthread_mutex_unlock(&prof.lock);
    return status;
}

/* Writes the report (at exit, and for the flusher); a failure is reported and
 * the program's exit status stays its own. */
void rt_profiler_write_now(void)
{
    char message[sizeof prof.error] = "";
    pthread_mutex_lock(&prof.lock);
    if (write_report_locked()) snprintf(message, sizeof message, "%s", prof.error);
    pthread_mutex_unlock(&prof.lock);
    if (*message) warn(message);
}

/* ---- fork ----
 * A child starts with records of its own: the parent's parses stay the
 * parent's, and the child's report carries the child's pid. The records are
 * locked across the fork so that the child's copy is whole. */

static void before_fork(void)
{
    pthread_mutex_lock(&prof.lock);
    lock_records();
}

static void after_fork_in_parent(void)
{
    unlock_records();
    pthread_mutex_unlock(&prof.lock);
}

static void after_fork_in_child(void)
{
    for (prof_thread *c = prof.threads; c; c = c->next) clear_record(c);
    unlock_records();
    prof.pid = (int64_t)getpid();
    prof.start = (int64_t)time(NULL);
    pthread_mutex_unlock(&prof.lock);
    rt_flusher_after_fork_in_child();
}
