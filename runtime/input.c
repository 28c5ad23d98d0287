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
    rt_free(in->cp_index);
    rt_free(in->line_starts);
    in->cp_index = NULL;
    in->line_starts = NULL;
    in->nlines = 0;
    in->input = s;
    in->len = len;
    in->unit = unit;
    /* eight bytes a step: one pass of a few instructions per eight bytes */
    uint64_t high = 0;
    uint32_t i = 0;
    for (; len - i >= 8 && !high; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        high = w & 0x8080808080808080ull;
    }
    for (; i < len && !high; i++) high = (unsigned char)s[i] & 0x80u;
    in->ascii = !high;
}

void rt_input_free(rt_input *in)
{
    rt_free(in->cp_index);
    rt_free(in->line_starts);
    memset(in, 0, sizeof *in);
}

/* Code points before byte, counted without the table (when there is no memory
 * for it). */
static uint64_t count_units(const rt_input *in, uint32_t byte)
{
    const unsigned char *s = (const unsigned char *)in->input;
    uint64_t k = 0;
    for (uint32_t b = 0; b < byte; k++) {
        uint32_t cp;
        b += (uint32_t)rt_unicode_decode(s + b, in->len - b, &cp);
    }
    return k;
}

uint64_t rt_input_unit(rt_input *in, uint32_t byte)
{
    if (in->unit == PEGO_UNIT_BYTES || in->ascii) return byte;
    if (!in->cp_index) {
        uint32_t *idx = rt_malloc(((size_t)in->len + 1) * sizeof *idx);
        if (!idx) return count_units(in, byte);
        const unsigned char *s = (const unsigned char *)in->input;
        const uint32_t len = in->len;
        uint32_t k = 0, b = 0;
        while (b < len) {
            while (b < len && s[b] < 0x80) idx[b++] = k++;   /* one byte, one character */
            if (b == len) break;
            uint32_t cp;
            int w = rt_unicode_decode(s + b, len - b, &cp);
            for (int i = 0; i < w; i++) idx[b + (uint32_t)i] = k;
            b += (uint32_t)w;
            k++;
        }
        idx[len] = k;
        in->cp_index = idx;
    }
    return in->cp_index[byte];
}

/* The same without the table (when there is no memory for it). */
static void count_line_col(rt_input *in, uint32_t byte, int *line, int *col)
{
    uint32_t start = 0;
    *line = 1;
    for (uint32_t i = 0; i < byte; i++)
        if (in->input[i] == '\n') { ++*line; start = i + 1; }
    *col = (int)(rt_input_unit(in, byte) - rt_input_unit(in, start)) + 1;
}

void rt_input_line_col(rt_input *in, uint32_t byte, int *line, int *col)
{
    if (!in->line_starts) {
        uint32_t n = 1;
        for (uint32_t i = 0; i < in->len; i++) n += in->input[i] == '\n';
        in->line_starts = rt_malloc((size_t)n * sizeof(uint32_t));
        if (!in->line_starts) { count_line_col(in, byte, line, col); return; }
        in->line_starts[0] = 0;
        in->nlines = 1;
        for (uint32_t i = 0; i < in->len; i++)
            if (in->input[i] == '\n') in->line_starts[in->nlines++] = i + 1;
    }
    uint32_t lo = 0, hi = in->nlines;          /* last line start <= byte */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (in->line_starts[mid] <= byte) lo = mid; else hi = mid;
    }
    *line = (int)lo + 1;
    *col = (int)(rt_input_unit(in, byte) - rt_input_unit(in, in->line_starts[lo])) + 1;
}
