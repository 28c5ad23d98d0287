/* pego trace: prints the rule calls of a parse as they happen, as an indented
 * call tree (a call whose nested calls are hidden takes one line) or as JSON
 * lines, one per event. -max-depth and -rule choose the calls shown;
 * -failures adds what each failed call expected at its farthest position. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char trace_usage[] =
    "usage: pego trace -g GRAMMAR [flags] [FILE...]\n"
    "\n"
    "Parses standard input (or -i TEXT, or each FILE) and prints every rule call:\n"
    "\n"
    "  rule L:C -> matched L:C-L:C \"text\"     a call whose nested calls are not shown\n"
    "  rule L:C                              a call with nested calls shown...\n"
    "    ...\n"
    "  rule -> failed                        ...and its result after them\n"
    "\n"
    "Marks after a result: [memo] answered from the memo table, [N evaluations] a\n"
    "left-recursive rule's growth rounds. After a rule name: (level N) a binding\n"
    "level (e(level 2)), [lookahead] a call inside & or !.\n"
    "\n"
    "  -g FILE         grammar file (required)\n"
    "  -s RULE         start rule (default main)\n"
    "  -i TEXT         parse TEXT itself instead of standard input\n"
    "  -unit UNIT      positions in codepoints (default) or bytes\n"
    "  -memo POLICY    default, all (memoize every rule) or none\n"
    "  -backend NAME   closure or bytecode (the reference program), or\n"
    "                  bytecode-iterative (the default program choice)\n"
    "  -stream         stream parse (as pego parse -stream): the calls as the input is\n"
    "                  read; an element parsed again with more input shows its calls again,\n"
    "                  after a line (parsed again from L:C, with more input)\n"
    "  -edit F:T:TEXT  as pego parse -edit: trace the parse after the edits\n"
    "  -max-depth N    show calls down to N levels below the top call shown\n"
    "  -rule A,B       show only calls of these rules and the calls nested in them\n"
    "                  (repeatable); -max-depth then counts from them\n"
    "  -failures       add to each failed call what it expected at its farthest position\n"
    "  -f FORMAT       text (default) or json (one object per event and line)\n"
    "\n"
    CLI_PROFILE_HELP
    "\n"
    "Exit status: 0 success, 1 a syntax error or recovered errors (printed after the\n"
    "trace), a grammar error or bad usage.\n";

enum { OPT_DEPTH = CLI_OPT_FIRST_FREE, OPT_RULE, OPT_FAILURES, OPT_FORMAT, OPT_HELP };

/* What the printer knows about each call in progress. */
typedef struct {
    uint8_t  inscope;     /* a call of a chosen rule, or nested in one */
    uint8_t  shown;
    uint32_t anchor;      /* nesting (1: the start rule's call) of the call -max-depth counts from */
    uint32_t indent;      /* shown calls around this one */
} trace_frame;

typedef struct {
    int            json, failures;
    uint32_t       max_depth;      /* 0: no limit */
    const char   **rule_args;      /* the -rule values */
    int            nrule_args;
    unsigned char *chosen;         /* per rule id, with -rule; NULL: every call */
    trace_frame   *frames;         /* the calls in progress, the start rule's first */
    size_t         nframes, capframes;
    /* the last shown enter event, held back until we know whether its call
     * shows nested calls (an enter line) or not (one line) */
    int            pending;
    uint32_t       pending_nesting, pending_indent;
    int            pending_rule, pending_level, pending_lookahead, pending_line, pending_col;
    const pego_grammar *g;
    int            oom;
} trace_printer;

static void print_indent(uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) fputs("  ", stdout);
}

/* A call's name as the original PEGO writes it: the rule, its binding level
 * right after it ("e(level 2)"), then " [lookahead]" for a call inside & or !. */
static void print_name(const char *rule, int level, int lookahead)
{
    fputs(rule, stdout);
    if (level) printf("(level %d)", level);
    if (lookahead) fputs(" [lookahead]", stdout);
}

