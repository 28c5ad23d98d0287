/* The report reader: streams report files (one or more zstd frames of JSON
 * Lines, docs/report-format.md) and directories of them, decoding one record
 * at a time into the structs of runtime/report.h and handing each to a sink. It checks
 * what the format promises (header first, known grammar and rule ids, the
 * footer's counts, the zstd checksum) and reports every problem as a one-line
 * message naming the file and the frame (past the 10th damaged line of a file,
 * lines are only counted); what it cannot use it skips, and after a frame it
 * cannot decode it finds the next one. Part of the pego command (it needs
 * jansson), not of libpego. */
#ifndef PEGO_REP_READER_H
#define PEGO_REP_READER_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/report.h"

/* The largest count: the format's counts are below 2^63 (docs/report-format.md,
 * Counts). A record's count beyond it is read as it, and sums of counts
 * saturate at it, so that every output prints the same digits. */
#define REP_COUNT_MAX ((uint64_t)INT64_MAX)

typedef enum { REP_REC_GRAMMAR, REP_REC_PARSE, REP_REC_RULE, REP_REC_EDGE, REP_REC_STACK, REP_REC_LINE,
               REP_REC_CALLER } rep_record_kind;

/* Where the records go. Records arrive between frame_begin and frame_end;
 * frame_end's complete is 0 when the frame turned out damaged (truncated, bad
 * checksum, no footer...), and its records must then be dropped. Pointers in a
 * record are valid only during the call. frame_begin and record return 0, or
 * -1 to stop reading (out of memory). */
typedef struct rep_reader_sink {
    void *ud;
    void (*message)(void *ud, const char *text);   /* "FILE: frame N ...", no "pego: " */
    int  (*frame_begin)(void *ud, const rep_header *h);
    int  (*record)(void *ud, rep_record_kind kind, const void *record);
    void (*frame_end)(void *ud, int complete);
} rep_reader_sink;

typedef struct rep_read_stats {
    uint64_t files;       /* report files opened */
    uint64_t frames;      /* complete frames handed to the sink */
    uint64_t problems;    /* messages given */
} rep_read_stats;

typedef struct rep_reader rep_reader;

/* NULL when out of memory. The sink is copied. */
/* Grows the array *buf of items of size sz, doubling its capacity *cap, to hold
 * n items; 0, or -1 when out of memory. Shared by the reader and the merge. */
int rep_reserve(void *buf, size_t *cap, size_t n, size_t sz);

rep_reader *rep_reader_new(const rep_reader_sink *sink);
void        rep_reader_free(rep_reader *r);

/* Reads a report file, or every *.zst file under a directory (recursively, in
 * name order). Returns 0, or -1 when reading must stop (out of memory, or the
 * sink said so). Problems with the input are messages, not failures. */
int rep_read_path(rep_reader *r, const char *path);

/* Reads report data from memory, named name in messages. */
int rep_read_memory(rep_reader *r, const char *name, const void *data, size_t len);

const rep_read_stats *rep_reader_stats(const rep_reader *r);
/* The files read to their end so far; may be called from another thread
 * while the reader reads (the progress of pego report). */
uint64_t rep_reader_files_done(const rep_reader *r);
/* The report files rep_read_path would read under path (1 for a file that is
 * no directory, 0 when it cannot be read), found the same way. */
uint64_t rep_count_reports(const char *path);

#endif
