/* Trees: the node arena of a parse (nodes, child lists and fields in three arrays,
 * reset between parses) and printing in the S-expression and JSON forms of
 * docs/language.md 1.13. Printing walks the tree with an explicit stack, so a tree as
 * deep as the nesting limit allows prints without deep C recursion, and hands its
 * text to a writer in pieces, so printing a large tree needs little memory. */
#include "parser.h"
#include "unicode.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>


void rt_tree_reset(rt_tree *t)
{
    t->nnodes = t->nkids = t->nfields = 0;
    t->nrefs = 0;
    t->noted_nodes = t->noted_kids = t->noted_fields = t->noted_refs = 0;
}

void rt_tree_free(rt_tree *t)
{
    rt_free(t->nodes);
    rt_free(t->kids);
    rt_free(t->fields);
    rt_free(t->refs);
    rt_free(t->ref_of);
    memset(t, 0, sizeof *t);
}

int rt_tree_reserve(rt_tree *t, uint32_t nkids)
{
    if (rt_buf_grow((void **)&t->nodes, &t->capnodes, (uint64_t)t->nnodes + 1, sizeof(pego_node)) < 0) return -1;
    if (rt_buf_grow((void **)&t->kids, &t->capkids, (uint64_t)t->nkids + nkids, sizeof(uint32_t)) < 0) return -1;
    return 0;
}

/* The field table: the entries in the order nodes got their fields, and per
 * node index the entry of a node that has some (NODE_HAS_FIELDS says which
 * do). Nodes are numbered as they are made, so both are read and written in
 * about the order of the input. A node given fields again keeps the last ones. */
int rt_tree_set_fields(rt_tree *t, uint32_t v, uint32_t first, uint32_t count)
{
    return rt_tree_set_typed(t, v, rt_tree_node_user_type(t, &t->nodes[v - 1]), first, count);
}

uint32_t rt_tree_node_user_type(const rt_tree *t, const pego_node *n)
{
    if (!(n->tag & NODE_HAS_FIELDS)) return 0;
    return t->refs[t->ref_of[n - t->nodes]].type;
}

const char *rt_tree_type_name(const rt_tree *t, const pego_grammar *g, const pego_node *n)
{
    static const char *const names[] = { "Match", "Seq", "List", "Operator", "Error" };
    int kind = rt_tree_node_kind(n);
    if (kind == NODE_STRUCT) return g->types[rt_tree_node_user_type(t, n)].name;
    if (kind == NODE_TERMINAL) return g->types[g->rules[rt_tree_node_label(n)].term_type].name;
    return names[kind];
}

int rt_tree_set_typed(rt_tree *t, uint32_t v, uint32_t type, uint32_t first, uint32_t count)
{
    pego_node *n = &t->nodes[v - 1];
    if (n->tag & NODE_HAS_FIELDS) {
        t->refs[t->ref_of[v - 1]] = (rt_fieldref){ first, count, type };
        return 0;
    }
    if (rt_buf_grow((void **)&t->refs, &t->caprefs, (uint64_t)t->nrefs + 1, sizeof *t->refs) < 0 ||
        rt_buf_grow((void **)&t->ref_of, &t->capref_of, t->capnodes, sizeof *t->ref_of) < 0)
        return -1;
    t->ref_of[v - 1] = t->nrefs;
    t->refs[t->nrefs++] = (rt_fieldref){ first, count, type };
    n->tag |= NODE_HAS_FIELDS;
    return 0;
}

uint32_t rt_tree_fields(const rt_tree *t, const pego_node *n, uint32_t *first)
{
    *first = 0;
    if (!(n->tag & NODE_HAS_FIELDS)) return 0;
    const rt_fieldref *r = &t->refs[t->ref_of[n - t->nodes]];
    *first = r->first;
    return r->count;
}

/* ---- printing ---- */

enum { A_VALUE, A_TEXT, A_NEWLINE, A_FIELD, A_SCALAR };

typedef struct {
    uint8_t     kind;
    uint32_t    a;       /* value, indent or label */
    uint32_t    depth;
    const char *text;
} action;

typedef struct {
    action  *items;
    uint32_t n, cap;
    int      oom;
} work;

static void push(work *w, int kind, uint32_t a, uint32_t depth, const char *text)
{
    if (rt_buf_grow((void **)&w->items, &w->cap, (uint64_t)w->n + 1, sizeof(action)) < 0) { w->oom = 1; return; }
    w->items[w->n++] = (action){ (uint8_t)kind, a, depth, text };
}


