/* What the grammar tests (test_parser, test_typecheck) compare: the errors of
 * a grammar as text. */
#ifndef PEGO_TESTS_GRAMMAR_ERRORS_H
#define PEGO_TESTS_GRAMMAR_ERRORS_H

#include "../compiler/ast.h"

/* Errors as "line:col: message" lines joined with '\n'; the caller frees it. */
char *grammar_errors_text(const cc_errors *e);

#endif
