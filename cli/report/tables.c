/* The tables of pego report (docs/debugging.md, Reading reports): the first line, rules by a
 * metric, the slowest parses, a rule's callers and callees, and the hints of
 * docs/debugging.md computed from the merged counts; as text, JSON or CSV.
 * Each table is one list of columns (columns.h). */
#include "summary.h"

#include "columns.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const by_names[] = {
    "self", "time", "calls", "evals", "memo", "failed", "repeats", "consumed", "wasted", "node-bytes", "memo-bytes",
    "name",
};
static const char *const by_titles[] = {
    "self time", "time", "calls", "evaluations", "memo hits", "failed calls", "repeats",
    "input consumed", "input wasted", "bytes of tree nodes built", "bytes of memo entries stored", "name",
};
static const char *const unit_names[] = { "bytes", "codepoints" };
static const char *const result_names[] = { "ok", "syntax error", "aborted", "nesting limit" };

#define HINTS_PER_KIND 5

int rep_by_parse(const char *name)
{
    for (size_t i = 0; i < sizeof by_names / sizeof *by_names; i++)
        if (strcmp(name, by_names[i]) == 0) return (int)i;
    return -1;
}

const char *rep_by_name(rep_by by)
{
    return by_names[by];
}

int rep_by_detail(rep_by by)
{
    return by == REP_BY_REPEATS || by == REP_BY_WASTED;
}

int rep_by_memory(rep_by by)
{
    return by == REP_BY_NODE_BYTES || by == REP_BY_MEMO_BYTES;
}

uint64_t rep_metric(const rep_counts *c, rep_by by)
{
    switch (by) {
    case REP_BY_SELF:     return c->self_ns;
    case REP_BY_TIME:     return c->time_ns;
    case REP_BY_CALLS:    return c->calls;
    case REP_BY_EVALS:    return c->evals;
    case REP_BY_MEMO:     return c->memo;
    case REP_BY_FAILED:   return c->failed;
    case REP_BY_REPEATS:  return c->repeats;
    case REP_BY_CONSUMED: return c->consumed;
    case REP_BY_WASTED:   return c->wasted;
    case REP_BY_NODE_BYTES: return c->node_bytes;
    case REP_BY_MEMO_BYTES: return c->memo_bytes;
    case REP_BY_NAME:     return 0;
    }
    return 0;
}

/* ---- sorting ---- */

typedef struct rule_sort {
    const rep_summary *s;
    rep_by             by;
} rule_sort;

static int rule_order(const void *a, const void *b, void *ctx)
{
    const rule_sort *k = ctx;
    const rep_srule *x = &k->s->rules[*(const uint32_t *)a], *y = &k->s->rules[*(const uint32_t *)b];
    if (k->by != REP_BY_NAME) {
        uint64_t u = rep_metric(&x->c, k->by), v = rep_metric(&y->c, k->by);
        if (u != v && (u == REP_UNSET || v == REP_UNSET)) return u == REP_UNSET ? 1 : -1;   /* not collected: last */
        if (u != v) return u > v ? -1 : 1;
    }
    return strcmp(x->label, y->label);
}

uint32_t *rep_sorted_rules(const rep_summary *s, rep_by by, size_t *n)
{
    uint32_t *v = malloc((s->nrules ? s->nrules : 1) * sizeof *v);
    if (!v) return NULL;
    *n = 0;
    for (size_t i = 0; i < s->nrules; i++)
        if (s->rules[i].used && s->rules[i].c.calls) v[(*n)++] = (uint32_t)i;
    rule_sort k = { s, by };
    qsort_r(v, *n, sizeof *v, rule_order, &k);
    return v;
}

static uint64_t total_self(const rep_summary *s)
{
    uint64_t t = 0;
    for (size_t i = 0; i < s->nrules; i++)
        if (s->rules[i].used) t = rep_sum(t, s->rules[i].c.self_ns);
    return t;
}

/* ---- hints ---- */

typedef struct hints {
    char  **text;
    size_t  n, cap;
    int     oom;
} hints;

static void hint(hints *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void hint(hints *h, const char *fmt, ...)
{
    if (h->oom) return;
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 16;
        char **t = realloc(h->text, cap * sizeof *t);
        if (!t) { h->oom = 1; return; }
        h->text = t;
        h->cap = cap;
    }
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!(h->text[h->n] = strdup(text))) h->oom = 1;
    else h->n++;
}

static void hints_free(hints *h)
{
    for (size_t i = 0; i < h->n; i++) free(h->text[i]);
    free(h->text);
}

