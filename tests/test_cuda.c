/*
 * test_cuda.c - the CUDA path of the real executor, end to end: mring-bench with --device cuda
 * (buffers in GPU memory, reductions by the CUDA kernels, messages staged per piece through pinned
 * host memory) must report zero wrong elements for every type and op, pipelined or not.  Where no
 * GPU is visible, or mring was built without nvcc, every test reports itself as SKIPPED.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_run.h"
#include "sim_cli.h"

/* Run mring-bench on 2 ranks with `flags`; skip when there is no GPU or no CUDA build. */
static void bench_cuda(const char *flags)
{
    char cmd[2 * PATH_MAX], out[16384];
    snprintf(cmd, sizeof cmd, "timeout 300 mpiexec -n 2 %s --device cuda %s 2>&1",
             sim_repo_path("build/bin/mring-bench"), flags);
    int status = cli_shell(cmd, out, sizeof out);
    if (strstr(out, "no CUDA device is visible") || strstr(out, "built without CUDA")) {
        print_message("no GPU here: %s", out);
        skip();
    }
    if (status != 0 || !strstr(out, "# Out of bounds values : 0 OK"))
        fail_msg("%s: want exit 0 and 0 wrong elements; got status %d:\n%s", cmd, status, out);
}

static void float32_sum(void **state)
{
    (void)state;
    bench_cuda("--topo 2 -b 8 -e 16M -f 16 -n 2 -w 1");
}

static void every_type_and_op(void **state)
{
    static const char *const types[] = {"float32", "float64", "float16", "bfloat16", "int32", "int64"};
    static const char *const ops[] = {"sum", "prod", "min", "max", "avg"};
    char flags[256];
    (void)state;
    for (size_t t = 0; t < 6; t++)
        for (size_t o = 0; o < 5; o++) {
            snprintf(flags, sizeof flags, "-d %s -o %s -b 1K -e 1M -f 32 -n 1 -w 0 --rings 2", types[t], ops[o]);
            bench_cuda(flags);
        }
}

static void pipelined_staging(void **state)
{
    (void)state;
    bench_cuda("--algo multiring --rings 2 --segment 256K -b 1M -e 64M -f 8 -n 2 -w 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(float32_sum), cmocka_unit_test(every_type_and_op),
                                       cmocka_unit_test(pipelined_staging)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
