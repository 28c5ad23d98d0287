/* Unicode and text escaping: UTF-8 decoding with the grammar language's rules for
 * invalid bytes, character properties the grammar reader needs, and the quoting
 * used by tree printing and error messages. */
#ifndef PEGO_RT_UNICODE_H
#define PEGO_RT_UNICODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define RT_REPLACEMENT 0xFFFDu

/* Decodes one code point at s (n > 0 bytes available). Returns the number of bytes
 * used (1-4). A byte that does not start a valid sequence (bad lead byte, truncated
 * or overlong sequence, surrogate, above U+10FFFF) decodes as U+FFFD with length 1,
 * exactly as Go's utf8.DecodeRune does. */
int rt_unicode_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* The number of bytes rt_unicode_decode(s, n, ...) uses, computed with
 * comparisons rather than branches where four bytes are there: for counting
 * characters fast (runtime/input.c), where text mixes ASCII and other
 * characters unpredictably. */
static inline int rt_unicode_width(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (n < 4) {
        uint32_t cp;
        return c < 0x80 ? 1 : rt_unicode_decode(s, n, &cp);
    }
    /* the lead byte's length (1 for ASCII and for bytes that lead nothing),
     * and the range of the second byte it allows (as rt_unicode_decode) */
    int len = 1 + (c >= 0xC2) + (c >= 0xE0) + (c >= 0xF0) - 3 * (c >= 0xF5);
    unsigned lo2 = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    unsigned hi2 = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    int ok = (unsigned)(s[1] - lo2) <= hi2 - lo2;
    ok &= len < 3 || (s[2] & 0xC0u) == 0x80u;
    ok &= len < 4 || (s[3] & 0xC0u) == 0x80u;
    return ok ? len : 1;
}

/* Encodes cp (a Unicode scalar value) into out; returns the length (1-4). */
int rt_unicode_encode(uint32_t cp, char out[4]);


bool rt_unicode_is_white_space(uint32_t cp);   /* the Unicode White_Space property (A.2) */
bool rt_unicode_is_letter(uint32_t cp);        /* identifier letters (A.3.1, practical approximation) */
bool rt_unicode_is_digit(uint32_t cp);         /* Unicode decimal digits (Nd) */
bool rt_unicode_is_upper(uint32_t cp);         /* Unicode uppercase letters (Lu), for type names */
bool rt_unicode_is_printable(uint32_t cp);     /* Go's strconv.IsPrint: L, M, N, P, S and U+0020 */

/* Appends s[0..n) double-quoted as Go's strconv.Quote does (1.13.2). In byte mode
 * (bytes != 0) an invalid UTF-8 byte is written \xHH; otherwise it is read as U+FFFD,
 * which is printable and written as itself. */
void rt_unicode_quote(rt_buf *b, const char *s, size_t n, int bytes);

/* The text between the quotes of rt_unicode_quote and rt_unicode_json_string.
 * Each code point is escaped on its own, so a long text may be written in
 * pieces cut between code points (rt_unicode_cut). */
void rt_unicode_quote_body(rt_buf *b, const char *s, size_t n, int bytes);
void rt_unicode_json_body(rt_buf *b, const char *s, size_t n);

/* Where text read from s can be cut near s + at (at >= 4, and s[at] is in the
 * text) so that no code point is split as rt_unicode_decode reads the text from
 * s: at, or up to three bytes before it. */
size_t rt_unicode_cut(const char *s, size_t at);

/* Appends s[0..n) as a JSON string literal with Go encoding/json escaping (1.13.3):
 * \" \\ \n \r \t \b \f, other controls \u00xx, < > & as \u003c \u003e \u0026,
 * U+2028/U+2029 escaped, invalid UTF-8 as \ufffd, lowercase hex. */
void rt_unicode_json_string(rt_buf *b, const char *s, size_t n);

/* Appends one end of a character-class range as error messages render it (1.12):
 * \- \( \) \? \^ \\ and \' escaped, \a \b \f \n \r \t \v for those controls, other
 * non-printable characters as \xHH (below U+0080), \uHHHH or \UHHHHHHHH, every other
 * character as itself. */
void rt_unicode_class_char(rt_buf *b, uint32_t cp);

/* Sorted, non-overlapping inclusive code point ranges, generated into unicode_tables.c
 * by tools/gen_unicode_tables.py; the predicates above search them. */
typedef struct rt_unicode_range {
    uint32_t lo, hi;
} rt_unicode_range;

extern const rt_unicode_range rt_unicode_print_ranges[];   /* categories L, M, N, P, S */
extern const size_t rt_unicode_print_ranges_len;
extern const rt_unicode_range rt_unicode_digit_ranges[];   /* category Nd */
extern const size_t rt_unicode_digit_ranges_len;
extern const rt_unicode_range rt_unicode_upper_ranges[];   /* category Lu */
extern const size_t rt_unicode_upper_ranges_len;

#endif
