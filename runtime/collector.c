/* The collector (pego_collector), what `pego profile` prints: an ordinary trace
 * sink that adds up, per rule name, what the calls of any number of parses did
 * (calls, evaluations, memo hits, outcomes, repeated evaluations, consumed and
 * wasted input) and where the time went (inclusive time of the outermost active
 * call of a rule, self time), and turns the totals into a few hints (docs/debugging.md,
 * The hints). The process-wide profiler of --profile and PEGO_FLAGS is
 * runtime/profiler.c. */
#include "buf.h"
#include "pego.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HINT_EXAMINED   16   /* a failed call that examined this many positions is worth a look */
#define HINT_MAX_RULES  3    /* rules named per hint */

typedef struct {
    char    *name;
    pego_collector_rule r;        /* r.name points to name */
    uint32_t active;              /* calls of the rule in progress */
    /* the parses of the most evaluations at a position and of the longest failed call */
    uint64_t max_evals_parse, longest_fail_parse;
} rule_entry;

typedef struct {
    uint32_t rule;
    uint32_t outermost;           /* no other call of the rule was active at its start */
    uint64_t start_ns, nested_ns;
} call_frame;

/* How often a rule was evaluated at a (position, level) in the current parse.
 * A slot belongs to the current parse when its generation is the collector's. */
typedef struct {
    uint64_t pos;
    uint32_t rule, gen;
    int32_t  level;
    uint32_t count;
} seen_entry;

/* The rule index of a grammar's rule id, valid during the parse of its generation. */
typedef struct {
    uint32_t rule, gen;
} id_entry;

struct pego_collector {
    rule_entry *rules;    size_t nrules; uint32_t caprules;
    uint32_t   *byname;   size_t capbyname;     /* open addressing: rule index + 1, 0 empty */
    id_entry   *byid;     uint32_t capbyid;
    call_frame *stack;    size_t nstack; uint32_t capstack;
    seen_entry *seen;     size_t nseen, capseen;
    uint32_t    gen;                            /* the current parse's generation */
    pego_collector_totals t;
    uint64_t    parse_examined;                 /* examined by the current parse */
    uint64_t    parse_evals;                    /* evaluations its calls that ended gave */
    int         oom;                            /* an allocation failed: counts are incomplete */
    rt_buf      hint_text;                      /* the hints' strings, each NUL-terminated */
    const char **hints;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

pego_collector *pego_collector_new(void)
{
    pego_collector *c = rt_calloc(1, sizeof *c);
    if (!c) return NULL;
    c->gen = 1;
    rt_buf_init(&c->hint_text);
    return c;
}

void pego_collector_reset(pego_collector *c)
{
    for (size_t i = 0; i < c->nrules; i++) rt_free(c->rules[i].name);
    c->nrules = 0;
    if (c->byname) memset(c->byname, 0, c->capbyname * sizeof *c->byname);
    if (c->byid) memset(c->byid, 0, c->capbyid * sizeof *c->byid);
    if (c->seen) memset(c->seen, 0, c->capseen * sizeof *c->seen);
    c->nstack = c->nseen = 0;
    c->gen = 1;
    memset(&c->t, 0, sizeof c->t);
    c->parse_examined = 0;
    c->oom = 0;
}

void pego_collector_free(pego_collector *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->nrules; i++) rt_free(c->rules[i].name);
    rt_free(c->rules);
    rt_free(c->byname);
    rt_free(c->byid);
    rt_free(c->stack);
    rt_free(c->seen);
    rt_free(c->hints);
    rt_buf_free(&c->hint_text);
    rt_free(c);
}

/* ---- collecting ---- */

/* The index of a rule by name, added when new; -1 when out of memory. */
static long rule_by_name(pego_collector *c, const char *name)
{
    if (c->nrules * 2 >= c->capbyname) {
        size_t cap = c->capbyname ? c->capbyname * 2 : 64;
        uint32_t *t = rt_calloc(cap, sizeof *t);
        if (!t) return -1;
        for (size_t i = 0; i < c->nrules; i++) {
            size_t k = hash_name(c->rules[i].name) & (cap - 1);
            while (t[k]) k = (k + 1) & (cap - 1);
            t[k] = (uint32_t)i + 1;
        }
        rt_free(c->byname);
        c->byname = t;
        c->capbyname = cap;
    }
    size_t k = hash_name(name) & (c->capbyname - 1);
    for (; c->byname[k]; k = (k + 1) & (c->capbyname - 1))
        if (strcmp(c->rules[c->byname[k] - 1].name, name) == 0) return (long)c->byname[k] - 1;
    if (rt_buf_grow((void **)&c->rules, &c->caprules, c->nrules + 1, sizeof *c->rules) < 0) return -1;
    rule_entry *r = &c->rules[c->nrules];
    memset(r, 0, sizeof *r);
    r->name = rt_strdup(name);
    if (!r->name) return -1;
    r->r.name = r->name;
    c->byname[k] = (uint32_t)++c->nrules;
    return (long)c->nrules - 1;
}

