/* The memo table: entries keyed by (rule variant, position, binding level,
 * environment of the variables the rule reads) in open-addressed slots kept
 * in the order of the input (rt_memo_home), the arena of expectation sets
 * kept by entries, and the second-call bitset. All of it is reused across
 * parses. The search and the making of an entry are inline in
 * runtime/parser.h (rt_memo_put), for the profiled program's memoized calls;
 * the table's growth is here. */
#include "parser.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

/* The most slots an estimate of the entries to come makes (next_size). */
enum { MAX_ESTIMATE = 1u << 24 };

/* Puts entry k in the slots; returns how far from its home it went. */
static inline uint32_t place(rt_memo *m, uint32_t k)
{
    const rt_memo_entry *e = &m->entries[k];
    uint32_t mask = m->nslots - 1, i = rt_memo_home(m, e->variant, e->pos, e->context) & mask, far = 0;
    while (m->slots[i]) i = (i + 1) & mask, far++;
    m->slots[i] = k + 1;
    return far;
}

/* Puts every entry in the slots, which are empty; spreads them when a search
 * is long. */
static void place_all(rt_memo *m)
{
    for (uint32_t k = 0; k < m->n; k++) {
        if (place(m, k) > RT_MEMO_LONG_SEARCH && !m->spread) {
            m->spread = 1;
            memset(m->slots, 0, m->nslots * sizeof *m->slots);
            k = UINT32_MAX;              /* again, from the first */
        }
    }
}

rt_memo_entry *rt_memo_find(rt_memo *m, uint32_t variant, uint32_t pos, uint32_t level, uint32_t env)
{
    if (!m->nslots) return NULL;
    uint32_t mask = m->nslots - 1;
    uint64_t ctx = rt_memo_context(level, env);
    for (uint32_t i = rt_memo_home(m, variant, pos, ctx) & mask;; i = (i + 1) & mask) {
        uint32_t s = m->slots[i];
        if (!s) return NULL;
        rt_memo_entry *e = &m->entries[s - 1];
        if (e->variant == variant && e->pos == pos && e->context == ctx) return e;
    }
}

/* Moves the entries to nslots slots, their blocks as many as the lines, over
 * the positions up to cover. */
static int rehash(rt_memo *m, uint32_t nslots, uint32_t cover)
{
    uint32_t *slots = rt_calloc(nslots, sizeof(uint32_t));
    if (!slots) return -1;
    rt_free(m->slots);
    m->slots = slots;
    m->nslots = nslots;
    m->shift = 0;
    while (m->shift < 31 && (cover >> m->shift) > nslots / 16) m->shift++;
    place_all(m);
    return 0;
}

/* The number of slots the table grows to, and the positions their blocks
 * cover (*cover, rehash): twice as many slots, over the positions seen so
 * far; or, once the entries stand for a 64th of the input, as many as the
 * whole input will need at their rate, at most half full, over the whole
 * input. A parse makes its entries as it reads the input: one table of the
 * right size spares it the moves of all the sizes between, and blocks over
 * the whole input keep a line for each block to the end (blocks over the
 * positions seen so far would wrap around the table, and crowd its lines). */
static uint32_t next_size(const rt_memo *m, uint32_t *cover)
{
    uint64_t n = m->nslots ? (uint64_t)m->nslots * 2 : 1024;
    *cover = m->top;
    if (m->extent > m->top && m->top >= m->extent / 64) {
        uint64_t want = (uint64_t)m->n * m->extent / (m->top + 1) * 2;
        while (n < want && n < MAX_ESTIMATE) n *= 2;
        *cover = m->extent;
    }
    return (uint32_t)n;
}

/* How many entries rt_memo_put may make inline: as many as the table has
 * room for, the slots at most half full (rt_memo_add grows it). Out of line:
 * inlined in rt_memo_add's three growth branches, it cost every entry the
 * fast program adds three instructions (callgrind, config's trees). */
static __attribute__((noinline)) void set_room(rt_memo *m)
{
    m->room = m->rule_used ? (m->cap < m->nslots / 2 ? m->cap : m->nslots / 2) : 0;
}

