/* Trees: the node arena of a parse (nodes, child lists and fields in three arrays,
 * reset between parses) and printing in the S-expression and JSON forms of
 * docs/language.md 1.13. Printing walks the tree with an explicit stack, so a tree as
 * deep as the nesting limit allows prints without deep C recursion. */
#include "parser.h"
#include "unicode.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>


void rt_tree_reset(rt_tree *t)
{
    t->nnodes = t->nkids = t->nfields = 0;
    if (t->nrefs) memset(t->refs, 0, t->caprefs * sizeof *t->refs);
    t->nrefs = 0;
}

void rt_tree_free(rt_tree *t)
{
    rt_free(t->nodes);
    rt_free(t->kids);
    rt_free(t->fields);
    rt_free(t->refs);
    memset(t, 0, sizeof *t);
}

int rt_tree_reserve(rt_tree *t, uint32_t nkids)
{
    if (rt_buf_grow((void **)&t->nodes, &t->capnodes, (uint64_t)t->nnodes + 1, sizeof(pego_node)) < 0) return -1;
    if (rt_buf_grow((void **)&t->kids, &t->capkids, (uint64_t)t->nkids + nkids, sizeof(uint32_t)) < 0) return -1;
    return 0;
}

/* The field table: node values hashed into a power-of-two table, linear
 * probing, at most half full. A node given fields again keeps the last ones. */
static rt_fieldref *ref_slot(rt_fieldref *refs, uint32_t cap, uint32_t v)
{
    uint32_t i = (v * 2654435761u) & (cap - 1);
    while (refs[i].node && refs[i].node != v) i = (i + 1) & (cap - 1);
    return &refs[i];
}

int rt_tree_set_fields(rt_tree *t, uint32_t v, uint32_t first, uint32_t count)
{
    if (2 * (t->nrefs + 1) > t->caprefs) {
        uint32_t cap = t->caprefs ? 2 * t->caprefs : 64;
        rt_fieldref *refs = rt_calloc(cap, sizeof *refs);
        if (!refs) return -1;
        for (uint32_t i = 0; i < t->caprefs; i++)
            if (t->refs[i].node) *ref_slot(refs, cap, t->refs[i].node) = t->refs[i];
        rt_free(t->refs);
        t->refs = refs;
        t->caprefs = cap;
    }
    rt_fieldref *r = ref_slot(t->refs, t->caprefs, v);
    if (!r->node) t->nrefs++;
    *r = (rt_fieldref){ v, first, count };
    t->nodes[v - 1].tag |= NODE_HAS_FIELDS;
    return 0;
}

