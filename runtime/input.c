/* Positions of the input: byte offsets to the parse's unit (code points, where an
 * invalid byte counts as one, or bytes) and to lines and columns (a line starts
 * after each LF only; docs/language.md 1.10). Tables are built on first use. */
#include "parser.h"
#include "unicode.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

void rt_input_reset(rt_input *in, const char *s, uint32_t len, pego_unit unit)
{
    in->unit = unit;
    in->base = in->base_line = 0;
    in->base_units = in->line_units = 0;
    rt_input_window(in, s, len);
}

void rt_input_window(rt_input *in, const char *s, uint32_t len)
{
    rt_free(in->unit_base);
    rt_free(in->unit_off);
    rt_free(in->line_starts);
    in->unit_base = NULL;
    in->unit_off = NULL;
    in->line_starts = NULL;
    in->nlines = 0;
    in->input = s;
    in->len = len;
    in->ascii = -1;     /* a parse that needs no units never looks */
}

int rt_input_ascii(rt_input *in)
{
    if (in->ascii >= 0) return in->ascii;
    /* eight bytes a step: one pass of a few instructions per eight bytes */
    const char *s = in->input;
    uint64_t high = 0;
    uint32_t i = in->base, len = in->len;
    for (; len - i >= 8 && !high; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        high = w & 0x8080808080808080ull;
    }
    for (; i < len && !high; i++) high = (unsigned char)s[i] & 0x80u;
    in->ascii = !high;
    return in->ascii;
}

void rt_input_free(rt_input *in)
{
    rt_free(in->unit_base);
    rt_free(in->unit_off);
    rt_free(in->line_starts);
    memset(in, 0, sizeof *in);
}

/* Code points before byte, counted without the table (when there is no memory
 * for it). */
static uint64_t count_units(const rt_input *in, uint32_t byte)
{
    const unsigned char *s = (const unsigned char *)in->input;
    uint64_t k = in->base_units;
    for (uint32_t b = in->base; b < byte; k++) {
        uint32_t cp;
        b += (uint32_t)rt_unicode_decode(s + b, in->len - b, &cp);
    }
    return k;
}

int rt_input_prepare_units(rt_input *in)
{
    if (in->unit_base) return 0;
    const uint32_t len = in->len - in->base;   /* the tables index the input held */
    uint32_t *base = rt_malloc(((size_t)(len >> 8) + 1) * sizeof *base);
    uint8_t *off = rt_malloc((size_t)len + 1);
    if (!base || !off) {
        rt_free(base);
        rt_free(off);
        return -1;
    }
    static uint8_t identity[256];
    if (!identity[255])
        for (int i = 0; i < 256; i++) identity[i] = (uint8_t)i;
    const unsigned char *s = (const unsigned char *)in->input + in->base;
    uint32_t b = 0, k = 0;          /* the next byte and its character's index */
    while (b < len) {
        if ((b & 255) == 0) base[b >> 8] = k;
        uint32_t end = (b | 255) + 1 < len ? (b | 255) + 1 : len, r = b;
        /* a run of ASCII in the block: consecutive offsets */
        for (uint64_t w; end - r >= 8 && (memcpy(&w, s + r, 8), !(w & 0x8080808080808080ull));) r += 8;
        while (r < end && s[r] < 0x80) r++;
        if (r > b) {
            memcpy(off + b, identity + (k - base[b >> 8]), r - b);
            k += r - b;
            b = r;
            continue;
        }
        uint32_t width, cp;
        width = (uint32_t)rt_unicode_decode(s + b, len - b, &cp);
        for (uint32_t i = 0; i < width; i++, b++) {
            if ((b & 255) == 0) base[b >> 8] = k;
            off[b] = (uint8_t)(k - base[b >> 8]);
        }
        k++;
    }
    if ((len & 255) == 0) base[len >> 8] = k;
    off[len] = (uint8_t)(k - base[len >> 8]);
    in->unit_base = base;
    in->unit_off = off;
    return 0;
}

