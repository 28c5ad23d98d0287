/* CUnit tests for report files: the writer (runtime/report_writer.c) and the
 * reader (cli/report/reader.c) in a round trip of every record and field;
 * the detail-only metrics written only with detail;
 * reports of the runtime profiler with each --profile-clock;
 * replace and append modes (no temporary file left, no half file, 8 processes
 * appending at once); %p %h %t %% expansion; symbolic links refused; file
 * modes; every damaged-input case with its exact message, the frames found
 * again after one that cannot be read, at most 10 damaged lines named per
 * file, counts beyond 2^63 - 1; merging
 * (cli/report/merge.c) of two processes, of two grammars that share a name,
 * and of frames with and without detail;
 * the SVG flame graph (cli/report/flame.c) validated with xmllint and
 * measured, and the speedscope file. The command-line outputs of pego report
 * are golden tests in tests/golden/report/. */
#include <CUnit/Basic.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "pego.h"

#include "../cli/report/reader.h"
#include "../cli/report/summary.h"
#include "../runtime/report_writer.h"

static char dir[256];   /* a fresh temporary directory per run */

static int suite_init(void)
{
    snprintf(dir, sizeof dir, "%s/pego-test-report-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A path inside the temporary directory (rotating static buffers). */
static const char *tmp(const char *fmt, ...)
{
    static char bufs[8][512];
    static int k;
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    char *b = bufs[k++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

/* ---- a sink that records everything as text ---- */

typedef struct capture {
    char  **lines;      /* records as canonical text, "message: ..." for messages */
    size_t  n;
    int     begun, ended_ok, ended_bad;
} capture;

static void add_line(capture *c, const char *text)
{
    c->lines = realloc(c->lines, (c->n + 1) * sizeof *c->lines);
    c->lines[c->n++] = strdup(text);
}

static void capture_free(capture *c)
{
    for (size_t i = 0; i < c->n; i++) free(c->lines[i]);
    free(c->lines);
    memset(c, 0, sizeof *c);
}

static int has_line(const capture *c, const char *text)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->lines[i], text) == 0) return 1;
    return 0;
}

static size_t count_prefix(const capture *c, const char *prefix)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) k += strncmp(c->lines[i], prefix, strlen(prefix)) == 0;
    return k;
}

static void fmt_header(char *b, size_t n, const rep_header *h)
{
    int k = snprintf(b, n, "header v%d pego=%s pid=%lld host=%s start=%lld clock=%s mode=%s detail=%d reads=%llu argv=",
                     h->version, h->pego, (long long)h->pid, h->host, (long long)h->start, h->clock, h->mode,
                     h->detail, (unsigned long long)h->clock_reads);
    for (int i = 0; i < h->argc && k > 0 && (size_t)k < n; i++)
        k += snprintf(b + k, n - (size_t)k, "[%s]", h->argv[i]);
}

static void fmt_record(char *b, size_t n, rep_record_kind kind, const void *rec)
{
    int k = 0;
    switch (kind) {
    case REP_REC_GRAMMAR: {
        const rep_grammar *g = rec;
        k = snprintf(b, n, "grammar %u %s %s %016llx", g->id, g->name, g->file, (unsigned long long)g->hash);
        for (size_t i = 0; i < g->nrules && (size_t)k < n; i++)
            k += snprintf(b + k, n - (size_t)k, " %s@%u:%u", g->rules[i].name, g->rules[i].line, g->rules[i].col);
        break;
    }
    case REP_REC_PARSE: {
        const rep_parse *p = rec;
        snprintf(b, n, "parse %llu g%u [%s] %llu u%d r%d %llu %llu %llu %llu %llu top=%d", (unsigned long long)p->id,
                 p->grammar, p->input, (unsigned long long)p->bytes, (int)p->unit, (int)p->result,
                 (unsigned long long)p->time_ns, (unsigned long long)p->calls, (unsigned long long)p->evals,
                 (unsigned long long)p->memo, (unsigned long long)p->clock_reads,
                 p->top_rule == REP_NO_RULE ? -1 : (int)p->top_rule);
        break;
    }
    case REP_REC_RULE: {
        const rep_rule *r = rec;
        snprintf(b, n, "rule g%u r%u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", r->grammar, r->rule,
                 (unsigned long long)r->calls, (unsigned long long)r->evals, (unsigned long long)r->memo,
                 (unsigned long long)r->matched, (unsigned long long)r->failed, (unsigned long long)r->repeats,
                 (unsigned long long)r->max_repeats, (unsigned long long)r->max_repeats_pos,
                 (unsigned long long)r->consumed, (unsigned long long)r->wasted, (unsigned long long)r->time_ns,
                 (unsigned long long)r->self_ns);
        break;
    }
    case REP_REC_EDGE: {
        const rep_edge *e = rec;
        snprintf(b, n, "edge g%u %u->%u %llu %llu", e->grammar, e->caller, e->callee, (unsigned long long)e->calls,
                 (unsigned long long)e->time_ns);
        break;
    }
    case REP_REC_STACK: {
        const rep_stack *s = rec;
        k = snprintf(b, n, "stack g%u", s->grammar);
        for (size_t i = 0; i < s->nframes && (size_t)k < n; i++)
            k += snprintf(b + k, n - (size_t)k, "%s%u", i ? "," : " ", s->frames[i]);
        if ((size_t)k < n)
            k += snprintf(b + k, n - (size_t)k, " %llu %llu", (unsigned long long)s->calls, (unsigned long long)s->self_ns);
        for (size_t i = 0; i < s->nnative && k > 0 && (size_t)k < n; i++)
            k += snprintf(b + k, n - (size_t)k, " [%s]", s->native[i]);
        break;
    }
    case REP_REC_LINE: {
        const rep_line *l = rec;
        snprintf(b, n, "line g%u %u:%u %llu %llu", l->grammar, l->line, l->col, (unsigned long long)l->samples,
                 (unsigned long long)l->self_ns);
        break;
    }
    case REP_REC_CALLER: {
        const rep_caller *c = rec;
        k = snprintf(b, n, "caller %llu %llu", (unsigned long long)c->parses, (unsigned long long)c->time_ns);
        for (size_t i = 0; i < c->nframes && k > 0 && (size_t)k < n; i++)
            k += snprintf(b + k, n - (size_t)k, " [%s]", c->frames[i]);
        break;
    }
    }
}

static void on_message(void *ud, const char *text)
{
    char b[1024];
    snprintf(b, sizeof b, "message: %s", text);
    add_line(ud, b);
}

static int on_begin(void *ud, const rep_header *h)
{
    char b[1024];
    fmt_header(b, sizeof b, h);
    add_line(ud, b);
    ((capture *)ud)->begun++;
    return 0;
}

static int on_record(void *ud, rep_record_kind kind, const void *rec)
{
    char b[4096];
    fmt_record(b, sizeof b, kind, rec);
    add_line(ud, b);
    return 0;
}

static void on_end(void *ud, int complete)
{
    capture *c = ud;
    if (complete) c->ended_ok++;
    else c->ended_bad++;
    add_line(c, complete ? "end ok" : "end dropped");
}

