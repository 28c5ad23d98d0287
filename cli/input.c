/* What the commands that parse input share: the input-selecting flags (-g -s -i
 * -unit -max-depth -memo -backend -stream -edit), input files as operands with
 * standard input by default, the loop over the inputs, stream parses that read
 * the input as it comes, documents edited and parsed again, the command's
 * observers on the parse it reports, and the small output helpers of the
 * commands that observe a parse (trace, profile, explain): positions as L:C,
 * text quoted and cut as trees quote terminals, JSON strings. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_input_flag(cli_input *in, int ch, const char *arg)
{
    switch (ch) {
    case 'g': in->grammar = arg; return 1;
    case 's': in->opt.start_rule = arg; return 1;
    case 'i': in->text = arg; return 1;
    case CLI_OPT_UNIT:
        if (strcmp(arg, "codepoints") == 0) in->opt.unit = PEGO_UNIT_CODEPOINTS;
        else if (strcmp(arg, "bytes") == 0) in->opt.unit = PEGO_UNIT_BYTES;
        else { cli_error("unknown position unit %s (codepoints or bytes)", arg); return -1; }
        return 1;
    case CLI_OPT_MAXDEPTH: {
        char *end;
        unsigned long v = strtoul(arg, &end, 10);
        if (*end || v == 0 || v > 1000000000ul || arg[0] == '-') {
            cli_error("-max-depth needs a whole number from 1 to 1000000000, not %s", arg);
            return -1;
        }
        in->opt.max_depth = (uint32_t)v;
        return 1;
    }
    case CLI_OPT_STREAM: in->stream = 1; return 1;
    case CLI_OPT_EDIT: {
        /* FROM:TO:TEXT, the text being the rest (it may hold colons, or be empty) */
        char *end;
        unsigned long long from = 0, to = 0;
        const char *at = arg;
        int ok = *at >= '0' && *at <= '9';
        if (ok) from = strtoull(at, &end, 10), ok = *end == ':', at = end + 1;
        ok = ok && *at >= '0' && *at <= '9';
        if (ok) to = strtoull(at, &end, 10), ok = *end == ':', at = end + 1;
        if (!ok) {
            cli_error("-edit needs FROM:TO:TEXT (positions in the unit of -unit), not %s", arg);
            return -1;
        }
        cli_edit *e = realloc(in->edits, (size_t)(in->nedits + 1) * sizeof *e);
        if (!e) {
            cli_error("out of memory");
            return -1;
        }
        in->edits = e;
        in->edits[in->nedits++] = (cli_edit){ from, to, at, arg };
        return 1;
    }
    case CLI_OPT_MEMO:
        if (strcmp(arg, "default") == 0) in->opt.memo = PEGO_MEMO_DEFAULT;
        else if (strcmp(arg, "all") == 0) in->opt.memo = PEGO_MEMO_ALL;
        else if (strcmp(arg, "none") == 0) in->opt.memo = PEGO_MEMO_NONE;
        else { cli_error("unknown memo policy %s (default, all or none)", arg); return -1; }
        return 1;
    case CLI_OPT_BACKEND:   /* the original's backends, each on the closest program (pego(1)) */
        if (strcmp(arg, "closure") == 0 || strcmp(arg, "bytecode") == 0) in->opt.reference = 1;
        else if (strcmp(arg, "bytecode-iterative") == 0) in->opt.reference = 0;
        else { cli_error("unknown backend \"%s\"", arg); return -1; }
        return 1;
    default:
        return 0;
    }
}

void cli_flag_error(const char *command, const struct option *opts, char **argv)
{
    if (optopt) {
        for (const struct option *o = opts; o->name; o++) {
            if (o->val == optopt) {
                cli_error("flag -%s needs a value", o->name);
                return;
            }
        }
        cli_error("flag -%c needs a value", optopt);
    } else {
        cli_error("unknown flag %s (pego %s --help lists the flags)", argv[optind - 1], command);
    }
}

static int read_flags(cli_input *in, const char *command, int argc, char **argv, const struct option *longopts,
                      cli_flag_fn own, void *ctx)
{
    opterr = 0;
    optind = 1;
    int ch;
    while ((ch = getopt_long_only(argc, argv, "+", longopts, NULL)) != -1) {
        int done = cli_input_flag(in, ch, optarg);
        if (done < 0) return EXIT_ERRORS;
        if (done) continue;
        switch (ch == '?' ? CLI_FLAG_UNKNOWN : own(ch, optarg, ctx)) {
        case CLI_FLAG_OK: break;
        case CLI_FLAG_HELP: return 0;
        case CLI_FLAG_BAD: return EXIT_ERRORS;
        default:
            cli_flag_error(command, longopts, argv);
            return EXIT_ERRORS;
        }
    }
    return cli_input_finish(in, command, argc, argv) ? EXIT_ERRORS : -1;
}

