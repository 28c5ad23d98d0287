/* The parser object and the parse entry point of the public API: resets the
 * reusable state, runs the VM, and exposes the result, its tree and its errors. */
#include "parser.h"
#include "alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int    rt_tree_write(pego_parser *p, uint32_t root, int json, pego_write_fn write, void *ctx);
size_t rt_tree_count(pego_parser *p, uint32_t root);

const char *pego_version(void) { return PEGO_VERSION; }

pego_parser *pego_parser_new(const pego_grammar *g)
{
    if (!g) return NULL;
    pego_parser *p = rt_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->g = g;
    p->res.parser = p;
    rt_profiler_init();
    return p;
}

void rt_parse_clear_result(pego_parser *p)
{
    pego_result *r = &p->res;
    if (r->error != r->abort_text) rt_free(r->error);
    rt_free(r->expected);
    memset(r, 0, sizeof *r);
    r->parser = p;
}

void rt_parse_unobserved_reference(pego_parser *p, pego_memo_policy policy, uint32_t max_depth)
{
    p->policy = policy;
    p->memory = 0;
    p->prof_on = 0;
    p->observing = 0;
    p->noplain = policy == PEGO_MEMO_ALL;
    p->fast = 0;
    p->counting = 0;
    p->counted = 0;
    p->defer = 0;
    p->max_depth = max_depth ? max_depth : PEGO_DEFAULT_MAX_DEPTH;
}

/* Ends a parse that stops for another reason than a syntax error: the message
 * becomes the result's error; the status stays EUSAGE or ENOMEM if already set. The text
 * needs no memory (abort_text). */
int rt_parse_abort(pego_parser *p, const char *fmt, ...)
{
    pego_result *r = &p->res;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->abort_text, sizeof r->abort_text, fmt, ap);
    va_end(ap);
    if (r->error != r->abort_text) rt_free(r->error);
    r->error = r->abort_text;
    r->error_message = r->error;
    if (r->status == PEGO_OK) r->status = PEGO_ABORTED;   /* EUSAGE and ENOMEM stay */
    return r->status;
}

/* Ends a parse that ran out of memory before it could run. */
static int out_of_memory(pego_parser *p)
{
    p->res.status = PEGO_ENOMEM;
    return rt_parse_abort(p, "out of memory");
}

void pego_parser_free(pego_parser *p)
{
    if (!p) return;
    rt_parse_clear_result(p);
    rt_free(p->es);
    rt_free(p->vs);
    rt_free(p->trail);
    rt_free(p->gf);
    rt_free(p->exp.items);
    rt_free(p->scratch);
    rt_free(p->trace_items);
    rt_profiler_parser_free(p);
    rt_free(p->counts);
    rt_free(p->site_runs);
    rt_free(p->chain_counts);
    rt_free(p->rule_counts);
    rt_sampler_free(&p->samples);
    rt_free(p->pf);
    pego_parser_free(p->prober);
    rt_free(p->rec);
    rt_free(p->held);
    rt_buf_free(&p->strings);
    rt_free(p->avals);
    rt_free(p->aiters);
    rt_free(p->akids);
    rt_free(p->vars);
    rt_free(p->vmarks);
    rt_free(p->env_vals);
    rt_free(p->env_first);
    rt_free(p->env_slots);
    rt_memo_free(&p->memo);
    rt_tree_free(&p->tree);
    rt_input_free(&p->in);
    pego_parser_free(p->stream.runner[0]);
    pego_parser_free(p->stream.runner[1]);
    rt_free(p->stream.buf);
    rt_free(p->stream.exp_items);
    rt_free(p->stream.es);
    rt_free(p->stream.vmarks);
    rt_free(p->stream.vs);
    rt_free(p->stream.trail);
    rt_free(p->stream.vars);
    rt_free(p->stream.gf);
    rt_free(p);
}

/* Zeroed counters for a counting parse, and the unit of every position when
 * the parse counts in characters. */
