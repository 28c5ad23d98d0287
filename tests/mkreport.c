/* mkreport: writes report files through the report writer
 * (runtime/report_writer.c), for the tests and the benchmark of pego report.
 *
 *   mkreport [--append] [--truncate N] OUT [DESCRIPTION]
 *       writes the frames described in DESCRIPTION (standard input by default)
 *       to OUT: the first frame replaces OUT (unless --append), the others are
 *       appended; --truncate N then cuts N bytes off the end of OUT.
 *   mkreport --synthetic N DIR
 *       writes N reports of a realistic size (a JSON-like grammar of 24 rules,
 *       50 parses, its call graph and a calling-context tree of 150 paths, the
 *       same in every report as one grammar gives) to DIR/rNNNN.zst.
 *
 * A description has one record per line, as words KEY=VALUE ('#' starts a
 * comment line). Unset numbers are 0; rule ids may be given by rule name.
 *
 *   frame pid=1 host=ci-1 start=1764434400 detail=1 argv=pego,parse,x.json
 *         clock=monotonic mode=exact clock_reads=100
 *         (mode=sampled: sample_interval_ns=250000 samples=40 samples_lost=0,
 *          and sample_interval_max_ns=1000000 for a timer slowed down)
 *         (memory=1: the memory fields of parse, rule and stack records)
 *   grammar id=1 name=json file=json.pego hash=00000000000000aa rules=main,value,string
 *   parse grammar=1 input=a.json bytes=100 unit=bytes result=ok time_ns=5000
 *         calls=50 evals=40 memo=10 clock_reads=100 top_rule=value
 *         (memory frames: node_bytes memo_bytes peak_node_bytes peak_memo_bytes peak_stack_bytes)
 *   rule grammar=1 rule=value calls=10 evals=9 memo=1 matched=8 failed=2 repeats=0
 *         max_repeats=0 max_repeats_pos=0 consumed=90 wasted=3 time_ns=900 self_ns=400
 *         (sampled frames: samples=12; memory frames: nodes node_bytes memo_entries memo_bytes)
 *   edge grammar=1 caller=main callee=value calls=1 time_ns=900
 *   stack grammar=1 frames=main,value calls=1 self_ns=400 (memory frames: node_bytes)
 *
 * A frame's clock and mode default to monotonic and exact; without detail=1,
 * its rule records have no repeats and wasted, as the writer writes them.
 * Instead of hash=, source=TEXT hashes TEXT with rep_hash(). result is ok,
 * syntax-error or aborted; top_rule=none gives a parse without a top rule. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runtime/report_writer.h"

#define MAX_WORDS  64
#define MAX_RULES  256
#define MAX_GRAMS  16

typedef struct grammar_names {
    uint32_t id;
    size_t   nrules;
    char    *names[MAX_RULES];
} grammar_names;

typedef struct state {
    const char   *out;
    int           append, frames, line, parses;
    rep_builder  *b;
    grammar_names g[MAX_GRAMS];
    size_t        ng;
    char         *argv_copy;
    const char   *argv[MAX_WORDS];
    char         *host_copy;
} state;

static void die(const state *s, const char *msg, const char *arg)
{
    if (s && s->line) fprintf(stderr, "mkreport: line %d: %s%s\n", s->line, msg, arg ? arg : "");
    else fprintf(stderr, "mkreport: %s%s\n", msg, arg ? arg : "");
    exit(2);
}

/* The value of KEY= among the words, or NULL. */
static const char *value(char **words, int n, const char *key)
{
    size_t k = strlen(key);
    for (int i = 1; i < n; i++)
        if (strncmp(words[i], key, k) == 0 && words[i][k] == '=') return words[i] + k + 1;
    return NULL;
}

static uint64_t number(const state *s, char **words, int n, const char *key)
{
    const char *v = value(words, n, key);
    if (!v) return 0;
    char *end;
    errno = 0;
    uint64_t x = strtoull(v, &end, 0);
    if (*end || errno) die(s, "bad number: ", v);
    return x;
}

static grammar_names *grammar(state *s, char **words, int n)
{
    uint32_t id = (uint32_t)number(s, words, n, "grammar");
    for (size_t i = 0; i < s->ng; i++)
        if (s->g[i].id == id) return &s->g[i];
    die(s, "unknown grammar id in: ", words[0]);
    return NULL;
}

/* A rule id given as a number or by name. */
static uint32_t rule_id(state *s, grammar_names *g, const char *v)
{
    if (!v) die(s, "missing rule", NULL);
    if (strcmp(v, "none") == 0) return REP_NO_RULE;
    for (size_t i = 0; i < g->nrules; i++)
        if (strcmp(g->names[i], v) == 0) return (uint32_t)i;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (*end) die(s, "unknown rule: ", v);
    return (uint32_t)x;
}