/* The hints of docs/debugging.md (Reading reports), from the merged counts. */
static int make_hints(const rep_summary *s, hints *h)
{
    size_t n;
    uint64_t self = total_self(s);
    uint32_t *v = rep_sorted_rules(s, REP_BY_SELF, &n);
    if (!v) return -1;
    for (size_t i = 0; i < n && i < 3; i++) {
        const rep_srule *r = &s->rules[v[i]];
        double pct = rep_percent(r->c.self_ns, self);
        if (r->c.self_ns == 0 || (i > 0 && pct < 10.0)) break;
        if (i == 0)
            hint(h, "%s has the most self time: %.1f%% (%llu us in %llu call%s)", r->label, pct,
                 (unsigned long long)rep_us(r->c.self_ns), (unsigned long long)r->c.calls, r->c.calls == 1 ? "" : "s");
        else
            hint(h, "%s has %.1f%% of the self time (%llu us in %llu call%s)", r->label, pct,
                 (unsigned long long)rep_us(r->c.self_ns), (unsigned long long)r->c.calls, r->c.calls == 1 ? "" : "s");
    }
    free(v);

    /* evaluated more than twice at one position */
    v = rep_sorted_rules(s, REP_BY_REPEATS, &n);
    if (!v) return -1;
    size_t shown = 0;
    for (size_t i = 0; i < n && shown < HINTS_PER_KIND; i++) {
        const rep_srule *r = &s->rules[v[i]];
        if (r->c.max_repeats == REP_UNSET || r->c.max_repeats < 2) continue;
        hint(h, "%s is evaluated %llu times at one position (position %llu); %llu repeated evaluations in all",
             r->label, (unsigned long long)rep_sum(r->c.max_repeats, 1), (unsigned long long)r->c.max_repeats_pos,
             (unsigned long long)r->c.repeats);
        shown++;
    }
    free(v);

    /* failed calls that examine much input, then more input than was parsed;
     * both of the processes with detail only, which wasted covers */
    v = rep_sorted_rules(s, REP_BY_WASTED, &n);
    if (!v) return -1;
    shown = 0;
    for (size_t i = 0; i < n && shown < HINTS_PER_KIND; i++) {
        const rep_srule *r = &s->rules[v[i]];
        uint64_t failed = r->detail_failed;
        if (r->c.wasted == REP_UNSET || !failed || r->c.wasted / failed < 16) continue;
        hint(h, "%s: its failed calls examine %llu bytes on average (%llu failed calls, %llu bytes in all)",
             r->label, (unsigned long long)(r->c.wasted / failed), (unsigned long long)failed,
             (unsigned long long)r->c.wasted);
        shown++;
    }
    shown = 0;
    for (size_t i = 0; i < n && shown < HINTS_PER_KIND; i++) {
        const rep_srule *r = &s->rules[v[i]];
        uint64_t parsed = s->grammars[r->grammar].detail_bytes;
        if (r->c.wasted == REP_UNSET || r->c.wasted <= parsed) continue;
        hint(h, "%s: its failed calls examined %llu bytes in all, more than the %llu bytes of input parsed",
             r->label, (unsigned long long)r->c.wasted, (unsigned long long)parsed);
        shown++;
    }
    free(v);
    if (h->n == 0 && !h->oom) hint(h, "nothing stands out");
    return h->oom ? -1 : 0;
}

/* ---- the rules table ---- */

/* The label of the grammar whose uint32_t index is at c->field of the row;
 * the table's ctx is the summary. */
static rep_cell grammar_label(const rep_column *c, const rep_table *t, const void *row)
{
    const rep_summary *s = t->ctx;
    uint32_t g;
    memcpy(&g, (const char *)row + c->field, sizeof g);
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = s->grammars[g].label };
}

/* A rule's share of the node bytes (or memo bytes) of every parse, or none
 * when they were not counted; the table's ctx is the summary. */
static rep_cell memory_share(const rep_column *c, const rep_table *t, const void *row)
{
    const rep_summary *s = t->ctx;
    uint64_t v = rep_field(row, c->field);
    uint64_t whole = c->field == offsetof(rep_srule, c.node_bytes) ? s->node_bytes : s->memo_bytes;
    if (v == REP_UNSET) return (rep_cell){ .kind = REP_CELL_NONE };
    return (rep_cell){ .kind = REP_CELL_SHARE, .share = rep_percent(v, whole) };
}

#define GRAMMAR(name, formats, type) { name, formats, 0, 0, grammar_label, offsetof(type, grammar), NULL }

/* A text column shown only when the rules are sorted by its metric, which the
 * usual columns do not show. */
#define SORTED_BY(by, name, value, member) \
    { name, REP_IN_TEXT, 10, 1u << (by), value, offsetof(rep_srule, member), NULL }

