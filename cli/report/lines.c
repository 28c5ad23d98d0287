/* pego report --lines GRAMMAR: the grammar's source, each line with its share
 * of the self time, its samples and its self time, from the line records
 * (docs/report-format.md, line), like pprof's -list. The source comes from the
 * reports' grammar records; without it, only the lines that took time are
 * listed, by number. */
#include "summary.h"

#include <inttypes.h>
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
