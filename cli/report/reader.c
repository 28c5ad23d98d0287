/* The report reader (reader.h): zstd streaming decompression of each file, a
 * line at a time parsed with jansson, decoded into the records of runtime/report.h and
 * checked (see "flat records"). A frame's records go to the sink as they are
 * read; whether the frame was whole (zstd checksum, footer counts) is known
 * only at its end, so the sink stages them until frame_end. */
#include "reader.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#define REP_MAX_LINE    (64u << 20)  /* a longer line makes its frame unusable */
#define REP_WINDOW_LOG  23           /* frames may use a window of at most 8 MiB */
#define REP_LINES_NAMED 10           /* damaged lines named per file; the others are only counted */

typedef struct frame_grammar {
    uint32_t id;
    size_t   nrules;
} frame_grammar;


/* A top-level field of a record (see "flat records" below). */
typedef enum { F_INT, F_STR, F_NULL, F_TRUE, F_FALSE, F_INTS, F_OTHER } field_kind;
typedef struct field {
    const char *key;
    size_t      keylen;
    field_kind  kind;
    int64_t     i;              /* F_INT */
    const char *s;              /* F_STR, NUL-terminated once the record is read */
    size_t      slen;
    size_t      first, count;   /* F_INTS: r->ints[first .. first + count) */
} field;

struct rep_reader {
    rep_reader_sink sink;
    rep_read_stats  stats;
    ZSTD_DCtx      *dctx;
    unsigned char  *inbuf, *outbuf;
    size_t          incap, outcap;
    char           *line;            /* a line split across output chunks */
    size_t          linelen, linecap;
    char           *clamped;         /* a line with its too large integers clamped */
    size_t          clamped_cap;
    int             stop;            /* out of memory, or the sink said stop */
    int             counting;        /* rep_count_reports: find the files, say and read nothing */
    uint64_t        files_done;      /* files read to their end; atomic, for rep_reader_files_done */

    /* the file being read */
    const char *name;
    unsigned long frame;             /* number of the current frame, from 1 */
    unsigned long file_frames;       /* complete frames of this file */
    uint64_t      damaged_lines;     /* lines of this file skipped, named or not */

    /* the frame being read */
    int            began;            /* frame_begin was called */
    int            skip;             /* rejected: its remaining lines are ignored */
    int            footer;
    int            skipped_lines;
    uint64_t       lineno, parses, footer_records, footer_parses;
    frame_grammar *grammars;
    size_t         ngrammars, grammars_cap;

    /* decoding buffers, reused */
    field         *fields;
    size_t         nfields, fields_cap;
    int64_t       *ints;
    size_t         nints, ints_cap;
    rep_rule_info *rules;
    size_t         rules_cap;
    uint32_t      *frames;
    size_t         frames_cap;
    const char   **names;            /* a caller record's frames, a stack record's native frames */
    size_t         names_cap;
    const char   **argv;
    size_t         argv_cap;
};

static void say(rep_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Gives the sink one message: "NAME: TEXT". */
static void say(rep_reader *r, const char *fmt, ...)
{
    if (r->counting) return;
    char text[512];
    int n = snprintf(text, sizeof text, "%s: ", r->name);
    if (n < 0 || (size_t)n >= sizeof text) n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
    va_end(ap);
    r->stats.problems++;
    if (r->sink.message) r->sink.message(r->sink.ud, text);
}

static void skip_line(rep_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Skips the current line of the frame: "frame N, line L WHY; the line is
 * skipped" for the first REP_LINES_NAMED damaged lines of the file; the
 * others are only counted, and the end of the file says how many. */
static void skip_line(rep_reader *r, const char *fmt, ...)
{
    r->skipped_lines = 1;
    if (r->damaged_lines++ >= REP_LINES_NAMED) return;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    say(r, "frame %lu, line %llu%s; the line is skipped", r->frame, (unsigned long long)r->lineno, why);
}

static void out_of_memory(rep_reader *r)
{
    if (!r->stop) say(r, "out of memory");
    r->stop = 1;
}

int rep_reserve(void *buf, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < n) c *= 2;
    void *p = realloc(*(void **)buf, c * sz);
    if (!p) return -1;
    *(void **)buf = p;
    *cap = c;
    return 0;
}

rep_reader *rep_reader_new(const rep_reader_sink *sink)
{
    rep_reader *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->sink = *sink;
    r->dctx = ZSTD_createDCtx();
    r->incap = ZSTD_DStreamInSize();
    r->outcap = ZSTD_DStreamOutSize();
    r->inbuf = malloc(r->incap);
    r->outbuf = malloc(r->outcap);
    if (!r->dctx || !r->inbuf || !r->outbuf ||
        ZSTD_isError(ZSTD_DCtx_setParameter(r->dctx, ZSTD_d_windowLogMax, REP_WINDOW_LOG))) {
        rep_reader_free(r);
        return NULL;
    }
    return r;
}

void rep_reader_free(rep_reader *r)
{
    if (!r) return;
    ZSTD_freeDCtx(r->dctx);
    free(r->inbuf);
    free(r->outbuf);
    free(r->line);
    free(r->clamped);
    free(r->grammars);
    free(r->rules);
    free(r->frames);
    free(r->names);
    free(r->argv);
    free(r->fields);
    free(r->ints);
    free(r);
}

const rep_read_stats *rep_reader_stats(const rep_reader *r)
{
    return &r->stats;
}

uint64_t rep_reader_files_done(const rep_reader *r)
{
    return __atomic_load_n(&r->files_done, __ATOMIC_RELAXED);
}

static const char *frames_read(unsigned long n)
{
    static char text[48];
    snprintf(text, sizeof text, "%lu frame%s read", n, n == 1 ? "" : "s");
    return text;
}

/* ---- flat records ----
 *
 * Every record is parsed with jansson, which decides what is JSON, and first
 * seen as a table of its top-level fields, on which one set of checks works;
 * nested values (argv, a grammar's rules) are read from the jansson value. */

static const field *flat_get(const rep_reader *r, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = r->nfields; i-- > 0;)   /* the last of duplicate keys wins, as in jansson */
        if (r->fields[i].keylen == n && memcmp(r->fields[i].key, key, n) == 0) return &r->fields[i];
    return NULL;
}

