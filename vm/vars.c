/* Variables (docs/language.md 5.2, 5.3): lookups in the variable stack, and
 * the environments that key the memo entries of rules that read variables:
 * the values of a rule's variables at a call, interned per parse so that a
 * memo key holds one number. The stack itself is the parser's (vars, nvars);
 * control-stack entries note its height in parser.vmarks. */
#include "vm.h"
#include "../runtime/alloc.h"

#include <string.h>

const vm_var *vm_var_find(const pego_parser *p, uint32_t id)
{
    for (uint32_t i = p->nvars; i-- > 0;)
        if (p->vars[i].id == id) return &p->vars[i];
    return NULL;
}

int vm_var_define(pego_parser *p, uint32_t id, vm_aval value)
{
    if (p->nvars == p->capvars && rt_buf_grow((void **)&p->vars, &p->capvars, p->nvars + 1, sizeof *p->vars) < 0)
        return -1;
    p->vars[p->nvars++] = (vm_var){ id, value };
    return 0;
}

static uint64_t mix(uint64_t h, uint64_t x) { return (h ^ x) * 0x100000001B3ull; }

static uint64_t value_hash(const pego_parser *p, uint64_t h, const vm_aval *v)
{
    h = mix(h, v->kind);
    if (v->kind != V_STR) return mix(h, v->x);
    const unsigned char *s = (const unsigned char *)p->strings.data + v->x;
    for (uint32_t i = 0; i < v->len; i++) h = mix(h, s[i]);
    return mix(h, v->len);
}

static int same_value(const pego_parser *p, const vm_aval *a, const vm_aval *b)
{
    if (a->kind != b->kind) return 0;
    if (a->kind != V_STR) return a->x == b->x;
    return a->len == b->len && memcmp(p->strings.data + a->x, p->strings.data + b->x, a->len) == 0;
}

/* Environment id's n values, which begin at env_vals[env_first[id - 1]] and
 * end where the next environment's begin. */
static uint32_t env_count(const pego_parser *p, uint32_t id)
{
    return (id < p->nenvs ? p->env_first[id] : p->nenv_vals) - p->env_first[id - 1];
}

static int same_env(const pego_parser *p, uint32_t id, const vm_aval *vals, uint32_t n)
{
    if (env_count(p, id) != n) return 0;
    const vm_aval *w = p->env_vals + p->env_first[id - 1];
    for (uint32_t i = 0; i < n; i++)
        if (!same_value(p, &w[i], &vals[i])) return 0;
    return 1;
}

static uint64_t env_hash(const pego_parser *p, const vm_aval *vals, uint32_t n)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (uint32_t i = 0; i < n; i++) h = value_hash(p, h, &vals[i]);
    return h;
}

static int rehash(pego_parser *p, uint32_t nslots)
{
    uint32_t *slots = rt_calloc(nslots, sizeof *slots);
    if (!slots) return -1;
    for (uint32_t id = 1; id <= p->nenvs; id++) {
        uint32_t i = (uint32_t)env_hash(p, p->env_vals + p->env_first[id - 1], env_count(p, id)) & (nslots - 1);
        while (slots[i]) i = (i + 1) & (nslots - 1);
        slots[i] = id;
    }
    rt_free(p->env_slots);
    p->env_slots = slots;
    p->nenv_slots = nslots;
    return 0;
}

void vm_env_reset(pego_parser *p)
{
    if (p->nenvs) memset(p->env_slots, 0, p->nenv_slots * sizeof *p->env_slots);
    p->nenvs = 0;
    p->nenv_vals = 0;
}

uint32_t vm_env_key(pego_parser *p, const uint32_t *ids, uint32_t n)
{
    /* the values go on the end of env_vals: they stay there if they are new */
    if (rt_buf_grow((void **)&p->env_vals, &p->capenv_vals, (uint64_t)p->nenv_vals + n, sizeof *p->env_vals) < 0)
        return 0;
    vm_aval *vals = p->env_vals + p->nenv_vals;
    for (uint32_t i = 0; i < n; i++) {
        const vm_var *v = vm_var_find(p, ids[i]);
        vals[i] = v ? v->value : (vm_aval){ V_NIL, 0, 0 };    /* undefined: nil, which no variable holds */
    }
    uint64_t h = env_hash(p, vals, n);
    if (p->nenv_slots) {
        for (uint32_t i = (uint32_t)h & (p->nenv_slots - 1);; i = (i + 1) & (p->nenv_slots - 1)) {
            uint32_t id = p->env_slots[i];
            if (!id) break;
            if (same_env(p, id, vals, n)) return id;
        }
    }
    if ((uint64_t)(p->nenvs + 1) * 2 > p->nenv_slots && rehash(p, p->nenv_slots ? p->nenv_slots * 2 : 64) < 0) return 0;
    if (rt_buf_grow((void **)&p->env_first, &p->capenvs, (uint64_t)p->nenvs + 1, sizeof *p->env_first) < 0) return 0;
    p->env_first[p->nenvs++] = p->nenv_vals;
    p->nenv_vals += n;
    uint32_t i = (uint32_t)h & (p->nenv_slots - 1);
    while (p->env_slots[i]) i = (i + 1) & (p->nenv_slots - 1);
    p->env_slots[i] = p->nenvs;
    return p->nenvs;
}
