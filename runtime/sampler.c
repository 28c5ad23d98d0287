/* The sampler of --profile (docs/profiling.md): a timer per thread that sends
 * the thread a signal (SIGPROF, or a free real-time signal when the program
 * has a SIGPROF handler of its own) at a fixed interval of its wall-clock or CPU time while
 * it parses, and the signal handler, which reads the running rules off the
 * parser: the call frames, which link to their callers' (parser.sample_top),
 * and the instruction running (parser.sample_ip), which tells the calls
 * compiled in that are running there (grammar.inline_at). It counts
 * a sample for the innermost rule (self), once for every rule on the stack
 * (inclusive), and for the instruction running (parser.sample_ip, whose source
 * position is the sample's grammar line), and keeps the stack, folded like the
 * calling-context tree, with that instruction, for the profiler to add to the
 * tree after the parse. With --profile-native it also keeps the native frames
 * below the VM: libunwind walks the thread's stack from the signal's context
 * (unw_init_local2 with UNW_INIT_SIGNAL_FRAME, unw_step and unw_get_reg, which
 * libunwind documents as safe in a signal handler for local unwinding) up to
 * the innermost frame of one of the VM's loops (vm_loops, whose code ranges
 * are found when the handler is installed), so that a sample in a trace sink,
 * the memo table, tree building or an allocator names that function.
 *
 * The handler touches only what rt_sampler_prepare allocated before the parse
 * and the parser's volatile fields; while the control stack or the side
 * records move (parser.es_moving) a sample is counted as lost. A timer runs
 * only during a parse: disarmed at its end, it keeps the time left to the
 * next sample for the next parse, so that short parses are sampled fairly and
 * no signal reaches the program between parses. A wall-clock timer whose
 * signals leave the thread no time to parse slows down (slow_down). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "parser.h"
#include "alloc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#ifdef HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY 1   /* the local unwinder only: libunwind.so, not libunwind-ARCH */
#include <libunwind.h>
#endif

/* PATH_WORDS: room for a parse's sampled stacks (a stack takes 4 words and
 * one per frame; its pages are touched only as stacks come; a sample that
 * finds a stack kept adds to it), about 80,000 different stacks of JSON's
 * depth: past it, samples of new stacks still count for their rules but
 * keep no stack. NATIVE_MAX_FRAMES: the most native frames below the VM a
 * sample keeps; a deeper native stack gives the sample none. */
enum { PATH_WORDS = 1u << 20, PATH_MAX_FRAMES = 512, NATIVE_MAX_FRAMES = 32 };
/* INDEX_SLOTS: the slots of the index of the stacks kept (a power of two,
 * 32 KiB, zeroed once per thread): samples that find a stack kept already add
 * to it, so a parse keeps every sample's stack however long it runs, unless
 * it finds more different stacks than that (a stack's rules, the instruction
 * running and its native frames), whose samples are then kept one by one. */
enum { INDEX_SLOTS = 1u << 12 };
/* SLOW_AFTER: late signals in a row that slow a timer down; SLOW_MOST: the
 * most it is slowed, as a multiple of the interval asked for (slow_down). */
enum { SLOW_AFTER = 4, SLOW_MOST = 1024 };

static struct {
    pthread_mutex_t  lock;
    int              installed;         /* 1: the handler is installed; -1: no signal was free */
    int              signal;            /* the signal of the timers */
    pthread_key_t    key;               /* deletes a thread's timer when the thread ends */
} sampler = { .lock = PTHREAD_MUTEX_INITIALIZER };

static _Thread_local struct {
    int               made;
    timer_t           id;
    struct itimerspec left;             /* time to the next sample, kept across parses */
    uint64_t          interval_ns;      /* the interval asked for */
    uint32_t          slow;             /* the timer runs at interval_ns times slow */
    uint32_t          overruns;         /* signals in a row that came late (wall clock) */
    int               wall;             /* the wall clock (CPU-time timers fire at ticks) */
} my_timer;

/* The most the sampler has slowed a timer, for the report (rt_sampler_slowest). */
static uint32_t slowest = 1;

