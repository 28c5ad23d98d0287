/* pego report --diff: two summaries compared rule by rule. Counts are exact,
 * so their changes are printed exactly; times vary, so their change is a
 * ratio. Rules are matched by label (grammar:rule, with the grammar's hash only
 * when one side holds several sources of one grammar name), so a grammar whose
 * source changed is still compared, and the output says that it changed.
 * --fail thresholds ('calls>+5%') are checked here. A detail-only metric is
 * compared where both sides collected it, and is absent elsewhere. The
 * compared rules are tables of columns (columns.h). */
#include "summary.h"

#include "columns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct diff_row {
    const rep_srule  *base, *now;   /* NULL on the side where the rule is missing */
    const rep_counts *bc, *nc;      /* their counts, or those of a rule never called on that side */
} diff_row;

/* The counts of a rule missing on a side: all 0, or, when no report of the
 * side has the detail-only metrics, without them. */
static const rep_counts zero_counts;
static const rep_counts unset_counts = { .repeats = REP_UNSET, .max_repeats = REP_UNSET,
                                         .max_repeats_pos = REP_UNSET, .wasted = REP_UNSET };

static const rep_counts *counts_of(const rep_srule *r, const rep_summary *side)
{
    return r ? &r->c : side->detail_processes ? &zero_counts : &unset_counts;
}

static const char *const metric_names[] = {
    [REP_BY_SELF] = "self", [REP_BY_TIME] = "time", [REP_BY_CALLS] = "calls", [REP_BY_EVALS] = "evals",
    [REP_BY_MEMO] = "memo", [REP_BY_FAILED] = "failed", [REP_BY_WASTED] = "wasted",
};

int rep_threshold_parse(const char *text, rep_threshold *t)
{
    const char *gt = strchr(text, '>');
    if (!gt) return -1;
    int metric = -1;
    for (size_t i = 0; i < sizeof metric_names / sizeof *metric_names; i++)
        if (metric_names[i] && strlen(metric_names[i]) == (size_t)(gt - text) &&
            strncmp(text, metric_names[i], (size_t)(gt - text)) == 0)
            metric = (int)i;
    if (metric < 0) return -1;
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

static int64_t change(uint64_t a, uint64_t b)
{
    return (int64_t)(b - a);
}

static uint64_t magnitude(int64_t d)
{
    return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
}

/* Common rules first by the size of their change of calls, then of self time. */
static int row_order(const void *a, const void *b)
{
    const diff_row *x = a, *y = b;
    int xa = x->base && x->now, ya = y->base && y->now;
    if (xa != ya) return ya - xa;
    if (xa) {
        uint64_t u = magnitude(change(x->base->c.calls, x->now->c.calls));
        uint64_t v = magnitude(change(y->base->c.calls, y->now->c.calls));
        if (u != v) return u > v ? -1 : 1;
        u = magnitude(change(x->base->c.self_ns, x->now->c.self_ns));
        v = magnitude(change(y->base->c.self_ns, y->now->c.self_ns));
        if (u != v) return u > v ? -1 : 1;
    }
    const rep_srule *rx = x->base ? x->base : x->now, *ry = y->base ? y->base : y->now;
    return strcmp(rx->label, ry->label);
}

/* Pairs the rules of both sides; rules never called on either side are left out. */
static diff_row *make_rows(const rep_summary *base, const rep_summary *now, size_t *nrows)
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
        diff_row r = { c <= 0 ? x : NULL, c >= 0 ? y : NULL, NULL, NULL };
        r.bc = counts_of(r.base, base);
        r.nc = counts_of(r.now, now);
        if (c <= 0) i++;
        if (c >= 0) j++;
        if ((r.base && r.base->c.calls) || (r.now && r.now->c.calls)) rows[k++] = r;
    }
    free(b);
    free(n);
    qsort(rows, k, sizeof *rows, row_order);
    *nrows = k;
    return rows;
}

/* ---- thresholds ---- */