/* Reads path into c; returns the reader's stats. */
static rep_read_stats read_into(capture *c, const char *path)
{
    rep_reader_sink sink = { c, on_message, on_begin, on_record, on_end };
    rep_reader *r = rep_reader_new(&sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(rep_read_path(r, path), 0);
    rep_read_stats st = *rep_reader_stats(r);
    rep_reader_free(r);
    return st;
}

/* ---- building reports ---- */

static const char *const test_argv[] = { "pego", "parse", "-g", "json.pego", "a \"b\".json" };

static rep_header header(int64_t pid)
{
    rep_header h = { REP_FORMAT_VERSION, "0.1.0", pid, "ci-7", 5, test_argv, 1764434400, "monotonic", "exact", 1, 72, 0, 0, 0, 0, 0 };
    return h;
}

static const rep_rule_info json_rules[] = { { "main", 1, 1 }, { "value", 2, 1 }, { "string", 3, 5 } };

/* A small report of one process: one grammar, two parses, rules, edges and stacks. */
static rep_builder *small_report(int64_t pid, uint64_t scale)
{
    rep_header h = header(pid);
    rep_builder *b = rep_builder_new(&h);
    rep_grammar g = { 1, "json", "json.pego", 0xabcdef0123456789ULL, 3, json_rules, NULL, 0 };
    rep_parse p1 = { 1, 1, "a.json", 100, REP_UNIT_BYTES, REP_RESULT_OK, REP_SOURCE_TEXT, 5000 * scale, 30, 25, 5, 60, 1, 0, 0, 0, 0, 0 };
    rep_parse p2 = { 2, 1, "b.json", 10, REP_UNIT_BYTES, REP_RESULT_SYNTAX_ERROR, REP_SOURCE_TEXT, 1000 * scale, 6, 6, 0, 12, 2, 0, 0, 0, 0, 0 };
    rep_rule r0 = { 1, 0, 2, 2, 0, 1, 1, 0, 0, 0, 100, 0, 6000 * scale, 1000 * scale, 0, 0, 0, 0, 0 };
    rep_rule r1 = { 1, 1, 20, 15, 5, 18, 2, 3, 2, 7, 90, 4, 5000 * scale, 3000 * scale, 0, 0, 0, 0, 0 };
    rep_rule r2 = { 1, 2, 14, 14, 0, 10, 4, 0, 0, 0, 40, 70, 2000 * scale, 2000 * scale, 0, 0, 0, 0, 0 };
    rep_edge e[] = { { 1, 0, 1, 2, 5000 * scale }, { 1, 1, 1, 4, 1000 * scale }, { 1, 1, 2, 14, 2000 * scale } };
    uint32_t f0[] = { 0 }, f1[] = { 0, 1 }, f2[] = { 0, 1, 2 };
    rep_stack s[] = { { 1, 1, f0, 2, 1000 * scale, 0, 0, 0, NULL, 0 }, { 1, 2, f1, 20, 3000 * scale, 0, 0, 0, NULL, 0 },
                      { 1, 3, f2, 14, 2000 * scale, 0, 0, 0, NULL, 0 } };
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(rep_add_grammar(b, &g), 0);
    CU_ASSERT_EQUAL(rep_add_parse(b, &p1), 0);
    CU_ASSERT_EQUAL(rep_add_parse(b, &p2), 0);
    CU_ASSERT_EQUAL(rep_add_rule(b, &r0), 0);
    CU_ASSERT_EQUAL(rep_add_rule(b, &r1), 0);
    CU_ASSERT_EQUAL(rep_add_rule(b, &r2), 0);
    for (size_t i = 0; i < 3; i++) CU_ASSERT_EQUAL(rep_add_edge(b, &e[i]), 0);
    for (size_t i = 0; i < 3; i++) CU_ASSERT_EQUAL(rep_add_stack(b, &s[i]), 0);
    return b;
}

static void write_report(rep_builder *b, const char *path, int append)
{
    char err[512] = "";
    int rc = rep_write_file(b, path, append, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc) fprintf(stderr, "%s\n", err);
    rep_builder_free(b);
}

/* Appends text as one zstd frame (with a checksum) to path, bypassing the writer. */
static void append_raw_frame(const char *path, const char *text)
{
    size_t cap = ZSTD_compressBound(strlen(text));
    void *out = malloc(cap);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    size_t n = ZSTD_compress2(c, out, cap, text, strlen(text));
    CU_ASSERT_FATAL(!ZSTD_isError(n));
    FILE *f = fopen(path, "ab");
    CU_ASSERT_EQUAL(fwrite(out, 1, n, f), n);
    fclose(f);
    ZSTD_freeCCtx(c);
    free(out);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Changes the byte at offset off of path. */
static void flip_byte(const char *path, long off)
{
    int fd = open(path, O_RDWR);
    unsigned char byte;
    CU_ASSERT_EQUAL(pread(fd, &byte, 1, off), 1);
    byte ^= 0x40;
    CU_ASSERT_EQUAL(pwrite(fd, &byte, 1, off), 1);
    close(fd);
}

/* Appends len bytes to path. */
static void append_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "ab");
    CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* The contents of path (free it); *len set. */
static unsigned char *file_bytes(const char *path, size_t *len)
{
    long n = file_size(path);
    unsigned char *data = malloc(n > 0 ? (size_t)n : 1);
    FILE *f = fopen(path, "rb");
    *len = f ? fread(data, 1, (size_t)n, f) : 0;
    if (f) fclose(f);
    CU_ASSERT_EQUAL(*len, (size_t)n);
    return data;
}

/* ---- round trip ---- */

static void test_round_trip(void)
{
    const char *path = tmp("round.zst");
    rep_header h = header(4242);
    rep_builder *b = rep_builder_new(&h);
    static const rep_rule_info calc_rules[] = { { "expr", 10, 1 }, { "term", 11, 3 } };
    rep_grammar g1 = { 1, "json", "dir/json.pego", 0xabcdef0123456789ULL, 3, json_rules, NULL, 0 };
    rep_grammar g2 = { 7, "calc \"x\"", "", 0x1ULL, 2, calc_rules, NULL, 0 };
    /* names with characters JSON must escape, UTF-8 kept, an invalid byte read as U+FFFD */
    rep_parse p1 = { 1, 1, "in \"q\" \\ \n\t\x01 \xc3\xa9 \xff", 123456, REP_UNIT_CODEPOINTS, REP_RESULT_OK, REP_SOURCE_TEXT, 812345,
                     20433, 20001, 432, 40868, 2, 0, 0, 0, 0, 0 };
    rep_parse p2 = { 2, 7, "-i", 3, REP_UNIT_BYTES, REP_RESULT_SYNTAX_ERROR, REP_SOURCE_TEXT, 5, 6, 7, 8, 9, REP_NO_RULE, 0, 0, 0, 0, 0 };
    rep_parse p3 = { 3, 7, "<stdin>", 0, REP_UNIT_BYTES, REP_RESULT_ABORTED, REP_SOURCE_TEXT, 1, 2, 3, 4, 5, 1, 0, 0, 0, 0, 0 };
    rep_rule r = { 1, 2, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 0, 0, 0, 0, 0 };
    rep_rule big = { 7, 0, 9007199254740993ULL, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 0, 0, 0, 0 };
    rep_edge e = { 7, 0, 1, 31, 32 };
    uint32_t frames[] = { 0, 1, 2, 1 };
    rep_stack s = { 1, 4, frames, 41, 42, 0, 0, 0, NULL, 0 };
    static const char *const native[] = { "rt_memo_get (libpego.so.0)", "sink \"q\" \xc3\xa9 (prog)" };
    rep_stack sn = { 1, 1, frames, 0, 43, 3, 5, 2, native, 0 };   /* sampled, with native frames */
    CU_ASSERT_EQUAL(rep_add_grammar(b, &g1), 0);
    CU_ASSERT_EQUAL(rep_add_grammar(b, &g2), 0);
    CU_ASSERT_EQUAL(rep_add_parse(b, &p1), 0);
    CU_ASSERT_EQUAL(rep_add_parse(b, &p2), 0);
    CU_ASSERT_EQUAL(rep_add_parse(b, &p3), 0);
    CU_ASSERT_EQUAL(rep_add_rule(b, &r), 0);
    CU_ASSERT_EQUAL(rep_add_rule(b, &big), 0);
    CU_ASSERT_EQUAL(rep_add_edge(b, &e), 0);
    CU_ASSERT_EQUAL(rep_add_stack(b, &s), 0);
    CU_ASSERT_EQUAL(rep_add_stack(b, &sn), 0);
    write_report(b, path, 0);

    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    CU_ASSERT_EQUAL(st.frames, 1);
    CU_ASSERT_EQUAL(st.problems, 0);
    CU_ASSERT_EQUAL(st.files, 1);
    const char *want[] = {
        ("header v1 pego=0.1.0 pid=4242 host=ci-7 start=1764434400 clock=monotonic mode=exact detail=1 reads=72 "
         "argv=[pego][parse][-g][json.pego][a \"b\".json]"),
        "grammar 1 json dir/json.pego abcdef0123456789 main@1:1 value@2:1 string@3:5",
        "grammar 7 calc \"x\"  0000000000000001 expr@10:1 term@11:3",
        "parse 1 g1 [in \"q\" \\ \n\t\x01 \xc3\xa9 \xef\xbf\xbd] 123456 u1 r0 812345 20433 20001 432 40868 top=2",
        "parse 2 g7 [-i] 3 u0 r1 5 6 7 8 9 top=-1",
        "parse 3 g7 [<stdin>] 0 u0 r2 1 2 3 4 5 top=1",
        "rule g1 r2 11 12 13 14 15 16 17 18 19 20 21 22",
        "rule g7 r0 9007199254740993 1 2 3 4 5 6 7 8 9 10 11",
        "edge g7 0->1 31 32",
        "stack g1 0,1,2,1 41 42",
        "stack g1 0 0 43 [rt_memo_get (libpego.so.0)] [sink \"q\" \xc3\xa9 (prog)]",
        "end ok",
    };
    CU_ASSERT_EQUAL(c.n, sizeof want / sizeof *want);
    for (size_t i = 0; i < c.n && i < sizeof want / sizeof *want; i++) {
        CU_ASSERT_STRING_EQUAL(c.lines[i], want[i]);
    }
    capture_free(&c);
}

/* The decompressed frame: the builder's records, then the footer. */
static void test_footer(void)
{
    const char *path = tmp("footer.zst");
    rep_builder *b = small_report(1, 1);
    size_t len;
    const char *text = rep_builder_text(b, &len);
    char *expect = malloc(len + 64);
    memcpy(expect, text, len);
    strcpy(expect + len, "{\"type\":\"footer\",\"parses\":2,\"records\":14}\n");
    CU_ASSERT_EQUAL(strncmp(text, "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1,\"pego\":\"0.1.0\","
                                  "\"pid\":1,\"host\":\"ci-7\",\"argv\":[\"pego\",\"parse\",\"-g\",\"json.pego\","
                                  "\"a \\\"b\\\".json\"],\"start\":\"2025-11-29T16:40:00Z\",\"clock\":\"monotonic\","
                                  "\"mode\":\"exact\",\"detail\":true,\"clock_reads\":72}\n", 234), 0);
    write_report(b, path, 0);
    FILE *f = fopen(path, "rb");
    static char comp[1 << 16], plain[1 << 16];
    size_t n = fread(comp, 1, sizeof comp, f);
    fclose(f);
    CU_ASSERT_EQUAL(ZSTD_getFrameContentSize(comp, n), strlen(expect));
    CU_ASSERT_EQUAL(ZSTD_findFrameCompressedSize(comp, n), n);   /* exactly one frame */
    size_t m = ZSTD_decompress(plain, sizeof plain, comp, n);
    CU_ASSERT_FATAL(!ZSTD_isError(m));
    plain[m] = '\0';
    CU_ASSERT_STRING_EQUAL(plain, expect);
    free(expect);
}

/* The detail-only metrics (repeats, max_repeats, max_repeats_pos, wasted) are
 * written only when the header says detail: without it a rule record does
 * not have them, rather than having zeros. */
static void test_detail_fields(void)
{
    const char *want[] = {
        "{\"type\":\"rule\",\"grammar\":1,\"rule\":1,\"calls\":20,\"evals\":15,\"memo\":5,\"matched\":18,"
        "\"failed\":2,\"consumed\":90,\"time_ns\":5000,\"self_ns\":3000}\n",
        "{\"type\":\"rule\",\"grammar\":1,\"rule\":1,\"calls\":20,\"evals\":15,\"memo\":5,\"matched\":18,"
        "\"failed\":2,\"repeats\":3,\"max_repeats\":2,\"max_repeats_pos\":7,\"consumed\":90,\"wasted\":4,"
        "\"time_ns\":5000,\"self_ns\":3000}\n",
    };
    for (int detail = 0; detail < 2; detail++) {
        rep_header h = header(1);
        h.detail = detail;
        rep_builder *b = rep_builder_new(&h);
        rep_grammar g = { 1, "json", "json.pego", 1, 3, json_rules, NULL, 0 };
        rep_rule r = { 1, 1, 20, 15, 5, 18, 2, 3, 2, 7, 90, 4, 5000, 3000, 0, 0, 0, 0, 0 };
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        CU_ASSERT_EQUAL(rep_add_grammar(b, &g), 0);
        CU_ASSERT_EQUAL(rep_add_rule(b, &r), 0);
        size_t len;
        const char *rule = strstr(rep_builder_text(b, &len), "{\"type\":\"rule\"");
        CU_ASSERT_PTR_NOT_NULL_FATAL(rule);
        CU_ASSERT_STRING_EQUAL(rule, want[detail]);
        rep_builder_free(b);
    }
}

/* The memory metrics are written only when the header says memory: in the
 * header, rule, parse and stack records; without it those have none of the
 * fields. */
static void test_memory_fields(void)
{
    const char *want[2][4] = {
        { "\"detail\":true,\"clock_reads\":72}\n",
          "{\"type\":\"parse\",\"id\":1,\"grammar\":1,\"input\":\"a\",\"bytes\":5,\"unit\":\"bytes\",\"result\":\"ok\","
          "\"time_ns\":6,\"calls\":7,\"evals\":8,\"memo\":9,\"clock_reads\":10,\"top_rule\":1}\n",
          "{\"type\":\"rule\",\"grammar\":1,\"rule\":1,\"calls\":20,\"evals\":15,\"memo\":5,\"matched\":18,"
          "\"failed\":2,\"repeats\":3,\"max_repeats\":2,\"max_repeats_pos\":7,\"consumed\":90,\"wasted\":4,"
          "\"time_ns\":5000,\"self_ns\":3000}\n",
          "{\"type\":\"stack\",\"grammar\":1,\"frames\":[0,1],\"calls\":2,\"self_ns\":3}\n" },
        { "\"detail\":true,\"memory\":true,\"clock_reads\":72}\n",
          "{\"type\":\"parse\",\"id\":1,\"grammar\":1,\"input\":\"a\",\"bytes\":5,\"unit\":\"bytes\",\"result\":\"ok\","
          "\"time_ns\":6,\"calls\":7,\"evals\":8,\"memo\":9,\"clock_reads\":10,\"top_rule\":1,\"node_bytes\":11,"
          "\"memo_bytes\":12,\"peak_node_bytes\":13,\"peak_memo_bytes\":14,\"peak_stack_bytes\":15}\n",
          "{\"type\":\"rule\",\"grammar\":1,\"rule\":1,\"calls\":20,\"evals\":15,\"memo\":5,\"matched\":18,"
          "\"failed\":2,\"repeats\":3,\"max_repeats\":2,\"max_repeats_pos\":7,\"consumed\":90,\"wasted\":4,"
          "\"time_ns\":5000,\"self_ns\":3000,\"nodes\":16,\"node_bytes\":17,\"memo_entries\":18,\"memo_bytes\":19}\n",
          "{\"type\":\"stack\",\"grammar\":1,\"frames\":[0,1],\"calls\":2,\"self_ns\":3,\"node_bytes\":20}\n" },
    };
    for (int memory = 0; memory < 2; memory++) {
        rep_header h = header(1);
        h.memory = memory;
        rep_builder *b = rep_builder_new(&h);
        rep_grammar g = { 1, "json", "json.pego", 1, 3, json_rules, NULL, 0 };
        rep_parse p = { 1, 1, "a", 5, REP_UNIT_BYTES, REP_RESULT_OK, REP_SOURCE_TEXT, 6, 7, 8, 9, 10, 1, 11, 12, 13, 14, 15 };
        rep_rule r = { 1, 1, 20, 15, 5, 18, 2, 3, 2, 7, 90, 4, 5000, 3000, 0, 16, 17, 18, 19 };
        uint32_t frames[] = { 0, 1 };
        rep_stack st = { 1, 2, frames, 2, 3, 0, 0, 0, NULL, 20 };
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        CU_ASSERT_EQUAL(rep_add_grammar(b, &g), 0);
        CU_ASSERT_EQUAL(rep_add_parse(b, &p), 0);
        CU_ASSERT_EQUAL(rep_add_rule(b, &r), 0);
        CU_ASSERT_EQUAL(rep_add_stack(b, &st), 0);
        size_t len;
        const char *text = rep_builder_text(b, &len);
        const char *at[] = { strstr(text, "\"detail\""), strstr(text, "{\"type\":\"parse\""),
                             strstr(text, "{\"type\":\"rule\""), strstr(text, "{\"type\":\"stack\"") };
        for (int i = 0; i < 4; i++) {
            CU_ASSERT_PTR_NOT_NULL_FATAL(at[i]);
            const char *end = strchr(at[i], '\n');
            CU_ASSERT_FATAL(end != NULL);
            CU_ASSERT_EQUAL(strncmp(at[i], want[memory][i], (size_t)(end - at[i]) + 1), 0);
            CU_ASSERT_EQUAL(strlen(want[memory][i]), (size_t)(end - at[i]) + 1);
        }
        rep_builder_free(b);
    }
}

/* ---- writing files ---- */

static size_t count_dir_entries(const char *path)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", path);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    if (fscanf(p, "%zu", &n) != 1) n = (size_t)-1;
    pclose(p);
    return n;
}

