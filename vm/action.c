/* The action machine (docs/language.md 6.3-6.9): runs the action programs that
 * compiler/action.c makes from actions' terms, over an explicit value stack
 * (slots for lambda parameters at its bottom), so that neither a deep term nor
 * a long list costs C recursion. Values are nil, integers, bools, strings (in
 * the parse's string arena) and nodes; a run-time error ends the parse as an
 * aborted parse with "action in RULE: MESSAGE". */
#include "action.h"
#include "../runtime/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* An iteration of map, foldl or foldr: the list's node value, the next index,
 * the element count, the built-in, and where the map's elements begin in
 * p->akids. */
typedef struct vm_aiter { uint32_t list, i, n, each, kids; } vm_aiter;

typedef struct {
    pego_parser     *p;
    const cc_action *act;
    uint32_t         body, from, to, start, end;
    uint32_t         created;      /* nodes made before the action ran */
    uint32_t         vn, in, kn;   /* heights: values, iterations, list elements */
} machine;

static const char *type_name(machine *m, const vm_aval *v)
{
    switch (v->kind) {
    case V_NIL:  return "nil";
    case V_INT:  return "int";
    case V_BOOL: return "bool";
    case V_STR:  return "string";
    default: {
        const rt_tree *t = &m->p->tree;
        return rt_tree_type_name(t, m->p->g, &t->nodes[v->x - 1]);
    }
    }
}