/* The table of a jansson object's top-level fields. */
static int flatten(rep_reader *r, json_t *o)
{
    const char *key;
    json_t *v;
    r->nfields = r->nints = 0;
    json_object_foreach(o, key, v) {
        if (rep_reserve(&r->fields, &r->fields_cap, r->nfields + 1, sizeof *r->fields) < 0) return -1;
        field *f = &r->fields[r->nfields++];
        f->key = key;
        f->keylen = strlen(key);
        f->kind = F_OTHER;
        if (json_is_integer(v)) {
            f->kind = F_INT;
            f->i = json_integer_value(v);
        } else if (json_is_string(v)) {
            f->kind = F_STR;
            f->s = json_string_value(v);
            f->slen = strlen(f->s);
        } else if (json_is_null(v)) {
            f->kind = F_NULL;
        } else if (json_is_true(v)) {
            f->kind = F_TRUE;
        } else if (json_is_false(v)) {
            f->kind = F_FALSE;
        } else if (json_is_array(v)) {
            size_t n = json_array_size(v), k;
            if (rep_reserve(&r->ints, &r->ints_cap, r->nints + n, sizeof *r->ints) < 0) return -1;
            for (k = 0; k < n && json_is_integer(json_array_get(v, k)); k++)
                r->ints[r->nints + k] = json_integer_value(json_array_get(v, k));
            if (k == n) {
                f->kind = F_INTS;
                f->first = r->nints;
                f->count = n;
                r->nints += n;
            }
        }
    }
    return 0;
}

/* A count: absent is 0; anything but a non-negative integer is bad. */
static uint64_t count_field(rep_reader *r, const char *key, const char **bad)
{
    const field *f = flat_get(r, key);
    if (!f) return 0;
    if (f->kind != F_INT || f->i < 0) {
        if (!*bad) *bad = key;
        return 0;
    }
    return (uint64_t)f->i;
}

/* A required id below limit. */
static uint32_t id_field(rep_reader *r, const char *key, uint64_t limit, const char **bad)
{
    const field *f = flat_get(r, key);
    if (!f || f->kind != F_INT || f->i < 0 || (uint64_t)f->i >= limit) {
        if (!*bad) *bad = key;
        return 0;
    }
    return (uint32_t)f->i;
}

/* A source position (line or column): absent is 0. */
static uint32_t position_field(rep_reader *r, const char *key, const char **bad)
{
    uint64_t v = count_field(r, key, bad);
    if (v > UINT32_MAX) {
        if (!*bad) *bad = key;
        return 0;
    }
    return (uint32_t)v;
}

/* A string: absent is "". */
static const char *string_field(rep_reader *r, const char *key, const char **bad)
{
    const field *f = flat_get(r, key);
    if (!f) return "";
    if (f->kind != F_STR) {
        if (!*bad) *bad = key;
        return "";
    }
    return f->s;
}

/* The frame's grammar with this id, or NULL. */
static const frame_grammar *find_grammar(const rep_reader *r, uint32_t id)
{
    for (size_t i = 0; i < r->ngrammars; i++)
        if (r->grammars[i].id == id) return &r->grammars[i];
    return NULL;
}

/* The "grammar" field of a record, which must name a grammar of the frame. */
static const frame_grammar *grammar_field(rep_reader *r, const char **bad)
{
    uint32_t id = id_field(r, "grammar", UINT32_MAX, bad);
    const frame_grammar *g = *bad ? NULL : find_grammar(r, id);
    if (!g && !*bad) *bad = "grammar";
    return g;
}

/* "2026-11-29T16:40:00Z" to Unix seconds. */
static int parse_time(const char *s, int64_t *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    char z = 0;
    int used = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &z, &used) != 7 || z != 'Z' || s[used] != '\0')
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *out = (int64_t)timegm(&tm);
    return 0;
}

/* ---- records ---- */

/* Checks and hands over the header (o: its jansson value); returns 0
 * (accepted or rejected) or -1. */
