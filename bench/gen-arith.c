/* gen-arith: writes a deterministic arithmetic expression of about BYTES bytes to
 * standard output, for the left-recursion benchmark of bench/run.
 *
 *   gen-arith BYTES [SEED]
 *
 * The expression is a long left-associative sum of terms (+ and -); a term is a product
 * of factors (* and /); a factor is an integer or a parenthesized expression, nested up
 * to four levels. There is no white space and no final newline, as fixtures/arith_lr.pego
 * wants (that grammar grows both expr and term by left recursion, through the memo
 * table). The same BYTES and SEED (default 1) always give the same bytes, on every
 * platform. The output stops at the first top-level term boundary at or after BYTES. */

#define GEN_NAME "gen-arith"
#include "gen.h"

static void expr(int depth, unsigned terms);

static void factor(int depth)
{
    if (depth < 4 && pick(6) == 0) {
        out("(", 1);
        expr(depth + 1, pick(3) + 1);
        out(")", 1);
        return;
    }
    char buf[24];
    int n;
    switch (pick(4)) {
    case 0:
        n = snprintf(buf, sizeof buf, "%u", pick(10));
        break;
    case 1:
        n = snprintf(buf, sizeof buf, "%u", pick(1000));
        break;
    default:
        n = snprintf(buf, sizeof buf, "%u", pick(1000000));
        break;
    }
    out(buf, (size_t)n);
}

static void term(int depth)
{
    factor(depth);
    for (unsigned i = 0, n = pick(4); i < n; i++) {
        out(pick(2) ? "*" : "/", 1);
        factor(depth);
    }
}

static void expr(int depth, unsigned terms)
{
    for (unsigned i = 0; i < terms; i++) {
        if (i > 0)
            out(pick(2) ? "+" : "-", 1);
        term(depth);
    }
}

int main(int argc, char **argv)
{
    uint64_t bytes = gen_start(argc, argv);

    term(0);
    while (written < bytes) {
        out(pick(2) ? "+" : "-", 1);
        term(0);
    }
    return gen_finish();
}
