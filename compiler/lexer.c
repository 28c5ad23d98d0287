/* The grammar lexer (docs/language.md A.1-A.3): white space and comments, identifiers,
 * string literals and escapes, character classes with their validity rules,
 * integers, capture references and punctuation, always taking the longest token,
 * with positions (lines end at LF, CR LF or a lone CR; columns count code points)
 * and whether each token touches the previous one. */
#include "lexer.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/buf.h"
#include "../runtime/unicode.h"

typedef struct {
    const unsigned char *s;
    size_t     n, pos;
    int        line, col;
    int        gap;         /* white space, a comment or a skipped character since the last token */
    cc_errors *errs;
    int        base;        /* errors already in errs: the lexer's own come after */
    cc_tokens *out;
    int        cap;
} lexer;

static void lx_error(lexer *lx, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records a lexical error; past CC_MAX_ERRORS + 1 they cannot be reported anyway. */
static void lx_error(lexer *lx, int line, int col, const char *fmt, ...)
{
    if (lx->errs->n - lx->base > CC_MAX_ERRORS) return;
    va_list ap;
    va_start(ap, fmt);
    cc_errors_addv(lx->errs, line, col, fmt, ap);
    va_end(ap);
}

static int at_end(const lexer *lx) { return lx->pos >= lx->n; }

/* What cp_at returns for a byte that is not part of valid UTF-8: no letter, no white
 * space, U+FFFD in literals and classes (rt_unicode_encode writes it as U+FFFD). */
#define BAD_BYTE 0xFFFFFFFFu

/* The code point at byte offset at, its length in *len. */
static uint32_t cp_at(const lexer *lx, size_t at, int *len)
{
    uint32_t cp;
    int l = rt_unicode_decode(lx->s + at, lx->n - at, &cp);
    if (len) *len = l;
    return cp == RT_REPLACEMENT && l == 1 ? BAD_BYTE : cp;
}

static uint32_t cur(const lexer *lx) { return at_end(lx) ? 0 : cp_at(lx, lx->pos, NULL); }

/* The byte k positions ahead, or 0 past the end (only used to look at ASCII). */
static unsigned char byte_at(const lexer *lx, size_t k)
{
    return lx->pos + k < lx->n ? lx->s[lx->pos + k] : 0;
}

/* Moves over one code point, keeping line and column. */
static void advance(lexer *lx)
{
    int len;
    uint32_t cp = cp_at(lx, lx->pos, &len);
    lx->pos += (size_t)len;
    if (cp == '\n' || (cp == '\r' && (at_end(lx) || lx->s[lx->pos] != '\n'))) {
        lx->line++;
        lx->col = 1;
    } else {
        lx->col++;
    }
}

static int is_ascii_digit(uint32_t c) { return c >= '0' && c <= '9'; }
static int is_ascii_alnum(uint32_t c)
{
    return is_ascii_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_hex(uint32_t c)
{
    return is_ascii_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static uint32_t hex_value(uint32_t c)
{
    return is_ascii_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}
/* Letters per A.3.1's approximation, which counts everything from U+00F8 up, less the
 * white space found there. */
static int is_letter(uint32_t c) { return c != BAD_BYTE && rt_unicode_is_letter(c) && !rt_unicode_is_white_space(c); }
static int is_ident_start(uint32_t c) { return c == '_' || is_letter(c); }
static int is_ident_char(uint32_t c) { return c == '_' || is_letter(c) || rt_unicode_is_digit(c); }
static int is_scalar(uint32_t c) { return c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF); }

static int is_token_start(uint32_t c)
{
    return is_ident_start(c) || is_ascii_digit(c) || c == '"' ||
           (c && c < 0x80 && strchr(":=/(){}[],.*+?&!@-^$#|<>%", (int)c));
}

static cc_token *push(lexer *lx, cc_tok_kind kind, int line, int col, size_t off)
{
    cc_tokens *t = lx->out;
    if (t->n == lx->cap) {
        lx->cap = lx->cap ? lx->cap * 2 : 256;
        t->toks = cc_xrealloc(t->toks, (size_t)lx->cap * sizeof *t->toks);
    }
    cc_token *tk = &t->toks[t->n];
    memset(tk, 0, sizeof *tk);
    tk->kind = kind;
    tk->line = line;
    tk->col = col;
    tk->off = off;
    tk->adjacent = !lx->gap && t->n > 0;
    t->n++;
    lx->gap = 0;
    return tk;
}

/* Appends the source text [from, to) to b as error messages show it: each character
 * as a class end is rendered (1.12), an invalid byte as \xHH. */
static void add_visible(lexer *lx, rt_buf *b, size_t from, size_t to)
{
    while (from < to) {
        int len;
        uint32_t cp = cp_at(lx, from, &len);
        if (cp == BAD_BYTE) rt_buf_printf(b, "\\x%02x", lx->s[from]);
        else rt_unicode_class_char(b, cp);
        from += (size_t)len;
    }
}

/* Reads an escape sequence at a backslash (A.3.4). Returns 1 with the code point in
 * *out, 0 after reporting an invalid escape (consumed), or -1 when the line or the
 * file ends right after the backslash (nothing consumed but the backslash). */
static int lex_escape(lexer *lx, uint32_t *out)
{
    size_t start = lx->pos;
    int line = lx->line, col = lx->col;
    advance(lx);
    if (at_end(lx) || cur(lx) == '\n') return -1;
    uint32_t c = cur(lx);
    static const char simple[] = "ntrfvab0";
    static const uint32_t value[] = { '\n', '\t', '\r', '\f', '\v', '\a', '\b', 0 };
    const char *k = c < 0x80 && c ? strchr(simple, (int)c) : NULL;
    if (k) {
        advance(lx);
        *out = value[k - simple];
        return 1;
    }
    if (c == 'u') {
        advance(lx);
        uint32_t v = 0;
        int digits = 0, ok;
        if (!at_end(lx) && cur(lx) == '{') {
            advance(lx);
            while (!at_end(lx) && is_hex(cur(lx))) {
                if (v <= 0x10FFFF) v = v * 16 + hex_value(cur(lx));
                digits++;
                advance(lx);
            }
            ok = digits > 0 && !at_end(lx) && cur(lx) == '}';
            if (ok) advance(lx);
        } else {
            while (digits < 4 && !at_end(lx) && is_hex(cur(lx))) {
                v = v * 16 + hex_value(cur(lx));
                digits++;
                advance(lx);
            }
            ok = digits == 4;
        }
        if (ok && is_scalar(v)) {
            *out = v;
            return 1;
        }
    } else if (is_ascii_alnum(c)) {
        advance(lx);
    } else {
        advance(lx);
        *out = c;
        return 1;
    }
    /* what was read is a backslash and printable ASCII */
    lx_error(lx, line, col, "invalid escape sequence %.*s", (int)(lx->pos - start), (const char *)lx->s + start);
    return 0;
}

static void lex_string(lexer *lx, cc_token *tk)
{
    rt_buf b;
    rt_buf_init(&b);
    advance(lx);
    for (;;) {
        uint32_t c = cur(lx);
        if (at_end(lx) || c == '\n') {
            lx_error(lx, tk->line, tk->col, "unterminated string literal");
            break;
        }
        if (c == '"') {
            advance(lx);
            break;
        }
        if (c == '\\') {
            uint32_t v;
            int r = lex_escape(lx, &v);
            if (r == 1) {
                char u[4];
                rt_buf_add(&b, u, (size_t)rt_unicode_encode(v, u));
            } else if (r < 0) {
                lx_error(lx, tk->line, tk->col, "unterminated string literal");
                break;
            }
            continue;
        }
        char u[4];
        rt_buf_add(&b, u, (size_t)rt_unicode_encode(c, u));
        advance(lx);
    }
    tk->vlen = b.len;
    tk->val = cc_xtake(&b);
}

/* One end of a class item: an escape or a character other than ')', '\' and LF.
 * Same results as lex_escape. */
static int class_char(lexer *lx, uint32_t *out)
{
    if (at_end(lx) || cur(lx) == '\n') return -1;
    if (cur(lx) == '\\') return lex_escape(lx, out);
    *out = cur(lx) == BAD_BYTE ? RT_REPLACEMENT : cur(lx);
    advance(lx);
    return 1;
}

static void lex_class(lexer *lx, cc_token *tk)
{
    int cap = 0;
    advance(lx);                               /* ( */
    advance(lx);                               /* ? */
    if (!at_end(lx) && cur(lx) == '^') {
        tk->negated = 1;
        advance(lx);
    }
    int items = 0;
    for (;;) {
        if (at_end(lx) || cur(lx) == '\n') {
            lx_error(lx, tk->line, tk->col, "unterminated character class");
            return;
        }
        if (cur(lx) == ')') {
            advance(lx);
            if (items == 0) lx_error(lx, tk->line, tk->col, "empty character class");
            return;
        }
        int line = lx->line, col = lx->col;
        uint32_t lo, hi;
        int r = class_char(lx, &lo);
        if (r < 0) continue;                   /* reported at the top of the loop */
        items++;
        hi = lo;
        if (cur(lx) == '-' && lx->pos + 1 < lx->n && byte_at(lx, 1) != ')') {
            advance(lx);
            int r2 = class_char(lx, &hi);
            if (r2 < 0) continue;
            if (r2 == 0) r = 0;
            if (r && hi < lo) {
                rt_buf b;
                rt_buf_init(&b);
                rt_unicode_class_char(&b, lo);
                rt_buf_addc(&b, '-');
                rt_unicode_class_char(&b, hi);
                if (b.oom) lx->errs->oom = 1;
                else lx_error(lx, line, col, "invalid character class range %s", b.data);
                rt_buf_free(&b);
                r = 0;
            }
        }
        if (r != 1) continue;
        if (tk->nranges == cap) {
            cap = cap ? cap * 2 : 8;
            tk->ranges = cc_xrealloc(tk->ranges, (size_t)cap * sizeof *tk->ranges);
        }
        tk->ranges[tk->nranges++] = (ast_range){ lo, hi };
    }
}

static void lex_int(lexer *lx, cc_token *tk)
{
    int64_t v = 0;
    int overflow = 0;
    while (!at_end(lx) && is_ascii_digit(cur(lx))) {
        int d = (int)(cur(lx) - '0');
        if (v > (INT64_MAX - d) / 10) overflow = 1;
        else v = v * 10 + d;
        advance(lx);
    }
    if (overflow) {
        lx_error(lx, tk->line, tk->col, "integer %.*s is too large",
                 (int)(lx->pos - tk->off), (const char *)lx->s + tk->off);
        v = INT64_MAX;
    }
    tk->ival = v;
}

static void skip_ident(lexer *lx)
{
    while (!at_end(lx) && is_ident_char(cur(lx))) advance(lx);
}

/* Punctuation, longest match first (A.3.8). Returns 0 if c starts none. */
static int punct(lexer *lx, uint32_t c, cc_tok_kind *kind)
{
    unsigned char n1 = byte_at(lx, 1);
    int len = 1;
    switch (c) {
    case '-': *kind = n1 == '-' ? CC_TK_CUT : n1 == '>' ? CC_TK_ARROW : CC_TK_MINUS; break;
    case '=': *kind = n1 == '=' ? CC_TK_EQ : n1 == '>' ? CC_TK_FATARROW : CC_TK_ASSIGN; break;
    case '!': *kind = n1 == '=' ? CC_TK_NE : CC_TK_BANG; break;
    case '<': *kind = n1 == '=' ? CC_TK_LE : CC_TK_LT; break;
    case '>': *kind = n1 == '=' ? CC_TK_GE : CC_TK_GT; break;
    case '&': *kind = n1 == '&' ? CC_TK_ANDAND : CC_TK_AMP; break;
    case '|': *kind = n1 == '|' ? CC_TK_OROR : CC_TK_PIPE; break;
    case '[': *kind = n1 == ']' ? CC_TK_LIST : CC_TK_LBRACK; break;
    case '^': *kind = n1 == '^' ? CC_TK_BOI : CC_TK_CARET; break;
    case '$': *kind = n1 == '$' ? CC_TK_EOI : CC_TK_DOLLAR; break;
    case ':': *kind = CC_TK_COLON; break;
    case '/': *kind = CC_TK_SLASH; break;
    case '(': *kind = CC_TK_LPAREN; break;
    case ')': *kind = CC_TK_RPAREN; break;
    case '{': *kind = CC_TK_LBRACE; break;
    case '}': *kind = CC_TK_RBRACE; break;
    case ']': *kind = CC_TK_RBRACK; break;
    case ',': *kind = CC_TK_COMMA; break;
    case '.': *kind = CC_TK_DOT; break;
    case '*': *kind = CC_TK_STAR; break;
    case '+': *kind = CC_TK_PLUS; break;
    case '?': *kind = CC_TK_QUESTION; break;
    case '@': *kind = CC_TK_AT; break;
    case '#': *kind = CC_TK_HASH; break;
    case '%': *kind = CC_TK_PERCENT; break;
    default: return 0;
    }
    switch (*kind) {
    case CC_TK_CUT: case CC_TK_ARROW: case CC_TK_EQ: case CC_TK_FATARROW: case CC_TK_NE:
    case CC_TK_LE: case CC_TK_GE: case CC_TK_ANDAND: case CC_TK_OROR: case CC_TK_LIST:
    case CC_TK_BOI: case CC_TK_EOI:
        len = 2;
        break;
    default:
        break;
    }
    while (len--) advance(lx);
    return 1;
}

/* Skips white space and // comments (A.2). */
static void skip_space(lexer *lx)
{
    while (!at_end(lx)) {
        uint32_t c = cur(lx);
        if (rt_unicode_is_white_space(c)) {
            advance(lx);
        } else if (c == '/' && byte_at(lx, 1) == '/') {
            while (!at_end(lx) && cur(lx) != '\n' && cur(lx) != '\r') advance(lx);
        } else {
            return;
        }
        lx->gap = 1;
    }
}

/* A character that starts no token: reported with what follows it up to the next
 * white space or token (A.1), and skipped. */
static void lex_unexpected(lexer *lx)
{
    size_t start = lx->pos;
    int line = lx->line, col = lx->col;
    advance(lx);
    while (!at_end(lx) && !rt_unicode_is_white_space(cur(lx)) && !is_token_start(cur(lx))) advance(lx);
    rt_buf b;
    rt_buf_init(&b);
    add_visible(lx, &b, start, lx->pos);
    if (b.oom) lx->errs->oom = 1;
    else lx_error(lx, line, col, "unexpected character '%s'", b.data ? b.data : "");
    rt_buf_free(&b);
    lx->gap = 1;
}

void cc_lex(const char *src, size_t len, cc_tokens *out, cc_errors *errs)
{
    lexer lx = { (const unsigned char *)src, len, 0, 1, 1, 0, errs, errs->n, out, 0 };
    out->toks = NULL;
    out->n = 0;
    for (;;) {
        skip_space(&lx);
        int line = lx.line, col = lx.col;
        size_t off = lx.pos;
        if (at_end(&lx)) {
            cc_token *tk = push(&lx, CC_TK_EOF, line, col, off);
            tk->end = off;
            return;
        }
        uint32_t c = cur(&lx);
        cc_tok_kind kind;
        cc_token *tk;
        if (c == '_' && byte_at(&lx, 1) == '|' && byte_at(&lx, 2) == '_') {
            tk = push(&lx, CC_TK_BOTTOM, line, col, off);
            advance(&lx); advance(&lx); advance(&lx);
        } else if (is_ident_start(c)) {
            tk = push(&lx, CC_TK_IDENT, line, col, off);
            skip_ident(&lx);
        } else if (is_ascii_digit(c)) {
            tk = push(&lx, CC_TK_INT, line, col, off);
            lex_int(&lx, tk);
        } else if (c == '"') {
            tk = push(&lx, CC_TK_STRING, line, col, off);
            lex_string(&lx, tk);
        } else if (c == '(' && byte_at(&lx, 1) == '?') {
            tk = push(&lx, CC_TK_CLASS, line, col, off);
            lex_class(&lx, tk);
        } else if (c == '$' && lx.pos + 1 < lx.n &&
                   (is_ascii_digit(byte_at(&lx, 1)) || is_ident_start(cp_at(&lx, lx.pos + 1, NULL)))) {
            tk = push(&lx, CC_TK_CAPREF, line, col, off);
            advance(&lx);
            if (is_ascii_digit(cur(&lx)))
                while (!at_end(&lx) && is_ascii_digit(cur(&lx))) advance(&lx);
            else
                skip_ident(&lx);
        } else if (punct(&lx, c, &kind)) {
            tk = push(&lx, kind, line, col, off);
        } else {
            lex_unexpected(&lx);
            continue;
        }
        tk->end = lx.pos;
    }
}

void cc_tokens_free(cc_tokens *t)
{
    for (int i = 0; i < t->n; i++) {
        cc_free(t->toks[i].val);
        cc_free(t->toks[i].ranges);
    }
    cc_free(t->toks);
    t->toks = NULL;
    t->n = 0;
}