static int read_header(rep_reader *r, json_t *o)
{
    const char *bad = NULL;
    const field *fmt = flat_get(r, "format"), *ver = flat_get(r, "version");
    if (!fmt || fmt->kind != F_STR || strcmp(fmt->s, REP_FORMAT_NAME) != 0) {
        say(r, "frame %lu is not a pego profile; skipped", r->frame);
        r->skip = 1;
        return 0;
    }
    if (!ver || ver->kind != F_INT || ver->i < 1) {
        say(r, "frame %lu: bad header record (field version); skipped", r->frame);
        r->skip = 1;
        return 0;
    }
    if (ver->i > REP_FORMAT_VERSION) {
        say(r, "frame %lu has format version %lld; this pego reads version %d; skipped", r->frame,
            (long long)ver->i, REP_FORMAT_VERSION);
        r->skip = 1;
        return 0;
    }
    rep_header h;
    memset(&h, 0, sizeof h);
    h.version = (int)ver->i;
    h.pego = string_field(r, "pego", &bad);
    const field *pid = flat_get(r, "pid");
    if (pid && pid->kind != F_INT) bad = "pid";
    h.pid = pid && pid->kind == F_INT ? pid->i : 0;
    h.host = string_field(r, "host", &bad);
    json_t *argv = json_object_get(o, "argv");
    if (argv && !json_is_array(argv) && !bad) bad = "argv";
    size_t argc = json_is_array(argv) ? json_array_size(argv) : 0;
    if (rep_reserve(&r->argv, &r->argv_cap, argc + 1, sizeof *r->argv) < 0) {
        out_of_memory(r);
        return -1;
    }
    for (size_t i = 0; i < argc; i++) {
        json_t *a = json_array_get(argv, i);
        if (!json_is_string(a) && !bad) bad = "argv";
        r->argv[i] = json_is_string(a) ? json_string_value(a) : "";
    }
    r->argv[argc] = NULL;
    h.argc = (int)argc;
    h.argv = r->argv;
    const char *start = string_field(r, "start", &bad);
    if (*start && parse_time(start, &h.start) < 0 && !bad) bad = "start";
    h.clock = string_field(r, "clock", &bad);
    h.mode = string_field(r, "mode", &bad);
    const field *detail = flat_get(r, "detail");
    if (detail && detail->kind != F_TRUE && detail->kind != F_FALSE && !bad) bad = "detail";
    h.detail = detail && detail->kind == F_TRUE;
    const field *memory = flat_get(r, "memory");
    if (memory && memory->kind != F_TRUE && memory->kind != F_FALSE && !bad) bad = "memory";
    h.memory = memory && memory->kind == F_TRUE;
    h.clock_reads = count_field(r, "clock_reads", &bad);
    h.sample_interval_ns = count_field(r, "sample_interval_ns", &bad);
    h.samples = count_field(r, "samples", &bad);
    h.samples_lost = count_field(r, "samples_lost", &bad);
    h.sample_interval_max_ns = count_field(r, "sample_interval_max_ns", &bad);
    if (bad) {
        say(r, "frame %lu: bad header record (field %s); skipped", r->frame, bad);
        r->skip = 1;
        return 0;
    }
    r->began = 1;
    if (r->sink.frame_begin && r->sink.frame_begin(r->sink.ud, &h) < 0) {
        r->stop = 1;
        return -1;
    }
    return 0;
}

/* Decodes a grammar record (o: its jansson value) into g, its rules in
 * r->rules; returns the bad field, or NULL. *oom is set when out of memory. */
static const char *decode_grammar(rep_reader *r, json_t *o, rep_grammar *g, int *oom)
{
    const char *bad = NULL;
    g->id = id_field(r, "id", UINT32_MAX, &bad);
    if (!bad && find_grammar(r, g->id)) return "id";
    g->name = string_field(r, "name", &bad);
    g->file = string_field(r, "file", &bad);
    const char *hex = string_field(r, "hash", &bad);
    size_t n = strlen(hex);
    char *end = NULL;
    g->hash = n ? strtoull(hex, &end, 16) : 0;
    if (n == 0 || n > 16 || *end || strspn(hex, "0123456789abcdefABCDEF") != n) return bad ? bad : "hash";
    json_t *rules = json_object_get(o, "rules");
    if (!json_is_array(rules)) return bad ? bad : "rules";
    g->nrules = json_array_size(rules);
    if (rep_reserve(&r->rules, &r->rules_cap, g->nrules, sizeof *r->rules) < 0) {
        *oom = 1;
        return NULL;
    }
    for (size_t i = 0; i < g->nrules && !bad; i++) {
        json_t *ri = json_array_get(rules, i);
        json_t *id = json_object_get(ri, "id"), *name = json_object_get(ri, "name");
        json_t *line = json_object_get(ri, "line"), *col = json_object_get(ri, "col");
        if (!json_is_object(ri) || !json_is_string(name) ||
            (id && (!json_is_integer(id) || json_integer_value(id) != (json_int_t)i)) ||
            (line && (!json_is_integer(line) || json_integer_value(line) < 0 || json_integer_value(line) > UINT32_MAX)) ||
            (col && (!json_is_integer(col) || json_integer_value(col) < 0 || json_integer_value(col) > UINT32_MAX))) {
            bad = "rules";
            break;
        }
        r->rules[i].name = json_string_value(name);
        r->rules[i].line = line ? (uint32_t)json_integer_value(line) : 0;
        r->rules[i].col = col ? (uint32_t)json_integer_value(col) : 0;
    }
    g->rules = r->rules;
    json_t *source = json_object_get(o, "source");
    if (source && !json_is_string(source) && !bad) bad = "source";
    g->source = json_is_string(source) ? json_string_value(source) : NULL;
    g->source_len = json_is_string(source) ? json_string_length(source) : 0;
    return bad;
}

