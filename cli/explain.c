/* pego explain: why an input is rejected. One untraced parse finds the syntax
 * error (or the errors #recover recovered); a second, traced parse watches only
 * their positions and lists, for each, the calls that recorded what was
 * expected there: each call's own expectations (those no nested call recorded)
 * and its call stack. With -stream both are stream parses, the second of the
 * input read again (or kept, from a pipe), and what a stream parse parses
 * again with more input replaces what it had recorded (PEGO_TRACE_AGAIN). */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char explain_usage[] =
    "usage: pego explain -g GRAMMAR [flags] [FILE...]\n"
    "\n"
    "Parses standard input (or -i TEXT, or each FILE) and, when it is rejected, prints\n"
    "the syntax error and the calls that recorded what was expected at its position,\n"
    "innermost first, each with its call stack:\n"
    "\n"
    "  rule L:C: expected A, B                      the call failed there\n"
    "  rule L:C: matched \"text\", then expected A    the call matched, then tried to go on\n"
    "    in caller L:C\n"
    "\n"
    "[memo] marks a call answered from the memo table. Errors recovered by #recover\n"
    "are explained one by one, marked (recovered) when there are several; the call\n"
    "whose #recover caught the error is marked (recovered by #recover).\n"
    "\n"
    "  -g FILE         grammar file (required)\n"
    "  -s RULE         start rule (default main)\n"
    "  -i TEXT         parse TEXT itself instead of standard input\n"
    "  -unit UNIT      positions in codepoints (default) or bytes\n"
    "  -max-depth N    nesting limit in rule calls (default 100000)\n"
    "  -memo POLICY    default, all (memoize every rule) or none\n"
    "  -backend NAME   closure or bytecode (the reference program), or\n"
    "                  bytecode-iterative (the default program choice)\n"
    "  -stream         stream parse (as pego parse -stream), the elements dropped; the\n"
    "                  input is read twice (from a pipe, the first parse keeps a copy)\n"
    "  -edit F:T:TEXT  as pego parse -edit: explain the parse after the edits\n"
    "  -n N            calls listed per error (default 10; 0 lists all)\n"
    "\n"
    CLI_PROFILE_HELP
    "\n"
    "Exit status: 0 when the input matched (\"ok: the input matches\" is printed) or its\n"
    "errors were explained; 1 an input that could not be read or parsed (the nesting\n"
    "limit), a grammar error or bad usage.\n";

enum { OPT_COUNT = CLI_OPT_FIRST_FREE, OPT_HELP };

/* A call that recorded expectations at a watched position. */
typedef struct {
    char *head;     /* "rule L:C: expected A, B" and the marks */
    char *stack;    /* its callers as "    in rule L:C" lines, innermost first */
    int   end;      /* its own expectations include the end of the input */
} explain_entry;

/* An error position being explained. */
typedef struct {
    const char    *error;       /* "L:C: message" */
    int            recovered;
    int            line, col;
    uint64_t       pos;
    int            held;        /* recovered: the call holding the #recover was seen */
    char         **items;       /* recovered: the error's expected items */
    size_t         nitems;
    explain_entry *entries;
    size_t         nentries;
} explain_target;

/* What nested calls recorded at a target's position. */
typedef struct {
    size_t target;
    char  *item;
} nested_item;

/* A call in progress. */
typedef struct {
    int          rule;
    uint64_t     pos;
    nested_item *nested;
    size_t       nnested, capnested;
} explain_frame;

/* What a stream parse's MARK saw, for an AGAIN to go back to: each target's
 * entries and whether its #recover was seen, the calls in progress and the
 * expectations passed up to the outermost (the start rule's: the only one in
 * progress at a MARK). All zero: the parse's start. */
typedef struct {
    size_t *entries;
    int    *held;
    size_t  nframes, nested;
    int     short_match;
} explain_mark;

typedef struct {
    long            limit;
    const pego_grammar *g;
    int             stream;         /* -stream: recovered errors are found by line and column */
    explain_mark    mark;
    explain_target *targets;
    size_t          ntargets;
    int             resolved;       /* recovered targets' positions are known */
    explain_frame  *frames;         /* the calls in progress, the start rule's first */
    size_t          nframes, capframes;
    int             short_match;    /* the start rule matched short of the end */
    int             short_line, short_col;
    int             oom;
} explainer;

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Appends to a malloc'd string; on failure frees it and returns NULL. */
static char *append(char *s, const char *more)
{
    if (!s) return NULL;
    size_t a = strlen(s), b = strlen(more);
    char *t = realloc(s, a + b + 1);
    if (!t) {
        free(s);
        return NULL;
    }
    memcpy(t + a, more, b + 1);
    return t;
}

