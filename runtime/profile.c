/* The profile collector: an ordinary trace sink that adds up, per rule name,
 * what the calls of any number of parses did (calls, evaluations, memo hits,
 * outcomes, repeated evaluations, consumed and wasted input) and where the time
 * went (inclusive time of the outermost active call of a rule, self time), and
 * turns the totals into a few hints (design.md section 6). */
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
    pego_profile_rule r;          /* r.name points to name */
    uint32_t active;              /* calls of the rule in progress */
    /* where the most repeats happened, and the longest failed call */
    uint64_t repeats_parse;
    int      repeats_line, repeats_col;
    uint64_t worst_failed, worst_parse;
    int      worst_line, worst_col;
} prof_rule;

typedef struct {
    uint32_t rule;
    uint32_t outermost;           /* no other call of the rule was active at its start */
    uint64_t start_ns, nested_ns;
} prof_frame;

/* How often a rule was evaluated at a (position, level) in the current parse.
 * A slot belongs to the current parse when its generation is the collector's. */
typedef struct {
    uint64_t pos;
    uint32_t rule, gen;
    int32_t  level;
    uint32_t count;
} prof_seen;

/* The rule index of a grammar's rule id, valid during the parse of its generation. */
typedef struct {
    uint32_t rule, gen;
} prof_id;

