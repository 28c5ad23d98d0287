/* CUnit tests for runtime/unicode.c: UTF-8 decoding and encoding, the character
 * properties, Go strconv.Quote quoting, Go encoding/json strings and character-class
 * rendering. Every expected string is written out by hand from docs/language.md or from
 * the documented behaviour of Go's utf8, unicode, strconv and encoding/json. */
#include <CUnit/Basic.h>
#include <string.h>

#include "../runtime/unicode.h"

static rt_buf out;

static int suite_init(void) { rt_buf_init(&out); return 0; }
static int suite_clean(void) { rt_buf_free(&out); return 0; }

/* ---- decoding and encoding ---- */

/* Decodes the literal s (all its bytes, or its first n) and checks code point and width. */
#define DECODE_N(s, n, want_cp, want_w) do { \
        uint32_t cp_ = 0x12345678u; \
        int w_ = rt_unicode_decode((const unsigned char *)(s), (n), &cp_); \
        CU_ASSERT_EQUAL(cp_, (uint32_t)(want_cp)); \
        CU_ASSERT_EQUAL(w_, (want_w)); \
    } while (0)
#define DECODE(s, want_cp, want_w) DECODE_N(s, sizeof(s) - 1, want_cp, want_w)

static void test_decode_valid(void)
{
    DECODE("A", 0x41, 1);
    DECODE("\x00", 0x00, 1);
    DECODE("\x7f", 0x7F, 1);
    DECODE("\xC2\x80", 0x80, 2);
    DECODE("\xC3\xA9", 0xE9, 2);
    DECODE("\xDF\xBF", 0x7FF, 2);
    DECODE("\xE0\xA0\x80", 0x800, 3);
    DECODE("\xE2\x82\xAC", 0x20AC, 3);
    DECODE("\xED\x9F\xBF", 0xD7FF, 3);
    DECODE("\xEE\x80\x80", 0xE000, 3);
    DECODE("\xEF\xBF\xBD", 0xFFFD, 3);
    DECODE("\xEF\xBF\xBF", 0xFFFF, 3);
    DECODE("\xF0\x90\x80\x80", 0x10000, 4);
    DECODE("\xF0\x9F\x98\x80", 0x1F600, 4);
    DECODE("\xF4\x8F\xBF\xBF", 0x10FFFF, 4);
    /* only the first sequence is read */
    DECODE("\xC3\xA9xyz", 0xE9, 2);
    DECODE("ab", 0x61, 1);
}

/* rt_unicode_width is the width rt_unicode_decode returns: for every lead
 * and second byte, with third and fourth bytes at the edges of the
 * continuation range and past them, and with fewer bytes available. */
static void test_width(void)
{
    static const unsigned char edges[] = { 0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF };
    unsigned differ = 0, checked = 0;
    for (unsigned a = 0; a < 256; a++)
        for (unsigned b = 0; b < 256; b++)
            for (size_t i = 0; i < sizeof edges; i++)
                for (size_t j = 0; j < sizeof edges; j++)
                    for (size_t n = 1; n <= 5; n++) {
                        const unsigned char s[5] = { (unsigned char)a, (unsigned char)b, edges[i], edges[j], 0x80 };
                        uint32_t cp;
                        differ += rt_unicode_width(s, n) != rt_unicode_decode(s, n, &cp);
                        checked++;
                    }
    CU_ASSERT_EQUAL(differ, 0);
    CU_ASSERT_EQUAL(checked, 256u * 256u * 11u * 11u * 5u);
}