/* The expected items of a recovered error's text: "L:C: syntax error: expected
 * A, B" split where a comma separates two items (not inside a quoted literal
 * or a class), or "L:C: M1; M2", #error messages, split where they were joined. */
static int split_items(explain_target *t)
{
    static const char marker[] = "syntax error: expected ";
    const char *s = strchr(t->error, ' ');
    s = s ? s + 1 : t->error;
    int messages = strncmp(s, marker, sizeof marker - 1) != 0;
    if (!messages) s += sizeof marker - 1;
    while (*s) {
        const char *e = s;
        if (!messages && (*e == '"' || (e[0] == '(' && e[1] == '?'))) {
            char close = *e == '"' ? '"' : ')';
            for (e += *e == '"' ? 1 : 2; *e && *e != close; e++)
                if (*e == '\\' && e[1]) e++;
            if (*e) e++;
        }
        while (*e && strncmp(e, messages ? "; " : ", ", 2) != 0) e++;
        char **a = realloc(t->items, (t->nitems + 1) * sizeof *a);
        if (!a) return -1;
        t->items = a;
        if (!(t->items[t->nitems] = strndup(s, (size_t)(e - s)))) return -1;
        t->nitems++;
        s = *e ? e + 2 : e;
    }
    return 0;
}

static int nested_has(const explain_frame *f, size_t target, const char *item)
{
    for (size_t i = 0; i < f->nnested; i++)
        if (f->nested[i].target == target && strcmp(f->nested[i].item, item) == 0) return 1;
    return 0;
}

static int nested_add(explain_frame *f, size_t target, const char *item)
{
    if (nested_has(f, target, item)) return 0;
    if (f->nnested == f->capnested) {
        size_t cap = f->capnested ? f->capnested * 2 : 8;
        nested_item *a = realloc(f->nested, cap * sizeof *a);
        if (!a) return -1;
        f->nested = a;
        f->capnested = cap;
    }
    char *copy = strdup(item);
    if (!copy) return -1;
    f->nested[f->nnested++] = (nested_item){ target, copy };
    return 0;
}

static void frame_clear(explain_frame *f)
{
    for (size_t i = 0; i < f->nnested; i++) free(f->nested[i].item);
    f->nnested = 0;
}

/* Adds the entry of the call ending with ev, which recorded own (n items)
 * itself; holder: the call holds the #recover that recovered the error. */
static int add_entry(explainer *x, explain_target *t, const pego_trace_event *ev, const char **own, size_t n,
                     int holder)
{
    int line, col;
    pego_trace_line_col(ev, ev->pos, &line, &col);
    char *head = dup_printf("%s %d:%d: ", ev->rule, line, col);
    if (head && ev->matched && !holder) {
        char *text = cli_quoted(ev, ev->pos, ev->end, CLI_EXPLAIN_TEXT_MAX);
        head = text ? append(append(append(head, "matched "), text), ", then ") : (free(head), NULL);
        free(text);
    }
    char *expected = cli_expected_text(own, n);
    head = expected ? append(head, expected) : (free(head), NULL);
    free(expected);
    if (ev->memo) head = append(head, " [memo]");
    if (holder) head = append(head, " (recovered by #recover)");
    char *stack = strdup("");
    for (size_t d = x->nframes - 1; d-- > 0 && stack;) {   /* the callers of the exiting call */
        pego_trace_line_col(ev, x->frames[d].pos, &line, &col);
        char *in = dup_printf("    in %s %d:%d\n", pego_grammar_rule_name(x->g, (size_t)x->frames[d].rule), line, col);
        stack = in ? append(stack, in) : (free(stack), NULL);
        free(in);
    }
    explain_entry *a = head && stack ? realloc(t->entries, (t->nentries + 1) * sizeof *a) : NULL;
    if (!a) {
        free(head);
        free(stack);
        return -1;
    }
    int end = 0;
    for (size_t i = 0; i < n; i++) end |= strcmp(own[i], "end of input") == 0;
    t->entries = a;
    t->entries[t->nentries++] = (explain_entry){ head, stack, end };
    return 0;
}