static _Thread_local pego_parser *volatile sampling;   /* the parse this thread samples, or NULL */

int rt_sampler_prepare(rt_samples *sm, uint32_t nrules, uint32_t ncode, int native)
{
    if (!sm->self || sm->nrules != nrules || sm->ncode != ncode) {
        rt_sampler_free(sm);
        sm->nrules = nrules;
        sm->ncode = ncode;
        sm->self = rt_calloc((size_t)nrules + 1, sizeof *sm->self);
        sm->at_pc = rt_calloc((size_t)ncode + 1, sizeof *sm->at_pc);
        sm->incl = rt_calloc((size_t)nrules + 1, sizeof *sm->incl);
        sm->stamp = rt_calloc((size_t)nrules + 1, sizeof *sm->stamp);
        sm->at = rt_malloc(((size_t)nrules + 1) * sizeof *sm->at);
        sm->paths = rt_malloc(PATH_WORDS * sizeof *sm->paths);
        sm->index = rt_calloc(INDEX_SLOTS, sizeof *sm->index);
        if (!sm->self || !sm->at_pc || !sm->incl || !sm->stamp || !sm->at || !sm->paths || !sm->index) {
            rt_sampler_free(sm);
            return -1;
        }
        for (uint32_t r = 0; r < nrules; r++) sm->at[r] = -1;
        sm->cap_paths = PATH_WORDS;
    }
    memset(sm->self, 0, (size_t)nrules * sizeof *sm->self);
    memset(sm->incl, 0, (size_t)nrules * sizeof *sm->incl);
    memset(sm->at_pc, 0, (size_t)ncode * sizeof *sm->at_pc);
    sm->native = native;
    rt_sampler_clear_paths(sm);
    sm->taken = sm->lost = sm->unplaced = 0;
    return 0;
}

void rt_sampler_clear_paths(rt_samples *sm)
{
    sm->npaths = 0;
    if (++sm->generation == 0) {              /* after 2^32 generations, really empty the slots */
        memset(sm->index, 0, INDEX_SLOTS * sizeof *sm->index);
        sm->generation = 1;
    }
}

void rt_sampler_free(rt_samples *sm)
{
    rt_free(sm->self);
    rt_free(sm->at_pc);
    rt_free(sm->incl);
    rt_free(sm->stamp);
    rt_free(sm->at);
    rt_free(sm->paths);
    rt_free(sm->index);
    memset(sm, 0, sizeof *sm);
}

/* The rule of the call frame at index k - 1, or -1 when it is not one. A
 * frame that a tail call reused (E_TCALL) stands for the calls of the tail
 * call's chain and its own: the chain's last rule is returned, *tail is the
 * chain (else UINT32_MAX), whose other rules are outer, and the frame's own
 * rule is in *outer (else -1). */
static int64_t frame_rule(const pego_parser *p, uint32_t k, uint32_t *caller, uint32_t *tail, int64_t *outer)
{
    const pego_grammar *g = p->g;
    *outer = -1;
    *tail = UINT32_MAX;
    if (k == 0 || k > p->capes) return -1;
    const vm_entry *e = &p->es[k - 1];
    if (e->kind == E_CALL || e->kind == E_MCALL) {
        *caller = e->u.call.caller;
        return e->u.call.variant;
    }
    if (e->kind == E_TCALL && e->rec < g->nchains && g->chains[e->rec].n) {
        const cc_chain *c = &g->chains[e->rec];
        *caller = e->u.call.caller;
        *tail = e->rec;
        *outer = e->u.call.variant;
        return g->chain_rules[c->first + c->n - 1];
    }
    if (e->kind == E_GCALL && e->u.gcall.frame < p->capgf) {
        *caller = e->u.gcall.caller;
        return p->gf[e->u.gcall.frame].variant;
    }
    return -1;
}

/* The calls compiled in that run at the instruction ip of the profiled
 * program, innermost first: *span, the chain of a byte span of punctuation,
 * which PUNCT counts, if spans (UINT32_MAX: none), and the context of the
 * others (an index in grammar.inline_ctx + 1; 0: none). */
