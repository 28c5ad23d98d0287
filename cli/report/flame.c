/* Flame graphs from the merged calling-context tree: folded stacks (for
 * flamegraph.pl, inferno and speedscope's importer), a self-contained SVG
 * flame graph drawn here, and speedscope's own JSON file format (a sampled
 * profile with one weighted sample per tree node). Frame names are rule names,
 * or grammar:rule labels when the reports hold several grammars. The tree's
 * nodes are created parent first, so a parent's index is below its children's:
 * every walk here is a loop over indices or over the child and sibling links,
 * never a C recursion. */
#include "summary.h"

#include "columns.h"
#include "pego.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SVG_WIDTH      1200.0
#define SVG_MARGIN     10.0
#define SVG_TOP        44.0     /* room for the title lines */
#define SVG_ROW        16.0
#define SVG_MIN_WIDTH  0.1      /* frames narrower than this (px) are not drawn */
#define SVG_CHAR_WIDTH 7.0      /* an estimate for 12px Verdana */

static int single_grammar(const rep_summary *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->ngrammars; i++) n += s->grammars[i].used != 0;
    return n <= 1;
}

/* A node's frame name. */
static const char *frame_name(const rep_summary *s, int bare, uint32_t node)
{
    const rep_srule *r = &s->rules[s->nodes[node].rule];
    return bare ? r->name : r->label;
}

/* The next node in depth-first order (children in label order), or REP_NONE. */
static uint32_t next_node(const rep_summary *s, uint32_t n)
{
    if (s->nodes[n].child != REP_NONE) return s->nodes[n].child;
    while (n != REP_NONE && s->nodes[n].sibling == REP_NONE) n = s->nodes[n].parent;
    return n == REP_NONE ? REP_NONE : s->nodes[n].sibling;
}

int rep_print_folded(const rep_summary *s, int weight_calls, FILE *out)
{
    int bare = single_grammar(s), rc = 0;
    size_t *plen = malloc((s->nnodes ? s->nnodes : 1) * sizeof *plen);
    char *path = NULL;
    size_t cap = 0;
    if (!plen) return -1;
    for (uint32_t n = s->root; n != REP_NONE; n = next_node(s, n)) {
        const rep_snode *node = &s->nodes[n];
        size_t at = node->parent == REP_NONE ? 0 : plen[node->parent];
        const char *name = frame_name(s, bare, n);
        size_t need = at + strlen(name) + 2;
        if (need > cap) {
            size_t c = cap ? cap : 256;
            while (c < need) c *= 2;
            char *p = realloc(path, c);
            if (!p) {
                rc = -1;
                break;
            }
            path = p;
            cap = c;
        }
        if (at) path[at++] = ';';
        strcpy(path + at, name);
        plen[n] = at + strlen(name);
        uint64_t w = weight_calls ? node->calls : rep_us(node->self_ns);
        if (w) fprintf(out, "%.*s %llu\n", (int)plen[n], path, (unsigned long long)w);
    }
    free(path);
    free(plen);
    return rc;
}

/* Self time summed over each node's subtree. */
static uint64_t *subtree_self(const rep_summary *s)
{
    uint64_t *sum = malloc((s->nnodes ? s->nnodes : 1) * sizeof *sum);
    if (!sum) return NULL;
    for (size_t i = 0; i < s->nnodes; i++) sum[i] = s->nodes[i].self_ns;
    for (size_t i = s->nnodes; i-- > 0;)
        if (s->nodes[i].parent != REP_NONE) sum[s->nodes[i].parent] = rep_sum(sum[s->nodes[i].parent], sum[i]);
    return sum;
}

/* Writes text escaped for XML; control characters become U+FFFD. */
static void xml_text(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            if (c < 0x20 || c == 0x7f) fputs("\xEF\xBF\xBD", out);
            else fputc(c, out);
        }
    }
}

/* A warm colour from the frame name, the same on every run. */
static void frame_colour(const char *name, int *r, int *g, int *b)
{
    uint64_t h = rep_hash(name, strlen(name));
    *r = 205 + (int)(h % 50);
    *g = 80 + (int)((h >> 8) % 150);
    *b = (int)((h >> 16) % 60);
}

