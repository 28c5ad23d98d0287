/* Positions of the input: byte offsets to the parse's unit (code points, where an
 * invalid byte counts as one, or bytes) and to lines and columns (a line starts
 * after each LF only; docs/language.md 1.10). Tables are built on first use. */
#include "parser.h"
#include "unicode.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* The bytes among the eight at s that are 0xC0 or above, the only bytes that
 * may lead a sequence of several: bit 7 of their byte of the result. */
static uint64_t lead_bytes(const unsigned char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);     /* the first byte lowest, as the loop below reads them */
#endif
    return w & (w << 1) & 0x8080808080808080ull;
}

/* Decodes the characters of s (len bytes) from at, a character's start, while
 * they start before until, adding them to *chars: every byte is a character
 * but those that continue a valid sequence, and only a byte from 0xC0 on
 * begins one, so the leading bytes are found eight bytes a step and only
 * their sequences are decoded. Returns where the last character ends (until
 * or a little after), or the start of a character that would end after limit,
 * which is not counted. */
static uint32_t decode_run(const unsigned char *s, uint32_t len, uint32_t at, uint32_t until,
                           uint32_t limit, uint64_t *chars)
{
    uint32_t from = at, end = until;
    uint64_t joined = 0;                      /* bytes that continue a sequence */
    for (; at < until; at += 8) {
        uint64_t leads = 0;
        uint32_t n = until - at < 8 ? until - at : 8;
        if (len - at >= 8)
            leads = lead_bytes(s + at) & (n == 8 ? ~0ull : (1ull << (8 * n)) - 1);
        else
            for (uint32_t i = 0; i < n; i++)
                if (s[at + i] >= 0xC0) leads |= 0x80ull << (8 * i);
        for (; leads; leads &= leads - 1) {
            uint32_t lead = at + ((uint32_t)__builtin_ctzll(leads) >> 3);
            uint32_t width = (uint32_t)rt_unicode_width(s + lead, len - lead);
            if (lead + width > limit) {              /* limit cuts this character */
                *chars += lead - from - joined;
                return lead;
            }
            joined += width - 1;
            if (lead + width > end) end = lead + width;
        }
    }
    *chars += end - from - joined;
    return end;
}

#ifdef __SSE2__
/* The bytes of x that may break the rules of valid UTF-8 by their value, one
 * bit each: bytes that lead nothing valid (0xC0, 0xC1, from 0xF5), and the
 * leading bytes whose second byte has a narrower range (0xE0, 0xED, 0xF0,
 * 0xF4: overlong, surrogate, above U+10FFFF). */
static inline unsigned utf8_special(__m128i x)
{
    __m128i c0 = _mm_cmpeq_epi8(_mm_and_si128(x, _mm_set1_epi8((char)0xFE)), _mm_set1_epi8((char)0xC0));
    __m128i f5 = _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8((char)0xF5)), x);
    __m128i e0 = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8((char)0xE0)), _mm_cmpeq_epi8(x, _mm_set1_epi8((char)0xED)));
    __m128i f0 = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8((char)0xF0)), _mm_cmpeq_epi8(x, _mm_set1_epi8((char)0xF4)));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(c0, f5), _mm_or_si128(e0, f0)));
}
#endif

/* rt_input_unit(in, byte) - rt_input_unit(in, from) for from a character's
 * start and byte <= len, counted from from without the tables (a syntax
 * error's column needs only its line's, and a stream's released input is
 * counted once). Sixteen bytes that are valid UTF-8 hold as many characters
 * as bytes that do not continue a sequence: where SSE2 is there, those are
 * counted sixteen a step, and the rest is decoded (decode_run). */
static uint64_t units_between(rt_input *in, uint32_t from, uint32_t byte)
{
    if (in->unit == PEGO_UNIT_BYTES || rt_input_ascii(in)) return byte - from;
    if (in->unit_base) return rt_input_unit_at(in, byte) - rt_input_unit_at(in, from);
    const unsigned char *s = (const unsigned char *)in->input;
    uint64_t chars = 0;
    uint32_t at = from;
#ifdef __SSE2__
    /* Bits of the sixteen bytes at at: from 0x80 (m7), with bit 6 set
     * (m6), bit 5 (m5), bit 4 (m4); a byte continues a sequence if it is
     * 10xxxxxx, and must if one of the three bytes before it leads a sequence
     * that long (carried from the bytes before as the bits past 16). */
    uint32_t carry = 0;
    __m128i conts = _mm_setzero_si128();     /* the continuing bytes counted, in two sums */
    int counted = 0;                         /* the sixteen bytes before at were counted so */
    for (;;) {
        uint32_t next = byte - at >= 16 ? at + 16 : byte;
        if (next - at == 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(s + at));
            unsigned m7 = (unsigned)_mm_movemask_epi8(x), m6 = (unsigned)_mm_movemask_epi8(_mm_slli_epi16(x, 1));
            unsigned m5 = (unsigned)_mm_movemask_epi8(_mm_slli_epi16(x, 2)), m4 = (unsigned)_mm_movemask_epi8(_mm_slli_epi16(x, 3));
            unsigned lead = m7 & m6, cont = m7 & ~m6;
            uint32_t want = (lead << 1 | (lead & m5) << 2 | (lead & m5 & m4) << 3) | carry;
            if (!(((want & 0xFFFF) ^ cont) | utf8_special(x))) {
                __m128i c = _mm_cmpeq_epi8(_mm_and_si128(x, _mm_set1_epi8((char)0xC0)), _mm_set1_epi8((char)0x80));
                conts = _mm_add_epi64(conts, _mm_sad_epu8(_mm_and_si128(c, _mm_set1_epi8(1)), _mm_setzero_si128()));
                chars += 16;
                carry = want >> 16;
                at = next;
                counted = 1;
                continue;
            }
        }
        /* decoded, from the start of the character at continues if the
         * bytes counted so began it (its first byte was counted: one
         * character, taken back) */
        uint32_t start = at;
        for (uint32_t k = 1; counted && k <= 3; k++) {
            unsigned c = s[at - k];
            if (c < 0x80) break;
            if (c >= 0xC0) {
                if (at - k + 2 + (c >= 0xE0) + (c >= 0xF0) > at) start = at - k;
                break;
            }
        }
        if (start < at) chars--;
        at = decode_run(s, in->len, start, next, byte, &chars);
        if (at < next || at >= byte) break;
        carry = 0;                               /* at begins a character */
        counted = 0;
    }
    uint64_t sums[2];
    _mm_storeu_si128((__m128i *)sums, conts);
    return chars - sums[0] - sums[1];
#else
    decode_run(s, in->len, at, byte, byte, &chars);
    return chars;
#endif
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