static void flush_frame(state *s)
{
    if (!s->b) return;
    char err[512];
    if (rep_write_file(s->b, s->out, s->append || s->frames > 0, err, sizeof err) < 0) die(NULL, err, NULL);
    s->frames++;
    rep_builder_free(s->b);
    s->b = NULL;
    s->parses = 0;
    for (size_t i = 0; i < s->ng; i++)
        for (size_t j = 0; j < s->g[i].nrules; j++) free(s->g[i].names[j]);
    s->ng = 0;
}

static void start_frame(state *s, char **w, int n)
{
    flush_frame(s);
    free(s->argv_copy);
    free(s->host_copy);
    const char *argv = value(w, n, "argv");
    s->argv_copy = strdup(argv ? argv : "pego,parse");
    const char *host = value(w, n, "host");
    s->host_copy = strdup(host ? host : "test");
    int argc = 0;
    for (char *p = strtok(s->argv_copy, ","); p && argc < MAX_WORDS; p = strtok(NULL, ",")) s->argv[argc++] = p;
    rep_header h = {
        .version = REP_FORMAT_VERSION, .pego = "0.1.0", .pid = (int64_t)number(s, w, n, "pid"),
        .host = s->host_copy, .argc = argc, .argv = s->argv, .start = (int64_t)number(s, w, n, "start"),
        .clock = value(w, n, "clock") ? value(w, n, "clock") : "monotonic",
        .mode = value(w, n, "mode") ? value(w, n, "mode") : "exact", .detail = (int)number(s, w, n, "detail"),
        .clock_reads = number(s, w, n, "clock_reads"), .sample_interval_ns = number(s, w, n, "sample_interval_ns"),
        .samples = number(s, w, n, "samples"), .samples_lost = number(s, w, n, "samples_lost"),
        .sample_interval_max_ns = number(s, w, n, "sample_interval_max_ns"),
        .memory = (int)number(s, w, n, "memory"),
    };
    if (!(s->b = rep_builder_new(&h))) die(s, "out of memory", NULL);
}

static void add_grammar(state *s, char **w, int n)
{
    if (s->ng == MAX_GRAMS) die(s, "too many grammars", NULL);
    grammar_names *g = &s->g[s->ng++];
    g->id = (uint32_t)number(s, w, n, "id");
    g->nrules = 0;
    const char *rules = value(w, n, "rules");
    char *copy = strdup(rules ? rules : "");
    rep_rule_info info[MAX_RULES];
    for (char *p = strtok(copy, ","); p; p = strtok(NULL, ",")) {
        if (g->nrules == MAX_RULES) die(s, "too many rules", NULL);
        info[g->nrules] = (rep_rule_info){ g->names[g->nrules] = strdup(p), (uint32_t)g->nrules + 1, 1 };
        g->nrules++;
    }
    free(copy);
    const char *src = value(w, n, "source");
    const char *name = value(w, n, "name"), *file = value(w, n, "file");
    rep_grammar rg = {
        .id = g->id, .name = name ? name : "g", .file = file ? file : "",
        .hash = src ? rep_hash(src, strlen(src)) : 0, .nrules = g->nrules, .rules = info,
    };
    const char *hex = value(w, n, "hash");
    if (hex) rg.hash = strtoull(hex, NULL, 16);
    if (rep_add_grammar(s->b, &rg) < 0) die(s, "out of memory", NULL);
}

