/* The index of a table by the hash of its keys (compiler/intern.h). */
#include "intern.h"
#include "ast.h"

#include <string.h>

/* Eight bytes at a time, each word mixed in with a multiplication. */
uint32_t cc_hash(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h ^ (h >> 32));
}

int cc_index_find(const cc_index *x, uint32_t hash, cc_same_fn same, const void *ctx, const void *key)
{
    if (!x->slots) return -1;
    for (uint32_t i = hash & x->mask; x->slots[i].entry; i = (i + 1) & x->mask)
        if (x->slots[i].hash == hash && same(ctx, x->slots[i].entry - 1, key)) return (int)(x->slots[i].entry - 1);
    return -1;
}

static void put(cc_index *x, struct cc_index_slot slot)
{
    uint32_t i = slot.hash & x->mask;
    while (x->slots[i].entry) i = (i + 1) & x->mask;
    x->slots[i] = slot;
}

void cc_index_add(cc_index *x, uint32_t hash, uint32_t entry)
{
    if (!x->slots || 2 * ((size_t)x->n + 1) > (size_t)x->mask + 1) {
        cc_index old = *x;
        size_t cap = old.slots ? 2 * ((size_t)old.mask + 1) : 16;
        x->slots = cc_xcalloc(cap, sizeof *x->slots);
        x->mask = (uint32_t)(cap - 1);
        for (size_t i = 0; old.slots && i <= old.mask; i++)
            if (old.slots[i].entry) put(x, old.slots[i]);
        cc_free(old.slots);
    }
    put(x, (struct cc_index_slot){ entry + 1, hash });
    x->n++;
}

void cc_index_free(cc_index *x)
{
    cc_free(x->slots);
    memset(x, 0, sizeof *x);
}