/* rt_memo_put when the table may have to grow first, or its slots are
 * spread, or a search got long. */
rt_memo_entry *rt_memo_put_slow(rt_memo *m, uint32_t variant, uint32_t pos, uint32_t level, uint32_t env,
                                uint32_t nvariants, int *added)
{
    rt_memo_entry *e = rt_memo_find(m, variant, pos, level, env);
    *added = !e;
    return e ? e : rt_memo_add(m, variant, pos, level, env, nvariants);
}

/* Creates the empty entry for (variant, pos, level, env), which the table
 * does not have; NULL when out of memory. */
rt_memo_entry *rt_memo_add(rt_memo *m, uint32_t variant, uint32_t pos, uint32_t level, uint32_t env,
                           uint32_t nvariants)
{
    rt_memo_entry *e;
    if (!m->rule_used) {
        m->rule_used = rt_calloc(nvariants, 1);
        if (!m->rule_used) return NULL;
        set_room(m);
    }
    if ((uint64_t)(m->n + 1) * 2 > m->nslots) {
        uint32_t cover, nslots = next_size(m, &cover);
        if (rehash(m, nslots, cover) < 0) return NULL;
        set_room(m);
    }
    if (m->n == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 512;
        rt_memo_entry *n = rt_realloc(m->entries, cap * sizeof *n);
        if (!n) return NULL;
        m->entries = n;
        m->cap = cap;
        set_room(m);
    }
    e = rt_memo_new_entry(m, variant, pos, rt_memo_context(level, env));
    if (place(m, m->n - 1) > RT_MEMO_LONG_SEARCH && !m->spread) {
        m->spread = 1;
        memset(m->slots, 0, m->nslots * sizeof *m->slots);
        place_all(m);
    }
    return e;
}

/* rt_memo_keep (runtime/parser.h) of a set of n > 0 expectations. A set equal
 * to the previous one kept reuses it. */
int rt_memo_keep_set(rt_memo *m, rt_memo_entry *e, const uint32_t *ids, uint32_t n)
{
    if (m->nids >= n && memcmp(m->ids + m->nids - n, ids, n * sizeof *ids) == 0) {
        e->exp_off = m->nids - n;
        return 0;
    }
    if (m->nids + n > m->capids) {
        uint64_t cap = m->capids ? m->capids : 1024;
        while (cap < (uint64_t)m->nids + n) cap *= 2;
        if (cap > UINT32_MAX) return -1;
        uint32_t *a = rt_realloc(m->ids, cap * sizeof *a);
        if (!a) return -1;
        m->ids = a;
        m->capids = (uint32_t)cap;
    }
    memcpy(m->ids + m->nids, ids, n * sizeof *ids);
    e->exp_off = m->nids;
    m->nids += n;
    return 0;
}

/* rt_memo_keep_recovered (runtime/parser.h) of n > 0 errors. */
int rt_memo_keep_errors(rt_memo *m, const rt_recovered *r, uint32_t n)
{
    if (m->nrecs + n > m->caprecs) {
        uint64_t cap = m->caprecs ? m->caprecs : 64;
        while (cap < (uint64_t)m->nrecs + n) cap *= 2;
        if (cap > UINT32_MAX) return -1;
        rt_recovered *a = rt_realloc(m->recs, cap * sizeof *a);
        if (!a) return -1;
        m->recs = a;
        m->caprecs = (uint32_t)cap;
    }
    memcpy(m->recs + m->nrecs, r, n * sizeof *r);
    m->nrecs += n;
    return 0;
}

/* Clears the second-call bitset for bits bits, the first of them for the
 * position base. */
int rt_memo_seen_prepare(rt_memo *m, uint32_t base, size_t bits)
{
    m->seen_base = base;
    m->seen_fresh = base;
    size_t words = (bits + 63) / 64 + 1;
    if (words > m->nseen) {
        uint64_t *s = rt_realloc(m->seen, words * sizeof *s);
        if (!s) return -1;
        m->seen = s;
        m->nseen = words;
    }
    memset(m->seen, 0, words * sizeof *m->seen);
    return 0;
}