/* The variant bit of a rules table of reports of which some are sampled. */
#define SAMPLED (1u << 16)

/* A column of the samples a rule's self time rests on, shown when some report
 * is sampled: a rule only exact reports had has none (not 0). */
#define SAMPLES(formats, width) \
    { "samples", formats, width, SAMPLED, rep_detail_cell, offsetof(rep_srule, c.samples), NULL }

/* A row is a rep_srule; shares are of the self time of every rule; the
 * variant is 1 << the metric sorted by, and SAMPLED. */
static const rep_column rule_columns[] = {
    REP_US("time_us", REP_IN_TEXT, 12, rep_srule, c.self_ns),
    REP_SHARE("share", REP_IN_TEXT, 7, rep_srule, c.self_ns),
    SAMPLES(REP_IN_TEXT, 9),
    GRAMMAR("grammar", REP_IN_DATA, rep_srule),
    REP_TEXT("rule", REP_IN_DATA, 0, rep_srule, name),
    REP_COUNT("calls", REP_IN_ALL, 10, rep_srule, c.calls),
    REP_COUNT("evals", REP_IN_ALL, 10, rep_srule, c.evals),
    REP_COUNT("memo", REP_IN_ALL, 8, rep_srule, c.memo),
    REP_COUNT("matched", REP_IN_ALL, 10, rep_srule, c.matched),
    REP_COUNT("failed", REP_IN_ALL, 10, rep_srule, c.failed),
    REP_DETAIL("repeats", REP_IN_DATA, 0, rep_srule, c.repeats),
    REP_DETAIL("max_repeats", REP_IN_DATA, 0, rep_srule, c.max_repeats),
    REP_DETAIL("max_repeats_pos", REP_IN_DATA, 0, rep_srule, c.max_repeats_pos),
    REP_COUNT("consumed", REP_IN_DATA, 0, rep_srule, c.consumed),
    REP_DETAIL("wasted", REP_IN_DATA, 0, rep_srule, c.wasted),
    REP_COUNT("time_ns", REP_IN_DATA, 0, rep_srule, c.time_ns),
    REP_COUNT("self_ns", REP_IN_DATA, 0, rep_srule, c.self_ns),
    REP_SHARE("share", REP_IN_DATA, 0, rep_srule, c.self_ns),
    SAMPLES(REP_IN_DATA, 0),
    REP_DETAIL("nodes", REP_IN_DATA, 0, rep_srule, c.nodes),
    REP_DETAIL("node_bytes", REP_IN_DATA, 0, rep_srule, c.node_bytes),
    REP_DETAIL("memo_entries", REP_IN_DATA, 0, rep_srule, c.memo_entries),
    REP_DETAIL("memo_bytes", REP_IN_DATA, 0, rep_srule, c.memo_bytes),
    SORTED_BY(REP_BY_TIME, "total_us", rep_us_cell, c.time_ns),
    SORTED_BY(REP_BY_REPEATS, "repeats", rep_detail_cell, c.repeats),
    SORTED_BY(REP_BY_CONSUMED, "consumed", rep_count_cell, c.consumed),
    SORTED_BY(REP_BY_WASTED, "wasted", rep_detail_cell, c.wasted),
    SORTED_BY(REP_BY_NODE_BYTES, "nodes", rep_detail_cell, c.nodes),
    SORTED_BY(REP_BY_NODE_BYTES, "node_bytes", rep_detail_cell, c.node_bytes),
    { "bytes%", REP_IN_TEXT, 7, 1u << REP_BY_NODE_BYTES, memory_share, offsetof(rep_srule, c.node_bytes), NULL },
    SORTED_BY(REP_BY_MEMO_BYTES, "memo_entries", rep_detail_cell, c.memo_entries),
    SORTED_BY(REP_BY_MEMO_BYTES, "memo_bytes", rep_detail_cell, c.memo_bytes),
    { "bytes%", REP_IN_TEXT, 7, 1u << REP_BY_MEMO_BYTES, memory_share, offsetof(rep_srule, c.memo_bytes), NULL },
    REP_TEXT("rule", REP_IN_TEXT, 0, rep_srule, label),
};

static rep_table rules_table(const rep_summary *s, rep_by by)
{
    return REP_TABLE(rule_columns, (1u << by) | (s->sampled_processes ? SAMPLED : 0), total_self(s), s);
}

