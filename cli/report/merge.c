/* Merging reports (summary.h): the reader's records of whole frames become one
 * rep_summary. A frame's records are staged, indexed by merged grammar and
 * rule, and added to the totals only at frame_end(complete), so a damaged
 * frame leaves no trace. Parse records are summed and only the slowest
 * opt.parse_limit are kept, in a bounded heap, so memory does not grow with the
 * number of parses. The headers' clocks, modes and detail flags are counted
 * per process; the detail-only metrics are merged from frames with detail
 * only. With opt.by_input, the counts of the frames whose parses of a grammar
 * all read one input are also kept per input (for pprof's labels). Counts are
 * added with rep_sum, which saturates. */
#include "summary.h"

#include <stdlib.h>
#include <string.h>

uint64_t rep_sum(uint64_t a, uint64_t b)
{
    return a >= REP_COUNT_MAX || b >= REP_COUNT_MAX - a ? REP_COUNT_MAX : a + b;
}

/* ---- an open-addressing map from exact 64-bit keys to indices ---- */

typedef struct u64map {
    uint64_t *keys;
    uint32_t *vals;     /* REP_NONE: empty slot */
    size_t    cap, n;
} u64map;

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static uint32_t map_get(const u64map *m, uint64_t key)
{
    if (!m->cap) return REP_NONE;
    for (size_t i = mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->vals[i] == REP_NONE) return REP_NONE;
        if (m->keys[i] == key) return m->vals[i];
    }
}

static int map_put(u64map *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        uint64_t *keys = malloc(cap * sizeof *keys);
        uint32_t *vals = malloc(cap * sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return -1;
        }
        memset(vals, 0xff, cap * sizeof *vals);
        for (size_t j = 0; j < m->cap; j++) {
            if (m->vals[j] == REP_NONE) continue;
            size_t i = mix(m->keys[j]) & (cap - 1);
            while (vals[i] != REP_NONE) i = (i + 1) & (cap - 1);
            keys[i] = m->keys[j];
            vals[i] = m->vals[j];
        }
        free(m->keys);
        free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->cap = cap;
    }
    size_t i = mix(key) & (m->cap - 1);
    while (m->vals[i] != REP_NONE) i = (i + 1) & (m->cap - 1);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}

static void map_free(u64map *m)
{
    free(m->keys);
    free(m->vals);
}

/* ---- the merging state ---- */

typedef struct frame_grammar {
    uint32_t  id;          /* the frame's grammar id */
    uint32_t  grammar;     /* merged grammar, or REP_NONE when filtered out */
    uint32_t *rules;       /* frame rule id -> merged rule */
    size_t    nrules;
    uint64_t  parses, bytes;
    char     *first_input; /* with by_input: the input of its first parse */
    int       inputs;      /* with by_input: 0, 1 or 2 (several) distinct inputs */
    uint32_t  input;       /* at commit: the string id of its one input, else REP_NONE */
} frame_grammar;

/* fg: the index of the record's frame_grammar */
typedef struct staged_rule  { uint32_t rule, fg; rep_counts c; } staged_rule;
/* native: the string id of its native frames joined by newlines, or REP_NONE */
typedef struct staged_stack { size_t off, len; uint32_t fg, line, native; uint64_t calls, self_ns, node_bytes; } staged_stack;

/* A list of parses: a bounded heap whose root is the one that sorts last, or
 * (limit 0) a plain list. */
typedef struct parse_list {
    rep_sparse *v;
    size_t      n, cap, limit;
} parse_list;

struct rep_merge {
    char        **strings;    /* interned names: index = string id */
    size_t        nstrings, strings_cap;
    u64map        string_ids; /* FNV hash -> first string id; collisions chain in string_next */
    uint32_t     *string_next;
    size_t        string_next_cap;
    u64map        rule_ids, edge_ids, node_ids, input_ids, line_ids, node_leaf_ids;
    size_t        grammars_cap, rules_cap, edges_cap, nodes_cap, clocks_cap, modes_cap, by_input_cap;
    size_t        lines_cap, node_leaves_cap;

    /* the frame being read */
    frame_grammar *fg;
    size_t         nfg, fg_cap;
    staged_rule   *sr;
    size_t         nsr, sr_cap;
    rep_sedge     *se;
    size_t         nse, se_cap;
    staged_stack  *ss;
    size_t         nss, ss_cap;
    rep_sline     *sl;        /* line records: grammar is the frame grammar's index */
    size_t         nsl, sl_cap;
    rep_scaller   *sc;        /* caller records, frames owned */
    size_t         nsc, sc_cap;
    size_t         callers_cap;
    uint32_t      *path;      /* merged rule indices of the staged stacks */
    size_t         npath, path_cap;
    uint64_t       parses, calls, evals, memo, clock_reads, time_ns;
    int            detail;    /* the frame's header says detail */
    int            memory;    /* the frame's header says memory */
    uint64_t       node_bytes, memo_bytes, peak_node_bytes, peak_memo_bytes, peak_stack_bytes;   /* its parses' */
    uint64_t       samples, samples_lost, sample_interval_ns;   /* the frame's header's */
    uint64_t       sample_interval_max_ns;
    int64_t        start;
    const char    *clock, *mode;   /* the frame's header's, interned */
    parse_list     fparses;
    parse_list     parses_kept;
    uint64_t       seq;
    int            oom;       /* a merge failed: reading stops, finish fails */
};

/* Frees what the frame's grammars hold. */
static void frame_grammars_clear(rep_merge *m)
{
    for (size_t i = 0; i < m->nfg; i++) {
        free(m->fg[i].rules);
        free(m->fg[i].first_input);
    }
}

