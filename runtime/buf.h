/* A growable byte buffer used by the compiler, the printers and the command line. */
#ifndef PEGO_RT_BUF_H
#define PEGO_RT_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct rt_buf {
    char  *data;   /* always NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
    int    oom;    /* set once an allocation failed; later appends do nothing */
} rt_buf;

void rt_buf_init(rt_buf *b);
void rt_buf_free(rt_buf *b);
void rt_buf_reset(rt_buf *b);                       /* length 0, keeps memory, forgets an OOM */
void rt_buf_add(rt_buf *b, const void *p, size_t n);
void rt_buf_addc(rt_buf *b, char c);
void rt_buf_adds(rt_buf *b, const char *s);
void rt_buf_printf(rt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *rt_buf_take(rt_buf *b);                       /* hands the string to the caller, resets b */

/* Grows the array *arr of elements of size sz, doubling its capacity *cap, so
 * that it holds at least need; capacities stay below UINT32_MAX, so that indices
 * and index + 1 fit 32 bits. Returns 0, or -1 when out of memory or too large. */
int rt_buf_grow(void **arr, uint32_t *cap, uint64_t need, size_t sz);

#endif