/* The rows of the rules table: sorted, above --min-self, matching --rule. */
static uint32_t *table_rules(const rep_summary *s, const rep_table_options *t, size_t *n, size_t *hidden)
{
    uint64_t self = total_self(s);
    uint32_t *v = rep_sorted_rules(s, t->by, n);
    if (!v) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        const rep_srule *r = &s->rules[v[i]];
        if (t->rule && strcmp(r->name, t->rule) != 0 && strcmp(r->label, t->rule) != 0) continue;
        if (t->min_self > 0 && rep_percent(r->c.self_ns, self) < t->min_self) continue;
        v[k++] = v[i];
    }
    *hidden = 0;
    if (t->rows && k > t->rows) {
        *hidden = k - t->rows;
        k = t->rows;
    }
    *n = k;
    return v;
}

static void text_rules(const rep_summary *s, const rep_table_options *t, const uint32_t *v, size_t n,
                       size_t hidden, FILE *out)
{
    rep_table table = rules_table(s, t->by);
    fprintf(out, "Rules by %s:\n", by_titles[t->by]);
    rep_text_heading(&table, t->format, out);
    for (size_t i = 0; i < n; i++) rep_text_row(&table, &s->rules[v[i]], t->format, out);
    rep_text_end(t->format, out);
    if (n == 0 && hidden == 0) fputs("  (none)\n", out);
    if (hidden) fprintf(out, "  (%zu more rule%s; -n 0 shows all)\n", hidden, hidden == 1 ? "" : "s");
}

/* ---- the parses table ---- */

static rep_cell parse_unit(const rep_column *c, const rep_table *t, const void *row)
{
    (void)c;
    (void)t;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = unit_names[((const rep_sparse *)row)->unit] };
}

static rep_cell parse_result(const rep_column *c, const rep_table *t, const void *row)
{
    (void)c;
    (void)t;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = result_names[((const rep_sparse *)row)->result] };
}

/* The rule with the most self time in the parse, or none. */
static rep_cell parse_top(const rep_column *c, const rep_table *t, const void *row)
{
    const rep_summary *s = t->ctx;
    const rep_sparse *p = row;
    (void)c;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = p->top_rule == REP_NONE ? NULL : s->rules[p->top_rule].name };
}

/* "INPUT: TOP", and the result when it is not ok. */
static void print_parse(FILE *out, int format, const rep_table *t, const void *row)
{
    const rep_sparse *p = row;
    rep_cell top = parse_top(NULL, t, row);
    rep_put_text(out, format, *p->input ? p->input : "(unnamed)");
    if (p->source == REP_SOURCE_STREAM) rep_put_text(out, format, " (stream)");
    if (p->source == REP_SOURCE_DOCUMENT) rep_put_text(out, format, " (document)");
    fputs(": ", out);
    rep_put_text(out, format, top.text ? top.text : "-");
    if (p->result == REP_RESULT_OK) return;
    rep_put_text(out, format, " [");
    rep_put_text(out, format, result_names[p->result]);
    rep_put_text(out, format, "]");
}

/* A row is a rep_sparse; shares are of the time of every parse. */
static const rep_column parse_columns[] = {
    REP_TEXT("input", REP_IN_DATA, 0, rep_sparse, input),
    GRAMMAR("grammar", REP_IN_DATA, rep_sparse),
    REP_COUNT("bytes", REP_IN_DATA, 0, rep_sparse, bytes),
    { "unit", REP_IN_DATA, 0, 0, parse_unit, 0, NULL },
    { "result", REP_IN_DATA, 0, 0, parse_result, 0, NULL },
    REP_US("time_us", REP_IN_TEXT, 12, rep_sparse, time_ns),
    REP_COUNT("time_ns", REP_IN_DATA, 0, rep_sparse, time_ns),
    REP_SHARE("share", REP_IN_ALL, 7, rep_sparse, time_ns),
    REP_COUNT("calls", REP_IN_ALL, 10, rep_sparse, calls),
    REP_COUNT("evals", REP_IN_DATA, 0, rep_sparse, evals),
    REP_COUNT("memo", REP_IN_DATA, 0, rep_sparse, memo),
    REP_COUNT("clock_reads", REP_IN_DATA, 0, rep_sparse, clock_reads),
    { "top_rule", REP_IN_DATA, 0, 0, parse_top, 0, NULL },
    REP_DETAIL("node_bytes", REP_IN_DATA, 0, rep_sparse, node_bytes),
    REP_DETAIL("memo_bytes", REP_IN_DATA, 0, rep_sparse, memo_bytes),
    REP_DETAIL("peak_node_bytes", REP_IN_DATA, 0, rep_sparse, peak_node_bytes),
    REP_DETAIL("peak_memo_bytes", REP_IN_DATA, 0, rep_sparse, peak_memo_bytes),
    REP_DETAIL("peak_stack_bytes", REP_IN_DATA, 0, rep_sparse, peak_stack_bytes),
    { "parse: top rule", REP_IN_TEXT, 0, 0, NULL, 0, print_parse },
};