/* The string's id, interning it; REP_NONE when out of memory. */
static uint32_t intern(rep_merge *m, const char *s)
{
    uint64_t h = rep_hash(s, strlen(s));
    uint32_t id = map_get(&m->string_ids, h);
    for (uint32_t i = id; i != REP_NONE; i = m->string_next[i])
        if (strcmp(m->strings[i], s) == 0) return i;
    if (rep_reserve(&m->strings, &m->strings_cap, m->nstrings + 1, sizeof *m->strings) < 0) return REP_NONE;
    if (rep_reserve(&m->string_next, &m->string_next_cap, m->nstrings + 1, sizeof *m->string_next) < 0) return REP_NONE;
    char *copy = strdup(s);
    if (!copy) return REP_NONE;
    uint32_t nid = (uint32_t)m->nstrings;
    if (id == REP_NONE) {
        if (map_put(&m->string_ids, h, nid) < 0) { free(copy); return REP_NONE; }
        m->string_next[nid] = REP_NONE;
    } else {
        /* chain behind the first string of this hash */
        m->string_next[nid] = m->string_next[id];
        m->string_next[id] = nid;
    }
    m->strings[nid] = copy;
    m->nstrings++;
    return nid;
}

rep_summary *rep_summary_new(const rep_summary_options *opt)
{
    rep_summary *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->m = calloc(1, sizeof *s->m);
    if (!s->m) { free(s); return NULL; }
    s->opt = *opt;
    s->root = REP_NONE;
    s->m->fparses.limit = s->m->parses_kept.limit = opt->parse_limit;
    return s;
}

static void parse_list_clear(parse_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i].input);
    l->n = 0;
}

void rep_summary_free(rep_summary *s)
{
    if (!s) return;
    rep_merge *m = s->m;
    for (size_t i = 0; i < m->nstrings; i++) free(m->strings[i]);
    free(m->strings);
    free(m->string_next);
    map_free(&m->string_ids);
    map_free(&m->rule_ids);
    map_free(&m->edge_ids);
    map_free(&m->node_ids);
    map_free(&m->input_ids);
    map_free(&m->line_ids);
    map_free(&m->node_leaf_ids);
    frame_grammars_clear(m);
    free(m->fg);
    free(m->sr);
    free(m->se);
    free(m->ss);
    free(m->sl);
    for (size_t i = 0; i < m->nsc; i++) free(m->sc[i].frames);
    free(m->sc);
    free(m->path);
    parse_list_clear(&m->fparses);
    free(m->fparses.v);
    parse_list_clear(&m->parses_kept);
    free(m->parses_kept.v);
    free(m);
    for (size_t i = 0; i < s->ngrammars; i++) {
        free(s->grammars[i].label);
        free(s->grammars[i].source);
    }
    for (size_t i = 0; i < s->nrules; i++) free(s->rules[i].label);
    for (size_t i = 0; i < s->ntop; i++) free(s->top[i].input);
    free(s->grammars);
    free(s->rules);
    free(s->edges);
    free(s->nodes);
    free(s->lines);
    free(s->node_leaves);
    for (size_t i = 0; i < s->ncallers; i++) free(s->callers[i].frames);
    free(s->callers);
    free(s->by_input);
    free(s->top);
    free(s->clocks);
    free(s->modes);
    free(s);
}

/* ---- parse lists ---- */