/* Decodes one record of a frame (not the header, not the footer) and hands it
 * over; o is its jansson value. */
static int read_record(rep_reader *r, const char *type, json_t *o)
{
    const char *bad = NULL;
    const frame_grammar *g;
    int oom = 0;
    union { rep_grammar g; rep_parse p; rep_rule r; rep_edge e; rep_stack s; rep_line l; rep_caller c; } rec;
    rep_record_kind kind;
    memset(&rec, 0, sizeof rec);
    if (strcmp(type, "grammar") == 0) {
        kind = REP_REC_GRAMMAR;
        bad = decode_grammar(r, o, &rec.g, &oom);
        if (!bad && !oom && rep_reserve(&r->grammars, &r->grammars_cap, r->ngrammars + 1, sizeof *r->grammars) < 0)
            oom = 1;
    } else if (strcmp(type, "parse") == 0) {
        kind = REP_REC_PARSE;
        g = grammar_field(r, &bad);
        rec.p.grammar = g ? g->id : 0;
        rec.p.id = count_field(r, "id", &bad);
        rec.p.input = string_field(r, "input", &bad);
        rec.p.bytes = count_field(r, "bytes", &bad);
        const char *unit = string_field(r, "unit", &bad);
        if (strcmp(unit, "codepoints") == 0) rec.p.unit = REP_UNIT_CODEPOINTS;
        else if (strcmp(unit, "bytes") != 0 && !bad) bad = "unit";
        const char *result = string_field(r, "result", &bad);
        if (strcmp(result, "syntax error") == 0) rec.p.result = REP_RESULT_SYNTAX_ERROR;
        else if (strcmp(result, "aborted") == 0) rec.p.result = REP_RESULT_ABORTED;
        else if (strcmp(result, "nesting limit") == 0) rec.p.result = REP_RESULT_NESTING_LIMIT;
        else if (strcmp(result, "ok") != 0 && !bad) bad = "result";
        const char *source = string_field(r, "source", &bad);      /* optional: a text given whole */
        if (strcmp(source, "stream") == 0) rec.p.source = REP_SOURCE_STREAM;
        else if (strcmp(source, "document") == 0) rec.p.source = REP_SOURCE_DOCUMENT;
        else if (*source && strcmp(source, "text") != 0 && !bad) bad = "source";
        rec.p.time_ns = count_field(r, "time_ns", &bad);
        rec.p.calls = count_field(r, "calls", &bad);
        rec.p.evals = count_field(r, "evals", &bad);
        rec.p.memo = count_field(r, "memo", &bad);
        rec.p.clock_reads = count_field(r, "clock_reads", &bad);
        rec.p.node_bytes = count_field(r, "node_bytes", &bad);
        rec.p.memo_bytes = count_field(r, "memo_bytes", &bad);
        rec.p.peak_node_bytes = count_field(r, "peak_node_bytes", &bad);
        rec.p.peak_memo_bytes = count_field(r, "peak_memo_bytes", &bad);
        rec.p.peak_stack_bytes = count_field(r, "peak_stack_bytes", &bad);
        const field *top = flat_get(r, "top_rule");
        rec.p.top_rule = REP_NO_RULE;
        if (top && top->kind != F_NULL && g) rec.p.top_rule = id_field(r, "top_rule", g->nrules, &bad);
    } else if (strcmp(type, "rule") == 0) {
        kind = REP_REC_RULE;
        g = grammar_field(r, &bad);
        rec.r.grammar = g ? g->id : 0;
        rec.r.rule = id_field(r, "rule", g ? g->nrules : 0, &bad);
#define READ_COUNT(field, which) rec.r.field = count_field(r, #field, &bad);
        REP_RULE_COUNTS(READ_COUNT)
#undef READ_COUNT
    } else if (strcmp(type, "edge") == 0) {
        kind = REP_REC_EDGE;
        g = grammar_field(r, &bad);
        rec.e.grammar = g ? g->id : 0;
        rec.e.caller = id_field(r, "caller", g ? g->nrules : 0, &bad);
        rec.e.callee = id_field(r, "callee", g ? g->nrules : 0, &bad);
        rec.e.calls = count_field(r, "calls", &bad);
        rec.e.time_ns = count_field(r, "time_ns", &bad);
    } else if (strcmp(type, "stack") == 0) {
        kind = REP_REC_STACK;
        g = grammar_field(r, &bad);
        rec.s.grammar = g ? g->id : 0;
        const field *frames = flat_get(r, "frames");
        size_t n = frames && frames->kind == F_INTS ? frames->count : 0;
        if (n == 0 && !bad) bad = "frames";
        if (rep_reserve(&r->frames, &r->frames_cap, n, sizeof *r->frames) < 0) oom = 1;
        for (size_t i = 0; i < n && !bad && !oom; i++) {
            int64_t f = r->ints[frames->first + i];
            if (f < 0 || (uint64_t)f >= g->nrules) bad = "frames";
            else r->frames[i] = (uint32_t)f;
        }
        rec.s.nframes = n;
        rec.s.frames = r->frames;
        rec.s.calls = count_field(r, "calls", &bad);
        rec.s.self_ns = count_field(r, "self_ns", &bad);
        rec.s.node_bytes = count_field(r, "node_bytes", &bad);
        rec.s.line = position_field(r, "line", &bad);
        rec.s.col = position_field(r, "col", &bad);
        json_t *native = json_object_get(o, "native");   /* absent from older writers, and from exact frames */
        size_t nn = json_is_array(native) ? json_array_size(native) : 0;
        if (native && !json_is_array(native) && !bad) bad = "native";
        if (!oom && rep_reserve(&r->names, &r->names_cap, nn, sizeof *r->names) < 0) oom = 1;
        for (size_t i = 0; i < nn && !bad && !oom; i++) {
            r->names[i] = json_string_value(json_array_get(native, i));
            if (!r->names[i] || !*r->names[i]) bad = "native";
        }
        rec.s.nnative = nn;
        rec.s.native = r->names;
    } else if (strcmp(type, "line") == 0) {
        kind = REP_REC_LINE;
        g = grammar_field(r, &bad);
        rec.l.grammar = g ? g->id : 0;
        rec.l.line = position_field(r, "line", &bad);
        rec.l.col = position_field(r, "col", &bad);
        if (!rec.l.line && !bad) bad = "line";
        rec.l.samples = count_field(r, "samples", &bad);
        rec.l.self_ns = count_field(r, "self_ns", &bad);
    } else if (strcmp(type, "caller") == 0) {
        kind = REP_REC_CALLER;
        json_t *frames = json_object_get(o, "frames");
        size_t n = json_is_array(frames) ? json_array_size(frames) : 0;
        if (n == 0) bad = "frames";
        if (rep_reserve(&r->names, &r->names_cap, n, sizeof *r->names) < 0) oom = 1;
        for (size_t i = 0; i < n && !bad && !oom; i++) {
            r->names[i] = json_string_value(json_array_get(frames, i));
            if (!r->names[i]) bad = "frames";
        }
        rec.c.nframes = n;
        rec.c.frames = r->names;
        rec.c.parses = count_field(r, "parses", &bad);
        rec.c.time_ns = count_field(r, "time_ns", &bad);
    } else {
        return 0;   /* a record type of a later version: ignored */
    }
    if (oom) {
        out_of_memory(r);
        return -1;
    }
    if (bad) {
        skip_line(r, ": bad %s record (field %s)", type, bad);
        return 0;
    }
    if (kind == REP_REC_GRAMMAR) {
        r->grammars[r->ngrammars].id = rec.g.id;
        r->grammars[r->ngrammars].nrules = rec.g.nrules;
        r->ngrammars++;
    }
    if (kind == REP_REC_PARSE) r->parses++;
    if (r->sink.record && r->sink.record(r->sink.ud, kind, &rec) < 0) {
        r->stop = 1;
        return -1;
    }
    return 0;
}

