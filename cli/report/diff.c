/* pego report --diff: two summaries compared rule by rule. Counts are exact,
 * so their changes are printed exactly; times vary, so their change is a
 * ratio. Rules are matched by label (grammar:rule, with the grammar's hash only
 * when one side holds several sources of one grammar name), so a grammar whose
 * source changed is still compared, and the output says that it changed; a
 * rule found on one side only is a row too, whose counts on the other are 0.
 * --fail thresholds ('calls>+5%', 'total.calls>+2%') are checked here, on
 * every row and on the totals; the rows over one are marked, and the
 * thresholds exceeded follow the table (and become GitHub workflow commands
 * with --annotate github). A detail-only metric is compared where both sides
 * collected it, and is absent elsewhere; when a side has sampled reports, the
 * samples of each side say how far a ratio of times can be trusted. The
 * compared rules are tables of columns (columns.h). */
#include "summary.h"

#include "columns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THRESHOLD_TEXT 64   /* rep_threshold_text of any threshold fits */

/* A threshold exceeded (or, in notes, exceeded within the sampling error). */
typedef struct failure {
    const char          *label;   /* the rule's label, or "total" */
    const rep_threshold *t;
    uint64_t             base, now;
} failure;

typedef struct diff_row {
    const rep_srule  *base, *now;   /* NULL on the side where the rule is missing; both for the totals */
    const rep_counts *bc, *nc;      /* their counts, or those of a rule never called on that side */
    const failure    *fail;         /* the thresholds the row exceeded, nfail of them */
    size_t            nfail;
    const char       *fails_text;   /* in CSV: the thresholds exceeded, "calls>+5% memo>+30%" */
} diff_row;

/* The counts of a rule, or of one missing on a side (summary.h, missing). */
static const rep_counts *counts_of(const rep_srule *r, const rep_summary *side)
{
    return r ? &r->c : &side->missing;
}

int rep_threshold_parse(const char *text, rep_threshold *t)
{
    static const char total[] = "total.";
    t->total = strncmp(text, total, sizeof total - 1) == 0;
    if (t->total) text += sizeof total - 1;
    const char *gt = strchr(text, '>');
    char name[16];
    if (!gt || (size_t)(gt - text) >= sizeof name) return -1;
    memcpy(name, text, (size_t)(gt - text));
    name[gt - text] = '\0';
    int metric = rep_by_parse(name);
    if (metric < 0 || metric == REP_BY_NAME) return -1;
    const char *p = gt + 1;
    if (*p == '+') p++;
    if (*p < '0' || *p > '9') return -1;
    char *end;
    double pct = strtod(p, &end);
    if (end[0] != '%' || end[1] != '\0' || !isfinite(pct)) return -1;
    t->metric = (rep_by)metric;
    t->percent = pct;
    return 0;
}

void rep_threshold_text(const rep_threshold *t, char *text, size_t len)
{
    snprintf(text, len, "%s%s>+%g%%", t->total ? "total." : "", rep_by_name(t->metric), t->percent);
}

static int by_label(const void *a, const void *b, void *ctx)
{
    const rep_summary *s = ctx;
    return strcmp(s->rules[*(const uint32_t *)a].label, s->rules[*(const uint32_t *)b].label);
}

/* The rules of s that were seen, sorted by label. */
static uint32_t *labelled_rules(const rep_summary *s, size_t *n)
{
    uint32_t *v = malloc((s->nrules ? s->nrules : 1) * sizeof *v);
    if (!v) return NULL;
    *n = 0;
    for (size_t i = 0; i < s->nrules; i++)
        if (s->rules[i].used) v[(*n)++] = (uint32_t)i;
    qsort_r(v, *n, sizeof *v, by_label, (void *)s);
    return v;
}

static const char *row_label_text(const diff_row *r)
{
    return r->now ? r->now->label : r->base ? r->base->label : "total";
}

/* The size of the change of a metric between the sides of a row; 0 when a
 * side did not collect it. */
