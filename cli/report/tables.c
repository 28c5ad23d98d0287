/* The tables of pego report (design.md section 9): the first line, rules by a
 * metric, the slowest parses, a rule's callers and callees, and the hints of
 * design.md section 6 computed from the merged counts; as text, JSON or CSV. */
#include "summary.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const by_names[] = {
    "self", "time", "calls", "evals", "memo", "failed", "repeats", "consumed", "wasted", "name",
};
static const char *const by_titles[] = {
    "self time", "time", "calls", "evaluations", "memo hits", "failed calls", "repeats",
    "input consumed", "input wasted", "name",
};
static const char *const unit_names[] = { "bytes", "codepoints" };
static const char *const result_names[] = { "ok", "syntax error", "aborted" };

#define HINTS_PER_KIND 5

int rep_by_parse(const char *name)
{
    for (size_t i = 0; i < sizeof by_names / sizeof *by_names; i++)
        if (strcmp(name, by_names[i]) == 0) return (int)i;
    return -1;
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
    case REP_BY_NAME:     return 0;
    }
    return 0;
}

uint64_t rep_us(uint64_t ns)
{
    return ns / 1000 + (ns % 1000 >= 500);
}

void rep_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* A share rounded to 0.1%, for JSON. */
static json_t *json_share(double pct)
{
    return json_real(round(pct * 10.0) / 10.0);
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
        if (s->rules[i].used) t += s->rules[i].c.self_ns;
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

/* The hints of design.md section 6, from the merged counts. */
static int make_hints(const rep_summary *s, hints *h)
{
    size_t n;
    uint64_t self = total_self(s);
    uint32_t *v = rep_sorted_rules(s, REP_BY_SELF, &n);
    if (!v) return -1;
    for (size_t i = 0; i < n && i < 3; i++) {
        const rep_srule *r = &s->rules[v[i]];
        double pct = percent(r->c.self_ns, self);
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
        if (r->c.max_repeats < 2) continue;
        hint(h, "%s is evaluated %llu times at one position (position %llu); %llu repeated evaluations in all",
             r->label, (unsigned long long)r->c.max_repeats + 1, (unsigned long long)r->c.max_repeats_pos,
             (unsigned long long)r->c.repeats);
        shown++;
    }
    free(v);

    /* failed calls that examine much input, then more input than was parsed */
    v = rep_sorted_rules(s, REP_BY_WASTED, &n);
    if (!v) return -1;
    shown = 0;
    for (size_t i = 0; i < n && shown < HINTS_PER_KIND; i++) {
        const rep_srule *r = &s->rules[v[i]];
        if (!r->c.failed || r->c.wasted / r->c.failed < 16) continue;
        hint(h, "%s: its failed calls examine %llu positions on average (%llu failed calls, %llu positions in all)",
             r->label, (unsigned long long)(r->c.wasted / r->c.failed), (unsigned long long)r->c.failed,
             (unsigned long long)r->c.wasted);
        shown++;
    }
    shown = 0;
    for (size_t i = 0; i < n && shown < HINTS_PER_KIND; i++) {
        const rep_srule *r = &s->rules[v[i]];
        uint64_t parsed = s->grammars[r->grammar].bytes;
        if (r->c.wasted <= parsed) continue;
        hint(h, "%s: its failed calls examined %llu positions in all, more than the %llu of input parsed",
             r->label, (unsigned long long)r->c.wasted, (unsigned long long)parsed);
        shown++;
    }
    free(v);
    if (h->n == 0 && !h->oom) hint(h, "nothing stands out");
    return h->oom ? -1 : 0;
}

/* ---- the rules table ---- */

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
        if (t->min_self > 0 && percent(r->c.self_ns, self) < t->min_self) continue;
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

/* The extra column shown for a sort metric that is not among the usual ones. */
static const char *extra_column(rep_by by)
{
    switch (by) {
    case REP_BY_TIME:     return "total_us";
    case REP_BY_REPEATS:  return "repeats";
    case REP_BY_CONSUMED: return "consumed";
    case REP_BY_WASTED:   return "wasted";
    default:              return NULL;
    }
}

static void text_rules(const rep_summary *s, const rep_table_options *t, const uint32_t *v, size_t n,
                       size_t hidden, FILE *out)
{
    uint64_t self = total_self(s);
    const char *extra = extra_column(t->by);
    fprintf(out, "Rules by %s:\n", by_titles[t->by]);
    fprintf(out, "%12s %7s %10s %10s %8s %10s %10s", "time_us", "share", "calls", "evals", "memo", "matched",
            "failed");
    if (extra) fprintf(out, " %10s", extra);
    fputs("  rule\n", out);
    for (size_t i = 0; i < n; i++) {
        const rep_srule *r = &s->rules[v[i]];
        const rep_counts *c = &r->c;
        fprintf(out, "%12llu %6.1f%% %10llu %10llu %8llu %10llu %10llu", (unsigned long long)rep_us(c->self_ns),
                percent(c->self_ns, self), (unsigned long long)c->calls, (unsigned long long)c->evals,
                (unsigned long long)c->memo, (unsigned long long)c->matched, (unsigned long long)c->failed);
        if (extra) {
            uint64_t x = rep_metric(c, t->by);
            fprintf(out, " %10llu", (unsigned long long)(t->by == REP_BY_TIME ? rep_us(x) : x));
        }
        fprintf(out, "  %s\n", r->label);
    }
    if (n == 0 && hidden == 0) fputs("  (none)\n", out);
    if (hidden) fprintf(out, "  (%zu more rule%s; -n 0 shows all)\n", hidden, hidden == 1 ? "" : "s");
}

static json_t *json_rule(const rep_summary *s, const rep_srule *r, uint64_t self)
{
    const rep_counts *c = &r->c;
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
                     "grammar", s->grammars[r->grammar].label, "rule", r->name,
                     "calls", (json_int_t)c->calls, "evals", (json_int_t)c->evals, "memo", (json_int_t)c->memo,
                     "matched", (json_int_t)c->matched, "failed", (json_int_t)c->failed,
                     "repeats", (json_int_t)c->repeats, "max_repeats", (json_int_t)c->max_repeats,
                     "max_repeats_pos", (json_int_t)c->max_repeats_pos, "consumed", (json_int_t)c->consumed,
                     "wasted", (json_int_t)c->wasted, "time_ns", (json_int_t)c->time_ns,
                     "self_ns", (json_int_t)c->self_ns, "share", json_share(percent(c->self_ns, self)));
}

