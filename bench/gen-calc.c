/* gen-calc: writes deterministic input of about BYTES bytes for the Pratt
 * benchmark of bench/run, in one of two languages:
 *
 *   gen-calc BYTES [SEED]          expressions of fixtures/calc_pratt.pego
 *   gen-calc --stmts BYTES [SEED]  statements of fixtures/stmts.pego
 *
 * Expressions: a top-level sum of terms (+ and -) with at most one comparison
 * (< <= ==, which do not associate); a term is a product (* and /) of unary
 * factors: an optional prefix -, an atom, an optional postfix ! (calc) and
 * optional right-associative powers ^ (calc); an atom is an integer, a name,
 * a call name(args) (calc) or a parenthesized expression, nested up to three
 * levels. Tokens are separated by zero or one space. Statements are
 * "let NAME = EXPR;" and "print EXPR;", one a line, over the operators
 * stmts.pego has (+ - * /, prefix -). bench/equivalents/ holds grammars of the
 * same languages written with rules, which accept the same input. The same
 * arguments always give the same bytes, on every platform. */

#define GEN_NAME "gen-calc"
#include "gen.h"

static int stmts;

static void space(void)
{
    if (pick(3) == 0) out(" ", 1);
}

static void name(void)
{
    static const char *const names[] = { "x", "y", "total", "n", "value", "f", "g", "width" };
    outs(names[pick(COUNT(names))]);
}

static void sum(int depth);

static void atom(int depth)
{
    char buf[24];
    unsigned k = pick(8);
    if (depth < 3 && k == 0) {
        out("(", 1);
        sum(depth + 1);
        space();
        out(")", 1);
    } else if (!stmts && depth < 3 && k == 1) {
        name();
        out("(", 1);
        for (unsigned i = 0, n = pick(3); i < n; i++) {
            if (i) { space(); out(",", 1); }
            sum(depth + 1);
        }
        space();
        out(")", 1);
    } else if (k < 4) {
        name();
    } else {
        int n = snprintf(buf, sizeof buf, "%u", pick(4) ? pick(1000) : pick(1000000));
        out(buf, (size_t)n);
    }
}

static void unary(int depth)
{
    space();
    if (pick(6) == 0) out("-", 1);
    atom(depth);
    if (stmts) return;
    while (pick(5) == 0) {
        space();
        out("^", 1);
        space();
        atom(depth);
    }
    if (pick(8) == 0) { space(); out("!", 1); }
}

static void product(int depth)
{
    unary(depth);
    for (unsigned i = 0, n = pick(3); i < n; i++) {
        space();
        out(pick(2) ? "*" : "/", 1);
        unary(depth);
    }
}

static void sum(int depth)
{
    product(depth);
    for (unsigned i = 0, n = pick(4); i < n; i++) {
        space();
        out(pick(2) ? "+" : "-", 1);
        product(depth);
    }
}

static void expression(void)
{
    static const char *const cmp[] = { "<", "<=", "==" };
    sum(0);
    if (!stmts && pick(4) == 0) {
        space();
        outs(cmp[pick(COUNT(cmp))]);
        sum(0);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--stmts") == 0) {
        stmts = 1;
        argv[1] = argv[0];
        argc--;
        argv++;
    }
    uint64_t bytes = gen_start(argc, argv);
    if (stmts) {
        while (written < bytes) {
            if (pick(2)) {
                outs("let ");
                name();
                outs(" = ");
            } else {
                outs("print ");
            }
            expression();
            outs(";\n");
        }
    } else {
        expression();
        while (written < bytes) {
            space();
            out(pick(2) ? "+" : "-", 1);
            product(0);
        }
    }
    return gen_finish();
}
