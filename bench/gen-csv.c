/* gen-csv: writes a deterministic CSV document of about BYTES bytes to standard output,
 * for the CSV benchmark of bench/run.
 *
 *   gen-csv BYTES [SEED]
 *
 * A header line, then records of six fields: integers, decimals, plain words, raw
 * non-ASCII UTF-8, empty fields, and quoted fields holding commas, doubled quotes and
 * line breaks (LF and CR LF). Records end in LF, or CR LF one time in four, and an
 * empty line (a record of one empty field) appears now and then, so that every rule of
 * fixtures/csv.pego is exercised; the output is accepted by that grammar (RFC 4180).
 * The same BYTES and SEED (default 1) always give the same bytes, on every platform.
 * The output stops at the first record boundary at or after BYTES. */

#define GEN_NAME "gen-csv"
#include "gen.h"

/* Words valid in a bare field: no comma, quote, CR or LF. */
static const char *const words[] = {
    "alpha", "beta", "gamma", "delta", "pego", "parser", "grammar", "token", "Z\xc3\xbcrich",
    "S\xc3\xa3o Paulo", "\xe6\x9d\xb1\xe4\xba\xac", "K\xc3\xb8" "benhavn", "na\xc3\xafve caf\xc3\xa9",
    "x-y_z", "a b c", "100%", "semi;colon", "tab\there", "\xe2\x82\xac" "42",
};

/* Pieces of a quoted field: anything, with quotes doubled. */
static const char *const quoted_pieces[] = {
    "plain", " ", ", ", "comma,inside", "\"\"quoted\"\"", "line\nbreak", "crlf\r\nbreak", "\"\"",
    "\xce\xa9", "\xf0\x9f\x98\x80", "tab\t", "semi;", "'single'",
};

static void bare_words(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (i > 0)
            out(" ", 1);
        outs(words[pick(COUNT(words))]);
    }
}

static void quoted_field(void)
{
    out("\"", 1);
    for (unsigned i = 0, n = pick(5); i < n; i++)
        outs(quoted_pieces[pick(COUNT(quoted_pieces))]);
    out("\"", 1);
}

static void number_field(int decimal)
{
    char buf[48];
    uint64_t r = next_random();
    int n = decimal ? snprintf(buf, sizeof buf, "%s%u.%02u", (r >> 40) & 1 ? "-" : "",
                               (unsigned)(r % 100000), (unsigned)(r >> 20) % 100)
                    : snprintf(buf, sizeof buf, "%u", (unsigned)(r % 1000000));
    out(buf, (size_t)n);
}

/* A field of any kind; empty one time in eight. */
static void any_field(void)
{
    switch (pick(8)) {
    case 0:
        break;
    case 1:
    case 2:
        quoted_field();
        break;
    case 3:
        number_field(0);
        break;
    case 4:
        number_field(1);
        break;
    default:
        bare_words(pick(3) + 1);
        break;
    }
}

static void end_of_record(void)
{
    outs(pick(4) == 0 ? "\r\n" : "\n");
}

static void record(uint64_t id)
{
    char buf[32];
    if (pick(50) == 0) { /* an empty line: one empty field */
        end_of_record();
        return;
    }
    int n = snprintf(buf, sizeof buf, "%" PRIu64, id);
    out(buf, (size_t)n);
    out(",", 1);
    if (pick(3) == 0)
        quoted_field();
    else
        bare_words(pick(2) + 1);
    out(",", 1);
    bare_words(1);
    out(",", 1);
    if (pick(10) != 0)
        number_field(1);
    out(",", 1);
    any_field();
    out(",", 1);
    any_field();
    end_of_record();
}

int main(int argc, char **argv)
{
    uint64_t bytes = gen_start(argc, argv);

    outs("id,name,city,amount,note,extra\n");
    for (uint64_t id = 1; written < bytes; id++)
        record(id);
    return gen_finish();
}