static void csv_rules(const rep_summary *s, const uint32_t *v, size_t n, FILE *out)
{
    uint64_t self = total_self(s);
    fputs("grammar,rule,calls,evals,memo,matched,failed,repeats,max_repeats,max_repeats_pos,consumed,wasted,"
          "time_ns,self_ns,share\n", out);
    for (size_t i = 0; i < n; i++) {
        const rep_srule *r = &s->rules[v[i]];
        const rep_counts *c = &r->c;
        rep_csv_field(out, s->grammars[r->grammar].label);
        fputc(',', out);
        rep_csv_field(out, r->name);
        fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.1f\n",
                (unsigned long long)c->calls, (unsigned long long)c->evals, (unsigned long long)c->memo,
                (unsigned long long)c->matched, (unsigned long long)c->failed, (unsigned long long)c->repeats,
                (unsigned long long)c->max_repeats, (unsigned long long)c->max_repeats_pos,
                (unsigned long long)c->consumed, (unsigned long long)c->wasted, (unsigned long long)c->time_ns,
                (unsigned long long)c->self_ns, percent(c->self_ns, self));
    }
}

/* ---- the parses table ---- */

static const char *parse_top(const rep_summary *s, const rep_sparse *p)
{
    return p->top_rule == REP_NONE ? "-" : s->rules[p->top_rule].name;
}

static size_t parse_rows(const rep_summary *s, const rep_table_options *t)
{
    if (t->all_parses || !t->parse_rows || s->ntop < t->parse_rows) return s->ntop;
    return t->parse_rows;
}

static void text_parses(const rep_summary *s, const rep_table_options *t, FILE *out)
{
    size_t n = parse_rows(s, t);
    fputs("Parses by time:\n", out);
    fprintf(out, "%12s %7s %10s  %s\n", "time_us", "share", "calls", "parse: top rule");
    for (size_t i = 0; i < n; i++) {
        const rep_sparse *p = &s->top[i];
        fprintf(out, "%12llu %6.1f%% %10llu  %s: %s", (unsigned long long)rep_us(p->time_ns),
                percent(p->time_ns, s->time_ns), (unsigned long long)p->calls, *p->input ? p->input : "(unnamed)",
                parse_top(s, p));
        if (p->result != REP_RESULT_OK) fprintf(out, " [%s]", result_names[p->result]);
        fputc('\n', out);
    }
    if (n == 0) fputs("  (none)\n", out);
    if (s->parses > n) {
        uint64_t more = s->parses - n;
        fprintf(out, "  (%llu more parse%s; --parses shows all)\n", (unsigned long long)more, more == 1 ? "" : "s");
    }
}