static void test_decode_invalid(void)
{
    /* continuation bytes cannot lead */
    DECODE("\x80", 0xFFFD, 1);
    DECODE("\xBF\x80", 0xFFFD, 1);
    /* overlong forms */
    DECODE("\xC0\xAF", 0xFFFD, 1);
    DECODE("\xAF", 0xFFFD, 1);             /* the byte after it is invalid on its own */
    DECODE("\xC1\xBF", 0xFFFD, 1);
    DECODE("\xE0\x80\xAF", 0xFFFD, 1);
    DECODE("\xE0\x9F\xBF", 0xFFFD, 1);
    DECODE("\xF0\x80\x80\xAF", 0xFFFD, 1);
    DECODE("\xF0\x8F\xBF\xBF", 0xFFFD, 1);
    /* surrogates */
    DECODE("\xED\xA0\x80", 0xFFFD, 1);
    DECODE("\xED\xBF\xBF", 0xFFFD, 1);
    /* above U+10FFFF */
    DECODE("\xF4\x90\x80\x80", 0xFFFD, 1);
    DECODE("\xF5\x80\x80\x80", 0xFFFD, 1);
    DECODE("\xF8\x88\x80\x80\x80", 0xFFFD, 1);
    DECODE("\xFF", 0xFFFD, 1);
    DECODE("\xFE", 0xFFFD, 1);
    /* truncated: the input ends early, or a continuation byte is missing */
    DECODE("\xC3", 0xFFFD, 1);
    DECODE("\xE2\x82", 0xFFFD, 1);
    DECODE("\xF0\x9F\x98", 0xFFFD, 1);
    DECODE_N("\xE2\x82\xAC", 2, 0xFFFD, 1);
    DECODE_N("\xF0\x9F\x98\x80", 3, 0xFFFD, 1);
    DECODE("\xC3\x28", 0xFFFD, 1);
    DECODE("\xE2\x28\xAC", 0xFFFD, 1);
    DECODE("\xE2\x82\x28", 0xFFFD, 1);
    DECODE("\xF0\x9F\x98\x28", 0xFFFD, 1);
}

/* Encodes cp, checks the bytes, and decodes them back. */
#define ENCODE(cp, bytes) do { \
        char e_[4]; \
        int n_ = rt_unicode_encode((cp), e_); \
        CU_ASSERT_EQUAL(n_, (int)sizeof(bytes) - 1); \
        CU_ASSERT(n_ == (int)sizeof(bytes) - 1 && memcmp(e_, (bytes), (size_t)n_) == 0); \
        DECODE_N(e_, (size_t)n_, (cp), n_); \
    } while (0)

static void test_encode_round_trip(void)
{
    ENCODE(0x00, "\x00");
    ENCODE(0x41, "A");
    ENCODE(0x7F, "\x7f");
    ENCODE(0x80, "\xC2\x80");
    ENCODE(0xE9, "\xC3\xA9");
    ENCODE(0x7FF, "\xDF\xBF");
    ENCODE(0x800, "\xE0\xA0\x80");
    ENCODE(0x20AC, "\xE2\x82\xAC");
    ENCODE(0xD7FF, "\xED\x9F\xBF");
    ENCODE(0xE000, "\xEE\x80\x80");
    ENCODE(0xFFFD, "\xEF\xBF\xBD");
    ENCODE(0xFFFF, "\xEF\xBF\xBF");
    ENCODE(0x10000, "\xF0\x90\x80\x80");
    ENCODE(0x1F600, "\xF0\x9F\x98\x80");
    ENCODE(0x10FFFF, "\xF4\x8F\xBF\xBF");

    /* not scalar values: written as U+FFFD, as Go's utf8.EncodeRune does */
    char e[4];
    CU_ASSERT_EQUAL(rt_unicode_encode(0xD800, e), 3);
    CU_ASSERT(memcmp(e, "\xEF\xBF\xBD", 3) == 0);
    CU_ASSERT_EQUAL(rt_unicode_encode(0xDFFF, e), 3);
    CU_ASSERT(memcmp(e, "\xEF\xBF\xBD", 3) == 0);
    CU_ASSERT_EQUAL(rt_unicode_encode(0x110000, e), 3);
    CU_ASSERT(memcmp(e, "\xEF\xBF\xBD", 3) == 0);
}

/* ---- properties ---- */