static rep_table parses_table(const rep_summary *s)
{
    return REP_TABLE(parse_columns, 0, s->time_ns, s);
}

static size_t parse_rows(const rep_summary *s, const rep_table_options *t)
{
    if (t->all_parses || !t->parse_rows || s->ntop < t->parse_rows) return s->ntop;
    return t->parse_rows;
}

static void text_parses(const rep_summary *s, const rep_table_options *t, FILE *out)
{
    rep_table table = parses_table(s);
    size_t n = parse_rows(s, t);
    fputs("Parses by time:\n", out);
    rep_text_heading(&table, t->format, out);
    for (size_t i = 0; i < n; i++) rep_text_row(&table, &s->top[i], t->format, out);
    rep_text_end(t->format, out);
    if (n == 0) fputs("  (none)\n", out);
    if (s->parses > n) {
        uint64_t more = s->parses - n;
        fprintf(out, "  (%llu more parse%s; --parses shows all)\n", (unsigned long long)more, more == 1 ? "" : "s");
    }
}

/* ---- callers and callees ---- */

enum { CALLERS = 1, CALLEES = 2 };   /* the variants of the edges table */

/* The edges of one rule: into it (callers) or out of it (callees). */
typedef struct rule_edges {
    const rep_summary *s;
    uint32_t           rule;
    int                callers;
} rule_edges;

static rep_cell edge_direction(const rep_column *c, const rep_table *t, const void *row)
{
    const rule_edges *k = t->ctx;
    (void)c;
    (void)row;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = k->callers ? "caller" : "callee" };
}

static rep_cell edge_rule(const rep_column *c, const rep_table *t, const void *row)
{
    const rule_edges *k = t->ctx;
    (void)c;
    (void)row;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = k->s->rules[k->rule].label };
}

/* The rule at the other end of the edge. */
static rep_cell edge_other(const rep_column *c, const rep_table *t, const void *row)
{
    const rule_edges *k = t->ctx;
    const rep_sedge *e = row;
    (void)c;
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = k->s->rules[k->callers ? e->caller : e->callee].label };
}

/* A row is a rep_sedge; shares are of the time of the rule. */
static const rep_column edge_columns[] = {
    { "direction", REP_IN_CSV, 0, 0, edge_direction, 0, NULL },
    { "rule", REP_IN_DATA, 0, 0, edge_rule, 0, NULL },
    { "caller", REP_IN_JSON, 0, CALLERS, edge_other, 0, NULL },
    { "callee", REP_IN_JSON, 0, CALLEES, edge_other, 0, NULL },
    { "other", REP_IN_CSV, 0, 0, edge_other, 0, NULL },
    REP_US("time_us", REP_IN_TEXT, 12, rep_sedge, time_ns),
    REP_SHARE("share", REP_IN_TEXT, 7, rep_sedge, time_ns),
    REP_COUNT("calls", REP_IN_ALL, 10, rep_sedge, calls),
    REP_COUNT("time_ns", REP_IN_DATA, 0, rep_sedge, time_ns),
    REP_SHARE("share", REP_IN_DATA, 0, rep_sedge, time_ns),
    { "caller", REP_IN_TEXT, 0, CALLERS, edge_other, 0, NULL },
    { "callee", REP_IN_TEXT, 0, CALLEES, edge_other, 0, NULL },
};

static rep_table edges_table(const rule_edges *k)
{
    return REP_TABLE(edge_columns, k->callers ? CALLERS : CALLEES, k->s->rules[k->rule].c.time_ns, k);
}

static int edge_order(const void *a, const void *b, void *ctx)
{
    const rep_summary *s = ctx;
    const rep_sedge *x = &s->edges[*(const uint32_t *)a], *y = &s->edges[*(const uint32_t *)b];
    if (x->time_ns != y->time_ns) return x->time_ns > y->time_ns ? -1 : 1;
    int c = strcmp(s->rules[x->caller].label, s->rules[y->caller].label);
    return c ? c : strcmp(s->rules[x->callee].label, s->rules[y->callee].label);
}

/* The indices of the edges, by time. */
static uint32_t *sorted_edges(const rule_edges *k, size_t *n)
{
    const rep_summary *s = k->s;
    uint32_t *v = malloc((s->nedges ? s->nedges : 1) * sizeof *v);
    if (!v) return NULL;
    *n = 0;
    for (size_t i = 0; i < s->nedges; i++)
        if ((k->callers ? s->edges[i].callee : s->edges[i].caller) == k->rule) v[(*n)++] = (uint32_t)i;
    qsort_r(v, *n, sizeof *v, edge_order, (void *)s);
    return v;
}

