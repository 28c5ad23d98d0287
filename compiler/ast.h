/* The grammar AST: what the reader (lexer + parser) produces and every later
 * stage (checks, analysis, emitter) consumes. It covers the whole syntax of the
 * grammar language, including constructs of later tiers, so that the checker can
 * refuse those with a precise position. */
#ifndef PEGO_CC_AST_H
#define PEGO_CC_AST_H

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "../runtime/buf.h"

typedef enum {
    AST_LITERAL,    /* text/len: decoded UTF-8 of the literal */
    AST_CLASS,      /* ranges/nranges, negated */
    AST_ANY,        /* . */
    AST_TOP,        /* _ */
    AST_BOTTOM,     /* _|_ */
    AST_ANCHOR,     /* anchor */
    AST_SEQ,        /* kids */
    AST_CHOICE,     /* kids */
    AST_REPEAT,     /* kids[0]; min, max (max = -1: unbounded); '*' '+' '{n,m}' */
    AST_OPTIONAL,   /* kids[0] */
    AST_AND,        /* &kids[0] */
    AST_NOT,        /* !kids[0] */
    AST_ATOMIC,     /* @kids[0] */
    AST_DISCARD,    /* -kids[0] */
    AST_CAPTURE,    /* name:kids[0] */
    AST_CALL,       /* name, optional level name (level != NULL); rule = resolved rule index or -1 */
    AST_CUT,        /* -- */
    AST_PREDICATE,  /* [term] or [name = term]: name (variable, may be NULL), term */
    AST_ATTRIBUTE,  /* kids[0] #name(args): name, args/nargs */
    AST_PRATT       /* pratt { ... }: pratt */
} ast_kind;

typedef enum { ANCHOR_BOI, ANCHOR_EOI, ANCHOR_BOL, ANCHOR_EOL } ast_anchor;

typedef struct { uint32_t lo, hi; } ast_range;

typedef struct ast_term ast_term;     /* action/predicate expressions (Tier 5/6) */
typedef struct ast_pratt ast_pratt;

typedef struct ast_expr ast_expr;
typedef struct {
    char     *name;    /* argument name */
    ast_expr *value;   /* a parsing expression (a string argument is an AST_LITERAL) */
    int       line, col;
} ast_attr_arg;

struct ast_expr {
    ast_kind   kind;
    int        line, col;       /* 1-based position of the construct's first token */
    ast_expr **kids;
    int        nkids;
    /* literal */
    char      *text;            /* NUL-terminated; len may include NULs from \0 */
    size_t     len;
    /* class */
    ast_range *ranges;
    int        nranges;
    int        negated;
    /* anchor */
    ast_anchor anchor;
    /* repeat: max < 0 means unbounded */
    int64_t    min, max;
    /* capture label, call name, attribute name, predicate variable */
    char      *name;
    char      *level;           /* call: level name or NULL */
    int        level_line, level_col;
    int        rule;            /* call: resolved rule index, -1 before resolution */
    /* attribute */
    ast_attr_arg *args;
    int        nargs;
    /* predicate */
    ast_term  *term;
    /* pratt */
    ast_pratt *pratt;
    /* repeat, optional, attribute: position of the postfix operator token ('*', '+',
     * '?', '{' or '#'); line/col stay at the operand's first token */
    int        op_line, op_col;
};

/* Terms (actions and predicates) are parsed in full so that any grammar file can be
 * read; their semantics belong to later tiers. */
typedef enum {
    TERM_INT, TERM_STRING, TERM_CAPREF,  /* $label or $n */
    TERM_VAR,                            /* identifier, true/false/nil included */
    TERM_NEW,                            /* new Type{Field: term, ...} */
    TERM_CALL,                           /* builtin(args) */
    TERM_LAMBDA,                         /* (params) => body */
    TERM_UNARY, TERM_BINARY,             /* op: the operator's text */
    TERM_MEMBER                          /* kids[0].name */
} term_kind;

struct ast_term {
    term_kind  kind;
    int        line, col;
    int64_t    ival;
    char      *sval;        /* string value, capture name/number text, variable, type, builtin, member, op */
    size_t     slen;
    ast_term **kids;        /* operands, call arguments, new field values, lambda body (last) */
    int        nkids;
    char     **names;       /* new: field names (parallel to kids); lambda: parameter names */
    int       *name_lines, *name_cols;  /* the position of each name */
    int        nnames;
};

typedef enum { PRATT_PREFIX, PRATT_POSTFIX, PRATT_INFIX_LEFT, PRATT_INFIX_RIGHT, PRATT_INFIX_NONE } pratt_op_kind;

typedef struct {
    pratt_op_kind kind;
    ast_expr     *expr;
    ast_term     *action;   /* NULL without action */
    int           line, col;
} ast_pratt_op;

typedef struct {
    char         *name;     /* NULL for an unnamed level */
    int           line, col;            /* position of 'level' */
    int           name_line, name_col;  /* position of the name (when named) */
    ast_pratt_op *ops;
    int           nops;
} ast_pratt_level;

typedef struct {
    ast_expr *expr;
    ast_term *action;
    int       line, col;
} ast_pratt_operand;

struct ast_pratt {
    ast_expr          *skip;         /* NULL when absent */
    int                skip_line, skip_col;
    ast_pratt_operand *operands;
    int                noperands;
    ast_pratt_level   *levels;
    int                nlevels;
};