/* The index of an event's rule: looked up by name once per rule id and parse. */
static long rule_of(pego_collector *c, const pego_trace_event *ev)
{
    size_t id = (size_t)ev->rule_id;
    if (id >= c->capbyid) {
        size_t old = c->capbyid;
        if (rt_buf_grow((void **)&c->byid, &c->capbyid, id + 1, sizeof *c->byid) < 0) return -1;
        memset(c->byid + old, 0, (c->capbyid - old) * sizeof *c->byid);
    }
    id_entry *slot = &c->byid[id];
    if (slot->gen != c->gen) {
        long r = rule_by_name(c, ev->rule);
        if (r < 0) return -1;
        slot->rule = (uint32_t)r;
        slot->gen = c->gen;
    }
    return (long)slot->rule;
}

/* A new parse starts: what the last one left (calls an abort ended without an
 * exit event) is dropped, and the positions seen are forgotten. */
static void start_parse(pego_collector *c)
{
    while (c->nstack) c->rules[c->stack[--c->nstack].rule].active--;
    c->t.examined += c->parse_examined;
    c->parse_examined = 0;
    c->parse_evals = 0;
    c->t.parses++;
    c->nseen = 0;
    if (++c->gen == 0) {        /* generations wrapped: clear for real */
        memset(c->byid, 0, c->capbyid * sizeof *c->byid);
        memset(c->seen, 0, c->capseen * sizeof *c->seen);
        c->gen = 1;
    }
}

/* Moves the positions seen at or after before to a table of cap slots; -1
 * when out of memory (the table stays). */
static int reseat(pego_collector *c, size_t cap, uint64_t before)
{
    seen_entry *t = rt_calloc(cap, sizeof *t);
    if (!t) return -1;
    size_t n = 0;
    for (size_t i = 0; i < c->capseen; i++) {
        seen_entry *s = &c->seen[i];
        if (s->gen != c->gen || s->pos < before) continue;
        size_t k = ((s->pos * 0x9E3779B97F4A7C15u) ^ (s->rule * 0x85EBCA6Bu) ^ (uint32_t)s->level) & (cap - 1);
        while (t[k].gen == c->gen) k = (k + 1) & (cap - 1);
        t[k] = *s;
        n++;
    }
    rt_free(c->seen);
    c->seen = t;
    c->capseen = cap;
    c->nseen = n;
    return 0;
}

/* Counts an evaluation of rule at (pos, level); returns how many this parse has
 * seen there, this one included, or 0 when out of memory. */
static uint32_t count_evaluation(pego_collector *c, uint32_t rule, uint64_t pos, int level)
{
    if ((c->nseen + 1) * 2 > c->capseen && reseat(c, c->capseen ? c->capseen * 2 : 1024, 0) < 0) return 0;
    size_t mask = c->capseen - 1;
    size_t k = ((pos * 0x9E3779B97F4A7C15u) ^ (rule * 0x85EBCA6Bu) ^ (uint32_t)level) & mask;
    for (;; k = (k + 1) & mask) {
        seen_entry *s = &c->seen[k];
        if (s->gen != c->gen) {
            *s = (seen_entry){ .pos = pos, .rule = rule, .gen = c->gen, .level = level, .count = 1 };
            c->nseen++;
            return 1;
        }
        if (s->pos == pos && s->rule == rule && s->level == level) return ++s->count;
    }
}