static int prepare_counts(pego_parser *p)
{
    const pego_grammar *g = p->g;
    if (!p->counts) {
        p->counts = rt_calloc(2 * (size_t)g->nrules + 1, sizeof *p->counts);
        p->site_runs = rt_calloc((size_t)g->nsites + 1, sizeof *p->site_runs);
        p->chain_counts = rt_calloc((size_t)g->nchains + 1, sizeof *p->chain_counts);
        p->rule_counts = rt_calloc((size_t)g->nrules + 1, sizeof *p->rule_counts);
        if (!p->counts || !p->site_runs || !p->chain_counts || !p->rule_counts) {
            rt_free(p->counts);
            rt_free(p->site_runs);
            rt_free(p->chain_counts);
            rt_free(p->rule_counts);
            p->counts = NULL;
            p->site_runs = NULL;
            p->chain_counts = NULL;
            p->rule_counts = NULL;
            return -1;
        }
    }
    memset(p->counts, 0, 2 * (size_t)g->nrules * sizeof *p->counts);
    memset(p->site_runs, 0, (size_t)g->nsites * sizeof *p->site_runs);
    memset(p->chain_counts, 0, (size_t)g->nchains * sizeof *p->chain_counts);
    return 0;
}

/* Folds a counted parse's counters into figures per rule (p->rule_counts), in
 * one pass: each rule's two variants, the chains compiled in that it is part
 * of, and the calls the counting sites stand for, once per run of the site. */
static void fold_counts(pego_parser *p)
{
    const pego_grammar *g = p->g;
    vm_count *out = p->rule_counts;
    memset(out, 0, (size_t)g->nrules * sizeof *out);
    for (int k = 0; k < 2 * g->nrules; k++) {
        const vm_count *c = &p->counts[k];
        vm_count *o = &out[k % g->nrules];
        uint64_t plain = c->plain_matched + c->plain_failed;
        o->calls += plain + c->calls;
        o->evals += plain + c->evals;
        o->memo += c->memo;
        o->matched += c->plain_matched + c->matched;
        o->failed += c->plain_failed + c->failed;
        o->consumed += c->consumed;
    }
    for (uint32_t k = 0; k < g->nchains; k++) {
        const cc_chain *ch = &g->chains[k];
        const vm_chain_count *c = &p->chain_counts[k];
        if (ch->fail_site >= 0) p->site_runs[ch->fail_site] += c->entered - c->matched;
        for (uint32_t i = 0; i < ch->n; i++) {
            vm_count *o = &out[g->chain_rules[ch->first + i]];
            o->calls += c->entered + c->spans;
            o->evals += c->entered + c->spans;
            o->matched += c->matched + c->spans;
            o->failed += c->entered - c->matched;
            o->consumed += c->consumed;
        }
    }
    for (uint32_t s = 0; s < g->nsites; s++) {
        uint64_t runs = p->site_runs[s];
        if (!runs) continue;
        const cc_site *site = &g->sites[s];
        for (uint32_t k = 0; k < site->n; k++) {
            const cc_site_call *c = &g->site_calls[site->first + k];
            vm_count *o = &out[c->rule];
            o->calls += runs * (c->matched + c->failed);
            o->evals += runs * (c->matched + c->failed);
            o->matched += runs * c->matched;
            o->failed += runs * c->failed;
        }
    }
}

const vm_count *rt_parse_counts(const pego_parser *p) { return p->counted ? p->rule_counts : NULL; }

/* The statistics of a counted parse, from its figures per rule: the memo
 * table's are those of the run, whose general path decides the same calls as
 * the reference program's. */
static void count_stats(pego_parser *p)
{
    pego_stats *st = &p->res.stats;
    st->calls = st->evals = st->memo_hits = 0;
    for (int r = 0; r < p->g->nrules; r++) {
        st->calls += p->rule_counts[r].calls;
        st->evals += p->rule_counts[r].evals;
        st->memo_hits += p->rule_counts[r].memo;
    }
}