static uint64_t change_size(const diff_row *r, rep_by by)
{
    uint64_t b = rep_metric(r->bc, by), n = rep_metric(r->nc, by);
    if (b == REP_UNSET || n == REP_UNSET) return 0;
    return n > b ? n - b : b - n;
}

/* Rules by the size of the change of the metric sorted by (calls unless
 * --by), then of calls and of self time, then by label; rules that appear or
 * disappear are changes like the others. */
static int row_order(const void *a, const void *b, void *ctx)
{
    const diff_row *x = a, *y = b;
    rep_by by = *(const rep_by *)ctx;
    const rep_by keys[] = { by, REP_BY_CALLS, REP_BY_SELF };
    for (size_t i = 0; by != REP_BY_NAME && i < sizeof keys / sizeof *keys; i++) {
        uint64_t u = change_size(x, keys[i]), v = change_size(y, keys[i]);
        if (u != v) return u > v ? -1 : 1;
    }
    return strcmp(row_label_text(x), row_label_text(y));
}

/* Pairs the rules of both sides; rules never called on either side are left out. */
static diff_row *make_rows(const rep_summary *base, const rep_summary *now, rep_by by, size_t *nrows)
{
    size_t nb, nn;
    uint32_t *b = labelled_rules(base, &nb);
    uint32_t *n = labelled_rules(now, &nn);
    diff_row *rows = malloc((nb + nn + 1) * sizeof *rows);
    if (!b || !n || !rows) {
        free(b);
        free(n);
        free(rows);
        return NULL;
    }
    size_t i = 0, j = 0, k = 0;
    while (i < nb || j < nn) {
        const rep_srule *x = i < nb ? &base->rules[b[i]] : NULL, *y = j < nn ? &now->rules[n[j]] : NULL;
        int c = !x ? 1 : !y ? -1 : strcmp(x->label, y->label);
        diff_row r = { c <= 0 ? x : NULL, c >= 0 ? y : NULL, NULL, NULL, NULL, 0, NULL };
        r.bc = counts_of(r.base, base);
        r.nc = counts_of(r.now, now);
        if (c <= 0) i++;
        if (c >= 0) j++;
        if ((r.base && r.base->c.calls) || (r.now && r.now->c.calls)) rows[k++] = r;
    }
    free(b);
    free(n);
    qsort_r(rows, k, sizeof *rows, row_order, &by);
    *nrows = k;
    return rows;
}

/* Whether the table shows a row, after shown others: the first limit rows
 * (all when limit is 0), and every row that exceeded a threshold. */
static int row_shown(const diff_row *r, size_t shown, size_t limit)
{
    return !limit || shown < limit || r->nfail;
}

/* ---- thresholds ---- */

static int is_time(rep_by m)
{
    return m == REP_BY_TIME || m == REP_BY_SELF;
}

/* The interval of a summary's sampled times; 0 when its times are exact or its
 * processes sampled at different intervals (then no sampling error is known,
 * and its times count as exact). */
static uint64_t sample_interval(const rep_summary *s)
{
    return s->sample_interval_ns == UINT64_MAX ? 0 : s->sample_interval_ns;
}

/* A sampled time of t rests on about t / interval samples, a count whose
 * spread is its square root. An increase of a sampled time fails only beyond
 * the sampling error of the difference: three standard deviations of the
 * two counts together (identical runs stay below it 997 times in 1000). */
static int beyond_sampling_error(uint64_t interval, uint64_t base, uint64_t now)
{
    if (!interval) return 1;
    double b = (double)base / (double)interval, n = (double)now / (double)interval;
    return n - b > 3.0 * sqrt(b + n);
}

static int exceeds(const rep_diff_options *o, const rep_threshold *t, uint64_t interval, uint64_t base, uint64_t now)
{
    if (now <= base) return 0;
    if (is_time(t->metric) && now - base < o->min_time_ns) return 0;
    if (is_time(t->metric) && !beyond_sampling_error(interval, base, now)) return 0;
    if (base == 0) return 1;
    return (double)(now - base) * 100.0 > t->percent * (double)base;
}