/* The printer: text is gathered in a buffer and handed to the writer whenever
 * the buffer holds PRINT_PIECE bytes, between two steps of the walk. A step adds
 * little (a node's opening, a field name) except for indentation, handed on as
 * it grows, and the text of terminals, escaped PRINT_SLICE input bytes at a time
 * (an input byte gives at most 6 bytes, "\u0001"), so that a piece stays below
 * PRINT_PIECE + 6 * PRINT_SLICE bytes and a node's fixed text. */
#define PRINT_PIECE 65536u
#define PRINT_SLICE 4096u

typedef struct {
    pego_parser  *p;
    int           json;   /* 0: S-expression, 1: indented JSON, 2: compact JSON */
    rt_buf        b;      /* text not yet handed on */
    pego_write_fn write;
    void         *ctx;
    int           err;    /* what the writer returned, or -1 when memory ran out */
} printer;

/* Hands the buffered text on once it reaches PRINT_PIECE bytes, or whatever
 * there is when all is set. */
static void spill(printer *pr, int all)
{
    if (pr->err) return;
    if (pr->b.oom) { pr->err = -1; return; }
    if (pr->b.len < PRINT_PIECE && !(all && pr->b.len)) return;
    pr->err = pr->write(pr->b.data, pr->b.len, pr->ctx);
    rt_buf_reset(&pr->b);
}

/* A field's value that is not a node: an integer, a bool, or a string in
 * backquotes with no escaping (S-expressions) or JSON-quoted. */
static void scalar(printer *pr, const rt_field *f)
{
    rt_buf *b = &pr->b;
    if (f->kind == FIELD_INT) { rt_buf_printf(b, "%lld", (long long)(int64_t)f->value); return; }
    if (f->kind == FIELD_BOOL) { rt_buf_adds(b, f->value ? "true" : "false"); return; }
    const char *text = pr->p->strings.data + FIELD_STRING_OFF(f->value);
    size_t len = FIELD_STRING_LEN(f->value);
    if (pr->json) { rt_unicode_json_string(b, text, len); return; }
    rt_buf_addc(b, '`');
    rt_buf_add(b, text, len);
    rt_buf_addc(b, '`');
}

/* S-expression text of a terminal, between its quotes. */
static void sexpr_text(printer *pr, const char *s, size_t n)
{
    rt_unicode_quote_body(&pr->b, s, n, pr->p->in.unit == PEGO_UNIT_BYTES);
}

/* JSON text of a terminal, between its quotes: in code-point mode an invalid
 * byte is the character U+FFFD (printed as itself); in byte mode it stays a
 * byte, which JSON escaping writes as \ufffd. */
static void json_text(printer *pr, const char *s, size_t n)
{
    pego_parser *p = pr->p;
    if (p->in.unit == PEGO_UNIT_BYTES || rt_input_ascii(&p->in)) { rt_unicode_json_body(&pr->b, s, n); return; }
    rt_buf t;
    rt_buf_init(&t);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int w = rt_unicode_decode((const unsigned char *)s + i, n - i, &cp);
        if (cp == RT_REPLACEMENT && w == 1) rt_buf_add(&t, "\xEF\xBF\xBD", 3);
        else rt_buf_add(&t, s + i, (size_t)w);
        i += (size_t)w;
    }
    if (t.oom) pr->b.oom = 1;
    else rt_unicode_json_body(&pr->b, t.data ? t.data : "", t.len);
    rt_buf_free(&t);
}

/* A terminal's text in quotes, escaped by body in slices cut between code
 * points. */
static void quoted(printer *pr, const char *s, uint32_t n, void (*body)(printer *, const char *, size_t))
{
    rt_buf_addc(&pr->b, '"');
    for (uint32_t i = 0; i < n && !pr->err;) {
        uint32_t end = n - i <= PRINT_SLICE ? n : i + (uint32_t)rt_unicode_cut(s + i, PRINT_SLICE);
        body(pr, s + i, end - i);
        spill(pr, 0);
        i = end;
    }
    rt_buf_addc(&pr->b, '"');
}

/* A line break and depth levels of indentation, handed on as they grow. */
static void indent(printer *pr, uint32_t depth)
{
    static const char spaces[] = "                                                                ";
    const uint32_t per_add = (sizeof spaces - 1) / 2;
    if (pr->json == 2) return;                  /* compact: no line breaks */
    rt_buf_addc(&pr->b, '\n');
    for (uint32_t left = depth; left && !pr->err;) {
        uint32_t k = left < per_add ? left : per_add;
        rt_buf_add(&pr->b, spaces, 2 * (size_t)k);
        left -= k;
        spill(pr, 0);
    }
}