static void add_record(state *s, char **w, int n)
{
    const char *kind = w[0];
    if (strcmp(kind, "frame") == 0) {
        start_frame(s, w, n);
        return;
    }
    if (!s->b) die(s, "a record before the first frame line: ", kind);
    int rc = 0;
    if (strcmp(kind, "grammar") == 0) {
        add_grammar(s, w, n);
    } else if (strcmp(kind, "parse") == 0) {
        grammar_names *g = grammar(s, w, n);
        s->parses++;
        const char *result = value(w, n, "result"), *unit = value(w, n, "unit"), *input = value(w, n, "input");
        const char *top = value(w, n, "top_rule");
        rep_parse p = {
            .id = value(w, n, "id") ? number(s, w, n, "id") : (uint64_t)s->parses, .grammar = g->id, .input = input ? input : "",
            .bytes = number(s, w, n, "bytes"),
            .unit = unit && strcmp(unit, "codepoints") == 0 ? REP_UNIT_CODEPOINTS : REP_UNIT_BYTES,
            .result = !result || strcmp(result, "ok") == 0 ? REP_RESULT_OK
                      : strcmp(result, "syntax-error") == 0 ? REP_RESULT_SYNTAX_ERROR : REP_RESULT_ABORTED,
            .time_ns = number(s, w, n, "time_ns"), .calls = number(s, w, n, "calls"),
            .evals = number(s, w, n, "evals"), .memo = number(s, w, n, "memo"),
            .clock_reads = number(s, w, n, "clock_reads"), .top_rule = top ? rule_id(s, g, top) : REP_NO_RULE,
            .node_bytes = number(s, w, n, "node_bytes"), .memo_bytes = number(s, w, n, "memo_bytes"),
            .peak_node_bytes = number(s, w, n, "peak_node_bytes"), .peak_memo_bytes = number(s, w, n, "peak_memo_bytes"),
            .peak_stack_bytes = number(s, w, n, "peak_stack_bytes"),
        };
        rc = rep_add_parse(s->b, &p);
    } else if (strcmp(kind, "rule") == 0) {
        grammar_names *g = grammar(s, w, n);
        rep_rule r = {
            .grammar = g->id, .rule = rule_id(s, g, value(w, n, "rule")),
            .calls = number(s, w, n, "calls"), .evals = number(s, w, n, "evals"), .memo = number(s, w, n, "memo"),
            .matched = number(s, w, n, "matched"), .failed = number(s, w, n, "failed"),
            .repeats = number(s, w, n, "repeats"), .max_repeats = number(s, w, n, "max_repeats"),
            .max_repeats_pos = number(s, w, n, "max_repeats_pos"), .consumed = number(s, w, n, "consumed"),
            .wasted = number(s, w, n, "wasted"), .time_ns = number(s, w, n, "time_ns"),
            .self_ns = number(s, w, n, "self_ns"), .samples = number(s, w, n, "samples"),
            .nodes = number(s, w, n, "nodes"), .node_bytes = number(s, w, n, "node_bytes"),
            .memo_entries = number(s, w, n, "memo_entries"), .memo_bytes = number(s, w, n, "memo_bytes"),
        };
        rc = rep_add_rule(s->b, &r);
    } else if (strcmp(kind, "edge") == 0) {
        grammar_names *g = grammar(s, w, n);
        rep_edge e = {
            .grammar = g->id, .caller = rule_id(s, g, value(w, n, "caller")),
            .callee = rule_id(s, g, value(w, n, "callee")), .calls = number(s, w, n, "calls"),
            .time_ns = number(s, w, n, "time_ns"),
        };
        rc = rep_add_edge(s->b, &e);
    } else if (strcmp(kind, "stack") == 0) {
        grammar_names *g = grammar(s, w, n);
        uint32_t frames[MAX_WORDS];
        size_t nf = 0;
        const char *v = value(w, n, "frames");
        char *copy = strdup(v ? v : "");
        for (char *p = strtok(copy, ","); p && nf < MAX_WORDS; p = strtok(NULL, ",")) frames[nf++] = rule_id(s, g, p);
        free(copy);
        rep_stack st = { .grammar = g->id, .nframes = nf, .frames = frames, .calls = number(s, w, n, "calls"),
                          .self_ns = number(s, w, n, "self_ns"), .node_bytes = number(s, w, n, "node_bytes") };
        rc = rep_add_stack(s->b, &st);
    } else {
        die(s, "unknown record: ", kind);
    }
    if (rc < 0) die(s, "out of memory", NULL);
}

static void describe(state *s, FILE *in)
{
    char line[8192];
    s->line = 0;
    while (fgets(line, sizeof line, in)) {
        s->line++;
        char *words[MAX_WORDS];
        int n = 0;
        for (char *p = strtok(line, " \t\r\n"); p && n < MAX_WORDS; p = strtok(NULL, " \t\r\n")) words[n++] = p;
        if (n == 0 || words[0][0] == '#') continue;
        add_record(s, words, n);
    }
    s->line = 0;
    flush_frame(s);
    free(s->argv_copy);
    free(s->host_copy);
}

/* ---- synthetic reports for the benchmark ---- */

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static const char *const synthetic_rules[] = {
    "main", "value", "object", "members", "member", "array", "elements", "string", "chars", "char",
    "escape", "unicode", "hex", "number", "int", "frac", "exp", "digits", "digit", "ws",
    "true", "false", "null", "comma",
};
#define NSYN (sizeof synthetic_rules / sizeof *synthetic_rules)

