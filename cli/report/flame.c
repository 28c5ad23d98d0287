/* Flame graphs from the merged calling-context tree: folded stacks (for
 * flamegraph.pl, inferno and speedscope's importer), a self-contained SVG
 * flame graph drawn here (with the script of flame_script.h to zoom and
 * search; its colours a family per grammar in a batch of several, or in a
 * differential graph the change of each frame against a base), and
 * speedscope's own JSON file format (a sampled profile with one weighted
 * sample per tree node). Frame names are rule names,
 * or grammar:rule labels when the reports hold several grammars. The tree's
 * nodes are created parent first, so a parent's index is below its children's:
 * every walk here is a loop over indices or over the child and sibling links,
 * never a C recursion. */
#include "summary.h"

#include "columns.h"
#include "flame_script.h"
#include "pego.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_MARGIN     10.0
#define SVG_TOP        44.0     /* room for the title lines */
#define SVG_LEGEND     16.0     /* the line of grammar colours, with several grammars */
#define SVG_BOTTOM     24.0     /* room for the details and matched lines */
#define SVG_ROW        16.0
#define SVG_MIN_WIDTH  0.1      /* frames narrower than this (px) are not drawn */
#define SVG_CHAR_WIDTH 7.0      /* an estimate for 12px Verdana (the script's too) */

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

/* A node's own weight: its calls, its self time in ns, or its node bytes. */
static uint64_t own_weight(const rep_summary *s, rep_weight weight, uint32_t n)
{
    return weight == REP_WEIGHT_CALLS ? s->nodes[n].calls
         : weight == REP_WEIGHT_BYTES ? s->nodes[n].node_bytes : s->nodes[n].self_ns;
}

/* Calls visit(ud, node, path, len) for every node in depth-first order with
 * its path of frame names joined by ';'; 0, or -1 when out of memory. */
static int walk_paths(const rep_summary *s, int bare, void (*visit)(void *ud, uint32_t n, const char *path, size_t len),
                      void *ud)
{
    size_t *plen = malloc((s->nnodes ? s->nnodes : 1) * sizeof *plen);
    char *path = NULL;
    size_t cap = 0;
    int rc = plen ? 0 : -1;
    for (uint32_t n = s->root; rc == 0 && n != REP_NONE; n = next_node(s, n)) {
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
        visit(ud, n, path, plen[n]);
    }
    free(path);
    free(plen);
    return rc;
}

typedef struct folded_out {
    const rep_summary *s;
    rep_weight         weight;
    FILE              *out;
} folded_out;

static void print_folded_line(void *ud, uint32_t n, const char *path, size_t len)
{
    folded_out *f = ud;
    uint64_t w = own_weight(f->s, f->weight, n);
    if (f->weight == REP_WEIGHT_SELF) w = rep_us(w);
    if (w) fprintf(f->out, "%.*s %llu\n", (int)len, path, (unsigned long long)w);
}

int rep_print_folded(const rep_summary *s, rep_weight weight, FILE *out)
{
    folded_out f = { s, weight, out };
    return walk_paths(s, single_grammar(s), print_folded_line, &f);
}