/* S-expression form of one node: opens it, and pushes the rest in reverse. */
static void sexpr_node(printer *pr, work *w, uint32_t v)
{
    const pego_grammar *g = pr->p->g;
    rt_tree *t = &pr->p->tree;
    rt_buf *b = &pr->b;
    const pego_node *n = &t->nodes[v - 1];
    const char *label = rt_tree_node_label(n) >= 0 ? g->rules[rt_tree_node_label(n)].name : NULL;
    uint32_t fields, nfields = rt_tree_fields(t, n, &fields), nkids = rt_tree_node_nkids(t, n);
    if (label) push(w, A_TEXT, 0, 0, label), push(w, A_TEXT, 0, 0, "@");
    if (rt_tree_terminal(n)) {
        if (rt_tree_node_kind(n) != NODE_MATCH) rt_buf_adds(b, rt_tree_type_name(t, g, n));
        quoted(pr, pr->p->in.input + n->start, n->end - n->start, sexpr_text);
        if (nfields) {
            push(w, A_TEXT, 0, 0, "}");
            for (uint32_t i = nfields; i-- > 0;) {
                push(w, t->fields[fields + i].kind == FIELD_NODE ? A_VALUE : A_SCALAR,
                     t->fields[fields + i].kind == FIELD_NODE ? (uint32_t)t->fields[fields + i].value : fields + i,
                     0, NULL);
                push(w, A_FIELD, t->fields[fields + i].label, 0, i ? " " : "");
            }
            push(w, A_TEXT, 0, 0, "{");
        }
        return;
    }
    int list = rt_tree_node_kind(n) == NODE_LIST;
    if (list) rt_buf_addc(b, '[');
    else rt_buf_printf(b, "(%s", rt_tree_type_name(t, g, n));
    push(w, A_TEXT, 0, 0, list ? "]" : ")");
    for (uint32_t i = nfields; i-- > 0;) {
        const rt_field *f = &t->fields[fields + i];
        push(w, f->kind == FIELD_NODE ? A_VALUE : A_SCALAR, f->kind == FIELD_NODE ? (uint32_t)f->value : fields + i, 0, NULL);
        push(w, A_FIELD, f->label, 0, (list && i == 0 && nkids == 0) ? "" : " ");
    }
    for (uint32_t i = nkids; i-- > 0;) {
        push(w, A_VALUE, t->kids[n->kids + i], 0, NULL);
        if (!list || i > 0) push(w, A_TEXT, 0, 0, " ");
    }
}

