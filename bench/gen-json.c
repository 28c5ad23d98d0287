/* gen-json: writes a deterministic JSON document of about BYTES bytes to standard
 * output, for benchmarks and for equivalence tests on large inputs.
 *
 *   gen-json BYTES [SEED]
 *
 * The document is an array of objects, one per line. Each object holds numbers (integers,
 * negatives, fractions, exponents), strings with escapes (\" \\ \/ \n \t \uXXXX) and
 * raw non-ASCII UTF-8, booleans, null and nested arrays, so that every rule of
 * fixtures/json.pego is exercised; the output is accepted by that grammar and by any
 * RFC 8259 parser. The same BYTES and SEED (default 1) always give the same bytes, on
 * every platform. The output stops at the first object boundary at or after BYTES, so
 * it is longer than BYTES by less than one object (a few hundred bytes). */

#define GEN_NAME "gen-json"
#include "gen.h"

/* Pieces of string content, each valid inside a JSON string: plain words, escapes, and
 * raw UTF-8 (é, ü, 日本, Ω, €, an emoji outside the BMP). */
static const char *const pieces[] = {
    "alpha", "beta", "gamma", "delta", "pego", "parser", "grammar", "token", " ", " ",
    "-", "_", ".", ",", ":", "a b", "{not an object}", "[1, 2]",
    "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\r", "\\b", "\\f", "\\u00e9", "\\u20AC",
    "\\ud83d\\ude00", "\xc3\xa9", "\xc3\xbc", "\xe6\x97\xa5\xe6\x9c\xac", "\xce\xa9",
    "\xe2\x82\xac", "\xf0\x9f\x98\x80",
};

static void string_value(void)
{
    unsigned n = pick(6);
    out("\"", 1);
    for (unsigned i = 0; i < n; i++)
        outs(pieces[pick(sizeof pieces / sizeof pieces[0])]);
    out("\"", 1);
}

/* Numbers in every form the grammar allows: 0, -7, 42, 3.25, -0.5, 6.02e23, 1E-3, 2e+8. */
static void number_value(void)
{
    char buf[64];
    unsigned kind = pick(6);
    uint64_t r = next_random();
    int n;
    switch (kind) {
    case 0:
        n = snprintf(buf, sizeof buf, "%u", (unsigned)(r % 1000));
        break;
    case 1:
        n = snprintf(buf, sizeof buf, "-%u", (unsigned)(r % 100000) + 1);
        break;
    case 2:
        n = snprintf(buf, sizeof buf, "%u.%02u", (unsigned)(r % 1000), (unsigned)(r >> 20) % 100);
        break;
    case 3:
        n = snprintf(buf, sizeof buf, "-0.%u", (unsigned)(r % 999) + 1);
        break;
    case 4:
        n = snprintf(buf, sizeof buf, "%u.%ue%u", (unsigned)(r % 9) + 1, (unsigned)(r >> 8) % 100,
                     (unsigned)(r >> 16) % 30);
        break;
    default:
        n = snprintf(buf, sizeof buf, "%u%c%c%u", (unsigned)(r % 9) + 1, (r >> 8) & 1 ? 'E' : 'e',
                     "+-"[(r >> 9) & 1], (unsigned)(r >> 16) % 300);
        break;
    }
    out(buf, (size_t)n);
}

static void value(int depth);

/* An array of up to four values; nested arrays stop at depth 3. */
static void array_value(int depth)
{
    unsigned n = pick(5);
    out("[", 1);
    for (unsigned i = 0; i < n; i++) {
        if (i > 0)
            outs(", ");
        value(depth + 1);
    }
    out("]", 1);
}

static void value(int depth)
{
    switch (pick(depth < 3 ? 7 : 6)) {
    case 0:
    case 1:
        string_value();
        break;
    case 2:
    case 3:
        number_value();
        break;
    case 4:
        outs(pick(2) ? "true" : "false");
        break;
    case 5:
        outs("null");
        break;
    default:
        array_value(depth);
        break;
    }
}

/* One record object: fixed keys with typed values, then a few keys with any value. */
static void object(uint64_t id)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%" PRIu64, id);
    outs("  {\"id\": ");
    out(buf, (size_t)n);
    outs(", \"name\": ");
    string_value();
    outs(", \"score\": ");
    number_value();
    outs(", \"active\": ");
    outs(pick(2) ? "true" : "false");
    outs(", \"parent\": null, \"tags\": ");
    array_value(2);
    outs(", \"matrix\": [");
    for (unsigned i = 0, rows = pick(3) + 1; i < rows; i++) {
        if (i > 0)
            outs(", ");
        array_value(2);
    }
    outs("]");
    for (unsigned i = 0, extra = pick(3); i < extra; i++) {
        outs(", \"k\\u00e9y");
        n = snprintf(buf, sizeof buf, "%u", i);
        out(buf, (size_t)n);
        outs("\": ");
        value(0);
    }
    outs(", \"empty\": {}}");
}

int main(int argc, char **argv)
{
    uint64_t bytes = gen_start(argc, argv);

    outs("[\n");
    for (uint64_t id = 0; written + 3 < bytes || id == 0; id++) {
        if (id > 0)
            outs(",\n");
        object(id);
    }
    outs("\n]\n");
    return gen_finish();
}