/* A record of the frame after the header, its fields in the table. */
static int read_fields(rep_reader *r, json_t *o)
{
    const field *type = flat_get(r, "type");
    if (!type || type->kind != F_STR) {
        skip_line(r, " is not a report record");
        return 0;
    }
    if (strcmp(type->s, "header") == 0) {
        skip_line(r, " is a second header");
        return 0;
    }
    if (strcmp(type->s, "footer") == 0) {
        const char *bad = NULL;
        r->footer_parses = count_field(r, "parses", &bad);
        r->footer_records = count_field(r, "records", &bad);
        r->footer = 1;
        if (bad) {
            say(r, "frame %lu: bad footer record (field %s); skipped", r->frame, bad);
            r->skip = 1;
        }
        return 0;
    }
    return read_record(r, type->s, o);
}

/* Whether a line cannot be a record without being parsed: it does not start
 * with '{'. */
static int not_an_object(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) i++;
    return i == len || text[i] != '{';
}

/* Copies the number at text[0 .. len) to out, an integer beyond REP_COUNT_MAX
 * as REP_COUNT_MAX (keeping its sign); returns the bytes written, at most len. */
static size_t clamp_number(const char *text, size_t len, char *out)
{
    char max[24];
    size_t maxlen = (size_t)snprintf(max, sizeof max, "%lld", (long long)REP_COUNT_MAX);
    size_t sign = text[0] == '-', digits = sign;
    while (digits < len && isdigit((unsigned char)text[digits])) digits++;
    digits -= sign;
    int beyond = digits == len - sign && digits && text[sign] != '0' &&
                 (digits > maxlen || (digits == maxlen && memcmp(text + sign, max, maxlen) > 0));
    if (!beyond) {
        memcpy(out, text, len);
        return len;
    }
    memcpy(out, text, sign);
    memcpy(out + sign, max, maxlen);
    return sign + maxlen;
}

