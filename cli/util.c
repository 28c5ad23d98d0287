/* Helpers shared by the subcommands: file reading, checked writes to standard
 * output, messages, grammar loading. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Regular files are measured before reading, so that one over the limit costs
 * nothing; other inputs (pipes, devices) are read until they pass it, into a
 * buffer that never grows past limit + 1 bytes. */
const char *cli_read_file(const char *path, size_t limit, char **data, size_t *len)
{
    static const char too_large[] = "input too large";
    FILE *f = (!path || strcmp(path, "-") == 0) ? stdin : fopen(path, "rb");
    if (!f) return strerror(errno);
    const char *why = NULL;
    struct stat st;
    off_t at = ftello(f);   /* standard input may have been read from already */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        (uintmax_t)st.st_size > (uintmax_t)limit + (uintmax_t)(at > 0 ? at : 0))
        why = too_large;
    size_t cap = limit < 65536 ? limit + 1 : 65536, n = 0;
    char *buf = why ? NULL : malloc(cap);
    if (!why && !buf) why = strerror(ENOMEM);
    while (!why) {
        if (n > limit) {
            why = too_large;
            break;
        }
        if (n == cap) {
            size_t grown = cap <= limit / 2 ? cap * 2 : limit + 1;
            char *b = realloc(buf, grown);
            if (!b) { why = strerror(ENOMEM); break; }
            buf = b;
            cap = grown;
        }
        errno = 0;
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) why = strerror(errno ? errno : EIO);
            break;
        }
    }
    if (f != stdin) fclose(f);
    if (why) { free(buf); return why; }
    *data = buf;
    *len = n;
    return NULL;
}

/* The first error writing standard output (an errno value), kept for
 * cli_exit_status. */
static int stdout_error;

int cli_write(const char *data, size_t len, void *unused)
{
    (void)unused;
    if (stdout_error) return stdout_error;
    errno = 0;
    if (fwrite(data, 1, len, stdout) != len) stdout_error = errno ? errno : EIO;
    return stdout_error;
}

int cli_print(const char *s) { return cli_write(s, strlen(s), NULL); }

int cli_flush(void)
{
    errno = 0;
    if (!stdout_error && fflush(stdout) != 0) stdout_error = errno ? errno : EIO;
    return stdout_error;
}

int cli_exit_status(int status)
{
    cli_flush();
    if (!stdout_error && !ferror(stdout)) return status;
    if (stdout_error) cli_error("write error: %s", strerror(stdout_error));
    else cli_error("write error");   /* a write failed inside stdio, which kept no reason */
    return EXIT_ERRORS;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("pego: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

pego_grammar *cli_load_grammar(const char *path)
{
    pego_diag *diag = NULL;
    pego_grammar *g = pego_compile_file(path, &diag);
    if (!g) {
        cli_error("%s", diag ? pego_diag_text(diag) : "out of memory");
        pego_diag_free(diag);
    }
    return g;
}
