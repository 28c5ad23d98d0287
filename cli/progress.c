/* Progress on standard error while a command works: a thread that, from one
 * second after the start, rewrites one line in place every quarter of a
 * second with how much is done (bytes or files) out of the whole, the rate
 * and the time left, and erases it at the end. It shows nothing when standard
 * error is not a terminal or the command was given -q. The thread learns what
 * is done from the command's done() function, which it calls from its own
 * thread: for pego parse, pego_parser_progress; for pego report, a count of
 * the files read. */
#include "cli.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_DELAY_S   1.0    /* nothing for work shorter than this */
#define PROGRESS_PERIOD_MS 250

struct cli_progress {
    pthread_t       thread;
    pthread_mutex_t lock;
    pthread_cond_t  wake;
    int             stop, shown;
    const char     *what;
    uint64_t        total;
    int             bytes;        /* the counts are bytes, else files */
    uint64_t      (*done)(void *ud);
    void           *ud;
    struct timespec start;
};

static double seconds_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* "12.3 MB" of a byte count, or "312" of a file count. */
static void amount_text(const cli_progress *p, double n, char *text, size_t len)
{
    if (!p->bytes) snprintf(text, len, "%.0f", n);
    else if (n >= 1e9) snprintf(text, len, "%.2f GB", n / 1e9);
    else if (n >= 1e6) snprintf(text, len, "%.1f MB", n / 1e6);
    else snprintf(text, len, "%.0f kB", n / 1e3);
}

/* One line: "big.json: 12.3 MB of 50.0 MB (24%), 20.1 MB/s, 2 s left". */
static void show(cli_progress *p, double elapsed)
{
    uint64_t done = p->done(p->ud);
    if (done > p->total) done = p->total;
    double rate = elapsed > 0 ? (double)done / elapsed : 0;
    char d[32], t[32], r[32], line[512];
    amount_text(p, (double)done, d, sizeof d);
    amount_text(p, (double)p->total, t, sizeof t);
    amount_text(p, rate, r, sizeof r);
    int n = snprintf(line, sizeof line, "\r\033[K%s: %s of %s%s (%.0f%%), %s%s/s", p->what, d, t,
                     p->bytes ? "" : " files", p->total ? 100.0 * (double)done / (double)p->total : 100.0, r,
                     p->bytes ? "" : " files");
    if (rate > 0 && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, ", %.0f s left", (double)(p->total - done) / rate + 0.5);
    fputs(line, stderr);
    fflush(stderr);
    p->shown = 1;
}

static void *progress_thread(void *arg)
{
    cli_progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += PROGRESS_PERIOD_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        double elapsed = seconds_since(&p->start);
        if (!p->stop && elapsed >= PROGRESS_DELAY_S) show(p, elapsed);
    }
    pthread_mutex_unlock(&p->lock);
    cli_progress_erase(p);
    return NULL;
}

int cli_progress_wanted(int quiet)
{
    return !quiet && isatty(STDERR_FILENO);
}

cli_progress *cli_progress_start(int quiet, const char *what, uint64_t total, int bytes,
                                 uint64_t (*done)(void *ud), void *ud)
{
    if (!cli_progress_wanted(quiet)) return NULL;
    cli_progress *p = calloc(1, sizeof *p);
    if (!p) return NULL;   /* no progress is no error */
    *p = (cli_progress){ .what = what, .total = total, .bytes = bytes, .done = done, .ud = ud };
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, &attr);
    pthread_condattr_destroy(&attr);
    clock_gettime(CLOCK_MONOTONIC, &p->start);
    if (pthread_create(&p->thread, NULL, progress_thread, p) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
    }
    return p;
}

void cli_progress_erase(cli_progress *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->shown = 0;
    }
    pthread_mutex_unlock(&p->lock);
}

void cli_progress_stop(cli_progress *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
