/* Growable byte buffer (amortized doubling, sticky out-of-memory flag), and the
 * growth of the arrays the runtime keeps. */
#include "buf.h"
#include "alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_buf_init(rt_buf *b) { memset(b, 0, sizeof *b); }

void rt_buf_free(rt_buf *b) { rt_free(b->data); rt_buf_init(b); }

void rt_buf_reset(rt_buf *b)
{
    b->len = 0;
    b->oom = 0;
    if (b->data) b->data[0] = 0;
}

/* Makes room for n more bytes plus the terminating NUL. */
static int reserve(rt_buf *b, size_t n)
{
    if (b->oom) return 0;
    if (b->len + n + 1 <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = rt_realloc(b->data, cap);
    if (!p) { b->oom = 1; return 0; }
    b->data = p;
    b->cap = cap;
    return 1;
}

void rt_buf_add(rt_buf *b, const void *p, size_t n)
{
    if (!reserve(b, n)) return;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void rt_buf_addc(rt_buf *b, char c) { rt_buf_add(b, &c, 1); }

void rt_buf_adds(rt_buf *b, const char *s) { rt_buf_add(b, s, strlen(s)); }

void rt_buf_printf(rt_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) { rt_buf_add(b, small, (size_t)n); return; }
    if (!reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

int rt_buf_grow(void **arr, uint32_t *cap, uint64_t need, size_t sz)
{
    if (need <= *cap) return 0;
    uint64_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    if (c >= UINT32_MAX) return -1;
    void *n = rt_realloc(*arr, (size_t)c * sz);
    if (!n) return -1;
    *arr = n;
    *cap = (uint32_t)c;
    return 0;
}

char *rt_buf_take(rt_buf *b)
{
    char *s = b->data;
    if (!s) s = rt_calloc(1, 1);
    rt_buf_init(b);
    return s;
}
