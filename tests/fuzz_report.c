/* libFuzzer target for the report reader (cli/report/reader.c) and what follows
 * it in pego report: merging, the tables and the diff in text, JSON and CSV,
 * and folded stacks.
 *
 * The first byte picks the input's form: odd, the rest is the decompressed
 * text of a frame (JSON Lines), compressed here into one zstd frame so that
 * the fuzzer works on the records rather than on zstd's checksums; even, the
 * rest is a report file as it is. Build: clang -fsanitize=fuzzer,address
 * (make fuzz). Bad input must give messages, never a crash, a leak or a hang. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#include "../cli/report/reader.h"
#include "../cli/report/summary.h"

static void ignore(void *ud, const char *text)
{
    (void)ud;
    (void)text;
}

static void summarize(const void *data, size_t len, FILE *sink)
{
    rep_summary_options so = { .grammar = NULL, .parse_limit = 10 };
    rep_summary *s = rep_summary_new(&so);
    if (!s) return;
    rep_reader_sink rs = { 0 };
    rep_summary_sink(s, &rs);
    rs.message = ignore;
    rep_reader *r = rep_reader_new(&rs);
    if (r && rep_read_memory(r, "fuzz.zst", data, len) == 0 && rep_summary_finish(s) == 0) {
        rep_table_options t = { REP_BY_SELF, 20, 10, 0, NULL, 0, REP_FORMAT_TEXT };
        char err[256];
        rep_print_tables(s, &t, sink, err, sizeof err);
        t.format = REP_FORMAT_JSON;
        t.rule = "value";
        rep_print_tables(s, &t, sink, err, sizeof err);
        t.format = REP_FORMAT_CSV;
        t.rule = NULL;
        rep_print_tables(s, &t, sink, err, sizeof err);
        t.format = REP_FORMAT_MARKDOWN;
        rep_print_tables(s, &t, sink, err, sizeof err);
        rep_print_folded(s, 0, sink);
        rep_threshold fail[] = { { REP_BY_CALLS, 5, 0 }, { REP_BY_SELF, 5, 1 } };
        rep_diff_options o = { REP_FORMAT_TEXT, 20, fail, 2, 1000000, REP_BY_CALLS, 1 };
        rep_print_diff(s, s, &o, sink, ignore, NULL);
        o.format = REP_FORMAT_MARKDOWN;
        rep_print_diff(s, s, &o, sink, ignore, NULL);
        o.format = REP_FORMAT_JSON;
        o.annotate_github = 0;
        rep_print_diff(s, s, &o, sink, ignore, NULL);
        o.format = REP_FORMAT_CSV;
        rep_print_diff(s, s, &o, sink, ignore, NULL);
    }
    rep_reader_free(r);
    rep_summary_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    if (!sink || size == 0) return 0;
    if (data[0] & 1) {
        size_t cap = ZSTD_compressBound(size - 1);
        void *frame = malloc(cap);
        if (!frame) return 0;
        size_t n = ZSTD_compress(frame, cap, data + 1, size - 1, 1);
        if (!ZSTD_isError(n)) summarize(frame, n, sink);
        free(frame);
    } else {
        summarize(data + 1, size - 1, sink);
    }
    return 0;
}