/* Finds the positions of recovered errors from their line and column (the
 * first position at or after them). */
static void resolve(explainer *x, const pego_trace_event *ev)
{
    size_t bytes;
    pego_trace_input(ev, 0, UINT64_MAX, &bytes);
    for (size_t i = 0; i < x->ntargets; i++) {
        explain_target *t = &x->targets[i];
        if (!t->recovered) continue;
        uint64_t lo = 0, hi = bytes;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            int line, col;
            pego_trace_line_col(ev, mid, &line, &col);
            if (line < t->line || (line == t->line && col < t->col)) lo = mid + 1;
            else hi = mid;
        }
        t->pos = lo;
    }
    x->resolved = 1;
}

/* Whether a failure at far is at target t: its position, or for an error
 * recovered in a stream parse, whose position resolve could not find (the
 * input is not all held at the first event), its line and column. */
static int at_target(const explainer *x, const explain_target *t, const pego_trace_event *ev, uint64_t far)
{
    if (!x->stream || !t->recovered) return far == t->pos;
    int line, col;
    pego_trace_line_col(ev, far, &line, &col);
    return line == t->line && col == t->col;
}

/* A stream parse's MARK: what an AGAIN goes back to. */
static void mark(explainer *x)
{
    explain_mark *m = &x->mark;
    for (size_t k = 0; k < x->ntargets; k++) {
        m->entries[k] = x->targets[k].nentries;
        m->held[k] = x->targets[k].held;
    }
    m->nframes = x->nframes;
    m->nested = x->nframes ? x->frames[0].nnested : 0;
    m->short_match = x->short_match;
}

/* A stream parse's AGAIN: back to the last MARK (depth 1) or to the start. */
static void go_back(explainer *x, uint32_t depth)
{
    explain_mark *m = &x->mark;
    if (depth == 0) {
        memset(m->entries, 0, x->ntargets * sizeof *m->entries);
        memset(m->held, 0, x->ntargets * sizeof *m->held);
        m->nframes = m->nested = 0;
        m->short_match = 0;
    }
    for (size_t k = 0; k < x->ntargets; k++) {
        explain_target *t = &x->targets[k];
        for (; t->nentries > m->entries[k]; t->nentries--) {
            free(t->entries[t->nentries - 1].head);
            free(t->entries[t->nentries - 1].stack);
        }
        t->held = m->held[k];
    }
    x->nframes = m->nframes;
    if (x->nframes) {
        explain_frame *f = &x->frames[0];
        for (; f->nnested > m->nested; f->nnested--) free(f->nested[f->nnested - 1].item);
    }
    x->short_match = m->short_match;
}

/* The exit of a call: what it recorded at each watched position that its
 * nested calls did not is its own; all of it counts as nested for its caller. */
static int call_exited(explainer *x, const pego_trace_event *ev)
{
    explain_frame *f = &x->frames[x->nframes - 1], *up = x->nframes > 1 ? f - 1 : NULL;
    uint64_t far;
    size_t n;
    if (!up && ev->matched) {
        size_t after;
        pego_trace_input(ev, ev->end, UINT64_MAX, &after);
        x->short_match = after > 0;
        pego_trace_line_col(ev, ev->end, &x->short_line, &x->short_col);
    }
    int failed = pego_trace_failure(ev, &far, &n);
    const char **own = failed ? malloc((n + 1) * sizeof *own) : NULL;
    if (failed && !own) return -1;
    for (size_t k = 0; k < x->ntargets; k++) {
        explain_target *t = &x->targets[k];
        size_t nown = 0;
        if (failed && at_target(x, t, ev, far)) {
            for (size_t i = 0; i < n; i++) {
                const char *item = pego_trace_failure_item(ev, i);
                if (!nested_has(f, k, item)) own[nown++] = item;
                if (up && nested_add(up, k, item) < 0) goto oom;
            }
            if (nown && add_entry(x, t, ev, own, nown, 0) < 0) goto oom;
        }
        if (!t->recovered || t->held) continue;
        for (size_t r = 0; r < ev->recovered; r++) {
            if (strcmp(pego_trace_recovered_error(ev, r), t->error) != 0) continue;
            /* the innermost call reporting the error holds the #recover */
            const char **mine = malloc((t->nitems + 1) * sizeof *mine);
            if (!mine) goto oom;
            nown = 0;
            for (size_t i = 0; i < t->nitems; i++)
                if (!nested_has(f, k, t->items[i])) mine[nown++] = t->items[i];
            int bad = nown && add_entry(x, t, ev, mine, nown, 1) < 0;
            free(mine);
            if (bad) goto oom;
            t->held = 1;
            break;
        }
    }
    free(own);
    return 0;
oom:
    free(own);
    return -1;
}

