/* An index of a table's entries by a hash of their keys, for interning
 * (compiler/intern.c): open addressing over entry numbers, at most half full,
 * so that finding a key takes constant time whatever the size of the table.
 * The table and its keys are the caller's: the index holds entry numbers and
 * their hashes only, and asks the caller whether an entry has a given key.
 * Its blocks are blocks of the front end (ast.h). */
#ifndef PEGO_CC_INTERN_H
#define PEGO_CC_INTERN_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    struct cc_index_slot { uint32_t entry, hash; } *slots;   /* entry + 1 (0: empty) and its hash */
    uint32_t mask, n;           /* capacity - 1, entries */
} cc_index;

/* Whether entry holds key: the caller's comparison. */
typedef int (*cc_same_fn)(const void *ctx, uint32_t entry, const void *key);

uint32_t cc_hash(const void *p, size_t n);
/* The entry whose key is key, or -1. An index of all zeros is empty. */
int  cc_index_find(const cc_index *x, uint32_t hash, cc_same_fn same, const void *ctx, const void *key);
/* Adds entry, whose key has that hash and is not in the index yet. */
void cc_index_add(cc_index *x, uint32_t hash, uint32_t entry);
void cc_index_free(cc_index *x);    /* and empties it */

#endif