/* The weight summed over each node's subtree. */
static uint64_t *subtree_sums(const rep_summary *s, rep_weight weight)
{
    uint64_t *sum = malloc((s->nnodes ? s->nnodes : 1) * sizeof *sum);
    if (!sum) return NULL;
    for (size_t i = 0; i < s->nnodes; i++) sum[i] = own_weight(s, weight, (uint32_t)i);
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

/* ---- colours ---- */

typedef struct rgb {
    int r, g, b;
} rgb;

/* A warm colour from the frame name, the same on every run. */
static rgb hot_colour(const char *name)
{
    uint64_t h = rep_hash(name, strlen(name));
    return (rgb){ 205 + (int)(h % 50), 80 + (int)((h >> 8) % 150), (int)((h >> 16) % 60) };
}

static rgb hsl_colour(double hue, double sat, double light)
{
    double c = (1 - fabs(2 * light - 1)) * sat, hp = fmod(hue, 360.0) / 60.0;
    double x = c * (1 - fabs(fmod(hp, 2.0) - 1)), m = light - c / 2, v[3];
    int k = (int)hp;
    v[0] = k == 0 || k == 5 ? c : k == 1 || k == 4 ? x : 0;
    v[1] = k == 0 || k == 3 ? x : k == 1 || k == 2 ? c : 0;
    v[2] = k == 2 || k == 5 ? x : k >= 3 ? c : 0;
    return (rgb){ (int)lround(255 * (v[0] + m)), (int)lround(255 * (v[1] + m)), (int)lround(255 * (v[2] + m)) };
}

/* In a batch of n grammars, the family of the grammar at place (of the used
 * grammars by label): its hue, evenly spaced around the wheel from orange,
 * so that a grammar keeps its own colour however small its frames; within
 * it, the rule name varies the hue a little, the saturation and lightness. */
static double family_hue(size_t place, size_t n)
{
    return 25.0 + 360.0 * (double)place / (double)n;
}

static rgb family_colour(const char *rule, size_t place, size_t n)
{
    uint64_t h = rep_hash(rule, strlen(rule));
    double spread = 90.0 / (double)n;
    return hsl_colour(family_hue(place, n) + spread * ((double)(h % 101) / 100.0 - 0.5) + 360.0,
                      0.55 + 0.3 * (double)((h >> 8) % 101) / 100.0, 0.5 + 0.2 * (double)((h >> 16) % 101) / 100.0);
}

/* A frame of a differential graph: from grey (unchanged) to red (grew) or
 * blue (shrank), by the relative change (now - base) / max(now, base), which
 * is 1 for a frame not in the base. */
static double relative_change(uint64_t base, uint64_t now)
{
    uint64_t most = base > now ? base : now;
    return most ? ((double)now - (double)base) / (double)most : 0;
}

static rgb change_colour(double change)
{
    static const rgb grey = { 220, 220, 220 }, red = { 240, 50, 40 }, blue = { 60, 110, 240 };
    const rgb *to = change > 0 ? &red : &blue;
    double t = fabs(change);
    return (rgb){ (int)lround(grey.r + t * (to->r - grey.r)), (int)lround(grey.g + t * (to->g - grey.g)),
                  (int)lround(grey.b + t * (to->b - grey.b)) };
}

/* ---- the SVG ---- */

/* What a flame graph draws: the summary's tree, each frame as wide as its
 * weight summed over its subtree (sum), starting at start (in weight units);
 * in a differential graph, the base's sum of the same path (base_sum). */
typedef struct flame {
    const rep_summary       *s;
    const rep_flame_options *o;
    int                      bare;
    uint64_t                *sum, *start, total;
    unsigned                *depth;
    size_t                  *place;         /* each grammar's place among the used ones, by label */
    size_t                   ngrammars;     /* used grammars: colour families when more than one */
    const rep_summary       *base;          /* differential: the base, else NULL */
    uint64_t                *base_sum;      /* differential: per node, 0 for a path not in the base */
    uint32_t                *in_base;       /* differential: the base node of the path, or REP_NONE */
    uint64_t                 gone_paths, gone_weight;   /* differential: base paths not drawn */
} flame;

static double frame_width(const flame *f, uint32_t n, double plot)
{
    return f->total ? plot * (double)f->sum[n] / (double)f->total : 0;
}

/* "1234 us", "1234 calls" or "1234 bytes". */
static void weight_text(const flame *f, uint64_t w, char *text, size_t len)
{
    if (f->o->weight == REP_WEIGHT_CALLS) snprintf(text, len, "%llu calls", (unsigned long long)w);
    else if (f->o->weight == REP_WEIGHT_BYTES) snprintf(text, len, "%llu bytes", (unsigned long long)w);
    else snprintf(text, len, "%llu us", (unsigned long long)rep_us(w));
}

static void write_tooltip(const flame *f, uint32_t n, const char *name, FILE *out)
{
    const rep_snode *node = &f->s->nodes[n];
    double share = 100.0 * (double)f->sum[n] / (double)f->total;
    xml_text(out, name, strlen(name));
    if (f->o->weight == REP_WEIGHT_CALLS)
        fprintf(out, ": %llu calls with the frames above it (%.2f%%), %llu of its own, %llu us self",
                (unsigned long long)f->sum[n], share, (unsigned long long)node->calls,
                (unsigned long long)rep_us(node->self_ns));
    else if (f->o->weight == REP_WEIGHT_BYTES)
        fprintf(out, ": %llu node bytes with the frames above it (%.2f%%), %llu of its own",
                (unsigned long long)f->sum[n], share, (unsigned long long)node->node_bytes);
    else
        fprintf(out, ": %llu us (%.2f%%), %llu calls, %llu us self", (unsigned long long)rep_us(f->sum[n]), share,
                (unsigned long long)node->calls, (unsigned long long)rep_us(node->self_ns));
    if (!f->base) return;
    if (f->in_base[n] == REP_NONE) {
        fputs("; not in the base", out);
        return;
    }
    char base[48];
    weight_text(f, f->base_sum[n], base, sizeof base);
    fprintf(out, "; base %s", base);
    if (f->base_sum[n]) fprintf(out, ", %+.1f%%", 100.0 * ((double)f->sum[n] - (double)f->base_sum[n]) / (double)f->base_sum[n]);
}

static rgb frame_colour(const flame *f, uint32_t n, const char *name)
{
    if (f->base) return change_colour(relative_change(f->base_sum[n], f->sum[n]));
    if (f->ngrammars <= 1) return hot_colour(name);
    const rep_srule *r = &f->s->rules[f->s->nodes[n].rule];
    return family_colour(r->name, f->place[r->grammar], f->ngrammars);
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

static void write_frame(const flame *f, uint32_t n, double plot, double height, FILE *out)
{
    const char *name = frame_name(f->s, f->bare, n);
    double w = frame_width(f, n, plot), x = SVG_MARGIN + plot * (double)f->start[n] / (double)f->total;
    double y = height - SVG_BOTTOM - (f->depth[n] + 1) * SVG_ROW;
    rgb c = frame_colour(f, n, name);
    fprintf(out, "<g class=\"frame\" data-s=\"%llu\" data-v=\"%llu\" data-name=\"", (unsigned long long)f->start[n],
            (unsigned long long)f->sum[n]);
    xml_text(out, name, strlen(name));
    fputs("\"><title>", out);
    write_tooltip(f, n, name, out);
    fprintf(out, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\" fill=\"rgb(%d,%d,%d)\"/>",
            x, y, w, SVG_ROW - 1, c.r, c.g, c.b);
    int cut;
    size_t fit = fitting_bytes(name, w - 6, &cut);
    fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + SVG_ROW - 4.5);
    xml_text(out, name, fit);
    if (cut && fit) fputs("..", out);
    fputs("</text></g>\n", out);
}

/* The line under the title: what was measured and what widths and colours mean. */
static void write_subtitle(const flame *f, FILE *out)
{
    const rep_summary *s = f->s;
    const char *what = f->o->weight == REP_WEIGHT_CALLS ? "calls"
                     : f->o->weight == REP_WEIGHT_BYTES ? "node bytes" : "self time";
    char total[48];
    weight_text(f, f->total, total, sizeof total);
    fprintf(out, "<text x=\"%.1f\" y=\"36\" fill=\"#555\">", SVG_MARGIN);
    if (f->base) {
        char gone[48];
        weight_text(f, f->gone_weight, gone, sizeof gone);
        fprintf(out, "new: %llu process%s, %s; widths as in a flame graph of new, red grew and blue shrank against "
                     "the base (%llu base path%s of %s not drawn)",
                (unsigned long long)s->processes, s->processes == 1 ? "" : "es", total,
                (unsigned long long)f->gone_paths, f->gone_paths == 1 ? "" : "s", gone);
    } else {
        fprintf(out, "%llu process%s, %llu parse%s, %s; widths are %s summed over each frame and the frames above it",
                (unsigned long long)s->processes, s->processes == 1 ? "" : "es", (unsigned long long)s->parses,
                s->parses == 1 ? "" : "s", total, what);
    }
    fputs("</text>\n", out);
}

/* With several grammars: a swatch of each grammar's colour family and its name. */
static void write_legend(const flame *f, FILE *out)
{
    double x = SVG_MARGIN;
    for (size_t place = 0; place < f->ngrammars; place++)
        for (size_t i = 0; i < f->s->ngrammars; i++) {
            const rep_sgrammar *g = &f->s->grammars[i];
            if (!g->used || f->place[i] != place) continue;
            rgb c = hsl_colour(family_hue(place, f->ngrammars), 0.7, 0.6);
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" rx=\"2\" fill=\"rgb(%d,%d,%d)\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\">", x, SVG_TOP - 2, c.r, c.g, c.b, x + 16, SVG_TOP + 8);
            xml_text(out, g->label, strlen(g->label));
            fputs("</text>\n", out);
            x += 16 + SVG_CHAR_WIDTH * (double)strlen(g->label) + 16;
        }
}

