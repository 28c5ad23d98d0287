/* Incremental documents (docs/language.md 7.2): a text, the memo table of its
 * last parse, and the edits since. A document parses with the reference
 * program marking exactly what each call examined (vm/variant_examined.h) and
 * memoizes every call. An edit changes the text and is kept; the next parse
 * first walks the memo table once (prepare_entries): each edit in turn keeps
 * the entries whose examined input ends before it, moves those that begin
 * after it by the change of length, and drops the rest; the parse answers
 * calls from the entries kept.
 *
 * An entry's value is a node of the tree of the parse that made it or last
 * used it. A parse builds a new tree, and a hit on an entry carried from the
 * previous parse (MEMO_CARRIED) copies the entry's value from the previous
 * parse's tree (old) into the new one, its positions moved by the entry's
 * shift (rt_document_carry). The next parse's walk copies the values of the
 * carried entries nothing asked for (most already were, inside the value of
 * a call that was reused) before old is reused for its tree. */
#include "parser.h"
#include "alloc.h"
#include "unicode.h"
#include "../vm/action.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PEGO_FAULT_INJECTION
int rt_fault_document_examined;   /* tests/test_document.c: entries one byte into an edit are kept */
#define EXAMINED_SLACK (rt_fault_document_examined ? 1u : 0u)
#else
#define EXAMINED_SLACK 0u
#endif

#define DOC_EDITS_HELD 256   /* edits between two parses that keep the memo table */

struct pego_document {
    pego_parser *p;
    char        *text; size_t len, cap;
    char        *start_rule;
    char        *input_name;    /* names the document's parses in profile reports */
    pego_unit    unit;
    uint32_t     max_depth;
    int          recognize;
    int          shift_ok;      /* no action keeps a position in an integer (startPos, endPos) */
    rt_tree      old;           /* the previous parse's tree: carried entries' values */
    rt_buf       old_strings;   /* and its strings */
    int64_t     *shift; uint32_t capshift;      /* per memo entry: how far its value's positions move */
    uint32_t    *forward; uint32_t capforward;  /* per node of old: its copy in this parse's tree, 0: none yet */
    int64_t     *moved; uint32_t capmoved;      /* and how far the copy moved it */
    uint32_t    *work; uint32_t capwork;        /* the copy's stack of old nodes */
    /* the edits since the last parse, in order, each in the text before it:
     * the memo table takes them all at once when the next parse begins */
    struct doc_edit { uint32_t from, to; int64_t delta; } *edits;
    uint32_t     nedits, capedits;
    pego_document_stats stats;
    char         error[160];
};

static int usage(pego_document *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage(pego_document *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->error, sizeof d->error, fmt, ap);
    va_end(ap);
    return PEGO_EUSAGE;
}

/* Whether the grammar's actions read positions (their values would not move). */
static int reads_positions(const pego_grammar *g)
{
    for (uint32_t i = 0; i < g->nacode; i++)
        if (g->acode[i].op == AC_STARTPOS || g->acode[i].op == AC_ENDPOS) return 1;
    return 0;
}

pego_document *pego_document_new(const pego_grammar *g, const char *text, size_t len, const pego_options *opt)
{
    static const pego_options defaults = { 0 };
    if (!g || len > PEGO_MAX_INPUT) return NULL;
    if (!opt) opt = &defaults;
    pego_document *d = rt_calloc(1, sizeof *d);
    if (!d) return NULL;
    d->p = pego_parser_new(g);
    d->start_rule = rt_strdup(opt->start_rule ? opt->start_rule : "main");
    d->input_name = rt_strdup(opt->input_name ? opt->input_name : "<document>");
    d->cap = len ? len : 1;
    d->text = rt_malloc(d->cap);
    if (!d->p || !d->start_rule || !d->input_name || !d->text) {
        pego_document_free(d);
        return NULL;
    }
    if (len) memcpy(d->text, text, len);
    d->len = len;
    d->unit = opt->unit;
    d->max_depth = opt->max_depth ? opt->max_depth : PEGO_DEFAULT_MAX_DEPTH;
    d->recognize = opt->recognize;
    d->shift_ok = !reads_positions(g);
    d->p->doc = d;
    rt_buf_init(&d->old_strings);
    return d;
}

void pego_document_free(pego_document *d)
{
    if (!d) return;
    pego_parser_free(d->p);
    rt_free(d->text);
    rt_free(d->start_rule);
    rt_free(d->input_name);
    rt_tree_free(&d->old);
    rt_buf_free(&d->old_strings);
    rt_free(d->shift);
    rt_free(d->forward);
    rt_free(d->moved);
    rt_free(d->work);
    rt_free(d->edits);
    rt_free(d);
}