static void call_entered(pego_collector *c, const pego_trace_event *ev, uint64_t now)
{
    if (ev->depth == 1) start_parse(c);
    long rule = rule_of(c, ev);
    if (rule < 0 || rt_buf_grow((void **)&c->stack, &c->capstack, c->nstack + 1, sizeof *c->stack) < 0) {
        c->oom = 1;
        return;
    }
    rule_entry *r = &c->rules[rule];
    c->stack[c->nstack++] = (call_frame){ .rule = (uint32_t)rule, .outermost = r->active++ == 0,
                                          .start_ns = now };
    r->r.calls++;
    c->t.calls++;
}

/* Pops the innermost call and gives it its time to now. */
static rule_entry *pop_call(pego_collector *c, uint64_t now)
{
    call_frame f = c->stack[--c->nstack];
    rule_entry *r = &c->rules[f.rule];
    uint64_t incl = now - f.start_ns;
    r->active--;
    r->r.self_ns += incl - f.nested_ns;
    if (f.outermost) r->r.time_ns += incl;
    if (c->nstack) c->stack[c->nstack - 1].nested_ns += incl;
    else c->t.time_ns += incl;
    return r;
}

static void call_exited(pego_collector *c, const pego_trace_event *ev, uint64_t now)
{
    if (c->nstack == 0) return;      /* its enter was not seen */
    rule_entry *r = pop_call(c, now);
    if (ev->examined > c->parse_examined) c->parse_examined = ev->examined;
    r->r.evals += ev->evals;
    c->t.evals += ev->evals;
    c->parse_evals += ev->evals;
    if (ev->memo) {
        r->r.memo++;
        c->t.memo_hits++;
    }
    if (ev->matched) {
        r->r.matched++;
        r->r.consumed += ev->end - ev->pos;
    } else {
        r->r.failed++;
    }
    if (ev->memo) return;
    /* an evaluating call */
    if (!ev->matched) {
        uint64_t examined = ev->examined > ev->pos ? ev->examined - ev->pos : 0;
        r->r.wasted += examined;
        if (examined > r->r.longest_fail) {
            r->r.longest_fail = examined;
            r->r.longest_fail_pos = ev->pos;
            r->longest_fail_parse = c->t.parses;
            pego_trace_line_col(ev, ev->pos, &r->r.longest_fail_line, &r->r.longest_fail_col);
        }
    }
    uint32_t n = count_evaluation(c, (uint32_t)(r - c->rules), ev->pos, ev->level);
    if (n == 0) {
        c->oom = 1;
        return;
    }
    if (n > r->r.max_evals) {
        r->r.max_evals = n;
        r->r.max_evals_pos = ev->pos;
        r->max_evals_parse = c->t.parses;
        pego_trace_line_col(ev, ev->pos, &r->r.max_evals_line, &r->r.max_evals_col);
        if (n > 1) {
            r->r.max_repeats = n - 1;
            r->r.max_repeats_pos = ev->pos;
        }
    }
    if (n > 1) r->r.repeats++;
}

static int collector_event(const pego_trace_event *ev, void *userdata)
{
    pego_collector *c = userdata;
    uint64_t now = now_ns();
    if (c->oom) return 0;
    if (ev->kind == PEGO_TRACE_ENTER) call_entered(c, ev, now);
    else if (ev->kind == PEGO_TRACE_EXIT) call_exited(c, ev, now);
    /* a stream's MARK and AGAIN are ignored: the calls of a run given up count too */
    return 0;
}

/* Closes the calls an aborted parse left without exit events, as the profiler
 * does (runtime/profiler.c, close_calls): their time runs to now, the
 * evaluations they began go to them from the outermost, and the input they
 * examined counts, so that the rules add up to the parse. */
static void close_calls(pego_collector *c, uint64_t now, uint64_t parse_evals, uint64_t examined)
{
    uint64_t begun = parse_evals > c->parse_evals ? parse_evals - c->parse_evals : 0;
    for (size_t i = 0; i < c->nstack; i++) {
        rule_entry *r = &c->rules[c->stack[i].rule];
        uint64_t e = i + 1 == c->nstack ? begun : begun > 0;   /* the innermost takes what is left */
        r->r.evals += e;
        c->t.evals += e;
        begun -= e;
    }
    while (c->nstack) pop_call(c, now);
    if (examined > c->parse_examined) c->parse_examined = examined;
}

void rt_collector_parse_aborted(pego_trace_fn fn, void *userdata, uint64_t parse_evals, uint64_t examined)
{
    pego_collector *c = userdata;
    if (fn == collector_event && !c->oom) close_calls(c, now_ns(), parse_evals, examined);
}

