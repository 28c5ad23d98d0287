/* The allocation entry (alloc.h), and in test builds the countdown that makes
 * chosen allocations fail. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#ifdef PEGO_FAULT_INJECTION
static uint64_t fault_at;        /* the allocation that fails, counted from 1; 0: none */
static int      fault_every;     /* the ones after it fail too */
static uint64_t fault_count, fault_failures;

void rt_alloc_fault(uint64_t n, int every)
{
    fault_at = n;
    fault_every = every;
    fault_count = fault_failures = 0;
}

uint64_t rt_alloc_fault_count(void) { return fault_count; }
uint64_t rt_alloc_fault_failures(void) { return fault_failures; }

/* Counts an allocation and says whether the countdown makes it fail. */
static int fault_now(void)
{
    fault_count++;
    if (!fault_at || fault_count < fault_at || (fault_count > fault_at && !fault_every)) return 0;
    fault_failures++;
    return 1;
}
#endif

void *rt_alloc(void *p, size_t n)
{
    if (!n) {
        free(p);
        return NULL;
    }
#ifdef PEGO_FAULT_INJECTION
    if (fault_now()) return NULL;
#endif
    return realloc(p, n);
}

void *rt_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    void *p = rt_malloc(n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

static char *copy(const char *s, size_t len)
{
    char *p = rt_malloc(len + 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = 0;
    return p;
}

char *rt_strdup(const char *s) { return copy(s, strlen(s)); }
char *rt_strndup(const char *s, size_t n) { return copy(s, strnlen(s, n)); }