/* Parses a line with jansson, which holds integers as int64_t: a line with a
 * larger one is parsed again with each such integer clamped to REP_COUNT_MAX,
 * so that a count beyond it reads as REP_COUNT_MAX (docs/report-format.md,
 * Counts). NULL if it is not JSON, or when out of memory (said, r->stop). */
static json_t *load_line(rep_reader *r, const char *text, size_t len)
{
    json_error_t err;
    json_t *o = json_loadb(text, len, 0, &err);
    if (o || json_error_code(&err) != json_error_numeric_overflow) return o;
    if (rep_reserve(&r->clamped, &r->clamped_cap, len, 1) < 0) {
        out_of_memory(r);
        return NULL;
    }
    size_t n = 0;
    int in_string = 0;
    for (size_t i = 0; i < len;) {
        char c = text[i];
        if (!in_string && (c == '-' || isdigit((unsigned char)c))) {
            size_t end = i + 1;
            while (end < len && (isdigit((unsigned char)text[end]) || text[end] == '.' || text[end] == 'e' ||
                                 text[end] == 'E' || text[end] == '+' || text[end] == '-'))
                end++;
            n += clamp_number(text + i, end - i, r->clamped + n);
            i = end;
            continue;
        }
        if (c == '"') in_string = !in_string;
        r->clamped[n++] = text[i++];
        if (in_string && c == '\\' && i < len) r->clamped[n++] = text[i++];
    }
    return json_loadb(r->clamped, n, 0, &err);
}

/* One line of the frame's text, parsed with jansson. Once the file's damaged
 * lines are no longer named, a line that cannot be a record is skipped
 * without parsing it, so that a frame of millions of them reads fast. */
static int read_line(rep_reader *r, char *text, size_t len)
{
    r->lineno++;
    if (r->skip) return 0;
    if (r->footer) {
        say(r, "frame %lu has records after its footer; skipped", r->frame);
        r->skip = 1;
        return 0;
    }
    if (r->lineno > 1 && r->damaged_lines >= REP_LINES_NAMED && not_an_object(text, len)) {
        skip_line(r, " is not a record");   /* counted, not named */
        return 0;
    }
    json_t *o = load_line(r, text, len);
    if (!o && r->stop) return -1;
    int rc = 0;
    if (o && flatten(r, o) < 0) {
        out_of_memory(r);
        rc = -1;
    } else if (r->lineno == 1) {
        const field *type = o ? flat_get(r, "type") : NULL;
        if (!type || type->kind != F_STR || strcmp(type->s, "header") != 0) {
            say(r, "frame %lu does not start with a header record; skipped", r->frame);
            r->skip = 1;
        } else {
            rc = read_header(r, o);
        }
    } else if (!o) {
        skip_line(r, " is not JSON");
    } else {
        rc = read_fields(r, o);
    }
    json_decref(o);
    return rc;
}

/* ---- frames ---- */

static void frame_start(rep_reader *r)
{
    r->began = r->skip = r->footer = r->skipped_lines = 0;
    r->lineno = r->parses = r->footer_records = r->footer_parses = 0;
    r->ngrammars = 0;
    r->linelen = 0;
}

/* Ends a frame that cannot be used (its message was given). */
static void frame_drop(rep_reader *r)
{
    if (r->began && r->sink.frame_end) r->sink.frame_end(r->sink.ud, 0);
    r->began = 0;
}

/* The zstd frame ended whole: the last line, then the footer's checks. */
static int frame_finish(rep_reader *r)
{
    if (r->linelen && !r->skip) {
        int rc = read_line(r, r->line, r->linelen);
        r->linelen = 0;
        if (rc < 0) return -1;
    }
    if (!r->skip) {
        if (r->lineno == 0) {
            say(r, "frame %lu does not start with a header record; skipped", r->frame);
            r->skip = 1;
        } else if (!r->footer) {
            say(r, "frame %lu has no footer (the report was cut short); skipped", r->frame);
            r->skip = 1;
        } else if (r->footer_records != r->lineno) {
            say(r, "frame %lu: its footer counts %llu records but %llu were read; skipped", r->frame,
                (unsigned long long)r->footer_records, (unsigned long long)r->lineno);
            r->skip = 1;
        } else if (!r->skipped_lines && r->footer_parses != r->parses) {
            say(r, "frame %lu: its footer counts %llu parses but %llu were read; skipped", r->frame,
                (unsigned long long)r->footer_parses, (unsigned long long)r->parses);
            r->skip = 1;
        }
    }
    if (r->skip) {
        frame_drop(r);
        return 0;
    }
    if (r->sink.frame_end) r->sink.frame_end(r->sink.ud, 1);
    r->began = 0;
    r->stats.frames++;
    r->file_frames++;
    return 0;
}