static void test_replace_mode(void)
{
    char sub[512];
    snprintf(sub, sizeof sub, "%s", tmp("replace"));
    CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/out.zst", sub);
    write_report(small_report(1, 1), path, 0);
    /* a reader that opened the old report keeps seeing it whole */
    int old = open(path, O_RDONLY);
    long old_size = file_size(path);
    write_report(small_report(2, 3), path, 0);
    CU_ASSERT_EQUAL(count_dir_entries(sub), 1);   /* no temporary file left */
    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    CU_ASSERT_EQUAL(st.frames, 1);   /* replaced, not appended */
    CU_ASSERT_EQUAL(st.problems, 0);
    CU_ASSERT_EQUAL(count_prefix(&c, "header v1 pego=0.1.0 pid=2 "), 1);
    capture_free(&c);
    static char data[1 << 16];
    ssize_t n = read(old, data, sizeof data);
    close(old);
    CU_ASSERT_EQUAL(n, old_size);
    rep_reader_sink sink = { &c, on_message, on_begin, on_record, on_end };
    rep_reader *r = rep_reader_new(&sink);
    CU_ASSERT_EQUAL(rep_read_memory(r, "old", data, (size_t)n), 0);
    CU_ASSERT_EQUAL(rep_reader_stats(r)->frames, 1);
    CU_ASSERT_EQUAL(rep_reader_stats(r)->problems, 0);
    rep_reader_free(r);
    CU_ASSERT_EQUAL(count_prefix(&c, "header v1 pego=0.1.0 pid=1 "), 1);
    capture_free(&c);

    /* a failed write says why and leaves nothing behind: a regular file
     * stands where a directory of the path should be */
    char err[512];
    char bad[600];
    const char *in_the_way = tmp("in-the-way");
    FILE *f = fopen(in_the_way, "w");
    CU_ASSERT_FATAL(f != NULL);
    fclose(f);
    snprintf(bad, sizeof bad, "%s/missing/out.zst", in_the_way);
    rep_builder *b = small_report(3, 1);
    CU_ASSERT_EQUAL(rep_write_file(b, bad, 0, err, sizeof err), -1);
    char want[700];
    snprintf(want, sizeof want, "cannot write profile %s: Not a directory", bad);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_EQUAL(rep_write_file(b, bad, 1, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, want);
    /* a directory in the way is not a regular file: refused, nothing left behind */
    CU_ASSERT_EQUAL(rep_write_file(b, sub, 0, err, sizeof err), -1);
    snprintf(want, sizeof want, "cannot write profile %s: not a regular file", sub);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_EQUAL(count_dir_entries(tmp("")), count_dir_entries(tmp("")));
    rep_builder_free(b);
    CU_ASSERT_EQUAL(count_dir_entries(sub), 1);
}

/* 8 processes append to one file at once: 8 whole frames. */
static void test_append_concurrent(void)
{
    const char *path = tmp("append.zst");
    int gate[2];
    CU_ASSERT_EQUAL_FATAL(pipe(gate), 0);
    pid_t kids[8];
    for (int k = 0; k < 8; k++) {
        kids[k] = fork();
        CU_ASSERT_FATAL(kids[k] >= 0);
        if (kids[k] == 0) {
            close(gate[1]);
            char c;
            rep_builder *b = small_report(100 + k, 1);
            /* parse records with varied names: a frame far larger than a pipe buffer or a page */
            for (unsigned i = 0; i < 3000; i++) {
                char input[64];
                snprintf(input, sizeof input, "corpus/%d/%u-%u.json", k, i * 2654435761u, i);
                rep_parse p = { 3 + i, 1, input, i, REP_UNIT_BYTES, REP_RESULT_OK, REP_SOURCE_TEXT, i * 7919u % 10007u, i, i, 0, 2 * i, 0, 0, 0, 0, 0, 0 };
                rep_add_parse(b, &p);
            }
            if (read(gate[0], &c, 1) < 0) _exit(3);   /* returns when the parent closes the pipe */
            char err[512];
            int rc = rep_write_file(b, path, 1, err, sizeof err);
            rep_builder_free(b);
            _exit(rc == 0 ? 0 : 1);
        }
    }
    close(gate[0]);
    close(gate[1]);
    for (int k = 0; k < 8; k++) {
        int status = -1;
        waitpid(kids[k], &status, 0);
        CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    CU_ASSERT(file_size(path) > 8 * 65536);
    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    CU_ASSERT_EQUAL(st.frames, 8);
    CU_ASSERT_EQUAL(st.problems, 0);
    CU_ASSERT_EQUAL(c.ended_ok, 8);
    for (int k = 0; k < 8; k++) {
        char want[64];
        snprintf(want, sizeof want, "header v1 pego=0.1.0 pid=%d ", 100 + k);
        CU_ASSERT_EQUAL(count_prefix(&c, want), 1);
    }
    CU_ASSERT_EQUAL(count_prefix(&c, "parse "), 8 * 3002);
    capture_free(&c);
}

static void test_expand_path(void)
{
    struct { const char *pattern, *want; } cases[] = {
        { "%p.zst", "4242.zst" },
        { "prof/%h-%t-%p.zst", "prof/ci-7-1764434400-4242.zst" },
        { "100%%/%p", "100%/4242" },
        { "%%p", "%p" },
        { "a%xb", "a%xb" },
        { "end%", "end%" },
        { "", "" },
        { "plain.zst", "plain.zst" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = rep_expand_path(cases[i].pattern, 4242, "ci-7", 1764434400);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_STRING_EQUAL(got, cases[i].want);
        free(got);
    }
    char *got = rep_expand_path("%p", getpid(), "h", 0);
    char want[32];
    snprintf(want, sizeof want, "%ld", (long)getpid());
    CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
}

static void test_symlink_refused(void)
{
    const char *target = tmp("victim.txt"), *link = tmp("planted.zst");
    FILE *f = fopen(target, "w");
    fputs("precious\n", f);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
    char err[512], want[700];
    snprintf(want, sizeof want, "cannot write profile %s: Too many levels of symbolic links", link);
    rep_builder *b = small_report(1, 1);
    CU_ASSERT_EQUAL(rep_write_file(b, link, 0, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_EQUAL(rep_write_file(b, link, 1, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, want);
    rep_builder_free(b);
    CU_ASSERT_EQUAL(file_size(target), 9);
    struct stat st;
    CU_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
}

static void test_file_mode(void)
{
    mode_t old = umask(022);
    write_report(small_report(1, 1), tmp("mode1.zst"), 0);
    write_report(small_report(1, 1), tmp("mode2.zst"), 1);
    umask(077);
    write_report(small_report(1, 1), tmp("mode3.zst"), 0);
    write_report(small_report(1, 1), tmp("mode4.zst"), 1);
    umask(old);
    struct stat st;
    CU_ASSERT(stat(tmp("mode1.zst"), &st) == 0 && (st.st_mode & 0777) == 0644);
    CU_ASSERT(stat(tmp("mode2.zst"), &st) == 0 && (st.st_mode & 0777) == 0644);
    CU_ASSERT(stat(tmp("mode3.zst"), &st) == 0 && (st.st_mode & 0777) == 0600);
    CU_ASSERT(stat(tmp("mode4.zst"), &st) == 0 && (st.st_mode & 0777) == 0600);
}

/* ---- damaged input ---- */

/* Reads path and checks its problems are exactly the messages given (NULL-terminated). */
static void expect_messages(const capture *c, const char *const *want)
{
    size_t n = 0;
    for (; want[n]; n++) {
        char b[1024];
        snprintf(b, sizeof b, "message: %s", want[n]);
        CU_ASSERT(has_line(c, b));
        if (!has_line(c, b)) fprintf(stderr, "\nmissing: %s\n", b);
    }
    CU_ASSERT_EQUAL(count_prefix(c, "message: "), n);
}

static void read_expecting(capture *c, const char *path, uint64_t frames, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reads path into c and checks that it has the given number of whole frames
 * and one message, formatted from fmt. */
static void read_expecting(capture *c, const char *path, uint64_t frames, const char *fmt, ...)
{
    char want[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(want, sizeof want, fmt, ap);
    va_end(ap);
    rep_read_stats st = read_into(c, path);
    expect_messages(c, (const char *[]){ want, NULL });
    CU_ASSERT_EQUAL(st.frames, frames);
}

static void test_truncated(void)
{
    const char *path = tmp("trunc.zst");
    write_report(small_report(1, 1), path, 0);
    write_report(small_report(2, 1), path, 1);
    write_report(small_report(3, 1), path, 1);
    CU_ASSERT_EQUAL(truncate(path, file_size(path) - 10), 0);
    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    char want[600];
    snprintf(want, sizeof want, "%s: frame 3 is truncated; 2 frames read", path);
    expect_messages(&c, (const char *[]){ want, NULL });
    CU_ASSERT_EQUAL(st.frames, 2);
    CU_ASSERT_EQUAL(c.ended_ok, 2);
    CU_ASSERT_EQUAL(c.ended_bad, 0);   /* its one block was cut: none of its records was decoded */
    capture_free(&c);

    /* cut inside the first frame's header */
    write_report(small_report(1, 1), path, 0);
    CU_ASSERT_EQUAL(truncate(path, 3), 0);
    st = read_into(&c, path);
    snprintf(want, sizeof want, "%s: frame 1 is truncated; 0 frames read", path);
    expect_messages(&c, (const char *[]){ want, NULL });
    CU_ASSERT_EQUAL(st.frames, 0);
    capture_free(&c);
}

/* Writes the reports of processes 1, 2 and 3 to path, one frame each; *first
 * and *second are where frames 2 and 3 start. */
static void three_reports(const char *path, long *first, long *second)
{
    write_report(small_report(1, 1), path, 0);
    *first = file_size(path);
    write_report(small_report(2, 1), path, 1);
    *second = file_size(path);
    write_report(small_report(3, 1), path, 1);
}

static void test_bad_checksum(void)
{
    const char *path = tmp("checksum.zst");
    long first, second;
    three_reports(path, &first, &second);
    /* the last byte of frame 2 is part of its checksum */
    flip_byte(path, second - 1);
    CU_ASSERT(first < second);
    capture c = { 0 };
    read_expecting(&c, path, 2, "%s: frame 2 has a bad checksum; skipped", path);
    CU_ASSERT_EQUAL(count_prefix(&c, "header v1 pego=0.1.0 pid=1 "), 1);
    CU_ASSERT_EQUAL(count_prefix(&c, "header v1 pego=0.1.0 pid=3 "), 1);
    capture_free(&c);
}

static const char good_frame[] =
    "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1,\"pid\":9}\n"
    "{\"type\":\"grammar\",\"id\":1,\"name\":\"g\",\"hash\":\"ff\",\"rules\":[{\"id\":0,\"name\":\"main\"}]}\n"
    "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":5}\n"
    "{\"type\":\"footer\",\"parses\":0,\"records\":4}\n";

static void test_not_json(void)
{
    const char *path = tmp("notjson.zst");
    unlink(path);
    append_raw_frame(path,
                     "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1,\"pid\":9}\n"
                     "{\"type\":\"grammar\",\"id\":1,\"name\":\"g\",\"hash\":\"ff\",\"rules\":[{\"id\":0,\"name\":\"main\"}]}\n"
                     "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":5\n"
                     "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":7}\n"
                     "{\"type\":\"footer\",\"parses\":0,\"records\":5}\n");
    append_raw_frame(path, good_frame);
    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    char want[600];
    snprintf(want, sizeof want, "%s: frame 1, line 3 is not JSON; the line is skipped", path);
    expect_messages(&c, (const char *[]){ want, NULL });
    CU_ASSERT_EQUAL(st.frames, 2);
    CU_ASSERT(has_line(&c, "rule g1 r0 7 0 0 0 0 0 0 0 0 0 0 0"));
    CU_ASSERT(has_line(&c, "rule g1 r0 5 0 0 0 0 0 0 0 0 0 0 0"));
    capture_free(&c);
}

static void test_unknown_record(void)
{
    const char *path = tmp("unknown.zst");
    unlink(path);
    append_raw_frame(path,
                     "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1,\"pid\":9,\"future\":[1,2]}\n"
                     "{\"type\":\"sample\",\"anything\":{\"goes\":true}}\n"
                     "{\"type\":\"grammar\",\"id\":1,\"name\":\"g\",\"hash\":\"ff\",\"rules\":[{\"id\":0,\"name\":\"main\"}],"
                     "\"new_field\":\"ignored\"}\n"
                     "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":5,\"gc_ns\":99}\n"
                     "{\"type\":\"footer\",\"parses\":0,\"records\":5}\n");
    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    CU_ASSERT_EQUAL(st.problems, 0);
    CU_ASSERT_EQUAL(count_prefix(&c, "message: "), 0);
    CU_ASSERT_EQUAL(st.frames, 1);
    CU_ASSERT(has_line(&c, "rule g1 r0 5 0 0 0 0 0 0 0 0 0 0 0"));
    capture_free(&c);
}

static void test_newer_version(void)
{
    const char *path = tmp("v2.zst");
    unlink(path);
    append_raw_frame(path, "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":2,\"pid\":9}\n"
                           "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":5}\n"
                           "{\"type\":\"footer\",\"parses\":0,\"records\":3}\n");
    append_raw_frame(path, good_frame);
    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    char want[600];
    snprintf(want, sizeof want, "%s: frame 1 has format version 2; this pego reads version 1; skipped", path);
    expect_messages(&c, (const char *[]){ want, NULL });
    CU_ASSERT_EQUAL(st.frames, 1);
    CU_ASSERT_EQUAL(c.begun, 1);
    capture_free(&c);
}

static void test_not_zstd(void)
{
    const char *path = tmp("notes.txt");
    FILE *f = fopen(path, "w");
    fputs("{\"type\":\"header\"}\n", f);
    fclose(f);
    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    char want[600];
    snprintf(want, sizeof want, "%s: not a report file (not zstd-compressed)", path);
    expect_messages(&c, (const char *[]){ want, NULL });
    CU_ASSERT_EQUAL(st.frames, 0);
    capture_free(&c);

    /* garbage after a good frame */
    const char *tail = tmp("tail.zst");
    write_report(small_report(1, 1), tail, 0);
    long good = file_size(tail);
    f = fopen(tail, "ab");
    fputs("garbage", f);
    fclose(f);
    st = read_into(&c, tail);
    snprintf(want, sizeof want, "%s: frame 2 is not a zstd frame (7 bytes at offset %ld); 1 frame read", tail, good);
    expect_messages(&c, (const char *[]){ want, NULL });
    CU_ASSERT_EQUAL(st.frames, 1);
    capture_free(&c);

    /* an empty file */
    const char *empty = tmp("empty.zst");
    fclose(fopen(empty, "w"));
    st = read_into(&c, empty);
    snprintf(want, sizeof want, "%s: empty file, no report in it", empty);
    expect_messages(&c, (const char *[]){ want, NULL });
    capture_free(&c);

    /* a zstd file that is not a report */
    const char *other = tmp("other.zst");
    unlink(other);
    append_raw_frame(other, "hello\n");
    st = read_into(&c, other);
    snprintf(want, sizeof want, "%s: frame 1 does not start with a header record; skipped", other);
    expect_messages(&c, (const char *[]){ want, NULL });
    CU_ASSERT_EQUAL(st.frames, 0);
    capture_free(&c);
}

static void test_frame_checks(void)
{
    const char *path = tmp("checks.zst");
    unlink(path);
    /* no footer: the report was cut before it was compressed */
    append_raw_frame(path, "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\n");
    /* the footer counts another number of records */
    append_raw_frame(path, "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\n"
                           "{\"type\":\"footer\",\"parses\":0,\"records\":5}\n");
    /* a record after the footer */
    append_raw_frame(path, "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\n"
                           "{\"type\":\"footer\",\"parses\":0,\"records\":2}\n{\"type\":\"edge\"}\n");
    /* a reference to a grammar the frame does not have, a rule id out of range */
    append_raw_frame(path, "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\n"
                           "{\"type\":\"grammar\",\"id\":1,\"name\":\"g\",\"hash\":\"ff\",\"rules\":[{\"name\":\"main\"}]}\n"
                           "{\"type\":\"rule\",\"grammar\":2,\"rule\":0,\"calls\":5}\n"
                           "{\"type\":\"stack\",\"grammar\":1,\"frames\":[0,1],\"calls\":5}\n"
                           "{\"type\":\"parse\",\"grammar\":1,\"unit\":\"bytes\",\"result\":\"maybe\"}\n"
                           "[1,2]\n"
                           "{\"type\":\"footer\",\"parses\":0,\"records\":7}\n");
    /* another format altogether */
    append_raw_frame(path, "{\"type\":\"header\",\"format\":\"other-profile\",\"version\":1}\n");
    append_raw_frame(path, good_frame);
    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    char w[8][600];
    snprintf(w[0], sizeof w[0], "%s: frame 1 has no footer (the report was cut short); skipped", path);
    snprintf(w[1], sizeof w[1], "%s: frame 2: its footer counts 5 records but 2 were read; skipped", path);
    snprintf(w[2], sizeof w[2], "%s: frame 3 has records after its footer; skipped", path);
    snprintf(w[3], sizeof w[3], "%s: frame 4, line 3: bad rule record (field grammar); the line is skipped", path);
    snprintf(w[4], sizeof w[4], "%s: frame 4, line 4: bad stack record (field frames); the line is skipped", path);
    snprintf(w[5], sizeof w[5], "%s: frame 4, line 5: bad parse record (field result); the line is skipped", path);
    snprintf(w[6], sizeof w[6], "%s: frame 4, line 6 is not a report record; the line is skipped", path);
    snprintf(w[7], sizeof w[7], "%s: frame 5 is not a pego profile; skipped", path);
    expect_messages(&c, (const char *[]){ w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], NULL });
    CU_ASSERT_EQUAL(st.frames, 2);   /* frame 4 (whole, lines skipped) and frame 6 */
    capture_free(&c);
}

/* A record reads the same in any JSON layout (spaces, escapes, key order,
 * duplicate keys), and each bad value or malformed line has its complaint. */
static void test_two_decoders(void)
{
    const char *path = tmp("decoders.zst");
    unlink(path);
    append_raw_frame(path,
        "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\n"
        "{\"type\":\"grammar\",\"id\":1,\"name\":\"g\",\"hash\":\"ff\",\"rules\":[{\"name\":\"a\"},{\"name\":\"b\"}]}\n"
        /* the same records, plain and with spaces, escapes or reordered keys */
        "{\"type\":\"rule\",\"grammar\":1,\"rule\":1,\"calls\":5,\"calls\":7,\"self_ns\":9}\n"
        "{ \"type\": \"rule\", \"grammar\": 1, \"rule\": 1, \"calls\": 5, \"calls\": 7, \"self_ns\": 9 }\n"
        "{\"type\":\"stack\",\"grammar\":1,\"frames\":[0,1,1],\"calls\":3,\"self_ns\":4}\n"
        "{\"self_ns\":4,\"calls\":3,\"frames\":[ 0, 1, 1 ],\"grammar\":1,\"type\":\"stack\"}\n"
        "{\"type\":\"parse\",\"grammar\":1,\"input\":\"x.json\",\"unit\":\"bytes\",\"result\":\"ok\",\"top_rule\":null}\n"
        "{\"type\":\"parse\",\"grammar\":1,\"input\":\"x\\u002ejson\",\"unit\":\"bytes\",\"result\":\"ok\"}\n"
        /* bad values, found by either decoder */
        "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":-1}\n"
        "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":1.5}\n"
        "{\"type\":\"rule\",\"grammar\":1,\"rule\":2,\"calls\":1}\n"
        "{\"type\":\"edge\",\"grammar\":1,\"caller\":0,\"callee\":1,\"calls\":01}\n"
        "{\"type\":\"edge\",\"grammar\":1,\"caller\":0,\"callee\":1,\"calls\":99999999999999999999}\n"
        "{\"type\":\"edge\",\"grammar\":1,\"caller\":0,\"callee\":1,\"calls\":\"2\"}\n"
        "{\"type\":\"stack\",\"grammar\":1,\"frames\":[],\"calls\":1}\n"
        "{\"type\":\"parse\",\"grammar\":1,\"input\":\"\xff\",\"unit\":\"bytes\",\"result\":\"ok\"}\n"
        "{\"type\":\"edge\",\"grammar\":1,\"caller\":0,\"callee\":1,\"calls\":2}trailing\n"
        "{\"type\":\"footer\",\"parses\":3,\"records\":18}\n");
    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    CU_ASSERT_EQUAL(st.frames, 1);
    size_t rules = 0, stacks = 0, parses = 0;
    for (size_t i = 0; i < c.n; i++) {
        rules += strcmp(c.lines[i], "rule g1 r1 7 0 0 0 0 0 0 0 0 0 0 9") == 0;
        stacks += strcmp(c.lines[i], "stack g1 0,1,1 3 4") == 0;
        parses += strcmp(c.lines[i], "parse 0 g1 [x.json] 0 u0 r0 0 0 0 0 0 top=-1") == 0;
    }
    CU_ASSERT_EQUAL(rules, 2);
    CU_ASSERT_EQUAL(stacks, 2);
    CU_ASSERT_EQUAL(parses, 2);
    /* a count beyond 2^63 - 1 is valid JSON: it reads as 2^63 - 1 (docs/report-format.md, Counts) */
    CU_ASSERT(has_line(&c, "edge g1 0->1 9223372036854775807 0"));
    char w[8][600];
    snprintf(w[0], sizeof w[0], "%s: frame 1, line 9: bad rule record (field calls); the line is skipped", path);
    snprintf(w[1], sizeof w[1], "%s: frame 1, line 10: bad rule record (field calls); the line is skipped", path);
    snprintf(w[2], sizeof w[2], "%s: frame 1, line 11: bad rule record (field rule); the line is skipped", path);
    snprintf(w[3], sizeof w[3], "%s: frame 1, line 12 is not JSON; the line is skipped", path);
    snprintf(w[4], sizeof w[4], "%s: frame 1, line 14: bad edge record (field calls); the line is skipped", path);
    snprintf(w[5], sizeof w[5], "%s: frame 1, line 15: bad stack record (field frames); the line is skipped", path);
    snprintf(w[6], sizeof w[6], "%s: frame 1, line 16 is not JSON; the line is skipped", path);
    snprintf(w[7], sizeof w[7], "%s: frame 1, line 17 is not JSON; the line is skipped", path);
    expect_messages(&c, (const char *[]){ w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], NULL });
    capture_free(&c);
}

/* Reads data from memory into c, named name; returns the reader's stats. */
static rep_read_stats read_memory_into(capture *c, const char *name, const void *data, size_t len)
{
    rep_reader_sink sink = { c, on_message, on_begin, on_record, on_end };
    rep_reader *r = rep_reader_new(&sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(rep_read_memory(r, name, data, len), 0);
    rep_read_stats st = *rep_reader_stats(r);
    rep_reader_free(r);
    return st;
}

/* A damaged magic number in a middle frame, and bytes that are no frame
 * before and between frames: each is one message saying where the bytes are,
 * and every whole frame after them is read, from a file and from memory. */
static void test_resync_not_zstd(void)
{
    const char *path = tmp("magic.zst");
    long first, second;
    three_reports(path, &first, &second);
    flip_byte(path, first + 1);   /* the second byte of frame 2's magic number */
    char want[600];
    snprintf(want, sizeof want, "%s: frame 2 is not a zstd frame (%ld bytes at offset %ld); skipped", path,
             second - first, first);
    capture c = { 0 };
    read_expecting(&c, path, 2, "%s", want);
    CU_ASSERT_EQUAL(count_prefix(&c, "header v1 pego=0.1.0 pid=1 "), 1);
    CU_ASSERT_EQUAL(count_prefix(&c, "header v1 pego=0.1.0 pid=3 "), 1);
    capture_free(&c);

    size_t len;
    unsigned char *data = file_bytes(path, &len);
    rep_read_stats st = read_memory_into(&c, path, data, len);
    expect_messages(&c, (const char *[]){ want, NULL });
    CU_ASSERT_EQUAL(st.frames, 2);
    free(data);
    capture_free(&c);

    /* junk before the first frame and between two frames */
    const char *junk = tmp("junk.zst");
    unlink(junk);
    append_bytes(junk, "junk", 4);
    write_report(small_report(1, 1), junk, 1);
    long one = file_size(junk);
    append_bytes(junk, "garbage!", 8);
    write_report(small_report(2, 1), junk, 1);
    char w[2][600];
    snprintf(w[0], sizeof w[0], "%s: frame 1 is not a zstd frame (4 bytes at offset 0); skipped", junk);
    snprintf(w[1], sizeof w[1], "%s: frame 3 is not a zstd frame (8 bytes at offset %ld); skipped", junk, one);
    st = read_into(&c, junk);
    expect_messages(&c, (const char *[]){ w[0], w[1], NULL });
    CU_ASSERT_EQUAL(st.frames, 2);
    CU_ASSERT_EQUAL(c.ended_ok, 2);
    capture_free(&c);
}

/* The text of a frame of n parse records whose input names are random hex
 * digits, which zstd cannot compress much (free it). */
static char *incompressible_frame(size_t n)
{
    size_t cap = 200 + n * 200, k = 0;
    char *text = malloc(cap);
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    k += (size_t)snprintf(text + k, cap - k,
                          "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\n"
                          "{\"type\":\"grammar\",\"id\":1,\"name\":\"g\",\"hash\":\"ff\",\"rules\":[{\"name\":\"main\"}]}\n");
    for (size_t i = 0; i < n; i++) {
        k += (size_t)snprintf(text + k, cap - k, "{\"type\":\"parse\",\"grammar\":1,\"unit\":\"bytes\",\"result\":\"ok\",\"input\":\"");
        for (int j = 0; j < 96; j++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            text[k++] = "0123456789abcdef"[x & 15];
        }
        k += (size_t)snprintf(text + k, cap - k, "\"}\n");
    }
    snprintf(text + k, cap - k, "{\"type\":\"footer\",\"parses\":%zu,\"records\":%zu}\n", n, n + 3);
    return text;
}

/* A frame cut short (a process killed while appending), with frames after
 * it: at the end of the file, or taken in by its last block, which then fails
 * to decode. The frames after it are found again and read; the cut frame is
 * large, so finding them means reading the file again from long before where
 * decoding stopped. */
static void test_resync_damaged(void)
{
    const char *path = tmp("cut.zst"), *big = tmp("big.zst");
    write_report(small_report(1, 1), path, 0);
    unlink(big);
    char *text = incompressible_frame(8000);
    append_raw_frame(big, text);
    free(text);
    size_t len;
    unsigned char *data = file_bytes(big, &len);
    CU_ASSERT(len > 2 * ZSTD_DStreamInSize());
    append_bytes(path, data, len / 2);
    write_report(small_report(3, 1), path, 1);
    write_report(small_report(4, 1), path, 1);
    capture c = { 0 };
    read_expecting(&c, path, 3, "%s: frame 2 is truncated; skipped", path);
    CU_ASSERT_EQUAL(count_prefix(&c, "header v1 pego=0.1.0 pid=3 "), 1);
    CU_ASSERT_EQUAL(count_prefix(&c, "header v1 pego=0.1.0 pid=4 "), 1);
    CU_ASSERT_EQUAL(c.ended_bad, 1);   /* its first blocks were decoded: their records are dropped */
    capture_free(&c);

    /* the same frame cut 1000 bytes before the end of the reader's third input
     * buffer (it reads ZSTD_DStreamInSize() bytes at a time), with 1000 frames
     * after it: its last block takes in the frames after it, from two buffers,
     * then fails to decode */
    unlink(path);
    write_report(small_report(1, 1), path, 0);
    size_t keep = 3 * ZSTD_DStreamInSize() - 1000 - (size_t)file_size(path);
    CU_ASSERT_FATAL(keep < len);
    append_bytes(path, data, keep);
    long cut = file_size(path);
    for (int i = 0; i < 1000; i++) write_report(small_report(5, 1), path, 1);
    free(data);
    rep_read_stats st = read_into(&c, path);
    char want[600];
    snprintf(want, sizeof want, "message: %s: frame 2 is damaged (zstd: ", path);
    CU_ASSERT_EQUAL(count_prefix(&c, want), 1);
    CU_ASSERT_EQUAL(count_prefix(&c, "message: "), 1);
    CU_ASSERT_EQUAL(st.frames, 1001);
    CU_ASSERT(file_size(path) - cut > 4 * (long)ZSTD_DStreamInSize());
    capture_free(&c);
}

/* A frame of 200,000 damaged lines: 10 are named, one line counts the others;
 * each file has its own 10; and the lines are read fast. */
static void test_damaged_lines_capped(void)
{
    const char *path = tmp("lines.zst"), *other = tmp("lines2.zst");
    size_t n = 200000, cap = 2 * n + 400, k = 0;
    char *text = malloc(cap);
    k += (size_t)snprintf(text + k, cap - k, "%s", "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\n"
                                                   "{\"type\":\"rule\",\"grammar\":9}\n[1,2]\n");
    for (size_t i = 2; i < n; i++) {
        text[k++] = i % 2 ? '{' : 'x';
        text[k++] = '\n';
    }
    snprintf(text + k, cap - k, "{\"type\":\"footer\",\"parses\":0,\"records\":%zu}\n", n + 2);
    unlink(path);
    append_raw_frame(path, text);
    free(text);
    append_raw_frame(path, good_frame);
    unlink(other);
    append_raw_frame(other, "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\nx\n"
                            "{\"type\":\"footer\",\"parses\":0,\"records\":3}\n");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    capture c = { 0 };
    rep_reader_sink sink = { &c, on_message, on_begin, on_record, on_end };
    rep_reader *r = rep_reader_new(&sink);
    CU_ASSERT_EQUAL(rep_read_path(r, path), 0);
    CU_ASSERT_EQUAL(rep_read_path(r, other), 0);
    CU_ASSERT_EQUAL(rep_reader_stats(r)->frames, 3);
    rep_reader_free(r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    char w[13][600];
    snprintf(w[0], sizeof w[0], "%s: frame 1, line 2: bad rule record (field grammar); the line is skipped", path);
    snprintf(w[1], sizeof w[1], "%s: frame 1, line 3 is not a report record; the line is skipped", path);
    for (size_t i = 2; i < 10; i++)
        snprintf(w[i], sizeof w[i], "%s: frame 1, line %zu is not JSON; the line is skipped", path, i + 2);
    snprintf(w[10], sizeof w[10], "%s: %zu more damaged lines not shown", path, n - 10);
    snprintf(w[11], sizeof w[11], "%s: frame 1, line 2 is not JSON; the line is skipped", other);
    expect_messages(&c, (const char *[]){ w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11],
                                          NULL });
    CU_ASSERT(has_line(&c, "rule g1 r0 5 0 0 0 0 0 0 0 0 0 0 0"));
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    CU_ASSERT(seconds < 2.0);
    capture_free(&c);
}

/* A count beyond 2^63 - 1 reads as 2^63 - 1, wherever it is in the line and
 * with its digits in strings kept; a negative one is still a bad field. */
static void test_count_beyond_max(void)
{
    const char *path = tmp("max.zst");
    unlink(path);
    append_raw_frame(path,
                     "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\n"
                     "{\"type\":\"grammar\",\"id\":1,\"name\":\"g\",\"hash\":\"ff\",\"rules\":[{\"name\":\"main\"}]}\n"
                     "{\"type\":\"parse\",\"grammar\":1,\"input\":\"n \\\" 99999999999999999999\",\"unit\":\"bytes\","
                     "\"result\":\"ok\",\"calls\":18446744073709551615,\"time_ns\":9223372036854775808,\"memo\":1e3}\n"
                     "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":-99999999999999999999}\n"
                     "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":9223372036854775807,\"x\":[1.5e-3,-2E+9]}\n"
                     "{\"type\":\"footer\",\"parses\":1,\"records\":6}\n");
    capture c = { 0 };
    rep_read_stats st = read_into(&c, path);
    char want[600];
    snprintf(want, sizeof want, "%s: frame 1, line 3: bad parse record (field memo); the line is skipped", path);
    char w2[600];
    snprintf(w2, sizeof w2, "%s: frame 1, line 4: bad rule record (field calls); the line is skipped", path);
    expect_messages(&c, (const char *[]){ want, w2, NULL });
    CU_ASSERT_EQUAL(st.frames, 1);
    CU_ASSERT(has_line(&c, "rule g1 r0 9223372036854775807 0 0 0 0 0 0 0 0 0 0 0"));
    capture_free(&c);

    unlink(path);
    append_raw_frame(path,
                     "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\n"
                     "{\"type\":\"grammar\",\"id\":1,\"name\":\"g\",\"hash\":\"ff\",\"rules\":[{\"name\":\"main\"}]}\n"
                     "{\"type\":\"parse\",\"grammar\":1,\"input\":\"n \\\" 99999999999999999999\",\"unit\":\"bytes\","
                     "\"result\":\"ok\",\"calls\":18446744073709551615,\"time_ns\":9223372036854775808}\n"
                     "{\"type\":\"footer\",\"parses\":1,\"records\":4}\n");
    st = read_into(&c, path);
    CU_ASSERT_EQUAL(st.problems, 0);
    CU_ASSERT(has_line(&c, "parse 0 g1 [n \" 99999999999999999999] 0 u0 r0 9223372036854775807 "
                           "9223372036854775807 0 0 0 top=-1"));
    capture_free(&c);
}

/* A grammar's hash is hex digits: strtoull's "0x" prefix is no part of one. */
static void test_grammar_hash(void)
{
    const char *path = tmp("hash.zst");
    unlink(path);
    append_raw_frame(path, "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1}\n"
                           "{\"type\":\"grammar\",\"id\":1,\"name\":\"g\",\"hash\":\"0x12\",\"rules\":[]}\n"
                           "{\"type\":\"footer\",\"parses\":0,\"records\":3}\n");
    capture c = { 0 };
    read_into(&c, path);
    char want[600];
    snprintf(want, sizeof want, "%s: frame 1, line 2: bad grammar record (field hash); the line is skipped", path);
    expect_messages(&c, (const char *[]){ want, NULL });
    capture_free(&c);
}

static void test_directories(void)
{
    const char *root = tmp("tree");
    char a[600], b[600], sub[600], note[600];
    CU_ASSERT_EQUAL_FATAL(mkdir(root, 0755), 0);
    snprintf(sub, sizeof sub, "%s/sub", root);
    CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
    snprintf(a, sizeof a, "%s/a.zst", root);
    snprintf(b, sizeof b, "%s/sub/b.zst", root);
    snprintf(note, sizeof note, "%s/sub/notes.txt", root);
    write_report(small_report(1, 1), a, 0);
    write_report(small_report(2, 1), b, 0);
    fclose(fopen(note, "w"));
    capture c = { 0 };
    rep_read_stats st = read_into(&c, root);
    CU_ASSERT_EQUAL(st.files, 2);
    CU_ASSERT_EQUAL(st.frames, 2);
    CU_ASSERT_EQUAL(st.problems, 0);
    capture_free(&c);

    const char *empty = tmp("nothing-here");
    CU_ASSERT_EQUAL_FATAL(mkdir(empty, 0755), 0);
    char inner[600];
    snprintf(inner, sizeof inner, "%s/deeper", empty);
    mkdir(inner, 0755);
    st = read_into(&c, empty);
    char want[600];
    snprintf(want, sizeof want, "%s: no reports found", empty);
    expect_messages(&c, (const char *[]){ want, NULL });
    CU_ASSERT_EQUAL(st.frames, 0);
    capture_free(&c);

    st = read_into(&c, tmp("no-such.zst"));
    snprintf(want, sizeof want, "%s: No such file or directory", tmp("no-such.zst"));
    expect_messages(&c, (const char *[]){ want, NULL });
    capture_free(&c);
}

/* ---- merging ---- */

static rep_summary *summarize(const char *const *paths, size_t n, const char *grammar, size_t limit)
{
    rep_summary_options o = { .grammar = grammar, .parse_limit = limit };
    rep_summary *s = rep_summary_new(&o);
    rep_reader_sink sink = { 0 };
    rep_summary_sink(s, &sink);
    capture c = { 0 };
    sink.message = on_message;
    sink.ud = s;
    rep_reader *r = rep_reader_new(&sink);
    for (size_t i = 0; i < n; i++) CU_ASSERT_EQUAL(rep_read_path(r, paths[i]), 0);
    rep_reader_free(r);
    capture_free(&c);
    CU_ASSERT_EQUAL(rep_summary_finish(s), 0);
    return s;
}

static const rep_srule *find_rule(const rep_summary *s, const char *label)
{
    for (size_t i = 0; i < s->nrules; i++)
        if (s->rules[i].used && strcmp(s->rules[i].label, label) == 0) return &s->rules[i];
    return NULL;
}

static void test_merge_processes(void)
{
    const char *one = tmp("m1.zst"), *two = tmp("m2.zst");
    write_report(small_report(1, 1), one, 0);
    write_report(small_report(2, 2), two, 0);
    write_report(small_report(3, 3), two, 1);
    const char *paths[] = { one, two };
    rep_summary *s = summarize(paths, 2, NULL, 10);
    CU_ASSERT_EQUAL(s->processes, 3);
    CU_ASSERT_EQUAL(s->parses, 6);
    CU_ASSERT_EQUAL(s->calls, 3 * 36);
    CU_ASSERT_EQUAL(s->clock_reads, 3 * 72);
    CU_ASSERT_EQUAL(s->time_ns, 6000 * 6);
    CU_ASSERT_EQUAL(s->shared_names, 0);
    const rep_srule *v = find_rule(s, "json:value");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(v->c.calls, 60);
    CU_ASSERT_EQUAL(v->c.memo, 15);
    CU_ASSERT_EQUAL(v->c.max_repeats, 2);
    CU_ASSERT_EQUAL(v->c.max_repeats_pos, 7);
    CU_ASSERT_EQUAL(v->c.self_ns, 3000 * 6);
    CU_ASSERT_EQUAL(s->nedges, 3);
    CU_ASSERT_EQUAL(s->nnodes, 3);
    CU_ASSERT_EQUAL(s->ntop, 6);
    CU_ASSERT_STRING_EQUAL(s->top[0].input, "a.json");
    CU_ASSERT_EQUAL(s->top[0].time_ns, 15000);
    CU_ASSERT_EQUAL(s->top[5].time_ns, 1000);
    rep_summary_free(s);

    /* only the slowest are kept */
    s = summarize(paths, 2, NULL, 2);
    CU_ASSERT_EQUAL(s->parses, 6);
    CU_ASSERT_EQUAL(s->ntop, 2);
    CU_ASSERT_EQUAL(s->top[0].time_ns, 15000);
    CU_ASSERT_EQUAL(s->top[1].time_ns, 10000);
    rep_summary_free(s);
}

/* The detail-only metrics are merged from frames whose header says detail
 * only, even when a frame without detail has them (as earlier writers wrote
 * them, as zeros or not); the headers' clocks and modes are counted per process. */
static void test_merge_detail(void)
{
    const char *path = tmp("detail.zst");
    unlink(path);
    static const char grammar[] =
        "{\"type\":\"grammar\",\"id\":1,\"name\":\"g\",\"hash\":\"ff\",\"rules\":[{\"name\":\"a\"},{\"name\":\"b\"}]}\n";
    char frame[1024];
    snprintf(frame, sizeof frame,
             "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1,\"clock\":\"thread-cpu\","
             "\"mode\":\"exact\",\"detail\":false}\n%s"
             "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":5,\"failed\":2,\"repeats\":5,\"max_repeats\":3,"
             "\"max_repeats_pos\":9,\"wasted\":70}\n"
             "{\"type\":\"rule\",\"grammar\":1,\"rule\":1,\"calls\":1,\"failed\":1,\"wasted\":0}\n"
             "{\"type\":\"footer\",\"parses\":0,\"records\":5}\n", grammar);
    append_raw_frame(path, frame);
    const char *paths[] = { path };
    rep_summary *s = summarize(paths, 1, NULL, 10);
    const rep_srule *a = find_rule(s, "g:a"), *b = find_rule(s, "g:b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(a->c.calls, 5);
    CU_ASSERT_EQUAL(a->c.repeats, REP_UNSET);
    CU_ASSERT_EQUAL(a->c.max_repeats, REP_UNSET);
    CU_ASSERT_EQUAL(a->c.max_repeats_pos, REP_UNSET);
    CU_ASSERT_EQUAL(a->c.wasted, REP_UNSET);
    CU_ASSERT_EQUAL(b->c.wasted, REP_UNSET);
    CU_ASSERT_EQUAL(s->detail_processes, 0);
    char text[512];
    rep_measured_text(s, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "clock thread-cpu; mode exact; detail off");
    rep_summary_free(s);

    /* a frame with detail (no clock or mode: an older or other writer) adds its counts */
    snprintf(frame, sizeof frame,
             "{\"type\":\"header\",\"format\":\"pego-profile\",\"version\":1,\"detail\":true}\n%s"
             "{\"type\":\"rule\",\"grammar\":1,\"rule\":0,\"calls\":1,\"failed\":1,\"repeats\":1,\"max_repeats\":1,"
             "\"max_repeats_pos\":4,\"wasted\":6}\n"
             "{\"type\":\"footer\",\"parses\":0,\"records\":4}\n", grammar);
    append_raw_frame(path, frame);
    append_raw_frame(path, frame);
    s = summarize(paths, 1, NULL, 10);
    a = find_rule(s, "g:a");
    b = find_rule(s, "g:b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(a->c.calls, 7);
    CU_ASSERT_EQUAL(a->c.failed, 4);
    CU_ASSERT_EQUAL(a->detail_failed, 2);
    CU_ASSERT_EQUAL(a->c.repeats, 2);
    CU_ASSERT_EQUAL(a->c.max_repeats, 1);
    CU_ASSERT_EQUAL(a->c.max_repeats_pos, 4);
    CU_ASSERT_EQUAL(a->c.wasted, 12);
    CU_ASSERT_EQUAL(b->c.wasted, REP_UNSET);   /* b was called in the frame without detail only */
    CU_ASSERT_EQUAL(s->processes, 3);
    CU_ASSERT_EQUAL(s->detail_processes, 2);
    rep_measured_text(s, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "clocks unknown (2 processes), thread-cpu (1); modes unknown (2 processes), exact (1); "
                                 "detail on in 2 of 3 processes (repeats and wasted count those only)");
    rep_summary_free(s);
}

/* Two grammars named json with different sources are kept apart. */
static void test_merge_shared_name(void)
{
    const char *path = tmp("shared.zst");
    rep_header h = header(5);
    rep_builder *b = rep_builder_new(&h);
    rep_grammar g1 = { 1, "json", "old/json.pego", 0x1111111122222222ULL, 3, json_rules, NULL, 0 };
    rep_grammar g2 = { 2, "json", "new/json.pego", 0x3333333344444444ULL, 3, json_rules, NULL, 0 };
    rep_rule r1 = { 1, 1, 10, 10, 0, 10, 0, 0, 0, 0, 0, 0, 100, 100, 0, 0, 0, 0, 0 };
    rep_rule r2 = { 2, 1, 20, 20, 0, 20, 0, 0, 0, 0, 0, 0, 200, 200, 0, 0, 0, 0, 0 };
    rep_add_grammar(b, &g1);
    rep_add_grammar(b, &g2);
    rep_add_rule(b, &r1);
    rep_add_rule(b, &r2);
    write_report(b, path, 0);
    write_report(small_report(6, 1), path, 1);   /* json of a third source */
    const char *paths[] = { path };
    rep_summary *s = summarize(paths, 1, NULL, 10);
    CU_ASSERT_EQUAL(s->shared_names, 1);
    CU_ASSERT_PTR_NOT_NULL(find_rule(s, "json@11111111:value"));
    CU_ASSERT_PTR_NOT_NULL(find_rule(s, "json@33333333:value"));
    CU_ASSERT_PTR_NOT_NULL(find_rule(s, "json@abcdef01:value"));
    CU_ASSERT_EQUAL(find_rule(s, "json@33333333:value")->c.calls, 20);
    rep_summary_free(s);
    s = summarize(paths, 1, "json@11111111", 10);
    CU_ASSERT_EQUAL(s->shared_names, 0);
    CU_ASSERT_PTR_NOT_NULL(find_rule(s, "json:value"));
    CU_ASSERT_EQUAL(find_rule(s, "json:value")->c.calls, 10);
    rep_summary_free(s);
}

/* ---- reports of the runtime profiler ---- */

/* What a report says about how it was measured, and its one parse. */
typedef struct measured {
    char     clock[32];
    int      detail, parses;
    uint64_t reads, parse_reads, parse_ns;
} measured;

static int measured_begin(void *ud, const rep_header *h)
{
    measured *m = ud;
    snprintf(m->clock, sizeof m->clock, "%s", h->clock);
    m->detail = h->detail;
    m->reads = h->clock_reads;
    return 0;
}

static int measured_record(void *ud, rep_record_kind kind, const void *rec)
{
    measured *m = ud;
    if (kind != REP_REC_PARSE) return 0;
    m->parses++;
    m->parse_reads = ((const rep_parse *)rec)->clock_reads;
    m->parse_ns = ((const rep_parse *)rec)->time_ns;
    return 0;
}

/* A trace callback that sleeps 30 ms in the first call: wall time, no CPU time.
 * The sampler's signals cut a sleep short (EINTR): it sleeps what is left. */
static int sleep_once(const pego_trace_event *ev, void *ud)
{
    int *slept = ud;
    if (ev->kind == PEGO_TRACE_ENTER && !*slept) {
        *slept = 1;
        struct timespec left = { 0, 30000000 };
        while (nanosleep(&left, &left) != 0 && errno == EINTR) continue;
    }
    return 0;
}

/* Profiles one parse of a small grammar in a child process (PEGO_FLAGS set to
 * env, or unset; options given to pego_profile_start, after a first parser
 * has read PEGO_FLAGS when early), the parse sleeping 30 ms in its first
 * call; the child's exit writes the report to path, which is read back. */
static measured profile_in_child(const char *path, const char *env, const char *options, int early)
{
    measured m = { "", 0, 0, 0, 0, 0 };
    unlink(path);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        if (env) setenv("PEGO_FLAGS", env, 1);
        else unsetenv("PEGO_FLAGS");
        const char *src = "def main = a b\ndef a = \"x\"\ndef b = \"y\"";
        pego_grammar *g = pego_compile(src, strlen(src), "t", NULL);
        pego_parser *p = g && early ? pego_parser_new(g) : NULL;
        if (!g || pego_profile_start(path, options) != 0) _exit(3);
        if (!p) p = pego_parser_new(g);
        int slept = 0;
        const pego_result *r;
        int ok = p && pego_parser_set_trace(p, sleep_once, &slept) == 0 && pego_parse(p, "xy", 2, NULL, &r) == PEGO_OK;
        pego_parser_free(p);
        pego_grammar_free(g);
        exit(ok ? 0 : 4);                /* the exit writer writes the report */
    }
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    rep_reader_sink sink = { &m, NULL, measured_begin, measured_record, NULL };
    rep_reader *r = rep_reader_new(&sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(rep_read_path(r, path), 0);
    CU_ASSERT_EQUAL(rep_reader_stats(r)->frames, 1);
    rep_reader_free(r);
    CU_ASSERT_EQUAL(m.parses, 1);
    return m;
}

static int wall_clock(const char *name)
{
    return strcmp(name, "monotonic") == 0 || strcmp(name, "tsc") == 0;
}

/* --profile-clock: wall time counts the 30 ms the parse slept, the thread's
 * CPU time does not; the header names the clock and counts the readings. */
static void test_profile_clock(void)
{
    const char *path = tmp("clock.zst");
    measured m = profile_in_child(path, NULL, NULL, 0);
    CU_ASSERT(wall_clock(m.clock));
    CU_ASSERT(m.parse_ns >= 30000000);
    CU_ASSERT(m.parse_reads > 0);
    CU_ASSERT_EQUAL(m.reads, m.parse_reads);
    CU_ASSERT_EQUAL(m.detail, 0);
    m = profile_in_child(path, NULL, "--profile-clock=wall --profile-detail", 0);
    CU_ASSERT(wall_clock(m.clock));
    CU_ASSERT(m.parse_ns >= 30000000);
    CU_ASSERT_EQUAL(m.detail, 1);
    m = profile_in_child(path, NULL, "--profile-clock=cpu", 0);
    CU_ASSERT_STRING_EQUAL(m.clock, "thread-cpu");
    CU_ASSERT(m.parse_ns < 15000000);
    CU_ASSERT_EQUAL(m.reads, m.parse_reads);
    m = profile_in_child(path, NULL, "--profile-clock cpu", 0);
    CU_ASSERT_STRING_EQUAL(m.clock, "thread-cpu");
    /* PEGO_FLAGS alone, and the code's options winning over it */
    for (int early = 0; early < 2; early++) {
        m = profile_in_child(path, "--profile-clock=cpu", NULL, early);
        CU_ASSERT_STRING_EQUAL(m.clock, "thread-cpu");
        CU_ASSERT(m.parse_ns < 15000000);
        m = profile_in_child(path, "--profile-clock=cpu", "--profile-clock=wall", early);
        CU_ASSERT(wall_clock(m.clock));
        CU_ASSERT(m.parse_ns >= 30000000);
        m = profile_in_child(path, "--profile-clock=wall", "--profile-clock=cpu", early);
        CU_ASSERT_STRING_EQUAL(m.clock, "thread-cpu");
    }
}

/* ---- the SVG flame graph ---- */

/* The width of the frame whose tooltip starts with name, or -1. */
static double frame_width(const char *svg, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "\"><title>%s: ", name);
    const char *p = strstr(svg, key);
    if (!p) return -1;
    p = strstr(p, " width=\"");
    return p ? strtod(p + 8, NULL) : -1;
}

/* Writes b's report to path and its flame graph (1200 pixels wide, by self
 * time) to svg_path; the summary of the report. */
static rep_summary *drawn_summary(rep_builder *b, const char *path, const char *svg_path)
{
    write_report(b, path, 0);
    const char *paths[] = { path };
    rep_summary *s = summarize(paths, 1, NULL, 10);
    char err[512];
    rep_flame_options fo = { NULL, 1200, 0 };
    CU_ASSERT_EQUAL_FATAL(rep_write_flamegraph(s, &fo, svg_path, err, sizeof err), 0);
    return s;
}

static void test_flamegraph(void)
{
    const char *path = tmp("fg.zst"), *svg_path = tmp("fg.svg");
    rep_header h = header(1);
    rep_builder *b = rep_builder_new(&h);
    static const rep_rule_info rules[] = { { "main", 1, 1 }, { "a", 2, 1 }, { "b", 3, 1 }, { "c<&>", 4, 1 } };
    rep_grammar g = { 1, "g", "g.pego", 1, 4, rules, NULL, 0 };
    uint32_t p0[] = { 0 }, p1[] = { 0, 1 }, p2[] = { 0, 2 }, p3[] = { 0, 2, 3 }, p4[] = { 0, 1, 3 };
    rep_stack st[] = {
        { 1, 1, p0, 1, 1000000, 0, 0, 0, NULL, 0 }, { 1, 2, p1, 5, 3000000, 0, 0, 0, NULL, 0 }, { 1, 2, p2, 7, 2000000, 0, 0, 0, NULL, 0 },
        { 1, 3, p3, 9, 4000000, 0, 0, 0, NULL, 0 }, { 1, 3, p4, 2, 10, 0, 0, 0, NULL, 0 },   /* 10 ns of 10 ms: below the cut-off */
    };
    rep_add_grammar(b, &g);
    for (size_t i = 0; i < 5; i++) rep_add_stack(b, &st[i]);
    rep_summary *s = drawn_summary(b, path, svg_path);
    char err[512];
    /* the speedscope file: one sampled profile, a weighted sample per path */
    const char *ss_path = tmp("fg.speedscope.json");
    CU_ASSERT_EQUAL_FATAL(rep_write_speedscope(s, ss_path, err, sizeof err), 0);
    rep_summary_free(s);
    json_error_t jerr;
    json_t *ss = json_load_file(ss_path, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ss, "$schema")),
                           "https://www.speedscope.app/file-format-schema.json");
    CU_ASSERT_EQUAL(json_array_size(json_object_get(json_object_get(ss, "shared"), "frames")), 4);
    json_t *prof = json_array_get(json_object_get(ss, "profiles"), 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(prof, "type")), "sampled");
    CU_ASSERT_EQUAL(json_array_size(json_object_get(prof, "samples")), 5);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(prof, "endValue")), 10000010);
    json_t *deepest = json_array_get(json_object_get(prof, "samples"), 4);   /* main, a, a;c, b, b;c: depth-first */
    CU_ASSERT_EQUAL(json_array_size(deepest), 3);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(prof, "weights"), 4)), 4000000);
    json_decref(ss);

    char cmd[700];
    if (system("command -v xmllint > /dev/null 2>&1") != 0) CU_FAIL("xmllint is missing: install libxml2-utils");
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", svg_path);
    CU_ASSERT_EQUAL(system(cmd), 0);
    FILE *f = fopen(svg_path, "r");
    static char svg[1 << 16];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    fclose(f);
    svg[n] = '\0';
    /* one frame per node above the cut-off: main, a, b, b;c<&> */
    size_t frames = 0;
    for (const char *p = svg; (p = strstr(p, "<g class=\"frame\" ")); p++) frames++;
    CU_ASSERT_EQUAL(frames, 4);
    double wmain = frame_width(svg, "main"), wa = frame_width(svg, "a"), wb = frame_width(svg, "b");
    double wc = frame_width(svg, "c&lt;&amp;&gt;");
    /* widths are proportional to the self time summed over each subtree: 10, 3, 6, 4 ms (+10 ns) */
    CU_ASSERT_DOUBLE_EQUAL(wmain, 1180.0, 0.01);
    CU_ASSERT_DOUBLE_EQUAL(wb / wa, 6.0 / 3.0, 0.001);
    CU_ASSERT_DOUBLE_EQUAL(wc / wb, 4.0 / 6.0, 0.001);
    CU_ASSERT_DOUBLE_EQUAL(wa / wmain, 3.0 / 10.0, 0.001);
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<title>b: 6000 us (60.00%), 7 calls, 2000 us self</title>"));
}