/* How many bytes of a UTF-8 name fit in width pixels (whole characters). */
static size_t fitting_bytes(const char *name, double width, int *cut)
{
    size_t chars = 0, i = 0, max = width > 0 ? (size_t)(width / SVG_CHAR_WIDTH) : 0;
    size_t len = strlen(name), total = 0;
    for (size_t j = 0; j < len; j++) total += ((unsigned char)name[j] & 0xC0) != 0x80;
    *cut = total > max;
    if (*cut) max = max >= 2 ? max - 2 : 0;   /* room for ".." */
    while (i < len && chars < max) {
        i++;
        while (i < len && ((unsigned char)name[i] & 0xC0) == 0x80) i++;
        chars++;
    }
    return i;
}

static int write_svg(const rep_summary *s, FILE *out, const uint64_t *sum, double *x, double *next, unsigned *depth)
{
    int bare = single_grammar(s);
    uint64_t total = 0;
    for (uint32_t n = s->root; n != REP_NONE; n = s->nodes[n].sibling) total = rep_sum(total, sum[n]);
    double plot = SVG_WIDTH - 2 * SVG_MARGIN;
    /* positions and depths, parents first; a parent's children start at its
     * left edge, next[] is where its next child goes */
    double root_x = SVG_MARGIN;
    unsigned levels = 0;
    for (uint32_t n = s->root; n != REP_NONE; n = next_node(s, n)) {
        const rep_snode *node = &s->nodes[n];
        double w = total ? plot * (double)sum[n] / (double)total : 0;
        double *at = node->parent == REP_NONE ? &root_x : &next[node->parent];
        x[n] = next[n] = *at;
        *at += w;
        depth[n] = node->parent == REP_NONE ? 0 : depth[node->parent] + 1;
        if (w >= SVG_MIN_WIDTH && depth[n] + 1 > levels) levels = depth[n] + 1;
    }
    double height = SVG_TOP + levels * SVG_ROW + SVG_MARGIN;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
                 "viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, sans-serif\" font-size=\"12\">\n",
            SVG_WIDTH, height, SVG_WIDTH, height);
    fprintf(out, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fdfdf6\"/>\n",
            SVG_WIDTH, height);
    fprintf(out, "<text x=\"%.1f\" y=\"20\" text-anchor=\"middle\" font-size=\"16\">Pego flame graph</text>\n",
            SVG_WIDTH / 2);
    fprintf(out, "<text x=\"%.1f\" y=\"36\" fill=\"#555\">%llu process%s, %llu parse%s, %llu us of self time; "
                 "widths are self time summed over each frame and the frames above it</text>\n",
            SVG_MARGIN, (unsigned long long)s->processes, s->processes == 1 ? "" : "es",
            (unsigned long long)s->parses, s->parses == 1 ? "" : "s", (unsigned long long)rep_us(total));
    for (uint32_t n = s->root; n != REP_NONE; n = next_node(s, n)) {
        double w = total ? plot * (double)sum[n] / (double)total : 0;
        if (w < SVG_MIN_WIDTH) continue;
        const char *name = frame_name(s, bare, n);
        double y = height - SVG_MARGIN - (depth[n] + 1) * SVG_ROW;
        int r, g, b;
        frame_colour(name, &r, &g, &b);
        fputs("<g class=\"frame\"><title>", out);
        xml_text(out, name, strlen(name));
        fprintf(out, ": %llu us (%.2f%%), %llu calls, %llu us self</title>", (unsigned long long)rep_us(sum[n]),
                100.0 * (double)sum[n] / (double)total, (unsigned long long)s->nodes[n].calls,
                (unsigned long long)rep_us(s->nodes[n].self_ns));
        fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\" fill=\"rgb(%d,%d,%d)\"/>",
                x[n], y, w, SVG_ROW - 1, r, g, b);
        int cut;
        size_t fit = fitting_bytes(name, w - 6, &cut);
        if (fit) {
            fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x[n] + 3, y + SVG_ROW - 4.5);
            xml_text(out, name, fit);
            if (cut) fputs("..", out);
            fputs("</text>", out);
        }
        fputs("</g>\n", out);
    }
    if (total == 0)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">no self time was recorded</text>\n", SVG_MARGIN, SVG_TOP + 12);
    fputs("</svg>\n", out);
    return 0;
}

/* Opens path for writing an output file ("-": standard output). */
static FILE *open_output(const char *path, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return f;
}

/* Closes f (standard output is flushed); -1 with a message if anything failed
 * to be written. */