/* Clears the second-call bits of the positions [lo, hi] (nd bits each; whole
 * words: a neighbour's cleared bit only memoizes one call less). */
void rt_memo_seen_clear(rt_memo *m, uint32_t lo, uint32_t hi, size_t nd)
{
    if (!nd || lo < m->seen_base || hi < lo) return;
    size_t first = (size_t)(lo - m->seen_base) * nd / 64, last = (((size_t)(hi - m->seen_base) + 1) * nd - 1) / 64;
    memset(m->seen + first, 0, (last - first + 1) * sizeof *m->seen);
}

int rt_memo_filter(rt_memo *m, int (*keep)(rt_memo_entry *e, uint32_t k, uint32_t to_k, void *ctx), void *ctx)
{
    uint32_t n = 0;
    uint64_t ids_kept = 0, recs_kept = 0;
    for (uint32_t k = 0; k < m->n; k++) {
        rt_memo_entry *e = &m->entries[k];
        if (!keep(e, k, n, ctx)) continue;
        ids_kept += e->exp_len;
        recs_kept += e->rec_len;
        if (n != k) m->entries[n] = *e;
        n++;
    }
    m->n = n;
    int status = 0;
    /* the expectation sets and recovered errors stay where they are, unless
     * most of them went with the entries dropped */
    if (ids_kept * 2 < m->nids || recs_kept * 2 < m->nrecs) {
        uint32_t *ids = m->ids, nids = m->nids;
        rt_recovered *recs = m->recs;
        m->ids = NULL;
        m->nids = m->capids = 0;
        m->recs = NULL;
        m->nrecs = m->caprecs = 0;
        for (uint32_t k = 0; k < m->n && status == 0; k++) {
            rt_memo_entry *e = &m->entries[k];
            if (rt_memo_keep(m, e, RT_AT(ids, e->exp_off), e->exp_off + e->exp_len <= nids ? e->exp_len : 0,
                             e->exp_far) < 0 ||
                rt_memo_keep_recovered(m, e, RT_AT(recs, e->rec_off), e->rec_len) < 0)
                status = -1;
        }
        rt_free(ids);
        rt_free(recs);
    }
    if (status < 0) m->n = 0;
    if (m->rules_used) {
        rt_free(m->rule_used);
        m->rule_used = NULL;
        m->rules_used = 0;
        m->room = 0;
    }
    /* the slots again, in place */
    if (m->nslots) {
        memset(m->slots, 0, m->nslots * sizeof *m->slots);
        m->top = 0;
        for (uint32_t k = 0; k < m->n; k++)
            if (m->entries[k].pos > m->top) m->top = m->entries[k].pos;
        place_all(m);
    }
    return status;
}

/* Empties the table. A table far larger than its entries (a stream parse
 * empties it after every element) has only their slots cleared. */
void rt_memo_reset(rt_memo *m)
{
    if ((uint64_t)m->n * 16 < m->nslots) {
        uint32_t mask = m->nslots - 1;
        for (uint32_t k = 0; k < m->n; k++) {
            const rt_memo_entry *e = &m->entries[k];
            uint32_t i = rt_memo_home(m, e->variant, e->pos, e->context) & mask;
            while (m->slots[i] != k + 1) i = (i + 1) & mask;
            m->slots[i] = 0;
        }
    } else if (m->n) {
        memset(m->slots, 0, m->nslots * sizeof *m->slots);
    }
    m->n = 0;
    m->top = 0;
    m->extent = 0;
    m->spread = 0;
    m->nids = 0;
    m->nrecs = 0;
    if (m->rules_used) {
        rt_free(m->rule_used);
        m->rule_used = NULL;
        m->rules_used = 0;
        m->room = 0;
    }
}

void rt_memo_free(rt_memo *m)
{
    rt_free(m->entries);
    rt_free(m->slots);
    rt_free(m->ids);
    rt_free(m->recs);
    rt_free(m->rule_used);
    rt_free(m->seen);
    memset(m, 0, sizeof *m);
}