static uint32_t inline_context(const pego_grammar *g, const vm_ins *ip, int spans, uint32_t *span)
{
    *span = UINT32_MAX;
    if (!ip || !g->inline_at || ip < g->code + g->prof_start || ip >= g->code + g->ncode) return 0;
    if (spans && (ip->op == OP_PUNCT || ip->op == OP_PUNCT2) && (ip->flags & (INS_COUNT | INS_COUNT_AFTER)))
        *span = (uint32_t)(ip->flags & INS_COUNT ? ip[2].a : ip[ip->d - 1].a);
    if (spans && ip->op != OP_PIN && cc_opens_inline_call(ip->op))
        *span = (uint32_t)ip->a;
    return g->inline_at[ip - g->code];
}

int64_t rt_sampler_innermost(const pego_parser *p)
{
    const pego_grammar *g = p->g;
    uint32_t chain, caller, tail;
    int64_t outer;
    uint32_t ctx = inline_context(g, p->sample_ip, 0, &chain);
    if (chain == UINT32_MAX && ctx) chain = g->inline_ctx[ctx - 1].chain;
    if (chain == UINT32_MAX) {
        int64_t rule = p->sample_top ? frame_rule(p, p->sample_top, &caller, &tail, &outer) : -1;
        return rule < 0 ? -1 : rule % g->nrules;
    }
    if (chain >= g->nchains || !g->chains[chain].n) return -1;
    return g->chain_rules[g->chains[chain].first + g->chains[chain].n - 1] % (uint32_t)g->nrules;
}

#ifdef HAVE_LIBUNWIND
/* The code of the VM's loops, [start, end) each: found when the handler is
 * installed, read by the handler. */
static struct { uintptr_t start, end; } vm_code[VM_NLOOPS];

static void find_vm_code(void)
{
    for (int i = 0; i < VM_NLOOPS; i++) {
        unw_proc_info_t pi;
        if (unw_get_proc_info_by_ip(unw_local_addr_space, (unw_word_t)(uintptr_t)vm_loops[i], &pi, NULL) == 0) {
            vm_code[i].start = (uintptr_t)pi.start_ip;
            vm_code[i].end = (uintptr_t)pi.end_ip;
        }
    }
}

static int in_vm(uintptr_t pc)
{
    for (int i = 0; i < VM_NLOOPS; i++)
        if (pc >= vm_code[i].start && pc < vm_code[i].end) return 1;
    return 0;
}

/* The native frames between the signal's context and the innermost frame of
 * a VM loop, innermost first: the code address each was at (a return address
 * less one, so that it falls in the calling function). Their number; 0 when
 * the signal came in the VM itself, or outside it, or the walk failed. */
static uint32_t native_below_vm(void *context, uintptr_t *pcs)
{
    unw_cursor_t cursor;
    if (!context || unw_init_local2(&cursor, (unw_context_t *)context, UNW_INIT_SIGNAL_FRAME) < 0) return 0;
    for (uint32_t n = 0;; n++) {
        unw_word_t ip;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0) return 0;
        if (in_vm((uintptr_t)ip)) return n;
        if (n == NATIVE_MAX_FRAMES || unw_step(&cursor) <= 0) return 0;
        pcs[n] = n ? (uintptr_t)ip - 1 : (uintptr_t)ip;
    }
}
#endif

/* Adds the stack record (n words: its length, instruction, weight, native
 * frames, then its path) to those sm keeps: to the weight of the same stack
 * kept already, or as a new one, or, with no room left, to the samples
 * left out of the stacks. Called from the signal handler: it allocates
 * nothing. */