/* Calls nest in the order of their events; the explainer keeps its own stack
 * of them (an event's depth also counts the nesting levels of Pratt
 * expressions, which are not calls). */
static int explain_event(const pego_trace_event *ev, void *ud)
{
    explainer *x = ud;
    if (ev->kind == PEGO_TRACE_MARK) {
        mark(x);
        return 0;
    }
    if (ev->kind == PEGO_TRACE_AGAIN) {
        go_back(x, ev->depth);
        return 0;
    }
    if (ev->kind != PEGO_TRACE_ENTER && ev->kind != PEGO_TRACE_EXIT) return 0;
    if (!x->resolved) resolve(x, ev);
    if (ev->kind == PEGO_TRACE_ENTER) {
        if (x->nframes == x->capframes) {
            size_t cap = x->capframes ? x->capframes * 2 : 64;
            explain_frame *f = realloc(x->frames, cap * sizeof *f);
            if (!f) goto oom;
            memset(f + x->capframes, 0, (cap - x->capframes) * sizeof *f);
            x->frames = f;
            x->capframes = cap;
        }
        explain_frame *f = &x->frames[x->nframes++];
        frame_clear(f);
        f->rule = ev->rule_id;
        f->pos = ev->pos;
        return 0;
    }
    if (!x->nframes) return 0;
    int done = ev->lookahead ? 0 : call_exited(x, ev);     /* a call in a lookahead records nothing */
    x->nframes--;
    if (done == 0) return 0;
oom:
    x->oom = 1;
    return 1;
}

static void print_target(const explainer *x, const explain_target *t, const char *prefix)
{
    printf("%s%s%s\n", prefix, t->error, x->ntargets > 1 ? " (recovered)" : "");
    if (!t->nentries) return;     /* no heading either, as in the original PEGO */
    printf("\nCalls that recorded what was expected at %d:%d (innermost first):\n", t->line, t->col);
    size_t shown = x->limit && (size_t)x->limit < t->nentries ? (size_t)x->limit : t->nentries;
    for (size_t i = 0; i < shown; i++) printf("\n  %s\n%s", t->entries[i].head, t->entries[i].stack);
    if (shown < t->nentries) printf("\n(%zu more; -n 0 shows all)\n", t->nentries - shown);
}

/* The end of the input is expected after the start rule returns, outside every
 * call: the error says so when the start rule matched short of the end, the
 * error is where it stopped (so that the end of the input is among what the
 * error expected), and no call recorded that expectation itself. */
static int ends_short(const explainer *x, const explain_target *t)
{
    if (!x->short_match || t->line != x->short_line || t->col != x->short_col) return 0;
    for (size_t i = 0; i < t->nentries; i++)
        if (t->entries[i].end) return 0;
    return 1;
}

static void free_targets(explainer *x)
{
    for (size_t i = 0; i < x->ntargets; i++) {
        explain_target *t = &x->targets[i];
        for (size_t k = 0; k < t->nitems; k++) free(t->items[k]);
        for (size_t k = 0; k < t->nentries; k++) {
            free(t->entries[k].head);
            free(t->entries[k].stack);
        }
        free(t->items);
        free(t->entries);
    }
    free(x->targets);
    x->targets = NULL;
    x->ntargets = 0;
    free(x->mark.entries);
    free(x->mark.held);
    x->mark = (explain_mark){ 0 };
}

/* The error positions of the untraced result: the syntax error, or each
 * recovered error. */
static int find_targets(explainer *x, const pego_result *r)
{
    size_t n = pego_result_status(r) == PEGO_SYNTAX_ERROR ? 1 : pego_result_recovered_count(r);
    x->targets = calloc(n + 1, sizeof *x->targets);
    x->mark.entries = calloc(n + 1, sizeof *x->mark.entries);
    x->mark.held = calloc(n + 1, sizeof *x->mark.held);
    if (!x->targets || !x->mark.entries || !x->mark.held) return -1;
    x->ntargets = n;
    if (pego_result_status(r) == PEGO_SYNTAX_ERROR) {
        explain_target *t = &x->targets[0];
        t->error = pego_result_error(r);
        t->line = pego_result_error_line(r);
        t->col = pego_result_error_column(r);
        t->pos = pego_result_error_offset(r);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        explain_target *t = &x->targets[i];
        t->error = pego_result_recovered_error(r, i);
        t->recovered = 1;
        if (sscanf(t->error, "%d:%d", &t->line, &t->col) != 2 || split_items(t) < 0) return -1;
    }
    return 0;
}