static void write_svg(const flame *f, FILE *out)
{
    const rep_summary *s = f->s;
    double width = f->o->width, plot = width - 2 * SVG_MARGIN;
    double top = SVG_TOP + (f->ngrammars > 1 && !f->base ? SVG_LEGEND : 0);
    unsigned levels = 0;
    for (uint32_t n = s->root; n != REP_NONE; n = next_node(s, n))
        if (frame_width(f, n, plot) >= SVG_MIN_WIDTH && f->depth[n] + 1 > levels) levels = f->depth[n] + 1;
    double height = top + levels * SVG_ROW + SVG_BOTTOM;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
                 "viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, sans-serif\" font-size=\"12\">\n",
            width, height, width, height);
    fputs("<style type=\"text/css\">.frame { cursor: pointer; } .frame:hover rect { stroke: #000; stroke-width: 0.5; } "
          ".control { cursor: pointer; fill: #1a4bd6; } .control.on { font-weight: bold; fill: #c000c0; } "
          ".hide { display: none; } .parent { opacity: 0.6; }</style>\n",
          out);
    fprintf(out, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fdfdf6\"/>\n",
            width, height);
    fprintf(out, "<text x=\"%.1f\" y=\"20\" text-anchor=\"middle\" font-size=\"16\">", width / 2);
    const char *title = f->o->title ? f->o->title : f->base ? "Pego differential flame graph" : "Pego flame graph";
    xml_text(out, title, strlen(title));
    fputs("</text>\n", out);
    fprintf(out, "<text id=\"reset-zoom\" class=\"control hide\" x=\"%.1f\" y=\"20\">Reset Zoom</text>\n", SVG_MARGIN);
    fprintf(out, "<text id=\"search\" class=\"control\" x=\"%.1f\" y=\"20\" text-anchor=\"end\">Search</text>\n",
            width - SVG_MARGIN);
    fprintf(out, "<text id=\"ignore-case\" class=\"control\" x=\"%.1f\" y=\"20\" text-anchor=\"end\">ic</text>\n",
            width - SVG_MARGIN - 96);   /* clear of "Reset Search" */
    write_subtitle(f, out);
    if (f->ngrammars > 1 && !f->base) write_legend(f, out);
    for (uint32_t n = s->root; n != REP_NONE; n = next_node(s, n))
        if (frame_width(f, n, plot) >= SVG_MIN_WIDTH) write_frame(f, n, plot, height, out);
    if (f->total == 0)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">no %s was recorded</text>\n", SVG_MARGIN, top + 12,
                f->o->weight == REP_WEIGHT_CALLS ? "call" : f->o->weight == REP_WEIGHT_BYTES ? "node" : "self time");
    fprintf(out, "<text id=\"details\" x=\"%.1f\" y=\"%.1f\"> </text>\n", SVG_MARGIN, height - 8);
    fprintf(out, "<text id=\"matched\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"> </text>\n", width - SVG_MARGIN,
            height - 8);
    fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\nvar margin = %.1f, plot = %.1f, total = %llu;\n%s]]></script>\n",
            SVG_MARGIN, plot, (unsigned long long)f->total, flame_script);
    fputs("</svg>\n", out);
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

