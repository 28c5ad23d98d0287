/* The writers of report tables (columns.h): headings and rows in text, JSON
 * and CSV, each derived from a table's list of columns, and the formatting of
 * one cell in each format. */
#include "columns.h"

#include <math.h>
#include <string.h>

#include "summary.h"

uint64_t rep_us(uint64_t ns)
{
    return ns / 1000 + (ns % 1000 >= 500);
}

double rep_percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

uint64_t rep_field(const void *row, size_t field)
{
    uint64_t v;
    memcpy(&v, (const char *)row + field, sizeof v);
    return v;
}

rep_cell rep_count_cell(const rep_column *c, const rep_table *t, const void *row)
{
    (void)t;
    return (rep_cell){ .kind = REP_CELL_COUNT, .count = rep_field(row, c->field) };
}

rep_cell rep_us_cell(const rep_column *c, const rep_table *t, const void *row)
{
    (void)t;
    return (rep_cell){ .kind = REP_CELL_COUNT, .count = rep_us(rep_field(row, c->field)) };
}

rep_cell rep_share_cell(const rep_column *c, const rep_table *t, const void *row)
{
    return (rep_cell){ .kind = REP_CELL_SHARE, .share = rep_percent(rep_field(row, c->field), t->whole) };
}

rep_cell rep_detail_cell(const rep_column *c, const rep_table *t, const void *row)
{
    uint64_t v = rep_field(row, c->field);
    (void)t;
    return v == REP_UNSET ? (rep_cell){ .kind = REP_CELL_NONE } : (rep_cell){ .kind = REP_CELL_COUNT, .count = v };
}

rep_cell rep_text_cell(const rep_column *c, const rep_table *t, const void *row)
{
    const char *text;
    (void)t;
    memcpy(&text, (const char *)row + c->field, sizeof text);
    return (rep_cell){ .kind = REP_CELL_TEXT, .text = text };
}

static int shown(const rep_table *t, const rep_column *c, unsigned format)
{
    return (c->formats & format) && (!c->when || (c->when & t->variant));
}

static int64_t change(const rep_cell *cell)
{
    return (int64_t)(cell->count - cell->base);
}

/* ---- text and Markdown ---- */

void rep_put_text(FILE *out, int format, const char *text)
{
    if (format != REP_FORMAT_MARKDOWN) {
        fputs(text, out);
        return;
    }
    for (; *text; text++) {
        if (strchr("\\`*_[]<|~&", *text)) fputc('\\', out);
        fputc(*text, out);
    }
}

/* The separator before a text column: none before the first, two spaces
 * before a left-aligned one, else one; in Markdown "| ". */
static void text_separator(FILE *out, const rep_column *c, int first, int format)
{
    if (format == REP_FORMAT_MARKDOWN) fputs(first ? "| " : " | ", out);
    else if (c->width == 0) fputs("  ", out);
    else if (!first) fputc(' ', out);
}

/* A cell's text as text and Markdown write it, unpadded; NULL for a text cell,
 * whose text is cell->text. */
static const char *cell_text(const rep_cell *cell, char *text, size_t len)
{
    snprintf(text, len, "-");
    switch (cell->kind) {
    case REP_CELL_COUNT:
        snprintf(text, len, "%llu", (unsigned long long)cell->count);
        break;
    case REP_CELL_SHARE:
        snprintf(text, len, "%.1f%%", cell->share);
        break;
    case REP_CELL_TEXT:
        return cell->text ? NULL : text;
    case REP_CELL_CHANGE:
        snprintf(text, len, "%+lld", (long long)change(cell));
        break;
    case REP_CELL_GROWTH:
        if (cell->base) snprintf(text, len, "%+.1f%%", 100.0 * (double)change(cell) / (double)cell->base);
        break;
    case REP_CELL_RATIO:
        if (cell->base) snprintf(text, len, "%.3f", (double)cell->count / (double)cell->base);
        break;
    case REP_CELL_NONE:
        break;
    }
    return text;
}

static void text_cell(FILE *out, int width, const rep_cell *cell, int format)
{
    char buf[64];
    const char *text = cell_text(cell, buf, sizeof buf);
    if (format == REP_FORMAT_MARKDOWN) rep_put_text(out, format, text ? text : cell->text);
    else fprintf(out, "%*s", width, text ? text : cell->text);
}