const char *pego_document_text(const pego_document *d, size_t *len)
{
    if (len) *len = d->len;
    return d->text;
}

const char *pego_document_error(const pego_document *d) { return d->error[0] ? d->error : NULL; }

void pego_document_get_stats(const pego_document *d, pego_document_stats *out) { *out = d->stats; }

int pego_document_set_trace(pego_document *d, pego_trace_fn fn, void *userdata)
{
    return pego_parser_set_trace(d->p, fn, userdata);
}

int pego_document_remove_trace(pego_document *d, pego_trace_fn fn, void *userdata)
{
    return pego_parser_remove_trace(d->p, fn, userdata);
}

/* ---- edits ---- */

/* Whether byte offset b is inside a character (after its first byte). */
static int inside_character(const pego_document *d, size_t b)
{
    const unsigned char *s = (const unsigned char *)d->text;
    for (size_t k = 1; k <= 3 && k <= b; k++) {
        if ((s[b - k] & 0xC0) == 0x80) continue;
        uint32_t cp;
        return (size_t)rt_unicode_decode(s + b - k, d->len - (b - k), &cp) > k;
    }
    return 0;
}

/* The length of the text in the document's unit. */
static uint64_t text_units(const pego_document *d)
{
    if (d->unit == PEGO_UNIT_BYTES) return d->len;
    const unsigned char *s = (const unsigned char *)d->text;
    uint64_t n = 0;
    for (size_t b = 0; b < d->len; n++) {
        uint32_t cp;
        b += s[b] < 0x80 ? 1 : (size_t)rt_unicode_decode(s + b, d->len - b, &cp);
    }
    return n;
}

/* The byte offset of position pos in the document's unit, or -1 when it is
 * past the end; in byte mode, -2 when it is inside a character. */
static int64_t byte_offset(const pego_document *d, uint64_t pos)
{
    if (d->unit == PEGO_UNIT_BYTES) {
        if (pos > d->len) return -1;
        return pos < d->len && inside_character(d, (size_t)pos) ? -2 : (int64_t)pos;
    }
    const unsigned char *s = (const unsigned char *)d->text;
    size_t b = 0;
    for (uint64_t u = 0; u < pos; u++) {
        if (b == d->len) return -1;
        uint32_t cp;
        b += s[b] < 0x80 ? 1 : (size_t)rt_unicode_decode(s + b, d->len - b, &cp);
    }
    return (int64_t)b;
}

/* Whether the entry outlives the edits since the last parse, each in turn:
 * an entry is kept when the call examined nothing from the edit on; moved
 * when it began after the edit (not at its end: a ^ at the call's start
 * looked at the byte before it), *shift adding up how far its value's nodes
 * move; dropped otherwise, as are the leaders of left-recursive cycles, whose
 * seeds grew over the old text. */
static int outlives_edits(const pego_document *d, rt_memo_entry *e, int64_t *shift)
{
    const pego_grammar *g = d->p->g;
    if (d->nedits && (g->rules[e->variant % (uint32_t)g->nrules].flags & RULE_LEADER)) return 0;
    for (uint32_t i = 0; i < d->nedits; i++) {
        const struct doc_edit *x = &d->edits[i];
        if (e->examined <= x->from + EXAMINED_SLACK) continue;   /* kept as it is */
        if (e->pos <= x->to || !d->shift_ok) return 0;
        e->pos = (uint32_t)(e->pos + x->delta);
        e->end = (uint32_t)(e->end + x->delta);
        e->examined = (uint32_t)(e->examined + x->delta);
        if (e->exp_len) e->exp_far = (uint32_t)(e->exp_far + x->delta);
        *shift += x->delta;
    }
    return 1;
}