struct pego_profile {
    prof_rule  *rules;    size_t nrules; uint32_t caprules;
    uint32_t   *byname;   size_t capbyname;     /* open addressing: rule index + 1, 0 empty */
    prof_id    *byid;     uint32_t capbyid;
    prof_frame *stack;    size_t nstack; uint32_t capstack;
    prof_seen  *seen;     size_t nseen, capseen;
    uint32_t    gen;                            /* the current parse's generation */
    pego_profile_totals t;
    uint64_t    parse_examined;                 /* examined by the current parse */
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

pego_profile *pego_profile_new(void)
{
    pego_profile *prof = rt_calloc(1, sizeof *prof);
    if (!prof) return NULL;
    prof->gen = 1;
    rt_buf_init(&prof->hint_text);
    return prof;
}

void pego_profile_reset(pego_profile *prof)
{
    for (size_t i = 0; i < prof->nrules; i++) rt_free(prof->rules[i].name);
    prof->nrules = 0;
    if (prof->byname) memset(prof->byname, 0, prof->capbyname * sizeof *prof->byname);
    if (prof->byid) memset(prof->byid, 0, prof->capbyid * sizeof *prof->byid);
    if (prof->seen) memset(prof->seen, 0, prof->capseen * sizeof *prof->seen);
    prof->nstack = prof->nseen = 0;
    prof->gen = 1;
    memset(&prof->t, 0, sizeof prof->t);
    prof->parse_examined = 0;
    prof->oom = 0;
}

void pego_profile_free(pego_profile *prof)
{
    if (!prof) return;
    for (size_t i = 0; i < prof->nrules; i++) rt_free(prof->rules[i].name);
    rt_free(prof->rules);
    rt_free(prof->byname);
    rt_free(prof->byid);
    rt_free(prof->stack);
    rt_free(prof->seen);
    rt_free(prof->hints);
    rt_buf_free(&prof->hint_text);
    rt_free(prof);
}

/* ---- collecting ---- */

/* The index of a rule by name, added when new; -1 when out of memory. */
static long rule_by_name(pego_profile *prof, const char *name)
{
    if (prof->nrules * 2 >= prof->capbyname) {
        size_t cap = prof->capbyname ? prof->capbyname * 2 : 64;
        uint32_t *t = rt_calloc(cap, sizeof *t);
        if (!t) return -1;
        for (size_t i = 0; i < prof->nrules; i++) {
            size_t k = hash_name(prof->rules[i].name) & (cap - 1);
            while (t[k]) k = (k + 1) & (cap - 1);
            t[k] = (uint32_t)i + 1;
        }
        rt_free(prof->byname);
        prof->byname = t;
        prof->capbyname = cap;
    }
    size_t k = hash_name(name) & (prof->capbyname - 1);
    for (; prof->byname[k]; k = (k + 1) & (prof->capbyname - 1))
        if (strcmp(prof->rules[prof->byname[k] - 1].name, name) == 0) return (long)prof->byname[k] - 1;
    if (rt_buf_grow((void **)&prof->rules, &prof->caprules, prof->nrules + 1, sizeof *prof->rules) < 0) return -1;
    prof_rule *r = &prof->rules[prof->nrules];
    memset(r, 0, sizeof *r);
    r->name = rt_strdup(name);
    if (!r->name) return -1;
    r->r.name = r->name;
    prof->byname[k] = (uint32_t)++prof->nrules;
    return (long)prof->nrules - 1;
}

/* The index of an event's rule: looked up by name once per rule id and parse. */
static long rule_of(pego_profile *prof, const pego_trace_event *ev)
{
    size_t id = (size_t)ev->rule_id;
    if (id >= prof->capbyid) {
        size_t old = prof->capbyid;
        if (rt_buf_grow((void **)&prof->byid, &prof->capbyid, id + 1, sizeof *prof->byid) < 0) return -1;
        memset(prof->byid + old, 0, (prof->capbyid - old) * sizeof *prof->byid);
    }
    prof_id *c = &prof->byid[id];
    if (c->gen != prof->gen) {
        long r = rule_by_name(prof, ev->rule);
        if (r < 0) return -1;
        c->rule = (uint32_t)r;
        c->gen = prof->gen;
    }
    return (long)c->rule;
}

/* A new parse starts: what the last one left (calls an abort ended without an
 * exit event) is dropped, and the positions seen are forgotten. */
static void start_parse(pego_profile *prof)
{
    while (prof->nstack) prof->rules[prof->stack[--prof->nstack].rule].active--;
    prof->t.examined += prof->parse_examined;
    prof->parse_examined = 0;
    prof->t.parses++;
    prof->nseen = 0;
    if (++prof->gen == 0) {     /* generations wrapped: clear for real */
        memset(prof->byid, 0, prof->capbyid * sizeof *prof->byid);
        memset(prof->seen, 0, prof->capseen * sizeof *prof->seen);
        prof->gen = 1;
    }
}

/* Counts an evaluation of rule at (pos, level); returns how many this parse has
 * seen there, this one included, or 0 when out of memory. */
static uint32_t count_evaluation(pego_profile *prof, uint32_t rule, uint64_t pos, int level)
{
    if ((prof->nseen + 1) * 2 > prof->capseen) {
        size_t cap = prof->capseen ? prof->capseen * 2 : 1024;
        prof_seen *t = rt_calloc(cap, sizeof *t);
        if (!t) return 0;
        for (size_t i = 0; i < prof->capseen; i++) {
            prof_seen *s = &prof->seen[i];
            if (s->gen != prof->gen) continue;
            size_t k = ((s->pos * 0x9E3779B97F4A7C15u) ^ (s->rule * 0x85EBCA6Bu) ^ (uint32_t)s->level) & (cap - 1);
            while (t[k].gen == prof->gen) k = (k + 1) & (cap - 1);
            t[k] = *s;
        }
        rt_free(prof->seen);
        prof->seen = t;
        prof->capseen = cap;
    }
    size_t mask = prof->capseen - 1;
    size_t k = ((pos * 0x9E3779B97F4A7C15u) ^ (rule * 0x85EBCA6Bu) ^ (uint32_t)level) & mask;
    for (;; k = (k + 1) & mask) {
        prof_seen *s = &prof->seen[k];
        if (s->gen != prof->gen) {
            *s = (prof_seen){ .pos = pos, .rule = rule, .gen = prof->gen, .level = level, .count = 1 };
            prof->nseen++;
            return 1;
        }
        if (s->pos == pos && s->rule == rule && s->level == level) return ++s->count;
    }
}

static void call_entered(pego_profile *prof, const pego_trace_event *ev, uint64_t now)
{
    if (ev->depth == 1) start_parse(prof);
    long rule = rule_of(prof, ev);
    if (rule < 0 || rt_buf_grow((void **)&prof->stack, &prof->capstack, prof->nstack + 1, sizeof *prof->stack) < 0) {
        prof->oom = 1;
        return;
    }
    prof_rule *r = &prof->rules[rule];
    prof->stack[prof->nstack++] = (prof_frame){ .rule = (uint32_t)rule, .outermost = r->active++ == 0,
                                                .start_ns = now };
    r->r.calls++;
    prof->t.calls++;
}

static void call_exited(pego_profile *prof, const pego_trace_event *ev, uint64_t now)
{
    if (prof->nstack == 0) return;   /* its enter was not seen */
    prof_frame f = prof->stack[--prof->nstack];
    prof_rule *r = &prof->rules[f.rule];
    uint64_t incl = now - f.start_ns;
    r->active--;
    r->r.self_ns += incl - f.nested_ns;
    if (f.outermost) r->r.time_ns += incl;
    if (prof->nstack) prof->stack[prof->nstack - 1].nested_ns += incl;
    else prof->t.time_ns += incl;
    if (ev->examined > prof->parse_examined) prof->parse_examined = ev->examined;
    r->r.evals += ev->evals;
    prof->t.evals += ev->evals;
    if (ev->memo) {
        r->r.memo++;
        prof->t.memo_hits++;
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
        if (examined > r->worst_failed) {
            r->worst_failed = examined;
            r->worst_parse = prof->t.parses;
            pego_trace_line_col(ev, ev->pos, &r->worst_line, &r->worst_col);
        }
    }
    uint32_t n = count_evaluation(prof, f.rule, ev->pos, ev->level);
    if (n == 0) {
        prof->oom = 1;
        return;
    }
    if (n > 1) {
        r->r.repeats++;
        if (n - 1 > r->r.max_repeats) {
            r->r.max_repeats = n - 1;
            r->r.max_repeats_pos = ev->pos;
            r->repeats_parse = prof->t.parses;
            pego_trace_line_col(ev, ev->pos, &r->repeats_line, &r->repeats_col);
        }
    }
}

static int profile_event(const pego_trace_event *ev, void *userdata)
{
    pego_profile *prof = userdata;
    uint64_t now = now_ns();
    if (prof->oom) return 0;
    if (ev->kind == PEGO_TRACE_ENTER) call_entered(prof, ev, now);
    else call_exited(prof, ev, now);
    return 0;
}

int pego_parser_add_profile(pego_parser *p, pego_profile *prof)
{
    if (!prof) return -1;
    return pego_parser_set_trace(p, profile_event, prof);
}

int pego_parser_remove_profile(pego_parser *p, pego_profile *prof)
{
    return pego_parser_remove_trace(p, profile_event, prof);
}

/* ---- reading ---- */

size_t pego_profile_rule_count(const pego_profile *prof) { return prof->nrules; }

int pego_profile_get_rule(const pego_profile *prof, size_t i, pego_profile_rule *out)
{
    if (i >= prof->nrules) return -1;
    *out = prof->rules[i].r;
    return 0;
}

int pego_profile_find_rule(const pego_profile *prof, const char *name, pego_profile_rule *out)
{
    if (!prof->capbyname) return -1;
    size_t mask = prof->capbyname - 1;
    for (size_t k = hash_name(name) & mask; prof->byname[k]; k = (k + 1) & mask) {
        const prof_rule *r = &prof->rules[prof->byname[k] - 1];
        if (strcmp(r->name, name) == 0) {
            *out = r->r;
            return 0;
        }
    }
    return -1;
}

void pego_profile_get_totals(const pego_profile *prof, pego_profile_totals *out)
{
    *out = prof->t;
    out->examined += prof->parse_examined;
}

/* ---- hints ---- */

typedef int (*rule_order)(const prof_rule *a, const prof_rule *b);

static int by_self(const prof_rule *a, const prof_rule *b)
{
    return a->r.self_ns != b->r.self_ns ? (a->r.self_ns > b->r.self_ns ? -1 : 1) : strcmp(a->name, b->name);
}

static int by_repeats(const prof_rule *a, const prof_rule *b)
{
    return a->r.max_repeats != b->r.max_repeats ? (a->r.max_repeats > b->r.max_repeats ? -1 : 1)
                                                 : strcmp(a->name, b->name);
}

static int by_worst_failed(const prof_rule *a, const prof_rule *b)
{
    return a->worst_failed != b->worst_failed ? (a->worst_failed > b->worst_failed ? -1 : 1)
                                               : strcmp(a->name, b->name);
}

static int by_wasted(const prof_rule *a, const prof_rule *b)
{
    return a->r.wasted != b->r.wasted ? (a->r.wasted > b->r.wasted ? -1 : 1) : strcmp(a->name, b->name);
}

/* Picks the (at most HINT_MAX_RULES) best rules by order among those that pass;
 * returns how many passed in all. */
static size_t pick(const pego_profile *prof, int (*pass)(const pego_profile *, const prof_rule *),
                   rule_order order, const prof_rule **best)
{
    size_t n = 0, all = 0;
    for (size_t i = 0; i < prof->nrules; i++) {
        const prof_rule *r = &prof->rules[i];
        if (!pass(prof, r)) continue;
        all++;
        size_t j = n < HINT_MAX_RULES ? n++ : HINT_MAX_RULES;
        while (j > 0 && order(r, best[j - 1]) < 0) {
            if (j < HINT_MAX_RULES) best[j] = best[j - 1];
            j--;
        }
        if (j < HINT_MAX_RULES) best[j] = r;
    }
    return all;
}

static int has_self(const pego_profile *prof, const prof_rule *r) { (void)prof; return r->r.self_ns > 0; }
static int repeats_more_than_twice(const pego_profile *prof, const prof_rule *r)
{
    (void)prof;
    return r->r.max_repeats >= 2;
}
static int failed_long(const pego_profile *prof, const prof_rule *r)
{
    (void)prof;
    return r->worst_failed >= HINT_EXAMINED;
}
static int wasted_more_than_examined(const pego_profile *prof, const prof_rule *r)
{
    return r->r.wasted > prof->t.examined + prof->parse_examined;
}

/* " of parse N" when the collector saw several parses. */
static void add_parse(const pego_profile *prof, rt_buf *b, uint64_t parse)
{
    if (prof->t.parses > 1) rt_buf_printf(b, " of parse %llu", (unsigned long long)parse);
}

static void add_more(rt_buf *b, size_t all)
{
    if (all > HINT_MAX_RULES)
        rt_buf_printf(b, ", and %zu more rule%s", all - HINT_MAX_RULES, all - HINT_MAX_RULES > 1 ? "s" : "");
}

const char *const *pego_profile_hints(pego_profile *prof, size_t *count)
{
    rt_buf *b = &prof->hint_text;
    const prof_rule *best[HINT_MAX_RULES];
    size_t starts[8], n = 0, all;
    rt_buf_reset(b);
    if (prof->oom) {
        starts[n++] = b->len;
        rt_buf_adds(b, "The profile is incomplete: the collector ran out of memory.");
        rt_buf_addc(b, 0);
    }
    uint64_t total_self = 0;
    for (size_t i = 0; i < prof->nrules; i++) total_self += prof->rules[i].r.self_ns;
    int timed = 0;
    if ((all = pick(prof, has_self, by_self, best)) > 0) {
        timed = 1;
        starts[n++] = b->len;
        rt_buf_adds(b, "Most self time:");
        for (size_t i = 0; i < all && i < HINT_MAX_RULES; i++)
            rt_buf_printf(b, "%s %s %.1f%%", i ? "," : "", best[i]->name,
                          100.0 * (double)best[i]->r.self_ns / (double)total_self);
        rt_buf_addc(b, 0);
    }
    size_t before = n;
    if ((all = pick(prof, repeats_more_than_twice, by_repeats, best)) > 0) {
        starts[n++] = b->len;
        rt_buf_adds(b, "Evaluated more than twice at one position:");
        for (size_t i = 0; i < all && i < HINT_MAX_RULES; i++) {
            rt_buf_printf(b, "%s %s %llu times at %d:%d", i ? "," : "", best[i]->name,
                          (unsigned long long)best[i]->r.max_repeats + 1, best[i]->repeats_line,
                          best[i]->repeats_col);
            add_parse(prof, b, best[i]->repeats_parse);
        }
        add_more(b, all);
        rt_buf_addc(b, 0);
    }
    if ((all = pick(prof, failed_long, by_worst_failed, best)) > 0) {
        starts[n++] = b->len;
        rt_buf_printf(b, "Failed calls that examined %d positions or more:", HINT_EXAMINED);
        for (size_t i = 0; i < all && i < HINT_MAX_RULES; i++) {
            rt_buf_printf(b, "%s %s %llu positions from %d:%d", i ? "," : "", best[i]->name,
                          (unsigned long long)best[i]->worst_failed, best[i]->worst_line, best[i]->worst_col);
            add_parse(prof, b, best[i]->worst_parse);
        }
        add_more(b, all);
        rt_buf_addc(b, 0);
    }
    if ((all = pick(prof, wasted_more_than_examined, by_wasted, best)) > 0) {
        starts[n++] = b->len;
        rt_buf_printf(b, "Failed calls examined more input in all than the %s did (%llu positions):",
                      prof->t.parses > 1 ? "parses" : "parse",
                      (unsigned long long)(prof->t.examined + prof->parse_examined));
        for (size_t i = 0; i < all && i < HINT_MAX_RULES; i++)
            rt_buf_printf(b, "%s %s %llu", i ? "," : "", best[i]->name, (unsigned long long)best[i]->r.wasted);
        add_more(b, all);
        rt_buf_addc(b, 0);
    }
    if (n == before) {
        starts[n++] = b->len;
        rt_buf_printf(b, "Nothing %sstands out: no rule was evaluated more than twice at one position, "
                      "and no failed call examined %d positions or more.", timed ? "else " : "", HINT_EXAMINED);
        rt_buf_addc(b, 0);
    }
    const char **h = b->oom ? NULL : rt_realloc(prof->hints, (n + 1) * sizeof *h);
    if (!h) {
        *count = 0;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) h[i] = b->data + starts[i];
    h[n] = NULL;
    prof->hints = h;
    *count = n;
    return h;
}