static void keep_path(rt_samples *sm, const uint32_t *record, uint32_t n)
{
    uint64_t hash = 0xcbf29ce484222325u;           /* FNV-1a of every word but the weight */
    for (uint32_t i = 0; i < n; i++)
        if (i != 2) hash = (hash ^ record[i]) * 0x100000001b3u;
    uint64_t *slot = NULL;
    for (uint32_t probe = 0; probe < 64; probe++) {
        uint64_t *at = &sm->index[(hash + probe) & (INDEX_SLOTS - 1)];
        if ((uint32_t)(*at >> 32) != sm->generation) {   /* empty in this generation */
            slot = at;
            break;
        }
        uint32_t *kept = sm->paths + ((uint32_t)*at - 1);
        if (kept[0] == record[0] && kept[1] == record[1] && kept[3] == record[3] &&
            memcmp(kept + 4, record + 4, (n - 4) * sizeof *record) == 0) {
            if (kept[2] <= UINT32_MAX - record[2]) {
                kept[2] += record[2];
                return;
            }
            slot = at;                                   /* full: a new record takes its slot */
            break;
        }
    }
    if (sm->npaths + n > sm->cap_paths) {
        sm->unplaced += record[2];
        return;
    }
    memcpy(sm->paths + sm->npaths, record, n * sizeof *record);
    if (slot) *slot = (uint64_t)sm->generation << 32 | (sm->npaths + 1);
    sm->npaths += n;
}

/* A sample that stands for weight intervals: a CPU-time timer expires at the
 * kernel's clock tick at the earliest (4 ms at 250 Hz), and the intervals it
 * overran count for what is running then. spans: whether a byte span of
 * punctuation that is a call counts as running while its PUNCT runs (time:
 * it takes most of that time; memory: it builds nothing). context: the
 * signal's, for the native frames (NULL: none). */
int64_t rt_sampler_take(pego_parser *p, rt_samples *sm, uint32_t weight, int spans, void *context)
{
    uint32_t nrules = sm->nrules, frames[PATH_MAX_FRAMES + 1], n = 0, depth = 0;
    uint64_t stamp = sm->taken += weight;
    if (p->es_moving) {
        sm->lost += weight;
        return -1;
    }
    /* innermost first: the calls compiled in, then the call frames */
    const pego_grammar *g = p->g;
    const vm_ins *ip = p->sample_ip;
    uint32_t k = p->sample_top, chain, ctx = inline_context(g, ip, spans, &chain);
    uint32_t in_chain = 0;                  /* the rules of the chain being read, innermost first */
    int64_t outer = -1;                     /* the rule of a frame that a tail call reused, after its chain */
    if (chain == UINT32_MAX && ctx) {
        chain = g->inline_ctx[ctx - 1].chain;
        ctx = g->inline_ctx[ctx - 1].parent;
    }
    if (chain < g->nchains) in_chain = g->chains[chain].n;
    for (uint32_t frames_read = 0;;) {
        int64_t rule;
        if (in_chain) {
            rule = g->chain_rules[g->chains[chain].first + --in_chain];
        } else if (ctx) {
            chain = g->inline_ctx[ctx - 1].chain;
            ctx = g->inline_ctx[ctx - 1].parent;
            if (chain >= g->nchains || !g->chains[chain].n) break;
            in_chain = g->chains[chain].n;
            rule = g->chain_rules[g->chains[chain].first + --in_chain];
        } else if (outer >= 0) {
            rule = outer;
            outer = -1;
        } else {
            uint32_t caller = 0, tail;
            if (!k || ++frames_read > p->capes || (rule = frame_rule(p, k, &caller, &tail, &outer)) < 0)
                break;
            k = caller;
            if (tail != UINT32_MAX) {           /* the tail call's chain: its other rules next */
                chain = tail;
                in_chain = g->chains[tail].n - 1;
            }
        }
        uint32_t r = (uint32_t)(rule % nrules);
        if (depth == 0) sm->self[r] += weight;
        if (sm->stamp[r] != stamp) {
            sm->stamp[r] = stamp;
            sm->incl[r] += weight;
        }
        frames[n++] = r;
        if (++depth > PATH_MAX_FRAMES) break;    /* deeper: the walk would cost more than the interval */
    }
    if (depth == 0) {                      /* between the parse's start and its first call */
        sm->lost += weight;
        return -1;
    }
    uint32_t pc = ip && ip >= g->code && ip < g->code + sm->ncode ? (uint32_t)(ip - g->code) + 1 : 0;   /* 0: not known */
    if (pc) sm->at_pc[pc - 1] += weight;
    uintptr_t native[NATIVE_MAX_FRAMES];
    uint32_t nnative = 0;
#ifdef HAVE_LIBUNWIND
    if (sm->native) nnative = native_below_vm(context, native);
#else
    (void)context;
#endif
    if (depth > PATH_MAX_FRAMES) {
        sm->unplaced += weight;
        return frames[0];
    }
    /* the stack from the outermost call, folded: a rule already on the path
     * goes back to where it was (built here, then found among those kept or
     * added to them) */
    uint32_t record[4 + PATH_MAX_FRAMES + 1 + 2 * NATIVE_MAX_FRAMES];
    uint32_t *path = record + 4, len = 0;
    for (uint32_t i = n; i-- > 0;) {
        uint32_t r = frames[i];
        if (sm->at[r] >= 0) {
            uint32_t back = (uint32_t)sm->at[r] + 1;
            for (uint32_t j = back; j < len; j++) sm->at[path[j]] = -1;
            len = back;
        } else {
            sm->at[r] = (int32_t)len;
            path[len++] = r;
        }
    }
    for (uint32_t j = 0; j < len; j++) sm->at[path[j]] = -1;
    for (uint32_t i = 0; i < nnative; i++) {     /* from the function the VM called */
        uint64_t at = (uint64_t)native[nnative - 1 - i];
        path[len + 2 * i] = (uint32_t)at;
        path[len + 2 * i + 1] = (uint32_t)(at >> 32);
    }
    record[0] = len;
    record[1] = pc;
    record[2] = weight;
    record[3] = nnative;
    keep_path(sm, record, 4 + len + 2 * nnative);
    return frames[0];
}