static int close_output(FILE *f, const char *path, int rc, char *err, size_t errlen)
{
    int bad = ferror(f);
    errno = 0;
    if ((f == stdout ? fflush(f) : fclose(f)) != 0 || bad) {
        snprintf(err, errlen, "cannot write %s: %s", f == stdout ? "standard output" : path,
                 strerror(errno ? errno : EIO));
        return -1;
    }
    if (rc < 0) snprintf(err, errlen, "out of memory");
    return rc;
}

int rep_write_flamegraph(const rep_summary *s, const char *path, char *err, size_t errlen)
{
    size_t n = s->nnodes ? s->nnodes : 1;
    uint64_t *sum = subtree_self(s);
    double *x = malloc(n * sizeof *x), *next = malloc(n * sizeof *next);
    unsigned *depth = malloc(n * sizeof *depth);
    int rc = -1;
    if (!sum || !x || !next || !depth) {
        snprintf(err, errlen, "out of memory");
    } else {
        FILE *f = open_output(path, err, errlen);
        if (f) rc = close_output(f, path, write_svg(s, f, sum, x, next, depth), err, errlen);
    }
    free(sum);
    free(x);
    free(next);
    free(depth);
    return rc;
}

int rep_write_speedscope(const rep_summary *s, const char *path, char *err, size_t errlen)
{
    int bare = single_grammar(s);
    json_t *frames = json_array(), *samples = json_array(), *weights = json_array();
    /* frame index of each used rule, in rule order */
    uint32_t *frame_of = malloc((s->nrules ? s->nrules : 1) * sizeof *frame_of);
    uint32_t *stack = malloc((s->nnodes ? s->nnodes : 1) * sizeof *stack);
    int rc = frames && samples && weights && frame_of && stack ? 0 : -1;
    uint64_t total = 0;
    size_t nframes = 0;
    for (size_t i = 0; rc == 0 && i < s->nrules; i++) {
        frame_of[i] = REP_NONE;
        if (!s->rules[i].used) continue;
        frame_of[i] = (uint32_t)nframes++;
        if (json_array_append_new(frames, json_pack("{s:s}", "name",
                                                    bare ? s->rules[i].name : s->rules[i].label)) < 0)
            rc = -1;
    }
    for (uint32_t n = s->root; rc == 0 && n != REP_NONE; n = next_node(s, n)) {
        if (!s->nodes[n].self_ns) continue;
        size_t depth = 0;
        for (uint32_t a = n; a != REP_NONE; a = s->nodes[a].parent) stack[depth++] = a;
        json_t *sample = json_array();
        while (depth-- > 0) json_array_append_new(sample, json_integer(frame_of[s->nodes[stack[depth]].rule]));
        if (json_array_append_new(samples, sample) < 0 ||
            json_array_append_new(weights, json_integer((json_int_t)s->nodes[n].self_ns)) < 0)
            rc = -1;
        total = rep_sum(total, s->nodes[n].self_ns);
    }
    free(frame_of);
    free(stack);
    char exporter[64];
    snprintf(exporter, sizeof exporter, "pego %s", PEGO_VERSION);
    json_t *doc = json_object(), *shared = json_object(), *profiles = json_array(), *profile = json_object();
    if (!doc || !shared || !profiles || !profile) rc = -1;
    json_object_set_new(doc, "$schema", json_string("https://www.speedscope.app/file-format-schema.json"));
    json_object_set_new(shared, "frames", frames);
    json_object_set_new(doc, "shared", shared);
    json_object_set_new(profile, "type", json_string("sampled"));
    json_object_set_new(profile, "name", json_string("pego self time"));
    json_object_set_new(profile, "unit", json_string("nanoseconds"));
    json_object_set_new(profile, "startValue", json_integer(0));
    json_object_set_new(profile, "endValue", json_integer((json_int_t)total));
    json_object_set_new(profile, "samples", samples);
    json_object_set_new(profile, "weights", weights);
    json_array_append_new(profiles, profile);
    json_object_set_new(doc, "profiles", profiles);
    json_object_set_new(doc, "name", json_string("pego profile"));
    json_object_set_new(doc, "activeProfileIndex", json_integer(0));
    json_object_set_new(doc, "exporter", json_string(exporter));
    if (rc < 0) {
        json_decref(doc);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    FILE *f = open_output(path, err, errlen);
    if (!f) {
        json_decref(doc);
        return -1;
    }
    rc = json_dumpf(doc, f, JSON_COMPACT | JSON_PRESERVE_ORDER) < 0 ? -1 : 0;
    fputc('\n', f);
    json_decref(doc);
    return close_output(f, path, rc, err, errlen);
}
