/* pego report --lines GRAMMAR: the grammar's source, each line with its share
 * of the self time, its samples and its self time, from the line records
 * (docs/report-format.md, line), like pprof's -list. The source comes from the
 * reports' grammar records; without it, only the lines that took time are
 * listed, by number. */
#include "summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The used grammar named name (or labelled name@HASH8); -1 after a message
 * in err when none or several are. */
static long find_grammar(const rep_summary *s, const char *name, char *err, size_t errlen)
{
    long found = -1;
    for (size_t i = 0; i < s->ngrammars; i++) {
        const rep_sgrammar *g = &s->grammars[i];
        if (!g->used || (strcmp(g->label, name) != 0 && strcmp(g->name, name) != 0)) continue;
        if (found >= 0) {
            snprintf(err, errlen, "--lines %s: several grammars have that name; give NAME@HASH as the tables label them",
                     name);
            return -1;
        }
        found = (long)i;
    }
    if (found < 0) snprintf(err, errlen, "--lines %s: no report has a grammar of that name", name);
    return found;
}

/* The samples and self time of one line of grammar g: every column of it. */
static void line_totals(const rep_summary *s, uint32_t g, uint32_t line, uint64_t *samples, uint64_t *self_ns)
{
    *samples = *self_ns = 0;
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].grammar == g && s->lines[i].line == line) {
            *samples = rep_sum(*samples, s->lines[i].samples);
            *self_ns = rep_sum(*self_ns, s->lines[i].self_ns);
        }
}

static void print_row(FILE *out, uint64_t samples, uint64_t self_ns, uint64_t total, uint32_t line,
                      const char *text, size_t len)
{
    if (samples || self_ns)
        fprintf(out, "%7.1f%% %9" PRIu64 " %11" PRIu64, total ? 100.0 * (double)self_ns / (double)total : 0.0,
                samples, self_ns / 1000);
    else
        fprintf(out, "%8s %9s %11s", ".", ".", ".");
    fprintf(out, " %5" PRIu32 "  %.*s\n", line, (int)len, text);
}

int rep_print_lines(const rep_summary *s, const char *grammar, FILE *out, char *err, size_t errlen)
{
    long gi = find_grammar(s, grammar, err, errlen);
    if (gi < 0) return -1;
    const rep_sgrammar *g = &s->grammars[gi];
    uint64_t total = 0, samples = 0;
    uint32_t last = 0;
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].grammar == (uint32_t)gi) {
            total = rep_sum(total, s->lines[i].self_ns);
            samples = rep_sum(samples, s->lines[i].samples);
            if (s->lines[i].line > last) last = s->lines[i].line;
        }
    fprintf(out, "Grammar %s%s%s%s: %" PRIu64 " us of self time at its lines, %" PRIu64 " samples\n", g->label,
            *g->file ? " (" : "", g->file, *g->file ? ")" : "", total / 1000, samples);
    if (!total && !samples)
        fputs("No line took time: the reports have no line records for it (written before pego had them, or no "
              "sample found the profiled program running).\n", out);
    fprintf(out, "%8s %9s %11s %5s  %s\n", "share", "samples", "self_us", "line", "source");
    if (!g->source) {
        fprintf(out, "(the reports do not carry the source, hash %016" PRIx64 ": only the lines that took time)\n",
                g->hash);
        for (uint32_t line = 1; line <= last && line; line++) {
            uint64_t n, t;
            line_totals(s, (uint32_t)gi, line, &n, &t);
            if (n || t) print_row(out, n, t, total, line, "", 0);
        }
        return 0;
    }
    const char *p = g->source, *end = g->source + g->source_len;
    for (uint32_t line = 1; p < end || line <= last; line++) {
        const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        size_t len = p < end ? (size_t)((nl ? nl : end) - p) : 0;
        if (len && p[len - 1] == '\r') len--;
        uint64_t n, t;
        line_totals(s, (uint32_t)gi, line, &n, &t);
        print_row(out, n, t, total, line, p < end ? p : "", len);
        p = nl ? nl + 1 : end;
    }
    return 0;
}

/* One line of a grammar in a comparison: its share of the grammar's self time
 * at its lines, on each side (-1: the side has no time at that line). */
typedef struct line_share {
    const char *grammar;   /* the grammar's label */
    uint32_t    line;
    double      base, now;
} line_share;

/* Adds the lines of summary s to shares (side 0: base, 1: new); -1 when out of memory. */
static int add_shares(const rep_summary *s, int side, line_share **shares, size_t *n, size_t *cap)
{
    for (size_t gi = 0; gi < s->ngrammars; gi++) {
        uint64_t total = 0;
        for (size_t i = 0; i < s->nlines; i++)
            if (s->lines[i].grammar == gi) total = rep_sum(total, s->lines[i].self_ns);
        if (!s->grammars[gi].used || !total) continue;
        for (size_t i = 0; i < s->nlines; i++) {
            const rep_sline *l = &s->lines[i];
            if (l->grammar != gi || !l->self_ns) continue;
            double share = 100.0 * (double)l->self_ns / (double)total;
            size_t k = 0;
            while (k < *n && (strcmp((*shares)[k].grammar, s->grammars[gi].label) != 0 || (*shares)[k].line != l->line)) k++;
            if (k == *n) {
                if (rep_reserve(shares, cap, *n + 1, sizeof **shares) < 0) return -1;
                (*shares)[(*n)++] = (line_share){ s->grammars[gi].label, l->line, -1, -1 };
            }
            double *v = side ? &(*shares)[k].now : &(*shares)[k].base;
            *v = (*v < 0 ? 0 : *v) + share;
        }
    }
    return 0;
}

static double share_change(const line_share *x)
{
    double d = (x->now < 0 ? 0 : x->now) - (x->base < 0 ? 0 : x->base);
    return d < 0 ? -d : d;
}

static int by_change(const void *a, const void *b)
{
    const line_share *x = a, *y = b;
    double dx = share_change(x), dy = share_change(y);
    if (dx != dy) return dx > dy ? -1 : 1;
    int c = strcmp(x->grammar, y->grammar);
    return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

int rep_print_line_diff(const rep_summary *base, const rep_summary *now, size_t rows, FILE *out)
{
    line_share *shares = NULL;
    size_t n = 0, cap = 0;
    if (add_shares(base, 0, &shares, &n, &cap) < 0 || add_shares(now, 1, &shares, &n, &cap) < 0) {
        free(shares);
        return -1;
    }
    if (n) {
        qsort(shares, n, sizeof *shares, by_change);
        fputs("Lines by change of their share of the grammar's self time (base -> new):\n", out);
        size_t shown = rows && rows < n ? rows : n;
        for (size_t i = 0; i < shown; i++) {
            const line_share *x = &shares[i];
            double b = x->base < 0 ? 0 : x->base, w = x->now < 0 ? 0 : x->now;
            fprintf(out, "- %s:%u: %.1f%% -> %.1f%% (%+.1f points)%s\n", x->grammar, (unsigned)x->line, b, w, w - b,
                    x->base < 0 ? " (appeared)" : x->now < 0 ? " (disappeared)" : "");
        }
        if (n > shown) fprintf(out, "  (%zu more line%s; -n 0 shows all)\n", n - shown, n - shown == 1 ? "" : "s");
    }
    free(shares);
    return 0;
}