static void flush_pending(trace_printer *t)
{
    if (!t->pending) return;
    print_indent(t->pending_indent);
    print_name(pego_grammar_rule_name(t->g, (size_t)t->pending_rule), t->pending_level, t->pending_lookahead);
    printf(" %d:%d\n", t->pending_line, t->pending_col);
    t->pending = 0;
}

/* The result of an exit event, (with -failures) its failure and its marks. */
static void print_result(const trace_printer *t, const pego_trace_event *ev)
{
    int line, col, eline, ecol;
    if (ev->matched) {
        pego_trace_line_col(ev, ev->pos, &line, &col);
        pego_trace_line_col(ev, ev->end, &eline, &ecol);
        char *text = cli_quoted(ev, ev->pos, ev->end, CLI_TRACE_TEXT_MAX);
        printf("-> matched %d:%d-%d:%d %s", line, col, eline, ecol, text ? text : "(out of memory)");
        free(text);
    } else {
        fputs("-> failed", stdout);
        uint64_t far;
        size_t n;
        if (t->failures && pego_trace_failure(ev, &far, &n)) {
            const char **items = malloc((n + 1) * sizeof *items);
            char *text = NULL;
            if (items) {
                for (size_t i = 0; i < n; i++) items[i] = pego_trace_failure_item(ev, i);
                text = cli_expected_text(items, n);
            }
            pego_trace_line_col(ev, far, &line, &col);
            printf(" (at %d:%d: %s)", line, col, text ? text : "(out of memory)");
            free(text);
            free(items);
        }
    }
    if (ev->memo) fputs(" [memo]", stdout);
    if (ev->evals > 1) printf(" [%llu evaluations]", (unsigned long long)ev->evals);
    putchar('\n');
}

static void print_json(const trace_printer *t, const pego_trace_event *ev)
{
    int line, col;
    pego_trace_line_col(ev, ev->pos, &line, &col);
    printf("{\"event\":\"%s\",\"rule\":", ev->kind == PEGO_TRACE_ENTER ? "enter" : "exit");
    cli_print_json_string(stdout, ev->rule);
    if (ev->level) printf(",\"level\":%d", ev->level);
    printf(",\"depth\":%u,\"pos\":%llu,\"line\":%d,\"col\":%d", ev->depth, (unsigned long long)ev->pos, line, col);
    if (ev->lookahead) fputs(",\"lookahead\":true", stdout);
    if (ev->kind == PEGO_TRACE_EXIT) {
        pego_trace_line_col(ev, ev->end, &line, &col);
        printf(",\"matched\":%s,\"end\":%llu,\"endLine\":%d,\"endCol\":%d", ev->matched ? "true" : "false",
               (unsigned long long)ev->end, line, col);
        if (ev->memo) fputs(",\"memo\":true", stdout);
        printf(",\"evals\":%llu,\"examined\":%llu", (unsigned long long)ev->evals,
               (unsigned long long)ev->examined);
        uint64_t far;
        size_t n;
        if (t->failures && !ev->matched && pego_trace_failure(ev, &far, &n)) {
            pego_trace_line_col(ev, far, &line, &col);
            printf(",\"failure\":{\"pos\":%llu,\"line\":%d,\"col\":%d,\"expected\":[", (unsigned long long)far,
                   line, col);
            for (size_t i = 0; i < n; i++) {
                if (i) putchar(',');
                cli_print_json_string(stdout, pego_trace_failure_item(ev, i));
            }
            fputs("]}", stdout);
        }
    }
    fputs("}\n", stdout);
}

/* A stream parse goes back to parse again with more input (PEGO_TRACE_AGAIN):
 * a line says so, and the calls that follow are those of the new run, from
 * the start rule's call (open again) or from the start. */
