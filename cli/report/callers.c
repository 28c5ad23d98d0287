/* pego report --callers: from the caller records of --profile-native
 * (docs/report-format.md, caller), the host program's functions ranked by the
 * time of the parses they made (a function counts each parse whose stack holds
 * it once), then each stack's innermost frame: the call site of pego. */
#include "columns.h"
#include "summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char    *name;        /* "function (object)", or the frame itself for a call site */
    uint64_t parses, time_ns;
} caller_row;

typedef struct {
    caller_row *v;
    size_t      n, cap;
} caller_rows;

/* Adds parses and time to the row of name (a copy of len bytes). Returns 0, or -1 when out of memory. */
static int add_row(caller_rows *rows, const char *name, size_t len, uint64_t parses, uint64_t time_ns)
{
    for (size_t i = 0; i < rows->n; i++)
        if (strlen(rows->v[i].name) == len && memcmp(rows->v[i].name, name, len) == 0) {
            rows->v[i].parses = rep_sum(rows->v[i].parses, parses);
            rows->v[i].time_ns = rep_sum(rows->v[i].time_ns, time_ns);
            return 0;
        }
    char *copy = strndup(name, len);
    if (!copy || rep_reserve(&rows->v, &rows->cap, rows->n + 1, sizeof *rows->v) < 0) {
        free(copy);
        return -1;
    }
    rows->v[rows->n++] = (caller_row){ copy, parses, time_ns };
    return 0;
}

static void rows_free(caller_rows *rows)
{
    for (size_t i = 0; i < rows->n; i++) free(rows->v[i].name);
    free(rows->v);
}

static int by_time(const void *a, const void *b)
{
    const caller_row *x = a, *y = b;
    if (x->time_ns != y->time_ns) return x->time_ns < y->time_ns ? 1 : -1;
    if (x->parses != y->parses) return x->parses < y->parses ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The function of frame (len bytes of a stack): the frame without its
 * "+0xOFFSET", "load (prog+0x11a9)" giving "load (prog)". NULL when out of memory. */
static char *function_of(const char *frame, size_t len)
{
    const char *open = NULL;
    for (const char *p = frame; p + 1 < frame + len; p++)
        if (p[0] == ' ' && p[1] == '(') open = p;
    const char *plus = open ? memchr(open, '+', (size_t)(frame + len - open)) : NULL;
    char *name = malloc(len + 1);
    if (!name) return NULL;
    size_t n = plus ? (size_t)(plus - frame) : len;
    memcpy(name, frame, n);
    if (plus) name[n++] = ')';
    name[n] = 0;
    return name;
}

/* The functions of one stack, each once, into rows. */
static int add_functions(caller_rows *rows, const rep_scaller *c)
{
    caller_rows seen = { 0 };
    int status = 0;
    for (const char *f = c->frames; *f && !status;) {
        size_t len = strcspn(f, "\n");
        char *name = function_of(f, len);
        size_t before = seen.n;
        status = name ? add_row(&seen, name, strlen(name), 0, 0) : -1;
        if (!status && seen.n > before) status = add_row(rows, name, strlen(name), c->parses, c->time_ns);
        free(name);
        f += len + (f[len] == '\n');
    }
    rows_free(&seen);
    return status;
}

static void print_rows(FILE *out, const char *heading, caller_rows *rows, uint64_t total)
{
    qsort(rows->v, rows->n, sizeof *rows->v, by_time);
    fprintf(out, "%10s %12s %7s  %s\n", "parses", "time_us", "share", heading);
    for (size_t i = 0; i < rows->n; i++) {
        const caller_row *r = &rows->v[i];
        fprintf(out, "%10" PRIu64 " %12" PRIu64 " %6.1f%%  %s\n", r->parses, rep_us(r->time_ns),
                rep_percent(r->time_ns, total), r->name);
    }
}

int rep_print_callers(const rep_summary *s, FILE *out, char *err, size_t errlen)
{
    if (!s->ncallers) {
        snprintf(err, errlen, "--callers: no report has caller records (write them with --profile-native)");
        return -1;
    }
    caller_rows functions = { 0 }, sites = { 0 };
    uint64_t total = 0;
    int status = 0;
    for (size_t i = 0; i < s->ncallers && !status; i++) {
        const rep_scaller *c = &s->callers[i];
        total = rep_sum(total, c->time_ns);
        status = add_functions(&functions, c);
        if (!status) status = add_row(&sites, c->frames, strcspn(c->frames, "\n"), c->parses, c->time_ns);
    }
    if (status) {
        snprintf(err, errlen, "out of memory");
    } else {
        print_rows(out, "function (by the time of the parses it made)", &functions, total);
        fputc('\n', out);
        print_rows(out, "call site (the innermost frame of each stack)", &sites, total);
    }
    rows_free(&functions);
    rows_free(&sites);
    return status;
}