typedef struct failure {
    const rep_srule     *rule;
    const rep_threshold *t;
    uint64_t             base, now;
} failure;

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
    const char *what = f->t->metric == REP_BY_SELF ? "self time" : metric_names[f->t->metric];
    int t = is_time(f->t->metric);
    uint64_t b = t ? rep_us(f->base) : f->base, n = t ? rep_us(f->now) : f->now;
    const char *unit = t ? " us" : "";
    if (f->base == 0)
        snprintf(text, len, "%s: %s grew from 0 to %llu%s, over the +%g%% threshold", f->rule->label, what,
                 (unsigned long long)n, unit, f->t->percent);
    else
        snprintf(text, len, "%s: %s grew by %.1f%% (%llu%s -> %llu%s), over the +%g%% threshold", f->rule->label,
                 what, 100.0 * (double)(f->now - f->base) / (double)f->base, (unsigned long long)b, unit,
                 (unsigned long long)n, unit, f->t->percent);
}

/* Every (rule, threshold) exceeded, in row order. */
static failure *check(const rep_summary *base, const rep_summary *now, const diff_row *rows, size_t nrows,
                      const rep_diff_options *o, size_t *nf)
{
    /* sampled on either side: the longer interval decides the sampling error */
    uint64_t interval = sample_interval(base) > sample_interval(now) ? sample_interval(base) : sample_interval(now);
    failure *v = malloc((nrows * o->nfail + 1) * sizeof *v);
    if (!v) return NULL;
    *nf = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (!rows[i].base || !rows[i].now) continue;
        for (size_t j = 0; j < o->nfail; j++) {
            const rep_threshold *t = &o->fail[j];
            uint64_t b = rep_metric(&rows[i].base->c, t->metric), n = rep_metric(&rows[i].now->c, t->metric);
            if (b == REP_UNSET || n == REP_UNSET) continue;   /* a side without detail */
            if (exceeds(o, t, interval, b, n)) v[(*nf)++] = (failure){ rows[i].now, t, b, n };
        }
    }
    return v;
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
    const diff_row *r = row;
    (void)c;
    (void)t;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = (r->now ? r->now : r->base)->label };
}

static rep_cell row_status(const rep_column *c, const rep_table *t, const void *row)
{
    const diff_row *r = row;
    (void)c;
    (void)t;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = r->base && r->now ? "both" : r->now ? "appeared" : "disappeared" };
}

/* A column of the count member of rep_counts, read with value. */
#define COMPARED(name, formats, width, value, member) \
    { name, formats, width, 0, value, offsetof(rep_counts, member), NULL }
/* Both sides of member in CSV. */
#define CSV_SIDES(member) \
    COMPARED(#member "_base", REP_IN_CSV, 0, base_count, member), \
    COMPARED(#member "_new", REP_IN_CSV, 0, new_count, member)

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
    { "rule", REP_IN_TEXT, 0, 0, row_label, 0, NULL },
    CSV_SIDES(evals),
    CSV_SIDES(memo),
    CSV_SIDES(failed),
    CSV_SIDES(wasted),
    CSV_SIDES(time_ns),
    CSV_SIDES(self_ns),
};

/* The counts JSON gives of each side and of its change; the times change as
 * ratios instead. */
#define JSON_COUNTS(X) X(calls) X(evals) X(memo) X(matched) X(failed) X(repeats) X(consumed) X(wasted)
#define CHANGE_COLUMN(member) COMPARED(#member, REP_IN_JSON, 0, changed, member),
#define SIDE_COLUMN(member)   REP_DETAIL(#member, REP_IN_JSON, 0, rep_counts, member),

/* The JSON object of a compared rule's change: a row is a diff_row. */
static const rep_column change_columns[] = { JSON_COUNTS(CHANGE_COLUMN) };

/* The JSON object of one side's counts (a detail-only one absent when not
 * collected): a row is a rep_counts. */
static const rep_column side_columns[] = { JSON_COUNTS(SIDE_COLUMN) SIDE_COLUMN(time_ns) SIDE_COLUMN(self_ns) };

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

static void text_only(FILE *out, const char *title, const diff_row *rows, size_t n, int base_side)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) count += base_side ? !rows[i].now : !rows[i].base;
    if (!count) return;
    fprintf(out, "%s:\n", title);
    for (size_t i = 0; i < n; i++) {
        const rep_srule *r = base_side ? rows[i].base : rows[i].now;
        if ((base_side ? rows[i].now : rows[i].base) || !r) continue;
        fprintf(out, "  %s: %llu calls, %llu us self\n", r->label, (unsigned long long)r->c.calls,
                (unsigned long long)rep_us(r->c.self_ns));
    }
}

