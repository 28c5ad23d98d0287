/* Trace events: attaching sinks to a parser, building enter and exit events for
 * the general call path, and the helpers a sink calls to read an event (line and
 * column, matched text, the failure recorded during the call). */
#include "parser.h"
#include "unicode.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

/* What the helper functions need besides the public fields of an event. */
struct pego_trace_detail {
    pego_parser    *p;
    uint32_t        pos, end;       /* byte offsets */
    uint32_t        far;            /* byte offset of the failure, if any */
    const uint32_t *items;          /* expectation ids recorded at far */
    uint32_t        nitems;
    uint32_t        rec_first;      /* first of the errors recovered during the call */
    int             sorted;         /* trace_items holds the sorted printed items */
};

int pego_parser_set_trace(pego_parser *p, pego_trace_fn fn, void *userdata)
{
    if (!p || !fn || p->ntrace == PEGO_MAX_TRACE_SINKS) return -1;
    p->sinks[p->ntrace].fn = fn;
    p->sinks[p->ntrace].ud = userdata;
    p->ntrace++;
    return 0;
}

int pego_parser_remove_trace(pego_parser *p, pego_trace_fn fn, void *userdata)
{
    for (int i = 0; i < p->ntrace; i++) {
        if (p->sinks[i].fn == fn && p->sinks[i].ud == userdata) {
            memmove(&p->sinks[i], &p->sinks[i + 1], (size_t)(p->ntrace - i - 1) * sizeof p->sinks[0]);
            p->ntrace--;
            return 0;
        }
    }
    return -1;
}

static int deliver(pego_parser *p, pego_trace_event *ev)
{
    for (int i = 0; i < p->ntrace; i++)
        if (p->sinks[i].fn(ev, p->sinks[i].ud)) return 1;
    return 0;
}

static void fill_enter(pego_parser *p, pego_trace_event *ev, struct pego_trace_detail *d,
                       uint32_t variant, uint32_t pos, uint32_t depth, uint32_t level)
{
    const pego_grammar *g = p->g;
    int rule = (int)(variant % (uint32_t)g->nrules);
    memset(ev, 0, sizeof *ev);
    memset(d, 0, sizeof *d);
    d->p = p;
    d->pos = d->end = pos;
    ev->kind = PEGO_TRACE_ENTER;
    ev->rule = g->rules[rule].name;
    ev->rule_id = rule;
    ev->depth = depth;
    ev->level = (int)level;
    ev->pos = rt_input_unit(&p->in, pos);
    ev->lookahead = p->silent > 0;
    ev->detail = d;
}

static void fill_exit(pego_parser *p, pego_trace_event *ev, struct pego_trace_detail *d, int ok,
                      uint32_t end, uint32_t examined, uint64_t evals)
{
    ev->kind = PEGO_TRACE_EXIT;
    ev->matched = ok;
    d->end = ok ? end : d->pos;
    ev->end = rt_input_unit(&p->in, d->end);
    ev->evals = evals;
    ev->examined = rt_input_unit(&p->in, examined);
}

/* ---- the observation points of the general call path ----
 * While calls are observed every call has a side record, so a call's depth in
 * the trace is its record's place on that stack (Pratt parses, which count
 * toward the nesting limit, are not calls). */

static int trace_enter(pego_parser *p, uint32_t variant, uint32_t pos, uint32_t depth, uint32_t level);
static int trace_hit(pego_parser *p, uint32_t variant, uint32_t pos, uint32_t depth, uint32_t level,
                     const rt_memo_entry *m);
static int trace_exit(pego_parser *p, vm_gframe *gf, int ok, uint32_t end, uint32_t examined, uint64_t evals);

int rt_trace_observe_enter(pego_parser *p, uint32_t variant, uint32_t pos, uint32_t depth, uint32_t level)
{
    if (p->prof_on) rt_profiler_enter(p, variant, pos);
    return p->ntrace && trace_enter(p, variant, pos, depth, level);
}

