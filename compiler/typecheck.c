/* The static type checker of Tier 6 (docs/language.md A.6): first the
 * definition and reference errors of types, actions and predicates (undefined
 * and cyclic types, struct fields, undefined captures, $n where it is not allowed,
 * unknown functions and their arity, `new` of what is not a struct), then, when
 * the grammar has no error at all, the types of every rule, inferred callees
 * first and to a fixed point in recursive groups, and the type errors.
 *
 * Types are interned: one object per type, so two types are the same exactly
 * when their pointers are, and each carries its printed form for messages. A
 * union is interned by its set of members and printed in the order it was first
 * built. Types that grow past a budget become "any", which every check accepts.
 * Every block is one of the front end (ast.h), in an arena freed at the end. */
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "intern.h"
#include "../runtime/unicode.h"

/* ---- types ---- */

typedef enum {
    TY_ANY, TY_NEVER, TY_INT, TY_STRING, TY_BOOL, TY_NIL, TY_NODE, TY_TERMINAL,
    TY_NAMED,       /* a node type: name; named: 's' struct, 't' terminal type, 'c' reserved */
    TY_LIST,        /* []elem */
    TY_OPT,         /* *elem: elem or nil */
    TY_UNION,       /* items[0 .. n - 1]: flat, no nil, no optional, no any, at least two */
    TY_RECORD       /* a Seq with capture fields: fields (sorted) and items, their types */
} ty_kind;

typedef struct ty ty;
struct ty {
    ty_kind      kind;
    char         named;
    int          def;           /* TY_NAMED 's' or 't': the typedef */
    const char  *name;
    ty          *elem;
    ty         **items;
    const char **fields;
    int          n;
    int          id, depth;
    const char  *text;          /* printed form */
    size_t       textlen;
    const unsigned char *key;   /* what it is interned by */
    size_t       keylen;
};

/* Most a type may hold before it is widened to any: printed size and nesting. */
#define TYPE_MAX_TEXT  65536
#define TYPE_MAX_DEPTH 100
/* Inference budget of one rule: changes, and printed size once it has a type. */
#define INFER_MAX_CHANGES 50
#define INFER_MAX_TEXT    2048
/* Nesting of foldl/foldr whose accumulator is still widened by iteration. */
#define FOLD_MAX_NEST 4

typedef struct chunk { struct chunk *next; } chunk;

/* A capture of a scope: its name, its type, whether it always matched. */
typedef struct {
    const char *name;
    ty         *t;
    int         always;
    int         nalways;        /* choices: alternatives in which it always matched */
} capture;

typedef struct scope {
    capture   *caps;
    int        n, cap;
    cc_index   index;
    const ast_expr **preds;     /* predicates, checked once the scope is complete */
    int        npreds, cappreds;
} scope;

/* Lambda parameters and Pratt locals, innermost first. */
typedef struct local {
    const char   *name;
    ty           *t;
    const struct local *next;
} local;

typedef struct {
    scope        *caps;
    ty          **items;        /* $1 .. $n, when allow_index */
    int           nitems, allow_index;
    const local  *locals;
    const char   *no_index;     /* def phase: where $n is not allowed, or NULL */
} env;

typedef struct {
    const ast_grammar *g;
    cc_errors   *errs;
    chunk       *arena;
    cc_index     typedefs;      /* valid type definitions by name */
    ty         **alias;         /* per typedef: the alias's type */
    ty        ***field_types;   /* per struct typedef: its fields' types */
    ty         **all;           /* interned types by id */
    int          nall, capall;
    cc_index     interned;
    unsigned char *key;         /* scratch for keys */
    size_t       keycap;
    ty *any, *never, *t_int, *t_string, *t_bool, *nil, *node, *terminal;
    ty *match, *seq, *list, *operator_, *error;
    ty         **rule_type;
    uint8_t     *declared, *widened;
    int         *changes;
    int          report;        /* type errors are added only when set */
    int          fold_nest;
    const ast_rule *rule;
} checker;

static void *arena_alloc(checker *c, size_t n)
{
    chunk *k = cc_xmalloc(sizeof(chunk) + n + 8);
    k->next = c->arena;
    c->arena = k;
    return (char *)(k + 1) + (8 - sizeof(chunk) % 8) % 8;
}

static void arena_free(checker *c)
{
    for (chunk *k = c->arena, *next; k; k = next) {
        next = k->next;
        cc_free(k);
    }
    c->arena = NULL;
}

