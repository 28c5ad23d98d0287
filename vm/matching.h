/* The matching helpers that the dispatch loop (vm/loop.h) calls in its hot
 * cases: classes and literals on the input's bytes and characters. */
#ifndef PEGO_VM_MATCHING_H
#define PEGO_VM_MATCHING_H

#include "vm.h"
#include "../runtime/unicode.h"

/* Whether code point ch is in class c. */
static inline int class_has(const cc_class *c, uint32_t ch)
{
    if (ch < 128) return (c->ascii[ch >> 5] >> (ch & 31)) & 1;
    int in = 0;
    for (int i = 0; i < c->nranges; i++)
        if (ch >= c->ranges[i].lo && ch <= c->ranges[i].hi) { in = 1; break; }
    return in != c->negated;
}

/* Width of the character at pos if it is in class c, else 0. */
static inline uint32_t class_at(const cc_class *c, const unsigned char *s, uint32_t pos, uint32_t len)
{
    unsigned char b = s[pos];
    if (b < 0x80) return (c->ascii[b >> 5] >> (b & 31)) & 1;
    if (c->ascii_only) return 0;
    uint32_t ch;
    int w = rt_unicode_decode(s + pos, len - pos, &ch);
    return class_has(c, ch) ? (uint32_t)w : 0;
}

/* Compares a literal containing U+FFFD character by character: its U+FFFD matches
 * an encoded U+FFFD and an invalid byte alike. Returns the end or UINT32_MAX. */
static uint32_t literal_slow(const cc_literal *l, const unsigned char *s, uint32_t pos, uint32_t len)
{
    uint32_t i = 0;
    while (i < l->len) {
        uint32_t a, b;
        int wa = rt_unicode_decode((const unsigned char *)l->bytes + i, l->len - i, &a);
        if (pos >= len) return UINT32_MAX;
        int wb = rt_unicode_decode(s + pos, len - pos, &b);
        if (a != b) return UINT32_MAX;
        i += (uint32_t)wa;
        pos += (uint32_t)wb;
    }
    return pos;
}

/* How far literal_slow examined the input comparing literal l at pos: to the
 * end of the first character that differs, or past the end of the input when
 * it ran out (the bytes of the two can differ where they match: U+FFFD and an
 * invalid byte). */
static inline uint32_t literal_slow_examined(const cc_literal *l, const unsigned char *s, uint32_t pos, uint32_t len)
{
    uint32_t i = 0;
    while (i < l->len) {
        uint32_t a, b;
        int wa = rt_unicode_decode((const unsigned char *)l->bytes + i, l->len - i, &a);
        if (pos >= len) return len + 1;
        int wb = rt_unicode_decode(s + pos, len - pos, &b);
        if (a != b) return pos + (uint32_t)wb;
        i += (uint32_t)wa;
        pos += (uint32_t)wb;
    }
    return pos;
}

/* The next character is the first of literal l (both decoded, as literal_slow
 * compares them). */
static int literal_first_at(const cc_literal *l, const unsigned char *s, uint32_t pos, uint32_t len)
{
    uint32_t a, b;
    if (pos >= len) return 0;
    rt_unicode_decode((const unsigned char *)l->bytes, l->len, &a);
    rt_unicode_decode(s + pos, len - pos, &b);
    return a == b;
}

#endif