int cli_input_flags(cli_input *in, const char *command, int argc, char **argv, const struct option *longopts,
                    cli_flag_fn own, void *ctx)
{
    int status = read_flags(in, command, argc, argv, longopts, own, ctx);
    if (status >= 0) cli_input_close(in);    /* the command ends: what the flags allocated goes */
    return status;
}

int cli_count_flag(const char *arg, long *out, const char *what)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (*end || !*arg || v < 0) {
        cli_error("-n needs a whole number (0 %s), not %s", what, arg);
        return CLI_FLAG_BAD;
    }
    *out = v;
    return CLI_FLAG_OK;
}

int cli_text_or_json(const char *arg, int *json)
{
    if (strcmp(arg, "text") && strcmp(arg, "json")) {
        cli_error("unknown output format %s (text or json)", arg);
        return CLI_FLAG_BAD;
    }
    *json = strcmp(arg, "json") == 0;
    return CLI_FLAG_OK;
}

int cli_input_finish(cli_input *in, const char *command, int argc, char **argv)
{
    if (!in->grammar) {
        cli_error("missing -g GRAMMAR (pego %s --help)", command);
        return EXIT_ERRORS;
    }
    if (in->text && optind < argc) {
        cli_error("-i TEXT and input files exclude each other");
        return EXIT_ERRORS;
    }
    if (in->nedits && in->stream) {
        cli_error("-edit cannot be combined with -stream");
        return EXIT_ERRORS;
    }
    in->files = argv + optind;
    in->nfiles = argc - optind;
    return 0;
}

int cli_input_open(cli_input *in)
{
    in->g = cli_load_grammar(in->grammar);
    if (!in->g) return EXIT_ERRORS;
    in->p = pego_parser_new(in->g);
    if (!in->p) {
        cli_error("out of memory");
        return EXIT_ERRORS;
    }
    return 0;
}

/* Parses one input, named in profile reports by its label. */
static int run_one(cli_input *in, cli_input_fn fn, const char *prefix, const char *label,
                   const char *data, size_t len, void *ctx)
{
    in->opt.input_name = label;
    return fn(in, prefix, label, data, len, ctx);
}

/* ---- -stream (docs/language.md 7.1) ---- */

/* Where a stream parse reads: a file descriptor, or the text of -i. */
typedef struct {
    int         fd;       /* -1: text */
    const char *text;
    size_t      len, at;
    int         err;      /* errno of a failed read */
    cli_input  *keep;     /* keeps a copy of what is read (cli_input_rewind) */
} stream_source;

static long stream_read(char *buf, size_t cap, void *ctx)
{
    stream_source *src = ctx;
    if (src->fd < 0) {
        size_t n = src->len - src->at < cap ? src->len - src->at : cap;
        memcpy(buf, src->text + src->at, n);
        src->at += n;
        return (long)n;
    }
    if (cap > (1u << 30)) cap = 1u << 30;
    for (;;) {
        ssize_t n = read(src->fd, buf, cap);   /* what has arrived: elements go on as soon as they can */
        if (n >= 0) {
            cli_input *in = src->keep;
            if (in && n) {
                if (in->nkept + (size_t)n > in->capkept) {
                    size_t want = (in->nkept + (size_t)n) * 2;
                    char *k = realloc(in->kept, want);
                    if (!k) {
                        src->err = ENOMEM;
                        return -1;
                    }
                    in->kept = k;
                    in->capkept = want;
                }
                memcpy(in->kept + in->nkept, buf, (size_t)n);
                in->nkept += (size_t)n;
            }
            return (long)n;
        }
        if (errno != EINTR) {
            src->err = errno;
            return -1;
        }
    }
}

static int drop_element(const pego_result *r, const pego_node *element, void *ctx)
{
    (void)r;
    (void)element;
    (void)ctx;
    return 0;
}

/* -stream: pego_parse_stream of the input as it is read. */
static pego_status parse_stream(cli_input *in, const char *prefix, const char *label, const char *data, size_t len,
                                const pego_result **r)
{
    /* to be parsed again (cli_input_rewind): a file is read again, a pipe keeps what it gives */
    stream_source src = { data ? -1 : in->fd, data, len, 0, 0, NULL };
    if (in->keep && !data) {
        off_t at = lseek(in->fd, 0, SEEK_CUR);
        in->began = at;
        in->nkept = 0;
        if (at < 0) src.keep = in;
    }
    pego_status st = pego_parse_stream(in->p, stream_read, &src, in->element ? in->element : drop_element,
                                       in->element_ctx, &in->opt, r);
    if (st == PEGO_EREAD) cli_error("%s%s: %s", prefix ? prefix : "", label, strerror(src.err));
    return st;
}

