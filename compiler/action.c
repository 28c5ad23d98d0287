/* Types and actions for the emitter (docs/language.md 6): the grammar's node
 * types with aliases resolved, the terminal type a rule's declaration makes it
 * produce, and the compiler of actions' terms into action programs (the
 * instruction set of vm/action.h, run by vm/action.c). Terms are checked
 * before (compiler/typecheck.c); what is compiled here is correct by then,
 * and anything the checker let through fails at run time with a message. The
 * parser bounds the nesting of terms (CC_MAX_NEST), which bounds the recursion
 * of compile_term. */
#include "program.h"
#include "intern.h"
#include "../vm/action.h"
#include "../runtime/alloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- tables ---- */

static void *grow(void *p, uint32_t *cap, uint64_t need, size_t size)
{
    if (need <= *cap) return p;
    uint64_t cap2 = *cap ? *cap : 16;
    while (cap2 < need) cap2 *= 2;
    if (cap2 > UINT32_MAX / 2 || cap2 * size / size != cap2) cc_oom();
    void *q = rt_realloc(p, (size_t)(cap2 * size));
    if (!q) cc_oom();
    *cap = (uint32_t)cap2;
    return q;
}

static int same_typedef(const void *ctx, uint32_t i, const void *name)
{
    return strcmp(((const ast_grammar *)ctx)->types[i].name, name) == 0;
}

static int typedef_of(const cc_typemap *tm, const ast_grammar *ast, const char *name)
{
    return cc_index_find(&tm->index, cc_hash(name, strlen(name)), same_typedef, ast, name);
}

/* The struct or terminal type that type expression t names, through aliases;
 * -1 when it names none (a union, a list, a reserved type...). */
static int resolve(const cc_typemap *tm, const ast_grammar *ast, const ast_type *t)
{
    for (int steps = 0; t && t->kind == TYPE_NAME && steps <= ast->ntypes; steps++) {
        int d = typedef_of(tm, ast, t->name);
        if (d < 0) return -1;
        if (ast->types[d].kind != TYPEDEF_ALIAS) return tm->type_of[d];
        t = ast->types[d].alias;
    }
    return -1;
}