/* Writes the callers or the callees of rule: text or Markdown with its title,
 * CSV rows, or JSON objects appended to arr. 0, or -1 when out of memory. */
static int print_edges(const rep_summary *s, uint32_t rule, int callers, rep_format format, FILE *out, json_t *arr)
{
    rule_edges k = { s, rule, callers };
    rep_table table = edges_table(&k);
    size_t n;
    uint32_t *v = sorted_edges(&k, &n);
    if (!v) return -1;
    int text = format == REP_FORMAT_TEXT || format == REP_FORMAT_MARKDOWN;
    if (text) {
        fprintf(out, "%s of ", callers ? "Callers" : "Callees");
        rep_put_text(out, format, s->rules[rule].label);
        fputs(":\n", out);
        rep_text_heading(&table, format, out);
    }
    for (size_t i = 0; i < n; i++) {
        const rep_sedge *e = &s->edges[v[i]];
        if (text) rep_text_row(&table, e, format, out);
        else if (format == REP_FORMAT_CSV) rep_csv_row(&table, e, out);
        else json_array_append_new(arr, rep_json_row(&table, e));
    }
    if (text) rep_text_end(format, out);
    if (text && n == 0) fputs("  (none)\n", out);
    free(v);
    return 0;
}

/* ---- the whole output ---- */