pego_status pego_parse(pego_parser *p, const char *input, size_t len,
                       const pego_options *opt, const pego_result **out)
{
    static const pego_options defaults = { 0 };
    const pego_grammar *g = p->g;
    if (!opt) opt = &defaults;
    rt_parse_clear_result(p);
    if (out) *out = &p->res;
    const char *start = opt->start_rule ? opt->start_rule : "main";
    int rule = pego_grammar_rule_index(g, start);
    if (rule < 0) {
        p->res.status = PEGO_EUSAGE;
        return (pego_status)rt_parse_abort(p, "undefined rule %s", start);
    }
    if (len > PEGO_MAX_INPUT) {
        p->res.status = PEGO_EUSAGE;
        return (pego_status)rt_parse_abort(p, "input too large: %zu bytes (the limit is 4 GiB)", len);
    }
    rt_input_reset(&p->in, input ? input : "", (uint32_t)len, opt->unit);
    __atomic_store_n(&p->progress, 0, __ATOMIC_RELAXED);
    p->policy = opt->memo;
    /* room for the sorted items of any trace event (pego_trace_failure_item) */
    if (p->ntrace && rt_buf_grow((void **)&p->trace_items, &p->cap_trace_items, (uint64_t)g->nexpects,
                             sizeof *p->trace_items) < 0)
        return (pego_status)out_of_memory(p);
    p->memory = 0;                            /* rt_profiler_parse_begin sets it */
    p->prof_on = p->internal ? 0 : rt_profiler_parse_begin(p);
    uint32_t max_depth = opt->max_depth ? opt->max_depth : PEGO_DEFAULT_MAX_DEPTH;
    /* A sampled profile runs the profiled program where it can count the
     * parse (a fast program, the default memo policy, no trace sink); else the
     * reference program, whose call path counts for the profiler. */
    int fast_ok = g->has_fast && !opt->reference && max_depth > g->fast_reserve;
    int sampled_fast = p->prof_on && rt_profiler_sampled(p) && fast_ok && !p->ntrace &&
                       opt->memo == PEGO_MEMO_DEFAULT;
    p->observing = p->ntrace > 0 || (p->prof_on && !sampled_fast);
    p->noplain = opt->memo == PEGO_MEMO_ALL || p->observing;
    uint32_t variant = opt->recognize ? (uint32_t)CC_VF(g, rule) : (uint32_t)rule;
    /* An unobserved parse runs the fast program first. It keeps levels of
     * nesting in reserve, for the calls it compiles into their callers or skips,
     * so that it never succeeds where the reference program would stop at the
     * limit.
     * A syntax error or the limit is decided by the reference program, which
     * also writes the error message: a syntax error, by the deciding run when
     * it can (below). Out of memory ends the parse: the reference program
     * needs at least the memory the fast program ran out of.
     * Counting runs the profiled program instead, with the default memo policy
     * (the one it counts the reference program's calls for). Statistics asked
     * for with another policy are counted by the reference program as it
     * parses, rather than by a second parse afterwards (pego_result_stats). */
    int fast = fast_ok && !p->observing && !(opt->count_stats && opt->memo != PEGO_MEMO_DEFAULT);
    int count = fast && (sampled_fast || opt->count_stats);
    /* A syntax error of the fast program is decided by the deciding run
     * (vm/decide.c): the reference program, value-free, with probes of the fast
     * program standing for the calls that cannot change the error. When its
     * result is not exact, it runs again with a lower bound, and then the
     * reference program decides. A counting run that ends in a syntax error
     * has counted it: its counts stand, whichever run writes the error. */
    int decide = fast;
    p->counted = 0;
    p->fast_gave_up = 0;
    int status = PEGO_SYNTAX_ERROR, decided = 0;
    uint32_t bound = 0;
    pego_stats run_memo = { 0 };      /* the memo table's figures of a counted run */
    if (count && prepare_counts(p) < 0) status = out_of_memory(p);
    /* pass 0: the fast program; 1 and 2: the deciding run; 3: the reference program */
    for (int pass = fast ? 0 : 3; pass < 4 && !decided && status != PEGO_OK && status != PEGO_ENOMEM; pass++) {
        if (pass == 1) {
            /* a parse the fast program gave up recovers: the reference program's */
            if (!decide || status != PEGO_SYNTAX_ERROR || p->gave_up) continue;
            bound = __atomic_load_n(&p->progress, __ATOMIC_RELAXED);
        } else if (pass == 2) {
            /* a lower bound, or fewer claims (vm/decide.c) */
            if (!decide || status != PEGO_SYNTAX_ERROR || (p->exp.far >= bound && !p->decider.claimed)) continue;
            bound = p->exp.far;
        }
        if (pass) rt_parse_clear_result(p);
        if (pass && p->counted) {
            /* the runs that find a counted syntax error count nothing, and
             * the samples taken while they run belong to no rule */
            p->sampled = 0;
            p->sample_top = 0;
            p->sample_ip = NULL;
        }
        if (pass == 3 && sampled_fast && !p->counted) {   /* not counted: on the reference program's call path */
            p->observing = 1;
            p->noplain = 1;
        }
        rt_tree_reset(&p->tree);
        rt_buf_reset(&p->strings);
        rt_memo_reset(&p->memo);
        p->memo.extent = (uint32_t)len;
        p->exp.far = p->exp.base = p->exp.n = 0;
        p->exp.oom = 0;
        p->fast = pass == 0;
        p->counting = p->fast && count;
        p->max_depth = p->fast ? max_depth - g->fast_reserve : max_depth;
        p->defer = opt->memo == PEGO_MEMO_DEFAULT && !p->noplain && g->ndeferrable;
        if (g->ndeferrable && opt->memo == PEGO_MEMO_DEFAULT &&
            rt_memo_seen_prepare(&p->memo, 0, ((size_t)len + 1) * (size_t)g->ndeferrable) < 0) {
            status = out_of_memory(p);
            break;
        }
        if (pass == 1 || pass == 2) {
            status = vm_decide(p, (uint32_t)CC_VF(g, rule), bound, pass == 1, &decided);
            if (decided) {
                decided = pass;
                continue;
            }
            if (status != PEGO_SYNTAX_ERROR) bound = 0;   /* ended otherwise: no second run */
            status = PEGO_SYNTAX_ERROR;                   /* not decided: on to the next pass */
            continue;
        }
        if (pass == 0 && decide) vm_claims_arm(p);
        status = vm_run(p, variant);
        if (pass == 0) {
            p->fast_gave_up = p->gave_up;
            /* a parse that gave up at a recovery counted nothing past it */
            p->counted = p->counting && (status == PEGO_OK || (status == PEGO_SYNTAX_ERROR && !p->gave_up));
            run_memo.memo_stored = p->res.stats.memo_stored;
            run_memo.rules_memoized = p->memo.rules_used;
        }
        p->counting = 0;
    }
    if (p->exp.oom && status != PEGO_ENOMEM) {   /* the errors or the trace would be wrong */
        rt_parse_clear_result(p);
        p->res.status = PEGO_ENOMEM;
        status = rt_parse_abort(p, "out of memory");
    }
    p->decided = decided;
    p->res.stats.fast_program = p->fast;
    p->fast = 0;
    p->res.stats.rules_memoized = p->memo.rules_used;
    /* should the reference program stop at the nesting limit where the
     * profiled program found a syntax error, the counts describe another
     * parse: none are kept */
    if (p->counted && status != PEGO_OK && status != PEGO_SYNTAX_ERROR) p->counted = 0;
    if (p->counted) {
        fold_counts(p);
        count_stats(p);
        p->res.stats.memo_stored = run_memo.memo_stored;
        p->res.stats.rules_memoized = run_memo.rules_memoized;
    }
    if (status == PEGO_ABORTED && p->ntrace) rt_trace_parse_aborted(p);
    if (p->prof_on) rt_profiler_parse_end(p, opt->input_name, len);
    if (status == PEGO_OK) {
        p->res.status = PEGO_OK;
        p->res.has_value = !opt->recognize;
        p->res.nrecovered = p->nrec;
    }
    /* statistics the run did not count: a match found by the fast program, or
     * an error the deciding run decided */
    if (!p->counted && ((status == PEGO_OK && p->res.stats.fast_program) || (decided && status == PEGO_SYNTAX_ERROR))) {
        p->res.stats_pending = 1;
        p->res.stats_opt = *opt;
        p->res.stats_opt.reference = 1;
        p->res.stats_opt.input_name = NULL;
    }
    return p->res.status;
}