static int label_of(const pego_grammar *g, const char *name)
{
    int lo = 0, hi = g->nlabels;
    while (lo < hi) {
        int mid = (lo + hi) / 2, c = strcmp(g->labels[mid], name);
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return -1;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

void cc_types_build(pego_grammar *g, const ast_grammar *ast, cc_typemap *tm)
{
    tm->type_of = cc_xmalloc(((size_t)ast->ntypes + 1) * sizeof *tm->type_of);
    int n = 0;
    for (int d = 0; d < ast->ntypes; d++) n += ast->types[d].kind != TYPEDEF_ALIAS;
    g->types = rt_calloc((size_t)n + 1, sizeof *g->types);
    if (!g->types) cc_oom();
    for (int d = 0; d < ast->ntypes; d++) {
        const ast_typedef *td = &ast->types[d];
        if (typedef_of(tm, ast, td->name) < 0) cc_index_add(&tm->index, cc_hash(td->name, strlen(td->name)), (uint32_t)d);
        tm->type_of[d] = -1;
        if (td->kind == TYPEDEF_ALIAS) continue;
        cc_type *ty = &g->types[g->ntypes];
        ty->terminal = td->kind == TYPEDEF_TERMINAL;
        ty->fields = rt_calloc((size_t)td->nfields + 1, sizeof *ty->fields);
        ty->name = rt_strdup(td->name);
        if (!ty->fields || !ty->name) { rt_free(ty->fields); rt_free(ty->name); cc_oom(); }
        for (int f = 0; f < td->nfields; f++) ty->fields[ty->nfields++] = label_of(g, td->field_names[f]);
        qsort(ty->fields, (size_t)ty->nfields, sizeof *ty->fields, cmp_int);
        tm->type_of[d] = g->ntypes++;
    }
}

static int same_var(const void *ctx, uint32_t i, const void *name)
{
    return strcmp(((const pego_grammar *)ctx)->vars[i], name) == 0;
}

int cc_var_id(pego_grammar *g, cc_typemap *tm, const char *name)
{
    uint32_t h = cc_hash(name, strlen(name));
    int id = cc_index_find(&tm->var_index, h, same_var, g, name);
    if (id >= 0) return id;
    g->vars = grow(g->vars, &tm->cap_vars, (uint64_t)g->nvars + 1, sizeof *g->vars);
    char *copy = rt_strdup(name);
    if (!copy) cc_oom();
    g->vars[g->nvars++] = copy;             /* the grammar owns it before the index can run out */
    cc_index_add(&tm->var_index, h, (uint32_t)g->nvars - 1);
    return g->nvars - 1;
}

void cc_typemap_free(cc_typemap *tm)
{
    cc_index_free(&tm->var_index);
    cc_index_free(&tm->index);
    cc_free(tm->type_of);
    memset(tm, 0, sizeof *tm);
}

int cc_rule_terminal_type(const pego_grammar *g, const ast_grammar *ast, const cc_typemap *tm, int rule)
{
    const ast_rule *r = &ast->rules[rule];
    if (!r->type || r->action || r->body->kind == AST_PRATT) return -1;
    int t = resolve(tm, ast, r->type);
    return t >= 0 && g->types[t].terminal ? t : -1;
}

/* ---- the compiler of terms ---- */

typedef struct {
    pego_grammar      *g;
    const ast_grammar *ast;
    cc_typemap        *tm;
    int                part;         /* a Pratt operator's action: captures are the part's fields */
    const char        *names[CC_MAX_LOCALS];   /* locals in scope, innermost last */
    int                slots[CC_MAX_LOCALS];
    int                nnames;
    uint32_t           nslots;
} compiler;

static uint32_t emit(compiler *c, int op, int32_t a, int32_t b, int64_t i)
{
    pego_grammar *g = c->g;
    g->acode = grow(g->acode, &c->tm->cap_code, (uint64_t)g->nacode + 1, sizeof *g->acode);
    g->acode[g->nacode] = (cc_aop){ (uint8_t)op, a, b, i };
    return g->nacode++;
}

static uint32_t here(const compiler *c) { return c->g->nacode; }

/* Adds text (NUL-terminated in the table); returns its offset. */
static int32_t add_text(compiler *c, const char *s, size_t len)
{
    pego_grammar *g = c->g;
    if ((uint64_t)g->natext + len + 1 > INT32_MAX) cc_oom();
    g->atext = grow(g->atext, &c->tm->cap_text, (uint64_t)g->natext + len + 1, 1);
    int32_t at = (int32_t)g->natext;
    memcpy(g->atext + at, s, len);
    g->atext[at + len] = 0;
    g->natext += (uint32_t)len + 1;
    return at;
}

static int new_slot(compiler *c) { return (int)c->nslots++; }

static void bind(compiler *c, const char *name, int slot)
{
    if (c->nnames == CC_MAX_LOCALS) cc_oom();     /* the parser's nesting bound keeps far below */
    c->names[c->nnames] = name;
    c->slots[c->nnames++] = slot;
}

static int local_slot(const compiler *c, const char *name)
{
    for (int i = c->nnames; i-- > 0;)
        if (strcmp(c->names[i], name) == 0) return c->slots[i];
    return -1;
}

static void compile_term(compiler *c, const ast_term *t);

static void compile_ref(compiler *c, const ast_term *t)
{
    const char *name = t->sval;
    if (name[0] >= '0' && name[0] <= '9') {
        long n = strtol(name, NULL, 10);
        if (n == 0) emit(c, AC_ELEMS, 0, 0, 0);
        else emit(c, AC_ELEM, (int32_t)(n - 1), 0, 0);
        return;
    }
    int slot = local_slot(c, name);
    if (slot >= 0) emit(c, AC_LOCAL, slot, 0, 0);
    else if (c->part) emit(c, AC_CAPOF, label_of(c->g, name), CC_SLOT_PART, 0);
    else emit(c, AC_CAP, label_of(c->g, name), 0, 0);
}

/* map(l, (x) => e), foldl(init, l, (acc, x) => e), foldr(...). */
static void compile_iteration(compiler *c, const ast_term *t, int each)
{
    const ast_term *lambda = t->kids[t->nkids - 1];
    /* acc and x are adjacent, taken before the arguments take theirs: NEXT finds acc at x - 1 */
    int acc = each == AC_EACH_MAP ? -1 : new_slot(c), x = new_slot(c);
    if (each != AC_EACH_MAP) {
        compile_term(c, t->kids[0]);             /* init */
        emit(c, AC_STORE, acc, 0, 0);
    }
    compile_term(c, t->kids[each == AC_EACH_MAP ? 0 : 1]);
    emit(c, AC_EACH, 0, each, 0);
    uint32_t loop = emit(c, AC_NEXT, x, 0, 0);
    int saved = c->nnames;
    if (lambda->kind == TERM_LAMBDA) {
        if (each == AC_EACH_MAP) {
            if (lambda->nnames > 0) bind(c, lambda->names[0], x);
        } else {
            if (lambda->nnames > 0) bind(c, lambda->names[0], acc);
            if (lambda->nnames > 1) bind(c, lambda->names[1], x);
        }
        compile_term(c, lambda->kids[lambda->nkids - 1]);
    } else {
        compile_term(c, lambda);
    }
    c->nnames = saved;
    if (each == AC_EACH_MAP) {
        emit(c, AC_MAPPUT, (int32_t)loop, 0, 0);
    } else {
        emit(c, AC_STORE, acc, 0, 0);
        emit(c, AC_JMP, (int32_t)loop, 0, 0);
    }
    c->g->acode[loop].b = (int32_t)here(c);
}

static void compile_call(compiler *c, const ast_term *t)
{
    const char *fn = t->sval;
    if (!strcmp(fn, "map")) { compile_iteration(c, t, AC_EACH_MAP); return; }
    if (!strcmp(fn, "foldl")) { compile_iteration(c, t, AC_EACH_FOLDL); return; }
    if (!strcmp(fn, "foldr")) { compile_iteration(c, t, AC_EACH_FOLDR); return; }
    for (int i = 0; i < t->nkids; i++) compile_term(c, t->kids[i]);
    if (!strcmp(fn, "len")) emit(c, AC_LEN, 0, 0, 0);
    else if (!strcmp(fn, "text")) emit(c, AC_TEXT, 0, 0, 0);
    else if (!strcmp(fn, "list")) emit(c, AC_LIST, t->nkids, 0, 0);
    else emit(c, AC_CONCAT, t->nkids, 0, 0);
}

static void compile_binary(compiler *c, const ast_term *t)
{
    static const struct { const char *text; int op; } ops[] = {
        { "+", AC_ADD }, { "-", AC_SUB }, { "*", AC_MUL }, { "/", AC_DIV }, { "%", AC_MOD },
        { "<", AC_LT }, { "<=", AC_LE }, { ">", AC_GT }, { ">=", AC_GE }, { "==", AC_EQ }, { "!=", AC_NE },
    };
    compile_term(c, t->kids[0]);
    if (!strcmp(t->sval, "&&") || !strcmp(t->sval, "||")) {
        int is_or = t->sval[0] == '|';
        uint32_t test = emit(c, is_or ? AC_OR : AC_AND, 0, 0, 0);
        compile_term(c, t->kids[1]);
        emit(c, AC_BOOL, is_or, 0, 0);
        c->g->acode[test].a = (int32_t)here(c);
        return;
    }
    compile_term(c, t->kids[1]);
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].text, t->sval)) { emit(c, ops[i].op, 0, 0, 0); return; }
}