int rt_trace_observe_hit(pego_parser *p, uint32_t variant, uint32_t pos, uint32_t depth, uint32_t level,
                   const rt_memo_entry *m)
{
    if (p->prof_on) rt_profiler_exit(p, (m->flags & MEMO_OK) != 0, m->end, m->end, 0, 1);
    return p->ntrace && trace_hit(p, variant, pos, depth, level, m);
}

/* A call's own evaluations: the counter's difference across the call minus that
 * of nested calls (every call is observed while observing). */
int rt_trace_observe_exit(pego_parser *p, vm_gframe *gf, int ok, uint32_t end, uint32_t examined)
{
    uint64_t total = p->res.stats.evals - gf->evals_start;
    if (gf > p->gf) gf[-1].nested_evals += total;
    uint64_t evals = total - gf->nested_evals;
    if (p->prof_on) rt_profiler_exit(p, ok, end, examined, evals, 0);
    return p->ntrace && trace_exit(p, gf, ok, end, examined, evals);
}

static int trace_enter(pego_parser *p, uint32_t variant, uint32_t pos, uint32_t depth, uint32_t level)
{
    pego_trace_event ev;
    struct pego_trace_detail d;
    fill_enter(p, &ev, &d, variant, pos, depth, level);
    return deliver(p, &ev);
}

static int trace_hit(pego_parser *p, uint32_t variant, uint32_t pos, uint32_t depth, uint32_t level,
                     const rt_memo_entry *m)
{
    pego_trace_event ev;
    struct pego_trace_detail d;
    fill_enter(p, &ev, &d, variant, pos, depth, level);
    int growing = (m->flags & MEMO_GROWING) != 0;
    uint32_t examined = growing ? m->end : m->examined;
    fill_exit(p, &ev, &d, (m->flags & MEMO_OK) != 0, m->end, examined > pos ? examined : pos, 0);
    ev.memo = 1;
    if (m->flags & MEMO_OK) {                    /* the hit has re-appended them */
        ev.recovered = m->rec_len;
        d.rec_first = p->nrec - m->rec_len;
    }
    if (!growing && m->exp_len) {
        d.far = m->exp_far;
        d.items = p->memo.ids + m->exp_off;
        d.nitems = m->exp_len;
    }
    return deliver(p, &ev);
}

static int trace_exit(pego_parser *p, vm_gframe *gf, int ok, uint32_t end, uint32_t examined, uint64_t evals)
{
    pego_trace_event ev;
    struct pego_trace_detail d;
    fill_enter(p, &ev, &d, gf->variant, gf->pos, (uint32_t)(gf - p->gf) + 1, gf->call_level);
    fill_exit(p, &ev, &d, ok, end, examined, evals);
    if (ok) {
        ev.recovered = p->nrec - gf->rec_start;
        d.rec_first = gf->rec_start;
    }
    rt_expect *x = &p->exp;
    if (x->n > x->base) {
        d.far = x->far;
        d.items = RT_AT(x->items, x->base);
        d.nitems = x->n - x->base;
    }
    return deliver(p, &ev);
}

/* A stream parse's MARK or AGAIN (pego_trace_kind) at pos, of depth 1, or an
 * AGAIN of depth 0: the parse starts again. Reported as the start rule's. */
int rt_trace_stream_point(pego_parser *p, pego_trace_kind kind, uint32_t pos, uint32_t depth)
{
    pego_trace_event ev;
    struct pego_trace_detail d;
    fill_enter(p, &ev, &d, p->stream.rule, pos, depth, 0);
    ev.kind = kind;
    ev.lookahead = 0;
    return deliver(p, &ev);
}

/* An aborted parse sends no exit events for the calls in progress; the
 * collectors among the sinks close them. */
void rt_trace_parse_aborted(pego_parser *p)
{
    uint64_t examined = rt_input_unit(&p->in, p->hw);
    for (int i = 0; i < p->ntrace; i++)
        rt_collector_parse_aborted(p->sinks[i].fn, p->sinks[i].ud, p->res.stats.evals, examined);
}