/* Arms the thread's timer at the interval asked for times slow, the first
 * signal after first (zero: after one interval). */
static int arm(struct timespec first)
{
    uint64_t ns = my_timer.interval_ns * my_timer.slow;
    struct itimerspec t;
    t.it_interval.tv_sec = (time_t)(ns / 1000000000u);
    t.it_interval.tv_nsec = (long)(ns % 1000000000u);
    t.it_value = first.tv_sec || first.tv_nsec ? first : t.it_interval;
    return timer_settime(my_timer.id, 0, &t, NULL);
}

/* A signal costs tens of microseconds on some machines, so a short interval
 * of the wall clock can leave a thread no time to parse between samples.
 * When SLOW_AFTER signals in a row came late, the timer's interval doubles, up
 * to SLOW_MOST times the one asked for; a sample then counts for the
 * intervals asked for that it stands for, so the times stay whole. A timer of
 * CPU time fires at the clock's ticks only and never needs it. */
static void slow_down(void)
{
    if (my_timer.slow >= SLOW_MOST) return;
    my_timer.slow *= 2;
    arm((struct timespec){ 0, 0 });                  /* (timer_settime is async-signal-safe) */
    uint32_t seen = __atomic_load_n(&slowest, __ATOMIC_RELAXED);
    while (seen < my_timer.slow &&
           !__atomic_compare_exchange_n(&slowest, &seen, my_timer.slow, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

uint32_t rt_sampler_slowest(void) { return __atomic_load_n(&slowest, __ATOMIC_RELAXED); }

/* A signal that is not of our timers (sent by kill, say) is ignored: it
 * found the default action when the handler was installed. The weight of a
 * sample is the intervals asked for that it stands for: those it overran
 * (a thread that did not run, a CPU-time timer's tick), times the slowing. */
static void on_signal(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    int saved = errno;
    pego_parser *p = sampling;
    if (info && info->si_code == SI_TIMER && info->si_value.sival_ptr == (void *)&sampler && p) {
        int overrun = my_timer.made ? timer_getoverrun(my_timer.id) : 0;
        uint64_t weight = (1u + (overrun > 0 ? (uint64_t)overrun : 0u)) * my_timer.slow;
        rt_sampler_take(p, &p->samples, weight < UINT32_MAX ? (uint32_t)weight : UINT32_MAX, 1, context);
        if (my_timer.wall) {
            my_timer.overruns = overrun > 0 ? my_timer.overruns + 1 : 0;
            if (my_timer.overruns >= SLOW_AFTER) {
                my_timer.overruns = 0;
                slow_down();
            }
        }
    }                                      /* (p NULL: one that came just after the parse) */
    errno = saved;
}

/* Whether the program left sig's default action: the signal is free to use. */
static int signal_free(int sig)
{
    struct sigaction now;
    return sigaction(sig, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_DFL;
}

/* Whether our handler is still sig's: the program may have installed its own since. */
static int handler_ours(int sig)
{
    struct sigaction now;
    return sigaction(sig, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_signal;
}

static void delete_timer(void *unused)
{
    (void)unused;
    if (my_timer.made) timer_delete(my_timer.id);
    my_timer.made = 0;
}

static void after_fork_in_child(void)
{
    my_timer.made = 0;                      /* timers are not inherited */
    my_timer.interval_ns = 0;
    slowest = 1;
    sampling = NULL;
}

/* Installs the handler once per process, on SIGPROF when the program left
 * it its default action, else on the highest real-time signal it left so: a
 * handler of the program's is never replaced. -1 when it cannot (no timer),
 * RT_SAMPLER_NO_SIGNAL when no signal is free. */
static int install(void)
{
    int done = __atomic_load_n(&sampler.installed, __ATOMIC_ACQUIRE);
    if (done) return done > 0 ? 0 : RT_SAMPLER_NO_SIGNAL;   /* every parse after the first */
    pthread_mutex_lock(&sampler.lock);
    int status = 0;
    if (!sampler.installed) {
#ifdef HAVE_LIBUNWIND
        find_vm_code();                    /* before any signal */
#endif
        int sig = signal_free(SIGPROF) ? SIGPROF : 0;
        for (int s = SIGRTMAX; !sig && s >= SIGRTMIN; s--)
            if (signal_free(s)) sig = s;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (!sig) {
            status = RT_SAMPLER_NO_SIGNAL;
            __atomic_store_n(&sampler.installed, -1, __ATOMIC_RELEASE);
        } else if (pthread_key_create(&sampler.key, delete_timer) != 0 || sigaction(sig, &sa, NULL) != 0) {
            status = -1;
        } else {
            sampler.signal = sig;
            pthread_atfork(NULL, NULL, after_fork_in_child);
            __atomic_store_n(&sampler.installed, 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&sampler.lock);
    return status;
}

int rt_sampler_begin(pego_parser *p, uint64_t interval_ns, int cpu)
{
    int status = install();
    if (status < 0) return status;
    if (!handler_ours(sampler.signal)) return RT_SAMPLER_REPLACED;
    if (!my_timer.made) {
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = sampler.signal;
        ev.sigev_value.sival_ptr = &sampler;       /* tells our signals from the program's */
#ifdef sigev_notify_thread_id
        ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
#else
        ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
#endif
        if (timer_create(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ev, &my_timer.id) != 0) return -1;
        my_timer.made = 1;
        memset(&my_timer.left, 0, sizeof my_timer.left);
        my_timer.interval_ns = 0;
        pthread_setspecific(sampler.key, &my_timer);
    }
    if (my_timer.interval_ns != interval_ns) {
        my_timer.interval_ns = interval_ns;
        my_timer.slow = 1;
        my_timer.overruns = 0;
    }
    my_timer.wall = !cpu;
    p->sample_top = 0;
    p->sample_ip = NULL;
    p->es_moving = 0;
    sampling = p;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (arm(my_timer.left.it_value) != 0) {
        sampling = NULL;
        return -1;
    }
    return 0;
}

void rt_sampler_end(pego_parser *p)
{
    (void)p;
    struct itimerspec off;
    memset(&off, 0, sizeof off);
    if (my_timer.made && timer_settime(my_timer.id, 0, &off, &my_timer.left) != 0)
        memset(&my_timer.left, 0, sizeof my_timer.left);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    sampling = NULL;
}