/* Splits decompressed text into lines. */
static int take_output(rep_reader *r, char *data, size_t len)
{
    while (len && !r->skip) {
        char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        if (r->linelen + n > REP_MAX_LINE) {
            say(r, "frame %lu, line %llu is longer than %u MiB; skipped", r->frame,
                (unsigned long long)r->lineno + 1, REP_MAX_LINE >> 20);
            r->skip = 1;
            r->linelen = 0;
            return 0;
        }
        if (nl && r->linelen == 0) {
            if (read_line(r, data, n) < 0) return -1;
        } else {
            if (rep_reserve(&r->line, &r->linecap, r->linelen + n + 1, 1) < 0) {
                out_of_memory(r);
                return -1;
            }
            memcpy(r->line + r->linelen, data, n);
            r->linelen += n;
            if (nl) {
                int rc = read_line(r, r->line, r->linelen);
                r->linelen = 0;
                if (rc < 0) return -1;
            }
        }
        if (!nl) break;
        data += n + 1;
        len -= n + 1;
    }
    return 0;
}

/* ---- streams, files, directories ---- */

/* Where compressed bytes come from: a file descriptor, or memory given at
 * once; base is the offset in the file of the input buffer's first byte. */
typedef struct source {
    int                  fd;
    const unsigned char *mem;
    size_t               memlen;
    uint64_t             base;
} source;

/* Reads the bytes after the input buffer into it: 1 data, 0 end, -1 read
 * error (errno). */
static int refill(rep_reader *r, source *src, ZSTD_inBuffer *in)
{
    if (src->fd < 0) return 0;   /* memory: the buffer holds it all */
    src->base += in->size;
    in->src = r->inbuf;
    in->size = in->pos = 0;
    for (;;) {
        ssize_t n = read(src->fd, r->inbuf, r->incap);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        in->size = (size_t)n;
        return n > 0;
    }
}

/* Makes sure the input has a byte to read: 1, 0 at the end, -1 on a read
 * error (said). */
static int have_input(rep_reader *r, source *src, ZSTD_inBuffer *in)
{
    while (in->pos == in->size) {
        int got = refill(r, src, in);
        if (got < 0) say(r, "read error: %s", strerror(errno));
        if (got <= 0) return got;
    }
    return 1;
}

/* Moves the input back to offset off of the file: 0, or -1 when the source
 * cannot go back (a pipe). */
static int seek_input(source *src, ZSTD_inBuffer *in, uint64_t off)
{
    if (off >= src->base && off - src->base <= in->size) {
        in->pos = (size_t)(off - src->base);
        return 0;
    }
    if (src->fd < 0 || lseek(src->fd, (off_t)off, SEEK_SET) < 0) return -1;
    src->base = off;
    in->pos = in->size = 0;
    return 0;
}

#define ZSTD_MAGIC 0xFD2FB528u

/* Reads on to the next zstd frame's magic number: 1 when found (*at is its
 * offset, the input is just after it), 0 at the end, -1 on a read error (said). */
static int find_frame(rep_reader *r, source *src, ZSTD_inBuffer *in, uint64_t *at)
{
    uint32_t window = 0;
    for (;;) {
        int got = have_input(r, src, in);
        if (got <= 0) return got;
        const unsigned char *p = in->src;
        while (in->pos < in->size) {
            window = window >> 8 | (uint32_t)p[in->pos++] << 24;
            if (window == ZSTD_MAGIC) {
                *at = src->base + in->pos - 4;
                return 1;
            }
        }
    }
}

enum { FRAME_WHOLE, FRAME_NOT_ZSTD, FRAME_DAMAGED, FRAME_CUT, FRAME_READ_ERROR, FRAME_STOP };

/* Decodes one zstd frame from the input, giving its lines to read_line; with
 * magic_read, find_frame has read its magic number. Returns FRAME_WHOLE (the frame
 * ended and was finished), FRAME_NOT_ZSTD (no zstd frame starts there),
 * FRAME_DAMAGED (said), FRAME_CUT (the input ended inside it),
 * FRAME_READ_ERROR (said), or FRAME_STOP (out of memory, or the sink said so). */
static int decode_frame(rep_reader *r, source *src, ZSTD_inBuffer *in, int magic_read)
{
    static const unsigned char magic[4] = { 0x28, 0xB5, 0x2F, 0xFD };
    ZSTD_inBuffer magic_in = { magic, magic_read ? sizeof magic : 0, 0 };
    int pending = 0;   /* the output buffer was filled: the decoder may hold more */
    frame_start(r);
    ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
    for (;;) {
        ZSTD_inBuffer *feed = magic_in.pos < magic_in.size ? &magic_in : in;
        if (feed == in && in->pos == in->size && !pending) {
            int got = have_input(r, src, in);
            if (got < 0) return FRAME_READ_ERROR;
            if (got == 0) return FRAME_CUT;
        }
        ZSTD_outBuffer out = { r->outbuf, r->outcap, 0 };
        size_t ret = ZSTD_decompressStream(r->dctx, &out, feed);
        if (ZSTD_isError(ret)) {
            ZSTD_ErrorCode code = ZSTD_getErrorCode(ret);
            if (code == ZSTD_error_prefix_unknown) return FRAME_NOT_ZSTD;
            if (code == ZSTD_error_checksum_wrong)
                say(r, "frame %lu has a bad checksum; skipped", r->frame);
            else
                say(r, "frame %lu is damaged (zstd: %s); skipped", r->frame, ZSTD_getErrorName(ret));
            return FRAME_DAMAGED;
        }
        pending = out.pos == out.size;
        if (take_output(r, (char *)r->outbuf, out.pos) < 0) return FRAME_STOP;
        if (ret == 0) return frame_finish(r) < 0 ? FRAME_STOP : FRAME_WHOLE;
    }
}

