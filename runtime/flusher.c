/* The flusher (docs/profiling.md, "What a report survives"): a thread of the
 * profiler's own that writes the report when the program cannot.
 *   - On SIGTERM, SIGINT and SIGHUP, where the program left the signal's
 *     default action when profiling started: the handler only records the
 *     signal and posts a semaphore (a signal handler may not lock or
 *     allocate); the flusher writes the report, restores the default action
 *     and sends the signal again, so that the process ends as it would have,
 *     with the same status.
 *   - With --profile-flush, at that interval: a kill -9, an abort() or an
 *     _exit() then loses at most what came after the last write.
 * The thread blocks every signal, so none of the program's signals (nor the
 * sampler's) is ever delivered to it. A forked child has no flusher until its
 * first profiled parse; a fatal signal before then ends it by default, without
 * a report. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "parser.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const int fatal_signals[] = { SIGTERM, SIGINT, SIGHUP };
enum { NFATAL = sizeof fatal_signals / sizeof fatal_signals[0] };

static struct {
    pthread_mutex_t       lock;
    sem_t                 wake;
    sem_t                 ready;       /* posted once the thread has started */
    volatile sig_atomic_t signal;      /* the first fatal signal received, or 0 */
    volatile pid_t        pid;         /* the process the flusher runs in; 0: none */
    uint64_t              interval_ns; /* --profile-flush; 0: only on signals */
    int                   handlers;    /* the handlers were considered (once per process) */
} fl = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void on_fatal_signal(int sig)
{
    int saved = errno;
    if (fl.pid == getpid()) {
        if (!fl.signal) fl.signal = sig;
        sem_post(&fl.wake);
    } else {                            /* no flusher in this process: end as by default */
        signal(sig, SIG_DFL);
        raise(sig);
    }
    errno = saved;
}

/* The deadline interval_ns from now, on the monotonic clock. */
static struct timespec deadline(uint64_t interval_ns)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t ns = (uint64_t)t.tv_nsec + interval_ns % 1000000000u;
    t.tv_sec += (time_t)(interval_ns / 1000000000u + ns / 1000000000u);
    t.tv_nsec = (long)(ns % 1000000000u);
    return t;
}

static void *flusher_main(void *unused)
{
    (void)unused;
    sem_post(&fl.ready);
    for (;;) {
        int timed_out = 0;
        if (fl.interval_ns) {
            struct timespec at = deadline(fl.interval_ns);
            while (sem_clockwait(&fl.wake, CLOCK_MONOTONIC, &at) < 0) {
                if (errno == ETIMEDOUT) { timed_out = 1; break; }
            }
        } else {
            while (sem_wait(&fl.wake) < 0) {}
        }
        int sig = fl.signal;
        if (!sig && !timed_out) continue;
        rt_profiler_write_now();
        if (sig) {
            signal(sig, SIG_DFL);
            kill(getpid(), sig);       /* some thread that does not block it takes it */
            for (;;) pause();
        }
    }
    return NULL;
}

/* Installs the handler for each fatal signal whose action is the default. */
static void take_fatal_signals(void)
{
    for (int i = 0; i < NFATAL; i++) {
        struct sigaction old, sa;
        if (sigaction(fatal_signals[i], NULL, &old) != 0) continue;
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;   /* the program's own */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

/* Starts the flusher in this process when it has none. */
static void start_locked(void)
{
    pid_t me = getpid();
    if (fl.pid == me) return;
    if (sem_init(&fl.wake, 0, 0) != 0 || sem_init(&fl.ready, 0, 0) != 0) return;
    fl.signal = 0;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* the thread starts with every signal blocked */
    pthread_attr_t attr;
    pthread_t tid;
    int made = pthread_attr_init(&attr) == 0;
    if (made) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        made = pthread_create(&tid, &attr, flusher_main, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!made) return;
    /* Wait until the thread runs. A thread still starting may be inside
     * malloc (sanitizer runtimes allocate there), and a fork at that moment
     * would leave the child's allocator locked for good. */
    while (sem_wait(&fl.ready) < 0) {}
    fl.pid = me;
    if (!fl.handlers) {
        fl.handlers = 1;
        take_fatal_signals();
    }
}

void rt_flusher_start(uint64_t interval_ns)
{
    pthread_mutex_lock(&fl.lock);
    fl.interval_ns = interval_ns;
    start_locked();
    pthread_mutex_unlock(&fl.lock);
}

void rt_flusher_check(void)
{
    if (fl.pid) return;                 /* the usual case: it runs */
    pthread_mutex_lock(&fl.lock);
    start_locked();
    pthread_mutex_unlock(&fl.lock);
}

void rt_flusher_after_fork_in_child(void)
{
    fl.pid = 0;                         /* threads are not inherited */
    pthread_mutex_init(&fl.lock, NULL);
}