/* Puts the command's observers on the parser p, or on the document d when it
 * is not NULL; -1 when there is no free sink. */
static int observe(cli_input *in, pego_parser *p, pego_document *d)
{
    int bad = 0;
    if (in->sink && d) bad |= pego_document_set_trace(d, in->sink, in->sink_ud);
    if (in->sink && !d) bad |= pego_parser_set_trace(p, in->sink, in->sink_ud);
    if (in->collector && d) bad |= pego_document_add_collector(d, in->collector);
    if (in->collector && !d) bad |= pego_parser_add_collector(p, in->collector);
    return bad ? -1 : 0;
}

/* Takes them off again. */
static void unobserve(cli_input *in, pego_parser *p, pego_document *d)
{
    if (in->sink && d) pego_document_remove_trace(d, in->sink, in->sink_ud);
    if (in->sink && !d) pego_parser_remove_trace(p, in->sink, in->sink_ud);
    if (in->collector && d) pego_document_remove_collector(d, in->collector);
    if (in->collector && !d) pego_parser_remove_collector(p, in->collector);
}

/* -edit: a document of data, parsed, edited, and parsed again, observed. */
static pego_status parse_document(cli_input *in, const char *prefix, const char *label, const char *data, size_t len,
                                  const pego_result **r)
{
    pego_document_free(in->doc);
    in->doc = pego_document_new(in->g, data, len, &in->opt);
    if (!in->doc) {
        cli_error("%s%s: out of memory", prefix ? prefix : "", label);
        return PEGO_EREAD;
    }
    pego_document_parse(in->doc, r);
    for (int i = 0; i < in->nedits; i++) {
        const cli_edit *e = &in->edits[i];
        if (pego_document_edit(in->doc, e->from, e->to, e->text, strlen(e->text)) != PEGO_OK) {
            cli_error("%s%s: -edit %s: %s", prefix ? prefix : "", label, e->spec, pego_document_error(in->doc));
            return PEGO_EREAD;
        }
    }
    if (observe(in, NULL, in->doc) < 0) {
        cli_error("%s%s: too many trace sinks", prefix ? prefix : "", label);
        return PEGO_EREAD;
    }
    pego_status st = pego_document_parse(in->doc, r);
    unobserve(in, NULL, in->doc);
    return st;
}

pego_status cli_input_parse(cli_input *in, const char *prefix, const char *label, const char *data, size_t len,
                            const pego_result **r)
{
    if (in->nedits) return parse_document(in, prefix, label, data, len, r);
    if (observe(in, in->p, NULL) < 0) {
        cli_error("%s%s: too many trace sinks", prefix ? prefix : "", label);
        return PEGO_EREAD;
    }
    pego_status st = in->stream ? parse_stream(in, prefix, label, data, len, r)
                                : pego_parse(in->p, data, len, &in->opt, r);
    unobserve(in, in->p, NULL);
    return st;
}

/* With -stream: each input opened, not read (cli_input_parse reads it). */
static int stream_each(cli_input *in, cli_input_fn fn, void *ctx)
{
    if (in->text) return run_one(in, fn, NULL, "-i", in->text, strlen(in->text), ctx) ? EXIT_ERRORS : 0;
    if (in->nfiles == 0) {
        in->fd = 0;
        return run_one(in, fn, NULL, "standard input", NULL, 0, ctx) ? EXIT_ERRORS : 0;
    }
    int status = 0;
    for (int i = 0; i < in->nfiles; i++) {
        in->fd = open(in->files[i], O_RDONLY);
        if (in->fd < 0) {
            cli_error("%s: %s", in->files[i], strerror(errno));
            status = EXIT_ERRORS;
            continue;
        }
        if (run_one(in, fn, in->nfiles > 1 ? in->files[i] : NULL, in->files[i], NULL, 0, ctx)) status = EXIT_ERRORS;
        close(in->fd);
    }
    return status;
}