static json_t *json_parse(const rep_summary *s, const rep_sparse *p)
{
    json_t *top = p->top_rule == REP_NONE ? json_null() : json_string(s->rules[p->top_rule].name);
    return json_pack("{s:s, s:s, s:I, s:s, s:s, s:I, s:o, s:I, s:I, s:I, s:I, s:o}",
                     "input", p->input, "grammar", s->grammars[p->grammar].label, "bytes", (json_int_t)p->bytes,
                     "unit", unit_names[p->unit], "result", result_names[p->result],
                     "time_ns", (json_int_t)p->time_ns, "share", json_share(percent(p->time_ns, s->time_ns)),
                     "calls", (json_int_t)p->calls, "evals", (json_int_t)p->evals, "memo", (json_int_t)p->memo,
                     "clock_reads", (json_int_t)p->clock_reads, "top_rule", top);
}

static void csv_parses(const rep_summary *s, const rep_table_options *t, FILE *out)
{
    fputs("input,grammar,bytes,unit,result,time_ns,share,calls,evals,memo,clock_reads,top_rule\n", out);
    size_t n = parse_rows(s, t);
    for (size_t i = 0; i < n; i++) {
        const rep_sparse *p = &s->top[i];
        rep_csv_field(out, p->input);
        fputc(',', out);
        rep_csv_field(out, s->grammars[p->grammar].label);
        fprintf(out, ",%llu,%s,%s,%llu,%.1f,%llu,%llu,%llu,%llu,", (unsigned long long)p->bytes,
                unit_names[p->unit], result_names[p->result], (unsigned long long)p->time_ns,
                percent(p->time_ns, s->time_ns), (unsigned long long)p->calls, (unsigned long long)p->evals,
                (unsigned long long)p->memo, (unsigned long long)p->clock_reads);
        rep_csv_field(out, p->top_rule == REP_NONE ? "" : s->rules[p->top_rule].name);
        fputc('\n', out);
    }
}

/* ---- callers and callees ---- */

static int edge_order(const void *a, const void *b, void *ctx)
{
    const rep_summary *s = ctx;
    const rep_sedge *x = &s->edges[*(const uint32_t *)a], *y = &s->edges[*(const uint32_t *)b];
    if (x->time_ns != y->time_ns) return x->time_ns > y->time_ns ? -1 : 1;
    int c = strcmp(s->rules[x->caller].label, s->rules[y->caller].label);
    return c ? c : strcmp(s->rules[x->callee].label, s->rules[y->callee].label);
}

/* The edges into (callers) or out of (callees) rule, by time. */
static uint32_t *rule_edges(const rep_summary *s, uint32_t rule, int callers, size_t *n)
{
    uint32_t *v = malloc((s->nedges ? s->nedges : 1) * sizeof *v);
    if (!v) return NULL;
    *n = 0;
    for (size_t i = 0; i < s->nedges; i++)
        if ((callers ? s->edges[i].callee : s->edges[i].caller) == rule) v[(*n)++] = (uint32_t)i;
    qsort_r(v, *n, sizeof *v, edge_order, (void *)s);
    return v;
}

static int text_edges(const rep_summary *s, uint32_t rule, int callers, FILE *out)
{
    size_t n;
    uint32_t *v = rule_edges(s, rule, callers, &n);
    if (!v) return -1;
    const rep_srule *r = &s->rules[rule];
    fprintf(out, "%s of %s:\n", callers ? "Callers" : "Callees", r->label);
    fprintf(out, "%12s %7s %10s  %s\n", "time_us", "share", "calls", callers ? "caller" : "callee");
    for (size_t i = 0; i < n; i++) {
        const rep_sedge *e = &s->edges[v[i]];
        fprintf(out, "%12llu %6.1f%% %10llu  %s\n", (unsigned long long)rep_us(e->time_ns),
                percent(e->time_ns, r->c.time_ns), (unsigned long long)e->calls,
                s->rules[callers ? e->caller : e->callee].label);
    }
    if (n == 0) fputs("  (none)\n", out);
    free(v);
    return 0;
}

static int json_edges(const rep_summary *s, uint32_t rule, int callers, json_t *arr)
{
    size_t n;
    uint32_t *v = rule_edges(s, rule, callers, &n);
    if (!v) return -1;
    const rep_srule *r = &s->rules[rule];
    for (size_t i = 0; i < n; i++) {
        const rep_sedge *e = &s->edges[v[i]];
        json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:I, s:o}", "rule", r->label,
                                             callers ? "caller" : "callee",
                                             s->rules[callers ? e->caller : e->callee].label,
                                             "calls", (json_int_t)e->calls, "time_ns", (json_int_t)e->time_ns,
                                             "share", json_share(percent(e->time_ns, r->c.time_ns))));
    }
    free(v);
    return 0;
}