static void describe(const failure *f, char *text, size_t len)
{
    const char *what = f->t->metric == REP_BY_SELF ? "self time" : rep_by_name(f->t->metric);
    int t = is_time(f->t->metric);
    uint64_t b = t ? rep_us(f->base) : f->base, n = t ? rep_us(f->now) : f->now;
    const char *unit = t ? " us" : "";
    if (f->base == 0)
        snprintf(text, len, "%s: %s grew from 0 to %llu%s, over the +%g%% threshold", f->label, what,
                 (unsigned long long)n, unit, f->t->percent);
    else
        snprintf(text, len, "%s: %s grew by %.1f%% (%llu%s -> %llu%s), over the +%g%% threshold", f->label,
                 what, 100.0 * (double)(f->now - f->base) / (double)f->base, (unsigned long long)b, unit,
                 (unsigned long long)n, unit, f->t->percent);
}

/* The counts summed over the rules of a summary: what a total.METRIC
 * threshold compares, and the totals row of CSV; time is the time of the
 * parses, as the rules' times nest. A detail-only count (or the samples) is
 * summed over the rules that have it, and is unset when no report of the side
 * has it; the maxima are unset. */
static rep_counts total_counts(const rep_summary *s)
{
    static const size_t summed[] = {
        offsetof(rep_counts, calls),  offsetof(rep_counts, evals),   offsetof(rep_counts, memo),
        offsetof(rep_counts, matched), offsetof(rep_counts, failed), offsetof(rep_counts, repeats),
        offsetof(rep_counts, consumed), offsetof(rep_counts, wasted), offsetof(rep_counts, self_ns),
        offsetof(rep_counts, samples), offsetof(rep_counts, nodes), offsetof(rep_counts, node_bytes),
        offsetof(rep_counts, memo_entries), offsetof(rep_counts, memo_bytes),
    };
    rep_counts c = s->missing;
    c.max_repeats = c.max_repeats_pos = REP_UNSET;
    for (size_t k = 0; k < sizeof summed / sizeof *summed; k++) {
        uint64_t *sum = (uint64_t *)((char *)&c + summed[k]);
        for (size_t i = 0; *sum != REP_UNSET && i < s->nrules; i++) {
            uint64_t v = s->rules[i].used ? rep_field(&s->rules[i].c, summed[k]) : REP_UNSET;
            if (v != REP_UNSET) *sum = rep_sum(*sum, v);
        }
    }
    c.time_ns = s->time_ns;
    return c;
}

/* The thresholds checked: every one exceeded, in row order then the totals,
 * each row pointing to its own; and in notes the increases of times that
 * passed a threshold but not the sampling error. */
typedef struct checked {
    failure *fail, *notes;
    size_t   nfail, nnotes;
    uint64_t interval;   /* of the sampled times compared; 0: exact */
} checked;

/* Checks t on one pair of values, adding a failure or a note. */
static void check_one(checked *k, const rep_diff_options *o, const rep_threshold *t, uint64_t interval,
                      const char *label, uint64_t b, uint64_t n)
{
    if (b == REP_UNSET || n == REP_UNSET) return;   /* a side without detail */
    failure f = { label, t, b, n };
    if (exceeds(o, t, interval, b, n)) k->fail[k->nfail++] = f;
    else if (interval && is_time(t->metric) && exceeds(o, t, 0, b, n)) k->notes[k->nnotes++] = f;
}

