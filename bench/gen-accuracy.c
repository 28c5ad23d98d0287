/* gen-accuracy: writes one part of an input of the profile-accuracy benchmark of
 * bench/run (the grammars in bench/accuracy), of about BYTES bytes, to standard output.
 *
 *   gen-accuracy KIND BYTES [SEED]
 *
 * Each kind feeds one part of a grammar, with its own first characters, so that the
 * parts of a grammar can be parsed alone or concatenated in the order of its main rule:
 *
 *   runs    lines of 2,000 to 6,000 lowercase letters     (mixed: runs; calls: text)
 *   words   lines of 4 to 12 capitalized words of 2 to 9 letters, separated by one space
 *                                                          (mixed: words)
 *   digits  lines of 60 to 100 digits                     (mixed: items)
 *   tries   lines "#", 20 to 80 lowercase letters, "."    (mixed: backtrack)
 *   commas  lines of 20 to 60 digits separated by commas  (calls: list)
 *
 * Every line ends in LF. The output stops at the first line boundary at or after
 * BYTES (0 writes nothing: the part is empty). The same KIND, BYTES and SEED (default
 * 1) always give the same bytes, on every platform. */

#define GEN_NAME "gen-accuracy"
#include "gen.h"

/* A number in [lo, hi]. */
static unsigned between(unsigned lo, unsigned hi) { return lo + pick(hi - lo + 1); }

static void letters(unsigned n, char first)
{
    char buf[64];
    while (n > 0) {
        unsigned k = n < sizeof buf ? n : (unsigned)sizeof buf;
        for (unsigned i = 0; i < k; i++)
            buf[i] = (char)('a' + pick(26));
        if (first) {
            buf[0] = first;
            first = 0;
        }
        out(buf, k);
        n -= k;
    }
}

static char digit(void) { return (char)('0' + pick(10)); }

static void line(const char *kind)
{
    if (strcmp(kind, "runs") == 0) {
        letters(between(2000, 6000), 0);
    } else if (strcmp(kind, "words") == 0) {
        for (unsigned i = 0, n = between(4, 12); i < n; i++) {
            if (i > 0)
                out(" ", 1);
            letters(between(2, 9), (char)('A' + pick(26)));
        }
    } else if (strcmp(kind, "digits") == 0) {
        for (unsigned i = 0, n = between(60, 100); i < n; i++) {
            char c = digit();
            out(&c, 1);
        }
    } else if (strcmp(kind, "tries") == 0) {
        out("#", 1);
        letters(between(20, 80), 0);
        out(".", 1);
    } else { /* commas */
        for (unsigned i = 0, n = between(20, 60); i < n; i++) {
            char c[2] = { ',', digit() };
            out(i > 0 ? c : c + 1, i > 0 ? 2 : 1);
        }
    }
    out("\n", 1);
}

int main(int argc, char **argv)
{
    static const char *const kinds[] = { "runs", "words", "digits", "tries", "commas" };
    const char *kind = argc > 1 ? argv[1] : "";
    size_t k;
    for (k = 0; k < COUNT(kinds) && strcmp(kind, kinds[k]) != 0; k++)
        ;
    if (k == COUNT(kinds)) {
        fprintf(stderr, "usage: " GEN_NAME " runs|words|digits|tries|commas BYTES [SEED]\n");
        return 2;
    }
    uint64_t bytes = gen_start(argc - 1, argv + 1);
    while (written < bytes)
        line(kind);
    return gen_finish();
}