void rt_collector_input_released(pego_trace_fn fn, void *userdata, uint64_t before)
{
    pego_collector *c = userdata;
    /* out of memory, the positions stay: the counts stay right, the memory grows */
    if (fn == collector_event && c->nseen) (void)reseat(c, c->capseen, before);
}

size_t rt_collector_positions(const pego_collector *c) { return c->nseen; }

int pego_parser_add_collector(pego_parser *p, pego_collector *c)
{
    if (!c) return -1;
    return pego_parser_set_trace(p, collector_event, c);
}

int pego_parser_remove_collector(pego_parser *p, pego_collector *c)
{
    return pego_parser_remove_trace(p, collector_event, c);
}

int pego_document_add_collector(pego_document *d, pego_collector *c)
{
    if (!c) return -1;
    return pego_document_set_trace(d, collector_event, c);
}

int pego_document_remove_collector(pego_document *d, pego_collector *c)
{
    return pego_document_remove_trace(d, collector_event, c);
}

/* ---- reading ---- */

size_t pego_collector_rule_count(const pego_collector *c) { return c->nrules; }

int pego_collector_get_rule(const pego_collector *c, size_t i, pego_collector_rule *out)
{
    if (i >= c->nrules) return -1;
    *out = c->rules[i].r;
    return 0;
}

int pego_collector_find_rule(const pego_collector *c, const char *name, pego_collector_rule *out)
{
    if (!c->capbyname) return -1;
    size_t mask = c->capbyname - 1;
    for (size_t k = hash_name(name) & mask; c->byname[k]; k = (k + 1) & mask) {
        const rule_entry *r = &c->rules[c->byname[k] - 1];
        if (strcmp(r->name, name) == 0) {
            *out = r->r;
            return 0;
        }
    }
    return -1;
}

void pego_collector_get_totals(const pego_collector *c, pego_collector_totals *out)
{
    *out = c->t;
    out->examined += c->parse_examined;
}

/* ---- hints ---- */

/* The orders of the hints: largest first; ties keep the order of the rules'
 * first calls. */
typedef int (*rule_order)(const rule_entry *a, const rule_entry *b);

static int larger(uint64_t a, uint64_t b) { return a != b ? (a > b ? -1 : 1) : 0; }
static int by_self(const rule_entry *a, const rule_entry *b) { return larger(a->r.self_ns, b->r.self_ns); }
static int by_repeats(const rule_entry *a, const rule_entry *b) { return larger(a->r.repeats, b->r.repeats); }
static int by_longest_fail(const rule_entry *a, const rule_entry *b) { return larger(a->r.longest_fail, b->r.longest_fail); }
static int by_wasted(const rule_entry *a, const rule_entry *b) { return larger(a->r.wasted, b->r.wasted); }

/* Picks the (at most HINT_MAX_RULES) first rules by order among those that
 * pass; returns how many were picked. */
static size_t pick(const pego_collector *c, int (*pass)(const pego_collector *, const rule_entry *),
                   rule_order order, const rule_entry **best)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nrules; i++) {
        const rule_entry *r = &c->rules[i];
        if (!pass(c, r)) continue;
        size_t j = n < HINT_MAX_RULES ? n++ : HINT_MAX_RULES;
        while (j > 0 && order(r, best[j - 1]) < 0) {
            if (j < HINT_MAX_RULES) best[j] = best[j - 1];
            j--;
        }
        if (j < HINT_MAX_RULES) best[j] = r;
    }
    return n;
}

static uint64_t examined(const pego_collector *c) { return c->t.examined + c->parse_examined; }

static int has_self(const pego_collector *c, const rule_entry *r) { (void)c; return r->r.self_ns > 0; }
static int evaluated_more_than_twice(const pego_collector *c, const rule_entry *r)
{
    (void)c;
    return r->r.max_repeats >= 2;
}
static int failed_long(const pego_collector *c, const rule_entry *r)
{
    (void)c;
    return r->r.longest_fail >= HINT_EXAMINED;
}
static int wasted_as_much_as_examined(const pego_collector *c, const rule_entry *r)
{
    return examined(c) > 0 && r->r.wasted >= examined(c);
}

/* " of parse N" when the collector saw several parses. */
static void add_parse(const pego_collector *c, rt_buf *b, uint64_t parse)
{
    if (c->t.parses > 1) rt_buf_printf(b, " of parse %llu", (unsigned long long)parse);
}

