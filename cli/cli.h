/* Shared pieces of the pego command: reading files, printing messages with the
 * "pego: " prefix, and the subcommand entry points. Exit statuses: 0 success,
 * 1 syntax, grammar or usage errors, 70 a malformed profiling option. */
#ifndef PEGO_CLI_H
#define PEGO_CLI_H

#include <stddef.h>

#include "pego.h"

#define EXIT_ERRORS 1

/* Reads a whole file ("-" or NULL: standard input). Returns 0, or an errno value. */
int   cli_read_file(const char *path, char **data, size_t *len);
void  cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Compiles the grammar at path; on failure prints the errors and returns NULL. */
pego_grammar *cli_load_grammar(const char *path);

int cmd_parse(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