static int explain_one(cli_input *in, const char *prefix, const char *label, const char *data, size_t len,
                       void *ctx)
{
    explainer *x = ctx;
    const pego_result *r;
    char pre[4096] = "";
    if (prefix) snprintf(pre, sizeof pre, "%s: ", prefix);
    pego_status st = cli_input_parse(in, prefix, label, data, len, &r);
    if (st == PEGO_OK && pego_result_recovered_count(r) == 0) {
        printf("%sok: the input matches\n", pre);
        return 0;
    }
    if (st == PEGO_EREAD) return 1;     /* cli_input_parse said why */
    if (st != PEGO_OK && st != PEGO_SYNTAX_ERROR) {
        cli_error("%s%s", pre, pego_result_error(r));
        return 1;
    }
    /* the texts of the errors live in the result, which the traced parse
     * replaces: keep copies */
    char **texts = NULL;
    size_t ntexts = 0;
    int status = 1;
    if (find_targets(x, r) < 0) goto oom;
    texts = calloc(x->ntargets + 1, sizeof *texts);
    if (!texts) goto oom;
    for (; ntexts < x->ntargets; ntexts++) {
        if (!(texts[ntexts] = strdup(x->targets[ntexts].error))) goto oom;
        x->targets[ntexts].error = texts[ntexts];
    }
    x->resolved = in->stream;       /* a stream's recovered errors are found by line and column */
    x->stream = in->stream;
    x->nframes = 0;
    x->short_match = 0;
    x->oom = 0;
    if (cli_input_rewind(in, prefix, label, &data, &len) < 0) goto done;
    in->sink = explain_event;
    in->sink_ud = x;
    pego_status traced = cli_input_parse(in, prefix, label, data, len, &r);
    in->sink = NULL;
    if (traced == PEGO_EREAD) goto done;       /* said already */
    if (x->oom) goto oom;
    for (size_t i = 0; i < x->ntargets; i++) {
        if (i) putchar('\n');
        print_target(x, &x->targets[i], pre);
    }
    if (st == PEGO_SYNTAX_ERROR && ends_short(x, &x->targets[0]))
        printf("\n  The start rule matched up to %d:%d, but the input does not end there.\n", x->short_line,
               x->short_col);
    status = 0;     /* the explanation is the command's result */
    goto done;
oom:
    cli_error("%sout of memory", pre);
done:
    cli_flush();
    free_targets(x);
    for (size_t i = 0; i < ntexts; i++) free(texts[i]);
    free(texts);
    return status;
}

/* The flags of pego explain besides the input flags. */
static int explain_flag(int ch, const char *arg, void *ctx)
{
    explainer *x = ctx;
    switch (ch) {
    case OPT_COUNT: return cli_count_flag(arg, &x->limit, "lists all");
    case OPT_HELP: fputs(explain_usage, stdout); return CLI_FLAG_HELP;
    default: return CLI_FLAG_UNKNOWN;
    }
}

int cmd_explain(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_INPUT_OPTIONS, CLI_MAX_DEPTH_OPTION, CLI_STREAM_OPTION, CLI_EDIT_OPTION,
        { "n", required_argument, NULL, OPT_COUNT }, { "help", no_argument, NULL, OPT_HELP },
        { "h", no_argument, NULL, OPT_HELP },        { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    explainer x = { .limit = 10 };
    int done = cli_input_flags(&in, "explain", argc, argv, longopts, explain_flag, &x);
    if (done >= 0) return done;
    int status = cli_input_open(&in);
    if (!status) {
        x.g = in.g;
        in.keep = 1;                /* with -stream, each input is parsed twice */
        status = cli_input_each(&in, explain_one, &x);
    }
    cli_input_close(&in);
    for (size_t i = 0; i < x.capframes; i++) {
        frame_clear(&x.frames[i]);
        free(x.frames[i].nested);
    }
    free(x.frames);
    return status;
}