static int csv_edges(const rep_summary *s, uint32_t rule, int callers, FILE *out)
{
    size_t n;
    uint32_t *v = rule_edges(s, rule, callers, &n);
    if (!v) return -1;
    const rep_srule *r = &s->rules[rule];
    for (size_t i = 0; i < n; i++) {
        const rep_sedge *e = &s->edges[v[i]];
        fputs(callers ? "caller," : "callee,", out);
        rep_csv_field(out, r->label);
        fputc(',', out);
        rep_csv_field(out, s->rules[callers ? e->caller : e->callee].label);
        fprintf(out, ",%llu,%llu,%.1f\n", (unsigned long long)e->calls, (unsigned long long)e->time_ns,
                percent(e->time_ns, r->c.time_ns));
    }
    free(v);
    return 0;
}

/* ---- the whole output ---- */

static void text_head(const rep_summary *s, FILE *out)
{
    fprintf(out, "Pego profile: %llu process%s, %llu parse%s, %llu calls, %llu clock readings\n",
            (unsigned long long)s->processes, s->processes == 1 ? "" : "es", (unsigned long long)s->parses,
            s->parses == 1 ? "" : "s", (unsigned long long)s->calls, (unsigned long long)s->clock_reads);
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
            if (text_edges(s, v[i], 1, out) < 0 || text_edges(s, v[i], 0, out) < 0) return -1;
        return 0;
    }
    text_parses(s, t, out);
    hints h = { 0 };
    int rc = make_hints(s, &h);
    if (rc == 0) {
        fputs("What to look at:\n", out);
        for (size_t i = 0; i < h.n; i++) fprintf(out, "- %s\n", h.text[i]);
    }
    hints_free(&h);
    return rc;
}

static int print_json(const rep_summary *s, const rep_table_options *t, const uint32_t *v, size_t n, FILE *out)
{
    uint64_t self = total_self(s);
    json_t *grammars = json_array(), *rules = json_array();
    json_t *doc = json_pack("{s:{s:I, s:I, s:I, s:I, s:I}, s:o, s:o}", "totals",
                            "processes", (json_int_t)s->processes, "parses", (json_int_t)s->parses,
                            "calls", (json_int_t)s->calls, "clock_reads", (json_int_t)s->clock_reads,
                            "time_ns", (json_int_t)s->time_ns, "grammars", grammars, "rules", rules);
    if (!doc) return -1;
    for (size_t i = 0; i < s->ngrammars; i++) {
        const rep_sgrammar *g = &s->grammars[i];
        if (!g->used) continue;
        char hash[17];
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long)g->hash);
        json_array_append_new(grammars, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "name", g->name, "label",
                                                  g->label, "file", g->file, "hash", hash,
                                                  "parses", (json_int_t)g->parses, "bytes", (json_int_t)g->bytes));
    }
    for (size_t i = 0; i < n; i++) json_array_append_new(rules, json_rule(s, &s->rules[v[i]], self));
    int rc = 0;
    if (t->rule) {
        json_t *callers = json_array(), *callees = json_array();
        json_object_set_new(doc, "callers", callers);
        json_object_set_new(doc, "callees", callees);
        for (size_t i = 0; i < n && rc == 0; i++)
            if (json_edges(s, v[i], 1, callers) < 0 || json_edges(s, v[i], 0, callees) < 0) rc = -1;
    } else {
        json_t *parses = json_array(), *list = json_array();
        json_object_set_new(doc, "parses", parses);
        size_t np = parse_rows(s, t);
        for (size_t i = 0; i < np; i++) json_array_append_new(parses, json_parse(s, &s->top[i]));
        hints h = { 0 };
        rc = make_hints(s, &h);
        for (size_t i = 0; i < h.n; i++) json_array_append_new(list, json_string(h.text[i]));
        hints_free(&h);
        json_object_set_new(doc, "hints", list);
    }
    if (rc == 0 && json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) < 0) rc = -1;
    if (rc == 0) fputc('\n', out);
    json_decref(doc);
    return rc;
}

static int print_csv(const rep_summary *s, const rep_table_options *t, const uint32_t *v, size_t n, FILE *out)
{
    if (t->rule) {
        fputs("direction,rule,other,calls,time_ns,share\n", out);
        for (size_t i = 0; i < n; i++)
            if (csv_edges(s, v[i], 1, out) < 0 || csv_edges(s, v[i], 0, out) < 0) return -1;
    } else if (t->all_parses) {
        csv_parses(s, t, out);
    } else {
        csv_rules(s, v, n, out);
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
