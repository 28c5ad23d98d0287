/* What the deterministic input generators (gen-json, gen-csv, gen-arith)
 * share: output with a byte count, the xorshift64* random numbers (small, fast
 * and identical on every platform, unlike rand()), and the command line
 * `NAME BYTES [SEED]`. A generator defines GEN_NAME, then includes this file. */
#ifndef PEGO_BENCH_GEN_H
#define PEGO_BENCH_GEN_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof (a) / sizeof (a)[0])

static uint64_t written;   /* bytes written so far */

/* Writes n bytes; exits on a write error (for example a closed pipe). */
static void out(const char *s, size_t n)
{
    if (fwrite(s, 1, n, stdout) != n) {
        perror(GEN_NAME ": write");
        exit(1);
    }
    written += n;
}

static inline void outs(const char *s) { out(s, strlen(s)); }

static uint64_t rng_state;

static uint64_t next_random(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

/* A number in [0, n). The slight modulo bias does not matter here. */
static unsigned pick(unsigned n) { return (unsigned)(next_random() >> 33) % n; }

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0') return -1;
    *v = x;
    return 0;
}

/* Reads BYTES [SEED] (the seed defaults to 1), seeds the random numbers and
 * buffers standard output; returns BYTES, or exits 2 with the usage line. */
static uint64_t gen_start(int argc, char **argv)
{
    uint64_t bytes, seed = 1;
    if (argc < 2 || argc > 3 || parse_u64(argv[1], &bytes) != 0 ||
        (argc == 3 && parse_u64(argv[2], &seed) != 0)) {
        fprintf(stderr, "usage: " GEN_NAME " BYTES [SEED]\n");
        exit(2);
    }
    rng_state = seed * UINT64_C(0x9E3779B97F4A7C15) + UINT64_C(0x2545F4914F6CDD1D);
    if (rng_state == 0) rng_state = 1;
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    return bytes;
}

/* Flushes the output; the exit status of the generator. */
static int gen_finish(void)
{
    if (fflush(stdout) != 0) {
        perror(GEN_NAME ": write");
        return 1;
    }
    return 0;
}

#endif