static void text_diff(const rep_summary *base, const rep_summary *now, const rep_diff_options *o,
                      const diff_row *rows, size_t nrows, FILE *out)
{
    char a[512], b[512];
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
    rep_table table = REP_TABLE(diff_columns, 0, 0, NULL);
    rep_text_heading(&table, out);
    size_t shown = 0, common = 0;
    for (size_t i = 0; i < nrows; i++) {
        const diff_row *r = &rows[i];
        if (!r->base || !r->now) continue;
        common++;
        if (o->rows && shown == o->rows) continue;
        shown++;
        rep_text_row(&table, r, out);
    }
    if (common == 0) fputs("  (none)\n", out);
    if (common > shown) fprintf(out, "  (%zu more rule%s; -n 0 shows all)\n", common - shown, common - shown == 1 ? "" : "s");
    text_only(out, "Rules only in new", rows, nrows, 0);
    text_only(out, "Rules only in base", rows, nrows, 1);
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
                      const diff_row *rows, size_t nrows, const failure *f, size_t nf, FILE *out)
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
    for (size_t i = 0; i < nf; i++) {
        char text[32];
        snprintf(text, sizeof text, "%s>+%g%%", metric_names[f[i].t->metric], f[i].t->percent);
        json_array_append_new(fails, json_pack("{s:s, s:s, s:I, s:I}", "rule", f[i].rule->label, "threshold", text,
                                               "base", (json_int_t)f[i].base, "new", (json_int_t)f[i].now));
    }
    json_object_set_new(doc, "failures", fails);
    int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    json_decref(doc);
    return rc;
}

static void csv_diff(const diff_row *rows, size_t nrows, size_t limit, FILE *out)
{
    rep_table table = REP_TABLE(diff_columns, 0, 0, NULL);
    rep_csv_heading(&table, out);
    size_t shown = 0;
    for (size_t i = 0; i < nrows; i++) {
        const diff_row *r = &rows[i];
        if (r->base && r->now && limit && shown++ >= limit) continue;
        rep_csv_row(&table, r, out);
    }
}

/* The time thresholds that an increase passed, though not its sampling error:
 * said, so that a gate that holds is not taken for one that cannot fire. */
static void sampling_notes(const rep_summary *base, const rep_summary *now, const diff_row *rows, size_t nrows,
                           const rep_diff_options *o, FILE *out)
{
    uint64_t interval = sample_interval(base) > sample_interval(now) ? sample_interval(base) : sample_interval(now);
    if (!interval) return;
    for (size_t i = 0; i < nrows; i++) {
        if (!rows[i].base || !rows[i].now) continue;
        for (size_t j = 0; j < o->nfail; j++) {
            const rep_threshold *t = &o->fail[j];
            if (!is_time(t->metric)) continue;
            uint64_t b = rep_metric(&rows[i].base->c, t->metric), n = rep_metric(&rows[i].now->c, t->metric);
            if (exceeds(o, t, 0, b, n) && !exceeds(o, t, interval, b, n))
                fprintf(out, "Within the sampling error: %s: %s %llu us -> %llu us (about %.0f -> %.0f samples)\n",
                        rows[i].now->label, t->metric == REP_BY_SELF ? "self time" : "time",
                        (unsigned long long)rep_us(b), (unsigned long long)rep_us(n),
                        (double)b / (double)interval, (double)n / (double)interval);
        }
    }
}

long rep_print_diff(const rep_summary *base, const rep_summary *now, const rep_diff_options *o, FILE *out,
                    void (*report)(void *ud, const char *text), void *ud)
{
    size_t nrows, nf = 0;
    diff_row *rows = make_rows(base, now, &nrows);
    if (!rows) return -1;
    failure *f = check(base, now, rows, nrows, o, &nf);
    if (!f) {
        free(rows);
        return -1;
    }
    long rc = (long)nf;
    if (o->format == REP_FORMAT_JSON) {
        if (print_json(base, now, o, rows, nrows, f, nf, out) < 0) rc = -1;
    } else if (o->format == REP_FORMAT_CSV) {
        csv_diff(rows, nrows, o->rows, out);
    } else {
        text_diff(base, now, o, rows, nrows, out);
        sampling_notes(base, now, rows, nrows, o, out);
    }
    for (size_t i = 0; i < nf && rc >= 0; i++) {
        char text[1024];
        describe(&f[i], text, sizeof text);
        report(ud, text);
    }
    free(f);
    free(rows);
    return rc;
}
