/* The report writer: builds the JSON Lines text of one report frame in memory,
 * compresses it as one zstd frame with a checksum, and writes it to a file,
 * replacing it through a temporary file and a rename, or appending under an
 * exclusive lock, in a helper process that a kill of the program does not
 * end (run_job). Also the file name pattern (%p %h %t %%).
 * Part of libpego: it never prints; failures come back as messages. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1                   /* clone() */
#endif
#include "report_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "buf.h"
#include "unicode.h"
#include "alloc.h"

struct rep_builder {
    rt_buf   text;
    uint64_t records;     /* header included */
    uint64_t parses;
    int      detail;      /* the header's: rule records carry the detail-only metrics */
    int      sampled;     /* the header's mode is sampled: rule records carry samples */
    int      memory;      /* the header's: rule, parse and stack records carry the memory counts */
};

char *rep_expand_path(const char *pattern, int64_t pid, const char *host, int64_t start)
{
    rt_buf b;
    rt_buf_init(&b);
    for (const char *p = pattern; *p; p++) {
        if (*p != '%' || !p[1]) { rt_buf_addc(&b, *p); continue; }
        switch (p[1]) {
        case 'p': rt_buf_printf(&b, "%lld", (long long)pid); p++; break;
        case 'h': rt_buf_adds(&b, host ? host : ""); p++; break;
        case 't': rt_buf_printf(&b, "%lld", (long long)start); p++; break;
        case '%': rt_buf_addc(&b, '%'); p++; break;
        default:  rt_buf_addc(&b, '%'); break;
        }
    }
    if (b.oom) { rt_buf_free(&b); return NULL; }
    return rt_buf_take(&b);
}

/* ---- the records ---- */

static void add_string(rt_buf *b, const char *key, const char *s)
{
    rt_buf_printf(b, ",\"%s\":", key);
    if (!s) s = "";
    rt_unicode_json_string(b, s, strlen(s));
}

static void add_count(rt_buf *b, const char *key, uint64_t v)
{
    rt_buf_printf(b, ",\"%s\":%llu", key, (unsigned long long)v);
}

/* Opens a record: {"type":"TYPE" */
static void open_record(rep_builder *b, const char *type)
{
    rt_buf_printf(&b->text, "{\"type\":\"%s\"", type);
}

static int close_record(rep_builder *b)
{
    rt_buf_adds(&b->text, "}\n");
    b->records++;
    return b->text.oom ? -1 : 0;
}

rep_builder *rep_builder_new(const rep_header *h)
{
    rep_builder *b = rt_calloc(1, sizeof *b);
    if (!b) return NULL;
    rt_buf_init(&b->text);
    rt_buf *t = &b->text;
    char start[32] = "";
    time_t secs = (time_t)h->start;
    struct tm tm;
    if (gmtime_r(&secs, &tm)) strftime(start, sizeof start, "%Y-%m-%dT%H:%M:%SZ", &tm);
    open_record(b, "header");
    add_string(t, "format", REP_FORMAT_NAME);
    rt_buf_printf(t, ",\"version\":%d", REP_FORMAT_VERSION);
    add_string(t, "pego", h->pego);
    rt_buf_printf(t, ",\"pid\":%lld", (long long)h->pid);
    add_string(t, "host", h->host);
    rt_buf_adds(t, ",\"argv\":[");
    for (int i = 0; i < h->argc; i++) {
        if (i) rt_buf_addc(t, ',');
        const char *a = h->argv[i] ? h->argv[i] : "";
        rt_unicode_json_string(t, a, strlen(a));
    }
    rt_buf_addc(t, ']');
    add_string(t, "start", start);
    add_string(t, "clock", h->clock);
    add_string(t, "mode", h->mode);
    rt_buf_printf(t, ",\"detail\":%s", h->detail ? "true" : "false");
    if (h->memory) rt_buf_adds(t, ",\"memory\":true");
    add_count(t, "clock_reads", h->clock_reads);
    b->detail = h->detail != 0;
    b->memory = h->memory != 0;
    b->sampled = h->mode && strcmp(h->mode, "sampled") == 0;
    if (b->sampled) {
        add_count(t, "sample_interval_ns", h->sample_interval_ns);
        add_count(t, "samples", h->samples);
        add_count(t, "samples_lost", h->samples_lost);
        if (h->sample_interval_max_ns > h->sample_interval_ns)
            add_count(t, "sample_interval_max_ns", h->sample_interval_max_ns);
    }
    if (close_record(b) < 0) {
        rep_builder_free(b);
        return NULL;
    }
    return b;
}