pego_status pego_result_status(const pego_result *r) { return r->status; }

/* The statistics describe the reference program, the grammar's calls as written,
 * whichever program found the match or decided the error: the same counts with
 * tracing or profiling on and off. A match found by the fast program, or an
 * error the deciding run decided, is parsed again, once, by the reference
 * program on a parser of its own (the result's tree stays intact). */
const pego_stats *pego_result_stats(const pego_result *r)
{
    pego_result *m = (pego_result *)r;     /* a cache filled on first use; results are not shared */
    if (m->stats_pending) {
        m->stats_pending = 0;
        pego_parser *q = pego_parser_new(m->parser->g);
        if (q) {
            const pego_result *qr;
            q->internal = 1;
            if (pego_parse(q, m->parser->in.input, m->parser->in.len, &m->stats_opt, &qr) == m->status) {
                m->stats = qr->stats;
                m->stats.fast_program = m->status == PEGO_OK;
            }
            pego_parser_free(q);
        }
    }
    return &r->stats;
}
const char *pego_result_error(const pego_result *r) { return r->error; }
uint64_t pego_result_error_offset(const pego_result *r) { return rt_input_unit(&r->parser->in, r->error_pos); }
int pego_result_error_line(const pego_result *r) { return r->error_line; }
int pego_result_error_column(const pego_result *r) { return r->error_col; }
size_t pego_result_expected_count(const pego_result *r) { return r->nexpected; }
const char *pego_result_expected(const pego_result *r, size_t i) { return r->expected[i]; }
const char *pego_result_error_message(const pego_result *r) { return r->error_message; }
int pego_result_has_value(const pego_result *r) { return r->status == PEGO_OK && r->has_value; }