static int check(diff_row *rows, size_t nrows, diff_row *totals, const rep_summary *base, const rep_summary *now,
                 const rep_diff_options *o, checked *k)
{
    /* sampled on either side: the longer interval decides the sampling error */
    uint64_t interval = sample_interval(base) > sample_interval(now) ? sample_interval(base) : sample_interval(now);
    size_t most = (nrows + 1) * o->nfail + 1;
    k->nfail = k->nnotes = 0;
    k->interval = interval;
    k->fail = malloc(most * sizeof *k->fail);
    k->notes = malloc(most * sizeof *k->notes);
    if (!k->fail || !k->notes) return -1;
    for (size_t i = 0; i < nrows; i++) {
        diff_row *r = &rows[i];
        size_t first = k->nfail;
        for (size_t j = 0; j < o->nfail; j++) {
            const rep_threshold *t = &o->fail[j];
            if (!t->total)
                check_one(k, o, t, interval, row_label_text(r), rep_metric(r->bc, t->metric),
                          rep_metric(r->nc, t->metric));
        }
        r->fail = &k->fail[first];
        r->nfail = k->nfail - first;
    }
    size_t first = k->nfail;
    for (size_t j = 0; j < o->nfail; j++) {
        const rep_threshold *t = &o->fail[j];
        /* parse times are exact: read at the start and the end of each parse */
        if (t->total)
            check_one(k, o, t, t->metric == REP_BY_TIME ? 0 : interval, "total", rep_metric(totals->bc, t->metric),
                      rep_metric(totals->nc, t->metric));
    }
    totals->fail = &k->fail[first];
    totals->nfail = k->nfail - first;
    return 0;
}

/* ---- the columns of a compared rule ---- */

/* The count at field on both sides, compared as kind; none when a side did
 * not collect it. */
static rep_cell compared(rep_cell_kind kind, const diff_row *r, size_t field)
{
    uint64_t now = rep_field(r->nc, field), base = rep_field(r->bc, field);
    if (now == REP_UNSET || base == REP_UNSET) return (rep_cell){ .kind = REP_CELL_NONE };
    return (rep_cell){ .kind = kind, .count = now, .base = base };
}

/* A count of one side (none for a detail-only one the side did not collect). */
static rep_cell base_count(const rep_column *c, const rep_table *t, const void *row)
{
    return rep_detail_cell(c, t, ((const diff_row *)row)->bc);
}

static rep_cell new_count(const rep_column *c, const rep_table *t, const void *row)
{
    return rep_detail_cell(c, t, ((const diff_row *)row)->nc);
}

static rep_cell base_us(const rep_column *c, const rep_table *t, const void *row)
{
    (void)t;
    return (rep_cell){ .kind = REP_CELL_COUNT, .count = rep_us(rep_field(((const diff_row *)row)->bc, c->field)) };
}

static rep_cell new_us(const rep_column *c, const rep_table *t, const void *row)
{
    (void)t;
    return (rep_cell){ .kind = REP_CELL_COUNT, .count = rep_us(rep_field(((const diff_row *)row)->nc, c->field)) };
}

static rep_cell changed(const rep_column *c, const rep_table *t, const void *row)
{
    (void)t;
    return compared(REP_CELL_CHANGE, row, c->field);
}

static rep_cell grown(const rep_column *c, const rep_table *t, const void *row)
{
    (void)t;
    return compared(REP_CELL_GROWTH, row, c->field);
}

static rep_cell ratio(const rep_column *c, const rep_table *t, const void *row)
{
    (void)t;
    return compared(REP_CELL_RATIO, row, c->field);
}

static rep_cell row_label(const rep_column *c, const rep_table *t, const void *row)
{
    (void)c;
    (void)t;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = row_label_text(row) };
}

static const char *status_text(const diff_row *r)
{
    return r->base && r->now ? "both" : r->now ? "appeared" : r->base ? "disappeared" : "total";
}

static rep_cell row_status(const rep_column *c, const rep_table *t, const void *row)
{
    (void)c;
    (void)t;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = status_text(row) };
}

static rep_cell row_fails(const rep_column *c, const rep_table *t, const void *row)
{
    (void)c;
    (void)t;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = ((const diff_row *)row)->fails_text };
}