static void synthetic(const char *dir, unsigned long count)
{
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) die(NULL, "cannot create ", dir);
    rep_rule_info info[NSYN];
    for (size_t i = 0; i < NSYN; i++) info[i] = (rep_rule_info){ synthetic_rules[i], (uint32_t)(3 * i + 1), 1 };
    const char *argv[] = { "pego", "parse", "-g", "json.pego" };
    for (unsigned long k = 0; k < count; k++) {
        uint64_t x = 0x9E3779B97F4A7C15ULL ^ (k + 1);
        rep_header h = { REP_FORMAT_VERSION, "0.1.0", (int64_t)(1000 + k), "ci-1", 4, argv, 1764434400, "monotonic",
                         "exact", 1, 0, 0, 0, 0, 0, 0 };
        rep_builder *b = rep_builder_new(&h);
        rep_grammar g = { .id = 1, .name = "json", .file = "json.pego", .hash = 0x1234abcd5678ef00ULL, .nrules = NSYN, .rules = info };
        int rc = b ? rep_add_grammar(b, &g) : -1;
        for (unsigned i = 0; i < 50 && rc == 0; i++) {
            char input[64];
            snprintf(input, sizeof input, "corpus/batch-%lu/doc-%u.json", k, i);
            uint64_t calls = 2000 + next_random(&x) % 20000;
            rep_parse p = { i + 1, 1, input, calls * 4, REP_UNIT_BYTES, REP_RESULT_OK, REP_SOURCE_TEXT, calls * 40, calls,
                            calls - calls / 10, calls / 10, 2 * calls + 2, (uint32_t)(next_random(&x) % NSYN), 0, 0, 0, 0, 0 };
            rc = rep_add_parse(b, &p);
        }
        for (uint32_t r = 0; r < NSYN && rc == 0; r++) {
            uint64_t calls = 100 + next_random(&x) % 100000;
            rep_rule rr = { 1, r, calls, calls - calls / 8, calls / 8, calls / 2, calls - calls / 2, calls / 50,
                            2, 100, calls * 3, calls / 4, calls * 60, calls * 20, 0, 0, 0, 0, 0 };
            rc = rep_add_rule(b, &rr);
        }
        for (uint32_t r = 0; r < NSYN && rc == 0; r++)
            for (uint32_t j = 1; j <= 3 && rc == 0; j++) {
                rep_edge e = { 1, r, (r + j) % NSYN, 10 + next_random(&x) % 5000, 1000 + next_random(&x) % 90000 };
                rc = rep_add_edge(b, &e);
            }
        /* the same 150 paths in every report, as one grammar gives; their weights vary */
        uint32_t path[8];
        for (unsigned i = 0; i < 150 && rc == 0; i++) {
            uint64_t y = 0x2545F4914F6CDD1DULL ^ (i + 1);
            size_t depth = 1 + next_random(&y) % 7;
            path[0] = 0;
            for (size_t d = 1; d < depth; d++) path[d] = (uint32_t)(1 + next_random(&y) % (NSYN - 1));
            rep_stack st = { .grammar = 1, .nframes = depth, .frames = path, .calls = 1 + next_random(&x) % 3000,
                              .self_ns = 100 + next_random(&x) % 50000 };
            rc = rep_add_stack(b, &st);
        }
        char path_name[4096], err[512];
        snprintf(path_name, sizeof path_name, "%s/r%04lu.zst", dir, k);
        if (rc < 0) die(NULL, "out of memory", NULL);
        if (rep_write_file(b, path_name, 0, err, sizeof err) < 0) die(NULL, err, NULL);
        rep_builder_free(b);
    }
}

int main(int argc, char **argv)
{
    state s;
    memset(&s, 0, sizeof s);
    long truncate_by = 0;
    int i = 1;
    if (argc == 4 && strcmp(argv[1], "--synthetic") == 0) {
        synthetic(argv[3], strtoul(argv[2], NULL, 10));
        return 0;
    }
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--append") == 0) s.append = 1;
        else if (strcmp(argv[i], "--truncate") == 0 && i + 1 < argc) truncate_by = strtol(argv[++i], NULL, 10);
        else die(NULL, "unknown flag ", argv[i]);
    }
    if (i >= argc || argc - i > 2)
        die(NULL, "usage: mkreport [--append] [--truncate N] OUT [DESCRIPTION] | --synthetic N DIR", NULL);
    s.out = argv[i];
    FILE *in = i + 1 < argc ? fopen(argv[i + 1], "r") : stdin;
    if (!in) die(NULL, "cannot open ", argv[i + 1]);
    describe(&s, in);
    if (in != stdin) fclose(in);
    if (truncate_by > 0) {
        struct stat st;
        if (stat(s.out, &st) < 0 || truncate(s.out, st.st_size > truncate_by ? st.st_size - truncate_by : 0) < 0)
            die(NULL, "cannot truncate ", s.out);
    }
    return 0;
}