const char *const *pego_collector_hints(pego_collector *c, size_t *count)
{
    rt_buf *b = &c->hint_text;
    const rule_entry *best[HINT_MAX_RULES];
    size_t starts[8], n = 0, found;
    rt_buf_reset(b);
    if (c->oom) {
        starts[n++] = b->len;
        rt_buf_adds(b, "The profile is incomplete: the collector ran out of memory.");
        rt_buf_addc(b, 0);
    }
    size_t first = n;
    if (c->t.time_ns > 0 && (found = pick(c, has_self, by_self, best)) > 0) {
        starts[n++] = b->len;
        rt_buf_adds(b, "Most time is spent in");
        for (size_t i = 0; i < found; i++)
            rt_buf_printf(b, "%s %s (%.0f%%)", i ? "," : "", best[i]->name,
                          100.0 * (double)best[i]->r.self_ns / (double)c->t.time_ns);
        rt_buf_adds(b, ", not counting the rules they call.");
        rt_buf_addc(b, 0);
    }
    if ((found = pick(c, evaluated_more_than_twice, by_repeats, best)) > 0) {
        starts[n++] = b->len;
        rt_buf_adds(b, "Evaluated again where they had been evaluated before:");
        for (size_t i = 0; i < found; i++) {
            const rule_entry *r = best[i];
            rt_buf_printf(b, "%s %s (%llu of %llu evaluations, up to %llu times at %d:%d", i ? "," : "", r->name,
                          (unsigned long long)r->r.repeats, (unsigned long long)r->r.evals,
                          (unsigned long long)r->r.max_evals, r->r.max_evals_line, r->r.max_evals_col);
            add_parse(c, b, r->max_evals_parse);
            rt_buf_addc(b, ')');
        }
        rt_buf_adds(b, ". A memoized rule is usually evaluated at most twice at a position; a rule that is "
                       "not is evaluated whenever its caller is retried there. Look for choices whose "
                       "alternatives begin with the same calls, and factor the common part out.");
        rt_buf_addc(b, 0);
    }
    if ((found = pick(c, failed_long, by_longest_fail, best)) > 0) {
        starts[n++] = b->len;
        rt_buf_adds(b, "Failed after examining much input:");
        for (size_t i = 0; i < found; i++) {
            const rule_entry *r = best[i];
            rt_buf_printf(b, "%s %s (%llu positions from %d:%d", i ? "," : "", r->name,
                          (unsigned long long)r->r.longest_fail, r->r.longest_fail_line, r->r.longest_fail_col);
            add_parse(c, b, r->longest_fail_parse);
            rt_buf_addc(b, ')');
        }
        rt_buf_adds(b, ". A call that fails late throws its work away, and what is tried next often matches "
                       "the same input again. Check whether an alternative shares a long prefix with a later "
                       "one, and whether a cut (--) after the part that identifies an alternative can stop the "
                       "parser from trying the others.");
        rt_buf_addc(b, 0);
    }
    if ((found = pick(c, wasted_as_much_as_examined, by_wasted, best)) > 0) {
        starts[n++] = b->len;
        rt_buf_printf(b, "Failed calls examined more input in all than the %s did (%llu positions):",
                      c->t.parses > 1 ? "parses" : "parse", (unsigned long long)examined(c));
        for (size_t i = 0; i < found; i++)
            rt_buf_printf(b, "%s %s (%llu positions in %llu failed calls)", i ? "," : "", best[i]->name,
                          (unsigned long long)best[i]->r.wasted, (unsigned long long)best[i]->r.failed);
        rt_buf_adds(b, ". The rule is tried at many positions where it cannot match, or fails late; nested "
                       "failures count in their callers too, so look at the innermost of these first.");
        rt_buf_addc(b, 0);
    }
    if (n - first <= 1 && c->t.calls > 0) {
        starts[n++] = b->len;
        rt_buf_adds(b, "Nothing else stands out: no rule is evaluated more than twice at a position, and no "
                       "failed call examines much input.");
        rt_buf_addc(b, 0);
    }
    const char **h = b->oom ? NULL : rt_realloc(c->hints, (n + 1) * sizeof *h);
    if (!h) {
        *count = 0;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) h[i] = b->data + starts[i];
    h[n] = NULL;
    c->hints = h;
    *count = n;
    return h;
}