static void error_at(checker *c, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void error_at(checker *c, int line, int col, const char *fmt, ...)
{
    if (!c->report) return;
    va_list ap;
    va_start(ap, fmt);
    cc_errors_addv(c->errs, line, col, fmt, ap);
    va_end(ap);
}

/* ---- interning ---- */

static void key_put(checker *c, size_t *len, const void *p, size_t n)
{
    if (*len + n > c->keycap) {
        c->keycap = 2 * (*len + n) + 64;
        c->key = cc_xrealloc(c->key, c->keycap);
    }
    memcpy(c->key + *len, p, n);
    *len += n;
}

static void key_id(checker *c, size_t *len, const ty *t)
{
    key_put(c, len, &t->id, sizeof t->id);
}

static int same_key(const void *ctx, uint32_t entry, const void *key)
{
    const checker *c = ctx;
    const ty *t = c->all[entry];
    const size_t *len = key;
    return t->keylen == *len && memcmp(t->key, c->key, *len) == 0;
}

/* Text of t as the operand of [] or *: a union in parentheses. */
static size_t term_len(const ty *t) { return t->textlen + (t->kind == TY_UNION ? 2 : 0); }

static char *put_term(char *p, const ty *t)
{
    if (t->kind == TY_UNION) *p++ = '(';
    memcpy(p, t->text, t->textlen);
    p += t->textlen;
    if (t->kind == TY_UNION) *p++ = ')';
    return p;
}

/* The printed form of a new type of these parts. */
static void set_text(checker *c, ty *t)
{
    size_t n = 0;
    switch (t->kind) {
    case TY_NAMED: n = strlen(t->name); break;
    case TY_LIST: n = 2 + term_len(t->elem); break;
    case TY_OPT: n = 1 + term_len(t->elem); break;
    case TY_UNION:
        for (int i = 0; i < t->n; i++) n += t->items[i]->textlen + (i ? 3 : 0);
        break;
    case TY_RECORD:
        n = 5;
        for (int i = 0; i < t->n; i++) n += strlen(t->fields[i]) + 2 + t->items[i]->textlen + (i ? 2 : 0);
        break;
    default: break;
    }
    t->textlen = n;
    if (n > TYPE_MAX_TEXT) return;
    char *s = arena_alloc(c, n + 1), *p = s;
    switch (t->kind) {
    case TY_NAMED: memcpy(p, t->name, n); p += n; break;
    case TY_LIST: memcpy(p, "[]", 2); p = put_term(p + 2, t->elem); break;
    case TY_OPT: *p++ = '*'; p = put_term(p, t->elem); break;
    case TY_UNION:
        for (int i = 0; i < t->n; i++) {
            if (i) { memcpy(p, " | ", 3); p += 3; }
            memcpy(p, t->items[i]->text, t->items[i]->textlen);
            p += t->items[i]->textlen;
        }
        break;
    case TY_RECORD:
        memcpy(p, "Seq{", 4);
        p += 4;
        for (int i = 0; i < t->n; i++) {
            size_t fl = strlen(t->fields[i]);
            if (i) { memcpy(p, ", ", 2); p += 2; }
            memcpy(p, t->fields[i], fl);
            memcpy(p + fl, ": ", 2);
            p += fl + 2;
            memcpy(p, t->items[i]->text, t->items[i]->textlen);
            p += t->items[i]->textlen;
        }
        *p++ = '}';
        break;
    default: break;
    }
    *p = 0;
    t->text = s;
}

/* The type of these parts, interned: key[0 .. len) is its key in c->key. Its
 * lists of members and fields are copied when it is new. Too large a type is
 * any. */
static ty *intern(checker *c, const ty *proto, size_t len)
{
    uint32_t h = cc_hash(c->key, len);
    int found = cc_index_find(&c->interned, h, same_key, c, &len);
    if (found >= 0) return c->all[found];
    ty *t = arena_alloc(c, sizeof *t);
    *t = *proto;
    if (t->n > 0) {
        t->items = arena_alloc(c, (size_t)t->n * sizeof *t->items);
        memcpy(t->items, proto->items, (size_t)t->n * sizeof *t->items);
    }
    if (t->fields) {
        t->fields = arena_alloc(c, (size_t)t->n * sizeof *t->fields);
        memcpy(t->fields, proto->fields, (size_t)t->n * sizeof *t->fields);
    }
    t->depth = 1;
    if (t->elem) t->depth = t->elem->depth + 1;
    for (int i = 0; i < t->n; i++)
        if (t->items[i]->depth + 1 > t->depth) t->depth = t->items[i]->depth + 1;
    set_text(c, t);
    if (t->depth > TYPE_MAX_DEPTH || t->textlen > TYPE_MAX_TEXT) return c->any;
    unsigned char *k = arena_alloc(c, len);
    memcpy(k, c->key, len);
    t->key = k;
    t->keylen = len;
    if (c->nall == c->capall) {
        c->capall = c->capall ? 2 * c->capall : 64;
        c->all = cc_xrealloc(c->all, (size_t)c->capall * sizeof *c->all);
    }
    t->id = c->nall;
    c->all[c->nall++] = t;
    cc_index_add(&c->interned, h, (uint32_t)t->id);
    return t;
}

static ty *basic(checker *c, ty_kind kind, const char *name)
{
    ty proto = { .kind = kind, .name = name, .def = -1 };
    size_t len = 0;
    unsigned char k = (unsigned char)kind;
    key_put(c, &len, &k, 1);
    ty *t = intern(c, &proto, len);
    t->text = name;
    t->textlen = strlen(name);
    return t;
}

static ty *named(checker *c, const char *name, char kind, int def)
{
    ty proto = { .kind = TY_NAMED, .name = name, .named = kind, .def = def };
    size_t len = 0;
    unsigned char k = TY_NAMED;
    key_put(c, &len, &k, 1);
    key_put(c, &len, name, strlen(name) + 1);
    return intern(c, &proto, len);
}

static ty *wrap(checker *c, ty_kind kind, ty *elem)
{
    if (elem == c->any && kind == TY_OPT) return elem;
    ty proto = { .kind = kind, .elem = elem, .def = -1 };
    size_t len = 0;
    unsigned char k = (unsigned char)kind;
    key_put(c, &len, &k, 1);
    key_id(c, &len, elem);
    return intern(c, &proto, len);
}

static ty *list_of(checker *c, ty *elem) { return wrap(c, TY_LIST, elem); }

static int by_id(const void *a, const void *b)
{
    int x = (*(ty *const *)a)->id, y = (*(ty *const *)b)->id;
    return (x > y) - (x < y);
}

static int same_member(const void *ctx, uint32_t entry, const void *key)
{
    return ((ty *const *)ctx)[entry] == key;
}

/* The union of ts (NULLs ignored), flattened, without never and duplicates, in
 * order; with nil or an optional member it is optional; with any it is any. */
static ty *union_of(checker *c, ty **ts, int n)
{
    int total = 0;
    for (int i = 0; i < n; i++) {
        const ty *t = ts[i] && ts[i]->kind == TY_OPT ? ts[i]->elem : ts[i];
        total += t && t->kind == TY_UNION ? t->n : 1;
    }
    ty **flat = cc_xmalloc(((size_t)total + 1) * sizeof *flat);
    int nflat = 0, has_nil = 0;
    cc_index seen = { 0 };
    ty *result = NULL;
    for (int i = 0; i < n && !result; i++) {
        ty *t = ts[i];
        if (!t || t == c->never) continue;
        if (t == c->any) result = c->any;
        if (t == c->nil || t->kind == TY_OPT) has_nil = 1;
        if (t == c->nil || t == c->any) continue;
        if (t->kind == TY_OPT) t = t->elem;
        int k = t->kind == TY_UNION ? t->n : 1;
        for (int j = 0; j < k; j++) {
            ty *a = t->kind == TY_UNION ? t->items[j] : t;
            uint32_t h = cc_hash(&a->id, sizeof a->id);
            if (cc_index_find(&seen, h, same_member, flat, a) >= 0) continue;
            cc_index_add(&seen, h, (uint32_t)nflat);
            flat[nflat++] = a;
        }
    }
    cc_index_free(&seen);
    if (!result && nflat == 0) result = has_nil ? c->nil : c->never;
    if (!result && nflat == 1) result = flat[0];
    if (!result) {
        ty **sorted = cc_xmalloc((size_t)nflat * sizeof *sorted);
        memcpy(sorted, flat, (size_t)nflat * sizeof *sorted);
        qsort(sorted, (size_t)nflat, sizeof *sorted, by_id);
        size_t len = 0;
        unsigned char k = TY_UNION;
        key_put(c, &len, &k, 1);
        for (int i = 0; i < nflat; i++) key_id(c, &len, sorted[i]);
        cc_free(sorted);
        ty proto = { .kind = TY_UNION, .items = flat, .n = nflat, .def = -1 };
        result = intern(c, &proto, len);
    }
    cc_free(flat);
    if (has_nil && result != c->nil && result != c->any) result = wrap(c, TY_OPT, result);
    return result;
}

static ty *union2(checker *c, ty *a, ty *b)
{
    ty *ts[2] = { a, b };
    return union_of(c, ts, 2);
}

static ty *optional(checker *c, ty *t)
{
    if (t->kind == TY_OPT || t == c->any || t == c->nil) return t;
    return union2(c, t, c->nil);
}

static int field_cmp(const void *a, const void *b)
{
    return strcmp(((const capture *)a)->name, ((const capture *)b)->name);
}

/* ---- the relations of 6.1 ---- */

static int is_node(const checker *c, const ty *t)
{
    switch (t->kind) {
    case TY_NAMED: case TY_LIST: case TY_RECORD: return 1;
    case TY_NODE: case TY_TERMINAL: case TY_ANY: case TY_NEVER: return 1;
    case TY_UNION:
        for (int i = 0; i < t->n; i++)
            if (!is_node(c, t->items[i])) return 0;
        return 1;
    default: return 0;
    }
}

/* Whether every value of t is a node or nil: what a rule or an action may produce. */
static int is_node_or_nil(const checker *c, const ty *t)
{
    if (t->kind == TY_OPT) return is_node(c, t->elem);
    return t == c->nil || is_node(c, t);
}

/* Whether a value of type s may be put where type d is expected. */
static int assignable(const checker *c, const ty *s, const ty *d)
{
    if (s == c->any || d == c->any || s == c->never || s == d) return 1;
    if (s->kind == TY_UNION) {
        for (int i = 0; i < s->n; i++)
            if (!assignable(c, s->items[i], d)) return 0;
        return 1;
    }
    if (d->kind == TY_UNION) {
        for (int i = 0; i < d->n; i++)
            if (assignable(c, s, d->items[i])) return 1;
        return 0;
    }
    if (d->kind == TY_OPT) {
        if (s == c->nil) return 1;
        if (s->kind == TY_OPT) return assignable(c, s->elem, d->elem);
        return assignable(c, s, d->elem);
    }
    if (s->kind == TY_OPT) return 0;
    if (s == c->error) return is_node(c, d);
    switch (d->kind) {
    case TY_NODE: return is_node(c, s);
    case TY_TERMINAL:
        return s == c->terminal || s == c->match || (s->kind == TY_NAMED && s->named == 't');
    case TY_NAMED:
        return (s->kind == TY_RECORD && d == c->seq) || (s->kind == TY_LIST && d == c->list);
    case TY_LIST:
        return s->kind == TY_LIST && assignable(c, s->elem, d->elem);
    case TY_RECORD:
        if (s->kind != TY_RECORD) return 0;
        for (int i = 0, j = 0; i < d->n; i++) {
            while (j < s->n && strcmp(s->fields[j], d->fields[i]) < 0) j++;
            if (j == s->n || strcmp(s->fields[j], d->fields[i]) != 0) return 0;
            if (!assignable(c, s->items[j], d->items[i])) return 0;
        }
        return 1;
    default:
        return 0;
    }
}

/* ---- type definitions ---- */

static int same_typedef(const void *ctx, uint32_t entry, const void *name)
{
    return strcmp(((const ast_grammar *)ctx)->types[entry].name, name) == 0;
}

static int find_typedef(const checker *c, const char *name)
{
    return cc_index_find(&c->typedefs, cc_hash(name, strlen(name)), same_typedef, c->g, name);
}

static int starts_upper(const char *name)
{
    uint32_t first;
    rt_unicode_decode((const unsigned char *)name, strlen(name), &first);
    return rt_unicode_is_upper(first);
}

/* The type a written name denotes; aliases must be resolved already. */
static ty *resolve_name(checker *c, const char *name)
{
    static const char *const reserved[] = { "Match", "Seq", "List", "Operator", "Error", NULL };
    if (!strcmp(name, "int")) return c->t_int;
    if (!strcmp(name, "string")) return c->t_string;
    if (!strcmp(name, "bool")) return c->t_bool;
    if (!strcmp(name, "node")) return c->node;
    if (!strcmp(name, "terminal")) return c->terminal;
    for (const char *const *r = reserved; *r; r++)
        if (!strcmp(*r, name)) return named(c, *r, 'c', -1);
    int d = find_typedef(c, name);
    if (d < 0) return c->any;
    const ast_typedef *td = &c->g->types[d];
    switch (td->kind) {
    case TYPEDEF_STRUCT: return named(c, td->name, 's', d);
    case TYPEDEF_TERMINAL: return named(c, td->name, 't', d);
    default: return c->alias[d] ? c->alias[d] : c->any;
    }
}

static ty *resolve(checker *c, const ast_type *t)
{
    switch (t->kind) {
    case TYPE_NAME: return resolve_name(c, t->name);
    case TYPE_LIST: return list_of(c, resolve(c, t->kids[0]));
    case TYPE_PTR: return optional(c, resolve(c, t->kids[0]));
    case TYPE_UNION: {
        ty **ts = cc_xmalloc((size_t)t->nkids * sizeof *ts);
        for (int i = 0; i < t->nkids; i++) ts[i] = resolve(c, t->kids[i]);
        ty *u = union_of(c, ts, t->nkids);
        cc_free(ts);
        return u;
    }
    }
    return c->any;
}

/* Reports the names in t that no definition gives. */
static void check_type_names(checker *c, const ast_type *t)
{
    if (t->kind == TYPE_NAME) {
        if (!cc_is_reserved_type(t->name) && find_typedef(c, t->name) < 0)
            cc_errors_add(c->errs, t->line, t->col, "undefined type %s", t->name);
        return;
    }
    for (int i = 0; i < t->nkids; i++) check_type_names(c, t->kids[i]);
}

/* Adds an edge from alias a to every alias that t names. */
static void alias_edges(checker *c, cc_graph *gr, int a, const ast_type *t)
{
    if (t->kind == TYPE_NAME) {
        int d = find_typedef(c, t->name);
        if (d >= 0 && c->g->types[d].kind == TYPEDEF_ALIAS && !cc_is_reserved_type(t->name)) cc_graph_add(gr, a, d);
        return;
    }
    for (int i = 0; i < t->nkids; i++) alias_edges(c, gr, a, t->kids[i]);
}

/* In t, the first reference to each alias of component comp without one yet. */
static void first_refs(checker *c, const int *comp, int cmp, const ast_type *t, const ast_type **ref)
{
    if (t->kind == TYPE_NAME) {
        int d = find_typedef(c, t->name);
        if (d >= 0 && c->g->types[d].kind == TYPEDEF_ALIAS && comp[d] == cmp && !ref[d]) ref[d] = t;
        return;
    }
    for (int i = 0; i < t->nkids; i++) first_refs(c, comp, cmp, t->kids[i], ref);
}

/* Resolves every alias, those they name first (components of the graph of
 * aliases naming aliases); the aliases of a cycle are any. Returns, per
 * typedef, the reference that closes its cycle, or NULL. */
static const ast_type **resolve_aliases(checker *c)
{
    const ast_grammar *g = c->g;
    int n = g->ntypes;
    cc_graph gr;
    cc_graph_init(&gr, n);
    for (int d = 0; d < n; d++)
        if (g->types[d].kind == TYPEDEF_ALIAS) alias_edges(c, &gr, d, g->types[d].alias);
    int *comp = cc_xcalloc((size_t)n + 1, sizeof *comp), *start;
    int ncomp = cc_graph_components(&gr, comp);
    int *order = cc_group_components(comp, n, ncomp, &start);
    const ast_type **ref = cc_xcalloc((size_t)n + 1, sizeof *ref);
    for (int k = 0; k < ncomp; k++) {
        int first = order[start[k]], size = start[k + 1] - start[k];
        if (g->types[first].kind != TYPEDEF_ALIAS) continue;
        if (size == 1 && !cc_graph_has(&gr, first, first)) {
            c->alias[first] = resolve(c, g->types[first].alias);
            continue;
        }
        for (int i = start[k]; i < start[k + 1]; i++) first_refs(c, comp, k, g->types[order[i]].alias, ref);
        for (int i = start[k]; i < start[k + 1]; i++) c->alias[order[i]] = c->any;
    }
    cc_free(order);
    cc_free(start);
    cc_free(comp);
    cc_graph_free(&gr);
    return ref;
}

/* The struct that `new name` builds (an alias of one struct builds that
 * struct), or -1. */
static int struct_of(checker *c, const char *name)
{
    int d = find_typedef(c, name);
    if (d < 0) return -1;
    if (c->g->types[d].kind == TYPEDEF_STRUCT) return d;
    const ty *t = c->g->types[d].kind == TYPEDEF_ALIAS ? c->alias[d] : NULL;
    return t && t->kind == TY_NAMED && t->named == 's' ? t->def : -1;
}

static int field_index(const ast_typedef *td, const char *name)
{
    for (int i = 0; i < td->nfields; i++)
        if (strcmp(td->field_names[i], name) == 0) return i;
    return -1;
}

/* ---- scopes ---- */

static int same_capture(const void *ctx, uint32_t entry, const void *name)
{
    return strcmp(((const scope *)ctx)->caps[entry].name, name) == 0;
}

static capture *find_capture(const scope *s, const char *name)
{
    int i = cc_index_find(&s->index, cc_hash(name, strlen(name)), same_capture, s, name);
    return i < 0 ? NULL : &s->caps[i];
}

/* Records a capture; a second one of the same name unites the types. */
static capture *add_capture(checker *c, scope *s, const char *name, ty *t, int always)
{
    capture *old = find_capture(s, name);
    if (old) {
        if (t) old->t = old->t ? union2(c, old->t, t) : t;
        old->always = old->always || always;
        return old;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->caps = cc_xrealloc(s->caps, (size_t)s->cap * sizeof *s->caps);
    }
    s->caps[s->n] = (capture){ name, t, always, 0 };
    cc_index_add(&s->index, cc_hash(name, strlen(name)), (uint32_t)s->n);
    return &s->caps[s->n++];
}

static void add_pred(scope *s, const ast_expr *p)
{
    if (s->npreds == s->cappreds) {
        s->cappreds = s->cappreds ? 2 * s->cappreds : 4;
        s->preds = cc_xrealloc(s->preds, (size_t)s->cappreds * sizeof *s->preds);
    }
    s->preds[s->npreds++] = p;
}

static void scope_free(scope *s)
{
    cc_free(s->caps);
    cc_free(s->preds);
    cc_index_free(&s->index);
    memset(s, 0, sizeof *s);
}

/* The type of a capture when read: *T when it may not have matched. */
static ty *capture_type(checker *c, const capture *k)
{
    ty *t = k->t ? k->t : c->any;
    return k->always ? t : optional(c, t);
}

/* A Seq holding the captures of s as fields. */
static ty *record(checker *c, const scope *s)
{
    capture *sorted = cc_xmalloc((size_t)s->n * sizeof *sorted);
    memcpy(sorted, s->caps, (size_t)s->n * sizeof *sorted);
    qsort(sorted, (size_t)s->n, sizeof *sorted, field_cmp);
    const char **fields = cc_xmalloc(((size_t)s->n + 1) * sizeof *fields);
    ty **items = cc_xmalloc(((size_t)s->n + 1) * sizeof *items);
    size_t len = 0;
    unsigned char k = TY_RECORD;
    key_put(c, &len, &k, 1);
    for (int i = 0; i < s->n; i++) {
        fields[i] = sorted[i].name;
        items[i] = capture_type(c, &sorted[i]);
    }
    for (int i = 0; i < s->n; i++) {
        key_put(c, &len, fields[i], strlen(fields[i]) + 1);
        key_id(c, &len, items[i]);
    }
    cc_free(sorted);
    ty proto = { .kind = TY_RECORD, .fields = fields, .items = items, .n = s->n, .def = -1 };
    ty *t = intern(c, &proto, len);
    cc_free(fields);
    cc_free(items);
    return t;
}

/* ---- definition and reference errors of actions and predicates ---- */

static int is_index(const ast_term *t) { return t->sval[0] >= '0' && t->sval[0] <= '9'; }

static const local *find_local(const local *l, const char *name)
{
    for (; l; l = l->next)
        if (strcmp(l->name, name) == 0) return l;
    return NULL;
}

/* The locals of an operator's action (3.3): $op, with $lhs unless it is a
 * prefix operator and $rhs unless it is a postfix one; lo holds them. */
static const local *operator_locals(const ast_pratt_op *op, local lo[3], ty *match, ty *self)
{
    int n = 0;
    lo[n++] = (local){ "op", match, NULL };
    if (op->kind != PRATT_PREFIX) { lo[n] = (local){ "lhs", self, &lo[n - 1] }; n++; }
    if (op->kind != PRATT_POSTFIX) { lo[n] = (local){ "rhs", self, &lo[n - 1] }; n++; }
    return &lo[n - 1];
}

static const struct { const char *name; int nargs; } builtins[] = {
    { "len", 1 }, { "text", 1 }, { "foldl", 3 }, { "foldr", 3 }, { "map", 2 }, { "list", -1 }, { "concat", -1 },
};

static int builtin_args(const char *name)
{
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (strcmp(builtins[i].name, name) == 0) return builtins[i].nargs;
    return -2;
}

/* Names in t that nothing defines; arity of built-ins; `new` of a struct. */
static void check_names(checker *c, const ast_term *t, const env *e)
{
    switch (t->kind) {
    case TERM_CAPREF:
        if (is_index(t)) {
            if (e->no_index) cc_errors_add(c->errs, t->line, t->col, "$%s cannot be used in %s", t->sval, e->no_index);
        } else if (!find_local(e->locals, t->sval) && !find_capture(e->caps, t->sval)) {
            cc_errors_add(c->errs, t->line, t->col, "undefined capture $%s", t->sval);
        }
        return;
    case TERM_NEW:
        if (struct_of(c, t->sval) < 0) cc_errors_add(c->errs, t->line, t->col, "%s is not a struct type", t->sval);
        for (int i = 0; i < t->nkids; i++)
            for (int j = 0; j < i; j++)
                if (strcmp(t->names[i], t->names[j]) == 0) {
                    cc_errors_add(c->errs, t->name_lines[i], t->name_cols[i], "duplicate field %s", t->names[i]);
                    break;
                }
        break;
    case TERM_CALL: {
        int n = builtin_args(t->sval);
        if (n == -2) cc_errors_add(c->errs, t->line, t->col, "unknown function %s", t->sval);
        else if (n >= 0 && n != t->nkids)
            cc_errors_add(c->errs, t->line, t->col, "%s takes %d arguments, got %d", t->sval, n, t->nkids);
        break;
    }
    case TERM_LAMBDA: {
        local *params = cc_xmalloc(((size_t)t->nnames + 1) * sizeof *params);
        const local *in = e->locals;
        for (int i = 0; i < t->nnames; i++) {
            params[i] = (local){ t->names[i], NULL, in };
            in = &params[i];
        }
        env inner = *e;
        inner.locals = in;
        check_names(c, t->kids[t->nkids - 1], &inner);
        cc_free(params);
        return;
    }
    default:
        break;
    }
    for (int i = 0; i < t->nkids; i++) check_names(c, t->kids[i], e);
}

static int term_reads_captures(const ast_term *t)
{
    if (t->kind == TERM_CAPREF && !is_index(t)) return 1;
    for (int i = 0; i < t->nkids; i++)
        if (term_reads_captures(t->kids[i])) return 1;
    return 0;
}

static int predicates_read_captures(const ast_expr *e)
{
    if (e->kind == AST_PREDICATE && term_reads_captures(e->term)) return 1;
    for (int i = 0; i < e->nkids; i++)
        if (predicates_read_captures(e->kids[i])) return 1;
    return 0;
}

/* Registers the captures of e in s, in order, and checks each predicate against
 * the captures made before it in its scope (5.1). */
static void scope_names(checker *c, const ast_expr *e, scope *s)
{
    switch (e->kind) {
    case AST_CAPTURE:
        add_capture(c, s, e->name, NULL, 1);
        break;
    case AST_REPEAT:
        if (cc_scope_has_captures(e->kids[0]) || predicates_read_captures(e->kids[0])) {
            scope own = { 0 };
            scope_names(c, e->kids[0], &own);
            scope_free(&own);
            return;
        }
        break;
    case AST_PREDICATE: {
        env pe = { .caps = s, .no_index = "predicates" };
        check_names(c, e->term, &pe);
        return;
    }
    case AST_ATTRIBUTE:
        scope_names(c, e->kids[0], s);
        for (int i = 0; i < e->nargs; i++) scope_names(c, e->args[i].value, s);
        return;
    case AST_PRATT:
        return;
    default:
        break;
    }
    for (int i = 0; i < e->nkids; i++) scope_names(c, e->kids[i], s);
}

/* One Pratt operand or operator: its own scope, then its action. */
static void line_names(checker *c, const ast_expr *x, const ast_term *action, const local *locals)
{
    scope s = { 0 };
    scope_names(c, x, &s);
    if (action) {
        env e = { .caps = &s, .locals = locals,
                  .no_index = locals ? "pratt operator actions; use captures, $lhs, $rhs, or $op" : NULL };
        check_names(c, action, &e);
    }
    scope_free(&s);
}

static void rule_names(checker *c, const ast_rule *r)
{
    if (r->type) check_type_names(c, r->type);
    if (r->body->kind == AST_PRATT) {
        const ast_pratt *p = r->body->pratt;
        if (p->skip) line_names(c, p->skip, NULL, NULL);
        for (int i = 0; i < p->noperands; i++) line_names(c, p->operands[i].expr, p->operands[i].action, NULL);
        for (int l = 0; l < p->nlevels; l++)
            for (int o = 0; o < p->levels[l].nops; o++) {
                const ast_pratt_op *op = &p->levels[l].ops[o];
                local lo[3];
                line_names(c, op->expr, op->action, operator_locals(op, lo, NULL, NULL));
            }
        return;
    }
    scope s = { 0 };
    scope_names(c, r->body, &s);
    if (r->action) {
        env e = { .caps = &s };
        check_names(c, r->action, &e);
    }
    scope_free(&s);
}

static void typedef_names(checker *c, int d, const ast_type *const *cycle_ref)
{
    const ast_typedef *td = &c->g->types[d];
    if (find_typedef(c, td->name) != d) return;     /* reserved, misnamed or a duplicate */
    if (td->kind == TYPEDEF_ALIAS) {
        check_type_names(c, td->alias);
        if (cycle_ref[d])
            cc_errors_add(c->errs, cycle_ref[d]->line, cycle_ref[d]->col, "type %s refers to itself", td->name);
        return;
    }
    for (int i = 0; i < td->nfields; i++) {
        const char *f = td->field_names[i];
        for (int j = 0; j < i; j++)
            if (strcmp(td->field_names[j], f) == 0) {
                cc_errors_add(c->errs, td->field_lines[i], td->field_cols[i], "duplicate field %s in %s", f, td->name);
                break;
            }
        if (!starts_upper(f))
            cc_errors_add(c->errs, td->field_lines[i], td->field_cols[i],
                          "field %s of %s must start with an uppercase letter", f, td->name);
        check_type_names(c, td->field_types[i]);
    }
}

/* ---- types of parsing expressions (6.2) ---- */

static ty *term_type(checker *c, const ast_term *t, const env *e);
static void check_preds(checker *c, scope *s);

/* The type of e's value, or NULL when it has none; records captures in s. */
static ty *expr_type(checker *c, const ast_expr *e, scope *s)
{
    switch (e->kind) {
    case AST_LITERAL: case AST_CLASS: case AST_ANY: case AST_TOP: case AST_ATOMIC:
        return c->match;
    case AST_CALL:
        return e->rule >= 0 ? c->rule_type[e->rule] : c->any;
    case AST_SEQ:
        for (int i = 0; i < e->nkids; i++) expr_type(c, e->kids[i], s);
        return c->seq;
    case AST_CHOICE: {
        ty **ts = cc_xmalloc((size_t)e->nkids * sizeof *ts);
        scope all = { 0 };
        for (int i = 0; i < e->nkids; i++) {
            scope alt = { 0 };
            ts[i] = expr_type(c, e->kids[i], &alt);
            for (int j = 0; j < alt.n; j++) {
                capture *k = add_capture(c, &all, alt.caps[j].name, alt.caps[j].t, 0);
                if (alt.caps[j].always) k->nalways++;
            }
            for (int j = 0; j < alt.npreds; j++) add_pred(s, alt.preds[j]);
            scope_free(&alt);
        }
        /* only a name captured in every alternative always has a value */
        for (int j = 0; j < all.n; j++) add_capture(c, s, all.caps[j].name, all.caps[j].t, all.caps[j].nalways == e->nkids);
        scope_free(&all);
        ty *u = union_of(c, ts, e->nkids);
        cc_free(ts);
        return u;
    }
    case AST_REPEAT: {
        scope inner = { 0 };
        ty *t = expr_type(c, e->kids[0], &inner);
        check_preds(c, &inner);
        if (inner.n > 0) t = record(c, &inner);
        scope_free(&inner);
        return list_of(c, t ? t : c->never);
    }
    case AST_OPTIONAL: {
        scope sub = { 0 };
        ty *t = expr_type(c, e->kids[0], &sub);
        for (int j = 0; j < sub.n; j++) add_capture(c, s, sub.caps[j].name, sub.caps[j].t, 0);
        for (int j = 0; j < sub.npreds; j++) add_pred(s, sub.preds[j]);
        scope_free(&sub);
        return t ? optional(c, t) : c->nil;
    }
    case AST_AND:
        expr_type(c, e->kids[0], s);
        return NULL;
    case AST_CAPTURE: {
        ty *t = expr_type(c, e->kids[0], s);
        add_capture(c, s, e->name, t ? t : c->any, 1);
        return t;
    }
    case AST_PREDICATE:
        add_pred(s, e);
        return NULL;
    case AST_ATTRIBUTE: {
        ty *t = expr_type(c, e->kids[0], s);
        for (int i = 0; i < e->nargs; i++) {
            scope arg = { 0 };
            expr_type(c, e->args[i].value, &arg);
            scope_free(&arg);
        }
        if (strcmp(e->name, "recover") == 0 && t) t = union2(c, t, c->error);
        return t;
    }
    default:        /* anchors, cut, _|_, !, -, and a misplaced pratt (already reported) */
        return NULL;
    }
}

static void check_preds(checker *c, scope *s)
{
    env e = { .caps = s };
    for (int i = 0; i < s->npreds; i++) {
        const ast_expr *p = s->preds[i];
        ty *t = term_type(c, p->term, &e);
        if (!p->name) continue;
        ty *scalars[3] = { c->t_int, c->t_string, c->t_bool };
        if (!assignable(c, t, union_of(c, scalars, 3)))
            error_at(c, p->line, p->col, "variable %s must be int, string, or bool, got %s", p->name, t->text);
    }
}

/* ---- types of actions (6.4-6.8) ---- */

/* Where an error about the value of action t is reported: at t, or at `def`
 * for a literal or a function. */
static void term_pos(const checker *c, const ast_term *t, int *line, int *col)
{
    int literal = t->kind == TERM_INT || t->kind == TERM_STRING || t->kind == TERM_LAMBDA ||
                  (t->kind == TERM_VAR && (!strcmp(t->sval, "true") || !strcmp(t->sval, "false") ||
                                           !strcmp(t->sval, "nil")));
    *line = literal ? c->rule->def_line : t->line;
    *col = literal ? c->rule->def_col : t->col;
}

static ty *member_type(checker *c, ty *x, const ast_term *m)
{
    const char *name = m->sval;
    int builtin_int = !strcmp(name, "startPos") || !strcmp(name, "endPos");
    if (builtin_int || !strcmp(name, "children")) {
        if (!is_node(c, x)) error_at(c, m->line, m->col, "cannot access .%s of %s", name, x->text);
        return builtin_int ? c->t_int : list_of(c, optional(c, c->node));
    }
    if (x == c->any) return c->any;
    if (x->kind == TY_OPT) {
        error_at(c, m->line, m->col, "cannot access .%s of %s", name, x->text);
        return c->any;
    }
    int nalts = x->kind == TY_UNION ? x->n : 1, nfound = 0;
    ty **found = cc_xmalloc((size_t)nalts * sizeof *found);
    for (int i = 0; i < nalts; i++) {
        ty *a = x->kind == TY_UNION ? x->items[i] : x;
        if (a->kind == TY_NAMED && a->named == 's') {
            int f = field_index(&c->g->types[a->def], name);
            if (f >= 0) found[nfound++] = c->field_types[a->def][f];
        } else if (a->kind == TY_RECORD) {
            for (int f = 0; f < a->n; f++)
                if (!strcmp(a->fields[f], name)) found[nfound++] = a->items[f];
        } else if (a == c->node) {
            found[nfound++] = c->any;
        }
    }
    ty *t = c->any;
    if (nfound == 0) error_at(c, m->line, m->col, "%s has no field %s", x->text, name);
    else if (nfound < nalts) t = optional(c, union_of(c, found, nfound));   /* nil for the others */
    else t = union_of(c, found, nfound);
    cc_free(found);
    return t;
}

/* The element type of a list argument of fn. */
static ty *elem_type(checker *c, const char *fn, ty *t, const ast_term *call)
{
    switch (t->kind) {
    case TY_LIST: return t->elem;
    case TY_OPT: return elem_type(c, fn, t->elem, call);
    case TY_UNION: {
        ty **elems = cc_xmalloc((size_t)t->n * sizeof *elems);
        for (int i = 0; i < t->n; i++) elems[i] = elem_type(c, fn, t->items[i], call);
        ty *u = union_of(c, elems, t->n);
        cc_free(elems);
        return u;
    }
    default: break;
    }
    if (t == c->never || t == c->error) return c->never;     /* an Error node counts as empty */
    if (t == c->any || t == c->nil || t == c->node) return c->any;
    if (t == c->list || t == c->seq || t == c->operator_) return optional(c, c->node);
    error_at(c, call->line, call->col, "%s: expected a list, got %s", fn, t->text);
    return c->any;
}

static const ast_term *lambda_arg(checker *c, const ast_term *call, int i, int nparams)
{
    const ast_term *l = call->kids[i];
    if (l->kind != TERM_LAMBDA || l->nnames != nparams) {
        error_at(c, call->line, call->col, "%s: expected a function of %d parameters", call->sval, nparams);
        return NULL;
    }
    return l;
}

static ty *lambda_body(checker *c, const ast_term *l, const env *e, ty *x, ty *y)
{
    local params[2] = { { l->names[0], x, e->locals }, { NULL, NULL, NULL } };
    if (l->nnames > 1) params[1] = (local){ l->names[1], y, &params[0] };
    env inner = *e;
    inner.locals = &params[l->nnames - 1];
    return term_type(c, l->kids[l->nkids - 1], &inner);
}

static ty *call_type(checker *c, const ast_term *t, const env *e)
{
    const char *fn = t->sval;
    int n = builtin_args(fn);
    if (n == -2 || (n >= 0 && n != t->nkids)) return c->any;     /* reported with the definitions */
    if (!strcmp(fn, "len") || !strcmp(fn, "text")) {
        ty *a = term_type(c, t->kids[0], e);
        if (!assignable(c, a, union2(c, c->t_string, optional(c, c->node))))
            error_at(c, t->line, t->col, "%s: invalid argument %s", fn, a->text);
        return fn[0] == 'l' ? c->t_int : c->t_string;
    }
    if (!strcmp(fn, "foldl") || !strcmp(fn, "foldr")) {
        ty *acc = term_type(c, t->kids[0], e);
        ty *elem = elem_type(c, fn, term_type(c, t->kids[1], e), t);
        const ast_term *l = lambda_arg(c, t, 2, 2);
        if (!l) return c->any;
        if (c->fold_nest >= FOLD_MAX_NEST) acc = c->any;
        c->fold_nest++;
        /* while the body's type does not fit the accumulator's, widen it */
        int report = c->report;
        c->report = 0;
        for (int i = 0; i < 3; i++) {
            ty *body = lambda_body(c, l, e, acc, elem);
            if (assignable(c, body, acc)) break;
            acc = union2(c, acc, body);
        }
        c->report = report;
        lambda_body(c, l, e, acc, elem);
        c->fold_nest--;
        return acc;
    }
    if (!strcmp(fn, "map")) {
        ty *elem = elem_type(c, fn, term_type(c, t->kids[0], e), t);
        const ast_term *l = lambda_arg(c, t, 1, 1);
        if (!l) return c->any;
        ty *body = lambda_body(c, l, e, elem, NULL);
        if (!is_node_or_nil(c, body))
            error_at(c, t->line, t->col, "map: the function must produce a node, got %s", body->text);
        return list_of(c, body);
    }
    ty **elems = cc_xmalloc(((size_t)t->nkids + 1) * sizeof *elems);
    for (int i = 0; i < t->nkids; i++) {
        ty *a = term_type(c, t->kids[i], e);
        if (fn[0] == 'c') {
            elems[i] = elem_type(c, fn, a, t);
        } else {
            if (!is_node_or_nil(c, a)) error_at(c, t->line, t->col, "list: elements must be nodes, got %s", a->text);
            elems[i] = a;
        }
    }
    ty *u = list_of(c, union_of(c, elems, t->nkids));
    cc_free(elems);
    return u;
}

static ty *new_type(checker *c, const ast_term *t, const env *e)
{
    int d = struct_of(c, t->sval);
    const ast_typedef *st = d >= 0 ? &c->g->types[d] : NULL;
    for (int i = 0; i < t->nkids; i++) {
        ty *v = term_type(c, t->kids[i], e);
        if (!st) continue;
        int f = field_index(st, t->names[i]);
        if (f < 0) {
            error_at(c, t->name_lines[i], t->name_cols[i], "%s has no field %s", st->name, t->names[i]);
        } else if (!assignable(c, v, c->field_types[d][f])) {
            error_at(c, t->name_lines[i], t->name_cols[i], "cannot use %s as %s in field %s of %s",
                     v->text, c->field_types[d][f]->text, t->names[i], st->name);
        }
    }
    return st ? named(c, st->name, 's', d) : c->any;
}

static ty *binary_type(checker *c, const ast_term *t, const env *e)
{
    ty *l = term_type(c, t->kids[0], e), *r = term_type(c, t->kids[1], e);
    const char *op = t->sval;
    int ints = assignable(c, l, c->t_int) && assignable(c, r, c->t_int);
    int strings = assignable(c, l, c->t_string) && assignable(c, r, c->t_string);
    int bools = assignable(c, l, c->t_bool) && assignable(c, r, c->t_bool);
    ty *result;
    if (!strcmp(op, "==") || !strcmp(op, "!=")) return c->t_bool;
    if (!strcmp(op, "&&") || !strcmp(op, "||")) result = bools ? c->t_bool : NULL;
    else if (strchr("<>", op[0])) result = ints || strings ? c->t_bool : NULL;
    else if (!strcmp(op, "+")) {
        if (l == c->any || r == c->any) return c->any;
        result = ints ? c->t_int : strings ? c->t_string : NULL;
    } else result = ints ? c->t_int : NULL;
    if (result) return result;
    error_at(c, t->line, t->col, "invalid operands %s and %s for %s", l->text, r->text, op);
    return c->any;
}

static ty *term_type(checker *c, const ast_term *t, const env *e)
{
    switch (t->kind) {
    case TERM_INT: return c->t_int;
    case TERM_STRING: return c->t_string;
    case TERM_VAR:
        if (!strcmp(t->sval, "true") || !strcmp(t->sval, "false")) return c->t_bool;
        if (!strcmp(t->sval, "nil")) return c->nil;
        return c->any;                      /* variables are not type-checked */
    case TERM_CAPREF: {
        if (is_index(t)) {
            if (!e->allow_index) return c->any;
            int64_t n = strtoll(t->sval, NULL, 10);
            if (n == 0) return list_of(c, union_of(c, e->items, e->nitems));
            if (n > e->nitems) {
                error_at(c, t->line, t->col, "$%s is out of range: the rule has %d elements with a value",
                         t->sval, e->nitems);
                return c->any;
            }
            return e->items[n - 1];
        }
        const local *l = find_local(e->locals, t->sval);
        if (l) return l->t;
        const capture *k = find_capture(e->caps, t->sval);
        return k ? capture_type(c, k) : c->any;
    }
    case TERM_MEMBER: return member_type(c, term_type(c, t->kids[0], e), t);
    case TERM_NEW: return new_type(c, t, e);
    case TERM_CALL: return call_type(c, t, e);
    case TERM_LAMBDA:
        error_at(c, c->rule->def_line, c->rule->def_col, "functions can only be passed to foldl, foldr, or map");
        return c->any;
    case TERM_UNARY: {
        ty *x = term_type(c, t->kids[0], e), *want = t->sval[0] == '!' ? c->t_bool : c->t_int;
        if (!assignable(c, x, want)) error_at(c, t->line, t->col, "invalid operand %s for unary %s", x->text, t->sval);
        return want;
    }
    case TERM_BINARY: return binary_type(c, t, e);
    }
    return c->any;
}

/* ---- types of rules ---- */

/* The values of x's top-level elements: $1 .. $n (6.4). */
static ty **elements(checker *c, const ast_expr *x, ty *value, int *n)
{
    ty **items = cc_xmalloc(((size_t)(x->kind == AST_SEQ ? x->nkids : 1) + 1) * sizeof *items);
    *n = 0;
    if (x->kind != AST_SEQ) {
        if (value) items[(*n)++] = value;
        return items;
    }
    for (int i = 0; i < x->nkids; i++) {
        if (!cc_has_value(x->kids[i])) continue;
        scope s = { 0 };
        items[(*n)++] = expr_type(c, x->kids[i], &s);
        scope_free(&s);
    }
    return items;
}

/* The type of the action's value, which must be a node or nil. */
static ty *action_type(checker *c, const ast_term *action, env *e, const char *rule_name)
{
    ty *t = term_type(c, action, e);
    if (is_node_or_nil(c, t)) return t;
    int line, col;
    term_pos(c, action, &line, &col);
    if (rule_name) error_at(c, line, col, "action of %s must produce a node, got %s", rule_name, t->text);
    else error_at(c, line, col, "action must produce a node, got %s", t->text);
    return c->any;
}

/* A Pratt operand or operator line: its CST value, or its action's. */
static ty *line_type(checker *c, const ast_expr *x, const ast_term *action, const local *locals)
{
    scope s = { 0 };
    ty *t = expr_type(c, x, &s);
    check_preds(c, &s);
    if (!action) {
        t = s.n > 0 ? record(c, &s) : t ? t : c->nil;
    } else {
        env e = { .caps = &s, .locals = locals };
        if (!locals) {
            e.allow_index = 1;
            e.items = elements(c, x, t, &e.nitems);
        }
        t = action_type(c, action, &e, NULL);
        cc_free(e.items);
    }
    scope_free(&s);
    return t;
}

static ty *pratt_type(checker *c, int r, ty *declared)
{
    const ast_rule *rule = &c->g->rules[r];
    const ast_pratt *p = rule->body->pratt;
    ty *self = c->rule_type[r];
    int nlines = p->noperands, k = 0, bare = 0;
    for (int l = 0; l < p->nlevels; l++) nlines += p->levels[l].nops;
    ty **ts = cc_xmalloc(((size_t)nlines + 1) * sizeof *ts);
    if (p->skip) {
        scope s = { 0 };
        expr_type(c, p->skip, &s);
        scope_free(&s);
    }
    for (int i = 0; i < p->noperands; i++) ts[k++] = line_type(c, p->operands[i].expr, p->operands[i].action, NULL);
    for (int l = 0; l < p->nlevels; l++)
        for (int o = 0; o < p->levels[l].nops; o++) {
            const ast_pratt_op *op = &p->levels[l].ops[o];
            local lo[3];
            const local *locals = operator_locals(op, lo, c->match, self);
            ty *t = line_type(c, op->expr, op->action, op->action ? locals : NULL);
            if (!op->action) { t = c->operator_; bare = 1; }
            ts[k++] = t;
        }
    ty *result = declared;
    if (declared) {
        if (bare && !assignable(c, c->operator_, declared))
            error_at(c, rule->def_line, rule->def_col,
                     "operators of %s without an action produce Operator, which is not assignable to %s",
                     rule->name, declared->text);
        for (int i = 0; i < k; i++)
            if (ts[i] != c->operator_ && !assignable(c, ts[i], declared))
                error_at(c, rule->def_line, rule->def_col, "pratt %s produces %s, which is not assignable to %s",
                         rule->name, ts[i]->text, declared->text);
    } else {
        result = union_of(c, ts, k);
    }
    cc_free(ts);
    return result;
}

/* The type of rule r's value from the current types of the rules it calls,
 * with its type errors when c->report is set. */
static ty *rule_value_type(checker *c, int r)
{
    const ast_rule *rule = &c->g->rules[r];
    ty *declared = c->declared[r] ? c->rule_type[r] : NULL;
    c->rule = rule;
    if (rule->body->kind == AST_PRATT) return pratt_type(c, r, declared);
    scope s = { 0 };
    ty *body = expr_type(c, rule->body, &s);
    check_preds(c, &s);
    ty *t;
    if (rule->action) {
        env e = { .caps = &s, .allow_index = 1 };
        e.items = elements(c, rule->body, body, &e.nitems);
        t = action_type(c, rule->action, &e, rule->name);
        cc_free(e.items);
    } else {
        t = s.n > 0 ? record(c, &s) : body ? body : c->nil;
        if (declared && declared->kind == TY_NAMED && declared->named == 't') {
            scope_free(&s);
            return declared;        /* the rule produces a node of its terminal type */
        }
    }
    scope_free(&s);
    if (!declared) return t;
    if (!assignable(c, t, declared))
        error_at(c, rule->def_line, rule->def_col, "rule %s produces %s, which is not assignable to %s",
                 rule->name, t->text, declared->text);
    return declared;
}

/* cc_solve's step: recomputes an inferred rule's type; nonzero when it changed.
 * A Pratt rule reads its own type ($lhs, $rhs), so it is recomputed until stable. */
static int infer_rule(void *ctx, int r)
{
    checker *c = ctx;
    if (c->declared[r] || c->widened[r]) return 0;
    ty *old = c->rule_type[r], *t;
    for (;;) {
        t = rule_value_type(c, r);
        if (t != old && old != c->never && t->textlen > INFER_MAX_TEXT) t = c->any;
        if (t != old && ++c->changes[r] > INFER_MAX_CHANGES) t = c->any;
        if (t == c->any) c->widened[r] = 1;
        if (c->g->rules[r].body->kind != AST_PRATT || t == c->rule_type[r] || t == c->any) break;
        c->rule_type[r] = t;
    }
    c->rule_type[r] = t;
    return t != old;
}

static void check_types(checker *c)
{
    const ast_grammar *g = c->g;
    int n = g->nrules;
    c->rule_type = cc_xcalloc((size_t)n + 1, sizeof *c->rule_type);
    c->declared = cc_xcalloc((size_t)n + 1, 1);
    c->widened = cc_xcalloc((size_t)n + 1, 1);
    c->changes = cc_xcalloc((size_t)n + 1, sizeof *c->changes);
    c->report = 1;
    for (int r = 0; r < n; r++) {
        const ast_rule *rule = &g->rules[r];
        c->rule_type[r] = c->never;
        if (!rule->type) continue;
        ty *t = resolve(c, rule->type);
        if (!is_node_or_nil(c, t)) {
            error_at(c, rule->def_line, rule->def_col, "rule %s must produce a node, but its type is %s",
                     rule->name, t->text);
            t = c->any;
        }
        c->rule_type[r] = t;
        c->declared[r] = 1;
    }
    c->report = 0;
    cc_callgraph cg;
    cc_callgraph_init(&cg, g);
    cc_solve(&cg, infer_rule, c);
    cc_callgraph_free(&cg);
    c->report = 1;
    for (int r = 0; r < n; r++) rule_value_type(c, r);
    cc_free(c->rule_type);
    cc_free(c->declared);
    cc_free(c->widened);
    cc_free(c->changes);
}

/* ---- the entry point ---- */

static void init_types(checker *c)
{
    c->any = basic(c, TY_ANY, "any");
    c->never = basic(c, TY_NEVER, "never");
    c->t_int = basic(c, TY_INT, "int");
    c->t_string = basic(c, TY_STRING, "string");
    c->t_bool = basic(c, TY_BOOL, "bool");
    c->nil = basic(c, TY_NIL, "nil");
    c->node = basic(c, TY_NODE, "node");
    c->terminal = basic(c, TY_TERMINAL, "terminal");
    c->match = named(c, "Match", 'c', -1);
    c->seq = named(c, "Seq", 'c', -1);
    c->list = named(c, "List", 'c', -1);
    c->operator_ = named(c, "Operator", 'c', -1);
    c->error = named(c, "Error", 'c', -1);
}

int cc_typecheck(const ast_grammar *g, cc_errors *errs)
{
    int base = errs->n;
    checker c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.errs = errs;
    c.report = 1;
    init_types(&c);
    for (int d = 0; d < g->ntypes; d++) {
        const char *name = g->types[d].name;
        if (!cc_is_reserved_type(name) && starts_upper(name) && find_typedef(&c, name) < 0)
            cc_index_add(&c.typedefs, cc_hash(name, strlen(name)), (uint32_t)d);
    }
    c.alias = cc_xcalloc((size_t)g->ntypes + 1, sizeof *c.alias);
    const ast_type **cycle_ref = resolve_aliases(&c);
    c.field_types = cc_xcalloc((size_t)g->ntypes + 1, sizeof *c.field_types);
    for (int d = 0; d < g->ntypes; d++) {
        const ast_typedef *td = &g->types[d];
        if (td->kind != TYPEDEF_STRUCT) continue;
        c.field_types[d] = arena_alloc(&c, ((size_t)td->nfields + 1) * sizeof **c.field_types);
        for (int i = 0; i < td->nfields; i++) c.field_types[d][i] = resolve(&c, td->field_types[i]);
    }

    /* definition and reference errors, in source order */
    int ndefs = g->nrules + g->ntypes;
    cc_definition *defs = cc_definitions(g);
    for (int i = 0; i < ndefs; i++) {
        if (defs[i].is_type) typedef_names(&c, defs[i].index, cycle_ref);
        else rule_names(&c, &g->rules[defs[i].index]);
    }
    cc_free(defs);
    cc_free(cycle_ref);

    /* type errors, when nothing else is wrong */
    if (errs->n == 0) check_types(&c);

    cc_free(c.alias);
    cc_free(c.field_types);
    cc_free(c.all);
    cc_free(c.key);
    cc_index_free(&c.interned);
    cc_index_free(&c.typedefs);
    arena_free(&c);
    return errs->n - base;
}
