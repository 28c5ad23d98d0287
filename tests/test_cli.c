/* Unit tests of the command's input reading (cli/util.c) with a small limit:
 * a regular file over it is refused before anything is read, and a pipe is read
 * only until it passes the limit, without waiting for its end. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli/cli.h"

#define LIMIT 1000

/* A pipe holding n bytes of 'x'; its write end stays open unless closed is set,
 * so a reader that waits for the end of input would wait for ever. Returns the
 * name of its read end (/dev/fd/N) in name; *write_end is the other end. */
static void pipe_of(size_t n, int closed, char *name, size_t size, int *write_end)
{
    int fd[2];
    CU_ASSERT_EQUAL_FATAL(pipe(fd), 0);
    char *text = malloc(n);
    memset(text, 'x', n);
    CU_ASSERT_EQUAL_FATAL(write(fd[1], text, n), (ssize_t)n);
    free(text);
    if (closed) close(fd[1]);
    *write_end = closed ? -1 : fd[1];
    snprintf(name, size, "/dev/fd/%d", fd[0]);
}

static void test_pipe(void)
{
    char name[64];
    char *data = NULL;
    size_t len = 0;
    int end;
    pipe_of(LIMIT, 1, name, sizeof name, &end);
    CU_ASSERT_PTR_NULL(cli_read_file(name, LIMIT, &data, &len));
    CU_ASSERT_EQUAL(len, LIMIT);
    CU_ASSERT(data && data[0] == 'x' && data[LIMIT - 1] == 'x');
    free(data);
    close(atoi(name + 8));

    /* one byte more, and the writer still there: refused without waiting */
    pipe_of(LIMIT + 1, 0, name, sizeof name, &end);
    data = NULL;
    const char *why = cli_read_file(name, LIMIT, &data, &len);
    CU_ASSERT_PTR_NOT_NULL(why);
    if (why) CU_ASSERT_STRING_EQUAL(why, "input too large");
    CU_ASSERT_PTR_NULL(data);
    close(end);
    close(atoi(name + 8));
}

/* Standard input on a sparse file far over the limit is refused by its size:
 * nothing of it is read. Once read from up to LIMIT bytes before its end, what
 * is left is taken. */
static void test_regular_file(void)
{
    char name[] = "test_cli_XXXXXX";
    int fd = mkstemp(name);
    CU_ASSERT_FATAL(fd >= 0);
    const off_t size = (off_t)1 << 40;
    CU_ASSERT_EQUAL_FATAL(ftruncate(fd, size), 0);
    CU_ASSERT_EQUAL_FATAL(dup2(fd, 0), 0);
    char *data = NULL;
    size_t len = 0;
    const char *why = cli_read_file(NULL, LIMIT, &data, &len);
    CU_ASSERT_PTR_NOT_NULL(why);
    if (why) CU_ASSERT_STRING_EQUAL(why, "input too large");
    CU_ASSERT_PTR_NULL(data);
    CU_ASSERT_EQUAL(lseek(0, 0, SEEK_CUR), 0);
    CU_ASSERT_EQUAL(lseek(0, size - LIMIT, SEEK_SET), size - LIMIT);
    CU_ASSERT_PTR_NULL(cli_read_file(NULL, LIMIT, &data, &len));
    CU_ASSERT_EQUAL(len, LIMIT);
    free(data);
    close(fd);
    unlink(name);
}

int main(void)
{
    alarm(60);   /* a reader that waits for the end of a pipe fails the test instead of hanging */
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("cli", NULL, NULL);
    CU_add_test(s, "a pipe is read up to the limit", test_pipe);
    CU_add_test(s, "standard input on a regular file is measured first", test_regular_file);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