static void compile_term(compiler *c, const ast_term *t)
{
    pego_grammar *g = c->g;
    switch (t->kind) {
    case TERM_INT:
        emit(c, AC_INT, 0, 0, t->ival);
        return;
    case TERM_STRING:
        emit(c, AC_STR, add_text(c, t->sval, t->slen), (int32_t)t->slen, 0);
        return;
    case TERM_CAPREF:
        compile_ref(c, t);
        return;
    case TERM_VAR:
        if (!strcmp(t->sval, "true")) emit(c, AC_TRUE, 0, 0, 0);
        else if (!strcmp(t->sval, "false")) emit(c, AC_FALSE, 0, 0, 0);
        else if (!strcmp(t->sval, "nil")) emit(c, AC_NIL, 0, 0, 0);
        else emit(c, AC_VAR, add_text(c, t->sval, t->slen), (int32_t)t->slen, cc_var_id(g, c->tm, t->sval));
        return;
    case TERM_NEW: {
        ast_type name = { .kind = TYPE_NAME, .name = t->sval };
        int type = resolve(c->tm, c->ast, &name);
        if (type >= 0 && g->types[type].terminal) type = -1;
        int32_t text = add_text(c, t->sval, strlen(t->sval));
        for (int i = 0; i < t->nkids; i++) compile_term(c, t->kids[i]);
        g->alabels = grow(g->alabels, &c->tm->cap_alabels, (uint64_t)g->nalabels + (uint64_t)t->nkids + 1, sizeof *g->alabels);
        uint32_t first = g->nalabels;
        for (int i = 0; i < t->nkids; i++) g->alabels[g->nalabels++] = label_of(g, t->names[i]);
        emit(c, AC_NEW, type, t->nkids, (int64_t)first | (int64_t)text << 32);
        return;
    }
    case TERM_CALL:
        compile_call(c, t);
        return;
    case TERM_LAMBDA:              /* only as an argument of map, foldl, foldr (checked) */
        emit(c, AC_NIL, 0, 0, 0);
        return;
    case TERM_UNARY:
        compile_term(c, t->kids[0]);
        emit(c, t->sval[0] == '-' ? AC_NEG : AC_NOT, 0, 0, 0);
        return;
    case TERM_BINARY:
        compile_binary(c, t);
        return;
    case TERM_MEMBER:
        compile_term(c, t->kids[0]);
        if (!strcmp(t->sval, "startPos")) emit(c, AC_STARTPOS, 0, 0, 0);
        else if (!strcmp(t->sval, "endPos")) emit(c, AC_ENDPOS, 0, 0, 0);
        else if (!strcmp(t->sval, "children")) emit(c, AC_CHILDREN, 0, 0, 0);
        else emit(c, AC_FIELD, label_of(g, t->sval), add_text(c, t->sval, t->slen), (int64_t)t->slen);
        return;
    }
}

