/* A program that uses libpego the ways that end a program badly, for
 * tests/survive.test (docs/profiling.md, "What a report survives"). Run with
 * PEGO_FLAGS=--profile=... it must leave a complete report whichever way it
 * ends. Usage: survive_prog MODE GRAMMAR FILE
 *   exit-threads  four threads parse FILE in a loop; main exits after 5 ms
 *   flush-threads the same, main calling pego_profile_flush 20 times first
 *   threads-for   four threads parse FILE for 3 s each; main joins them and
 *                 returns 0
 *   fork          3 parses, fork; the child makes 2 and exits, the parent 4
 *   stress        four threads parse; main forks while they do; the child
 *                 starts two threads of its own and exits while they parse;
 *                 the parent waits for it and exits while its threads parse
 *   loop          parses in a loop, printing "ready" after the first parse,
 *                 until a signal ends it
 *   own-handler   as loop, with a SIGTERM handler of its own that stops the
 *                 loop; then it exits 3
 *   abort         parses for 300 ms (printing "ready" after the first), then
 *                 abort()s
 *   own-sigprof   installs a SIGPROF handler of its own, parses for 600 ms,
 *                 then prints whether its handler is still installed and how
 *                 many signals it got before and after raise(SIGPROF)
 *   sigprof-after parses for 100 ms, installs a SIGPROF handler of its own,
 *                 parses for 100 ms more, and prints the same
 *   pause-write   as loop, each write of a report frame pausing for a second
 *                 halfway; SURVIVE_NO_HELPER in the environment: the program
 *                 writes its frames itself. Only in tests/survive_fault, this
 *                 program built with the library's sources and fault
 *                 injection */
#define _GNU_SOURCE 1          /* a writer-preferring read-write lock */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pego.h"
#ifdef PEGO_FAULT_INJECTION
#include "../runtime/report_writer.h"
#endif

/* AddressSanitizer's runtime (as GCC 12 ships it) takes no locks of its own
 * across fork(): a child forked while another thread is in its allocator can
 * deadlock in its first allocation. Built with it, the stress mode forks while
 * its threads wait between two parses; built without, while they parse. */
#if defined(__SANITIZE_ADDRESS__)
enum { FORK_BETWEEN_PARSES = 1 };
#else
enum { FORK_BETWEEN_PARSES = 0 };
#endif
static pthread_rwlock_t pause_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;   /* read by each parse, written by the fork */

static const pego_grammar *grammar;
static volatile sig_atomic_t stop;      /* set by the program's own SIGTERM handler */
static char *input;
static size_t input_len;

static void parse_times(int n)
{
    pego_parser *p = pego_parser_new(grammar);
    pego_options o = { .input_name = "input" };
    const pego_result *r;
    for (int k = 0; (k < n || n < 0) && !stop; k++) {
        if (FORK_BETWEEN_PARSES) pthread_rwlock_rdlock(&pause_lock);
        pego_parse(p, input, input_len, &o, &r);
        if (FORK_BETWEEN_PARSES) pthread_rwlock_unlock(&pause_lock);
    }
    pego_parser_free(p);
}

static void *parse_forever(void *unused)
{
    (void)unused;
    parse_times(-1);
    return NULL;
}

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0) {}
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void ready(void)
{
    puts("ready");
    fflush(stdout);
}

static void own_handler(int sig)
{
    stop = sig;
}

static volatile sig_atomic_t own_sigprofs;   /* SIGPROF signals the program's own handler got */

static void count_sigprof(int sig)
{
    (void)sig;
    own_sigprofs++;
}

/* Parses for ms milliseconds. */
static void parse_for(double ms)
{
    for (double end = now_ms() + ms; now_ms() < end;) parse_times(1);
}

static void *parse_for_3s(void *unused)
{
    (void)unused;
    parse_for(3000);
    return NULL;
}

/* Prints whether the program's SIGPROF handler is installed, and the signals
 * it got before and after one raise(SIGPROF). */
