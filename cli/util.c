/* Helpers shared by the subcommands: file reading, messages, grammar loading. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_read_file(const char *path, char **data, size_t *len)
{
    FILE *f = (!path || strcmp(path, "-") == 0) ? stdin : fopen(path, "rb");
    if (!f) return errno;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    int err = 0;
    if (!buf) err = ENOMEM;
    while (!err) {
        if (n == cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) { err = ENOMEM; break; }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) err = errno ? errno : EIO;
            break;
        }
    }
    if (f != stdin) fclose(f);
    if (err) { free(buf); return err; }
    *data = buf;
    *len = n;
    return 0;
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