void rep_builder_free(rep_builder *b)
{
    if (!b) return;
    rt_buf_free(&b->text);
    rt_free(b);
}

int rep_add_grammar(rep_builder *b, const rep_grammar *g)
{
    rt_buf *t = &b->text;
    open_record(b, "grammar");
    add_count(t, "id", g->id);
    add_string(t, "name", g->name);
    add_string(t, "file", g->file);
    rt_buf_printf(t, ",\"hash\":\"%016llx\"", (unsigned long long)g->hash);
    rt_buf_adds(t, ",\"rules\":[");
    for (size_t i = 0; i < g->nrules; i++) {
        rt_buf_printf(t, "%s{\"id\":%zu", i ? "," : "", i);
        add_string(t, "name", g->rules[i].name);
        rt_buf_printf(t, ",\"line\":%u,\"col\":%u}", g->rules[i].line, g->rules[i].col);
    }
    rt_buf_addc(t, ']');
    if (g->source) {
        rt_buf_adds(t, ",\"source\":");
        rt_unicode_json_string(t, g->source, g->source_len);
    }
    return close_record(b);
}

static const char *const unit_names[] = { "bytes", "codepoints" };
static const char *const result_names[] = { "ok", "syntax error", "aborted", "nesting limit" };
static const char *const source_names[] = { "text", "stream", "document" };

int rep_add_parse(rep_builder *b, const rep_parse *p)
{
    rt_buf *t = &b->text;
    open_record(b, "parse");
    add_count(t, "id", p->id);
    add_count(t, "grammar", p->grammar);
    add_string(t, "input", p->input);
    add_count(t, "bytes", p->bytes);
    add_string(t, "unit", unit_names[p->unit == REP_UNIT_CODEPOINTS]);
    add_string(t, "result", result_names[p->result <= REP_RESULT_NESTING_LIMIT ? p->result : REP_RESULT_ABORTED]);
    if (p->source == REP_SOURCE_STREAM || p->source == REP_SOURCE_DOCUMENT) add_string(t, "source", source_names[p->source]);
    add_count(t, "time_ns", p->time_ns);
    add_count(t, "calls", p->calls);
    add_count(t, "evals", p->evals);
    add_count(t, "memo", p->memo);
    add_count(t, "clock_reads", p->clock_reads);
    if (p->top_rule == REP_NO_RULE) rt_buf_adds(t, ",\"top_rule\":null");
    else add_count(t, "top_rule", p->top_rule);
    if (b->memory) {
        add_count(t, "node_bytes", p->node_bytes);
        add_count(t, "memo_bytes", p->memo_bytes);
        add_count(t, "peak_node_bytes", p->peak_node_bytes);
        add_count(t, "peak_memo_bytes", p->peak_memo_bytes);
        add_count(t, "peak_stack_bytes", p->peak_stack_bytes);
    }
    b->parses++;
    return close_record(b);
}