/* < 0 when a sorts before b: slower first, then by input name, then by arrival. */
static int parse_order(const rep_sparse *a, const rep_sparse *b)
{
    if (a->time_ns != b->time_ns) return a->time_ns > b->time_ns ? -1 : 1;
    int c = strcmp(a->input, b->input);
    if (c) return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void swap_parses(rep_sparse *a, rep_sparse *b)
{
    rep_sparse t = *a;
    *a = *b;
    *b = t;
}

static void sift_down(parse_list *l, size_t i)
{
    for (;;) {
        size_t big = i, a = 2 * i + 1, b = a + 1;
        if (a < l->n && parse_order(&l->v[a], &l->v[big]) > 0) big = a;
        if (b < l->n && parse_order(&l->v[b], &l->v[big]) > 0) big = b;
        if (big == i) return;
        swap_parses(&l->v[i], &l->v[big]);
        i = big;
    }
}

/* Would p be kept? */
static int parse_wanted(const parse_list *l, const rep_sparse *p)
{
    return !l->limit || l->n < l->limit || parse_order(p, &l->v[0]) < 0;
}

/* Adds p (its input owned by the list from now on); -1 when out of memory. */
static int parse_push(parse_list *l, rep_sparse *p)
{
    if (l->limit && l->n == l->limit) {
        free(l->v[0].input);
        l->v[0] = *p;
        sift_down(l, 0);
        return 0;
    }
    if (rep_reserve(&l->v, &l->cap, l->n + 1, sizeof *l->v) < 0) {
        free(p->input);
        return -1;
    }
    size_t i = l->n++;
    l->v[i] = *p;
    if (!l->limit) return 0;
    while (i > 0 && parse_order(&l->v[i], &l->v[(i - 1) / 2]) > 0) {
        swap_parses(&l->v[i], &l->v[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    return 0;
}

/* ---- records ---- */

static frame_grammar *frame_grammar_of(rep_merge *m, uint32_t id)
{
    for (size_t i = 0; i < m->nfg; i++)
        if (m->fg[i].id == id) return &m->fg[i];
    return NULL;
}

static int grammar_selected(const rep_summary *s, const rep_grammar *g)
{
    const char *want = s->opt.grammar;
    if (!want || strcmp(want, g->name) == 0) return 1;
    char label[512];
    snprintf(label, sizeof label, "%s@%08llx", g->name, (unsigned long long)(g->hash >> 32));
    return strcmp(want, label) == 0;
}

/* The merged grammar for (name, hash), created if new. */
static uint32_t merged_grammar(rep_summary *s, const rep_grammar *g)
{
    rep_merge *m = s->m;
    uint32_t name = intern(m, g->name), file = intern(m, g->file);
    if (name == REP_NONE || file == REP_NONE) return REP_NONE;
    for (size_t i = 0; i < s->ngrammars; i++)
        if (s->grammars[i].hash == g->hash && s->grammars[i].name == m->strings[name]) return (uint32_t)i;
    if (rep_reserve(&s->grammars, &m->grammars_cap, s->ngrammars + 1, sizeof *s->grammars) < 0) return REP_NONE;
    rep_sgrammar *sg = &s->grammars[s->ngrammars];
    memset(sg, 0, sizeof *sg);
    sg->name = m->strings[name];
    sg->file = m->strings[file];
    sg->hash = g->hash;
    return (uint32_t)s->ngrammars++;
}

/* The merged rule for (grammar, name), created if new. */
static uint32_t merged_rule(rep_summary *s, uint32_t grammar, const char *name)
{
    rep_merge *m = s->m;
    uint32_t id = intern(m, name);
    if (id == REP_NONE) return REP_NONE;
    uint64_t key = (uint64_t)grammar << 32 | id;
    uint32_t r = map_get(&m->rule_ids, key);
    if (r != REP_NONE) return r;
    if (rep_reserve(&s->rules, &m->rules_cap, s->nrules + 1, sizeof *s->rules) < 0) return REP_NONE;
    r = (uint32_t)s->nrules;
    if (map_put(&m->rule_ids, key, r) < 0) return REP_NONE;
    memset(&s->rules[r], 0, sizeof s->rules[r]);
    rep_counts *c = &s->rules[r].c;
    c->repeats = c->max_repeats = c->max_repeats_pos = c->wasted = c->samples = REP_UNSET;
    c->nodes = c->node_bytes = c->memo_entries = c->memo_bytes = REP_UNSET;
    s->rules[r].grammar = grammar;
    s->rules[r].name = m->strings[id];
    s->nrules++;
    return r;
}

static int on_grammar(rep_summary *s, const rep_grammar *g)
{
    rep_merge *m = s->m;
    if (rep_reserve(&m->fg, &m->fg_cap, m->nfg + 1, sizeof *m->fg) < 0) return -1;
    frame_grammar *f = &m->fg[m->nfg];
    memset(f, 0, sizeof *f);
    f->id = g->id;
    f->grammar = REP_NONE;
    f->rules = malloc((g->nrules ? g->nrules : 1) * sizeof *f->rules);
    if (!f->rules) return -1;
    m->nfg++;
    f->nrules = g->nrules;
    if (!grammar_selected(s, g)) return 0;
    f->grammar = merged_grammar(s, g);
    if (f->grammar == REP_NONE) return -1;
    rep_sgrammar *sg = &s->grammars[f->grammar];
    if (g->source && !sg->source) {
        if (!(sg->source = malloc(g->source_len + 1))) return -1;
        memcpy(sg->source, g->source, g->source_len);
        sg->source[g->source_len] = 0;
        sg->source_len = g->source_len;
    }
    for (size_t i = 0; i < g->nrules; i++) {
        f->rules[i] = merged_rule(s, f->grammar, g->rules[i].name);
        if (f->rules[i] == REP_NONE) return -1;
        if (!s->rules[f->rules[i]].line) s->rules[f->rules[i]].line = g->rules[i].line;
    }
    return 0;
}

static int on_parse(rep_summary *s, const rep_parse *p)
{
    rep_merge *m = s->m;
    frame_grammar *f = frame_grammar_of(m, p->grammar);
    if (f->grammar == REP_NONE) return 0;
    if (s->opt.by_input && f->inputs == 0) {
        if (!(f->first_input = strdup(p->input))) return -1;
        f->inputs = 1;
    } else if (s->opt.by_input && f->inputs == 1 && strcmp(f->first_input, p->input) != 0) {
        f->inputs = 2;
    }
    f->parses++;
    f->bytes = rep_sum(f->bytes, p->bytes);
    m->parses++;
    m->calls = rep_sum(m->calls, p->calls);
    m->evals = rep_sum(m->evals, p->evals);
    m->memo = rep_sum(m->memo, p->memo);
    m->clock_reads = rep_sum(m->clock_reads, p->clock_reads);
    m->time_ns = rep_sum(m->time_ns, p->time_ns);
    rep_sparse sp = {
        .input = (char *)p->input, .grammar = f->grammar,
        .top_rule = p->top_rule == REP_NO_RULE ? REP_NONE : f->rules[p->top_rule],
        .bytes = p->bytes, .time_ns = p->time_ns, .calls = p->calls, .evals = p->evals, .memo = p->memo,
        .clock_reads = p->clock_reads, .seq = m->seq++, .unit = p->unit, .result = p->result,
        .source = p->source,
        .node_bytes = REP_UNSET, .memo_bytes = REP_UNSET, .peak_node_bytes = REP_UNSET,
        .peak_memo_bytes = REP_UNSET, .peak_stack_bytes = REP_UNSET,
    };
    if (m->memory) {
        sp.node_bytes = p->node_bytes;
        sp.memo_bytes = p->memo_bytes;
        sp.peak_node_bytes = p->peak_node_bytes;
        sp.peak_memo_bytes = p->peak_memo_bytes;
        sp.peak_stack_bytes = p->peak_stack_bytes;
        m->node_bytes = rep_sum(m->node_bytes, p->node_bytes);
        m->memo_bytes = rep_sum(m->memo_bytes, p->memo_bytes);
        if (p->peak_node_bytes > m->peak_node_bytes) m->peak_node_bytes = p->peak_node_bytes;
        if (p->peak_memo_bytes > m->peak_memo_bytes) m->peak_memo_bytes = p->peak_memo_bytes;
        if (p->peak_stack_bytes > m->peak_stack_bytes) m->peak_stack_bytes = p->peak_stack_bytes;
    }
    if (!parse_wanted(&m->fparses, &sp)) return 0;
    sp.input = strdup(p->input);
    if (!sp.input) return -1;
    return parse_push(&m->fparses, &sp);
}

static int on_rule(rep_summary *s, const rep_rule *r)
{
    rep_merge *m = s->m;
    frame_grammar *f = frame_grammar_of(m, r->grammar);
    if (f->grammar == REP_NONE) return 0;
    if (rep_reserve(&m->sr, &m->sr_cap, m->nsr + 1, sizeof *m->sr) < 0) return -1;
    staged_rule *st = &m->sr[m->nsr++];
    st->rule = f->rules[r->rule];
    st->fg = (uint32_t)(f - m->fg);
    st->c = (rep_counts){
        r->calls, r->evals, r->memo, r->matched, r->failed, r->repeats, r->max_repeats, r->max_repeats_pos,
        r->consumed, r->wasted, r->time_ns, r->self_ns, r->samples, r->nodes, r->node_bytes, r->memo_entries,
        r->memo_bytes,
    };
    if (!m->detail) st->c.repeats = st->c.max_repeats = st->c.max_repeats_pos = st->c.wasted = REP_UNSET;
    if (!m->sample_interval_ns) st->c.samples = REP_UNSET;
    if (!m->memory) st->c.nodes = st->c.node_bytes = st->c.memo_entries = st->c.memo_bytes = REP_UNSET;
    return 0;
}

static int on_edge(rep_summary *s, const rep_edge *e)
{
    rep_merge *m = s->m;
    frame_grammar *f = frame_grammar_of(m, e->grammar);
    if (f->grammar == REP_NONE) return 0;
    if (rep_reserve(&m->se, &m->se_cap, m->nse + 1, sizeof *m->se) < 0) return -1;
    m->se[m->nse++] = (rep_sedge){ f->rules[e->caller], f->rules[e->callee], e->calls, e->time_ns };
    return 0;
}

/* The n strings joined by newlines (n > 0), malloc'd; NULL when out of memory. */
static char *join_lines(const char *const *v, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) len += strlen(v[i]) + 1;
    char *joined = malloc(len), *at = joined;
    for (size_t i = 0; joined && i < n; i++) {
        size_t k = strlen(v[i]);
        memcpy(at, v[i], k);
        at[k] = i + 1 < n ? '\n' : 0;
        at += k + 1;
    }
    return joined;
}

static int on_stack(rep_summary *s, const rep_stack *st)
{
    rep_merge *m = s->m;
    frame_grammar *f = frame_grammar_of(m, st->grammar);
    if (f->grammar == REP_NONE) return 0;
    if (rep_reserve(&m->ss, &m->ss_cap, m->nss + 1, sizeof *m->ss) < 0 ||
        rep_reserve(&m->path, &m->path_cap, m->npath + st->nframes, sizeof *m->path) < 0)
        return -1;
    uint32_t native = REP_NONE;
    if (st->nnative) {
        char *joined = join_lines(st->native, st->nnative);
        native = joined ? intern(m, joined) : REP_NONE;
        free(joined);
        if (native == REP_NONE) return -1;
    }
    m->ss[m->nss++] = (staged_stack){ m->npath, st->nframes, (uint32_t)(f - m->fg), st->line, native, st->calls,
                                      st->self_ns, st->node_bytes };
    for (size_t i = 0; i < st->nframes; i++) m->path[m->npath++] = f->rules[st->frames[i]];
    return 0;
}

static int on_line(rep_summary *s, const rep_line *l)
{
    rep_merge *m = s->m;
    frame_grammar *f = frame_grammar_of(m, l->grammar);
    if (f->grammar == REP_NONE) return 0;
    if (rep_reserve(&m->sl, &m->sl_cap, m->nsl + 1, sizeof *m->sl) < 0) return -1;
    m->sl[m->nsl++] = (rep_sline){ f->grammar, l->line, l->col, l->samples, l->self_ns };
    return 0;
}

static int on_caller(rep_summary *s, const rep_caller *c)
{
    rep_merge *m = s->m;
    char *frames = join_lines(c->frames, c->nframes);
    if (!frames || rep_reserve(&m->sc, &m->sc_cap, m->nsc + 1, sizeof *m->sc) < 0) {
        free(frames);
        return -1;
    }
    m->sc[m->nsc++] = (rep_scaller){ frames, c->parses, c->time_ns };
    return 0;
}

/* A staged caller into the summary, merged with the stack of the same frames. */
static int add_caller(rep_summary *s, rep_scaller *c)
{
    for (size_t i = 0; i < s->ncallers; i++)
        if (strcmp(s->callers[i].frames, c->frames) == 0) {
            s->callers[i].parses = rep_sum(s->callers[i].parses, c->parses);
            s->callers[i].time_ns = rep_sum(s->callers[i].time_ns, c->time_ns);
            return 0;
        }
    if (rep_reserve(&s->callers, &s->m->callers_cap, s->ncallers + 1, sizeof *s->callers) < 0) return -1;
    s->callers[s->ncallers++] = *c;
    c->frames = NULL;
    return 0;
}

/* ---- frames ---- */

static void frame_reset(rep_merge *m)
{
    for (size_t i = 0; i < m->nsc; i++) free(m->sc[i].frames);
    m->nsc = 0;
    frame_grammars_clear(m);
    m->nfg = m->nsr = m->nse = m->nss = m->nsl = m->npath = 0;
    m->parses = m->calls = m->evals = m->memo = m->clock_reads = m->time_ns = 0;
    m->node_bytes = m->memo_bytes = m->peak_node_bytes = m->peak_memo_bytes = m->peak_stack_bytes = 0;
    parse_list_clear(&m->fparses);
}

static uint32_t node_for(rep_summary *s, uint32_t parent, uint32_t rule)
{
    rep_merge *m = s->m;
    uint64_t key = (uint64_t)(parent + 1u) << 32 | rule;   /* parent REP_NONE + 1 wraps to 0: a root */
    uint32_t n = map_get(&m->node_ids, key);
    if (n != REP_NONE) return n;
    if (rep_reserve(&s->nodes, &m->nodes_cap, s->nnodes + 1, sizeof *s->nodes) < 0) return REP_NONE;
    n = (uint32_t)s->nnodes;
    if (map_put(&m->node_ids, key, n) < 0) return REP_NONE;
    s->nodes[n] = (rep_snode){ rule, parent, REP_NONE, REP_NONE, 0, 0, 0 };
    s->nnodes++;
    return n;
}

/* Adds a line record's samples and time to its merged position; -1 when out of memory. */
static int add_line(rep_summary *s, const rep_sline *l)
{
    rep_merge *m = s->m;
    /* the key: 16 bits of grammar, 28 of line, 20 of column (larger ones share their last key) */
    uint64_t key = (uint64_t)(l->grammar < 0xffff ? l->grammar : 0xffff) << 48 |
                   (uint64_t)(l->line < 0xfffffff ? l->line : 0xfffffff) << 20 | (l->col < 0xfffff ? l->col : 0xfffff);
    uint32_t k = map_get(&m->line_ids, key);
    if (k == REP_NONE) {
        if (rep_reserve(&s->lines, &m->lines_cap, s->nlines + 1, sizeof *s->lines) < 0) return -1;
        k = (uint32_t)s->nlines;
        if (map_put(&m->line_ids, key, k) < 0) return -1;
        s->lines[k] = (rep_sline){ l->grammar, l->line, l->col, 0, 0 };
        s->nlines++;
    }
    s->lines[k].samples = rep_sum(s->lines[k].samples, l->samples);
    s->lines[k].self_ns = rep_sum(s->lines[k].self_ns, l->self_ns);
    return 0;
}

/* Adds self time that a stack record placed at a line, or in native frames
 * (native: their string id, or REP_NONE), to its node's leaf; -1 when out of
 * memory. The leaves of a node and line are chained from the first. */
static int add_node_leaf(rep_summary *s, uint32_t node, uint32_t line, uint32_t native, uint64_t self_ns)
{
    rep_merge *m = s->m;
    uint64_t key = (uint64_t)node << 32 | line;
    const char *frames = native == REP_NONE ? NULL : m->strings[native];
    uint32_t first = map_get(&m->node_leaf_ids, key), k = first;
    while (k != REP_NONE && s->node_leaves[k].native != frames) k = s->node_leaves[k].next;
    if (k == REP_NONE) {
        if (rep_reserve(&s->node_leaves, &m->node_leaves_cap, s->nnode_leaves + 1, sizeof *s->node_leaves) < 0)
            return -1;
        k = (uint32_t)s->nnode_leaves;
        if (first == REP_NONE && map_put(&m->node_leaf_ids, key, k) < 0) return -1;
        s->node_leaves[k] = (rep_snode_leaf){ node, line, frames, 0, REP_NONE };
        if (first != REP_NONE) {
            s->node_leaves[k].next = s->node_leaves[first].next;
            s->node_leaves[first].next = k;
        }
        s->nnode_leaves++;
    }
    s->node_leaves[k].self_ns = rep_sum(s->node_leaves[k].self_ns, self_ns);
    return 0;
}

/* Adds calls and self time to the (input, node or rule) entry of by_input;
 * -1 when out of memory. */
static int add_by_input(rep_summary *s, uint32_t input, uint32_t node, uint32_t rule, uint64_t calls, uint64_t self_ns)
{
    rep_merge *m = s->m;
    uint64_t key = (uint64_t)input << 33 | (node == REP_NONE ? (uint64_t)1 << 32 | rule : node);
    uint32_t k = map_get(&m->input_ids, key);
    if (k == REP_NONE) {
        if (rep_reserve(&s->by_input, &m->by_input_cap, s->nby_input + 1, sizeof *s->by_input) < 0) return -1;
        k = (uint32_t)s->nby_input;
        if (map_put(&m->input_ids, key, k) < 0) return -1;
        s->by_input[k] = (rep_sinput){ m->strings[input], node, rule, 0, 0 };
        s->nby_input++;
    }
    s->by_input[k].calls = rep_sum(s->by_input[k].calls, calls);
    s->by_input[k].self_ns = rep_sum(s->by_input[k].self_ns, self_ns);
    return 0;
}

/* Adds a detail-only, sampled or memory count b (REP_UNSET: not collected) to *a. */
static void add_detail(uint64_t *a, uint64_t b)
{
    if (b != REP_UNSET) *a = *a == REP_UNSET ? b : rep_sum(*a, b);
}

static void add_counts(rep_counts *a, const rep_counts *b)
{
    if (b->max_repeats != REP_UNSET && (a->max_repeats == REP_UNSET || b->max_repeats > a->max_repeats)) {
        a->max_repeats = b->max_repeats;
        a->max_repeats_pos = b->max_repeats_pos;
    }
    a->calls = rep_sum(a->calls, b->calls);
    a->evals = rep_sum(a->evals, b->evals);
    a->memo = rep_sum(a->memo, b->memo);
    a->matched = rep_sum(a->matched, b->matched);
    a->failed = rep_sum(a->failed, b->failed);
    add_detail(&a->repeats, b->repeats);
    a->consumed = rep_sum(a->consumed, b->consumed);
    add_detail(&a->wasted, b->wasted);
    a->time_ns = rep_sum(a->time_ns, b->time_ns);
    a->self_ns = rep_sum(a->self_ns, b->self_ns);
    add_detail(&a->samples, b->samples);
    add_detail(&a->nodes, b->nodes);
    add_detail(&a->node_bytes, b->node_bytes);
    add_detail(&a->memo_entries, b->memo_entries);
    add_detail(&a->memo_bytes, b->memo_bytes);
}

/* Counts one more process in the list of kinds (a clock, a mode); -1 when out of memory. */
static int count_kind(rep_kind **v, size_t *n, size_t *cap, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].name == name) {
            (*v)[i].processes++;
            return 0;
        }
    if (rep_reserve(v, cap, *n + 1, sizeof **v) < 0) return -1;
    (*v)[(*n)++] = (rep_kind){ name, 1 };
    return 0;
}

/* Adds the staged frame to the totals. */
static int frame_commit(rep_summary *s)
{
    rep_merge *m = s->m;
    int selected = !s->opt.grammar;
    for (size_t i = 0; i < m->nfg; i++) selected |= m->fg[i].grammar != REP_NONE;
    s->processes += selected;   /* with --grammar, the processes that used it */
    if (selected) {
        s->detail_processes += m->detail;
        s->memory_processes += m->memory;
        if (m->start > 0 && (s->start == 0 || m->start < s->start)) s->start = m->start;
        if (m->sample_interval_ns) {
            s->sampled_processes++;
            s->samples = rep_sum(s->samples, m->samples);
            s->samples_lost = rep_sum(s->samples_lost, m->samples_lost);
            if (m->sample_interval_max_ns > s->sample_interval_max_ns) s->sample_interval_max_ns = m->sample_interval_max_ns;
            if (!s->sample_interval_ns) s->sample_interval_ns = m->sample_interval_ns;
            else if (s->sample_interval_ns != m->sample_interval_ns) s->sample_interval_ns = UINT64_MAX;
        }
        if (count_kind(&s->clocks, &s->nclocks, &m->clocks_cap, m->clock) < 0 ||
            count_kind(&s->modes, &s->nmodes, &m->modes_cap, m->mode) < 0)
            return -1;
    }
    s->parses += m->parses;
    s->calls = rep_sum(s->calls, m->calls);
    s->evals = rep_sum(s->evals, m->evals);
    s->memo = rep_sum(s->memo, m->memo);
    s->clock_reads = rep_sum(s->clock_reads, m->clock_reads);
    s->time_ns = rep_sum(s->time_ns, m->time_ns);
    s->node_bytes = rep_sum(s->node_bytes, m->node_bytes);
    s->memo_bytes = rep_sum(s->memo_bytes, m->memo_bytes);
    if (m->peak_node_bytes > s->peak_node_bytes) s->peak_node_bytes = m->peak_node_bytes;
    if (m->peak_memo_bytes > s->peak_memo_bytes) s->peak_memo_bytes = m->peak_memo_bytes;
    if (m->peak_stack_bytes > s->peak_stack_bytes) s->peak_stack_bytes = m->peak_stack_bytes;
    for (size_t i = 0; i < m->nfg; i++) {
        frame_grammar *f = &m->fg[i];
        if (f->grammar == REP_NONE) continue;
        rep_sgrammar *g = &s->grammars[f->grammar];
        g->used = 1;
        g->parses += f->parses;
        g->bytes = rep_sum(g->bytes, f->bytes);
        if (m->detail) g->detail_bytes = rep_sum(g->detail_bytes, f->bytes);
        for (size_t j = 0; j < f->nrules; j++) s->rules[f->rules[j]].used = 1;
    }
    for (size_t i = 0; i < m->nfg; i++) {
        /* a frame of several inputs has one tree for all: it labels nothing; "" names no input */
        frame_grammar *f = &m->fg[i];
        f->input = f->inputs == 1 && *f->first_input ? intern(m, f->first_input) : REP_NONE;
        if (f->inputs == 1 && *f->first_input && f->input == REP_NONE) return -1;
    }
    for (size_t i = 0; i < m->nsr; i++) {
        rep_srule *r = &s->rules[m->sr[i].rule];
        add_counts(&r->c, &m->sr[i].c);
        if (m->detail) r->detail_failed = rep_sum(r->detail_failed, m->sr[i].c.failed);
        uint32_t input = m->fg[m->sr[i].fg].input;
        if (input != REP_NONE &&
            add_by_input(s, input, REP_NONE, m->sr[i].rule, m->sr[i].c.calls, m->sr[i].c.self_ns) < 0)
            return -1;
    }
    for (size_t i = 0; i < m->nse; i++) {
        const rep_sedge *e = &m->se[i];
        uint64_t key = (uint64_t)e->caller << 32 | e->callee;
        uint32_t k = map_get(&m->edge_ids, key);
        if (k == REP_NONE) {
            if (rep_reserve(&s->edges, &m->edges_cap, s->nedges + 1, sizeof *s->edges) < 0) return -1;
            k = (uint32_t)s->nedges;
            if (map_put(&m->edge_ids, key, k) < 0) return -1;
            s->edges[k] = (rep_sedge){ e->caller, e->callee, 0, 0 };
            s->nedges++;
        }
        s->edges[k].calls = rep_sum(s->edges[k].calls, e->calls);
        s->edges[k].time_ns = rep_sum(s->edges[k].time_ns, e->time_ns);
    }
    for (size_t i = 0; i < m->nss; i++) {
        const staged_stack *st = &m->ss[i];
        uint32_t node = REP_NONE;
        for (size_t j = 0; j < st->len; j++) {
            node = node_for(s, node, m->path[st->off + j]);
            if (node == REP_NONE) return -1;
        }
        s->nodes[node].calls = rep_sum(s->nodes[node].calls, st->calls);
        s->nodes[node].self_ns = rep_sum(s->nodes[node].self_ns, st->self_ns);
        s->nodes[node].node_bytes = rep_sum(s->nodes[node].node_bytes, st->node_bytes);
        if ((st->line || st->native != REP_NONE) && add_node_leaf(s, node, st->line, st->native, st->self_ns) < 0)
            return -1;
        uint32_t input = m->fg[st->fg].input;
        if (input != REP_NONE && add_by_input(s, input, node, s->nodes[node].rule, st->calls, st->self_ns) < 0)
            return -1;
    }
    for (size_t i = 0; i < m->nsl; i++)
        if (add_line(s, &m->sl[i]) < 0) return -1;
    for (size_t i = 0; i < m->nsc; i++)
        if (add_caller(s, &m->sc[i]) < 0) return -1;
    for (size_t i = 0; i < m->fparses.n; i++) {
        rep_sparse p = m->fparses.v[i];
        m->fparses.v[i].input = NULL;
        if (!parse_wanted(&m->parses_kept, &p)) {
            free(p.input);
            continue;
        }
        if (parse_push(&m->parses_kept, &p) < 0) return -1;
    }
    m->fparses.n = 0;
    return 0;
}

static int sink_frame_begin(void *ud, const rep_header *h)
{
    rep_merge *m = ((rep_summary *)ud)->m;
    frame_reset(m);
    m->detail = h->detail != 0;
    m->memory = h->memory != 0;
    m->samples = h->samples;
    m->samples_lost = h->samples_lost;
    m->sample_interval_ns = h->sample_interval_ns;
    m->sample_interval_max_ns = h->sample_interval_max_ns;
    m->start = h->start;
    uint32_t clock = intern(m, *h->clock ? h->clock : "unknown"), mode = intern(m, *h->mode ? h->mode : "unknown");
    if (clock == REP_NONE || mode == REP_NONE) m->oom = 1;
    else {
        m->clock = m->strings[clock];
        m->mode = m->strings[mode];
    }
    return m->oom ? -1 : 0;
}

static int sink_record(void *ud, rep_record_kind kind, const void *rec)
{
    rep_summary *s = ud;
    switch (kind) {
    case REP_REC_GRAMMAR: return on_grammar(s, rec);
    case REP_REC_PARSE:   return on_parse(s, rec);
    case REP_REC_RULE:    return on_rule(s, rec);
    case REP_REC_EDGE:    return on_edge(s, rec);
    case REP_REC_STACK:   return on_stack(s, rec);
    case REP_REC_LINE:    return on_line(s, rec);
    case REP_REC_CALLER:  return on_caller(s, rec);
    }
    return 0;
}

static void sink_frame_end(void *ud, int complete)
{
    rep_summary *s = ud;
    if (complete && frame_commit(s) < 0) s->m->oom = 1;
    frame_reset(s->m);
}

void rep_summary_sink(rep_summary *s, rep_reader_sink *sink)
{
    sink->ud = s;
    sink->frame_begin = sink_frame_begin;
    sink->record = sink_record;
    sink->frame_end = sink_frame_end;
}

/* ---- finishing ---- */

static int by_parse_order(const void *a, const void *b)
{
    return parse_order(a, b);
}

/* Kinds with the most processes first, then by name. */
static int by_processes(const void *a, const void *b)
{
    const rep_kind *x = a, *y = b;
    if (x->processes != y->processes) return x->processes > y->processes ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Line records by grammar, line, column. */
static int by_position(const void *a, const void *b)
{
    const rep_sline *x = a, *y = b;
    if (x->grammar != y->grammar) return x->grammar < y->grammar ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

static int by_node_then_line(const void *a, const void *b)
{
    const rep_snode_leaf *x = a, *y = b;
    if (x->node != y->node) return x->node < y->node ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return strcmp(x->native ? x->native : "", y->native ? y->native : "");
}

/* By input name, then rules before nodes, each by index. */
static int by_input_order(const void *a, const void *b)
{
    const rep_sinput *x = a, *y = b;
    int c = x->input == y->input ? 0 : strcmp(x->input, y->input);
    if (c) return c;
    uint64_t kx = x->node == REP_NONE ? x->rule : (uint64_t)1 << 32 | x->node;
    uint64_t ky = y->node == REP_NONE ? y->rule : (uint64_t)1 << 32 | y->node;
    return kx < ky ? -1 : kx > ky;
}

static int by_parent_then_label(const void *a, const void *b, void *ctx)
{
    const rep_summary *s = ctx;
    const rep_snode *x = &s->nodes[*(const uint32_t *)a];
    const rep_snode *y = &s->nodes[*(const uint32_t *)b];
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    return strcmp(s->rules[x->rule].label, s->rules[y->rule].label);
}

/* The node below parent of a frame named name: of a rule made for it, which
 * has no counts (pego report prints no table then). REP_NONE when out of memory. */
static uint32_t frame_node(rep_summary *s, uint32_t parent, uint32_t grammar, const char *name)
{
    uint32_t rule = merged_rule(s, grammar, name);
    if (rule == REP_NONE) return REP_NONE;
    s->rules[rule].used = 1;
    return node_for(s, parent, rule);
}

/* --with-lines and --with-native: below each node, a node "rule:LINE" for the
 * self time sampled at each line, and below it (or below the node, without
 * --with-lines) a node per native frame below the VM the time was in, from
 * the function the VM called; the deepest takes the time, which the node
 * keeps no more. */
static int add_leaf_frames(rep_summary *s)
{
    for (size_t i = 0; i < s->nnode_leaves; i++) {
        const rep_snode_leaf *l = &s->node_leaves[i];
        uint32_t node = l->node, grammar = s->rules[s->nodes[node].rule].grammar;
        if (s->opt.with_lines && l->line) {
            const char *rule = s->rules[s->nodes[node].rule].name;
            size_t n = strlen(rule) + 12;
            char *name = malloc(n);
            if (!name) return -1;
            snprintf(name, n, "%s:%u", rule, (unsigned)l->line);
            node = frame_node(s, node, grammar, name);
            free(name);
            if (node == REP_NONE) return -1;
        }
        for (const char *at = s->opt.with_native ? l->native : NULL; at;) {
            size_t len = strcspn(at, "\n");
            char *name = strndup(at, len);
            if (!name) return -1;
            node = frame_node(s, node, grammar, name);
            free(name);
            if (node == REP_NONE) return -1;
            at = at[len] ? at + len + 1 : NULL;
        }
        if (node == l->node) continue;
        rep_snode *parent = &s->nodes[l->node];
        uint64_t moved = l->self_ns < parent->self_ns ? l->self_ns : parent->self_ns;
        parent->self_ns -= moved;
        s->nodes[node].self_ns = rep_sum(s->nodes[node].self_ns, moved);
    }
    return 0;
}

int rep_summary_finish(rep_summary *s)
{
    rep_merge *m = s->m;
    if (m->oom) return -1;
    if ((s->opt.with_lines || s->opt.with_native) && add_leaf_frames(s) < 0) return -1;
    rep_counts *miss = &s->missing;
    memset(miss, 0, sizeof *miss);
    if (!s->detail_processes) miss->repeats = miss->max_repeats = miss->max_repeats_pos = miss->wasted = REP_UNSET;
    if (!s->memory_processes) miss->nodes = miss->node_bytes = miss->memo_entries = miss->memo_bytes = REP_UNSET;
    if (!s->sampled_processes) miss->samples = REP_UNSET;
    for (size_t i = 0; i < s->ngrammars; i++) {
        rep_sgrammar *g = &s->grammars[i];
        int shared = 0;
        for (size_t j = 0; j < s->ngrammars; j++)
            if (j != i && s->grammars[j].used && s->grammars[j].name == g->name) shared = 1;
        if (shared && g->used) s->shared_names = 1;
        size_t n = strlen(g->name) + 20;
        if (!(g->label = malloc(n))) return -1;
        if (shared) snprintf(g->label, n, "%s@%08llx", g->name, (unsigned long long)(g->hash >> 32));
        else snprintf(g->label, n, "%s", g->name);
    }
    for (size_t i = 0; i < s->nrules; i++) {
        rep_srule *r = &s->rules[i];
        const char *gl = s->grammars[r->grammar].label;
        size_t n = strlen(gl) + strlen(r->name) + 2;
        if (!(r->label = malloc(n))) return -1;
        snprintf(r->label, n, "%s:%s", gl, r->name);
    }
    s->top = m->parses_kept.v;
    s->ntop = m->parses_kept.n;
    m->parses_kept.v = NULL;
    m->parses_kept.n = m->parses_kept.cap = 0;
    if (s->ntop) qsort(s->top, s->ntop, sizeof *s->top, by_parse_order);
    if (s->nclocks) qsort(s->clocks, s->nclocks, sizeof *s->clocks, by_processes);
    if (s->nmodes) qsort(s->modes, s->nmodes, sizeof *s->modes, by_processes);
    if (s->nby_input) qsort(s->by_input, s->nby_input, sizeof *s->by_input, by_input_order);
    if (s->nlines) qsort(s->lines, s->nlines, sizeof *s->lines, by_position);
    if (s->nnode_leaves) qsort(s->node_leaves, s->nnode_leaves, sizeof *s->node_leaves, by_node_then_line);

    /* link the calling-context tree: children in label order */
    uint32_t *order = malloc((s->nnodes ? s->nnodes : 1) * sizeof *order);
    if (!order) return -1;
    for (size_t i = 0; i < s->nnodes; i++) order[i] = (uint32_t)i;
    qsort_r(order, s->nnodes, sizeof *order, by_parent_then_label, s);
    for (size_t i = s->nnodes; i-- > 0;) {
        rep_snode *n = &s->nodes[order[i]];
        uint32_t *head = n->parent == REP_NONE ? &s->root : &s->nodes[n->parent].child;
        n->sibling = *head;
        *head = order[i];
    }
    free(order);
    return 0;
}