int cli_input_each(cli_input *in, cli_input_fn fn, void *ctx)
{
    if (in->stream) return stream_each(in, fn, ctx);
    int status = 0;
    if (in->text) return run_one(in, fn, NULL, "-i", in->text, strlen(in->text), ctx) ? EXIT_ERRORS : 0;
    if (in->nfiles == 0) {
        char *data;
        size_t len;
        const char *why = cli_read_file(NULL, PEGO_MAX_INPUT, &data, &len);
        if (why) {
            cli_error("standard input: %s", why);
            return EXIT_ERRORS;
        }
        status = run_one(in, fn, NULL, "<stdin>", data, len, ctx) ? EXIT_ERRORS : 0;
        free(data);
        return status;
    }
    for (int i = 0; i < in->nfiles; i++) {
        char *data;
        size_t len;
        const char *why = cli_read_file(in->files[i], PEGO_MAX_INPUT, &data, &len);
        if (why) {
            cli_error("%s: %s", in->files[i], why);
            status = EXIT_ERRORS;
            continue;
        }
        if (run_one(in, fn, in->nfiles > 1 ? in->files[i] : NULL, in->files[i], data, len, ctx)) status = EXIT_ERRORS;
        free(data);
    }
    return status;
}

int cli_input_rewind(cli_input *in, const char *prefix, const char *label, const char **data, size_t *len)
{
    if (!in->stream || *data) return 0;
    if (in->began < 0) {
        *data = in->kept ? in->kept : "";
        *len = in->nkept;
        return 0;
    }
    if (lseek(in->fd, (off_t)in->began, SEEK_SET) < 0) {
        cli_error("%s%s: %s", prefix ? prefix : "", label, strerror(errno));
        return -1;
    }
    return 0;
}

void cli_input_close(cli_input *in)
{
    pego_document_free(in->doc);
    in->doc = NULL;
    free(in->edits);
    in->edits = NULL;
    in->nedits = 0;
    free(in->kept);
    in->kept = NULL;
    in->nkept = in->capkept = 0;
    cli_flush();
    pego_parser_free(in->p);
    pego_grammar_free(in->g);
    in->p = NULL;
    in->g = NULL;
}

/* ---- output helpers of the observing commands ---- */

char *cli_quoted(const pego_trace_event *ev, uint64_t from, uint64_t to, uint64_t max)
{
    size_t len;
    pego_unit unit = pego_trace_unit(ev);
    const char *text;
    size_t keep = 0;
    int cut = 0;
    if (unit == PEGO_UNIT_BYTES) {
        /* The cut counts characters, not bytes, and never splits one. The kept
         * characters are quoted as code points, so that an invalid byte among
         * them shows as U+FFFD, as in the original PEGO (a text shown whole
         * writes it \xHH). */
        text = pego_trace_input(ev, from, to, &len);
        uint64_t chars = 0;
        for (size_t i = 0; i < len && chars <= max; chars++) {
            if (chars == max - 3) keep = i;
            i += pego_char_width(text + i, len - i);
        }
        if (chars > max) {
            cut = 1;
            len = keep;
            unit = PEGO_UNIT_CODEPOINTS;
        }
    } else {
        cut = to - from > max;
        text = pego_trace_input(ev, from, cut ? from + max - 3 : to, &len);
    }
    char *q = pego_quote(text, len, unit);
    if (!q || !cut) return q;
    size_t n = strlen(q);   /* q ends with its closing quote: the dots go before it */
    char *r = realloc(q, n + 4);
    if (!r) {
        free(q);
        return NULL;
    }
    memcpy(r + n - 1, "...\"", 5);
    return r;
}

void cli_print_json_string(FILE *out, const char *s)
{
    putc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (c < 0x20) fprintf(out, "\\u%04x", c);
            else putc(c, out);
        }
    }
    putc('"', out);
}

/* Whether an expected item is an #error message: items print as a quoted
 * literal, a class or one of a few names (docs/language.md 1.12). */
static int is_message(const char *item)
{
    static const char *const names[] = { "any character", "beginning of input", "end of input",
                                         "beginning of line", "end of line", NULL };
    if (item[0] == '"' || (item[0] == '(' && item[1] == '?')) return 0;
    for (const char *const *n = names; *n; n++)
        if (strcmp(item, *n) == 0) return 0;
    return 1;
}

char *cli_expected_text(const char *const *items, size_t n)
{
    size_t size = sizeof "expected ", nmsg = 0;
    for (size_t i = 0; i < n; i++) {
        size += strlen(items[i]) + 2;
        nmsg += is_message(items[i]);
    }
    char *s = malloc(size), *o = s;
    if (!s) return NULL;
    o += sprintf(o, "%s", nmsg ? "" : "expected ");
    for (size_t i = 0, k = 0; i < n; i++)
        if (!nmsg || is_message(items[i])) o += sprintf(o, "%s%s", k++ ? (nmsg ? "; " : ", ") : "", items[i]);
    return s;
}