pego_status pego_document_edit(pego_document *d, uint64_t start, uint64_t end, const char *text, size_t len)
{
    d->error[0] = 0;
    int64_t from = byte_offset(d, start), to = byte_offset(d, end);
    if (from == -1 || to == -1)
        return usage(d, "edit [%llu, %llu) is outside the text (%llu %s long)", (unsigned long long)start,
                     (unsigned long long)end, (unsigned long long)text_units(d),
                     d->unit == PEGO_UNIT_BYTES ? "bytes" : "characters");
    if (from == -2 || to == -2)
        return usage(d, "edit [%llu, %llu) begins or ends inside a character", (unsigned long long)start,
                     (unsigned long long)end);
    if (from > to) return usage(d, "edit [%llu, %llu) ends before it begins", (unsigned long long)start,
                                (unsigned long long)end);
    size_t newlen = d->len - (size_t)(to - from) + len;
    if (newlen > PEGO_MAX_INPUT)
        return usage(d, "the text would be too large: %zu bytes (the limit is 4 GiB)", newlen);
    if (newlen > d->cap) {
        size_t cap = d->cap * 2 > newlen ? d->cap * 2 : newlen;
        char *t = rt_realloc(d->text, cap);
        if (!t) return PEGO_ENOMEM;
        d->text = t;
        d->cap = cap;
    }
    memmove(d->text + from + len, d->text + to, d->len - (size_t)to);
    if (len) memcpy(d->text + from, text, len);
    d->len = newlen;
    /* kept for the next parse; past DOC_EDITS_HELD edits (or out of memory),
     * the memo table is given up rather than walked once per edit */
    if (d->p->memo.n) {
        if (d->nedits < DOC_EDITS_HELD &&
            rt_buf_grow((void **)&d->edits, &d->capedits, (uint64_t)d->nedits + 1, sizeof *d->edits) == 0) {
            d->edits[d->nedits++] = (struct doc_edit){ (uint32_t)from, (uint32_t)to, (int64_t)len - (to - from) };
        } else {
            rt_memo_reset(&d->p->memo);
            d->nedits = 0;
        }
    }
    return PEGO_OK;
}

/* ---- parsing ---- */

/* Makes old node v (a value: index + 1) in the parse's tree, its children
 * and field values made already (forward); returns its value, 0 when out of
 * memory. */
static uint32_t copy_node(pego_document *d, pego_parser *p, uint32_t v, int64_t shift)
{
    const rt_tree *o = &d->old;
    rt_tree *t = &p->tree;
    const pego_node *n = &o->nodes[v - 1];
    uint32_t nkids = rt_tree_node_nkids(o, n);
    if (rt_buf_grow((void **)&p->scratch, &p->capscratch, nkids, sizeof(uint32_t)) < 0) return 0;
    uint32_t *kids = p->scratch;
    for (uint32_t i = 0; i < nkids; i++) {
        uint32_t kid = o->kids[n->kids + i];
        kids[i] = kid ? d->forward[kid - 1] : 0;
    }
    uint32_t nv = rt_tree_node(t, (int)(n->tag & 7u), (uint32_t)(n->start + shift), (uint32_t)(n->end + shift),
                               kids, nkids);
    if (!nv) return 0;
    t->nodes[nv - 1].tag = n->tag & ~NODE_HAS_FIELDS;
    uint32_t first, count = rt_tree_fields(o, n, &first);
    if (n->tag & NODE_HAS_FIELDS) {
        if (rt_buf_grow((void **)&t->fields, &t->capfields, (uint64_t)t->nfields + count, sizeof(rt_field)) < 0 ||
            rt_tree_set_typed(t, nv, rt_tree_node_user_type(o, n), t->nfields, count) < 0)
            return 0;
        for (uint32_t i = 0; i < count; i++) {
            rt_field f = o->fields[first + i];
            if (f.kind == FIELD_NODE && f.value) {
                f.value = d->forward[f.value - 1];
            } else if (f.kind == FIELD_STRING) {
                uint32_t off = (uint32_t)p->strings.len, flen = FIELD_STRING_LEN(f.value);
                rt_buf_add(&p->strings, d->old_strings.data + FIELD_STRING_OFF(f.value), (size_t)flen + 1);
                if (p->strings.oom) return 0;
                f.value = FIELD_STRING_AT(off, flen);
            }
            t->fields[t->nfields++] = f;
        }
    }
    return nv;
}

/* Copies old node v and the nodes under it (children and field values) that
 * are not copied yet, children first, with a stack of its own: a tree as deep
 * as the nesting limit copies without deep C recursion. */
