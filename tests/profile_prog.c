/* A program that uses libpego and contains no profiling code: it parses each
 * file named on its command line with the grammar given first. Run with
 * PEGO_FLAGS=--profile=FILE it must leave a report; without, none. With
 * "threads" as its first argument it parses each file in its own thread; with
 * "document", it parses each file, in its own thread, as a document three
 * times: as it is, with a space inserted in the middle, and as it was. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"

typedef struct {
    const pego_grammar *g;
    const char *file;
    int status;
} job;

static int documents;   /* "document" */

static void *parse_file(void *arg)
{
    job *j = arg;
    FILE *f = fopen(j->file, "rb");
    if (!f) { j->status = 2; return NULL; }
    char *buf = malloc(1 << 20);
    size_t len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    if (documents) {
        pego_options o = { .input_name = j->file, .unit = PEGO_UNIT_BYTES };
        pego_document *d = pego_document_new(j->g, buf, len, &o);
        const pego_result *r;
        j->status = pego_document_parse(d, &r) == PEGO_OK ? 0 : 1;
        pego_document_edit(d, len / 2, len / 2, " ", 1);
        pego_document_parse(d, &r);
        pego_document_edit(d, len / 2, len / 2 + 1, "", 0);
        if (pego_document_parse(d, &r) != PEGO_OK) j->status = 1;
        pego_document_free(d);
        free(buf);
        return NULL;
    }
    pego_parser *p = pego_parser_new(j->g);
    pego_options o = { .input_name = j->file };
    const pego_result *r;
    for (int k = 0; k < 20; k++) j->status = pego_parse(p, buf, len, &o, &r) == PEGO_OK ? 0 : 1;
    pego_parser_free(p);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 && strcmp(argv[1], "threads") == 0;
    documents = !threads && argc > 1 && strcmp(argv[1], "document") == 0;
    threads |= documents;        /* each document in its own thread too */
    if (argc < 3 + threads) {
        fprintf(stderr, "usage: profile_prog [threads|document] GRAMMAR FILE...\n");
        return 2;
    }
    pego_diag *d = NULL;
    pego_grammar *g = pego_compile_file(argv[1 + threads], &d);
    if (!g) {
        fprintf(stderr, "%s\n", pego_diag_text(d));
        pego_diag_free(d);
        return 2;
    }
    int n = argc - 2 - threads, status = 0;
    job *jobs = calloc((size_t)n, sizeof *jobs);
    pthread_t *tids = calloc((size_t)n, sizeof *tids);
    for (int i = 0; i < n; i++) {
        jobs[i] = (job){ g, argv[2 + threads + i], 0 };
        if (threads) pthread_create(&tids[i], NULL, parse_file, &jobs[i]);
        else parse_file(&jobs[i]);
    }
    for (int i = 0; i < n; i++) {
        if (threads) pthread_join(tids[i], NULL);
        if (jobs[i].status) status = 1;
    }
    free(jobs);
    free(tids);
    pego_grammar_free(g);
    return status;
}