/* Starts and depths, parents first: a parent's children start at its left
 * edge, in weight units. */
static void lay_out(flame *f, uint64_t *next)
{
    const rep_summary *s = f->s;
    uint64_t root_next = 0;
    f->total = 0;
    for (uint32_t n = s->root; n != REP_NONE; n = s->nodes[n].sibling) f->total = rep_sum(f->total, f->sum[n]);
    for (uint32_t n = s->root; n != REP_NONE; n = next_node(s, n)) {
        const rep_snode *node = &s->nodes[n];
        uint64_t *at = node->parent == REP_NONE ? &root_next : &next[node->parent];
        f->start[n] = next[n] = *at;
        *at += f->sum[n];
        f->depth[n] = node->parent == REP_NONE ? 0 : f->depth[node->parent] + 1;
    }
}

static int by_grammar_label(const void *a, const void *b, void *ctx)
{
    const rep_summary *s = ctx;
    return strcmp(s->grammars[*(const size_t *)a].label, s->grammars[*(const size_t *)b].label);
}

/* Each used grammar's place among them by label: its colour family. */
static int place_grammars(flame *f)
{
    const rep_summary *s = f->s;
    size_t *order = malloc((s->ngrammars ? s->ngrammars : 1) * sizeof *order);
    f->place = malloc((s->ngrammars ? s->ngrammars : 1) * sizeof *f->place);
    if (!order || !f->place) {
        free(order);
        return -1;
    }
    f->ngrammars = 0;
    for (size_t i = 0; i < s->ngrammars; i++)
        if (s->grammars[i].used) order[f->ngrammars++] = i;
    qsort_r(order, f->ngrammars, sizeof *order, by_grammar_label, (void *)s);
    for (size_t i = 0; i < f->ngrammars; i++) f->place[order[i]] = i;
    free(order);
    return 0;
}

