/* UTF-8 decoding and encoding, the character properties the grammar reader uses, and
 * the three text escapings: Go strconv.Quote (tree printing and expected literals),
 * Go encoding/json strings, and character-class ends in error messages. */
#include "unicode.h"

#define RT_MAX_CODE_POINT 0x10FFFFu

static const char hex[] = "0123456789abcdef";

int rt_unicode_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned c = s[0];
    if (c < 0x80) { *cp = c; return 1; }

    /* The lead byte fixes the length and the allowed range of the second byte, which
     * is how overlong forms, surrogates and values above U+10FFFF are excluded. */
    int len;
    unsigned lo2 = 0x80, hi2 = 0xBF;
    uint32_t v;
    if (c >= 0xC2 && c <= 0xDF)      { len = 2; v = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3; v = c & 0x0F;
        if (c == 0xE0) lo2 = 0xA0;
        else if (c == 0xED) hi2 = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4; v = c & 0x07;
        if (c == 0xF0) lo2 = 0x90;
        else if (c == 0xF4) hi2 = 0x8F;
    } else goto invalid;

    if (n < (size_t)len) goto invalid;
    if (s[1] < lo2 || s[1] > hi2) goto invalid;
    v = (v << 6) | (s[1] & 0x3Fu);
    for (int i = 2; i < len; i++) {
        if ((s[i] & 0xC0u) != 0x80u) goto invalid;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    *cp = v;
    return len;

invalid:
    *cp = RT_REPLACEMENT;
    return 1;
}

/* A value that is not a scalar value (a surrogate, or above U+10FFFF) is written as
 * U+FFFD, as Go's utf8.EncodeRune does. */
int rt_unicode_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > RT_MAX_CODE_POINT) cp = RT_REPLACEMENT;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Binary search of a sorted range table. */
static bool in_ranges(const rt_unicode_range *t, size_t n, uint32_t cp)
{
    if (n == 0 || cp < t[0].lo || cp > t[n - 1].hi) return false;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp > t[mid].hi) lo = mid + 1;
        else if (cp < t[mid].lo) hi = mid;
        else return true;
    }
    return false;
}

bool rt_unicode_is_white_space(uint32_t cp)
{
    if (cp < 0x80) return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20;
    switch (cp) {
    case 0x0085: case 0x00A0: case 0x1680: case 0x2028: case 0x2029:
    case 0x202F: case 0x205F: case 0x3000:
        return true;
    default:
        return cp >= 0x2000 && cp <= 0x200A;
    }
}

/* The approximation of A.3.1: ASCII letters, the Latin-1 letters, and every code
 * point from U+00F8 up. */
bool rt_unicode_is_letter(uint32_t cp)
{
    if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
    if (cp >= 0xF8) return true;
    return cp == 0xAA || cp == 0xB5 || cp == 0xBA || (cp >= 0xC0 && cp != 0xD7 && cp != 0xF7);
}

bool rt_unicode_is_digit(uint32_t cp)
{
    if (cp < 0x80) return cp >= '0' && cp <= '9';
    return in_ranges(rt_unicode_digit_ranges, rt_unicode_digit_ranges_len, cp);
}

bool rt_unicode_is_upper(uint32_t cp)
{
    if (cp < 0x80) return cp >= 'A' && cp <= 'Z';
    return in_ranges(rt_unicode_upper_ranges, rt_unicode_upper_ranges_len, cp);
}

bool rt_unicode_is_printable(uint32_t cp)
{
    if (cp < 0x80) return cp >= 0x20 && cp < 0x7F;
    return in_ranges(rt_unicode_print_ranges, rt_unicode_print_ranges_len, cp);
}

static void add_hex(rt_buf *b, const char *prefix, uint32_t v, int digits)
{
    char tmp[10];
    rt_buf_adds(b, prefix);
    for (int i = digits - 1; i >= 0; i--) {
        tmp[i] = hex[v & 0xF];
        v >>= 4;
    }
    rt_buf_add(b, tmp, (size_t)digits);
}

/* The named escape of a control character (\a \b \f \n \r \t \v), or 0. */
static char control_escape(uint32_t cp)
{
    switch (cp) {
    case 0x07: return 'a';
    case 0x08: return 'b';
    case 0x0C: return 'f';
    case 0x0A: return 'n';
    case 0x0D: return 'r';
    case 0x09: return 't';
    case 0x0B: return 'v';
    default:   return 0;
    }
}

/* Writes a non-printable character as its named escape, or as \xHH (below U+0080),
 * \uHHHH or \UHHHHHHHH: the tail of Go's strconv escaping, shared by rt_unicode_quote and
 * rt_unicode_class_char. */
