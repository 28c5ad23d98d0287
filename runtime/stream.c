/* Stream parses (docs/language.md 7.1): the entry point of the public API and
 * the input a stream parse holds. The input is read in pieces from the
 * caller's reader into one buffer, which holds the bytes from in.base on:
 * in.input points in.base bytes before the buffer, so that positions stay
 * those of the whole input. A read first releases what is before the keep
 * mark, which the stream loop (vm/stream.c) moves up to the character before
 * each element it hands over. */
#include "parser.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#define STREAM_PIECE 65536u   /* the least room a read is given */

/* The end of the complete characters of s[from, end): an incomplete UTF-8
 * character at the end (a lead byte and fewer continuation bytes than it
 * announces) waits for the rest. */
static uint32_t complete_end(const unsigned char *s, uint32_t from, uint32_t end)
{
    for (uint32_t k = 1; k <= 3 && k <= end - from; k++) {
        unsigned char b = s[end - k];
        if ((b & 0xC0) == 0x80) continue;        /* a continuation byte: look further back */
        uint32_t need = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 && b < 0xF0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 1;
        return need > k ? end - k : end;
    }
    return end;
}

/* Releases the input before keep: the released part's figures go to in. */
static void release(pego_parser *p)
{
    rt_stream *st = &p->stream;
    rt_input *in = &p->in;
    uint32_t k = st->keep;
    if (k <= in->base) return;
    uint32_t from = in->base;
    rt_input_release(in, k);             /* counts the bytes released, before they go */
    memmove(st->buf, st->buf + (k - from), st->end - k);
    rt_trace_input_released(p, in->base_units);   /* collectors forget the positions before it */
    rt_profiler_input_released(p, k);             /* and so does an exact profile */
}

int rt_stream_read(pego_parser *p, int all)
{
    rt_stream *st = &p->stream;
    rt_input *in = &p->in;
    uint32_t shown = in->len;
    release(p);
    while (!st->eof && (all || complete_end((const unsigned char *)st->buf, 0, st->end - in->base) + in->base <= shown)) {
        size_t held = st->end - in->base;
        if (st->cap - held < STREAM_PIECE) {
            size_t cap = st->cap * 2 > held + STREAM_PIECE ? st->cap * 2 : held + STREAM_PIECE;
            char *b = rt_realloc(st->buf, cap);
            if (!b) {
                p->res.status = PEGO_ENOMEM;
                rt_parse_abort(p, "out of memory");
                return -1;
            }
            st->buf = b;
            st->cap = cap;
        }
        size_t room = st->cap - held;
        if (room > PEGO_MAX_INPUT - st->end) room = PEGO_MAX_INPUT - st->end;
        if (!room) {
            p->res.status = PEGO_EUSAGE;
            rt_parse_abort(p, "input too large: more than %zu bytes (the limit is 4 GiB)", (size_t)PEGO_MAX_INPUT);
            return -1;
        }
        long n = st->read(st->buf + held, room, st->read_ctx);
        if (n < 0 || (size_t)n > room) {
            st->eof = 1;
            st->error = n;
            p->res.status = PEGO_EREAD;
            rt_parse_abort(p, "read error (%ld)", n);
            return -1;
        }
        if (n == 0) st->eof = 1;
        st->end += (uint32_t)n;
        if (st->end - in->base > st->peak_held) st->peak_held = st->end - in->base;
    }
    uint32_t shown_end = st->eof ? st->end : in->base + complete_end((const unsigned char *)st->buf, 0, st->end - in->base);
    rt_input_window(in, st->buf - in->base, shown_end);
    st->reads++;
    /* the second-call bits, for the positions held (every read starts an
     * element, or a run, again: none of its calls was made yet) */
    size_t nd = (size_t)p->g->ndeferrable;
    if (nd && p->policy == PEGO_MEMO_DEFAULT &&
        rt_memo_seen_prepare(&p->memo, in->base, ((size_t)(shown_end - in->base) + 1) * nd) < 0) {
        p->res.status = PEGO_ENOMEM;
        rt_parse_abort(p, "out of memory");
        return -1;
    }
    return 0;
}

/* Ends a stream parse that cannot start. */
#define REFUSE(...) (p->res.status = PEGO_EUSAGE, (pego_status)rt_parse_abort(p, __VA_ARGS__))

