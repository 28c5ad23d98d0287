/* The report writer (report_writer.c): builds one report frame record by
 * record and writes it as one zstd frame of JSON Lines. Part of libpego and
 * needs only libzstd; nothing here prints: errors come back as a return code
 * and a message. */
#ifndef PEGO_RT_REPORT_WRITER_H
#define PEGO_RT_REPORT_WRITER_H

#include "report.h"

/* Expands a report file pattern: %p the process id, %h the host name, %t the
 * start time (Unix seconds), %% a percent sign; any other % sequence is kept as
 * it is. Returns a malloc'd string, or NULL when out of memory. */
char *rep_expand_path(const char *pattern, int64_t pid, const char *host, int64_t start);

/* The in-memory text of one report frame, built record by record. */
typedef struct rep_builder rep_builder;

/* Starts a frame with its header record; NULL when out of memory. */
rep_builder *rep_builder_new(const rep_header *h);
void         rep_builder_free(rep_builder *b);

/* Each adds one record. They return 0, or -1 when out of memory; after a
 * failure the builder keeps failing and rep_write_file() says so. A rule
 * record has repeats, max_repeats, max_repeats_pos and wasted only when the
 * header says detail. */
int rep_add_grammar(rep_builder *b, const rep_grammar *g);
int rep_add_parse(rep_builder *b, const rep_parse *p);
int rep_add_rule(rep_builder *b, const rep_rule *r);
int rep_add_edge(rep_builder *b, const rep_edge *e);
int rep_add_stack(rep_builder *b, const rep_stack *s);
int rep_add_line(rep_builder *b, const rep_line *l);
int rep_add_caller(rep_builder *b, const rep_caller *c);

/* The uncompressed records so far (without the footer), for tests and tools. */
const char *rep_builder_text(const rep_builder *b, size_t *len);

/* Writes the frame (records, then a footer counting parses and records) to
 * path as one zstd frame with a content checksum. append == 0: write a
 * temporary file beside path and rename it over path, so a reader never sees
 * half a report. append != 0: add the frame to the end of path under an
 * exclusive flock, one complete frame or nothing. path is never followed if it
 * is a symbolic link, and a new file gets mode 0644 less the umask. Returns 0,
 * or -1 with "cannot write profile PATH: REASON" in errbuf (errlen bytes). */
int rep_write_file(const rep_builder *b, const char *path, int append, char *errbuf, size_t errlen);

#ifdef PEGO_FAULT_INJECTION
/* Test builds (tests/survive.test): each write of a frame writes its first
 * half, then waits rep_fault_write_pause_ms milliseconds before the rest, so
 * that a test can kill the program in the middle of it; rep_fault_no_helper
 * makes the program write its frames itself, as where no helper process can
 * be made. */
extern unsigned rep_fault_write_pause_ms;
extern int      rep_fault_no_helper;
#endif

#endif