static vm_step error(machine *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static vm_step error(machine *m, const char *fmt, ...)
{
    if (m->act->predicate) return VM_FAIL;     /* a predicate's error is its failure (6.9) */
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rt_parse_abort(m->p, "action in %s: %s", m->p->g->rules[m->act->rule].name, msg);
    return VM_ACTION_ERROR;
}

static inline int push(machine *m, vm_aval v)
{
    pego_parser *p = m->p;
    if (__builtin_expect(m->vn == p->capavals, 0) &&
        rt_buf_grow((void **)&p->avals, &p->capavals, (uint64_t)m->vn + 1, sizeof *p->avals) < 0)
        return -1;
    p->avals[m->vn++] = v;
    return 0;
}

static vm_aval node_value(uint32_t v) { return v == VAL_NIL ? (vm_aval){ V_NIL, 0, 0 } : (vm_aval){ V_NODE, 0, VAL_NODE(v) }; }

static const pego_node *node_of(machine *m, const vm_aval *v) { return &m->p->tree.nodes[v->x - 1]; }

/* A new string of len bytes in the arena: returns its offset (its bytes are
 * written by the caller), or UINT32_MAX when out of memory. */
static uint32_t new_string(machine *m, uint32_t len)
{
    static const char zeros[256];
    rt_buf *b = &m->p->strings;
    size_t at = b->len, left = (size_t)len + 1;     /* with its NUL */
    if (at + left > UINT32_MAX) return UINT32_MAX;
    while (left && !b->oom) {
        size_t k = left < sizeof zeros ? left : sizeof zeros;
        rt_buf_add(b, zeros, k);
        left -= k;
    }
    return b->oom ? UINT32_MAX : (uint32_t)at;
}

static int push_string(machine *m, const char *s, uint32_t len)
{
    uint32_t at = new_string(m, len);
    if (at == UINT32_MAX) return -1;
    if (len) memcpy(m->p->strings.data + at, s, len);
    return push(m, (vm_aval){ V_STR, len, at });
}

/* Elements of list-like value v (docs/language.md 6.8): nil has none, a node
 * its children. Returns -1 when v is neither. */
static int64_t elements(machine *m, const vm_aval *v)
{
    if (v->kind == V_NIL) return 0;
    if (v->kind != V_NODE) return -1;
    return rt_tree_node_nkids(&m->p->tree, node_of(m, v));
}

static uint32_t child(machine *m, uint32_t list, uint32_t i)
{
    const rt_tree *t = &m->p->tree;
    return t->kids[t->nodes[list - 1].kids + i];
}

static int add_kid(machine *m, uint32_t v);

/* Adds v, which must be a node or nil, to the list being built for built-in fn. */
static vm_step add_element(machine *m, const vm_aval *v, const char *fn)
{
    if (v->kind != V_NIL && v->kind != V_NODE) return error(m, "%s: list elements must be nodes, got %s", fn, type_name(m, v));
    return add_kid(m, v->kind == V_NODE ? (uint32_t)v->x : 0) < 0 ? VM_OOM : VM_NEXT;
}

static int add_kid(machine *m, uint32_t v)
{
    pego_parser *p = m->p;
    if (m->kn == p->capakids && rt_buf_grow((void **)&p->akids, &p->capakids, (uint64_t)m->kn + 1, sizeof *p->akids) < 0)
        return -1;
    p->akids[m->kn++] = v;
    return 0;
}

/* Widens [*s, *e) to cover node value v (0: nil, left out); *first: nothing
 * covered yet, the range is then v's. */
static void cover(const rt_tree *t, uint32_t v, uint32_t *s, uint32_t *e, int *first)
{
    if (!v) return;
    const pego_node *k = &t->nodes[v - 1];
    if (*first || k->start < *s) *s = k->start;
    if (*first || k->end > *e) *e = k->end;
    *first = 0;
}

/* Pushes a new List of p->akids[from, kn), covering its non-nil elements
 * (an empty one is [start, start) at the rule's start). */
static int push_list(machine *m, uint32_t from)
{
    pego_parser *p = m->p;
    rt_tree *t = &p->tree;
    uint32_t s = m->start, e = m->start;
    int first = 1;
    for (uint32_t i = from; i < m->kn; i++) cover(t, p->akids[i], &s, &e, &first);
    uint32_t v = rt_tree_node(t, NODE_LIST, s, e, RT_AT(p->akids, from), m->kn - from);
    if (!v) return -1;
    m->kn = from;
    return push(m, (vm_aval){ V_NODE, 0, v });
}

/* Pushes a new list of the children of node value list (0: none). */
static int push_children(machine *m, uint32_t list)
{
    uint32_t from = m->kn, n = list ? rt_tree_node_nkids(&m->p->tree, &m->p->tree.nodes[list - 1]) : 0;
    for (uint32_t i = 0; i < n; i++)
        if (add_kid(m, child(m, list, i)) < 0) return -1;
    return push_list(m, from);
}

static uint64_t unit(machine *m, uint32_t byte) { return rt_input_unit(&m->p->in, byte); }

/* The length of a string in the parse's unit. */
static int64_t string_length(machine *m, const vm_aval *v)
{
    if (m->p->in.unit == PEGO_UNIT_BYTES) return v->len;
    const unsigned char *s = (const unsigned char *)m->p->strings.data + v->x;
    int64_t n = 0;
    uint32_t cp;
    for (uint32_t i = 0; i < v->len; n++) i += s[i] < 0x80 ? 1u : (uint32_t)rt_unicode_decode(s + i, v->len - i, &cp);
    return n;
}

static int equal(machine *m, const vm_aval *a, const vm_aval *b)
{
    if (a->kind != b->kind) return 0;
    if (a->kind == V_STR)
        return a->len == b->len && memcmp(m->p->strings.data + a->x, m->p->strings.data + b->x, a->len) == 0;
    return a->x == b->x;
}

static int compare_strings(machine *m, const vm_aval *a, const vm_aval *b)
{
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(m->p->strings.data + a->x, m->p->strings.data + b->x, n) : 0;
    if (c) return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static const char *const op_text[AC__COUNT] = {
    [AC_ADD] = "+", [AC_SUB] = "-", [AC_MUL] = "*", [AC_DIV] = "/", [AC_MOD] = "%",
    [AC_LT] = "<", [AC_LE] = "<=", [AC_GT] = ">", [AC_GE] = ">=",
};

/* A binary operator other than ==, !=, && and ||: the result in *l. */
static vm_step binary(machine *m, int op, vm_aval *l, const vm_aval *r)
{
    if (l->kind == V_INT && r->kind == V_INT) {
        uint64_t a = l->x, b = r->x;
        int64_t sa = (int64_t)a, sb = (int64_t)b;
        switch (op) {
        case AC_ADD: l->x = a + b; return VM_NEXT;
        case AC_SUB: l->x = a - b; return VM_NEXT;
        case AC_MUL: l->x = a * b; return VM_NEXT;
        case AC_DIV:
        case AC_MOD:
            if (sb == 0) return error(m, "division by zero");
            if (sb == -1) l->x = op == AC_DIV ? 0 - a : 0;   /* INT64_MIN / -1 wraps to INT64_MIN */
            else l->x = (uint64_t)(op == AC_DIV ? sa / sb : sa % sb);
            return VM_NEXT;
        default:
            *l = (vm_aval){ V_BOOL, 0, op == AC_LT ? sa < sb : op == AC_LE ? sa <= sb : op == AC_GT ? sa > sb : sa >= sb };
            return VM_NEXT;
        }
    }
    if (l->kind == V_STR && r->kind == V_STR && op != AC_SUB && op != AC_MUL && op != AC_DIV && op != AC_MOD) {
        if (op == AC_ADD) {
            uint32_t at = new_string(m, l->len + r->len);
            if (at == UINT32_MAX) return VM_OOM;
            char *d = m->p->strings.data;
            memcpy(d + at, d + l->x, l->len);
            memcpy(d + at + l->len, d + r->x, r->len);
            *l = (vm_aval){ V_STR, l->len + r->len, at };
            return VM_NEXT;
        }
        int c = compare_strings(m, l, r);
        *l = (vm_aval){ V_BOOL, 0, op == AC_LT ? c < 0 : op == AC_LE ? c <= 0 : op == AC_GT ? c > 0 : c >= 0 };
        return VM_NEXT;
    }
    return error(m, "invalid operands %s and %s for %s", type_name(m, l), type_name(m, r), op_text[op]);
}

/* The field of label `label` of node n, nil when it has none. */
static vm_aval field_of(const rt_tree *t, const pego_node *n, int32_t label)
{
    uint32_t first, count = rt_tree_fields(t, n, &first);
    for (uint32_t i = 0; i < count; i++) {
        const rt_field *f = &t->fields[first + i];
        if ((int32_t)f->label != label) continue;
        switch (f->kind) {
        case FIELD_INT:    return (vm_aval){ V_INT, 0, f->value };
        case FIELD_BOOL:   return (vm_aval){ V_BOOL, 0, f->value };
        case FIELD_STRING: return (vm_aval){ V_STR, FIELD_STRING_LEN(f->value), FIELD_STRING_OFF(f->value) };
        default:           return node_value((uint32_t)f->value);
        }
    }
    return (vm_aval){ V_NIL, 0, 0 };
}

/* Field access x.name (docs/language.md 6.7). */
static vm_step field(machine *m, const cc_aop *in, vm_aval *x)
{
    const pego_grammar *g = m->p->g;
    const char *name = g->atext + in->b;
    if (x->kind != V_NODE) return error(m, "cannot access .%s of %s", name, type_name(m, x));
    const rt_tree *t = &m->p->tree;
    const pego_node *n = node_of(m, x);
    if (rt_tree_node_kind(n) == NODE_STRUCT) {
        const cc_type *ty = &g->types[rt_tree_node_user_type(t, n)];
        int declared = 0;
        for (int i = 0; i < ty->nfields && !declared; i++) declared = ty->fields[i] == in->a;
        if (!declared) return error(m, "%s has no field %s", ty->name, name);
    }
    *x = field_of(t, n, in->a);
    return VM_NEXT;
}

/* new T{...}: the b values on top, fields alabels[i ...] in source order. */
static vm_step new_struct(machine *m, const cc_aop *in)
{
    pego_parser *p = m->p;
    rt_tree *t = &p->tree;
    uint32_t n = (uint32_t)in->b, base = m->vn - n;
    const int32_t *labels = RT_AT(p->g->alabels, (uint32_t)in->i);
    if (in->a < 0) return error(m, "%s is not a struct type", p->g->atext + (uint32_t)(in->i >> 32));
    uint32_t s = m->start, e = m->end;
    int first = 1;
    for (uint32_t i = 0; i < n; i++)
        if (p->avals[base + i].kind == V_NODE) cover(t, (uint32_t)p->avals[base + i].x, &s, &e, &first);
    uint32_t node = rt_tree_node(t, NODE_STRUCT, s, e, NULL, 0);
    if (!node) return VM_OOM;
    if (rt_buf_grow((void **)&t->fields, &t->capfields, (uint64_t)t->nfields + n, sizeof(rt_field)) < 0) return VM_OOM;
    if (rt_tree_set_typed(t, node, (uint32_t)in->a, t->nfields, n) < 0) return VM_OOM;
    rt_field *f = RT_AT(t->fields, t->nfields);
    for (uint32_t i = 0; i < n; i++) {
        const vm_aval *v = &p->avals[base + i];
        static const uint32_t kinds[] = { [V_NIL] = FIELD_NODE, [V_INT] = FIELD_INT, [V_BOOL] = FIELD_BOOL,
                                          [V_STR] = FIELD_STRING, [V_NODE] = FIELD_NODE };
        rt_field x = { (uint32_t)labels[i], kinds[v->kind], v->kind == V_STR ? FIELD_STRING_AT(v->x, v->len) : v->x };
        uint32_t j = i;                     /* insertion by label: fields print sorted */
        while (j > 0 && f[j - 1].label > x.label) { f[j] = f[j - 1]; j--; }
        f[j] = x;
    }
    t->nfields += n;
    m->vn = base;
    return push(m, (vm_aval){ V_NODE, 0, node }) < 0 ? VM_OOM : VM_NEXT;
}

static vm_step run(machine *m, uint32_t *out)
{
    pego_parser *p = m->p;
    const pego_grammar *g = p->g;
    const cc_aop *code = g->acode, *in = code + m->act->code;
    for (;;) {
        vm_aval *top = m->vn ? &p->avals[m->vn - 1] : NULL;
        switch ((vm_action_op)in->op) {
        case AC_NIL:   if (push(m, (vm_aval){ V_NIL, 0, 0 }) < 0) return VM_OOM; break;
        case AC_TRUE:  if (push(m, (vm_aval){ V_BOOL, 0, 1 }) < 0) return VM_OOM; break;
        case AC_FALSE: if (push(m, (vm_aval){ V_BOOL, 0, 0 }) < 0) return VM_OOM; break;
        case AC_INT:   if (push(m, (vm_aval){ V_INT, 0, (uint64_t)in->i }) < 0) return VM_OOM; break;
        case AC_STR:   if (push_string(m, g->atext + in->a, (uint32_t)in->b) < 0) return VM_OOM; break;
        case AC_CAP: {
            uint32_t v = VAL_NIL;
            for (uint32_t i = m->to; in->a >= 0 && i-- > m->from;)
                if ((int32_t)p->trail[i].label == in->a) { v = p->trail[i].value; break; }
            if (push(m, node_value(v)) < 0) return VM_OOM;
            break;
        }
        case AC_CAPOF: {
            const vm_aval *part = &p->avals[in->b];
            vm_aval v = part->kind == V_NODE ? field_of(&p->tree, node_of(m, part), in->a) : (vm_aval){ V_NIL, 0, 0 };
            if (push(m, v) < 0) return VM_OOM;
            break;
        }
        case AC_ELEM:
        case AC_ELEMS: {
            /* the body's elements with a value slot: a Seq's children, or the body alone */
            uint32_t body = VAL_NODE(m->body), from = m->kn, n;
            int seq = m->act->elems == CC_ELEMS_SEQ;
            n = seq ? rt_tree_node_nkids(&p->tree, &p->tree.nodes[body - 1]) : m->act->elems == CC_ELEMS_ONE;
            if (in->op == AC_ELEM) {
                if ((uint32_t)in->a >= n) return error(m, "$%d is out of range (%u elements)", in->a + 1, n);
                if (push(m, node_value(seq ? child(m, body, (uint32_t)in->a) : m->body)) < 0) return VM_OOM;
                break;
            }
            for (uint32_t i = 0; i < n; i++)
                if (add_kid(m, seq ? child(m, body, i) : body) < 0) return VM_OOM;
            if (push_list(m, from) < 0) return VM_OOM;
            break;
        }
        case AC_LOCAL: if (push(m, p->avals[in->a]) < 0) return VM_OOM; break;
        case AC_STORE: p->avals[in->a] = *top; m->vn--; break;
        case AC_VAR: {
            const vm_var *v = vm_var_find(p, (uint32_t)in->i);
            if (!v) return error(m, "variable %.*s is not defined", (int)in->b, g->atext + in->a);
            if (push(m, v->value) < 0) return VM_OOM;
            break;
        }
        case AC_NEW: {
            vm_step st = new_struct(m, in);
            if (st != VM_NEXT) return st;
            break;
        }
        case AC_FIELD: {
            vm_step st = field(m, in, top);
            if (st != VM_NEXT) return st;
            break;
        }
        case AC_STARTPOS:
        case AC_ENDPOS:
        case AC_CHILDREN: {
            static const char *const names[] = { "startPos", "endPos", "children" };
            if (top->kind != V_NODE)
                return error(m, "cannot access .%s of %s", names[in->op - AC_STARTPOS], type_name(m, top));
            const pego_node *n = node_of(m, top);
            if (in->op == AC_CHILDREN) {
                uint32_t list = (uint32_t)top->x;
                m->vn--;
                if (push_children(m, list) < 0) return VM_OOM;
            } else {
                *top = (vm_aval){ V_INT, 0, unit(m, in->op == AC_STARTPOS ? n->start : n->end) };
            }
            break;
        }
        case AC_NEG:
            if (top->kind != V_INT) return error(m, "invalid operand %s for unary -", type_name(m, top));
            top->x = 0 - top->x;
            break;
        case AC_NOT:
            if (top->kind != V_BOOL) return error(m, "invalid operand %s for unary !", type_name(m, top));
            top->x = !top->x;
            break;
        case AC_ADD: case AC_SUB: case AC_MUL: case AC_DIV: case AC_MOD:
        case AC_LT: case AC_LE: case AC_GT: case AC_GE: {
            vm_step st = binary(m, in->op, top - 1, top);
            if (st != VM_NEXT) return st;
            m->vn--;
            break;
        }
        case AC_EQ:
        case AC_NE: {
            int eq = equal(m, top - 1, top);
            top[-1] = (vm_aval){ V_BOOL, 0, (uint64_t)(in->op == AC_EQ ? eq : !eq) };
            m->vn--;
            break;
        }
        case AC_AND:
        case AC_OR:
            if (top->kind != V_BOOL)
                return error(m, "invalid operand %s for %s", type_name(m, top), in->op == AC_AND ? "&&" : "||");
            if ((top->x != 0) == (in->op == AC_OR)) { in = code + in->a; continue; }
            m->vn--;
            break;
        case AC_BOOL:
            if (top->kind != V_BOOL) return error(m, "invalid operand %s for %s", type_name(m, top), in->a ? "||" : "&&");
            break;
        case AC_LEN:
            if (top->kind == V_STR) *top = (vm_aval){ V_INT, 0, (uint64_t)string_length(m, top) };
            else if (top->kind == V_NIL) *top = (vm_aval){ V_INT, 0, 0 };
            else if (top->kind == V_NODE) {
                const pego_node *n = node_of(m, top);
                uint64_t len = rt_tree_terminal(n) ? unit(m, n->end) - unit(m, n->start) : rt_tree_node_nkids(&p->tree, n);
                *top = (vm_aval){ V_INT, 0, len };
            } else return error(m, "len: invalid argument %s", type_name(m, top));
            break;
        case AC_TEXT:
            if (top->kind == V_STR) break;
            if (top->kind == V_NIL) { m->vn--; if (push_string(m, "", 0) < 0) return VM_OOM; break; }
            if (top->kind == V_NODE) {
                const pego_node *n = node_of(m, top);
                uint32_t s = n->start, len = n->end - n->start;
                if (s < p->in.base) {          /* a stream parse: only the input still held (7.1) */
                    len = n->end > p->in.base ? n->end - p->in.base : 0;
                    s = p->in.base;
                }
                m->vn--;
                if (push_string(m, p->in.input + s, len) < 0) return VM_OOM;
                break;
            }
            return error(m, "text: invalid argument %s", type_name(m, top));
        case AC_LIST: {
            uint32_t n = (uint32_t)in->a, base = m->vn - n, from = m->kn;
            for (uint32_t i = 0; i < n; i++) {
                vm_step st = add_element(m, &p->avals[base + i], "list");
                if (st != VM_NEXT) return st;
            }
            m->vn = base;
            if (push_list(m, from) < 0) return VM_OOM;
            break;
        }
        case AC_CONCAT: {
            uint32_t n = (uint32_t)in->a, base = m->vn - n, from = m->kn;
            for (uint32_t i = 0; i < n; i++) {
                const vm_aval *v = &p->avals[base + i];
                int64_t count = elements(m, v);
                if (count < 0) return error(m, "concat: expected a list, got %s", type_name(m, v));
                for (int64_t k = 0; k < count; k++)
                    if (add_kid(m, child(m, (uint32_t)v->x, (uint32_t)k)) < 0) return VM_OOM;
            }
            m->vn = base;
            if (push_list(m, from) < 0) return VM_OOM;
            break;
        }
        case AC_EACH: {
            static const char *const names[] = { "map", "foldl", "foldr" };
            int64_t count = elements(m, top);
            if (count < 0) return error(m, "%s: expected a list, got %s", names[in->b], type_name(m, top));
            if (m->in == p->capaiters &&
                rt_buf_grow((void **)&p->aiters, &p->capaiters, (uint64_t)m->in + 1, sizeof *p->aiters) < 0)
                return VM_OOM;
            p->aiters[m->in++] = (vm_aiter){ top->kind == V_NODE ? (uint32_t)top->x : 0, 0, (uint32_t)count,
                                             (uint32_t)in->b, m->kn };
            m->vn--;
            break;
        }
        case AC_NEXT: {
            vm_aiter *it = &p->aiters[m->in - 1];
            if (it->i == it->n) {
                m->in--;
                int st = it->each == AC_EACH_MAP ? push_list(m, it->kids) : push(m, p->avals[in->a - 1]);
                if (st < 0) return VM_OOM;
                in = code + in->b;
                continue;
            }
            uint32_t i = it->each == AC_EACH_FOLDR ? it->n - 1 - it->i : it->i;
            it->i++;
            p->avals[in->a] = node_value(child(m, it->list, i));
            break;
        }
        case AC_MAPPUT: {
            vm_step st = add_element(m, top, "map");
            if (st != VM_NEXT) return st;
            m->vn--;
            in = code + in->a;
            continue;
        }
        case AC_JMP:
            in = code + in->a;
            continue;
        case AC_TEST:
            *out = m->vn - 1;           /* where the predicate's value is */
            return VM_NEXT;
        case AC_END:
            if (top->kind != V_NIL && top->kind != V_NODE)
                return error(m, "result must be a node, got %s", type_name(m, top));
            if (top->kind == V_NIL) { *out = VAL_NIL; return VM_NEXT; }
            *out = (uint32_t)top->x;
            if (*out > m->created) {            /* made by this action: the rule's range */
                pego_node *n = &p->tree.nodes[*out - 1];
                n->start = m->start;
                n->end = m->end;
            }
            return VM_NEXT;
        case AC__COUNT:
            break;
        }
        in++;
    }
}

vm_step vm_action_eval(pego_parser *p, int a, uint32_t v, uint32_t from, uint32_t to,
                       uint32_t start, uint32_t end, const uint32_t *locals, uint32_t *out)
{
    machine m = { .p = p, .act = &p->g->actions[a], .body = v, .from = from, .to = to,
                  .start = start, .end = end, .created = p->tree.nnodes };
    uint32_t nslots = m.act->nslots;
    if (nslots > p->capavals && rt_buf_grow((void **)&p->avals, &p->capavals, nslots, sizeof *p->avals) < 0)
        return VM_OOM;
    for (uint32_t i = 0; i < nslots; i++)
        p->avals[i] = locals && i < CC_PRATT_SLOTS ? node_value(locals[i]) : (vm_aval){ V_NIL, 0, 0 };
    m.vn = nslots;
    return run(&m, out);
}

/* Where the captures of a predicate's scope begin on the trail: at the
 * iteration of the loop whose REP is at rep, or (rep < 0) at the rule's frame
 * or the Pratt line's. */
static uint32_t scope_start(const pego_parser *p, uint32_t esn, int32_t rep)
{
    for (uint32_t i = esn; i-- > 0;) {
        const vm_entry *e = &p->es[i];
        if (rep >= 0 ? e->kind == E_ITER && e->u.iter.rep == (uint32_t)rep
                     : e->kind == E_CALL || e->kind == E_TCALL || e->kind == E_GCALL || e->kind == E_SUB)
            return e->trail;
    }
    return 0;
}

vm_step vm_predicate_run(pego_parser *p, vm_regs *r)
{
    const cc_action *act = &p->g->actions[r->ip->a];
    rt_tree *t = &p->tree;
    const uint32_t nodes = t->nnodes, kids = t->nkids, fields = t->nfields, refs = t->nrefs;
    uint32_t top;
    vm_step st = vm_action_eval(p, r->ip->a, VAL_NIL, scope_start(p, r->esn, r->ip->b), r->tn, r->pos, r->pos,
                                NULL, &top);
    /* the nodes it made are no one's: they go */
    t->nnodes = nodes;
    t->nkids = kids;
    t->nfields = fields;
    t->nrefs = refs;
    if (st != VM_NEXT) return st;
    const vm_aval *v = &p->avals[top];
    if (act->define >= 0) {
        if (v->kind != V_INT && v->kind != V_STR && v->kind != V_BOOL) return VM_FAIL;
        if (vm_var_define(p, (uint32_t)act->define, *v) < 0) return VM_OOM;
    } else if (v->kind == V_BOOL && !v->x) {
        return VM_FAIL;
    }
    r->ip++;
    return VM_NEXT;
}

vm_step vm_action_run(pego_parser *p, vm_regs *r)
{
    const vm_entry *frame = &p->es[r->esn - 1];
    uint32_t v;
    vm_step st = vm_action_eval(p, r->ip->a, p->vs[r->vsn - 1], frame->trail, r->tn, frame->pos, r->pos, NULL, &v);
    if (st != VM_NEXT) return st;
    r->tn = frame->trail;
    p->vs[r->vsn - 1] = v == VAL_NIL ? v : (v | VAL_CALLED);
    r->ip++;
    return VM_NEXT;
}