static void print_again(trace_printer *t, const pego_trace_event *ev)
{
    int line, col;
    pego_trace_line_col(ev, ev->pos, &line, &col);
    if (ev->depth == 0) {
        t->nframes = 0;
        t->pending = 0;
    } else {
        flush_pending(t);
        if (t->nframes == 0) t->nframes = 1;     /* the start rule's call, exited in the run given up */
    }
    if (t->json) {
        printf("{\"event\":\"again\",\"depth\":%u,\"pos\":%llu,\"line\":%d,\"col\":%d}\n", ev->depth,
               (unsigned long long)ev->pos, line, col);
        return;
    }
    const trace_frame *f = t->nframes ? &t->frames[t->nframes - 1] : NULL;
    print_indent(f ? f->indent + f->shown : 0);
    if (ev->depth == 0) puts("(parsed again from the start, with more input)");
    else printf("(parsed again from %d:%d, with more input)\n", line, col);
}

/* Calls nest in the order of their events; the printer keeps its own stack of
 * them (an event's depth also counts the nesting levels of Pratt expressions,
 * which are not calls). */
static int trace_event(const pego_trace_event *ev, void *ud)
{
    trace_printer *t = ud;
    if (ev->kind == PEGO_TRACE_AGAIN) {
        print_again(t, ev);
        return 0;
    }
    if (ev->kind != PEGO_TRACE_ENTER && ev->kind != PEGO_TRACE_EXIT) return 0;
    if (ev->kind == PEGO_TRACE_EXIT) {
        if (!t->nframes) return 0;
        uint32_t nesting = (uint32_t)t->nframes;
        trace_frame *f = &t->frames[--t->nframes];
        if (!f->shown) return 0;
        if (t->json) {
            print_json(t, ev);
            return 0;
        }
        print_indent(f->indent);
        print_name(ev->rule, ev->level, ev->lookahead);
        if (t->pending && t->pending_nesting == nesting) {
            printf(" %d:%d", t->pending_line, t->pending_col);
            t->pending = 0;
        }
        putchar(' ');
        print_result(t, ev);
        return 0;
    }
    if (t->nframes == t->capframes) {
        size_t cap = t->capframes ? t->capframes * 2 : 64;
        trace_frame *f = realloc(t->frames, cap * sizeof *f);
        if (!f) {
            t->oom = 1;
            return 1;
        }
        t->frames = f;
        t->capframes = cap;
    }
    const trace_frame *up = t->nframes ? &t->frames[t->nframes - 1] : NULL;
    trace_frame *f = &t->frames[t->nframes++];
    uint32_t nesting = (uint32_t)t->nframes;   /* 1 for the start rule's call */
    if (t->chosen ? t->chosen[ev->rule_id] : !up) {
        f->inscope = 1;
        f->anchor = nesting;
    } else {
        f->inscope = up && up->inscope;
        f->anchor = up ? up->anchor : nesting;
    }
    f->shown = f->inscope && (!t->max_depth || nesting - f->anchor < t->max_depth);
    f->indent = up ? up->indent + up->shown : 0;
    if (!f->shown) return 0;
    if (t->json) {
        print_json(t, ev);
        return 0;
    }
    flush_pending(t);
    t->pending = 1;
    t->pending_nesting = nesting;
    t->pending_indent = f->indent;
    t->pending_rule = ev->rule_id;
    t->pending_level = ev->level;
    t->pending_lookahead = ev->lookahead;
    pego_trace_line_col(ev, ev->pos, &t->pending_line, &t->pending_col);
    return 0;
}

/* Marks the rules named by the -rule values; 0, or EXIT_ERRORS after printing. */
static int choose_rules(trace_printer *t, const cli_input *in)
{
    if (!t->nrule_args) return 0;
    t->chosen = calloc(pego_grammar_rule_count(in->g) + 1, 1);
    if (!t->chosen) {
        cli_error("out of memory");
        return EXIT_ERRORS;
    }
    for (int i = 0; i < t->nrule_args; i++) {
        const char *s = t->rule_args[i];
        while (1) {
            size_t n = strcspn(s, ",");
            char name[256];
            if (n == 0 || n >= sizeof name) {
                cli_error("-rule needs rule names separated by commas, not %s", t->rule_args[i]);
                return EXIT_ERRORS;
            }
            memcpy(name, s, n);
            name[n] = 0;
            int id = pego_grammar_rule_index(in->g, name);
            if (id < 0) {
                cli_error("-rule: %s has no rule %s", in->grammar, name);
                return EXIT_ERRORS;
            }
            t->chosen[id] = 1;
            if (!s[n]) break;
            s += n + 1;
        }
    }
    return 0;
}