uint32_t rt_tree_fields(const rt_tree *t, const pego_node *n, uint32_t *first)
{
    *first = 0;
    if (!(n->tag & NODE_HAS_FIELDS)) return 0;
    const rt_fieldref *r = ref_slot(t->refs, t->caprefs, (uint32_t)(n - t->nodes) + 1);
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

const char *rt_tree_node_type_name(const pego_node *n)
{
    static const char *const names[] = { "Match", "Seq", "List", "Operator", "Error" };
    return names[rt_tree_node_kind(n)];
}

static int terminal(const pego_node *n) { return rt_tree_node_kind(n) == NODE_MATCH || rt_tree_node_kind(n) == NODE_ERROR; }

/* A field's value that is not a node: an integer, or a string in backquotes
 * (S-expressions) or JSON-quoted. */
static void scalar(pego_parser *p, rt_buf *b, const rt_field *f, int json)
{
    if (f->kind == FIELD_INT) { rt_buf_printf(b, "%u", f->value); return; }
    const char *text = p->strings.data + f->value;
    if (json) { rt_unicode_json_string(b, text, strlen(text)); return; }
    rt_buf_addc(b, '`');
    rt_buf_adds(b, text);
    rt_buf_addc(b, '`');
}

/* JSON text of a terminal: in code-point mode an invalid byte is the character
 * U+FFFD (printed as itself); in byte mode it stays a byte, which JSON escaping
 * writes as \ufffd. */
static void json_text(pego_parser *p, rt_buf *b, const char *s, uint32_t n)
{
    if (p->in.unit == PEGO_UNIT_BYTES || p->in.ascii) { rt_unicode_json_string(b, s, n); return; }
    rt_buf t;
    rt_buf_init(&t);
    for (uint32_t i = 0; i < n;) {
        uint32_t cp;
        int w = rt_unicode_decode((const unsigned char *)s + i, n - i, &cp);
        if (cp == RT_REPLACEMENT && w == 1) rt_buf_add(&t, "\xEF\xBF\xBD", 3);
        else rt_buf_add(&t, s + i, (size_t)w);
        i += (uint32_t)w;
    }
    if (t.oom) b->oom = 1;
    else rt_unicode_json_string(b, t.data ? t.data : "", t.len);
    rt_buf_free(&t);
}

static void indent(rt_buf *b, uint32_t depth)
{
    rt_buf_addc(b, '\n');
    for (uint32_t i = 0; i < depth; i++) rt_buf_adds(b, "  ");
}

/* S-expression form of one node: opens it, and pushes the rest in reverse. */
static void sexpr_node(pego_parser *p, work *w, rt_buf *b, uint32_t v)
{
    const pego_grammar *g = p->g;
    rt_tree *t = &p->tree;
    const pego_node *n = &t->nodes[v - 1];
    const char *label = rt_tree_node_label(n) >= 0 ? g->rules[rt_tree_node_label(n)].name : NULL;
    uint32_t fields, nfields = rt_tree_fields(t, n, &fields), nkids = rt_tree_node_nkids(t, n);
    if (label) push(w, A_TEXT, 0, 0, label), push(w, A_TEXT, 0, 0, "@");
    if (terminal(n)) {
        if (rt_tree_node_kind(n) == NODE_ERROR) rt_buf_adds(b, "Error");
        rt_unicode_quote(b, p->in.input + n->start, n->end - n->start, p->in.unit == PEGO_UNIT_BYTES);
        if (nfields) {
            push(w, A_TEXT, 0, 0, "}");
            for (uint32_t i = nfields; i-- > 0;) {
                push(w, t->fields[fields + i].kind == FIELD_NODE ? A_VALUE : A_SCALAR,
                     t->fields[fields + i].kind == FIELD_NODE ? t->fields[fields + i].value : fields + i,
                     0, NULL);
                push(w, A_FIELD, t->fields[fields + i].label, 0, i ? " " : "");
            }
            push(w, A_TEXT, 0, 0, "{");
        }
        return;
    }
    int list = rt_tree_node_kind(n) == NODE_LIST;
    if (list) rt_buf_addc(b, '[');
    else rt_buf_printf(b, "(%s", rt_tree_node_type_name(n));
    push(w, A_TEXT, 0, 0, list ? "]" : ")");
    for (uint32_t i = nfields; i-- > 0;) {
        const rt_field *f = &t->fields[fields + i];
        push(w, f->kind == FIELD_NODE ? A_VALUE : A_SCALAR, f->kind == FIELD_NODE ? f->value : fields + i, 0, NULL);
        push(w, A_FIELD, f->label, 0, (list && i == 0 && nkids == 0) ? "" : " ");
    }
    for (uint32_t i = nkids; i-- > 0;) {
        push(w, A_VALUE, t->kids[n->kids + i], 0, NULL);
        if (!list || i > 0) push(w, A_TEXT, 0, 0, " ");
    }
}

/* JSON form of one node at the given depth (Go's MarshalIndent layout). */
static void json_node(pego_parser *p, work *w, rt_buf *b, uint32_t v, uint32_t depth)
{
    const pego_grammar *g = p->g;
    rt_tree *t = &p->tree;
    const pego_node *n = &t->nodes[v - 1];
    uint32_t fields, nfields = rt_tree_fields(t, n, &fields), nkids = rt_tree_node_nkids(t, n);
    rt_buf_adds(b, "{");
    indent(b, depth + 1);
    rt_buf_printf(b, "\"type\": \"%s\",", rt_tree_node_type_name(n));
    if (rt_tree_node_label(n) >= 0) {
        indent(b, depth + 1);
        rt_buf_adds(b, "\"rule\": ");
        const char *name = g->rules[rt_tree_node_label(n)].name;
        rt_unicode_json_string(b, name, strlen(name));
        rt_buf_addc(b, ',');
    }
    indent(b, depth + 1);
    rt_buf_printf(b, "\"start\": %llu,", (unsigned long long)rt_input_unit(&p->in, n->start));
    indent(b, depth + 1);
    rt_buf_printf(b, "\"end\": %llu", (unsigned long long)rt_input_unit(&p->in, n->end));
    if (terminal(n) && n->end > n->start) {
        rt_buf_addc(b, ',');
        indent(b, depth + 1);
        rt_buf_adds(b, "\"text\": ");
        json_text(p, b, p->in.input + n->start, n->end - n->start);
    }
    push(w, A_TEXT, 0, 0, "}");
    push(w, A_NEWLINE, depth, 0, NULL);
    if (nfields) {
        push(w, A_TEXT, 0, 0, "}");
        push(w, A_NEWLINE, depth + 1, 0, NULL);
        for (uint32_t i = nfields; i-- > 0;) {
            const rt_field *f = &t->fields[fields + i];
            push(w, f->kind == FIELD_NODE ? A_VALUE : A_SCALAR, f->kind == FIELD_NODE ? f->value : fields + i,
                 depth + 2, NULL);
            push(w, A_FIELD, f->label, depth + 2, i ? "," : "");
        }
        push(w, A_TEXT, 0, 0, "\"fields\": {");
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
        push(w, A_TEXT, 0, 0, "\"children\": [");
        push(w, A_NEWLINE, depth + 1, 0, NULL);
        push(w, A_TEXT, 0, 0, ",");
    }
}

char *rt_tree_print(pego_parser *p, uint32_t root, int json)
{
    rt_buf b;
    work w = { 0 };
    rt_buf_init(&b);
    push(&w, A_VALUE, root, 0, NULL);
    while (w.n && !w.oom) {
        action a = w.items[--w.n];
        switch (a.kind) {
        case A_TEXT: rt_buf_adds(&b, a.text); break;
        case A_NEWLINE: indent(&b, a.a); break;
        case A_FIELD: {
            const char *name = p->g->labels[a.a];
            if (json) {
                rt_buf_adds(&b, a.text);
                indent(&b, a.depth);
                rt_unicode_json_string(&b, name, strlen(name));
                rt_buf_adds(&b, ": ");
            } else {
                rt_buf_adds(&b, a.text);
                rt_buf_adds(&b, name);
                rt_buf_addc(&b, '=');
            }
            break;
        }
        case A_SCALAR:
            scalar(p, &b, &p->tree.fields[a.a], json);
            break;
        case A_VALUE:
            if (a.a == VAL_NIL) rt_buf_adds(&b, json ? "null" : "nil");
            else if (json) json_node(p, &w, &b, a.a, a.depth);
            else sexpr_node(p, &w, &b, a.a);
            break;
        }
    }
    rt_free(w.items);
    if (w.oom || b.oom) { rt_buf_free(&b); return NULL; }
    return rt_buf_take(&b);
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
                push(&w, A_VALUE, t->fields[fields + i].value, 0, NULL);
    }
    rt_free(w.items);
    return count;
}