static void append(char *text, size_t len, size_t *k, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Appends to text (len bytes) at *k; past the end, *k stays at len or beyond. */
static void append(char *text, size_t len, size_t *k, const char *fmt, ...)
{
    if (*k >= len) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(text + *k, len - *k, fmt, ap);
    va_end(ap);
    *k = w < 0 ? len : *k + (size_t)w;
}

/* "clock monotonic", or "clocks monotonic (2 processes), thread-cpu (1)". */
static void append_kinds(char *text, size_t len, size_t *k, const char *what, const rep_kind *v, size_t n)
{
    if (n == 1) {
        append(text, len, k, "%s %s", what, v[0].name);
        return;
    }
    append(text, len, k, "%ss", what);
    for (size_t i = 0; i < n; i++)
        append(text, len, k, "%s %s (%llu%s)", i ? "," : "", v[i].name, (unsigned long long)v[i].processes,
               i ? "" : v[i].processes == 1 ? " process" : " processes");
}

void rep_measured_text(const rep_summary *s, char *text, size_t len)
{
    size_t k = 0;
    *text = '\0';
    if (!s->processes) return;
    append_kinds(text, len, &k, "clock", s->clocks, s->nclocks);
    append(text, len, &k, "; ");
    append_kinds(text, len, &k, "mode", s->modes, s->nmodes);
    if (s->sample_interval_ns) {
        /* a sampled time t rests on t / interval samples: its relative error is about 1 / sqrt of that */
        if (s->sample_interval_ns != UINT64_MAX)
            append(text, len, &k, " (a sample every %g us: a time of t rests on t / %g us samples)",
                   (double)s->sample_interval_ns / 1000.0, (double)s->sample_interval_ns / 1000.0);
        else
            append(text, len, &k, " (intervals differ: a rule's samples say how many its time rests on)");
        append(text, len, &k, "; %llu samples", (unsigned long long)s->samples);
        if (s->samples_lost) append(text, len, &k, ", %llu not attributed", (unsigned long long)s->samples_lost);
        if (s->sampled_processes < s->processes)
            append(text, len, &k, "; sampled in %llu of %llu processes (a rule's samples count those only; its time "
                   "from the others is exact)", (unsigned long long)s->sampled_processes,
                   (unsigned long long)s->processes);
        if (s->sample_interval_max_ns)
            append(text, len, &k, "; timers slowed down to a sample every %g us, where signals left no time to parse",
                   (double)s->sample_interval_max_ns / 1000.0);
    }
    if (s->detail_processes == s->processes) append(text, len, &k, "; detail on");
    else if (s->detail_processes == 0) append(text, len, &k, "; detail off");
    else
        append(text, len, &k, "; detail on in %llu of %llu processes (repeats and wasted count those only)",
               (unsigned long long)s->detail_processes, (unsigned long long)s->processes);
    if (s->memory_processes == s->processes) append(text, len, &k, "; memory on");
    else if (s->memory_processes)
        append(text, len, &k, "; memory on in %llu of %llu processes (the memory counts count those only)",
               (unsigned long long)s->memory_processes, (unsigned long long)s->processes);
}

/* [{"clock": NAME, "processes": N}, ...] */
static json_t *kinds_json(const char *what, const rep_kind *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n && a; i++)
        if (json_array_append_new(a, json_pack("{s:s, s:I}", what, v[i].name, "processes",
                                               (json_int_t)v[i].processes)) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *rep_measured_json(const rep_summary *s)
{
    json_t *o = json_pack("{s:o, s:o, s:I}", "clocks", kinds_json("clock", s->clocks, s->nclocks), "modes",
                          kinds_json("mode", s->modes, s->nmodes), "detail_processes",
                          (json_int_t)s->detail_processes);
    if (o && s->memory_processes &&
        json_object_set_new(o, "memory_processes", json_integer((json_int_t)s->memory_processes)) < 0) {
        json_decref(o);
        return NULL;
    }
    /* sampled processes: how many, their samples, and the interval (null when they differ) */
    if (o && s->sample_interval_ns &&
        (json_object_set_new(o, "sampled_processes", json_integer((json_int_t)s->sampled_processes)) < 0 ||
         json_object_set_new(o, "samples", json_integer((json_int_t)s->samples)) < 0 ||
         json_object_set_new(o, "samples_lost", json_integer((json_int_t)s->samples_lost)) < 0 ||
         json_object_set_new(o, "sample_interval_ns", s->sample_interval_ns == UINT64_MAX
                                                          ? json_null()
                                                          : json_integer((json_int_t)s->sample_interval_ns)) < 0 ||
         (s->sample_interval_max_ns &&
          json_object_set_new(o, "sample_interval_max_ns", json_integer((json_int_t)s->sample_interval_max_ns)) < 0))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static void text_head(const rep_summary *s, FILE *out)
{
    char measured[REP_MEASURED_MAX];
    fprintf(out, "Pego profile: %llu process%s, %llu parse%s, %llu calls, %llu clock readings\n",
            (unsigned long long)s->processes, s->processes == 1 ? "" : "es", (unsigned long long)s->parses,
            s->parses == 1 ? "" : "s", (unsigned long long)s->calls, (unsigned long long)s->clock_reads);
    rep_measured_text(s, measured, sizeof measured);
    if (*measured) fprintf(out, "Measured: %s\n", measured);
    if (s->memory_processes)
        fprintf(out, "Memory: %llu bytes of tree nodes built, %llu bytes of memo entries stored; the most one parse "
                "held: %llu bytes of node arena, %llu of memo table, %llu of control stack\n",
                (unsigned long long)s->node_bytes, (unsigned long long)s->memo_bytes,
                (unsigned long long)s->peak_node_bytes, (unsigned long long)s->peak_memo_bytes,
                (unsigned long long)s->peak_stack_bytes);
    if (!s->shared_names) return;
    for (size_t i = 0; i < s->ngrammars; i++) {
        const rep_sgrammar *g = &s->grammars[i];
        size_t count = 0, first = i;
        for (size_t j = 0; j < s->ngrammars; j++) {
            if (!s->grammars[j].used || s->grammars[j].name != g->name) continue;
            if (count++ == 0) first = j;
        }
        if (count < 2 || first != i) continue;
        fprintf(out, "Note: %zu grammars named %s have different sources; they are kept apart as", count, g->name);
        size_t k = 0;
        for (size_t j = 0; j < s->ngrammars; j++) {
            if (!s->grammars[j].used || s->grammars[j].name != g->name) continue;
            k++;
            fprintf(out, "%s %s", k == 1 ? "" : k == count ? " and" : ",", s->grammars[j].label);
            if (*s->grammars[j].file) fprintf(out, " (%s)", s->grammars[j].file);
        }
        fputs(".\n", out);
    }
}

static int print_text(const rep_summary *s, const rep_table_options *t, const uint32_t *v, size_t n,
                      size_t hidden, FILE *out)
{
    text_head(s, out);
    text_rules(s, t, v, n, hidden, out);
    if (t->rule) {
        for (size_t i = 0; i < n; i++)
            if (print_edges(s, v[i], 1, t->format, out, NULL) < 0 ||
                print_edges(s, v[i], 0, t->format, out, NULL) < 0)
                return -1;
        return 0;
    }
    text_parses(s, t, out);
    hints h = { 0 };
    int rc = make_hints(s, &h);
    if (rc == 0) {
        fputs("What to look at:\n", out);
        for (size_t i = 0; i < h.n; i++) {
            fputs("- ", out);
            rep_put_text(out, t->format, h.text[i]);
            fputc('\n', out);
        }
    }
    hints_free(&h);
    return rc;
}

static int print_json(const rep_summary *s, const rep_table_options *t, const uint32_t *v, size_t n, FILE *out)
{
    rep_table rules = rules_table(s, t->by);
    json_t *grammars = json_array(), *list = json_array();
    json_t *doc = json_pack("{s:{s:I, s:I, s:I, s:I, s:I}, s:o, s:o, s:o}", "totals",
                            "processes", (json_int_t)s->processes, "parses", (json_int_t)s->parses,
                            "calls", (json_int_t)s->calls, "clock_reads", (json_int_t)s->clock_reads,
                            "time_ns", (json_int_t)s->time_ns, "measured", rep_measured_json(s),
                            "grammars", grammars, "rules", list);
    if (!doc) return -1;
    if (s->memory_processes &&
        json_object_set_new(doc, "memory", json_pack("{s:I, s:I, s:I, s:I, s:I}", "node_bytes", (json_int_t)s->node_bytes,
                                                     "memo_bytes", (json_int_t)s->memo_bytes, "peak_node_bytes",
                                                     (json_int_t)s->peak_node_bytes, "peak_memo_bytes",
                                                     (json_int_t)s->peak_memo_bytes, "peak_stack_bytes",
                                                     (json_int_t)s->peak_stack_bytes)) < 0) {
        json_decref(doc);
        return -1;
    }
    for (size_t i = 0; i < s->ngrammars; i++) {
        const rep_sgrammar *g = &s->grammars[i];
        if (!g->used) continue;
        char hash[17];
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long)g->hash);
        json_array_append_new(grammars, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "name", g->name, "label",
                                                  g->label, "file", g->file, "hash", hash,
                                                  "parses", (json_int_t)g->parses, "bytes", (json_int_t)g->bytes));
    }
    for (size_t i = 0; i < n; i++) json_array_append_new(list, rep_json_row(&rules, &s->rules[v[i]]));
    int rc = 0;
    if (t->rule) {
        json_t *callers = json_array(), *callees = json_array();
        json_object_set_new(doc, "callers", callers);
        json_object_set_new(doc, "callees", callees);
        for (size_t i = 0; i < n && rc == 0; i++)
            if (print_edges(s, v[i], 1, REP_FORMAT_JSON, NULL, callers) < 0 ||
                print_edges(s, v[i], 0, REP_FORMAT_JSON, NULL, callees) < 0)
                rc = -1;
    } else {
        rep_table parses = parses_table(s);
        json_t *prows = json_array(), *hint_list = json_array();
        json_object_set_new(doc, "parses", prows);
        size_t np = parse_rows(s, t);
        for (size_t i = 0; i < np; i++) json_array_append_new(prows, rep_json_row(&parses, &s->top[i]));
        hints h = { 0 };
        rc = make_hints(s, &h);
        for (size_t i = 0; i < h.n; i++) json_array_append_new(hint_list, json_string(h.text[i]));
        hints_free(&h);
        json_object_set_new(doc, "hints", hint_list);
    }
    if (rc == 0 && json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) < 0) rc = -1;
    if (rc == 0) fputc('\n', out);
    json_decref(doc);
    return rc;
}