/* Reads every frame of one file or memory block. A frame that cannot be used
 * hides none after it: the next zstd magic number is looked for from the
 * frame's second byte (from a pipe, which cannot go back, from where decoding
 * stopped), so that a damaged frame, one cut short with frames after it, or
 * bytes that are no zstd frame are each one message, and every whole frame
 * after them is read. */
static int read_stream(rep_reader *r, source *src)
{
    ZSTD_inBuffer in = { src->mem, src->fd < 0 ? src->memlen : 0, 0 };
    uint64_t start = 0;   /* where the frame being read starts */
    int found = 0;        /* find_frame has read its magic number */
    r->file_frames = 0;
    r->damaged_lines = 0;
    for (r->frame = 1;; r->frame++) {
        if (!found) {
            int got = have_input(r, src, &in);
            if (got == 0 && src->base + in.size == 0) say(r, "empty file, no report in it");
            if (got <= 0) break;
            start = src->base + in.pos;
        }
        int rc = decode_frame(r, src, &in, found);
        if (rc == FRAME_STOP) return -1;
        found = 0;
        if (rc == FRAME_WHOLE) continue;
        frame_drop(r);
        if (rc == FRAME_READ_ERROR) break;
        /* the next frame, from this one's second byte; from a pipe, from where
         * decoding stopped (one byte on if no frame started there) */
        if (seek_input(src, &in, start + 1) < 0 && rc == FRAME_NOT_ZSTD && in.pos < in.size) in.pos++;
        uint64_t next = 0;
        found = find_frame(r, src, &in, &next);
        if (found < 0) break;
        const char *after = found ? "skipped" : frames_read(r->file_frames);
        uint64_t len = (found ? next : src->base + in.pos) - start;
        if (rc == FRAME_NOT_ZSTD && r->frame == 1 && !found)
            say(r, "not a report file (not zstd-compressed)");
        else if (rc == FRAME_NOT_ZSTD)
            say(r, "frame %lu is not a zstd frame (%llu bytes at offset %llu); %s", r->frame,
                (unsigned long long)len, (unsigned long long)start, after);
        else if (rc == FRAME_CUT)
            say(r, "frame %lu is truncated; %s", r->frame, after);
        if (!found) break;
        start = next;
    }
    if (r->damaged_lines > REP_LINES_NAMED) {
        uint64_t more = r->damaged_lines - REP_LINES_NAMED;
        say(r, "%llu more damaged line%s not shown", (unsigned long long)more, more == 1 ? "" : "s");
    }
    return r->stop ? -1 : 0;
}

int rep_read_memory(rep_reader *r, const char *name, const void *data, size_t len)
{
    source src = { -1, data ? data : (const void *)"", len, 0 };
    r->name = name;
    r->stats.files++;
    return read_stream(r, &src);
}

static int read_file(rep_reader *r, const char *path)
{
    r->name = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(r, "%s", strerror(errno));
        return 0;
    }
    r->stats.files++;
    source src = { fd, NULL, 0, 0 };
    int rc = read_stream(r, &src);
    close(fd);
    __atomic_fetch_add(&r->files_done, 1, __ATOMIC_RELAXED);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with_zst(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".zst") == 0;
}

/* Reads every *.zst below dir, in name order; counts them in *found. */
static int read_dir(rep_reader *r, const char *dir, size_t *found)
{
    DIR *d = opendir(dir);
    if (!d) {
        r->name = dir;
        say(r, "%s", strerror(errno));
        return 0;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char *s = NULL;
        if (rep_reserve(&names, &cap, n + 1, sizeof *names) < 0 || !(s = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        names[n++] = s;
    }
    closedir(d);
    if (rc == 0 && n) qsort(names, n, sizeof *names, by_name);
    size_t dlen = strlen(dir);
    int slash = dlen && dir[dlen - 1] == '/';
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *path = malloc(dlen + strlen(names[i]) + 2);
        if (!path) { rc = -1; break; }
        sprintf(path, "%s%s%s", dir, slash ? "" : "/", names[i]);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            rc = read_dir(r, path, found);
        } else if (ends_with_zst(names[i]) && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            (*found)++;
            rc = r->counting ? 0 : read_file(r, path);
        }
        free(path);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    if (rc < 0) out_of_memory(r);
    return rc;
}

int rep_read_path(rep_reader *r, const char *path)
{
    struct stat st;
    r->name = path;
    if (stat(path, &st) < 0) {
        say(r, "%s", strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) return read_file(r, path);
    size_t found = 0;
    int rc = read_dir(r, path, &found);
    if (rc == 0 && found == 0) {
        r->name = path;
        say(r, "no reports found");
    }
    return rc;
}

uint64_t rep_count_reports(const char *path)
{
    rep_reader r = { .counting = 1 };
    struct stat st;
    if (stat(path, &st) < 0) return 0;
    if (!S_ISDIR(st.st_mode)) return 1;
    size_t found = 0;
    read_dir(&r, path, &found);
    return found;
}
