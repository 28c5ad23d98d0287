/* The one allocation entry of libpego: every block the compiler, the runtime,
 * the VM and the report writer allocate, resize or free goes through rt_alloc.
 * Test builds (-DPEGO_FAULT_INJECTION) add a countdown to it that makes a
 * chosen allocation fail, so that tests run every out-of-memory path. */
#ifndef PEGO_RT_ALLOC_H
#define PEGO_RT_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* Resizes block p (NULL: a new block) to n bytes and returns it, or NULL with
 * p left intact when out of memory; n = 0 frees p and returns NULL. */
void *rt_alloc(void *p, size_t n);

static inline void *rt_malloc(size_t n) { return rt_alloc(NULL, n ? n : 1); }
static inline void *rt_realloc(void *p, size_t n) { return rt_alloc(p, n ? n : 1); }
static inline void  rt_free(void *p) { if (p) rt_alloc(p, 0); }

void *rt_calloc(size_t n, size_t size);             /* zeroed; NULL when n * size overflows */
char *rt_strdup(const char *s);
char *rt_strndup(const char *s, size_t n);          /* at most n bytes of s, NUL-terminated */

#ifdef PEGO_FAULT_INJECTION
/* Test builds only. Makes the n-th allocation from now fail (1: the next one),
 * and with every set, each allocation after it too; n = 0 stops failing. The
 * counts start again at zero. Not thread-safe: for single-threaded tests. */
void     rt_alloc_fault(uint64_t n, int every);
uint64_t rt_alloc_fault_count(void);                /* allocations asked for since then */
uint64_t rt_alloc_fault_failures(void);             /* how many of them were made to fail */
#endif

#endif