static int print_csv(const rep_summary *s, const rep_table_options *t, const uint32_t *v, size_t n, FILE *out)
{
    if (t->rule) {
        rep_table edges = REP_TABLE(edge_columns, 0, 0, NULL);
        rep_csv_heading(&edges, out);
        for (size_t i = 0; i < n; i++)
            if (print_edges(s, v[i], 1, REP_FORMAT_CSV, out, NULL) < 0 ||
                print_edges(s, v[i], 0, REP_FORMAT_CSV, out, NULL) < 0)
                return -1;
    } else if (t->all_parses) {
        rep_table parses = parses_table(s);
        size_t np = parse_rows(s, t);
        rep_csv_heading(&parses, out);
        for (size_t i = 0; i < np; i++) rep_csv_row(&parses, &s->top[i], out);
    } else {
        rep_table rules = rules_table(s, t->by);
        rep_csv_heading(&rules, out);
        for (size_t i = 0; i < n; i++) rep_csv_row(&rules, &s->rules[v[i]], out);
    }
    return 0;
}

int rep_print_tables(const rep_summary *s, const rep_table_options *t, FILE *out, char *err, size_t errlen)
{
    size_t n, hidden;
    uint32_t *v = table_rules(s, t, &n, &hidden);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc;
    if (t->rule && n == 0) {
        snprintf(err, errlen, "no rule named %s was called in the reports", t->rule);
        free(v);
        return -1;
    }
    if (t->format == REP_FORMAT_JSON) rc = print_json(s, t, v, n, out);
    else if (t->format == REP_FORMAT_CSV) rc = print_csv(s, t, v, n, out);
    else rc = print_text(s, t, v, n, hidden, out);
    free(v);
    if (rc < 0) snprintf(err, errlen, "out of memory");
    return rc;
}