int rep_add_rule(rep_builder *b, const rep_rule *r)
{
    rt_buf *t = &b->text;
    open_record(b, "rule");
    add_count(t, "grammar", r->grammar);
    add_count(t, "rule", r->rule);
    /* what only --profile-detail, sampled mode or --profile-memory collects is absent, not 0, in other reports */
#define WRITE_COUNT(field, which) \
    if ((which) == REP_ALL || ((which) == REP_DETAIL && b->detail) || ((which) == REP_SAMPLED && b->sampled) || \
        ((which) == REP_MEMORY && b->memory)) \
        add_count(t, #field, r->field);
    REP_RULE_COUNTS(WRITE_COUNT)
#undef WRITE_COUNT
    return close_record(b);
}

int rep_add_edge(rep_builder *b, const rep_edge *e)
{
    rt_buf *t = &b->text;
    open_record(b, "edge");
    add_count(t, "grammar", e->grammar);
    add_count(t, "caller", e->caller);
    add_count(t, "callee", e->callee);
    add_count(t, "calls", e->calls);
    add_count(t, "time_ns", e->time_ns);
    return close_record(b);
}

/* ,"name":["a","b"] */
static void add_strings(rt_buf *t, const char *name, const char *const *v, size_t n)
{
    rt_buf_printf(t, ",\"%s\":[", name);
    for (size_t i = 0; i < n; i++) {
        if (i) rt_buf_addc(t, ',');
        rt_unicode_json_string(t, v[i], strlen(v[i]));
    }
    rt_buf_addc(t, ']');
}

int rep_add_stack(rep_builder *b, const rep_stack *s)
{
    rt_buf *t = &b->text;
    open_record(b, "stack");
    add_count(t, "grammar", s->grammar);
    rt_buf_adds(t, ",\"frames\":[");
    for (size_t i = 0; i < s->nframes; i++) rt_buf_printf(t, "%s%u", i ? "," : "", s->frames[i]);
    rt_buf_addc(t, ']');
    add_count(t, "calls", s->calls);
    add_count(t, "self_ns", s->self_ns);
    if (b->memory) add_count(t, "node_bytes", s->node_bytes);
    if (s->line) {
        add_count(t, "line", s->line);
        add_count(t, "col", s->col);
    }
    if (s->nnative) add_strings(t, "native", s->native, s->nnative);
    return close_record(b);
}

int rep_add_line(rep_builder *b, const rep_line *l)
{
    rt_buf *t = &b->text;
    open_record(b, "line");
    add_count(t, "grammar", l->grammar);
    add_count(t, "line", l->line);
    add_count(t, "col", l->col);
    if (b->sampled) add_count(t, "samples", l->samples);
    add_count(t, "self_ns", l->self_ns);
    return close_record(b);
}

int rep_add_caller(rep_builder *b, const rep_caller *c)
{
    rt_buf *t = &b->text;
    open_record(b, "caller");
    add_strings(t, "frames", c->frames, c->nframes);
    add_count(t, "parses", c->parses);
    add_count(t, "time_ns", c->time_ns);
    return close_record(b);
}

const char *rep_builder_text(const rep_builder *b, size_t *len)
{
    *len = b->text.len;
    return b->text.data ? b->text.data : "";
}

/* ---- compression and files ---- */

static int fail(char *errbuf, size_t errlen, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *errbuf, size_t errlen, const char *path, const char *fmt, ...)
{
    if (errlen) {
        char reason[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, sizeof reason, fmt, ap);
        va_end(ap);
        /* a path too long for the buffer loses its middle, never the reason */
        size_t fixed = strlen("cannot write profile : ") + strlen(reason) + 1, plen = strlen(path);
        if (fixed + plen <= errlen || errlen < fixed + 16) {
            snprintf(errbuf, errlen, "cannot write profile %s: %s", path, reason);
        } else {
            size_t keep = errlen - fixed - 3, head = keep / 2, tail = keep - head;
            snprintf(errbuf, errlen, "cannot write profile %.*s...%s: %s", (int)head, path, path + plen - tail, reason);
        }
    }
    return -1;
}

/* Compresses the records and the footer into one zstd frame with a content
 * checksum. Returns the malloc'd frame, or NULL with a reason. */
static void *compress_frame(const rep_builder *b, size_t *outlen, const char **reason)
{
    char footer[96];
    int flen = snprintf(footer, sizeof footer, "{\"type\":\"footer\",\"parses\":%llu,\"records\":%llu}\n",
                        (unsigned long long)b->parses, (unsigned long long)(b->records + 1));
    size_t total = b->text.len + (size_t)flen;
    size_t cap = ZSTD_compressBound(total);
    void *out = rt_malloc(cap);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    *reason = "out of memory";
    if (!out || !cctx) goto failed;
    size_t rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setPledgedSrcSize(cctx, total);
    ZSTD_outBuffer ob = { out, cap, 0 };
    ZSTD_inBuffer body = { b->text.data, b->text.len, 0 };
    ZSTD_inBuffer foot = { footer, (size_t)flen, 0 };
    while (!ZSTD_isError(rc) && body.pos < body.size)
        rc = ZSTD_compressStream2(cctx, &ob, &body, ZSTD_e_continue);
    do {
        if (!ZSTD_isError(rc)) rc = ZSTD_compressStream2(cctx, &ob, &foot, ZSTD_e_end);
    } while (!ZSTD_isError(rc) && rc != 0);
    if (ZSTD_isError(rc)) {
        *reason = ZSTD_getErrorName(rc);
        goto failed;
    }
    ZSTD_freeCCtx(cctx);
    *outlen = ob.pos;
    return out;
failed:
    ZSTD_freeCCtx(cctx);
    rt_free(out);
    return NULL;
}

/* One write of a frame (append_frame, replace_file): what to write, and
 * what came of it. */
typedef struct file_job file_job;
struct file_job {
    void      (*run)(file_job *);   /* append_run or replace_run */
    const char *path;
    const char *tmp;          /* replace_run: the temporary file, renamed over path */
    const void *frame;
    size_t      len;
    int         err;          /* an errno value, or 0 */
    int         not_regular;  /* append_run: the path is not a regular file */
};

/* The job's functions make system calls only, with syscall(): they run in
 * the helper process of run_job, which shares the program's memory, where no
 * instrumented code or libc state may run. */
#define HELPER_CODE __attribute__((no_sanitize("address", "undefined")))

#ifdef PEGO_FAULT_INJECTION
unsigned rep_fault_write_pause_ms;
int      rep_fault_no_helper;
#endif

/* Writes the bytes from at to end to fd; returns 0 or an errno value. */
HELPER_CODE static int write_bytes(long fd, const char *at, const char *end)
{
    while (at < end) {
        long n = syscall(SYS_write, fd, at, (long)(end - at));
        if (n < 0 && errno != EINTR) return errno;
        if (n == 0) return EIO;
        if (n > 0) at += n;
    }
    return 0;
}

/* Writes all of the frame to fd; returns 0 or an errno value. */
HELPER_CODE static int job_write(const file_job *j, long fd)
{
    const char *at = j->frame, *end = at + j->len;
#if defined(PEGO_FAULT_INJECTION) && defined(SYS_nanosleep)
    if (rep_fault_write_pause_ms && j->len > 1) {     /* half the frame, a pause, the rest */
        const char *half = at + j->len / 2;
        int err = write_bytes(fd, at, half);
        if (err) return err;
        struct timespec t = { (time_t)(rep_fault_write_pause_ms / 1000), (long)(rep_fault_write_pause_ms % 1000) * 1000000L };
        syscall(SYS_nanosleep, &t, NULL);
        at = half;
    }
#endif
    return write_bytes(fd, at, end);
}

/* Whether the open file fd is a regular file, and its size, into *size; an
 * errno value for a failure. statx has the same layout on every
 * architecture (the kernel's struct stat is glibc's on some only); where the
 * kernel has none (before Linux 4.11), the size is where the file ends, and
 * only a file that cannot seek (a FIFO) is taken as not regular. */
HELPER_CODE static int job_file_size(long fd, int *regular, uint64_t *size)
{
    struct statx sx;
    if (syscall(SYS_statx, fd, "", (long)AT_EMPTY_PATH, (long)(STATX_TYPE | STATX_SIZE), &sx) == 0) {
        *regular = S_ISREG(sx.stx_mode);
        *size = sx.stx_size;
        return 0;
    }
    if (errno != ENOSYS && errno != EPERM) return errno;
    long end = syscall(SYS_lseek, fd, 0L, (long)SEEK_END);
    if (end < 0) {
        if (errno != ESPIPE) return errno;
        *regular = 0;
        return 0;
    }
    *regular = 1;
    *size = (uint64_t)end;
    return 0;
}

/* Appends the frame under an exclusive lock; a failed write is cut off
 * again, so the file gains one complete frame or nothing. */
HELPER_CODE static void append_run(file_job *j)
{
    /* O_NONBLOCK: a FIFO put there since is not waited for (job_file_size refuses it) */
    long fd = syscall(SYS_openat, (long)AT_FDCWD, j->path,
                      (long)(O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), 0644L);
    if (fd < 0) {
        j->err = errno;
        return;
    }
    int err = 0;
    while (syscall(SYS_flock, fd, (long)LOCK_EX) < 0) {
        if (errno != EINTR) { err = errno; break; }
    }
    int regular = 0;
    uint64_t size = 0;
    if (!err) err = job_file_size(fd, &regular, &size);
    if (!err && !regular) j->not_regular = 1;
    if (!err && regular) {
        err = job_write(j, fd);
        if (err) syscall(SYS_ftruncate, fd, (long)size);   /* the write error is the one reported */
    }
    syscall(SYS_flock, fd, (long)LOCK_UN);
    if (syscall(SYS_close, fd) < 0 && !err && errno != EINTR) err = errno;
    j->err = err;
}

/* Writes the frame to a new temporary file (EEXIST: the name is taken),
 * syncs it, and renames it over the report; on an error the temporary file
 * is removed. */
HELPER_CODE static void replace_run(file_job *j)
{
    long fd = syscall(SYS_openat, (long)AT_FDCWD, j->tmp,
                      (long)(O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC), 0644L);
    if (fd < 0) {
        j->err = errno;
        return;
    }
    int err = job_write(j, fd);
    if (!err && syscall(SYS_fsync, fd) < 0) err = errno;
    if (syscall(SYS_close, fd) < 0 && !err && errno != EINTR) err = errno;
#ifdef SYS_renameat
    if (!err && syscall(SYS_renameat, (long)AT_FDCWD, j->tmp, (long)AT_FDCWD, j->path) < 0) err = errno;
#else                                   /* riscv64 and others: renameat2 only */
    if (!err && syscall(SYS_renameat2, (long)AT_FDCWD, j->tmp, (long)AT_FDCWD, j->path, 0L) < 0) err = errno;
#endif
    if (err) syscall(SYS_unlinkat, (long)AT_FDCWD, j->tmp, 0L);
    j->err = err;
}

HELPER_CODE static int helper_main(void *arg)
{
    file_job *j = arg;
    syscall(SYS_setpgid, 0L, 0L);      /* a kill of the program's process group spares it */
    j->run(j);
    return 0;
}

/* Runs a job in a short-lived helper process. The kernel stops a write
 * between pages when the process gets a fatal signal, so a kill -9 that lands
 * while the program writes a frame of several pages would leave an appended
 * frame cut, or a temporary file beside the report. The helper shares the
 * program's memory (clone with CLONE_VM | CLONE_VFORK: the calling thread
 * waits for it) and outlives a kill of the program, and of its process
 * group: it makes a group of its own. It starts with every signal blocked (a
 * Ctrl-C must not end it mid-write, nor run a handler of the program's in
 * it). Its exit signal is none: the program gets no SIGCHLD, and a wait() of
 * the program's own does not see it. Where no helper can be made, the
 * program runs the job itself. */
static void run_job(file_job *j)
{
    enum { HELPER_STACK = 64 * 1024 };
    void *stack = mmap(NULL, HELPER_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    pid_t helper = -1;
#ifdef PEGO_FAULT_INJECTION
    if (rep_fault_no_helper && stack != MAP_FAILED) {
        munmap(stack, HELPER_STACK);
        stack = MAP_FAILED;
    }
#endif
    if (stack != MAP_FAILED) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        helper = clone(helper_main, (char *)stack + HELPER_STACK, CLONE_VM | CLONE_VFORK, j);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (helper > 0)
            while (waitpid(helper, NULL, __WALL) < 0 && errno == EINTR) {}
        munmap(stack, HELPER_STACK);
    }
    if (helper <= 0) j->run(j);
}

/* Appends one frame. */
static int append_frame(const char *path, const void *frame, size_t len, char *errbuf, size_t errlen)
{
    struct stat before;
    if (lstat(path, &before) == 0 && !S_ISREG(before.st_mode))
        return fail(errbuf, errlen, path, "%s", S_ISLNK(before.st_mode) ? strerror(ELOOP) : "not a regular file");
    file_job job = { .run = append_run, .path = path, .frame = frame, .len = len };
    run_job(&job);
    if (job.not_regular) return fail(errbuf, errlen, path, "%s", "not a regular file");
    if (job.err) return fail(errbuf, errlen, path, "%s", strerror(job.err));
    return 0;
}

/* Creates the directories of path that do not exist (mode 0755 less the
 * umask), each opened without following a symbolic link once made, so that
 * nothing planted in their place is written through. Returns 0 or an errno
 * value. */
static int make_directories(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) return 0;
    char *dir = rt_strndup(path, (size_t)(slash - path));
    if (!dir) return ENOMEM;
    struct stat st;
    int err = 0;
    if (stat(dir, &st) == 0) {                      /* the usual case: it is there */
        err = S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
        rt_free(dir);
        return err;
    }
    int fd = open(dir[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) err = errno;
    for (char *at = dir; !err;) {
        char *end = strchr(at, '/');
        if (end) *end = 0;
        if (*at) {
            int made = mkdirat(fd, at, 0755) == 0;
            if (!made && errno != EEXIST) err = errno;
            /* a directory that was there is the program's own path; one made
             * here is opened without following a link put in its place */
            int next = err ? -1 : openat(fd, at, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (made ? O_NOFOLLOW : 0));
            if (!err && next < 0) err = errno;
            close(fd);
            fd = next;
        }
        if (!end) break;
        at = end + 1;
    }
    if (fd >= 0) close(fd);
    rt_free(dir);
    return err;
}

/* Writes a temporary file beside path, then renames it over path (both in
 * the helper process of run_job). */
static int replace_file(const char *path, const void *frame, size_t len, char *errbuf, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))   /* a device, a directory, a symbolic link */
        return fail(errbuf, errlen, path, "%s", S_ISLNK(st.st_mode) ? strerror(ELOOP) : "not a regular file");
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    size_t tmpcap = strlen(path) + 64;
    char *tmp = rt_malloc(tmpcap);
    if (!tmp) return fail(errbuf, errlen, path, "out of memory");
    static unsigned counter;
    file_job job = { .run = replace_run, .path = path, .tmp = tmp, .frame = frame, .len = len, .err = EEXIST };
    for (int attempt = 0; job.err == EEXIST && attempt < 100; attempt++) {
        snprintf(tmp, tmpcap, "%.*s.%s.tmp.%ld.%u", (int)dirlen, path, path + dirlen, (long)getpid(),
                 __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
        job.err = 0;
        run_job(&job);
    }
    rt_free(tmp);
    if (job.err) return fail(errbuf, errlen, path, "%s", strerror(job.err));
    return 0;
}

int rep_write_file(const rep_builder *b, const char *path, int append, char *errbuf, size_t errlen)
{
    if (b->text.oom) return fail(errbuf, errlen, path, "out of memory");
    size_t len = 0;
    const char *reason = NULL;
    int err = make_directories(path);
    if (err) return fail(errbuf, errlen, path, "%s", err == ENOMEM ? "out of memory" : strerror(err));
    void *frame = compress_frame(b, &len, &reason);
    if (!frame) return fail(errbuf, errlen, path, "%s", reason);
    int rc = append ? append_frame(path, frame, len, errbuf, errlen)
                    : replace_file(path, frame, len, errbuf, errlen);
    rt_free(frame);
    return rc;
}
