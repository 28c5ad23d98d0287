/* Internal to the grammar reader: the tokens of a grammar file (docs/language.md A.1-A.3).
 * The lexer turns the whole source into an array of tokens ending with CC_TK_EOF,
 * reporting lexical errors as it goes and still producing a usable token, so that
 * the parser can go on and find further errors. */
#ifndef PEGO_CC_LEXER_H
#define PEGO_CC_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "ast.h"

typedef enum {
    CC_TK_EOF,
    CC_TK_IDENT,      /* identifiers and keywords (text in the source) */
    CC_TK_STRING,     /* "...": decoded value in val/vlen */
    CC_TK_CLASS,      /* (?...): ranges/nranges, negated */
    CC_TK_INT,        /* decimal digits: ival */
    CC_TK_CAPREF,     /* $label or $1: the name or digits after '$' */
    /* multi-character punctuation */
    CC_TK_BOTTOM,     /* _|_ */
    CC_TK_BOI,        /* ^^ */
    CC_TK_EOI,        /* $$ */
    CC_TK_CUT,        /* -- */
    CC_TK_ARROW,      /* -> */
    CC_TK_FATARROW,   /* => */
    CC_TK_EQ,         /* == */
    CC_TK_NE,         /* != */
    CC_TK_LE,         /* <= */
    CC_TK_GE,         /* >= */
    CC_TK_ANDAND,     /* && */
    CC_TK_OROR,       /* || */
    CC_TK_LIST,       /* [] */
    /* single-character punctuation */
    CC_TK_COLON, CC_TK_ASSIGN, CC_TK_SLASH, CC_TK_LPAREN, CC_TK_RPAREN,
    CC_TK_LBRACE, CC_TK_RBRACE, CC_TK_LBRACK, CC_TK_RBRACK, CC_TK_COMMA,
    CC_TK_DOT, CC_TK_STAR, CC_TK_PLUS, CC_TK_QUESTION, CC_TK_AMP, CC_TK_BANG,
    CC_TK_AT, CC_TK_MINUS, CC_TK_CARET, CC_TK_DOLLAR, CC_TK_HASH, CC_TK_PIPE,
    CC_TK_LT, CC_TK_GT, CC_TK_PERCENT
} cc_tok_kind;

typedef struct {
    cc_tok_kind kind;
    int         line, col;     /* 1-based; columns count code points */
    size_t      off, end;      /* byte range of the token in the source */
    int         adjacent;      /* touches the previous token (no white space or comment) */
    char       *val;           /* STRING: decoded text (may contain NULs), malloc'd */
    size_t      vlen;
    ast_range  *ranges;        /* CLASS: items in source order, malloc'd */
    int         nranges;
    int         negated;
    int64_t     ival;          /* INT */
} cc_token;

typedef struct {
    cc_token *toks;
    int       n;               /* the last token is CC_TK_EOF */
} cc_tokens;

/* Tokenizes src[0..len). Lexical errors are appended to errs (at most
 * CC_MAX_ERRORS + 1 of them: enough to know that there are too many). */
void cc_lex(const char *src, size_t len, cc_tokens *out, cc_errors *errs);
void cc_tokens_free(cc_tokens *t);

#endif