/* The rule, "(appeared)" or "(disappeared)", and the thresholds it exceeded:
 * "json:value [fails calls>+5%, memo>+30%]". */
static void print_rule(FILE *out, int format, const rep_table *t, const void *row)
{
    const diff_row *r = row;
    (void)t;
    rep_put_text(out, format, row_label_text(r));
    if (!r->base || !r->now) fprintf(out, " (%s)", status_text(r));
    for (size_t i = 0; i < r->nfail; i++) {
        char spec[64];
        rep_threshold_text(r->fail[i].t, spec, sizeof spec);
        rep_put_text(out, format, i ? ", " : " [fails ");
        rep_put_text(out, format, spec);
    }
    if (r->nfail) rep_put_text(out, format, "]");
}

/* A column of the count member of rep_counts, read with value. */
#define COMPARED(name, formats, width, value, member) \
    { name, formats, width, 0, value, offsetof(rep_counts, member), NULL }
/* Both sides of member in CSV. */
#define CSV_SIDES(member) \
    COMPARED(#member "_base", REP_IN_CSV, 0, base_count, member), \
    COMPARED(#member "_new", REP_IN_CSV, 0, new_count, member)

/* The variant of the compared rules' table when a side has sampled reports. */
enum { SAMPLED = 1 };

/* A column of the samples of one side, shown when a side is sampled: the
 * samples its self time rests on (none on a side without sampled reports). */
#define SAMPLES_SIDE(name, formats, width, value) \
    { name, formats, width, SAMPLED, value, offsetof(rep_counts, samples), NULL }

/* The text and CSV tables of the compared rules: a row is a diff_row. */
static const rep_column diff_columns[] = {
    { "rule", REP_IN_CSV, 0, 0, row_label, 0, NULL },
    { "status", REP_IN_CSV, 0, 0, row_status, 0, NULL },
    COMPARED("calls_base", REP_IN_TEXT | REP_IN_CSV, 12, base_count, calls),
    COMPARED("calls_new", REP_IN_TEXT | REP_IN_CSV, 11, new_count, calls),
    COMPARED("change", REP_IN_TEXT, 10, changed, calls),
    COMPARED("change%", REP_IN_TEXT, 8, grown, calls),
    COMPARED("evals_chg", REP_IN_TEXT, 10, changed, evals),
    COMPARED("memo_chg", REP_IN_TEXT, 10, changed, memo),
    COMPARED("failed_chg", REP_IN_TEXT, 10, changed, failed),
    COMPARED("self_base_us", REP_IN_TEXT, 13, base_us, self_ns),
    COMPARED("self_new_us", REP_IN_TEXT, 12, new_us, self_ns),
    COMPARED("ratio", REP_IN_TEXT, 7, ratio, self_ns),
    SAMPLES_SIDE("samples_base", REP_IN_TEXT, 13, base_count),
    SAMPLES_SIDE("samples_new", REP_IN_TEXT, 12, new_count),
    { "rule", REP_IN_TEXT, 0, 0, NULL, 0, print_rule },
    CSV_SIDES(evals),
    CSV_SIDES(memo),
    CSV_SIDES(failed),
    CSV_SIDES(wasted),
    CSV_SIDES(time_ns),
    CSV_SIDES(self_ns),
    SAMPLES_SIDE("samples_base", REP_IN_CSV, 0, base_count),
    SAMPLES_SIDE("samples_new", REP_IN_CSV, 0, new_count),
    { "fails", REP_IN_CSV, 0, 0, row_fails, 0, NULL },
};

/* The compared rules' table: with the samples when a side is sampled. */
static rep_table diff_table(const rep_summary *base, const rep_summary *now)
{
    return REP_TABLE(diff_columns, base->sampled_processes || now->sampled_processes ? SAMPLED : 0, 0, NULL);
}

/* The counts JSON gives of each side and of its change; the times change as
 * ratios instead. */
#define JSON_COUNTS(X) X(calls) X(evals) X(memo) X(matched) X(failed) X(repeats) X(consumed) X(wasted) \
    X(nodes) X(node_bytes) X(memo_entries) X(memo_bytes)
#define CHANGE_COLUMN(member) COMPARED(#member, REP_IN_JSON, 0, changed, member),
#define SIDE_COLUMN(member)   REP_DETAIL(#member, REP_IN_JSON, 0, rep_counts, member),

/* The JSON object of a compared rule's change: a row is a diff_row. */
static const rep_column change_columns[] = { JSON_COUNTS(CHANGE_COLUMN) };

/* The JSON object of one side's counts (a detail-only one, or the samples,
 * absent when not collected): a row is a rep_counts. */
static const rep_column side_columns[] = {
    JSON_COUNTS(SIDE_COLUMN) SIDE_COLUMN(time_ns) SIDE_COLUMN(self_ns) SIDE_COLUMN(samples)
};

/* ---- output ---- */

static void text_side(FILE *out, const char *name, const rep_summary *s)
{
    fprintf(out, "%s %llu process%s, %llu parse%s, %llu calls", name, (unsigned long long)s->processes,
            s->processes == 1 ? "" : "es", (unsigned long long)s->parses, s->parses == 1 ? "" : "s",
            (unsigned long long)s->calls);
}

/* Grammars of one name, one source on each side, whose sources differ. */
static void changed_grammars(const rep_summary *base, const rep_summary *now, FILE *out, json_t *arr)
{
    for (size_t i = 0; i < base->ngrammars; i++) {
        const rep_sgrammar *g = &base->grammars[i];
        if (!g->used || strchr(g->label, '@')) continue;
        for (size_t j = 0; j < now->ngrammars; j++) {
            const rep_sgrammar *h = &now->grammars[j];
            if (!h->used || strcmp(h->label, g->label) != 0 || h->hash == g->hash) continue;
            char a[17], b[17];
            snprintf(a, sizeof a, "%016llx", (unsigned long long)g->hash);
            snprintf(b, sizeof b, "%016llx", (unsigned long long)h->hash);
            if (out) fprintf(out, "Note: grammar %s changed between base and new (source hash %s -> %s).\n", g->name, a, b);
            if (arr) json_array_append_new(arr, json_pack("{s:s, s:s, s:s}", "grammar", g->name, "base", a, "new", b));
        }
    }
}

/* The text or Markdown output: the sides, the table, the lines, the notes, and
 * the failures after them, on the same stream; 0, or -1 when out of memory. */
static int text_diff(const rep_summary *base, const rep_summary *now, const rep_diff_options *o,
                      const diff_row *rows, size_t nrows, const checked *k, FILE *out)
{
    char a[REP_MEASURED_MAX], b[REP_MEASURED_MAX];
    fputs("Pego profile diff: ", out);
    text_side(out, "base", base);
    fputs("; ", out);
    text_side(out, "new", now);
    fputc('\n', out);
    rep_measured_text(base, a, sizeof a);
    rep_measured_text(now, b, sizeof b);
    if (strcmp(a, b) == 0 && *a) fprintf(out, "Measured: %s\n", a);
    if (strcmp(a, b) != 0 && *a) fprintf(out, "Base measured: %s\n", a);
    if (strcmp(a, b) != 0 && *b) fprintf(out, "New measured: %s\n", b);
    changed_grammars(base, now, out, NULL);
    fputs("Rules compared (base -> new):\n", out);
    rep_table table = diff_table(base, now);
    rep_text_heading(&table, o->format, out);
    size_t shown = 0;
    for (size_t i = 0; i < nrows; i++)
        if (row_shown(&rows[i], shown, o->rows)) {
            shown++;
            rep_text_row(&table, &rows[i], o->format, out);
        }
    rep_text_end(o->format, out);
    if (nrows == 0) fputs("  (none)\n", out);
    if (nrows > shown) fprintf(out, "  (%zu more rule%s; -n 0 shows all)\n", nrows - shown, nrows - shown == 1 ? "" : "s");
    int rc = rep_print_line_diff(base, now, o->rows, out);
    for (size_t i = 0; i < k->nnotes; i++) {
        const failure *f = &k->notes[i];
        fputs("Within the sampling error: ", out);
        rep_put_text(out, o->format, f->label);
        fprintf(out, ": %s %llu us -> %llu us (about %.0f -> %.0f samples)\n",
                f->t->metric == REP_BY_SELF ? "self time" : "time", (unsigned long long)rep_us(f->base),
                (unsigned long long)rep_us(f->now), (double)f->base / (double)k->interval,
                (double)f->now / (double)k->interval);
    }
    if (k->nfail) fputs("Thresholds exceeded:\n", out);
    for (size_t i = 0; i < k->nfail; i++) {
        char text[1024];
        describe(&k->fail[i], text, sizeof text);
        fputs("- ", out);
        rep_put_text(out, o->format, text);
        fputc('\n', out);
    }
    return rc;
}

static json_t *json_counts(const rep_counts *c)
{
    rep_table table = REP_TABLE(side_columns, 0, 0, NULL);
    return rep_json_row(&table, c);
}

static json_t *json_side(const rep_summary *s)
{
    return json_pack("{s:I, s:I, s:I, s:o}", "processes", (json_int_t)s->processes, "parses", (json_int_t)s->parses,
                     "calls", (json_int_t)s->calls, "measured", rep_measured_json(s));
}

static int print_json(const rep_summary *base, const rep_summary *now, const rep_diff_options *o,
                      const diff_row *rows, size_t nrows, const checked *k, FILE *out)
{
    json_t *doc = json_object(), *changed = json_array(), *list = json_array(), *appeared = json_array();
    json_t *gone = json_array(), *fails = json_array();
    json_object_set_new(doc, "base", json_side(base));
    json_object_set_new(doc, "new", json_side(now));
    changed_grammars(base, now, NULL, changed);
    json_object_set_new(doc, "grammars_changed", changed);
    rep_table changes = REP_TABLE(change_columns, 0, 0, NULL);
    size_t shown = 0;
    for (size_t i = 0; i < nrows; i++) {
        const diff_row *r = &rows[i];
        if (!r->base || !r->now) {
            const rep_srule *x = r->base ? r->base : r->now;
            json_array_append_new(r->base ? gone : appeared,
                                  json_pack("{s:s, s:o}", "rule", x->label, "counts", json_counts(&x->c)));
            continue;
        }
        if (o->rows && shown == o->rows) continue;
        shown++;
        rep_cell time_ratio = compared(REP_CELL_RATIO, r, offsetof(rep_counts, time_ns));
        rep_cell self_ratio = compared(REP_CELL_RATIO, r, offsetof(rep_counts, self_ns));
        json_array_append_new(list, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "rule", r->now->label,
                                              "base", json_counts(&r->base->c), "new", json_counts(&r->now->c),
                                              "change", rep_json_row(&changes, r),
                                              "time_ratio", rep_cell_json(&time_ratio),
                                              "self_ratio", rep_cell_json(&self_ratio)));
    }
    json_object_set_new(doc, "rules", list);
    json_object_set_new(doc, "appeared", appeared);
    json_object_set_new(doc, "disappeared", gone);
    for (size_t i = 0; i < k->nfail; i++) {
        const failure *f = &k->fail[i];
        char text[64];
        rep_threshold_text(f->t, text, sizeof text);
        json_array_append_new(fails, json_pack("{s:o, s:s, s:I, s:I}", "rule",
                                               f->t->total ? json_null() : json_string(f->label), "threshold",
                                               text, "base", (json_int_t)f->base, "new", (json_int_t)f->now));
    }
    json_object_set_new(doc, "failures", fails);
    int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    json_decref(doc);
    return rc;
}

/* A CSV row, with the thresholds it exceeded separated by spaces. */
static void csv_row(const rep_table *table, const diff_row *row, FILE *out)
{
    char fails[MAX_THRESHOLD_TEXT * 100] = "";   /* pego report takes at most 100 --fail */
    diff_row r = *row;
    for (size_t i = 0, at = 0; i < r.nfail && at + MAX_THRESHOLD_TEXT < sizeof fails; i++) {
        if (i) fails[at++] = ' ';
        rep_threshold_text(r.fail[i].t, fails + at, MAX_THRESHOLD_TEXT);
        at += strlen(fails + at);
    }
    r.fails_text = r.nfail ? fails : NULL;
    rep_csv_row(table, &r, out);
}

/* The rows shown, then the totals. */
static void csv_diff(const rep_summary *base, const rep_summary *now, const diff_row *rows, size_t nrows,
                     const diff_row *totals, size_t limit, FILE *out)
{
    rep_table table = diff_table(base, now);
    rep_csv_heading(&table, out);
    size_t shown = 0;
    for (size_t i = 0; i < nrows; i++)
        if (row_shown(&rows[i], shown, limit)) {
            shown++;
            csv_row(&table, &rows[i], out);
        }
    csv_row(&table, totals, out);
}

/* A GitHub workflow command's message or property, escaped as the runner
 * reads it: % CR LF, and in a property also : and ,. */
static void github_escaped(FILE *out, const char *text, int property)
{
    for (; *text; text++) {
        if (*text == '%') fputs("%25", out);
        else if (*text == '\r') fputs("%0D", out);
        else if (*text == '\n') fputs("%0A", out);
        else if (property && *text == ':') fputs("%3A", out);
        else if (property && *text == ',') fputs("%2C", out);
        else fputc(*text, out);
    }
}

/* One "::error title=...::message" line per threshold exceeded. */
static void github_annotations(const checked *k, FILE *out)
{
    for (size_t i = 0; i < k->nfail; i++) {
        char spec[64], title[96], text[1024];
        rep_threshold_text(k->fail[i].t, spec, sizeof spec);
        snprintf(title, sizeof title, "pego report --fail %s", spec);
        describe(&k->fail[i], text, sizeof text);
        fputs("::error title=", out);
        github_escaped(out, title, 1);
        fputs("::", out);
        github_escaped(out, text, 0);
        fputc('\n', out);
    }
}

long rep_print_diff(const rep_summary *base, const rep_summary *now, const rep_diff_options *o, FILE *out,
                    void (*report)(void *ud, const char *text), void *ud)
{
    size_t nrows;
    checked k = { 0 };
    diff_row *rows = make_rows(base, now, o->by, &nrows);
    rep_counts base_totals = total_counts(base), new_totals = total_counts(now);
    diff_row totals = { NULL, NULL, &base_totals, &new_totals, NULL, 0, NULL };
    long rc = rows && check(rows, nrows, &totals, base, now, o, &k) == 0 ? 0 : -1;
    if (rc == 0 && o->format == REP_FORMAT_JSON) {
        if (print_json(base, now, o, rows, nrows, &k, out) < 0) rc = -1;
    } else if (rc == 0 && o->format == REP_FORMAT_CSV) {
        csv_diff(base, now, rows, nrows, &totals, o->rows, out);
    } else if (rc == 0) {
        if (text_diff(base, now, o, rows, nrows, &k, out) < 0) rc = -1;
    }
    if (rc == 0 && o->annotate_github) github_annotations(&k, out);
    for (size_t i = 0; i < k.nfail && rc >= 0; i++) {
        size_t gate = (size_t)(k.fail[i].t - o->fail) + 1;
        if (rc == 0 || gate < (size_t)rc) rc = (long)gate;
        if (o->format == REP_FORMAT_JSON || o->format == REP_FORMAT_CSV) {
            char text[1024];
            describe(&k.fail[i], text, sizeof text);
            report(ud, text);
        }
    }
    free(k.fail);
    free(k.notes);
    free(rows);
    return rc;
}
