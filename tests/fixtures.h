/* The fixtures every engine harness runs over: each grammar fixtures/NAME.pego
 * with each input in fixtures/NAME/ (golden outputs and the large demo input
 * left out); and a test run again with --profile on. */
#ifndef PEGO_TESTS_FIXTURES_H
#define PEGO_TESTS_FIXTURES_H

#include <stddef.h>

#include "pego.h"

/* The source directory (the environment variable srcdir, else "."). */
const char *fixtures_srcdir(void);

/* Calls fn for each fixture input; fn returns the number of differences it
 * found. Returns their sum, or -1 when the fixtures cannot be read or a grammar
 * does not compile. *grammars and *inputs receive the counts. */
typedef int (*fixture_fn)(const pego_grammar *g, const char *file, const char *input, size_t len, void *ctx);
int fixtures_each(fixture_fn fn, void *ctx, int *grammars, int *inputs);

/* Runs test in a child process with --profile on (pego_profile_start, with
 * options: NULL for none): returns 0 when its CUnit assertions all held there, 1
 * when some failed or profiling could not start, -1 when the child could not
 * run. No report is written. */
int run_profiled(void (*test)(void), const char *options);

#endif