/* ---- the paths of a differential graph, matched by their labels ---- */

typedef struct labelled_path {
    char    *path;
    uint32_t node;
} labelled_path;

typedef struct path_list {
    labelled_path *v;
    size_t         n;
    int            failed;
} path_list;

static void collect_path(void *ud, uint32_t n, const char *path, size_t len)
{
    path_list *l = ud;
    char *copy = l->failed ? NULL : strndup(path, len);
    if (!copy) {
        l->failed = 1;
        return;
    }
    l->v[l->n++] = (labelled_path){ copy, n };
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const labelled_path *)a)->path, ((const labelled_path *)b)->path);
}

/* Every node's path of grammar:rule labels, sorted; 0, or -1 when out of memory. */
static int sorted_paths(const rep_summary *s, path_list *l)
{
    l->n = 0;
    l->failed = 0;
    l->v = malloc((s->nnodes ? s->nnodes : 1) * sizeof *l->v);
    if (!l->v || walk_paths(s, 0, collect_path, l) < 0) l->failed = 1;
    if (!l->failed) qsort(l->v, l->n, sizeof *l->v, by_path);
    return l->failed ? -1 : 0;
}

static void free_paths(path_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i].path);
    free(l->v);
}

/* For every node of the new tree, the base node of the same path and the
 * base's sum there; the base paths that new lacks, and their own weight. */
static int match_base(flame *f, const uint64_t *base_sum_of_node)
{
    path_list b, n;
    int rc = sorted_paths(f->base, &b) < 0 || sorted_paths(f->s, &n) < 0 ? -1 : 0;
    for (size_t i = 0; i < f->s->nnodes; i++) {
        f->in_base[i] = REP_NONE;
        f->base_sum[i] = 0;
    }
    f->gone_paths = f->gone_weight = 0;
    for (size_t i = 0, j = 0; rc == 0 && (i < b.n || j < n.n);) {
        int c = i == b.n ? 1 : j == n.n ? -1 : strcmp(b.v[i].path, n.v[j].path);
        if (c == 0) {
            f->in_base[n.v[j].node] = b.v[i].node;
            f->base_sum[n.v[j].node] = base_sum_of_node[b.v[i].node];
        } else if (c < 0) {
            f->gone_paths++;
            f->gone_weight = rep_sum(f->gone_weight, own_weight(f->base, f->o->weight, b.v[i].node));
        }
        if (c <= 0) i++;
        if (c >= 0) j++;
    }
    free_paths(&b);
    free_paths(&n);
    return rc;
}

/* Draws now (against base when not NULL) into path. */
static int write_flame(const rep_summary *now, const rep_summary *base, const rep_flame_options *o, const char *path,
                       char *err, size_t errlen)
{
    size_t n = now->nnodes ? now->nnodes : 1;
    flame f = { .s = now, .o = o, .bare = single_grammar(now), .base = base };
    uint64_t *next = malloc(n * sizeof *next), *base_sums = base ? subtree_sums(base, o->weight) : NULL;
    f.sum = subtree_sums(now, o->weight);
    f.start = malloc(n * sizeof *f.start);
    f.depth = malloc(n * sizeof *f.depth);
    if (base) {
        f.base_sum = malloc(n * sizeof *f.base_sum);
        f.in_base = malloc(n * sizeof *f.in_base);
    }
    int rc = -1;
    if (!next || !f.sum || !f.start || !f.depth || place_grammars(&f) < 0 ||
        (base && (!base_sums || !f.base_sum || !f.in_base || match_base(&f, base_sums) < 0))) {
        snprintf(err, errlen, "out of memory");
    } else {
        lay_out(&f, next);
        FILE *out = open_output(path, err, errlen);
        if (out) {
            write_svg(&f, out);
            rc = close_output(out, path, 0, err, errlen);
        }
    }
    free(next);
    free(base_sums);
    free(f.sum);
    free(f.start);
    free(f.depth);
    free(f.place);
    free(f.base_sum);
    free(f.in_base);
    return rc;
}

int rep_write_flamegraph(const rep_summary *s, const rep_flame_options *o, const char *path, char *err, size_t errlen)
{
    return write_flame(s, NULL, o, path, err, errlen);
}

int rep_write_diff_flamegraph(const rep_summary *base, const rep_summary *now, const rep_flame_options *o,
                              const char *path, char *err, size_t errlen)
{
    return write_flame(now, base, o, path, err, errlen);
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