static int add_action(pego_grammar *g, cc_typemap *tm, cc_action a)
{
    g->actions = grow(g->actions, &tm->cap_actions, (uint64_t)g->nactions + 1, sizeof *g->actions);
    g->actions[g->nactions] = a;
    return g->nactions++;
}

int cc_predicate_compile(pego_grammar *g, const ast_grammar *ast, cc_typemap *tm, int rule, const ast_expr *pred)
{
    compiler c = { .g = g, .ast = ast, .tm = tm };
    uint32_t code = here(&c);
    compile_term(&c, pred->term);
    emit(&c, AC_TEST, 0, 0, 0);
    int define = pred->name ? cc_var_id(g, tm, pred->name) : -1;
    return add_action(g, tm, (cc_action){ code, rule, CC_ELEMS_NONE, c.nslots, 1, define });
}

int cc_action_compile(pego_grammar *g, const ast_grammar *ast, cc_typemap *tm, int rule,
                      const ast_expr *body, const ast_term *term, int pratt_operator)
{
    compiler c = { .g = g, .ast = ast, .tm = tm, .part = pratt_operator };
    if (pratt_operator) {
        static const char *const names[] = { [CC_SLOT_LHS] = "lhs", [CC_SLOT_RHS] = "rhs", [CC_SLOT_OP] = "op" };
        for (int i = 0; i < CC_PRATT_SLOTS; i++) {
            int slot = new_slot(&c);
            if (i < CC_SLOT_PART) bind(&c, names[i], slot);
        }
        body = NULL;
    }
    uint32_t code = here(&c);
    compile_term(&c, term);
    emit(&c, AC_END, 0, 0, 0);
    int elems = !body ? CC_ELEMS_NONE : body->kind == AST_SEQ ? CC_ELEMS_SEQ : CC_ELEMS_ONE;
    return add_action(g, tm, (cc_action){ code, rule, elems, c.nslots, 0, -1 });
}