static void test_white_space(void)
{
    static const uint32_t yes[] = {
        0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680,
        0x2000, 0x2001, 0x2005, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
    };
    static const uint32_t no[] = {
        0x00, 0x08, 0x0E, 0x1F, 0x21, 'a', 0x7F, 0x84, 0x86, 0x9F, 0xA1,
        0x180E, 0x200B, 0x2027, 0x202A, 0x2060, 0xFEFF, 0x3001, 0x10FFFF,
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) CU_ASSERT_TRUE(rt_unicode_is_white_space(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) CU_ASSERT_FALSE(rt_unicode_is_white_space(no[i]));
}

static void test_letter(void)
{
    /* A.3.1 practical approximation */
    static const uint32_t yes[] = {
        'a', 'm', 'z', 'A', 'Q', 'Z', 0xAA, 0xB5, 0xBA, 0xC0, 0xD6, 0xD8, 0xF6, 0xF8, 0xFF,
        0x100, 0x3B1, 0x4E2D, 0x1F600, 0x10FFFF,
    };
    static const uint32_t no[] = {
        '_', '0', '9', '@', '[', '`', '{', ' ', 0x7F, 0x80, 0xA9, 0xAB, 0xB4, 0xB6, 0xB9,
        0xBB, 0xBF, 0xD7, 0xF7,
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) CU_ASSERT_TRUE(rt_unicode_is_letter(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) CU_ASSERT_FALSE(rt_unicode_is_letter(no[i]));
}

static void test_digit(void)
{
    static const uint32_t yes[] = {
        '0', '5', '9',
        0x0660, 0x0669,   /* ARABIC-INDIC DIGIT ZERO, NINE */
        0x0966,           /* DEVANAGARI DIGIT ZERO */
        0xFF10, 0xFF19,   /* FULLWIDTH DIGIT ZERO, NINE */
        0x1D7CE, 0x1D7FF, /* MATHEMATICAL BOLD DIGIT ZERO .. MONOSPACE DIGIT NINE */
        0x1E4F0,          /* NAG MUNDARI DIGIT ZERO (Unicode 15.0) */
        0x1FBF0,          /* SEGMENTED DIGIT ZERO */
    };
    static const uint32_t no[] = {
        '/', ':', 'a', 'O', 0xB2 /* SUPERSCRIPT TWO, No */, 0xBD /* VULGAR FRACTION ONE HALF */,
        0x2160 /* ROMAN NUMERAL ONE, Nl */, 0x0660 - 1, 0x066A, 0x1D7CD, 0x10FFFF,
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) CU_ASSERT_TRUE(rt_unicode_is_digit(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) CU_ASSERT_FALSE(rt_unicode_is_digit(no[i]));
}

static void test_upper(void)
{
    static const uint32_t yes[] = {
        'A', 'Z', 0xC0, 0xC9, 0xD6, 0xD8, 0xDE, 0x100, 0x391, 0x410,
        0x1D400 /* MATHEMATICAL BOLD CAPITAL A */, 0x1E900 /* ADLAM CAPITAL ALIF */,
    };
    static const uint32_t no[] = {
        'a', 'z', '@', '[', '_', '0', 0xD7 /* MULTIPLICATION SIGN */, 0xDF /* SHARP S */, 0xE9,
        0x101, 0x3B1, 0x1C5 /* Dz with caron, titlecase Lt */, 0x2160 /* ROMAN NUMERAL ONE */,
        0x4E2D, 0x10FFFF,
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) CU_ASSERT_TRUE(rt_unicode_is_upper(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) CU_ASSERT_FALSE(rt_unicode_is_upper(no[i]));
}

static void test_printable(void)
{
    static const uint32_t yes[] = {
        ' ', '!', '~', 'a', 0xA1, 0xAC, 0xAE, 0xE9, 0xFF, 0x300 /* combining grave, Mn */,
        0x20AC, 0x4E2D, 0xFFFD, 0x1F600,
        0x11F00, /* KAWI SIGN CANDRABINDU (Unicode 15.0) */
    };
    static const uint32_t no[] = {
        0x00, 0x1F, 0x7F, 0x80, 0x9F, 0xA0, 0xAD /* soft hyphen, Cf */,
        0x378 /* unassigned */, 0x2000, 0x200B, 0x2028, 0x2029, 0x3000, 0xFEFF,
        0xD800, 0xDFFF, 0xE000, 0xF8FF, 0xFFFE, 0xE0001, 0x10FFFF, 0x110000,
        0x2FFC, /* assigned only in Unicode 15.1 */
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) CU_ASSERT_TRUE(rt_unicode_is_printable(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) CU_ASSERT_FALSE(rt_unicode_is_printable(no[i]));
}

/* ---- strconv.Quote ---- */

#define QUOTE(s, bytes, want) do { \
        rt_buf_reset(&out); \
        rt_unicode_quote(&out, (s), sizeof(s) - 1, (bytes)); \
        CU_ASSERT_STRING_EQUAL(out.data, (want)); \
    } while (0)
/* Same result in both modes (valid UTF-8 input). */
#define QUOTE2(s, want) do { QUOTE(s, 0, want); QUOTE(s, 1, want); } while (0)

static void test_quote_ascii(void)
{
    QUOTE2("", "\"\"");
    QUOTE2("abc", "\"abc\"");
    QUOTE2("a b", "\"a b\"");
    QUOTE2("let = 2;", "\"let = 2;\"");
    QUOTE2("b=x\n", "\"b=x\\n\"");
    QUOTE2("\a\b\f\n\r\t\v", "\"\\a\\b\\f\\n\\r\\t\\v\"");
    QUOTE2("\x00", "\"\\x00\"");
    QUOTE2("\x01\x1b\x1f", "\"\\x01\\x1b\\x1f\"");
    QUOTE2("\x7f", "\"\\x7f\"");
    QUOTE2("\"", "\"\\\"\"");
    QUOTE2("\\", "\"\\\\\"");
    QUOTE2("say \"hi\"\\n", "\"say \\\"hi\\\"\\\\n\"");
    QUOTE2("'`{}<>&", "\"'`{}<>&\"");
}

static void test_quote_non_ascii(void)
{
    QUOTE2("\xC3\xA9", "\"\xC3\xA9\"");                             /* é */
    QUOTE2("caf\xC3\xA9!", "\"caf\xC3\xA9!\"");
    QUOTE2("\xF0\x9F\x98\x80", "\"\xF0\x9F\x98\x80\"");             /* U+1F600 */
    QUOTE2("\xE4\xB8\xAD", "\"\xE4\xB8\xAD\"");                     /* U+4E2D */
    QUOTE2("\xEF\xBF\xBD", "\"\xEF\xBF\xBD\"");                     /* an encoded U+FFFD */
    QUOTE2("\xC2\x80", "\"\\u0080\"");
    QUOTE2("\xC2\x85", "\"\\u0085\"");
    QUOTE2("\xC2\xA0", "\"\\u00a0\"");
    QUOTE2("\xC2\xAD", "\"\\u00ad\"");
    QUOTE2("\xE2\x80\x8B", "\"\\u200b\"");
    QUOTE2("\xE2\x80\xA8", "\"\\u2028\"");
    QUOTE2("\xE3\x80\x80", "\"\\u3000\"");
    QUOTE2("\xEF\xBB\xBF", "\"\\ufeff\"");
    QUOTE2("\xEE\x80\x80", "\"\\ue000\"");                          /* private use */
    QUOTE2("\xCD\xB8", "\"\\u0378\"");                              /* unassigned */
    QUOTE2("\xF3\xA0\x80\x81", "\"\\U000e0001\"");
    QUOTE2("\xF4\x8F\xBF\xBF", "\"\\U0010ffff\"");
    QUOTE2("a\xC2\xA0" "b\xF4\x8F\xBF\xBF" "c", "\"a\\u00a0b\\U0010ffffc\"");
}

static void test_quote_invalid_bytes(void)
{
    QUOTE("\xFF", 1, "\"\\xff\"");
    QUOTE("\xFF", 0, "\"\xEF\xBF\xBD\"");
    QUOTE("\x80", 1, "\"\\x80\"");
    QUOTE("\x80", 0, "\"\xEF\xBF\xBD\"");
    QUOTE("a\xC0\xAF" "b", 1, "\"a\\xc0\\xafb\"");
    QUOTE("a\xC0\xAF" "b", 0, "\"a\xEF\xBF\xBD\xEF\xBF\xBD" "b\"");
    QUOTE("\xED\xA0\x80", 1, "\"\\xed\\xa0\\x80\"");
    QUOTE("\xED\xA0\x80", 0, "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
    QUOTE("x\xE2\x82", 1, "\"x\\xe2\\x82\"");
    QUOTE("\xF4\x90\x80\x80", 1, "\"\\xf4\\x90\\x80\\x80\"");
    QUOTE("\xC3\xA9\xC3", 1, "\"\xC3\xA9\\xc3\"");
}

/* ---- encoding/json ---- */

#define JSON(s, want) do { \
        rt_buf_reset(&out); \
        rt_unicode_json_string(&out, (s), sizeof(s) - 1); \
        CU_ASSERT_STRING_EQUAL(out.data, (want)); \
    } while (0)

static void test_json_ascii(void)
{
    JSON("", "\"\"");
    JSON("hello", "\"hello\"");
    JSON("1:5: expected a name", "\"1:5: expected a name\"");
    JSON("\"", "\"\\\"\"");
    JSON("\\", "\"\\\\\"");
    JSON("a\nb", "\"a\\nb\"");
    JSON("\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\"");
    JSON("\x00", "\"\\u0000\"");
    JSON("\x01\x07\x0b\x1b\x1f", "\"\\u0001\\u0007\\u000b\\u001b\\u001f\"");
    JSON("<a&b>", "\"\\u003ca\\u0026b\\u003e\"");
    JSON("\x7f", "\"\x7f\"");
    JSON(" !'/`{}~", "\" !'/`{}~\"");
}

static void test_json_non_ascii(void)
{
    JSON("\xE2\x80\xA8", "\"\\u2028\"");
    JSON("\xE2\x80\xA9", "\"\\u2029\"");
    JSON("a\xE2\x80\xA8" "b\xE2\x80\xA9" "c", "\"a\\u2028b\\u2029c\"");
    JSON("\xE2\x80\xA7\xE2\x80\xAA", "\"\xE2\x80\xA7\xE2\x80\xAA\"");   /* neighbours copied */
    JSON("\xC3\xA9", "\"\xC3\xA9\"");
    JSON("\xF0\x9F\x98\x80", "\"\xF0\x9F\x98\x80\"");
    JSON("\xC2\x85\xC2\xA0\xEF\xBB\xBF", "\"\xC2\x85\xC2\xA0\xEF\xBB\xBF\"");
    JSON("\xEF\xBF\xBD", "\"\xEF\xBF\xBD\"");
    JSON("\xFF", "\"\\ufffd\"");
    JSON("a\xC0\xAF" "b", "\"a\\ufffd\\ufffdb\"");
    JSON("\xED\xA0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
    JSON("x\xE2\x82", "\"x\\ufffd\\ufffd\"");
}

/* ---- character classes (1.12) ---- */

#define CLASS_CHAR(cp, want) do { \
        rt_buf_reset(&out); \
        rt_unicode_class_char(&out, (cp)); \
        CU_ASSERT_STRING_EQUAL(out.data, (want)); \
    } while (0)

static void test_class_char(void)
{
    CLASS_CHAR('-', "\\-");
    CLASS_CHAR('(', "\\(");
    CLASS_CHAR(')', "\\)");
    CLASS_CHAR('?', "\\?");
    CLASS_CHAR('^', "\\^");
    CLASS_CHAR('\\', "\\\\");
    CLASS_CHAR('\'', "\\'");
    CLASS_CHAR(0x07, "\\a");
    CLASS_CHAR(0x08, "\\b");
    CLASS_CHAR(0x0C, "\\f");
    CLASS_CHAR(0x0A, "\\n");
    CLASS_CHAR(0x0D, "\\r");
    CLASS_CHAR(0x09, "\\t");
    CLASS_CHAR(0x0B, "\\v");
    CLASS_CHAR(0x00, "\\x00");
    CLASS_CHAR(0x1F, "\\x1f");
    CLASS_CHAR(0x7F, "\\x7f");
    CLASS_CHAR('"', "\"");
    CLASS_CHAR('{', "{");
    CLASS_CHAR(']', "]");
    CLASS_CHAR(' ', " ");
    CLASS_CHAR('a', "a");
    CLASS_CHAR('_', "_");
    CLASS_CHAR(0x80, "\\u0080");
    CLASS_CHAR(0xA0, "\\u00a0");
    CLASS_CHAR(0xE9, "\xC3\xA9");
    CLASS_CHAR(0x200B, "\\u200b");
    CLASS_CHAR(0xFEFF, "\\ufeff");
    CLASS_CHAR(0xFFFD, "\xEF\xBF\xBD");
    CLASS_CHAR(0x1F600, "\xF0\x9F\x98\x80");
    CLASS_CHAR(0xE0001, "\\U000e0001");
    CLASS_CHAR(0x10FFFF, "\\U0010ffff");
}

struct class_item { uint32_t lo, hi; };

/* Renders a whole class as 1.12 describes, using rt_unicode_class_char for each end. */
static const char *render_class(int negated, const struct class_item *items, size_t n)
{
    rt_buf_reset(&out);
    rt_buf_adds(&out, negated ? "(?^" : "(?");
    for (size_t i = 0; i < n; i++) {
        rt_unicode_class_char(&out, items[i].lo);
        if (items[i].hi != items[i].lo) {
            rt_buf_addc(&out, '-');
            rt_unicode_class_char(&out, items[i].hi);
        }
    }
    rt_buf_addc(&out, ')');
    return out.data;
}

#define ITEMS(...) ((const struct class_item[]){__VA_ARGS__}), \
    sizeof((const struct class_item[]){__VA_ARGS__}) / sizeof(struct class_item)

static void test_class_rendering(void)
{
    /* (? \t\r\n) prints as written */
    CU_ASSERT_STRING_EQUAL(render_class(0, ITEMS({' ', ' '}, {'\t', '\t'}, {'\r', '\r'}, {'\n', '\n'})),
                           "(? \\t\\r\\n)");
    /* (?^"\\\u{0}-\u{1f}) */
    CU_ASSERT_STRING_EQUAL(render_class(1, ITEMS({'"', '"'}, {'\\', '\\'}, {0x00, 0x1F})),
                           "(?^\"\\\\\\x00-\\x1f)");
    /* (?a-zA-Z_\u{80}-\u{10FFFF}) */
    CU_ASSERT_STRING_EQUAL(render_class(0, ITEMS({'a', 'z'}, {'A', 'Z'}, {'_', '_'}, {0x80, 0x10FFFF})),
                           "(?a-zA-Z_\\u0080-\\U0010ffff)");
    /* (?0-9) as in the error examples, and the A.3.5 examples */
    CU_ASSERT_STRING_EQUAL(render_class(0, ITEMS({'0', '9'})), "(?0-9)");
    CU_ASSERT_STRING_EQUAL(render_class(0, ITEMS({'a', 'z'}, {'_', '_'})), "(?a-z_)");
    CU_ASSERT_STRING_EQUAL(render_class(1, ITEMS({'"', '"'}, {'\\', '\\'})), "(?^\"\\\\)");
    CU_ASSERT_STRING_EQUAL(render_class(0, ITEMS({'-', '-'}, {'(', '('}, {'?', '?'}, {')', ')'})),
                           "(?\\-\\(\\?\\))");
    CU_ASSERT_STRING_EQUAL(render_class(1, ITEMS({';', ';'}, {'{', '{'}, {'}', '}'}, {'\n', '\n'})),
                           "(?^;{}\\n)");
}

int main(void)
{
    static const struct { const char *name; CU_TestFunc fn; } tests[] = {
        {"decode valid sequences", test_decode_valid},
        {"decode invalid sequences", test_decode_invalid},
        {"the width of a sequence, as decoding finds it", test_width},
        {"encode round trip", test_encode_round_trip},
        {"white space", test_white_space},
        {"identifier letters", test_letter},
        {"decimal digits", test_digit},
        {"uppercase letters", test_upper},
        {"printable", test_printable},
        {"quote ASCII", test_quote_ascii},
        {"quote non-ASCII", test_quote_non_ascii},
        {"quote invalid bytes", test_quote_invalid_bytes},
        {"json ASCII", test_json_ascii},
        {"json non-ASCII", test_json_non_ascii},
        {"class char", test_class_char},
        {"class rendering", test_class_rendering},
    };
    if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
    CU_pSuite suite = CU_add_suite("unicode", suite_init, suite_clean);
    if (!suite) { CU_cleanup_registry(); return 1; }
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (!CU_add_test(suite, tests[i].name, tests[i].fn)) { CU_cleanup_registry(); return 1; }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    return failures ? 1 : 0;
}
