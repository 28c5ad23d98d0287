/* The tables of pego report as lists of columns. A table is one static list
 * of columns, each with its name, the formats it appears in, its width in
 * text and how to get its value from a row; the text, JSON and CSV writers
 * below derive every heading and every row from that list, the way the VM's
 * opcode list gives its enum, dispatch table and disassembler. Also the
 * number formatting the report outputs share. Part of the pego command. */
#ifndef PEGO_REP_COLUMNS_H
#define PEGO_REP_COLUMNS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The formats a column appears in. */
enum { REP_IN_TEXT = 1, REP_IN_JSON = 2, REP_IN_CSV = 4, REP_IN_DATA = REP_IN_JSON | REP_IN_CSV,
       REP_IN_ALL = REP_IN_TEXT | REP_IN_DATA };

typedef enum {
    REP_CELL_COUNT,     /* count */
    REP_CELL_SHARE,     /* share, a percentage of a whole */
    REP_CELL_TEXT,      /* text, or NULL for none */
    REP_CELL_CHANGE,    /* count - base, signed */
    REP_CELL_GROWTH,    /* count - base as a signed percentage of base; none when base is 0 */
    REP_CELL_RATIO,     /* count / base; none when base is 0 */
    REP_CELL_NONE,      /* a metric that was not collected (summary.h, REP_UNSET) */
} rep_cell_kind;

/* One value of a table. */
typedef struct rep_cell {
    rep_cell_kind kind;
    uint64_t      count, base;
    double        share;
    const char   *text;
} rep_cell;

typedef struct rep_column rep_column;
typedef struct rep_table  rep_table;

/* How each format writes a cell:
 * Text:  %llu for a count, %.1f%% for a share, %+lld for a change, %+.1f%% for
 *        a growth and %.3f for a ratio ("-" when none), text as it is ("-" for
 *        none), right-aligned in the column's width, one space between columns;
 *        a column of width 0 is left-aligned after two spaces. "-" for a
 *        metric not collected.
 * Markdown (a GitHub-flavoured table of the text columns): each cell as in
 *        text without the padding, between "| " and " |"; columns with a
 *        width are right-aligned, the others left-aligned; the column names
 *        as they are, and in text the characters \ ` * _ [ ] < | ~ & escaped
 *        with a backslash (rep_put_text).
 * JSON:  integers; shares and growths rounded to 0.1, ratios to 0.001 (null when none);
 *        text as a string, or null. A metric not collected is left out of a
 *        row's object (null where a cell stands alone).
 * CSV:   %llu, %lld, shares and growths %.1f, ratios %.3f (empty when none);
 *        text quoted when needed, empty for none; empty for a metric not
 *        collected. */
struct rep_column {
    const char *name;       /* text and CSV heading, JSON key */
    unsigned    formats;    /* REP_IN_... */
    int         width;      /* in text */
    unsigned    when;       /* 0: always; else shown only in a table whose variant has one of these bits */
    rep_cell  (*value)(const rep_column *c, const rep_table *t, const void *row);
    size_t      field;      /* for value functions that read one field of the row: its offset */
    /* text and Markdown only, instead of value: prints a cell made of several
     * values, writing its text pieces with rep_put_text(out, format, ...) */
    void      (*print)(FILE *out, int format, const rep_table *t, const void *row);
};

struct rep_table {
    const rep_column *columns;
    size_t            ncolumns;
    unsigned          variant;  /* which of the columns with a `when` are shown */
    uint64_t          whole;    /* what rep_share_cell's shares are of */
    const void       *ctx;      /* for the value functions, e.g. the summary rows point into */
};

/* A table of the static column list cols. */
#define REP_TABLE(cols, variant, whole, ctx) \
    ((rep_table){ (cols), sizeof (cols) / sizeof *(cols), (variant), (whole), (ctx) })

/* The uint64_t at offset field of row. */
uint64_t rep_field(const void *row, size_t field);

/* Value functions that read the uint64_t at c->field of the row: as it is, as
 * nanoseconds shown in microseconds, and as a share of t->whole; and one that
 * reads the string (const char *) there. */
rep_cell rep_count_cell(const rep_column *c, const rep_table *t, const void *row);
rep_cell rep_us_cell(const rep_column *c, const rep_table *t, const void *row);
rep_cell rep_share_cell(const rep_column *c, const rep_table *t, const void *row);
rep_cell rep_text_cell(const rep_column *c, const rep_table *t, const void *row);
/* The uint64_t at c->field of the row as a count, or none when it is REP_UNSET. */
rep_cell rep_detail_cell(const rep_column *c, const rep_table *t, const void *row);

/* Columns of those four, for a row of type type whose field is member. */
#define REP_COUNT(name, formats, width, type, member) \
    { name, formats, width, 0, rep_count_cell, offsetof(type, member), NULL }
#define REP_US(name, formats, width, type, member) \
    { name, formats, width, 0, rep_us_cell, offsetof(type, member), NULL }
#define REP_SHARE(name, formats, width, type, member) \
    { name, formats, width, 0, rep_share_cell, offsetof(type, member), NULL }
#define REP_TEXT(name, formats, width, type, member) \
    { name, formats, width, 0, rep_text_cell, offsetof(type, member), NULL }
#define REP_DETAIL(name, formats, width, type, member) \
    { name, formats, width, 0, rep_detail_cell, offsetof(type, member), NULL }

/* The text table, or with format REP_FORMAT_MARKDOWN the Markdown one: the
 * heading (in Markdown after an empty line), the rows, and the end of the
 * table (in Markdown an empty line, which ends it). */
void    rep_text_heading(const rep_table *t, int format, FILE *out);
void    rep_text_row(const rep_table *t, const void *row, int format, FILE *out);
void    rep_text_end(int format, FILE *out);
/* Text as it is, or escaped for a Markdown table cell. */
void    rep_put_text(FILE *out, int format, const char *text);
void    rep_csv_heading(const rep_table *t, FILE *out);
void    rep_csv_row(const rep_table *t, const void *row, FILE *out);
/* The row as a JSON object; NULL when out of memory. */
json_t *rep_json_row(const rep_table *t, const void *row);
/* One cell as JSON, for a document that holds cells outside a table. */
json_t *rep_cell_json(const rep_cell *cell);

/* Nanoseconds to microseconds, rounded to nearest. */
uint64_t rep_us(uint64_t ns);
/* part as a percentage of whole (0 when whole is 0). */
double   rep_percent(uint64_t part, uint64_t whole);

#endif
