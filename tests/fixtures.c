/* Walks the fixtures for the engine harnesses (fixtures.h), and runs a test
 * with --profile on. */
#include "fixtures.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *fixtures_srcdir(void)
{
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

static int ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strcmp(name + n - k, suffix) == 0;
}

/* An input, not a golden output (INPUT.sexpr, INPUT.json where INPUT has an
 * extension of its own) nor the demo document, which is large. */
static int is_input(const char *name)
{
    if (name[0] == '.' || strcmp(name, "demo.json") == 0 || ends_with(name, ".sexpr")) return 0;
    const char *dot = strchr(name, '.');
    return !(ends_with(name, ".json") && dot != name + strlen(name) - 5);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) free(buf);
            buf = b;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

int fixtures_each(fixture_fn fn, void *ctx, int *grammars, int *inputs)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fixtures", fixtures_srcdir());
    *grammars = *inputs = 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *de;
    int bad = 0;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (!ends_with(de->d_name, ".pego")) continue;
        char path[8192], sub[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        snprintf(sub, sizeof sub, "%s/%.*s", dir, (int)(n - 5), de->d_name);
        pego_diag *diag = NULL;
        pego_grammar *g = pego_compile_file(path, &diag);
        if (!g) {
            fprintf(stderr, "\n  %s\n", pego_diag_text(diag));
            pego_diag_free(diag);
            bad = -1;
            break;
        }
        (*grammars)++;
        DIR *ins = opendir(sub);
        struct dirent *ie;
        while (ins && (ie = readdir(ins))) {
            if (!is_input(ie->d_name)) continue;
            char file[16384];
            snprintf(file, sizeof file, "%s/%s", sub, ie->d_name);
            size_t len;
            char *input = read_all(file, &len);
            if (!input) continue;
            bad += fn(g, file, input, len, ctx);
            (*inputs)++;
            free(input);
        }
        if (ins) closedir(ins);
        pego_grammar_free(g);
    }
    closedir(d);
    return bad;
}

/* Runs test in a child process with --profile on (pego_profile_start): its
 * assertions must hold there too. The child leaves with _exit, so no report
 * is written. */
int run_profiled(void (*test)(void), const char *options)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        char dir[] = "/tmp/pego-test-XXXXXX", path[64];
        if (!mkdtemp(dir)) _exit(2);
        snprintf(path, sizeof path, "%s/r.zst", dir);
        int started = pego_profile_start(path, options) == 0;
        unsigned before = CU_get_number_of_failures();
        if (started) test();
        int failed = !started || CU_get_number_of_failures() != before;
        rmdir(dir);
        fflush(stdout);
        _exit(failed ? 1 : 0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
