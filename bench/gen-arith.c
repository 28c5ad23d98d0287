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

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t written;

/* Output with a byte count; exits on a write error (for example a closed pipe). */
static void out(const char *s, size_t n)
{
    if (fwrite(s, 1, n, stdout) != n) {
        perror("gen-arith: write");
        exit(1);
    }
    written += n;
}

/* xorshift64*, as in gen-json: small, fast and identical everywhere. */
static uint64_t rng_state;

static uint64_t next_random(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

static unsigned pick(unsigned n)
{
    return (unsigned)(next_random() >> 33) % n;
}

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

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *v = x;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t bytes, seed = 1;
    if (argc < 2 || argc > 3 || parse_u64(argv[1], &bytes) != 0
        || (argc == 3 && parse_u64(argv[2], &seed) != 0)) {
        fprintf(stderr, "usage: gen-arith BYTES [SEED]\n");
        return 2;
    }
    rng_state = seed * UINT64_C(0x9E3779B97F4A7C15) + UINT64_C(0x2545F4914F6CDD1D);
    if (rng_state == 0)
        rng_state = 1;
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

    term(0);
    while (written < bytes) {
        out(pick(2) ? "+" : "-", 1);
        term(0);
    }
    if (fflush(stdout) != 0) {
        perror("gen-arith: write");
        return 1;
    }
    return 0;
}