static void report_sigprof(void)
{
    struct sigaction now;
    sigaction(SIGPROF, NULL, &now);
    int before = own_sigprofs;
    raise(SIGPROF);
    printf("%s %d %d\n", now.sa_handler == count_sigprof ? "kept" : "replaced", before, (int)own_sigprofs);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: survive_prog MODE GRAMMAR FILE\n");
        return 2;
    }
    const char *mode = argv[1];
    pego_diag *d = NULL;
    pego_grammar *g = pego_compile_file(argv[2], &d);
    if (!g) {
        fprintf(stderr, "%s\n", pego_diag_text(d));
        return 2;
    }
    grammar = g;
    FILE *f = fopen(argv[3], "rb");
    if (!f) return 2;
    input = malloc(1 << 20);
    input_len = fread(input, 1, 1 << 20, f);
    fclose(f);

    if (strcmp(mode, "exit-threads") == 0 || strcmp(mode, "flush-threads") == 0) {
        parse_times(1);                 /* profiling starts at the first parser, before the threads */
        pthread_t t;
        for (int i = 0; i < 4; i++) pthread_create(&t, NULL, parse_forever, NULL);
        for (int i = 0; i < 20 && mode[0] == 'f'; i++) {
            sleep_ms(2);
            if (pego_profile_flush() != 0) return 1;
        }
        sleep_ms(5);
        exit(0);
    }
    if (strcmp(mode, "threads-for") == 0) {
        pthread_t t[4];
        for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, parse_for_3s, NULL);
        for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
        free(input);
        pego_grammar_free(g);
        return 0;
    }
    if (strcmp(mode, "stress") == 0) {
        parse_times(1);
        pthread_t t;
        for (int i = 0; i < 4; i++) pthread_create(&t, NULL, parse_forever, NULL);
        sleep_ms(3);
        fflush(stdout);
        if (FORK_BETWEEN_PARSES) pthread_rwlock_wrlock(&pause_lock);
        pid_t child = fork();
        if (FORK_BETWEEN_PARSES) pthread_rwlock_unlock(&pause_lock);
        if (child < 0) return 2;
        if (child == 0) {
            for (int i = 0; i < 2; i++) pthread_create(&t, NULL, parse_forever, NULL);
            sleep_ms(3);
            exit(0);
        }
        int status;
        if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
        printf("%ld %ld\n", (long)getpid(), (long)child);
        fflush(stdout);
        exit(0);
    }
    if (strcmp(mode, "fork") == 0) {
        parse_times(3);
        fflush(stdout);
        pid_t child = fork();
        if (child < 0) return 2;
        if (child == 0) {
            parse_times(2);
            exit(0);
        }
        parse_times(4);
        int status;
        if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
        printf("%ld %ld\n", (long)getpid(), (long)child);
        return 0;
    }
    if (strcmp(mode, "loop") == 0 || strcmp(mode, "own-handler") == 0) {
        if (strcmp(mode, "own-handler") == 0) signal(SIGTERM, own_handler);
        parse_times(1);
        ready();
        parse_times(-1);
        exit(3);                        /* its own handler stopped the loop */
    }
#ifdef PEGO_FAULT_INJECTION
    if (strcmp(mode, "pause-write") == 0) {
        rep_fault_write_pause_ms = 1000;
        rep_fault_no_helper = getenv("SURVIVE_NO_HELPER") != NULL;
        parse_times(1);
        ready();
        parse_times(-1);
        return 3;
    }
#endif
    if (strcmp(mode, "own-sigprof") == 0 || strcmp(mode, "sigprof-after") == 0) {
        int after = strcmp(mode, "sigprof-after") == 0;
        if (after) parse_for(100);
        signal(SIGPROF, count_sigprof);
        parse_for(after ? 100 : 600);
        report_sigprof();
        return 0;
    }
    if (strcmp(mode, "abort") == 0) {
        parse_times(1);
        ready();
        for (double end = now_ms() + 300; now_ms() < end;) parse_times(1);
        abort();
    }
    fprintf(stderr, "survive_prog: unknown mode %s\n", mode);
    return 2;
}