/* Type expressions and definitions (Tier 6), kept so files load. */
typedef enum { TYPE_NAME, TYPE_LIST, TYPE_PTR, TYPE_UNION } type_kind;
typedef struct ast_type ast_type;
struct ast_type {
    type_kind  kind;
    int        line, col;
    char      *name;        /* TYPE_NAME */
    ast_type **kids;        /* LIST/PTR: kids[0]; UNION: members */
    int        nkids;
};

typedef enum { TYPEDEF_STRUCT, TYPEDEF_TERMINAL, TYPEDEF_ALIAS } typedef_kind;
typedef struct {
    char        *name;
    int          line, col;     /* position of the type's name */
    int          def_line, def_col; /* position of 'type' */
    typedef_kind kind;
    int         *field_lines, *field_cols; /* struct: position of each field name */
    char       **field_names;   /* struct */
    ast_type   **field_types;
    int          nfields;
    ast_type    *alias;         /* alias */
} ast_typedef;

typedef struct {
    char     *name;
    int       line, col;        /* position of the rule's name */
    int       def_line, def_col;/* position of 'def' */
    ast_type *type;             /* declared type or NULL */
    ast_expr *body;
    ast_term *action;           /* rule-level action or NULL */
    int       action_line, action_col; /* position of '->' */
} ast_rule;

typedef struct {
    char        *package;       /* NULL when absent */
    ast_rule    *rules;
    int          nrules;
    ast_typedef *types;
    int          ntypes;
} ast_grammar;

/* One grammar error: position and message (without the file name). */
typedef struct {
    int   line, col;
    char *msg;
} cc_error;

typedef struct {
    cc_error *items;
    int       n, cap;
    int       truncated;        /* more than the reported maximum were found */
    int       oom;              /* an error was lost to an allocation failure */
} cc_errors;

void cc_errors_add(cc_errors *e, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void cc_errors_addv(cc_errors *e, int line, int col, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
void cc_errors_free(cc_errors *e);

/* Most errors one stage reports (A.6). */
#define CC_MAX_ERRORS 100

/* Keeps at most CC_MAX_ERRORS of the errors added since index base: past that, the
 * first CC_MAX_ERRORS - 1 stay and the last one becomes "too many errors" (at the
 * position of the error it replaces), and truncated is set. */
void cc_errors_cap(cc_errors *e, int base);

/* Allocation for the compiler's front end (reader, checker, analysis): when
 * memory runs out they jump to cc_oom_jump, so callers need no failure path.
 * Their blocks are freed with cc_free, or all at once by cc_free_all, which
 * the jump's target calls. Errors (cc_errors) are not such blocks: they outlive
 * the compile in a pego_diag, and one lost to an allocation failure sets oom. */
void *cc_xmalloc(size_t n);
void *cc_xcalloc(size_t n, size_t size);
void *cc_xrealloc(void *p, size_t n);
char *cc_xstrndup(const char *s, size_t n);
char *cc_xtake(rt_buf *b);             /* b's text as such a block; frees b */
void  cc_free(void *p);
void  cc_free_all(void);               /* every block of this thread's compile */

/* Reads a grammar. Returns NULL and fills errs with the lexical and syntax errors
 * (at most 100; the last one then says there are more) when the text is malformed. */
ast_grammar *cc_parse(const char *src, size_t len, cc_errors *errs);

/* Definition and reference checks of A.6 (duplicates, undefined rules and captures,
 * misplaced captures, level calls, attributes), then "not supported yet: <feature>"
 * for constructs of tiers the engine does not implement yet. Resolves AST_CALL.rule.
 * Returns the number of errors added. */
int cc_check(ast_grammar *g, cc_errors *errs);
#ifdef PEGO_FAULT_INJECTION
/* Test builds only: the type checker is skipped, so that tests reach the run-time
 * checks of the action machine (docs/language.md 6.9) with grammars it refuses. */
extern int cc_fault_skip_typecheck;
#endif

/* The static type checker of Tier 6 (compiler/typecheck.c), run by cc_check
 * once the calls are resolved: the definition and reference errors of types,
 * actions and predicates, then, only when errs holds no error at all, the type
 * errors. Returns the number of errors added. */
int cc_typecheck(const ast_grammar *g, cc_errors *errs);

/* A rule or type definition, by position in the file. */
typedef struct {
    int is_type, index;
    int line, col;            /* position of 'def' or 'type' */
} cc_definition;

/* Rules and types merged in the order in which they appear in the file. */
cc_definition *cc_definitions(const ast_grammar *g);

/* Whether a type name is built in (int, string, bool, node, terminal) or a
 * reserved node type (Match, Seq, List, Operator, Error): no grammar defines it. */
int cc_is_reserved_type(const char *name);

void ast_grammar_free(ast_grammar *g);

/* Out of memory while compiling: unwinds to where cc_oom_jump points, set by
 * pego_compile around every stage (reader, checker, analysis, emitter), which
 * frees the blocks of the front end and reports it; the library never exits. */
extern _Thread_local jmp_buf *cc_oom_jump;
void cc_oom(void) __attribute__((noreturn));
void ast_expr_free(ast_expr *e);     /* NULL-safe, recursive */
void ast_term_free(ast_term *t);
void ast_type_free(ast_type *t);

#endif