static uint32_t copy_tree(pego_document *d, pego_parser *p, uint32_t v, int64_t shift)
{
    if (d->forward[v - 1]) return d->forward[v - 1];
    const rt_tree *o = &d->old;
    uint32_t n = 0;
#define PUSH(x) do { \
        if (rt_buf_grow((void **)&d->work, &d->capwork, (uint64_t)n + 1, sizeof *d->work) < 0) return 0; \
        d->work[n++] = (x); \
    } while (0)
    PUSH(v);
    while (n) {
        uint32_t top = d->work[n - 1];
        if (d->forward[top - 1]) { n--; continue; }
        /* the children and field values not made yet go on top of it; when none is left, it is made */
        const pego_node *node = &o->nodes[top - 1];
        uint32_t before = n, nkids = rt_tree_node_nkids(o, node);
        for (uint32_t i = nkids; i-- > 0;) {
            uint32_t kid = o->kids[node->kids + i];
            if (kid && !d->forward[kid - 1]) PUSH(kid);
        }
        uint32_t first, count = rt_tree_fields(o, node, &first);
        for (uint32_t i = count; i-- > 0;) {
            const rt_field *f = &o->fields[first + i];
            if (f->kind == FIELD_NODE && f->value && !d->forward[f->value - 1]) PUSH((uint32_t)f->value);
        }
        if (n > before) continue;
        uint32_t nv = copy_node(d, p, top, shift);
        if (!nv) return 0;
        d->forward[top - 1] = nv;
        d->moved[top - 1] = shift;
        n--;
    }
#undef PUSH
    return d->forward[v - 1];
}

int rt_document_carry(pego_parser *p, rt_memo_entry *m)
{
    pego_document *d = p->doc;
    m->flags &= ~(uint32_t)MEMO_CARRIED;
    uint32_t v = VAL_NODE(m->value);
    if (!(m->flags & MEMO_OK) || m->variant >= (uint32_t)p->g->nrules || v == VAL_NIL) return 0;
    uint32_t k = (uint32_t)(m - p->memo.entries);
    uint32_t nv = copy_tree(d, p, v, d->shift[k]);
    if (!nv) return -1;
    m->value = nv | (m->value & VAL_CALLED);
    d->shift[k] = 0;
    return 0;
}

/* Before a parse, one walk over the memo table. An entry the last parse
 * carried but did not use has its value still in the tree before the last
 * parse's (old): it is copied into the last parse's tree now, before old is
 * reused (most of them were, inside the value of a call that was reused).
 * Then the edits since, and every entry is marked carried. Dropped: growing
 * seeds, entries with recovered errors (their texts are in a parse's string
 * arena) and entries keyed by the values of variables (interned per parse:
 * vm/vars.c), and values that cannot be copied. */
static int prepare_entry(pego_document *d, rt_memo_entry *e, uint32_t k, int64_t *shift)
{
    pego_parser *p = d->p;
    if ((e->flags & MEMO_GROWING) || e->rec_len || (e->context >> 32)) return 0;
    *shift = d->shift[k];
    if (e->flags & MEMO_CARRIED) {
        uint32_t v = VAL_NODE(e->value);
        if ((e->flags & MEMO_OK) && e->variant < (uint32_t)p->g->nrules && v != VAL_NIL) {
            uint32_t nv = d->forward[v - 1];                 /* most were copied with another value */
            if (nv && d->moved[v - 1] != *shift) return 0;   /* copied moved otherwise */
            if (!nv && !(nv = copy_tree(d, p, v, *shift))) return 0;
            e->value = nv | (e->value & VAL_CALLED);
        }
        *shift = 0;
    }
    if (!outlives_edits(d, e, shift)) return 0;
    e->flags |= MEMO_CARRIED;
    return 1;
}

static int keep_prepared(rt_memo_entry *e, uint32_t k, uint32_t to_k, void *ctx)
{
    pego_document *d = ctx;
    int64_t shift;
    if (!prepare_entry(d, e, k, &shift)) return 0;
    d->shift[to_k] = shift;
    return 1;
}

/* An entry prepare_entry dropped, in place, is marked growing to go. */
static int keep_unmarked(rt_memo_entry *e, uint32_t k, uint32_t to_k, void *ctx)
{
    pego_document *d = ctx;
    if (e->flags & MEMO_GROWING) return 0;
    d->shift[to_k] = d->shift[k];
    return 1;
}

/* The walk: with edits, entries move, and the table is compacted and its
 * slots made again (rt_memo_filter); without, the entries stay in place and
 * the table is compacted only if some go. */
static int prepare_entries(pego_document *d)
{
    rt_memo *m = &d->p->memo;
    int status = 0;
    if (d->nedits) {
        status = rt_memo_filter(m, keep_prepared, d);
    } else {
        uint32_t gone = 0;
        for (uint32_t k = 0; k < m->n; k++) {
            int64_t shift;
            rt_memo_entry *e = &m->entries[k];
            if (prepare_entry(d, e, k, &shift)) {
                d->shift[k] = shift;
            } else {
                e->flags |= MEMO_GROWING;
                gone++;
            }
        }
        if (gone) status = rt_memo_filter(m, keep_unmarked, d);
    }
    d->nedits = 0;
    return status;
}