/* JSON form of one node at the given depth (Go's MarshalIndent layout). */
static void json_node(printer *pr, work *w, uint32_t v, uint32_t depth)
{
    pego_parser *p = pr->p;
    const pego_grammar *g = p->g;
    rt_tree *t = &p->tree;
    rt_buf *b = &pr->b;
    const pego_node *n = &t->nodes[v - 1];
    uint32_t fields, nfields = rt_tree_fields(t, n, &fields), nkids = rt_tree_node_nkids(t, n);
    const char *sp = pr->json == 2 ? "" : " ";   /* after a colon */
    rt_buf_adds(b, "{");
    indent(pr, depth + 1);
    rt_buf_printf(b, "\"type\":%s", sp);
    const char *type = rt_tree_type_name(t, g, n);
    rt_unicode_json_string(b, type, strlen(type));
    rt_buf_addc(b, ',');
    if (rt_tree_node_label(n) >= 0) {
        indent(pr, depth + 1);
        rt_buf_printf(b, "\"rule\":%s", sp);
        const char *name = g->rules[rt_tree_node_label(n)].name;
        rt_unicode_json_string(b, name, strlen(name));
        rt_buf_addc(b, ',');
    }
    indent(pr, depth + 1);
    rt_buf_printf(b, "\"start\":%s%llu,", sp, (unsigned long long)rt_input_unit(&p->in, n->start));
    indent(pr, depth + 1);
    rt_buf_printf(b, "\"end\":%s%llu", sp, (unsigned long long)rt_input_unit(&p->in, n->end));
    if (rt_tree_terminal(n) && n->end > n->start) {
        rt_buf_addc(b, ',');
        indent(pr, depth + 1);
        rt_buf_printf(b, "\"text\":%s", sp);
        quoted(pr, p->in.input + n->start, n->end - n->start, json_text);
    }
    push(w, A_TEXT, 0, 0, "}");
    push(w, A_NEWLINE, depth, 0, NULL);
    if (nfields) {
        push(w, A_TEXT, 0, 0, "}");
        push(w, A_NEWLINE, depth + 1, 0, NULL);
        for (uint32_t i = nfields; i-- > 0;) {
            const rt_field *f = &t->fields[fields + i];
            push(w, f->kind == FIELD_NODE ? A_VALUE : A_SCALAR, f->kind == FIELD_NODE ? (uint32_t)f->value : fields + i,
                 depth + 2, NULL);
            push(w, A_FIELD, f->label, depth + 2, i ? "," : "");
        }
        push(w, A_TEXT, 0, 0, *sp ? "\"fields\": {" : "\"fields\":{");
        push(w, A_NEWLINE, depth + 1, 0, NULL);
        push(w, A_TEXT, 0, 0, ",");
    }
    if (nkids) {
        push(w, A_TEXT, 0, 0, "]");
        push(w, A_NEWLINE, depth + 1, 0, NULL);
        for (uint32_t i = nkids; i-- > 0;) {
            push(w, A_VALUE, t->kids[n->kids + i], depth + 2, NULL);
            push(w, A_NEWLINE, depth + 2, 0, NULL);
            if (i) push(w, A_TEXT, 0, 0, ",");
        }
        push(w, A_TEXT, 0, 0, *sp ? "\"children\": [" : "\"children\":[");
        push(w, A_NEWLINE, depth + 1, 0, NULL);
        push(w, A_TEXT, 0, 0, ",");
    }
}

int rt_tree_write(pego_parser *p, uint32_t root, int json, pego_write_fn write, void *ctx)
{
    printer pr = { .p = p, .json = json, .write = write, .ctx = ctx };
    work w = { 0 };
    rt_buf *b = &pr.b;
    rt_buf_init(b);
    push(&w, A_VALUE, root, 0, NULL);
    while (w.n && !w.oom && !pr.err) {
        action a = w.items[--w.n];
        switch (a.kind) {
        case A_TEXT: rt_buf_adds(b, a.text); break;
        case A_NEWLINE: indent(&pr, a.a); break;
        case A_FIELD: {
            const char *name = p->g->labels[a.a];
            if (json) {
                rt_buf_adds(b, a.text);
                indent(&pr, a.depth);
                rt_unicode_json_string(b, name, strlen(name));
                rt_buf_adds(b, json == 2 ? ":" : ": ");
            } else {
                rt_buf_adds(b, a.text);
                rt_buf_adds(b, name);
                rt_buf_addc(b, '=');
            }
            break;
        }
        case A_SCALAR:
            scalar(&pr, &p->tree.fields[a.a]);
            break;
        case A_VALUE:
            if (a.a == VAL_NIL) rt_buf_adds(b, json ? "null" : "nil");
            else if (json) json_node(&pr, &w, a.a, a.depth);
            else sexpr_node(&pr, &w, a.a);
            break;
        }
        spill(&pr, 0);
    }
    if (w.oom && !pr.err) pr.err = -1;
    spill(&pr, 1);
    rt_free(w.items);
    rt_buf_free(b);
    return pr.err;
}

/* Number of nodes reachable from root, counting a shared node at each place. */
size_t rt_tree_count(pego_parser *p, uint32_t root)
{
    rt_tree *t = &p->tree;
    work w = { 0 };
    size_t count = 0;
    if (root != VAL_NIL) push(&w, A_VALUE, root, 0, NULL);
    while (w.n && !w.oom) {
        uint32_t v = w.items[--w.n].a;
        const pego_node *n = &t->nodes[v - 1];
        uint32_t fields, nfields = rt_tree_fields(t, n, &fields), nkids = rt_tree_node_nkids(t, n);
        count++;
        for (uint32_t i = 0; i < nkids; i++)
            if (t->kids[n->kids + i]) push(&w, A_VALUE, t->kids[n->kids + i], 0, NULL);
        for (uint32_t i = 0; i < nfields; i++)
            if (t->fields[fields + i].kind == FIELD_NODE && t->fields[fields + i].value)
                push(&w, A_VALUE, (uint32_t)t->fields[fields + i].value, 0, NULL);
    }
    rt_free(w.items);
    return count;
}