size_t pego_result_recovered_count(const pego_result *r) { return r->status == PEGO_OK ? r->nrecovered : 0; }

const char *pego_result_recovered_error(const pego_result *r, size_t i)
{
    if (i >= pego_result_recovered_count(r)) return NULL;
    return r->parser->strings.data + r->parser->rec[i].text;
}

const pego_node *pego_result_tree(const pego_result *r)
{
    if (r->status != PEGO_OK || r->value == VAL_NIL) return NULL;
    return &r->parser->tree.nodes[r->value - 1];
}

size_t pego_result_node_count(const pego_result *r)
{
    if (r->status != PEGO_OK) return 0;
    return rt_tree_count(r->parser, r->value);
}

/* rt_tree_write's form of a print format. */
static int print_form(pego_print_format format)
{
    return format == PEGO_PRINT_JSON ? 1 : format == PEGO_PRINT_JSON_COMPACT ? 2 : 0;
}

int pego_result_write(const pego_result *r, pego_print_format format, pego_write_fn write, void *ctx)
{
    if (r->status != PEGO_OK) return -1;
    return rt_tree_write(r->parser, r->value, print_form(format), write, ctx);
}

/* The writer of pego_result_print: appends to a buffer. */
static int append(const char *data, size_t len, void *ctx)
{
    rt_buf *b = ctx;
    rt_buf_add(b, data, len);
    return b->oom ? -1 : 0;
}

char *pego_result_print(const pego_result *r, pego_print_format format)
{
    rt_buf b;
    rt_buf_init(&b);
    if (pego_result_write(r, format, append, &b)) {
        rt_buf_free(&b);
        return NULL;
    }
    return rt_buf_take(&b);
}

char *pego_node_print(const pego_result *r, const pego_node *n, pego_print_format format)
{
    rt_buf b;
    rt_buf_init(&b);
    uint32_t v = n ? (uint32_t)(n - r->parser->tree.nodes) + 1 : VAL_NIL;
    if (rt_tree_write(r->parser, v, print_form(format), append, &b)) {
        rt_buf_free(&b);
        return NULL;
    }
    return rt_buf_take(&b);
}

int pego_result_line_col(const pego_result *r, uint64_t pos, int *line, int *col)
{
    rt_input *in = &r->parser->in;
    /* convert a unit position back to a byte offset by binary search */
    uint32_t lo = in->base, hi = in->len;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rt_input_unit(in, mid) < pos) lo = mid + 1; else hi = mid;
    }
    if (rt_input_unit(in, lo) != pos) return -1;
    rt_input_line_col(in, lo, line, col);
    return 0;
}

/* ---- node accessors ---- */

static const rt_tree *tree_of(const pego_result *r) { return &r->parser->tree; }

pego_node_kind pego_node_type(const pego_result *r, const pego_node *n)
{
    (void)r;
    return (pego_node_kind)rt_tree_node_kind(n);
}

const char *pego_node_type_name(const pego_result *r, const pego_node *n)
{
    return rt_tree_type_name(tree_of(r), r->parser->g, n);
}

const char *pego_node_rule(const pego_result *r, const pego_node *n)
{
    return rt_tree_node_label(n) >= 0 ? r->parser->g->rules[rt_tree_node_label(n)].name : NULL;
}