static void add_escape(rt_buf *b, uint32_t cp)
{
    char e = control_escape(cp);
    if (e) {
        rt_buf_addc(b, '\\');
        rt_buf_addc(b, e);
    } else if (cp < 0x80) {
        add_hex(b, "\\x", cp, 2);
    } else if (cp < 0x10000) {
        add_hex(b, "\\u", cp, 4);
    } else {
        add_hex(b, "\\U", cp, 8);
    }
}

void rt_unicode_quote(rt_buf *b, const char *s, size_t n, int bytes)
{
    rt_buf_addc(b, '"');
    rt_unicode_quote_body(b, s, n, bytes);
    rt_buf_addc(b, '"');
}

void rt_unicode_quote_body(rt_buf *b, const char *s, size_t n, int bytes)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0;   /* p[run..i) is pending text copied as is */
    while (i < n) {
        uint32_t cp;
        int w = rt_unicode_decode(p + i, n - i, &cp);
        bool invalid = w == 1 && cp == RT_REPLACEMENT;
        if (!invalid && cp != '"' && cp != '\\' && rt_unicode_is_printable(cp)) {
            i += (size_t)w;
            continue;
        }
        rt_buf_add(b, p + run, i - run);
        if (cp == '"' || cp == '\\') {
            rt_buf_addc(b, '\\');
            rt_buf_addc(b, (char)cp);
        } else if (invalid) {
            if (bytes) add_hex(b, "\\x", p[i], 2);
            else rt_buf_add(b, "\xEF\xBF\xBD", 3);
        } else {
            add_escape(b, cp);
        }
        i += (size_t)w;
        run = i;
    }
    rt_buf_add(b, p + run, i - run);
}

/* Go's encoding/json with HTML escaping: ASCII from U+0020 up is copied except
 * " \ < > &; DEL and all valid non-ASCII text are copied except U+2028/U+2029. */
void rt_unicode_json_string(rt_buf *b, const char *s, size_t n)
{
    rt_buf_addc(b, '"');
    rt_unicode_json_body(b, s, n);
    rt_buf_addc(b, '"');
}

void rt_unicode_json_body(rt_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0;   /* p[run..i) is pending text copied as is */
    while (i < n) {
        unsigned c = p[i];
        if (c < 0x80) {
            if (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&') {
                i++;
                continue;
            }
            rt_buf_add(b, p + run, i - run);
            switch (c) {
            case '"':  rt_buf_adds(b, "\\\""); break;
            case '\\': rt_buf_adds(b, "\\\\"); break;
            case '\n': rt_buf_adds(b, "\\n"); break;
            case '\r': rt_buf_adds(b, "\\r"); break;
            case '\t': rt_buf_adds(b, "\\t"); break;
            case '\b': rt_buf_adds(b, "\\b"); break;
            case '\f': rt_buf_adds(b, "\\f"); break;
            default:   add_hex(b, "\\u", c, 4); break;
            }
            run = ++i;
            continue;
        }
        uint32_t cp;
        int w = rt_unicode_decode(p + i, n - i, &cp);
        if (w == 1 && cp == RT_REPLACEMENT) {
            rt_buf_add(b, p + run, i - run);
            rt_buf_adds(b, "\\ufffd");
        } else if (cp == 0x2028 || cp == 0x2029) {
            rt_buf_add(b, p + run, i - run);
            add_hex(b, "\\u", cp, 4);
        } else {
            i += (size_t)w;
            continue;
        }
        i += (size_t)w;
        run = i;
    }
    rt_buf_add(b, p + run, i - run);
}

/* A byte that is not a continuation byte (10xxxxxx) always starts a read. A
 * continuation byte is inside a valid sequence only when one of the three bytes
 * before it is the sequence's lead; with four continuation bytes in a row, the
 * last one is read on its own. */
size_t rt_unicode_cut(const char *s, size_t at)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t back = 0; back < 4; back++)
        if ((p[at - back] & 0xC0u) != 0x80u) return at - back;
    return at;
}

void rt_unicode_class_char(rt_buf *b, uint32_t cp)
{
    switch (cp) {
    case '-': case '(': case ')': case '?': case '^': case '\\': case '\'':
        rt_buf_addc(b, '\\');
        rt_buf_addc(b, (char)cp);
        return;
    default:
        break;
    }
    if (rt_unicode_is_printable(cp)) {
        char u[4];
        rt_buf_add(b, u, (size_t)rt_unicode_encode(cp, u));
    } else {
        add_escape(b, cp);
    }
}