/* The hue of "rgb(r,g,b)" in degrees. */
static double fill_hue(const char *fill)
{
    int r, g, b;
    if (sscanf(fill, "rgb(%d,%d,%d)", &r, &g, &b) != 3) return -1;
    double max = r > g ? (r > b ? r : b) : (g > b ? g : b), min = r < g ? (r < b ? r : b) : (g < b ? g : b);
    if (max == min) return 0;
    double h = max == r ? fmod((g - b) / (max - min), 6.0) : max == g ? (b - r) / (max - min) + 2 : (r - g) / (max - min) + 4;
    return h < 0 ? h * 60 + 360 : h * 60;
}

/* In a batch of grammars, each has its own colour family: the frames of the
 * grammars a and b (by label) have hues around 25 and 205 degrees, however
 * small b's frames, and a legend names both. */
static void test_flamegraph_grammar_colours(void)
{
    const char *path = tmp("fg2.zst"), *svg_path = tmp("fg2.svg");
    rep_header h = header(1);
    rep_builder *b = rep_builder_new(&h);
    static const rep_rule_info rules[] = { { "main", 1, 1 }, { "x", 2, 1 }, { "y", 3, 1 }, { "z", 4, 1 } };
    rep_grammar ga = { 1, "a", "a.pego", 1, 4, rules, NULL, 0 }, gb = { 2, "b", "b.pego", 2, 4, rules, NULL, 0 };
    uint32_t p0[] = { 0 }, p1[] = { 0, 1 }, p2[] = { 0, 2 }, p3[] = { 0, 2, 3 };
    rep_stack st[] = {
        { 1, 1, p0, 1, 9000000, 0, 0, 0, NULL, 0 },  { 1, 2, p1, 5, 30000000, 0, 0, 0, NULL, 0 },
        { 1, 2, p2, 7, 20000000, 0, 0, 0, NULL, 0 }, { 1, 3, p3, 9, 40000000, 0, 0, 0, NULL, 0 },
        { 2, 1, p0, 1, 100000, 0, 0, 0, NULL, 0 },   { 2, 2, p1, 5, 30000, 0, 0, 0, NULL, 0 },
        { 2, 2, p2, 7, 20000, 0, 0, 0, NULL, 0 },    { 2, 3, p3, 9, 40000, 0, 0, 0, NULL, 0 },
    };
    rep_add_grammar(b, &ga);
    rep_add_grammar(b, &gb);
    for (size_t i = 0; i < sizeof st / sizeof *st; i++) rep_add_stack(b, &st[i]);
    rep_summary_free(drawn_summary(b, path, svg_path));
    FILE *f = fopen(svg_path, "r");
    static char svg[1 << 16];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    fclose(f);
    svg[n] = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "\">a</text>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "\">b</text>"));
    size_t frames[2] = { 0, 0 };
    for (const char *p = svg; (p = strstr(p, "<g class=\"frame\" ")); p++) {
        const char *name = strstr(p, "data-name=\"") + 11, *fill = strstr(p, " fill=\"") + 7;
        int grammar = name[0] == 'b';
        double hue = fill_hue(fill), want = grammar ? 205 : 25;
        CU_ASSERT(fabs(hue - want) <= 23.0);   /* within the family's spread, 90 / 2 degrees */
        frames[grammar]++;
    }
    CU_ASSERT_EQUAL(frames[0], 4);
    CU_ASSERT_EQUAL(frames[1], 4);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
    CU_pSuite s = CU_add_suite("report files", suite_init, suite_clean);
    if (!s) return CU_get_error();
    struct { const char *name; void (*fn)(void); } tests[] = {
        { "round trip of every record and field", test_round_trip },
        { "footer and one frame", test_footer },
        { "detail-only metrics only with detail", test_detail_fields },
        { "memory metrics only with memory", test_memory_fields },
        { "replace mode", test_replace_mode },
        { "append from 8 processes at once", test_append_concurrent },
        { "%p %h %t %% expansion", test_expand_path },
        { "symbolic link refused", test_symlink_refused },
        { "file mode follows the umask", test_file_mode },
        { "truncated frame", test_truncated },
        { "bad checksum", test_bad_checksum },
        { "line that is not JSON", test_not_json },
        { "unknown record type ignored", test_unknown_record },
        { "newer format version", test_newer_version },
        { "not zstd at all", test_not_zstd },
        { "footer and reference checks", test_frame_checks },
        { "records in any JSON layout, bad values", test_two_decoders },
        { "frames found again after bytes that are no zstd frame", test_resync_not_zstd },
        { "frames found again after a cut or damaged frame", test_resync_damaged },
        { "damaged lines named up to 10 per file, fast", test_damaged_lines_capped },
        { "counts beyond 2^63 - 1 read as 2^63 - 1", test_count_beyond_max },
        { "grammar hash of hex digits only", test_grammar_hash },
        { "directories", test_directories },
        { "merging processes", test_merge_processes },
        { "grammars sharing a name", test_merge_shared_name },
        { "detail-only metrics from detail frames only", test_merge_detail },
        { "SVG flame graph", test_flamegraph },
        { "SVG flame graph: a colour family per grammar", test_flamegraph_grammar_colours },
        { "the runtime profiler's clocks", test_profile_clock },
    };
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++)
        if (!CU_add_test(s, tests[i].name, tests[i].fn)) return CU_get_error();
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