void rt_trace_input_released(pego_parser *p, uint64_t before)
{
    for (int i = 0; i < p->ntrace; i++) rt_collector_input_released(p->sinks[i].fn, p->sinks[i].ud, before);
}

/* ---- helpers for sinks ---- */

void pego_trace_line_col(const pego_trace_event *ev, uint64_t pos, int *line, int *col)
{
    rt_input *in = &ev->detail->p->in;
    uint32_t lo = 0, hi = in->len;          /* unit position back to a byte offset */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rt_input_unit(in, mid) < pos) lo = mid + 1; else hi = mid;
    }
    rt_input_line_col(in, lo, line, col);
}

/* In a stream parse the text begins at the input held (in.base): what is
 * before it was released. */
const char *pego_trace_text(const pego_trace_event *ev, size_t *len)
{
    const struct pego_trace_detail *d = ev->detail;
    uint32_t from = d->pos > d->p->in.base ? d->pos : d->p->in.base;
    if (len) *len = d->end > from ? d->end - from : 0;
    return d->p->in.input + from;
}

const char *pego_trace_input(const pego_trace_event *ev, uint64_t from, uint64_t to, size_t *len)
{
    rt_input *in = &ev->detail->p->in;
    uint32_t b[2];
    uint64_t want[2] = { from, to };
    for (int k = 0; k < 2; k++) {
        uint32_t lo = in->base, hi = in->len;     /* the input held */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (rt_input_unit(in, mid) < want[k]) lo = mid + 1; else hi = mid;
        }
        b[k] = lo;
    }
    if (b[1] < b[0]) b[1] = b[0];
    if (len) *len = b[1] - b[0];
    return in->input + b[0];
}

int pego_trace_failure(const pego_trace_event *ev, uint64_t *pos, size_t *nitems)
{
    const struct pego_trace_detail *d = ev->detail;
    if (ev->kind != PEGO_TRACE_EXIT || d->nitems == 0) {
        if (nitems) *nitems = 0;
        return 0;
    }
    if (pos) *pos = rt_input_unit(&d->p->in, d->far);
    if (nitems) *nitems = d->nitems;
    return 1;
}

const char *pego_trace_failure_item(const pego_trace_event *ev, size_t i)
{
    struct pego_trace_detail *d = (struct pego_trace_detail *)ev->detail;
    pego_parser *p = d->p;
    const pego_grammar *g = p->g;
    if (i >= d->nitems) return NULL;
    if (!d->sorted) {
        /* the items of a set are distinct, and pego_parse made room for every
         * expectation of the grammar */
        for (uint32_t k = 0; k < d->nitems; k++) {      /* insertion sort by printed text */
            uint32_t id = d->items[k], j = k;
            for (; j > 0 && strcmp(p->trace_items[j - 1], g->expects[id]) > 0; j--)
                p->trace_items[j] = p->trace_items[j - 1];
            p->trace_items[j] = g->expects[id];
        }
        d->sorted = 1;
    }
    return p->trace_items[i];
}

const char *pego_trace_recovered_error(const pego_trace_event *ev, size_t i)
{
    const struct pego_trace_detail *d = ev->detail;
    if (i >= ev->recovered) return NULL;
    return d->p->strings.data + d->p->rec[d->rec_first + i].text;
}

pego_unit pego_trace_unit(const pego_trace_event *ev) { return ev->detail->p->in.unit; }

char *pego_quote(const char *text, size_t len, pego_unit unit)
{
    rt_buf b;
    rt_buf_init(&b);
    rt_unicode_quote(&b, text, len, unit == PEGO_UNIT_BYTES);
    if (b.oom) { rt_buf_free(&b); return NULL; }
    return rt_buf_take(&b);
}

size_t pego_char_width(const char *text, size_t len)
{
    return (size_t)rt_unicode_width((const unsigned char *)text, len);
}