pego_status pego_parse_stream(pego_parser *p, pego_read_fn read, void *read_ctx,
                              pego_element_fn element, void *element_ctx,
                              const pego_options *opt, const pego_result **out)
{
    static const pego_options defaults = { 0 };
    const pego_grammar *g = p->g;
    rt_stream *st = &p->stream;
    if (!opt) opt = &defaults;
    rt_parse_clear_result(p);
    if (out) *out = &p->res;
    const char *start = opt->start_rule ? opt->start_rule : "main";
    int rule = pego_grammar_rule_index(g, start);
    if (rule < 0) return REFUSE("undefined rule %s", start);
    if (opt->recognize) return REFUSE("recognition is not supported for stream parsing");
    if (!(g->rules[rule].flags & RULE_STREAM)) return REFUSE("rule %s has no #stream repetition", start);
    if (!read || !element) return REFUSE("a stream parse needs a reader and an element callback");
    /* this parse's state; the buffers stay for the next */
    st->read = read;
    st->read_ctx = read_ctx;
    st->element = element;
    st->element_ctx = element_ctx;
    st->end = st->keep = 0;
    st->eof = st->restart = st->after = st->done = 0;
    st->error = 0;
    st->elements = st->fast_elements = 0;
    st->fast = opt->reference ? 0 : -1;    /* decided at the repetition (vm/stream.c) */
    st->fruitless = 0;
    st->resume_at = 0;
    st->reads = 0;
    st->exp_kept = 0;
    st->rule = (uint32_t)rule;
    st->runner_read[0] = st->runner_read[1] = UINT64_MAX;
    st->peak_held = 0;
    st->peak_memo = st->peak_nodes = 0;
    rt_input_reset(&p->in, st->buf ? st->buf : "", 0, opt->unit);
    __atomic_store_n(&p->progress, 0, __ATOMIC_RELAXED);
    /* The reference program (and, unobserved, the fast program's elements,
     * vm/stream.c); trace sinks and the profiler see every call (an exact
     * profile holds its thread's record for the whole parse, and the
     * callbacks may parse too: the thread's holds are counted). The default
     * policy's second-call bits cover the input held, from in.base
     * (rt_stream_read), and go with the memo entries after each element
     * (vm/stream.c). */
    rt_parse_unobserved_reference(p, opt->memo, opt->max_depth);
    st->on = 1;                          /* the profiler marks the parse a stream */
    p->prof_on = p->internal ? 0 : rt_profiler_parse_begin(p);
    p->observing = p->ntrace > 0 || p->prof_on;
    p->noplain |= p->observing;          /* every call on the general path, where sinks see it */
    int status = PEGO_ABORTED;
    if (p->ntrace && rt_buf_grow((void **)&p->trace_items, &p->cap_trace_items, (uint64_t)g->nexpects,
                                 sizeof *p->trace_items) < 0) {
        p->res.status = PEGO_ENOMEM;
        status = rt_parse_abort(p, "out of memory");
    } else if (rt_stream_read(p, 0) == 0) {
        for (;;) {
            rt_tree_reset(&p->tree);
            rt_buf_reset(&p->strings);
            rt_memo_reset(&p->memo);
            p->exp.far = p->exp.base = p->exp.n = 0;
            p->exp.oom = 0;
            st->restart = 0;
            status = vm_run(p, (uint32_t)rule);
            if (!st->restart) break;
            /* nothing was handed over: run again on more input (the collectors
             * among the trace sinks close the calls the run left) */
            if (p->ntrace) rt_trace_parse_aborted(p);
            if (p->ntrace && rt_trace_stream_point(p, PEGO_TRACE_AGAIN, 0, 0)) {
                p->res.status = PEGO_ABORTED;
                status = rt_parse_abort(p, "parse aborted by a trace callback");
                break;
            }
            rt_parse_clear_result(p);
            if (rt_stream_read(p, 0) < 0) {
                status = p->res.status;
                break;
            }
        }
    } else {
        status = p->res.status;
    }
    if (status == PEGO_ABORTED && p->ntrace) rt_trace_parse_aborted(p);
    if (p->exp.oom && status != PEGO_ENOMEM) {   /* the errors would be wrong */
        rt_parse_clear_result(p);
        p->res.status = PEGO_ENOMEM;
        status = rt_parse_abort(p, "out of memory");
    }
    p->res.stats.rules_memoized = p->memo.rules_used;
    if (p->prof_on) rt_profiler_parse_end(p, opt->input_name, st->end);   /* the bytes read */
    st->on = 0;
    if (status == PEGO_OK) {
        p->res.status = PEGO_OK;
        p->res.value = VAL_NIL;         /* the stream parse returns only a status */
        p->res.has_value = 0;
        p->res.nrecovered = p->nrec;
    }
    return p->res.status;
}

long pego_result_callback_error(const pego_result *r)
{
    return r->status == PEGO_EREAD || r->status == PEGO_ECALLBACK ? r->parser->stream.error : 0;
}