void rep_text_heading(const rep_table *t, int format, FILE *out)
{
    int first = 1;
    if (format == REP_FORMAT_MARKDOWN) fputc('\n', out);
    for (size_t i = 0; i < t->ncolumns; i++) {
        const rep_column *c = &t->columns[i];
        if (!shown(t, c, REP_IN_TEXT)) continue;
        text_separator(out, c, first, format);
        fprintf(out, "%*s", format == REP_FORMAT_MARKDOWN ? 0 : c->width, c->name);
        first = 0;
    }
    if (format != REP_FORMAT_MARKDOWN) {
        fputc('\n', out);
        return;
    }
    fputs(" |\n|", out);
    for (size_t i = 0; i < t->ncolumns; i++)
        if (shown(t, &t->columns[i], REP_IN_TEXT)) fputs(t->columns[i].width ? "---:|" : ":---|", out);
    fputc('\n', out);
}

void rep_text_row(const rep_table *t, const void *row, int format, FILE *out)
{
    int first = 1;
    for (size_t i = 0; i < t->ncolumns; i++) {
        const rep_column *c = &t->columns[i];
        if (!shown(t, c, REP_IN_TEXT)) continue;
        text_separator(out, c, first, format);
        if (c->print) {
            c->print(out, format, t, row);
        } else {
            rep_cell cell = c->value(c, t, row);
            text_cell(out, c->width, &cell, format);
        }
        first = 0;
    }
    fputs(format == REP_FORMAT_MARKDOWN ? " |\n" : "\n", out);
}

void rep_text_end(int format, FILE *out)
{
    if (format == REP_FORMAT_MARKDOWN) fputc('\n', out);
}

/* ---- CSV ---- */

/* One CSV field, quoted when needed. */
static void csv_text(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void csv_cell(FILE *out, const rep_cell *cell)
{
    switch (cell->kind) {
    case REP_CELL_COUNT:
        fprintf(out, "%llu", (unsigned long long)cell->count);
        break;
    case REP_CELL_SHARE:
        fprintf(out, "%.1f", cell->share);
        break;
    case REP_CELL_TEXT:
        if (cell->text) csv_text(out, cell->text);
        break;
    case REP_CELL_CHANGE:
        fprintf(out, "%lld", (long long)change(cell));
        break;
    case REP_CELL_GROWTH:
        if (cell->base) fprintf(out, "%.1f", 100.0 * (double)change(cell) / (double)cell->base);
        break;
    case REP_CELL_RATIO:
        if (cell->base) fprintf(out, "%.3f", (double)cell->count / (double)cell->base);
        break;
    case REP_CELL_NONE:
        break;
    }
}

void rep_csv_heading(const rep_table *t, FILE *out)
{
    const char *sep = "";
    for (size_t i = 0; i < t->ncolumns; i++) {
        if (!shown(t, &t->columns[i], REP_IN_CSV)) continue;
        fputs(sep, out);
        fputs(t->columns[i].name, out);
        sep = ",";
    }
    fputc('\n', out);
}

void rep_csv_row(const rep_table *t, const void *row, FILE *out)
{
    const char *sep = "";
    for (size_t i = 0; i < t->ncolumns; i++) {
        const rep_column *c = &t->columns[i];
        if (!shown(t, c, REP_IN_CSV)) continue;
        fputs(sep, out);
        rep_cell cell = c->value(c, t, row);
        csv_cell(out, &cell);
        sep = ",";
    }
    fputc('\n', out);
}

/* ---- JSON ---- */

json_t *rep_cell_json(const rep_cell *cell)
{
    switch (cell->kind) {
    case REP_CELL_COUNT:
        return json_integer((json_int_t)cell->count);
    case REP_CELL_SHARE:
        return json_real(round(cell->share * 10.0) / 10.0);
    case REP_CELL_TEXT:
        return cell->text ? json_string(cell->text) : json_null();
    case REP_CELL_CHANGE:
        return json_integer((json_int_t)change(cell));
    case REP_CELL_GROWTH:
        if (!cell->base) return json_null();
        return json_real(round(1000.0 * (double)change(cell) / (double)cell->base) / 10.0);
    case REP_CELL_RATIO:
        if (!cell->base) return json_null();
        return json_real(round(1000.0 * (double)cell->count / (double)cell->base) / 1000.0);
    case REP_CELL_NONE:
        return json_null();
    }
    return json_null();
}

json_t *rep_json_row(const rep_table *t, const void *row)
{
    json_t *obj = json_object();
    if (!obj) return NULL;
    for (size_t i = 0; i < t->ncolumns; i++) {
        const rep_column *c = &t->columns[i];
        if (!shown(t, c, REP_IN_JSON)) continue;
        rep_cell cell = c->value(c, t, row);
        if (cell.kind == REP_CELL_NONE) continue;   /* not collected: absent */
        if (json_object_set_new(obj, c->name, rep_cell_json(&cell)) < 0) {
            json_decref(obj);
            return NULL;
        }
    }
    return obj;
}
