/* A program with two call sites of pego_parse, in two named functions (linked
 * with -rdynamic, so that dladdr names them): load_small parses 6 times an
 * input of N bytes, load_big 3 times one of 10 N. Run with
 * PEGO_FLAGS="--profile=FILE --profile-native", pego report --callers FILE
 * must rank load_big first, with 3 parses, and load_small after, with 6.
 *
 * With the argument "sink" it parses the input of N bytes 3 times with a trace
 * sink that, at each call of the rule item, spends about 20 us in the function
 * spin_in_sink, below the VM: most of each parse's time is there, and the
 * samples of a sampled report with --profile-native must say so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"

static const char grammar[] = "def main = item (-\",\" item)* $$\ndef item = @(?^,)+\n";

/* n bytes of "abc,abc,...,abc" (n + 1 a multiple of 4) */
static char *make_input(size_t n)
{
    char *s = malloc(n + 1);
    if (!s) exit(2);
    for (size_t i = 0; i < n; i++) s[i] = i % 4 == 3 ? ',' : "abc"[i % 4];
    s[n] = 0;
    return s;
}

/* Not inlined and not a tail call (the result is used after the call): the
 * function keeps its own frame above pego_parse. */
__attribute__((noinline)) int load_small(pego_parser *p, const char *s, size_t n)
{
    const pego_result *r;
    int status = pego_parse(p, s, n, NULL, &r);
    return status == PEGO_OK ? 0 : 1;
}

__attribute__((noinline)) int load_big(pego_parser *p, const char *s, size_t n)
{
    const pego_result *r;
    int status = pego_parse(p, s, n, NULL, &r);
    return status == PEGO_OK ? 0 : 1;
}

/* Not inlined: the samples find it by name. */
__attribute__((noinline)) void spin_in_sink(void)
{
    for (volatile unsigned i = 0; i < 40000; i++) continue;
}

static int slow_sink(const pego_trace_event *ev, void *ud)
{
    (void)ud;
    if (ev->kind == PEGO_TRACE_ENTER && strcmp(ev->rule, "item") == 0) spin_in_sink();
    return 0;
}

int main(int argc, char **argv)
{
    int sink = argc > 1 && strcmp(argv[1], "sink") == 0;
    pego_diag *d = NULL;
    pego_grammar *g = pego_compile(grammar, strlen(grammar), "native", &d);
    if (!g) {
        fprintf(stderr, "%s\n", pego_diag_text(d));
        pego_diag_free(d);
        return 2;
    }
    pego_parser *p = pego_parser_new(g);
    int status = 0;
    size_t n = 20003;
    char *small = make_input(n), *big = make_input(10 * n + 9);
    if (sink) {
        pego_parser_set_trace(p, slow_sink, NULL);
        for (int i = 0; i < 3; i++) status |= load_small(p, small, n);
    } else {
        for (int i = 0; i < 6; i++) status |= load_small(p, small, n);
        for (int i = 0; i < 3; i++) status |= load_big(p, big, 10 * n + 9);
    }
    free(small);
    free(big);
    pego_parser_free(p);
    pego_grammar_free(g);
    return status;
}