uint64_t rt_input_unit(rt_input *in, uint32_t byte)
{
    if (in->unit == PEGO_UNIT_BYTES || byte == 0) return byte;
    if (byte < in->base) byte = in->base;        /* released input: where it was released */
    if (rt_input_ascii(in)) return in->base_units + (byte - in->base);
    if (byte > in->len) return rt_input_unit(in, in->len) + (byte - in->len);   /* a test that found the end */
    if (!in->unit_base && rt_input_prepare_units(in) < 0) return count_units(in, byte);
    return rt_input_unit_at(in, byte);
}

/* The same without the table (when there is no memory for it). */
static void count_line_col(rt_input *in, uint32_t byte, int *line, int *col)
{
    uint32_t start = in->base;
    *line = (int)in->base_line + 1;
    for (uint32_t i = in->base; i < byte; i++)
        if (in->input[i] == '\n') { ++*line; start = i + 1; }
    *col = (int)(rt_input_unit(in, byte) - (start == in->base ? in->line_units : rt_input_unit(in, start))) + 1;
}

/* How many of the eight bytes at s are ASCII before the first that is not. */
static uint32_t ascii_prefix(const unsigned char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    uint64_t high = w & 0x8080808080808080ull;
    if (!high) return 8;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint32_t)__builtin_clzll(high) >> 3;
#else
    return (uint32_t)__builtin_ctzll(high) >> 3;
#endif
}

/* rt_input_unit(in, byte) - rt_input_unit(in, from) for from a character's
 * start and byte <= len, counted from from without the tables (a syntax
 * error's column needs only its line's). */
static uint64_t units_between(rt_input *in, uint32_t from, uint32_t byte)
{
    if (in->unit == PEGO_UNIT_BYTES || rt_input_ascii(in)) return byte - from;
    if (in->unit_base) return rt_input_unit_at(in, byte) - rt_input_unit_at(in, from);
    const unsigned char *s = (const unsigned char *)in->input;
    uint64_t k = 0;
    while (from < byte) {
        if (byte - from >= 8) {   /* the ASCII bytes among the next eight, up to the first that is not */
            uint32_t ascii = ascii_prefix(s + from);
            from += ascii;
            k += ascii;
            if (ascii == 8) continue;
        }
        uint32_t width = (uint32_t)rt_unicode_width(s + from, in->len - from);
        if (from + width > byte) break;          /* byte continues this character */
        from += width;
        k++;
    }
    return k;
}

void rt_input_line_col(rt_input *in, uint32_t byte, int *line, int *col)
{
    if (byte == 0) {                           /* known, even when released (the start rule's call) */
        *line = *col = 1;
        return;
    }
    if (byte < in->base) byte = in->base;
    if (!in->line_starts) {
        const char *s = in->input, *end = s + in->len, *c;
        uint32_t n = 1;
        for (c = s + in->base; (c = memchr(c, '\n', (size_t)(end - c))); c++) n++;
        in->line_starts = rt_malloc((size_t)n * sizeof(uint32_t));
        if (!in->line_starts) { count_line_col(in, byte, line, col); return; }
        in->line_starts[0] = in->base;
        in->nlines = 1;
        for (c = s + in->base; (c = memchr(c, '\n', (size_t)(end - c))); c++)
            in->line_starts[in->nlines++] = (uint32_t)(c - s) + 1;
    }
    uint32_t lo = 0, hi = in->nlines;          /* last line start <= byte */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (in->line_starts[mid] <= byte) lo = mid; else hi = mid;
    }
    *line = (int)(in->base_line + lo) + 1;
    if (lo == 0 && in->base)                   /* a line that began before the input held */
        *col = (int)(rt_input_unit(in, byte) - in->line_units) + 1;
    else
        *col = (int)(byte <= in->len ? units_between(in, in->line_starts[lo], byte)
                                     : rt_input_unit(in, byte) - rt_input_unit(in, in->line_starts[lo])) + 1;
}

void rt_input_release(rt_input *in, uint32_t byte)
{
    const char *s = in->input, *c = s + in->base, *last = NULL;
    uint64_t units = in->base_units + units_between(in, in->base, byte);
    uint32_t lines = 0;
    for (; (c = memchr(c, '\n', (size_t)(s + byte - c))); c++) {
        last = c;
        lines++;
    }
    if (last) {                    /* the line of byte starts after the last line feed */
        in->base_line += lines;
        in->line_units = units - units_between(in, (uint32_t)(last - s) + 1, byte);
    }
    in->base_units = units;
    in->base = byte;
}