uint64_t pego_node_start(const pego_result *r, const pego_node *n) { return rt_input_unit(&r->parser->in, n->start); }
uint64_t pego_node_end(const pego_result *r, const pego_node *n) { return rt_input_unit(&r->parser->in, n->end); }

const char *pego_node_text(const pego_result *r, const pego_node *n, size_t *len)
{
    if (len) *len = n->end - n->start;
    return r->parser->in.input + n->start;
}

size_t pego_node_child_count(const pego_result *r, const pego_node *n) { return rt_tree_node_nkids(tree_of(r), n); }

const pego_node *pego_node_child(const pego_result *r, const pego_node *n, size_t i)
{
    const rt_tree *t = tree_of(r);
    if (i >= rt_tree_node_nkids(t, n)) return NULL;
    uint32_t v = t->kids[n->kids + i];
    return v ? &t->nodes[v - 1] : NULL;
}

/* Field i of node n, or NULL when it has fewer. */
static const rt_field *field_at(const pego_result *r, const pego_node *n, size_t i)
{
    const rt_tree *t = tree_of(r);
    uint32_t first, count = rt_tree_fields(t, n, &first);
    return i < count ? &t->fields[first + i] : NULL;
}

size_t pego_node_field_count(const pego_result *r, const pego_node *n)
{
    uint32_t first;
    return rt_tree_fields(tree_of(r), n, &first);
}

const char *pego_node_field_name(const pego_result *r, const pego_node *n, size_t i)
{
    const rt_field *f = field_at(r, n, i);
    return f ? r->parser->g->labels[f->label] : NULL;
}

const pego_node *pego_node_field_value(const pego_result *r, const pego_node *n, size_t i)
{
    const rt_field *f = field_at(r, n, i);
    if (!f || f->kind != FIELD_NODE) return NULL;
    return f->value ? &tree_of(r)->nodes[(uint32_t)f->value - 1] : NULL;
}

int pego_node_field_int(const pego_result *r, const pego_node *n, size_t i, int64_t *value)
{
    const rt_field *f = field_at(r, n, i);
    if (!f || f->kind != FIELD_INT) return 0;
    *value = (int64_t)f->value;
    return 1;
}

int pego_node_field_text(const pego_result *r, const pego_node *n, size_t i, const char **value, size_t *len)
{
    const rt_field *f = field_at(r, n, i);
    if (!f || f->kind != FIELD_STRING) return 0;
    *value = r->parser->strings.data + FIELD_STRING_OFF(f->value);
    if (len) *len = FIELD_STRING_LEN(f->value);
    return 1;
}

int pego_node_field_string(const pego_result *r, const pego_node *n, size_t i, const char **value)
{
    return pego_node_field_text(r, n, i, value, NULL);
}

int pego_node_field_bool(const pego_result *r, const pego_node *n, size_t i, int *value)
{
    const rt_field *f = field_at(r, n, i);
    if (!f || f->kind != FIELD_BOOL) return 0;
    *value = f->value != 0;
    return 1;
}

pego_field_kind pego_node_field_kind(const pego_result *r, const pego_node *n, size_t i)
{
    const rt_field *f = field_at(r, n, i);
    static const pego_field_kind kinds[] = { [FIELD_NODE] = PEGO_FIELD_NODE, [FIELD_INT] = PEGO_FIELD_INT,
                                             [FIELD_STRING] = PEGO_FIELD_STRING, [FIELD_BOOL] = PEGO_FIELD_BOOL };
    return f ? kinds[f->kind] : PEGO_FIELD_NODE;
}

long pego_node_field_index(const pego_result *r, const pego_node *n, const char *name)
{
    size_t count = pego_node_field_count(r, n);
    for (size_t i = 0; i < count; i++)
        if (strcmp(pego_node_field_name(r, n, i), name) == 0) return (long)i;
    return -1;
}

const pego_node *pego_node_field(const pego_result *r, const pego_node *n, const char *name)
{
    long i = pego_node_field_index(r, n, name);
    return i < 0 ? NULL : pego_node_field_value(r, n, (size_t)i);
}

size_t pego_parser_progress(const pego_parser *p)
{
    return __atomic_load_n(&p->progress, __ATOMIC_RELAXED);
}