#define REFUSE(...) (p->res.status = PEGO_EUSAGE, (pego_status)rt_parse_abort(p, __VA_ARGS__))

pego_status pego_document_parse(pego_document *d, const pego_result **out)
{
    pego_parser *p = d->p;
    const pego_grammar *g = p->g;
    rt_parse_clear_result(p);
    if (out) *out = &p->res;
    d->error[0] = 0;
    d->stats = (pego_document_stats){ 0, 0 };
    int rule = pego_grammar_rule_index(g, d->start_rule);
    if (rule < 0) return REFUSE("undefined rule %s", d->start_rule);
    if (d->recognize) return REFUSE("documents do not support recognition");
    rt_input_reset(&p->in, d->text, (uint32_t)d->len, d->unit);
    __atomic_store_n(&p->progress, 0, __ATOMIC_RELAXED);
    rt_parse_unobserved_reference(p, PEGO_MEMO_ALL, d->max_depth);   /* every call memoized */
    /* trace sinks and the profiler see every call; a reused entry is a memo hit */
    p->prof_on = rt_profiler_parse_begin(p);
    p->observing = p->ntrace > 0 || p->prof_on;
    if (p->ntrace && rt_buf_grow((void **)&p->trace_items, &p->cap_trace_items, (uint64_t)g->nexpects,
                                 sizeof *p->trace_items) < 0) {
        p->res.status = PEGO_ENOMEM;
        rt_parse_abort(p, "out of memory");
        if (p->prof_on) rt_profiler_parse_end(p, d->input_name, d->len);
        return PEGO_ENOMEM;
    }
    /* The entries kept are brought into the last parse's tree (forward still
     * maps old to it: nodes the last parse copied are not copied again),
     * which then becomes old, the tree they are carried from; the new tree
     * starts empty. */
    int status = PEGO_ENOMEM;
    uint32_t made_from = 0;
    if (rt_buf_grow((void **)&d->forward, &d->capforward, d->old.nnodes, sizeof *d->forward) == 0 &&
        rt_buf_grow((void **)&d->moved, &d->capmoved, d->old.nnodes, sizeof *d->moved) == 0) {
        if (prepare_entries(d) < 0) rt_memo_reset(&p->memo);
        rt_tree tree = d->old;
        d->old = p->tree;
        p->tree = tree;
        rt_tree_reset(&p->tree);
        rt_buf strings = d->old_strings;
        d->old_strings = p->strings;
        p->strings = strings;
        if (rt_buf_grow((void **)&d->forward, &d->capforward, d->old.nnodes, sizeof *d->forward) < 0 ||
            rt_buf_grow((void **)&d->moved, &d->capmoved, d->old.nnodes, sizeof *d->moved) < 0) {
            rt_memo_reset(&p->memo);       /* nothing to carry */
            d->old.nnodes = 0;
        }
        if (d->old.nnodes) memset(d->forward, 0, d->old.nnodes * sizeof *d->forward);
        made_from = p->memo.n;
        p->exp.far = p->exp.base = p->exp.n = 0;
        p->exp.oom = 0;
        status = vm_run(p, (uint32_t)rule);
    } else {
        rt_memo_reset(&p->memo);
        status = rt_parse_abort(p, "out of memory");
        p->res.status = PEGO_ENOMEM;
    }
    if (p->exp.oom && status != PEGO_ENOMEM) {
        rt_parse_clear_result(p);
        p->res.status = PEGO_ENOMEM;
        status = rt_parse_abort(p, "out of memory");
    }
    if (status == PEGO_ABORTED && p->ntrace) rt_trace_parse_aborted(p);
    d->stats.evaluated = p->res.stats.evals;
    d->stats.reused = p->res.stats.memo_hits;
    p->res.stats.rules_memoized = p->memo.rules_used;
    /* An aborted parse forgets the memo table (7.2); the entries the parse
     * made have no shift. */
    if (status != PEGO_OK && status != PEGO_SYNTAX_ERROR) {
        rt_memo_reset(&p->memo);
    } else if (rt_buf_grow((void **)&d->shift, &d->capshift, (uint64_t)p->memo.n + 1, sizeof *d->shift) < 0) {
        rt_memo_reset(&p->memo);
    } else {
        for (uint32_t k = made_from; k < p->memo.n; k++) d->shift[k] = 0;
    }
    if (status == PEGO_OK) {
        p->res.status = PEGO_OK;
        p->res.has_value = 1;
        p->res.nrecovered = p->nrec;
    }
    if (p->prof_on) rt_profiler_parse_end(p, d->input_name, d->len);
    return p->res.status;
}