static int trace_one(cli_input *in, const char *prefix, const char *label, const char *data, size_t len,
                     void *ctx)
{
    trace_printer *t = ctx;
    const pego_result *r;
    char pre[4096] = "";
    if (prefix) snprintf(pre, sizeof pre, "%s: ", prefix);
    if (prefix) {
        if (t->json) {
            fputs("{\"event\":\"input\",\"name\":", stdout);
            cli_print_json_string(stdout, prefix);
            fputs("}\n", stdout);
        } else {
            printf("%s:\n", prefix);
        }
    }
    t->pending = 0;
    t->nframes = 0;
    pego_status st = cli_input_parse(in, pre, label, data, len, &r);
    flush_pending(t);   /* a call an aborted parse left without its exit */
    cli_flush();
    if (t->oom) {
        cli_error("%sout of memory", pre);
        return 1;
    }
    if (st == PEGO_EREAD) return 1;      /* said already */
    if (st != PEGO_OK) {
        cli_error("%s%s", pre, pego_result_error(r));
        return 1;
    }
    size_t n = pego_result_recovered_count(r);
    if (!n) return 0;
    /* success with recovered errors: reported as pego parse does */
    fprintf(stderr, "pego: %s", pre);
    for (size_t i = 0; i < n; i++) fprintf(stderr, "%s%s", i ? "\n" : "", pego_result_recovered_error(r, i));
    fputc('\n', stderr);
    return 1;
}

enum { TRACE_MAX_RULES = 64 };

/* The flags of pego trace besides the input flags. */
static int trace_flag(int ch, const char *arg, void *ctx)
{
    trace_printer *t = ctx;
    switch (ch) {
    case OPT_DEPTH: {
        char *end;
        unsigned long v = strtoul(arg, &end, 10);
        if (*end || v == 0 || v > 1000000000ul || arg[0] == '-') {
            cli_error("-max-depth needs a whole number from 1 to 1000000000, not %s", arg);
            return CLI_FLAG_BAD;
        }
        t->max_depth = (uint32_t)v;
        return CLI_FLAG_OK;
    }
    case OPT_RULE:
        if (t->nrule_args == TRACE_MAX_RULES) {
            cli_error("too many -rule flags");
            return CLI_FLAG_BAD;
        }
        t->rule_args[t->nrule_args++] = arg;
        return CLI_FLAG_OK;
    case OPT_FAILURES: t->failures = 1; return CLI_FLAG_OK;
    case OPT_FORMAT: return cli_text_or_json(arg, &t->json);
    case OPT_HELP: fputs(trace_usage, stdout); return CLI_FLAG_HELP;
    default: return CLI_FLAG_UNKNOWN;
    }
}

int cmd_trace(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_INPUT_OPTIONS, CLI_STREAM_OPTION, CLI_EDIT_OPTION,
        { "max-depth", required_argument, NULL, OPT_DEPTH }, { "rule", required_argument, NULL, OPT_RULE },
        { "failures", no_argument, NULL, OPT_FAILURES },     { "f", required_argument, NULL, OPT_FORMAT },
        { "help", no_argument, NULL, OPT_HELP },             { "h", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    trace_printer t = { 0 };
    const char *rule_args[TRACE_MAX_RULES];
    t.rule_args = rule_args;
    int done = cli_input_flags(&in, "trace", argc, argv, longopts, trace_flag, &t);
    if (done >= 0) return done;
    int status = cli_input_open(&in);
    if (!status) status = choose_rules(&t, &in);
    if (!status) {
        t.g = in.g;
        in.sink = trace_event;        /* on the parse cli_input_parse reports */
        in.sink_ud = &t;
        status = cli_input_each(&in, trace_one, &t);
    }
    cli_input_close(&in);
    free(t.chosen);
    free(t.frames);
    return status;
}
